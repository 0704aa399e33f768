/*
 * xalloc.h - allocation that cannot fail silently.
 *
 * Every allocation in icache-lab goes through these: on failure they run
 * the one registered cleanup hook (the terminal front ends register one
 * that leaves ncurses, so a dying viewer never leaves the terminal in raw
 * mode), print one line naming the program and exit with status 2, the
 * status every icache-lab program uses for "could not do it at all".
 */
#ifndef LIB_XALLOC_H
#define LIB_XALLOC_H

#include <pthread.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/*
 * xcalloc whose block starts at a multiple of align (a power of two, at
 * least a pointer's size), which malloc's 16 bytes do not guarantee.  With
 * align = 64, a structure starts on a cache line, so which of its fields
 * share a line is its own layout, the same in every run, whatever else
 * the process (or a library's thread) allocated before.  free() frees it.
 */
void *xcalloc_aligned(size_t n, size_t size, size_t align);
void *xrealloc(void *p, size_t size);
/* xrealloc(p, n * size), with the multiplication checked. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* free() each of the n strings of v (v itself stays the caller's). */
void free_strs(char **v, size_t n);
/* free() each of the n blocks of v, in order (any may be NULL). */
void free_each(void *const *v, size_t n);
/*
 * A destructor's run of free() calls as one list, freed in the order
 * written, so the structure itself goes last:
 *     free_all(l->title, l->path, l);
 * (the list is a compound literal: an array of void *, counted by sizeof.)
 */
#define free_all(...)                             \
	free_each((void *const[]){ __VA_ARGS__ }, \
		  sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

/* pthread_create, or die saying why (no program here can go on without
 * the thread it asked for). */
void xpthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/*
 * The hook fatal() runs before it prints: one at a time, NULL to clear.
 * Set by whoever puts the terminal into a state a shell cannot use.
 */
void fatal_hook_set(void (*hook)(void));

/* Run the hook, print "PROGRAM: MESSAGE" on stderr, exit(2). */
void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif /* LIB_XALLOC_H */
