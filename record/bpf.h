/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/bpf.h: the recorder's interface to the BPF programs in bpf/.
 *
 * Life cycle (all calls from one thread):
 *
 *	rec_bpf_parse_spec()		while parsing the command line (usage check)
 *	b = rec_bpf_open(&opts, &err)	load + attach; events start flowing
 *	rec_bpf_add_formats(b, w)	before the first fmt_wbuf_new() of the writer
 *	rec_bpf_start(b, w)		creates the BUFFER instance "flytrap-bpf"
 *	loop: poll(rec_bpf_fd(b)) or rec_bpf_poll(b, timeout_ms)
 *	rec_bpf_finish(b, w)		detach, drain, flush pages, queue options
 *	rec_bpf_close(b)		always, on every path (also after errors)
 *
 * Records between open and start are kept in the kernel ring buffer (or
 * counted as drops if it fills), so call start soon after open.
 *
 * Errors: functions returning int give 0 (or a count) on success and a
 * negative errno on failure; rec_bpf_error() then describes it.  Nothing
 * here prints except through libbpf's print callback (the caller decides)
 * and ft_info() lines at -v (which hook kfunc= took, see docs/bpf.md).
 */
#ifndef FLYTRAP_RECORD_BPF_H
#define FLYTRAP_RECORD_BPF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fmt_writer;
struct rec_bpf;

/*
 * Name of the named BUFFER instance the BPF events go to, and the system
 * name of their event formats.
 */
#define REC_BPF_BUFFER "flytrap-bpf"
#define REC_BPF_SYSTEM "flytrap"

struct rec_bpf_opts {
	/*
	 * Comma-separated list of programs (--bpf):
	 *   syscalls		one record per completed syscall
	 *   syscalls=agg	in-kernel per-task/per-syscall log2 histograms only
	 *   offcpu		blocked time with kernel+user stack and waker
	 *   offcpu=DURATION	... only blocks of at least DURATION (e.g. 100us)
	 *   profile		cpu-clock sampling with stacks, at profile_hz
	 *   profile=HZ		... at HZ samples per second per CPU
	 *   ufunc=BINARY:GLOB	uprobe entry/return of functions of BINARY whose
	 *			symbol matches GLOB (fnmatch); may be repeated
	 *   kfunc=F[+F...]	entry/return of kernel functions (names or globs
	 *			in /proc/kallsyms, at most FT_KFUNC_MAX in all),
	 *			fentry/fexit, else kprobes (FLYTRAP_BPF_NO_FENTRY=1
	 *			in the environment: kprobes only); may be repeated
	 * and settings:
	 *   ringbuf=SIZE	ring buffer bytes (4K..1024M, K/M suffix), same as ringbuf_bytes
	 *   symbols		same as opts.symbols
	 * NULL or "": none of these (the machinery alone, for --bpf-object).
	 */
	const char *spec;
	bool agg;			/* same as syscalls=agg (--bpf-agg) */
	unsigned profile_hz;		/* 0 = 99; profile=HZ in the spec wins */
	uint64_t offcpu_min_ns;		/* 0 = record every block; offcpu=D in the spec wins */
	uint32_t ringbuf_bytes;		/* 0 = 8 MiB; rounded up to a power of two >= 4096 */
	uint64_t drop_interval_ns;	/* drop counter sampling period, 0 = 100 ms */
	uint64_t reorder_ns;		/* per-CPU reorder window, 0 = 20 ms (see docs/bpf.md) */
	/*
	 * Largest event ID of the recorded kernel, after all dynamic events
	 * the recorder creates (uprobes ...).  BPF events get IDs above it.
	 * 0 = read every events/X/Y/id under tracefs (below).
	 */
	int max_event_id;
	const char *tracefs;		/* NULL = /sys/kernel/tracing */
	uint32_t page_size;		/* file page size; 0 = 4096 */
	int kernel_long;		/* 0 = sizeof(long) */
	/* Only these processes (tgids); npids == 0 = all processes. */
	const pid_t *pids;
	int npids;
	/* The recorder's own process is always excluded (its syscalls would feed back). */
	bool symbols;			/* --symbols: also store ELF symbol tables */
	/* --trigger: decided in the programs (0 = none); trig_nrs a bitmap of FT_TRIG_NRS bits */
	uint64_t trig_syscall_ns;
	const uint8_t *trig_nrs;
	uint64_t trig_offcpu_ns;
	int verbose;			/* libbpf debug output when > 1 */
	/* --user-stack: how user stacks are kept (enum rec_ustack; 0 = cfi) and the copy's bytes */
	int user_stack;
	uint32_t user_stack_bytes;	/* 0 = the mode's default */
};

/*
 * --user-stack fp|cfi|dwarf[:BYTES]: fp keeps the frame-pointer walk only
 * (the file's events then look as before this option); cfi also keeps the
 * user registers and the top BYTES (default 512) of the user stack, for the
 * offline unwind of the frames a frame-pointer walk misses; dwarf keeps
 * BYTES for a full DWARF unwind of code without frame pointers.  dwarf is
 * the default (0): distributions build without frame pointers, and a
 * 512-byte copy reached main in under 1% of the samples of Debian's xz,
 * gzip, sort and python3 where 8192 bytes reached it in 95-100%
 * (docs/benchmarks.md, "Stacks that reach main").
 *
 * Without BYTES, dwarf copies 16384 bytes for profile samples and 8192 for
 * offcpu: on the README demo a shell's deep stacks made 'stack copy too
 * small' most of the profile's cut stacks at 8192 (87 samples of 1142 in a
 * busy run; 25 of 803 at 16384).  A sample is cheap at 99 Hz, and its record
 * holds only the bytes copied; an offcpu record reserves the full size in the
 * ring at every switch and a thread's copy is always full, so a larger offcpu
 * copy made offcpu-heavy files 35-45% bigger for the same stacks
 * (docs/benchmarks.md, "The stack copy size").  --user-stack dwarf:BYTES
 * sets both.
 */
enum rec_ustack { REC_USTACK_DWARF = 0, REC_USTACK_FP, REC_USTACK_CFI };
#define REC_USTACK_DEF_CFI 512
#define REC_USTACK_DEF_DWARF 8192
#define REC_USTACK_DEF_DWARF_PROFILE 16384

/*
 * Parse a --user-stack value.  Returns 0 with *mode and *bytes set (0 for
 * fp), or -EINVAL with *err a malloc'd one-line message.
 */
int rec_bpf_parse_user_stack(const char *arg, int *mode, uint32_t *bytes, char **err);
/* Whether --bpf SPEC runs profile or offcpu (programs that keep user stacks). */
bool rec_bpf_wants_stacks(const char *spec);

/*
 * Whether the records of the --bpf spec with a stack copy of bytes fit its
 * ring buffer (ringbuf=, else ringbuf_bytes, else the default).  Returns
 * 0, or -EINVAL with *err a malloc'd message.
 */
int rec_bpf_check_user_stack(const char *spec, uint32_t ringbuf_bytes, uint32_t bytes, char **err);

/*
 * Check a --bpf spec without loading anything (kfunc= names are looked up
 * in /proc/kallsyms when it can be read).  Returns 0, or -EINVAL with *err
 * set to a malloc'd one-line message (caller frees).
 */
int rec_bpf_parse_spec(const char *spec, char **err);

/*
 * Parse opts->spec, open, load and attach the selected programs, with one
 * shared ring buffer and one per-CPU statistics map (reservation failures
 * per program).  Returns the handle, or NULL with *err set to a malloc'd
 * message (caller frees) and errno set; nothing is left loaded on failure.
 * opts and the strings it points to are copied.
 */
struct rec_bpf *rec_bpf_open(const struct rec_bpf_opts *opts, char **err);

/*
 * Queue the tracefs-style formats of the selected programs' events
 * (system "flytrap") with fmt_writer_event_format().  Call before the
 * writer's first buffer.  Returns 0 or -errno.
 */
int rec_bpf_add_formats(struct rec_bpf *b, struct fmt_writer *w);

/* Create the BUFFER instance "flytrap-bpf" (clock "mono").  Returns 0 or -errno. */
int rec_bpf_start(struct rec_bpf *b, struct fmt_writer *w);

/*
 * The ring buffer's epoll fd, for the recorder's poll loop.  It becomes
 * readable when the programs wake the reader (1/16 of the ring filled, or
 * records waiting 100 ms); most records are committed without a wake-up,
 * so also call rec_bpf_poll() on the loop's own timer.
 */
int rec_bpf_fd(const struct rec_bpf *b);

/*
 * Drain the ring buffer (waiting up to timeout_ms for a wake-up first;
 * 0 = do not wait; everything committed is read either way), encode
 * records whose reorder window has passed into
 * per-CPU pages, and sample the drop counters when the sampling period
 * has elapsed.  Also reads /proc maps and build-ids of processes seen for
 * the first time.  Returns the number of records consumed, or -errno.
 * EINTR from the wait is not an error (returns 0).
 */
int rec_bpf_poll(struct rec_bpf *b, int timeout_ms);

/*
 * Stop: detach every program, drain what is left, flush all pages to the
 * buffer, and queue the options: FMT_OPT_FT_BPF_DROPS (one struct
 * fmt_bpf_drop per CPU/program/window with failures), FMT_OPT_FT_META
 * ("bpf_progs=..." and totals), FMT_OPT_PROCMAPS (except for opts.pids:
 * the recorder writes those), FMT_OPT_FT_PROCMAPS + section,
 * FMT_OPT_FT_BUILDIDS, and with opts.symbols the
 * FMT_SEC_FT_SYMTAB section + FMT_OPT_FT_SYMTAB (layout: docs/bpf.md).
 * Call at most once, before fmt_writer_close().  Returns 0 or -errno.
 */
int rec_bpf_finish(struct rec_bpf *b, struct fmt_writer *w);

/*
 * Destroy everything: links, programs, maps, memory.  Safe on NULL, after
 * a failed call, and without finish (pending records are discarded).
 * The writer is not touched.
 */
void rec_bpf_close(struct rec_bpf *b);

/* Last error text; never NULL.  Owned by b. */
const char *rec_bpf_error(const struct rec_bpf *b);

/* Counters for the recorder's own statistics (RECSTATS). */
struct rec_bpf_stats {
	uint64_t records;	/* records read from the ring buffer */
	uint64_t written;	/* records encoded into pages */
	uint64_t drops;		/* reservation failures counted by the programs so far */
	uint64_t late;		/* records later than the reorder window (timestamp clamped) */
	uint64_t pages;		/* pages written */
	uint64_t bytes;		/* ring buffer bytes consumed */
	uint64_t processes;	/* processes whose maps were captured */
	uint64_t vmas;		/* mappings reported by exiting processes */
	uint64_t exec_vmas;	/* mappings of images replaced by an exec */
};
void rec_bpf_get_stats(const struct rec_bpf *b, struct rec_bpf_stats *st);

/* What the programs' triggers saw so far (the last hit of each). */
struct rec_bpf_trig {
	uint64_t syscall_hits, syscall_ts, syscall_dur;
	int syscall_nr, syscall_tid;
	uint64_t offcpu_hits, offcpu_ts, offcpu_dur;
	int offcpu_tid;
};
void rec_bpf_trigger_state(const struct rec_bpf *b, struct rec_bpf_trig *t);

/*
 * For a dump while recording: encode the records whose reorder window
 * has passed and hand every partly filled page to the buffer now.
 */
int rec_bpf_flush_pages(struct rec_bpf *b);
/*
 * The options rec_bpf_finish() queues (drops, metadata, maps, build-ids,
 * symbols), into another writer (a dump), without stopping anything.
 */
int rec_bpf_write_options(struct rec_bpf *b, struct fmt_writer *w);

/*
 * --bpf-object (record/bpfobj.c) rides on this machinery: its records go
 * to the same buffer through the same reorder queues, its losses to the
 * same FMT_OPT_FT_BPF_DROPS, its loss slots after the built-in ones in
 * "bpf_progs=".  The hooks are called: poll from rec_bpf_poll() (final:
 * from rec_bpf_finish(), after stop) and returns records read or -errno;
 * stop first in rec_bpf_finish() (detach, last map snapshot); formats at
 * the end of rec_bpf_add_formats(); options from rec_bpf_write_options()
 * (final false: a dump); close first in rec_bpf_close().  Every hook
 * returning an error has set it with rec_bpf_ext_error().
 */
struct rec_bpf_ext {
	int (*poll)(void *ctx, bool final);
	int (*stop)(void *ctx);
	int (*formats)(void *ctx, struct fmt_writer *w);
	int (*options)(void *ctx, struct fmt_writer *w, bool final);
	void (*close)(void *ctx);
};
void rec_bpf_set_ext(struct rec_bpf *b, const struct rec_bpf_ext *ops, void *ctx);
/* A new event ID above the built-in ones, or -EOVERFLOW. */
int rec_bpf_ext_id(struct rec_bpf *b);
/* A loss slot named name ("OBJ/MAP") in "bpf_progs=": its index, or -errno. */
int rec_bpf_ext_slot(struct rec_bpf *b, const char *name);
/* n records of slot lost in the window ending at ts (mono ns) on cpu.  0 or -errno. */
int rec_bpf_ext_drop(struct rec_bpf *b, uint64_t ts, int cpu, int slot, uint64_t n);
/* Drain another BPF ring buffer map with the shared one (same epoll fd).  0 or -errno. */
int rec_bpf_ext_ringbuf(struct rec_bpf *b, int map_fd, int (*cb)(void *ctx, void *data, size_t size),
			void *ctx);
/*
 * Queue an encoded event (common fields first) of cpu at ts; takes the
 * malloc'd payload (freed on error too).  raw_size: ring bytes it came from.
 */
/*
 * A process whose user stacks a record or map of the object names: its maps
 * (and with --symbols its binaries' symbols) go into the file, as for the
 * built-in profile's samples.  Read at once the first time, again later.
 */
void rec_bpf_ext_note_pid(struct rec_bpf *b, int tgid);
int rec_bpf_ext_queue(struct rec_bpf *b, int cpu, uint64_t ts, void *payload, uint32_t len,
		      uint32_t raw_size);
/* Set rec_bpf_error()'s text; returns ret. */
int rec_bpf_ext_error(struct rec_bpf *b, int ret, const char *msg);
int rec_bpf_ncpus(const struct rec_bpf *b);
uint32_t rec_bpf_page_size(const struct rec_bpf *b);

#endif
