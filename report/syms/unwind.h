/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline user-stack unwinding from what `record --user-stack cfi|dwarf`
 * kept with a BPF stack: the user registers (IP, SP, BP on x86_64; PC, SP,
 * LR, FP on arm64) and a copy of the top of the user stack.  The walk is
 * elfutils' (libdwfl's unwinder over the binaries' .eh_frame/.debug_frame):
 * one Dwfl per process, its modules placed where the file's maps say,
 * memory read from the stack copy and, outside it, from the mapped files.
 */
#ifndef FLYTRAP_UNWIND_H
#define FLYTRAP_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "report/syms/symbols.h"

struct rpt_unwind;

/* Register layouts (META bpf_user_stack=MODE BYTES ARCH:REGS) */
enum rpt_unwind_arch { RPT_UW_NONE, RPT_UW_X86_64, RPT_UW_ARM64 };

/*
 * An unwinder for the processes of s (not owned; must outlive it), whose
 * records keep registers in the layout of arch.  NULL with errno = ENOMEM,
 * or EINVAL for an arch it cannot unwind.
 */
struct rpt_unwind *rpt_unwind_new(struct rpt_syms *s, enum rpt_unwind_arch arch);
void rpt_unwind_free(struct rpt_unwind *u);

/*
 * Unwind one stack of process tgid: regs[nregs] as recorded, copy[clen]
 * the stack from regs' SP up.  pcs[] gets the frames innermost first (the
 * IP, then return addresses), at most max; sps[] (NULL: not wanted) the
 * stack pointer of each frame (the recorded SP, then each caller's, which is
 * its callee's CFA; 0 where unknown): a frame is its (pc, sp) pair, so a
 * recursion is told from an unwind going round in circles.  Returns how many, with *why
 * set to NULL when the walk reached the outermost frame, else to why it
 * stopped ("no CFI for libfoo.so", "stack copy too small", ...; a string
 * owned by u, valid until the next call).
 */
int rpt_unwind_user(struct rpt_unwind *u, int tgid, const uint64_t *regs, int nregs,
		    const uint8_t *copy, size_t clen, uint64_t *pcs, uint64_t *sps, int max,
		    const char **why);

/* Stacks walked and frames found (for --json / the cost table). */
void rpt_unwind_counts(const struct rpt_unwind *u, uint64_t *stacks, uint64_t *frames);

#endif
