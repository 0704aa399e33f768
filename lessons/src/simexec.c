/*
 * play.c - fork/exec of `icache-sim play`, output captured, into a fresh
 * temporary directory under $TMPDIR.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lessons/src/simexec.h"

const char *lp_exe_dir(void)
{
	static char dir[PATH_MAX];
	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		if (n <= 0) {
			snprintf(dir, sizeof(dir), ".");
		} else {
			dir[n] = 0;
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = 0;
		}
	}
	return dir;
}

const char *lp_sim_path(void)
{
	static char path[PATH_MAX + 16];
	const char *env = getenv("ICACHE_SIM");
	if (env && *env)
		return env;
	snprintf(path, sizeof(path), "%s/icache-sim", lp_exe_dir());
	if (access(path, X_OK) == 0)
		return path;
	return "icache-sim";
}

static char *read_all(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (cap - n < 1024) {
			cap *= 2;
			buf = realloc(buf, cap);
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

/* What the child wrote on stderr, after its stdout, on a line of its own. */
static void append_stderr(struct play_result *r, FILE *errf)
{
	lseek(fileno(errf), 0, SEEK_SET);
	char *err = read_all(fileno(errf));
	size_t n = strlen(r->output), m = strlen(err);
	char *both = err[0] ? realloc(r->output, n + m + 2) : NULL;
	if (both) {
		if (n && both[n - 1] != '\n')
			both[n++] = '\n';
		memcpy(both + n, err, m + 1);
		r->output = both;
	}
	free(err);
}

bool lp_run(const char *scn, bool record, struct play_result *r)
{
	return lp_run_args(scn, record, NULL, r);
}

bool lp_run_args(const char *scn, bool record, const char *extra,
		 struct play_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (record) {
		const char *tmp = getenv("TMPDIR");
		char tmpl[PATH_MAX];
		snprintf(tmpl, sizeof(tmpl), "%s/icache-lesson.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpl)) {
			r->output = strdup("cannot make a temporary directory");
			return false;
		}
		/* play -o wants a directory it creates: use a child of ours */
		size_t n = strlen(tmpl) + 8;
		r->trace_dir = malloc(n);
		snprintf(r->trace_dir, n, "%s/trace", tmpl);
	}
	int pfd[2];
	if (pipe(pfd) != 0) {
		r->output = strdup(strerror(errno));
		return false;
	}
	/* stderr goes to a file of its own and is appended after stdout:
	 * through one pipe, play's unbuffered error line would land in the
	 * middle of its buffered step log, cutting a line in two. */
	FILE *errf = tmpfile();
	if (!errf) {
		r->output = strdup(strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		r->output = strdup(strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		fclose(errf);
		return false;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(fileno(errf), 2);
		close(pfd[0]);
		close(pfd[1]);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		const char *sim = lp_sim_path();
		if (!record) {
			/* nothing is recorded: do not wait on the session
			 * daemon at start-up (a third of a short play) */
			setenv("LTTNG_UST_REGISTER_TIMEOUT", "0", 1);
			setenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", "1", 1);
		}
		if (record)
			execlp(sim, sim, "play", scn, "-o", r->trace_dir, extra,
			       (char *)NULL);
		else
			execlp(sim, sim, "play", scn, extra, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", sim, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	r->output = read_all(pfd[0]);
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	append_stderr(r, errf);
	fclose(errf);
	return r->status >= 0 && r->status != 127;
}

void lp_remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			size_t n = strlen(path) + strlen(e->d_name) + 2;
			char *p = malloc(n);
			snprintf(p, n, "%s/%s", path, e->d_name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				lp_remove_tree(p);
			else
				unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(path);
}

void lp_result_free(struct play_result *r)
{
	if (r->trace_dir) {
		lp_remove_tree(r->trace_dir);
		char *slash = strrchr(r->trace_dir, '/');
		if (slash) {
			*slash = 0;
			rmdir(r->trace_dir);   /* the mkdtemp parent */
		}
	}
	free(r->trace_dir);
	free(r->output);
	memset(r, 0, sizeof(*r));
	r->status = -1;
}
