/*
 * pdecode.c - decode a trace's streams on every core, merge by time.
 *
 * libbabeltrace2 decodes one graph in one thread, and decoding is most of
 * an index's time; but the streams of a trace (LTTng: one per core) are
 * independent until they are merged.  So the decoding is shared out among
 * decoder processes: each fork()s from the loader once the trace has been
 * checked (ix_decode_open), builds its own graph over every n-th stream
 * (ctf_graph_set_part) and writes what it reads, described as struct
 * ix_raw (decode.h), down a pipe.  The loader merges the pipes in time
 * order, as the muxer would, and applies each description with the
 * functions the one-process loader uses.  Processes rather than threads:
 * libbabeltrace2 is not thread-safe, and a decoder that babeltrace2
 * crashes takes nothing else down (its failure comes back as a record).
 *
 * Lock rules: none.  A decoder shares nothing with the loader but its
 * pipe; the loader alone owns the index.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "lib/ctf.h"
#include "lib/spawn.h"
#include "lib/xalloc.h"
#include "viewer/decode.h"
#include "viewer/health.h"

/* index.c's side for the decoder processes. */
void ix_part_error_text(const struct trace_index *ix, const struct ix_raw *r, char *err,
			size_t len);
int ix_decode_part(struct trace_index *ix, int part, int nparts, char **shares, ix_raw_emit_fn emit,
		   struct ix_raw *fail, char *cause, size_t clen);

#define PDEC_MAX 8
#define BATCH 512 /* descriptions applied per round */
/* What a decoder has written and the loader not read yet, beyond the pipe:
 * a decoder ahead of the others in the merge goes on decoding into it
 * (some three packets of LTTng's 4 MiB) rather than wait. */
#define WBUF (32u << 20)
#define WSEND (64u << 10) /* try to send once this much is waiting */
#define RBUF (1u << 20)   /* the loader's reads, per decoder */

/* ---- the wire: one record per description, 8-byte aligned ------------------------ */

enum { W_VTID = 1, W_VPID = 2, W_NAME = 4, W_PACKETS = 8, W_EXTRA = 16 };

struct wire {
	uint32_t size; /* of the whole record */
	uint8_t kind, core, type, nf;
	int32_t stream;
	uint16_t flags, strmask; /* strmask: bit f, s[f] follows */
	uint32_t absent, is_class;
	int64_t ts;
}; /* then: vtid, vpid, te and count (as flags say), nf values, strings */

/* ---- a decoder process -------------------------------------------------------------- */

static struct {
	int fd; /* non-blocking */
	char *buf;
	size_t lo, n;           /* buf[lo, n) not sent yet */
	size_t retry;           /* the pipe was full: try again at n this high */
	uint8_t told[1024];     /* stream named to the loader already */
	struct ix_split *split; /* the packets dealt, if they were */
	int k;                  /* this decoder */
} out;

/* Send what is waiting, as much as the pipe takes now (or, wait, all). */
static void send_out(bool wait)
{
	while (out.lo < out.n) {
		ssize_t w = write(out.fd, out.buf + out.lo, out.n - out.lo);
		if (w > 0) {
			out.lo += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = out.fd, .events = POLLOUT };
			if (!wait) {
				out.retry = out.n + WSEND;
				return;
			}
			poll(&pf, 1, -1);
			continue;
		}
		_exit(3); /* the loader is gone */
	}
	out.lo = out.n = out.retry = 0;
}

static void put(const void *p, size_t n)
{
	memcpy(out.buf + out.n, p, n);
	out.n += n;
}

static void put_str(const char *s)
{
	uint16_t n = (uint16_t)(strlen(s) < 65534 ? strlen(s) + 1 : 65535);
	put(&n, sizeof(n));
	put(s, n - 1u);
	put("", 1);
}

static size_t str_room(const char *s)
{
	return s ? 2 + (strlen(s) < 65534 ? strlen(s) + 1 : 65535) : 0;
}

static void emit_record(struct trace_index *ix, const struct ix_raw *r);

/* The loader learns a stream's file (its own numbering) once. */
static void tell_stream(struct trace_index *ix, int si)
{
	if (si < 0 || (si < 1024 && out.told[si]))
		return;
	if (si < 1024)
		out.told[si] = 1;
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", ix->streams[si].read_dir, ix->streams[si].name);
	emit_record(ix, &(struct ix_raw){ .kind = RAW_STREAM, .stream = si, .name = path });
}

static void emit_record(struct trace_index *ix, const struct ix_raw *r)
{
	if (r->kind != RAW_STREAM)
		tell_stream(ix, r->stream);
	struct wire w = { .kind = r->kind,
			  .core = r->core,
			  .type = (uint8_t)r->type,
			  .stream = r->stream,
			  .absent = r->absent,
			  .is_class = r->is_class,
			  .ts = r->ts };
	size_t need = sizeof(w);
	if (r->kind == RAW_EVENT) {
		w.nf = (uint8_t)r->nf;
		w.flags = (uint16_t)((r->vtid >= 0 ? W_VTID : 0) | (r->vpid >= 0 ? W_VPID : 0));
		need += 16 + 8u * w.nf;
		for (int f = 0; f < r->nf; f++)
			if (r->s[f]) {
				w.strmask |= (uint16_t)(1u << f);
				need += str_room(r->s[f]);
			}
	} else {
		w.flags = W_EXTRA | (r->packets ? W_PACKETS : 0);
		need += 16;
	}
	if (r->name) {
		w.flags |= W_NAME;
		need += str_room(r->name);
	}
	need = (need + 7) & ~(size_t)7;
	w.size = (uint32_t)need;
	if (out.n + need > WBUF)
		send_out(true);
	size_t start = out.n;
	put(&w, sizeof(w));
	if (w.flags & W_VTID)
		put(&r->vtid, 8);
	if (w.flags & W_VPID)
		put(&r->vpid, 8);
	if (w.flags & W_EXTRA) {
		put(&r->te, 8);
		put(&r->count, 8);
	}
	put(r->v, 8u * w.nf);
	for (int f = 0; f < w.nf; f++)
		if (w.strmask >> f & 1)
			put_str(r->s[f]);
	if (r->name)
		put_str(r->name);
	while (out.n < start + need)
		put("", 1);
	if (out.n - out.lo >= WSEND && out.n >= out.retry)
		send_out(false);
}

/* A decoder with a share of the packets: a gap before its next packet of
 * a stream is the other decoders' packets, not a loss (what is beyond
 * them is still told); its packet ends are counted.  false: drop r. */
static bool split_record(struct ix_raw *r)
{
	if (!out.split)
		return true;
	if (r->kind == RAW_PACKET_END)
		split_packet_end(out.split, out.k, r->stream);
	if (r->kind == RAW_DISCARD && r->packets)
		r->count = split_discard(out.split, out.k, r->stream, r->count);
	return r->kind != RAW_DISCARD || r->count > 0;
}

static void emit_split(struct trace_index *ix, const struct ix_raw *r)
{
	struct ix_raw c = *r;
	if (split_record(&c))
		emit_record(ix, &c);
}

static void __attribute__((noreturn))
decoder_main(struct trace_index *ix, int part, int n, struct ix_split *split,
	     const struct ctf_dirs *dirs, int fd, pid_t loader)
{
	/* Dies with the loader; in a session of its own, so that Ctrl-C, a
	 * resize or a stop reach the viewer alone (whose handlers it
	 * inherited: none of them may run here), and so that the scheduler
	 * shares the CPUs with it as with any program started on its own
	 * (autogroup: a session's processes share one session's part). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != loader)
		_exit(5);
	if (setsid() < 0)
		setpgid(0, 0);
	static const int sigs[] = { SIGINT,  SIGQUIT, SIGTERM, SIGHUP, SIGWINCH,
				    SIGTSTP, SIGCONT, SIGPIPE, SIGCHLD };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	out.fd = fd;
	out.buf = malloc(WBUF);
	if (!out.buf || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		_exit(4);
	out.split = split;
	out.k = part;
	char **shares = split ? xcalloc((size_t)dirs->n, sizeof(char *)) : NULL;
	for (int d = 0; split && d < dirs->n; d++) {
		shares[d] = xmalloc(400);
		split_dir(split, part, d, shares[d], 400);
	}
	struct ix_raw fail;
	char cause[512];
	if (ix_decode_part(ix, part, n, shares, emit_split, &fail, cause, sizeof(cause)) == 0)
		fail = (struct ix_raw){ .kind = RAW_END, .stream = -1 };
	fail.stream = -1;
	emit_record(ix, &fail);
	send_out(true);
	_exit(0);
}

/* ---- the loader's side -------------------------------------------------------------- */

struct pdec_in {
	int fd;
	pid_t pid;
	char *buf;
	size_t lo, hi;     /* unread bytes */
	bool eof, ended;   /* pipe closed; RAW_END read */
	struct ix_raw cur; /* the next description, if has */
	bool has;
	int64_t key, last; /* its merge time; the one before */
	int *smap;         /* its stream numbers -> ours */
	int nsmap;
};

struct ix_pdec {
	int n;
	struct pdec_in in[PDEC_MAX];
	struct ix_split *split; /* the packets dealt, NULL: the streams */
};

/* How many decoders (1: none); *split the packets dealt to them, or NULL
 * if each takes whole streams. */
static int decoders_wanted(const struct trace_index *ix, uint64_t streams,
			   const struct ctf_dirs *dirs, struct ix_split **split)
{
	const char *env = getenv("ICACHE_VIEW_DECODERS");
	long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	*split = NULL;
	if (n > PDEC_MAX)
		n = PDEC_MAX;
	if (ix->sel.run || ix->sel.pid >= 0)
		return 1; /* a window of one run: the serial loader's business */
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (ix->streams[i].missing || ix->streams[i].empty || ix->streams[i].cut_mid ||
		    ix->streams[i].cut_idx)
			return 1; /* damaged: the serial loader tells its story */
	if (n >= 2 && (*split = split_plan(ix, dirs, (int)n)))
		return (int)n;
	if ((uint64_t)n > streams)
		n = (long)streams;
	return n < 2 ? 1 : (int)n;
}

static uint64_t tv_ns(struct timeval t)
{
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_usec * 1000u;
}

void pdec_free(struct ix_pdec *p, struct trace_index *ix)
{
	if (!p)
		return;
	for (int k = 0; k < p->n; k++) {
		struct pdec_in *in = &p->in[k];
		if (in->fd >= 0)
			close(in->fd);
		if (in->pid > 0) {
			struct rusage ru;
			if (!in->ended) /* (one that finished is exiting by itself) */
				kill(in->pid, SIGKILL);
			memset(&ru, 0, sizeof(ru));
			while (wait4(in->pid, NULL, 0, &ru) < 0 && errno == EINTR)
				;
			uint64_t cpu = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
			if (ix) {
				ix->decoders_maxrss_kb += (uint64_t)ru.ru_maxrss;
				ix->decoders_cpu_ns += cpu;
				if (cpu > ix->decoders_cpu_max_ns)
					ix->decoders_cpu_max_ns = cpu;
			}
		}
		free(in->buf);
		free(in->smap);
	}
	split_free(p->split);
	free(p);
}

struct ix_pdec *pdec_start(struct trace_index *ix, uint64_t streams, const struct ctf_dirs *dirs)
{
	struct ix_split *split;
	int n = decoders_wanted(ix, streams, dirs, &split);
	if (n < 2)
		return NULL;
	struct ix_pdec *p = xcalloc(1, sizeof(*p));
	p->split = split;
	pid_t self = getpid();
	for (int k = 0; k < n; k++) {
		int fds[2];
		struct pdec_in *in = &p->in[p->n];
		pid_t pid = fork_piped(fds);
		if (pid < 0)
			break;
		if (pid == 0) {
			for (int j = 0; j < p->n; j++)
				close(p->in[j].fd);
			close(fds[0]);
			decoder_main(ix, k, n, split, dirs, fds[1], self);
		}
		close(fds[1]);
		fcntl(fds[0], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups (best effort) */
		*in = (struct pdec_in){ .fd = fds[0],
					.pid = pid,
					.buf = xmalloc(RBUF),
					.key = INT64_MIN,
					.last = INT64_MIN };
		p->n++;
	}
	if (p->n < n) { /* some decoder could not start: all or nothing */
		pdec_free(p, NULL);
		return NULL;
	}
	ix->decoders = (unsigned)n;
	ix->packet_split = split != NULL;
	return p;
}

/* Parse the record at in->buf + in->lo (whole, checked by the caller). */
static int parse(struct pdec_in *in, struct ix_raw *r)
{
	const char *b = in->buf + in->lo, *end;
	struct wire w;
	memcpy(&w, b, sizeof(w));
	end = b + w.size;
	b += sizeof(w);
	*r = (struct ix_raw){ .kind = w.kind,
			      .core = w.core,
			      .type = w.type,
			      .nf = w.nf,
			      .stream = w.stream,
			      .absent = w.absent,
			      .is_class = w.is_class,
			      .ts = w.ts,
			      .vtid = -1,
			      .vpid = -1,
			      .te = INT64_MIN,
			      .packets = (w.flags & W_PACKETS) != 0 };
	if (w.nf > IX_MAX_FIELDS)
		return -1;
	if (w.flags & W_VTID)
		memcpy(&r->vtid, b, 8), b += 8;
	if (w.flags & W_VPID)
		memcpy(&r->vpid, b, 8), b += 8;
	if (w.flags & W_EXTRA) {
		memcpy(&r->te, b, 8);
		memcpy(&r->count, b + 8, 8);
		b += 16;
	}
	memcpy(r->v, b, 8u * w.nf);
	b += 8u * w.nf;
	for (int f = 0; f <= IX_MAX_FIELDS; f++) {
		bool is_name = f == IX_MAX_FIELDS;
		if (is_name ? !(w.flags & W_NAME) : !(w.strmask >> f & 1))
			continue;
		uint16_t len;
		if (b + 2 > end)
			return -1;
		memcpy(&len, b, 2);
		if (!len || b + 2 + len > end || b[1 + len] != 0)
			return -1;
		*(is_name ? &r->name : &r->s[f]) = b + 2;
		b += 2 + len;
	}
	in->lo += w.size;
	return 0;
}

/* Make sure in->cur holds its next record (reading as needed); false at
 * the end of its pipe. */
static int fill(struct pdec_in *in)
{
	while (!in->has) {
		size_t have = in->hi - in->lo;
		uint32_t size = 0;
		if (have >= sizeof(struct wire))
			memcpy(&size, in->buf + in->lo, 4);
		if (have >= sizeof(struct wire) && size >= sizeof(struct wire) && size <= have) {
			if (parse(in, &in->cur))
				return -1;
			in->has = true;
			break;
		}
		if (size > RBUF || (have >= sizeof(struct wire) && size < sizeof(struct wire)))
			return -1;
		if (in->eof)
			return 0;
		memmove(in->buf, in->buf + in->lo, have);
		in->lo = 0;
		in->hi = have;
		ssize_t got = read(in->fd, in->buf + in->hi, RBUF - in->hi);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			in->eof = true;
		else
			in->hi += (size_t)got;
	}
	/* Its time for the merge: never before the one before it. */
	const struct ix_raw *r = &in->cur;
	bool timed =
		(r->kind == RAW_EVENT || r->kind == RAW_DISCARD || r->kind == RAW_PACKET_END) &&
		r->ts != INT64_MIN;
	in->key = timed && r->ts > in->last ? r->ts : in->last;
	return 1;
}

/* The decoder's stream number, as ours. */
static int map_stream(struct trace_index *ix, struct pdec_in *in, struct ix_raw *r)
{
	if (r->kind == RAW_STREAM) {
		if (r->stream < 0 || r->stream > 65535)
			return -1;
		if (r->stream >= in->nsmap) {
			int n = r->stream + 16;
			in->smap = xreallocarray(in->smap, (size_t)n, sizeof(int));
			for (int i = in->nsmap; i < n; i++)
				in->smap[i] = -1;
			in->nsmap = n;
		}
		in->smap[r->stream] = health_stream(ix, r->name);
		return 0;
	}
	if (r->stream >= 0)
		r->stream = r->stream < in->nsmap ? in->smap[r->stream] : -1;
	return 0;
}

/* The decoder failed or died: say it as the serial loader would. */
static enum ix_status decoder_failed(struct trace_index *ix, struct pdec_in *in, char *err,
				     size_t len)
{
	if (in->has && in->cur.kind == RAW_ERROR) {
		ix_part_error_text(ix, &in->cur, err, len);
		return IX_ERROR;
	}
	int status = 0;
	if (in->pid > 0 && waitpid(in->pid, &status, 0) == in->pid)
		in->pid = 0;
	snprintf(err, len, "%s: a decoder process %s before the end of its streams", ix->path,
		 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "stopped");
	return IX_ERROR;
}

/* Should a's description go before b's?  Earlier first; at one time, of
 * one stream, dealt to two decoders: the earlier packet first. */
static bool before(const struct ix_pdec *p, const struct pdec_in *a, const struct pdec_in *b)
{
	if (a->key != b->key || !p->split || a->cur.stream < 0 || a->cur.kind == RAW_STREAM ||
	    b->cur.kind == RAW_STREAM)
		return a->key < b->key;
	int sa = a->cur.stream < a->nsmap ? a->smap[a->cur.stream] : -1;
	int sb = b->cur.stream >= 0 && b->cur.stream < b->nsmap ? b->smap[b->cur.stream] : -2;
	return sa == sb && split_seq(p->split, (int)(a - p->in), sa) <
				   split_seq(p->split, (int)(b - p->in), sb);
}

/* Apply k's description (its streams ours already), with the packets
 * dealt: count its packet ends; a stream ends when its last decoder ends it. */
static void apply(struct trace_index *ix, struct ix_pdec *p, int k, const struct ix_raw *r)
{
	if (p->split && r->kind == RAW_STREAM_END && !split_stream_end(p->split, r->stream))
		return;
	ix_raw_apply(ix, r);
	if (p->split && r->kind == RAW_PACKET_END)
		split_packet_end(p->split, k, r->stream);
}

enum ix_status pdec_step(struct trace_index *ix, struct ix_pdec *p, int rounds, char *err,
			 size_t len)
{
	for (long i = 0; i < (long)rounds * BATCH; i++) {
		struct pdec_in *best = NULL;
		for (int k = 0; k < p->n; k++) {
			struct pdec_in *in = &p->in[k];
			if (in->ended)
				continue;
			int f = fill(in);
			if (f <= 0 || in->cur.kind == RAW_ERROR)
				return decoder_failed(ix, in, err, len);
			if (in->cur.kind == RAW_END) {
				in->ended = true;
				continue;
			}
			if (!best || before(p, in, best))
				best = in;
		}
		if (!best)
			return IX_OK;
		best->has = false;
		best->last = best->key;
		if (map_stream(ix, best, &best->cur))
			return decoder_failed(ix, best, err, len);
		if (best->cur.kind != RAW_STREAM)
			apply(ix, p, (int)(best - p->in), &best->cur);
		if (i % BATCH == BATCH - 1 && ix->hooks.check && ix->hooks.check(ix, err, len))
			return IX_ERROR;
	}
	return IX_MORE;
}
