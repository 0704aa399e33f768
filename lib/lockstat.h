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

void lockstat_header(FILE *f);
void lockstat_print(FILE *f, const char *name, const uint64_t v[LOCKSTAT_NCOLS]);

#endif /* LIB_LOCKSTAT_H */
