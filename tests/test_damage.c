/*
 * test_damage.c - icache-view never shows a damaged trace as a whole story.
 *
 * The damaged traces are made here, from real recordings: a complete
 * trace (record --blocking, 1 MiB sub-buffers so each stream has several
 * packets) is copied and then cut at a packet boundary (with and without
 * LTTng's index), cut mid-packet, stripped of one stream file, or given a
 * flipped bit in the metadata name of icache:lock_acquired.  Others are
 * recorded damaged: tiny buffers that discard events, a recorder killed
 * with SIGKILL or SIGTERM mid-run, two simulator processes in one plain
 * lttng session.  For each, every output mode (--summary, --json, --dot,
 * the screen after --keys, and the real terminal under tmux for some)
 * either exits 2 with one line naming the cause, or shows the readable
 * part marked INCOMPLETE with the reason.  No order violation is shown
 * without "unreliable" once events were lost.
 */
#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tests/testutil.h"
#include "tests/tmux.h"
#include "viewer/ctfgen.h"

static char tmp[256];  /* scratch directory of the suite */
static char good[300]; /* a complete recording */
static int good_status = -1;

static void record_good(void)
{
	int st;
	tmux_init("icdamage");
	snprintf(tmp, sizeof(tmp), "/tmp/icdamage.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(good, sizeof(good), "%s/good", tmp);
	free(run_cmd(&good_status,
		     "%s record --scheme merged --workload mixed --cpus 2 --ops 3000 --seed 5 "
		     "--blocking --subbuf-size 1M --quiet -o %s >%s/good.out 2>&1",
		     bin_path("icache-sim"), good, tmp));
	(void)st;
}

static void cleanup(void)
{
	scratch_remove(tmp);
	tmux_done();
}

static void need_good(void)
{
	ck_assert_msg(good_status == 0, "icache-sim record failed (%d): see %s/good.out",
		      good_status, tmp);
}

/* A copy of the good trace; the stream directory in sdir. */
static void copy_good(const char *name, char *dir, size_t len, char *sdir, size_t slen)
{
	int st;
	need_good();
	snprintf(dir, len, "%s/%s", tmp, name);
	free(run_cmd(&st, "rm -rf %s && cp -r %s %s", dir, good, dir));
	char *d = run_cmd(&st, "dirname $(ls %s/ust/uid/*/64-bit/metadata)", dir);
	d[strcspn(d, "\n")] = 0;
	snprintf(sdir, slen, "%s", d);
	free(d);
}

static char *view(int *st, const char *args, const char *dir)
{
	return run_cmd(st, "%s %s %s 2>&1", bin_path("icache-view"), args, dir);
}

/* Every "AGAINST THE ORDER" line of a summary is marked unreliable. */
static void no_unmarked_violation(const char *summary, const char *json)
{
	for (const char *p = summary; (p = strstr(p, "AGAINST THE ORDER")); p++) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		ck_assert_msg(memmem(p, n, "unreliable", 10) != NULL,
			      "an order violation not marked unreliable: %.*s", (int)n, p);
	}
	ck_assert_msg(
		!strstr(json, "\"against_order\":true,\"documented\":false,\"unreliable\":false"),
		"JSON has an against-order edge not marked unreliable");
}

/*
 * Unprotected spans drawn from a partial story are marked: every one of
 * them (all: true, the damage reaches back to the first event), or at
 * least one when there are any.  The summary says how many.
 */
static void spans_marked(const char *dir, bool all)
{
	int st;
	char *json = view(&st, "--summary --json", dir);
	double n = json_num(json, NULL, "unprotected_spans");
	double bad = json_num(json, NULL, "unprotected_spans_unreliable");
	ck_assert_msg(n >= 0 && bad >= 0, "%s: no span counts: %.600s", dir, json);
	ck_assert_msg(all ? bad == n : (n == 0 || bad > 0),
		      "%s: %.0f unprotected spans, only %.0f marked unreliable", dir, n, bad);
	/* The longest one on screen, from its middle: if the panes show it
	 * (the lanes of the other CPUs, its CPU's held locks when its state
	 * is known), it is marked with a '?'. */
	double from = json_num(json, "\"unprotected_longest\":", "from");
	double to = json_num(json, "\"unprotected_longest\":", "to");
	const char *lg = strstr(json, "\"unprotected_longest\":");
	const char *lg_end = lg ? strchr(lg, '}') : NULL;
	const char *bad_lg = lg ? strstr(lg, "\"unreliable\":true") : NULL;
	if (bad_lg && bad_lg < lg_end && to - from >= 2) {
		char keys[96];
		snprintf(keys, sizeof(keys), "--keys ':%.0f<Enter>' --screen 160x45",
			 (from + to) / 2);
		char *scr = view(&st, keys, dir);
		ck_assert_msg(st == 0 && !strstr(scr, "UNPROTECTED:"), "%s: %.4000s", dir, scr);
		for (const char *p = scr; (p = strstr(p, "UNPROTECTED ")); p++)
			ck_assert_msg(!isdigit((unsigned char)p[12]), "an unmarked span: %.4000s",
				      scr);
		free(scr);
	}
	free(json);
	if (n > 0) {
		char *sum = view(&st, "--summary", dir);
		ck_assert_msg(strstr(sum, "of them unreliable: they end after events were lost"),
			      "%s: %.900s", dir, sum);
		free(sum);
	}
}

/* Shown, loudly incomplete, with `reason` in every output. */
static void expect_incomplete(const char *dir, const char *reason)
{
	int st;
	char *sum = view(&st, "--summary", dir);
	ck_assert_msg(st == 0, "%s: --summary exit %d: %.600s", dir, st, sum);
	ck_assert_msg(strstr(sum, "complete   NO: INCOMPLETE TRACE"), "%s: not marked: %.600s", dir,
		      sum);
	ck_assert_msg(strstr(sum, reason), "%s: reason '%s' missing: %.900s", dir, reason, sum);
	ck_assert_msg(!strstr(sum, "msg-it") && !strstr(sum, "0x"), "library internals: %.600s",
		      sum);
	char *json = view(&st, "--summary --json", dir);
	ck_assert_msg(st == 0, "%s: --json exit %d", dir, st);
	ck_assert_msg(strstr(json, "\"complete\":false,\"incomplete_reasons\":["), "%.600s", json);
	ck_assert_msg(strstr(json, reason), "%s: JSON lacks '%s'", dir, reason);
	no_unmarked_violation(sum, json);
	char *dot = view(&st, "--dot", dir);
	ck_assert_msg(st == 0 && strstr(dot, "INCOMPLETE TRACE"), "%s: --dot: %.600s", dir, dot);
	ck_assert_msg(!strstr(dot, "color=red"), "%s: a red (trusted) violation in --dot", dir);
	char *scr = view(&st, "--keys G --screen 160x40", dir);
	ck_assert_msg(st == 0 && strstr(scr, "INCOMPLETE"), "%s: screen: %.600s", dir, scr);
	char *why = view(&st, "--keys '!' --screen 200x40", dir);
	ck_assert_msg(st == 0 && strstr(why, "INCOMPLETE TRACE: why"), "%s: ! overlay: %.600s", dir,
		      why);
	free(sum);
	free(json);
	free(dot);
	free(scr);
	free(why);
}

/* Refused in every mode with one line naming the path and the cause. */
static void expect_refused(const char *dir, const char *what)
{
	static const char *modes[] = { "--summary", "--summary --json", "--dot",
				       "--keys G --screen 120x40" };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int st;
		char *out = run_cmd(&st, "%s %s %s 2>&1 >/dev/null", bin_path("icache-view"),
				    modes[i], dir);
		ck_assert_msg(st == 2, "%s %s: exit %d: %s", modes[i], dir, st, out);
		int lines = 0;
		for (char *p = out; *p; p++)
			lines += *p == '\n';
		ck_assert_msg(lines == 1, "%s: %d lines: %.400s", dir, lines, out);
		ck_assert_msg(strstr(out, dir) && strstr(out, what), "%s: expected '%s': %.400s",
			      dir, what, out);
		free(out);
	}
}

/* A release the trace never saw taken (written by hand: LTTng does not
 * make one on purpose) is a reason, not a silent count. */
START_TEST(release_without_acquire)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/orphan", tmp);
	struct ctfgen_event e[] = {
		{ CTFGEN_ACQUIRED, 1000, 0, 2, 0, 0, 0 },
		{ CTFGEN_RELEASE, 2000, 0, 2, 0, 0, 1000 },
		{ CTFGEN_RELEASE, 3000, 1, 2, 0, 7, 500 },
	};
	ck_assert_int_eq(ctfgen_write(dir, "icache", e, 3), 0);
	int st;
	char *sum = view(&st, "--summary", dir);
	ck_assert_msg(st == 0 && strstr(sum, "complete   NO") &&
			      strstr(sum, "1 lock release without a matching acquire"),
		      "%.900s", sum);
	free(sum);
}
END_TEST

START_TEST(complete_trace_is_complete)
{
	need_good();
	int st;
	char *sum = view(&st, "--summary", good);
	ck_assert_msg(st == 0 && strstr(sum, "complete   yes"), "%.600s", sum);
	char *json = view(&st, "--summary --json", good);
	ck_assert_msg(strstr(json, "\"complete\":true,\"incomplete_reasons\":[]"), "%.600s", json);
	ck_assert_msg(strstr(json, "\"unprotected_spans_unreliable\":0"), "%.600s", json);
	char *scr = view(&st, "--keys G --screen 160x45", good);
	ck_assert_msg(st == 0 && strstr(scr, "Inode") && !strstr(scr, "UNRELIABLE"), "%.3000s",
		      scr);
	free(scr);
	free(sum);
	free(json);
}
END_TEST

/* The stream with the most packets, and its size. */
/* A copy of the good trace to damage: its directory, its stream
 * directory, and its biggest stream file (at least 3 packets) and size. */
struct damaged {
	char dir[512], sdir[512], file[1024];
	long size;
};

static void damaged_copy(const char *name, struct damaged *d)
{
	int st;
	copy_good(name, d->dir, sizeof(d->dir), d->sdir, sizeof(d->sdir));
	char *f = run_cmd(&st, "ls -S %s | grep -v -e metadata -e index | head -1", d->sdir);
	f[strcspn(f, "\n")] = 0;
	snprintf(d->file, sizeof(d->file), "%s/%s", d->sdir, f);
	free(f);
	struct stat sb;
	ck_assert_int_eq(stat(d->file, &sb), 0);
	d->size = (long)sb.st_size;
	ck_assert_msg(d->size >= 3 * 1048576, "%s: %ld bytes, fewer than 3 packets", d->file,
		      d->size);
}

static uint64_t be_bytes(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Where the stream's middle packet begins: LTTng's index (index/NAME.idx:
 * a 16-byte big-endian header ending with the entry size, then an entry a
 * packet starting with its offset) says where each packet is; they are
 * not all one sub-buffer long (a flush may write a short one). */
static long middle_packet(const struct damaged *d)
{
	char idx[1200];
	snprintf(idx, sizeof(idx), "%s/index/%s.idx", d->sdir, strrchr(d->file, '/') + 1);
	FILE *f = fopen(idx, "rb");
	ck_assert_msg(f != NULL, "%s: no index", idx);
	unsigned char h[16], e[8];
	static long off[65536];
	int n = 0;
	ck_assert(fread(h, 1, sizeof(h), f) == sizeof(h));
	long elen = (long)be_bytes(h + 12, 4);
	ck_assert_msg(elen >= 16, "%s: entries of %ld bytes", idx, elen);
	for (long at = 16; n < 65536 && fseek(f, at, SEEK_SET) == 0 && fread(e, 1, 8, f) == 8;
	     at += elen)
		off[n++] = (long)be_bytes(e, 8);
	fclose(f);
	ck_assert_msg(n >= 3, "%s: %d packets", idx, n);
	return off[n / 2];
}

/* Cut the stream file `extra` bytes after the beginning of its middle
 * packet; the size it is cut to. */
static long cut_stream(const struct damaged *d, long extra)
{
	int st;
	long at = middle_packet(d) + extra;
	free(run_cmd(&st, "truncate -s %ld %s", at, d->file));
	return at;
}

START_TEST(cut_at_packet_boundary)
{
	struct damaged d;
	int st;
	damaged_copy("cutpkt", &d);
	cut_stream(&d, 0);
	expect_incomplete(d.dir, "is cut at a packet boundary");
	spans_marked(d.dir, false);
	/* Without LTTng's index the cut is seen by where the stream ends. */
	free(run_cmd(&st, "rm -rf %s/index", d.sdir));
	expect_incomplete(d.dir, "ends early");
}
END_TEST

START_TEST(cut_mid_packet)
{
	struct damaged d;
	int st;
	damaged_copy("cutmid", &d);
	const char *dir = d.dir;
	long at = cut_stream(&d, 1000);
	char want[128];
	snprintf(want, sizeof(want), "is cut mid-packet at byte %ld", at);
	expect_incomplete(dir, want);
	spans_marked(dir, false);
	/* The events before the cut are shown, not refused. */
	char *json = view(&st, "--summary --json", dir);
	ck_assert_msg(json_num(json, NULL, "events") > 1000, "%.600s", json);
	ck_assert_msg(!strstr(json, "lock holders overlap"), "%.600s", json);
	free(json);
	/* The stream is read from a temporary copy, removed afterwards. */
	char *left = run_cmd(&st,
			     "mkdir -p %s/vtmp && TMPDIR=%s/vtmp %s --summary %s >/dev/null 2>&1; "
			     "ls -A %s/vtmp | wc -l",
			     tmp, tmp, bin_path("icache-view"), dir, tmp);
	ck_assert_msg(atoi(left) == 0, "temporary copies left behind: %s", left);
	free(left);
}
END_TEST

/* The real terminal: the viewer comes up on a cut trace, says INCOMPLETE
 * in its header, and '!' lists the reasons. */
START_TEST(interactive_says_incomplete)
{
	struct damaged d;
	damaged_copy("tmuxcut", &d);
	cut_stream(&d, 77);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "env LANG=C.UTF-8 %s %s", bin_path("icache-view"), d.dir);
	tmux_start("dmg", 160, 40, cmd);
	ck_assert_msg(tmux_wait_for("dmg", "INCOMPLETE (", 15), "no INCOMPLETE in the header");
	char *scr = tmux_expect_screen("dmg", "'!'", "INCOMPLETE TRACE: why", 15);
	ck_assert_msg(strstr(scr, "is cut mid-packet"), "%.2000s", scr);
	free(scr);
	/* Quit, and let the viewer remove its temporary copy of the cut
	 * stream before the terminal goes away. */
	tmux_keys("dmg", "Escape q");
	tmux_wait_gone("dmg", "Events by CPU", 5);
	tmux_kill("dmg");
}
END_TEST

/*
 * However the viewer ends, its temporary copy of a cut stream goes with
 * it: killed in a real terminal with SIGINT, SIGTERM, SIGHUP or SIGKILL
 * while it shows the trace, the copy under its private TMPDIR is removed
 * (by the guard process of viewer/health.c) within 10 s (scaled by
 * test_slowdown() in a sanitizer build).
 */
static const int view_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGKILL };

START_TEST(viewer_copy_removed_on_signal)
{
	int sig = view_signals[_i], st;
	char name[32], vtmp[600];
	struct damaged d;
	snprintf(name, sizeof(name), "sigcut%d", sig);
	damaged_copy(name, &d);
	cut_stream(&d, 55);
	snprintf(vtmp, sizeof(vtmp), "%s/vtmp-%s", tmp, name);
	free(run_cmd(&st, "mkdir -p %s", vtmp));
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "sh -c \"echo \\$\\$ > %s.pid; exec env TMPDIR=%s LANG=C.UTF-8 %s %s\"", vtmp,
		 vtmp, bin_path("icache-view"), d.dir);
	tmux_start("dmg", 160, 40, cmd);
	ck_assert_msg(tmux_wait_for("dmg", "INCOMPLETE (", 15), "the viewer did not come up");
	char *n = run_cmd(&st, "ls -A %s | wc -l", vtmp);
	ck_assert_msg(atoi(n) == 1, "no temporary copy while it runs: %s", n);
	free(n);
	char *pid = run_cmd(&st, "cat %s.pid", vtmp);
	ck_assert_int_eq(kill(atoi(pid), sig), 0);
	free(pid);
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer holds a caught signal back until the thread leaves
	 * the call it is in, and the viewer waits for a key in a read() that
	 * TSan does not count as blocking: a key lets the signal through
	 * (the plain build needs none; SIGKILL is never held back). */
	if (sig != SIGKILL)
		tmux_keys("dmg", "Right");
#endif
	int left = 1;
	for (int i = 0; i < 100 * test_slowdown() && left; i++) {
		usleep(100000);
		n = run_cmd(&st, "ls -A %s | wc -l", vtmp);
		left = atoi(n);
		free(n);
	}
	tmux_kill("dmg");
	ck_assert_msg(left == 0, "signal %d: the temporary copy is still in %s", sig, vtmp);
}
END_TEST

/* Entries of dir whose names start with prefix ("" for all). */
static int entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	if (d)
		closedir(d);
	return n;
}

/*
 * The decoders' packet shares (symbolic links and index files in an
 * icache-view-split.* directory) go with a viewer killed by SIGKILL while
 * it indexes: the guard process of lib/dirguard.c removes them.  The
 * trace is large enough (some 2.5 M events) that indexing takes seconds.
 */
START_TEST(split_shares_removed_on_sigkill)
{
	char dir[600], vtmp[600];
	int st;
	snprintf(dir, sizeof(dir), "%s/bigsplit", tmp);
	snprintf(vtmp, sizeof(vtmp), "%s/vtmp-split", tmp);
	free(run_cmd(&st,
		     "mkdir -p %s && %s record --scheme merged --workload mixed --cpus 2"
		     " --ops 20000 --blocking --quiet -o %s >/dev/null 2>&1",
		     vtmp, bin_path("icache-sim"), dir));
	ck_assert_int_eq(st, 0);
	char *pid = run_cmd(&st,
			    "{ ICACHE_VIEW_DECODERS=2 TMPDIR=%s %s --no-cache --summary"
			    " %s >/dev/null 2>&1 & echo $!; }",
			    vtmp, bin_path("icache-view"), dir);
	/* Wait for a decoder's share inside the directory: it is made after
	 * the guard starts, so the kill cannot fall between mkdtemp and it. */
	char split[900] = "";
	int seen = 0;
	for (int i = 0; i < 6000 && !seen; i++) {
		usleep(10000);
		DIR *d = opendir(vtmp);
		for (struct dirent *e; d && (e = readdir(d));)
			if (!strncmp(e->d_name, "icache-view-split", 17))
				snprintf(split, sizeof(split), "%s/%s", vtmp, e->d_name);
		if (d)
			closedir(d);
		seen = split[0] && entries(split, "0");
	}
	ck_assert_msg(seen == 1, "no decoder shares appeared in %s", vtmp);
	ck_assert_int_eq(kill(atoi(pid), SIGKILL), 0);
	free(pid);
	int left = 1;
	for (int i = 0; i < 200 * test_slowdown() && left; i++) {
		usleep(100000);
		left = entries(vtmp, "");
	}
	ck_assert_msg(left == 0, "the decoders' shares are still in %s", vtmp);
	free(run_cmd(&st, "rm -rf %s", dir));
}
END_TEST

START_TEST(stream_file_deleted)
{
	struct damaged d;
	int st;
	damaged_copy("nostream", &d);
	unlink(d.file);
	expect_incomplete(d.dir, "is missing: LTTng's index lists");
	spans_marked(d.dir, true);
	/* No order is derived from what is left. */
	char *json = view(&st, "--summary --json", d.dir);
	ck_assert_msg(strstr(json, "\"edges\":[]"), "%.600s", json);
	free(json);
}
END_TEST

/* A stream file of 0 bytes, as a recorder killed outright can leave it
 * (a clean stop writes at least an empty packet): its core's events are
 * lost, which is said, and the holds they would have released are not
 * taken for overlapping ones. */
START_TEST(stream_file_empty)
{
	struct damaged d;
	int st;
	damaged_copy("empty", &d);
	free(run_cmd(&st, "truncate -s 0 %s && truncate -s 16 %s/index/$(basename %s).idx", d.file,
		     d.sdir, d.file));
	ck_assert_int_eq(st, 0);
	expect_incomplete(d.dir, "is empty: LTTng never wrote a packet of it");
	spans_marked(d.dir, true);
	char *sum = view(&st, "--summary", d.dir);
	ck_assert_msg(!strstr(sum, "lock holders overlap"), "%.600s", sum);
	free(sum);
}
END_TEST

/* SIGKILL before LTTng delivered a packet of any stream: the session had
 * opened every stream file, all are empty.  One line, exit 2, the same
 * words as when no stream file was made (not babeltrace2's "no data
 * stream"). */
START_TEST(every_stream_file_empty)
{
	struct damaged d;
	int st;
	damaged_copy("allempty", &d);
	free(run_cmd(&st,
		     "cd %s && for f in icache_*; do truncate -s 0 $f &&"
		     " truncate -s 16 index/$f.idx || exit 1; done",
		     d.sdir));
	ck_assert_int_eq(st, 0);
	char *out = view(&st, "--summary", d.dir);
	ck_assert_msg(
		st == 2 && strstr(out, "the recording was cut before its first event was written"),
		"exit %d: %.600s", st, out);
	ck_assert_msg(strchr(out, '\n') && !strchr(out, '\n')[1], "more than one line: %s", out);
	free(out);
}
END_TEST

START_TEST(metadata_name_bit_flipped)
{
	char dir[512], sdir[512];
	int st;
	copy_good("flip", dir, sizeof(dir), sdir, sizeof(sdir));
	char *out =
		run_cmd(&st,
			"python3 -c \"import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); "
			"i=b.find(b'icache:lock_acquired'); b[i+14]^=1; open(p,'wb').write(b)\" "
			"%s/metadata",
			sdir);
	ck_assert_msg(st == 0, "%.600s", out);
	free(out);
	expect_refused(dir,
		       "no event class icache:lock_acquired, but an unknown icache:lock_acpuired");
}
END_TEST

/*
 * The metadata rewritten as text (babeltrace2 --output-format=ctf-metadata)
 * so that a field can be renamed or retyped freely: a lock event whose cpu
 * field is gone, or is a string, is refused in one line naming both.
 */
static void retype_cpu_field(const char *name, const char *to)
{
	char dir[512], sdir[512], path[600];
	int st;
	copy_good(name, dir, sizeof(dir), sdir, sizeof(sdir));
	char *meta = run_cmd(&st, "babeltrace2 --output-format=ctf-metadata %s", sdir);
	ck_assert_msg(st == 0, "%.600s", meta);
	/* the declaration of lock_acquired's cpu field, "integer {...} _cpu;" */
	char *ev = strstr(meta, "name = \"icache:lock_acquired\"");
	char *cpu = ev ? strstr(ev, "_cpu;") : NULL;
	char *decl = NULL;
	for (char *p = ev; p && (p = strstr(p, "integer {")) && p < cpu; p++)
		decl = p;
	ck_assert_msg(decl != NULL, "no cpu field in the metadata text");
	snprintf(path, sizeof(path), "%s/metadata", sdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%.*s%s%s", (int)(decl - meta), meta, to, cpu + 5);
	ck_assert_int_eq(fclose(f), 0);
	free(meta);
	expect_refused(dir, strcmp(to, "string _cpu;") ?
				    "event icache:lock_acquired has no integer field 'cpu'" :
				    "event icache:lock_acquired: field 'cpu' is of the wrong type");
}

START_TEST(metadata_field_missing_or_mistyped)
{
	retype_cpu_field("nofield", "integer { size = 16; align = 8; signed = 0; } _cpx;");
	retype_cpu_field("strfield", "string _cpu;");
}
END_TEST

START_TEST(lost_events_make_no_violation)
{
	char dir[512];
	int st;
	snprintf(dir, sizeof(dir), "%s/lossy", tmp);
	/* Events are lost when the program outruns LTTng's consumer: a slow
	 * (sanitizer) build on a busy machine may need a longer run. */
	static const char *const secs[] = { "300ms", "2s", "5s" };
	for (int k = 0; k < 3; k++) {
		free(run_cmd(&st,
			     "rm -rf %s; %s record --scheme merged --workload mixed --cpus 2 "
			     "--duration %s --subbuf-size 4K --quiet -o %s >/dev/null 2>&1",
			     dir, bin_path("icache-sim"), secs[k], dir));
		if (st != 0)
			break;
	}
	ck_assert_msg(st == 1, "record with 4 KiB buffers lost nothing? exit %d", st);
	expect_incomplete(dir, "events in");
	char *json = view(&st, "--summary --json", dir);
	ck_assert_msg(json_num(json, NULL, "discarded_events") > 0, "%.600s", json);
	ck_assert_msg(strstr(json, "\"loss_windows\":[{\"stream\":"), "%.600s", json);
	free(json);
	spans_marked(dir, false);
	/* The inode pane near the first losses: the state of an inode whose
	 * life a loss window overlaps is a sum over a partial history.  (The
	 * inode touched last may have just been freed: a few places.) */
	static const char *const near_loss[] = { "xj", "xjjjjjjjjjj", "xxj", "xxxjjjjj", "G" };
	bool said = false;
	char *scr = NULL;
	for (size_t k = 0; k < sizeof(near_loss) / sizeof(near_loss[0]) && !said; k++) {
		char keys[64];
		snprintf(keys, sizeof(keys), "--keys %s --screen 160x45", near_loss[k]);
		free(scr);
		scr = view(&st, keys, dir);
		said = strstr(scr, "UNRELIABLE: events were lost during its life") != NULL;
	}
	ck_assert_msg(said, "%.3000s", scr);
	free(scr);
}
END_TEST

/* Wait (at most 30 s) until record's watcher has destroyed its session. */
static void wait_session_gone(int pid)
{
	for (int i = 0; i < 300; i++) {
		int st;
		char *out = run_cmd(&st, "lttng list 2>/dev/null | grep -c 'icache-rec-%d-'", pid);
		bool gone = atoi(out) == 0;
		free(out);
		if (gone)
			return;
		usleep(100000);
	}
	ck_abort_msg("record %d's session is still there 30 s after it was killed", pid);
}

static void killed_recorder(const char *name, int sig)
{
	char dir[512], cmd[1024];
	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	/* The run is killed long before its end: its duration only bounds
	 * it, and grows with a slower (sanitizer) build, as the wait does. */
	int slow = (int)test_slowdown();
	snprintf(cmd, sizeof(cmd),
		 "exec %s record --scheme merged --workload mixed --cpus 2 --duration %ds "
		 "--quiet -o %s >/dev/null 2>&1",
		 bin_path("icache-sim"), 20 * slow, dir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* Kill it once it is recording: its stream files grow. */
	int st;
	for (int i = 0; i < 200 * slow; i++) {
		char *sz = run_cmd(&st, "du -sk %s 2>/dev/null | cut -f1", dir);
		long kb = atol(sz);
		free(sz);
		if (kb > 2048)
			break;
		usleep(50000);
	}
	kill(pid, sig);
	waitpid(pid, &st, 0);
	wait_session_gone(pid);
	int ist;
	char *sum = view(&ist, "--summary", dir);
	ck_assert_msg(ist == 0, "%s: exit %d: %s", dir, ist, sum);
	/* Interrupted cleanly (run_end says so) or cut: never "complete". */
	ck_assert_msg(strstr(sum, "no run_end event") || strstr(sum, "the run was interrupted"),
		      "%.600s", sum);
	free(sum);
	expect_incomplete(dir, "run");
}

START_TEST(recorder_killed)
{
	killed_recorder("sigkill", SIGKILL);
}
END_TEST

START_TEST(recorder_terminated)
{
	killed_recorder("sigterm", SIGTERM);
}
END_TEST

/*
 * Two simulators (merged, then global) traced into one plain lttng
 * session by tests/two-sims.sh (only our two processes); their pids in
 * *a, *b.  vpid: add that context; one_by_one: the second starts after
 * the first.
 */
static void two_sims(const char *dir, const char *name, bool vpid, bool one_by_one, int *a, int *b)
{
	int st;
	char *out = run_cmd(&st, "sh tests/two-sims.sh %s %s icdamage-%s-%d %s/%s %d %d",
			    bin_path("icache-sim"), dir, name, (int)getpid(), tmp, name, vpid,
			    one_by_one);
	ck_assert_msg(sscanf(out, "%d %d", a, b) == 2, "%.300s", out);
	free(out);
}

/* Two simulators traced into one plain lttng session with vpid. */
START_TEST(two_processes_never_one_story)
{
	char dir[512];
	int st;
	snprintf(dir, sizeof(dir), "%s/two", tmp);
	int a = 0, b = 0;
	two_sims(dir, "two", true, false, &a, &b);
	expect_refused(dir, "in one trace, not one story");
	char *err = view(&st, "--summary", dir);
	char pa[32], pb[32];
	snprintf(pa, sizeof(pa), "pid %d", a);
	snprintf(pb, sizeof(pb), "pid %d", b);
	ck_assert_msg(strstr(err, pa) && strstr(err, pb) && strstr(err, "--run N or --pid P"),
		      "%.600s", err);
	free(err);
	/* Each process alone is one whole story with its own scheme. */
	char args[64];
	snprintf(args, sizeof(args), "--summary --pid %d", a);
	char *one = view(&st, args, dir);
	ck_assert_msg(st == 0 && strstr(one, "scheme merged") && strstr(one, "complete   yes"),
		      "%.600s", one);
	free(one);
	snprintf(args, sizeof(args), "--summary --json --pid %d", b);
	one = view(&st, args, dir);
	ck_assert_msg(st == 0 && strstr(one, "\"scheme\":\"global\""), "%.600s", one);
	char shown[96];
	snprintf(shown, sizeof(shown), "\"scheme\":\"global\",\"pid\":%d,\"shown\":true", b);
	ck_assert_msg(strstr(one, shown) && strstr(one, "\"shown\":false"), "%.900s", one);
	free(one);
	/* --run names a run; a run that is not there is one line, exit 2. */
	one = view(&st, "--summary --run 99", dir);
	ck_assert_msg(st == 2 && strstr(one, "no run 99 in this trace"), "%.600s", one);
	free(one);
}
END_TEST

/* Without a vpid context a run is the window from its run_begin to the
 * run_end of the same thread: two runs one after the other still are two
 * stories, and --run picks one. */
START_TEST(two_runs_without_vpid)
{
	char dir[512];
	int st, a = 0, b = 0;
	snprintf(dir, sizeof(dir), "%s/seq", tmp);
	two_sims(dir, "seq", false, true, &a, &b);
	expect_refused(dir, "2 runs in one trace, not one story");
	char *one = view(&st, "--summary --run 2", dir);
	ck_assert_msg(st == 0 && strstr(one, "scheme global") && strstr(one, "complete   yes"),
		      "%.900s", one);
	free(one);
	one = view(&st, "--summary --run 1", dir);
	ck_assert_msg(st == 0 && strstr(one, "scheme merged") && strstr(one, "complete   yes"),
		      "%.900s", one);
	free(one);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("damage");
	TCase *tc = suite_case(s, "damaged traces", 300,
			       (const TTest *[]){ complete_trace_is_complete,
						  release_without_acquire, cut_at_packet_boundary,
						  cut_mid_packet, stream_file_deleted,
						  interactive_says_incomplete, NULL });
	tcase_add_unchecked_fixture(tc, record_good, cleanup);
	tcase_add_loop_test(tc, viewer_copy_removed_on_signal, 0,
			    (int)(sizeof(view_signals) / sizeof(view_signals[0])));
	tcase_add_test(tc, split_shares_removed_on_sigkill);
	tcase_add_tests(tc, (const TTest *[]){ stream_file_empty, every_stream_file_empty,
					       metadata_name_bit_flipped,
					       metadata_field_missing_or_mistyped,
					       lost_events_make_no_violation, recorder_killed,
					       recorder_terminated, two_processes_never_one_story,
					       two_runs_without_vpid, NULL });
	return run_suite(s);
}
