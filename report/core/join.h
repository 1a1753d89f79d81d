/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine of flytrap merge (share/merge.c is the command): files that
 * one trace.dat can hold, joined into one.  rpt_join_segments() uses it
 * for the segments of one rotation given to any reading command.
 */
#ifndef FLYTRAP_REPORT_JOIN_H
#define FLYTRAP_REPORT_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"

struct rpt_enc;
struct rpt_merge_last;

/* One input file: what the command sets, then what the merge found and wrote. */
struct rpt_merge_src {
	const char *path;
	const char *name;		/* buffer name (separate recordings) */
	char *name_alloc;
	int64_t user_offset;
	bool has_user_offset;
	struct fmt_reader *r;
	const struct fmt_info *in;
	char trace_id[40];
	char mode[16];			/* recording_mode of its metadata, "" if none */
	long seq;			/* rotation segment or flight dump number, -1 */
	int64_t shift;			/* added to every raw time stamp */
	int *out_buf;			/* its buffer i -> output buffer index */
	uint64_t events, dups, losses;
	uint64_t first_ts, last_ts;	/* as report prints them, after the shift */
};

/* A merge: the command fills s, n, out_path (and json, its own); the rest is the engine's. */
struct rpt_merge {
	struct rpt_merge_src *s;
	int n;
	const char *out_path;
	bool json;
	bool join;			/* positional files of a command: one rotation, no holes */
	bool one_recording;
	int maxcpu;
	int nout;			/* output buffers */
	char **out_name;
	const char **out_clock;
	struct fmt_wbuf **wb;
	struct rpt_enc *enc;		/* nout × (maxcpu + 1) */
	struct rpt_merge_last *last;
	int64_t *carried;		/* loss markers of dropped duplicates */
	uint64_t written;
};

/*
 * Open the inputs (m->s[i].path, m->n, m->out_path) and decide how they
 * join; 0 or an exit code after the message.
 */
int rpt_merge_open(struct rpt_merge *m);
/* Align, plan the buffers and write m->out_path; 0 or an exit code after the message. */
int rpt_merge_write(struct rpt_merge *m);
/* Everything m holds, s included (freeing s itself). */
void rpt_merge_release(struct rpt_merge *m);

/*
 * Design decision 8: several files given to a command are the segments of
 * one rotation (or the dumps of one flight recorder), read as one
 * recording.  Joins them (join.c) into a temporary file under $TMPDIR
 * (*tmp_path, malloc'd; the caller removes it, best right after opening
 * it).  0, or an exit code after the message: 2 when the files are not the
 * consecutive segments of one recording.
 */
int rpt_join_segments(char *const *paths, int n, char **tmp_path);

#endif
