/*
 * test_direct.c - traces written by icache-sim itself (play --ctf-direct,
 * sim/core/ctf_writer.c) against traces recorded by LTTng.
 *
 * The same scenario is played both ways: through the session daemon, and
 * written directly; the viewer's index of the two must agree event for
 * event (times aside), and so must `icache-view --summary --json`.  Then
 * the writer's errors (bad usage, a file it cannot write, a stream cut
 * short), and the point of it all: a scheduler level and lesson 08's edit
 * exercise played in a real terminal by a user for whom no session daemon
 * is reachable (a private, empty LTTNG_HOME; not in the tracing group; no
 * lttng-sessiond on the PATH).  No daemon is stopped: the machine's own
 * is as alive after as before.
 *
 * Run from the top of the source tree (make check does).
 */
#include <lttng/lttng.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/index.h"
#include "viewer/names.h"
#include "viewer/timeline.h"

static char tmp[256]; /* the suite's scratch directory */

static void setup(void)
{
	tmux_init("direct-test");
	scratch_make(tmp, sizeof(tmp), "test-direct");
}

static void teardown(void)
{
	scratch_remove(tmp);
	tmux_done();
}

/* play SCN into tmp/NAME, through LTTng (how "") or directly. */
static char *play(const char *scn, const char *name, const char *how, int *st)
{
	return run_cmd(st, "%s play lessons/scenarios/%s.scn --quiet %s -o %s/%s 2>&1",
		       bin_path("icache-sim"), scn, how, tmp, name);
}

/* Where does event type t keep field slot sl?  (Its value is a string
 * id, a raw number or an interned id, as the table says.) */
static bool has_slot(int t, enum ix_slot sl)
{
	for (int f = 0; f < IX_MAX_FIELDS && ix_schemas[t].fields[f].name; f++)
		if (ix_schemas[t].fields[f].slot == sl)
			return true;
	return false;
}

static bool same_obj(const struct trace_index *x, const struct ix_event *a,
		     const struct trace_index *y, const struct ix_event *b)
{
	if (has_slot(a->type, SL_STRID))
		return !strcmp(ix_str(x, a->obj), ix_str(y, b->obj));
	if (has_slot(a->type, SL_RAW))
		return a->obj == b->obj;
	return ix_id_value(x, a->obj) == ix_id_value(y, b->obj);
}

/*
 * Event for event, the CPUs' events: type, CPU, every field the index
 * keeps; not times (wait_ns, hold_ns) nor the host core.  Events of no
 * CPU (liburcu's call_rcu thread freeing an inode) come when a grace
 * period ends, which no schedule fixes: they are counted, not placed.
 */
static void same_index(const char *scn, const struct trace_index *x, const struct trace_index *y)
{
	uint64_t i = 0, j = 0, nx = x->nev, ny = y->nev, matched = 0;
	long async = 0;
	for (;; i++, j++, matched++) {
		while (i < nx && x->ev[i].cpu == IX_NO_CPU)
			i++, async++;
		while (j < ny && y->ev[j].cpu == IX_NO_CPU)
			j++, async--;
		if (i == nx || j == ny)
			break;
		const struct ix_event *a = &x->ev[i], *b = &y->ev[j];
		bool timed = a->type == EV_lock_acquired || a->type == EV_lock_release;
		ck_assert_msg(a->type == b->type && a->cpu == b->cpu && a->a == b->a &&
				      a->b == b->b && a->site == b->site && a->src == b->src &&
				      a->line == b->line && a->life == b->life &&
				      (timed || a->val == b->val) && same_obj(x, a, y, b),
			      "%s: LTTng's event %llu (%s) and the direct trace's %llu (%s) differ",
			      scn, (unsigned long long)i, ev_type_name(a->type),
			      (unsigned long long)j, ev_type_name(b->type));
	}
	ck_assert_msg(i == nx && j == ny && async == 0,
		      "%s: %llu events in LTTng's trace, %llu in the direct one", scn,
		      (unsigned long long)nx, (unsigned long long)ny);
	ck_assert_uint_gt(matched, 20);
	ck_assert_msg(ix_complete(x) && ix_complete(y), "%s: a trace is incomplete: %s", scn,
		      ix_complete(x) ? y->reasons[0] : x->reasons[0]);
}

/* The summary, less what differs by nature: times, the trace's path, its
 * streams (LTTng: one per core), the process, the index's own figures. */
static char *summary(const char *name)
{
	int st;
	char *out = run_cmd(&st,
			    "%s --summary --json --no-cache %s/%s | sed -E "
			    "'s/\"(trace|duration_ns|pid|wait_ns_total|wait_ns_max|hold_ns_total|"
			    "hold_ns_max)\":(\"[^\"]*\"|[0-9-]+)//g; s/\"streams\":\\[[^]]*\\]//; "
			    "s/\"index\":\\{[^}]*\\}//'",
			    bin_path("icache-view"), tmp, name);
	ck_assert_msg(st == 0 && strstr(out, "\"complete\":true"), "%s: %s", name, out);
	return out;
}

static void both_ways(const char *scn, bool whole_summary)
{
	int st;
	char lt[64], dt[64], err[512];
	snprintf(lt, sizeof(lt), "%s.lttng", scn);
	snprintf(dt, sizeof(dt), "%s.direct", scn);
	char *o1 = play(scn, lt, "", &st);
	ck_assert_msg(st <= 1 && strstr(o1, "trace: ") && !strstr(o1, "written directly"),
		      "%s through LTTng: exit %d: %s", scn, st, o1);
	char *o2 = play(scn, dt, "--ctf-direct", &st);
	ck_assert_msg(st <= 1 && strstr(o2, "written directly)"), "%s directly: exit %d: %s", scn,
		      st, o2);
	free(o1);
	free(o2);
	char path[400];
	snprintf(path, sizeof(path), "%s/%s", tmp, lt);
	struct trace_index *x = ix_load(path, err, sizeof(err));
	ck_assert_msg(x, "%s: LTTng's trace does not load: %s", scn, err);
	snprintf(path, sizeof(path), "%s/%s", tmp, dt);
	struct trace_index *y = ix_load(path, err, sizeof(err));
	ck_assert_msg(y, "%s: the direct trace does not load: %s", scn, err);
	same_index(scn, x, y);
	ix_free(x);
	ix_free(y);
	if (!whole_summary)
		return;
	char *s1 = summary(lt), *s2 = summary(dt);
	ck_assert_msg(!strcmp(s1, s2), "%s: the summaries differ:\nLTTng:  %s\ndirect: %s", scn, s1,
		      s2);
	free(s1);
	free(s2);
}

/* A deadlock with the validator's reports, a v4 race, an RCU walk whose
 * frees come from liburcu's thread (their places vary: index only). */
START_TEST(direct_and_lttng_agree)
{
	both_ways("abba-deadlock", true);
	both_ways("iput-lru-race-v4", true);
	both_ways("modern-rcu-lookup-freeing", false);
}
END_TEST

/* --ctf-direct=auto goes through LTTng when a daemon answers. */
START_TEST(auto_uses_the_daemon_when_it_answers)
{
	if (lttng_session_daemon_alive() != 1) {
		fprintf(stderr, "test_direct: no session daemon here: auto not tried with one\n");
		return;
	}
	int st;
	char *out = play("abba-deadlock", "auto", "--ctf-direct=auto", &st);
	ck_assert_msg(st == 0 && strstr(out, "trace: ") && !strstr(out, "written directly"),
		      "exit %d: %s", st, out);
	free(out);
}
END_TEST

/* The one line of stderr, and that there is only one. */
static void one_line_error(const char *out, int st, int want_st, const char *text)
{
	ck_assert_msg(st == want_st, "exit %d, not %d: %s", st, want_st, out);
	ck_assert_msg(strstr(out, text), "no '%s' in: %s", text, out);
	ck_assert_msg(!strchr(out, '\n') || strchr(out, '\n') == out + strlen(out) - 1,
		      "more than one line: %s", out);
	ck_assert_msg(!strstr(out, "Segmentation") && !strstr(out, "Abort"), "%s", out);
}

/* play --ctf-direct into tmp/name with files limited to kib KiB: its
 * stderr, with the exit status checked (2). */
static char *limited_play(int kib, const char *scn, const char *name)
{
	int st;
	char *out = run_cmd(&st,
			    "bash -c 'trap \"\" XFSZ; ulimit -f %d; exec %s play %s --ctf-direct "
			    "-o %s/%s' 2>&1 >/dev/null",
			    kib, bin_path("icache-sim"), scn, tmp, name);
	ck_assert_msg(st == 2, "exit %d with files limited to %d KiB: %s", st, kib, out);
	return out;
}

START_TEST(direct_errors_are_one_line)
{
	int st;
	const char *sim = bin_path("icache-sim");
	const char *scn = "lessons/scenarios/umount-waits-for-prune.scn";
	char *out = run_cmd(&st, "%s play %s --ctf-direct 2>&1 >/dev/null", sim, scn);
	one_line_error(out, st, 2, "--ctf-direct writes the trace of -o DIR");
	free(out);
	out = run_cmd(&st, "%s play %s --ctf-direct -o %s/d/x 2>&1 >/dev/null; touch %s/file", sim,
		      scn, tmp, tmp);
	ck_assert_msg(st == 0, "%s", out); /* a new directory, parents made */
	free(out);
	out = run_cmd(&st, "%s play %s --ctf-direct -o %s/file 2>&1 >/dev/null", sim, scn, tmp);
	one_line_error(out, st, 2, "not a directory");
	free(out);
	/* A file size limit (SIGXFSZ ignored: the write fails with EFBIG):
	 * 4 KiB stops the metadata (13 KiB), 16 KiB this scenario's stream
	 * (20 KiB: its second packet). */
	out = limited_play(4, scn, "small");
	one_line_error(out, 2, 2, "/small/metadata: File too large");
	free(out);
	out = limited_play(16, scn, "short");
	one_line_error(out, 2, 2, "/short/icache_0: File too large");
	free(out);
}
END_TEST

/* A direct trace cut mid-packet is shown up to its last whole packet and
 * said to be incomplete, as an LTTng stream would (viewer/health.c walks
 * both: the packet header and context are laid out alike). */
START_TEST(cut_direct_trace_is_incomplete)
{
	int st;
	/* 20 KiB of events: two packets (16 KiB at most each) */
	char *out = play("umount-waits-for-prune", "cut", "--ctf-direct", &st);
	ck_assert_int_eq(st, 0);
	free(out);
	out = run_cmd(&st,
		      "f=%s/cut/icache_0; truncate -s $(( $(stat -c %%s $f) - 7 )) $f && "
		      "%s --summary --no-cache %s/cut 2>&1",
		      tmp, bin_path("icache-view"), tmp);
	ck_assert_msg(st == 0 && strstr(out, "cut mid-packet") && strstr(out, "INCOMPLETE TRACE"),
		      "exit %d: %s", st, out);
	free(out);
}
END_TEST

/* ---- lessons with no daemon reachable, in a real terminal -------------------- */

static char box[300]; /* the sandbox: bin, lessons, home, state, tmp */

static bool make_box(void)
{
	int st;
	free(run_cmd(&st, "command -v setpriv >/dev/null"));
	if (st != 0)
		return false;
	snprintf(box, sizeof(box), "%s/box", tmp);
	char *out = run_cmd(
		&st,
		"mkdir -p %s/bin %s/path %s/home %s/state %s/tmp && chmod 755 %s %s && "
		"cp %s %s %s/bin/ && cp -r lessons %s/lessons && "
		"{ [ ! -d %s/traces ] || cp -r %s/traces %s/traces; } && "
		"printf 'cp %s/lessons/scenarios/abba-fixed.scn \"$1\"\\n' > %s/editor.sh && "
		"chmod -R a+rX %s && ln -s /usr/bin/* %s/path/ && rm -f %s/path/lttng* && "
		"chown -R 4242:4242 %s/home %s/state %s/tmp 2>&1",
		box, box, box, box, box, tmp, box, bin_path("icache-lesson"),
		bin_path("icache-sim"), box, box, build_dir(), build_dir(), box, box, box, box, box,
		box, box, box, box);
	ck_assert_msg(st == 0, "cannot make the sandbox: %s", out);
	free(out);
	return true;
}

/* The environment of a user for whom no session daemon is reachable. */
static const char *as_student(void)
{
	static char env[2048];
	snprintf(env, sizeof(env),
		 "setpriv --reuid=4242 --regid=4242 --clear-groups env -i PATH=%s/path "
		 "HOME=%s/home LTTNG_HOME=%s/home XDG_STATE_HOME=%s/state TMPDIR=%s/tmp",
		 box, box, box, box, box);
	return env;
}

static void press(const char *k, const char *then)
{
	tmux_keys("l08", k);
	char *s = tmux_wait_screen("l08", then, 30);
	ck_assert_msg(s, "after %s, no '%s'; the screen:\n%s", k, then, tmux_capture("l08", false));
	free(s);
}

START_TEST(lesson_levels_without_daemon)
{
	int alive = lttng_session_daemon_alive();
	if (!make_box()) {
		fprintf(stderr, "test_direct: no setpriv: lessons without a daemon not tried\n");
		return;
	}
	/* No daemon answers this user: play says it wrote the trace itself. */
	int st;
	char *out = run_cmd(&st,
			    "%s %s/bin/icache-sim play %s/lessons/scenarios/abba-fixed.scn --quiet "
			    "--ctf-direct=auto -o %s/tmp/probe 2>&1",
			    as_student(), box, box, box);
	ck_assert_msg(st == 0 && strstr(out, "written directly: no LTTng session daemon answers"),
		      "exit %d: %s", st, out);
	free(out);
	free(run_cmd(&st, "rm -rf %s/tmp/probe", box));
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "%s TERM=\"$TERM\" LANG=C.UTF-8 EDITOR=\"sh %s/editor.sh\" %s/bin/icache-lesson "
		 "%s/lessons/08-lock-order-and-deadlock.lesson --step 5",
		 as_student(), box, box, box);
	tmux_start("l08", 150, 45, cmd);
	ck_assert_msg(tmux_wait_for("l08", "Step 5/6", 30), "%s", tmux_capture("l08", false));
	/* the level's solution, a press at a time: each one a recording */
	press("0", "Your schedule (1): 0");
	press("1", "Your schedule (2): 01");
	press("0", "Your schedule (3): 010");
	press("1", "GOAL REACHED");
	press("n", "Step 6/6");
	/* the edit exercise: the editor writes the fixed order */
	press("e", "Well done");
	press("q", "EXIT=0");
	tmux_kill("l08");
	out = run_cmd(&st, "find %s/tmp -mindepth 1; pgrep -u 4242 lttng-sessiond", box);
	ck_assert_msg(!out[0], "left behind without a daemon:\n%s", out);
	free(out);
	ck_assert_int_eq(lttng_session_daemon_alive(), alive);
}
END_TEST

/*
 * A daemon that answers but does not record (broken, or being restarted):
 * icache-lesson runs the simulator through a wrapper ($ICACHE_SIM) that
 * fails every LTTng recording the way record.c does; the student's press
 * is written directly all the same (lt_play_live), by the real simulator.
 */
START_TEST(lesson_level_when_recording_fails)
{
	char cwd[512], wrap[400];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(wrap, sizeof(wrap), "%s/broken-lttng", tmp);
	write_script(
		wrap,
		"#!/bin/sh\necho \"$*\" >> %s/calls\n"
		"case \"$*\" in *--ctf-direct=auto*) echo 'icache-sim play: this process did not "
		"register with the LTTng session daemon within 10 s' >&2; exit 2;; esac\n"
		"exec %s/%s \"$@\"\n",
		tmp, cwd, bin_path("icache-sim"));
	int st;
	char *out = run_cmd(&st,
			    "XDG_STATE_HOME=%s/state ICACHE_SIM=%s %s "
			    "lessons/08-lock-order-and-deadlock.lesson --step 5 --keys 0 "
			    "--screen 150x45 2>&1",
			    tmp, wrap, bin_path("icache-lesson"));
	ck_assert_msg(st == 0 && strstr(out, "Last press: cpu0"), "exit %d:\n%s", st, out);
	free(out);
	out = run_cmd(&st, "cat %s/calls", tmp);
	ck_assert_msg(strstr(out, "--ctf-direct=auto") && strstr(out, "--ctf-direct\n"),
		      "LTTng was not tried first, or the run not written directly:\n%s", out);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("direct");
	/* One tmux server and scratch directory for all (unchecked fixture). */
	TCase *tc = suite_case(s, "direct", 120, NULL);
	tcase_add_unchecked_fixture(tc, setup, teardown);
	/* The direct writer's traces against LTTng's, and its failures. */
	tcase_add_tests(tc, (const TTest *[]){ direct_and_lttng_agree,
					       auto_uses_the_daemon_when_it_answers,
					       direct_errors_are_one_line,
					       cut_direct_trace_is_incomplete, NULL });
	/* The lessons' trace level with no daemon, or a recorder that fails. */
	tcase_add_tests(tc, (const TTest *[]){ lesson_levels_without_daemon,
					       lesson_level_when_recording_fails, NULL });
	return run_suite(s);
}
