/*
 * num.c - whole decimal numbers (see num.h).
 */
#include "lib/num.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

bool parse_u64_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	/* strtoull alone would take "-1" (as 2^64-1), " 7" and "+7" */
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}
