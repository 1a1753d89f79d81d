/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbols for call graphs, from what the file carries and, for user code,
 * from ELF files found by path or build-id:
 *
 *  - kernel: the file's kallsyms (function names for addresses);
 *  - user: per-process mappings (flytrap's FMT_SEC_FT_PROCMAPS section with
 *    file offsets, else trace-cmd's PROCMAPS option), build-ids
 *    (FMT_OPT_FT_BUILDIDS), the symbol tables stored by `record --symbols`
 *    (FMT_SEC_FT_SYMTAB), then ELF files under --symfs DIR, debug
 *    directories (DIR/.build-id/xx/yyyy.debug, /usr/lib/debug by default),
 *    and the mapped path itself when its build-id matches (or none was
 *    recorded).
 *
 * Binaries are read lazily, at the first address that needs them.  Names
 * returned are owned by the rpt_syms and live until rpt_syms_free().
 */
#ifndef FLYTRAP_SYMBOLS_H
#define FLYTRAP_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct rpt_syms;

/*
 * Everything from the file r (may be NULL for tests: then only what the
 * rpt_syms_add_* calls give).  symfs and debug_dirs (NULL-terminated) may
 * be NULL.  Returns NULL with errno = ENOMEM.
 */
struct rpt_syms *rpt_syms_new(struct fmt_reader *r, const char *symfs, const char *const *debug_dirs);
void rpt_syms_free(struct rpt_syms *s);

/* Add /proc/kallsyms-style text ("ADDR TYPE NAME [MODULE]" lines). Returns 0 or -ENOMEM. */
int rpt_syms_add_kallsyms(struct rpt_syms *s, const char *text, size_t len);
/*
 * Add process maps: trace-cmd's PROCMAPS text ("PID NLIBS COMM" in hex,
 * then "START END PATH" lines) or flytrap's ("== PID COMM" then
 * /proc/PID/maps lines).  Returns 0 or -ENOMEM; malformed lines are skipped.
 */
int rpt_syms_add_maps(struct rpt_syms *s, const char *text, size_t len);

/* Add build-ids: "PATH HEX-BUILD-ID" lines (FMT_OPT_FT_BUILDIDS). Returns 0 or -ENOMEM. */
int rpt_syms_add_buildids(struct rpt_syms *s, const char *text, size_t len);

/* Function containing a kernel address, NULL if none; *off = addr - start. */
const char *rpt_syms_kernel(struct rpt_syms *s, uint64_t addr, uint64_t *off);

/*
 * Function containing addr in process tgid: its name, or NULL when the
 * mapping or the binary's symbols are unknown.  *dso (may be NULL) gets the
 * base name of the mapped file, or NULL when no mapping covers addr.
 */
const char *rpt_syms_user(struct rpt_syms *s, int tgid, uint64_t addr, const char **dso, uint64_t *off);

/*
 * Is addr inside an executable mapping of process tgid (its files and the
 * vdso)?  1 yes, 0 no, -1 when the file does not list that process's
 * executable mappings (trace-cmd's PROCMAPS names only files: unknown).
 */
int rpt_syms_user_exec(struct rpt_syms *s, int tgid, uint64_t addr);

/* Counts for messages: binaries whose symbols could not be found. */
int rpt_syms_missing(const struct rpt_syms *s, char *buf, size_t len);

#endif
