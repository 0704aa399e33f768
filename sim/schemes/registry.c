/*
 * registry.c - the list of schemes that icache-sim knows, oldest first.
 */
#include <stdio.h>
#include <string.h>

#include "sim/core/scheme.h"

const struct scheme *const all_schemes[] = {
	&scheme_global, &scheme_vfs_scale, &scheme_inode_scale_v4, &scheme_merged, NULL,
};

const struct scheme *scheme_find(const char *name)
{
	for (int i = 0; all_schemes[i]; i++)
		if (strcmp(all_schemes[i]->name, name) == 0)
			return all_schemes[i];
	return NULL;
}

const char *scheme_order_text(const struct scheme *s)
{
	static __thread char buf[1024];
	size_t off = 0;

	if (s->norder == 0)
		return "none (no lock nests inside another)";
	buf[0] = 0;
	for (int i = 0; i < s->norder && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s > %s", i ? "; " : "",
					lock_class_name(s->order[i].outer),
					lock_class_name(s->order[i].inner));
	return buf;
}
