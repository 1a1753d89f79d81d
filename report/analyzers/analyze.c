// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap analyze: several analyzers over one replay pass (design decision
 * 7), for the user who wants the whole picture of a file without reading
 * it once per question.  Each analyzer leaves what its own command prints,
 * written out in a fixed order (overhead, drops, callgraph) after the
 * pass, rendered from their result structures: text, or with --json
 * exactly each command's --json as a member of one object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyzers/callgraph.h"
#include "report/analyzers/drops.h"
#include "flytrap.h"
#include "report/out/json.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"

enum { A_OVERHEAD, A_DROPS, A_CALLGRAPH, A_NR };
static const char *const an_names[A_NR] = { "overhead", "drops", "callgraph" };

struct an_args {
	bool sel[A_NR];			/* chosen with --overhead, --drops, --callgraph */
	const char *opt[A_NR];		/* the first option given for each analyzer */
	struct rpt_overhead_conf ovc;
	struct rpt_drops_conf drc;
	struct rpt_cg_args cg;
};

static const char usage_text[] =
	"usage: flytrap analyze [--overhead] [--drops] [--callgraph] [options] [FILE]\n"
	"\n"
	"Run several analyzers over FILE (default trace.dat) in one pass: the file is\n"
	"read and decoded once, whatever the number of analyzers.  Each one prints\n"
	"what 'flytrap NAME' prints, in the order overhead, drops, callgraph.  Without\n"
	"a choice, all of them; the call graph only when the selected events have\n"
	"call or stack data.  --json prints one object with a member per analyzer,\n"
	"each the same as that command's --json.\n"
	"\n"
	"  --overhead         where the time went, what the tracing cost\n"
	"  --drops            every lost event\n"
	"  --callgraph        call trees (text; 'flytrap callgraph --folded' for stacks)\n"
	"\n"
	"overhead options:\n";

static const struct ft_opt an_select[] = {
	{ "overhead", 0, false, A_OVERHEAD + 1 }, { "drops", 0, false, A_DROPS + 1 },
	{ "callgraph", 0, false, A_CALLGRAPH + 1 }, { 0 },
};

/*
 * Table 0: which analyzers; then each analyzer's own table (1 overhead,
 * 2 drops, 3 callgraph), remembered per analyzer for an_check().
 */
static int an_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct an_args *A = arg;
	int k = table - 1, rc;

	if (!table) {
		A->sel[o->id - 1] = true;
		return 0;
	}
	if (k == A_OVERHEAD)
		rc = rpt_overhead_option(&A->ovc, 0, o, v);
	else if (k == A_DROPS)
		rc = rpt_drops_option(&A->drc, 0, o, v);
	else if (o->id == RPT_CG_O_FOLDED)
		return ft_usage_error("--folded: folded stacks do not mix with other output; "
				      "use 'flytrap callgraph --folded'");
	else
		rc = rpt_callgraph_option(&A->cg, 0, o, v);
	if (!rc && !A->opt[k])
		A->opt[k] = o->name;
	return rc;
}

/* the results of the analyzers that have a result structure (--json) */
struct an_results {
	struct rpt_overhead_result ovh;
	struct rpt_drops_result drops;
	struct rpt_cg_result cg; /* text mode (the JSON's symbol sources end with the replay) */
};

/*
 * One analyzer's member, rendered from its result; null when the analyzer
 * failed (it said why).  0 or -ENOMEM.
 */
static int json_member(struct rpt_json *j, int k, const struct an_args *A,
		       const struct an_results *res)
{
	rpt_json_key(j, an_names[k]);
	if (k == A_OVERHEAD && res->ovh.path)
		rpt_overhead_json(&res->ovh, j);
	else if (k == A_DROPS && res->drops.path)
		rpt_drops_json(&res->drops, j);
	else if (k == A_CALLGRAPH && res->cg.path)
		return rpt_cg_json(&res->cg, &A->cg.conf, j);
	else
		rpt_json_null(j);
	return 0;
}

/* an option of an analyzer that is not chosen is a mistake, not something to ignore */
static int an_check(void *arg, const struct rpt_opts *o)
{
	struct an_args *A = arg;
	bool chosen = false;
	int k;

	(void)o;
	for (k = 0; k < A_NR; k++)
		chosen |= A->sel[k];
	for (k = 0; k < A_NR; k++)
		if (A->opt[k] && chosen && !A->sel[k])
			return ft_usage_error("--%s is a %s option, and --%s is not chosen",
					      A->opt[k], an_names[k], an_names[k]);
	return EXIT_OK;
}

/* --json: one object, a member per analyzer chosen; 0 or -ENOMEM (as an exit code: EXIT_FAIL) */
static int json_out(const struct an_args *A, bool chosen, const struct an_results *res)
{
	struct rpt_json j;
	int k, err = 0;

	if (rpt_json_init(&j, stdout, 0))
		return ft_error("cannot analyze: %s", strerror(ENOMEM));
	rpt_json_obj(&j);
	for (k = 0; k < A_NR && !err; k++) {
		if (!A->sel[k] || (k == A_CALLGRAPH && !chosen && !A->cg.had_data))
			continue;
		err = json_member(&j, k, A, res);
	}
	rpt_json_obj_end(&j);
	RPT_JSON_LIT(&j, "\n");
	/* a failed write stays on stdout (rpt_out_failed) */
	if (rpt_json_done(&j) == -ENOMEM || err == -ENOMEM)
		return ft_error("cannot analyze: %s", strerror(ENOMEM));
	return 0;
}

/*
 * The text: every analyzer rendered from its result, a blank line between;
 * an analyzer that failed (it said why) is left out.
 */
static void text_out(const struct an_args *A, bool chosen, const struct rpt_opts *o,
		     const struct an_results *res)
{
	bool shown = false;

	if (A->sel[A_OVERHEAD] && res->ovh.path) {
		rpt_overhead_text(&res->ovh, o, A->ovc.top, stdout);
		shown = true;
	}
	if (A->sel[A_DROPS] && res->drops.path) {
		fputs(shown ? "\n" : "", stdout);
		rpt_drops_text(&res->drops, stdout);
		shown = true;
	}
	if (!A->sel[A_CALLGRAPH])
		return;
	if (!chosen && !A->cg.had_data)
		printf("%s(no call graph: no call or stack data in the selected events)\n",
		       shown ? "\n" : "");
	else if (res->cg.path) {
		fputs(shown ? "\n" : "", stdout);
		rpt_cg_text(&res->cg, o, &A->cg.conf, stdout);
	}
}

static int an_run(void *arg, struct fmt_reader *r, struct rpt_opts *o)
{
	struct an_args *A = arg;
	struct rpt_analyzer an[A_NR];
	const struct rpt_analyzer *list[A_NR];
	struct an_results res;
	bool chosen = false;
	int k, n = 0, rc, ret = EXIT_OK;

	memset(&res, 0, sizeof(res));
	for (k = 0; k < A_NR; k++)
		chosen |= A->sel[k];
	for (k = 0; k < A_NR && !chosen; k++)
		A->sel[k] = true;	/* the call graph is dropped below when it has nothing */
	ret = rpt_callgraph_setup(&A->cg);
	if (ret != EXIT_OK)
		return ret;
	an[A_OVERHEAD] = rpt_overhead_analyzer;
	an[A_OVERHEAD].conf = &A->ovc;
	an[A_DROPS] = rpt_drops_analyzer;
	an[A_DROPS].conf = &A->drc;
	an[A_CALLGRAPH] = rpt_callgraph_analyzer;
	an[A_CALLGRAPH].conf = &A->cg.conf;
	/* every analyzer leaves its result, rendered after the pass */
	A->ovc.result = &res.ovh;
	A->drc.result = &res.drops;
	A->cg.conf.result = &res.cg;
	for (k = 0; k < A_NR; k++)
		if (A->sel[k])
			list[n++] = &an[k];

	rc = rpt_replay(r, o, list, n);
	/* what the analyzers finished is shown, also when one failed or the data is damaged */
	if ((!rc || rc == -EBADMSG || rc == -ECANCELED) && o->json) {
		ret = json_out(A, chosen, &res);
		if (ret)
			goto out;
	} else if (!rc || rc == -EBADMSG || rc == -ECANCELED) {
		text_out(A, chosen, o, &res);
	}
	/* keep why stdout failed for the one message at the end */
	if (!rc || rc == -EBADMSG || rc == -ECANCELED)
		rpt_out_failed(stdout);
	ret = rpt_replay_status(rc, r, o, "analyze");
out:
	rpt_overhead_result_release(&res.ovh);
	rpt_drops_result_release(&res.drops);
	rpt_cg_result_release(&res.cg);
	A->ovc.result = NULL;
	A->drc.result = NULL;
	A->cg.conf.result = NULL;
	return rpt_callgraph_done(&A->cg, ret, o->path);
}

int cmd_analyze(int argc, char **argv)
{
	struct an_args A;
	char usage[4096];
	struct rpt_command c = { .usage = usage, .check = an_check, .option = an_option,
				 .opts = { an_select, rpt_overhead_opts, rpt_drops_opts,
					   rpt_callgraph_opts },
				 .run = an_run, .arg = &A };
	int rc;

	memset(&A, 0, sizeof(A));
	snprintf(usage, sizeof(usage), "%s%s\ndrops options:\n%s\ncallgraph options:\n%s\n"
		 "common options:\n", usage_text, rpt_overhead_options_help,
		 rpt_drops_options_help, rpt_callgraph_options_help);
	rc = rpt_run_command(argc, argv, &c);
	free(A.cg.dbg);		/* when the run never started (usage errors) */
	return rc;
}
