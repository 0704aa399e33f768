/*
 * scenario.h - scripted interleavings: the .scn format and its player.
 *
 * A scenario names a scheme, builds an initial cache with real operations,
 * gives each simulated CPU a small program, says in which order the CPUs
 * run (segment by segment, down to a single lock operation) and what must
 * be true afterwards.  lessons/scenarios/README.md documents the format
 * for teachers; this header is the parsed form, shared by the parser
 * (scenario.c), the player (play.c) and the explorer (explore.c), which
 * writes what it found as a scenario the player replays exactly.
 */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/scheme.h"
#include "sim/script/sched.h"

#define SCN_MAX_INODES 256
#define SCN_NAME 32

/* An inode the scenario talks about: (sb, number), or a name from create. */
struct scn_inode {
	uint32_t sb;
	uint64_t ino;        /* 0 for a named one until created */
	char name[SCN_NAME]; /* "" unless bound by create */
};

enum scn_op_kind {
	OPK_iget,        /* iget_locked, then unlock_new_inode if new */
	OPK_iget_locked, /* iget_locked only: I_NEW stays set */
	OPK_unlock_new,
	OPK_ilookup,
	OPK_igrab,
	OPK_ihold,
	OPK_iput,
	OPK_unlink,
	OPK_mark_dirty,
	OPK_writeback,
	OPK_prune,
	OPK_umount,     /* generic_shutdown_super: evict_inodes, busy check */
	OPK_deactivate, /* clear MS_ACTIVE */
	OPK_invalidate, /* invalidate_inodes(sb, 0): returns busy */
	OPK_create,     /* new_inode + insert_inode_hash, named */
	OPK_iunique,
	OPK_lock, /* test_lock_a / test_lock_b */
	OPK_unlock,
	OPK_insert_locked,  /* new_inode(INO) + insert_inode_locked */
	OPK_read_pages,     /* read N pages of a held inode into its page cache */
	OPK_write_inode,    /* write_inode_now(inode, 1): WB_SYNC_ALL */
	OPK_shrink,         /* shrink_icache_memory(N, GFP_KERNEL or GFP_NOFS) */
	OPK_dontcache,      /* d_mark_dontcache on a held inode (modern) */
	OPK_insert_locked4, /* new_inode(INO) + insert_inode_locked4 (modern) */
	NR_OPKS
};

struct scn_op {
	enum scn_op_kind kind;
	int line;
	int inode;      /* index in scn->inodes, or -1 */
	uint32_t sb;    /* for ops on a superblock */
	long n;         /* writeback / prune count */
	unsigned flags; /* mark-dirty flags */
	int lock;       /* OPK_lock: 0 = a, 1 = b */
};

struct scn_program {
	struct scn_op *ops;
	int nops, cap;
};

/* Which steps an "until" waits for.  -1 (or 0 masks) means "any". */
struct scn_pattern {
	enum sched_event_kind kind;
	uint32_t classes; /* bit per lock class */
	int site;
	int inode;        /* index in scn->inodes */
	int list, action; /* -1 any */
	unsigned flag;    /* set / clear: these i_state bits */
	bool flag_set;    /* set: they become set; clear: cleared */
	long count;       /* ref, nlink: new count, -1 any */
	long times;       /* the n-th match (default 1) */
	bool blocked;     /* "until blocked": parks on a lock or inode */
};

/* What must hold about one inode. */
struct scn_inode_expect {
	int inode;
	bool want_freed, want_present, want_cached;
	bool want_state;
	unsigned state;
	unsigned has, lacks;
	long refs, nlink;    /* -1: not checked */
	unsigned on, not_on; /* bit per enum inode_list_id; wb = 3 bits */
	int dirty;           /* -1 not checked, 0 clean, 1 dirty */
};

enum scn_expect_kind {
	EXP_violation,
	EXP_no_violation,
	EXP_deadlock,
	EXP_no_deadlock,
	EXP_inode,
};

struct scn_expect {
	enum scn_expect_kind kind;
	int line;
	int vkind; /* violation kind, -1 any */
	struct scn_inode_expect in;
	bool at_end;    /* checked when the run is over */
	char text[160]; /* the line as written, for the report */
};

enum scn_item_kind {
	SI_until,
	SI_steps,
	SI_ops,
	SI_end,
	SI_check,
	SI_say,
	SI_next, /* "cpuN next": to its next step that matters (play.c) */
};

/* One line of the schedule, in file order. */
struct scn_item {
	enum scn_item_kind kind;
	int line;
	int cpu;
	uint64_t n;
	struct scn_pattern pat;
	int expect;     /* SI_check: index in scn->expects */
	char text[200]; /* SI_say, or the line as written */
};

struct scn_setup {
	int cpu; /* whose reference it becomes; -1: setup's */
	struct scn_op op;
};

struct scenario {
	char file[256];
	char title[200];
	const struct scheme *scheme;
	bool no_iprune_sem;      /* "variant no-iprune-sem": the lock is off */
	long vfs_cache_pressure; /* "vfs-cache-pressure N"; 0 unless said */
	bool has_pressure;
	int ncpus;
	uint32_t nsbs;
	struct scn_inode inodes[SCN_MAX_INODES];
	int ninodes;
	struct scn_setup *setup;
	int nsetup, capsetup;
	struct scn_program prog[SCHED_MAX_CPUS];
	struct scn_item *items;
	int nitems, capitems;
	struct scn_expect *expects; /* the end-of-run ones and the checks */
	int nexpects, capexpects;
	int last_line;
};

/*
 * Parse FILE.  On error print "FILE:LINE: message" to stderr and return
 * NULL (the caller exits 2).
 */
struct scenario *scenario_load(const char *path);
struct scenario *scenario_parse(const char *name, const char *text, size_t len);
void scenario_free(struct scenario *scn);

const char *scn_op_name(enum scn_op_kind k);
/* "iput 42", "create f1", "prune 100" */
void scn_op_text(const struct scenario *scn, const struct scn_op *op, char *buf, size_t len);
/* Write a program line's operation back in the file's syntax. */
void scn_write_op(FILE *f, const struct scenario *scn, const struct scn_op *op);

/* Add to a scenario being built (the explorer uses these). */
int scn_inode_index(struct scenario *scn, uint32_t sb, uint64_t ino);
void scn_add_op(struct scenario *scn, int cpu, const struct scn_op *op);

/* What a schedule driver (the explorer) tells the player. */
enum drive_result { DRIVE_DONE, DRIVE_STUCK, DRIVE_LIMIT };

struct play_result {
	uint64_t steps;
	bool deadlock;
	uint64_t violations;
};

struct play_opts {
	bool verbose;
	bool json;
	bool log;              /* print the step log */
	bool silent;           /* print nothing at all */
	const char *trace_dir; /* -o: record with LTTng */
	/* Instead of the scenario's schedule, let this run the CPUs (with
	 * sched_run_segment) until all are done or stuck. */
	enum drive_result (*driver)(struct sched *s, void *arg);
	void *driver_arg;
	struct play_result *result; /* filled in if not NULL */
};

/* Run it: 0 expectations hold, 1 they do not, 2 the scenario is wrong. */
int scenario_play(const struct scenario *scn, const struct play_opts *o);

#endif /* SIM_SCENARIO_H */
