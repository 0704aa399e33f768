/*
 * names.h - the names of the numbers a trace records (lock classes, call
 * sites, lists, list actions, operations, violations, source files), as
 * strings, made once from the X-macros of tracepoints/icache_names.h.
 *
 * The selector parser (lib/selector.c) and the viewer's labels
 * (viewer/names.c) both read these lists.
 */
#ifndef LIB_NAMES_H
#define LIB_NAMES_H

/* One list: name[v] for 0 <= v < n. */
struct name_list {
	const char *const *name;
	int n;
};

extern const struct name_list icache_class_names, icache_site_names, icache_list_names,
	icache_list_action_names, icache_op_names, icache_violation_names, icache_src_file_names;

/* The index of s in tab[0..n) (exact spelling), or -1. */
int str_find(const char *const *tab, int n, const char *s);
/* The index of s in l, or -1. */
int name_find(const struct name_list *l, const char *s);

#endif /* LIB_NAMES_H */
