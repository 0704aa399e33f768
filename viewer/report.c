/*
 * report.c - summaries, JSON and DOT from the model at the end of a trace.
 *
 * The JSON uses the simulator's names (locks[].class, acquisitions,
 * contentions, bounces, trylock_failures, wait_ns_total, ...; inodes[] with
 * ino, sb, state, count, nlink, hashed, lru, wb) so a test can put the two
 * side by side.  Bounces of i_lock differ by design: the simulator counts
 * them per struct inode of its pool, the trace can only see inode numbers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/json.h"
#include "lib/lockstat.h"
#include "lib/xalloc.h"
#include "viewer/cache.h"
#include "viewer/report.h"
#include "viewer/threads.h"
#include "viewer/unprot.h"

char *fmt_dur(int64_t ns, char *buf, size_t len)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	if (a < 1000)
		snprintf(buf, len, "%s%" PRIu64 " ns", sign, a);
	else if (a < 1000000)
		snprintf(buf, len, "%s%.3f us", sign, (double)a / 1e3);
	else if (a < 1000000000)
		snprintf(buf, len, "%s%.3f ms", sign, (double)a / 1e6);
	else
		snprintf(buf, len, "%s%.6f s", sign, (double)a / 1e9);
	return buf;
}

static int list_bit(const char *name)
{
	for (int i = 0; i < nr_list_labels(); i++)
		if (!strcmp(list_label(i), name))
			return i;
	return -1;
}

static bool on_list(const struct inode_state *s, const char *name)
{
	int b = list_bit(name);
	return b >= 0 && (s->lists >> b & 1);
}

static bool on_wb(const struct inode_state *s)
{
	return on_list(s, "b_dirty") || on_list(s, "b_io") || on_list(s, "b_more_io");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The live inodes, as (ino, obj) pairs sorted by ino. */
static uint64_t *sorted_inodes(const struct trace_index *ix, const struct model *m, uint32_t *n)
{
	uint64_t *v = xmalloc((m->inodes.n + 1) * 2 * sizeof(uint64_t));
	uint32_t it = 0, obj, k = 0;
	const struct inode_state *st;
	while (model_next_inode(m, &it, &obj, &st)) {
		v[2 * k] = ix_id_value(ix, obj);
		v[2 * k + 1] = obj;
		k++;
	}
	qsort(v, k, 2 * sizeof(uint64_t), cmp_u64);
	*n = k;
	return v;
}

static const char *verdict_str(const struct model *m, const struct lock_edge *e)
{
	int v = e->verdict;
	if (!m->order.known)
		return e->lossy ? "order unknown (first seen after lost events)" : "order unknown";
	if (e->lossy)
		return v > 0 ? "documented (first seen after lost events)" :
		       v < 0 ? "AGAINST THE ORDER? unreliable: first seen after lost events" :
			       "undocumented (first seen after lost events)";
	return v > 0 ? "documented" : v < 0 ? "AGAINST THE ORDER" : "undocumented";
}

/* The completeness verdict and its reasons, one per line. */
static void summary_health(FILE *f, const struct trace_index *ix)
{
	if (ix_complete(ix)) {
		fprintf(f, "complete   yes\n");
		return;
	}
	fprintf(f,
		"complete   NO: INCOMPLETE TRACE, %u reason%s (figures and verdicts "
		"below cover only what was recorded):\n",
		ix->nreasons, ix->nreasons == 1 ? "" : "s");
	for (uint32_t i = 0; i < ix->nreasons; i++)
		fprintf(f, "  - %s\n", ix->reasons[i]);
}

/* The span counts, and the longest span (where to look at one). */
static void json_unprot(FILE *f, const struct trace_index *ix)
{
	const struct unprot *u = unprot_spans_all(ix);
	fprintf(f, ",\"unprotected_spans\":%u,\"unprotected_spans_unreliable\":%u", u->n,
		u->unreliable);
	const struct unprot_span *l = NULL;
	for (uint32_t k = 0; k < u->n; k++)
		if (!l || u->s[k].to - u->s[k].from > l->to - l->from)
			l = &u->s[k];
	if (l)
		fprintf(f,
			",\"unprotected_longest\":{\"cpu\":%u,\"inode\":%" PRIu64
			",\"from\":%" PRIu64 ",\"to\":%" PRIu64 ",\"unreliable\":%s}",
			l->cpu, ix_id_value(ix, l->obj), l->from, l->to,
			l->unreliable ? "true" : "false");
}

/* The items of the arrays below: ctx is the index (or, for edges, the model). */
static void json_reason(FILE *f, size_t i, const void *ctx)
{
	json_str(f, ((const struct trace_index *)ctx)->reasons[i]);
}

static void json_stream(FILE *f, size_t i, const void *ctx)
{
	const struct ix_stream *s = &((const struct trace_index *)ctx)->streams[i];

	fprintf(f, "{\"name\":");
	json_str(f, s->name);
	fprintf(f,
		",\"core\":%d,\"events\":%" PRIu64 ",\"end_ns\":%" PRId64
		",\"missing\":%s,\"cut\":%s,\"ends_early\":%s,\"lost_events\":%" PRIu64
		",\"loss_windows\":%" PRIu64 "}",
		s->core, s->events, s->end_ts == INT64_MIN ? 0 : s->end_ts,
		s->missing ? "true" : "false", s->cut_mid || s->cut_idx ? "true" : "false",
		s->ends_early ? "true" : "false", s->lost_events, s->windows);
}

static void json_loss_window(FILE *f, size_t i, const void *ctx)
{
	const struct trace_index *ix = ctx;
	const struct ix_discard *d = &ix->discards[i];

	fprintf(f, "{\"stream\":");
	json_str_or_null(f, d->stream >= 0 ? ix->streams[d->stream].name : "", d->stream >= 0);
	fprintf(f,
		",\"kind\":\"%s\",\"from_ns\":%" PRId64 ",\"to_ns\":%" PRId64 ",\"count\":%" PRIu64
		"}",
		d->cut     ? "stream-ends" :
		d->packets ? "packets" :
			     "events",
		d->begin == INT64_MIN ? 0 : d->begin,
		d->end == INT64_MIN || d->end == INT64_MAX ? 0 : d->end, d->count);
}

static void json_run(FILE *f, size_t i, const void *ctx)
{
	const struct trace_index *ix = ctx;
	const struct ix_run *r = &ix->runs[i];

	fprintf(f, "{\"run\":%zu,\"scheme\":", i + 1);
	json_str(f, ix_str(ix, r->scheme));
	fprintf(f,
		",\"pid\":%" PRId64 ",\"shown\":%s,\"has_run_end\":%s,"
		"\"interrupted\":%s}",
		r->pid, r->kept ? "true" : "false", r->end_ts != INT64_MIN ? "true" : "false",
		r->interrupted ? "true" : "false");
}

static void json_health(FILE *f, const struct trace_index *ix)
{
	fprintf(f, ",\"complete\":%s", ix_complete(ix) ? "true" : "false");
	json_array(f, "incomplete_reasons", ix->nreasons, json_reason, ix);
	json_array(f, "streams", ix->nstreams, json_stream, ix);
	json_array(f, "loss_windows", ix->ndiscards, json_loss_window, ix);
	json_array(f, "runs", ix->nruns, json_run, ix);
}

void report_summary(FILE *f, const struct trace_index *ix, const struct model *m)
{
	char b1[64], b2[64];
	const struct ix_run *r = ix_run0(ix);
	int64_t dur = ix->nev ? ix->ev[ix->nev - 1].ts - ix->ev[0].ts : 0;

	fprintf(f, "trace      %s\n", ix->path);
	if (r)
		fprintf(f, "run        scheme %s, workload %s, %u CPUs, seed %" PRIu64 "\n",
			ix_str(ix, r->scheme), ix_str(ix, r->workload), r->cpus, r->seed);
	fprintf(f, "events     %" PRIu64 "\n", ix->nev - ix->ndiscards);
	fprintf(f, "cpus       %u (threads with events: %u)\n", ix_sim_cpus(ix), ix->ncpus);
	fprintf(f, "duration   %s\n", fmt_dur(dur, b1, sizeof(b1)));
	const struct unprot *u = unprot_spans_all(ix);
	fprintf(f,
		"unprotected  %u span%s (a CPU holds an inode pointer with no "
		"reference and no lock, then touches it)\n",
		u->n, u->n == 1 ? "" : "s");
	if (u->unreliable)
		fprintf(f,
			"             %u of them unreliable: they end after events were lost "
			"(a CPU's reference or lock may be among them)\n",
			u->unreliable);
	if (u->n)
		fprintf(f,
			"             the first: %s, inode %" PRIu64 ", #%" PRIu64 " to #%" PRIu64
			"%s\n",
			thread_name(ix, u->s[0].cpu), ix_id_value(ix, u->s[0].obj), u->s[0].from,
			u->s[0].to, u->s[0].unreliable ? " (unreliable)" : "");
	if (r && r->virtual_run)
		fprintf(f, "time       %s\n",
			r->virtual_stamped ?
				"virtual: the simulated CPUs' clock (icache-sim --virtual)" :
				"host: a virtual run recorded without its clock (times are not virtual)");
	fprintf(f, "discarded  %" PRIu64 " events, %" PRIu64 " packets%s\n", ix->discarded_events,
		ix->discarded_packets,
		ix->discarded_events || ix->discarded_packets ? "  (figures below undercount)" :
								"");
	summary_health(f, ix);
	if (r)
		fprintf(f, "order      %s%s\n", ix_str(ix, r->order),
			ix->order_known ? "" :
					  "  (not given as data in this trace: edges not judged)");
	fputc('\n', f);
	lockstat_header(f);
	for (int k = 0; k < MODEL_MAX_CLASSES; k++)
		if (LOCKSTAT_USED(&m->stats[k]))
			lockstat_print(f, lock_class_label(k), LOCKSTAT_ROW(&m->stats[k]));
	fprintf(f, "\nlock-order edges (held -> taken), %u:\n", m->nedges);
	for (unsigned i = 0; i < m->nedges; i++) {
		const struct lock_edge *e = &m->edges[i];
		fprintf(f, "  %-20s -> %-20s x%-8u first at %s (event #%" PRIu64 ")  %s\n",
			lock_class_label(e->from), lock_class_label(e->to), e->count,
			site_label(e->first_site), e->first_ev, verdict_str(m, e));
	}
	fprintf(f, "\nviolations: %u\n", ix->nviols);
	for (uint32_t i = 0; i < ix->nviols; i++) {
		const struct ix_violation *v = &ix->viols[i];
		fprintf(f, "  #%-9" PRIu64 " %-18s cpu%d %s\n", v->ev, violation_label(v->kind),
			(int)(int16_t)v->cpu, ix_str(ix, v->text));
	}
	uint32_t n;
	uint64_t *inos = sorted_inodes(ix, m, &n);
	free(inos);
	fprintf(f, "\ninodes alive at the end: %u (%" PRIu32 " distinct seen)\n", n, ix->nids);
	fprintf(f, "index: %.1f bytes/event, %u checkpoints, %s in %s\n",
		ix->nev ? (double)(ix->nev * sizeof(struct ix_event) + ix->ckpt_bytes +
				   ix->nids * 12) /
				  (double)ix->nev :
			  0,
		ix->nckpts,
		ix_cache_state(ix) == IXC_HIT ? "reopened from the index cache" : "indexed",
		fmt_dur((int64_t)ix->load_ns, b2, sizeof(b2)));
}

/* "locks":[...]: the lock_stat table, the classes that were used. */
static void json_locks(FILE *f, const struct model *m)
{
	fprintf(f, ",\"locks\":[");
	bool first = true;
	for (int k = 0; k < MODEL_MAX_CLASSES; k++) {
		const struct class_stats *s = &m->stats[k];
		if (!LOCKSTAT_USED(s))
			continue;
		fprintf(f, "%s{\"class\":", first ? "" : ",");
		json_str(f, lock_class_label(k));
		fprintf(f,
			",\"acquisitions\":%" PRIu64 ",\"contentions\":%" PRIu64
			",\"bounces\":%" PRIu64 ",\"trylock_failures\":%" PRIu64
			",\"wait_ns_total\":%" PRIu64 ",\"wait_ns_max\":%" PRIu64
			",\"hold_ns_total\":%" PRIu64 ",\"hold_ns_max\":%" PRIu64 "}",
			s->acquisitions, s->contentions, s->bounces, s->trylock_failures,
			s->wait_ns_total, s->wait_ns_max, s->hold_ns_total, s->hold_ns_max);
		first = false;
	}
	fputc(']', f);
}

/* An item of "edges": a lock-order edge seen and its verdict. */
static void json_edge(FILE *f, size_t i, const void *ctx)
{
	const struct lock_edge *e = &((const struct model *)ctx)->edges[i];

	fprintf(f, "{\"from\":");
	json_str(f, lock_class_label(e->from));
	fprintf(f, ",\"to\":");
	json_str(f, lock_class_label(e->to));
	fprintf(f, ",\"count\":%u,\"first_site\":", e->count);
	json_str(f, site_label(e->first_site));
	fprintf(f,
		",\"first_event\":%" PRIu64 ",\"against_order\":%s,\"documented\":%s,"
		"\"unreliable\":%s}",
		e->first_ev, e->verdict < 0 ? "true" : "false", e->verdict > 0 ? "true" : "false",
		e->lossy ? "true" : "false");
}

/* An item of "violations": a violation event, its classes and sites. */
static void json_violation(FILE *f, size_t i, const void *ctx)
{
	const struct trace_index *ix = ctx;
	const struct ix_violation *v = &ix->viols[i];

	fprintf(f, "{\"kind\":");
	json_str(f, violation_label(v->kind));
	fprintf(f, ",\"event\":%" PRIu64 ",\"cpu\":%d,\"classes\":[", v->ev, (int)(int16_t)v->cpu);
	json_str_or_null(f, lock_class_label(v->cls_a), v->cls_a != 255);
	fputc(',', f);
	json_str_or_null(f, lock_class_label(v->cls_b), v->cls_b != 255);
	fprintf(f, "],\"sites\":[");
	json_str_or_null(f, site_label(v->site_a), v->site_a != 255);
	fputc(',', f);
	json_str_or_null(f, site_label(v->site_b), v->site_b != 255);
	fprintf(f, "],\"ino\":%" PRIu64 ",\"text\":", v->ino);
	json_str(f, ix_str(ix, v->text));
	fputc('}', f);
}

/* "inodes":[...] at the end of the trace, and the "final" counts. */
static void json_inodes(FILE *f, const struct trace_index *ix, const struct model *m)
{
	uint32_t n, hashed = 0, lru = 0, wb = 0;
	uint64_t *inos = sorted_inodes(ix, m, &n);
	fprintf(f, ",\"inodes\":[");
	for (uint32_t i = 0; i < n; i++) {
		const struct inode_state *s = model_inode(m, (uint32_t)inos[2 * i + 1]);
		bool h = on_list(s, "hash"), l = on_list(s, "lru"), w = on_wb(s);
		hashed += h;
		lru += l;
		wb += w;
		fprintf(f,
			"%s{\"ino\":%" PRIu64 ",\"sb\":%u,\"state\":%u,\"count\":%d,"
			"\"nlink\":%u,\"hashed\":%s,\"lru\":%s,\"wb\":%s}",
			i ? "," : "", inos[2 * i], s->sb, s->flags, s->count, s->nlink,
			h ? "true" : "false", l ? "true" : "false", w ? "true" : "false");
	}
	fprintf(f, "],\"final\":{\"nr_inodes\":%u,\"hashed\":%u,\"lru\":%u,\"wb\":%u}", n, hashed,
		lru, wb);
	free(inos);
}

void report_json(FILE *f, const struct trace_index *ix, const struct model *m)
{
	const struct ix_run *r = ix_run0(ix);
	int64_t dur = ix->nev ? ix->ev[ix->nev - 1].ts - ix->ev[0].ts : 0;

	fprintf(f, "{\"trace\":");
	json_str(f, ix->path);
	fprintf(f,
		",\"events\":%" PRIu64 ",\"cpus\":%u,\"threads\":%u,\"duration_ns\":%" PRId64
		",\"discarded_events\":%" PRIu64 ",\"discarded_packets\":%" PRIu64,
		ix->nev - ix->ndiscards, ix_sim_cpus(ix), ix->ncpus, dur, ix->discarded_events,
		ix->discarded_packets);
	fprintf(f, ",\"time\":\"%s\"",
		r && r->virtual_run && r->virtual_stamped ? "virtual" : "host");
	json_health(f, ix);
	json_unprot(f, ix);
	if (r) {
		fprintf(f, ",\"scheme\":");
		json_str(f, ix_str(ix, r->scheme));
		fprintf(f, ",\"workload\":");
		json_str(f, ix_str(ix, r->workload));
		fprintf(f, ",\"seed\":%" PRIu64 ",\"order\":", r->seed);
		json_str(f, ix_str(ix, r->order));
	}
	json_locks(f, m);
	json_array(f, "edges", m->nedges, json_edge, m);
	json_array(f, "violations", ix->nviols, json_violation, ix);
	fprintf(f, ",\"violations_total\":%u", ix->nviols);
	json_inodes(f, ix, m);
	fprintf(f,
		",\"index\":{\"bytes_per_event\":%zu,\"checkpoints\":%u,"
		"\"checkpoint_bytes\":%zu,\"load_ns\":%" PRIu64 "}}\n",
		sizeof(struct ix_event), ix->nckpts, ix->ckpt_bytes, ix->load_ns);
}

void report_dot(FILE *f, const struct trace_index *ix, const struct model *m)
{
	const struct ix_run *r = ix_run0(ix);
	fprintf(f, "digraph lock_order {\n");
	fprintf(f, "  label=\"observed lock order%s%s%s\";\n", r ? ": " : "",
		r ? ix_str(ix, r->scheme) : "",
		ix_complete(ix) ? "" :
				  "\\nINCOMPLETE TRACE: see icache-view --summary; "
				  "dotted edges were first seen after lost events (unreliable)");
	fprintf(f, "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
	bool seen[MODEL_MAX_CLASSES] = { false };
	for (unsigned i = 0; i < m->nedges; i++)
		seen[m->edges[i].from] = seen[m->edges[i].to] = true;
	for (int k = 0; k < MODEL_MAX_CLASSES; k++)
		if (seen[k])
			fprintf(f, "  \"%s\";\n", lock_class_label(k));
	for (unsigned i = 0; i < m->nedges; i++) {
		const struct lock_edge *e = &m->edges[i];
		fprintf(f, "  \"%s\" -> \"%s\" [label=\"%u x, first %s%s\"%s];\n",
			lock_class_label(e->from), lock_class_label(e->to), e->count,
			site_label(e->first_site), e->lossy ? " (unreliable)" : "",
			e->lossy        ? (e->verdict < 0 ? ", color=orange, style=dotted" :
							    ", style=dotted") :
			e->verdict < 0  ? ", color=red, penwidth=2, style=bold" :
			e->verdict == 0 ? ", style=dashed" :
					  "");
	}
	fprintf(f, "}\n");
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int report_bench(FILE *f, const char *path)
{
	char err[1024];
	uint64_t t0 = mono_ns();
	struct trace_index *ix = ix_load(path, err, sizeof(err));
	uint64_t t1 = mono_ns();
	if (!ix) {
		fprintf(stderr, "icache-view: %s\n", err);
		return 2;
	}
	struct rusage lru;
	getrusage(RUSAGE_SELF, &lru); /* the loader's CPU time for the load */
	double loader_cpu = (double)lru.ru_utime.tv_sec + (double)lru.ru_utime.tv_usec / 1e6 +
			    (double)lru.ru_stime.tv_sec + (double)lru.ru_stime.tv_usec / 1e6;
	struct model *m = model_new();
	ix_apply_order(ix, m);
	uint64_t t2 = mono_ns();
	model_seek(m, ix, ix->nev);
	uint64_t t3 = mono_ns();
	model_seek(m, ix, 1);
	uint64_t t4 = mono_ns();
	model_seek(m, ix, ix->nev / 2);
	uint64_t t5 = mono_ns();
	double secs = (double)(t1 - t0) / 1e9;
	size_t idx = ix->nev * sizeof(struct ix_event);
	size_t side = (size_t)ix->nids * 12 + ix->ckpt_bytes;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru); /* peak resident set, KiB on Linux */
	/* The decoder processes ran beside it: their peaks count too (the
	 * sum of the peaks bounds what was resident at any one time). */
	uint64_t rss = (uint64_t)ru.ru_maxrss + ix->decoders_maxrss_kb;
	fprintf(f,
		"{\"events\":%" PRIu64 ",\"load_s\":%.3f,\"events_per_s\":%.0f,"
		"\"event_bytes\":%zu,\"bytes_per_event\":%.2f,\"checkpoints\":%u,"
		"\"jump_end_ms\":%.3f,\"jump_start_ms\":%.3f,\"jump_middle_ms\":%.3f,"
		"\"cache\":\"%s\",\"decoded\":%" PRIu64 ",\"decoders\":%u,\"split\":\"%s\","
		"\"maxrss_kb\":%" PRIu64 ",\"loader_maxrss_kb\":%ld,\"decoders_maxrss_kb\":%" PRIu64
		","
		"\"loader_cpu_s\":%.3f,\"decoders_cpu_s\":%.3f,\"busiest_decoder_cpu_s\":%.3f,"
		"\"peak_bytes_per_event\":%.2f}\n",
		ix->nev, secs, secs > 0 ? (double)ix->nev / secs : 0, sizeof(struct ix_event),
		ix->nev ? (double)(idx + side) / (double)ix->nev : 0, ix->nckpts,
		(double)(t3 - t2) / 1e6, (double)(t4 - t3) / 1e6, (double)(t5 - t4) / 1e6,
		ix_cache_state_name(ix_cache_state(ix)), ix->decoded, ix->decoders,
		!ix->decoders    ? "none" :
		ix->packet_split ? "packets" :
				   "streams",
		rss, ru.ru_maxrss, ix->decoders_maxrss_kb, loader_cpu,
		(double)ix->decoders_cpu_ns / 1e9, (double)ix->decoders_cpu_max_ns / 1e9,
		ix->nev ? (double)rss * 1024 / (double)ix->nev : 0);
	model_free(m);
	ix_free(ix);
	return 0;
}
