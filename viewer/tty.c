/*
 * tty.c - ncurses: the palette, copying the canvas to the screen, the
 * progress screen while indexing and the key loop.
 *
 * Single-threaded on purpose (curs_threads(3X)): decoding is interleaved
 * with the keyboard through ix_step() and a zero getch() timeout; the
 * viewer is up on the part already indexed well before the end.  Roles
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

/* The terminal, set up for the viewer; NULL and err if it cannot be. */
static SCREEN *tty_open(struct trace_index *ix, const struct tty_opts *o, char *err, size_t errlen)
{
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		snprintf(err, errlen, "%s: cannot open the terminal (TERM=%s)", ix->path,
			 getenv("TERM") ? getenv("TERM") : "unset");
		return NULL;
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
	return scr;
}

static void tty_close(SCREEN *scr, struct canvas *c)
{
	endwin();
	term_left();
	delscreen(scr);
	canvas_free(c);
}

/* A key for the viewer; false if it was a resize (the canvas is remade). */
static bool take_key(struct app *a, struct canvas *c, int k, bool utf8)
{
	if (k == KEY_RESIZE) {
		canvas_free(c);
		canvas_init(c, COLS, LINES, utf8);
		clearok(stdscr, TRUE);
		return false;
	}
	if (k == '\r')
		k = '\n';
	if (k != ERR)
		app_key(a, k);
	return true;
}

/* The viewer shows the trace this soon after start, indexed or not. */
#define FIRST_SCREEN_MS 300

/* Test only, so that a test sees the partial states on any machine:
 * ICACHE_VIEW_TEST_STEP_MS=N sleeps N ms after each decoding step;
 * ICACHE_VIEW_TEST_SLICE=N makes a search slice N events, and
 * ICACHE_VIEW_TEST_SLICE_MS=N sleeps N ms after each. */
static unsigned test_knob(const char *name)
{
	const char *v = getenv(name);
	return v ? (unsigned)strtoul(v, NULL, 10) % 1000000 : 0;
}

/*
 * Indexing, with the keyboard live.  Until FIRST_SCREEN_MS a progress
 * box; from then on the viewer itself, on the events indexed so far (its
 * header says "indexing... N %"), growing while the decoding goes on
 * between keys.  Returns the load's status; *shown says if the app is up.
 */
static enum ix_status index_live(struct trace_index *ix, struct app *a, bool *shown,
				 struct canvas *c, bool utf8, char *err, size_t errlen)
{
	uint64_t t0 = ms_now(), drawn = 0, grown = 0;
	unsigned slow = test_knob("ICACHE_VIEW_TEST_STEP_MS") % 1000;
	enum ix_status st;
	timeout(0);
	while ((st = ix_step(ix, 8, err, errlen)) == IX_MORE) {
		if (slow)
			napms((int)slow);
		int k = getch();
		uint64_t now = ms_now();
		if (!*shown && ix->nev && now - t0 >= FIRST_SCREEN_MS) {
			app_init(a, ix);
			a->sliced = true;
			a->slice = test_knob("ICACHE_VIEW_TEST_SLICE");
			*shown = true;
		}
		if (*shown && now - grown >= 1000) { /* show what came in since */
			app_set_visible(a, ix->nev);
			grown = now;
		}
		if (!*shown && (k == 'q' || k == KEY_F(10)))
			a->quit = true;
		if (*shown && k != ERR)
			take_key(a, c, k, utf8);
		else if (*shown)
			app_work(a); /* a search under way: one slice */
		else if (k == KEY_RESIZE) {
			canvas_free(c);
			canvas_init(c, COLS, LINES, utf8);
		}
		if (a->quit)
			return IX_OK;
		if (k != ERR || now - drawn >= 100) {
			drawn = now;
			if (*shown)
				app_draw(a, c);
			else
				draw_progress(c, ix);
			blit(c);
		}
	}
	if (st == IX_OK)
		st = ix_finish(ix, err, errlen);
	return st;
}

int tty_run(struct trace_index *ix, const struct tty_opts *o, char *err, size_t errlen)
{
	SCREEN *scr = tty_open(ix, o, err, errlen);
	if (!scr)
		return 2;
	bool utf8 = term_locale_utf8() && !o->ascii;
	struct canvas c;
	canvas_init(&c, COLS, LINES, utf8);
	struct app a;
	memset(&a, 0, sizeof(a));
	bool shown = false;
	enum ix_status st = index_live(ix, &a, &shown, &c, utf8, err, errlen);
	if (st != IX_OK || a.quit) {
		if (shown)
			app_free(&a);
		tty_close(scr, &c);
		return st != IX_OK ? 2 : 0;
	}
	if (!shown)
		app_init(&a, ix);
	else
		app_set_visible(&a, ix->nev); /* all of it, now complete */
	a.sliced = true;
	a.slice = test_knob("ICACHE_VIEW_TEST_SLICE");
	unsigned slow = test_knob("ICACHE_VIEW_TEST_SLICE_MS") % 1000;
	while (!a.quit) {
		app_draw(&a, &c);
		blit(&c);
		/* A search under way goes on between keys, a slice at a time. */
		timeout(a.job.on ? 0 : -1);
		int k = getch();
		if (k == ERR && a.job.on) {
			app_work(&a);
			if (slow)
				napms((int)slow);
		} else
			take_key(&a, &c, k, utf8);
	}
	app_free(&a);
	tty_close(scr, &c);
	return 0;
}
