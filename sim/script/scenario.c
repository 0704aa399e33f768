/*
 * scenario.c - reading .scn files (and writing their operations back).
 *
 * The format is line based: '#' starts a comment, words are separated by
 * blanks, and the first word says what a line is (lessons/scenarios/
 * README.md has the whole grammar with examples).  Every error names the
 * file and line and the parser stops there: a scenario either means exactly
 * one thing or is refused.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/num.h"
#include "lib/regfile.h"
#include "lib/xalloc.h"
#include "sim/core/violation.h"
#include "lib/selector.h"
#include "sim/script/scenario.h"

#define MAX_TOKENS 64

struct parser {
	struct scenario *scn;
	int line;
	char *tok[MAX_TOKENS];
	int ntok, pos;
	bool failed;
	bool truncated_line; /* this is the last line and it has no '\n' */
	int last_run_item;   /* index of the last run item, -1 */
};

static const char *const opk_names[NR_OPKS] = {
	[OPK_iget] = "iget",
	[OPK_iget_locked] = "iget-locked",
	[OPK_unlock_new] = "unlock-new",
	[OPK_ilookup] = "ilookup",
	[OPK_igrab] = "igrab",
	[OPK_ihold] = "ihold",
	[OPK_iput] = "iput",
	[OPK_unlink] = "unlink",
	[OPK_mark_dirty] = "mark-dirty",
	[OPK_writeback] = "writeback",
	[OPK_prune] = "prune",
	[OPK_umount] = "umount",
	[OPK_deactivate] = "deactivate",
	[OPK_invalidate] = "invalidate",
	[OPK_create] = "create",
	[OPK_insert_locked] = "insert-locked",
	[OPK_iunique] = "iunique",
	[OPK_lock] = "lock",
	[OPK_unlock] = "unlock",
	[OPK_read_pages] = "read-pages",
	[OPK_write_inode] = "write-inode-now",
	[OPK_shrink] = "shrink",
	[OPK_dontcache] = "dontcache",
	[OPK_insert_locked4] = "insert-locked4",
};

const char *scn_op_name(enum scn_op_kind k)
{
	return (unsigned)k < NR_OPKS ? opk_names[k] : "?";
}

static bool op_takes_inode(enum scn_op_kind k)
{
	return k <= OPK_mark_dirty || k == OPK_create || k == OPK_insert_locked ||
	       k == OPK_read_pages || k == OPK_write_inode || k == OPK_dontcache ||
	       k == OPK_insert_locked4;
}

static bool op_takes_sb(enum scn_op_kind k)
{
	return k >= OPK_umount && k <= OPK_iunique && k != OPK_create;
}

/* ---- errors --------------------------------------------------------------- */

static bool perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return false;
	p->failed = true;
	fprintf(stderr, "%s:%d: ", p->scn->file, p->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (p->truncated_line)
		fprintf(stderr, " (the file ends in the middle of this line: "
				"is it truncated?)");
	fputc('\n', stderr);
	return false;
}

/* ---- tokens ---------------------------------------------------------------- */

static const char *peek(struct parser *p)
{
	return p->pos < p->ntok ? p->tok[p->pos] : NULL;
}

static const char *next(struct parser *p)
{
	return p->pos < p->ntok ? p->tok[p->pos++] : NULL;
}

static bool accept(struct parser *p, const char *word)
{
	const char *t = peek(p);
	if (t && strcmp(t, word) == 0) {
		p->pos++;
		return true;
	}
	return false;
}

static bool need(struct parser *p, const char *what, const char **out)
{
	*out = next(p);
	if (!*out)
		return perr(p, "%s expected at the end of the line", what);
	return true;
}

static bool num_arg(struct parser *p, const char *what, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *t;
	if (!need(p, what, &t))
		return false;
	if (!parse_u64_in(t, lo, hi, out))
		return perr(p, "'%s' is not a valid %s (%llu..%llu)", t, what,
			    (unsigned long long)lo, (unsigned long long)hi);
	return true;
}

static bool done(struct parser *p)
{
	const char *t = peek(p);
	if (t)
		return perr(p, "unexpected '%s'", t);
	return true;
}

/* "cpu3" -> 3; "cpu3:" with colon allowed when colon is set. */
static int cpu_token(const char *t, bool *colon)
{
	uint64_t n;
	char buf[16];
	size_t len;

	if (!t || strncmp(t, "cpu", 3) != 0)
		return -1;
	len = strlen(t + 3);
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, t + 3, len + 1);
	*colon = buf[len - 1] == ':';
	if (*colon)
		buf[len - 1] = 0;
	if (!parse_u64_in(buf, 0, 1000, &n))
		return -1;
	return (int)n;
}

static bool cpu_arg(struct parser *p, int *cpu)
{
	const char *t;
	bool colon;
	if (!need(p, "a CPU (cpu0, cpu1, ...)", &t))
		return false;
	*cpu = cpu_token(t, &colon);
	if (*cpu < 0 || colon)
		return perr(p, "'%s' is not a CPU (cpu0, cpu1, ...)", t);
	if (*cpu >= SCHED_MAX_CPUS)
		return perr(p, "unknown CPU '%s': scenarios have cpu0..cpu%d", t,
			    SCHED_MAX_CPUS - 1);
	return true;
}

/* ---- vocabulary -------------------------------------------------------------- */

/* Lock classes, call sites and i_state flags are named as in every other
 * file of the lab (lib/selector.h). */

/* *out |= the bits lookup() gives name t; an error naming the choices if
 * it gives none. */
static bool add_bits(struct parser *p, const char *t, unsigned (*lookup)(const char *),
		     const char *what, const char *choices, unsigned *out)
{
	unsigned b = lookup(t);
	if (!b)
		return perr(p, "unknown %s '%s' (%s)", what, t, choices);
	*out |= b;
	return true;
}

/* "I_NEW|I_REFERENCED", "0" or "none". */
static bool parse_flags(struct parser *p, const char *t, unsigned *out)
{
	char buf[256];
	*out = 0;
	if (strcmp(t, "0") == 0 || strcmp(t, "none") == 0)
		return true;
	snprintf(buf, sizeof(buf), "%s", t);
	for (char *save, *f = strtok_r(buf, "|", &save); f; f = strtok_r(NULL, "|", &save))
		if (!add_bits(p, f, selector_flag_bits, "i_state flag",
			      "I_NEW, I_FREEING, I_REFERENCED, ...", out))
			return false;
	return true;
}

#define WB_LISTS ((1u << LIST_b_dirty) | (1u << LIST_b_io) | (1u << LIST_b_more_io))

static unsigned list_bits(const char *t)
{
	if (strcmp(t, "wb") == 0)
		return WB_LISTS;
	for (int i = 0; i < NR_INODE_LISTS; i++)
		if (strcmp(t, list_id_name(i)) == 0)
			return 1u << i;
	return 0;
}

static int violation_index(const char *t)
{
	for (int i = 0; i < NR_VIOLATIONS; i++)
		if (strcmp(t, violation_kind_name(i)) == 0)
			return i;
	return -1;
}

static void list_words(char *buf, size_t len, const char *(*name)(int), int n)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", name(i));
}

static const char *violation_name_i(int i)
{
	return violation_kind_name(i);
}

static const char *op_name_i(int i)
{
	return scn_op_name(i);
}

/* ---- inodes ------------------------------------------------------------------- */

static bool is_name(const char *t)
{
	if (!isalpha((unsigned char)t[0]))
		return false;
	for (const char *c = t; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return false;
	return strlen(t) < SCN_NAME;
}

int scn_inode_index(struct scenario *scn, uint32_t sb, uint64_t ino)
{
	for (int i = 0; i < scn->ninodes; i++)
		if (!scn->inodes[i].name[0] && scn->inodes[i].sb == sb && scn->inodes[i].ino == ino)
			return i;
	if (scn->ninodes == SCN_MAX_INODES)
		return -1;
	struct scn_inode *in = &scn->inodes[scn->ninodes];
	in->sb = sb;
	in->ino = ino;
	in->name[0] = 0;
	if (sb + 1 > scn->nsbs)
		scn->nsbs = sb + 1;
	return scn->ninodes++;
}

static int name_index(struct scenario *scn, const char *name)
{
	for (int i = 0; i < scn->ninodes; i++)
		if (strcmp(scn->inodes[i].name, name) == 0)
			return i;
	return -1;
}

/* An inode token and an optional "sb N" after it (anywhere on the line). */
struct inode_tok {
	const char *t;
	uint32_t sb;
	bool have;
};

static bool resolve_inode(struct parser *p, const struct inode_tok *it, bool binding, int *out)
{
	uint64_t ino;
	struct scenario *scn = p->scn;

	if (parse_u64_in(it->t, 1, UINT64_MAX >> 1, &ino)) {
		if (binding)
			return perr(p, "create needs a name for its inode, not a "
				       "number: the number comes from get_next_ino()");
		*out = scn_inode_index(scn, it->sb, ino);
		if (*out < 0)
			return perr(p, "too many inodes (at most %d)", SCN_MAX_INODES);
		return true;
	}
	if (!is_name(it->t))
		return perr(p,
			    "bad inode '%s': an inode is a number, or a name "
			    "given by create",
			    it->t);
	*out = name_index(scn, it->t);
	if (binding) {
		if (*out >= 0)
			return perr(p, "inode name '%s' is already taken", it->t);
		if (scn->ninodes == SCN_MAX_INODES)
			return perr(p, "too many inodes (at most %d)", SCN_MAX_INODES);
		struct scn_inode *in = &scn->inodes[scn->ninodes];
		in->sb = it->sb;
		in->ino = 0;
		snprintf(in->name, sizeof(in->name), "%s", it->t);
		if (it->sb + 1 > scn->nsbs)
			scn->nsbs = it->sb + 1;
		*out = scn->ninodes++;
		return true;
	}
	if (*out < 0)
		return perr(p, "bad inode '%s': no earlier 'create %s' names it", it->t, it->t);
	return true;
}

static bool sb_arg(struct parser *p, uint32_t *sb)
{
	uint64_t n;
	if (!num_arg(p, "superblock number", 0, 15, &n))
		return false;
	*sb = (uint32_t)n;
	if (*sb + 1 > p->scn->nsbs)
		p->scn->nsbs = *sb + 1;
	return true;
}

/* ---- operations ------------------------------------------------------------------ */

static bool parse_op(struct parser *p, struct scn_op *op)
{
	const char *t;
	struct inode_tok it = { 0 };
	int k;

	memset(op, 0, sizeof(*op));
	op->line = p->line;
	op->inode = -1;
	if (!need(p, "an operation", &t))
		return false;
	for (k = 0; k < NR_OPKS; k++)
		if (strcmp(t, opk_names[k]) == 0)
			break;
	if (k == NR_OPKS) {
		char known[400];
		list_words(known, sizeof(known), op_name_i, NR_OPKS);
		return perr(p, "unknown operation '%s' (known: %s)", t, known);
	}
	op->kind = k;
	if (op_takes_inode(op->kind)) {
		if (!need(p, "an inode", &it.t))
			return false;
		it.have = true;
	}
	if (op->kind == OPK_mark_dirty)
		op->flags = I_DIRTY_SYNC;
	if (op->kind == OPK_writeback)
		op->n = 64;
	if (op->kind == OPK_prune)
		op->n = 1000;
	if (op->kind == OPK_read_pages)
		op->n = 1;
	if (op->kind == OPK_shrink)
		op->n = 128; /* SHRINK_BATCH */
	if (op->kind == OPK_lock || op->kind == OPK_unlock) {
		if (!need(p, "a test lock (a or b)", &t))
			return false;
		uint32_t m = selector_class_mask(t);
		if (m == 1u << LC_test_lock_a)
			op->lock = 0;
		else if (m == 1u << LC_test_lock_b)
			op->lock = 1;
		else
			return perr(p,
				    "'%s' is not a test lock: scenarios may "
				    "take a (test_lock_a) and b (test_lock_b)",
				    t);
	}
	while ((t = next(p)) != NULL) {
		uint64_t n;
		if (strcmp(t, "sb") == 0 && (it.have || op_takes_sb(op->kind))) {
			if (!sb_arg(p, &it.sb))
				return false;
			op->sb = it.sb;
		} else if (op->kind == OPK_mark_dirty && strcmp(t, "sync") == 0) {
			op->flags = I_DIRTY_SYNC;
		} else if (op->kind == OPK_mark_dirty && strcmp(t, "datasync") == 0) {
			op->flags = I_DIRTY_SYNC | I_DIRTY_DATASYNC;
		} else if (op->kind == OPK_mark_dirty && strcmp(t, "pages") == 0) {
			op->flags = I_DIRTY_PAGES;
		} else if (op->kind == OPK_mark_dirty && strcmp(t, "time") == 0) {
			op->flags = I_DIRTY_TIME; /* lazytime: only the timestamps */
		} else if ((op->kind == OPK_writeback || op->kind == OPK_prune ||
			    op->kind == OPK_read_pages) &&
			   parse_u64_in(t, 1, 1000000, &n)) {
			op->n = (long)n;
		} else if (op->kind == OPK_shrink && parse_u64_in(t, 0, 1000000, &n)) {
			op->n = (long)n; /* 0: only ask how much there is */
		} else if (op->kind == OPK_shrink && strcmp(t, "nofs") == 0) {
			op->flags = 1; /* GFP_NOFS: no __GFP_FS */
		} else {
			return perr(p, "unexpected '%s' after %s", t, opk_names[op->kind]);
		}
	}
	if (it.have && !resolve_inode(p, &it, op->kind == OPK_create, &op->inode))
		return false;
	return true;
}

static void grow(void **arr, int *cap, int n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 16;
	*arr = xrealloc(*arr, (size_t)*cap * size);
}

void scn_add_op(struct scenario *scn, int cpu, const struct scn_op *op)
{
	struct scn_program *pg = &scn->prog[cpu];
	grow((void **)&pg->ops, &pg->cap, pg->nops, sizeof(*pg->ops));
	pg->ops[pg->nops++] = *op;
	if (cpu + 1 > scn->ncpus)
		scn->ncpus = cpu + 1;
}

static void add_setup(struct scenario *scn, int cpu, const struct scn_op *op)
{
	grow((void **)&scn->setup, &scn->capsetup, scn->nsetup, sizeof(*scn->setup));
	scn->setup[scn->nsetup].cpu = cpu;
	scn->setup[scn->nsetup].op = *op;
	scn->nsetup++;
}

/* Room for one more element at the end of *arr (*n of them), counted in
 * *n: its address, for the caller to fill. */
static void *push(void **arr, int *cap, int *n, size_t size)
{
	grow(arr, cap, *n, size);
	return (char *)*arr + (size_t)(*n)++ * size;
}

static struct scn_item *add_item(struct parser *p, enum scn_item_kind kind)
{
	struct scenario *scn = p->scn;
	struct scn_item *it = push((void **)&scn->items, &scn->capitems, &scn->nitems, sizeof(*it));
	*it = (struct scn_item){ .kind = kind, .line = p->line, .cpu = -1, .expect = -1 };
	return it;
}

static struct scn_expect *add_expect(struct parser *p, enum scn_expect_kind k, const char *text)
{
	struct scenario *scn = p->scn;
	struct scn_expect *e =
		push((void **)&scn->expects, &scn->capexpects, &scn->nexpects, sizeof(*e));
	*e = (struct scn_expect){ .kind = k, .line = p->line, .vkind = -1, .at_end = true };
	snprintf(e->text, sizeof(e->text), "%s", text);
	return e;
}

/* ---- the kinds of line --------------------------------------------------------------- */

/* inode T [sb N] [nlink N] [pages N] [dirty [sync|datasync|pages]] [held cpuN...] [new] */
/* What an inode line of the setup says. */
struct inode_line {
	struct inode_tok it;
	uint64_t nlink, pages;
	unsigned dirty;
	bool held[SCHED_MAX_CPUS], any_held, keep_new;
};

/* The words after "inode N": sb, nlink, dirty, held, new, cached. */
static bool inode_line_words(struct parser *p, struct inode_line *il)
{
	const char *t;

	while ((t = next(p)) != NULL) {
		if (strcmp(t, "sb") == 0) {
			if (!sb_arg(p, &il->it.sb))
				return false;
		} else if (strcmp(t, "nlink") == 0) {
			if (!num_arg(p, "link count", 0, 1000, &il->nlink))
				return false;
		} else if (strcmp(t, "pages") == 0) {
			if (!num_arg(p, "page count", 1, 1000000, &il->pages))
				return false;
		} else if (strcmp(t, "dirty") == 0) {
			il->dirty = I_DIRTY_SYNC;
			if (accept(p, "pages"))
				il->dirty = I_DIRTY_PAGES;
			else if (accept(p, "datasync"))
				il->dirty = I_DIRTY_SYNC | I_DIRTY_DATASYNC;
			else
				accept(p, "sync");
		} else if (strcmp(t, "held") == 0) {
			int cpu;
			do {
				if (!cpu_arg(p, &cpu))
					return false;
				il->held[cpu] = il->any_held = true;
			} while (peek(p) && strncmp(peek(p), "cpu", 3) == 0);
		} else if (strcmp(t, "new") == 0) {
			il->keep_new = true;
		} else if (strcmp(t, "cached") != 0) { /* cached: the default, said out loud */
			return perr(p,
				    "unexpected '%s' in an inode line (sb, "
				    "nlink, pages, dirty, held, new, cached)",
				    t);
		}
	}
	return true;
}

/* Built from real operations: iget it, give it its links and dirt, hand
 * the references to their holders, iput the setup's own. */
static void inode_line_setup(struct parser *p, const struct inode_line *il, int idx)
{
	struct scn_op op = { .line = p->line, .inode = idx, .sb = il->it.sb };
	int first = -1;

	for (int c = 0; c < SCHED_MAX_CPUS; c++) {
		if (!il->held[c])
			continue;
		op.kind = first < 0 ? (il->keep_new ? OPK_iget_locked : OPK_iget) : OPK_iget;
		if (first < 0)
			first = c;
		add_setup(p->scn, c, &op);
	}
	int owner = first; /* -1: the setup holds it until the end */
	if (first < 0) {
		op.kind = OPK_iget;
		add_setup(p->scn, -1, &op);
	}
	if (il->nlink != 1) {
		op.kind = OPK_unlink;
		op.n = (long)il->nlink; /* the player sets the count */
		add_setup(p->scn, owner, &op);
	}
	if (il->pages) {
		op.kind = OPK_read_pages;
		op.n = (long)il->pages;
		add_setup(p->scn, owner, &op);
	}
	if (il->dirty) {
		op.kind = OPK_mark_dirty;
		op.flags = il->dirty;
		op.n = 0;
		add_setup(p->scn, owner, &op);
	}
	if (first < 0) {
		op.kind = OPK_iput;
		add_setup(p->scn, -1, &op);
	}
}

static bool parse_inode_line(struct parser *p)
{
	struct inode_line il = { .nlink = 1 };
	uint64_t n;
	int idx;

	if (!need(p, "an inode number", &il.it.t))
		return false;
	if (!inode_line_words(p, &il))
		return false;
	if (!parse_u64_in(il.it.t, 1, UINT64_MAX >> 1, &n))
		return perr(p, "bad inode '%s': setup inodes are numbers", il.it.t);
	if (!resolve_inode(p, &il.it, false, &idx))
		return false;
	if (il.nlink == 0 && !il.any_held)
		return perr(p, "an unlinked inode nobody holds would be evicted "
			       "at once: add 'held cpuN' or give it links");
	if (il.keep_new && !il.any_held)
		return perr(p, "'new' keeps I_NEW set, so some CPU must hold it "
			       "and later do unlock-new: add 'held cpuN'");
	inode_line_setup(p, &il, idx);
	return true;
}

/*
 * "until SELECTOR": the rest of the line, in the grammar shared with the
 * lessons' moments (lib/selector.h).  A schedule stops on scheduler
 * steps, so a selector that names no step (contended, violation) or
 * qualifies by what a schedule line already says (on cpuN, after step N)
 * is refused here.
 */
static bool parse_pattern(struct parser *p, struct scn_pattern *pat)
{
	struct selector sel;
	char err[300];

	memset(pat, 0, sizeof(*pat));
	if (p->pos >= p->ntok)
		return perr(p, "an event (%s) expected at the end of the line", SELECTOR_VERBS);
	if (!selector_parse(&p->tok[p->pos], p->ntok - p->pos, &sel, err, sizeof(err)))
		return perr(p, "%s", err);
	p->pos = p->ntok;
	if (sel.cpu >= 0 || sel.has_after)
		return perr(p, "'on cpuN' and 'after step N' have no place in a schedule line "
			       "(the line names its CPU and stands in its order)");
	pat->blocked = sel.blocked;
	if (!sel.blocked && sel.sched < 0)
		return perr(p, "'%s' is not a step the scheduler stops at (%s)", sel.verb,
			    "acquire, acquired, release, trylock, trylock-failed, set, clear, add, "
			    "del, move, rotate, ref, nlink, alloc, free, wake, blocked");
	if (sel.sched == SEV_op_begin || sel.sched == SEV_op_end)
		return perr(p, "'%s' cannot end a segment: use 'ops N' to run whole operations",
			    sel.verb);
	pat->kind = sel.sched;
	pat->classes = sel.classes ? sel.classes : 0xffffffffu;
	pat->site = sel.site;
	pat->list = sel.list;
	pat->action = sel.action;
	pat->flag = sel.flags;
	pat->flag_set = sel.flag_set;
	pat->count = sel.has_count ? (long)sel.count : -1;
	pat->times = sel.nth > 0 ? sel.nth : 1;
	if (sel.nth < 0)
		return perr(p, "'last' cannot end a segment: the segment stops at the first match");
	pat->inode = -1;
	if (!sel.inode)
		return true;
	struct inode_tok it = { .t = sel.inode, .sb = sel.has_sb ? sel.sb : 0, .have = true };
	if (sel.has_sb && sel.sb + 1 > p->scn->nsbs)
		p->scn->nsbs = sel.sb + 1;
	return resolve_inode(p, &it, false, &pat->inode);
}

static bool parse_sched_line(struct parser *p, int cpu)
{
	const char *t;
	struct scn_item *it;
	uint64_t n;

	if (!need(p, "until, steps, ops, next or to end", &t))
		return false;
	if (strcmp(t, "until") == 0) {
		it = add_item(p, SI_until);
		if (!parse_pattern(p, &it->pat))
			return false;
	} else if (strcmp(t, "steps") == 0) {
		it = add_item(p, SI_steps);
		if (!num_arg(p, "step count", 1, 10000000, &n) || !done(p))
			return false;
		it->n = n;
	} else if (strcmp(t, "ops") == 0) {
		it = add_item(p, SI_ops);
		if (!num_arg(p, "operation count", 1, 1000000, &n) || !done(p))
			return false;
		it->n = n;
	} else if (strcmp(t, "next") == 0) {
		it = add_item(p, SI_next);
		if (!done(p))
			return false;
	} else if (strcmp(t, "to") == 0) {
		if (!accept(p, "end"))
			return perr(p, "'to' must be followed by 'end'");
		it = add_item(p, SI_end);
		if (!done(p))
			return false;
	} else {
		return perr(p,
			    "unknown schedule step '%s' (until EVENT, steps N, "
			    "ops N, next, to end)",
			    t);
	}
	it->cpu = cpu;
	p->last_run_item = p->scn->nitems - 1;
	return true;
}

static bool parse_inode_expect(struct parser *p, struct scn_expect *e)
{
	struct scn_inode_expect *x = &e->in;
	struct inode_tok it = { 0 };
	const char *t;
	uint64_t n;
	bool any = false;

	x->refs = x->nlink = -1;
	x->dirty = -1;
	if (!need(p, "an inode", &it.t))
		return false;
	while ((t = next(p)) != NULL) {
		any = true;
		if (strcmp(t, "sb") == 0) {
			if (!sb_arg(p, &it.sb))
				return false;
			any = false;
		} else if (strcmp(t, "freed") == 0 || strcmp(t, "gone") == 0) {
			x->want_freed = true;
		} else if (strcmp(t, "present") == 0) {
			x->want_present = true;
		} else if (strcmp(t, "cached") == 0) {
			x->want_cached = true;
		} else if (strcmp(t, "state") == 0) {
			if (!need(p, "i_state flags", &t) || !parse_flags(p, t, &x->state))
				return false;
			x->want_state = true;
		} else if (strcmp(t, "has") == 0 || strcmp(t, "lacks") == 0) {
			bool has = t[0] == 'h';
			unsigned f;
			if (!need(p, "i_state flags", &t) || !parse_flags(p, t, &f))
				return false;
			if (has)
				x->has |= f;
			else
				x->lacks |= f;
		} else if (strcmp(t, "refs") == 0) {
			if (!num_arg(p, "reference count", 0, 1000000, &n))
				return false;
			x->refs = (long)n;
		} else if (strcmp(t, "nlink") == 0) {
			if (!num_arg(p, "link count", 0, 1000000, &n))
				return false;
			x->nlink = (long)n;
		} else if (strcmp(t, "on") == 0 || strcmp(t, "not") == 0) {
			bool neg = t[0] == 'n';
			if (neg && !accept(p, "on"))
				return perr(p, "'not' must be followed by 'on LIST'");
			if (!need(p, "a list", &t))
				return false;
			if (!add_bits(p, t, list_bits, "list",
				      "hash, sb, lru, wb, b_dirty, b_io, b_more_io",
				      neg ? &x->not_on : &x->on))
				return false;
		} else if (strcmp(t, "dirty") == 0) {
			x->dirty = 1;
		} else if (strcmp(t, "clean") == 0) {
			x->dirty = 0;
		} else {
			return perr(p,
				    "unexpected '%s' (freed, present, cached, "
				    "state F, has F, lacks F, refs N, nlink N, on "
				    "LIST, not on LIST, dirty, clean)",
				    t);
		}
	}
	if (!any)
		return perr(p, "say what to expect of the inode (freed, cached, "
			       "state F, refs N, on lru, ...)");
	return resolve_inode(p, &it, false, &x->inode);
}

static bool parse_expect(struct parser *p, const char *text)
{
	const char *t;
	struct scn_expect *e;

	if (!need(p, "violation, no violation, deadlock or inode", &t))
		return false;
	if (strcmp(t, "no") == 0) {
		if (!need(p, "violation or deadlock", &t))
			return false;
		if (strcmp(t, "deadlock") == 0) {
			add_expect(p, EXP_no_deadlock, text);
			return done(p);
		}
		if (strcmp(t, "violation") != 0 && strcmp(t, "violations") != 0)
			return perr(p, "'expect no' takes violation or deadlock");
		e = add_expect(p, EXP_no_violation, text);
	} else if (strcmp(t, "violation") == 0) {
		e = add_expect(p, EXP_violation, text);
	} else if (strcmp(t, "deadlock") == 0) {
		add_expect(p, EXP_deadlock, text);
		return done(p);
	} else if (strcmp(t, "inode") == 0) {
		e = add_expect(p, EXP_inode, text);
		if (!parse_inode_expect(p, e))
			return false;
		/* Checked where it stands; parse_text moves the ones after
		 * the last schedule line to the end of the run. */
		struct scn_item *it = add_item(p, SI_check);
		it->expect = p->scn->nexpects - 1;
		e->at_end = false;
		return true;
	} else {
		return perr(p,
			    "unknown expectation '%s' (violation KIND, no "
			    "violation, deadlock, no deadlock, inode N ...)",
			    t);
	}
	if ((t = next(p)) != NULL) {
		e->vkind = violation_index(t);
		if (e->vkind < 0) {
			char known[400];
			list_words(known, sizeof(known), violation_name_i, NR_VIOLATIONS);
			return perr(p, "unknown violation kind '%s' (known: %s)", t, known);
		}
	} else if (e->kind == EXP_violation) {
		return perr(p, "which violation? (e.g. expect violation "
			       "freed_on_list)");
	}
	return done(p);
}

/* Rest of the line after the first word, as written. */
static void rest_text(const char *line, char *buf, size_t len)
{
	const char *s = line;
	while (*s && isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s))
		s++;
	while (*s && isspace((unsigned char)*s))
		s++;
	snprintf(buf, len, "%s", s);
	size_t n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
}

/*
 * Cut the comment, keep the trimmed line in text (for say, title and the
 * schedule's echo) and split raw into p's words.  Returns -1 on an error
 * (reported), 0 for a line with no words, 1 otherwise.
 */
static int split_words(struct parser *p, char *raw, char *text, size_t len)
{
	char *save, *hash = strchr(raw, '#');

	if (hash)
		*hash = 0;
	snprintf(text, len, "%s", raw);
	size_t n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		text[--n] = 0;
	p->ntok = 0;
	p->pos = 0;
	for (char *w = strtok_r(raw, " \t\r\f\v", &save); w;
	     w = strtok_r(NULL, " \t\r\f\v", &save)) {
		if (p->ntok == MAX_TOKENS) {
			perr(p, "line too long (more than %d words)", MAX_TOKENS);
			return -1;
		}
		p->tok[p->ntok++] = w;
	}
	for (int i = 0; i < p->ntok; i++)
		for (const char *c = p->tok[i]; *c; c++)
			if (!isprint((unsigned char)*c)) {
				perr(p, "unexpected byte 0x%02x: is this a scenario file?",
				     (unsigned char)*c);
				return -1;
			}
	return p->ntok > 0;
}

/* scheme NAME */
static bool parse_scheme_line(struct parser *p)
{
	const char *t;

	if (!need(p, "a scheme name", &t))
		return false;
	p->scn->scheme = scheme_find(t);
	if (!p->scn->scheme)
		return perr(p,
			    "unknown scheme '%s' (try `icache-sim "
			    "schemes`)",
			    t);
	return done(p);
}

/* variant NAME: a test variant of the scheme, to show what a lock is for
 * by running without it. */
static bool parse_variant_line(struct parser *p)
{
	const char *t;

	if (!need(p, "a variant name", &t))
		return false;
	if (strcmp(t, "no-iprune-sem") != 0)
		return perr(p,
			    "unknown variant '%s' (there is "
			    "no-iprune-sem)",
			    t);
	p->scn->no_iprune_sem = true;
	return done(p);
}

/* vfs-cache-pressure N: the sysctl shrink_icache_memory scales by. */
static bool parse_pressure_line(struct parser *p)
{
	uint64_t n;

	if (!num_arg(p, "vfs_cache_pressure", 0, 100000, &n))
		return false;
	p->scn->vfs_cache_pressure = (long)n;
	p->scn->has_pressure = true;
	return done(p);
}

/* setup: OP, or setup cpuN: OP (the setup's operation owned by cpuN). */
static bool parse_setup_line(struct parser *p, const char *t)
{
	struct scn_op op;
	bool colon;
	int owner = -1;

	if (strcmp(t, "setup") == 0) {
		const char *c = next(p);
		owner = c ? cpu_token(c, &colon) : -1;
		if (owner < 0 || !colon)
			return perr(p, "'setup' must be followed by ':' or "
				       "'cpuN:'");
		if (owner >= SCHED_MAX_CPUS)
			return perr(p, "unknown CPU '%s'", c);
	}
	if (!parse_op(p, &op))
		return false;
	add_setup(p->scn, owner, &op);
	return true;
}

/* cpuN: OP (its program), or cpuN until/steps/ops/to end (the schedule). */
static bool parse_cpu_line(struct parser *p, const char *t, const char *body)
{
	struct scenario *scn = p->scn;
	bool colon;
	int cpu = cpu_token(t, &colon);

	if (cpu < 0)
		return perr(p,
			    "unknown line '%s' (scheme, title, inode, setup:, "
			    "cpuN: OP, cpuN until/steps/ops/to end, say, expect)",
			    t);
	if (cpu >= SCHED_MAX_CPUS)
		return perr(p, "unknown CPU '%s': scenarios have cpu0..cpu%d", t,
			    SCHED_MAX_CPUS - 1);
	if (colon) {
		struct scn_op op;
		if (!parse_op(p, &op))
			return false;
		if (p->last_run_item >= 0)
			return perr(p, "program lines (cpuN: OP) come before the "
				       "schedule");
		scn_add_op(scn, cpu, &op);
		return true;
	}
	if (!parse_sched_line(p, cpu))
		return false;
	snprintf(scn->items[scn->nitems - 1].text, sizeof(scn->items[0].text), "%s", body);
	return true;
}

static bool parse_line(struct parser *p, char *raw)
{
	struct scenario *scn = p->scn;
	char text[512];
	int words = split_words(p, raw, text, sizeof(text));

	if (words <= 0)
		return words == 0;
	const char *t = next(p);
	const char *body = text;
	while (isspace((unsigned char)*body))
		body++;

	if (strcmp(t, "scheme") == 0)
		return parse_scheme_line(p);
	if (strcmp(t, "variant") == 0)
		return parse_variant_line(p);
	if (strcmp(t, "vfs-cache-pressure") == 0)
		return parse_pressure_line(p);
	if (strcmp(t, "title") == 0) {
		rest_text(text, scn->title, sizeof(scn->title));
		return true;
	}
	if (strcmp(t, "say") == 0) {
		struct scn_item *it = add_item(p, SI_say);
		rest_text(text, it->text, sizeof(it->text));
		return true;
	}
	if (strcmp(t, "inode") == 0)
		return parse_inode_line(p);
	if (strcmp(t, "expect") == 0)
		return parse_expect(p, body);
	if (strcmp(t, "setup:") == 0 || strcmp(t, "setup") == 0)
		return parse_setup_line(p, t);
	return parse_cpu_line(p, t, body);
}

/* Checks that need the whole file. */
static bool check_whole(struct parser *p)
{
	struct scenario *scn = p->scn;

	p->line = scn->last_line ? scn->last_line : 1;
	if (!scn->scheme) {
		p->line = 1;
		return perr(p, "no 'scheme NAME' line");
	}
	if (scn->ncpus == 0)
		return perr(p, "no CPU programs ('cpu0: iget 42' and so on)");
	for (int i = 0; i < scn->nitems; i++) {
		const struct scn_item *it = &scn->items[i];
		if (it->cpu >= 0 && (it->cpu >= scn->ncpus || scn->prog[it->cpu].nops == 0)) {
			p->line = it->line;
			return perr(p,
				    "unknown CPU 'cpu%d': it has no program "
				    "(no 'cpu%d: ...' lines)",
				    it->cpu, it->cpu);
		}
	}
	for (int i = 0; i < scn->nsetup; i++) {
		int c = scn->setup[i].cpu;
		if (c >= 0 && (c >= scn->ncpus || scn->prog[c].nops == 0)) {
			p->line = scn->setup[i].op.line;
			return perr(p,
				    "unknown CPU 'cpu%d': it has no program "
				    "to use what setup gives it",
				    c);
		}
	}
	bool any_end = false;
	for (int i = 0; i < scn->nexpects; i++)
		any_end |= scn->expects[i].at_end || scn->expects[i].kind == EXP_inode;
	if (!any_end) {
		p->line = scn->last_line ? scn->last_line : 1;
		return perr(p, "no 'expect' line: a scenario says what it expects "
			       "(is the file truncated?)");
	}
	if (scn->nsbs == 0)
		scn->nsbs = 1;
	return true;
}

/* Inode checks after the last run item are about the end of the run. */
static void move_trailing_checks(struct parser *p)
{
	struct scenario *scn = p->scn;
	int keep = p->last_run_item + 1;

	for (int i = keep; i < scn->nitems; i++)
		if (scn->items[i].kind == SI_check)
			scn->expects[scn->items[i].expect].at_end = true;
	int w = keep;
	for (int i = keep; i < scn->nitems; i++)
		if (scn->items[i].kind != SI_check)
			scn->items[w++] = scn->items[i];
	scn->nitems = w;
}

struct scenario *scenario_parse(const char *name, const char *text, size_t len)
{
	struct scenario *scn = xcalloc(1, sizeof(*scn));
	struct parser p = { .scn = scn, .last_run_item = -1 };
	size_t off = 0;

	snprintf(scn->file, sizeof(scn->file), "%s", name);
	if (len == 0) {
		p.line = 1;
		perr(&p, "empty scenario");
		scenario_free(scn);
		return NULL;
	}
	while (off < len && !p.failed) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		char *line = xmalloc(n + 1);
		memcpy(line, text + off, n);
		line[n] = 0;
		if (memchr(text + off, 0, n))
			line[strlen(line)] = '\x01'; /* caught as a bad byte */
		p.line++;
		p.truncated_line = !nl;
		scn->last_line = p.line;
		parse_line(&p, line);
		free(line);
		off += n + (nl ? 1 : 0);
	}
	p.truncated_line = false;
	if (!p.failed) {
		move_trailing_checks(&p);
		check_whole(&p);
	}
	if (p.failed) {
		scenario_free(scn);
		return NULL;
	}
	return scn;
}

struct scenario *scenario_load(const char *path)
{
	char err[160];
	long line;
	size_t len;
	char *buf = read_text_file(path, &len, &line, err, sizeof(err));
	if (!buf) {
		if (line)
			fprintf(stderr, "%s:%ld: %s\n", path, line, err);
		else
			fprintf(stderr, "%s: %s\n", path, err);
		return NULL;
	}
	struct scenario *scn = scenario_parse(path, buf, len);
	free(buf);
	return scn;
}

void scenario_free(struct scenario *scn)
{
	if (!scn)
		return;
	for (int i = 0; i < SCHED_MAX_CPUS; i++)
		free(scn->prog[i].ops);
	free(scn->setup);
	free(scn->items);
	free(scn->expects);
	free(scn);
}

/* ---- writing operations back ---------------------------------------------------------- */

static void inode_word(const struct scenario *scn, int idx, char *buf, size_t len)
{
	const struct scn_inode *in = &scn->inodes[idx];
	if (in->name[0])
		snprintf(buf, len, "%s", in->name);
	else if (in->sb)
		snprintf(buf, len, "%llu sb %u", (unsigned long long)in->ino, in->sb);
	else
		snprintf(buf, len, "%llu", (unsigned long long)in->ino);
}

void scn_op_text(const struct scenario *scn, const struct scn_op *op, char *buf, size_t len)
{
	char in[64] = "";
	const char *name = scn_op_name(op->kind);

	if (op->inode >= 0)
		inode_word(scn, op->inode, in, sizeof(in));
	switch (op->kind) {
	case OPK_mark_dirty:
		snprintf(buf, len, "%s %s %s", name, in,
			 op->flags == I_DIRTY_PAGES   ? "pages" :
			 op->flags == I_DIRTY_TIME    ? "time" :
			 op->flags & I_DIRTY_DATASYNC ? "datasync" :
							"sync");
		break;
	case OPK_writeback:
	case OPK_prune:
		snprintf(buf, len, "%s %ld", name, op->n);
		break;
	case OPK_read_pages:
		snprintf(buf, len, "%s %s %ld", name, in, op->n);
		break;
	case OPK_shrink:
		snprintf(buf, len, "%s %ld%s", name, op->n, op->flags ? " nofs" : "");
		break;
	case OPK_umount:
	case OPK_deactivate:
	case OPK_invalidate:
	case OPK_iunique:
		snprintf(buf, len, "%s sb %u", name, op->sb);
		break;
	case OPK_lock:
	case OPK_unlock:
		snprintf(buf, len, "%s %s", name, op->lock ? "b" : "a");
		break;
	default:
		snprintf(buf, len, "%s %s", name, in);
	}
}

void scn_write_op(FILE *f, const struct scenario *scn, const struct scn_op *op)
{
	char buf[128];
	scn_op_text(scn, op, buf, sizeof(buf));
	fputs(buf, f);
}
