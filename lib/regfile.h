/*
 * regfile.h - open a file that a program reads whole (a lesson, a
 * scenario): it must be a regular file of bounded size.  A FIFO or
 * /dev/zero named by mistake would otherwise block or never end.
 */
#ifndef LIB_REGFILE_H
#define LIB_REGFILE_H

#include <stdio.h>

/* The largest lesson or scenario we read, its longest line (bytes, without
 * the newline) and its most lines. */
#define REGFILE_MAX_BYTES (4L << 20)
#define REGFILE_MAX_LINE 4096
#define REGFILE_MAX_LINES 100000

/*
 * fopen(path, "r") if path is a regular file of at most max_bytes; else
 * NULL with *why saying what is wrong: strerror(errno) if it could not be
 * opened (errno set), else "is not a regular file" or "is too large ..."
 * (errno 0).
 */
FILE *fopen_regular(const char *path, long max_bytes, const char **why);

/*
 * The whole text of a lesson or scenario, NUL-terminated (*len bytes), if
 * it is a bounded regular file whose lines are at most REGFILE_MAX_LINE
 * bytes and at most REGFILE_MAX_LINES.  Else NULL, with *line the line at
 * fault (0: the file as a whole) and err one message without the file
 * name: "cannot open: No such file", "line too long (more than 4096
 * bytes)", ...  Reading stops at the first fault: a file of one endless
 * line costs at most REGFILE_MAX_BYTES.
 */
char *read_text_file(const char *path, size_t *len, long *line, char *err, size_t errlen);

#endif
