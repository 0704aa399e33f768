/*
 * dirguard.c - a temporary directory that outlives no process.
 *
 * The guard ignores the terminal's signals and leaves the session, so a
 * closing terminal does not take it first, and calls only
 * async-signal-safe functions before exec (the caller may have threads).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/dirguard.h"

static void guard_main(int rd, const char *path)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		sigaction(sigs[k], &ign, NULL);
	setsid();
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != rd)
			close(fd);
	char c;
	ssize_t r;
	do
		r = read(rd, &c, 1);
	while (r > 0 || (r < 0 && errno == EINTR));
	execl("/bin/rm", "rm", "-rf", "--", path, (char *)NULL);
	_exit(127);
}

void dir_guard_start(struct dir_guard *g, const char *path)
{
	int p[2];
	g->pid = 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0)
		guard_main(p[0], path);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return;
	}
	g->fd = p[1];
	g->pid = (int)pid;
}

int dir_link_abs(const char *target, const char *path)
{
	char *abs = realpath(target, NULL);
	int rc = abs ? symlink(abs, path) : -1;
	free(abs);
	return rc;
}

void dir_guard_end(struct dir_guard *g)
{
	if (g->pid <= 0)
		return;
	/* The directory is gone: the guard reads EOF, finds nothing, exits. */
	close(g->fd);
	waitpid(g->pid, NULL, 0);
	g->pid = 0;
}
