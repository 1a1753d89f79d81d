// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzers' maps (64-bit key to a zeroed value that never moves) and
 * per-event-id slots.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"

/* ---- maps ---------------------------------------------------------------- */

#define MAP_CHUNK_VALS 256

void rpt_map_init(struct rpt_map *m, size_t val_size)
{
	memset(m, 0, sizeof(*m));
	/* keep values 8-byte aligned inside the chunks */
	m->val_size = (val_size + 7) & ~(size_t)7;
	if (!m->val_size)
		m->val_size = 8;
}

static inline size_t map_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static int map_grow(struct rpt_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, k;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	void **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (k = 0; k < m->cap; k++) {
		size_t s;

		if (!m->vals[k])
			continue;
		s = map_slot(m->keys[k], ncap);
		while (nv[s])
			s = (s + 1) & (ncap - 1);
		nk[s] = m->keys[k];
		nv[s] = m->vals[k];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

void *rpt_map_find(const struct rpt_map *m, uint64_t key)
{
	size_t s;

	if (!m->cap)
		return NULL;
	s = map_slot(key, m->cap);
	while (m->vals[s]) {
		if (m->keys[s] == key)
			return m->vals[s];
		s = (s + 1) & (m->cap - 1);
	}
	return NULL;
}

void *rpt_map_get_slow(struct rpt_map *m, uint64_t key, bool *created)
{
	size_t s;
	void *v;

	if (created)
		*created = false;
	if (m->cap) {
		s = map_slot(key, m->cap);
		while (m->vals[s]) {
			if (m->keys[s] == key)
				return m->vals[s];
			s = (s + 1) & (m->cap - 1);
		}
	}
	if ((m->count + 1) * 4 > m->cap * 3 && map_grow(m))
		return NULL;
	if (!m->nchunks || m->chunk_used == MAP_CHUNK_VALS) {
		char **nc = realloc(m->chunks, (m->nchunks + 1) * sizeof(*nc));

		if (!nc)
			return NULL;
		m->chunks = nc;
		nc[m->nchunks] = calloc(MAP_CHUNK_VALS, m->val_size);
		if (!nc[m->nchunks])
			return NULL;
		m->nchunks++;
		m->chunk_used = 0;
	}
	v = m->chunks[m->nchunks - 1] + m->chunk_used++ * m->val_size;
	s = map_slot(key, m->cap);
	while (m->vals[s])
		s = (s + 1) & (m->cap - 1);
	m->keys[s] = key;
	m->vals[s] = v;
	m->count++;
	if (created)
		*created = true;
	return v;
}

void *rpt_map_next(const struct rpt_map *m, size_t *pos, uint64_t *key)
{
	while (*pos < m->cap) {
		size_t s = (*pos)++;

		if (m->vals[s]) {
			if (key)
				*key = m->keys[s];
			return m->vals[s];
		}
	}
	return NULL;
}

void *rpt_map_nth(const struct rpt_map *m, size_t i)
{
	/* values fill the chunks in the order they were made */
	if (i >= m->count)
		return NULL;
	return m->chunks[i / MAP_CHUNK_VALS] + (i % MAP_CHUNK_VALS) * m->val_size;
}

void rpt_map_release(struct rpt_map *m)
{
	size_t k;

	for (k = 0; k < m->nchunks; k++)
		free(m->chunks[k]);
	free(m->chunks);
	free(m->keys);
	free(m->vals);
	rpt_map_init(m, m->val_size);
}

/* ---- per-type tables ----------------------------------------------------- */

void *rpt_types_grow(struct rpt_types *t, int id)
{
	if (id < 0 || id > 0xffff)
		return NULL;
	if (id >= t->n) {
		int nn = id < 64 ? 64 : id + 1 + id / 2;
		char *ns;

		if (nn > 0x10000)
			nn = 0x10000;
		ns = realloc(t->slots, (size_t)nn * t->elem_size);
		if (!ns)
			return NULL;
		memset(ns + (size_t)t->n * t->elem_size, 0, (size_t)(nn - t->n) * t->elem_size);
		t->slots = ns;
		t->n = nn;
	}
	return t->slots + (size_t)id * t->elem_size;
}

void rpt_types_release(struct rpt_types *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n = 0;
}

/* ---- hashes ------------------------------------------------------------- */

uint64_t rpt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

uint64_t rpt_hash_str(const char *s)
{
	return rpt_hash_bytes(s, strlen(s));
}
