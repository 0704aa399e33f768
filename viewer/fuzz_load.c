/*
 * fuzz_load.c - libFuzzer target for the trace-loading path.
 *
 * Each input becomes a one-stream CTF trace in a private directory and is
 * loaded exactly as icache-view loads a trace (ix_load: babeltrace2 graph,
 * our sink, the replaying model, the consistency check), then summarised.
 * The first byte picks what the rest of the input is:
 *   even: the bytes of the stream file, with icache metadata (viewer/ctfgen)
 *   odd:  the metadata text, with a valid stream of icache lock events
 * Any crash, sanitizer report or hang is a bug; a clean error is fine.
 *
 * Build and run: make fuzz (viewer/fuzz.sh), FUZZ_SECONDS=N for the length.
 * With ICVIEW_FUZZ_CORPUS=DIR set, an empty DIR gets seed inputs first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "viewer/cache.h"
#include "viewer/ctfgen.h"
#include "viewer/index.h"
#include "viewer/model.h"
#include "viewer/timeline.h"
#include "viewer/report.h"

static char dir[256];
static char *meta;
static uint8_t *good_stream;
static size_t good_len;

static void write_file(const char *name, const void *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (n)
		fwrite(p, 1, n, f);
	fclose(f);
}

static void seed(const char *corpus)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/seed_stream", corpus);
	if (access(path, F_OK) == 0)
		return;
	FILE *f = fopen(path, "wb");
	if (f) {
		fputc(0, f);
		fwrite(good_stream, 1, good_len, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/seed_meta", corpus);
	f = fopen(path, "wb");
	if (f) {
		fputc(1, f);
		fputs(meta, f);
		fclose(f);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ix_keep_stderr = true; /* sanitizer reports must stay visible */
	/* Each input is a new trace: no index cache to reuse, none to write
	 * (the loader's own files still go to unlinked temporary ones). */
	ix_cache_mode = IX_CACHE_OFF;
	snprintf(dir, sizeof(dir), "/tmp/icview-fuzz.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	meta = ctfgen_metadata("icache");
	/* Two CPUs taking and giving up the hash lock and an i_lock. */
	struct ctfgen_event ev[] = {
		{ CTFGEN_ACQUIRED, 100, 0, 2, 2, 0, 0 },
		{ CTFGEN_ACQUIRED, 150, 0, 1, 2, 4294967301u, 0 },
		{ CTFGEN_RELEASE, 180, 0, 1, 2, 4294967301u, 30 },
		{ CTFGEN_RELEASE, 200, 0, 2, 2, 0, 100 },
		{ CTFGEN_ACQUIRED, 200, 1, 2, 3, 0, 40 },
		{ CTFGEN_HELLO, 250, 0, 0, 0, 0, 7 },
		{ CTFGEN_RELEASE, 300, 1, 2, 3, 0, 100 },
	};
	good_stream = ctfgen_stream(ev, sizeof(ev) / sizeof(ev[0]), &good_len);
	const char *corpus = getenv("ICVIEW_FUZZ_CORPUS");
	if (corpus)
		seed(corpus);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		write_file("metadata", data + 1, size - 1);
		write_file("stream_0", good_stream, good_len);
	} else {
		write_file("metadata", meta, strlen(meta));
		write_file("stream_0", data + 1, size - 1);
	}
	char err[1024];
	struct trace_index *ix = ix_load(dir, err, sizeof(err));
	if (!ix) {
		/* The contract: one line naming the path. */
		if (!strstr(err, dir) || strchr(err, '\n'))
			abort();
		/* babeltrace2 was jumped out of: this process cannot load
		 * another trace.  End this fork-mode job quietly (_exit runs
		 * no atexit handler, so libFuzzer does not call it a crash);
		 * the parent keeps the corpus and starts the next job. */
		if (ix_bt_poisoned)
			_exit(0);
		return 0;
	}
	struct model *m = model_new();
	model_seek(m, ix, ix->nev);
	model_seek(m, ix, ix->nev / 2);
	FILE *devnull = fopen("/dev/null", "w");
	if (devnull) {
		report_json(devnull, ix, m);
		report_dot(devnull, ix, m);
		fclose(devnull);
	}
	model_free(m);
	ix_free(ix);
	return 0;
}
