/*
 * model.h - the state of the simulated machine at one point of a trace.
 *
 * A model is what the events up to a cursor imply: per CPU the locks held
 * (in the order taken) and the lock being waited for; per lock instance
 * its holder; per live inode its i_state, i_count, i_nlink and lists; the
 * class -> class lock-order graph observed so far (lockdep's rule: from
 * every lock held to the one being acquired, trylocks adding none); and
 * lock_stat figures per class.  model_apply() moves it one event forward;
 * going backward is a checkpoint restore (model_seek) and a replay.
 */
#ifndef VIEWER_MODEL_H
#define VIEWER_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "viewer/index.h"
#include "viewer/omap.h"

#define MODEL_MAX_CLASSES IX_MAX_CLASSES
#define MODEL_MAX_HELD 16
#define MODEL_MAX_EDGES 512

struct held_lock {
	uint8_t cls, site, trylock;
	uint32_t obj;
	uint32_t life; /* an i_lock's life (ix_event.life), 0 none */
	int64_t since; /* ts when acquired */
	uint64_t ev;   /* event number of the lock_acquired */
};

struct cpu_state {
	struct held_lock held[MODEL_MAX_HELD];
	int nheld;
	/* lock_acquire seen, lock_acquired not yet */
	bool waiting, contended;
	uint8_t wait_cls, wait_site;
	uint32_t wait_obj, wait_life;
	uint64_t wait_ev;
	int16_t wait_holder; /* from lock_contended */
	/*
	 * Events of this CPU may have been lost (a discard record, a stream
	 * that ended early): what it holds and waits for is unknown, and
	 * held[] only lists what it was seen to take since.  It is known
	 * again at its first op_begin after the loss window (gap_end): the
	 * simulator holds no lock between operations.
	 */
	bool unknown;
	int64_t unknown_since; /* ts of the loss that made it unknown */
	/* the operation in progress */
	bool in_op;
	uint8_t op;
	uint32_t op_obj;
	uint64_t last_ev; /* last event of this CPU, or UINT64_MAX */
	/* The i_lock its last inode_free dropped: an inode_rcu_free right
	 * after it keeps the lock until inode_rcu_freed (RCU walkers may
	 * still take it, and its lock_stat goes on). */
	uint64_t freed_key;     /* 0 none */
	int16_t freed_last_cpu; /* its lock_stat state: the last CPU */
	/* the source line its latest event with one named (0: none yet) */
	uint16_t line;
	uint8_t src;      /* enum src_file of line */
	uint8_t src_site; /* and the function (site) it is in */
	/* asleep on an inode's state (inode_wait, not yet inode_wait_end) */
	bool sleeping;
	uint32_t sleep_obj, sleep_state;
	uint64_t sleep_ev;
};

struct class_stats {
	uint64_t acquisitions, contentions, bounces, trylock_failures;
	uint64_t wait_ns_total, wait_ns_max, hold_ns_total, hold_ns_max;
	uint64_t wait_ns_min, hold_ns_min; /* UINT64_MAX until seen */
};

struct lock_edge {
	uint8_t from, to;
	uint8_t first_site, first_held_site;
	uint32_t count;
	uint64_t first_ev;
	int8_t verdict; /* +1 documented, -1 against the order, 0 unknown */
	uint8_t lossy;  /* first seen after events were lost: a verdict
			   * against the order is then not trusted */
};

struct inode_state {
	uint32_t flags;
	int32_t count;
	uint32_t nlink;
	uint32_t sb;
	uint16_t lists; /* bit per ICACHE_LISTS entry */
	uint8_t lives;  /* 2 while a reused number's old life ends */
	int16_t setter; /* CPU that last set I_NEW, I_WILL_FREE or I_FREEING,
			 * -1 none (whom a sleeper on it waits for) */
	uint64_t alloc_ev;
};

struct lock_inst {
	int16_t holder;       /* -1 free */
	int16_t last_cpu;     /* -1 never taken (lock_stat bounces) */
	int16_t old_last_cpu; /* an i_lock's older life, while two are open
				* (traces without the life field only) */
	uint8_t doubtful;     /* taken while its holder's state was unknown
				* or inside a loss window: its release may be
				* lost, so a second holder is no proof */
	uint64_t held_ev;
};

/* The documented order of the scheme: outer[a] has bit b if a > b. */
struct lock_order {
	bool known;
	uint64_t outer[MODEL_MAX_CLASSES];
};

struct model {
	uint64_t pos; /* events applied */
	unsigned ncpu, cpu_cap;
	struct cpu_state *cpu;
	struct cpu_state nocpu; /* events with cpu = 0xffff */
	struct class_stats stats[MODEL_MAX_CLASSES];
	unsigned nedges;
	struct lock_edge edges[MODEL_MAX_EDGES];
	uint16_t edge_ix[MODEL_MAX_CLASSES][MODEL_MAX_CLASSES]; /* 1-based */
	struct omap locks;  /* cls<<48 | life<<32 | obj -> lock_inst */
	struct omap inodes; /* obj -> inode_state */
	struct lock_order order;
	uint64_t violations; /* violation events so far */
	uint64_t discards;   /* discard messages so far */
	uint64_t unmatched_releases;
	uint64_t unmatched_known; /* ... by a CPU whose state was known */
	bool after_gap;           /* events were lost somewhere before */
	int64_t gap_end;          /* end of the latest loss window */
	uint64_t gaps;            /* loss windows and stream cuts so far */
	/* the first inconsistency: two holders of one lock */
	bool bad;
	uint64_t bad_ev;
	char bad_text[200];
};

struct model *model_new(void);
void model_free(struct model *m);
void model_reset(struct model *m);
void model_copy(struct model *dst, const struct model *src);

/* Apply ix->ev[m->pos] and advance. */
void model_apply(struct model *m, const struct trace_index *ix);
/* Would applying e make two holders of one lock? */
bool model_conflicts(const struct model *m, const struct ix_event *e);

/* Checkpoints: a compact copy of the model. */
void *model_save(const struct model *m, size_t *size);
void model_restore(struct model *m, const void *blob, size_t size);

/* Load the documented order (transitively closed) from its rules, as the
 * trace's order_rule events gave them; known = false: the trace does not
 * say (every edge is then "undocumented"). */
void model_set_order(struct model *m, const struct order_rule *rules, uint32_t n, bool known);

/* Lookups. */
const struct inode_state *model_inode(const struct model *m, uint32_t obj);
/* The lock instance (cls, obj), or its life `life` if the trace names lives (else 0). */
const struct lock_inst *model_lock(const struct model *m, int cls, uint32_t obj, uint32_t life);
/* A CPU's state (IX_NO_CPU for the thread without one); never NULL. */
const struct cpu_state *model_cpu(const struct model *m, unsigned cpu);
/* Iterate the live inodes: *it starts at 0; returns false at the end. */
bool model_next_inode(const struct model *m, uint32_t *it, uint32_t *obj,
		      const struct inode_state **st);

#endif
