/*
 * explore.c - icache-sim explore: look for a bad interleaving at random.
 *
 * Each try makes small programs for two (or more) CPUs from the workload's
 * mix of operations, on a hot set of two inodes so that the CPUs collide,
 * and runs them on the deterministic scheduler under a randomized schedule.
 * The first try that ends with a violation (or a deadlock) is written out
 * as a scenario: its programs, and its schedule as "cpuN steps K" lines,
 * which `icache-sim play` replays step for step.
 *
 * The default strategy is PCT (Burckhardt et al., ASPLOS 2010): random
 * distinct priorities, always run the highest-priority CPU that can run,
 * and at d-1 random change points demote the running CPU below everyone.
 * A bug of depth d is then found with probability at least 1/(n k^(d-1))
 * per try, n CPUs and k steps.  Change points are drawn among the steps
 * where a preemption can matter (lock releases and the end of operations),
 * which keeps k small; the iput_final race is a depth-2 bug whose window
 * opens at exactly such a step.  A CPU whose trylock failed yields (drops
 * to the bottom), so trylock-and-retry loops cannot starve the lock holder.
 * "--strategy random" picks a runnable CPU uniformly at every step instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/num.h"
#include "lib/xalloc.h"
#include "sim/cmd/cli.h"
#include "sim/core/violation.h"
#include "sim/script/scenario.h"

#define MAX_SEGMENTS 4096
#define TRY_STEP_LIMIT 100000

struct segment {
	int cpu;
	uint64_t steps;
	enum seg_end end;
	char why[120]; /* the step it stopped after, or the block */
};

struct explorer {
	const struct scheme *scheme;
	const char *workload;
	int ncpus, groups, depth;
	bool random_walk;
	uint64_t rng;
	/* The try under way. */
	long prio[SCHED_MAX_CPUS];
	long low;           /* next "yield" priority, going down */
	uint64_t change[4]; /* candidate-step numbers, ascending */
	int nchange, next_change;
	uint64_t candidates; /* candidate steps so far */
	uint64_t k_estimate; /* candidates per try, running max */
	struct segment seg[MAX_SEGMENTS];
	int nseg;
	bool overflow;
	char stop_text[120]; /* the step the segment under way stopped at */
};

static uint64_t rnd(struct explorer *x)
{
	/* splitmix64: small and good enough to draw schedules */
	uint64_t z = (x->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(struct explorer *x, uint64_t n)
{
	return n ? rnd(x) % n : 0;
}

/* ---- programs from a workload ------------------------------------------- */

enum group {
	G_lookup,    /* iget X; iput X */
	G_unlink,    /* iget X; unlink X; iput X */
	G_dirty,     /* iget X; mark-dirty X; iput X */
	G_hold,      /* iget X; ihold X; iput X; iput X */
	G_create,    /* create fN; unlink fN; iput fN */
	G_writeback, /* writeback */
	G_prune,     /* prune */
	G_umount,    /* iget Y sb S; iput Y sb S; umount sb S (S = 1 + cpu) */
	NR_GROUPS
};

struct mix {
	const char *workload;
	int weight[NR_GROUPS];
};

/*
 * What each workload's operations become.  Lookups, unlinks and writeback
 * all end in an iput that may keep an inode cached, which is where the
 * inode-scale-v4 race lives; the mix decides how often they meet.
 */
static const struct mix mixes[] = {
	/*                  lookup unlink dirty hold create wb prune umount */
	{ "lookup", { 6, 0, 0, 2, 0, 0, 0, 0 } },
	{ "create-unlink", { 0, 0, 0, 0, 4, 1, 0, 0 } },
	{ "writeback", { 2, 0, 4, 0, 0, 2, 0, 0 } },
	{ "pressure", { 4, 0, 0, 1, 0, 0, 2, 0 } },
	{ "umount", { 2, 0, 1, 0, 0, 1, 1, 3 } },
	{ "iput-race", { 3, 3, 0, 0, 0, 0, 0, 0 } },
	{ "mixed", { 4, 3, 2, 1, 1, 1, 1, 1 } },
};

static const struct mix *mix_find(const char *name)
{
	for (size_t i = 0; i < sizeof(mixes) / sizeof(mixes[0]); i++)
		if (strcmp(mixes[i].workload, name) == 0)
			return &mixes[i];
	return NULL;
}

static enum group pick_group(struct explorer *x, const struct mix *m)
{
	int total = 0;
	for (int g = 0; g < NR_GROUPS; g++)
		total += m->weight[g];
	int r = (int)below(x, (uint64_t)total);
	for (int g = 0; g < NR_GROUPS; g++) {
		if (r < m->weight[g])
			return g;
		r -= m->weight[g];
	}
	return G_lookup;
}

/* A try's programs before they become a scenario: what shrinking edits. */
#define MAX_PLAN 128

struct plan_item {
	int cpu;
	enum group g;
	uint64_t hot; /* which hot inode: 1 or 2 */
};

struct plan {
	int n;
	struct plan_item item[MAX_PLAN];
};

static void add(struct scenario *scn, int cpu, enum scn_op_kind k, int inode, long n)
{
	struct scn_op op = { .kind = k, .line = 0, .inode = inode, .n = n };
	if (k == OPK_mark_dirty)
		op.flags = I_DIRTY_SYNC;
	scn_add_op(scn, cpu, &op);
}

/* A fresh name for create, bound on sb 0. */
static int new_name(struct scenario *scn, int *serial)
{
	struct scn_inode *in = &scn->inodes[scn->ninodes];
	in->sb = 0;
	in->ino = 0;
	snprintf(in->name, sizeof(in->name), "f%d", ++*serial);
	return scn->ninodes++;
}

/* What a group does between its iget X and iput X (G_lookup: nothing). */
static const struct {
	int n;
	enum scn_op_kind op[2];
} middle_ops[] = {
	[G_unlink] = { 1, { OPK_unlink } },
	[G_dirty] = { 1, { OPK_mark_dirty } },
	[G_hold] = { 2, { OPK_ihold, OPK_iput } },
};

static void add_group(struct scenario *scn, const struct plan_item *pi, int *serial)
{
	int cpu = pi->cpu;
	enum group g = pi->g;
	int X = scn_inode_index(scn, 0, pi->hot);

	switch (g) {
	case G_lookup:
	case G_unlink:
	case G_dirty:
	case G_hold:
		/* iget X, what the group does to it, iput X */
		add(scn, cpu, OPK_iget, X, 0);
		for (int k = 0; k < middle_ops[g].n; k++)
			add(scn, cpu, middle_ops[g].op[k], X, 0);
		add(scn, cpu, OPK_iput, X, 0);
		break;
	case G_create: {
		int f = new_name(scn, serial);
		add(scn, cpu, OPK_create, f, 0);
		add(scn, cpu, OPK_unlink, f, 0);
		add(scn, cpu, OPK_iput, f, 0);
		break;
	}
	case G_writeback:
		add(scn, cpu, OPK_writeback, -1, 8);
		break;
	case G_prune:
		add(scn, cpu, OPK_prune, -1, 4);
		break;
	case G_umount: {
		/* The umount races on a superblock of its own (1 + the CPU), so
		 * the lookups of sb 0 keep an active sb to cache their inodes
		 * in, and no CPU uses a superblock that another one unmounts:
		 * the kernel's mount reference forbids it, and a final iput on a
		 * dying sb would leave an unused inode for the busy-inodes check
		 * to count.  It still races with the shrinker and the flusher. */
		uint32_t sb = 1 + (uint32_t)cpu;
		int Y = scn_inode_index(scn, sb, X == scn_inode_index(scn, 0, 1) ? 1 : 2);
		struct scn_op op = { .kind = OPK_umount, .inode = -1, .sb = sb };
		add(scn, cpu, OPK_iget, Y, 0);
		add(scn, cpu, OPK_iput, Y, 0);
		scn_add_op(scn, cpu, &op);
		break;
	}
	default:
		break;
	}
}

static void plan_random(struct explorer *x, const struct mix *m, struct plan *p)
{
	p->n = 0;
	for (int c = 0; c < x->ncpus; c++)
		for (int i = 0; i < x->groups && p->n < MAX_PLAN; i++) {
			struct plan_item *pi = &p->item[p->n++];
			pi->cpu = c;
			pi->g = pick_group(x, m);
			/* Hot set of two inodes, the first three times as hot. */
			pi->hot = below(x, 4) ? 1 : 2;
		}
}

static struct scenario *plan_build(const struct explorer *x, const struct plan *p)
{
	struct scenario *scn = xcalloc(1, sizeof(*scn));
	int serial = 0;

	snprintf(scn->file, sizeof(scn->file), "explore");
	scn->scheme = x->scheme;
	scn->nsbs = 1;
	/* CPUs are renumbered in order, in case shrinking emptied one. */
	int map[SCHED_MAX_CPUS], n = 0;
	for (int c = 0; c < SCHED_MAX_CPUS; c++)
		map[c] = -1;
	for (int i = 0; i < p->n; i++) {
		struct plan_item pi = p->item[i];
		if (map[pi.cpu] < 0)
			map[pi.cpu] = n++;
		pi.cpu = map[pi.cpu];
		add_group(scn, &pi, &serial);
	}
	return scn;
}

/* ---- the schedule ----------------------------------------------------------- */

static bool candidate(const struct sched_event *ev)
{
	return ev->kind == SEV_release || ev->kind == SEV_op_end;
}

static bool higher_ready(struct sched *s, const struct explorer *x, int me)
{
	for (int i = 0; i < s->ncpus; i++)
		if (i != me && x->prio[i] > x->prio[me] && sched_runnable(s, i))
			return true;
	return false;
}

static bool pct_decide(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev,
		       struct explorer *x)
{
	if (x->random_walk)
		return true; /* one step at a time; the controller picks */
	if (candidate(ev)) {
		x->candidates++;
		if (x->next_change < x->nchange && x->candidates == x->change[x->next_change]) {
			/* The j-th change point: below every initial priority. */
			x->prio[sc->idx] = x->depth - 1 - x->next_change;
			x->next_change++;
			return true;
		}
	}
	if (ev->kind == SEV_trylock_failed) {
		x->prio[sc->idx] = x->low--;
		return true;
	}
	return higher_ready(s, x, sc->idx);
}

static bool pct_stop(struct sched *s, struct sched_cpu *sc, const struct sched_event *ev, void *arg)
{
	struct explorer *x = arg;

	if (!pct_decide(s, sc, ev, x))
		return false;
	/* Say where it stopped, for the scenario file's readers. */
	sched_event_text(s, sc, ev, x->stop_text, sizeof(x->stop_text));
	return true;
}

static int pick_cpu(struct sched *s, struct explorer *x)
{
	int best = -1, n = 0, runnable[SCHED_MAX_CPUS];

	for (int i = 0; i < s->ncpus; i++) {
		if (!sched_runnable(s, i))
			continue;
		runnable[n++] = i;
		if (best < 0 || x->prio[i] > x->prio[best])
			best = i;
	}
	if (x->random_walk && n)
		return runnable[below(x, (uint64_t)n)];
	return best;
}

static void record_segment(struct explorer *x, struct sched *s, int cpu, enum seg_end end)
{
	if (x->nseg == MAX_SEGMENTS) {
		x->overflow = true;
		return;
	}
	struct segment *g = &x->seg[x->nseg++];
	g->cpu = cpu;
	g->steps = s->seg_steps;
	g->end = end;
	g->why[0] = 0;
	if (end == SEG_STOPPED)
		snprintf(g->why, sizeof(g->why), "%s", x->stop_text);
	else if (end == SEG_BLOCKED || end == SEG_SLEEPING)
		sched_park_text(s, &s->cpu[cpu], g->why, sizeof(g->why));
}

static enum drive_result drive(struct sched *s, void *arg)
{
	struct explorer *x = arg;
	uint64_t total = 0;

	while (!sched_all_done(s)) {
		int cpu = pick_cpu(s, x);
		if (cpu < 0)
			return DRIVE_STUCK;
		enum seg_end end = sched_run_segment(s, cpu, pct_stop, x, TRY_STEP_LIMIT);
		record_segment(x, s, cpu, end);
		total += s->seg_steps;
		if (end == SEG_FAILED)
			return DRIVE_DONE;
		if (end == SEG_LIMIT || total > TRY_STEP_LIMIT)
			return DRIVE_LIMIT;
	}
	return DRIVE_DONE;
}

static void new_try(struct explorer *x)
{
	/* Distinct initial priorities depth .. depth + n - 1, shuffled. */
	for (int i = 0; i < x->ncpus; i++)
		x->prio[i] = x->depth + i;
	for (int i = x->ncpus - 1; i > 0; i--) {
		int j = (int)below(x, (uint64_t)i + 1);
		long t = x->prio[i];
		x->prio[i] = x->prio[j];
		x->prio[j] = t;
	}
	x->low = 0;
	x->nchange = x->depth - 1;
	for (int j = 0; j < x->nchange; j++)
		x->change[j] = 1 + below(x, x->k_estimate);
	/* ascending, so next_change walks them in order */
	for (int i = 1; i < x->nchange; i++)
		for (int j = i; j > 0 && x->change[j] < x->change[j - 1]; j--) {
			uint64_t t = x->change[j];
			x->change[j] = x->change[j - 1];
			x->change[j - 1] = t;
		}
	x->next_change = 0;
	x->candidates = 0;
	x->nseg = 0;
	x->overflow = false;
}

/* ---- writing what was found ----------------------------------------------- */

static void write_schedule(FILE *f, const struct segment *seg, int nseg)
{
	for (int i = 0; i < nseg; i++) {
		const struct segment *g = &seg[i];
		uint64_t steps = g->steps;
		/* A segment that merely stopped merges into the next of the
		 * same CPU: "steps" then adds up, or the later end wins. */
		while (i + 1 < nseg && seg[i + 1].cpu == g->cpu && g->end == SEG_STOPPED) {
			g = &seg[++i];
			steps += g->steps;
		}
		char line[64];
		if (g->end == SEG_DONE)
			snprintf(line, sizeof(line), "cpu%d to end", g->cpu);
		else if (g->end == SEG_BLOCKED || g->end == SEG_SLEEPING)
			snprintf(line, sizeof(line), "cpu%d until blocked", g->cpu);
		else if (steps)
			snprintf(line, sizeof(line), "cpu%d steps %llu", g->cpu,
				 (unsigned long long)steps);
		else
			continue;
		if (g->why[0])
			fprintf(f, "%-24s # %s\n", line, g->why);
		else
			fprintf(f, "%s\n", line);
	}
}

/* The best try so far: its programs, its schedule, what it found. */
struct finding {
	struct plan plan;
	struct segment *seg;
	int nseg;
	struct play_result res;
	uint32_t kinds;            /* bit per violation kind seen */
	enum violation_kind first; /* the first one reported */
	long try_no;
	int groups_found; /* groups before shrinking */
};

static int write_found(const char *path, const struct explorer *x, const struct finding *fd,
		       uint64_t seed)
{
	struct scenario *scn = plan_build(x, &fd->plan);
	FILE *f = fopen(path, "w");
	char how[64];

	if (!f) {
		fprintf(stderr, "icache-sim explore: -o %s: cannot write\n", path);
		scenario_free(scn);
		return 2;
	}
	if (x->random_walk)
		snprintf(how, sizeof(how), "random walk");
	else
		snprintf(how, sizeof(how), "PCT, depth %d", x->depth);
	fprintf(f,
		"# Found by icache-sim explore --scheme %s --workload %s "
		"--seed %llu\n# (try %ld; %s; %d CPUs; %llu steps).\n",
		x->scheme->name, x->workload, (unsigned long long)seed, fd->try_no, how, scn->ncpus,
		(unsigned long long)fd->res.steps);
	if (fd->plan.n < fd->groups_found)
		fprintf(f,
			"# Shrunk from %d operation groups to %d, found again "
			"each time.\n",
			fd->groups_found, fd->plan.n);
	fprintf(f, "# Replay it: icache-sim play %s\n", path);
	fprintf(f,
		"scheme %s\ntitle found by explore (%s, seed %llu, try %ld)"
		"\n\n",
		x->scheme->name, x->workload, (unsigned long long)seed, fd->try_no);
	for (int c = 0; c < scn->ncpus; c++)
		for (int i = 0; i < scn->prog[c].nops; i++) {
			fprintf(f, "cpu%d: ", c);
			scn_write_op(f, scn, &scn->prog[c].ops[i]);
			fputc('\n', f);
		}
	fputc('\n', f);
	write_schedule(f, fd->seg, fd->nseg);
	fputc('\n', f);
	for (int k = 0; k < NR_VIOLATIONS; k++)
		if ((fd->kinds & (1u << k)) && k != VIOL_deadlock)
			fprintf(f, "expect violation %s\n", violation_kind_name(k));
	if (fd->res.deadlock)
		fprintf(f, "expect deadlock\n");
	fclose(f);
	scenario_free(scn);
	return 0;
}

/* ---- tries and shrinking ---------------------------------------------------- */

/* One try of a plan; true if it found something.  *st: play's status. */
static bool run_try(struct explorer *x, const struct plan *p, struct play_result *res,
		    uint32_t *kinds, int *st)
{
	struct scenario *scn = plan_build(x, p);
	struct play_opts o = { .silent = true, .driver = drive, .driver_arg = x, .result = res };

	memset(res, 0, sizeof(*res));
	new_try(x);
	*st = scenario_play(scn, &o);
	scenario_free(scn);
	if (x->candidates > x->k_estimate)
		x->k_estimate = x->candidates;
	*kinds = 0;
	for (int k = 0; k < NR_VIOLATIONS; k++)
		if (violations_of_kind(k))
			*kinds |= 1u << k;
	return *st != 2 && !x->overflow && (res->violations || res->deadlock);
}

static void keep(struct finding *fd, const struct explorer *x, const struct plan *p,
		 const struct play_result *res, uint32_t kinds)
{
	fd->plan = *p;
	fd->res = *res;
	fd->kinds = kinds;
	fd->nseg = x->nseg;
	memcpy(fd->seg, x->seg, (size_t)x->nseg * sizeof(*fd->seg));
}

/*
 * Drop one operation group at a time and look again (a few hundred tries)
 * for the same first violation; keep every drop that still finds it.  What
 * is left is a small scenario a lesson can use as it is.  Stops early on a
 * deadlock: parked threads cannot be run again in this process.
 */
#define SHRINK_TRIES 300

static bool shrink(struct explorer *x, struct finding *fd)
{
	bool progress = true;

	while (progress && fd->plan.n > 1) {
		progress = false;
		for (int i = 0; i < fd->plan.n && !progress; i++) {
			struct plan cand = fd->plan;
			memmove(&cand.item[i], &cand.item[i + 1],
				(size_t)(cand.n - i - 1) * sizeof(cand.item[0]));
			cand.n--;
			for (int t = 0; t < SHRINK_TRIES; t++) {
				struct play_result res;
				uint32_t kinds;
				int st;
				bool found = run_try(x, &cand, &res, &kinds, &st);
				if (res.deadlock)
					return false;
				if (found && (kinds & (1u << fd->first))) {
					keep(fd, x, &cand, &res, kinds);
					progress = true;
					break;
				}
			}
		}
	}
	return true;
}

/* ---- the command ----------------------------------------------------------- */

static const char explore_help[] =
	"usage: icache-sim explore --scheme S --workload W --schedules N\n"
	"                          [--seed K] [-o FILE] [options]\n\n"
	"Run N randomized schedules of small programs made from the workload's\n"
	"operations, on the deterministic scheduler, and stop at the first one\n"
	"that ends in a violation or a deadlock.  With -o, write it as a\n"
	"scenario that `icache-sim play FILE` replays step for step (the file\n"
	"says `expect violation KIND`, so play exits 0 when it reproduces).\n\n"
	"options:\n"
	"  --scheme S        locking scheme (default merged)\n"
	"  --workload W      lookup, create-unlink, writeback, pressure, umount,\n"
	"                    iput-race, mixed (default mixed)\n"
	"  --schedules N     tries (1..10000000, default 1000)\n"
	"  --seed K          seed of programs and schedules (default 1)\n"
	"  -o FILE           write the schedule that found something here\n"
	"  --cpus N          simulated CPUs (2..8, default 2)\n"
	"  --ops N           operation groups per CPU (1..16, default 3)\n"
	"  --depth D         PCT depth: D-1 priority change points (1..4, default 3)\n"
	"  --strategy S      pct (default) or random (uniform at every step)\n"
	"  --no-shrink       write what was found as it was found; by default\n"
	"                    operation groups are dropped one at a time as long\n"
	"                    as a few hundred more tries still find it\n"
	"  --quiet           print only the verdict\n\n"
	"exit status: 0 nothing found, 1 a violation or deadlock was found,\n"
	"2 bad usage\n";

static bool arg_num(const char *flag, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!v || !*v || *v == '-') {
		fprintf(stderr, "icache-sim explore: %s needs a number\n", flag);
		return false;
	}
	if (!parse_u64_in(v, lo, hi, out)) {
		fprintf(stderr, "icache-sim explore: %s: '%s' is not in %llu..%llu\n", flag, v,
			(unsigned long long)lo, (unsigned long long)hi);
		return false;
	}
	return true;
}

/* The numeric flags: 1 taken, 0 bad (said), -1 not one of them. */
static int num_flag(struct explorer *x, const char *a, const char *v, uint64_t *schedules,
		    uint64_t *seed)
{
	uint64_t n;

	if (!strcmp(a, "--schedules"))
		return arg_num(a, v, 1, 10000000, schedules);
	if (!strcmp(a, "--seed"))
		return arg_num(a, v, 0, UINT64_MAX, seed);
	if (!strcmp(a, "--cpus")) {
		if (!arg_num(a, v, 2, SCHED_MAX_CPUS, &n))
			return 0;
		x->ncpus = (int)n;
	} else if (!strcmp(a, "--ops")) {
		if (!arg_num(a, v, 1, 16, &n))
			return 0;
		x->groups = (int)n;
	} else if (!strcmp(a, "--depth")) {
		if (!arg_num(a, v, 1, 4, &n))
			return 0;
		x->depth = (int)n;
	} else {
		return -1;
	}
	return 1;
}

static int parse_args(int argc, char **argv, struct explorer *x, uint64_t *schedules,
		      uint64_t *seed, const char **out, bool *quiet, bool *do_shrink)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int took;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(explore_help, stdout);
			return 0;
		} else if (!strcmp(a, "--scheme")) {
			x->scheme = v ? scheme_find(v) : NULL;
			if (!x->scheme) {
				fprintf(stderr,
					"icache-sim explore: --scheme: '%s' "
					"is not a scheme (try `icache-sim schemes`)\n",
					v ? v : "");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--workload")) {
			if (!v || !mix_find(v)) {
				fprintf(stderr,
					"icache-sim explore: --workload: '%s' "
					"is not a workload explore knows (lookup, "
					"create-unlink, writeback, pressure, umount, "
					"iput-race, mixed)\n",
					v ? v : "");
				return 2;
			}
			x->workload = v;
			i++;
		} else if ((took = num_flag(x, a, v, schedules, seed)) >= 0) {
			if (!took)
				return 2;
			i++;
		} else if (!strcmp(a, "--strategy")) {
			if (!v || (strcmp(v, "pct") && strcmp(v, "random"))) {
				fprintf(stderr, "icache-sim explore: --strategy: "
						"pct or random\n");
				return 2;
			}
			x->random_walk = !strcmp(v, "random");
			i++;
		} else if (!strcmp(a, "-o")) {
			if (!v) {
				fprintf(stderr, "icache-sim explore: -o needs a "
						"file\n");
				return 2;
			}
			const char *why = output_file_problem(v);
			if (why) {
				fprintf(stderr, "icache-sim explore: -o: '%s' %s\n", v, why);
				return 2;
			}
			*out = v;
			i++;
		} else if (!strcmp(a, "--quiet")) {
			*quiet = true;
		} else if (!strcmp(a, "--no-shrink")) {
			*do_shrink = false;
		} else {
			fprintf(stderr,
				"icache-sim explore: unknown option '%s' "
				"(see icache-sim explore --help)\n",
				a);
			return 2;
		}
	}
	return -1;
}

/* What cmd_explore was asked for, beyond the explorer itself. */
struct explore_args {
	uint64_t schedules, seed;
	const char *out;
	bool quiet, do_shrink;
};

/*
 * Try t found something: say what, shrink it and write it if asked.
 * Returns the exit status (1, or 2 if it could not be written); after a
 * deadlock, parked threads still use the cache, so it exits here.
 */
static int report_finding(struct explorer *x, struct finding *fd, struct plan *p,
			  struct play_result *res, uint32_t kinds, uint64_t t,
			  const struct explore_args *ea)
{
	const struct violation *v0 = violation_get(0);
	fd->first = v0 ? v0->kind : VIOL_deadlock;
	fd->try_no = (long)t;
	fd->groups_found = p->n;
	keep(fd, x, p, res, kinds);
	printf("explore: try %llu of %llu found %s", (unsigned long long)t,
	       (unsigned long long)ea->schedules, res->deadlock ? "a deadlock" : "a violation");
	for (int k = 0; k < NR_VIOLATIONS; k++)
		if (kinds & (1u << k))
			printf(" %s", violation_kind_name(k));
	printf(" (%s, %s, seed %llu, %llu steps)\n", x->scheme->name, x->workload,
	       (unsigned long long)ea->seed, (unsigned long long)res->steps);
	bool alive = !res->deadlock;
	if (ea->out && alive && ea->do_shrink) {
		alive = shrink(x, fd);
		if (fd->plan.n < fd->groups_found)
			printf("explore: shrunk it from %d operation groups "
			       "to %d (%llu steps)\n",
			       fd->groups_found, fd->plan.n, (unsigned long long)fd->res.steps);
	}
	int status = ea->out ? write_found(ea->out, x, fd, ea->seed) : 0;
	if (ea->out && status == 0)
		printf("explore: wrote %s (icache-sim play %s replays it)\n", ea->out, ea->out);
	if (status == 0)
		status = 1;
	fflush(stdout);
	if (!alive)
		exit(status);
	return status;
}

int cmd_explore(int argc, char **argv)
{
	struct explorer *x = xcalloc(1, sizeof(*x));
	struct explore_args ea = { .schedules = 1000, .seed = 1, .do_shrink = true };
	int status = 0;

	x->scheme = &scheme_merged;
	x->workload = "mixed";
	x->ncpus = 2;
	x->groups = 3;
	x->depth = 3;
	int r = parse_args(argc, argv, x, &ea.schedules, &ea.seed, &ea.out, &ea.quiet,
			   &ea.do_shrink);
	if (r >= 0) {
		free(x);
		return r;
	}
	const struct mix *m = mix_find(x->workload);
	x->rng = ea.seed * 0x2545f4914f6cdd1dull + 17;
	x->k_estimate = 16;

	struct finding *fd = xcalloc(1, sizeof(*fd));
	fd->seg = xcalloc(MAX_SEGMENTS, sizeof(*fd->seg));
	for (uint64_t t = 1; t <= ea.schedules; t++) {
		struct plan p;
		struct play_result res;
		uint32_t kinds;
		int st;

		plan_random(x, m, &p);
		bool found = run_try(x, &p, &res, &kinds, &st);
		if (st == 2) {
			fprintf(stderr,
				"icache-sim explore: try %llu: the "
				"generated programs are wrong (a bug in explore)\n",
				(unsigned long long)t);
			status = 2;
			break;
		}
		if (found) {
			status = report_finding(x, fd, &p, &res, kinds, t, &ea);
			break;
		}
		if (t == ea.schedules)
			printf(ea.quiet ? "explore: nothing found\n" :
					  "explore: nothing found in %llu schedules "
					  "(%s, %s, seed %llu)\n",
			       (unsigned long long)ea.schedules, x->scheme->name, x->workload,
			       (unsigned long long)ea.seed);
	}
	free(fd->seg);
	free(fd);
	free(x);
	return status;
}
