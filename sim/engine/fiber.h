/*
 * fiber.h - coroutines for the virtual-time mode: many simulated CPUs on
 * one host thread, switched by hand.
 *
 * A switch saves the callee-saved registers and the stack pointer and
 * loads the other fiber's: tens of nanoseconds, where handing a baton
 * between threads through a condition variable costs microseconds.  On
 * x86-64 the switch is six pushes and a ret (fiber.c); elsewhere it is
 * ucontext's swapcontext.  AddressSanitizer and ThreadSanitizer are told
 * of every switch, so sanitizer builds keep working.
 */
#ifndef SIM_FIBER_H
#define SIM_FIBER_H

#include <stdbool.h>
#include <stddef.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

struct fiber {
	void *sp; /* saved stack pointer (x86-64) */
#if !defined(__x86_64__)
	ucontext_t uc;
#endif
	void *stack; /* its lowest address (learnt on the way, for main) */
	size_t stack_size;
	bool own_stack; /* mmap'd by fiber_create, with a guard page */
	void (*fn)(void *arg);
	void *arg;
	void *san_fake_stack; /* AddressSanitizer's per-switch save */
	void *tsan_fiber;     /* ThreadSanitizer's handle */
};

/* The calling thread's own context, to come back to. */
void fiber_init_main(struct fiber *f);
/* A new fiber that will run fn(arg) when first switched to; fn must never
 * return (it switches away for good).  False if no stack could be had. */
bool fiber_create(struct fiber *f, size_t stack_size, void (*fn)(void *), void *arg);
void fiber_destroy(struct fiber *f);
/* Save the running fiber in from, run to. */
void fiber_switch(struct fiber *from, struct fiber *to);

#endif
