// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one compression thread of the recorder sustains: the raw ring-buffer
 * pages of a trace.dat (every CPU of its first buffer, up to 64 MiB) are
 * compressed in chunks of 10 pages with the writer's compressor, as the
 * pool's threads do, for at least SECONDS of this thread's CPU time per
 * level.  Prints per level: raw MB per CPU second, events per CPU second
 * (the file's events per page times pages per second) and the ratio.
 *
 *   zstd_bench FILE [SECONDS] [LEVEL...]     (defaults: 1.0 s; levels 1 3 6)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "compress.h"

#define MAX_BYTES (64u << 20)
#define PPC 10

struct pages {
	uint8_t *data;
	size_t len;
	uint32_t page_size;
};

static int take(void *arg, const void *page, uint32_t page_size)
{
	struct pages *p = arg;

	if (p->len + page_size > MAX_BYTES)
		return 1;
	memcpy(p->data + p->len, page, page_size);
	p->len += page_size;
	p->page_size = page_size;
	return 0;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count(void *arg, const void *page, uint32_t page_size)
{
	(void)page;
	(void)page_size;
	++*(uint64_t *)arg;
	return 0;
}

/* Events and pages of the first buffer (all of it): the file's events per page. */
static uint64_t count_events(struct fmt_reader *r, uint64_t *all_pages)
{
	const struct fmt_info *in = fmt_reader_info(r);
	struct fmt_iter_opts io = { 0 };
	const struct fmt_event *ev;
	struct fmt_iter *it;
	uint64_t n = 0;

	*all_pages = 0;
	for (int c = 0; c < in->buffers[0].ncpus; c++)
		fmt_reader_read_pages(r, 0, in->buffers[0].cpus[c].cpu, count, all_pages);
	if (fmt_iter_new(r, &io, &it))
		return 0;
	while (fmt_iter_next(it, &ev) > 0)
		if (ev->buffer == 0)
			n++;
	fmt_iter_free(it);
	return n;
}

int main(int argc, char **argv)
{
	static const int deflt[] = { 1, 3, 6 };
	struct pages p = { 0 };
	struct fmt_reader *r;
	const struct fmt_info *in;
	char *err = NULL;
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	uint64_t events, file_pages;
	double ev_per_page;
	int nlev = argc > 3 ? argc - 3 : 3;

	if (argc < 2 || secs <= 0) {
		fprintf(stderr, "usage: zstd_bench FILE [SECONDS] [LEVEL...]\n");
		return 2;
	}
	if (fmt_reader_open(argv[1], FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &r, &err)) {
		fprintf(stderr, "zstd_bench: %s\n", err ? err : "cannot open");
		return 1;
	}
	in = fmt_reader_info(r);
	if (!in->nbuffers || !in->buffers[0].ncpus) {
		fprintf(stderr, "zstd_bench: %s has no data\n", argv[1]);
		return 1;
	}
	p.data = malloc(MAX_BYTES);
	if (!p.data)
		return 1;
	for (int c = 0; c < in->buffers[0].ncpus && p.len + in->page_size <= MAX_BYTES; c++)
		if (fmt_reader_read_pages(r, 0, in->buffers[0].cpus[c].cpu, take, &p) < 0)
			break;
	events = count_events(r, &file_pages);
	if (!p.len || !file_pages) {
		fprintf(stderr, "zstd_bench: no pages in %s\n", argv[1]);
		return 1;
	}
	ev_per_page = (double)events / (double)file_pages;
	printf("pages %zu page_size %u events_per_page %.1f\n", p.len / p.page_size, p.page_size,
	       ev_per_page);
	for (int l = 0; l < nlev; l++) {
		int level = argc > 3 ? atoi(argv[3 + l]) : deflt[l];
		struct fmt_zctx *z = fmt_zctx_new("zstd", level);
		size_t chunk = (size_t)PPC * p.page_size, cap = fmt_compress_bound("zstd", chunk);
		uint8_t *out = malloc(cap);
		uint64_t raw = 0, comp = 0;
		double t0, t;

		if (!z || !out) {
			fprintf(stderr, "zstd_bench: cannot set up level %d\n", level);
			return 1;
		}
		t0 = thread_cpu();
		do {
			for (size_t off = 0; off + chunk <= p.len; off += chunk) {
				ssize_t n = fmt_zctx_compress(z, p.data + off, chunk, out, cap);

				if (n < 0) {
					fprintf(stderr, "zstd_bench: compression failed\n");
					return 1;
				}
				raw += chunk;
				comp += (uint64_t)n;
			}
			t = thread_cpu() - t0;
		} while (t < secs);
		printf("level %d cpu_s %.3f raw_MB_per_s %.1f pages_per_s %.0f events_per_s %.0f "
		       "ratio %.2f\n", level, t, (double)raw / 1e6 / t,
		       (double)raw / p.page_size / t, (double)raw / p.page_size / t * ev_per_page,
		       (double)raw / (double)comp);
		fmt_zctx_free(z);
		free(out);
	}
	free(p.data);
	fmt_reader_close(r);
	return 0;
}
