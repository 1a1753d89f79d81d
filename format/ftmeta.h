/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The key names of flytrap's own text options: FMT_OPT_FT_META (what was
 * recorded, how, on which host) and FMT_OPT_FT_RECSTATS (what recording
 * cost).  Both are "key=value\n" lines.  The recorder writes them with these
 * names and format/meta.c reads them back with the same ones, so a key is
 * spelt in one place.  They are part of the file format: files already
 * written carry these exact bytes, so a name is never changed, only added.
 */
#ifndef FLYTRAP_FORMAT_FTMETA_H
#define FLYTRAP_FORMAT_FTMETA_H

/* ---- FMT_OPT_FT_META: the recorder (record/record.c) -------------------- */
#define FMT_META_RECORDER		"recorder"	/* "flytrap VERSION" */
#define FMT_META_COMMAND_LINE		"command_line"
#define FMT_META_HOSTNAME		"hostname"
#define FMT_META_START_TIME		"start_time"	/* UTC, ISO 8601 */
#define FMT_META_START_EPOCH_NS		"start_epoch_ns"
#define FMT_META_INSTANCE		"instance"	/* the tracefs instance */
#define FMT_META_CLOCK			"clock"
#define FMT_META_BUFFER_KB		"buffer_kb"	/* per-CPU ring buffer, KiB */
#define FMT_META_EVENTS			"events"	/* SYSTEM:NAME,... */
#define FMT_META_COMMAND_USER		"command_user"
#define FMT_META_COMMAND_UID		"command_uid"
#define FMT_META_COMMAND_GID		"command_gid"
#define FMT_META_PIDS			"pids"		/* PID,... the recording was limited to */

/*
 * recover --last-boot: the boot-reserved instance the file comes from, when
 * it was saved (UTC), and whether its kallsyms are the previous boot's
 * ("previous-boot": this boot's moved by the text delta, or "none"); the
 * modules whose old addresses were unknown are left out of them
 */
#define FMT_META_LAST_BOOT		"last_boot"
#define FMT_META_LAST_BOOT_SAVED	"last_boot_saved"
#define FMT_META_LAST_BOOT_KALLSYMS	"last_boot_kallsyms"
#define FMT_META_LAST_BOOT_MODULES_LEFT_OUT "last_boot_modules_left_out"

/* ---- the always-on modes (record/flight.c, record/budget.c) ------------- */
#define FMT_META_RECORDING_MODE		"recording_mode"	/* flight, rotate, stop */
#define FMT_META_TRACE_ID		"trace_id"
#define FMT_META_ROTATION_SEGMENT	"rotation_segment"
/* rotation files before this one that could not be written: "FIRST-LAST" segments */
#define FMT_META_ROTATION_LOST_SEGMENTS	"rotation_lost_segments"
/*
 * record --on-file CMD: its runs that ended since the file before this one
 * (those that failed, were killed at the timeout, or were skipped), and the
 * last one's "FILE: exit N"
 */
#define FMT_META_ON_FILE_RUNS		"on_file_runs"
#define FMT_META_ON_FILE_FAILED		"on_file_failed"
#define FMT_META_ON_FILE_TIMED_OUT	"on_file_timed_out"
#define FMT_META_ON_FILE_SKIPPED	"on_file_skipped"
#define FMT_META_ON_FILE_LAST		"on_file_last"
#define FMT_META_FLIGHT_LIMIT_BYTES	"flight_limit_bytes"
#define FMT_META_FLIGHT_LIMIT_NS	"flight_limit_ns"
#define FMT_META_FLIGHT_AFTER_NS	"flight_after_ns"
#define FMT_META_FLIGHT_DUMP		"flight_dump"
#define FMT_META_TRIGGER		"trigger"	/* why the dump was made */
#define FMT_META_TRIGGER_TS		"trigger_ts"
#define FMT_META_WINDOW_START_NS	"window_start_ns"
#define FMT_META_WINDOW_END_NS		"window_end_ns"
/* a flight dump: the window asked for, and why the data may reach further */
#define FMT_META_WINDOW_NOTE		"window_note"
/* BUFFER/CPU:TS[:whole],...: where each CPU's complete data starts */
#define FMT_META_CPU_DATA_START		"cpu_data_start"
/* FROM,TO,SYSTEM:EVENT,WHY: an event switched off by the CPU budget */
#define FMT_META_SHED			"shed"

/* ---- a file put together from spools (format/writer.c) ------------------ */
#define FMT_META_RECOVERED		"recovered"
#define FMT_META_RECOVERED_TORN_BYTES	"recovered_torn_bytes"

/* ---- the BPF capture (record/bpf.c); the rest are "bpf_SLOT_..." -------- */
#define FMT_META_BPF_PROGS		"bpf_progs"	/* program names, by index */
#define FMT_META_BPF_ENABLED		"bpf_enabled"
#define FMT_META_BPF_UFUNC		"bpf_ufunc"	/* IDX BINARY NAME 0xADDR */
#define FMT_META_BPF_KFUNC		"bpf_kfunc"	/* IDX [WHERE] NAME 0xADDR */
#define FMT_META_BPF_USER_STACK		"bpf_user_stack"	/* MODE BYTES ARCH:REGS */
#define FMT_META_BPF_USER_STACK_PROFILE	"bpf_user_stack_profile_bytes"	/* profile's BYTES */

/* ---- FMT_OPT_FT_RECSTATS (record/record.c add_recstats) ----------------- */
#define FMT_RS_CPU_USER_US		"cpu_user_us"	/* the whole process */
#define FMT_RS_CPU_SYS_US		"cpu_sys_us"
#define FMT_RS_MAX_RSS_KB		"max_rss_kb"
#define FMT_RS_CAPTURE_USER_US		"capture_user_us"	/* while recording */
#define FMT_RS_CAPTURE_SYS_US		"capture_sys_us"
#define FMT_RS_DURATION_NS		"duration_ns"
#define FMT_RS_BYTES_READ		"bytes_read"
#define FMT_RS_BYTES_WRITTEN		"bytes_written"
#define FMT_RS_PAGES			"pages"
#define FMT_RS_WAKEUPS			"wakeups"
#define FMT_RS_MAX_BUFFER_FILL_PCT	"max_buffer_fill_pct"
#define FMT_RS_EVENTS			"events"
#define FMT_RS_OVERRUN			"overrun"
#define FMT_RS_DROPPED			"dropped"
#define FMT_RS_BPF_RECORDS		"bpf_records"
#define FMT_RS_BPF_DROPS		"bpf_drops"
#define FMT_RS_BPF_BYTES		"bpf_bytes"
#define FMT_RS_BPF_PAGES		"bpf_pages"
/* events of the rotation files before this one that could not be written */
#define FMT_RS_ROTATION_LOST_EVENTS	"rotation_lost_events"
/* "cpuN=pages:P bytes_read:B max_drain:D splice:S", one per CPU */
#define FMT_RS_CPU_PREFIX		"cpu"

#endif
