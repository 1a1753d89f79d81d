/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record layout of exitmaps.bpf.c: one executable file mapping of a
 * process that is exiting.  Internal to the recorder (merged into the
 * process maps it stores), never written as an event.
 */
#ifndef FLYTRAP_BPF_EXITMAPS_H
#define FLYTRAP_BPF_EXITMAPS_H

#include "common.h"

#define FT_PATH_COMPS 16	/* path components kept, leaf first */
#define FT_COMP_LEN 64

#define FT_VMA_VDSO 0x100	/* the vDSO (no file, no path) */
#define FT_VMA_PRE_EXEC 0x200	/* the image before an exec (stamped h.ts), not the exit's */

struct ft_vma_rec {
	struct ft_hdr h;	/* kind FT_K_VMA, tid = tgid = the exiting process */
	__u64 start;
	__u64 end;
	__u64 pgoff;		/* file offset in pages (vm_pgoff) */
	__u64 ino;
	__u32 dev;		/* kernel dev_t: major << 20 | minor */
	__u16 flags;		/* vm_flags & 0xf: read 1, write 2, exec 4, shared 8; FT_VMA_* */
	__u16 ncomp;		/* components in comp[]; FT_PATH_COMPS + 1 = truncated */
	char comm[16];
	char comp[FT_PATH_COMPS][FT_COMP_LEN];
};

#endif
