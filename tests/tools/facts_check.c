// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time index's facts and state records against the events themselves:
 * for every CPU stream of the index, read that CPU alone with the iterator
 * and, chunk by chunk, count its events, take their first and last stamps,
 * their loss marks and the names they assign (the last of each pid, as the
 * writer keeps them), and compare with what the writer stored.
 *
 * The state records (FMT_SEC_FT_STATE) are checked the same way, by rules
 * written here again rather than taken from format/names.c, so the writer
 * and this check cannot share a mistake: per chunk the first and last
 * sched:sched_switch, the last irq:irq_handler_entry/exit, the last
 * irq:softirq_entry/exit, the first irq_handler_entry of each irq number;
 * per pid the first and the last sched_switch whose prev_pid it is, the
 * first and the last whose next_pid it is, its first and last
 * sched:sched_process_exit (the pid field), its last syscall entry or exit
 * (raw_syscalls:sys_enter/sys_exit, syscalls:sys_enter_NAME/sys_exit_NAME,
 * by the int at offset 4 as the analyzers read a task, -1 in a record too
 * short for it); for slice, the first sched:sched_wakeup or
 * sched_wakeup_new of each pid (its pid field) and the chunk's first call
 * record (ftrace:funcgraph_entry/exit, flytrap:ufunc_entry/exit,
 * flytrap:kfunc_entry/exit, whatever their fields).  Each kept event once, in
 * the chunk's order, with its raw stamp and payload; and the count of the
 * chunk's pages that hold an event.
 *
 * Prints a summary line and exits 1 at the first difference, 2 when the
 * file has neither facts nor state records (no events, or not a flytrap
 * file).  A file with facts but no state records fails: the writer stores
 * both.  --state-optional accepts that (files of writers before the state
 * records); what is stored is checked all the same.
 *
 *   facts_check [--state-optional] FILE
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

/* ---- the state records ----------------------------------------------- */

enum { ST_NONE, ST_SWITCH, ST_EXIT, ST_SYSCALL, ST_IRQ, ST_SOFTIRQ, ST_WAKEUP, ST_CALL };

/* the file's integers are in the other byte order than this machine's */
static bool g_swap;

/* How one event type sets state, resolved on its first event. */
struct stype {
	bool done;
	int kind;
	struct fmt_field a, b;	/* switch: prev_pid, next_pid; exit, wakeup: pid; irq entry: irq */
	bool entry;		/* irq:irq_handler_entry */
};

/* A state event of the chunk being read: its keys, and a copy of its payload. */
struct cand {
	uint64_t ts;
	uint32_t size;
	int kind, type, a, b;
	bool entry;
	unsigned char *data;
	bool keep;
};

/*
 * What a pid's events are kept as: 0 switch-out, 1 switch-in, 2 exit (the
 * first and the last of each), 3 syscall (the last); 4 an irq number's
 * entries (the first); 5 wakeups (the first).
 */
struct key {
	int cls, pid;
	uint32_t at;
};

struct sacc {
	struct cand *c;
	uint32_t n, cap;
	struct key *k;
	uint32_t nk, kcap;
	uint32_t npages;
	uint64_t page;
	uint32_t short_events;	/* state events under 2 bytes: no record can hold them */
};

/* An integer field as the analyzers read one: 1, 2, 4 or 8 bytes, not __data_loc. */
static bool int_field(const struct tep_event *e, const char *name, struct fmt_field *f)
{
	if (fmt_field_resolve(e, name, f) || f->is_dynamic ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)) {
		f->offset = -1;
		return false;
	}
	return true;
}

static bool is(const struct tep_event *e, const char *sys, const char *name)
{
	return !strcmp(e->system, sys) && !strcmp(e->name, name);
}

/* sys:PREFIXNAME, with a name after the prefix */
static bool is_prefixed(const struct tep_event *e, const char *sys, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strcmp(e->system, sys) && !strncmp(e->name, prefix, n) && e->name[n];
}

/* The rules of the comment at the top, by system and name and the fields they need. */
static void classify(const struct tep_event *e, struct stype *t)
{
	struct fmt_field f;

	t->done = true;
	t->kind = ST_NONE;
	t->a.offset = t->b.offset = -1;
	if (!e || !e->system || !e->name)
		return;
	if (is(e, "sched", "sched_switch")) {
		if (int_field(e, "prev_pid", &t->a) && int_field(e, "next_pid", &t->b))
			t->kind = ST_SWITCH;
	} else if (is(e, "sched", "sched_process_exit")) {
		if (int_field(e, "pid", &t->a))
			t->kind = ST_EXIT;
	} else if (is(e, "raw_syscalls", "sys_enter") || is(e, "raw_syscalls", "sys_exit")) {
		if (int_field(e, "id", &f))
			t->kind = ST_SYSCALL;
	} else if (is_prefixed(e, "syscalls", "sys_enter_") ||
		   is_prefixed(e, "syscalls", "sys_exit_")) {
		t->kind = ST_SYSCALL;
	} else if (is(e, "irq", "irq_handler_entry") || is(e, "irq", "irq_handler_exit")) {
		if (int_field(e, "irq", &t->a))
			t->kind = ST_IRQ;
		t->entry = is(e, "irq", "irq_handler_entry");
	} else if (is(e, "irq", "softirq_entry") || is(e, "irq", "softirq_exit")) {
		if (int_field(e, "vec", &f))
			t->kind = ST_SOFTIRQ;
	} else if (is(e, "sched", "sched_wakeup") || is(e, "sched", "sched_wakeup_new")) {
		if (int_field(e, "pid", &t->a))
			t->kind = ST_WAKEUP;
	} else if (is(e, "ftrace", "funcgraph_entry") || is(e, "ftrace", "funcgraph_exit") ||
		   is(e, "flytrap", "ufunc_entry") || is(e, "flytrap", "ufunc_exit") ||
		   is(e, "flytrap", "kfunc_entry") || is(e, "flytrap", "kfunc_exit")) {
		t->kind = ST_CALL;
	}
	if (t->kind == ST_NONE)
		t->a.offset = t->b.offset = -1;
}

static void *grow(void *p, uint32_t *cap, size_t each)
{
	*cap = *cap ? *cap * 2 : 256;
	p = realloc(p, *cap * each);
	if (!p) {
		fprintf(stderr, "facts_check: out of memory\n");
		exit(3);
	}
	return p;
}

static void state_add(struct sacc *s, const struct fmt_event *ev, const struct stype *t)
{
	const void *d = ev->rec.data;
	int sz = ev->rec.size;
	struct cand *c;

	/* a record holds its event id at least (format.h; the reader refuses a shorter one) */
	if (sz < 2) {
		s->short_events++;
		return;
	}
	if (s->n == s->cap)
		s->c = grow(s->c, &s->cap, sizeof(*s->c));
	c = &s->c[s->n++];
	c->ts = ev->raw_ts;
	c->size = (uint32_t)sz;
	c->kind = t->kind;
	c->type = ev->type;
	c->a = (int)fmt_field_u64(&t->a, d, sz);
	c->b = (int)fmt_field_u64(&t->b, d, sz);
	c->entry = t->kind == ST_IRQ && t->entry;
	/* a syscall's task: the int at offset 4, -1 in a record too short for it */
	if (t->kind == ST_SYSCALL)
		c->a = sz < 8 ? -1 : (int)fmt_read_num((const uint8_t *)d + 4, 4, g_swap);
	c->data = malloc((size_t)sz);
	if (!c->data)
		exit(3);
	memcpy(c->data, d, (size_t)sz);
}

static void key_add(struct sacc *s, int cls, int pid, uint32_t at)
{
	if (s->nk == s->kcap)
		s->k = grow(s->k, &s->kcap, sizeof(*s->k));
	s->k[s->nk++] = (struct key){ cls, pid, at };
}

/* class, pid, then the latest event first */
static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->at > b->at ? -1 : a->at < b->at;
}

/* Mark the events the rules keep; returns how many. */
static uint32_t state_keep(struct sacc *s)
{
	int64_t first = -1, last = -1, irq = -1, soft = -1, call = -1;
	uint32_t n = 0;

	s->nk = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		struct cand *c = &s->c[i];

		c->keep = false;
		switch (c->kind) {
		case ST_SWITCH:
			if (first < 0)
				first = i;
			last = i;
			key_add(s, 0, c->a, i);
			key_add(s, 1, c->b, i);
			break;
		case ST_EXIT:
			key_add(s, 2, c->a, i);
			break;
		case ST_SYSCALL:
			key_add(s, 3, c->a, i);
			break;
		case ST_IRQ:
			irq = i;
			if (c->entry)
				key_add(s, 4, c->a, i);
			break;
		case ST_SOFTIRQ:
			soft = i;
			break;
		case ST_WAKEUP:
			key_add(s, 5, c->a, i);
			break;
		case ST_CALL:
			if (call < 0)
				call = i;
			break;
		}
	}
	if (call >= 0)
		s->c[call].keep = true;
	if (first >= 0)
		s->c[first].keep = s->c[last].keep = true;
	if (irq >= 0)
		s->c[irq].keep = true;
	if (soft >= 0)
		s->c[soft].keep = true;
	if (s->nk)
		qsort(s->k, s->nk, sizeof(*s->k), key_cmp);
	/* each group of a class and pid runs from its last event to its first */
	for (uint32_t j = 0; j < s->nk; j++) {
		const struct key *x = &s->k[j], *nx = j + 1 < s->nk ? &s->k[j + 1] : NULL;

		if ((!j || x->cls != s->k[j - 1].cls || x->pid != s->k[j - 1].pid) && x->cls < 4)
			s->c[x->at].keep = true;
		if (x->cls != 3 && (!nx || nx->cls != x->cls || nx->pid != x->pid))
			s->c[x->at].keep = true;
	}
	for (uint32_t i = 0; i < s->n; i++)
		n += s->c[i].keep;
	return n;
}

static void state_reset(struct sacc *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->c[i].data);
	s->n = 0;
	s->npages = 0;
}

/* "sched:sched_switch" for a payload, from its common_type */
static const char *event_name(struct fmt_reader *r, const void *d, uint32_t size, char *buf,
			      size_t len)
{
	struct tep_event *e;

	if (size < 2)
		return "(short)";
	e = fmt_reader_event(r, (int)fmt_read_num(d, 2, fmt_reader_info(r)->big_endian !=
						  (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)));
	snprintf(buf, len, "%s:%s", e && e->system ? e->system : "?", e && e->name ? e->name : "?");
	return buf;
}

/* Both lists of a chunk whose records differ, the first difference marked. */
static void state_dump(struct fmt_reader *r, const struct fmt_cpu_state *cs,
		       const struct fmt_chunk_state *c, struct sacc *s, uint32_t at)
{
	uint32_t j = 0, lo = at > 4 ? at - 4 : 0;
	char nm[128];

	for (uint32_t i = lo; i < c->nrec && i < lo + 10; i++) {
		const struct fmt_state_rec *x = &cs->recs[c->rec_at + i];

		printf("  %s stored   %3u: ts %" PRIu64 " size %u %s\n", i == at ? ">" : " ", i,
		       x->ts, x->size, event_name(r, x->data, x->size, nm, sizeof(nm)));
	}
	for (uint32_t i = 0; i < s->n; i++) {
		const struct cand *y = &s->c[i];

		if (!y->keep)
			continue;
		if (j >= lo && j < lo + 10)
			printf("  %s expected %3u: ts %" PRIu64 " size %u %s (%d %d)\n",
			       j == at ? ">" : " ", j, y->ts, y->size,
			       event_name(r, y->data, y->size, nm, sizeof(nm)), y->a, y->b);
		j++;
	}
}

/* Does chunk k's stored state say what the events said (s)?  *rec_at: where its records start. */
static int state_compare(struct fmt_reader *r, const struct fmt_cpu_state *cs, uint32_t k,
			 struct sacc *s, uint32_t *rec_at)
{
	const struct fmt_chunk_state *c = &cs->chunks[k];
	uint32_t want = state_keep(s), j = 0;

	if (c->npages != s->npages) {
		printf("facts_check: buffer %d CPU %d chunk %u: %u of its pages hold events, "
		       "the state records say %u\n", cs->buffer, cs->cpu, k, s->npages, c->npages);
		return 1;
	}
	if (c->rec_at != *rec_at || c->nrec > cs->nrecs || c->rec_at > cs->nrecs - c->nrec) {
		printf("facts_check: buffer %d CPU %d chunk %u: records %u..%u of %u, "
		       "the previous chunks end at %u\n", cs->buffer, cs->cpu, k, c->rec_at,
		       c->rec_at + c->nrec, cs->nrecs, *rec_at);
		return 1;
	}
	*rec_at += c->nrec;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct cand *y = &s->c[i];
		const struct fmt_state_rec *x;

		if (!y->keep)
			continue;
		x = j < c->nrec ? &cs->recs[c->rec_at + j] : NULL;
		if (!x || x->ts != y->ts || x->size != y->size || !x->data ||
		    memcmp(x->data, y->data, y->size)) {
			printf("facts_check: buffer %d CPU %d chunk %u: state record %u differs "
			       "(%s; %u stored, %u expected):\n", cs->buffer, cs->cpu, k, j,
			       !x ? "missing" : x->ts != y->ts ? "stamp" :
			       x->size != y->size ? "size" : "bytes", c->nrec, want);
			state_dump(r, cs, c, s, j);
			return 1;
		}
		j++;
	}
	if (c->nrec != want) {
		printf("facts_check: buffer %d CPU %d chunk %u: %u state records stored, "
		       "%u expected:\n", cs->buffer, cs->cpu, k, c->nrec, want);
		state_dump(r, cs, c, s, want);
		return 1;
	}
	return 0;
}

/* Are the records the rules keep in a chunk in stamp order (else the reader refuses them)? */
static bool state_sorted(struct sacc *s)
{
	uint64_t prev = 0;
	bool any = false;

	state_keep(s);
	for (uint32_t i = 0; i < s->n; i++) {
		if (!s->c[i].keep)
			continue;
		if (any && s->c[i].ts < prev)
			return false;
		prev = s->c[i].ts;
		any = true;
	}
	return true;
}

/* ---- one CPU stream ----------------------------------------------------- */

struct totals {
	uint64_t nev, nrecs, chunks, short_events;
	int facts, states, unsorted;
};

/* Chunk k is read: compare what it held with the facts and the state records. */
static int chunk_done(struct fmt_reader *r, const struct fmt_cpu_facts *cf,
		      const struct fmt_cpu_state *cs, uint32_t k, struct acc *a,
		      const struct fmt_fact_loss *losses, struct sacc *s, uint32_t *rec_at,
		      bool *sorted)
{
	int bad = 0;

	if (cf)
		bad = compare(cf, k, a, losses);
	if (!bad && cs)
		bad = state_compare(r, cs, k, s, rec_at);
	else if (!bad && !state_sorted(s))
		*sorted = false;
	a->nev = a->nloss = a->n = 0;
	state_reset(s);
	return bad;
}

static int check_cpu(struct fmt_reader *r, const struct fmt_cpu_tindex *ti,
		     const struct fmt_cpu_facts *cf, const struct fmt_cpu_state *cs,
		     struct totals *tot)
{
	struct fmt_iter_opts o = { 0 };
	struct fmt_fact_loss losses[4096];
	struct fmt_namesrc *src = calloc(65536, sizeof(*src));
	struct stype *st = calloc(65536, sizeof(*st));
	bool *done = calloc(65536, 1);
	struct acc a = { 0 };
	struct sacc s = { 0 };
	const struct fmt_event *ev;
	struct fmt_iter *it;
	uint64_t prev = 0;
	bool has_prev = false, sorted = true, st_sorted = true;
	uint32_t k = 0, rec_at = 0;
	int rc, bad = 0;

	if (!src || !st || !done || ti->cpu >= 256 || ti->buffer >= 64)
		return 1;
	if (cs && cs->n != ti->n) {
		printf("facts_check: buffer %d CPU %d: state records for %u chunks, the index has %u\n",
		       ti->buffer, ti->cpu, cs->n, ti->n);
		return 1;
	}
	o.cpu_mask[ti->cpu / 64] = 1ULL << (ti->cpu % 64);
	o.buffer_mask = 1ULL << ti->buffer;
	if (fmt_iter_new(r, &o, &it))
		return 1;
	while (!bad && (rc = fmt_iter_next(it, &ev)) != 0) {
		if (rc < 0) {
			printf("facts_check: CPU %d is damaged: %s\n", ti->cpu, fmt_reader_error(r));
			bad = 1;
			break;
		}
		/* the chunk holding this event's page */
		while (!bad && k < ti->n &&
		       ev->page_offset >= ti->chunks[k].voff + ti->chunks[k].raw)
			bad = chunk_done(r, cf, cs, k++, &a, losses, &s, &rec_at, &st_sorted);
		if (bad)
			break;
		if (k == ti->n) {
			printf("facts_check: CPU %d: events past the index\n", ti->cpu);
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
		/* pages hold whole events and come in order: a new offset is a new page */
		if (!s.npages || ev->page_offset != s.page) {
			s.npages++;
			s.page = ev->page_offset;
		}
		if (ev->type >= 0 && ev->type < 65536 && ev->event) {
			if (!done[ev->type]) {
				fmt_namesrc_resolve(ev->event, &src[ev->type]);
				done[ev->type] = true;
			}
			a.ts = ev->raw_ts;
			if (fmt_namesrc_any(&src[ev->type]))
				fmt_namesrc_apply(&src[ev->type], ev->rec.data, ev->rec.size, on_comm,
						  on_tgid, &a);
			if (!st[ev->type].done)
				classify(ev->event, &st[ev->type]);
			if (st[ev->type].kind != ST_NONE)
				state_add(&s, ev, &st[ev->type]);
		}
		tot->nev++;
	}
	for (; !bad && k < ti->n; k++)
		bad = chunk_done(r, cf, cs, k, &a, losses, &s, &rec_at, &st_sorted);
	if (!bad && cf && cf->sorted && !sorted) {
		printf("facts_check: CPU %d: stamps out of order, the facts say in order\n", ti->cpu);
		bad = 1;
	}
	if (!bad && cs && rec_at != cs->nrecs) {
		printf("facts_check: buffer %d CPU %d: %u state records, its chunks hold %u\n",
		       ti->buffer, ti->cpu, cs->nrecs, rec_at);
		bad = 1;
	}
	if (!bad && !cs && fmt_reader_state_status(r, NULL) == 1) {
		/* the reader refuses an entry whose records go back in time within a chunk */
		if (st_sorted) {
			printf("facts_check: buffer %d CPU %d: no state records, "
			       "though the file has them and this CPU's would be in order\n",
			       ti->buffer, ti->cpu);
			bad = 1;
		} else {
			tot->unsorted++;
		}
	}
	if (cs) {
		tot->nrecs += cs->nrecs;
		tot->chunks += cs->n;
	}
	tot->short_events += s.short_events;
	state_reset(&s);
	fmt_iter_free(it);
	free(a.v);
	free(s.c);
	free(s.k);
	free(src);
	free(st);
	free(done);
	return bad;
}

int main(int argc, char **argv)
{
	struct fmt_reader *r;
	struct totals tot = { 0 };
	const struct fmt_info *in;
	const char *path;
	char *err = NULL;
	bool state_optional = false;
	int ncpus = 0, nscpus = 0, st, sst, bad = 0;

	if (argc == 3 && !strcmp(argv[1], "--state-optional"))
		state_optional = true;
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: facts_check [--state-optional] FILE\n");
		return 2;
	}
	path = argv[argc - 1];
	if (fmt_reader_open(path, FMT_OPEN_NO_PLUGINS, &r, &err)) {
		fprintf(stderr, "facts_check: %s\n", err ? err : "cannot open");
		free(err);
		return 2;
	}
	st = fmt_reader_facts_status(r, &ncpus);
	sst = fmt_reader_state_status(r, &nscpus);
	if (st < 0 || sst < 0 || (st == 1 && sst == 0 && !state_optional) || (st == 0 && sst == 0)) {
		printf("facts_check: %s: %s\n", path,
		       st < 0 ? "malformed facts" : sst < 0 ? "malformed state records" :
		       st ? "facts but no state records" : "no facts");
		fmt_reader_close(r);
		return st || sst ? 1 : 2;
	}
	in = fmt_reader_info(r);
	g_swap = in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	for (int b = 0; b < in->nbuffers && !bad; b++)
		for (int c = 0; c < in->buffers[b].ncpus && !bad; c++) {
			int cpu = in->buffers[b].cpus[c].cpu;
			const struct fmt_cpu_tindex *ti = fmt_reader_tindex(r, b, cpu);
			const struct fmt_cpu_facts *cf = fmt_reader_facts(r, b, cpu);
			const struct fmt_cpu_state *cs = fmt_reader_state(r, b, cpu);

			if (!cf && !cs)
				continue;
			if (!ti) {
				printf("facts_check: buffer %d CPU %d: facts or state records "
				       "without a time index\n", b, cpu);
				bad = 1;
				break;
			}
			bad = check_cpu(r, ti, cf, cs, &tot);
			tot.facts += !!cf;
			tot.states += !!cs;
		}
	printf("facts_check: %s: %d of %d CPU streams with facts, %" PRIu64 " events; "
	       "state records: ", path, tot.facts, ncpus, tot.nev);
	if (sst == 1)
		printf("%d of %d streams, %" PRIu64 " in %" PRIu64 " chunks", tot.states, nscpus,
		       tot.nrecs, tot.chunks);
	else
		printf("none");
	if (tot.unsorted)
		printf(" (%d refused: out of order)", tot.unsorted);
	if (tot.short_events)
		printf(" (%" PRIu64 " state events under 2 bytes left out)", tot.short_events);
	printf(": %s\n", bad ? "DIFFER" : "match");
	fmt_reader_close(r);
	return bad;
}
