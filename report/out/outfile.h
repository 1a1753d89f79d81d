/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Outputs written as every output is: under a temporary name beside the
 * destination, renamed into place when whole, and removed (with a trace
 * writer's spool files) when SIGINT, SIGTERM or SIGHUP kills the writer.
 */
#ifndef FLYTRAP_REPORT_OUTFILE_H
#define FLYTRAP_REPORT_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "format.h"

/*
 * Create an empty file next to out under a name nobody else has
 * (".NAME.XXXXXX", O_EXCL, mode 0600); *tmp is malloc'd.  0 or -errno.
 */
int rpt_out_begin(const char *out, char **tmp);
/* Rename tmp over out (0 or -errno, tmp removed on failure); frees tmp. */
int rpt_out_commit(char *tmp, const char *out);
/* Remove tmp and free it. */
void rpt_out_abort(char *tmp);

/*
 * Writers killed by SIGINT, SIGTERM or SIGHUP leave no temporary file: the
 * names registered here are removed by a handler that then re-raises the
 * signal (installed at the first registration; an ignored signal stays
 * ignored).  rpt_out_begin(), rpt_writer_open() and rpt_text_out_begin()
 * register what they create; rpt_out_commit/abort(), rpt_writer_close/
 * abort() and rpt_text_out_end() forget it.  rpt_clean_add: 0, or -errno
 * when the name is too long or every slot is taken (then not removed).
 */
int rpt_clean_add(const char *path);
void rpt_clean_forget(const char *path);
/*
 * Install the handler (once) and block its signals in this thread, the old
 * mask in *old: a file created and registered before the mask is restored
 * (pthread_sigmask(SIG_SETMASK, old, NULL)) is never left behind.
 */
void rpt_clean_hold(sigset_t *old);
/* A writer's on_spool hook (fmt_writer_opts): its spool files are removed with it. */
void rpt_clean_spool(void *arg, const char *spool);

/*
 * A text output (export's JSON or HTML, an SVG) written as every output
 * is: under a temporary name beside dest (fmt_outfile), renamed over dest
 * by rpt_text_out_end(f, of, true) when whole; with ok false, or when the
 * flush fails, the temporary file is removed.  rpt_text_out_begin: the
 * stream, or NULL with errno set (a directory, FIFO or device: EISDIR,
 * EINVAL).  rpt_text_out_end: 0 or -errno.
 */
FILE *rpt_text_out_begin(const char *dest, struct fmt_outfile *of);
int rpt_text_out_end(FILE *f, struct fmt_outfile *of, bool ok);

/*
 * Can path be written (an --svg FILE, checked before a long replay)?  An
 * existing path must be a writable regular file, a new one needs a
 * writable directory; nothing is created.  EXIT_OK, or the exit code after
 * the one-line message (a usage error for a path fmt_outfile refuses).
 */
int rpt_svg_dest_check(const char *path);

#endif
