/*
 * test_lib.c - lib/, the code every program shares: the fatal path of
 * checked allocation (hook first, one line, status 2), the JSON string
 * writer, the --keys notation, whole numbers, fork/exec with capture, the CTF directory
 * scan, the tree remover, the lock_stat table and the palette's NO_COLOR
 * rule.
 */
#include <curses.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/ctf.h"
#include "lib/errmsg.h"
#include "lib/json.h"
#include "lib/keys.h"
#include "lib/lockstat.h"
#include "lib/names.h"
#include "lib/num.h"
#include "lib/rmtree.h"
#include "lib/sigs.h"
#include "lib/spawn.h"
#include "lib/term.h"
#include "lib/xalloc.h"
#include "tests/testutil.h"
#include "tracepoints/icache_enums.h"

/* ---- xalloc: the fatal path ------------------------------------------------ */

static int hook_fd = -1;

static void test_hook(void)
{
	if (write(hook_fd, "H", 1) != 1)
		_exit(99);
}

/*
 * In a child: register the hook, then ask for more memory than exists.
 * The parent sees the hook's byte arrive before the message, one line on
 * stderr naming the program, and exit status 2.
 */
START_TEST(fatal_runs_the_hook_then_one_line_exit_2)
{
	int hook[2], err[2];
	ck_assert_int_eq(pipe(hook), 0);
	ck_assert_int_eq(pipe(err), 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		hook_fd = hook[1];
		dup2(err[1], 2);
		fatal_hook_set(test_hook);
		/* n * size overflows: refused before malloc is asked, so
		 * sanitizers (which abort on absurd sizes) see nothing. */
		void *p = xcalloc(SIZE_MAX / 2, 4);
		_exit(p ? 0 : 98);
	}
	close(hook[1]);
	close(err[1]);
	char h[8] = "", msg[512] = "";
	ssize_t nh = read(hook[0], h, sizeof(h));
	ssize_t nm = 0, r;
	/* stderr is unbuffered: the line comes in several writes. */
	while ((r = read(err[0], msg + nm, sizeof(msg) - 1 - (size_t)nm)) > 0)
		nm += r;
	int st;
	waitpid(pid, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d", st);
	ck_assert_int_eq(nh, 1);
	ck_assert_int_eq(h[0], 'H');
	ck_assert_int_gt(nm, 0);
	msg[nm] = 0;
	ck_assert_msg(strstr(msg, "test_lib: out of memory") == msg, "%s", msg);
	ck_assert_msg(strchr(msg, '\n') == msg + nm - 1, "not one line: %s", msg);
	close(hook[0]);
	close(err[0]);
}
END_TEST

START_TEST(x_functions_return_what_they_copy)
{
	char *s = xstrdup("inode_lock");
	ck_assert_str_eq(s, "inode_lock");
	char *t = xstrndup("i_lock > lru", 6);
	ck_assert_str_eq(t, "i_lock");
	char *u = xasprintf("%s/%d", "cpu", 3);
	ck_assert_str_eq(u, "cpu/3");
	int *z = xcalloc(4, sizeof(int));
	ck_assert_int_eq(z[0] | z[1] | z[2] | z[3], 0);
	z = xreallocarray(z, 1000, sizeof(int));
	z[999] = 7;
	ck_assert_int_eq(z[999], 7);
	free(s);
	free(t);
	free(u);
	free(z);
}
END_TEST

/* ---- json -------------------------------------------------------------------- */

START_TEST(json_strings_are_escaped_once_for_all)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	json_str(f, "a\"b\\c\nd\te\001f");
	fputc(' ', f);
	json_str(f, NULL);
	fputc(' ', f);
	json_str_or_null(f, "x", false);
	fputc(' ', f);
	json_str_or_null(f, "x", true);
	fclose(f);
	ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001f\" \"\" null \"x\"");
	free(buf);
}
END_TEST

/* ---- keys -------------------------------------------------------------------- */

START_TEST(keys_notation)
{
	int k[32];
	int n = keys_parse("a<Enter><Tab><Up><PgDn><F10><lt>x<gt>\\n<Nope>", k, 32);
	const int want[] = { 'a', '\n', '\t', KEY_UP, KEY_NPAGE, KEY_F(10), '<', 'x',
			     '>', '\n', '<',  'N',    'o',       'p',       'e', '>' };
	ck_assert_int_eq(n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < n; i++)
		ck_assert_msg(k[i] == want[i], "key %d: %d, not %d", i, k[i], want[i]);
	/* The output is bounded by max. */
	ck_assert_int_eq(keys_parse("abcdef", k, 3), 3);
}
END_TEST

/* ---- num ---------------------------------------------------------------------- */

START_TEST(numbers_are_whole_unsigned_and_in_range)
{
	uint64_t v = 99;
	ck_assert(parse_u64_in("0", 0, 10, &v) && v == 0);
	ck_assert(parse_u64_in("10", 0, 10, &v) && v == 10);
	ck_assert(parse_u64_in("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX);
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "1x", "0x10", "11", "18446744073709551616", NULL
	};
	for (int i = 0; bad[i]; i++) {
		v = 99;
		ck_assert_msg(!parse_u64_in(bad[i], 0, 10, &v) && v == 99, "'%s' taken", bad[i]);
	}
	ck_assert(!parse_u64_in(NULL, 0, 10, &v));
	ck_assert(!parse_u64_in("0", 1, 10, &v));
}
END_TEST

/* ---- spawn -------------------------------------------------------------------- */

START_TEST(spawn_captures_output_and_status)
{
	char *out;
	char *echo[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	ck_assert_int_eq(spawn_capture(echo, true, &out), 3);
	ck_assert_str_eq(out, "out\nerr\n");
	free(out);
	ck_assert_int_eq(spawn_capture(echo, false, &out), 3);
	ck_assert_str_eq(out, "out\n");
	free(out);
	char *nosuch[] = { "/nonexistent/icache-nothing", NULL };
	ck_assert_int_eq(spawn_capture(nosuch, true, &out), 127);
	ck_assert_ptr_nonnull(strstr(out, "cannot run /nonexistent/icache-nothing"));
	free(out);
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	ck_assert_int_eq(spawn_capture(killed, true, &out), -1);
	free(out);
}
END_TEST

/* ---- ctf: finding the trace directories ------------------------------------- */

static void touch(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* root/rel, in a static buffer. */
static const char *under(const char *root, const char *rel)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return p;
}

START_TEST(ctf_dirs_found_at_any_depth)
{
	char root[] = "/tmp/icache-test-lib.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdir(under(root, "ust"), 0700);
	mkdir(under(root, "ust/uid"), 0700);
	touch(under(root, "ust/uid/metadata"), "/* CTF 1.8 */");
	touch(under(root, "ust/uid/chan_0"), "12345");
	touch(under(root, "notes"), "x");

	struct ctf_dirs d = { 0 };
	ctf_dirs_scan(&d, root);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.dirs[0], under(root, "ust/uid"));
	ck_assert_int_eq(d.nfiles, 3);
	ck_assert_uint_eq(d.bytes, 5); /* the stream file, not the metadata */
	ctf_dirs_free(&d);
	ck_assert_int_eq(d.n, 0);
	char *rm[] = { "rm", "-rf", root, NULL }, *out;
	ck_assert_int_eq(spawn_capture(rm, true, &out), 0);
	free(out);
}
END_TEST

/* ---- rmtree ---------------------------------------------------------------- */

/* Everything below goes; a link to a directory elsewhere is removed, and
 * what it points to stays. */
START_TEST(rm_tree_removes_all_and_follows_no_link)
{
	char root[] = "/tmp/icache-test-rmtree.XXXXXX", keep[] = "/tmp/icache-test-keep.XXXXXX";
	struct stat st;
	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_ptr_nonnull(mkdtemp(keep));
	mkdir(under(root, "a"), 0700);
	mkdir(under(root, "a/b"), 0700);
	touch(under(root, "a/b/file"), "x");
	touch(under(keep, "kept"), "y");
	ck_assert_int_eq(symlink(keep, under(root, "a/link")), 0);
	rm_tree(root);
	ck_assert_int_ne(lstat(root, &st), 0);
	ck_assert_int_eq(stat(under(keep, "kept"), &st), 0);
	rm_tree(keep);
	ck_assert_int_ne(lstat(keep, &st), 0);
}
END_TEST

/* ---- lockstat, term ------------------------------------------------------------ */

START_TEST(lockstat_row_layout)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const uint64_t v[LOCKSTAT_NCOLS] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	lockstat_header(f);
	lockstat_print(f, "i_lock", v);
	fclose(f);
	assert_has(buf, "class                 acquisitions  contentions",
		   "\ni_lock                           1            2 ");
	free(buf);
}
END_TEST

START_TEST(no_color_is_honoured)
{
	setenv("TERM", "xterm", 1);
	unsetenv("NO_COLOR");
	ck_assert(term_env_wants_color());
	setenv("NO_COLOR", "", 1); /* empty: no effect (no-color.org) */
	ck_assert(term_env_wants_color());
	setenv("NO_COLOR", "1", 1);
	ck_assert(!term_env_wants_color());
	unsetenv("NO_COLOR");
	setenv("TERM", "dumb", 1);
	ck_assert(!term_env_wants_color());
}
END_TEST

/* ---- the helpers shared since the duplicates were merged ---------------------- */

static void write_index(FILE *f, size_t i, const void *ctx)
{
	fprintf(f, "%s%zu", (const char *)ctx, i);
}

START_TEST(json_array_separates_its_items)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	json_array(f, "none", 0, write_index, "#");
	json_array(f, "three", 3, write_index, "#");
	fclose(f);
	ck_assert_str_eq(buf, ",\"none\":[],\"three\":[#0,#1,#2]");
	free(buf);
}
END_TEST

START_TEST(errmsg_writes_one_line_and_returns_false)
{
	char err[16];
	ck_assert(!errmsg(err, sizeof(err), "bad %s", "a\nb\tc\x7f"));
	ck_assert_str_eq(err, "bad a?b?c?");
	errmsg(err, 6, "%s", "longer than six");
	ck_assert_str_eq(err, "longe");
}
END_TEST

START_TEST(name_lists_come_from_the_x_macros)
{
	static const char *const words[] = { "one", "two" };
	int k = name_find(&icache_class_names, "i_lock");
	ck_assert_int_ge(k, 0);
	ck_assert_str_eq(icache_class_names.name[k], "i_lock");
	ck_assert_int_eq(name_find(&icache_class_names, "no_such_lock"), -1);
	ck_assert_int_eq(icache_list_action_names.n, NR_LIST_ACTIONS);
	ck_assert_int_eq(str_find(words, 2, "two"), 1);
	ck_assert_int_eq(str_find(words, 2, "three"), -1);
}
END_TEST

START_TEST(fork_piped_gives_the_child_a_pipe)
{
	int fds[2], st;
	char buf[8] = { 0 };
	pid_t pid = fork_piped(fds);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(write(fds[1], "hi", 2) == 2 ? 0 : 1);
	}
	close(fds[1]);
	ck_assert(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(read(fds[0], buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "hi");
	ck_assert_int_eq(read(fds[0], buf, sizeof(buf)), 0); /* the child's end is closed */
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

static volatile sig_atomic_t caught;

static void count_signal(int sig)
{
	caught += sig == SIGUSR1 ? 1 : 100;
}

START_TEST(sigs_catch_then_restore)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2 };
	struct sigaction old[2], now;
	signal(SIGUSR2, SIG_IGN);
	sigs_catch(sigs, 2, count_signal, 0, old);
	for (int i = 0; i < 2; i++) {
		sigaction(sigs[i], NULL, &now);
		ck_assert(now.sa_handler == count_signal);
	}
#ifndef __SANITIZE_THREAD__
	/* Under ThreadSanitizer a signal raised in Check's forked child is
	 * not delivered at all (it is, without the fork): the handlers'
	 * presence above is what that build checks. */
	raise(SIGUSR1);
	raise(SIGUSR2);
	ck_assert_int_eq(caught, 101);
#endif
	sigs_restore(sigs, 2, old);
	sigaction(SIGUSR2, NULL, &now);
	ck_assert(now.sa_handler == SIG_IGN);
	sigaction(SIGUSR1, NULL, &now);
	ck_assert(now.sa_handler == SIG_DFL);
}
END_TEST

START_TEST(lockstat_row_takes_the_simulators_names)
{
	struct {
		uint64_t acquisitions, contentions, bounces, trylock_failures;
		uint64_t wait_ns_total, wait_ns_max, hold_ns_total, hold_ns_max;
	} s = { 0 };
	ck_assert(!LOCKSTAT_USED(&s));
	s.trylock_failures = 4;
	ck_assert(LOCKSTAT_USED(&s));
	s.wait_ns_total = 5;
	s.hold_ns_max = 8;
	const uint64_t *v = LOCKSTAT_ROW(&s);
	ck_assert_uint_eq(v[3], 4);
	ck_assert_uint_eq(v[4], 5);
	ck_assert_uint_eq(v[7], 8);
}
END_TEST

int main(void)
{
	return run_tests(
		"lib", NULL, NULL, 30,
		(const TTest *[]){
			fatal_runs_the_hook_then_one_line_exit_2, x_functions_return_what_they_copy,
			json_strings_are_escaped_once_for_all, keys_notation,
			numbers_are_whole_unsigned_and_in_range, spawn_captures_output_and_status,
			ctf_dirs_found_at_any_depth, rm_tree_removes_all_and_follows_no_link,
			lockstat_row_layout, no_color_is_honoured, json_array_separates_its_items,
			errmsg_writes_one_line_and_returns_false, name_lists_come_from_the_x_macros,
			fork_piped_gives_the_child_a_pipe, sigs_catch_then_restore,
			lockstat_row_takes_the_simulators_names, NULL });
}
