/*
 * tty.c - ncurses: the palette, copying the canvas to the screen, the
 * progress screen while indexing and the key loop.
 *
 * Single-threaded on purpose (curs_threads(3X)): decoding is interleaved
 * with the keyboard through ix_step() and a zero getch() timeout.  Roles
 * become colours (or bold, reverse and underline) in lib/term.c, the
 * palette the lesson runner shares.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/term.h"
#include "viewer/app.h"
#include "viewer/canvas.h"
#include "viewer/tty.h"

static void blit(const struct canvas *c)
{
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			const struct cell *cl = &c->cells[y * c->w + x];
			wchar_t wc[2] = { (wchar_t)cl->ch, 0 };
			cchar_t cc;
			attr_t attr;
			short pair;
			term_role(cl->role, &attr, &pair);
			setcchar(&cc, wc, attr, pair, NULL);
			mvadd_wch(y, x, &cc); /* the last cell may fail: fine */
		}
	wnoutrefresh(stdscr);
	doupdate();
}

static uint64_t ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void draw_progress(struct canvas *c, const struct trace_index *ix)
{
	uint64_t done, total;
	ix_progress(ix, &done, &total);
	int pct = total ? (int)(done * 100 / total) : 0;
	canvas_clear(c);
	int w = c->w - 4 < 60 ? c->w - 4 : 60;
	struct rect r = { (c->w - w) / 2, c->h / 2 - 2, w, 5 };
	canvas_box(c, r, "icache-view: indexing", true);
	canvas_printf(c, r.x + 2, r.y + 1, w - 4, R_NORMAL, "%s", ix->path);
	int bar = w - 12;
	int fill = bar * pct / 100;
	canvas_fill(c, r.x + 2, r.y + 2, fill, R_CURSOR, c->utf8 ? 0x2588 : '#');
	canvas_fill(c, r.x + 2 + fill, r.y + 2, bar - fill, R_DIM, c->utf8 ? 0x2591 : '.');
	canvas_printf(c, r.x + 3 + bar, r.y + 2, 6, R_NORMAL, "%3d%%", pct);
	canvas_printf(c, r.x + 2, r.y + 3, w - 4, R_DIM, "%llu events  (q quits)",
		      (unsigned long long)ix->nev);
}

int tty_run(struct trace_index *ix, const struct tty_opts *o, char *err, size_t errlen)
{
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		snprintf(err, errlen, "%s: cannot open the terminal (TERM=%s)", ix->path,
			 getenv("TERM") ? getenv("TERM") : "unset");
		return 2;
	}
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	term_entered();
	term_palette_init(!o->no_color && term_env_wants_color() && has_colors());
	bool utf8 = term_locale_utf8() && !o->ascii;

	struct canvas c;
	canvas_init(&c, COLS, LINES, utf8);
	/* Indexing, with the keyboard still live. */
	timeout(0);
	uint64_t last = 0;
	enum ix_status st;
	while ((st = ix_step(ix, 16, err, errlen)) == IX_MORE) {
		if (ms_now() - last >= 100) {
			last = ms_now();
			int k = getch();
			if (k == 'q' || k == KEY_F(10)) {
				endwin();
				term_left();
				delscreen(scr);
				canvas_free(&c);
				return 0;
			}
			if (k == KEY_RESIZE) {
				canvas_free(&c);
				canvas_init(&c, COLS, LINES, utf8);
			}
			draw_progress(&c, ix);
			blit(&c);
		}
	}
	if (st == IX_OK)
		st = ix_finish(ix, err, errlen);
	if (st != IX_OK) {
		endwin();
		term_left();
		delscreen(scr);
		canvas_free(&c);
		return 2;
	}

	struct app a;
	app_init(&a, ix);
	timeout(-1);
	while (!a.quit) {
		app_draw(&a, &c);
		blit(&c);
		int k = getch();
		if (k == KEY_RESIZE) {
			canvas_free(&c);
			canvas_init(&c, COLS, LINES, utf8);
			clearok(stdscr, TRUE);
			continue;
		}
		if (k == '\r')
			k = '\n';
		if (k != ERR)
			app_key(&a, k);
	}
	app_free(&a);
	endwin();
	term_left();
	delscreen(scr);
	canvas_free(&c);
	return 0;
}
