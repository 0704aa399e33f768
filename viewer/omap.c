/*
 * omap.c - see omap.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/omap.h"

/* ---- omap: linear probing, backward-shift deletion ----------------------- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void omap_init(struct omap *m, uint32_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->vsize = vsize;
}

void omap_free(struct omap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

void *omap_get(const struct omap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	uint32_t mask = m->cap - 1;
	for (uint32_t i = (uint32_t)mix64(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == 0)
			return NULL;
		if (m->keys[i] == key + 1)
			return oval(m, i);
	}
}

static void omap_grow(struct omap *m)
{
	struct omap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->keys = xcalloc(m->cap, sizeof(uint64_t));
	m->vals = xcalloc(m->cap, m->vsize);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			memcpy(omap_put(m, old.keys[i] - 1), oval(&old, i), m->vsize);
	omap_free(&old);
}

void *omap_put(struct omap *m, uint64_t key)
{
	if ((m->n + 1) * 4 >= m->cap * 3)
		omap_grow(m);
	uint32_t mask = m->cap - 1;
	uint32_t i = (uint32_t)mix64(key) & mask;
	for (;; i = (i + 1) & mask) {
		if (m->keys[i] == key + 1)
			return oval(m, i);
		if (m->keys[i] == 0)
			break;
	}
	m->keys[i] = key + 1;
	m->n++;
	memset(oval(m, i), 0, m->vsize);
	return oval(m, i);
}

void *omap_add(struct omap *m, uint64_t key, bool *added)
{
	uint32_t n = m->n; /* (a growth re-puts the old members: n stays) */
	void *v = omap_put(m, key);
	*added = m->n != n;
	return v;
}

void omap_del(struct omap *m, uint64_t key)
{
	if (!m->cap)
		return;
	uint32_t mask = m->cap - 1;
	uint32_t i = (uint32_t)mix64(key) & mask;
	for (;; i = (i + 1) & mask) {
		if (m->keys[i] == 0)
			return;
		if (m->keys[i] == key + 1)
			break;
	}
	/* Shift later members of the cluster back so lookups still find them. */
	uint32_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (m->keys[j] == 0)
			break;
		uint32_t home = (uint32_t)mix64(m->keys[j] - 1) & mask;
		bool between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (between)
			continue;
		m->keys[i] = m->keys[j];
		memcpy(oval(m, i), oval(m, j), m->vsize);
		i = j;
	}
	m->keys[i] = 0;
	m->n--;
}
