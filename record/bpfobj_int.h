/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to record/bpfobj*.c: BTF-typed JSON of map entries and the
 * reading of a map into a snapshot (bpfobj_json.c).
 */
#ifndef FLYTRAP_RECORD_BPFOBJ_INT_H
#define FLYTRAP_RECORD_BPFOBJ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct bpf_map;

/* A growing text; oom set once an allocation failed (the text is then incomplete). */
struct jbuf {
	char *p;
	size_t len, cap;
	bool oom;
};
void jb_put(struct jbuf *j, const char *s, size_t n);
void jb_printf(struct jbuf *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jb_release(struct jbuf *j);

/* JSON of size bytes at data typed by BTF type id (0: an array of hex bytes, as bpftool). */
void rec_btf_json(const struct btf *btf, uint32_t id, const void *data, size_t size,
		  struct jbuf *j);
/* Whether id resolves (typedefs, qualifiers) to a plain integer of at most 8 bytes. */
bool rec_btf_is_int(const struct btf *btf, uint32_t id, bool *is_signed);

/* One map read: "KEY\tVALUE\n" lines (struct fmt_bpfmap_hdr's text). */
struct rec_snap {
	uint64_t ts;
	char *name;		/* "OBJECT/MAP" */
	uint32_t nentries, flags;
	struct jbuf text;
};

/* Bounds of one map read (the man page states them). */
#define REC_SNAP_MAX_BYTES (64u << 20)
#define REC_SNAP_MAX_NS 2000000000ull

/*
 * Read every entry of map (hash, array, per-CPU, LRU, stack trace) into s,
 * in batches where the kernel allows, stopping at the bounds above (flag
 * FMT_BPFMAP_TRUNCATED).  Returns 0, -EOPNOTSUPP for a map type that is
 * not data, or -errno.
 */
int rec_snap_read(struct bpf_map *map, const struct btf *btf, int ncpus, struct rec_snap *s);

#endif
