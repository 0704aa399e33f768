/*
 * drive.c - the student's key presses as a scenario (see drive.h).
 *
 * The base scenario is kept line for line except its schedule: its
 * "cpuN until ...", "cpuN steps N", "cpuN ops N", "cpuN to end", "say"
 * and "expect" lines go, and the presses come in as "cpuN steps 1" lines,
 * followed by one expectation (play wants one; whichever way it turns out
 * the trace is what counts).  The format is lessons/scenarios/README.md's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lessons/src/drive.h"
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
	for (int i = 0; i < 10; i++)
		free(d->prog[i]);
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
	FILE *f = fopen(d->path, "r");
	if (!f) {
		snprintf(err, len, "cannot read scenario '%s'", d->path);
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
		snprintf(line, sizeof(line), "cpu%d steps 1\n", d->keys[i]);
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

/* The file line of press i in drive_scenario_text's output (1-based). */
static int press_line(const struct drive *d, int i)
{
	return count_lines(d->keep) + 2 + i + 1;
}

/*
 * What play's step log says about the presses: the last step number before
 * "the schedule is over" (0: the log never says so), a deadlock report on
 * one of our lines, and each CPU's last "blocked:" line still standing.
 */
struct log_facts {
	uint64_t boundary_step;
	bool schedule_over;
	int deadlock_line; /* 0 none */
	char deadlock_why[300];
	bool finished_line_err; /* "has already finished its program" */
	char blocked[10][200];
};

static void read_log(const char *out, struct log_facts *f)
{
	memset(f, 0, sizeof(*f));
	for (const char *p = out; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[600];
		snprintf(line, sizeof(line), "%.*s", (int)(n < 599 ? n : 599), p);
		unsigned long long st;
		int cpu;
		const char *q;
		if (!f->schedule_over && sscanf(line, "step %llu: cpu%d", &st, &cpu) == 2) {
			f->boundary_step = st;
			if (cpu >= 0 && cpu < 10)
				f->blocked[cpu][0] = 0;
		} else if (strstr(line, "the schedule is over")) {
			f->schedule_over = true;
		} else if (!f->schedule_over && sscanf(line, "   cpu%d blocked:", &cpu) == 1 &&
			   cpu >= 0 && cpu < 10 && strstr(line, " blocked: ")) {
			snprintf(f->blocked[cpu], sizeof(f->blocked[cpu]), "%.190s", line + 3);
		} else if (!f->deadlock_line && (q = strstr(line, "deadlock: "))) {
			const char *l = strstr(q, "(schedule line ");
			if (l) {
				f->deadlock_line = atoi(l + 15);
				int w = (int)(l - q - 11);
				snprintf(f->deadlock_why, sizeof(f->deadlock_why), "%.*s",
					 w < 290 ? w : 290, q + 10);
			}
		} else if (strstr(line, "has already finished its program")) {
			f->finished_line_err = true;
			const char *c = strstr(line, ".scn:");
			f->deadlock_line = c ? atoi(c + 5) : -1;
			snprintf(f->deadlock_why, sizeof(f->deadlock_why), "%.290s",
				 strstr(line, "cpu") ? strstr(line, "cpu") : line);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* The last event that belongs to scheduler step `step`, or -1. */
static int64_t step_end_event(const struct lesson_trace *t, uint64_t step)
{
	const struct ix_event *ev = t->ix->ev;
	uint64_t n = t->ix->nev;
	for (uint64_t i = 0; i < n; i++) {
		if (ev[i].type != EV_sched_step || ev[i].val != step)
			continue;
		uint64_t j = i;
		while (j + 1 < n && ev[j + 1].type != EV_sched_step &&
		       ev[j + 1].type != EV_op_begin && ev[j + 1].cpu == ev[i].cpu)
			j++;
		return (int64_t)j;
	}
	return -1;
}

static bool replay_once(struct drive *d, const struct moment *goal, struct drive_outcome *o,
			char *err, size_t len, bool again);

bool drive_replay(struct drive *d, const struct moment *goal, struct drive_outcome *o, char *err,
		  size_t len)
{
	return replay_once(d, goal, o, err, len, true);
}

/*
 * Play the presses.  A press play refuses (its CPU is blocked, asleep or
 * done) is dropped with the ones after it; when play stopped with an error
 * rather than a report, the presses kept are played once more for their
 * trace.
 */
static bool replay_once(struct drive *d, const struct moment *goal, struct drive_outcome *o,
			char *err, size_t len, bool again)
{
	memset(o, 0, sizeof(*o));
	o->reach_ev = o->boundary_ev = -1;
	o->refused_at = -1;
	char *scn = write_temp(d, err, len);
	if (!scn)
		return false;
	bool ok = lt_play(scn, &o->t);
	unlink(scn);
	free(scn);
	struct log_facts f;
	read_log(o->t.play.output ? o->t.play.output : "", &f);
	int press = -1;
	if (f.deadlock_line > 0)
		for (int i = 0; i < d->nkeys; i++)
			if (press_line(d, i) == f.deadlock_line)
				press = i;
	bool real_deadlock = strstr(f.deadlock_why, "every CPU") != NULL;
	if (press >= 0 && !real_deadlock) {
		char why[sizeof(o->why)];
		/* "cpu1 blocked: waits for ..." -> "cpu1 is blocked: it waits ..." */
		char prefix[24];
		snprintf(prefix, sizeof(prefix), "cpu%d blocked: ", d->keys[press]);
		if (strncmp(f.deadlock_why, prefix, strlen(prefix)) == 0)
			snprintf(why, sizeof(why), "cpu%d is blocked: it %.280s", d->keys[press],
				 f.deadlock_why + strlen(prefix));
		else
			snprintf(why, sizeof(why), "cpu%d cannot run: %.280s", d->keys[press],
				 f.deadlock_why);
		d->nkeys = press;
		if (!ok || f.finished_line_err) {
			lt_free(&o->t);
			if (again && !replay_once(d, goal, o, err, len, false))
				return false;
		}
		o->refused = true;
		o->refused_at = press;
		snprintf(o->why, sizeof(o->why), "%s", why);
		if (!ok || f.finished_line_err)
			return true;
	} else if (!ok) {
		snprintf(err, len, "%s", o->t.err);
		lt_free(&o->t);
		return false;
	}
	o->have_trace = true;
	uint64_t n = o->t.ix->nev;
	int64_t boundary = (int64_t)n - 1;
	/* The presses end at the last step they ran: what play did after
	 * them (the rest of the programs, or a report that a press could not
	 * run) is not the student's doing.  A deadlock the presses made is. */
	if (f.schedule_over || (o->refused && !real_deadlock)) {
		int64_t b = step_end_event(&o->t, f.boundary_step);
		if (b >= 0)
			boundary = b;
		else if (!f.boundary_step) {
			/* no press has run a step: the state the setup left */
			boundary = -1;
			for (uint64_t i = 0; i < n && boundary < 0; i++)
				if (o->t.ix->ev[i].type == EV_sched_step)
					boundary = (int64_t)i - 1;
		}
	}
	o->boundary_ev = boundary;
	int64_t r = lt_find(&o->t, goal);
	o->reached = r >= 0 && r <= boundary;
	o->reach_ev = o->reached ? r : -1;
	o->finished = !f.schedule_over && !f.deadlock_line;
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
