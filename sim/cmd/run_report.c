/*
 * report.c - a run's figures, as a lock_stat-style table or as JSON.
 *
 * The column names follow /proc/lock_stat so a reader who knows it feels at
 * home: acquisitions, contentions, bounces, wait and hold times.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/lockstat.h"
#include "sim/core/violation.h"
#include "sim/engine/costs.h"
#include "sim/engine/run.h"

static void print_lock_table(FILE *f, const struct run_result *r)
{
	lockstat_header(f);
	for (int k = 0; k < NR_LOCK_CLASSES; k++)
		if (LOCKSTAT_USED(&r->locks[k]))
			lockstat_print(f, lock_class_name(k), LOCKSTAT_ROW(&r->locks[k]));
}

static const char *lock_kind_why(const struct run_config *cfg)
{
	if (cfg->locks != LOCKS_AUTO)
		return "";
	if (cfg->virtual_time)
		return " (the default in virtual mode: the kernel's)";
	if (run_lock_kind(cfg) == LOCK_TICKET)
		return " (the default: every simulated CPU has a core, so they spin)";
	return " (the default: more simulated CPUs than cores, so they sleep)";
}

/* Where the virtual flusher ran, and the CPU time it and the workers had. */
static void print_flusher_cpu(FILE *f, const struct run_config *cfg, const struct run_result *r)
{
	if (cfg->flusher_own_cpu)
		fprintf(f, "the flusher on a CPU of its own (--flusher-cpu=own)");
	else
		fprintf(f, "the flusher shares cpu%d with its worker", cfg->ncpus - 1);
	fprintf(f, ": %.6f virtual CPU-s, the workers %.6f\n", r->flusher_cpu_seconds,
		r->worker_cpu_seconds);
}

static void print_header(FILE *f, const struct run_config *cfg, const struct run_result *r)
{
	double ops_s = r->seconds > 0 ? (double)r->ops / r->seconds : 0;

	if (cfg->virtual_time)
		fprintf(f, "scheme %s (%s), workload %s, %d virtual CPUs (on one thread of %s)\n",
			cfg->scheme->name, cfg->scheme->era, cfg->workload->name, cfg->ncpus,
			host_cpu_model());
	else
		fprintf(f, "scheme %s (%s), workload %s, %d CPUs on %d cores (%s)\n",
			cfg->scheme->name, cfg->scheme->era, cfg->workload->name, cfg->ncpus,
			host_cpus(), host_cpu_model());
	fprintf(f, "locks %s%s\n", lock_kind_name(run_lock_kind(cfg)), lock_kind_why(cfg));
	if (cfg->virtual_time) {
		fprintf(f, "virtual time: costs measured on %s%s\n", cfg->costs->source,
			cfg->lines      ? "; every shared line followed" :
			cfg->list_lines ? "; every list line followed (--lines=lists)" :
					  "; one line per lock and list kind (--lines=heads)");
		if (cfg->workload->flusher)
			print_flusher_cpu(f, cfg, r);
		fprintf(f, "simulated %" PRIu64 " points in %.2f s of host time (%.0f points/s)\n",
			r->vpoints, r->host_seconds,
			r->host_seconds > 0 ? (double)r->vpoints / r->host_seconds : 0);
		fprintf(f,
			"%" PRIu64 " ops in %.6f virtual s: %.0f ops/s, %.2f cache-line "
			"transfers per op\n\n",
			r->ops, r->seconds, ops_s,
			r->ops ? (double)r->line_xfers / (double)r->ops : 0);
		return;
	}
	fprintf(f, "%" PRIu64 " ops in %.3f s: %.0f ops/s\n\n", r->ops, r->seconds, ops_s);
}

/* What the invariant checker accepted, and why: one line. */
const char *lru_window_note(long n)
{
	static _Thread_local char line[200];

	snprintf(line, sizeof(line),
		 "  accepted: %ld unused clean inode%s off the LRU, dropped by one shrinker "
		 "while another had it pinned (I_LRU_ISOLATING): the kernel's window too\n",
		 n, n == 1 ? "" : "s");
	return line;
}

void print_report(FILE *f, const struct run_config *cfg, const struct run_result *r)
{
	print_header(f, cfg, r);
	print_lock_table(f, r);
	fprintf(f,
		"\nat the end: %ld inodes, %ld unused (LRU %ld), %ld hashed, "
		"writeback b_dirty %ld b_io %ld b_more_io %ld\n",
		r->nr_inodes, r->nr_unused, r->lru_len, r->hashed, r->b_dirty, r->b_io,
		r->b_more_io);
	fprintf(f, "invariants: %d check%s, %d failure%s\n", r->invariant_checks,
		r->invariant_checks == 1 ? "" : "s", r->invariant_failures,
		r->invariant_failures == 1 ? "" : "s");
	if (r->lru_window > 0)
		fprintf(f, "%s", lru_window_note(r->lru_window));
	int n = violations_distinct();
	if (n == 0) {
		fprintf(f, "violations: none\n");
		return;
	}
	fprintf(f, "violations: %" PRIu64 " (%d distinct)\n", r->violations, n);
	for (int i = 0; i < n; i++) {
		const struct violation *v = violation_get(i);
		fprintf(f, "  %-20s x%-6" PRIu64 " %.*s\n", violation_kind_name(v->kind), v->count,
			100, v->text);
	}
}

/* "locks":[{"class":...,"acquisitions":...}, ...]: the lock_stat columns of
 * every class that was used, as `run --json` and `play --json` print them. */
void print_locks_json(FILE *f, const struct lock_class_stats *locks)
{
	fprintf(f, "\"locks\":[");
	bool first = true;
	for (int k = 0; k < NR_LOCK_CLASSES; k++) {
		const struct lock_class_stats *s = &locks[k];
		if (!s->acquisitions && !s->contentions && !s->trylock_failures)
			continue;
		fprintf(f,
			"%s{\"class\":\"%s\",\"acquisitions\":%" PRIu64 ",\"contentions\":%" PRIu64
			",\"bounces\":%" PRIu64 ",\"trylock_failures\":%" PRIu64
			",\"wait_ns_total\":%" PRIu64 ",\"wait_ns_max\":%" PRIu64
			",\"hold_ns_total\":%" PRIu64 ",\"hold_ns_max\":%" PRIu64 "}",
			first ? "" : ",", lock_class_name(k), s->acquisitions, s->contentions,
			s->bounces, s->trylock_failures, s->wait_ns_total, s->wait_ns_max,
			s->hold_ns_total, s->hold_ns_max);
		first = false;
	}
	fprintf(f, "]");
}

void print_json(FILE *f, const struct run_config *cfg, const struct run_result *r,
		const char *extra_json)
{
	double ops_s = r->seconds > 0 ? (double)r->ops / r->seconds : 0;

	fprintf(f, "{\"scheme\":");
	json_str(f, cfg->scheme->name);
	fprintf(f, ",\"workload\":");
	json_str(f, cfg->workload->name);
	fprintf(f, ",\"cpus\":%d,\"host_cpus\":%d,\"host_cpu_model\":", cfg->ncpus, host_cpus());
	json_str(f, host_cpu_model());
	fprintf(f, ",\"lock_kind\":\"%s\"", lock_kind_name(run_lock_kind(cfg)));
	if (cfg->virtual_time) {
		fprintf(f, ",\"virtual\":true,\"costs_source\":");
		json_str(f, cfg->costs->source);
		fprintf(f, ",\"points\":%" PRIu64 ",\"host_seconds\":%.3f,\"line_xfers\":%" PRIu64,
			r->vpoints, r->host_seconds, r->line_xfers);
		fprintf(f, ",\"lines\":\"%s\"",
			cfg->lines      ? "all" :
			cfg->list_lines ? "lists" :
					  "heads");
		if (cfg->workload->flusher)
			fprintf(f, ",\"flusher_cpu\":\"%s\"",
				cfg->flusher_own_cpu ? "own" : "shared");
	}
	/* Real: host CPU time; virtual: virtual time on a CPU (run.h). */
	fprintf(f, ",\"cpu_seconds\":{\"workers\":%.6f,\"flusher\":%.6f,\"process\":%.6f}",
		r->worker_cpu_seconds, r->flusher_cpu_seconds, r->process_cpu_seconds);
	fprintf(f, ",\"seed\":%" PRIu64 ",\"ops\":%" PRIu64 ",\"seconds\":%.6f,\"ops_per_s\":%.1f",
		cfg->seed, r->ops, r->seconds, ops_s);
	fprintf(f, ",\"vfs_cache_pressure\":%u", cfg->vfs_cache_pressure);
	fprintf(f, ",\"order\":");
	json_str(f, scheme_order_text(cfg->scheme));
	fprintf(f, ",");
	print_locks_json(f, r->locks);
	fprintf(f,
		",\"final\":{\"nr_inodes\":%ld,\"nr_unused\":%ld,\"lru\":%ld,"
		"\"hashed\":%ld,\"b_dirty\":%ld,\"b_io\":%ld,\"b_more_io\":%ld,"
		"\"inodes_allocated\":%" PRIu64 "}",
		r->nr_inodes, r->nr_unused, r->lru_len, r->hashed, r->b_dirty, r->b_io,
		r->b_more_io, r->inodes_allocated);
	fprintf(f, ",\"invariants\":{\"checks\":%d,\"failures\":%d,\"ok\":%s,\"lru_window\":%ld}",
		r->invariant_checks, r->invariant_failures,
		r->invariant_failures ? "false" : "true", r->lru_window);
	fprintf(f, ",\"violations\":[");
	int n = violations_distinct();
	for (int i = 0; i < n; i++) {
		const struct violation *v = violation_get(i);
		fprintf(f, "%s{\"kind\":\"%s\",\"count\":%" PRIu64 ",\"classes\":[", i ? "," : "",
			violation_kind_name(v->kind), v->count);
		json_str_or_null(f, lock_class_name(v->cls_a), v->cls_a >= 0);
		fputc(',', f);
		json_str_or_null(f, lock_class_name(v->cls_b), v->cls_b >= 0);
		fprintf(f, "],\"sites\":[");
		json_str_or_null(f, site_name(v->site_a), v->site_a >= 0);
		fputc(',', f);
		json_str_or_null(f, site_name(v->site_b), v->site_b >= 0);
		fprintf(f, "],\"cpus\":[%d,%d],\"ino\":%" PRIu64 ",\"text\":", v->cpu_a, v->cpu_b,
			v->ino);
		json_str(f, v->text);
		fputc('}', f);
	}
	fprintf(f, "],\"violations_total\":%" PRIu64, r->violations);
	if (r->inodes) {
		fprintf(f, ",\"inodes\":[");
		for (size_t i = 0; i < r->ninodes; i++) {
			const struct run_inode *ri = &r->inodes[i];
			fprintf(f,
				"%s{\"ino\":%" PRIu64 ",\"sb\":%u,\"state\":%u,"
				"\"count\":%d,\"nlink\":%u,\"hashed\":%s,\"lru\":%s,"
				"\"wb\":%s}",
				i ? "," : "", ri->ino, ri->sb, ri->state, ri->count, ri->nlink,
				ri->hashed ? "true" : "false", ri->on_lru ? "true" : "false",
				ri->on_wb ? "true" : "false");
		}
		fputc(']', f);
	}
	if (extra_json && *extra_json)
		fprintf(f, ",%s", extra_json);
	fprintf(f, "}\n");
}
