/*
 * registry.c - the list of schemes that icache-sim knows, oldest first.
 */
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
