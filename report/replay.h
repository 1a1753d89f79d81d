/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One replay pass, many analyzers (design decision 7).
 *
 * Each analyzer is one file in report/ that fills a struct rpt_analyzer and
 * is listed in the table in report/replay.c.  rpt_replay() opens nothing
 * itself: the command opens the file, parses the common options into a
 * struct rpt_opts, then runs one or more analyzers over one iteration of
 * the reader's timestamp-ordered events.
 */
#ifndef FLYTRAP_REPLAY_H
#define FLYTRAP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

/* Options every analyzer takes (style: --json, time window, CPU, pid, comm). */
struct rpt_opts {
	const char *path;	/* input file */
	bool json;
	bool has_t0, has_t1;
	uint64_t t0_ns, t1_ns;	/* window on displayed (adjusted) timestamps */
	bool has_cpus;
	uint64_t cpu_mask[4];
	int npids;
	int *pids;		/* malloc'd; matched against common_pid (and tgid where known) */
	int ncomms;
	char **comms;		/* globs, malloc'd */
	FILE *out;		/* stdout */
};

/*
 * Parse one common option at argv[*i] ("--json", "--from T", "--to T",
 * "--cpu LIST", "--pid N", "--comm GLOB", and their "=" forms).  Returns 1
 * if consumed (and advances *i past any value), 0 if not a common option,
 * or EXIT_USAGE after printing the one-line usage error.
 */
int rpt_opts_parse(struct rpt_opts *o, int argc, char **argv, int *i);
void rpt_opts_release(struct rpt_opts *o);
/* Help text lines for the common options (for each command's --help). */
extern const char rpt_opts_help[];

struct rpt_ctx {
	struct fmt_reader *r;
	struct tep_handle *tep;
	const struct fmt_info *info;
	const struct rpt_opts *opts;
	uint64_t first_ts, last_ts;	/* of the events that passed the filter */
	uint64_t nevents;		/* events that passed the filter */
};

struct rpt_analyzer {
	const char *name;
	size_t priv_size;		/* zeroed allocation passed as priv */
	int (*init)(struct rpt_ctx *ctx, void *priv);	/* 0 or -errno */
	/* Called for every event passing the filter, in timestamp order. */
	void (*event)(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev);
	/*
	 * Called for every event *before* filtering when set (e.g. drops must
	 * see loss markers outside the window; scheduling state needs history).
	 */
	void (*event_unfiltered)(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev);
	int (*finish)(struct rpt_ctx *ctx, void *priv);	/* 0 or -errno; prints its output */
	void (*release)(void *priv);
};

/* true if ev passes the time/CPU/pid/comm filter of ctx->opts */
bool rpt_event_selected(const struct rpt_ctx *ctx, const struct fmt_event *ev);

/*
 * Run analyzers over the file in one pass.  privs[i] receives each
 * analyzer's private state (allocated here, freed by rpt_replay).
 * Returns 0, or -errno; a damaged stream is reported on stderr and makes
 * the result non-zero after all readable events have been replayed.
 */
int rpt_replay(struct fmt_reader *r, const struct rpt_opts *opts,
	       const struct rpt_analyzer *const *an, int n);

#endif
