// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ring-buffer page decoding and the timestamp-ordered merge of every CPU of
 * every buffer.
 *
 * The decoder mirrors libtraceevent's kbuffer (including its quirks: a
 * padding record's delta is added to the clock, an absolute stamp keeps the
 * top 5 bits of the current time, and the lost-event count is reported only
 * when the page's first record sits at offset 0) so that timestamps and
 * drop markers match `trace-cmd report` exactly, but it is our own code so
 * that every length is checked against the page before it is used.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define COMMIT_MASK	((1U << 27) - 1)
#define MISSED_EVENTS	(1U << 31)
#define MISSED_STORED	(1U << 30)
#define TS_MSB		(0xf8ULL << 56)
#define READ_PAGES	64	/* pages per read() for uncompressed data */
#define TQ		4	/* decoded chunks in flight per stream (worker threads) */

/*
 * Worker threads (fmt_iter_opts.threads > 1).  A stream is then decoded
 * ahead by a worker, one chunk (or uncompressed block) at a time: the
 * worker runs the ordinary decoder below on the stream and keeps every
 * event of the chunk in a batch, with the chunk's buffer, so the events'
 * data stays where the decoder put it.  The merge (the calling thread)
 * takes batches in order from each stream's queue of at most TQ, so memory
 * is bounded by streams x (TQ + 2) chunks.  What the decoder would tell
 * the reader at once (an error message, bytes decoded) goes to the
 * stream's slot instead and is given to the reader when the merge reaches
 * that point, so messages and their order are those of the serial read.
 * Event formats are looked up by the merge (lazy parsing is not thread
 * safe).
 */
struct batch {
	struct fmt_event *ev;
	uint32_t n, cap;
	uint8_t **bufs;		/* chunk buffers the events point into */
	int nbufs, bufs_cap;
	int skip;		/* a checksum skip to report before the first event */
	int end;		/* 0 more follow, 1 the stream's end, <0 its error */
	struct fmt_errslot skip_slot, end_slot;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* room in a queue, or quit */
	pthread_cond_t ready;	/* a batch was queued */
	pthread_t *th;
	int nth;
	bool quit;
	struct fmt_iter *it;
	struct batch **spare;	/* emptied batches kept for reuse (their arrays stay) */
	int nspare, spare_cap;
	/*
	 * Paused: no worker takes a job, and nbusy counts those still in one.
	 * Parsing a format on first use forks a screening child
	 * (fmt_reader_event): that happens only with every worker waiting,
	 * holding no lock of ours, the allocator's or a sanitizer's.
	 */
	bool paused;
	int nbusy;
};

struct stream {
	struct fmt_reader *r;
	const struct fmt_iter_opts *adj;	/* time options, NULL when none */
	int buffer, cpu;
	uint32_t page_size;
	bool be, long8, compressed, truncated;
	uint64_t pos, end;	/* file range still to read */
	uint32_t chunks_left;
	bool chunks_started;
	struct fmt_zctx *z;

	uint8_t *buf;		/* whole pages */
	uint8_t *spare;		/* the previous buf: the last event returned may point into it */
	size_t buf_cap, spare_cap; /* uncompressed reads: bytes allocated */
	size_t buf_len, buf_pos;
	uint64_t buf_voff;	/* virtual offset of buf[0] */
	uint64_t voff;		/* virtual offset of the next chunk (compressed) */
	uint64_t chunk_off;	/* file offset of the chunk in buf (compressed): for messages */

	/* page being decoded */
	const uint8_t *data;	/* first byte after the page header */
	uint32_t size;		/* committed bytes */
	uint32_t idx;		/* next record in data[] */
	uint64_t ts;
	int64_t lost;		/* page's lost count (0, -1, n) */
	int64_t carried_lost;	/* from pages that had no records */
	uint64_t page_voff;
	bool page_first;

	struct fmt_event ev;
	bool has_ev, done;

	/* chunk checksums (NULL: none, or out of step with the chunk list) */
	const struct fmt_cpu_sums *sums;
	uint32_t sum_idx;
	bool skip_pending;	/* chunks skipped since the last page that loaded */
	uint64_t skip_from, skip_to;
	uint32_t skip_chunks;
	uint64_t last_ts;	/* adjusted time of the last record returned */
	int skip_err;		/* a skip to report before this stream's next event */
	uint8_t *sumbuf;	/* raw bytes of the chunk being checked */
	size_t sumbuf_cap;

	/*
	 * Decoded by a worker thread (see struct batch): the merge's stream
	 * holds the queue, the decoder (dec, the worker's) the decoding state.
	 */
	bool threaded;
	bool no_formats;	/* read by a pipeline's producer: the caller looks formats up */
	struct stream *dec;
	uint32_t nloads;	/* buffers loaded so far: a new one starts a batch */
	uint8_t **retired;	/* buffers replaced since the worker last looked */
	int nretired, retired_cap;
	struct fmt_errslot eslot; /* what fmt_rerr() writes in the worker */
	bool carry;		/* carry_ev is the first event of the next batch */
	struct fmt_event carry_ev;
	int carry_skip;
	struct fmt_errslot carry_slot;
	struct batch *q[TQ];	/* decoded, under the pool's lock */
	int qhead, qcount;
	bool busy, ended;	/* a worker has it; it queued its last batch */
	struct batch *cur, *prev; /* the merge's batch and the one before (ev may point into it) */
	uint32_t cur_pos;

	bool seek_pending;	/* the time index: find the start on the first load */
	bool no_stored;		/* search on the fly even when the file stores an index */
	uint64_t seek_ts;
	uint64_t data_offset;	/* of the stream's data (cd->offset) */
};

struct fmt_iter {
	struct fmt_reader *r;
	struct stream *s;
	int ns;
	int *heap;		/* stream indexes with a pending event, min-heap */
	int nheap;
	int errors;
	int last;		/* stream whose event was returned last (to advance) */
	int peeked;		/* stream of the last fmt_iter_peek() */
	int pending_err;	/* error met while advancing early for a peek */
	struct fmt_event cur;	/* copy handed out: streams move on underneath */
	bool direct;		/* no peek: hand out the stream's event itself */
	struct fmt_event taken;
	struct fmt_iter_opts adj;	/* the time options the streams point to */
	struct pool *pool;	/* worker threads, NULL when serial */
	struct pipe *pipe;	/* the merge's own thread (opts.pipeline), NULL when none */
};

static inline void data_add(struct fmt_reader *r, uint64_t n)
{
	__atomic_add_fetch(&r->data_bytes, n, __ATOMIC_RELAXED);
}

/* The buffer in s->buf is being replaced: a threaded stream's batch keeps it. */
static int retire_buf(struct stream *s)
{
	s->nloads++;
	if (!s->threaded) {
		free(s->spare);
		s->spare = s->buf;
		s->spare_cap = s->buf_cap;
	} else if (s->buf) {
		if (s->nretired == s->retired_cap) {
			int cap = s->retired_cap ? s->retired_cap * 2 : 4;
			uint8_t **n = realloc(s->retired, (size_t)cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			s->retired = n;
			s->retired_cap = cap;
		}
		s->retired[s->nretired++] = s->buf;
	}
	s->buf = NULL;
	s->buf_cap = 0;
	return 0;
}

static int stream_fail(struct stream *s, int err)
{
	s->done = true;
	s->has_ev = false;
	return err;
}

/* "secs.usecs" as trace-cmd prints a time stamp (rounded to the microsecond) */
static void fmt_ts(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;

	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(us / 1000000),
		 (unsigned long long)(us % 1000000));
}

static void note_skip(struct stream *s, const struct fmt_chunk_sum *cs);

/*
 * The chunk or block at s->pos against its stored checksum: 0 it matches
 * (or there is nothing to check; *csp names it when checked), 1 it does
 * not and was skipped, <0 a read error.
 */
static int check_sum(struct stream *s, const struct fmt_chunk_sum **csp)
{
	struct fmt_reader *r = s->r;
	const struct fmt_chunk_sum *cs;
	int err;

	if (!s->sums || s->sum_idx >= s->sums->n)
		return 0;
	cs = &s->sums->chunks[s->sum_idx];
	if (cs->offset != s->pos || !cs->len || cs->len > FMT_MAX_CHUNK + 8 ||
	    cs->len > r->info.file_size - s->pos) {
		s->sums = NULL;	/* out of step (or cut off): read on unchecked */
		return 0;
	}
	if (!s->compressed && (cs->len % s->page_size || cs->len > s->end - s->pos)) {
		s->sums = NULL;
		return 0;
	}
	s->sum_idx++;
	if (cs->len > s->sumbuf_cap) {
		free(s->sumbuf);
		s->sumbuf_cap = 0;
		s->sumbuf = malloc(cs->len);
		if (!s->sumbuf)
			return -ENOMEM;
		s->sumbuf_cap = cs->len;
	}
	if ((err = fmt_rread(r, s->pos, s->sumbuf, cs->len)))
		return err;
	*csp = cs;
	if (fmt_crc32c(0, s->sumbuf, cs->len) == cs->crc)
		return 0;
	note_skip(s, cs);
	return 1;
}

static void note_skip(struct stream *s, const struct fmt_chunk_sum *cs)
{
	if (!s->skip_pending)
		s->skip_from = cs->offset;
	s->skip_pending = true;
	s->skip_to = cs->offset + cs->len;
	s->skip_chunks++;
	s->pos = cs->offset + cs->len;
	if (s->compressed)
		s->chunks_left--;
}

/* The message for skipped chunks, ending at the page just loaded (or the end: at_end). */
static int skip_message(struct stream *s, bool at_end)
{
	struct fmt_reader *r = s->r;
	const char *bname = r->info.buffers[s->buffer].name;
	char from[32], to[32];

	if (s->last_ts)
		fmt_ts(from, sizeof(from), s->last_ts);
	else
		snprintf(from, sizeof(from), "the start");
	if (at_end)
		snprintf(to, sizeof(to), "the end of its data");
	else
		fmt_ts(to, sizeof(to), fmt_reader_adjust_ts_cpu(r, s->ts, s->buffer, s->cpu));
	s->skip_pending = false;
	return fmt_rerr(r, -EBADMSG, s->skip_from,
			"CPU %d%s%s: bytes %llu-%llu fail their checksum (%u %s); skipped, "
			"events lost between %s and %s", s->cpu, *bname ? " of buffer " : "", bname,
			(unsigned long long)s->skip_from, (unsigned long long)s->skip_to - 1,
			s->skip_chunks, s->compressed ? "chunk(s)" : "block(s)", from, to);
}

/* Uncompressed reads: the current buffer becomes the spare, and the new one holds n bytes. */
static int swap_bufs(struct stream *s, size_t n)
{
	uint8_t *t = s->spare;
	size_t tc = s->spare_cap;

	if (s->threaded) {
		if (retire_buf(s))
			return -ENOMEM;
		s->buf = malloc(n);
		if (!s->buf)
			return -ENOMEM;
		s->buf_cap = n;
		return 0;
	}
	s->nloads++;

	s->spare = s->buf;
	s->spare_cap = s->buf_cap;
	s->buf = t;
	s->buf_cap = tc;
	if (s->buf_cap < n) {
		free(s->buf);
		s->buf_cap = 0;
		s->buf = malloc(n);
		if (!s->buf)
			return -ENOMEM;
		s->buf_cap = n;
	}
	return 0;
}

static int load_page_data(struct stream *s);

/* Load the next page into s->data; 1 loaded, 0 end of stream, <0 error. */
static int load_page(struct stream *s)
{
	int ret = load_page_data(s);

	if (ret == 1 && s->skip_pending) {
		/* the page after skipped chunks starts with a loss of unknown size */
		if (!s->lost)
			s->lost = -1;
		s->skip_err = skip_message(s, false);
	} else if (ret == 0 && s->skip_pending) {
		ret = skip_message(s, true);
	}
	return ret;
}

/*
 * The events of one raw page as stream_next() decodes them, for the
 * writer's per-chunk facts: each record's stored stamp and payload, and
 * the loss the page header reports on the page's first record when that
 * record is an event at offset 0 (what rec.missed_events says).  Returns
 * 0, a callback's nonzero return, or -EBADMSG where the iterator would
 * find the page or one of its records damaged.  *last (when not NULL) gets
 * the stamp of the last event before the walk stopped, or the page's own
 * (fmt_page_last_ts(), the time index's).  Keep it in step with
 * load_page_data() and stream_next(): tests/tools/facts_check compares
 * the two on every test file.
 */
int fmt_page_walk(const void *page, uint32_t page_size, bool be, bool long8,
		  int (*cb)(void *ctx, uint64_t ts, const void *data, uint32_t size, int64_t missed),
		  void *ctx, uint64_t *last)
{
	const uint8_t *p = page, *d;
	uint32_t hdr = long8 ? 16 : 12, size, idx = 0;
	uint64_t ts, commit;
	int64_t lost = 0;
	bool first = true;

	if (page_size < 8)
		return -EBADMSG;
	ts = fmt_get64(be, p);
	if (last)
		*last = ts;
	if (page_size < hdr)
		return -EBADMSG;
	commit = long8 ? fmt_get64(be, p + 8) : fmt_get32(be, p + 8);
	size = (uint32_t)commit & COMMIT_MASK;
	if (size > page_size - hdr)
		return -EBADMSG;
	d = p + hdr;
	if (commit & MISSED_EVENTS) {
		lost = -1;
		if ((commit & MISSED_STORED) && size + (long8 ? 8 : 4) <= page_size - hdr)
			lost = long8 ? (int64_t)fmt_get64(be, d + size) : (int64_t)fmt_get32(be, d + size);
	}
	while (idx < size) {
		uint32_t w, type_len, delta, len, start = idx;
		const uint8_t *r = d + idx;
		int rc;

		if (size - idx < 4)
			return -EBADMSG;
		w = fmt_get32(be, r);
		type_len = be ? w >> 27 : w & 0x1f;
		delta = be ? w & ((1U << 27) - 1) : w >> 5;
		if (type_len == 29) {
			if (size - idx < 8)
				return -EBADMSG;
			len = fmt_get32(be, r + 4);
			ts += delta;
			if (len > size - idx - 4)
				break;	/* null padding to the end of the page */
			idx += 4 + len + (len ? 0 : 4);
			continue;
		}
		if (type_len >= 30) {
			uint64_t t;

			if (size - idx < 8)
				return -EBADMSG;
			t = ((uint64_t)fmt_get32(be, r + 4) << 27) + delta;
			ts = type_len == 31 ? t | (ts & TS_MSB) : ts + t;
			idx += 8;
			continue;
		}
		if (type_len == 0) {
			if (size - idx < 8)
				return -EBADMSG;
			len = fmt_get32(be, r + 4);
			if (len < 4)
				return -EBADMSG;
			len = ((len - 4) + 3) & ~3U;
			if (len > size - idx - 8)
				return -EBADMSG;
			r += 8;
			idx += 8 + len;
		} else {
			len = type_len * 4;
			if (len > size - idx - 4)
				return -EBADMSG;
			r += 4;
			idx += 4 + len;
		}
		ts += delta;
		if (last)
			*last = ts;
		rc = cb ? cb(ctx, ts, r, len, first && start == 0 ? lost : 0) : 0;
		if (rc)
			return rc;
		first = false;
	}
	return 0;
}

uint64_t fmt_page_last_ts(const void *page, uint32_t page_size, bool be, bool long8)
{
	uint64_t last = 0;

	/* where the walk stops at a damaged record, the stamp so far is the answer */
	fmt_page_walk(page, page_size, be, long8, NULL, NULL, &last);
	return last;
}

/* ---- the time index -------------------------------------------------------------- */

/*
 * The time index is the data itself: a ring-buffer page's header holds
 * the time stamp of its first event, and every event of the pages before
 * it is no later (the kernel stamps a page when it starts writing it).
 * So the pages, or the first pages of the chunks, are a sorted index, and
 * a binary search on them finds where a window starts: log2(chunks)
 * chunks decompressed instead of all of them.  No option stores it, so
 * trace-cmd's files have it too.
 */

/* Adjusted time of the first page of chunk k ({csize, usize} at off): 0 ok, <0 error. */
static int chunk_first_ts(struct stream *s, uint64_t off, uint64_t *ts)
{
	struct fmt_reader *r = s->r;
	void *out = NULL;
	uint32_t usize;
	uint64_t used;
	int err = fmt_read_zblock(r, s->z, off, r->info.file_size - off, FMT_MAX_CHUNK, &out, &usize,
				  &used);

	if (!err && usize < s->page_size)
		err = -EBADMSG;
	if (!err) {
		data_add(r, usize);
		*ts = fmt_reader_adjust_ts_cpu(r, fmt_get64(s->be, out), s->buffer, s->cpu);
	}
	free(out);
	return err;
}

static int page_first_ts(struct stream *s, uint64_t off, uint64_t *ts)
{
	uint8_t h[8];
	int err = fmt_rread(s->r, off, h, 8);

	if (!err) {
		data_add(s->r, 8);
		*ts = fmt_reader_adjust_ts_cpu(s->r, fmt_get64(s->be, h), s->buffer, s->cpu);
	}
	return err;
}

/*
 * The last of n entries whose time is before t, by binary search (-1: none
 * is, or the times met were out of order: read from the start).
 */
static long index_search(struct stream *s, long n, uint64_t t, const void *ctx,
			 int (*first_ts)(struct stream *s, const void *ctx, long k, uint64_t *ts))
{
	long lo = 0, hi = n - 1, best = -1;
	uint64_t best_ts = 0, above_ts = UINT64_MAX, ts;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (first_ts(s, ctx, mid, &ts))
			return -1;	/* damaged: the ordinary read reports it */
		if (ts < best_ts || ts > above_ts)
			return -1;	/* not in order: no index to trust */
		if (ts < t) {
			best = mid;
			best_ts = ts;
			lo = mid + 1;
		} else {
			above_ts = ts;
			hi = mid - 1;
		}
	}
	return best;
}

struct chunk_list {
	uint64_t *off;
	uint64_t *voff;
};

static int probe_chunk(struct stream *s, const void *ctx, long k, uint64_t *ts)
{
	const struct chunk_list *cl = ctx;

	return chunk_first_ts(s, cl->off[k], ts);
}

static int probe_tindex(struct stream *s, const void *ctx, long k, uint64_t *ts)
{
	const struct fmt_cpu_tindex *ti = ctx;

	*ts = fmt_reader_adjust_ts_cpu(s->r, ti->chunks[k].first, s->buffer, s->cpu);
	return 0;
}

/* Start the stream at chunk k of its stored index; false when the file disagrees with it. */
static bool tindex_start(struct stream *s, const struct fmt_cpu_tindex *ti, long k)
{
	const struct fmt_tindex_chunk *c = &ti->chunks[k];
	uint64_t ts;
	uint8_t b[8];

	if (s->compressed) {
		/* the chunk count and the chunk's own header must say what the index says */
		if (fmt_rread(s->r, s->pos, b, 4) || fmt_get32(s->be, b) != ti->n ||
		    fmt_rread(s->r, c->offset, b, 8) || (uint64_t)fmt_get32(s->be, b) + 8 != c->len ||
		    fmt_get32(s->be, b + 4) != c->raw)
			return false;
	}
	/*
	 * And its first page the stamp the index gives: then every event
	 * before it is no later (the pages' stamps are in order), so what is
	 * skipped holds nothing of the window even if the rest of the index
	 * lies.
	 */
	if ((s->compressed ? chunk_first_ts(s, c->offset, &ts) : page_first_ts(s, c->offset, &ts)) ||
	    ts != fmt_reader_adjust_ts_cpu(s->r, c->first, s->buffer, s->cpu))
		return false;
	if (s->sums) {
		uint32_t i;

		for (i = s->sum_idx; i < s->sums->n && s->sums->chunks[i].offset != c->offset; i++)
			;
		if (i == s->sums->n && s->compressed)
			return false;	/* out of step: no seek rather than no checks */
		if (i == s->sums->n) {
			/* uncompressed: the checksummed block that holds the page */
			for (i = s->sum_idx; i < s->sums->n; i++)
				if (s->sums->chunks[i].offset <= c->offset &&
				    c->offset - s->sums->chunks[i].offset < s->sums->chunks[i].len)
					break;
			if (i == s->sums->n)
				return false;
			s->sum_idx = i;
			s->pos = s->sums->chunks[i].offset;
			return true;
		}
		s->sum_idx = i;
	}
	if (s->compressed) {
		s->chunks_started = true;
		s->chunks_left = ti->n - (uint32_t)k;
		s->voff = c->voff;
	}
	s->pos = c->offset;
	return true;
}

/* A stream limited to chunks [first, end) of its stored index (fmt_iter_opts.ranges). */
static int stream_range(struct stream *s, const struct fmt_iter_range *rg)
{
	const struct fmt_cpu_tindex *ti = fmt_reader_tindex(s->r, s->buffer, s->cpu);

	if (!ti || !s->compressed || !ti->compressed || ti->data_offset != s->data_offset ||
	    rg->first > rg->end || rg->end > ti->n)
		return -ESPIPE;
	if (rg->first == rg->end) {
		s->chunks_started = true;	/* nothing of this stream */
		s->chunks_left = 0;
		return 0;
	}
	if (!tindex_start(s, ti, rg->first))
		return -ESPIPE;
	s->chunks_left = rg->end - rg->first;
	return 0;
}

/* The seek by the index the writer stored: 1 done (or nothing to skip), 0 use the search. */
static int stream_seek_stored(struct stream *s)
{
	const struct fmt_cpu_tindex *ti = s->no_stored ? NULL : fmt_reader_tindex(s->r, s->buffer,
										   s->cpu);
	long k;

	if (!ti || ti->data_offset != s->data_offset || ti->compressed != s->compressed)
		return 0;
	k = index_search(s, (long)ti->n, s->seek_ts, ti, probe_tindex);
	/* k < 0: nothing before seek_ts, or stamps out of order after the adjustment */
	return k <= 0 || tindex_start(s, ti, k) ? 1 : 0;
}

static int probe_page(struct stream *s, const void *ctx, long k, uint64_t *ts)
{
	(void)ctx;
	return page_first_ts(s, s->data_offset + (uint64_t)k * s->page_size, ts);
}

/* Move the stream to where seek_ts starts; on any doubt it stays at its start. */
static void stream_seek(struct stream *s)
{
	struct fmt_reader *r = s->r;
	long k;

	s->seek_pending = false;
	if (stream_seek_stored(s))
		return;
	if (!s->compressed) {
		long n = (long)((s->end - s->pos) / s->page_size);

		k = n > 1 ? index_search(s, n, s->seek_ts, NULL, probe_page) : -1;
		if (k <= 0)
			return;
		uint64_t to = s->pos + (uint64_t)k * s->page_size;

		if (s->sums) {
			/* start at the checksummed block that holds the page */
			uint32_t i;

			for (i = s->sum_idx; i < s->sums->n; i++)
				if (s->sums->chunks[i].offset <= to &&
				    to - s->sums->chunks[i].offset < s->sums->chunks[i].len)
					break;
			if (i == s->sums->n)
				return;
			to = s->sums->chunks[i].offset;
			s->sum_idx = i;
		}
		s->pos = to;
		return;
	}

	/* compressed: the chunk list from the headers ({u32 csize, u32 usize} each) */
	uint8_t b[8];
	uint32_t nchunks;
	struct chunk_list cl = { 0 };
	uint64_t pos = s->pos, voff = s->voff;

	if (s->end - s->pos < 4 || fmt_rread(r, s->pos, b, 4))
		return;
	nchunks = fmt_get32(s->be, b);
	/* a few chunks: their probes would cost what reading them costs */
	if (nchunks < 8 || nchunks > (r->info.file_size - s->pos) / 8)
		return;
	cl.off = malloc(nchunks * sizeof(*cl.off));
	cl.voff = malloc(nchunks * sizeof(*cl.voff));
	if (!cl.off || !cl.voff)
		goto out;
	pos += 4;
	for (uint32_t i = 0; i < nchunks; i++) {
		uint32_t csize;

		if (r->info.file_size - pos < 8 || fmt_rread(r, pos, b, 8))
			goto out;
		csize = fmt_get32(s->be, b);
		if (csize > r->info.file_size - pos - 8)
			goto out;
		cl.off[i] = pos;
		cl.voff[i] = voff;
		voff += fmt_get32(s->be, b + 4);
		pos += 8 + (uint64_t)csize;
	}
	k = index_search(s, (long)nchunks, s->seek_ts, &cl, probe_chunk);
	if (k <= 0)
		goto out;
	if (s->sums) {
		uint32_t i;

		for (i = s->sum_idx; i < s->sums->n && s->sums->chunks[i].offset != cl.off[k]; i++)
			;
		if (i == s->sums->n)
			goto out;	/* out of step: no seek rather than no checks */
		s->sum_idx = i;
	}
	s->chunks_started = true;
	s->chunks_left = nchunks - (uint32_t)k;
	s->pos = cl.off[k];
	s->voff = cl.voff[k];
out:
	free(cl.off);
	free(cl.voff);
}

static int load_page_data(struct stream *s)
{
	struct fmt_reader *r = s->r;
	uint32_t hdr = 8 + (s->long8 ? 8 : 4);
	const uint8_t *p;
	uint64_t commit;
	int err;

	if (s->seek_pending)
		stream_seek(s);
	while (s->buf_pos + s->page_size > s->buf_len) {
		/* need more bytes: uncompressed reads, or the next chunk */
		if (!s->compressed) {
			uint64_t left = s->end - s->pos;
			size_t n;

			if (!left) {
				if (s->truncated)
					return fmt_rerr(r, -EBADMSG, s->pos,
							"CPU %d data stops here: the file is truncated", s->cpu);
				return 0;
			}
			n = left > (uint64_t)s->page_size * READ_PAGES ? (size_t)s->page_size * READ_PAGES
								       : (size_t)left;
			if (s->sums) {
				const struct fmt_chunk_sum *cs = NULL;

				if ((err = check_sum(s, &cs)) < 0)
					return err;
				if (err)
					continue;	/* skipped */
				if (cs) {
					/* checked: hand out exactly that block, from the copy read */
					if ((err = swap_bufs(s, cs->len)))
						return err;
					memcpy(s->buf, s->sumbuf, cs->len);
					data_add(r, cs->len);
					s->buf_voff = s->pos;
					s->pos += cs->len;
					s->buf_len = cs->len;
					s->buf_pos = 0;
					continue;
				}
			}
			if ((err = swap_bufs(s, n)))
				return err;
			err = fmt_rread(r, s->pos, s->buf, n);
			if (err)
				return err;
			data_add(r, n);
			if (n % s->page_size) {
				/* a partial last page: trace-cmd cannot read it either */
				if (n < s->page_size) {
					return fmt_rerr(r, -EBADMSG, s->pos,
							"CPU %d data ends inside a page (%zu of %u bytes): "
							"the file is truncated", s->cpu, n, s->page_size);
				}
				n -= n % s->page_size;
			}
			s->buf_voff = s->pos;
			s->pos += n;
			s->buf_len = n;
			s->buf_pos = 0;
		} else {
			void *out;
			uint32_t usize;
			uint64_t used;

			if (!s->chunks_started) {
				uint8_t b[4];

				if (s->end - s->pos < 4)
					return fmt_rerr(r, -EBADMSG, s->pos, "CPU %d chunk count is missing", s->cpu);
				err = fmt_rread(r, s->pos, b, 4);
				if (err)
					return err;
				s->chunks_left = fmt_get32(s->be, b);
				s->pos += 4;
				s->chunks_started = true;
			}
			if (!s->chunks_left)
				return 0;
			if (s->sums) {
				const struct fmt_chunk_sum *cs = NULL;

				if ((err = check_sum(s, &cs)) < 0)
					return err;
				if (err)
					continue;	/* skipped */
			}
			s->chunk_off = s->pos;
			err = fmt_read_zblock(r, s->z, s->pos, r->info.file_size - s->pos, FMT_MAX_CHUNK,
					      &out, &usize, &used);
			if (err == -EBADMSG && s->truncated) {
				uint8_t h[8];

				/* a chunk that runs past the end of a cut file: say so plainly */
				if (r->info.file_size - s->pos < 8 ||
				    (!fmt_rread(r, s->pos, h, 8) &&
				     fmt_get32(s->be, h) > r->info.file_size - s->pos - 8))
					return fmt_rerr(r, -EBADMSG, s->pos,
							"CPU %d data stops inside a compressed chunk: "
							"the file is truncated", s->cpu);
			}
			if (err)
				return err;
			s->chunks_left--;
			s->pos += used;
			data_add(r, usize);
			if ((err = retire_buf(s))) {
				free(out);
				return err;
			}
			s->spare_cap = 0;
			s->buf = out;
			s->buf_len = usize;
			s->buf_pos = 0;
			s->buf_voff = s->voff;
			s->voff += usize;
			if (usize % s->page_size) {
				/*
				 * Only a writer bug makes a chunk end inside a page; keep the
				 * whole pages (zero-padding the last would invent data).
				 */
				s->buf_len -= usize % s->page_size;
			}
		}
	}
	p = s->buf + s->buf_pos;
	s->page_voff = s->buf_voff + s->buf_pos;
	s->buf_pos += s->page_size;

	s->ts = fmt_get64(s->be, p);
	commit = s->long8 ? fmt_get64(s->be, p + 8) : fmt_get32(s->be, p + 8);
	s->size = (uint32_t)commit & COMMIT_MASK;
	if (s->size > s->page_size - hdr)
		return fmt_rerr(r, -EBADMSG, s->compressed ? s->chunk_off : s->page_voff,
				"bad page on CPU %d: %u data bytes in a %u-byte page%s", s->cpu,
				s->size, s->page_size, s->compressed ? " of the compressed chunk" : "");
	s->data = p + hdr;
	s->idx = 0;
	s->page_first = true;
	s->lost = 0;
	if (commit & MISSED_EVENTS) {
		s->lost = -1;
		if ((commit & MISSED_STORED) && s->size + (s->long8 ? 8 : 4) <= s->page_size - hdr)
			s->lost = s->long8 ? (int64_t)fmt_get64(s->be, s->data + s->size)
					   : (int64_t)fmt_get32(s->be, s->data + s->size);
	}
	return 1;
}

/*
 * trace-cmd's timestamp_calc() with report's time options: the guest
 * correction, then --ts2secs in place of TSC2NSEC (a double multiply, as
 * trace-cmd does it), then DATE (unless --nodate), OFFSET and the user's
 * offset; --raw-ts returns the stored stamp untouched.
 */
static uint64_t adjust_ts(const struct stream *s)
{
	const struct fmt_info *in = &s->r->info;
	const struct fmt_iter_opts *a = s->adj;
	uint64_t ts, date = (uint64_t)in->date_offset_ns, off = (uint64_t)in->ts_offset_ns;

	if (a->ts_flags & FMT_TS_RAW)
		return s->ts;
	ts = fmt_reader_adjust_ts_cpu(s->r, s->ts, s->buffer, s->cpu);
	if (a->ts2secs_hz) {
		/* undo the offsets (and TSC2NSEC: its input is the stamp itself) */
		uint64_t base = in->has_tsc2nsec && in->tsc_mult ? s->ts : ts - date - off;

		ts = (uint64_t)((double)base * (1000000000.0 / (double)a->ts2secs_hz)) + date + off;
	}
	if (a->ts_flags & FMT_TS_NODATE)
		ts -= date;
	return ts + (uint64_t)a->ts_offset;
}

/* Decode the next data record of the stream into s->ev; 1, 0 at end, <0 error. */
static int stream_next(struct stream *s)
{
	struct fmt_reader *r = s->r;
	int err;

	for (;;) {
		const uint8_t *p;
		uint32_t w, type_len, delta, len, start;
		uint64_t ts;

		if (!s->data || s->idx >= s->size) {
			if (s->data && s->page_first && s->lost)
				s->carried_lost = s->carried_lost < 0 || s->lost < 0 ? -1
						  : s->carried_lost + s->lost;
			s->data = NULL;
			err = load_page(s);
			if (err <= 0)
				return err;
			continue;
		}
		if (s->size - s->idx < 4)
			goto bad;
		start = s->idx;
		p = s->data + s->idx;
		w = fmt_get32(s->be, p);
		if (s->be) {
			type_len = w >> 27;
			delta = w & ((1U << 27) - 1);
		} else {
			type_len = w & 0x1f;
			delta = w >> 5;
		}
		switch (type_len) {
		case 29:	/* padding: array[0] counts the rest of the record */
			if (s->size - s->idx < 8)
				goto bad;
			len = fmt_get32(s->be, p + 4);
			s->ts += delta;
			if (len > s->size - s->idx - 4) {
				s->idx = s->size;	/* null padding to the end of the page */
				continue;
			}
			s->idx += 4 + len;
			if (len == 0)
				s->idx += 4;
			continue;
		case 30:	/* time extend */
		case 31:	/* absolute time stamp */
			if (s->size - s->idx < 8)
				goto bad;
			ts = ((uint64_t)fmt_get32(s->be, p + 4) << 27) + delta;
			if (type_len == 31)
				s->ts = ts | (s->ts & TS_MSB);
			else
				s->ts += ts;
			s->idx += 8;
			continue;
		case 0:
			if (s->size - s->idx < 8)
				goto bad;
			len = fmt_get32(s->be, p + 4);
			if (len < 4)
				goto bad;
			len = ((len - 4) + 3) & ~3U;
			if (len > s->size - s->idx - 8)
				goto bad;
			s->ts += delta;
			s->ev.rec.data = (void *)(p + 8);
			s->ev.rec.size = len;
			s->idx += 8 + len;
			break;
		default:
			len = type_len * 4;
			if (len > s->size - s->idx - 4)
				goto bad;
			s->ts += delta;
			s->ev.rec.data = (void *)(p + 4);
			s->ev.rec.size = len;
			s->idx += 4 + len;
			break;
		}
		s->ev.rec.record_size = s->idx - start;
		s->ev.raw_ts = s->ts;
		s->ev.rec.ts = s->adj ? adjust_ts(s) : fmt_reader_adjust_ts_cpu(r, s->ts, s->buffer, s->cpu);
		s->last_ts = s->ev.rec.ts;
		s->ev.rec.offset = s->page_voff + (s->long8 ? 16 : 12) + start;
		s->ev.page_offset = s->page_voff;
		/* kbuffer reports the loss only if the first record is at offset 0 */
		s->ev.rec.missed_events = (s->page_first && start == 0) ? s->lost : 0;
		s->ev.page_missed = 0;
		if (s->page_first) {
			int64_t c = s->carried_lost, l = s->lost;

			s->ev.page_missed = c < 0 || l < 0 ? ((c || l) ? -1 : 0) : c + l;
			s->carried_lost = 0;
		}
		s->page_first = false;
		if (s->ev.rec.size >= 2) {
			uint16_t id = fmt_get16(s->be, s->ev.rec.data);

			s->ev.type = id;
			s->ev.event = NULL;
			if (!s->threaded && !s->no_formats) {
				s->ev.event = r->by_id[id];
				if (!s->ev.event && r->fmt_by_id[id] >= 0)
					s->ev.event = fmt_reader_event(r, id);
			}
		} else {
			s->ev.type = -1;
			s->ev.event = NULL;
		}
		return 1;
bad:
		return fmt_rerr(r, -EBADMSG, s->compressed ? s->chunk_off : s->page_voff,
				"corrupt record at byte %u of a page%s on CPU %d%s%s", s->idx,
				s->compressed ? " of the compressed chunk" : "", s->cpu,
				r->info.buffers[s->buffer].name[0] ? " of buffer " : "",
				r->info.buffers[s->buffer].name);
	}
}

/* ---- worker threads (struct batch) ---------------------------------------------- */

static void batch_free(struct batch *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nbufs; i++)
		free(b->bufs[i]);
	free(b->bufs);
	free(b->ev);
	free(b);
}

static int batch_keep_buf(struct batch *b, uint8_t *buf)
{
	if (b->nbufs == b->bufs_cap) {
		int cap = b->bufs_cap ? b->bufs_cap * 2 : 4;
		uint8_t **n = realloc(b->bufs, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->bufs = n;
		b->bufs_cap = cap;
	}
	b->bufs[b->nbufs++] = buf;
	return 0;
}

static int batch_add(struct batch *b, const struct fmt_event *ev)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		struct fmt_event *n = realloc(b->ev, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->ev = n;
		b->cap = cap;
	}
	b->ev[b->n++] = *ev;
	return 0;
}

/*
 * A batch the merge is done with: its chunk buffers are freed, the batch
 * and its arrays kept for a worker to fill again (fresh arrays for every
 * chunk would cost page faults).
 */
static void batch_recycle(struct pool *p, struct batch *b)
{
	bool kept = false;

	if (!b)
		return;
	for (int i = 0; i < b->nbufs; i++)
		free(b->bufs[i]);
	b->nbufs = 0;
	b->n = 0;
	b->skip = b->end = 0;
	pthread_mutex_lock(&p->mu);
	if (p->nspare < p->spare_cap) {
		p->spare[p->nspare++] = b;
		kept = true;
	}
	pthread_mutex_unlock(&p->mu);
	if (!kept)
		batch_free(b);
}

/* The buffers the stream let go of belong to b now (freed with it). */
static int batch_take_retired(struct batch *b, struct stream *s)
{
	int err = 0;

	for (int i = 0; i < s->nretired; i++) {
		if (!err)
			err = batch_keep_buf(b, s->retired[i]);
		if (err)
			free(s->retired[i]);	/* no event of b points into it on this path */
	}
	s->nretired = 0;
	return err;
}

/*
 * Decode the stream's next chunk into b (in a worker): its events up to
 * the first one of a newly loaded buffer, which is kept for the next
 * batch, or up to the end.  A failure ends the stream in b->end.
 */
static void decode_batch(struct stream *s, struct batch *b)
{
	int ret = 0;

	fmt_err_tls = &s->eslot;
	if (s->carry) {
		s->carry = false;
		ret = batch_add(b, &s->carry_ev);
		b->skip = s->carry_skip;
		b->skip_slot = s->carry_slot;
	}
	while (!ret) {
		uint32_t loads = s->nloads;

		ret = stream_next(s);
		if (ret > 0 && batch_take_retired(b, s))
			ret = fmt_rerr(s->r, -ENOMEM, 0, "out of memory decoding CPU %d", s->cpu);
		if (ret > 0) {
			if ((s->nloads != loads || s->skip_err) && b->n) {
				s->carry = true;
				s->carry_ev = s->ev;
				s->carry_skip = s->skip_err;
				s->carry_slot = s->eslot;
				s->skip_err = 0;
				break;
			}
			if (s->skip_err) {
				b->skip = s->skip_err;
				b->skip_slot = s->eslot;
				s->skip_err = 0;
			}
			ret = batch_add(b, &s->ev);
			if (ret)
				ret = fmt_rerr(s->r, ret, 0, "out of memory decoding CPU %d", s->cpu);
			continue;
		}
		if (batch_take_retired(b, s) && !ret)
			ret = fmt_rerr(s->r, -ENOMEM, 0, "out of memory decoding CPU %d", s->cpu);
		break;
	}
	if (ret < 0 || (!ret && !s->carry)) {
		/* the stream's end: the last buffer goes with the last events */
		if (s->buf && batch_keep_buf(b, s->buf) == 0)
			s->buf = NULL, s->buf_cap = 0;
		b->end = ret < 0 ? ret : 1;
		b->end_slot = s->eslot;
	}
	fmt_err_tls = NULL;
}

/* The stream a worker should decode next: the one with the fewest batches waiting. */
static struct stream *pick_stream(struct fmt_iter *it)
{
	struct stream *best = NULL;

	for (int i = 0; i < it->ns; i++) {
		struct stream *s = &it->s[i];

		if (s->threaded && !s->busy && !s->ended && s->qcount < TQ &&
		    (!best || s->qcount < best->qcount))
			best = s;
	}
	return best;
}

static void *worker_main(void *arg)
{
	struct pool *p = arg;
	struct fmt_iter *it = p->it;

	pthread_mutex_lock(&p->mu);
	while (!p->quit) {
		struct stream *s = p->paused ? NULL : pick_stream(it);
		struct batch *b;

		if (!s) {
			pthread_cond_wait(&p->work, &p->mu);
			continue;
		}
		s->busy = true;
		p->nbusy++;
		b = p->nspare ? p->spare[--p->nspare] : NULL;
		pthread_mutex_unlock(&p->mu);
		if (!b)
			b = calloc(1, sizeof(*b));
		if (b)
			decode_batch(s->dec, b);
		pthread_mutex_lock(&p->mu);
		s->busy = false;
		p->nbusy--;
		if (!b || b->end)
			s->ended = true;	/* !b: the merge says -ENOMEM */
		if (b)
			s->q[(s->qhead + s->qcount++) % TQ] = b;
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The stream's next batch, waiting for a worker; NULL when none can come (no memory). */
static struct batch *batch_pop(struct pool *p, struct stream *s)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&p->mu);
	while (!s->qcount && !s->ended)
		pthread_cond_wait(&p->ready, &p->mu);
	if (s->qcount) {
		b = s->q[s->qhead];
		s->qhead = (s->qhead + 1) % TQ;
		s->qcount--;
		pthread_cond_broadcast(&p->work);
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

/* The reader's fork hook: pause the workers until the fork is done (struct pool). */
static void pool_fork_hook(void *arg, bool before)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->mu);
	p->paused = before;
	if (before)
		while (p->nbusy)
			pthread_cond_wait(&p->ready, &p->mu);
	else
		pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
}

/* Give the reader a message a worker kept (as if the decoder had just written it). */
static int replay_err(struct fmt_reader *r, const struct fmt_errslot *e, int err)
{
	r->err_off = e->off;
	memcpy(r->err, e->msg, sizeof(r->err));
	return err;
}

/* stream_next() of a threaded stream, in the merge: the next event of its batches. */
static int batch_next(struct fmt_iter *it, struct stream *s)
{
	struct fmt_reader *r = s->r;

	for (;;) {
		struct batch *b = s->cur;

		if (b && s->cur_pos < b->n) {
			s->ev = b->ev[s->cur_pos];
			if (!s->cur_pos && b->skip)
				s->skip_err = replay_err(r, &b->skip_slot, b->skip);
			s->cur_pos++;
			if (s->ev.type >= 0) {
				s->ev.event = r->by_id[s->ev.type];
				if (!s->ev.event && r->fmt_by_id[s->ev.type] >= 0)
					s->ev.event = fmt_reader_event(r, s->ev.type);
			}
			return 1;
		}
		if (b && b->end)
			return b->end < 0 ? replay_err(r, &b->end_slot, b->end) : 0;
		/* the event handed out last may point into cur: keep it one batch longer */
		batch_recycle(it->pool, s->prev);
		s->prev = b;
		s->cur = batch_pop(it->pool, s);
		s->cur_pos = 0;
		if (!s->cur)
			return fmt_rerr(r, -ENOMEM, 0, "out of memory decoding CPU %d", s->cpu);
	}
}

static int snext(struct fmt_iter *it, struct stream *s)
{
	return s->threaded ? batch_next(it, s) : stream_next(s);
}

static void pool_stop(struct fmt_iter *it)
{
	struct pool *p = it->pool;

	if (!p)
		return;
	if (it->r->fork_arg == p) {
		it->r->fork_hook = NULL;
		it->r->fork_arg = NULL;
	}
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->ready);
	for (int i = 0; i < p->nspare; i++)
		batch_free(p->spare[i]);
	free(p->spare);
	free(p->th);
	free(p);
	it->pool = NULL;
}

/*
 * Start nth workers for the iterator's streams; false (the streams are
 * then read serially) when no thread can be made.
 */
static bool pool_start(struct fmt_iter *it, int nth)
{
	struct pool *p;

	if (it->r->fork_hook)
		return false;	/* another iterator of this reader has workers: this one reads alone */
	p = calloc(1, sizeof(*p));
	if (!p)
		return false;
	p->it = it;
	p->th = calloc((size_t)nth, sizeof(*p->th));
	p->spare_cap = it->ns * 2 + nth;
	p->spare = calloc((size_t)p->spare_cap, sizeof(*p->spare));
	if (!p->th || !p->spare || pthread_mutex_init(&p->mu, NULL)) {
		free(p->th);
		free(p->spare);
		free(p);
		return false;
	}
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->ready, NULL);
	it->pool = p;
	it->r->fork_hook = pool_fork_hook;
	it->r->fork_arg = p;
	for (int i = 0; i < it->ns; i++) {
		struct stream *s = &it->s[i], *d = malloc(sizeof(*d));

		if (!d)
			break;
		/* the decoder takes the stream's state as stream_init() left it */
		*d = *s;
		d->threaded = true;
		s->z = NULL;
		s->dec = d;
		s->threaded = true;
	}
	for (; p->nth < nth; p->nth++)
		if (pthread_create(&p->th[p->nth], NULL, worker_main, p))
			break;
	if (!p->nth) {
		for (int i = 0; i < it->ns; i++) {
			struct stream *s = &it->s[i];

			if (s->dec) {
				s->z = s->dec->z;
				free(s->dec);
			}
			s->dec = NULL;
			s->threaded = false;
		}
		pool_stop(it);
		return false;
	}
	return true;
}

static bool stream_before(const struct stream *a, const struct stream *b)
{
	if (a->ev.rec.ts != b->ev.rec.ts)
		return a->ev.rec.ts < b->ev.rec.ts;
	if (a->buffer != b->buffer)
		return a->buffer < b->buffer;
	return a->cpu < b->cpu;
}

static void heap_down(struct fmt_iter *it, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < it->nheap && stream_before(&it->s[it->heap[l]], &it->s[it->heap[m]]))
			m = l;
		if (l + 1 < it->nheap && stream_before(&it->s[it->heap[l + 1]], &it->s[it->heap[m]]))
			m = l + 1;
		if (m == i)
			return;
		t = it->heap[i];
		it->heap[i] = it->heap[m];
		it->heap[m] = t;
		i = m;
	}
}

static void heap_up(struct fmt_iter *it, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2, t;

		if (!stream_before(&it->s[it->heap[i]], &it->s[it->heap[p]]))
			return;
		t = it->heap[i];
		it->heap[i] = it->heap[p];
		it->heap[p] = t;
		i = p;
	}
}

static int stream_init(struct fmt_reader *r, struct stream *s, int b, const struct fmt_cpu_data *cd)
{
	const struct fmt_buffer *buf = &r->info.buffers[b];

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->buffer = b;
	s->cpu = cd->cpu;
	s->page_size = buf->page_size;
	s->be = r->info.big_endian;
	s->long8 = r->info.kernel_long == 8;
	s->compressed = buf->compressed;
	s->pos = cd->offset;
	s->end = cd->offset + cd->size;
	s->truncated = cd->truncated;
	if (s->compressed) {
		/* trace-cmd's data_size leaves out the chunk count: bound by the file */
		s->end = r->info.file_size;
		s->voff = cd->offset;
		s->z = fmt_zctx_new(r->info.compression, 0);
		if (!s->z)
			return -errno;
	}
	s->sums = fmt_reader_sums(r, b, cd->cpu);
	s->data_offset = cd->offset;
	s->ev.buffer = b;
	s->ev.rec.cpu = cd->cpu;
	s->ev.rec.ref_count = 1;
	s->ev.rec.locked = 1;
	return 0;
}

static void stream_release(struct stream *s)
{
	if (s->dec) {
		stream_release(s->dec);
		free(s->dec);
	}
	for (int i = 0; i < s->qcount; i++)
		batch_free(s->q[(s->qhead + i) % TQ]);
	batch_free(s->cur);
	batch_free(s->prev);
	for (int i = 0; i < s->nretired; i++)
		free(s->retired[i]);
	free(s->retired);
	free(s->buf);
	free(s->spare);
	free(s->sumbuf);
	fmt_zctx_free(s->z);
}

/* A checksum skip the stream met while moving on: reported once, before its next event. */
static void take_skip(struct fmt_iter *it, struct stream *s)
{
	if (!s->skip_err)
		return;
	if (!it->pending_err)
		it->pending_err = s->skip_err;
	it->errors++;
	s->skip_err = 0;
}

/* The first event of each stream. */
static void prime(struct fmt_iter *it)
{
	for (int c = 0; c < it->ns; c++) {
		struct stream *s = &it->s[c];
		int err = snext(it, s);

		if (err < 0) {
			stream_fail(s, err);
			it->errors++;
			if (!it->pending_err)
				it->pending_err = err;	/* told by the first fmt_iter_next() */
			continue;
		}
		if (err == 0) {
			s->done = true;
			continue;
		}
		take_skip(it, s);
		s->has_ev = true;
		it->heap[it->nheap++] = c;
		heap_up(it, it->nheap - 1);
	}
}

/* ---- the merge in a thread of its own (fmt_iter_opts.pipeline) -------------------- */

#define PQ		4	/* merged batches waiting for the caller */
/*
 * Events per merged batch.  Measured with analyze --threads 2 on 5M events
 * (15 alternating runs): 2048 gave a median of 0.317 s, 8192 0.298 s; 4x
 * fewer hand-overs, each a wake-up of the other thread.  A batch is about
 * 1.3 MB (the events and their payloads), so at most six are ~8 MB.
 */
#define PB_EVENTS	8192

/* an error of the serial read, given to the caller before event number at of its batch */
struct perr {
	uint32_t at;
	int err;
	int errors;		/* it->errors once it was met */
	struct fmt_errslot slot;
};

struct mbatch {
	struct fmt_event *ev;
	uint32_t n;
	uint8_t *data;		/* the payloads, 8-byte aligned */
	size_t dlen, dcap;
	struct perr *errs;
	int nerrs, errs_cap;
	int errors;		/* it->errors after the batch */
	bool end;		/* the read ends after it */
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t prod;	/* room for a batch, resume, or quit */
	pthread_cond_t cons;	/* a batch is queued, or the producer stopped working */
	pthread_t th;
	bool started, quit, paused, busy;
	struct mbatch *q[PQ];
	int qhead, qcount;
	struct mbatch *spare[PQ + 1];
	int nspare;
	struct fmt_errslot slot;	/* what fmt_rerr() writes in the producer */
	/* the caller's side */
	struct mbatch *cur;
	uint32_t pos;
	int epos;
	int errors;
};

static int serial_next(struct fmt_iter *it, const struct fmt_event **ev);
static void prime(struct fmt_iter *it);

static void mbatch_free(struct mbatch *b)
{
	if (!b)
		return;
	free(b->ev);
	free(b->data);
	free(b->errs);
	free(b);
}

static int mbatch_err(struct mbatch *b, int err, int errors, const struct fmt_errslot *slot)
{
	if (b->nerrs == b->errs_cap) {
		int cap = b->errs_cap ? 2 * b->errs_cap : 4;
		struct perr *n = realloc(b->errs, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->errs = n;
		b->errs_cap = cap;
	}
	b->errs[b->nerrs].at = b->n;
	b->errs[b->nerrs].err = err;
	b->errs[b->nerrs].errors = errors;
	b->errs[b->nerrs++].slot = *slot;
	return 0;
}

static int mbatch_add(struct mbatch *b, const struct fmt_event *ev)
{
	size_t need = ((size_t)(ev->rec.size > 0 ? ev->rec.size : 0) + 7) & ~(size_t)7;

	if (b->dcap - b->dlen < need) {
		size_t cap = b->dcap ? b->dcap : 64 << 10;
		uint8_t *n;

		while (cap - b->dlen < need)
			cap *= 2;
		n = realloc(b->data, cap);
		if (!n)
			return -ENOMEM;
		b->data = n;
		b->dcap = cap;
	}
	b->ev[b->n] = *ev;
	if (ev->rec.size > 0)
		memcpy(b->data + b->dlen, ev->rec.data, (size_t)ev->rec.size);
	/* an offset until the batch is full (data may still move) */
	b->ev[b->n++].rec.data = (void *)(uintptr_t)b->dlen;
	b->dlen += need;
	return 0;
}

/* The next PB_EVENTS events of the serial read (its errors in place) into b. */
static void pipe_fill(struct fmt_iter *it, struct pipe *p, struct mbatch *b)
{
	b->n = 0;
	b->dlen = 0;
	b->nerrs = 0;
	b->end = false;
	while (b->n < PB_EVENTS) {
		const struct fmt_event *ev;
		int rc = serial_next(it, &ev);

		if (rc == 0) {
			b->end = true;
			break;
		}
		if (rc > 0) {
			if (!mbatch_add(b, ev))
				continue;
			/* the event cannot be kept: the read ends with the error */
			rc = fmt_rerr(it->r, -ENOMEM, 0, "out of memory merging the CPU streams");
			mbatch_err(b, rc, it->errors, &p->slot);
			b->end = true;
			break;
		}
		/* a damaged stream, said once; the read goes on with the others */
		if (mbatch_err(b, rc, it->errors, &p->slot)) {
			b->end = true;
			break;
		}
	}
	for (uint32_t i = 0; i < b->n; i++)
		b->ev[i].rec.data = b->data + (uintptr_t)b->ev[i].rec.data;
	b->errors = it->errors;
}

static void *pipe_main(void *arg)
{
	struct fmt_iter *it = arg;
	struct pipe *p = it->pipe;
	bool end = false;

	fmt_err_tls = &p->slot;
	pthread_mutex_lock(&p->mu);
	while (!p->quit && !end) {
		struct mbatch *b;

		if (p->paused || !p->nspare || p->qcount == PQ) {
			pthread_cond_wait(&p->prod, &p->mu);
			continue;
		}
		b = p->spare[--p->nspare];
		p->busy = true;
		pthread_mutex_unlock(&p->mu);
		if (!p->started) {
			p->started = true;
			prime(it);	/* here, so that its messages go where the others do */
		}
		pipe_fill(it, p, b);
		end = b->end;
		pthread_mutex_lock(&p->mu);
		p->busy = false;
		p->q[(p->qhead + p->qcount++) % PQ] = b;
		pthread_cond_broadcast(&p->cons);
	}
	pthread_mutex_unlock(&p->mu);
	fmt_err_tls = NULL;
	return NULL;
}

/* The reader's fork hook: the producer holds still while a format is screened. */
static void pipe_fork_hook(void *arg, bool before)
{
	struct pipe *p = arg;

	pthread_mutex_lock(&p->mu);
	p->paused = before;
	if (before)
		while (p->busy)
			pthread_cond_wait(&p->cons, &p->mu);
	else
		pthread_cond_broadcast(&p->prod);
	pthread_mutex_unlock(&p->mu);
}

static void pipe_stop(struct fmt_iter *it)
{
	struct pipe *p = it->pipe;

	if (!p)
		return;
	if (it->r->fork_arg == p) {
		it->r->fork_hook = NULL;
		it->r->fork_arg = NULL;
	}
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->prod);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->prod);
	pthread_cond_destroy(&p->cons);
	for (int i = 0; i < p->qcount; i++)
		mbatch_free(p->q[(p->qhead + i) % PQ]);
	for (int i = 0; i < p->nspare; i++)
		mbatch_free(p->spare[i]);
	mbatch_free(p->cur);
	free(p);
	it->pipe = NULL;
}

/* Start the producer; false (then the caller primes and reads serially) when it cannot be. */
static bool pipe_start(struct fmt_iter *it)
{
	struct pipe *p;

	if (it->r->fork_hook)
		return false;	/* another iterator of this reader has threads: this one reads alone */
	p = calloc(1, sizeof(*p));
	if (!p)
		return false;
	for (; p->nspare < PQ + 1; p->nspare++) {
		struct mbatch *b = calloc(1, sizeof(*b));

		if (!b || !(b->ev = malloc(PB_EVENTS * sizeof(*b->ev)))) {
			free(b);
			break;
		}
		p->spare[p->nspare] = b;
	}
	if (p->nspare < 2 || pthread_mutex_init(&p->mu, NULL)) {
		for (int i = 0; i < p->nspare; i++)
			mbatch_free(p->spare[i]);
		free(p);
		return false;
	}
	pthread_cond_init(&p->prod, NULL);
	pthread_cond_init(&p->cons, NULL);
	for (int i = 0; i < it->ns; i++)
		it->s[i].no_formats = true;	/* looked up by the caller (lazy parsing forks) */
	it->pipe = p;
	if (pthread_create(&p->th, NULL, pipe_main, it)) {
		for (int i = 0; i < it->ns; i++)
			it->s[i].no_formats = false;
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->prod);
		pthread_cond_destroy(&p->cons);
		for (int i = 0; i < p->nspare; i++)
			mbatch_free(p->spare[i]);
		free(p);
		it->pipe = NULL;
		return false;
	}
	it->r->fork_hook = pipe_fork_hook;
	it->r->fork_arg = p;
	return true;
}

/* fmt_iter_next() with a producer: the merged events of its batches, formats looked up here. */
static int pipe_next(struct fmt_iter *it, const struct fmt_event **out)
{
	struct pipe *p = it->pipe;
	struct fmt_reader *r = it->r;

	for (;;) {
		struct mbatch *b = p->cur;

		if (b) {
			if (p->epos < b->nerrs && b->errs[p->epos].at == p->pos) {
				const struct perr *e = &b->errs[p->epos++];

				p->errors = e->errors;
				return replay_err(r, &e->slot, e->err);
			}
			if (p->pos < b->n) {
				struct fmt_event *ev = &b->ev[p->pos++];

				if (ev->type >= 0) {
					ev->event = r->by_id[ev->type];
					if (!ev->event && r->fmt_by_id[ev->type] >= 0)
						ev->event = fmt_reader_event(r, ev->type);
				}
				*out = ev;
				return 1;
			}
			if (b->end) {
				p->errors = b->errors;
				return 0;
			}
		}
		/* the event handed out last is in cur: the caller is done with it now */
		pthread_mutex_lock(&p->mu);
		if (b) {
			p->errors = b->errors;
			p->spare[p->nspare++] = b;
			pthread_cond_broadcast(&p->prod);
		}
		while (!p->qcount)
			pthread_cond_wait(&p->cons, &p->mu);
		p->cur = p->q[p->qhead];
		p->qhead = (p->qhead + 1) % PQ;
		p->qcount--;
		pthread_mutex_unlock(&p->mu);
		p->pos = 0;
		p->epos = 0;
	}
}

int fmt_iter_new(struct fmt_reader *r, const struct fmt_iter_opts *opts, struct fmt_iter **out)
{
	struct fmt_iter *it = calloc(1, sizeof(*it));
	int b, c, n = 0, err = 0;

	*out = NULL;
	if (!it)
		return -ENOMEM;
	it->r = r;
	it->last = -1;
	if (opts)
		it->adj = *opts;
	it->direct = opts && opts->no_peek;
	it->peeked = -1;
	for (b = 0; b < r->info.nbuffers; b++)
		n += r->info.buffers[b].ncpus;
	it->s = calloc(n ? n : 1, sizeof(*it->s));
	it->heap = calloc(n ? n : 1, sizeof(int));
	if (!it->s || !it->heap) {
		fmt_iter_free(it);
		return -ENOMEM;
	}
	if (r->old_format)
		n = 0;	/* pre-2.6.31 pages: trace-cmd decodes nothing either */
	for (b = 0; b < r->info.nbuffers && n; b++) {
		const struct fmt_buffer *buf = &r->info.buffers[b];

		if (opts && opts->buffer_mask && (b >= 64 || !(opts->buffer_mask & (1ULL << b))))
			continue;
		for (c = 0; c < buf->ncpus; c++) {
			const struct fmt_cpu_data *cd = &buf->cpus[c];
			bool any_cpu = !opts || !(opts->cpu_mask[0] | opts->cpu_mask[1] |
						  opts->cpu_mask[2] | opts->cpu_mask[3]);

			if (!cd->size)
				continue;
			if (!any_cpu && (cd->cpu >= 256 ||
					 !(opts->cpu_mask[cd->cpu / 64] & (1ULL << (cd->cpu % 64)))))
				continue;
			err = stream_init(r, &it->s[it->ns], b, cd);
			/*
			 * The search compares the pages' times as the file gives them: with
			 * report's time options (another scale or offset) it would not know
			 * where seek_ts is, so those streams read from their start.
			 */
			if (opts && (opts->ts_flags || opts->ts2secs_hz || opts->ts_offset))
				it->s[it->ns].adj = &it->adj;
			else if (opts && opts->seek) {
				it->s[it->ns].seek_pending = true;
				it->s[it->ns].seek_ts = opts->seek_ts;
				it->s[it->ns].no_stored = opts->seek_no_stored;
			}
			for (int k = 0; !err && opts && k < opts->nranges; k++)
				if (opts->ranges[k].buffer == b && opts->ranges[k].cpu == cd->cpu)
					err = stream_range(&it->s[it->ns], &opts->ranges[k]);
			it->ns++;
			if (err) {
				fmt_iter_free(it);
				return err;
			}
		}
	}
	if (opts && opts->threads > 1 && it->ns) {
		/* what the workers look up must be decoded before they start */
		if (opts->seek)
			fmt_reader_tindex_status(r, NULL);
		if (!opts->pipeline || !pipe_start(it))
			pool_start(it, opts->threads - 1 < it->ns ? opts->threads - 1 : it->ns);
	}
	if (!it->pipe)
		prime(it);
	*out = it;
	return 0;
}

/* Move stream si (which sits at heap position hp) to its next event. */
static int advance(struct fmt_iter *it, int hp)
{
	struct stream *s = &it->s[it->heap[hp]];
	int err = snext(it, s);

	if (err > 0) {
		take_skip(it, s);
		heap_down(it, hp);
		heap_up(it, hp);
		return 0;
	}
	stream_fail(s, err);
	it->heap[hp] = it->heap[--it->nheap];
	if (hp < it->nheap) {
		heap_down(it, hp);
		heap_up(it, hp);
	}
	if (err < 0)
		it->errors++;
	return err;
}

/* The lazy advance of the stream returned last; the heap top is still that stream. */
static int settle(struct fmt_iter *it)
{
	int err;

	if (it->last < 0)
		return 0;
	it->last = -1;
	err = advance(it, 0);
	return err < 0 ? err : 0;
}

static int serial_next(struct fmt_iter *it, const struct fmt_event **ev)
{
	int err = settle(it);

	it->peeked = -1;
	if (!err && it->pending_err) {
		err = it->pending_err;
		it->pending_err = 0;
	}
	if (err)
		return err;	/* report the damage once; later calls go on with the rest */
	if (!it->nheap)
		return 0;
	it->last = it->heap[0];
	/* valid until the next call: the stream moves on lazily, in settle() */
	if (it->direct || it->pipe) {
		*ev = &it->s[it->last].ev;
		return 1;
	}
	it->cur = it->s[it->last].ev;
	*ev = &it->cur;
	return 1;
}

int fmt_iter_next(struct fmt_iter *it, const struct fmt_event **ev)
{
	return it->pipe ? pipe_next(it, ev) : serial_next(it, ev);
}

int fmt_iter_peek(struct fmt_iter *it, int buffer, const struct fmt_event **ev)
{
	int i, best = -1, err;

	if (it->pipe)
		return -ENOTSUP;
	if (it->direct)
		return -EINVAL;
	err = settle(it);

	if (err)
		it->pending_err = err;
	for (i = 0; i < it->nheap; i++) {
		struct stream *s = &it->s[it->heap[i]];

		if (s->buffer != buffer)
			continue;
		if (best < 0 || stream_before(s, &it->s[it->heap[best]]))
			best = i;
	}
	it->peeked = best;
	if (best < 0)
		return 0;
	*ev = &it->s[it->heap[best]].ev;
	return 1;
}

int fmt_iter_take_peeked(struct fmt_iter *it, const struct fmt_event **ev)
{
	int hp = it->peeked, err;

	if (it->pipe)
		return -ENOTSUP;
	if (hp < 0 || hp >= it->nheap)
		return -EINVAL;
	it->peeked = -1;
	it->taken = it->s[it->heap[hp]].ev;
	*ev = &it->taken;
	err = advance(it, hp);
	if (err < 0)
		it->pending_err = err;
	return 1;
}

int fmt_iter_errors(const struct fmt_iter *it)
{
	return it->pipe ? it->pipe->errors : it->errors;
}

void fmt_iter_free(struct fmt_iter *it)
{
	int i;

	if (!it)
		return;
	pipe_stop(it);
	pool_stop(it);
	for (i = 0; i < it->ns; i++)
		stream_release(&it->s[i]);
	free(it->s);
	free(it->heap);
	free(it);
}

int fmt_reader_read_pages(struct fmt_reader *r, int buffer, int cpu,
			  int (*cb)(void *arg, const void *page, uint32_t page_size), void *arg)
{
	const struct fmt_buffer *b;
	struct stream s;
	int i, err = 0, skipped = 0;

	if (buffer < 0 || buffer >= r->info.nbuffers)
		return -EINVAL;
	b = &r->info.buffers[buffer];
	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].cpu == cpu)
			break;
	if (i == b->ncpus || !b->cpus[i].size)
		return 0;
	err = stream_init(r, &s, buffer, &b->cpus[i]);
	while (!err) {
		err = load_page(&s);
		if (err <= 0)
			break;
		if (s.skip_err)
			skipped = s.skip_err;
		s.skip_err = 0;
		err = cb(arg, s.buf + s.buf_pos - s.page_size, s.page_size);
	}
	stream_release(&s);
	/* pages after a chunk that failed its checksum were given; say the file is damaged */
	return err ? err : skipped;
}

uint64_t fmt_reader_data_bytes(const struct fmt_reader *r)
{
	return __atomic_load_n(&r->data_bytes, __ATOMIC_RELAXED);
}
