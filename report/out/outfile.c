// SPDX-License-Identifier: GPL-2.0-only
/*
 * Outputs written under a temporary name and renamed into place when whole,
 * and the temporary names removed when a signal kills the writer; see
 * outfile.h.
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
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "report/out/outfile.h"

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

void rpt_clean_hold(sigset_t *old)
{
	clean_install();
	clean_block(old);
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
void rpt_clean_spool(void *arg, const char *spool)
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

		rpt_clean_hold(&old);
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

FILE *rpt_text_out_begin(const char *dest, struct fmt_outfile *of)
{
	sigset_t old;
	int err, fd;
	FILE *f;

	rpt_clean_hold(&old);
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

/*
 * Can path be written?  Checked before the replay so a bad --svg does not
 * come after pages of text: an existing path must be a writable regular
 * file, a new one needs a writable directory.  Nothing is created here (a
 * failed run leaves no empty picture behind).
 */
static int dest_writable(const char *path)
{
	struct stat st;
	char *dir, *sl;
	int e = 0;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		return access(path, W_OK) ? errno : 0;
	}
	if (errno != ENOENT)
		return errno;
	dir = strdup(path);
	if (!dir)
		return ENOMEM;
	sl = strrchr(dir, '/');
	if (!sl)
		strcpy(dir, ".");
	else if (sl == dir)
		sl[1] = 0;
	else
		*sl = 0;
	if (stat(dir, &st))
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		e = errno;
	free(dir);
	return e;
}

int rpt_svg_dest_check(const char *path)
{
	const char *why = NULL;
	int e;

	if (fmt_outfile_check(path, &why) && why)
		return ft_usage_error("cannot write '%s': %s", path, why);
	e = dest_writable(path);
	if (e)
		return ft_error("cannot create '%s': %s", path, strerror(e));
	return EXIT_OK;
}
