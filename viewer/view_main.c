/*
 * main.c - icache-view's command line.
 *
 *   icache-view DIR                         the interactive viewer
 *   icache-view --summary [--json] DIR      figures, no terminal needed
 *   icache-view --dot DIR                   the lock-order graph (Graphviz)
 *   icache-view --keys KEYS --screen WxH DIR  the screen after KEYS, as text
 *   icache-view --bench DIR                 index rate, bytes/event, jumps
 *
 * Every failure to read the trace is one line on stderr naming the path,
 * and exit status 2.
 */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/keys.h"
#include "lib/term.h"
#include "viewer/app.h"
#include "viewer/cache.h"
#include "viewer/report.h"
#include "viewer/tty.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: icache-view [options] TRACE_DIR\n"
		"\n"
		"Replay an icache-sim LTTng trace: per-CPU lanes, held locks, the\n"
		"I_WILL_FREE / I_FREEING handoff of an inode, the observed lock order\n"
		"and lock_stat figures at any point of the trace.\n"
		"\n"
		"options:\n"
		"  --summary         print the trace's figures and exit\n"
		"  --json            with --summary: as one JSON object\n"
		"  --dot             print the observed lock-order graph as Graphviz DOT\n"
		"  --keys KEYS       type KEYS into the viewer (<Enter> <Tab> <Esc> <Down> ...)\n"
		"  --screen WxH      render the screen after --keys as text (default 120x40)\n"
		"  --bench           report index build rate, bytes per event, jump times\n"
		"  --no-cache        neither reuse nor write the index cache\n"
		"  --clear-cache     delete every cached index (then open TRACE_DIR, if given)\n"
		"  --run N           show run N of a trace holding several (1 = first)\n"
		"  --pid P           show the run of process P (vpid, or run_begin's tid)\n"
		"  --ascii           no UTF-8 box drawing or glyphs\n"
		"  --no-color        no colours (also NO_COLOR=1)\n"
		"  --help            this text\n"
		"\n"
		"A trace with lost events, a cut or missing stream, or no run_begin or\n"
		"run_end is shown with INCOMPLETE and its reasons (header, summary,\n"
		"JSON \"complete\": false); verdicts drawn across lost events are marked\n"
		"unreliable.  Two runs or processes in one trace are never merged:\n"
		"pick one with --run or --pid.\n"
		"\n"
		"A trace is indexed once: the index is kept in $XDG_CACHE_HOME/icache-lab\n"
		"(default ~/.cache/icache-lab) and reopened from there while the trace's\n"
		"files are unchanged; a stale or corrupt cache is said, deleted and rebuilt.\n"
		"It is decoded by one process per CPU, each with a share of the packets\n"
		"(of the streams if LTTng's index files do not account for every packet);\n"
		"ICACHE_VIEW_DECODERS=N sets how many; 1: in the viewer's own process.\n"
		"\n"
		"In the viewer, h, F1 or ? lists the keys (? again: the legend).  A\n"
		"terminal that cannot be drawn on (TERM=dumb, unset or unknown) gets one\n"
		"line saying so.  Exit status: 0 ok, 1 bad usage, 2 the trace could not\n"
		"be read or the terminal cannot be drawn on (one line on stderr says why).\n"
		"See icache-view(1).\n");
}

/* Load everything for the non-interactive modes. */
static struct ix_select sel = { 0, -1 };

static struct trace_index *load_or_die(const char *path, struct model **mp)
{
	char err[1024];
	struct trace_index *ix = ix_load_sel(path, &sel, err, sizeof(err));
	if (!ix) {
		fprintf(stderr, "icache-view: %s\n", err);
		exit(2);
	}
	struct model *m = model_new();
	ix_apply_order(ix, m);
	model_seek(m, ix, ix->nev);
	*mp = m;
	return ix;
}

/* --summary, --json, --dot: the whole trace, then a report. */
static int report_mode(const char *path, bool summary, bool json, bool dot)
{
	struct model *m;
	struct trace_index *ix = load_or_die(path, &m);

	if (summary && json)
		report_json(stdout, ix, m);
	else if (summary)
		report_summary(stdout, ix, m);
	if (dot)
		report_dot(stdout, ix, m);
	model_free(m);
	ix_free(ix);
	return 0;
}

/* --keys/--screen: press the keys, print the screen as text. */
static int screen_mode(const char *path, const char *keys, const char *screen, bool ascii)
{
	int w = 120, h = 40;

	if (screen &&
	    (sscanf(screen, "%dx%d", &w, &h) != 2 || w < 20 || h < 6 || w > 1000 || h > 500)) {
		fprintf(stderr, "icache-view: --screen wants WxH, like 120x40 (got %s)\n", screen);
		return 1;
	}
	struct model *m;
	struct trace_index *ix = load_or_die(path, &m);
	model_free(m);
	struct app a;
	app_init(&a, ix);
	int k[4096];
	int n = keys ? keys_parse(keys, k, 4096) : 0;
	struct canvas c;
	canvas_init(&c, w, h, term_locale_utf8() && !ascii);
	/* A frame before each key, as in the terminal: some keys act on
	 * what the screen shows (the help's pages, the lanes' view). */
	for (int i = 0; i < n && !a.quit; i++) {
		app_draw(&a, &c);
		app_key(&a, k[i]);
	}
	app_draw(&a, &c);
	char *txt = canvas_to_text(&c);
	fputs(txt, stdout);
	free(txt);
	canvas_free(&c);
	app_free(&a);
	ix_free(ix);
	return 0;
}

/* The terminal viewer. */
static int tty_mode(const char *path, const struct tty_opts *o)
{
	char err[1024];

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "icache-view: not a terminal; use --summary, --dot or "
				"--keys/--screen (see --help)\n");
		return 1;
	}
	if (!term_usable("the viewer", "use --summary, or --keys with --screen (see --help)", err,
			 sizeof(err))) {
		fprintf(stderr, "icache-view: %s\n", err);
		return 2;
	}
	struct trace_index *ix = ix_open_sel(path, &sel, err, sizeof(err));
	if (!ix) {
		fprintf(stderr, "icache-view: %s\n", err);
		return 2;
	}
	int rc = tty_run(ix, o, err, sizeof(err));
	if (rc == 2)
		fprintf(stderr, "icache-view: %s\n", err);
	ix_free(ix);
	return rc;
}

/* What the command line asks for. */
struct view_args {
	bool summary, json, dot, bench, ascii, no_color, clear, no_cache;
	const char *keys, *screen, *path;
};

/* The options that only switch something on: the flag they set, or NULL. */
static bool *switch_of(struct view_args *va, const char *a)
{
	const struct {
		const char *name;
		bool *flag;
	} tab[] = {
		{ "--summary", &va->summary },
		{ "--json", &va->json },
		{ "--dot", &va->dot },
		{ "--bench", &va->bench },
		{ "--no-cache", &va->no_cache },
		{ "--clear-cache", &va->clear },
		{ "--ascii", &va->ascii },
		{ "--no-color", &va->no_color },
		{ "--no-colour", &va->no_color },
	};
	for (size_t k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
		if (!strcmp(a, tab[k].name))
			return tab[k].flag;
	return NULL;
}

/* --run N or --pid N into sel; false (said) if N is not one. */
static bool select_arg(const char *a, const char *v)
{
	bool run = a[2] == 'r';
	char *end;
	long long n = strtoll(v, &end, 10);
	if (*end || end == v || n < (run ? 1 : 0) || n > INT32_MAX) {
		fprintf(stderr, "icache-view: %s wants a %s number (got %s)\n", a,
			run ? "run (1, 2, ...)" : "process", v);
		return false;
	}
	if (run)
		sel.run = (unsigned)n;
	else
		sel.pid = n;
	return true;
}

/* Read the command line into va: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct view_args *va)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool *sw = switch_of(va, a);
		if (sw) {
			*sw = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if ((!strcmp(a, "--run") || !strcmp(a, "--pid")) && i + 1 < argc) {
			if (!select_arg(a, argv[++i]))
				return 1;
		} else if (!strcmp(a, "--keys") && i + 1 < argc) {
			va->keys = argv[++i];
		} else if (!strcmp(a, "--screen") && i + 1 < argc) {
			va->screen = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "icache-view: unknown option %s (try --help)\n", a);
			return 1;
		} else if (!va->path) {
			va->path = a;
		} else {
			fprintf(stderr, "icache-view: one trace directory only (got %s and %s)\n",
				va->path, a);
			return 1;
		}
	}
	return -1;
}

/* --clear-cache: -1 to go on with the trace named too, else the exit status. */
static int clear_cache(const char *path)
{
	char err[300];
	int n = ix_cache_clear(err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "icache-view: --clear-cache: %s\n", err);
		return 2;
	}
	if (path)
		return -1;
	printf("icache-view: %d cache file%s deleted\n", n, n == 1 ? "" : "s");
	return 0;
}

int main(int argc, char **argv)
{
	struct view_args va = { 0 };

	setlocale(LC_ALL, "");
	int rc = parse_args(argc, argv, &va);
	if (rc >= 0)
		return rc;
	if (va.no_cache)
		ix_cache_mode = IX_CACHE_OFF;
	if (va.clear && (rc = clear_cache(va.path)) >= 0)
		return rc;
	if (!va.path) {
		usage(stderr);
		return 1;
	}
	if (va.bench)
		return report_bench(stdout, va.path);
	if (va.summary || va.json || va.dot)
		return report_mode(va.path, va.summary || va.json, va.json, va.dot);
	if (va.keys || va.screen)
		return screen_mode(va.path, va.keys, va.screen, va.ascii);
	struct tty_opts o = { .no_color = va.no_color, .ascii = va.ascii };
	return tty_mode(va.path, &o);
}
