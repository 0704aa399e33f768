/*
 * registry.c - the list of schemes that icache-sim knows, oldest first.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/scheme.h"

const struct scheme *const all_schemes[] = {
	&scheme_global, &scheme_vfs_scale, &scheme_inode_scale_v4,
	&scheme_merged, &scheme_modern,    NULL,
};

const struct scheme *scheme_find(const char *name)
{
	for (int i = 0; all_schemes[i]; i++)
		if (strcmp(all_schemes[i]->name, name) == 0)
			return all_schemes[i];
	return NULL;
}

/* Has an earlier rule than i the same outer lock (so i was printed)? */
static bool outer_seen(const struct scheme *s, int i)
{
	for (int k = 0; k < i; k++)
		if (s->order[k].outer == s->order[i].outer)
			return true;
	return false;
}

/*
 * For people only (readers of a trace use its order_rule events): the
 * rules grouped by outer lock, in the order declared,
 * "i_lock > hash_bucket, inode_lru_lock; iunique_lock > hash_bucket".
 */
const char *scheme_order_text(const struct scheme *s)
{
	static __thread char buf[1024];
	size_t off = 0;

	if (s->norder == 0)
		return "none (no lock nests inside another)";
	buf[0] = 0;
	for (int i = 0; i < s->norder && off < sizeof(buf); i++) {
		if (outer_seen(s, i))
			continue;
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s >", off ? "; " : "",
					lock_class_name(s->order[i].outer));
		for (int k = i; k < s->norder && off < sizeof(buf); k++)
			if (s->order[k].outer == s->order[i].outer)
				off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s %s",
							k == i ? "" : ",",
							lock_class_name(s->order[k].inner));
	}
	return buf;
}
