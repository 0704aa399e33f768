/*
 * unprot.c - find the unprotected spans (see unprot.h) in one pass.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/names.h"
#include "viewer/omap.h"
#include "viewer/unprot.h"

#define NSLOT 257

struct cpu_track {
	uint8_t cls[16];
	uint32_t obj[16];
	int n;
	uint32_t cur;      /* inode it holds a pointer to, UINT32_MAX none */
	bool cur_freed;    /* another CPU freed cur since (forget) */
	uint16_t cur_life; /* which life of cur's number (0 unknown) */
	uint32_t rcu;      /* depth of its RCU read-side sections */
	bool prot;
	uint64_t since; /* UINT64_MAX: not unprotected */
};

/* The owning flags are few (I_NEW, I_FREEING, I_WILL_FREE, I_SYNC,
 * I_LRU_ISOLATING): each has its own owner, for two can be set by two
 * CPUs at once (the flusher's I_SYNC under another CPU's I_FREEING). */
#define NOWN 8

struct ino_track {
	uint16_t lists;
	int16_t owner[NOWN]; /* per owning flag: the CPU slot that set it, -1 */
	uint32_t flags;
	uint16_t life; /* its inode_alloc's life (0 unknown) */
};

struct pass {
	const struct trace_index *ix;
	struct cpu_track cpu[NSLOT];
	struct omap refs; /* (slot << 32 | obj) -> int32 own references */
	struct omap inodes;
	uint16_t guards[64]; /* per lock class: bit per list it guards */
	int ilock, global;
	uint32_t owning;
	int8_t own_slot[32]; /* owning flag bit -> its owner[] index, -1 */
	int64_t lost_from;   /* earliest loss window seen, INT64_MAX none */
	struct unprot *out;
};

static int slot_of(const struct ix_event *e)
{
	return e->cpu == IX_NO_CPU ? 256 : e->cpu > 255 ? 255 : e->cpu;
}

static void guards_init(struct pass *p)
{
	static const struct {
		const char *cls, *lists;
	} g[] = { { "inode_hash_lock", "hash" },
		  { "hash_bucket", "hash" },
		  { "inode_sb_list_lock", "sb" },
		  { "inode_lru_lock", "lru in_use" },
		  { "list_lru_lock", "lru" }, /* modern: the per-node list_lru lock */
		  { "inode_wb_list_lock", "b_dirty b_io b_more_io" } };
	for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		int c = lock_class_by_name(g[k].cls);
		if (c < 0 || c >= 64)
			continue;
		for (int l = 0; l < nr_list_labels() && l < 16; l++) {
			const char *n = list_label(l), *at = strstr(g[k].lists, n);
			size_t len = strlen(n);
			if (at && (at[len] == ' ' || at[len] == 0) &&
			    (at == g[k].lists || at[-1] == ' '))
				p->guards[c] |= (uint16_t)(1u << l);
		}
	}
	p->ilock = lock_class_by_name("i_lock");
	p->global = lock_class_by_name("inode_lock");
	p->owning = flag_new() | flag_freeing() | flag_will_free() |
		    (1u << state_flag_by_name("I_SYNC"));
	/* modern: the shrinker that set I_LRU_ISOLATING has the inode pinned
	 * while it strips its pages with no lock held (evict waits for it) */
	int iso = state_flag_by_name("I_LRU_ISOLATING");
	if (iso >= 0 && iso < 32)
		p->owning |= 1u << iso;
	int n = 0;
	for (int b = 0; b < 32; b++)
		p->own_slot[b] = (p->owning >> b & 1) && n < NOWN ? (int8_t)n++ : -1;
}

static void ino_reset(struct ino_track *t, uint16_t life)
{
	*t = (struct ino_track){ .life = life };
	for (int k = 0; k < NOWN; k++)
		t->owner[k] = -1;
}

/* Does slot own t: is one of t's owning flags set, and set by slot? */
static bool owns(const struct pass *p, const struct ino_track *t, int slot)
{
	uint32_t set = t->flags & p->owning;
	for (int b = 0; set; b++, set >>= 1)
		if ((set & 1) && p->own_slot[b] >= 0 && t->owner[p->own_slot[b]] == slot)
			return true;
	return false;
}

static struct ino_track *ino(struct pass *p, uint32_t obj)
{
	bool added;
	struct ino_track *t = omap_add(&p->inodes, obj, &added);

	if (added)
		ino_reset(t, 0);
	return t;
}

static int32_t *own_refs(struct pass *p, int slot, uint32_t obj)
{
	return omap_put(&p->refs, (uint64_t)slot << 32 | obj);
}

/* Does c hold the lock of a list t is on? */
static bool list_guarded(const struct pass *p, const struct cpu_track *c, const struct ino_track *t)
{
	for (int k = 0; k < c->n; k++)
		if (c->cls[k] < 64 && (p->guards[c->cls[k]] & t->lists))
			return true;
	return false;
}

static bool is_protected(struct pass *p, int slot, uint32_t obj)
{
	const struct cpu_track *c = &p->cpu[slot];
	const struct ino_track *t = omap_get(&p->inodes, obj);
	const int32_t *r = omap_get(&p->refs, (uint64_t)slot << 32 | obj);
	/* c's pointer is to another life of the number than the one tracked
	 * (an inode being torn down while a new one of its number is
	 * built): the tracked one says nothing about c's */
	if (t && c->cur == obj && c->cur_life && t->life && c->cur_life != t->life)
		t = NULL;
	if ((r && *r > 0) || (t && owns(p, t, slot)))
		return true;
	/* Not yet in the trace: an inode its allocator has not published
	 * (it locks it before hashing it), visible to nobody else. */
	if (!t && !(c->cur == obj && c->cur_freed))
		return true;
	/* Inside rcu_read_lock the inode's memory outlives the section (it is
	 * freed by call_rcu): the pointer is safe to follow, and what it
	 * points at is checked under i_lock. */
	if (c->rcu > 0)
		return true;
	for (int k = 0; k < c->n; k++) {
		int cls = c->cls[k];
		if (cls == p->global || (cls == p->ilock && c->obj[k] == obj))
			return true;
	}
	return t && list_guarded(p, c, t);
}

static void track_lock(struct cpu_track *c, const struct ix_event *e)
{
	bool take = e->type == EV_lock_acquired; /* a trylock that works is followed by one */
	if (take && c->n < 16) {
		c->cls[c->n] = e->a;
		c->obj[c->n++] = e->obj;
	} else if (e->type == EV_lock_release) {
		for (int k = c->n - 1; k >= 0; k--)
			if (c->cls[k] == e->a && c->obj[k] == e->obj) {
				memmove(&c->cls[k], &c->cls[k + 1], (size_t)(c->n - k - 1));
				memmove(&c->obj[k], &c->obj[k + 1],
					(size_t)(c->n - k - 1) * sizeof(uint32_t));
				c->n--;
				break;
			}
	}
}

/*
 * X is freed (its tracker goes: memory stays bounded by the live
 * inodes).  Another CPU that still holds a pointer to it is told so: its
 * X must not look like an inode not yet published (is_protected), it is
 * the race itself.  The freeing CPU owned X; an inode of the same number
 * allocated later gets a tracker of its own.
 */
static void forget(struct pass *p, int slot, uint32_t obj, uint16_t life)
{
	const struct ino_track *t = omap_get(&p->inodes, obj);
	if (t && life && t->life && t->life != life)
		return; /* an older life: the tracker is of a newer one */
	/* (a CPU whose pointer is to another life of the number, one still
	 * being evicted while this one came and went, keeps it) */
	for (int k = 0; k < NSLOT; k++)
		if (k != slot && p->cpu[k].cur == obj &&
		    (!life || !p->cpu[k].cur_life || p->cpu[k].cur_life == life))
			p->cpu[k].cur_freed = true;
	omap_del(&p->inodes, obj);
}

/* What e changes in the trackers. */
static void apply(struct pass *p, const struct ix_event *e, int slot)
{
	const uint16_t del = (uint16_t)(e->a < 16 ? 1u << e->a : 0);
	switch (e->type) {
	case EV_inode_alloc:
		ino_reset(ino(p, e->obj), e->life);
		*own_refs(p, slot, e->obj) = 1;
		break;
	case EV_inode_free:
		forget(p, slot, e->obj, e->life);
		break;
	case EV_inode_ref: {
		int32_t *r = own_refs(p, slot, e->obj);
		*r += (int32_t)(uint32_t)e->val > (int32_t)(e->val >> 32) ? 1 : -1;
		if (*r == 0)
			omap_del(&p->refs, (uint64_t)slot << 32 | e->obj);
		break;
	}
	case EV_inode_state: {
		struct ino_track *t = ino(p, e->obj);
		uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
		t->flags = n;
		uint32_t got = n & ~o & p->owning;
		for (int b = 0; got; b++, got >>= 1)
			if ((got & 1) && p->own_slot[b] >= 0)
				t->owner[p->own_slot[b]] = (int16_t)slot;
		break;
	}
	case EV_inode_list:
		if (!strcmp(list_action_label(e->b), "add"))
			ino(p, e->obj)->lists |= del;
		else if (!strcmp(list_action_label(e->b), "del"))
			ino(p, e->obj)->lists &= (uint16_t)~del;
		break;
	default:
		if (ev_is_lock(e->type))
			track_lock(&p->cpu[slot], e);
		break;
	}
}

/* The inode e touches (reads or writes), UINT32_MAX if none. */
static uint32_t touched(struct pass *p, const struct ix_event *e)
{
	if (e->type >= EV_inode_state && e->type <= EV_inode_nlink)
		return e->obj;
	if (ev_is_lock(e->type) && e->a == p->ilock)
		return e->obj;
	if (e->type == EV_violation) {
		const struct ix_violation *v = &p->ix->viols[e->val];
		int64_t id = v->ino ? ix_id_find(p->ix, v->ino) : -1;
		return id >= 0 ? (uint32_t)id : UINT32_MAX;
	}
	return UINT32_MAX;
}

static void add_span(struct pass *p, int slot, uint32_t obj, uint64_t from, uint64_t to)
{
	struct unprot *u = p->out;
	if (u->n == u->cap) {
		u->cap = u->cap ? u->cap * 2 : 64;
		u->s = xrealloc(u->s, u->cap * sizeof(*u->s));
	}
	bool lossy = p->ix->ev[to].ts >= p->lost_from;
	u->s[u->n++] =
		(struct unprot_span){ from, to, obj,
				      (uint16_t)(slot == 256 ? (int)IX_NO_CPU : slot), lossy };
	u->unreliable += lossy;
	if (to - from > u->longest)
		u->longest = to - from;
}

/*
 * A loss window (or a cut or missing stream) beginning at `begin`: the
 * spans found so far that end after it were drawn from a partial story.
 * Only a window earlier than every one before needs the look back.
 */
static void lost_since(struct pass *p, int64_t begin)
{
	if (begin >= p->lost_from)
		return;
	p->lost_from = begin;
	struct unprot *u = p->out;
	for (uint32_t k = 0; k < u->n; k++)
		if (!u->s[k].unreliable && p->ix->ev[u->s[k].to].ts >= begin) {
			u->s[k].unreliable = 1;
			u->unreliable++;
		}
}

static void gap(struct pass *p, const struct ix_event *e)
{
	const struct ix_discard *d = e->obj < p->ix->ndiscards ? &p->ix->discards[e->obj] : NULL;
	lost_since(p, d && d->begin != INT64_MIN && d->begin < e->ts ? d->begin : e->ts);
}

/* Is e, a list del, the first half of a move (the CPU's next event adds
 * the inode to another list)?  The trace writes list_move as del + add. */
static bool half_move(struct pass *p, uint64_t i)
{
	const struct ix_event *e = &p->ix->ev[i];
	if (e->type != EV_inode_list || strcmp(list_action_label(e->b), "del"))
		return false;
	for (uint64_t j = i + 1; j < p->ix->nev && j < i + 8192; j++) {
		const struct ix_event *n = &p->ix->ev[j];
		/* a scheduled run's step narration (sched_step) and other
		 * events that change nothing come between the two halves */
		if (n->cpu != e->cpu || (n->type >= EV_sched_step && n->type != EV_violation))
			continue;
		return n->type == EV_inode_list && n->obj == e->obj &&
		       !strcmp(list_action_label(n->b), "add");
	}
	return false;
}

/* c (slot) touches inode t at event i: the end of its span if it had
 * one on t, and from here on its pointer is t. */
static void touch(struct pass *p, int slot, const struct ix_event *e, uint64_t i, uint32_t t)
{
	struct cpu_track *c = &p->cpu[slot];
	/* (an allocation, or another life of the number, is a new inode,
	 * not a use of the old pointer) */
	bool other = e->life && c->cur_life && e->life != c->cur_life;
	/* A list move carries no life: when the number has a new life since
	 * c's pointer and c holds the lock of a list the new inode is on, c
	 * found that inode afresh on the list (the flusher's next pick from
	 * b_dirty), it did not follow its old pointer. */
	const struct ino_track *now = omap_get(&p->inodes, t);
	if (!e->life && t == c->cur && c->cur_life && now && now->life &&
	    now->life != c->cur_life && list_guarded(p, c, now))
		other = true;
	if (t == c->cur && c->since != UINT64_MAX && e->type != EV_inode_alloc && !other)
		add_span(p, slot, t, c->since, i);
	c->since = UINT64_MAX;
	bool fresh = t != c->cur || other;
	c->cur_freed = c->cur_freed && !fresh;
	if (fresh)
		c->cur_life = 0;
	if (e->life)
		c->cur_life = e->life;
	c->cur = t;
	/* A pointer it had: whether it was safe is above.  A pointer it
	 * takes now (a first touch, an i_lock it waits for) starts no span
	 * unless it had a protection to give up. */
	c->prot = fresh ? is_protected(p, slot, t) : true;
}

static void step(struct pass *p, uint64_t i)
{
	const struct ix_event *e = &p->ix->ev[i];
	if (e->type == EV_discarded_events || e->type == EV_discarded_packets) {
		gap(p, e);
		return;
	}
	if (e->type == EV_rcu_read_lock || e->type == EV_rcu_read_unlock) {
		struct cpu_track *r = &p->cpu[slot_of(e)];
		r->rcu = (uint32_t)e->val;
		bool prot = r->cur != UINT32_MAX && is_protected(p, slot_of(e), r->cur);
		if (r->cur != UINT32_MAX && r->prot && !prot)
			r->since = i;
		if (prot) /* as in step's other events: protected again */
			r->since = UINT64_MAX;
		r->prot = prot;
		return;
	}
	if (e->type >= EV_sched_step && e->type != EV_violation) /* narration, waits, notes */
		return;
	int slot = slot_of(e);
	struct cpu_track *c = &p->cpu[slot];
	if (e->type == EV_op_begin || e->type == EV_op_end) {
		c->cur = UINT32_MAX;
		c->cur_freed = false;
		c->cur_life = 0;
		c->since = UINT64_MAX;
		return;
	}
	uint32_t t = touched(p, e);
	if (t != UINT32_MAX)
		touch(p, slot, e, i, t);
	apply(p, e, slot);
	if (c->cur == UINT32_MAX || half_move(p, i))
		return;
	bool prot = is_protected(p, slot, c->cur);
	if (c->prot && !prot)
		c->since = i;
	if (prot)
		c->since = UINT64_MAX;
	c->prot = prot;
}

static int by_from(const void *a, const void *b)
{
	const struct unprot_span *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * One trace is shown at a time: its pass goes on from where it stopped
 * as the trace grows while it is indexed, a bounded number of events per
 * call, so no frame waits for a whole long trace (the rest is scanned on
 * the following frames; `upto` says how far it got).
 */
#define UNPROT_CHUNK 2000000ull

static const struct trace_index *cached_ix;
static struct unprot cached;
static struct pass *pass;

static void pass_free(void)
{
	if (!pass)
		return;
	omap_free(&pass->refs);
	omap_free(&pass->inodes);
	free(pass);
	pass = NULL;
}

static void pass_start(const struct trace_index *ix)
{
	pass_free();
	free(cached.s);
	memset(&cached, 0, sizeof(cached));
	cached_ix = ix;
	cached.computed = true;
	pass = xcalloc(1, sizeof(*pass));
	pass->ix = ix;
	pass->out = &cached;
	omap_init(&pass->refs, sizeof(int32_t));
	omap_init(&pass->inodes, sizeof(struct ino_track));
	guards_init(pass);
	pass->lost_from = INT64_MAX;
	for (int k = 0; k < NSLOT; k++) {
		pass->cpu[k].cur = UINT32_MAX;
		pass->cpu[k].since = UINT64_MAX;
	}
}

const struct unprot *unprot_spans(const struct trace_index *ix)
{
	static struct unprot kept;
	if (ix->uspans_known) { /* from the index cache (or found already) */
		kept = (struct unprot){ .s = ix->uspans,
					.n = ix->nuspans,
					.cap = ix->nuspans,
					.longest = ix->uspans_longest,
					.upto = ix->nev,
					.unreliable = ix->uspans_unreliable,
					.computed = true };
		return &kept;
	}
	if (cached_ix != ix || !pass)
		pass_start(ix);
	/* While indexing (ix->loader), stay a look-ahead short of the end:
	 * the last events may still be reordered, a move's second half may
	 * not be in yet. */
	uint64_t end = !ix->loader ? ix->nev : ix->nev > 8192 ? ix->nev - 8192 : 0;
	if (cached.upto >= end)
		return &cached;
	uint32_t had = cached.n;
	uint64_t stop = end - cached.upto > UNPROT_CHUNK ? cached.upto + UNPROT_CHUNK : end;
	for (uint64_t i = cached.upto; i < stop; i++) {
		step(pass, i);
		/* hand back the pages behind (ix_release); a look-ahead reads
		 * up to 8192 events on: keep those */
		if ((i & ((1u << 18) - 1)) == 0 && i >= (2u << 18))
			ix_release(ix, i - (2u << 18), i - (1u << 18));
	}
	cached.upto = stop;
	if (cached.n != had) /* spans are found in order of their end */
		qsort(cached.s, cached.n, sizeof(*cached.s), by_from);
	return &cached;
}

const struct unprot *unprot_spans_all(const struct trace_index *ix)
{
	const struct unprot *u;
	do
		u = unprot_spans(ix);
	while (u->upto < ix->nev && !ix->loader);
	return u;
}

const struct unprot_span *unprot_at(const struct unprot *u, unsigned cpu, uint64_t ev, uint64_t end)
{
	/* the spans that begin at or before ev, newest first, back to the
	 * longest span's length */
	uint32_t lo = 0, hi = u->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (u->s[mid].from <= ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo; k-- > 0 && u->s[k].from + u->longest >= ev;)
		if (u->s[k].cpu == cpu && ev < u->s[k].to && u->s[k].to < end)
			return &u->s[k];
	return NULL;
}
