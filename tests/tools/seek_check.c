// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time index against a full read: for each of several times T spread
 * over a file, the events an iterator that seeks to T returns from T on are
 * exactly those a plain iterator returns from T on (time, buffer, CPU,
 * offset and payload, in order), and the seeking one decodes less data.
 * Each T is sought twice: with the index the writer stored (when the file
 * has one) and with the search on the fly (fmt_iter_opts.seek_no_stored).
 * Prints one line per T ("T events data_bytes_seek data_bytes_full
 * data_bytes_search") and exits 1 at the first difference.
 *
 *   seek_check FILE [N]      N times (default 7), from the first event to past the last
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct rec {
	uint64_t ts, off;
	int buffer, cpu;
	uint32_t size;
	uint64_t hash;
};

static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/*
 * Events from t on (all of them with seek 0; 1 seeks, 2 seeks without the
 * stored index), in order; their count, or -1.
 */
static long collect(const char *path, int seek, uint64_t t, struct rec **out, uint64_t *bytes)
{
	struct fmt_reader *r;
	struct fmt_iter *it;
	struct fmt_iter_opts o = { 0 };
	const struct fmt_event *ev;
	char *err = NULL;
	long n = 0, cap = 0;
	int rc;

	*out = NULL;
	if (fmt_reader_open(path, FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &r, &err)) {
		fprintf(stderr, "seek_check: %s\n", err ? err : "cannot open");
		free(err);
		return -1;
	}
	o.seek = seek > 0;
	o.seek_no_stored = seek == 2;
	o.seek_ts = t;
	if (fmt_iter_new(r, &o, &it)) {
		fmt_reader_close(r);
		return -1;
	}
	while ((rc = fmt_iter_next(it, &ev)) != 0) {
		if (rc < 0)
			continue;
		if (ev->rec.ts < t)
			continue;
		if (n == cap) {
			long nc = cap ? cap * 2 : 4096;
			struct rec *v = realloc(*out, (size_t)nc * sizeof(*v));

			if (!v) {
				n = -1;
				break;
			}
			*out = v;
			cap = nc;
		}
		(*out)[n++] = (struct rec){ ev->rec.ts, (uint64_t)ev->rec.offset, ev->buffer, ev->rec.cpu,
					    (uint32_t)ev->rec.size, hash(ev->rec.data, (size_t)ev->rec.size) };
	}
	*bytes = fmt_reader_data_bytes(r);
	fmt_iter_free(it);
	fmt_reader_close(r);
	return n;
}

int main(int argc, char **argv)
{
	struct rec *all = NULL;
	uint64_t full_bytes = 0, first, last;
	long nall, k, nt = argc > 2 ? atol(argv[2]) : 7;

	if (argc < 2 || nt < 1) {
		fprintf(stderr, "usage: seek_check FILE [N]\n");
		return 2;
	}
	nall = collect(argv[1], 0, 0, &all, &full_bytes);
	if (nall < 0)
		return 1;
	if (!nall) {
		printf("no events\n");
		free(all);
		return 0;
	}
	first = all[0].ts;
	last = all[nall - 1].ts;
	for (k = 0; k <= nt; k++) {
		/* from before the first event to after the last, and one exact event time */
		uint64_t t = k == nt ? all[nall / 3].ts : first + (last - first + 2) / (uint64_t)nt * (uint64_t)k;
		uint64_t bytes[3] = { 0 };
		long i = 0, n = 0;

		while (i < nall && all[i].ts < t)
			i++;
		for (int mode = 1; mode <= 2; mode++) {
			struct rec *got = NULL;

			n = collect(argv[1], mode, t, &got, &bytes[mode]);
			if (n < 0)
				return 1;
			if (n != nall - i) {
				printf("T=%" PRIu64 ": %ld events %s, %ld without\n", t, n,
				       mode == 1 ? "with the index" : "with the search", nall - i);
				return 1;
			}
			for (long j = 0; j < n; j++) {
				const struct rec *a = &all[i + j], *b = &got[j];

				if (a->ts != b->ts || a->off != b->off || a->buffer != b->buffer ||
				    a->cpu != b->cpu || a->size != b->size || a->hash != b->hash) {
					printf("T=%" PRIu64 ": event %ld differs %s (ts %" PRIu64 " vs %"
					       PRIu64 ")\n", t, j, mode == 1 ? "with the index" :
					       "with the search", a->ts, b->ts);
					return 1;
				}
			}
			free(got);
		}
		printf("%" PRIu64 " %ld %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t, n, bytes[1], full_bytes,
		       bytes[2]);
	}
	free(all);
	return 0;
}
