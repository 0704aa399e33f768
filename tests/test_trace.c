/*
 * test_trace.c - the real tracer, end to end: `icache-sim record` through a
 * real session daemon, the trace read back with libbabeltrace2 and checked
 * against what the simulator counted itself in the same run.
 *
 * One recording (merged, 2 CPUs, mixed, 20 000 ops, --inodes) is made once,
 * in an unchecked fixture, and shared by the cross-checks:
 *   - every lock_acquired has its lock_release, same lock, same CPU, and no
 *     lock ever has two holders (walking in timestamp order);
 *   - per lock class, lock_acquired / lock_contended events equal the JSON's
 *     acquisitions / contentions;
 *   - the inodes alive at the end, rebuilt from inode_alloc / inode_free /
 *     inode_state / inode_ref, equal the JSON's "inodes" (state and count);
 *   - `babeltrace2 DIR | grep -c icache:lock_acquired` equals the JSON sum.
 * Then: recording with no daemon at all (record starts one and stops it),
 * with one that already runs, as an unprivileged user (a private daemon),
 * and bad input.  The daemon tests run in a private mount namespace with a
 * tmpfs on /var/run/lttng, so the machine's own root daemon stays unseen
 * and untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>

#include "sim/cmd/trace_count.h"
#include "sim/core/scheme.h"
#include "tracepoints/icache_names.h"
#include "tests/testutil.h"

#define OPS 10000

static char trace_dir[256];
static char *rec_json; /* record --json --inodes of that run */
static int rec_status;

/* ---- small helpers ------------------------------------------------------ */

#ifndef ICACHE_TRACE
#define ICACHE_TRACE 1
#endif

static bool is_root(void)
{
	return geteuid() == 0;
}

/* Root, and allowed to make a private mount namespace (not in every container). */
static bool can_unshare(void)
{
	int st;
	if (!is_root())
		return false;
	free(run_cmd(&st, "unshare -m sh -c 'mount -t tmpfs none /var/run/lttng' 2>/dev/null"));
	return st == 0;
}

static void make_tmpdir(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/icache-test-%s-XXXXXX", tag);
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void rm_rf(const char *dir)
{
	int st;
	free(run_cmd(&st, "rm -rf '%s'", dir));
}

/* An unsigned member of the JSON object that starts with `"ino":ino,`... */
static uint64_t json_u64(const char *p, const char *key)
{
	double v = json_num(p, NULL, key);
	return v < 0 ? UINT64_MAX : (uint64_t)v;
}

static int64_t field(const bt_field *payload, const char *name)
{
	const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(payload, name);
	if (!f)
		return INT64_MIN;
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(f);
	return (int64_t)bt_field_integer_unsigned_get_value(f);
}

/* ---- an open-addressing table keyed by two integers ------------------- */

struct slot {
	uint64_t a, b;
	bool used;
	/* A lock: its holders (one: an i_lock is keyed by its life, so two
	 * lives of one number are two locks, EVENTS.md section 4). */
	int64_t holder[2];
	/* An inode number: its open lives (0..2), the newest one's state. */
	int open;
	int64_t state, count;
};

struct table {
	struct slot *s;
	size_t mask;
};

static void table_init(struct table *t, unsigned bits)
{
	t->s = calloc((size_t)1 << bits, sizeof(*t->s));
	t->mask = ((size_t)1 << bits) - 1;
}

static struct slot *table_get(struct table *t, uint64_t a, uint64_t b)
{
	size_t h = (size_t)((a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full));
	for (size_t i = 0;; i++) {
		struct slot *s = &t->s[(h + i) & t->mask];
		if (!s->used) {
			ck_assert_msg(i < t->mask / 2, "test table full");
			s->used = true;
			s->a = a;
			s->b = b;
			s->holder[0] = s->holder[1] = -1;
			return s;
		}
		if (s->a == a && s->b == b)
			return s;
	}
}

/* ---- walking the trace ------------------------------------------------- */

enum ev {
	E_acq,
	E_cont,
	E_acqd,
	E_rel,
	E_try,
	E_state,
	E_ref,
	E_alloc,
	E_free,
	E_run_begin,
	E_run_end,
	E_other,
	NR_EV
};

static const char *const ev_names[] = {
	"icache:lock_acquire", "icache:lock_contended", "icache:lock_acquired",
	"icache:lock_release", "icache:lock_trylock",   "icache:inode_state",
	"icache:inode_ref",    "icache:inode_alloc",    "icache:inode_free",
	"icache:run_begin",    "icache:run_end",
};

#define NCLS 32

struct walk {
	int kind_of_id[256]; /* event class id -> enum ev + 1 */
	uint64_t n, first_kind, last_kind;
	uint64_t acquired[NCLS], contended[NCLS], try_failed[NCLS];
	struct table locks;  /* (cls | life << 8, inst) -> holders */
	struct table inodes; /* (ino, 0) -> lives, state, count */
	uint64_t overlaps, bad_releases, held_at_end, dual_lives;
	uint64_t ambiguous; /* i_lock acquisitions while two lives are open */
	uint64_t lifeless;  /* i_lock events without a life id */
	uint64_t last_ts;
	bool ts_backwards;
	char first_error[256];
};

static int kind_of(struct walk *w, const bt_event_class *ec)
{
	uint64_t id = bt_event_class_get_id(ec);
	if (id >= 256)
		return E_other;
	if (!w->kind_of_id[id]) {
		const char *name = bt_event_class_get_name(ec);
		int k = E_other;
		for (int i = 0; i < E_other; i++)
			if (name && strcmp(name, ev_names[i]) == 0)
				k = i;
		w->kind_of_id[id] = k + 1;
	}
	return w->kind_of_id[id] - 1;
}

static void note(struct walk *w, const char *fmt, ...)
{
	if (w->first_error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->first_error, sizeof(w->first_error), fmt, ap);
	va_end(ap);
}

/* Does inode number inst have two open lives (the evict window)? */
static bool two_lives(struct walk *w, int64_t cls, uint64_t inst)
{
	return cls == 1 /* LC_i_lock */ && table_get(&w->inodes, inst, 0)->open > 1;
}

/* One holder per lock, always: the lock is (cls, inst, life). */
static void on_lock(struct walk *w, int k, const bt_field *p)
{
	int64_t cpu = field(p, "cpu"), cls = field(p, "cls"), life = field(p, "life");
	uint64_t inst = (uint64_t)field(p, "inst");

	ck_assert(cls >= 0 && cls < NCLS);
	if (cls == 1 && life <= 0)
		w->lifeless++;
	if (k == E_cont) {
		w->contended[cls]++;
		return;
	}
	if (k == E_try) {
		if (field(p, "success") == 0)
			w->try_failed[cls]++;
		return;
	}
	struct slot *s = table_get(&w->locks, (uint64_t)cls | (uint64_t)life << 8, inst);
	int held = (s->holder[0] >= 0) + (s->holder[1] >= 0);
	if (k == E_acqd) {
		w->acquired[cls]++;
		if (two_lives(w, cls, inst))
			w->ambiguous++;
		if (held >= 1) {
			w->overlaps++;
			note(w,
			     "lock cls %" PRId64 " inst %" PRIu64 " acquired by cpu %" PRId64
			     " while cpu %" PRId64 " holds it",
			     cls, inst, cpu, s->holder[0] >= 0 ? s->holder[0] : s->holder[1]);
		}
		s->holder[s->holder[0] >= 0 ? 1 : 0] = cpu;
	} else if (k == E_rel) {
		int i = s->holder[0] == cpu ? 0 : s->holder[1] == cpu ? 1 : -1;
		if (i < 0) {
			w->bad_releases++;
			note(w,
			     "lock cls %" PRId64 " inst %" PRIu64 " released by cpu %" PRId64
			     ", which does not hold it",
			     cls, inst, cpu);
		} else {
			s->holder[i] = -1;
		}
	}
}

/*
 * Lives: inode_alloc opens one, inode_free closes one.  With two open (the
 * old one is past remove_inode_hash and only takes its i_lock once more
 * before inode_free), state and ref events belong to the new one.
 */
static void on_inode(struct walk *w, int k, const bt_field *p)
{
	struct slot *s = table_get(&w->inodes, (uint64_t)field(p, "ino"), 0);

	switch (k) {
	case E_alloc:
		if (s->open > 0)
			w->dual_lives++;
		s->open = s->open < 2 ? s->open + 1 : 2;
		s->state = 0;
		s->count = 1;
		break;
	case E_free:
		if (s->open > 0)
			s->open--;
		break;
	case E_state:
		/* old is read atomically with the write: XOR telescopes. */
		s->state ^= field(p, "old_state") ^ field(p, "new_state");
		break;
	case E_ref:
		s->count += field(p, "new_count") - field(p, "old_count");
		break;
	}
}

static int on_event(const bt_message *msg, void *user)
{
	struct walk *w = user;
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	int k = kind_of(w, bt_event_borrow_class_const(ev));
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	uint64_t ts = bt_clock_snapshot_get_value(
		bt_message_event_borrow_default_clock_snapshot_const(msg));

	if (ts < w->last_ts)
		w->ts_backwards = true;
	w->last_ts = ts;
	if (w->n++ == 0)
		w->first_kind = (uint64_t)k;
	w->last_kind = (uint64_t)k;
	if (k <= E_try)
		on_lock(w, k, p);
	else if (k <= E_free)
		on_inode(w, k, p);
	return 0;
}

static int walk_status = -1;
static char walk_err[512];

static void walk_dir(const char *dir, struct walk *w, struct trace_counts *c)
{
	memset(w, 0, sizeof(*w));
	table_init(&w->locks, 20);
	table_init(&w->inodes, 20);
	walk_status = trace_read(dir, on_event, w, c, walk_err, sizeof(walk_err));
	for (size_t i = 0; i <= w->locks.mask; i++)
		if (w->locks.s[i].used)
			w->held_at_end +=
				(w->locks.s[i].holder[0] >= 0) + (w->locks.s[i].holder[1] >= 0);
}

/* The walk of the trace in dir, made for one test; give it to walk_free(). */
static struct walk *walk_new(const char *dir, struct trace_counts *c)
{
	struct walk *w = calloc(1, sizeof(*w));
	ck_assert_ptr_nonnull(w);
	walk_dir(dir, w, c);
	ck_assert_msg(walk_status == 0, "trace_read: %s", walk_err);
	return w;
}

static void walk_free(struct walk *w)
{
	free(w->locks.s);
	free(w->inodes.s);
	free(w);
}

/* ---- the shared recording ---------------------------------------------- */

/* The walk of that trace, made once in the fixture (tests run forked). */
static struct walk the_walk;
static struct trace_counts the_counts;

static void record_once(void)
{
	char dir[200];

	make_tmpdir(dir, sizeof(dir), "trace");
	snprintf(trace_dir, sizeof(trace_dir), "%s/t", dir);
	/*
	 * TRACE_TEST_RUN="--cpus all --duration 3s" checks the issue's
	 * acceptance run instead (slow: a minute of reading); default 10 000
	 * ops on 2 CPUs.
	 */
	const char *run = getenv("TRACE_TEST_RUN");
	char dflt[64];
	snprintf(dflt, sizeof(dflt), "--cpus 2 --ops %d", OPS);
	rec_json = run_cmd(&rec_status,
			   "%s record --scheme merged --workload mixed %s"
			   " --inodes --json -o %s",
			   bin_path("icache-sim"), run && *run ? run : dflt, trace_dir);
	if (rec_status == 0)
		walk_dir(trace_dir, &the_walk, &the_counts);
	/* One line of figures for the log: what a trace of this run holds. */
	fprintf(stderr,
		"test_trace: %" PRIu64 " events (%.1f per op), %" PRIu64 " discarded, %" PRIu64
		" overlapping holders, %" PRIu64 " inode numbers with two lives at once\n",
		the_counts.events, (double)the_counts.events / json_num(rec_json, NULL, "ops"),
		the_counts.discarded_events, the_walk.overlaps, the_walk.dual_lives);
}

static void drop_recording(void)
{
	char *slash = strrchr(trace_dir, '/');
	if (slash) {
		*slash = 0;
		rm_rf(trace_dir);
	}
	free(rec_json);
}

static void need_recording(void)
{
	const char *why = strstr(rec_json, "\"violations\":[");
	ck_assert_msg(rec_status == 0, "record exited %d: %.600s", rec_status,
		      why ? why : rec_json);
	ck_assert_msg(json_num(rec_json, NULL, "discarded_events") == 0,
		      "record discarded events: %.300s", rec_json);
	ck_assert_msg(walk_status == 0, "trace_read: %s", walk_err);
}

static uint64_t json_class(const char *cls, const char *key)
{
	char after[64];
	snprintf(after, sizeof(after), "\"class\":\"%s\"", cls);
	double v = json_num(rec_json, after, key);
	return v < 0 ? 0 : (uint64_t)v;
}

/* Every lock class, from the one list the simulator and the trace share. */
#define X(n) #n,
static const char *const class_names[] = { ICACHE_LOCK_CLASSES(X) };
#undef X
#define NCLASSES (sizeof(class_names) / sizeof(class_names[0]))

/* The default ring is cut into packets of at most 4 MiB (a stream cut
 * mid-packet is read up to its last whole packet), and still holds at
 * least 32 MiB per CPU. */
START_TEST(default_ring_in_small_packets)
{
	need_recording();
	double sub = json_num(rec_json, NULL, "subbuf_size");
	double n = json_num(rec_json, NULL, "num_subbuf");
	ck_assert_msg(sub > 0 && sub <= 4 * 1048576, "sub-buffers of %.0f bytes", sub);
	ck_assert_msg(sub * n >= 32 * 1048576, "a ring of %.0f x %.0f bytes", n, sub);
}
END_TEST

START_TEST(record_counts_match_trace)
{
	struct walk *w = &the_walk;
	struct trace_counts c = the_counts;

	need_recording();
	ck_assert_uint_eq(c.events, (uint64_t)json_num(rec_json, NULL, "events"));
	ck_assert_uint_eq(c.discarded_events, 0);
	ck_assert_uint_eq(c.discard_msgs, 0);
	ck_assert_msg(w->first_kind == E_run_begin, "first event is not run_begin");
	ck_assert_msg(w->last_kind == E_run_end, "last event is not run_end");
	ck_assert_msg(!w->ts_backwards, "timestamps go backwards");
	uint64_t total = 0;
	for (size_t k = 0; k < NCLASSES; k++) {
		ck_assert_msg(w->acquired[k] == json_class(class_names[k], "acquisitions"),
			      "%s: %" PRIu64 " lock_acquired events, JSON says %" PRIu64,
			      class_names[k], w->acquired[k],
			      json_class(class_names[k], "acquisitions"));
		ck_assert_msg(w->contended[k] == json_class(class_names[k], "contentions"),
			      "%s: %" PRIu64 " lock_contended events, JSON says %" PRIu64,
			      class_names[k], w->contended[k],
			      json_class(class_names[k], "contentions"));
		ck_assert_msg(w->try_failed[k] == json_class(class_names[k], "trylock_failures"),
			      "%s: %" PRIu64 " failed lock_trylock events, JSON says %" PRIu64,
			      class_names[k], w->try_failed[k],
			      json_class(class_names[k], "trylock_failures"));
		total += w->acquired[k];
	}
	ck_assert_uint_gt(total, (uint64_t)json_num(rec_json, NULL, "ops"));
	/* Some contention happened, or the check proves little. */
	uint64_t cont = 0;
	for (size_t k = 0; k < NCLASSES; k++)
		cont += w->contended[k];
	ck_assert_uint_gt(cont, 0);
}
END_TEST

START_TEST(locks_pair_up_and_never_overlap)
{
	struct walk *w = &the_walk;

	need_recording();
	ck_assert_msg(w->overlaps == 0, "%" PRIu64 " overlapping holders: %s", w->overlaps,
		      w->first_error);
	ck_assert_msg(w->bad_releases == 0, "%" PRIu64 " bad releases: %s", w->bad_releases,
		      w->first_error);
	ck_assert_msg(w->held_at_end == 0, "%" PRIu64 " locks still held at the end",
		      w->held_at_end);
}
END_TEST

START_TEST(final_inodes_match_json)
{
	struct walk *w = &the_walk;
	size_t n = 0, alive = 0;

	need_recording();
	const char *p = strstr(rec_json, "\"inodes\":[");
	ck_assert_ptr_nonnull(p);
	while ((p = strstr(p, "{\"ino\":")) != NULL) {
		uint64_t ino = json_u64(p, "ino");
		uint64_t state = json_u64(p, "state");
		int64_t count = (int64_t)json_num(p, NULL, "count");
		struct slot *s = table_get(&w->inodes, ino, 0);
		ck_assert_msg(s->open > 0,
			      "inode %" PRIu64 " is in the JSON but not alive in the trace", ino);
		ck_assert_msg((uint64_t)s->state == state,
			      "inode %" PRIu64 ": state 0x%" PRIx64 " from the trace, 0x%" PRIx64
			      " in the JSON",
			      ino, (uint64_t)s->state, state);
		ck_assert_msg(s->count == count,
			      "inode %" PRIu64 ": count %" PRId64 " from the trace, %" PRId64
			      " in the JSON",
			      ino, s->count, count);
		n++;
		p++;
	}
	for (size_t i = 0; i <= w->inodes.mask; i++)
		if (w->inodes.s[i].used && w->inodes.s[i].open > 0)
			alive++;
	ck_assert_uint_gt(n, 0);
	ck_assert_msg(alive == n, "%zu inodes alive in the trace, %zu in the JSON", alive, n);
}
END_TEST

START_TEST(babeltrace2_cli_counts_acquisitions)
{
	int st;
	uint64_t sum = 0;

	need_recording();
	for (size_t k = 0; k < NCLASSES; k++)
		sum += json_class(class_names[k], "acquisitions");
	char *out = run_cmd(&st, "babeltrace2 %s 2>/dev/null | grep -c icache:lock_acquired",
			    trace_dir);
	ck_assert_uint_eq(strtoull(out, NULL, 10), sum);
	free(out);
	/* And it prints readable lines with the enum labels. */
	out = run_cmd(&st, "babeltrace2 %s 2>&1 | grep -m1 icache:lock_acquired", trace_dir);
	ck_assert_msg(strstr(out, "cls = ( \"") && strstr(out, "cpu_id = ") &&
			      strstr(out, "vtid = "),
		      "unexpected text: %s", out);
	free(out);
}
END_TEST

/* ---- lock_stat: the simulator and the viewer, column by column ---------- */

static const char *const stat_cols[] = {
	"acquisitions",  "contentions", "bounces",       "trylock_failures",
	"wait_ns_total", "wait_ns_max", "hold_ns_total", "hold_ns_max",
};

/* The number after "key": inside the {"class":"cls",...} object of json. */
static double class_col(const char *json, const char *cls, const char *key)
{
	char after[64];
	snprintf(after, sizeof(after), "{\"class\":\"%s\"", cls);
	const char *obj = strstr(json, after);
	if (!obj)
		return -1;
	const char *end = strchr(obj, '}');
	double v = json_num(obj, NULL, key);
	const char *at = strstr(obj, key);
	return at && end && at < end ? v : -1;
}

/*
 * Every column agrees exactly.  Wait and hold times agree to the
 * nanosecond because both sides use the same figure: the simulator passes
 * the wait_ns / hold_ns it adds to its totals into the lock_acquired /
 * lock_release event.  i_lock bounces agree even while an inode number has
 * two open lives, because each lock event names its life (EVENTS.md
 * section 4) and the viewer counts per life.
 */
static void compare_class(const char *sim, const char *view, const char *cls, const char *scheme)
{
	for (size_t k = 0; k < sizeof(stat_cols) / sizeof(stat_cols[0]); k++) {
		double a = class_col(sim, cls, stat_cols[k]);
		double b = class_col(view, cls, stat_cols[k]);
		ck_assert_msg(a >= 0, "%s: %s.%s missing from the simulator's JSON", scheme, cls,
			      stat_cols[k]);
		ck_assert_msg(a == b, "%s: %s %s: simulator %.0f, viewer %.0f", scheme, cls,
			      stat_cols[k], a, b);
	}
}

/*
 * A known_racy scheme under ThreadSanitizer runs to the end (see
 * tsan_racy_env in testutil.h); this test is about the viewer agreeing
 * with the simulator, so its exit 66, TSan's report of that race, counts
 * as a finished run.
 */
static int racy_status(const struct scheme *sch, int st)
{
#ifdef __SANITIZE_THREAD__
	if (sch->known_racy && st == 66) {
		fprintf(stderr,
			"test_trace: %s: ThreadSanitizer reported its known race (exit 66)\n",
			sch->name);
		return 0;
	}
#endif
	(void)sch;
	return st;
}

START_TEST(lock_stat_agrees_for_every_scheme)
{
	const struct scheme *sch = all_schemes[_i];
	char dir[200], tdir[256];
	int st, vst;
	struct trace_counts c;

	make_tmpdir(dir, sizeof(dir), "agree");
	snprintf(tdir, sizeof(tdir), "%s/t", dir);
	char *sim =
		run_cmd(&st,
			"%s %s record --scheme %s --workload mixed --cpus 2"
			" --ops 6000 --json -o %s",
			tsan_racy_env(sch->known_racy), bin_path("icache-sim"), sch->name, tdir);
	st = racy_status(sch, st);
	const char *why = strstr(sim, "\"violations\":[");
	ck_assert_msg(st == 0, "%s: record exited %d: %.600s", sch->name, st, why ? why : sim);
	ck_assert_msg(json_num(sim, NULL, "discarded_events") == 0, "%s: events were lost",
		      sch->name);
	struct walk *w = walk_new(tdir, &c);
	char *view = run_cmd(&vst, "%s --summary --json %s", bin_path("icache-view"), tdir);
	ck_assert_msg(vst == 0, "%s: icache-view exited %d", sch->name, vst);
	size_t checked = 0;
	for (size_t k = 0; k < NCLASSES; k++) {
		bool in_sim = class_col(sim, class_names[k], "acquisitions") > 0;
		bool in_view = class_col(view, class_names[k], "acquisitions") > 0;
		ck_assert_msg(in_sim == in_view, "%s: class %s in %s only", sch->name,
			      class_names[k], in_sim ? "the simulator" : "the viewer");
		if (!in_sim)
			continue;
		compare_class(sim, view, class_names[k], sch->name);
		checked++;
	}
	ck_assert_uint_gt(checked, 0);
	ck_assert_msg(w->lifeless == 0, "%s: %" PRIu64 " i_lock events without a life id",
		      sch->name, w->lifeless);
	fprintf(stderr,
		"test_trace: %s: %zu classes agree exactly, %" PRIu64
		" i_lock acquisitions while a number had two lives\n",
		sch->name, checked, w->ambiguous);
	free(sim);
	free(view);
	walk_free(w);
	rm_rf(dir);
}
END_TEST

/* The viewer reads tdir whole, and its lock_stat equals the simulator's
 * (sim: play --json) for every class the run took (what: the scenario). */
static void view_equals_sim(const char *sim, const char *tdir, const char *what)
{
	int vst;
	char *view = run_cmd(&vst, "%s --summary --json %s", bin_path("icache-view"), tdir);
	ck_assert_msg(vst == 0, "icache-view exited %d: %.300s", vst, view);
	ck_assert_msg(strstr(view, "\"complete\":true"), "not complete: %.400s", view);
	for (size_t k = 0; k < NCLASSES; k++)
		if (class_col(sim, class_names[k], "acquisitions") > 0)
			compare_class(sim, view, class_names[k], what);
	free(view);
}

/*
 * An RCU walker takes the i_lock of an inode whose free event is already
 * in the trace (modern: the memory waits for a grace period).  That
 * acquisition is a bounce from the evicting CPU in the simulator's
 * lock_stat, and must be one in the viewer's too: once it was lost when
 * the walker came between the free and its inode_rcu_free event.
 */
START_TEST(lock_after_free_keeps_its_bounce)
{
	char dir[200], tdir[256];
	int st, vst;

	make_tmpdir(dir, sizeof(dir), "afterfree");
	snprintf(tdir, sizeof(tdir), "%s/t", dir);
	char *sim = run_cmd(&st,
			    "%s play lessons/scenarios/modern-rcu-lock-after-free.scn --json -o %s"
			    " 2>/dev/null",
			    bin_path("icache-sim"), tdir);
	ck_assert_msg(st == 0, "play exited %d: %.300s", st, sim);
	/* The order this test is about, read back with babeltrace2. */
	char *seq = run_cmd(&vst,
			    "babeltrace2 %s | grep -E 'icache:inode_free:|icache:inode_rcu_free:"
			    "|lock_acquired.*i_lock.*inst = 42,' | sed -E 's/.*icache:([a-z_]+):"
			    ".*\\{ cpu = ([0-9]+).*/\\1@\\2/' | tr '\\n' ' '",
			    tdir);
	ck_assert_msg(strstr(seq, "inode_free@0 lock_acquired@1 inode_rcu_free@0"),
		      "cpu1 does not lock 42 between its free and rcu_free: %.400s", seq);
	ck_assert_msg(class_col(sim, "i_lock", "bounces") >= 1, "no i_lock bounce: %.400s", sim);
	view_equals_sim(sim, tdir, "modern-rcu-lock-after-free.scn");
	free(seq);
	free(sim);
	rm_rf(dir);
}
END_TEST

/*
 * Two lives of one inode number, at once, every time: a scenario in which
 * cpu1 holds the new inode 42's i_lock while cpu0 takes the old one's in
 * evict.  The trace's life ids make them two locks (no overlap), and the
 * simulator's lock_stat (play --json) equals the viewer's, column by column.
 */
START_TEST(two_lives_are_two_locks)
{
	char dir[200], tdir[256];
	int st;
	struct trace_counts c;

	make_tmpdir(dir, sizeof(dir), "lives");
	snprintf(tdir, sizeof(tdir), "%s/t", dir);
	char *sim = run_cmd(&st, "%s play lessons/scenarios/two-lives.scn --json -o %s 2>/dev/null",
			    bin_path("icache-sim"), tdir);
	ck_assert_msg(st == 0, "play exited %d: %.300s", st, sim);
	struct walk *w = walk_new(tdir, &c);
	ck_assert_msg(w->ambiguous > 0, "no i_lock acquisition while 42 had two lives");
	ck_assert_msg(w->overlaps == 0 && w->bad_releases == 0, "%s", w->first_error);
	ck_assert_uint_eq(w->lifeless, 0);
	view_equals_sim(sim, tdir, "two-lives.scn");
	free(sim);
	walk_free(w);
	rm_rf(dir);
}
END_TEST

/* ---- daemons ------------------------------------------------------------ */

static bool gone(int pid)
{
	char path[64], buf[256];
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return true;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		const char *rp = strrchr(buf, ')');
		if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Run record in a private mount namespace where /var/run/lttng and
 * /dev/shm are empty tmpfs: no daemon is visible.  pre is shell run first
 * in there (e.g. starting a daemon), post after.
 */
static char *record_in_namespace(int *st, const char *dir, const char *pre, const char *post)
{
	return run_cmd(st,
		       "unshare -m sh -c 'mount -t tmpfs none /var/run/lttng &&"
		       " mount -t tmpfs none /dev/shm && %s"
		       " %s record --cpus 2 --ops 3000 --json -o %s/t; rc=$?; %s exit $rc'",
		       pre, bin_path("icache-sim"), dir, post);
}

static void check_small_trace(const char *json, const char *dir)
{
	char path[300], err[512];
	struct trace_counts c;

	snprintf(path, sizeof(path), "%s/t", dir);
	ck_assert_int_eq(trace_read(path, NULL, NULL, &c, err, sizeof(err)), 0);
	ck_assert_uint_gt(c.events, 3000);
	ck_assert_uint_eq(c.events, (uint64_t)json_num(json, NULL, "events"));
	ck_assert_uint_eq(c.discarded_events, 0);
}

START_TEST(record_starts_and_stops_its_own_daemon)
{
	char dir[200];
	int st;

	SKIP_UNLESS(can_unshare(), "no private mount namespace (not root?)");
	make_tmpdir(dir, sizeof(dir), "nodaemon");
	char *out = record_in_namespace(&st, dir, "", "");
	ck_assert_msg(st == 0, "record exited %d: %.300s", st, out);
	ck_assert_msg(strstr(out, "\"sessiond\":\"started\""), "no daemon started: %.300s", out);
	int pid = (int)json_num(out, NULL, "sessiond_pid");
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(gone(pid), "the session daemon record started (pid %d) still runs", pid);
	check_small_trace(out, dir);
	free(out);
	rm_rf(dir);
}
END_TEST

START_TEST(record_uses_a_running_daemon)
{
	char dir[200], pre[512];
	int st;

	SKIP_UNLESS(can_unshare(), "no private mount namespace (not root?)");
	make_tmpdir(dir, sizeof(dir), "daemon");
	snprintf(pre, sizeof(pre), "lttng-sessiond --daemonize --no-kernel --pidfile=%s/d.pid &&",
		 dir);
	char post[512];
	snprintf(post, sizeof(post),
		 "kill -0 $(cat %s/d.pid) && echo DAEMON-STILL-UP; kill $(cat %s/d.pid);", dir,
		 dir);
	char *out = record_in_namespace(&st, dir, pre, post);
	ck_assert_msg(st == 0, "record exited %d: %.300s", st, out);
	ck_assert_msg(strstr(out, "\"sessiond\":\"existing\""), "%.300s", out);
	ck_assert_msg(strstr(out, "DAEMON-STILL-UP"), "record stopped a daemon it did not start");
	check_small_trace(out, dir);
	free(out);
	rm_rf(dir);
}
END_TEST

/*
 * Stopped mid-run by SIGTERM while recording through a daemon it started:
 * record ends the run, destroys the session and stops that daemon, and the
 * trace keeps what was recorded.  (SIGKILL, where the watcher does the
 * cleaning, is record_stops_cleanly_on_signal's third case.)
 */
START_TEST(record_killed_cleans_up)
{
	char dir[200], path[300], err[512];
	struct trace_counts c;
	int st;

	SKIP_UNLESS(can_unshare(), "no private mount namespace (not root?)");
	make_tmpdir(dir, sizeof(dir), "killed");
	char *out = run_cmd(
		&st,
		"unshare -m sh -c 'mount -t tmpfs none /var/run/lttng &&"
		" mount -t tmpfs none /dev/shm &&"
		" { %s record --cpus 2 --duration 30s -o %s/t >/dev/null 2>&1 & pid=$!; } &&"
		" sleep 1.5 && kill -TERM $pid && i=0 &&"
		" while [ -e /var/run/lttng/client-lttng-sessiond ] && [ $i -lt 100 ]; do"
		" sleep 0.1; i=$((i+1)); done;"
		" [ -e /var/run/lttng/client-lttng-sessiond ] && echo DAEMON-LEFT; exit 0' 2>&1",
		bin_path("icache-sim"), dir);
	ck_assert_msg(st == 0, "the namespace script failed: %s", out);
	ck_assert_msg(!strstr(out, "DAEMON-LEFT"), "the daemon record started outlived it");
	snprintf(path, sizeof(path), "%s/t", dir);
	ck_assert_msg(trace_read(path, NULL, NULL, &c, err, sizeof(err)) == 0,
		      "the trace of a killed record is unreadable: %s", err);
	/* At least run_begin and run_end: SIGTERM may come while the daemon
	 * still starts, and then the run stops before its first operation. */
	ck_assert_uint_ge(c.events, 2);
	free(out);
	rm_rf(dir);
}
END_TEST

/*
 * record stopped by a signal, through the machine's own daemon:
 * SIGINT/SIGTERM end the run at an operation boundary with run_end, the
 * report, exit 130/143; SIGKILL leaves the watcher to destroy the session.
 * Either way the trace directory stays and no session of ours is left.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGKILL };

static bool session_left(int pid)
{
	int st;
	char *out = run_cmd(&st, "lttng list 2>/dev/null | grep -c 'icache-rec-%d-'", pid);
	bool left = atoi(out) > 0;
	free(out);
	return left;
}

/* How many interrupted recordings per signal, all at once. */
#define SIGNAL_TRIES 10

/*
 * One batch: SIGNAL_TRIES records started together, each signalled a
 * different time (20 ms, 40 ms, ... 200 ms) after its simulated CPUs'
 * threads have started (main, LTTng's two and at least two more: the run
 * is under way), so the cut falls in different places and the traces stay
 * small.  Mutex locks: ten processes spinning on two cores
 * would mostly wait for each other.  16 MiB rings: by default a 30 s
 * record asks for room for all 30 s (up to 1 GiB), and ten at once ran a
 * machine out of memory (the kernel killed the lttng-consumerd).
 * Prints "pid rc" per try.
 */
static char *interrupt_batch(const char *dir, int sig)
{
	int st;
	char sim[4096];
	ck_assert_ptr_nonnull(realpath(bin_path("icache-sim"), sim));
	return run_cmd(
		&st,
		"exec 2>/dev/null; cd %s && for i in $(seq 1 %d); do"
		" ( %s record --cpus 2 --locks mutex --duration 30s --buffer-size 16M"
		"   -o t$i >out$i 2>&1 &"
		"   pid=$!; n=0; until [ $(ls /proc/$pid/task 2>/dev/null | wc -l) -ge 5 ] ||"
		"   [ $n -ge 600 ]; do sleep 0.05; n=$((n+1)); done;"
		"   sleep $(echo \"$i\" | awk '{print $1/50}');"
		"   kill -%d $pid; wait $pid; echo \"$pid $?\" > rc$i ) & done; wait;"
		" cat rc*",
		dir, SIGNAL_TRIES, sim, sig);
}

/* Try i of a batch: record's exit and report, no session left, and a
 * trace the viewer opens with the cut reported. */
static void check_interrupted(const char *dir, int i, int pid, int rc, int sig)
{
	int st;
	ck_assert_msg(rc == 128 + sig, "try %d: record exited %d, not %d", i, rc, 128 + sig);
	char *log = run_cmd(&st, "cat %s/out%d", dir, i);
	ck_assert_msg(sig == SIGKILL || strstr(log, "interrupted by"), "try %d: no report: %s", i,
		      log);
	free(log);
	/* The watcher (SIGKILL) or record itself destroyed the session. */
	for (int k = 0; k < 100 && session_left(pid); k++)
		usleep(100000);
	ck_assert_msg(!session_left(pid), "try %d: a session of record %d is left", i, pid);
	char *sum = run_cmd(&st, "%s --summary %s/t%d 2>&1", bin_path("icache-view"), dir, i);
	/* SIGKILL loses the sub-buffers the program was writing: a recorder
	 * killed early may have delivered nothing, and the viewer says so. */
	if (sig == SIGKILL && st == 2 && strstr(sum, "cut before its first event") &&
	    !strchr(sum, '\n')[1]) {
		free(sum);
		return;
	}
	ck_assert_msg(st == 0, "try %d: the viewer exited %d: %.400s", i, st, sum);
	const char *cut = sig == SIGKILL ? "no run_end event" : "the run was interrupted";
	ck_assert_msg(strstr(sum, "INCOMPLETE") && strstr(sum, cut), "try %d: no '%s': %.600s", i,
		      cut, sum);
	free(sum);
}

/*
 * Killed the moment its session writes, before the program declared its
 * events: the trace holds only the metadata's preamble, and the viewer says
 * so in one line (exit 2) instead of babeltrace2's internals.  The kill
 * waits up to 30 s (scaled: sanitizer builds are slower) for the session's
 * directory; a session that never came up is a failure of its own.
 */
static void killed_as_it_starts(const char *dir)
{
	int st;
	char sim[4096], view[4096];
	int polls = (int)(3000 * test_slowdown()); /* of 10 ms */
	ck_assert_ptr_nonnull(realpath(bin_path("icache-sim"), sim));
	ck_assert_ptr_nonnull(realpath(bin_path("icache-view"), view));
	char *out =
		run_cmd(&st,
			"cd %s && { %s record --cpus 2 --duration 30s --buffer-size 16M -o early"
			" >/dev/null 2>early.err &"
			" pid=$!; n=0; while [ ! -d early/ust ] && [ $n -lt %d ]; do sleep 0.01;"
			" n=$((n+1)); done; [ -d early/ust ] || echo NO-SESSION;"
			" kill -9 $pid; wait $pid; } 2>/dev/null;"
			" n=0; while [ ! -s early.err ] && [ $n -lt %d ]; do sleep 0.1;"
			" n=$((n+1)); done; %s --summary early 2>&1; echo rc=$?; cat early.err",
			dir, sim, polls, polls / 10, view);
	ck_assert_msg(!strstr(out, "NO-SESSION"), "the session wrote nothing in %d s: %.500s",
		      polls / 100, out);
	/* (on a loaded machine the kill may even come before the session
	 * wrote a file: the directories are there, empty, and said so) */
	bool empty = (strstr(out, "cut before its first event") ||
		      strstr(out, "empty directory (no trace here)")) &&
		     strstr(out, "rc=2");
	bool shown = strstr(out, "INCOMPLETE") && strstr(out, "rc=0");
	ck_assert_msg(empty || shown, "a recorder killed as it starts: %.500s", out);
	/* The watcher's word agrees with the viewer's. */
	ck_assert_msg(strstr(out, empty ? "nothing was recorded" : "keeps what was recorded"),
		      "the watcher said: %.500s", out);
	ck_assert_msg(!strstr(out, "0x"), "library internals: %.500s", out);
	free(out);
}

/*
 * SIGINT/SIGTERM end the run at an operation boundary with run_end, the
 * report and exit 130/143; SIGKILL leaves the watcher to destroy the
 * session.  Either way, SIGNAL_TRIES times of SIGNAL_TRIES: the trace
 * directory stays, the viewer opens it and reports the cut, and no
 * session of ours is left.
 */
START_TEST(record_stops_cleanly_on_signal)
{
	int sig = stop_signals[_i];
	char dir[200];

	make_tmpdir(dir, sizeof(dir), "signal");
	char *out = interrupt_batch(dir, sig);
	int tries = 0;
	for (char *l = out; l && *l; tries++) {
		int pid = 0, rc = -1;
		ck_assert_msg(sscanf(l, "%d %d", &pid, &rc) == 2, "%.300s", out);
		check_interrupted(dir, tries + 1, pid, rc, sig);
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	ck_assert_int_eq(tries, SIGNAL_TRIES);
	free(out);
	if (sig == SIGKILL)
		killed_as_it_starts(dir);
	else {
		/* The first stop ends with run_end and lost nothing. */
		char tdir[256];
		snprintf(tdir, sizeof(tdir), "%s/t1", dir);
		struct trace_counts c;
		struct walk *w = walk_new(tdir, &c);
		ck_assert_msg(w->last_kind == E_run_end, "the trace does not end with run_end");
		ck_assert_uint_eq(c.discarded_events, 0);
		walk_free(w);
	}
	rm_rf(dir);
}
END_TEST

/* A full disk and an unwritable one say so, in one line, exit 2. */
START_TEST(record_full_or_readonly_disk_says_so)
{
	char dir[200];
	int st;

	SKIP_UNLESS(is_root(), "not root, cannot mount a tmpfs");
	make_tmpdir(dir, sizeof(dir), "full");
	char *out = run_cmd(&st,
			    "mount -t tmpfs -o size=2m none %s && { %s record --duration 1s --quiet"
			    " -o %s/t 2>&1 >/dev/null; echo \"rc=$?\"; umount %s; }",
			    dir, bin_path("icache-sim"), dir, dir);
	ck_assert_msg(strstr(out, "the disk is full") && strstr(out, "rc=2"), "full disk: %s", out);
	const char *nl = strchr(out, '\n');
	ck_assert_msg(nl && strncmp(nl + 1, "rc=", 3) == 0, "more than one line: %s", out);
	free(out);
	out = run_cmd(&st,
		      "mount -t tmpfs -o size=2m,ro none %s && { %s record --duration 1s --quiet"
		      " -o %s/t 2>&1 >/dev/null; echo \"rc=$?\"; umount %s; }",
		      dir, bin_path("icache-sim"), dir, dir);
	ck_assert_msg(strstr(out, "Read-only file system") && strstr(out, "rc=2"),
		      "read-only disk: %s", out);
	free(out);
	rm_rf(dir);
}
END_TEST

/* The trace directory removed under a running record: said in one line,
 * exit 2, not "no CTF trace in there". */
START_TEST(record_directory_removed_says_so)
{
	char dir[200];
	int st;

	make_tmpdir(dir, sizeof(dir), "removed");
	char *out =
		run_cmd(&st,
			"{ %s record --cpus 2 --duration 2s --buffer-size 16M --quiet -o %s/t"
			" 2>%s/err >/dev/null & pid=$!; n=0;"
			" until [ -d %s/t/ust ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done;"
			" rm -rf %s/t; wait $pid; echo \"rc=$?\"; cat %s/err; }",
			bin_path("icache-sim"), dir, dir, dir, dir, dir);
	ck_assert_msg(strstr(out, "rc=2\n") && strstr(out, "was removed while recording"), "%s",
		      out);
	const char *err = strstr(out, "rc=2\n") + 5;
	ck_assert_msg(strchr(err, '\n') && !strchr(err, '\n')[1], "more than one line: %s", out);
	free(out);
	rm_rf(dir);
}
END_TEST

/* An unprivileged user gets a private daemon under its own LTTNG_HOME. */
START_TEST(record_as_user_gets_private_daemon)
{
	char dir[200];
	int st;

	SKIP_UNLESS(is_root(), "not root, cannot switch user");
	free(run_cmd(&st, "command -v setpriv >/dev/null"));
	SKIP_UNLESS(st == 0, "no setpriv");
	make_tmpdir(dir, sizeof(dir), "user");
	ck_assert_int_eq(chown(dir, 4242, 4242), 0);
	char sim[4096];
	ck_assert_ptr_nonnull(realpath(other_user_bin("icache-sim"), sim));
	char *out = run_cmd(&st,
			    "cd %s && setpriv --reuid=4242 --regid=4242 --clear-groups"
			    " env HOME=%s %s record --cpus 2 --ops 3000 --json -o %s/t",
			    dir, dir, sim, dir);
	other_user_bin_done(sim);
	ck_assert_msg(st == 0, "record as uid 4242 exited %d: %.300s", st, out);
	ck_assert_msg(strstr(out, "\"sessiond\":\"started\""), "%.300s", out);
	int pid = (int)json_num(out, NULL, "sessiond_pid");
	ck_assert_msg(gone(pid), "the private daemon (pid %d) still runs", pid);
	check_small_trace(out, dir);
	free(out);
	rm_rf(dir);
}
END_TEST

/* ---- bad input ----------------------------------------------------------- */

/* icache-sim record ARGS, where %s in args stands for dir: exit 2 and one
 * line that says needle. */
static void bad_record(const char *dir, const char *args, const char *needle)
{
	char full[400], cmd[600];
	snprintf(full, sizeof(full), args, dir);
	snprintf(cmd, sizeof(cmd), "record %s", full);
	sim_bad_usage(cmd, needle);
}

/* dir holds a file x. */
START_TEST(record_bad_input_exits_2)
{
	char dir[200];
	int st;

	make_tmpdir(dir, sizeof(dir), "bad");
	free(run_cmd(&st, "touch %s/x", dir));
	bad_record(dir, "--ops 10", "-o DIR is required");
	bad_record(dir, "--ops 10 -o", "-o needs a value");
	bad_record(dir, "--ops 10 -o %s", "is not empty");
	bad_record(dir, "--ops 10 -o %s/x", "is not a directory");
	bad_record(dir, "--frobnicate -o %s/new", "unknown option '--frobnicate'");
	bad_record(dir, "--cpus 0 -o %s/new", "--cpus: '0'");
	bad_record(dir, "--subbuf-size 3M -o %s/new", "--subbuf-size: '3M'");
	bad_record(dir, "--subbuf-size -o %s/new", "--subbuf-size");
	rm_rf(dir);
}
END_TEST

START_TEST(record_help)
{
	char *out = run_expect(0, "%s record --help", bin_path("icache-sim"));
	assert_has(out, "-o, --output DIR", "--blocking");
	free(out);
}
END_TEST

/* A TRACE=0 build has no tracepoints: record must say so, not pretend. */
START_TEST(record_refuses_without_tracepoints)
{
	sim_bad_usage("record --ops 10 -o /tmp/icache-never", "TRACE=0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	if (!ICACHE_TRACE) {
		TCase *tn = tcase_create("no tracepoints");
		tcase_add_test(tn, record_refuses_without_tracepoints);
		tcase_add_test(tn, record_help);
		suite_add_tcase(s, tn);
		return run_suite(s);
	}
	TCase *tc = tcase_create("recorded run");
	tcase_add_unchecked_fixture(tc, record_once, drop_recording);
	tcase_set_timeout(tc, getenv("TRACE_TEST_RUN") ? 600 : 60);
	tcase_add_tests(tc,
			(const TTest *[]){ record_counts_match_trace, default_ring_in_small_packets,
					   locks_pair_up_and_never_overlap, final_inodes_match_json,
					   babeltrace2_cli_counts_acquisitions, NULL });
	suite_add_tcase(s, tc);

	TCase *ta = tcase_create("simulator and viewer agree");
	tcase_set_timeout(ta, 150);
	int nsch = 0;
	while (all_schemes[nsch])
		nsch++;
	tcase_add_loop_test(ta, lock_stat_agrees_for_every_scheme, 0, nsch);
	tcase_add_test(ta, two_lives_are_two_locks);
	tcase_add_test(ta, lock_after_free_keeps_its_bounce);
	suite_add_tcase(s, ta);

	TCase *td = tcase_create("daemons");
	tcase_set_timeout(td, 60);
	tcase_add_test(td, record_starts_and_stops_its_own_daemon);
	tcase_add_test(td, record_uses_a_running_daemon);
	tcase_add_test(td, record_as_user_gets_private_daemon);
	tcase_add_test(td, record_killed_cleans_up);
	tcase_add_test(td, record_full_or_readonly_disk_says_so);
	tcase_add_test(td, record_directory_removed_says_so);
	suite_add_tcase(s, td);

	TCase *ti = tcase_create("interrupted");
	tcase_set_timeout(ti, 180);
	tcase_add_loop_test(ti, record_stops_cleanly_on_signal, 0,
			    (int)(sizeof(stop_signals) / sizeof(stop_signals[0])));
	suite_add_tcase(s, ti);

	TCase *tb = tcase_create("bad input");
	/* a dozen short record runs: 1.5 s idle, more on a loaded machine */
	tcase_set_timeout(tb, 30);
	tcase_add_test(tb, record_bad_input_exits_2);
	tcase_add_test(tb, record_help);
	suite_add_tcase(s, tb);
	return run_suite(s);
}
