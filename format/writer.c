// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 7 writer.
 *
 * File order (the same as trace-cmd's, docs/trace-dat-format.md §6):
 *   header, metadata sections as they are given (HEADER_INFO, KALLSYMS, …),
 *   FTRACE_EVENTS + EVENT_FORMATS and OPTIONS#1 when the first buffer
 *   starts, any later metadata / OPTIONS (fmt_wbuf_flush), and at close the
 *   BUFFER sections, the final OPTIONS (BUFFER descriptors and late options)
 *   and STRINGS.  Sections are contiguous and each OPTIONS section is linked
 *   into the chain as soon as it is written, so the output is a valid prefix
 *   of the final file at every moment.
 *
 * Ring-buffer pages are not written to the output while recording: each
 * (buffer, CPU) has a spool file next to the output holding its chunks in
 * their final on-disk form ({u32 csize, u32 usize, zstd frame} or raw
 * pages).  close() copies each spool into the buffer's section (one
 * copy_file_range per CPU).  A writer killed at any point leaves the output
 * prefix plus the spools; fmt_writer_recover() walks both and finishes the
 * file.  docs/file-format.md describes the spool layout.
 *
 * Full chunks are compressed and spooled by a worker thread (see struct
 * worker) so the caller only copies pages.  The API itself is not
 * thread-safe: one writer is driven by one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "ftmeta.h"

#define SPOOL_MAGIC	"FTSPOOL1"
#define SPOOL_FL_COMPRESSED	1u
#define SPOOL_FL_BIG_ENDIAN	2u
#define SEC_FL_COMPRESS		1u
#define MAX_CPUS		4096
#define MAX_CHUNK_BYTES		(64u << 20)	/* the reader refuses larger chunks */

struct dynbuf {
	uint8_t *data;
	size_t len, cap;
};

struct wcpu {
	int cpu;
	int fd;			/* spool, -1 until the first page */
	char *path;
	uint32_t hdr_size;	/* spool header bytes before the chunks */
	uint8_t *chunk;		/* pages_per_chunk pages waiting to be spooled */
	uint32_t npending;
	uint64_t spooled;	/* bytes of chunks in the spool */
	uint32_t nchunks;
	/* {stored length, CRC32C} per chunk as spooled (the checksums option) */
	uint32_t *sums;
	uint32_t nsums, sums_cap;
	bool sums_bad;		/* out of memory once: no checksums for this CPU */
	/* the time index: one entry per chunk as spooled (rebuilt from the spool if short) */
	struct tix *tix;
	uint32_t ntix, tix_cap;
	bool tix_bad;
	/* the index's facts (FMT_SEC_FT_FACTS): one per index entry, same chunks */
	struct wfact *facts;
	uint32_t nfacts, facts_cap;
	struct dynbuf floss, fname;	/* loss and name records, chunk after chunk */
	struct dynbuf fstate;		/* state records (FMT_SEC_FT_STATE), chunk after chunk */
	bool facts_bad;			/* a page the readers find damaged, or no memory */
	bool fprev, funsorted;		/* an event seen (fprev_ts its stamp); stamps went back */
	uint64_t fprev_ts;
	/* the pool's turns: chunks queued / stored so far (under the pool's lock) */
	uint64_t seq_next, seq_done;
	uint32_t crc_all;	/* CRC32C of the spooled bytes (the file digest) */
	bool crc_bad;		/* a spool this writer did not write whole: no crc_all */
};

/* What one chunk holds (FMT_SEC_FT_FACTS): events, raw stamps, losses and names. */
struct wfact {
	uint32_t nev, nloss, nnames;
	uint32_t npages, nstate;	/* pages with an event; state records */
	uint64_t first, last;
};

/* One chunk of the time index (FMT_SEC_FT_TIMEINDEX): raw stamps and sizes. */
struct tix {
	uint64_t first, last;
	uint32_t len, raw;
};

struct fmt_wbuf {
	struct fmt_writer *w;
	int index;		/* creation order, part of the spool names */
	char *name;
	char *clock;
	struct wcpu **cpus;	/* by CPU id */
	int cpus_len;
	uint64_t bytes;
	int64_t queued;		/* raw bytes in the worker's queue */
};

struct sysfmts {
	char *name;
	struct dynbuf body;	/* {u64 size, text} per event */
	uint32_t count;
};

struct fmt_writer {
	int fd;
	char *path;
	struct fmt_outfile out;	/* the temporary file behind fd (fd is ours; out.fd -1) */
	bool keep_temp;
	char *spool_prefix;	/* "<dir>/<temp's base>.spool." */
	dev_t dev;
	ino_t ino;
	bool be;
	bool compress;
	int long_size;
	uint32_t page_size;
	uint32_t ppc;		/* pages per chunk */
	int level;		/* zstd level */
	bool no_worker;		/* the pool could not start: compress in the caller */
	int nthreads;		/* compression threads of the pool */
	pthread_mutex_t amu;	/* adders of different CPUs meet here once per chunk */
	struct fmt_zctx *z;
	uint8_t *zbuf;		/* one compressed chunk with its 8-byte header */
	size_t zcap;

	uint64_t off;		/* end of the output */
	/*
	 * The file digest, fed as the output is written: CRC32C of bytes
	 * [0, dg_len).  Appends extend it, a patch of known bytes corrects
	 * it, a spool copied in is combined from its own CRC.  Any other
	 * write (recovery) loses it: close then reads the file back.
	 */
	uint32_t dg_crc;
	uint64_t dg_len;
	bool dg_lost;
	uint64_t link_at;	/* where the next OPTIONS offset goes: header pointer or last DONE */
	struct dynbuf opts;	/* queued options, encoded */
	bool have_cpucount;
	bool have_headers;
	char *last_stat_buf;	/* buffer of the previous CPUSTAT, for "Buffer:" markers */
	struct dynbuf sums;	/* the checksums option, built as buffers are written */
	uint32_t nsum_entries;
	bool sums_bad_all;	/* building it ran out of memory: no option */
	uint64_t last_opts_off;	/* section offset of the OPTIONS written last */
	struct dynbuf tix;	/* the time index section, built as buffers are written */
	uint32_t ntix_entries;
	bool tix_bad_all;
	/*
	 * The facts: which event ids name tasks (format/names.c), from the
	 * formats given before the first chunk (nsrc_built, under amu); a
	 * format given later makes them stale, and close walks the spools
	 * again with every format.
	 */
	struct tep_handle *ntep;
	uint8_t *nsrc_of;		/* by event id: index + 1 into nsrc, 0 none */
	struct fmt_namesrc *nsrc;
	int nnsrc;
	/* which event ids set state (format/names.c), built with nsrc_of */
	uint16_t *ssrc_of;		/* by event id: index + 1 into ssrc, 0 none */
	struct fmt_statesrc *ssrc;
	int nssrc;
	struct dynbuf state;	/* the state section's entries, built with the facts' */
	uint32_t nstate_entries;
	bool nsrc_built, facts_stale, facts_off;
	bool facts_redo;		/* close: every CPU's facts from its spool */
	struct dynbuf facts;	/* the facts section's entries, built with the index's */
	uint32_t nfact_entries;
	/* fmt_writer_cmdlines_events(): the text, written at close with the events' names */
	char *cmdlines_text;
	size_t cmdlines_len;
	bool cmdlines_pending;
	bool long8;		/* the pages' commit field is 8 bytes (header_page, else long size) */

	struct dynbuf ftrace;
	uint32_t nftrace;
	struct sysfmts *systems;
	int nsystems;
	bool formats_written, ftrace_dirty, events_dirty;

	struct dynbuf strings;
	struct fmt_wbuf **bufs;
	int nbufs;
	int err;		/* sticky: the first write error */
	bool recovering;
	bool discard_spools;	/* even when close fails */
	const char *fault_kind;	/* what is being written, for fmt_test_fault() (tests) */
	int (*sink)(void *ctx, const struct fmt_chunk *c);
	void *sink_ctx;
	int (*observer)(void *ctx, const struct fmt_chunk *c);
	void *obs_ctx;
	void (*on_spool)(void *arg, const char *path);
	void *on_spool_arg;
	char errbuf[512];

	/*
	 * Compression pool: full chunks are handed to nthreads threads that
	 * compress them and append them to their spools, so the caller (the
	 * recorder's capture threads) does not wait for zstd.  Chunks of
	 * different CPUs compress side by side; each CPU's are stored in
	 * the order they were queued (its turns, seq_next / seq_done), which
	 * keeps every spool in page order.  The queue is bounded: a caller
	 * that outruns the compressors waits.
	 */
	struct worker *wk;
};

struct wjob {
	struct fmt_wbuf *b;
	struct wcpu *c;
	uint8_t *buf;
	uint32_t npages;
	uint64_t seq;			/* the CPU's turn */
};

struct wthread {
	pthread_t th;
	struct fmt_writer *w;
	struct fmt_zctx *z;		/* this thread's compressor */
	uint8_t *zbuf;			/* one compressed chunk with its 8-byte header */
};

struct worker {
	pthread_mutex_t mu;
	pthread_cond_t cv_job;		/* a job was queued, or quit */
	pthread_cond_t cv_done;		/* a job stored (room in the queue, a turn, drained) */
	struct wjob *q;
	int qcap, head, count;
	int nbusy;			/* jobs taken and not stored yet */
	bool quit;
	bool paused;			/* a fork is under way: take no job (fork_prepare) */
	struct worker *next;		/* in the list of running pools */
	struct wthread *th;
	int nth, nstarted;
	uint8_t **free_bufs;		/* chunk buffers to reuse */
	int nfree, free_cap;
	int err;			/* first failure in the pool */
	char errbuf[512];
};

#define crc_cat fmt_crc32c_cat

/* ---- small helpers ------------------------------------------------------ */

static int werr(struct fmt_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int werr(struct fmt_writer *w, int err, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(w->errbuf, sizeof(w->errbuf), fmt, ap);
	va_end(ap);
	n = strlen(w->errbuf);
	if (err && n < sizeof(w->errbuf) - 3)
		snprintf(w->errbuf + n, sizeof(w->errbuf) - n, ": %s", strerror(-err));
	return err;
}

static inline bool host_be(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static void put16(bool be, void *p, uint16_t v)
{
	if (be != host_be())
		v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static void put32(bool be, void *p, uint32_t v)
{
	if (be != host_be())
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static void put64(bool be, void *p, uint64_t v)
{
	if (be != host_be())
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static uint32_t get32(bool be, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be != host_be() ? __builtin_bswap32(v) : v;
}

static uint64_t get64(bool be, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be != host_be() ? __builtin_bswap64(v) : v;
}

static uint16_t get16(bool be, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be != host_be() ? __builtin_bswap16(v) : v;
}

static int db_reserve(struct dynbuf *d, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (more > SIZE_MAX - d->len)
		return -EOVERFLOW;
	if (d->len + more <= d->cap)
		return 0;
	cap = d->cap ? d->cap : 256;
	while (cap < d->len + more)
		cap = cap > SIZE_MAX / 2 ? d->len + more : cap * 2;
	p = realloc(d->data, cap);
	if (!p)
		return -ENOMEM;
	d->data = p;
	d->cap = cap;
	return 0;
}

static int db_add(struct dynbuf *d, const void *p, size_t n)
{
	int err = db_reserve(d, n);

	if (err)
		return err;
	if (n)
		memcpy(d->data + d->len, p, n);
	d->len += n;
	return 0;
}

static int db_add16(struct dynbuf *d, bool be, uint16_t v)
{
	uint8_t b[2];

	put16(be, b, v);
	return db_add(d, b, 2);
}

static int db_add32(struct dynbuf *d, bool be, uint32_t v)
{
	uint8_t b[4];

	put32(be, b, v);
	return db_add(d, b, 4);
}

static int db_add64(struct dynbuf *d, bool be, uint64_t v)
{
	uint8_t b[8];

	put64(be, b, v);
	return db_add(d, b, 8);
}

static void db_free(struct dynbuf *d)
{
	free(d->data);
	d->data = NULL;
	d->len = d->cap = 0;
}

/* Write all of iov at off in the output (pwritev, retried on short writes); no digest. */
static int out_writev_raw(struct fmt_writer *w, uint64_t off, struct iovec *iov, int n)
{
	uint64_t done = 0;
	int err;

	if (w->err)
		return w->err;
	if (!w->recovering) {
		int f = fmt_test_fault(w->fault_kind ? w->fault_kind : "header", w->path);

		if (f) {
			w->err = werr(w, f, "cannot write '%s' at offset %llu", w->path,
				      (unsigned long long)off);
			return w->err;
		}
	}
	err = fmt_pwritev_all(w->fd, iov, n, off, &done);
	if (err)
		w->err = werr(w, err, "cannot write '%s' at offset %llu", w->path,
			      (unsigned long long)(off + done));
	return err;
}

/* The digest of what iov writes at off (before the write changes iov). */
static void dg_feed(struct fmt_writer *w, uint64_t off, const struct iovec *iov, int n)
{
	if (w->dg_lost)
		return;
	if (off != w->dg_len) {
		w->dg_lost = true;
		return;
	}
	for (int i = 0; i < n; i++) {
		w->dg_crc = fmt_crc32c(w->dg_crc, iov[i].iov_base, iov[i].iov_len);
		w->dg_len += iov[i].iov_len;
	}
}

static int out_writev(struct fmt_writer *w, uint64_t off, struct iovec *iov, int n)
{
	if (!w->err)
		dg_feed(w, off, iov, n);
	return out_writev_raw(w, off, iov, n);
}

static int out_write(struct fmt_writer *w, uint64_t off, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	return out_writev(w, off, &iov, 1);
}

/* Overwrite n bytes at off that were old (written before, through the digest). */
static int out_patch(struct fmt_writer *w, uint64_t off, const void *old, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };
	int err = out_writev_raw(w, off, &iov, 1);

	if (!err && !w->dg_lost) {
		if (off + n <= w->dg_len)
			w->dg_crc = fmt_crc32c_patch(w->dg_crc, old, p, n, w->dg_len - off - n);
		else
			w->dg_lost = true;
	}
	return err;
}

static int fd_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t r = write(fd, b, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Offset of s in the STRINGS table, adding it once. */
static int32_t string_id(struct fmt_writer *w, const char *s)
{
	size_t i = 0, n;

	if (!s)
		return -1;
	n = strlen(s) + 1;
	while (i < w->strings.len) {
		size_t l = strlen((char *)w->strings.data + i) + 1;

		if (l == n && !memcmp(w->strings.data + i, s, n))
			return (int32_t)i;
		i += l;
	}
	if (w->strings.len + n > INT32_MAX || db_add(&w->strings, s, n))
		return -1;
	return (int32_t)i;
}

static const char *section_desc(uint16_t id)
{
	switch (id) {
	case FMT_OPT_DONE: return "options";
	case FMT_OPT_STRINGS: return "strings";
	case FMT_OPT_HEADER_INFO: return "headers";
	case FMT_OPT_FTRACE_EVENTS: return "ftrace events";
	case FMT_OPT_EVENT_FORMATS: return "events format";
	case FMT_OPT_KALLSYMS: return "kallsyms";
	case FMT_OPT_PRINTK: return "printk";
	case FMT_OPT_CMDLINES: return "command lines";
	case FMT_SEC_FT_SYMTAB: return "flytrap symtab";
	case FMT_SEC_FT_PROCMAPS: return "flytrap procmaps";
	case FMT_SEC_FT_SPOOLDIR: return "flytrap spool";
	default: return NULL;
	}
}

/*
 * Append one section at the end of the output: 16-byte header, then the
 * body, compressed as one block when asked.  *offset gets the header offset.
 */
static int write_section(struct fmt_writer *w, uint16_t id, const char *desc, bool compress,
			 const void *body, size_t len, uint64_t *offset)
{
	uint8_t hdr[16 + 8];
	struct iovec iov[2];
	void *cbuf = NULL;
	size_t cap, total;
	ssize_t clen;
	int32_t sid = desc ? string_id(w, desc) : -1;
	int err;

	if (w->err)
		return w->err;
	put16(w->be, hdr, id);
	put32(w->be, hdr + 4, (uint32_t)sid);
	if (compress) {
		if (len > UINT32_MAX)
			return werr(w, -EOVERFLOW, "section %u of %zu bytes is too large", id, len);
		cap = fmt_compress_bound("zstd", len);
		cbuf = malloc(cap ? cap : 1);
		if (!cbuf)
			return werr(w, -ENOMEM, "cannot compress section %u", id);
		clen = fmt_zctx_compress(w->z, body, len, cbuf, cap);
		if (clen < 0) {
			free(cbuf);
			return werr(w, (int)clen, "cannot compress section %u", id);
		}
		put16(w->be, hdr + 2, SEC_FL_COMPRESS);
		put64(w->be, hdr + 8, 8 + (uint64_t)clen);
		put32(w->be, hdr + 16, (uint32_t)clen);
		put32(w->be, hdr + 20, (uint32_t)len);
		iov[0] = (struct iovec){ hdr, 24 };
		iov[1] = (struct iovec){ cbuf, (size_t)clen };
	} else {
		put16(w->be, hdr + 2, 0);
		put64(w->be, hdr + 8, len);
		iov[0] = (struct iovec){ hdr, 16 };
		iov[1] = (struct iovec){ (void *)body, len };
	}
	if (offset)
		*offset = w->off;
	total = iov[0].iov_len + iov[1].iov_len;
	err = out_writev(w, w->off, iov, 2);
	if (!err)
		w->off += total;
	free(cbuf);
	return err;
}

static int queue_option(struct fmt_writer *w, uint16_t id, const void *data, uint32_t len)
{
	int err;

	if ((err = db_add16(&w->opts, w->be, id)) || (err = db_add32(&w->opts, w->be, len)) ||
	    (err = db_add(&w->opts, data, len)))
		return werr(w, err, "cannot queue option %u", id);
	if (id == FMT_OPT_CPUCOUNT)
		w->have_cpucount = true;
	return 0;
}

static int queue_ptr_option(struct fmt_writer *w, uint16_t id, uint64_t offset)
{
	uint8_t b[8];

	put64(w->be, b, offset);
	return queue_option(w, id, b, 8);
}

/*
 * Write the queued options as one OPTIONS section ending in DONE(0), then
 * link it from the previous DONE (or the header).  The link is written
 * last, so a crash in between leaves a valid, shorter chain.
 */
static int write_options(struct fmt_writer *w, bool even_if_empty)
{
	uint64_t off, next;
	uint8_t b[8];
	int err;

	if (!w->opts.len && !even_if_empty)
		return w->err;
	if ((err = db_add16(&w->opts, w->be, FMT_OPT_DONE)) || (err = db_add32(&w->opts, w->be, 8)) ||
	    (err = db_add64(&w->opts, w->be, 0)))
		return werr(w, err, "cannot build the options section");
	err = write_section(w, FMT_OPT_DONE, "options", false, w->opts.data, w->opts.len, &off);
	if (err)
		return err;
	next = off + 16 + w->opts.len - 8;
	w->last_opts_off = off;
	w->opts.len = 0;
	put64(w->be, b, off);
	/* the header's pointer and a DONE's were written as 0 */
	err = out_patch(w, w->link_at, (uint8_t[8]){ 0 }, b, 8);
	if (err)
		return err;
	w->link_at = next;
	return 0;
}

/* ---- open and metadata -------------------------------------------------- */

const char *fmt_writer_error(const struct fmt_writer *w)
{
	return w ? w->errbuf : "";
}

const char *fmt_writer_temp(const struct fmt_writer *w)
{
	return w && w->out.temp ? w->out.temp : w ? w->path : NULL;
}

static char *spool_prefix_for(const char *path, const char *dir)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *d = NULL, *out = NULL;

	if (dir)
		d = strdup(dir);
	else if (slash)
		d = strndup(path, (size_t)(slash - path) + (slash == path));
	else
		d = strdup(".");
	if (!d)
		return NULL;
	/* a hidden base (a temporary file's) is not hidden twice */
	if (asprintf(&out, "%s/%s%s.spool.", d, *base == '.' ? "" : ".", base) < 0)
		out = NULL;
	free(d);
	return out;
}

static struct fmt_writer *writer_alloc(void)
{
	struct fmt_writer *w = calloc(1, sizeof(*w));

	if (w) {
		w->fd = -1;
		w->out.fd = -1;	/* writer_free() releases it: never fd 0 */
		w->nthreads = 1;
		pthread_mutex_init(&w->amu, NULL);
	}
	return w;
}

static void writer_free(struct fmt_writer *w);

static int writer_setup_chunks(struct fmt_writer *w, int level)
{
	size_t chunk = (size_t)w->ppc * w->page_size;

	if (!w->compress)
		return 0;
	w->level = level;
	w->z = fmt_zctx_new("zstd", level);
	if (!w->z)
		return -errno;
	w->zcap = 8 + fmt_compress_bound("zstd", chunk);
	w->zbuf = malloc(w->zcap);
	return w->zbuf ? 0 : -ENOMEM;
}

int fmt_writer_open(const char *path, const struct fmt_writer_opts *opts, struct fmt_writer **out)
{
	static const struct fmt_writer_opts defaults;
	struct fmt_writer *w;
	const char *comp;
	uint8_t hdr[64];
	size_t n = 0;
	struct stat st;
	int err = 0;
	char *dir_abs = NULL;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	w = writer_alloc();
	if (!w)
		return -ENOMEM;
	comp = opts->compression ? opts->compression : "zstd";
	w->path = strdup(path);
	w->be = opts->big_endian;
	w->long_size = opts->long_size ? opts->long_size : (int)sizeof(long);
	w->long8 = w->long_size == 8;
	w->page_size = opts->page_size ? opts->page_size : 4096;
	w->ppc = opts->pages_per_chunk > 0 ? (uint32_t)opts->pages_per_chunk : 10;
	w->discard_spools = opts->discard_spools_on_error;
	w->sink = opts->chunk_sink;
	w->sink_ctx = opts->chunk_ctx;
	w->observer = opts->page_observer;
	{
		/* benchmark hook (bench/window.sh): a file without the index's facts */
		const char *f = getenv("FLYTRAP_WRITER_FACTS");

		/* a chunk sink (the flight recorder's ring) writes no file: its dumps get their own */
		w->facts_off = (f && !strcmp(f, "0")) || opts->chunk_sink;
	}
	w->obs_ctx = opts->observer_ctx;
	w->on_spool = opts->on_spool;
	w->on_spool_arg = opts->on_spool_arg;
	w->keep_temp = opts->keep_temp;
	w->nthreads = opts->threads > 0 ? (opts->threads > 256 ? 256 : opts->threads) : 1;
	if (!w->path) {
		err = -ENOMEM;
		goto fail;
	}
	if (strcmp(comp, "zstd") && strcmp(comp, "none")) {
		err = werr(w, -EOPNOTSUPP, "cannot write '%s': unsupported compression '%s'", path, comp);
		goto fail;
	}
	w->compress = !strcmp(comp, "zstd");
	if ((w->long_size != 4 && w->long_size != 8) || w->page_size < 64 ||
	    w->page_size > (1U << 27) || w->page_size % 4 ||
	    (uint64_t)w->ppc * w->page_size > MAX_CHUNK_BYTES) {
		err = werr(w, -EINVAL, "cannot write '%s': invalid long size %d, page size %u or %u pages per chunk",
			   path, w->long_size, w->page_size, w->ppc);
		goto fail;
	}
	if (opts->spool_dir) {
		dir_abs = realpath(opts->spool_dir, NULL);
		if (!dir_abs) {
			err = werr(w, -errno, "cannot use spool directory '%s'", opts->spool_dir);
			goto fail;
		}
	}
	err = writer_setup_chunks(w, opts->zstd_level);
	if (err) {
		err = werr(w, err, "cannot set up compression");
		goto fail;
	}
	/* never through a name that existed: a temporary file of ours, renamed at close */
	err = fmt_outfile_open(&w->out, path);
	if (err) {
		const char *why = NULL;

		if (fmt_outfile_check(path, &why) && why)
			err = werr(w, err, "cannot write '%s': %s", path, why);
		else
			err = werr(w, err, "cannot create a temporary file beside '%s'", path);
		goto fail;
	}
	w->fd = w->out.fd;
	w->out.fd = -1;
	if (fstat(w->fd, &st) < 0) {
		err = werr(w, -errno, "cannot set up '%s'", w->out.temp);
		goto fail;
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	/* named after the temporary file: unique to this writer, never planted */
	w->spool_prefix = spool_prefix_for(w->out.temp, dir_abs);
	if (!w->spool_prefix) {
		err = -ENOMEM;
		goto fail;
	}

	memcpy(hdr, "\x17\x08\x44tracing7", 11);
	n = 11;
	hdr[n++] = 0;
	hdr[n++] = w->be ? 1 : 0;
	hdr[n++] = (uint8_t)w->long_size;
	put32(w->be, hdr + n, w->page_size);
	n += 4;
	{
		const char *ver = w->compress ? fmt_compress_version("zstd") : "";
		size_t l1 = strlen(comp) + 1, l2 = strlen(ver) + 1;

		if (n + l1 + l2 + 8 > sizeof(hdr)) {
			err = werr(w, -EOVERFLOW, "compression version string too long");
			goto fail;
		}
		memcpy(hdr + n, comp, l1);
		n += l1;
		memcpy(hdr + n, ver, l2);
		n += l2;
	}
	w->link_at = n;
	put64(w->be, hdr + n, 0);	/* patched when OPTIONS#1 is written */
	n += 8;
	err = out_write(w, 0, hdr, n);
	if (err)
		goto fail;
	w->off = n;
	if (dir_abs)
		err = write_section(w, FMT_SEC_FT_SPOOLDIR, "flytrap spool", false, dir_abs,
				    strlen(dir_abs) + 1, NULL);
	if (err)
		goto fail;
	free(dir_abs);
	*out = w;
	return 0;
fail:
	free(dir_abs);
	writer_free(w);
	return err;
}

static int worker_check(struct fmt_writer *w);

/*
 * A failure so far (sticky).  Adders of different CPUs may call this at
 * once: taking over the pool's failure happens under w->amu.
 */
static int check_ok(struct fmt_writer *w)
{
	int e = __atomic_load_n(&w->err, __ATOMIC_ACQUIRE);

	if (e || !w->wk || !__atomic_load_n(&w->wk->err, __ATOMIC_ACQUIRE))
		return e;
	pthread_mutex_lock(&w->amu);
	e = worker_check(w);
	pthread_mutex_unlock(&w->amu);
	return e;
}

/*
 * data offset + data size in header_page is the sub-buffer size readers
 * step by; a file whose page size differs loses every other page in
 * trace-cmd (format notes §6.2).  0 if the text does not say.
 */
static uint64_t header_page_subbuf(const char *hp, size_t len, uint64_t *data_off)
{
	char *t = strndup(hp, len), *p;
	unsigned long long off, size;
	uint64_t r = 0;

	if (!t)
		return 0;
	p = strstr(t, "char data;");
	if (p && (p = strstr(p, "offset:")) && sscanf(p, "offset:%llu;%*[ \t]size:%llu;", &off, &size) == 2) {
		r = off + size;
		*data_off = off;
	}
	free(t);
	return r;
}

int fmt_writer_headers(struct fmt_writer *w, const char *header_page, size_t hp_len,
		       const char *header_event, size_t he_len)
{
	struct dynbuf d = { 0 };
	uint64_t off, sub, data_off = 0;
	int err;

	if ((err = check_ok(w)))
		return err;
	sub = header_page_subbuf(header_page, hp_len, &data_off);
	if (data_off == 12 || data_off == 16)
		w->long8 = data_off == 16;	/* the kernel's long, which the pages use */
	if (sub && sub != w->page_size)
		return werr(w, -EINVAL, "header_page describes %llu-byte sub-buffers but the file's page size is %u",
			    (unsigned long long)sub, w->page_size);
	w->have_headers = true;
	if ((err = db_add(&d, "header_page", 12)) || (err = db_add64(&d, w->be, hp_len)) ||
	    (err = db_add(&d, header_page, hp_len)) || (err = db_add(&d, "header_event", 13)) ||
	    (err = db_add64(&d, w->be, he_len)) || (err = db_add(&d, header_event, he_len))) {
		db_free(&d);
		return werr(w, err, "cannot build the headers section");
	}
	err = write_section(w, FMT_OPT_HEADER_INFO, "headers", w->compress, d.data, d.len, &off);
	db_free(&d);
	return err ? err : queue_ptr_option(w, FMT_OPT_HEADER_INFO, off);
}

static int write_blob(struct fmt_writer *w, uint16_t id, int size_width, const char *text, size_t len)
{
	struct dynbuf d = { 0 };
	uint64_t off;
	int err;

	if ((err = check_ok(w)))
		return err;
	if (size_width == 4 && len > UINT32_MAX)
		return werr(w, -EOVERFLOW, "%s text of %zu bytes is too large", section_desc(id), len);
	err = size_width == 4 ? db_add32(&d, w->be, (uint32_t)len) : db_add64(&d, w->be, len);
	if (!err)
		err = db_add(&d, text, len);
	if (err) {
		db_free(&d);
		return werr(w, err, "cannot build the %s section", section_desc(id));
	}
	err = write_section(w, id, section_desc(id), w->compress, d.data, d.len, &off);
	db_free(&d);
	return err ? err : queue_ptr_option(w, id, off);
}

int fmt_writer_kallsyms(struct fmt_writer *w, const char *text, size_t len)
{
	return write_blob(w, FMT_OPT_KALLSYMS, 4, text, len);
}

int fmt_writer_printk(struct fmt_writer *w, const char *text, size_t len)
{
	return write_blob(w, FMT_OPT_PRINTK, 4, text, len);
}

int fmt_writer_cmdlines(struct fmt_writer *w, const char *text, size_t len)
{
	return write_blob(w, FMT_OPT_CMDLINES, 8, text, len);
}

int fmt_writer_cmdlines_events(struct fmt_writer *w, const char *text, size_t len)
{
	char *t;
	int err;

	if ((err = check_ok(w)))
		return err;
	if (!(t = malloc(len + 1)))
		return werr(w, -ENOMEM, "cannot keep the cmdlines");
	memcpy(t, text, len);
	t[len] = 0;
	free(w->cmdlines_text);
	w->cmdlines_text = t;
	w->cmdlines_len = len;
	w->cmdlines_pending = true;
	return 0;
}

/* A task name the facts hold: the last one its pid had, by time. */
struct lname {
	uint64_t ts;
	int32_t pid;
	uint32_t len;
	char comm[16];
};

static int cmp_lname_pid(const void *a, const void *b)
{
	const struct lname *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_lname(const void *a, const void *b)
{
	const struct lname *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Every (pid, name) record of the CPUs' facts (40 bytes each, layout in facts_end). */
static int learned_names(struct fmt_writer *w, struct lname **out, size_t *n)
{
	size_t cap = 0;
	int i, j;

	*out = NULL;
	*n = 0;
	for (i = 0; i < w->nbufs; i++)
		for (j = 0; j < w->bufs[i]->cpus_len; j++) {
			const struct wcpu *c = w->bufs[i]->cpus[j];
			size_t k;

			if (!c || c->facts_bad)
				continue;
			for (k = 0; k + 40 <= c->fname.len; k += 40) {
				const uint8_t *r = c->fname.data + k;
				struct lname *l;

				if (get32(w->be, r + 12) != 1 || (int32_t)get32(w->be, r + 8) <= 0)
					continue;
				if (*n == cap) {
					size_t nc = cap ? cap * 2 : 1024;

					if (!(l = realloc(*out, nc * sizeof(*l))))
						return -ENOMEM;
					*out = l;
					cap = nc;
				}
				l = &(*out)[(*n)++];
				l->ts = get64(w->be, r);
				l->pid = (int32_t)get32(w->be, r + 8);
				l->len = get32(w->be, r + 20);
				if (l->len > 15)
					l->len = 15;
				memcpy(l->comm, r + 24, 16);
				l->comm[l->len] = 0;
			}
		}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_lname);
	return 0;
}

static bool lname_has(const struct lname *v, size_t n, int pid)
{
	struct lname key = { .pid = pid };

	return n && bsearch(&key, v, n, sizeof(*v), cmp_lname_pid);
}

/*
 * The cmdlines fmt_writer_cmdlines_events() kept, each pid's line replaced
 * by the last name the events gave it, and the pids they named that it
 * lacks added: trace-cmd and the readers then name every task that ran,
 * where the kernel's saved_cmdlines keeps 128.
 */
static int write_cmdlines_events(struct fmt_writer *w)
{
	struct lname *v = NULL;
	size_t n = 0, k, blen = 0;
	char *buf = NULL, *line, *save = NULL;
	FILE *m;
	int err;

	w->cmdlines_pending = false;
	if ((err = learned_names(w, &v, &n)) || !(m = open_memstream(&buf, &blen))) {
		free(v);
		return werr(w, -ENOMEM, "cannot build the cmdlines");
	}
	for (line = strtok_r(w->cmdlines_text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!lname_has(v, n, atoi(line)))
			fprintf(m, "%s\n", line);
	for (k = 0; k < n; k++) {
		char *c;

		if (k + 1 < n && v[k + 1].pid == v[k].pid)
			continue;	/* the last of a pid is its newest name */
		for (c = v[k].comm; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = '?';	/* a name is one line of the text */
		fprintf(m, "%d %s\n", (int)v[k].pid, v[k].comm);
	}
	free(v);
	if (fclose(m)) {
		free(buf);
		return werr(w, -ENOMEM, "cannot build the cmdlines");
	}
	err = write_blob(w, FMT_OPT_CMDLINES, 8, buf, blen);
	free(buf);
	return err;
}

int fmt_writer_ftrace_format(struct fmt_writer *w, const char *text, size_t len)
{
	int err;

	if ((err = check_ok(w)))
		return err;
	if ((err = db_add64(&w->ftrace, w->be, len)) || (err = db_add(&w->ftrace, text, len)))
		return werr(w, err, "cannot store an ftrace format");
	w->nftrace++;
	w->ftrace_dirty = true;
	pthread_mutex_lock(&w->amu);
	w->facts_stale |= w->nsrc_built;
	pthread_mutex_unlock(&w->amu);
	return 0;
}

int fmt_writer_event_format(struct fmt_writer *w, const char *system, const char *text, size_t len)
{
	struct sysfmts *s = NULL;
	int i, err;

	if ((err = check_ok(w)))
		return err;
	if (!system || !*system)
		return werr(w, -EINVAL, "event format without a system name");
	for (i = 0; i < w->nsystems; i++) {
		if (!strcmp(w->systems[i].name, system)) {
			s = &w->systems[i];
			break;
		}
	}
	if (!s) {
		struct sysfmts *n = realloc(w->systems, (size_t)(w->nsystems + 1) * sizeof(*n));

		if (!n)
			return werr(w, -ENOMEM, "cannot store an event format");
		w->systems = n;
		s = &n[w->nsystems];
		memset(s, 0, sizeof(*s));
		s->name = strdup(system);
		if (!s->name)
			return werr(w, -ENOMEM, "cannot store an event format");
		w->nsystems++;
	}
	if ((err = db_add64(&s->body, w->be, len)) || (err = db_add(&s->body, text, len)))
		return werr(w, err, "cannot store an event format");
	s->count++;
	w->events_dirty = true;
	pthread_mutex_lock(&w->amu);
	w->facts_stale |= w->nsrc_built;
	pthread_mutex_unlock(&w->amu);
	return 0;
}

/*
 * Formats go out as whole sections.  If more arrive after they were
 * written, the complete set is written again and the later pointer option
 * supersedes the first (trace-cmd keeps the last offset it sees).
 */
static int write_formats(struct fmt_writer *w)
{
	struct dynbuf d = { 0 };
	uint64_t off;
	int i, err = 0;

	/* no headers given: readers decode nothing without header_page, so write the kernel's */
	if (!w->have_headers) {
		char hp[512];
		int n = fmt_header_page_text(w->long_size, w->page_size, hp, sizeof(hp));

		if (n < 0)
			return werr(w, n, "cannot make a header_page for %u-byte pages", w->page_size);
		if ((err = fmt_writer_headers(w, hp, (size_t)n, "", 0)))
			return err;
	}

	if (!w->formats_written || w->ftrace_dirty) {
		if ((err = db_add32(&d, w->be, w->nftrace)) ||
		    (err = db_add(&d, w->ftrace.data, w->ftrace.len)))
			goto nomem;
		err = write_section(w, FMT_OPT_FTRACE_EVENTS, "ftrace events", w->compress,
				    d.data, d.len, &off);
		if (!err)
			err = queue_ptr_option(w, FMT_OPT_FTRACE_EVENTS, off);
		if (err)
			goto out;
		d.len = 0;
	}
	if (!w->formats_written || w->events_dirty) {
		if ((err = db_add32(&d, w->be, (uint32_t)w->nsystems)))
			goto nomem;
		for (i = 0; i < w->nsystems; i++) {
			struct sysfmts *s = &w->systems[i];

			if ((err = db_add(&d, s->name, strlen(s->name) + 1)) ||
			    (err = db_add32(&d, w->be, s->count)) ||
			    (err = db_add(&d, s->body.data, s->body.len)))
				goto nomem;
		}
		err = write_section(w, FMT_OPT_EVENT_FORMATS, "events format", w->compress,
				    d.data, d.len, &off);
		if (!err)
			err = queue_ptr_option(w, FMT_OPT_EVENT_FORMATS, off);
		if (err)
			goto out;
	}
	w->formats_written = true;
	w->ftrace_dirty = w->events_dirty = false;
	goto out;
nomem:
	err = werr(w, err, "cannot build the event formats section");
out:
	db_free(&d);
	return err;
}

int fmt_writer_option(struct fmt_writer *w, uint16_t id, const void *data, uint32_t len)
{
	int err;

	if ((err = check_ok(w)))
		return err;
	/* these are the writer's own business: a stray one would corrupt the chain */
	if (id == FMT_OPT_DONE || id == FMT_OPT_BUFFER || id == FMT_OPT_BUFFER_TEXT)
		return werr(w, -EINVAL, "option %u is written by the writer itself", id);
	return queue_option(w, id, data, len);
}

int fmt_writer_option_str(struct fmt_writer *w, uint16_t id, const char *s)
{
	size_t n = strlen(s) + 1;

	if (n > UINT32_MAX)
		return werr(w, -EOVERFLOW, "option %u is too long", id);
	return fmt_writer_option(w, id, s, (uint32_t)n);
}

int fmt_writer_cpucount(struct fmt_writer *w, uint32_t ncpus)
{
	uint8_t b[4];

	put32(w->be, b, ncpus);
	return fmt_writer_option(w, FMT_OPT_CPUCOUNT, b, 4);
}

int fmt_writer_cpustat(struct fmt_writer *w, const char *buffer, int cpu, const char *stats)
{
	char *text = NULL;
	int n, err;

	if ((err = check_ok(w)))
		return err;
	if (!buffer)
		buffer = "";
	/*
	 * trace-cmd concatenates all CPUSTAT options for `report --stat`;
	 * an instance's block is introduced by a "Buffer:" option.
	 */
	if (*buffer && (!w->last_stat_buf || strcmp(w->last_stat_buf, buffer))) {
		n = asprintf(&text, "\nBuffer: %s\n\n", buffer);
		if (n < 0)
			return werr(w, -ENOMEM, "cannot build a CPUSTAT option");
		err = queue_option(w, FMT_OPT_CPUSTAT, text, (uint32_t)n + 1);
		free(text);
		if (err)
			return err;
	}
	if (!w->last_stat_buf || strcmp(w->last_stat_buf, buffer)) {
		free(w->last_stat_buf);
		w->last_stat_buf = strdup(buffer);
	}
	n = asprintf(&text, "CPU: %d\n%s", cpu, stats ? stats : "");
	if (n < 0)
		return werr(w, -ENOMEM, "cannot build a CPUSTAT option");
	err = queue_option(w, FMT_OPT_CPUSTAT, text, (uint32_t)n + 1);
	free(text);
	return err;
}

int fmt_writer_section(struct fmt_writer *w, uint16_t id, const char *desc,
		       const void *data, size_t len, uint64_t *offset)
{
	int err;

	if ((err = check_ok(w)))
		return err;
	if (id == FMT_OPT_DONE || id == FMT_OPT_BUFFER || id == FMT_OPT_STRINGS ||
	    id == FMT_OPT_BUFFER_TEXT)
		return werr(w, -EINVAL, "section %u is written by the writer itself", id);
	return write_section(w, id, desc, w->compress, data, len, offset);
}

/* ---- buffers and spools ------------------------------------------------- */

int fmt_wbuf_new(struct fmt_writer *w, const char *name, const char *clock, struct fmt_wbuf **out)
{
	struct fmt_wbuf *b, **nb;
	int i, err;

	*out = NULL;
	if ((err = check_ok(w)))
		return err;
	if (!name)
		name = "";
	for (i = 0; i < w->nbufs; i++)
		if (!strcmp(w->bufs[i]->name, name))
			return werr(w, -EEXIST, "buffer '%s' exists already", name);
	/* everything known so far goes into the file before any data: OPTIONS#1 */
	if (!w->recovering) {
		if ((err = write_formats(w)) || (err = write_options(w, false)))
			return err;
	}
	b = calloc(1, sizeof(*b));
	nb = realloc(w->bufs, (size_t)(w->nbufs + 1) * sizeof(*nb));
	if (!b || !nb) {
		free(b);
		if (nb)
			w->bufs = nb;
		return werr(w, -ENOMEM, "cannot create buffer '%s'", name);
	}
	w->bufs = nb;
	b->w = w;
	b->index = w->nbufs;
	for (i = 0; i < w->nbufs; i++)	/* resumed buffers keep their spools' numbers */
		if (w->bufs[i]->index >= b->index)
			b->index = w->bufs[i]->index + 1;
	b->name = strdup(name);
	b->clock = strdup(clock && *clock ? clock : "local");
	if (!b->name || !b->clock) {
		free(b->name);
		free(b->clock);
		free(b);
		return werr(w, -ENOMEM, "cannot create buffer '%s'", name);
	}
	w->bufs[w->nbufs++] = b;
	*out = b;
	return 0;
}

static struct wcpu *wbuf_cpu(struct fmt_wbuf *b, int cpu)
{
	struct wcpu *c;

	if (cpu >= b->cpus_len) {
		int n = b->cpus_len ? b->cpus_len : 8;
		struct wcpu **p;

		while (n <= cpu)
			n *= 2;
		p = realloc(b->cpus, (size_t)n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + b->cpus_len, 0, (size_t)(n - b->cpus_len) * sizeof(*p));
		b->cpus = p;
		b->cpus_len = n;
	}
	if (b->cpus[cpu])
		return b->cpus[cpu];
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cpu = cpu;
	c->fd = -1;
	b->cpus[cpu] = c;
	return c;
}

/*
 * Spool header (host byte order; a spool never leaves the machine):
 * "FTSPOOL1", u32 header size, u32 version 1, u64 output st_dev, u64
 * output st_ino, u32 cpu, u32 page size, u32 flags, u32 buffer index,
 * u32 pages per chunk, buffer name\0, clock\0.
 */
static int spool_open(struct fmt_wbuf *b, struct wcpu *c)
{
	struct fmt_writer *w = b->w;
	struct dynbuf d = { 0 };
	uint32_t v32, flags;
	uint64_t v64;
	int err;

	if (asprintf(&c->path, "%s%d.%d", w->spool_prefix, b->index, c->cpu) < 0) {
		c->path = NULL;
		return werr(w, -ENOMEM, "cannot name a spool file");
	}
	/* never through a link planted at the name, never someone else's file */
	c->fd = open(c->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->fd < 0) {
		err = -errno;
		w->err = werr(w, err, "cannot create spool file '%s'", c->path);
		return err;
	}
	if (w->on_spool)
		w->on_spool(w->on_spool_arg, c->path);
	flags = (w->compress ? SPOOL_FL_COMPRESSED : 0) | (w->be ? SPOOL_FL_BIG_ENDIAN : 0);
	err = db_add(&d, SPOOL_MAGIC, 8);
	v32 = 0;
	err = err ?: db_add(&d, &v32, 4);	/* size, patched below */
	v32 = 1;
	err = err ?: db_add(&d, &v32, 4);
	v64 = (uint64_t)w->dev;
	err = err ?: db_add(&d, &v64, 8);
	v64 = (uint64_t)w->ino;
	err = err ?: db_add(&d, &v64, 8);
	v32 = (uint32_t)c->cpu;
	err = err ?: db_add(&d, &v32, 4);
	err = err ?: db_add(&d, &w->page_size, 4);
	err = err ?: db_add(&d, &flags, 4);
	v32 = (uint32_t)b->index;
	err = err ?: db_add(&d, &v32, 4);
	err = err ?: db_add(&d, &w->ppc, 4);
	err = err ?: db_add(&d, b->name, strlen(b->name) + 1);
	err = err ?: db_add(&d, b->clock, strlen(b->clock) + 1);
	if (err) {
		db_free(&d);
		return werr(w, err, "cannot build a spool header");
	}
	v32 = (uint32_t)d.len;
	memcpy(d.data + 8, &v32, 4);
	c->hdr_size = (uint32_t)d.len;
	err = fd_write_all(c->fd, d.data, d.len);
	db_free(&d);
	if (err)
		w->err = werr(w, err, "cannot write spool file '%s'", c->path);
	return err;
}

/* Remember one chunk's checksum; without memory the CPU just has none. */
static void sums_add(struct wcpu *c, uint32_t len, uint32_t crc)
{
	if (c->sums_bad)
		return;
	if (c->nsums == c->sums_cap) {
		uint32_t cap = c->sums_cap ? c->sums_cap * 2 : 64;
		uint32_t *ns = realloc(c->sums, (size_t)cap * 2 * sizeof(*ns));

		if (!ns) {
			c->sums_bad = true;
			return;
		}
		c->sums = ns;
		c->sums_cap = cap;
	}
	c->sums[2 * c->nsums] = len;
	c->sums[2 * c->nsums + 1] = crc;
	c->nsums++;
}

/* Remember one chunk's place in the time index; without memory the CPU has none. */
static void tix_add(struct wcpu *c, uint64_t first, uint64_t last, uint32_t len, uint32_t raw)
{
	if (c->tix_bad)
		return;
	if (c->ntix == c->tix_cap) {
		uint32_t cap = c->tix_cap ? c->tix_cap * 2 : 64;
		struct tix *nt = realloc(c->tix, (size_t)cap * sizeof(*nt));

		if (!nt) {
			c->tix_bad = true;
			return;
		}
		c->tix = nt;
		c->tix_cap = cap;
	}
	c->tix[c->ntix++] = (struct tix){ first, last, len, raw };
}

/* ---- the index's facts (FMT_SEC_FT_FACTS) ------------------------------- */

static void nsrc_add(struct fmt_writer *w, const char *sys, const char *text, size_t len)
{
	struct tep_event *ev = NULL;
	struct fmt_namesrc ns, *n;

	bool may_name = fmt_namesrc_may_name(sys, text, len);
	struct fmt_statesrc ss;

	/* only the formats that can name tasks or set state are parsed */
	if ((!may_name && !fmt_statesrc_may(sys, text, len)) ||
	    tep_parse_format(w->ntep, &ev, text, len, sys) || !ev || ev->id < 0 || ev->id > 65535)
		return;
	fmt_statesrc_resolve(ev, &ss);
	if (ss.kind && !w->ssrc_of[ev->id] && w->nssrc < 65535) {
		struct fmt_statesrc *sn = realloc(w->ssrc, (size_t)(w->nssrc + 1) * sizeof(*sn));

		if (!sn) {
			w->facts_off = true;
			return;
		}
		w->ssrc = sn;
		sn[w->nssrc++] = ss;
		w->ssrc_of[ev->id] = (uint16_t)w->nssrc;
	}
	if (!may_name)
		return;
	fmt_namesrc_resolve(ev, &ns);
	if (!fmt_namesrc_any(&ns) || w->nsrc_of[ev->id] || w->nnsrc >= 255)
		return;
	n = realloc(w->nsrc, (size_t)(w->nnsrc + 1) * sizeof(*n));
	if (!n) {
		w->facts_off = true;
		return;
	}
	w->nsrc = n;
	n[w->nnsrc++] = ns;
	w->nsrc_of[ev->id] = (uint8_t)w->nnsrc;
}

/* Each format of a {u64 size, text} list of system sys. */
static void nsrc_list(struct fmt_writer *w, const char *sys, const struct dynbuf *d)
{
	size_t at = 0;

	while (d->len - at >= 8) {
		uint64_t n = get64(w->be, d->data + at);

		at += 8;
		if (n > d->len - at)
			break;
		nsrc_add(w, sys, (const char *)d->data + at, (size_t)n);
		at += n;
	}
}

/* The table of the formats given so far (amu held, or no other thread). */
static void nsrc_build(struct fmt_writer *w)
{
	free(w->nsrc);
	w->nsrc = NULL;
	w->nnsrc = 0;
	free(w->ssrc);
	w->ssrc = NULL;
	w->nssrc = 0;
	if (w->ntep)
		tep_free(w->ntep);
	w->ntep = tep_alloc();
	if (!w->nsrc_of)
		w->nsrc_of = calloc(65536, 1);
	else
		memset(w->nsrc_of, 0, 65536);
	if (!w->ssrc_of)
		w->ssrc_of = calloc(65536, sizeof(*w->ssrc_of));
	else
		memset(w->ssrc_of, 0, 65536 * sizeof(*w->ssrc_of));
	w->nsrc_built = true;
	w->facts_stale = false;
	if (!w->ntep || !w->nsrc_of || !w->ssrc_of) {
		w->facts_off = true;
		return;
	}
	tep_set_file_bigendian(w->ntep, w->be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(w->ntep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(w->ntep, w->long_size);
	tep_set_page_size(w->ntep, (int)w->page_size);
	nsrc_list(w, "ftrace", &w->ftrace);
	for (int i = 0; i < w->nsystems; i++)
		nsrc_list(w, w->systems[i].name, &w->systems[i].body);
}

/* One task name or tgid a chunk assigns (a chunk keeps the last of each). */
struct fname {
	uint64_t ts;
	int32_t pid, tgid;
	uint32_t what, len;
	char comm[16];
};

/*
 * A chunk's walk: its assignments, one per (pid, what), the later
 * replacing the earlier in place; found through an open-addressed table
 * of indexes + 1 (a sort per chunk cost more than the walk itself).
 */
/* An event a state key keeps: where it is in the chunk's pages (data NULL: none). */
struct sref {
	const void *data;
	uint64_t ts;
	uint32_t size;
};

/*
 * A task's state key (what: 1 switch-out, 2 switch-in, 3 exit, 4 syscall;
 * 5 an irq number's entries, by that number; 6 the wakeups of a pid) and
 * its first and last events (a window's end needs the first; an irq's
 * name comes from it, a slice's first name for a task from a wakeup's).
 */
struct skey {
	int32_t pid;
	uint32_t what;
	struct sref first, last;
};

struct fwalk {
	struct fmt_writer *w;
	struct wcpu *c;
	struct wfact *f;
	uint64_t ts;
	struct fname *names;
	uint32_t nnames, cap;
	uint32_t *slot, nslots;		/* nslots a power of two, over twice nnames */
	bool nomem;
	/*
	 * The state records: each key names the events it keeps, the later
	 * replacing the earlier; the chunk keeps every event some key names.
	 */
	struct skey *keys;
	uint32_t nkeys, kcap;
	uint32_t *kslot, nkslots;
	uint32_t klast;			/* the key found last, + 1 (syscalls come in pairs) */
	struct sref cpu_ref[5];		/* first switch, last switch, irq, softirq, first call */
	uint32_t page, page_seen;	/* the page being walked; the last one with an event, + 1 */
};

static inline uint32_t fname_hash(int pid, uint32_t what, uint32_t mask)
{
	return (((uint32_t)pid * 2654435761u) ^ what) & mask;
}

/*
 * A table of nslots indexes + 1 into the n elements of arr (stride bytes
 * each, an int32_t pid and a uint32_t what at the offsets given), for the
 * chunk's names and its state keys alike.
 */
static bool pid_rehash(uint32_t **slot, uint32_t *cur, uint32_t nslots, const void *arr,
		       size_t stride, size_t pid_at, size_t what_at, uint32_t n)
{
	uint32_t *ns = calloc(nslots, sizeof(*ns));

	if (!ns)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = (const uint8_t *)arr + (size_t)i * stride;
		int32_t pid;
		uint32_t what, h;

		memcpy(&pid, e + pid_at, sizeof(pid));
		memcpy(&what, e + what_at, sizeof(what));
		for (h = fname_hash(pid, what, nslots - 1); ns[h]; h = (h + 1) & (nslots - 1))
			;
		ns[h] = i + 1;
	}
	free(*slot);
	*slot = ns;
	*cur = nslots;
	return true;
}

static bool fname_rehash(struct fwalk *fw, uint32_t nslots)
{
	return pid_rehash(&fw->slot, &fw->nslots, nslots, fw->names, sizeof(*fw->names),
			  offsetof(struct fname, pid), offsetof(struct fname, what), fw->nnames);
}

static struct fname *fname_new(struct fwalk *fw, int pid, uint32_t what)
{
	struct fname *n;
	uint32_t h;

	if (fw->nnames * 2 + 2 > fw->nslots && !fname_rehash(fw, fw->nslots ? fw->nslots * 2 : 256)) {
		fw->nomem = true;
		return NULL;
	}
	for (h = fname_hash(pid, what, fw->nslots - 1); fw->slot[h]; h = (h + 1) & (fw->nslots - 1)) {
		n = &fw->names[fw->slot[h] - 1];
		if (n->pid == pid && n->what == what) {
			n->ts = fw->ts;		/* the chunk keeps the last */
			return n;
		}
	}
	if (fw->nnames == fw->cap) {
		uint32_t cap = fw->cap ? fw->cap * 2 : 64;
		struct fname *nn = realloc(fw->names, (size_t)cap * sizeof(*nn));

		if (!nn) {
			fw->nomem = true;
			return NULL;
		}
		fw->names = nn;
		fw->cap = cap;
	}
	fw->slot[h] = fw->nnames + 1;
	n = &fw->names[fw->nnames++];
	memset(n, 0, sizeof(*n));
	n->ts = fw->ts;
	n->pid = pid;
	n->what = what;
	return n;
}

static void fw_comm(void *arg, int pid, const char *s, int len)
{
	struct fname *n = fname_new(arg, pid, 1);

	if (!n)
		return;
	if (len > 15)
		len = 15;
	if (len < 0)
		len = 0;
	memset(n->comm, 0, sizeof(n->comm));
	memcpy(n->comm, s, (size_t)len);
	n->len = (uint32_t)len;
}

static void fw_tgid(void *arg, int pid, int tgid)
{
	struct fname *n = fname_new(arg, pid, 2);

	if (n)
		n->tgid = tgid;
}

static bool skey_rehash(struct fwalk *fw, uint32_t nslots)
{
	return pid_rehash(&fw->kslot, &fw->nkslots, nslots, fw->keys, sizeof(*fw->keys),
			  offsetof(struct skey, pid), offsetof(struct skey, what), fw->nkeys);
}

/* Task key (pid, what) keeps ev, its last event so far (and its first when it is new). */
static void skey_set(struct fwalk *fw, int pid, uint32_t what, const struct sref *ev)
{
	struct skey *k;
	uint32_t h;

	if (fw->klast) {
		k = &fw->keys[fw->klast - 1];
		if (k->pid == pid && k->what == what) {
			if (what < 5)
				k->last = *ev;
			return;
		}
	}
	if (fw->nkeys * 2 + 2 > fw->nkslots && !skey_rehash(fw, fw->nkslots ? fw->nkslots * 2 : 256)) {
		fw->nomem = true;
		return;
	}
	for (h = fname_hash(pid, what, fw->nkslots - 1); fw->kslot[h];
	     h = (h + 1) & (fw->nkslots - 1)) {
		k = &fw->keys[fw->kslot[h] - 1];
		if (k->pid == pid && k->what == what) {
			if (what < 5)
				k->last = *ev;	/* an irq's name, a wakeup's: only the first */
			fw->klast = fw->kslot[h];
			return;
		}
	}
	if (fw->nkeys == fw->kcap) {
		uint32_t cap = fw->kcap ? fw->kcap * 2 : 64;
		struct skey *nk = realloc(fw->keys, (size_t)cap * sizeof(*nk));

		if (!nk) {
			fw->nomem = true;
			return;
		}
		fw->keys = nk;
		fw->kcap = cap;
	}
	fw->kslot[h] = fw->nkeys + 1;
	/* a syscall's state needs only the last: its first stays empty */
	fw->keys[fw->nkeys++] = (struct skey){ pid, what, what == 4 ? (struct sref){ 0 } : *ev, *ev };
	fw->klast = fw->nkeys;
}

/* An event that sets state: kept under the keys format/names.c gives it. */
static void fw_state(struct fwalk *fw, const struct fmt_statesrc *ss, uint64_t ts,
		     const void *data, uint32_t size)
{
	const struct sref ev = { data, ts, size };

	switch (ss->kind) {
	case FMT_ST_SWITCH:
		if (!fw->cpu_ref[0].data)
			fw->cpu_ref[0] = ev;
		fw->cpu_ref[1] = ev;
		skey_set(fw, (int)fmt_field_u64(&ss->a, data, (int)size), 1, &ev);
		skey_set(fw, (int)fmt_field_u64(&ss->b, data, (int)size), 2, &ev);
		break;
	case FMT_ST_EXIT:
		skey_set(fw, (int)fmt_field_u64(&ss->a, data, (int)size), 3, &ev);
		break;
	case FMT_ST_SYSCALL:
		/* the task as the analyzers read it: the int at offset 4 (report/core/tasks.c) */
		skey_set(fw, size >= 8 ? (int)get32(fw->w->be, (const uint8_t *)data + 4) : -1, 4,
			 &ev);
		break;
	case FMT_ST_IRQ:
		fw->cpu_ref[2] = ev;
		if (ss->named)
			skey_set(fw, (int)fmt_field_u64(&ss->a, data, (int)size), 5, &ev);
		break;
	case FMT_ST_SOFTIRQ:
		fw->cpu_ref[3] = ev;
		break;
	case FMT_ST_WAKEUP:
		skey_set(fw, (int)fmt_field_u64(&ss->a, data, (int)size), 6, &ev);
		break;
	case FMT_ST_CALL:
		if (!fw->cpu_ref[4].data)
			fw->cpu_ref[4] = ev;
		break;
	}
}

static int fw_event(void *arg, uint64_t ts, const void *data, uint32_t size, int64_t missed)
{
	struct fwalk *fw = arg;
	struct wcpu *c = fw->c;
	struct fmt_writer *w = fw->w;

	if (!fw->f->nev++)
		fw->f->first = ts;
	fw->f->last = ts;
	if (fw->page_seen != fw->page + 1) {
		fw->page_seen = fw->page + 1;
		fw->f->npages++;
	}
	if (c->fprev && ts < c->fprev_ts)
		c->funsorted = true;
	if (missed) {
		int err = db_add64(&c->floss, w->be, ts);

		err = err ?: db_add64(&c->floss, w->be, c->fprev ? c->fprev_ts : 0);
		err = err ?: db_add64(&c->floss, w->be, (uint64_t)(missed < 0 ? -1 : missed));
		err = err ?: db_add32(&c->floss, w->be, c->fprev ? 1 : 0);
		err = err ?: db_add32(&c->floss, w->be, 0);
		if (err)
			fw->nomem = true;
		fw->f->nloss++;
	}
	c->fprev = true;
	c->fprev_ts = ts;
	if (size >= 2) {
		unsigned id = get16(w->be, data), k = w->nsrc_of[id];

		if (k) {
			fw->ts = ts;
			fmt_namesrc_apply(&w->nsrc[k - 1], data, (int)size, fw_comm, fw_tgid, fw);
		}
		if ((k = w->ssrc_of[id]))
			fw_state(fw, &w->ssrc[k - 1], ts, data, size);
	}
	return 0;
}

/* A new fact for the chunk being indexed; false when the CPU gets no facts. */
static bool facts_begin(struct fmt_writer *w, struct wcpu *c, struct fwalk *fw)
{
	memset(fw, 0, sizeof(*fw));
	fw->w = w;
	fw->c = c;
	if (w->facts_off || c->facts_bad || !w->nsrc_of)
		return false;
	if (c->nfacts == c->facts_cap) {
		uint32_t cap = c->facts_cap ? c->facts_cap * 2 : 64;
		struct wfact *nf = realloc(c->facts, (size_t)cap * sizeof(*nf));

		if (!nf) {
			c->facts_bad = true;
			return false;
		}
		c->facts = nf;
		c->facts_cap = cap;
	}
	fw->f = &c->facts[c->nfacts++];
	memset(fw->f, 0, sizeof(*fw->f));
	return true;
}

/* the chunk's order: where the events are in its pages */
static int cmp_sref(const void *a, const void *b)
{
	const struct sref *x = *(const struct sref *const *)a, *y = *(const struct sref *const *)b;
	uintptr_t p = (uintptr_t)x->data, q = (uintptr_t)y->data;

	return p < q ? -1 : p > q;
}

/* The chunk's state records: the events a key still names, once each, in order. */
static void facts_state(struct wcpu *c, struct fwalk *fw)
{
	const struct sref **keep = malloc(((size_t)fw->nkeys * 2 + 5) * sizeof(*keep));
	uint32_t n = 0;
	static const uint8_t zero[8];
	bool be = fw->w->be;
	int err = 0;

	if (!keep) {
		fw->nomem = true;
		return;
	}
	for (int i = 0; i < 5; i++)
		if (fw->cpu_ref[i].data)
			keep[n++] = &fw->cpu_ref[i];
	for (uint32_t i = 0; i < fw->nkeys; i++) {
		if (fw->keys[i].first.data)
			keep[n++] = &fw->keys[i].first;
		keep[n++] = &fw->keys[i].last;
	}
	qsort(keep, n, sizeof(*keep), cmp_sref);
	for (uint32_t i = 0; i < n && !err; i++) {
		const struct sref *sc = keep[i];

		if (i && sc->data == keep[i - 1]->data)
			continue;
		err = db_add64(&c->fstate, be, sc->ts);
		err = err ?: db_add32(&c->fstate, be, sc->size);
		err = err ?: db_add32(&c->fstate, be, 0);
		err = err ?: db_add(&c->fstate, sc->data, sc->size);
		err = err ?: db_add(&c->fstate, zero, (8 - sc->size % 8) % 8);
		fw->f->nstate++;
	}
	if (err)
		fw->nomem = true;
	free(keep);
}

/* The chunk's names, the last of each (pid, what), after its records. */
static void facts_end(struct wcpu *c, struct fwalk *fw)
{
	for (uint32_t i = 0; i < fw->nnames; i++) {
		const struct fname *n = &fw->names[i];
		bool be = fw->w->be;
		int err;

		err = db_add64(&c->fname, be, n->ts);
		err = err ?: db_add32(&c->fname, be, (uint32_t)n->pid);
		err = err ?: db_add32(&c->fname, be, n->what);
		err = err ?: db_add32(&c->fname, be, (uint32_t)n->tgid);
		err = err ?: db_add32(&c->fname, be, n->len);
		err = err ?: db_add(&c->fname, n->comm, 16);
		if (err)
			fw->nomem = true;
		fw->f->nnames++;
	}
	facts_state(c, fw);
	free(fw->names);
	free(fw->slot);
	free(fw->keys);
	free(fw->kslot);
	if (fw->nomem)
		c->facts_bad = true;
}

static void facts_reset(struct wcpu *c)
{
	c->nfacts = 0;
	c->floss.len = c->fname.len = c->fstate.len = 0;
	c->facts_bad = c->fprev = c->funsorted = false;
	c->fprev_ts = 0;
}

/* One CPU's entry of the state section (layout at FMT_SEC_FT_STATE), next to its facts. */
static void state_entry(struct fmt_writer *w, struct wcpu *c, uint64_t data_off)
{
	uint32_t nrec = 0, i;
	int err;

	for (i = 0; i < c->nfacts; i++)
		nrec += c->facts[i].nstate;
	err = db_add64(&w->state, w->be, data_off);
	err = err ?: db_add32(&w->state, w->be, (uint32_t)c->cpu);
	err = err ?: db_add32(&w->state, w->be, FMT_STATE_SLICE_KINDS);
	err = err ?: db_add32(&w->state, w->be, c->nfacts);
	err = err ?: db_add32(&w->state, w->be, nrec);
	for (i = 0; i < c->nfacts && !err; i++) {
		err = db_add32(&w->state, w->be, c->facts[i].npages);
		err = err ?: db_add32(&w->state, w->be, c->facts[i].nstate);
	}
	err = err ?: db_add(&w->state, c->fstate.data, c->fstate.len);
	if (!err)
		w->nstate_entries++;
	else
		w->state.len = 0, w->nstate_entries = 0;
}

/* One CPU's entry of the facts section, next to its time index entry. */
static void facts_entry(struct fmt_writer *w, struct wcpu *c, uint64_t data_off)
{
	uint32_t nloss = 0, nnames = 0, i;
	int err;

	if (w->facts_off || c->facts_bad || c->nfacts != c->ntix)
		return;
	for (i = 0; i < c->nfacts; i++) {
		nloss += c->facts[i].nloss;
		nnames += c->facts[i].nnames;
	}
	if ((uint64_t)nloss * 32 != c->floss.len || (uint64_t)nnames * 40 != c->fname.len)
		return;
	err = db_add64(&w->facts, w->be, data_off);
	err = err ?: db_add32(&w->facts, w->be, (uint32_t)c->cpu);
	err = err ?: db_add32(&w->facts, w->be, c->funsorted ? 0 : 1);
	err = err ?: db_add32(&w->facts, w->be, c->nfacts);
	err = err ?: db_add32(&w->facts, w->be, 0);
	for (i = 0; i < c->nfacts && !err; i++) {
		const struct wfact *f = &c->facts[i];

		err = db_add32(&w->facts, w->be, f->nev);
		err = err ?: db_add32(&w->facts, w->be, f->nloss);
		err = err ?: db_add32(&w->facts, w->be, f->nnames);
		err = err ?: db_add32(&w->facts, w->be, 0);
		err = err ?: db_add64(&w->facts, w->be, f->first);
		err = err ?: db_add64(&w->facts, w->be, f->last);
	}
	err = err ?: db_add(&w->facts, c->floss.data, c->floss.len);
	err = err ?: db_add(&w->facts, c->fname.data, c->fname.len);
	if (!err)
		w->nfact_entries++;
	else
		w->facts.len = 0, w->nfact_entries = 0, w->facts_off = true;
	if (!err)
		state_entry(w, c, data_off);
}

/*
 * The index entry of npages raw pages stored as len bytes, and its facts:
 * one walk of each page's records gives both.
 */
static void tix_pages(struct fmt_writer *w, struct wcpu *c, const uint8_t *data, uint32_t npages,
		      uint32_t len)
{
	uint64_t first = get64(w->be, data), last = first;
	struct fwalk fw;
	bool facts = facts_begin(w, c, &fw);

	for (uint32_t i = 0; i < npages; i++) {
		uint64_t t;

		fw.page = i;
		if (fmt_page_walk(data + (size_t)i * w->page_size, w->page_size, w->be, w->long8,
				  facts && !c->facts_bad ? fw_event : NULL, &fw, &t) && facts)
			c->facts_bad = true;	/* the readers would stop here: no facts */
		if (t > last)
			last = t;
	}
	tix_add(c, first, last, len, npages * w->page_size);
	if (facts)
		facts_end(c, &fw);
}

/*
 * A chunk in its on-disk form: npages pages compressed into zbuf (with the
 * 8-byte size header) when the file is compressed, else the pages as they
 * are.  The page observer sees the raw pages first.  Runs in a pool thread
 * or, without one, in the caller; z/zbuf belong to whichever runs it.
 */
static int chunk_encode(struct fmt_writer *w, struct fmt_zctx *z, uint8_t *zbuf, struct fmt_wbuf *b,
			struct wcpu *c, const uint8_t *data, uint32_t npages, const void **p,
			size_t *n, char *eb, size_t ebl)
{
	size_t raw = (size_t)npages * w->page_size;
	ssize_t clen;

	if (w->observer) {
		struct fmt_chunk rc = {
			.buffer = b->name, .buffer_index = b->index, .cpu = c->cpu, .npages = npages,
			.ts_first = get64(w->be, data),
			.ts_last = get64(w->be, data + (size_t)(npages - 1) * w->page_size),
			.data = data, .len = raw,
		};

		w->observer(w->obs_ctx, &rc);
	}
	if (!w->compress) {
		*p = data;
		*n = raw;
		return 0;
	}
	clen = fmt_zctx_compress(z, data, raw, zbuf + 8, w->zcap - 8);
	if (clen < 0) {
		snprintf(eb, ebl, "cannot compress a chunk for '%s': %s", c->path ? c->path : "the store",
			 strerror((int)-clen));
		return (int)clen;
	}
	put32(w->be, zbuf, (uint32_t)clen);
	put32(w->be, zbuf + 4, (uint32_t)raw);
	*p = zbuf;
	*n = 8 + (size_t)clen;
	return 0;
}

/*
 * Append one encoded chunk (p, n) of npages raw pages (data) to the CPU's
 * spool or hand it to the sink.  Chunks of one CPU come here one at a
 * time and in page order (the pool's turns); different CPUs may overlap.
 */
static int chunk_store(struct fmt_writer *w, struct fmt_wbuf *b, struct wcpu *c, const uint8_t *data,
		       uint32_t npages, const void *p, size_t n, char *eb, size_t ebl)
{
	int err;

	if (w->sink) {
		struct fmt_chunk ck = {
			.buffer = b->name, .buffer_index = b->index, .cpu = c->cpu, .npages = npages,
			.ts_first = get64(w->be, data),
			.ts_last = get64(w->be, data + (size_t)(npages - 1) * w->page_size),
			.data = p, .len = n,
		};

		err = w->sink(w->sink_ctx, &ck);
		if (err) {
			snprintf(eb, ebl, "cannot keep a chunk of CPU %d: %s", c->cpu, strerror(-err));
			return err;
		}
	} else if ((err = fmt_test_fault("data", w->path)) || (err = fd_write_all(c->fd, p, n))) {
		snprintf(eb, ebl, "cannot write spool file '%s': %s", c->path, strerror(-err));
		return err;
	}
	{
		uint32_t crc = fmt_crc32c(0, p, n);

		sums_add(c, (uint32_t)n, crc);
		/* the spool's running CRC32C, for the file digest (crc_cat) */
		c->crc_all = c->spooled ? crc_cat(c->crc_all, crc, n) : crc;
	}
	tix_pages(w, c, data, npages, (uint32_t)n);
	c->spooled += n;
	c->nchunks++;
	/* read by fmt_wbuf_bytes() in the caller's thread while the pool runs */
	__atomic_add_fetch(&b->bytes, n, __ATOMIC_RELAXED);
	return 0;
}

/* Encode and store in one go (the caller's thread, no pool). */
static int spool_write(struct fmt_writer *w, struct fmt_wbuf *b, struct wcpu *c, const uint8_t *data,
		       uint32_t npages)
{
	const void *p;
	size_t n;
	int err;

	err = chunk_encode(w, w->z, w->zbuf, b, c, data, npages, &p, &n, w->errbuf, sizeof(w->errbuf));
	return err ?: chunk_store(w, b, c, data, npages, p, n, w->errbuf, sizeof(w->errbuf));
}

/* Raw bytes handed to the pool and not yet spooled (fmt_wbuf_bytes counts them). */
static void queued_add(struct fmt_wbuf *b, int64_t n)
{
	__atomic_add_fetch(&b->queued, n, __ATOMIC_RELAXED);
}

static void pool_fail(struct worker *k, int err, const char *msg)
{
	if (err && !k->err) {
		snprintf(k->errbuf, sizeof(k->errbuf), "%s", msg);
		__atomic_store_n(&k->err, err, __ATOMIC_RELEASE);
	}
}

/*
 * One pool thread: take the oldest job, compress it, wait for the CPU's
 * turn (the jobs before it of the same CPU stored), store it.  Jobs are
 * taken in queue order, so the oldest unstored job of a CPU is always
 * being worked on and every turn comes.
 */
static void *worker_main(void *arg)
{
	struct wthread *t = arg;
	struct fmt_writer *w = t->w;
	struct worker *k = w->wk;
	char eb[512];

	pthread_mutex_lock(&k->mu);
	for (;;) {
		struct wjob j;
		const void *p = NULL;
		size_t n = 0;
		int err = 0;

		while ((!k->count || k->paused) && !k->quit)
			pthread_cond_wait(&k->cv_job, &k->mu);
		if (k->quit)
			break;
		j = k->q[k->head];
		k->head = (k->head + 1) % k->qcap;
		k->count--;
		k->nbusy++;
		pthread_mutex_unlock(&k->mu);

		/* after a failure, later chunks are dropped: the file is failing anyway */
		if (!__atomic_load_n(&k->err, __ATOMIC_ACQUIRE))
			err = chunk_encode(w, t->z, t->zbuf, j.b, j.c, j.buf, j.npages, &p, &n, eb,
					   sizeof(eb));
		pthread_mutex_lock(&k->mu);
		while (j.c->seq_done != j.seq)
			pthread_cond_wait(&k->cv_done, &k->mu);
		if (err)
			pool_fail(k, err, eb);
		err = k->err;
		pthread_mutex_unlock(&k->mu);
		if (!err)
			err = chunk_store(w, j.b, j.c, j.buf, j.npages, p, n, eb, sizeof(eb));
		queued_add(j.b, -(int64_t)j.npages * w->page_size);

		pthread_mutex_lock(&k->mu);
		if (err)
			pool_fail(k, err, eb);
		j.c->seq_done++;
		if (k->nfree < k->free_cap)
			k->free_bufs[k->nfree++] = j.buf;
		else
			free(j.buf);
		k->nbusy--;
		pthread_cond_broadcast(&k->cv_done);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

static void pool_free(struct worker *k)
{
	int i;

	for (i = 0; i < k->nth; i++) {
		fmt_zctx_free(k->th[i].z);
		free(k->th[i].zbuf);
	}
	for (i = 0; i < k->nfree; i++)
		free(k->free_bufs[i]);
	free(k->free_bufs);
	free(k->q);
	free(k->th);
	free(k);
}

/*
 * A fork while a worker allocates could leave the child's allocator locked
 * for good: glibc's malloc guards its arenas across a fork, the
 * AddressSanitizer allocator of Debian's GCC 12 does not (a reader forks to
 * screen event formats, reader.c's screen_formats(), while a writer's
 * workers compress: redact under ASan hung in it).  So every running pool
 * finishes the chunks it holds and takes no other until the fork is done.
 */
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static struct worker *pools;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void)
{
	pthread_mutex_lock(&pools_mu);
	for (struct worker *k = pools; k; k = k->next) {
		pthread_mutex_lock(&k->mu);
		k->paused = true;
		while (k->nbusy)
			pthread_cond_wait(&k->cv_done, &k->mu);
		pthread_mutex_unlock(&k->mu);
	}
}

static void fork_parent(void)
{
	for (struct worker *k = pools; k; k = k->next) {
		pthread_mutex_lock(&k->mu);
		k->paused = false;
		pthread_cond_broadcast(&k->cv_job);
		pthread_mutex_unlock(&k->mu);
	}
	pthread_mutex_unlock(&pools_mu);
}

/* the child has none of the workers: it only lets go of the list */
static void fork_child(void)
{
	pthread_mutex_unlock(&pools_mu);
}

static void atfork_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void pools_add(struct worker *k)
{
	pthread_once(&atfork_once, atfork_init);
	pthread_mutex_lock(&pools_mu);
	k->next = pools;
	pools = k;
	pthread_mutex_unlock(&pools_mu);
}

static void pools_remove(struct worker *k)
{
	pthread_mutex_lock(&pools_mu);
	for (struct worker **pp = &pools; *pp; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	pthread_mutex_unlock(&pools_mu);
}

/* Stop and join the threads started (the queue must be empty or abandoned). */
static void pool_join(struct worker *k)
{
	pools_remove(k);
	pthread_mutex_lock(&k->mu);
	k->quit = true;
	pthread_cond_broadcast(&k->cv_job);
	pthread_mutex_unlock(&k->mu);
	for (int i = 0; i < k->nstarted; i++)
		pthread_join(k->th[i].th, NULL);
}

/*
 * Start the pool of w->nthreads threads; returns false (and the writer
 * stays synchronous) if not even one starts.
 */
static bool worker_start(struct fmt_writer *w)
{
	struct worker *k = calloc(1, sizeof(*k));
	sigset_t all, old;
	int i, nth = w->nthreads > 0 ? w->nthreads : 1;

	if (!k)
		return false;
	k->nth = nth;
	k->qcap = 8 * nth + 8;
	k->free_cap = k->qcap + nth + 8;
	k->q = calloc((size_t)k->qcap, sizeof(*k->q));
	k->th = calloc((size_t)nth, sizeof(*k->th));
	k->free_bufs = calloc((size_t)k->free_cap, sizeof(*k->free_bufs));
	if (!k->q || !k->th || !k->free_bufs) {
		pool_free(k);
		return false;
	}
	for (i = 0; i < nth; i++) {
		k->th[i].w = w;
		if (w->compress) {
			k->th[i].z = fmt_zctx_new("zstd", w->level);
			k->th[i].zbuf = malloc(w->zcap);
			if (!k->th[i].z || !k->th[i].zbuf) {
				pool_free(k);
				return false;
			}
		}
	}
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv_job, NULL);
	pthread_cond_init(&k->cv_done, NULL);
	w->wk = k;
	/* signals stay with the caller's threads (the recorder's handlers set flags there) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < nth; i++) {
		if (pthread_create(&k->th[i].th, NULL, worker_main, &k->th[i]))
			break;
		k->nstarted++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!k->nstarted) {
		pthread_mutex_destroy(&k->mu);
		pthread_cond_destroy(&k->cv_job);
		pthread_cond_destroy(&k->cv_done);
		pool_free(k);
		w->wk = NULL;
		return false;
	}
	pools_add(k);
	return true;
}

/* Take over a failure reported by the pool (caller's thread, or under w->amu). */
static int worker_check(struct fmt_writer *w)
{
	int e;

	if (w->err || !w->wk)
		return w->err;
	e = __atomic_load_n(&w->wk->err, __ATOMIC_ACQUIRE);
	if (e) {
		pthread_mutex_lock(&w->wk->mu);
		snprintf(w->errbuf, sizeof(w->errbuf), "%s", w->wk->errbuf);
		pthread_mutex_unlock(&w->wk->mu);
		w->err = e;
	}
	return w->err;
}

/* Wait until every queued chunk is in its spool. */
static int worker_drain(struct fmt_writer *w)
{
	struct worker *k = w->wk;

	if (!k)
		return w->err;
	pthread_mutex_lock(&k->mu);
	while (k->count || k->nbusy)
		pthread_cond_wait(&k->cv_done, &k->mu);
	pthread_mutex_unlock(&k->mu);
	return worker_check(w);
}

static void worker_stop(struct fmt_writer *w)
{
	struct worker *k = w->wk;
	int i;

	if (!k)
		return;
	pool_join(k);
	/* jobs never started (abort): their buffers */
	for (i = 0; i < k->count; i++)
		free(k->q[(k->head + i) % k->qcap].buf);
	pthread_mutex_destroy(&k->mu);
	pthread_cond_destroy(&k->cv_job);
	pthread_cond_destroy(&k->cv_done);
	pool_free(k);
	w->wk = NULL;
}

/*
 * Spool the pending pages of one CPU as one chunk: through the pool, or
 * here.  Under w->amu: the adders of different CPUs (capture threads) meet
 * here once per chunk.
 */
static int spool_chunk_locked(struct fmt_wbuf *b, struct wcpu *c)
{
	struct fmt_writer *w = b->w;
	struct worker *k;
	uint8_t *next = NULL;
	bool queued = false;
	int err;

	if (!c->npending)
		return 0;
	if ((err = worker_check(w)))
		return err;
	/* the formats given so far name the tasks of the chunks from here on */
	if (!w->nsrc_built && !w->recovering && !w->facts_off)
		nsrc_build(w);
	if (c->fd < 0 && !w->sink && (err = spool_open(b, c)))
		return err;
	if (!w->wk && !w->recovering && !w->no_worker && !worker_start(w))
		w->no_worker = true;
	k = w->wk;
	if (!k) {
		err = spool_write(w, b, c, c->chunk, c->npending);
		if (err)
			w->err = err;
		else
			__atomic_store_n(&c->npending, 0, __ATOMIC_RELAXED);
		return err;
	}
	pthread_mutex_lock(&k->mu);
	while (k->count == k->qcap && !k->err)
		pthread_cond_wait(&k->cv_done, &k->mu);
	if (!k->err) {
		k->q[(k->head + k->count) % k->qcap] =
			(struct wjob){ b, c, c->chunk, c->npending, c->seq_next++ };
		k->count++;
		queued_add(b, (int64_t)c->npending * w->page_size);
		pthread_cond_signal(&k->cv_job);
		if (k->nfree)
			next = k->free_bufs[--k->nfree];
		queued = true;
	}
	pthread_mutex_unlock(&k->mu);
	/*
	 * A queued chunk buffer belongs to the job even when the pool has
	 * failed meanwhile: let go of it before reporting, or the pool's
	 * clean-up and wbuf_free() would both free it.
	 */
	if (queued) {
		c->chunk = next;
		__atomic_store_n(&c->npending, 0, __ATOMIC_RELAXED);
	}
	return worker_check(w);
}

static int spool_chunk(struct fmt_wbuf *b, struct wcpu *c)
{
	int err;

	pthread_mutex_lock(&b->w->amu);
	err = spool_chunk_locked(b, c);
	pthread_mutex_unlock(&b->w->amu);
	return err;
}

/* CPU cpu of b for adding data (made on first use); NULL with *err set. */
static struct wcpu *cpu_for_add(struct fmt_wbuf *b, int cpu, int *err)
{
	struct wcpu *c;

	if ((*err = check_ok(b->w)))
		return NULL;
	if (cpu < 0 || cpu >= MAX_CPUS) {
		*err = werr(b->w, -EINVAL, "CPU %d out of range", cpu);
		return NULL;
	}
	c = wbuf_cpu(b, cpu);
	if (!c)
		*err = werr(b->w, -ENOMEM, "cannot add CPU %d", cpu);
	return c;
}

int fmt_wbuf_add_page(struct fmt_wbuf *b, int cpu, const void *page)
{
	struct fmt_writer *w = b->w;
	struct wcpu *c;
	int err;

	c = cpu_for_add(b, cpu, &err);
	if (!c)
		return err;
	if (!c->chunk) {
		c->chunk = malloc((size_t)w->ppc * w->page_size);
		if (!c->chunk) {
			pthread_mutex_lock(&w->amu);
			err = werr(w, -ENOMEM, "cannot add CPU %d", cpu);
			pthread_mutex_unlock(&w->amu);
			return err;
		}
	}
	memcpy(c->chunk + (size_t)c->npending * w->page_size, page, w->page_size);
	/* read by fmt_wbuf_bytes() in other threads */
	__atomic_store_n(&c->npending, c->npending + 1, __ATOMIC_RELAXED);
	if (c->npending == w->ppc)
		return spool_chunk(b, c);
	return 0;
}

int fmt_wbuf_add_cpus(struct fmt_wbuf *b, int ncpus)
{
	if (ncpus < 0 || ncpus > MAX_CPUS)
		return werr(b->w, -EINVAL, "CPU count %d out of range", ncpus);
	for (int cpu = 0; cpu < ncpus; cpu++)
		if (!wbuf_cpu(b, cpu))
			return werr(b->w, -ENOMEM, "cannot add CPU %d", cpu);
	return 0;
}

uint64_t fmt_wbuf_bytes(const struct fmt_wbuf *b)
{
	uint64_t pending = 0;
	int i;

	for (i = 0; i < b->cpus_len; i++)
		if (b->cpus[i])
			pending += (uint64_t)__atomic_load_n(&b->cpus[i]->npending, __ATOMIC_RELAXED) *
				   b->w->page_size;
	return __atomic_load_n(&b->bytes, __ATOMIC_RELAXED) +
	       (uint64_t)__atomic_load_n(&b->queued, __ATOMIC_RELAXED) + pending;
}

int fmt_wbuf_flush(struct fmt_wbuf *b)
{
	struct fmt_writer *w = b->w;
	int i, err;

	if ((err = check_ok(w)))
		return err;
	for (i = 0; i < b->cpus_len; i++)
		if (b->cpus[i] && (err = spool_chunk(b, b->cpus[i])))
			return err;
	/* flushed means in the spool files, not in the worker's queue */
	if ((err = worker_drain(w)))
		return err;
	/* metadata that arrived since the last flush must survive a crash too */
	if (w->ftrace_dirty || w->events_dirty)
		if ((err = write_formats(w)))
			return err;
	return write_options(w, false);
}

int fmt_writer_flush(struct fmt_writer *w)
{
	int i, err = check_ok(w);

	for (i = 0; !err && i < w->nbufs; i++)
		err = fmt_wbuf_flush(w->bufs[i]);
	return err;
}

int fmt_wbuf_add_chunk(struct fmt_wbuf *b, int cpu, const void *data, size_t len)
{
	struct fmt_writer *w = b->w;
	struct wcpu *c;
	int err;

	c = cpu_for_add(b, cpu, &err);
	if (!c)
		return err;
	if (w->compress) {
		uint32_t cs, us;

		if (len < 8)
			return werr(w, -EBADMSG, "a chunk of %zu bytes is too short", len);
		cs = get32(w->be, data);
		us = get32(w->be, (const uint8_t *)data + 4);
		if ((uint64_t)cs + 8 != len || !us || us % w->page_size || us > MAX_CHUNK_BYTES)
			return werr(w, -EBADMSG, "not a chunk of this file (sizes %u/%u, %zu bytes)",
				    cs, us, len);
	} else if (!len || len % w->page_size || len > MAX_CHUNK_BYTES) {
		return werr(w, -EBADMSG, "%zu bytes are not whole pages", len);
	}
	if (c->npending)
		return werr(w, -EINVAL, "CPU %d has pages waiting for a chunk", cpu);
	if (c->fd < 0 && (err = spool_open(b, c)))
		return err;
	err = w->recovering ? 0 : fmt_test_fault("data", w->path);
	err = err ?: fd_write_all(c->fd, data, len);
	if (err) {
		w->err = werr(w, err, "cannot write spool file '%s'", c->path);
		return err;
	}
	{
		uint32_t crc = fmt_crc32c(0, data, len);

		sums_add(c, (uint32_t)len, crc);
		c->crc_all = c->spooled ? crc_cat(c->crc_all, crc, len) : crc;
	}
	c->tix_bad = true;	/* its stamps are read back from the spool at close */
	c->spooled += len;
	c->nchunks += w->compress ? 1 : (uint32_t)(len / w->page_size);
	__atomic_add_fetch(&b->bytes, len, __ATOMIC_RELAXED);
	return 0;
}

/* ---- close -------------------------------------------------------------- */

/* Copy len bytes of fd from in_off to the output at out_off. */
static int copy_into(struct fmt_writer *w, int fd, const char *what, uint64_t in_off,
		     uint64_t out_off, uint64_t len)
{
	loff_t ioff = (loff_t)in_off, ooff = (loff_t)out_off;
	bool fallback = false;
	uint8_t *buf = NULL;
	int err = 0;

	while (len && !fallback) {
		ssize_t r = copy_file_range(fd, &ioff, w->fd, &ooff,
					    len > (1u << 30) ? (1u << 30) : (size_t)len, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			    errno == EOPNOTSUPP || errno == EBADF) {
				fallback = true;
				break;
			}
			return werr(w, -errno, "cannot copy '%s' into '%s' at offset %llu", what,
				    w->path, (unsigned long long)ooff);
		}
		if (r == 0)
			return werr(w, -EIO, "spool file '%s' is shorter than expected", what);
		len -= (uint64_t)r;
	}
	if (!len)
		return 0;
	buf = malloc(1 << 20);
	if (!buf)
		return werr(w, -ENOMEM, "cannot copy '%s'", what);
	while (len && !err) {
		size_t n = len > (1 << 20) ? (1 << 20) : (size_t)len;
		ssize_t r = pread(fd, buf, n, ioff);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = werr(w, r < 0 ? -errno : -EIO, "cannot read spool file '%s'", what);
			break;
		}
		{
			struct iovec iov = { buf, (size_t)r };

			err = out_writev_raw(w, (uint64_t)ooff, &iov, 1);
		}
		ioff += r;
		ooff += r;
		len -= (uint64_t)r;
	}
	free(buf);
	return err;
}

/* Where CPU data starting at pos goes: page-aligned when uncompressed (trace-cmd mmaps it). */
static uint64_t cpu_data_start(const struct fmt_writer *w, uint64_t pos)
{
	if (w->compress)
		return pos + 4;	/* after the u32 chunk count */
	return (pos + w->page_size - 1) / w->page_size * w->page_size;
}

static int write_zeros(struct fmt_writer *w, uint64_t from, uint64_t to)
{
	static const uint8_t zeros[4096];
	int err = 0;

	while (from < to && !err) {
		size_t n = to - from > sizeof(zeros) ? sizeof(zeros) : (size_t)(to - from);

		err = out_write(w, from, zeros, n);
		from += n;
	}
	return err;
}

/*
 * Whether a chunk (or block of pages) a dead writer left decodes to pages:
 * a compressed one decompresses to its stated size, and every page's
 * commit size fits its page.  The spools carry no checksums of their own.
 */
static bool spool_chunk_whole(struct fmt_writer *w, struct fmt_zctx *z, const uint8_t *d, size_t n,
			      uint8_t **raw, size_t *rawcap)
{
	uint32_t hdr = w->long8 ? 16 : 12, us = (uint32_t)n;
	const uint8_t *pages = d;

	if (w->compress) {
		us = n >= 8 ? get32(w->be, d + 4) : 0;
		if (!z || !us || us % w->page_size || us > MAX_CHUNK_BYTES)
			return false;
		if (us > *rawcap) {
			free(*raw);
			*rawcap = 0;
			if (!(*raw = malloc(us)))
				return true;	/* cannot tell: kept as it is */
			*rawcap = us;
		}
		if (fmt_zctx_decompress(z, d + 8, n - 8, *raw, us))
			return false;
		pages = *raw;
	}
	for (uint32_t off = 0; off + w->page_size <= us; off += w->page_size) {
		uint64_t commit = w->long8 ? get64(w->be, pages + off + 8) : get32(w->be, pages + off + 8);

		/* the commit size is the low 27 bits, as the iterator reads it */
		if ((commit & ((1U << 27) - 1)) > w->page_size - hdr)
			return false;
	}
	return true;
}

/*
 * Checksums of a spool that was not written by this writer (recovery):
 * read back whole chunks, as spool_read() kept them.  A chunk damaged on
 * disk (it does not decode to pages) gets a checksum it fails, so the
 * readers skip it as a loss with its time window and verify names its
 * bytes, instead of stopping at it.  false when a read fails or memory
 * runs out; the CPU then has no checksums.
 */
static bool sums_from_spool(struct fmt_writer *w, struct wcpu *c)
{
	uint64_t pos = c->hdr_size, end = c->hdr_size + c->spooled;
	size_t cap = (size_t)w->ppc * w->page_size + 8, rawcap = 0;
	uint8_t *buf = NULL, *raw = NULL;
	struct fmt_zctx *z = w->compress ? fmt_zctx_new("zstd", 0) : NULL;
	bool ok = true;

	c->nsums = 0;
	while (ok && pos < end) {
		uint64_t n = w->compress ? 8 : end - pos;

		if (w->compress) {
			uint8_t h[8];

			ok = pread(c->fd, h, 8, (off_t)pos) == 8;
			n += ok ? get32(w->be, h) : 0;
		} else if (n > (uint64_t)w->ppc * w->page_size) {
			n = (uint64_t)w->ppc * w->page_size;
		}
		if (!ok || n > end - pos)
			break;
		if (n > cap) {
			free(buf);
			buf = NULL;
			cap = (size_t)n;
		}
		if (!buf && !(buf = malloc(cap)))
			break;
		ok = pread(c->fd, buf, (size_t)n, (off_t)pos) == (ssize_t)n;
		if (ok) {
			uint32_t crc = fmt_crc32c(0, buf, (size_t)n);

			if (!spool_chunk_whole(w, z, buf, (size_t)n, &raw, &rawcap))
				crc = ~crc;
			sums_add(c, (uint32_t)n, crc);
		}
		pos += n;
	}
	free(buf);
	free(raw);
	fmt_zctx_free(z);
	return ok && pos == end && !c->sums_bad;
}

/*
 * The time index of a spool whose chunks did not all pass spool_write()
 * (recovery, chunks added whole): each chunk read back and, when the file
 * is compressed, decompressed (bounded by the writer's own chunk limit).
 * false when a read fails, a chunk is not one this writer could make, or
 * memory runs out; the CPU then has no index and readers search it.
 */
static bool tix_from_spool(struct fmt_writer *w, struct wcpu *c)
{
	uint64_t pos = c->hdr_size, end = c->hdr_size + c->spooled;
	struct fmt_zctx *z = w->compress ? fmt_zctx_new("zstd", 0) : NULL;
	uint8_t *buf = NULL, *raw = NULL;
	bool ok = !w->compress || z;

	c->ntix = 0;
	c->tix_bad = false;
	facts_reset(c);
	while (ok && pos < end) {
		uint64_t n = w->compress ? 8 : end - pos;
		uint32_t us = 0;
		uint8_t h[8];

		if (w->compress) {
			ok = pread(c->fd, h, 8, (off_t)pos) == 8;
			n += ok ? get32(w->be, h) : 0;
			us = ok ? get32(w->be, h + 4) : 0;
			ok = ok && us && us % w->page_size == 0 && us <= MAX_CHUNK_BYTES;
		} else if (n > (uint64_t)w->ppc * w->page_size) {
			n = (uint64_t)w->ppc * w->page_size;
		}
		if (!ok || n > end - pos || n > MAX_CHUNK_BYTES + 8 || (!w->compress && n % w->page_size))
			break;
		free(buf);
		free(raw);
		raw = NULL;
		if (!(buf = malloc((size_t)n)) || (w->compress && !(raw = malloc(us))))
			break;
		ok = pread(c->fd, buf, (size_t)n, (off_t)pos) == (ssize_t)n;
		if (ok && w->compress)
			ok = !fmt_zctx_decompress(z, buf + 8, (size_t)n - 8, raw, us);
		if (ok)
			tix_pages(w, c, w->compress ? raw : buf,
				  (uint32_t)((w->compress ? us : n) / w->page_size), (uint32_t)n);
		pos += n;
	}
	free(buf);
	free(raw);
	fmt_zctx_free(z);
	return ok && pos == end && !c->tix_bad;
}

/* One CPU's entry of the time index (FMT_SEC_FT_TIMEINDEX, layout in format.h). */
static void tix_entry(struct fmt_writer *w, struct wcpu *c, uint64_t data_off)
{
	uint64_t total = 0;
	uint32_t i;
	int err;

	for (i = 0; i < c->ntix; i++)
		total += c->tix[i].len;
	if (c->tix_bad || total != c->spooled || !c->ntix || w->facts_redo) {
		if (!tix_from_spool(w, c))
			return;
	}
	err = db_add64(&w->tix, w->be, data_off);
	err = err ?: db_add32(&w->tix, w->be, (uint32_t)c->cpu);
	err = err ?: db_add32(&w->tix, w->be, w->compress ? 1 : 0);
	err = err ?: db_add32(&w->tix, w->be, c->ntix);
	err = err ?: db_add32(&w->tix, w->be, 0);
	for (i = 0; i < c->ntix && !err; i++) {
		err = db_add64(&w->tix, w->be, c->tix[i].first);
		err = err ?: db_add64(&w->tix, w->be, c->tix[i].last);
		err = err ?: db_add32(&w->tix, w->be, c->tix[i].len);
		err = err ?: db_add32(&w->tix, w->be, c->tix[i].raw);
	}
	if (!err)
		w->ntix_entries++;
	else
		w->tix.len = 0, w->ntix_entries = 0, w->tix_bad_all = true;
}

/*
 * The time index as a section of its own after the buffers (read only by a
 * seek, so an open does not load it) and the option pointing at it.  A
 * writer that could not build it writes a file without one: readers then
 * search the chunks as they do in trace-cmd's files.
 */
static int write_tindex(struct fmt_writer *w)
{
	struct dynbuf d = { 0 };
	uint64_t off;
	int err;

	if (w->tix_bad_all || !w->ntix_entries)
		return 0;
	err = db_add32(&d, w->be, 1);
	err = err ?: db_add32(&d, w->be, w->ntix_entries);
	err = err ?: db_add(&d, w->tix.data, w->tix.len);
	if (err) {
		db_free(&d);
		return 0;	/* no memory for it: a file without an index is still whole */
	}
	err = write_section(w, FMT_SEC_FT_TIMEINDEX, "time index", w->compress, d.data, d.len, &off);
	db_free(&d);
	return err ?: queue_ptr_option(w, FMT_OPT_FT_TIMEINDEX, off);
}

/* The state section (layout at FMT_SEC_FT_STATE) and its option, beside complete facts. */
static int write_state(struct fmt_writer *w)
{
	struct dynbuf d = { 0 };
	uint64_t off;
	int err;

	if (w->facts_off || !w->nstate_entries || w->nstate_entries != w->nfact_entries ||
	    w->nfact_entries != w->ntix_entries)
		return 0;
	err = db_add32(&d, w->be, 1);
	err = err ?: db_add32(&d, w->be, w->nstate_entries);
	err = err ?: db_add(&d, w->state.data, w->state.len);
	if (err) {
		db_free(&d);
		return 0;	/* without it, an analyzer that needs state reads more */
	}
	err = write_section(w, FMT_SEC_FT_STATE, "time index state records", w->compress, d.data,
			    d.len, &off);
	db_free(&d);
	return err ?: queue_ptr_option(w, FMT_OPT_FT_STATE, off);
}

/* The facts section (layout at FMT_SEC_FT_FACTS) and its option, when every CPU has its entry. */
static int write_facts(struct fmt_writer *w)
{
	struct dynbuf d = { 0 };
	uint64_t off;
	int err;

	if (w->facts_off || !w->nfact_entries || w->nfact_entries != w->ntix_entries)
		return 0;
	err = db_add32(&d, w->be, 1);
	err = err ?: db_add32(&d, w->be, w->nfact_entries);
	err = err ?: db_add(&d, w->facts.data, w->facts.len);
	if (err) {
		db_free(&d);
		return 0;	/* a file without facts is still whole: windows read more */
	}
	err = write_section(w, FMT_SEC_FT_FACTS, "time index facts", w->compress, d.data, d.len,
			    &off);
	db_free(&d);
	return err ?: queue_ptr_option(w, FMT_OPT_FT_FACTS, off);
}

/*
 * One CPU's entry of the checksums option (FMT_OPT_FT_CHECKSUMS, layout in
 * format.h).  A CPU whose sums are incomplete gets no entry: readers then
 * check it as they check trace-cmd's files.
 */
static void sums_entry(struct fmt_writer *w, struct wcpu *c, uint64_t data_off)
{
	uint64_t total = 0;
	uint32_t i;
	int err;

	for (i = 0; i < c->nsums; i++)
		total += c->sums[2 * i];
	if (c->sums_bad || total != c->spooled || !c->nsums) {
		if (!sums_from_spool(w, c))
			return;
	}
	err = db_add64(&w->sums, w->be, data_off);
	err = err ?: db_add32(&w->sums, w->be, (uint32_t)c->cpu);
	err = err ?: db_add32(&w->sums, w->be, w->compress ? 1 : 0);
	err = err ?: db_add32(&w->sums, w->be, c->nsums);
	for (i = 0; i < 2 * c->nsums && !err; i++)
		err = db_add32(&w->sums, w->be, c->sums[i]);
	if (!err)
		w->nsum_entries++;
	else
		w->sums.len = 0, w->nsum_entries = 0, w->sums_bad_all = true;
}

/*
 * Write one BUFFER section from the spools, and queue its BUFFER option.
 * The layout is computed first and the section header written before the
 * data: a writer killed while copying leaves a BUFFER header whose size
 * runs past EOF, which recovery recognises (a hole of zeros would look
 * like a section header of ID 0).
 */
static int write_buffer(struct fmt_writer *w, struct fmt_wbuf *b)
{
	struct dynbuf opt = { 0 };
	uint64_t sec = w->off, pos, start;
	uint8_t hdr[16], cnt[4];
	uint32_t ncpus = 0;
	char desc[256];
	int i, err = 0;

	for (i = 0, pos = sec + 16; i < b->cpus_len; i++) {
		if (b->cpus[i] && b->cpus[i]->spooled) {
			ncpus++;
			pos = cpu_data_start(w, pos) + b->cpus[i]->spooled;
		}
	}
	w->fault_kind = "data";
	snprintf(desc, sizeof(desc), "buffer flyrecord %s", b->name);
	put16(w->be, hdr, FMT_OPT_BUFFER);
	put16(w->be, hdr + 2, w->compress ? SEC_FL_COMPRESS : 0);
	put32(w->be, hdr + 4, (uint32_t)string_id(w, desc));
	put64(w->be, hdr + 8, pos - sec - 16);
	if ((err = out_write(w, sec, hdr, 16)))
		goto out;

	err = db_add64(&opt, w->be, sec);
	err = err ?: db_add(&opt, b->name, strlen(b->name) + 1);
	err = err ?: db_add(&opt, b->clock, strlen(b->clock) + 1);
	err = err ?: db_add32(&opt, w->be, w->page_size);
	err = err ?: db_add32(&opt, w->be, ncpus);
	if (err)
		goto nomem;
	for (i = 0, pos = sec + 16; i < b->cpus_len; i++) {
		struct wcpu *c = b->cpus[i];

		if (!c || !c->spooled)
			continue;
		start = cpu_data_start(w, pos);
		if (w->compress) {
			/* chunk count, then the chunks; the size leaves the count out, as trace-cmd's does */
			put32(w->be, cnt, c->nchunks);
			err = out_write(w, pos, cnt, 4);
		} else {
			err = write_zeros(w, pos, start);
		}
		if (err || (err = copy_into(w, c->fd, c->path, c->hdr_size, start, c->spooled)))
			goto out;
		/* the digest takes the spool's bytes from the CRC kept while spooling them */
		if (c->crc_bad || start != w->dg_len) {
			w->dg_lost = true;
		} else if (!w->dg_lost) {
			w->dg_crc = crc_cat(w->dg_crc, c->crc_all, c->spooled);
			w->dg_len += c->spooled;
		}
		pos = start + c->spooled;
		sums_entry(w, c, w->compress ? start - 4 : start);
		tix_entry(w, c, w->compress ? start - 4 : start);
		facts_entry(w, c, w->compress ? start - 4 : start);
		err = db_add32(&opt, w->be, (uint32_t)c->cpu);
		/* compressed: the option points at the chunk count */
		err = err ?: db_add64(&opt, w->be, w->compress ? start - 4 : start);
		err = err ?: db_add64(&opt, w->be, c->spooled);
		if (err)
			goto nomem;
	}
	w->off = pos;
	if (opt.len > UINT32_MAX) {
		err = werr(w, -EOVERFLOW, "buffer option too large");
		goto out;
	}
	err = queue_option(w, FMT_OPT_BUFFER, opt.data, (uint32_t)opt.len);
	goto out;
nomem:
	err = werr(w, err, "cannot build the buffer option");
out:
	w->fault_kind = NULL;
	db_free(&opt);
	return err;
}

static void wbuf_free(struct fmt_wbuf *b, bool unlink_spools)
{
	int i;

	if (!b)
		return;
	for (i = 0; i < b->cpus_len; i++) {
		struct wcpu *c = b->cpus[i];

		if (!c)
			continue;
		if (c->fd >= 0)
			close(c->fd);
		if (unlink_spools && c->path)
			unlink(c->path);
		free(c->path);
		free(c->chunk);
		free(c->sums);
		free(c->tix);
		free(c->facts);
		db_free(&c->floss);
		db_free(&c->fname);
		db_free(&c->fstate);
		free(c);
	}
	free(b->cpus);
	free(b->name);
	free(b->clock);
	free(b);
}

static void writer_free(struct fmt_writer *w)
{
	int i;

	if (!w)
		return;
	worker_stop(w);
	for (i = 0; i < w->nbufs; i++)
		wbuf_free(w->bufs[i], true);
	free(w->bufs);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	/* an unfinished temporary file goes, unless close kept it for recovery */
	fmt_outfile_abort(&w->out);
	for (i = 0; i < w->nsystems; i++) {
		free(w->systems[i].name);
		db_free(&w->systems[i].body);
	}
	free(w->systems);
	db_free(&w->ftrace);
	db_free(&w->opts);
	db_free(&w->strings);
	fmt_zctx_free(w->z);
	free(w->zbuf);
	free(w->last_stat_buf);
	db_free(&w->sums);
	db_free(&w->tix);
	db_free(&w->facts);
	db_free(&w->state);
	free(w->cmdlines_text);
	free(w->nsrc);
	free(w->nsrc_of);
	free(w->ssrc);
	free(w->ssrc_of);
	if (w->ntep)
		tep_free(w->ntep);
	free(w->spool_prefix);
	free(w->path);
	pthread_mutex_destroy(&w->amu);
	free(w);
}

static int queue_checksums(struct fmt_writer *w)
{
	struct dynbuf d = { 0 };
	int err;

	if (w->sums_bad_all || !w->nsum_entries)
		return 0;
	err = db_add32(&d, w->be, 1);
	err = err ?: db_add32(&d, w->be, w->nsum_entries);
	err = err ?: db_add(&d, w->sums.data, w->sums.len);
	if (!err && d.len > UINT32_MAX)
		err = -EOVERFLOW;
	err = err ?: queue_option(w, FMT_OPT_FT_CHECKSUMS, d.data, (uint32_t)d.len);
	db_free(&d);
	return err ? werr(w, err, "cannot queue the chunk checksums") : 0;
}

/* The digest of the output read back (the page cache has it), into *crc. */
static int digest_reread(struct fmt_writer *w, uint64_t at, uint32_t *crcp)
{
	static const uint8_t zeros[16];
	uint8_t *buf;
	uint64_t pos = 0;
	uint32_t crc = 0;
	int err = 0;

	buf = malloc(1 << 20);
	if (!buf)
		return werr(w, -ENOMEM, "cannot compute the file digest");
	while (pos < w->off) {
		size_t n = w->off - pos > (1 << 20) ? (1 << 20) : (size_t)(w->off - pos);
		ssize_t r = pread(w->fd, buf, n, (off_t)pos);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = werr(w, r < 0 ? -errno : -EIO, "cannot read '%s' back for its digest",
				   w->path);
			break;
		}
		n = (size_t)r;
		if (pos < at + 16 && pos + n > at) {
			/* the digest's own bytes count as zeros */
			uint64_t a = at > pos ? at - pos : 0, b = at + 16 - pos < n ? at + 16 - pos : n;

			crc = fmt_crc32c(crc, buf, (size_t)a);
			crc = fmt_crc32c(crc, zeros, (size_t)(b - a));
			crc = fmt_crc32c(crc, buf + b, n - (size_t)b);
		} else {
			crc = fmt_crc32c(crc, buf, n);
		}
		pos += n;
	}
	free(buf);
	*crcp = crc;
	return err;
}

/*
 * The whole-file digest: CRC32C of every byte of the finished file, the
 * digest option's 16-byte payload counted as zeros (as it was written).
 * Fed while writing; read back only where that was lost (recovery).
 * FLYTRAP_TEST_DIGEST=check (tests) reads back always and fails the file
 * when the two differ or a new file's digest had to be read back.
 * Payload: u32 version 1, u32 CRC32C, u64 file size.
 */
static int write_digest(struct fmt_writer *w, uint64_t at)
{
	const char *check = getenv("FLYTRAP_TEST_DIGEST");
	bool fed = !w->dg_lost && !w->recovering && w->dg_len == w->off;
	uint32_t crc = w->dg_crc, back = 0;
	uint8_t d[16];
	int err;

	if (!fed || (check && !strcmp(check, "check"))) {
		if ((err = digest_reread(w, at, &back)))
			return err;
		if (check && !strcmp(check, "check") && !w->recovering && (!fed || back != crc))
			return werr(w, -EIO, "the digest fed while writing %s (%08x, read back %08x)",
				    fed ? "is wrong" : "was lost", crc, back);
		crc = back;
	}
	put32(w->be, d, 1);
	put32(w->be, d + 4, crc);
	put64(w->be, d + 8, w->off);
	{
		struct iovec iov = { d, 16 };

		return out_writev_raw(w, at, &iov, 1);
	}
}

/* The finishing sequence shared by close and recover. */
static int finish_file(struct fmt_writer *w)
{
	struct fmt_wbuf *top = NULL;
	uint64_t digest_at;
	int i, j, err, maxcpu = -1;

	if ((err = check_ok(w)))
		return err;
	if (!w->recovering && (!w->formats_written || w->ftrace_dirty || w->events_dirty))
		if ((err = write_formats(w)))
			return err;
	/*
	 * The facts need every format: a table built before the last one came
	 * (or never) is built again, and the CPUs' facts are read from their
	 * spools.  A recovered or resumed file gets none: its formats are not
	 * this writer's to parse.
	 */
	if (w->recovering)
		w->facts_off = true;
	else if (!w->facts_off && (!w->nsrc_built || w->facts_stale))
		w->facts_redo = true;
	for (i = 0; i < w->nbufs; i++) {
		struct fmt_wbuf *b = w->bufs[i];

		if (!*b->name)
			top = b;
		for (j = 0; j < b->cpus_len; j++) {
			if (!b->cpus[j])
				continue;
			if ((err = spool_chunk(b, b->cpus[j])))
				return err;
		}
	}
	if ((err = worker_drain(w)))
		return err;
	if (w->facts_redo)
		nsrc_build(w);	/* no chunk is being stored any more */
	for (i = 0; i < w->nbufs; i++)
		for (j = 0; j < w->bufs[i]->cpus_len; j++)
			if (w->bufs[i]->cpus[j] && w->bufs[i]->cpus[j]->spooled && j > maxcpu)
				maxcpu = j;
	/* trace-cmd (and KernelShark) expect the top buffer to be described */
	if (!top) {
		bool rec = w->recovering;

		w->recovering = true;	/* no OPTIONS#1 from here */
		err = fmt_wbuf_new(w, "", NULL, &top);
		w->recovering = rec;
		if (err)
			return err;
	}
	if ((err = write_buffer(w, top)))
		return err;
	for (i = 0; i < w->nbufs; i++)
		if (w->bufs[i] != top && (err = write_buffer(w, w->bufs[i])))
			return err;
	w->fault_kind = "index";	/* all that follows the data */
	/* the CPUs' facts are whole once their buffers are written */
	if (w->cmdlines_pending && (err = write_cmdlines_events(w)))
		return err;
	/* KernelShark walks tep_get_cpus() CPUs, which only CPUCOUNT sets */
	if (!w->have_cpucount && (err = fmt_writer_cpucount(w, (uint32_t)(maxcpu + 1))))
		return err;
	if ((err = write_tindex(w)))
		return err;
	if ((err = write_facts(w)))
		return err;
	if ((err = write_state(w)))
		return err;
	if ((err = queue_checksums(w)))
		return err;
	/* the digest goes last, so its payload sits just before DONE */
	digest_at = w->opts.len + 6;
	if ((err = queue_option(w, FMT_OPT_FT_DIGEST, (uint8_t[16]){ 0 }, 16)))
		return err;
	if ((err = write_options(w, true)))
		return err;
	digest_at += w->last_opts_off + 16;
	{
		int32_t sid = string_id(w, "strings");

		(void)sid;
		err = write_section(w, FMT_OPT_STRINGS, "strings", w->compress, w->strings.data,
				    w->strings.len, NULL);
	}
	return err ?: write_digest(w, digest_at);
}

int fmt_writer_close(struct fmt_writer *w)
{
	int err;

	if (!w)
		return -EINVAL;
	err = finish_file(w);
	/* the fd goes back to the temporary file, which is renamed into place */
	w->out.fd = w->fd;
	w->fd = -1;
	if (!err && w->keep_temp) {
		err = fmt_outfile_seal(&w->out);
		if (err)
			werr(w, err, "cannot write '%s'", w->out.temp);
		else
			fmt_outfile_release(&w->out);
	} else if (!err && w->out.temp) {
		char *temp = strdup(w->out.temp);

		err = fmt_outfile_commit(&w->out);
		if (err)
			werr(w, err, "cannot put '%s' in place as '%s'", temp ? temp : "?", w->path);
		free(temp);
	}
	/*
	 * On failure the temporary file and the spools are kept: they still
	 * hold the data, and fmt_writer_recover() can finish the file once
	 * space is available.
	 */
	/* nothing may still be writing to the spools when they are let go */
	worker_drain(w);
	worker_stop(w);
	if (err && !w->discard_spools) {
		int i;

		for (i = 0; i < w->nbufs; i++)
			wbuf_free(w->bufs[i], false);
		w->nbufs = 0;
		fmt_outfile_release(&w->out);
	}
	writer_free(w);
	return err;
}

void fmt_writer_abort(struct fmt_writer *w)
{
	writer_free(w);
}

/* ---- recovery ----------------------------------------------------------- */

struct rsec {
	uint64_t off;
	uint16_t id;
	uint16_t flags;
	uint64_t size;		/* body size */
};

static int rerr_v(char **err, int code, bool with_errno, const char *fmt, va_list ap)
{
	char *m = NULL, *full = NULL;

	if (!err)
		return code;
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	if (m && asprintf(&full, "%s%s%s", m, with_errno ? ": " : "", with_errno ? strerror(-code) : "") < 0)
		full = NULL;
	free(m);
	free(*err);
	*err = full;
	return code;
}

/* A failed system call: the message names what, strerror says why. */
static int rerr_sys(char **err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rerr_sys(char **err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = rerr_v(err, code, true, fmt, ap);
	va_end(ap);
	return code;
}

/* Anything else: the message is the whole story. */
static int rerr_msg(char **err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rerr_msg(char **err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = rerr_v(err, code, false, fmt, ap);
	va_end(ap);
	return code;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EBADMSG;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Read a spool header; on success fills the wbuf/wcpu fields recovery needs. */
struct spool_info {
	char *path;
	int fd;
	uint32_t hdr_size, cpu, page_size, flags, index, ppc;
	char *name, *clock;
	uint64_t body;		/* usable chunk bytes */
	uint32_t nchunks;
	uint64_t dropped;	/* bytes of a torn last chunk */
};

static int spool_read(struct spool_info *s, dev_t dev, ino_t ino, bool be, uint32_t page_size)
{
	uint8_t fixed[52];
	char *strs = NULL, *nul;
	uint64_t d, in, fsize, pos;
	uint32_t ver;
	struct stat st;
	int err;

	if (fstat(s->fd, &st) < 0)
		return -errno;
	fsize = (uint64_t)st.st_size;
	if ((err = pread_all(s->fd, fixed, sizeof(fixed), 0)))
		return err;
	if (memcmp(fixed, SPOOL_MAGIC, 8))
		return -EBADMSG;
	memcpy(&s->hdr_size, fixed + 8, 4);
	memcpy(&ver, fixed + 12, 4);
	memcpy(&d, fixed + 16, 8);
	memcpy(&in, fixed + 24, 8);
	memcpy(&s->cpu, fixed + 32, 4);
	memcpy(&s->page_size, fixed + 36, 4);
	memcpy(&s->flags, fixed + 40, 4);
	memcpy(&s->index, fixed + 44, 4);
	memcpy(&s->ppc, fixed + 48, 4);
	if (ver != 1 || s->hdr_size < sizeof(fixed) + 2 || s->hdr_size > sizeof(fixed) + 8192 ||
	    s->hdr_size > fsize)
		return -EBADMSG;
	/* a spool of another output (same name reused elsewhere) is not ours */
	if (d != (uint64_t)dev || in != (uint64_t)ino)
		return -ESTALE;
	if (s->page_size != page_size || s->cpu >= MAX_CPUS || s->index > 65535 ||
	    !!(s->flags & SPOOL_FL_BIG_ENDIAN) != be)
		return -EBADMSG;
	strs = malloc(s->hdr_size - sizeof(fixed));
	if (!strs)
		return -ENOMEM;
	if ((err = pread_all(s->fd, strs, s->hdr_size - sizeof(fixed), sizeof(fixed)))) {
		free(strs);
		return err;
	}
	nul = memchr(strs, 0, s->hdr_size - sizeof(fixed));
	if (!nul || !memchr(nul + 1, 0, s->hdr_size - sizeof(fixed) - (size_t)(nul + 1 - strs))) {
		free(strs);
		return -EBADMSG;
	}
	s->name = strdup(strs);
	s->clock = strdup(nul + 1);
	free(strs);
	if (!s->name || !s->clock)
		return -ENOMEM;

	/* keep whole chunks (or whole pages) only: a torn tail is the lost part */
	pos = s->hdr_size;
	if (s->flags & SPOOL_FL_COMPRESSED) {
		uint8_t ch[8];

		while (pos + 8 <= fsize) {
			uint32_t cs, us;

			if (pread_all(s->fd, ch, 8, pos))
				break;
			cs = get32(be, ch);
			us = get32(be, ch + 4);
			if (!us || us % page_size || us > MAX_CHUNK_BYTES || pos + 8 + cs > fsize)
				break;
			pos += 8 + (uint64_t)cs;
			s->nchunks++;
		}
	} else {
		pos += (fsize - pos) / page_size * page_size;
		s->nchunks = (uint32_t)((pos - s->hdr_size) / page_size);
	}
	s->body = pos - s->hdr_size;
	s->dropped = fsize - pos;
	return 0;
}

static int cmp_spool(const void *a, const void *b)
{
	const struct spool_info *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* IDs this writer puts in a file: anything else means the walk is in garbage */
static bool known_section(uint16_t id)
{
	return id == FMT_OPT_DONE || id == FMT_OPT_BUFFER || id == FMT_OPT_STRINGS ||
	       (id >= FMT_OPT_HEADER_INFO && id <= FMT_OPT_CMDLINES) ||
	       (id >= FMT_SEC_FT_SYMTAB && id <= FMT_SEC_FT_STATE);
}

/* pointer options that recovery re-creates for sections found in the walk */
static int ptr_option_for(uint16_t sec)
{
	if (sec >= FMT_OPT_HEADER_INFO && sec <= FMT_OPT_CMDLINES)
		return sec;
	if (sec == FMT_SEC_FT_SYMTAB)
		return FMT_OPT_FT_SYMTAB;
	if (sec == FMT_SEC_FT_PROCMAPS)
		return FMT_OPT_FT_PROCMAPS;
	return -1;
}

/* The v7 file header of w->fd: byte order, long size, page size, compression. */
static int read_file_header(struct fmt_writer *w, uint64_t fsize, size_t *hlp, char **errp)
{
	uint8_t hdr[128];
	size_t hl;

	memset(hdr, 0, sizeof(hdr));
	if (pread(w->fd, hdr, sizeof(hdr), 0) < 18 || memcmp(hdr, "\x17\x08\x44tracing7", 11) || hdr[11])
		return rerr_msg(errp, -EBADMSG, "not a trace.dat version 7 file");
	w->be = hdr[12] == 1;
	w->long_size = hdr[13];
	w->long8 = w->long_size == 8;
	w->page_size = get32(w->be, hdr + 14);
	hl = 18;
	{
		char *comp = (char *)hdr + hl, *ver;
		void *e1 = memchr(comp, 0, sizeof(hdr) - hl);

		if (!e1)
			return rerr_msg(errp, -EBADMSG, "bad compression name in the file header");
		ver = (char *)e1 + 1;
		if (!memchr(ver, 0, sizeof(hdr) - (size_t)((uint8_t *)ver - hdr)) ||
		    (strcmp(comp, "zstd") && strcmp(comp, "none")))
			return rerr_msg(errp, -EOPNOTSUPP, "compression is neither zstd nor none: not written by flytrap");
		w->compress = !strcmp(comp, "zstd");
		hl = (size_t)((uint8_t *)ver - hdr) + strlen(ver) + 1;
	}
	if (hl + 8 > fsize || w->page_size < 64 || w->page_size > (1U << 27) || w->page_size % 4)
		return rerr_msg(errp, -EBADMSG, "bad file header (page size)");
	*hlp = hl;
	return 0;
}

/*
 * Open one candidate spool of the output w recovers: never through a link,
 * never a FIFO or device, only a regular file of the output's owner (the
 * writer that made both) that names the output's device and inode.  0 with
 * s filled, or -errno (the file is not taken).
 */
static int spool_take(struct fmt_writer *w, uid_t owner, struct spool_info *s)
{
	struct stat st;
	int e;

	s->fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	if (fstat(s->fd, &st) < 0)
		e = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != owner)
		e = -EPERM;
	else
		e = spool_read(s, w->dev, w->ino, w->be, w->page_size);
	if (!e && !!(s->flags & SPOOL_FL_COMPRESSED) != w->compress)
		e = -EBADMSG;
	if (e) {
		close(s->fd);
		s->fd = -1;
		free(s->name);
		free(s->clock);
		s->name = s->clock = NULL;
	}
	return e;
}

static int recover(const char *path, const char *const *list, int nlist, const char *cmdlines,
		   size_t cmdlines_len, char **errp);

int fmt_writer_recover(const char *path, char **errp)
{
	return recover(path, NULL, -1, NULL, 0, errp);
}

int fmt_writer_recover_spools(const char *path, const char *const *spools, int nspools,
			      char **errp)
{
	return recover(path, spools, nspools < 0 ? 0 : nspools, NULL, 0, errp);
}

int fmt_writer_recover_spools_names(const char *path, const char *const *spools, int nspools,
				    const char *cmdlines, size_t len, char **errp)
{
	return recover(path, spools, nspools < 0 ? 0 : nspools, cmdlines, len, errp);
}

static int recover(const char *path, const char *const *list, int nlist, const char *cmdlines,
		   size_t cmdlines_len, char **errp)
{
	struct fmt_writer *w = NULL;
	struct rsec *secs = NULL;
	struct spool_info *sp = NULL;
	int nsecs = 0, nsp = 0, i, err = 0, nopts = 0;
	size_t hl = 0;
	uint64_t fsize, pos, cut;
	struct stat st;
	char *spooldir = NULL, *prefix = NULL, *dirpath = NULL;
	const char *base;
	bool complete = false, saw_buffer = false, have_headers = false;
	DIR *dir = NULL;
	struct dirent *de;
	uint64_t lost_bytes = 0;
	uint64_t ptrs[64];
	uint16_t ptr_ids[64];
	int nptrs = 0;

	if (errp)
		*errp = NULL;
	w = writer_alloc();
	if (!w)
		return rerr_msg(errp, -ENOMEM, "out of memory");
	w->recovering = true;
	w->path = strdup(path);
	if (!w->path) {
		err = rerr_msg(errp, -ENOMEM, "out of memory");
		goto out;
	}
	/* the names the caller knows (a file was killed before its cmdlines were written) */
	if (cmdlines && cmdlines_len && (err = fmt_writer_cmdlines_events(w, cmdlines, cmdlines_len))) {
		err = rerr_msg(errp, err, "out of memory");
		goto out;
	}
	w->fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0 || fstat(w->fd, &st) < 0) {
		err = rerr_sys(errp, -errno, "cannot open '%s'", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = rerr_msg(errp, -EINVAL, "'%s' is not a regular file", path);
		goto out;
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	fsize = (uint64_t)st.st_size;

	err = read_file_header(w, fsize, &hl, errp);
	if (err)
		goto out;
	w->link_at = hl;
	w->ppc = 10;

	/* walk the sections: keep every complete one before the first BUFFER */
	pos = hl + 8;
	cut = pos;
	while (pos + 16 <= fsize) {
		uint8_t sh[16];
		struct rsec s;
		struct rsec *n;

		if (pread_all(w->fd, sh, 16, pos))
			break;
		s.off = pos;
		s.id = get16(w->be, sh);
		s.flags = get16(w->be, sh + 2);
		s.size = get64(w->be, sh + 8);
		if (s.id == FMT_OPT_BUFFER)
			saw_buffer = true;
		if (s.size > fsize - pos - 16 || !known_section(s.id) ||
		    (s.id == FMT_OPT_DONE && (s.size < 14 || s.flags)))
			break;
		n = realloc(secs, (size_t)(nsecs + 1) * sizeof(*n));
		if (!n) {
			err = rerr_msg(errp, -ENOMEM, "out of memory");
			goto out;
		}
		secs = n;
		secs[nsecs++] = s;
		pos += 16 + s.size;
		if (!saw_buffer)
			cut = pos;
	}
	/* finished by close(): BUFFERs, then OPTIONS and STRINGS up to EOF */
	if (saw_buffer && pos == fsize && nsecs >= 2 && secs[nsecs - 1].id == FMT_OPT_STRINGS &&
	    secs[nsecs - 2].id == FMT_OPT_DONE)
		complete = true;

	/* find the spool directory */
	for (i = 0; i < nsecs && secs[i].off < cut; i++) {
		if (secs[i].id == FMT_SEC_FT_SPOOLDIR && secs[i].size > 1 && secs[i].size < PATH_MAX &&
		    !secs[i].flags) {
			spooldir = calloc(1, secs[i].size + 1);
			if (spooldir && pread_all(w->fd, spooldir, secs[i].size, secs[i].off + 16)) {
				free(spooldir);
				spooldir = NULL;
			}
			break;
		}
	}
	prefix = spool_prefix_for(path, spooldir);
	if (!prefix) {
		err = rerr_msg(errp, -ENOMEM, "out of memory");
		goto out;
	}
	w->spool_prefix = prefix;
	prefix = NULL;
	base = strrchr(w->spool_prefix, '/');
	dirpath = strndup(w->spool_prefix, (size_t)(base - w->spool_prefix));
	base++;
	/*
	 * The spools a run note names; without a list (no note: the machine
	 * rebooted, or an older flytrap), the names beside the file, each
	 * checked by spool_take() since anyone may have planted one there.
	 */
	dir = list || !dirpath ? NULL : opendir(dirpath);
	if (!list && !dir) {
		err = rerr_sys(errp, dirpath ? -errno : -ENOMEM, "cannot list spool directory '%s'",
			   dirpath ? dirpath : "?");
		goto out;
	}
	for (i = 0; list ? i < nlist : (de = readdir(dir)) != NULL; i++) {
		struct spool_info s = { .fd = -1 };
		struct spool_info *n;

		if (!list && strncmp(de->d_name, base, strlen(base)))
			continue;
		if (list ? !(s.path = strdup(list[i])) :
			   asprintf(&s.path, "%s/%s", dirpath, de->d_name) < 0) {
			err = rerr_msg(errp, -ENOMEM, "out of memory");
			goto out;
		}
		if (spool_take(w, st.st_uid, &s)) {
			/* not ours (another output of the same name), planted or unusable: leave it */
			free(s.path);
			continue;
		}
		n = realloc(sp, (size_t)(nsp + 1) * sizeof(*n));
		if (!n) {
			close(s.fd);
			free(s.path);
			free(s.name);
			free(s.clock);
			err = rerr_msg(errp, -ENOMEM, "out of memory");
			goto out;
		}
		sp = n;
		sp[nsp++] = s;
	}
	if (complete) {
		/* killed between finishing the file and removing the spools */
		for (i = 0; i < nsp; i++)
			unlink(sp[i].path);
		err = 1;
		goto out;
	}
	/*
	 * Without spool files the chunks can only be in FILE itself: a file
	 * that was finished and then cut (or copied without its spools).
	 * Truncating it to its metadata would throw those chunks away; leave
	 * it as it is, the reader prints what it still holds.
	 */
	if (!nsp && fsize > cut) {
		err = rerr_msg(errp, -ENOENT,
			       "no spool files next to it (%s*): not the output of a killed recorder, "
			       "or its spools are gone; the file is left as it was (flytrap report reads "
			       "what it holds)", w->spool_prefix);
		goto out;
	}
	for (i = 0; i < nsecs && secs[i].off < cut; i++)
		if (secs[i].id == FMT_OPT_HEADER_INFO)
			have_headers = true;
	if (!have_headers) {
		err = rerr_msg(errp, -EBADMSG,
			   "the writer died before the headers were written: nothing to recover");
		goto out;
	}
	if (ftruncate(w->fd, (off_t)cut) < 0) {
		err = rerr_sys(errp, -errno, "cannot truncate '%s'", path);
		goto out;
	}
	w->off = cut;
	if (w->compress && (err = writer_setup_chunks(w, 0))) {
		err = rerr_sys(errp, err, "cannot set up compression");
		goto out;
	}

	/*
	 * Rebuild what lived in memory: the string table (patching each
	 * section's string ID), the OPTIONS chain links, and pointer options
	 * for sections whose OPTIONS never made it to disk.
	 */
	for (i = 0; i < nsecs && secs[i].off < cut; i++) {
		struct rsec *s = &secs[i];
		const char *desc = section_desc(s->id);
		uint8_t b[8];
		int32_t sid = desc ? string_id(w, desc) : -1;

		put32(w->be, b, (uint32_t)sid);
		if (out_write(w, s->off + 4, b, 4))
			break;
		if (s->id == FMT_OPT_DONE) {
			uint8_t *body;
			uint64_t p = 0;

			if (s->flags || s->size < 14 || s->size > (64u << 20))
				continue;
			body = malloc(s->size);
			if (!body || pread_all(w->fd, body, s->size, s->off + 16)) {
				free(body);
				continue;
			}
			/* walk the options for CPUCOUNT and pointers already present */
			while (p + 6 <= s->size) {
				uint16_t oid = get16(w->be, body + p);
				uint32_t osz = get32(w->be, body + p + 2);

				if (p + 6 + osz > s->size)
					break;
				if (oid == FMT_OPT_CPUCOUNT)
					w->have_cpucount = true;
				if (osz == 8 && nptrs < 64 && oid != FMT_OPT_DONE) {
					ptr_ids[nptrs] = oid;
					ptrs[nptrs++] = get64(w->be, body + p + 6);
				}
				if (oid == FMT_OPT_DONE)
					break;
				p += 6 + osz;
			}
			free(body);
			put64(w->be, b, s->off);
			out_write(w, w->link_at, b, 8);
			w->link_at = s->off + 16 + s->size - 8;
			put64(w->be, b, 0);
			out_write(w, w->link_at, b, 8);
			nopts++;
		}
	}
	if (w->err) {
		err = rerr_msg(errp, w->err, "%s", w->errbuf);
		goto out;
	}
	for (i = 0; i < nsecs && secs[i].off < cut; i++) {
		int oid = ptr_option_for(secs[i].id), k;
		bool found = false;

		if (oid < 0)
			continue;
		for (k = 0; k < nptrs; k++)
			if (ptr_ids[k] == oid && ptrs[k] == secs[i].off)
				found = true;
		/* a later copy of the same section (re-written formats) must win */
		for (k = i + 1; k < nsecs && secs[k].off < cut; k++)
			if (secs[k].id == secs[i].id)
				found = true;
		if (!found && (err = queue_ptr_option(w, (uint16_t)oid, secs[i].off))) {
			err = rerr_msg(errp, err, "%s", w->errbuf);
			goto out;
		}
	}

	/* buffers from the spools, in their original order */
	if (nsp > 1)	/* sp is NULL when no spool survived */
		qsort(sp, (size_t)nsp, sizeof(*sp), cmp_spool);
	for (i = 0; i < nsp; i++) {
		struct fmt_wbuf *b = NULL;
		struct wcpu *c;
		int k;

		lost_bytes += sp[i].dropped;
		for (k = 0; k < w->nbufs; k++)
			if (!strcmp(w->bufs[k]->name, sp[i].name))
				b = w->bufs[k];
		if (!b) {
			if ((err = fmt_wbuf_new(w, sp[i].name, sp[i].clock, &b))) {
				err = rerr_msg(errp, err, "%s", w->errbuf);
				goto out;
			}
		}
		c = wbuf_cpu(b, (int)sp[i].cpu);
		if (!c || c->fd >= 0) {
			err = rerr_msg(errp, c ? -EBADMSG : -ENOMEM, "duplicate spool '%s'",
				       sp[i].path);
			goto out;
		}
		c->fd = sp[i].fd;
		sp[i].fd = -1;
		c->path = sp[i].path;
		sp[i].path = NULL;
		c->hdr_size = sp[i].hdr_size;
		c->spooled = sp[i].body;
		c->crc_bad = true;
		c->nchunks = sp[i].nchunks;
	}
	{
		char meta[128];
		int n = snprintf(meta, sizeof(meta),
				 FMT_META_RECOVERED "=1\n" FMT_META_RECOVERED_TORN_BYTES "=%llu\n",
				 (unsigned long long)lost_bytes);

		if ((err = queue_option(w, FMT_OPT_FT_META, meta, (uint32_t)n + 1))) {
			err = rerr_msg(errp, err, "%s", w->errbuf);
			goto out;
		}
	}
	err = finish_file(w);
	if (err) {
		err = rerr_msg(errp, err, "%s", w->errbuf);
		/* keep the spools: nothing is lost yet */
		for (i = 0; i < w->nbufs; i++)
			wbuf_free(w->bufs[i], false);
		w->nbufs = 0;
		goto out;
	}
	if (close(w->fd) < 0) {
		err = rerr_sys(errp, -errno, "cannot close '%s'", path);
		for (i = 0; i < w->nbufs; i++)
			wbuf_free(w->bufs[i], false);
		w->nbufs = 0;
	}
	w->fd = -1;
	(void)nopts;
out:
	if (dir)
		closedir(dir);
	for (i = 0; i < nsp; i++) {
		if (sp[i].fd >= 0)
			close(sp[i].fd);
		free(sp[i].path);
		free(sp[i].name);
		free(sp[i].clock);
	}
	free(sp);
	free(secs);
	free(spooldir);
	free(prefix);
	free(dirpath);
	writer_free(w);	/* unlinks the spools it took over (only on success) */
	return err;
}

/* ---- resuming a dead writer's spools ------------------------------------- */

int fmt_wbuf_get(struct fmt_writer *w, const char *name, const char *clock, struct fmt_wbuf **out)
{
	int i;

	for (i = 0; i < w->nbufs; i++) {
		if (!strcmp(w->bufs[i]->name, name ? name : "")) {
			*out = w->bufs[i];
			return 0;
		}
	}
	if (!clock) {
		*out = NULL;
		return -ENOENT;
	}
	return fmt_wbuf_new(w, name, clock, out);
}

/* Open one spool of a dead writer and take it over at its last whole chunk. */
static int resume_spool(struct fmt_writer *w, const char *path, char **errp)
{
	struct spool_info si = { .fd = -1 };
	struct fmt_wbuf *b = NULL;
	struct wcpu *c;
	struct stat st;
	int err, i;

	si.fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (si.fd < 0)
		return rerr_sys(errp, -errno, "cannot open spool file '%s'", path);
	if (fstat(si.fd, &st) < 0) {
		err = rerr_sys(errp, -errno, "cannot open spool file '%s'", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		err = rerr_msg(errp, -EPERM, "spool file '%s' is not a regular file of uid %u",
			       path, (unsigned)geteuid());
		goto fail;
	}
	err = spool_read(&si, w->dev, w->ino, w->be, w->page_size);
	if (!err && !!(si.flags & SPOOL_FL_COMPRESSED) != w->compress)
		err = -EBADMSG;
	if (err) {
		err = rerr_msg(errp, err, "spool file '%s' does not belong to '%s'", path, w->path);
		goto fail;
	}
	if (ftruncate(si.fd, (off_t)(si.hdr_size + si.body)) < 0 ||
	    lseek(si.fd, 0, SEEK_END) < 0) {
		err = rerr_sys(errp, -errno, "cannot cut the torn end of spool file '%s'", path);
		goto fail;
	}
	for (i = 0; i < w->nbufs; i++)
		if (!strcmp(w->bufs[i]->name, si.name))
			b = w->bufs[i];
	if (!b) {
		if ((err = fmt_wbuf_new(w, si.name, si.clock, &b))) {
			err = rerr_msg(errp, err, "%s", w->errbuf);
			goto fail;
		}
		b->index = (int)si.index;
	}
	c = wbuf_cpu(b, (int)si.cpu);
	if (!c || c->fd >= 0) {
		err = rerr_msg(errp, c ? -EBADMSG : -ENOMEM, "duplicate spool '%s'", path);
		goto fail;
	}
	c->fd = si.fd;
	c->path = strdup(path);
	c->hdr_size = si.hdr_size;
	c->spooled = si.body;
	c->crc_bad = true;
	c->nchunks = si.nchunks;
	if (si.ppc)
		w->ppc = si.ppc;
	free(si.name);
	free(si.clock);
	return c->path ? 0 : rerr_msg(errp, -ENOMEM, "out of memory");
fail:
	close(si.fd);
	free(si.name);
	free(si.clock);
	return err;
}

int fmt_writer_resume(const char *path, const char *const *spools, int nspools,
		      const struct fmt_writer_opts *opts, struct fmt_writer **out, char **errp)
{
	struct fmt_writer *w;
	struct stat st;
	size_t hl;
	int err, i;

	*out = NULL;
	if (errp)
		*errp = NULL;
	w = writer_alloc();
	if (!w)
		return rerr_msg(errp, -ENOMEM, "out of memory");
	w->recovering = true;	/* nothing is written to the output */
	w->ppc = 10;
	w->path = strdup(path);
	if (opts) {
		w->on_spool = opts->on_spool;
		w->on_spool_arg = opts->on_spool_arg;
	}
	if (!w->path) {
		err = rerr_msg(errp, -ENOMEM, "out of memory");
		goto fail;
	}
	w->fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0 || fstat(w->fd, &st) < 0) {
		err = rerr_sys(errp, -errno, "cannot open '%s'", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = rerr_msg(errp, -EINVAL, "'%s' is not a regular file", path);
		goto fail;
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	if ((err = read_file_header(w, (uint64_t)st.st_size, &hl, errp)))
		goto fail;
	for (i = 0; i < nspools; i++)
		if ((err = resume_spool(w, spools[i], errp)))
			goto fail;
	w->spool_prefix = spool_prefix_for(path, opts ? opts->spool_dir : NULL);
	if (!w->spool_prefix) {
		err = rerr_msg(errp, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((err = writer_setup_chunks(w, opts ? opts->zstd_level : 0))) {
		err = rerr_sys(errp, err, "cannot set up compression");
		goto fail;
	}
	*out = w;
	return 0;
fail:
	/* the spools stay: they are the dead writer's data */
	for (i = 0; i < w->nbufs; i++)
		wbuf_free(w->bufs[i], false);
	w->nbufs = 0;
	writer_free(w);
	return err;
}

int fmt_writer_suspend(struct fmt_writer *w)
{
	int i, j, err = 0;

	if (!w)
		return -EINVAL;
	for (i = 0; i < w->nbufs && !err; i++)
		for (j = 0; j < w->bufs[i]->cpus_len && !err; j++)
			if (w->bufs[i]->cpus[j])
				err = spool_chunk(w->bufs[i], w->bufs[i]->cpus[j]);
	if (!err)
		err = worker_drain(w);
	for (i = 0; i < w->nbufs; i++) {
		for (j = 0; j < w->bufs[i]->cpus_len; j++) {
			struct wcpu *c = w->bufs[i]->cpus[j];

			if (c && c->fd >= 0 && fsync(c->fd) < 0 && !err)
				err = werr(w, -errno, "cannot write spool file '%s'", c->path);
		}
		wbuf_free(w->bufs[i], false);
	}
	w->nbufs = 0;
	writer_free(w);
	return err;
}
