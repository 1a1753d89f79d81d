// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap export, the command: its options, the output file, and for
 * --html the other analyzers (callgraph, overhead, drops) run in the same
 * pass as the Chrome writer (export.c), whose figures the page shows
 * (html.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "report/analyzers/callgraph.h"
#include "report/analyzers/drops.h"
#include "report/analyzers/export.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"
#include "report/out/flamesvg.h"
#include "report/out/outfile.h"

/* ---- HTML: the other analyzers in the same pass ------------------------------ */


static int run_html(struct fmt_reader *r, struct rpt_opts *o, FILE *out, const char *outpath,
		    enum rpt_cg_group group)
{
	struct exp_html_data hd = { 0 };
	struct rpt_callgraph_conf cgc = { 0 };
	struct rpt_cg_result cgres = { 0 };
	struct rpt_analyzer cg, ex = exp_analyzer, ov, dr;
	const struct rpt_analyzer *list[4];
	struct exp_html_input in = { 0 };
	struct rpt_overhead_conf ovc = { 0 };
	struct rpt_drops_conf drc = { 0 };
	struct rpt_overhead_result ovres = { 0 };
	struct rpt_drops_result drres = { 0 };
	FILE *devnull = NULL;
	const char *unit = NULL;
	char filters[512];
	int n = 0, rc, ret = EXIT_OK;
	struct rpt_flame *calls = rpt_flame_new();

	if (!calls)
		return ft_error("cannot export: %s", strerror(ENOMEM));
	/* the Chrome JSON is not wanted here, only what export gathers for the page */
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		ret = ft_error("cannot export: %s", strerror(errno));
		goto out;
	}
	exp_conf.html = true;
	exp_conf.html_data = &hd;
	exp_conf.out = devnull;
	o->json = true;
	ex.out = devnull;
	/* --instants prints events through libtraceevent: nothing beside it */
	ex.tep_writes = exp_conf.instants;
	list[n++] = &ex;
	/* callgraph's stacks go into the flame graph; the results are taken, so none prints */
	cg = rpt_callgraph_analyzer;
	cgc.group = group;
	cgc.flame = calls;
	cgc.flame_unit = &unit;
	cgc.result = &cgres;
	cg.conf = &cgc;
	list[n++] = &cg;
	ov = rpt_overhead_analyzer;
	ovc.result = &ovres;
	ov.conf = &ovc;
	list[n++] = &ov;
	dr = rpt_drops_analyzer;
	drc.result = &drres;
	dr.conf = &drc;
	list[n++] = &dr;

	rc = rpt_replay(r, o, list, n);
	if (rc && rc != -EBADMSG) {
		ret = rpt_replay_status(rc, r, o, "export");
		goto out;
	}
	/* damaged data: the page covers what was read */
	ret = rpt_replay_status(rc, r, o, "export");
	in.path = o->path;
	in.info = fmt_reader_info(r);
	in.data = &hd;
	in.calls = calls;
	in.calls_unit = unit;
	in.calls_from_analyzer = true;
	if (!rpt_flame_total(calls)) {
		/* nothing the callgraph analyzer could use: the slices export closed */
		in.calls = hd.calls;
		in.calls_unit = "ns";
		in.calls_from_analyzer = false;
	}
	in.overhead = ovres.path ? &ovres : NULL;	/* path: the analyzer finished */
	in.why_overhead = "the overhead analyzer gave no output";
	in.drops = drres.path ? &drres : NULL;
	in.why_drops = "the drops analyzer gave no output";
	in.filters = rpt_fmt_filters(o, filters, sizeof(filters));
	errno = 0;
	if (exp_html_write(out, &in) || fflush(out) || ferror(out)) {
		int e = errno ? errno : EIO;

		/* `| head`: the reader left, quietly; stdout is named once by the front end */
		if (!outpath)
			rpt_set_out_errno(e);
		else if (e != EPIPE)
			ret = ft_error("cannot write '%s': %s",
				       outpath ? outpath : "standard output", strerror(e));
	}
out:
	if (devnull)
		fclose(devnull);
	rpt_cg_result_release(&cgres);
	rpt_overhead_result_release(&ovres);
	rpt_drops_result_release(&drres);
	exp_tl_release(&hd.tl);
	rpt_flame_free(hd.oncpu);
	rpt_flame_free(hd.byevent);
	rpt_flame_free(hd.calls);
	rpt_flame_free(calls);
	return ret;
}

/* ---- command ---------------------------------------------------------------- */

static const char usage_text[] =
"usage: flytrap export [FILE] [-o OUT] [--html | --json] [options]\n"
"\n"
"Write the trace as Chrome trace-event JSON, the format the Perfetto UI\n"
"(ui.perfetto.dev) and chrome://tracing open: tasks as tracks with their\n"
"syscalls and function calls as slices, one track per CPU showing which\n"
"task runs and its interrupts, lost events as markers.  With --html, write\n"
"one self-contained page instead (flame graph, CPU/drops timeline,\n"
"overhead and drops tables) to attach to a bug report.\n"
"\n"
"  FILE               input (default trace.dat)\n"
"  -o, --output OUT   write to OUT instead of standard output\n"
"  --html             the HTML report instead of JSON\n"
"  --json             the Chrome trace-event JSON (the default; the other\n"
"                     analyzers' --json has no other meaning here)\n"
"  --instants         also every other event, as an instant marker on its task\n"
"  --group G          --html: the flame graph's towers per comm (task name,\n"
"                     the default), process (comm-tgid), thread (comm-tid)\n"
"                     or none\n";

struct exp_args {
	const char *outpath;
	bool html, json;
	bool group_set;
	enum rpt_cg_group group;	/* the HTML flame graph's top frames */
};

enum { EXP_O_HTML = 1, EXP_O_JSON, EXP_O_INSTANTS, EXP_O_OUTPUT, EXP_O_GROUP };

static const struct ft_opt exp_opts[] = {
	{ "html", 0, false, EXP_O_HTML }, { "json", 0, false, EXP_O_JSON },
	{ "instants", 0, false, EXP_O_INSTANTS }, { "output", 'o', true, EXP_O_OUTPUT },
	{ "group", 0, true, EXP_O_GROUP }, { 0 },
};

static int exp_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct exp_args *A = arg;

	(void)table;
	switch (o->id) {
	case EXP_O_HTML:
	case EXP_O_JSON:
		if (o->id == EXP_O_HTML ? A->json : A->html)
			return ft_usage_error("--html and --json: the output is one or the other");
		*(o->id == EXP_O_HTML ? &A->html : &A->json) = true;
		return 0;
	case EXP_O_INSTANTS:
		exp_conf.instants = true;
		return 0;
	case EXP_O_GROUP:
		A->group_set = true;
		return rpt_cg_group_opt(&A->group, v);
	default:
		if (!*v)
			return ft_usage_error("'--output' needs a file name");
		A->outpath = v;
		return 0;
	}
}

static int exp_run(void *arg, struct fmt_reader *r, struct rpt_opts *o)
{
	struct exp_args *A = arg;
	const struct rpt_analyzer *list[1] = { &exp_analyzer };
	FILE *out = stdout;
	struct fmt_outfile of;
	int rc, ret = EXIT_OK;

	if (A->outpath) {
		const char *why = NULL;

		if (fmt_outfile_check(A->outpath, &why) && why)
			return ft_usage_error("cannot write '%s': %s", A->outpath, why);
		/* written under a temporary name, renamed into place when whole */
		out = rpt_text_out_begin(A->outpath, &of);
		if (!out)
			return ft_error("cannot create '%s': %s", A->outpath, strerror(errno));
	}
	/* big blocks: the JSON writer hands over 256 KiB at a time anyway */
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	if (A->group_set && !A->html)
		return ft_usage_error("--group is for the flame graph of --html");
	if (A->html) {
		ret = run_html(r, o, out, A->outpath, A->group_set ? A->group : RPT_CG_GROUP_COMM);
	} else {
		exp_conf.out = out;
		rc = rpt_replay(r, o, list, 1);
		if (rc == -EIO && exp_conf.write_errno && !A->outpath) {
			/* the command front end names standard output once (EPIPE: quietly) */
			rpt_set_out_errno(exp_conf.write_errno);
			ret = EXIT_OK;
		} else if (rc == -EIO && exp_conf.write_errno == EPIPE)
			ret = EXIT_OK;	/* `| head`: the reader left, quietly */
		else if (rc == -EIO && exp_conf.write_errno)
			ret = ft_error("cannot write '%s': %s",
				       A->outpath ? A->outpath : "standard output",
				       strerror(exp_conf.write_errno));
		else
			ret = rpt_replay_status(rc, r, o, "export");
	}
	if (A->outpath) {
		/* a failed export leaves nothing that looks like one */
		int e = rpt_text_out_end(out, &of, ret == EXIT_OK);

		if (e && ret == EXIT_OK)
			ret = ft_error("cannot write '%s': %s", A->outpath, strerror(-e));
	}
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct exp_args A = { 0 };
	struct rpt_command c = { .usage = usage_text, .no_json = true, .opts = { exp_opts },
				 .option = exp_option,
				 .run = exp_run, .arg = &A };

	memset(&exp_conf, 0, sizeof(exp_conf));
	return rpt_run_command(argc, argv, &c);
}
