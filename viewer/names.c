/*
 * names.c - strings for the numbers a trace records.
 *
 * The lists come from tracepoints/icache_names.h, the same X-macros the
 * simulator and the tracepoint provider expand, so the three cannot drift:
 * the event names here, the others once in lib/names.c (shared with the
 * selector parser).
 */
#include <stdio.h>
#include <string.h>

#include "lib/names.h"
#include "tracepoints/icache_names.h"
#include "viewer/names.h"

#define EVN(name, sched, text) #name,
static const char *const ev_names[] = { ICACHE_EVENTS(EVN) "discarded_events",
					"discarded_packets" };
#undef EVN

/* Generated from the event table, tracepoints/icache_events.h. */
#define IX_IS_STR_INT 0
#define IX_IS_STR_HEX 0
#define IX_IS_STR_ENUM 0
#define IX_IS_STR_STR 1
#define IX_FIELD(kind, type, name, slot) { #name, #type, IX_IS_STR_##kind, SL_##slot },
#define IX_SCHEMA(name, sched, text) \
	[EV_##name] = { #name, text, { ICACHE_FIELDS_##name(IX_FIELD) } },
const struct ix_schema ix_schemas[EV__COUNT] = { ICACHE_EVENTS(IX_SCHEMA) };
#undef IX_SCHEMA
#undef IX_FIELD

struct flag_name {
	int bit;
	const char *name;
};
#define X(bit, n) { bit, #n },
static const struct flag_name flag_names[] = { ICACHE_STATE_FLAGS(X) };
#undef X

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Out-of-range values: a few rotating buffers so two can share a printf. */
static const char *unknown_name(const char *kind, int v)
{
	static char buf[8][24];
	static unsigned next;
	char *p = buf[next++ & 7];
	snprintf(p, sizeof(buf[0]), "%s#%d", kind, v);
	return p;
}

static const char *pick(const char *const *tab, int n, int v, const char *kind)
{
	if (v == 255)
		return "-"; /* 8-bit enum fields: 255 = not applicable */
	if (v >= 0 && v < n)
		return tab[v];
	return unknown_name(kind, v);
}

/* A list's name for v (see pick()), one function a list. */
const char *ev_type_name(int v)
{
	return pick(ev_names, NELEM(ev_names), v, "ev");
}
#define LABEL_FN(fn, list, kind)                             \
	const char *fn(int v)                                \
	{                                                    \
		return pick((list).name, (list).n, v, kind); \
	}
LABEL_FN(lock_class_label, icache_class_names, "cls")
LABEL_FN(site_label, icache_site_names, "site")
LABEL_FN(list_label, icache_list_names, "list")
LABEL_FN(list_action_label, icache_list_action_names, "act")
LABEL_FN(op_label, icache_op_names, "op")
LABEL_FN(src_file_label, icache_src_file_names, "src")
LABEL_FN(violation_label, icache_violation_names, "viol")
#undef LABEL_FN

int nr_lock_class_labels(void)
{
	return icache_class_names.n;
}
int nr_site_labels(void)
{
	return icache_site_names.n;
}
int nr_list_labels(void)
{
	return icache_list_names.n;
}
int nr_op_labels(void)
{
	return icache_op_names.n;
}
int nr_violation_labels(void)
{
	return icache_violation_names.n;
}

int ev_type_by_name(const char *s)
{
	return str_find(ev_names, NELEM(ev_names), s);
}
int lock_class_by_name(const char *s)
{
	return name_find(&icache_class_names, s);
}
int site_by_name(const char *s)
{
	return name_find(&icache_site_names, s);
}

int state_flag_by_name(const char *s)
{
	for (int i = 0; i < NELEM(flag_names); i++) {
		const char *n = flag_names[i].name;
		if (strcmp(n, s) == 0 || strcmp(n + 2, s) == 0)
			return flag_names[i].bit;
	}
	return -1;
}

char *state_flags_str(uint32_t flags, int brief, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	if (!flags) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (int i = 0; i < NELEM(flag_names); i++) {
		if (!(flags & (1u << flag_names[i].bit)))
			continue;
		flags &= ~(1u << flag_names[i].bit);
		const char *n = flag_names[i].name + (brief ? 2 : 0);
		int w = snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? "|" : "", n);
		if (w > 0)
			off += (size_t)w;
	}
	if (flags)
		snprintf(buf + off, off < len ? len - off : 0, "%s0x%x", off ? "|" : "", flags);
	return buf;
}

uint32_t flag_will_free(void)
{
	return 1u << state_flag_by_name("I_WILL_FREE");
}

uint32_t flag_freeing(void)
{
	return 1u << state_flag_by_name("I_FREEING");
}

uint32_t flag_new(void)
{
	return 1u << state_flag_by_name("I_NEW");
}
