// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target for the reader: open the input as a trace.dat, walk every
 * option, section, page and event, and print each event the way `report`
 * does.  Built two ways:
 *   make fuzz                 libFuzzer binary ($(O)/fuzz_reader)
 *   -DFUZZ_REPLAY_MAIN        a plain driver that runs the target once per
 *                             file named on the command line (or in a
 *                             directory), used by `make check`.
 * A crash, a sanitizer report or a hang is a bug; an error return is not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_text(void *arg, const char *text, size_t len)
{
	*(uint64_t *)arg += len + (len ? (uint8_t)text[len - 1] : 0);
	return 0;
}

static int count_page(void *arg, const void *page, uint32_t page_size)
{
	(*(uint64_t *)arg) += ((const uint8_t *)page)[page_size - 1];
	return 0;
}

static int count_format(void *arg, const char *system, const char *text, size_t len)
{
	(*(uint64_t *)arg) += len + strlen(system) + (len ? (uint8_t)text[0] : 0);
	return 0;
}

/*
 * Every byte of every state record of every CPU's chunks: the reader
 * promises each chunk's records lie in its CPU's list and each record's
 * bytes in the section, so one past them is a bug ASan reports here.
 */
static uint64_t touch_state(struct fmt_reader *r)
{
	const struct fmt_info *fi = fmt_reader_info(r);
	uint64_t sink = 0;
	int cpus = 0;

	if (fmt_reader_state_status(r, &cpus) != 1)
		return cpus;
	for (int b = 0; b < fi->nbuffers; b++)
		for (int c = 0; c < fi->buffers[b].ncpus; c++) {
			const struct fmt_cpu_state *cs = fmt_reader_state(r, b, fi->buffers[b].cpus[c].cpu);

			for (uint32_t k = 0; cs && k < cs->n; k++) {
				const struct fmt_chunk_state *ch = &cs->chunks[k];

				sink += ch->npages;
				for (uint32_t j = 0; j < ch->nrec; j++) {
					const struct fmt_state_rec *sr = &cs->recs[ch->rec_at + j];
					const uint8_t *d = sr->data;

					sink += sr->ts + sr->size;
					for (uint32_t x = 0; x < sr->size; x++)
						sink += d[x];
				}
			}
		}
	return sink;
}

static void run(const char *path)
{
	struct fmt_reader *r = NULL;
	struct fmt_iter *it = NULL;
	const struct fmt_event *ev;
	const struct fmt_info *in;
	struct trace_seq s;
	char *err = NULL;
	uint64_t sink = 0, lo = 0, hi = 0;
	int n = 0, rc, b, i;

	if (fmt_reader_open(path, FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &r, &err)) {
		free(err);
		return;
	}
	in = fmt_reader_info(r);
	if (in->latency.present)
		fmt_reader_latency_read(r, count_text, &sink);
	fmt_reader_formats(r, count_format, &sink);
	for (b = 0; b < in->nbuffers; b++)
		for (i = 0; i < in->buffers[b].ncpus; i++)
			fmt_reader_read_pages(r, b, in->buffers[b].cpus[i].cpu, count_page, &sink);
	for (i = 0; i < in->noptions; i++) {
		void *d;
		size_t len;

		if (in->options[i].id == FMT_OPT_FT_SYMTAB && in->options[i].size >= 8) {
			uint64_t off;

			memcpy(&off, in->options[i].data, 8);
			if (!fmt_reader_section(r, off, FMT_SEC_FT_SYMTAB, &d, &len))
				free(d);
		}
		/* record --bpf-object: objects (with their BTF) and map snapshots */
		if (in->options[i].id == FMT_OPT_FT_BPFOBJ) {
			struct fmt_bpfobj ob;
			size_t vl, pos = 0;

			if (!fmt_bpfobj_parse(in->options[i].data, in->options[i].size, false, &ob, NULL))
				while (fmt_bpfobj_get(&ob, "prog", pos, &vl, &pos))
					sink += vl;
		}
		if (in->options[i].id == FMT_OPT_FT_BPFMAP) {
			struct fmt_bpfmap m;
			const char *k, *v;
			size_t kl, vl, pos = 0;
			int64_t x;

			if (!fmt_bpfmap_parse(in->options[i].data, in->options[i].size, false, &m, NULL))
				while (fmt_bpfmap_next(&m, &pos, &k, &kl, &v, &vl))
					sink += fmt_bpfmap_int(v, vl, &x) ? (uint64_t)x : kl;
		}
	}
	trace_seq_init(&s);
	if (!fmt_iter_new(r, NULL, &it)) {
		while ((rc = fmt_iter_next(it, &ev)) != 0 && n < 200000) {
			struct fmt_field f;
			int len;

			if (rc < 0)
				continue;
			n++;
			if (!ev->event)
				continue;
			trace_seq_reset(&s);
			tep_print_event(fmt_reader_tep(r), &s, (struct tep_record *)&ev->rec, "%s %d %s",
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_INFO);
			if (!fmt_field_resolve(ev->event, "common_pid", &f))
				sink += fmt_field_u64(&f, ev->rec.data, ev->rec.size);
			if (ev->event->format.fields &&
			    !fmt_field_resolve(ev->event, ev->event->format.fields->name, &f) &&
			    fmt_field_ptr(&f, ev->rec.data, ev->rec.size, &len))
				sink += len;
			if (!lo || ev->rec.ts < lo)
				lo = ev->rec.ts;
			if (ev->rec.ts > hi)
				hi = ev->rec.ts;
			if ((n & 7) == 0 && fmt_iter_peek(it, ev->buffer, &ev) == 1 && (n & 8))
				fmt_iter_take_peeked(it, &ev);
		}
		fmt_iter_free(it);
	}
	/* the time index (stored or searched) and the worker threads, on the same input */
	fmt_reader_tindex_status(r, NULL);
	{
		struct fmt_iter_opts o = { .seek = true, .seek_ts = lo + (hi - lo) / 2, .threads = 2 };
		long m = 0;

		if (!fmt_iter_new(r, &o, &it)) {
			while ((rc = fmt_iter_next(it, &ev)) != 0 && m < 200000)
				if (rc > 0 && ++m)
					sink += ev->rec.ts;
			fmt_iter_free(it);
		}
	}
	/* the index's facts, and a read of each CPU's middle chunks only */
	if (fmt_reader_facts_status(r, NULL) == 1) {
		const struct fmt_info *fi = fmt_reader_info(r);
		struct fmt_iter_range rg[64];
		int nrg = 0;

		for (int bi = 0; bi < fi->nbuffers; bi++)
			for (int c = 0; c < fi->buffers[bi].ncpus && nrg < 64; c++) {
				const struct fmt_cpu_facts *cf =
					fmt_reader_facts(r, bi, fi->buffers[bi].cpus[c].cpu);

				if (!cf)
					continue;
				for (uint32_t k = 0; k < cf->n; k++)
					sink += cf->chunks[k].nev + cf->chunks[k].first;
				for (uint32_t k = 0; k < cf->nnames; k++)
					sink += (uint64_t)cf->names[k].pid + (uint64_t)cf->names[k].len;
				rg[nrg++] = (struct fmt_iter_range){ bi, cf->cpu, cf->n / 3,
								     cf->n - cf->n / 3 };
			}
		struct fmt_iter_opts o = { .ranges = rg, .nranges = nrg, .threads = 2 };

		if (!fmt_iter_new(r, &o, &it)) {
			long m = 0;

			while ((rc = fmt_iter_next(it, &ev)) != 0 && m < 200000)
				if (rc > 0 && ++m)
					sink += ev->rec.ts;
			fmt_iter_free(it);
		}
	}
	/* the index's state records */
	sink += touch_state(r);
	/* serial, handing out the streams' own events (no_peek): a peek must refuse */
	{
		struct fmt_iter_opts o = { .no_peek = true };
		long m = 0;

		if (!fmt_iter_new(r, &o, &it)) {
			while ((rc = fmt_iter_next(it, &ev)) != 0 && m < 200000)
				if (rc > 0 && ++m) {
					sink += ev->rec.ts + (uint64_t)ev->rec.size;
					if (!(m & 63) && fmt_iter_peek(it, ev->buffer, &ev) != -EINVAL)
						abort();
				}
			fmt_iter_free(it);
		}
	}
	trace_seq_destroy(&s);
	/* the formats no event used, and the by-name lookup */
	fmt_reader_find_event(r, "ftrace", "funcgraph_entry");
	fmt_reader_load_formats(r);
	fmt_reader_close(r);
	if (sink == 0xdeadbeefcafeULL)
		fputc(' ', stderr);	/* keep the walks from being optimized away */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	int fd = memfd_create("fuzz.dat", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		run(path);
	}
	close(fd);
	return 0;
}

#ifdef FUZZ_REPLAY_MAIN
static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;
	size_t n;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_reader_replay: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	n = buf ? fread(buf, 1, st.st_size, f) : 0;
	fclose(f);
	if (buf)
		LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, files = 0, err = 0;

	tep_set_loglevel(TEP_LOG_NONE);
	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			err |= replay_file(argv[i]);
			files++;
			continue;
		}
		while ((de = readdir(d))) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			err |= replay_file(p);
			files++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", files);
	return err;
}
#endif
