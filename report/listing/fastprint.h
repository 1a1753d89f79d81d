/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compiled event formatters: the INFO text of an event, byte for byte what
 * tep_print_event(tep, s, rec, "%s", TEP_PRINT_INFO) prints, without going
 * through libtraceevent's per-event print-format interpreter.
 *
 * Each event type's print format is compiled once, on first sight, into a
 * list of operations: literal text; integer fields with their printf
 * conversion (d i u x X o with h/hh/l/ll/z/L, width, precision, '-', '0',
 * '#'); plain %p; %pS/%ps/%pF/%pf kernel symbols; "%s" of char arrays,
 * __get_str(), string constants, __print_flags(), __print_symbolic() and
 * "cond ? a : b"; casts, array indexing (REC->args[N]) and arithmetic.
 * Events that libtraceevent's plugins print are formatted the way those
 * plugins do when they are the registered handlers: sched_switch,
 * sched_wakeup(_new) (plugin_sched_switch.so, including its comm
 * registration), kmem's "(func+0xoff) " call_site prefix (plugin_kmem.so),
 * hrtimer_start / hrtimer_expire_entry (plugin_hrtimer.so) and
 * sys_enter_futex (plugin_futex.so).  Anything else (other handlers such as
 * ftrace:function and the graph printer, bprint, %c,
 * '+' flags, %*, %pM/%pI/%pU/%ph, bitmasks, cpumasks, dynamic arrays,
 * printk-string pointers, ...) is declined so the caller falls back to
 * libtraceevent; so is any single record whose fields do not lie inside it.
 */
#ifndef FLYTRAP_FASTPRINT_H
#define FLYTRAP_FASTPRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

struct rpt_fastprint;

/*
 * A formatter cache for the events of tep.  Returns NULL (errno ENOMEM) on
 * allocation failure.  Free with rpt_fastprint_free(); tep must outlive it.
 * Kernel symbol lookups (%pS, plugin_kmem) are cached: load the symbol
 * table (kallsyms, tep_register_function) before the first
 * rpt_fastprint_info() call, as fmt_reader_open() does.
 */
struct rpt_fastprint *rpt_fastprint_new(struct tep_handle *tep);
void rpt_fastprint_free(struct rpt_fastprint *fp);

/*
 * Which libtraceevent's text to copy where two versions differ (the
 * sched_switch plugin's prev_state letters): 17 for 1.7 (trace-cmd 3.1.6,
 * the default of a new cache), 18 for 1.8.
 */
void rpt_fastprint_set_tep_version(struct rpt_fastprint *fp, int version);

/*
 * Append the INFO text of the event in rec (whose type is event) to s,
 * exactly as libtraceevent would, and return true; or return false without
 * touching s when this event type or this record is not handled here.  Like
 * the sched plugin, the sched formatters register the comms they print
 * with tep_register_comm().
 */
bool rpt_fastprint_info(struct rpt_fastprint *fp, struct trace_seq *s,
			struct tep_event *event, struct tep_record *rec);

/*
 * The same text appended to a caller's buffer: *buf holds *len bytes in
 * *cap (malloc'd, grown with realloc as needed, possibly from NULL).  On
 * true *len counts the text; on false *len is unchanged (*buf and *cap
 * may still have grown).  No trace_seq on the way: the listing's hot path.
 */
bool rpt_fastprint_append(struct rpt_fastprint *fp, struct tep_event *event, struct tep_record *rec,
			  char **buf, size_t *len, size_t *cap);

/* Counters since rpt_fastprint_new(), for tests and -v statistics. */
struct rpt_fastprint_stats {
	uint64_t fast;		/* records formatted here */
	uint64_t declined;	/* records handed back (type or record not handled) */
	int types_fast;		/* event types compiled */
	int types_declined;	/* event types refused */
};
void rpt_fastprint_stats(const struct rpt_fastprint *fp, struct rpt_fastprint_stats *st);

/*
 * Whether event's type is handled (compiling it if not seen yet), and when
 * it is not, a short reason ("handler", "__print_flags", "%pS", ...).
 */
bool rpt_fastprint_type_ok(struct rpt_fastprint *fp, struct tep_event *event, const char **why);

#endif
