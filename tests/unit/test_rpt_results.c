// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzers' result structures (issue 10 point 1): callgraph and
 * overhead run over the synthetic files of tests/data (built by
 * tests/tools/mkrpt.c, whose comments work every number out by hand) with
 * conf.result set, and the figures are checked on the structures, not on
 * printed text; then the per-function sums of rpt_cg_functions() on a
 * hand-made tree with recursion.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/analyzers/callgraph.h"
#include "report/analyzers/drops.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"
#include "check.h"

#define US 1000ULL
#define MS 1000000ULL

static int run(const char *path, const struct rpt_analyzer *an)
{
	struct rpt_opts o = { .path = path, .out = stdout };
	const struct rpt_analyzer *list[1] = { an };
	struct fmt_reader *r = NULL;
	char *msg = NULL;
	int rc = fmt_reader_open(path, 0, &r, &msg);

	if (rc) {
		printf("cannot open %s: %s\n", path, msg ? msg : "?");
		free(msg);
		return rc;
	}
	rc = rpt_replay(r, &o, list, 1);
	fmt_reader_close(r);
	return rc;
}

static const struct rpt_cg_node *cg_child(const struct rpt_cg_result *r, uint32_t parent, const char *name)
{
	uint32_t c;

	for (c = r->nodes[parent].first_child; c != RPT_CG_NONE; c = r->nodes[c].next_sibling)
		if (!strcmp(r->names[r->nodes[c].name], name))
			return &r->nodes[c];
	return NULL;
}

static const struct rpt_cg_func *cg_func(const struct rpt_cg_result *r, const struct rpt_cg_func *f,
					 size_t n, const char *name)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!strcmp(r->names[f[k].name], name))
			return &f[k];
	return NULL;
}

/* rpt-graph.dat: ksys_read 200 us (vfs_read 90 us with ext4 x2 50 us, fsnotify 40 us); vfs_read 100 us */
static void test_callgraph(void)
{
	struct rpt_cg_result res = { 0 };
	struct rpt_callgraph_conf conf = { .result = &res };
	struct rpt_analyzer an = rpt_callgraph_analyzer;
	const struct rpt_cg_node *ks, *vr, *ext;
	const struct rpt_cg_func *fv, *fe;
	struct rpt_cg_func *f = NULL;
	size_t nf = 0;
	int rc;

	an.conf = &conf;
	rc = run("tests/data/rpt-graph.dat", &an);
	CHECK(rc == 0, "replay: %d", rc);
	CHECK(res.source == RPT_CG_CALLS && !strcmp(res.unit, "ns"), "source %d unit %s", res.source,
	      res.unit ? res.unit : "-");
	CHECK(!res.empty && res.total == 300 * US, "total %" PRIu64, res.total);
	CHECK(res.calls_completed == 7 && res.calls_open == 1 && res.unmatched_exits == 1,
	      "calls %" PRIu64 " open %" PRIu64 " unmatched %" PRIu64, res.calls_completed, res.calls_open,
	      res.unmatched_exits);
	CHECK(res.n > 1 && res.depth == 3, "nodes %u depth %d", res.n, res.depth);
	if (res.n <= 1)
		goto out;
	ks = cg_child(&res, 0, "ksys_read");
	CHECK(ks && ks->count == 1 && ks->total == 200 * US && ks->self == 70 * US, "ksys_read");
	vr = ks ? cg_child(&res, (uint32_t)(ks - res.nodes), "vfs_read") : NULL;
	CHECK(vr && vr->total == 90 * US && vr->self == 40 * US, "ksys_read;vfs_read");
	ext = vr ? cg_child(&res, (uint32_t)(vr - res.nodes), "ext4_file_read_iter") : NULL;
	CHECK(ext && ext->count == 2 && ext->total == 50 * US, "ksys_read;vfs_read;ext4_file_read_iter");
	CHECK(ks && ks->pid == -1, "no task frames without --per-task");

	CHECK(rpt_cg_functions(&res, &f, &nf) == 0, "functions");
	fv = cg_func(&res, f, nf, "vfs_read");
	fe = cg_func(&res, f, nf, "ext4_file_read_iter");
	CHECK(nf == 4, "%zu functions", nf);
	CHECK(fv && fv->count == 2 && fv->total == 190 * US && fv->self == 130 * US, "vfs_read sums");
	CHECK(fe && fe->count == 3 && fe->total == 60 * US && fe->self == 60 * US, "ext4 sums");
	free(f);
out:
	rpt_cg_result_release(&res);
	CHECK(res.nodes == NULL && res.n == 0, "released");
}

static const struct rpt_ovh_task *ovh_task(const struct rpt_overhead_result *r, const char *comm)
{
	size_t k;

	for (k = 0; k < r->ntasks; k++)
		if (!strcmp(r->tasks[k].comm, comm))
			return &r->tasks[k];
	return NULL;
}

/* rpt-sched.dat: 100 ms; app 80 ms on CPU, 3 syscalls; read 2 (2 + 4 ms), write 1 failing */
static void test_overhead(void)
{
	struct rpt_overhead_result res = { 0 };
	struct rpt_overhead_conf conf = { .result = &res };
	struct rpt_analyzer an = rpt_overhead_analyzer;
	const struct rpt_ovh_task *app, *bg;
	int rc;

	an.conf = &conf;
	rc = run("tests/data/rpt-sched.dat", &an);
	CHECK(rc == 0, "replay: %d", rc);
	CHECK(res.last_ts - res.first_ts == 100 * MS, "window %" PRIu64, res.last_ts - res.first_ts);
	CHECK(res.ncpus == 2, "%zu cpus", res.ncpus);
	if (res.ncpus == 2) {
		CHECK(res.cpus[0].known && res.cpus[0].busy_ns == 90 * MS && res.cpus[0].idle_ns == 10 * MS &&
		      res.cpus[0].switches == 6, "cpu 0");
		CHECK(res.cpus[1].busy_ns == 50 * MS && res.cpus[1].switches == 3, "cpu 1");
	}
	app = ovh_task(&res, "app");
	bg = ovh_task(&res, "bg");
	CHECK(res.ntasks == 3 && res.tasks[0].pid == 100, "%zu tasks, app first", res.ntasks);
	CHECK(app && app->on_cpu_ns == 80 * MS && app->runnable_ns == 10 * MS && app->blocked_ns == 10 * MS &&
	      app->syscalls == 3, "app");
	CHECK(bg && bg->on_cpu_ns == 10 * MS && bg->blocked_ns == 60 * MS, "bg");
	CHECK(res.syscall_source == 0 && res.nsyscalls == 2, "%zu syscalls", res.nsyscalls);
	if (res.nsyscalls == 2) {
		CHECK(!strcmp(res.syscalls[0].name, "read") && res.syscalls[0].count == 2 &&
		      res.syscalls[0].total_ns == 6 * MS && res.syscalls[0].p50_ns == 2 * MS &&
		      res.syscalls[0].p99_ns == 4 * MS && res.syscalls[0].errors == 0, "read");
		CHECK(!strcmp(res.syscalls[1].name, "write") && res.syscalls[1].count == 1 &&
		      res.syscalls[1].errors == 1, "write");
	}
	CHECK(res.nirqs == 1 && res.irqs[0].nr == 16 && res.irqs[0].total_ns == 500 * US, "irq");
	CHECK(res.nsoftirqs == 1 && res.softirqs[0].total_ns == 1 * MS, "softirq");
	CHECK(res.ntypes > 0 && !strcmp(res.types[0].name, "sched:sched_switch") && res.types[0].count == 9,
	      "types");
	rpt_overhead_result_release(&res);
	CHECK(res.tasks == NULL && res.ntasks == 0, "released");
}

/* a -> b -> a -> c, and a -> c: a counted 3 times, its total once per outermost a */
static void test_functions_recursion(void)
{
	char *names[] = { "all", "a", "b", "c" };
	struct rpt_cg_node n[6] = {
		{ RPT_CG_NONE, 1, RPT_CG_NONE, 0, -1, 0, 100, 0 },
		{ 0, 2, RPT_CG_NONE, 1, -1, 1, 100, 10 },	/* a */
		{ 1, 3, 5, 2, -1, 1, 60, 20 },			/* a;b */
		{ 2, 4, RPT_CG_NONE, 1, -1, 1, 40, 30 },	/* a;b;a */
		{ 3, RPT_CG_NONE, RPT_CG_NONE, 3, -1, 1, 10, 10 },	/* a;b;a;c */
		{ 1, RPT_CG_NONE, RPT_CG_NONE, 3, -1, 2, 30, 30 },	/* a;c */
	};
	struct rpt_cg_result r = { .nodes = n, .n = 6, .names = names, .nnames = 4 };
	struct rpt_cg_func *f = NULL;
	const struct rpt_cg_func *a, *c;
	size_t nf = 0;

	CHECK(rpt_cg_functions(&r, &f, &nf) == 0 && nf == 3, "%zu functions", nf);
	a = cg_func(&r, f, nf, "a");
	c = cg_func(&r, f, nf, "c");
	CHECK(a && a->count == 2 && a->total == 100 && a->self == 40, "a: count %" PRIu64 " total %"
	      PRIu64 " self %" PRIu64, a ? a->count : 0, a ? a->total : 0, a ? a->self : 0);
	CHECK(c && c->count == 3 && c->total == 40 && c->self == 40, "c");
	free(f);
}

/* Render a result into a string (malloc'd) */
#define RENDER(call, buf) do { \
	size_t len_ = 0; \
	FILE *f_ = open_memstream(&(buf), &len_); \
	if (f_) { \
		call; \
		fclose(f_); \
	} \
} while (0)

/*
 * The text renderers read the results alone: filled by one replay, printed
 * after the reader is closed, with notes (damage, raw clock, losses) that
 * exist only in the result's data.
 */
static void test_text_from_results(void)
{
	struct rpt_overhead_result ovh = { 0 };
	struct rpt_overhead_conf oc = { .result = &ovh };
	struct rpt_drops_result dr = { 0 };
	struct rpt_drops_conf dc = { .result = &dr };
	struct rpt_analyzer a1 = rpt_overhead_analyzer, a2 = rpt_drops_analyzer;
	struct rpt_opts o = { .path = "x.dat" };
	char *text = NULL;

	a1.conf = &oc;
	a2.conf = &dc;
	CHECK(run("tests/data/rpt-sched.dat", &a1) == 0, "overhead replay");
	CHECK(run("tests/data/rpt-drops.dat", &a2) == 0, "drops replay");
	RENDER(rpt_overhead_text(&ovh, &o, 0, f_), text);
	CHECK(text && strstr(text, "Overhead of") && strstr(text, "rpt-sched.dat") &&
	      strstr(text, "\nRecorder\n") && strstr(text, "\nAdvice\n"), "overhead text: %.200s",
	      text ? text : "");
	CHECK(text && !strstr(text, "note: "), "no notes on a clean file");
	free(text);
	text = NULL;
	/* the notes come from the result: damage and a raw clock, set by hand */
	ovh.notes.stream_errors = 2;
	ovh.notes.raw_clock = true;
	snprintf(ovh.notes.clock, sizeof(ovh.notes.clock), "x86-tsc");
	RENDER(rpt_overhead_text(&ovh, &o, 0, f_), text);
	CHECK(text && strstr(text, "note: the file is damaged (2 CPU streams stop early)"),
	      "damage note from the result");
	CHECK(text && strstr(text, "note: the clock (x86-tsc) is a raw counter"), "clock note");
	free(text);
	text = NULL;
	RENDER(rpt_drops_text(&dr, f_), text);
	CHECK(text && strstr(text, "Lost events in") && strstr(text, "rpt-drops.dat"), "drops text");
	CHECK(dr.notes.loss.markers > 0 && dr.notes.loss.events > 0, "loss notes kept: %d markers",
	      dr.notes.loss.markers);
	free(text);
	text = NULL;
	RENDER(rpt_notes_loss(&dr.notes, f_), text);
	CHECK(text && strstr(text, "note: events were lost between"), "loss note from data");
	free(text);
	rpt_overhead_result_release(&ovh);
	rpt_drops_result_release(&dr);
}

int main(void)
{
	test_callgraph();
	test_overhead();
	test_functions_recursion();
	test_text_from_results();
	return check_summary();
}
