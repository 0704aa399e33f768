/*
 * rmtree.c - remove a directory tree (see rmtree.h).
 */
#include "lib/rmtree.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"

void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		/* lstat: a link to a directory is unlinked, not descended */
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(path);
		else
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}
