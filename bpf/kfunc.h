/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record layouts of kfunc.bpf.c (events flytrap:kfunc_entry,
 * flytrap:kfunc_exit): kernel function entry and return.  The payloads are
 * those of ufunc.h on purpose, so that a reader of ufunc events (call
 * trees: index, depth, duration) reads kfunc events with the same code;
 * only the function table differs (META "bpf_kfunc=" lines).
 */
#ifndef FLYTRAP_BPF_KFUNC_H
#define FLYTRAP_BPF_KFUNC_H

#include "common.h"
#include "ufunc.h"

/*
 * Kernel functions one recording may trace.  fentry/fexit need one
 * program instance per function (a tracing program is loaded for one
 * target before Linux 6.5's multi-attach links), so the object carries
 * this many pairs; kprobes share one pair with the index as attach cookie.
 */
#define FT_KFUNC_MAX 8

/* Nesting kept per thread (power of two: the BPF side masks indices). */
#define FT_KFUNC_DEPTH 32

/* flags of the exit record: FT_UEXIT_NOENTRY, FT_UEXIT_MISMATCH (ufunc.h) */

struct ft_kentry_rec {
	struct ft_hdr h;
	struct ft_uentry_ev ev;	/* ip = the function's address (kallsyms) */
};

struct ft_kexit_rec {
	struct ft_hdr h;
	struct ft_uexit_ev ev;	/* ret = return register (rax), signed in the event format */
};

struct ft_kfunc_stack {
	__u32 depth;
	__u32 pad;
	__u64 ts[FT_KFUNC_DEPTH];
	__u32 func[FT_KFUNC_DEPTH];
};

/* Attach modes (META bpf_kfunc_attach=). */
enum ft_kfunc_mode {
	FT_KFUNC_FENTRY = 1,	/* fentry/fexit: BPF trampolines, direct calls */
	FT_KFUNC_KPROBE = 2,	/* kprobe/kretprobe */
};

#endif
