/*
 * vclock.c - the clock of a virtual recording (vclock.h).
 *
 * Written by the one host thread that runs the virtual CPUs; read by any
 * thread that fires an event (and by liblttng-ust's own), so every shared
 * value is atomic.
 */
#include <stdatomic.h>
#include <time.h>

#include "sim/core/clock.h"
#include "sim/engine/vclock.h"

static atomic_bool attached;  /* the plugin called icache_vclock_attach */
static atomic_bool running;   /* between vclock_begin and vclock_end */
static _Atomic uint64_t base; /* host ns at vclock_begin */
static _Atomic uint64_t vnow; /* the running CPU's virtual ns */
static _Atomic uint64_t last; /* the last stamp handed out */
static _Atomic uint64_t held; /* stamps held back at `last` */

void icache_vclock_attach(void)
{
	atomic_store(&attached, true);
}

bool vclock_attached(void)
{
	return atomic_load(&attached);
}

/* Never hand out a stamp below the previous one. */
static uint64_t monotonic(uint64_t t)
{
	uint64_t prev = atomic_load(&last);
	while (t > prev)
		if (atomic_compare_exchange_weak(&last, &prev, t))
			return t;
	if (t < prev)
		atomic_fetch_add(&held, 1);
	return prev;
}

uint64_t icache_vclock_read(void)
{
	if (atomic_load(&running))
		return monotonic(atomic_load(&base) + atomic_load(&vnow));
	return monotonic(now_ns());
}

void vclock_begin(void)
{
	atomic_store(&vnow, 0);
	atomic_store(&base, now_ns());
	atomic_store(&running, true);
}

/* Wait until the host clock has passed t (see vclock.h). */
static void wait_for_host(uint64_t t)
{
	uint64_t now = now_ns();
	if (now >= t)
		return;
	struct timespec ts = { .tv_sec = (time_t)((t - now) / 1000000000ull),
			       .tv_nsec = (long)((t - now) % 1000000000ull) };
	nanosleep(&ts, NULL);
}

void vclock_set(uint64_t vns)
{
	if (!atomic_load(&attached))
		return;
	atomic_store(&vnow, vns);
	wait_for_host(atomic_load(&base) + vns);
}

void vclock_end(void)
{
	atomic_store(&running, false);
}

uint64_t vclock_held_back(void)
{
	return atomic_load(&held);
}
