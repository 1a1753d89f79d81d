/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What slice, redact and merge share: the writer opened with its temporary
 * files removed on a signal (out/outfile.h), the metadata copy from a reader
 * to a writer, and the page re-encoding of kept records.
 */
#ifndef FLYTRAP_REPORT_SHARE_H
#define FLYTRAP_REPORT_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "report/out/outfile.h"

/*
 * fmt_writer_open/close/abort with the writer's temporary file and spool
 * files registered: a writer opened so is closed or aborted so.  A
 * temporary file the close keeps (keep_temp) stays registered until
 * rpt_out_commit() or rpt_out_abort() of its name.
 */
int rpt_writer_open(const char *path, const struct fmt_writer_opts *opts, struct fmt_writer **w);
int rpt_writer_close(struct fmt_writer *w);
void rpt_writer_abort(struct fmt_writer *w);

/*
 * The end of writing OUT through tmp: close the writer and rename tmp into
 * place (0), or say why and remove tmp (-ECANCELED).  rpt_out_fail(): say
 * what failed (the writer's message, else err), abort the writer, remove
 * tmp; -ECANCELED.  tmp NULL: the writer was opened on out itself (its own
 * temporary file, which its close renames over out).
 */
int rpt_out_finish(struct fmt_writer *w, char *tmp, const char *out);
int rpt_out_fail(struct fmt_writer *w, char *tmp, const char *out, const char *what, int err);

/* Writer options that keep r's byte order, long size and page size. */
void rpt_writer_opts_like(const struct fmt_info *in, struct fmt_writer_opts *wo);

struct rpt_meta_copy {
	bool no_kallsyms;	/* leave them out (the caller writes them later) */
	const char *kallsyms;	/* NULL: the file's */
	size_t kallsyms_len;
	bool no_cmdlines;	/* leave them out (the caller writes them later) */
	const char *cmdlines;	/* NULL: the file's */
	size_t cmdlines_len;
	const char *printk;	/* NULL: the file's */
	size_t printk_len;
	/* options to leave out (or replace: queue them yourself); NULL keeps all */
	bool (*skip)(void *arg, const struct fmt_option *o);
	void *arg;
	bool have_cpucount;	/* out: a CPUCOUNT was copied */
};

/*
 * Header texts, event formats, kallsyms, printk, cmdlines and options of r
 * onto w (see rpt_copy_options).  0 or -errno; *what names the part.
 */
int rpt_copy_meta(struct fmt_reader *r, struct fmt_writer *w, struct rpt_meta_copy *m,
		  const char **what);

/* Per (buffer, CPU) page encoding of records, flushed into a writer buffer. */
struct rpt_enc {
	struct fmt_wbuf *wb;
	int cpu;
	struct fmt_page_enc pe;
	bool ready;
	int64_t pending_loss;	/* loss to mark on the next page (0, -1, n) */
	uint64_t records, pages;
};

/* Add one record (raw time stamp as stored) with the loss before it (0, -1, n). */
int rpt_enc_add(struct rpt_enc *e, const struct fmt_info *in, uint64_t raw_ts,
		const void *payload, uint32_t len, int64_t loss);
/* Write out the page being filled (if any). */
int rpt_enc_flush(struct rpt_enc *e);
void rpt_enc_release(struct rpt_enc *e);

/* Lines "pid comm" of a saved-cmdlines text whose pid keep() accepts (malloc'd). */
char *rpt_cmdlines_filter(const char *text, size_t len, bool (*keep)(void *arg, int pid), void *arg,
			  size_t *out_len);

/*
 * Design decision 8: several files given to a command are the segments of
 * one rotation (or the dumps of one flight recorder), read as one
 * recording.  Joins them (merge.c) into a temporary file under $TMPDIR
 * (*tmp_path, malloc'd; the caller removes it, best right after opening
 * it).  0, or an exit code after the message: 2 when the files are not the
 * consecutive segments of one recording.
 */
int rpt_join_segments(char *const *paths, int n, char **tmp_path);

#endif
