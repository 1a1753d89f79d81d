// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time index's facts against the events themselves: for every CPU the
 * facts describe, read that CPU alone with the iterator and, chunk by
 * chunk, count its events, take their first and last stamps, their loss
 * marks and the names they assign (the last of each pid, as the writer
 * keeps them), and compare with what the writer stored.  Prints a summary
 * line and exits 1 at the first difference, 2 when the file has no facts.
 *
 *   facts_check FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct nm {
	int pid, what, tgid, len;
	uint64_t ts;
	char comm[16];
};

struct acc {
	uint32_t nev, nloss, n, cap;
	uint64_t first, last;
	struct nm *v;
	uint64_t ts;
};

static struct nm *nm_put(struct acc *a, int pid, int what)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (a->v[i].pid == pid && a->v[i].what == what) {
			a->v[i].ts = a->ts;
			return &a->v[i];
		}
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			exit(3);
	}
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	a->v[a->n].pid = pid;
	a->v[a->n].what = what;
	a->v[a->n].ts = a->ts;
	return &a->v[a->n++];
}

static void on_comm(void *arg, int pid, const char *s, int len)
{
	struct nm *m = nm_put(arg, pid, 1);

	if (len > 15)
		len = 15;
	memset(m->comm, 0, 16);
	memcpy(m->comm, s, (size_t)len);
	m->len = len;
}

static void on_tgid(void *arg, int pid, int tgid)
{
	nm_put(arg, pid, 2)->tgid = tgid;
}

static int fail(const char *what, int b, int cpu, uint32_t k)
{
	printf("facts_check: buffer %d CPU %d chunk %u: %s differ\n", b, cpu, k, what);
	return 1;
}

/* Does chunk k's stored facts say what the events said (acc)? */
static int compare(const struct fmt_cpu_facts *cf, uint32_t k, struct acc *a,
		   const struct fmt_fact_loss *losses)
{
	const struct fmt_chunk_facts *c = &cf->chunks[k];

	if (c->nev != a->nev)
		return fail("event counts", cf->buffer, cf->cpu, k);
	if (a->nev && (c->first != a->first || c->last != a->last))
		return fail("first or last stamps", cf->buffer, cf->cpu, k);
	if (c->nloss != a->nloss)
		return fail("loss counts", cf->buffer, cf->cpu, k);
	for (uint32_t i = 0; i < a->nloss; i++) {
		const struct fmt_fact_loss *x = &cf->losses[c->loss_at + i], *y = &losses[i];

		if (x->ts != y->ts || x->count != y->count || x->has_prev != y->has_prev ||
		    (x->has_prev && x->prev != y->prev))
			return fail("losses", cf->buffer, cf->cpu, k);
	}
	if (c->nnames != a->n)
		return fail("name counts", cf->buffer, cf->cpu, k);
	for (uint32_t i = 0; i < a->n; i++) {
		const struct nm *y = &a->v[i];
		uint32_t j;

		for (j = 0; j < c->nnames; j++) {
			const struct fmt_fact_name *x = &cf->names[c->name_at + j];

			if (x->pid == y->pid && x->what == y->what && x->ts == y->ts &&
			    (y->what == 2 ? x->tgid == y->tgid
					  : x->len == y->len && !memcmp(x->comm, y->comm, 16)))
				break;
		}
		if (j == c->nnames)
			return fail("names", cf->buffer, cf->cpu, k);
	}
	return 0;
}

static int check_cpu(struct fmt_reader *r, const struct fmt_cpu_facts *cf, uint64_t *nev)
{
	const struct fmt_cpu_tindex *ti = fmt_reader_tindex(r, cf->buffer, cf->cpu);
	struct fmt_iter_opts o = { 0 };
	struct fmt_fact_loss losses[4096];
	struct fmt_namesrc *src = calloc(65536, sizeof(*src));
	bool *done = calloc(65536, 1);
	struct acc a = { 0 };
	const struct fmt_event *ev;
	struct fmt_iter *it;
	uint64_t prev = 0;
	bool has_prev = false, sorted = true;
	uint32_t k = 0;
	int rc, bad = 0;

	if (!ti || !src || !done || cf->cpu >= 256 || cf->buffer >= 64)
		return 1;
	o.cpu_mask[cf->cpu / 64] = 1ULL << (cf->cpu % 64);
	o.buffer_mask = 1ULL << cf->buffer;
	if (fmt_iter_new(r, &o, &it))
		return 1;
	while (!bad && (rc = fmt_iter_next(it, &ev)) != 0) {
		if (rc < 0) {
			printf("facts_check: CPU %d is damaged: %s\n", cf->cpu, fmt_reader_error(r));
			bad = 1;
			break;
		}
		/* the chunk holding this event's page */
		while (k < ti->n && ev->page_offset >= ti->chunks[k].voff + ti->chunks[k].raw) {
			bad = compare(cf, k, &a, losses);
			a.nev = a.nloss = a.n = 0;
			k++;
		}
		if (bad)
			break;
		if (k == ti->n) {
			printf("facts_check: CPU %d: events past the index\n", cf->cpu);
			bad = 1;
			break;
		}
		if (!a.nev++)
			a.first = ev->raw_ts;
		a.last = ev->raw_ts;
		if (has_prev && ev->raw_ts < prev)
			sorted = false;
		if (ev->rec.missed_events && a.nloss < 4096)
			losses[a.nloss++] = (struct fmt_fact_loss){ ev->raw_ts, has_prev ? prev : 0,
				ev->rec.missed_events < 0 ? -1 : ev->rec.missed_events, has_prev };
		prev = ev->raw_ts;
		has_prev = true;
		if (ev->type >= 0 && ev->event) {
			if (!done[ev->type]) {
				fmt_namesrc_resolve(ev->event, &src[ev->type]);
				done[ev->type] = true;
			}
			a.ts = ev->raw_ts;
			if (fmt_namesrc_any(&src[ev->type]))
				fmt_namesrc_apply(&src[ev->type], ev->rec.data, ev->rec.size, on_comm,
						  on_tgid, &a);
		}
		(*nev)++;
	}
	for (; !bad && k < ti->n; k++) {
		bad = compare(cf, k, &a, losses);
		a.nev = a.nloss = a.n = 0;
	}
	if (!bad && cf->sorted && !sorted) {
		printf("facts_check: CPU %d: stamps out of order, the facts say in order\n", cf->cpu);
		bad = 1;
	}
	fmt_iter_free(it);
	free(a.v);
	free(src);
	free(done);
	return bad;
}

int main(int argc, char **argv)
{
	struct fmt_reader *r;
	char *err = NULL;
	uint64_t nev = 0;
	int ncpus = 0, st, bad = 0, checked = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: facts_check FILE\n");
		return 2;
	}
	if (fmt_reader_open(argv[1], FMT_OPEN_NO_PLUGINS, &r, &err)) {
		fprintf(stderr, "facts_check: %s\n", err ? err : "cannot open");
		return 2;
	}
	st = fmt_reader_facts_status(r, &ncpus);
	if (st != 1) {
		printf("facts_check: %s: %s\n", argv[1], st ? "malformed facts" : "no facts");
		fmt_reader_close(r);
		return st ? 1 : 2;
	}
	for (int b = 0; b < fmt_reader_info(r)->nbuffers && !bad; b++)
		for (int c = 0; c < fmt_reader_info(r)->buffers[b].ncpus && !bad; c++) {
			const struct fmt_cpu_data *cd = &fmt_reader_info(r)->buffers[b].cpus[c];
			const struct fmt_cpu_facts *cf = fmt_reader_facts(r, b, cd->cpu);

			if (!cf)
				continue;
			bad = check_cpu(r, cf, &nev);
			checked++;
		}
	printf("facts_check: %s: %d of %d CPU streams with facts, %" PRIu64 " events: %s\n",
	       argv[1], checked, ncpus, nev, bad ? "DIFFER" : "match");
	fmt_reader_close(r);
	return bad;
}
