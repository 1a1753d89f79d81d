/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stack ids of a record --bpf-object program, joined to the stacks of its
 * STACK_TRACE maps (docs/bpf.md, "Your own program"): what a hash map of
 * counts keyed by stack ids (libbpf-tools' profile, offcputime) and ring
 * buffer records carrying stack ids hold, read from the file's object and
 * map options.  The last snapshot of each map is used.  callgraph turns
 * them into its bpf-stacks tree; nothing here prints.
 */
#ifndef FLYTRAP_BPFSTACKS_H
#define FLYTRAP_BPFSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fmt_reader;
struct rpt_bpfstk;

#define RPT_BPFSTK_IDS 4	/* stack id fields of one key or record that are read */
/* an id field's name: user_stack_id / ustack_id, kern_stack_id / kstack_id, or stack_id */
enum { RPT_BPFSTK_ANY, RPT_BPFSTK_USER, RPT_BPFSTK_KERNEL };

/* One counted key of a map source, or one ring buffer record. */
struct rpt_bpfstk_sample {
	int pid, tgid;		/* -1: not in the key */
	char comm[16];		/* "": not in the key */
	int nids;
	int64_t ids[RPT_BPFSTK_IDS];	/* negative: the kernel's -errno, no stack collected */
	int maps[RPT_BPFSTK_IDS];	/* the stack map each id is looked up in (-1: none) */
	int side[RPT_BPFSTK_IDS];	/* what the id's name says: RPT_BPFSTK_* */
	uint64_t weight;
};

/* A source of stack ids: a counts map, or the records of a ring or perf buffer. */
struct rpt_bpfstk_src {
	char *name;		/* "OBJECT/MAP" */
	bool ring;		/* records (event flytrap:event), else a map's last snapshot */
	char *event;		/* ring: the event's name */
	uint64_t ts;		/* map: when the snapshot was read (trace clock) */
	uint32_t why;		/* map: FMT_BPFMAP_WHY() of the snapshot */
	bool truncated;		/* map: the snapshot stopped at the read's bound */
	int obj;		/* index of its object (for the stack maps) */
};

/*
 * The sources and stack maps of r's user objects.  Options that do not
 * parse are left out; rpt_bpfstk_damage() says why.
 * Returns a new set (free with rpt_bpfstk_free), an empty one when the file
 * has no user objects, or NULL with errno ENOMEM.
 */
struct rpt_bpfstk *rpt_bpfstk_new(struct fmt_reader *r);
void rpt_bpfstk_free(struct rpt_bpfstk *s);
/* Why the first damaged object or map option was left out (static text), NULL: none was. */
const char *rpt_bpfstk_damage(const struct rpt_bpfstk *s);

/* Sources, in order: counts maps first, then ring buffers, each in option order. */
int rpt_bpfstk_nsources(const struct rpt_bpfstk *s);
const struct rpt_bpfstk_src *rpt_bpfstk_source(const struct rpt_bpfstk *s, int k);
/*
 * The source named name ("OBJECT/MAP", or "MAP" when one object has it):
 * its index, -1 none, -2 several (ambiguous).
 */
int rpt_bpfstk_find(const struct rpt_bpfstk *s, const char *name);
/* The ring source whose records are the event named event ("OBJ_MAP"), or -1. */
int rpt_bpfstk_find_event(const struct rpt_bpfstk *s, const char *event);

/*
 * Whether a field or key member named name holds a stack id: it contains
 * "stack" and ends in "id" (kern_stack_id, user_stack_id, stack_id).
 */
bool rpt_bpfstk_is_id_name(const char *name, size_t len);
/* RPT_BPFSTK_USER for a name with "user" or a leading 'u', _KERNEL "kern" or 'k', else _ANY */
int rpt_bpfstk_side(const char *name, size_t len);
/*
 * The stack map of source k that the id field named field refers to: the
 * object's only STACK_TRACE map; with several, the one whose name starts
 * with the field's first letter (kern_stack_id: kstacks) when only one
 * does, else the first.  -1 when the object has none.
 */
int rpt_bpfstk_map_for(const struct rpt_bpfstk *s, int k, const char *field, size_t len);
/* The name ("OBJECT/MAP") of stack map m. */
const char *rpt_bpfstk_map_name(const struct rpt_bpfstk *s, int m);
/*
 * The addresses of stack id in stack map m's last snapshot, innermost
 * first: 1 with *addrs (owned by s) and *n, 0 when the snapshot has no such
 * id.
 */
int rpt_bpfstk_stack(const struct rpt_bpfstk *s, int m, int64_t id, const uint64_t **addrs,
		     int *n);
/* Every address of every stack map's last snapshot handed to fn (slice keeps their symbols). */
void rpt_bpfstk_each_addr(const struct rpt_bpfstk *s, void (*fn)(void *arg, uint64_t addr),
			  void *arg);

/*
 * Each entry of map source k's snapshot handed to fn, its key read into a
 * sample (ids, pid, tgid, comm) and its value as the weight: an integer (a
 * per-CPU value's sum), or a struct's first integer member.  Entries whose
 * value has no count are counted in *skipped, not handed.  fn returns 0 or
 * a negative errno that ends the walk.  0, fn's error, or -EINVAL for a
 * ring source.
 */
typedef int (*rpt_bpfstk_fn)(void *arg, const struct rpt_bpfstk_sample *smp);
int rpt_bpfstk_samples(const struct rpt_bpfstk *s, int k, rpt_bpfstk_fn fn, void *arg,
		       uint64_t *skipped);

#endif
