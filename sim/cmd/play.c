/*
 * play.c - running a scenario on the deterministic scheduler.
 *
 * The player builds the cache the scenario describes (setup runs real
 * operations, unscheduled, before any CPU starts), starts one thread per
 * CPU, then walks the schedule: each line gives the baton to one CPU with
 * a stop rule.  When the schedule is over, whatever work is left runs to
 * the end, lowest CPU first.  Every step is printed (and traced), then the
 * expectations are checked.
 *
 * Exit status: 0 the expectations hold, 1 they do not (or something
 * nobody expected happened: a violation, a deadlock), 2 the scenario
 * itself is wrong, even if that only shows at run time (an "until" whose
 * event never comes, an iput of a reference the CPU does not hold).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "lib/json.h"
#include "lib/xalloc.h"
#include "sim/cmd/cli.h"
#include "sim/core/trace.h"
#include "sim/core/rcu.h"
#include "sim/cmd/record.h"
#include "sim/core/ctf_writer.h"
#include "sim/core/violation.h"
#include "sim/engine/run.h"
#include "sim/script/scenario.h"

#define SEGMENT_LIMIT 200000 /* steps in one segment: livelock beyond */

struct play {
	const struct scenario *scn;
	const struct play_opts *o;
	FILE *log;                               /* the step log; NULL: none */
	FILE *out;                               /* the verdicts; NULL: none */
	struct sim_cpu cpus[SCHED_MAX_CPUS + 1]; /* + main */
	struct sim_cpu *cpu_ptrs[SCHED_MAX_CPUS + 1];
	char names[SCHED_MAX_CPUS + 1][16];
	struct sched s;
	struct sim_lock test_locks[2];
	/* What each CPU (row ncpus: the setup) holds. */
	int refs[SCHED_MAX_CPUS + 1][SCN_MAX_INODES];
	struct inode *held[SCHED_MAX_CPUS + 1][SCN_MAX_INODES];
	/* The last inode seen under each scenario name, and its number. */
	struct inode *last[SCN_MAX_INODES];
	uint64_t last_gen[SCN_MAX_INODES];
	uint64_t ino[SCN_MAX_INODES];
	int cur_op[SCHED_MAX_CPUS];
	int nviol_seen;
	bool deadlock;
	/* A scenario error found at run time (exit 2). */
	int err_line;
	char err[400];
	/* Expectations. */
	int passed, failed;
	bool *exp_ok;
	/* The expectations in the order they were checked, for --json. */
	int *checked;
	int nchecked, capchecked;
};

static int row_of(const struct play *pl, int cpu)
{
	return cpu < 0 ? pl->scn->ncpus : cpu;
}

/* A line to pl->out (the steps) or pl->log, either of which may be off
 * (NULL). */
static void say_to(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_to(FILE *f, const char *fmt, ...)
{
	va_list ap;
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

static bool fail_op(struct play *pl, const struct scn_op *op, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail_op(struct play *pl, const struct scn_op *op, const char *fmt, ...)
{
	va_list ap;
	pl->err_line = op->line;
	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof(pl->err), fmt, ap);
	va_end(ap);
	return false;
}

/* ---- violations, printed at the step where they appear ------------------- */

static void flush_violations(struct play *pl)
{
	int n = violations_distinct();
	for (; pl->nviol_seen < n; pl->nviol_seen++) {
		const struct violation *v = violation_get(pl->nviol_seen);
		FILE *f = pl->log ? pl->log : pl->out;
		if (!v || !f)
			continue;
		fprintf(f, "!! violation %s:\n", violation_kind_name(v->kind));
		const char *t = v->text;
		while (*t) {
			const char *nl = strchr(t, '\n');
			int len = nl ? (int)(nl - t) : (int)strlen(t);
			fprintf(f, "!!   %.*s\n", len, t);
			t += len + (nl ? 1 : 0);
		}
	}
}

/* ---- operations ---------------------------------------------------------- */

static enum op_kind op_trace_kind(enum scn_op_kind k)
{
	switch (k) {
	case OPK_iget:
	case OPK_iget_locked:
	case OPK_unlock_new:
		return OP_iget;
	case OPK_ilookup:
		return OP_ilookup;
	case OPK_igrab:
	case OPK_ihold:
		return OP_igrab;
	case OPK_iput:
		return OP_iput;
	case OPK_unlink:
		return OP_unlink;
	case OPK_mark_dirty:
		return OP_mark_dirty;
	case OPK_writeback:
		return OP_writeback;
	case OPK_prune:
		return OP_prune;
	case OPK_umount:
	case OPK_deactivate:
	case OPK_invalidate:
		return OP_umount;
	case OPK_create:
	case OPK_insert_locked:
	case OPK_insert_locked4:
		return OP_create;
	case OPK_iunique:
		return OP_iunique;
	case OPK_read_pages:
		return OP_read_pages;
	case OPK_write_inode:
		return OP_write_inode;
	case OPK_shrink:
		return OP_shrink;
	case OPK_dontcache:
		return OP_dontcache;
	default:
		return OP_test;
	}
}

static void remember(struct play *pl, int idx, struct inode *inode)
{
	pl->last[idx] = inode;
	pl->last_gen[idx] = inode->i_generation;
	pl->ino[idx] = inode->i_ino;
}

static void took_ref(struct play *pl, int row, int idx, struct inode *inode)
{
	pl->refs[row][idx]++;
	pl->held[row][idx] = inode;
	remember(pl, idx, inode);
}

static const char *cpu_word(const struct play *pl, int row)
{
	return row == pl->scn->ncpus ? "the setup" : pl->names[row];
}

/* The inode a CPU holds a reference to, or an error. */
static struct inode *need_held(struct play *pl, int row, const struct scn_op *op)
{
	char in[64];
	if (pl->refs[row][op->inode] > 0)
		return pl->held[row][op->inode];
	scn_op_text(pl->scn, op, in, sizeof(in));
	fail_op(pl, op,
		"%s: %s holds no reference to that inode (iget, "
		"ilookup, igrab or create it first)",
		in, cpu_word(pl, row));
	return NULL;
}

/* The operations on an inode the CPU holds a reference to: ihold, iput,
 * unlink (nlink), mark-dirty, dontcache, read-pages, write-inode-now,
 * unlock-new. */
static bool exec_held_op(struct play *pl, int row, const struct scn_op *op, int64_t *result)
{
	const struct scheme *S = pl->scn->scheme;
	struct inode *inode = need_held(pl, row, op);

	if (!inode)
		return false;
	switch (op->kind) {
	case OPK_ihold:
		S->ihold(inode);
		took_ref(pl, row, op->inode, inode);
		return true;
	case OPK_iput:
		pl->refs[row][op->inode]--;
		S->iput(inode);
		return true;
	case OPK_unlink:
		if (op->n > 0) {
			/* Setup's "nlink N": links are not locked state. */
			atomic_store(&inode->i_nlink, (unsigned)op->n);
			trace_inode_nlink(this_cpu, inode->i_ino, inode->i_lock.life,
					  (uint32_t)op->n);
		} else {
			inode_drop_nlink(inode, SITE_unlink);
		}
		return true;
	case OPK_mark_dirty:
		if ((op->flags & I_DIRTY_TIME) && !(S->newer_state & I_DIRTY_TIME))
			return fail_op(pl, op, "mark-dirty time: scheme %s has no I_DIRTY_TIME",
				       S->name);
		S->mark_inode_dirty(inode, op->flags);
		return true;
	case OPK_dontcache:
		if (!S->d_mark_dontcache)
			return fail_op(pl, op, "dontcache: scheme %s has no I_DONTCACHE", S->name);
		S->d_mark_dontcache(inode);
		return true;
	case OPK_read_pages:
		/* A read of the file: pages into its cache, no icache lock. */
		inode_add_pages(inode, op->n, SITE_unknown);
		*result = inode_nrpages(inode);
		return true;
	case OPK_write_inode:
		if (!S->write_inode_now)
			return fail_op(pl, op, "write-inode-now: scheme %s does not model it",
				       S->name);
		S->write_inode_now(inode);
		return true;
	case OPK_unlock_new:
		if (!(inode_state(inode) & I_NEW))
			return fail_op(pl, op,
				       "unlock-new: inode %llu is not "
				       "I_NEW (use iget-locked to keep it new)",
				       (unsigned long long)pl->ino[op->inode]);
		S->unlock_new_inode(inode);
		return true;
	default:
		return false;
	}
}

/*
 * A filesystem's create with its own inode numbers (ext2's new_inode, or
 * through iget5's insert with insert_inode_locked4): -EBUSY means a live
 * inode has the number, and the new one is thrown away (make_bad_inode,
 * iput).
 */
static bool exec_insert_locked(struct play *pl, int row, const struct scn_op *op,
			       struct super_block *sb, uint64_t ino, int64_t *result)
{
	const struct scheme *S = pl->scn->scheme;
	int (*insert)(struct inode *) = S->insert_inode_locked;
	struct inode *inode;

	if (op->kind == OPK_insert_locked4 && !(insert = S->insert_inode_locked4))
		return fail_op(pl, op, "insert-locked4: scheme %s does not model it", S->name);
	inode = S->new_inode(sb, ino);
	*result = insert(inode);
	if (*result == 0) {
		S->unlock_new_inode(inode);
		took_ref(pl, row, op->inode, inode);
	} else {
		S->iput(inode);
	}
	return true;
}

/* One operation on a scenario inode; *result is what the op returns. */
static bool exec_inode_op(struct play *pl, int row, const struct scn_op *op, int64_t *result)
{
	const struct scheme *S = pl->scn->scheme;
	const struct scn_inode *si = &pl->scn->inodes[op->inode];
	struct super_block *sb = &icache.sbs[si->sb];
	uint64_t ino = pl->ino[op->inode];
	struct inode *inode;

	if (!ino && op->kind != OPK_create)
		return fail_op(pl, op, "inode %s has not been created yet", si->name);
	switch (op->kind) {
	case OPK_iget:
	case OPK_iget_locked:
		inode = S->iget_locked(sb, ino);
		if (!inode) { /* modern: still being created (I_CREATING) */
			*result = -ESTALE;
			return true;
		}
		*result = (inode_state(inode) & I_NEW) != 0;
		if (op->kind == OPK_iget && (inode_state(inode) & I_NEW))
			S->unlock_new_inode(inode);
		took_ref(pl, row, op->inode, inode);
		return true;
	case OPK_create:
		inode = S->new_inode(sb, 0);
		S->insert_inode_hash(inode);
		took_ref(pl, row, op->inode, inode);
		*result = (int64_t)inode->i_ino;
		return true;
	case OPK_ilookup:
		inode = S->ilookup(sb, ino);
		*result = inode != NULL;
		if (inode)
			took_ref(pl, row, op->inode, inode);
		return true;
	case OPK_insert_locked:
	case OPK_insert_locked4:
		return exec_insert_locked(pl, row, op, sb, ino, result);
	case OPK_igrab:
		inode = pl->refs[row][op->inode] ? pl->held[row][op->inode] : pl->last[op->inode];
		if (!inode)
			return fail_op(pl, op,
				       "igrab: nobody has seen inode %llu "
				       "yet, so there is no pointer to grab",
				       (unsigned long long)ino);
		inode = S->igrab(inode);
		*result = inode != NULL;
		if (inode)
			took_ref(pl, row, op->inode, inode);
		return true;
	default:
		return exec_held_op(pl, row, op, result);
	}
}

static bool exec_op(struct play *pl, int row, const struct scn_op *op)
{
	const struct scheme *S = pl->scn->scheme;
	struct sim_cpu *c = this_cpu;
	uint64_t ino = op->inode >= 0 ? pl->ino[op->inode] : op->sb;
	int64_t result = 0;
	bool ok = true;

	trace_op_begin(c, op_trace_kind(op->kind), ino);
	switch (op->kind) {
	case OPK_writeback:
		result = S->writeback_inodes(&icache.wb, op->n);
		break;
	case OPK_prune:
		result = S->prune_icache(op->n);
		break;
	case OPK_shrink:
		/* shrink_slab's call: the result is -1 (no __GFP_FS) or
		 * what is left to reclaim. */
		result = shrink_icache_memory(op->n, op->flags ? GFP_NOFS : GFP_KERNEL);
		break;
	case OPK_umount:
		/* evict_inodes, then the "Busy inodes after unmount" check. */
		result = generic_shutdown_super(&icache.sbs[op->sb]);
		break;
	case OPK_deactivate:
		atomic_fetch_and(&icache.sbs[op->sb].s_flags, ~MS_ACTIVE);
		break;
	case OPK_invalidate:
		/* invalidate_inodes(sb, kill_dirty = 0): the result is busy. */
		result = S->invalidate_inodes(&icache.sbs[op->sb], false);
		break;
	case OPK_iunique:
		result = (int64_t)S->iunique(&icache.sbs[op->sb], 1000);
		break;
	case OPK_lock: {
		SITE(test_abba);
		spin_lock(&pl->test_locks[op->lock]);
		break;
	}
	case OPK_unlock: {
		SITE(test_abba);
		spin_unlock(&pl->test_locks[op->lock]);
		break;
	}
	default:
		ok = exec_inode_op(pl, row, op, &result);
	}
	if (op->inode >= 0)
		ino = pl->ino[op->inode];
	if (ok)
		trace_op_end(c, op_trace_kind(op->kind), ino, result);
	return ok;
}

/* ---- the CPUs' side --------------------------------------------------------- */

static void cpu_body(struct sched_cpu *sc, void *arg)
{
	struct play *pl = arg;
	const struct scn_program *pg = &pl->scn->prog[sc->idx];

	for (int i = 0; i < pg->nops; i++) {
		pl->cur_op[sc->idx] = i;
		if (!exec_op(pl, sc->idx, &pg->ops[i]))
			sched_cpu_fail(sc);
	}
	pl->cur_op[sc->idx] = pg->nops;
}

static void op_text(struct sched_cpu *sc, char *buf, size_t len, void *arg)
{
	struct play *pl = arg;
	const struct scn_program *pg = &pl->scn->prog[sc->idx];
	int i = pl->cur_op[sc->idx];
	char t[96];

	if (i < 0 || i >= pg->nops)
		return;
	scn_op_text(pl->scn, &pg->ops[i], t, sizeof(t));
	snprintf(buf, len, "%s (line %d)", t, pg->ops[i].line);
}

static void on_step(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev, void *arg)
{
	struct play *pl = arg;
	char text[256];

	flush_violations(pl);
	if (!pl->log)
		return;
	sched_event_text(s, sc, ev, text, sizeof(text));
	fprintf(pl->log, "step %llu: %s\n", (unsigned long long)s->step, text);
}

static void on_park(struct sched *s, struct sched_cpu *sc, void *arg)
{
	struct play *pl = arg;
	char text[256];

	flush_violations(pl);
	sched_park_text(s, sc, text, sizeof(text));
	say_to(pl->log, "   %s\n", text);
}

/* ---- stop rules ------------------------------------------------------------- */

struct seg {
	struct play *pl;
	const struct scn_item *it;
	uint64_t start_ops;
	long matches;
};

static bool pattern_match(const struct play *pl, const struct scn_pattern *pat,
			  const struct sched_event *ev)
{
	if (pat->blocked || ev->kind != pat->kind)
		return false;
	if (pat->site >= 0 && (int)ev->site != pat->site)
		return false;
	uint64_t want = pat->inode >= 0 ? pl->ino[pat->inode] : 0;
	switch (ev->kind) {
	case SEV_acquire:
	case SEV_acquired:
	case SEV_release:
	case SEV_trylock:
	case SEV_trylock_failed:
		if (!(pat->classes & (1u << ev->lock->cls)))
			return false;
		/* An inode names an i_lock instance; other locks have none. */
		if (pat->inode >= 0 && ev->lock->cls == LC_i_lock && ev->lock->inst != want)
			return false;
		return true;
	case SEV_state: {
		/* set: some of the bits appear; clear: some go */
		uint64_t before = pat->flag_set ? ev->a : ev->b;
		uint64_t after = pat->flag_set ? ev->b : ev->a;
		if (!(after & pat->flag) || (before & pat->flag))
			return false;
		break;
	}
	case SEV_ref:
	case SEV_nlink:
	case SEV_pages:
		if (pat->count >= 0 && ev->b != pat->count)
			return false;
		break;
	case SEV_list:
		if ((pat->list >= 0 && ev->a != pat->list) ||
		    (pat->action >= 0 && ev->b != pat->action))
			return false;
		break;
	default:
		break;
	}
	return pat->inode < 0 || ev->ino == want;
}

/*
 * "cpuN next" stops after a step that matters to the story: a lock taken,
 * dropped or tried, a change of state, count or list, an inode made,
 * freed or woken.  The bookkeeping around them (an operation beginning or
 * ending, the request for a lock that is then taken at once) runs on: the
 * lessons' scheduler levels give one key press to each step that matters.
 * A request that finds the lock held parks the CPU, which ends the
 * segment all the same.  A free's point comes before destroy_inode marks
 * the memory freed (sim/core/icache.c): stopping there would show a free
 * that has not happened, so the segment runs on to the next step.
 */
static bool step_matters(enum sched_event_kind kind)
{
	return kind != SEV_op_begin && kind != SEV_op_end && kind != SEV_acquire &&
	       kind != SEV_free;
}

static bool stop_rule(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev,
		      void *arg)
{
	struct seg *g = arg;

	switch (g->it->kind) {
	case SI_until:
		if (pattern_match(g->pl, &g->it->pat, ev) && ++g->matches >= g->it->pat.times)
			return true;
		return false;
	case SI_steps:
		return s->seg_steps >= g->it->n;
	case SI_next:
		return step_matters(ev->kind);
	case SI_ops:
		return sc->ops_done - g->start_ops >= g->it->n;
	default:
		return false;
	}
}

/* ---- expectations ----------------------------------------------------------- */

static struct inode *find_inode(const struct play *pl, int idx)
{
	const struct scn_inode *si = &pl->scn->inodes[idx];
	struct super_block *sb = &icache.sbs[si->sb];
	uint64_t ino = pl->ino[idx];
	struct inode *inode;
	struct list_head *pos;

	if (!ino)
		return NULL;
	inode = hash_chain_find(inode_hash_bucket(sb, ino), sb, ino);
	if (inode && inode->i_magic == INODE_MAGIC)
		return inode;
	list_for_each(pos, &sb->s_inodes) {
		inode = list_entry(pos, struct inode, i_sb_list);
		if (inode->i_ino == ino)
			return inode;
	}
	/* Off every list but not yet freed: half way through evict. */
	inode = pl->last[idx];
	if (inode && inode->i_magic == INODE_MAGIC && inode->i_generation == pl->last_gen[idx] &&
	    inode->i_ino == ino)
		return inode;
	return NULL;
}

static unsigned lists_of(const struct inode *inode)
{
	unsigned on = 0;
	if (inode_hashed(inode))
		on |= 1u << LIST_hash;
	if (inode_on_sb_list(inode))
		on |= 1u << LIST_sb;
	if (!list_empty(&inode->i_lru) && (int)inode->i_lru_on >= 0)
		on |= 1u << inode->i_lru_on;
	if (inode_on_wb(inode))
		on |= 1u << inode->i_wb_on;
	return on;
}

static void describe_inode(const struct inode *inode, char *buf, size_t len)
{
	char flags[128];
	size_t off;
	unsigned on = lists_of(inode);

	inode_flags_text(inode_state(inode), flags, sizeof(flags));
	off = (size_t)snprintf(buf, len, "state %s, refs %d, nlink %u, on", flags,
			       atomic_load(&inode->i_count), atomic_load(&inode->i_nlink));
	if (!on && off < len)
		off += (size_t)snprintf(buf + off, len - off, " no list");
	for (int i = 0; i < NR_INODE_LISTS && off < len; i++)
		if (on & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, " %s", list_id_name(i));
}

static bool inode_expect_holds(const struct play *pl, const struct scn_inode_expect *x, char *why,
			       size_t len)
{
	struct inode *inode = find_inode(pl, x->inode);

	if (!inode) {
		snprintf(why, len, "no such inode in the cache (freed)");
		return x->want_freed;
	}
	describe_inode(inode, why, len);
	if (x->want_freed)
		return false;
	unsigned st = inode_state(inode);
	int refs = atomic_load(&inode->i_count);
	if (x->want_cached &&
	    (refs != 0 || !inode_hashed(inode) || (st & (I_NEW | I_FREEING | I_WILL_FREE))))
		return false;
	if (x->want_state && st != x->state)
		return false;
	if ((st & x->has) != x->has || (st & x->lacks))
		return false;
	if (x->refs >= 0 && refs != x->refs)
		return false;
	if (x->nlink >= 0 && (long)atomic_load(&inode->i_nlink) != x->nlink)
		return false;
	unsigned on = lists_of(inode);
	if (x->on && !(on & x->on))
		return false;
	if (on & x->not_on)
		return false;
	if (x->dirty >= 0 && !!(st & I_DIRTY) != x->dirty)
		return false;
	return true;
}

static void check_expect(struct play *pl, int i)
{
	const struct scn_expect *e = &pl->scn->expects[i];
	char why[256] = "";
	bool ok = false;
	uint64_t n;

	switch (e->kind) {
	case EXP_violation:
		n = violations_of_kind(e->vkind);
		ok = n > 0;
		snprintf(why, sizeof(why), "%llu reported", (unsigned long long)n);
		break;
	case EXP_no_violation:
		n = e->vkind >= 0 ? violations_of_kind(e->vkind) : violations_total();
		ok = n == 0;
		snprintf(why, sizeof(why), "%llu reported", (unsigned long long)n);
		break;
	case EXP_deadlock:
	case EXP_no_deadlock:
		ok = pl->deadlock == (e->kind == EXP_deadlock);
		snprintf(why, sizeof(why), "%s", pl->deadlock ? "it deadlocked" : "no deadlock");
		break;
	case EXP_inode:
		ok = inode_expect_holds(pl, &e->in, why, sizeof(why));
		break;
	}
	pl->exp_ok[i] = ok;
	if (ok)
		pl->passed++;
	else
		pl->failed++;
	say_to(pl->out, "%s line %d: expect %s  [%s]\n", ok ? "ok  " : "FAIL", e->line,
	       e->text + (strncmp(e->text, "expect ", 7) == 0 ? 7 : 0), why);
	if (pl->nchecked == pl->capchecked) {
		pl->capchecked = pl->capchecked ? 2 * pl->capchecked : 16;
		pl->checked = xreallocarray(pl->checked, (size_t)pl->capchecked, sizeof(int));
	}
	pl->checked[pl->nchecked++] = i;
}

/* A violation kind that happened and that no line expects is a failure. */
static int unexpected_violations(struct play *pl)
{
	int bad = 0;
	for (int k = 0; k < NR_VIOLATIONS; k++) {
		if (!violations_of_kind(k))
			continue;
		bool expected = false;
		for (int i = 0; i < pl->scn->nexpects; i++) {
			const struct scn_expect *e = &pl->scn->expects[i];
			if ((e->kind == EXP_violation && e->vkind == k) ||
			    (e->kind == EXP_deadlock && k == VIOL_deadlock))
				expected = true;
		}
		if (!expected) {
			say_to(pl->out,
			       "FAIL unexpected violation: %s (%llu reported; "
			       "add 'expect violation %s' if it is the point)\n",
			       violation_kind_name(k), (unsigned long long)violations_of_kind(k),
			       violation_kind_name(k));
			bad++;
		}
	}
	return bad;
}

/* ---- the schedule ------------------------------------------------------------ */

enum outcome { GO_ON, STOP_DEADLOCK, STOP_ERROR };

/*
 * The schedule cannot go on.  When every CPU with work left sleeps on an
 * inode, unwoken, and one inode's state changed after its sleeper fell
 * asleep, nobody is left to wake it: the change came without its
 * wake_up_inode(), a missed wakeup (what the free-running watchdog reports
 * after a while, found here exactly).  Anything else is a deadlock.
 */
static enum outcome report_deadlock(struct play *pl, const char *why, int line)
{
	char text[4096];
	char all[4600];
	const struct sched_cpu *sl = sched_missed_wakeup(&pl->s);
	enum violation_kind kind = sl ? VIOL_missed_wakeup : VIOL_deadlock;
	char what[128];

	if (sl)
		snprintf(what, sizeof(what), "missed wakeup: %s sleeps on inode %llu",
			 sl->cpu->name, (unsigned long long)sl->sleep_ino);
	else
		snprintf(what, sizeof(what), "deadlock");
	sched_cpus_text(&pl->s, text, sizeof(text));
	if (line)
		snprintf(all, sizeof(all),
			 "%s: %s (schedule line %d, "
			 "step %llu)\n%s",
			 what, why, line, (unsigned long long)pl->s.step, text);
	else
		snprintf(all, sizeof(all), "%s: %s (step %llu)\n%s", what, why,
			 (unsigned long long)pl->s.step, text);
	report_violation(kind, -1, -1, -1, -1, -1, -1, sl ? sl->sleep_ino : 0, "%s", all);
	flush_violations(pl);
	pl->deadlock = true;
	return STOP_DEADLOCK;
}

static enum outcome runtime_error(struct play *pl, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum outcome runtime_error(struct play *pl, int line, const char *fmt, ...)
{
	va_list ap;
	pl->err_line = line;
	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof(pl->err), fmt, ap);
	va_end(ap);
	return STOP_ERROR;
}

static const char *pattern_words(const struct scn_item *it)
{
	const char *t = strstr(it->text, "until ");
	return t ? t + 6 : it->text;
}

static enum outcome run_item(struct play *pl, const struct scn_item *it)
{
	struct sched *s = &pl->s;
	struct sched_cpu *sc = &s->cpu[it->cpu];
	struct seg g = { pl, it, sc->ops_done, 0 };
	char park[256];

	say_to(pl->log, "-- line %d: %s\n", it->line, it->text);
	if (sc->state == SCPU_DONE) {
		if (it->kind == SI_end) {
			say_to(pl->log, "   %s is already done\n", sc->cpu->name);
			return GO_ON;
		}
		return runtime_error(pl, it->line,
				     "%s has already finished its "
				     "program",
				     sc->cpu->name);
	}
	if (!sched_runnable(s, it->cpu)) {
		sched_park_text(s, sc, park, sizeof(park));
		return report_deadlock(pl, park, it->line);
	}
	enum seg_end end = sched_run_segment(s, it->cpu, stop_rule, &g, SEGMENT_LIMIT);
	flush_violations(pl);
	switch (end) {
	case SEG_STOPPED:
		say_to(pl->log, "   %s stops\n", sc->cpu->name);
		break;
	case SEG_BLOCKED:
	case SEG_SLEEPING:
		break; /* on_park said why */
	case SEG_DONE:
		if (it->kind == SI_until && !it->pat.blocked)
			return runtime_error(pl, it->line,
					     "%s finished its "
					     "program without '%s' happening",
					     sc->cpu->name, pattern_words(it));
		if (it->kind == SI_until)
			return runtime_error(pl, it->line,
					     "%s finished its "
					     "program without blocking",
					     sc->cpu->name);
		if (it->kind == SI_ops)
			return runtime_error(pl, it->line,
					     "%s finished its "
					     "program after %llu of %llu "
					     "operations",
					     sc->cpu->name,
					     (unsigned long long)(sc->ops_done - g.start_ops),
					     (unsigned long long)it->n);
		say_to(pl->log, "   %s is done\n", sc->cpu->name);
		break;
	case SEG_LIMIT: {
		char why[200];
		snprintf(why, sizeof(why),
			 "livelock: %s ran %d steps without "
			 "its segment ending",
			 sc->cpu->name, SEGMENT_LIMIT);
		return report_deadlock(pl, why, it->line);
	}
	case SEG_FAILED:
		return STOP_ERROR;
	}
	if (pl->o->verbose && pl->log) {
		char text[4096];
		sched_cpus_text(s, text, sizeof(text));
		fputs(text, pl->log);
	}
	if (sched_stuck(s))
		return report_deadlock(pl, "every CPU with work left is blocked", it->line);
	return GO_ON;
}

/* After the schedule: the rest runs to the end, lowest CPU first. */
static enum outcome run_rest(struct play *pl)
{
	struct sched *s = &pl->s;
	bool said = false;

	while (!sched_all_done(s)) {
		int next = -1;
		for (int i = 0; i < s->ncpus && next < 0; i++)
			if (sched_runnable(s, i))
				next = i;
		if (next < 0)
			return report_deadlock(pl,
					       "every CPU with work left is "
					       "blocked",
					       0);
		if (!said)
			say_to(pl->log, "-- the schedule is over: the rest runs to the "
					"end\n");
		said = true;
		struct scn_item it = { .kind = SI_end, .cpu = next };
		struct seg g = { pl, &it, 0, 0 };
		enum seg_end end = sched_run_segment(s, next, stop_rule, &g, SEGMENT_LIMIT);
		flush_violations(pl);
		if (end == SEG_FAILED)
			return STOP_ERROR;
		if (end == SEG_LIMIT) {
			char why[200];
			snprintf(why, sizeof(why),
				 "livelock: %s ran %d steps "
				 "without finishing",
				 s->cpu[next].cpu->name, SEGMENT_LIMIT);
			return report_deadlock(pl, why, 0);
		}
		if (end == SEG_DONE)
			say_to(pl->log, "   %s is done\n", s->cpu[next].cpu->name);
	}
	return GO_ON;
}

static enum outcome run_driver(struct play *pl)
{
	switch (pl->o->driver(&pl->s, pl->o->driver_arg)) {
	case DRIVE_STUCK:
		return report_deadlock(pl, "every CPU with work left is blocked", 0);
	case DRIVE_LIMIT:
		return report_deadlock(pl, "livelock: the schedule ran too long", 0);
	default:
		return pl->err_line ? STOP_ERROR : GO_ON;
	}
}

static enum outcome run_schedule(struct play *pl)
{
	const struct scenario *scn = pl->scn;
	enum outcome r = GO_ON;

	if (pl->o->driver)
		return run_driver(pl);
	for (int i = 0; i < scn->nitems && r == GO_ON; i++) {
		const struct scn_item *it = &scn->items[i];
		switch (it->kind) {
		case SI_say:
			say_to(pl->log, "-- %s\n", it->text);
			trace_note(it->text, it->line);
			break;
		case SI_check:
			check_expect(pl, it->expect);
			break;
		default:
			r = run_item(pl, it);
		}
	}
	if (r == GO_ON)
		r = run_rest(pl);
	return r;
}

/* ---- set-up and the whole run ---------------------------------------------- */

static void make_cpus(struct play *pl)
{
	int n = pl->scn->ncpus;
	for (int i = 0; i <= n; i++) {
		struct sim_cpu *c = &pl->cpus[i];
		c->id = i;
		if (i < n)
			snprintf(pl->names[i], sizeof(pl->names[i]), "cpu%d", i);
		else
			snprintf(pl->names[i], sizeof(pl->names[i]), "main");
		c->name = pl->names[i];
		c->rng = 1 + (uint64_t)i;
		atomic_init(&c->waiting_for, NULL);
		pl->cpu_ptrs[i] = c;
	}
}

/*
 * Setup runs on one thread, before any CPU: if it would block on a lock or
 * sleep on an inode, nobody could ever let it go.  These hooks turn that
 * hang into a scenario error at the setup line.
 */
static const struct scenario *setup_scn;
static int setup_line;

static void setup_stuck(const char *why)
{
	fprintf(stderr,
		"%s:%d: setup would %s, and setup runs alone, before "
		"any CPU: nobody could ever let it go\n",
		setup_scn->file, setup_line, why);
	fflush(stdout);
	_exit(2);
}

static void setup_point(const struct sched_event *ev)
{
	(void)ev;
}

static void setup_blocked(struct sim_cpu *c, struct sim_lock *l, enum site site)
{
	setup_stuck("wait for a lock it holds itself");
}

static void setup_wait(struct sim_cpu *c, uint64_t ino, enum site site)
{
	setup_stuck("sleep on an inode (I_NEW?)");
}

static void setup_wake(struct sim_cpu *c, uint64_t ino)
{
}

static const struct sched_hooks setup_hooks = {
	.point = setup_point,
	.blocked = setup_blocked,
	.wait = setup_wait,
	.wake = setup_wake,
};

static bool run_setup(struct play *pl)
{
	const struct scenario *scn = pl->scn;
	bool ok = true;

	setup_scn = scn;
	sim_sched = &setup_hooks;
	for (int i = 0; i < scn->nsetup && ok; i++) {
		const struct scn_setup *st = &scn->setup[i];
		int row = row_of(pl, st->cpu);
		/* A reference built for cpuN is taken as cpuN. */
		this_cpu = &pl->cpus[row];
		setup_line = st->op.line;
		ok = exec_op(pl, row, &st->op);
		this_cpu = &pl->cpus[scn->ncpus];
	}
	sim_sched = NULL;
	return ok;
}

static void print_header(struct play *pl)
{
	const struct scenario *scn = pl->scn;
	say_to(pl->log, "scenario %s%s%s\n", scn->file, scn->title[0] ? ": " : "", scn->title);
	say_to(pl->log, "scheme %s (%s); %d CPU%s\n", scn->scheme->name, scn->scheme->era,
	       scn->ncpus, scn->ncpus == 1 ? "" : "s");
	if (scn->no_iprune_sem)
		say_to(pl->log, "variant no-iprune-sem: iprune_sem is switched "
				"off (a test variant, not the kernel)\n");
	for (int c = 0; c < scn->ncpus; c++) {
		say_to(pl->log, "%s:", pl->names[c]);
		for (int i = 0; i < scn->prog[c].nops; i++) {
			char t[96];
			scn_op_text(scn, &scn->prog[c].ops[i], t, sizeof(t));
			say_to(pl->log, "%s %s", i ? ";" : "", t);
		}
		say_to(pl->log, "\n");
	}
}

static void play_json(struct play *pl, int status)
{
	const struct scenario *scn = pl->scn;
	printf("{\"scenario\":");
	json_str(stdout, scn->file);
	printf(",\"scheme\":\"%s\",\"cpus\":%d,\"steps\":%llu,"
	       "\"deadlock\":%s,\"violations\":{",
	       scn->scheme->name, scn->ncpus, (unsigned long long)pl->s.step,
	       pl->deadlock ? "true" : "false");
	bool first = true;
	for (int k = 0; k < NR_VIOLATIONS; k++) {
		uint64_t n = violations_of_kind(k);
		if (!n)
			continue;
		printf("%s\"%s\":%llu", first ? "" : ",", violation_kind_name(k),
		       (unsigned long long)n);
		first = false;
	}
	printf("},\"expectations\":[");
	for (int c = 0; c < pl->nchecked; c++) {
		const struct scn_expect *e = &scn->expects[pl->checked[c]];
		printf("%s{\"line\":%d,\"ok\":%s,\"text\":", c ? "," : "", e->line,
		       pl->exp_ok[pl->checked[c]] ? "true" : "false");
		json_str(stdout, e->text);
		printf("}");
	}
	/* lock_stat of every CPU and the set-up thread, as the trace has them */
	struct lock_class_stats locks[NR_LOCK_CLASSES] = { 0 };
	lock_stats_sum(pl->cpu_ptrs, scn->ncpus + 1, locks);
	printf("],");
	print_locks_json(stdout, locks);
	printf(",\"passed\":%d,\"failed\":%d,\"status\":%d}\n", pl->passed, pl->failed, status);
}

/* A fresh cache for the scenario, its CPUs, and the run_begin event. */
static struct play *play_setup(const struct scenario *scn, const struct play_opts *o)
{
	struct play *pl = xcalloc(1, sizeof(*pl));

	pl->scn = scn;
	pl->o = o;
	pl->out = o->json || o->silent ? NULL : stdout;
	pl->log = o->silent ? NULL :
		  o->json   ? (o->verbose ? stderr : NULL) :
		  o->log    ? stdout :
			      NULL;
	pl->exp_ok = xcalloc((size_t)scn->nexpects + 1, sizeof(bool));
	for (int i = 0; i < scn->ninodes; i++)
		pl->ino[i] = scn->inodes[i].ino;
	make_cpus(pl);

	struct icache_config cfg = { .nsbs = (int)scn->nsbs,
				     .hash_bits = 6,
				     .workers = scn->ncpus };
	icache_init(scn->scheme, &cfg, pl->cpu_ptrs, scn->ncpus + 1);
	icache.iprune_sem.off = scn->no_iprune_sem;
	if (scn->has_pressure)
		icache.vfs_cache_pressure = scn->vfs_cache_pressure;
	lockdep_reset(scn->scheme->order, scn->scheme->norder);
	violations_reset();
	violations_set_quiet(true);
	sim_lock_init(&pl->test_locks[0], LC_test_lock_a, 0);
	sim_lock_init(&pl->test_locks[1], LC_test_lock_b, 0);
	this_cpu = &pl->cpus[scn->ncpus];
	uint32_t cksum;
	const char *file = scheme_source(scn->scheme, &cksum);
	/* the thread after the CPUs runs the setup lines (and the schedule) */
	trace_run_begin(scn->scheme->name, "scenario", scn->ncpus, 0,
			scheme_order_text(scn->scheme), scn->scheme->order, scn->scheme->norder,
			file, cksum, "setup");
	print_header(pl);
	return pl;
}

/* The setup lines, then the CPUs under the scheduler. */
static enum outcome play_run(struct play *pl)
{
	const struct scenario *scn = pl->scn;

	if (!run_setup(pl))
		return STOP_ERROR;
	flush_violations(pl);
	sched_init(&pl->s, scn->ncpus, pl->cpu_ptrs);
	for (int i = 0; i < scn->ncpus; i++) {
		pl->s.cpu[i].body = cpu_body;
		pl->s.cpu[i].arg = pl;
	}
	pl->s.on_step = on_step;
	pl->s.on_park = on_park;
	pl->s.op_text = op_text;
	pl->s.obs_arg = pl;
	pl->s.trace = true;
	sched_start(&pl->s);
	return run_schedule(pl);
}

/* After the run: the invariants if it finished, the end-of-run
 * expectations, the verdict (0 pass, 1 fail) and run_end. */
static int play_verdict(struct play *pl, enum outcome r)
{
	const struct scenario *scn = pl->scn;

	if (r == GO_ON) {
		sched_finish(&pl->s);
		this_cpu = &pl->cpus[scn->ncpus];
		bool none_held = true;
		for (int c = 0; c <= scn->ncpus; c++)
			for (int i = 0; i < scn->ninodes; i++)
				none_held &= pl->refs[c][i] == 0;
		check_invariants(none_held);
		if (invariants_lru_window() > 0)
			say_to(pl->log, "%s", lru_window_note(invariants_lru_window()));
		flush_violations(pl);
		/* Every inode freed by call_rcu is given back, and traced,
		 * before run_end: the trace is the same at every replay. */
		sim_rcu_barrier();
	} else {
		sched_abandon(&pl->s);
	}
	say_to(pl->log, "-- %llu steps; expectations:\n", (unsigned long long)pl->s.step);
	for (int i = 0; i < scn->nexpects; i++)
		if (scn->expects[i].at_end)
			check_expect(pl, i);
	int bad = unexpected_violations(pl);
	int status = pl->failed || bad ? 1 : 0;
	say_to(pl->out, "%s: %d of %d expectations hold%s\n", status ? "FAILED" : "PASS",
	       pl->passed, pl->passed + pl->failed,
	       bad ? ", and something nobody expected happened" : "");
	/* Every op_end in the trace: the setup's operations and the CPUs'. */
	uint64_t ops = (uint64_t)scn->nsetup;
	for (int i = 0; i < pl->s.ncpus; i++)
		ops += pl->s.cpu[i].ops_done;
	trace_run_end(ops, (uint32_t)violations_total(), 0);
	return status;
}

int scenario_play(const struct scenario *scn, const struct play_opts *o)
{
	struct play *pl = play_setup(scn, o);
	enum outcome r = play_run(pl);
	int status;

	if (r == STOP_ERROR) {
		fprintf(stderr, "%s:%d: %s\n", scn->file, pl->err_line, pl->err);
		if (pl->s.ncpus)
			sched_abandon(&pl->s);
		status = 2;
		goto out;
	}
	status = play_verdict(pl, r);
	if (o->result) {
		o->result->steps = pl->s.step;
		o->result->deadlock = pl->deadlock;
		o->result->violations = violations_total();
	}
	if (o->json)
		play_json(pl, status);
	if (r == GO_ON) {
		this_cpu = NULL;
		icache_destroy();
	}
out:
	fflush(stdout);
	free(pl->exp_ok);
	free(pl->checked);
	/* After a deadlock parked threads still use pl: it stays. */
	if (r == GO_ON)
		free(pl);
	return status;
}

/* ---- recording (-o) ---------------------------------------------------------- */

static int play_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int play_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "icache-sim play: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* -o DIR must be absent or empty; LTTng wants it absolute. */
static int trace_dir(const char *dir, char *abs)
{
	struct stat st;
	char tmp[PATH_MAX];

	if (stat(dir, &st) == 0) {
		DIR *d = S_ISDIR(st.st_mode) ? opendir(dir) : NULL;
		struct dirent *e;
		int entries = 0;
		if (!d)
			return play_fail("-o %s: not a directory", dir);
		while ((e = readdir(d)) != NULL)
			entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		closedir(d);
		if (entries)
			return play_fail("-o %s: directory is not empty", dir);
	} else {
		snprintf(tmp, sizeof(tmp), "%s", dir);
		for (char *p = tmp + 1; *p; p++) {
			if (*p == '/') {
				*p = 0;
				mkdir(tmp, 0755);
				*p = '/';
			}
		}
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return play_fail("-o %s: cannot create: %s", dir, strerror(errno));
	}
	if (!realpath(dir, abs))
		return play_fail("-o %s: %s", dir, strerror(errno));
	return 0;
}

/* --ctf-direct: never, always, or when no session daemon answers. */
enum direct_mode { DIRECT_NO, DIRECT_YES, DIRECT_AUTO };

/*
 * Play writing the trace ourselves (sim/core/ctf_writer.h): no session
 * daemon, no tracer; the same events, read by the viewer the same way.
 */
static int play_direct(struct scenario *scn, struct play_opts *o, const char *abs, bool fallback)
{
	char err[PATH_MAX + 128];
	uint64_t events;

	if (ctfw_open(abs, err, sizeof(err)))
		return play_fail("%s", err);
	int status = scenario_play(scn, o);
	if (ctfw_close(&events, err, sizeof(err)))
		return play_fail("%s", err);
	fprintf(o->json ? stderr : stdout,
		"trace: %s (%llu events, 0 discarded, written directly%s)\n", abs,
		(unsigned long long)events, fallback ? ": no LTTng session daemon answers" : "");
	return status;
}

/*
 * Play with LTTng recording, through record.c's session helpers.  Blocking
 * channels: only one simulated CPU runs at a time, so a writer waiting for
 * buffer space stalls no lock anybody else wants, and no event is lost.
 */
static int play_recorded(struct scenario *scn, struct play_opts *o, enum direct_mode direct,
			 int argc, char **argv)
{
	struct recorder_opts ro = { .blocking = true, .subbuf_size = 256 * 1024, .num_subbuf = 4 };
	struct recorder rec;
	struct trace_counts counts;
	char abs[PATH_MAX];

	if (!o->trace_dir)
		return scenario_play(scn, o);
	if (!ICACHE_TRACE)
		return play_fail("built with TRACE=0: no tracepoints to record");
	if (trace_dir(o->trace_dir, abs))
		return 2;
	if (direct == DIRECT_YES)
		return play_direct(scn, o, abs, false);
	if (direct == DIRECT_AUTO && !recorder_daemon_answers())
		return play_direct(scn, o, abs, true);
	ro.dir = abs;
	/* Main's argv again, for recorder_prepare's re-exec. */
	char **again = xcalloc((size_t)argc + 3, sizeof(*again));
	again[0] = program_invocation_name;
	again[1] = (char *)"play";
	memcpy(again + 2, argv, (size_t)argc * sizeof(*again));
	int status = recorder_prepare(&ro, again);
	free(again);
	if (status)
		return status;
	status = recorder_start(&rec, &ro);
	if (status) {
		recorder_stop_sessiond(&rec);
		return status;
	}
	status = scenario_play(scn, o);
	int rs = recorder_finish(&rec, &ro, &counts);
	recorder_stop_sessiond(&rec);
	if (rs)
		return rs;
	fprintf(o->json ? stderr : stdout, "trace: %s (%llu events, %llu discarded)\n", abs,
		(unsigned long long)counts.events, (unsigned long long)counts.discarded_events);
	if (trace_counts_lossy(&counts)) {
		fprintf(stderr, "icache-sim play: the trace lost events even "
				"with blocking channels\n");
		if (status == 0)
			status = 1;
	}
	return status;
}

/* ---- icache-sim play ------------------------------------------------------- */

static const char play_help[] =
	"usage: icache-sim play FILE [-o TRACE_DIR [--ctf-direct[=auto]]] [--json]\n"
	"                         [--verbose] [--quiet]\n\n"
	"Run a scenario: a scripted interleaving of simulated CPUs under one\n"
	"locking scheme.  Only the scheduled CPU runs, so every run takes the\n"
	"same steps; each step is printed, then the expectations are checked.\n"
	"The format is described in lessons/scenarios/README.md.\n\n"
	"options:\n"
	"  -o DIR      also record the run with LTTng into DIR (blocking\n"
	"              channels: no event is lost), with a sched_step event\n"
	"              per step\n"
	"  --ctf-direct\n"
	"              with -o: write the trace (CTF) ourselves, without\n"
	"              LTTng: no session daemon needed, the same events\n"
	"  --ctf-direct=auto\n"
	"              with -o: through LTTng if a session daemon answers,\n"
	"              else directly (what the lessons use)\n"
	"  --json      print the result as one JSON object (the step log goes\n"
	"              to stderr with --verbose, else nowhere)\n"
	"  --verbose   after each schedule line, show what every CPU holds\n"
	"              and waits for; with --json, keep the log (on stderr)\n"
	"  --quiet     no step log, only the expectations\n\n"
	"exit status: 0 the expectations hold, 1 they do not, 2 a malformed\n"
	"scenario (FILE:LINE: message) or bad usage\n";

int cmd_play(int argc, char **argv)
{
	struct play_opts o = { .log = true };
	struct scenario *scn;
	const char *file = NULL;
	enum direct_mode direct = DIRECT_NO;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(play_help, stdout);
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			o.json = true;
		} else if (strcmp(a, "--verbose") == 0) {
			o.verbose = true;
		} else if (strcmp(a, "--quiet") == 0) {
			o.log = false;
		} else if (strcmp(a, "--ctf-direct") == 0) {
			direct = DIRECT_YES;
		} else if (strcmp(a, "--ctf-direct=auto") == 0) {
			direct = DIRECT_AUTO;
		} else if (strcmp(a, "-o") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "icache-sim play: -o needs a "
						"directory\n");
				return 2;
			}
			o.trace_dir = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr,
				"icache-sim play: unknown option '%s' "
				"(see icache-sim play --help)\n",
				a);
			return 2;
		} else if (file) {
			fprintf(stderr,
				"icache-sim play: one scenario at a time "
				"('%s' and '%s')\n",
				file, a);
			return 2;
		} else {
			file = a;
		}
	}
	if (!file) {
		fprintf(stderr, "icache-sim play: which scenario? (icache-sim "
				"play FILE)\n");
		return 2;
	}
	if (direct != DIRECT_NO && !o.trace_dir) {
		fprintf(stderr, "icache-sim play: --ctf-direct writes the trace of -o DIR: "
				"give -o DIR too\n");
		return 2;
	}
	scn = scenario_load(file);
	if (!scn)
		return 2;
	int status = play_recorded(scn, &o, direct, argc, argv);
	scenario_free(scn);
	return status;
}
