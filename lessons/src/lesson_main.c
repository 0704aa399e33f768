/*
 * main.c - icache-lesson: step through the inode_lock story in a terminal.
 *
 *   icache-lesson                  list the lessons, with your progress
 *   icache-lesson N | FILE         run one
 *   icache-lesson --check FILE...  validate lessons (FILE:LINE: errors, exit 2)
 *
 * Exit status: 0 all well, 1 the lesson could not run (its scenario failed
 * to play or record), 2 bad usage or a malformed lesson.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/src/catalog.h"
#include "lessons/src/check.h"
#include "lessons/src/lesson.h"
#include "lessons/src/progress.h"
#include "lessons/src/runner.h"
#include "lessons/src/session.h"
#include "lib/xalloc.h"
#include "viewer/cache.h"

#ifndef ICACHE_VERSION
#define ICACHE_VERSION "0.1"
#endif

static const char usage[] =
	"usage: icache-lesson [N | FILE] [--step N] [--keys KEYS --screen WxH]\n"
	"       icache-lesson --check [--static] FILE...\n"
	"       icache-lesson --progress\n"
	"\n"
	"Lessons on the Linux inode cache and the 2010 inode_lock debate.  Without\n"
	"arguments, list the lessons and your progress.  With a number (or a .lesson\n"
	"file), play the lesson's scenario through `icache-sim play -o DIR` into a fresh\n"
	"trace and step through it: the narrative beside the viewer's panes.\n"
	"\n"
	"keys in a lesson:\n"
	"  space, n, Right   next step           b, Left    previous step\n"
	"  a..h              answer a question; a wrong first answer gets one more try\n"
	"                    (b too while a question is open: use Left to go back then)\n"
	"  r                 replay the scenario\n"
	"  0-9               drive that CPU one step (in a \"you are the scheduler\" step)\n"
	"  u                 undo the last CPU step           e   edit (an exercise step)\n"
	"  i                 a hint (again: a stronger one)   ?   the glossary\n"
	"  Tab               the next pane first (again: the one after)\n"
	"  q                 quit (Ctrl-C too: temporary traces are removed either way)\n"
	"\n"
	"options:\n"
	"  --check FILE...   validate lessons: the scenario plays, every step's moment\n"
	"                    exists in the trace, answers are among the choices, every\n"
	"                    exercise's solution reaches its goal; FILE:LINE: errors\n"
	"  --static          with --check, only what can be checked without playing\n"
	"  --progress        a summary of your progress, one line per lesson, for a\n"
	"                    class: steps seen, questions right first time, exercises\n"
	"  --step N          begin at step N (a lesson run in a terminal otherwise\n"
	"                    resumes where you left off; --keys begins at step 1)\n"
	"  --keys KEYS       run without a terminal: press KEYS, print the screen\n"
	"                    (<Enter>, <Left>, <Right>; <Print> prints the screen at\n"
	"                    that point too, followed by a line with a form feed)\n"
	"  --screen WxH      the screen size for --keys (default 120x40)\n"
	"  --help, --version\n"
	"\n"
	"environment: ICACHE_LESSONS (the lessons directory), ICACHE_SIM (the\n"
	"icache-sim to run), XDG_STATE_HOME (progress is kept in\n"
	"$XDG_STATE_HOME/icache-lab/progress, default ~/.local/state/icache-lab)\n"
	"\n"
	"exit status: 0 ok, 1 the scenario failed to play, 2 bad usage or lesson\n";

static int list_lessons(void)
{
	int n;
	char **list = catalog_list(&n);
	if (!n) {
		fprintf(stderr,
			"icache-lesson: no lessons found (set ICACHE_LESSONS to the lessons directory)\n");
		catalog_free(list);
		return 2;
	}
	printf("Lessons in %s:\n\n", catalog_dir());
	for (int i = 0; i < n; i++) {
		struct diag d = { 0 };
		struct lesson *l = lesson_parse(list[i], &d);
		struct progress p;
		char state[48] = "new";
		if (l && progress_get(l->name, &p)) {
			if (p.done)
				snprintf(state, sizeof(state), "done%s", p.asked ? "" : "");
			else
				snprintf(state, sizeof(state), "%d/%d steps", p.seen, p.total);
			if (p.asked) {
				size_t k = strlen(state);
				snprintf(state + k, sizeof(state) - k, ", %d/%d right", p.right,
					 p.asked);
			}
		}
		printf("  %2d  %-58.58s %s\n", l ? l->number : 0,
		       l && l->title ? l->title : list[i], state);
		lesson_free(l);
		ldiag_free(&d);
	}
	char *dir = progress_dir(false);
	printf("\nicache-lesson N runs lesson N.  Progress: %s/progress\n",
	       dir ? dir : "(no home directory)");
	free(dir);
	catalog_free(list);
	return 0;
}

/* One line of the summary: "steps 10/10 done  questions 1/2 ..." */
static void summary_line(const struct lesson *l, char *buf, size_t len)
{
	struct progress p;
	if (!progress_get(l->name, &p)) {
		snprintf(buf, len, "not started");
		return;
	}
	int solved, all;
	progress_exercises(&p, &solved, &all);
	int questions = 0;
	for (int i = 0; i < l->nsteps; i++)
		questions += l->steps[i].ask != NULL;
	size_t k = (size_t)snprintf(buf, len, "%-8s steps %2d/%-2d",
				    p.done ? "finished" : "started", p.seen, l->nsteps);
	if (questions)
		k += (size_t)snprintf(buf + k, len - k,
				      "  questions %d/%d right first time (%d answered)", p.right,
				      questions, p.asked);
	if (all)
		snprintf(buf + k, len - k, "  exercises %d/%d solved", solved, all);
}

static int progress_summary(void)
{
	int n;
	char **list = catalog_list(&n);
	char *dir = progress_dir(false);
	printf("Progress of %s (%s/progress)\n\n", getenv("USER") ? getenv("USER") : "this user",
	       dir ? dir : "no home directory");
	free(dir);
	int finished = 0, right = 0, asked = 0;
	for (int i = 0; i < n; i++) {
		struct diag d = { 0 };
		struct lesson *l = lesson_parse(list[i], &d);
		if (l) {
			char line[200];
			summary_line(l, line, sizeof(line));
			printf("  %02d  %-56.56s %s\n", l->number, l->title ? l->title : l->name,
			       line);
			struct progress p;
			if (progress_get(l->name, &p)) {
				finished += p.done;
				right += p.right;
				asked += p.asked;
			}
		}
		lesson_free(l);
		ldiag_free(&d);
	}
	printf("\n%d of %d lessons finished; %d of %d questions answered right the first time.\n",
	       finished, n, right, asked);
	catalog_free(list);
	return 0;
}

static bool parse_screen(const char *s, int *w, int *h)
{
	return sscanf(s, "%dx%d", w, h) == 2 && *w >= 60 && *w <= 1000 && *h >= 20 && *h <= 500;
}

/* What the command line asks for. */
struct args {
	bool check, static_only, summary;
	int start; /* --step N, 0 none */
	const char *keys;
	int w, h;
	char **files;
	int nfiles;
};

/* Returns -1 to go on, else the exit status (after --help, or an error). */
static int parse_args(int argc, char **argv, struct args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i];
		if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(f, "--version")) {
			printf("icache-lesson %s\n", ICACHE_VERSION);
			return 0;
		} else if (!strcmp(f, "--check")) {
			a->check = true;
		} else if (!strcmp(f, "--static")) {
			a->static_only = true;
		} else if (!strcmp(f, "--progress")) {
			a->summary = true;
		} else if (!strcmp(f, "--step")) {
			char *end = NULL;
			long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
			if (!end || *end || v < 1 || v > 999) {
				fprintf(stderr,
					"icache-lesson: --step needs a step number (1, 2, ...)\n");
				return 2;
			}
			a->start = (int)v;
			i++;
		} else if (!strcmp(f, "--keys") || !strcmp(f, "--screen")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "icache-lesson: %s needs a value\n", f);
				return 2;
			}
			if (f[2] == 'k') {
				a->keys = argv[++i];
			} else if (!parse_screen(argv[++i], &a->w, &a->h)) {
				fprintf(stderr,
					"icache-lesson: --screen: '%s' is not WxH (at least 60x20)\n",
					argv[i]);
				return 2;
			}
		} else if (f[0] == '-' && f[1]) {
			fprintf(stderr, "icache-lesson: unknown option '%s' (see --help)\n", f);
			return 2;
		} else {
			a->files[a->nfiles++] = argv[i];
		}
	}
	return -1;
}

/* --check: every lesson named; 2 if any has a problem. */
static int check_lessons(const struct args *a)
{
	int bad = 0;

	if (!a->nfiles) {
		fprintf(stderr, "icache-lesson: --check needs a lesson file\n");
		return 2;
	}
	session_begin();
	for (int i = 0; i < a->nfiles; i++) {
		char *path = catalog_find(a->files[i]);
		int problems = lesson_check(path ? path : a->files[i], !a->static_only, stderr);
		if (!problems)
			printf("%s: ok\n", path ? path : a->files[i]);
		bad += problems;
		free(path);
	}
	session_end();
	return bad ? 2 : 0;
}

/* Find, parse and run one lesson. */
static int run_lesson(const char *which, const struct args *a)
{
	char *path = catalog_find(which);
	if (!path) {
		fprintf(stderr, "icache-lesson: no lesson '%s' (icache-lesson lists them)\n",
			which);
		return 2;
	}
	struct diag d = { 0 };
	struct lesson *l = lesson_parse(path, &d);
	if (!l || d.n) {
		ldiag_print(&d, stderr);
		ldiag_free(&d);
		lesson_free(l);
		free(path);
		return 2;
	}
	ldiag_free(&d);
	struct runner_opts o = {
		.keys = a->keys, .width = a->w, .height = a->h, .start = a->start
	};
	session_begin();
	int rc = lesson_run(l, &o);
	session_end();
	lesson_free(l);
	free(path);
	return rc;
}

/* --check, one lesson, or the list of lessons. */
static int dispatch(const struct args *a)
{
	if (a->summary)
		return progress_summary();
	if (a->check)
		return check_lessons(a);
	if (a->nfiles > 1) {
		fprintf(stderr, "icache-lesson: one lesson at a time\n");
		return 2;
	}
	if (a->nfiles == 1)
		return run_lesson(a->files[0], a);
	if (a->keys) {
		fprintf(stderr, "icache-lesson: --keys needs a lesson\n");
		return 2;
	}
	return list_lessons();
}

int main(int argc, char **argv)
{
	struct args a = { .w = 120, .h = 40 };

	/* A lesson's traces are small and temporary (every replay and every
	 * scheduler press records a new one, removed at exit): an index cache
	 * of each would only pile up in $XDG_CACHE_HOME. */
	ix_cache_mode = IX_CACHE_OFF;
	a.files = xcalloc((size_t)argc + 1, sizeof(*a.files));
	int rc = parse_args(argc, argv, &a);
	if (rc < 0)
		rc = dispatch(&a);
	free(a.files);
	return rc;
}
