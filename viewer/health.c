/*
 * health.c - completeness of a trace: stream files, loss, runs (health.h).
 *
 * Stream files are checked with the framing LTTng-UST writes (CTF packet
 * header magic 0xc1fc1fc1 at byte 0; packet_size in bits, little-endian,
 * at byte 56 of its packet context) and with LTTng's index files
 * (index/NAME.idx: a 16-byte big-endian header, then one entry per packet
 * starting with its offset and size in bits).  A stream of another layout
 * is left to babeltrace2.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/dirguard.h"
#include "lib/rmtree.h"
#include "lib/xalloc.h"
#include "viewer/health.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define IDX_MAGIC 0xc1f1dcc1u

void health_reason(struct trace_index *ix, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ix->nreasons == ix->reasons_cap) {
		ix->reasons_cap = ix->reasons_cap ? ix->reasons_cap * 2 : 8;
		ix->reasons = xrealloc(ix->reasons, ix->reasons_cap * sizeof(char *));
	}
	ix->reasons[ix->nreasons++] = xstrdup(buf);
}

static struct ix_stream *stream_add(struct trace_index *ix, const char *dir, const char *name)
{
	if (ix->nstreams == ix->streams_cap) {
		ix->streams_cap = ix->streams_cap ? ix->streams_cap * 2 : 8;
		ix->streams = xrealloc(ix->streams, ix->streams_cap * sizeof(*ix->streams));
	}
	struct ix_stream *s = &ix->streams[ix->nstreams++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	/* babeltrace2 names a stream by its absolute path: compare those */
	char *abs = realpath(dir, NULL);
	s->read_dir = xstrdup(abs ? abs : dir);
	free(abs);
	s->core = -1;
	s->last_ts = s->end_ts = INT64_MIN;
	s->lost_from = INT64_MAX;
	s->lost_to = INT64_MIN;
	return s;
}

static struct ix_stream *stream_find(struct trace_index *ix, const char *dir, const char *name)
{
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (!strcmp(ix->streams[i].name, name) && !strcmp(ix->streams[i].read_dir, dir))
			return &ix->streams[i];
	return NULL;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walk the packets of a data file: whole packets and their bytes. */
static void frame_walk(struct ix_stream *s)
{
	int fd = open(s->path, O_RDONLY);
	if (fd < 0)
		return;
	uint8_t h[64];
	uint64_t off = 0;
	s->whole = s->size; /* unless it proves to be LTTng-UST's layout */
	if (pread(fd, h, 4, 0) != 4 || ((uint32_t)h[0] | (uint32_t)h[1] << 8 |
					(uint32_t)h[2] << 16 | (uint32_t)h[3] << 24) != CTF_MAGIC) {
		close(fd);
		return;
	}
	s->whole = 0;
	while (off < s->size) {
		if (pread(fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h)) {
			s->cut_mid = true; /* a packet header cut short */
			break;
		}
		uint32_t magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
				 (uint32_t)h[3] << 24;
		uint64_t bits = le64(h + 56);
		if (magic != CTF_MAGIC || bits % 8 || bits / 8 < sizeof(h)) {
			if (off == 0) /* not LTTng-UST's layout: not ours */
				s->whole = s->size;
			else
				s->cut_mid = true;
			break;
		}
		if (off + bits / 8 > s->size) {
			s->cut_mid = true;
			break;
		}
		off += bits / 8;
		s->packets++;
		s->whole = off;
		/* timestamp_begin and _end precede packet_size: for progress */
		if (s->packets == 1)
			s->clk_begin = le64(h + 32);
		s->clk_end = le64(h + 40);
	}
	close(fd);
}

/* LTTng's index of a stream: how many packets, how many bytes. */
static void read_index(struct ix_stream *s, const char *idx)
{
	FILE *f = fopen(idx, "rb");
	if (!f)
		return;
	uint8_t h[16], e[16];
	if (fread(h, 1, sizeof(h), f) == sizeof(h) && be32(h) == IDX_MAGIC) {
		uint32_t elen = be32(h + 12);
		long at = (long)sizeof(h);
		while (elen >= 16 && fseek(f, at, SEEK_SET) == 0 &&
		       fread(e, 1, sizeof(e), f) == sizeof(e)) {
			s->idx_packets++;
			s->idx_bytes = be64(e) + be64(e + 8) / 8;
			at += (long)elen;
		}
	}
	fclose(f);
}

static bool data_file_name(const char *n)
{
	return n[0] != '.' && strcmp(n, "metadata") != 0;
}

/* Does dir/metadata (its first 64 KiB) contain text? */
static bool metadata_has(const char *dir, const char *text)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/metadata", dir);
	FILE *f = fopen(p, "rb");
	if (!f)
		return false;
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return memmem(buf, n, text, strlen(text)) != NULL;
}

/* The clock block of TSDL metadata: its frequency and its offset from
 * the origin in ns (both left alone if not found). */
static void clock_of(const char *buf, size_t n, uint64_t *freq, int64_t *off_ns)
{
	const char *ck = memmem(buf, n, "clock {", 7);
	if (!ck)
		return;
	const char *fq = strstr(ck, "freq = "), *os = strstr(ck, "offset_s = "),
		   *oc = strstr(ck, "offset = ");
	unsigned long long hz, s = 0, c = 0;
	if (!fq || sscanf(fq + 7, "%llu", &hz) != 1 || hz == 0)
		return;
	*freq = hz;
	if (os)
		sscanf(os + 11, "%llu", &s);
	if (oc)
		sscanf(oc + 9, "%llu", &c);
	*off_ns = (int64_t)(s * 1000000000ull + (unsigned long long)((double)c * 1e9 / (double)hz));
}

/* Written by LTTng-UST, or by icache-sim's direct writer with the same
 * packet header and context (sim/core/ctf_writer.c): a stream layout
 * frame_walk knows.  Its clock goes to *freq and *off_ns (clock_of). */
static bool lttng_ust_trace(const char *dir, uint64_t *freq, int64_t *off_ns)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/metadata", dir);
	FILE *f = fopen(p, "rb");
	if (!f)
		return false;
	static const char sig[] = "tracer_name = \"lttng-ust\"";
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	static const char direct[] = "tracer_name = \"icache-sim\"";
	clock_of(buf, n, freq, off_ns);
	return memmem(buf, n, sig, sizeof(sig) - 1) != NULL ||
	       memmem(buf, n, direct, sizeof(direct) - 1) != NULL;
}

static void scan_streams(struct trace_index *ix, const char *dir)
{
	char *real = realpath(dir, NULL);
	bool ust = lttng_ust_trace(dir, &ix->clock_freq, &ix->clock_off_ns);
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4096];
	while (d && (de = readdir(d))) {
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (!data_file_name(de->d_name) || stat(p, &st) || !S_ISREG(st.st_mode))
			continue;
		struct ix_stream *s = stream_add(ix, dir, de->d_name);
		s->path = xstrdup(p);
		s->size = (uint64_t)st.st_size;
		s->whole = s->size;
		if (ust)
			frame_walk(s);
		/* A clean stop writes at least an empty packet per stream: a
		 * file with none was never flushed, its events are lost. */
		s->empty = ust && s->size == 0;
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "%s/index", dir);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".idx") || de->d_name[0] == '.')
			continue;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), de->d_name);
		struct ix_stream *s = stream_find(ix, real ? real : dir, name);
		if (!s) {
			s = stream_add(ix, dir, name);
			s->missing = true;
		}
		snprintf(p, sizeof(p), "%s/index/%s", dir, de->d_name);
		read_index(s, p);
		s->cut_idx = s->path && s->idx_bytes > s->size;
	}
	if (d)
		closedir(d);
	free(real);
}

static int copy_prefix(const char *from, const char *to, uint64_t n)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
	char buf[65536];
	int rc = in < 0 || out < 0 ? -1 : 0;
	while (rc == 0 && n > 0) {
		ssize_t k = read(in, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (k <= 0 || write(out, buf, (size_t)k) != k)
			rc = -1;
		else
			n -= (uint64_t)k;
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc;
}

/* A copy of dir where each stream cut mid-packet ends at its last whole
 * packet (babeltrace2 refuses the whole directory otherwise). */
static int shadow_dir(struct trace_index *ix, int d, char **dirp, char *err, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char sub[4096];
	if (!ix->shadow) {
		snprintf(sub, sizeof(sub), "%s/icache-view-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(sub)) {
			snprintf(err, len,
				 "%s: a stream is cut mid-packet and no temporary "
				 "copy could be made (%s)",
				 ix->path, strerror(errno));
			return -1;
		}
		ix->shadow = xstrdup(sub);
		/* It outlives no viewer, however the viewer ends; if no guard
		 * can be started, a normal exit still removes it (health_free). */
		dir_guard_start(&ix->shadow_guard, ix->shadow);
	}
	snprintf(sub, sizeof(sub), "%s/%d", ix->shadow, d);
	char meta[4096], link[8192];
	snprintf(meta, sizeof(meta), "%s/metadata", *dirp);
	snprintf(link, sizeof(link), "%s/metadata", sub);
	char *real = realpath(*dirp, NULL);
	int rc = mkdir(sub, 0700) || !real || dir_link_abs(meta, link) ? -1 : 0;
	for (uint32_t i = 0; i < ix->nstreams && rc == 0; i++) {
		struct ix_stream *s = &ix->streams[i];
		if (!s->path || strcmp(s->read_dir, real))
			continue;
		snprintf(link, sizeof(link), "%s/%s", sub, s->name);
		rc = s->cut_mid ? copy_prefix(s->path, link, s->whole) :
				  dir_link_abs(s->path, link);
		free(s->read_dir);
		s->read_dir = realpath(sub, NULL);
		if (!s->read_dir)
			s->read_dir = xstrdup(sub);
	}
	free(real);
	if (rc) {
		snprintf(err, len,
			 "%s: a stream is cut mid-packet and its temporary "
			 "copy in %s failed (%s)",
			 ix->path, ix->shadow, strerror(errno));
		return -1;
	}
	free(*dirp);
	*dirp = xstrdup(sub);
	return 0;
}

int health_scan(struct trace_index *ix, char **dirs, int ndirs, char *err, size_t len)
{
	for (int d = 0; d < ndirs; d++) {
		uint32_t first = ix->nstreams;
		/* A recorder killed as it started: LTTng wrote the metadata's
		 * preamble, but the program never declared its stream. */
		if (metadata_has(dirs[d], "tracer_name = \"lttng-ust\"") &&
		    !metadata_has(dirs[d], "stream {") && !metadata_has(dirs[d], "event {")) {
			snprintf(err, len,
				 "%s: the recording was cut before its first event (the metadata"
				 " in %s declares no event stream): nothing to show",
				 ix->path, dirs[d]);
			return -1;
		}
		scan_streams(ix, dirs[d]);
		bool cut = false, data = false;
		for (uint32_t i = first; i < ix->nstreams; i++) {
			cut |= ix->streams[i].cut_mid;
			data |= ix->streams[i].path != NULL && !ix->streams[i].empty;
		}
		/* ... or killed before LTTng delivered one packet (it loses the
		 * sub-buffers a killed program was writing): no stream file, or
		 * only the empty ones the session had opened. */
		if (!data && ndirs == 1 && metadata_has(dirs[d], "tracer_name = \"lttng-ust\"")) {
			snprintf(err, len,
				 "%s: the recording was cut before its first event was written"
				 " (no data in the streams of %s): nothing to show",
				 ix->path, dirs[d]);
			return -1;
		}
		if (cut && shadow_dir(ix, d, &dirs[d], err, len) != 0)
			return -1;
	}
	return 0;
}

int health_stream(struct trace_index *ix, const char *bt_name)
{
	const char *slash = bt_name ? strrchr(bt_name, '/') : NULL;
	const char *base = slash ? slash + 1 : bt_name ? bt_name : "?";
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - bt_name) : 1,
		 slash ? bt_name : ".");
	char *real = realpath(dir, NULL);
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		const struct ix_stream *s = &ix->streams[i];
		if (!strcmp(s->name, base) && !strcmp(s->read_dir, real ? real : dir)) {
			free(real);
			return (int)i;
		}
	}
	free(real);
	stream_add(ix, dir, base);
	return (int)ix->nstreams - 1;
}

/* ---- the reasons ------------------------------------------------------- */

static const char *rel(const struct trace_index *ix, int64_t ts, char *buf, size_t len)
{
	if (ts == INT64_MIN || ts == INT64_MAX) {
		snprintf(buf, len, "?");
		return buf;
	}
	int64_t t0 = ix->nev ? ix_t0(ix) : ix->nruns ? ix->runs[0].begin_ts : 0;
	int64_t d = ts - t0;
	snprintf(buf, len, "%s%.6f s", d < 0 ? "-" : "+", (double)(d < 0 ? -d : d) / 1e9);
	return buf;
}

static void stream_label(const struct ix_stream *s, char *buf, size_t len)
{
	if (s->core >= 0)
		snprintf(buf, len, "stream %s (real CPU %d)", s->name, s->core);
	else
		snprintf(buf, len, "stream %s", s->name);
}

static int64_t trace_end(const struct trace_index *ix)
{
	int64_t end = INT64_MIN;
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (ix->streams[i].last_ts > end)
			end = ix->streams[i].last_ts;
	return end;
}

static void stream_reasons(struct trace_index *ix)
{
	char l[128], a[32], b[32];
	int64_t end = trace_end(ix);
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		struct ix_stream *s = &ix->streams[i];
		stream_label(s, l, sizeof(l));
		if (s->missing) {
			health_reason(ix,
				      "%s is missing: LTTng's index lists %u packet%s "
				      "for it but the data file is gone",
				      l, s->idx_packets, s->idx_packets == 1 ? "" : "s");
			continue;
		}
		if (s->empty) {
			health_reason(
				ix,
				"%s is empty: LTTng never wrote a packet of it (the recording "
				"was not stopped cleanly), so what ran on that core is missing",
				l);
			continue;
		}
		if (s->cut_mid)
			health_reason(ix,
				      "%s is cut mid-packet at byte %" PRIu64
				      ": shown up to its last whole packet (byte %" PRIu64 ")",
				      l, s->size, s->whole);
		else if (s->cut_idx)
			health_reason(ix,
				      "%s is cut at a packet boundary: the file holds %u "
				      "packets, LTTng's index lists %u",
				      l, s->packets, s->idx_packets);
		/* Not covered up to the last event of the trace: its tail is lost. */
		s->ends_early = s->end_ts != INT64_MIN && end != INT64_MIN && s->end_ts < end;
		if (s->ends_early)
			health_reason(ix, "%s ends early, at %s; the trace goes on to %s", l,
				      rel(ix, s->end_ts, a, sizeof(a)), rel(ix, end, b, sizeof(b)));
		if (s->windows)
			health_reason(ix,
				      "%s lost %" PRIu64 " events%s in %" PRIu64
				      " window%s between %s and %s",
				      l, s->lost_events, s->lost_packets ? " and some packets" : "",
				      s->windows, s->windows == 1 ? "" : "s",
				      rel(ix, s->lost_from, a, sizeof(a)),
				      rel(ix, s->lost_to, b, sizeof(b)));
	}
}

static void run_reasons(struct trace_index *ix)
{
	const struct ix_run *r = ix_run0(ix);
	if (!r) {
		health_reason(ix, "no run_begin event: the start of the run is not in "
				  "the trace (scheme and lock order unknown)");
		/* Its end may be missing too (a recorder killed with the
		 * sub-buffer of run_begin unwritten): say so as well. */
		uint64_t i = 0;
		while (i < ix->nev && ix->ev[i].type != EV_run_end)
			i++;
		if (i == ix->nev)
			health_reason(ix, "no run_end event: the recording stopped before the "
					  "run ended (recorder killed, or its stream cut)");
		return;
	}
	if (r->end_ts == INT64_MIN)
		health_reason(ix, "no run_end event: the recording stopped before the "
				  "run ended (recorder killed, or its stream cut)");
	else if (r->interrupted)
		health_reason(ix,
			      "the run was interrupted (run_end says a signal "
			      "stopped it after %" PRIu64 " operations)",
			      r->ops);
	for (unsigned c = 0; c < r->cpus && c < 256; c++)
		if (!(ix->cpu_seen[c / 64] >> (c % 64) & 1))
			health_reason(ix,
				      "cpu%u is declared by run_begin (%u CPUs) but has no event",
				      c, r->cpus);
}

static void class_reasons(struct trace_index *ix)
{
	char miss[256] = "";
	size_t n = 0;
	/* The events the story needs (newer ones may be absent from older
	 * traces without anything being lost). */
	static const int need[] = { EV_lock_acquire, EV_lock_contended, EV_lock_acquired,
				    EV_lock_release, EV_run_begin,      EV_run_end };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int t = need[i];
		if (!(ix->classes_seen >> t & 1) && n + 40 < sizeof(miss))
			n += (size_t)snprintf(miss + n, sizeof(miss) - n, "%sicache:%s",
					      n ? ", " : "", ev_type_name(t));
	}
	if (ix->unknown_classes[0])
		health_reason(ix,
			      "the metadata declares icache events this viewer does "
			      "not know: %s",
			      ix->unknown_classes);
	if (n)
		health_reason(ix,
			      "the metadata declares no %s: those events cannot be "
			      "in the trace",
			      miss);
}

void health_finish(struct trace_index *ix, uint64_t unmatched)
{
	if (ix->classes_seen)
		class_reasons(ix);
	stream_reasons(ix);
	run_reasons(ix);
	if (unmatched)
		health_reason(ix, "%" PRIu64 " lock release%s without a matching acquire",
			      unmatched, unmatched == 1 ? "" : "s");
}

void health_runs_text(const struct trace_index *ix, char *buf, size_t len)
{
	size_t n = 0;
	char a[32], b[32];
	buf[0] = 0;
	for (uint32_t i = 0; i < ix->nruns && n + 1 < len; i++) {
		const struct ix_run *r = &ix->runs[i];
		n += (size_t)snprintf(
			buf + n, len - n, "%srun %u: %s/%s, %u CPUs, pid %" PRId64 ", %s..%s",
			i ? "; " : "", i + 1, ix_str(ix, r->scheme), ix_str(ix, r->workload),
			r->cpus, r->pid, rel(ix, r->begin_ts, a, sizeof(a)),
			r->end_ts == INT64_MIN ? "(no run_end)" : rel(ix, r->end_ts, b, sizeof(b)));
	}
	if (ix->npids > 1 && n + 1 < len) {
		n += (size_t)snprintf(buf + n, len - n, "%sprocesses", n ? "; " : "");
		for (unsigned i = 0; i < ix->npids && n + 1 < len; i++)
			n += (size_t)snprintf(buf + n, len - n, " %" PRId64, ix->pids[i]);
	}
}

unsigned health_nstories(const struct trace_index *ix)
{
	return ix->nruns > ix->npids ? ix->nruns : ix->npids;
}

void health_free(struct trace_index *ix)
{
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		free(ix->streams[i].path);
		free(ix->streams[i].read_dir);
	}
	free(ix->streams);
	free_strs(ix->reasons, ix->nreasons);
	free(ix->reasons);
	if (ix->shadow)
		rm_tree(ix->shadow);
	free(ix->shadow);
	ix->shadow = NULL;
	dir_guard_end(&ix->shadow_guard);
}
