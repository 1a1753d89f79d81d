/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/ internals: the private tracefs instance, per-CPU page capture,
 * user-space probes and signal handling shared by cmd_record, cmd_reset
 * and the tracer / BPF front-ends.
 *
 * Every resource created here is named after the recorder's pid so that a
 * later `flytrap reset` can tell a dead recorder's leftovers from anything
 * else: the instance is "flytrap-<pid>", uprobes live in the event group
 * "flytrap_<pid>".
 */
#ifndef FLYTRAP_RECORD_H
#define FLYTRAP_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracefs_instance;
struct fmt_wbuf;
struct fmt_writer;

#define REC_INSTANCE_PREFIX "flytrap-"
#define REC_UPROBE_PREFIX "flytrap_"

/* ---- signals ------------------------------------------------------------ */

/*
 * Set by the handlers of SIGINT, SIGTERM, SIGHUP (the signal number); the
 * handlers do nothing else.  SIGCHLD and SIGALRM only interrupt the wait.
 */
extern volatile sig_atomic_t rec_stop_signal;

/*
 * Install the handlers and block those signals; *old gets the previous mask
 * (pass it to ppoll so they are only delivered while waiting).  Returns 0
 * or -errno.
 */
int rec_signals_install(sigset_t *old);
/* Restore the default dispositions and the mask saved by rec_signals_install. */
void rec_signals_restore(const sigset_t *old);

/* ---- the instance --------------------------------------------------------- */

/* One enabled event (system/name), kept for its format and for clean-up. */
struct rec_event {
	char *system;
	char *name;
};

struct rec_cpu {
	int cpu;
	int fd;			/* per_cpu/cpuN/trace_pipe_raw, O_NONBLOCK */
	int pipe_rd, pipe_wr;	/* splice target, -1 when read() is used */
	bool use_read;		/* splice refused: plain read() of whole pages */
	uint64_t pages;		/* pages handed to the writer */
	uint64_t bytes_read;	/* page bytes taken from the kernel */
	uint64_t max_drain;	/* most bytes taken in one drain pass */
	uint64_t empty_pages;	/* pages with no data (not written) */
	bool mark_loss;		/* flag the next page: events before it may be lost */
	char *stats_start;	/* per_cpu/cpuN/stats before tracing_on */
	char *stats_end;	/* after the final drain */
};

struct rec_instance {
	char name[64];			/* "flytrap-<pid>" */
	char uprobe_group[64];		/* "flytrap_<pid>" */
	struct tracefs_instance *ti;	/* libtracefs handle (owned) */
	char *dir;			/* absolute path of the instance */
	char *tracing_dir;		/* the tracefs mount */
	uint32_t page_size;		/* sub-buffer size, from header_page */
	int kernel_long;		/* commit field size from header_page */
	int max_cpus;			/* highest possible CPU id + 1 */
	uint64_t buffer_kb;		/* per-CPU buffer size actually set */

	struct rec_event *events;	/* enabled events, in order */
	int nevents;

	char **uprobes;			/* "group/name" of probes we created */
	int nuprobes;

	struct rec_cpu *cpus;		/* captured CPUs */
	int ncpus;

	uint64_t wakeups;		/* wait loop returns */
	bool created;			/* the directory exists and is ours */
};

/*
 * Create "flytrap-<pid>" with tracing off and the given clock, read the
 * page geometry.  Returns 0 or -errno (message printed).
 */
int rec_instance_create(struct rec_instance *ri, const char *clock);

/*
 * Take an existing instance (a killed recorder's, for reset) without
 * creating or changing it: its directory and page geometry.  Returns 0 or
 * -errno (quiet).  rec_instance_release frees it; ri->created stays false
 * so nothing is removed.
 */
int rec_instance_attach(struct rec_instance *ri, const char *name);

/*
 * Describe the top-level buffer as an instance (for a tracer that the
 * kernel runs only there): capture works on it, destroy only closes fds.
 */
int rec_instance_top(struct rec_instance *top, const struct rec_instance *ri);

/*
 * Tear the kernel side down in the safe order: tracing off, close capture
 * fds, disable events, remove the instance, remove our uprobes.  Safe to
 * call on a partly set up instance and more than once; the statistics and
 * event list stay readable until rec_instance_release.  Returns 0 or the first
 * -errno (each failure printed).
 */
int rec_instance_destroy(struct rec_instance *ri);

/* rec_instance_destroy, then free the memory (statistics, event list). */
void rec_instance_release(struct rec_instance *ri);

/*
 * The options every file of a tracefs instance starts with: UNAME, the
 * instance's TRACECLOCK, CPUCOUNT and flytrap's VERSION.  0 or -errno.
 */
int rec_write_host_options(struct fmt_writer *w, struct rec_instance *ri);

/*
 * Enable events matching spec ("sys:event", "sys", "event", globs allowed)
 * and apply filter (may be NULL) to each of them.  Returns the number of
 * events enabled (0 if nothing matched) or -errno.
 */
int rec_instance_enable(struct rec_instance *ri, const char *spec, const char *filter);

/* Add sys:name to the events whose formats go into the file (no kernel change). */
int rec_instance_track(struct rec_instance *ri, const char *sys, const char *name);

/* Write a file of the instance; returns 0 or -errno (quiet). */
int rec_instance_write(struct rec_instance *ri, const char *file, const char *text);
/* Read a file of the instance (malloc'd, NUL-terminated) or NULL with errno set. */
char *rec_instance_read(struct rec_instance *ri, const char *file, size_t *len);
/* Read a file below the tracefs mount (top level). */
char *rec_tracefs_read(const char *rel, size_t *len);
/* Read any file into a malloc'd NUL-terminated buffer, or NULL with errno. */
char *rec_read_file(const char *path, size_t *len);

/*
 * Set an option (options/NAME) to 0/1.  The instance dies with the
 * recording, so nothing is restored; a refusal is returned as -errno.
 */
int rec_instance_option(struct rec_instance *ri, const char *name, bool on);

/* Open trace_pipe_raw for every CPU in mask (NULL = all online). */
int rec_capture_open(struct rec_instance *ri, const uint64_t *cpu_mask);

/*
 * Move pages of one CPU to the writer: whole pages with splice (or read)
 * until the kernel has no full page left; with final set, also the last
 * partial page.  Returns pages moved or -errno (writer errors included;
 * *werr gets the writer's -errno so the caller can tell disk full from a
 * kernel failure).
 */
int rec_capture_drain(struct rec_instance *ri, struct rec_cpu *c, struct fmt_wbuf *wb,
		      bool final, int *werr);

/*
 * One read() of CPU c's current page, partial or not (for a dump while the
 * recording runs: a "final" drain would never end when the recorder's own
 * reads make events).  Returns 0 or -errno.
 */
int rec_capture_partial(struct rec_instance *ri, struct rec_cpu *c, struct fmt_wbuf *wb, int *werr);

/* per_cpu/cpuN/stats text (malloc'd) or NULL. */
char *rec_cpu_stats(struct rec_instance *ri, int cpu);
/* One numeric field of a stats text ("read events", "overrun", …); 0 if absent. */
uint64_t rec_stats_field(const char *stats, const char *key);

/* ---- uprobes --------------------------------------------------------------- */

/*
 * Create entry and return probes for every function of binary matching the
 * glob sym (spec "BINARY:SYMBOL"), in the instance's uprobe group, and
 * enable them in the instance.  Returns the number of functions probed or
 * -errno (message printed).
 */
int rec_uprobe_add(struct rec_instance *ri, const char *spec);

/*
 * Open a file root reads on behalf of a traced process or a user (a binary
 * from a process's maps, a --uprobe or ufunc= path): read-only and
 * non-blocking, and only if it is a regular file, checked before it is
 * opened for reading (a FIFO or device is never opened).  nofollow: a link
 * at path is refused (for names taken from /proc/PID/maps, which are never
 * links unless replaced since).  Returns the fd, or -1 with errno.
 */
int rec_open_regular(const char *path, bool nofollow);

/* A program name resolved through $PATH (or a path made absolute); malloc'd, NULL + errno. */
char *rec_find_binary(const char *bin);

/*
 * true when the ELF file at path carries LeakSanitizer (ASan includes it),
 * which refuses to run under ptrace.
 */
bool rec_elf_uses_lsan(const char *path);

/* Remove every probe of ri (events must be disabled everywhere first). */
int rec_uprobe_remove_all(struct rec_instance *ri);

/* ---- record --user ---------------------------------------------------------- */

/*
 * Who the command of `record --user USER -- CMD` runs as: USER's uid,
 * primary group and supplementary groups (as initgroups would set them),
 * and a clean environment (HOME, USER, LOGNAME and SHELL from the password
 * entry, a default PATH, TERM kept).  The recorder itself stays root.
 */
struct rec_runas {
	uid_t uid;
	gid_t gid;
	char *name;
	gid_t *groups;
	int ngroups;
	char **env;		/* NULL-terminated "KEY=value" */
	int nenv;
};

/*
 * Look USER (a name, or a number) up: 0, -ESRCH for no such user, or
 * -errno.  Released with rec_runas_release().
 */
int rec_runas_prepare(const char *user, struct rec_runas *ra);
/* In the forked child, before exec: groups, gid, uid, environment; 0 or -errno. */
int rec_runas_apply(const struct rec_runas *ra);
void rec_runas_release(struct rec_runas *ra);

/* ---- leftovers ------------------------------------------------------------- */

/*
 * true when pid is a live flytrap recorder (so its instance is in use).
 * A dead pid, or a pid reused by another program, is not.
 */
bool rec_pid_is_recorder(pid_t pid);

#endif
