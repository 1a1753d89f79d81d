/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to record/bpf*.c: process and binary capture (bpf_syms.c) used
 * by the BPF recorder (bpf.c).  Not part of the recorder's API.
 */
#ifndef FLYTRAP_RECORD_BPF_INT_H
#define FLYTRAP_RECORD_BPF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fmt_writer;
struct rec_syms;

/* Table of processes and binaries seen.  NULL on ENOMEM. */
struct rec_syms *rec_syms_new(bool symbols);
void rec_syms_free(struct rec_syms *s);

/*
 * A record of process tgid was seen: on first sight read its executable
 * mappings from /proc, and the build-id (and with symbols the symbol
 * table) of each binary not seen before.  Cheap on later calls.
 */
void rec_syms_note_pid(struct rec_syms *s, int tgid, uint64_t now_mono_ns);

/*
 * One executable mapping of process tgid reported by the kernel as it
 * exited (exitmaps.bpf.c; until 0), or before an exec at until (mono ns):
 * then a mapping of the image it ran until that exec, kept apart from its
 * last one and written as an "=< PID UNTIL COMM" block; the mappings of
 * its last one read before until are then dropped.  at: the record's stamp
 * (mono ns); off in bytes, flags r1 w2 x4 s8.
 */
void rec_syms_add_vma(struct rec_syms *s, int tgid, const char *comm, uint64_t at,
		      uint64_t start, uint64_t end, uint64_t off, unsigned long maj,
		      unsigned long min, unsigned long ino, unsigned flags, const char *path,
		      uint64_t until);

/* Re-read the maps of every process seen that still lives (at the end). */
void rec_syms_refresh(struct rec_syms *s);

/* Make sure binary path is in the table (ufunc targets), whoever maps it. */
int rec_syms_note_binary(struct rec_syms *s, const char *path);

/* Counters: processes captured, processes that were gone before their maps could be read. */
void rec_syms_counts(const struct rec_syms *s, uint64_t *captured, uint64_t *gone, uint64_t *binaries);
/* --symbols: binaries stored with their CFI, its bytes, binaries past the bound without */
void rec_syms_cfi_counts(const struct rec_syms *s, uint64_t *binaries, uint64_t *bytes,
			 uint64_t *left_out);

/*
 * Queue FMT_OPT_PROCMAPS (leaving out skip_pids: the recorder writes those
 * itself), FMT_OPT_FT_BUILDIDS, the FMT_SEC_FT_PROCMAPS
 * section + FMT_OPT_FT_PROCMAPS, and with symbols FMT_SEC_FT_SYMTAB +
 * FMT_OPT_FT_SYMTAB.  Returns 0 or -errno (message in err).
 */
int rec_syms_write(struct rec_syms *s, struct fmt_writer *w, const pid_t *skip_pids, int nskip,
		   char *err, size_t errlen);

/* A function of a binary matched by a ufunc glob. */
struct rec_ufunc_sym {
	char *name;		/* malloc'd */
	uint64_t addr;		/* st_value */
	uint64_t offset;	/* file offset (what uprobes attach to) */
};

/*
 * Every defined function symbol of path matching glob (fnmatch), deduped
 * by address.  *out is a malloc'd array (free names and array with
 * rec_ufunc_syms_free).  Returns the count (>= 0) or -errno with err set.
 */
int rec_ufunc_match(const char *path, const char *glob, struct rec_ufunc_sym **out,
		    char *err, size_t errlen);
void rec_ufunc_syms_free(struct rec_ufunc_sym *v, int n);

#endif
