/*
 * test_readme.c - the README's examples still print what it shows, and the
 * man pages name every option the programs' --help lists.
 *
 * README.md shows commands in fenced code blocks: a line "$ COMMAND" and,
 * below it up to the next "$ " line or the end of the block, what the
 * command printed.  Every such command must be in the table below, which
 * says how it is checked:
 *
 *   SAME      run; its output (stdout and stderr) must be the shown text
 *   TIMES     the same, on a trace recorded in real time: every time figure
 *             ("434.228 us", "+4.669 ms") is masked and runs of spaces
 *             are one space, in both texts, before they are compared
 *   SHAPE     a real run: its figures differ every time, but not its
 *             lines, labels and columns; every number is masked, the
 *             host's CPU model ("on 2 cores (MODEL)") too, and runs of
 *             spaces are one space, in both texts, before they are compared
 *   HIDDEN    run, must exit 0; the README shows none of its output, or
 *             "..." (it makes a trace the next command reads)
 *   UNSTABLE  its output cannot be the same twice (real-time runs,
 *             timings, real CPUs); the table says why.  It is run (for at
 *             most `secs` seconds when that is not 0) and must not exit 2:
 *             its command line still parses
 *   NOTRACE   reads a trace that cannot be made here; the table says why.
 *             It must fail on that trace (exit 2, one line naming it), not
 *             on its options
 *   ELSEWHERE not run here, and why (a whole suite of make check)
 *
 * FIRST examples run before the others, in README order (they make the
 * traces other examples read); BG examples are slow but idle (thousands
 * of schedules on real threads): they start first, in the background, and
 * are compared at the end.
 *
 * Normalisation, in both texts: trailing spaces are dropped, and a shown
 * line "..." stands for any number of lines (the README cuts long output).
 * The commands run in a scratch directory S that holds the source tree's
 * top-level entries as symbolic links and `build` pointing at $BUILD (so a
 * command's `build/bin/...` is the build under test); `/tmp/` in a command
 * becomes S/tmp/, HOME is S/home/student, and S is removed from the output
 * (so the README's /tmp/race and /home/student/... come back).
 *
 * A failure names the README's line and shows both texts.  A README
 * command that the table lacks fails too: a new example must say how it
 * is checked.
 */
#include <ctype.h>
#include <regex.h>
#include <time.h>

#include "tests/testutil.h"

enum how { SAME, TIMES, SHAPE, HIDDEN, UNSTABLE, NOTRACE, ELSEWHERE };
#define FIRST 1
#define BG 2

struct example {
	const char *cmd; /* as the README writes it, after "$ " */
	enum how how;
	int flags;
	int secs; /* UNSTABLE: stop it (SIGINT) after this many seconds; 0: never */
	const char *why;
};

/* the README's two runs of the pressure workload, which differ in the sysctl */
#define PRESSURE_RUN                                                                    \
	"build/bin/icache-sim run --virtual --workload pressure --ops 4000 --cache 64 " \
	"--vfs-cache-pressure "

static const struct example examples[] = {
	{ "build/bin/icache-sim run --scheme merged --cpus all --workload mixed --duration 5s",
	  UNSTABLE, 0, 1, "a real run on real CPUs: its figures differ every time" },
	{ "build/bin/icache-sim calibrate -o my-costs.txt", UNSTABLE, 0, 1,
	  "measures this host's costs" },
	{ "build/bin/icache-sim calibrate --check my-costs.txt", ELSEWHERE, 0, 0,
	  "needs the whole calibration above (stopped here after 1 s); test_vsmp's "
	  "calibrate_checks_the_placement runs --check both ways" },
	{ PRESSURE_RUN "0 | grep 'at the end'", SAME, 0, 0, NULL },
	{ PRESSURE_RUN "100 | grep 'at the end'", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/modern-creating.scn | grep -E "
	  "\"I_CREATING|result -1|PASS\"",
	  SAME, 0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/modern-lru-isolating-window.scn | grep -E "
	  "\"del lru|I_LRU_ISOLATING -> 0|accepted|PASS\"",
	  SAME, 0, 0, NULL },
	{ "build/bin/icache-sim schemes | grep -A2 '^modern'", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim workloads", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim run --cpus 0", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim run --scheme modern --workload pressure --cpus 2 --nodes 2 --ops 20000",
	  SHAPE, 0, 0, NULL },
	{ "build/bin/icache-sim explore --scheme modern --workload mixed --schedules 2000", SAME,
	  BG, 0, NULL },
	{ "build/bin/icache-sim record --scheme merged --cpus 2 --workload lookup --ops 2000 -o "
	  "/tmp/rd2",
	  SHAPE, 0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/iput-lru-race-v4.scn", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/abba-deadlock.scn --quiet --ctf-direct -o "
	  "/tmp/abba | tail -2",
	  SAME, FIRST, 0, NULL },
	{ "ls /tmp/abba", SAME, 0, 0, NULL },
	{ "build/bin/icache-view --summary /tmp/abba | sed -n 3,8p", TIMES, 0, 0, NULL },
	{ "build/bin/icache-sim explore --scheme inode-scale-v4 --workload mixed --schedules 2000 "
	  "--seed 3 -o /tmp/found.scn",
	  SAME, 0, 0, NULL },
	{ "build/bin/icache-sim explore --scheme merged --workload mixed --schedules 2000 --seed 3",
	  SAME, BG, 0, NULL },
	{ "build/bin/icache-view /tmp/race          # interactive; h, F1 or ? for the keys",
	  UNSTABLE, 0, 0, "interactive: here, with no terminal, it must say so (exit 1)" },
	{ "build/bin/icache-view --summary /tmp/rd  # figures; --json for a JSON object", HIDDEN, 0,
	  0, NULL },
	{ "build/bin/icache-view --dot /tmp/rd      # the observed lock-order graph", HIDDEN, 0, 0,
	  NULL },
	{ "build/bin/icache-view --keys \"v\" --screen 80x24 /tmp/race   # a screen, as text",
	  TIMES, 0, 0, NULL },
	{ "build/bin/icache-sim record --virtual --cpus 16 --ops 2000 -o /tmp/smp16 >/dev/null",
	  HIDDEN, FIRST, 0, NULL },
	/* The virtual clock starts from the host's, and setting the run up
	 * takes host time: a virtual trace's times differ by an offset. */
	{ "build/bin/icache-view --keys \":3000<Enter>\" --screen 100x30 /tmp/smp16", TIMES, 0, 0,
	  NULL },
	{ "build/bin/icache-sim play lessons/scenarios/iput-lru-race-v4.scn -o /tmp/race", HIDDEN,
	  FIRST, 0, NULL },
	{ "build/bin/icache-view --keys '/I_FREEING<Enter>s' --screen 120x32 /tmp/race", TIMES, 0,
	  0, NULL },
	{ "build/bin/icache-view --summary /tmp/race | grep -A1 unprotected", SAME, 0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/umount-without-iprune-sem.scn -o /tmp/umount",
	  HIDDEN, FIRST, 0, NULL },
	{ "build/bin/icache-view --keys '/busy_inodes<Enter>iz' --screen 120x30 /tmp/umount", TIMES,
	  0, 0, NULL },
	{ "build/bin/icache-sim play lessons/scenarios/iput-lru-race-v4.scn -o /tmp/v4 >/dev/null",
	  HIDDEN, FIRST, 0, NULL },
	{ "build/bin/icache-view --keys 'G<Tab><Tab><Tab><Tab>' --screen 80x24 /tmp/v4", TIMES, 0,
	  0, NULL },
	{ "build/bin/icache-sim record --scheme merged --cpus 2 --workload mixed --duration 1s "
	  "--quiet -o /tmp/rd",
	  HIDDEN, FIRST, 0, NULL },
	{ "build/bin/icache-view --summary /tmp/rd", UNSTABLE, 0, 0,
	  "the summary of a real run: its counts differ every time" },
	{ "build/bin/icache-sim record --scheme merged --cpus 2 --workload mixed --duration 300ms "
	  "--subbuf-size 4K --quiet -o /tmp/lossy",
	  UNSTABLE, FIRST, 0, "what a real run loses in 4 KiB buffers differs every time" },
	{ "build/bin/icache-view --summary /tmp/lossy", UNSTABLE, 0, 0,
	  "the summary of that lossy real run" },
	{ "build/bin/icache-view --summary /tmp/two", NOTRACE, 0, 0,
	  "two simulators traced by hand into one lttng session (tests/test_damage.c makes such "
	  "traces and checks this refusal)" },
	{ "build/bin/icache-view --summary --pid 20181 /tmp/two     # or --run 2", NOTRACE, 0, 0,
	  "the same trace, and one of its pids" },
	{ "build/bin/icache-lesson", SAME, 0, 0, NULL },
	{ "build/bin/icache-lesson --check lessons/05-daves-order.lesson", SAME, 0, 0, NULL },
	{ "build/bin/icache-lesson --progress", UNSTABLE, 0, 0,
	  "the progress of a student who has worked through two lessons" },
	{ "sh tools/workshop-check.sh | tail -3", UNSTABLE, BG, 0,
	  "how many checks it makes depends on the machine (a Docker daemon, a terminal)" },
	{ "build/tests/test_fidelity", ELSEWHERE, 0, 0,
	  "a suite of make check of its own (minutes on a loaded machine)" },
	{ "build/bin/icache-sim run --virtual --cpus 64 --scheme global --workload create-unlink "
	  "--ops 100000",
	  UNSTABLE, 0, 0, "its host-time line (points per host second) differs every time" },
	{ "build/bin/icache-sim record --virtual --cpus 4 --scheme global --workload create-unlink "
	  "--ops 2000 -o /tmp/vc1",
	  SAME, FIRST, 0, NULL },
	{ "build/bin/icache-view --summary /tmp/vc1 | grep -E '^(duration|time) '", TIMES, 0, 0,
	  NULL },
};
#define NEXAMPLES (sizeof(examples) / sizeof(examples[0]))

/* Where the README's examples run (see the top of the file). */
static char scratch[64];

/* One "$ " line of the README: its line number, the command, what it shows. */
struct shown {
	int line;
	char *cmd;
	char *text; /* the lines below it, each ending in '\n' */
	const struct example *ex;
};

static const struct example *find_example(const char *cmd)
{
	for (size_t i = 0; i < NEXAMPLES; i++)
		if (strcmp(examples[i].cmd, cmd) == 0)
			return &examples[i];
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(m);
	int c;
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* Every "$ " line of README.md's fenced blocks, in order; *n of them. */
static struct shown *read_readme(int *n)
{
	char *text = slurp("README.md");
	ck_assert_msg(*text, "README.md: cannot read it (run from the top of the tree)");
	struct shown *v = calloc(256, sizeof(*v));
	ck_assert_ptr_nonnull(v);
	bool in_block = false;
	int lineno = 0;
	*n = 0;
	struct shown *cur = NULL;
	for (char *line = text, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = 0;
		lineno++;
		if (strncmp(line, "```", 3) == 0) {
			in_block = !in_block;
			cur = NULL;
		} else if (in_block && strncmp(line, "$ ", 2) == 0) {
			ck_assert_int_lt(*n, 256);
			cur = &v[(*n)++];
			cur->line = lineno;
			cur->cmd = strdup(line + 2);
			cur->text = strdup("");
			cur->ex = find_example(cur->cmd);
		} else if (cur) {
			char *t = NULL;
			ck_assert_int_ge(asprintf(&t, "%s%s\n", cur->text, line), 0);
			free(cur->text);
			cur->text = t;
		}
	}
	free(text);
	return v;
}

/* Lines of s, trailing spaces dropped; the last '\n' ends the last line. */
static char **split_lines(char *s, int *n)
{
	int cap = 16;
	char **v = malloc(cap * sizeof(*v));
	ck_assert_ptr_nonnull(v);
	*n = 0;
	for (char *p = s; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		for (char *e = p + strlen(p); e > p && e[-1] == ' '; e--)
			e[-1] = 0;
		if (*n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		v[(*n)++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	return v;
}

/*
 * A line the program printed (a) is the README's (e); but a screen's
 * header names the trace, whose path is longer here (S/tmp/race): the
 * viewer cuts it with "…" where the README's is whole, so a header that
 * ends in "…" need only begin the README's.
 */
static bool same_line(const char *e, const char *a)
{
	static const char ell[] = "…";
	size_t la = strlen(a), le = sizeof(ell) - 1;
	if (strncmp(a, " icache-view ", 13) == 0 && la > le && strcmp(a + la - le, ell) == 0)
		return strncmp(e, a, la - le) == 0;
	return strcmp(e, a) == 0;
}

/* Does the actual text (lines a) match the shown one (lines e, "..." any
 * number of lines)? */
static bool lines_match(char **e, int ne, char **a, int na)
{
	if (ne == 0)
		return na == 0;
	if (strcmp(e[0], "...") == 0) {
		for (int k = 0; k <= na; k++)
			if (lines_match(e + 1, ne - 1, a + k, na - k))
				return true;
		return false;
	}
	return na > 0 && same_line(e[0], a[0]) && lines_match(e + 1, ne - 1, a + 1, na - 1);
}

/* Each match of pattern (a line at a time) in s becomes repl, but what
 * its group `keep` matched (the character after a unit) stays (0:
 * nothing).  Malloc'd. */
static char *mask_re(const char *s, const char *pattern, int keep, const char *repl)
{
	regex_t re;
	ck_assert_int_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
	char *out = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(o);
	regmatch_t m[4];
	int flags = 0;
	while (*s && regexec(&re, s, 4, m, flags) == 0) {
		fwrite(s, 1, m[0].rm_so, o);
		fputs(repl, o);
		regoff_t next = keep ? m[keep].rm_so : m[0].rm_eo;
		if (next == 0) /* an empty match: step over a character */
			next = 1;
		flags = s[next - 1] == '\n' ? 0 : REG_NOTBOL;
		s += next;
	}
	fputs(s, o);
	fclose(o);
	regfree(&re);
	return out;
}

/* A run of spaces becomes one space, in place. */
static char *one_space(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++)
		if (!(*r == ' ' && w > s && w[-1] == ' '))
			*w++ = *r;
	*w = 0;
	return s;
}

/*
 * TIMES: every time figure becomes "T" (a number with a time unit, and any
 * decimal fraction: the viewer's ms column has no unit), a run of spaces
 * one space.
 */
static char *mask_times(const char *s)
{
	char *a = mask_re(s, "[+]?[0-9]+([.][0-9]+)? ?(ns|us|ms|s)([^A-Za-z0-9_]|$)", 3, "T");
	char *b = mask_re(a, "[+]?[0-9]+[.][0-9]+", 0, "T");
	free(a);
	return one_space(b);
}

/*
 * SHAPE: every number becomes "N", the host's CPU model at the end of a
 * report's first line "(CPU)", a run of spaces one space: what is left is
 * the report's lines, labels and columns.
 */
static char *mask_shape(const char *s)
{
	char *a = mask_re(s, "cores [(].*[)]$", 0, "cores (CPU)");
	char *b = mask_re(a, "[0-9]+", 0, "N");
	free(a);
	return one_space(b);
}

static char *masked(enum how how, const char *s)
{
	return how == TIMES ? mask_times(s) : how == SHAPE ? mask_shape(s) : strdup(s);
}

/* Does the output equal the shown text, as the example's mode compares? */
static bool output_matches(const struct shown *sh, const char *out)
{
	char *e = masked(sh->ex->how, sh->text);
	char *a = masked(sh->ex->how, out);
	int ne, na;
	char **el = split_lines(e, &ne), **al = split_lines(a, &na);
	bool ok = lines_match(el, ne, al, na);
	free(el);
	free(al);
	free(e);
	free(a);
	return ok;
}

/* The command as run in the scratch directory: /tmp/ -> S/tmp/. */
static void write_cmd(const struct shown *sh, int idx)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/cmd.%d", scratch, idx);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "cd %s || exit 99\n", scratch);
	if (sh->ex->how == UNSTABLE && sh->ex->secs)
		fprintf(f, "exec timeout -s INT %d sh -c '", sh->ex->secs);
	for (const char *p = sh->cmd; *p; p++) {
		if (strncmp(p, "/tmp/", 5) == 0)
			fprintf(f, "%s/tmp", scratch), p += 3;
		else if (*p == '\'' && sh->ex->how == UNSTABLE && sh->ex->secs)
			fputs("'\\''", f);
		else
			putc(*p, f);
	}
	fputs(sh->ex->how == UNSTABLE && sh->ex->secs ? "'\n" : "\n", f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Run example idx (its script), in the background when bg: S/out.idx holds
 * what it printed, S/rc.idx its exit status. */
static void start(const struct shown *sh, int idx, bool bg)
{
	int st;
	write_cmd(sh, idx);
	free(run_cmd(
		&st,
		"cd %s && (HOME=%s/home/student XDG_STATE_HOME= XDG_DATA_HOME= XDG_CONFIG_HOME= "
		"LC_ALL=C.UTF-8 sh cmd.%d >out.%d 2>&1 </dev/null; echo $? >rc.%d) "
		">/dev/null 2>&1 %s",
		scratch, scratch, idx, idx, idx, bg ? "&" : ""));
}

/* Wait for example idx to end; its output with S taken out of it (malloc'd)
 * and its exit status in *rc. */
static char *finish(int idx, int *rc)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/rc.%d", scratch, idx);
	for (int i = 0; i < 3000 * test_slowdown() && access(path, F_OK) != 0; i++)
		usleep(100000);
	char *r = slurp(path);
	*rc = *r ? atoi(r) : -1;
	free(r);
	snprintf(path, sizeof(path), "%s/out.%d", scratch, idx);
	char *out = slurp(path);
	size_t sl = strlen(scratch);
	char *w = out;
	for (char *p = out; *p;)
		if (strncmp(p, scratch, sl) == 0)
			p += sl;
		else
			*w++ = *p++;
	*w = 0;
	return out;
}

/* One finished example checked as its mode says; a complaint appended to
 * *why, none if it holds. */
static void check_one(const struct shown *sh, int idx, FILE *why)
{
	int rc;
	char *out = finish(idx, &rc);
	if (getenv("README_TEST_VERBOSE"))
		fprintf(stderr, "%ld README.md:%d exit %d\n", (long)time(NULL), sh->line, rc);
	const struct example *ex = sh->ex;
	const char *nl = strchr(out, '\n');
	switch (ex->how) {
	case SAME:
	case TIMES:
	case SHAPE:
		if (!output_matches(sh, out))
			fprintf(why,
				"README.md:%d: `%s` prints (exit %d)\n%.1500s\n"
				"--- but the README shows%s\n%.1500s\n",
				sh->line, sh->cmd, rc, out,
				ex->how == TIMES ? " (times masked)" :
				ex->how == SHAPE ? " (numbers masked)" :
						   "",
				sh->text);
		break;
	case HIDDEN:
		if (rc != 0 || (*sh->text && strcmp(sh->text, "...\n") != 0))
			fprintf(why,
				"README.md:%d: `%s` exited %d (want 0, no output shown)\n%.1500s\n",
				sh->line, sh->cmd, rc, out);
		break;
	case UNSTABLE:
		if (rc == 2 || rc < 0 || rc > 128 + 64)
			fprintf(why, "README.md:%d: `%s` no longer parses: exit %d\n%.1500s\n",
				sh->line, sh->cmd, rc, out);
		break;
	case NOTRACE:
		if (rc != 2 || !strstr(out, "/tmp/two") || !nl || nl[1])
			fprintf(why,
				"README.md:%d: `%s`: exit %d, not one line on its trace:\n%.1500s\n",
				sh->line, sh->cmd, rc, out);
		break;
	case ELSEWHERE:
		break;
	}
	free(out);
}

/* The scratch directory: the tree's top level as links, build -> $BUILD. */
static void make_scratch(void)
{
	scratch_make(scratch, sizeof(scratch), "icache-readme");
	ck_assert_msg(scratch[0], "no scratch directory");
	free(run_expect(0,
			"top=$(pwd) b=$(cd %s && pwd) && cd %s && mkdir -p tmp home/student && "
			"for f in \"$top\"/* \"$top\"/.[!.]*; do "
			"case ${f##*/} in build|.git) ;; *) ln -s \"$f\" . ;; esac; done && "
			"ln -s \"$b\" build",
			build_dir(), scratch));
}

START_TEST(readme_examples_print_what_it_shows)
{
	int n;
	struct shown *sh = read_readme(&n);
	char *report = NULL;
	size_t rlen = 0;
	FILE *why = open_memstream(&report, &rlen);
	ck_assert_ptr_nonnull(why);

	for (int i = 0; i < n; i++)
		if (!sh[i].ex)
			fprintf(why, "README.md:%d: `%s` is not in tests/test_readme.c's table\n",
				sh[i].line, sh[i].cmd);
	for (size_t k = 0; k < NEXAMPLES; k++) {
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= sh[i].ex == &examples[k];
		if (!seen)
			fprintf(why, "tests/test_readme.c: `%s` is no longer in README.md\n",
				examples[k].cmd);
	}
	make_scratch();
	/* The slow ones and those that make traces start at once, in the
	 * background; once the traces are made, the rest run one by one; the
	 * slow ones are checked last. */
	for (int i = 0; i < n; i++)
		if (sh[i].ex && sh[i].ex->how != ELSEWHERE && (sh[i].ex->flags & (BG | FIRST)))
			start(&sh[i], i, true);
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < n; i++) {
			const struct example *ex = sh[i].ex;
			if (!ex || ex->how == ELSEWHERE)
				continue;
			int flags = ex->flags;
			if (pass == 0 && flags == FIRST)
				check_one(&sh[i], i, why);
			if (pass == 1 && !flags) {
				start(&sh[i], i, false);
				check_one(&sh[i], i, why);
			}
			if (pass == 2 && (flags & BG))
				check_one(&sh[i], i, why);
		}
	fclose(why);
	if (!getenv("README_TEST_KEEP")) /* S/out.N: what example N printed */
		scratch_remove(scratch);
	/* Check's message has a size limit: the whole report goes to stderr. */
	if (rlen)
		fprintf(stderr, "%s", report);
	ck_assert_msg(rlen == 0, "%.3000s", report);
	free(report);
	for (int i = 0; i < n; i++) {
		free(sh[i].cmd);
		free(sh[i].text);
	}
	free(sh);
}
END_TEST

/* The long options a --help text lists: each "--name" at a word's start. */
static int help_options(const char *help, char names[][48], int max)
{
	int n = 0;
	for (const char *p = strstr(help, "--"); p && n < max; p = strstr(p + 2, "--")) {
		if (p > help && (isalnum((unsigned char)p[-1]) || p[-1] == '-'))
			continue;
		int len = 2;
		while (isalnum((unsigned char)p[len]) || p[len] == '-')
			len++;
		if (len <= 2 || len >= 48)
			continue;
		bool dup = false;
		for (int i = 0; i < n; i++)
			dup |= strncmp(names[i], p, len) == 0 && names[i][len] == 0;
		if (!dup)
			snprintf(names[n++], 48, "%.*s", len, p);
	}
	return n;
}

/* groff writes "-" as "\-": the man page's text with that undone. */
static char *man_text(const char *page)
{
	char path[128];
	snprintf(path, sizeof(path), "man/%s.1", page);
	char *s = slurp(path);
	ck_assert_msg(*s, "%s: cannot read it", path);
	char *w = s;
	for (char *r = s; *r; r++)
		if (!(r[0] == '\\' && r[1] == '-'))
			*w++ = *r;
	*w = 0;
	return s;
}

/* Is the option in the man page as a word ("--ops" but not "--ops-x")? */
static bool man_names(const char *man, const char *opt)
{
	size_t len = strlen(opt);
	for (const char *p = strstr(man, opt); p; p = strstr(p + 1, opt))
		if (!isalnum((unsigned char)p[len]) && p[len] != '-')
			return true;
	return false;
}

START_TEST(man_pages_name_every_option_of_the_help)
{
	static const struct {
		const char *page, *help;
	} helps[] = {
		{ "icache-sim", "--help" },         { "icache-sim", "run --help" },
		{ "icache-sim", "record --help" },  { "icache-sim", "play --help" },
		{ "icache-sim", "explore --help" }, { "icache-sim", "calibrate --help" },
		{ "icache-view", "--help" },        { "icache-lesson", "--help" },
	};
	char *report = NULL;
	size_t rlen = 0;
	FILE *why = open_memstream(&report, &rlen);
	ck_assert_ptr_nonnull(why);
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
		char *help = run_expect(0, "%s %s 2>&1", bin_path(helps[i].page), helps[i].help);
		char *man = man_text(helps[i].page);
		static char names[256][48];
		int n = help_options(help, names, 256);
		ck_assert_msg(n > 0, "%s %s lists no option:\n%.1500s", helps[i].page,
			      helps[i].help, help);
		for (int k = 0; k < n; k++)
			if (!man_names(man, names[k]))
				fprintf(why, "man/%s.1 does not name %s, which `%s %s` lists\n",
					helps[i].page, names[k], helps[i].page, helps[i].help);
		free(man);
		free(help);
	}
	fclose(why);
	ck_assert_msg(rlen == 0, "%.3000s", report);
	free(report);
}
END_TEST

int main(void)
{
	return run_tests("readme", NULL, NULL, 300,
			 (const TTest *[]){ man_pages_name_every_option_of_the_help,
					    readme_examples_print_what_it_shows, NULL });
}
