/*
 * json.h - the one JSON string writer every --json output uses.
 *
 * Strings are escaped as RFC 8259 section 7 requires: quote, backslash and
 * every control character (\n and \t by name, the rest as \u00XX).
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stdio.h>

/* "s", escaped; a NULL s is written as "". */
void json_str(FILE *f, const char *s);
/* json_str(f, s) if valid, else null. */
void json_str_or_null(FILE *f, const char *s, bool valid);

#endif /* LIB_JSON_H */
