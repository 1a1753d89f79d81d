// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time index a flytrap writer stores (FMT_OPT_FT_TIMEINDEX pointing at
 * a FMT_SEC_FT_TIMEINDEX section): decoded once, on first use, into a table
 * the iterator's seek looks up by buffer and CPU.  The file is untrusted:
 * an entry is kept only when its chunks lie back to back inside the file
 * from the CPU's data offset, their sizes are possible and their stamps are
 * in order; anything else is dropped and the iterator searches on the fly
 * as it does for trace-cmd's files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ENTRY_HDR	24
#define CHUNK_REC	24

struct fmt_tindex {
	int status;		/* 1 parsed, 0 absent, -EBADMSG malformed */
	int n;
	uint64_t nchunks;	/* over the entries kept */
	struct fmt_cpu_tindex *cpus;
};

void fmt_tindex_free(struct fmt_tindex *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		free(t->cpus[i].chunks);
	free(t->cpus);
	free(t);
}

/* The buffer and CPU data whose data starts at off, or NULL. */
static const struct fmt_cpu_data *find_cpu(const struct fmt_info *in, uint64_t off, int *buffer)
{
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++)
			if (in->buffers[b].cpus[c].offset == off) {
				*buffer = b;
				return &in->buffers[b].cpus[c];
			}
	return NULL;
}

/* Does the chunk list of ci fit the file and the CPU's data, in time order? */
static bool entry_fits(const struct fmt_reader *r, const struct fmt_cpu_tindex *ci,
		       const struct fmt_cpu_data *cd)
{
	const struct fmt_buffer *b = &r->info.buffers[ci->buffer];
	uint64_t end = r->info.file_size, at = ci->data_offset + (ci->compressed ? 4 : 0);
	uint64_t voff = ci->data_offset;

	if (ci->compressed != b->compressed || !ci->n || !b->page_size)
		return false;
	if (!ci->compressed && cd->offset + cd->size < end)
		end = cd->offset + cd->size;
	for (uint32_t k = 0; k < ci->n; k++) {
		struct fmt_tindex_chunk *c = &ci->chunks[k];

		if (!c->len || c->len > end || at > end - c->len || !c->raw || c->raw % b->page_size ||
		    c->raw > FMT_MAX_CHUNK)
			return false;
		if (ci->compressed ? c->len < 8 : c->raw != c->len)
			return false;
		if (c->first > c->last || (k && c->first < ci->chunks[k - 1].last))
			return false;
		c->offset = at;
		c->voff = ci->compressed ? voff : at;
		at += c->len;
		voff += c->raw;
	}
	return true;
}

static int parse(struct fmt_reader *r, struct fmt_tindex *t, const uint8_t *d, size_t size)
{
	bool be = r->info.big_endian;
	size_t pos = 8;
	uint32_t nent, e;

	if (size < 8 || fmt_get32(be, d) != 1)
		return -EBADMSG;
	nent = fmt_get32(be, d + 4);
	if (nent > (size - 8) / ENTRY_HDR)
		return -EBADMSG;
	t->cpus = calloc(nent ? nent : 1, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	for (e = 0; e < nent; e++) {
		struct fmt_cpu_tindex *ci = &t->cpus[t->n];
		const struct fmt_cpu_data *cd;
		uint32_t n, k;

		if (size - pos < ENTRY_HDR)
			return -EBADMSG;
		memset(ci, 0, sizeof(*ci));
		ci->data_offset = fmt_get64(be, d + pos);
		ci->compressed = fmt_get32(be, d + pos + 12) & 1;
		n = fmt_get32(be, d + pos + 16);
		pos += ENTRY_HDR;
		if (n > (size - pos) / CHUNK_REC)
			return -EBADMSG;
		ci->n = n;
		ci->chunks = calloc(n ? n : 1, sizeof(*ci->chunks));
		if (!ci->chunks)
			return -ENOMEM;
		for (k = 0; k < n; k++, pos += CHUNK_REC) {
			ci->chunks[k].first = fmt_get64(be, d + pos);
			ci->chunks[k].last = fmt_get64(be, d + pos + 8);
			ci->chunks[k].len = fmt_get32(be, d + pos + 16);
			ci->chunks[k].raw = fmt_get32(be, d + pos + 20);
		}
		cd = find_cpu(&r->info, ci->data_offset, &ci->buffer);
		if (!cd || (ci->cpu = cd->cpu, !entry_fits(r, ci, cd))) {
			free(ci->chunks);	/* names no CPU of this file, or does not fit it */
			continue;
		}
		t->nchunks += n;
		t->n++;
	}
	return 0;
}

static struct fmt_tindex *tindex(struct fmt_reader *r)
{
	const struct fmt_option *o = NULL;
	struct fmt_tindex *t = r->tindex;
	void *data = NULL;
	size_t len = 0;
	int err;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* the last one: a rewriter that copied an old one wrote its own after it */
	for (int n = 0; fmt_reader_option(r, FMT_OPT_FT_TIMEINDEX, n); n++)
		o = fmt_reader_option(r, FMT_OPT_FT_TIMEINDEX, n);
	if (o) {
		err = o->size == 8 ? fmt_reader_section(r, fmt_get64(r->info.big_endian, o->data),
							FMT_SEC_FT_TIMEINDEX, &data, &len) : -EBADMSG;
		err = err ?: parse(r, t, data, len);
		t->status = err ? -EBADMSG : 1;
		if (err) {
			for (int i = 0; i < t->n; i++)
				free(t->cpus[i].chunks);
			t->n = 0;
			t->nchunks = 0;
		}
		free(data);
	}
	r->tindex = t;
	return t;
}

int fmt_reader_tindex_status(struct fmt_reader *r, uint64_t *chunks)
{
	struct fmt_tindex *t = tindex(r);

	if (chunks)
		*chunks = t ? t->nchunks : 0;
	return t ? t->status : -ENOMEM;
}

const struct fmt_cpu_tindex *fmt_reader_tindex(struct fmt_reader *r, int buffer, int cpu)
{
	struct fmt_tindex *t = tindex(r);

	for (int i = 0; t && i < t->n; i++)
		if (t->cpus[i].buffer == buffer && t->cpus[i].cpu == cpu)
			return &t->cpus[i];
	return NULL;
}
