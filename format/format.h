/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * format/ public API: read trace-cmd trace.dat files (versions 6 and 7) and
 * write version 7.
 *
 * Library rules: every function returns 0 (or a count) on success and a
 * negative errno on failure (-EBADMSG corrupt input, -EOPNOTSUPP unsupported
 * feature, -EOVERFLOW a size that does not fit, -ENOMEM, or the errno of a
 * failed system call).  Nothing here prints or exits; a human-readable
 * description of the last failure, with the byte offset where it happened,
 * is available from fmt_reader_error() / fmt_writer_error().
 */
#ifndef FLYTRAP_FORMAT_H
#define FLYTRAP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <traceevent/event-parse.h>

/* ---- option and section IDs (trace-cmd's numbering) ------------------- */
enum fmt_option_id {
	FMT_OPT_DONE = 0,
	FMT_OPT_DATE = 1,
	FMT_OPT_CPUSTAT = 2,
	FMT_OPT_BUFFER = 3,
	FMT_OPT_TRACECLOCK = 4,
	FMT_OPT_UNAME = 5,
	FMT_OPT_HOOK = 6,
	FMT_OPT_OFFSET = 7,
	FMT_OPT_CPUCOUNT = 8,
	FMT_OPT_VERSION = 9,
	FMT_OPT_PROCMAPS = 10,
	FMT_OPT_TRACEID = 11,
	FMT_OPT_TIME_SHIFT = 12,
	FMT_OPT_GUEST = 13,
	FMT_OPT_TSC2NSEC = 14,
	FMT_OPT_STRINGS = 15,
	FMT_OPT_HEADER_INFO = 16,
	FMT_OPT_FTRACE_EVENTS = 17,
	FMT_OPT_EVENT_FORMATS = 18,
	FMT_OPT_KALLSYMS = 19,
	FMT_OPT_PRINTK = 20,
	FMT_OPT_CMDLINES = 21,
	FMT_OPT_BUFFER_TEXT = 22,
	/*
	 * trace-cmd 3.4: BTF_FILE and MODULES_FILE hold the offset of a section
	 * of the same ID (the host's /sys/kernel/btf/vmlinux, /proc/modules);
	 * LAST_BOOT_INFO is "instance:" and the instance's last_boot_info text.
	 * Read by info; copied by convert, slice and merge (rpt_copy_options).
	 */
	FMT_OPT_BTF_FILE = 23,
	FMT_OPT_LAST_BOOT_INFO = 24,
	FMT_OPT_MODULES_FILE = 25,

	/*
	 * flytrap's own options.  trace-cmd skips unknown option IDs by size,
	 * so these travel in the file without disturbing stock readers.  They
	 * sit far above trace-cmd's range (which grows by one per release) so
	 * a future trace-cmd option can never be mistaken for one of ours.
	 */
	FMT_OPT_FT_BASE = 0x4600,
	FMT_OPT_FT_META = 0x4601,	/* text "key=value\n" lines: recorder, host, command line, … */
	FMT_OPT_FT_RECSTATS = 0x4602,	/* text "key=value\n": recorder CPU time, bytes read/written, wakeups, backlog */
	FMT_OPT_FT_BPF_DROPS = 0x4603,	/* binary, see struct fmt_bpf_drop below */
	FMT_OPT_FT_BUILDIDS = 0x4604,	/* text "path build-id-hex\n" lines */
	FMT_OPT_FT_SYMTAB = 0x4605,	/* u64 offset of a FMT_SEC_FT_SYMTAB section */
	FMT_OPT_FT_BUFFILL = 0x4606,	/* text: per-CPU buffer fill samples */
	FMT_OPT_FT_PROCMAPS = 0x4607,	/* u64 offset of a FMT_SEC_FT_PROCMAPS section (large maps text) */
	FMT_OPT_FT_CPUSTAT_START = 0x4608, /* CPUSTAT text taken at the start (same text as option 2) */

	/*
	 * Integrity (issue 17).  CHECKSUMS: u32 version (1), u32 entries, then
	 * per CPU of every buffer {u64 data offset as in its BUFFER option,
	 * u32 cpu, u32 flags (1: compressed chunks), u32 n, n × {u32 stored
	 * length, u32 CRC32C}}: the chunks ({u32 csize, u32 usize, frame},
	 * after the u32 chunk count) or uncompressed blocks of whole pages,
	 * back to back.  DIGEST: u32 version (1), u32 CRC32C of the whole file
	 * with these 16 bytes counted as zeros, u64 file size.
	 */
	FMT_OPT_FT_CHECKSUMS = 0x4620,
	FMT_OPT_FT_DIGEST = 0x4621,
	/* text "key=value\n": where a slice came from and the state at its cut (slice.c) */
	FMT_OPT_FT_SLICE = 0x4622,
	/* text "key=value\n": the files a merge joined (merge.c) */
	FMT_OPT_FT_MERGE = 0x4623,
	/* u64 offset of the FMT_SEC_FT_TIMEINDEX section (the writer, at close) */
	FMT_OPT_FT_TIMEINDEX = 0x4624,
	/* u64 offset of the FMT_SEC_FT_FACTS section (the writer, at close) */
	FMT_OPT_FT_FACTS = 0x4625,
	/* u64 offset of the FMT_SEC_FT_STATE section (the writer, at close) */
	FMT_OPT_FT_STATE = 0x4626,
	/* record --bpf-object: one per object, one per map snapshot (struct fmt_bpfobj_hdr, _map_hdr) */
	FMT_OPT_FT_BPFOBJ = 0x4630,
	FMT_OPT_FT_BPFMAP = 0x4631,

	FMT_SEC_FT_SYMTAB = 0x4680,	/* ELF symbol tables, see docs/file-format.md */
	FMT_SEC_FT_PROCMAPS = 0x4681,
	/*
	 * Written by the writer right after the file header when spools live
	 * outside the output's directory: the spool directory path + NUL, so
	 * fmt_writer_recover() can find them.  Readers skip it.
	 */
	FMT_SEC_FT_SPOOLDIR = 0x4682,
	/*
	 * The time index: u32 version (1), u32 entries, then per CPU of every
	 * buffer {u64 data offset as in its BUFFER option, u32 cpu, u32 flags
	 * (1: compressed chunks), u32 n, u32 0, n x {u64 first, u64 last,
	 * u32 stored length, u32 raw length}}: for each chunk (or uncompressed
	 * block of pages) back to back from the data offset (+4 when
	 * compressed), the stamp in its first page's header and the stamp of
	 * its last event, as stored (raw clock).  See docs/file-format.md.
	 */
	FMT_SEC_FT_TIMEINDEX = 0x4683,
	/*
	 * What each chunk of the time index holds, so a window can be read
	 * without the chunks around it: u32 version (1), u32 n, n x {u64
	 * data offset (as in the time index), u32 cpu, u32 flags (1: stamps
	 * in order over the whole CPU), u32 chunks, u32 0, chunks x {u32
	 * events, u32 losses, u32 names, u32 0, u64 first, u64 last} (raw
	 * stamps of the chunk's first and last event), then the losses of
	 * all chunks in order, 32 bytes each {u64 stamp, u64 stamp of the
	 * event before on the CPU, i64 count (-1 unknown), u32 1 if there
	 * was one, u32 0}, then the names, 40 bytes each {u64 stamp, i32
	 * pid, u32 what (1 name, 2 tgid), i32 tgid, u32 name length,
	 * char name[16]}: per chunk, the last assignment of each.
	 */
	FMT_SEC_FT_FACTS = 0x4684,
	/*
	 * The state records of the time index's chunks (fmt_reader_state()):
	 * u32 version (1), u32 n, n x {u64 data offset (as in the time
	 * index), u32 cpu, u32 flags (FMT_STATE_SLICE_KINDS), u32 chunks,
	 * u32 records, chunks x {u32
	 * pages that hold an event, u32 records}, then the records of all
	 * chunks in order, each {u64 raw stamp, u32 size, u32 0, the event's
	 * payload as in its page, padded with zeros to 8 bytes}.
	 */
	FMT_SEC_FT_STATE = 0x4685,
};
/*
 * A state entry's flag: its chunks also keep each pid's first wakeup and
 * the CPU's first call record (FMT_ST_WAKEUP, FMT_ST_CALL), which slice
 * needs to skip what is before its cut.  Entries without it (files of
 * writers before those kinds) serve overhead's windows only.
 */
#define FMT_STATE_SLICE_KINDS	1u

/* One BPF ringbuf reservation failure count for a time window. */
struct fmt_bpf_drop {
	uint64_t ts;		/* end of the window, trace clock ns */
	uint32_t cpu;
	uint32_t prog;		/* index into the program names in the META option "bpf_progs=" */
	uint64_t count;		/* failures in this window */
};

/*
 * record --bpf-object (docs/file-format.md, "User BPF objects"): an object
 * option is this header, text_len bytes of "key=value" lines (name, path,
 * sha256, prog=, map=, event=) and btf_len bytes of the object's raw BTF;
 * a map option is its header, name_len bytes of "OBJECT/MAP" and text_len
 * bytes of nentries lines "KEY<TAB>VALUE\n" (both JSON, typed from BTF).
 * Integers in the file's byte order.
 */
#define FMT_BPFOBJ_MAGIC "FTBPFO1"
#define FMT_BPFMAP_MAGIC "FTBPFM1"
struct fmt_bpfobj_hdr {
	char magic[8];
	uint32_t text_len;
	uint32_t btf_len;
};
struct fmt_bpfmap_hdr {
	char magic[8];
	uint64_t ts;		/* when it was read, trace clock ns */
	uint32_t name_len;
	uint32_t nentries;
	uint32_t text_len;
	uint32_t flags;		/* FMT_BPFMAP_* */
};
#define FMT_BPFMAP_TRUNCATED	1u	/* the size or time bound stopped the read */
#define FMT_BPFMAP_PERCPU	2u	/* values are {"sum":..,"cpus":[..]} or {"cpus":[..]} */
#define FMT_BPFMAP_STACKS	4u	/* a stack trace map: values are ["0xADDR",...], innermost first */
#define FMT_BPFMAP_WHY(f)	(((f) >> 8) & 0xff)	/* 0 end, 1 --bpf-snapshot, 2 dump */

/* A decoded object option; pointers into the option's data. */
struct fmt_bpfobj {
	const char *text;
	size_t text_len;
	const uint8_t *btf;
	uint32_t btf_len;
	uint32_t btf_types;	/* types in the BTF */
};
/*
 * Check and decode an object option (swap: the file's byte order is not
 * the host's).  BTF is checked: header, bounds of its sections, every
 * type's length, string offsets.  Returns 0, or -EBADMSG with why (if not
 * NULL) set to a static description.
 */
int fmt_bpfobj_parse(const void *data, size_t len, bool swap, struct fmt_bpfobj *o,
		     const char **why);
/* The value of key in an object's text (first line "key=..."), length in *vlen; NULL if none. */
const char *fmt_bpfobj_get(const struct fmt_bpfobj *o, const char *key, size_t from, size_t *vlen,
			   size_t *next);

struct fmt_bpfmap {
	uint64_t ts;
	const char *name;
	size_t name_len;
	uint32_t nentries, flags;
	const char *text;
	size_t text_len;
};
/* Check and decode a map option: nentries lines of exactly one tab each.  0 or -EBADMSG. */
int fmt_bpfmap_parse(const void *data, size_t len, bool swap, struct fmt_bpfmap *m,
		     const char **why);
/*
 * The entry at *pos (start at 0) of a parsed snapshot; advances *pos.
 * Returns 1, or 0 at the end.
 */
int fmt_bpfmap_next(const struct fmt_bpfmap *m, size_t *pos, const char **key, size_t *klen,
		    const char **val, size_t *vlen);
/* Whether s is one JSON value without white space (what the recorder writes). */
bool fmt_json_valid(const char *s, size_t n);
/* An entry's JSON as an integer (a plain one, or a per-CPU value's "sum"): 1 with *v, else 0. */
int fmt_bpfmap_int(const char *s, size_t n, int64_t *v);

/* ======================================================================= */
/*                                 reader                                  */
/* ======================================================================= */

struct fmt_reader;

struct fmt_cpu_data {
	int cpu;
	uint64_t offset;	/* absolute file offset of the CPU's data */
	uint64_t size;		/* bytes (compressed: as recorded by the writer) */
	bool truncated;		/* the file ends before the declared size (size is clamped) */
};

struct fmt_buffer {
	const char *name;	/* "" for the top buffer */
	const char *clock;	/* may be NULL (v6) */
	uint32_t page_size;
	bool compressed;	/* chunked CPU data */
	bool recovered;		/* rebuilt from a truncated file: the name is a guess */
	bool cpu_ids_guessed;	/* recovered, and CPU ids numbered in order (unknown) */
	int ncpus;		/* entries in cpus[] (CPUs with data, sparse IDs) */
	struct fmt_cpu_data *cpus;
	uint64_t section_offset; /* v7: section header; v6: the flyrecord marker */
};

/* Text or binary blob held by the reader; data is NUL-terminated (len excludes it). */
struct fmt_blob {
	const char *data;
	size_t len;
};

struct fmt_option {
	uint16_t id;
	uint32_t size;
	const void *data;
	uint64_t file_offset;	/* where the option's payload sits (in its section) */
};

/*
 * A latency-format file holds no ring-buffer pages: the ASCII text of the
 * tracefs "trace" file of a latency tracer (wakeup, irqsoff, ...), after a
 * v6 "latency" marker or in a v7 BUFFER_TEXT section.  Read it with
 * fmt_reader_latency_read(); the event iterator yields nothing.
 */
struct fmt_latency {
	bool present;
	bool compressed;	/* v7: chunked like compressed CPU data */
	uint64_t offset;	/* file offset of the text (raw) or of the chunk count (compressed) */
	/*
	 * Bytes of text: the chunks' uncompressed sizes, or (raw) everything
	 * from offset to the end of the file, which is what trace-cmd 3.1.6
	 * reads: in a v7 file that includes any section after the text one.
	 */
	uint64_t size;
	uint64_t section_size;	/* v7: the BUFFER_TEXT section's declared size; v6: 0 */
	uint32_t nchunks;
	/*
	 * v6 with a TRACECLOCK option: trace-cmd reads a clock block
	 * {u64 len, text} right after the marker even here, so the first
	 * clock_skipped bytes of the text are not printed (or, when len does
	 * not fit, only the 8 bytes of len).  0 otherwise.
	 */
	uint64_t clock_skipped;
};

/* TIME_SHIFT (option 12): guest clock -> host clock, per CPU, over time */
struct fmt_tsync_sample {
	int64_t time;		/* guest time of the sample */
	int64_t offset;		/* add to the (scaled) guest time */
	int64_t scaling;	/* multiply the guest time by this ... */
	int64_t fraction;	/* ... then shift right by this many bits */
};

struct fmt_tsync_cpu {
	int nsamples;		/* sorted by time, equal times dropped (as trace-cmd does) */
	struct fmt_tsync_sample *samples;
};

struct fmt_time_shift {
	bool present;
	uint64_t peer_id;	/* trace ID of the host file */
	uint32_t flags;		/* bit 0: interpolate between samples */
	bool has_fraction;	/* the option carries fraction bits */
	int ncpus;
	struct fmt_tsync_cpu *cpus; /* index = CPU id */
};

/* GUEST (option 13) in a host file: one traced virtual machine */
struct fmt_guest {
	const char *name;
	uint64_t trace_id;
	int nvcpus;
	int *vcpu_pid;		/* host pid running each vCPU, index = vCPU (0 if unlisted) */
};

struct fmt_info {
	int version;		/* 6 or 7 (or lower: sequential layout) */
	bool big_endian;
	int long_size;		/* the header's long-size byte */
	int kernel_long;	/* from header_page's commit field (4 or 8) */
	uint32_t page_size;
	const char *compression; /* "none" for v6 and uncompressed v7 */
	const char *compression_version;
	int cpus;		/* CPU count (v6 part 8 / v7 CPUCOUNT), 0 when unknown */
	const char *clock;	/* bracketed name from TRACECLOCK (or BUFFER), "" if none */
	bool clock_in_usecs;	/* trace-cmd prints secs.usecs for this clock */
	const char *uname;	/* "" if absent */
	const char *tracecmd_version; /* VERSION option, "" if absent */
	bool has_date;
	int64_t date_offset_ns;	/* DATE option × 1000 */
	int64_t ts_offset_ns;	/* OFFSET option */
	bool has_tsc2nsec;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	uint64_t trace_id;	/* TRACEID, 0 if absent */
	uint64_t file_size;
	/*
	 * Non-zero when the file is shorter than its own tables say (a cut
	 * download, a full disk): the offset where something expected is
	 * missing.  Readable events before the damage are still iterated.
	 */
	uint64_t truncated_at;

	struct fmt_blob header_page;
	struct fmt_blob header_event;
	struct fmt_blob kallsyms;
	struct fmt_blob printk;
	struct fmt_blob cmdlines;
	struct fmt_blob procmaps; /* PROCMAPS option text */

	int nbuffers;		/* buffers[0] is the top buffer "" */
	struct fmt_buffer *buffers;

	int noptions;		/* every option seen, in file order (DONE excluded) */
	struct fmt_option *options;

	/* event formats refused so far (crash-prone or unparsable text) */
	int nbad_formats;

	struct fmt_latency latency;	/* latency-format (text) file */
	struct fmt_time_shift time_shift; /* guest file: applied to the top buffer's timestamps */
	int nguests;			/* host file: GUEST options, in file order */
	const struct fmt_guest *guests;
};

/* fmt_reader_open() flags */
enum {
	/*
	 * Parse event formats in the calling process without first checking
	 * them in a forked child.  Only for inputs known to be sane (the
	 * recorder's own output); untrusted files keep the default.
	 */
	FMT_OPEN_TRUST_FORMATS = 1 << 0,
	/* Do not load libtraceevent plugins (faster; output differs from trace-cmd) */
	FMT_OPEN_NO_PLUGINS = 1 << 1,
	/*
	 * Parse an event format only when it is first needed: an event of its
	 * ID from the iterator, fmt_reader_event() or fmt_reader_find_event().
	 * A trace-cmd file carries every format of the kernel (~2000) and uses
	 * a few; this saves most of the open time.  Code that looks events up
	 * with tep_find_event*() or tep_list_events() directly must call
	 * fmt_reader_load_formats() first.
	 */
	FMT_OPEN_LAZY_FORMATS = 1 << 2,
	/*
	 * Leave a v7 file's kallsyms section compressed until first needed: a
	 * kernel address looked up (libtraceevent's %pS and function lookups,
	 * fmt_reader_ksym()) or fmt_reader_kallsyms().  Until then
	 * info.kallsyms is empty; code that reads it must call
	 * fmt_reader_kallsyms() (or fmt_reader_has_kallsyms() to test for
	 * one).  A section whose text turns out damaged then reads as empty
	 * instead of failing the open (its header is still checked at open).
	 */
	FMT_OPEN_LAZY_KALLSYMS = 1 << 3,
};

/*
 * Open and parse a trace.dat: header, metadata, options and the per-CPU
 * data tables of every buffer.  Event data is not read until iteration.
 * On success *out owns the file; free it with fmt_reader_close().  On
 * failure returns -errno and, when out_err is not NULL, stores a malloc'd
 * message in *out_err (caller frees).
 */
int fmt_reader_open(const char *path, unsigned flags, struct fmt_reader **out, char **out_err);
void fmt_reader_close(struct fmt_reader *r);

/* Last error text (with byte offset); never NULL, "" when none. Owned by r. */
const char *fmt_reader_error(const struct fmt_reader *r);
/* The byte offset the last error names (0 when none). */
uint64_t fmt_reader_error_offset(const struct fmt_reader *r);

const struct fmt_info *fmt_reader_info(const struct fmt_reader *r);

/*
 * The libtraceevent handle with all formats, kallsyms, printk and cmdlines loaded. Owned by r.
 * Its kernel functions come from the reader's own table (parsed on the first lookup, see
 * fmt_reader_ksym()) through tep_set_function_resolver(): lookups answer as libtraceevent's
 * own table would, but tep_print_funcs() sees nothing until fmt_reader_tep_funcs().
 */
struct tep_handle *fmt_reader_tep(struct fmt_reader *r);
/*
 * Load the kallsyms into libtraceevent's own function table (and drop the resolver), for
 * the rare caller that walks that table (tep_print_funcs()).  0 or -errno.
 */
int fmt_reader_tep_funcs(struct fmt_reader *r);
/* info.kallsyms, read now if FMT_OPEN_LAZY_KALLSYMS deferred it.  Owned by r. */
const struct fmt_blob *fmt_reader_kallsyms(struct fmt_reader *r);
/* Whether the file has a kallsyms (without reading a deferred one); a deferred one may be empty. */
bool fmt_reader_has_kallsyms(const struct fmt_reader *r);
/*
 * The kernel function addr lies in, from the file's kallsyms (parsed on the first call),
 * with libtraceevent's answers; *start gets its address.  NULL when none.
 */
const char *fmt_reader_ksym(struct fmt_reader *r, uint64_t addr, uint64_t *start);
/* How many times r's kallsyms text was parsed so far: 0 or 1 (for tests). */
uint64_t fmt_reader_ksym_parses(const struct fmt_reader *r);

/* The parsed event of an ID (parsing its format now if needed), or NULL. */
struct tep_event *fmt_reader_event(struct fmt_reader *r, int id);
/* The parsed event system:name (system may be NULL for any), parsing on demand, or NULL. */
struct tep_event *fmt_reader_find_event(struct fmt_reader *r, const char *system, const char *name);
/* Parse every format not parsed yet (after a FMT_OPEN_LAZY_FORMATS open). 0 or -errno. */
int fmt_reader_load_formats(struct fmt_reader *r);

/*
 * The n-th option with ID id (0-based), or NULL.  Data is owned by r and
 * valid until fmt_reader_close().
 */
const struct fmt_option *fmt_reader_option(const struct fmt_reader *r, uint16_t id, int n);

/*
 * flytrap's own text options, FMT_OPT_FT_META and FMT_OPT_FT_RECSTATS
 * ("key=value\n" lines, key names in format/ftmeta.h), decoded once.
 * Every line is kept in kv, in file order over all options of the kind, so
 * that nothing is lost; the keys the readers use also have a typed field,
 * from the key's first line (a later duplicate is only in kv).  A string
 * field is NULL and a number's has_ flag false when the key is absent or
 * its value is not a decimal number.
 */
struct fmt_kv {
	const char *line;	/* the line as stored, without its '\n' */
	const char *key;	/* the line up to its first '=' (the whole line without one) */
	const char *val;	/* after the '=', a trailing '\r' dropped; NULL without '=' */
};

struct fmt_kvlist {
	struct fmt_kv *kv;
	size_t n, cap;
	char **texts;		/* the copies kv points into */
	size_t ntexts;
};

struct fmt_meta_num {
	bool has;
	uint64_t v;
};

struct fmt_meta_shed {		/* "shed=FROM,TO,SYSTEM:EVENT,WHY" */
	uint64_t from_ts, to_ts;	/* to_ts 0: still off at the end */
	const char *event, *why;
};

struct fmt_meta_cpustart {	/* one item of "cpu_data_start=BUF/CPU:TS[:whole],..." */
	const char *buffer;
	unsigned cpu;
	uint64_t ts;
	bool whole;
};

struct fmt_recstats {
	bool present;		/* the file has a RECSTATS option */
	struct fmt_kvlist all;
	struct fmt_meta_num cpu_user_us, cpu_sys_us, max_rss_kb, capture_user_us, capture_sys_us;
	struct fmt_meta_num duration_ns, bytes_read, bytes_written, pages, wakeups;
	struct fmt_meta_num max_buffer_fill_pct, events, overrun, dropped;
	struct fmt_meta_num bpf_records, bpf_drops, bpf_bytes, bpf_pages;
};

struct fmt_meta {
	bool present;		/* the file has a META option */
	struct fmt_kvlist all;
	const char *recorder, *command_line, *hostname, *start_time, *instance, *clock, *events;
	const char *pids, *recording_mode, *trace_id, *trigger, *cpu_data_start, *bpf_progs;
	struct fmt_meta_num start_epoch_ns, buffer_kb, trigger_ts, window_start_ns, window_end_ns;
	struct fmt_meta_num flight_dump, rotation_segment, recovered, recovered_torn_bytes;
	struct fmt_meta_shed *shed;	/* well-formed "shed=" lines, in order */
	size_t nshed;
	struct fmt_meta_cpustart *cpu_start;	/* cpu_data_start's well-formed items */
	size_t ncpu_start;
	const char **bpf_prog_names;	/* bpf_progs split at ',' and ' ', empty names skipped */
	size_t nbpf_progs;
	struct fmt_recstats rs;
	char *own;		/* storage for the split lists above */
};

/*
 * r's flytrap metadata and recorder statistics, decoded on the first call
 * and owned by r (valid until fmt_reader_close()).  A file without them
 * gives a structure with present false.  NULL with errno ENOMEM only.
 */
const struct fmt_meta *fmt_reader_meta(struct fmt_reader *r);

/* For a caller with raw option texts (and the tests): an empty m to add to. */
void fmt_meta_init(struct fmt_meta *m);
/*
 * Adds one FMT_OPT_FT_META (recstats false) or FMT_OPT_FT_RECSTATS option's
 * payload of size bytes; the text ends at its first NUL or at size.
 * 0 or -ENOMEM (m keeps what was added before).
 */
int fmt_meta_add(struct fmt_meta *m, const void *data, size_t size, bool recstats);
/* Fills the typed fields from what was added; 0 or -ENOMEM. */
int fmt_meta_finish(struct fmt_meta *m);
/* Frees what m holds (not m itself). */
void fmt_meta_release(struct fmt_meta *m);

/* The value of key's first line in l, NULL when none has it (or it has no '='). */
const char *fmt_kv_get(const struct fmt_kvlist *l, const char *key);

/*
 * Read a v7 section whose header is at offset, checking that its ID is
 * expect_id, decompressing it if flagged.  *data is malloc'd, caller frees.
 */
int fmt_reader_section(struct fmt_reader *r, uint64_t offset, uint16_t expect_id,
		       void **data, size_t *len);

/*
 * Call cb for every page of one CPU of one buffer, in file order, with the
 * raw page bytes (decompressed; page_size bytes).  Stops and returns cb's
 * value when it is non-zero; returns 0 at the end or -errno on damage.
 */
int fmt_reader_read_pages(struct fmt_reader *r, int buffer, int cpu,
			  int (*cb)(void *arg, const void *page, uint32_t page_size), void *arg);

/*
 * Call cb for every event format text stored in the file, ftrace formats
 * first (system "ftrace"), then each system's events in file order.
 * Formats refused as unsafe are passed too (the text is the file's).
 */
int fmt_reader_formats(struct fmt_reader *r,
		       int (*cb)(void *arg, const char *system, const char *text, size_t len),
		       void *arg);

/* Timestamp as trace-cmd displays it: raw + DATE + OFFSET (+ tsc2nsec). */
uint64_t fmt_reader_adjust_ts(const struct fmt_reader *r, uint64_t raw_ts);
/*
 * The same for a record of one CPU of one buffer, with the TIME_SHIFT
 * correction trace-cmd applies to a guest file's top buffer first (the
 * option's per-CPU arrays are indexed by CPU id).  The iterator's rec.ts
 * comes from here.
 */
uint64_t fmt_reader_adjust_ts_cpu(const struct fmt_reader *r, uint64_t raw_ts, int buffer, int cpu);

/*
 * Latency-format files: call cb with the stored text, in the blocks
 * trace-cmd 3.1.6 reads it in (8192 bytes at a time from the file, or one
 * decompressed chunk at a time); `trace-cmd report` prints each block up
 * to its first NUL byte.  Stops and returns cb's value when non-zero;
 * returns 0 at the end, -EINVAL if the file is not latency-format, or
 * -errno on damage (fmt_reader_error() names the offset).
 */
int fmt_reader_latency_read(struct fmt_reader *r,
			    int (*cb)(void *arg, const char *text, size_t len), void *arg);

/* ---- checksums (FMT_OPT_FT_CHECKSUMS / FMT_OPT_FT_DIGEST) ---------------- */

struct fmt_chunk_sum {
	uint64_t offset;	/* file offset of the chunk (its {csize, usize} header) or block */
	uint32_t len;		/* stored bytes */
	uint32_t crc;		/* CRC32C of those bytes */
};

struct fmt_cpu_sums {
	int buffer, cpu;
	bool compressed;
	uint64_t data_offset;	/* as in the BUFFER option */
	uint64_t cpu_size;	/* bytes the chunks cover from data_offset (count included) */
	uint32_t n;
	struct fmt_chunk_sum *chunks;
};

/*
 * The chunk checksums stored for one CPU of one buffer, or NULL (a file
 * without them, such as trace-cmd's).  Owned by r.  The iterator checks
 * each chunk against them and skips one that fails (see fmt_iter_next).
 */
const struct fmt_cpu_sums *fmt_reader_sums(struct fmt_reader *r, int buffer, int cpu);
/* 1 the file has a checksums option, 0 none, -EBADMSG it is malformed (ignored). */
int fmt_reader_sums_status(struct fmt_reader *r);
/*
 * Chunks [first, end) of the stored time index of one CPU against their
 * checksums, read but not decompressed: 0 all match, -EBADMSG one does
 * not, -ENOENT the index or the sums do not cover them, or -errno.
 */
int fmt_reader_check_chunks(struct fmt_reader *r, int buffer, int cpu, uint32_t first, uint32_t end);

struct fmt_digest {
	bool present;
	uint32_t crc;		/* CRC32C of the whole file, these 16 payload bytes as zeros */
	uint64_t size;		/* the file's size when written */
	uint64_t offset;	/* file offset of the 16-byte payload */
};
/* The whole-file digest option: 1 found, 0 absent, -EBADMSG malformed. */
int fmt_reader_digest(struct fmt_reader *r, struct fmt_digest *d);

/* ---- the stored time index (FMT_OPT_FT_TIMEINDEX) ------------------------- */

struct fmt_tindex_chunk {
	uint64_t offset;	/* file offset of the chunk ({csize, usize} header) or block */
	uint64_t voff;		/* virtual offset of its first page (the iterator's page_offset) */
	uint64_t first, last;	/* raw stamps: the first page's header, the last event */
	uint32_t len;		/* stored bytes */
	uint32_t raw;		/* bytes of pages (len when uncompressed) */
};

struct fmt_cpu_tindex {
	int buffer, cpu;
	bool compressed;
	uint64_t data_offset;	/* as in the BUFFER option */
	uint32_t n;
	struct fmt_tindex_chunk *chunks;
};

/*
 * The time index the writer stored for one CPU of one buffer, or NULL (a
 * file without one, such as trace-cmd's, or an entry that does not fit the
 * file: chunks outside the CPU's data, sizes that do not add up, stamps out
 * of order).  Owned by r.  fmt_iter_opts.seek uses it instead of probing
 * chunks when it is there.
 */
const struct fmt_cpu_tindex *fmt_reader_tindex(struct fmt_reader *r, int buffer, int cpu);
/*
 * 1 the file has a time index (*chunks, when not NULL, gets the chunks it
 * lists over every CPU it keeps), 0 none, -EBADMSG it is malformed (ignored).
 */
int fmt_reader_tindex_status(struct fmt_reader *r, uint64_t *chunks);

/*
 * The time index's facts (FMT_SEC_FT_FACTS): what each chunk of a CPU's
 * index holds, so a window's reader can count, name and mark losses for
 * the chunks it does not read.  Stamps are raw (as stored): adjust them
 * with fmt_reader_adjust_ts_cpu().
 */
struct fmt_chunk_facts {
	uint32_t nev, nloss, nnames;
	uint32_t loss_at, name_at;	/* first index into the CPU's losses / names */
	uint64_t first, last;		/* raw stamps of the first and last event (nev > 0) */
};
struct fmt_fact_loss {
	uint64_t ts, prev;		/* the event after the loss; the one before it, if has_prev */
	int64_t count;			/* -1 unknown */
	bool has_prev;
};
struct fmt_fact_name {
	uint64_t ts;
	int pid;
	int what;			/* 1 a name (comm, len bytes), 2 a tgid */
	int tgid;
	int len;
	char comm[16];
};
struct fmt_cpu_facts {
	int buffer, cpu;
	bool sorted;			/* the writer saw every stamp in order */
	uint32_t n;			/* chunks: those of fmt_reader_tindex() */
	struct fmt_chunk_facts *chunks;
	struct fmt_fact_loss *losses;
	struct fmt_fact_name *names;
	uint32_t nlosses, nnames;
};
/*
 * The facts of one CPU of one buffer, or NULL: none stored, or an entry
 * that does not match its time index entry (chunk counts, event counts
 * the chunks cannot hold, records past the section).  Owned by r.
 */
const struct fmt_cpu_facts *fmt_reader_facts(struct fmt_reader *r, int buffer, int cpu);
/* 1 the file has facts (for *cpus of its CPUs, when not NULL), 0 none, -EBADMSG malformed. */
int fmt_reader_facts_status(struct fmt_reader *r, int *cpus);

/*
 * The time index's state records (FMT_SEC_FT_STATE): per chunk, copies of
 * the events that leave the analyzers' scheduling, syscall and interrupt
 * state as it is at the chunk's end, and those that close what was open
 * when the chunk began (enum fmt_state_kind below: the first and last
 * sched_switch, the last irq and softirq entry or exit, the first entry of
 * each irq; per task its first and last switch-out, switch-in and exit,
 * its last syscall entry or exit),
 * in the chunk's order, and how many of its pages hold an event.
 * An analyzer whose state is a function of such last events gets the
 * state a full read has from these alone.  Stamps are raw.
 */
struct fmt_state_rec {
	uint64_t ts;			/* raw stamp */
	uint32_t size;			/* payload bytes (2 or more: its common_type) */
	const void *data;		/* the payload as in its page, common fields first */
	int type;			/* its event id (common_type, the file's byte order) */
};
struct fmt_chunk_state {
	uint32_t npages;		/* pages of the chunk that hold an event */
	uint32_t nrec, rec_at;		/* its records: recs[rec_at .. rec_at + nrec) */
};
struct fmt_cpu_state {
	int buffer, cpu;
	uint32_t flags;			/* FMT_STATE_SLICE_KINDS */
	uint32_t n;			/* chunks: those of fmt_reader_tindex() */
	struct fmt_chunk_state *chunks;
	struct fmt_state_rec *recs;
	uint32_t nrecs;
};
/*
 * The state records of one CPU of one buffer, or NULL: none stored, or an
 * entry that does not match its time index entry (chunk counts, records
 * that the chunks cannot hold or past the section, stamps out of order
 * within a chunk).  Owned by r.
 */
const struct fmt_cpu_state *fmt_reader_state(struct fmt_reader *r, int buffer, int cpu);
/* 1 the file has state records (for *cpus of its CPUs, when not NULL), 0 none, -EBADMSG malformed. */
int fmt_reader_state_status(struct fmt_reader *r, int *cpus);

/* ---- iteration --------------------------------------------------------- */

struct fmt_event {
	/*
	 * rec.ts is the adjusted timestamp (see fmt_reader_adjust_ts), rec.data
	 * / rec.size the payload (common fields first), rec.record_size the
	 * bytes the event took in the page including its header word(s),
	 * rec.cpu the CPU, rec.missed_events 0, -1 (lost, count unknown) or the
	 * count lost before this record (only on the first record of a page).
	 * Pass &ev->rec to tep_print_event() and friends.
	 */
	struct tep_record rec;
	int buffer;		/* index into fmt_info.buffers */
	int type;		/* common_type (event ID), -1 if the payload is too short */
	struct tep_event *event; /* parsed format or NULL ([UNKNOWN EVENT]) */
	uint64_t raw_ts;	/* timestamp as stored in the page */
	uint64_t page_offset;	/* virtual (compressed) or file offset of the page */
	/*
	 * Events lost before this record's page, on the first record of every
	 * page (also when the page starts with a time stamp, where trace-cmd's
	 * rec.missed_events says 0, and including pages that held no record):
	 * 0, -1 (unknown count) or the count.  Use this to account for loss.
	 */
	int64_t page_missed;
};

struct fmt_iter;

struct fmt_iter_opts {
	uint64_t cpu_mask[4];	/* CPUs 0..255; all zero = every CPU */
	uint64_t buffer_mask;	/* buffers 0..63; 0 = every buffer */
	/*
	 * The time index: with seek set, each stream starts at its last
	 * chunk (compressed) or page (uncompressed) that begins before
	 * seek_ts (an adjusted time, as rec.ts), found by a binary search on
	 * the pages' time stamps, so what lies before is neither read nor
	 * decompressed.  Events before seek_ts may still be returned (the
	 * rest of that chunk): the caller filters.  Loss markers before it
	 * are not seen, so analyzers that need the state before a window
	 * must not seek.  A stream whose stamps are not in order is read
	 * from its start.
	 */
	bool seek;
	uint64_t seek_ts;
	/*
	 * The index the writer stored (fmt_reader_tindex()) replaces the
	 * search's probes when the file has one; seek_no_stored probes anyway
	 * (tests compare the two).
	 */
	bool seek_no_stored;
	/*
	 * trace-cmd report's time options (not used together with seek); all zero = rec.ts as
	 * fmt_reader_adjust_ts_cpu() gives it.  FMT_TS_RAW: the stamps as
	 * stored (nothing below applies); FMT_TS_NODATE: without the DATE
	 * option's offset; ts2secs_hz: ticks per second, replacing TSC2NSEC
	 * (--ts2secs); ts_offset: added last (--ts-offset, --align-ts).
	 */
	unsigned ts_flags;
	uint64_t ts2secs_hz;
	int64_t ts_offset;
	/*
	 * Threads that read, including the caller's: with 2 or more, up to
	 * threads - 1 workers decompress and decode the CPU streams ahead
	 * (at most 4 chunks per stream waiting) while the caller merges; the
	 * events, their order, the errors and their messages are those of the
	 * serial read.  0 or 1: serial.  fmt_reader_data_bytes() then also
	 * counts what was decoded ahead.
	 */
	int threads;
	/*
	 * With threads >= 2: instead of the decoding workers, one thread
	 * decodes and merges every stream (serially, as threads 1 does) and
	 * hands the merged events over in batches, their payloads copied, so
	 * the caller's work on the events (the analyzers) runs beside the
	 * whole read.  Events, order, errors and messages are the serial
	 * read's; fmt_iter_peek() is not available (it returns -ENOTSUP).
	 */
	bool pipeline;
	/*
	 * The caller never calls fmt_iter_peek(): the event returned is the
	 * stream's own, not a copy (peek would move the stream underneath
	 * it), one copy of struct fmt_event less per event.  fmt_iter_peek()
	 * then returns -EINVAL.
	 */
	bool no_peek;
	/*
	 * Per CPU stream, the chunks of its stored time index to read, from
	 * first up to (not including) end; a stream without a range is read
	 * whole.  The stream's chunk count, its first chunk's header and
	 * stamp and its checksums must agree with the index, or
	 * fmt_iter_new() fails with -ESPIPE (nothing was skipped: the caller
	 * reads the file another way).  Compressed streams only; not with
	 * seek or the time options.  What the skipped chunks hold is the
	 * caller's to account for (fmt_reader_facts()).
	 */
	const struct fmt_iter_range *ranges;
	int nranges;
};
struct fmt_iter_range {
	int buffer, cpu;
	uint32_t first, end;
};
enum { FMT_TS_RAW = 1 << 0, FMT_TS_NODATE = 1 << 1 };

/*
 * Iterate over events of all selected CPUs and buffers in timestamp order
 * (ties: lower buffer index, then lower CPU, like trace-cmd).  opts may be
 * NULL.  Memory is bounded by the number of CPU streams (one decompressed
 * chunk each), not by the file size.
 */
int fmt_iter_new(struct fmt_reader *r, const struct fmt_iter_opts *opts, struct fmt_iter **out);

/*
 * Returns 1 with *ev set (valid until the next call), 0 at the end, or a
 * negative errno when data is damaged: fmt_reader_error() names the byte
 * offset.  After an error in one CPU stream the others can still be
 * drained by calling again (the damaged stream is dropped); the iterator
 * remembers that an error happened, see fmt_iter_errors().
 */
int fmt_iter_next(struct fmt_iter *it, const struct fmt_event **ev);
int fmt_iter_errors(const struct fmt_iter *it);	/* count of stream errors so far */
/*
 * Bytes of event data the reader has handed to the iterators so far:
 * decompressed bytes of chunks, bytes read of uncompressed pages (the
 * seek's probes included).  What a time-window query costs.
 */
uint64_t fmt_reader_data_bytes(const struct fmt_reader *r);

/*
 * Look ahead: the event that would come next from one buffer (after the
 * one fmt_iter_next() returned last), without consuming it.  Returns 1 with
 * *ev (valid until the next iterator call), 0 if the buffer has no more.
 * fmt_iter_take_peeked() then consumes that event and returns a copy that
 * stays valid until the next fmt_iter_next().  (trace-cmd's function_graph
 * printer merges a leaf entry with its exit this way.)
 */
int fmt_iter_peek(struct fmt_iter *it, int buffer, const struct fmt_event **ev);
int fmt_iter_take_peeked(struct fmt_iter *it, const struct fmt_event **ev);
void fmt_iter_free(struct fmt_iter *it);

/* ---- fast field access ------------------------------------------------- */

/* A field resolved once per event type; read it per event with fmt_field_*(). */
struct fmt_field {
	int offset;		/* -1: field absent */
	int size;
	bool is_signed;
	bool is_dynamic;	/* __data_loc: the value holds (len << 16 | offset) */
	bool is_relative;	/* __rel_loc: offset counts from the end of the field */
	bool big_endian;
};

/* Resolve a field by name (common_* included). Returns 0 or -ENOENT (f->offset = -1). */
int fmt_field_resolve(const struct tep_event *event, const char *name, struct fmt_field *f);

/*
 * An unsigned integer of size bytes (1, 2, 4 or 8; any other size reads 0)
 * at p, byte-swapped when swap (the file's byte order is not the host's):
 * what libtraceevent's tep_read_number() returns, for printers that must
 * print what it prints.  The caller has checked that the bytes are there.
 */
static inline uint64_t fmt_read_num(const void *p, int size, bool swap)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		__builtin_memcpy(&v2, p, 2);
		return swap ? __builtin_bswap16(v2) : v2;
	case 4:
		__builtin_memcpy(&v4, p, 4);
		return swap ? __builtin_bswap32(v4) : v4;
	case 8:
		__builtin_memcpy(&v8, p, 8);
		return swap ? __builtin_bswap64(v8) : v8;
	default:
		return 0;
	}
}

/* Read an integer field (1, 2, 4 or 8 bytes), sign-extended if signed; 0 if absent/out of range. */
static inline uint64_t fmt_field_u64(const struct fmt_field *f, const void *data, int size)
{
	const uint8_t *p = (const uint8_t *)data + f->offset;
	uint64_t v = 0;

	if (f->offset < 0 || f->offset + f->size > size)
		return 0;
	switch (f->size) {
	case 1:
		v = p[0];
		if (f->is_signed)
			v = (uint64_t)(int64_t)(int8_t)v;
		break;
	case 2:
		v = f->big_endian ? (uint64_t)p[0] << 8 | p[1] : (uint64_t)p[1] << 8 | p[0];
		if (f->is_signed)
			v = (uint64_t)(int64_t)(int16_t)v;
		break;
	case 4: {
		uint32_t x;
		__builtin_memcpy(&x, p, 4);
		if (f->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			x = __builtin_bswap32(x);
		v = f->is_signed ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		__builtin_memcpy(&v, p, 8);
		if (f->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			v = __builtin_bswap64(v);
		break;
	default: break;
	}
	return v;
}

/*
 * Pointer and length of a string / dynamic-array field (__data_loc or fixed
 * char array).  Returns NULL if absent or out of bounds.
 */
const void *fmt_field_ptr(const struct fmt_field *f, const void *data, int size, int *len);

/*
 * The events that name tasks (format/names.c): up to two (pid, comm) pairs
 * per event, and the tgid of the event's own task.  fmt_namesrc_apply()
 * calls comm() for each name (pid >= 0; the bytes are not terminated, len
 * may exceed 15) and tgid() for the process, in the order an analyzer
 * applies them.
 */
struct fmt_namesrc {
	int npairs;
	struct fmt_field pid[2], comm[2];
	struct fmt_field common_pid, tgid;	/* tgid.offset < 0: no process */
};
void fmt_namesrc_resolve(const struct tep_event *e, struct fmt_namesrc *ns);
/* Can a format of system sys (text: its "name: ..." text) name tasks?  Before parsing it. */
bool fmt_namesrc_may_name(const char *sys, const char *text, size_t len);
static inline bool fmt_namesrc_any(const struct fmt_namesrc *ns)
{
	return ns->npairs || ns->tgid.offset >= 0;
}
static inline void fmt_namesrc_apply(const struct fmt_namesrc *ns, const void *data, int size,
				     void (*comm)(void *ctx, int pid, const char *s, int len),
				     void (*tgid)(void *ctx, int pid, int tgid), void *ctx)
{
	for (int i = 0; i < ns->npairs; i++) {
		int pid = (int)fmt_field_u64(&ns->pid[i], data, size), len;
		const char *s = (const char *)fmt_field_ptr(&ns->comm[i], data, size, &len);

		if (s && pid >= 0)
			comm(ctx, pid, s, len);
	}
	if (ns->tgid.offset >= 0) {
		int pid = (int)fmt_field_u64(&ns->common_pid, data, size);

		if (pid > 0)
			tgid(ctx, pid, (int)fmt_field_u64(&ns->tgid, data, size));
	}
}

/*
 * The events that set the analyzers' scheduling, syscall and interrupt
 * state (format/names.c), and the keys under which a chunk keeps the last
 * of them (FMT_SEC_FT_STATE): the rules of report/core/kinds.c for these kinds,
 * with the same required fields.  A sched_switch is kept as its CPU's first
 * and last switch and as the first and last switch-out of prev_pid and
 * switch-in of next_pid; a sched_process_exit as the first and last exit of
 * its pid field; a syscall entry or exit (raw_syscalls, syscalls:
 * sys_enter_* / sys_exit_*) as the last syscall event of its task (the int
 * at offset 4, common_pid, as the analyzers read it); irq_handler_entry/
 * exit and softirq_entry/exit as their CPU's last of each pair, and an
 * irq_handler_entry also as the first of its irq number (whose name the
 * analyzers take from the first).  The last of each give the state at the
 * chunk's end; the first, what ends there the times that were open at a
 * window's end.
 */
enum fmt_state_kind {
	FMT_ST_NONE = 0,
	FMT_ST_SWITCH,
	FMT_ST_EXIT,
	FMT_ST_SYSCALL,
	FMT_ST_IRQ,
	FMT_ST_SOFTIRQ,
	/*
	 * Kept for slice, never handed to overhead: the first sched_wakeup or
	 * sched_wakeup_new of each woken pid (a name trace-cmd's sched plugin
	 * takes), and the CPU's first function-graph, ufunc or kfunc record
	 * (a call that may be open at a cut).
	 */
	FMT_ST_WAKEUP,
	FMT_ST_CALL,
};
struct fmt_statesrc {
	int kind;			/* enum fmt_state_kind */
	struct fmt_field a, b;		/* SWITCH: prev_pid, next_pid; EXIT, WAKEUP: pid; IRQ entry: irq */
	bool named;			/* an irq_handler_entry: kept as its irq's first too */
};
void fmt_statesrc_resolve(const struct tep_event *e, struct fmt_statesrc *ss);
/* Can a format of system sys (text: its "name: ..." text) set state?  Before parsing it. */
bool fmt_statesrc_may(const char *sys, const char *text, size_t len);

/* ======================================================================= */
/*                    output files, written whole or not                   */
/* ======================================================================= */

/*
 * Every file flytrap writes is created exclusively (O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600) under a random hidden name in its destination's
 * directory, ".BASE.XXXXXXXXXXXX", and renamed over the destination only
 * when it is complete and fsync'd.  A link planted at the destination is
 * replaced, never followed; no complete-looking partial file ever exists.
 */
struct fmt_outfile {
	char *dest;		/* where the file goes, as given */
	char *temp;		/* the temporary name it is written under */
	int fd;			/* read-write, -1 once closed */
};

/*
 * 0 when dest may be written (missing, a regular file or a link to be
 * replaced); -EISDIR for a directory, -EINVAL for a FIFO, socket, device
 * or an empty name (*why says which, "it is a FIFO"), or the errno of a
 * failed lstat().
 */
int fmt_outfile_check(const char *dest, const char **why);
/* Create the temporary file for dest; 0 or -errno (fmt_outfile_check's too). */
int fmt_outfile_open(struct fmt_outfile *o, const char *dest);
/*
 * Tests only (outfile.c says how): the error FLYTRAP_TEST_WRITE_FAULT
 * injects into a write of kind ("header", "data", "index", "fsync",
 * "rename") of the file that becomes dest, or 0.
 */
int fmt_test_fault(const char *kind, const char *dest);
/*
 * fsync, give the owner set with fmt_outfile_set_owner(), mode 0600, and
 * rename over dest.  0 (o released) or -errno: then the file is closed and
 * still under o->temp, for the caller to fmt_outfile_abort() or _release().
 */
int fmt_outfile_commit(struct fmt_outfile *o);
/*
 * Write all of iov (n entries, changed as the writes go) at off: pwritev
 * again after a short write or EINTR.  0 or -errno (-EIO for a write of
 * nothing); *done (may be NULL) gets the bytes written either way.
 */
struct iovec;
int fmt_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off, uint64_t *done);
/* The commit's fsync, owner and mode, without the rename (o stays open). */
int fmt_outfile_seal(struct fmt_outfile *o);
/* Close and free, keeping the temporary file (for a later recovery). */
void fmt_outfile_release(struct fmt_outfile *o);
/* Close, remove the temporary file, free. */
void fmt_outfile_abort(struct fmt_outfile *o);
/*
 * The commit for a temporary file a dead writer left (recover): temp must
 * be a regular file (not followed if a link) of this process's uid or of
 * uid; it is fsync'd, given uid/gid when chown_it, mode 0600, and renamed
 * over dest.  0 or -errno.
 */
int fmt_outfile_place(const char *temp, const char *dest, bool chown_it, uid_t uid, gid_t gid);
/*
 * Who gets every file committed from now on (a root process run through
 * sudo gives its files to the user who ran it).  Unset: the process's own.
 */
void fmt_outfile_set_owner(uid_t uid, gid_t gid);
/* The owner set, if any: true with *uid and *gid filled. */
bool fmt_outfile_owner(uid_t *uid, gid_t *gid);

/* ======================================================================= */
/*                                 writer                                  */
/* ======================================================================= */

struct fmt_writer;

/* One chunk of a buffer's CPU as a chunk sink gets it (struct fmt_writer_opts). */
struct fmt_chunk {
	const char *buffer;		/* buffer name, "" = top */
	int buffer_index;		/* creation order of the buffer in its writer */
	int cpu;
	uint32_t npages;
	uint64_t ts_first;		/* time stamp in the first page's header */
	uint64_t ts_last;		/* time stamp in the last page's header */
	const void *data;		/* {u32 csize, u32 usize, zstd frame}, or raw pages */
	size_t len;
};

struct fmt_writer_opts {
	const char *compression;	/* "zstd" (default when NULL) or "none" */
	int zstd_level;			/* 0 = default (3) */
	bool big_endian;		/* file byte order; default: host order */
	int long_size;			/* header long-size byte; 0 = sizeof(long) */
	uint32_t page_size;		/* sub-buffer size; 0 = 4096 */
	int pages_per_chunk;		/* compressed chunk size in pages; 0 = 10 */
	const char *spool_dir;		/* where per-CPU spool files go; NULL = next to the output */
	/*
	 * Spools are scratch (convert: the input still exists): remove them
	 * even when close fails.  Default: a failed close keeps them for
	 * fmt_writer_recover().
	 */
	bool discard_spools_on_error;
	/*
	 * Chunk sink (flight recorder, rotation): every finished chunk goes to
	 * chunk_sink instead of the spool files, in its on-disk form.  Called
	 * in the writer's compression thread (or the caller's, without one);
	 * returns 0 or -errno (sticky, as a spool write failure).  A writer
	 * with a sink keeps no data: only fmt_writer_abort() ends it.
	 */
	int (*chunk_sink)(void *ctx, const struct fmt_chunk *c);
	void *chunk_ctx;
	/*
	 * Shown every chunk as raw pages (data, npages * page_size bytes)
	 * before it is compressed, in the same thread as the sink; its return
	 * value is ignored.  NULL = none.
	 */
	int (*page_observer)(void *ctx, const struct fmt_chunk *c);
	void *observer_ctx;
	/*
	 * Told each spool file's path once it is created (the recorder keeps
	 * the list in its run note for reset and recover).  May be NULL.
	 */
	void (*on_spool)(void *arg, const char *path);
	void *on_spool_arg;
	/*
	 * close() leaves the finished file under its temporary name for the
	 * caller to place (a flight dump takes the next free number).
	 */
	bool keep_temp;
	/*
	 * Compression threads (a pool; 0 = 1).  Chunks of one CPU are stored
	 * in page order whatever the count.
	 */
	int threads;
};

/*
 * Start the file that fmt_writer_close() puts at path: written under a
 * temporary name beside it (fmt_outfile_open(), fmt_writer_temp()), with
 * spool files named after that temporary name.  *out is freed by
 * fmt_writer_close() or fmt_writer_abort().
 */
int fmt_writer_open(const char *path, const struct fmt_writer_opts *opts, struct fmt_writer **out);
const char *fmt_writer_error(const struct fmt_writer *w);
/* The temporary name the file is written under until close (owned by w). */
const char *fmt_writer_temp(const struct fmt_writer *w);

/*
 * Metadata.  Each call writes one section (compressed when the file is) at
 * the current end of the file and queues the option that points at it.
 * Text is copied; callers keep ownership.
 */
int fmt_writer_headers(struct fmt_writer *w, const char *header_page, size_t hp_len,
		       const char *header_event, size_t he_len);
/* Formats are collected and written as one section on the first buffer or at close. */
int fmt_writer_ftrace_format(struct fmt_writer *w, const char *text, size_t len);
int fmt_writer_event_format(struct fmt_writer *w, const char *system, const char *text, size_t len);
int fmt_writer_kallsyms(struct fmt_writer *w, const char *text, size_t len);
int fmt_writer_printk(struct fmt_writer *w, const char *text, size_t len);
int fmt_writer_cmdlines(struct fmt_writer *w, const char *text, size_t len);
/*
 * The cmdlines text as fmt_writer_cmdlines(), written when the file is
 * closed with the names the recorded events carried (format/names.c: a
 * sched_switch's two tasks, a fork's child, a BPF record's task...): each
 * pid gets the last name its events gave it, in place of text's line, and
 * the pids the text lacks are added.  The kernel's saved_cmdlines keeps 128
 * names; with these, trace-cmd names every task that ran.  A later call
 * replaces the text.  0 or -ENOMEM.
 */
int fmt_writer_cmdlines_events(struct fmt_writer *w, const char *text, size_t len);

/*
 * Queue an option (any ID, including flytrap's own); it is written in the
 * next OPTIONS section (before the first buffer, or at close).
 */
int fmt_writer_option(struct fmt_writer *w, uint16_t id, const void *data, uint32_t len);
/* Convenience wrappers for common options. */
int fmt_writer_option_str(struct fmt_writer *w, uint16_t id, const char *s); /* includes the NUL */
int fmt_writer_cpucount(struct fmt_writer *w, uint32_t ncpus);
/* CPUSTAT for one CPU of a buffer ("" = top); emits the "Buffer:" marker before instance stats. */
int fmt_writer_cpustat(struct fmt_writer *w, const char *buffer, int cpu, const char *stats);

/*
 * Write an extra section (flytrap's own IDs) now and return its offset in
 * *offset so an option can point at it.
 */
int fmt_writer_section(struct fmt_writer *w, uint16_t id, const char *desc,
		       const void *data, size_t len, uint64_t *offset);

/* ---- buffers (ring-buffer data) --------------------------------------- */

struct fmt_wbuf;

/*
 * Start a buffer ("" = top).  Pages may be added for any CPU in any order;
 * each CPU's pages are spooled (compressed in chunks) to a temporary file
 * so memory stays bounded, and copied into one BUFFER section when the
 * buffer is finished.  Buffers may be open at the same time.
 */
int fmt_wbuf_new(struct fmt_writer *w, const char *name, const char *clock,
		 struct fmt_wbuf **out);
/*
 * Add one whole page (page_size bytes, as the kernel wrote it).  After
 * fmt_wbuf_add_cpus(b, n), several threads may add pages to CPUs below n
 * of b (and of other buffers so prepared) at the same time, each CPU from
 * one thread at a time; no other call on the writer may overlap them
 * except fmt_wbuf_bytes().
 */
int fmt_wbuf_add_page(struct fmt_wbuf *b, int cpu, const void *page);
/* Make CPUs 0 .. ncpus-1 of b exist now (for adders in several threads). */
int fmt_wbuf_add_cpus(struct fmt_wbuf *b, int ncpus);
/*
 * Bytes spooled so far (compressed) plus pages not compressed yet (raw):
 * an upper bound of what this buffer adds to the file, for --max-size checks.
 */
uint64_t fmt_wbuf_bytes(const struct fmt_wbuf *b);
/* Flush partial chunks to the spool files (for crash safety / recover). */
int fmt_wbuf_flush(struct fmt_wbuf *b);
/* fmt_wbuf_flush of every buffer of w (a chunk sink has every page when it returns). */
int fmt_writer_flush(struct fmt_writer *w);
/*
 * Append one chunk made by a writer with the same page size and
 * compression (what a chunk sink got) to CPU cpu of b, as it is.  Returns
 * 0, -EBADMSG when it is not such a chunk, or -errno.
 */
int fmt_wbuf_add_chunk(struct fmt_wbuf *b, int cpu, const void *data, size_t len);

/*
 * Finish: write all buffers' sections, then the final OPTIONS section
 * (BUFFER options and every option queued since), then STRINGS, fsync, and
 * rename the file into place (fmt_outfile_commit(); with opts->keep_temp
 * it stays under fmt_writer_temp()'s name, sealed).  Frees w.  Returns 0
 * or -errno; on failure the temporary file and spools are kept for
 * fmt_writer_recover() unless opts->discard_spools_on_error.
 */
int fmt_writer_close(struct fmt_writer *w);
/* Remove the spool files and the temporary file and free w without finishing. */
void fmt_writer_abort(struct fmt_writer *w);

/* ---- page encoder: records → ring-buffer sub-buffers ------------------- */

struct fmt_page_enc {
	uint8_t *page;		/* page_size bytes, owned */
	uint32_t page_size;
	int kernel_long;	/* 4 or 8 */
	bool big_endian;
	uint32_t used;		/* bytes of event data so far */
	uint64_t page_ts;
	uint64_t last_ts;
	int64_t missed;		/* 0 none, -1 unknown, >0 count: stored in this page's commit */
	unsigned nrecords;
};

int fmt_page_enc_init(struct fmt_page_enc *pe, uint32_t page_size, int kernel_long, bool big_endian);
void fmt_page_enc_release(struct fmt_page_enc *pe);
/*
 * Append one record (payload starts with common_type).  Timestamps must not
 * go backwards within a page.  Returns 0, or -ENOSPC when the page is full
 * or the time since the previous record does not fit a TIME_EXTEND (2^59 ns)
 * (finish it, then add again), -EMSGSIZE if the record can never fit, or
 * -EINVAL if ts is before the previous record's.
 */
int fmt_page_enc_add(struct fmt_page_enc *pe, uint64_t ts, const void *payload, uint32_t len);
/* Mark events lost before this page (count -1 = unknown). */
void fmt_page_enc_set_missed(struct fmt_page_enc *pe, int64_t count);
/* Finalize the header and return the page (page_size bytes); the encoder is reset for the next page. */
const void *fmt_page_enc_finish(struct fmt_page_enc *pe);

/*
 * Finish an output whose writer died (the recorder was killed): keep the
 * metadata sections already in path, append the complete chunks found in
 * its spool files as buffers, write the closing options, and remove the
 * spools.  At most the last unflushed chunk per CPU is lost.  Returns 0
 * when it finished the file, 1 when the file was complete already (left as
 * it is; stray spools removed), -errno on failure with *err a malloc'd
 * message (caller frees).  A file without spool files that holds more than
 * its metadata (finished, then cut) is never modified.
 */
int fmt_writer_recover(const char *path, char **err);
/*
 * The same with the spool files named (a run note's list) instead of
 * looked for beside path.  Without a list, and with one, a spool is taken
 * only if it is a regular file (not a link) of path's owner that names
 * path's device and inode: names beside an output in /tmp can be planted.
 */
int fmt_writer_recover_spools(const char *path, const char *const *spools, int nspools,
			      char **err);
/*
 * The same, with the cmdlines text ("PID COMM" lines) the recovered file
 * gets, as fmt_writer_cmdlines_events(): a file killed before its end has
 * none of its own (its writer writes them at close).
 */
int fmt_writer_recover_spools_names(const char *path, const char *const *spools, int nspools,
				    const char *cmdlines, size_t len, char **err);

/*
 * Add pages to the spools of an output whose writer died, without touching
 * the output itself (for `flytrap reset`, which drains a killed recorder's
 * kernel buffers so that fmt_writer_recover() puts them in the file).
 * spools are the spool files that writer created: each must be a regular
 * file of ours describing path; a torn chunk at its end is cut.  A CPU
 * without one gets a new spool (opts->on_spool is told; opts may be NULL).
 * Buffers are found or started with fmt_wbuf_get(); fmt_writer_suspend()
 * spools every page added and frees w, leaving output and spools for
 * recovery.  Returns 0 or -errno with *err a malloc'd message.
 */
int fmt_writer_resume(const char *path, const char *const *spools, int nspools,
		      const struct fmt_writer_opts *opts, struct fmt_writer **out, char **err);
/* The buffer named name; a new one with clock when there is none (-ENOENT for a NULL clock). */
int fmt_wbuf_get(struct fmt_writer *w, const char *name, const char *clock, struct fmt_wbuf **out);
/* Spool what was added since fmt_writer_resume() and free w; 0 or -errno. */
int fmt_writer_suspend(struct fmt_writer *w);

/* CRC32C (Castagnoli) of n bytes continuing crc (0 to start); hardware where the CPU has it. */
uint32_t fmt_crc32c(uint32_t crc, const void *data, size_t n);
/* The same, always in the portable table code (tests compare the two). */
uint32_t fmt_crc32c_soft(uint32_t crc, const void *data, size_t n);
/* The CRC32C of A followed by B from theirs (len_b bytes of B). */
uint32_t fmt_crc32c_cat(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
/*
 * The CRC32C of a message after n bytes of it, followed by after more
 * bytes, changed from old to new.
 */
uint32_t fmt_crc32c_patch(uint32_t crc, const void *old, const void *new, size_t n, uint64_t after);

/* The header_page text a kernel with this long size and page size prints. */
int fmt_header_page_text(int kernel_long, uint32_t page_size, char *buf, size_t len);

#endif
