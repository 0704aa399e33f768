/*
 * selector.h - ONE grammar for naming an event: "release i_lock in
 * iput_final on cpu0", "second trylock-failed i_lock inode 42".
 *
 * A scenario's schedule line (cpu0 until SELECTOR, sim/script/scenario.c)
 * and a lesson's moment (at: SELECTOR, lessons/src/moment.c) are parsed
 * here, so the two files speak one language:
 *
 *   [ORDINAL] VERB [ARG] [QUALIFIER...]
 *
 *   ORDINAL    first second ... tenth | 1st 2nd 3rd Nth | last
 *   VERB ARG   acquire CLASS | contended CLASS | acquired CLASS |
 *              release CLASS | trylock CLASS (it took the lock) |
 *              trylock-failed CLASS | set FLAG | clear FLAG |
 *              add|del|move|rotate [LIST] | ref [N] | nlink [N] |
 *              alloc | free | wake | begin [OP] | end [OP] |
 *              violation [KIND] | blocked
 *   QUALIFIER  inode N | sb N | in FUNCTION | on cpuN | times N |
 *              after step N
 *
 * Old spellings still accepted (for one release): take, lock -> acquired;
 * unlock -> release; trylock-ok -> trylock; trylock-fail -> trylock-failed;
 * state FLAG -> set FLAG; list ACTION LIST -> ACTION LIST; ref to N ->
 * ref N; of inode N, of N -> inode N.  Each verb names a trace event of
 * the event table (tracepoints/icache_events.h), a scheduler step, or
 * both; and every event of the table can also be named by its own name
 * ("order_rule", "lock_trylock"), so a new event needs no parser change.  Each user says which parts it can match (a
 * trace has no "wake", a schedule has no "contended") and refuses the rest.
 */
#ifndef LIB_SELECTOR_H
#define LIB_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct selector {
	const char *verb; /* the canonical verb */
	int ev;           /* enum icache_event; -1: no trace event */
	int sched;        /* enum sched_event_kind; -1: no schedule step */
	bool blocked;     /* "blocked": parked on a lock or an inode */
	int trylock_ok;   /* -1 any, 0 failed, 1 took the lock */
	uint32_t classes; /* bit per lock class; 0 = any */
	unsigned flags;   /* set / clear: these i_state bits */
	bool flag_set;
	int list, action; /* add/del/move/rotate; -1 any */
	bool has_count;   /* ref N / nlink N */
	int64_t count;
	int op, viol;      /* begin/end OP, violation KIND; -1 any */
	int site, cpu;     /* in FUNCTION, on cpuN; -1 any */
	const char *inode; /* inode N: the word as written (a number or a
				 * scenario's name for an inode); NULL any */
	bool has_sb;
	uint32_t sb;
	int nth; /* ordinal or times N: 1-based; -1 = last */
	bool has_nth;
	bool has_after; /* after step N */
	uint64_t after_step;
};

/*
 * Parse words w[0..n); the words must outlive s (s->inode points into
 * them).  On error: false and a one-line message (no FILE:LINE) in err.
 */
bool selector_parse(char **w, int n, struct selector *s, char *err, size_t len);

/* The trace event (enum icache_event) a verb alone names, whatever its
 * spelling ("unlock" -> lock_release, "order_rule"), or -1. */
int selector_event_word(const char *word);

/* The canonical word of a scheduler step kind: "acquire", "trylock-failed",
 * "begin"...  (the scenario log prints steps with these words). */
const char *selector_sched_word(int sched_kind);

/* Lock classes by name, with the short names a teacher writes (hash_lock,
 * lru_lock, a, b; "hash" = whichever lock guards a hash chain in this
 * era; "any"): a bit mask, 0 if unknown. */
uint32_t selector_class_mask(const char *word);

/* A call site by name ("__wait_on_freeing_inode" = "wait_on_freeing_inode"),
 * or -1. */
int selector_site(const char *word);

/* An i_state flag with or without its "I_" (I_DIRTY = the three dirty
 * bits): its bits, or 0. */
unsigned selector_flag_bits(const char *word);

/* The words the error messages list. */
#define SELECTOR_VERBS                                                                      \
	"acquire, contended, acquired, release, trylock, trylock-failed, set, clear, add, " \
	"del, move, rotate, ref, nlink, alloc, free, wake, begin, end, violation, blocked"

/* A plain decimal number (digits only, as the grammar writes them). */
bool sel_parse_u64(const char *s, uint64_t *v);

#endif /* LIB_SELECTOR_H */
