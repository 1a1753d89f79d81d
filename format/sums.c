// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checksums a flytrap writer stores (FMT_OPT_FT_CHECKSUMS, FMT_OPT_FT_DIGEST):
 * decoded once, on first use, into a table the iterator and verify look up
 * by buffer and CPU.  A malformed option is treated as absent (with
 * fmt_reader_sums_status() saying so): the data is then read as trace-cmd
 * reads it, unchecked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct fmt_sums {
	int status;		/* 1 parsed, 0 absent, -EBADMSG malformed */
	int n;
	struct fmt_cpu_sums *cpus;
};

void fmt_sums_free(struct fmt_sums *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		free(t->cpus[i].chunks);
	free(t->cpus);
	free(t);
}

/* The buffer and CPU whose data starts at off, or false. */
static bool find_cpu(const struct fmt_info *in, uint64_t off, int *buffer, int *cpu)
{
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++)
			if (in->buffers[b].cpus[c].offset == off) {
				*buffer = b;
				*cpu = in->buffers[b].cpus[c].cpu;
				return true;
			}
	return false;
}

static int parse(struct fmt_reader *r, struct fmt_sums *t, const uint8_t *d, uint32_t size)
{
	bool be = r->info.big_endian;
	uint32_t pos = 8, nent, e;

	if (size < 8 || fmt_get32(be, d) != 1)
		return -EBADMSG;
	nent = fmt_get32(be, d + 4);
	if (nent > (size - 8) / 20)
		return -EBADMSG;
	t->cpus = calloc(nent ? nent : 1, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	for (e = 0; e < nent; e++) {
		struct fmt_cpu_sums *cs = &t->cpus[t->n];
		uint64_t off, at;
		uint32_t n, flags, k;

		if (size - pos < 20)
			return -EBADMSG;
		off = fmt_get64(be, d + pos);
		flags = fmt_get32(be, d + pos + 12);
		n = fmt_get32(be, d + pos + 16);
		pos += 20;
		if (n > (size - pos) / 8)
			return -EBADMSG;
		memset(cs, 0, sizeof(*cs));
		cs->data_offset = off;
		cs->compressed = flags & 1;
		cs->n = n;
		cs->chunks = calloc(n ? n : 1, sizeof(*cs->chunks));
		if (!cs->chunks)
			return -ENOMEM;
		at = off + (cs->compressed ? 4 : 0);
		for (k = 0; k < n; k++, pos += 8) {
			cs->chunks[k].offset = at;
			cs->chunks[k].len = fmt_get32(be, d + pos);
			cs->chunks[k].crc = fmt_get32(be, d + pos + 4);
			at += cs->chunks[k].len;
		}
		if (!find_cpu(&r->info, off, &cs->buffer, &cs->cpu)) {
			free(cs->chunks);	/* names no CPU of this file: ignore it */
			continue;
		}
		cs->cpu_size = at - off;
		t->n++;
	}
	return 0;
}

static struct fmt_sums *sums(struct fmt_reader *r)
{
	const struct fmt_option *o;
	struct fmt_sums *t = r->sums;
	int err;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	o = fmt_reader_option(r, FMT_OPT_FT_CHECKSUMS, 0);
	if (o) {
		err = parse(r, t, o->data, o->size);
		t->status = err ? -EBADMSG : 1;
		if (err) {
			for (int i = 0; i < t->n; i++)
				free(t->cpus[i].chunks);
			t->n = 0;
		}
	}
	r->sums = t;
	return t;
}

int fmt_reader_sums_status(struct fmt_reader *r)
{
	struct fmt_sums *t = sums(r);

	return t ? t->status : -ENOMEM;
}

const struct fmt_cpu_sums *fmt_reader_sums(struct fmt_reader *r, int buffer, int cpu)
{
	struct fmt_sums *t = sums(r);

	for (int i = 0; t && i < t->n; i++)
		if (t->cpus[i].buffer == buffer && t->cpus[i].cpu == cpu)
			return &t->cpus[i];
	return NULL;
}

int fmt_reader_check_chunks(struct fmt_reader *r, int buffer, int cpu, uint32_t first, uint32_t end)
{
	const struct fmt_cpu_tindex *ti = fmt_reader_tindex(r, buffer, cpu);
	const struct fmt_cpu_sums *cs = fmt_reader_sums(r, buffer, cpu);
	uint8_t *buf = NULL;
	size_t cap = 0;
	uint32_t i = 0;
	int err = 0;

	if (!ti || !cs || end > ti->n || first > end)
		return -ENOENT;
	for (uint32_t k = first; k < end && !err; k++) {
		const struct fmt_tindex_chunk *c = &ti->chunks[k];

		/* the checksum of the chunk at this offset (both lists are in file order) */
		while (i < cs->n && cs->chunks[i].offset < c->offset)
			i++;
		if (i == cs->n || cs->chunks[i].offset != c->offset || cs->chunks[i].len != c->len) {
			err = -ENOENT;
			break;
		}
		if (c->len > cap) {
			uint8_t *nb = realloc(buf, c->len);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap = c->len;
		}
		err = fmt_rread(r, c->offset, buf, c->len);
		if (!err && fmt_crc32c(0, buf, c->len) != cs->chunks[i].crc)
			err = -EBADMSG;
	}
	free(buf);
	return err;
}

int fmt_reader_digest(struct fmt_reader *r, struct fmt_digest *dg)
{
	const struct fmt_option *o = fmt_reader_option(r, FMT_OPT_FT_DIGEST, 0);
	bool be = r->info.big_endian;

	memset(dg, 0, sizeof(*dg));
	if (!o)
		return 0;
	if (o->size != 16 || fmt_get32(be, o->data) != 1)
		return -EBADMSG;
	dg->present = true;
	dg->crc = fmt_get32(be, (const uint8_t *)o->data + 4);
	dg->size = fmt_get64(be, (const uint8_t *)o->data + 8);
	dg->offset = o->file_offset;
	return 1;
}
