/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the Chrome trace-event writer: export.c decides what goes
 * where (tracks, slices, markers) as the replay runs; export_json.c writes
 * each trace event.  Both read struct exp.
 */
#ifndef FLYTRAP_EXPORT_INT_H
#define FLYTRAP_EXPORT_INT_H

#include <event-parse.h>
#include <stdbool.h>
#include <stdint.h>

#include "report/analyzers/export.h"
#include "report/core/calls.h"
#include "report/core/replay.h"
#include "report/out/json.h"
#include "report/syms/sysnames.h"

/* Pseudo process for the per-CPU tracks; above any Linux pid (PID_MAX_LIMIT is 2^22). */
#define CPU_PID 0x7ff00000
/*
 * Track ids under it are above any Linux tid too: Perfetto keys threads by
 * tid across processes, so a CPU track must not share a tid with a task.
 */
#define CPU_TID(cpu) (CPU_PID + 1 + (cpu))		/* which task runs on CPU n */
#define IRQ_TID(cpu) (CPU_PID + 0x10001 + (cpu))	/* interrupts on CPU n */
/* Idle tasks (pid 0) are per CPU: each gets its own track under pid 0. */
#define IDLE_TID_BASE 0x7fe00000
/*
 * When a file has both uprobe and BPF user-function records (both asked
 * for), the two describe the same calls with slightly different times and
 * cannot nest on one track: the BPF ones go to a second track of the task.
 */
#define SIDE_TID_OFFSET 0x40000000
#define MAX_OPEN 4096		/* open slices per thread; deeper entries are dropped */

enum kind {
	K_UNRESOLVED = 0,
	K_OTHER,
	K_SCHED_SWITCH,
	K_WAKEUP,		/* sched_wakeup, sched_wakeup_new */
	K_PROCESS_EXIT,
	K_RAW_SYS_ENTER,
	K_RAW_SYS_EXIT,
	K_SYS_ENTER,		/* syscalls:sys_enter_NAME */
	K_SYS_EXIT,
	K_FG_ENTRY,		/* ftrace:funcgraph_entry */
	K_FG_EXIT,
	K_PROBE_ENTRY,		/* uprobe / kprobe: __probe_ip */
	K_PROBE_RET,		/* __probe_func + __probe_ret_ip */
	K_BPF_SYSCALL,		/* flytrap:syscall */
	K_BPF_UENTRY,
	K_BPF_UEXIT,
	K_BPF_OFFCPU,		/* flytrap:offcpu: a blocked period, known at wake-up */
	K_IRQ_ENTRY,
	K_IRQ_EXIT,
	K_SOFTIRQ_ENTRY,
	K_SOFTIRQ_EXIT,
	K_NR
};

/* A slice's category as the JSON value it is written as (a name with nothing to escape). */
#define CAT(name) "\"" name "\""

struct exp_fname {
	const char *name;
	size_t len;
};

/* What export does with one event id, resolved once (resolve()). */
struct exp_evtype {
	uint8_t kind;
	bool kfunc;		/* K_BPF_UENTRY/UEXIT of flytrap:kfunc_*: bpf_kfunc= names */
	const char *name;	/* event-derived slice name (sys_enter_NAME, probe name) */
	const char *evname;	/* system:name for instants */
	uint64_t probe_name;	/* probes: the entry's name, hashed (a return pairs by it too) */
};

/*
 * The last slices closed at one nesting level (inside one open slice, or
 * at a thread's top level), to decide whether a call known only from its
 * exit can be placed without straddling one of them.  Slices close in
 * time order, so their ends only grow; older ones than the ring holds end
 * no later than the oldest kept.
 */
#define KIDS 4
struct level {
	uint64_t s[KIDS], e[KIDS];
	uint8_t n, pos;
	bool truncated;		/* more closed here than the ring holds */
};

struct oslice {
	struct rpt_call call;	/* first: how it pairs (report/core/calls.h) */
	uint64_t ts;
	uint64_t child_ns;	/* time in closed children (HTML call flame graph) */
	struct level kids;
	char name[63];		/* a copy: the HTML call flame graph, and names made on the fly */
	const char *nm;		/* the name as written when it outlives the replay; NULL: name[]
				 * (not a pointer into name[]: the array moves when it grows) */
	size_t nl;
	const char *cat;	/* CAT(): JSON text */
};

struct thr {
	int32_t pid, tid;	/* as written */
	int32_t real_tid;
	struct rpt_calls open;	/* of struct oslice */
	struct level top;	/* slices closed with nothing open */
	bool used;		/* something was written on this track */
	bool side;		/* the BPF function track of a task that also has uprobes */
};

struct cpu_state {
	bool known;		/* a sched_switch told who runs */
	int32_t cur;		/* pid running since run_start */
	uint64_t run_start;
	uint64_t first_ts;	/* first event on this CPU (start of a partial run) */
	bool seen;
	char comm[17];
	uint64_t irq_start, softirq_start;
	char irq_name[33];
	int32_t irq, softirq;
	bool in_irq, in_softirq;
	struct thr *last_thr;	/* thread() cache */
	uint64_t last_key;
};

/* A wakeup waiting for its task to run: both ends of the arrow are written then. */
struct wake {
	uint64_t ts;		/* 0: none pending */
	int32_t cpu;		/* where the waker ran */
};

struct exp {
	struct rpt_json j;	/* the Chrome JSON */
	bool based;		/* base chosen (at the first event) */
	uint64_t base;		/* subtracted from every timestamp, see ts_base() */
	struct rpt_types types;
	struct rpt_map threads;	/* key: tid, or IDLE key per CPU */
	struct rpt_map wakeups;	/* key: woken pid -> struct wake, until it runs */
	uint64_t flow_id;
	struct cpu_state *cpus;
	int ncpus;
	enum rpt_sys_abi abi;
	int nbusy;		/* CPUs running a task other than idle */
	uint64_t lost_total;
	/* statistics for otherData and -v */
	uint64_t slices, completes, instants, orphans, unnested, forced_ends, too_deep;
	uint64_t no_exit;	/* entries whose exit is not in the trace: written as instants */
	const char *trigger;	/* a flight dump's "trigger=" value (in meta), or NULL */
	size_t trigger_len;
	uint64_t trigger_ts;
	bool trigger_marked;
	struct rpt_json a;	/* the args object of the slice being written (in memory) */
	uint64_t sched_slices, irq_slices, flows;
	const struct fmt_meta *meta;	/* the file's flytrap metadata (owned by the reader) */
	struct exp_fname *ufn;	/* bpf_ufunc= names by index */
	uint32_t nufn;
	struct exp_fname *kfn;	/* bpf_kfunc= names by index */
	uint32_t nkfn;
	bool ufunc_side;	/* uprobes and BPF ufunc both recorded */
	struct trace_seq seq;	/* --instants: event text */
	bool seq_ready;
	const struct rpt_ctx *ctx;
	struct exp_html_data *hd;
};

/* ---- one trace event (export_json.c) ------------------------------------------- */

/* A timestamp as the viewers read it: microseconds from the base, see ts_base(). */
static inline void exp_ts(const struct exp *x, struct rpt_json *j, uint64_t ts)
{
	rpt_json_milli(j, ts > x->base ? ts - x->base : 0);
}

/* Start an event object on its own line: {"ph":"P","ts":T */
static inline void exp_ev_head(struct exp *x, char ph, uint64_t ts)
{
	struct rpt_json *j = &x->j;
	const char q[3] = { '"', ph, '"' };	/* ph is a letter: nothing to escape */

	rpt_json_newline(j);
	rpt_json_obj(j);
	RPT_JSON_KEY_LIT(j, "ph");
	rpt_json_value(j, q, 3);
	RPT_JSON_KEY_LIT(j, "ts");
	exp_ts(x, j, ts);
}

/* Start an event on the track pid/tid: {"ph":"P","ts":T,"pid":P,"tid":T */
void exp_ev(struct exp *x, char ph, uint64_t ts, int32_t pid, int32_t tid);
/* An instant event on pid/tid, open for its args: ..."s":"t","name":NAME */
void exp_instant(struct exp *x, uint64_t ts, int32_t pid, int32_t tid, const char *scope,
		 const char *name, size_t namelen);
/* The args of an entry whose exit is not in the trace, closing its event. */
void exp_no_exit_end(struct rpt_json *j);
/* The args of the next slice, empty until written into (x->a). */
struct rpt_json *exp_args_begin(struct exp *x);
/* One slice from start to end on pid/tid: B and E events, the args of x->a. */
void exp_slice_pair(struct exp *x, int32_t pid, int32_t tid, uint64_t start, uint64_t end,
		    const char *name, size_t namelen, const char *cat);
/* Metadata events: a track's or process's name, its sort index. */
void exp_meta_name(struct exp *x, const char *what, int32_t pid, int32_t tid, const char *name);
void exp_meta_sort(struct exp *x, const char *what, int32_t pid, int32_t tid, int64_t idx);
/* The end of the event list, and the figures of the export (otherData). */
void exp_trace_end(struct exp *x, const struct rpt_ctx *ctx);

#endif
