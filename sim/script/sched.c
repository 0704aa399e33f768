/*
 * sched.c - the deterministic scheduler: one baton, passed by hand.
 *
 * The baton is s->running, under s->m.  The controller sets it to a CPU
 * and waits on ctl_cv; that CPU's thread, parked on its own condition
 * variable, wakes up and runs until a step where its segment ends, then
 * sets the baton back to -1 and parks again.  No two simulated CPUs ever
 * run at the same time, so the order of every lock operation, state
 * change and list move follows from the schedule alone.
 *
 * There is one scheduler at a time: the core's hooks carry no context, so
 * the active scheduler is a file-scope pointer, set by sched_start().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/evtext.h"
#include "lib/selector.h"
#include "lib/xalloc.h"
#include "sim/core/rcu.h"
#include "sim/core/trace.h"
#include "sim/script/sched.h"

static struct sched *active;

/* ---- words ------------------------------------------------------------ */

/* A step kind's word is the selector grammar's verb for it (lib/selector.h):
 * the log says "cpu0 trylock-failed i_lock ..." and a schedule line
 * writes "until trylock-failed i_lock". */
const char *sched_event_kind_name(enum sched_event_kind k)
{
	return selector_sched_word(k);
}

#define X(n) #n,
static const char *const list_names[] = { ICACHE_LISTS(X) };
static const char *const action_names[] = { ICACHE_LIST_ACTIONS(X) };
static const char *const op_names[] = { ICACHE_OPS(X) };
#undef X

const char *list_id_name(int id)
{
	return id >= 0 && id < NR_INODE_LISTS ? list_names[id] : "?";
}

const char *list_action_name(int a)
{
	return a >= 0 && a < NR_LIST_ACTIONS ? action_names[a] : "?";
}

const char *op_kind_name(int op)
{
	return op >= 0 && op < NR_OPS ? op_names[op] : "?";
}

void inode_flags_text(unsigned flags, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
#define F(bit, name) { 1u << (bit), #name },
		ICACHE_STATE_FLAGS(F)
#undef F
	};
	size_t off = 0;

	buf[0] = 0;
	if (!flags) {
		snprintf(buf, len, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((flags & names[i].bit) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "|" : "",
						names[i].name);
}

void sched_lock_text(const struct sim_lock *l, char *buf, size_t len)
{
	ev_lock_words(l->cls, lock_class_name(l->cls), l->inst, buf, len);
}

static int holder_of(const struct sim_lock *l)
{
	return atomic_load_explicit(&l->holder, memory_order_relaxed);
}

/* The trace event a step is (the event table's SCHED column), or -1. */
static int step_event(enum sched_event_kind k)
{
#define STEP_SCHED(kind) SEV_##kind
#define STEP_NOSCHED -1
#define STEP_ROW(name, sched, text) { STEP_##sched, ICACHE_EV_##name },
	static const struct {
		int kind, ev;
	} map[] = { ICACHE_EVENTS(STEP_ROW) };
#undef STEP_ROW
#undef STEP_NOSCHED
#undef STEP_SCHED
	if (k == SEV_trylock_failed)
		return ICACHE_EV_lock_trylock;
	if (k == SEV_wake)
		return EVD_WAKE;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].kind == (int)k)
			return map[i].ev;
	return -1;
}

/* The step in the selector's words, worded by lib/evtext.c like every
 * event the viewer shows. */
void sched_event_text(const struct sched *s, const struct sched_cpu *sc,
		      const struct sched_event *ev, char *buf, size_t len)
{
	char f1[128] = "", f2[128] = "", op[128] = "";
	struct ev_desc d = {
		.type = step_event(ev->kind),
		.who = sc->cpu->name,
		.verb = sched_event_kind_name(ev->kind),
		.id = ev->ino,
		.site = site_name(ev->site),
		.before = ev->a, /* the a and b of each kind: sim/core/lock.h */
		.after = ev->b,
		.sb = ev->a,
		.nlink = ev->b,
		.depth = ev->a,
		.result = ev->b,
		.old_flags = f1,
		.new_flags = f2,
		.op = op,
		.ok = ev->kind != SEV_trylock_failed,
	};
	if (ev->lock) {
		int h = holder_of(ev->lock);
		d.cls = ev->lock->cls;
		d.cls_name = lock_class_name(ev->lock->cls);
		d.id = ev->lock->inst;
		d.holder = h >= 0 && h < s->ncpus ? s->cpu[h].cpu->name : NULL;
	}
	if (ev->kind == SEV_state) {
		inode_flags_text((unsigned)ev->a, f1, sizeof(f1));
		inode_flags_text((unsigned)ev->b, f2, sizeof(f2));
	} else if (ev->kind == SEV_list) {
		d.list = list_id_name((int)ev->a);
		d.action = list_action_name((int)ev->b);
	} else if (ev->kind == SEV_op_begin || ev->kind == SEV_op_end) {
		if (s->op_text)
			s->op_text((struct sched_cpu *)sc, op, sizeof(op), s->obs_arg);
		if (!op[0])
			snprintf(op, sizeof(op), "%s", op_kind_name((int)ev->a));
	}
	ev_text(&d, EVT_STEP, buf, len);
}

void sched_park_text(const struct sched *s, const struct sched_cpu *sc, char *buf, size_t len)
{
	char lock[96];

	if (sc->state == SCPU_BLOCKED) {
		int h = holder_of(sc->blocked_on);
		sched_lock_text(sc->blocked_on, lock, sizeof(lock));
		snprintf(buf, len, "%s blocked: waits for %s in %s, held by %s", sc->cpu->name,
			 lock, site_name(sc->blocked_site),
			 h >= 0 && h < s->ncpus        ? s->cpu[h].cpu->name :
			 h >= 0                        ? "main" :
			 sim_lock_busy(sc->blocked_on) ? "readers" :
							 "nobody now");
	} else if (sc->state == SCPU_SLEEPING) {
		char from[96], to[96], missed[256] = "";
		if (sc->sleep_changed && !sc->woken) {
			inode_flags_text(sc->sleep_from, from, sizeof(from));
			inode_flags_text(sc->sleep_to, to, sizeof(to));
			snprintf(missed, sizeof(missed),
				 " (its state went %s -> %s since, and nobody woke it)", from, to);
		}
		snprintf(buf, len,
			 "%s sleeps on inode %llu in %s until it is "
			 "woken%s%s",
			 sc->cpu->name, (unsigned long long)sc->sleep_ino,
			 site_name(sc->sleep_site), sc->woken ? " (it has been)" : "", missed);
	} else {
		snprintf(buf, len, "%s is %s", sc->cpu->name,
			 sc->state == SCPU_DONE ? "done" : "ready");
	}
}

/* One CPU as the watchdog and lockdep print it. */
static size_t cpu_account(const struct sched *s, const struct sched_cpu *sc, char *buf, size_t len)
{
	const struct sim_cpu *c = sc->cpu;
	int n = atomic_load(&c->nheld);
	size_t off = 0;
	char lock[96], park[256];

#define OUT(...)                                                                    \
	do {                                                                        \
		if (off < len)                                                      \
			off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); \
	} while (0)
	OUT(" %s holds %d lock%s:\n", c->name, n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		sched_lock_text(c->held[i].lock, lock, sizeof(lock));
		OUT("   #%d: %s, taken in %s%s\n", i, lock, site_name(c->held[i].site),
		    c->held[i].trylock ? " by trylock" : "");
	}
	if (sc->state == SCPU_BLOCKED || sc->state == SCPU_SLEEPING) {
		sched_park_text(s, sc, park, sizeof(park));
		OUT("   and %s\n", strchr(park, ' ') + 1);
	} else {
		OUT("   and is %s\n", sc->state == SCPU_DONE ? "done" : "ready");
	}
#undef OUT
	return off;
}

void sched_cpus_text(const struct sched *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < s->ncpus && off < len; i++)
		off += cpu_account(s, &s->cpu[i], buf + off, len - off);
	/* Follow waits-for edges from the first blocked CPU: a cycle of
	 * CPUs is the deadlock itself. */
	for (int i = 0; i < s->ncpus; i++) {
		if (s->cpu[i].state != SCPU_BLOCKED)
			continue;
		int seen[SCHED_MAX_CPUS] = { 0 }, path[SCHED_MAX_CPUS + 1];
		int np = 0, x = i;
		while (x >= 0 && x < s->ncpus && !seen[x] && s->cpu[x].state == SCPU_BLOCKED) {
			seen[x] = 1;
			path[np++] = x;
			x = holder_of(s->cpu[x].blocked_on);
		}
		if (x < 0 || x >= s->ncpus || !seen[x])
			continue;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, " waits-for cycle:");
		int start = 0;
		while (path[start] != x)
			start++;
		for (int k = start; k < np && off < len; k++)
			off += (size_t)snprintf(buf + off, len - off, " %s -->",
						s->cpu[path[k]].cpu->name);
		if (off < len)
			snprintf(buf + off, len - off, " %s\n", s->cpu[x].cpu->name);
		break;
	}
}

/* ---- the baton ---------------------------------------------------------- */

static struct sched_cpu *me(struct sched *s)
{
	struct sim_cpu *c = this_cpu;

	if (!s || !c || c->id < 0 || c->id >= s->ncpus || s->cpu[c->id].cpu != c)
		return NULL; /* the controller, or a thread not ours */
	return &s->cpu[c->id];
}

/* Give the baton back and wait until it comes round to us again. */
static void switch_out(struct sched *s, struct sched_cpu *sc, enum seg_end why)
{
	pthread_mutex_lock(&s->m);
	s->seg_end = why;
	s->running = -1;
	pthread_cond_signal(&s->ctl_cv);
	while (s->running != sc->idx)
		pthread_cond_wait(&sc->cv, &s->m);
	pthread_mutex_unlock(&s->m);
	sc->state = SCPU_RUNNING;
}

static void wait_turn(struct sched *s, struct sched_cpu *sc)
{
	pthread_mutex_lock(&s->m);
	while (s->running != sc->idx)
		pthread_cond_wait(&sc->cv, &s->m);
	pthread_mutex_unlock(&s->m);
	sc->state = SCPU_RUNNING;
}

/* A state change of inode ino: its sleepers not woken yet must be, later. */
static void note_state_change(struct sched *s, const struct sched_event *ev)
{
	for (int i = 0; i < s->ncpus; i++) {
		struct sched_cpu *w = &s->cpu[i];
		if (w->state != SCPU_SLEEPING || w->sleep_ino != ev->ino || w->woken)
			continue;
		w->sleep_changed = true;
		w->sleep_from = (unsigned)ev->a;
		w->sleep_to = (unsigned)ev->b;
	}
}

static void hook_point(const struct sched_event *ev)
{
	struct sched *s = active;
	struct sched_cpu *sc = me(s);

	if (!sc)
		return;
	if (ev->kind == SEV_state)
		note_state_change(s, ev);
	s->step++;
	sc->steps++;
	s->seg_steps++;
	if (ev->kind == SEV_op_end)
		sc->ops_done++;
	if (s->on_step)
		s->on_step(s, sc, ev, s->obs_arg);
	if (s->trace && trace_sched_step_enabled()) {
		char text[256];
		sched_event_text(s, sc, ev, text, sizeof(text));
		trace_sched_step(s->step, sc->idx, text);
	}
	if (s->stop && s->stop(s, sc, ev, s->stop_arg)) {
		sc->state = SCPU_IDLE;
		switch_out(s, sc, SEG_STOPPED);
	} else if (s->seg_limit && s->seg_steps >= s->seg_limit) {
		sc->state = SCPU_IDLE;
		switch_out(s, sc, SEG_LIMIT);
	}
}

/* The CPU stops here (blocked or asleep) until the scheduler picks it. */
static void park(struct sched *s, struct sched_cpu *sc, enum sched_cpu_state state,
		 enum seg_end seg)
{
	sc->state = state;
	if (s->on_park)
		s->on_park(s, sc, s->obs_arg);
	switch_out(s, sc, seg);
}

/*
 * The calling CPU waits for lock l (blocked) or, l NULL, on inode ino
 * (asleep): it is parked until the scheduler picks it.  A thread this
 * scheduler does not drive (no sched_cpu) does not stop.
 */
static void park_waiting(struct sim_lock *l, uint64_t ino, enum site site)
{
	struct sched *s = active;
	struct sched_cpu *sc = me(s);

	if (!sc)
		return;
	if (l) {
		sc->blocked_on = l;
		sc->blocked_site = site;
		park(s, sc, SCPU_BLOCKED, SEG_BLOCKED);
		sc->blocked_on = NULL;
		return;
	}
	sc->sleep_ino = ino;
	sc->sleep_site = site;
	sc->woken = false;
	sc->sleep_changed = false;
	park(s, sc, SCPU_SLEEPING, SEG_SLEEPING);
}

static void hook_blocked(struct sim_cpu *c, struct sim_lock *l, enum site site)
{
	park_waiting(l, 0, site);
}

static void hook_wait(struct sim_cpu *c, uint64_t ino, enum site site)
{
	park_waiting(NULL, ino, site);
}

static void hook_wake(struct sim_cpu *c, uint64_t ino)
{
	struct sched *s = active;

	if (!me(s))
		return;
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu[i].state == SCPU_SLEEPING && s->cpu[i].sleep_ino == ino)
			s->cpu[i].woken = true;
	sched_point(SEV_wake, SITE_unknown, NULL, ino, 0, 0);
}

static const struct sched_hooks hooks = {
	.point = hook_point,
	.blocked = hook_blocked,
	.wait = hook_wait,
	.wake = hook_wake,
};

static void *cpu_main(void *p)
{
	struct sched_cpu *sc = p;
	struct sched *s = sc->s;

	this_cpu = sc->cpu;
	rcu_register_sim_thread();
	wait_turn(s, sc);
	if (sc->body)
		sc->body(sc, sc->arg);
	rcu_unregister_sim_thread();
	pthread_mutex_lock(&s->m);
	sc->state = SCPU_DONE;
	s->seg_end = SEG_DONE;
	s->running = -1;
	pthread_cond_signal(&s->ctl_cv);
	pthread_mutex_unlock(&s->m);
	return NULL;
}

void sched_cpu_fail(struct sched_cpu *sc)
{
	struct sched *s = sc->s;

	pthread_mutex_lock(&s->m);
	sc->state = SCPU_FAILED;
	s->seg_end = SEG_FAILED;
	s->running = -1;
	pthread_cond_signal(&s->ctl_cv);
	/* Never resumed: the controller reports and the process exits. */
	for (;;)
		pthread_cond_wait(&sc->cv, &s->m);
}

/* ---- the controller's side ------------------------------------------------ */

void sched_init(struct sched *s, int n, struct sim_cpu **cpus)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->m, NULL);
	pthread_cond_init(&s->ctl_cv, NULL);
	s->running = -1;
	s->ncpus = n;
	for (int i = 0; i < n; i++) {
		struct sched_cpu *sc = &s->cpu[i];
		sc->idx = i;
		sc->cpu = cpus[i];
		sc->s = s;
		sc->state = SCPU_IDLE;
		pthread_cond_init(&sc->cv, NULL);
	}
}

void sched_start(struct sched *s)
{
	active = s;
	sim_sched = &hooks;
	for (int i = 0; i < s->ncpus; i++)
		xpthread_create(&s->cpu[i].tid, NULL, cpu_main, &s->cpu[i]);
}

bool sched_runnable(const struct sched *s, int idx)
{
	const struct sched_cpu *sc = &s->cpu[idx];

	switch (sc->state) {
	case SCPU_IDLE:
		return true;
	case SCPU_BLOCKED:
		/* Free of writer and readers (a rw-lock has both). */
		return !sim_lock_busy(sc->blocked_on);
	case SCPU_SLEEPING:
		return sc->woken;
	default:
		return false;
	}
}

bool sched_all_done(const struct sched *s)
{
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu[i].state != SCPU_DONE)
			return false;
	return true;
}

const struct sched_cpu *sched_missed_wakeup(const struct sched *s)
{
	const struct sched_cpu *missed = NULL;

	for (int i = 0; i < s->ncpus; i++) {
		const struct sched_cpu *sc = &s->cpu[i];
		if (sc->state == SCPU_DONE)
			continue;
		if (sc->state != SCPU_SLEEPING || sc->woken)
			return NULL; /* someone could still run, or wake it */
		if (sc->sleep_changed && !missed)
			missed = sc;
	}
	return missed;
}

bool sched_stuck(const struct sched *s)
{
	bool work_left = false;

	for (int i = 0; i < s->ncpus; i++) {
		if (sched_runnable(s, i))
			return false;
		if (s->cpu[i].state != SCPU_DONE)
			work_left = true;
	}
	return work_left;
}

enum seg_end sched_run_segment(struct sched *s, int idx, sched_stop_fn stop, void *arg,
			       uint64_t limit)
{
	struct sched_cpu *sc = &s->cpu[idx];

	pthread_mutex_lock(&s->m);
	s->stop = stop;
	s->stop_arg = arg;
	s->seg_steps = 0;
	s->seg_limit = limit;
	s->running = idx;
	pthread_cond_signal(&sc->cv);
	while (s->running != -1)
		pthread_cond_wait(&s->ctl_cv, &s->m);
	enum seg_end end = s->seg_end;
	pthread_mutex_unlock(&s->m);
	return end;
}

void sched_finish(struct sched *s)
{
	for (int i = 0; i < s->ncpus; i++)
		pthread_join(s->cpu[i].tid, NULL);
	sim_sched = NULL;
	active = NULL;
	for (int i = 0; i < s->ncpus; i++)
		pthread_cond_destroy(&s->cpu[i].cv);
	pthread_cond_destroy(&s->ctl_cv);
	pthread_mutex_destroy(&s->m);
}

void sched_abandon(struct sched *s)
{
	pthread_mutex_lock(&s->m);
	sim_sched = NULL;
	active = NULL;
	pthread_mutex_unlock(&s->m);
	/* A CPU whose program is done has returned (or is returning) from
	 * cpu_main: join it, or its thread is leaked (TSan says so). */
	for (int i = 0; i < s->ncpus; i++) {
		pthread_mutex_lock(&s->m);
		bool done = s->cpu[i].state == SCPU_DONE;
		pthread_mutex_unlock(&s->m);
		if (done)
			pthread_join(s->cpu[i].tid, NULL);
	}
}
