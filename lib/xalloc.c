/*
 * xalloc.c - checked allocation and the fatal exit (see xalloc.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* Written once by a front end's setup, read on the way out: no lock. */
static void (*fatal_hook)(void);

void fatal_hook_set(void (*hook)(void))
{
	fatal_hook = hook;
}

void fatal(const char *fmt, ...)
{
	void (*hook)(void) = fatal_hook;
	va_list ap;

	/* Cleared first, so a hook that itself fails cannot recurse. */
	fatal_hook = NULL;
	if (hook)
		hook();
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/*
	 * _exit, not exit: out of memory or threads, liblttng-ust may not
	 * have started its listener threads, and its destructor then calls
	 * pthread_cancel() on a thread that does not exist (a segfault after
	 * our message, seen under `ulimit -v`).  Nothing of ours runs at exit.
	 */
	fflush(NULL);
	_exit(2);
}

static void *checked(void *p, size_t size)
{
	if (!p && size)
		fatal("out of memory (%zu bytes wanted)", size);
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		fatal("out of memory (%zu x %zu bytes wanted)", n, size);
	return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xcalloc_aligned(size_t n, size_t size, size_t align)
{
	void *p = NULL;
	size_t bytes;

	if (size && n > SIZE_MAX / size)
		fatal("out of memory (%zu x %zu bytes wanted)", n, size);
	bytes = n * size;
	if (posix_memalign(&p, align, bytes ? bytes : 1))
		fatal("out of memory (%zu bytes wanted, aligned to %zu)", bytes, align);
	memset(p, 0, bytes);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	return checked(realloc(p, size ? size : 1), size);
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		fatal("out of memory (%zu x %zu bytes wanted)", n, size);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return checked(strdup(s), strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	return checked(strndup(s, n), n + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("out of memory (formatting a string)");
	return s;
}

void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

void free_each(void *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

void xpthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, attr, fn, arg);

	if (err)
		fatal("cannot start a thread: %s", strerror(err));
}
