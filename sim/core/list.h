/*
 * list.h - intrusive doubly linked lists, after the kernel's list.h.
 *
 * A struct list_head lives inside the object it links; container_of()
 * turns a link back into its object.  An unlinked node points at itself,
 * so list_empty(&node) tells whether an object is on a list.  These are
 * the only list primitives in the simulator: nothing else open-codes a
 * list walk.  None of them locks: the caller holds whatever lock the
 * scheme says protects the list.
 */
#ifndef SIM_LIST_H
#define SIM_LIST_H

#include <stddef.h>
#include <stdbool.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/*
 * The virtual mode's --list-lines and --lines (sim/engine/vrun.c) are told
 * every link a list operation writes: the node, its neighbours, the head.
 * NULL in every other mode, where a link costs a load and a predicted
 * branch.
 */
extern void (*sim_list_line)(const void *link);
/* hook(arg) when the hook is set (the virtual mode only, so rarely). */
#define SIM_HOOK(hook, arg)                              \
	do {                                             \
		if (__builtin_expect((hook) != NULL, 0)) \
			(hook)(arg);                     \
	} while (0)
#define LIST_LINE(link) SIM_HOOK(sim_list_line, link)
/*
 * LIST_LINE is a link the operation reads before it writes (the node it
 * unlinks, the head it adds at: its CPU waits for the line); LIST_STORE
 * one it only stores to (a neighbour found through that link, the new
 * node), whose line may still be on its way while the CPU goes on.
 */
extern void (*sim_list_store)(const void *link);
#define LIST_STORE(link) SIM_HOOK(sim_list_store, link)

/*
 * The same for every other write of shared data the core makes (--lines):
 * an inode's i_state, i_count and other fields, the shared counters, a
 * lock's bookkeeping.  SIM_LINE(&field) before the store; vrun charges a
 * cache-line transfer when another simulated CPU wrote that line last.
 * A write only the writing CPU ever makes (its per-CPU counters) needs
 * none.
 */
extern void (*sim_line_write)(const void *addr);
#define SIM_LINE(addr) SIM_HOOK(sim_line_write, addr)

/*
 * The same for a locked read-modify-write (x86's lock-prefixed xadd,
 * xchg, cmpxchg: taking a lock, an atomic_t): unlike a plain store it
 * first waits until every earlier store of its CPU is visible, and it
 * waits for its own line.  SIM_LINE_RMW(&word) before the operation.
 */
extern void (*sim_line_rmw)(const void *addr);
#define SIM_LINE_RMW(addr) SIM_HOOK(sim_line_rmw, addr)

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void __list_link(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Add n right after head: the "young" end of an LRU. */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	LIST_LINE(head);
	LIST_STORE(n);
	LIST_STORE(head->next);
	__list_link(n, head, head->next);
}

/* Add n right before head: the tail, the end that is reclaimed first. */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	LIST_LINE(head);
	LIST_STORE(n);
	LIST_STORE(head->prev);
	__list_link(n, head->prev, head);
}

/* Unlink n and leave it pointing at itself, so list_empty(n) is true. */
static inline void list_del_init(struct list_head *n)
{
	LIST_LINE(n);
	LIST_STORE(n->prev);
	LIST_STORE(n->next);
	n->next->prev = n->prev;
	n->prev->next = n->next;
	INIT_LIST_HEAD(n);
}

static inline void list_move(struct list_head *n, struct list_head *head)
{
	list_del_init(n);
	list_add(n, head);
}

static inline void list_move_tail(struct list_head *n, struct list_head *head)
{
	list_del_init(n);
	list_add_tail(n, head);
}

/* Move every node of from to the front of to; from ends up empty. */
static inline void list_splice_init(struct list_head *from, struct list_head *to)
{
	if (list_empty(from))
		return;
	struct list_head *first = from->next, *last = from->prev;
	LIST_LINE(from);
	LIST_STORE(first);
	LIST_STORE(last);
	LIST_LINE(to);
	LIST_STORE(to->next);
	first->prev = to;
	last->next = to->next;
	to->next->prev = last;
	to->next = first;
	INIT_LIST_HEAD(from);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)
/* The first entry, or NULL if the list is empty (as in later kernels). */
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))

/* Walk a list; the _safe form allows the current node to be unlinked. */
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

static inline size_t list_count(const struct list_head *head)
{
	size_t n = 0;
	const struct list_head *p;
	for (p = head->next; p != head; p = p->next)
		n++;
	return n;
}

/*
 * hlist: a singly headed list for hash chains (one pointer per bucket).
 * pprev points at whichever pointer points at us, so unhashing needs no
 * walk.  hlist_unhashed(n) is true for a node on no chain.
 */
struct hlist_node {
	struct hlist_node *next, **pprev;
};
struct hlist_head {
	struct hlist_node *first;
};

static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool hlist_unhashed(const struct hlist_node *n)
{
	return n->pprev == NULL;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	LIST_STORE(n);
	LIST_LINE(h);
	if (h->first)
		LIST_STORE(h->first);
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (hlist_unhashed(n))
		return;
	LIST_LINE(n);
	LIST_STORE(n->pprev);
	if (n->next)
		LIST_STORE(n->next);
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	INIT_HLIST_NODE(n);
}

#define hlist_for_each(pos, head) for (pos = (head)->first; pos; pos = pos->next)

/*
 * The _rcu variants (include/linux/rculist.h): for lists that some readers
 * walk without the list's lock, under rcu_read_lock() (sim/core/rcu.h).
 * Writers still hold the list's lock.  An added node is published only
 * once its own pointers are set (a release store); a removed node keeps
 * its ->next, so a reader standing on it walks on into the list; its
 * memory must then outlive every reader (call_rcu).  Readers load the
 * links with rcu_next() (an acquire load, for the kernel's
 * rcu_dereference).  The links that readers follow are written only with
 * atomic stores, so the race is one the compiler and ThreadSanitizer know.
 */
#define rcu_next(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_set_next(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	LIST_STORE(n);
	LIST_LINE(h);
	if (first)
		LIST_STORE(first);
	rcu_set_next(n->next, first);
	n->pprev = &h->first;
	rcu_set_next(h->first, n);
	if (first)
		first->pprev = &n->next;
}

/* Off its chain, ->next left for readers; hlist_unhashed() is then true. */
static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (hlist_unhashed(n))
		return;
	struct hlist_node *next = n->next;
	LIST_LINE(n);
	LIST_STORE(n->pprev);
	if (next)
		LIST_STORE(next);
	rcu_set_next(*n->pprev, next);
	if (next)
		next->pprev = n->pprev;
	n->pprev = NULL;
}

#define hlist_for_each_rcu(pos, head) \
	for (pos = rcu_next((head)->first); pos; pos = rcu_next(pos->next))

static inline void list_add_rcu(struct list_head *n, struct list_head *head)
{
	struct list_head *next = head->next;

	LIST_STORE(n);
	LIST_LINE(head);
	LIST_STORE(next);
	rcu_set_next(n->next, next);
	n->prev = head;
	rcu_set_next(head->next, n);
	next->prev = n;
}

/*
 * Off its list, ->next left for readers.  ->prev becomes NULL, which is
 * what list_on_rcu() asks: such a node is on no list, although
 * list_empty() (->next == itself) says otherwise.
 */
static inline void list_del_rcu(struct list_head *n)
{
	struct list_head *next = n->next;

	LIST_LINE(n);
	LIST_STORE(n->prev);
	LIST_STORE(next);
	rcu_set_next(n->prev->next, next);
	next->prev = n->prev;
	n->prev = NULL;
}

/* Is n on a list (added with list_add_rcu, not yet list_del_rcu'd)? */
static inline bool list_on_rcu(const struct list_head *n)
{
	return n->prev != NULL && n->next != n;
}

#define list_for_each_rcu(pos, head) \
	for (pos = rcu_next((head)->next); pos != (head); pos = rcu_next(pos->next))

#endif /* SIM_LIST_H */
