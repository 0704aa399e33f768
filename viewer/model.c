/*
 * model.c - replaying events into the state of the simulated machine.
 *
 * Invariant kept by model_apply(): a lock instance has at most one holder,
 * and it is on that CPU's held stack.  A trace that breaks it (two
 * lock_acquired without a lock_release between them) is inconsistent:
 * the simulator fires lock_acquired only once the lock is its own and
 * lock_release before letting it go.
 *
 * Loss (EVENTS.md section 1): a discarded-events record names a stream
 * and a time window, not the simulated CPUs whose events were in it (a
 * stream is a real core; threads may move), so every CPU's state becomes
 * unknown: its held stack is dropped, the locks on it are freed, no
 * lock-order edge is drawn from it and no hold is timed across the gap.
 * A CPU is known again at its first operation boundary after the window
 * (op_begin, or the op_end of the operation the loss cut into), because
 * the simulator holds no lock between operations: an op_end proves every
 * lock it took was released, whatever events of it were lost.  Two holders of a lock
 * prove an inconsistency only when neither hold comes from unknown state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/model.h"

/* ---- the model ---------------------------------------------------------- */

static int i_lock_class = -1, evict_site = -1;
static int act_del = -1, act_move = -1;
static uint16_t wb_group, lru_group;

static void names_init(void)
{
	i_lock_class = lock_class_by_name("i_lock");
	evict_site = site_by_name("evict");
	for (int i = 0; i < 8; i++) {
		if (!strcmp(list_action_label(i), "del"))
			act_del = i;
		if (!strcmp(list_action_label(i), "move"))
			act_move = i;
	}
	for (int i = 0; i < nr_list_labels() && i < 16; i++) {
		const char *l = list_label(i);
		if (!strcmp(l, "b_dirty") || !strcmp(l, "b_io") || !strcmp(l, "b_more_io"))
			wb_group |= (uint16_t)(1u << i);
		if (!strcmp(l, "lru") || !strcmp(l, "dispose") || !strcmp(l, "in_use"))
			lru_group |= (uint16_t)(1u << i);
	}
}

struct model *model_new(void)
{
	struct model *m = xcalloc(1, sizeof(*m));
	if (i_lock_class < 0)
		names_init();
	omap_init(&m->locks, sizeof(struct lock_inst));
	omap_init(&m->inodes, sizeof(struct inode_state));
	model_reset(m);
	return m;
}

static void cpu_init(struct cpu_state *c)
{
	memset(c, 0, sizeof(*c));
	c->last_ev = UINT64_MAX;
}

void model_reset(struct model *m)
{
	struct omap locks = m->locks, inodes = m->inodes;
	struct cpu_state *cpu = m->cpu;
	unsigned cap = m->cpu_cap;
	struct lock_order order = m->order;

	memset(m, 0, sizeof(*m));
	m->locks = locks;
	m->inodes = inodes;
	m->cpu = cpu;
	m->cpu_cap = cap;
	m->order = order;
	for (unsigned i = 0; i < m->cpu_cap; i++)
		cpu_init(&m->cpu[i]);
	cpu_init(&m->nocpu);
	for (int k = 0; k < MODEL_MAX_CLASSES; k++)
		m->stats[k].wait_ns_min = m->stats[k].hold_ns_min = UINT64_MAX;
	m->gap_end = INT64_MIN;
	/* Empty the maps but keep their memory. */
	if (m->locks.cap) {
		memset(m->locks.keys, 0, m->locks.cap * sizeof(uint64_t));
		m->locks.n = 0;
	}
	if (m->inodes.cap) {
		memset(m->inodes.keys, 0, m->inodes.cap * sizeof(uint64_t));
		m->inodes.n = 0;
	}
}

void model_free(struct model *m)
{
	if (!m)
		return;
	omap_free(&m->locks);
	omap_free(&m->inodes);
	free(m->cpu);
	free(m);
}

/* Slot of a simulated CPU; the "no CPU" thread has its own. */
#define MAX_CPU_SLOTS 256u

static struct cpu_state *cpu_slot(struct model *m, unsigned cpu)
{
	if (cpu == IX_NO_CPU)
		return &m->nocpu;
	unsigned s = cpu >= MAX_CPU_SLOTS ? MAX_CPU_SLOTS - 1 : cpu;
	if (s >= m->cpu_cap) {
		unsigned ncap = s + 1 > 8 ? s + 1 : 8;
		struct cpu_state *n = xrealloc(m->cpu, ncap * sizeof(*n));
		for (unsigned i = m->cpu_cap; i < ncap; i++)
			cpu_init(&n[i]);
		m->cpu = n;
		m->cpu_cap = ncap;
	}
	if (s + 1 > m->ncpu)
		m->ncpu = s + 1;
	return &m->cpu[s];
}

const struct cpu_state *model_cpu(const struct model *m, unsigned cpu)
{
	static struct cpu_state idle = { .last_ev = UINT64_MAX };
	if (cpu == IX_NO_CPU)
		return &m->nocpu;
	if (cpu >= m->cpu_cap)
		return &idle;
	return &m->cpu[cpu];
}

static int16_t holder_id(unsigned cpu)
{
	return cpu == IX_NO_CPU ? 0x7fff : (int16_t)cpu;
}

/* A lock instance: (class, number, life), so two lives of one inode
 * number are two i_locks.  The index keeps a life's low 16 bits: two lives
 * of one number open at once are never 65 536 allocations apart. */
static uint64_t lock_key(int cls, uint32_t obj, uint32_t life)
{
	return (uint64_t)(cls & 0xff) << 48 | (uint64_t)(life & 0xffff) << 32 | obj;
}

const struct inode_state *model_inode(const struct model *m, uint32_t obj)
{
	return omap_get(&m->inodes, obj);
}

const struct lock_inst *model_lock(const struct model *m, int cls, uint32_t obj, uint32_t life)
{
	return omap_get(&m->locks, lock_key(cls, obj, life));
}

bool model_next_inode(const struct model *m, uint32_t *it, uint32_t *obj,
		      const struct inode_state **st)
{
	for (; *it < m->inodes.cap; (*it)++) {
		if (m->inodes.keys[*it]) {
			*obj = (uint32_t)(m->inodes.keys[*it] - 1);
			*st = oval(&m->inodes, *it);
			(*it)++;
			return true;
		}
	}
	return false;
}

static void mark_bad(struct model *m, const struct trace_index *ix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static void mark_bad(struct model *m, const struct trace_index *ix, const char *fmt, ...)
{
	(void)ix;
	if (m->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->bad_text, sizeof(m->bad_text), fmt, ap);
	va_end(ap);
	m->bad = true;
	m->bad_ev = m->pos;
}

static void add_edge(struct model *m, int from, int to, int site, int hsite)
{
	if (from >= MODEL_MAX_CLASSES || to >= MODEL_MAX_CLASSES)
		return;
	uint16_t ix = m->edge_ix[from][to];
	if (ix) {
		m->edges[ix - 1].count++;
		return;
	}
	if (m->nedges >= MODEL_MAX_EDGES)
		return;
	struct lock_edge *e = &m->edges[m->nedges++];
	m->edge_ix[from][to] = (uint16_t)m->nedges;
	e->from = (uint8_t)from;
	e->to = (uint8_t)to;
	e->first_site = (uint8_t)site;
	e->first_held_site = (uint8_t)hsite;
	e->count = 1;
	e->first_ev = m->pos;
	e->lossy = m->after_gap;
	if (!m->order.known || from == to)
		e->verdict = from == to && m->order.known ? -1 : 0;
	else if (m->order.outer[from] >> to & 1)
		e->verdict = 1;
	else if (m->order.outer[to] >> from & 1)
		e->verdict = -1;
	else
		e->verdict = 0;
}

static struct class_stats *cls_stats(struct model *m, int cls)
{
	return &m->stats[cls < MODEL_MAX_CLASSES ? cls : MODEL_MAX_CLASSES - 1];
}

static void held_remove(struct cpu_state *c, int i)
{
	memmove(&c->held[i], &c->held[i + 1], (size_t)(c->nheld - 1 - i) * sizeof(c->held[0]));
	c->nheld--;
}

/* Where (cls, obj, life) is on c's held stack, the newest first; -1. */
static int held_find(const struct cpu_state *c, int cls, uint32_t obj, uint32_t life)
{
	int i;
	for (i = c->nheld - 1; i >= 0; i--)
		if (c->held[i].cls == cls && c->held[i].obj == obj && c->held[i].life == life)
			break;
	return i;
}

/* Drop (cls, obj, life) from whichever CPU's held stack has it. */
static void drop_from_holder(struct model *m, int16_t holder, int cls, uint32_t obj, uint32_t life)
{
	if (holder < 0)
		return;
	struct cpu_state *c = cpu_slot(m, holder == 0x7fff ? IX_NO_CPU : (unsigned)holder);
	int i = held_find(c, cls, obj, life);

	if (i >= 0)
		held_remove(c, i);
}

bool model_conflicts(const struct model *m, const struct ix_event *e)
{
	if (e->type != EV_lock_acquired && e->type != EV_lock_release)
		return false;
	const struct lock_inst *li = model_lock(m, e->a, e->obj, e->life);
	int16_t me = holder_id(e->cpu);
	if (e->type == EV_lock_acquired)
		return li && li->holder >= 0;
	return li && li->holder >= 0 && li->holder != me;
}

/*
 * A lock instance seen for the first time, or again: an RCU walker may
 * take the i_lock of an inode whose free is already in the trace, before
 * the freeing CPU's inode_rcu_free puts the lock back (rcu_free_event).
 * Its lock_stat state (the last CPU) then comes from that CPU's slot.
 */
static struct lock_inst *lock_inst_new(struct model *m, uint64_t key)
{
	struct lock_inst *li = omap_put(&m->locks, key);
	li->holder = -1;
	li->last_cpu = -1;
	li->old_last_cpu = -1;
	for (unsigned i = 0; i < m->ncpu; i++) {
		struct cpu_state *c = &m->cpu[i];
		if (key && c->freed_key == key) {
			li->last_cpu = c->freed_last_cpu;
			c->freed_key = 0;
			break;
		}
	}
	return li;
}

/* Without life ids, two lives of one number share an instance: is e's
 * lock the i_lock of a number that has two lives at once? */
static bool two_lives(const struct model *m, const struct ix_event *e)
{
	const struct inode_state *s =
		e->a == i_lock_class && !e->life ? model_inode(m, e->obj) : NULL;
	return s && s->lives > 1;
}

/* Can what c does at e be judged: its state known, no events missing? */
static bool trusted_at(const struct model *m, const struct cpu_state *c, const struct ix_event *e)
{
	return !c->unknown && e->ts > m->gap_end;
}

/* One more wait or hold time into its total, maximum and minimum. */
static void add_time(uint64_t *total, uint64_t *max, uint64_t *min, uint64_t ns)
{
	*total += ns;
	if (ns > *max)
		*max = ns;
	if (ns < *min)
		*min = ns;
}

/* lock_acquired: the lock changes hands (a second holder is a bad
 * trace, unless the numbers were reused); the CPU holds it now. */
static void lock_acquired(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			  struct cpu_state *c)
{
	int cls = e->a;
	struct class_stats *st = cls_stats(m, cls);
	int16_t me = holder_id(e->cpu);

	struct lock_inst *li = omap_get(&m->locks, lock_key(cls, e->obj, e->life));
	if (!li)
		li = lock_inst_new(m, lock_key(cls, e->obj, e->life));
	bool two = two_lives(m, e), trusted = trusted_at(m, c, e);
	if (li->holder >= 0 && !two && trusted && !li->doubtful) {
		mark_bad(m, ix, "cpu%d acquires %s %llu while %s%d holds it", (int)(int16_t)e->cpu,
			 lock_class_label(cls), (unsigned long long)ix_id_value(ix, e->obj),
			 li->holder == me ? "it itself (recursion): cpu" : "cpu", li->holder);
	}
	if (li->holder >= 0)
		drop_from_holder(m, li->holder, cls, e->obj, e->life);
	li->holder = me;
	li->held_ev = m->pos;
	li->doubtful = !trusted;
	/* Bounces are per lock, and two lives of one number are two
	 * i_locks.  A trace without life ids cannot say which life an
	 * acquisition is of: in the window, the older life's last hold is
	 * taken as the one in evict (EVENTS.md section 4). */
	int16_t *last = two && e->site == evict_site ? &li->old_last_cpu : &li->last_cpu;
	if (*last >= 0 && *last != me)
		st->bounces++;
	*last = me;
	st->acquisitions++;
	add_time(&st->wait_ns_total, &st->wait_ns_max, &st->wait_ns_min, e->val);
	bool normal = c->waiting && c->wait_cls == cls && c->wait_obj == e->obj &&
		      c->wait_life == e->life;
	if (c->nheld < MODEL_MAX_HELD) {
		struct held_lock *h = &c->held[c->nheld++];
		h->cls = (uint8_t)cls;
		h->obj = e->obj;
		h->life = e->life;
		h->site = e->site;
		h->trylock = !normal;
		h->since = e->ts;
		h->ev = m->pos;
	}
	if (normal)
		c->waiting = false;
}

/* lock_release: off the CPU's held list; a release by a CPU that does
 * not hold it is a bad trace. */
static void lock_released(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			  struct cpu_state *c)
{
	int cls = e->a;
	int16_t me = holder_id(e->cpu);
	int i = held_find(c, cls, e->obj, e->life);

	if (i >= 0)
		held_remove(c, i);
	struct lock_inst *li = omap_get(&m->locks, lock_key(cls, e->obj, e->life));
	bool trusted = trusted_at(m, c, e);
	if (li && li->holder >= 0 && li->holder != me && i < 0 && !two_lives(m, e) && trusted &&
	    !li->doubtful)
		mark_bad(m, ix, "cpu%d releases %s %llu held by cpu%d", (int)(int16_t)e->cpu,
			 lock_class_label(cls), (unsigned long long)ix_id_value(ix, e->obj),
			 li->holder);
	if (i < 0)
		m->unmatched_releases++;
	if (i < 0 && trusted)
		m->unmatched_known++;
	if (li && li->holder == me)
		li->holder = -1;
	struct class_stats *st = cls_stats(m, cls);
	add_time(&st->hold_ns_total, &st->hold_ns_max, &st->hold_ns_min, e->val);
}

static void apply_lock(struct model *m, const struct trace_index *ix, const struct ix_event *e,
		       struct cpu_state *c)
{
	int cls = e->a;
	struct class_stats *st = cls_stats(m, cls);

	switch (e->type) {
	case EV_lock_acquire:
		for (int i = 0; i < c->nheld && !c->unknown; i++)
			add_edge(m, c->held[i].cls, cls, e->site, c->held[i].site);
		c->waiting = true;
		c->contended = false;
		c->wait_cls = (uint8_t)cls;
		c->wait_obj = e->obj;
		c->wait_life = e->life;
		c->wait_site = e->site;
		c->wait_ev = m->pos;
		c->wait_holder = -1;
		break;
	case EV_lock_contended:
		st->contentions++;
		c->contended = true;
		c->wait_holder = (int16_t)(int64_t)e->val;
		break;
	case EV_lock_trylock:
		if (!e->b)
			st->trylock_failures++;
		break;
	case EV_lock_acquired:
		lock_acquired(m, ix, e, c);
		break;
	case EV_lock_release:
		lock_released(m, ix, e, c);
		break;
	}
}

/* Free the locks on c's held stack (their releases may be lost). */
static void forget_held(struct model *m, struct cpu_state *c)
{
	int16_t me = c == &m->nocpu ? holder_id(IX_NO_CPU) : holder_id((unsigned)(c - m->cpu));
	for (int i = 0; i < c->nheld; i++) {
		struct lock_inst *li = omap_get(
			&m->locks, lock_key(c->held[i].cls, c->held[i].obj, c->held[i].life));
		if (li && li->holder == me)
			li->holder = -1;
	}
	c->nheld = 0;
}

/* At an operation boundary after the loss: nothing is held. */
static void cpu_known_again(struct model *m, struct cpu_state *c)
{
	forget_held(m, c);
	c->waiting = c->contended = false;
	c->unknown = false;
}

/* Lists that share one link in struct inode: a move to one leaves the
 * others.  (The simulator emits del + add; move is for other writers.) */
static uint16_t list_group(int list)
{
	uint16_t bit = list < 16 ? (uint16_t)(1u << list) : 0;
	if (bit & wb_group)
		return wb_group;
	if (bit & lru_group)
		return lru_group;
	return bit;
}

static struct inode_state *inode_get(struct model *m, uint32_t obj)
{
	bool added;
	struct inode_state *s = omap_add(&m->inodes, obj, &added);

	if (added) {
		s->setter = -1;
		s->alloc_ev = m->pos;
	}
	return s;
}

/* Events may be missing from e->ts to the end of its window. */
static void model_gap(struct model *m, const struct trace_index *ix, const struct ix_event *e)
{
	const struct ix_discard *d = e->obj < ix->ndiscards ? &ix->discards[e->obj] : NULL;
	int64_t end = d && d->end != INT64_MIN ? d->end : e->ts;
	if (d && d->cut)
		end = INT64_MAX;
	if (end > m->gap_end)
		m->gap_end = end;
	m->after_gap = true;
	m->gaps++;
	for (unsigned i = 0; i <= m->cpu_cap; i++) {
		struct cpu_state *c = i < m->cpu_cap ? &m->cpu[i] : &m->nocpu;
		if (c->last_ev == UINT64_MAX)
			continue; /* never seen: nothing to forget */
		forget_held(m, c);
		c->waiting = c->contended = false;
		if (!c->unknown)
			c->unknown_since = e->ts;
		c->unknown = true;
	}
}

/* inode_list: the inode joins, leaves or moves between lists. */
static void inode_list_event(struct model *m, const struct trace_index *ix,
			     const struct ix_event *e, struct cpu_state *c)
{
	struct inode_state *s = inode_get(m, e->obj);
	uint16_t bit = e->a < 16 ? (uint16_t)(1u << e->a) : 0;
	if (e->b == act_del)
		s->lists &= (uint16_t)~bit;
	else if (e->b == act_move)
		s->lists = (uint16_t)((s->lists & ~list_group(e->a)) | bit);
	else
		s->lists |= bit;
}

/* inode_alloc: a new inode, or a new life of a number still evicting. */
static void inode_alloc_event(struct model *m, const struct trace_index *ix,
			      const struct ix_event *e, struct cpu_state *c)
{
	struct inode_state *old = omap_get(&m->inodes, e->obj);
	/* A second life of this number while the first is still being
	 * evicted (EVENTS.md section 4, "reused inode numbers"). */
	uint8_t lives = old ? (uint8_t)(old->lives + 1) : 1;
	struct lock_inst *li =
		e->life ? NULL : omap_get(&m->locks, lock_key(i_lock_class, e->obj, 0));
	/* A new life starts with a fresh i_lock (spin_lock_init): with life
	 * ids it is a new instance; without, the number's forgets its CPU. */
	if (li) {
		li->old_last_cpu = li->last_cpu;
		li->last_cpu = -1;
	}
	struct inode_state *s = omap_put(&m->inodes, e->obj);
	s->lives = lives;
	s->flags = 0;
	s->count = 1;
	s->nlink = (uint32_t)e->val;
	s->sb = (uint32_t)(e->val >> 32);
	s->lists = 0;
	s->setter = -1;
	s->alloc_ev = m->pos;
}

/* inode_free: the inode (or its older life) is gone, and its i_lock
 * (kept aside, in case an RCU grace period keeps it: rcu_free_event). */
static void inode_free_event(struct model *m, const struct trace_index *ix,
			     const struct ix_event *e, struct cpu_state *c)
{
	struct inode_state *s = omap_get(&m->inodes, e->obj);
	if (e->life) {
		uint64_t key = lock_key(i_lock_class, e->obj, e->life);
		const struct lock_inst *dead = omap_get(&m->locks, key);
		c->freed_key = 0;
		if (dead && dead->holder < 0) {
			c->freed_key = key;
			c->freed_last_cpu = dead->last_cpu;
			omap_del(&m->locks, key);
		}
	}
	if (s && s->lives > 1) {
		s->lives--;
		return;
	}
	omap_del(&m->inodes, e->obj);
	const struct lock_inst *li = model_lock(m, i_lock_class, e->obj, 0);
	if (li && li->holder < 0)
		omap_del(&m->locks, lock_key(i_lock_class, e->obj, 0));
}

/* inode_rcu_free: the memory (and i_lock) of the inode this CPU just freed
 * stays until the grace period ends; inode_rcu_freed: now it is gone. */
static void rcu_free_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			   struct cpu_state *c)
{
	if (e->type == EV_inode_rcu_freed) {
		const struct lock_inst *li = model_lock(m, i_lock_class, e->obj, e->life);
		if (e->life && li && li->holder < 0)
			omap_del(&m->locks, lock_key(i_lock_class, e->obj, e->life));
		return;
	}
	/* (not a lane event: c is NULL) */
	struct cpu_state *freer = cpu_slot(m, e->cpu);
	if (freer->freed_key && (uint32_t)freer->freed_key == e->obj &&
	    !omap_get(&m->locks, freer->freed_key)) {
		struct lock_inst *li = omap_put(&m->locks, freer->freed_key);
		*li = (struct lock_inst){ .holder = -1,
					  .last_cpu = freer->freed_last_cpu,
					  .old_last_cpu = -1 };
	}
	freer->freed_key = 0;
}

/* XOR rather than "= new": old is read atomically with the change, so
 * this holds whatever order same-time events come in (EVENTS.md section
 * 5).  Who set a flag a sleeper waits on is kept for the sleeper. */
static void inode_state_event(struct model *m, const struct trace_index *ix,
			      const struct ix_event *e, struct cpu_state *c)
{
	struct inode_state *s = inode_get(m, e->obj);
	uint32_t o = (uint32_t)(e->val >> 32), n = (uint32_t)e->val;
	s->flags ^= o ^ n;
	if ((n & ~o) & (flag_new() | flag_will_free() | flag_freeing()))
		s->setter = (int16_t)e->cpu;
}

/* op_begin / op_end: the CPU is inside an operation; an op_begin after a
 * loss window also means the CPU is known again. */
static void op_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
		     struct cpu_state *c)
{
	if (c->unknown && e->ts > m->gap_end)
		cpu_known_again(m, c);
	c->in_op = e->type == EV_op_begin;
	if (c->in_op) {
		c->op = e->a;
		c->op_obj = e->obj;
	}
}

/* inode_wait / inode_wait_end: the CPU sleeps on (or wakes from) a state
 * bit of an inode. */
static void wait_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
		       struct cpu_state *c)
{
	c->sleeping = e->type == EV_inode_wait;
	c->sleep_obj = e->obj;
	c->sleep_state = (uint32_t)e->val;
	c->sleep_ev = m->pos;
}

/* inode_ref: refcounts change without a lock: a sum, as the flags' XOR. */
static void inode_ref_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			    struct cpu_state *c)
{
	inode_get(m, e->obj)->count +=
		(int32_t)(uint32_t)e->val - (int32_t)(uint32_t)(e->val >> 32);
}

static void inode_nlink_event(struct model *m, const struct trace_index *ix,
			      const struct ix_event *e, struct cpu_state *c)
{
	inode_get(m, e->obj)->nlink = (uint32_t)e->val;
}

static void violation_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			    struct cpu_state *c)
{
	m->violations++;
}

/* discarded_events / discarded_packets: the tracer lost some. */
static void discard_event(struct model *m, const struct trace_index *ix, const struct ix_event *e,
			  struct cpu_state *c)
{
	m->discards++;
	model_gap(m, ix, e);
}

/*
 * What each type of event does to the replay state, indexed by the type
 * (enum ix_type, names.h); NULL: nothing (run_begin, sched_step, the RCU
 * read sections...: the panes read those from the index).  c is the
 * event's CPU (event_cpu), NULL for an event of no CPU.
 */
typedef void apply_fn(struct model *m, const struct trace_index *ix, const struct ix_event *e,
		      struct cpu_state *c);
static apply_fn *const apply[EV__COUNT] = {
	[EV_lock_acquire] = apply_lock,
	[EV_lock_contended] = apply_lock,
	[EV_lock_acquired] = apply_lock,
	[EV_lock_release] = apply_lock,
	[EV_lock_trylock] = apply_lock,
	[EV_inode_state] = inode_state_event,
	[EV_inode_ref] = inode_ref_event,
	[EV_inode_list] = inode_list_event,
	[EV_inode_alloc] = inode_alloc_event,
	[EV_inode_free] = inode_free_event,
	[EV_inode_rcu_free] = rcu_free_event,
	[EV_inode_rcu_freed] = rcu_free_event,
	[EV_inode_nlink] = inode_nlink_event,
	[EV_op_begin] = op_event,
	[EV_op_end] = op_event,
	[EV_violation] = violation_event,
	[EV_inode_wait] = wait_event,
	[EV_inode_wait_end] = wait_event,
	[EV_discarded_events] = discard_event,
	[EV_discarded_packets] = discard_event,
};

/*
 * The CPU event e belongs to, NULL for none: the lane events up to
 * sched_step, a violation, a sleep.  A CPU first seen inside a loss
 * window (not by a sleep) may have lost its earlier events.
 */
static struct cpu_state *event_cpu(struct model *m, const struct ix_event *e)
{
	if (e->type == EV_inode_wait || e->type == EV_inode_wait_end)
		return cpu_slot(m, e->cpu);
	if (e->type > EV_sched_step && e->type != EV_violation)
		return NULL;
	struct cpu_state *c = cpu_slot(m, e->cpu);
	if (c->last_ev == UINT64_MAX && m->gaps && e->ts <= m->gap_end) {
		c->unknown = true;
		c->unknown_since = e->ts;
	}
	return c;
}

void model_apply(struct model *m, const struct trace_index *ix)
{
	const struct ix_event *e = &ix->ev[m->pos];
	struct cpu_state *c = event_cpu(m, e);

	if (e->type < EV__COUNT && apply[e->type])
		apply[e->type](m, ix, e, c);
	if (c) {
		c->last_ev = m->pos;
		if (e->line) {
			c->line = e->line;
			c->src = e->src;
			c->src_site = e->site;
		}
	}
	m->pos++;
}

/* ---- the documented order ---------------------------------------------- */

void model_set_order(struct model *m, const struct order_rule *rules, uint32_t n, bool known)
{
	memset(&m->order, 0, sizeof(m->order));
	m->order.known = known;
	for (uint32_t i = 0; i < n; i++)
		if (rules[i].outer < MODEL_MAX_CLASSES && rules[i].inner < MODEL_MAX_CLASSES)
			m->order.outer[rules[i].outer] |= 1ULL << rules[i].inner;
	/* Transitive closure (Warshall over at most 64 classes). */
	for (int k = 0; k < MODEL_MAX_CLASSES; k++)
		for (int i = 0; i < MODEL_MAX_CLASSES; i++)
			if (m->order.outer[i] >> k & 1)
				m->order.outer[i] |= m->order.outer[k];
}

/* ---- checkpoints ---------------------------------------------------------- */

struct ckpt_head {
	uint64_t pos, violations, discards, unmatched, unmatched_known, gaps;
	int64_t gap_end;
	uint32_t ncpu, cpu_cap, nedges, nlocks, ninodes;
	uint8_t after_gap, bad;
};

void *model_save(const struct model *m, size_t *size)
{
	struct ckpt_head h = {
		.pos = m->pos,
		.violations = m->violations,
		.discards = m->discards,
		.unmatched = m->unmatched_releases,
		.unmatched_known = m->unmatched_known,
		.gaps = m->gaps,
		.gap_end = m->gap_end,
		.ncpu = m->ncpu,
		.cpu_cap = m->cpu_cap,
		.nedges = m->nedges,
		.nlocks = m->locks.n,
		.ninodes = m->inodes.n,
		.after_gap = m->after_gap,
		.bad = m->bad,
	};
	size_t lsz = sizeof(uint64_t) + sizeof(struct lock_inst);
	size_t isz = sizeof(uint64_t) + sizeof(struct inode_state);
	size_t n = sizeof(h) + sizeof(m->stats) + m->nedges * sizeof(struct lock_edge) +
		   (m->cpu_cap + 1) * sizeof(struct cpu_state) + h.nlocks * lsz + h.ninodes * isz;
	char *blob = xmalloc(n), *p = blob;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, m->stats, sizeof(m->stats));
	p += sizeof(m->stats);
	memcpy(p, m->edges, m->nedges * sizeof(struct lock_edge));
	p += m->nedges * sizeof(struct lock_edge);
	memcpy(p, &m->nocpu, sizeof(struct cpu_state));
	p += sizeof(struct cpu_state);
	if (m->cpu_cap)
		memcpy(p, m->cpu, m->cpu_cap * sizeof(struct cpu_state));
	p += m->cpu_cap * sizeof(struct cpu_state);
	for (uint32_t i = 0; i < m->locks.cap; i++)
		if (m->locks.keys[i]) {
			memcpy(p, &m->locks.keys[i], sizeof(uint64_t));
			memcpy(p + sizeof(uint64_t), oval(&m->locks, i), sizeof(struct lock_inst));
			p += lsz;
		}
	for (uint32_t i = 0; i < m->inodes.cap; i++)
		if (m->inodes.keys[i]) {
			memcpy(p, &m->inodes.keys[i], sizeof(uint64_t));
			memcpy(p + sizeof(uint64_t), oval(&m->inodes, i),
			       sizeof(struct inode_state));
			p += isz;
		}
	*size = n;
	return blob;
}

void model_restore(struct model *m, const void *blob, size_t size)
{
	const char *p = blob;
	struct ckpt_head h;
	(void)size;
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	model_reset(m);
	m->pos = h.pos;
	m->violations = h.violations;
	m->discards = h.discards;
	m->unmatched_releases = h.unmatched;
	m->unmatched_known = h.unmatched_known;
	m->gaps = h.gaps;
	m->gap_end = h.gap_end;
	m->after_gap = h.after_gap;
	m->bad = h.bad;
	memcpy(m->stats, p, sizeof(m->stats));
	p += sizeof(m->stats);
	m->nedges = h.nedges;
	memcpy(m->edges, p, h.nedges * sizeof(struct lock_edge));
	p += h.nedges * sizeof(struct lock_edge);
	for (unsigned i = 0; i < h.nedges; i++)
		m->edge_ix[m->edges[i].from][m->edges[i].to] = (uint16_t)(i + 1);
	if (h.cpu_cap > m->cpu_cap) {
		m->cpu = xrealloc(m->cpu, h.cpu_cap * sizeof(struct cpu_state));
		m->cpu_cap = h.cpu_cap;
	}
	for (unsigned i = 0; i < m->cpu_cap; i++)
		cpu_init(&m->cpu[i]);
	memcpy(&m->nocpu, p, sizeof(struct cpu_state));
	p += sizeof(struct cpu_state);
	if (h.cpu_cap)
		memcpy(m->cpu, p, h.cpu_cap * sizeof(struct cpu_state));
	p += h.cpu_cap * sizeof(struct cpu_state);
	m->ncpu = h.ncpu;
	for (uint32_t i = 0; i < h.nlocks; i++) {
		uint64_t k;
		memcpy(&k, p, sizeof(k));
		memcpy(omap_put(&m->locks, k - 1), p + sizeof(k), sizeof(struct lock_inst));
		p += sizeof(k) + sizeof(struct lock_inst);
	}
	for (uint32_t i = 0; i < h.ninodes; i++) {
		uint64_t k;
		memcpy(&k, p, sizeof(k));
		memcpy(omap_put(&m->inodes, k - 1), p + sizeof(k), sizeof(struct inode_state));
		p += sizeof(k) + sizeof(struct inode_state);
	}
}

void model_copy(struct model *dst, const struct model *src)
{
	size_t n;
	void *blob = model_save(src, &n);
	model_restore(dst, blob, n);
	dst->order = src->order;
	free(blob);
}
