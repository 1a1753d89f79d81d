/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report -w: wakeup latencies as trace-cmd's show_wakeup computes them, from
 * a task's sched_wakeup (or _new) to its next switch-in.  The listing hands
 * each event to rpt_wakeup_event, which appends the latency to a switch
 * line; rpt_wakeup_print writes the summary after the listing.
 */
#ifndef FLYTRAP_LISTING_WAKEUP_H
#define FLYTRAP_LISTING_WAKEUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "report/core/replay.h"

struct tep_handle;
struct tep_format_field;

/* The latencies of one class (all tasks, or real-time ones) and where min and max were. */
struct rpt_wakeup_sums {
	uint64_t total, count;
	uint64_t max, max_ts, min, min_ts;
};

struct rpt_wakeup {
	int wk_id, wk_new_id, sw_id;
	struct tep_format_field *wk_pid, *wk_success, *wk_new_pid, *wk_new_success;
	struct tep_format_field *sw_next_pid, *sw_next_prio;
	struct rpt_map woken;		/* pid -> struct rpt_wakeup_pending */
	struct rpt_wakeup_sums all, rt;
};

/*
 * Resolve the sched events of the file whose formats tep holds (r loads
 * them).  false: the file lacks them; trace-cmd then prints no latency at
 * all, and the caller leaves -w off silently, as it does.
 */
bool rpt_wakeup_init(struct rpt_wakeup *w, struct fmt_reader *r, struct tep_handle *tep);
/*
 * Account one event: a wakeup notes its task's start, the task's next
 * switch-in closes it.  out (outsz bytes) receives " Latency: N.NNN usecs"
 * for a switch that closed a wakeup, else "".
 */
void rpt_wakeup_event(struct rpt_wakeup *w, const struct fmt_event *ev, char *out, size_t outsz);
/* The summary after the listing (nothing when no latency was measured). */
void rpt_wakeup_print(const struct rpt_wakeup *w, FILE *f);
void rpt_wakeup_release(struct rpt_wakeup *w);

#endif
