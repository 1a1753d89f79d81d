/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The overhead analyzer's result (issue 10: compute, then render): what
 * ovh_finish() computes, read by the text and JSON printers of
 * `overhead` and by `diff`.  It owns all its memory (strings included),
 * so it outlives the replay that filled it.  Every table is in the order
 * the text shows it (heaviest first) and holds only rows with data.
 */
#ifndef FLYTRAP_OVERHEAD_H
#define FLYTRAP_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/core/replay.h"	/* struct rpt_loss_summary */

struct rpt_json;

/* A CPU with events, inside --cpu. */
struct rpt_ovh_cpu {
	int cpu;
	bool known;		/* sched_switch data: busy and idle are measured */
	uint64_t busy_ns, idle_ns, switches;
};

struct rpt_ovh_task {
	int pid, tgid;
	char *comm;
	bool exited;
	uint64_t on_cpu_ns, runnable_ns, blocked_ns, switches;
	uint64_t syscalls, syscall_ns;	/* of the syscall source shown */
};

struct rpt_ovh_syscall {
	long nr;		/* -1: unknown */
	char *name;		/* "read", "syscall_N", "?" */
	uint64_t count, errors, total_ns, mean_ns, min_ns, p50_ns, p99_ns, max_ns;
	bool from_hist;		/* some figures come from in-kernel log2 histograms */
};

struct rpt_ovh_irq {
	int nr;
	char *name;
	uint64_t count, total_ns, max_ns;
};

struct rpt_ovh_type {
	int id;
	char *name;		/* "system:event" */
	uint64_t count, bytes, peak_rate;
	int peak_cpu;
};

/* A key=value line of the recorder's statistics (RECSTATS), as stored. */
struct rpt_ovh_stat {
	char *key, *value;
};

struct rpt_overhead_result {
	char *path;			/* the file */
	bool partial;			/* the replay stopped on damaged data */
	struct rpt_notes notes;		/* clock, damage, and the page losses inside the window */
	size_t nstats;
	struct rpt_ovh_stat *stats;
	uint64_t first_ts, last_ts;	/* the window the figures cover */
	uint64_t events, bytes;		/* events and bytes in the file (inside the filters) */
	char *recorded_pids;		/* a pid-limited recording's pids, or NULL */
	size_t ncpus, ntasks, nsyscalls, nirqs, nsoftirqs, ntypes;
	struct rpt_ovh_cpu *cpus;
	struct rpt_ovh_task *tasks;
	int syscall_source;		/* 0: tracepoints, 1: BPF records */
	uint64_t syscall_calls_other_source;
	struct rpt_ovh_syscall *syscalls;
	uint64_t syscalls_unmatched;
	struct rpt_ovh_irq *irqs, *softirqs;
	struct rpt_ovh_type *types;
	/* record --user-stack copies, within the types' bytes */
	uint64_t ucopy_stacks, ucopy_bytes;
	uint64_t stored_bytes, uncompressed_bytes;
	double compression_ratio;	/* 0: unknown */
	int nadvice;
	char *advice[12];
};

/* Frees what r holds and zeroes it; NULL or a zeroed result is a no-op. */
void rpt_overhead_result_release(struct rpt_overhead_result *r);

/* The result as `overhead` prints it: the tables, top rows each (0: 20). */
void rpt_overhead_text(const struct rpt_overhead_result *r, const struct rpt_opts *op, int top,
		       FILE *out);
/* The result as `overhead --json` prints it (one object, no newline). */
void rpt_overhead_json(const struct rpt_overhead_result *r, struct rpt_json *j);
/* The result as one JSON document and a newline on out: 0, or -ENOMEM. */
int rpt_overhead_print_json(const struct rpt_overhead_result *r, FILE *out);

#endif
