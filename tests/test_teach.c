/*
 * test_teach.c - icache-view as a teaching surface, on the shipped
 * scenarios: the source pane, an inode's whole life, the unprotected
 * span, the lock order live, named threads and sleeps on an inode.
 *
 * Each scenario is played once into a real LTTng trace (icache-sim play
 * -o); the viewer runs in a real terminal under tmux (send-keys,
 * capture-pane).  Expected lines and event numbers are read from the
 * trace itself (babeltrace2) or the scheme file, never written here.
 */
#include <stdint.h>
#include <time.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/source.h"

static char tmp[256];
static char v4[300], merged_race[300], umount_nosem[300], wait_freeing[300], life[300];
static char new_wait[300], will_free[300];
static int play_status = -1;

static int play(const char *scn, char *out, size_t len)
{
	int st;
	snprintf(out, len, "%s/%s", tmp, scn);
	free(run_cmd(&st, "%s play lessons/scenarios/%s.scn -o %s >%s/%s.log 2>&1",
		     bin_path("icache-sim"), scn, out, tmp, scn));
	return st;
}

static void record_traces(void)
{
	tmux_init("icteach-test");
	scratch_make(tmp, sizeof(tmp), "icteach-test");
	if (!tmp[0])
		return;
	play_status = play("iput-lru-race-v4", v4, sizeof(v4)) |
		      play("iput-lru-race-merged", merged_race, sizeof(merged_race)) |
		      play("umount-without-iprune-sem", umount_nosem, sizeof(umount_nosem)) |
		      play("wait-on-freeing", wait_freeing, sizeof(wait_freeing)) |
		      play("one-inode-life", life, sizeof(life)) |
		      play("i-new-wait", new_wait, sizeof(new_wait)) |
		      play("will-free-handoff", will_free, sizeof(will_free));
}

static void cleanup(void)
{
	scratch_remove(tmp);
	tmux_done();
}

static void need_traces(void)
{
	ck_assert_msg(play_status == 0, "icache-sim play failed: see %s/*.log", tmp);
}

/* The viewer on the recording trace in a w x h terminal, in the tmux
 * session name (returned), once the recordings are known to be there. */
static const char *teach_view(const char *name, int w, int h, const char *trace)
{
	need_traces();
	tmux_view(name, w, h, "", trace);
	return name;
}

/* The last SGR escape before the first occurrence of mark in s ("" if none). */
static void sgr_before(const char *s, const char *mark, char *out, size_t len)
{
	const char *m = strstr(s, mark), *best = NULL;
	out[0] = 0;
	for (const char *p = s; m && (p = strstr(p, "\033[")) && p < m; p++)
		best = p;
	if (best)
		snprintf(out, len, "%.*s", (int)(strcspn(best, "m") + 1), best);
}

/* ---- what the trace says ----------------------------------------------------- */

/*
 * Walk babeltrace2's text of trace up to the first inode_state event by
 * `cpu` that sets I_FREEING; give each CPU's last scheme line up to there
 * (line[cpu], 0 if none).  Returns false if there is no such event.
 */
static bool lines_at_freeing(const char *trace, int cpu, int line[2])
{
	int st;
	char *out = run_cmd(&st, "babeltrace2 %s", trace);
	char who[32];
	snprintf(who, sizeof(who), "{ cpu = %d,", cpu);
	line[0] = line[1] = 0;
	bool found = false;
	for (char *p = out; p && *p && !found;) {
		char *eol = strchr(p, '\n');
		if (eol)
			*eol = 0;
		const char *c = strstr(p, "{ cpu = "), *l = strstr(p, "src = ( \"scheme\"");
		int n = c ? atoi(c + 8) : -1;
		if (l && n >= 0 && n < 2 && strstr(l, "line = "))
			line[n] = atoi(strstr(l, "line = ") + 7);
		const char *ns = strstr(p, "new_state = 0x");
		if (strstr(p, "icache:inode_state") && strstr(p, who) && ns &&
		    (strtoul(ns + 12, NULL, 16) & 0x20) && strstr(p, "\"iput_final\""))
			found = true;
		p = eol ? eol + 1 : NULL;
	}
	free(out);
	return found;
}

/* Line n of path, without leading blanks (static buffer). */
static const char *file_line(const char *path, int n)
{
	static char buf[512];
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	for (int i = 1; f && fgets(buf, sizeof(buf), f) && i < n; i++)
		;
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	char *p = buf;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* ---- the tests --------------------------------------------------------------- */

/* The v4 race: when cpu1 sets I_FREEING in iput_final, cpu0 is still in
 * iput_final (it has dropped i_lock); the source pane marks both lines. */
START_TEST(source_marks_both_cpus_in_iput_final)
{
	need_traces();
	int line[2];
	ck_assert_msg(lines_at_freeing(v4, 1, line), "no I_FREEING by cpu1 in iput_final");
	ck_assert(line[0] > 0 && line[1] > 0);
	const char *s = teach_view("teach-src", 200, 60, v4);
	tmux_expect(s, "/ I_FREEING Enter", "search: I_FREEING", 5);
	tmux_expect(s, "s", "Source", 5);
	/* focus it, then zoom it */
	char *scr = tmux_expect_screen(s, "Tab Tab Tab z", "[ Source ]", 5);
	ck_assert_msg(strstr(scr, "cpu0 iput_final line:") && strstr(scr, "cpu1 iput_final line:"),
		      "both CPUs are not shown in iput_final:\n%.1500s", scr);
	for (int c = 0; c < 2; c++) {
		char mark[16], num[16], code[64];
		snprintf(mark, sizeof(mark), "%d>", c);
		snprintf(num, sizeof(num), " %d ", line[c]);
		snprintf(code, sizeof(code), "%.40s",
			 file_line("sim/schemes/inode-scale-v4.c", line[c]));
		ck_assert_msg(line_has(scr, mark, num) && line_has(scr, num, code),
			      "cpu%d's line %d (%s) not marked:\n%s", c, line[c], code, scr);
	}
	ck_assert_ptr_null(strstr(scr, "DIFFERS"));
	free(scr);
	/* each CPU's mark in its own colour */
	scr = tmux_capture(s, true);
	char c0[32], c1[32];
	sgr_before(scr, "0>", c0, sizeof(c0));
	sgr_before(scr, "1>", c1, sizeof(c1));
	ck_assert_msg(c0[0] && c1[0] && strcmp(c0, c1), "the marks share a colour ('%s' '%s')",
		      c0 + 1, c1 + 1);
	free(scr);
}
END_TEST

/* Below 120x32 the lanes take the full width with one pane under them:
 * after s that pane is the source pane, not the held locks (the status
 * line says "source pane", so it must be on screen). */
START_TEST(source_pane_on_a_small_screen)
{
	need_traces();
	const char *s = teach_view("teach-src-small", 100, 28, v4);
	tmux_expect(s, "/ I_FREEING Enter", "search: I_FREEING", 5);
	char *scr = tmux_expect_screen(s, "s", "source pane: each CPU's line", 5);
	ck_assert_msg(strstr(scr, "Source") && strstr(scr, "cpu1 iput_final line:"),
		      "s on a 100x28 screen says source pane but shows none:\n%.1500s", scr);
	ck_assert_msg(!strstr(scr, "Held locks"), "the held locks are still below:\n%.1500s", scr);
	free(scr);
	/* s again: the held locks come back */
	tmux_expect(s, "s", "Held locks", 5);
}
END_TEST

/* cpu0 drops i_lock in iput_final with no reference: from there to its
 * next touch of inode 42 (the violation), it is drawn UNPROTECTED. */
START_TEST(unprotected_span)
{
	const char *s = teach_view("teach-unprot", 200, 50, v4);
	/* the first narration line: "the window" */
	tmux_expect(s, "/ note Enter", "-- cpu0 has dropped i_lock", 5);
	ck_assert_msg(
		tmux_wait_for(s, "UNPROTECTED: holds inode 42 with no reference and no lock", 5),
		"the held-locks pane does not say cpu0 is unprotected");
	char *scr = tmux_capture(s, false);
	ck_assert_msg(strstr(scr, "\xe2\x94\x8a UNPROTECTED 42"), /* ┊ */
		      "no unprotected span in cpu0's lane:\n%.1500s", scr);
	free(scr);
	tmux_kill(s);
	/* The definition is truthful: no span on the same race fixed
	 * (merged), exactly one on the racy series. */
	int st;
	char *out = run_cmd(&st, "%s --summary %s", bin_path("icache-view"), v4);
	ck_assert_msg(strstr(out, "unprotected  1 span "), "%.1500s", out);
	free(out);
	out = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), merged_race);
	ck_assert_msg(json_num(out, NULL, "unprotected_spans") == 0, "%.1500s", out);
	free(out);
}
END_TEST

/* On free-running recordings: no span on global, merged (the fixed
 * order), vfs-scale (whose evict may end after a new inode of the same
 * number is built: lives are told apart) nor modern (its shrinker's
 * unlocked page stripping is covered by I_LRU_ISOLATING, its LRU by
 * list_lru_lock); some on inode-scale-v4 (its iput_final window is open
 * on every cached iput). */
START_TEST(unprotected_free_runs)
{
	const char *schemes[] = { "global", "vfs-scale", "merged", "modern", "inode-scale-v4" };
	for (int k = 0; k < 5; k++) {
		int st;
		char dir[400];
		snprintf(dir, sizeof(dir), "%s/free-%s", tmp, schemes[k]);
		free(run_cmd(&st,
			     "%s record --scheme %s --workload mixed --cpus 2 --ops 1500 --seed 3 "
			     "--quiet -o %s >/dev/null 2>&1",
			     bin_path("icache-sim"), schemes[k], dir));
		ck_assert_msg(st == 0, "record %s failed", schemes[k]);
		char *out = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), dir);
		double n = json_num(out, NULL, "unprotected_spans");
		ck_assert_msg(k < 4 ? n == 0 : n > 0, "%s: %g spans", schemes[k], n);
		free(out);
	}
}
END_TEST

/*
 * Two owners at once, each by its own bit: writeback's I_SYNC keeps its
 * pointer safe while another CPU's last iput sets I_FREEING (evict waits
 * for I_SYNC), and writeback's list move from b_dirty to b_io, with the
 * scheduler's step narration between its two halves, is one move.  Both
 * were once drawn as races (a free run of modern showed one now and then).
 */
START_TEST(two_owners_no_span)
{
	int st;
	char dir[300];
	ck_assert(play("modern-writeback-vs-unlink", dir, sizeof(dir)) == 0);
	/* the interleaving happened: I_FREEING and I_SYNC set at once */
	char *bt = run_cmd(&st, "babeltrace2 %s | grep -c 'new_state = 0xA0,'", dir);
	ck_assert_msg(st == 0 && atoi(bt) > 0, "no inode with I_FREEING|I_SYNC in %s", dir);
	free(bt);
	char *out = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), dir);
	ck_assert_int_eq(st, 0);
	double n = json_num(out, NULL, "unprotected_spans");
	ck_assert_msg(n == 0, "%g unprotected spans where writeback held I_SYNC:\n%.2000s", n, out);
	free(out);
}
END_TEST

/* One inode's life: LRU add, dispose and the violation that names it,
 * pinned from the violation; only the past of the cursor. */
START_TEST(inode_history)
{
	const char *s = teach_view("teach-inode", 200, 60, umount_nosem);
	/* after a jump the pane still follows an inode */
	tmux_expect(s, "G", "(the last one touched; i pins)", 5);
	tmux_expect(s, ": 0 Enter / busy_inodes Enter i", "[pinned: i unpins]", 5);
	/* i focused the inode pane */
	char *scr = tmux_expect_screen(s, "z", "[ Inode ]", 5);
	ck_assert_msg(line_has(scr, "add lru", "iput_final") &&
			      line_has(scr, "add dispose", "prune_icache") &&
			      strstr(scr, "!! busy_inodes"),
		      "the life misses LRU add, dispose or the violation:\n%.1500s", scr);
	ck_assert_msg(line_has(scr, "add dispose", "under lru"), "no lock held shown:\n%.1500s",
		      scr);
	ck_assert_msg(line_has(scr, "add lru", "line:"), "no source line:\n%.1500s", scr);
	/* the violation's entry too: its function and its CPU's last line */
	ck_assert_msg(line_has(scr, "!! busy_inodes", "generic_shutdown_super") &&
			      (line_has(scr, "!! busy_inodes", " core:") ||
			       line_has(scr, "!! busy_inodes", " line:")),
		      "the violation's entry says not where:\n%.1500s", scr);
	/* Just before the violation: it is not shown (lessons hide the future). */
	const char *st = strstr(scr, "\n #"); /* the status line: #N/M */
	long viol = st ? strtol(st + 3, NULL, 10) : 0;
	ck_assert(viol > 0);
	free(scr);
	tmux_goto(s, viol - 1);
	scr = tmux_capture(s, false);
	ck_assert_msg(!strstr(scr, "!! busy_inodes") && strstr(scr, "add dispose"),
		      "the future leaks into the history:\n%.1500s", scr);
	free(scr);
}
END_TEST

/* The edge an acquire adds is highlighted; the acquire says what is held. */
START_TEST(new_edge_highlight)
{
	const char *s = teach_view("teach-edge", 200, 50, v4);
	char *scr = tmux_expect_screen(s, "G", "run_end", 5);
	const char *e = strstr(scr, "hash_bucket \xe2\x86\x92 i_lock x");
	ck_assert_msg(e && strstr(e, "first #"), "no hash_bucket -> i_lock edge:\n%.1500s", scr);
	long first = strtol(strstr(e, "first #") + 7, NULL, 10);
	free(scr);
	tmux_goto(s, first);
	scr = tmux_capture(s, false);
	ck_assert_msg(line_has(scr, "NEW, this event: hash_bucket", "\xe2\x86\x92 i_lock"),
		      "the new edge is not highlighted:\n%.1500s", scr);
	ck_assert_msg(line_has(scr, "lock_acquire i_lock", ", under hash_bucket"),
		      "the acquire does not say what is held:\n%.1500s", scr);
	/* the documented order as a nested tree: i_lock indented below its outer */
	ck_assert_ptr_nonnull(strstr(scr, "documented order"));
	ck_assert_msg(strstr(scr, "  iprune_sem") && strstr(scr, "    hash_bucket"),
		      "no nested order tree:\n%.1500s", scr);
	free(scr);
}
END_TEST

/* Column (not byte) of p in its line s..p: UTF-8 continuation bytes take none. */
static int col_of(const char *bol, const char *p)
{
	int c = 0;
	for (const char *q = bol; q < p; q++)
		c += ((unsigned char)*q & 0xc0) != 0x80;
	return c;
}

/* The byte of line bol at column col (or its end). */
static const char *at_col(const char *bol, int col)
{
	const char *q = bol;
	for (int c = 0; *q && *q != '\n'; q++) {
		if (((unsigned char)*q & 0xc0) != 0x80 && c++ == col)
			return q;
	}
	return q;
}

/*
 * The documented order as the pane draws it: the text of the rows under
 * "documented order", from its column to the pane's border, one row a
 * line, into out.  Returns the rows, 0 if there is no such title.
 */
static int order_tree_text(const char *scr, char *out, size_t len)
{
	const char *t = strstr(scr, "documented order");
	if (!t)
		return 0;
	const char *bol = t;
	while (bol > scr && bol[-1] != '\n')
		bol--;
	int col = col_of(bol, t), rows = 0;
	size_t o = 0;
	out[0] = 0;
	for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *from = at_col(l + 1, col), *end = strstr(from, "\xe2\x94\x82");
		const char *eol = strchr(from, '\n');
		if (!end || (eol && end > eol) || strstr(from, "edges held") == from)
			break;
		int n = (int)(end - from);
		if (strspn(from, " ") >= (size_t)n)
			break; /* a blank row: the tree is over */
		o += (size_t)snprintf(out + o, len - o, "%.*s\n", n, from);
		rows++;
		if (o >= len)
			break;
	}
	return rows;
}

/* Tab until pane `title` has the focus (the status line ends "[title]"),
 * each Tab waiting for the focus to move: true if it got there. */
static bool focus_pane(const char *s, const char *title)
{
	char want[64];
	snprintf(want, sizeof(want), "[%s]", title);
	for (int i = 0; i < 16; i++) {
		char *scr = tmux_capture(s, false);
		const char *st = strrchr(scr, '[');
		char now[64];
		snprintf(now, sizeof(now), "%.*s", st ? (int)strcspn(st, "]") + 1 : 0,
			 st ? st : "");
		free(scr);
		if (!strcmp(now, want))
			return true;
		tmux_keys(s, "Tab");
		if (now[0] && !tmux_wait_gone(s, now, 10))
			return false;
	}
	return false;
}

/* The documented order as a nested tree, wrapped into columns, never cut,
 * in the order pane at 160x45 and 80x24 (where the rules were once only
 * wrapped text): every class of the rules is there whole, s_umount's inner
 * nested two columns in, no "..." cut mark in it. */
START_TEST(order_tree_small_screens)
{
	need_traces();
	int st;
	char *js = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), v4);
	const char *o = strstr(js, "\"order\":\"");
	ck_assert_msg(o, "no documented order in the summary:\n%s", js);
	char rules[600];
	snprintf(rules, sizeof(rules), "%.*s", (int)strcspn(o + 9, "\""), o + 9);
	free(js);
	static const struct {
		int w, h;
		const char *keys;
	} sizes[] = { { 160, 45, "G" }, { 80, 24, "G" } };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const char *s = "teach-order";
		tmux_view(s, sizes[k].w, sizes[k].h, "", v4);
		tmux_keys(s, sizes[k].keys);
		ck_assert(tmux_wait_for(s, "run_end", 10));
		/* at 80x24 the focused pane shows under the lanes */
		ck_assert_msg(sizes[k].w > 80 || focus_pane(s, "Lock order"),
			      "the order pane cannot be focused at 80x24");
		char *scr = tmux_wait_screen(s, "documented order", 5);
		ck_assert_msg(scr, "no documented order at %dx%d", sizes[k].w, sizes[k].h);
		ck_assert_msg(tmux_wait_for(s, "Lock order", 5), "%s", scr);
		char tree[4000];
		int rows = order_tree_text(scr, tree, sizeof(tree));
		ck_assert_msg(rows >= 3, "no tree under the title at %dx%d:\n%s", sizes[k].w,
			      sizes[k].h, scr);
		ck_assert_msg(!strstr(tree, "\xe2\x80\xa6"), "the tree is cut at %dx%d:\n%s",
			      sizes[k].w, sizes[k].h, tree);
		/* every class of the rules, whole (lock_stat's narrow names allowed) */
		char copy[600];
		snprintf(copy, sizeof(copy), "%s", rules);
		for (char *save, *n = strtok_r(copy, " >;,", &save); n;
		     n = strtok_r(NULL, " >;,", &save)) {
			const char *narrow = strncmp(n, "inode_", 6) ? n : n + 6;
			char w1[80], w2[80];
			snprintf(w1, sizeof(w1), " %s ", n);
			snprintf(w2, sizeof(w2), " %s ", narrow);
			char padded[4200];
			snprintf(padded, sizeof(padded), " %s", tree);
			for (char *q = padded; *q; q++)
				if (*q == '\n')
					*q = ' ';
			ck_assert_msg(strstr(padded, w1) || strstr(padded, w2),
				      "%s is not whole in the tree at %dx%d:\n%s", n, sizes[k].w,
				      sizes[k].h, tree);
		}
		/* nested: the first root's inner two columns in, on the next row */
		ck_assert_msg(!strncmp(tree, "s_umount", 8) && strstr(tree, "\n  iprune_sem"),
			      "not nested at %dx%d:\n%s", sizes[k].w, sizes[k].h, tree);
		free(scr);
		tmux_kill(s);
	}
}
END_TEST

/* Threads are named as they are; the CPU count is run_begin's. */
START_TEST(named_threads)
{
	const char *s = teach_view("teach-threads", 200, 50, umount_nosem);
	char *scr = tmux_capture(s, false);
	ck_assert_msg(strstr(scr, " 2 CPUs "), "header:\n%.1500s", scr);
	/* the lanes' title row */
	ck_assert_msg(line_has(scr, "event ", " cpu0 ") && line_has(scr, "event ", "cpu1 ") &&
			      line_has(scr, "event ", "setup "),
		      "lanes not named cpu0, cpu1, setup:\n%.1500s", scr);
	ck_assert_ptr_null(strstr(scr, "cpu2"));
	free(scr);
	tmux_kill(s);
	int st;
	char *out = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), umount_nosem);
	ck_assert_int_eq((int)json_num(out, NULL, "cpus"), 2);
	ck_assert_int_eq((int)json_num(out, NULL, "threads"), 3);
	free(out);
	/* The narration is the player's main thread; a grace period's end
	 * is liburcu's call_rcu thread (never "cpu-1" or "cpu2"). */
	tmux_view(s, 200, 50, "", v4);
	tmux_expect(s, "/ note Enter", "  main  search: note", 5);
	tmux_kill(s);
	tmux_view(s, 200, 50, "", life);
	tmux_expect(s, "/ inode_rcu_freed Enter", "  call_rcu  search: inode_rcu_freed", 5);
}
END_TEST

/* A free run: the flusher is named, the count is the run's. */
START_TEST(named_threads_of_a_run)
{
	const char *s = "teach-run-threads";
	int st;
	char *scr, dir[400];
	snprintf(dir, sizeof(dir), "%s/flusher", tmp);
	free(run_cmd(&st,
		     "%s record --scheme merged --workload mixed --cpus 2 --ops 300 --seed 3 "
		     "--quiet -o %s >/dev/null 2>&1",
		     bin_path("icache-sim"), dir));
	ck_assert_msg(st == 0, "record failed");
	tmux_view(s, 200, 50, "", dir);
	scr = tmux_capture(s, false);
	ck_assert_msg(strstr(scr, " 2 CPUs ") && line_has(scr, "event ", "flusher "),
		      "no flusher lane in a 2-CPU run:\n%.1500s", scr);
	ck_assert_ptr_null(strstr(scr, "cpu-1"));
	free(scr);
}
END_TEST

/* 80x24 on the v4 race: both CPUs' lanes, the span and the hold whole. */
START_TEST(small_screen_v4)
{
	const char *s = teach_view("teach-80x24", 80, 24, v4);
	char *scr = tmux_expect_screen(s, "/ I_FREEING Enter", "search: I_FREEING", 5);
	ck_assert_msg(line_has(scr, "event cpu0 ", "cpu1 "), "not two CPU lanes:\n%s", scr);
	/* cpu0 in its window, cpu1 holding the inode's lock: whole values */
	ck_assert_msg(line_has(scr, "UNPROTECTED 42 ", "HOLD i_lock 42 "),
		      "the race is not readable at 80x24:\n%s", scr);
	ck_assert_msg(strstr(scr, "Held locks") &&
			      strstr(scr, "UNPROTECTED: holds inode 42 with no reference"),
		      "no held locks at 80x24:\n%s", scr);
	free(scr);
}
END_TEST

/* The strip's slices cover the whole trace (not only up to its last
 * contention: the v4 race has none), and lock_stat wraps a report
 * rather than cut it. */
START_TEST(hot_locks_and_reports_on_v4)
{
	const char *s = teach_view("teach-hot", 200, 50, v4);
	char *scr = tmux_expect_screen(s, "/ lock_acquired Space inode_lru_lock Enter",
				       "search: lock_acquired inode_lru_lock", 5);
	ck_assert_msg(strstr(scr, "Hot locks") && strstr(scr, "lru 0 ") &&
			      !strstr(scr, "no lock taken in this slice") &&
			      !strstr(scr, "slice +0 ns..+0 ns"),
		      "the slice of an LRU acquire does not show it:\n%s", scr);
	free(scr);
	scr = tmux_expect_screen(s, "G", "run_end", 5);
	ck_assert_msg(strstr(scr, "validator reports so far: 1") &&
			      strstr(scr, "but that inode has already been freed"),
		      "lock_stat cuts the report:\n%s", scr);
	free(scr);
}
END_TEST

/* A lookup sleeps on an inode, and whom it waits for is named: on each
 * of the three bits one sleeps on, the recording that shows it. */
static const struct {
	const char *bit, *trace;
	const char *says; /* after a search for inode_wait */
	bool asleep;      /* cpu1's line says "asleep, no lock held" */
	const char *lane; /* drawn in a lane (NULL: not checked) */
} sleeps[] = {
	{ "I_FREEING", wait_freeing, "SLEEPS on inode 42 (I_FREEING), waits for cpu0", true,
	  "SLEEP on 42 FREEING" },
	{ "I_NEW", new_wait, "SLEEPS on inode 42 (I_NEW), waits for cpu0", false, NULL },
	{ "I_WILL_FREE", will_free, "I_WILL_FREE), waits for cpu0", true, NULL },
};

START_TEST(sleep_on_i_freeing)
{
	need_traces();
	for (size_t i = 0; i < sizeof(sleeps) / sizeof(sleeps[0]); i++) {
		tmux_view("teach-sleep", 200, 50, "", sleeps[i].trace);
		char *scr =
			tmux_expect_screen("teach-sleep", "/ inode_wait Enter", sleeps[i].says, 5);
		ck_assert_msg(!sleeps[i].asleep || line_has(scr, "cpu1", "asleep, no lock held"),
			      "%s: cpu1 is not asleep:\n%s", sleeps[i].bit, scr);
		ck_assert_msg(!sleeps[i].lane || strstr(scr, sleeps[i].lane), "%s: no '%s':\n%s",
			      sleeps[i].bit, sleeps[i].lane, scr);
		free(scr);
		tmux_kill("teach-sleep");
	}
}
END_TEST

/* The source is found beside the binary's tree, checked by cksum, and a
 * missing or different file is said plainly. */
START_TEST(source_found_checked_or_missing)
{
	need_traces();
	int st;
	char *out = run_cmd(&st, "cksum < sim/schemes/merged.c");
	size_t n;
	char *text = NULL;
	FILE *f = fopen("sim/schemes/merged.c", "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	rewind(f);
	text = malloc(n);
	ck_assert(fread(text, 1, n, f) == n);
	fclose(f);
	ck_assert_uint_eq(posix_cksum((unsigned char *)text, n), strtoul(out, NULL, 10));
	free(text);
	free(out);
	/* A different file under $ICACHE_SRC: found, and said to differ. */
	out = run_expect(
		0,
		"mkdir -p %s/src/sim/schemes && cp sim/schemes/inode-scale-v4.c %s/src/sim/schemes/ && "
		"echo '/* edited */' >> %s/src/sim/schemes/inode-scale-v4.c && "
		"ICACHE_SRC=%s/src LANG=C.UTF-8 %s --keys 's<Tab><Tab><Tab>z' --screen 120x30 %s",
		tmp, tmp, tmp, tmp, bin_path("icache-view"), v4);
	assert_has(out, "DIFFERS from the run's build");
	free(out);
	/* A binary away from any tree, a trace away from it: not found, said so. */
	out = run_expect(
		0,
		"mkdir -p %s/away/bin && cp %s %s/away/bin/ && cp -r %s %s/away/t && cd / && "
		"LANG=C.UTF-8 %s/away/bin/icache-view --keys 's<Tab><Tab><Tab>z' --screen 160x30 %s/away/t",
		tmp, bin_path("icache-view"), tmp, v4, tmp, tmp, tmp);
	assert_has(out, "source not found: sim/schemes/inode-scale-v4.c");
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("teach");
	TCase *tc = suite_case(
		s, "teach", 120, /* five recordings in one case, under load */
		(const TTest *[]){
			source_marks_both_cpus_in_iput_final, source_pane_on_a_small_screen,
			unprotected_span, unprotected_free_runs, two_owners_no_span, inode_history,
			new_edge_highlight, order_tree_small_screens, named_threads,
			named_threads_of_a_run, small_screen_v4, hot_locks_and_reports_on_v4,
			sleep_on_i_freeing, source_found_checked_or_missing, NULL });
	tcase_add_unchecked_fixture(tc, record_traces, cleanup);
	/* After each test, its terminals are closed. */
	tcase_add_checked_fixture(tc, NULL, tmux_kill_tests);
	return run_suite(s);
}
