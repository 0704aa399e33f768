/*
 * index.c - decode a CTF trace with libbabeltrace2 into struct trace_index.
 *
 * Graph: one src.ctf.fs per directory holding a `metadata` file (the
 * component does not recurse, the babeltrace2 CLI's discovery does) ->
 * flt.utils.muxer (src.ctf.fs makes one port per stream) -> a simple sink
 * whose consume function appends to the index.  The caller drives it with
 * ix_decode_step(), one bt_graph_run_once() at a time.
 *
 * This is the bottom layer: it knows nothing of the replay.  Each time
 * the timestamp moves on, the events before are "settled" and handed to
 * the layer above through ix->hooks (timeline.c replays them, and may
 * reorder a group of same-time events the muxer delivered out of order).
 */
#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include "lib/ctf.h"
#include "lib/errmsg.h"
#include "lib/sigs.h"
#include "lib/xalloc.h"
#include "viewer/cache.h"
#include "viewer/decode.h"
#include "viewer/health.h"
#include "viewer/index.h"
#include "viewer/omap.h"

/* ---- what each event carries ---------------------------------------------- */

#define MAX_FIELDS IX_MAX_FIELDS

/* Fields appended to an event after traces were made without them: an
 * older trace lacks them, and reads as if they were 0. */
static bool optional_field(int type, const char *name)
{
	static const char *const run_begin_late[] = { "order_rules", "scheme_file", "scheme_cksum",
						      "threads" };
	if (type == EV_run_begin)
		for (size_t k = 0; k < sizeof(run_begin_late) / sizeof(run_begin_late[0]); k++)
			if (!strcmp(name, run_begin_late[k]))
				return true;
	/* every event's src and line (call sites) came later, and the life
	 * of the lock and inode_alloc/free events */
	return (type == EV_run_end && strcmp(name, "interrupted") == 0) || !strcmp(name, "src") ||
	       !strcmp(name, "line") || !strcmp(name, "life");
}

struct class_info {
	const bt_event_class *ec;
	int type; /* -1: not ours */
	int nf;
	uint64_t idx[MAX_FIELDS];  /* UINT64_MAX: absent (optional) */
	bool is_class[MAX_FIELDS]; /* a lock class: clamp to the model's */
	bool is_signed[MAX_FIELDS];
	int64_t vtid_idx; /* in the common context, -1 none */
	int64_t vpid_idx;
};

#define CLASS_CACHE 256

struct ix_loader {
	bool poisoned; /* babeltrace2 aborted: do not touch it */
	struct ctf_graph g;
	struct class_info classes[CLASS_CACHE];
	const bt_packet *last_pkt;
	int stream; /* of last_pkt, in ix->streams */
	uint8_t core;
	int missing;     /* a stream file is gone: -1 none */
	int pending[64]; /* streams ended before run_end */
	unsigned npending;
	const bt_stream_class *sc_seen[8];
	unsigned nsc;
	/* --run/--pid without a vpid context: the chosen run's window */
	unsigned runs_seen;
	bool window_open;
	int64_t window_tid;
	uint64_t bytes_total, bytes_done;
	int64_t last_ts;
	uint64_t group_start; /* first event not yet replayed */
	bool ended;
	char fatal[512];      /* set by the sink: stop and say it */
	ix_raw_emit_fn out;   /* ix_raw_apply, or a decoder process's pipe */
	struct ix_pdec *pdec; /* the decoder processes, NULL: this graph */
	bool pdec_tried;
	struct ctf_dirs dirs; /* the trace directories */
	/* A decoder process reading its share of the packets: the copies of
	 * dirs it reads (psplit.c), whose streams are named as dirs' are. */
	char **shares;
	struct omap strmap;
};

/* ---- small helpers ---------------------------------------------------------- */

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	uint32_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = xrealloc(p, (size_t)n * elem);
	*cap = n;
	return q;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t mixh(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

static uint32_t id_intern(struct trace_index *ix, uint64_t v)
{
	if ((ix->nids + 1) * 2 >= ix->id_hash_cap) {
		uint32_t ncap = ix->id_hash_cap ? ix->id_hash_cap * 2 : 1024;
		uint32_t *h = xmalloc(ncap * sizeof(uint32_t));
		memset(h, 0xff, ncap * sizeof(uint32_t));
		for (uint32_t i = 0; i < ix->nids; i++) {
			uint32_t j = (uint32_t)mixh(ix->ids[i]) & (ncap - 1);
			while (h[j] != UINT32_MAX)
				j = (j + 1) & (ncap - 1);
			h[j] = i;
		}
		free(ix->id_hash);
		ix->id_hash = h;
		ix->id_hash_cap = ncap;
	}
	uint32_t mask = ix->id_hash_cap - 1;
	uint32_t j = (uint32_t)mixh(v) & mask;
	for (; ix->id_hash[j] != UINT32_MAX; j = (j + 1) & mask)
		if (ix->ids[ix->id_hash[j]] == v)
			return ix->id_hash[j];
	ix->ids = grow(ix->ids, &ix->ids_cap, ix->nids + 1, sizeof(uint64_t));
	ix->ids[ix->nids] = v;
	ix->id_hash[j] = ix->nids;
	return ix->nids++;
}

int64_t ix_id_find(const struct trace_index *ix, uint64_t v)
{
	if (!ix->id_hash_cap)
		return -1;
	uint32_t mask = ix->id_hash_cap - 1;
	for (uint32_t j = (uint32_t)mixh(v) & mask; ix->id_hash[j] != UINT32_MAX;
	     j = (j + 1) & mask)
		if (ix->ids[ix->id_hash[j]] == v)
			return ix->id_hash[j];
	return -1;
}

uint64_t ix_id_value(const struct trace_index *ix, uint32_t id)
{
	return id < ix->nids ? ix->ids[id] : 0;
}

static uint32_t str_intern(struct trace_index *ix, const char *s)
{
	struct ix_loader *ld = ix->loader;
	uint64_t h = 1469598103934665603ULL;
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	uint32_t *slot = omap_get(&ld->strmap, h);
	if (slot && strcmp(ix->strs[*slot], s) == 0)
		return *slot;
	ix->strs = grow(ix->strs, &ix->strs_cap, ix->nstrs + 1, sizeof(char *));
	ix->strs[ix->nstrs] = xstrdup(s);
	if (!slot)
		*(uint32_t *)omap_put(&ld->strmap, h) = ix->nstrs;
	return ix->nstrs++;
}

const char *ix_str(const struct trace_index *ix, uint32_t id)
{
	return id < ix->nstrs ? ix->strs[id] : "";
}

const struct ix_run *ix_run0(const struct trace_index *ix)
{
	for (uint32_t i = 0; i < ix->nruns; i++)
		if (ix->runs[i].kept)
			return &ix->runs[i];
	return NULL;
}

int64_t ix_t0(const struct trace_index *ix)
{
	return ix->nev ? ix->ev[0].ts : 0;
}

uint64_t ix_find_time(const struct trace_index *ix, int64_t t)
{
	uint64_t lo = 0, hi = ix->nev;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ix->ev[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- finding the trace ------------------------------------------------------- */

/*
 * LTTng writes its metadata in packets (magic 0x75d11d57, a 37-byte header
 * with content and packet sizes in bits).  babeltrace2 2.0 can loop
 * forever on a metadata file whose last packet is cut short, so check the
 * packet framing here, before the file reaches it.  Plain-text metadata
 * must start with the CTF signature comment.
 */
static int check_metadata(const char *dir, char *why, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	const char *p = path; /* (unknown length: no truncation warning) */
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(why, len, "cannot open %.300s", p);
		return -1;
	}
	uint8_t h[37];
	long off = 0;
	int rc = 0, npk = 0;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	size_t got = fread(h, 1, 4, f);
	uint32_t magic = got == 4 ? (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
					    (uint32_t)h[3] << 24 :
				    0;
	if (magic != 0x75d11d57u) {
		if (got < 4 || memcmp(h, "/* C", 4) != 0) {
			snprintf(why, len, "%.300s is neither packetized nor text CTF metadata", p);
			rc = -1;
		}
		fclose(f);
		return rc;
	}
	while (off < size) {
		fseek(f, off, SEEK_SET);
		if (fread(h, 1, sizeof(h), f) != sizeof(h)) {
			snprintf(
				why, len,
				"%.300s is truncated: metadata packet %d at byte %ld has no full header",
				p, npk, off);
			rc = -1;
			break;
		}
		uint32_t m = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
			     (uint32_t)h[3] << 24;
		uint32_t content = (uint32_t)h[24] | (uint32_t)h[25] << 8 | (uint32_t)h[26] << 16 |
				   (uint32_t)h[27] << 24;
		uint32_t packet = (uint32_t)h[28] | (uint32_t)h[29] << 8 | (uint32_t)h[30] << 16 |
				  (uint32_t)h[31] << 24;
		if (m != 0x75d11d57u || packet % 8 || content > packet || content < sizeof(h) * 8 ||
		    packet / 8 < sizeof(h)) {
			snprintf(why, len,
				 "%.300s: metadata packet %d at byte %ld has a bad header", p, npk,
				 off);
			rc = -1;
			break;
		}
		if (off + (long)(packet / 8) > size) {
			snprintf(why, len,
				 "%.300s is truncated: metadata packet %d at byte %ld "
				 "needs %u bytes, %ld left",
				 p, npk, off, packet / 8, size - off);
			rc = -1;
			break;
		}
		off += packet / 8;
		npk++;
	}
	fclose(f);
	return rc;
}

/* ---- babeltrace2 errors as one line ---------------------------------------- */

/* Messages go through errmsg() (lib/errmsg.h): one line, whatever bytes
 * a damaged metadata's names hold. */

/* ---- the sink ---------------------------------------------------------------- */

/* Find field f of event type t in the payload of class ci; false (and
 * ld->fatal set) if a field the viewer needs is missing or mistyped. */
static bool resolve_field(struct ix_loader *ld, struct class_info *ci, const bt_field_class *pfc,
			  const char *name, int t, int f)
{
	const struct ix_field *fd = &ix_schemas[t].fields[f];
	uint64_t nm = pfc ? bt_field_class_structure_get_member_count(pfc) : 0;
	uint64_t i;
	for (i = 0; i < nm; i++) {
		const bt_field_class_structure_member *mb =
			bt_field_class_structure_borrow_member_by_index_const(pfc, i);
		if (!strcmp(bt_field_class_structure_member_get_name(mb), fd->name))
			break;
	}
	const bt_field_class *mfc =
		i < nm ? bt_field_class_structure_member_borrow_field_class_const(
				 bt_field_class_structure_borrow_member_by_index_const(pfc, i)) :
			 NULL;
	bt_field_class_type ft = mfc ? bt_field_class_get_type(mfc) : 0;
	bool ok = mfc && (fd->str ? ft == BT_FIELD_CLASS_TYPE_STRING :
				    bt_field_class_type_is(ft, BT_FIELD_CLASS_TYPE_INTEGER));
	ci->nf = f + 1;
	if (!mfc && optional_field(t, fd->name)) {
		ci->idx[f] = UINT64_MAX;
		return true;
	}
	if (!ok && mfc) {
		snprintf(ld->fatal, sizeof(ld->fatal),
			 "event %s: field '%s' is of the wrong type (%s expected; a damaged "
			 "metadata, or a trace of another icache version?)",
			 name, fd->name, fd->str ? "a string" : "an integer");
		return false;
	}
	if (!ok) {
		snprintf(ld->fatal, sizeof(ld->fatal),
			 "event %s has no %s field '%s' (a trace of another icache version?)", name,
			 fd->str ? "string" : "integer", fd->name);
		return false;
	}
	ci->idx[f] = i;
	ci->is_signed[f] =
		!fd->str && bt_field_class_type_is(ft, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
	ci->is_class[f] = !strcmp(fd->type, "lock_class");
	return true;
}

static struct class_info *class_info(struct trace_index *ix, const bt_event_class *ec)
{
	struct ix_loader *ld = ix->loader;
	uintptr_t h = ((uintptr_t)ec >> 4) % CLASS_CACHE;
	for (unsigned probe = 0; probe < CLASS_CACHE; probe++) {
		struct class_info *ci = &ld->classes[(h + probe) % CLASS_CACHE];
		if (ci->ec == ec)
			return ci;
		if (ci->ec)
			continue;
		/* First sight of this class: resolve its fields once. */
		ci->ec = ec;
		ci->type = -1;
		ci->vtid_idx = ci->vpid_idx = -1;
		const char *name = bt_event_class_get_name(ec);
		if (!name || strncmp(name, "icache:", 7) != 0)
			return ci;
		int t;
		for (t = 0; t < EV__COUNT; t++)
			if (ix_schemas[t].name && !strcmp(ix_schemas[t].name, name + 7))
				break;
		if (t == EV__COUNT)
			return ci; /* a newer event we do not know: skip it */
		const bt_field_class *pfc = bt_event_class_borrow_payload_field_class_const(ec);
		for (int f = 0; f < MAX_FIELDS && ix_schemas[t].fields[f].name; f++)
			if (!resolve_field(ld, ci, pfc, name, t, f))
				return ci;
		const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
		const bt_field_class *cc =
			bt_stream_class_borrow_event_common_context_field_class_const(sc);
		if (cc) {
			uint64_t nm = bt_field_class_structure_get_member_count(cc);
			for (uint64_t i = 0; i < nm; i++) {
				const bt_field_class_structure_member *mb =
					bt_field_class_structure_borrow_member_by_index_const(cc,
											      i);
				const char *mn = bt_field_class_structure_member_get_name(mb);
				if (!bt_field_class_type_is(
					    bt_field_class_get_type(
						    bt_field_class_structure_member_borrow_field_class_const(
							    mb)),
					    BT_FIELD_CLASS_TYPE_INTEGER))
					continue;
				if (!strcmp(mn, "vtid"))
					ci->vtid_idx = (int64_t)i;
				else if (!strcmp(mn, "vpid"))
					ci->vpid_idx = (int64_t)i;
			}
		}
		ci->type = t;
		return ci;
	}
	snprintf(ld->fatal, sizeof(ld->fatal), "more than %d event classes", CLASS_CACHE);
	return &ld->classes[0];
}

static void note_other(struct trace_index *ix, const char *name)
{
	ix->other_events++;
	if (!name || strstr(ix->other_names, name))
		return;
	size_t n = strlen(ix->other_names);
	if (n + strlen(name) + 3 < sizeof(ix->other_names))
		snprintf(ix->other_names + n, sizeof(ix->other_names) - n, "%s%s", n ? ", " : "",
			 name);
}

static uint64_t field_u64(const bt_field *f, bool sgn)
{
	return sgn ? (uint64_t)bt_field_integer_signed_get_value(f) :
		     bt_field_integer_unsigned_get_value(f);
}

static struct ix_event *new_event(struct trace_index *ix, int64_t ts)
{
	ix_store_grow(ix);
	struct ix_event *e = &ix->ev[ix->nev++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->cpu = IX_NO_CPU;
	e->core = ix->loader->core;
	return e;
}

/* Events before nev are settled: no later one shares their time.  The
 * layer above (the timeline) replays them, and may reorder them. */
static void settle(struct trace_index *ix)
{
	if (ix->hooks.settled)
		ix->hooks.settled(ix, ix->nev);
	ix_store_settled(ix, ix->nev);
}

/* Put field f's value where the event table says it goes. */
#define STORE_(slot, member)                          \
	case slot:                                    \
		e->member = (__typeof__(e->member))v; \
		break;
static void fill_slot(struct trace_index *ix, const struct ix_raw *r, struct ix_event *e, int f,
		      uint64_t v, const char *str)
{
	if ((r->is_class >> f & 1) && v >= IX_MAX_CLASSES)
		v = IX_MAX_CLASSES - 1;
	switch (ix_schemas[r->type].fields[f].slot) {
		IX_PLAIN_SLOTS(STORE_)
	case SL_OBJ:
		e->obj = id_intern(ix, v);
		break;
	case SL_HI:
		e->val |= (v & 0xffffffffu) << 32;
		break;
	case SL_LO:
		e->val |= v & 0xffffffffu;
		break;
	case SL_STRID:
		e->obj = str_intern(ix, str ? str : "");
		break;
	case SL_SIDE:
		break;
	}
}
#undef STORE_

/* The side tables of the events that do not fit in 32 bytes; v and s are
 * the fields in the table's order. */
static void add_violation(struct trace_index *ix, struct ix_event *e, const uint64_t *v,
			  const char *const *s)
{
	ix->viols = grow(ix->viols, &ix->viols_cap, ix->nviols + 1, sizeof(*ix->viols));
	struct ix_violation *vi = &ix->viols[ix->nviols];
	vi->cpu = e->cpu;
	vi->kind = (uint8_t)v[1];
	vi->cls_a = (uint8_t)v[2];
	vi->cls_b = (uint8_t)v[3];
	vi->site_a = (uint8_t)v[4];
	vi->site_b = (uint8_t)v[5];
	vi->ino = v[6];
	vi->text = str_intern(ix, s[7] ? s[7] : "");
	vi->ev = ix->nev - 1;
	e->val = ix->nviols++;
}

static void add_run(struct trace_index *ix, const struct ix_raw *raw, struct ix_event *e,
		    const uint64_t *v, int run)
{
	struct ix_run *r = &ix->runs[run];
	r->ev = ix->nev - 1;
	r->kept = true;
	e->val = (uint64_t)run;
	if (ix_run0(ix) != r)
		return;
	/* The first run's order: order_rules (v[5]) order_rule events
	 * follow.  A trace older than the field does not give its order as
	 * data: it stays unknown (the viewer never parses the text). */
	bool has_rules = raw->nf > 5 && !(raw->absent >> 5 & 1);
	ix->rules_expected = (uint32_t)v[5];
	ix->order_known = has_rules && v[5] == 0;
	if (ix->hooks.order)
		ix->hooks.order(ix);
}

/* One rule of the first run's order (the order_rule events follow its
 * run_begin); the order is known once all of them are in. */
static void add_rule(struct trace_index *ix, const struct ix_event *e)
{
	/* (the shown run is the last one begun: others' rules are not kept) */
	if (ix_run0(ix) != &ix->runs[ix->nruns - 1] || ix->nrules >= ix->rules_expected)
		return;
	ix->rules = grow(ix->rules, &ix->rules_cap, ix->nrules + 1, sizeof(*ix->rules));
	ix->rules[ix->nrules++] = (struct order_rule){ e->a, e->b };
	ix->order_known = ix->nrules == ix->rules_expected;
	if (ix->hooks.order)
		ix->hooks.order(ix);
}

/* Position of a field in the event table's row of type t, or -1. */
static int field_pos(int t, const char *name)
{
	for (int f = 0; f < MAX_FIELDS && ix_schemas[t].fields[f].name; f++)
		if (!strcmp(ix_schemas[t].fields[f].name, name))
			return f;
	return -1;
}

/* ---- runs and processes, --run and --pid ----------------------------------- */

static int64_t ctx_id(const bt_event *ev, int64_t idx)
{
	if (idx < 0)
		return -1;
	const bt_field *cc = bt_event_borrow_common_context_field_const(ev);
	if (!cc)
		return -1;
	const bt_field *f =
		bt_field_structure_borrow_member_field_by_index_const(cc, (uint64_t)idx);
	return bt_field_class_type_is(bt_field_get_class_type(f),
				      BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ?
		       bt_field_integer_signed_get_value(f) :
		       (int64_t)bt_field_integer_unsigned_get_value(f);
}

static void note_pid(struct trace_index *ix, int64_t vpid)
{
	if (vpid < 0)
		return;
	ix->has_vpid = true;
	for (unsigned i = 0; i < ix->npids; i++)
		if (ix->pids[i] == vpid)
			return;
	if (ix->npids < sizeof(ix->pids) / sizeof(ix->pids[0]))
		ix->pids[ix->npids++] = vpid;
}

/* Every run_begin is listed, shown or not. */
static int note_run_begin(struct trace_index *ix, int64_t ts, int64_t vtid, int64_t vpid,
			  const char *const *s, const uint64_t *v)
{
	ix->runs = grow(ix->runs, &ix->runs_cap, ix->nruns + 1, sizeof(*ix->runs));
	struct ix_run *r = &ix->runs[ix->nruns];
	memset(r, 0, sizeof(*r));
	r->scheme = str_intern(ix, s[0] ? s[0] : "");
	r->workload = str_intern(ix, s[1] ? s[1] : "");
	r->cpus = (unsigned)v[2];
	r->seed = v[3];
	r->order = str_intern(ix, s[4] ? s[4] : "");
	r->scheme_file = str_intern(ix, s[6] ? s[6] : "");
	r->scheme_cksum = (uint32_t)v[7];
	r->threads = str_intern(ix, s[8] ? s[8] : "");
	r->ev = UINT64_MAX;
	r->pid = vpid >= 0 ? vpid : vtid;
	r->begin_ts = ts;
	r->end_ts = INT64_MIN;
	return (int)ix->nruns++;
}

/* virtual_time: the open run's clock is virtual from here on. */
static void note_virtual_time(struct trace_index *ix, const uint64_t *v)
{
	if (!ix->nruns || ix->runs[ix->nruns - 1].end_ts != INT64_MIN)
		return;
	int k = field_pos(EV_virtual_time, "stamped");
	ix->runs[ix->nruns - 1].virtual_run = true;
	ix->runs[ix->nruns - 1].virtual_stamped = k >= 0 && v[k] != 0;
}

/* run_end belongs to the open run of the same process (or main thread). */
static void note_run_end(struct trace_index *ix, int64_t ts, int64_t vtid, int64_t vpid,
			 const uint64_t *v)
{
	int64_t who = vpid >= 0 ? vpid : vtid;
	for (uint32_t i = ix->nruns; i-- > 0;) {
		struct ix_run *r = &ix->runs[i];
		if (r->end_ts == INT64_MIN && (r->pid == who || who < 0)) {
			r->end_ts = ts;
			r->ops = v[0];
			int k = field_pos(EV_run_end, "interrupted");
			r->interrupted = k >= 0 && v[k] != 0;
			return;
		}
	}
}

/*
 * Is this event part of what --run/--pid chose?  With a vpid context the
 * process says so; without one, the chosen run is the window from its
 * run_begin to the run_end of the same (main) thread, and another run
 * starting inside that window cannot be told apart from it.
 */
static bool selected(struct trace_index *ix, int type, int64_t vtid, int64_t vpid)
{
	struct ix_loader *ld = ix->loader;
	const struct ix_select *sel = &ix->sel;
	if (!sel->run && sel->pid < 0)
		return true;
	bool begin = type == EV_run_begin;
	if (begin)
		ld->runs_seen++;
	int64_t who = vpid >= 0 ? vpid : vtid;
	if (vpid >= 0) {
		if (begin && sel->run == ld->runs_seen)
			ld->window_tid = vpid;
		return sel->pid >= 0 ? vpid == sel->pid : vpid == ld->window_tid;
	}
	if (begin && ld->window_open) {
		snprintf(ld->fatal, sizeof(ld->fatal),
			 "run %u starts while the chosen run is still going and the trace has "
			 "no vpid context: their events cannot be told apart (record with "
			 "`lttng add-context -u -t vpid`)",
			 ld->runs_seen);
		return false;
	}
	if (begin && (sel->run == ld->runs_seen || (sel->pid >= 0 && sel->pid == who))) {
		ld->window_open = true;
		ld->window_tid = vtid;
		return true;
	}
	if (type == EV_run_end && ld->window_open && vtid == ld->window_tid) {
		ld->window_open = false;
		return true;
	}
	return ld->window_open;
}

static int stream_of(struct trace_index *ix, const bt_stream *st)
{
	if (!st)
		return -1;
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (ix->streams[i].bt == st)
			return (int)i;
	const char *name = bt_stream_get_name(st);
	char orig[4400];
	struct ix_loader *ld = ix->loader;
	for (int d = 0; name && ld->shares && d < ld->dirs.n; d++) {
		size_t n = strlen(ld->shares[d]);
		if (!strncmp(name, ld->shares[d], n) && name[n] == '/') {
			snprintf(orig, sizeof(orig), "%s%s", ld->dirs.dirs[d], name + n);
			name = orig; /* the stream file it links to */
			break;
		}
	}
	int k = health_stream(ix, name);
	ix->streams[k].bt = st;
	return k;
}

static void cut_pending(struct trace_index *ix, int64_t ts);
static void add_gap(struct trace_index *ix, int64_t ts, struct ix_discard d);

/* The event's fields, in the table's order: integers in v, strings in s. */
static void read_payload(const struct class_info *ci, const bt_event *ev, uint64_t *v,
			 const char **s)
{
	const bt_field *pl = bt_event_borrow_payload_field_const(ev);
	for (int f = 0; f < ci->nf; f++) {
		if (ci->idx[f] == UINT64_MAX)
			continue; /* an optional field this trace lacks */
		const bt_field *fld =
			bt_field_structure_borrow_member_field_by_index_const(pl, ci->idx[f]);
		if (ix_schemas[ci->type].fields[f].str)
			s[f] = bt_field_string_get_value(fld);
		else
			v[f] = field_u64(fld, ci->is_signed[f]);
	}
}

/*
 * The event's time, never before the last one's (the muxer's order), and
 * what a new time means: streams that ended are cut, the events of the
 * previous timestamp are replayed as one group.
 */
static int64_t event_time(struct trace_index *ix, int64_t ts)
{
	struct ix_loader *ld = ix->loader;
	if (ts < ld->last_ts)
		ts = ld->last_ts;
	if (ld->npending)
		cut_pending(ix, ts);
	if (ts != ld->last_ts || ix->nev == 0)
		settle(ix);
	ld->last_ts = ts;
	return ts;
}

/* The packet's core (cpu_id) and stream, looked up when it changes. */
static void packet_info(struct trace_index *ix, const bt_packet *pkt)
{
	struct ix_loader *ld = ix->loader;
	if (pkt == ld->last_pkt)
		return;
	ld->last_pkt = pkt;
	ld->core = 255;
	const bt_field *ctx = pkt ? bt_packet_borrow_context_field_const(pkt) : NULL;
	const bt_field *cf =
		ctx ? bt_field_structure_borrow_member_field_by_name_const(ctx, "cpu_id") : NULL;
	if (cf && bt_field_class_type_is(bt_field_get_class_type(cf),
					 BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		uint64_t c = bt_field_integer_unsigned_get_value(cf);
		ld->core = c > 254 ? 255 : (uint8_t)c;
	}
	ld->stream = pkt ? stream_of(ix, bt_packet_borrow_stream_const(pkt)) : -1;
}

/* Count the event on its stream (and the stream's core). */
static void note_packet(struct trace_index *ix, const struct ix_raw *r, int64_t ts)
{
	struct ix_loader *ld = ix->loader;
	ld->core = r->core;
	ld->stream = r->stream;
	if (r->stream < 0)
		return;
	struct ix_stream *x = &ix->streams[r->stream];
	if (r->core != 255)
		x->core = r->core;
	x->events++;
	x->last_ts = ts;
}

/* What babeltrace2 says of one event, as a description (decode.h). */
static void describe_event(struct trace_index *ix, const bt_message *msg)
{
	struct ix_loader *ld = ix->loader;
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct class_info *ci = class_info(ix, ec);
	if (ci->type < 0) {
		ld->out(ix, &(struct ix_raw){ .kind = RAW_OTHER,
					      .name = bt_event_class_get_name(ec),
					      .stream = -1,
					      .ts = INT64_MIN });
		return;
	}
	if (ld->fatal[0])
		return;
	/* (not zeroed whole: v and s are set up to nf below, the rest here) */
	struct ix_raw r;
	r.kind = RAW_EVENT;
	r.name = NULL; /* a decoder process sends the name when there is one */
	r.packets = false;
	r.te = INT64_MIN;
	r.count = 0;
	r.type = ci->type;
	r.nf = ci->nf;
	r.absent = r.is_class = 0;
	for (int f = 0; f < ci->nf; f++) {
		r.absent |= (uint32_t)(ci->idx[f] == UINT64_MAX) << f;
		r.is_class |= (uint32_t)ci->is_class[f] << f;
		r.v[f] = 0;
		r.s[f] = NULL;
	}
	r.ts = INT64_MIN;
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &r.ts) !=
			  BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		r.ts = INT64_MIN;
	packet_info(ix, bt_event_borrow_packet_const(ev));
	r.core = ld->core;
	r.stream = ld->stream;
	read_payload(ci, ev, r.v, r.s);
	r.vtid = ctx_id(ev, ci->vtid_idx);
	r.vpid = ctx_id(ev, ci->vpid_idx);
	ld->out(ix, &r);
}

static void apply_event(struct trace_index *ix, const struct ix_raw *r)
{
	struct ix_loader *ld = ix->loader;
	int64_t ts = event_time(ix, r->ts == INT64_MIN ? ld->last_ts : r->ts);
	ix->decoded++;
	note_packet(ix, r, ts);

	int64_t vtid = r->vtid, vpid = r->vpid;
	note_pid(ix, vpid);
	int run = -1;
	if (r->type == EV_run_begin)
		run = note_run_begin(ix, ts, vtid, vpid, r->s, r->v);
	else if (r->type == EV_run_end)
		note_run_end(ix, ts, vtid, vpid, r->v);
	else if (r->type == EV_virtual_time)
		note_virtual_time(ix, r->v);
	if (!selected(ix, r->type, vtid, vpid))
		return;
	if (ld->missing >= 0) {
		/* A whole stream is gone: nothing is known at any time. */
		add_gap(ix, ts,
			(struct ix_discard){ .begin = ts,
					     .end = INT64_MAX,
					     .cut = true,
					     .stream = ld->missing });
		ld->missing = -1;
	}

	struct ix_event *e = new_event(ix, ts);
	e->type = (uint8_t)r->type;
	for (int f = 0; f < r->nf; f++)
		fill_slot(ix, r, e, f, r->v[f], r->s[f]);
	if (r->type == EV_violation)
		add_violation(ix, e, r->v, r->s);
	else if (r->type == EV_run_begin)
		add_run(ix, r, e, r->v, run);
	else if (r->type == EV_order_rule)
		add_rule(ix, e);
	if (e->cpu != IX_NO_CPU && e->cpu + 1u > ix->ncpus)
		ix->ncpus = e->cpu + 1u;
	if (e->cpu == IX_NO_CPU && ev_in_lane(e->type)) /* e.g. RCU callbacks */
		ix->nocpu_seen = true;
	if (e->cpu < 256 && e->type <= EV_sched_step)
		ix->cpu_seen[e->cpu / 64] |= 1ull << (e->cpu % 64);
}

static void describe_discard(struct trace_index *ix, const bt_message *msg)
{
	struct ctf_discard d;
	if (!ctf_discard_read(msg, &d))
		return;
	struct ix_raw r = { .kind = RAW_DISCARD,
			    .packets = d.packets,
			    .count = d.count,
			    .ts = d.begin,
			    .te = d.end,
			    .stream = stream_of(ix, d.stream) };
	ix->loader->out(ix, &r);
}

static void apply_discard(struct trace_index *ix, const struct ix_raw *r)
{
	struct ix_loader *ld = ix->loader;
	bool packets = r->packets;
	uint64_t count = r->count;
	int64_t tb = r->ts, te = r->te;
	if (packets)
		ix->discarded_packets += count ? count : 1;
	else
		ix->discarded_events += count;
	int64_t ts = tb != INT64_MIN && tb > ld->last_ts ? tb : ld->last_ts;
	int si = r->stream;
	if (si >= 0) {
		struct ix_stream *x = &ix->streams[si];
		x->windows++;
		if (packets)
			x->lost_packets += count ? count : 1;
		else
			x->lost_events += count;
		if (ts < x->lost_from)
			x->lost_from = ts;
		if ((te != INT64_MIN ? te : ts) > x->lost_to)
			x->lost_to = te != INT64_MIN ? te : ts;
	}
	add_gap(ix, ts,
		(struct ix_discard){
			.begin = tb, .end = te, .count = count, .packets = packets, .stream = si });
}

/* A loss record in the event array (the model forgets state there). */
static void add_gap(struct trace_index *ix, int64_t ts, struct ix_discard d)
{
	struct ix_loader *ld = ix->loader;
	bool packets = d.packets || d.cut;
	uint64_t count = d.count;
	if (ts != ld->last_ts || ix->nev == 0)
		settle(ix);
	ld->last_ts = ts;
	ix->discards =
		grow(ix->discards, &ix->discards_cap, ix->ndiscards + 1, sizeof(*ix->discards));
	d.ev = ix->nev;
	ix->discards[ix->ndiscards] = d;
	struct ix_event *e = new_event(ix, ts);
	e->type = packets ? EV_discarded_packets : EV_discarded_events;
	e->val = count;
	e->obj = ix->ndiscards++;
}

static void note_stream_end(struct trace_index *ix, int si);

static void describe_packet_end(struct trace_index *ix, const bt_message *msg)
{
	const bt_packet *pkt = bt_message_packet_end_borrow_packet_const(msg);
	const bt_stream *st = bt_packet_borrow_stream_const(pkt);
	if (!bt_stream_class_packets_have_end_default_clock_snapshot(
		    bt_stream_borrow_class_const(st)))
		return;
	struct ix_raw r = { .kind = RAW_PACKET_END };
	if (bt_clock_snapshot_get_ns_from_origin(
		    bt_message_packet_end_borrow_default_clock_snapshot_const(msg), &r.ts) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return;
	r.stream = stream_of(ix, st);
	if (r.stream >= 0)
		ix->loader->out(ix, &r);
}

static void apply_packet_end(struct trace_index *ix, int si, int64_t t)
{
	struct ix_stream *x = &ix->streams[si];
	if (t > x->end_ts)
		x->end_ts = t;
	/* Its file's last packet: the stream ends here.  (Packet ends come in
	 * time order; the stream-end message has no time and the muxer may
	 * hold it back.) */
	if (x->packets && ++x->packets_read == x->packets)
		note_stream_end(ix, si);
}

/*
 * A stream ended.  If the run has not ended and later events come from
 * other streams, this one's tail is missing: that is a loss window from
 * here to the end (materialized by cut_pending at the next later event).
 */
static void note_stream_end(struct trace_index *ix, int si)
{
	struct ix_loader *ld = ix->loader;
	const struct ix_run *r = ix->nruns ? &ix->runs[ix->nruns - 1] : NULL;
	if (si < 0 || ix->streams[si].end_noted || (r && r->end_ts != INT64_MIN) ||
	    ld->npending >= 64)
		return;
	ix->streams[si].end_noted = true;
	ld->pending[ld->npending++] = si;
}

static void cut_pending(struct trace_index *ix, int64_t ts)
{
	struct ix_loader *ld = ix->loader;
	for (unsigned i = 0; i < ld->npending; i++) {
		const struct ix_stream *x = &ix->streams[ld->pending[i]];
		int64_t at = x->end_ts != INT64_MIN ? x->end_ts : x->last_ts;
		if (at >= ts)
			continue;
		add_gap(ix, ld->last_ts,
			(struct ix_discard){ .begin = at,
					     .end = INT64_MAX,
					     .cut = true,
					     .stream = ld->pending[i] });
		ld->pending[i--] = ld->pending[--ld->npending];
	}
}

/* Which icache event classes the metadata declares (once per class). */
static void describe_classes(struct trace_index *ix, const bt_stream_class *sc)
{
	struct ix_loader *ld = ix->loader;
	for (unsigned i = 0; i < ld->nsc; i++)
		if (ld->sc_seen[i] == sc)
			return;
	if (ld->nsc < 8)
		ld->sc_seen[ld->nsc++] = sc;
	uint64_t n = bt_stream_class_get_event_class_count(sc);
	for (uint64_t i = 0; i < n; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(sc, i));
		if (name && strncmp(name, "icache:", 7) == 0)
			ld->out(ix,
				&(struct ix_raw){ .kind = RAW_CLASS, .name = name, .stream = -1 });
	}
}

static void apply_class(struct trace_index *ix, const char *name)
{
	int t;
	for (t = 0; t < EV__COUNT; t++)
		if (ix_schemas[t].name && !strcmp(ix_schemas[t].name, name + 7))
			break;
	if (t < EV__COUNT) {
		ix->classes_seen |= 1ull << t;
		return;
	}
	size_t k = strlen(ix->unknown_classes);
	if (k + strlen(name) + 3 < sizeof(ix->unknown_classes) &&
	    !strstr(ix->unknown_classes, name))
		snprintf(ix->unknown_classes + k, sizeof(ix->unknown_classes) - k, "%s%s",
			 k ? ", " : "", name);
}

void ix_raw_apply(struct trace_index *ix, const struct ix_raw *r)
{
	switch (r->kind) {
	case RAW_EVENT:
		apply_event(ix, r);
		break;
	case RAW_OTHER:
		note_other(ix, r->name);
		break;
	case RAW_DISCARD:
		apply_discard(ix, r);
		break;
	case RAW_PACKET_END:
		apply_packet_end(ix, r->stream, r->ts);
		break;
	case RAW_STREAM_END:
		note_stream_end(ix, r->stream);
		break;
	case RAW_CLASS:
		apply_class(ix, r->name);
		break;
	default:
		break;
	}
}

void ix_set_emit(struct trace_index *ix, ix_raw_emit_fn emit)
{
	ix->loader->out = emit ? emit : ix_raw_apply;
}

/* One message of the trace, in time order: described to the loader's
 * output (the index itself, or a decoder process's pipe).  Never stops. */
static bool describe_message(const bt_message *m, void *data)
{
	struct trace_index *ix = data;
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_EVENT:
		describe_event(ix, m);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		describe_discard(ix, m);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		describe_packet_end(ix, m);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		describe_classes(ix, bt_stream_borrow_class_const(
					     bt_message_stream_beginning_borrow_stream_const(m)));
		break;
	case BT_MESSAGE_TYPE_STREAM_END: {
		int si = stream_of(ix, bt_message_stream_end_borrow_stream_const(m));
		ix->loader->out(ix, &(struct ix_raw){ .kind = RAW_STREAM_END, .stream = si });
		break;
	}
	default:
		break;
	}
	return false; /* the index reads to the end */
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
								       void *data)
{
	struct trace_index *ix = data;
	bt_graph_simple_sink_component_consume_func_status st =
		ctf_sink_each(it, describe_message, ix);
	if (st == BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END)
		ix->loader->ended = true;
	return st;
}

/* ---- surviving babeltrace2's own failures ---------------------------------------
 *
 * libbabeltrace2 2.0 asserts (abort()) on some corrupt streams, divides by
 * zero or dereferences garbage on some corrupt metadata (the fuzzer found
 * both), and can spin on others.  Its calls run between bt_arm() and
 * bt_disarm(): SIGABRT, SIGFPE, SIGSEGV, SIGBUS, or SIGALRM after
 * BT_WATCHDOG_S seconds of this thread's CPU time inside one call, jumps
 * back here and the load fails with one line.  CPU time, not wall time: a
 * spin burns it, while a loader merely starved of the CPU on a busy machine
 * (a sanitizer build, a dozen lessons side by side on two cores) burns
 * none and must not be called corrupt.  The library's state is then unknown, so the loader
 * is "poisoned": nothing of it is freed or called again.  Its stderr noise
 * (assertion banners) goes to /dev/null while it runs, unless
 * ix_keep_stderr is set (the fuzzer sets it so sanitizer reports show).
 */
#define BT_WATCHDOG_S 20
bool ix_keep_stderr;
bool ix_bt_poisoned;
static sigjmp_buf bt_jmp;
static volatile sig_atomic_t bt_inside, bt_why;
static const int bt_sigs[] = { SIGABRT, SIGALRM, SIGFPE, SIGSEGV, SIGBUS };
#define BT_NSIGS ((int)(sizeof(bt_sigs) / sizeof(bt_sigs[0])))
static struct sigaction bt_old[BT_NSIGS]; /* what bt_arm() replaced */
static int saved_stderr = -1;
static timer_t bt_timer;
static bool bt_timer_made;
static pid_t bt_timer_tid; /* the thread it counts and signals */

/* SIGALRM to this thread after secs of its CPU time (0: disarm); where no
 * such timer can be made, alarm() and wall time.  A decoder process
 * fork()ed from the loader inherits no timer: it makes its own. */
static void bt_watchdog(unsigned secs)
{
	if (bt_timer_made && bt_timer_tid != gettid()) {
		timer_delete(bt_timer); /* another thread's, or not ours at all */
		bt_timer_made = false;
	}
	if (!bt_timer_made && secs) {
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGALRM;
		sev._sigev_un._tid = gettid();
		bt_timer_made = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &bt_timer) == 0;
		bt_timer_tid = gettid();
	}
	if (!bt_timer_made) {
		alarm(secs);
		return;
	}
	struct itimerspec its = { .it_value = { .tv_sec = secs } };
	timer_settime(bt_timer, 0, &its, NULL);
}

static void bt_signal(int sig)
{
	if (bt_inside) {
		bt_inside = 0;
		bt_why = sig;
		siglongjmp(bt_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bt_arm(void)
{
	sigs_catch(bt_sigs, BT_NSIGS, bt_signal, 0, bt_old);
	if (!ix_keep_stderr) {
		fflush(stderr);
		saved_stderr = dup(2);
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
	}
	bt_watchdog(BT_WATCHDOG_S);
	bt_inside = 1;
}

static void bt_disarm(void)
{
	bt_inside = 0;
	bt_watchdog(0);
	if (saved_stderr >= 0) {
		fflush(stderr);
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
	}
	sigs_restore(bt_sigs, BT_NSIGS, bt_old);
}

/* The message after a jump out of babeltrace2. */
static void crash_text(const struct trace_index *ix, int sig, char *err, size_t len)
{
	if (sig == SIGALRM)
		errmsg(err, len,
		       "%s: corrupt trace: babeltrace2 made no progress in %d s of CPU "
		       "after %" PRIu64 " events",
		       ix->path, BT_WATCHDOG_S, ix->nev);
	else if (sig == SIGABRT)
		errmsg(err, len,
		       "%s: truncated or corrupt stream: babeltrace2's CTF decoder "
		       "gave up (assertion failed) after %" PRIu64 " events",
		       ix->path, ix->nev);
	else
		errmsg(err, len,
		       "%s: corrupt trace: babeltrace2's CTF decoder crashed (%s) "
		       "after %" PRIu64 " events",
		       ix->path, sig == SIGFPE ? "arithmetic fault" : "bad memory access", ix->nev);
}

static void bt_failed(struct trace_index *ix, char *err, size_t len)
{
	bt_disarm();
	ix->loader->poisoned = true;
	ix_bt_poisoned = true;
	crash_text(ix, bt_why, err, len);
}

/* ---- building the graph ------------------------------------------------------- */

/* "damaged metadata", "corrupt stream" or plain "cannot read" for dir. */
static void source_failed(struct trace_index *ix, const char *dir, char *err, size_t len)
{
	char cause[400];
	bool meta;

	ctf_take_error(cause, sizeof(cause), &meta);
	if (meta || strstr(cause, "Cannot create trace"))
		errmsg(err, len, "%s: damaged CTF metadata in %s/metadata: %s", ix->path, dir,
		       cause);
	else if (strstr(cause, "index") || strstr(cause, "stream"))
		errmsg(err, len, "%s: truncated or corrupt stream in %s: %s", ix->path, dir, cause);
	else
		errmsg(err, len, "%s: cannot read the CTF trace in %s: %s", ix->path, dir, cause);
}

/* One src.ctf.fs per trace directory, armed against babeltrace2 dying. */
static int add_traces(struct trace_index *ix, char *err, size_t len)
{
	struct ix_loader *ld = ix->loader;
	char cause[400];

	for (int d = 0; d < ld->dirs.n; d++) {
		const char *dir = ld->dirs.dirs[d];
		if (sigsetjmp(bt_jmp, 1)) {
			bt_failed(ix, err, len);
			return -1;
		}
		bt_arm();
		enum ctf_status st = ctf_graph_add_trace(&ld->g, dir);
		bt_disarm();
		if (st == CTF_SOURCE) {
			source_failed(ix, dir, err, len);
			return -1;
		}
		if (st != CTF_OK) {
			ctf_take_error(cause, sizeof(cause), NULL);
			errmsg(err, len, "%s: cannot connect a stream of %s: %s", ix->path, dir,
			       cause);
			return -1;
		}
	}
	return 0;
}

/* The graph of lib/ctf.h, ending in sink_consume. */
static int build_graph(struct trace_index *ix, char *err, size_t len)
{
	struct ix_loader *ld = ix->loader;
	char cause[400];

	switch (ctf_graph_init(&ld->g)) {
	case CTF_OK:
		break;
	case CTF_NO_PLUGINS:
		ctf_take_error(cause, sizeof(cause), NULL);
		errmsg(err, len, "%s: cannot load the babeltrace2 'ctf' and 'utils' plugins",
		       ix->path);
		return -1;
	case CTF_NO_CLASSES:
		errmsg(err, len, "%s: babeltrace2 lacks src.ctf.fs or flt.utils.muxer", ix->path);
		return -1;
	default:
		ctf_take_error(cause, sizeof(cause), NULL);
		errmsg(err, len, "%s: cannot create the muxer: %s", ix->path, cause);
		return -1;
	}
	if (add_traces(ix, err, len))
		return -1;
	switch (ctf_graph_add_sink(&ld->g, "icview", sink_consume, ix)) {
	case CTF_OK:
		return 0;
	case CTF_NO_STREAM:
		errmsg(err, len, "%s: CTF trace without any data stream", ix->path);
		return -1;
	case CTF_SINK:
		ctf_take_error(cause, sizeof(cause), NULL);
		errmsg(err, len, "%s: cannot create the sink: %s", ix->path, cause);
		return -1;
	default:
		ctf_take_error(cause, sizeof(cause), NULL);
		errmsg(err, len, "%s: cannot connect the sink: %s", ix->path, cause);
		return -1;
	}
}

static void loader_free(struct trace_index *ix, struct ix_loader *ld)
{
	if (!ld)
		return;
	pdec_free(ld->pdec, ix);
	ctf_dirs_free(&ld->dirs);
	if (ld->poisoned) {
		/* babeltrace2 died half-way: leave its objects alone. */
		free(ld);
		return;
	}
	ctf_graph_fini(&ld->g);
	omap_free(&ld->strmap);
	free(ld);
}

struct trace_index *ix_decode_open(const char *path, char *err, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		errmsg(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	if (!S_ISDIR(st.st_mode)) {
		/* A metadata file names its trace directory. */
		const char *slash = strrchr(path, '/');
		if (strcmp(slash ? slash + 1 : path, "metadata") != 0) {
			errmsg(err, len, "%s: not a directory (give the trace directory)", path);
			return NULL;
		}
		if (slash)
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		else
			snprintf(dir, sizeof(dir), ".");
	}
	struct ctf_dirs sc = { 0 };
	ctf_dirs_scan(&sc, dir);
	if (sc.n == 0) {
		if (sc.nfiles == 0)
			errmsg(err, len, "%s: empty directory (no trace here)", path);
		else
			errmsg(err, len, "%s: not a CTF trace (no metadata file among %d file%s)",
			       path, sc.nfiles, sc.nfiles == 1 ? "" : "s");
		ctf_dirs_free(&sc);
		return NULL;
	}

	for (int d = 0; d < sc.n; d++) {
		char why[600];
		if (check_metadata(sc.dirs[d], why, sizeof(why)) != 0) {
			errmsg(err, len, "%s: damaged CTF metadata: %s", path, why);
			ctf_dirs_free(&sc);
			return NULL;
		}
	}
	struct trace_index *ix = xcalloc(1, sizeof(*ix));
	ix->path = xstrdup(path);
	ix->loader = xcalloc(1, sizeof(*ix->loader));
	ix->sel.pid = -1;
	ix->loader->dirs = sc;
	ix->loader->bytes_total = sc.bytes;
	ix->loader->last_ts = INT64_MIN;
	ix->loader->stream = -1;
	ix->loader->window_tid = -1;
	ix->loader->out = ix_raw_apply;
	omap_init(&ix->loader->strmap, sizeof(uint32_t));
	ix->load_ns = now_ns();
	if (health_scan(ix, ix->loader->dirs.dirs, ix->loader->dirs.n, err, len) != 0 ||
	    build_graph(ix, err, len) != 0) {
		ix_decode_free(ix);
		return NULL;
	}
	ix->loader->missing = -1;
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (ix->streams[i].missing || ix->streams[i].empty ||
		    ((ix->streams[i].cut_mid || ix->streams[i].cut_idx) &&
		     ix->streams[i].whole == 0))
			ix->loader->missing = (int)i;
	return ix;
}

static void stream_text(const struct trace_index *ix, bool meta, const char *cause, char *err,
			size_t len)
{
	if (meta)
		errmsg(err, len, "%s: damaged CTF metadata: %s", ix->path, cause);
	else
		errmsg(err, len, "%s: truncated or corrupt stream after %" PRIu64 " events: %s",
		       ix->path, ix->nev, cause[0] ? cause : "decoding failed");
}

static enum ix_status fail_stream(struct trace_index *ix, char *err, size_t len)
{
	bool meta;
	char cause[400];
	ctf_take_error(cause, sizeof(cause), &meta);
	stream_text(ix, meta, cause, err, len);
	return IX_ERROR;
}

/* ---- a decoder process's share (pdecode.c) ---------------------------------------- */

/* What a decoder process says when it fails (RAW_ERROR): ts is one of
 * these, count its detail, name the cause. */
enum { PART_FATAL, PART_STREAM, PART_CRASH, PART_SETUP };

void ix_part_error_text(const struct trace_index *ix, const struct ix_raw *r, char *err, size_t len)
{
	const char *cause = r->name ? r->name : "";
	switch (r->ts) {
	case PART_STREAM:
		stream_text(ix, r->count != 0, cause, err, len);
		break;
	case PART_CRASH:
		crash_text(ix, (int)r->count, err, len);
		break;
	default:
		errmsg(err, len, "%s: %s", ix->path, cause);
		break;
	}
}

/* Run a graph of streams part, part + nparts, ... (or, with shares, of
 * the copies of the trace directories that list a share of the packets)
 * to the end, every description going to emit; 0, or -1 and *fail (a
 * RAW_ERROR) filled with cause (its storage).  Runs in a decoder process
 * (fork()ed after ix_decode_open): the parent's graph is a copy here,
 * never touched. */
int ix_decode_part(struct trace_index *ix, int part, int nparts, char **shares, ix_raw_emit_fn emit,
		   struct ix_raw *fail, char *cause, size_t clen)
{
	struct ix_loader *ld = ix->loader;
	*fail = (struct ix_raw){ .kind = RAW_ERROR, .ts = PART_SETUP, .name = cause };
	memset(&ld->g, 0, sizeof(ld->g));
	memset(ld->classes, 0, sizeof(ld->classes));
	ld->last_pkt = NULL;
	ld->nsc = 0;
	ld->out = emit;
	if (ctf_graph_init(&ld->g) != CTF_OK) {
		snprintf(cause, clen, "decoder process: cannot build a babeltrace2 graph");
		return -1;
	}
	ld->shares = shares;
	if (!shares)
		ctf_graph_set_part(&ld->g, part, nparts);
	for (int d = 0; d < ld->dirs.n; d++)
		if (ctf_graph_add_trace(&ld->g, shares ? shares[d] : ld->dirs.dirs[d]) != CTF_OK) {
			ctf_take_error(cause, clen, NULL);
			return -1;
		}
	if (ctf_graph_add_sink(&ld->g, "icpart", sink_consume, ix) != CTF_OK) {
		ctf_take_error(cause, clen, NULL);
		return -1;
	}
	if (sigsetjmp(bt_jmp, 1)) {
		bt_disarm();
		*fail = (struct ix_raw){ .kind = RAW_ERROR,
					 .ts = PART_CRASH,
					 .count = (uint64_t)bt_why };
		return -1;
	}
	for (;;) {
		bt_arm();
		bt_graph_run_once_status st = BT_GRAPH_RUN_ONCE_STATUS_OK;
		for (int i = 0; i < 256 && st == BT_GRAPH_RUN_ONCE_STATUS_OK && !ld->fatal[0]; i++)
			st = bt_graph_run_once(ld->g.graph);
		while (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN)
			st = bt_graph_run_once(ld->g.graph);
		bt_disarm();
		if (ld->fatal[0]) {
			snprintf(cause, clen, "%s", ld->fatal);
			fail->ts = PART_FATAL;
			return -1;
		}
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END)
			return 0;
		if (st != BT_GRAPH_RUN_ONCE_STATUS_OK) {
			bool meta;
			ctf_take_error(cause, clen, &meta);
			fail->ts = PART_STREAM;
			fail->count = meta;
			return -1;
		}
	}
}

enum ix_status ix_decode_step(struct trace_index *ix, int rounds, char *err, size_t len)
{
	struct ix_loader *ld = ix->loader;
	if (!ld)
		return IX_OK;
	if (ld->poisoned) {
		errmsg(err, len, "%s: the trace could not be decoded", ix->path);
		return IX_ERROR;
	}
	if (!ld->pdec_tried) {
		ld->pdec_tried = true;
		ld->pdec = pdec_start(ix, ld->g.nports, &ld->dirs);
	}
	if (ld->pdec) {
		enum ix_status ps = pdec_step(ix, ld->pdec, rounds, err, len);
		ld->ended = ps == IX_OK;
		return ps;
	}
	if (sigsetjmp(bt_jmp, 1)) {
		bt_failed(ix, err, len);
		return IX_ERROR;
	}
	bt_arm();
	enum ix_status r = IX_MORE;
	for (int i = 0; i < rounds && !ld->ended; i++) {
		bt_graph_run_once_status st = bt_graph_run_once(ld->g.graph);
		if (ld->fatal[0]) {
			errmsg(err, len, "%s: %s", ix->path, ld->fatal);
			r = IX_ERROR;
			break;
		}
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END) {
			ld->ended = true;
			break;
		}
		if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN)
			continue;
		if (st != BT_GRAPH_RUN_ONCE_STATUS_OK) {
			r = fail_stream(ix, err, len);
			break;
		}
		if (ix->hooks.check && ix->hooks.check(ix, err, len) != 0) {
			r = IX_ERROR;
			break;
		}
	}
	bt_disarm();
	if (r == IX_ERROR)
		return r;
	return ld->ended ? IX_OK : IX_MORE;
}

/* The share of the trace's time read: from the first event to the end
 * of the last packet of any stream (a clock value in its file). */
static double time_share(const struct trace_index *ix)
{
	uint64_t hi = 0;
	for (uint32_t i = 0; i < ix->nstreams; i++)
		if (ix->streams[i].clk_end > hi)
			hi = ix->streams[i].clk_end;
	if (!hi || !ix->nev || !ix->clock_freq)
		return 0;
	double end = (double)ix->clock_off_ns + (double)hi * 1e9 / (double)ix->clock_freq;
	double span = end - (double)ix->ev[0].ts;
	double f = span > 0 ? (double)(ix->loader->last_ts - ix->ev[0].ts) / span : 0;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

void ix_progress(const struct trace_index *ix, uint64_t *done, uint64_t *total)
{
	struct ix_loader *ld = ix->loader;
	*done = *total = ld ? ld->bytes_total : 1;
	if (!ld || ld->ended || !*total)
		return;
	/* Whole packets delivered: a stream's packets are one size in
	 * LTTng's layout (the sub-buffer), so packets read / packets in the
	 * file is its share of the file's whole bytes. */
	uint64_t pk = 0;
	for (uint32_t i = 0; i < ix->nstreams; i++) {
		const struct ix_stream *s = &ix->streams[i];
		if (s->packets)
			pk += (uint64_t)((double)s->whole * s->packets_read / s->packets);
	}
	uint64_t t = (uint64_t)(time_share(ix) * (double)*total);
	*done = pk > t ? pk : t;
	if (*done >= *total) /* not ended yet: never claim all */
		*done = *total - *total / 1000 - 1;
}

/* Two runs or processes are never shown as one story. */
static enum ix_status check_stories(struct trace_index *ix, char *err, size_t len)
{
	char list[600];
	health_runs_text(ix, list, sizeof(list));
	if (ix->sel.run || ix->sel.pid >= 0) {
		if (ix_run0(ix) || (ix->sel.pid >= 0 && ix->nev > ix->ndiscards))
			return IX_OK;
		if (ix->sel.run)
			errmsg(err, len, "%s: no run %u in this trace (%s)", ix->path, ix->sel.run,
			       ix->nruns ? list : "it has no run_begin");
		else
			errmsg(err, len, "%s: no process %" PRId64 " in this trace (%s)", ix->path,
			       ix->sel.pid, ix->nruns || ix->npids ? list : "no pid known");
		return IX_ERROR;
	}
	if (health_nstories(ix) <= 1)
		return IX_OK;
	errmsg(err, len,
	       "%s: %u %s in one trace, not one story (%s); show one with "
	       "--run N or --pid P",
	       ix->path, health_nstories(ix), ix->npids > ix->nruns ? "processes" : "runs", list);
	return IX_ERROR;
}

/* Is one of the ", "-separated names "icache:NAME" but for a few bytes? */
static bool near_name(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n + 7) {
			int diff = 0;
			for (size_t i = 0; i < n; i++)
				diff += p[7 + i] != name[i];
			if (diff <= 2)
				return true;
		}
		p = end ? end + 2 : NULL;
	}
	return false;
}

/* A lock event class missing while an unknown icache: class is declared
 * is a damaged name (one flipped bit): refuse rather than show 0 of them. */
static enum ix_status check_classes(struct trace_index *ix, char *err, size_t len)
{
	static const int need[] = { EV_lock_acquire, EV_lock_acquired, EV_lock_release };
	if (!ix->unknown_classes[0] || !ix->classes_seen)
		return IX_OK;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(ix->classes_seen >> need[i] & 1) &&
		    near_name(ix->unknown_classes, ev_type_name(need[i]))) {
			errmsg(err, len,
			       "%s: damaged CTF metadata: no event class icache:%s, "
			       "but an unknown %s is declared (a corrupted event name?)",
			       ix->path, ev_type_name(need[i]), ix->unknown_classes);
			return IX_ERROR;
		}
	return IX_OK;
}

void ix_select(struct trace_index *ix, unsigned run, int64_t pid)
{
	ix->sel.run = run;
	ix->sel.pid = pid;
}

enum ix_status ix_decode_finish(struct trace_index *ix, char *err, size_t len)
{
	struct ix_loader *ld = ix->loader;
	if (!ld)
		return IX_OK;
	settle(ix);
	if (ix->hooks.check && ix->hooks.check(ix, err, len) != 0)
		return IX_ERROR;
	if (check_stories(ix, err, len) == IX_ERROR || check_classes(ix, err, len) == IX_ERROR)
		return IX_ERROR;
	if (ix->nev == 0 || (ix->nev == ix->ndiscards)) {
		if (ix->other_events)
			errmsg(err, len,
			       "%s: CTF trace from another provider: no icache events, "
			       "found %" PRIu64 " other event%s (%s)",
			       ix->path, ix->other_events, ix->other_events == 1 ? "" : "s",
			       ix->other_names);
		else
			errmsg(err, len, "%s: CTF trace without any event", ix->path);
		return IX_ERROR;
	}
	/* Cut the event array to what it holds. */
	ix_store_shrink(ix);
	ix->load_ns = now_ns() - ix->load_ns;
	loader_free(ix, ld);
	ix->loader = NULL;
	return IX_OK;
}

void ix_decode_free(struct trace_index *ix)
{
	if (!ix)
		return;
	loader_free(ix, ix->loader);
	health_free(ix);
	free_strs(ix->strs, ix->nstrs);
	ix_store_free(ix);
	free_all(ix->strs, ix->ids, ix->id_hash, ix->viols, ix->runs, ix->rules, ix->discards,
		 ix->uspans, ix->strip, ix->path, ix);
}
