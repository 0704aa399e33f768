/*
 * cli.c - parsing the options of `icache-sim run` and `record`.
 *
 * Every malformed option gets one line on stderr that names the command,
 * the flag and the value, and the caller exits with status 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/num.h"
#include "sim/cmd/cli.h"
#include "sim/engine/costs.h"
#include "sim/core/list_lru.h"
#include "sim/core/lockdep.h"

static const char run_options_rest[] =
	"                    (default mixed; `icache-sim workloads` lists them)\n"
	"  --ops N           stop after N operations in all (split over the CPUs)\n"
	"  --duration D      stop after D: 500ms, 5s, 1m (default 2s unless --ops)\n"
	"  --seed N          seed of the workload's random choices (default 1)\n"
	"  --sbs N           shared superblocks (1..64, default 2)\n"
	"  --hash-bits N     hash table of 2^N chains (4..22, default 12)\n"
	"  --nodes N         simulated NUMA nodes (1..16, default 1): the CPUs are\n"
	"                    dealt out to them in blocks; each sb's list_lru has a\n"
	"                    list and a lock per node (used by today's scheme, modern)\n"
	"  --hot N           inodes in the lookup hot set per sb (1..1000000, default 256)\n"
	"  --cache N         unused inodes the shrinker lets stay (1..1000000, default 512)\n"
	"  --vfs-cache-pressure N  the sysctl (0..10000, default 100): the shrinker\n"
	"                    reports (nr_unused / 100) * N and is asked to scan the\n"
	"                    excess over --cache times N / 100; 0 never prunes\n"
	"  --locks K         lock kind: ticket (FIFO spinlock, as x86 kernels of 2010),\n"
	"                    mcs (queued, as today's qspinlock), mutex (pthread, sleeps);\n"
	"                    default ticket if CPUs <= host cores (or --virtual), else mutex\n"
	"  --virtual         virtual time: the CPUs (1..256) take turns on one host thread,\n"
	"                    each with its own clock, charged by a measured cost model;\n"
	"                    deterministic; --duration is then virtual (default 20ms)\n"
	"  --costs FILE      the cost model for --virtual, as written by\n"
	"                    `icache-sim calibrate` (default: the shipped one)\n"
	"  --jitter PCT      --virtual: each step's work varies by up to PCT % either\n"
	"                    way (0..90, default 0), seeded by --seed\n"
	"  --lines=MODEL     --virtual: which written cache lines a transfer is charged\n"
	"                    for, when another CPU wrote them last: all (the default:\n"
	"                    every shared line the core writes: list nodes, neighbours\n"
	"                    and heads, inode fields, counters, lock bookkeeping),\n"
	"                    lists (only the lines list operations write), heads (one\n"
	"                    line per lock and per list kind: the older, coarser model)\n"
	"  --lines, --list-lines, --no-lines  the same as --lines=all, lists, heads\n"
	"  --flusher-cpu=WHERE  --virtual: shared (the default: the flusher shares the\n"
	"                    last CPU with its worker, as a kernel's flusher thread\n"
	"                    runs on one of the box's CPUs) or own (a CPU of its own,\n"
	"                    as a real run's flusher has a spare core)\n"
	"  --watchdog SECS   no lock taken for SECS = deadlock report (0.1..600, default 5,\n"
	"                    20 in a build with a sanitizer, which runs slower)\n"
	"  --check-every D   also stop the world and check invariants every D\n"
	"  --no-pin          do not pin CPU threads to cores\n"
	"  --quiet           do not print violations as they happen\n"
	"  --json            print the result as one JSON object\n"
	"  --inodes          with --json, list every inode left at the end\n"
	"  --graph FILE      write the observed lock-order graph as Graphviz DOT\n";

/* The options' text starts in this column; lines end by column 80. */
#define HELP_COL 20
#define HELP_WIDTH 80

struct help_buf {
	char text[4096];
	size_t len;
};

static void help_add(struct help_buf *h, const char *s)
{
	h->len += (size_t)snprintf(h->text + h->len, sizeof(h->text) - h->len, "%s", s);
	if (h->len >= sizeof(h->text))
		h->len = sizeof(h->text) - 1; /* cannot happen: the text is ours */
}

/* "LEAD" then the names comma-separated, wrapped under HELP_COL. */
static void help_list(struct help_buf *h, const char *lead, const char *(*name)(int i))
{
	size_t col = strlen(lead);

	help_add(h, lead);
	for (int i = 0; name(i); i++) {
		size_t w = strlen(name(i)) + (name(i + 1) ? 1 : 0); /* the comma */
		if (i && col + 1 + w > HELP_WIDTH) {
			help_add(h, "\n                    ");
			col = HELP_COL;
		} else if (i) {
			help_add(h, " ");
			col++;
		}
		help_add(h, name(i));
		if (name(i + 1))
			help_add(h, ",");
		col += w;
	}
	help_add(h, "\n");
}

static const char *scheme_name_at(int i)
{
	return all_schemes[i] ? all_schemes[i]->name : NULL;
}

static const char *workload_name_at(int i)
{
	return all_workloads[i] ? all_workloads[i]->name : NULL;
}

/* The --scheme and --workload lines list the registries, so a new scheme
 * or workload shows up here by being registered. */
const char *run_options_help(void)
{
	static struct help_buf h;

	if (h.len)
		return h.text;
	help_list(&h, "  --scheme S        locking scheme: ", scheme_name_at);
	help_add(
		&h,
		"                    (default merged; `icache-sim schemes` lists them)\n"
		"  --cpus N|all      simulated CPUs, one pinned thread each (1..256; default 2)\n");
	help_list(&h, "  --workload W      ", workload_name_at);
	help_add(&h, run_options_rest);
	return h.text;
}

static bool bad(const char *cmd, const char *flag, const char *value, const char *why)
{
	fprintf(stderr, "icache-sim %s: %s: '%s' %s\n", cmd, flag, value, why);
	return false;
}

bool parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	double v = strtod(s, &end);
	/* strtod takes "nan" and "inf": neither is a duration. */
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	double mul;
	if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "s") == 0 || *end == 0)
		mul = 1e9;
	else if (strcmp(end, "m") == 0)
		mul = 60e9;
	else
		return false;
	double t = v * mul;
	if (t < 1e6 || t > 3600e9)
		return false;
	*ns = (uint64_t)t;
	return true;
}

/* --virtual and --costs, once every flag is known. */
static bool setup_virtual(const char *cmd, struct run_config *cfg, const char *costs,
			  const char *lines_flag, bool have_length)
{
	static struct cost_model model;
	char err[512];

	if (!cfg->virtual_time) {
		if (costs || cfg->jitter > 0 || lines_flag || cfg->flusher_own_cpu) {
			fprintf(stderr, "icache-sim %s: %s is for --virtual runs\n", cmd,
				costs                ? "--costs" :
				cfg->jitter > 0      ? "--jitter" :
				cfg->flusher_own_cpu ? "--flusher-cpu=own" :
						       lines_flag);
			return false;
		}
		return true;
	}
	if (!lines_flag)
		cfg->lines = true; /* the default model: every shared line */
	if (cfg->check_every_ns) {
		fprintf(stderr,
			"icache-sim %s: --check-every is for real runs (a virtual run is "
			"checked at its end)\n",
			cmd);
		return false;
	}
	if (!have_length)
		cfg->duration_ns = 20ull * 1000 * 1000; /* 20 ms of virtual time */
	if (!costs) {
		cost_model_default(&model);
	} else if (!cost_model_load(costs, &model, err, sizeof(err))) {
		fprintf(stderr, "icache-sim %s: --costs: %s\n", cmd, err);
		return false;
	}
	cfg->costs = &model;
	return true;
}

/* The state of one parse_run_flags() call, shared by its flag groups. */
struct flag_parse {
	const char *cmd;
	struct run_config *cfg;
	struct run_flags *fl;
	bool have_ops, have_duration, inject_abba;
	const char *costs;
	const char *lines_flag; /* the --lines form given, NULL = the default */
};

/* What a flag group did with argv[i] (and argv[i + 1]). */
enum flag_took { NOT_MINE, BAD_FLAG, TOOK_FLAG, TOOK_VALUE };

static enum flag_took refuse(const struct flag_parse *p, const char *a, const char *v,
			     const char *why)
{
	bad(p->cmd, a, v, why);
	return BAD_FLAG;
}

static enum flag_took missing(const struct flag_parse *p, const char *a)
{
	fprintf(stderr, "icache-sim %s: %s needs a value\n", p->cmd, a);
	return BAD_FLAG;
}

/* --cpus N|all */
static enum flag_took flag_cpus(struct flag_parse *p, const char *a, const char *v)
{
	uint64_t n;

	if (strcmp(v, "all") == 0)
		p->cfg->ncpus = host_cpus();
	else if (parse_u64_in(v, 1, MAX_SIM_CPUS, &n))
		p->cfg->ncpus = (int)n;
	else
		return refuse(p, a, v, "is not a CPU count (1..256 or 'all')");
	if (p->cfg->ncpus > MAX_SIM_CPUS)
		p->cfg->ncpus = MAX_SIM_CPUS;
	return TOOK_VALUE;
}

/* What runs: the scheme, the workload, on how many CPUs, for how long. */
static enum flag_took flag_what(struct flag_parse *p, const char *a, const char *v)
{
	struct run_config *cfg = p->cfg;
	uint64_t n;

	if (strcmp(a, "--scheme") && strcmp(a, "--workload") && strcmp(a, "--cpus") &&
	    strcmp(a, "--ops") && strcmp(a, "--duration") && strcmp(a, "--seed"))
		return NOT_MINE;
	if (!v)
		return missing(p, a);
	if (strcmp(a, "--scheme") == 0) {
		cfg->scheme = scheme_find(v);
		if (!cfg->scheme)
			return refuse(p, a, v, "is not a scheme (try `icache-sim schemes`)");
	} else if (strcmp(a, "--workload") == 0) {
		cfg->workload = workload_find(v);
		if (!cfg->workload)
			return refuse(p, a, v, "is not a workload (try `icache-sim workloads`)");
	} else if (strcmp(a, "--cpus") == 0) {
		return flag_cpus(p, a, v);
	} else if (strcmp(a, "--ops") == 0) {
		if (!parse_u64_in(v, 1, 10000000000ull, &n))
			return refuse(p, a, v, "is not an operation count (1..10000000000)");
		cfg->ops = n;
		p->have_ops = true;
	} else if (strcmp(a, "--duration") == 0) {
		if (!parse_duration(v, &cfg->duration_ns))
			return refuse(p, a, v,
				      "is not a duration (like 500ms, 5s, 1m; at most 1 hour)");
		p->have_duration = true;
	} else if (!parse_u64_in(v, 0, UINT64_MAX, &cfg->seed)) {
		return refuse(p, a, v, "is not a seed (a non-negative integer)");
	}
	return TOOK_VALUE;
}

/* The simulated cache's shape: superblocks, hash size, hot set, LRU size. */
static enum flag_took flag_shape(struct flag_parse *p, const char *a, const char *v)
{
	static const struct {
		const char *flag;
		uint64_t lo, hi;
		const char *why;
	} range[] = {
		{ "--sbs", 1, 64, "is not a superblock count (1..64)" },
		{ "--hash-bits", 4, 22, "is out of range (4..22)" },
		{ "--hot", 1, 1000000, "is out of range (1..1000000)" },
		{ "--cache", 1, 1000000, "is out of range (1..1000000)" },
		{ "--nodes", 1, MAX_NUMA_NODES, "is not a node count (1..16)" },
		{ "--vfs-cache-pressure", 0, 10000, "is out of range (0..10000)" },
	};
	uint64_t n;

	for (size_t k = 0; k < sizeof(range) / sizeof(range[0]); k++) {
		if (strcmp(a, range[k].flag))
			continue;
		if (!v)
			return missing(p, a);
		if (!parse_u64_in(v, range[k].lo, range[k].hi, &n))
			return refuse(p, a, v, range[k].why);
		if (k == 0)
			p->cfg->nsbs = (int)n;
		else if (k == 1)
			p->cfg->hash_bits = (unsigned)n;
		else if (k == 2)
			p->cfg->hot = (unsigned)n;
		else if (k == 3)
			p->cfg->cache_limit = (unsigned)n;
		else if (k == 4)
			p->cfg->nodes = (int)n;
		else
			p->cfg->vfs_cache_pressure = (unsigned)n;
		return TOOK_VALUE;
	}
	return NOT_MINE;
}

/*
 * --lines=all|lists|heads and its short forms: which lines a virtual run
 * follows (run.h). The last one given wins, as for every other flag.
 */
static enum flag_took flag_lines(struct flag_parse *p, const char *a)
{
	static const struct {
		const char *flag;
		bool list_lines, lines;
	} form[] = {
		{ "--lines", false, true },        { "--lines=all", false, true },
		{ "--lines=lists", true, false },  { "--list-lines", true, false },
		{ "--lines=heads", false, false }, { "--no-lines", false, false },
	};

	for (size_t k = 0; k < sizeof(form) / sizeof(form[0]); k++) {
		if (strcmp(a, form[k].flag))
			continue;
		p->cfg->list_lines = form[k].list_lines;
		p->cfg->lines = form[k].lines;
		p->lines_flag = form[k].flag;
		return TOOK_FLAG;
	}
	return refuse(p, "--lines", a + 7 + (a[7] == '='),
		      "is not a line model (all, lists, heads)");
}

/* The flags without a value. */
static enum flag_took flag_switch(struct flag_parse *p, const char *a, const char *v)
{
	if (strcmp(a, "--virtual") == 0)
		p->cfg->virtual_time = true;
	else if (strncmp(a, "--lines", 7) == 0 || strcmp(a, "--list-lines") == 0 ||
		 strcmp(a, "--no-lines") == 0)
		return flag_lines(p, a);
	else if (strcmp(a, "--flusher-cpu=own") == 0 || strcmp(a, "--flusher-cpu=shared") == 0)
		p->cfg->flusher_own_cpu = strcmp(a, "--flusher-cpu=own") == 0;
	else if (strncmp(a, "--flusher-cpu", 13) == 0)
		return refuse(p, "--flusher-cpu", a + 13 + (a[13] == '='),
			      "is not where the flusher runs (shared, own)");
	else if (strcmp(a, "--no-pin") == 0)
		p->cfg->pin = false;
	else if (strcmp(a, "--quiet") == 0)
		p->cfg->quiet = true;
	else if (strcmp(a, "--inject-abba") == 0)
		p->inject_abba = true; /* hidden, for tests: a real ABBA on cpu0/cpu1 */
	else if (strcmp(a, "--json") == 0)
		p->fl->json = true;
	else if (strcmp(a, "--inodes") == 0)
		p->fl->inodes = true;
	else
		return NOT_MINE;
	return TOOK_FLAG;
}

/* How it runs: lock kind, watchdog, periodic checks, virtual time's costs. */
static enum flag_took flag_how(struct flag_parse *p, const char *a, const char *v)
{
	struct run_config *cfg = p->cfg;
	enum lock_kind k;
	char *end;

	if (strcmp(a, "--locks") && strcmp(a, "--watchdog") && strcmp(a, "--check-every") &&
	    strcmp(a, "--costs") && strcmp(a, "--jitter"))
		return NOT_MINE;
	if (!v)
		return missing(p, a);
	if (strcmp(a, "--locks") == 0) {
		if (!lock_kind_parse(v, &k))
			return refuse(p, a, v, "is not a lock kind (ticket, mcs, mutex)");
		cfg->locks = (int)k;
	} else if (strcmp(a, "--watchdog") == 0) {
		double s = strtod(v, &end);
		if (end == v || *end || !isfinite(s) || s < 0.1 || s > 600)
			return refuse(p, a, v, "is not a number of seconds (0.1..600)");
		cfg->watchdog_s = s;
	} else if (strcmp(a, "--check-every") == 0) {
		if (!parse_duration(v, &cfg->check_every_ns))
			return refuse(p, a, v, "is not a duration (like 100ms, 1s)");
	} else if (strcmp(a, "--jitter") == 0) {
		double pct = strtod(v, &end);
		if (end == v || *end || !isfinite(pct) || pct < 0 || pct > 90)
			return refuse(p, a, v, "is not a percentage (0..90)");
		cfg->jitter = pct / 100;
	} else {
		p->costs = v;
	}
	return TOOK_VALUE;
}

const char *output_file_problem(const char *path)
{
	struct stat st;
	char dir[4096];

	if (!*path)
		return "is an empty path";
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return "is a directory";
		return access(path, W_OK) == 0 ? NULL : "is not writable";
	}
	if (errno != ENOENT)
		return strerror(errno);
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return "is in a directory that does not exist";
	return access(dir, W_OK | X_OK) == 0 ? NULL : "is in a directory we cannot write to";
}

/* Where results are written: --graph FILE, -o DIR (record). */
static enum flag_took flag_output(struct flag_parse *p, const char *a, const char *v)
{
	struct run_flags *fl = p->fl;
	bool out = fl->allow_out && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0);
	if (!out && strcmp(a, "--graph"))
		return NOT_MINE;
	if (!v)
		return missing(p, a);
	if (out) {
		fl->out = v;
	} else {
		const char *why = output_file_problem(v);
		if (why)
			return refuse(p, a, v, why);
		fl->graph = v;
	}
	return TOOK_VALUE;
}

/* The checks that need every flag: --ops or --duration, --virtual's. */
static bool flags_done(struct flag_parse *p)
{
	if (p->have_ops && p->have_duration) {
		fprintf(stderr, "icache-sim %s: give --ops or --duration, not both\n", p->cmd);
		return false;
	}
	if (p->have_ops)
		p->cfg->duration_ns = 3600ull * 1000000000ull; /* a safety bound */
	if (!setup_virtual(p->cmd, p->cfg, p->costs, p->lines_flag,
			   p->have_ops || p->have_duration))
		return false;
	if (p->inject_abba)
		p->cfg->workload = workload_with_abba(p->cfg->workload);
	return true;
}

bool parse_run_flags(const char *cmd, int argc, char **argv, struct run_config *cfg,
		     struct run_flags *fl)
{
	static enum flag_took (*const groups[])(struct flag_parse *, const char *, const char *) = {
		flag_what, flag_shape, flag_switch, flag_how, flag_output,
	};
	struct flag_parse p = { .cmd = cmd, .cfg = cfg, .fl = fl };

	for (int i = 0; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		enum flag_took took = NOT_MINE;

		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]) && took == NOT_MINE; g++)
			took = groups[g](&p, argv[i], v);
		if (took == BAD_FLAG)
			return false;
		if (took == NOT_MINE) {
			fprintf(stderr,
				"icache-sim %s: unknown option '%s' (see icache-sim %s --help)\n",
				cmd, argv[i], cmd);
			return false;
		}
		if (took == TOOK_VALUE)
			i++;
	}
	return flags_done(&p);
}

int finish_run(const char *cmd, const struct run_config *cfg, const struct run_flags *fl,
	       struct run_result *r, int status, const char *extra_json)
{
	if (r->invariant_failures && !status)
		status = 1;
	if (fl->graph) {
		FILE *f = fopen(fl->graph, "w");
		if (!f) {
			fprintf(stderr, "icache-sim %s: --graph: cannot write '%s'\n", cmd,
				fl->graph);
			return 2;
		}
		char title[256];
		snprintf(title, sizeof(title), "%s / %s / %d CPUs: observed lock order",
			 cfg->scheme->name, cfg->workload->name, cfg->ncpus);
		lockdep_write_dot(f, title);
		fclose(f);
	}
	if (fl->json)
		print_json(stdout, cfg, r, extra_json);
	else
		print_report(stdout, cfg, r);
	return status;
}
