/*
 * num.h - a whole decimal number from a command line, a scenario or a
 * lesson: digits only, no sign, no blanks, nothing after, no overflow.
 */
#ifndef LIB_NUM_H
#define LIB_NUM_H

#include <stdbool.h>
#include <stdint.h>

/* s as a number in lo..hi into *out; false (and *out untouched) if it is
 * not one, or out of range. */
bool parse_u64_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
