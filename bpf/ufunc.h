/* SPDX-License-Identifier: GPL-2.0-only */
/* Record layouts of ufunc.bpf.c (events flytrap:ufunc_entry, flytrap:ufunc_exit). */
#ifndef FLYTRAP_BPF_UFUNC_H
#define FLYTRAP_BPF_UFUNC_H

#include "common.h"

/* Nesting kept per thread; deeper calls still count depth but carry start 0. */
#define FT_UFUNC_DEPTH 64

struct ft_uentry_ev {
	__s32 tgid;
	__u32 func;		/* index into the recorder's function table (attach cookie) */
	__u32 depth;		/* 1 = outermost traced call of this thread */
	__u32 pad;
	__u64 ip;		/* address hit (runtime address of the function) */
};

struct ft_uexit_ev {
	__s32 tgid;
	__u32 func;
	__u32 depth;		/* same depth as the matching entry */
	__u32 flags;		/* FT_UEXIT_* */
	__u64 start;		/* matching entry time (0 if unknown) */
	__u64 duration;
	__u64 ret;		/* return register */
};

enum {
	FT_UEXIT_NOENTRY = 1,	/* no entry seen (attached mid-call, or deeper than FT_UFUNC_DEPTH) */
	FT_UEXIT_MISMATCH = 2,	/* the entry on top of the thread's stack was another function */
};

struct ft_uentry_rec {
	struct ft_hdr h;
	struct ft_uentry_ev ev;
};

struct ft_uexit_rec {
	struct ft_hdr h;
	struct ft_uexit_ev ev;
};

struct ft_ufunc_stack {
	__u32 depth;
	__u32 pad;
	__u64 ts[FT_UFUNC_DEPTH];
	__u32 func[FT_UFUNC_DEPTH];
};

#endif
