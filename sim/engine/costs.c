/*
 * costs.c - reading and writing cost files (costs.h).
 *
 * The format is one "key value" per line, # starts a comment:
 *
 *   source   Intel(R) Xeon(R) Processor, 2 cores, 2026-12-04T04:50Z
 *   xfer_ns  92.5
 *   lock_ns  80.1      (optional)
 *   contended_ns 40.2  (optional)
 *   xfer_more_ns 3.1   (optional)
 *   line_ns  45.0      (optional)
 *   nap_ns   565000    (optional)
 *   lock_hold_ns 41.0  (optional)
 *   nap_spread_ns 8400 (optional)
 *   step_ns create-unlink 41.2          (any scheme)
 *   step_ns create-unlink merged 40.7   (merged's own)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/costs.h"

static bool fail(char *err, size_t len, const char *name, int line, const char *why)
{
	snprintf(err, len, "%s:%d: %s", name, line, why);
	return false;
}

static bool parse_ns(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || end == s || *end || !(v >= 0) || v > 1e9)
		return false;
	*out = v;
	return true;
}

static bool same_step(const struct cost_model *m, int i, const char *workload, const char *scheme)
{
	return strcmp(m->step[i].workload, workload) == 0 &&
	       strcmp(m->step[i].scheme, scheme ? scheme : "") == 0;
}

void cost_set_step(struct cost_model *m, const char *workload, const char *scheme, double ns)
{
	for (int i = 0; i < m->nsteps; i++) {
		if (same_step(m, i, workload, scheme)) {
			m->step[i].ns = ns;
			return;
		}
	}
	if (m->nsteps == COST_MAX_STEPS)
		return;
	snprintf(m->step[m->nsteps].workload, sizeof(m->step[0].workload), "%s", workload);
	snprintf(m->step[m->nsteps].scheme, sizeof(m->step[0].scheme), "%s", scheme ? scheme : "");
	m->step[m->nsteps++].ns = ns;
}

double cost_step_ns(const struct cost_model *m, const char *workload, const char *scheme)
{
	for (int i = 0; scheme && *scheme && i < m->nsteps; i++)
		if (same_step(m, i, workload, scheme))
			return m->step[i].ns;
	for (int i = 0; i < m->nsteps; i++)
		if (same_step(m, i, workload, ""))
			return m->step[i].ns;
	return m->step_default_ns;
}

double cost_line_ns(const struct cost_model *m)
{
	return m->line_ns >= 0 ? m->line_ns : m->xfer_ns;
}

double cost_nap_ns(const struct cost_model *m)
{
	return m->nap_ns >= 0 ? m->nap_ns : COST_NAP_ASKED_NS;
}

double cost_nap_spread_ns(const struct cost_model *m)
{
	double nap = cost_nap_ns(m);
	if (m->nap_spread_ns <= 0)
		return 0;
	return m->nap_spread_ns < nap ? m->nap_spread_ns : nap;
}

double cost_lock_hold_ns(const struct cost_model *m)
{
	return m->lock_hold_ns >= 0 && m->lock_hold_ns < m->lock_ns ? m->lock_hold_ns : m->lock_ns;
}

/* One line, comments and blanks already gone. */
static bool parse_line(char *p, const char *name, int line, struct cost_model *m, unsigned *seen,
		       char *err, size_t errlen)
{
	char *key = p, *val = p + strcspn(p, " \t");
	if (*val)
		*val++ = 0;
	val += strspn(val, " \t");
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{ "xfer_ns", offsetof(struct cost_model, xfer_ns) },
		{ "wake_ns", offsetof(struct cost_model, wake_ns) },
		{ "wake_call_ns", offsetof(struct cost_model, wake_call_ns) },
		{ "step_default_ns", offsetof(struct cost_model, step_default_ns) },
		{ "lock_ns", offsetof(struct cost_model, lock_ns) },             /* optional */
		{ "contended_ns", offsetof(struct cost_model, contended_ns) },   /* optional */
		{ "xfer_more_ns", offsetof(struct cost_model, xfer_more_ns) },   /* optional */
		{ "line_ns", offsetof(struct cost_model, line_ns) },             /* optional */
		{ "nap_ns", offsetof(struct cost_model, nap_ns) },               /* optional */
		{ "lock_hold_ns", offsetof(struct cost_model, lock_hold_ns) },   /* optional */
		{ "nap_spread_ns", offsetof(struct cost_model, nap_spread_ns) }, /* optional */
	};
	if (strcmp(key, "source") == 0) {
		snprintf(m->source, sizeof(m->source), "%s", val);
		return true;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(key, nums[i].key) != 0)
			continue;
		if (!parse_ns(val, (double *)((char *)m + nums[i].off)))
			return fail(err, errlen, name, line, "not a number of nanoseconds");
		*seen |= 1u << i;
		return true;
	}
	if (strcmp(key, "step_ns") == 0) {
		/* step_ns WORKLOAD [SCHEME] NS */
		char *word[3];
		int n = 0;
		for (char *sv, *t = strtok_r(val, " \t", &sv); t; t = strtok_r(NULL, " \t", &sv)) {
			if (n < 3)
				word[n] = t;
			n++;
		}
		double v;
		if (n < 2 || n > 3)
			return fail(err, errlen, name, line,
				    "step_ns needs a workload, maybe a scheme, and a number");
		if (!parse_ns(word[n - 1], &v))
			return fail(err, errlen, name, line, "not a number of nanoseconds");
		cost_set_step(m, word[0], n == 3 ? word[1] : NULL, v);
		return true;
	}
	return fail(err, errlen, name, line,
		    "unknown key (source, xfer_ns, wake_ns, "
		    "wake_call_ns, step_default_ns, lock_ns, contended_ns, xfer_more_ns, "
		    "line_ns, nap_ns, lock_hold_ns, nap_spread_ns, step_ns)");
}

bool cost_model_parse(const char *text, const char *name, struct cost_model *m, char *err,
		      size_t errlen)
{
	unsigned seen = 0;
	int line = 0;

	memset(m, 0, sizeof(*m));
	m->xfer_more_ns = -1;  /* absent */
	m->line_ns = -1;       /* absent */
	m->nap_ns = -1;        /* absent */
	m->lock_hold_ns = -1;  /* absent */
	m->nap_spread_ns = -1; /* absent */
	while (*text) {
		char buf[512];
		size_t n = strcspn(text, "\n");
		line++;
		if (n >= sizeof(buf))
			return fail(err, errlen, name, line, "line too long");
		memcpy(buf, text, n);
		buf[n] = 0;
		text += n + (text[n] == '\n');
		buf[strcspn(buf, "#")] = 0;
		char *p = buf + strspn(buf, " \t");
		size_t len = strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
			p[--len] = 0;
		if (!*p)
			continue;
		if (!parse_line(p, name, line, m, &seen, err, errlen))
			return false;
	}
	if ((seen & 0xf) != 0xf)
		return fail(err, errlen, name, line,
			    "incomplete: xfer_ns, wake_ns, wake_call_ns and step_default_ns are "
			    "all needed");
	return true;
}

bool cost_model_load(const char *path, struct cost_model *m, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return false;
	}
	char text[16384];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	bool big = !feof(f);
	fclose(f);
	if (big) {
		snprintf(err, errlen, "%s: larger than a cost file can be", path);
		return false;
	}
	text[n] = 0;
	if (strlen(text) != n) {
		snprintf(err, errlen, "%s: not a text file", path);
		return false;
	}
	return cost_model_parse(text, path, m, err, errlen);
}

bool cost_model_write(const char *path, const struct cost_model *m)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "# icache-sim cost model, written by `icache-sim calibrate`.\n"
		   "# Every figure was measured on the host below; see icache-sim(1).\n");
	fprintf(f, "source %s\n", m->source);
	fprintf(f, "xfer_ns %.1f\t\t# a line handed to a CPU spinning on it\n", m->xfer_ns);
	fprintf(f, "wake_ns %.1f\t\t# a sleeping waiter runs again\n", m->wake_ns);
	fprintf(f, "wake_call_ns %.1f\t# the releaser's FUTEX_WAKE\n", m->wake_call_ns);
	fprintf(f, "lock_ns %.1f\t\t# a lock taken and released, uncontended\n", m->lock_ns);
	fprintf(f, "contended_ns %.1f\t# and what a wait for it adds (its clock reads)\n",
		m->contended_ns);
	if (m->xfer_more_ns >= 0)
		fprintf(f, "xfer_more_ns %.1f\t# each further line in flight with it\n",
			m->xfer_more_ns);
	if (m->line_ns >= 0)
		fprintf(f, "line_ns %.1f\t\t# a line another CPU wrote, fetched\n", m->line_ns);
	if (m->nap_ns >= 0)
		fprintf(f, "nap_ns %.1f\t# the flusher's usleep(500), as long as it lasts\n",
			m->nap_ns);
	if (m->nap_spread_ns >= 0)
		fprintf(f, "nap_spread_ns %.1f\t# and give or take this (half its 5-95 %% range)\n",
			m->nap_spread_ns);
	if (m->lock_hold_ns >= 0)
		fprintf(f, "lock_hold_ns %.1f\t# of lock_ns, what runs while it is held\n",
			m->lock_hold_ns);
	fprintf(f, "step_default_ns %.1f\t# between two points, any workload\n",
		m->step_default_ns);
	for (int i = 0; i < m->nsteps; i++)
		fprintf(f, "step_ns %s%s%s %.1f\n", m->step[i].workload,
			*m->step[i].scheme ? " " : "", m->step[i].scheme, m->step[i].ns);
	return fclose(f) == 0;
}
