/*
 * test_screens.c - icache-view on small, projected and many-CPU screens,
 * in a real terminal (tmux send-keys / capture-pane), and its navigation:
 * Enter's details with a violation's both chains, the next-violation key,
 * the marks' time and event count, the timeline strip with the cursor, the
 * help's pages and legend, NO_COLOR and a terminal that cannot draw.
 *
 * Traces: a 2-CPU recording (merged, mixed), a 16-CPU virtual recording
 * (deterministic and fast) and the ABBA scenario played with -o (two
 * violations: a lock cycle and the deadlock).
 */
#include <time.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/app.h"

static char tmp[256], t2[300], t16[300], tabba[300], tv4[300], tlossy[300];
static int st2 = -1, st16 = -1, stabba = -1, stv4 = -1, stlossy = -1;

static void record(void)
{
	tmux_init("icview-screens");
	snprintf(tmp, sizeof(tmp), "/tmp/icview-screens.XXXXXX");
	if (!mkdtemp(tmp))
		return;
	snprintf(t2, sizeof(t2), "%s/t2", tmp);
	snprintf(t16, sizeof(t16), "%s/t16", tmp);
	snprintf(tabba, sizeof(tabba), "%s/abba", tmp);
	snprintf(tv4, sizeof(tv4), "%s/v4", tmp);
	snprintf(tlossy, sizeof(tlossy), "%s/lossy", tmp);
	free(run_cmd(&st2,
		     "%s record --scheme merged --workload mixed --cpus 2 --ops 600 --seed 3 "
		     "--quiet -o %s >%s/t2.log 2>&1",
		     bin_path("icache-sim"), t2, tmp));
	free(run_cmd(&st16,
		     "%s record --virtual --cpus 16 --ops 400 --quiet -o %s >%s/t16.log 2>&1",
		     bin_path("icache-sim"), t16, tmp));
	free(run_cmd(&stv4, "%s play lessons/scenarios/iput-lru-race-v4.scn -o %s >%s/v4.log 2>&1",
		     bin_path("icache-sim"), tv4, tmp));
	/* Sub-buffers far too small: the tracer discards (record exits 1).
	 * Whether a consumer falls behind depends on the host's timing: a run
	 * that lost nothing (exit 0) is recorded again, at most three times. */
	for (int i = 0; i < 3 && stlossy != 1; i++)
		free(run_cmd(&stlossy,
			     "rm -rf %s; %s record --scheme merged --cpus 2 --workload mixed "
			     "--duration 100ms --subbuf-size 4K --quiet -o %s >>%s/lossy.log 2>&1",
			     tlossy, bin_path("icache-sim"), tlossy, tmp));
	free(run_cmd(&stabba, "%s play lessons/scenarios/abba-deadlock.scn -o %s >%s/abba.log 2>&1",
		     bin_path("icache-sim"), tabba, tmp));
}

static void cleanup(void)
{
	int st;
	tmux_done();
	if (tmp[0])
		free(run_cmd(&st, "rm -rf %s", tmp));
}

/* ---- tmux ------------------------------------------------------------------ */

/* Run cmd in a w x h terminal; wait for text. */
static void start(const char *sess, int w, int h, const char *cmd, const char *text)
{
	tmux_start(sess, w, h, cmd);
	ck_assert_msg(tmux_wait_for(sess, text, 15), "%s: '%s' did not come up", sess, text);
}

/* The i-th line of s (0-based), in a static buffer. */
static const char *line_of(const char *s, int i)
{
	static char buf[2048];
	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s)
		return "";
	size_t n = strcspn(s, "\n");
	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	return buf;
}

/* ---- 80x24: two lanes, nothing cut in the middle of a value --------------- */

#define BAR "\xe2\x94\x82" /* │ */
#define CUR "\xe2\x96\xb6" /* ▶ */
#define ELL "\xe2\x80\xa6" /* … */

/* A row of the lanes: its event number and the text of its one
 * non-empty lane cell (with_ms: the row has the time column). */
static bool row_cell(const char *line, bool with_ms, char *num, size_t nlen, char *cell,
		     size_t clen)
{
	const char *p = line;
	if (!strncmp(p, BAR, 3))
		p += 3;
	if (!strncmp(p, CUR, 3))
		p += 3;
	else if (*p == ' ')
		p++;
	else
		return false;
	p += strspn(p, " ");
	size_t n = strspn(p, "0123456789");
	if (!n)
		return false;
	snprintf(num, nlen, "%.*s", (int)n, p);
	p += n;
	if (with_ms) {
		p += strspn(p, " ");
		p += strspn(p, "0123456789.");
	}
	while (*p) {
		const char *bar = strstr(p, BAR), *t = p;
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		while (len && *t == ' ') {
			t++;
			len--;
		}
		while (len && t[len - 1] == ' ')
			len--;
		if (len) {
			snprintf(cell, clen, "%.*s", (int)len, t);
			return true;
		}
		if (!bar)
			break;
		p = bar + 3;
	}
	return false;
}

/* The 80x24 cell of event num is its whole text (as a 400-column screen
 * at the same cursor shows it), or its first whole words and "…". */
static void check_cell(const char *wide, const char *num, const char *cell)
{
	char full[512] = "", n2[32];
	for (int y = 0; y < 80; y++) {
		char c2[512];
		if (row_cell(line_of(wide, y), true, n2, sizeof(n2), c2, sizeof(c2)) &&
		    !strcmp(n2, num)) {
			snprintf(full, sizeof(full), "%s", c2);
			break;
		}
	}
	ck_assert_msg(full[0], "event %s is not on the wide screen", num);
	const char *ell = strstr(cell, ELL);
	if (!ell) {
		ck_assert_msg(!strcmp(cell, full), "event %s: '%s' is not the whole of '%s'", num,
			      cell, full);
		return;
	}
	size_t n = (size_t)(ell - cell);
	ck_assert_msg(!strncmp(cell, full, n), "event %s: '%s' is not the start of '%s'", num, cell,
		      full);
	/* a whole word ends where the text has a space: before the cut
	 * ("HOLD i_lock …") or just after it ("} unlink 1025 =…") */
	ck_assert_msg(n == 0 || cell[n - 1] == ' ' || full[n] == ' ',
		      "event %s: '%s' cuts a word of '%s'", num, cell, full);
}

/*
 * The viewer on trace in a w x h terminal, in the tmux session name
 * (returned), once the fixture's recording of it exited with status 0
 * (its log is TRACE.log).
 */
static const char *screen_of(const char *name, int w, int h, const char *trace, int status)
{
	ck_assert_msg(status == 0, "recording %s failed (%d): see %s.log", trace, status, trace);
	tmux_view(name, w, h, "", trace);
	return name;
}

START_TEST(small_screen_two_lanes)
{
	const char *s = screen_of("scr-80x24", 80, 24, t2, st2);
	char *scr = tmux_expect_screen(s, ": 3 0 0 0 Enter", "#3000/", 5);
	const char *title = line_of(scr, 2);
	ck_assert_msg(strstr(title, "cpu0") && strstr(title, "cpu1"),
		      "80x24 should show the lanes of cpu0 and cpu1:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "Held locks"), "and the held locks:\n%.1500s", scr);
	/* Every row of the lanes: whole texts or whole words and "…". */
	int st;
	char *wide = run_cmd(&st, "LANG=C.UTF-8 %s --keys ':3000<Enter>' --screen 400x80 %s",
			     bin_path("icache-view"), t2);
	int rows = 0;
	for (int y = 3; y < 14; y++) {
		char num[32], cell[512];
		if (row_cell(line_of(scr, y), false, num, sizeof(num), cell, sizeof(cell))) {
			check_cell(wide, num, cell);
			rows++;
		}
	}
	ck_assert_msg(rows >= 8, "only %d lane rows at 80x24:\n%s", rows, scr);
	free(wide);
	free(scr);
	tmux_kill(s);
}
END_TEST

/* ---- many CPUs: the compact lanes, the lane picker, the held locks ------- */

START_TEST(sixteen_cpus_compact)
{
	const char *s = screen_of("scr-16", 160, 45, t16, st16);
	char *scr = tmux_expect_screen(s, ": 1 5 0 0 Enter", "#1500/", 5);
	/* The compact view: a column per CPU, every one of them in view. */
	const char *head = line_of(scr, 2);
	char want[8];
	const char *p = head;
	for (int cpu = 0; cpu < 16; cpu++) {
		snprintf(want, sizeof(want), " %d ", cpu);
		const char *q = strstr(p, want);
		ck_assert_msg(q, "cpu%d has no column at 160x45:\n%s", cpu, head);
		p = q + 1;
	}
	ck_assert_msg(strstr(scr, "classes: "), "no class legend:\n%.1500s", scr);
	/* a holder is a thread's name, never "cpu-1" (EVENTS.md: -1 is a
	 * lock released between the try and the look) */
	ck_assert_msg(!strstr(scr, "cpu-1"), "a thread named cpu-1:\n%.1500s", scr);
	free(scr);
	/* Held locks: the idle CPUs on one line, not one line each. */
	tmux_expect(s, "G", "no lock held: cpu0-", 5);
	/* C: the text lanes, with the CPUs out of view in a column of their own. */
	scr = tmux_expect_screen(s, ": 1 5 0 0 Enter C", "text lanes", 5);
	ck_assert_msg(strstr(line_of(scr, 2), " cpus"), "no others column:\n%.1500s", scr);
	free(scr);
	/* p: pick the lanes. */
	scr = tmux_expect_screen(s, "p 1 2 - 1 3 Enter", "cpu13", 5);
	char lanes[1024];
	snprintf(lanes, sizeof(lanes), "%s", line_of(scr, 2));
	if (strstr(lanes, BAR BAR))
		*strstr(lanes, BAR BAR) = 0; /* the lanes pane only */
	head = lanes;
	ck_assert_msg(strstr(head, "cpu12") && strstr(head, "cpu13") && !strstr(head, "cpu0 "),
		      "picked lanes 12-13 not shown alone:\n%s", head);
	free(scr);
	tmux_kill(s);
}
END_TEST

/* ---- Enter, v/V, marks ------------------------------------------------------ */

START_TEST(details_of_a_violation)
{
	const char *s = screen_of("scr-details", 120, 40, tabba, stabba);
	tmux_expect(s, "v", "!! lock_cycle", 5);
	char *scr = tmux_expect_screen(s, "Enter", "Event details", 5);
	ck_assert_msg(strstr(scr, "Both chains"), "no chains:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "existing: test_lock_a (taken in test_abba) -> test_lock_b"),
		      "no existing chain:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "new: test_lock_b (taken in test_abba) -> test_lock_a"),
		      "no new chain:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "possible circular locking dependency"), "no report:\n%.1500s",
		      scr);
	free(scr);
	/* v in the details: the next violation (the deadlock), its details. */
	tmux_expect(s, "v", "waits-for cycle", 5);
	tmux_keys(s, "Escape");
	for (int i = 0; i < 40; i++) {
		scr = tmux_capture(s, false);
		bool gone = !strstr(scr, "Event details");
		free(scr);
		if (gone)
			break;
		sleep_ms(50);
	}
	scr = tmux_capture(s, false);
	ck_assert_msg(!strstr(scr, "Event details"), "Esc did not close the details");
	free(scr);
	tmux_expect(s, "V", "!! lock_cycle", 5);
	tmux_expect(s, "V", "no violation above", 5);
	tmux_kill(s);
}
END_TEST

START_TEST(marks_measure)
{
	const char *s = screen_of("scr-marks", 120, 40, t2, st2);
	char *scr = tmux_expect_screen(s, ": 1 0 0 Enter m a : 3 5 0 Enter", " #350/", 5);
	ck_assert_msg(strstr(scr, "mark a->cursor +") && strstr(scr, ", 250 events"),
		      "no measure, or a wrong one, on the status line:\n%.1500s", scr);
	free(scr);
	tmux_expect(s, ": 5 0 Enter", "mark a->cursor -", 5);
	ck_assert(tmux_wait_for(s, ", 50 events", 5));
	tmux_kill(s);
}
END_TEST

/* ---- notes and losses: a/A, x/X; figures of an incomplete trace --------- */

START_TEST(notes_and_losses)
{
	const char *s = screen_of("scr-notes", 120, 40, tv4, stv4);
	tmux_expect(s, "a", " note text=", 5);
	tmux_expect(s, "G A", "note text=cpu1 has freed the inode", 5);
	tmux_kill(s);

	ck_assert_msg(stlossy == 1,
		      "record with 4K sub-buffers should lose events (see %s/lossy.log)", tmp);
	s = "scr-loss";
	tmux_view(s, 160, 45, "", tlossy);
	tmux_expect(s, "x", "LOST ", 5);
	tmux_expect(s, "Enter", "every figure across it is a lower bound", 5);
	char *scr = tmux_expect_screen(s, "Escape", "Timeline", 5);
	ck_assert_msg(strstr(scr, "LOWER BOUNDS") && strstr(scr, "lost events"),
		      "the strip does not mark an incomplete trace:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "LOWER BOUNDS, events lost"), "hot locks not marked:\n%.1500s",
		      scr);
	free(scr);
	tmux_kill(s);
	/* At 80 columns the header cuts the path, not the word INCOMPLETE. */
	int st;
	scr = run_cmd(&st, "LANG=C.UTF-8 %s --screen 80x24 %s", bin_path("icache-view"), tlossy);
	ck_assert_msg(strstr(line_of(scr, 0), "INCOMPLETE ("), "80x24 header: %s", line_of(scr, 0));
	free(scr);
}
END_TEST

/* ---- time: the strip with the cursor, the hot locks ----------------------- */

/* Column of the cursor mark (▼) on the strip's axis, -1 if none. */
static int cursor_col(const char *scr)
{
	for (int y = 0; y < 60; y++) {
		const char *l = line_of(scr, y);
		const char *p = strstr(l, "\xe2\x96\xbc");
		if (p && strstr(l, "contentions")) {
			int col = 0;
			for (const char *q = l; q < p; q++)
				col += (*q & 0xc0) != 0x80;
			return col;
		}
	}
	return -1;
}

START_TEST(timeline_strip)
{
	const char *s = screen_of("scr-time", 160, 45, t2, st2);
	ck_assert(tmux_wait_for(s, "Timeline", 5));
	/* A slice where the global hash lock was contended. */
	char *scr = tmux_expect_screen(s, "/ lock_contended Space inode_hash_lock Enter",
				       "search: lock_contended inode_hash_lock", 5);
	/* The recording is a free run: the first contention on the hash
	 * lock may fall in a slice where other locks waited longer and fill
	 * the hot list.  Go on to the next match until hash 0 is among them. */
	for (int i = 0; i < 40 && !strstr(scr, BAR "hash 0 "); i++) {
		tmux_keys(s, "n");
		sleep_ms(100);
		free(scr);
		scr = tmux_capture(s, false);
	}
	ck_assert_msg(cursor_col(scr) >= 0, "no cursor on the strip:\n%.1500s", scr);
	ck_assert_msg(strstr(scr, "Hot locks") && strstr(scr, "waited"), "no hot locks:\n%.1500s",
		      scr);
	/* The hot locks count the strip's slice: the global hash lock's
	 * time waited there is the hash row's figure at the cursor. */
	const char *h0 = strstr(scr, BAR "hash 0 ");
	ck_assert_msg(h0, "no hash 0 among the hot locks:\n%.1500s", scr);
	h0 += strlen(BAR "hash 0 ");
	h0 += strspn(h0, " ");
	char waited[32];
	snprintf(waited, sizeof(waited), "%.*s", (int)(strstr(h0, "  ") - h0), h0);
	bool agree = false;
	for (int y = 0; y < 50 && !agree; y++) {
		const char *l = line_of(scr, y);
		agree = !strncmp(l, BAR "hash ", strlen(BAR "hash ")) && strstr(l, waited);
	}
	ck_assert_msg(agree, "hot hash 0 waited %s, not on the strip's hash row:\n%.1500s", waited,
		      scr);
	free(scr);
	scr = tmux_expect_screen(s, "g", " #0/", 5);
	int c0 = cursor_col(scr);
	free(scr);
	tmux_keys(s, "G");
	int c1 = c0;
	scr = NULL;
	for (int i = 0; i < 100 && c1 <= c0; i++) { /* until the frame after G */
		sleep_ms(50);
		free(scr);
		scr = tmux_capture(s, false);
		c1 = cursor_col(scr);
	}
	ck_assert_msg(c1 > c0, "the strip's cursor did not move right (%d -> %d):\n%.1500s", c0, c1,
		      scr);
	/* A class row with levels, and the hottest instances of the slice. */
	ck_assert_msg(strstr(scr, "hash ") &&
			      (strstr(scr, "\xe2\x96\x81") || strstr(scr, "\xe2\x96\x88")),
		      "no sparkline:\n%.1500s", scr);
	free(scr);
	tmux_expect(s, "T", "time waited ", 5);
	tmux_kill(s);
}
END_TEST

/* ---- help: pages and legend; nothing dropped at 80x24 ---------------------- */

START_TEST(help_pages_keep_every_key)
{
	ck_assert_msg(st2 == 0, "record failed");
	char all[65536] = "";
	size_t used = 0;
	bool legend = false;
	for (int page = 0; page < 12; page++) {
		char k[64] = "?";
		for (int i = 0; i < page; i++)
			strcat(k, "<Space>");
		int st;
		char *s = run_cmd(&st, "LANG=C.UTF-8 %s --keys '%s' --screen 80x24 %s",
				  bin_path("icache-view"), k, t2);
		if (!strstr(s, "Help ")) {
			free(s);
			break; /* past the last page */
		}
		legend |= strstr(s, ": legend") != NULL;
		used += (size_t)snprintf(all + used, sizeof(all) - used, "%s", s);
		free(s);
	}
	ck_assert_msg(legend, "no legend page");
	for (int i = 0; i < nkeys; i++) {
		char first[24];
		snprintf(first, sizeof(first), "%s", keytab[i].help); /* fits any page */
		ck_assert_msg(strstr(all, first), "key '%s' (%s) is on no help page",
			      keytab[i].label, first);
	}
	ck_assert_msg(strstr(all, "HOLD i_lock 42") && strstr(all, "WAIT hash cpu1"),
		      "the legend lacks the lane words");
}
END_TEST

/* ---- colours: NO_COLOR, a terminal that cannot draw, the lesson runner --- */

/* Does session sess draw in colour (want) or not?  who: what it runs. */
static void assert_colour(const char *sess, bool want, const char *who)
{
	char *scr = tmux_capture(sess, true);
	ck_assert_msg(has_colour_sgr(scr) == want, "%s draws %s", who,
		      want ? "no colour" : "colour");
	free(scr);
}

START_TEST(terminals)
{
	ck_assert_msg(st2 == 0, "record failed");
	char cmd[1024];
	/* TERM=dumb and an unknown TERM: one line, exit 2, no curses mess. */
	snprintf(cmd, sizeof(cmd), "env TERM=dumb %s %s", bin_path("icache-view"), t2);
	start("scr-dumb", 160, 10, cmd, "EXIT=2");
	char *scr = tmux_capture("scr-dumb", false);
	ck_assert_msg(
		strstr(scr, "icache-view: the terminal type TERM=dumb cannot move the cursor"),
		"%s", scr);
	ck_assert_msg(strstr(scr, "--summary"), "no way out offered:\n%.1500s", scr);
	free(scr);
	snprintf(cmd, sizeof(cmd), "env TERM=no-such-term-xyz %s %s", bin_path("icache-view"), t2);
	start("scr-unknown", 160, 10, cmd, "EXIT=2");
	scr = tmux_capture("scr-unknown", false);
	ck_assert_msg(strstr(scr, "TERM=no-such-term-xyz is unknown here"), "%s", scr);
	free(scr);
	/* Colour by default, none under NO_COLOR, in the viewer and the lesson runner alike. */
	tmux_view("scr-colour", 120, 40, "", t2);
	assert_colour("scr-colour", true, "the viewer");
	snprintf(cmd, sizeof(cmd), "env HOME=%s XDG_STATE_HOME= LANG=C.UTF-8 %s 1", tmp,
		 bin_path("icache-lesson"));
	start("scr-lesson", 120, 40, cmd, "icache-lesson 01");
	assert_colour("scr-lesson", true, "the lesson runner");
	snprintf(cmd, sizeof(cmd), "env HOME=%s XDG_STATE_HOME= LANG=C.UTF-8 NO_COLOR=1 %s 1", tmp,
		 bin_path("icache-lesson"));
	start("scr-lesson-nc", 120, 40, cmd, "icache-lesson 01");
	assert_colour("scr-lesson-nc", false, "the lesson runner under NO_COLOR");
	tmux_view("scr-nocolor", 120, 40, "NO_COLOR=1", t2);
	assert_colour("scr-nocolor", false, "the viewer under NO_COLOR");
	const char *all[] = { "scr-dumb",   "scr-unknown",   "scr-colour",
			      "scr-lesson", "scr-lesson-nc", "scr-nocolor" };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tmux_kill(all[i]);
}
END_TEST

int main(void)
{
	return run_tests("screens", record, cleanup, 120, /* sanitizer builds are slower */
			 (const TTest *[]){ small_screen_two_lanes, sixteen_cpus_compact,
					    details_of_a_violation, marks_measure, timeline_strip,
					    notes_and_losses, help_pages_keep_every_key, terminals,
					    NULL });
}
