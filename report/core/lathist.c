// SPDX-License-Identifier: GPL-2.0-only
/*
 * Latency histograms: exact up to RPT_HIST_EXACT values, then log-linear
 * buckets (within 1.6%).
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


unsigned rpt_hist_bucket(uint64_t v)
{
	unsigned e, sub;

	if (v < 64)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);	/* >= 6 */
	sub = (unsigned)(v >> (e - RPT_HIST_SUB_BITS)) & ((1u << RPT_HIST_SUB_BITS) - 1);
	return 64 + (e - 6) * (1u << RPT_HIST_SUB_BITS) + sub;
}

uint64_t rpt_hist_bucket_low(unsigned i)
{
	unsigned e, sub;

	if (i < 64)
		return i;
	i -= 64;
	e = i / (1u << RPT_HIST_SUB_BITS) + 6;
	sub = i % (1u << RPT_HIST_SUB_BITS);
	return (1ULL << e) | ((uint64_t)sub << (e - RPT_HIST_SUB_BITS));
}

int rpt_hist_add(struct rpt_hist *h, uint64_t v)
{
	if (!h->buckets) {
		h->buckets = calloc(RPT_HIST_BUCKETS, sizeof(*h->buckets));
		if (!h->buckets)
			return -ENOMEM;
	}
	h->buckets[rpt_hist_bucket(v)]++;
	if (h->count < RPT_HIST_EXACT)
		h->exact[h->count] = v;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	return 0;
}

int rpt_hist_merge(struct rpt_hist *dst, const struct rpt_hist *src)
{
	if (!src->count)
		return 0;
	if (!dst->buckets) {
		dst->buckets = calloc(RPT_HIST_BUCKETS, sizeof(*dst->buckets));
		if (!dst->buckets)
			return -ENOMEM;
	}
	if (src->buckets)
		for (unsigned i = 0; i < RPT_HIST_BUCKETS; i++)
			dst->buckets[i] += src->buckets[i];
	/* the exact values: the first RPT_HIST_EXACT of both, in any order (they are sorted) */
	for (uint64_t i = 0; i < src->count && i < RPT_HIST_EXACT && dst->count + i < RPT_HIST_EXACT;
	     i++)
		dst->exact[dst->count + i] = src->exact[i];
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	return 0;
}

uint64_t rpt_hist_quantile(const struct rpt_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (!h->count || !h->buckets)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest-rank: the smallest value with at least q * count values <= it */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	if (h->count <= RPT_HIST_EXACT) {
		uint64_t v[RPT_HIST_EXACT];
		unsigned a, b;

		memcpy(v, h->exact, (size_t)h->count * sizeof(*v));
		for (a = 1; a < h->count; a++)	/* insertion sort: at most 32 values */
			for (b = a; b > 0 && v[b - 1] > v[b]; b--) {
				uint64_t x = v[b];

				v[b] = v[b - 1];
				v[b - 1] = x;
			}
		return v[rank - 1];
	}
	for (i = 0; i < RPT_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i >= RPT_HIST_BUCKETS)
		return h->max;
	lo = rpt_hist_bucket_low(i);
	hi = i + 1 < RPT_HIST_BUCKETS ? rpt_hist_bucket_low(i + 1) - 1 : UINT64_MAX;
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

void rpt_hist_release(struct rpt_hist *h)
{
	free(h->buckets);
	memset(h, 0, sizeof(*h));
}

