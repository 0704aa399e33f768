/*
 * spawn.c - fork, exec, read the pipe to its end, wait (see spawn.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/xalloc.h"

static char *read_all(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		if (cap - n < 1024) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	return buf;
}

/* In the child: only async-signal-safe calls until exec. */
static void child(char *const argv[], bool with_stderr, int out)
{
	int nul = open("/dev/null", O_RDONLY);

	if (nul >= 0)
		dup2(nul, 0);
	dup2(out, 1);
	if (with_stderr)
		dup2(out, 2);
	execvp(argv[0], argv);
	/* The parent reads this as the output. */
	dprintf(1, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

pid_t fork_piped(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
	}
	return pid;
}

int spawn_capture(char *const argv[], bool with_stderr, char **output)
{
	int pfd[2], st;
	pid_t pid = fork_piped(pfd);

	if (pid < 0) {
		*output = xasprintf("cannot run %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(argv, with_stderr, pfd[1]);
	close(pfd[1]);
	*output = read_all(pfd[0]);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int spawn_capture_split(char *const argv[], char **output, char **errors)
{
	/* stderr into a file of its own, read once the child is gone:
	 * through the stdout pipe, an unbuffered error line would land in
	 * the middle of the buffered output, cutting a line in two. */
	FILE *ef = tmpfile();
	int saved = -1, st;

	if (!ef) {
		*output = xasprintf("cannot run %s: %s", argv[0], strerror(errno));
		*errors = xstrdup("");
		return -1;
	}
	fflush(NULL);
	saved = dup(2);
	dup2(fileno(ef), 2);
	st = spawn_capture(argv, false, output);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	lseek(fileno(ef), 0, SEEK_SET);
	*errors = read_all(fileno(ef));
	fclose(ef);
	return st;
}
