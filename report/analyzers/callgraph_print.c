// SPDX-License-Identifier: GPL-2.0-only
/*
 * callgraph's output: the tree callgraph.c builds (struct rpt_cg_result) as
 * text, JSON, folded stacks and the flame graph's stacks.  Nothing here
 * reads the trace; analyze, diff and export print the same result.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/analyzers/callgraph.h"
#include "report/analyzers/callgraph_int.h"
#include "report/out/flamesvg.h"
#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"

/* ---- output ------------------------------------------------------------------------ */

static void node_name(const struct rpt_cg_result *r, uint32_t nd, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->names[r->nodes[nd].name]);
}

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct rpt_cg_node *nodes = arg;
	const struct rpt_cg_node *x = &nodes[*(const uint32_t *)a];
	const struct rpt_cg_node *y = &nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* children of nd, heaviest first; caller frees; NULL when none (or ENOMEM: *n = -1) */
static uint32_t *children(const struct rpt_cg_result *r, uint32_t nd, int *n)
{
	uint32_t c, *v;
	int k = 0;

	*n = 0;
	for (c = r->nodes[nd].first_child; c != RPT_CG_NONE; c = r->nodes[c].next_sibling)
		(*n)++;
	if (!*n)
		return NULL;
	v = malloc((size_t)*n * sizeof(*v));
	if (!v) {
		*n = -1;
		return NULL;
	}
	for (c = r->nodes[nd].first_child; c != RPT_CG_NONE; c = r->nodes[c].next_sibling)
		v[k++] = c;
	qsort_r(v, (size_t)*n, sizeof(*v), cmp_child, (void *)r->nodes);
	return v;
}

struct out {
	const struct rpt_cg_result *r;
	FILE *f;
	uint64_t total;
	int max_depth;
	double min_pct;
	int err;
	/* folded output: the path of names */
	char **path;
	int npath;
	struct rpt_flame *flame;
	bool base;		/* add to the flame graph's base (rpt_flame_add_base) */
	uint64_t hidden;
	/* folded stacks: each one's line ("a;b;c") and self weight, to stack_fn */
	rpt_cg_stack_fn stack_fn;
	void *stack_arg;
	char *line;
	size_t line_cap;
};

static const char *wfmt(char *buf, size_t len, const struct rpt_cg_result *r, uint64_t v)
{
	if (r->source == RPT_CG_SAMPLES || r->source == RPT_CG_BPF_STACKS)
		snprintf(buf, len, "%" PRIu64, v);
	else
		rpt_fmt_dur(buf, len, v);
	return buf;
}

static bool visible(const struct out *o, uint32_t nd, int depth)
{
	const struct rpt_cg_node *n = &o->r->nodes[nd];

	if (o->max_depth > 0 && depth > o->max_depth)
		return false;
	if (o->min_pct > 0 && o->total && 100.0 * (double)n->total / (double)o->total < o->min_pct)
		return false;
	return true;
}

/* nodes with data in the subtree of nd, nd included (what hiding nd hides) */
static uint64_t subtree_nodes(const struct rpt_cg_result *r, uint32_t nd)
{
	uint64_t n = r->nodes[nd].count || r->nodes[nd].total ? 1 : 0;
	uint32_t c;

	for (c = r->nodes[nd].first_child; c != RPT_CG_NONE; c = r->nodes[c].next_sibling)
		n += subtree_nodes(r, c);
	return n;
}

/*
 * Tree text within 80 columns: the figures take 40, the name column the
 * rest.  Two columns per level up to level 5; deeper, the indentation stays
 * at 8 and a "[17]" marker gives the level, so names keep about 26 columns;
 * a name that still does not fit is cut with a visible '~'.
 */
#define TREE_WIDTH 79
#define TREE_FIGS 40
#define TREE_FLAT_LEVELS 5

static void text_node(struct out *o, uint32_t nd, int depth)
{
	const struct rpt_cg_node *n = &o->r->nodes[nd];
	char name[512], fit[512], mark[16], b1[32], b2[32];
	uint32_t *ch;
	int nch, k, ind;

	if (o->err)
		return;
	if (nd) {
		/* calls still open at the end made a node but carry nothing yet */
		if (!n->count && !n->total)
			return;
		if (!visible(o, nd, depth)) {
			o->hidden += subtree_nodes(o->r, nd);
			return;
		}
		node_name(o->r, nd, name, sizeof(name));
		mark[0] = 0;
		if (depth <= TREE_FLAT_LEVELS) {
			ind = 2 * (depth - 1);
		} else {
			ind = 2 * (TREE_FLAT_LEVELS - 1);
			snprintf(mark, sizeof(mark), "[%d] ", depth);
		}
		rpt_fit(fit, sizeof(fit), name, TREE_WIDTH - TREE_FIGS - ind - (int)strlen(mark));
		fprintf(o->f, "%6.1f%% %10s %10s %8" PRIu64 "  %*s%s%s\n",
			o->total ? 100.0 * (double)n->total / (double)o->total : 0.0,
			wfmt(b1, sizeof(b1), o->r, n->total), wfmt(b2, sizeof(b2), o->r, n->self),
			n->count, ind, "", mark, fit);
	}
	ch = children(o->r, nd, &nch);
	if (nch < 0) {
		o->err = -ENOMEM;
		return;
	}
	for (k = 0; k < nch; k++)
		text_node(o, ch[k], depth + 1);
	free(ch);
}

static void json_node(struct out *o, struct rpt_json *j, uint32_t nd, int depth)
{
	const struct rpt_cg_node *n = &o->r->nodes[nd];
	char name[512];
	uint32_t *ch;
	int nch, k;

	if (o->err)
		return;
	if (nd && !visible(o, nd, depth)) {
		o->hidden += subtree_nodes(o->r, nd);
		return;
	}
	if (nd)
		node_name(o->r, nd, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "all");
	/* JSON says it with a field: the name is the function's own */
	if (n->inlined && strlen(name) > strlen(INLINED) &&
	    !strcmp(name + strlen(name) - strlen(INLINED), INLINED))
		name[strlen(name) - strlen(INLINED)] = 0;
	rpt_json_obj(j);
	rpt_json_kstr(j, "name", name);
	if (n->inlined)
		rpt_json_kbool(j, "inlined", true);
	if (n->pid >= 0)
		rpt_json_ki64(j, "pid", n->pid);
	else if (n->group)
		rpt_json_kbool(j, "comm", true);	/* --group comm: a task name */
	rpt_json_ku64(j, "count", n->count);
	rpt_json_ku64(j, "total", n->total);
	rpt_json_ku64(j, "self", n->self);
	rpt_json_karr(j, "children");
	ch = children(o->r, nd, &nch);
	if (nch < 0) {
		o->err = -ENOMEM;
		return;
	}
	for (k = 0; k < nch; k++)
		json_node(o, j, ch[k], depth + 1);
	free(ch);
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

/* The folded line of o->path[0..depth), handed to o->stack_fn with its weight. */
static void stack_line(struct out *o, int depth, uint64_t self)
{
	size_t len = 0, need = 1;
	int k, err;

	for (k = 0; k < depth; k++)
		need += strlen(o->path[k]) + 1;
	if (need > o->line_cap) {
		char *nl = realloc(o->line, need);

		if (!nl) {
			o->err = -ENOMEM;
			return;
		}
		o->line = nl;
		o->line_cap = need;
	}
	for (k = 0; k < depth; k++) {
		size_t n = strlen(o->path[k]);

		if (k)
			o->line[len++] = ';';
		memcpy(o->line + len, o->path[k], n);
		len += n;
	}
	o->line[len] = 0;
	err = o->stack_fn(o->stack_arg, o->line, len, self);
	if (err && !o->err)
		o->err = err;
}

/* folded lines / flame graph: every node with self weight, in heaviest-first order */
static void folded_node(struct out *o, uint32_t nd, int depth)
{
	const struct rpt_cg_node *n = &o->r->nodes[nd];
	uint32_t *ch;
	int nch, k;

	if (o->err)
		return;
	if (nd) {
		char name[512], *c;

		node_name(o->r, nd, name, sizeof(name));
		for (c = name; *c; c++)
			if (*c == ';' || *c == '\n' || *c == '\r')
				*c = *c == ';' ? ':' : ' ';
		o->path[depth - 1] = strdup(name);
		if (!o->path[depth - 1]) {
			o->err = -ENOMEM;
			return;
		}
		o->npath = depth;
		if (n->self) {
			if (o->stack_fn)
				stack_line(o, depth, n->self);
			if (o->flame && (o->base ? rpt_flame_add_base : rpt_flame_add)(o->flame,
					(const char *const *)o->path, depth, n->self))
				o->err = -ENOMEM;
		}
	}
	ch = children(o->r, nd, &nch);
	if (nch < 0) {
		o->err = -ENOMEM;
		return;
	}
	for (k = 0; k < nch; k++)
		folded_node(o, ch[k], depth + 1);
	free(ch);
	if (nd) {
		free(o->path[depth - 1]);
		o->path[depth - 1] = NULL;
	}
}

/* the stacks of r, handed to fn (NULL: none) and/or added to flame (NULL: none) */
int rpt_cg_fold(const struct rpt_cg_result *r, rpt_cg_stack_fn fn, void *arg,
		struct rpt_flame *flame, bool base)
{
	struct out o;

	memset(&o, 0, sizeof(o));
	o.r = r;
	o.stack_fn = fn;
	o.stack_arg = arg;
	o.flame = flame;
	o.base = base;
	o.path = calloc((size_t)r->depth + 1, sizeof(*o.path));
	if (!o.path)
		return -ENOMEM;
	if (r->n)
		folded_node(&o, 0, 0);
	free(o.path);
	free(o.line);
	return o.err;
}

int rpt_cg_result_stacks(const struct rpt_cg_result *r, rpt_cg_stack_fn fn, void *arg)
{
	return rpt_cg_fold(r, fn, arg, NULL, false);
}

int rpt_cg_result_flame(const struct rpt_cg_result *r, struct rpt_flame *fl)
{
	return rpt_cg_fold(r, NULL, NULL, fl, false);
}

int rpt_cg_result_flame_base(const struct rpt_cg_result *r, struct rpt_flame *fl)
{
	return rpt_cg_fold(r, NULL, NULL, fl, true);
}

static uint64_t cut_total(const struct rpt_cg_result *r)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < CUT_NR; k++)
		n += r->cut[k];
	return n;
}

/* ',"unwind":{"mode":"cfi"|"dwarf"|null,"stacks":N,"spliced":N,"complete":N,"marked":N}' */
static void unwind_json(const struct rpt_cg_result *r, struct rpt_json *j)
{
	rpt_json_kobj(j, "unwind");
	if (r->unwind_mode && *r->unwind_mode)
		rpt_json_kstr(j, "mode", r->unwind_mode);
	else
		rpt_json_knull(j, "mode");
	rpt_json_ku64(j, "stacks", r->unwound);
	rpt_json_ku64(j, "spliced", r->unwind_spliced);
	rpt_json_ku64(j, "complete", r->unwind_complete);
	rpt_json_ku64(j, "marked", r->unwind_marked);
	rpt_json_ku64(j, "fp_only", r->unwind_fp_only);
	rpt_json_ku64(j, "pre_exec", r->pre_exec);
	rpt_json_ku64(j, "earlier_image", r->earlier_image);
	rpt_json_obj_end(j);
}

static void unwind_note(const struct rpt_cg_result *r, FILE *f)
{
	if (r->earlier_image)
		fprintf(f, "  %" PRIu64 " stacks sampled before a later exec of their process: named\n"
			"  from the program it ran then\n", r->earlier_image);
	if (!r->unwound)
		return;
	fprintf(f, "  %" PRIu64 " user stacks unwound from their stack copies (%s): %" PRIu64
		" met\n  the frame-pointer walk, %" PRIu64 " complete, %" PRIu64
		" stopped short ([unwind: REASON])\n", r->unwound, r->unwind_mode,
		r->unwind_spliced, r->unwind_complete, r->unwind_marked);
	if (r->unwind_fp_only)
		fprintf(f, "  %" PRIu64 " stacks sampled in a binary not on this machine: "
			"frame-pointer walk\n", r->unwind_fp_only);
	if (r->pre_exec)
		fprintf(f, "  %" PRIu64 " stacks sampled before their process's exec: named from\n"
			"  its parent's program\n", r->pre_exec);
}

/* "user_stacks":N,"stacks_cut":N,"cut":{"outside_mappings":N,"repeated_frame":N} */
static void cut_json(const struct rpt_cg_result *r, struct rpt_json *j)
{
	int k;

	rpt_json_ku64(j, "user_stacks", r->user_stacks);
	rpt_json_ku64(j, "stacks_cut", cut_total(r));
	rpt_json_kobj(j, "cut");
	for (k = 0; k < CUT_NR; k++)
		rpt_json_ku64(j, rpt_cg_cut_keys[k], r->cut[k]);
	rpt_json_obj_end(j);
	unwind_json(r, j);
}

/* "debuginfod":BOOL,"binaries":[{"path","build_id","symbols","functions"}...] */
static void binaries_json(const struct rpt_cg_result *r, struct rpt_json *j)
{
	uint32_t k;

	rpt_json_kbool(j, "debuginfod", r->debuginfod);
	rpt_json_karr(j, "binaries");
	for (k = 0; k < r->nbinaries; k++) {
		const struct rpt_cg_binary *b = &r->binaries[k];

		rpt_json_obj(j);
		rpt_json_kstr(j, "path", b->path);
		rpt_json_kstr_or_null(j, "build_id", b->build_id);
		rpt_json_kstr(j, "symbols", b->source);
		rpt_json_ki64(j, "functions", b->functions);
		if (b->debuginfod_timeout)
			rpt_json_kbool(j, "debuginfod_timeout", true);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

/* when most user stacks stopped short: the record option that would have unwound them */
static void fix_note(const struct rpt_cg_result *r, FILE *f)
{
	uint64_t bad = cut_total(r) + r->unwind_marked;
	const char *m = r->unwind_mode && *r->unwind_mode ? r->unwind_mode : "fp";

	if (!r->user_stacks || bad * 2 <= r->user_stacks)
		return;
	if (strcmp(m, "dwarf"))
		fprintf(f, "  most user stacks stopped short: record with --user-stack dwarf (the default;\n"
			"  this file has %s) to unwind code built without frame pointers\n", m);
	else
		fprintf(f, "  most user stacks stopped short: where the mark says \"stack copy too small\",\n"
			"  record with a larger copy (--user-stack dwarf:BYTES, at most 16384)\n");
}

static void cut_note(const struct rpt_cg_result *r, FILE *f)
{
	uint64_t n = cut_total(r);
	const char *sep = "";
	int k;

	if (!n)
		return;
	fprintf(f, "  %" PRIu64 " of %" PRIu64 " user stacks cut where the unwind broke, marked\n"
		"  [unwind: REASON]:", n, r->user_stacks);
	for (k = 0; k < CUT_NR; k++)
		if (r->cut[k]) {
			fprintf(f, "%s %" PRIu64 " %s", sep, r->cut[k], rpt_cg_cut_reasons[k]);
			sep = ",";
		}
	fputc('\n', f);
}

static void init_out(struct out *o, const struct rpt_cg_result *r,
		     const struct rpt_callgraph_conf *c, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->r = r;
	o->f = f;
	o->total = r->total;
	o->max_depth = c->max_depth;
	o->min_pct = c->min_percent;
}

/* "bpf_stacks":{"map","from","ts","why","truncated","not_collected","missing",...} */
static void bpf_json(const struct rpt_cg_result *r, struct rpt_json *j)
{
	rpt_json_kobj(j, "bpf_stacks");
	rpt_json_kstr_or_null(j, "map", r->bpf_source);
	rpt_json_kstr(j, "from", r->bpf_ring ? "records" : "snapshot");
	if (r->bpf_source && !r->bpf_ring) {
		rpt_json_ku64(j, "ts", r->bpf_ts);
		rpt_json_kstr(j, "why", r->bpf_why);
		rpt_json_kbool(j, "truncated", r->bpf_truncated);
	}
	rpt_json_ku64(j, "not_collected", r->bpf_not_collected);
	rpt_json_ku64(j, "missing", r->bpf_missing);
	rpt_json_ku64(j, "skipped", r->bpf_skipped);
	rpt_json_karr(j, "others");
	for (const char *p = r->bpf_others; p && *p;) {
		size_t l = strcspn(p, ",");
		char nm[256];

		snprintf(nm, sizeof(nm), "%.*s", (int)(l < 255 ? l : 255), p);
		rpt_json_str(j, nm);
		p += l;
		p += strspn(p, ", ");
	}
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

/* the text's lines on the bpf-stacks source: where the counts come from, what was not joined */
static void bpf_note(const struct rpt_cg_result *r, const struct rpt_opts *op, FILE *f)
{
	char b1[32];

	if (r->bpf_ring)
		fprintf(f, "  from the records of %s (one sample each)\n", r->bpf_source);
	else
		fprintf(f, "  from the counts of %s, its last snapshot (%s, %s)%s\n", r->bpf_source,
			r->bpf_why, rpt_fmt_ts(b1, sizeof(b1), r->bpf_ts),
			r->bpf_truncated ? ", truncated" : "");
	if (!r->bpf_ring && (op->has_t0 || op->has_t1 || op->has_cpus))
		fputs("  (--from/--to/--cpu do not select a map's counts: a snapshot has no time\n"
		      "  or CPU per entry)\n", f);
	if (r->bpf_not_collected)
		fprintf(f, "  %" PRIu64 " of them with a stack not collected (the kernel's error:\n"
			"  [user|kernel stack not collected: ERROR])\n", r->bpf_not_collected);
	if (r->bpf_missing)
		fprintf(f, "  %" PRIu64 " of them with a stack id the stack map's snapshot lacks\n",
			r->bpf_missing);
	if (r->bpf_skipped)
		fprintf(f, "  %" PRIu64 " entries skipped: their value holds no count\n",
			r->bpf_skipped);
	if (r->bpf_others && *r->bpf_others)
		fprintf(f, "  (stack ids also in %s: --bpf-map NAME)\n", r->bpf_others);
}

int rpt_cg_json(const struct rpt_cg_result *r, const struct rpt_callgraph_conf *c,
		struct rpt_json *j)
{
	char mp[32];
	struct out o;

	init_out(&o, r, c, NULL);
	rpt_json_obj(j);
	rpt_json_kstr(j, "file", r->path);
	rpt_json_kbool(j, "partial", r->partial);
	if (r->empty && c->source == RPT_CG_AUTO) {
		rpt_json_knull(j, "source");
		rpt_json_knull(j, "unit");
	} else {
		rpt_json_kstr(j, "source", r->source_name);
		rpt_json_kstr(j, "unit", r->unit);
	}
	rpt_json_ku64(j, "events", r->events);
	rpt_json_kbool(j, "per_task", r->per_task);
	rpt_json_kstr(j, "group", r->group ? r->group : "none");
	rpt_json_ku64(j, "total", r->total);
	rpt_json_ku64(j, "nodes", r->n - 1);
	rpt_json_kobj(j, "sources");
	rpt_json_ku64(j, "calls", r->source_nodes[S_CALLS]);
	rpt_json_ku64(j, "samples", r->source_nodes[S_SAMPLES]);
	rpt_json_ku64(j, "offcpu", r->source_nodes[S_OFFCPU]);
	/* only in files with --bpf-object stack ids: the others' output stays as it was */
	if (r->has_bpf_stacks)
		rpt_json_ku64(j, "bpf-stacks", r->source_nodes[S_BPF]);
	rpt_json_obj_end(j);
	if (r->source == RPT_CG_BPF_STACKS)
		bpf_json(r, j);
	rpt_json_ku64(j, "calls_completed", r->calls_completed);
	rpt_json_ku64(j, "calls_open", r->calls_open);
	rpt_json_ku64(j, "unmatched_exits", r->unmatched_exits);
	rpt_json_ku64(j, "lost_frames", r->lost_frames);
	rpt_json_ki64(j, "max_depth", c->max_depth);
	rpt_json_key(j, "min_percent");
	snprintf(mp, sizeof(mp), "%g", c->min_percent);	/* as given: 0.5, not 0.500 */
	rpt_json_value(j, mp, strlen(mp));
	rpt_json_key(j, "loss");
	rpt_loss_summary_json(&r->notes.loss, j);
	cut_json(r, j);
	binaries_json(r, j);
	rpt_json_key(j, "tree");
	json_node(&o, j, 0, 0);
	rpt_json_ku64(j, "hidden", o.hidden);
	rpt_json_obj_end(j);
	return o.err;
}

int rpt_cg_print_json(const struct rpt_cg_result *r, const struct rpt_callgraph_conf *c, FILE *f)
{
	struct rpt_json j;
	int err = rpt_json_init(&j, f, 0);

	if (!err)
		err = rpt_cg_json(r, c, &j);
	RPT_JSON_LIT(&j, "\n");
	if (err) {
		rpt_json_done(&j);
		return err;
	}
	err = rpt_json_done(&j);
	return err == -ENOMEM ? err : 0; /* a failed write stays on the stream (rpt_out_failed) */
}

/* One folded line as flamegraph.pl reads it: the stack, a space, the weight. */
static int folded_write(void *f, const char *stack, size_t len, uint64_t self)
{
	fwrite(stack, 1, len, f);
	fprintf(f, " %" PRIu64 "\n", self);
	return 0;
}

int rpt_cg_print_folded(const struct rpt_cg_result *r, FILE *f)
{
	int lm = r->notes.loss.markers, err;

	/* folded lines have no room for a note: say it on stderr */
	if (lm && f == stdout)
		ft_warn("events were lost inside the traced span (%d loss marker%s): the stacks "
			"are incomplete; see 'flytrap drops'", lm, lm == 1 ? "" : "s");
	err = rpt_cg_fold(r, folded_write, f, NULL, false);
	return err ? err : ferror(f) ? -EIO : 0;
}

/* the text when there is no tree to show: why, and where the data is */
static int print_nothing(const struct rpt_cg_result *r, const struct rpt_opts *op,
			 const struct rpt_callgraph_conf *c, FILE *f)
{
	const struct rpt_notes *n = &r->notes;
	char b1[32], b2[32];
	int k;

	if (!n->nevents) {
		char filt[512];

		rpt_fmt_filters(op, filt, sizeof(filt));
		if (*filt)
			fprintf(f, "  nothing to show: no events match the filters\n  (%s)\n",
				filt);
		else
			fputs("  nothing to show: the file has no events\n", f);
		rpt_notes_damage(n, f);
		return ferror(f) ? -EIO : 0;
	}
	/* say what was looked for, not a 0-call tree of some source */
	if (c->source == RPT_CG_AUTO)
		fprintf(f, "  no call or stack data in the %" PRIu64 " selected events "
			"(function_graph,\n"
			"  uprobes, kernel_stack, user_stack or flytrap BPF profile/offcpu/ufunc/\n"
			"  kfunc records), %s..%s\n",
			n->nevents, rpt_fmt_ts(b1, sizeof(b1), n->sel_first_ts),
			rpt_fmt_ts(b2, sizeof(b2), n->sel_last_ts));
	else
		fprintf(f, "  no %s data in the %" PRIu64 " selected events, %s..%s\n",
			r->source_name, n->nevents, rpt_fmt_ts(b1, sizeof(b1), n->sel_first_ts),
			rpt_fmt_ts(b2, sizeof(b2), n->sel_last_ts));
	for (k = 0; k < S_NR; k++)
		if (strcmp(rpt_cg_src_names[k], r->source_name) && r->source_nodes[k])
			fprintf(f, "  (the file has %s data: --source %s)\n", rpt_cg_src_names[k],
				rpt_cg_src_names[k]);
	rpt_notes_loss(n, f);
	rpt_notes_damage(n, f);
	return ferror(f) ? -EIO : 0;
}

/* Paths in the ", "-separated list that are redaction tokens ("/~1a2b..."). */
static int redacted_paths(const char *list)
{
	int n = 0;

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		const char *slash = memrchr(p, '/', l);

		n += slash && slash + 1 < p + l && slash[1] == '~';
		p += l;
		p += strspn(p, ", ");
	}
	return n;
}

/*
 * Binaries without symbols, and what would name them: a redacted path
 * names nothing a teammate can look up (the symbol tables that record
 * --symbols stores travel in the file and through redact), another one a
 * copy of the binary or its debug file.
 */
static void syms_note(const struct rpt_cg_result *r, FILE *f)
{
	int red = redacted_paths(r->syms_missing), n = r->nsyms_missing;

	if (!n)
		return;
	fprintf(f, "note: no symbols for %d binar%s (%s);\n", n, n == 1 ? "y" : "ies",
		r->syms_missing);
	if (red == n)
		fprintf(f, "      the path%s redacted: no --symfs finds %s;\n", n == 1 ? " was" : "s were",
			n == 1 ? "it" : "them");
	else if (red)
		fprintf(f, "      %d of them redacted: no --symfs finds %s;\n", red,
			red == 1 ? "it" : "them");
	if (red)
		fprintf(f, "      record with --bpf ... --symbols and the file carries the symbol\n"
			"      tables (redact keeps them)\n");
	if (red < n)
		fprintf(f, "      %stry --symfs DIR or --debug-dir DIR\n", red ? "for the others " : "");
}

int rpt_cg_text(const struct rpt_cg_result *r, const struct rpt_opts *op,
		const struct rpt_callgraph_conf *c, FILE *f)
{
	bool calls = r->source == RPT_CG_CALLS, bpf = r->source == RPT_CG_BPF_STACKS;
	bool samples = r->source == RPT_CG_SAMPLES || bpf;
	const struct rpt_notes *n = &r->notes;
	struct out o;
	char b1[32], b2[32], b3[32];
	int k;

	rpt_print_title(f, "Call graph of", r->path);
	/* a map's counts need no event: r->empty alone says whether there is a tree */
	if (r->empty)
		return print_nothing(r, op, c, f);
	fprintf(f, "  %s (%s), %s..%s\n", r->source_name,
		calls ? "time in calls" : bpf ? "stack counts" : samples ? "stack samples" :
		"blocked time",
		rpt_fmt_ts(b1, sizeof(b1), n->sel_first_ts),
		rpt_fmt_ts(b2, sizeof(b2), n->sel_last_ts));
	if (calls)
		fprintf(f, "  %" PRIu64 " calls, %s in top-level calls\n"
			"  %" PRIu64 " still open at the end, %" PRIu64 " returns without a call\n",
			r->calls_completed, rpt_fmt_dur(b3, sizeof(b3), r->total), r->calls_open,
			r->unmatched_exits);
	else
		fprintf(f, "  %" PRIu64 " %s\n", samples ? r->total : r->nodes[0].count,
			samples ? "samples" : "blocked periods");
	if (bpf && r->bpf_source)
		bpf_note(r, op, f);
	/* a redacted file's user-space samples: counted, but nothing to draw */
	if (!calls && r->frameless)
		fprintf(f, "  %" PRIu64 " of them without a frame: no kernel stack, and no user\n"
			"  stack (the recording had none, or redact dropped it)\n", r->frameless);
	for (k = 0; k < S_NR; k++)
		if (strcmp(rpt_cg_src_names[k], r->source_name) && r->source_nodes[k])
			fprintf(f, "  (the file also has %s data: --source %s)\n", rpt_cg_src_names[k],
				rpt_cg_src_names[k]);
	cut_note(r, f);
	unwind_note(r, f);
	if (!bpf)	/* a user program's stacks are its own bpf_get_stackid() walks */
		fix_note(r, f);
	rpt_notes_clock(n, f);
	rpt_notes_loss(n, f);
	rpt_notes_damage(n, f);
	fprintf(f, "\n %6s %10s %10s %8s  %s\n", "total", samples ? "samples" : "time",
		"self", samples ? "hits" : "calls", "function");
	init_out(&o, r, c, f);
	text_node(&o, 0, 0);
	if (o.hidden)
		fprintf(f, "  (%" PRIu64 " nodes below --depth/--min-percent not shown)\n",
			o.hidden);
	syms_note(r, f);
	return o.err ? o.err : ferror(f) ? -EIO : 0;
}

