/*
 * omap.h - a small open-addressing map from a 64-bit key to a fixed-size
 * value (linear probing, backward-shift deletion).  The index interns its
 * strings with it, the model keeps its lock instances and inodes in it.
 */
#ifndef VIEWER_OMAP_H
#define VIEWER_OMAP_H

#include <stdbool.h>
#include <stdint.h>

/* A small open-addressing map from a 64-bit key to a fixed-size value. */
struct omap {
	uint64_t *keys; /* key + 1; 0 = empty */
	void *vals;
	uint32_t cap, n, vsize;
};

void omap_init(struct omap *m, uint32_t vsize);
void omap_free(struct omap *m);
void *omap_get(const struct omap *m, uint64_t key);
void *omap_put(struct omap *m, uint64_t key); /* zeroed when new */
/* omap_put(), and whether key was new (then the caller fills the value). */
void *omap_add(struct omap *m, uint64_t key, bool *added);
void omap_del(struct omap *m, uint64_t key);

/* The value in slot i (0 <= i < cap; a used slot has keys[i] != 0). */
static inline void *oval(const struct omap *m, uint32_t i)
{
	return (char *)m->vals + (size_t)i * m->vsize;
}

#endif
