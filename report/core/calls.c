// SPDX-License-Identifier: GPL-2.0-only
/* Pairing call entries with their exits (the rules: calls.h). */
#include <stdlib.h>
#include <string.h>

#include "report/core/calls.h"

void rpt_calls_init(struct rpt_calls *c, size_t esz)
{
	memset(c, 0, sizeof(*c));
	c->esz = esz < sizeof(struct rpt_call) ? sizeof(struct rpt_call) : esz;
}

void rpt_calls_release(struct rpt_calls *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* how many function_graph calls on top are deeper than depth (or as deep, when same) */
static int fgraph_above(const struct rpt_calls *c, uint32_t depth, int same)
{
	int k = c->n;

	while (k > 0) {
		const struct rpt_call *t = rpt_calls_call(c, k - 1);

		if (t->src != RPT_CALL_FGRAPH || t->depth < depth || (t->depth == depth && !same))
			break;
		k--;
	}
	return c->n - k;
}

int rpt_calls_enter(const struct rpt_calls *c, const struct rpt_call *e)
{
	int k;

	if (e->src == RPT_CALL_FGRAPH)
		return fgraph_above(c, e->depth, 1);
	if (e->src == RPT_CALL_SYSCALL)
		for (k = c->n - 1; k >= 0; k--)
			if (rpt_calls_call(c, k)->src == RPT_CALL_SYSCALL)
				return c->n - k;
	return 0;
}

void *rpt_calls_push(struct rpt_calls *c, const struct rpt_call *e, int max)
{
	unsigned char *p;

	if (c->n >= max)
		return NULL;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 8;

		p = realloc(c->v, (size_t)cap * c->esz);
		if (!p)
			return NULL;
		c->v = p;
		c->cap = cap;
	}
	p = rpt_calls_at(c, c->n++);
	memset(p, 0, c->esz);
	memcpy(p, e, sizeof(*e));
	return p;
}

enum pair_by { BY_KEY, BY_NAME, BY_KEY_DEPTH, BY_SYSCALL };

/* the innermost open call of x's source that pairs with x by rule by; -1: none */
static int innermost(const struct rpt_calls *c, const struct rpt_call *x, enum pair_by by)
{
	for (int k = c->n - 1; k >= 0; k--) {
		const struct rpt_call *t = rpt_calls_call(c, k);

		if (t->src != x->src)
			continue;
		if ((by == BY_KEY && t->key == x->key) || (by == BY_NAME && t->name == x->name) ||
		    (by == BY_KEY_DEPTH && t->key == x->key && t->depth == x->depth))
			return k;
		/* the innermost syscall: the one that pairs, or none */
		if (by == BY_SYSCALL)
			return t->key == x->key || t->key == RPT_CALL_ANY || x->key == RPT_CALL_ANY ? k
												    : -1;
	}
	return -1;
}

int rpt_calls_exit(const struct rpt_calls *c, const struct rpt_call *x, int *drop)
{
	int k = -1;

	*drop = 0;
	switch (x->src) {
	case RPT_CALL_FGRAPH: {
		const struct rpt_call *t;

		*drop = fgraph_above(c, x->depth, 0);
		k = c->n - *drop - 1;
		if (k < 0)
			return -1;
		t = rpt_calls_call(c, k);
		return t->src == RPT_CALL_FGRAPH && t->depth == x->depth && t->key == x->key ? k
											       : -1;
	}
	case RPT_CALL_PROBE:
		/* by address, else by name */
		if (x->key)
			k = innermost(c, x, BY_KEY);
		if (k < 0)
			k = innermost(c, x, BY_NAME);
		break;
	case RPT_CALL_UFUNC:
	case RPT_CALL_KFUNC:
		k = innermost(c, x, BY_KEY_DEPTH);
		break;
	case RPT_CALL_SYSCALL:
		k = innermost(c, x, BY_SYSCALL);
		break;
	default:
		return -1;
	}
	if (k >= 0)
		*drop = c->n - 1 - k;
	return k;
}
