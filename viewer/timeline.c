/*
 * timeline.c - the replay of a trace while it loads, its checkpoints, and
 * seeking (timeline.h).
 *
 * Events that share one timestamp reach us in an order the muxer chose,
 * not the order they happened in; within such a group the model may find
 * a lock_acquired before the other CPU's lock_release.  Each group is
 * therefore replayed with the smallest reordering that keeps every CPU's
 * own events in order and the holders of a lock apart.  Every so many
 * events the model is saved (a checkpoint), so any position is one
 * restore plus a short replay away.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/cache.h"
#include "viewer/health.h"
#include "viewer/timeline.h"
#include "viewer/timestrip.h"
#include "viewer/unprot.h"

/* The replay's own state while loading. */
struct timeline {
	uint64_t group_start; /* first event not yet replayed */
	uint64_t next_ckpt;
};

static int add_checkpoint(struct trace_index *ix, uint64_t pos, void *blob, size_t size)
{
	if (!blob)
		return -1;
	if (ix->nckpts == ix->ckpts_cap) {
		ix->ckpts_cap = ix->ckpts_cap ? ix->ckpts_cap * 2 : 16;
		ix->ckpts = xreallocarray(ix->ckpts, ix->ckpts_cap, sizeof(*ix->ckpts));
	}
	ix->ckpts[ix->nckpts] = (struct ix_checkpoint){ pos, blob, size, 0 };
	ix_store_ckpt(ix, &ix->ckpts[ix->nckpts++]); /* to disk if it can */
	ix->ckpt_bytes += size;
	return 0;
}

/* Replay [group_start, end) with the minimal reordering (see the top). */
static void replay_group(struct trace_index *ix, uint64_t end)
{
	struct timeline *tl = ix->tl;
	struct model *m = ix->build;
	bool small = end - tl->group_start <= 64;

	while (m->pos < end) {
		uint64_t k = m->pos, pick = k;
		if (small && model_conflicts(m, &ix->ev[k])) {
			for (uint64_t j = k + 1; j < end; j++) {
				bool blocked = false;
				for (uint64_t i = k; i < j && !blocked; i++)
					blocked = ix->ev[i].cpu == ix->ev[j].cpu;
				if (!blocked && !model_conflicts(m, &ix->ev[j])) {
					pick = j;
					break;
				}
			}
		}
		if (pick != k) {
			struct ix_event t = ix->ev[pick];
			memmove(&ix->ev[k + 1], &ix->ev[k], (pick - k) * sizeof(t));
			ix->ev[k] = t;
		}
		model_apply(m, ix);
	}
	tl->group_start = end;
	if (m->pos >= tl->next_ckpt) {
		size_t sz;
		void *blob = model_save(m, &sz);
		add_checkpoint(ix, m->pos, blob, sz);
		/* Keep checkpoints near 4 bytes per event: a big cache
		 * state spaces them out. */
		while (sz > 4 * ix->ckpt_interval && ix->ckpt_interval < (1u << 24))
			ix->ckpt_interval *= 2;
		tl->next_ckpt = m->pos + ix->ckpt_interval;
	}
}

static void settled(struct trace_index *ix, uint64_t end)
{
	replay_group(ix, end);
}

static void order_changed(struct trace_index *ix)
{
	ix_apply_order(ix, ix->build);
}

static int check_bad(struct trace_index *ix, char *err, size_t len)
{
	struct model *m = ix->build;
	if (!m->bad)
		return 0;
	/* Two processes' locks overlap by nature: ix_finish refuses the
	 * trace with the list of them instead. */
	if (!ix->sel.run && ix->sel.pid < 0 && health_nstories(ix) > 1)
		return 0;
	const struct ix_event *e = &ix->ev[m->bad_ev];
	int64_t dt = e->ts - ix_t0(ix);
	snprintf(err, len,
		 "%s: trace is inconsistent at event #%" PRIu64 " (t=+%" PRId64 ".%09" PRId64
		 " s): %s; lock holders overlap",
		 ix->path, m->bad_ev, dt / 1000000000, dt % 1000000000, m->bad_text);
	return -1;
}

void ix_apply_order(const struct trace_index *ix, struct model *m)
{
	model_set_order(m, ix->rules, ix->nrules, ix->order_known);
}

struct trace_index *ix_open(const char *path, char *err, size_t len)
{
	return ix_open_sel(path, NULL, err, len);
}

/* From the cache if it holds this trace, else decoded (into files that
 * become the cache when the load succeeds). */
struct trace_index *ix_open_sel(const char *path, const struct ix_select *sel, char *err,
				size_t len)
{
	struct trace_index *ix = ix_cache_open(path, sel);
	if (ix)
		return ix;
	ix = ix_decode_open(path, err, len);
	if (!ix)
		return NULL;
	if (sel)
		ix_select(ix, sel->run, sel->pid);
	ix_store_begin(ix, sel);
	ix->tl = xcalloc(1, sizeof(*ix->tl));
	ix->build = model_new();
	if (!ix->build)
		fatal("out of memory");
	ix->ckpt_interval = 65536;
	ix->tl->next_ckpt = ix->ckpt_interval;
	/* The empty state is checkpoint 0. */
	size_t sz = 0;
	void *blob = model_save(ix->build, &sz); /* before sz is read */
	add_checkpoint(ix, 0, blob, sz);
	ix->hooks.settled = settled;
	ix->hooks.order = order_changed;
	ix->hooks.check = check_bad;
	return ix;
}

enum ix_status ix_step(struct trace_index *ix, int rounds, char *err, size_t len)
{
	return ix_decode_step(ix, rounds, err, len);
}

/* The index cache keeps the "unprotected" spans (found here once, by the
 * pass the screen has been running as the trace loaded, finished) and
 * the timeline strip's figures, so that a reopen shows them without a
 * pass over every event. */
static void keep_summaries(struct trace_index *ix)
{
	ix->strip = xcalloc(1, sizeof(*ix->strip));
	strip_fold(ix->strip, ix, ix->nev);

	const struct unprot *u = unprot_spans_all(ix);
	ix->uspans = xcalloc(u->n ? u->n : 1, sizeof(*ix->uspans));
	for (uint32_t i = 0; i < u->n; i++) { /* (field by field: zero padding) */
		ix->uspans[i].from = u->s[i].from;
		ix->uspans[i].to = u->s[i].to;
		ix->uspans[i].obj = u->s[i].obj;
		ix->uspans[i].cpu = u->s[i].cpu;
		ix->uspans[i].unreliable = u->s[i].unreliable;
	}
	ix->uspans_unreliable = u->unreliable;
	ix->nuspans = u->n;
	ix->uspans_longest = u->longest;
	ix->uspans_known = true;
}

enum ix_status ix_finish(struct trace_index *ix, char *err, size_t len)
{
	if (!ix->loader)
		return IX_OK;
	enum ix_status st = ix_decode_finish(ix, err, len);
	if (st == IX_OK) {
		health_finish(ix, ix->build->unmatched_known);
		if (ix_cache_state(ix) == IXC_WRITING)
			keep_summaries(ix);
		ix_cache_commit(ix);
	}
	return st;
}

struct trace_index *ix_load(const char *path, char *err, size_t len)
{
	return ix_load_sel(path, NULL, err, len);
}

struct trace_index *ix_load_sel(const char *path, const struct ix_select *sel, char *err,
				size_t len)
{
	struct trace_index *ix = ix_open_sel(path, sel, err, len);
	if (!ix)
		return NULL;
	enum ix_status st;
	while ((st = ix_step(ix, 64, err, len)) == IX_MORE)
		;
	if (st == IX_ERROR || ix_finish(ix, err, len) != IX_OK) {
		ix_free(ix);
		return NULL;
	}
	return ix;
}

void ix_free(struct trace_index *ix)
{
	if (!ix)
		return;
	model_free(ix->build);
	for (uint32_t i = 0; i < ix->nckpts; i++)
		free(ix->ckpts[i].blob);
	free(ix->ckpts);
	free(ix->tl);
	ix_decode_free(ix);
}

void model_seek(struct model *m, const struct trace_index *ix, uint64_t pos)
{
	if (pos > ix->nev)
		pos = ix->nev;
	uint64_t step = ix->ckpt_interval ? ix->ckpt_interval : 65536;
	if (!(pos >= m->pos && pos - m->pos <= step)) {
		/* The last checkpoint at or before pos. */
		uint32_t lo = 0, hi = ix->nckpts;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			if (ix->ckpts[mid].pos <= pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0) {
			const struct ix_checkpoint *c = &ix->ckpts[lo - 1];
			void *tmp = NULL;
			const void *blob;
			if (pos >= m->pos && m->pos >= c->pos)
				; /* replaying on from here is shorter */
			else if ((blob = ix_ckpt_blob(ix, c, &tmp)))
				model_restore(m, blob, c->size);
			else
				model_reset(m); /* unreadable: replay it all */
			free(tmp);
		} else if (pos < m->pos) {
			model_reset(m);
		}
	}
	while (m->pos < pos)
		model_apply(m, ix);
}
