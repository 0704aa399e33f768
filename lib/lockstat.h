/*
 * lockstat.h - the lock_stat-style table `icache-sim run` prints for a
 * run and `icache-view --summary` prints for a trace: one layout, so the
 * two can be compared line by line.  Column names follow /proc/lock_stat.
 */
#ifndef LIB_LOCKSTAT_H
#define LIB_LOCKSTAT_H

#include <stdint.h>
#include <stdio.h>

/* The figures of a row, in column order: acquisitions, contentions,
 * bounces, trylock failures, wait total and max, hold total and max (ns). */
#define LOCKSTAT_NCOLS 8

/*
 * A row's figures from a stats struct that names them as the simulator
 * does (struct lock_class_stats in sim/core/lock.h, struct class_stats in
 * viewer/model.h): which field is which column is said here only.
 */
#define LOCKSTAT_ROW(s)                                                                   \
	((const uint64_t[LOCKSTAT_NCOLS]){                                                \
		(s)->acquisitions, (s)->contentions, (s)->bounces, (s)->trylock_failures, \
		(s)->wait_ns_total, (s)->wait_ns_max, (s)->hold_ns_total, (s)->hold_ns_max })
/* A class gets a row if it was taken, waited for or tried at all. */
#define LOCKSTAT_USED(s) ((s)->acquisitions || (s)->contentions || (s)->trylock_failures)

void lockstat_header(FILE *f);
void lockstat_print(FILE *f, const char *name, const uint64_t v[LOCKSTAT_NCOLS]);

#endif /* LIB_LOCKSTAT_H */
