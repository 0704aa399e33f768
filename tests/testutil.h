/*
 * testutil.h - small helpers shared by the Check suites.
 *
 * Every suite is one tests/test_NAME.c with a main() that runs its Check
 * suite; tests/run-all.sh runs them all and adds up the results.  The
 * binaries under test are found through $BUILD (default "build").
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"

static inline const char *build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && *b ? b : "build";
}

/*
 * How many times slower than a plain build the programs under test may run:
 * Check's own CK_TIMEOUT_MULTIPLIER, which tests/run-all.sh sets for the
 * sanitizer builds (1 when unset).  A test's wait for a program to get
 * somewhere (a screen, a file, a `timeout N`) is a bound on a hang, never
 * a claim about speed: it is scaled by this, as Check scales each case's
 * timeout.
 */
static inline double test_slowdown(void)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	double f = m && *m ? strtod(m, NULL) : 1;
	return f > 1 ? f : 1;
}

/* Path of a built program: bin_path("icache-sim"). Static buffer. */
static inline const char *bin_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ & 3];
	snprintf(p, 512, "%s/bin/%s", build_dir(), name);
	return p;
}

/*
 * Run a shell command; return its stdout (malloc'd, NUL-terminated) and
 * its exit status in *status (-1 if it died of a signal).  stderr is
 * captured too when the command says 2>&1.  stdin is /dev/null.
 */
static inline char *vrun_cmd(int *status, const char *fmt, va_list ap)
{
	char cmd[8192];
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	char *argv[] = { "sh", "-c", cmd, NULL };
	char *out;
	*status = spawn_capture(argv, false, &out);
	return out;
}

static inline char *run_cmd(int *status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline char *run_cmd(int *status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = vrun_cmd(status, fmt, ap);
	va_end(ap);
	return out;
}

/*
 * Under ThreadSanitizer a known_racy scheme (inode-scale-v4: its
 * iput_final puts an inode on the LRU after dropping i_lock) may hit its
 * real race, and run-all.sh's halt_on_error=1 would stop the run half-way
 * with exit 66 and no JSON.  A test that is not about that race puts this
 * before the command: the run goes to the end (halt_on_error=0), still
 * exiting 66 if TSan saw the race.  The race itself is proved by
 * test_schemes and test_checker.
 */
static inline const char *tsan_racy_env(bool known_racy)
{
#ifdef __SANITIZE_THREAD__
	if (known_racy)
		return "TSAN_OPTIONS=\"$TSAN_OPTIONS halt_on_error=0\"";
#endif
	(void)known_racy;
	return "";
}

/* run_cmd for a command that must exit with status want: its output, or a
 * test failure that shows it. */
static inline char *run_expect(int want, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline char *run_expect(int want, const char *fmt, ...)
{
	int st;
	va_list ap;
	va_start(ap, fmt);
	char *out = vrun_cmd(&st, fmt, ap);
	va_end(ap);
	ck_assert_msg(st == want, "exit %d, not %d:\n%.3000s", st, want, out);
	return out;
}

/* Does the terminal text s hold an SGR escape that sets a colour
 * (ESC [ ... 3x / 4x / 38;5 / 48;5 ... m)? */
static inline bool has_colour_sgr(const char *s)
{
	for (const char *p = strstr(s, "\033["); p; p = strstr(p + 1, "\033[")) {
		const char *q = p + 2;
		while (*q && *q != 'm') {
			if ((q[0] == '3' || q[0] == '4') && q[1] >= '0' && q[1] <= '7' &&
			    (q == p + 2 || q[-1] == ';') && (q[2] == 'm' || q[2] == ';'))
				return true;
			q++;
		}
	}
	return false;
}

/* A file of text (NULL: empty) made from the mkstemp template tmpl, which
 * becomes its name. */
static inline void scratch_file(char *tmpl, const char *text)
{
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	size_t n = text ? strlen(text) : 0;
	ck_assert_int_eq(write(fd, text ? text : "", n), (ssize_t)n);
	close(fd);
}

/* An executable shell script at path (a wrapper a test puts in place of a
 * program), its text made by printf from fmt. */
static inline void write_script(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void write_script(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

/* A suite's scratch directory /tmp/TAG.XXXXXX into dir (dir[0] = 0 if
 * it cannot be made), and its removal with all it holds. */
static inline void scratch_make(char *dir, size_t len, const char *tag)
{
	snprintf(dir, len, "/tmp/%s.XXXXXX", tag);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		dir[0] = 0;
	}
}

static inline void scratch_remove(const char *dir)
{
	int st;
	if (dir[0])
		free(run_cmd(&st, "rm -rf %s", dir));
}

/*
 * A copy of a built program that another user may run: the checkout (and
 * so build/bin) may sit in a directory only root can enter, as mktemp -d
 * makes it.  The copy lives in its own 0755 directory under /tmp; give the
 * returned path to other_user_bin_done() to remove it.  Static buffer.
 */
static inline const char *other_user_bin(const char *name)
{
	static char path[600];
	char dir[] = "/tmp/icache-bin-XXXXXX";
	int st;

	if (!mkdtemp(dir) || chmod(dir, 0755) != 0)
		return bin_path(name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	free(run_cmd(&st, "cp %s %s && chmod 0755 %s", bin_path(name), path, path));
	return st == 0 ? path : bin_path(name);
}

static inline void other_user_bin_done(const char *path)
{
	int st;
	if (strncmp(path, "/tmp/icache-bin-", 16) == 0)
		free(run_cmd(&st, "rm -rf \"$(dirname %s)\"", path));
}

/*
 * The number after "key": in a JSON text, starting the search at the first
 * occurrence of `after` (NULL: the beginning).  Good enough for the flat
 * objects our programs print; returns -1 if not found.
 */
static inline double json_num(const char *json, const char *after, const char *key)
{
	const char *p = json;
	if (after) {
		p = strstr(json, after);
		if (!p)
			return -1;
	}
	char pat[128];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	if (!p)
		return -1;
	return strtod(p + strlen(pat), NULL);
}

/* Add the tests of a NULL-terminated list to tc, in order:
 * tcase_add_tests(tc, (const TTest *[]){ first, second, NULL }); NULL: none. */
static inline void tcase_add_tests(TCase *tc, const TTest *const *t)
{
	for (; t && *t; t++)
		tcase_add_test(tc, *t);
}

/* Run one suite and exit with Check's verdict. */
static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A case named name of suite s: its timeout in seconds and its tests, in
 * order (NULL-terminated; NULL: none yet); returned for loop tests and
 * fixtures. */
static inline TCase *suite_case(Suite *s, const char *name, double timeout,
				const TTest *const *tests)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, timeout);
	tcase_add_tests(tc, tests);
	suite_add_tcase(s, tc);
	return tc;
}

/* Run a suite of one case named name: its fixture (run once, before Check
 * forks the tests; NULL, NULL: none), its timeout in seconds and its
 * tests, in order. */
static inline int run_tests(const char *name, SFun setup, SFun teardown, double timeout,
			    const TTest *const *tests)
{
	Suite *s = suite_create(name);
	TCase *tc = suite_case(s, name, timeout, tests);
	if (setup || teardown)
		tcase_add_unchecked_fixture(tc, setup, teardown);
	return run_suite(s);
}

/*
 * End the test here, passing, unless cond: what it needs (root, a tool) is
 * not there, and it says so on stderr: "test_trace: not root: skipped".
 */
#define SKIP_UNLESS(cond, why)                                                                    \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s: %s: skipped\n", program_invocation_short_name, why); \
			return;                                                                   \
		}                                                                                 \
	} while (0)

/*
 * Does text hold each of the strings?  A test failure names the first it
 * lacks and shows the text: assert_has(out, "exit 2", "one line").
 */
static inline void assert_has_list(const char *text, const char *const *want)
{
	for (; *want; want++)
		ck_assert_msg(strstr(text, *want), "no '%s' in:\n%.3000s", *want, text);
}
#define assert_has(text, ...) assert_has_list(text, (const char *const[]){ __VA_ARGS__, NULL })

/* Run icache-sim ARGS; expect status 2 and one line mentioning `needle`. */
static inline void sim_bad_usage(const char *args, const char *needle)
{
	int st;
	char *out = run_cmd(&st, "%s %s 2>&1 >/dev/null", bin_path("icache-sim"), args);
	ck_assert_msg(st == 2, "'%s' exited %d, not 2: %s", args, st, out);
	ck_assert_msg(strstr(out, needle) != NULL, "'%s' said '%s', not '%s'", args, out, needle);
	/* Exactly one line. */
	char *nl = strchr(out, '\n');
	ck_assert_msg(nl && nl[1] == 0, "'%s' printed more than one line: %s", args, out);
	free(out);
}

/* Does some line of s contain both a and b? */
static inline bool line_has(const char *s, const char *a, const char *b)
{
	for (const char *p = strstr(s, a); p; p = strstr(p + 1, a)) {
		const char *bol = p, *eol = strchr(p, '\n');
		while (bol > s && bol[-1] != '\n')
			bol--;
		const char *q = strstr(bol, b);
		if (q && (!eol || q < eol))
			return true;
	}
	return false;
}

#endif
