/*
 * test_fidelity.c - every scheme does what its kernel did, path by path.
 *
 * Each file in tests/fidelity/ is a scenario (`icache-sim play` runs it)
 * that plays one code path on cpu0 (with, where the path is a wait or a
 * race, a second CPU that makes it happen), followed by the steps that
 * path must take, written by hand from that era's source:
 *
 *     # source: fs/inode.c at v2.6.39 (61c4f2c81c61)
 *     #> acquire inode_hash_lock in iget_locked | iget_locked: spin_lock(&inode_hash_lock)
 *
 * A "#>" line is one step of the play log (without "step N: ", and
 * without "cpu0 ": another CPU's steps keep its name), or a CPU going to
 * sleep on an inode ("cpu1 sleeps on inode 42 in ..."), then "|" and the
 * kernel line it stands for.  Every step of the path is listed, in order;
 * begin and end of the operations are not.  Each file names its sources
 * ("# source:"), each of them listed in docs/sources.md.  The test
 * plays the file and compares step for step: a scheme change that moves,
 * adds or drops a lock operation, a state change or a list move fails here
 * and names the file, the step and the kernel line.
 */
#include <dirent.h>
#include <errno.h>
#include <regex.h>

#include "sim/core/scheme.h"

#include "tests/testutil.h"

#define FID_DIR "tests/fidelity"
#define MAX_STEPS 512

struct steps {
	char *line[MAX_STEPS];
	int n;
};

static void steps_free(struct steps *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->line[i]);
	s->n = 0;
}

static void steps_add(struct steps *s, const char *b, size_t len)
{
	while (len && (b[len - 1] == ' ' || b[len - 1] == '\t'))
		len--;
	ck_assert_int_lt(s->n, MAX_STEPS);
	s->line[s->n] = strndup(b, len);
	ck_assert_ptr_nonnull(s->line[s->n]);
	s->n++;
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	ck_assert_msg(f != NULL, "%s: %s", file, strerror(errno));
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	ck_assert_msg(n >= 0, "%s: empty", file);
	return buf;
}

/*
 * The play log speaks the event grammar (lib/selector.h): "i_lock inode 42",
 * "add lru inode 42".  A #> line in the older words ("i_lock of inode 42",
 * "list add lru of inode 42", "... of sb 1") is read in the new ones, as
 * the grammar accepts the old spellings for one release.
 */
static void grammar_spelling(char *l)
{
	static const char *const old[][2] = { { "list ", "" },
					      { " of inode ", " inode " },
					      { " of sb ", " sb " } };
	for (size_t k = 0; k < sizeof(old) / sizeof(old[0]); k++) {
		size_t ol = strlen(old[k][0]), nl = strlen(old[k][1]);
		char *p = strstr(l, old[k][0]);
		if (!p || (k == 0 && p != l))
			continue; /* "list" only as the first word */
		memmove(p + nl, p + ol, strlen(p + ol) + 1);
		memcpy(p, old[k][1], nl);
	}
}

/*
 * The expected steps of a file; checks that each cites its kernel line and
 * that the file names its source.  Returns the number of "# source:" lines.
 */
static int read_expected(const char *file, struct steps *exp)
{
	char *text = slurp(file), *save = NULL;
	int sources = 0, lineno = 0;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (strncmp(l, "# source:", 9) == 0 && strlen(l) > 12)
			sources++;
		if (strncmp(l, "#>", 2) != 0)
			continue;
		const char *b = l + 2;
		while (*b == ' ')
			b++;
		const char *bar = strstr(b, " | ");
		ck_assert_msg(bar && strlen(bar + 3) > 3,
			      "%s: a #> line without its kernel line after ' | ': %s", file, l);
		steps_add(exp, b, (size_t)(bar - b));
		grammar_spelling(exp->line[exp->n - 1]);
	}
	free(text);
	return sources;
}

/* The steps the player logged, "step N: cpuK " and begin/end dropped. */
static int read_actual(const char *file, struct steps *act)
{
	int st;
	char *out = run_cmd(&st, "timeout 30 %s play %s 2>&1", bin_path("icache-sim"), file);
	char *save = NULL;

	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p;
		if (strncmp(l, "   cpu", 6) == 0 && strstr(l, " sleeps on inode ")) {
			/* Not a step: the CPU went to sleep (a bit wait). */
			p = l + 3;
			char *until = strstr(p, " until it is woken");
			if (until)
				*until = 0;
		} else if (strncmp(l, "step ", 5) == 0 && (p = strstr(l, ": cpu")) != NULL) {
			p += 2;
		} else {
			continue;
		}
		/* The path under test runs on cpu0, which goes unnamed;
		 * any other CPU in the entry keeps its name. */
		if (strncmp(p, "cpu0 ", 5) == 0)
			p += 5;
		const char *what = strncmp(p, "cpu", 3) == 0 ? strchr(p, ' ') + 1 : p;
		if (strncmp(what, "begin ", 6) == 0 || strncmp(what, "end ", 4) == 0)
			continue;
		steps_add(act, p, strlen(p));
	}
	free(out);
	return st;
}

/* NULL if they match, else a malloc'd account of the first difference. */
static char *compare(const char *file, const struct steps *exp, const struct steps *act)
{
	char *msg = NULL;
	int n = exp->n > act->n ? exp->n : act->n;

	for (int i = 0; i < n; i++) {
		const char *e = i < exp->n ? exp->line[i] : "(nothing more)";
		const char *a = i < act->n ? act->line[i] : "(nothing more)";
		if (strcmp(e, a) == 0)
			continue;
		if (asprintf(&msg,
			     "%s: step %d of the path differs from the kernel:\n"
			     "  kernel:    %s\n  simulator: %s",
			     file, i + 1, e, a) < 0)
			msg = strdup(file);
		return msg;
	}
	return NULL;
}

static int fid_files(char names[][256], int max)
{
	DIR *d = opendir(FID_DIR);
	int n = 0;

	ck_assert_msg(d != NULL, FID_DIR ": %s", strerror(errno));
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".fid") == 0)
			snprintf(names[n++], 256, FID_DIR "/%s", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
	return n;
}

START_TEST(every_path_follows_its_kernel)
{
	static char names[256][256];
	int n = fid_files(names, 256), failed = 0;

	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++) {
		struct steps exp = { 0 }, act = { 0 };
		int sources = read_expected(names[i], &exp);
		ck_assert_msg(sources > 0, "%s: no '# source:' line", names[i]);
		ck_assert_msg(exp.n > 0, "%s: no expected steps", names[i]);
		int st = read_actual(names[i], &act);
		char *msg = compare(names[i], &exp, &act);
		if (st != 0 || msg) {
			fprintf(stderr, "%s\n", msg ? msg : "play failed");
			if (st != 0)
				fprintf(stderr, "%s: play exits %d\n", names[i], st);
			failed++;
		}
		free(msg);
		steps_free(&exp);
		steps_free(&act);
	}
	ck_assert_msg(failed == 0, "%d of %d paths differ from their kernel (above)", failed, n);
	printf("test_fidelity: %d paths match their kernel step for step\n", n);
}
END_TEST

/*
 * The comparison is not vacuous: a path with one kernel step taken away,
 * or two swapped, is reported at that step.
 */
START_TEST(a_changed_path_is_reported)
{
	static char names[256][256];
	int n = fid_files(names, 256);
	struct steps exp = { 0 }, act = { 0 };

	ck_assert_int_gt(n, 0);
	read_expected(names[0], &exp);
	read_actual(names[0], &act);
	ck_assert_ptr_null(compare(names[0], &exp, &act));
	ck_assert_int_ge(exp.n, 3);

	char *dropped = exp.line[1];
	memmove(&exp.line[1], &exp.line[2], (size_t)(exp.n - 2) * sizeof(char *));
	exp.n--;
	char *msg = compare(names[0], &exp, &act);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(strstr(msg, "step 2 of the path"));
	free(msg);
	exp.line[exp.n++] = dropped;

	char *t = act.line[0];
	act.line[0] = act.line[1];
	act.line[1] = t;
	msg = compare(names[0], &exp, &act);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(strstr(msg, "step 1 of the path"));
	free(msg);
	steps_free(&exp);
	steps_free(&act);
}
END_TEST

/*
 * Every path the suite promises (tests/fidelity/README.md), for each of
 * the four schemes of 2010 and today's: an entry named "SCHEME-PATH..." must exist,
 * or the path must be one its era did not have.  Deleting an entry, or
 * a new era scheme without its entries, fails here.
 */
struct fid_path {
	const char *path;   /* the entry's name after "SCHEME-", a prefix */
	const char *alt;    /* other names for the same path (blank-separated), or NULL */
	const char *absent; /* the schemes that had no such path (blank-separated), or NULL */
};

static const struct fid_path fid_paths[] = {
	{ "iget-hit", NULL, NULL },
	{ "iget-miss", NULL, NULL },
	{ "wait-new", NULL, NULL },
	{ "wait-freeing", NULL, NULL },
	{ "insert-locked", NULL, NULL },
	/* Today's first iput_final onto the list_lru. */
	{ "iput-cache", "iput-lru-add iput-first", NULL },
	{ "iput-evict", NULL, NULL },
	{ "iput-will-free", NULL, NULL },
	{ "prune-evict", NULL, NULL },
	/* No I_REFERENCED in 2.6.36: the LRU was strict. */
	{ "prune-second-chance", NULL, "global" },
	/* V4 nests i_lock inside the LRU lock: prune never fails a trylock;
	 * Nick's prune retries instead of rotating. */
	{ "prune-rotate", "prune-trylock-retry prune-skip", "inode-scale-v4" },
	{ "prune-page-strip", NULL, NULL },
	/* Today's fs/inode.c has no shrink_icache_memory (super_cache_scan
	 * took its place) and no invalidate_inodes. */
	{ "shrink", NULL, "modern" },
	{ "umount", NULL, NULL },
	{ "invalidate-busy", NULL, "modern" },
	{ "writeback", NULL, NULL },
	{ "writeback-requeue", NULL, NULL },
	{ "write-inode-sync-all", NULL, NULL },
	{ "mark-dirty", NULL, NULL },
	{ "iunique", NULL, NULL },
	{ "get-next-ino", NULL, NULL },
	/* The newer i_state bits on today's paths (no era of 2010 had
	 * them): a lookup and an insert meeting I_CREATING, the last iput
	 * of an I_DONTCACHE inode and of one with only I_DIRTY_TIME. */
	{ "iget-creating", NULL, "global vfs-scale inode-scale-v4 merged" },
	{ "insert-locked-creating", NULL, "global vfs-scale inode-scale-v4 merged" },
	{ "insert-locked4-creating", NULL, "global vfs-scale inode-scale-v4 merged" },
	{ "iput-dontcache", NULL, "global vfs-scale inode-scale-v4 merged" },
	{ "iput-dirty-time", NULL, "global vfs-scale inode-scale-v4 merged" },
};

/* Is word one of the blank-separated words of list (NULL: none)? */
static bool in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, " ");
		if (n == len && strncmp(p, word, len) == 0)
			return true;
		p += n;
		p += strspn(p, " ");
	}
	return false;
}

static bool has_entry(char names[][256], int n, const char *scheme, const char *path)
{
	char want[256];
	int len = snprintf(want, sizeof(want), FID_DIR "/%s-%s", scheme, path);

	for (int i = 0; i < n; i++)
		if (strncmp(names[i], want, (size_t)len) == 0 &&
		    (names[i][len] == '.' || names[i][len] == '-'))
			return true;
	return false;
}

START_TEST(every_scheme_covers_every_path)
{
	static char names[256][256];
	static const char *const schemes[] = { "global", "vfs-scale", "inode-scale-v4", "merged",
					       "modern" };
	int n = fid_files(names, 256), missing = 0;

	for (size_t s = 0; s < sizeof(schemes) / sizeof(schemes[0]); s++) {
		ck_assert_msg(scheme_find(schemes[s]) != NULL, "%s", schemes[s]);
		for (size_t p = 0; p < sizeof(fid_paths) / sizeof(fid_paths[0]); p++) {
			const struct fid_path *f = &fid_paths[p];
			bool have = has_entry(names, n, schemes[s], f->path);
			for (const char *a = f->alt; !have && a && *a;) {
				char alt[64];
				size_t len = strcspn(a, " ");
				snprintf(alt, sizeof(alt), "%.*s", (int)len, a);
				have = has_entry(names, n, schemes[s], alt);
				a += len;
				a += strspn(a, " ");
			}
			bool absent = in_list(f->absent, schemes[s]);
			if (have == absent) {
				fprintf(stderr, "%s: %s %s\n", schemes[s], f->path,
					absent ?
						"is a path its era did not have, yet has an entry" :
						"has no entry in " FID_DIR);
				missing++;
			}
		}
	}
	ck_assert_msg(missing == 0, "%d paths missing or misplaced (above)", missing);
}
END_TEST

/* Is every "# source:" of every entry listed in docs/sources.md? */
static bool listed(const char *sources, const char *line, char *why, size_t len)
{
	static const char *const pat[] = {
		"[A-Za-z0-9_./-]+ at v2\\.6\\.[0-9]+", /* FILE at TAG */
		"[A-Za-z0-9_./-]+ at [0-9a-f]{12,}",   /* FILE at COMMIT (no tag) */
		"commit [0-9a-f]{10,}",                /* commit ID */
		"<[^>]+@[^>]+>",                       /* Message-ID */
	};
	int found = 0;

	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++) {
		regex_t re;
		regmatch_t m;
		ck_assert_int_eq(regcomp(&re, pat[i], REG_EXTENDED), 0);
		for (const char *p = line; regexec(&re, p, 1, &m, 0) == 0; p += m.rm_eo) {
			char tok[200];
			int n = (int)(m.rm_eo - m.rm_so);
			snprintf(tok, sizeof(tok), "%.*s", n, p + m.rm_so);
			const char *key = strncmp(tok, "commit ", 7) == 0 ? tok + 7 : tok;
			found++;
			if (!strstr(sources, key)) {
				snprintf(why, len, "'%s' is not in docs/sources.md", key);
				regfree(&re);
				return false;
			}
		}
		regfree(&re);
	}
	if (!found)
		snprintf(why, len, "names no file at a tag, commit or Message-ID");
	return found > 0;
}

START_TEST(every_source_is_listed)
{
	static char names[256][256];
	int n = fid_files(names, 256), bad = 0;
	char *sources = slurp("docs/sources.md");

	for (int i = 0; i < n; i++) {
		char *text = slurp(names[i]), *save = NULL;
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char why[300];
			if (strncmp(l, "# source:", 9) == 0 &&
			    !listed(sources, l, why, sizeof(why))) {
				fprintf(stderr, "%s: %s: %s\n", names[i], l, why);
				bad++;
			}
		}
		free(text);
	}
	free(sources);
	ck_assert_msg(bad == 0, "%d source lines cite what docs/sources.md does not list", bad);
}
END_TEST

/*
 * What shrink_icache_memory answers, era by era: -1 without __GFP_FS;
 * else (nr_unused / 100) * vfs_cache_pressure, where 2.6.36's nr_unused
 * counts the dirty unused inodes too and the later eras count the LRU.
 * 150 clean and 60 dirty unused inodes: 2.6.36 counts 210, the others 150.
 */
static long shrink_answer(const char *scheme, int pressure, bool nofs)
{
	char path[] = "/tmp/icache-fid-shrinkXXXXXX";
	int fd = mkstemp(path), st;
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "scheme %s\nvfs-cache-pressure %d\n", scheme, pressure);
	for (int i = 0; i < 210; i++)
		fprintf(f, "inode %d%s\n", 100 + i, i < 150 ? "" : " dirty");
	fprintf(f, "cpu0: shrink %s\nexpect no violation\n", nofs ? "128 nofs" : "0");
	fclose(f);
	char *out = run_cmd(&st, "timeout 30 %s play %s 2>&1", bin_path("icache-sim"), path);
	unlink(path);
	ck_assert_msg(st == 0, "%s", out);
	const char *e = strstr(out, "end shrink");
	ck_assert_ptr_nonnull(e);
	e = strstr(e, "(result ");
	ck_assert_ptr_nonnull(e);
	long r = strtol(e + 8, NULL, 10);
	free(out);
	return r;
}

START_TEST(the_shrinker_counts_as_its_era_did)
{
	ck_assert_int_eq(shrink_answer("global", 100, false), 200);
	ck_assert_int_eq(shrink_answer("global", 50, false), 100);
	ck_assert_int_eq(shrink_answer("global", 100, true), -1);
	/* 2.6.37 on (V4's per-cpu counter, vfs-scale's and 2.6.39's one
	 * counter under the LRU lock): the LRU's length. */
	static const char *const later[] = { "vfs-scale", "inode-scale-v4", "merged" };
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		ck_assert_msg(scheme_find(later[i]) != NULL, "%s", later[i]);
		ck_assert_msg(shrink_answer(later[i], 100, false) == 100, "%s", later[i]);
		ck_assert_msg(shrink_answer(later[i], 100, true) == -1, "%s", later[i]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fidelity");
	suite_case(s, "paths", 120,
		   (const TTest *[]){ every_path_follows_its_kernel, a_changed_path_is_reported,
				      every_scheme_covers_every_path, every_source_is_listed,
				      the_shrinker_counts_as_its_era_did, NULL });
	return run_suite(s);
}
