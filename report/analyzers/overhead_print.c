// SPDX-License-Identifier: GPL-2.0-only
/*
 * overhead's output: the result overhead.c computes (struct
 * rpt_overhead_result), as text tables and as JSON.  Nothing here reads
 * the trace; analyze prints the same result inside its own document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flytrap.h"
#include "format/ftmeta.h"
#include "report/out/json.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"
#include "report/out/table.h"

/* ---- the recorder's statistics as text ----------------------------------------- */

/* "cpuN" keys of RECSTATS carry "name:value ..." per-CPU detail: one table row each */
#define RS_COLS 8
#define RS_ROWS 256

struct rs_table {
	int ncols, nrows;
	char col[RS_COLS][24];
	int colw[RS_COLS];
	char key[RS_ROWS][12];
	char val[RS_ROWS][RS_COLS][24];
	bool bad;			/* a token that does not fit the table */
};

static bool is_cpu_key(const char *p, size_t kl)
{
	size_t k;

	if (kl < 4 || kl > 10 || memcmp(p, "cpu", 3))
		return false;
	for (k = 3; k < kl; k++)
		if (p[k] < '0' || p[k] > '9')
			return false;
	return true;
}

static void rs_add(struct rs_table *t, const char *k, size_t kl, const char *v, size_t vl)
{
	const char *p = v, *end = v + vl;
	int r;

	if (t->nrows >= RS_ROWS) {
		t->bad = true;
		return;
	}
	r = t->nrows++;
	snprintf(t->key[r], sizeof(t->key[r]), "%.*s", (int)kl, k);
	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p)), *te = sp ? sp : end;
		const char *colon = memchr(p, ':', (size_t)(te - p));
		size_t nl, vl2;
		int c;

		if (te == p) {
			p++;
			continue;
		}
		if (!colon || colon == p) {
			t->bad = true;
			return;
		}
		nl = (size_t)(colon - p);
		vl2 = (size_t)(te - colon - 1);
		for (c = 0; c < t->ncols; c++)
			if (strlen(t->col[c]) == nl && !memcmp(t->col[c], p, nl))
				break;
		if (c == t->ncols) {
			if (c == RS_COLS || nl >= sizeof(t->col[0])) {
				t->bad = true;
				return;
			}
			memcpy(t->col[c], p, nl);
			t->col[c][nl] = 0;
			t->colw[c] = (int)nl;
			t->ncols++;
		}
		if (vl2 >= sizeof(t->val[r][c])) {
			t->bad = true;
			return;
		}
		memcpy(t->val[r][c], colon + 1, vl2);
		t->val[r][c][vl2] = 0;
		if ((int)vl2 > t->colw[c])
			t->colw[c] = (int)vl2;
		p = te;
	}
}

/* "  key          value": a long value wraps at spaces, continuation lines under its start */
static void rs_line(FILE *out, const char *k, int kl, const char *v, int vl)
{
	const int vcol = 31, width = 80;
	int col;

	if (kl > 28)
		kl = 28;
	fprintf(out, "  %-28.*s ", kl, k);
	col = vcol;
	while (vl > 0) {
		const char *sp = memchr(v, ' ', (size_t)vl);
		int wl = sp ? (int)(sp - v) : vl;

		if (col > vcol && col + 1 + wl > width) {
			fprintf(out, "\n%*s", vcol, "");
			col = vcol;
		} else if (col > vcol) {
			fputc(' ', out);
			col++;
		}
		if (wl > width - vcol)	/* one word longer than the column: cut it */
			wl = width - vcol;
		fwrite(v, 1, (size_t)wl, out);
		col += wl;
		v += wl;
		vl -= wl;
		while (vl > 0 && *v == ' ') {
			v++;
			vl--;
		}
		if (sp && v < sp + 1)	/* the rest of a cut word */
			while (vl > 0 && *v != ' ') {
				v++;
				vl--;
			}
	}
	fputc('\n', out);
}

struct rs_walk {
	FILE *out;
	bool cpu_lines;		/* second walk: only the per-CPU lines, wrapped */
	int cnt;
	struct rs_table *t;
};

static void rs_emit(void *arg, const char *k, int kl, const char *v, int vl)
{
	struct rs_walk *w = arg;

	if (w->cpu_lines) {
		if (is_cpu_key(k, (size_t)kl))
			rs_line(w->out, k, kl, v, vl);
		return;
	}
	if (w->t && is_cpu_key(k, (size_t)kl))
		rs_add(w->t, k, (size_t)kl, v, (size_t)vl);
	else
		rs_line(w->out, k, kl, v, vl);
	w->cnt++;
}

/* fn(arg, key, value) for every recorder statistic the result kept */
static void stats_each(const struct rpt_overhead_result *r, void *arg,
		       void (*fn)(void *arg, const char *k, int kl, const char *v, int vl))
{
	for (size_t k = 0; k < r->nstats; k++)
		fn(arg, r->stats[k].key, (int)strlen(r->stats[k].key), r->stats[k].value,
		   (int)strlen(r->stats[k].value));
}

/*
 * A recorder statistic of the result as a number: true when key is there
 * and its value is whole decimal digits (as format/meta.c reads them).
 */
static bool result_u64(const struct rpt_overhead_result *r, const char *key, uint64_t *v)
{
	for (size_t k = 0; k < r->nstats; k++)
		if (!strcmp(r->stats[k].key, key))
			return !ft_parse_decimal(r->stats[k].value, v);
	return false;
}

/* RECSTATS lines as text rows; returns how many */
static int print_recstats(const struct rpt_overhead_result *res, FILE *out)
{
	struct rs_walk w = { .out = out };
	struct rs_table *t = calloc(1, sizeof(*t));
	int r, c, width;

	w.t = t;
	stats_each(res, &w, rs_emit);
	if (!t || !t->nrows)
		goto out;
	/* per-CPU detail: a table when it fits 80 columns, else one wrapped line per CPU */
	for (width = 8, c = 0; c < t->ncols; c++)
		width += 2 + t->colw[c];
	if (!t->bad && t->ncols && width <= 78) {
		fprintf(out, "  %-6s", "");
		for (c = 0; c < t->ncols; c++)
			fprintf(out, "  %*s", t->colw[c], t->col[c]);
		fputc('\n', out);
		for (r = 0; r < t->nrows; r++) {
			fprintf(out, "  %-6s", t->key[r]);
			for (c = 0; c < t->ncols; c++)
				fprintf(out, "  %*s", t->colw[c],
					*t->val[r][c] ? t->val[r][c] : "-");
			fputc('\n', out);
		}
	} else {
		w.cpu_lines = true;	/* the table does not fit: the lines as they are, wrapped */
		stats_each(res, &w, rs_emit);
	}
out:
	free(t);
	return w.cnt;
}

/* ---- render ------------------------------------------------------------------- */

/*
 * The tables of the overhead report: one column list each gives the text
 * header and widths and the JSON keys (JSON-only columns have no header,
 * text-only ones no key); the cells of a row come from one function.
 */
static const struct rpt_col cpu_cols[] = {
	{ "CPU", "cpu", 3, 0 },
	{ "busy", "busy_ns", 12, 2 },
	{ "idle", "idle_ns", 12, 2 },
	{ "busy%", NULL, 6, 2 },
	{ "switches", "switches", 8, 2 },
	{ NULL, "sched_data", 0, 0 },
};
#define NCPU_COLS (sizeof(cpu_cols) / sizeof(cpu_cols[0]))

/* a pid-limited recording cannot tell busy from idle: null, not a guess */
static void cpu_cells(struct rpt_cell *c, const struct rpt_ovh_cpu *v, bool unknown,
		      char (*buf)[32])
{
	uint64_t all = v->busy_ns + v->idle_ns;

	snprintf(buf[2], sizeof(buf[2]), "%5.1f%%",
		 all ? 100.0 * (double)v->busy_ns / (double)all : 0.0);
	c[0] = rpt_cell_i64(v->cpu, NULL);
	c[1] = unknown ? rpt_cell_none() :
		rpt_cell_u64(v->busy_ns, rpt_fmt_dur(buf[0], sizeof(buf[0]), v->busy_ns));
	c[2] = unknown ? rpt_cell_none() :
		rpt_cell_u64(v->idle_ns, rpt_fmt_dur(buf[1], sizeof(buf[1]), v->idle_ns));
	c[3] = rpt_cell_str(buf[2]);
	c[4] = rpt_cell_u64(v->switches, NULL);
	c[5] = rpt_cell_bool(v->known);
}

static const struct rpt_col task_cols[] = {
	{ NULL, "pid", 0, 0 },
	{ NULL, "tgid", 0, 0 },
	{ NULL, "comm", 0, 0 },
	{ "task", NULL, -25, 0 },
	/* the headers from here on sit two columns left of their cells (as they always did) */
	{ "on-CPU", "on_cpu_ns", 12, 1, -2 },
	{ NULL, "off_cpu_ns", 0, 0 },
	{ "runnable", "runnable_ns", 12, 2 },
	{ "blocked", "blocked_ns", 12, 2 },
	{ NULL, "switches", 0, 0 },
	{ "syscalls", "syscalls", 8, 2 },
	{ NULL, "syscall_ns", 0, 0 },
	{ NULL, "exited", 0, 0 },
};
#define NTASK_COLS (sizeof(task_cols) / sizeof(task_cols[0]))

static void task_cells(struct rpt_cell *c, const struct rpt_ovh_task *t, char (*buf)[64])
{
	char pid[16], comm[40];

	/* the pid stays whole; a long name is cut with a visible '~' */
	snprintf(pid, sizeof(pid), "-%d%s", t->pid, t->exited ? "*" : "");
	snprintf(buf[0], sizeof(buf[0]), "%s%s",
		 rpt_fit(comm, sizeof(comm), t->comm, 25 - (int)strlen(pid)), pid);
	c[0] = rpt_cell_i64(t->pid, NULL);
	c[1] = rpt_cell_i64(t->tgid, NULL);
	c[2] = rpt_cell_str(t->comm);
	c[3] = rpt_cell_str(buf[0]);
	c[4] = rpt_cell_u64(t->on_cpu_ns, rpt_fmt_dur(buf[1], sizeof(buf[1]), t->on_cpu_ns));
	c[5] = rpt_cell_u64(t->runnable_ns + t->blocked_ns, NULL);
	c[6] = rpt_cell_u64(t->runnable_ns, rpt_fmt_dur(buf[2], sizeof(buf[2]), t->runnable_ns));
	c[7] = rpt_cell_u64(t->blocked_ns, rpt_fmt_dur(buf[3], sizeof(buf[3]), t->blocked_ns));
	c[8] = rpt_cell_u64(t->switches, NULL);
	c[9] = rpt_cell_u64(t->syscalls, NULL);
	c[10] = rpt_cell_u64(t->syscall_ns, NULL);
	c[11] = rpt_cell_bool(t->exited);
}

static const struct rpt_col syscall_cols[] = {
	{ NULL, "nr", 0, 0 },
	{ "syscall", "name", -14, 0 },
	{ "count", "count", 8, 1 },
	{ "errs", "errors", 5, 1 },
	{ "total", "total_ns", 9, 1 },
	{ "mean", "mean_ns", 8, 1 },
	{ NULL, "min_ns", 0, 0 },
	{ "p50", "p50_ns", 8, 1 },
	{ "p99", "p99_ns", 8, 1 },
	{ "max", "max_ns", 8, 1 },
	{ NULL, "from_histograms", 0, 0 },
};
#define NSYSCALL_COLS (sizeof(syscall_cols) / sizeof(syscall_cols[0]))

/* text: the name cut to its column, durations short (JSON: whole, in ns) */
static void syscall_cells(struct rpt_cell *c, const struct rpt_ovh_syscall *v, char (*buf)[128])
{
	c[0] = rpt_cell_i64(v->nr, NULL);
	c[1] = rpt_cell_str(v->name);
	c[1].text = rpt_fit(buf[0], sizeof(buf[0]), v->name, 14);
	c[2] = rpt_cell_u64(v->count, NULL);
	c[3] = rpt_cell_u64(v->errors, NULL);
	c[4] = rpt_cell_u64(v->total_ns, rpt_fmt_dur_short(buf[1], sizeof(buf[1]), v->total_ns));
	c[5] = rpt_cell_u64(v->mean_ns, rpt_fmt_dur_short(buf[2], sizeof(buf[2]), v->mean_ns));
	c[6] = rpt_cell_u64(v->min_ns, NULL);
	c[7] = rpt_cell_u64(v->p50_ns, rpt_fmt_dur_short(buf[3], sizeof(buf[3]), v->p50_ns));
	c[8] = rpt_cell_u64(v->p99_ns, rpt_fmt_dur_short(buf[4], sizeof(buf[4]), v->p99_ns));
	c[9] = rpt_cell_u64(v->max_ns, rpt_fmt_dur_short(buf[5], sizeof(buf[5]), v->max_ns));
	c[10] = rpt_cell_bool(v->from_hist);
}

static const struct rpt_col type_cols[] = {
	{ NULL, "id", 0, 0 },
	{ "event", "event", -30, 0 },
	{ "count", "count", 10, 1 },
	{ "bytes", "bytes", 11, 1 },
	{ "share", "share", 6, 1 },
	/* the header sits one column right of its cells (the layout the goldens keep) */
	{ "peak/s/CPU", NULL, 10, 1, 1 },
	{ NULL, "peak_rate", 0, 0 },
	{ NULL, "peak_cpu", 0, 0 },
};
#define NTYPE_COLS (sizeof(type_cols) / sizeof(type_cols[0]))

static void type_cells(struct rpt_cell *c, const struct rpt_ovh_type *t, uint64_t all,
		       char (*buf)[128])
{
	double share = all ? (double)t->bytes / (double)all : 0.0;

	snprintf(buf[2], sizeof(buf[2]), "%5.1f%%", 100.0 * share);
	snprintf(buf[3], sizeof(buf[3]), "%7" PRIu64 " @%d", t->peak_rate, t->peak_cpu);
	c[0] = rpt_cell_i64(t->id, NULL);
	c[1] = rpt_cell_str(t->name);
	c[1].text = rpt_fit(buf[0], sizeof(buf[0]), t->name, 30);
	c[2] = rpt_cell_u64(t->count, NULL);
	c[3] = rpt_cell_u64(t->bytes, rpt_fmt_bytes(buf[1], sizeof(buf[1]), t->bytes));
	c[4] = rpt_cell_dbl(share, 4, buf[2]);
	c[5] = rpt_cell_str(buf[3]);
	c[6] = rpt_cell_u64(t->peak_rate, NULL);
	c[7] = rpt_cell_i64(t->peak_cpu, NULL);
}

static void json_cpus(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	const struct rpt_table t = { cpu_cols, NCPU_COLS, NULL };
	size_t k;

	rpt_json_karr(j, "cpus");
	for (k = 0; k < r->ncpus; k++) {
		struct rpt_cell c[NCPU_COLS];
		char buf[3][32];

		cpu_cells(c, &r->cpus[k], r->recorded_pids != NULL, buf);
		rpt_table_json_row(&t, j, c);
	}
	rpt_json_arr_end(j);
}

static void json_tasks(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	const struct rpt_table t = { task_cols, NTASK_COLS, NULL };
	size_t k;

	rpt_json_karr(j, "tasks");
	for (k = 0; k < r->ntasks; k++) {
		struct rpt_cell c[NTASK_COLS];
		char buf[4][64];

		task_cells(c, &r->tasks[k], buf);
		rpt_table_json_row(&t, j, c);
	}
	rpt_json_arr_end(j);
}

static void json_syscalls(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	const struct rpt_table t = { syscall_cols, NSYSCALL_COLS, NULL };
	size_t k;

	rpt_json_kstr(j, "syscall_source", r->syscall_source ? "bpf" : "tracepoints");
	rpt_json_ku64(j, "syscall_calls_other_source", r->syscall_calls_other_source);
	rpt_json_karr(j, "syscalls");
	for (k = 0; k < r->nsyscalls; k++) {
		struct rpt_cell c[NSYSCALL_COLS];
		char buf[6][128];

		syscall_cells(c, &r->syscalls[k], buf);
		rpt_table_json_row(&t, j, c);
	}
	rpt_json_arr_end(j);
	rpt_json_ku64(j, "syscalls_unmatched", r->syscalls_unmatched);
}

/* The interrupts table: text (kind, irq, name, count, total, max) and JSON ("irq" or "vec"). */
static const struct rpt_col irq_cols[] = {
	{ "kind", NULL, -7, 0 },
	{ "irq", "irq", 4, 1 },
	{ "name", "name", -20, 2 },
	{ "count", "count", 9, 1 },
	{ "total", "total_ns", 11, 1 },
	{ "max", "max_ns", 11, 1 },
};
#define NIRQ_COLS (sizeof(irq_cols) / sizeof(irq_cols[0]))

/* One row of the table; kind "hardirq" or "softirq", buffers for the text. */
static void irq_cells(struct rpt_cell *c, const struct rpt_ovh_irq *v, const char *kind,
		      char (*buf)[128])
{
	c[0] = rpt_cell_str(kind);
	c[1] = rpt_cell_i64(v->nr, NULL);
	c[2] = rpt_cell_str(rpt_fit(buf[0], sizeof(buf[0]), v->name, 20));
	c[3] = rpt_cell_u64(v->count, NULL);
	c[4] = rpt_cell_u64(v->total_ns, rpt_fmt_dur(buf[1], sizeof(buf[1]), v->total_ns));
	c[5] = rpt_cell_u64(v->max_ns, rpt_fmt_dur(buf[2], sizeof(buf[2]), v->max_ns));
}

/* the irqs and the softirqs: one table shape, the number under its own key */
static void json_irqs(struct rpt_json *j, const char *key, const char *nr_key,
		      const struct rpt_ovh_irq *v, size_t n)
{
	struct rpt_col cols[NIRQ_COLS];
	struct rpt_table t = { cols, NIRQ_COLS, NULL };
	size_t k;

	memcpy(cols, irq_cols, sizeof(cols));
	cols[1].key = nr_key;
	rpt_json_karr(j, key);
	for (k = 0; k < n; k++) {
		struct rpt_cell c[NIRQ_COLS];
		char buf[3][128];

		irq_cells(c, &v[k], "", buf);
		c[2] = rpt_cell_str(v[k].name);	/* whole, not cut to the text width */
		rpt_table_json_row(&t, j, c);
	}
	rpt_json_arr_end(j);
}

static void json_types(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	const struct rpt_table t = { type_cols, NTYPE_COLS, NULL };
	size_t k;

	rpt_json_karr(j, "event_types");
	for (k = 0; k < r->ntypes; k++) {
		struct rpt_cell c[NTYPE_COLS];
		char buf[4][128];

		type_cells(c, &r->types[k], r->bytes, buf);
		rpt_table_json_row(&t, j, c);
	}
	rpt_json_arr_end(j);
}

static void json_recorder(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	size_t k;

	rpt_json_kobj(j, "recorder");
	rpt_json_ku64(j, "stored_bytes", r->stored_bytes);
	rpt_json_ku64(j, "uncompressed_bytes", r->uncompressed_bytes);
	rpt_json_kdouble(j, "compression_ratio", 3, r->compression_ratio);
	rpt_json_kobj(j, "stats");
	for (k = 0; k < r->nstats; k++)
		rpt_json_kstr(j, r->stats[k].key, r->stats[k].value);
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
}

static void json_loss(const struct rpt_loss_summary *l, struct rpt_json *j)
{
	rpt_json_key(j, "loss");
	rpt_loss_summary_json(l, j);
}

void rpt_overhead_json(const struct rpt_overhead_result *r, struct rpt_json *j)
{
	int i;

	rpt_json_obj(j);
	rpt_json_kstr(j, "file", r->path);
	rpt_json_kbool(j, "partial", r->partial);
	rpt_json_ku64(j, "first_ts", r->first_ts);
	rpt_json_ku64(j, "last_ts", r->last_ts);
	rpt_json_ku64(j, "duration_ns", r->last_ts - r->first_ts);
	rpt_json_ku64(j, "events", r->events);
	json_loss(&r->notes.loss, j);
	rpt_json_kstr_or_null(j, "recorded_pids", r->recorded_pids);
	json_cpus(r, j);
	json_tasks(r, j);
	json_syscalls(r, j);
	json_irqs(j, "irqs", "irq", r->irqs, r->nirqs);
	json_irqs(j, "softirqs", "vec", r->softirqs, r->nsoftirqs);
	json_types(r, j);
	rpt_json_kobj(j, "user_stack_copies");
	rpt_json_ku64(j, "stacks", r->ucopy_stacks);
	rpt_json_ku64(j, "bytes", r->ucopy_bytes);
	rpt_json_obj_end(j);
	rpt_json_ku64(j, "bytes", r->bytes);
	json_recorder(r, j);
	rpt_json_karr(j, "advice");
	for (i = 0; i < r->nadvice; i++)
		rpt_json_str(j, r->advice[i]);
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

int rpt_overhead_print_json(const struct rpt_overhead_result *r, FILE *out)
{
	struct rpt_json j;
	int err;

	if (rpt_json_init(&j, out, 0))
		return -ENOMEM;
	rpt_overhead_json(r, &j);
	RPT_JSON_LIT(&j, "\n");
	err = rpt_json_done(&j);
	return err == -ENOMEM ? err : 0; /* a failed write stays on the stream (rpt_out_failed) */
}

/* the window, and why the tables may be empty */
static void text_head(const struct rpt_overhead_result *r, const struct rpt_opts *op, FILE *out)
{
	const struct rpt_notes *n = &r->notes;
	uint64_t wt0 = r->first_ts, wt1 = r->last_ts;
	char b1[32], b2[32], b3[32];

	rpt_print_title(out, "Overhead of", r->path);
	if (n->raw_clock)
		fprintf(out, "  %s..%s (%" PRIu64 " ticks)\n", rpt_fmt_ts(b1, sizeof(b1), wt0),
			rpt_fmt_ts(b2, sizeof(b2), wt1), wt1 - wt0);
	else
		fprintf(out, "  %s..%s (%s)\n", rpt_fmt_ts(b1, sizeof(b1), wt0),
			rpt_fmt_ts(b2, sizeof(b2), wt1), rpt_fmt_dur(b3, sizeof(b3), wt1 - wt0));
	if (n->nevents_all && ((op->has_t0 && op->t0_ns > n->file_last_ts) ||
			       (op->has_t1 && op->t1_ns < n->file_first_ts)))
		fprintf(out, "  the window is outside the file's span %s..%s:\n"
			"  the tables below are empty\n",
			rpt_fmt_ts(b1, sizeof(b1), n->file_first_ts),
			rpt_fmt_ts(b2, sizeof(b2), n->file_last_ts));
	else if (!n->nevents) {
		char filt[512];

		rpt_fmt_filters(op, filt, sizeof(filt));
		if (*filt)
			fprintf(out,
				"  no events match the filters (%s): the tables below are empty\n",
				filt);
	}
	rpt_notes_clock(n, out);
	rpt_notes_damage(n, out);
	rpt_notes_loss(n, out);
}

static void text_cpus(const struct rpt_overhead_result *r, const struct rpt_opts *op, FILE *out)
{
	bool any = false;
	size_t k;

	for (k = 0; k < r->ncpus; k++)
		if (r->cpus[k].known)
			any = true;
	fputs("\nCPU time (from sched_switch)\n", out);
	if (r->recorded_pids) {
		char msg[512];

		snprintf(msg, sizeof(msg),
			 "the recording was limited to pids %.200s (and what they started): the "
			 "file has only their switches, so CPU busy and idle time are unknown and "
			 "other tasks' times below are partial",
			 r->recorded_pids);
		rpt_print_bullet(out, 78, msg);
	} else if (!any) {
		fputs(op->has_cpus || op->has_t0 || op->has_t1 ?
		      "  no sched_switch events in the selected CPUs and time window\n" :
		      "  no sched_switch events: CPU and task times are unknown\n", out);
	} else {
		const struct rpt_table t = { cpu_cols, NCPU_COLS, "  " };

		rpt_table_head(&t, out);
		for (k = 0; k < r->ncpus; k++) {
			struct rpt_cell c[NCPU_COLS];
			char buf[3][32];

			if (!r->cpus[k].known)
				continue;
			cpu_cells(c, &r->cpus[k], false, buf);
			rpt_table_text_row(&t, out, c);
		}
	}
}

static void text_tasks(const struct rpt_overhead_result *r, size_t top, FILE *out)
{
	const struct rpt_table t = { task_cols, NTASK_COLS, "  " };
	size_t nexited = 0, k;

	if (!r->ntasks)
		return;
	fputs("\nTasks (top by on-CPU time)\n", out);
	rpt_table_head(&t, out);
	for (k = 0; k < r->ntasks && k < top; k++) {
		struct rpt_cell c[NTASK_COLS];
		char buf[4][64];

		task_cells(c, &r->tasks[k], buf);
		nexited += r->tasks[k].exited;
		rpt_table_text_row(&t, out, c);
	}
	if (r->ntasks > top)
		fprintf(out, "  ... %zu more tasks (see --json)\n", r->ntasks - top);
	if (nexited)
		fputs("  * exited during the trace: no time is counted after its exit\n", out);
}

static bool any_hist(const struct rpt_overhead_result *r)
{
	size_t k;

	for (k = 0; k < r->nsyscalls; k++)
		if (r->syscalls[k].from_hist)
			return true;
	return false;
}

static void text_syscalls(const struct rpt_overhead_result *r, size_t top, FILE *out)
{
	const struct rpt_table t = { syscall_cols, NSYSCALL_COLS, "  " };
	size_t k;

	if (!r->nsyscalls)
		return;
	fprintf(out, "\nSyscalls (top by total time, from %s)\n",
		r->syscall_source ? "BPF flytrap:syscall records" : "syscall tracepoints");
	rpt_table_head(&t, out);
	for (k = 0; k < r->nsyscalls && k < top; k++) {
		struct rpt_cell c[NSYSCALL_COLS];
		char buf[6][128];

		syscall_cells(c, &r->syscalls[k], buf);
		rpt_table_text_row(&t, out, c);
	}
	if (r->nsyscalls > top)
		fprintf(out, "  ... %zu more syscalls (see --json)\n", r->nsyscalls - top);
	if (r->syscall_calls_other_source)
		fprintf(out, "  (%" PRIu64 " calls recorded by %s are not mixed in)\n",
			r->syscall_calls_other_source,
			r->syscall_source ? "the syscall tracepoints" : "BPF");
	fprintf(out, "  (p50/p99 exact up to %d calls, else within 1.6%%%s;\n   %" PRIu64
		" exits without a matching entry)\n", RPT_HIST_EXACT,
		any_hist(r) ? ",\n   or the middle of a log2 slot for in-kernel histograms" : "",
		r->syscalls_unmatched);
}

static void text_irqs(const struct rpt_overhead_result *r, size_t top, FILE *out)
{
	const struct rpt_table t = { irq_cols, NIRQ_COLS, "  " };
	struct rpt_cell c[NIRQ_COLS];
	char buf[3][128];
	size_t k;

	if (!r->nirqs && !r->nsoftirqs)
		return;
	fputs("\nInterrupts\n", out);
	rpt_table_head(&t, out);
	for (k = 0; k < r->nirqs && k < top; k++) {
		irq_cells(c, &r->irqs[k], "hardirq", buf);
		rpt_table_text_row(&t, out, c);
	}
	for (k = 0; k < r->nsoftirqs && k < top; k++) {
		irq_cells(c, &r->softirqs[k], "softirq", buf);
		rpt_table_text_row(&t, out, c);
	}
}

static void text_types(const struct rpt_overhead_result *r, size_t top, FILE *out)
{
	const struct rpt_table t = { type_cols, NTYPE_COLS, "  " };
	char b1[32];
	size_t k;

	fputs("\nTracing cost (events in the file)\n", out);
	rpt_table_head(&t, out);
	for (k = 0; k < r->ntypes && k < top; k++) {
		struct rpt_cell c[NTYPE_COLS];
		char buf[4][128];

		type_cells(c, &r->types[k], r->bytes, buf);
		rpt_table_text_row(&t, out, c);
	}
	if (r->ntypes > top)
		fprintf(out, "  ... %d more event types (see --json)\n", (int)(r->ntypes - top));
	fprintf(out, "  total %35" PRIu64 " %11s\n", r->events,
		rpt_fmt_bytes(b1, sizeof(b1), r->bytes));
	if (r->ucopy_stacks)
		/* two lines: the figures alone can take 40 columns */
		fprintf(out, "  of which user stack copies (record --user-stack):\n"
			"    %s in %" PRIu64 " stacks, %.1f%%\n",
			rpt_fmt_bytes(b1, sizeof(b1), r->ucopy_bytes), r->ucopy_stacks,
			r->bytes ? 100.0 * (double)r->ucopy_bytes / (double)r->bytes : 0.0);
}

static void text_recorder(const struct rpt_overhead_result *r, FILE *out)
{
	/*
	 * The share of a CPU is the CPU spent while capturing over the
	 * capture's duration; the process total includes setup (BPF
	 * loading, symbol tables) and teardown, which the duration does
	 * not, so it is shown apart and never as a percentage.
	 */
	uint64_t cu, cs, u, sy, dur = 0;
	bool cap = result_u64(r, FMT_RS_CAPTURE_USER_US, &cu) &&
		   result_u64(r, FMT_RS_CAPTURE_SYS_US, &cs);
	bool total = result_u64(r, FMT_RS_CPU_USER_US, &u) && result_u64(r, FMT_RS_CPU_SYS_US, &sy);
	char b1[32], b2[32], b3[32];

	result_u64(r, FMT_RS_DURATION_NS, &dur);

	fputs("\nRecorder\n", out);
	fprintf(out, "  event data: %s in pages, %s stored",
		rpt_fmt_bytes(b1, sizeof(b1), r->uncompressed_bytes),
		rpt_fmt_bytes(b2, sizeof(b2), r->stored_bytes));
	if (r->compression_ratio > 0)
		fprintf(out, ", compression %.2fx", r->compression_ratio);
	fputc('\n', out);
	if (cap && dur) {
		uint64_t a = cu * 1000, b = cs * 1000;

		fprintf(out, "  recorder CPU while capturing: %s user + %s sys,\n"
			"    %.1f%% of a CPU over %s\n",
			rpt_fmt_dur(b1, sizeof(b1), a), rpt_fmt_dur(b2, sizeof(b2), b),
			100.0 * (double)(a + b) / (double)dur, rpt_fmt_dur(b3, sizeof(b3), dur));
	}
	if (total) {
		uint64_t a = u * 1000, b = sy * 1000;

		fprintf(out, "  recorder CPU in total (setup and teardown included): %s\n",
			rpt_fmt_dur(b1, sizeof(b1), a + b));
		if (!cap)
			fputs("    (the file does not say how much of it was spent while "
			      "capturing)\n", out);
	}
	if (!print_recstats(r, out))
		fputs("  (no recorder statistics in the file: not recorded by flytrap)\n", out);
}

void rpt_overhead_text(const struct rpt_overhead_result *r, const struct rpt_opts *op, int top,
		       FILE *out)
{
	size_t t = top > 0 ? (size_t)top : 20;
	int i;

	text_head(r, op, out);
	text_cpus(r, op, out);
	text_tasks(r, t, out);
	text_syscalls(r, t, out);
	text_irqs(r, t, out);
	text_types(r, t, out);
	text_recorder(r, out);
	fputs("\nAdvice\n", out);
	if (!r->nadvice)
		fputs("  - nothing stands out: no event type is both frequent and a large share\n"
		      "    of the bytes\n", out);
	for (i = 0; i < r->nadvice; i++)
		rpt_print_bullet(out, 78, r->advice[i]);
}

