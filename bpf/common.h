/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by every BPF program and record/bpf.c: the record header that
 * starts each ring buffer record, and the layout of the per-CPU
 * statistics map in which the programs count what they could not record.
 *
 * Fixed-width types only: the same struct is read by the BPF program
 * (vmlinux.h types) and by the recorder (<linux/types.h>).
 */
#ifndef FLYTRAP_BPF_COMMON_H
#define FLYTRAP_BPF_COMMON_H

/* Record kinds (ft_hdr.kind); each maps to one event format "flytrap:NAME". */
enum ft_kind {
	FT_K_SYSCALL = 1,	/* syscalls.h: struct ft_syscall_rec */
	FT_K_SYSHIST = 2,	/* syscalls.h: struct ft_syshist_ev (made by the recorder from the map) */
	FT_K_OFFCPU = 3,	/* offcpu.h */
	FT_K_PROFILE = 4,	/* profile.h */
	FT_K_UENTRY = 5,	/* ufunc.h */
	FT_K_UEXIT = 6,		/* ufunc.h */
	FT_K_KENTRY = 7,	/* kfunc.h */
	FT_K_KEXIT = 8,		/* kfunc.h */
	FT_K_UCOPY = 9,		/* the recorder's: the part of a stack copy its record has no room for */
	FT_K_MAX = 10,		/* kinds below are the recorder's own, never written as events */
	FT_K_VMA = 16,		/* exitmaps.h: one executable mapping of an exiting process */
};

/* Program slots: index of a program in the statistics map and in "bpf_progs=". */
enum ft_slot {
	FT_SLOT_SYSCALLS = 0,
	FT_SLOT_OFFCPU = 1,
	FT_SLOT_PROFILE = 2,
	FT_SLOT_UFUNC = 3,
	FT_SLOT_FOLLOW = 4,	/* follow.bpf.c: mapfull = a child process that could not be followed */
	FT_SLOT_EXITMAPS = 5,	/* exitmaps.bpf.c: drops = a mapping record lost */
	FT_SLOT_KFUNC = 6,	/* kfunc.bpf.c */
	FT_SLOT_NR = 7,
};

/* Counters per slot; the stats map has FT_SLOT_NR * FT_ST_NR per-CPU u64 entries. */
enum ft_stat {
	FT_ST_DROPS = 0,	/* ring buffer reservation (or output) failed: record lost */
	FT_ST_EMITTED = 1,	/* records committed to the ring buffer */
	FT_ST_MAPFULL = 2,	/* a state/histogram map was full: a record could not be formed */
	FT_ST_NR = 4,
};

#define FT_STAT_KEY(slot, stat) ((slot) * FT_ST_NR + (stat))

/* Every ring buffer record starts with this (24 bytes). */
struct ft_hdr {
	__u64 ts;		/* bpf_ktime_get_ns() == ftrace "mono" clock */
	__u16 kind;		/* enum ft_kind */
	__u16 cpu;		/* CPU the record was produced on */
	__u32 size;		/* bytes of the whole record, header included */
	__s32 tid;		/* becomes common_pid */
	__s32 tgid;
};

/* Size of the process filter map (tgids; children are added as they fork). */
#define FT_MAX_PIDS 16384

/* Stack depths (frames of 8 bytes). */
#define FT_MAX_STACK 127

/*
 * --user-stack cfi|dwarf: with each user stack the programs keep the user
 * registers an unwinder starts from and a copy of the top of the user
 * stack, from the stack pointer up.  Registers, in this order:
 *   x86_64: ip, sp, bp, 0        arm64: pc, sp, lr (x30), fp (x29)
 * The copy is read a page at a time and stops at the first page that
 * cannot be read (the top of the stack), so it may be shorter than asked.
 */
#define FT_UREGS 4
#define FT_UCOPY_MAX 16384	/* largest copy (bytes) a record may carry */
#define FT_UCOPY_SLACK 4096	/* room the page-wise copy needs past the length asked */

/* Per blocked thread (offcpu): its registers and stack copy, value size set by the recorder. */
struct ft_ucopy {
	__u64 regs[FT_UREGS];
	__u32 len;		/* bytes copied */
	__u32 pad;
	__u8 data[];		/* ucopy_len + FT_UCOPY_SLACK bytes of room */
};

#endif
