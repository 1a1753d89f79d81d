/* SPDX-License-Identifier: GPL-2.0-only */
/* Record layout of profile.bpf.c (event flytrap:profile). */
#ifndef FLYTRAP_BPF_PROFILE_H
#define FLYTRAP_BPF_PROFILE_H

#include "common.h"

struct ft_profile_ev {
	__s32 tgid;
	__u32 pad;
	char comm[16];
};

/*
 * The record is sent with bpf_ringbuf_output() at its real size: the fixed
 * part with room for kdepth kernel and udepth user addresses (innermost
 * first), then (--user-stack cfi|dwarf) ucopy bytes of user stack.
 */
struct ft_profile_rec {
	struct ft_hdr h;	/* ts = sample time */
	struct ft_profile_ev ev;
	__u16 kdepth;
	__u16 udepth;
	__u32 ucopy;		/* bytes of copy[] */
	__u64 regs[FT_UREGS];	/* user registers (common.h), zero without --user-stack */
	__u64 stack[2 * FT_MAX_STACK];
	__u8 copy[];
};

#endif
