/* SPDX-License-Identifier: GPL-2.0-only */
/* Record layouts of syscalls.bpf.c (event flytrap:syscall, flytrap:syscall_hist). */
#ifndef FLYTRAP_BPF_SYSCALLS_H
#define FLYTRAP_BPF_SYSCALLS_H

#include "common.h"

/*
 * Event payload after the 8 bytes of common_* fields; the recorder copies
 * it as is, so the offsets in the format text are 8 + offsetof().
 */
struct ft_syscall_ev {
	__s32 tgid;
	__s32 nr;		/* syscall number (orig_ax) */
	__u64 start;		/* entry time, mono ns */
	__u64 duration;		/* exit - entry, ns */
	__s64 ret;		/* return value */
};

struct ft_syscall_rec {
	struct ft_hdr h;	/* ts = exit time */
	struct ft_syscall_ev ev;
};

/* Aggregation mode: one histogram per (task, syscall). */
#define FT_HIST_SLOTS 40	/* log2(ns) buckets: slot i counts [2^i, 2^(i+1)) ns, slot 0 also 0 */

struct ft_syshist_key {
	__s32 tid;
	__s32 nr;
};

struct ft_syshist_val {
	__s32 tgid;
	__u32 pad;
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	__u64 slots[FT_HIST_SLOTS];
};

/* flytrap:syscall_hist payload after the common fields (written by the recorder at the end). */
struct ft_syshist_ev {
	__s32 tgid;
	__s32 nr;
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	__u64 slots[FT_HIST_SLOTS];
};

/* Syscall numbers a --trigger can name (bitmap size in bits). */
#define FT_TRIG_NRS 1024

/* Entry state per thread. */
struct ft_sys_start {
	__u64 ts;
	__s64 nr;
};

#endif
