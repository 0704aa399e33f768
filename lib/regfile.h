/*
 * regfile.h - open a file that a program reads whole (a lesson, a
 * scenario): it must be a regular file of bounded size.  A FIFO or
 * /dev/zero named by mistake would otherwise block or never end.
 */
#ifndef LIB_REGFILE_H
#define LIB_REGFILE_H

#include <stdio.h>

/* The largest lesson or scenario we read, and its longest line. */
#define REGFILE_MAX_BYTES (4L << 20)
#define REGFILE_MAX_LINE 4096

/*
 * fopen(path, "r") if path is a regular file of at most max_bytes; else
 * NULL with *why saying what is wrong: strerror(errno) if it could not be
 * opened (errno set), else "is not a regular file" or "is too large ..."
 * (errno 0).
 */
FILE *fopen_regular(const char *path, long max_bytes, const char **why);

#endif
