/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The drops analyzer's result (issue 10: compute, then render): what
 * drops_finish() computes, read by the text and JSON printers of `drops`,
 * by `export --html` and by `analyze`.  It owns all its memory, so it
 * outlives the replay that filled it.
 */
#ifndef FLYTRAP_DROPS_H
#define FLYTRAP_DROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/core/replay.h"	/* struct rpt_notes */

struct rpt_json;

/* A named count: an event type's records, a recorder counter. */
struct rpt_drops_count {
	char *name;
	uint64_t count;
};

/* One (buffer, CPU) stream inside --cpu, in buffer then CPU order. */
struct rpt_drops_stream {
	char *buffer;			/* "" for the top instance */
	int buffer_index;
	int cpu;
	bool bpf;			/* the buffer of the BPF records: its marks are BPF loss */
	uint64_t events, bytes, pages, first_ts, last_ts;
	uint64_t markers, lost_marked, unknown_markers;
	bool kernel;		/* the kernel's end-of-recording CPU stats are in the file */
	bool start_stats;		/* and those of the start */
	uint64_t overrun, commit_overrun, dropped, kernel_lost, entries_at_end, read;
	uint64_t lost;			/* kernel_lost or lost_marked, the larger */
	uint64_t complete_from, complete_to;
	bool drops_unmarked;		/* the kernel dropped events it did not mark */
	size_t ntypes;
	struct rpt_drops_count *types;	/* event types recorded on it */
};

struct rpt_drops_bpf {
	uint32_t prog, cpu;
	char *name;			/* NULL: the file does not name the program */
	uint64_t count;
};

struct rpt_drops_window {
	uint64_t start, end, events, markers, lost_marked, unknown_markers, bpf;
};

/* A page loss marker (or markers merged into one gap) inside the window and --cpu. */
struct rpt_drops_loss {
	char *buffer;
	int cpu;
	uint64_t after_ts, ts;
	int64_t count;			/* -1: the kernel had no room to count */
	unsigned markers;
};

/* A flight/budget recorder's "shed" window: an event let go on purpose. */
struct rpt_drops_shed {
	uint64_t from_ts, to_ts;	/* to_ts 0: until the end */
	char *event, *why;
};

#define RPT_DROPS_MAX_ANALYSES 8
#define RPT_DROPS_MAX_ADVICE 16

struct rpt_drops_result {
	char *path;
	bool partial;			/* the replay stopped on damaged data */
	struct rpt_notes notes;		/* the text's clock and damage notes */
	bool windowed, has_t0, has_t1;	/* --from / --to */
	uint64_t t0, t1, nsel;		/* the window, and the events inside it */
	bool narrowed_by_task;		/* --pid or --comm given (they do not narrow losses) */
	uint64_t events, first_ts, last_ts;
	uint64_t events_in_file, file_first_ts, file_last_ts;
	/*
	 * totals: lost is the one loss figure (fig.total); the marks and the
	 * kernel's counters are those of the kernel's buffers, the BPF
	 * buffer's marks apart (they count the BPF failures again)
	 */
	uint64_t lost, lost_marked, loss_markers, unknown_markers, kernel_lost, unread_at_end;
	uint64_t bpf_drops, recorder_lost;
	uint64_t bpf_lost_marked, bpf_loss_markers;
	struct rpt_loss_fig fig;
	bool kernel_counters, kernel_start_stats, has_recstats;
	bool kernel_start_missing;	/* a stream has end stats but none of the start */
	size_t nstreams, nbpf, nrecorder, nwindows, nlosses, ntypes, nanalyses, nshed, nadvice;
	struct rpt_drops_stream *streams;
	struct rpt_drops_bpf *bpf;
	struct rpt_drops_count *recorder;	/* the recorder's loss counters */
	uint64_t window_ns;			/* 0: no windows */
	struct rpt_drops_window *windows;
	struct rpt_drops_loss *losses;
	struct rpt_drops_count *types;		/* types on the CPUs that lost, most first */
	const char *analyses[RPT_DROPS_MAX_ANALYSES];	/* static strings */
	struct rpt_drops_shed *shed;
	char *flight_cpu_data_start;	/* a flight dump's "buffer/CPU:time" list, or NULL */
	char *trigger;				/* its trigger, or NULL */
	char *advice[RPT_DROPS_MAX_ADVICE];
};

/* The result as `drops` prints it (text tables). */
void rpt_drops_text(const struct rpt_drops_result *r, FILE *out);
/* The result as `drops --json` prints it (one object, no newline). */
void rpt_drops_json(const struct rpt_drops_result *r, struct rpt_json *j);
/* The result as one JSON document and a newline on out: 0, or -ENOMEM. */
int rpt_drops_print_json(const struct rpt_drops_result *r, FILE *out);

/* Frees what r holds and zeroes it; a zeroed result is a no-op. */
void rpt_drops_result_release(struct rpt_drops_result *r);

#endif
