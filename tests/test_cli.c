/*
 * test_cli.c - icache-sim's command line: help, listings, JSON, and a
 * one-line error with exit status 2 for every kind of bad usage.
 */
#include <sys/stat.h>

#include "tests/testutil.h"

START_TEST(bad_flags_exit_2_with_one_line)
{
	sim_bad_usage("run --cpus 0", "--cpus: '0'");
	sim_bad_usage("run --cpus -3", "--cpus: '-3'");
	sim_bad_usage("run --cpus lots", "--cpus: 'lots'");
	sim_bad_usage("run --cpus 100000", "--cpus: '100000'");
	sim_bad_usage("run --scheme nosuch", "--scheme: 'nosuch' is not a scheme");
	sim_bad_usage("run --workload nosuch", "--workload: 'nosuch'");
	sim_bad_usage("run --ops 0", "--ops: '0'");
	sim_bad_usage("run --ops 99999999999999999999", "--ops");
	sim_bad_usage("run --duration forever", "--duration: 'forever'");
	sim_bad_usage("run --duration 10h", "--duration: '10h'");
	sim_bad_usage("run --hash-bits 40", "--hash-bits: '40'");
	sim_bad_usage("run --hot 0", "--hot: '0'");
	sim_bad_usage("run --sbs 1000", "--sbs: '1000'");
	sim_bad_usage("run --watchdog 0", "--watchdog: '0'");
	/* strtod reads these; none is a number the flags can use. */
	sim_bad_usage("run --duration nan", "--duration: 'nan'");
	sim_bad_usage("run --duration inf", "--duration: 'inf'");
	sim_bad_usage("run --duration -inf", "--duration: '-inf'");
	sim_bad_usage("run --check-every nan", "--check-every: 'nan'");
	sim_bad_usage("run --check-every infinity", "--check-every: 'infinity'");
	sim_bad_usage("run --watchdog nan", "--watchdog: 'nan'");
	sim_bad_usage("run --watchdog inf", "--watchdog: 'inf'");
	sim_bad_usage("run --ops nan", "--ops: 'nan'");
	sim_bad_usage("run --seed inf", "--seed: 'inf'");
	/* Output paths are checked before the run, not after it. */
	sim_bad_usage("run --duration 1m --graph /nonexistent-dir/g.dot",
		      "--graph: '/nonexistent-dir/g.dot' is in a directory that does not exist");
	sim_bad_usage("run --duration 1m --graph /tmp", "--graph: '/tmp' is a directory");
	sim_bad_usage("explore --scheme merged -o /nonexistent-dir/x.scn",
		      "-o: '/nonexistent-dir/x.scn' is in a directory that does not exist");
	sim_bad_usage("run --frobnicate", "unknown option '--frobnicate'");
	sim_bad_usage("run --scheme", "--scheme needs a value");
	sim_bad_usage("calibrate --check", "--check needs a FILE");
	sim_bad_usage("calibrate -o", "-o needs a FILE");
	sim_bad_usage("calibrate --check /nonexistent/costs.txt", "/nonexistent/costs.txt");
	sim_bad_usage("run --ops 10 --duration 1s", "not both");
	sim_bad_usage("frobnicate", "unknown command 'frobnicate'");
	sim_bad_usage("schemes extra", "unexpected argument 'extra'");
	sim_bad_usage("", "usage: icache-sim");
}
END_TEST

START_TEST(help_and_listings)
{
	int st;
	char *out = run_expect(0, "%s --help", bin_path("icache-sim"));
	ck_assert_ptr_nonnull(strstr(out, "usage: icache-sim COMMAND"));
	free(out);
	out = run_cmd(&st, "%s run --help", bin_path("icache-sim"));
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "--workload W"));
	free(out);
	out = run_cmd(&st, "%s schemes", bin_path("icache-sim"));
	ck_assert_int_eq(st, 0);
	assert_has(out, "merged", "i_lock > inode_lru_lock");
	free(out);
	out = run_cmd(&st, "%s workloads", bin_path("icache-sim"));
	ck_assert_int_eq(st, 0);
	const char *names[] = { "create-unlink", "lookup", "writeback",
				"pressure",      "umount", "mixed" };
	for (int i = 0; i < 6; i++)
		ck_assert_ptr_nonnull(strstr(out, names[i]));
	free(out);
}
END_TEST

/*
 * --vfs-cache-pressure scales what the shrinker is asked to scan, as the
 * sysctl scales shrink_icache_memory's answer: at 0 nothing is pruned and
 * the LRU grows past --cache; at 100 it is held near --cache.
 */
static long lru_after_pressure(const char *pressure)
{
	int st;
	char *out = run_cmd(&st,
			    "%s run --virtual --workload pressure --cpus 2 --ops 4000 --cache 64 "
			    "--vfs-cache-pressure %s --json",
			    bin_path("icache-sim"), pressure);
	ck_assert_msg(st == 0, "%s", out);
	ck_assert_int_eq((long)json_num(out, NULL, "vfs_cache_pressure"), atol(pressure));
	long lru = (long)json_num(out, "\"final\"", "lru");
	ck_assert_ptr_nonnull(strstr(out, "\"violations\":[]"));
	free(out);
	return lru;
}

START_TEST(vfs_cache_pressure_flag)
{
	long never = lru_after_pressure("0"), normal = lru_after_pressure("100");
	ck_assert_msg(never > 4 * 64, "pressure 0 pruned: LRU %ld", never);
	ck_assert_msg(normal <= 2 * 64, "pressure 100 did not prune: LRU %ld", normal);
	char *out = run_expect(2, "%s run --vfs-cache-pressure 10001 2>&1", bin_path("icache-sim"));
	ck_assert_ptr_nonnull(strstr(out, "--vfs-cache-pressure: '10001' is out of range"));
	free(out);
}
END_TEST

START_TEST(run_text_and_json)
{
	int st;
	char *out = run_expect(0, "%s run --workload mixed --cpus 2 --ops 5000",
			       bin_path("icache-sim"));
	assert_has(out, "ops/s", "acquisitions", "invariants: 1 check, 0 failures",
		   "violations: none");
	free(out);

	out = run_cmd(&st, "%s run --workload lookup --cpus 2 --ops 4000 --json",
		      bin_path("icache-sim"));
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "\"scheme\":\"merged\""));
	ck_assert_int_eq((int)json_num(out, NULL, "ops"), 4000);
	ck_assert_int_eq((int)json_num(out, NULL, "cpus"), 2);
	ck_assert(json_num(out, NULL, "ops_per_s") > 0);
	ck_assert(json_num(out, "\"class\":\"i_lock\"", "acquisitions") > 0);
	assert_has(out, "\"violations\":[]", "\"ok\":true");
	free(out);
}
END_TEST

START_TEST(run_writes_the_lock_order_graph)
{
	int st;
	char path[] = "/tmp/icache-graph-XXXXXX";
	scratch_file(path, NULL);
	char *out = run_cmd(&st, "%s run --workload mixed --ops 3000 --graph %s",
			    bin_path("icache-sim"), path);
	ck_assert_int_eq(st, 0);
	free(out);
	out = run_cmd(&st, "cat %s", path);
	ck_assert_ptr_nonnull(strstr(out, "digraph lock_order"));
	/* merged takes the LRU lock inside i_lock: a documented edge. */
	ck_assert_ptr_nonnull(strstr(out, "\"i_lock\" -> \"inode_lru_lock\""));
	ck_assert_ptr_null(strstr(out, "color=red"));
	free(out);
	unlink(path);
}
END_TEST

START_TEST(cpus_all_uses_every_core)
{
	char *out = run_expect(0, "%s run --cpus all --workload lookup --ops 2000 --json",
			       bin_path("icache-sim"));
	ck_assert_int_eq((int)json_num(out, NULL, "cpus"), (int)json_num(out, NULL, "host_cpus"));
	free(out);
}
END_TEST

/*
 * Under resource limits: one line and exit 2, not "0 ops" or a segfault.
 * Sanitizer builds reserve terabytes of shadow memory, which no address
 * space limit allows: the address-space case runs in plain builds only.
 */
static void limited(const char *limit, bool as_nobody, const char *args, const char *needle)
{
	int st;
	char inner[1024];
	const char *sim = as_nobody ? other_user_bin("icache-sim") : bin_path("icache-sim");
	snprintf(inner, sizeof(inner), "ulimit %s; exec %s %s", limit, sim, args);
	char *out = as_nobody ?
			    run_cmd(&st, "su nobody -s /bin/bash -c '%s' 2>&1 >/dev/null", inner) :
			    run_cmd(&st, "bash -c '%s' 2>&1 >/dev/null", inner);
	if (as_nobody)
		other_user_bin_done(sim);
	ck_assert_msg(st == 2, "ulimit %s: exit %d, not 2: %s", limit, st, out);
	ck_assert_msg(strstr(out, needle), "ulimit %s: said '%s', not '%s'", limit, out, needle);
	char *nl = strchr(out, '\n');
	ck_assert_msg(nl && nl[1] == 0, "ulimit %s: more than one line: %s", limit, out);
	free(out);
}

START_TEST(resource_limits_exit_2_with_one_line)
{
	const char *san = getenv("SAN");
	if (!san || !*san) {
		limited("-v 60000", false, "run --ops 2000 --hash-bits 22", "out of memory");
		limited("-v 80000", false, "run --ops 2000", "cannot start a thread");
	}
	/* A process limit binds a user, not root: try as nobody if we can. */
	int st;
	free(run_cmd(&st, "su nobody -s /bin/sh -c true 2>/dev/null"));
	if (st == 0)
		limited("-u 3", true, "run --ops 2000 --cpus 4", "cannot start a thread");
}
END_TEST

/*
 * Scenario and lesson readers cap a line's length and the number of lines:
 * one line naming the file and the line at fault, exit 2.  The files are
 * the shipped ones with one line made too long, or padded with comments.
 */
START_TEST(readers_cap_lines)
{
	int st;
	char dir[] = "/tmp/icache-caps-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* line 3 of each: 5000 x's after a comment mark */
	free(run_cmd(
		&st,
		"cd %s && x=$(head -c 5000 /dev/zero | tr '\\0' x) &&"
		" sed \"3s/^/# $x/\" %s/lessons/scenarios/split-locks.scn > long.scn &&"
		" sed \"3s/^/# $x/\" %s/lessons/01-inode-cache.lesson > long.lesson &&"
		" { cat %s/lessons/scenarios/split-locks.scn; yes '#' | head -n 100000; } > many.scn",
		dir, getenv("PWD"), getenv("PWD"), getenv("PWD")));
	ck_assert_int_eq(st, 0);
	char args[200];
	snprintf(args, sizeof(args), "play %s/long.scn", dir);
	sim_bad_usage(args, "/long.scn:3: line too long (more than 4096 bytes)");
	snprintf(args, sizeof(args), "play %s/many.scn", dir);
	sim_bad_usage(args, "/many.scn:100001: too many lines (more than 100000)");
	char *out = run_cmd(&st, "%s --check %s/long.lesson 2>&1", bin_path("icache-lesson"), dir);
	ck_assert_msg(st == 2 && strstr(out, "/long.lesson:3: line too long") &&
			      !strchr(out, '\n')[1],
		      "exit %d: %s", st, out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", dir));
}
END_TEST

/* Readers of whole files refuse what is not a regular file, at once. */
START_TEST(readers_refuse_non_regular_files)
{
	int st;
	char fifo[] = "/tmp/icache-fifo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(fifo));
	char path[64];
	snprintf(path, sizeof(path), "%s/f", fifo);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	sim_bad_usage("play /dev/zero", "/dev/zero: cannot read: it is not a regular file");
	char args[128];
	snprintf(args, sizeof(args), "play %s", path);
	sim_bad_usage(args, "cannot read: it is not a regular file");
	/* A lesson on /dev/zero, and a lesson whose scenario is /dev/zero. */
	char *out = run_cmd(&st, "timeout 20 %s --check /dev/zero 2>&1", bin_path("icache-lesson"));
	ck_assert_msg(st == 2 && strstr(out, "it is not a regular file"), "exit %d: %s", st, out);
	free(out);
	out = run_cmd(&st,
		      "d=%s/l; cp -r lessons $d && sed -i 's#^scenario: .*#scenario: /dev/zero#'"
		      " $d/04-nicks-order.lesson && timeout 20 %s --check $d/04-nicks-order.lesson"
		      " 2>&1; echo rc=$?",
		      fifo, bin_path("icache-lesson"));
	ck_assert_msg(strstr(out, "drive: cannot read scenario '/dev/zero': it is not a regular "
				  "file") &&
			      strstr(out, "rc=2"),
		      "lesson with /dev/zero: %s", out);
	free(out);
	free(run_cmd(&st, "rm -rf %s", fifo));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	suite_case(s, "help", 60, (const TTest *[]){ help_and_listings, NULL });
	suite_case(s, "runs", 60,
		   (const TTest *[]){ run_text_and_json, run_writes_the_lock_order_graph,
				      vfs_cache_pressure_flag, cpus_all_uses_every_core, NULL });
	/* Each refusal: one line, exit 2. */
	suite_case(s, "bad input", 60,
		   (const TTest *[]){ bad_flags_exit_2_with_one_line,
				      resource_limits_exit_2_with_one_line,
				      readers_refuse_non_regular_files, readers_cap_lines, NULL });
	return run_suite(s);
}
