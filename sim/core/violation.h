/*
 * violation.h - what the validator, the handoff checker, the invariant
 * checker and the watchdog report, collected in one place.
 *
 * A report is printed to stderr the first time it is seen (like a lockdep
 * splat), fired as an icache:violation tracepoint, and kept so that `run`
 * can list it in its JSON and exit with status 1.  Identical reports (same
 * kind, classes, sites and check, i.e. format string) are counted, not
 * repeated; two different checks failing at one site are two reports.
 */
#ifndef SIM_VIOLATION_H
#define SIM_VIOLATION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracepoints/icache_enums.h"

#define MAX_VIOLATIONS 64
#define VIOLATION_TEXT 1024

struct violation {
	enum violation_kind kind;
	int cls_a, cls_b;   /* lock classes involved, -1 if none */
	int site_a, site_b; /* sites involved, -1 if none */
	int cpu_a, cpu_b;   /* CPUs involved, -1 if none */
	uint64_t ino;       /* inode involved, 0 if none */
	uint64_t count;     /* how many times it was seen */
	const char *what;   /* its format string: which check said it */
	char text[VIOLATION_TEXT];
};

void violations_reset(void);
void violations_set_quiet(bool quiet);

/* Record one report; text is the human explanation (printf style). */
void report_violation(enum violation_kind kind, int cls_a, int cls_b, int site_a, int site_b,
		      int cpu_a, int cpu_b, uint64_t ino, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

/* Distinct reports kept, and every report counted. */
int violations_distinct(void);
uint64_t violations_total(void);
const struct violation *violation_get(int i);
uint64_t violations_of_kind(enum violation_kind kind);

const char *violation_kind_name(enum violation_kind k);

#endif
