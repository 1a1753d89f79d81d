/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What slice and redact share: the metadata copy from a reader to a writer
 * and the saved cmdlines cut to the kept tasks.  The writer, its options
 * copy and the page encoding are core/writer.h (merge's engine, core/join.c,
 * writes through them too).
 */
#ifndef FLYTRAP_REPORT_SHARE_H
#define FLYTRAP_REPORT_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "report/core/writer.h"
#include "report/out/outfile.h"

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

/* Lines "pid comm" of a saved-cmdlines text whose pid keep() accepts (malloc'd). */
char *rpt_cmdlines_filter(const char *text, size_t len, bool (*keep)(void *arg, int pid), void *arg,
			  size_t *out_len);

#endif
