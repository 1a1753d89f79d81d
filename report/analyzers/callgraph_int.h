/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What callgraph.c (building the tree) and callgraph_print.c (printing it)
 * share, and nothing else includes: the sources, the reasons a user stack
 * was cut, and the printers the analyzer's finish calls.
 */
#ifndef FLYTRAP_CALLGRAPH_INT_H
#define FLYTRAP_CALLGRAPH_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/analyzers/callgraph.h"

enum src { S_CALLS, S_SAMPLES, S_OFFCPU, S_BPF, S_NR };
extern const char *const rpt_cg_src_names[S_NR];

/* why a user stack was cut (design decision 11: one "[unwind: REASON]" frame) */
enum cut { CUT_OUTSIDE, CUT_REPEAT, CUT_NR };
extern const char *const rpt_cg_cut_reasons[CUT_NR];	/* the frame's text */
extern const char *const rpt_cg_cut_keys[CUT_NR];	/* their JSON keys */

/* what text and folded output append to an inlined function's name, as perf script does */
#define INLINED " (inlined)"

/* the stacks of r, handed to fn (NULL: none) and/or added to flame (NULL: none) */
int rpt_cg_fold(const struct rpt_cg_result *r, rpt_cg_stack_fn fn, void *arg,
		struct rpt_flame *flame, bool base);
/* r as one JSON document on f, or as folded stacks: 0 or -errno */
int rpt_cg_print_json(const struct rpt_cg_result *r, const struct rpt_callgraph_conf *c, FILE *f);
int rpt_cg_print_folded(const struct rpt_cg_result *r, FILE *f);

#endif
