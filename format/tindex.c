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

/*
 * The entries of a per-CPU section of the index (the facts, the state
 * records): u32 version 1, u32 count, then entries of at least hdr bytes
 * that entry() reads one by one into elements of esize bytes, each
 * beginning with {int buffer, cpu}.  An entry it does not keep is
 * released by drop(); a second entry for one CPU makes both doubtful.
 */
struct cpu_entry {
	int buffer, cpu;
};

static int entries_parse(struct fmt_reader *r, const uint8_t *d, size_t size, size_t hdr,
			 size_t esize, void **arr, int *n,
			 int (*entry)(struct fmt_reader *r, const uint8_t *d, size_t size, size_t *pos,
				      void *e, bool *keep),
			 void (*drop)(void *e))
{
	bool be = r->info.big_endian;
	size_t pos = 8;
	uint32_t nent;
	uint8_t *a;

	if (size < 8 || fmt_get32(be, d) != 1)
		return -EBADMSG;
	nent = fmt_get32(be, d + 4);
	if (nent > (size - 8) / hdr)
		return -EBADMSG;
	a = calloc(nent ? nent : 1, esize);
	if (!a)
		return -ENOMEM;
	*arr = a;
	for (uint32_t e = 0; e < nent; e++) {
		struct cpu_entry *ce = (struct cpu_entry *)(a + (size_t)*n * esize);
		bool keep;
		int err;

		memset(ce, 0, esize);
		err = entry(r, d, size, &pos, ce, &keep);
		if (err || !keep) {
			drop(ce);
			memset(ce, 0, esize);
			if (err)
				return err;
			continue;
		}
		for (int i = 0; i < *n; i++) {
			const struct cpu_entry *o = (const struct cpu_entry *)(a + (size_t)i * esize);

			if (o->buffer == ce->buffer && o->cpu == ce->cpu) {
				drop(ce);	/* not counted in *n: its owner frees it here */
				return -EBADMSG;
			}
		}
		(*n)++;
	}
	return 0;
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

static void facts_drop(void *e)
{
	struct fmt_cpu_facts *cf = e;

	free(cf->chunks);
	free(cf->losses);
	free(cf->names);
}

void fmt_facts_free(struct fmt_facts *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++)
		facts_drop(&f->cpus[i]);
	free(f->cpus);
	free(f);
}

/* One CPU's entry at d[*pos]: kept in *cf when it matches its time index entry. */
static int facts_entry(struct fmt_reader *r, const uint8_t *d, size_t size, size_t *pos,
		       void *e, bool *keep)
{
	struct fmt_cpu_facts *cf = e;
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
		err = err ?: entries_parse(r, data, len, FENTRY_HDR, sizeof(*f->cpus),
					   (void **)&f->cpus, &f->n, facts_entry, facts_drop);
		f->status = err ? -EBADMSG : 1;
		if (err) {
			for (int i = 0; i < f->n; i++)
				facts_drop(&f->cpus[i]);
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

/* ---- the state records (FMT_SEC_FT_STATE) ------------------------------------- */

#define SENTRY_HDR	24
#define SCHUNK_REC	8
#define SREC_HDR	16

struct fmt_state {
	int status;		/* 1 parsed, 0 absent, -EBADMSG malformed */
	int n;
	struct fmt_cpu_state *cpus;
	void *data;		/* the section: the records point into it */
};

static void state_drop(void *e)
{
	struct fmt_cpu_state *cs = e;

	free(cs->chunks);
	free(cs->recs);
}

static void state_cpus_free(struct fmt_state *s)
{
	for (int i = 0; i < s->n; i++)
		state_drop(&s->cpus[i]);
	s->n = 0;
}

void fmt_state_free(struct fmt_state *s)
{
	if (!s)
		return;
	state_cpus_free(s);
	free(s->cpus);
	free(s->data);
	free(s);
}

/*
 * The records of one entry from d[*pos]: each must lie in the section;
 * *keep turns false when one cannot be a record of its chunk (ti NULL:
 * the entry is read past only).
 */
static int state_recs(struct fmt_reader *r, const uint8_t *d, size_t size, size_t *pos,
		      struct fmt_cpu_state *cs, const struct fmt_cpu_tindex *ti, bool *keep)
{
	bool be = r->info.big_endian;
	uint32_t page_size = ti ? r->info.buffers[cs->buffer].page_size : 0;
	size_t p = *pos;

	for (uint32_t k = 0; k < cs->n; k++) {
		struct fmt_chunk_state *ch = &cs->chunks[k];
		uint64_t prev = 0;

		/* a record is 8 bytes or more in its page, and one of the chunk's events */
		if (ti && (ch->npages > ti->chunks[k].raw / page_size ||
			   ch->nrec > ti->chunks[k].raw / 8))
			*keep = false;
		for (uint32_t i = 0; i < ch->nrec; i++) {
			struct fmt_state_rec *sr = &cs->recs[ch->rec_at + i];
			size_t padded;
			uint32_t n;

			if (size - p < SREC_HDR)
				return -EBADMSG;
			sr->ts = fmt_get64(be, d + p);
			n = fmt_get32(be, d + p + 8);
			p += SREC_HDR;
			padded = (size_t)n + (8 - n % 8) % 8;
			if (padded > size - p)
				return -EBADMSG;
			sr->size = n;
			sr->data = d + p;
			p += padded;
			if (n < 2 || (ti && n > page_size) || (i && sr->ts < prev))
				*keep = false;
			else
				sr->type = (int)fmt_get16(be, d + p - padded);
			prev = sr->ts;
		}
	}
	*pos = p;
	return 0;
}

/* One CPU's entry at d[*pos]: kept in *cs when it matches its time index entry. */
static int state_entry(struct fmt_reader *r, const uint8_t *d, size_t size, size_t *pos,
		       void *e, bool *keep)
{
	struct fmt_cpu_state *cs = e;
	bool be = r->info.big_endian;
	const struct fmt_cpu_data *cd;
	const struct fmt_cpu_tindex *ti = NULL;
	uint64_t data_off, sum = 0;
	size_t p = *pos;
	uint32_t n, nrec, k;
	int buffer = -1, err;

	*keep = false;
	if (size - p < SENTRY_HDR)
		return -EBADMSG;
	data_off = fmt_get64(be, d + p);
	cs->flags = fmt_get32(be, d + p + 12);
	n = fmt_get32(be, d + p + 16);
	nrec = fmt_get32(be, d + p + 20);
	p += SENTRY_HDR;
	if (n > (size - p) / SCHUNK_REC || nrec > (size - p - (size_t)n * SCHUNK_REC) / SREC_HDR)
		return -EBADMSG;
	for (k = 0; k < n; k++)
		sum += fmt_get32(be, d + p + (size_t)k * SCHUNK_REC + 4);
	if (sum != nrec)
		return -EBADMSG;
	cd = find_cpu(&r->info, data_off, &buffer);
	if (cd) {
		ti = fmt_reader_tindex(r, buffer, cd->cpu);
		cs->buffer = buffer;
		cs->cpu = cd->cpu;
	}
	/* an entry for no CPU of this file, or not for its index's chunks: read past, left out */
	if (ti && (ti->data_offset != data_off || ti->n != n))
		ti = NULL;
	cs->chunks = calloc(n ? n : 1, sizeof(*cs->chunks));
	cs->recs = calloc(nrec ? nrec : 1, sizeof(*cs->recs));
	if (!cs->chunks || !cs->recs)
		return -ENOMEM;
	cs->n = n;
	cs->nrecs = nrec;
	for (k = 0; k < n; k++, p += SCHUNK_REC) {
		cs->chunks[k].npages = fmt_get32(be, d + p);
		cs->chunks[k].nrec = fmt_get32(be, d + p + 4);
		cs->chunks[k].rec_at = k ? cs->chunks[k - 1].rec_at + cs->chunks[k - 1].nrec : 0;
	}
	*keep = ti != NULL;
	err = state_recs(r, d, size, &p, cs, ti, keep);
	*pos = p;
	return err;
}

static struct fmt_state *state(struct fmt_reader *r)
{
	struct fmt_state *s = r->state;
	size_t len = 0;
	int err;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* state records describe the index's chunks: none without it */
	err = fmt_reader_tindex_status(r, NULL) == 1 ?
	      last_section(r, FMT_OPT_FT_STATE, FMT_SEC_FT_STATE, &s->data, &len) : -ENOENT;
	if (err != -ENOENT) {
		err = err ?: entries_parse(r, s->data, len, SENTRY_HDR, sizeof(*s->cpus),
					   (void **)&s->cpus, &s->n, state_entry, state_drop);
		s->status = err ? -EBADMSG : 1;
		if (err)
			state_cpus_free(s);
	}
	r->state = s;
	return s;
}

int fmt_reader_state_status(struct fmt_reader *r, int *cpus)
{
	struct fmt_state *s = state(r);

	if (cpus)
		*cpus = s ? s->n : 0;
	return s ? s->status : -ENOMEM;
}

const struct fmt_cpu_state *fmt_reader_state(struct fmt_reader *r, int buffer, int cpu)
{
	struct fmt_state *s = state(r);

	for (int i = 0; s && i < s->n; i++)
		if (s->cpus[i].buffer == buffer && s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}
