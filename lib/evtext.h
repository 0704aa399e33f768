/*
 * evtext.h - ONE wording of an event, for every program that shows one.
 *
 * Three styles of the same words:
 *   EVT_LANE     the viewer's lanes: "HOLD i_lock 42", "state 42 NEW>0";
 *   EVT_DETAILS  the viewer's details line and search: "lock_acquired
 *                i_lock inst=42 at iput_final, waited 1.2us";
 *   EVT_STEP     the scripted scheduler's step line, in the words of the
 *                selector grammar (lib/selector.h), which icache-sim play
 *                prints and writes into sched_step events: "cpu0 acquire
 *                i_lock inode 42 in iput_final".
 * Each program describes its event in a struct ev_desc from what it holds
 * (the viewer from its index, the scheduler from a step): names already
 * looked up, numbers as they are; the sentence is made here.
 */
#ifndef LIB_EVTEXT_H
#define LIB_EVTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ev_style { EVT_LANE, EVT_DETAILS, EVT_STEP };

/* A scheduler step that is no trace event: waking an inode's sleepers. */
#define EVD_WAKE (-2)

struct ev_desc {
	int type;         /* enum icache_event, or EVD_WAKE */
	const char *who;  /* EVT_STEP: the thread ("cpu0") */
	const char *verb; /* EVT_STEP: the step's word ("acquire", "rcu_lock") */
	int cls;          /* a lock event's class (enum lock_class) */
	const char *cls_name;
	uint64_t id;           /* a lock's instance, an inode's number */
	int64_t before, after; /* inode_ref, inode_pages: old -> new */
	int64_t sb, nlink, depth, result;
	const char *old_flags, *new_flags; /* inode_state (both), inode_wait (new) */
	const char *site, *list, *action, *op;
	const char *holder; /* who holds the lock (NULL: nobody, or not known) */
	const char *dur;    /* lock_acquired: the time waited; lock_release: held */
	bool ok;            /* lock_trylock: it took the lock; inode_wait_end: woken */
};

/* The event in style st into buf; false (buf untouched) if this style has
 * no wording of it: the caller writes it its own way (the viewer from the
 * event table's fields). */
bool ev_text(const struct ev_desc *d, enum ev_style st, char *buf, size_t len);

/* A lock class as the lanes name it: inode_hash_lock -> hash,
 * inode_sb_list_lock -> sb_list, i_lock stays (into buf). */
const char *ev_class_short(const char *name, char *buf, size_t len);

/* A lock as a step names it: "i_lock inode 42", "hash_bucket 7",
 * "inode_sb_list_lock sb 0" (instance n + 1 is sb n's own list lock). */
void ev_lock_words(int cls, const char *name, uint64_t inst, char *buf, size_t len);

#endif /* LIB_EVTEXT_H */
