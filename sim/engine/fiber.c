/*
 * fiber.c - hand-rolled coroutine switches (fiber.h says why).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/engine/fiber.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define FIBER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define FIBER_TSAN 1
#endif

/* The fiber being switched to, and from: a starting trampoline picks
 * itself up from here, and AddressSanitizer learns the main stack. */
static __thread struct fiber *starting, *leaving;

static void san_finish(void *fake_stack)
{
#if FIBER_ASAN
	const void *bottom;
	size_t size;
	__sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
	if (leaving && !leaving->own_stack) {
		leaving->stack = (void *)bottom;
		leaving->stack_size = size;
	}
#else
	(void)fake_stack;
#endif
}

#if defined(__x86_64__)
/*
 * fiber_swap(&from->sp, to->sp): push the callee-saved registers, save
 * rsp, load the other rsp, pop its registers and return into it.
 */
void fiber_swap(void **save_sp, void *new_sp);
__asm__(".text\n"
	".globl fiber_swap\n"
	".type fiber_swap,@function\n"
	"fiber_swap:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n"
	"\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n"
	"\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size fiber_swap,.-fiber_swap\n");
#endif

static void trampoline(void)
{
	struct fiber *f = starting;
	san_finish(NULL);
	f->fn(f->arg);
	fprintf(stderr, "icache-sim: a fiber returned\n");
	abort();
}

void fiber_init_main(struct fiber *f)
{
	memset(f, 0, sizeof(*f));
#if FIBER_TSAN
	f->tsan_fiber = __tsan_get_current_fiber();
#endif
}

bool fiber_create(struct fiber *f, size_t stack_size, void (*fn)(void *), void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(f, 0, sizeof(*f));
	stack_size = (stack_size + page - 1) / page * page;
	void *mem = mmap(NULL, stack_size + page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return false;
	(void)mprotect(mem, page, PROT_NONE); /* the guard: overflow faults */
	f->stack = (char *)mem + page;
#if FIBER_ASAN
	/* A stack unmapped by fiber_destroy keeps AddressSanitizer's marks
	 * of its old frames (redzones); mmap may hand the same addresses back. */
	__asan_unpoison_memory_region(f->stack, stack_size);
#endif
	f->stack_size = stack_size;
	f->own_stack = true;
	f->fn = fn;
	f->arg = arg;
#if defined(__x86_64__)
	/* A frame fiber_swap can return into: six zeroed registers, then the
	 * trampoline's address, then a fake return address, so that the
	 * trampoline starts with the stack aligned as after a call. */
	uintptr_t top = ((uintptr_t)f->stack + stack_size) & ~(uintptr_t)15;
	void **sp = (void **)top;
	*--sp = NULL;
	*--sp = (void *)trampoline;
	for (int i = 0; i < 6; i++)
		*--sp = NULL;
	f->sp = sp;
#else
	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = f->stack;
	f->uc.uc_stack.ss_size = stack_size;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, trampoline, 0);
#endif
#if FIBER_TSAN
	f->tsan_fiber = __tsan_create_fiber(0);
#endif
	return true;
}

void fiber_destroy(struct fiber *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!f->own_stack)
		return;
#if FIBER_TSAN
	__tsan_destroy_fiber(f->tsan_fiber);
#endif
	munmap((char *)f->stack - page, f->stack_size + page);
	f->stack = NULL;
}

void fiber_switch(struct fiber *from, struct fiber *to)
{
	starting = to;
	leaving = from;
#if FIBER_ASAN
	__sanitizer_start_switch_fiber(&from->san_fake_stack, to->stack, to->stack_size);
#endif
#if FIBER_TSAN
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
#if defined(__x86_64__)
	fiber_swap(&from->sp, to->sp);
#else
	swapcontext(&from->uc, &to->uc);
#endif
	san_finish(from->san_fake_stack);
}
