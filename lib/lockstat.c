/*
 * lockstat.c - the lock_stat-style table (see lockstat.h).
 */
#include <inttypes.h>

#include "lib/lockstat.h"

void lockstat_header(FILE *f)
{
	fprintf(f, "%-20s %13s %12s %10s %9s %14s %11s %14s %11s\n", "class", "acquisitions",
		"contentions", "bounces", "trylock-f", "wait-total-ns", "wait-max-ns",
		"hold-total-ns", "hold-max-ns");
}

void lockstat_print(FILE *f, const char *name, const uint64_t v[LOCKSTAT_NCOLS])
{
	fprintf(f,
		"%-20s %13" PRIu64 " %12" PRIu64 " %10" PRIu64 " %9" PRIu64 " %14" PRIu64
		" %11" PRIu64 " %14" PRIu64 " %11" PRIu64 "\n",
		name, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}
