/*
 * ctfgen.c - a minimal CTF 1.8 writer (see ctfgen.h).  Byte-aligned,
 * little-endian; one packet whose context gives its size in bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/xalloc.h"
#include "viewer/ctfgen.h"

char *ctfgen_metadata(const char *p)
{
	static const char fmt[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
		"\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n};\n"
		"clock {\n\tname = \"monotonic\";\n\tfreq = 1000000000;\n\toffset = 0;\n};\n"
		"typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.monotonic.value; } := uint64_clock_t;\n"
		"stream {\n\tid = 0;\n"
		"\tevent.header := struct { uint32_t id; uint64_clock_t timestamp; };\n"
		"\tpacket.context := struct { uint64_t content_size; uint64_t packet_size; "
		"uint32_t cpu_id; };\n};\n"
		"event {\n\tname = \"%s:lock_acquired\";\n\tid = 0;\n\tstream_id = 0;\n"
		"\tfields := struct { uint16_t cpu; uint8_t cls; uint64_t inst; uint8_t site; "
		"uint64_t wait_ns; };\n};\n"
		"event {\n\tname = \"%s:lock_release\";\n\tid = 1;\n\tstream_id = 0;\n"
		"\tfields := struct { uint16_t cpu; uint8_t cls; uint64_t inst; uint8_t site; "
		"uint64_t hold_ns; };\n};\n"
		"event {\n\tname = \"%s:hello\";\n\tid = 2;\n\tstream_id = 0;\n"
		"\tfields := struct { uint32_t value; };\n};\n";
	size_t n = sizeof(fmt) + 3 * strlen(p);
	char *s = xmalloc(n);
	if (s)
		snprintf(s, n, fmt, p, p, p);
	return s;
}

static void put(uint8_t **p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		*(*p)++ = (uint8_t)(v >> (8 * i));
}

uint8_t *ctfgen_stream(const struct ctfgen_event *ev, size_t n, size_t *len)
{
	size_t cap = 8 + 20 + n * 32;
	uint8_t *buf = xcalloc(1, cap), *p = buf;
	put(&p, 0xc1fc1fc1u, 4);
	put(&p, 0, 4);
	uint8_t *sizes = p;
	put(&p, 0, 8);
	put(&p, 0, 8);
	put(&p, 0, 4);
	for (size_t i = 0; i < n; i++) {
		put(&p, (uint64_t)ev[i].id, 4);
		put(&p, ev[i].ts, 8);
		if (ev[i].id == CTFGEN_HELLO) {
			put(&p, ev[i].val, 4);
			continue;
		}
		put(&p, ev[i].cpu, 2);
		put(&p, ev[i].cls, 1);
		put(&p, ev[i].inst, 8);
		put(&p, ev[i].site, 1);
		put(&p, ev[i].val, 8);
	}
	size_t total = (size_t)(p - buf);
	uint8_t *q = sizes;
	put(&q, (uint64_t)total * 8, 8);
	put(&q, (uint64_t)total * 8, 8);
	*len = total;
	return buf;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

int ctfgen_write(const char *dir, const char *provider, const struct ctfgen_event *ev, size_t n)
{
	char path[4096];
	mkdir(dir, 0755);
	char *meta = ctfgen_metadata(provider);
	size_t len;
	uint8_t *st = ctfgen_stream(ev, n, &len);
	int rc = -1;
	if (meta && st) {
		snprintf(path, sizeof(path), "%s/metadata", dir);
		rc = write_file(path, meta, strlen(meta));
		snprintf(path, sizeof(path), "%s/stream_0", dir);
		if (rc == 0)
			rc = write_file(path, st, len);
	}
	free(meta);
	free(st);
	return rc;
}
