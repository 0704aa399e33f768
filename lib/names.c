/*
 * names.c - the name lists of names.h, expanded from the same X-macros
 * as the simulator's enums and the tracepoint provider, so none can drift.
 */
#include <string.h>

#include "lib/names.h"
#include "tracepoints/icache_names.h"

#define X(n) #n,
static const char *const classes[] = { ICACHE_LOCK_CLASSES(X) };
static const char *const sites[] = { ICACHE_SITES(X) };
static const char *const lists[] = { ICACHE_LISTS(X) };
static const char *const actions[] = { ICACHE_LIST_ACTIONS(X) };
static const char *const ops[] = { ICACHE_OPS(X) };
static const char *const viols[] = { ICACHE_VIOLATIONS(X) };
static const char *const srcs[] = { ICACHE_SRC_FILES(X) };
#undef X

#define LIST(tab)                                          \
	{                                                  \
		tab, (int)(sizeof(tab) / sizeof((tab)[0])) \
	}
const struct name_list icache_class_names = LIST(classes);
const struct name_list icache_site_names = LIST(sites);
const struct name_list icache_list_names = LIST(lists);
const struct name_list icache_list_action_names = LIST(actions);
const struct name_list icache_op_names = LIST(ops);
const struct name_list icache_violation_names = LIST(viols);
const struct name_list icache_src_file_names = LIST(srcs);
#undef LIST

int str_find(const char *const *tab, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(tab[i], s) == 0)
			return i;
	return -1;
}

int name_find(const struct name_list *l, const char *s)
{
	return str_find(l->name, l->n, s);
}
