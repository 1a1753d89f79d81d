// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap drops: every loss recorded in the file, per buffer, per CPU, per
 * source and per time window, with the window of complete data each CPU
 * has, what the loss affects, and what to change next time.
 *
 * Sources, all read from the file:
 *  - page loss markers (commit flags of the sub-buffers, rec.missed_events):
 *    they say *where* events went missing, with a count when the kernel had
 *    room to store it;
 *  - the kernel's per-CPU counters at the end (CPUSTAT, option 2) minus
 *    those at the start (FMT_OPT_FT_CPUSTAT_START) when present: overrun,
 *    commit overrun and dropped events, which are the authoritative totals
 *    (a buffer in non-overwrite mode drops events without marking pages);
 *  - BPF ring buffer reservation failures (FMT_OPT_FT_BPF_DROPS); the
 *    recorder marks the BPF buffer's pages too (trace-cmd shows the gap),
 *    and those marks are the same loss: they are the BPF figure's, never the
 *    kernel's, and count only in a file without the failure records;
 *  - the recorder's own backlog counters (FMT_OPT_FT_RECSTATS).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyzers/drops.h"
#include "flytrap.h"
#include "format/ftmeta.h"
#include "report/core/replay.h"

#define MAX_WINDOWS_AUTO 20
#define FINE_MAX 20000		/* fine buckets kept before coarsening (auto windows) */
#define FIXED_MAX (1 << 22)	/* --window: at most this many windows (160 MiB of counters) */

struct kstat {
	bool present;
	uint64_t entries, overrun, commit_overrun, dropped, read, bytes;
};

struct stream {
	int buffer, cpu;
	uint64_t events, bytes, pages, last_page;
	uint64_t first_page;			/* of its first event (ranges: a page cut in two) */
	uint64_t first_ts, last_ts;
	uint64_t markers, lost_marked, unknown_markers;
	uint64_t first_loss_ts, last_loss_ts;	/* ts of the first record after a loss */
	struct kstat end, start;
	struct rpt_map types;			/* event type -> uint64_t count */
	uint64_t *last_tc;			/* count of last_type (values never move) */
	int last_type;
};

struct window {
	uint64_t events, markers, lost_marked, unknown_markers, bpf;
};

struct bpfdrop {
	uint32_t prog, cpu;
	uint64_t count;
};

struct drops {
	const struct rpt_drops_conf *conf;
	struct rpt_map streams;		/* buffer << 32 | cpu -> struct stream */
	/* windows: fixed width when --window is given, else coarsened by 10 */
	uint64_t base, width;
	bool fixed;
	size_t nwin;
	struct window *win;
	struct window *wcur;		/* the window of [wlo, whi), last looked up */
	uint64_t wlo, whi;
	struct stream *last_s;		/* stream of the previous event */
	int bpf_buffer;			/* the buffer of the BPF records, -1: none */
	bool bpf_records;		/* the file has FMT_OPT_FT_BPF_DROPS records */
	bool oom, too_many, based;
	/* events inside --from/--to (all of them without): the summary counts these */
	uint64_t nsel, sel_first, sel_last;
};

/* Fine windows [from, to) of d added up into one display window. */
static void window_sum(const struct drops *d, uint64_t from, uint64_t to, struct window *agg)
{
	uint64_t f;

	for (f = from; f < to && f < d->nwin; f++) {
		agg->events += d->win[f].events;
		agg->markers += d->win[f].markers;
		agg->lost_marked += d->win[f].lost_marked;
		agg->unknown_markers += d->win[f].unknown_markers;
		agg->bpf += d->win[f].bpf;
	}
}

/* The last stamp the windows cover: the file's last event, or --to before it. */
static uint64_t span_end(const struct rpt_ctx *ctx)
{
	const struct rpt_opts *o = ctx->opts;

	return o->has_t1 && o->t1_ns < ctx->all_last_ts ? o->t1_ns : ctx->all_last_ts;
}

/*
 * Display windows of width dw that overlap [t0, t1], one per call: *w is
 * the next index to look at (start at 0), *ws gets the window's start and
 * agg its sums.  Returns false after the last one.
 */
static bool window_next(const struct drops *d, const struct rpt_ctx *ctx, uint64_t dw, uint64_t t0,
			uint64_t t1, size_t *w, uint64_t *ws, struct window *agg)
{
	uint64_t per = dw / d->width, nw = (span_end(ctx) - d->base) / dw + 1;

	for (; *w < nw; (*w)++) {
		*ws = d->base + *w * dw;
		if (*ws + dw <= t0 || *ws > t1)
			continue;
		memset(agg, 0, sizeof(*agg));
		window_sum(d, *w * per, (*w + 1) * per, agg);
		(*w)++;
		return true;
	}
	return false;
}

static struct stream *stream_get(struct drops *d, int buffer, int cpu)
{
	bool created;
	struct stream *s = rpt_map_get(&d->streams,
				       (uint64_t)(uint32_t)buffer << 32 | (uint32_t)cpu, &created);

	if (!s) {
		d->oom = true;
		return NULL;
	}
	if (created) {
		s->buffer = buffer;
		s->cpu = cpu;
		s->last_page = UINT64_MAX;
		rpt_map_init(&s->types, sizeof(uint64_t));
	}
	return s;
}

/* Ten fine windows become one (none yet: the window's first event is late). */
static void coarsen(struct drops *d)
{
	size_t k, n = (d->nwin + 9) / 10;

	for (k = 0; k < n; k++) {
		struct window w = { 0 };

		window_sum(d, k * 10, k * 10 + 10, &w);
		d->win[k] = w;
	}
	if (d->win)
		memset(d->win + n, 0, (d->nwin - n) * sizeof(*d->win));
	d->nwin = n;
	d->width *= 10;
	d->wcur = NULL;
}

/* Room for window idx: false when out of memory. */
static bool win_room(struct drops *d, uint64_t idx)
{
	if (idx >= d->nwin) {
		size_t nn = d->nwin ? d->nwin : 16;
		struct window *nw;

		if (idx > (SIZE_MAX / sizeof(*nw)) / 2) {
			d->oom = true;
			return false;
		}
		while (nn <= idx)
			nn *= 2;
		nw = realloc(d->win, nn * sizeof(*nw));
		if (!nw) {
			d->oom = true;
			return false;
		}
		memset(nw + d->nwin, 0, (nn - d->nwin) * sizeof(*nw));
		d->win = nw;
		d->nwin = nn;
		d->wcur = NULL;
	}
	return true;
}

static struct window *window_at(struct drops *d, uint64_t ts)
{
	uint64_t idx;

	if (ts < d->base)
		ts = d->base;
	/* events come in stamp order: most fall in the window of the one before */
	if (d->wcur && ts >= d->wlo && ts < d->whi)
		return d->wcur;
	idx = (ts - d->base) / d->width;
	while (!d->fixed && idx >= FINE_MAX) {
		coarsen(d);
		idx = (ts - d->base) / d->width;
	}
	if (d->fixed && idx >= FIXED_MAX) {
		d->too_many = true;
		return NULL;
	}
	if (!win_room(d, idx))
		return NULL;
	d->wcur = &d->win[idx];
	d->wlo = d->base + idx * d->width;
	d->whi = d->wlo + d->width < d->wlo ? UINT64_MAX : d->wlo + d->width;
	return d->wcur;
}

static int drops_init(struct rpt_ctx *ctx, void *priv)
{
	struct drops *d = priv;
	static const struct rpt_drops_conf defconf;

	d->conf = ctx->conf ? ctx->conf : &defconf;
	rpt_map_init(&d->streams, sizeof(struct stream));
	d->bpf_buffer = -1;
	for (int k = 0; ctx->info && k < ctx->info->nbuffers; k++)
		if (rpt_bpf_buffer(ctx->r, ctx->info->buffers[k].name))
			d->bpf_buffer = k;
	d->bpf_records = ctx->r && fmt_reader_option(ctx->r, FMT_OPT_FT_BPF_DROPS, 0);
	d->width = 1000;	/* 1 us fine buckets until the trace is long */
	if (d->conf->window_ns) {
		d->fixed = true;
		d->width = d->conf->window_ns;
	}
	return 0;
}

/* Display window width: the fixed one, or the smallest 1-2-5 step giving <= 20 windows. */
static uint64_t display_width(const struct drops *d, uint64_t dur)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t mag;
	int k;

	if (d->fixed)
		return d->width;
	for (mag = d->width; mag < (UINT64_MAX / 10); mag *= 10)
		for (k = 0; k < 3; k++) {
			uint64_t w = mag * steps[k];

			if (dur / w + 1 <= MAX_WINDOWS_AUTO)
				return w;
		}
	return mag;
}

/*
 * The windows start at --from, or at the file's first event when there is
 * none or it comes first, and count the events of the window only: their
 * width follows the window, not the file, and so does a windowed read's.
 */
static uint64_t window_base(const struct rpt_ctx *ctx, uint64_t first_ts)
{
	const struct rpt_opts *o = ctx->opts;

	/* a range of a ranged analysis: the file's windows, whose first event is first_ts */
	if (ctx->in_range)
		return first_ts;
	return o->has_t0 && o->t0_ns > first_ts ? o->t0_ns : first_ts;
}

/* A window read that skips chunks (replay.c) reads the window: all that drops counts. */
static bool drops_window_read(struct rpt_ctx *ctx, void *priv, struct rpt_window_read *w)
{
	(void)ctx;
	(void)priv;
	(void)w;
	return true;
}

/* The base of the windows and the streams that the skipped events would have given. */
static void drops_window_begin(struct rpt_ctx *ctx, void *priv, const struct rpt_window_read *w)
{
	struct drops *d = priv;

	d->base = window_base(ctx, w->file_first_ts);
	d->based = true;
	for (int i = 0; i < w->nskipped; i++)
		stream_get(d, w->skipped[i].buffer, w->skipped[i].cpu);
}

static void drops_event(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev)
{
	struct drops *d = priv;
	struct stream *s = d->last_s;
	struct window *w;
	uint64_t *tc;

	if (ctx->from_facts)
		return;		/* a slice's state at its cuts: no event of the file */
	if (!s || s->buffer != ev->buffer || s->cpu != ev->rec.cpu) {
		s = stream_get(d, ev->buffer, ev->rec.cpu);
		d->last_s = s;
	}
	if (!s)
		return;
	if (!d->based) {
		d->base = window_base(ctx, ev->rec.ts);
		d->based = true;
	}
	/*
	 * The summary, the per-CPU table and the windows count the --from/--to
	 * window, like the loss-marker list.  Every stream still appears (with
	 * 0 events) so the table lists every CPU.
	 */
	if ((ctx->opts->has_t0 && ev->rec.ts < ctx->opts->t0_ns) ||
	    (ctx->opts->has_t1 && ev->rec.ts > ctx->opts->t1_ns))
		return;
	if (!d->nsel++)
		d->sel_first = ev->rec.ts;
	d->sel_last = ev->rec.ts;
	if (!s->events)
		s->first_ts = ev->rec.ts;
	s->events++;
	s->bytes += (uint64_t)ev->rec.record_size;
	s->last_ts = ev->rec.ts;
	if (ev->page_offset != s->last_page) {
		if (!s->pages++)
			s->first_page = ev->page_offset;
		s->last_page = ev->page_offset;
	}
	if (ev->rec.missed_events) {
		s->markers++;
		if (ev->rec.missed_events < 0)
			s->unknown_markers++;
		else
			s->lost_marked += (uint64_t)ev->rec.missed_events;
		if (!s->first_loss_ts)
			s->first_loss_ts = ev->rec.ts;
		s->last_loss_ts = ev->rec.ts;
	}
	/* the same type repeats often: one cached counter */
	if (s->last_tc && s->last_type == ev->type) {
		tc = s->last_tc;
	} else {
		tc = rpt_map_get(&s->types, (uint64_t)(uint32_t)ev->type, NULL);
		s->last_tc = tc;
		s->last_type = ev->type;
	}
	if (tc)
		(*tc)++;
	else
		d->oom = true;
	w = window_at(d, ev->rec.ts);
	if (!w)
		return;
	w->events++;
	if (ev->rec.missed_events && ev->buffer == d->bpf_buffer) {
		/* the BPF failures' window figure: their records, else these marks */
		if (!d->bpf_records && ev->rec.missed_events > 0)
			w->bpf += (uint64_t)ev->rec.missed_events;
	} else if (ev->rec.missed_events) {
		w->markers++;
		if (ev->rec.missed_events < 0)
			w->unknown_markers++;
		else
			w->lost_marked += (uint64_t)ev->rec.missed_events;
	}
}

/* ---- ranged analysis: a later range added to the one before ---------------- */

static int types_merge(struct rpt_map *dm, const struct rpt_map *sm)
{
	size_t pos = 0;
	uint64_t key;
	const uint64_t *c;

	while ((c = rpt_map_next(sm, &pos, &key))) {
		uint64_t *dc = rpt_map_get(dm, key, NULL);

		if (!dc)
			return -ENOMEM;
		*dc += *c;
	}
	return 0;
}

/* The windows of s (the same base; fine ones maybe narrower) added to d's. */
static int windows_merge(struct drops *d, const struct drops *s)
{
	uint64_t per;

	while (d->width < s->width && !d->fixed)
		coarsen(d);
	if (d->width < s->width || d->width % s->width)
		return -EINVAL;	/* not the same grid: cannot happen with one base and 10x steps */
	per = d->width / s->width;
	for (size_t i = 0; i < s->nwin; i++) {
		const struct window *w = &s->win[i];
		struct window *t;

		if (!w->events && !w->markers && !w->bpf)
			continue;
		if (!win_room(d, i / per))
			return -ENOMEM;
		t = &d->win[i / per];
		t->events += w->events;
		t->markers += w->markers;
		t->lost_marked += w->lost_marked;
		t->unknown_markers += w->unknown_markers;
		t->bpf += w->bpf;
	}
	d->wcur = NULL;
	return 0;
}

/*
 * A later range's counts added to dst's: the streams' sums (a page the cut
 * falls in counted once), their first and last stamps, the windows (on the
 * file's grid: every range's windows start at its first event).
 */
static int drops_merge(struct rpt_ctx *ctx, void *dst, void *src)
{
	struct drops *d = dst;
	const struct drops *s = src;
	size_t pos = 0;
	const struct stream *ss;

	(void)ctx;
	if (d->oom || s->oom)
		return -ENOMEM;
	if (s->nsel) {
		if (!d->nsel)
			d->sel_first = s->sel_first;
		d->sel_last = s->sel_last;
		d->nsel += s->nsel;
	}
	d->too_many |= s->too_many;
	while ((ss = rpt_map_next(&s->streams, &pos, NULL))) {
		struct stream *ds = stream_get(d, ss->buffer, ss->cpu);

		if (!ds || types_merge(&ds->types, &ss->types))
			return -ENOMEM;
		if (ss->events) {
			if (!ds->events)
				ds->first_ts = ss->first_ts;
			ds->last_ts = ss->last_ts;
			ds->pages += ss->pages;
			if (ds->pages && ds->events && ds->last_page == ss->first_page)
				ds->pages--;
			if (!ds->events)
				ds->first_page = ss->first_page;
			ds->last_page = ss->last_page;
		}
		ds->events += ss->events;
		ds->bytes += ss->bytes;
		ds->markers += ss->markers;
		ds->lost_marked += ss->lost_marked;
		ds->unknown_markers += ss->unknown_markers;
		if (!ds->first_loss_ts)
			ds->first_loss_ts = ss->first_loss_ts;
		if (ss->last_loss_ts)
			ds->last_loss_ts = ss->last_loss_ts;
	}
	d->last_s = NULL;
	return windows_merge(d, s);
}

/* ---- kernel counters -------------------------------------------------------- */

static int buffer_index(const struct fmt_info *info, const char *name)
{
	int k;

	for (k = 0; k < info->nbuffers; k++)
		if (!strcmp(info->buffers[k].name, name))
			return k;
	return -1;
}

/*
 * Parse CPUSTAT text: "Buffer: NAME" lines switch the buffer, "CPU: N"
 * starts a CPU, "key: value" lines follow (trace-cmd's layout, one option
 * per CPU, or everything in one blob).
 */
static void parse_cpustat(struct drops *d, const struct fmt_info *info, const char *text,
			  size_t len, int *buffer, int *cpu, bool start)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[256];
		char *colon;
		unsigned long long v;

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = 0;
		p = nl ? nl + 1 : end;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (!strcmp(line, "Buffer")) {
			char *name = colon + 1;

			while (*name == ' ')
				name++;
			*buffer = buffer_index(info, name);
			*cpu = -1;
			continue;
		}
		if (!strcmp(line, "CPU")) {
			*cpu = atoi(colon + 1);
			continue;
		}
		if (*cpu < 0 || *buffer < 0 || sscanf(colon + 1, " %llu", &v) != 1)
			continue;
		{
			struct stream *s = stream_get(d, *buffer, *cpu);
			struct kstat *k;

			if (!s)
				return;
			k = start ? &s->start : &s->end;
			k->present = true;
			if (!strcmp(line, "entries"))
				k->entries = v;
			else if (!strcmp(line, "overrun"))
				k->overrun = v;
			else if (!strcmp(line, "commit overrun"))
				k->commit_overrun = v;
			else if (!strcmp(line, "dropped events"))
				k->dropped = v;
			else if (!strcmp(line, "read events"))
				k->read = v;
			else if (!strcmp(line, "bytes"))
				k->bytes = v;
		}
	}
}

static void load_cpustats(struct drops *d, const struct rpt_ctx *ctx, uint16_t id, bool start)
{
	const struct fmt_option *o;
	int n, buffer = 0, cpu = -1;

	for (n = 0; (o = fmt_reader_option(ctx->r, id, n)); n++)
		parse_cpustat(d, ctx->info, o->data, o->size, &buffer, &cpu, start);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Kernel-counted losses of a stream over the recording: end minus start. */
static uint64_t kernel_lost(const struct stream *s, uint64_t *ov, uint64_t *co, uint64_t *dr)
{
	*ov = sub0(s->end.overrun, s->start.overrun);
	*co = sub0(s->end.commit_overrun, s->start.commit_overrun);
	*dr = sub0(s->end.dropped, s->start.dropped);
	return *ov + *co + *dr;
}

/* ---- BPF and recorder ----------------------------------------------------- */

struct extra {
	int nbpf;
	struct bpfdrop *bpf;	/* aggregated per prog/cpu */
	uint64_t bpf_total;
	char **prog_names;
	int nprogs;
	int nrec;
	char **rec_keys;
	uint64_t *rec_vals;
	uint64_t rec_total;
	uint64_t max_fill;	/* max_buffer_fill_pct */
	bool has_recstats;
};

static void extra_release(struct extra *x)
{
	int k;

	free(x->bpf);
	for (k = 0; k < x->nprogs; k++)
		free(x->prog_names[k]);
	free(x->prog_names);
	for (k = 0; k < x->nrec; k++)
		free(x->rec_keys[k]);
	free(x->rec_keys);
	free(x->rec_vals);
}

static uint64_t swap64_if(bool swap, uint64_t v)
{
	return swap ? __builtin_bswap64(v) : v;
}

static uint32_t swap32_if(bool swap, uint32_t v)
{
	return swap ? __builtin_bswap32(v) : v;
}

static int load_bpf(struct drops *d, const struct rpt_ctx *ctx, struct extra *x)
{
	const struct fmt_option *o;
	bool swap = ctx->info->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	size_t pi;
	int n;

	if (!m)
		return -ENOMEM;
	for (pi = 0; pi < m->nbpf_progs; pi++) {
		char **nn = realloc(x->prog_names, (size_t)(x->nprogs + 1) * sizeof(*nn));

		if (!nn)
			break;
		x->prog_names = nn;
		nn[x->nprogs] = strdup(m->bpf_prog_names[pi]);
		if (nn[x->nprogs])
			x->nprogs++;
	}
	for (n = 0; (o = fmt_reader_option(ctx->r, FMT_OPT_FT_BPF_DROPS, n)); n++) {
		size_t k, cnt;

		if (o->size % sizeof(struct fmt_bpf_drop)) {
			ft_warn("BPF drops option of %u bytes is not a whole number of records; "
				"ignoring the rest", o->size);
		}
		cnt = o->size / sizeof(struct fmt_bpf_drop);
		for (k = 0; k < cnt; k++) {
			struct fmt_bpf_drop rec;
			struct window *w;
			int j;

			memcpy(&rec, (const char *)o->data + k * sizeof(rec), sizeof(rec));
			rec.ts = swap64_if(swap, rec.ts);
			rec.cpu = swap32_if(swap, rec.cpu);
			rec.prog = swap32_if(swap, rec.prog);
			rec.count = swap64_if(swap, rec.count);
			if (!rec.count)
				continue;
			rec.ts = fmt_reader_adjust_ts(ctx->r, rec.ts);
			if (ctx->opts->has_t0 && rec.ts < ctx->opts->t0_ns)
				continue;
			if (ctx->opts->has_t1 && rec.ts > ctx->opts->t1_ns)
				continue;
			if (!rpt_cpu_selected(ctx->opts, rec.cpu > 255 ? -1 : (int)rec.cpu))
				continue;
			for (j = 0; j < x->nbpf; j++)
				if (x->bpf[j].prog == rec.prog && x->bpf[j].cpu == rec.cpu)
					break;
			if (j == x->nbpf) {
				struct bpfdrop *nb =
					realloc(x->bpf, (size_t)(x->nbpf + 1) * sizeof(*nb));

				if (!nb)
					return -ENOMEM;
				x->bpf = nb;
				nb[j].prog = rec.prog;
				nb[j].cpu = rec.cpu;
				nb[j].count = 0;
				x->nbpf++;
			}
			x->bpf[j].count += rec.count;
			x->bpf_total += rec.count;
			if (d->nwin) {
				w = window_at(d, rec.ts);
				if (w)
					w->bpf += rec.count;
			}
		}
	}
	return 0;
}

/*
 * RECSTATS keys worth showing here.  "overrun", "dropped" and "bpf_drops"
 * repeat the kernel and BPF counters counted above, so they are left out;
 * max_buffer_fill_pct is how full the kernel buffer was when the recorder
 * got to it (its backlog), the early sign of losses.
 */
static bool is_loss_key(const char *k)
{
	if (!strcmp(k, "overrun") || !strcmp(k, "dropped") || !strncmp(k, "bpf_", 4))
		return false;
	return strstr(k, "drop") || strstr(k, "lost") || strstr(k, "backlog") || strstr(k, "fill");
}

static int load_recstats(const struct rpt_ctx *ctx, struct extra *x)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	size_t n;

	if (!m)
		return -ENOMEM;
	x->has_recstats = m->rs.present;
	for (n = 0; n < m->rs.all.n; n++) {
		const struct fmt_kv *kv = &m->rs.all.kv[n];
		unsigned long long v;
		char **nk, *e2;
		uint64_t *nv;

		if (!kv->val || !*kv->key || !is_loss_key(kv->key))
			continue;
		v = strtoull(kv->val, &e2, 10);
		if (e2 == kv->val || (*e2 && *e2 != ' '))
			continue;
		nk = realloc(x->rec_keys, (size_t)(x->nrec + 1) * sizeof(*nk));
		if (!nk)
			return -ENOMEM;
		x->rec_keys = nk;
		nv = realloc(x->rec_vals, (size_t)(x->nrec + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		x->rec_vals = nv;
		if (!(nk[x->nrec] = strdup(kv->key)))
			return -ENOMEM;
		nv[x->nrec] = v;
		x->nrec++;
		if (rpt_recorder_loss_key(kv->key))
			x->rec_total += v;
		if (!strcmp(kv->key, FMT_RS_MAX_BUFFER_FILL_PCT))
			x->max_fill = v;
	}
	return 0;
}

/* ---- output --------------------------------------------------------------- */

static int cmp_stream(const void *a, const void *b)
{
	const struct stream *x = *(const struct stream *const *)a,
			    *y = *(const struct stream *const *)b;

	if (x->buffer != y->buffer)
		return x->buffer - y->buffer;
	return x->cpu - y->cpu;
}

static const char *type_name(const struct rpt_ctx *ctx, int id, char *buf, size_t len)
{
	struct tep_event *e = id >= 0 ? tep_find_event(ctx->tep, id) : NULL;

	if (e)
		snprintf(buf, len, "%s:%s", e->system, e->name);
	else
		snprintf(buf, len, "[unknown type %d]", id);
	return buf;
}

/*
 * Which analyses an event type feeds, by its kind (report/core/kinds.h): the
 * figures a loss of these events makes partial.
 */
static const char *analysis_of(const struct rpt_ctx *ctx, int id)
{
	struct tep_event *e = id >= 0 ? tep_find_event(ctx->tep, id) : NULL;
	struct rpt_kind_info ki;

	if (!e)
		return NULL;
	rpt_kind_resolve(e, &ki);
	switch (ki.kind) {
	case RPT_K_SCHED_SWITCH: case RPT_K_SCHED_WAKEUP: case RPT_K_SCHED_WAKING:
		return "overhead: CPU busy/idle and per-task on/off-CPU times";
	case RPT_K_RAW_SYS_ENTER: case RPT_K_RAW_SYS_EXIT:
	case RPT_K_SYS_ENTER: case RPT_K_SYS_EXIT:
	case RPT_K_BPF_SYSCALL: case RPT_K_BPF_SYSHIST:
		return "overhead: syscall counts and latencies";
	case RPT_K_FG_ENTRY: case RPT_K_FG_EXIT:
	case RPT_K_BPF_KFUNC_ENTRY: case RPT_K_BPF_KFUNC_EXIT:
		return "callgraph: kernel call counts and times";
	case RPT_K_KSTACK: case RPT_K_USTACK: case RPT_K_BPF_PROFILE: case RPT_K_BPF_OFFCPU:
	case RPT_K_BPF_UCOPY:
		return "callgraph: stack samples and off-CPU time";
	case RPT_K_IRQ_ENTRY: case RPT_K_IRQ_EXIT:
	case RPT_K_SOFTIRQ_ENTRY: case RPT_K_SOFTIRQ_EXIT:
		return "overhead: IRQ and softirq time";
	case RPT_K_PROBE_ENTRY: case RPT_K_PROBE_RET: case RPT_K_BPF_UFUNC_ENTRY:
	case RPT_K_BPF_UFUNC_EXIT:
		return "callgraph: user call counts and times";
	default:
		return NULL;
	}
}

struct typecount {
	int id;
	uint64_t count;
};

static int cmp_tc(const void *a, const void *b)
{
	const struct typecount *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->id - y->id;
}

/* Event types of the lossy streams, merged, most frequent first. */
static struct typecount *affected_types(struct stream **ss, int ns, int *n, uint64_t *bytes_unused)
{
	struct rpt_map m;
	struct typecount *out = NULL;
	size_t pos = 0;
	uint64_t key, *v;
	int k;

	(void)bytes_unused;
	rpt_map_init(&m, sizeof(uint64_t));
	for (k = 0; k < ns; k++) {
		struct stream *s = ss[k];
		uint64_t kl, ov, co, dr;
		size_t p2 = 0;

		kl = kernel_lost(s, &ov, &co, &dr);
		if (!s->markers && !kl)
			continue;
		while ((v = rpt_map_next(&s->types, &p2, &key))) {
			uint64_t *t = rpt_map_get(&m, key, NULL);

			if (t)
				*t += *v;
		}
	}
	*n = 0;
	if (m.count) {
		out = calloc(m.count, sizeof(*out));
		while (out && (v = rpt_map_next(&m, &pos, &key))) {
			out[*n].id = (int)(uint32_t)key;
			out[*n].count = *v;
			(*n)++;
		}
		if (out)
			qsort(out, (size_t)*n, sizeof(*out), cmp_tc);
	}
	rpt_map_release(&m);
	return out;
}

static uint64_t pow2_up(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ULL << 62))
		p <<= 1;
	return p;
}


/* ---- result --------------------------------------------------------------- */

static void count_list_release(struct rpt_drops_count *c, size_t n)
{
	size_t k;

	for (k = 0; c && k < n; k++)
		free(c[k].name);
	free(c);
}

void rpt_drops_result_release(struct rpt_drops_result *r)
{
	size_t k;

	for (k = 0; r->streams && k < r->nstreams; k++) {
		free(r->streams[k].buffer);
		count_list_release(r->streams[k].types, r->streams[k].ntypes);
	}
	free(r->streams);
	for (k = 0; r->bpf && k < r->nbpf; k++)
		free(r->bpf[k].name);
	free(r->bpf);
	count_list_release(r->recorder, r->nrecorder);
	free(r->windows);
	for (k = 0; r->losses && k < r->nlosses; k++)
		free(r->losses[k].buffer);
	free(r->losses);
	count_list_release(r->types, r->ntypes);
	for (k = 0; r->shed && k < r->nshed; k++) {
		free(r->shed[k].event);
		free(r->shed[k].why);
	}
	free(r->shed);
	for (k = 0; k < r->nadvice; k++)
		free(r->advice[k]);
	free(r->flight_cpu_data_start);
	free(r->trigger);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

/*
 * Grow *v (n elements of size) by one zeroed element; NULL when out of memory.
 * The capacity is n rounded up to a power of two, so the array is moved only
 * when n reaches one: a file's 65536 loss markers cost 17 reallocations, not
 * 65536 (each a copy under AddressSanitizer, whose realloc always moves).
 */
static void *push(void *vp, size_t *n, size_t size)
{
	void **v = vp;
	char *p = *v;

	if (!(*n & (*n - 1))) {
		size_t cap = *n ? *n * 2 : 1;

		if (cap > SIZE_MAX / size || !(p = realloc(*v, cap * size)))
			return NULL;
		*v = p;
	}
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

/*
 * The always-on modes' lines (record --flight/--cpu-budget): "shed=FROM,TO,
 * EVENT,WHY" loss windows, and a dump's per-CPU start of complete data
 * (older data was let go by the flight recorder's window: retention, not loss).
 */
static int fill_flight(struct rpt_drops_result *r, const struct rpt_ctx *ctx)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	size_t n;

	if (!m)
		return -ENOMEM;
	if (m->cpu_data_start && !(r->flight_cpu_data_start = strdup(m->cpu_data_start)))
		return -ENOMEM;
	if (m->trigger && !(r->trigger = strdup(m->trigger)))
		return -ENOMEM;
	for (n = 0; n < m->nshed; n++) {
		struct rpt_drops_shed *sh = push(&r->shed, &r->nshed, sizeof(*sh));

		if (!sh || !(sh->event = strdup(m->shed[n].event)) ||
		    !(sh->why = strdup(m->shed[n].why)))
			return -ENOMEM;
		sh->from_ts = m->shed[n].from_ts;
		sh->to_ts = m->shed[n].to_ts;
	}
	return 0;
}

/* The event types of the streams that lost events, and the analyses they feed. */
static int fill_affected(struct rpt_drops_result *r, const struct rpt_ctx *ctx,
			 const struct typecount *tcs, int ntc)
{
	int k;
	size_t j;

	if (ntc > 0) {
		r->types = calloc((size_t)ntc, sizeof(*r->types));
		if (!r->types)
			return -ENOMEM;
	}
	for (k = 0; k < ntc; k++) {
		char tn[96];

		r->types[k].name = strdup(type_name(ctx, tcs[k].id, tn, sizeof(tn)));
		if (!r->types[k].name)
			return -ENOMEM;
		r->types[k].count = tcs[k].count;
		r->ntypes++;
	}
	for (k = 0; k < ntc && r->nanalyses < RPT_DROPS_MAX_ANALYSES; k++) {
		const char *a = analysis_of(ctx, tcs[k].id);

		if (!a)
			continue;
		for (j = 0; j < r->nanalyses; j++)
			if (!strcmp(r->analyses[j], a))
				break;
		if (j == r->nanalyses)
			r->analyses[r->nanalyses++] = a;
	}
	return 0;
}

/* What the (buffer, CPU) stream s shows; 0 or -ENOMEM. */
static int fill_stream(struct rpt_drops_stream *out, const struct stream *s,
		       const struct rpt_ctx *ctx)
{
	size_t pos = 0;
	uint64_t key, *v;

	out->buffer = strdup(ctx->info->buffers[s->buffer].name);
	if (!out->buffer)
		return -ENOMEM;
	out->buffer_index = s->buffer;
	out->bpf = rpt_bpf_buffer(ctx->r, out->buffer);
	out->cpu = s->cpu;
	out->events = s->events;
	out->bytes = s->bytes;
	out->pages = s->pages;
	out->first_ts = s->first_ts;
	out->last_ts = s->last_ts;
	out->markers = s->markers;
	out->lost_marked = s->lost_marked;
	out->unknown_markers = s->unknown_markers;
	out->kernel = s->end.present;
	out->start_stats = s->start.present;
	out->kernel_lost = kernel_lost(s, &out->overrun, &out->commit_overrun, &out->dropped);
	out->entries_at_end = s->end.entries;
	out->read = sub0(s->end.read, s->start.read);
	out->lost = s->end.present && out->kernel_lost > s->lost_marked ?
		    out->kernel_lost : s->lost_marked;
	out->complete_from = s->markers ? s->last_loss_ts : s->first_ts;
	out->complete_to = s->last_ts;
	out->drops_unmarked = !s->markers && s->end.present && s->end.dropped > s->start.dropped;
	while ((v = rpt_map_next(&s->types, &pos, &key))) {
		struct rpt_drops_count *c = push(&out->types, &out->ntypes, sizeof(*c));
		char tn[96];

		if (!c || !(c->name = strdup(type_name(ctx, (int)(uint32_t)key, tn, sizeof(tn)))))
			return -ENOMEM;
		c->count = *v;
	}
	return 0;
}

/* The worst loss ratio lost / (lost + kept) of any stream, for the buffer-size advice. */
struct worst {
	uint64_t num, den;
};

/* The streams inside --cpu, their rows and the totals over them. */
static int fill_streams(struct rpt_drops_result *r, struct drops *d, const struct rpt_ctx *ctx,
			struct worst *w)
{
	struct stream **ss, *s;
	size_t pos = 0, k, ns = 0;
	bool missing_start = false;
	int err = 0;

	ss = calloc(d->streams.count ? d->streams.count : 1, sizeof(*ss));
	r->streams = calloc(d->streams.count ? d->streams.count : 1, sizeof(*r->streams));
	if (!ss || !r->streams) {
		free(ss);
		return -ENOMEM;
	}
	while ((s = rpt_map_next(&d->streams, &pos, NULL)))
		if (rpt_cpu_selected(ctx->opts, s->cpu))
			ss[ns++] = s;
	qsort(ss, ns, sizeof(*ss), cmp_stream);
	w->num = 0;
	w->den = 1;
	for (k = 0; k < ns && !err; k++) {
		struct rpt_drops_stream *o = &r->streams[k];

		err = fill_stream(o, ss[k], ctx);
		r->nstreams++;
		r->events += o->events;
		if (o->bpf) {
			/* the BPF figure's marks: not the kernel's, not the worst buffer's */
			r->bpf_lost_marked += o->lost_marked;
			r->bpf_loss_markers += o->markers;
			continue;
		}
		r->lost_marked += o->lost_marked;
		r->unknown_markers += o->unknown_markers;
		r->loss_markers += o->markers;
		if (o->kernel) {
			r->kernel_counters = true;
			r->kernel_lost += o->kernel_lost;
			r->unread_at_end += o->entries_at_end;
			r->kernel_start_stats |= o->start_stats;
			missing_start |= !o->start_stats;
		}
		if (o->lost && o->lost * w->den > w->num * (o->lost + o->events)) {
			w->num = o->lost;
			w->den = o->lost + o->events;
		}
	}
	r->kernel_start_missing = missing_start;
	if (!err) {
		int ntc = 0;
		struct typecount *tcs = affected_types(ss, (int)ns, &ntc, NULL);

		err = fill_affected(r, ctx, tcs, ntc);
		free(tcs);
	}
	free(ss);
	return err;
}

/* BPF reservation failures and the recorder's counters, moved out of x. */
static int fill_extra(struct rpt_drops_result *r, struct extra *x)
{
	int k;

	r->bpf_drops = x->bpf_total;
	r->recorder_lost = x->rec_total;
	r->has_recstats = x->has_recstats;
	if (x->nbpf && !(r->bpf = calloc((size_t)x->nbpf, sizeof(*r->bpf))))
		return -ENOMEM;
	for (k = 0; k < x->nbpf; k++, r->nbpf++) {
		r->bpf[k].prog = x->bpf[k].prog;
		r->bpf[k].cpu = x->bpf[k].cpu;
		r->bpf[k].count = x->bpf[k].count;
		if (x->bpf[k].prog < (uint32_t)x->nprogs &&
		    !(r->bpf[k].name = strdup(x->prog_names[x->bpf[k].prog])))
			return -ENOMEM;
	}
	if (x->nrec && !(r->recorder = calloc((size_t)x->nrec, sizeof(*r->recorder))))
		return -ENOMEM;
	for (k = 0; k < x->nrec; k++, r->nrecorder++) {
		r->recorder[k].name = x->rec_keys[k];
		r->recorder[k].count = x->rec_vals[k];
		x->rec_keys[k] = NULL;
	}
	return 0;
}

static void advise(struct rpt_drops_result *r, char *text, int *err)
{
	if (!text)
		*err = -ENOMEM;
	else if (r->nadvice < RPT_DROPS_MAX_ADVICE)
		r->advice[r->nadvice++] = text;
	else
		free(text);
}

/* the ring buffer size and the heaviest event type, when a kernel buffer lost */
static void advise_buffer(struct rpt_drops_result *r, const struct rpt_ctx *ctx,
			  const struct worst *w, int *err)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	uint64_t all = 0;
	size_t j;

	if (w->num) {
		uint64_t kept = w->den - w->num;
		uint64_t factor = pow2_up((w->den + kept - 1) / (kept ? kept : 1));
		unsigned long long cur = m && m->buffer_kb.has ? m->buffer_kb.v : 0;
		double pct = 100.0 * (double)w->num / (double)w->den;

		if (factor < 2)
			factor = 2;
		if (cur)
			advise(r, ft_asprintf("raise the per-CPU ring buffer from %llu KiB to at "
					    "least %llu KiB (the worst CPU lost %.1f%% of its "
					    "events)", cur, (unsigned long long)(cur * factor),
					    pct), err);
		else
			advise(r, ft_asprintf("make the per-CPU ring buffer at least %llux larger "
					    "(buffer_size_kb; the worst CPU lost %.1f%% of its "
					    "events)", (unsigned long long)factor, pct), err);
	}
	if ((!w->num && !r->kernel_lost) || !r->ntypes)
		return;
	for (j = 0; j < r->ntypes; j++)
		all += r->types[j].count;
	if (all && r->types[0].count * 4 >= all)
		advise(r, ft_asprintf("'%s' is %.0f%% of the events on the CPUs that lost data: "
				    "filter it (an event filter on its fields, or --pid/--cpu) or "
				    "aggregate it in the kernel (a BPF histogram instead of one "
				    "record per event)", r->types[0].name,
				    100.0 * (double)r->types[0].count / (double)all), err);
}

static int fill_advice(struct rpt_drops_result *r, const struct rpt_ctx *ctx, const struct worst *w,
		       uint64_t max_fill)
{
	const struct fmt_meta *m;
	int err = 0;

	advise_buffer(r, ctx, w, &err);
	if (r->bpf_drops)
		advise(r, ft_asprintf("%llu BPF records could not be reserved: enlarge the BPF ring "
				    "buffer or sample / aggregate in the BPF program",
				    (unsigned long long)r->bpf_drops), &err);
	if (r->recorder_lost)
		advise(r, ft_asprintf("the recorder fell behind (%llu lost in its backlog): write to "
				    "a faster disk, lower the compression level, or record fewer "
				    "events", (unsigned long long)r->recorder_lost), &err);
	if (!w->num && max_fill >= 75)
		advise(r, ft_asprintf("nothing was lost, but a kernel buffer was %llu%% full when "
				    "the recorder drained it: a larger buffer (buffer_size_kb) "
				    "keeps a margin for bursts",
				    (unsigned long long)max_fill), &err);
	/* a flight dump ends while the recording goes on: what follows is not lost */
	m = fmt_reader_meta(ctx->r);
	if (m && m->trigger_ts.has)
		r->unread_at_end = 0;
	if (r->unread_at_end)
		advise(r, ft_asprintf("%llu events were still in the kernel buffers at the end and "
				    "are not in the file: stop the recording only after it has "
				    "drained", (unsigned long long)r->unread_at_end), &err);
	if (r->kernel_start_missing && r->kernel_counters && (r->kernel_lost || r->loss_markers))
		advise(r, ft_asprintf("the file has no start-of-recording CPU stats, so the kernel "
				    "counters include losses from before the recording (record "
				    "with flytrap to get both)"), &err);
	return err;
}

/* The display windows and the loss markers inside --from/--to and --cpu. */
static int fill_windows_losses(struct rpt_drops_result *r, const struct drops *d,
			       const struct rpt_ctx *ctx)
{
	const struct rpt_opts *o = ctx->opts;
	struct window agg;
	uint64_t ws;
	size_t w = 0;
	int j;

	if (d->nwin && ctx->nevents_all)
		r->window_ns = display_width(d, span_end(ctx) - d->base);
	while (r->window_ns && window_next(d, ctx, r->window_ns, r->t0, r->t1, &w, &ws, &agg)) {
		struct rpt_drops_window *rw = push(&r->windows, &r->nwindows, sizeof(*rw));

		if (!rw)
			return -ENOMEM;
		*rw = (struct rpt_drops_window){ ws, ws + r->window_ns, agg.events, agg.markers,
						 agg.lost_marked, agg.unknown_markers, agg.bpf };
	}
	for (j = 0; j < ctx->nlosses; j++) {
		const struct rpt_loss *l = &ctx->losses[j];
		struct rpt_drops_loss *rl;

		if (l->ts < r->t0 || l->ts > r->t1 || !rpt_cpu_selected(o, l->cpu))
			continue;
		rl = push(&r->losses, &r->nlosses, sizeof(*rl));
		if (!rl || !(rl->buffer = strdup(ctx->info->buffers[l->buffer].name)))
			return -ENOMEM;
		rl->cpu = l->cpu;
		rl->after_ts = l->prev_ts;
		rl->ts = l->ts;
		rl->count = l->count;
		rl->markers = l->markers;
	}
	return 0;
}

/* The window of the report and the file's span. */
static int fill_head(struct rpt_drops_result *r, const struct drops *d, const struct rpt_ctx *ctx)
{
	const struct rpt_opts *o = ctx->opts;

	r->path = strdup(o->path ? o->path : "");
	r->partial = rpt_partial(ctx);
	r->has_t0 = o->has_t0;
	r->has_t1 = o->has_t1;
	r->windowed = o->has_t0 || o->has_t1;
	r->t0 = o->has_t0 ? o->t0_ns : 0;
	r->t1 = o->has_t1 ? o->t1_ns : UINT64_MAX;
	r->nsel = d->nsel;
	r->narrowed_by_task = o->npids || o->ncomms;
	r->first_ts = r->windowed ? d->sel_first : ctx->all_first_ts;
	r->last_ts = r->windowed ? d->sel_last : ctx->all_last_ts;
	r->events_in_file = ctx->nevents_all;
	r->file_first_ts = ctx->all_first_ts;
	r->file_last_ts = ctx->all_last_ts;
	rpt_notes_fill(ctx, r->first_ts, r->last_ts, &r->notes);
	return r->path ? 0 : -ENOMEM;
}

/*
 * The one loss figure (rpt_loss_fig_fill) over the streams' marks: a
 * --from/--to window narrows what carries a time (page markers, BPF
 * failures); the kernel counters and the recorder backlog cover the whole
 * recording, so they stay out of a window's total.
 */
static int fill_total(struct rpt_drops_result *r, const struct rpt_ctx *ctx)
{
	struct rpt_loss_marks *m = calloc(r->nstreams ? r->nstreams : 1, sizeof(*m));
	size_t k;
	int err;

	if (!m)
		return -ENOMEM;
	for (k = 0; k < r->nstreams; k++)
		m[k] = (struct rpt_loss_marks){ r->streams[k].buffer_index, r->streams[k].cpu,
						 r->streams[k].lost_marked };
	err = rpt_loss_fig_fill(ctx->r, ctx->info, m, r->nstreams, !r->windowed, r->t0, r->t1,
				ctx->opts, &r->fig);
	free(m);
	r->bpf_drops = r->fig.bpf;
	r->lost = r->fig.total;
	return err;
}

static int drops_compute(struct drops *d, const struct rpt_ctx *ctx, struct rpt_drops_result *r)
{
	struct extra x;
	struct worst w;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&x, 0, sizeof(x));
	load_cpustats(d, ctx, FMT_OPT_CPUSTAT, false);
	load_cpustats(d, ctx, FMT_OPT_FT_CPUSTAT_START, true);
	err = load_bpf(d, ctx, &x) || load_recstats(ctx, &x) || d->oom ? -ENOMEM : 0;
	if (!err)
		err = fill_head(r, d, ctx);
	if (!err)
		err = fill_streams(r, d, ctx, &w);
	if (!err)
		err = fill_extra(r, &x);
	if (!err)
		err = fill_total(r, ctx);
	if (!err)
		err = fill_advice(r, ctx, &w, x.max_fill);
	if (!err)
		err = fill_flight(r, ctx);
	if (!err)
		err = fill_windows_losses(r, d, ctx);
	extra_release(&x);
	if (err)
		rpt_drops_result_release(r);
	return err;
}

static int drops_finish(struct rpt_ctx *ctx, void *priv)
{
	struct drops *d = priv;
	const struct rpt_opts *o = ctx->opts;
	FILE *out = o->out ? o->out : stdout;
	struct rpt_drops_result res;
	int err;

	if (d->too_many) {
		ft_error("--window %" PRIu64 " ns makes more than %d windows over this trace: use "
			 "a larger one", d->width, FIXED_MAX);
		return -ECANCELED;
	}
	err = drops_compute(d, ctx, &res);
	if (err)
		return err;
	if (d->conf->result) {
		*d->conf->result = res;	/* the caller's now */
		return 0;
	}
	if (o->json)
		err = rpt_drops_print_json(&res, out);
	else
		rpt_drops_text(&res, out);
	rpt_drops_result_release(&res);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

static void drops_release(void *priv)
{
	struct drops *d = priv;
	size_t pos = 0;
	struct stream *s;

	while ((s = rpt_map_next(&d->streams, &pos, NULL)))
		rpt_map_release(&s->types);
	rpt_map_release(&d->streams);
	free(d->win);
}

const struct rpt_analyzer rpt_drops_analyzer = {
	.name = "drops",
	.priv_size = sizeof(struct drops),
	.init = drops_init,
	.event_unfiltered = drops_event,
	.window_read = drops_window_read,
	.window_begin = drops_window_begin,
	.merge = drops_merge,
	.finish = drops_finish,
	.release = drops_release,
};

/* ---- command ------------------------------------------------------------------ */

static const char drops_usage[] =
	"usage: flytrap drops [options] [FILE]\n"
	"\n"
	"Every loss recorded in FILE (default trace.dat): kernel ring-buffer losses per\n"
	"buffer and CPU (page markers and the kernel's own counters), BPF ring buffer\n"
	"reservation failures, the recorder's backlog; per time window; the window of\n"
	"complete data per CPU; what the loss affects and what to change.  --pid and\n"
	"--comm do not narrow it (a loss belongs to no task).\n"
	"\n"
	"options:\n";

const char rpt_drops_options_help[] =
	"  --window DURATION  width of the time windows (e.g. 100ms); default: at most\n"
	"                     20 windows over the trace or --from/--to\n";

const struct ft_opt rpt_drops_opts[] = { { "window", 0, true, 1 }, { 0 } };

int rpt_drops_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct rpt_drops_conf *c = arg;

	(void)table;
	(void)o;	/* --window, the one option */
	if (ft_parse_duration_ns(v, &c->window_ns) || !c->window_ns)
		return ft_usage_error("--window needs a positive duration such as 100ms, not '%s'",
				      v);
	return 0;
}

int cmd_drops(int argc, char **argv)
{
	struct rpt_drops_conf conf = { 0 };
	struct rpt_analyzer an = rpt_drops_analyzer;
	const struct rpt_analyzer *list[1] = { &an };
	char usage[sizeof(drops_usage) + sizeof(rpt_drops_options_help)];
	struct rpt_command c = { .usage = usage, .opts = { rpt_drops_opts },
				 .option = rpt_drops_option, .an = list, .n = 1,
				 .arg = &conf };

	an.conf = &conf;
	snprintf(usage, sizeof(usage), "%s%s", drops_usage, rpt_drops_options_help);
	return rpt_run_command(argc, argv, &c);
}
