/*
 * source.c - find, check and draw the scheme source a trace names.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "tracepoints/icache_enums.h"
#include "viewer/source.h"

/* ---- POSIX cksum: CRC-32 (polynomial 0x04C11DB7, MSB first) over the
 * bytes and then the length, complemented. ---------------------------- */

static uint32_t crc_step(uint32_t crc, unsigned char b)
{
	crc ^= (uint32_t)b << 24;
	for (int k = 0; k < 8; k++)
		crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
	return crc;
}

uint32_t posix_cksum(const unsigned char *p, size_t n)
{
	uint32_t crc = 0;
	for (size_t i = 0; i < n; i++)
		crc = crc_step(crc, p[i]);
	for (size_t len = n; len; len >>= 8)
		crc = crc_step(crc, (unsigned char)(len & 0xff));
	return ~crc;
}

/* ---- finding the file ---------------------------------------------------- */

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap + 1);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			if (cap >= (64u << 20))
				break; /* no scheme file is this big */
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	fclose(f);
	buf[len] = 0;
	*n = len;
	return buf;
}

static void split_lines(struct src_text *st, char *text, size_t n)
{
	int cap = 256;
	st->lines = xmalloc((size_t)cap * sizeof(char *));
	char *p = text;
	while (p < text + n) {
		char *nl = memchr(p, '\n', (size_t)(text + n - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(text + n - p);
		if (st->nlines == cap) {
			cap *= 2;
			st->lines = xrealloc(st->lines, (size_t)cap * sizeof(char *));
		}
		char *l = xmalloc(len + 1);
		memcpy(l, p, len);
		l[len] = 0;
		for (char *t = l; *t; t++)
			if (*t == '\t')
				*t = ' '; /* tabs are expanded when drawn */
		st->lines[st->nlines++] = l;
		p += len + 1;
	}
}

/* The directory of the running binary ("" if unknown). */
static void exe_dir(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	dir[n > 0 ? n : 0] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
}

/* a + b into out; false (and nothing kept) if it does not fit. */
static bool join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s", a, b);
	return n > 0 && (size_t)n < len;
}

/* The places to look, in order, into cand[]; returns how many. */
static int candidates(const char *file, const char *trace_path, char cand[][PATH_MAX], int max)
{
	int n = 0;
	const char *env = getenv("ICACHE_SRC");
	char exe[PATH_MAX], pre[PATH_MAX + 32], rel[256];
	exe_dir(exe, sizeof(exe));
	if (!join(rel, sizeof(rel), "/", file))
		return 0;
	if (env && *env && n < max)
		n += join(cand[n], PATH_MAX, env, rel);
	if (exe[0] && n + 2 <= max) {
		if (join(pre, sizeof(pre), exe, "/../.."))
			n += join(cand[n], PATH_MAX, pre, rel);
		if (join(pre, sizeof(pre), exe, "/../share/icache-lab"))
			n += join(cand[n], PATH_MAX, pre, rel);
	}
	/* up from the trace: a trace recorded inside the tree */
	char dir[PATH_MAX];
	if (!join(dir, sizeof(dir), trace_path ? trace_path : "", ""))
		dir[0] = 0;
	for (int up = 0; up < 6 && dir[0] && n < max; up++) {
		n += join(cand[n], PATH_MAX, dir, rel);
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = 0;
	}
	if (n < max)
		n += join(cand[n], PATH_MAX, file, "");
	return n;
}

struct src_text *source_load(const char *file, uint32_t want, const char *trace_path)
{
	struct src_text *st = xcalloc(1, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", file ? file : "");
	st->want = want;
	if (!file || !*file) {
		snprintf(st->why, sizeof(st->why),
			 "this trace does not name its scheme's source file (recorded before "
			 "run_begin had scheme_file)");
		return st;
	}
	char cand[12][PATH_MAX];
	int nc = candidates(file, trace_path, cand, 12);
	for (int i = 0; i < nc; i++) {
		size_t n;
		char *text = slurp(cand[i], &n);
		if (!text)
			continue;
		st->found = true;
		char *real = realpath(cand[i], NULL);
		if (!join(st->path, sizeof(st->path), real ? real : cand[i], ""))
			snprintf(st->path, sizeof(st->path), "%s", st->name);
		free(real);
		st->got = posix_cksum((const unsigned char *)text, n);
		st->mismatch = want && st->got != want;
		if (st->mismatch)
			snprintf(st->why, sizeof(st->why),
				 "%.120s is not the file this run was built from (cksum %u, the "
				 "trace says %u): its line numbers may be wrong",
				 st->path, st->got, want);
		split_lines(st, text, n);
		free(text);
		return st;
	}
	snprintf(st->why, sizeof(st->why),
		 "source not found: %.100s is not under $ICACHE_SRC, the binary's tree, its "
		 "share/icache-lab, the trace's directories or here",
		 file);
	return st;
}

void source_free(struct src_text *st)
{
	if (!st)
		return;
	free_strs(st->lines, (size_t)st->nlines);
	free(st->lines);
	free(st);
}

/* One index at a time is shown: keep its source until another comes. */
static const struct trace_index *cached_ix;
static struct src_text *cached;

const struct src_text *source_for_trace(const struct trace_index *ix)
{
	/* (a trace still loading may not have shown its run_begin yet) */
	if (cached && cached_ix == ix && (cached->name[0] || !ix_run0(ix)))
		return cached;
	source_free(cached);
	const struct ix_run *r = ix_run0(ix);
	cached =
		source_load(r ? ix_str(ix, r->scheme_file) : "", r ? r->scheme_cksum : 0, ix->path);
	cached_ix = ix;
	return cached;
}

/* ---- drawing ---------------------------------------------------------------- */

static int cpu_role(unsigned cpu)
{
	return R_CPU0 + (int)(cpu % 4);
}

/* The gutter of line ln: every mark on it, "0>" or "1:", in colour. */
static int draw_gutter(struct canvas *c, int x, int y, int gw, const struct src_cpu_mark *marks,
		       int nmarks, int ln)
{
	int used = 0;
	for (int k = 0; k < nmarks && used + 3 <= gw; k++) {
		if (marks[k].src != SRC_scheme || marks[k].line != ln)
			continue;
		canvas_printf(c, x + used, y, 3, cpu_role(marks[k].cpu), "%u%s", marks[k].cpu % 10,
			      marks[k].next ? ":" : ">");
		used += 3;
	}
	return used;
}

void source_draw(struct canvas *c, struct rect r, const struct src_text *st,
		 const struct src_cpu_mark *marks, int nmarks, int center,
		 const char *(*cpu_name)(const void *arg, unsigned cpu), const void *arg)
{
	int y = r.y;
	if (r.h <= 0)
		return;
	if (!st->found) {
		canvas_text(c, r.x, y, r.w, R_BAD, st->why);
		return;
	}
	const char *base = strrchr(st->name, '/');
	canvas_printf(c, r.x, y++, r.w, st->mismatch ? R_BAD : R_TITLE, "%s%s",
		      base ? base + 1 : st->name,
		      st->mismatch ? "  DIFFERS from the run's build (lines may be wrong)" : "");
	/* who is where, in one line: cpu0 inode-scale-v4.c:498, cpu1 core:612 */
	int x = r.x;
	for (int k = 0; k < nmarks && y < r.y + r.h && x < r.x + r.w; k++)
		x += canvas_printf(c, x, y, r.x + r.w - x, cpu_role(marks[k].cpu),
				   "%s %s%s%s%s:%d ", cpu_name(arg, marks[k].cpu),
				   marks[k].next ? "next " : "", marks[k].fn ? marks[k].fn : "",
				   marks[k].fn ? " " : "",
				   marks[k].src == SRC_scheme    ? "line" :
				   marks[k].src == SRC_core      ? "core icache.c" :
				   marks[k].src == SRC_workloads ? "workloads.c" :
								   "?",
				   marks[k].line);
	if (nmarks)
		y++;
	int rows = r.y + r.h - y;
	if (rows <= 0)
		return;
	int first = center > 0 ? center - rows / 2 : 1;
	/* every CPU's line in view if they fit together */
	int lo = 0, hi = 0;
	for (int k = 0; k < nmarks; k++)
		if (marks[k].src == SRC_scheme) {
			lo = !lo || marks[k].line < lo ? marks[k].line : lo;
			hi = marks[k].line > hi ? marks[k].line : hi;
		}
	if (lo && hi - lo < rows)
		first = (lo + hi) / 2 - rows / 2;
	if (first + rows - 1 > st->nlines)
		first = st->nlines - rows + 1;
	if (first < 1)
		first = 1;
	int gw = 3 * (nmarks < 2 ? 2 : nmarks > 4 ? 4 : nmarks);
	for (int ln = first; ln < first + rows && ln <= st->nlines; ln++, y++) {
		bool hit = false;
		for (int k = 0; k < nmarks; k++)
			hit |= marks[k].src == SRC_scheme && marks[k].line == ln;
		draw_gutter(c, r.x, y, gw, marks, nmarks, ln);
		canvas_printf(c, r.x + gw, y, 5, R_DIM, "%4d ", ln);
		canvas_text(c, r.x + gw + 5, y, r.w - gw - 5, hit ? R_TITLE : R_NORMAL,
			    st->lines[ln - 1]);
	}
}
