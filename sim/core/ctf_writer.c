/*
 * ctf_writer.c - a CTF 1.8 trace written by the simulator itself (see
 * ctf_writer.h).
 *
 * The layout follows LTTng-UST's where a reader may look: the same packet
 * header (magic, uuid, stream id, instance id) and packet context prefix
 * (timestamp_begin, timestamp_end, content_size, packet_size,
 * packet_seq_num, events_discarded), so the viewer's check of whole
 * packets (viewer/health.c) walks both; the same event names, field names,
 * sizes and enum labels, byte-aligned and little-endian; the same clock
 * (CLOCK_MONOTONIC in ns, offset to the epoch) and the same vtid context.
 * Events are one stream, in the order they fire: a run's threads write
 * under one lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "sim/core/ctf_writer.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define PKT_HDR 80u /* packet header (32) + context (48) */
#define EV_HDR 14u  /* id (2), timestamp (8), vtid (4) */
/* A packet's usual size (one bigger event grows it): small, so that a run
 * killed midway leaves most of its events in whole packets behind it. */
#define PKT_BYTES 16384

bool ctfw_active;

/*
 * The open trace.  Lock rule: w.lock guards every member below it once
 * ctfw_open has set ctfw_active (ctfw_open itself runs before the run's
 * threads exist; ctfw_close takes the lock, for liburcu's call_rcu thread,
 * which outlives the run).
 */
static struct writer {
	pthread_mutex_t lock;
	int fd;              /* the stream file, -1 closed */
	char path[PATH_MAX]; /* for error messages */
	uint8_t uuid[16];
	uint8_t *pkt; /* the packet being filled, PKT_HDR first */
	size_t cap, len;
	uint64_t begin_ts; /* first event of the packet */
	uint64_t last_ts;  /* last event written (times strictly increase) */
	uint64_t seq;      /* packets written */
	uint64_t events;
	int err; /* errno of the first failed write, 0 none */
} w = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint8_t *put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* LTTng-UST writes a NULL string as "(null)": so do we. */
static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = strlen(str_or_null(s)) + 1;
	memcpy(p, str_or_null(s), n);
	return p + n;
}

/* ---- packets ------------------------------------------------------------------ */

/* 0, or the errno of the write that failed. */
static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Fill in the packet's header and context and write it.  Caller holds
 * w.lock (or is alone). */
static void flush_packet(void)
{
	uint8_t *p = w.pkt;
	if (w.len == PKT_HDR)
		w.begin_ts = w.last_ts; /* an empty packet: the last time seen */
	p = put_le(p, CTF_MAGIC, 4);
	memcpy(p, w.uuid, 16);
	p = put_le(p + 16, 0, 4); /* stream_id */
	p = put_le(p, 0, 8);      /* stream_instance_id */
	p = put_le(p, w.begin_ts, 8);
	p = put_le(p, w.last_ts, 8);
	p = put_le(p, (uint64_t)w.len * 8, 8); /* content_size: no padding */
	p = put_le(p, (uint64_t)w.len * 8, 8); /* packet_size */
	p = put_le(p, w.seq++, 8);
	put_le(p, 0, 8); /* events_discarded: a writer that waits loses none */
	w.err = write_all(w.fd, w.pkt, w.len);
	w.len = PKT_HDR;
}

/*
 * Room for an event of `size` payload bytes: its header written, w.lock
 * held, the payload's place returned (ctfw_commit ends it); NULL if the
 * trace is closed or broken (nothing held then).
 */
static uint8_t *ctfw_reserve(unsigned id, size_t size)
{
	static __thread int32_t vtid;
	if (!vtid)
		vtid = (int32_t)gettid();
	pthread_mutex_lock(&w.lock);
	if (w.fd < 0 || w.err) {
		pthread_mutex_unlock(&w.lock);
		return NULL;
	}
	uint64_t ts = clock_ns(CLOCK_MONOTONIC);
	if (ts <= w.last_ts)
		ts = w.last_ts + 1;
	size_t need = EV_HDR + size;
	if (w.len + need > w.cap) {
		flush_packet();
		if (PKT_HDR + need > w.cap) {
			w.cap = PKT_HDR + need;
			w.pkt = xrealloc(w.pkt, w.cap);
		}
	}
	if (w.len == PKT_HDR)
		w.begin_ts = ts;
	w.last_ts = ts;
	w.events++;
	uint8_t *p = put_le(w.pkt + w.len, id, 2);
	p = put_le(p, ts, 8);
	return put_le(p, (uint32_t)vtid, 4);
}

static void ctfw_commit(uint8_t *end)
{
	w.len = (size_t)(end - w.pkt);
	pthread_mutex_unlock(&w.lock);
}

/* ---- one writer per event, from the table ------------------------------------- */

#define SIZE_INT(type, name) sizeof(type)
#define SIZE_HEX(type, name) sizeof(type)
#define SIZE_ENUM(type, name) 1u
#define SIZE_STR(type, name) (strlen(str_or_null(name)) + 1)
#define SIZE_(kind, type, name, slot) +SIZE_##kind(type, name)
#define PUT_INT(type, name) p = put_le(p, (uint64_t)(type)(name), sizeof(type))
#define PUT_HEX(type, name) PUT_INT(type, name)
#define PUT_ENUM(type, name) p = put_le(p, (uint8_t)(name), 1)
#define PUT_STR(type, name) p = put_str(p, name)
#define PUT_(kind, type, name, slot) PUT_##kind(type, name);
#define EVENT_FN_(name, sched, text)                                                        \
	void ctfw_ev_##name(ICACHE_LIST(ICACHE_FIELDS_##name, CTFW_PARAM_))                 \
	{                                                                                   \
		uint8_t *p = ctfw_reserve(ICACHE_EV_##name, 0 ICACHE_FIELDS_##name(SIZE_)); \
		if (!p)                                                                     \
			return;                                                             \
		ICACHE_FIELDS_##name(PUT_) ctfw_commit(p);                                  \
	}
ICACHE_EVENTS(EVENT_FN_)
#undef EVENT_FN_

/* ---- metadata ----------------------------------------------------------------- */

/* The enums the table's ENUM fields name, as LTTng's provider declares
 * them (tracepoints/icache_tp.h): labels in order from 0.  A new enum list
 * gets a line here as it gets one there (tests/test_direct.c fails on a
 * field whose enum is not declared: babeltrace2 refuses the metadata). */
#define LABEL_(n) "\"" #n "\", "
#define ENUM_DECL(name, list) "enum " #name " : uint8_t { " list(LABEL_) "};\n"
static const char *const enum_decls[] = {
	ENUM_DECL(lock_class, ICACHE_LOCK_CLASSES),
	ENUM_DECL(site, ICACHE_SITES),
	ENUM_DECL(list, ICACHE_LISTS),
	ENUM_DECL(list_action, ICACHE_LIST_ACTIONS),
	ENUM_DECL(op, ICACHE_OPS),
	ENUM_DECL(violation_kind, ICACHE_VIOLATIONS),
	ENUM_DECL(src_file, ICACHE_SRC_FILES),
};

/* A field as TSDL: integers as LTTng declares them (size, signedness,
 * base 16 for HEX), enums by name, strings. */
#define SIGNED_(type) ((type)-1 < (type)1)
#define FIELD_INT(type, name)                                                   \
	"\t\tinteger { size = %u; align = 8; signed = %d; base = 10; } _%s;\n", \
		(unsigned)sizeof(type) * 8, SIGNED_(type), #name
#define FIELD_HEX(type, name)                                                   \
	"\t\tinteger { size = %u; align = 8; signed = %d; base = 16; } _%s;\n", \
		(unsigned)sizeof(type) * 8, SIGNED_(type), #name
#define FIELD_ENUM(type, name) "\t\tenum %s _%s;\n", #type, #name
#define FIELD_STR(type, name) "\t\tstring _%s;\n", #name
#define FIELD_(kind, type, name, slot) fprintf(f, FIELD_##kind(type, name));
#define EVENT_META_(name, sched, text)                                             \
	fprintf(f,                                                                 \
		"event {\n\tname = \"icache:%s\";\n\tid = %d;\n\tstream_id = 0;\n" \
		"\tloglevel = 13;\n\tfields := struct {\n",                        \
		#name, ICACHE_EV_##name);                                          \
	ICACHE_FIELDS_##name(FIELD_) fputs("\t};\n};\n\n", f);

static const char trace_head[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n";

static const char stream_decl[] =
	"typealias integer { size = 64; align = 8; signed = false;\n"
	"\tmap = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
	"stream {\n\tid = 0;\n"
	"\tevent.header := struct { uint16_t id; uint64_clock_monotonic_t timestamp; };\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\t\tuint64_clock_monotonic_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n\t};\n"
	"\tevent.context := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; base = 10; } _vtid;\n\t};\n};\n\n";

static void uuid_text(const uint8_t *u, char *buf)
{
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		u[14], u[15]);
}

/* The trace, env and clock blocks: who wrote it, when, and the clock's
 * offset from the epoch (so times read as wall-clock, as LTTng's do). */
static void head_blocks(FILE *f)
{
	char uuid[40], host[256] = "", when[32] = "";
	uuid_text(w.uuid, uuid);
	gethostname(host, sizeof(host) - 1);
	for (char *c = host; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = '_';
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S+0000", gmtime_r(&now, &tm));
	uint64_t off = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	fprintf(f,
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n"
		"env {\n\ttracer_name = \"icache-sim\";\n\ttracer_major = 1;\n"
		"\ttracer_minor = 0;\n\twriter = \"ctf-direct\";\n\thostname = \"%s\";\n"
		"\ttrace_creation_datetime = \"%s\";\n};\n\n"
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"Monotonic Clock\";\n\tfreq = 1000000000;\n"
		"\toffset = %llu;\n};\n\n",
		uuid, host, when, uuid, (unsigned long long)off);
}

char *ctfw_metadata(void)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		fatal("out of memory (the trace's metadata)");
	fputs(trace_head, f);
	head_blocks(f);
	for (size_t i = 0; i < sizeof(enum_decls) / sizeof(enum_decls[0]); i++)
		fputs(enum_decls[i], f);
	fputs("\n", f);
	fputs(stream_decl, f);
	ICACHE_EVENTS(EVENT_META_)
	if (fclose(f) != 0 || !text)
		fatal("out of memory (the trace's metadata)");
	return text;
}

/* ---- open and close ------------------------------------------------------------ */

static int fail(char *err, size_t len, const char *what, const char *path, int e)
{
	snprintf(err, len, "%s %s: %s", what, path, strerror(e));
	return -1;
}

static int write_metadata(const char *dir, char *err, size_t len)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(err, len, "cannot create", path, errno);
	char *text = ctfw_metadata();
	int e = write_all(fd, text, strlen(text));
	free(text);
	if (close(fd) != 0 && !e)
		e = errno;
	return e ? fail(err, len, "cannot write", path, e) : 0;
}

/* A run that ends by exit() (an error path of play) keeps what it wrote. */
static void flush_at_exit(void)
{
	if (__atomic_load_n(&ctfw_active, __ATOMIC_RELAXED) &&
	    pthread_mutex_trylock(&w.lock) == 0) {
		if (w.fd >= 0 && !w.err)
			flush_packet();
		pthread_mutex_unlock(&w.lock);
	}
}

int ctfw_open(const char *dir, char *err, size_t len)
{
	static bool registered;
	if (getrandom(w.uuid, sizeof(w.uuid), 0) != (ssize_t)sizeof(w.uuid)) {
		uint64_t t = clock_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() << 32;
		memcpy(w.uuid, &t, sizeof(t));
		memcpy(w.uuid + 8, &t, sizeof(t));
	}
	w.uuid[6] = (uint8_t)((w.uuid[6] & 0x0f) | 0x40); /* version 4 */
	w.uuid[8] = (uint8_t)((w.uuid[8] & 0x3f) | 0x80);
	if (write_metadata(dir, err, len))
		return -1;
	snprintf(w.path, sizeof(w.path), "%s/icache_0", dir);
	int fd = open(w.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(err, len, "cannot create", w.path, errno);
	w.cap = PKT_BYTES;
	w.pkt = xmalloc(w.cap);
	w.len = PKT_HDR;
	w.seq = w.events = 0;
	w.last_ts = clock_ns(CLOCK_MONOTONIC);
	w.err = 0;
	w.fd = fd;
	if (!registered)
		registered = atexit(flush_at_exit) == 0;
	__atomic_store_n(&ctfw_active, true, __ATOMIC_RELAXED);
	return 0;
}

int ctfw_close(uint64_t *events, char *err, size_t len)
{
	__atomic_store_n(&ctfw_active, false, __ATOMIC_RELAXED);
	/* Under the lock: liburcu's call_rcu thread may still be writing an
	 * inode_rcu_freed it began before the flag fell. */
	pthread_mutex_lock(&w.lock);
	/* A clean close writes a packet even if empty, as LTTng's stop does. */
	if (!w.err)
		flush_packet();
	if (close(w.fd) != 0 && !w.err)
		w.err = errno;
	w.fd = -1;
	free(w.pkt);
	w.pkt = NULL;
	*events = w.events;
	int e = w.err;
	pthread_mutex_unlock(&w.lock);
	return e ? fail(err, len, "cannot write", w.path, e) : 0;
}
