/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing a trace.dat from the records of others (slice, redact, merge and
 * the join of rotation segments): the writer with its temporary and spool
 * files removed on a signal (out/outfile.h), the options copy, the page
 * re-encoding of kept records, and the end of the write.
 */
#ifndef FLYTRAP_REPORT_WRITER_H
#define FLYTRAP_REPORT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

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

/*
 * Queue every option of r's file on w except those holding offsets into
 * it (sections, buffers, the chain: the writer makes its own) and those
 * skip() (may be NULL) returns true for; sections that flytrap options
 * point at are copied and the pointers rewritten.  *have_cpucount tells
 * whether a CPUCOUNT was copied.  Returns 0 or -errno (writer's message).
 */
int rpt_copy_options(struct fmt_reader *r, struct fmt_writer *w,
		     bool (*skip)(void *arg, const struct fmt_option *o), void *arg,
		     bool *have_cpucount);

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

#endif
