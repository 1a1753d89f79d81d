/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/status.h: what traces this machine right now (`flytrap status`)
 * and the clean-up built on it (`flytrap reset --all`).
 *
 * st_collect() looks everywhere tracing can hide (tracefs top level and
 * instances, dynamic events, BPF programs on tracing hooks, perf events
 * held by processes, recorders' run notes) and fills a struct st_status;
 * the printers and reset --all only read that structure.  Collecting
 * changes nothing in the kernel; only st_measure() does, and only in a
 * private instance it removes before returning.
 */
#ifndef FLYTRAP_RECORD_STATUS_H
#define FLYTRAP_RECORD_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct st_pids {
	pid_t *v;
	int n;
};

struct st_event {
	char *name;		/* "system:event" */
	char *filter;		/* NULL: none */
	char **triggers;	/* trigger lines */
	int ntriggers;
	bool syscall_path;	/* fires on every getpid() */
};

/* The top level or one instance. */
struct st_place {
	char *name;		/* NULL: the top level */
	char *path;		/* its directory */
	char *tracer;		/* current_tracer, NULL if unreadable */
	int tracing_on;		/* -1 unknown */
	long buffer_kb;		/* per CPU, -1 unknown */
	long buffer_total_kb;	/* -1 unknown */
	struct st_event *ev;
	int nev;
	long ftrace_filter, ftrace_notrace, graph_function;	/* lines; -1 not there */
	long hooked;		/* enabled_functions (top level); -1 not there */
	char **options;		/* costly options switched on */
	int noptions;
	time_t created;		/* 0: unknown */
	struct st_pids holders;	/* processes with files of it open */
	pid_t recorder;		/* "flytrap-<pid>": that pid, else 0 */
	bool recorder_alive;
	bool own;		/* this flytrap's own (status measuring) */
	bool unreadable;	/* nothing of it could be read */
};

struct st_probe {
	char kind[12];		/* kprobe, uprobe, synthetic, eprobe, fprobe, ... */
	char *group, *name;
	char *def;		/* the line as the kernel lists it */
	char **enabled_in;	/* place names ("top" for the top level) */
	int nenabled;
	pid_t recorder;		/* group "flytrap_<pid>": that pid, else 0 */
	bool recorder_alive;
};

struct st_prog {
	uint32_t id;
	uint32_t type;		/* enum bpf_prog_type */
	char type_name[24];
	char name[20];
	char tag[20];
	char **attach;		/* what it is attached to ("tracepoint raw_syscalls:sys_enter") */
	int nattach;
	uint32_t *links;	/* link ids pointing at it */
	int nlinks;
	struct st_pids holders;	/* processes holding the program, a link or a perf fd */
	bool pinned;		/* found in a BPF filesystem (prog or link) */
	char **pins;		/* those pin paths */
	char *btf_target;	/* BTF name of what a tracing program hooks */
	char *maps;		/* its maps, one a line ("bytes hash 1024x(4+8) B"), or NULL */
	int npins;
	uint64_t load_time_ns;	/* since boot */
	uint64_t cnt0, ns0, cnt1, ns1;	/* statistics before and after the interval */
	bool measured;
	bool syscall_path;
};

struct st_perf {
	pid_t pid;
	int count;		/* perf event fds it holds (without a BPF program) */
};

struct st_recorder {
	pid_t pid;
	bool alive;
	char *output;		/* from the run note, NULL if none */
	time_t since;		/* run note's time, 0 unknown */
};

struct st_proc {
	pid_t pid;
	char comm[32];
	uint64_t age_s;		/* how long it has been running */
	bool have_age;
};

struct st_status {
	char *tracefs;			/* mount point, NULL: not found */
	struct st_place *places;	/* [0] is the top level when tracefs exists */
	int nplaces;
	struct st_probe *probes;
	int nprobes;
	struct st_prog *progs;
	int nprogs;
	struct st_perf *perf;
	int nperf;
	struct st_recorder *recs;
	int nrecs;
	struct st_proc *procs;		/* every pid named above */
	int nprocs;
	char **unseen;			/* "what: why" for each place it could not look */
	int nunseen;
	char **notes;			/* extra remarks for the reader */
	int nnotes;

	/* cost (st_measure) */
	bool measured;
	double syscall_ns;		/* one getpid() now, < 0 unknown */
	int ftrace_per_syscall;		/* enabled events hit by one getpid() */
	double ftrace_event_ns;		/* measured cost of one such event, < 0 unknown */
	double bpf_per_syscall_ns;	/* BPF run time per getpid(), < 0 unknown */
	double interval_s;		/* BPF statistics interval */
	const char *bpf_stats;		/* "fd", "global", or why not */
	bool function_tracer;		/* a function tracer runs somewhere */
};

/* Look everywhere; never fails as a whole (unseen places are listed). */
void st_collect(struct st_status *s);

/*
 * Measure the costs: getpid() time, the per-event cost of the syscall-path
 * events that are enabled (in a private instance, removed at once), and BPF
 * run statistics over interval_s (fd-scoped BPF_ENABLE_STATS; 0 skips).
 */
void st_measure(struct st_status *s, double interval_s);

/* Something traces the machine (exit status 3 of `status`). */
bool st_tracing(const struct st_status *s);
bool st_place_active(const struct st_place *p);
bool st_prog_attached(const struct st_prog *p);

/* The process of pid (NULL if not listed). */
const struct st_proc *st_proc(const struct st_status *s, pid_t pid);
bool st_pid_alive(pid_t pid);

void st_release(struct st_status *s);

/*
 * The --all part of `flytrap reset`: lists, asks, then changes everything
 * but dead flytrap recorders' leftovers, which it lists too and leaves to
 * plain reset: *plain is set when the caller should run that now (agreed
 * to, not a dry run).  Returns the exit status.
 */
struct st_reset_opts {
	bool yes, dry;
	char **force;		/* instance names, "top", or pids */
	int nforce;
	bool plain;		/* out: run plain reset's part now */
};
int st_reset_all(struct st_reset_opts *o);

#endif
