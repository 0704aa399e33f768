/*
 * regfile.c - open a bounded regular file (see regfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/regfile.h"
#include "lib/xalloc.h"

FILE *fopen_regular(const char *path, long max_bytes, const char **why)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "is not a regular file";
		close(fd);
		errno = 0;
		return NULL;
	}
	if (st.st_size > max_bytes) {
		*why = "is too large (more than 4 MiB)";
		close(fd);
		errno = 0;
		return NULL;
	}
	/* Back to blocking reads, which a regular file never waits on. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		*why = strerror(errno);
		close(fd);
	}
	return f;
}

/* The first line of buf[0..len) that is too long, or past the count:
 * its number (1-based), else 0. */
static long bad_line(const char *buf, size_t len, char *err, size_t errlen)
{
	long lineno = 1;
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && buf[i] != '\n')
			continue;
		if (i - start > REGFILE_MAX_LINE) {
			snprintf(err, errlen, "line too long (more than %d bytes)",
				 REGFILE_MAX_LINE);
			return lineno;
		}
		if (i < len && lineno >= REGFILE_MAX_LINES) {
			snprintf(err, errlen, "too many lines (more than %d)", REGFILE_MAX_LINES);
			return lineno + 1;
		}
		lineno++;
		start = i + 1;
	}
	return 0;
}

char *read_text_file(const char *path, size_t *len, long *line, char *err, size_t errlen)
{
	const char *why;
	FILE *f = fopen_regular(path, REGFILE_MAX_BYTES, &why);

	*line = 0;
	if (!f) {
		snprintf(err, errlen, errno ? "cannot open: %s" : "cannot read: it %s", why);
		return NULL;
	}
	/* fopen_regular bounds the size; a file that grows meanwhile is cut. */
	char *buf = xmalloc((size_t)REGFILE_MAX_BYTES + 1);
	size_t n = fread(buf, 1, (size_t)REGFILE_MAX_BYTES, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "read error");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*line = bad_line(buf, n, err, errlen);
	if (*line) {
		free(buf);
		return NULL;
	}
	*len = n;
	return xrealloc(buf, n + 1);
}
