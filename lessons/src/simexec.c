/*
 * simexec.c - `icache-sim play` run through lib/spawn.h, output captured,
 * into a fresh temporary directory under $TMPDIR.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lessons/src/simexec.h"
#include "lib/rmtree.h"
#include "lib/spawn.h"
#include "lib/xalloc.h"

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

bool lp_run(const char *scn, bool record, struct play_result *r)
{
	return lp_run_args(scn, record, NULL, r);
}

/* stdout, then stderr on a line of its own (never interleaved). */
static char *join_output(char *out, char *err)
{
	if (!err[0]) {
		free(err);
		return out;
	}
	char *both =
		xasprintf("%s%s%s", out, out[0] && out[strlen(out) - 1] != '\n' ? "\n" : "", err);
	free(out);
	free(err);
	return both;
}

bool lp_run_args(const char *scn, bool record, const char *extra, struct play_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (record) {
		const char *tmp = getenv("TMPDIR");
		char tmpl[PATH_MAX];
		snprintf(tmpl, sizeof(tmpl), "%s/icache-lesson.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpl)) {
			r->output = xstrdup("cannot make a temporary directory");
			return false;
		}
		/* play -o wants a directory it creates: use a child of ours */
		size_t n = strlen(tmpl) + 8;
		r->trace_dir = xmalloc(n);
		snprintf(r->trace_dir, n, "%s/trace", tmpl);
	}
	const char *sim = lp_sim_path();
	/* Nothing recorded: the simulator need not wait on the session
	 * daemon at start-up (a third of a short play).  Through env(1), so
	 * that only this child sees it. */
	char *quick[] = { "env",
			  "LTTNG_UST_REGISTER_TIMEOUT=0",
			  "LTTNG_UST_WITHOUT_BADDR_STATEDUMP=1",
			  (char *)sim,
			  "play",
			  (char *)scn,
			  (char *)extra,
			  NULL };
	char *rec[] = { (char *)sim, "play", (char *)scn, "-o", r->trace_dir, (char *)extra, NULL };
	char *err = NULL;
	r->status = spawn_capture_split(record ? rec : quick, &r->output, &err);
	r->output = join_output(r->output, err);
	return r->status >= 0 && r->status != 127;
}

void lp_result_free(struct play_result *r)
{
	if (r->trace_dir) {
		rm_tree(r->trace_dir);
		char *slash = strrchr(r->trace_dir, '/');
		if (slash) {
			*slash = 0;
			rmdir(r->trace_dir); /* the mkdtemp parent */
		}
	}
	free(r->trace_dir);
	free(r->output);
	memset(r, 0, sizeof(*r));
	r->status = -1;
}
