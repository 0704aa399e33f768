/*
 * dirguard.h - a temporary directory that outlives no process.
 *
 * A child process holds the read end of a pipe whose write end only we
 * have; when we go (exit, SIGINT, SIGTERM, SIGHUP, even SIGKILL) the pipe
 * reads EOF and the child removes the directory.  The viewer guards its
 * copy of a cut trace and its decoders' packet shares this way.
 */
#ifndef LIB_DIRGUARD_H
#define LIB_DIRGUARD_H

struct dir_guard {
	int fd;  /* the pipe's write end */
	int pid; /* the guarding process; 0 none */
};

/* Start guarding path.  If no process can be started, g->pid
 * is 0 and only a normal exit (the caller's own clean-up) removes it. */
void dir_guard_start(struct dir_guard *g, const char *path);

/* The caller has removed the directory itself: let the guard go. */
void dir_guard_end(struct dir_guard *g);

/* A link at path, inside such a directory, to target by its absolute
 * path (a trace may be named relative to the caller's directory, not the
 * temporary one's); 0, or -1 if target cannot be resolved or linked. */
int dir_link_abs(const char *target, const char *path);

#endif /* LIB_DIRGUARD_H */
