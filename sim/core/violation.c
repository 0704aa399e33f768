/*
 * violation.c - the one list of everything that went wrong in a run.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/lock.h"
#include "sim/core/trace.h"
#include "sim/core/violation.h"

static pthread_mutex_t vlock = PTHREAD_MUTEX_INITIALIZER;
static struct violation kept[MAX_VIOLATIONS]; /* under vlock */
static int nkept;                             /* under vlock */
static uint64_t total;                        /* under vlock */
static uint64_t per_kind[NR_VIOLATIONS];      /* under vlock */
static bool quiet;

#define X(n) #n,
static const char *const kind_names[] = { ICACHE_VIOLATIONS(X) };
#undef X

const char *violation_kind_name(enum violation_kind k)
{
	return (unsigned)k < NR_VIOLATIONS ? kind_names[k] : "unknown";
}

void violations_reset(void)
{
	pthread_mutex_lock(&vlock);
	nkept = 0;
	total = 0;
	memset(per_kind, 0, sizeof(per_kind));
	pthread_mutex_unlock(&vlock);
}

void violations_set_quiet(bool q)
{
	quiet = q;
}

static bool same_report(const struct violation *v, enum violation_kind kind, int cls_a, int cls_b,
			int site_a, int site_b, const char *what)
{
	return v->kind == kind && v->cls_a == cls_a && v->cls_b == cls_b && v->site_a == site_a &&
	       v->site_b == site_b && (v->what == what || strcmp(v->what, what) == 0);
}

void report_violation(enum violation_kind kind, int cls_a, int cls_b, int site_a, int site_b,
		      int cpu_a, int cpu_b, uint64_t ino, const char *fmt, ...)
{
	char text[VIOLATION_TEXT];
	va_list ap;
	bool fresh = true;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&vlock);
	total++;
	per_kind[kind]++;
	for (int i = 0; i < nkept; i++) {
		if (same_report(&kept[i], kind, cls_a, cls_b, site_a, site_b, fmt)) {
			kept[i].count++;
			fresh = false;
			break;
		}
	}
	if (fresh && nkept < MAX_VIOLATIONS) {
		struct violation *v = &kept[nkept++];
		v->kind = kind;
		v->cls_a = cls_a;
		v->cls_b = cls_b;
		v->site_a = site_a;
		v->site_b = site_b;
		v->cpu_a = cpu_a;
		v->cpu_b = cpu_b;
		v->ino = ino;
		v->count = 1;
		v->what = fmt;
		memcpy(v->text, text, sizeof(text));
	}
	if (fresh && !quiet)
		fprintf(stderr,
			"\n======================================================\n"
			"icache-sim: %s\n%s\n"
			"======================================================\n",
			violation_kind_name(kind), text);
	pthread_mutex_unlock(&vlock);
	trace_violation(cpu_a, kind, cls_a, cls_b, site_a, site_b, ino, text);
}

int violations_distinct(void)
{
	pthread_mutex_lock(&vlock);
	int n = nkept;
	pthread_mutex_unlock(&vlock);
	return n;
}

uint64_t violations_total(void)
{
	pthread_mutex_lock(&vlock);
	uint64_t n = total;
	pthread_mutex_unlock(&vlock);
	return n;
}

uint64_t violations_of_kind(enum violation_kind kind)
{
	pthread_mutex_lock(&vlock);
	uint64_t n = per_kind[kind];
	pthread_mutex_unlock(&vlock);
	return n;
}

const struct violation *violation_get(int i)
{
	return (i >= 0 && i < nkept) ? &kept[i] : NULL;
}
