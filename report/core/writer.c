// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing a trace.dat from records of another: the writer with its
 * temporary files registered for removal on a signal, the options copy, the
 * page re-encoding and the end of the write; see writer.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "report/core/writer.h"
#include "report/out/outfile.h"

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

/*
 * Options flytrap rebuilds itself (they hold offsets into the old file, or,
 * the writer's checksums, digest, time index and its facts and state
 * records, describe the old bytes: a writer that builds none of its own
 * must not leave the old ones pointing into the new file).
 */
static bool rebuilt_option(uint16_t id)
{
	switch (id) {
	case FMT_OPT_FT_CHECKSUMS:
	case FMT_OPT_FT_DIGEST:
	case FMT_OPT_FT_TIMEINDEX:
	case FMT_OPT_FT_FACTS:
	case FMT_OPT_FT_STATE:
	case FMT_OPT_DONE:
	case FMT_OPT_BUFFER:
	case FMT_OPT_STRINGS:
	case FMT_OPT_HEADER_INFO:
	case FMT_OPT_FTRACE_EVENTS:
	case FMT_OPT_EVENT_FORMATS:
	case FMT_OPT_KALLSYMS:
	case FMT_OPT_PRINTK:
	case FMT_OPT_CMDLINES:
	case FMT_OPT_BUFFER_TEXT:
		return true;
	default:
		return false;
	}
}

/* Section ID an option points at, for the pointer options flytrap knows. */
static int pointed_section(uint16_t id)
{
	if (id == FMT_OPT_FT_SYMTAB)
		return FMT_SEC_FT_SYMTAB;
	if (id == FMT_OPT_FT_PROCMAPS)
		return FMT_SEC_FT_PROCMAPS;
	return -1;
}

int rpt_copy_options(struct fmt_reader *r, struct fmt_writer *w,
		     bool (*skip)(void *arg, const struct fmt_option *o), void *arg,
		     bool *have_cpucount)
{
	const struct fmt_info *in = fmt_reader_info(r);
	int i, err = 0;

	for (i = 0; i < in->noptions && !err; i++) {
		const struct fmt_option *o = &in->options[i];
		int sec = pointed_section(o->id);
		uint8_t ptr[8];

		if (rebuilt_option(o->id) || (skip && skip(arg, o)))
			continue;
		/*
		 * An option that holds the offset of a section in the old file
		 * (flytrap's, or a newer trace-cmd's that names a section of its
		 * own ID) gets the section copied and the offset rewritten.
		 * Anything else is copied verbatim.
		 */
		if (o->size == 8 && in->version >= 7) {
			uint64_t off = 0, noff;
			void *data = NULL;
			size_t len = 0;
			int k, e;

			for (k = 0; k < 8; k++)
				off |= (uint64_t)((const uint8_t *)o->data)
						[in->big_endian ? 7 - k : k] << (8 * k);
			if (sec < 0 && o->id > FMT_OPT_BUFFER_TEXT && o->id < FMT_OPT_FT_BASE)
				sec = o->id;
			e = sec >= 0 && off ?
				fmt_reader_section(r, off, (uint16_t)sec, &data, &len) :
				-ENOENT;
			if (!e) {
				err = fmt_writer_section(w, (uint16_t)sec, NULL, data, len,
							 &noff);
				free(data);
				if (err)
					break;
				for (k = 0; k < 8; k++)
					ptr[in->big_endian ? 7 - k : k] =
						(uint8_t)(noff >> (8 * k));
				err = fmt_writer_option(w, o->id, ptr, 8);
				continue;
			}
			if (sec >= 0 && pointed_section(o->id) >= 0) {
				ft_warn("option %#x points at a missing section; left out", o->id);
				continue;
			}
		}
		if (o->id == FMT_OPT_CPUCOUNT)
			*have_cpucount = true;
		/*
		 * trace-cmd 2.x wrote an empty TRACECLOCK option in v6 files
		 * (it only announces the clock block after the CPU table).
		 * Copied into v7, where no block follows, trace-cmd 3.1.6 would
		 * parse whatever its empty buffer holds; write the clock the
		 * block named instead.
		 */
		if (o->id == FMT_OPT_TRACECLOCK && o->size == 0 && in->clock && *in->clock) {
			char text[128];

			snprintf(text, sizeof(text), "[%s]\n", in->clock);
			err = fmt_writer_option_str(w, o->id, text);
			continue;
		}
		err = fmt_writer_option(w, o->id, o->data, o->size);
	}
	return err;
}
