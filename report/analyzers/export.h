/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to `flytrap export` (export_cmd.c: the command; export.c: the
 * Chrome trace-event writer, what goes where; export_json.c: how one trace
 * event is written; html.c: the one-page HTML report).
 */
#ifndef FLYTRAP_EXPORT_H
#define FLYTRAP_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/core/replay.h"

/*
 * CPU use, event rate and losses over time in a fixed number of buckets
 * whose width doubles (pairs merged) whenever the trace outgrows them, so
 * memory is fixed per CPU whatever the length of the trace.
 */
#define EXP_TL_BUCKETS 400

struct exp_timeline {
	bool started;
	uint64_t base;		/* start of bucket 0, ns */
	uint64_t width;		/* ns per bucket */
	int ncpus;		/* rows allocated in busy */
	uint64_t *busy;		/* [cpu * EXP_TL_BUCKETS + b]: ns some task other than idle ran */
	uint64_t events[EXP_TL_BUCKETS];
	uint64_t lost[EXP_TL_BUCKETS];		/* counted losses */
	uint64_t lost_unknown[EXP_TL_BUCKETS];	/* loss markers without a count */
	uint64_t bpf_lost[EXP_TL_BUCKETS];
	uint64_t first_ts, last_ts;
	bool have_sched;	/* some sched_switch seen: busy is meaningful */
	uint64_t cpus_seen[4];	/* CPUs with events */
};

void exp_tl_release(struct exp_timeline *tl);
/* 0 or -ENOMEM */
int exp_tl_event(struct exp_timeline *tl, uint64_t ts, int cpu);
int exp_tl_busy(struct exp_timeline *tl, int cpu, uint64_t from, uint64_t to);
int exp_tl_loss(struct exp_timeline *tl, uint64_t ts, int64_t count, bool bpf);

/* What the Chrome writer hands over to the HTML page (html mode only). */
struct exp_html_data {
	struct exp_timeline tl;
	/* calls (syscalls, functions) as they closed: self ns per stack */
	struct rpt_flame *calls;
	/* on-CPU ns per task, for the flame graph when the file has no call data */
	struct rpt_flame *oncpu;
	/* events per task and event type, the last resort for the flame graph */
	struct rpt_flame *byevent;
	uint64_t nevents, first_ts, last_ts;
	int nlosses;
	uint64_t lost_events;
};

struct exp_html_input {
	const char *path;		/* trace file */
	const struct fmt_info *info;
	struct exp_html_data *data;
	struct rpt_flame *calls;	/* from the callgraph analyzer, may be empty */
	const char *calls_unit;
	bool calls_from_analyzer;	/* else built by export from the slices it wrote */
	/* the analyzers' results (report/analyzers/overhead.h, drops.h); NULL: not available (why_*) */
	const struct rpt_overhead_result *overhead;
	const struct rpt_drops_result *drops;
	const char *why_overhead, *why_drops;
	const char *filters;		/* human text of the filters in effect, "" if none */
};

/* Write the page; 0 or -EIO. */
int exp_html_write(FILE *out, const struct exp_html_input *in);

/* What the command (export_cmd.c) tells the Chrome writer (export.c). */
struct exp_conf {
	bool instants;		/* every other event as an instant marker */
	bool html;
	struct exp_html_data *html_data;
	FILE *out;
	int write_errno;	/* first failed write */
};

/* One export per process: the command sets it before the replay. */
extern struct exp_conf exp_conf;

/* The Chrome trace-event writer, an analyzer of the replay. */
extern const struct rpt_analyzer exp_analyzer;

#endif
