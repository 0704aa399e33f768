/*
 * test_vsmp.c - the lock kinds (--locks ticket|mcs|mutex) and the
 * virtual-time mode (run --virtual, calibrate).
 *
 * Lock kinds: each one excludes, ticket and MCS hand over in arrival
 * order, lock_stat counts the same things under each, and every scheme
 * runs clean under each.  Virtual mode: see its own section below.
 */
#include <inttypes.h>
#include <pthread.h>

#include "tests/simenv.h"
#include "tests/testutil.h"

static const char *const kinds[] = { "ticket", "mcs", "mutex" };
#define NKINDS 3

/* ---- the kinds themselves, in process ------------------------------------- */

#define EXCL_ROUNDS 20000

static struct sim_lock excl_lock;
static long excl_counter; /* protected by excl_lock, deliberately plain */

static void *excl_worker(void *p)
{
	SITE(test_abba);
	this_cpu = p;
	for (int i = 0; i < EXCL_ROUNDS; i++) {
		spin_lock(&excl_lock);
		excl_counter++;
		spin_unlock(&excl_lock);
	}
	return NULL;
}

/* Two threads, one counter: every increment survives, every count adds up. */
START_TEST(each_kind_excludes_and_counts)
{
	env_start(&scheme_merged, 1);
	sim_lock_kind = (enum lock_kind)_i;
	sim_lock_init(&excl_lock, LC_test_lock_a, 1);
	ck_assert_int_eq(excl_lock.kind, _i);
	excl_counter = 0;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, excl_worker, &env_cpus[i + 1]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(excl_counter, 2 * EXCL_ROUNDS);
	uint64_t acq = 0, con = 0, bounces = 0;
	for (int i = 1; i <= 2; i++) {
		const struct lock_class_stats *s = &env_cpus[i].stats[LC_test_lock_a];
		acq += s->acquisitions;
		con += s->contentions;
		bounces += s->bounces;
		ck_assert_uint_le(s->contentions, s->acquisitions);
		ck_assert(s->contentions == 0 || s->wait_ns_total > 0);
		ck_assert_uint_gt(s->hold_ns_total, 0);
	}
	ck_assert_uint_eq(acq, 2 * EXCL_ROUNDS);
	ck_assert_uint_le(bounces, acq);
	ck_assert_int_eq(atomic_load(&excl_lock.holder), -1);
	sim_lock_destroy(&excl_lock);
	sim_lock_kind = LOCK_MUTEX;
	env_stop();
}
END_TEST

static struct sim_lock fifo_lock;
static atomic_int fifo_order[3], fifo_n;

static void *fifo_waiter(void *p)
{
	SITE(test_abba);
	this_cpu = p;
	spin_lock(&fifo_lock);
	fifo_order[atomic_fetch_add(&fifo_n, 1)] = this_cpu->id;
	spin_unlock(&fifo_lock);
	return NULL;
}

static void wait_until_waiting(struct sim_cpu *c)
{
	while (atomic_load(&c->waiting_for) == NULL)
		usleep(100);
}

/* cpu0 holds; cpu1 queues, then cpu2: a FIFO lock serves cpu1 first. */
START_TEST(ticket_and_mcs_serve_in_arrival_order)
{
	SITE(test_abba);
	env_start(&scheme_merged, 1);
	sim_lock_kind = _i == 0 ? LOCK_TICKET : LOCK_MCS;
	sim_lock_init(&fifo_lock, LC_test_lock_b, 1);
	atomic_store(&fifo_n, 0);
	spin_lock(&fifo_lock);
	pthread_t t1, t2;
	ck_assert_int_eq(pthread_create(&t1, NULL, fifo_waiter, &env_cpus[1]), 0);
	wait_until_waiting(&env_cpus[1]);
	ck_assert_int_eq(pthread_create(&t2, NULL, fifo_waiter, &env_cpus[2]), 0);
	wait_until_waiting(&env_cpus[2]);
	usleep(20000); /* both spin now; neither may barge */
	ck_assert_int_eq(atomic_load(&fifo_n), 0);
	spin_unlock(&fifo_lock);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ck_assert_int_eq(fifo_order[0], 1);
	ck_assert_int_eq(fifo_order[1], 2);
	ck_assert_uint_eq(env_cpus[1].stats[LC_test_lock_b].contentions, 1);
	ck_assert_uint_eq(env_cpus[2].stats[LC_test_lock_b].contentions, 1);
	/* A trylock never queues: with a holder it fails, and counts it. */
	spin_lock(&fifo_lock);
	this_cpu = &env_cpus[3];
	ck_assert(!spin_trylock(&fifo_lock));
	ck_assert_uint_eq(env_cpus[3].stats[LC_test_lock_b].trylock_failures, 1);
	this_cpu = &env_cpus[0];
	spin_unlock(&fifo_lock);
	this_cpu = &env_cpus[3];
	ck_assert(spin_trylock(&fifo_lock));
	spin_unlock(&fifo_lock);
	this_cpu = &env_cpus[0];
	sim_lock_destroy(&fifo_lock);
	sim_lock_kind = LOCK_MUTEX;
	env_stop();
}
END_TEST

/*
 * icache-sim run --scheme NAME ARGS --quiet --json for the scheme sc: its
 * JSON.  Its invariants hold ("ok":true) and, unless sc is known to be
 * racy, it exits 0 with no violation; a failure names the scheme and what
 * the run was (label) and shows the output.
 */
static char *run_scheme_clean(const struct scheme *sc, const char *label, const char *args)
{
	int status;
	char *out = run_cmd(&status, "%s %s run --scheme %s %s --quiet --json",
			    tsan_racy_env(sc->known_racy), bin_path("icache-sim"), sc->name, args);
	ck_assert_msg(strstr(out, "\"ok\":true"), "%s %s invariants: %.800s", sc->name, label, out);
	ck_assert_msg(sc->known_racy ||
			      (status == 0 && json_num(out, NULL, "violations_total") == 0),
		      "%s %s: exit %d\n%.800s", sc->name, label, status, out);
	return out;
}

/* ---- the kinds in whole runs ------------------------------------------------ */

START_TEST(every_kind_runs_every_scheme_clean)
{
	const char *kind = kinds[_i];
	char args[128], label[64];
	snprintf(args, sizeof(args),
		 "--locks %s --workload mixed --ops 1500 --cpus 2 --watchdog 30", kind);
	snprintf(label, sizeof(label), "under --locks %s", kind);
	for (int s = 0; all_schemes[s]; s++) {
		char *out = run_scheme_clean(all_schemes[s], label, args);
		char want[64];
		snprintf(want, sizeof(want), "\"lock_kind\":\"%s\"", kind);
		ck_assert_msg(strstr(out, want), "%s/%s: %.400s", kind, all_schemes[s]->name, out);
		ck_assert_int_eq((int)json_num(out, NULL, "ops"), 1500);
		free(out);
	}
}
END_TEST

/* One CPU, no flusher, same seed: every kind takes exactly the same locks,
 * none of them ever contended. */
START_TEST(counters_agree_across_kinds)
{
	double acq[NKINDS], cont[NKINDS];
	for (int k = 0; k < NKINDS; k++) {
		int status;
		char *out = run_cmd(&status,
				    "%s run --locks %s --scheme global --workload lookup "
				    "--ops 3000 --cpus 1 --json",
				    bin_path("icache-sim"), kinds[k]);
		ck_assert_int_eq(status, 0);
		acq[k] = json_num(out, "\"class\":\"inode_lock\"", "acquisitions");
		cont[k] = json_num(out, "\"class\":\"inode_lock\"", "contentions");
		free(out);
		ck_assert(acq[k] > 3000);
		ck_assert(cont[k] == 0);
	}
	ck_assert(acq[0] == acq[1] && acq[1] == acq[2]);
}
END_TEST

START_TEST(default_kind_is_said_in_the_header)
{
	int status;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char *out = run_cmd(&status, "%s run --workload lookup --ops 200 --cpus 1",
			    bin_path("icache-sim"));
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "locks ticket (the default: every simulated CPU "
				  "has a core, so they spin)"),
		      "%s", out);
	free(out);
	out = run_cmd(&status, "%s run --workload lookup --ops 200 --cpus %ld",
		      bin_path("icache-sim"), cores + 1);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "locks mutex (the default: more simulated CPUs "
				  "than cores, so they sleep)"),
		      "%s", out);
	free(out);
	out = run_cmd(&status, "%s run --locks spin 2>&1", bin_path("icache-sim"));
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(out, "icache-sim run: --locks: 'spin' is not a lock "
				  "kind (ticket, mcs, mutex)"),
		      "%s", out);
	free(out);
}
END_TEST

/* ---- virtual time ------------------------------------------------------------ */

#include "sim/engine/costs.h"

/* A cost file of our own, so no test depends on the shipped figures. */
static const char *test_costs(void)
{
	static char path[] = "/tmp/icache-vsmp-costs.XXXXXX";
	static bool made;
	if (!made) {
		scratch_file(path, "source a test's figures\nxfer_ns 80\nwake_ns 4000\n"
				   "wake_call_ns 150\nstep_default_ns 60\n"
				   "step_ns create-unlink 50.5\n");
		made = true;
	}
	return path;
}

START_TEST(virtual_runs_every_scheme_clean)
{
	char args[600];
	snprintf(args, sizeof(args), "--virtual --costs %s --workload mixed --ops 4000 --cpus 16",
		 test_costs());
	for (int s = 0; all_schemes[s]; s++) {
		char *out = run_scheme_clean(all_schemes[s], "virtual", args);
		ck_assert_msg(strstr(out, "\"virtual\":true"), "%s: %.500s", all_schemes[s]->name,
			      out);
		ck_assert_msg(strstr(out, "\"costs_source\":\"a test's figures\""), "%.500s", out);
		ck_assert_int_eq((int)json_num(out, NULL, "ops"), 4000);
		ck_assert_int_eq((int)json_num(out, NULL, "cpus"), 16);
		ck_assert(json_num(out, NULL, "points") > 4000);
		free(out);
	}
}
END_TEST

/* Drop the one figure that is the host's: how long simulating took. */
static void drop_host_time(char *json)
{
	char *p = strstr(json, "\"host_seconds\":");
	ck_assert_ptr_nonnull(p);
	char *e = strchr(p, ',');
	ck_assert_ptr_nonnull(e);
	memmove(p, e + 1, strlen(e + 1) + 1);
}

START_TEST(virtual_is_deterministic)
{
	const char *fmt = "%s run --virtual --costs %s --scheme merged --workload mixed "
			  "--ops 6000 --cpus 12 --seed %d --json --inodes";
	int st;
	char *a = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 7);
	char *b = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 7);
	char *c = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 8);
	drop_host_time(a);
	drop_host_time(b);
	drop_host_time(c);
	ck_assert_msg(strcmp(a, b) == 0, "same seed, different results:\n%.600s\n%.600s", a, b);
	ck_assert_msg(strcmp(a, c) != 0, "another seed gave the very same run");
	free(a);
	free(b);
	free(c);
}
END_TEST

/* --jitter varies each step's work, seeded: the same seed gives the same
 * run, another seed another, and 0 is the same as no jitter at all. */
START_TEST(virtual_jitter_is_seeded)
{
	const char *fmt = "%s run --virtual --costs %s --scheme global --workload create-unlink "
			  "--ops 4000 --cpus 8 --seed %d --jitter %s --json";
	int st;
	char *a = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 3, "30");
	char *b = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 3, "30");
	char *c = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), 3, "0");
	char *d = run_cmd(&st,
			  "%s run --virtual --costs %s --scheme global --workload create-unlink "
			  "--ops 4000 --cpus 8 --seed 3 --json",
			  bin_path("icache-sim"), test_costs());
	drop_host_time(a);
	drop_host_time(b);
	drop_host_time(c);
	drop_host_time(d);
	ck_assert_msg(strcmp(a, b) == 0, "same seed and jitter, different results");
	ck_assert_msg(strcmp(a, c) != 0, "30%% jitter changed nothing");
	ck_assert_msg(strcmp(c, d) == 0, "--jitter 0 is not the default");
	free(a);
	free(b);
	free(c);
	free(d);
	sim_bad_usage("run --jitter 10 --ops 10", "--jitter is for --virtual runs");
	sim_bad_usage("run --virtual --jitter nan --ops 10", "not a percentage");
}
END_TEST

/*
 * The v4 iput_final race in virtual time: the validator's handoff check
 * sees the freed inode put on the LRU.  With the mutex kind: a FIFO lock
 * queues the evicting CPU behind the one in the window and closes it.
 */
START_TEST(virtual_catches_the_v4_race)
{
	int status;
	char *out = run_expect(1,
			       "%s run --virtual --costs %s --locks mutex --scheme inode-scale-v4 "
			       "--workload iput-race --ops 20000 --cpus 4 --quiet",
			       bin_path("icache-sim"), test_costs());
	ck_assert_msg(strstr(out, "freed_on_list"), "%.2000s", out);
	ck_assert_msg(strstr(out, "puts inode") && strstr(out, "inode_lru_list_add"), "%.2000s",
		      out);
	free(out);
	out = run_cmd(&status,
		      "%s run --virtual --costs %s --locks mutex --scheme merged "
		      "--workload iput-race --ops 20000 --cpus 4 --quiet",
		      bin_path("icache-sim"), test_costs());
	ck_assert_msg(status == 0 && strstr(out, "violations: none"), "%.2000s", out);
	free(out);
}
END_TEST

static double vrun_figure(const char *scheme, const char *locks, int cpus, const char *key,
			  double *contentions_per_op)
{
	char *out = run_expect(0,
			       "%s run --virtual --costs %s --locks %s --scheme %s "
			       "--workload create-unlink --ops 20000 --cpus %d --json",
			       bin_path("icache-sim"), test_costs(), locks, scheme, cpus);
	double v = json_num(out, NULL, key), con = 0;
	for (const char *p = strstr(out, "\"contentions\":"); p;
	     p = strstr(p + 1, "\"contentions\":"))
		con += strtod(p + strlen("\"contentions\":"), NULL);
	*contentions_per_op = con / json_num(out, NULL, "ops");
	free(out);
	return v;
}

/* The model's ticket handoff grows with the spinners, MCS's does not:
 * global at 32 CPUs runs faster on MCS, as contended as on ticket. */
START_TEST(virtual_mcs_removes_the_ticket_collapse)
{
	double ct, cm;
	double t = vrun_figure("global", "ticket", 32, "ops_per_s", &ct);
	double m = vrun_figure("global", "mcs", 32, "ops_per_s", &cm);
	ck_assert_msg(m > t, "mcs %.0f ops/s, ticket %.0f", m, t);
	ck_assert_msg(cm > 0.5 * ct && cm < 2 * ct, "contentions/op mcs %.2f ticket %.2f", cm, ct);
}
END_TEST

START_TEST(cost_files_are_checked)
{
	struct cost_model m;
	char err[256];
	ck_assert(cost_model_parse("source x\nxfer_ns 1\nwake_ns 2\nwake_call_ns 3\n"
				   "step_default_ns 4\nstep_ns lookup 5.5\n",
				   "t", &m, err, sizeof(err)));
	ck_assert(cost_step_ns(&m, "lookup", NULL) == 5.5);
	ck_assert(cost_step_ns(&m, "mixed", NULL) == 4);
	ck_assert(m.lock_ns == 0); /* optional: a file from before it was measured */
	ck_assert(m.contended_ns == 0);
	ck_assert(m.xfer_more_ns < 0);                        /* absent: every store stalls */
	ck_assert(m.line_ns < 0 && cost_line_ns(&m) == 1);    /* absent: a line costs xfer_ns */
	ck_assert(m.nap_ns < 0 && cost_nap_ns(&m) == 500000); /* absent: the nap asked for */
	ck_assert(m.lock_hold_ns < 0 && cost_lock_hold_ns(&m) == 0); /* absent: all of lock_ns */
	/* A scheme's own step, else the workload's, else the default. */
	ck_assert(cost_model_parse("source x\nxfer_ns 1\nwake_ns 2\nwake_call_ns 3\n"
				   "step_default_ns 4\nstep_ns lookup 5.5\n"
				   "step_ns lookup global 2.5\nstep_ns mixed merged 7\n"
				   "xfer_more_ns 0\nline_ns 0.5\n",
				   "t", &m, err, sizeof(err)));
	ck_assert(cost_step_ns(&m, "lookup", "global") == 2.5);
	ck_assert(cost_step_ns(&m, "lookup", "merged") == 5.5);
	ck_assert(cost_step_ns(&m, "lookup", NULL) == 5.5);
	ck_assert(cost_step_ns(&m, "mixed", "merged") == 7);
	ck_assert(cost_step_ns(&m, "mixed", "global") == 4);
	ck_assert(m.xfer_more_ns == 0);
	ck_assert(m.line_ns == 0.5 && cost_line_ns(&m) == 0.5);
	ck_assert(cost_model_parse("source x\nxfer_ns 1\nwake_ns 2\nwake_call_ns 3\n"
				   "step_default_ns 4\nnap_ns 565000\n",
				   "t", &m, err, sizeof(err)));
	ck_assert(cost_nap_ns(&m) == 565000);
	ck_assert(m.nap_spread_ns < 0 && cost_nap_spread_ns(&m) == 0); /* absent: never */
	m.nap_spread_ns = 9000;
	ck_assert(cost_nap_spread_ns(&m) == 9000);
	m.nap_spread_ns = 1e9; /* more than the nap: the nap */
	ck_assert(cost_nap_spread_ns(&m) == 565000);
	ck_assert(cost_model_parse("source x\nxfer_ns 1\nwake_ns 2\nwake_call_ns 3\n"
				   "step_default_ns 4\nlock_ns 90\nlock_hold_ns 60\n",
				   "t", &m, err, sizeof(err)));
	ck_assert(cost_lock_hold_ns(&m) == 60);
	m.lock_hold_ns = 120; /* more than the whole: the whole */
	ck_assert(cost_lock_hold_ns(&m) == 90);
	ck_assert(!cost_model_parse("source x\nnap_ns soon\n", "n", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "n:2: not a number of nanoseconds");
	ck_assert(!cost_model_parse("source x\nline_ns -3\n", "l", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "l:2: not a number of nanoseconds");
	ck_assert(!cost_model_parse("source x\n\nnap_spread_ns -3\n", "p", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "p:3: not a number of nanoseconds");
	ck_assert(!cost_model_parse("source x\nlock_hold_ns half\n", "q", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "q:2: not a number of nanoseconds");
	ck_assert(!cost_model_parse("source x\nstep_ns lookup global 1 2\n", "s", &m, err,
				    sizeof(err)));
	ck_assert_str_eq(err, "s:2: step_ns needs a workload, maybe a scheme, and a number");
	ck_assert(!cost_model_parse("step_ns lookup global fast\n", "s", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "s:1: not a number of nanoseconds");
	ck_assert(cost_model_parse("source x\nxfer_ns 1\nwake_ns 2\nwake_call_ns 3\n"
				   "step_default_ns 4\nlock_ns 96.5\ncontended_ns 41.5\n",
				   "t", &m, err, sizeof(err)));
	ck_assert(m.lock_ns == 96.5 && m.contended_ns == 41.5);
	ck_assert(!cost_model_parse("source x\nlock_ns many\n", "k", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "k:2: not a number of nanoseconds");
	ck_assert(!cost_model_parse("xfer_ns 1\nwake_ns fast\n", "f.txt", &m, err, sizeof(err)));
	ck_assert_str_eq(err, "f.txt:2: not a number of nanoseconds");
	ck_assert(!cost_model_parse("xfer_ns 1\n", "g", &m, err, sizeof(err)));
	ck_assert_msg(strstr(err, "g:1: incomplete"), "%s", err);
	ck_assert(!cost_model_parse("colour 3\n", "h", &m, err, sizeof(err)));
	ck_assert_msg(strstr(err, "h:1: unknown key"), "%s", err);
	char *out = run_expect(2, "%s run --virtual --costs /nonexistent/c 2>&1",
			       bin_path("icache-sim"));
	ck_assert_msg(strstr(out, "icache-sim run: --costs: /nonexistent/c: "), "%s", out);
	free(out);
}
END_TEST

/* A virtual run of 3000 operations (args: scheme, workload, CPUs) on a
 * cost file holding costs_text: its JSON (free it). */
static char *virtual_json(const char *costs_text, const char *args)
{
	char path[] = "/tmp/icache-vsmp-costs.XXXXXX";
	scratch_file(path, costs_text);
	int status;
	char *out = run_cmd(&status, "%s run --virtual --costs %s %s --ops 3000 --quiet --json",
			    bin_path("icache-sim"), path, args);
	unlink(path);
	ck_assert_msg(status == 0, "%s: %.500s", args, out);
	return out;
}

/* The same run's virtual nanoseconds in *ns, and in *sum the lock_stat
 * column ("acquisitions", "contentions") added over its classes. */
static void virtual_run(const char *costs_text, const char *args, const char *column, double *ns,
			double *sum)
{
	char key[64];
	char *out = virtual_json(costs_text, args);
	*ns = json_num(out, NULL, "seconds") * 1e9;
	*sum = 0;
	snprintf(key, sizeof(key), "\"%s\":", column);
	for (const char *p = out; (p = strstr(p, key)); p++)
		*sum += strtod(p + strlen(key), NULL);
	free(out);
}

/* One virtual CPU running lookup (no flusher, so nothing waits): its
 * virtual nanoseconds and acquisitions. */
static void lookup_on_one_cpu(const char *costs_text, double *ns, double *acq)
{
	virtual_run(costs_text, "--scheme merged --workload lookup --cpus 1", "acquisitions", ns,
		    acq);
}

/*
 * lock_ns is what a lock's acquisition costs instead of a step (calibrate
 * times the simulator's own lock code): on one CPU with nothing to wait
 * for, raising it by D lengthens the run by D per acquisition, exactly.
 */
START_TEST(virtual_charges_each_lock_its_cost)
{
	const char *base = "source t\nxfer_ns 80\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 60\nstep_ns lookup 20\n";
	char with[512];
	double t0, a0, t1, a1;

	snprintf(with, sizeof(with), "%slock_ns 20\n", base); /* = the step: no change */
	lookup_on_one_cpu(base, &t0, &a0);
	lookup_on_one_cpu(with, &t1, &a1);
	ck_assert(a0 > 3000 && a0 == a1);
	/* (the JSON's seconds have 6 decimals: 1000 ns) */
	ck_assert_msg(t1 > t0 - 1001 && t1 < t0 + 1001, "%.0f ns against %.0f", t1, t0);
	snprintf(with, sizeof(with), "%slock_ns 120\n", base);
	lookup_on_one_cpu(with, &t1, &a1);
	double per_lock = (t1 - t0) / a1;
	ck_assert_msg(per_lock > 99 && per_lock < 101, "%.3f ns more per lock", per_lock);
}
END_TEST

/* The figure key of lock class cls in a run's JSON (-1: none). */
static double class_figure(const char *json, const char *cls, const char *key)
{
	char at[96];
	snprintf(at, sizeof(at), "\"class\":\"%s\"", cls);
	return json_num(json, at, key);
}

/*
 * lock_hold_ns is the part of lock_ns that lock_stat counts as the hold:
 * it is charged once the lock is taken, the rest before.  A file whose
 * lock_hold_ns is its lock_ns gives the result of one without, bit for
 * bit.  On one CPU with nothing to wait for, a smaller one leaves the
 * run as long (the lock costs as much) and shortens every hold of every
 * class by the difference, exactly (each hold's ends are rounded to the
 * nanosecond): a lock taken inside another's hold is still paid in full
 * inside that hold, before as after.
 */
START_TEST(virtual_lock_code_splits_at_the_hold)
{
	const char *base = "source t\nxfer_ns 80\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 60\nstep_ns lookup 20\nlock_ns 120\n";
	const char *args = "--scheme merged --workload lookup --cpus 1";
	const char *classes[] = { "i_lock", "inode_hash_lock", "inode_lru_lock" };
	char with[512];

	char *whole = virtual_json(base, args);
	snprintf(with, sizeof(with), "%slock_hold_ns 120\n", base);
	char *same = virtual_json(with, args);
	/* the figures: from the run's virtual seconds on (host time is before) */
	const char *from = strstr(whole, "\"seconds\""), *from2 = strstr(same, "\"seconds\"");
	ck_assert(from && from2);
	ck_assert_msg(!strcmp(from, from2), "lock_hold_ns = lock_ns:\n%s\nwithout:\n%s", from2,
		      from);
	snprintf(with, sizeof(with), "%slock_hold_ns 30\n", base);
	char *split = virtual_json(with, args);
	double t0 = json_num(whole, NULL, "seconds"), t1 = json_num(split, NULL, "seconds");
	ck_assert_msg(t0 > 0 && t0 == t1, "%.6f s against %.6f s", t1, t0);
	for (int i = 0; i < 3; i++) {
		double acq = class_figure(whole, classes[i], "acquisitions");
		double h0 = class_figure(whole, classes[i], "hold_ns_total");
		double h1 = class_figure(split, classes[i], "hold_ns_total");
		double off = h0 - h1 - 90 * acq;
		ck_assert(acq > 500 && acq == class_figure(split, classes[i], "acquisitions"));
		ck_assert_msg(off <= acq && off >= -acq, "%s held %.0f ns, then %.0f, over %.0f",
			      classes[i], h0, h1, acq);
	}
	free(whole);
	free(same);
	free(split);
}
END_TEST

/* A 2-CPU global create-unlink: virtual ns, contentions. */
static void global_on_two_cpus(const char *costs_text, double *ns, double *contentions)
{
	virtual_run(costs_text, "--scheme global --workload create-unlink --cpus 2", "contentions",
		    ns, contentions);
}

/*
 * contended_ns is what a lock taken after a wait costs on top of lock_ns
 * (its contended path's clock reads): nothing where nobody waits; where
 * every acquisition waits (global, 2 CPUs) the run grows by at most D per
 * contention, and by most of that, since the lock is the critical path.
 */
START_TEST(virtual_charges_each_wait_its_cost)
{
	const char *base = "source t\nxfer_ns 80\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 60\nstep_ns lookup 20\nstep_ns create-unlink 20\n"
			   "lock_ns 100\n";
	char with[512];
	double t0, a0, t1, a1, c0, c1;

	snprintf(with, sizeof(with), "%scontended_ns 200\n", base);
	lookup_on_one_cpu(base, &t0, &a0);
	lookup_on_one_cpu(with, &t1, &a1);
	ck_assert_msg(t0 == t1 && a0 == a1, "%.0f ns against %.0f", t1, t0);
	global_on_two_cpus(base, &t0, &c0);
	global_on_two_cpus(with, &t1, &c1);
	ck_assert(c0 > 3000 && c1 > 3000);
	double grew = (t1 - t0) / (200 * c1);
	ck_assert_msg(grew > 0.5 && grew <= 1.0, "%.0f ns -> %.0f ns, %.0f contentions: %.3f", t0,
		      t1, c1, grew);
}
END_TEST

/* virtual_run on the cost file base with the lines of extra added. */
static void virtual_run_with(const char *base, const char *extra, const char *args,
			     const char *column, double *ns, double *sum)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s%s", base, extra);
	virtual_run(text, args, column, ns, sum);
}

/*
 * xfer_more_ns (--lines=all only): a store's line is in flight while its
 * CPU goes on, and only a locked read-modify-write, or a waiter seeing a
 * release, waits for it.  With stores that cost next to nothing more
 * (xfer_more_ns 0) a 4-CPU merged create-unlink takes less virtual time
 * than when every store stalls (no xfer_more_ns), and a huge one (each
 * further line in flight 1 ms later) makes it far slower: the lines in
 * flight are waited for.  --lines=lists is not changed by it.
 */
START_TEST(virtual_stores_overlap)
{
	const char *base = "source t\nxfer_ns 200\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 20\nlock_ns 80\n";
	const char *args = "--scheme merged --workload create-unlink --cpus 4 --seed 3";
	char lists[256];
	double stall, overlap, slow, a, b, n;

	virtual_run_with(base, "", args, "acquisitions", &stall, &n);
	virtual_run_with(base, "xfer_more_ns 0\n", args, "acquisitions", &overlap, &n);
	virtual_run_with(base, "xfer_more_ns 1000000\n", args, "acquisitions", &slow, &n);
	ck_assert_msg(overlap < 0.9 * stall, "overlapped %.0f ns, stalled %.0f ns", overlap, stall);
	ck_assert_msg(slow > 10 * stall, "1 ms a line: %.0f ns, stalled %.0f ns", slow, stall);
	snprintf(lists, sizeof(lists), "%s --lines=lists", args);
	virtual_run_with(base, "", lists, "contentions", &a, &n);
	virtual_run_with(base, "xfer_more_ns 0\n", lists, "contentions", &b, &n);
	ck_assert_msg(a == b, "--lines=lists: %.0f ns against %.0f ns", b, a);
}
END_TEST

/*
 * line_ns: what a line another CPU wrote last costs, apart from xfer_ns,
 * what a hand-over to a spinning CPU costs.  A file whose line_ns equals
 * its xfer_ns gives the result of a file without line_ns, bit for bit;
 * a cheaper line makes a 4-CPU merged create-unlink shorter; and a lock's
 * hand-over still costs xfer_ns: with every line at 200 ns, a 1 ms
 * xfer_ns makes a 4-CPU global run (six contentions an operation) far
 * slower.
 */
START_TEST(virtual_line_cost_is_its_own)
{
	const char *base = "source t\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 20\nlock_ns 80\nxfer_more_ns 5\n";
	const char *merged = "--scheme merged --workload create-unlink --cpus 4 --seed 3";
	const char *global = "--scheme global --workload create-unlink --cpus 4 --seed 3";
	double absent, equal, less, c_absent, c_equal, c;

	virtual_run_with(base, "xfer_ns 200\n", merged, "contentions", &absent, &c_absent);
	virtual_run_with(base, "xfer_ns 200\nline_ns 200\n", merged, "contentions", &equal,
			 &c_equal);
	virtual_run_with(base, "xfer_ns 200\nline_ns 20\n", merged, "contentions", &less, &c);
	ck_assert_msg(absent == equal && c_absent == c_equal,
		      "line_ns = xfer_ns: %.0f ns, %.0f contentions; without: %.0f ns, %.0f", equal,
		      c_equal, absent, c_absent);
	ck_assert_msg(less < 0.9 * absent, "20 ns lines: %.0f ns; 200 ns lines: %.0f ns", less,
		      absent);
	virtual_run_with(base, "xfer_ns 200\nline_ns 200\n", global, "contentions", &equal,
			 &c_equal);
	virtual_run_with(base, "xfer_ns 1000000\nline_ns 200\n", global, "contentions", &less, &c);
	ck_assert_msg(c_equal > 1000, "global, 4 CPUs: only %.0f contentions", c_equal);
	ck_assert_msg(less > 100 * equal, "1 ms hand-overs: %.0f ns; 200 ns ones: %.0f ns", less,
		      equal);
}
END_TEST

/*
 * nap_ns is how long the flusher's 500 us nap lasts (calibrate times a
 * real usleep(500)): 500000 is the model without it, bit for bit, and a
 * nap ten times longer makes the flusher come round, and so run, less.
 */
START_TEST(virtual_flusher_naps_as_long_as_measured)
{
	const char *base = "source t\nxfer_ns 200\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 20\nlock_ns 80\nline_ns 100\n";
	const char *args = "--scheme global --workload create-unlink --cpus 1 --flusher-cpu=own";
	double ns_absent, ns_equal, ns_long, fl_absent, fl_equal, fl_long;

	virtual_run_with(base, "", args, "flusher", &ns_absent, &fl_absent);
	virtual_run_with(base, "nap_ns 500000\n", args, "flusher", &ns_equal, &fl_equal);
	virtual_run_with(base, "nap_ns 5000000\n", args, "flusher", &ns_long, &fl_long);
	ck_assert_msg(ns_absent == ns_equal && fl_absent == fl_equal,
		      "nap_ns 500000: %.0f ns, flusher %g s; without: %.0f ns, %g s", ns_equal,
		      fl_equal, ns_absent, fl_absent);
	ck_assert_msg(fl_absent > 0 && fl_long < 0.5 * fl_absent,
		      "5 ms naps: the flusher ran %g s; 500 us naps: %g s", fl_long, fl_absent);
}
END_TEST

/*
 * nap_spread_ns: each nap lasts nap_ns give or take up to that much,
 * drawn from the flusher's seeded generator.  0 is the model without it,
 * bit for bit; a spread changes the run, the same seed repeats it
 * exactly, another seed gives another, and the naps still last nap_ns
 * on average (the flusher comes round, and so runs, about as much).
 */
START_TEST(virtual_naps_vary_as_measured)
{
	const char *base = "source t\nxfer_ns 200\nwake_ns 4000\nwake_call_ns 150\n"
			   "step_default_ns 20\nlock_ns 80\nline_ns 100\nnap_ns 500000\n";
	const char *args = "--scheme merged --workload create-unlink --cpus 1 "
			   "--flusher-cpu=own --jitter 10";
	char with[512], args2[256];

	char *fixed = virtual_json(base, args);
	snprintf(with, sizeof(with), "%snap_spread_ns 0\n", base);
	char *zero = virtual_json(with, args);
	snprintf(with, sizeof(with), "%snap_spread_ns 50000\n", base);
	char *spread = virtual_json(with, args);
	char *again = virtual_json(with, args);
	snprintf(args2, sizeof(args2), "%s --seed 2", args);
	char *seed2 = virtual_json(with, args2);
	/* the figures: from the run's virtual seconds on (host time is before) */
	const char *f = strstr(fixed, "\"seconds\""), *z = strstr(zero, "\"seconds\"");
	const char *s1 = strstr(spread, "\"seconds\""), *s2 = strstr(again, "\"seconds\"");
	const char *s3 = strstr(seed2, "\"seconds\"");
	ck_assert(f && z && s1 && s2 && s3);
	ck_assert_msg(!strcmp(f, z), "nap_spread_ns 0:\n%s\nwithout:\n%s", z, f);
	ck_assert_msg(strcmp(f, s1) != 0, "a 50 us spread changed nothing");
	ck_assert_msg(!strcmp(s1, s2), "the same seed, two runs:\n%s\n%s", s1, s2);
	ck_assert_msg(strcmp(s1, s3) != 0, "seeds 1 and 2 gave one run");
	double fl0 = json_num(fixed, NULL, "flusher"), fl1 = json_num(spread, NULL, "flusher");
	ck_assert_msg(fl0 > 0 && fl1 > 0.8 * fl0 && fl1 < 1.25 * fl0,
		      "the flusher ran %g s with naps of 500 +- 50 us, %g s with 500 us", fl1, fl0);
	free(fixed);
	free(zero);
	free(spread);
	free(again);
	free(seed2);
}
END_TEST

/*
 * --lines=lists (or --list-lines) follows every line a list operation
 * writes (node, neighbours, head): still deterministic, and it moves more
 * lines than one head per list kind (--lines=heads, --no-lines) does; the
 * JSON names the model; only for --virtual.
 */
START_TEST(virtual_list_lines_are_followed)
{
	const char *fmt = "%s run --virtual --costs %s --scheme merged --workload create-unlink "
			  "--ops 4000 --cpus 4 --seed 5 --json %s";
	int st;
	char *a = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), "--list-lines");
	char *b = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), "--lines=lists");
	char *c = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), "--lines=heads");
	char *d = run_cmd(&st, fmt, bin_path("icache-sim"), test_costs(), "--no-lines");
	drop_host_time(a);
	drop_host_time(b);
	drop_host_time(c);
	drop_host_time(d);
	ck_assert_msg(strcmp(a, b) == 0, "same seed, different results:\n%.600s\n%.600s", a, b);
	ck_assert_msg(strcmp(c, d) == 0, "--no-lines is not --lines=heads:\n%.600s\n%.600s", c, d);
	ck_assert_msg(strstr(a, "\"lines\":\"lists\"") && strstr(c, "\"lines\":\"heads\""),
		      "%.400s\n%.400s", a, c);
	ck_assert_msg(json_num(a, NULL, "line_xfers") > json_num(c, NULL, "line_xfers"),
		      "list lines %.0f transfers, list kinds %.0f", json_num(a, NULL, "line_xfers"),
		      json_num(c, NULL, "line_xfers"));
	free(a);
	free(b);
	free(c);
	free(d);
	sim_bad_usage("run --list-lines --ops 10", "--list-lines is for --virtual runs");
	sim_bad_usage("run --no-lines --ops 10", "--no-lines is for --virtual runs");
	sim_bad_usage("run --virtual --lines=most --ops 10",
		      "--lines: 'most' is not a line model (all, lists, heads)");
}
END_TEST

/*
 * The default model (--lines, --lines=all) follows every shared line the
 * core writes (list links, inode fields, counters, lock words and
 * bookkeeping): deterministic; at 2 CPUs it moves more lines than
 * --lines=lists, which moves more than one head per list kind
 * (--lines=heads), and the lines written inside a hold lengthen it; with
 * one CPU and no flusher nobody else writes anything, so it charges no
 * transfer and predicts exactly what the coarsest model does.
 */
static char *lines_run(const char *scheme, const char *workload, int cpus, const char *flag)
{
	int st;
	char *out = run_cmd(&st,
			    "%s run --virtual --costs %s --scheme %s --workload %s --ops 3000 "
			    "--cpus %d --seed 3 --json %s",
			    bin_path("icache-sim"), test_costs(), scheme, workload, cpus, flag);
	ck_assert_msg(st == 0, "%.500s", out);
	drop_host_time(out);
	return out;
}

START_TEST(virtual_lines_are_followed)
{
	char *a = lines_run("global", "create-unlink", 2, "");
	char *b = lines_run("global", "create-unlink", 2, "--lines");
	char *l = lines_run("global", "create-unlink", 2, "--list-lines");
	char *k = lines_run("global", "create-unlink", 2, "--lines=heads");
	const char *il = "\"class\":\"inode_lock\"";

	ck_assert_msg(strcmp(a, b) == 0, "the default is not --lines:\n%.600s\n%.600s", a, b);
	ck_assert_msg(strstr(a, "\"lines\":\"all\"") && strstr(k, "\"lines\":\"heads\""), "%.400s",
		      a);
	double xa = json_num(a, NULL, "line_xfers"), xl = json_num(l, NULL, "line_xfers"),
	       xk = json_num(k, NULL, "line_xfers");
	ck_assert_msg(xa > xl && xl > xk, "transfers: lines %.0f, list lines %.0f, kinds %.0f", xa,
		      xl, xk);
	ck_assert_msg(json_num(a, il, "hold_ns_total") > json_num(k, il, "hold_ns_total"),
		      "inode_lock held %.0f ns with --lines, %.0f without",
		      json_num(a, il, "hold_ns_total"), json_num(k, il, "hold_ns_total"));
	ck_assert(json_num(a, NULL, "ops_per_s") < json_num(k, NULL, "ops_per_s"));
	free(a);
	free(b);
	free(l);
	free(k);

	/* One CPU, no flusher: nothing moves, nothing changes. */
	a = lines_run("merged", "lookup", 1, "--lines=all");
	k = lines_run("merged", "lookup", 1, "--no-lines");
	ck_assert_msg(json_num(a, NULL, "line_xfers") == 0, "%.400s", a);
	ck_assert_msg(json_num(a, NULL, "seconds") == json_num(k, NULL, "seconds"),
		      "%.400s\n%.400s", a, k);
	free(a);
	free(k);
	sim_bad_usage("run --lines --ops 10", "--lines is for --virtual runs");
}
END_TEST

/*
 * The flusher is a task on one of the box's CPUs (the default), not a CPU
 * of its own: on one virtual CPU the worker and the flusher together are
 * on the CPU exactly as long as the run lasts, never longer, and the
 * worker runs for less than that; with --flusher-cpu=own (the real run's
 * spare core) the worker has its CPU to itself and gets more done.  Both
 * stay deterministic, and the header says where the flusher ran.
 */
START_TEST(virtual_flusher_shares_a_cpu)
{
	char *sh = lines_run("merged", "mixed", 1, "");
	char *own = lines_run("merged", "mixed", 1, "--flusher-cpu=own");
	char *again = lines_run("merged", "mixed", 1, "--flusher-cpu=shared");
	double t = json_num(sh, NULL, "seconds"), w = json_num(sh, "cpu_seconds", "workers"),
	       f = json_num(sh, "cpu_seconds", "flusher");

	ck_assert_msg(strstr(sh, "\"flusher_cpu\":\"shared\"") &&
			      strstr(own, "\"flusher_cpu\":\"own\""),
		      "%.600s", sh);
	ck_assert_msg(strcmp(sh, again) == 0, "--flusher-cpu=shared is not the default");
	ck_assert_msg(f > 0 && w < t, "shared: worker %.6f s, flusher %.6f s in %.6f s", w, f, t);
	ck_assert_msg(w + f <= t * (1 + 1e-6), "one CPU ran %.6f + %.6f s in %.6f s", w, f, t);
	ck_assert_msg(json_num(own, "cpu_seconds", "workers") +
				      json_num(own, "cpu_seconds", "flusher") >
			      json_num(own, NULL, "seconds"),
		      "own: the flusher's CPU did not add to the worker's: %.600s", own);
	ck_assert_msg(json_num(own, NULL, "ops_per_s") > json_num(sh, NULL, "ops_per_s"),
		      "the shared CPU cost the worker nothing");
	free(sh);
	free(own);
	free(again);

	/* Two CPUs and sleeping locks (--locks mutex, and umount's
	 * iprune_sem): a waiter that sleeps gives its CPU to the flusher,
	 * and the run ends with every operation done. */
	sh = lines_run("merged", "mixed", 2, "--locks mutex");
	ck_assert_int_eq((int)json_num(sh, NULL, "ops"), 3000);
	free(sh);

	int st;
	char *hdr = run_cmd(&st, "%s run --virtual --costs %s --workload mixed --cpus 3 --ops 500",
			    bin_path("icache-sim"), test_costs());
	ck_assert_msg(st == 0 && strstr(hdr, "the flusher shares cpu2 with its worker: "), "%.600s",
		      hdr);
	free(hdr);
	sim_bad_usage("run --virtual --flusher-cpu=cpu3 --ops 10", "is not where the flusher runs");
	sim_bad_usage("run --flusher-cpu=own --ops 10", "--flusher-cpu=own is for --virtual runs");
}
END_TEST

/* A real run says how much CPU its threads got, so that a reader (and
 * make bench) can tell a slow program from a busy host. */
START_TEST(real_run_reports_its_cpu_time)
{
	int status;
	char *out = run_cmd(&status,
			    "%s run --locks ticket --workload create-unlink --cpus 1 --ops 3000 "
			    "--quiet --json",
			    bin_path("icache-sim"));
	ck_assert_msg(status == 0, "%.500s", out);
	ck_assert_msg(strstr(out, "\"cpu_seconds\":{\"workers\":"), "%.500s", out);
	ck_assert_msg(json_num(out, "cpu_seconds", "workers") > 0, "%.500s", out);
	ck_assert_msg(json_num(out, "cpu_seconds", "process") > 0, "%.500s", out);
	free(out);
}
END_TEST

/*
 * Under a real-time policy (chrt -f, how docs/bench.md takes its real
 * figures) `mixed` on `merged` used to hang one run in two: the flusher,
 * unpinned and as real-time as the workers, looped over an I_NEW inode
 * whose creator was waiting for the flusher's core, and the watchdog,
 * starved as well, never reported it.  Each run must now end, clean, well
 * within the watchdog's limit (a hang would be its report, status 1), on
 * merged and on global, whose spinners there keep their cores (below):
 * a waiter that cannot get on still sleeps after its spins.
 * Skipped where the real-time policy is not allowed.
 */
START_TEST(real_time_runs_finish)
{
	int status;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The sanitizer's own threads inherit the real-time policy too, and
	 * slow every CPU several times over: not the schedule under test. */
	fprintf(stderr, "vsmp: real-time runs are not checked under a sanitizer, skipped\n");
	return;
#endif
	char *out = run_cmd(&status, "chrt -f 5 true 2>&1");
	free(out);
	if (status != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "vsmp: chrt -f not allowed or one core, skipped\n");
		return;
	}
	for (int i = 0; i < 4; i++) {
		out = run_cmd(
			&status,
			"chrt -f 5 %s run --locks ticket --scheme %s --workload mixed "
			"--cpus 2 --duration 300ms --watchdog 1 --seed %d --quiet --json 2>&1",
			bin_path("icache-sim"), i % 2 ? "global" : "merged", i + 1);
		ck_assert_msg(status == 0 && strstr(out, "\"ops_per_s\""), "run %d: %.900s", i,
			      out);
		free(out);
	}
}
END_TEST

static void *ask_spin_yields(void *p)
{
	*(bool *)p = sim_spin_yields();
	return NULL;
}

/*
 * A real-time spinner keeps its core: a thread of the host's ordinary
 * scheduler gives it away now and then while it spins (its lock's holder
 * may need it), a SCHED_FIFO one does not (no thread of its priority
 * preempts its holder, and a yield would hand its core, and its place in
 * the lock's queue, to the run's flusher).  Skipped where SCHED_FIFO is
 * not allowed.
 */
START_TEST(real_time_spinners_keep_their_core)
{
	pthread_attr_t attr;
	struct sched_param sp = { .sched_priority = 5 };
	pthread_t t;
	bool yields = true;

	ck_assert(sim_spin_yields() == !thread_is_real_time());
	ck_assert(pthread_attr_init(&attr) == 0);
	ck_assert(pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0);
	ck_assert(pthread_attr_setschedpolicy(&attr, SCHED_FIFO) == 0);
	ck_assert(pthread_attr_setschedparam(&attr, &sp) == 0);
	if (pthread_create(&t, &attr, ask_spin_yields, &yields) != 0) {
		fprintf(stderr, "vsmp: SCHED_FIFO not allowed, skipped\n");
		pthread_attr_destroy(&attr);
		return;
	}
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
	ck_assert_msg(!yields, "a SCHED_FIFO spinner gives its core away");
}
END_TEST

/* calibrate measures, writes a file, and run --virtual reads it back. */
START_TEST(calibrate_writes_what_virtual_reads)
{
	char path[] = "/tmp/icache-vsmp-cal.XXXXXX";
	scratch_file(path, NULL);
	int status;
	/* calibrate runs every scheme for real, inode-scale-v4 and its known
	 * race among them: under ThreadSanitizer that race may end it with
	 * 66 (the other schemes' races are test_core's and test_stress's). */
	char *out = run_cmd(&status, "%s %s calibrate --quick -o %s 2>&1", tsan_racy_env(true),
			    bin_path("icache-sim"), path);
#ifdef __SANITIZE_THREAD__
	if (status == 66)
		status = 0;
#endif
	ck_assert_msg(status == 0, "%s", out);
	ck_assert_msg(strstr(out, "cache-line hand-over") && strstr(out, "each further line") &&
			      strstr(out, "a line another wrote") &&
			      strstr(out, "flusher's usleep(500)") && strstr(out, "of it, held") &&
			      strstr(out, "step (ns)      global") && strstr(out, "written to"),
		      "%s", out);
	free(out);
	struct cost_model m;
	char err[256];
	ck_assert_msg(cost_model_load(path, &m, err, sizeof(err)), "%s", err);
	ck_assert(m.xfer_ns > 0 && m.wake_ns > 0 && m.wake_call_ns > 0 && m.lock_ns > 0 &&
		  m.contended_ns > 0 && m.xfer_more_ns >= 0 && m.line_ns > 0);
	ck_assert_msg(m.nap_ns >= 500000, "usleep(500) lasted %.0f ns", m.nap_ns);
	/* lock_stat's hold of an empty section: part of the lock's cost */
	ck_assert_msg(m.lock_hold_ns > 0 && m.lock_hold_ns < m.lock_ns, "held %.1f of %.1f ns",
		      m.lock_hold_ns, m.lock_ns);
	ck_assert(cost_step_ns(&m, "create-unlink", NULL) > 0);
	/* Each scheme has its own step, and merged's stands for any other. */
	for (int k = 0; all_schemes[k]; k++) {
		double own = -1;
		for (int i = 0; i < m.nsteps; i++)
			if (!strcmp(m.step[i].workload, "create-unlink") &&
			    !strcmp(m.step[i].scheme, all_schemes[k]->name))
				own = m.step[i].ns;
		ck_assert_msg(own > 0, "no create-unlink step for %s", all_schemes[k]->name);
	}
	ck_assert(cost_step_ns(&m, "create-unlink", NULL) ==
		  cost_step_ns(&m, "create-unlink", "merged"));
	ck_assert_msg(strstr(m.source, "cores, 20"), "%s", m.source);
	out = run_cmd(&status,
		      "%s run --virtual --costs %s --cpus 4 --ops 2000 --workload create-unlink",
		      bin_path("icache-sim"), path);
	ck_assert_msg(status == 0 && strstr(out, "virtual time: costs measured on "), "%s", out);
	free(out);
	unlink(path);
}
END_TEST

/* A cost file with the given hand-over, for calibrate --check. */
static void handover_file(char *path, double xfer_ns)
{
	char text[256];
	snprintf(text, sizeof(text),
		 "source test\nxfer_ns %.3f\nwake_ns 2\nwake_call_ns 3\nstep_default_ns 4\n",
		 xfer_ns);
	scratch_file(path, text);
}

/* The hand-over calibrate --check printed. */
static double checked_handover(const char *out)
{
	const char *p = strstr(out, "hand-over ");
	ck_assert_msg(p, "%s", out);
	return strtod(p + strlen("hand-over "), NULL);
}

/*
 * calibrate --check: a file whose hand-over is far from this host's (a
 * millisecond, a picosecond) says the CPUs have moved, exit 1; one with
 * the hand-over just measured says the same placement, exit 0, unless
 * the host really moved them in between, which the figure it prints
 * shows.  A file it cannot read is named, exit 2.
 */
START_TEST(calibrate_checks_the_placement)
{
	const double far[] = { 1e6, 0.001 };
	char path[] = "/tmp/icache-vsmp-chk.XXXXXX";
	int status;
	double measured = 0;

	for (int i = 0; i < 2; i++) {
		strcpy(path, "/tmp/icache-vsmp-chk.XXXXXX");
		handover_file(path, far[i]);
		char *out = run_cmd(&status, "%s calibrate --check %s --quick 2>&1",
				    bin_path("icache-sim"), path);
		ck_assert_msg(status == 1 && strstr(out, "the CPUs have moved") &&
				      strstr(out, path),
			      "exit %d: %s", status, out);
		measured = checked_handover(out);
		ck_assert_msg(measured > 0, "%s", out);
		free(out);
		unlink(path);
	}
	strcpy(path, "/tmp/icache-vsmp-chk.XXXXXX");
	handover_file(path, measured);
	char *out = run_cmd(&status, "%s calibrate --check %s --quick 2>&1", bin_path("icache-sim"),
			    path);
	double now = checked_handover(out);
	bool moved = now > 3 * measured || measured > 3 * now;
	ck_assert_msg(status == (moved ? 1 : 0), "exit %d after %.1f ns: %s", status, measured,
		      out);
	ck_assert_msg(strstr(out, moved ? "the CPUs have moved" : "the same placement"), "%s", out);
	free(out);
	unlink(path);

	out = run_cmd(&status, "%s calibrate --check /nonexistent/costs.txt 2>&1",
		      bin_path("icache-sim"));
	/* one line, naming the file */
	ck_assert_msg(status == 2 && strstr(out, "/nonexistent/costs.txt") &&
			      strchr(out, '\n') == out + strlen(out) - 1,
		      "exit %d: %s", status, out);
	free(out);
}
END_TEST

/* record --virtual: a real LTTng trace of a 16-CPU pile-up, read back by
 * the viewer, whose lock_stat matches the run's (virtual wait times). */
START_TEST(record_virtual_16_cpus)
{
	char dir[] = "/tmp/icache-vsmp-rec.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	int status;
	char *out = run_cmd(&status,
			    "%s record --virtual --costs %s --cpus 16 --scheme global "
			    "--workload create-unlink --ops 500 -o %s/t 2>&1",
			    bin_path("icache-sim"), test_costs(), dir);
	ck_assert_msg(status == 0, "record --virtual: exit %d\n%.1500s", status, out);
	ck_assert_msg(strstr(out, "16 virtual CPUs") && strstr(out, "discarded events: 0"),
		      "%.1500s", out);
	const char *p = strstr(out, "\ninode_lock ");
	ck_assert_ptr_nonnull(p);
	long acq = 0, con = 0;
	ck_assert_int_eq(sscanf(p + 1, "inode_lock %ld %ld", &acq, &con), 2);
	ck_assert_msg(con > acq / 2, "16 CPUs on one lock, only %ld of %ld contended", con, acq);
	free(out);
	out = run_cmd(&status, "%s --summary %s/t 2>&1", bin_path("icache-view"), dir);
	ck_assert_msg(status == 0 && strstr(out, "complete   yes"), "%.1500s", out);
	char want[64];
	snprintf(want, sizeof(want), "%ld", con);
	ck_assert_msg(strstr(out, want), "viewer's contentions differ from the run's %ld:\n%.1500s",
		      con, out);
	free(out);
	free(run_cmd(&status, "rm -rf %s", dir));
}
END_TEST

/*
 * record --virtual stamps events with virtual time (the clock plugin,
 * sim/engine/vclock.h).  virtual_stamps records a run and returns its
 * events from virtual_time on, one per line: nanoseconds since
 * virtual_time, then the event without its thread id (a new process each
 * time); *span is the stamp of the last op_end, *vsec the run's own figure.
 */
static char *virtual_stamps(const char *dir, const char *name, double *vsec, uint64_t *span)
{
	int status;
	char *out = run_cmd(&status,
			    "%s record --virtual --costs %s --cpus 8 --scheme merged "
			    "--workload create-unlink --ops 600 -o %s/%s 2>&1",
			    bin_path("icache-sim"), test_costs(), dir, name);
	ck_assert_msg(status == 0, "record --virtual: exit %d\n%.1500s", status, out);
	ck_assert_msg(!strstr(out, "did not load"), "%.1500s", out);
	const char *p = strstr(out, " ops in ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, " ops in %lf virtual s", vsec), 1);
	free(out);
	out = run_cmd(&status,
		      "babeltrace2 --clock-cycles %s/%s | sed -n '/icache:virtual_time/,$p' | "
		      "sed 's/{ vtid = [0-9]* }, //; s/{ cpu_id = [0-9]* }, //; s/ (+[0-9?.]*)//'",
		      dir, name);
	ck_assert_msg(status == 0 && *out, "babeltrace2 on %s/%s: %.500s", dir, name, out);
	size_t cap = strlen(out) + 1, len = 0;
	char *norm = malloc(cap);
	ck_assert_ptr_nonnull(norm);
	unsigned long long base = 0, t;
	*span = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *rest;
		ck_assert_msg(line[0] == '[' && (t = strtoull(line + 1, &rest, 10)) && *rest == ']',
			      "not a babeltrace2 line: %s", line);
		if (!base)
			base = t;
		if (strstr(rest, "icache:op_end"))
			*span = t - base;
		/* t - base <= t: the line cannot grow */
		len += (size_t)snprintf(norm + len, cap - len, "%llu%s\n", t - base, rest + 1);
	}
	free(out);
	return norm;
}

START_TEST(record_virtual_stamps_virtual_time)
{
	char dir[] = "/tmp/icache-vsmp-clock.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	double vsec1, vsec2;
	uint64_t span1, span2;
	char *a = virtual_stamps(dir, "a", &vsec1, &span1);
	char *b = virtual_stamps(dir, "b", &vsec2, &span2);

	/* The run's last operation ends at most at its virtual end, and the
	 * workers (not the flusher's idle sleeps) take nearly all of it. */
	uint64_t vns = (uint64_t)(vsec1 * 1e9 + 0.5);
	ck_assert_msg(span1 <= vns + 1000 && span1 >= vns / 2,
		      "trace spans %" PRIu64 " ns, the run says %" PRIu64 " virtual ns", span1,
		      vns);
	ck_assert_msg(vsec1 == vsec2 && span1 == span2, "not deterministic");
	ck_assert_msg(strcmp(a, b) == 0, "two recordings of one seed differ in their stamps");

	int status;
	char *out = run_cmd(&status, "%s --summary %s/a 2>&1", bin_path("icache-view"), dir);
	ck_assert_msg(status == 0 && strstr(out, "time       virtual"), "%.1500s", out);
	free(out);
	out = run_cmd(&status, "%s --summary --json %s/a 2>&1", bin_path("icache-view"), dir);
	ck_assert_msg(status == 0 && strstr(out, "\"time\":\"virtual\""), "%.800s", out);
	free(out);
	free(a);
	free(b);
	free(run_cmd(&status, "rm -rf %s", dir));
}
END_TEST

/* Lesson 10's tables, ratios and per-class figures are compared with
 * fresh runs in tests/test_lessons.c (lesson10_figures_are_real). */

Suite *vsmp_suite(void)
{
	Suite *s = suite_create("vsmp");
	TCase *tc = suite_case(s, "kinds", 120, NULL);
	tcase_add_loop_test(tc, each_kind_excludes_and_counts, 0, NR_LOCK_KINDS);
	tcase_add_loop_test(tc, ticket_and_mcs_serve_in_arrival_order, 0, 2);
	tcase_add_loop_test(tc, every_kind_runs_every_scheme_clean, 0, NKINDS);
	tcase_add_tests(tc, (const TTest *[]){ counters_agree_across_kinds,
					       default_kind_is_said_in_the_header, NULL });
	suite_case(s, "virtual", 120,
		   (const TTest *[]){ virtual_runs_every_scheme_clean,
				      virtual_is_deterministic,
				      virtual_jitter_is_seeded,
				      virtual_catches_the_v4_race,
				      virtual_mcs_removes_the_ticket_collapse,
				      cost_files_are_checked,
				      virtual_charges_each_lock_its_cost,
				      virtual_charges_each_wait_its_cost,
				      virtual_lock_code_splits_at_the_hold,
				      virtual_list_lines_are_followed,
				      virtual_lines_are_followed,
				      virtual_flusher_shares_a_cpu,
				      real_run_reports_its_cpu_time,
				      real_time_runs_finish,
				      real_time_spinners_keep_their_core,
				      calibrate_writes_what_virtual_reads,
				      calibrate_checks_the_placement,
				      virtual_stores_overlap,
				      virtual_line_cost_is_its_own,
				      virtual_flusher_naps_as_long_as_measured,
				      virtual_naps_vary_as_measured,
				      record_virtual_16_cpus,
				      record_virtual_stamps_virtual_time,
				      NULL });
	return s;
}

int main(void)
{
	return run_suite(vsmp_suite());
}
