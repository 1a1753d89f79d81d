// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder and rotation: a store of compressed chunks in
 * segment files next to the output, bounded by --flight LIMIT, and the
 * dumps made from it (trace-NNNN.dat), each a complete trace.dat.
 *
 * The writer's compression threads hand every chunk to store_sink() (the
 * writer's chunk sink; each CPU's chunks in order, different CPUs' side by
 * side); the recorder's thread reads the store only after
 * fmt_writer_flush(), which waits for the pool to be idle (with any capture
 * threads held), so a dump sees every chunk taken so far.  The store's lock covers the short
 * overlap where the status line reads its totals.
 *
 * Segments, not one ring file: the oldest data goes by deleting a whole
 * segment (no hole punching, which not every file system has), chunks of
 * every CPU share segments in their arrival order, so a busy CPU keeps as
 * much of the limit as it needs and time order is kept within a segment.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "record.h"
#include "bpf.h"
#include "flight.h"
#include "flight_int.h"
#include "onfile.h"
#include "state.h"

#define SEG_MIN (1ULL << 20)
#define SEG_MAX (64ULL << 20)
#define ROTATE_SEG (16ULL << 20)
#define MAX_BUFS 8
#define STATS_SAMPLES 512

struct fchunk {
	uint64_t off;
	uint32_t len;
	uint16_t buf, cpu;
	uint64_t ts_first, ts_last;
	uint64_t seq;			/* per (buffer, CPU): 0 for its first chunk ever */
};

struct segment {
	int fd;
	char *path;
	uint64_t bytes;
	int names;			/* buffer names written into it (self-describing) */
	uint64_t ts_max;
	uint64_t t_open;		/* mono ns when created */
	struct fchunk *v;
	size_t n, cap;
};

struct store {
	pthread_mutex_t mu;
	char *prefix;			/* "<dir>/.<base>.flight-<pid>." */
	unsigned next_seg;
	struct segment *segs;		/* oldest first */
	size_t nsegs, cap;
	uint64_t bytes;			/* in every segment */
	uint64_t limit_bytes, limit_ns, seg_target;
	uint64_t newest_ts;
	uint64_t hold_ts;		/* a trigger is pending: keep its window */
	uint64_t dropped_bytes;
	char *bufnames[MAX_BUFS];
	int nbufs;
	uint64_t *next_seq;		/* [MAX_BUFS * REC_MAX_CPUS_STORE] */
	int err;
};

#define REC_MAX_CPUS_STORE 4096

/*
 * A segment describes itself, so that `flytrap reset` and `flytrap
 * recover` can make a file of it after a SIGKILL (rec_flight_store_save):
 * each chunk follows a record header saying its buffer, CPU and times, and
 * each buffer's name is written into a segment before its first chunk
 * there.  Host byte order: the store never leaves the machine that wrote
 * it.  A torn record (the kill in the middle of a write) ends a segment.
 */
#define SREC_CHUNK 0x4b484346u		/* "FCHK" */
#define SREC_NAME 0x454d4e46u		/* "FNME" */
#define SREC_MAX_NAME 256
#define SREC_MAX_CHUNK (256U << 20)

struct srec {
	uint32_t magic;
	uint32_t len;			/* bytes after this header */
	uint16_t buf, cpu;
	uint32_t pad;
	uint64_t ts_first, ts_last;
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- the store -------------------------------------------------------------- */

static void seg_drop(struct segment *g)
{
	if (g->fd >= 0)
		close(g->fd);
	if (g->path)
		unlink(g->path);
	free(g->path);
	free(g->v);
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}

static void store_drop_oldest(struct store *st)
{
	st->bytes -= st->segs[0].bytes;
	st->dropped_bytes += st->segs[0].bytes;
	seg_drop(&st->segs[0]);
	memmove(st->segs, st->segs + 1, (st->nsegs - 1) * sizeof(*st->segs));
	st->nsegs--;
}

static int seg_new(struct store *st)
{
	struct segment *g;

	if (st->nsegs == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 32;
		struct segment *v = realloc(st->segs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->segs = v;
		st->cap = cap;
	}
	g = &st->segs[st->nsegs];
	memset(g, 0, sizeof(*g));
	if (asprintf(&g->path, "%s%u", st->prefix, st->next_seg++) < 0) {
		g->path = NULL;
		return -ENOMEM;
	}
	g->fd = open(g->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (g->fd < 0) {
		int err = -errno;

		free(g->path);
		return err;
	}
	g->t_open = mono_now();
	st->nsegs++;
	return 0;
}

/* Older data goes: beyond the size limit, and out of the time window (unless held). */
static void store_trim(struct store *st)
{
	while (st->nsegs > 1 && st->limit_bytes && st->bytes > st->limit_bytes)
		store_drop_oldest(st);
	if (st->limit_ns) {
		uint64_t ref = st->hold_ts ? st->hold_ts : st->newest_ts;
		uint64_t keep = ref > st->limit_ns ? ref - st->limit_ns : 0;

		while (st->nsegs > 1 && st->segs[0].ts_max < keep)
			store_drop_oldest(st);
	}
}

static int buf_index(struct store *st, const char *name)
{
	int i;

	for (i = 0; i < st->nbufs; i++)
		if (!strcmp(st->bufnames[i], name))
			return i;
	if (st->nbufs == MAX_BUFS)
		return -ENOSPC;
	st->bufnames[st->nbufs] = strdup(name);
	if (!st->bufnames[st->nbufs])
		return -ENOMEM;
	return st->nbufs++;
}

/* Write all of iov at the segment's end; the segment grows by what was written. */
static int seg_append(struct store *st, struct segment *g, struct iovec *iov, int n)
{
	uint64_t done = 0;
	int err = fmt_pwritev_all(g->fd, iov, n, g->bytes, &done);

	g->bytes += done;
	st->bytes += done;
	return err;
}

/* The buffer names a segment does not hold yet, before its next chunk. */
static int seg_names(struct store *st, struct segment *g)
{
	int err = 0;

	while (!err && g->names < st->nbufs) {
		const char *name = st->bufnames[g->names];
		struct srec h = { SREC_NAME, (uint32_t)strlen(name) + 1, (uint16_t)g->names,
				  0, 0, 0, 0 };
		struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)name, h.len } };

		err = seg_append(st, g, iov, 2);
		if (!err)
			g->names++;
	}
	return err;
}

/* The writer's chunk sink (a compression thread; several may call at once). */
static int store_sink(void *ctx, const struct fmt_chunk *c)
{
	struct store *st = ctx;
	struct segment *g;
	struct fchunk *fc;
	struct srec h = { SREC_CHUNK, 0, 0, 0, 0, 0, 0 };
	struct iovec iov[2];
	uint64_t now = mono_now();
	int bi, err = 0;

	if (c->cpu < 0 || c->cpu >= REC_MAX_CPUS_STORE || c->len > SREC_MAX_CHUNK)
		return -EINVAL;
	pthread_mutex_lock(&st->mu);
	if (st->err) {
		err = st->err;
		goto out;
	}
	bi = buf_index(st, c->buffer);
	if (bi < 0) {
		err = bi;
		goto out;
	}
	g = st->nsegs ? &st->segs[st->nsegs - 1] : NULL;
	if (!g || g->bytes >= st->seg_target ||
	    (st->limit_ns && now - g->t_open > st->limit_ns / 16)) {
		if ((err = seg_new(st)))
			goto out;
		g = &st->segs[st->nsegs - 1];
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		struct fchunk *v = realloc(g->v, cap * sizeof(*v));

		if (!v) {
			err = -ENOMEM;
			goto out;
		}
		g->v = v;
		g->cap = cap;
	}
	if ((err = seg_names(st, g)))
		goto out;
	fc = &g->v[g->n];
	fc->off = g->bytes + sizeof(h);
	fc->len = (uint32_t)c->len;
	fc->buf = (uint16_t)bi;
	fc->cpu = (uint16_t)c->cpu;
	fc->ts_first = c->ts_first;
	fc->ts_last = c->ts_last > c->ts_first ? c->ts_last : c->ts_first;
	h.len = fc->len;
	h.buf = fc->buf;
	h.cpu = fc->cpu;
	h.ts_first = fc->ts_first;
	h.ts_last = fc->ts_last;
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ (void *)c->data, c->len };
	if ((err = seg_append(st, g, iov, 2)))
		goto out;
	g->n++;
	fc->seq = st->next_seq[bi * REC_MAX_CPUS_STORE + c->cpu]++;
	if (fc->ts_last > g->ts_max)
		g->ts_max = fc->ts_last;
	if (fc->ts_last > st->newest_ts)
		st->newest_ts = fc->ts_last;
	store_trim(st);
out:
	if (err && !st->err)
		st->err = err;
	pthread_mutex_unlock(&st->mu);
	return err;
}

static struct store *store_new(const char *prefix, uint64_t limit_bytes, uint64_t limit_ns,
			       uint64_t seg_target)
{
	struct store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->next_seq = calloc((size_t)MAX_BUFS * REC_MAX_CPUS_STORE, sizeof(*st->next_seq));
	st->prefix = strdup(prefix);
	if (!st->next_seq || !st->prefix) {
		free(st->next_seq);
		free(st->prefix);
		free(st);
		return NULL;
	}
	pthread_mutex_init(&st->mu, NULL);
	st->limit_bytes = limit_bytes;
	st->limit_ns = limit_ns;
	st->seg_target = seg_target;
	return st;
}

static void store_clear(struct store *st)
{
	pthread_mutex_lock(&st->mu);
	while (st->nsegs)
		store_drop_oldest(st);
	st->dropped_bytes = 0;
	pthread_mutex_unlock(&st->mu);
}

static void store_free(struct store *st)
{
	int i;

	if (!st)
		return;
	store_clear(st);
	for (i = 0; i < st->nbufs; i++)
		free(st->bufnames[i]);
	pthread_mutex_destroy(&st->mu);
	free(st->segs);
	free(st->next_seq);
	free(st->prefix);
	free(st);
}

/* Oldest and newest time held, and the bytes (for the status line). */
static void store_span(struct store *st, uint64_t *first, uint64_t *last, uint64_t *bytes)
{
	size_t i;

	pthread_mutex_lock(&st->mu);
	*first = UINT64_MAX;
	for (i = 0; i < st->nsegs; i++)
		if (st->segs[i].n && st->segs[i].v[0].ts_first < *first)
			*first = st->segs[i].v[0].ts_first;
	*last = st->newest_ts;
	*bytes = st->bytes;
	pthread_mutex_unlock(&st->mu);
}

/* ---- the store after a SIGKILL ----------------------------------------------------- */

struct segfile {
	unsigned long num;
	char *path;
};

static int cmp_segfile(const void *a, const void *b)
{
	const struct segfile *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

/* The segment files PREFIX<number> that exist, oldest first; count or -errno. */
static int segfiles_list(const char *prefix, struct segfile **out)
{
	const char *slash = strrchr(prefix, '/');
	struct segfile *v = NULL;
	char *dir;
	size_t plen;
	int n = 0, err = 0;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	if (!slash || !slash[1])
		return -EINVAL;
	dir = strndup(prefix, (size_t)(slash - prefix) + (slash == prefix));
	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		err = errno == ENOENT ? 0 : -errno;
		free(dir);
		return err;
	}
	plen = strlen(slash + 1);
	while (!err && (e = readdir(d))) {
		const char *num = e->d_name + plen;
		struct segfile *nv;

		if (strncmp(e->d_name, slash + 1, plen) || !*num || strlen(num) > 9 ||
		    strspn(num, "0123456789") != strlen(num))
			continue;
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		v = nv;
		v[n].num = strtoul(num, NULL, 10);
		if (asprintf(&v[n].path, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	free(dir);
	if (err) {
		while (n--)
			free(v[n].path);
		free(v);
		return err;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_segfile);
	*out = v;
	return n;
}

static int read_at(int fd, void *p, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, p, n, (off_t)off);

	return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EBADMSG;
}

/*
 * One segment's chunks into w, in the order written; a record that does
 * not hold together (torn by the kill, or not ours) ends the segment.
 * Returns the chunks taken, or -errno for a failure to write them.
 */
static int segfile_save(const char *path, struct fmt_writer *w, char **msg)
{
	char *names[MAX_BUFS] = { 0 };
	uint8_t *data = NULL;
	uint64_t off = 0, size;
	struct stat sb;
	int fd, chunks = 0, err = 0, i;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		err = fd < 0 ? -errno : -EPERM;
		if (asprintf(msg, "cannot read store file '%s': %s", path,
			     fd < 0 ? strerror(-err) : "not a regular file of ours") < 0)
			*msg = NULL;
		if (fd >= 0)
			close(fd);
		return err;
	}
	size = (uint64_t)sb.st_size;
	while (off + sizeof(struct srec) <= size) {
		struct srec h;
		struct fmt_wbuf *b;

		if (read_at(fd, &h, sizeof(h), off))
			break;
		if ((h.magic != SREC_CHUNK && h.magic != SREC_NAME) ||
		    h.len > size - off - sizeof(h))
			break;
		off += sizeof(h);
		if (h.magic == SREC_NAME) {
			char *name;

			if (h.buf >= MAX_BUFS || !h.len || h.len > SREC_MAX_NAME || names[h.buf])
				break;
			name = malloc(h.len);
			if (!name || read_at(fd, name, h.len, off) || name[h.len - 1] ||
			    strlen(name) + 1 != h.len) {
				free(name);
				break;
			}
			names[h.buf] = name;
			off += h.len;
			continue;
		}
		if (h.buf >= MAX_BUFS || !names[h.buf] || h.cpu >= REC_MAX_CPUS_STORE || !h.len ||
		    h.len > SREC_MAX_CHUNK)
			break;
		free(data);
		data = malloc(h.len);
		if (!data) {
			err = -ENOMEM;
			break;
		}
		if (read_at(fd, data, h.len, off))
			break;
		off += h.len;
		err = fmt_wbuf_get(w, names[h.buf], "mono", &b);
		if (!err)
			err = fmt_wbuf_add_chunk(b, h.cpu, data, h.len);
		if (err == -EBADMSG) {
			err = 0;	/* not a chunk of this file: the segment ends here */
			break;
		}
		if (err) {
			if (asprintf(msg, "%s", fmt_writer_error(w)) < 0)
				*msg = NULL;
			break;
		}
		chunks++;
	}
	free(data);
	for (i = 0; i < MAX_BUFS; i++)
		free(names[i]);
	close(fd);
	return err ? err : chunks;
}

int rec_flight_store_save(const char *prefix, const char *base, const char *const *spools,
			  int nspools, void (*on_spool)(void *, const char *), void *arg,
			  char **msg)
{
	struct fmt_writer_opts wo = { 0 };
	struct fmt_writer *w = NULL;
	struct segfile *v = NULL;
	int n, i, r, err = 0, chunks = 0;

	*msg = NULL;
	n = segfiles_list(prefix, &v);
	if (n <= 0) {
		if (n < 0 && asprintf(msg, "cannot list the store '%s*': %s", prefix,
				      strerror(-n)) < 0)
			*msg = NULL;
		return n;
	}
	wo.on_spool = on_spool;
	wo.on_spool_arg = arg;
	err = fmt_writer_resume(base, spools, nspools, &wo, &w, msg);
	for (i = 0; !err && i < n; i++) {
		r = segfile_save(v[i].path, w, msg);
		if (r < 0)
			err = r;
		else
			chunks += r;
	}
	if (w) {
		r = fmt_writer_suspend(w);
		if (r && !err) {
			err = r;
			if (asprintf(msg, "cannot write the spool files of '%s': %s", base,
				     strerror(-r)) < 0)
				*msg = NULL;
		}
	}
	/* its chunks are in the spools now: the store goes (a second save finds nothing) */
	for (i = 0; i < n; i++) {
		if (!err)
			unlink(v[i].path);
		free(v[i].path);
	}
	free(v);
	return err ? err : chunks;
}

/* ---- dumps --------------------------------------------------------------------- */

struct cpu_start {
	uint16_t buf, cpu;
	uint64_t ts;
	bool whole;			/* its first chunk ever: nothing of it was let go */
};

struct window {
	uint64_t from, to;		/* times of the chunks in it */
	uint64_t chunks, bytes;
	struct cpu_start *starts;
	int nstarts;
};

static int window_note(struct window *win, const struct fchunk *c)
{
	int i;

	for (i = 0; i < win->nstarts; i++)
		if (win->starts[i].buf == c->buf && win->starts[i].cpu == c->cpu)
			return 0;
	{
		struct cpu_start *v = realloc(win->starts, (size_t)(win->nstarts + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		win->starts = v;
		v[win->nstarts++] = (struct cpu_start){ c->buf, c->cpu, c->ts_first, c->seq == 0 };
	}
	return 0;
}

/*
 * Copy the chunks whose data reaches from_ts or later into w, buffer by
 * buffer in the store's buffer order (the top buffer first, as the live
 * writer made them).
 */
static int store_write(struct store *st, struct fmt_writer *w, uint64_t from_ts, struct window *win)
{
	struct fmt_wbuf *bufs[MAX_BUFS] = { 0 };
	uint8_t *data = NULL;
	size_t cap = 0, i, k;
	int b, err = 0;

	pthread_mutex_lock(&st->mu);
	win->from = UINT64_MAX;
	for (b = 0; b < st->nbufs && !err; b++)
		err = fmt_wbuf_new(w, st->bufnames[b], "mono", &bufs[b]);
	for (i = 0; i < st->nsegs && !err; i++) {
		struct segment *g = &st->segs[i];

		for (k = 0; k < g->n && !err; k++) {
			struct fchunk *c = &g->v[k];
			ssize_t r;

			if (c->ts_last < from_ts)
				continue;
			if (c->len > cap) {
				uint8_t *n = realloc(data, c->len);

				if (!n) {
					err = -ENOMEM;
					break;
				}
				data = n;
				cap = c->len;
			}
			r = pread(g->fd, data, c->len, (off_t)c->off);
			if (r != (ssize_t)c->len) {
				err = r < 0 ? -errno : -EIO;
				break;
			}
			err = fmt_wbuf_add_chunk(bufs[c->buf], c->cpu, data, c->len);
			if (!err)
				err = window_note(win, c);
			if (c->ts_first < win->from)
				win->from = c->ts_first;
			if (c->ts_last > win->to)
				win->to = c->ts_last;
			win->chunks++;
			win->bytes += c->len;
		}
	}
	pthread_mutex_unlock(&st->mu);
	free(data);
	if (win->from == UINT64_MAX)
		win->from = 0;
	return err;
}

/* ---- naming ------------------------------------------------------------------------- */

struct dump_name {
	char *dir, *stem, *ext;
	bool bare;			/* -o had no directory: names are printed without one */
};

static int name_split(const char *output, struct dump_name *n)
{
	const char *slash = strrchr(output, '/'), *base = slash ? slash + 1 : output;
	const char *dot = strrchr(base, '.');

	if (!dot || dot == base)
		dot = base + strlen(base);
	n->bare = !slash;
	n->dir = slash ? strndup(output, (size_t)(slash - output) + (slash == output)) : strdup(".");
	n->stem = strndup(base, (size_t)(dot - base));
	n->ext = strdup(dot);
	return n->dir && n->stem && n->ext ? 0 : -ENOMEM;
}

static void name_release(struct dump_name *n)
{
	free(n->dir);
	free(n->stem);
	free(n->ext);
}

/* The highest NNNN of "<stem>-NNNN<ext>" in the directory (0 if none). */
static unsigned highest_number(const struct dump_name *n)
{
	size_t sl = strlen(n->stem), el = strlen(n->ext);
	unsigned best = 0;
	struct dirent *e;
	DIR *d = opendir(n->dir);

	while (d && (e = readdir(d))) {
		const char *p = e->d_name + sl + 1;
		size_t len = strlen(e->d_name), digits = 0;
		unsigned long v;

		if (len < sl + 1 + 4 + el || strncmp(e->d_name, n->stem, sl) || e->d_name[sl] != '-' ||
		    strcmp(e->d_name + len - el, n->ext))
			continue;
		while (p[digits] >= '0' && p[digits] <= '9')
			digits++;
		if (digits < 4 || digits > 9 || p + digits != e->d_name + len - el)
			continue;
		v = strtoul(p, NULL, 10);
		if (v > best)
			best = (unsigned)v;
	}
	if (d)
		closedir(d);
	return best;
}

/* ---- the mode ------------------------------------------------------------------------ */

struct dumped {
	char *path;
};

static void scratch_spool(void *arg, const char *path);

struct rec_flight {
	const struct rec_flight_conf *c;
	struct rec_flight_ops ops;
	struct rec_instance *ri;
	struct rec_bpf *bpf;
	struct fmt_writer_opts dump_wo;	/* the live writer's settings, without the sink */
	struct store *st;
	struct dump_name name;
	unsigned last_number;
	char trace_id[33];
	unsigned segment;		/* rotation: number of the file being filled */
	uint64_t t_start;		/* mono ns at the start (rotation timer) */
	uint64_t next_rotate;
	uint64_t segment_start_ts;

	/* the trigger being served */
	bool pending;
	uint64_t trig_ts, due;		/* when it fired, when its dump is due */
	char trig_what[256];
	uint64_t last_dump_trig;
	unsigned ndumps, suppressed, failed;
	bool max_noted;
	sig_atomic_t seen_signal, seen_request;
	/* every trigger, by what became of it (the summary's one line) */
	unsigned ntrig, trig_started, trig_joined, trig_gap, trig_max;
	bool rotate_asked;		/* rotation: a trigger asks for the next file */

	/* kernel statistics sampled once a second, for the window's start */
	/* n: the CPUs of each; the instance has none left when f is freed */
	struct { uint64_t t; char **texts; int n; } samples[STATS_SAMPLES];
	int nsamples;
	uint64_t next_sample;
	char **start_texts;		/* of the dump being written */

	struct rec_trig_state *trig;	/* trigger.c */
	struct rec_budget *budget;	/* budget.c */
	struct rec_onfile *onfile;	/* onfile.c: --on-file */

	char **written;			/* rotation: files of this run, oldest first */
	size_t nwritten;
	uint64_t bytes_dumped;
	uint64_t last_dump_ms;

	/*
	 * --rotate SIZE: what a file holds besides its chunks (kallsyms, formats,
	 * the process maps, the index).  Measured on an empty file at the first
	 * tick, then on each file written, so that a file ends near SIZE.
	 */
	uint64_t fixed_bytes;
	bool fixed_known, fixed_noted;

	/*
	 * Rotation files that could not be written: the events read since the
	 * last file (kernel "read events" plus BPF records, sampled at each
	 * file's drain), the ones lost since the last file written (carried
	 * into that next file's loss records), and the totals for the summary.
	 */
	uint64_t events_mark;
	uint64_t gap_events;
	unsigned gap_files, gap_first_segment;
	uint64_t lost_events;
	bool dumping;			/* a dump's metadata is being written */
	char recstats[128];
	char status[160];
};

static void random_id(char out[33])
{
	uint8_t b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;
	ssize_t r = fd >= 0 ? read(fd, b, sizeof(b)) : -1;

	if (fd >= 0)
		close(fd);
	if (r != (ssize_t)sizeof(b)) {
		uint64_t t = mono_now() ^ ((uint64_t)getpid() << 32);

		memcpy(b, &t, 8);
		memcpy(b + 8, &t, 8);
	}
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

struct rec_flight *rec_flight_new(const struct rec_flight_conf *c, const char *output,
				  struct rec_instance *ri, struct rec_bpf *bpf,
				  const struct rec_flight_ops *ops, struct fmt_writer_opts *wo,
				  char **live_path)
{
	struct rec_flight *f = calloc(1, sizeof(*f));
	char *prefix = NULL;
	uint64_t seg;

	*live_path = NULL;
	if (!f || name_split(output, &f->name)) {
		ft_error("out of memory");
		goto fail;
	}
	f->c = c;
	f->ops = *ops;
	f->ri = ri;
	f->bpf = bpf;
	random_id(f->trace_id);
	f->last_number = highest_number(&f->name);
	f->segment = 1;
	f->t_start = mono_now();
	if (c->rotate_ns)
		f->next_rotate = f->t_start + c->rotate_ns;
	/* the random part: no one can plant a segment's name before we create it */
	if (asprintf(&prefix, "%s/.%s%s.flight-%d-%.12s.", f->name.dir, f->name.stem, f->name.ext,
		     (int)getpid(), f->trace_id) < 0 ||
	    asprintf(live_path, "%s/.%s%s.flight-%d.meta", f->name.dir, f->name.stem, f->name.ext,
		     (int)getpid()) < 0) {
		ft_error("out of memory");
		goto fail;
	}
	f->dump_wo = *wo;
	f->dump_wo.chunk_sink = NULL;
	f->dump_wo.page_observer = NULL;
	f->dump_wo.on_spool = scratch_spool;
	f->dump_wo.on_spool_arg = NULL;
	if (c->on_file && !(f->onfile = rec_onfile_new(c->on_file, c->on_file_timeout_ns))) {
		ft_error("out of memory");
		goto fail;
	}
	if (c->cpu_budget_pct > 0) {
		f->budget = rec_budget_new(c->cpu_budget_pct, ri);
		if (!f->budget || rec_budget_start(f->budget)) {
			ft_error("out of memory");
			goto fail;
		}
		wo->page_observer = rec_budget_observe;
		wo->observer_ctx = f->budget;
	}
	if (!rec_flight_stores(c)) {
		free(prefix);
		free(*live_path);
		*live_path = NULL;
		return f;
	}
	if (c->flight) {
		seg = c->limit_bytes / 16;
		seg = seg < SEG_MIN ? SEG_MIN : seg > SEG_MAX ? SEG_MAX : seg;
	} else {
		seg = ROTATE_SEG;
	}
	f->st = store_new(prefix, c->flight ? c->limit_bytes : 0, c->flight ? c->limit_ns : 0, seg);
	if (!f->st) {
		ft_error("out of memory");
		goto fail;
	}
	free(prefix);
	wo->chunk_sink = store_sink;
	wo->chunk_ctx = f->st;
	return f;
fail:
	free(prefix);
	free(*live_path);
	*live_path = NULL;
	rec_flight_free(f);
	return NULL;
}

const char *rec_flight_store_prefix(const struct rec_flight *f)
{
	return f && f->st ? f->st->prefix : NULL;
}

int rec_flight_setup_triggers(struct rec_flight *f)
{
	int err;

	if (!f->c->ntrig)
		return 0;
	f->trig = rec_trig_state_new(f->c, f->ri, f->bpf, &err);
	return f->trig ? 0 : err;
}

static void free_texts(char **t, int n)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < n; i++)
		free(t[i]);
	free(t);
}

static void sample_stats(struct rec_flight *f, uint64_t now)
{
	char **t;
	int i;

	if (!f->c->flight || now < f->next_sample)
		return;
	f->next_sample = now + 1000000000ULL;
	t = calloc((size_t)f->ri->ncpus, sizeof(*t));
	if (!t)
		return;
	for (i = 0; i < f->ri->ncpus; i++)
		t[i] = rec_cpu_stats(f->ri, f->ri->cpus[i].cpu);
	if (f->nsamples == STATS_SAMPLES) {
		/* thin out: every other sample goes, the span stays */
		int k, j = 0;

		for (k = 0; k < STATS_SAMPLES; k++) {
			if (k % 2 && k != STATS_SAMPLES - 1) {
				free_texts(f->samples[k].texts, f->samples[k].n);
				continue;
			}
			f->samples[j++] = f->samples[k];
		}
		f->nsamples = j;
	}
	f->samples[f->nsamples].t = now;
	f->samples[f->nsamples].n = f->ri->ncpus;
	f->samples[f->nsamples++].texts = t;
}

const char *rec_flight_start_stats(const struct rec_flight *f, int cpu)
{
	int i;

	if (!f || !f->start_texts)
		return NULL;
	for (i = 0; i < f->ri->ncpus; i++)
		if (f->ri->cpus[i].cpu == cpu)
			return f->start_texts[i];
	return NULL;
}

/* Where a dump would go without a number: its temporary file is made beside it. */
static char *dump_dest(const struct rec_flight *f)
{
	char *p;

	if (asprintf(&p, "%s/%s%s", f->name.dir, f->name.stem, f->name.ext) < 0)
		return NULL;
	return p;
}

/* The number the next dump gets when no one takes it first (dump_place). */
static unsigned next_number(const struct rec_flight *f)
{
	unsigned n = highest_number(&f->name);

	return (n < f->last_number ? f->last_number : n) + 1;
}

/*
 * The name the next dump will most likely have: the writer writes its
 * temporary file beside it and names it in its errors, so that a failure
 * names the file that failed, not -o.
 */
static char *numbered_name(const struct rec_flight *f, unsigned n)
{
	char *p;

	if (asprintf(&p, "%s%s%s-%04u%s", f->name.bare ? "" : f->name.dir, f->name.bare ? "" : "/",
		     f->name.stem, n, f->name.ext) < 0)
		return NULL;
	return p;
}

/*
 * A test hook: FLYTRAP_TEST_FAIL_SEGMENTS=A-B makes rotation files A to B
 * fail as a full disk would, after their first sections, so that a test
 * can see a gap followed by files that are written (a real full disk takes
 * the store with it).
 */
static bool test_fail_segment(unsigned segment)
{
	const char *e = getenv("FLYTRAP_TEST_FAIL_SEGMENTS");
	unsigned a, b;

	if (!e || sscanf(e, "%u-%u", &a, &b) != 2)
		return false;
	return segment >= a && segment <= b;
}

/* Events the recorder has read so far: the kernel's "read events" of every CPU, BPF records. */
static uint64_t events_read(struct rec_flight *f)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < f->ri->ncpus; i++) {
		char *t = rec_cpu_stats(f->ri, f->ri->cpus[i].cpu), *p;

		p = t ? strstr(t, "read events:") : NULL;
		if (p)
			total += strtoull(p + strlen("read events:"), NULL, 10);
		free(t);
	}
	if (f->bpf) {
		struct rec_bpf_stats bs;

		rec_bpf_get_stats(f->bpf, &bs);
		total += bs.written;
	}
	return total;
}

/*
 * The files of the dump being written, for `flytrap reset` after a SIGKILL
 * (state.h, scratch-PID): its temporary file, then each spool the writer
 * makes (told from a compression thread, hence the lock).
 */
static pthread_mutex_t scratch_mu = PTHREAD_MUTEX_INITIALIZER;
static char *scratch[16];
static int nscratch;

static void scratch_reset(const char *tmp)
{
	int i;

	pthread_mutex_lock(&scratch_mu);
	for (i = 0; i < nscratch; i++)
		free(scratch[i]);
	nscratch = 0;
	if (tmp && (scratch[0] = strdup(tmp)))
		nscratch = 1;
	if (rec_scratch_set((const char *const *)scratch, nscratch))
		ft_info("cannot note '%s' for reset", tmp ? tmp : "");
	pthread_mutex_unlock(&scratch_mu);
}

static void scratch_spool(void *arg, const char *path)
{
	(void)arg;
	pthread_mutex_lock(&scratch_mu);
	if (nscratch && nscratch < (int)(sizeof(scratch) / sizeof(scratch[0])) &&
	    (scratch[nscratch] = strdup(path))) {
		nscratch++;
		rec_scratch_set((const char *const *)scratch, nscratch);
	}
	pthread_mutex_unlock(&scratch_mu);
}

/* Give the finished temporary file the next free number; never replaces. */
static int dump_place(struct rec_flight *f, const char *tmp, char **final)
{
	unsigned n = highest_number(&f->name);
	int tries;

	if (n < f->last_number)
		n = f->last_number;
	for (tries = 0; tries < 1000; tries++) {
		n++;
		if (asprintf(final, "%s%s%s-%04u%s", f->name.bare ? "" : f->name.dir,
			     f->name.bare ? "" : "/", f->name.stem, n, f->name.ext) < 0) {
			*final = NULL;
			return -ENOMEM;
		}
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, *final, RENAME_NOREPLACE)) {
			f->last_number = n;
			return 0;
		}
		if (errno != EEXIST) {
			int err = -errno;

			/* file systems without RENAME_NOREPLACE: link() never replaces either */
			if ((errno == EINVAL || errno == ENOSYS) && !link(tmp, *final)) {
				unlink(tmp);
				f->last_number = n;
				return 0;
			}
			free(*final);
			*final = NULL;
			return err;
		}
		free(*final);
		*final = NULL;
	}
	return -EEXIST;
}

static const char *mode_name(const struct rec_flight *f)
{
	return f->c->flight ? "flight" : rec_flight_stores(f->c) ? "rotate" : "stop";
}

/* The flytrap metadata of a dump: what fired, the window, where each CPU's data starts. */
static char *dump_meta_text(struct rec_flight *f, const struct window *win, const char *reason,
			    uint64_t trig_ts, uint64_t from_ts)
{
	char *t = NULL, *shed;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	int i;

	if (!m)
		return NULL;
	fprintf(m, FMT_META_RECORDING_MODE "=%s\n", mode_name(f));
	fprintf(m, FMT_META_TRACE_ID "=%s\n", f->trace_id);
	if (!f->c->flight)
		fprintf(m, FMT_META_ROTATION_SEGMENT "=%u\n", f->segment);
	if (!f->c->flight && f->gap_files)
		fprintf(m, FMT_META_ROTATION_LOST_SEGMENTS "=%u-%u\n", f->gap_first_segment,
			f->gap_first_segment + f->gap_files - 1);
	if (f->c->flight) {
		fprintf(m, FMT_META_FLIGHT_LIMIT_BYTES "=%" PRIu64 "\n", f->c->limit_bytes);
		if (f->c->limit_ns)
			fprintf(m, FMT_META_FLIGHT_LIMIT_NS "=%" PRIu64 "\n", f->c->limit_ns);
		fprintf(m, FMT_META_FLIGHT_AFTER_NS "=%" PRIu64 "\n", f->c->after_ns);
		fprintf(m, FMT_META_FLIGHT_DUMP "=%u\n", f->ndumps + 1);
	}
	if (reason) {
		fprintf(m, FMT_META_TRIGGER "=%s\n", reason);
		fprintf(m, FMT_META_TRIGGER_TS "=%" PRIu64 "\n", trig_ts);
	}
	if (f->c->flight && reason)
		/* why a dump of --flight 5s holds more than 5 s: said where the data is */
		fprintf(m, FMT_META_WINDOW_NOTE "=%.1f s before the trigger (--flight) and %.1f s "
			"after it (--after) were asked; whole chunks of pages are kept, so a CPU's "
			"data may start before the window\n", (double)f->c->limit_ns / 1e9,
			(double)f->c->after_ns / 1e9);
	fprintf(m, FMT_META_WINDOW_START_NS "=%" PRIu64 "\n", from_ts ? from_ts : win->from);
	fprintf(m, FMT_META_WINDOW_END_NS "=%" PRIu64 "\n", win->to);
	fprintf(m, FMT_META_CPU_DATA_START "=");
	for (i = 0; i < win->nstarts; i++)
		fprintf(m, "%s%s/%u:%" PRIu64 "%s", i ? "," : "", f->st->bufnames[win->starts[i].buf],
			win->starts[i].cpu, win->starts[i].ts, win->starts[i].whole ? ":whole" : "");
	fprintf(m, "\n");
	shed = rec_flight_shed_meta(f, win->from, win->to);
	if (shed) {
		fputs(shed, m);
		free(shed);
	}
	/* --on-file runs that ended since the last file */
	rec_onfile_poll(f->onfile);
	shed = rec_onfile_meta(f->onfile);
	if (shed) {
		fputs(shed, m);
		free(shed);
	}
	if (fclose(m)) {
		free(t);
		return NULL;
	}
	return t;
}

/*
 * Write one file: everything in the store from from_ts on.  reason is what
 * fired (NULL for a rotation).  Returns 0 or -errno (reported here).
 */
static int dump(struct rec_flight *f, uint64_t from_ts, const char *reason, uint64_t trig_ts)
{
	struct fmt_writer_opts wo = { 0 };
	struct fmt_writer *w = NULL;
	struct window win = { 0 };
	char *tmp = NULL, *final = NULL, *meta = NULL, *name = NULL, why[768] = "";
	uint64_t t0 = mono_now(), events = 0;
	unsigned number = next_number(f);
	int err, i;
	struct stat sb;

	name = numbered_name(f, number);
	if (!name) {
		err = -ENOMEM;
		goto out;
	}
	err = f->ops.drain(f->ops.ctx);
	if (!f->c->flight) {
		/* a rotation file holds what was read since the last one: its events */
		uint64_t now_read = events_read(f);

		events = now_read > f->events_mark ? now_read - f->events_mark : 0;
		f->events_mark = now_read;
	}
	if (err) {
		snprintf(why, sizeof(why), "cannot write '%s': cannot take the kernel's data: %s",
			 name, strerror(-err));
		goto out;
	}
	ft_info("dump: drained in %llu ms", (unsigned long long)((mono_now() - t0) / 1000000));
	/* the statistics sampled last before the window: the window's own counts */
	f->start_texts = NULL;
	for (i = 0; i < f->nsamples; i++)
		if (f->samples[i].t <= from_ts || !from_ts)
			f->start_texts = f->samples[i].texts;
	if (!from_ts)
		f->start_texts = NULL;
	/* written whole under a temporary name; dump_place() gives it its number */
	wo = f->dump_wo;
	wo.keep_temp = true;
	wo.discard_spools_on_error = true;	/* a failed dump is dropped, not recovered */
	err = fmt_writer_open(name, &wo, &w);
	if (err) {
		snprintf(why, sizeof(why), "cannot create '%s': %s", name, strerror(-err));
		w = NULL;
		goto out;
	}
	tmp = strdup(fmt_writer_temp(w));
	if (!tmp) {
		err = -ENOMEM;
		goto out;
	}
	scratch_reset(tmp);
	f->dumping = true;
	if (f->gap_files)
		snprintf(f->recstats, sizeof(f->recstats), FMT_RS_ROTATION_LOST_EVENTS "=%" PRIu64 "\n",
			 f->gap_events);
	err = f->ops.meta(f->ops.ctx, w, 0, NULL);
	ft_info("dump: start metadata at %llu ms", (unsigned long long)((mono_now() - t0) / 1000000));
	if (!err && !f->c->flight && test_fail_segment(f->segment)) {
		err = -ENOSPC;
		snprintf(why, sizeof(why), "cannot write '%s': %s (FLYTRAP_TEST_FAIL_SEGMENTS)", name,
			 strerror(ENOSPC));
		f->dumping = false;
		f->recstats[0] = '\0';
		goto out;
	}
	if (!err)
		err = store_write(f->st, w, from_ts, &win);
	ft_info("dump: chunks copied at %llu ms", (unsigned long long)((mono_now() - t0) / 1000000));
	if (!err) {
		meta = dump_meta_text(f, &win, reason, trig_ts, from_ts);
		err = meta ? f->ops.meta(f->ops.ctx, w, 1, meta) : -ENOMEM;
	}
	f->dumping = false;
	f->recstats[0] = '\0';
	if (err) {
		const char *detail = fmt_writer_error(w);

		/* the writer's own words name the file (opened under its name) and the offset */
		if (detail && *detail)
			snprintf(why, sizeof(why), "%s", detail);
		else
			snprintf(why, sizeof(why), "cannot write '%s': %s", name, strerror(-err));
		goto out;
	}
	ft_info("dump: end metadata at %llu ms", (unsigned long long)((mono_now() - t0) / 1000000));
	err = fmt_writer_close(w);
	w = NULL;
	if (err) {
		snprintf(why, sizeof(why), "cannot finish '%s': %s", name, strerror(-err));
		goto out;
	}
	err = fmt_test_fault("rename", name);
	if (!err)
		err = dump_place(f, tmp, &final);
	if (err) {
		snprintf(why, sizeof(why), "cannot rename '%s' to '%s': %s", tmp, name, strerror(-err));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	f->gap_files = 0;
	f->gap_events = 0;
	f->last_dump_ms = (mono_now() - t0) / 1000000;
	if (stat(final, &sb))
		sb.st_size = 0;
	f->bytes_dumped += (uint64_t)sb.st_size;
	/* what this file holds besides its chunks: the next rotation's figure */
	if (!f->c->flight && (uint64_t)sb.st_size > win.bytes)
		f->fixed_bytes = (uint64_t)sb.st_size - win.bytes;
	{
		char asked[96] = "";

		if (f->c->flight && f->c->limit_ns && reason)
			snprintf(asked, sizeof(asked), " (%.1f s before the trigger, %.1f s after it)",
				 (double)f->c->limit_ns / 1e9, (double)f->c->after_ns / 1e9);
		fprintf(stderr, "flytrap: wrote '%s': %.1f s of data%s, %.1f MB%s%s (%llu ms)\n", final,
			win.to > win.from ? (double)(win.to - win.from) / 1e9 : 0.0, asked,
			(double)sb.st_size / 1e6, reason ? "; trigger: " : "",
			reason ? reason : "", (unsigned long long)f->last_dump_ms);
	}
	rec_onfile_add(f->onfile, final);
	if (!f->c->flight) {
		char **v = realloc(f->written, (f->nwritten + 1) * sizeof(*v));

		if (v) {
			f->written = v;
			v[f->nwritten++] = final;
			final = NULL;
		}
		while (f->c->keep && f->nwritten > f->c->keep) {
			if (unlink(f->written[0]) && errno != ENOENT)
				ft_warn("cannot remove '%s' (--keep %u): %s", f->written[0], f->c->keep,
					strerror(errno));
			free(f->written[0]);
			memmove(f->written, f->written + 1, (f->nwritten - 1) * sizeof(*f->written));
			f->nwritten--;
		}
	}
out:
	if (w)
		fmt_writer_abort(w);
	if (tmp)
		unlink(tmp);
	scratch_reset(NULL);
	free(tmp);
	free(final);
	free(meta);
	free(win.starts);
	f->start_texts = NULL;
	f->dumping = false;
	f->recstats[0] = '\0';
	if (err) {
		if (!why[0])
			snprintf(why, sizeof(why), "cannot write '%s': %s", name ? name : "?",
				 strerror(-err));
		f->failed++;
		if (f->c->flight)
			ft_error("%s; the dump for trigger '%s' is lost", why, reason ? reason : "?");
		else {
			/*
			 * The chunks go (rotate() clears the store) and the file's
			 * number stays unused: the gap shows in the names, and the
			 * next file says what it lost (rotation_lost_events).
			 */
			if (!f->gap_files)
				f->gap_first_segment = f->segment;
			f->gap_files++;
			f->gap_events += events;
			f->lost_events += events;
			if (number > f->last_number)
				f->last_number = number;
			ft_error("%s; rotation file %u is lost: about %" PRIu64 " events, counted in "
				 "the next file", why, f->segment, events);
		}
	}
	free(name);
	return err;
}

/* ---- triggers and timers ---------------------------------------------------------------- */

/*
 * One trigger: a dump (or the stop, or the next rotation file) starts,
 * joins the one pending, or is ignored.  Counted either way; reply (may be
 * NULL) gets the line `flytrap trigger` prints.
 */
static void take_trigger(struct rec_flight *f, uint64_t now, uint64_t ts, const char *what,
			 char *reply, size_t len)
{
	const struct rec_flight_conf *c = f->c;
	char dummy[8];

	if (!reply) {
		reply = dummy;
		len = sizeof(dummy);
	}
	f->ntrig++;
	if (f->st && !c->flight) {
		/* a rotation takes a trigger as "start the next file now" */
		if (f->rotate_asked) {
			f->trig_joined++;
			snprintf(reply, len, "joined: the next rotation file starts now for an earlier "
				 "trigger");
		} else {
			f->rotate_asked = true;
			f->trig_started++;
			snprintf(reply, len, "the next rotation file starts now");
		}
		return;
	}
	if (f->pending) {
		/* one dump covers the triggers that fire while it waits for --after */
		f->trig_joined++;
		snprintf(reply, len, "joined the %s in progress (trigger '%s', %.1f s ago)",
			 c->flight ? "dump" : "stop", f->trig_what,
			 now > f->last_dump_trig ? (double)(now - f->last_dump_trig) / 1e9 : 0.0);
		return;
	}
	if (c->max_dumps && f->ndumps >= c->max_dumps) {
		f->suppressed++;
		f->trig_max++;
		if (!f->max_noted)
			ft_warn("trigger '%s' ignored: --max-dumps %u reached", what, c->max_dumps);
		f->max_noted = true;
		snprintf(reply, len, "ignored: --max-dumps %u reached", c->max_dumps);
		return;
	}
	if (c->min_gap_ns && f->last_dump_trig && now - f->last_dump_trig < c->min_gap_ns) {
		f->suppressed++;
		f->trig_gap++;
		ft_info("trigger '%s' ignored: within --min-gap of the previous one", what);
		snprintf(reply, len, "ignored: %.1f s after the last dump's trigger, within --min-gap "
			 "%.1f s", (double)(now - f->last_dump_trig) / 1e9, (double)c->min_gap_ns / 1e9);
		return;
	}
	f->trig_started++;
	f->pending = true;
	f->trig_ts = ts ? ts : now;
	f->due = now + c->after_ns;
	snprintf(f->trig_what, sizeof(f->trig_what), "%s", what);
	f->last_dump_trig = now;
	if (f->st) {
		pthread_mutex_lock(&f->st->mu);
		f->st->hold_ts = f->trig_ts;
		pthread_mutex_unlock(&f->st->mu);
	}
	if (c->flight)
		snprintf(reply, len, "a dump of the window is written in %.1f s (--after)",
			 (double)c->after_ns / 1e9);
	else
		snprintf(reply, len, "the recording stops in %.1f s (--after)",
			 (double)c->after_ns / 1e9);
	if (!ft_progress_enabled() || ft_verbose)
		fprintf(stderr, "flytrap: trigger: %s%s\n", what,
			c->flight ? "; writing the window after --after" : "; stopping after --after");
}

/*
 * Triggers that arrived since the last pass: each SIGUSR1 the handler
 * counted, and each request `flytrap trigger` left (it sends SIGUSR2; two
 * signals of one kind merge while blocked, the requests do not).
 */
static void take_signals(struct rec_flight *f, uint64_t now)
{
	sig_atomic_t sig = rec_trigger_signal, req = rec_request_signal;
	unsigned n = (unsigned)(sig - f->seen_signal), k;
	char reply[320];

	f->seen_signal = sig;
	for (k = 0; k < n; k++)
		take_trigger(f, now, 0, "signal (SIGUSR1)", NULL, 0);
	if (req != f->seen_request) {
		struct rec_trig_req v[32];
		int got, i;

		f->seen_request = req;
		do {
			got = rec_trig_take(getpid(), v, 32);
			for (i = 0; i < got; i++) {
				char what[64];

				snprintf(what, sizeof(what), "flytrap trigger (pid %d)", (int)v[i].from);
				take_trigger(f, now, v[i].ts, what, reply, sizeof(reply));
				if (rec_trig_reply(getpid(), v[i].from, reply))
					ft_info("cannot answer the trigger of pid %d", (int)v[i].from);
			}
		} while (got == 32);
	}
}

static int serve_pending(struct rec_flight *f)
{
	uint64_t from = 0;
	int err;

	if (f->c->limit_ns)
		from = f->trig_ts > f->c->limit_ns ? f->trig_ts - f->c->limit_ns : 1;
	err = dump(f, from, f->trig_what, f->trig_ts);
	f->pending = false;
	pthread_mutex_lock(&f->st->mu);
	f->st->hold_ts = 0;
	store_trim(f->st);
	pthread_mutex_unlock(&f->st->mu);
	if (!err)
		f->ndumps++;
	return err;
}

/*
 * The size of a file with no chunks in it, for --rotate SIZE: written once
 * beside the output and removed.  On failure the rotation counts chunks only.
 */
static void measure_fixed(struct rec_flight *f)
{
	struct fmt_writer_opts wo = f->dump_wo;
	struct fmt_writer *w = NULL;
	char *dest = dump_dest(f), *tmp = NULL;
	struct stat sb;
	int err;

	f->fixed_known = true;
	wo.keep_temp = true;
	wo.discard_spools_on_error = true;
	if (!dest || fmt_writer_open(dest, &wo, &w))
		goto out;
	tmp = strdup(fmt_writer_temp(w));
	if (tmp)
		scratch_reset(tmp);
	err = tmp ? f->ops.meta(f->ops.ctx, w, 0, NULL) : -ENOMEM;
	if (!err)
		err = f->ops.meta(f->ops.ctx, w, 1, FMT_META_RECORDING_MODE "=rotate\n");
	if (err) {
		fmt_writer_abort(w);
		goto out;
	}
	err = fmt_writer_close(w);
	if (!err && !stat(tmp, &sb))
		f->fixed_bytes = (uint64_t)sb.st_size;
	ft_info("rotate: a file without data takes %llu bytes", (unsigned long long)f->fixed_bytes);
out:
	if (tmp)
		unlink(tmp);
	scratch_reset(NULL);
	free(tmp);
	free(dest);
}

/* The chunk bytes at which the file being filled is written. */
static uint64_t rotate_at(struct rec_flight *f)
{
	uint64_t want = f->c->rotate_bytes, floor = want / 8;

	if (f->fixed_bytes + floor <= want)
		return want - f->fixed_bytes;
	if (!f->fixed_noted) {
		f->fixed_noted = true;
		ft_warn("--rotate %.1f MB: a file's fixed part (symbols, formats, maps) is %.1f MB "
			"already; the files will be larger than asked", (double)want / 1e6,
			(double)f->fixed_bytes / 1e6);
	}
	return floor;
}

static int rotate(struct rec_flight *f)
{
	int err = dump(f, 0, NULL, 0);

	/* a failed file is lost, the next one starts clean: no overlap either way */
	store_clear(f->st);
	f->segment++;
	if (!err)
		f->ndumps++;
	return 0;
}

int rec_flight_tick(struct rec_flight *f, uint64_t now, bool *stop, const char **reason)
{
	const struct rec_flight_conf *c = f->c;
	char what[256];
	uint64_t ts = 0;
	int err = 0;

	*stop = false;
	rec_onfile_poll(f->onfile);
	if (f->st && f->st->err) {
		ft_error("cannot keep the recording's chunks: %s", strerror(-f->st->err));
		return f->st->err;
	}
	sample_stats(f, now);
	if (f->budget)
		rec_budget_tick(f->budget, now);
	/* before any file of a rotation by size is written */
	if (f->st && !c->flight && c->rotate_bytes && !f->fixed_known)
		measure_fixed(f);
	if (rec_trigger_signal != f->seen_signal || rec_request_signal != f->seen_request)
		take_signals(f, now);
	if (f->rotate_asked) {
		f->rotate_asked = false;
		err = rotate(f);
	}
	if (f->trig && rec_trig_poll(f->trig, what, sizeof(what), &ts) > 0)
		take_trigger(f, now, ts, what, NULL, 0);
	if (f->pending && now >= f->due) {
		if (!f->st) {
			static char buf[300];

			snprintf(buf, sizeof(buf), "trigger: %s", f->trig_what);
			*stop = true;
			*reason = buf;
			return 0;
		}
		serve_pending(f);
	}
	if (f->st && !c->flight) {
		uint64_t first, last, bytes;

		store_span(f->st, &first, &last, &bytes);
		if ((c->rotate_bytes && bytes >= rotate_at(f)) ||
		    (c->rotate_ns && now >= f->next_rotate)) {
			err = rotate(f);
			if (c->rotate_ns)
				f->next_rotate = now + c->rotate_ns;
		}
	}
	return err;
}

uint64_t rec_flight_wait_ns(const struct rec_flight *f, uint64_t now, uint64_t wait_ns)
{
	if (f->pending && f->due > now && f->due - now < wait_ns)
		wait_ns = f->due - now;
	if (f->pending && f->due <= now)
		wait_ns = 1;
	if (f->next_rotate && f->next_rotate > now && f->next_rotate - now < wait_ns)
		wait_ns = f->next_rotate - now;
	/* the store can reach the rotation size between two wake-ups */
	if (f->c->rotate_bytes && wait_ns > 200000000ULL)
		wait_ns = 200000000ULL;
	return wait_ns ? wait_ns : 1;
}

int rec_flight_finish(struct rec_flight *f)
{
	uint64_t first, last, bytes;

	if (!f)
		return 0;
	/*
	 * Tried even after a write error: the store may still hold the window,
	 * and a dump that cannot be made is said and counted (rec_flight_failed),
	 * never dropped without a word.
	 */
	if (f->pending && f->st) {
		serve_pending(f);
		return 0;
	}
	if (f->st && !f->c->flight) {
		f->ops.drain(f->ops.ctx);
		store_span(f->st, &first, &last, &bytes);
		if (bytes)
			return rotate(f);
	}
	return 0;
}

char *rec_flight_stop_meta(struct rec_flight *f)
{
	char *t = NULL;

	if (!f || !f->trig_what[0])
		return NULL;
	if (asprintf(&t, FMT_META_RECORDING_MODE "=stop\n" FMT_META_TRIGGER "=%s\n"
		     FMT_META_TRIGGER_TS "=%" PRIu64 "\n", f->trig_what, f->trig_ts) < 0)
		return NULL;
	return t;
}

const char *rec_flight_status(struct rec_flight *f)
{
	uint64_t first = 0, last = 0, bytes = 0;
	size_t n = 0;

	f->status[0] = '\0';
	if (f->st) {
		store_span(f->st, &first, &last, &bytes);
		if (f->c->flight)
			n += (size_t)snprintf(f->status, sizeof(f->status), "  window %.1fs/%.1f MB",
					      first < last ? (double)(last - first) / 1e9 : 0.0,
					      (double)bytes / 1e6);
		else
			n += (size_t)snprintf(f->status, sizeof(f->status), "  file %u %.1f MB", f->segment,
					      (double)bytes / 1e6);
	}
	if (n < sizeof(f->status))
		n += (size_t)snprintf(f->status + n, sizeof(f->status) - n, "  %u dump%s%s", f->ndumps,
				      f->ndumps == 1 ? "" : "s", f->pending ? " (1 pending)" : "");
	if (f->budget && n < sizeof(f->status))
		snprintf(f->status + n, sizeof(f->status) - n, "%s", rec_budget_status(f->budget));
	return f->status;
}

unsigned rec_flight_failed(const struct rec_flight *f)
{
	return f ? f->failed : 0;
}

bool rec_flight_dumping(const struct rec_flight *f)
{
	return f && f->dumping;
}

const char *rec_flight_recstats(const struct rec_flight *f)
{
	return f && f->dumping ? f->recstats : "";
}

void rec_flight_summary(struct rec_flight *f)
{
	uint64_t first = 0, last = 0, bytes = 0;

	if (!f)
		return;
	if (f->st)
		store_span(f->st, &first, &last, &bytes);
	if (f->c->flight)
		fprintf(stderr, "flytrap: flight recorder: held %.1f s in %.1f MB at the end (limit %.1f MB%s), "
			"%u dump%s written, %u failed\n",
			first < last ? (double)(last - first) / 1e9 : 0.0, (double)bytes / 1e6,
			(double)f->c->limit_bytes / 1e6, f->c->limit_ns ? " and a time limit" : "",
			f->ndumps, f->ndumps == 1 ? "" : "s", f->failed);
	else if (f->st && !f->failed)
		fprintf(stderr, "flytrap: rotation: %u file%s written (%.1f MB), %zu kept\n", f->ndumps,
			f->ndumps == 1 ? "" : "s", (double)f->bytes_dumped / 1e6,
			f->c->keep ? f->nwritten : (size_t)f->ndumps);
	else if (f->st)
		fprintf(stderr, "flytrap: rotation: %u file%s written (%.1f MB), %zu kept, %u could not "
			"be written (about %" PRIu64 " events lost%s)\n", f->ndumps,
			f->ndumps == 1 ? "" : "s", (double)f->bytes_dumped / 1e6,
			f->c->keep ? f->nwritten : (size_t)f->ndumps, f->failed, f->lost_events,
			f->gap_files ? ", the last ones counted in no file" : ", counted in the next files");
	/* every trigger accounted for: N = D + J + I (+ --max-dumps) */
	if (f->ntrig || f->c->flight) {
		fprintf(stderr, "flytrap: %u trigger%s: %u %s%s, %u joined a %s in progress, %u ignored "
			"(--min-gap)", f->ntrig, f->ntrig == 1 ? "" : "s", f->trig_started,
			!f->c->flight && f->st ? "new file" : f->c->flight ? "dump" : "stop",
			f->trig_started == 1 ? "" : "s",
			f->trig_joined, f->c->flight ? "dump" : !f->st ? "stop" : "new file", f->trig_gap);
		if (f->trig_max)
			fprintf(stderr, ", %u ignored (--max-dumps)", f->trig_max);
		fputc('\n', stderr);
	}
	if (f->budget)
		rec_budget_summary(f->budget);
}

char *rec_flight_shed_meta(struct rec_flight *f, uint64_t from_ns, uint64_t to_ns)
{
	if (!f || !f->budget)
		return NULL;
	return rec_budget_meta(f->budget, from_ns, to_ns);
}

struct rec_budget *rec_flight_budget(struct rec_flight *f)
{
	return f ? f->budget : NULL;
}

void rec_flight_file_done(struct rec_flight *f, const char *path)
{
	if (f)
		rec_onfile_add(f->onfile, path);
}

void rec_flight_free(struct rec_flight *f)
{
	int i;

	if (!f)
		return;
	rec_onfile_free(f->onfile);
	rec_trig_state_free(f->trig);
	rec_budget_free(f->budget);
	store_free(f->st);
	for (i = 0; i < f->nsamples; i++)
		free_texts(f->samples[i].texts, f->samples[i].n);
	for (i = 0; i < (int)f->nwritten; i++)
		free(f->written[i]);
	free(f->written);
	name_release(&f->name);
	free(f);
}

char *rec_flight_last_file(const char *output)
{
	struct dump_name nm;
	char *path = NULL;
	unsigned n;

	memset(&nm, 0, sizeof(nm));
	if (!name_split(output, &nm) && (n = highest_number(&nm)) &&
	    asprintf(&path, "%s%s%s-%04u%s", nm.bare ? "" : nm.dir, nm.bare ? "" : "/", nm.stem, n,
		     nm.ext) < 0)
		path = NULL;
	name_release(&nm);
	return path;
}

/* Place tmp as the next free "<stem>-NNNN<ext>" of output, never replacing; 0 or -errno. */
int rec_flight_place(const char *output, const char *tmp, char **final)
{
	struct rec_flight f;
	int err;

	memset(&f, 0, sizeof(f));
	*final = NULL;
	if (name_split(output, &f.name)) {
		name_release(&f.name);
		return -ENOMEM;
	}
	err = dump_place(&f, tmp, final);
	name_release(&f.name);
	return err;
}
