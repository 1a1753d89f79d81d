/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The call graph analyzer's result (issue 10: compute, then render): what
 * cg_finish() computes from the replay, read by the text, JSON and folded
 * printers of `callgraph`, by the flame graph, and by `diff`.  It owns
 * all its memory, so it outlives the replay that filled it.
 */
#ifndef FLYTRAP_CALLGRAPH_H
#define FLYTRAP_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/core/replay.h"	/* struct rpt_notes */

struct rpt_syms;

#define RPT_CG_NONE UINT32_MAX		/* no parent, child or sibling */

/* One call path: node 0 is the root ("all"); its children are the outermost callers. */
struct rpt_cg_node {
	uint32_t parent, first_child, next_sibling;	/* RPT_CG_NONE when absent */
	uint32_t name;		/* index into rpt_cg_result.names */
	int pid;		/* a "comm-pid" task frame (--group process|thread): its pid; -1 otherwise */
	uint64_t count, total, self;	/* calls (or hits), weight with and without callees */
	bool group;		/* a frame --group put on top (a task name, or comm-pid) */
	/*
	 * a function inlined into its parent's code at that address (DWARF);
	 * its name ends in " (inlined)", as perf script prints it
	 */
	bool inlined;
};

enum { RPT_CG_CUT_OUTSIDE, RPT_CG_CUT_REPEAT, RPT_CG_CUT_NR };

/* A binary an address needed, and what named its functions (copied from the symbol tables). */
struct rpt_cg_binary {
	char *path;
	char *build_id;		/* hex, NULL when none was recorded */
	char *source;		/* "symtab", "dynsym", "minidebuginfo", "debug file", ... "none" */
	int functions;		/* functions known */
	bool debuginfod_timeout;	/* debuginfod gave up at DEBUGINFOD_TIMEOUT */
};

struct rpt_cg_result {
	char *path;		/* the file */
	bool partial;		/* the replay stopped on damaged data */
	struct rpt_notes notes;	/* clock, damage and loss over the selected events' span */
	int source;		/* the tree shown: RPT_CG_CALLS, _SAMPLES, _OFFCPU or _BPF_STACKS */
	const char *source_name;	/* "calls", "samples", "offcpu", "bpf-stacks" (static) */
	const char *unit;		/* "ns" or "samples" (static) */
	bool empty;		/* the tree shown has no node */
	bool per_task;		/* grouped by thread (--per-task, --group thread) */
	const char *group;	/* "none", "comm", "process" or "thread" (static) */
	uint64_t events;	/* selected events */
	uint64_t total;		/* weight of the whole tree */
	uint32_t source_nodes[4];	/* nodes of the calls, samples, offcpu, bpf-stacks trees */
	uint64_t calls_completed, calls_open, unmatched_exits, lost_frames;
	uint64_t user_stacks, cut[RPT_CG_CUT_NR];	/* of the source shown */
	uint64_t frameless;	/* of the source shown: stacks with no frame (no node of their own) */
	/*
	 * record --user-stack cfi|dwarf: stacks unwound from their copies, and
	 * of them those spliced onto the frame-pointer walk, unwound to the
	 * outermost frame, or stopped short ([unwind: REASON]), or left to the
	 * frame-pointer walk (the sampled binary is not here); mode "" without
	 */
	const char *unwind_mode;
	uint64_t unwound, unwind_spliced, unwind_complete, unwind_marked, unwind_fp_only;
	uint64_t pre_exec;	/* user stacks named from the parent's image (before an exec) */
	uint64_t earlier_image;	/* ... from an image the process ran until a later exec */
	int depth;		/* deepest node */
	struct rpt_cg_node *nodes;	/* n nodes, a parent before its children */
	uint32_t n;
	char **names;		/* frame names (task frames: "comm-pid") */
	uint32_t nnames;
	char *syms_missing;	/* binaries without symbols, "" for none */
	int nsyms_missing;
	/* which source named each binary's frames (the JSON's "binaries") */
	bool debuginfod;	/* debuginfod could be asked */
	struct rpt_cg_binary *binaries;
	uint32_t nbinaries;
	/*
	 * bpf-stacks (record --bpf-object): whether the file has a source of
	 * stack ids at all, and for the tree shown the source used ("OBJECT/MAP",
	 * NULL: none), whether its records or a map's last snapshot (read at
	 * bpf_ts, bpf_why "end", "snapshot" or "dump"), the others there are
	 * (", "-separated, "" for none), the weight of stack ids that were not
	 * collected (the kernel's -errno) or that the stack map's snapshot
	 * lacks, and entries skipped because their value holds no count
	 */
	bool has_bpf_stacks;
	char *bpf_source;
	bool bpf_ring;
	uint64_t bpf_ts;
	const char *bpf_why;
	bool bpf_truncated;
	char *bpf_others;
	uint64_t bpf_not_collected, bpf_missing, bpf_skipped;
};

/* Frees what r holds and zeroes it; NULL or a zeroed result is a no-op. */
void rpt_cg_result_release(struct rpt_cg_result *r);

struct rpt_json;
/* The result as `callgraph --json` prints it: one object (no newline); 0 or -ENOMEM. */
int rpt_cg_json(const struct rpt_cg_result *r, const struct rpt_callgraph_conf *c,
		struct rpt_json *j);
/* The result as `callgraph` prints it (text, with c's --depth/--min-percent/...). */
int rpt_cg_text(const struct rpt_cg_result *r, const struct rpt_opts *op,
		const struct rpt_callgraph_conf *c, FILE *f);

/*
 * Per function: every node of a name added up (task frames left out).
 * total counts a function once per path, not again inside a recursive
 * call of itself, so it never exceeds the whole tree's weight.
 */
struct rpt_cg_func {
	uint32_t name;		/* index into the result's names */
	uint64_t count, self, total;
};

/*
 * The functions of r in name order of first appearance (node order):
 * *out malloc'd (the caller frees it), *n entries.  0 or -ENOMEM.
 */
/* --group's names, by enum rpt_cg_group; the option's parser (exit 2 on a wrong name) */
extern const char *const rpt_cg_group_names[];
int rpt_cg_group_opt(enum rpt_cg_group *g, const char *v);

int rpt_cg_functions(const struct rpt_cg_result *r, struct rpt_cg_func **out, size_t *n);

/*
 * Every stack of r with a self weight, heaviest first, as its folded line
 * ("outer;...;inner", ';' and line breaks in names replaced) of len bytes
 * and that weight.  fn returns 0, or a negative errno that ends the walk
 * and is returned.  0, -ENOMEM or fn's error.
 */
typedef int (*rpt_cg_stack_fn)(void *arg, const char *stack, size_t len, uint64_t self);
int rpt_cg_result_stacks(const struct rpt_cg_result *r, rpt_cg_stack_fn fn, void *arg);

struct rpt_flame;
/* Add r's stacks (self weights) to a flame graph.  0 or -ENOMEM. */
int rpt_cg_result_flame(const struct rpt_cg_result *r, struct rpt_flame *fl);
/* The same into the graph's base (the "before" of a differential graph, rpt_flame_add_base). */
int rpt_cg_result_flame_base(const struct rpt_cg_result *r, struct rpt_flame *fl);


#endif
