/*
 * unprot.h - the race made visible: spans in which a CPU holds a pointer
 * to an inode that nothing protects.
 *
 * CPU c is UNPROTECTED on inode X from event `from` to event `to` when:
 *   - at `from` c gives up its last protection of X, having touched X
 *     earlier in the same operation (so it holds a pointer to it);
 *     protection is any of: a lock that guards X (X's i_lock, the global
 *     inode_lock, or the lock of a list X is on just then: hash
 *     (inode_hash_lock / hash_bucket), sb (inode_sb_list_lock), LRU
 *     (inode_lru_lock, modern's list_lru_lock), writeback
 *     (inode_wb_list_lock)), a reference of c's own (its inode_ref
 *     increments minus decrements, the allocation counting as one), X's
 *     teardown or writeback being c's (c set I_NEW, I_FREEING,
 *     I_WILL_FREE, I_SYNC or modern's I_LRU_ISOLATING and it is still
 *     set), or an RCU read-side section of c's (rcu_read_lock: X's memory
 *     is freed only after it ends, and c checks X under its i_lock); an X
 *     with no inode_alloc yet is its allocator's own, not yet visible,
 *     unless another CPU freed it while c held the pointer (the race);
 *   - `to` is c's next event that touches X (its state, count, a list,
 *     its i_lock, or a violation naming it), in the same operation; c
 *     allocating a new inode of the same number is not a use of the old
 *     pointer.
 * Protection regained before that touch (a lock, a reference, an RCU
 * section) ends it with no span: the trace cannot tell a pointer found
 * afresh (a new walk of a list) from the old one, and the finder does not
 * claim a race it cannot show.  A list move or lock of a new life of the
 * number (every inode event names its life) is not a use of the old one.
 * A pointer dropped unused (the operation ends first) makes no span, and
 * sleeping on X's state bit is not a touch (the kernel's bit waitqueue is
 * found from the address, the inode is not read).  Simplification: any
 * hash_bucket lock counts for a hashed X (the trace does not say which
 * bucket X is in).
 *
 * Loss (EVENTS.md section 1): events missing from a stream (a discarded
 * record, a stream cut early or missing) may be the very reference,
 * lock or list move that protected X, or the release that did not.  A
 * span that ends at or after the beginning of any loss window is
 * therefore marked unreliable; every output that shows spans says so.
 */
#ifndef VIEWER_UNPROT_H
#define VIEWER_UNPROT_H

#include <stdbool.h>
#include <stdint.h>

#include "viewer/index.h"

struct unprot_span {
	uint64_t from, to; /* event numbers */
	uint32_t obj;      /* the inode (id) */
	uint16_t cpu;
	uint8_t unreliable; /* it ends after events were lost (see above) */
};

struct unprot {
	struct unprot_span *s; /* sorted by from */
	uint32_t n, cap;
	uint64_t longest;    /* the longest span's to - from */
	uint64_t upto;       /* events scanned (the trace may still be loading) */
	uint32_t unreliable; /* spans marked unreliable */
	bool computed;
};

/* The spans of the trace: each call scans on from where the last one
 * stopped (at most a few million events), up to the events indexed. */
const struct unprot *unprot_spans(const struct trace_index *ix);
/* The same, scanning all the events indexed. */
const struct unprot *unprot_spans_all(const struct trace_index *ix);
/*
 * The span cpu is in at event ev (from <= ev < to), or NULL, as a view of
 * events [0, end) knows it (app_set_visible): a span is found at its `to`,
 * so one that ends at or after end is not shown yet.
 */
const struct unprot_span *unprot_at(const struct unprot *u, unsigned cpu, uint64_t ev,
				    uint64_t end);

#endif
