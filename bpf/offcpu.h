/* SPDX-License-Identifier: GPL-2.0-only */
/* Record layout of offcpu.bpf.c (event flytrap:offcpu). */
#ifndef FLYTRAP_BPF_OFFCPU_H
#define FLYTRAP_BPF_OFFCPU_H

#include "common.h"

/* Depth kept per blocked task (the state map holds one entry per blocked thread). */
#define FT_OFFCPU_DEPTH 32

/* Fixed part of the flytrap:offcpu payload, after the common fields. */
struct ft_offcpu_ev {
	__s32 tgid;
	__u32 state;		/* prev_state at the switch out (0 = preempted) */
	__u64 start;		/* switch-out time, mono ns */
	__u64 duration;		/* switch-in - switch-out, ns */
	__s32 waker_tid;	/* 0 when no wakeup was seen (preempted, or woken before attach) */
	__s32 waker_tgid;
	char comm[16];
	char waker_comm[16];
};

/*
 * Ring buffer record: the fixed part, then kdepth kernel and udepth user
 * return addresses (innermost first) of the blocking point, then
 * (--user-stack cfi|dwarf) room for the stack copy, ucopy bytes of it used.
 */
struct ft_offcpu_rec {
	struct ft_hdr h;	/* ts = switch-in time, cpu = CPU it resumed on */
	struct ft_offcpu_ev ev;
	__u16 kdepth;
	__u16 udepth;
	__u32 ucopy;		/* bytes of copy[] */
	__u64 regs[FT_UREGS];	/* user registers at the switch-out (common.h) */
	__u64 stack[2 * FT_OFFCPU_DEPTH];
	__u8 copy[];
};

/* Per blocked thread, from switch-out to switch-in. */
struct ft_offcpu_state {
	__u64 ts;
	__u32 state;
	__s32 waker_tid;
	__s32 waker_tgid;
	__u16 kdepth;
	__u16 udepth;
	char waker_comm[16];
	__u64 kstack[FT_OFFCPU_DEPTH];
	__u64 ustack[FT_OFFCPU_DEPTH];
};

#endif
