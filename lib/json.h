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

/* One element of an array: item i of the caller's ctx, written whole. */
typedef void (*json_item_fn)(FILE *f, size_t i, const void *ctx);
/* ,"name":[item 0,item 1,...]: the n items, separated by commas. */
void json_array(FILE *f, const char *name, size_t n, json_item_fn item, const void *ctx);

#endif /* LIB_JSON_H */
