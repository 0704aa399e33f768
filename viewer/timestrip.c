/*
 * timestrip.c - folding the timeline strip's figures (timestrip.h).
 */
#include <string.h>

#include "viewer/timestrip.h"

/* Halve the resolution: bucket k takes 2k and 2k + 1. */
static void tb_merge(struct time_buckets *tb)
{
	for (int c = 0; c < MODEL_MAX_CLASSES; c++) {
		if (!tb->total[c])
			continue;
		for (int k = 0; k < TB_N / 2; k++) {
			tb->cont[c][k] = tb->cont[c][2 * k] + tb->cont[c][2 * k + 1];
			tb->wait[c][k] = tb->wait[c][2 * k] + tb->wait[c][2 * k + 1];
		}
		memset(&tb->cont[c][TB_N / 2], 0, sizeof(tb->cont[0][0]) * TB_N / 2);
		memset(&tb->wait[c][TB_N / 2], 0, sizeof(tb->wait[0][0]) * TB_N / 2);
	}
	for (int k = 0; k < TB_N / 2; k++)
		tb->lost[k] = tb->lost[2 * k] | tb->lost[2 * k + 1];
	memset(&tb->lost[TB_N / 2], 0, TB_N / 2);
	tb->width *= 2;
}

static int tb_bucket(struct time_buckets *tb, int64_t ts)
{
	if (ts < tb->t0)
		ts = tb->t0;
	while ((ts - tb->t0) / tb->width >= TB_N)
		tb_merge(tb);
	return (int)((ts - tb->t0) / tb->width);
}

static void tb_mark_loss(struct time_buckets *tb, const struct trace_index *ix,
			 const struct ix_event *e)
{
	int64_t from = e->ts, to = e->ts;
	if (e->obj < ix->ndiscards) {
		const struct ix_discard *d = &ix->discards[e->obj];
		if (d->begin != INT64_MIN)
			from = d->begin;
		if (d->end != INT64_MIN)
			to = d->end;
	}
	int b1 = tb_bucket(tb, to), b0 = tb_bucket(tb, from);
	for (int k = b0; k <= b1; k++)
		tb->lost[k] = 1;
}

void strip_fold(struct time_buckets *tb, const struct trace_index *ix, uint64_t end)
{
	if (!ix->nev)
		return;
	if (tb->done > end || tb->width == 0) {
		int cols = tb->cols;
		memset(tb, 0, sizeof(*tb));
		tb->cols = cols;
		tb->t0 = ix->ev[0].ts;
		tb->width = 1000; /* 1 us, doubled as the trace needs */
	}
	for (uint64_t i = tb->done; i < end; i++) {
		/* hand back the pages behind (ix_release): what stays
		 * resident does not grow with the trace */
		if ((i & ((1u << 18) - 1)) == 0 && i >= (1u << 18))
			ix_release(ix, i - (1u << 18), i);
		const struct ix_event *e = &ix->ev[i];
		if (e->type == EV_lock_contended && e->a < MODEL_MAX_CLASSES) {
			tb->cont[e->a][tb_bucket(tb, e->ts)]++;
			tb->total[e->a]++;
		} else if (e->type == EV_lock_acquired && e->a < MODEL_MAX_CLASSES && e->val) {
			tb->wait[e->a][tb_bucket(tb, e->ts)] += e->val;
		} else if (e->type == EV_discarded_events || e->type == EV_discarded_packets) {
			tb_mark_loss(tb, ix, e);
		}
	}
	/* The buckets cover the whole trace, not only up to its last
	 * contention: else a slice past it has no bucket, and the hot locks
	 * say "+0 ns..+0 ns, no lock taken" where locks were taken. */
	if (end > tb->done)
		tb_bucket(tb, ix->ev[end - 1].ts);
	tb->done = end;
}
