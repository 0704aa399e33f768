/*
 * credit.h - a lesson's "credit:" lines name primary sources.
 *
 * A credit must not point outside the repository (an absolute path, a
 * "../" path, a home directory, a numbered seed, a design or notes file a
 * reader does not have), and it must name a source the way docs/sources.md
 * lists it: a Message-ID <...@...>, a kernel commit id (12 or more hex
 * digits), a URL, "FILE at vX.Y.Z", or a "quoted title".  When the lesson's
 * repository has docs/sources.md (found from the lesson's directory), every
 * Message-ID, commit id, URL and FILE at TAG of the credit must be listed
 * there, and at least one thing the credit names must be.
 */
#ifndef LESSON_CREDIT_H
#define LESSON_CREDIT_H

#include <stdbool.h>
#include <stddef.h>

/* Is this credit acceptable?  lesson_dir: the directory of the lesson file
 * (docs/sources.md is looked for in it and its parent).  On false, why says
 * what is wrong, in one line. */
bool credit_ok(const char *credit, const char *lesson_dir, char *why, size_t n);

#endif
