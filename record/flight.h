/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/ for always-on recording: the flight recorder (--flight), dumps on
 * a trigger (SIGUSR1, `flytrap trigger`, --trigger), rotation (--rotate,
 * --keep) and the CPU budget (--cpu-budget).
 *
 * In these modes the writer's chunks do not go to its spools but to a
 * chunk store (flight.c): segment files next to the output that hold the
 * newest LIMIT of compressed chunks.  A dump is a new, complete trace.dat
 * made of the recorder's metadata (asked from record.c through struct
 * rec_flight_ops) and the chunks of the window, copied as they are.
 */
#ifndef FLYTRAP_RECORD_FLIGHT_H
#define FLYTRAP_RECORD_FLIGHT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fmt_writer;
struct fmt_writer_opts;
struct rec_instance;
struct rec_bpf;

#define REC_MAX_TRIGGERS 16
#define REC_TRIG_MAX_NRS 1024

enum rec_trig_kind {
	REC_TRIG_SYSCALL,	/* syscall[:NAME,...]>DUR, in the BPF syscalls program */
	REC_TRIG_OFFCPU,	/* offcpu>DUR, in the BPF offcpu program */
	REC_TRIG_EVENT,		/* SYS:EVENT [if FILTER], in a second tracefs instance */
};

struct rec_trig_spec {
	enum rec_trig_kind kind;
	const char *text;		/* as given */
	uint64_t dur_ns;
	char *names;			/* syscall names as given (NULL = every syscall) */
	char *system, *event;		/* REC_TRIG_EVENT */
	char *filter;			/* NULL = every occurrence */
};

/* What the command line asked for (parsed before anything is touched). */
struct rec_flight_conf {
	bool flight;
	uint64_t limit_ns;		/* 0 = size only */
	uint64_t limit_bytes;		/* always set with --flight */
	uint64_t rotate_bytes, rotate_ns;
	unsigned keep;			/* 0 = keep all */
	uint64_t after_ns;
	unsigned max_dumps;		/* 0 = no limit */
	uint64_t min_gap_ns;
	double cpu_budget_pct;		/* 0 = none */
	struct rec_trig_spec trig[REC_MAX_TRIGGERS];
	int ntrig;
	bool have_after, have_max_dumps, have_min_gap, have_keep;
	const char *on_file;		/* --on-file CMD (onfile.h), NULL = none */
	uint64_t on_file_timeout_ns;	/* --on-file-timeout; 0 = the default */
};

/*
 * Handle one of the options --flight, --trigger, --after, --max-dumps,
 * --min-gap, --rotate, --keep, --cpu-budget, --on-file, --on-file-timeout
 * (name without the dashes).
 * Returns -1 when accepted, else the exit code of the usage error printed.
 */
int rec_flight_option(struct rec_flight_conf *c, const char *name, const char *arg);

/*
 * Combinations, once every option is read: max_size is --max-size, bpf
 * the --bpf list (NULL = none).  Returns -1 or an exit code.
 */
int rec_flight_check(struct rec_flight_conf *c, uint64_t max_size, const char *bpf);

/* true when chunks go to a store (flight recorder or rotation). */
bool rec_flight_stores(const struct rec_flight_conf *c);

/*
 * Check that every EVENT trigger names an event of this kernel, without
 * changing tracefs.  Returns -1 or an exit code (2).
 */
int rec_trigger_check_events(const struct rec_flight_conf *c, const char *tracing_dir);

/* Syscall numbers of a syscall trigger (bitmap of REC_TRIG_MAX_NRS bits); -errno. */
int rec_trigger_syscall_nrs(const struct rec_trig_spec *t, uint8_t *bitmap, char **err);

void rec_flight_conf_release(struct rec_flight_conf *c);

/* ---- the running mode ---------------------------------------------------- */

/*
 * What the recorder gives the mode.  drain moves every page the kernel
 * and the BPF programs hold into the live writer and flushes it (so the
 * store has every chunk); meta writes the recorder's metadata into a dump
 * writer: phase 0 before the buffers (headers, formats, kallsyms, start
 * statistics), phase 1 after them (end statistics, names, maps, costs,
 * BPF options) plus the option text extra.  Both return 0 or -errno.
 */
struct rec_flight_ops {
	void *ctx;
	int (*drain)(void *ctx);
	int (*meta)(void *ctx, struct fmt_writer *w, int phase, const char *extra);
};

struct rec_flight;

/*
 * Start the mode for output (the -o name): makes the store (segment files
 * next to output), fills wo->chunk_sink and *live_path (the hidden file the
 * live writer writes its metadata to; unlink it once opened).  ri is the
 * instance (statistics), bpf may be NULL.  NULL with a message printed.
 */
struct rec_flight *rec_flight_new(const struct rec_flight_conf *c, const char *output,
				  struct rec_instance *ri, struct rec_bpf *bpf,
				  const struct rec_flight_ops *ops, struct fmt_writer_opts *wo,
				  char **live_path);

/* Trigger instance set up (EVENT triggers): 0 or -errno, message printed. */
int rec_flight_setup_triggers(struct rec_flight *f);

/*
 * Once per loop pass: takes triggers, writes dumps and rotations when due.
 * Sets *stop (with *reason) when a stop trigger's time has come.  Returns
 * 0 or -errno (a dump that failed is reported and the recording goes on;
 * only a store failure is returned).
 */
int rec_flight_tick(struct rec_flight *f, uint64_t now_ns, bool *stop, const char **reason);

/* Longest the loop may wait before the next tick is due (ns). */
uint64_t rec_flight_wait_ns(const struct rec_flight *f, uint64_t now_ns, uint64_t wait_ns);

/*
 * The recording ends: a pending trigger is written now, rotation writes the
 * rest.  A file that cannot be written is reported and counted in
 * rec_flight_failed(); the return is 0 or a store failure.
 */
int rec_flight_finish(struct rec_flight *f);

/* Text for the status line ("window 12.0s/48 MB, 2 dumps"); static buffer. */
const char *rec_flight_status(struct rec_flight *f);
/*
 * Dumps and rotation files that could not be written (each reported when
 * it failed): the recording lost them, and ends in exit status 1.
 */
unsigned rec_flight_failed(const struct rec_flight *f);
/* true while a dump's metadata is written (its errors are the dump's to report). */
bool rec_flight_dumping(const struct rec_flight *f);
/* RECSTATS lines of the file being written ("" when none): what the files before it lost. */
const char *rec_flight_recstats(const struct rec_flight *f);
/* The end summary lines (stderr). */
void rec_flight_summary(struct rec_flight *f);
/* FT_META lines of a normal recording ended by a stop trigger (malloc'd or NULL). */
char *rec_flight_stop_meta(struct rec_flight *f);
/* Statistics text of CPU cpu at the start of the window being dumped (NULL: recording start). */
const char *rec_flight_start_stats(const struct rec_flight *f, int cpu);
/* Shed windows as FT_META lines for the file being written (malloc'd or NULL). */
char *rec_flight_shed_meta(struct rec_flight *f, uint64_t from_ns, uint64_t to_ns);

/* The final -o file of a recording is complete under its name (--on-file runs on it). */
void rec_flight_file_done(struct rec_flight *f, const char *path);

/*
 * Remove the store and the trigger instance; frees f (NULL is fine).  The
 * --on-file runs still waiting run first, each bounded by its timeout.
 */
void rec_flight_free(struct rec_flight *f);
/*
 * The name prefix of the store's segment files (each is PREFIX<number>) for
 * the run note, or NULL when the mode keeps no store.
 */
const char *rec_flight_store_prefix(const struct rec_flight *f);

/*
 * After a SIGKILL of a rotating recorder (`flytrap reset`, `flytrap
 * recover`): move the chunks of the store PREFIX<number> into spool files
 * of base, the recorder's hidden file with the recording's metadata (the
 * run note's temp), so that fmt_writer_recover_spools() makes a file of
 * them.  spools are the spools base has already; on_spool is told each new
 * one.  The segments are removed once their chunks are spooled.  Returns
 * the chunks moved (0: no store left) or -errno with *msg (malloc'd, may
 * be NULL).
 */
int rec_flight_store_save(const char *prefix, const char *base, const char *const *spools,
			  int nspools, void (*on_spool)(void *, const char *), void *arg,
			  char **msg);
/* Place tmp as the next free "<stem>-NNNN<ext>" of output (never replacing); 0 or -errno. */
int rec_flight_place(const char *output, const char *tmp, char **final);
/* The highest-numbered "<stem>-NNNN<ext>" of output there is (malloc'd), or NULL. */
char *rec_flight_last_file(const char *output);

/* ---- signals --------------------------------------------------------------- */

/* Counted by the SIGUSR1 handler (instance.c). */
extern volatile sig_atomic_t rec_trigger_signal;
/* Counted by the SIGUSR2 handler: `flytrap trigger` left a request (state.h). */
extern volatile sig_atomic_t rec_request_signal;

#endif
