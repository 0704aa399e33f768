/*
 * session.c - the lesson's private temporary directory (see session.h).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lessons/src/session.h"
#include "lessons/src/simexec.h"
#include "lib/rmtree.h"

static char dir[PATH_MAX];
static pid_t owner; /* children inherit the handlers: not theirs */
static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
			    SIGBUS, SIGABRT, SIGFPE, SIGILL };
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))
static struct sigaction prev[NSIGS];

/*
 * A child for rm, made from a signal handler.  fork() is not
 * async-signal-safe (POSIX.1-2024 says so): it runs the atfork handlers,
 * and liblttng-ust's take its own locks; ThreadSanitizer stops the lesson
 * there ("signal-unsafe call inside of a signal") before anything is
 * removed.  _Fork() (glibc 2.34) runs none.
 */
static pid_t fork_in_handler(void)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
	return _Fork();
#else
	return fork();
#endif
}

/* Only async-signal-safe calls: _Fork, execve, waitpid, sigaction, raise. */
static void on_signal(int sig)
{
	if (getpid() == owner && dir[0]) {
		pid_t pid = fork_in_handler();
		if (pid == 0) {
			char *const argv[] = { "rm", "-rf", dir, NULL };
			char *const envp[] = { NULL };
			execve("/bin/rm", argv, envp);
			_exit(127);
		}
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0)
				;
		dir[0] = 0;
	}
	for (size_t i = 0; i < NSIGS; i++)
		if (sigs[i] == sig) {
			/* hand over to whoever had it (ncurses restores the
			 * terminal), else the default: die of it */
			sigaction(sig, &prev[i], NULL);
			if (prev[i].sa_handler == SIG_IGN)
				return;
			break;
		}
	raise(sig);
}

void session_catch(void)
{
	if (!dir[0])
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < NSIGS; i++) {
		struct sigaction cur;
		sigaction(sigs[i], NULL, &cur);
		if (cur.sa_handler == on_signal)
			continue;
		sigaction(sigs[i], &sa, &prev[i]);
	}
}

void session_release(void)
{
	if (!dir[0])
		return;
	for (size_t i = 0; i < NSIGS; i++) {
		struct sigaction cur;
		sigaction(sigs[i], NULL, &cur);
		if (cur.sa_handler == on_signal)
			sigaction(sigs[i], &prev[i], NULL);
	}
}

bool session_begin(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/icache-lesson-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "icache-lesson: cannot make a temporary directory in %s\n",
			tmp && *tmp ? tmp : "/tmp");
		dir[0] = 0;
		return false;
	}
	owner = getpid();
	setenv("TMPDIR", dir, 1);
	session_catch();
	return true;
}

void session_end(void)
{
	if (!dir[0])
		return;
	rm_tree(dir);
	dir[0] = 0;
}

const char *session_dir(void)
{
	return dir;
}
