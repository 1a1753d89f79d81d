// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap record: capture ftrace ring-buffer pages from a private tracefs
 * instance (plus optional tracers, uprobes and BPF programs) into a
 * trace.dat v7 file, leaving the kernel as it was found on every exit path.
 *
 * The main thread waits in ppoll() on every CPU's trace_pipe_raw (and the
 * BPF ring buffer), moves whole pages to the writer (whose pool of
 * compression threads, --threads, takes full chunks from a bounded queue,
 * so memory stays bounded) and checks the stop conditions.  On many CPUs
 * (--capture-threads) capture threads drain runs of CPUs instead and the
 * main thread only watches (struct capgroup).  Signal handlers only set a
 * flag; the signals are blocked except inside ppoll so none is missed
 * between a check and the wait.
 */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "record.h"
#include "state.h"
#include "bpf.h"
#include "record/bpfobj.h"
#include "tracer.h"
#include "flight.h"

#define MAX_TRACED_PIDS 64
/* CPUs per compression thread and per capture thread by default (docs/benchmarks.md) */
#define CPUS_PER_ZSTD 8
#define CPUS_PER_CAPTURE 16
/* pages read are in a spool file within this time (what a SIGKILL can lose) */
#define FLUSH_NS 250000000ULL

static const char *const default_events[] = {
	"sched:sched_switch",
	"sched:sched_wakeup",
	"sched:sched_wakeup_new",
	"sched:sched_process_*",
	"raw_syscalls:sys_enter",
	"raw_syscalls:sys_exit",
	"irq:*",
};

struct strv {
	const char **v;
	size_t n;
};

static int strv_add(struct strv *s, const char *str)
{
	const char **v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n++] = str;
	return 0;
}

struct opts {
	struct strv events;		/* -e */
	struct strv filters;		/* -f for events[i] (NULL = none) */
	pid_t pids[MAX_TRACED_PIDS];
	int npids;
	const char *output;
	uint64_t buffer_kb;
	uint64_t cpu_mask[4];
	bool have_cpus;
	uint64_t duration_ns;
	uint64_t max_size;
	int level;
	const char *compression;
	bool stacktrace;
	bool quiet;
	bool realtime;			/* --realtime: SCHED_FIFO while recording */
	int threads;			/* --threads: compression threads (0 = by CPU count) */
	int capture_threads;		/* --capture-threads (0 = by CPU count) */
	bool symbols;			/* --symbols: store the ELF symbol tables of traced binaries */
	struct strv uprobes;
	/* tracer.h */
	const char *tracer;
	struct strv graph, filter_funcs, notrace, kprobes;
	unsigned max_graph_depth;
	bool func_stack;
	/* bpf.h */
	const char *bpf;
	int user_stack;			/* --user-stack: enum rec_ustack */
	uint32_t user_stack_bytes;
	struct strv bpf_objects, bpf_sets, bpf_attach, bpf_records;	/* bpfobj.h */
	unsigned bpf_perf_hz;
	uint64_t bpf_snapshot_ns;
	struct rec_flight_conf fl;	/* flight.h: --flight, --trigger, --rotate, --cpu-budget */
	char **cmd;			/* command to run, NULL-terminated */
	const char *user;		/* --user: the command runs as this user */
	struct rec_runas runas;		/* who that is (looked up while parsing) */
};

struct traced {
	pid_t pid;
	char *maps;			/* last PROCMAPS text seen (trace-cmd layout) */
};

struct comm_ent {
	int pid;
	int seq;		/* order of addition: the later one wins */
	char comm[16];
};

struct comm_set {
	struct comm_ent *v;
	size_t n, cap;
};

#define MAX_COMMS 200000

struct session {
	struct rec_output_lock lock;	/* state.h: one recorder per -o */
	struct opts *o;
	struct rec_instance ri;
	struct rec_instance top;	/* top-level buffer, for a tracer that runs only there */
	bool use_top;
	struct fmt_writer *w;
	struct fmt_wbuf *wb;		/* the instance's pages */
	struct fmt_wbuf *wb_top;
	struct rec_tracer *tracer;
	bool tracer_on;			/* a tracer or a kprobe was accepted */
	struct rec_bpf *bpf;
	pid_t child;
	int child_go;			/* write end: releases the child into exec */
	int child_err;			/* read end: errno of a failed exec */
	bool child_traced;		/* under ptrace (exit stop for PROCMAPS) */
	bool child_execd;		/* the command replaced our copy */
	int child_status;
	bool child_done;
	char child_comm[16];		/* the command's name after exec ("" until known) */
	struct traced traced[MAX_TRACED_PIDS];
	int ntraced;
	struct comm_set comms;		/* task names seen in /proc (start and end) */
	int write_err;			/* first writer error (-errno) */
	const char *stop_reason;
	struct timespec t_start;
	struct rusage ru_start;		/* at tracing_on */
	struct rusage ru_end;		/* after the final drain */
	uint64_t start_epoch_ns;
	uint64_t last_status_ns;
	uint64_t last_events;
	char *cmdline;
	bool note;			/* our run note exists (state.h) */
	struct rec_flight *fl;		/* flight.h: triggers, dumps, rotation, budget */
	bool stores;			/* chunks go to the flight store, not to -o */
	struct capgroup *cap;		/* capture threads (none: this thread drains) */
	int ncap;
};

/*
 * A capture thread drains CPUs [first, first + n) of the instance: it
 * waits in poll() on their trace_pipe_raw and hands full pages to the
 * writer, whose adders of different CPUs may run at once
 * (fmt_wbuf_add_cpus).  It holds mu while draining; the main thread takes
 * every mu to pause them for what touches the whole writer (flushes,
 * dumps, rotation).
 */
struct capgroup {
	struct session *s;
	pthread_t th;
	pthread_mutex_t mu;
	int first, n;
	int wake[2];			/* closing wake[1] ends the thread */
	uint64_t pages_before;		/* pages of its CPUs when it started */
	uint64_t cpu_ns;		/* its CPU time, when it ended */
	uint64_t drains;		/* poll returns */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ULL + (uint64_t)tv->tv_usec;
}

/* ---- usage ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap record [options] [-- command [args...]]\n"
"\n"
"Record kernel events into a trace.dat (version 7, zstd) from a private\n"
"tracefs instance.  Stops on Ctrl-C, SIGTERM, SIGHUP, end of the command,\n"
"--duration or --max-size.  Needs root.\n"
"\n"
"events:\n"
"  -e, --event SPEC        system:event, system, or event name; globs allowed;\n"
"                          repeatable (default: scheduler, syscalls and IRQs)\n"
"  -f, --filter EXPR       kernel filter for the events of the preceding -e\n"
"  -T, --stacktrace        a kernel stack trace with every event\n"
"      --uprobe BIN:SYM    entry and return probes on user functions (SYM may\n"
"                          be a glob)\n"
"  -p, --tracer NAME       function or function_graph, where the kernel allows\n"
"  -g FUNC                 graph only FUNC (implies -p function_graph);\n"
"                          repeatable\n"
"  -l FUNC                 trace only FUNC (set_ftrace_filter); repeatable\n"
"  -n FUNC                 never trace FUNC (set_ftrace_notrace); repeatable\n"
"      --max-graph-depth N depth limit of function_graph\n"
"      --func-stack        stack trace with every function (function tracer)\n"
"      --kprobe SPEC       kprobe event, kernel syntax (\"p:name do_sys_open\")\n"
"      --bpf LIST          BPF programs: syscalls, syscalls=agg, offcpu[=DUR],\n"
"                          profile[=HZ], ufunc=BIN:GLOB, kfunc=FUNC[+FUNC],\n"
"                          ringbuf=SIZE (comma-separated)\n"
"      --user-stack MODE   user stacks of offcpu/profile: fp, cfi[:BYTES]\n"
"                          (512) or dwarf[:BYTES] (default; 16384 for\n"
"                          profile, 8192 for offcpu)\n"
"      --symbols           with --bpf: store the ELF symbol tables of traced\n"
"                          binaries, so stacks resolve on a machine without them\n"
"      --bpf-object FILE   your own BPF object (CO-RE .bpf.o): programs attached\n"
"                          by section, ring/perf buffers as events, maps stored;\n"
"                          repeatable (docs/bpf.md, \"Your own program\")\n"
"      --bpf-set [OBJ:]NAME=VALUE  set a .rodata/.data variable; repeatable\n"
"      --bpf-attach PROG=BIN:FUNC  target of a uprobe program with a bare section\n"
"      --bpf-record MAP=STRUCT     BTF struct of a ring buffer's records\n"
"      --bpf-perf-hz HZ    cpu-clock frequency of perf_event programs (99)\n"
"      --bpf-snapshot DUR  also read the objects' maps every DUR\n"
"\n"
"what and where:\n"
"  -P, --pid PID           only this process, its threads and new children;\n"
"                          repeatable\n"
"      --cpus LIST         only these CPUs (\"0,2-3\")\n"
"  -b, --buffer-size KB    kernel buffer per CPU, in KiB\n"
"  -o, --output FILE       output file (default trace.dat; written under a\n"
"                          temporary name, mode 0600, renamed when complete)\n"
"      --user USER         run the command as USER (its groups, a clean\n"
"                          environment); the recorder stays root\n"
"  -d, --duration TIME     stop after TIME (\"10\", \"500ms\", \"2m\")\n"
"      --max-size SIZE     stop when the compressed data reaches SIZE (\"100M\")\n"
"      --level N           zstd level 1-19 (default 3)\n"
"      --compression ALG   zstd (default) or none\n"
"      --realtime          drain the buffers as a real-time (SCHED_FIFO 1) task\n"
"      --threads N         compression threads (default: one per 8 CPUs)\n"
"      --capture-threads N threads draining the buffers (default: one per\n"
"                          %d CPUs; each takes at least one CPU)\n"
"\n"
"always on (flytrap-record(1) FLIGHT RECORDER):\n"
"      --flight LIMIT      keep only the newest LIMIT (60s, 512M, 60s,4G) and\n"
"                          write trace-NNNN.dat when triggered\n"
"      --trigger SPEC      syscall>DUR, syscall:NAME,...>DUR, offcpu>DUR or\n"
"                          'SYS:EVENT [if FILTER]'; repeatable (SIGUSR1 and\n"
"                          'flytrap trigger' always work)\n"
"      --after TIME        keep recording TIME after a trigger (default 1s)\n"
"      --max-dumps N       at most N dumps\n"
"      --min-gap TIME      ignore triggers within TIME of the last one\n"
"      --rotate SIZE|TIME  write a sequence of files trace-NNNN.dat\n"
"      --keep N            with --rotate: delete the oldest beyond N\n"
"      --cpu-budget PCT    shed the costliest events above PCT%% of one CPU\n"
"      --on-file CMD       run the shell command CMD with each completed file\n"
"                          (dump, rotation file, -o) as its last argument,\n"
"                          one at a time, never waited for while recording\n"
"      --on-file-timeout TIME  kill CMD after TIME (default 60s)\n"
"\n"
"  -q, --quiet             no status line and no summary\n"
"  -v, --verbose           more messages\n"
"  -h, --help              this text\n"
"\n"
"After a SIGKILL, 'flytrap reset' removes what the recorder left in tracefs and\n"
"'flytrap recover FILE' makes its partial output readable.\n", CPUS_PER_CAPTURE);
}

enum {
	OPT_UPROBE = 256, OPT_CPUS, OPT_MAX_SIZE, OPT_LEVEL, OPT_COMPRESSION, OPT_KPROBE,
	OPT_MAX_DEPTH, OPT_FUNC_STACK, OPT_BPF, OPT_REALTIME, OPT_SYMBOLS, OPT_USER, OPT_USER_STACK,
	OPT_FLIGHT_MODE,	/* every option of flight.h: rec_flight_option() */
};
/* --bpf-object and its companions (record/bpfobj.h) */
enum { OPT_BPF_OBJECT = 340, OPT_BPF_SET, OPT_BPF_ATTACH, OPT_BPF_RECORD, OPT_BPF_PERF_HZ,
       OPT_BPF_SNAPSHOT };
enum { OPT_THREADS = 320, OPT_CAPTURE_THREADS };

static const struct ft_opt opts[] = {
	{ "event", 'e', true, 'e' },
	{ "filter", 'f', true, 'f' },
	{ "stacktrace", 'T', false, 'T' },
	{ "uprobe", 0, true, OPT_UPROBE },
	{ "tracer", 'p', true, 'p' },
	{ "max-graph-depth", 0, true, OPT_MAX_DEPTH },
	{ "func-stack", 0, false, OPT_FUNC_STACK },
	{ "kprobe", 0, true, OPT_KPROBE },
	{ "bpf", 0, true, OPT_BPF },
	{ "bpf-object", 0, true, OPT_BPF_OBJECT },
	{ "bpf-set", 0, true, OPT_BPF_SET },
	{ "bpf-attach", 0, true, OPT_BPF_ATTACH },
	{ "bpf-record", 0, true, OPT_BPF_RECORD },
	{ "bpf-perf-hz", 0, true, OPT_BPF_PERF_HZ },
	{ "bpf-snapshot", 0, true, OPT_BPF_SNAPSHOT },
	{ "symbols", 0, false, OPT_SYMBOLS },
	{ "user-stack", 0, true, OPT_USER_STACK },
	{ "pid", 'P', true, 'P' },
	{ "cpus", 0, true, OPT_CPUS },
	{ "buffer-size", 'b', true, 'b' },
	{ "output", 'o', true, 'o' },
	{ "duration", 'd', true, 'd' },
	{ "max-size", 0, true, OPT_MAX_SIZE },
	{ "level", 0, true, OPT_LEVEL },
	{ "compression", 0, true, OPT_COMPRESSION },
	{ "quiet", 'q', false, 'q' },
	{ "realtime", 0, false, OPT_REALTIME },
	{ "threads", 0, true, OPT_THREADS },
	{ "capture-threads", 0, true, OPT_CAPTURE_THREADS },
	{ "user", 0, true, OPT_USER },
	{ "flight", 0, true, OPT_FLIGHT_MODE },
	{ "trigger", 0, true, OPT_FLIGHT_MODE },
	{ "after", 0, true, OPT_FLIGHT_MODE },
	{ "max-dumps", 0, true, OPT_FLIGHT_MODE },
	{ "min-gap", 0, true, OPT_FLIGHT_MODE },
	{ "rotate", 0, true, OPT_FLIGHT_MODE },
	{ "keep", 0, true, OPT_FLIGHT_MODE },
	{ "cpu-budget", 0, true, OPT_FLIGHT_MODE },
	{ "on-file", 0, true, OPT_FLIGHT_MODE },
	{ "on-file-timeout", 0, true, OPT_FLIGHT_MODE },
	{ "verbose", 'v', false, 'v' },
	{ "help", 'h', false, 'h' },
	{ NULL, 'g', true, 'g' },
	{ NULL, 'l', true, 'l' },
	{ NULL, 'n', true, 'n' },
	{ 0 },
};

/* One --bpf-object option (record/bpfobj.h).  Returns -1 to go on, or an exit code. */
static int parse_bpfobj_opt(struct opts *o, int c, const char *arg)
{
	static const char *const names[] = { "bpf-object", "bpf-set", "bpf-attach", "bpf-record" };
	int (*const check[])(const char *, char **) = {
		rec_bpfobj_check_object, rec_bpfobj_check_set, rec_bpfobj_check_attach,
		rec_bpfobj_check_record,
	};
	struct strv *v[] = { &o->bpf_objects, &o->bpf_sets, &o->bpf_attach, &o->bpf_records };
	uint64_t x;
	char *err = NULL;
	int i = c - OPT_BPF_OBJECT, rc;

	if (c == OPT_BPF_PERF_HZ) {
		if (ft_parse_u64(arg, &x) || x < 1 || x > 100000)
			return ft_usage_error("--bpf-perf-hz '%s': a frequency of 1..100000 Hz", arg);
		o->bpf_perf_hz = x;
		return -1;
	}
	if (c == OPT_BPF_SNAPSHOT) {
		if (ft_parse_duration_ns(arg, &o->bpf_snapshot_ns) || o->bpf_snapshot_ns < 10000000)
			return ft_usage_error("--bpf-snapshot '%s': a duration of at least 10ms (e.g. 1s)",
					      arg);
		return -1;
	}
	if (check[i](arg, &err)) {
		rc = ft_usage_error("--%s '%s': %s", names[i], arg, err ? err : "bad value");
		free(err);
		return rc;
	}
	return strv_add(v[i], arg) ? ft_error("out of memory") : -1;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	struct ft_optparse p;
	const char *arg;
	uint64_t v;
	int c, frc;

	o->output = "trace.dat";
	ft_opt_init(&p, argc, argv, opts);
	/* options until the command: what follows it is the command's own */
	while ((c = ft_opt_next(&p)) != FT_OPT_END && c != FT_OPT_OPERAND) {
		arg = p.value;
		switch (c) {
		case OPT_FLIGHT_MODE:
			frc = rec_flight_option(&o->fl, p.opt->name, arg);
			if (frc >= 0)
				return frc;
			break;
		case 'e':
			if (!*arg || strspn(arg, " \t") == strlen(arg))
				return ft_usage_error("-e '%s': empty event name (example: "
						      "-e sched:sched_switch)", arg);
			if (strv_add(&o->events, arg) || strv_add(&o->filters, NULL))
				return ft_error("out of memory");
			break;
		case 'f':
			if (!o->events.n)
				return ft_usage_error("-f '%s' needs an -e before it", arg);
			if (o->filters.v[o->events.n - 1])
				return ft_usage_error("two filters for -e '%s'", o->events.v[o->events.n - 1]);
			o->filters.v[o->events.n - 1] = arg;
			break;
		case 'T':
			o->stacktrace = true;
			break;
		case OPT_UPROBE:
			if (!strrchr(arg, ':') || strrchr(arg, ':') == arg || !strrchr(arg, ':')[1])
				return ft_usage_error("--uprobe '%s': expected BINARY:SYMBOL", arg);
			if (strv_add(&o->uprobes, arg))
				return ft_error("out of memory");
			break;
		case 'p':
			if (rec_tracer_parse_kind(arg) < 0)
				return ft_usage_error("unknown tracer '%s' (function or function_graph)", arg);
			o->tracer = arg;
			break;
		case 'g':
			if (strv_add(&o->graph, arg))
				return ft_error("out of memory");
			break;
		case 'l':
			if (strv_add(&o->filter_funcs, arg))
				return ft_error("out of memory");
			break;
		case 'n':
			if (strv_add(&o->notrace, arg))
				return ft_error("out of memory");
			break;
		case OPT_MAX_DEPTH:
			if (ft_parse_u64(arg, &v) || v > 1000000)
				return ft_usage_error("bad --max-graph-depth '%s'", arg);
			o->max_graph_depth = (unsigned)v;
			break;
		case OPT_FUNC_STACK:
			o->func_stack = true;
			break;
		case OPT_KPROBE: {
			char *err = NULL;

			if (rec_tracer_check_kprobe(arg, &err)) {
				int rc = ft_usage_error("--kprobe '%s': %s", arg, err ? err : "bad syntax");

				free(err);
				return rc;
			}
			if (strv_add(&o->kprobes, arg))
				return ft_error("out of memory");
			break;
		}
		case OPT_BPF: {
			char *err = NULL;

			if (rec_bpf_parse_spec(arg, &err)) {
				int rc = ft_usage_error("--bpf '%s': %s", arg, err ? err : "bad list");

				free(err);
				return rc;
			}
			o->bpf = arg;
			break;
		}
		case OPT_SYMBOLS:
			o->symbols = true;
			break;
		case OPT_BPF_OBJECT:
		case OPT_BPF_SET:
		case OPT_BPF_ATTACH:
		case OPT_BPF_RECORD:
		case OPT_BPF_PERF_HZ:
		case OPT_BPF_SNAPSHOT: {
			int rc = parse_bpfobj_opt(o, c, arg);

			if (rc >= 0)
				return rc;
			break;
		}
		case OPT_USER_STACK: {
			char *err = NULL;

			if (rec_bpf_parse_user_stack(arg, &o->user_stack, &o->user_stack_bytes, &err)) {
				int rc = ft_usage_error("--user-stack %s", err ? err : "bad value");

				free(err);
				return rc;
			}
			break;
		}
		case 'P': {
			if (ft_parse_u64(arg, &v) || v == 0 || v > 0x3fffffff)
				return ft_usage_error("bad pid '%s'", arg);
			if (o->npids == MAX_TRACED_PIDS)
				return ft_usage_error("too many -P (at most %d)", MAX_TRACED_PIDS);
			o->pids[o->npids++] = (pid_t)v;
			break;
		}
		case OPT_CPUS: {
			long ncpu = sysconf(_SC_NPROCESSORS_CONF);

			if (ft_parse_cpulist(arg, o->cpu_mask))
				return ft_usage_error("bad CPU list '%s' (example: 0,2-3)", arg);
			/* a CPU this machine does not have is a typo, not a kernel's refusal */
			for (int k = ncpu > 0 ? (int)ncpu : 256; k < 256; k++)
				if (o->cpu_mask[k / 64] & (1ULL << (k % 64)))
					return ft_usage_error("--cpus '%s': there is no CPU %d "
							      "(this machine has CPUs 0-%ld)", arg, k,
							      ncpu - 1);
			o->have_cpus = true;
			break;
		}
		case 'b':
			if (ft_parse_u64(arg, &v) || v < 4 || v > (1ULL << 24))
				return ft_usage_error("bad buffer size '%s' (KiB per CPU, 4 or more)", arg);
			o->buffer_kb = v;
			break;
		case 'o':
			if (!*arg)
				return ft_usage_error("empty output file name");
			o->output = arg;
			break;
		case 'd':
			if (ft_parse_duration_ns(arg, &o->duration_ns) || !o->duration_ns)
				return ft_usage_error("bad duration '%s' (examples: 10, 500ms, 2m)", arg);
			break;
		case OPT_MAX_SIZE:
			if (ft_parse_size(arg, &o->max_size) || o->max_size < 4096)
				return ft_usage_error("bad --max-size '%s' (examples: 100M, 2G)", arg);
			break;
		case OPT_LEVEL:
			if (ft_parse_u64(arg, &v) || v < 1 || v > 19)
				return ft_usage_error("bad --level '%s' (1 to 19)", arg);
			o->level = (int)v;
			break;
		case OPT_COMPRESSION:
			if (strcmp(arg, "zstd") && strcmp(arg, "none"))
				return ft_usage_error("bad --compression '%s' (zstd or none)", arg);
			o->compression = arg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_REALTIME:
			o->realtime = true;
			break;
		case OPT_THREADS:
		case OPT_CAPTURE_THREADS:
			if (ft_parse_u64(arg, &v) || v < 1 || v > 256)
				return ft_usage_error("bad --%s '%s' (1 to 256)", p.opt->name, arg);
			*(c == OPT_THREADS ? &o->threads : &o->capture_threads) = (int)v;
			break;
		case OPT_USER:
			if (!*arg)
				return ft_usage_error("empty --user name");
			o->user = arg;
			break;
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (c == FT_OPT_OPERAND)
		o->cmd = argv + p.i - 1;
	if (o->cmd && o->npids)
		return ft_usage_error("give either -P PID or a command, not both");
	if (o->user && !o->cmd)
		return ft_usage_error("--user needs a command to run (record --user USER -- CMD)");
	if (o->user) {
		int e = rec_runas_prepare(o->user, &o->runas);

		if (e == -ESRCH)
			return ft_usage_error("--user '%s': no such user", o->user);
		if (e)
			return ft_error("cannot look up user '%s': %s", o->user, strerror(-e));
	}
	{
		const char *why = NULL;

		if (fmt_outfile_check(o->output, &why) && why)
			return ft_usage_error("cannot write '%s': %s", o->output, why);
	}
	if ((o->graph.n || o->max_graph_depth) && !o->tracer) {
		o->tracer = "function_graph";
	}
	if ((o->filter_funcs.n || o->notrace.n || o->func_stack) && !o->tracer)
		return ft_usage_error("-l, -n and --func-stack need a tracer (-p function or -p function_graph)");
	if (o->compression && !strcmp(o->compression, "none") && o->level)
		return ft_usage_error("--level makes no sense with --compression none");
	if (o->bpf) {
		uint32_t ub = o->user_stack_bytes ? o->user_stack_bytes :
			      o->user_stack == REC_USTACK_FP ? 0 :
			      o->user_stack == REC_USTACK_CFI ? REC_USTACK_DEF_CFI : REC_USTACK_DEF_DWARF_PROFILE;
		char *err = NULL;

		if (rec_bpf_check_user_stack(o->bpf, 0, ub, &err)) {
			int rc = ft_usage_error("--user-stack: %s", err ? err : "too large");

			free(err);
			return rc;
		}
	}
	if (!o->bpf_objects.n && (o->bpf_sets.n || o->bpf_attach.n || o->bpf_records.n ||
				  o->bpf_perf_hz || o->bpf_snapshot_ns))
		return ft_usage_error("--bpf-set, --bpf-attach, --bpf-record, --bpf-perf-hz and --bpf-snapshot need --bpf-object");
	return rec_flight_check(&o->fl, o->max_size, o->bpf);
}

/* ---- traced processes ------------------------------------------------------ */

/*
 * /proc/PID/maps in trace-cmd's PROCMAPS layout: "pid nlibs comm" (hex
 * numbers), then "start end path" per file, consecutive mappings of one
 * file merged.
 */
static char *procmaps_text(pid_t pid)
{
	char path[64], *maps, *comm, *line, *save = NULL, *out = NULL, *body = NULL;
	char last[4096] = "";
	unsigned long long ls = 0, le = 0;
	size_t blen = 0;
	unsigned nlibs = 0;
	FILE *mem;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = rec_read_file(path, NULL);
	if (!maps || !*maps) {
		free(maps);
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm = rec_read_file(path, NULL);
	if (comm)
		comm[strcspn(comm, "\n")] = '\0';
	mem = open_memstream(&body, &blen);
	if (!mem)
		goto out;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e;
		char file[4096];
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &n) < 2 || !n)
			continue;
		snprintf(file, sizeof(file), "%s", line + n);
		if (file[0] != '/')
			continue;
		if (!strcmp(file, last) && s >= le) {
			le = e;
			continue;
		}
		if (last[0]) {
			fprintf(mem, "%llx %llx %s\n", ls, le, last);
			nlibs++;
		}
		snprintf(last, sizeof(last), "%s", file);
		ls = s;
		le = e;
	}
	if (last[0]) {
		fprintf(mem, "%llx %llx %s\n", ls, le, last);
		nlibs++;
	}
	if (fclose(mem))
		goto out;
	if (asprintf(&out, "%x %x %s\n%s", (unsigned)pid, nlibs, comm ? comm : "<...>",
		     body ? body : "") < 0)
		out = NULL;
out:
	free(body);
	free(comm);
	free(maps);
	return out;
}

static void traced_add(struct session *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->ntraced; i++)
		if (s->traced[i].pid == pid)
			return;
	if (s->ntraced < MAX_TRACED_PIDS)
		s->traced[s->ntraced++].pid = pid;
}

/* Keep the newest maps of every traced process that is still there. */
static void traced_refresh(struct session *s)
{
	int i;

	for (i = 0; i < s->ntraced; i++) {
		char *m;

		/* before its exec the command is still a copy of us */
		if (s->traced[i].pid == s->child && (s->child_done || !s->child_execd))
			continue;
		m = procmaps_text(s->traced[i].pid);
		if (m) {
			free(s->traced[i].maps);
			s->traced[i].maps = m;
		}
	}
}

/* ---- the command ------------------------------------------------------------- */

/*
 * Fork the command stopped before exec: it waits on a pipe until the
 * instance records, so its first instructions are traced and its pid is in
 * set_event_pid before it runs.
 */
static int child_fork(struct session *s, const sigset_t *old_mask)
{
	int go[2], errp[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;
		ssize_t r;

		close(go[1]);
		close(errp[0]);
		/* the command gets the dispositions and mask we were started with */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		/*
		 * Take the command's name now: until its exec this copy of
		 * us runs traced, and whatever the kernel or a reader saw
		 * first (a sched_switch's next_comm, saved_cmdlines) would
		 * name every event of the command "flytrap".  exec sets the
		 * same name (the file's base name), so nothing changes at it.
		 */
		{
			const char *base = strrchr(s->o->cmd[0], '/');

			prctl(PR_SET_NAME, base ? base + 1 : s->o->cmd[0], 0, 0, 0);
		}
		/* the parent waits for this byte: the name is set before tracing starts */
		c = 'r';
		if (write(errp[1], &c, 1) != 1)
			_exit(126);
		do {
			r = read(go[0], &c, 1);
		} while (r < 0 && errno == EINTR);
		if (r != 1)
			_exit(126);	/* the recorder gave up before starting */
		e = s->o->user ? -rec_runas_apply(&s->o->runas) : 0;
		if (!e) {
			execvp(s->o->cmd[0], s->o->cmd);
			e = errno;
		}
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	s->child = pid;
	s->child_go = go[1];
	{
		char c;
		ssize_t r;

		do {
			r = read(errp[0], &c, 1);
		} while (r < 0 && errno == EINTR);
		(void)r;	/* 0: the child died already; child_release finds out */
	}
	/*
	 * Stop it at exit (and exec) only, never at syscalls: no cost while it
	 * runs.  Where ptrace is refused, maps are still sampled every second.
	 */
	{
		char *bin = rec_find_binary(s->o->cmd[0]);
		bool lsan = bin && rec_elf_uses_lsan(bin);

		free(bin);
		if (lsan || (getenv("FLYTRAP_NO_PTRACE") && strcmp(getenv("FLYTRAP_NO_PTRACE"), "0")))
			ft_info("not tracing the command with ptrace (%s): its maps are sampled every second",
				lsan ? "LeakSanitizer would refuse to run" : "FLYTRAP_NO_PTRACE");
		else if (!ptrace(PTRACE_SEIZE, pid, 0,
				 (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC)))
			s->child_traced = true;
		else
			ft_info("cannot ptrace the command (%s): its maps are sampled every second only",
				strerror(errno));
	}
	s->child_err = errp[0];
	return 0;
}

/* Let the command exec; returns 0, or -errno when exec failed. */
static int child_release(struct session *s)
{
	int e = 0, errfd = s->child_err;
	ssize_t r;

	s->child_err = -1;
	r = write(s->child_go, "g", 1);
	close(s->child_go);
	s->child_go = -1;
	if (r != 1) {
		close(errfd);
		return -EPIPE;
	}
	do {
		r = read(errfd, &e, sizeof(e));
	} while (r < 0 && errno == EINTR);
	close(errfd);
	if (r == (ssize_t)sizeof(e))
		return -e;
	return 0;
}

static void traced_maps_now(struct session *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->ntraced; i++) {
		if (s->traced[i].pid == pid) {
			char *m = procmaps_text(pid);

			if (m) {
				free(s->traced[i].maps);
				s->traced[i].maps = m;
			}
		}
	}
}

/* The command's name as the kernel has it now (after its exec). */
static void child_read_comm(struct session *s)
{
	char path[64], *comm;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->child);
	comm = rec_read_file(path, NULL);
	if (comm && *comm) {
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(s->child_comm, sizeof(s->child_comm), "%s", comm);
	}
	free(comm);
}

/*
 * Collect the command's state changes.  When it runs under ptrace (only
 * to stop it at exit, while its address space still exists, so that even
 * a short-lived command's maps reach PROCMAPS), every stop is answered at
 * once: the exit stop after reading the maps, exec and group stops by
 * resuming, signal stops by delivering the signal.
 */
static void child_reap(struct session *s, bool wait)
{
	int st;
	pid_t r;

	while (s->child > 0 && !s->child_done) {
		r = waitpid(s->child, &st, wait ? 0 : WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != s->child)
			return;
		if (WIFSTOPPED(st)) {
			int event = st >> 16, sig = WSTOPSIG(st);

			if (event == PTRACE_EVENT_EXIT) {
				traced_maps_now(s, s->child);
				ptrace(PTRACE_CONT, s->child, 0, 0);
			} else if (event == PTRACE_EVENT_EXEC) {
				child_read_comm(s);
				ptrace(PTRACE_CONT, s->child, 0, 0);
			} else if (event == PTRACE_EVENT_STOP) {
				/* a group stop (SIGSTOP, SIGTSTP): leave it stopped */
				ptrace(PTRACE_LISTEN, s->child, 0, 0);
			} else if (event) {
				ptrace(PTRACE_CONT, s->child, 0, 0);
			} else {
				ptrace(PTRACE_CONT, s->child, 0, (void *)(long)sig);
			}
			continue;
		}
		s->child_done = true;
		s->child_status = st;
	}
}

/* Let go of a command that outlives the recording. */
static void child_detach(struct session *s)
{
	int st, i;

	if (!s->child_traced || s->child <= 0 || s->child_done)
		return;
	if (ptrace(PTRACE_INTERRUPT, s->child, 0, 0))
		return;
	for (i = 0; i < 100; i++) {
		pid_t r = waitpid(s->child, &st, WNOHANG);

		if (r == s->child) {
			if (!WIFSTOPPED(st)) {
				s->child_done = true;
				s->child_status = st;
				return;
			}
			if ((st >> 16) == PTRACE_EVENT_STOP || (st >> 16) == 0) {
				int sig = (st >> 16) == 0 ? WSTOPSIG(st) : 0;

				ptrace(PTRACE_DETACH, s->child, 0, (void *)(long)sig);
				s->child_traced = false;
				return;
			}
			ptrace(PTRACE_CONT, s->child, 0, 0);
			continue;
		}
		usleep(10000);
	}
}

/* ---- metadata --------------------------------------------------------------- */

static int add_format_file(struct session *s, const char *system, const char *name, bool ftrace)
{
	char file[512], *text;
	size_t len;
	int err;

	snprintf(file, sizeof(file), "events/%s/%s/format", system, name);
	text = rec_instance_read(&s->ri, file, &len);
	if (!text)
		text = rec_tracefs_read(file, &len);
	if (!text) {
		ft_warn("cannot read the format of %s:%s: %s", system, name, strerror(errno));
		return 0;
	}
	if (ftrace)
		err = fmt_writer_ftrace_format(s->w, text, len);
	else
		err = fmt_writer_event_format(s->w, system, text, len);
	free(text);
	return err;
}

/* Every event of a system dir (the ftrace formats, a tracer's kprobe group). */
static int add_system_formats(struct session *s, const char *system, bool ftrace)
{
	char file[512];
	struct dirent **names = NULL;
	int n, i, err = 0;

	snprintf(file, sizeof(file), "%s/events/%s", s->ri.dir, system);
	n = scandir(file, &names, NULL, alphasort);
	if (n < 0)
		return 0;	/* no such system: nothing to store */
	for (i = 0; i < n; i++) {
		struct stat st;
		char path[4096];
		int k;
		bool dup = false;

		if (names[i]->d_name[0] == '.' || err)
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", file, names[i]->d_name);
		if (stat(path, &st))
			continue;
		for (k = 0; k < s->ri.nevents && !ftrace; k++)
			if (!strcmp(s->ri.events[k].system, system) &&
			    !strcmp(s->ri.events[k].name, names[i]->d_name))
				dup = true;
		if (!dup)
			err = add_format_file(s, system, names[i]->d_name, ftrace);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static int writer_fail(struct session *s, int err, const char *what)
{
	const char *detail = s->w ? fmt_writer_error(s->w) : "";

	/* a dump's or rotation file's metadata: flight.c names that file when it fails */
	if (rec_flight_dumping(s->fl))
		return err;

	if (detail && *detail)
		ft_error("cannot write %s to '%s': %s (%s)", what, s->o->output, strerror(-err), detail);
	else
		ft_error("cannot write %s to '%s': %s", what, s->o->output, strerror(-err));
	return err;
}

static int write_start_metadata(struct session *s)
{
	char *hp = NULL, *he = NULL, *text = NULL;
	size_t hpl = 0, hel = 0, len = 0;
	int err = 0, i;
	const char *const *sys;

	hp = rec_instance_read(&s->ri, "events/header_page", &hpl);
	he = rec_instance_read(&s->ri, "events/header_event", &hel);
	if (!hp || !he) {
		free(hp);
		free(he);
		ft_error("cannot read the kernel's header_page/header_event");
		return -EIO;
	}
	err = fmt_writer_headers(s->w, hp, hpl, he, hel);
	free(hp);
	free(he);
	if (err)
		return writer_fail(s, err, "the headers");

	err = add_system_formats(s, "ftrace", true);
	for (i = 0; !err && i < s->ri.nevents; i++)
		err = add_format_file(s, s->ri.events[i].system, s->ri.events[i].name, false);
	if (!err && s->tracer) {
		for (sys = rec_tracer_systems(s->tracer); !err && *sys; sys++)
			if (strcmp(*sys, "ftrace"))
				err = add_system_formats(s, *sys, false);
	}
	if (!err && s->bpf)
		err = rec_bpf_add_formats(s->bpf, s->w);
	if (err)
		return writer_fail(s, err, "the event formats");

	text = rec_read_file("/proc/kallsyms", &len);
	if (text) {
		err = fmt_writer_kallsyms(s->w, text, len);
		free(text);
		if (err)
			return writer_fail(s, err, "kallsyms");
	} else {
		ft_warn("cannot read /proc/kallsyms (%s): kernel addresses will not have names",
			strerror(errno));
	}
	text = rec_tracefs_read("printk_formats", &len);
	if (text) {
		err = fmt_writer_printk(s->w, text, len);
		free(text);
		if (err)
			return writer_fail(s, err, "printk formats");
	}

	err = rec_write_host_options(s->w, &s->ri);
	if (!err) {
		char *meta = NULL, host[256] = "", when[64] = "";
		size_t ml = 0;
		FILE *m = open_memstream(&meta, &ml);
		time_t t = (time_t)(s->start_epoch_ns / 1000000000ULL);
		struct tm tm;

		gethostname(host, sizeof(host) - 1);
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (!m)
			return -ENOMEM;
		fprintf(m, FMT_META_RECORDER "=flytrap %s\n", FLYTRAP_VERSION);
		fprintf(m, FMT_META_COMMAND_LINE "=%s\n", s->cmdline);
		fprintf(m, FMT_META_HOSTNAME "=%s\n", host);
		fprintf(m, FMT_META_START_TIME "=%s\n", when);
		fprintf(m, FMT_META_START_EPOCH_NS "=%llu\n",
			(unsigned long long)s->start_epoch_ns);
		fprintf(m, FMT_META_INSTANCE "=%s\n", s->ri.name);
		fprintf(m, FMT_META_CLOCK "=mono\n");
		fprintf(m, FMT_META_BUFFER_KB "=%llu\n", (unsigned long long)s->ri.buffer_kb);
		fprintf(m, FMT_META_EVENTS "=");
		for (i = 0; i < s->ri.nevents; i++)
			fprintf(m, "%s%s:%s", i ? "," : "", s->ri.events[i].system, s->ri.events[i].name);
		fprintf(m, "\n");
		if (s->o->cmd) {
			/* who the command ran as: --user, or the recorder's own uid */
			const struct rec_runas *ra = &s->o->runas;
			struct passwd *pw = s->o->user ? NULL : getpwuid(getuid());
			uid_t uid = s->o->user ? ra->uid : getuid();
			gid_t gid = s->o->user ? ra->gid : getgid();

			fprintf(m, FMT_META_COMMAND_USER "=%s\n",
				s->o->user ? ra->name : pw ? pw->pw_name : "?");
			fprintf(m, FMT_META_COMMAND_UID "=%u\n" FMT_META_COMMAND_GID "=%u\n",
				(unsigned)uid, (unsigned)gid);
		}
		if (s->ntraced) {
			fprintf(m, FMT_META_PIDS "=");
			for (i = 0; i < s->ntraced; i++)
				fprintf(m, "%s%d", i ? "," : "", (int)s->traced[i].pid);
			fprintf(m, "\n");
		}
		if (fclose(m))
			return -ENOMEM;
		err = fmt_writer_option_str(s->w, FMT_OPT_FT_META, meta);
		free(meta);
	}
	if (err)
		return writer_fail(s, err, "the options");
	return 0;
}

static int add_cpustats(struct session *s, struct rec_instance *ri, const char *buffer, bool start)
{
	int i, err = 0;

	for (i = 0; i < ri->ncpus && !err; i++) {
		struct rec_cpu *c = &ri->cpus[i];
		const char *st = start ? c->stats_start : c->stats_end;
		char *text;

		if (!st)
			continue;
		if (start) {
			if (asprintf(&text, "CPU: %d\n%s", c->cpu, st) < 0)
				return -ENOMEM;
			err = fmt_writer_option_str(s->w, FMT_OPT_FT_CPUSTAT_START, text);
			free(text);
		} else {
			err = fmt_writer_cpustat(s->w, buffer, c->cpu, st);
		}
	}
	return err;
}

/* ---- command names ------------------------------------------------------- */


static void comm_add(struct comm_set *cs, int pid, const char *comm, size_t len)
{
	struct comm_ent *e;

	if (cs->n == MAX_COMMS)
		return;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 1024;
		struct comm_ent *v = realloc(cs->v, cap * sizeof(*v));

		if (!v)
			return;
		cs->v = v;
		cs->cap = cap;
	}
	e = &cs->v[cs->n];
	e->pid = pid;
	e->seq = (int)cs->n;
	if (len > sizeof(e->comm) - 1)
		len = sizeof(e->comm) - 1;
	memcpy(e->comm, comm, len);
	e->comm[len] = '\0';
	cs->n++;
}

/*
 * Every thread in /proc: the kernel's saved_cmdlines keeps only the last
 * 128 names by default (a global setting we must not change), so a busy
 * machine's trace would show "<...>" for most tasks.  Names of live tasks
 * fill the gaps; the kernel's own entries still win.
 */
static void comm_scan_proc(struct comm_set *cs)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *pe, *te;
	char path[96], comm[64];

	if (!proc)
		return;
	while ((pe = readdir(proc)) && cs->n < MAX_COMMS) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/task", pe->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while ((te = readdir(task))) {
			ssize_t n;
			int fd;

			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%.16s/task/%.16s/comm", pe->d_name, te->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			if (n <= 0)
				continue;
			while (n > 0 && comm[n - 1] == '\n')
				n--;
			comm_add(cs, atoi(te->d_name), comm, (size_t)n);
		}
		closedir(task);
	}
	closedir(proc);
}

static int cmp_pid_only(const void *a, const void *b)
{
	const struct comm_ent *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct comm_ent *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool comm_has(const struct comm_set *cs, int pid)
{
	struct comm_ent key = { .pid = pid };

	return cs->n && bsearch(&key, cs->v, cs->n, sizeof(*cs->v), cmp_pid_only);
}

/*
 * Names the recorder knows better than the kernel's saved_cmdlines: a
 * traced process's name at its exit (the PROCMAPS header) and the
 * command's name after its exec.  The kernel may have saved the command's
 * pid while it was still our copy, named "flytrap", and kept that entry:
 * every event of the command would then carry our name.
 */
static void known_names(struct session *s, struct comm_set *ov)
{
	int t;

	for (t = 0; t < s->ntraced; t++) {
		char *maps = s->traced[t].maps, *nl;
		const char *sp;

		/* the comm at exit is on the PROCMAPS header line: "pid nlibs comm" */
		if (!maps || !(nl = strchr(maps, '\n')))
			continue;
		sp = strchr(maps, ' ');
		sp = sp ? strchr(sp + 1, ' ') : NULL;
		if (sp && sp < nl)
			comm_add(ov, (int)s->traced[t].pid, sp + 1, (size_t)(nl - sp - 1));
	}
	if (s->child > 0 && s->child_execd) {
		const char *base = strrchr(s->o->cmd[0], '/');

		/* what exec names it: the file's base name, or what we read at exec */
		if (s->child_comm[0])
			comm_add(ov, (int)s->child, s->child_comm, strlen(s->child_comm));
		else if (!comm_has(ov, (int)s->child)) {
			base = base ? base + 1 : s->o->cmd[0];
			comm_add(ov, (int)s->child, base, strlen(base));
		}
	}
	/* the last entry of a pid wins: keep them in order of addition */
	if (ov->n > 1)	/* qsort of NULL is undefined, even for 0 elements */
		qsort(ov->v, ov->n, sizeof(*ov->v), cmp_comm);
}

/* saved_cmdlines, then the names the kernel did not keep (traced processes, /proc). */
static int add_cmdlines(struct session *s)
{
	size_t len = 0, blen = 0, i, k;
	char *text = rec_tracefs_read("saved_cmdlines", &len), *buf = NULL, *line, *save = NULL;
	struct comm_set known = { 0 }, ov = { 0 };
	FILE *m = open_memstream(&buf, &blen);
	int err;

	if (!m) {
		free(text);
		return -ENOMEM;
	}
	/*
	 * Tests only: the kernel's table as it is after the losing order of
	 * the race, where the command's pid was saved under our name before
	 * its exec and never again (seen in one run of four on a quiet box).
	 */
	if (s->child > 0 && getenv("FLYTRAP_TEST_STALE_COMM")) {
		char *t = NULL;

		if (asprintf(&t, "%d flytrap\n%s", (int)s->child, text ? text : "") >= 0) {
			free(text);
			text = t;
		}
	}
	comm_scan_proc(&s->comms);
	known_names(s, &ov);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		int pid = atoi(line);

		if (comm_has(&ov, pid))
			continue;	/* ours is newer */
		fprintf(m, "%s\n", line);
		comm_add(&known, pid, "", 0);
	}
	qsort(known.v, known.n, sizeof(*known.v), cmp_comm);
	qsort(s->comms.v, s->comms.n, sizeof(*s->comms.v), cmp_comm);
	for (i = 0; i < s->comms.n; i = k) {
		int pid = s->comms.v[i].pid;

		/* the last entry of a pid is the newest name */
		for (k = i + 1; k < s->comms.n && s->comms.v[k].pid == pid; k++)
			;
		if (pid <= 0 || comm_has(&known, pid) || comm_has(&ov, pid))
			continue;
		fprintf(m, "%d %s\n", pid, s->comms.v[k - 1].comm);
	}
	for (i = 0; i < ov.n; i = k) {
		for (k = i + 1; k < ov.n && ov.v[k].pid == ov.v[i].pid; k++)
			;
		fprintf(m, "%d %s\n", ov.v[i].pid, ov.v[k - 1].comm);
	}
	free(known.v);
	free(ov.v);
	free(text);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	/* with, at close, the last name each task's events carried: 128 saved names are few */
	err = fmt_writer_cmdlines_events(s->w, buf, blen);
	free(buf);
	return err;
}

static uint64_t cpu_total(const struct rec_instance *ri, const char *key, bool end)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < ri->ncpus; i++) {
		const char *st = end ? ri->cpus[i].stats_end : ri->cpus[i].stats_start;

		if (st)
			sum += rec_stats_field(st, key);
	}
	return sum;
}

static uint64_t cpu_delta(const struct rec_cpu *c, const char *key)
{
	uint64_t a = c->stats_start ? rec_stats_field(c->stats_start, key) : 0;
	uint64_t b = c->stats_end ? rec_stats_field(c->stats_end, key) : 0;

	return b >= a ? b - a : 0;
}

/* A kernel counter at the end, summed over the instance and, when the
 * tracer had to use it, the top-level buffer. */
static uint64_t both_total(const struct session *s, const char *key)
{
	return cpu_total(&s->ri, key, true) + (s->use_top ? cpu_total(&s->top, key, true) : 0);
}

static int add_recstats(struct session *s, uint64_t duration_ns)
{
	struct rusage all;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	uint64_t bytes_read = 0, pages = 0, max_fill = 0, buf_bytes = s->ri.buffer_kb * 1024;
	int i, err;

	if (!m)
		return -ENOMEM;
	getrusage(RUSAGE_SELF, &all);
	for (i = 0; i < s->ri.ncpus + (s->use_top ? s->top.ncpus : 0); i++) {
		const struct rec_cpu *c = i < s->ri.ncpus ? &s->ri.cpus[i] : &s->top.cpus[i - s->ri.ncpus];
		uint64_t fill = buf_bytes ? c->max_drain * 100 / buf_bytes : 0;

		if (fill > 100)
			fill = 100;

		bytes_read += c->bytes_read;
		pages += c->pages;
		if (fill > max_fill)
			max_fill = fill;
	}
	fprintf(m, FMT_RS_CPU_USER_US "=%llu\n", (unsigned long long)tv_us(&all.ru_utime));
	fprintf(m, FMT_RS_CPU_SYS_US "=%llu\n", (unsigned long long)tv_us(&all.ru_stime));
	fprintf(m, FMT_RS_MAX_RSS_KB "=%ld\n", all.ru_maxrss);
	fprintf(m, FMT_RS_CAPTURE_USER_US "=%llu\n",
		(unsigned long long)(tv_us(&s->ru_end.ru_utime) - tv_us(&s->ru_start.ru_utime)));
	fprintf(m, FMT_RS_CAPTURE_SYS_US "=%llu\n",
		(unsigned long long)(tv_us(&s->ru_end.ru_stime) - tv_us(&s->ru_start.ru_stime)));
	fprintf(m, FMT_RS_DURATION_NS "=%llu\n", (unsigned long long)duration_ns);
	fprintf(m, FMT_RS_BYTES_READ "=%llu\n", (unsigned long long)bytes_read);
	fprintf(m, FMT_RS_BYTES_WRITTEN "=%llu\n", (unsigned long long)(fmt_wbuf_bytes(s->wb) +
							 (s->use_top && s->wb_top ? fmt_wbuf_bytes(s->wb_top) : 0)));
	fprintf(m, FMT_RS_PAGES "=%llu\n", (unsigned long long)pages);
	fprintf(m, FMT_RS_WAKEUPS "=%llu\n", (unsigned long long)s->ri.wakeups);
	fprintf(m, FMT_RS_MAX_BUFFER_FILL_PCT "=%llu\n", (unsigned long long)max_fill);
	fprintf(m, FMT_RS_EVENTS "=%llu\n", (unsigned long long)both_total(s, "read events"));
	fprintf(m, FMT_RS_OVERRUN "=%llu\n", (unsigned long long)both_total(s, "overrun"));
	fprintf(m, FMT_RS_DROPPED "=%llu\n", (unsigned long long)both_total(s, "dropped events"));
	if (s->bpf) {
		struct rec_bpf_stats bs;

		rec_bpf_get_stats(s->bpf, &bs);
		fprintf(m, FMT_RS_BPF_RECORDS "=%llu\n" FMT_RS_BPF_DROPS "=%llu\n"
			FMT_RS_BPF_BYTES "=%llu\n" FMT_RS_BPF_PAGES "=%llu\n",
			(unsigned long long)bs.records, (unsigned long long)bs.drops,
			(unsigned long long)bs.bytes, (unsigned long long)bs.pages);
	}
	fputs(rec_flight_recstats(s->fl), m);
	for (i = 0; i < s->ri.ncpus; i++) {
		const struct rec_cpu *c = &s->ri.cpus[i];

		fprintf(m, FMT_RS_CPU_PREFIX "%d=pages:%llu bytes_read:%llu max_drain:%llu "
			"splice:%d\n", c->cpu, (unsigned long long)c->pages,
			(unsigned long long)c->bytes_read, (unsigned long long)c->max_drain,
			!c->use_read);
	}
	if (fclose(m))
		return -ENOMEM;
	err = fmt_writer_option_str(s->w, FMT_OPT_FT_RECSTATS, text);
	free(text);
	return err;
}

static int add_procmaps(struct session *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int i, err = 0;
	bool any = false;

	for (i = 0; i < s->ntraced; i++)
		any |= s->traced[i].maps != NULL;
	if (!any)
		return 0;
	m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	for (i = 0; i < s->ntraced; i++)
		if (s->traced[i].maps)
			fputs(s->traced[i].maps, m);
	if (fclose(m))
		return -ENOMEM;
	err = fmt_writer_option_str(s->w, FMT_OPT_PROCMAPS, text);
	free(text);
	return err;
}

/* ---- setup -------------------------------------------------------------------- */

static char *join_args(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int i;

	if (!m)
		return NULL;
	fputs("flytrap", m);
	for (i = 0; i < argc; i++)
		fprintf(m, " %s", argv[i]);
	if (fclose(m))
		return NULL;
	return buf;
}

static int set_cpumask(struct session *s)
{
	char buf[1200];
	int groups = (s->ri.max_cpus + 31) / 32, g, n = 0, err;

	if (groups > 8)
		groups = 8;
	for (g = groups - 1; g >= 0; g--) {
		uint32_t bits = (uint32_t)(s->o->cpu_mask[g / 2] >> ((g % 2) * 32));

		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%08x", g == groups - 1 ? "" : ",", bits);
	}
	err = rec_instance_write(&s->ri, "tracing_cpumask", buf);
	if (err)
		ft_error("cannot set the CPU mask of the instance to %s: %s", buf, strerror(-err));
	return err;
}

static int setup_tracer(struct session *s)
{
	struct rec_tracer_opts to = { 0 };
	char *err = NULL;
	size_t i;
	int r;

	if (!s->o->tracer && !s->o->kprobes.n)
		return 0;
	s->tracer = rec_tracer_new(s->ri.ti);
	if (!s->tracer) {
		ft_error("out of memory");
		return -ENOMEM;
	}
	if (s->o->tracer) {
		to.kind = (enum rec_tracer_kind)rec_tracer_parse_kind(s->o->tracer);
		to.graph_funcs = s->o->graph.v;
		to.ngraph_funcs = s->o->graph.n;
		to.filter = s->o->filter_funcs.v;
		to.nfilter = s->o->filter_funcs.n;
		to.notrace = s->o->notrace.v;
		to.nnotrace = s->o->notrace.n;
		to.max_graph_depth = s->o->max_graph_depth;
		to.func_stack = s->o->func_stack;
		r = rec_tracer_set(s->tracer, &to, &err);
		if (!r)
			s->tracer_on = true;
		if (r) {
			/* a refused tracer is not a reason to record nothing */
			ft_warn("%s; recording without the %s tracer", err ? err : strerror(-r),
				s->o->tracer);
			free(err);
			err = NULL;
		}
	}
	for (i = 0; i < s->o->kprobes.n; i++) {
		r = rec_tracer_add_kprobe(s->tracer, s->o->kprobes.v[i], &err);
		if (!r)
			s->tracer_on = true;
		if (r) {
			ft_warn("--kprobe '%s': %s; recording without it", s->o->kprobes.v[i],
				err ? err : strerror(-r));
			free(err);
			err = NULL;
		}
	}
	{
		bool top = false;

		rec_tracer_buffer(s->tracer, &top);
		if (top) {
			r = rec_instance_top(&s->top, &s->ri);
			if (r)
				return r;
			s->use_top = true;
		}
	}
	return 0;
}

/*
 * --bpf-object: on the built-in programs' machinery (the machinery alone
 * when there are none).  Unlike the built-in programs, the user's object
 * is what was asked for: if it cannot run, nothing is recorded.  Returns
 * 0, or an exit code (usage for the user's mistakes).
 */
static int setup_bpfobj(struct session *s, struct rec_bpf_opts *bo)
{
	struct rec_bpfobj_opts uo = {
		.paths = s->o->bpf_objects.v, .npaths = s->o->bpf_objects.n,
		.sets = s->o->bpf_sets.v, .nsets = s->o->bpf_sets.n,
		.attach = s->o->bpf_attach.v, .nattach = s->o->bpf_attach.n,
		.records = s->o->bpf_records.v, .nrecords = s->o->bpf_records.n,
		.perf_hz = s->o->bpf_perf_hz, .snapshot_ns = s->o->bpf_snapshot_ns,
		.verbose = ft_verbose,
	};
	char *err = NULL;
	int ret;

	if (!s->bpf) {
		bo->spec = NULL;
		s->bpf = rec_bpf_open(bo, &err);
		if (!s->bpf) {
			ret = ft_error("--bpf-object: %s", err ? err : strerror(errno));
			free(err);
			return ret;
		}
	}
	ret = rec_bpfobj_attach(s->bpf, &uo, &err);
	if (ret) {
		/* the object's links and programs go with it: nothing stays attached */
		rec_bpf_close(s->bpf);
		s->bpf = NULL;
		fprintf(stderr, "flytrap: error: %s\n", err ? err : strerror(-ret));
		free(err);
		return ret == -EINVAL || ret == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
	}
	return 0;
}

static int setup_bpf(struct session *s)
{
	struct rec_bpf_opts bo = { 0 };
	uint8_t trig_nrs[REC_TRIG_MAX_NRS / 8] = { 0 };
	pid_t pids[MAX_TRACED_PIDS];
	char *err = NULL;
	int i;

	if (!s->o->bpf && !s->o->bpf_objects.n)
		return 0;
	bo.spec = s->o->bpf;
	bo.tracefs = s->ri.tracing_dir;
	bo.page_size = s->ri.page_size;
	bo.kernel_long = s->ri.kernel_long;
	for (i = 0; i < s->ntraced; i++)
		pids[i] = s->traced[i].pid;
	bo.pids = pids;
	bo.npids = s->ntraced;
	bo.verbose = ft_verbose;
	bo.symbols = s->o->symbols;
	bo.user_stack = s->o->user_stack;
	bo.user_stack_bytes = s->o->user_stack_bytes;
	for (i = 0; i < s->o->fl.ntrig; i++) {
		const struct rec_trig_spec *t = &s->o->fl.trig[i];
		char *terr = NULL;

		/* several syscall triggers: the shortest duration over the union of their names */
		if (t->kind == REC_TRIG_SYSCALL) {
			uint8_t one[REC_TRIG_MAX_NRS / 8];
			size_t k;

			if (!rec_trigger_syscall_nrs(t, one, &terr))
				for (k = 0; k < sizeof(one); k++)
					trig_nrs[k] |= one[k];
			free(terr);
			if (!bo.trig_syscall_ns || t->dur_ns < bo.trig_syscall_ns)
				bo.trig_syscall_ns = t->dur_ns;
		} else if (t->kind == REC_TRIG_OFFCPU &&
			   (!bo.trig_offcpu_ns || t->dur_ns < bo.trig_offcpu_ns)) {
			bo.trig_offcpu_ns = t->dur_ns;
		}
	}
	bo.trig_nrs = trig_nrs;
	s->bpf = bo.spec ? rec_bpf_open(&bo, &err) : NULL;
	if (!s->bpf && bo.spec) {
		ft_warn("BPF programs not loaded: %s; recording without them", err ? err : strerror(errno));
		free(err);
		err = NULL;
	}
	return s->o->bpf_objects.n ? setup_bpfobj(s, &bo) : 0;
}

/*
 * Whether a user other than root holds what recording needs: CAP_PERFMON
 * (38) and CAP_BPF (39), or CAP_SYS_ADMIN (21) that kernels before 5.8 asked
 * for, in the effective set.
 */
static bool can_trace(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return (eff & (1ULL << 21)) || ((eff & (1ULL << 38)) && (eff & (1ULL << 39)));
}

static int setup_events(struct session *s)
{
	size_t i;
	int n, err;

	for (i = 0; i < s->o->uprobes.n; i++) {
		n = rec_uprobe_add(&s->ri, s->o->uprobes.v[i]);
		if (n < 0)
			return n;
	}
	if (!s->o->events.n && !s->o->uprobes.n && !s->o->tracer && !s->o->kprobes.n && !s->o->bpf) {
		if (!s->o->quiet)
			fprintf(stderr, "flytrap: no -e given: recording the scheduler, syscalls and IRQs "
				"(sched_switch, sched_wakeup*, sched_process_*, raw_syscalls, irq:*)\n");
		for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++) {
			n = rec_instance_enable(&s->ri, default_events[i], NULL);
			if (n < 0)
				return n;
			if (n == 0)
				ft_warn("this kernel has no event '%s'", default_events[i]);
		}
	}
	/*
	 * --bpf profile/offcpu with user stacks and no -e: the forks and execs
	 * too (a few events per process), so that callgraph names a sample
	 * taken between a fork and its exec from the parent's program: the file's
	 * maps of a pid are those of the program it exec'd (perf records its
	 * FORK and COMM events for the same reason).  With -e, the user's events.
	 */
	if (!s->o->events.n && s->o->bpf && s->o->user_stack != REC_USTACK_FP &&
	    rec_bpf_wants_stacks(s->o->bpf)) {
		static const char *const procs[] = { "sched:sched_process_fork",
						     "sched:sched_process_exec" };

		for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
			if (rec_instance_enable(&s->ri, procs[i], NULL) <= 0)
				ft_info("cannot enable %s: stacks before an exec keep their own maps",
					procs[i]);
	}
	for (i = 0; i < s->o->events.n; i++) {
		n = rec_instance_enable(&s->ri, s->o->events.v[i], s->o->filters.v[i]);
		if (n < 0)
			return n;
		if (n == 0) {
			if (s->o->filters.v[i])
				ft_error("no event matches '%s' with filter '%s' (see %s/available_events)",
					 s->o->events.v[i], s->o->filters.v[i], s->ri.tracing_dir);
			else
				ft_error("no event matches '%s' (see %s/available_events)", s->o->events.v[i],
					 s->ri.tracing_dir);
			return -ENOENT;
		}
	}
	if (s->o->stacktrace) {
		err = rec_instance_option(&s->ri, "stacktrace", true);
		if (err)
			ft_warn("the kernel refused options/stacktrace (%s); recording without stacks",
				strerror(-err));
	}
	return 0;
}

/* Append "tid " for pid and each of its threads; returns the count added. */
static int add_threads(FILE *m, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		fprintf(m, "%d ", (int)pid);
		return 1;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9') {
			fprintf(m, "%s ", de->d_name);
			n++;
		}
	closedir(d);
	return n;
}

/*
 * set_event_pid takes task ids: a -P process's threads that exist already
 * are listed one by one (event-fork only adds tasks created from now on).
 * One open with O_TRUNC, then writes that the kernel adds to the list.
 */
static int setup_pids(struct session *s)
{
	char *list = NULL, *path = NULL;
	size_t len = 0, off = 0;
	FILE *m;
	int i, fd = -1, err = 0, ntids = 0;

	if (!s->ntraced)
		return 0;
	m = open_memstream(&list, &len);
	if (!m)
		return -ENOMEM;
	for (i = 0; i < s->ntraced; i++)
		ntids += add_threads(m, s->traced[i].pid);
	if (fclose(m))
		return -ENOMEM;
	if (asprintf(&path, "%s/set_event_pid", s->ri.dir) < 0) {
		free(list);
		return -ENOMEM;
	}
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	while (!err && off < len) {
		/* whole numbers per write, well under a page */
		size_t n = len - off > 2048 ? 2048 : len - off;
		ssize_t r;

		while (off + n < len && n > 0 && list[off + n - 1] != ' ')
			n--;
		r = write(fd, list + off, n);
		if (r < 0)
			err = -errno;
		else
			off += (size_t)r;
	}
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (err)
		ft_error("cannot set set_event_pid to '%.60s': %s", list, strerror(-err));
	else
		ft_info("following %d task%s", ntids, ntids == 1 ? "" : "s");
	free(list);
	free(path);
	if (err)
		return err;
	/* follow children forked after the start */
	err = rec_instance_option(&s->ri, "event-fork", true);
	if (err)
		ft_warn("the kernel refused options/event-fork (%s): new children are not followed",
			strerror(-err));
	return 0;
}

static int setup_buffer(struct session *s)
{
	char kb[32], *text;
	int err = 0;

	if (s->o->buffer_kb) {
		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)s->o->buffer_kb);
		err = rec_instance_write(&s->ri, "buffer_size_kb", kb);
		if (err) {
			ft_error("cannot set the buffer size to %s KiB per CPU: %s", kb, strerror(-err));
			return err;
		}
	}
	/*
	 * Readers are woken when a CPU buffer is this full.  The kernel's 50
	 * leaves too little slack when the machine is loaded and the recorder
	 * is scheduled late (measured: 84-91% peak fill at 400k events/s on a
	 * loaded 2-CPU box, 57% with 25) for twice the wakeups, still a few
	 * dozen per second.  The instance is ours, so nothing to restore.
	 */
	err = rec_instance_write(&s->ri, "buffer_percent", "25");
	if (err)
		ft_info("cannot set buffer_percent: %s", strerror(-err));
	text = rec_instance_read(&s->ri, "buffer_size_kb", NULL);
	s->ri.buffer_kb = text ? strtoull(text, NULL, 10) : 0;
	free(text);
	return 0;
}

/* ---- the loop ------------------------------------------------------------------- */

static void drain_set(struct session *s, struct rec_instance *ri, struct fmt_wbuf *wb,
		      int idx, bool final)
{
	int werr = 0, r;

	if (s->write_err || !wb)
		return;
	r = rec_capture_drain(ri, &ri->cpus[idx], wb, final, &werr);
	if (r < 0) {
		if (werr) {
			s->write_err = werr;
		} else if (!s->stop_reason) {
			ft_error("cannot read the ring buffer of CPU %d: %s", ri->cpus[idx].cpu, strerror(-r));
			s->write_err = r;
		}
	}
}

/* ---- capture threads ------------------------------------------------------------ */

static void *capture_main(void *arg)
{
	struct capgroup *g = arg;
	struct session *s = g->s;
	struct pollfd *pfd = calloc((size_t)g->n + 1, sizeof(*pfd));
	struct timespec ts;
	int i, r;

	if (!pfd) {
		if (!__atomic_load_n(&s->write_err, __ATOMIC_RELAXED))
			__atomic_store_n(&s->write_err, -ENOMEM, __ATOMIC_RELAXED);
		return NULL;
	}
	for (i = 0; i < g->n; i++) {
		pfd[i].fd = s->ri.cpus[g->first + i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[g->n].fd = g->wake[0];
	pfd[g->n].events = POLLIN;
	for (;;) {
		/* as the main loop: a quiet CPU's full pages are taken at least every FLUSH_NS */
		r = poll(pfd, (nfds_t)g->n + 1, (int)(FLUSH_NS / 1000000));
		if (r < 0 && errno != EINTR) {
			ft_error("cannot wait for trace data: %s", strerror(errno));
			__atomic_store_n(&s->write_err, -errno, __ATOMIC_RELAXED);
			break;
		}
		if (r > 0 && pfd[g->n].revents)
			break;
		g->drains++;
		pthread_mutex_lock(&g->mu);
		for (i = 0; i < g->n; i++)
			if (r == 0 || (r > 0 && (pfd[i].revents & POLLIN)))
				drain_set(s, &s->ri, s->wb, g->first + i, false);
		pthread_mutex_unlock(&g->mu);
		/* the main thread ends the recording; spinning on a readable fd helps nobody */
		if (__atomic_load_n(&s->write_err, __ATOMIC_RELAXED))
			break;
	}
	free(pfd);
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		g->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return NULL;
}

/*
 * --capture-threads N (or FLYTRAP_CAPTURE_THREADS; default one per
 * CPUS_PER_CAPTURE CPUs): with more
 * than one, N threads split the instance's CPUs into N runs and this thread
 * only watches.  Returns 0 (possibly with no threads) or -errno.
 */
static int capture_start(struct session *s)
{
	int n = s->o->capture_threads, i, per, extra, first = 0, err;
	const char *env = getenv("FLYTRAP_CAPTURE_THREADS");
	sigset_t all, old;

	/* the environment's count where the option gives none (tests run every mode so) */
	if (!n && env && *env) {
		uint64_t v;

		if (!ft_parse_u64(env, &v) && v >= 1 && v <= 256)
			n = (int)v;
		else
			ft_warn("ignoring FLYTRAP_CAPTURE_THREADS='%s' (1 to 256)", env);
	}
	if (!n)
		n = (s->ri.ncpus + CPUS_PER_CAPTURE - 1) / CPUS_PER_CAPTURE;
	if (n > s->ri.ncpus)
		n = s->ri.ncpus;
	if (n < 2)
		return 0;
	err = fmt_wbuf_add_cpus(s->wb, s->ri.cpus[s->ri.ncpus - 1].cpu + 1);
	if (err)
		return writer_fail(s, err, "the capture threads");
	s->cap = calloc((size_t)n, sizeof(*s->cap));
	if (!s->cap)
	{
		ft_error("out of memory");
		return -ENOMEM;
	}
	per = s->ri.ncpus / n;
	extra = s->ri.ncpus % n;
	sigfillset(&all);
	/* signals stay with this thread: its ppoll is what they interrupt */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < n; i++) {
		struct capgroup *g = &s->cap[i];

		g->s = s;
		g->first = first;
		g->n = per + (i < extra);
		first += g->n;
		for (int k = 0; k < g->n; k++)
			g->pages_before += s->ri.cpus[g->first + k].pages;
		if (pipe2(g->wake, O_CLOEXEC)) {
			err = -errno;
			break;
		}
		pthread_mutex_init(&g->mu, NULL);
		if ((err = -pthread_create(&g->th, NULL, capture_main, g))) {
			pthread_mutex_destroy(&g->mu);
			close(g->wake[0]);
			close(g->wake[1]);
			break;
		}
		s->ncap++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		ft_error("cannot start a capture thread: %s", strerror(-err));
		return err;
	}
	ft_info("%d capture threads, %d CPUs each or one more", n, per);
	return 0;
}

/* End the capture threads (the final drain is this thread's again). */
static void capture_stop(struct session *s)
{
	int i;

	for (i = 0; i < s->ncap; i++) {
		struct capgroup *g = &s->cap[i];
		uint64_t pages = 0;

		close(g->wake[1]);
		pthread_join(g->th, NULL);
		close(g->wake[0]);
		pthread_mutex_destroy(&g->mu);
		for (int k = 0; k < g->n; k++)
			pages += s->ri.cpus[g->first + k].pages;
		ft_info("capture thread %d: CPUs %d-%d, %llu pages in %llu wakeups, %.3f s CPU", i,
			s->ri.cpus[g->first].cpu, s->ri.cpus[g->first + g->n - 1].cpu,
			(unsigned long long)(pages - g->pages_before), (unsigned long long)g->drains,
			(double)g->cpu_ns / 1e9);
	}
	free(s->cap);
	s->cap = NULL;
	s->ncap = 0;
}

/* Hold every capture thread out of the writer (a no-op without them). */
static void capture_pause(struct session *s, bool pause)
{
	for (int i = 0; i < s->ncap; i++) {
		if (pause)
			pthread_mutex_lock(&s->cap[i].mu);
		else
			pthread_mutex_unlock(&s->cap[i].mu);
	}
}

static void status_line(struct session *s, uint64_t t)
{
	uint64_t events = 0, lost = 0, bytes_read = 0, written = fmt_wbuf_bytes(s->wb);
	uint64_t t0 = (uint64_t)s->t_start.tv_sec * 1000000000ULL + (uint64_t)s->t_start.tv_nsec;
	double secs = (double)(t - t0) / 1e9;
	double dt = (double)(t - s->last_status_ns) / 1e9;
	int i;

	for (i = 0; i < s->ri.ncpus; i++) {
		char *st = rec_cpu_stats(&s->ri, s->ri.cpus[i].cpu);

		if (st) {
			events += rec_stats_field(st, "read events") + rec_stats_field(st, "entries");
			lost += rec_stats_field(st, "overrun") + rec_stats_field(st, "dropped events");
			free(st);
		}
		bytes_read += s->ri.cpus[i].bytes_read;
	}
	fprintf(stderr, "\r\033[K  %6.1fs  %9.0f events/s  %8.2f MB written  ratio %4.1fx  lost %llu",
		secs, dt > 0 ? (double)(events - s->last_events) / dt : 0.0, (double)written / 1e6,
		written ? (double)bytes_read / (double)written : 0.0, (unsigned long long)lost);
	if (s->fl)
		fputs(rec_flight_status(s->fl), stderr);
	s->last_events = events;
	s->last_status_ns = t;
}

/*
 * Finishing the file copies every spooled byte into it, and the final
 * drain may add up to the kernel buffers' worth of pages; stop while the
 * disk still has room for that, so a full disk ends in a complete file
 * rather than in one that needs `flytrap recover`.
 */
static bool disk_nearly_full(struct session *s, uint64_t *avail)
{
	struct statvfs sv;
	uint64_t spooled, pending, need;

	/* the output is its temporary file until the end; the disk is the directory's */
	if (statvfs(s->w && !s->stores ? fmt_writer_temp(s->w) : s->o->output, &sv)) {
		char *dir = strdup(s->o->output), *slash = dir ? strrchr(dir, '/') : NULL;
		int e;

		if (slash)
			slash[slash == dir] = '\0';
		e = statvfs(slash ? dir : ".", &sv);
		free(dir);
		if (e)
			return false;
	}
	spooled = fmt_wbuf_bytes(s->wb) + (s->wb_top ? fmt_wbuf_bytes(s->wb_top) : 0);
	pending = (uint64_t)(s->ri.ncpus + s->top.ncpus) * s->ri.buffer_kb * 1024;
	need = spooled + 2 * pending + (1ULL << 20) + spooled / 32;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	return *avail < need;
}

static int record_loop(struct session *s, const sigset_t *wait_mask)
{
	/* ri's CPUs, then the top level's, then the BPF ring buffer */
	struct pollfd *pfd = calloc((size_t)(s->ri.ncpus + s->top.ncpus + 1), sizeof(*pfd));
	int nfd = 0, i, bpf_slot = -1, ret = 0;
	uint64_t start = now_ns(CLOCK_MONOTONIC), next_maps = start + 1000000000ULL;
	/* a flight recorder's chunks go to its store, not to spools reset could finish */
	uint64_t flush_ns = s->stores ? 2000000000ULL : FLUSH_NS, next_flush = start + flush_ns;
	bool progress = !s->o->quiet && ft_progress_enabled();

	if (!pfd) {
		ft_error("out of memory");
		return -ENOMEM;
	}
	s->last_status_ns = start;
	if ((ret = capture_start(s))) {
		capture_stop(s);
		free(pfd);
		return ret;
	}
	/* with capture threads this thread watches no CPU of the instance (fd -1) */
	for (i = 0; i < s->ri.ncpus; i++) {
		pfd[nfd].fd = s->ncap ? -1 : s->ri.cpus[i].fd;
		pfd[nfd++].events = POLLIN;
	}
	for (i = 0; s->use_top && i < s->top.ncpus; i++) {
		pfd[nfd].fd = s->top.cpus[i].fd;
		pfd[nfd++].events = POLLIN;
	}
	if (s->bpf && rec_bpf_fd(s->bpf) >= 0) {
		bpf_slot = nfd;
		pfd[nfd].fd = rec_bpf_fd(s->bpf);
		pfd[nfd++].events = POLLIN;
	}

	while (!rec_stop_signal && !s->write_err) {
		uint64_t t = now_ns(CLOCK_MONOTONIC), wait_ns = 1000000000ULL;
		struct timespec ts;
		int r;

		if (s->o->duration_ns) {
			if (t - start >= s->o->duration_ns) {
				s->stop_reason = "duration reached";
				break;
			}
			if (s->o->duration_ns - (t - start) < wait_ns)
				wait_ns = s->o->duration_ns - (t - start);
		}
		if (progress && wait_ns > 500000000ULL)
			wait_ns = 500000000ULL;
		if (s->fl)
			wait_ns = rec_flight_wait_ns(s->fl, t, wait_ns);
		/* pages read and not in a spool yet must not wait for a wakeup */
		if (s->stores)
			;
		else if (t < next_flush && wait_ns > next_flush - t)
			wait_ns = next_flush - t;
		else if (t >= next_flush)
			wait_ns = 0;
		ts.tv_sec = (time_t)(wait_ns / 1000000000ULL);
		ts.tv_nsec = (long)(wait_ns % 1000000000ULL);
		r = ppoll(pfd, (nfds_t)nfd, &ts, wait_mask);
		s->ri.wakeups++;
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			ft_error("cannot wait for trace data: %s", strerror(errno));
			break;
		}
		/*
		 * Readable means the kernel's buffer_percent mark was reached; on a
		 * timeout every CPU is still drained of its full pages so that a
		 * quiet CPU's data does not wait until the end.
		 */
		for (i = 0; !s->ncap && i < s->ri.ncpus; i++)
			if (r == 0 || (r > 0 && (pfd[i].revents & POLLIN)))
				drain_set(s, &s->ri, s->wb, i, false);
		for (i = 0; s->use_top && i < s->top.ncpus; i++)
			if (r == 0 || (r > 0 && (pfd[s->ri.ncpus + i].revents & POLLIN)))
				drain_set(s, &s->top, s->wb_top, i, false);
		if (s->bpf && (bpf_slot < 0 || r == 0 || (r > 0 && (pfd[bpf_slot].revents & POLLIN)))) {
			int b = rec_bpf_poll(s->bpf, 0);

			if (b < 0 && b != -EINTR) {
				ft_warn("BPF ring buffer: %s", rec_bpf_error(s->bpf));
			}
		}
		if (s->child > 0) {
			child_reap(s, false);
			if (s->child_done) {
				s->stop_reason = "command finished";
				break;
			}
		}
		{
			uint64_t avail;

			/* the store is bounded: its dumps check their own writes */
			if (!s->stores && disk_nearly_full(s, &avail)) {
				s->stop_reason = "the disk is almost full";
				ft_warn("only %.1f MB left on the disk holding '%s': stopping while the file "
					"can still be finished", (double)avail / 1e6, s->o->output);
				break;
			}
		}
		if (s->o->max_size) {
			uint64_t sz = fmt_wbuf_bytes(s->wb) + (s->wb_top ? fmt_wbuf_bytes(s->wb_top) : 0);

			if (sz >= s->o->max_size) {
				s->stop_reason = "size limit reached";
				break;
			}
		}
		t = now_ns(CLOCK_MONOTONIC);
		if (s->fl) {
			bool stop = false;
			const char *why = NULL;
			int ft;

			/* a dump or a rotation drains every CPU and flushes the writer */
			capture_pause(s, true);
			ft = rec_flight_tick(s->fl, t, &stop, &why);
			capture_pause(s, false);
			if (ft) {
				ret = -EIO;
				break;
			}
			if (stop) {
				s->stop_reason = why;
				break;
			}
		}
		if (t >= next_maps) {
			traced_refresh(s);
			next_maps = t + 1000000000ULL;
		}
		/*
		 * Pages waiting for a full chunk live only in our memory; push
		 * them to the spool now and then so that `flytrap recover` loses
		 * at most FLUSH_NS of what we read after a SIGKILL (what the
		 * kernel still holds, `flytrap reset` saves).
		 */
		if (t >= next_flush) {
			int f;

			capture_pause(s, true);
			f = fmt_wbuf_flush(s->wb);
			if (!f && s->wb_top)
				f = fmt_wbuf_flush(s->wb_top);
			capture_pause(s, false);
			if (f && !s->write_err)
				s->write_err = f;
			next_flush = t + flush_ns;
		}
		if (progress && t - s->last_status_ns >= 500000000ULL)
			status_line(s, t);
	}
	capture_stop(s);
	if (progress)
		fprintf(stderr, "\r\033[K");
	if (rec_stop_signal && !s->stop_reason)
		s->stop_reason = rec_stop_signal == SIGINT ? "interrupted" :
				 rec_stop_signal == SIGTERM ? "terminated (SIGTERM)" : "hang-up (SIGHUP)";
	free(pfd);
	return ret;
}

/*
 * Linux keeps a nice value per thread; the writer's worker thread exists
 * already, so every thread of ours is set.  Returns 0 if the calling one was.
 */
static int nice_all_threads(int nice)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int err = setpriority(PRIO_PROCESS, 0, nice) ? -errno : 0;

	if (!d)
		return err;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			setpriority(PRIO_PROCESS, (id_t)atoi(de->d_name), nice);
	closedir(d);
	return err;
}

/* --realtime: every thread to SCHED_FIFO 1 (on) or back to SCHED_OTHER (off). */
static int fifo_all_threads(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };
	int policy = on ? SCHED_FIFO : SCHED_OTHER;
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int err = sched_setscheduler(0, policy, &sp) ? -errno : 0;

	if (!d)
		return err;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			sched_setscheduler((pid_t)atoi(de->d_name), policy, &sp);
	closedir(d);
	return err;
}

/* Signal the command, give it a moment, and reap it if it ended. */
static void child_stop(struct session *s)
{
	int i;

	if (s->child <= 0 || s->child_done || !rec_stop_signal)
		return;
	/* Ctrl-C reached the whole process group already; give it time first */
	for (i = 0; i < 10 && !s->child_done; i++) {
		usleep(20000);
		child_reap(s, false);
	}
	if (!s->child_done && rec_stop_signal)
		kill(s->child, rec_stop_signal);
	for (i = 0; i < 100 && !s->child_done; i++) {
		usleep(20000);
		child_reap(s, false);
	}
}

static const char *human(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ULL << 30)
		snprintf(buf, len, "%.1f GB", (double)b / 1e9);
	else if (b >= 10ULL << 20)
		snprintf(buf, len, "%.1f MB", (double)b / 1e6);
	else if (b >= 10ULL << 10)
		snprintf(buf, len, "%.1f kB", (double)b / 1e3);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

static void summary(struct session *s, uint64_t file_size, uint64_t dur_ns)
{
	uint64_t ev = 0, lost = 0, bytes = 0, bpf_records = 0, bpf_written = 0;
	char b1[32], b2[32];
	int i;

	fprintf(stderr, "flytrap: CPU %12s %12s %10s\n", "events", "bytes", "lost");
	/* the instance's CPUs, then (marked T) the top-level buffer a tracer used */
	for (i = 0; i < s->ri.ncpus + (s->use_top ? s->top.ncpus : 0); i++) {
		bool top = i >= s->ri.ncpus;
		const struct rec_cpu *c = top ? &s->top.cpus[i - s->ri.ncpus] : &s->ri.cpus[i];
		uint64_t e = cpu_delta(c, "read events");
		uint64_t l = cpu_delta(c, "overrun") + cpu_delta(c, "dropped events");

		fprintf(stderr, "flytrap: %3d%s %12llu %12s %10llu\n", c->cpu, top ? "T" : "",
			(unsigned long long)e, human(c->bytes_read, b1, sizeof(b1)),
			(unsigned long long)l);
		ev += e;
		lost += l;
		bytes += c->bytes_read;
	}
	if (s->use_top && s->top.ncpus)
		fprintf(stderr, "flytrap: (T: the top-level buffer, where this kernel runs the tracer)\n");
	if (s->bpf) {
		struct rec_bpf_stats bs;

		rec_bpf_get_stats(s->bpf, &bs);
		fprintf(stderr, "flytrap: BPF %12llu %12s %10llu\n", (unsigned long long)bs.written,
			human(bs.bytes, b1, sizeof(b1)), (unsigned long long)bs.drops);
		bpf_records = bs.records;
		bpf_written = bs.written;
		/* the closing line's loss is the one figure of drops and info: both rings' */
		lost += bs.drops;
	}
	{
		uint64_t cpu_us = tv_us(&s->ru_end.ru_utime) - tv_us(&s->ru_start.ru_utime) +
				  tv_us(&s->ru_end.ru_stime) - tv_us(&s->ru_start.ru_stime);
		uint64_t buf_bytes = s->ri.buffer_kb * 1024, max_fill = 0;

		/* one drain can exceed the buffer when the kernel writes while we read */
		for (i = 0; i < s->ri.ncpus + (s->use_top ? s->top.ncpus : 0); i++) {
			const struct rec_cpu *c = i < s->ri.ncpus ? &s->ri.cpus[i] :
						  &s->top.cpus[i - s->ri.ncpus];

			if (buf_bytes && c->max_drain * 100 / buf_bytes > max_fill)
				max_fill = c->max_drain * 100 / buf_bytes;
		}
		if (max_fill > 100)
			max_fill = 100;
		char per[64] = "";

		/* per event of either kind: the BPF records cost the recorder too */
		if (ev + bpf_records >= 10000)
			snprintf(per, sizeof(per), " (%.3f s per million events)",
				 (double)cpu_us / (double)(ev + bpf_records));
		fprintf(stderr, "flytrap: recorder cost: %.3f s CPU while recording%s, "
			"%llu wakeups, buffers at most %llu%% full, %.1f MB memory at most\n",
			(double)cpu_us / 1e6, per, (unsigned long long)s->ri.wakeups,
			(unsigned long long)max_fill, (double)s->ru_end.ru_maxrss / 1024.0);
	}
	if (s->stores) {
		rec_flight_summary(s->fl);
		return;
	}
	if (s->fl)
		rec_flight_summary(s->fl);
	{
		char bpf[64] = "";

		if (s->bpf)
			snprintf(bpf, sizeof(bpf), " + %llu BPF records", (unsigned long long)bpf_written);
		fprintf(stderr, "flytrap: wrote '%s': %s, %llu events%s in %.1f s (%s of ring buffer "
			"pages), %llu lost%s\n",
			s->o->output, human(file_size, b1, sizeof(b1)), (unsigned long long)ev, bpf,
			(double)dur_ns / 1e9, human(bytes, b2, sizeof(b2)), (unsigned long long)lost,
			lost ? " (see 'flytrap drops')" : "");
	}
}

/* ---- dumps (flight.h) ------------------------------------------------------ */

/* Every page the kernel and the BPF programs hold, into the live writer and its store. */
static int fl_drain(void *ctx)
{
	struct session *s = ctx;
	int i, err, werr = 0;

	/* whole pages, then one read of each current page: bounded while tracing runs */
	for (i = 0; i < s->ri.ncpus; i++) {
		drain_set(s, &s->ri, s->wb, i, false);
		if (!s->write_err && (err = rec_capture_partial(&s->ri, &s->ri.cpus[i], s->wb, &werr)))
			s->write_err = werr ? werr : err;
	}
	for (i = 0; s->use_top && i < s->top.ncpus; i++) {
		drain_set(s, &s->top, s->wb_top, i, false);
		if (!s->write_err && (err = rec_capture_partial(&s->top, &s->top.cpus[i], s->wb_top, &werr)))
			s->write_err = werr ? werr : err;
	}
	if (s->bpf && (err = rec_bpf_flush_pages(s->bpf)))
		ft_warn("BPF records of the last moments may be missing: %s", rec_bpf_error(s->bpf));
	if (s->write_err)
		return s->write_err;
	return fmt_writer_flush(s->w);
}

/* The start statistics of a dump: those sampled at its window's start. */
static int fl_start_stats(struct session *s)
{
	char **saved = calloc((size_t)s->ri.ncpus + 1, sizeof(*saved));
	int i, err;

	if (!saved)
		return -ENOMEM;
	for (i = 0; i < s->ri.ncpus; i++) {
		const char *w = rec_flight_start_stats(s->fl, s->ri.cpus[i].cpu);

		saved[i] = s->ri.cpus[i].stats_start;
		if (w)
			s->ri.cpus[i].stats_start = (char *)w;
	}
	err = add_cpustats(s, &s->ri, "", true);
	for (i = 0; i < s->ri.ncpus; i++)
		s->ri.cpus[i].stats_start = saved[i];
	free(saved);
	return err;
}

/* The end of a dump: what a finished recording writes after its data. */
static int fl_end_meta(struct session *s, const char *extra)
{
	struct timespec now;
	bool fresh = s->ri.ncpus && !s->ri.cpus[0].stats_end;
	int i, err;

	if (fresh) {
		getrusage(RUSAGE_SELF, &s->ru_end);
		for (i = 0; i < s->ri.ncpus; i++)
			s->ri.cpus[i].stats_end = rec_cpu_stats(&s->ri, s->ri.cpus[i].cpu);
		for (i = 0; s->use_top && i < s->top.ncpus; i++)
			s->top.cpus[i].stats_end = rec_cpu_stats(&s->top, s->top.cpus[i].cpu);
		traced_refresh(s);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	err = add_cpustats(s, &s->ri, s->use_top ? s->ri.name : "", false);
	if (!err && s->use_top)
		err = add_cpustats(s, &s->top, "", false);
	if (!err)
		err = add_cmdlines(s);
	if (!err)
		err = add_procmaps(s);
	if (!err)
		err = add_recstats(s, (uint64_t)(now.tv_sec - s->t_start.tv_sec) * 1000000000ULL +
					(uint64_t)now.tv_nsec - (uint64_t)s->t_start.tv_nsec);
	if (!err && s->bpf)
		err = rec_bpf_write_options(s->bpf, s->w);
	if (!err && extra)
		err = fmt_writer_option_str(s->w, FMT_OPT_FT_META, extra);
	if (fresh) {
		for (i = 0; i < s->ri.ncpus; i++) {
			free(s->ri.cpus[i].stats_end);
			s->ri.cpus[i].stats_end = NULL;
		}
		for (i = 0; s->use_top && i < s->top.ncpus; i++) {
			free(s->top.cpus[i].stats_end);
			s->top.cpus[i].stats_end = NULL;
		}
	}
	return err;
}

static int fl_meta(void *ctx, struct fmt_writer *w, int phase, const char *extra)
{
	struct session *s = ctx;
	struct fmt_writer *live = s->w;
	int err;

	s->w = w;
	if (phase == 0) {
		err = write_start_metadata(s);
		if (!err)
			err = fl_start_stats(s);
	} else {
		err = fl_end_meta(s, extra);
	}
	s->w = live;
	return err;
}

/*
 * The run note for `flytrap reset` and `flytrap recover`: which instance
 * this recorder uses and which files it writes, so that after a SIGKILL
 * they find exactly those (state.h).
 */
static int note_write(struct session *s)
{
	struct rec_note n = { 0 };
	bool keeps = !(s->stores && s->o->fl.flight);
	int err;

	n.pid = getpid();
	n.start = rec_proc_start(n.pid);
	n.instance = s->ri.name;
	n.output = rec_abs_path(s->o->output);
	/*
	 * A flight recorder's live writer keeps no file: its dumps are whole at
	 * once.  A rotation's keeps its metadata for reset and recover to make
	 * the file being filled when a SIGKILL comes (rec_flight_store_save).
	 */
	n.temp = keeps ? rec_abs_path(fmt_writer_temp(s->w)) : NULL;
	if (!n.output || (keeps && !n.temp)) {
		err = -errno;
		ft_error("cannot resolve the directory of '%s': %s", s->o->output, strerror(errno));
		free(n.output);
		return err;
	}
	/* the flight recorder's and rotation's segment files: reset removes them after a SIGKILL */
	if (rec_flight_store_prefix(s->fl) && !(n.store = rec_abs_path(rec_flight_store_prefix(s->fl)))) {
		err = -errno;
		ft_error("cannot resolve the directory of '%s': %s", s->o->output, strerror(errno));
		free(n.output);
		free(n.temp);
		return err;
	}
	n.chown = fmt_outfile_owner(&n.uid, &n.gid);
	n.requests = true;
	err = rec_note_write(&n);
	free(n.output);
	free(n.temp);
	free(n.store);
	if (!err)
		s->note = true;
	return err;
}

/* Each spool the writer creates goes into the run note, for reset and recover. */
static void note_spool(void *arg, const char *path)
{
	char *abs = rec_abs_path(path);

	(void)arg;
	if (!abs || rec_note_add_spool(getpid(), abs))
		ft_warn("cannot note spool file '%s' in '%s': 'flytrap reset' will not find it",
			path, rec_state_dir());
	free(abs);
}

int cmd_record(int argc, char **argv)
{
	struct opts o = { 0 };
	struct session s = { 0 };
	struct fmt_writer_opts wo = { 0 };
	sigset_t old_mask, wait_mask;
	bool signals = false, reniced = false, realtime = false;
	int old_nice = 0, loop_err = 0;
	uint64_t t0 = 0, dur = 0;
	int rc = EXIT_FAIL, err, i;
	struct stat st;

	s.o = &o;
	s.child = -1;
	s.child_go = -1;
	s.child_err = -1;
	s.lock.fd = -1;
	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		goto out_args;
	rc = EXIT_FAIL;
	/* -v raises libtracefs's level together with flytrap's (style.md) */
	if (ft_verbose)
		tracefs_set_loglevel(ft_verbose > 1 ? TEP_LOG_ALL : TEP_LOG_INFO);
	s.cmdline = join_args(argc, argv);
	s.start_epoch_ns = now_ns(CLOCK_REALTIME);

	if (geteuid() != 0 && !can_trace()) {
		ft_error("recording needs root (or the capabilities CAP_PERFMON and CAP_BPF, and "
			 "write access to tracefs): run it with sudo");
		goto out_args;
	}

	/* from here on a signal only sets a flag: every path below cleans up */
	if (rec_signals_install(&old_mask)) {
		ft_error("cannot install signal handlers: %s", strerror(errno));
		goto out_args;
	}
	signals = true;
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGHUP);
	sigdelset(&wait_mask, SIGCHLD);
	sigdelset(&wait_mask, SIGALRM);
	sigdelset(&wait_mask, SIGUSR1);
	sigdelset(&wait_mask, SIGUSR2);

	{
		const char *td = tracefs_tracing_dir();

		rc = td ? rec_trigger_check_events(&o.fl, td) : -1;
		if (rc >= 0)
			goto out;
		rc = EXIT_FAIL;
	}
	for (i = 0; i < o.npids; i++) {
		if (kill(o.pids[i], 0) && errno == ESRCH) {
			ft_error("no process with pid %d", (int)o.pids[i]);
			goto out;
		}
		traced_add(&s, o.pids[i]);
	}

	/* before any kernel change: reset and recover rely on the state directory */
	if (rec_state_prepare(true) || rec_output_lock(o.output, &s.lock))
		goto out;
	if (rec_instance_create(&s.ri, "mono"))
		goto out;
	if (setup_buffer(&s))
		goto out;
	if (o.have_cpus && set_cpumask(&s))
		goto out;
	err = setup_events(&s);
	if (err) {
		/* an event, a filter or a probed function the kernel does not know: the user's typo */
		if (err == -ENOENT || err == -EINVAL)
			rc = EXIT_USAGE;
		goto out;
	}
	if (setup_tracer(&s))
		goto out;
	if (o.cmd) {
		err = child_fork(&s, &old_mask);
		if (err) {
			ft_error("cannot start '%s': %s", o.cmd[0], strerror(-err));
			goto out;
		}
		traced_add(&s, s.child);
	}
	if (setup_pids(&s))
		goto out;
	err = setup_bpf(&s);
	if (err) {
		rc = err;
		goto out;
	}
	if (rec_stop_signal)
		goto out;
	if (!s.ri.nevents && !s.tracer_on && !s.bpf) {
		ft_error("nothing left to record: the kernel refused every source asked for");
		goto out;
	}

	wo.compression = o.compression;
	wo.zstd_level = o.level;
	wo.page_size = s.ri.page_size;
	wo.long_size = s.ri.kernel_long;
	wo.threads = o.threads;
	if (!wo.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		int masked = 0;

		for (i = 0; o.have_cpus && i < 256; i++)
			masked += !!(o.cpu_mask[i / 64] & (1ULL << (i % 64)));
		if (o.have_cpus)
			n = masked;
		wo.threads = n / CPUS_PER_ZSTD > 1 ? (int)(n / CPUS_PER_ZSTD) : 1;
	}
	ft_info("%d compression thread%s", wo.threads, wo.threads == 1 ? "" : "s");
	{
		static const struct rec_flight_ops ops_tmpl = { NULL, fl_drain, fl_meta };
		struct rec_flight_ops ops = ops_tmpl;
		char *live = NULL;

		ops.ctx = &s;
		s.fl = rec_flight_new(&o.fl, o.output, &s.ri, s.bpf, &ops, &wo, &live);
		if (!s.fl)
			goto out;
		s.stores = live != NULL;
		/* the spools of a recording into FILE go into the run note */
		if (!live)
			wo.on_spool = note_spool;
		err = fmt_writer_open(live ? live : o.output, &wo, &s.w);
		if (live) {
			/*
			 * The live writer's file only holds metadata that dumps write
			 * again; a rotation keeps it (hidden, removed at the end) for
			 * recover to finish the file a SIGKILL interrupts.
			 */
			if (!err && o.fl.flight)
				unlink(fmt_writer_temp(s.w));
			free(live);
		}
		if (err) {
			ft_error("cannot create '%s': %s", o.output, strerror(-err));
			s.w = NULL;
			goto out;
		}
	}
	if (note_write(&s))
		goto out;
	if (rec_capture_open(&s.ri, o.have_cpus ? o.cpu_mask : NULL))
		goto out;
	if (s.use_top && rec_capture_open(&s.top, o.have_cpus ? o.cpu_mask : NULL))
		goto out;
	/* the trigger instance reads the CPUs the recording captures */
	err = rec_flight_setup_triggers(s.fl);
	if (err) {
		if (err == -EINVAL)
			rc = EXIT_USAGE;
		goto out;
	}
	traced_refresh(&s);
	if (write_start_metadata(&s))
		goto out;
	err = add_cpustats(&s, &s.ri, "", true);
	if (err) {
		writer_fail(&s, err, "the CPU statistics");
		goto out;
	}
	/*
	 * With a top-level tracer buffer, that one is the file's top buffer
	 * (as trace-cmd would write it) and the instance becomes a named one.
	 */
	err = fmt_wbuf_new(s.w, s.use_top ? s.ri.name : "", "mono", &s.wb);
	if (!err && s.use_top)
		err = fmt_wbuf_new(s.w, "", "mono", &s.wb_top);
	if (!err && s.bpf)
		err = rec_bpf_start(s.bpf, s.w);
	if (err) {
		writer_fail(&s, err, "the buffers");
		goto out;
	}

	comm_scan_proc(&s.comms);	/* names of tasks that may exit while we record */
	getrusage(RUSAGE_SELF, &s.ru_start);
	clock_gettime(CLOCK_MONOTONIC, &s.t_start);
	t0 = now_ns(CLOCK_MONOTONIC);
	err = rec_instance_write(&s.ri, "tracing_on", "1");
	if (err) {
		ft_error("cannot start tracing in '%s': %s", s.ri.name, strerror(-err));
		goto out;
	}
	if (s.tracer) {
		char *terr = NULL;

		if (rec_tracer_start(s.tracer, &terr)) {
			ft_warn("%s; recording without the tracer", terr ? terr : "the tracer did not start");
			free(terr);
		}
	}
	if (o.cmd) {
		err = child_release(&s);
		s.child_execd = !err;
		if (err) {
			ft_error("cannot run '%s': %s", o.cmd[0], strerror(-err));
			child_reap(&s, true);
			goto out;
		}
	}

	/* said once the kernel records: scripts wait for this line */
	if (!o.quiet)
		fprintf(stderr, "flytrap: recording %d event%s%s%s on %d CPU%s into '%s' (%llu KiB buffer per CPU)%s\n",
			s.ri.nevents, s.ri.nevents == 1 ? "" : "s",
			s.tracer_on ? " + tracer" : "", s.bpf ? " + BPF" : "",
			s.ri.ncpus, s.ri.ncpus == 1 ? "" : "s", o.output,
			(unsigned long long)s.ri.buffer_kb,
			o.cmd ? "" : o.duration_ns ? "" : "; Ctrl-C to stop");

	/*
	 * On a busy machine a woken recorder can wait tens of milliseconds
	 * for a CPU while the buffer fills; a higher priority (nice -10 from
	 * where we were) gets it there in time, and costs little since it
	 * uses a few percent of a core.  The writer's compression thread gets
	 * it too: when it falls behind, adding pages waits for it.  The
	 * command was forked before, so it keeps the caller's priority.  Measured: 0 vs 11004 lost events at
	 * 400k events/s on a loaded 2-CPU box.
	 */
	errno = 0;
	old_nice = getpriority(PRIO_PROCESS, 0);
	if (!errno && !nice_all_threads(old_nice - 10 < -20 ? -20 : old_nice - 10))
		reniced = true;
	/*
	 * --realtime: the recorder's work per wakeup is bounded (drain, hand
	 * pages to the writer), so a FIFO priority cannot starve the machine,
	 * and the kernel's RT throttling caps it anyway.  Opt-in: some sites
	 * forbid real-time tasks.
	 */
	if (o.realtime) {
		err = fifo_all_threads(true);
		if (err)
			ft_warn("cannot run as a real-time task: %s; recording at normal priority",
				strerror(-err));
		else
			realtime = true;
	}
	/* a failed wait still ends in a complete file, but not in success */
	loop_err = record_loop(&s, &wait_mask);

	/* stop producing, then take everything the kernel still holds */
	if (s.tracer)
		rec_tracer_stop(s.tracer);
	rec_instance_write(&s.ri, "tracing_on", "0");
	child_stop(&s);
	child_detach(&s);
	traced_refresh(&s);
	for (i = 0; i < s.ri.ncpus; i++)
		drain_set(&s, &s.ri, s.wb, i, true);
	for (i = 0; s.use_top && i < s.top.ncpus; i++)
		drain_set(&s, &s.top, s.wb_top, i, true);
	dur = now_ns(CLOCK_MONOTONIC) - t0;
	if (realtime)
		fifo_all_threads(false);
	if (reniced)
		nice_all_threads(old_nice);
	for (i = 0; i < s.ri.ncpus; i++)
		s.ri.cpus[i].stats_end = rec_cpu_stats(&s.ri, s.ri.cpus[i].cpu);
	for (i = 0; s.use_top && i < s.top.ncpus; i++)
		s.top.cpus[i].stats_end = rec_cpu_stats(&s.top, s.top.cpus[i].cpu);
	getrusage(RUSAGE_SELF, &s.ru_end);
	if (s.bpf && !s.write_err) {
		err = rec_bpf_finish(s.bpf, s.w);
		if (err)
			ft_warn("BPF data incomplete: %s", rec_bpf_error(s.bpf));
	}

	if (s.write_err) {
		if (s.write_err == -ENOSPC || s.write_err == -EDQUOT)
			ft_error("the disk holding '%s' is full (%s): recording stopped; free some "
				 "space and run 'flytrap recover' on it", o.output, strerror(-s.write_err));
		else
			writer_fail(&s, s.write_err, "trace data");
	}

	/*
	 * The kernel goes back to how we found it before the (slow) file
	 * close.  Our top-level trace_pipe_raw fds go first: the kernel
	 * refuses to change current_tracer (EBUSY) while they are open.
	 */
	if (s.use_top)
		rec_instance_destroy(&s.top);
	if (s.tracer) {
		if (rec_tracer_restore(s.tracer))
			ft_warn("%s; run 'flytrap reset'", rec_tracer_last_error(s.tracer));
		rec_tracer_free(s.tracer);
		s.tracer = NULL;
	}

	if (s.stores) {
		/* the last dump or rotation file; the live writer held nothing of its own */
		if (rec_flight_finish(s.fl))
			loop_err = -EIO;
		fmt_writer_abort(s.w);
		s.w = NULL;
	}
	/* the end statistics, cmdlines and costs go into the final options */
	if (!s.stores) {
		err = add_cpustats(&s, &s.ri, s.use_top ? s.ri.name : "", false);
		if (!err && s.use_top)
			err = add_cpustats(&s, &s.top, "", false);
		if (!err)
			err = add_cmdlines(&s);
		if (!err)
			err = add_procmaps(&s);
		if (!err)
			err = add_recstats(&s, dur);
		if (!err && s.fl) {
			char *m = rec_flight_stop_meta(s.fl), *sh = rec_flight_shed_meta(s.fl, 0, UINT64_MAX);

			if (m)
				err = fmt_writer_option_str(s.w, FMT_OPT_FT_META, m);
			if (!err && sh)
				err = fmt_writer_option_str(s.w, FMT_OPT_FT_META, sh);
			free(m);
			free(sh);
		}
		if (err && !s.write_err) {
			writer_fail(&s, err, "the final metadata");
			s.write_err = err;
		}
	}
	err = rec_instance_destroy(&s.ri);
	if (s.w) {
		int cerr = fmt_writer_close(s.w);

		s.w = NULL;
		if (cerr) {
			/* a write error said once: the close only meets it again */
			if (cerr != s.write_err)
				ft_error("cannot finish '%s': %s%s", o.output, strerror(-cerr),
					 cerr == -ENOSPC ? "; free some space and run 'flytrap recover' "
					 "on it" : "");
			/* its temporary file and spools stay: recover finds them through the note */
			s.note = false;
			goto out;
		}
	}
	if (s.write_err || err || loop_err)
		goto out;
	if (!s.stores)
		rec_flight_file_done(s.fl, o.output);	/* --on-file: the final file */
	if (!o.quiet) {
		summary(&s, stat(o.output, &st) ? 0 : (uint64_t)st.st_size, dur);
		if (s.stop_reason)
			fprintf(stderr, "flytrap: stopped: %s\n", s.stop_reason);
		if (s.child > 0 && !s.child_done)
			fprintf(stderr, "flytrap: '%s' (pid %d) is still running\n", o.cmd[0], (int)s.child);
	}
	/* a dump or rotation file that could not be written (said when it failed) */
	rc = rec_flight_failed(s.fl) ? EXIT_FAIL : EXIT_OK;
out:
	if (s.child_go >= 0) {
		/* closing the go pipe makes a waiting child exit without running */
		close(s.child_go);
		if (s.child_err >= 0)
			close(s.child_err);
		s.child_go = -1;
		child_reap(&s, true);
	}
	if (s.bpf)
		rec_bpf_close(s.bpf);
	if (s.use_top)
		rec_instance_release(&s.top);	/* fds closed before the tracer's restore */
	if (s.tracer)
		rec_tracer_free(s.tracer);
	rec_instance_release(&s.ri);
	/* no file that looks like a trace: the temporary file and spools go */
	if (s.w)
		fmt_writer_abort(s.w);
	if (s.note)
		rec_note_remove();
	rec_trig_cleanup(getpid());
	rec_flight_free(s.fl);
	rec_output_unlock(&s.lock);
	if (signals)
		rec_signals_restore(&old_mask);
	for (i = 0; i < s.ntraced; i++)
		free(s.traced[i].maps);
	free(s.comms.v);
	free(s.cmdline);
out_args:
	free(o.events.v);
	free(o.bpf_objects.v);
	free(o.bpf_sets.v);
	free(o.bpf_attach.v);
	free(o.bpf_records.v);
	free(o.filters.v);
	free(o.uprobes.v);
	free(o.graph.v);
	free(o.filter_funcs.v);
	free(o.notrace.v);
	free(o.kprobes.v);
	rec_flight_conf_release(&o.fl);
	rec_runas_release(&o.runas);
	return rc;
}
