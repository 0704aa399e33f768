/*
 * test_cache.c - the viewer's index on disk (viewer/cache.h) and its
 * progress, on a trace recorded through the real session daemon.
 *
 * The cache lives in a directory of the suite's own (XDG_CACHE_HOME).
 * Whether a load decoded the trace or reopened the cache is read from
 * `icache-view --bench`: "decoded" counts the events babeltrace2 handed
 * over in that process (0 when reopened), "cache" says which it was.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/cache.h"
#include "viewer/timeline.h"

static char tmp[256];   /* scratch directory of the suite */
static char trace[300]; /* the recorded trace */
static char cdir[300];  /* XDG_CACHE_HOME */
static int record_status = -1;

static void record_trace(void)
{
	scratch_make(tmp, sizeof(tmp), "icview-cache");
	if (!tmp[0])
		return;
	snprintf(trace, sizeof(trace), "%s/trace", tmp);
	snprintf(cdir, sizeof(cdir), "%s/xdg", tmp);
	setenv("XDG_CACHE_HOME", cdir, 1);
	tmux_init("icview-cache");
	free(run_cmd(&record_status,
		     "%s record --scheme merged --workload mixed --cpus 2 --ops 1500 "
		     "--seed 3 --quiet -o %s >/dev/null 2>%s/record.err",
		     bin_path("icache-sim"), trace, tmp));
}

static void cleanup(void)
{
	scratch_remove(tmp);
	tmux_done();
}

static void need_trace(void)
{
	ck_assert_msg(record_status == 0, "icache-sim record failed (%d): see %s/record.err",
		      record_status, tmp);
}

/* A fresh copy of the trace (its own cache entry) and an empty cache. */
static void fresh_copy(char *copy, size_t len, const char *name)
{
	int st;
	snprintf(copy, len, "%s/%s", tmp, name);
	free(run_cmd(&st, "rm -rf %s %s && cp -r %s %s", copy, cdir, trace, copy));
	ck_assert_int_eq(st, 0);
}

/* The viewer's screen after G<Up><Up> on dir is the same run as a (its
 * environment, its flags) and as b. */
static void same_screen(const char *env_a, const char *flags_a, const char *env_b,
			const char *flags_b, const char *dir)
{
	int st;
	const char *fmt = "%s %s %s --keys 'G<Up><Up>' --screen 120x30 %s";
	char *shot1 = run_cmd(&st, fmt, env_a, bin_path("icache-view"), flags_a, dir);
	char *shot2 = run_cmd(&st, fmt, env_b, bin_path("icache-view"), flags_b, dir);
	ck_assert_msg(!strcmp(shot1, shot2), "the screens differ:\n%.2000s\n%.2000s", shot1, shot2);
	free(shot1);
	free(shot2);
}

/* icache-view --bench on dir: its JSON; stderr in *err (malloc'd). */
static char *bench(const char *dir, const char *flags, char **err)
{
	int st;
	char errf[400];
	snprintf(errf, sizeof(errf), "%s/bench.err", tmp);
	char *out =
		run_cmd(&st, "%s --bench %s %s 2>%s", bin_path("icache-view"), flags, dir, errf);
	ck_assert_msg(st == 0, "--bench %s failed: %s", dir, out);
	*err = run_cmd(&st, "cat %s", errf);
	return out;
}

static int count_files(const char *dir)
{
	int st;
	char *out = run_cmd(&st, "ls %s/icache-lab 2>/dev/null | wc -l", dir);
	int n = atoi(out);
	free(out);
	return n;
}

START_TEST(written_then_reused)
{
	need_trace();
	char copy[400], *err;
	fresh_copy(copy, sizeof(copy), "reuse");
	char *a = bench(copy, "", &err);
	ck_assert_msg(strstr(a, "\"cache\":\"written\""), "%s", a);
	double events = json_num(a, NULL, "events");
	ck_assert(events > 1000);
	ck_assert(json_num(a, NULL, "decoded") > 1000);
	ck_assert_int_eq(count_files(cdir), 2); /* LOC.idx and LOC.ev */
	free(err);
	char *b = bench(copy, "", &err);
	ck_assert_msg(strstr(b, "\"cache\":\"reopened\""), "%s", b);
	ck_assert(json_num(b, NULL, "decoded") == 0); /* no stream was read */
	ck_assert(json_num(b, NULL, "events") == events);
	ck_assert_msg(err[0] == 0, "a clean reopen says nothing: %s", err);
	free(a);
	free(b);
	free(err);
}
END_TEST

/* The figures from the cache are the figures from the trace. */
START_TEST(reopened_summary_equals_decoded)
{
	need_trace();
	char copy[400];
	int st;
	fresh_copy(copy, sizeof(copy), "same");
	char *plain =
		run_cmd(&st, "%s --summary --json --no-cache %s", bin_path("icache-view"), copy);
	ck_assert_int_eq(st, 0);
	ck_assert_int_eq(count_files(cdir), 0); /* --no-cache writes nothing */
	char *first = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), copy);
	ck_assert_int_eq(st, 0);
	char *again = run_cmd(&st, "%s --summary --json %s", bin_path("icache-view"), copy);
	ck_assert_int_eq(st, 0);
	/* Everything but the load time (the "index" object, last). */
	char *cut[3] = { strstr(plain, "\"index\":"), strstr(first, "\"index\":"),
			 strstr(again, "\"index\":") };
	ck_assert(cut[0] && cut[1] && cut[2]);
	*cut[0] = *cut[1] = *cut[2] = 0;
	ck_assert_msg(!strcmp(plain, first), "decoded and written differ");
	ck_assert_msg(!strcmp(plain, again), "decoded and reopened differ");
	ck_assert(strstr(again, "\"locks\":[{"));
	same_screen("", "--no-cache", "", "", copy);
	free(plain);
	free(first);
	free(again);
}
END_TEST

/* fresh_copy, opened once: its cache written. */
static void cached_copy(char *copy, size_t len, const char *name)
{
	char *err;
	fresh_copy(copy, len, name);
	free(bench(copy, "", &err));
	free(err);
}

START_TEST(stale_cache_rebuilt)
{
	need_trace();
	char copy[400], *err;
	int st;
	cached_copy(copy, sizeof(copy), "stale");
	/* The trace changes: one stream file gets a new mtime. */
	free(run_cmd(&st, "f=$(ls %s/ust/uid/*/64-bit/icache_* | head -1); touch -d '+1 min' $f",
		     copy));
	ck_assert_int_eq(st, 0);
	char *b = bench(copy, "", &err);
	ck_assert_msg(strstr(err, "is stale"), "stderr: %s", err);
	ck_assert_msg(strstr(b, "\"cache\":\"written\""), "%s", b);
	ck_assert(json_num(b, NULL, "decoded") > 1000);
	free(b);
	free(err);
	b = bench(copy, "", &err); /* and the rebuilt one is good */
	ck_assert_msg(strstr(b, "\"cache\":\"reopened\""), "%s", b);
	free(b);
	free(err);
}
END_TEST

/* Damage the cache file FILE (idx or ev) at byte OFF (negative: from the
 * end), or cut it to LEN bytes (OFF == INT64_MIN). */
static void damage(const char *copy, const char *ext, long off, long cut)
{
	int st;
	if (cut >= 0)
		free(run_cmd(&st, "truncate -s %ld %s/icache-lab/*.%s", cut, cdir, ext));
	else
		free(run_cmd(
			&st,
			"f=$(ls %s/icache-lab/*.%s); sz=$(stat -c %%s $f); o=%ld; "
			"[ $o -lt 0 ] && o=$((sz + o)); "
			"printf '\\377\\000\\125' | dd of=$f bs=1 seek=$o conv=notrunc 2>/dev/null",
			cdir, ext, off));
	ck_assert_int_eq(st, 0);
	(void)copy;
}

static void corrupt_case(const char *name, const char *ext, long off, long cut, const char *want)
{
	char copy[400], *err;
	fresh_copy(copy, sizeof(copy), name);
	char *a = bench(copy, "", &err);
	free(err);
	damage(copy, ext, off, cut);
	char *b = bench(copy, "", &err);
	ck_assert_msg(strstr(err, want), "%s: stderr: %s", name, err);
	ck_assert_msg(strstr(b, "\"cache\":\"written\""), "%s: %s", name, b);
	ck_assert(json_num(b, NULL, "decoded") > 1000);
	ck_assert(json_num(b, NULL, "events") == json_num(a, NULL, "events"));
	free(a);
	free(b);
	free(err);
}

START_TEST(corrupt_cache_rebuilt)
{
	need_trace();
	corrupt_case("bad-ev", "ev", 40000, -1, "is corrupt (checksum of its events)");
	corrupt_case("bad-tables", "idx", -100, -1, "is corrupt (checksum of its tables)");
	corrupt_case("bad-header", "idx", 8, -1, "is corrupt (bad header)");
	corrupt_case("cut-ev", "ev", 0, 4096, "has the wrong size");
	corrupt_case("empty-idx", "idx", 0, 0, "is corrupt (bad header)");
}
END_TEST

START_TEST(clear_cache_flag)
{
	need_trace();
	char copy[400];
	int st;
	cached_copy(copy, sizeof(copy), "clear");
	ck_assert_int_eq(count_files(cdir), 2);
	char *out = run_cmd(&st, "%s --clear-cache", bin_path("icache-view"));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "2 cache files deleted"), "%s", out);
	ck_assert_int_eq(count_files(cdir), 0);
	free(out);
	out = run_cmd(&st, "%s --help", bin_path("icache-view"));
	ck_assert(strstr(out, "--no-cache") && strstr(out, "--clear-cache"));
	free(out);
}
END_TEST

/* While decoding, the progress moves: many distinct values, never back,
 * never "all" before the end, all at the end. */
START_TEST(progress_moves)
{
	need_trace();
	char err[512];
	enum ix_cache_mode saved = ix_cache_mode;
	ix_cache_mode = IX_CACHE_OFF;
	struct trace_index *ix = ix_open_sel(trace, NULL, err, sizeof(err));
	ck_assert_msg(ix, "%s", err);
	ck_assert_int_eq(ix_cache_state(ix), IXC_TEMP); /* events in a file */
	uint64_t done, total, last = 0;
	int distinct = 0;
	enum ix_status st;
	while ((st = ix_step(ix, 1, err, sizeof(err))) == IX_MORE) {
		ix_progress(ix, &done, &total);
		ck_assert(done >= last);
		ck_assert(done < total);
		distinct += done > last;
		last = done;
	}
	ck_assert_int_eq(st, IX_OK);
	ck_assert_int_eq(ix_finish(ix, err, sizeof(err)), IX_OK);
	ix_progress(ix, &done, &total);
	ck_assert(done == total);
	ck_assert_msg(distinct >= 10, "the progress took only %d steps", distinct);
	ix_free(ix);
	ix_cache_mode = saved;
}
END_TEST

/* ---- the terminal viewer while it indexes (tmux) ---------------------------- */

/* The N of "indexing... N %" on the screen, -1 if none. */
static int shown_percent(const char *scr)
{
	const char *p = strstr(scr, "indexing");
	if (!p)
		return -1;
	p = strpbrk(p, "0123456789");
	return p ? atoi(p) : -1;
}

START_TEST(first_screen_while_indexing)
{
	need_trace();
	const char *s = "icview-live";
	char copy[400];
	int st;
	fresh_copy(copy, sizeof(copy), "live");
	/* Slowed down (test only) so that the partial state is seen. */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "env LANG=C.UTF-8 ICACHE_VIEW_TEST_STEP_MS=30 XDG_CACHE_HOME=%s %s %s", cdir,
		 bin_path("icache-view"), copy);
	tmux_start(s, 120, 40, cmd);
	char *scr = tmux_wait_screen(s, "figures so far", 20);
	ck_assert_msg(scr, "the viewer did not come up while indexing");
	ck_assert_msg(strstr(scr, "Events by CPU") && strstr(scr, "Held locks"), "%s", scr);
	ck_assert_msg(!strstr(scr, "INCOMPLETE"), "judged before the end:\n%s", scr);
	int p0 = shown_percent(scr);
	ck_assert_msg(p0 >= 0 && p0 < 100, "%s", scr);
	free(scr);
	/* The bar moves, and the keys work meanwhile. */
	tmux_keys(s, "G");
	int p1 = p0;
	for (int i = 0; i < 400 && p1 <= p0; i++) {
		char *t = tmux_capture(s, false);
		int p = shown_percent(t);
		free(t);
		if (p < 0)
			break; /* done already: then it got past p0 too */
		p1 = p;
		sleep_ms(50);
	}
	ck_assert_msg(p1 > p0 || p1 < 0, "the progress stayed at %d %%", p0);
	char *before = tmux_capture(s, false);
	bool stopped_early = strstr(before, "indexing") != NULL;
	free(before);
	tmux_keys(s, "q");
	/* Quit: the screen goes, and the process ends (it says EXIT=). */
	char *gone = tmux_wait_screen(s, "EXIT=0", 10);
	ck_assert_msg(gone && !strstr(gone, "Events by CPU"), "q did not quit while indexing");
	free(gone);
	tmux_kill(s);
	/* Quitting half-way leaves no cache behind, nothing half-built (a
	 * slow machine may have finished first: then the whole cache). */
	char *tmpf = run_cmd(&st, "ls %s/icache-lab 2>/dev/null | grep -c tmp", cdir);
	ck_assert_msg(atoi(tmpf) == 0, "temporary cache files left behind");
	free(tmpf);
	ck_assert_int_eq(count_files(cdir), stopped_early ? 0 : 2);
}
END_TEST

/*
 * The viewer on the suite's trace in the tmux session name (returned),
 * with the suite's cache; a search or filter runs in slices of slice
 * events, 20 ms apart (test only; 0: at full speed).
 */
static const char *sliced_view(const char *name, int slice)
{
	char env[512];
	need_trace();
	if (slice)
		snprintf(env, sizeof(env),
			 "ICACHE_VIEW_TEST_SLICE=%d ICACHE_VIEW_TEST_SLICE_MS=20 XDG_CACHE_HOME=%s",
			 slice, cdir);
	else
		snprintf(env, sizeof(env), "XDG_CACHE_HOME=%s", cdir);
	tmux_view(name, 120, 40, env, trace);
	return name;
}

/* A search runs in slices between keys: it shows how far it got, Esc
 * stops it, and left alone it ends (slices made small, test only). */
START_TEST(search_in_slices_with_cancel)
{
	const char *s = sliced_view("icview-search", 1000);
	/* text that no event has: a whole scan */
	char *scr = tmux_expect_screen(s, "/ zzzz Enter", "searching 'zzzz' below", 10);
	ck_assert_msg(strstr(scr, "(Esc stops)"), "%s", scr);
	free(scr);
	tmux_expect(s, "Escape", "search stopped", 10);
	/* again, to its end this time */
	tmux_expect(s, "n", "'zzzz' not found below", 60);
	tmux_keys(s, "q");
	tmux_kill(s);
}
END_TEST

/* A filter runs in slices too: finding its first event shows how far it
 * got and Esc drops it; a step through a sparse filter is a job like a
 * search, and Esc stops it (slices made small, test only: one whole scan
 * at most).  Nothing here waits for a given time: each step waits for
 * what the screen says. */
START_TEST(filter_in_slices_with_cancel)
{
	const char *s = sliced_view("icview-filter", 2000);
	/* nothing matches: it would scan it all */
	char *scr =
		tmux_expect_screen(s, "f zzzz Enter", "filter: first event of 'zzzz' below", 10);
	ck_assert_msg(strstr(scr, "(Esc stops)"), "%s", scr);
	free(scr);
	scr = tmux_expect_screen(s, "Escape", "filter stopped", 10);
	ck_assert_msg(strstr(scr, "filter off") && !strstr(scr, "filter: zzzz"),
		      "a stopped filter stays on:\n%s", scr);
	free(scr);
	/* One event only (the last): found far below, after progress. */
	tmux_expect(s, "f run_end Enter", "filter: first event of 'run_end' below", 10);
	scr = tmux_wait_screen(s, "filter: run_end", 40);
	ck_assert_msg(scr, "the filter did not reach run_end");
	free(scr);
	ck_assert(tmux_wait_gone(s, "(Esc stops)", 10));
	/* nothing before it: a scan back to the start */
	tmux_expect(s, "k", "stepping through filter 'run_end' above", 10);
	tmux_keys(s, "Escape");
	scr = tmux_wait_screen(s, "step stopped", 10);
	ck_assert_msg(scr && strstr(scr, "filter: run_end"), "Esc did not stop the step:\n%s",
		      scr ? scr : "");
	free(scr);
	tmux_keys(s, "q");
	tmux_kill(s);
	/* At full speed, a filter that matches nothing says so. */
	sliced_view(s, 0);
	tmux_expect(s, "f zzzz Enter", "filter 'zzzz' matches nothing", 20);
	tmux_keys(s, "q");
	tmux_kill(s);
}
END_TEST

/* The stream files of a trace (not its metadata nor its index files). */
static int count_streams(const char *dir)
{
	int st;
	char *out =
		run_cmd(&st, "find %s -type f ! -name metadata ! -path '*/index/*' | wc -l", dir);
	int n = atoi(out);
	free(out);
	return n;
}

/* Everything before the "index" object (the load time, the decoders). */
static char *figures(const char *dir, int decoders, int *st)
{
	char *out = run_cmd(st, "ICACHE_VIEW_DECODERS=%d %s --summary --json --no-cache %s 2>&1",
			    decoders, bin_path("icache-view"), dir);
	char *cut = strstr(out, "\"index\":");
	if (cut)
		*cut = 0;
	return out;
}

/*
 * The streams decoded by one process each (viewer/pdecode.c) and merged
 * by time give the index one process gives: the same figures, verdicts
 * and screens; and the loader said it used them.
 */
START_TEST(parallel_decode_same_index)
{
	need_trace();
	int st, streams = count_streams(trace);
	ck_assert_msg(streams >= 2, "the suite's trace has %d stream file(s)", streams);
	char *one = figures(trace, 1, &st);
	ck_assert_int_eq(st, 0);
	char *two = figures(trace, 2, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(!strcmp(one, two), "one decoder and two differ:\n%.3000s\n%.3000s", one, two);
	ck_assert(strstr(two, "\"locks\":[{"));
	char *b = run_cmd(&st, "ICACHE_VIEW_DECODERS=2 %s --bench --no-cache %s",
			  bin_path("icache-view"), trace);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(json_num(b, NULL, "decoders") == 2, "%s", b);
	ck_assert(json_num(b, NULL, "decoders_maxrss_kb") > 0);
	same_screen("ICACHE_VIEW_DECODERS=1", "--no-cache", "ICACHE_VIEW_DECODERS=2", "--no-cache",
		    trace);
	free(one);
	free(two);
	free(b);
}
END_TEST

/*
 * A trace named relative to the viewer's directory: the decoders' shares
 * link to it by its absolute path (they live in TMPDIR), so two decoders
 * read it as one does.  Once they linked the relative name and failed
 * with "Path is not a CTF trace" on every relative path.
 */
START_TEST(relative_path_parallel_decode)
{
	need_trace();
	int st;
	char rel[64];
	snprintf(rel, sizeof(rel), "build/rel-trace-%d", (int)getpid());
	unlink(rel);
	ck_assert_int_eq(symlink(trace, rel), 0);
	char *whole = figures(trace, 2, &st);
	ck_assert_int_eq(st, 0);
	char *relf = figures(rel, 2, &st);
	unlink(rel);
	ck_assert_msg(st == 0, "%s: exit %d: %.600s", rel, st, relf);
	const char *a = strstr(whole, "\"events\":"), *b = strstr(relf, "\"events\":");
	ck_assert_msg(a && b && !strcmp(a, b), "relative and absolute differ:\n%.1500s\n%.1500s",
		      whole, relf);
	free(whole);
	free(relf);
}
END_TEST

/* How the work was dealt (--bench's "split"), with ICACHE_VIEW_DECODERS=2. */
static bool dealt(const char *dir, const char *kind)
{
	int st;
	char want[64];
	snprintf(want, sizeof(want), "\"split\":\"%s\"", kind);
	char *b = run_cmd(&st, "ICACHE_VIEW_DECODERS=2 %s --bench --no-cache %s",
			  bin_path("icache-view"), dir);
	bool ok = st == 0 && strstr(b, want);
	free(b);
	return ok;
}

/* The suite's trace has LTTng's index files: its packets are dealt to
 * the decoders (above: the same index as one process).  Without an index
 * file the packets are not all accounted for, and whole streams are dealt
 * instead, with the same index again; no decoder's directory is left. */
START_TEST(packets_dealt_or_streams)
{
	need_trace();
	int st;
	ck_assert_msg(dealt(trace, "packets"), "the suite's trace is not dealt by packets");
	char copy[400];
	fresh_copy(copy, sizeof(copy), "noindex");
	free(run_cmd(&st, "rm -f $(find %s -name '*.idx' | head -1)", copy));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(dealt(copy, "streams"), "a stream without its index is dealt by packets");
	char *one = figures(copy, 1, &st), *two = figures(copy, 2, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(!strcmp(one, two), "one decoder and two differ:\n%.3000s\n%.3000s", one, two);
	free(one);
	free(two);
	char *left = run_cmd(&st,
			     "TMPDIR=%s ICACHE_VIEW_DECODERS=2 %s --summary --no-cache %s "
			     ">/dev/null; ls %s | grep -c icache-view-split",
			     tmp, bin_path("icache-view"), trace, tmp);
	ck_assert_msg(atoi(left) == 0, "a decoder's directory was left behind");
	free(left);
}
END_TEST

/* The message without its "after N events" count. */
static void drop_count(char *msg)
{
	char *a = strstr(msg, " after "), *e = a ? strstr(a, " events") : NULL;
	if (a && e)
		memmove(a, e + 7, strlen(e + 7) + 1);
}

/* A stream damaged in its middle: a decoder process meets it, and the
 * loader refuses the trace as the one-process loader does, in one line,
 * exit 2 (with whole streams dealt, in the very same words). */
START_TEST(parallel_decode_damage)
{
	need_trace();
	char copy[400];
	int st;
	fresh_copy(copy, sizeof(copy), "damaged");
	free(run_cmd(&st,
		     "f=$(find %s -type f ! -name metadata ! -path '*/index/*' | xargs ls -S | "
		     "head -1); sz=$(stat -c %%s $f); "
		     "head -c 64 /dev/zero | tr '\\000' '\\377' | "
		     "dd of=$f bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null",
		     copy));
	ck_assert_int_eq(st, 0);
	char *one = figures(copy, 1, &st);
	ck_assert_int_eq(st, 2);
	/* Whole streams dealt: the damaged one's decoder meets the damage
	 * in the same order as the one process, and says the same. */
	setenv("ICACHE_VIEW_NO_PACKET_SPLIT", "1", 1);
	char *two = figures(copy, 2, &st);
	unsetenv("ICACHE_VIEW_NO_PACKET_SPLIT");
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(two, copy) && strchr(two, '\n') == strrchr(two, '\n'), "%s", two);
	/* Packets dealt: the garbage after the damage goes to one decoder
	 * and is merged in another order (its times are garbage too), so
	 * the first problem met may be another (an inconsistency before the
	 * decoding error, or the other way round); refused all the same, in
	 * one line naming the trace, as damaged. */
	char *pk = figures(copy, 2, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strchr(pk, '\n') == strrchr(pk, '\n') && strstr(pk, copy), "%s", pk);
	ck_assert_msg(strstr(pk, "corrupt") || strstr(pk, "inconsistent"),
		      "packets dealt to two do not refuse the damage:\n%s\n%s", one, pk);
	drop_count(one);
	drop_count(two);
	ck_assert_msg(!strcmp(one, two), "one decoder and two differ:\n%s\n%s", one, two);
	free(one);
	free(two);
	free(pk);
}
END_TEST

int main(void)
{
	return run_tests(
		"cache", record_trace, cleanup, 60,
		(const TTest *[]){ written_then_reused, reopened_summary_equals_decoded,
				   stale_cache_rebuilt, corrupt_cache_rebuilt, clear_cache_flag,
				   progress_moves, first_screen_while_indexing,
				   search_in_slices_with_cancel, filter_in_slices_with_cancel,
				   parallel_decode_same_index, relative_path_parallel_decode,
				   packets_dealt_or_streams, parallel_decode_damage, NULL });
}
