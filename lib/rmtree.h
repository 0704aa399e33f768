/*
 * rmtree.h - remove a directory and all it holds (rm -rf), for the
 * programs' own scratch and trace directories.
 */
#ifndef LIB_RMTREE_H
#define LIB_RMTREE_H

/*
 * Remove dir and everything below it, best effort: what cannot be removed
 * stays, silently.  Symbolic links are removed, never followed.
 */
void rm_tree(const char *dir);

#endif
