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

/*
 * The section the last option opt points at (a rewriter that copied an old
 * one wrote its own after it): 0 with *data, -ENOENT no such option, or
 * -EBADMSG.
 */
static int last_section(struct fmt_reader *r, uint16_t opt, uint16_t sec, void **data, size_t *len)
{
	const struct fmt_option *o = NULL;

	for (int n = 0; fmt_reader_option(r, opt, n); n++)
		o = fmt_reader_option(r, opt, n);
	if (!o)
		return -ENOENT;
	if (o->size != 8)
		return -EBADMSG;
	return fmt_reader_section(r, fmt_get64(r->info.big_endian, o->data), sec, data, len) ?
	       -EBADMSG : 0;
}

static struct fmt_tindex *tindex(struct fmt_reader *r)
{
	struct fmt_tindex *t = r->tindex;
	void *data = NULL;
	size_t len = 0;
	int err;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	err = last_section(r, FMT_OPT_FT_TIMEINDEX, FMT_SEC_FT_TIMEINDEX, &data, &len);
	if (err != -ENOENT) {
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

/* ---- the facts (FMT_SEC_FT_FACTS) ------------------------------------------------ */

#define FENTRY_HDR	24
#define FCHUNK_REC	32
#define FLOSS_REC	32
#define FNAME_REC	40

struct fmt_facts {
	int status;		/* 1 parsed, 0 absent, -EBADMSG malformed */
	int n;
	struct fmt_cpu_facts *cpus;
};

void fmt_facts_free(struct fmt_facts *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++) {
		free(f->cpus[i].chunks);
		free(f->cpus[i].losses);
		free(f->cpus[i].names);
	}
	free(f->cpus);
	free(f);
}

/* One CPU's entry at d[*pos]: kept in *cf when it matches its time index entry. */
static int facts_entry(struct fmt_reader *r, const uint8_t *d, size_t size, size_t *pos,
		       struct fmt_cpu_facts *cf, bool *keep)
{
	bool be = r->info.big_endian;
	const struct fmt_cpu_tindex *ti = NULL;
	uint64_t data_off, nloss = 0, nnames = 0;
	size_t p = *pos;
	uint32_t n, k;
	int buffer = -1;

	*keep = false;
	if (size - p < FENTRY_HDR)
		return -EBADMSG;
	data_off = fmt_get64(be, d + p);
	cf->sorted = fmt_get32(be, d + p + 12) & 1;
	n = fmt_get32(be, d + p + 16);
	p += FENTRY_HDR;
	if (n > (size - p) / FCHUNK_REC)
		return -EBADMSG;
	for (k = 0; k < n; k++) {
		nloss += fmt_get32(be, d + p + (size_t)k * FCHUNK_REC + 4);
		nnames += fmt_get32(be, d + p + (size_t)k * FCHUNK_REC + 8);
	}
	if (nloss > (size - p - (size_t)n * FCHUNK_REC) / FLOSS_REC ||
	    nnames > (size - p - (size_t)n * FCHUNK_REC - nloss * FLOSS_REC) / FNAME_REC)
		return -EBADMSG;
	*pos = p + (size_t)n * FCHUNK_REC + nloss * FLOSS_REC + nnames * FNAME_REC;
	if (find_cpu(&r->info, data_off, &buffer)) {
		const struct fmt_cpu_data *cd = find_cpu(&r->info, data_off, &buffer);

		ti = fmt_reader_tindex(r, buffer, cd->cpu);
		cf->buffer = buffer;
		cf->cpu = cd->cpu;
	}
	/* an entry for no CPU of this file, or not for its index's chunks: left out */
	if (!ti || ti->data_offset != data_off || ti->n != n)
		return 0;
	cf->n = n;
	cf->chunks = calloc(n ? n : 1, sizeof(*cf->chunks));
	cf->losses = calloc(nloss ? nloss : 1, sizeof(*cf->losses));
	cf->names = calloc(nnames ? nnames : 1, sizeof(*cf->names));
	if (!cf->chunks || !cf->losses || !cf->names)
		return -ENOMEM;
	for (k = 0; k < n; k++, p += FCHUNK_REC) {
		struct fmt_chunk_facts *c = &cf->chunks[k];

		c->nev = fmt_get32(be, d + p);
		c->nloss = fmt_get32(be, d + p + 4);
		c->nnames = fmt_get32(be, d + p + 8);
		c->first = fmt_get64(be, d + p + 16);
		c->last = fmt_get64(be, d + p + 24);
		c->loss_at = cf->nlosses;
		c->name_at = cf->nnames;
		cf->nlosses += c->nloss;
		cf->nnames += c->nnames;
		/* a record is 8 bytes or more, a loss marks a page's first record */
		if (c->nev > ti->chunks[k].raw / 8 || c->nloss > c->nev ||
		    c->nloss > ti->chunks[k].raw / r->info.buffers[buffer].page_size ||
		    (c->nev && c->first > c->last && cf->sorted))
			return 0;
	}
	for (k = 0; k < cf->nlosses; k++, p += FLOSS_REC) {
		struct fmt_fact_loss *l = &cf->losses[k];

		l->ts = fmt_get64(be, d + p);
		l->prev = fmt_get64(be, d + p + 8);
		l->count = (int64_t)fmt_get64(be, d + p + 16);
		l->has_prev = fmt_get32(be, d + p + 24) & 1;
		if (l->count < -1)
			return 0;
	}
	for (k = 0; k < cf->nnames; k++, p += FNAME_REC) {
		struct fmt_fact_name *m = &cf->names[k];

		m->ts = fmt_get64(be, d + p);
		m->pid = (int)fmt_get32(be, d + p + 8);
		m->what = (int)fmt_get32(be, d + p + 12);
		m->tgid = (int)fmt_get32(be, d + p + 16);
		m->len = (int)fmt_get32(be, d + p + 20);
		memcpy(m->comm, d + p + 24, 16);
		if ((m->what != 1 && m->what != 2) || m->len < 0 || m->len > 15)
			return 0;
	}
	*keep = true;
	return 0;
}

static int facts_parse(struct fmt_reader *r, struct fmt_facts *f, const uint8_t *d, size_t size)
{
	bool be = r->info.big_endian;
	size_t pos = 8;
	uint32_t nent;

	if (size < 8 || fmt_get32(be, d) != 1)
		return -EBADMSG;
	nent = fmt_get32(be, d + 4);
	if (nent > (size - 8) / FENTRY_HDR)
		return -EBADMSG;
	f->cpus = calloc(nent ? nent : 1, sizeof(*f->cpus));
	if (!f->cpus)
		return -ENOMEM;
	for (uint32_t e = 0; e < nent; e++) {
		struct fmt_cpu_facts *cf = &f->cpus[f->n];
		bool keep;
		int err;

		memset(cf, 0, sizeof(*cf));
		err = facts_entry(r, d, size, &pos, cf, &keep);
		if (err || !keep) {
			free(cf->chunks);
			free(cf->losses);
			free(cf->names);
			memset(cf, 0, sizeof(*cf));
			if (err)
				return err;
			continue;
		}
		/* one entry per CPU: a second one for the same CPU makes both doubtful */
		for (int i = 0; i < f->n; i++)
			if (f->cpus[i].buffer == cf->buffer && f->cpus[i].cpu == cf->cpu)
				return -EBADMSG;
		f->n++;
	}
	return 0;
}

static struct fmt_facts *facts(struct fmt_reader *r)
{
	struct fmt_facts *f = r->facts;
	void *data = NULL;
	size_t len = 0;
	int err;

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/* facts without their index describe nothing */
	err = fmt_reader_tindex_status(r, NULL) == 1 ?
	      last_section(r, FMT_OPT_FT_FACTS, FMT_SEC_FT_FACTS, &data, &len) : -ENOENT;
	if (err != -ENOENT) {
		err = err ?: facts_parse(r, f, data, len);
		f->status = err ? -EBADMSG : 1;
		if (err) {
			for (int i = 0; i < f->n; i++) {
				free(f->cpus[i].chunks);
				free(f->cpus[i].losses);
				free(f->cpus[i].names);
			}
			f->n = 0;
		}
		free(data);
	}
	r->facts = f;
	return f;
}

int fmt_reader_facts_status(struct fmt_reader *r, int *cpus)
{
	struct fmt_facts *f = facts(r);

	if (cpus)
		*cpus = f ? f->n : 0;
	return f ? f->status : -ENOMEM;
}

const struct fmt_cpu_facts *fmt_reader_facts(struct fmt_reader *r, int buffer, int cpu)
{
	struct fmt_facts *f = facts(r);

	for (int i = 0; f && i < f->n; i++)
		if (f->cpus[i].buffer == buffer && f->cpus[i].cpu == cpu)
			return &f->cpus[i];
	return NULL;
}
