/*
 * cache.c - the index on disk (cache.h).
 *
 * Lock rules: none.  One thread owns a trace_index and its store; other
 * processes share nothing but finished files, which are only ever
 * replaced by rename(2), never written in place.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include "lib/ctf.h"
#include "lib/xalloc.h"
#include "viewer/cache.h"
#include "viewer/health.h"
#include "viewer/timestrip.h"
#include "viewer/unprot.h"

enum ix_cache_mode ix_cache_mode = IX_CACHE_ON;

static void warn_stderr(const char *line)
{
	fprintf(stderr, "%s\n", line);
}
void (*ix_cache_warn)(const char *line) = warn_stderr;

static void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnf(const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ix_cache_warn)
		ix_cache_warn(buf);
}

#define HDR_SIZE 4096u
#define EV_SIZE sizeof(struct ix_event)
#define EV_FIRST_CAP (1u << 20) /* events: 32 MiB of file, sparse */
#define TRIM_EVERY (1u << 20)   /* events between two page hand-backs */

struct ix_store {
	int ev_fd, ck_fd;
	size_t map_len;   /* bytes of ev_fd mapped at ix->ev */
	uint64_t ck_end;  /* next free byte of ck_fd */
	uint64_t settled; /* events hashed (final) */
	uint64_t trimmed; /* events whose pages were handed back */
	uint64_t hash[4]; /* of the settled events of the current chunk */
	uint64_t ev_acc;  /* the chunk hashes before it, folded (ev_fold) */
	enum ix_cache_state state;
	uint64_t ident; /* the trace's identity (IXC_WRITING) */
	char *ev_tmp, *ck_tmp, *ev_final, *ck_final;
};

/* ---- hashing ------------------------------------------------------------------ */

/* Four independent multiply-xor lanes over 32-byte blocks: one event a
 * block, so the event hash can be fed as events become final. */
#define HMUL 0x9e3779b97f4a7c15ULL
static void h4_feed(uint64_t h[4], const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t w[4];
	for (; len >= 32; len -= 32, b += 32) {
		memcpy(w, b, 32);
		for (int i = 0; i < 4; i++)
			h[i] = ((h[i] ^ w[i]) * HMUL) ^ (h[i] >> 29);
	}
	if (len) { /* the tail, zero-padded */
		memset(w, 0, 32);
		memcpy(w, b, len);
		for (int i = 0; i < 4; i++)
			h[i] = ((h[i] ^ w[i]) * HMUL) ^ (h[i] >> 29);
	}
}

static void h4_init(uint64_t h[4])
{
	for (int i = 0; i < 4; i++)
		h[i] = 0x243f6a8885a308d3ULL + (uint64_t)i;
}

static uint64_t h4_final(const uint64_t h[4], uint64_t len)
{
	uint64_t x = len * HMUL;
	for (int i = 0; i < 4; i++)
		x = ((x ^ h[i]) * HMUL) ^ (x >> 31);
	return x;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* Hash bytes [from, to) of fd into h (in 32-byte blocks).  Read through
 * a mapping (no copy), each piece handed back once hashed so that the
 * pages do not stay counted as ours. */
static int hash_fd(int fd, uint64_t from, uint64_t to, uint64_t h[4])
{
	if (to <= from)
		return 0;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t base = from / (uint64_t)pg * (uint64_t)pg;
	size_t len = (size_t)(to - base);
	char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)base);
	if (m == MAP_FAILED)
		return -1;
	madvise(m, len, MADV_SEQUENTIAL);
	const size_t piece = 8u << 20; /* a multiple of 32 and of the page */
	for (uint64_t at = from - base; at < len;) {
		size_t n = len - at < piece ? len - at : piece;
		h4_feed(h, m + at, n);
		uint64_t a0 = at / (uint64_t)pg * (uint64_t)pg;
		madvise(m + a0, at + n - a0, MADV_DONTNEED);
		at += n;
	}
	munmap(m, len);
	return 0;
}

/*
 * The event file's checksum is taken in chunks of EV_CHUNK events, each
 * hashed on its own and the chunk hashes folded in order: the writer
 * feeds it as events become final, and a reopen checks the chunks on
 * every core at once (the check is most of a reopen's time).
 */
#define EV_CHUNK (1ull << 21) /* events: 64 MiB */
#define HASH_THREADS 8

static uint64_t ev_fold(uint64_t acc, uint64_t chunk)
{
	return ((acc ^ chunk) * HMUL) ^ (acc >> 31);
}

struct chunk_job {
	int fd;
	uint64_t nev, first, step; /* chunks first, first + step, ... */
	uint64_t *out;             /* one hash a chunk */
	int rc;
};

static void *hash_chunks(void *arg)
{
	struct chunk_job *j = arg;
	for (uint64_t c = j->first; c * EV_CHUNK < j->nev; c += j->step) {
		uint64_t from = c * EV_CHUNK,
			 to = from + EV_CHUNK < j->nev ? from + EV_CHUNK : j->nev;
		uint64_t h[4];
		h4_init(h);
		if (hash_fd(j->fd, from * EV_SIZE, to * EV_SIZE, h)) {
			j->rc = -1;
			break;
		}
		j->out[c] = h4_final(h, (to - from) * EV_SIZE);
	}
	return NULL;
}

/* The checksum of nev events of fd, its chunks shared out among the
 * online CPUs (one thread if no other can be started). */
static int hash_events(int fd, uint64_t nev, uint64_t *sum)
{
	uint64_t nchunks = (nev + EV_CHUNK - 1) / EV_CHUNK;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nt = cpus < 1 ? 1 : cpus > HASH_THREADS ? HASH_THREADS : (unsigned)cpus;
	if (nt > nchunks)
		nt = nchunks ? (unsigned)nchunks : 1;
	uint64_t *out = xcalloc(nchunks ? nchunks : 1, sizeof(uint64_t));
	struct chunk_job jobs[HASH_THREADS];
	pthread_t th[HASH_THREADS];
	bool started[HASH_THREADS] = { false };
	for (unsigned t = 0; t < nt; t++) {
		jobs[t] = (struct chunk_job){ fd, nev, t, nt, out, 0 };
		if (t > 0)
			started[t] = pthread_create(&th[t], NULL, hash_chunks, &jobs[t]) == 0;
	}
	hash_chunks(&jobs[0]);
	int rc = jobs[0].rc;
	for (unsigned t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			hash_chunks(&jobs[t]); /* no thread: do its share here */
		rc |= jobs[t].rc;
	}
	uint64_t acc = 0;
	for (uint64_t c = 0; c < nchunks; c++)
		acc = ev_fold(acc, out[c]);
	free(out);
	*sum = ev_fold(acc, nev);
	return rc;
}

/* ---- where: the directory, the trace's name and identity ------------------------ */

int ix_cache_dir(char *buf, size_t len, char *err, size_t errlen)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[3000];
	if (x && x[0] == '/')
		snprintf(base, sizeof(base), "%s", x);
	else if (home && home[0] == '/')
		snprintf(base, sizeof(base), "%s/.cache", home);
	else {
		snprintf(err, errlen, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
		return -1;
	}
	snprintf(buf, len, "%s/icache-lab", base);
	if ((mkdir(base, 0700) && errno != EEXIST) || (mkdir(buf, 0700) && errno != EEXIST)) {
		snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
		return -1;
	}
	return 0;
}

static bool cache_file_name(const char *n)
{
	size_t k = strlen(n);
	return (k > 4 && (!strcmp(n + k - 4, ".idx") || !strcmp(n + k - 3, ".ev"))) ||
	       strstr(n, ".tmp.") != NULL;
}

int ix_cache_clear(char *err, size_t errlen)
{
	char dir[3100], p[3400];
	if (ix_cache_dir(dir, sizeof(dir), err, errlen))
		return -1;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && cache_file_name(de->d_name)) {
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			n += unlink(p) == 0;
		}
	closedir(d);
	return n;
}

/* Every regular file of dir, sorted: name, size, mtime; the metadata's
 * content too. */
static uint64_t hash_dir(uint64_t h, const char *dir)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	char p[4400];
	if (n < 0) /* no such directory (a trace without index/): say so */
		return fnv(h, "-", 1);
	for (int i = 0; i < n; i++) {
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			int64_t v[3] = { st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec };
			h = fnv(h, list[i]->d_name, strlen(list[i]->d_name) + 1);
			h = fnv(h, v, sizeof(v));
			if (!strcmp(list[i]->d_name, "metadata")) {
				int fd = open(p, O_RDONLY);
				uint64_t hh[4];
				h4_init(hh);
				if (fd < 0 || hash_fd(fd, 0, (uint64_t)st.st_size, hh))
					h = fnv(h, "unreadable", 10);
				h = fnv(h, hh, sizeof(hh));
				if (fd >= 0)
					close(fd);
			}
		}
		free(list[i]);
	}
	free(list);
	return fnv(h, &n, sizeof(n));
}

/* The trace's name in the cache (loc) and its identity.  -1: no cache
 * for it (the path cannot be resolved). */
static int trace_key(const char *path, const struct ix_select *sel, uint64_t *loc, uint64_t *ident)
{
	char *real = realpath(path, NULL);
	if (!real)
		return -1;
	struct ix_select s = sel ? *sel : (struct ix_select){ 0, -1 };
	uint64_t h = fnv(1469598103934665603ULL, real, strlen(real) + 1);
	h = fnv(h, &s.run, sizeof(s.run));
	*loc = fnv(h, &s.pid, sizeof(s.pid));
	struct ctf_dirs dirs = { 0 };
	ctf_dirs_scan(&dirs, real);
	const uint32_t v[] = {
		IX_CACHE_VERSION,         (uint32_t)EV_SIZE,         sizeof(struct ix_violation),
		sizeof(struct ix_run),    sizeof(struct ix_discard), sizeof(struct ix_stream),
		sizeof(struct order_rule)
	};
	h = fnv(*loc, v, sizeof(v));
	for (int d = 0; d < dirs.n; d++) {
		char idx[4200];
		h = fnv(h, dirs.dirs[d], strlen(dirs.dirs[d]) + 1);
		h = hash_dir(h, dirs.dirs[d]);
		snprintf(idx, sizeof(idx), "%s/index", dirs.dirs[d]);
		h = hash_dir(h, idx);
	}
	*ident = fnv(h, &dirs.n, sizeof(dirs.n));
	ctf_dirs_free(&dirs);
	free(real);
	return 0;
}

static char *cache_path(uint64_t loc, const char *ext, bool tmp)
{
	char dir[3100], err[200], p[3400];
	if (ix_cache_dir(dir, sizeof(dir), err, sizeof(err)))
		return NULL;
	if (tmp)
		snprintf(p, sizeof(p), "%s/%016" PRIx64 ".%s.tmp.%ld", dir, loc, ext,
			 (long)getpid());
	else
		snprintf(p, sizeof(p), "%s/%016" PRIx64 ".%s", dir, loc, ext);
	return xstrdup(p);
}

/* ---- the header and the tables ---------------------------------------------------- */

struct cache_hdr {
	char magic[8]; /* "ICVIEWX\n" */
	uint32_t version, hdr_size;
	uint64_t ident;
	uint64_t nev, ev_sum; /* events, and the hash of the .ev file */
	uint64_t tab_off, tab_len;
	uint64_t sum;     /* hash of .idx bytes [HDR_SIZE, tab_off + tab_len) */
	uint64_t hdr_sum; /* of the fields above */
};

/* The scalars of struct trace_index that a reopened index needs. */
/*
 * The index's scalars, in the file's order: S(type, name) one value,
 * A(type, name, n) an array of n.  The file's layout (struct
 * cache_scalars), the save and the load are all made from this one list:
 * a field added here is saved and loaded, in the same place.
 */
#define CACHE_SCALARS(S, A)            \
	S(uint64_t, nev)               \
	S(uint64_t, discarded_events)  \
	S(uint64_t, discarded_packets) \
	S(uint64_t, ckpt_interval)     \
	S(uint64_t, ckpt_bytes)        \
	S(uint64_t, classes_seen)      \
	S(uint64_t, other_events)      \
	S(uint64_t, load_ns)           \
	A(uint64_t, cpu_seen, 4)       \
	S(uint64_t, clock_freq)        \
	A(int64_t, pids, 16)           \
	S(struct ix_select, sel)       \
	S(uint32_t, rules_expected)    \
	S(uint32_t, ncpus)             \
	S(uint32_t, npids)             \
	S(uint8_t, order_known)        \
	S(uint8_t, has_vpid)           \
	S(uint8_t, nocpu_seen)         \
	A(char, unknown_classes, 256)  \
	A(char, other_names, 256)

struct cache_scalars {
#define S(type, name) type name;
#define A(type, name, n) type name[n];
	CACHE_SCALARS(S, A)
#undef S
#undef A
};

/* An array is copied whole: the file's and the index's must agree. */
#define S(type, name)
#define A(type, name, n)                                                \
	_Static_assert(sizeof(((struct cache_scalars *)0)->name) ==     \
			       sizeof(((struct trace_index *)0)->name), \
		       #name " differs in the cache and the index");
CACHE_SCALARS(S, A)
#undef S
#undef A

struct wbuf {
	char *p;
	size_t n, cap;
};

static void put(struct wbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_arr(struct wbuf *b, const void *p, uint64_t n, size_t elem)
{
	put(b, &n, sizeof(n));
	if (n)
		put(b, p, n * elem);
}

static void put_str(struct wbuf *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
	put(b, &n, sizeof(n));
	if (s)
		put(b, s, n);
}

static void write_tables(struct wbuf *b, const struct trace_index *ix)
{
	struct cache_scalars s;
	memset(&s, 0, sizeof(s)); /* the padding too: no stray bytes in the file */
#define S(type, name) s.name = ix->name;
#define A(type, name, n) memcpy(s.name, ix->name, sizeof(s.name));
	CACHE_SCALARS(S, A)
#undef S
#undef A
	put(b, &s, sizeof(s));
	put_arr(b, ix->ids, ix->nids, sizeof(*ix->ids));
	put_arr(b, NULL, 0, 1); /* the string table follows, counted */
	memcpy(b->p + b->n - 8, &(uint64_t){ ix->nstrs }, 8);
	for (uint32_t i = 0; i < ix->nstrs; i++)
		put_str(b, ix->strs[i]);
	put_arr(b, ix->viols, ix->nviols, sizeof(*ix->viols));
	put_arr(b, ix->runs, ix->nruns, sizeof(*ix->runs));
	put_arr(b, ix->rules, ix->nrules, sizeof(*ix->rules));
	put_arr(b, ix->discards, ix->ndiscards, sizeof(*ix->discards));
	uint64_t nck = ix->nckpts;
	put(b, &nck, sizeof(nck));
	for (uint32_t i = 0; i < ix->nckpts; i++) {
		uint64_t c[3] = { ix->ckpts[i].pos, ix->ckpts[i].size, ix->ckpts[i].off };
		put(b, c, sizeof(c));
	}
	put_arr(b, ix->streams, ix->nstreams, sizeof(*ix->streams));
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		put_str(b, ix->streams[i].path);
		put_str(b, ix->streams[i].read_dir);
	}
	put_arr(b, NULL, 0, 1);
	memcpy(b->p + b->n - 8, &(uint64_t){ ix->nreasons }, 8);
	for (uint32_t i = 0; i < ix->nreasons; i++)
		put_str(b, ix->reasons[i]);
	uint64_t uk[3] = { ix->uspans_known, ix->uspans_longest, ix->uspans_unreliable };
	put(b, uk, sizeof(uk));
	put_arr(b, ix->uspans, ix->uspans_known ? ix->nuspans : 0, sizeof(*ix->uspans));
	put_arr(b, ix->strip, ix->strip ? 1 : 0, sizeof(*ix->strip));
}

/* A bounds-checked reader over the tables: any overrun sets bad. */
struct rbuf {
	const char *p;
	size_t n, at;
	bool bad;
};

static const void *take(struct rbuf *r, size_t n)
{
	if (r->bad || n > r->n - r->at) {
		r->bad = true;
		return NULL;
	}
	const void *q = r->p + r->at;
	r->at += n;
	return q;
}

static uint64_t take_u64(struct rbuf *r)
{
	uint64_t v = 0;
	const void *q = take(r, sizeof(v));
	if (q)
		memcpy(&v, q, sizeof(v));
	return v;
}

/* An array of n elements (n < 2^32), malloc'd; *count gets n. */
static void *take_arr(struct rbuf *r, uint32_t *count, size_t elem)
{
	uint64_t n = take_u64(r);
	if (r->bad || n >= UINT32_MAX || n > (r->n - r->at) / elem) {
		r->bad = true;
		return NULL;
	}
	*count = (uint32_t)n;
	if (!n)
		return NULL;
	void *a = xmalloc(n * elem);
	memcpy(a, take(r, n * elem), n * elem);
	return a;
}

static char *take_str(struct rbuf *r)
{
	uint32_t n = 0;
	const void *q = take(r, sizeof(n));
	if (!q)
		return NULL;
	memcpy(&n, q, sizeof(n));
	if (n == UINT32_MAX)
		return NULL;
	const char *s = take(r, n);
	if (!s)
		return NULL;
	char *c = xmalloc((size_t)n + 1);
	memcpy(c, s, n);
	c[n] = 0;
	return c;
}

static char **take_strs(struct rbuf *r, uint32_t *count)
{
	uint64_t n = take_u64(r);
	if (r->bad || n > (r->n - r->at) / 4) {
		r->bad = true;
		return NULL;
	}
	*count = (uint32_t)n;
	char **a = xcalloc(n ? n : 1, sizeof(char *));
	for (uint64_t i = 0; i < n; i++) {
		a[i] = take_str(r);
		if (!a[i]) {
			r->bad = true;
			a[i] = xstrdup("");
		}
	}
	return a;
}

static void read_scalars(struct trace_index *ix, const struct cache_scalars *s)
{
#define S(type, name) ix->name = s->name;
#define A(type, name, n) memcpy(ix->name, s->name, sizeof(ix->name));
	CACHE_SCALARS(S, A)
#undef S
#undef A
	/* what a damaged file could make out of range */
	ix->cap = ix->nev;
	ix->npids = ix->npids > 16 ? 16 : ix->npids;
	ix->unknown_classes[sizeof(ix->unknown_classes) - 1] = 0;
	ix->other_names[sizeof(ix->other_names) - 1] = 0;
}

static void read_ckpts(struct rbuf *r, struct trace_index *ix, uint64_t ck_limit)
{
	uint64_t n = take_u64(r);
	if (r->bad || n >= UINT32_MAX || n > (r->n - r->at) / 24) {
		r->bad = true;
		return;
	}
	ix->ckpts = xcalloc(n ? n : 1, sizeof(*ix->ckpts));
	ix->nckpts = ix->ckpts_cap = (uint32_t)n;
	for (uint64_t i = 0; i < n; i++) {
		struct ix_checkpoint *c = &ix->ckpts[i];
		c->pos = take_u64(r);
		c->size = take_u64(r);
		c->off = take_u64(r);
		if (c->off < HDR_SIZE || c->off > ck_limit || c->size > ck_limit - c->off ||
		    c->pos > ix->nev || (i && c->pos < ix->ckpts[i - 1].pos))
			r->bad = true;
	}
}

/* Everything after the scalars; r->bad says if it did not add up. */
static void read_tables(struct rbuf *r, struct trace_index *ix, uint64_t ck_limit)
{
	const struct cache_scalars *s = take(r, sizeof(*s));
	if (!s)
		return;
	read_scalars(ix, s);
	ix->ids = take_arr(r, &ix->nids, sizeof(*ix->ids));
	ix->ids_cap = ix->nids;
	ix->strs = take_strs(r, &ix->nstrs);
	ix->strs_cap = ix->nstrs;
	ix->viols = take_arr(r, &ix->nviols, sizeof(*ix->viols));
	ix->runs = take_arr(r, &ix->nruns, sizeof(*ix->runs));
	ix->rules = take_arr(r, &ix->nrules, sizeof(*ix->rules));
	ix->discards = take_arr(r, &ix->ndiscards, sizeof(*ix->discards));
	read_ckpts(r, ix, ck_limit);
	ix->streams = take_arr(r, &ix->nstreams, sizeof(*ix->streams));
	ix->streams_cap = ix->nstreams;
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		ix->streams[i].path = take_str(r);
		ix->streams[i].read_dir = take_str(r);
		ix->streams[i].bt = NULL;
		ix->streams[i].name[sizeof(ix->streams[i].name) - 1] = 0;
	}
	ix->reasons = take_strs(r, &ix->nreasons);
	ix->reasons_cap = ix->nreasons;
	ix->uspans_known = take_u64(r) != 0;
	ix->uspans_longest = take_u64(r);
	ix->uspans_unreliable = (uint32_t)take_u64(r);
	ix->uspans = take_arr(r, &ix->nuspans, sizeof(*ix->uspans));
	uint32_t nstrip = 0;
	ix->strip = take_arr(r, &nstrip, sizeof(*ix->strip));
	if (nstrip > 1 || (ix->strip && (ix->strip->done != ix->nev || ix->strip->width <= 0)))
		r->bad = true;
	if (r->at != r->n)
		r->bad = true;
}

/* The string ids, violations and discards an event points into, and the
 * ids the violations name, must exist: check them all once. */
static bool tables_consistent(const struct trace_index *ix)
{
	for (uint32_t i = 0; i < ix->nviols; i++)
		if (ix->viols[i].text >= ix->nstrs || ix->viols[i].ev >= ix->nev)
			return false;
	for (uint32_t i = 0; i < ix->nruns; i++)
		if (ix->runs[i].scheme >= ix->nstrs || ix->runs[i].workload >= ix->nstrs ||
		    ix->runs[i].order >= ix->nstrs || ix->runs[i].scheme_file >= ix->nstrs ||
		    ix->runs[i].threads >= ix->nstrs)
			return false;
	for (uint32_t i = 0; i < ix->ndiscards; i++)
		if (ix->discards[i].stream >= (int)ix->nstreams)
			return false;
	for (uint32_t i = 0; i < ix->nuspans; i++) {
		const struct unprot_span *u = &ix->uspans[i];
		if (u->from >= u->to || u->to > ix->nev || u->obj >= ix->nids ||
		    u->unreliable > 1 || u->to - u->from > ix->uspans_longest ||
		    (i && u->from < u[-1].from))
			return false;
	}
	return ix->nckpts > 0 && ix->ckpts[0].pos == 0;
}

/* ---- reopening ------------------------------------------------------------------ */

static void rebuild_id_hash(struct trace_index *ix)
{
	uint32_t cap = 1024;
	while (cap <= ix->nids * 2u)
		cap *= 2;
	ix->id_hash = xmalloc(cap * sizeof(uint32_t));
	memset(ix->id_hash, 0xff, cap * sizeof(uint32_t));
	ix->id_hash_cap = cap;
	for (uint32_t i = 0; i < ix->nids; i++) {
		uint64_t x = ix->ids[i];
		x ^= x >> 31;
		x *= HMUL;
		x ^= x >> 29;
		uint32_t j = (uint32_t)x & (cap - 1);
		while (ix->id_hash[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		ix->id_hash[j] = i;
	}
}

static bool hdr_ok(const struct cache_hdr *h)
{
	return !memcmp(h->magic, "ICVIEWX\n", 8) && h->version == IX_CACHE_VERSION &&
	       h->hdr_size == HDR_SIZE &&
	       h->hdr_sum == fnv(1469598103934665603ULL, h, offsetof(struct cache_hdr, hdr_sum));
}

/* Check the files against the header: sizes, then both checksums. */
static const char *files_ok(const struct cache_hdr *h, int ck_fd, int ev_fd)
{
	struct stat a, b;
	if (fstat(ck_fd, &a) || fstat(ev_fd, &b))
		return "cannot be read";
	if (h->tab_off < HDR_SIZE || h->tab_len > (uint64_t)a.st_size ||
	    h->tab_off > (uint64_t)a.st_size - h->tab_len ||
	    (uint64_t)b.st_size != h->nev * EV_SIZE || h->nev > ((uint64_t)1 << 40))
		return "has the wrong size (cut short?)";
	uint64_t s[4];
	h4_init(s);
	if (hash_fd(ck_fd, HDR_SIZE, h->tab_off + h->tab_len, s) ||
	    h4_final(s, h->tab_off + h->tab_len - HDR_SIZE) != h->sum)
		return "is corrupt (checksum of its tables)";
	uint64_t ev_sum;
	if (hash_events(ev_fd, h->nev, &ev_sum) || ev_sum != h->ev_sum)
		return "is corrupt (checksum of its events)";
	return NULL;
}

static struct trace_index *index_from(const char *path, const struct cache_hdr *h, int ck_fd,
				      int ev_fd, const char **why)
{
	struct rbuf r = { .n = h->tab_len };
	char *tab = xmalloc(h->tab_len ? h->tab_len : 1);
	r.p = tab;
	if (pread(ck_fd, tab, h->tab_len, (off_t)h->tab_off) != (ssize_t)h->tab_len) {
		free(tab);
		*why = "cannot be read";
		return NULL;
	}
	struct trace_index *ix = xcalloc(1, sizeof(*ix));
	ix->path = xstrdup(path);
	read_tables(&r, ix, h->tab_off);
	free(tab);
	if (r.bad || ix->nev != h->nev || !tables_consistent(ix)) {
		*why = "does not add up (corrupt tables)";
		ix_decode_free(ix);
		return NULL;
	}
	if (ix->nev) {
		ix->ev = mmap(NULL, ix->nev * EV_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ev_fd,
			      0);
		if (ix->ev == MAP_FAILED) {
			ix->ev = NULL;
			*why = "cannot be mapped";
			ix_decode_free(ix);
			return NULL;
		}
	}
	rebuild_id_hash(ix);
	return ix;
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Open the pair; NULL with *why set (or not: simply no cache). */
static struct trace_index *open_pair(const char *path, const char *ckp, const char *evp,
				     uint64_t ident, const char **why)
{
	int ck_fd = open(ckp, O_RDONLY | O_CLOEXEC);
	if (ck_fd < 0)
		return NULL; /* no cache yet */
	struct cache_hdr h;
	struct trace_index *ix = NULL;
	int ev_fd = -1;
	if (pread(ck_fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || !hdr_ok(&h))
		*why = "is corrupt (bad header)";
	else if (h.ident != ident)
		*why = "is stale (the trace changed since it was indexed)";
	else if ((ev_fd = open(evp, O_RDONLY | O_CLOEXEC)) < 0)
		*why = "has lost its event file";
	else if (!(*why = files_ok(&h, ck_fd, ev_fd)))
		ix = index_from(path, &h, ck_fd, ev_fd, why);
	if (ev_fd >= 0)
		close(ev_fd);
	if (!ix) {
		close(ck_fd);
		return NULL;
	}
	ix->store = xcalloc(1, sizeof(*ix->store));
	*ix->store = (struct ix_store){ .ev_fd = -1, .ck_fd = ck_fd, .state = IXC_HIT };
	ix->store->map_len = ix->nev * EV_SIZE;
	return ix;
}

struct trace_index *ix_cache_open(const char *path, const struct ix_select *sel)
{
	uint64_t loc, ident, t0 = mono_ns();
	if (ix_cache_mode != IX_CACHE_ON || trace_key(path, sel, &loc, &ident))
		return NULL;
	char *ckp = cache_path(loc, "idx", false), *evp = cache_path(loc, "ev", false);
	const char *why = NULL;
	struct trace_index *ix = ckp && evp ? open_pair(path, ckp, evp, ident, &why) : NULL;
	if (!ix && why) {
		warnf("icache-lab: the index cache %s of %s %s: indexing the trace again", ckp,
		      path, why);
		unlink(ckp);
		unlink(evp);
	}
	if (ix)
		ix->load_ns = mono_ns() - t0;
	free(ckp);
	free(evp);
	return ix;
}

/* ---- decoding into files -------------------------------------------------------- */

/* Temporary files in the cache (kept = renamed at the end) or, failing
 * that or with the cache off, unlinked ones in TMPDIR. */
static int open_tmp(struct ix_store *s, uint64_t loc, bool keep)
{
	if (keep) {
		s->ev_tmp = cache_path(loc, "ev", true);
		s->ck_tmp = cache_path(loc, "idx", true);
		s->ev_final = cache_path(loc, "ev", false);
		s->ck_final = cache_path(loc, "idx", false);
		if (s->ev_tmp && s->ck_tmp && s->ev_final && s->ck_final) {
			s->ev_fd = open(s->ev_tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			s->ck_fd = open(s->ck_tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (s->ev_fd >= 0 && s->ck_fd >= 0)
				return 0;
		}
		warnf("icache-lab: cannot write the index cache (%s): indexing in memory",
		      s->ev_tmp ? strerror(errno) : "no cache directory");
		return -1;
	}
	const char *t = getenv("TMPDIR");
	t = t && t[0] == '/' ? t : "/tmp";
	s->ev_fd = open(t, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	s->ck_fd = open(t, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	return s->ev_fd >= 0 && s->ck_fd >= 0 ? 0 : -1;
}

static void store_close(struct ix_store *s)
{
	if (s->ev_fd >= 0)
		close(s->ev_fd);
	if (s->ck_fd >= 0)
		close(s->ck_fd);
	s->ev_fd = s->ck_fd = -1;
	if (s->ev_tmp)
		unlink(s->ev_tmp);
	if (s->ck_tmp)
		unlink(s->ck_tmp);
	free(s->ev_tmp);
	free(s->ck_tmp);
	free(s->ev_final);
	free(s->ck_final);
	s->ev_tmp = s->ck_tmp = s->ev_final = s->ck_final = NULL;
}

/* Map the first EV_FIRST_CAP events' worth of file. */
static int map_first(struct trace_index *ix, struct ix_store *s)
{
	size_t len = (size_t)EV_FIRST_CAP * EV_SIZE;
	if (ftruncate(s->ev_fd, (off_t)len))
		return -1;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->ev_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	ix->ev = p;
	ix->cap = EV_FIRST_CAP;
	s->map_len = len;
	return 0;
}

void ix_store_begin(struct trace_index *ix, const struct ix_select *sel)
{
	uint64_t loc = 0, ident = 0;
	bool keep = ix_cache_mode == IX_CACHE_ON && trace_key(ix->path, sel, &loc, &ident) == 0;
	struct ix_store *s = xcalloc(1, sizeof(*s));
	s->ev_fd = s->ck_fd = -1;
	s->ck_end = HDR_SIZE;
	s->ident = ident;
	h4_init(s->hash);
	if (ix->nev || ix->ev)
		goto memory; /* too late: events already in memory */
	if (open_tmp(s, loc, keep) && (!keep || (store_close(s), open_tmp(s, loc, false))))
		goto memory;
	if (map_first(ix, s))
		goto memory;
	s->state = keep ? IXC_WRITING : IXC_TEMP;
	ix->store = s;
	return;
memory:
	store_close(s);
	free(s);
}

void ix_store_grow(struct trace_index *ix)
{
	struct ix_store *s = ix->store;
	if (ix->nev < ix->cap)
		return;
	uint64_t n = ix->cap ? ix->cap * 2 : 65536;
	if (!s) {
		ix->ev = xreallocarray(ix->ev, n, EV_SIZE);
		ix->cap = n;
		return;
	}
	size_t len = n * EV_SIZE;
	if (ftruncate(s->ev_fd, (off_t)len))
		fatal("cannot grow the event file to %zu bytes: %s", len, strerror(errno));
	void *p = mremap(ix->ev, s->map_len, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		fatal("cannot map %zu bytes of events: %s", len, strerror(errno));
	ix->ev = p;
	ix->cap = n;
	s->map_len = len;
}

void ix_store_settled(struct trace_index *ix, uint64_t upto)
{
	struct ix_store *s = ix->store;
	if (!s || s->state == IXC_HIT || upto <= s->settled)
		return;
	while (s->settled < upto) { /* (chunk by chunk: see hash_events) */
		uint64_t end = (s->settled / EV_CHUNK + 1) * EV_CHUNK;
		uint64_t to = end < upto ? end : upto;
		h4_feed(s->hash, &ix->ev[s->settled], (to - s->settled) * EV_SIZE);
		s->settled = to;
		if (to == end) {
			s->ev_acc = ev_fold(s->ev_acc, h4_final(s->hash, EV_CHUNK * EV_SIZE));
			h4_init(s->hash);
		}
	}
	if (upto - s->trimmed < TRIM_EVERY)
		return;
	/* Hand the pages behind back: they are in the file (page cache). */
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t from = s->trimmed * EV_SIZE / (uint64_t)pg * (uint64_t)pg;
	uint64_t to = upto * EV_SIZE / (uint64_t)pg * (uint64_t)pg;
	if (to > from)
		madvise((char *)ix->ev + from, to - from, MADV_DONTNEED);
	s->trimmed = upto;
}

void ix_store_shrink(struct trace_index *ix)
{
	struct ix_store *s = ix->store;
	if (!s) {
		struct ix_event *e = ix->nev ? realloc(ix->ev, ix->nev * EV_SIZE) : NULL;
		if (e) {
			ix->ev = e;
			ix->cap = ix->nev;
		}
		return;
	}
	ix_store_settled(ix, ix->nev);
	if (ftruncate(s->ev_fd, (off_t)(ix->nev * EV_SIZE)) == 0 && ix->nev) {
		void *p = mremap(ix->ev, s->map_len, ix->nev * EV_SIZE, MREMAP_MAYMOVE);
		if (p != MAP_FAILED) {
			ix->ev = p;
			s->map_len = ix->nev * EV_SIZE;
			ix->cap = ix->nev;
		}
	}
}

void ix_store_ckpt(struct trace_index *ix, struct ix_checkpoint *c)
{
	struct ix_store *s = ix->store;
	if (!s || s->ck_fd < 0 || !c->blob)
		return;
	if (pwrite(s->ck_fd, c->blob, c->size, (off_t)s->ck_end) != (ssize_t)c->size)
		return; /* it stays in memory */
	c->off = s->ck_end;
	s->ck_end += c->size;
	free(c->blob);
	c->blob = NULL;
}

const void *ix_ckpt_blob(const struct trace_index *ix, const struct ix_checkpoint *c, void **tofree)
{
	*tofree = NULL;
	if (c->blob)
		return c->blob;
	if (!ix->store || ix->store->ck_fd < 0)
		return NULL;
	void *b = xmalloc(c->size ? c->size : 1);
	if (pread(ix->store->ck_fd, b, c->size, (off_t)c->off) != (ssize_t)c->size) {
		free(b);
		return NULL;
	}
	*tofree = b;
	return b;
}

/* ---- writing the cache ---------------------------------------------------------- */

static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
	return pwrite(fd, p, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static int commit_files(struct trace_index *ix, struct ix_store *s)
{
	struct wbuf b = { 0 };
	write_tables(&b, ix);
	struct cache_hdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "ICVIEWX\n", 8);
	h.version = IX_CACHE_VERSION;
	h.hdr_size = HDR_SIZE;
	h.ident = s->ident;
	h.nev = ix->nev;
	h.ev_sum = s->ev_acc;
	if (ix->nev % EV_CHUNK) /* the last, partial chunk */
		h.ev_sum = ev_fold(h.ev_sum, h4_final(s->hash, ix->nev % EV_CHUNK * EV_SIZE));
	h.ev_sum = ev_fold(h.ev_sum, ix->nev);
	h.tab_off = s->ck_end;
	h.tab_len = b.n;
	int rc = write_all(s->ck_fd, b.p, b.n, h.tab_off);
	free(b.p);
	uint64_t sum[4];
	h4_init(sum);
	if (rc || hash_fd(s->ck_fd, HDR_SIZE, h.tab_off + h.tab_len, sum))
		return -1;
	h.sum = h4_final(sum, h.tab_off + h.tab_len - HDR_SIZE);
	h.hdr_sum = fnv(1469598103934665603ULL, &h, offsetof(struct cache_hdr, hdr_sum));
	if (write_all(s->ck_fd, &h, sizeof(h), 0))
		return -1;
	if (rename(s->ev_tmp, s->ev_final) || rename(s->ck_tmp, s->ck_final))
		return -1;
	free(s->ev_tmp);
	free(s->ck_tmp);
	s->ev_tmp = s->ck_tmp = NULL;
	return 0;
}

void ix_cache_commit(struct trace_index *ix)
{
	struct ix_store *s = ix->store;
	if (!s || s->state != IXC_WRITING)
		return;
	ix_store_settled(ix, ix->nev);
	if (commit_files(ix, s)) {
		warnf("icache-lab: cannot write the index cache %s: %s", s->ck_final,
		      strerror(errno));
		s->state = IXC_TEMP;
		return;
	}
	s->state = IXC_WRITTEN;
}

void ix_store_free(struct trace_index *ix)
{
	struct ix_store *s = ix->store;
	if (!s) {
		free(ix->ev);
		ix->ev = NULL;
		return;
	}
	if (ix->ev)
		munmap(ix->ev, s->map_len);
	ix->ev = NULL;
	store_close(s);
	free(s);
	ix->store = NULL;
}

void ix_release(const struct trace_index *ix, uint64_t from, uint64_t to)
{
	/* Only a mapping of a file that holds every event: the reopened
	 * cache (read, never written), or a loader's file for the events
	 * already settled (written through the shared mapping). */
	const struct ix_store *s = ix->store;
	if (!s || !ix->ev || (s->state != IXC_HIT && to > s->settled))
		return;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t a = (from * EV_SIZE + (uint64_t)pg - 1) / (uint64_t)pg * (uint64_t)pg;
	uint64_t b = to * EV_SIZE / (uint64_t)pg * (uint64_t)pg;
	if (b > a && b <= s->map_len)
		madvise((char *)ix->ev + a, b - a, MADV_DONTNEED);
}

enum ix_cache_state ix_cache_state(const struct trace_index *ix)
{
	return ix->store ? ix->store->state : IXC_MEMORY;
}

const char *ix_cache_state_name(enum ix_cache_state s)
{
	static const char *const names[] = { "memory", "temporary file", "writing", "written",
					     "reopened" };
	return s <= IXC_HIT ? names[s] : "?";
}
