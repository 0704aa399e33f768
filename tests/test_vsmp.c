/*
 * test_vsmp.c - the lock kinds (--locks ticket|mcs|mutex) and the
 * virtual-time mode (run --virtual, calibrate).
 *
 * Lock kinds: each one excludes, ticket and MCS hand over in arrival
 * order, lock_stat counts the same things under each, and every scheme
 * runs clean under each.  Virtual mode: see its own section below.
 */
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

/* ---- the kinds in whole runs ------------------------------------------------ */

START_TEST(every_kind_runs_every_scheme_clean)
{
	const char *kind = kinds[_i];
	for (int s = 0; all_schemes[s]; s++) {
		const char *name = all_schemes[s]->name;
		int status;
		char *out = run_cmd(&status,
				    "%s run --locks %s --scheme %s --workload mixed --ops 1500 "
				    "--cpus 2 --quiet --json --watchdog 30",
				    bin_path("icache-sim"), kind, name);
		ck_assert_msg(strstr(out, "\"locks\":\"") != NULL, "%s", out);
		char want[64];
		snprintf(want, sizeof(want), "\"locks\":\"%s\"", kind);
		ck_assert_msg(strstr(out, want), "%s/%s: %.400s", kind, name, out);
		ck_assert_int_eq((int)json_num(out, NULL, "ops"), 1500);
		ck_assert_msg(strstr(out, "\"ok\":true"), "%s/%s invariants: %.600s", kind, name,
			      out);
		if (!all_schemes[s]->known_racy) {
			ck_assert_msg(status == 0 && json_num(out, NULL, "violations_total") == 0,
				      "%s under --locks %s: exit %d\n%.800s", name, kind, status,
				      out);
		}
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

Suite *vsmp_suite(void)
{
	Suite *s = suite_create("vsmp");
	TCase *tc = tcase_create("kinds");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, each_kind_excludes_and_counts, 0, NR_LOCK_KINDS);
	tcase_add_loop_test(tc, ticket_and_mcs_serve_in_arrival_order, 0, 2);
	tcase_add_loop_test(tc, every_kind_runs_every_scheme_clean, 0, NKINDS);
	tcase_add_test(tc, counters_agree_across_kinds);
	tcase_add_test(tc, default_kind_is_said_in_the_header);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(vsmp_suite());
}
