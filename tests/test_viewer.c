/*
 * test_viewer.c - icache-view against real traces and bad ones.
 *
 * One trace is recorded once (icache-sim record, 2 CPUs, mixed) with the
 * simulator's own JSON beside it; the viewer's --summary --json must give
 * the same lock figures and final inodes.  The UI runs in a real terminal
 * under tmux (send-keys, capture-pane).  Bad inputs are made by copying
 * and damaging the recorded trace, or written by hand (viewer/ctfgen.h).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/ctfgen.h"
#include "viewer/index.h"
#include "viewer/model.h"
#include "viewer/timeline.h"

static char tmp[256];   /* scratch directory of the suite */
static char trace[300]; /* the recorded trace */
static char *sim_json;  /* icache-sim's JSON for it */
static int record_status = -1;

static void record_trace(void)
{
	tmux_init("icview-test");
	snprintf(tmp, sizeof(tmp), "/tmp/icview-test.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return;
	}
	snprintf(trace, sizeof(trace), "%s/trace", tmp);
	sim_json = run_cmd(&record_status,
			   "%s record --scheme merged --workload mixed --cpus 2 --ops 3000 "
			   "--seed 7 --quiet --json --inodes -o %s 2>%s/record.err",
			   bin_path("icache-sim"), trace, tmp);
}

static void cleanup(void)
{
	int st;
	if (tmp[0])
		free(run_cmd(&st, "rm -rf %s", tmp));
	free(sim_json);
	tmux_done();
}

static void need_trace(void)
{
	ck_assert_msg(record_status == 0, "icache-sim record failed (%d): see %s/record.err",
		      record_status, tmp);
}

/* The viewer on the suite's trace in a w x h terminal, in the tmux session
 * name (returned). */
static const char *viewer_on_trace(const char *name, int w, int h)
{
	need_trace();
	tmux_view(name, w, h, "", trace);
	return name;
}

/* The object text {"ino":N,...} for ino in a JSON array of inodes. */
static char *inode_obj(const char *json, const char *ino_field)
{
	const char *p = strstr(json, ino_field);
	if (!p)
		return NULL;
	while (p > json && *p != '{')
		p--;
	const char *e = strchr(p, '}');
	return e ? strndup(p, (size_t)(e - p + 1)) : NULL;
}

START_TEST(summary_json_equals_simulator)
{
	need_trace();
	char *v = run_expect(0, "%s --summary --json %s", bin_path("icache-view"), trace);
	/* Every class the simulator reports, figure by figure. */
	int classes = 0;
	const char *locks = strstr(sim_json, "\"locks\":[");
	ck_assert_ptr_nonnull(locks);
	for (const char *p = strstr(locks, "\"class\":\""); p && p < strstr(locks, "]");
	     p = strstr(p + 1, "\"class\":\"")) {
		char name[64], after[96];
		sscanf(p + 9, "%63[^\"]", name);
		snprintf(after, sizeof(after), "\"class\":\"%s\"", name);
		static const char *const keys[] = { "acquisitions",     "contentions",
						    "trylock_failures", "wait_ns_total",
						    "hold_ns_total",    "wait_ns_max",
						    "hold_ns_max" };
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			double a = json_num(sim_json, after, keys[k]);
			double b = json_num(v, after, keys[k]);
			ck_assert_msg(a == b, "%s %s: simulator %.0f, viewer %.0f", name, keys[k],
				      a, b);
		}
		classes++;
	}
	ck_assert_int_ge(classes, 4);
	/* Final inodes: the same set, each with the same fields. */
	const char *si = strstr(sim_json, "\"inodes\":[");
	const char *vi = strstr(v, "\"inodes\":[");
	ck_assert_ptr_nonnull(si);
	ck_assert_ptr_nonnull(vi);
	int n = 0;
	for (const char *p = strstr(si, "{\"ino\":"); p; p = strstr(p + 1, "{\"ino\":")) {
		char field[48];
		unsigned long long ino = strtoull(p + 7, NULL, 10);
		snprintf(field, sizeof(field), "{\"ino\":%llu,", ino);
		char *a = inode_obj(p, field), *b = inode_obj(vi, field);
		ck_assert_msg(b != NULL, "inode %llu alive in the simulator, not in the viewer",
			      ino);
		ck_assert_msg(!strcmp(a, b), "inode %llu: simulator %s, viewer %s", ino, a, b);
		free(a);
		free(b);
		n++;
	}
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(n, (int)json_num(v, "\"final\"", "nr_inodes"));
	ck_assert_int_eq((int)json_num(v, NULL, "violations_total"),
			 (int)json_num(sim_json, NULL, "violations_total"));
	free(v);
}
END_TEST

START_TEST(summary_text_and_dot)
{
	need_trace();
	int st;
	char *s = run_expect(0, "%s --summary %s", bin_path("icache-view"), trace);
	assert_has(s, "events ", "discarded  0 events", "acquisitions",
		   "inode_hash_lock      -> i_lock", "violations: 0");
	free(s);
	char *d = run_cmd(&st, "%s --dot %s", bin_path("icache-view"), trace);
	ck_assert_int_eq(st, 0);
	assert_has(d, "digraph lock_order {", "\"inode_hash_lock\" -> \"i_lock\"");
	ck_assert_ptr_null(strstr(d, "color=red")); /* merged keeps its order */
	free(d);
}
END_TEST

START_TEST(screen_after_keys)
{
	need_trace();
	int st;
	char *s = run_expect(0, "LANG=C.UTF-8 %s --keys '/I_FREEING<Enter>' --screen 120x40 %s",
			     bin_path("icache-view"), trace);
	assert_has(s, "Events by CPU", "Held locks", "I_FREEING set by cpu");
	ck_assert(line_has(s, "i_state ", "I_FREEING"));
	ck_assert_ptr_nonnull(strstr(s, "search: I_FREEING"));
	int lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 40);
	free(s);
	/* Help is generated from the key table; ASCII mode has no box drawing. */
	s = run_cmd(&st, "%s --ascii --keys 'jjh' --screen 100x36 %s", bin_path("icache-view"),
		    trace);
	assert_has(s, "Help 1/", "next event on this CPU", "+-");
	ck_assert_ptr_null(strstr(s, "\xe2\x94\x80")); /* U+2500 */
	free(s);
	/* Go to an event number, mark it, go elsewhere, jump back. */
	s = run_cmd(&st, "%s --keys ':1234<Enter>mxG'\"'\"'x' --screen 120x40 %s",
		    bin_path("icache-view"), trace);
	ck_assert_ptr_nonnull(strstr(s, " #1234/"));
	free(s);
}
END_TEST

START_TEST(seek_equals_replay)
{
	need_trace();
	char err[512];
	struct trace_index *ix = ix_load(trace, err, sizeof(err));
	ck_assert_msg(ix != NULL, "%s", err);
	ck_assert_uint_eq(sizeof(struct ix_event), 32);
	struct model *a = model_new(), *b = model_new();
	uint64_t pos[] = { ix->nev, 1,           ix->nev / 2,     ix->nev / 3,
			   7,       ix->nev - 1, ix->nev / 2 + 1, ix->nev / 2 };
	for (size_t k = 0; k < sizeof(pos) / sizeof(pos[0]); k++) {
		model_seek(a, ix, pos[k]);
		model_reset(b);
		while (b->pos < pos[k])
			model_apply(b, ix);
		ck_assert_int_eq(memcmp(a->stats, b->stats, sizeof(a->stats)), 0);
		ck_assert_uint_eq(a->nedges, b->nedges);
		ck_assert_uint_eq(a->inodes.n, b->inodes.n);
		uint32_t it = 0, obj;
		const struct inode_state *s;
		while (model_next_inode(a, &it, &obj, &s)) {
			const struct inode_state *t = model_inode(b, obj);
			ck_assert_ptr_nonnull(t);
			ck_assert_int_eq(memcmp(s, t, sizeof(*s)), 0);
		}
		for (unsigned c = 0; c < a->ncpu; c++)
			ck_assert_int_eq(model_cpu(a, c)->nheld, model_cpu(b, c)->nheld);
	}
	model_free(a);
	model_free(b);
	ix_free(ix);
}
END_TEST

/*
 * After a loss a CPU is unknown, and known again at the first event that
 * proves its state: the end of the operation the loss cut into (it then
 * holds nothing), not only the start of its next one.  An index made by
 * hand: cpu0 takes hash_bucket in an iget, events are lost, cpu0
 * releases a lock the trace never saw it take, then ends its operation.
 */
START_TEST(unknown_cpu_known_again_at_op_end)
{
	struct trace_index ix = { 0 };
	struct ix_discard d = { .begin = 150, .end = 250, .count = 9, .stream = -1 };
	int cls = lock_class_by_name("hash_bucket"), op = 0;
	ck_assert(cls >= 0);
	struct ix_event ev[] = {
		{ .ts = 100, .type = EV_op_begin, .a = (uint8_t)op },
		{ .ts = 110, .type = EV_lock_acquired, .a = (uint8_t)cls, .obj = 1 },
		{ .ts = 200, .type = EV_discarded_events, .val = 9, .obj = 0, .cpu = IX_NO_CPU },
		{ .ts = 300, .type = EV_lock_release, .a = (uint8_t)cls, .obj = 2 },
		{ .ts = 310, .type = EV_op_end, .a = (uint8_t)op },
		{ .ts = 320, .type = EV_lock_acquired, .a = (uint8_t)cls, .obj = 3 },
	};
	ix.ev = ev;
	ix.nev = sizeof(ev) / sizeof(ev[0]);
	ix.discards = &d;
	ix.ndiscards = 1;
	struct model *m = model_new();
	for (int i = 0; i < 4; i++)
		model_apply(m, &ix);
	ck_assert_msg(model_cpu(m, 0)->unknown, "cpu0 is not unknown after the loss");
	model_apply(m, &ix); /* op_end */
	ck_assert_msg(!model_cpu(m, 0)->unknown, "cpu0 still unknown after its op_end");
	ck_assert_int_eq(model_cpu(m, 0)->nheld, 0);
	model_apply(m, &ix); /* a lock taken afterwards is held, and known */
	ck_assert_int_eq(model_cpu(m, 0)->nheld, 1);
	ck_assert(!model_cpu(m, 0)->unknown);
	model_free(m);
}
END_TEST

/* ---- the UI in tmux ----------------------------------------------------------- */

START_TEST(tmux_panes_and_help)
{
	const char *s = viewer_on_trace("icview-panes", 120, 40);
	char *scr = tmux_expect_screen(s, "/ lock_acquired Enter", "search: lock_acquired", 5);
	ck_assert_msg(strstr(scr, "\xe2\x97\x8f"
				  "1 "),
		      "no held lock shown:\n%s", scr); /* ●1 */
	ck_assert_ptr_nonnull(strstr(scr, "Held locks"));
	free(scr);
	scr = tmux_expect_screen(s, "/ I_FREEING Enter", "I_FREEING set by cpu", 5);
	ck_assert(line_has(scr, "i_state ", "I_FREEING"));
	assert_has(scr, "handoff: cpu", "Lock order");
	ck_assert_ptr_nonnull(strstr(scr, "\xe2\x86\x92 i_lock")); /* → i_lock */
	ck_assert_ptr_nonnull(strstr(scr, "lock_stat"));
	free(scr);
	tmux_expect(s, "Tab", "[ Held locks ]", 5);
	scr = tmux_expect_screen(s, "h", "Help 1/", 5);
	ck_assert_ptr_nonnull(strstr(scr, "previous match of the search"));
	free(scr);
	tmux_keys(s, "q"); /* closes the help */
	tmux_keys(s, "q"); /* quits */
	ck_assert_msg(tmux_wait_gone(s, "Events by CPU", 2), "q did not quit");
	tmux_kill(s);
}
END_TEST

START_TEST(tmux_resize)
{
	const char *s = viewer_on_trace("icview-resize", 120, 40);
	tmux_set_size(s, 90, 30);
	ck_assert(tmux_wait_for(s, "Held locks", 5));
	char *scr = tmux_capture(s, false);
	/* The frame is redrawn for 90 columns: the right edge is at column 90. */
	ck_assert_msg(strstr(scr, "\xe2\x94\x90\n") != NULL, "no box corner at the edge:\n%s", scr);
	free(scr);
	tmux_set_size(s, 60, 20);
	for (int i = 0; i < 40; i++) {
		scr = tmux_capture(s, false);
		bool small = !strstr(scr, "Held locks") && strstr(scr, "Events by CPU");
		free(scr);
		if (small)
			break;
		sleep_ms(50);
	}
	scr = tmux_capture(s, false);
	ck_assert_msg(!strstr(scr, "Held locks") && strstr(scr, "Events by CPU"),
		      "small terminal should show one pane:\n%s", scr);
	free(scr);
	tmux_set_size(s, 120, 40);
	ck_assert(tmux_wait_for(s, "Held locks", 5));
	tmux_kill(s);
}
END_TEST

START_TEST(tmux_no_color)
{
	const char *s = viewer_on_trace("icview-color", 120, 40);
	char *scr = tmux_capture(s, true);
	ck_assert_msg(has_colour_sgr(scr), "expected colours by default");
	free(scr);
	tmux_kill(s);
	tmux_view(s, 120, 40, "NO_COLOR=1", trace);
	scr = tmux_capture(s, true);
	ck_assert_msg(!has_colour_sgr(scr), "colours under NO_COLOR");
	ck_assert_ptr_nonnull(strstr(scr, "Events by CPU"));
	free(scr);
	tmux_kill(s);
	/* A terminal that cannot be drawn on: one line saying so, exit 2
	 * (tests/test_screens.c checks the wording and an unknown TERM). */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "env TERM=dumb %s %s", bin_path("icache-view"), trace);
	tmux_start(s, 120, 40, cmd);
	ck_assert_msg(tmux_wait_for(s, "EXIT=2", 10), "TERM=dumb: no exit 2");
	scr = tmux_capture(s, true);
	ck_assert_msg(!has_colour_sgr(scr), "colours under TERM=dumb");
	ck_assert_ptr_nonnull(strstr(scr, "TERM=dumb cannot move the cursor"));
	free(scr);
	tmux_kill(s);
}
END_TEST

/* ---- bad input: exit 2 and one line naming the path --------------------------- */

static void expect_error(const char *path, const char *what)
{
	int st;
	char *out = run_cmd(&st, "%s --summary %s 2>&1 >/dev/null", bin_path("icache-view"), path);
	ck_assert_msg(st == 2, "%s: exit %d, output %s", path, st, out);
	int lines = 0;
	for (char *p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_msg(lines == 1, "%s: %d lines: %s", path, lines, out);
	ck_assert_msg(strstr(out, path) != NULL, "the message does not name %s: %s", path, out);
	ck_assert_msg(strstr(out, what) != NULL, "%s: expected '%s' in: %s", path, what, out);
	free(out);
}

static void copy_trace(const char *name, char *out, size_t len)
{
	int st;
	snprintf(out, len, "%s/%s", tmp, name);
	free(run_cmd(&st, "rm -rf %s && cp -r %s %s", out, trace, out));
}

/* A trace written by hand (viewer/ctfgen.h): the n events e of provider,
 * in tmp/name.  Its path: a static buffer. */
static const char *handmade(const char *name, const char *provider, const struct ctfgen_event *e,
			    int n)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	ck_assert_msg(ctfgen_write(path, provider, e, n) == 0, "ctfgen_write %s failed", path);
	return path;
}

START_TEST(bad_inputs)
{
	char p[512];
	int st;
	snprintf(p, sizeof(p), "%s/missing", tmp);
	expect_error(p, "No such file");
	snprintf(p, sizeof(p), "%s/empty", tmp);
	mkdir(p, 0755);
	expect_error(p, "empty directory");
	snprintf(p, sizeof(p), "%s/notctf", tmp);
	mkdir(p, 0755);
	free(run_cmd(&st, "echo hello > %s/readme.txt", p));
	expect_error(p, "not a CTF trace");

	need_trace();
	copy_trace("trunc", p, sizeof(p));
	free(run_cmd(&st, "f=$(ls %s/ust/uid/*/64-bit/icache_* | head -1); truncate -s 5000 $f",
		     p));
	/* Cut inside its first packet: the other streams still show, loudly
	 * incomplete (the damaged-trace suite covers the other cuts). */
	char *out = run_cmd(&st, "%s --summary %s 2>&1", bin_path("icache-view"), p);
	ck_assert_msg(st == 0, "%s", out);
	ck_assert_msg(strstr(out, "complete   NO") && strstr(out, "cut mid-packet at byte 5000"),
		      "%s", out);
	ck_assert_msg(!strstr(out, "AGAINST THE ORDER\n"), "%s", out);
	free(out);

	copy_trace("badmeta", p, sizeof(p));
	free(run_cmd(
		&st,
		/* over a keyword, not a fixed byte: the metadata grows as the
		 * enums do, and a fixed byte may land inside a quoted label */
		"f=$(ls %s/ust/uid/*/64-bit/metadata); "
		"python3 -c \"import sys; p=sys.argv[1]; b=open(p,'rb').read();"
		" i=b.find(b'struct packet_header'); b=b[:i]+b'@@ not tsdl {{{ ;;; }'+b[i+21:];"
		" open(p,'wb').write(b)\" $f",
		p));
	expect_error(p, "damaged CTF metadata");

	copy_trace("cutmeta", p, sizeof(p));
	free(run_cmd(&st, "f=$(ls %s/ust/uid/*/64-bit/metadata); truncate -s 5000 $f", p));
	expect_error(p, "damaged CTF metadata");

	struct ctfgen_event h[] = { { CTFGEN_HELLO, 10, 0, 0, 0, 0, 42 },
				    { CTFGEN_HELLO, 20, 0, 0, 0, 0, 43 } };
	const char *other = handmade("other", "myapp", h, 2);
	expect_error(other, "another provider");
	expect_error(other, "myapp:hello");

	struct ctfgen_event o[] = {
		{ CTFGEN_ACQUIRED, 1000, 0, 2, 0, 0, 0 },
		{ CTFGEN_ACQUIRED, 2000, 1, 2, 0, 0, 0 },
		{ CTFGEN_RELEASE, 3000, 0, 2, 0, 0, 5 },
	};
	expect_error(handmade("overlap", "icache", o, 3), "trace is inconsistent at event #1");
}
END_TEST

START_TEST(same_time_release_before_acquire)
{
	/* cpu1's acquire and cpu0's release share a timestamp and come in the
	 * wrong order: not an inconsistency (EVENTS.md: release first). */
	struct ctfgen_event e[] = {
		{ CTFGEN_ACQUIRED, 1000, 0, 2, 0, 0, 0 },
		{ CTFGEN_ACQUIRED, 2000, 1, 2, 0, 0, 0 },
		{ CTFGEN_RELEASE, 2000, 0, 2, 0, 0, 1000 },
		{ CTFGEN_RELEASE, 3000, 1, 2, 0, 0, 1000 },
	};
	const char *p = handmade("tie", "icache", e, 4);
	int st;
	char *out = run_cmd(&st, "%s --summary --json %s 2>&1", bin_path("icache-view"), p);
	ck_assert_msg(st == 0, "%s", out);
	ck_assert_int_eq((int)json_num(out, "\"class\":\"inode_hash_lock\"", "acquisitions"), 2);
	ck_assert_int_eq((int)json_num(out, "\"class\":\"inode_hash_lock\"", "bounces"), 1);
	free(out);
}
END_TEST

START_TEST(bench_hook)
{
	need_trace();
	char *out = run_expect(0, "%s --bench %s", bin_path("icache-view"), trace);
	ck_assert(json_num(out, NULL, "events_per_s") > 0);
	ck_assert(json_num(out, NULL, "event_bytes") == 32);
	ck_assert(json_num(out, NULL, "jump_end_ms") >= 0);
	free(out);
}
END_TEST

int main(void)
{
	return run_tests("viewer", record_trace, cleanup, 30,
			 (const TTest *[]){ summary_json_equals_simulator, summary_text_and_dot,
					    screen_after_keys, seek_equals_replay,
					    unknown_cpu_known_again_at_op_end, tmux_panes_and_help,
					    tmux_resize, tmux_no_color, bad_inputs,
					    same_time_release_before_acquire, bench_hook, NULL });
}
