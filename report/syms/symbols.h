/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbols for call graphs, from what the file carries and, for user code,
 * from ELF files found by path or build-id, read with elfutils (libdwfl):
 *
 *  - kernel: the file's kallsyms (function names for addresses);
 *  - user: per-process mappings (flytrap's FMT_SEC_FT_PROCMAPS section with
 *    file offsets, else trace-cmd's PROCMAPS option), build-ids
 *    (FMT_OPT_FT_BUILDIDS), the symbol tables stored by `record --symbols`
 *    (FMT_SEC_FT_SYMTAB), then ELF files under --symfs DIR, debug
 *    the mapped path itself when its build-id matches (or none was
 *    recorded), then debug directories (DIR/.build-id/xx/yyyy.debug,
 *    /usr/lib/debug by default).  For a stripped binary elfutils finds the
 *    debug file by build-id or .gnu_debuglink in the same directories,
 *    reads MiniDebugInfo (.gnu_debugdata), and asks debuginfod when
 *    DEBUGINFOD_URLS is set; a shared library without any of them still
 *    names its .dynsym functions with their versions
 *    ("clock_nanosleep@GLIBC_2.2.5"), and PLT stubs are "foo@plt".
 *  - C++ and Rust names are demangled (libiberty): "ns::Klass::method(int)".
 *  - functions inlined at a user address: from the DWARF of the binary or
 *    of its debug file (libdw scopes), as perf --inline shows them.
 *
 * Binaries are read lazily, at the first address that needs them.  Names
 * returned are owned by the rpt_syms and live until rpt_syms_free().
 */
#ifndef FLYTRAP_SYMBOLS_H
#define FLYTRAP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

struct rpt_syms;

/* rpt_syms_new flags: no debuginfod queries even with DEBUGINFOD_URLS set (--no-debuginfod) */
#define RPT_SYMS_NO_DEBUGINFOD 1u
/*
 * ... and no warning at the time a binary is read (the ranges of an
 * analysis: each reads what it meets); rpt_syms_warn() says them once
 */
#define RPT_SYMS_QUIET 2u

/*
 * Everything from the file r (may be NULL for tests: then only what the
 * rpt_syms_add_* calls give).  symfs and debug_dirs (NULL-terminated) may
 * be NULL.  debuginfod: DEBUGINFOD_TIMEOUT seconds per binary (5 when
 * unset); with RPT_SYMS_NO_DEBUGINFOD, or an empty DEBUGINFOD_URLS, this
 * unsets DEBUGINFOD_URLS in the process (libdwfl reads it there).
 * Returns NULL with errno = ENOMEM.
 */
struct rpt_syms *rpt_syms_new(struct fmt_reader *r, const char *symfs,
			      const char *const *debug_dirs, unsigned flags);
void rpt_syms_free(struct rpt_syms *s);

/* Add /proc/kallsyms-style text ("ADDR TYPE NAME [MODULE]" lines). Returns 0 or -ENOMEM. */
int rpt_syms_add_kallsyms(struct rpt_syms *s, const char *text, size_t len);
/*
 * Add process maps: trace-cmd's PROCMAPS text ("PID NLIBS COMM" in hex,
 * then "START END PATH" lines) or flytrap's ("== PID COMM" then
 * /proc/PID/maps lines; before those, "=< PID UNTIL COMM" blocks of the
 * images processes ran until an exec).  Returns 0 or -ENOMEM; malformed
 * lines are skipped.
 */
int rpt_syms_add_maps(struct rpt_syms *s, const char *text, size_t len);

/*
 * The process whose maps name an address of tgid at stamp ts (the raw
 * stamp, mono ns): the key of the earlier image tgid ran then when the file
 * stores one (an "=< PID UNTIL COMM" block: the mappings before an exec at
 * UNTIL; the earliest whose UNTIL is after ts), else tgid itself.  The key
 * goes wherever a tgid does (rpt_syms_user(), rpt_syms_user_map()...).
 */
int rpt_syms_image_at(const struct rpt_syms *s, int tgid, uint64_t ts);

/* Add build-ids: "PATH HEX-BUILD-ID" lines (FMT_OPT_FT_BUILDIDS). Returns 0 or -ENOMEM. */
int rpt_syms_add_buildids(struct rpt_syms *s, const char *text, size_t len);

/* Function containing a kernel address, NULL if none; *off = addr - start. */
const char *rpt_syms_kernel(struct rpt_syms *s, uint64_t addr, uint64_t *off);

/*
 * Function containing addr in process tgid: its name, or NULL when the
 * mapping or the binary's symbols are unknown.  *dso (may be NULL) gets the
 * base name of the mapped file, or NULL when no mapping covers addr.
 */
const char *rpt_syms_user(struct rpt_syms *s, int tgid, uint64_t addr, const char **dso,
			  uint64_t *off);

/* the most inlined functions rpt_syms_user_inline() gives for one address */
#define RPT_SYMS_MAX_INLINE 32

/*
 * The functions inlined at addr in process tgid, from the DWARF of its
 * binary (or the binary's debug file: --debug-dir, /usr/lib/debug,
 * debuginfod): names[0] is the outermost, inlined into the function
 * rpt_syms_user() names, names[n-1] the innermost, whose code holds addr;
 * at most max (a longer chain keeps its outer end).  Returns n: 0 when addr
 * is in no inlined code or the binary has no DWARF.  Answers are cached
 * per (binary, address); names are owned by s.
 */
int rpt_syms_user_inline(struct rpt_syms *s, int tgid, uint64_t addr, const char **names,
			 int max);

/*
 * Is addr inside an executable mapping of process tgid (its files and the
 * vdso)?  1 yes, 0 no, -1 when the file does not list that process's
 * executable mappings (trace-cmd's PROCMAPS names only files: unknown).
 */
int rpt_syms_user_exec(struct rpt_syms *s, int tgid, uint64_t addr);

/* One executable file mapping of a process, for the unwinder (report/syms/unwind.c). */
struct rpt_syms_umap {
	uint64_t start, end;	/* the mapping */
	uint64_t bias;		/* run-time address - the binary's own address */
	const char *path;	/* as recorded */
	const char *file;	/* the ELF file read on this machine; NULL: none (bias 0) */
	/*
	 * file NULL: the CFI record --symbols stored, as an ELF file (owned by
	 * the symbols: dup it to keep it), with bias set; else -1
	 */
	int fd;
};

/*
 * The k-th (0...) executable file mapping of tgid, by address (the binary
 * is read now if it was not yet): 0 and *out filled (strings owned by s),
 * or -1 past the last.
 */
int rpt_syms_user_map(struct rpt_syms *s, int tgid, int k, struct rpt_syms_umap *out);

/*
 * Counts for messages: binaries an address needed whose functions could not
 * be named (not found, or no function symbols); their paths, ", "-separated,
 * go into buf (cut at len).
 */
int rpt_syms_missing(const struct rpt_syms *s, char *buf, size_t len);

/* One binary an address needed, and which source named its functions. */
struct rpt_syms_bin {
	const char *path;
	const char *buildid;	/* hex, or NULL when none was recorded */
	/* "symtab", "dynsym", "minidebuginfo", "debug file", "debuginfod", "recorded" or "none" */
	const char *source;
	int nsyms;		/* functions known */
	bool timed_out;		/* debuginfod gave up at DEBUGINFOD_TIMEOUT */
};

/* The k-th binary (0...) an address needed: 0 and *out filled (pointers owned by s), or -1. */
int rpt_syms_binary(const struct rpt_syms *s, int k, struct rpt_syms_bin *out);

/*
 * The binaries src looked up that dst has not, looked up in dst too (each
 * loaded as a lookup would: rpt_syms_missing() and rpt_syms_binary() then
 * answer for both).  dst and src are tables of one file.
 */
void rpt_syms_take_tried(struct rpt_syms *dst, const struct rpt_syms *src);
/* The warnings an RPT_SYMS_QUIET table kept: one per binary debuginfod timed out on. */
void rpt_syms_warn(const struct rpt_syms *s);
/* Whether debuginfod may be asked (DEBUGINFOD_URLS set, not turned off, not the static build). */
bool rpt_syms_debuginfod(const struct rpt_syms *s);


#endif
