/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One replay pass, many analyzers (design decision 7).
 *
 * Each analyzer is one file in report/ that fills a struct rpt_analyzer and
 * is listed in the table in report/core/replay.c.  rpt_replay() opens nothing
 * itself: the command opens the file, parses the common options into a
 * struct rpt_opts, then runs one or more analyzers over one iteration of
 * the reader's timestamp-ordered events.
 */
#ifndef FLYTRAP_REPLAY_H
#define FLYTRAP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flytrap.h"
#include "format.h"
#include "report/core/kinds.h"

/* Options every analyzer takes (style: --json, time window, CPU, pid, comm). */
struct rpt_opts {
	const char *path;	/* input file */
	bool json;
	bool has_t0, has_t1;
	uint64_t t0_ns, t1_ns;	/* window on displayed (adjusted) timestamps */
	const char *t0_arg, *t1_arg;	/* as given: rpt_opts_resolve() reads them per clock */
	bool has_cpus;
	uint64_t cpu_mask[4];
	int npids;
	int *pids;		/* malloc'd; matched against common_pid (and tgid where known) */
	int ncomms;
	char **comms;		/* globs, malloc'd */
	int threads;		/* --threads: reading threads, 0 = rpt_threads_default() */
	FILE *out;		/* stdout */
};

#define RPT_MAX_THREADS 256
/* below this many cores of measured parallelism, the default is one thread */
#define RPT_PARALLEL_MIN 1.6
/* below this file size, the default is one thread (no measuring) */
#define RPT_THREADS_MIN_FILE (4ULL << 20)
/*
 * The default --threads of a read that hands events from thread to thread
 * (the reader's pipeline, its decoding workers): rpt_usable_cores() when
 * two threads started cold really run in parallel (rpt_parallel_cores() >= RPT_PARALLEL_MIN),
 * else 1, so that the default is never slower than --threads 1.  Measured
 * once per process.
 */
int rpt_threads_default(void);
/* The same for a file of file_size bytes: 1 below RPT_THREADS_MIN_FILE. */
int rpt_threads_for(uint64_t file_size);
/*
 * The default count of threads for ranged analysis (replay.c): the usable
 * cores, 1 below RPT_THREADS_MIN_FILE.  Not the measure: ranges run apart.
 */
int rpt_ranges_for(uint64_t file_size);
/* The affinity mask's cores, fewer where a cgroup CPU quota allows fewer. */
int rpt_usable_cores(void);
/*
 * Cores a cgroup CPU quota allows the process (v2 cpu.max, v1
 * cpu.cfs_quota_us, the smallest from its group up), 0 when none: from
 * the files given (/proc/self/cgroup, /proc/self/mountinfo), each mount
 * point under prefix (NULL: /; tests build a tree).
 */
double rpt_cgroup_cores_at(const char *proc_cgroup, const char *mountinfo, const char *prefix);
/*
 * Cores two threads started side by side get at once, 1 to 2, measured
 * once per process (FLYTRAP_PARALLEL=X sets it).
 */
double rpt_parallel_cores(void);

/*
 * Do a CPU's stamps stay in order once the file's options adjust them
 * (TSC2NSEC, OFFSET, DATE)?  The facts say the raw stamps are; a negative
 * offset that wraps, or a multiplier the conversion takes as negative,
 * can still reorder them, and a window read that picks chunks by adjusted
 * stamps then needs the whole file.
 */
bool rpt_facts_adjusted_sorted(struct fmt_reader *r, int buffer, int cpu,
			       const struct fmt_cpu_facts *cf);
/*
 * Can a CPU's state records stand in for its chunks?  One entry per chunk
 * of its facts, no chunk with more records or pages with events than
 * events, every record stamped within its chunk's first and last.
 */
bool rpt_state_fits(const struct fmt_cpu_facts *cf, const struct fmt_cpu_state *cs);
/* A stream's place among equal stamps in the merge's order: buffer, then CPU. */
static inline int rpt_stream_rank(int buffer, int cpu)
{
	return buffer << 16 | (cpu & 0xffff);
}
/* Parse a --threads value into *out; -1 after the one-line usage error. */
int rpt_threads_arg(const char *v, int *out);

/*
 * The options every analyzer command takes, as tables for the one option
 * parser (ft_opt_next, flytrap.h).
 */
extern const struct ft_opt rpt_filter_opts[];	/* --from --to --cpu --pid --comm --threads */
extern const struct ft_opt rpt_json_opts[];	/* --json */
/* One option of those tables (its id and value) into *o: 0, or EXIT_USAGE after the message. */
int rpt_opts_option(struct rpt_opts *o, int id, const char *v);
/*
 * The filters' one parser, for report's options and the analyzers': one
 * --from/--to/--cpu/--pid/--comm value into *o (--cpu lists add up, --pid
 * and --comm values append).  0, or EXIT_USAGE after the one-line error.
 */
enum rpt_filter_kind { RPT_F_FROM, RPT_F_TO, RPT_F_CPU, RPT_F_PID, RPT_F_COMM };
int rpt_filter_opt(struct rpt_opts *o, enum rpt_filter_kind k, const char *v);
/*
 * The filters' values, one definition for report and the analyzers:
 * --pid's list (decimal ids, comma-separated, appended to *pids) and a
 * --from/--to time once the file's clock is known (seconds on a ns clock,
 * an integer tick count on a raw counter).  0, or EXIT_USAGE after the
 * one-line error.
 */
int rpt_parse_pids(const char *arg, int **pids, int *npids);
int rpt_time_arg(const char *name, const char *v, bool in_usecs, const char *clock, uint64_t *out);
/*
 * After the file is open: --from/--to read in the file's time unit (seconds
 * on a nanosecond clock; clock ticks, as `report` prints them, on a raw
 * counter clock such as x86-tsc), and one warning on stderr for --cpu CPUs
 * the file has no events for.  Returns 0 or EXIT_USAGE after the message.
 */
int rpt_opts_resolve(struct rpt_opts *o, struct fmt_reader *r);
/*
 * The --cpu warning of rpt_opts_resolve() on its own (for `report`, which
 * parses its options itself): one line on stderr when cpu_mask selects CPUs
 * the file has no event data for; nothing otherwise.
 */
void rpt_warn_cpus(const struct fmt_info *info, const uint64_t cpu_mask[4], const char *path);
void rpt_opts_release(struct rpt_opts *o);
/* Help text lines for the common options (for each command's --help). */
extern const char rpt_opts_help[];
/* The same without the --json line (for `export`, whose output is JSON already). */
extern const char rpt_opts_help_filters[];

struct rpt_flame;
struct rpt_cg_result;
struct rpt_overhead_result;

/* One page-loss marker seen during replay (rec.missed_events != 0). */
struct rpt_loss {
	uint64_t ts;		/* timestamp of the first record after the loss */
	uint64_t prev_ts;	/* last record before it on that stream, 0 if none */
	int64_t count;		/* events lost, -1 = unknown */
	int buffer, cpu;
	/* page markers in this entry (more than 1 once merged, see replay.c) */
	uint32_t markers;
};

struct rpt_ctx {
	struct fmt_reader *r;
	struct tep_handle *tep;
	const struct fmt_info *info;
	const struct rpt_opts *opts;
	uint64_t first_ts, last_ts;	/* of the events that passed the filter */
	uint64_t nevents;		/* events that passed the filter */
	/* ---- filled by rpt_replay() for every analyzer (extensions) ---- */
	uint64_t nevents_all;		/* every event read, filtered or not */
	uint64_t all_first_ts, all_last_ts;
	struct rpt_tasks *tasks;	/* pid -> comm/tgid learned from events */
	int nlosses;			/* page-loss markers, in timestamp order */
	struct rpt_loss *losses;
	int stream_errors;		/* fmt_iter_errors() at the end */
	const void *conf;		/* during init(): that analyzer's conf (may be NULL) */
	/*
	 * During event() and event_unfiltered(): the current event's kind and
	 * field offsets (report/core/kinds.h, resolved once per event id), and its
	 * typed record when some running analyzer listed that kind in its
	 * .kinds (NULL otherwise: records nobody reads are not decoded).
	 */
	const struct rpt_kind_info *ki;
	const struct rpt_rec *rec;
	/*
	 * The event is not one read from the file but a state record: of a
	 * chunk a window skipped (window_read() asked for them; during
	 * event_unfiltered() only), or a slice's prologue or epilogue (the
	 * state at its cuts; event() gets them too, for the calls open
	 * there).  It sets state, and is never counted.
	 */
	bool from_facts;
	/*
	 * This replay is one time range of a ranged analysis (rpt_replay(),
	 * "ranged analysis").  Its opts' --from/--to are the range, never a
	 * window of the user's (no ranges then), and --to, where there is one,
	 * is the cut before the next range's first stamp: intervals open there
	 * are clipped at --to + 1, where the next range takes them up, so that
	 * the ranges' sums add up to the whole file's.
	 */
	bool in_range;
};

/* What an analyzer learns of a window read that skips chunks, and what it widens. */
struct rpt_window_read {
	uint64_t file_first_ts, file_last_ts;	/* the file's first and last event */
	uint64_t from, to;	/* the stamps read: --from/--to (0, UINT64_MAX without) or wider */
	/*
	 * Set by window_read() when the analyzer's state is a function of the
	 * last events of each kind per CPU and task (format.h, enum
	 * fmt_state_kind): event_unfiltered() then also gets the skipped
	 * chunks' state records, in merge order among the events read, with
	 * ctx->from_facts set.  A file without them is read whole.
	 */
	bool state;
	/* to window_begin(): the streams whose skipped chunks held events */
	int nskipped;
	const struct rpt_stream_id {
		int buffer, cpu;
	} *skipped;
	/* to window_begin(): every stream with events, and what its skipped chunks held */
	int nstreams;
	const struct rpt_stream_span {
		int buffer, cpu;
		uint64_t first_ts;	/* its first event (adjusted) */
		uint64_t pages_skipped;	/* pages that hold an event in its skipped chunks (state) */
	} *streams;
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
	/* 0 or -errno; prints its output.  -ECANCELED: failed, and already said why on stderr */
	int (*finish)(struct rpt_ctx *ctx, void *priv);
	void (*release)(void *priv);
	/*
	 * Analyzer-specific configuration (NULL: defaults), e.g. struct
	 * rpt_callgraph_conf.  Set by the command on a copy of the analyzer.
	 */
	const void *conf;
	/* Where finish() prints (ctx->opts->out then points here); NULL: opts->out. */
	FILE *out;
	/* RPT_KIND_BIT()s of the kinds whose ctx->rec this analyzer reads */
	uint64_t kinds;
	/*
	 * For an analyzer with event_unfiltered(): lets a --from/--to read
	 * skip the chunks wholly outside what it needs (replay.c, "a window
	 * without the chunks around it").  window_read() gets the file's span
	 * from the time index's facts and widens w->from/w->to to the stamps
	 * whose events event_unfiltered() must see, changing nothing else;
	 * false: it needs them all.  When the read does skip, window_begin()
	 * follows before the first event, with the streams whose skipped
	 * chunks held events, to set up what those events would have.
	 * Without window_read(), such an analyzer gets every event.
	 */
	bool (*window_read)(struct rpt_ctx *ctx, void *priv, struct rpt_window_read *w);
	void (*window_begin)(struct rpt_ctx *ctx, void *priv, const struct rpt_window_read *w);
	/*
	 * Ranged analysis (issue 37): an analyzer with merge() can run on
	 * time ranges of the file in parallel, one replay per range, each a
	 * window read (window_read() above) whose --from/--to are the range.
	 * range_end() (may be NULL) closes what is still open at the range's
	 * end, as finish() would at the file's; merge() then adds a later
	 * range's state (src) into an earlier one's (dst), in range order, so
	 * that finish() on dst gives what one replay of the whole file gives,
	 * byte for byte.  0 or -ENOMEM.  Without merge(), the replay is one.
	 */
	void (*range_end)(struct rpt_ctx *ctx, void *priv);
	int (*merge)(struct rpt_ctx *ctx, void *dst, void *src);
	/*
	 * Prints events through libtraceevent, whose plugins write the handle
	 * (sched_switch's registers task names): no other replay may run
	 * beside it (no ranges).
	 */
	bool tep_writes;
};

/* true if ev passes the time/CPU/pid/comm filter of ctx->opts */
bool rpt_event_selected(const struct rpt_ctx *ctx, const struct fmt_event *ev);
/* true if --cpu selects cpu (always without --cpu) */
bool rpt_cpu_selected(const struct rpt_opts *o, int cpu);
/* true if --pid/--comm select the task pid (its tgid counts for --pid) */
bool rpt_task_selected(const struct rpt_ctx *ctx, int pid);

/*
 * Run analyzers over the file in one pass.  privs[i] receives each
 * analyzer's private state (allocated here, freed by rpt_replay).
 * Returns 0, or -errno; a damaged stream is reported on stderr and makes
 * the result non-zero after all readable events have been replayed.
 */
int rpt_replay(struct fmt_reader *r, const struct rpt_opts *opts,
	       const struct rpt_analyzer *const *an, int n);

/* ---- analyzers (report/analyzers/callgraph.c, overhead.c, drops.c) -------------- */

enum rpt_cg_source {
	RPT_CG_AUTO = 0,	/* the first kind present: calls, then samples, then off-CPU */
	RPT_CG_CALLS,		/* function_graph, uprobe/BPF entry+return: weight = ns */
	RPT_CG_SAMPLES,		/* kernel_stack/user_stack/BPF profile stacks: weight = samples */
	RPT_CG_OFFCPU,		/* BPF off-CPU stacks: weight = blocked ns */
	RPT_CG_BPF_STACKS,	/* stack ids of a --bpf-object program: weight = its counts */
};

enum rpt_cg_output { RPT_CG_TREE = 0, RPT_CG_FOLDED };

struct rpt_callgraph_conf {
	enum rpt_cg_source source;
	enum rpt_cg_output output;
	/*
	 * A frame at the top of every stack that groups it: none, the task's
	 * name ("ls": every ls process in one tower, as stackcollapse-perf
	 * does), its process ("comm-tgid") or its thread ("comm-tid",
	 * --per-task).  The HTML report's flame graph groups by name.
	 */
	enum rpt_cg_group { RPT_CG_GROUP_NONE = 0, RPT_CG_GROUP_COMM, RPT_CG_GROUP_PROCESS,
			    RPT_CG_GROUP_THREAD } group;
	int max_depth;		/* tree text: 0 = unlimited */
	double min_percent;	/* tree text: hide nodes below this share of the total */
	const char *symfs;	/* extra root for user binaries / debug files, may be NULL */
	const char *const *debug_dirs;	/* NULL-terminated, may be NULL */
	bool no_debuginfod;	/* --no-debuginfod: never ask a server, even with DEBUGINFOD_URLS */
	bool no_inline;		/* --no-inline: no frames for inlined functions (DWARF) */
	/* --bpf-map: the counts map or ring buffer ("OBJECT/MAP" or "MAP") of bpf-stacks */
	const char *bpf_map;
	/* When set, the finished stacks are also added to this flame graph. */
	struct rpt_flame *flame;
	const char **flame_unit;	/* receives the unit of the weights ("ns", "samples") */
	bool *had_data;			/* receives whether the shown tree has any node */
	/*
	 * When set, finish() moves its result structure here (the caller
	 * releases it with rpt_cg_result_release(), report/analyzers/callgraph.h) and
	 * prints nothing.
	 */
	struct rpt_cg_result *result;
	/*
	 * When set, finish() hands every stack of its result to stack_fn
	 * (rpt_cg_result_stacks(): the folded line of len bytes and its self
	 * weight, heaviest first; a negative errno ends the walk and is
	 * finish()'s) and prints nothing: load's folded stacks, which need
	 * neither the result nor the analyzer's header.
	 */
	int (*stack_fn)(void *arg, const char *stack, size_t len, uint64_t self);
	void *stack_arg;
};

struct rpt_overhead_conf {
	int top;		/* rows per table in text, 0 = 20 */
	/* 0: BPF records when present, else tracepoints; 1: tracepoints; 2: BPF */
	int syscall_source;
	/* When set, finish() moves its result here (report/analyzers/overhead.h) and prints nothing. */
	struct rpt_overhead_result *result;
};

struct rpt_drops_result;
struct rpt_drops_conf {
	uint64_t window_ns;	/* 0: automatic (about 20 windows over the trace) */
	/* When set, finish() moves its result here (report/analyzers/drops.h) and prints nothing. */
	struct rpt_drops_result *result;
};

extern const struct rpt_analyzer rpt_callgraph_analyzer;
extern const struct rpt_analyzer rpt_overhead_analyzer;
extern const struct rpt_analyzer rpt_drops_analyzer;

/*
 * The analyzers' own options, parsed the same way by their command and by
 * `flytrap analyze` (which runs several in one pass): the rpt_*_opts
 * tables, whose options the *_option() functions take; *_options_help is
 * their --help.
 */
struct rpt_cg_args {
	struct rpt_callgraph_conf conf;
	const char *svg;		/* --svg FILE, NULL if not given */
	const char **dbg;		/* --debug-dir list (malloc'd, NULL-terminated) */
	int ndbg;
	const char *unit;		/* weight unit of the finished graph */
	bool had_data;			/* the finished graph has nodes */
};
extern const char rpt_callgraph_options_help[];
extern const char rpt_overhead_options_help[];
extern const char rpt_drops_options_help[];
extern const struct ft_opt rpt_callgraph_opts[], rpt_overhead_opts[], rpt_drops_opts[];
enum {
	RPT_CG_O_PER_TASK = 1, RPT_CG_O_GROUP, RPT_CG_O_FOLDED, RPT_CG_O_NO_DEBUGINFOD, RPT_CG_O_SOURCE,
	RPT_CG_O_DEPTH, RPT_CG_O_MIN_PERCENT, RPT_CG_O_SVG, RPT_CG_O_SYMFS, RPT_CG_O_DEBUG_DIR,
	RPT_CG_O_BPF_MAP, RPT_CG_O_NO_INLINE,
};
/*
 * One option of the analyzer's table (arg: its args or conf); 0 or the exit
 * code after the message.
 */
int rpt_callgraph_option(void *cg_args, int table, const struct ft_opt *o, const char *v);
int rpt_overhead_option(void *overhead_conf, int table, const struct ft_opt *o, const char *v);
int rpt_drops_option(void *drops_conf, int table, const struct ft_opt *o, const char *v);
/* Set A up for its analyzer (flame graph when --svg); EXIT_OK or EXIT_FAIL. */
int rpt_callgraph_setup(struct rpt_cg_args *A);
/*
 * After the replay that ended with exit code rc: write the --svg flame graph
 * of input when rc is EXIT_OK and there is a graph (else say on stderr why
 * none is written); free A.  Returns the exit code.
 */
int rpt_callgraph_done(struct rpt_cg_args *A, int rc, const char *input);

/* ---- helpers shared by the analyzers ---------------------------------- */

/*
 * comm of pid as last seen in events (sched_switch, wakeup, fork, exec), else
 * cmdlines, else "<...>".
 */
const char *rpt_comm(const struct rpt_ctx *ctx, int pid);
/* common_pid of an event (-1 if the payload is too short). */
int rpt_event_pid(const struct rpt_ctx *ctx, const struct fmt_event *ev);
/* tgid of pid when some event carried it, else -1. */
int rpt_tgid(const struct rpt_ctx *ctx, int pid);

/*
 * The one loss figure of a file (issue 31): each lost event counted once,
 * under the source that lost it, the same in record's closing line, info,
 * drops, sql, the HTML report and diff.
 *  - kernel: the kernel's ring buffers, per CPU the larger of its page marks
 *    and its counters (end minus start; a whole-file figure only, since the
 *    counters carry no time);
 *  - bpf: the BPF ring buffer's reservation failures, from the recorder's
 *    records of them (FMT_OPT_FT_BPF_DROPS).  The recorder also marks the
 *    BPF buffer's pages so that trace-cmd shows the gap; those marks stand
 *    for the same events and count only in a file without the records;
 *  - recorder: its own backlog (RECSTATS), whole file only.
 */
struct rpt_loss_fig {
	uint64_t kernel, bpf, recorder, total;
	uint64_t kernel_marked, bpf_marked;	/* events the pages' loss marks count */
	uint64_t bpf_records;			/* the failures the recorder's records count */
	bool has_bpf_records;			/* the file has such records (maybe none in range) */
	bool kernel_counters;			/* some CPU's counters are in the file */
};
/* Page losses inside [t0, t1] on the selected CPUs (struct rpt_notes, rpt_loss_summary_json). */
struct rpt_loss_summary {
	int markers;
	uint64_t events, unknown, first_ts, last_ts, kernel_lost;
};
/*
 * The loss, clock and damage notes as data, for results that outlive the
 * replay (a result printed later, e.g. by analyze, needs no context):
 * filled at finish with the loss figures of [t0, t1], printed by the
 * rpt_notes_* functions.
 */
struct rpt_notes {
	bool raw_clock;
	char clock[32];
	int stream_errors;
	uint64_t truncated_at;
	uint64_t unmarked_lost;		/* lost events the kernel counted and no page marks */
	uint64_t loss_cpus[4];		/* the CPUs of the losses inside [t0, t1] */
	uint64_t nevents, nevents_all, file_first_ts, file_last_ts;
	uint64_t sel_first_ts, sel_last_ts;	/* the selected events' span */
	struct rpt_loss_summary loss;	/* the losses inside [t0, t1] */
	struct rpt_loss_fig fig;	/* the one loss figure of [t0, t1] */
};
void rpt_notes_fill(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct rpt_notes *n);

/* One (buffer, CPU) stream's page marks, the input of rpt_loss_fig_fill. */
struct rpt_loss_marks {
	int buffer, cpu;
	uint64_t marked;
};
/*
 * True when the buffer named name holds the recorder's BPF records (META
 * "bpf_buffer=", "flytrap-bpf" in a file of flytrap that does not say).
 */
bool rpt_bpf_buffer(struct fmt_reader *r, const char *name);
/*
 * Fills f from the n streams' marks (those inside the window and the CPU
 * selection: the caller counted them) and the file's records and counters.
 * whole: the figure covers the whole recording, so the counters without a
 * time count; else the BPF records count inside [t0, t1] only.  o selects
 * the CPUs (NULL: all).  0 or -ENOMEM.
 */
int rpt_loss_fig_fill(struct fmt_reader *r, const struct fmt_info *in,
		      const struct rpt_loss_marks *m, size_t n, bool whole, uint64_t t0,
		      uint64_t t1, const struct rpt_opts *o, struct rpt_loss_fig *f);
/* The same from the replay's loss markers; whole when [t0, t1] covers the file. */
int rpt_loss_fig_ctx(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct rpt_loss_fig *f);
/* "1234 events (kernel ring buffer 34, BPF ring buffer 1200)": the figure, its non-zero parts. */
const char *rpt_loss_fig_text(const struct rpt_loss_fig *f, char *buf, size_t len);
/*
 * True for a RECSTATS key that counts events the recorder itself lost (its
 * backlog), not a gauge nor a copy of the kernel's or the BPF counters.
 */
bool rpt_recorder_loss_key(const char *key);
struct rpt_json;
/* The figure as a JSON object (the value; the caller writes the key). */
void rpt_loss_fig_json(const struct rpt_loss_fig *f, struct rpt_json *j);
void rpt_notes_clock(const struct rpt_notes *n, FILE *out);
void rpt_notes_damage(const struct rpt_notes *n, FILE *out);
int rpt_notes_loss(const struct rpt_notes *n, FILE *out);
struct rpt_json;
/* A loss summary as the analyzers' JSON "loss" object (the value; the caller writes the key). */
void rpt_loss_summary_json(const struct rpt_loss_summary *s, struct rpt_json *j);

/*
 * "12.345678" like trace-cmd (seconds.microseconds) into buf; on a file
 * with a raw counter clock (x86-tsc: rpt_replay() or rpt_opts_resolve()
 * saw one) the integer tick count, as `report` prints it.
 */
const char *rpt_fmt_ts(char *buf, size_t len, uint64_t ns);
/* true while the file being analyzed has a raw counter clock */
bool rpt_raw_clock(void);
/* Set per file by the replay and the option parser: times are raw clock ticks. */
void rpt_set_raw_clock(bool ticks);
/* Human duration: "812 ns", "3.250 us", "12.500 ms", "4.021 s". */
const char *rpt_fmt_dur(char *buf, size_t len, uint64_t ns);
/* The same in at most 8 characters for table columns: "812 ns", "3.2 us", "12.50 ms", "4.02 s". */
const char *rpt_fmt_dur_short(char *buf, size_t len, uint64_t ns);
/* Human bytes: "512 B", "3.2 KiB", "12.5 MiB". */
const char *rpt_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/*
 * Log-linear histogram (HDR-style) of u64 values: exact below 64, then 32
 * sub-buckets per power of two, so a reported percentile is within 1/64
 * (1.6 %) of the true value; memory is fixed (about 15 KiB), whatever the
 * number of values.  min, max, count and sum are exact, and so are the
 * percentiles while there are at most RPT_HIST_EXACT values (they are kept).
 * Percentiles are nearest-rank: the smallest value v with at least q*count
 * values <= v.
 */
#define RPT_HIST_SUB_BITS 5
#define RPT_HIST_BUCKETS ((64 - 6) * (1 << RPT_HIST_SUB_BITS) + 64)
#define RPT_HIST_EXACT 32
struct rpt_hist {
	uint64_t count, sum, min, max;
	uint64_t *buckets;	/* RPT_HIST_BUCKETS, allocated on first add */
	uint64_t exact[RPT_HIST_EXACT];
};
int rpt_hist_add(struct rpt_hist *h, uint64_t v);	/* 0 or -ENOMEM */
/* src's values added to dst, as if each had been added to it: 0 or -ENOMEM. */
int rpt_hist_merge(struct rpt_hist *dst, const struct rpt_hist *src);
/* Value at quantile q (0..1): the middle of the bucket holding it, clamped to [min, max]. */
uint64_t rpt_hist_quantile(const struct rpt_hist *h, double q);
void rpt_hist_release(struct rpt_hist *h);
/* Bucket index of v and the lowest value of bucket i (exposed for tests). */
unsigned rpt_hist_bucket(uint64_t v);
uint64_t rpt_hist_bucket_low(unsigned i);

/* FNV-1a of n bytes, and of a NUL-terminated string (hash keys, not security) */
uint64_t rpt_hash_bytes(const void *p, size_t n);
uint64_t rpt_hash_str(const char *s);

/*
 * u64-keyed hash map with fixed-size zeroed values whose addresses never
 * move (values live in chunks), for per-task and per-stack state.
 */
#define RPT_MAP_FRONT 8	/* keys remembered in front of the table */
struct rpt_map {
	size_t val_size;
	size_t count, cap;	/* cap: slots, power of two */
	uint64_t *keys;
	void **vals;
	char **chunks;
	size_t nchunks, chunk_used;
	/*
	 * The last keys looked up, one per slot of their hash: analyzers ask
	 * for a few keys in turn (the tasks on each CPU, each CPU's stream),
	 * which a single remembered key misses every time two CPUs
	 * alternate.  Values never move (chunks), so the pointers stay good.
	 */
	uint64_t front_key[RPT_MAP_FRONT];
	void *front_val[RPT_MAP_FRONT];
};
void rpt_map_init(struct rpt_map *m, size_t val_size);
void *rpt_map_get_slow(struct rpt_map *m, uint64_t key, bool *created);
/* Value for key, created zeroed when absent (*created set if non-NULL); NULL on ENOMEM. */
static inline void *rpt_map_get(struct rpt_map *m, uint64_t key, bool *created)
{
	unsigned f = (unsigned)((key * 0x9E3779B97F4A7C15ULL) >> 61);
	void *v;

	if (m->front_val[f] && m->front_key[f] == key) {
		if (created)
			*created = false;
		return m->front_val[f];
	}
	v = rpt_map_get_slow(m, key, created);
	if (v) {
		m->front_key[f] = key;
		m->front_val[f] = v;
	}
	return v;
}
void *rpt_map_find(const struct rpt_map *m, uint64_t key);
/* Iterate: *pos starts at 0; returns NULL at the end. */
void *rpt_map_next(const struct rpt_map *m, size_t *pos, uint64_t *key);
/* The i-th value made (0: the first), NULL past the last: the order they were made in. */
void *rpt_map_nth(const struct rpt_map *m, size_t i);
void rpt_map_release(struct rpt_map *m);

/* Shell-style glob match (*, ?, [...]) used by --comm. */
bool rpt_glob(const char *pat, const char *s);

/*
 * Per-event-type lookup table indexed by event ID (common_type), grown on
 * demand; slots are zeroed structs of elem_size that an analyzer fills
 * the first time it sees a type.
 */
struct rpt_types {
	size_t elem_size;
	int n;
	char *slots;
};
void *rpt_types_grow(struct rpt_types *t, int id);
/* The slot of event id (zeroed the first time); NULL for id < 0 or ENOMEM. */
static inline void *rpt_types_get(struct rpt_types *t, int id)
{
	if (id >= 0 && id < t->n)
		return t->slots + (size_t)id * t->elem_size;
	return rpt_types_grow(t, id);
}
void rpt_types_release(struct rpt_types *t);

/* pid -> comm and tgid, learned from the events that carry them (tasks.c) */
struct rpt_tasks {
	struct rpt_map map;
	/*
	 * guard: an assignment is kept only when it is no earlier, in the
	 * merge's order (time, then stream rank), than the one it replaces;
	 * at_ts and at_rank give the assignment's place.  A replay that seeks
	 * applies what the index says of the chunks it skips this way, in
	 * any order, and ends with the names a full read would give.
	 */
	bool guard;
	int at_rank;
	uint64_t at_ts;
};
void rpt_tasks_init(struct rpt_tasks *t);
void rpt_tasks_release(struct rpt_tasks *t);
/* The names and tgids ev carries (ns: what its type names, format/names.c) into t. */
void rpt_tasks_track(struct rpt_tasks *t, const struct fmt_namesrc *ns, const struct fmt_event *ev);
/* One assignment, as rpt_tasks_track() makes them (pid < 0, or 0 for a tgid: ignored). */
void rpt_tasks_set_comm(struct rpt_tasks *t, int pid, const char *s, int len);
void rpt_tasks_set_tgid(struct rpt_tasks *t, int pid, int tgid);

/*
 * Common front end of the analyzer commands: parse argv (the common
 * options, then the command's tables, whose options go to option()), open
 * the file, then either replay the n analyzers of an[] and report errors,
 * or, when run is set, hand the open file to run() (export, analyze: their
 * own flow after the open); run returns an exit code.  Returns the exit
 * code of the command.
 */
#define RPT_CMD_TABLES 4
struct rpt_command {
	const char *usage;		/* --help text before the common options */
	bool no_json;			/* --json is not a common option of this command */
	/* the command's own options (tables of ft_opt) and what takes them */
	const struct ft_opt *opts[RPT_CMD_TABLES];
	/*
	 * one option o of table opts[table] with its value: 0, or the exit code
	 * after the message
	 */
	int (*option)(void *arg, int table, const struct ft_opt *o, const char *v);
	/* after parsing, before the open: EXIT_OK, or EXIT_USAGE after the message */
	int (*check)(void *arg, const struct rpt_opts *o);
	int (*run)(void *arg, struct fmt_reader *r, struct rpt_opts *o);
	const struct rpt_analyzer *const *an;
	int n;
	void *arg;
};
int rpt_run_command(int argc, char **argv, const struct rpt_command *c);
/*
 * The exit code for rpt_replay()'s result, after the error message (none
 * for -ECANCELED: the analyzer said why).  what: "analyze", "export".
 */
int rpt_replay_status(int rc, struct fmt_reader *r, const struct rpt_opts *o, const char *what);

/*
 * Output errors: rpt_out_failed() is true when f has failed (and keeps the
 * errno for the one "cannot write to standard output" line the command
 * front end prints at the end; EPIPE is quiet); rpt_set_out_errno() keeps a
 * write errno a writer saw itself.
 */
bool rpt_out_failed(FILE *f);
void rpt_set_out_errno(int e);
/* The same as a JSON boolean: true when the figures are partial. */
bool rpt_partial(const struct rpt_ctx *ctx);

/*
 * "Overhead of PATH": the title line of a text output, the path shortened
 * in the middle ("...") so the line fits 80 columns.
 */
void rpt_print_title(FILE *out, const char *what, const char *path);
/*
 * s into buf, cut to at most width columns with a visible "~" as its last
 * character when it is longer (table columns: a cut name must not pass
 * for a whole one).
 */
const char *rpt_fit(char *buf, size_t len, const char *s, int width);
/* "from 10.5 s to 12 s CPUs 0-1 pid 42 comm ls": the filters in effect ("" for none). */
const char *rpt_fmt_filters(const struct rpt_opts *o, char *buf, size_t len);
/* "0-3,8" for the CPUs of mask into buf. */
const char *rpt_fmt_cpus(char *buf, size_t len, const uint64_t mask[4]);

/* One "  - " bullet of text, words wrapped so lines stay within width columns. */
void rpt_print_bullet(FILE *out, int width, const char *text);

#endif
