// SPDX-License-Identifier: GPL-2.0-only
/*
 * One replay pass over a trace.dat feeding several analyzers, and the
 * command front end around it (options, the replay, the exit status).
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"
#include "report/core/join.h"
#include <time.h>
#include <unistd.h>

/*
 * The first damaged stream of the last replay (the error is printed once,
 * after the output, by rpt_replay_status()), and the errno of the first
 * failed write to an analyzer's output, for the one "cannot write" line.
 */
static char first_damage[512];
static int out_errno;

/* Per event id: its kind and fields (report/core/kinds.h), resolved the first time it is seen. */
struct replay_type {
	bool done;
	struct rpt_kind_info ki;
	struct fmt_namesrc ns;
};

/*
 * Before the analyzers see ev: its kind (resolved once per id), the task
 * names it carries (tasks NULL: none learned), and its typed record when
 * a running analyzer reads that kind (want: the union of their .kinds).
 */
static void replay_prepare(struct rpt_ctx *ctx, struct rpt_types *types, struct rpt_tasks *tasks,
			   const struct fmt_event *ev, uint64_t want, struct rpt_rec *rec)
{
	static const struct rpt_kind_info none = {
		.kind = RPT_K_OTHER,
		.common_pid.offset = -1, .tgid.offset = -1, .comm.offset = -1,
		.uregs.offset = -1, .ucopy.offset = -1,
	};
	struct replay_type *rt = rpt_types_get(types, ev->type);

	ctx->rec = NULL;
	if (!rt) {
		ctx->ki = &none;
		return;
	}
	if (!rt->done) {
		rpt_kind_resolve(ev->event, &rt->ki);
		/* ftrace's caller[] entries are longs of the kernel that wrote the file */
		rt->ki.long_size = ctx->info->kernel_long;
		fmt_namesrc_resolve(ev->event, &rt->ns);
		rt->done = true;
	}
	ctx->ki = &rt->ki;
	if (tasks)
		rpt_tasks_track(tasks, &rt->ns, ev);
	if (want & RPT_KIND_BIT(rt->ki.kind)) {
		rpt_rec_decode(&rt->ki, ev->rec.data, ev->rec.size, rec);
		ctx->rec = rec;
	}
}

/* ---- replay --------------------------------------------------------------- */

/* Last timestamp per (buffer, cpu) stream, for the start of a loss gap. */
struct stream_last {
	uint64_t ts;
	int last_loss;		/* index + 1 of this stream's latest entry in ctx->losses */
};

/*
 * Markers are kept one by one up to RPT_MAX_LOSSES; after that a marker is
 * merged into its stream's latest entry (the gap then spans both), so
 * memory stays bounded when every page of a huge file lost events.
 */
#define RPT_MAX_LOSSES 65536

/* A new marker at the end of ctx->losses, buffer, cpu and one marker set; NULL: no memory. */
static struct rpt_loss *loss_new(struct rpt_ctx *ctx, int *cap, int buffer, int cpu)
{
	struct rpt_loss *l;

	if (ctx->nlosses == *cap) {
		int ncap = *cap ? *cap * 2 : 64;
		struct rpt_loss *nl = realloc(ctx->losses, (size_t)ncap * sizeof(*nl));

		if (!nl)
			return NULL;
		ctx->losses = nl;
		*cap = ncap;
	}
	l = &ctx->losses[ctx->nlosses++];
	l->buffer = buffer;
	l->cpu = cpu;
	l->markers = 1;
	return l;
}

static int add_loss(struct rpt_ctx *ctx, int *cap, const struct fmt_event *ev,
		    struct stream_last *sl)
{
	struct rpt_loss *l;

	if (ctx->nlosses >= RPT_MAX_LOSSES && sl && sl->last_loss) {
		l = &ctx->losses[sl->last_loss - 1];
		l->ts = ev->rec.ts;
		l->markers++;
		if (l->count >= 0 && ev->rec.missed_events > 0)
			l->count += ev->rec.missed_events;
		else
			l->count = -1;
		return 0;
	}
	l = loss_new(ctx, cap, ev->buffer, ev->rec.cpu);
	if (!l)
		return -ENOMEM;
	if (sl)
		sl->last_loss = ctx->nlosses;
	l->ts = ev->rec.ts;
	l->prev_ts = sl ? sl->ts : 0;
	l->count = ev->rec.missed_events < 0 ? -1 : ev->rec.missed_events;
	return 0;
}

/*
 * Progress on stderr, only when it is a terminal (style.md), and only once a
 * replay has run for a second: the clock is read every PROGRESS_EVERY + 1
 * events, so the hot loop pays one test per event.
 */
#define PROGRESS_EVERY ((1u << 18) - 1)

struct progress {
	bool on, shown;
	struct timespec start;
	double last;		/* seconds since start at the last update */
	const char *path;	/* the file name: the line must fit a terminal to be redrawn */
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_begin(struct progress *p, const struct rpt_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->on = ft_progress_enabled();
	p->path = o->path ? o->path : "input";
	if (strrchr(p->path, '/'))
		p->path = strrchr(p->path, '/') + 1;
	if (p->on)
		clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void progress_show(struct progress *p, uint64_t n)
{
	double dt = since(&p->start);

	/* from one second on, four updates a second */
	if (dt < 1.0 || dt - p->last < 0.25)
		return;
	p->last = dt;
	fprintf(stderr, "\r%.40s: %.1fM events read, %.1fM/s", p->path, (double)n / 1e6,
		(double)n / 1e6 / dt);
	p->shown = true;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);	/* leave the terminal as it was */
	p->shown = false;
}

/*
 * A slice (report/share/slice.c) carries the records that make the state at its
 * cuts: entries of calls open at its start and the last sched_switch of
 * each CPU ("prologue="), exits of calls open at its end ("epilogue=").
 * They are handed to the analyzers before and after the slice's own events
 * with ctx->from_facts set (state: not counted as events, not printed by
 * report), so that a call cut by the window keeps its true duration.  Lines: "KEY=BUFFER CPU RAW_TS HEX".
 */
static void feed_slice_records(struct rpt_ctx *ctx, const char *key, struct rpt_types *types,
			       struct rpt_tasks *tasks, const struct rpt_analyzer *const *an, int n,
			       void **privs)
{
	const struct fmt_option *o = fmt_reader_option(ctx->r, FMT_OPT_FT_SLICE, 0);
	const char *p, *end;
	size_t klen = strlen(key);
	uint8_t buf[65536];
	uint64_t want = 0;
	struct rpt_rec rec;

	for (int k = 0; k < n; k++)
		want |= an[k]->kinds;

	if (!o || !o->size)
		return;
	p = o->data;
	end = p + strnlen(p, o->size);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		struct fmt_event ev = { 0 };
		unsigned long long raw;
		int b, cpu, used = 0, len = 0;

		if ((size_t)(le - p) > klen + 1 && !memcmp(p, key, klen) && p[klen] == '=' &&
		    sscanf(p + klen + 1, "%d %d %llu %n", &b, &cpu, &raw, &used) == 3 && used &&
		    b >= 0 && b < ctx->info->nbuffers && cpu >= 0) {
			const char *h = p + klen + 1 + used;

			while (h + 1 < le && len < (int)sizeof(buf) &&
			       isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1])) {
				char two[3] = { h[0], h[1], 0 };

				buf[len++] = (uint8_t)strtoul(two, NULL, 16);
				h += 2;
			}
			if (len >= 8) {
				ev.rec.data = buf;
				ev.rec.size = len;
				ev.rec.cpu = cpu;
				ev.buffer = b;
				ev.raw_ts = raw;
				ev.rec.ts = fmt_reader_adjust_ts_cpu(ctx->r, raw, b, cpu);
				ev.type = ctx->info->big_endian ? buf[0] << 8 | buf[1] :
								  buf[1] << 8 | buf[0];
				ev.event = fmt_reader_event(ctx->r, ev.type);
				replay_prepare(ctx, types, tasks, &ev, want, &rec);
				/* state, not events of the slice: set, never counted */
				ctx->from_facts = true;
				for (int k = 0; k < n; k++)
					if (an[k]->event_unfiltered)
						an[k]->event_unfiltered(ctx, privs[k], &ev);
				if (rpt_event_selected(ctx, &ev))
					for (int k = 0; k < n; k++)
						if (an[k]->event)
							an[k]->event(ctx, privs[k], &ev);
				ctx->from_facts = false;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* One replay: the context the analyzers see, their private data, and the reader's bookkeeping. */
struct replay {
	struct rpt_ctx ctx;
	struct rpt_tasks tasks;
	struct rpt_types types;
	struct rpt_map last;	/* (buffer << 32 | cpu) -> struct stream_last */
	struct fmt_iter *it;
	const struct rpt_analyzer *const *an;
	int n;
	void **privs;
	int ninit;		/* analyzers whose init succeeded (the first ninit) */
	bool any_unfiltered;
	uint64_t want;		/* kinds some analyzer reads as typed records */
	int losscap, nerrs;
	int last_buf, last_cpu;	/* the stream of sl_cached */
	struct stream_last *sl_cached;
	struct progress prog;
	struct rpt_rec rec;
	struct seek_plan *plan;	/* a window read without the chunks around it, or NULL */
	/*
	 * One of several replays run side by side (ranged analysis): damage is
	 * counted, not said, and makes the caller replay the file once, which
	 * says it as it always does.
	 */
	bool quiet;
};

/* The context and the analyzers' private data; privs stays NULL when even that fails. */
static int replay_begin(struct replay *rp, struct fmt_reader *r, const struct rpt_opts *opts,
			const struct rpt_analyzer *const *an, int n)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k, err = 0;

	memset(rp, 0, sizeof(*rp));
	rp->types.elem_size = sizeof(struct replay_type);
	rp->an = an;
	rp->n = n;
	rp->last_buf = -1;
	rp->last_cpu = -1;
	first_damage[0] = 0;
	ctx->r = r;
	ctx->tep = fmt_reader_tep(r);
	ctx->info = fmt_reader_info(r);
	ctx->opts = opts;
	rpt_set_raw_clock(!ctx->info->clock_in_usecs);
	progress_begin(&rp->prog, opts);
	rpt_tasks_init(&rp->tasks);
	rpt_map_init(&rp->last, sizeof(struct stream_last));
	ctx->tasks = &rp->tasks;

	rp->privs = calloc((size_t)(n > 0 ? n : 1), sizeof(*rp->privs));
	if (!rp->privs)
		err = -ENOMEM;
	for (k = 0; !err && k < n; k++) {
		rp->privs[k] = calloc(1, an[k]->priv_size ? an[k]->priv_size : 1);
		if (!rp->privs[k])
			err = -ENOMEM;
		if (an[k]->event_unfiltered)
			rp->any_unfiltered = true;
		rp->want |= an[k]->kinds;
	}
	return err;
}

/* Each analyzer's init, with its own configuration in ctx->conf; stops at the first failure. */
static int init_analyzers(struct replay *rp)
{
	int err = 0;

	for (int k = 0; k < rp->n && !err; k++) {
		if (rp->an[k]->init) {
			rp->ctx.conf = rp->an[k]->conf;
			err = rp->an[k]->init(&rp->ctx, rp->privs[k]);
			rp->ctx.conf = NULL;
		}
		if (!err)
			rp->ninit++;
	}
	return err;
}

/* ---- a window without the chunks around it --------------------------------- */

/*
 * With --from/--to, the chunks wholly before or after the window need not
 * be read when the file stores what they hold (the time index's facts,
 * fmt_reader_facts()): their events are counted, their loss markers and
 * the task names and tgids they assign are applied from the facts, and
 * the figures come out as a full read gives them.  Only when every
 * analyzer sees the selected events alone, or says through window_read()
 * which other stamps it needs (drops: none; overhead, which needs every
 * event before the window, cannot), every
 * CPU stream is a compressed one with facts and stamps in order, the
 * skipped chunks pass their checksums, and nothing else adjusts the
 * stamps per CPU.  Else,
 * or with FLYTRAP_WINDOW_READ=full (tests compare the two), the whole
 * file is read.
 */
struct seek_stream {
	int buffer, cpu;
	const struct fmt_cpu_facts *cf;
	const struct fmt_cpu_state *cs;	/* its state records, when an analyzer asks */
	uint32_t first, end;	/* the chunks read */
};

/*
 * A state record of a skipped chunk, in merge order: its stamp, its
 * stream's rank, then its place in the stream (before the window or after).
 */
struct fed_rec {
	uint64_t ts;
	int rank, buffer, cpu;
	uint32_t ord;
	bool before;
	const struct fmt_state_rec *sr;
};

struct seek_plan {
	int n;
	struct seek_stream *s;
	struct fmt_iter_range *rg;
	uint64_t before, after;	/* events in the chunks skipped */
	bool any_first;
	uint64_t first_ts, last_ts;	/* the file's first and last event */
	struct rpt_window_read wr;	/* what the read covers, for the analyzers */
	struct rpt_stream_id *skipped;	/* wr.skipped */
	struct rpt_stream_span *spans;	/* wr.streams */
	bool *state_an;			/* by analyzer: it gets the state records */
	struct fed_rec *fed;		/* the skipped chunks' state records, in merge order */
	size_t nfed, fed_at;
	uint8_t *kind_of;		/* by event ID: its fmt_state_kind + 1, 0 not known yet */
};


static uint64_t fact_ts(const struct rpt_ctx *ctx, const struct seek_stream *ss, uint64_t raw)
{
	return fmt_reader_adjust_ts_cpu(ctx->r, raw, ss->buffer, ss->cpu);
}

static void plan_free(struct seek_plan *p)
{
	if (!p)
		return;
	free(p->s);
	free(p->rg);
	free(p->skipped);
	free(p->spans);
	free(p->state_an);
	free(p->fed);
	free(p->kind_of);
	free(p);
}

/*
 * Does a state record set the analyzers' state?  The records slice keeps
 * (wakeups, calls) are not fed: a full read's analyzers see those events
 * only where it reads them.
 */
static bool fed_kind(const struct rpt_ctx *ctx, struct seek_plan *p, const struct fmt_state_rec *sr)
{
	int type = sr->type;

	if (!p->kind_of[type]) {
		struct fmt_statesrc ss;

		fmt_statesrc_resolve(fmt_reader_event(ctx->r, type), &ss);
		p->kind_of[type] = (uint8_t)(ss.kind + 1);
	}
	return p->kind_of[type] - 1 != FMT_ST_NONE && p->kind_of[type] - 1 < FMT_ST_WAKEUP;
}

bool rpt_state_fits(const struct fmt_cpu_facts *cf, const struct fmt_cpu_state *cs)
{
	if (!cs || cs->n != cf->n)
		return false;
	for (uint32_t k = 0; k < cs->n; k++) {
		const struct fmt_chunk_state *ch = &cs->chunks[k];
		const struct fmt_chunk_facts *fc = &cf->chunks[k];

		if (ch->nrec > fc->nev || ch->npages > fc->nev)
			return false;
		/* a record is one of its chunk's events: never inside a window that skips it */
		for (uint32_t j = 0; j < ch->nrec; j++)
			if (cs->recs[ch->rec_at + j].ts < fc->first ||
			    cs->recs[ch->rec_at + j].ts > fc->last)
				return false;
	}
	return true;
}

bool rpt_facts_adjusted_sorted(struct fmt_reader *r, int buffer, int cpu,
			       const struct fmt_cpu_facts *cf)
{
	const struct fmt_info *in = fmt_reader_info(r);
	uint64_t prev = 0;

	/* tsc_mul_shr() takes the multiplier as signed, and a shift past 31 wraps */
	if (in->has_tsc2nsec && in->tsc_mult && (in->tsc_mult >= 1u << 31 || in->tsc_shift > 31))
		return false;
	for (uint32_t k = 0; k < cf->n; k++) {
		uint64_t a, z;

		if (!cf->chunks[k].nev)
			continue;
		a = fmt_reader_adjust_ts_cpu(r, cf->chunks[k].first, buffer, cpu);
		z = fmt_reader_adjust_ts_cpu(r, cf->chunks[k].last, buffer, cpu);
		if (a < prev || z < a)
			return false;
		prev = z;
	}
	return true;
}

/* The chunks of one stream that can hold [from, to]: chunks wholly outside are skipped. */
static void plan_stream(const struct rpt_ctx *ctx, struct seek_stream *ss, uint64_t from,
			uint64_t to)
{
	const struct fmt_cpu_facts *cf = ss->cf;
	uint32_t k = 0, e;

	while (k < cf->n && from &&
	       (!cf->chunks[k].nev || fact_ts(ctx, ss, cf->chunks[k].last) < from))
		k++;
	e = k;
	while (e < cf->n && (to == UINT64_MAX || !cf->chunks[e].nev ||
			     fact_ts(ctx, ss, cf->chunks[e].first) <= to))
		e++;
	ss->first = k;
	ss->end = e;
}

/* The file's first and last event: the extreme stamps of the streams (each in order). */
static void plan_span(const struct rpt_ctx *ctx, struct seek_plan *p)
{
	for (int i = 0; i < p->n; i++) {
		const struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_facts *cf = ss->cf;
		uint32_t k;

		uint32_t z;
		uint64_t first, last;

		for (k = 0; k < cf->n && !cf->chunks[k].nev; k++)
			;
		if (k == cf->n)
			continue;
		for (z = cf->n; !cf->chunks[z - 1].nev; z--)
			;
		first = fact_ts(ctx, ss, cf->chunks[k].first);
		last = fact_ts(ctx, ss, cf->chunks[z - 1].last);
		if (!p->any_first || first < p->first_ts)
			p->first_ts = first;
		if (!p->any_first || last > p->last_ts)
			p->last_ts = last;
		p->any_first = true;
	}
}

/*
 * The stamps to read: --from/--to, widened by the analyzers that see
 * events outside them; false when one of those needs every event.
 */
static bool plan_reach(struct replay *rp, struct seek_plan *p)
{
	const struct rpt_opts *o = rp->ctx.opts;
	struct rpt_window_read *w = &p->wr;
	bool ok = true;

	*w = (struct rpt_window_read){ .file_first_ts = p->first_ts, .file_last_ts = p->last_ts,
				       .from = o->has_t0 ? o->t0_ns : 0,
				       .to = o->has_t1 ? o->t1_ns : UINT64_MAX };
	for (int k = 0; k < rp->n && ok; k++) {
		const struct rpt_analyzer *a = rp->an[k];

		if (!a->event_unfiltered)
			continue;
		if (!a->window_read || !p->any_first)
			return false;
		rp->ctx.conf = a->conf;
		w->state = false;
		ok = a->window_read(&rp->ctx, rp->privs[k], w);
		rp->ctx.conf = NULL;
		p->state_an[k] = w->state;
	}
	w->state = false;
	for (int k = 0; k < rp->n; k++)
		w->state |= p->state_an[k];
	return ok;
}

/*
 * The state records of every stream, when an analyzer asks for them: each
 * stream must have them for the chunks of its facts, no chunk more records
 * than events.  false: the file cannot give them, read it whole.
 */
static bool plan_state(const struct rpt_ctx *ctx, struct seek_plan *p)
{
	for (int i = 0; i < p->n; i++) {
		struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_state *cs = fmt_reader_state(ctx->r, ss->buffer, ss->cpu);

		if (!rpt_state_fits(ss->cf, cs))
			return false;
		ss->cs = cs;
	}
	return true;
}

static int cmp_fed(const void *a, const void *b)
{
	const struct fed_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* The skipped chunks' state records in merge order, and what each stream's skipped chunks held. */
static int plan_feed(const struct rpt_ctx *ctx, struct seek_plan *p)
{
	size_t n = 0;

	p->spans = calloc(p->n ? p->n : 1, sizeof(*p->spans));
	p->kind_of = calloc(65536, 1);
	if (!p->spans || !p->kind_of)
		return -ENOMEM;
	for (int i = 0; i < p->n; i++) {
		const struct seek_stream *ss = &p->s[i];

		for (uint32_t k = 0; k < ss->cs->n; k++)
			if (k < ss->first || k >= ss->end)
				n += ss->cs->chunks[k].nrec;
	}
	p->fed = calloc(n ? n : 1, sizeof(*p->fed));
	if (!p->fed)
		return -ENOMEM;
	for (int i = 0; i < p->n; i++) {
		const struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_state *cs = ss->cs;
		struct rpt_stream_span *sp = &p->spans[p->wr.nstreams];
		uint32_t ord = 0, k;

		for (k = 0; k < ss->cf->n && !ss->cf->chunks[k].nev; k++)
			;
		if (k == ss->cf->n)
			continue;	/* no events: no CPU to tell of */
		*sp = (struct rpt_stream_span){ ss->buffer, ss->cpu,
						fact_ts(ctx, ss, ss->cf->chunks[k].first), 0 };
		p->wr.nstreams++;
		for (k = 0; k < cs->n; k++) {
			const struct fmt_chunk_state *ch = &cs->chunks[k];

			if (k >= ss->first && k < ss->end)
				continue;
			sp->pages_skipped += ch->npages;
			for (uint32_t j = 0; j < ch->nrec; j++)
				if (fed_kind(ctx, p, &cs->recs[ch->rec_at + j]))
					p->fed[p->nfed++] = (struct fed_rec){
					fact_ts(ctx, ss, cs->recs[ch->rec_at + j].ts),
					rpt_stream_rank(ss->buffer, ss->cpu), ss->buffer, ss->cpu, ord++,
					k < ss->first, &cs->recs[ch->rec_at + j] };
		}
	}
	p->wr.streams = p->spans;
	qsort(p->fed, p->nfed, sizeof(*p->fed), cmp_fed);
	return 0;
}

static struct seek_plan *plan_window(struct replay *rp)
{
	const struct rpt_ctx *ctx = &rp->ctx;
	const struct rpt_opts *o = ctx->opts;
	const struct fmt_info *in = ctx->info;
	const char *env = getenv("FLYTRAP_WINDOW_READ");
	struct seek_plan *p;
	uint64_t skipped = 0, nloss = 0;
	int ns = 0;

	if ((!o->has_t0 && !o->has_t1) || (env && !strcmp(env, "full")))
		return NULL;
	if (in->truncated_at || in->time_shift.present || fmt_reader_option(ctx->r, FMT_OPT_FT_SLICE, 0))
		return NULL;
	if (fmt_reader_facts_status(ctx->r, NULL) != 1)
		return NULL;
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++)
			ns += in->buffers[b].cpus[c].size != 0;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->s = calloc(ns ? ns : 1, sizeof(*p->s))) ||
	    !(p->rg = calloc(ns ? ns : 1, sizeof(*p->rg))) ||
	    !(p->state_an = calloc(rp->n ? (size_t)rp->n : 1, sizeof(*p->state_an)))) {
		plan_free(p);
		return NULL;
	}
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++) {
			const struct fmt_cpu_data *cd = &in->buffers[b].cpus[c];
			struct seek_stream *ss = &p->s[p->n];

			if (!cd->size)
				continue;
			ss->buffer = b;
			ss->cpu = cd->cpu;
			ss->cf = fmt_reader_facts(ctx->r, b, cd->cpu);
			if (!ss->cf || !ss->cf->sorted || cd->cpu < 0 || cd->cpu > 0xffff ||
			    !rpt_facts_adjusted_sorted(ctx->r, b, cd->cpu, ss->cf)) {
				plan_free(p);
				return NULL;
			}
			p->n++;
		}
	plan_span(ctx, p);
	if (!plan_reach(rp, p) || !(p->skipped = calloc(p->n ? p->n : 1, sizeof(*p->skipped)))) {
		plan_free(p);
		return NULL;
	}
	for (int i = 0; i < p->n; i++) {
		struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_facts *cf = ss->cf;
		uint64_t nev = 0;

		plan_stream(ctx, ss, p->wr.from, p->wr.to);
		p->rg[i] = (struct fmt_iter_range){ ss->buffer, ss->cpu, ss->first, ss->end };

		skipped += ss->first + (cf->n - ss->end);
		nloss += cf->nlosses;
		/* what a full read would count as damage must be read */
		if (fmt_reader_check_chunks(ctx->r, ss->buffer, ss->cpu, 0, ss->first) ||
		    fmt_reader_check_chunks(ctx->r, ss->buffer, ss->cpu, ss->end, cf->n)) {
			plan_free(p);
			return NULL;
		}
		for (uint32_t k = 0; k < cf->n; k++) {
			const struct fmt_chunk_facts *ch = &cf->chunks[k];

			if (k >= ss->first && k < ss->end)
				continue;
			if (k < ss->first)
				p->before += ch->nev;
			else
				p->after += ch->nev;
			nev += ch->nev;
		}
		if (nev)
			p->skipped[p->wr.nskipped++] = (struct rpt_stream_id){ ss->buffer, ss->cpu };
	}
	p->wr.skipped = p->skipped;
	/* nothing to skip, or more markers than a replay keeps one by one: a full read */
	if (!skipped || nloss >= RPT_MAX_LOSSES ||
	    (p->wr.state && (!plan_state(ctx, p) || plan_feed(ctx, p)))) {
		plan_free(p);
		return NULL;
	}
	/* test hook: say how much the window skips */
	if (env && !strcmp(env, "say")) {
		uint64_t all = 0;

		for (int i = 0; i < p->n; i++)
			all += p->s[i].cf->n;
		fprintf(stderr, "window read: %" PRIu64 " of %" PRIu64 " chunks skipped, %" PRIu64
			" events\n", skipped, all, p->before + p->after);
	}
	return p;
}

/* The names and tgids the skipped chunks [from, to) of a stream assign, in merge order. */
static void plan_names(struct replay *rp, const struct seek_stream *ss, uint32_t from, uint32_t to)
{
	const struct fmt_cpu_facts *cf = ss->cf;

	for (uint32_t k = from; k < to; k++) {
		const struct fmt_chunk_facts *ch = &cf->chunks[k];

		for (uint32_t i = 0; i < ch->nnames; i++) {
			const struct fmt_fact_name *nm = &cf->names[ch->name_at + i];

			rp->tasks.at_ts = fact_ts(&rp->ctx, ss, nm->ts);
			rp->tasks.at_rank = rpt_stream_rank(ss->buffer, ss->cpu);
			if (nm->what == 1)
				rpt_tasks_set_comm(&rp->tasks, nm->pid, nm->comm, nm->len);
			else
				rpt_tasks_set_tgid(&rp->tasks, nm->pid, nm->tgid);
		}
	}
}

/* The loss markers of the skipped chunks [from, to) of a stream, as add_loss() makes them. */
static int plan_losses(struct replay *rp, const struct seek_stream *ss, uint32_t from, uint32_t to)
{
	struct rpt_ctx *ctx = &rp->ctx;
	const struct fmt_cpu_facts *cf = ss->cf;

	for (uint32_t k = from; k < to; k++) {
		const struct fmt_chunk_facts *ch = &cf->chunks[k];

		for (uint32_t i = 0; i < ch->nloss; i++) {
			const struct fmt_fact_loss *fl = &cf->losses[ch->loss_at + i];
			struct rpt_loss *l = loss_new(ctx, &rp->losscap, ss->buffer, ss->cpu);

			if (!l)
				return -ENOMEM;
			l->ts = fact_ts(ctx, ss, fl->ts);
			l->prev_ts = fl->has_prev ? fact_ts(ctx, ss, fl->prev) : 0;
			l->count = fl->count;
		}
	}
	return 0;
}

/*
 * Before the read: the skipped chunks before the window.  Their events
 * are counted, the file's first stamp taken, each stream's last stamp set
 * for the loss gap of its first marker read, and their names applied;
 * from here on names are kept in merge order (tasks.guard).  Then the
 * analyzers that see events outside the window learn what was skipped.
 */
static int plan_begin(struct replay *rp)
{
	struct seek_plan *p = rp->plan;
	struct rpt_ctx *ctx = &rp->ctx;
	int err = 0;

	rp->tasks.guard = true;
	for (int i = 0; i < p->n && !err; i++) {
		const struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_facts *cf = ss->cf;
		uint64_t key = (uint64_t)(uint32_t)ss->buffer << 32 | (uint32_t)ss->cpu;
		struct stream_last *sl;
		uint32_t k;

		for (k = ss->first; k > 0 && !cf->chunks[k - 1].nev; k--)
			;
		if (k > 0) {
			sl = rpt_map_get(&rp->last, key, NULL);
			if (!sl)
				return -ENOMEM;
			sl->ts = fact_ts(ctx, ss, cf->chunks[k - 1].last);
		}
		plan_names(rp, ss, 0, ss->first);
		err = plan_losses(rp, ss, 0, ss->first);
	}
	ctx->nevents_all = p->before;
	if (p->any_first)
		ctx->all_first_ts = p->first_ts;
	for (int k = 0; k < rp->n && !err; k++)
		if (rp->an[k]->event_unfiltered && rp->an[k]->window_begin) {
			ctx->conf = rp->an[k]->conf;
			rp->an[k]->window_begin(ctx, rp->privs[k], &p->wr);
			ctx->conf = NULL;
		}
	return err;
}

static int cmp_loss(const void *a, const void *b)
{
	const struct rpt_loss *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->buffer != y->buffer)
		return x->buffer < y->buffer ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	/* one stream's markers keep their order */
	return x->prev_ts < y->prev_ts ? -1 : x->prev_ts > y->prev_ts;
}

/*
 * After the read: the skipped chunks after the window, the file's last
 * stamp (the facts' largest, the one a full read ends on), and the markers
 * in merge order.
 */
static int plan_end(struct replay *rp)
{
	struct seek_plan *p = rp->plan;
	struct rpt_ctx *ctx = &rp->ctx;
	int err = 0;

	for (int i = 0; i < p->n && !err; i++) {
		const struct seek_stream *ss = &p->s[i];
		const struct fmt_cpu_facts *cf = ss->cf;

		plan_names(rp, ss, ss->end, cf->n);
		err = plan_losses(rp, ss, ss->end, cf->n);
	}
	if (!ctx->nevents_all && p->after)
		ctx->all_first_ts = p->first_ts;
	/* the file's last event, as a full read ends on it (also when the window read nothing) */
	if (p->any_first)
		ctx->all_last_ts = p->last_ts;
	ctx->nevents_all += p->after;
	if (ctx->nlosses > 1)
		qsort(ctx->losses, (size_t)ctx->nlosses, sizeof(*ctx->losses), cmp_loss);
	return err;
}

static int open_events(struct replay *rp)
{
	struct fmt_iter_opts io;
	const struct rpt_opts *opts = rp->ctx.opts;

	memset(&io, 0, sizeof(io));
	io.threads = opts->threads ? opts->threads
				   : rpt_threads_for(fmt_reader_info(rp->ctx.r)->file_size);
	/*
	 * the analyzers run beside the read and merge: the serial part is
	 * theirs, not the reader's
	 */
	io.pipeline = true;
	io.no_peek = true;	/* the analyzers read each event once */
	rp->plan = plan_window(rp);
	if (rp->plan) {
		int err;

		io.ranges = rp->plan->rg;
		io.nranges = rp->plan->n;
		err = fmt_iter_new(rp->ctx.r, &io, &rp->it);
		if (err != -ESPIPE)
			return err ?: plan_begin(rp);
		/* the file disagrees with its index: read it all */
		plan_free(rp->plan);
		rp->plan = NULL;
		io.ranges = NULL;
		io.nranges = 0;
	}
	/*
	 * The CPU filter is not pushed into the iterator: loss markers and
	 * task names come from every CPU (a task named by a sched_switch on
	 * one CPU runs on another later), and an analyzer must give the same
	 * figures alone and next to others in `flytrap analyze`.
	 */
	return fmt_iter_new(rp->ctx.r, &io, &rp->it);
}

/*
 * A damaged CPU stream (rc < 0 from the iterator): counted, the first
 * message kept; the read goes on with the other streams until there are
 * too many to be worth it, when rc becomes the replay's error.
 */
static int stream_error(struct replay *rp, int rc)
{
	const struct rpt_opts *opts = rp->ctx.opts;

	/* the first is the error rpt_replay_status() prints; later ones are details */
	if (!rp->quiet && !rp->nerrs)
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(rp->ctx.r));
	else if (!rp->quiet && rp->nerrs < 10)
		ft_warn("'%s': another damaged CPU stream: %s", opts->path ? opts->path : "input",
			fmt_reader_error(rp->ctx.r));
	rp->nerrs++;
	rp->ctx.stream_errors = rp->nerrs;
	return rp->nerrs > 1000000 ? rc : 0;
}

/* The loss bookkeeping of ev's stream: a marker when events were missed before it. */
static int note_stream(struct replay *rp, const struct fmt_event *ev)
{
	struct stream_last *sl;
	int err;

	/* events come in runs per stream: remember the last one looked up */
	if (ev->buffer != rp->last_buf || ev->rec.cpu != rp->last_cpu || !rp->sl_cached) {
		uint64_t key = (uint64_t)(uint32_t)ev->buffer << 32 | (uint32_t)ev->rec.cpu;

		rp->sl_cached = rpt_map_get(&rp->last, key, NULL);
		rp->last_buf = ev->buffer;
		rp->last_cpu = ev->rec.cpu;
	}
	sl = rp->sl_cached;
	err = ev->rec.missed_events ? add_loss(&rp->ctx, &rp->losscap, ev, sl) : 0;
	if (sl && !err)
		sl->ts = ev->rec.ts;
	return err;
}

/* The event prepared, shown to the analyzers that see every event, then to the rest if selected */
static void dispatch_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k;

	replay_prepare(ctx, &rp->types, &rp->tasks, ev, rp->want, &rp->rec);

	if (rp->any_unfiltered)
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event_unfiltered)
				rp->an[k]->event_unfiltered(ctx, rp->privs[k], ev);
	if (rpt_event_selected(ctx, ev)) {
		if (!ctx->nevents)
			ctx->first_ts = ev->rec.ts;
		ctx->nevents++;
		ctx->last_ts = ev->rec.ts;
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event)
				rp->an[k]->event(ctx, rp->privs[k], ev);
	}
}

/* One event read from the file: counted, its stream's losses noted, then dispatched */
static int replay_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int err;

	if (!ctx->nevents_all)
		ctx->all_first_ts = ev->rec.ts;
	ctx->nevents_all++;
	if (rp->plan) {
		/* where the names this event assigns fall among those of the skipped chunks */
		rp->tasks.at_ts = ev->rec.ts;
		rp->tasks.at_rank = rpt_stream_rank(ev->buffer, ev->rec.cpu);
	}
	ctx->all_last_ts = ev->rec.ts;
	if (rp->prog.on && !(ctx->nevents_all & PROGRESS_EVERY))
		progress_show(&rp->prog, ctx->nevents_all);
	err = note_stream(rp, ev);
	if (!err)
		dispatch_event(rp, ev);
	return err;
}

/* Does state record f come before event ev in merge order? */
static inline bool fed_first(const struct fed_rec *f, const struct fmt_event *ev)
{
	int rank;

	if (f->ts != ev->rec.ts)
		return f->ts < ev->rec.ts;
	rank = rpt_stream_rank(ev->buffer, ev->rec.cpu);
	if (f->rank != rank)
		return f->rank < rank;
	return f->before;	/* its own stream: a chunk before the window's or after */
}

/*
 * The state records of the skipped chunks up to ev (NULL: all that are
 * left), to the analyzers that asked for them: not counted, not selected,
 * and no names learned (the facts' names are applied in merge order).
 */
static void feed_state(struct replay *rp, const struct fmt_event *until)
{
	struct seek_plan *p = rp->plan;
	struct rpt_ctx *ctx = &rp->ctx;

	for (; p->fed_at < p->nfed && (!until || fed_first(&p->fed[p->fed_at], until)); p->fed_at++) {
		const struct fed_rec *f = &p->fed[p->fed_at];
		const uint8_t *d = f->sr->data;
		struct fmt_event ev = { 0 };

		ev.rec.ts = f->ts;
		ev.rec.cpu = f->cpu;
		ev.rec.data = (void *)d;
		ev.rec.size = (int)f->sr->size;
		ev.rec.record_size = (int)f->sr->size;
		ev.buffer = f->buffer;
		ev.raw_ts = f->sr->ts;
		ev.type = f->sr->type;
		ev.event = fmt_reader_event(ctx->r, ev.type);
		replay_prepare(ctx, &rp->types, NULL, &ev, rp->want, &rp->rec);
		ctx->from_facts = true;
		for (int k = 0; k < rp->n; k++)
			if (p->state_an[k])
				rp->an[k]->event_unfiltered(ctx, rp->privs[k], &ev);
		ctx->from_facts = false;
	}
}

/* Every event of the file, between a slice's prologue and epilogue records. */
static int replay_events(struct replay *rp)
{
	const struct fmt_event *ev;
	bool fed = rp->plan && rp->plan->nfed;
	int err = 0, rc;

	feed_slice_records(&rp->ctx, "prologue", &rp->types, &rp->tasks, rp->an, rp->n, rp->privs);
	while (!err && (rc = fmt_iter_next(rp->it, &ev)) != 0) {
		if (rc < 0) {
			err = stream_error(rp, rc);
			continue;
		}
		if (fed && rp->plan->fed_at < rp->plan->nfed)
			feed_state(rp, ev);
		err = replay_event(rp, ev);
	}
	if (!err && fed)
		feed_state(rp, NULL);
	if (!err)
		feed_slice_records(&rp->ctx, "epilogue", &rp->types, &rp->tasks, rp->an, rp->n,
				   rp->privs);
	return err;
}

/* After the last event: no current record any more, every damaged stream counted. */
static void replay_end(struct replay *rp)
{
	struct rpt_ctx *ctx = &rp->ctx;

	ctx->ki = NULL;
	ctx->rec = NULL;
	if (fmt_iter_errors(rp->it) > ctx->stream_errors)
		ctx->stream_errors = fmt_iter_errors(rp->it);
	if (ctx->stream_errors && !first_damage[0] && !rp->quiet)
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(ctx->r));
	progress_end(&rp->prog);
}

/*
 * Each analyzer's finish, all of them even when one fails (the first
 * failure is returned); an analyzer with its own stream prints there.
 */
static int finish_one(struct replay *rp, int k)
{
	const struct rpt_opts *opts = rp->ctx.opts;
	const struct rpt_analyzer *a = rp->an[k];
	struct rpt_opts own;
	int e;

	if (!a->finish)
		return 0;
	if (a->out) {
		own = *opts;
		own.out = a->out;
		rp->ctx.opts = &own;
	}
	e = a->finish(&rp->ctx, rp->privs[k]);
	rp->ctx.opts = opts;
	/* remember why the output failed before anything else sets errno */
	if (ferror(a->out ? a->out : opts->out ? opts->out : stdout) && !out_errno)
		out_errno = errno ? errno : EIO;
	return e;
}

static int finish_analyzers(struct replay *rp)
{
	int err = 0;

	for (int k = 0; k < rp->n; k++) {
		int e = finish_one(rp, k);

		if (e && !err)
			err = e;
	}
	return err;
}

static void replay_release(struct replay *rp)
{
	fmt_iter_free(rp->it);
	plan_free(rp->plan);
	for (int k = 0; rp->privs && k < rp->n; k++) {
		if (k < rp->ninit && rp->an[k]->release)
			rp->an[k]->release(rp->privs[k]);
		free(rp->privs[k]);
	}
	free(rp->privs);
	free(rp->ctx.losses);
	rpt_tasks_release(&rp->tasks);
	rpt_map_release(&rp->last);
	rpt_types_release(&rp->types);
}

/* ---- ranged analysis: the file cut in time, one replay per range ------------ */

/*
 * Issue 37 item 3 (docs/report.md, "Ranged analysis on all cores"): with
 * threads to spare and analyzers that can merge, the file is cut into K
 * time ranges at chunk starts of its time index, each holding about the
 * same number of events.  Each range is a window read of its own
 * (plan_window(): the chunks outside it are skipped, its state at its
 * start and the switches after it come from the index's facts and state
 * records) in its own thread with its own iterator, tasks and analyzer
 * state.  The analyzers then close each range (range_end()), merge the
 * later ranges into the first in order, and finish once on the whole.
 * When any range cannot be read that way (no index, no state records, a
 * damaged chunk, a slice), the file is replayed once, as without ranges.
 */
#define RPT_MAX_RANGES 64
/*
 * Events a range holds at least, unless FLYTRAP_RANGES forces the count:
 * each range pays a start of its own (its plan, and every state record of
 * the chunks it skips, about 30 ms on a 20M-event file), so a small file
 * is cut in fewer ranges than there are threads (docs/benchmarks.md).
 */
#define RPT_RANGE_MIN_EVENTS 500000

struct cut_pt {
	uint64_t ts, nev;
};

static int cmp_cut(const void *a, const void *b)
{
	const struct cut_pt *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * How many ranges (1: one replay) and where each starts: cut[k] is range
 * k's first stamp (k >= 1), a chunk's first event, chosen so that the
 * ranges hold about as many events each.  FLYTRAP_RANGES=K forces K
 * (tests compare K ranges with one replay).
 */
static int range_plan(struct fmt_reader *r, const struct rpt_opts *opts,
		      const struct rpt_analyzer *const *an, int n, uint64_t *cut, bool *split)
{
	const struct fmt_info *in = fmt_reader_info(r);
	const char *env = getenv("FLYTRAP_RANGES");
	struct cut_pt *pt;
	size_t npt = 0, cap = 0, i;
	uint64_t total = 0, seen = 0;
	int want, k;
	bool whole = false;

	*split = false;
	if (opts->has_t0 || opts->has_t1 || n < 1)
		return 1;
	for (k = 0; k < n; k++)
		if (an[k]->tep_writes)
			return 1;
	for (k = 0, want = 0; k < n; k++)
		want += an[k]->merge != NULL;
	if (!want)
		return 1;	/* none can run on ranges */
	whole = want < n;
	if (env && *env) {
		want = atoi(env);
	} else {
		want = opts->threads ? opts->threads : rpt_ranges_for(in->file_size);
		/* the analyzers that cannot merge take a thread of their own */
		want -= whole;
	}
	if (want > RPT_MAX_RANGES)
		want = RPT_MAX_RANGES;
	if (in->truncated_at || fmt_reader_facts_status(r, NULL) != 1)
		return 1;
	/* two threads or more: those that cannot merge beside the others, even on one range */
	*split = whole && want >= 1;
	if (want < 2)
		return 1;
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++) {
			const struct fmt_cpu_data *cd = &in->buffers[b].cpus[c];
			const struct fmt_cpu_facts *cf = cd->size ? fmt_reader_facts(r, b, cd->cpu) : NULL;

			if (cf)
				cap += cf->n;
		}
	pt = calloc(cap ? cap : 1, sizeof(*pt));
	if (!pt)
		return 1;
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++) {
			const struct fmt_cpu_data *cd = &in->buffers[b].cpus[c];
			const struct fmt_cpu_facts *cf = cd->size ? fmt_reader_facts(r, b, cd->cpu) : NULL;

			for (uint32_t j = 0; cf && j < cf->n && npt < cap; j++)
				if (cf->chunks[j].nev) {
					pt[npt].ts = fmt_reader_adjust_ts_cpu(r, cf->chunks[j].first, b,
									      cd->cpu);
					pt[npt++].nev = cf->chunks[j].nev;
					total += cf->chunks[j].nev;
				}
		}
	if (!(env && *env) && total / RPT_RANGE_MIN_EVENTS < (uint64_t)want)
		want = (int)(total / RPT_RANGE_MIN_EVENTS);
	qsort(pt, npt, sizeof(*pt), cmp_cut);
	/* a cut at a chunk's first event, once the chunks before it hold k/want of the events */
	k = 1;
	for (i = 0; i < npt && k < want; i++) {
		if (seen >= total / (uint64_t)want * (uint64_t)k && i > 0 && pt[i].ts > pt[0].ts &&
		    (k == 1 || pt[i].ts > cut[k - 1]))
			cut[k++] = pt[i].ts;
		seen += pt[i].nev;
	}
	free(pt);
	return k;
}

struct range_run {
	struct replay rp;
	struct rpt_opts o;
	pthread_t th;
	bool started;
	int err;
};

static void *range_thread(void *arg)
{
	struct range_run *rr = arg;

	rr->err = replay_events(&rr->rp);
	return NULL;
}

/*
 * The ranges' counts of selected events into the first's context (the
 * rest of it is the whole file's in every range; a damaged stream never
 * gets here: it hands the file to one replay).
 */
static void range_merge_ctx(struct rpt_ctx *dst, const struct rpt_ctx *src)
{
	if (src->nevents) {
		if (!dst->nevents || src->first_ts < dst->first_ts)
			dst->first_ts = src->first_ts;
		if (!dst->nevents || src->last_ts > dst->last_ts)
			dst->last_ts = src->last_ts;
	}
	dst->nevents += src->nevents;
}

/*
 * One replay of rr (a range when in_range, else the whole file) made ready
 * to run, its damage kept quiet, its progress shown or not: 0, or -errno.
 */
static int range_open(struct range_run *rr, struct fmt_reader *r,
		      const struct rpt_analyzer *const *an, int n, bool in_range, bool progress)
{
	int err = replay_begin(&rr->rp, r, &rr->o, an, n);

	rr->rp.quiet = true;
	rr->rp.ctx.in_range = in_range;
	rr->rp.prog.on &= progress;
	if (!err)
		err = init_analyzers(&rr->rp);
	if (!err)
		err = open_events(&rr->rp);
	return err;
}

/*
 * The ranged replay: -EAGAIN when a range cannot be read as a window (the
 * caller replays the file once), else rpt_replay()'s result.  The
 * analyzers that cannot merge (whole[]) run on one replay of the whole file
 * beside the ranges, in a thread of its own; each analyzer's finish() then
 * runs in the order of an[].
 */
static int replay_ranged(struct fmt_reader *r, const struct rpt_opts *opts,
			 const struct rpt_analyzer *const *an, int n, int nr, const uint64_t *cut)
{
	struct range_run *rr = calloc((size_t)nr + 1, sizeof(*rr));
	const struct rpt_analyzer **ran = calloc((size_t)n, sizeof(*ran));
	const struct rpt_analyzer **wan = calloc((size_t)n, sizeof(*wan));
	int *slot = calloc((size_t)n, sizeof(*slot));
	struct range_run *whole = NULL;
	int err = 0, k, nran = 0, nwan = 0, opened = 0;

	if (!rr || !ran || !wan || !slot) {
		err = -EAGAIN;
		goto out;
	}
	for (k = 0; k < n; k++)
		if (an[k]->merge) {
			slot[k] = nran;
			ran[nran++] = an[k];
		} else {
			slot[k] = nwan;
			wan[nwan++] = an[k];
		}
	for (k = 0; k < nr && !err; k++, opened++) {
		struct rpt_opts *o = &rr[k].o;

		*o = *opts;
		o->threads = 1;
		o->has_t0 = k > 0;
		o->t0_ns = k > 0 ? cut[k] : 0;
		o->has_t1 = k < nr - 1;
		o->t1_ns = k < nr - 1 ? cut[k + 1] - 1 : 0;
		/* one progress line: the first range's */
		err = range_open(&rr[k], r, ran, nran, nr > 1, k == 0);
		if (!err && nr > 1 && !rr[k].rp.plan)
			err = -EAGAIN;	/* read whole: not a range any more */
	}
	if (!err && nwan) {
		whole = &rr[nr];
		whole->o = *opts;
		whole->o.threads = 1;
		opened++;
		err = range_open(whole, r, wan, nwan, false, false);
	}
	if (err) {
		err = err == -ENOMEM ? -ENOMEM : -EAGAIN;
		goto out;
	}
	/*
	 * libtraceevent turns its list of saved task names into a sorted array
	 * on the first lookup (and frees the list): made here, before the
	 * threads, so that their lookups (rpt_comm()) only read it
	 */
	tep_data_comm_from_pid(fmt_reader_tep(r), 1);
	/*
	 * a reader opened with lazy formats (sql load) parses one the first
	 * time an event of it comes: every one now, not from two threads
	 */
	if (fmt_reader_load_formats(r) < 0) {
		err = -EAGAIN;
		goto out;
	}
	for (k = 1; k < opened; k++)
		rr[k].started = !pthread_create(&rr[k].th, NULL, range_thread, &rr[k]);
	for (k = 0; k < opened; k++)
		if (!rr[k].started)
			range_thread(&rr[k]);
	for (k = 1; k < opened; k++)
		if (rr[k].started)
			pthread_join(rr[k].th, NULL);
	for (k = 0; k < opened; k++) {
		struct replay *rp = &rr[k].rp;

		if (!err)
			err = rr[k].err;
		replay_end(rp);
		/* damage: one replay says it, as ever (and each part of it once) */
		if (!err && (rp->nerrs || rp->ctx.stream_errors))
			err = -EAGAIN;
		if (!err && rp->plan)
			err = plan_end(rp);
		for (int a = 0; a < rp->n && !err && k < nr; a++)
			if (rp->an[a]->range_end) {
				rp->ctx.conf = rp->an[a]->conf;
				rp->an[a]->range_end(&rp->ctx, rp->privs[a]);
				rp->ctx.conf = NULL;
			}
	}
	for (k = 1; k < nr && !err; k++) {
		range_merge_ctx(&rr[0].rp.ctx, &rr[k].rp.ctx);
		for (int a = 0; a < nran && !err; a++) {
			rr[0].rp.ctx.conf = ran[a]->conf;
			err = ran[a]->merge(&rr[0].rp.ctx, rr[0].rp.privs[a], rr[k].rp.privs[a]);
			rr[0].rp.ctx.conf = NULL;
			/* test hook (FLYTRAP_WINDOW_READ=say): an analyzer's merge asked for one replay */
			if (err == -EAGAIN && getenv("FLYTRAP_WINDOW_READ") &&
			    !strcmp(getenv("FLYTRAP_WINDOW_READ"), "say"))
				fprintf(stderr, "ranges: %s replays the file once\n", ran[a]->name);
		}
	}
	if (!err) {
		struct replay *rp = &rr[0].rp;

		/*
		 * The whole file's options from here: the output covers it all.
		 * Nothing is partial here: damage and truncation replay once.
		 */
		rp->ctx.opts = opts;
		rp->ctx.in_range = false;
		if (whole)
			whole->rp.ctx.opts = opts;
		for (k = 0; k < n; k++) {
			int e = finish_one(an[k]->merge ? rp : &whole->rp, slot[k]);

			if (e && !err)
				err = e;
		}
	}
out:
	for (k = 0; rr && k < opened; k++)
		replay_release(&rr[k].rp);
	free(rr);
	free(ran);
	free(wan);
	free(slot);
	return err;
}

int rpt_replay(struct fmt_reader *r, const struct rpt_opts *opts,
	       const struct rpt_analyzer *const *an, int n)
{
	struct replay rp;
	uint64_t cut[RPT_MAX_RANGES + 1];
	bool split;
	int err, nr = range_plan(r, opts, an, n, cut, &split);

	if (nr > 1 || split) {
		err = replay_ranged(r, opts, an, n, nr, cut);
		if (err != -EAGAIN)
			return err;
	}
	err = replay_begin(&rp, r, opts, an, n);
	if (!err)
		err = init_analyzers(&rp);
	if (!err)
		err = open_events(&rp);
	if (!err) {
		err = replay_events(&rp);
		replay_end(&rp);
		if (!err && rp.plan)
			err = plan_end(&rp);
		if (!err)
			err = finish_analyzers(&rp);
		/* a damaged or cut file: the figures are partial, and the exit says so */
		if (!err && (rp.ctx.stream_errors || rp.nerrs || rp.ctx.info->truncated_at))
			err = -EBADMSG;
	}
	replay_release(&rp);
	return err;
}

/* ---- command front end ------------------------------------------------------ */

bool rpt_out_failed(FILE *f)
{
	if (!ferror(f))
		return false;
	if (!out_errno)
		out_errno = errno ? errno : EIO;
	return true;
}

void rpt_set_out_errno(int e)
{
	if (!out_errno)
		out_errno = e;
}

/*
 * Standard output at the end of a command: one "cannot write" line naming
 * it (none when a reader such as `head` left: EPIPE), whoever failed first.
 */
static int finish_stdout(int rc)
{
	int e;

	if (fflush(stdout))
		e = out_errno ? out_errno : errno;
	else if (ferror(stdout) || out_errno)
		e = out_errno ? out_errno : EIO;
	else
		return rc;
	out_errno = 0;
	if (e == EPIPE)
		return rc;
	ft_error("cannot write to standard output: %s", strerror(e));
	return rc ? rc : EXIT_FAIL;
}

bool rpt_partial(const struct rpt_ctx *ctx)
{
	return ctx->stream_errors || (ctx->info && ctx->info->truncated_at);
}

int rpt_replay_status(int rc, struct fmt_reader *r, const struct rpt_opts *o, const char *what)
{
	const struct fmt_info *in = r ? fmt_reader_info(r) : NULL;

	if (!rc)
		return EXIT_OK;
	/* the output went to stdout first: the verdict comes after it */
	fflush(stdout);
	/* a write error: finish_stdout() names the output (quiet on EPIPE) */
	if (rc == -EIO && rpt_out_failed(o->out ? o->out : stdout))
		return EXIT_OK;
	if (rc == -EBADMSG && first_damage[0])
		ft_error("'%s': %s; the figures above are partial (they cover the readable events)",
			 o->path, first_damage);
	else if (rc == -EBADMSG && in && in->truncated_at)
		ft_error("'%s': the file is truncated (it stops at byte offset %" PRIu64 "); the "
			 "figures above are partial (they cover what it held up to there)", o->path,
			 in->truncated_at);
	else if (rc == -EBADMSG)
		ft_error("'%s' has damaged event data: %s (the figures above are partial)",
			 o->path, fmt_reader_error(r));
	else if (rc != -ECANCELED)	/* -ECANCELED: the analyzer said why */
		ft_error("cannot %s '%s': %s", what, o->path, strerror(-rc));
	return EXIT_FAIL;
}

/*
 * The command line of an analyzer command: -h/-v, the common options
 * (--json unless the command has its own, the filters, --threads), then
 * the command's own tables; the files in paths[].  0, or the exit code
 * after the message (--help exits).
 */
static int parse_command(const struct rpt_command *c, struct rpt_opts *o, int argc, char **argv,
			 char **paths, int *npaths)
{
	static const struct ft_opt base[] = {
		FT_OPT_HELP_ENTRY, { "verbose", 'v', false, FT_OPT_ID_VERBOSE }, { 0 },
	};
	const char *const help[] = {
		c->usage, c->no_json ? rpt_opts_help_filters : rpt_opts_help, FT_HELP_VERBOSE, NULL,
	};
	struct ft_optparse p;
	int id, k, first, rc = 0;

	ft_opt_init(&p, argc, argv, base);
	ft_opt_add_table(&p, rpt_filter_opts);
	if (!c->no_json)
		ft_opt_add_table(&p, rpt_json_opts);
	first = p.ntables;
	for (k = 0; k < RPT_CMD_TABLES && c->opts[k]; k++)
		ft_opt_add_table(&p, c->opts[k]);
	while (!rc && (id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR)
			rc = EXIT_USAGE;	/* the parser said why */
		else if (id == FT_OPT_OPERAND)
			paths[(*npaths)++] = (char *)p.value;
		else if (p.which < first)
			rc = rpt_opts_option(o, id, p.value);
		else
			rc = c->option(c->arg, p.which - first, p.opt, p.value);
	}
	return rc;
}

int rpt_run_command(int argc, char **argv, const struct rpt_command *c)
{
	struct rpt_opts o;
	struct fmt_reader *r = NULL;
	char *msg = NULL, **paths = calloc((size_t)argc + 1, sizeof(*paths));
	char *joined = NULL, *label = NULL;
	int rc, ret, npaths = 0;

	memset(&o, 0, sizeof(o));
	o.out = stdout;
	if (!paths)
		return ft_error("out of memory");
	rc = parse_command(c, &o, argc, argv, paths, &npaths);
	if (rc) {
		rpt_opts_release(&o);
		free(paths);
		return rc;
	}
	o.path = npaths ? paths[0] : "trace.dat";
	if (npaths > 1 &&
	    asprintf(&label, "%s..%s", paths[0],
		     strrchr(paths[npaths - 1], '/') ? strrchr(paths[npaths - 1], '/') + 1 :
						       paths[npaths - 1]) >= 0)
		o.path = label;
	if (c->check) {
		rc = c->check(c->arg, &o);
		if (rc) {
			rpt_opts_release(&o);
			free(paths);
			free(label);
			return rc;
		}
	}
	/* several files: the segments of one rotation, read as one recording (decision 8) */
	if (npaths > 1 && (rc = rpt_join_segments(paths, npaths, &joined))) {
		rpt_opts_release(&o);
		free(paths);
		free(label);
		return rc;
	}
	free(paths);
	/* the kallsyms section is read only if an analyzer names a kernel address */
	rc = fmt_reader_open(joined ? joined : o.path, FMT_OPEN_LAZY_KALLSYMS, &r, &msg);
	if (joined) {
		unlink(joined);	/* the reader holds it open; nothing is left behind */
		free(joined);
	}
	if (rc) {
		if (msg)
			ft_error("%s", msg);	/* the reader's message names the file */
		else
			ft_error("cannot open '%s': %s", o.path, strerror(-rc));
		free(msg);
		rpt_opts_release(&o);
		free(label);
		return EXIT_FAIL;
	}
	ret = rpt_opts_resolve(&o, r);
	if (ret == EXIT_OK) {
		if (c->run)
			ret = c->run(c->arg, r, &o);
		else
			ret = rpt_replay_status(rpt_replay(r, &o, c->an, c->n), r, &o, "analyze");
	}
	fmt_reader_close(r);
	rpt_opts_release(&o);
	free(label);
	return finish_stdout(ret);
}

