/*
 * errmsg.h - an error message into a caller's buffer, on one line.
 *
 * The parsers (lib/selector.c) and the trace decoder (viewer/index.c)
 * report into a char buffer their caller prints with a file name: one line
 * each, even when the message quotes a name read from a damaged file,
 * which may hold any byte.
 */
#ifndef LIB_ERRMSG_H
#define LIB_ERRMSG_H

#include <stdbool.h>
#include <stddef.h>

/* printf into err[len], then every control byte becomes '?'.  Returns
 * false, so a parser can `return errmsg(...)`. */
bool errmsg(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* LIB_ERRMSG_H */
