/*
 * regfile.c - open a bounded regular file (see regfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/regfile.h"

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
