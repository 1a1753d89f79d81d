// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine of flytrap merge: recordings that one trace.dat can hold, as
 * one file.  share/merge.c is the command; rpt_join_segments() reads the
 * segments of one rotation given to any reading command (design decision 8).
 *
 * Two cases, told apart by the files themselves:
 *  - one recording in several files: the segments of a rotation or the
 *    dumps of a flight recorder (the same trace_id in their flytrap
 *    metadata).  They are joined in their order (segment or dump number)
 *    into the buffers of the recording; an event that an earlier file
 *    already held (flight dumps may overlap) is written once.
 *  - separate recordings of the same kernel on the same machine (same
 *    uname, headers, kernel symbol base and event formats): each becomes a
 *    buffer of its own named after its source, its time stamps aligned
 *    through the files' DATE/OFFSET options (or --offset).
 * A trace.dat has one set of event formats, one kallsyms and one cmdline
 * table, so anything else (another kernel, another machine, another boot)
 * is refused: `report -i A -i B` and `load` read such files together
 * without losing what each holds.
 *
 * Records are re-encoded into new pages (core/writer.c) with their stored time
 * stamps plus the alignment shift, so loss markers stay on the page after
 * the loss.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "report/core/join.h"
#include "report/core/replay.h"
#include "report/core/writer.h"
#include "report/out/outfile.h"


/* What the last record written to one (buffer, CPU) stream was. */
struct rpt_merge_last {
	uint64_t ts;
	bool any;
	int nh, caph;
	uint64_t *hash;			/* payload hashes of the records at ts */
};

/* ---- the files' own metadata ---------------------------------------------------- */

/*
 * A string of the file's flytrap metadata into buf: 1, or 0 when absent or
 * longer than buf holds (an id cut short could equal another's).
 */
static int meta_copy(const char *v, char *buf, size_t size)
{
	bool fits = v && strlen(v) < size;

	if (fits)
		memcpy(buf, v, strlen(v) + 1);
	return fits;
}

/* The address of _text (or _stext) in a kallsyms text, 0 if absent. */
static uint64_t kallsyms_text(const struct fmt_blob *k)
{
	const char *p = k->data, *end = p ? p + k->len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char *q;
		uint64_t a = strtoull(p, &q, 16);

		/* "ffffffff81000000 T _text" */
		if (q < le - 3 && q[0] == ' ' && q[2] == ' ') {
			size_t nl2 = (size_t)(le - (q + 3));

			if ((nl2 == 5 && !memcmp(q + 3, "_text", 5)) ||
			    (nl2 == 6 && !memcmp(q + 3, "_stext", 6)))
				return a;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---- event formats: one set for every input ------------------------------------------ */

struct fmt_ent {
	int id;
	char system[64];
	char *text;
	size_t len;
	int src;
};

struct fmt_set {
	struct fmt_ent *v;
	int n, cap;
	int src;
	const char *conflict;		/* the event whose format differs */
	char conflict_buf[128];
};

static int format_id(const char *text, size_t len)
{
	const char *p = memmem(text, len, "\nID: ", 5);

	if (!p && len > 4 && !memcmp(text, "ID: ", 4))
		p = text - 1;
	return p ? atoi(p + 5) : -1;
}

static int collect_format(void *arg, const char *system, const char *text, size_t len)
{
	struct fmt_set *fs = arg;
	int id = format_id(text, len);

	for (int i = 0; i < fs->n; i++) {
		struct fmt_ent *e = &fs->v[i];

		if (strcmp(e->system, system) || (id >= 0 ? e->id != id : e->len != len))
			continue;
		if (e->len != len || memcmp(e->text, text, len)) {
			const char *nm = memmem(text, len, "name: ", 6);

			snprintf(fs->conflict_buf, sizeof(fs->conflict_buf), "%s:%.*s", system,
				 nm ? (int)strcspn(nm + 6, "\n") : 1, nm ? nm + 6 : "?");
			fs->conflict = fs->conflict_buf;
		}
		return 0;	/* the same format: once */
	}
	if (fs->n == fs->cap) {
		int cap = fs->cap ? fs->cap * 2 : 256;
		struct fmt_ent *v = realloc(fs->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fs->v = v;
		fs->cap = cap;
	}
	struct fmt_ent *e = &fs->v[fs->n];

	e->text = malloc(len + 1);
	if (!e->text)
		return -ENOMEM;
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	e->len = len;
	e->id = id;
	e->src = fs->src;
	snprintf(e->system, sizeof(e->system), "%s", system);
	fs->n++;
	return 0;
}

static void fmt_set_release(struct fmt_set *fs)
{
	for (int i = 0; i < fs->n; i++)
		free(fs->v[i].text);
	free(fs->v);
}

/* ---- texts of several files as one ------------------------------------------------ */

static int cmp_line(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(*x, *y);
}

/*
 * Every distinct line of the texts (kallsyms, printk formats): readers
 * index them by address, so the order is free.  malloc'd, NUL-terminated.
 */
static char *lines_union(const struct fmt_blob *const *t, int n, size_t *out_len)
{
	size_t total = 0, nlines = 0, o = 0, k = 0;
	char *copy, *p, **v, *out;

	for (int i = 0; i < n; i++)
		total += t[i]->len + 1;
	copy = malloc(total + 1);
	if (!copy)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (t[i]->len)
			memcpy(copy + o, t[i]->data, t[i]->len);
		o += t[i]->len;
		copy[o++] = '\n';
	}
	copy[o] = '\0';
	/* by length: a NUL byte inside a damaged text must not end it early */
	for (size_t i = 0; i < o; i++)
		nlines += copy[i] == '\n';
	v = malloc((nlines + 1) * sizeof(*v));
	out = malloc(total + 1);
	if (!v || !out) {
		free(v);
		free(out);
		free(copy);
		return NULL;
	}
	/* every text ends with the '\n' added above; a line holding a NUL ends there */
	for (p = copy; p < copy + o;) {
		char *nl = memchr(p, '\n', (size_t)(copy + o - p));

		*nl = '\0';
		if (*p)
			v[k++] = p;
		p = nl + 1;
	}
	qsort(v, k, sizeof(*v), cmp_line);
	o = 0;
	for (size_t i = 0; i < k; i++) {
		size_t l;

		if (i && !strcmp(v[i], v[i - 1]))
			continue;
		l = strlen(v[i]);
		memcpy(out + o, v[i], l);
		o += l;
		out[o++] = '\n';
	}
	out[o] = '\0';
	*out_len = o;
	free(v);
	free(copy);
	return out;
}

/* "pid comm" lines of every file, the last file's name of a pid winning. */
struct cl {
	int pid;
	int order;
	const char *comm;
	int len;
};

static int cmp_cl(const void *a, const void *b)
{
	const struct cl *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static char *cmdlines_union(const struct rpt_merge *m, size_t *out_len)
{
	size_t cap = 0, n = 0, total = 1, o = 0;
	struct cl *v = NULL;
	char *out;

	for (int i = 0; i < m->n; i++) {
		const char *p = m->s[i].in->cmdlines.data,
			   *end = p ? p + m->s[i].in->cmdlines.len : NULL;

		while (p && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			char *q;
			long pid = strtol(p, &q, 10);

			if (q > p && q < le && *q == ' ') {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 1024;
					struct cl *nv = realloc(v, nc * sizeof(*nv));

					if (!nv) {
						free(v);
						return NULL;
					}
					v = nv;
					cap = nc;
				}
				v[n].pid = (int)pid;
				v[n].order = (int)n;
				v[n].comm = q + 1;
				v[n].len = (int)(le - q - 1);
				total += (size_t)(le - p) + 1;
				n++;
			}
			p = nl ? nl + 1 : end;
		}
	}
	out = malloc(total);
	if (!out) {
		free(v);
		return NULL;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_cl);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1].pid == v[i].pid)
			continue;	/* a later file named it anew */
		o += (size_t)sprintf(out + o, "%d %.*s\n", v[i].pid, v[i].len, v[i].comm);
	}
	out[o] = '\0';
	*out_len = o;
	free(v);
	return out;
}

/* ---- files redacted with other keys ----------------------------------------------- */

static const char *meta_value(struct fmt_reader *r, const char *key)
{
	const struct fmt_meta *m = fmt_reader_meta(r);

	return m ? fmt_kv_get(&m->all, key) : NULL;
}

/*
 * Whether a and b were redacted with other keys, or one of them only:
 * then their tokens cannot match, and why (one line, with how to redo
 * it) is in why.  Files redacted before key ids were recorded: false.
 */
static bool keys_differ(struct fmt_reader *a, struct fmt_reader *b, char *why, size_t cap)
{
	const char *ra = meta_value(a, "redacted_by"), *rb = meta_value(b, "redacted_by");
	const char *ka = meta_value(a, "redact_key_id"), *kb = meta_value(b, "redact_key_id");
	static const char redo[] = "redact the originals together ('flytrap redact --key FILE "
				   "IN... -o DIR') or each with the same --key FILE";

	if (!ra && !rb)
		return false;
	if (!ra || !rb) {
		snprintf(why, cap, "%s redacted and the other is not: no name has the same "
			 "token in both; %s", ra ? "it is" : "it is not", redo);
		return true;
	}
	/* a redact before key ids: nothing tells (the names' tokens may still match) */
	if (!ka || !kb || !strcmp(ka, kb))
		return false;
	snprintf(why, cap, "redacted with another key (key id %.16s, not %.16s): no name has the "
		 "same token in both; %s", ka, kb, redo);
	return true;
}

/* ---- what can be merged -------------------------------------------------------------- */

static int cmp_seq(const void *a, const void *b)
{
	const struct rpt_merge_src *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *refuse_hint =
	"read them together with 'flytrap report -i A -i B', or load them with 'flytrap load'";

/* One recording in several files, or several of one kernel; else a message and exit 1. */
static int check_inputs(struct rpt_merge *m)
{
	const struct fmt_info *a = m->s[0].in;
	uint64_t ktext = kallsyms_text(&a->kallsyms);

	for (int i = 0; i < m->n; i++) {
		struct rpt_merge_src *s = &m->s[i];
		const struct fmt_meta *mt = fmt_reader_meta(s->r);
		const struct fmt_meta_num *seq;

		if (!mt)
			return ft_error("cannot read '%s': %s", s->path, strerror(errno));
		meta_copy(mt->trace_id, s->trace_id, sizeof(s->trace_id));
		meta_copy(mt->recording_mode, s->mode, sizeof(s->mode));
		seq = !strcmp(s->mode, "flight") ? &mt->flight_dump : &mt->rotation_segment;
		if (seq->has && seq->v <= LONG_MAX)
			s->seq = (long)seq->v;
		if (s->in->latency.present)
			return ft_error("cannot merge '%s': a latency-format (text) file "
					"has no events", s->path);
	}
	for (int i = 1; m->join && i < m->n; i++)
		if (!m->s[0].trace_id[0] || strcmp(m->s[i].trace_id, m->s[0].trace_id) ||
		    m->s[i].seq < 0 || m->s[0].seq < 0)
			return ft_usage_error("several files are read as the segments of one "
					      "rotation; '%s' and '%s' are not (analyze each "
					      "alone, list them with 'flytrap report -i A -i B', "
					      "or merge them)",
					      m->s[0].path, m->s[i].path);
	/* tokens of other keys differ: the host in the uname first */
	for (int i = 1; i < m->n; i++) {
		char kwhy[256];

		if (keys_differ(m->s[i].r, m->s[0].r, kwhy, sizeof(kwhy)))
			return ft_error("cannot merge '%s' with '%s': %s", m->s[i].path,
					m->s[0].path, kwhy);
	}
	for (int i = 1; i < m->n; i++) {
		const struct fmt_info *b = m->s[i].in;
		const char *why = NULL;

		char wbuf[160];

		if (b->big_endian != a->big_endian)
			why = "its byte order differs";
		else if (b->page_size != a->page_size) {
			snprintf(wbuf, sizeof(wbuf), "its pages are %u bytes, not %u", b->page_size,
				 a->page_size);
			why = wbuf;
		} else if (b->kernel_long != a->kernel_long) {
			snprintf(wbuf, sizeof(wbuf), "its kernel has %d-byte longs, not %d",
				 b->kernel_long, a->kernel_long);
			why = wbuf;
		} else if (strcmp(a->uname, b->uname)) {
			snprintf(wbuf, sizeof(wbuf),
				 "recorded on another kernel or machine ('%.50s', not '%.50s')",
				 b->uname[0] ? b->uname : "unknown",
				 a->uname[0] ? a->uname : "unknown");
			why = wbuf;
		}
		else if (a->header_page.len != b->header_page.len ||
			 (a->header_page.len &&
			  memcmp(a->header_page.data, b->header_page.data, a->header_page.len)))
			why = "the ring-buffer page headers differ";
		else if (kallsyms_text(&b->kallsyms) != ktext)
			why = "recorded in another boot (the kernel's symbols are elsewhere)";
		else if (!m->s[0].has_user_offset && !m->s[i].has_user_offset &&
			 strcmp(a->clock ? a->clock : "", b->clock ? b->clock : ""))
			why = "recorded with another trace clock (give --offset to align them)";
		else if (a->has_tsc2nsec != b->has_tsc2nsec ||
			 (a->has_tsc2nsec &&
			  (a->tsc_mult != b->tsc_mult || a->tsc_shift != b->tsc_shift)))
			why = "its TSC-to-ns conversion differs";
		if (why)
			return ft_error("cannot merge '%s' with '%s': %s; %s", m->s[i].path,
					m->s[0].path, why, refuse_hint);
	}
	/* all of one recording, or none; the trace_id is the recorder's random id */
	int one = -1;

	for (int i = 0; i < m->n && one < 0; i++)
		for (int k = i + 1; k < m->n && one < 0; k++)
			if (m->s[i].trace_id[0] && !strcmp(m->s[i].trace_id, m->s[k].trace_id))
				one = i;
	m->one_recording = one >= 0;
	if (m->one_recording) {
		for (int i = 0; i < m->n; i++)
			if (strcmp(m->s[i].trace_id, m->s[one].trace_id) || m->s[i].seq < 0)
				return ft_usage_error("'%s' is not a segment or dump of the "
						      "recording in '%s' (trace_id %s): merge that "
						      "recording's files first",
						      m->s[i].path, m->s[one].path,
						      m->s[one].trace_id);
		qsort(m->s, (size_t)m->n, sizeof(*m->s), cmp_seq);
		for (int i = 1; i < m->n; i++) {
			if (m->s[i].seq == m->s[i - 1].seq)
				return ft_usage_error("'%s' and '%s' are the same %s (%ld)",
						      m->s[i - 1].path, m->s[i].path,
						      strcmp(m->s[0].mode, "flight") ?
						      "segment" : "dump",
						      m->s[i].seq);
			if (strcmp(m->s[0].mode, "flight") && m->s[i].seq != m->s[i - 1].seq + 1 &&
			    m->join)
				return ft_usage_error("'%s' (segment %ld) does not follow '%s' "
						      "(segment %ld): segments %ld to %ld are "
						      "missing",
						      m->s[i].path, m->s[i].seq, m->s[i - 1].path,
						      m->s[i - 1].seq, m->s[i - 1].seq + 1,
						      m->s[i].seq - 1);
			if (strcmp(m->s[0].mode, "flight") && m->s[i].seq != m->s[i - 1].seq + 1)
				ft_warn("segments %ld to %ld of the rotation are missing: the "
					"merged file has a hole there",
					m->s[i - 1].seq + 1, m->s[i].seq - 1);
		}
		for (int i = 0; i < m->n; i++)
			if (m->s[i].has_user_offset || m->s[i].name)
				return ft_usage_error("--name and --offset are for separate "
						      "recordings; '%s' is part of one recording",
						      m->s[i].path);
	}
	return 0;
}

/* The DATE/OFFSET alignment of s against the first file, in ns. */
static int src_shift(struct rpt_merge *m, struct rpt_merge_src *s)
{
	const struct fmt_info *a = m->s[0].in, *b = s->in;
	int64_t d = (b->date_offset_ns + b->ts_offset_ns) - (a->date_offset_ns + a->ts_offset_ns);

	if (m->one_recording) {
		s->shift = 0;
		return 0;
	}
	d += s->user_offset - m->s[0].user_offset;
	if (d && a->has_tsc2nsec)
		return ft_error("cannot shift '%s' by %lld ns: its time stamps are TSC ticks",
				s->path, (long long)d);
	s->shift = d;
	return 0;
}

/* ---- output buffers ------------------------------------------------------------------ */

static int add_out_buf(struct rpt_merge *m, const char *name, const char *clock)
{
	char **nn = realloc(m->out_name, (size_t)(m->nout + 1) * sizeof(*nn));
	const char **nc;

	if (!nn)
		return -ENOMEM;
	m->out_name = nn;
	nc = realloc(m->out_clock, (size_t)(m->nout + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	m->out_clock = nc;
	m->out_name[m->nout] = strdup(name);
	m->out_clock[m->nout] = clock;
	if (!m->out_name[m->nout])
		return -ENOMEM;
	return m->nout++;
}

/* One recording: its buffers by name.  Separate: NAME, NAME:INSTANCE. */
static int plan_buffers(struct rpt_merge *m)
{
	for (int i = 0; i < m->n; i++) {
		struct rpt_merge_src *s = &m->s[i];

		if (!s->name) {
			const char *base = strrchr(s->path, '/');
			size_t l;

			base = base ? base + 1 : s->path;
			l = strlen(base);
			if (l > 4 && !strcmp(base + l - 4, ".dat"))
				l -= 4;
			s->name_alloc = strndup(base, l);
			if (!s->name_alloc)
				return -ENOMEM;
			s->name = s->name_alloc;
		}
		s->out_buf = calloc((size_t)s->in->nbuffers + 1, sizeof(int));
		if (!s->out_buf)
			return -ENOMEM;
		for (int b = 0; b < s->in->nbuffers; b++) {
			const struct fmt_buffer *fb = &s->in->buffers[b];
			char *nm = NULL;
			int k = -1;

			if (fb->page_size && fb->page_size != s->in->page_size)
				return ft_error("cannot merge '%s': buffer '%s' has %u-byte pages, "
						"the file %u", s->path, fb->name, fb->page_size,
						s->in->page_size), -ECANCELED;
			for (int c = 0; c < fb->ncpus; c++)
				if (fb->cpus[c].cpu > m->maxcpu)
					m->maxcpu = fb->cpus[c].cpu;
			if (m->one_recording) {
				nm = strdup(fb->name);
			} else if (asprintf(&nm, "%s%s%s", s->name, fb->name[0] ? ":" : "",
					    fb->name) < 0) {
				nm = NULL;
			}
			if (!nm)
				return -ENOMEM;
			for (int o = 0; o < m->nout; o++)
				if (!strcmp(m->out_name[o], nm))
					k = o;
			if (k >= 0 && !m->one_recording) {
				ft_usage_error("two inputs would make the buffer '%s': name them "
					       "with --name FILE=NAME", nm);
				free(nm);
				return -EINVAL;
			}
			if (k < 0)
				k = add_out_buf(m, nm, fb->clock);
			free(nm);
			if (k < 0)
				return k;
			s->out_buf[b] = k;
		}
	}
	return 0;
}

/* ---- the events ------------------------------------------------------------------------ */

/* Was this record written already (an overlap of flight dumps)?  Notes it if not. */
static int seen(struct rpt_merge_last *l, uint64_t ts, const void *data, size_t size, bool *dup)
{
	uint64_t h = rpt_hash_bytes(data, size);

	*dup = false;
	if (l->any && ts < l->ts) {
		*dup = true;
		return 0;
	}
	if (!l->any || ts > l->ts) {
		l->ts = ts;
		l->any = true;
		l->nh = 0;
	}
	for (int i = 0; i < l->nh; i++)
		if (l->hash[i] == h) {
			*dup = true;
			return 0;
		}
	if (l->nh == l->caph) {
		int cap = l->caph ? l->caph * 2 : 8;
		uint64_t *v = realloc(l->hash, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->hash = v;
		l->caph = cap;
	}
	l->hash[l->nh++] = h;
	return 0;
}

static int copy_events(struct rpt_merge *m, struct rpt_merge_src *s)
{
	struct fmt_iter *it;
	const struct fmt_event *ev;
	int rc, err = 0, damaged = 0;

	err = fmt_iter_new(s->r, NULL, &it);
	if (err)
		return ft_error("'%s': %s", s->path, fmt_reader_error(s->r)), -ECANCELED;
	while ((rc = fmt_iter_next(it, &ev)) != 0) {
		int ix;
		int64_t loss;
		uint64_t raw, shown;
		bool dup = false;

		if (rc < 0) {
			/* kept apart from err, which the next event resets: the exit says it */
			ft_error("'%s': %s", s->path, fmt_reader_error(s->r));
			damaged = -ECANCELED;
			continue; /* the other CPUs' damage is said too */
		}
		ix = s->out_buf[ev->buffer] * (m->maxcpu + 1) + ev->rec.cpu;
		if (s->shift < 0 && (uint64_t)-s->shift > ev->raw_ts) {
			ft_error("'%s': --offset moves an event before time 0", s->path);
			err = -ECANCELED;
			break;
		}
		raw = ev->raw_ts + (uint64_t)s->shift;
		loss = ev->rec.missed_events;
		if (m->one_recording &&
		    (err = seen(&m->last[ix], raw, ev->rec.data, (size_t)ev->rec.size, &dup)))
			break;
		if (dup) {
			s->dups++;
			if (loss)
				m->carried[ix] =
					m->carried[ix] < 0 || loss < 0 ? -1 : m->carried[ix] + loss;
			continue;
		}
		if (m->carried[ix]) {
			loss = m->carried[ix] < 0 || loss < 0 ? -1 : m->carried[ix] + loss;
			m->carried[ix] = 0;
		}
		if (loss)
			s->losses++;
		err = rpt_enc_add(&m->enc[ix], s->in, raw, ev->rec.data, (uint32_t)ev->rec.size,
				  loss);
		if (err)
			break;
		shown = ev->rec.ts + (uint64_t)s->shift;
		if (!s->events || shown < s->first_ts)
			s->first_ts = shown;
		if (shown > s->last_ts)
			s->last_ts = shown;
		s->events++;
		m->written++;
	}
	fmt_iter_free(it);
	if (err && err != -ECANCELED)
		ft_error("cannot merge '%s': %s", s->path, strerror(-err));
	return err ? err : damaged;
}

/* ---- metadata ------------------------------------------------------------------------ */

struct skip_arg {
	const struct rpt_merge *m;
	int src;
};

static bool skip_opt(void *arg, const struct fmt_option *o)
{
	const struct skip_arg *sa = arg;

	switch (o->id) {
	case FMT_OPT_FT_CHECKSUMS:
	case FMT_OPT_FT_DIGEST:
	case FMT_OPT_CPUSTAT:		/* written per source below */
		return true;
	case FMT_OPT_FT_META:
	case FMT_OPT_FT_RECSTATS:
	case FMT_OPT_FT_BPF_DROPS:
	case FMT_OPT_FT_BUFFILL:
	case FMT_OPT_FT_CPUSTAT_START:
	case FMT_OPT_FT_SLICE:
		/* of one recording: kept when the output is that recording */
		return !sa->m->one_recording;
	default:
		return false;
	}
}

/*
 * The CPU statistics trace-cmd prints in `report --stat`: of the last
 * segment for one recording (the kernel's counters run on), of every
 * source under its buffer's new name otherwise.
 */
static int copy_cpustats(struct rpt_merge *m, struct fmt_writer *w, const struct rpt_merge_src *s)
{
	const struct fmt_option *o;
	char buf[256] = "";
	int err = 0;

	for (int i = 0; !err && (o = fmt_reader_option(s->r, FMT_OPT_CPUSTAT, i)); i++) {
		const char *t = o->data;
		size_t n = o->size;
		char *text, *nl;
		int cpu;
		char name[320];

		while (n && t[n - 1] == '\0')
			n--;
		text = strndup(t, n);
		if (!text)
			return -ENOMEM;
		if (!strncmp(text, "\nBuffer: ", 9)) {
			snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(text + 9, "\n"), text + 9);
			free(text);
			continue;
		}
		nl = strchr(text, '\n');
		if (sscanf(text, "CPU: %d", &cpu) == 1 && nl) {
			if (m->one_recording)
				snprintf(name, sizeof(name), "%s", buf);
			else
				snprintf(name, sizeof(name), "%s%s%s", s->name, buf[0] ? ":" : "",
					 buf);
			err = fmt_writer_cpustat(w, name, cpu, nl + 1);
		}
		free(text);
	}
	return err;
}

static int merge_option(struct rpt_merge *m, struct fmt_writer *w)
{
	char *text = NULL;
	const char *v;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;
	static const char *const keys[] = { FMT_META_COMMAND_LINE, FMT_META_HOSTNAME,
					    FMT_META_RECORDER, FMT_META_RECORDING_MODE,
					    FMT_META_TRACE_ID };

	if (!f)
		return -ENOMEM;
	fprintf(f, "merge_kind=%s\nsources=%d\n", m->one_recording ? "one_recording" : "buffers",
		m->n);
	for (int i = 0; i < m->n; i++) {
		const struct rpt_merge_src *s = &m->s[i];
		const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
		struct fmt_digest dg;
		const struct fmt_meta *mt = fmt_reader_meta(s->r);

		fprintf(f, "source.%d.file=%s\n", i, base);
		if (!m->one_recording)
			fprintf(f, "source.%d.buffer=%s\n", i, s->name);
		if (s->in->trace_id)
			fprintf(f, "source.%d.trace_id=%016" PRIx64 "\n", i, s->in->trace_id);
		if (fmt_reader_digest(s->r, &dg) > 0)
			fprintf(f, "source.%d.digest=%08x\n", i, dg.crc);
		if (s->seq >= 0)
			fprintf(f, "source.%d.%s=%ld\n", i,
				strcmp(s->mode, "flight") ? "segment" : "dump", s->seq);
		fprintf(f, "source.%d.events=%" PRIu64 "\nsource.%d.duplicates=%" PRIu64 "\n"
			"source.%d.shift_ns=%" PRId64 "\n", i, s->events, i, s->dups, i, s->shift);
		for (size_t k = 0; mt && !m->one_recording && k < sizeof(keys) / sizeof(*keys); k++)
			if ((v = fmt_kv_get(&mt->all, keys[k])))	/* whole, however long */
				fprintf(f, "source.%d.%s=%s\n", i, keys[k], v);
	}
	if (fclose(f) || len > UINT32_MAX - 1) {
		free(text);
		return -ENOMEM;
	}
	err = fmt_writer_option(w, FMT_OPT_FT_MERGE, text, (uint32_t)len + 1);
	free(text);
	return err;
}

/*
 * Separate recordings keep no recording's metadata, but the keys that say
 * how to read the BPF stack copies go with the process maps and symbol
 * tables, which are the first input's: from the first input that has
 * them, so that callgraph unwinds the merged file as it did the input.
 */
static int stack_meta(struct rpt_merge *m, struct fmt_writer *w)
{
	static const char *const keys[] = { FMT_META_BPF_USER_STACK,
					    FMT_META_BPF_USER_STACK_PROFILE };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err = 0;

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < m->n; i++) {
		const struct fmt_meta *mt = fmt_reader_meta(m->s[i].r);
		const char *v = mt ? fmt_kv_get(&mt->all, keys[0]) : NULL;

		if (!v)
			continue;
		fprintf(f, "%s=%s\n", keys[0], v);
		if ((v = fmt_kv_get(&mt->all, keys[1])))
			fprintf(f, "%s=%s\n", keys[1], v);
		break;
	}
	if (fclose(f))
		err = -ENOMEM;
	else if (len)
		err = fmt_writer_option_str(w, FMT_OPT_FT_META, text);
	free(text);
	return err;
}

static int write_meta(struct rpt_merge *m, struct fmt_writer *w, const char **what,
		      bool *have_cpucount)
{
	const struct fmt_info *a = m->s[0].in;
	struct fmt_set fs = { 0 };
	const struct fmt_blob **tx = calloc((size_t)m->n, sizeof(*tx));
	char *text = NULL;
	size_t len = 0;
	int err;

	if (!tx)
		return -ENOMEM;
	*what = "headers";
	err = fmt_writer_headers(w, a->header_page.data, a->header_page.len, a->header_event.data,
				 a->header_event.len);
	for (int i = 0; i < m->n && !err; i++) {
		fs.src = i;
		*what = "event formats";
		err = fmt_reader_formats(m->s[i].r, collect_format, &fs);
		if (!err && fs.conflict) {
			ft_error("cannot merge '%s' with '%s': the event %s has another format "
				 "there; %s", m->s[i].path, m->s[0].path, fs.conflict, refuse_hint);
			err = -ECANCELED;
		}
	}
	for (int i = 0; i < fs.n && !err; i++)
		err = !strcmp(fs.v[i].system, "ftrace") ?
			      fmt_writer_ftrace_format(w, fs.v[i].text, fs.v[i].len) :
			      fmt_writer_event_format(w, fs.v[i].system, fs.v[i].text, fs.v[i].len);
	fmt_set_release(&fs);
	if (!err) {
		*what = "kallsyms";
		for (int i = 0; i < m->n; i++)
			tx[i] = &m->s[i].in->kallsyms;
		text = lines_union(tx, m->n, &len);
		err = text ? fmt_writer_kallsyms(w, text, len) : -ENOMEM;
		free(text);
	}
	if (!err) {
		*what = "printk formats";
		for (int i = 0; i < m->n; i++)
			tx[i] = &m->s[i].in->printk;
		text = lines_union(tx, m->n, &len);
		err = text ? fmt_writer_printk(w, text, len) : -ENOMEM;
		free(text);
	}
	if (!err) {
		*what = "cmdlines";
		text = cmdlines_union(m, &len);
		err = text ? fmt_writer_cmdlines(w, text, len) : -ENOMEM;
		free(text);
	}
	if (!err) {
		struct skip_arg sa = { m, 0 };

		*what = "options";
		err = rpt_copy_options(m->s[0].r, w, skip_opt, &sa, have_cpucount);
		if (!err && !m->one_recording)
			err = stack_meta(m, w);
	}
	for (int i = 0; i < m->n && !err; i++) {
		*what = "CPU statistics";
		if (!m->one_recording || i == m->n - 1)
			err = copy_cpustats(m, w, &m->s[i]);
	}
	free(tx);
	return err;
}

static int write_merge(struct rpt_merge *m)
{
	struct fmt_writer_opts wo;
	struct fmt_writer *w = NULL;
	const char *what = "";
	bool have_cpucount = false;
	int err, nstreams, i;

	/* the writer's own temporary file beside OUT, renamed over it at close */
	rpt_writer_opts_like(m->s[0].in, &wo);
	err = rpt_writer_open(m->out_path, &wo, &w);
	if (err)
		return ft_error("cannot create '%s': %s", m->out_path, strerror(-err)), -ECANCELED;
	nstreams = m->nout * (m->maxcpu + 1);
	m->wb = calloc((size_t)m->nout + 1, sizeof(*m->wb));
	m->enc = calloc((size_t)nstreams + 1, sizeof(*m->enc));
	m->last = calloc((size_t)nstreams + 1, sizeof(*m->last));
	m->carried = calloc((size_t)nstreams + 1, sizeof(*m->carried));
	if (!m->wb || !m->enc || !m->last || !m->carried) {
		err = -ENOMEM;
		goto fail;
	}
	err = write_meta(m, w, &what, &have_cpucount);
	if (err == -ECANCELED) {
		rpt_writer_abort(w);
		return err;
	}
	what = "buffers";
	for (i = 0; i < m->nout && !err; i++)
		err = fmt_wbuf_new(w, m->out_name[i], m->out_clock[i], &m->wb[i]);
	for (i = 0; i < nstreams && !err; i++) {
		m->enc[i].wb = m->wb[i / (m->maxcpu + 1)];
		m->enc[i].cpu = i % (m->maxcpu + 1);
	}
	if (err)
		goto fail;
	for (i = 0; i < m->n; i++) {
		ft_info("merge: '%s' (%s)", m->s[i].path,
			m->one_recording ? "in order" : m->s[i].name);
		err = copy_events(m, &m->s[i]);
		if (err) {
			rpt_writer_abort(w);
			return err;
		}
	}
	for (i = 0; i < nstreams && !err; i++)
		err = rpt_enc_flush(&m->enc[i]);
	if (!err) {
		what = "merge metadata";
		err = merge_option(m, w);
	}
	if (!err && !have_cpucount) {
		uint32_t n = (uint32_t)(m->maxcpu + 1);

		for (i = 0; i < m->n; i++)
			if (m->s[i].in->cpus > 0 && (uint32_t)m->s[i].in->cpus > n)
				n = (uint32_t)m->s[i].in->cpus;
		err = fmt_writer_cpucount(w, n);
	}
	if (err)
		goto fail;
	return rpt_out_finish(w, NULL, m->out_path);
fail:
	return rpt_out_fail(w, NULL, m->out_path, what, err);
}

/* ---- the whole ------------------------------------------------------------------------- */

void rpt_merge_release(struct rpt_merge *m)
{
	int nstreams = m->nout * (m->maxcpu + 1);

	for (int i = 0; m->enc && i < nstreams; i++)
		rpt_enc_release(&m->enc[i]);
	for (int i = 0; m->last && i < nstreams; i++)
		free(m->last[i].hash);
	for (int i = 0; i < m->nout; i++)
		free(m->out_name[i]);
	for (int i = 0; m->s && i < m->n; i++) {
		fmt_reader_close(m->s[i].r);
		free(m->s[i].out_buf);
		free(m->s[i].name_alloc);
	}
	free(m->out_name);
	free(m->out_clock);
	free(m->enc);
	free(m->last);
	free(m->carried);
	free(m->wb);
	free(m->s);
}

/* Open the inputs and decide how they join; 0 or an exit code after the message. */
int rpt_merge_open(struct rpt_merge *m)
{
	struct stat so;
	bool have_out = m->out_path && stat(m->out_path, &so) == 0;
	int err;

	for (int i = 0; i < m->n; i++) {
		struct stat si;
		char *open_err = NULL;

		if (have_out && stat(m->s[i].path, &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino)
			return ft_usage_error("the output '%s' is the input '%s'", m->out_path,
					      m->s[i].path);
		for (int k = 0; k < i; k++) {
			struct stat sk;

			if (stat(m->s[i].path, &si) == 0 && stat(m->s[k].path, &sk) == 0 &&
			    si.st_dev == sk.st_dev && si.st_ino == sk.st_ino)
				return ft_usage_error("'%s' is given twice", m->s[i].path);
		}
		err = fmt_reader_open(m->s[i].path, FMT_OPEN_LAZY_FORMATS, &m->s[i].r, &open_err);
		if (err) {
			ft_error("%s", open_err ? open_err : strerror(-err));
			free(open_err);
			return EXIT_FAIL;
		}
		m->s[i].in = fmt_reader_info(m->s[i].r);
	}
	return check_inputs(m);
}

/* Shift, buffers, the file; 0 or an exit code after the message. */
int rpt_merge_write(struct rpt_merge *m)
{
	int rc, err;

	for (int i = 0; i < m->n; i++)
		if ((rc = src_shift(m, &m->s[i])))
			return rc;
	err = plan_buffers(m);
	if (err)
		return err == -EINVAL ? EXIT_USAGE : err == -ECANCELED ? EXIT_FAIL :
		       ft_error("out of memory");
	return write_merge(m) ? EXIT_FAIL : EXIT_OK;
}

int rpt_join_segments(char *const *paths, int n, char **tmp_path)
{
	struct rpt_merge m = { 0 };
	const char *dir = getenv("TMPDIR");
	char *out = NULL;
	int rc;

	*tmp_path = NULL;
	m.s = calloc((size_t)n, sizeof(*m.s));
	if (!m.s)
		return ft_error("out of memory");
	for (int i = 0; i < n; i++) {
		m.s[i].path = paths[i];
		m.s[i].seq = -1;
	}
	m.n = n;
	m.join = true;
	rc = rpt_merge_open(&m);
	if (!rc && asprintf(&out, "%s/flytrap-joined-%d.dat", dir && *dir ? dir : "/tmp",
			    (int)getpid()) < 0) {
		out = NULL;
		rc = ft_error("out of memory");
	}
	if (!rc) {
		m.out_path = out;
		/*
		 * removed on a signal from its rename into place until the caller
		 * has opened and removed it (the name, ours by pid, stays registered)
		 */
		rpt_clean_add(out);
		ft_info("reading %d files of one recording through '%s'", n, out);
		rc = rpt_merge_write(&m);
	}
	rpt_merge_release(&m);
	if (rc) {
		free(out);
		return rc;
	}
	*tmp_path = out;
	return 0;
}
