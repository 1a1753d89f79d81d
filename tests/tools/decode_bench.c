// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzers' path without any analyzer: open a trace.dat, iterate every
 * event in timestamp order and read two fields through offsets resolved once
 * per event type.  Prints events, CPU seconds and events per CPU second, so
 * bench/report.sh can state the decode rate on one core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"

struct cached {
	bool done;
	struct fmt_field pid, first;
};

int main(int argc, char **argv)
{
	struct fmt_reader *r;
	struct fmt_iter *it;
	const struct fmt_event *ev;
	struct cached *c;
	struct timespec t0, tm, t1;
	char *err = NULL;
	uint64_t n = 0, sink = 0;
	double secs;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: decode_bench FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (fmt_reader_open(argv[1], FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &r, &err)) {
		fprintf(stderr, "decode_bench: %s\n", err ? err : "cannot open");
		return 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &tm);
	c = calloc(65536, sizeof(*c));
	if (!c || fmt_iter_new(r, NULL, &it))
		return 1;
	while ((rc = fmt_iter_next(it, &ev)) != 0) {
		struct cached *k;

		if (rc < 0 || !ev->event)
			continue;
		k = &c[ev->type];
		if (!k->done) {
			fmt_field_resolve(ev->event, "common_pid", &k->pid);
			k->first.offset = -1;
			if (ev->event->format.fields)
				fmt_field_resolve(ev->event, ev->event->format.fields->name, &k->first);
			k->done = true;
		}
		sink += fmt_field_u64(&k->pid, ev->rec.data, ev->rec.size);
		if (k->first.offset >= 0 && k->first.size <= 8)
			sink += fmt_field_u64(&k->first, ev->rec.data, ev->rec.size);
		n++;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	{
		double open_s = (tm.tv_sec - t0.tv_sec) + (tm.tv_nsec - t0.tv_nsec) / 1e9;

		/* open = header, metadata, formats (screened in a child), kallsyms */
		printf("events=%llu cpu_seconds=%.3f open_seconds=%.3f events_per_cpu_second=%.0f "
		       "decode_events_per_cpu_second=%.0f (checksum %llu)\n",
		       (unsigned long long)n, secs, open_s, n / secs, n / (secs - open_s),
		       (unsigned long long)(sink & 0xffff));
	}
	fmt_iter_free(it);
	fmt_reader_close(r);
	free(c);
	return 0;
}
