/*
 * psplit.c - share a trace's packets, not its streams, among the decoder
 * processes (decode.h).
 *
 * LTTng writes one stream per core, and one core is rarely as busy as
 * another (a 2-CPU run splits some 73/27): dealing whole streams to two
 * decoders leaves one idle for the last part of the load.  A stream is a
 * sequence of packets (one sub-buffer each) that LTTng's index file lists
 * with their offsets and times, and babeltrace2's src.ctf.fs reads the
 * packets its index lists (when the index accounts for the whole file).
 * So each decoder gets a directory of its own: the metadata and the
 * stream files as symbolic links, and an index listing only its packets.
 * The packets of all streams, in time order, are dealt in turn: each
 * decoder has about the same bytes in any stretch of time, so neither
 * waits long for the other in the loader's merge.
 *
 * Only a trace whose every packet is accounted for is split so: LTTng's
 * index (version 1.1: with packet sequence numbers) of every stream,
 * agreeing with the file, without a packet or an event lost.  Then a gap
 * in the sequence numbers that babeltrace2 sees in a decoder's share is
 * the other decoders' packets, not a loss (split_discard() says how many
 * to take off).  Any other trace is shared out by streams as before.
 *
 * Lock rules: none.  The plan is built by the loader before the decoders
 * fork; each decoder reads its copy.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ctf.h"
#include "lib/dirguard.h"
#include "lib/xalloc.h"
#include "viewer/decode.h"

#define IDX_MAGIC 0xc1f1dcc1u
#define IDX_ENTRY_1_1 72 /* offset ... stream_instance_id, packet_seq_num */

/* One packet of one stream, as LTTng's index lists it. */
struct split_pkt {
	int stream;      /* in ix->streams */
	int owner;       /* the decoder dealt it */
	uint64_t seq;    /* packet_seq_num */
	uint64_t tbegin; /* timestamp_begin (clock cycles) */
	uint8_t entry[IDX_ENTRY_1_1];
};

struct ix_split {
	int n;                  /* decoders */
	char root[256];         /* their directories, removed by split_free */
	struct dir_guard guard; /* ...or by this, if the viewer is killed */
	struct split_pkt *pkts; /* every packet, in time order */
	uint32_t npkts;
	uint8_t idx_head[16]; /* an index file's header (the first one read) */
	uint32_t nstreams;
	int *owners; /* per stream: decoders with a packet of it */
	/* per decoder x stream (k * nstreams + stream): */
	uint32_t *count; /* its packets of the stream */
	uint64_t **seqs; /* their sequence numbers, in order */
	uint32_t *next;  /* how many of them have ended so far */
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Read stream si's index: every packet, the file wholly accounted for, in
 * sequence, nothing lost.  false if it is not so. */
static bool read_stream_index(struct ix_split *sp, const struct ix_stream *s, int si)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/index/%s.idx", s->read_dir, s->name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	uint8_t h[16], e[IDX_ENTRY_1_1];
	/* version 1.1 exactly: its entries are what write_share() writes */
	bool ok = fread(h, 1, sizeof(h), f) == sizeof(h) && be32(h) == IDX_MAGIC &&
		  be32(h + 4) == 1 && be32(h + 8) == 1 && be32(h + 12) == IDX_ENTRY_1_1;
	uint64_t at = 0, seq = 0;
	uint32_t n = 0;
	while (ok && fseek(f, (long)(16 + (uint64_t)n * be32(h + 12)), SEEK_SET) == 0 &&
	       fread(e, 1, sizeof(e), f) == sizeof(e)) {
		uint64_t off = be64(e), bits = be64(e + 8);
		ok = off == at && bits % 8 == 0 && be64(e + 40) == 0 /* events_discarded */ &&
		     (n == 0 || be64(e + 64) == seq + 1);
		at = off + bits / 8;
		seq = be64(e + 64);
		if (!ok)
			break;
		if (sp->npkts % 256 == 0)
			sp->pkts = xreallocarray(sp->pkts, sp->npkts + 256, sizeof(*sp->pkts));
		struct split_pkt *p = &sp->pkts[sp->npkts++];
		*p = (struct split_pkt){ .stream = si, .seq = seq, .tbegin = be64(e + 24) };
		memcpy(p->entry, e, sizeof(e));
		n++;
	}
	if (ok && sp->npkts == n) /* the first index read */
		memcpy(sp->idx_head, h, sizeof(h));
	fclose(f);
	return ok && n > 0 && n == s->packets && at == s->size;
}

static int by_time(const void *a, const void *b)
{
	const struct split_pkt *x = a, *y = b;
	if (x->tbegin != y->tbegin)
		return x->tbegin < y->tbegin ? -1 : 1;
	return x->stream != y->stream ? (x->stream < y->stream ? -1 : 1) : x->seq < y->seq ? -1 : 1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path); /* (what cannot be removed stays in the temporary directory) */
	return 0;
}

void split_free(struct ix_split *sp)
{
	if (!sp)
		return;
	if (sp->root[0]) /* symbolic links and small index files only */
		nftw(sp->root, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	dir_guard_end(&sp->guard);
	for (size_t c = 0; sp->seqs && c < (size_t)sp->n * sp->nstreams; c++)
		free(sp->seqs[c]);
	free_all(sp->seqs, sp->count, sp->pkts, sp->owners, sp->next, sp);
}

/* Decoder k's directory for trace directory d (made by make_share). */
static void share_dir(const struct ix_split *sp, int k, int d, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%d/%d", sp->root, k, d);
}

static int trace_dir_of(const struct ctf_dirs *dirs, const struct ix_stream *s)
{
	for (int d = 0; d < dirs->n; d++) {
		char *real = realpath(dirs->dirs[d], NULL);
		bool same = real && !strcmp(real, s->read_dir);
		free(real);
		if (same)
			return d;
	}
	return -1;
}

/* Decoder k's directory for every trace directory: its index directory
 * and the metadata (a link). */
static int make_dirs(const struct ix_split *sp, const struct ctf_dirs *dirs, int k)
{
	char dir[400], p[4600];
	snprintf(p, sizeof(p), "%s/%d", sp->root, k);
	if (mkdir(p, 0700))
		return -1;
	for (int d = 0; d < dirs->n; d++) {
		share_dir(sp, k, d, dir, sizeof(dir));
		snprintf(p, sizeof(p), "%s/index", dir);
		if (mkdir(dir, 0700) || mkdir(p, 0700))
			return -1;
		char meta[4200];
		snprintf(meta, sizeof(meta), "%s/metadata", dirs->dirs[d]);
		snprintf(p, sizeof(p), "%s/metadata", dir);
		if (dir_link_abs(meta, p))
			return -1;
	}
	return 0;
}

/*
 * Stream si in decoder k's directory dir: a link to the file and an index
 * of k's packets only (none: no file, as babeltrace2 would otherwise read
 * it all).  Each entry's size is stretched to k's next packet, the last
 * one's to the file's end plus what lies before k's first, so that the
 * sizes add up to the file's as babeltrace2 checks; it reads each
 * packet's own size in the packet.
 */
static int write_share(const struct ix_split *sp, const struct ix_stream *s, int si, int k,
		       const char *dir)
{
	char p[4600];
	FILE *f = NULL;
	uint64_t first = 0;
	uint8_t prev[IDX_ENTRY_1_1];
	int ok = 1;
	for (uint32_t i = 0; ok && i < sp->npkts; i++) {
		const struct split_pkt *pk = &sp->pkts[i];
		if (pk->owner != k || pk->stream != si)
			continue;
		if (!f) {
			snprintf(p, sizeof(p), "%s/%s", dir, s->name);
			ok = dir_link_abs(s->path, p) == 0;
			snprintf(p, sizeof(p), "%s/index/%s.idx", dir, s->name);
			ok = ok && (f = fopen(p, "wb")) && fwrite(sp->idx_head, 16, 1, f) == 1;
			first = be64(pk->entry);
		} else {
			put_be64(prev + 8, (be64(pk->entry) - be64(prev)) * 8);
			ok = fwrite(prev, sizeof(prev), 1, f) == 1;
		}
		memcpy(prev, pk->entry, sizeof(prev));
	}
	if (f && ok) {
		put_be64(prev + 8, (s->size - be64(prev) + first) * 8);
		ok = fwrite(prev, sizeof(prev), 1, f) == 1;
	}
	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static int make_share(const struct ix_split *sp, const struct trace_index *ix,
		      const struct ctf_dirs *dirs, int k)
{
	char dir[400];
	if (make_dirs(sp, dirs, k))
		return -1;
	for (uint32_t si = 0; si < ix->nstreams; si++) {
		int d = trace_dir_of(dirs, &ix->streams[si]);
		if (d < 0)
			return -1;
		share_dir(sp, k, d, dir, sizeof(dir));
		if (write_share(sp, &ix->streams[si], (int)si, k, dir))
			return -1;
	}
	return 0;
}

/* Deal the packets (in time order) to the n decoders in turn; note per
 * decoder and stream the sequence numbers of its packets. */
static void deal(struct ix_split *sp)
{
	uint32_t ns = sp->nstreams;
	sp->owners = xcalloc(ns, sizeof(int));
	sp->next = xcalloc((size_t)sp->n * ns, sizeof(uint32_t));
	sp->count = xcalloc((size_t)sp->n * ns, sizeof(uint32_t));
	sp->seqs = xcalloc((size_t)sp->n * ns, sizeof(uint64_t *));
	for (uint32_t i = 0; i < sp->npkts; i++) {
		struct split_pkt *pk = &sp->pkts[i];
		pk->owner = (int)(i % (uint32_t)sp->n);
		size_t c = (size_t)pk->owner * ns + (size_t)pk->stream;
		if (sp->count[c] == 0)
			sp->owners[pk->stream]++;
		sp->seqs[c] = xreallocarray(sp->seqs[c], sp->count[c] + 1, sizeof(uint64_t));
		sp->seqs[c][sp->count[c]++] = pk->seq;
	}
}

struct ix_split *split_plan(const struct trace_index *ix, const struct ctf_dirs *dirs, int n)
{
	if (n < 2 || ix->nstreams == 0 || getenv("ICACHE_VIEW_NO_PACKET_SPLIT"))
		return NULL;
	struct ix_split *sp = xcalloc(1, sizeof(*sp));
	sp->n = n;
	sp->nstreams = ix->nstreams;
	for (uint32_t si = 0; si < ix->nstreams; si++) {
		const struct ix_stream *s = &ix->streams[si];
		if (!s->path || s->missing || s->empty || s->cut_mid || s->cut_idx ||
		    !read_stream_index(sp, s, (int)si)) {
			split_free(sp);
			return NULL;
		}
	}
	if (sp->npkts < (uint32_t)n) {
		split_free(sp);
		return NULL;
	}
	qsort(sp->pkts, sp->npkts, sizeof(*sp->pkts), by_time);
	deal(sp);
	const char *tmp = getenv("TMPDIR");
	snprintf(sp->root, sizeof(sp->root), "%s/icache-view-split.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sp->root)) {
		sp->root[0] = 0;
		split_free(sp);
		return NULL;
	}
	dir_guard_start(&sp->guard, sp->root);
	for (int k = 0; k < n; k++)
		if (make_share(sp, ix, dirs, k)) {
			split_free(sp);
			return NULL;
		}
	return sp;
}

int split_decoders(const struct ix_split *sp)
{
	return sp->n;
}

void split_dir(const struct ix_split *sp, int k, int d, char *buf, size_t len)
{
	share_dir(sp, k, d, buf, len);
}

static size_t cell(const struct ix_split *sp, int k, int stream)
{
	return (size_t)k * sp->nstreams + (size_t)stream;
}

static bool known(const struct ix_split *sp, int k, int stream)
{
	return k >= 0 && k < sp->n && stream >= 0 && (uint32_t)stream < sp->nstreams;
}

void split_packet_end(struct ix_split *sp, int k, int stream)
{
	if (known(sp, k, stream))
		sp->next[cell(sp, k, stream)]++;
}

uint64_t split_discard(const struct ix_split *sp, int k, int stream, uint64_t count)
{
	if (!known(sp, k, stream))
		return count;
	size_t c = cell(sp, k, stream);
	uint32_t j = sp->next[c];
	if (j >= sp->count[c])
		return count;
	uint64_t before = j ? sp->seqs[c][j - 1] + 1 : 0, others = sp->seqs[c][j] - before;
	return count > others ? count - others : 0;
}

uint64_t split_seq(const struct ix_split *sp, int k, int stream)
{
	if (!known(sp, k, stream))
		return 0;
	size_t c = cell(sp, k, stream);
	uint32_t j = sp->next[c];
	return j < sp->count[c] ? sp->seqs[c][j] : UINT64_MAX;
}

bool split_stream_end(struct ix_split *sp, int stream)
{
	if (stream < 0 || (uint32_t)stream >= sp->nstreams)
		return true;
	return --sp->owners[stream] <= 0;
}
