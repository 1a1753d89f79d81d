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
#include "report/share/rewrite.h"

/*
 * ---- temporary files removed on SIGINT, SIGTERM and SIGHUP ----
 *
 * A writer killed by a signal must not leave its hidden temporary file
 * (nor its spool files) beside the output.  The names are registered here
 * while they exist; the handler unlinks them and re-raises the signal with
 * its default action, so the exit status still says what killed us.
 * The handler may only call async-signal-safe functions: the names live
 * in fixed slots (no malloc, no locks), a slot is published by an atomic
 * state once its name is written.  A writer's spool files are named after
 * its temporary file, PREFIX.spool.B.C (format/writer.c): the slot of the
 * temporary file keeps the highest B and C seen, and the handler builds
 * those names itself.
 */
#define CLEAN_SLOTS 32

enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };

struct clean_slot {
	atomic_int state;
	atomic_int nbuf, ncpu;		/* spools PATH.spool.B.C: B < nbuf, C < ncpu */
	char path[PATH_MAX];
};

static struct clean_slot clean_slots[CLEAN_SLOTS];
static atomic_int clean_installed;
static const int clean_signals[] = { SIGINT, SIGTERM, SIGHUP };

static size_t put_uint(char *p, unsigned v)
{
	char d[12];
	size_t n = 0, k;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (k = 0; k < n; k++)
		p[k] = d[n - 1 - k];
	return n;
}

static void clean_slot_unlink(struct clean_slot *c)
{
	static const char sp[] = ".spool.";
	size_t len = strlen(c->path);
	int nb = atomic_load(&c->nbuf), nc = atomic_load(&c->ncpu);
	char p[PATH_MAX + 32];

	unlink(c->path);
	if (len + sizeof(sp) + 24 > sizeof(p))
		return;
	memcpy(p, c->path, len);
	memcpy(p + len, sp, sizeof(sp) - 1);
	for (int b = 0; b < nb; b++)
		for (int k = 0; k < nc; k++) {
			size_t o = len + sizeof(sp) - 1;

			o += put_uint(p + o, (unsigned)b);
			p[o++] = '.';
			o += put_uint(p + o, (unsigned)k);
			p[o] = 0;
			unlink(p);
		}
}

static void clean_handler(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	for (int i = 0; i < CLEAN_SLOTS; i++)
		if (atomic_load(&clean_slots[i].state) == SLOT_LIVE)
			clean_slot_unlink(&clean_slots[i]);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void clean_install(void)
{
	int expect = 0;

	if (!atomic_compare_exchange_strong(&clean_installed, &expect, 1))
		return;
	for (size_t i = 0; i < sizeof(clean_signals) / sizeof(clean_signals[0]); i++) {
		struct sigaction sa = { .sa_handler = clean_handler }, old;

		/* a signal ignored (nohup) stays ignored */
		if (sigaction(clean_signals[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		sigemptyset(&sa.sa_mask);
		sigaction(clean_signals[i], &sa, NULL);
	}
}

/* the signals the handler takes, blocked (or unblocked: old) in this thread */
static void clean_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(clean_signals) / sizeof(clean_signals[0]); i++)
		sigaddset(&set, clean_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int rpt_clean_add(const char *path)
{
	size_t len = path ? strlen(path) : 0;

	if (!len || len >= PATH_MAX)
		return -ENAMETOOLONG;
	clean_install();
	for (int i = 0; i < CLEAN_SLOTS; i++) {
		struct clean_slot *c = &clean_slots[i];
		int expect = SLOT_FREE;

		if (!atomic_compare_exchange_strong(&c->state, &expect, SLOT_FILLING))
			continue;
		memcpy(c->path, path, len + 1);
		atomic_store(&c->nbuf, 0);
		atomic_store(&c->ncpu, 0);
		atomic_store(&c->state, SLOT_LIVE);
		return 0;
	}
	return -ENOSPC;
}

void rpt_clean_forget(const char *path)
{
	for (int i = 0; path && i < CLEAN_SLOTS; i++) {
		struct clean_slot *c = &clean_slots[i];
		int expect = SLOT_LIVE;

		if (atomic_load(&c->state) == SLOT_LIVE && !strcmp(c->path, path))
			atomic_compare_exchange_strong(&c->state, &expect, SLOT_FREE);
	}
}

static void atomic_raise_to(atomic_int *v, int to)
{
	int cur = atomic_load(v);

	while (cur < to && !atomic_compare_exchange_weak(v, &cur, to))
		;
}

/* on_spool: a spool of a registered temporary file raises its slot's counts */
static void clean_spool(void *arg, const char *spool)
{
	(void)arg;
	for (int i = 0; i < CLEAN_SLOTS; i++) {
		struct clean_slot *c = &clean_slots[i];
		size_t len = strlen(c->path);
		unsigned b, k;
		int end = 0;

		if (atomic_load(&c->state) != SLOT_LIVE || strncmp(spool, c->path, len) ||
		    sscanf(spool + len, ".spool.%u.%u%n", &b, &k, &end) != 2 ||
		    spool[len + (size_t)end] || b > 4096 || k > 65536)
			continue;
		atomic_raise_to(&c->nbuf, (int)b + 1);
		atomic_raise_to(&c->ncpu, (int)k + 1);
		return;
	}
	/* not named after a registered file: its own slot */
	rpt_clean_add(spool);
}

int rpt_writer_open(const char *path, const struct fmt_writer_opts *opts, struct fmt_writer **w)
{
	struct fmt_writer_opts wo = *opts;
	sigset_t old;
	int err;

	if (!wo.on_spool)
		wo.on_spool = clean_spool;
	clean_install();
	/* no signal between the file's creation and its registration */
	clean_block(&old);
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

int rpt_out_begin(const char *out, char **tmp)
{
	const char *slash = strrchr(out, '/');
	int dirlen = slash ? (int)(slash - out + 1) : 0;

	*tmp = NULL;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[6];
		char *t;
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		if (asprintf(&t, "%.*s.%s.%02x%02x%02x%02x%02x%02x", dirlen, out, out + dirlen,
			     rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]) < 0)
			return -ENOMEM;
		sigset_t old;

		clean_install();
		clean_block(&old);
		fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0)
			rpt_clean_add(t);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (fd >= 0) {
			close(fd);
			*tmp = t;
			return 0;
		}
		free(t);
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int rpt_out_commit(char *tmp, const char *out)
{
	int err = rename(tmp, out) < 0 ? -errno : 0;

	if (err)
		unlink(tmp);
	rpt_clean_forget(tmp);
	free(tmp);
	return err;
}

void rpt_out_abort(char *tmp)
{
	if (tmp)
		unlink(tmp);
	rpt_clean_forget(tmp);
	free(tmp);
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

FILE *rpt_text_out_begin(const char *dest, struct fmt_outfile *of)
{
	sigset_t old;
	int err, fd;
	FILE *f;

	clean_install();
	clean_block(&old);
	err = fmt_outfile_open(of, dest);
	if (!err)
		rpt_clean_add(of->temp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errno = -err;
		return NULL;
	}
	fd = dup(of->fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = errno;
		if (fd >= 0)
			close(fd);
		rpt_clean_forget(of->temp);
		fmt_outfile_abort(of);
		errno = err;
	}
	return f;
}

int rpt_text_out_end(FILE *f, struct fmt_outfile *of, bool ok)
{
	char *temp = of->temp ? strdup(of->temp) : NULL;
	int err = 0;

	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;

	if (!ok || err) {
		fmt_outfile_abort(of);
	} else {
		err = fmt_outfile_commit(of);
		if (err)
			fmt_outfile_abort(of);
	}
	rpt_clean_forget(temp);
	free(temp);
	return err;
}

uint64_t rpt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

uint64_t rpt_hash_str(const char *s)
{
	return rpt_hash_bytes(s, strlen(s));
}
