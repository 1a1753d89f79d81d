// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap diff A B: what changed between two recordings.  Each file is
 * replayed once with the overhead analyzer (and the call graph analyzer
 * when call graphs are compared) handing back its result structure
 * (report/analyzers/overhead.h, report/analyzers/callgraph.h); nothing printed is parsed.
 * Rows are paired by name, never by pid or address, which differ between
 * recordings: syscalls by name, tasks by comm, event types by
 * "system:event", functions by name, call paths by the names from the
 * root.  Each figure is shown for A and B with its delta and ratio, and
 * counts also as rates: per second of each file's span, or per occurrence
 * of an event named with --per, so two recordings of different lengths
 * compare.  Rows that exist in one file only come first in every table.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyzers/callgraph.h"
#include "report/out/flamesvg.h"
#include "flytrap.h"
#include "report/out/json.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"
#include "report/out/outfile.h"

#define NM 4		/* figures per row at most */
#define NAME_W 15	/* name column; longer names get a line of their own */

enum { T_SYS, T_TASK, T_TYPE, T_FUNC, T_PATH, T_NR };
enum mkind { M_COUNT, M_NS, M_WEIGHT };	/* M_WEIGHT: ns, or samples (the call graph's unit) */

struct metric {
	const char *key;	/* JSON name */
	enum mkind kind;
};

struct tabdef {
	const char *json, *what;	/* JSON member, the kind of row in text */
	const char *unit;		/* of the first figure, in the lists of rows in one file */
	int nm;
	struct metric m[NM];
};

static const struct tabdef tabdefs[T_NR] = {
	[T_SYS] = { "syscalls", "syscall", "calls", 4, { { "count", M_COUNT }, { "p50_ns", M_NS },
						 { "p99_ns", M_NS }, { "total_ns", M_NS } } },
	[T_TASK] = { "tasks", "task", "on CPU", 3, { { "on_cpu_ns", M_NS }, { "syscalls", M_COUNT },
					   { "pids", M_COUNT } } },
	[T_TYPE] = { "event_types", "event", "events", 2,
		     { { "count", M_COUNT }, { "bytes", M_COUNT } } },
	[T_FUNC] = { "functions", "function", "calls", 3,
		     { { "count", M_COUNT }, { "total", M_WEIGHT }, { "self", M_WEIGHT } } },
	[T_PATH] = { "paths", "path", "calls", 3, { { "count", M_COUNT }, { "total", M_WEIGHT },
					   { "self", M_WEIGHT } } },
};

struct drow {
	char *key;
	bool in[2];
	uint64_t v[2][NM];
};

struct dtab {
	struct drow *rows;
	size_t n, cap;
	struct rpt_map idx;	/* hash of the key -> index + 1 */
};

struct side {
	const char *path;
	struct rpt_overhead_result ovh;
	struct rpt_cg_result cg;
	bool has_cg;
	bool raw_clock;
	bool partial;		/* damaged or cut: the figures cover the readable events */
	double basis;		/* seconds of the span, or occurrences of --per EVENT */
	char span[96];		/* "1.000000..1.199950 (199.950 ms)" */
	bool redacted;		/* by flytrap redact, with the key of key_id ("" unknown) */
	char key_id[17];
};

struct diff_args {
	bool sel_cg, sel_ovh, sel_sys;
	const char *per;	/* --per EVENT */
	const char *svg;
	int top;
	const char *files[2];
	int nfiles;
	struct rpt_opts opts;
};

struct diff {
	struct diff_args *A;
	struct side s[2];
	struct dtab t[T_NR];
	bool cg_compared;	/* both files have a call graph of one kind */
	const char *unit;	/* the call graphs' unit */
};

/* ---- tables -------------------------------------------------------------------- */

/* The row of key (created when new), NULL on ENOMEM; a 64-bit hash: collisions are not a concern */
static struct drow *row_get(struct dtab *t, const char *key)
{
	bool created;
	size_t *ix = rpt_map_get(&t->idx, rpt_hash_str(key), &created);

	if (!ix)
		return NULL;
	if (!created)
		return &t->rows[*ix - 1];
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		struct drow *nr = realloc(t->rows, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		t->rows = nr;
		t->cap = nc;
	}
	memset(&t->rows[t->n], 0, sizeof(t->rows[0]));
	t->rows[t->n].key = strdup(key);
	if (!t->rows[t->n].key)
		return NULL;
	*ix = ++t->n;
	return &t->rows[t->n - 1];
}

/* add v[0..nm) of one file's row; 0 or -ENOMEM */
static int row_add(struct dtab *t, const char *key, int side, const uint64_t *v, int nm)
{
	struct drow *r = row_get(t, key);
	int k;

	if (!r)
		return -ENOMEM;
	r->in[side] = true;
	for (k = 0; k < nm; k++)
		r->v[side][k] += v[k];
	return 0;
}

/*
 * An event type's name for pairing: the recorder puts its probes in the
 * group "flytrap_<recorder pid>", different in every recording, so that
 * group reads "flytrap_*".
 */
static const char *type_key(char *buf, size_t len, const char *name)
{
	size_t n = strspn(name + (strncmp(name, "flytrap_", 8) ? 0 : 8), "0123456789");

	if (strncmp(name, "flytrap_", 8) || !n || name[8 + n] != ':')
		return name;
	snprintf(buf, len, "flytrap_*%s", name + 8 + n);
	return buf;
}

static int fill_overhead(struct diff *d, int side)
{
	const struct rpt_overhead_result *o = &d->s[side].ovh;
	int err = 0;
	size_t k;

	for (k = 0; !err && k < o->nsyscalls; k++) {
		const struct rpt_ovh_syscall *s = &o->syscalls[k];
		uint64_t v[4] = { s->count, s->p50_ns, s->p99_ns, s->total_ns };

		err = row_add(&d->t[T_SYS], s->name, side, v, 4);
	}
	for (k = 0; !err && k < o->ntasks; k++) {
		const struct rpt_ovh_task *t = &o->tasks[k];
		uint64_t v[3] = { t->on_cpu_ns, t->syscalls, 1 };

		err = row_add(&d->t[T_TASK], t->comm, side, v, 3);
	}
	for (k = 0; !err && k < o->ntypes; k++) {
		uint64_t v[2] = { o->types[k].count, o->types[k].bytes };
		char key[160];

		err = row_add(&d->t[T_TYPE], type_key(key, sizeof(key), o->types[k].name), side,
			      v, 2);
	}
	return err;
}

/* the path of names from the root to node k, ';' between them, into *buf (grown) */
static int path_of(const struct rpt_cg_result *r, uint32_t k, char **buf, size_t *cap)
{
	uint32_t chain[1024], n = 0, p;
	size_t len = 0;

	for (p = k; p && p != RPT_CG_NONE && n < 1024; p = r->nodes[p].parent)
		chain[n++] = p;
	while (n--) {
		const char *nm = r->names[r->nodes[chain[n]].name];
		size_t l = strlen(nm);

		if (len + l + 2 > *cap) {
			size_t nc = (len + l + 2) * 2;
			char *nb = realloc(*buf, nc);

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = nc;
		}
		if (len)
			(*buf)[len++] = ';';
		memcpy(*buf + len, nm, l);
		len += l;
	}
	if (!*buf && !(*buf = calloc(1, 1)))
		return -ENOMEM;
	(*buf)[len] = 0;
	return 0;
}

static int fill_callgraph(struct diff *d, int side)
{
	const struct rpt_cg_result *r = &d->s[side].cg;
	struct rpt_cg_func *f = NULL;
	char *path = NULL;
	size_t nf = 0, cap = 0, k;
	int err = rpt_cg_functions(r, &f, &nf);

	for (k = 0; !err && k < nf; k++) {
		uint64_t v[3] = { f[k].count, f[k].total, f[k].self };

		err = row_add(&d->t[T_FUNC], r->names[f[k].name], side, v, 3);
	}
	for (k = 1; !err && k < r->n; k++) {
		const struct rpt_cg_node *n = &r->nodes[k];
		uint64_t v[3] = { n->count, n->total, n->self };

		if (!n->count && !n->total)
			continue;	/* a call still open at the end */
		err = path_of(r, (uint32_t)k, &path, &cap);
		if (!err)
			err = row_add(&d->t[T_PATH], path, side, v, 3);
	}
	free(path);
	free(f);
	return err;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* in one file only first (appeared, then vanished), then the largest change of the first figure */
static int cmp_row(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int ca = a->in[0] && a->in[1] ? 2 : a->in[1] ? 0 : 1;
	int cb = b->in[0] && b->in[1] ? 2 : b->in[1] ? 0 : 1;
	uint64_t da = absdiff(a->v[0][0], a->v[1][0]), db = absdiff(b->v[0][0], b->v[1][0]);

	if (ca != cb)
		return ca - cb;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* ---- running the analyzers ---------------------------------------------------------- */

static void fmt_span(struct side *s)
{
	uint64_t t0 = s->ovh.first_ts, t1 = s->ovh.last_ts;
	char b1[32], b2[32], b3[32];

	if (s->raw_clock)
		snprintf(s->span, sizeof(s->span), "%s..%s (%" PRIu64 " ticks)",
			 rpt_fmt_ts(b1, sizeof(b1), t0), rpt_fmt_ts(b2, sizeof(b2), t1), t1 - t0);
	else
		snprintf(s->span, sizeof(s->span), "%s..%s (%s)", rpt_fmt_ts(b1, sizeof(b1), t0),
			 rpt_fmt_ts(b2, sizeof(b2), t1), rpt_fmt_dur(b3, sizeof(b3), t1 - t0));
}

/* What redact wrote in the file's metadata: whether, and the key's id. */
static void note_redaction(struct side *s, struct fmt_reader *r)
{
	const struct fmt_meta *m = fmt_reader_meta(r);
	const char *id = m ? fmt_kv_get(&m->all, "redact_key_id") : NULL;

	s->redacted = m && fmt_kv_get(&m->all, "redacted_by");
	snprintf(s->key_id, sizeof(s->key_id), "%s", id ? id : "");
}

/*
 * Files whose tokens cannot match (other keys, or one redacted only): every
 * task shows as appeared and vanished, and one line says why.
 */
static void warn_redaction(const struct diff *d)
{
	const struct side *a = &d->s[0], *b = &d->s[1];
	static const char redo[] = "redact the originals together ('flytrap redact --key FILE "
				   "IN... -o DIR') or each with the same --key FILE";

	if (a->redacted != b->redacted)
		ft_warn("'%s' is redacted and '%s' is not: no task or path has the same name in "
			"both; %s", a->redacted ? a->path : b->path,
			a->redacted ? b->path : a->path, redo);
	else if (a->redacted && a->key_id[0] && b->key_id[0] && strcmp(a->key_id, b->key_id))
		ft_warn("'%s' and '%s' were redacted with other keys (key id %s, %s): no task or "
			"path has the same token in both; %s", a->path, b->path, a->key_id,
			b->key_id, redo);
}

/* replay one file with the analyzers diff needs; an exit code */
static int analyze_one(struct diff *d, int side)
{
	struct side *s = &d->s[side];
	struct rpt_opts o = d->A->opts;	/* the filters are shared; resolved per file */
	struct rpt_overhead_conf oc = { .result = &s->ovh };
	struct rpt_callgraph_conf cc = { .result = &s->cg };
	struct rpt_analyzer an[2] = { rpt_overhead_analyzer, rpt_callgraph_analyzer };
	const struct rpt_analyzer *list[2] = { &an[0], &an[1] };
	struct fmt_reader *r = NULL;
	char *msg = NULL;
	int rc;

	o.path = s->path;
	an[0].conf = &oc;
	an[1].conf = &cc;
	rc = fmt_reader_open(s->path, 0, &r, &msg);
	if (rc) {
		if (msg)
			ft_error("%s", msg);
		else
			ft_error("cannot open '%s': %s", s->path, strerror(-rc));
		free(msg);
		return EXIT_FAIL;
	}
	note_redaction(s, r);
	rc = rpt_opts_resolve(&o, r);
	if (rc == EXIT_OK) {
		rc = rpt_replay(r, &o, list, d->A->sel_cg ? 2 : 1);
		s->raw_clock = rpt_raw_clock();
		s->has_cg = d->A->sel_cg && !s->cg.empty;
		fmt_span(s);
		/* a damaged file: what could be read is compared, and the exit status says it */
		s->partial = rc == -EBADMSG && s->ovh.events;
		if (s->partial)
			ft_warn("'%s' has damaged or cut event data: its figures below are partial "
				"(they cover the readable events)", s->path);
		rc = s->partial ? EXIT_OK : rpt_replay_status(rc, r, &o, "diff");
	}
	fmt_reader_close(r);
	return rc;
}

/* the count of --per EVENT ("system:event", or "event" of any system) in one file */
static uint64_t per_count(const struct rpt_overhead_result *o, const char *ev)
{
	uint64_t n = 0;
	size_t k;

	for (k = 0; k < o->ntypes; k++) {
		char key[160];
		const char *nm = type_key(key, sizeof(key), o->types[k].name), *c = strchr(nm, ':');

		if (!strcmp(nm, ev) || (!strchr(ev, ':') && c && !strcmp(c + 1, ev)))
			n += o->types[k].count;
	}
	return n;
}

static int set_basis(struct diff *d)
{
	int k;

	for (k = 0; k < 2; k++) {
		struct side *s = &d->s[k];

		if (d->A->per) {
			s->basis = (double)per_count(&s->ovh, d->A->per);
			if (!s->basis)
				return ft_error("cannot count per '%s': '%s' has no such events",
						d->A->per, s->path);
		} else {
			s->basis = (double)(s->ovh.last_ts - s->ovh.first_ts) /
				   (s->raw_clock ? 1.0 : 1e9);
		}
	}
	return EXIT_OK;
}

static int compare(struct diff *d)
{
	int k, t, err = 0;

	for (t = 0; t < T_NR; t++)
		rpt_map_init(&d->t[t].idx, sizeof(size_t));
	for (k = 0; k < 2; k++) {
		int rc = analyze_one(d, k);

		if (rc)
			return rc;
	}
	k = set_basis(d);
	if (k)
		return k;
	d->cg_compared = d->s[0].has_cg && d->s[1].has_cg && d->s[0].cg.source == d->s[1].cg.source;
	d->unit = d->s[1].has_cg ? d->s[1].cg.unit : d->s[0].has_cg ? d->s[0].cg.unit : "ns";
	for (k = 0; !err && k < 2; k++) {
		err = fill_overhead(d, k);
		if (!err && d->cg_compared)
			err = fill_callgraph(d, k);
	}
	if (err)
		return ft_error("cannot compare '%s' and '%s': %s", d->s[0].path, d->s[1].path,
				strerror(-err));
	for (t = 0; t < T_NR; t++)
		if (d->t[t].n)
			qsort(d->t[t].rows, d->t[t].n, sizeof(struct drow), cmp_row);
	return EXIT_OK;
}

/* ---- text -------------------------------------------------------------------------- */

static const char *fmt_count(char *buf, size_t len, uint64_t v)
{
	/* at most 8 characters */
	if (v < 100000000ULL)
		snprintf(buf, len, "%" PRIu64, v);
	else if (v < 100000000000ULL)
		snprintf(buf, len, "%.1fM", (double)v / 1e6);
	else
		snprintf(buf, len, "%.2e", (double)v);
	return buf;
}

static bool is_time(const struct diff *d, enum mkind k)
{
	return k == M_NS || (k == M_WEIGHT && strcmp(d->unit, "samples"));
}

static const char *fmt_val(const struct diff *d, char *buf, size_t len, enum mkind k, uint64_t v)
{
	return is_time(d, k) ? rpt_fmt_dur_short(buf, len, v) : fmt_count(buf, len, v);
}

static const char *fmt_delta(const struct diff *d, char *buf, size_t len, enum mkind k, uint64_t a,
			     uint64_t b)
{
	char v[32];

	if (a == b)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%c%s", b > a ? '+' : '-',
			 fmt_val(d, v, sizeof(v), k, absdiff(a, b)));
	return buf;
}

/* B over A: "3.00x", "new" (only in B), "gone" (only in A), "-" (0 in both) */
static const char *fmt_ratio(char *buf, size_t len, double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || (a <= 0 && b <= 0))
		snprintf(buf, len, "-");
	else if (a <= 0)
		snprintf(buf, len, "new");
	else if (b <= 0)
		snprintf(buf, len, "gone");
	else if (b / a < 100)
		snprintf(buf, len, "%.2fx", b / a);
	else
		snprintf(buf, len, "%.0fx", b / a);
	return buf;
}

/* v per unit of the file's basis; NAN for a file of no span (one time stamp) */
static double rate(const struct side *s, uint64_t v)
{
	return s->basis > 0 ? (double)v / s->basis : NAN;
}

static const char *fmt_rate(const struct diff *d, char *buf, size_t len, enum mkind k, bool in,
			    double r)
{
	if (!in || !isfinite(r))
		snprintf(buf, len, "-");
	else if (is_time(d, k))
		rpt_fmt_dur_short(buf, len, (uint64_t)llround(r));
	else if (d->A->per)
		snprintf(buf, len, "%.4g", r);
	else if (r < 100000)
		snprintf(buf, len, "%.1f", r);
	else if (r < 1e9)
		snprintf(buf, len, "%.0f", r);
	else
		snprintf(buf, len, "%.2e", r);
	return buf;
}

/*
 * key in at most width columns: a call path keeps its end ("..." before it:
 * a leading "~" reads as a redaction token), other names their start
 */
static const char *fit_key(char *buf, size_t len, int t, const char *key, int width)
{
	size_t l = strlen(key);

	if (t == T_PATH && width > 3 && l > (size_t)width) {
		snprintf(buf, len, "...%s", key + l - (size_t)(width - 3));
		return buf;
	}
	return rpt_fit(buf, len, key, width);
}

/* the name column; a longer name on a line of its own */
static void print_name(FILE *f, int t, const char *key)
{
	char fit[512];

	if (strlen(key) <= NAME_W) {
		fprintf(f, "  %-*s", NAME_W, key);
		return;
	}
	fprintf(f, "  %s\n", fit_key(fit, sizeof(fit), t, key, 77));
	fprintf(f, "  %-*s", NAME_W, "");
}

static void print_more(FILE *f, size_t n, size_t top)
{
	if (n > top)
		fprintf(f, "  ... %zu more (see --json)\n", n - top);
}

/* A, B, delta, ratio, then each file's rate and their ratio */
static void rate_table(const struct diff *d, FILE *f, int t, int m, const char *title)
{
	const struct dtab *tab = &d->t[t];
	enum mkind k = tabdefs[t].m[m].kind;
	size_t i, top = (size_t)d->A->top;
	char b[7][40];

	if (!tab->n)
		return;
	fprintf(f, "\n%s\n", title);
	fprintf(f, "  %-*s %8s %8s %9s %6s %9s %9s %6s\n", NAME_W, tabdefs[t].what, "A", "B",
		"delta", "ratio", d->A->per ? "A per" : "A /s", d->A->per ? "B per" : "B /s",
		"ratio");
	for (i = 0; i < tab->n && i < top; i++) {
		const struct drow *r = &tab->rows[i];
		double ra = rate(&d->s[0], r->v[0][m]), rb = rate(&d->s[1], r->v[1][m]);

		print_name(f, t, r->key);
		fprintf(f, " %8s %8s %9s %6s %9s %9s %6s\n",
			r->in[0] ? fmt_val(d, b[0], 40, k, r->v[0][m]) : "-",
			r->in[1] ? fmt_val(d, b[1], 40, k, r->v[1][m]) : "-",
			fmt_delta(d, b[2], 40, k, r->v[0][m], r->v[1][m]),
			fmt_ratio(b[3], 40, (double)r->v[0][m], (double)r->v[1][m]),
			fmt_rate(d, b[4], 40, k, r->in[0], ra),
			fmt_rate(d, b[5], 40, k, r->in[1], rb), fmt_ratio(b[6], 40, ra, rb));
	}
	print_more(f, tab->n, top);
}

/* two figures side by side, each as A, B and ratio */
static void pair_table(const struct diff *d, FILE *f, int t, int m1, int m2, const char *title)
{
	const struct dtab *tab = &d->t[t];
	const struct metric *x = &tabdefs[t].m[m1], *y = &tabdefs[t].m[m2];
	size_t i, top = (size_t)d->A->top;
	char b[6][40], h[4][24];
	const char *l1 = t == T_SYS ? "p50" : "total", *l2 = t == T_SYS ? "p99" : "self";

	if (!tab->n)
		return;
	fprintf(f, "\n%s\n", title);
	snprintf(h[0], sizeof(h[0]), "%s A", l1);
	snprintf(h[1], sizeof(h[1]), "%s B", l1);
	snprintf(h[2], sizeof(h[2]), "%s A", l2);
	snprintf(h[3], sizeof(h[3]), "%s B", l2);
	fprintf(f, "  %-*s %9s %9s %6s %9s %9s %6s\n", NAME_W, tabdefs[t].what, h[0], h[1], "ratio",
		h[2], h[3], "ratio");
	for (i = 0; i < tab->n && i < top; i++) {
		const struct drow *r = &tab->rows[i];

		print_name(f, t, r->key);
		fprintf(f, " %9s %9s %6s %9s %9s %6s\n",
			r->in[0] ? fmt_val(d, b[0], 40, x->kind, r->v[0][m1]) : "-",
			r->in[1] ? fmt_val(d, b[1], 40, x->kind, r->v[1][m1]) : "-",
			fmt_ratio(b[2], 40, (double)r->v[0][m1], (double)r->v[1][m1]),
			r->in[0] ? fmt_val(d, b[3], 40, y->kind, r->v[0][m2]) : "-",
			r->in[1] ? fmt_val(d, b[4], 40, y->kind, r->v[1][m2]) : "-",
			fmt_ratio(b[5], 40, (double)r->v[0][m2], (double)r->v[1][m2]));
	}
	print_more(f, tab->n, top);
}

/* "in B only: syscall write, function beta; in A only: ..." as bullets, before the tables */
static void print_changes(const struct diff *d, FILE *f, bool sel[T_NR])
{
	static const char *const heads[2] = { "Appeared (in B only)", "Vanished (in A only)" };
	int which, t;

	for (which = 0; which < 2; which++) {
		bool any = false;

		for (t = 0; t < T_NR; t++) {
			const struct dtab *tab = &d->t[t];
			size_t i, shown = 0, n = 0;

			if (!sel[t])
				continue;
			for (i = 0; i < tab->n; i++) {
				const struct drow *r = &tab->rows[i];
				char v[32], key[512];
				int s = which ? 0 : 1;

				if (r->in[0] && r->in[1])
					continue;
				if (!r->in[s])
					continue;
				n++;
				if (shown >= (size_t)d->A->top)
					continue;
				if (!any)
					fprintf(f, "\n%s\n", heads[which]);
				any = true;
				fmt_val(d, v, sizeof(v), tabdefs[t].m[0].kind, r->v[s][0]);
				/* "  path     NAME: 12 calls" in 79 columns */
				fit_key(key, sizeof(key), t, r->key,
					79 - 13 - (int)(strlen(v) + strlen(tabdefs[t].unit)));
				fprintf(f, "  %-8s %s: %s %s\n", tabdefs[t].what, key, v,
					tabdefs[t].unit);
				shown++;
			}
			if (n > shown)
				fprintf(f, "  ... %zu more %ss (see --json)\n", n - shown,
					tabdefs[t].what);
		}
	}
}

static void print_head(const struct diff *d, FILE *f)
{
	const char *src[2];
	int k;

	fputs("Diff of\n", f);
	for (k = 0; k < 2; k++) {
		const struct side *s = &d->s[k];
		char path[80], lb[160];

		fprintf(f, "  %c: %s\n", 'A' + k, rpt_fit(path, sizeof(path), s->path, 74));
		fprintf(f, "     %s, %" PRIu64 " events\n", s->span, s->ovh.events);
		/* the one loss figure, as drops gives it: figures on lossy files differ by it */
		if (s->ovh.notes.fig.total)
			fprintf(f, "     lost: %s\n",
				rpt_loss_fig_text(&s->ovh.notes.fig, lb, sizeof(lb)));
		src[k] = s->has_cg ? s->cg.source_name : "none";
	}
	if (d->A->per)
		fprintf(f, "  rates: per occurrence of %s (A %.0f, B %.0f)\n", d->A->per,
			d->s[0].basis, d->s[1].basis);
	else
		fprintf(f, "  rates: per second of each file's span%s\n",
			d->s[0].raw_clock || d->s[1].raw_clock ?
			" (per clock tick on a raw counter clock)" : "");
	if (!d->A->sel_cg)
		return;
	if (d->cg_compared)
		fprintf(f, "  call graphs: %s (%s) in both\n", src[1], d->unit);
	else if (d->s[0].has_cg || d->s[1].has_cg)
		fprintf(f, "  call graphs not compared: A has %s data, B has %s\n", src[0], src[1]);
	else
		fputs("  call graphs: no call or stack data in either file\n", f);
}

static void print_text(const struct diff *d, FILE *f)
{
	const struct diff_args *A = d->A;
	bool sel[T_NR] = { [T_SYS] = A->sel_sys, [T_TASK] = A->sel_ovh, [T_TYPE] = A->sel_ovh,
			   [T_FUNC] = A->sel_cg, [T_PATH] = A->sel_cg };
	char title[128];
	const char *per = A->per ? "per occurrence" : "per second";

	print_head(d, f);
	print_changes(d, f, sel);
	if (A->sel_sys) {
		snprintf(title, sizeof(title), "Syscalls: calls, and calls %s", per);
		rate_table(d, f, T_SYS, 0, title);
		pair_table(d, f, T_SYS, 1, 2, "Syscalls: latency");
	}
	if (A->sel_ovh) {
		snprintf(title, sizeof(title), "Tasks (by name): on-CPU time, and on-CPU time %s",
			 per);
		rate_table(d, f, T_TASK, 0, title);
		snprintf(title, sizeof(title), "Event types: events, and events %s", per);
		rate_table(d, f, T_TYPE, 0, title);
	}
	if (A->sel_cg && d->cg_compared) {
		snprintf(title, sizeof(title), "Functions: calls, and calls %s", per);
		rate_table(d, f, T_FUNC, 0, title);
		snprintf(title, sizeof(title), "Functions: time (%s)", d->unit);
		pair_table(d, f, T_FUNC, 1, 2, title);
		snprintf(title, sizeof(title), "Call paths: calls, and calls %s", per);
		rate_table(d, f, T_PATH, 0, title);
		snprintf(title, sizeof(title), "Call paths: time (%s)", d->unit);
		pair_table(d, f, T_PATH, 1, 2, title);
	}
}

/* ---- JSON -------------------------------------------------------------------------- */

/* A ratio or rate: 12 significant digits, null when there is none */
static void json_num(struct rpt_json *j, double v, bool valid)
{
	char t[40];
	int n;

	if (!valid || !isfinite(v)) {
		rpt_json_null(j);
		return;
	}
	n = snprintf(t, sizeof(t), "%.12g", v);
	rpt_json_value(j, t, (size_t)n);
}

static void json_row(const struct diff *d, struct rpt_json *j, int t, const struct drow *r)
{
	const struct tabdef *td = &tabdefs[t];
	double ra = rate(&d->s[0], r->v[0][0]), rb = rate(&d->s[1], r->v[1][0]);
	char key[64];
	int s, m;

	rpt_json_obj(j);
	rpt_json_kstr(j, "name", r->key);
	rpt_json_kstr(j, "status",
		      r->in[0] && r->in[1] ? "both" : r->in[1] ? "appeared" : "vanished");
	for (s = 0; s < 2; s++) {
		if (!r->in[s]) {
			rpt_json_knull(j, s ? "b" : "a");
			continue;
		}
		rpt_json_kobj(j, s ? "b" : "a");
		for (m = 0; m < td->nm; m++)
			rpt_json_ku64(j, td->m[m].key, r->v[s][m]);
		rpt_json_obj_end(j);
	}
	rpt_json_kobj(j, "delta");
	for (m = 0; m < td->nm; m++)
		rpt_json_ki64(j, td->m[m].key, (int64_t)(r->v[1][m] - r->v[0][m]));
	rpt_json_obj_end(j);
	rpt_json_kobj(j, "ratio");
	for (m = 0; m < td->nm; m++) {
		rpt_json_key(j, td->m[m].key);
		json_num(j, (double)r->v[1][m] / (double)r->v[0][m],
			 r->in[0] && r->in[1] && r->v[0][m]);
	}
	rpt_json_obj_end(j);
	snprintf(key, sizeof(key), "rate_%s", td->m[0].key);
	rpt_json_kobj(j, key);
	rpt_json_key(j, "a");
	json_num(j, ra, r->in[0]);
	rpt_json_key(j, "b");
	json_num(j, rb, r->in[1]);
	rpt_json_key(j, "ratio");
	json_num(j, rb / ra, r->in[0] && r->in[1] && ra > 0);
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
}

static void json_side(const struct side *s, struct rpt_json *j)
{
	rpt_json_obj(j);
	rpt_json_kstr(j, "file", s->path);
	rpt_json_ku64(j, "first_ts", s->ovh.first_ts);
	rpt_json_ku64(j, "last_ts", s->ovh.last_ts);
	rpt_json_ku64(j, "duration_ns", s->ovh.last_ts - s->ovh.first_ts);
	rpt_json_ku64(j, "events", s->ovh.events);
	rpt_json_key(j, "lost");
	rpt_loss_fig_json(&s->ovh.notes.fig, j);
	rpt_json_kbool(j, "partial", s->partial);
	rpt_json_kbool(j, "raw_clock", s->raw_clock);
	rpt_json_key(j, "basis");
	json_num(j, s->basis, true);
	rpt_json_kstr_or_null(j, "callgraph_source", s->has_cg ? s->cg.source_name : NULL);
	rpt_json_obj_end(j);
}

static int print_json(const struct diff *d, FILE *f)
{
	const struct diff_args *A = d->A;
	bool sel[T_NR] = { [T_SYS] = A->sel_sys, [T_TASK] = A->sel_ovh, [T_TYPE] = A->sel_ovh,
			   [T_FUNC] = A->sel_cg, [T_PATH] = A->sel_cg };
	struct rpt_json j;
	size_t i;
	int t;

	if (rpt_json_init(&j, f, 0))
		return -ENOMEM;
	rpt_json_obj(&j);
	rpt_json_key(&j, "a");
	json_side(&d->s[0], &j);
	rpt_json_key(&j, "b");
	json_side(&d->s[1], &j);
	rpt_json_kstr(&j, "per", A->per ? A->per : "second");
	rpt_json_kobj(&j, "callgraph");
	rpt_json_kbool(&j, "compared", d->cg_compared);
	rpt_json_kstr_or_null(&j, "unit", d->cg_compared ? d->unit : NULL);
	rpt_json_obj_end(&j);
	for (t = 0; t < T_NR; t++) {
		if (!sel[t])
			continue;
		rpt_json_karr(&j, tabdefs[t].json);
		for (i = 0; i < d->t[t].n; i++)
			json_row(d, &j, t, &d->t[t].rows[i]);
		rpt_json_arr_end(&j);
	}
	rpt_json_obj_end(&j);
	RPT_JSON_LIT(&j, "\n");
	/* a failed write stays on the stream (ft_finish_stdout says it) */
	return rpt_json_done(&j) == -ENOMEM ? -ENOMEM : 0;
}

/* ---- the differential flame graph ------------------------------------------------------ */

static int write_svg(const struct diff *d)
{
	const char *svg = d->A->svg;
	struct rpt_flame_opts fo = { .differential = true };
	struct rpt_flame *fl;
	struct fmt_outfile of;
	char title[256];
	FILE *sf;
	int e, e2;

	if (!d->cg_compared) {
		/* an empty picture would pass for a result */
		ft_warn("no call graphs of one kind in both files: '%s' not written", svg);
		return EXIT_OK;
	}
	fl = rpt_flame_new();
	if (!fl)
		return ft_error("out of memory");
	e = rpt_cg_result_flame(&d->s[1].cg, fl);
	if (!e)
		e = rpt_cg_result_flame_base(&d->s[0].cg, fl);
	if (e) {
		rpt_flame_free(fl);
		return ft_error("cannot draw '%s': %s", svg, strerror(-e));
	}
	snprintf(title, sizeof(title), "flytrap diff: widths from B, red: grew in B, blue: shrank");
	fo.title = title;
	fo.unit = d->unit;
	sf = rpt_text_out_begin(svg, &of);
	if (!sf) {
		e = errno;
		rpt_flame_free(fl);
		return ft_error("cannot create '%s': %s", svg, strerror(e));
	}
	e = rpt_flame_svg_opts(fl, sf, &fo);
	e2 = rpt_text_out_end(sf, &of, !e);
	rpt_flame_free(fl);
	if (e || e2)
		return ft_error("cannot write '%s': %s", svg, strerror(e ? -e : -e2));
	return EXIT_OK;
}

/* ---- command ------------------------------------------------------------------------- */

static const char usage_text[] =
	"usage: flytrap diff [options] A B\n"
	"\n"
	"What changed from recording A to recording B: per syscall (calls, p50,\n"
	"p99), per task name (on-CPU time), per event type (events), per function\n"
	"and per call path (calls, total and self time), each for A and B with the\n"
	"delta and the ratio B/A, and counts as rates beside them: per second of\n"
	"each file's span, or per occurrence of --per EVENT.  Rows found in one file\n"
	"only are listed first.  Without a choice, all sections.\n"
	"\n"
	"  --syscalls         the syscall tables\n"
	"  --overhead         tasks' on-CPU time and event type rates\n"
	"  --callgraph        functions and call paths (calls, uprobes or stacks)\n"
	"  --per EVENT        rates per occurrence of EVENT (system:name or name)\n"
	"                     instead of per second\n"
	"  --top N            rows per table in text (default 20)\n"
	"  --svg FILE         a differential flame graph: widths from B, red where\n"
	"                     B grew, blue where it shrank\n"
	"\n"
	"common options (applied to both files):\n";

enum { D_O_CALLGRAPH = 1, D_O_OVERHEAD, D_O_SYSCALLS, D_O_PER, D_O_SVG, D_O_TOP };

static const struct ft_opt diff_opts[] = {
	FT_OPT_HELP_ENTRY, { "verbose", 'v', false, FT_OPT_ID_VERBOSE },
	{ "callgraph", 0, false, D_O_CALLGRAPH }, { "overhead", 0, false, D_O_OVERHEAD },
	{ "syscalls", 0, false, D_O_SYSCALLS }, { "per", 0, true, D_O_PER },
	{ "svg", 0, true, D_O_SVG }, { "top", 0, true, D_O_TOP }, { 0 },
};

/* one option of diff's own table: 0, or the exit code after the message */
static int diff_option(struct diff_args *A, int id, const char *v)
{
	uint64_t n;

	switch (id) {
	case D_O_CALLGRAPH: A->sel_cg = true; return 0;
	case D_O_OVERHEAD: A->sel_ovh = true; return 0;
	case D_O_SYSCALLS: A->sel_sys = true; return 0;
	}
	if (!*v)
		return ft_usage_error("--%s needs a value",
				      id == D_O_PER ? "per" : id == D_O_SVG ? "svg" : "top");
	if (id == D_O_PER) {
		A->per = v;
	} else if (id == D_O_SVG) {
		A->svg = v;
	} else {
		if (ft_parse_u64(v, &n) || !n || n > 1000000)
			return ft_usage_error("--top needs a number from 1 to 1000000, not '%s'",
					      v);
		A->top = (int)n;
	}
	return 0;
}

static int parse_args(struct diff_args *A, int argc, char **argv)
{
	static const char *const help[] = { usage_text, rpt_opts_help, FT_HELP_VERBOSE, NULL };
	struct ft_optparse p;
	int id, rc = 0;

	ft_opt_init(&p, argc, argv, diff_opts);
	ft_opt_add_table(&p, rpt_filter_opts);
	ft_opt_add_table(&p, rpt_json_opts);
	while (!rc && (id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR)
			rc = EXIT_USAGE;	/* the parser said why */
		else if (id == FT_OPT_OPERAND && A->nfiles == 2)
			rc = ft_usage_error("two files to compare, not more ('%s')", p.value);
		else if (id == FT_OPT_OPERAND)
			A->files[A->nfiles++] = p.value;
		else if (p.which == 0)
			rc = diff_option(A, id, p.value);
		else
			rc = rpt_opts_option(&A->opts, id, p.value);
	}
	if (rc)
		return rc;
	if (A->nfiles != 2)
		return ft_usage_error("two files to compare: flytrap diff A B");
	if (A->svg && (rc = rpt_svg_dest_check(A->svg)) != EXIT_OK)
		return rc;
	if (!A->sel_cg && !A->sel_ovh && !A->sel_sys)
		A->sel_cg = A->sel_ovh = A->sel_sys = true;
	if (A->svg && !A->sel_cg)
		return ft_usage_error("--svg draws the call graphs: it needs --callgraph");
	if (!A->top)
		A->top = 20;
	return EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args A;
	struct diff d;
	int rc, k;

	memset(&A, 0, sizeof(A));
	memset(&d, 0, sizeof(d));
	A.opts.out = stdout;
	rc = parse_args(&A, argc, argv);
	if (rc) {
		rpt_opts_release(&A.opts);
		return rc;
	}
	d.A = &A;
	d.s[0].path = A.files[0];
	d.s[1].path = A.files[1];
	rc = compare(&d);
	if (rc == EXIT_OK)
		warn_redaction(&d);
	if (rc == EXIT_OK) {
		if (!A.opts.json)
			print_text(&d, stdout);
		else if (print_json(&d, stdout))
			rc = ft_error("out of memory");
		if (A.svg)
			rc = write_svg(&d);
		/* partial figures are not a clean result (as in every analyzer) */
		if (rc == EXIT_OK && (d.s[0].partial || d.s[1].partial))
			rc = EXIT_FAIL;
	}
	for (k = 0; k < T_NR; k++) {
		size_t i;

		for (i = 0; i < d.t[k].n; i++)
			free(d.t[k].rows[i].key);
		free(d.t[k].rows);
		rpt_map_release(&d.t[k].idx);
	}
	for (k = 0; k < 2; k++) {
		rpt_overhead_result_release(&d.s[k].ovh);
		rpt_cg_result_release(&d.s[k].cg);
	}
	rpt_opts_release(&A.opts);
	return ft_finish_stdout(rc);
}
