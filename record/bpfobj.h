/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/bpfobj.h: the user's own BPF objects (record --bpf-object), run
 * on the machinery of record/bpf.c: same ring buffer poll, same buffer
 * "flytrap-bpf", same clock, same loss records (docs/bpf.md, "Your own
 * program").
 *
 *	rec_bpfobj_check_*()		while parsing the command line
 *	rec_bpfobj_attach(b, &opts)	after rec_bpf_open(): open, set .rodata,
 *					load, attach; registers its hooks with b,
 *					which then owns it (rec_bpf_close frees it)
 */
#ifndef FLYTRAP_RECORD_BPFOBJ_H
#define FLYTRAP_RECORD_BPFOBJ_H

#include <stdbool.h>
#include <stdint.h>

struct rec_bpf;

struct rec_bpfobj_opts {
	const char *const *paths;	/* --bpf-object FILE.bpf.o */
	int npaths;
	const char *const *sets;	/* --bpf-set [OBJ:]NAME=VALUE (.rodata, .data) */
	int nsets;
	const char *const *attach;	/* --bpf-attach PROG=BINARY:FUNC (bare uprobe sections) */
	int nattach;
	const char *const *records;	/* --bpf-record MAP=STRUCT (ring buffer record layout) */
	int nrecords;
	unsigned perf_hz;		/* --bpf-perf-hz: perf_event cpu-clock Hz (0 = 99) */
	uint64_t snapshot_ns;		/* --bpf-snapshot: maps this often (0: end, dumps) */
	int verbose;
};

/* Usage checks of one option value; 0, or -EINVAL with *err a malloc'd message. */
int rec_bpfobj_check_object(const char *path, char **err);
int rec_bpfobj_check_set(const char *arg, char **err);
int rec_bpfobj_check_attach(const char *arg, char **err);
int rec_bpfobj_check_record(const char *arg, char **err);

/*
 * Open, configure, load and attach every object.  Returns 0; or -EINVAL
 * for the user's mistake (a --bpf-set name no object has, a program that
 * cannot be attached as named), or another -errno, with *err a malloc'd
 * message (caller frees; for a verifier refusal several lines: the reason,
 * the last instructions, the name of the file with the whole log).
 * Nothing stays loaded or attached on failure.
 */
int rec_bpfobj_attach(struct rec_bpf *b, const struct rec_bpfobj_opts *o, char **err);

#endif
