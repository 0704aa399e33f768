/*
 * lockdep.c - the lock-order validator (see lockdep.h for what it checks).
 *
 * The graph has one node per lock class, so it is tiny: a matrix of edges.
 * The fast path, an edge already seen, is one relaxed load and a per-CPU
 * increment, cheap enough to stay on in every run.  A new edge takes
 * graph_lock (a plain mutex, not an instrumented lock: the validator must
 * not validate itself), is checked against the documented order, and is
 * searched breadth-first for a cycle, so the shortest chain is reported.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/lockdep.h"
#include "sim/core/violation.h"

static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;

/* seen[a][b]: the edge a -> b exists; written under graph_lock. */
static atomic_bool seen[NR_LOCK_CLASSES][NR_LOCK_CLASSES];
/* Details of each edge; written once under graph_lock when it appears. */
static struct lockdep_edge edges[NR_LOCK_CLASSES][NR_LOCK_CLASSES];
/* Per-CPU edge counts, so counting never bounces a cache line. */
static uint32_t counts[MAX_SIM_CPUS + 2][NR_LOCK_CLASSES][NR_LOCK_CLASSES];
/* The documented order, closed transitively: before[a][b] = a nests b. */
static bool before[NR_LOCK_CLASSES][NR_LOCK_CLASSES];

void lockdep_reset(const struct lock_rule *rules, int nrules)
{
	pthread_mutex_lock(&graph_lock);
	memset(edges, 0, sizeof(edges));
	memset(counts, 0, sizeof(counts));
	memset(before, 0, sizeof(before));
	for (int a = 0; a < NR_LOCK_CLASSES; a++)
		for (int b = 0; b < NR_LOCK_CLASSES; b++)
			atomic_store(&seen[a][b], false);
	for (int i = 0; i < nrules; i++)
		before[rules[i].outer][rules[i].inner] = true;
	/* Warshall: a before b and b before c gives a before c. */
	for (int k = 0; k < NR_LOCK_CLASSES; k++)
		for (int a = 0; a < NR_LOCK_CLASSES; a++)
			for (int b = 0; b < NR_LOCK_CLASSES; b++)
				if (before[a][k] && before[k][b])
					before[a][b] = true;
	pthread_mutex_unlock(&graph_lock);
}

bool lockdep_documented(enum lock_class a, enum lock_class b)
{
	return before[a][b];
}

const struct lockdep_edge *lockdep_edge(enum lock_class from, enum lock_class to)
{
	static __thread struct lockdep_edge e;
	if (!atomic_load(&seen[from][to]))
		return NULL;
	e = edges[from][to];
	e.count = 0;
	for (int c = 0; c < MAX_SIM_CPUS + 2; c++)
		e.count += counts[c][from][to];
	return &e;
}

/*
 * Breadth-first search for a path from -> to in the graph; on success
 * path[] holds the classes from `from` to `to` and the length is returned.
 */
static int find_path(int from, int to, int path[NR_LOCK_CLASSES])
{
	int prev[NR_LOCK_CLASSES], queue[NR_LOCK_CLASSES], head = 0, tail = 0;
	bool visited[NR_LOCK_CLASSES] = { false };

	queue[tail++] = from;
	visited[from] = true;
	prev[from] = -1;
	while (head < tail) {
		int n = queue[head++];
		if (n == to) {
			int len = 0, rev[NR_LOCK_CLASSES];
			for (int x = to; x >= 0; x = prev[x])
				rev[len++] = x;
			for (int i = 0; i < len; i++)
				path[i] = rev[len - 1 - i];
			return len;
		}
		for (int m = 0; m < NR_LOCK_CLASSES; m++) {
			if (!visited[m] &&
			    atomic_load_explicit(&seen[n][m], memory_order_relaxed)) {
				visited[m] = true;
				prev[m] = n;
				queue[tail++] = m;
			}
		}
	}
	return 0;
}

static void held_text(const struct sim_cpu *c, char *buf, size_t len)
{
	size_t off = 0;
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(
			buf + off, len - off, "\n   #%d: %s (instance %llu), taken in %s%s", i,
			lock_class_name(c->held[i].lock->cls),
			(unsigned long long)c->held[i].lock->inst, site_name(c->held[i].site),
			c->held[i].trylock ? " by trylock" : "");
}

/* Called with graph_lock held, for the first a -> b edge. */
static void check_new_edge(struct sim_cpu *c, const struct held_lock *h, struct sim_lock *l,
			   enum site site)
{
	int a = h->lock->cls, b = l->cls;
	char held[512];

	held_text(c, held, sizeof(held));
	if (before[b][a]) {
		edges[a][b].against_order = true;
		report_violation(VIOL_lock_order, a, b, h->site, site, c->id, -1, 0,
				 "lock order violation: %s takes %s in %s while holding %s "
				 "(taken in %s), but the scheme's order puts %s before %s\n"
				 " %s holds:%s",
				 c->name, lock_class_name(b), site_name(site), lock_class_name(a),
				 site_name(h->site), lock_class_name(b), lock_class_name(a),
				 c->name, held);
	}

	int path[NR_LOCK_CLASSES];
	int len = find_path(b, a, path);
	if (len == 0)
		return;

	char chain[256];
	size_t off = 0;
	for (int i = 0; i < len; i++)
		off += (size_t)snprintf(chain + off, sizeof(chain) - off, "%s --> ",
					lock_class_name(path[i]));
	snprintf(chain + off, sizeof(chain) - off, "%s", lock_class_name(b));
	edges[a][b].closes_cycle = true;
	const struct lockdep_edge *old = &edges[path[0]][path[1]];
	report_violation(VIOL_lock_cycle, a, b, h->site, site, c->id, old->first_cpu, 0,
			 "possible circular locking dependency detected\n"
			 " %s is trying to acquire %s in %s while holding %s (taken in %s);\n"
			 " the existing dependency %s --> %s was first made by cpu%d in %s -> %s.\n"
			 " Chain exists of:\n   %s\n"
			 " Possible unsafe locking scenario:\n"
			 "       CPU0                    CPU1\n"
			 "       lock(%s);\n"
			 "                               lock(%s);\n"
			 "                               lock(%s);\n"
			 "       lock(%s);\n"
			 "   *** DEADLOCK ***\n"
			 " %s holds:%s",
			 c->name, lock_class_name(b), site_name(site), lock_class_name(a),
			 site_name(h->site), lock_class_name(path[0]), lock_class_name(path[1]),
			 old->first_cpu, site_name(old->first_site_outer),
			 site_name(old->first_site_inner), chain, lock_class_name(a),
			 lock_class_name(b), lock_class_name(a), lock_class_name(b), c->name, held);
}

void lockdep_acquire(struct sim_cpu *c, struct sim_lock *l, enum site site)
{
	int n = atomic_load_explicit(&c->nheld, memory_order_relaxed);
	int cpu = c->id < MAX_SIM_CPUS + 2 ? c->id : MAX_SIM_CPUS + 1;

	for (int i = 0; i < n; i++) {
		const struct held_lock *h = &c->held[i];
		int a = h->lock->cls, b = l->cls;

		if (h->lock == l) {
			report_violation(VIOL_lock_cycle, a, b, h->site, site, c->id, c->id, 0,
					 "recursive locking: %s takes %s (instance %llu) in %s "
					 "but already holds it (taken in %s)",
					 c->name, lock_class_name(b), (unsigned long long)l->inst,
					 site_name(site), site_name(h->site));
			continue;
		}
		if (a == b) {
			/* Two instances of one class: no order between them
			 * is known, so it must be annotated (lockdep's
			 * subclasses) or it is reported. */
			if (!c->nest_subclass)
				report_violation(
					VIOL_nested_class, a, b, h->site, site, c->id, -1, 0,
					"possible recursive locking: %s takes %s "
					"(instance %llu) in %s while holding %s "
					"(instance %llu, taken in %s); nesting two "
					"locks of one class needs an annotation "
					"(spin_lock_nested)",
					c->name, lock_class_name(b), (unsigned long long)l->inst,
					site_name(site), lock_class_name(a),
					(unsigned long long)h->lock->inst, site_name(h->site));
			continue;
		}
		counts[cpu][a][b]++;
		if (atomic_load_explicit(&seen[a][b], memory_order_acquire))
			continue;
		pthread_mutex_lock(&graph_lock);
		if (!atomic_load_explicit(&seen[a][b], memory_order_relaxed)) {
			edges[a][b].first_site_outer = h->site;
			edges[a][b].first_site_inner = site;
			edges[a][b].first_cpu = c->id;
			check_new_edge(c, h, l, site);
			atomic_store_explicit(&seen[a][b], true, memory_order_release);
		}
		pthread_mutex_unlock(&graph_lock);
	}
	c->nest_subclass = 0;
}

void lockdep_write_dot(FILE *f, const char *title)
{
	fprintf(f, "digraph lock_order {\n");
	fprintf(f, "  label=\"%s\";\n  labelloc=t;\n", title);
	fprintf(f, "  node [shape=box, fontname=\"monospace\"];\n");
	for (int a = 0; a < NR_LOCK_CLASSES; a++) {
		for (int b = 0; b < NR_LOCK_CLASSES; b++) {
			const struct lockdep_edge *e = lockdep_edge(a, b);
			if (!e)
				continue;
			/* Red: breaks the documented order or closes a
			 * cycle; black: documented; gray: merely observed. */
			const char *style = e->against_order || e->closes_cycle ?
						    "color=red, penwidth=2" :
					    before[a][b] ? "color=black" :
							   "color=gray, style=dashed";
			fprintf(f, "  \"%s\" -> \"%s\" [label=\"%llu\\n%s\", %s];\n",
				lock_class_name(a), lock_class_name(b),
				(unsigned long long)e->count, site_name(e->first_site_inner),
				style);
		}
	}
	fprintf(f, "}\n");
}
