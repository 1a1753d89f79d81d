/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/tracer.h: the function / function_graph tracers and kprobe events
 * for `flytrap record` (-p, -g, -l, -n, --max-graph-depth, --func-stack,
 * --kprobe).
 *
 * Life cycle (one thread):
 *
 *	rec_tracer_parse_kind(), rec_tracer_check_kprobe()
 *					while parsing the command line (usage
 *					errors, exit 2; no kernel access)
 *	t = rec_tracer_new(inst)	nothing changed in the kernel yet
 *	rec_tracer_set(t, &opts, &err)	tracer + narrowing files, tracer not
 *					yet producing records (see below)
 *	rec_tracer_add_kprobe(t, spec, &err)   once per --kprobe; creates the
 *					probe and enables it in inst
 *	rec_tracer_systems(t)		event systems whose formats the file
 *					needs (the recorder stores them)
 *	rec_tracer_buffer(t, &top)	which ring buffer carries the tracer's
 *					records (see "top level" below)
 *	rec_tracer_start(t, &err)	right after the recorder's tracing_on=1
 *	... recording ...
 *	rec_tracer_stop(t)		right before the recorder's tracing_on=0
 *	rec_tracer_free(t)		restores everything (rec_tracer_restore)
 *					and frees; call it after closing the
 *					top level's trace_pipe_raw fds (the
 *					kernel refuses current_tracer, EBUSY,
 *					while they are open) and BEFORE the
 *					instance is removed, on every exit path
 *
 * Each of set / add_kprobe fails on its own: on failure nothing of that
 * call stays changed in the kernel, *err gets one line of text (malloc'd,
 * the caller frees it; no "flytrap: error:" prefix, no newline) naming what
 * the kernel refused, e.g. "the function_graph tracer is not available in
 * this kernel (CONFIG_FUNCTION_GRAPH_TRACER)" or "kprobe events are not
 * available in this kernel (no kprobe_events in tracefs,
 * CONFIG_KPROBE_EVENTS)", and t stays usable, so the caller prints the line
 * and goes on recording the rest.
 *
 * Files of the recorder's own instance whose current_tracer the kernel
 * refuses to restore (EBUSY: the instance's trace_pipe_raw is still open)
 * are left as they are for the instance's removal, which ends the tracer.
 *
 * Everything written is saved first and written back by rec_tracer_restore
 * in reverse order: current_tracer, set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, max_graph_depth, options/func_stack_trace, and (top
 * level only) trace_clock and tracing_on.  kprobes live in the event group
 * "flytrap_<pid>" (REC_KPROBE_GROUP_PREFIX + pid, the same group the
 * recorder uses for uprobes) and are disabled and deleted by restore.
 *
 * Top level: kernels before 6.12 run function_graph (and have
 * set_graph_function / max_graph_depth) only in the top-level buffer, not
 * in instances.  There rec_tracer_set runs the graph tracer in the top
 * level when that buffer is idle (current_tracer "nop"), sets its
 * trace_clock to the instance's clock so both buffers share one time line,
 * and rec_tracer_buffer() returns NULL with *top = true: the recorder must
 * then also capture the top-level per-CPU buffers (trace_pipe_raw of the
 * top level) and store them as the file's top-level buffer.  Changing the
 * tracer discards what the top-level buffer held (the kernel resets it).
 * Before touching the top level, the saved state is also written to
 * REC_TRACER_STATE_DIR/tracer-<pid>/ so `flytrap reset` can put it back
 * after a SIGKILL.  rec_tracer_start/stop switch the top level's
 * tracing_on; for a tracer in the instance they do nothing (the recorder's
 * tracing_on of its instance starts and stops it).
 *
 * Errors of int functions: 0 on success, negative errno on failure.
 */
#ifndef FLYTRAP_RECORD_TRACER_H
#define FLYTRAP_RECORD_TRACER_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"

struct tracefs_instance;
struct rec_tracer;

#define REC_KPROBE_GROUP_PREFIX "flytrap_"
/* Saved top-level state of running recorders, for `flytrap reset`. */
#define REC_TRACER_STATE_DIR rec_state_dir()	/* state.h */

enum rec_tracer_kind {
	REC_TRACER_NONE = 0,		/* no -p: kprobes only (or nothing) */
	REC_TRACER_FUNCTION,		/* -p function */
	REC_TRACER_FUNCTION_GRAPH,	/* -p function_graph */
};

struct rec_tracer_opts {
	enum rec_tracer_kind kind;
	/*
	 * Function names or globs, each as the kernel's filter files take
	 * them ("vfs_*", "*open*", "ext4_*:mod:ext4"); arrays not NULL-ended,
	 * owned by the caller and only read during rec_tracer_set.
	 */
	const char *const *graph_funcs;	/* -g: set_graph_function; needs FUNCTION_GRAPH */
	size_t ngraph_funcs;
	const char *const *filter;	/* -l: set_ftrace_filter */
	size_t nfilter;
	const char *const *notrace;	/* -n: set_ftrace_notrace */
	size_t nnotrace;
	unsigned max_graph_depth;	/* --max-graph-depth; 0 = kernel default (unlimited) */
	bool func_stack;		/* --func-stack: options/func_stack_trace; FUNCTION only */
};

/*
 * "function" / "function_graph" -> kind; -1 for anything else (the caller
 * reports a usage error).  The recorder should turn -g without -p into
 * REC_TRACER_FUNCTION_GRAPH (as trace-cmd does); rec_tracer_set refuses -g
 * with the function tracer and --func-stack with function_graph.
 */
int rec_tracer_parse_kind(const char *name);

/*
 * Syntax check of a --kprobe SPEC without touching the kernel:
 * "p[:NAME] SYMBOL[+OFFS]|ADDR [FETCHARGS]" or "r[MAXACTIVE][:NAME] SYMBOL
 * [FETCHARGS]".  A "GROUP/" before NAME is refused (flytrap uses its own
 * group).  Returns 0, or -EINVAL with *err set (malloc'd, caller frees).
 */
int rec_tracer_check_kprobe(const char *spec, char **err);

/*
 * New tracer state for the recorder's instance inst (not owned; it must
 * outlive rec_tracer_free).  Changes nothing in the kernel.  NULL with
 * errno = ENOMEM on failure.  Free with rec_tracer_free.
 */
struct rec_tracer *rec_tracer_new(struct tracefs_instance *inst);

/*
 * Set up the tracer of o->kind with its narrowing files.  Call at most once
 * (-EALREADY otherwise).  Narrowing is written before the tracer so the
 * kernel never traces more than asked.  A glob matching no kernel function
 * is an error ("no kernel function matches 'foo*' (set_ftrace_filter)").
 * On failure everything this call changed is restored, *err is set
 * (caller frees) and -errno returned.
 */
int rec_tracer_set(struct rec_tracer *t, const struct rec_tracer_opts *o, char **err);

/*
 * Create the kprobe of spec (kernel syntax, see rec_tracer_check_kprobe) in
 * the group "flytrap_<pid>" and enable it in the instance.  A spec without
 * NAME gets "p_SYMBOL" / "r_SYMBOL" (plus a number when taken).  On failure
 * the probe is gone again, *err (caller frees) holds the kernel's own
 * complaint from error_log when there is one, and -errno is returned.
 */
int rec_tracer_add_kprobe(struct rec_tracer *t, const char *spec, char **err);

/*
 * NULL-terminated list of event systems whose formats must go into the file
 * for what was set up: "ftrace" when a tracer runs (function, funcgraph_entry,
 * funcgraph_exit, kernel_stack — the recorder stores the ftrace system
 * as the file's ftrace formats), and the kprobe group "flytrap_<pid>" when
 * kprobes were created.  The formats are read from the instance's events/
 * directory.  Owned by t, valid until rec_tracer_free; never NULL.
 */
const char *const *rec_tracer_systems(const struct rec_tracer *t);

/* Kprobe event names created so far ("kx_open", …), count in *n; owned by t. */
const char *const *rec_tracer_kprobes(const struct rec_tracer *t, size_t *n);

/* The kprobe group name ("flytrap_<pid>"); owned by t. */
const char *rec_tracer_group(const struct rec_tracer *t);

/*
 * The instance whose ring buffer receives the tracer's records: inst, or
 * NULL (the top-level buffer) with *top = true when the kernel can run the
 * tracer only there (see "Top level" above).  *top = false when no tracer
 * was set.
 */
struct tracefs_instance *rec_tracer_buffer(const struct rec_tracer *t, bool *top);

/* Start / stop a tracer running in the top level; no-ops otherwise. */
int rec_tracer_start(struct rec_tracer *t, char **err);
void rec_tracer_stop(struct rec_tracer *t);

/*
 * Put back everything changed, in reverse order: kprobes disabled and
 * deleted, files rewritten with their saved contents, the state directory
 * removed.  Idempotent; safe on a half set-up t and on every exit path
 * (not async-signal-safe: call it from the main flow after the signal
 * flag is seen).  Returns 0 or the first -errno; problems are kept in
 * rec_tracer_last_error().
 */
int rec_tracer_restore(struct rec_tracer *t);

/* Text of the last restore problem, or NULL; owned by t. */
const char *rec_tracer_last_error(const struct rec_tracer *t);

/* rec_tracer_restore + free.  NULL is a no-op. */
void rec_tracer_free(struct rec_tracer *t);

/*
 * For `flytrap reset`: remove kprobe events of every group "flytrap_<pid>"
 * whose pid is not a live recorder (disabled first in the top level and
 * every instance), and restore the top-level state saved by dead recorders
 * in REC_TRACER_STATE_DIR.  *report gets one line per thing done
 * ("removed kprobe flytrap_123/kx_open", "restored current_tracer of the
 * top level (recorder 123)"), malloc'd, caller frees; NULL when nothing was
 * found.  Returns the number of things done, or -errno of the first
 * failure (the report then ends with a line describing it).
 */
int rec_tracer_reset_stale(char **report);

#endif
