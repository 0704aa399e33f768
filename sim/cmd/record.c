/*
 * record.c - `icache-sim record`: run a workload while LTTng records it.
 *
 * The process traces itself.  The order of things is what makes the trace
 * complete:
 *
 *   1. A session daemon must exist *before* this program starts, because
 *      liblttng-ust registers with it in its constructor, before main().
 *      If none is reachable we start one and re-exec ourselves with the
 *      same arguments, so the new image registers at startup (the env
 *      variable ICACHE_RECORD_SESSIOND tells it the daemon is its own to
 *      stop).  As root that is the root daemon (root's tools and apps always
 *      talk to /var/run/lttng); otherwise a private daemon with its own
 *      LTTNG_HOME in a temporary directory.
 *   2. Before creating the session we wait until the daemon lists our pid
 *      among the registered apps, whatever LTTNG_UST_REGISTER_TIMEOUT said.
 *   3. Session: per-UID buffers (a zeroed lttng_domain would mean per-PID,
 *      whose 4 x 16 KiB default loses most events), a VPID tracker holding
 *      only our pid, one channel sized generously, icache:* and vtid.
 *      lttng_start_tracing() returns once the apps have their buffers, so
 *      the very next event is recorded.
 *   4. Run, stop (waits until the consumer has written everything),
 *      destroy, then count events and discards *from the trace*.
 *
 * Blocking mode (--blocking) makes writers wait for buffer space instead of
 * discarding; it needs LTTNG_UST_ALLOW_BLOCKING=1 at exec time, so it also
 * re-execs.  It is off by default: a writer waits in 100 ms sleeps, and
 * here it waits holding a simulated spinlock, which stalls every CPU and
 * distorts contention.  Free-running records rely on big buffers instead
 * and fail loudly (exit 1) if anything was lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "lib/rmtree.h"
#include "lib/sigs.h"
#include "lib/spawn.h"
#include "lib/xalloc.h"
#include "sim/cmd/cli.h"
#include "sim/core/clock.h"
#include "sim/core/trace.h"
#include "sim/cmd/record.h"
#include "sim/engine/vclock.h"

#define ENV_OWN "ICACHE_RECORD_SESSIOND"  /* "pid:wfd:wpid:dir" */
#define ENV_REEXEC "ICACHE_RECORD_REEXEC" /* loop guard */
#define CHANNEL "icache"
#define MiB (1024ull * 1024)

static const char *cmd_name = "record";

static int spawn_watcher(int sessiond_pid, const char *sessiond_dir, const char *dir,
			 bool across_exec, int *wpid);
static void stop_watcher(struct recorder *r);

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "icache-sim %s: ", cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static double secs_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e9;
}

/* ---- the session daemon ----------------------------------------------- */

static bool pid_alive(int pid)
{
	char path[64], state = 0;

	if (pid <= 0 || kill(pid, 0) != 0)
		return false;
	/* A zombie nobody has reaped yet is as good as gone. */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X';
}

static int read_pidfile(const char *path)
{
	FILE *f = fopen(path, "r");
	int pid = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

/*
 * lttng-sessiond --daemonize returns once the daemon accepts commands.  Its
 * output goes to a log in dir (shown if it fails), and it must not inherit
 * our stdout: a caller reading our output through a pipe would wait for
 * the daemon to exit.
 */
static int spawn_sessiond(const char *dir)
{
	char pidfile[PATH_MAX], logfile[PATH_MAX], pidarg[PATH_MAX + 16];
	int status;

	snprintf(pidfile, sizeof(pidfile), "%s/sessiond.pid", dir);
	snprintf(logfile, sizeof(logfile), "%s/sessiond.log", dir);
	snprintf(pidarg, sizeof(pidarg), "--pidfile=%s", pidfile);
	pid_t child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		int fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		for (int i = 3; i < 1024; i++)
			close(i);
		execlp("lttng-sessiond", "lttng-sessiond", "--daemonize", "--no-kernel", pidarg,
		       (char *)NULL);
		_exit(127);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	/* The pidfile is written before the parent returns; be patient. */
	for (int i = 0; i < 200; i++) {
		int pid = read_pidfile(pidfile);
		if (pid > 0 && lttng_session_daemon_alive() == 1)
			return pid;
		usleep(10000);
	}
	return -1;
}

static void show_log(const char *dir)
{
	char path[PATH_MAX], line[512];

	snprintf(path, sizeof(path), "%s/sessiond.log", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	/* One line is the rule; the daemon's own first error helps most. */
	if (fgets(line, sizeof(line), f))
		fprintf(stderr, "icache-sim %s: lttng-sessiond said: %s", cmd_name, line);
	fclose(f);
}

static void kill_sessiond(int pid, const char *dir)
{
	if (pid > 0 && pid_alive(pid)) {
		kill(pid, SIGTERM);
		/* It stops its consumer daemon first; give it 5 s. */
		for (int i = 0; i < 500 && pid_alive(pid); i++)
			usleep(10000);
		if (pid_alive(pid))
			kill(pid, SIGKILL);
	}
	if (dir && *dir)
		rm_tree(dir);
}

/*
 * Another recorder may have found "our" root daemon running meanwhile and
 * be recording through it: then leave it alone (a root daemon is a normal
 * thing to have running), and keep the pidfile's directory only when it is
 * the daemon's LTTNG_HOME.
 */
static bool sessiond_in_use(int watcher)
{
	struct lttng_session *sessions = NULL;
	struct lttng_event *evs = NULL;
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	int n = lttng_list_sessions(&sessions);

	free(sessions);
	if (n > 0)
		return true;
	/*
	 * No session yet, but another icache-sim may have registered and be
	 * about to create one: an app that is not us (or our watcher) counts.
	 */
	struct lttng_handle *h = lttng_create_handle(NULL, &dom);
	if (!h)
		return false;
	n = lttng_list_tracepoints(h, &evs);
	bool other = false;
	for (int i = 0; i < n && !other; i++)
		other = evs[i].pid != getpid() && evs[i].pid != watcher;
	free(evs);
	lttng_destroy_handle(h);
	return other;
}

static void stop_own_sessiond(int pid, const char *dir, int watcher)
{
	if (!sessiond_in_use(watcher))
		kill_sessiond(pid, dir);
	else if (geteuid() == 0)
		rm_tree(dir);
}

void recorder_stop_sessiond(struct recorder *r)
{
	if (r->own_sessiond && !r->sessiond_stopped) {
		stop_own_sessiond(r->sessiond_pid, r->sessiond_dir, r->watcher_pid);
		r->sessiond_stopped = true;
	}
	stop_watcher(r);
}

/* Re-exec ourselves: same program, same command, same arguments. */
static int reexec(char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	setenv(ENV_REEXEC, "1", 1);
	fflush(NULL);
	execv(self, argv);
	return -1;
}

static bool set_exec_env(const struct recorder_opts *o);

static int start_private_sessiond(const struct recorder_opts *o, char **argv)
{
	char dir[] = "/tmp/icache-sessiond-XXXXXX";
	char own[PATH_MAX + 32];

	if (!mkdtemp(dir))
		return fail("cannot create a directory for a session daemon in /tmp: %s",
			    strerror(errno));
	/*
	 * As root, liblttng-ctl and every app always use /var/run/lttng, so
	 * "private" means the root daemon; anyone else gets a daemon of their
	 * own whose sockets live in $LTTNG_HOME/.lttng.
	 */
	if (geteuid() != 0)
		setenv("LTTNG_HOME", dir, 1);
	int pid = spawn_sessiond(dir);
	if (pid < 0) {
		show_log(dir);
		rm_tree(dir);
		return fail(
			"no LTTng session daemon runs and lttng-sessiond could not be started (is lttng-tools installed?)");
	}
	/* Watch from now on: a Ctrl-C before recorder_start must not leak it. */
	int wpid = 0;
	int wfd = o->no_watcher ? -1 : spawn_watcher(pid, dir, o->dir, true, &wpid);
	snprintf(own, sizeof(own), "%d:%d:%d:%s", pid, wfd, wpid, dir);
	setenv(ENV_OWN, own, 1);
	set_exec_env(o);
	reexec(argv);
	kill_sessiond(pid, dir);
	return fail("cannot re-execute /proc/self/exe: %s", strerror(errno));
}

/*
 * The virtual clock plugin: ../lib/icache-lab/icache-vclock.so from this
 * program, the same path in the build tree and after `make install`.
 */
static bool vclock_plugin_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = 0;
	if ((size_t)snprintf(buf, len, "%s/../lib/icache-lab/icache-vclock.so", self) >= len)
		return false;
	return access(buf, R_OK) == 0;
}

/*
 * What liblttng-ust reads only at startup: blocking writers, the virtual
 * clock.  Sets them; true if any was missing (then re-exec).
 */
static bool set_exec_env(const struct recorder_opts *o)
{
	bool missing = false;
	char so[PATH_MAX];

	if (o->blocking && !getenv("LTTNG_UST_ALLOW_BLOCKING")) {
		setenv("LTTNG_UST_ALLOW_BLOCKING", "1", 1);
		missing = true;
	}
	if (o->virtual_clock && !getenv("LTTNG_UST_CLOCK_PLUGIN") &&
	    vclock_plugin_path(so, sizeof(so))) {
		setenv("LTTNG_UST_CLOCK_PLUGIN", so, 1);
		missing = true;
	}
	return missing;
}

bool recorder_daemon_answers(void)
{
	return getenv(ENV_OWN) || lttng_session_daemon_alive() == 1;
}

int recorder_prepare(const struct recorder_opts *o, char **argv)
{
	bool again = getenv(ENV_REEXEC) != NULL;

	if (recorder_daemon_answers()) {
		if (!again && set_exec_env(o)) {
			reexec(argv);
			return fail("cannot re-execute /proc/self/exe: %s", strerror(errno));
		}
		return 0;
	}
	if (again)
		return fail("the session daemon vanished while starting up");
	return start_private_sessiond(o, argv);
}

/* ---- the session ------------------------------------------------------ */

/* Has the daemon heard from this process?  It lists our tracepoints then. */
static bool registered(struct lttng_handle *h)
{
	struct lttng_event *evs = NULL;
	int n = lttng_list_tracepoints(h, &evs);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		found = evs[i].pid == getpid() && strncmp(evs[i].name, "icache:", 7) == 0;
	free(evs);
	return found;
}

static int wait_registered(struct lttng_handle *h)
{
	/* liblttng-ust's own default wait is 3 s; allow for a busy machine. */
	for (int i = 0; i < 1000; i++) {
		if (registered(h))
			return 0;
		usleep(10000);
	}
	return fail("this process did not register with the LTTng session daemon within 10 s");
}

static unsigned possible_cpus(void)
{
	int n = get_nprocs_conf();
	return n > 0 ? (unsigned)n : 1;
}

/*
 * Default: at least 4 x 8 MiB per CPU ring (then split, see PACKET_MAX).  A 3 s, 2-CPU mixed run writes 13 M
 * events (25 bytes each) and 4 x 4 MiB held them all on a quiet machine,
 * but lost 0.4 M when two other processes competed with the consumer
 * daemon for the 2 cores; 32 MiB per CPU also holds a whole 10 000-op test
 * run even if the consumer never gets to run before the end.  The
 * rings live in /dev/shm, one per possible CPU, so on a big box or in a
 * container with a small /dev/shm shrink the sub-buffers until all rings
 * together take at most a quarter of its free space (and 1 GiB).
 */
/*
 * A sub-buffer becomes one packet of the stream file, and a stream cut
 * mid-packet (a full disk, a recorder killed outright) can be read only
 * up to its last whole packet: the same ring in more, smaller sub-buffers
 * keeps what such a cut hides to one packet of at most 4 MiB (about 0.1 s
 * of one CPU), and lets the consumer daemon take each one out sooner.
 */
#define PACKET_MAX (4 * MiB)

static void split_ring(struct recorder *r)
{
	while (r->subbuf_size > PACKET_MAX && r->num_subbuf < 1024) {
		r->subbuf_size /= 2;
		r->num_subbuf *= 2;
	}
}

static void size_channel(struct recorder *r, const struct recorder_opts *o)
{
	unsigned ncpu = possible_cpus();
	uint64_t budget = 1024 * MiB;
	struct statvfs sv;

	r->num_subbuf = o->num_subbuf ? o->num_subbuf : 4;
	if (o->subbuf_size) {
		r->subbuf_size = o->subbuf_size;
		if (o->ring_given)
			split_ring(r);
		return;
	}
	if (statvfs("/dev/shm", &sv) == 0) {
		uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize / 4;
		if (avail < budget)
			budget = avail;
	}
	r->subbuf_size = 8 * MiB;
	/* Room for the whole run, if the consumer daemon never gets a core. */
	while (r->subbuf_size < 256 * MiB && r->subbuf_size * r->num_subbuf < o->ring_bytes)
		r->subbuf_size *= 2;
	while (r->subbuf_size > 256 * 1024 && r->subbuf_size * r->num_subbuf * ncpu > budget)
		r->subbuf_size /= 2;
	if (!o->num_subbuf)
		split_ring(r);
}

/*
 * What one CPU ring will hold: measured on the 2-core VM the project is
 * built on, a traced CPU writes up to 54 MB/s (`record --cpus all
 * --duration 3s`: 13 M events of ~25 bytes, 2 CPUs, a quiet machine) and an
 * operation about 160 events.  A quarter more for safety.
 */
#define RING_BYTES_PER_S (54ull * 1000 * 1000)
#define BYTES_PER_OP (160ull * 25)

static uint64_t run_ring_bytes(const struct run_config *cfg)
{
	unsigned rings =
		(unsigned)cfg->ncpus < possible_cpus() ? (unsigned)cfg->ncpus : possible_cpus();
	double bytes = cfg->ops ? (double)cfg->ops * BYTES_PER_OP / (rings ? rings : 1) :
				  (double)cfg->duration_ns / 1e9 * RING_BYTES_PER_S;
	return (uint64_t)(bytes * 1.25);
}

static int track_only_us(const char *session)
{
	struct lttng_process_attr_tracker_handle *t = NULL;

	if (lttng_session_get_tracker_handle(session, LTTNG_DOMAIN_UST,
					     LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &t) != LTTNG_OK)
		return -1;
	int ok = lttng_process_attr_tracker_handle_set_tracking_policy(
			 t, LTTNG_TRACKING_POLICY_INCLUDE_SET) ==
			 LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
		 lttng_process_attr_virtual_process_id_tracker_handle_add_pid(t, getpid()) ==
			 LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK;
	lttng_process_attr_tracker_handle_destroy(t);
	return ok ? 0 : -1;
}

static int enable_channel(struct lttng_handle *h, struct lttng_domain *dom,
			  const struct recorder *r, const struct recorder_opts *o)
{
	struct lttng_channel *ch = lttng_channel_create(dom);
	int ret;

	if (!ch)
		return -LTTNG_ERR_NOMEM;
	snprintf(ch->name, sizeof(ch->name), "%s", CHANNEL);
	ch->enabled = 1;
	ch->attr.overwrite = 0; /* discard mode: losses are counted */
	ch->attr.subbuf_size = r->subbuf_size;
	ch->attr.num_subbuf = r->num_subbuf;
	ch->attr.output = LTTNG_EVENT_MMAP;
	/* Rings sized for the whole run may not fill for seconds: switch
	 * sub-buffers every second anyway, so the trace on disk keeps up
	 * with the run and a recorder killed outright loses little. */
	ch->attr.switch_timer_interval = 1000 * 1000;
	/* Not in a virtual recording: the consumer would close a packet at a
	 * host time ahead of the virtual stamps of the events still to come. */
	if (o->virtual_clock)
		ch->attr.switch_timer_interval = 0;
	if (o->blocking)
		lttng_channel_set_blocking_timeout(ch, -1); /* infinite */
	ret = lttng_enable_channel(h, ch);
	lttng_channel_destroy(ch);
	return ret;
}

static int enable_events(struct lttng_handle *h)
{
	struct lttng_event *ev = lttng_event_create();
	struct lttng_event_context ctx;
	int ret;

	if (!ev)
		return -LTTNG_ERR_NOMEM;
	snprintf(ev->name, sizeof(ev->name), "icache:*");
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ret = lttng_enable_event(h, ev, CHANNEL);
	lttng_event_destroy(ev);
	if (ret < 0)
		return ret;
	/* cpu_id needs nothing: every UST packet header carries it. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.ctx = LTTNG_EVENT_CONTEXT_VTID;
	return lttng_add_context(h, &ctx, NULL, CHANNEL);
}

static void destroy_session_wait(const char *name, int timeout_ms)
{
	struct lttng_destruction_handle *dh = NULL;

	if (lttng_destroy_session_ext(name, &dh) != LTTNG_OK)
		return;
	/* Wait: the trace is complete on disk only once this returns. */
	lttng_destruction_handle_wait_for_completion(dh, timeout_ms);
	lttng_destruction_handle_destroy(dh);
}

static void destroy_session(const char *name)
{
	destroy_session_wait(name, 30000);
}

static int setup_session(struct recorder *r, const struct recorder_opts *o)
{
	struct lttng_domain dom;
	struct lttng_handle *h;
	int ret;

	memset(&dom, 0, sizeof(dom));
	dom.type = LTTNG_DOMAIN_UST;
	dom.buf_type = LTTNG_BUFFER_PER_UID;
	h = lttng_create_handle(r->session, &dom);
	if (!h)
		return fail("cannot talk to the LTTng session daemon");
	if (wait_registered(h)) {
		lttng_destroy_handle(h);
		return 2;
	}
	ret = lttng_create_session(r->session, o->dir);
	if (ret < 0) {
		lttng_destroy_handle(h);
		return fail("-o %s: cannot create an LTTng session writing there: %s", o->dir,
			    lttng_strerror(ret));
	}
	const char *what = "track this process";
	if (track_only_us(r->session) == 0) {
		what = "create the channel";
		if ((ret = enable_channel(h, &dom, r, o)) >= 0) {
			what = "enable icache:* with the vtid context";
			if ((ret = enable_events(h)) >= 0)
				what = NULL;
		}
	}
	lttng_destroy_handle(h);
	if (what) {
		destroy_session(r->session);
		return fail("cannot %s in LTTng session %s", what, r->session);
	}
	return 0;
}

static void own_sessiond_from_env(struct recorder *r)
{
	const char *own = getenv(ENV_OWN);
	char *colon;

	if (!own)
		return;
	r->own_sessiond = true;
	r->sessiond_pid = atoi(own);
	colon = strchr(own, ':');
	if (colon) {
		r->watch_fd = atoi(colon + 1);
		colon = strchr(colon + 1, ':');
	}
	if (colon) {
		r->watcher_pid = atoi(colon + 1);
		colon = strchr(colon + 1, ':');
	}
	if (r->watch_fd >= 0)
		fcntl(r->watch_fd, F_SETFD, FD_CLOEXEC);
	snprintf(r->sessiond_dir, sizeof(r->sessiond_dir), "%s", colon ? colon + 1 : "");
	unsetenv(ENV_OWN);
	unsetenv(ENV_REEXEC);
}

int recorder_start(struct recorder *r, const struct recorder_opts *o)
{
	uint64_t t0 = now_ns();
	int ret;

	memset(r, 0, sizeof(*r));
	r->watch_fd = -1;
	own_sessiond_from_env(r);
	if (!r->own_sessiond && !o->no_watcher)
		r->watch_fd = spawn_watcher(0, "", o->dir, false, &r->watcher_pid);
	/* The watcher finds our sessions by this prefix: keep it. */
	snprintf(r->session, sizeof(r->session), "icache-rec-%d-%" PRIu64, (int)getpid(),
		 (uint64_t)(now_ns() % 1000000000ull));
	size_channel(r, o);
	if (setup_session(r, o))
		return 2;
	ret = lttng_start_tracing(r->session);
	if (ret < 0) {
		destroy_session(r->session);
		return fail("cannot start LTTng session %s: %s", r->session, lttng_strerror(ret));
	}
	r->start_s = secs_since(t0);
	return 0;
}

/* Less than one sub-buffer left where the trace is: the consumer daemon
 * could not write, whatever the reader makes of what it left. */
static bool disk_full(const struct recorder *r, const char *dir, uint64_t *left)
{
	struct statvfs sv;
	if (statvfs(dir, &sv) != 0)
		return false;
	*left = (uint64_t)sv.f_bavail * sv.f_frsize;
	return *left < r->subbuf_size;
}

int recorder_finish(struct recorder *r, const struct recorder_opts *o, struct trace_counts *counts)
{
	char err[512];
	uint64_t t0 = now_ns();
	int ret = lttng_stop_tracing(r->session); /* waits for data */

	destroy_session(r->session);
	r->stop_s = secs_since(t0);
	if (ret < 0)
		return fail("cannot stop LTTng session %s: %s", r->session, lttng_strerror(ret));
	uint64_t left;
	struct stat st;
	if (stat(o->dir, &st) != 0)
		return fail("-o %s: the trace directory was removed while recording (%s)", o->dir,
			    strerror(errno));
	if (disk_full(r, o->dir, &left))
		return fail("%s: the disk is full (%" PRIu64 " KiB left): the trace is cut where "
			    "the space ran out",
			    o->dir, left / 1024);
	if (trace_read(o->dir, NULL, NULL, counts, err, sizeof(err)) < 0)
		return fail("cannot read the trace back: %s", err);
	return 0;
}

/* ---- the watcher ------------------------------------------------------- */

/*
 * If the recording process dies before it is done (Ctrl-C, a deadlock
 * report, where the watchdog _exits, a crash), its session would stay
 * active in the daemon, and a daemon it started would live on.  The
 * watcher holds the read end of a pipe whose only write end is the
 * recorder's: a byte means "done, stand down"; end of file without it
 * means the recorder died.  It then stops and destroys the sessions named
 * after the recorder's pid and stops the daemon the recorder started.  It
 * runs in its own session (setsid), so the terminal's Ctrl-C does not stop
 * it too.  When we start the daemon, the watcher starts right after it and
 * its pipe survives the re-exec (across_exec).
 */
static int spawn_watcher(int sessiond_pid, const char *sessiond_dir, const char *dir,
			 bool across_exec, int *wpid)
{
	int fds[2];
	char self[PATH_MAX], fdarg[16], pidarg[16], recarg[16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	snprintf(pidarg, sizeof(pidarg), "%d", sessiond_pid);
	snprintf(recarg, sizeof(recarg), "%d", (int)getpid());
	pid_t pid = fork_piped(fds);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Only async-signal-safe calls between fork and exec. */
		int fd = dup(fds[0]); /* without O_CLOEXEC */
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		setsid();
		snprintf(fdarg, sizeof(fdarg), "%d", fd);
		execl(self, "icache-sim", "record", "--watch", fdarg, recarg, dir ? dir : "",
		      pidarg, sessiond_dir, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	if (across_exec)
		fcntl(fds[1], F_SETFD, 0);
	*wpid = pid;
	return fds[1];
}

/* Tell the watcher all went well; it exits without touching anything. */
static void stop_watcher(struct recorder *r)
{
	if (r->watch_fd < 0)
		return;
	if (write(r->watch_fd, "d", 1) != 1)
		fprintf(stderr, "icache-sim %s: lost the watcher process\n", cmd_name);
	close(r->watch_fd);
	r->watch_fd = -1;
}

/* Stop and destroy the sessions of recorder `rec`; how many there were. */
static int destroy_sessions_of(const char *rec)
{
	struct lttng_session *s = NULL;
	char prefix[64];
	int n = lttng_list_sessions(&s), found = 0;

	snprintf(prefix, sizeof(prefix), "icache-rec-%s-", rec);
	for (int i = 0; i < n; i++) {
		if (strncmp(s[i].name, prefix, strlen(prefix)) != 0)
			continue;
		lttng_stop_tracing(s[i].name); /* flushes what was written */
		/*
		 * A writer killed in the middle of an event leaves a
		 * sub-buffer that is never committed, and the consumer may
		 * wait for it for ever: give up after 3 s.
		 */
		destroy_session_wait(s[i].name, 3000);
		found++;
	}
	free(s);
	return found;
}

/* Does a metadata file under dir/ust declare an event?  A recorder
 * killed while its session was being set up leaves only the preamble. */
static bool trace_declares_events(const char *dir)
{
	glob_t g;
	char pat[PATH_MAX];
	bool any = false;
	snprintf(pat, sizeof(pat), "%s/ust/*/*/*/metadata", dir);
	if (glob(pat, 0, NULL, &g) != 0)
		return false;
	for (size_t i = 0; i < g.gl_pathc && !any; i++) {
		FILE *f = fopen(g.gl_pathv[i], "rb");
		char buf[65536];
		size_t n;
		while (f && !any && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			any = memmem(buf, n, "event {", 7) != NULL;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return any;
}

int recorder_watch_main(int argc, char **argv)
{
	char c;

	/* argv: --watch FD RECORDER_PID DIR SESSIOND_PID SESSIOND_DIR */
	if (argc != 6)
		return 2;
	int fd = atoi(argv[1]), sessiond = atoi(argv[4]);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	ssize_t n;
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1)
		return 0; /* the recorder is done */
	int found = destroy_sessions_of(argv[2]);
	if (sessiond > 0)
		stop_own_sessiond(sessiond, argv[5], 0);
	if (found && !trace_declares_events(argv[3]))
		fprintf(stderr,
			"icache-sim record: the run did not finish; it ended before its "
			"first event reached %s: nothing was recorded\n",
			argv[3]);
	else if (found)
		fprintf(stderr,
			"icache-sim record: the run did not finish; the trace in %s "
			"keeps what was recorded until then\n",
			argv[3]);
	return 0;
}

/* ---- the command ------------------------------------------------------- */

static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end == 'k' || *end == 'K')
		v *= 1024, end++;
	else if (*end == 'M')
		v *= MiB, end++;
	if (*end || v < 4096 || v > 1024 * MiB || (v & (v - 1)))
		return false;
	*out = v;
	return true;
}

/*
 * Take record's own options out of argv (they are not run options) and
 * leave the rest for parse_run_flags.  Returns the new argc, or -1.
 */
static int take_record_flags(int argc, char **argv, struct recorder_opts *o)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--blocking") == 0) {
			o->blocking = true;
		} else if (strcmp(argv[i], "--subbuf-size") == 0) {
			if (i + 1 >= argc) {
				fail("--subbuf-size needs a value");
				return -1;
			}
			if (!parse_size(argv[++i], &o->subbuf_size)) {
				fail("--subbuf-size: '%s' is not a power of two between 4k and 1024M",
				     argv[i]);
				return -1;
			}
		} else if (strcmp(argv[i], "--buffer-size") == 0) {
			/* The whole ring of one CPU: 4 sub-buffers of a quarter. */
			if (i + 1 >= argc) {
				fail("--buffer-size needs a value");
				return -1;
			}
			if (!parse_size(argv[++i], &o->subbuf_size) || o->subbuf_size < 16384) {
				fail("--buffer-size: '%s' is not a power of two between 16k and "
				     "1024M",
				     argv[i]);
				return -1;
			}
			o->subbuf_size /= 4;
			o->ring_given = true;
		} else {
			argv[n++] = argv[i];
		}
	}
	return n;
}

/* -o DIR: absent or empty, made absolute.  Creates it (LTTng fills it). */
static int prepare_out_dir(const char *dir, char *abs, size_t len)
{
	struct stat st;
	char tmp[PATH_MAX];

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return fail("-o %s: exists and is not a directory", dir);
		DIR *d = opendir(dir);
		struct dirent *e;
		int entries = 0;
		if (!d)
			return fail("-o %s: cannot open: %s", dir, strerror(errno));
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				entries++;
		closedir(d);
		if (entries)
			return fail("-o %s: directory is not empty (remove it or choose another)",
				    dir);
	} else {
		snprintf(tmp, sizeof(tmp), "%s", dir);
		for (char *p = tmp + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return fail("-o %s: cannot create: %s", dir, strerror(errno));
	}
	if (!realpath(dir, tmp))
		return fail("-o %s: %s", dir, strerror(errno));
	snprintf(abs, len, "%s", tmp);
	return 0;
}

static const char record_help[] =
	"usage: icache-sim record [run options] -o DIR [--json]\n\n"
	"Run a workload like `icache-sim run` while LTTng records every lock\n"
	"operation and inode state change into DIR (a CTF trace: open it with\n"
	"icache-view DIR or babeltrace2 DIR).  A session daemon is started (and\n"
	"stopped again) if none runs.  The trace is read back at the end: if the\n"
	"tracer discarded any event, record says so and exits 1.\n\n"
	"record options:\n"
	"  -o, --output DIR  the trace directory (must not exist or be empty)\n"
	"  --blocking        writers wait for buffer space instead of discarding\n"
	"                    (loses nothing, but a full buffer stalls a CPU that\n"
	"                    may hold a lock: contention figures suffer)\n"
	"  --buffer-size S   each CPU's ring buffer, a power of two (e.g. 64M);\n"
	"                    default: room for the whole run (~54 MB per CPU\n"
	"                    and second, ~4 KB per operation), at least 32M,\n"
	"                    at most 1G or a quarter of /dev/shm in all; in\n"
	"                    sub-buffers (packets) of at most 4 MiB\n"
	"  --subbuf-size S   the ring as 4 sub-buffers of S each\n\n"
	"SIGINT or SIGTERM stops the workload at the next operation: the trace\n"
	"ends with run_end (marked interrupted), the report is printed and the\n"
	"exit status is 130 or 143.  If record is killed outright, a watcher\n"
	"process still destroys the session; the trace up to the cut stays.\n\n"
	"run options:\n%s\n"
	"Lock statistics of a traced run are those of a slower program: each of\n"
	"the ~100 events per operation costs 0.1-0.5 us, most of them inside a\n"
	"critical section.  Compare with `icache-sim run` for performance.\n\n"
	"exit status: 0 ok, 1 a violation was found or events were lost,\n"
	"2 bad usage or tracing unavailable\n";

static void print_text_summary(const struct recorder_opts *o, const struct trace_counts *c,
			       const struct run_result *res)
{
	printf("\ntrace: %s\n", o->dir);
	printf("events: %" PRIu64 " (%.1f per operation)\n", c->events,
	       res->ops ? (double)c->events / (double)res->ops : 0.0);
	printf("discarded events: %" PRIu64 "\n", c->discarded_events);
}

static void warn_lossy(const struct trace_counts *c, const struct recorder *r)
{
	fprintf(stderr,
		"icache-sim record: WARNING: THE TRACE IS INCOMPLETE: the tracer "
		"discarded %" PRIu64 " events (%" PRIu64 " packets, %" PRIu64
		" discard records) with %u x %" PRIu64 " KiB sub-buffers per CPU; "
		"rerun with a larger --subbuf-size or with --blocking\n",
		c->discarded_events, c->discarded_packets, c->discard_msgs, r->num_subbuf,
		r->subbuf_size / 1024);
}

static char *extra_json(const struct recorder_opts *o, const struct trace_counts *c,
			const struct recorder *r)
{
	static char buf[PATH_MAX * 2 + 512];
	char path[PATH_MAX * 2];
	size_t k = 0;

	/* The path is ours (realpath); escape what JSON needs anyway. */
	for (const char *p = o->dir; *p && k < sizeof(path) - 2; p++) {
		if (*p == '"' || *p == '\\')
			path[k++] = '\\';
		path[k++] = *p;
	}
	path[k] = 0;
	snprintf(buf, sizeof(buf),
		 "\"trace\":\"%s\",\"events\":%" PRIu64 ",\"discarded_events\":%" PRIu64
		 ",\"discarded_packets\":%" PRIu64 ",\"subbuf_size\":%" PRIu64
		 ",\"num_subbuf\":%u,\"blocking\":%s"
		 ",\"sessiond\":\"%s\",\"sessiond_pid\":%d"
		 ",\"record_start_s\":%.3f,\"record_stop_s\":%.3f",
		 path, c->events, c->discarded_events, c->discarded_packets, r->subbuf_size,
		 r->num_subbuf, o->blocking ? "true" : "false",
		 r->own_sessiond ? "started" : "existing", r->own_sessiond ? r->sessiond_pid : 0,
		 r->start_s, r->stop_s);
	return buf;
}

/* Main's argv again, for the re-exec: "icache-sim record args...". */
static char **full_argv(int argc, char **argv)
{
	char **v = xcalloc((size_t)argc + 3, sizeof(*v));

	v[0] = program_invocation_name;
	v[1] = (char *)"record";
	memcpy(v + 2, argv, (size_t)argc * sizeof(*v));
	return v;
}

static void on_stop_signal(int sig)
{
	run_request_stop(sig);
}

/*
 * SIGINT/SIGTERM end the workload at the next operation boundary; the run
 * then ends as usual (run_end, marked interrupted), the session is flushed
 * and destroyed, the report printed.  Installed before the session is
 * made (a shell's background job starts with SIGINT ignored): a signal
 * during the set-up lets it finish, then the run stops at once.
 */
static void catch_stop_signals(void)
{
	static const int stop_sigs[] = { SIGINT, SIGTERM };

	sigs_catch(stop_sigs, (int)(sizeof(stop_sigs) / sizeof(stop_sigs[0])), on_stop_signal, 0,
		   NULL);
}

static int record_run(const struct run_config *cfg, const struct run_flags *fl,
		      const struct recorder_opts *o)
{
	struct recorder rec;
	struct run_result res;
	struct trace_counts counts;

	catch_stop_signals();
	int status = recorder_start(&rec, o);
	if (status) {
		recorder_stop_sessiond(&rec);
		return status;
	}
	status = run_workload(cfg, &res, fl->inodes);
	int rs = recorder_finish(&rec, o, &counts);
	if (cfg->virtual_time && !vclock_attached())
		fprintf(stderr,
			"icache-sim %s: warning: the virtual clock plugin (icache-vclock.so) "
			"did not load: the trace's times are host times, not virtual\n",
			cmd_name);
	else if (cfg->virtual_time && vclock_held_back())
		fprintf(stderr,
			"icache-sim %s: note: %" PRIu64 " event stamps would have gone back in "
			"virtual time and were held at the previous one\n",
			cmd_name, vclock_held_back());
	recorder_stop_sessiond(&rec);
	if (rs) {
		run_result_free(&res);
		return rs;
	}
	status = finish_run(cmd_name, cfg, fl, &res, status,
			    fl->json ? extra_json(o, &counts, &rec) : NULL);
	if (!fl->json)
		print_text_summary(o, &counts, &res);
	if (trace_counts_lossy(&counts)) {
		warn_lossy(&counts, &rec);
		if (status == 0)
			status = 1;
	}
	if (res.interrupted) {
		fflush(stdout);
		fprintf(stderr,
			"icache-sim %s: interrupted by %s after %" PRIu64
			" operations; the trace is complete up to there (run_end says so)\n",
			cmd_name, strsignal(res.interrupted), res.ops);
		status = 128 + res.interrupted;
	}
	run_result_free(&res);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct run_config cfg;
	struct run_flags fl = { .allow_out = true };
	struct recorder_opts o = { 0 };
	char abs[PATH_MAX];

	if (argc > 0 && strcmp(argv[0], "--watch") == 0)
		return recorder_watch_main(argc, argv);
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf(record_help, run_options_help());
			return 0;
		}
	if (!ICACHE_TRACE)
		return fail("this icache-sim was built with TRACE=0: tracepoints are compiled out");
	char **again = full_argv(argc, argv); /* before argv is filtered */
	int n = take_record_flags(argc, argv, &o);
	run_config_defaults(&cfg);
	if (n < 0 || !parse_run_flags(cmd_name, n, argv, &cfg, &fl)) {
		free(again);
		return 2;
	}
	if (!fl.out) {
		free(again);
		return fail("-o DIR is required (where to write the trace)");
	}
	/* A re-exec'd image finds the (empty) directory it made itself. */
	int status = prepare_out_dir(fl.out, abs, sizeof(abs));
	o.dir = abs;
	o.ring_bytes = run_ring_bytes(&cfg);
	o.virtual_clock = cfg.virtual_time;
	if (!status)
		status = recorder_prepare(&o, again);
	free(again);
	if (status)
		return status;
	return record_run(&cfg, &fl, &o);
}
