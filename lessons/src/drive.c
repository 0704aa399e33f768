/*
 * drive.c - the student's key presses as a scenario (see drive.h).
 *
 * The base scenario is kept line for line except its schedule: its
 * "cpuN until ...", "cpuN steps N", "cpuN ops N", "cpuN to end", "say"
 * and "expect" lines go, and the presses come in as "cpuN next" lines,
 * followed by one expectation (play wants one; whichever way it turns out
 * the trace is what counts).  The format is lessons/scenarios/README.md's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lessons/src/drive.h"
#include "lib/regfile.h"
#include "lib/xalloc.h"

struct drive {
	char *path;
	char *keep;     /* the base without its schedule */
	char *prog[10]; /* "iget 42; unlink 42; iput 42" */
	char scheme[64];
	int ncpus;
	int keys[DRIVE_MAX_KEYS];
	int nkeys;
};

struct drive *drive_new(const char *scenario)
{
	struct drive *d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(scenario);
	return d;
}

void drive_free(struct drive *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->keep);
	free_strs(d->prog, sizeof(d->prog) / sizeof(d->prog[0]));
	free(d);
}

static void append(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
}

/* "cpu3:" or "cpu3" -> 3, with *colon telling which; -1 if neither. */
static int cpu_word(const char *w, bool *colon)
{
	if (strncmp(w, "cpu", 3) != 0 || !isdigit((unsigned char)w[3]))
		return -1;
	char *end;
	long n = strtol(w + 3, &end, 10);
	*colon = *end == ':';
	if (*end && !(*colon && !end[1]))
		return -1;
	return n >= 0 && n < 10 ? (int)n : -1;
}

bool drive_load(struct drive *d, char *err, size_t len)
{
	const char *why;
	FILE *f = fopen_regular(d->path, REGFILE_MAX_BYTES, &why);
	if (!f) {
		snprintf(err, len, "cannot read scenario '%s': it %s", d->path, why);
		return false;
	}
	char line[1024];
	size_t klen = 0, kcap = 0;
	free(d->keep);
	d->keep = NULL;
	append(&d->keep, &klen, &kcap, "");
	while (fgets(line, sizeof(line), f)) {
		char copy[1024], first[64] = "", second[64] = "";
		snprintf(copy, sizeof(copy), "%s", line);
		char *hash = strchr(copy, '#');
		if (hash)
			*hash = 0;
		sscanf(copy, "%63s %63s", first, second);
		bool colon = false;
		int cpu = cpu_word(first, &colon);
		if (strcmp(first, "say") == 0 || strcmp(first, "expect") == 0)
			continue;
		if (cpu >= 0 && !colon)
			continue; /* a schedule line */
		if (strcmp(first, "scheme") == 0)
			snprintf(d->scheme, sizeof(d->scheme), "%s", second);
		if (cpu >= 0 && colon) {
			if (cpu + 1 > d->ncpus)
				d->ncpus = cpu + 1;
			const char *op = strchr(copy, ':') + 1;
			while (isspace((unsigned char)*op))
				op++;
			char opt[256];
			snprintf(opt, sizeof(opt), "%s", op);
			size_t n = strlen(opt);
			while (n && isspace((unsigned char)opt[n - 1]))
				opt[--n] = 0;
			if (!d->prog[cpu]) {
				d->prog[cpu] = xstrdup(opt);
			} else {
				size_t m = strlen(d->prog[cpu]) + n + 4;
				d->prog[cpu] = xrealloc(d->prog[cpu], m);
				strcat(d->prog[cpu], "; ");
				strcat(d->prog[cpu], opt);
			}
		}
		append(&d->keep, &klen, &kcap, line);
		if (klen && d->keep[klen - 1] != '\n')
			append(&d->keep, &klen, &kcap, "\n");
	}
	fclose(f);
	if (!d->ncpus) {
		snprintf(err, len, "%s has no CPU programs (cpuN: OP lines)", d->path);
		return false;
	}
	return true;
}

int drive_ncpus(const struct drive *d)
{
	return d->ncpus;
}

const char *drive_program(const struct drive *d, int cpu)
{
	return cpu >= 0 && cpu < 10 && d->prog[cpu] ? d->prog[cpu] : "(nothing)";
}

const char *drive_scheme(const struct drive *d)
{
	return d->scheme;
}

void drive_push(struct drive *d, int cpu)
{
	if (d->nkeys < DRIVE_MAX_KEYS)
		d->keys[d->nkeys++] = cpu;
}

void drive_undo(struct drive *d)
{
	if (d->nkeys)
		d->nkeys--;
}

int drive_nkeys(const struct drive *d)
{
	return d->nkeys;
}

int drive_key(const struct drive *d, int i)
{
	return d->keys[i];
}

void drive_copy_keys(struct drive *dst, const struct drive *src)
{
	memcpy(dst->keys, src->keys, sizeof(src->keys));
	dst->nkeys = src->nkeys;
}

char *drive_scenario_text(const struct drive *d)
{
	size_t len = 0, cap = 0;
	char *out = NULL;
	append(&out, &len, &cap, d->keep ? d->keep : "");
	append(&out, &len, &cap, "\n# the schedule the student drove, one step per key\n");
	for (int i = 0; i < d->nkeys; i++) {
		char line[32];
		snprintf(line, sizeof(line), "cpu%d next\n", d->keys[i]);
		append(&out, &len, &cap, line);
	}
	append(&out, &len, &cap, "expect no violation\n");
	return out;
}

/* Write the presses' scenario next to nothing else: a temporary file. */
static char *write_temp(const struct drive *d, char *err, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/icache-drive.XXXXXX.scn", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemps(path, 4);
	if (fd < 0) {
		snprintf(err, len, "cannot write a temporary scenario");
		return NULL;
	}
	char *text = drive_scenario_text(d);
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	free(text);
	if (!ok) {
		unlink(path);
		snprintf(err, len, "cannot write a temporary scenario");
		return NULL;
	}
	return xstrdup(path);
}

/* Lines of text (the number of '\n'). */
static int count_lines(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* The press a line of drive_scenario_text's output holds, or -1. */
static int press_of_line(const struct drive *d, int line)
{
	int i = line - (count_lines(d->keep) + 2) - 1;
	return i >= 0 && i < d->nkeys ? i : -1;
}

/*
 * What play's step log says about the presses.  Play runs the schedule
 * lines (one per press) and then, "the schedule is over", the rest of
 * every program; only what happened before that is the student's doing.
 */
enum cpu_run { RUN_READY, RUN_BLOCKED, RUN_DONE };

struct log_facts {
	int refused;       /* the press play would not run, -1 none */
	bool refused_done; /* ... because its CPU had finished */
	char refused_why[300];
	bool deadlock;   /* the presses left every CPU blocked */
	int deadlock_at; /* the press that did, -1 none (or not a press) */
	int press;       /* the CPU whose state "holds N locks" lines give */
	int cur;         /* the press whose steps are being read, -1 none */
	int sleep_press; /* the last press that put its CPU to sleep, -1 none */
	/* what play's --verbose says each CPU is after each press, and a
	 * copy taken when a press is refused: the state it met */
	enum cpu_run run[10];
	char park[10][200];
	enum cpu_run before[10];
	char before_park[10][200];
	bool schedule_over;
	bool done[10];                /* CPUs done within the presses */
	char blocked[10][200];        /* each CPU's "blocked:" line standing */
	char steps[1200];             /* the steps of the press under way, one a line */
	unsigned long long last_step; /* the presses' last step (play's count) */
	char last[400];               /* the last press's steps, as a sentence */
};

/* "deadlock: WHY (schedule line N, step S)" */
static void log_deadlock(const struct drive *d, const char *q, struct log_facts *f)
{
	const char *l = strstr(q, "(schedule line ");
	if (!l) {
		f->deadlock = true; /* after the schedule: not a press */
		return;
	}
	int press = press_of_line(d, atoi(l + 15));
	int w = (int)(l - q - 11);
	if (strstr(q, "every CPU with work left is blocked")) {
		f->deadlock = true; /* the press ran and made it */
		f->deadlock_at = press;
		return;
	}
	if (press < 0 || f->refused >= 0)
		return;
	f->refused = press;
	memcpy(f->before, f->run, sizeof(f->run));
	memcpy(f->before_park, f->park, sizeof(f->park));
	/* "cpu1 blocked: waits for X" -> "cpu1 is blocked: it waits for X" */
	const char *b = strstr(q + 10, " blocked: ");
	if (b && b < l)
		snprintf(f->refused_why, sizeof(f->refused_why), "%.*s is blocked: it %.*s",
			 (int)(b - q - 10), q + 10, (int)(l - b - 11), b + 10);
	else
		snprintf(f->refused_why, sizeof(f->refused_why), "%.*s", w < 290 ? w : 290, q + 10);
}

/* "FILE:LINE: cpu0 has already finished its program" */
static void log_finished(const struct drive *d, const char *line, struct log_facts *f)
{
	const char *c = strstr(line, ".scn:");
	int press = c ? press_of_line(d, atoi(c + 5)) : -1;
	if (press < 0 || f->refused >= 0)
		return;
	f->refused = press;
	f->refused_done = true;
	memcpy(f->before, f->run, sizeof(f->run));
	memcpy(f->before_park, f->park, sizeof(f->park));
	snprintf(f->refused_why, sizeof(f->refused_why),
		 "cpu%d has finished its program: nothing is left for it to run", d->keys[press]);
}

/* A list action in words: "add lru of inode 42 in F". */
static void word_list(const char *w, char *out, size_t len)
{
	char act[16], list[24];
	int n = 0;
	if ((sscanf(w, "%15s %23s of %n", act, list, &n) != 2 || !n) &&
	    (n = 0, sscanf(w, "%15s %23s %n", act, list, &n) != 2 || !n)) {
		snprintf(out, len, "did list %s", w);
		return;
	}
	const char *how = !strcmp(act, "add")    ? "put %s on the %s list%s" :
			  !strcmp(act, "del")    ? "took %s off the %s list%s" :
			  !strcmp(act, "move")   ? "moved %s to the %s list%s" :
			  !strcmp(act, "rotate") ? "rotated %s on the %s list%s" :
						   NULL;
	if (!how) {
		snprintf(out, len, "did list %s", w);
		return;
	}
	const char *rest = w + n, *in = strstr(rest, " in ");
	char what[64];
	snprintf(what, sizeof(what), "%.*s", (int)(in ? (size_t)(in - rest) : strlen(rest)), rest);
	snprintf(out, len, how, what, list, in ? in : "");
}

/*
 * One step of play's log ("acquired i_lock of inode 42 in iput") in the
 * past tense; "" when it goes without saying (a request for a lock that
 * the next step takes, the end of an operation).
 */
static void word_step(const char *w, const char *next, char *out, size_t len)
{
	static const struct {
		const char *verb, *past;
	} v[] = {
		{ "acquired ", "took " },
		{ "release ", "released " },
		{ "trylock-failed ", "tried " },
		{ "trylock ", "trylocked and took " },
		{ "free ", "freed " },
		{ "alloc ", "allocated " },
		{ "wake ", "woke the sleepers on " },
		{ "ref of ", "set i_count of " },
		{ "state of ", "set i_state of " },
		{ "nlink of ", "set i_nlink of " },
		{ "ref inode ", "set i_count of inode " },
		{ "state inode ", "set i_state of inode " },
		{ "nlink inode ", "set i_nlink of inode " },
		{ "queues ", "queued " },
	};
	out[0] = 0;
	if (!strncmp(w, "acquire ", 8)) {
		if (!next || strncmp(next, "acquired ", 9) != 0)
			snprintf(out, len, "asked for %s", w + 8);
		return;
	}
	if (!strncmp(w, "begin ", 6)) {
		int n = (int)strcspn(w + 6, "(");
		while (n && w[6 + n - 1] == ' ')
			n--;
		snprintf(out, len, "began %.*s", n, w + 6);
		return;
	}
	if (!strncmp(w, "end ", 4))
		return;
	if (!strncmp(w, "list ", 5)) {
		word_list(w + 5, out, len);
		return;
	}
	/* the log's newer spelling: "del sb inode 42 in evict" */
	static const char *const acts[] = { "add ", "del ", "move ", "rotate " };
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strncmp(w, acts[i], strlen(acts[i]))) {
			word_list(w, out, len);
			return;
		}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strncmp(w, v[i].verb, strlen(v[i].verb))) {
			snprintf(out, len, "%s%s%s", v[i].past, w + strlen(v[i].verb),
				 !strcmp(v[i].verb, "trylock-failed ") ? ": busy, not taken" : "");
			return;
		}
	snprintf(out, len, "%s", w);
}

/* "cpu0 began iput 42, took i_lock of inode 42 in iput" */
static void word_press(const struct drive *d, int press, const char *steps, char *out, size_t len)
{
	size_t k = (size_t)snprintf(out, len, "cpu%d", press >= 0 ? d->keys[press] : 0);
	int said = 0;
	for (const char *p = steps; *p && k + 8 < len;) {
		const char *nl = strchr(p, '\n');
		const char *next = nl && nl[1] ? nl + 1 : NULL;
		char w[300], part[340];
		snprintf(w, sizeof(w), "%.*s", (int)(nl ? (size_t)(nl - p) : strlen(p)), p);
		word_step(w, next, part, sizeof(part));
		if (part[0])
			k += (size_t)snprintf(out + k, len - k, "%s%s", said++ ? ", " : " ", part);
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (!said)
		snprintf(out + k, len - k, " finished its operation");
}

static void read_log_line(const struct drive *d, const char *line, struct log_facts *f)
{
	unsigned long long st;
	int cpu, n;
	const char *q;
	if (sscanf(line, " cpu%d holds %d lock", &cpu, &n) == 2 && cpu >= 0 && cpu < 10) {
		f->press = cpu; /* the CPU whose state follows */
		return;
	}
	if (strncmp(line, "   and ", 7) == 0 && f->press >= 0 && f->press < 10) {
		const char *w = line + 7;
		f->run[f->press] = strcmp(w, "is done") == 0  ? RUN_DONE :
				   strcmp(w, "is ready") == 0 ? RUN_READY :
								RUN_BLOCKED;
		snprintf(f->park[f->press], sizeof(f->park[0]), "%.190s", w);
		return;
	}
	int at;
	if (!f->schedule_over && sscanf(line, "-- line %d:", &at) == 1 &&
	    press_of_line(d, at) >= 0) {
		if (f->steps[0]) /* the press before: what it did */
			word_press(d, f->cur, f->steps, f->last, sizeof(f->last));
		f->cur = press_of_line(d, at);
		f->steps[0] = 0;
		return;
	}
	if (strstr(line, "the schedule is over")) {
		f->schedule_over = true;
	} else if (strstr(line, "has already finished its program")) {
		log_finished(d, line, f);
	} else if ((q = strstr(line, "deadlock: "))) {
		log_deadlock(d, q, f);
	} else if (f->schedule_over) {
		return;
	} else if (sscanf(line, "step %llu: cpu%d", &st, &cpu) == 2 && cpu >= 0 && cpu < 10) {
		f->blocked[cpu][0] = 0;
		f->last_step = st;
		const char *w = strchr(line, ':') + 2;
		w += strcspn(w, " ");
		w += *w == ' '; /* past "cpuN " */
		size_t used = strlen(f->steps);
		snprintf(f->steps + used, sizeof(f->steps) - used, "%.280s\n", w);
	} else if (sscanf(line, "   cpu%d", &cpu) == 1 && cpu >= 0 && cpu < 10) {
		const char *zz = strstr(line, " sleeps on ");
		if (zz) { /* the press put it to sleep: that is what it did */
			f->sleep_press = f->cur;
			size_t used = strlen(f->steps);
			snprintf(f->steps + used, sizeof(f->steps) - used,
				 "went to sleep on %.250s\n", zz + 11);
			snprintf(f->blocked[cpu], sizeof(f->blocked[cpu]), "%.190s", line + 3);
		}
		if (strstr(line, " is done"))
			f->done[cpu] = true;
		else if (strstr(line, " blocked: "))
			snprintf(f->blocked[cpu], sizeof(f->blocked[cpu]), "%.190s", line + 3);
	}
}

static void read_log(const struct drive *d, const char *out, struct log_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->refused = f->deadlock_at = f->press = f->cur = f->sleep_press = -1;
	for (const char *p = out; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[600];
		snprintf(line, sizeof(line), "%.*s", (int)(n < 599 ? n : 599), p);
		read_log_line(d, line, f);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (f->steps[0] && f->cur >= 0)
		word_press(d, f->cur, f->steps, f->last, sizeof(f->last));
}

/* The last event that belongs to scheduler step `step`, or -1. */
static int64_t step_end_event(const struct lesson_trace *t, uint64_t step)
{
	const struct ix_event *ev = t->ix->ev;
	uint64_t n = t->ix->nev;
	for (uint64_t i = 0; i < n; i++) {
		if (ev[i].type != EV_sched_step || ev[i].val != step)
			continue;
		/* A step's event comes before its sched_step record, except a
		 * lock request's: its sched point is before the attempt, so
		 * lock_acquire (and lock_contended, if it blocks) follow.
		 * Anything else after the record is the next step's. */
		uint64_t j = i;
		while (j + 1 < n && ev[j + 1].cpu == ev[i].cpu &&
		       (ev[j + 1].type == EV_lock_acquire || ev[j + 1].type == EV_lock_contended))
			j++;
		return (int64_t)j;
	}
	return -1;
}

/* Remove press i from the list. */
static void drop_press(struct drive *d, int i)
{
	memmove(d->keys + i, d->keys + i + 1, (size_t)(d->nkeys - i - 1) * sizeof(d->keys[0]));
	d->nkeys--;
}

/*
 * Press i was refused: drop it, and the presses after it that meet a CPU
 * in the same state (a CPU that is done stays done, and a blocked one
 * stays blocked until another CPU runs): those need no play to refuse.
 * Returns how many went.
 */
static int drop_refused(struct drive *d, int i, const struct log_facts *f, char *why, size_t len)
{
	int dropped = 0;
	drop_press(d, i);
	dropped++;
	while (i < d->nkeys) {
		int cpu = d->keys[i];
		if (cpu >= 10 || f->before[cpu] == RUN_READY)
			break;
		if (f->before[cpu] == RUN_DONE)
			snprintf(why, len,
				 "cpu%d has finished its program: nothing is left for it to run",
				 cpu);
		else if (strncmp(f->before_park[cpu], "blocked: ", 9) == 0)
			snprintf(why, len, "cpu%d is blocked: it %.180s", cpu,
				 f->before_park[cpu] + 9);
		else
			snprintf(why, len, "cpu%d %.180s", cpu, f->before_park[cpu]);
		drop_press(d, i);
		dropped++;
	}
	return dropped;
}

/* Play the presses without recording (a few milliseconds). */
static bool play_log(const struct drive *d, struct log_facts *f, char *err, size_t len)
{
	char *scn = write_temp(d, err, len);
	if (!scn)
		return false;
	struct play_result r;
	bool ok = lp_run_args(scn, false, "--verbose", &r) && r.status <= 2;
	unlink(scn);
	free(scn);
	if (ok)
		read_log(d, r.output, f);
	else
		snprintf(err, len, "icache-sim play did not run (status %d)", r.status);
	lp_result_free(&r);
	return ok;
}

/*
 * Keep only the presses play accepts: play them, drop the first one
 * refused (and the ones that must be refused for the same reason), again
 * until none is.  Refused presses never reach the trace.
 */
static bool settle_presses(struct drive *d, struct drive_outcome *o, struct log_facts *f, char *err,
			   size_t len)
{
	for (int round = 0; round <= DRIVE_MAX_KEYS; round++) {
		if (!play_log(d, f, err, len))
			return false;
		if (f->deadlock && f->deadlock_at >= 0 && f->deadlock_at + 1 < d->nkeys) {
			/* nothing runs after a deadlock */
			o->refused = true;
			o->refused_at = f->deadlock_at + 1;
			o->dropped += d->nkeys - f->deadlock_at - 1;
			d->nkeys = f->deadlock_at + 1;
			snprintf(o->why, sizeof(o->why),
				 "every CPU with work left is blocked: nothing can run any more");
			continue;
		}
		if (f->refused < 0)
			return true;
		o->refused = true;
		o->refused_at = f->refused;
		snprintf(o->why, sizeof(o->why), "%s", f->refused_why);
		o->dropped += drop_refused(d, f->refused, f, o->why, sizeof(o->why));
		if (f->refused == d->nkeys)
			return true; /* what is left was played, and ran */
	}
	snprintf(err, len, "the presses would not settle");
	return false;
}

bool drive_settle(struct drive *d, struct drive_outcome *o, char *err, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->reach_ev = o->boundary_ev = -1;
	o->refused_at = -1;
	struct log_facts f;
	return settle_presses(d, o, &f, err, len);
}

/* Where the presses end in the recorded trace. */
static int64_t boundary_of(const struct drive *d, const struct lesson_trace *t,
			   const struct log_facts *f)
{
	uint64_t n = t->ix->nev;
	if (!f->schedule_over)
		return (int64_t)n - 1; /* play stopped inside the presses */
	if (d->nkeys && f->last_step) {
		/* a press runs one step or several: the last one's number */
		int64_t b = step_end_event(t, f->last_step);
		if (b < 0)
			return (int64_t)n - 1;
		/* the last press put its CPU to sleep before any step: the
		 * inode_wait that says so is the press's, after that record */
		int cpu = f->sleep_press == d->nkeys - 1 ? d->keys[f->sleep_press] : -1;
		for (uint64_t i = (uint64_t)b + 1; cpu >= 0 && i < n; i++)
			if (t->ix->ev[i].cpu == cpu && t->ix->ev[i].type == EV_inode_wait) {
				b = (int64_t)i;
				break;
			} else if (t->ix->ev[i].type == EV_sched_step) {
				break;
			}
		return b;
	}
	/* no press: the state the setup left, before the first step.  That
	 * step's own events come before its sched_step record (see
	 * step_end_event): the CPU's events just before the record are its. */
	for (uint64_t i = 0; i < n; i++)
		if (t->ix->ev[i].type == EV_sched_step) {
			int64_t b = (int64_t)i - 1;
			while (b >= 0 && t->ix->ev[b].cpu == t->ix->ev[i].cpu)
				b--;
			return b;
		}
	return (int64_t)n - 1;
}

bool drive_replay(struct drive *d, const struct moment *goal, struct drive_outcome *o, char *err,
		  size_t len)
{
	memset(o, 0, sizeof(*o));
	o->reach_ev = o->boundary_ev = -1;
	o->refused_at = -1;
	struct log_facts f;
	if (!settle_presses(d, o, &f, err, len))
		return false;
	char *scn = write_temp(d, err, len);
	if (!scn)
		return false;
	/* no daemon: play writes the trace itself (lt_play_live) */
	bool ok = lt_play_live(scn, &o->t);
	unlink(scn);
	free(scn);
	if (!ok) {
		snprintf(err, len, "%s", o->t.err);
		lt_free(&o->t);
		return false;
	}
	o->have_trace = true;
	/* the facts of the run the trace is of */
	read_log(d, o->t.play.output, &f);
	o->boundary_ev = boundary_of(d, &o->t, &f);
	int64_t r = lt_find(&o->t, goal);
	o->reached = r >= 0 && r <= o->boundary_ev;
	o->reach_ev = o->reached ? r : -1;
	o->deadlock = f.deadlock && !f.schedule_over;
	o->finished = true;
	for (int c = 0; c < d->ncpus; c++)
		o->finished &= f.done[c];
	snprintf(o->last, sizeof(o->last), "%s", d->nkeys ? f.last : "");
	if (!o->refused) {
		size_t k = 0;
		for (int c = 0; c < 10 && k + 4 < sizeof(o->why); c++)
			if (f.blocked[c][0])
				k += (size_t)snprintf(o->why + k, sizeof(o->why) - k, "%s%.190s",
						      k ? "; " : "", f.blocked[c]);
	}
	return true;
}

void drive_outcome_free(struct drive_outcome *o)
{
	if (o->have_trace)
		lt_free(&o->t);
	memset(o, 0, sizeof(*o));
}
