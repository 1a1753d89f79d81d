// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the commands that write a new trace.dat from an old one
 * (slice, redact, merge); see share.h.
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

int rpt_writer_open(const char *path, const struct fmt_writer_opts *opts, struct fmt_writer **w)
{
	struct fmt_writer_opts wo = *opts;
	sigset_t old;
	int err;

	if (!wo.on_spool)
		wo.on_spool = rpt_clean_spool;
	/* no signal between the file's creation and its registration */
	rpt_clean_hold(&old);
	err = fmt_writer_open(path, &wo, w);
	if (!err)
		rpt_clean_add(fmt_writer_temp(*w));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* the writer is gone: its temporary name is forgotten unless the file is still there (keep_temp) */
static void writer_gone(char *temp)
{
	if (temp && access(temp, F_OK))
		rpt_clean_forget(temp);
	free(temp);
}

int rpt_writer_close(struct fmt_writer *w)
{
	const char *t = fmt_writer_temp(w);
	char *temp = t ? strdup(t) : NULL;
	int err = fmt_writer_close(w);

	writer_gone(temp);
	return err;
}

void rpt_writer_abort(struct fmt_writer *w)
{
	const char *t = fmt_writer_temp(w);
	char *temp = t ? strdup(t) : NULL;

	fmt_writer_abort(w);
	writer_gone(temp);
}

void rpt_writer_opts_like(const struct fmt_info *in, struct fmt_writer_opts *wo)
{
	memset(wo, 0, sizeof(*wo));
	wo->compression = "zstd";
	wo->big_endian = in->big_endian;
	wo->long_size = in->long_size == 4 || in->long_size == 8 ? in->long_size : in->kernel_long;
	wo->page_size = in->page_size;
	wo->discard_spools_on_error = true;
}

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

static int enc_page_out(struct rpt_enc *e)
{
	const void *page;

	if (!e->ready || !e->pe.nrecords)
		return 0;
	page = fmt_page_enc_finish(&e->pe);
	e->pages++;
	return fmt_wbuf_add_page(e->wb, e->cpu, page);
}

int rpt_enc_add(struct rpt_enc *e, const struct fmt_info *in, uint64_t raw_ts,
		const void *payload, uint32_t len, int64_t loss)
{
	int err;

	if (!e->ready) {
		err = fmt_page_enc_init(&e->pe, in->page_size, in->kernel_long, in->big_endian);
		if (err)
			return err;
		e->ready = true;
	}
	if (loss) {
		/* a loss is marked on the page that starts after it */
		if ((err = enc_page_out(e)))
			return err;
		e->pending_loss = e->pending_loss < 0 || loss < 0 ? -1 : e->pending_loss + loss;
	}
	for (int tries = 0; tries < 2; tries++) {
		if (!e->pe.nrecords && e->pending_loss) {
			fmt_page_enc_set_missed(&e->pe, e->pending_loss);
			e->pending_loss = 0;
		}
		err = fmt_page_enc_add(&e->pe, raw_ts, payload, len);
		if (err != -ENOSPC && err != -EINVAL)
			break;
		/* full, or time went back (a new page may start anywhere) */
		if ((err = enc_page_out(e)))
			return err;
		err = -ENOSPC;
	}
	if (!err)
		e->records++;
	return err;
}

int rpt_enc_flush(struct rpt_enc *e)
{
	return enc_page_out(e);
}

void rpt_enc_release(struct rpt_enc *e)
{
	if (e && e->ready)
		fmt_page_enc_release(&e->pe);
	if (e)
		e->ready = false;
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

int rpt_out_finish(struct fmt_writer *w, char *tmp, const char *out)
{
	int err = rpt_writer_close(w);

	if (err) {
		ft_error("cannot write '%s': %s", out, strerror(-err));
		rpt_out_abort(tmp);
		return -ECANCELED;
	}
	err = tmp ? rpt_out_commit(tmp, out) : 0;
	if (err)
		return ft_error("cannot rename the output into '%s': %s", out, strerror(-err)),
		       -ECANCELED;
	return 0;
}

int rpt_out_fail(struct fmt_writer *w, char *tmp, const char *out, const char *what, int err)
{
	ft_error("cannot write '%s' (%s): %s", out, what,
		 fmt_writer_error(w)[0] ? fmt_writer_error(w) : strerror(-err));
	rpt_writer_abort(w);
	rpt_out_abort(tmp);
	return -ECANCELED;
}
