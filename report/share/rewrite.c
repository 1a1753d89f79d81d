// SPDX-License-Identifier: GPL-2.0-only
/*
 * What slice and redact share when they write a new trace.dat from an old
 * one (the writer itself is core/writer.c); see rewrite.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/share/convert.h"
#include "report/out/outfile.h"
#include "report/share/rewrite.h"

struct fmtcopy {
	struct fmt_writer *w;
};

static int format_cb(void *arg, const char *system, const char *text, size_t len)
{
	struct fmtcopy *fc = arg;

	if (!strcmp(system, "ftrace"))
		return fmt_writer_ftrace_format(fc->w, text, len);
	return fmt_writer_event_format(fc->w, system, text, len);
}

int rpt_copy_meta(struct fmt_reader *r, struct fmt_writer *w, struct rpt_meta_copy *m,
		  const char **what)
{
	const struct fmt_info *in = fmt_reader_info(r);
	struct fmtcopy fc = { w };
	int err;

	*what = "headers";
	err = fmt_writer_headers(w, in->header_page.data, in->header_page.len,
				 in->header_event.data, in->header_event.len);
	if (!err) {
		*what = "event formats";
		err = fmt_reader_formats(r, format_cb, &fc);
	}
	if (!err && !m->no_kallsyms) {
		*what = "kallsyms";
		err = m->kallsyms ? fmt_writer_kallsyms(w, m->kallsyms, m->kallsyms_len)
				  : fmt_writer_kallsyms(w, in->kallsyms.data, in->kallsyms.len);
	}
	if (!err) {
		*what = "printk formats";
		err = m->printk ? fmt_writer_printk(w, m->printk, m->printk_len)
				: fmt_writer_printk(w, in->printk.data, in->printk.len);
	}
	if (!err && !m->no_cmdlines) {
		*what = "cmdlines";
		err = m->cmdlines ? fmt_writer_cmdlines(w, m->cmdlines, m->cmdlines_len)
				  : fmt_writer_cmdlines(w, in->cmdlines.data, in->cmdlines.len);
	}
	if (!err) {
		*what = "options";
		err = rpt_copy_options(r, w, m->skip, m->arg, &m->have_cpucount);
	}
	return err;
}

char *rpt_cmdlines_filter(const char *text, size_t len, bool (*keep)(void *arg, int pid), void *arg,
			  size_t *out_len)
{
	char *out = malloc(len + 1);
	const char *p = text, *end = text + len;
	size_t o = 0;

	if (!out)
		return NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char *q;
		long pid = strtol(p, &q, 10);

		if (q > p && q <= le && keep(arg, (int)pid)) {
			memcpy(out + o, p, (size_t)(le - p));
			o += (size_t)(le - p);
			out[o++] = '\n';
		}
		p = nl ? nl + 1 : NULL;
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}
