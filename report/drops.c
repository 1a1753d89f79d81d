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
 *  - BPF ring buffer reservation failures (FMT_OPT_FT_BPF_DROPS);
 *  - the recorder's own backlog counters (FMT_OPT_FT_RECSTATS).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "replay.h"
#include "share.h"

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
	struct stream *last_s;		/* stream of the previous event */
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

/*
 * Display windows of width dw that overlap [t0, t1], one per call: *w is
 * the next index to look at (start at 0), *ws gets the window's start and
 * agg its sums.  Returns false after the last one.
 */
static bool window_next(const struct drops *d, const struct rpt_ctx *ctx, uint64_t dw, uint64_t t0,
			uint64_t t1, size_t *w, uint64_t *ws, struct window *agg)
{
	uint64_t per = dw / d->width, nw = (ctx->all_last_ts - d->base) / dw + 1;

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
	struct stream *s = rpt_map_get(&d->streams, (uint64_t)(uint32_t)buffer << 32 | (uint32_t)cpu,
				       &created);

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

static struct window *window_at(struct drops *d, uint64_t ts)
{
	uint64_t idx;

	if (ts < d->base)
		ts = d->base;
	idx = (ts - d->base) / d->width;
	while (!d->fixed && idx >= FINE_MAX) {
		/* coarsen: ten fine windows become one */
		size_t k, n = (d->nwin + 9) / 10;

		for (k = 0; k < n; k++) {
			struct window w = { 0 };

			window_sum(d, k * 10, k * 10 + 10, &w);
			d->win[k] = w;
		}
		memset(d->win + n, 0, (d->nwin - n) * sizeof(*d->win));
		d->nwin = n;
		d->width *= 10;
		idx = (ts - d->base) / d->width;
	}
	if (d->fixed && idx >= FIXED_MAX) {
		d->too_many = true;
		return NULL;
	}
	if (idx >= d->nwin) {
		size_t nn = d->nwin ? d->nwin : 16;
		struct window *nw;

		if (idx > (SIZE_MAX / sizeof(*nw)) / 2) {
			d->oom = true;
			return NULL;
		}
		while (nn <= idx)
			nn *= 2;
		nw = realloc(d->win, nn * sizeof(*nw));
		if (!nw) {
			d->oom = true;
			return NULL;
		}
		memset(nw + d->nwin, 0, (nn - d->nwin) * sizeof(*nw));
		d->win = nw;
		d->nwin = nn;
	}
	return &d->win[idx];
}

static int drops_init(struct rpt_ctx *ctx, void *priv)
{
	struct drops *d = priv;
	static const struct rpt_drops_conf defconf;

	d->conf = ctx->conf ? ctx->conf : &defconf;
	rpt_map_init(&d->streams, sizeof(struct stream));
	d->width = 1000;	/* 1 us fine buckets until the trace is long */
	if (d->conf->window_ns) {
		d->fixed = true;
		d->width = d->conf->window_ns;
	}
	return 0;
}

static void drops_event(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev)
{
	struct drops *d = priv;
	struct stream *s = d->last_s;
	struct window *w;
	uint64_t *tc;

	if (!s || s->buffer != ev->buffer || s->cpu != ev->rec.cpu) {
		s = stream_get(d, ev->buffer, ev->rec.cpu);
		d->last_s = s;
	}
	if (!s)
		return;
	if (!d->based) {
		d->base = ev->rec.ts;
		d->based = true;
	}
	/*
	 * The summary and the per-CPU table count the --from/--to window, like
	 * the loss-marker list; the per-window table is cut at output.  Every
	 * stream still appears (with 0 events) so the table lists every CPU.
	 */
	if ((ctx->opts->has_t0 && ev->rec.ts < ctx->opts->t0_ns) ||
	    (ctx->opts->has_t1 && ev->rec.ts > ctx->opts->t1_ns))
		goto windows;
	if (!d->nsel++)
		d->sel_first = ev->rec.ts;
	d->sel_last = ev->rec.ts;
	if (!s->events)
		s->first_ts = ev->rec.ts;
	s->events++;
	s->bytes += (uint64_t)ev->rec.record_size;
	s->last_ts = ev->rec.ts;
	if (ev->page_offset != s->last_page) {
		s->pages++;
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

windows:
	w = window_at(d, ev->rec.ts);
	if (!w)
		return;
	w->events++;
	if (ev->rec.missed_events) {
		w->markers++;
		if (ev->rec.missed_events < 0)
			w->unknown_markers++;
		else
			w->lost_marked += (uint64_t)ev->rec.missed_events;
	}
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

/* Value of "key=" in the file's flytrap metadata, malloc'd, or NULL. */
static char *meta_value(const struct rpt_ctx *ctx, const char *key)
{
	return rpt_meta_value(ctx->r, key);
}

/*
 * The always-on modes' lines (record --flight/--cpu-budget): "shed=FROM,TO,
 * EVENT,WHY" loss windows, and a dump's per-CPU start of complete data
 * (older data was let go by the flight recorder's window: retention, not loss).
 */
static void print_flight(const struct rpt_ctx *ctx, FILE *out, bool json)
{
	const struct fmt_option *o;
	char *starts = meta_value(ctx, "cpu_data_start"), *trig = meta_value(ctx, "trigger");
	int n, nshed = 0;

	if (json)
		fputs(",\"shed\":[", out);
	for (n = 0; (o = fmt_reader_option(ctx->r, FMT_OPT_FT_META, n)); n++) {
		const char *p = o->data, *end = p + o->size;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
			unsigned long long from, to;
			char ev[256], why[128];

			if (le - p > 5 && !memcmp(p, "shed=", 5)) {
				char *line = strndup(p + 5, (size_t)(le - p - 5));

				if (line && sscanf(line, "%llu,%llu,%255[^,],%127[^\n]", &from, &to, ev, why) == 4) {
					if (json) {
						fprintf(out, "%s{\"kind\":\"shed\",\"from_ts\":%llu,\"to_ts\":%llu,\"event\":",
							nshed ? "," : "", from, to);
						ft_json_str(out, ev);
						fputs(",\"why\":", out);
						ft_json_str(out, why);
						fputc('}', out);
					} else {
						char b1[32], b2[32];

						fprintf(out, "  shed: %s off %s..%s (%s): its events there are not in the file\n",
							ev, rpt_fmt_ts(b1, sizeof(b1), from),
							to ? rpt_fmt_ts(b2, sizeof(b2), to) : "end", why);
					}
					nshed++;
				}
				free(line);
			}
			p = nl ? nl + 1 : end;
		}
	}
	if (json) {
		fputs("],\"flight_cpu_data_start\":", out);
		if (starts)
			ft_json_str(out, starts);
		else
			fputs("null", out);
	} else if (starts) {
		fprintf(out, "  flight window%s%s: complete data from (buffer/CPU:time) %s;\n"
			"  anything older was let go by the recorder's window (retention, not loss)\n",
			trig ? " of trigger " : "", trig ? trig : "", starts);
	}
	free(starts);
	free(trig);
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
	char *names = meta_value(ctx, "bpf_progs");
	int n;

	if (names) {
		char *save = NULL, *tok;

		for (tok = strtok_r(names, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			char **nn = realloc(x->prog_names, (size_t)(x->nprogs + 1) * sizeof(*nn));

			if (!nn)
				break;
			x->prog_names = nn;
			nn[x->nprogs] = strdup(tok);
			if (nn[x->nprogs])
				x->nprogs++;
		}
		free(names);
	}
	for (n = 0; (o = fmt_reader_option(ctx->r, FMT_OPT_FT_BPF_DROPS, n)); n++) {
		size_t k, cnt;

		if (o->size % sizeof(struct fmt_bpf_drop)) {
			ft_warn("BPF drops option of %u bytes is not a whole number of records; ignoring the rest",
				o->size);
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
				struct bpfdrop *nb = realloc(x->bpf, (size_t)(x->nbpf + 1) * sizeof(*nb));

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

/* keys that count events the recorder itself lost (not gauges) */
static bool is_recorder_loss(const char *k)
{
	return (strstr(k, "drop") || strstr(k, "lost")) && !strstr(k, "max") && !strstr(k, "pct");
}

static int load_recstats(const struct rpt_ctx *ctx, struct extra *x)
{
	const struct fmt_option *o;
	int n;

	for (n = 0; (o = fmt_reader_option(ctx->r, FMT_OPT_FT_RECSTATS, n)); n++) {
		const char *p = o->data, *end = p + o->size;

		x->has_recstats = true;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			const char *eq = memchr(p, '=', (size_t)(le - p));

			if (eq && eq > p) {
				char *key = strndup(p, (size_t)(eq - p));
				char *val = strndup(eq + 1, (size_t)(le - eq - 1));
				unsigned long long v;
				char *e2;

				if (key && val && is_loss_key(key)) {
					v = strtoull(val, &e2, 10);
					if (e2 != val && (*e2 == 0 || *e2 == ' ')) {
						char **nk = realloc(x->rec_keys, (size_t)(x->nrec + 1) * sizeof(*nk));
						uint64_t *nv = nk ? realloc(x->rec_vals,
									    (size_t)(x->nrec + 1) * sizeof(*nv)) : NULL;

						if (nk)
							x->rec_keys = nk;
						if (nv) {
							x->rec_vals = nv;
							nk[x->nrec] = key;
							nv[x->nrec] = v;
							x->nrec++;
							if (is_recorder_loss(key))
								x->rec_total += v;
							if (!strcmp(key, "max_buffer_fill_pct"))
								x->max_fill = v;
							key = NULL;
						}
					}
				}
				free(key);
				free(val);
			}
			p = nl ? nl + 1 : end;
		}
	}
	return 0;
}

/* ---- output --------------------------------------------------------------- */

static int cmp_stream(const void *a, const void *b)
{
	const struct stream *x = *(const struct stream *const *)a, *y = *(const struct stream *const *)b;

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

/* Which analyses an event type feeds. */
static const char *analysis_of(const struct rpt_ctx *ctx, int id)
{
	struct tep_event *e = id >= 0 ? tep_find_event(ctx->tep, id) : NULL;

	if (!e)
		return NULL;
	if (!strcmp(e->name, "sched_switch") || !strncmp(e->name, "sched_wak", 9))
		return "overhead: CPU busy/idle and per-task on/off-CPU times";
	if (!strcmp(e->system, "raw_syscalls") || !strcmp(e->system, "syscalls") || strstr(e->name, "sys_"))
		return "overhead: syscall counts and latencies";
	if (!strncmp(e->name, "funcgraph_", 10))
		return "callgraph: kernel call counts and times";
	if (!strcmp(e->name, "kernel_stack") || !strcmp(e->name, "user_stack") || strstr(e->name, "stack") ||
	    strstr(e->name, "profile") || strstr(e->name, "offcpu"))
		return "callgraph: stack samples and off-CPU time";
	if (!strcmp(e->system, "irq") || strstr(e->name, "irq"))
		return "overhead: IRQ and softirq time";
	if (!strcmp(e->system, "uprobes") || strstr(e->name, "ufunc") || strstr(e->name, "uprobe"))
		return "callgraph: user call counts and times";
	return NULL;
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

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static uint64_t pow2_up(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ULL << 62))
		p <<= 1;
	return p;
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


static int drops_finish(struct rpt_ctx *ctx, void *priv)
{
	struct drops *d = priv;
	const struct rpt_opts *o = ctx->opts;
	FILE *out = o->out ? o->out : stdout;
	struct extra x;
	struct stream **ss = NULL;
	struct typecount *tcs = NULL;
	size_t pos = 0;
	struct stream *s;
	int ns = 0, k, ntc = 0, nadv = 0, err = 0;
	uint64_t tot_marked = 0, tot_unknown = 0, tot_kernel = 0, tot_markers = 0, tot_events = 0;
	uint64_t tot_unread = 0, dw = 0, t0, t1, worst_ratio_num = 0, worst_ratio_den = 1;
	bool any_kernel = false, any_start = false, missing_start = false, windowed;
	uint64_t sum_lost;
	char b1[32], b2[32], b3[32], nb[128];
	const char *analyses[8];
	int nan = 0;
	char *advice[16];
	char *bufkb;

	memset(&x, 0, sizeof(x));
	if (d->too_many) {
		ft_error("--window %" PRIu64 " ns makes more than %d windows over this trace: use a larger one",
			 d->width, FIXED_MAX);
		return -ECANCELED;
	}
	load_cpustats(d, ctx, FMT_OPT_CPUSTAT, false);
	load_cpustats(d, ctx, FMT_OPT_FT_CPUSTAT_START, true);
	if (load_bpf(d, ctx, &x) || load_recstats(ctx, &x) || d->oom) {
		err = -ENOMEM;
		goto out;
	}

	ss = calloc(d->streams.count ? d->streams.count : 1, sizeof(*ss));
	if (!ss) {
		err = -ENOMEM;
		goto out;
	}
	while ((s = rpt_map_next(&d->streams, &pos, NULL))) {
		if (!rpt_cpu_selected(o, s->cpu))
			continue;
		ss[ns++] = s;
	}
	qsort(ss, (size_t)ns, sizeof(*ss), cmp_stream);

	for (k = 0; k < ns; k++) {
		uint64_t ov, co, dr, kl;

		s = ss[k];
		tot_marked += s->lost_marked;
		tot_unknown += s->unknown_markers;
		tot_markers += s->markers;
		tot_events += s->events;
		kl = kernel_lost(s, &ov, &co, &dr);
		if (s->end.present) {
			any_kernel = true;
			tot_kernel += kl;
			tot_unread += s->end.entries;
			if (s->start.present)
				any_start = true;
			else
				missing_start = true;
		}
		{
			uint64_t lost = s->end.present ? (kl > s->lost_marked ? kl : s->lost_marked) : s->lost_marked;

			/* worst loss ratio lost / (lost + kept), for the buffer-size advice */
			if (lost && lost * worst_ratio_den > worst_ratio_num * (lost + s->events)) {
				worst_ratio_num = lost;
				worst_ratio_den = lost + s->events;
			}
		}
	}
	tcs = affected_types(ss, ns, &ntc, NULL);
	for (k = 0; k < ntc && nan < 8; k++) {
		const char *a = analysis_of(ctx, tcs[k].id);
		int j;

		if (!a)
			continue;
		for (j = 0; j < nan; j++)
			if (analyses[j] == a || !strcmp(analyses[j], a))
				break;
		if (j == nan)
			analyses[nan++] = a;
	}

	/* ---- advice ---- */
	bufkb = meta_value(ctx, "buffer_size_kb");
	if (worst_ratio_num) {
		uint64_t factor = pow2_up((worst_ratio_den + (worst_ratio_den - worst_ratio_num) - 1) /
					  (worst_ratio_den - worst_ratio_num ? worst_ratio_den - worst_ratio_num : 1));
		unsigned long long cur = bufkb ? strtoull(bufkb, NULL, 10) : 0;

		if (factor < 2)
			factor = 2;
		if (cur)
			advice[nadv] = xasprintf("raise the per-CPU ring buffer from %llu KiB to at least %llu KiB "
				 "(the worst CPU lost %.1f%% of its events)", cur,
				 (unsigned long long)(cur * factor), 100.0 * (double)worst_ratio_num / (double)worst_ratio_den);
		else
			advice[nadv] = xasprintf("make the per-CPU ring buffer at least %llux larger (buffer_size_kb; "
				 "the worst CPU lost %.1f%% of its events)", (unsigned long long)factor,
				 100.0 * (double)worst_ratio_num / (double)worst_ratio_den);
		nadv++;
	}
	if ((worst_ratio_num || tot_kernel) && ntc > 0) {
		char tn[96];
		uint64_t all = 0;
		int j;

		for (j = 0; j < ntc; j++)
			all += tcs[j].count;
		if (all && tcs[0].count * 4 >= all) {
			advice[nadv] = xasprintf("'%s' is %.0f%% of the events on the CPUs that lost data: filter it "
				 "(an event filter on its fields, or --pid/--cpu) or aggregate it in the kernel "
				 "(a BPF histogram instead of one record per event)",
				 type_name(ctx, tcs[0].id, tn, sizeof(tn)), 100.0 * (double)tcs[0].count / (double)all);
			nadv++;
		}
	}
	if (x.bpf_total) {
		advice[nadv] = xasprintf("%llu BPF records could not be reserved: enlarge the BPF ring buffer or "
			 "sample / aggregate in the BPF program", (unsigned long long)x.bpf_total);
		nadv++;
	}
	if (x.rec_total) {
		advice[nadv] = xasprintf("the recorder fell behind (%llu lost in its backlog): write to a faster "
			 "disk, lower the compression level, or record fewer events", (unsigned long long)x.rec_total);
		nadv++;
	}
	if (!worst_ratio_num && x.max_fill >= 75) {
		advice[nadv] = xasprintf("nothing was lost, but a kernel buffer was %llu%% full when the recorder "
			 "drained it: a larger buffer (buffer_size_kb) keeps a margin for bursts",
			 (unsigned long long)x.max_fill);
		nadv++;
	}
	/* a flight dump ends while the recording goes on: what follows is not lost */
	{
		char *trg = meta_value(ctx, "trigger_ts");

		if (trg)
			tot_unread = 0;
		free(trg);
	}
	if (tot_unread) {
		advice[nadv] = xasprintf("%llu events were still in the kernel buffers at the end and are not in "
			 "the file: stop the recording only after it has drained", (unsigned long long)tot_unread);
		nadv++;
	}
	if (missing_start && any_kernel && (tot_kernel || tot_markers)) {
		advice[nadv] = xasprintf("the file has no start-of-recording CPU stats, so the kernel counters "
			 "include losses from before the recording (record with flytrap to get both)");
		nadv++;
	}
	free(bufkb);
	for (k = 0; k < nadv; k++)
		if (!advice[k]) {
			err = -ENOMEM;
			nadv = k;
			goto out_adv;
		}

	t0 = o->has_t0 ? o->t0_ns : 0;
	t1 = o->has_t1 ? o->t1_ns : UINT64_MAX;
	/*
	 * A --from/--to window narrows what carries a time (page markers, BPF
	 * failures); the kernel counters and the recorder backlog cover the
	 * whole recording, so they stay out of a window's total.
	 */
	windowed = o->has_t0 || o->has_t1;
	sum_lost = windowed ? tot_marked + x.bpf_total
			    : (any_kernel && tot_kernel > tot_marked ? tot_kernel : tot_marked) + x.bpf_total +
			      x.rec_total;
	if (d->nwin && ctx->nevents_all)
		dw = display_width(d, ctx->all_last_ts - d->base);

	if (o->json) {
		int j, first;
		size_t w;

		fputs("{\"file\":", out);
		ft_json_str(out, o->path);
		fprintf(out, ",\"partial\":%s", rpt_partial(ctx) ? "true" : "false");
		fprintf(out, ",\"events\":%" PRIu64 ",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64,
			tot_events, windowed ? d->sel_first : ctx->all_first_ts,
			windowed ? d->sel_last : ctx->all_last_ts);
		fprintf(out, ",\"windowed\":%s,\"events_in_file\":%" PRIu64 ",\"file_first_ts\":%" PRIu64
			",\"file_last_ts\":%" PRIu64, windowed ? "true" : "false", ctx->nevents_all,
			ctx->all_first_ts, ctx->all_last_ts);
		fprintf(out, ",\"total\":{\"lost\":%" PRIu64 ",\"lost_marked\":%" PRIu64
			",\"loss_markers\":%" PRIu64 ",\"unknown_markers\":%" PRIu64
			",\"kernel_counters\":%s,\"kernel_lost\":%" PRIu64 ",\"kernel_start_stats\":%s"
			",\"unread_at_end\":%" PRIu64 ",\"bpf_drops\":%" PRIu64 ",\"recorder_lost\":%" PRIu64 "}",
			sum_lost, tot_marked, tot_markers, tot_unknown, any_kernel ? "true" : "false", tot_kernel,
			any_start ? "true" : "false", tot_unread, x.bpf_total, x.rec_total);
		fputs(",\"streams\":[", out);
		for (k = 0; k < ns; k++) {
			uint64_t ov, co, dr, kl;
			size_t p2 = 0;
			uint64_t key, *v;

			s = ss[k];
			kl = kernel_lost(s, &ov, &co, &dr);
			fprintf(out, "%s{\"buffer\":", k ? "," : "");
			ft_json_str(out, ctx->info->buffers[s->buffer].name);
			fprintf(out, ",\"cpu\":%d,\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"pages\":%" PRIu64
				",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64 ",\"loss_markers\":%" PRIu64
				",\"lost_marked\":%" PRIu64 ",\"unknown_markers\":%" PRIu64,
				s->cpu, s->events, s->bytes, s->pages, s->first_ts, s->last_ts, s->markers,
				s->lost_marked, s->unknown_markers);
			if (s->end.present)
				fprintf(out, ",\"kernel\":{\"overrun\":%" PRIu64 ",\"commit_overrun\":%" PRIu64
					",\"dropped\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"entries_at_end\":%" PRIu64
					",\"read\":%" PRIu64 ",\"start_stats\":%s}",
					ov, co, dr, kl, s->end.entries, sub0(s->end.read, s->start.read),
					s->start.present ? "true" : "false");
			else
				fputs(",\"kernel\":null", out);
			fprintf(out, ",\"lost\":%" PRIu64 ",\"complete_from\":%" PRIu64 ",\"complete_to\":%" PRIu64,
				s->end.present && kl > s->lost_marked ? kl : s->lost_marked,
				s->markers ? s->last_loss_ts : s->first_ts, s->last_ts);
			fputs(",\"types\":{", out);
			first = 1;
			while ((v = rpt_map_next(&s->types, &p2, &key))) {
				char tn[96];

				if (!first)
					fputc(',', out);
				first = 0;
				ft_json_str(out, type_name(ctx, (int)(uint32_t)key, tn, sizeof(tn)));
				fprintf(out, ":%" PRIu64, *v);
			}
			fputs("}}", out);
		}
		fputs("],\"bpf\":[", out);
		for (j = 0; j < x.nbpf; j++) {
			fprintf(out, "%s{\"prog\":%u,\"name\":", j ? "," : "", x.bpf[j].prog);
			ft_json_str(out, x.bpf[j].prog < (uint32_t)x.nprogs ? x.prog_names[x.bpf[j].prog] : "");
			fprintf(out, ",\"cpu\":%u,\"count\":%" PRIu64 "}", x.bpf[j].cpu, x.bpf[j].count);
		}
		fputs("],\"recorder\":{", out);
		for (j = 0; j < x.nrec; j++) {
			fprintf(out, "%s", j ? "," : "");
			ft_json_str(out, x.rec_keys[j]);
			fprintf(out, ":%" PRIu64, x.rec_vals[j]);
		}
		fprintf(out, "},\"window_ns\":%" PRIu64 ",\"windows\":[", dw);
		first = 1;
		if (dw) {
			struct window agg;
			uint64_t ws;

			w = 0;
			while (window_next(d, ctx, dw, t0, t1, &w, &ws, &agg)) {
				fprintf(out, "%s{\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"events\":%" PRIu64
					",\"loss_markers\":%" PRIu64 ",\"lost_marked\":%" PRIu64
					",\"unknown_markers\":%" PRIu64 ",\"bpf_drops\":%" PRIu64 "}",
					first ? "" : ",", ws, ws + dw, agg.events, agg.markers, agg.lost_marked,
					agg.unknown_markers, agg.bpf);
				first = 0;
			}
		}
		fputs("],\"losses\":[", out);
		first = 1;
		for (j = 0; j < ctx->nlosses; j++) {
			const struct rpt_loss *l = &ctx->losses[j];

			if (l->ts < t0 || l->ts > t1 || !rpt_cpu_selected(o, l->cpu))
				continue;
			fprintf(out, "%s{\"buffer\":", first ? "" : ",");
			ft_json_str(out, ctx->info->buffers[l->buffer].name);
			fprintf(out, ",\"cpu\":%d,\"after_ts\":%" PRIu64 ",\"ts\":%" PRIu64 ",\"count\":%" PRId64
				",\"markers\":%u}", l->cpu, l->prev_ts, l->ts, l->count, l->markers);
			first = 0;
		}
		fputs("],\"affected_types\":{", out);
		for (j = 0; j < ntc; j++) {
			char tn[96];

			if (j)
				fputc(',', out);
			ft_json_str(out, type_name(ctx, tcs[j].id, tn, sizeof(tn)));
			fprintf(out, ":%" PRIu64, tcs[j].count);
		}
		fputs("},\"affected_analyses\":[", out);
		for (j = 0; j < nan; j++) {
			if (j)
				fputc(',', out);
			ft_json_str(out, analyses[j]);
		}
		fputs("]", out);
		print_flight(ctx, out, true);
		fputs(",\"advice\":[", out);
		for (j = 0; j < nadv; j++) {
			if (j)
				fputc(',', out);
			ft_json_str(out, advice[j]);
		}
		fputs("]}\n", out);
		goto out_adv;
	}

	/* ---- text ---- */
	{
		uint64_t lost = (any_kernel && tot_kernel > tot_marked ? tot_kernel : tot_marked);
		char b4[32];
		int j, lastbuf = -1;
		size_t w;

		rpt_print_title(out, "Lost events in", o->path);
		print_flight(ctx, out, false);
		if (!windowed)
			fprintf(out, "  %" PRIu64 " events read, %s..%s\n", tot_events,
				rpt_fmt_ts(b1, sizeof(b1), ctx->all_first_ts), rpt_fmt_ts(b2, sizeof(b2), ctx->all_last_ts));
		else if (!d->nsel)
			fprintf(out, "  0 events in the window %s..%s: it is outside the file's span\n"
				"  %s..%s (%" PRIu64 " events read)\n",
				o->has_t0 ? rpt_fmt_ts(b1, sizeof(b1), t0) : "start",
				o->has_t1 ? rpt_fmt_ts(b2, sizeof(b2), t1) : "end",
				rpt_fmt_ts(b3, sizeof(b3), ctx->all_first_ts), rpt_fmt_ts(b4, sizeof(b4), ctx->all_last_ts),
				ctx->nevents_all);
		else
			fprintf(out, "  %" PRIu64 " events in the window, %s..%s\n  (of %" PRIu64 " read, %s..%s)\n",
				tot_events, rpt_fmt_ts(b1, sizeof(b1), d->sel_first), rpt_fmt_ts(b2, sizeof(b2), d->sel_last),
				ctx->nevents_all, rpt_fmt_ts(b3, sizeof(b3), ctx->all_first_ts),
				rpt_fmt_ts(b4, sizeof(b4), ctx->all_last_ts));
		rpt_clock_note(ctx, out);
		rpt_damage_note(ctx, out);
		if (o->npids || o->ncomms)
			fputs("  (--pid and --comm do not narrow this report: a loss belongs to no task)\n", out);
		if (windowed)
			fputs("  (kernel counters and the recorder backlog cover the whole recording:\n"
			      "  the window's total counts its page markers and BPF failures)\n", out);
		fprintf(out, "  total lost:          %" PRIu64 "%s\n", sum_lost,
			tot_unknown && (!any_kernel || windowed) ? " (plus pages lost with no count)" : "");
		fprintf(out, "  kernel ring buffer:  %" PRIu64 " (%s)\n", lost,
			any_kernel ? (any_start ? "kernel counters, end minus start"
					       : "kernel counters at the end; no start stats")
				   : "page markers only: the file has no CPU stats");
		fprintf(out, "  page loss markers:   %" PRIu64 " marker%s, %" PRIu64 " events counted, %" PRIu64
			" with no count\n", tot_markers, tot_markers == 1 ? "" : "s", tot_marked, tot_unknown);
		fprintf(out, "  BPF ring buffer:     %" PRIu64 "\n", x.bpf_total);
		fprintf(out, "  recorder backlog:    %" PRIu64 "%s\n", x.rec_total,
			x.has_recstats ? "" : " (no recorder stats in the file)");
		if (tot_unread)
			fprintf(out, "  unread at the end:   %" PRIu64 " (left in the kernel buffers)\n", tot_unread);

		for (k = 0; k < ns; k++) {
			uint64_t ov, co, dr, kl;

			s = ss[k];
			if (s->buffer != lastbuf) {
				const char *bn = ctx->info->buffers[s->buffer].name;

				fprintf(out, "\nbuffer %s%s%s\n", *bn ? "\"" : "", *bn ? bn : "(top)", *bn ? "\"" : "");
				fprintf(out, "  CPU     events      lost  markers   overrun    commit   dropped\n");
				lastbuf = s->buffer;
			}
			kl = kernel_lost(s, &ov, &co, &dr);
			fprintf(out, "  %3d %10" PRIu64 " %9" PRIu64 " %8" PRIu64, s->cpu, s->events,
				!windowed && s->end.present && kl > s->lost_marked ? kl : s->lost_marked, s->markers);
			if (s->end.present)
				fprintf(out, " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n", ov, co, dr);
			else
				fprintf(out, " %9s %9s %9s\n", "-", "-", "-");
		}
		fputs("\ncomplete data (from the first record after the last loss marker)\n", out);
		for (k = 0; k < ns; k++) {
			const char *bn;

			s = ss[k];
			bn = ctx->info->buffers[s->buffer].name;
			if (!s->events) {
				fprintf(out, "  %-14s CPU %-3d no events\n", rpt_fit(nb, sizeof(nb), *bn ? bn : "(top)", 14),
					s->cpu);
				continue;
			}
			fprintf(out, "  %-14s CPU %-3d %s..%s%s\n", rpt_fit(nb, sizeof(nb), *bn ? bn : "(top)", 14), s->cpu,
				rpt_fmt_ts(b1, sizeof(b1), s->markers ? s->last_loss_ts : s->first_ts),
				rpt_fmt_ts(b2, sizeof(b2), s->last_ts),
				!s->markers && s->end.present && s->end.dropped > s->start.dropped ?
				" (drops not marked)" : "");
		}
		if (x.nbpf) {
			fputs("\nBPF ring buffer reservation failures\n  prog                      CPU     count\n", out);
			for (j = 0; j < x.nbpf; j++)
				fprintf(out, "  %-24s %4u %9" PRIu64 "\n",
					rpt_fit(nb, sizeof(nb), x.bpf[j].prog < (uint32_t)x.nprogs ?
						x.prog_names[x.bpf[j].prog] : "?", 24),
					x.bpf[j].cpu, x.bpf[j].count);
		}
		if (x.nrec) {
			fputs("\nrecorder\n", out);
			for (j = 0; j < x.nrec; j++)
				fprintf(out, "  %-30s %12" PRIu64 "\n", rpt_fit(nb, sizeof(nb), x.rec_keys[j], 30),
					x.rec_vals[j]);
		}
		if (tot_markers) {
			int shown = 0;

			fputs("\nloss markers (events lost between the two times)\n", out);
			for (j = 0; j < ctx->nlosses; j++) {
				const struct rpt_loss *l = &ctx->losses[j];
				const char *bn = ctx->info->buffers[l->buffer].name;

				if (l->ts < t0 || l->ts > t1 || !rpt_cpu_selected(o, l->cpu))
					continue;
				if (shown++ >= 20)
					continue;
				if (l->count < 0)
					snprintf(b3, sizeof(b3), "unknown");
				else
					snprintf(b3, sizeof(b3), "%" PRId64, l->count);
				fprintf(out, "  %-14s CPU %-3d %s..%s  %s\n", rpt_fit(nb, sizeof(nb), *bn ? bn : "(top)", 14),
					l->cpu,
					rpt_fmt_ts(b1, sizeof(b1), l->prev_ts ? l->prev_ts : l->ts),
					rpt_fmt_ts(b2, sizeof(b2), l->ts), b3);
			}
			if (shown > 20)
				fprintf(out, "  ... %d more (see --json)\n", shown - 20);
		}
		if (dw && (tot_markers || x.bpf_total)) {
			struct window agg;
			uint64_t ws;
			int printed = 0, skipped = 0;

			fprintf(out, "\nper %s window (windows with loss)\n", rpt_fmt_dur(b3, sizeof(b3), dw));
			fputs("  start              events    lost  no-count    bpf\n", out);
			w = 0;
			while (window_next(d, ctx, dw, t0, t1, &w, &ws, &agg)) {
				if (!agg.markers && !agg.bpf)
					continue;
				if (printed++ >= 40) {
					skipped++;
					continue;
				}
				fprintf(out, "  %-16s %8" PRIu64 " %7" PRIu64 " %9" PRIu64 " %6" PRIu64 "\n",
					rpt_fmt_ts(b1, sizeof(b1), ws), agg.events, agg.lost_marked,
					agg.unknown_markers, agg.bpf);
			}
			if (skipped)
				fprintf(out, "  ... %d more windows with loss (see --json)\n", skipped);
		}
		if (ntc) {
			fputs("\naffected event types (recorded on CPUs that lost events)\n", out);
			for (j = 0; j < ntc && j < 10; j++) {
				char tn[96];

				fprintf(out, "  %-40s %12" PRIu64 "\n",
					rpt_fit(nb, sizeof(nb), type_name(ctx, tcs[j].id, tn, sizeof(tn)), 40),
					tcs[j].count);
			}
			if (ntc > 10)
				fprintf(out, "  ... %d more types\n", ntc - 10);
		}
		if (nan) {
			fputs("\naffected analyses\n", out);
			for (j = 0; j < nan; j++)
				fprintf(out, "  %s\n", analyses[j]);
		}
		fputs("\nadvice\n", out);
		if (!nadv)
			fputs("  nothing was lost: no change needed\n", out);
		for (j = 0; j < nadv; j++)
			rpt_print_bullet(out, 76, advice[j]);
	}
out_adv:
	for (k = 0; k < nadv; k++)
		free(advice[k]);
out:
	free(tcs);
	free(ss);
	extra_release(&x);
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
	"                     20 windows over the trace\n";

int rpt_drops_option(void *arg, int argc, char **argv, int *i)
{
	struct rpt_drops_conf *c = arg;
	const char *a = argv[*i], *v = NULL;

	if (!strcmp(a, "--window")) {
		if (*i + 1 >= argc)
			return ft_usage_error("--window needs a duration such as 100ms");
		v = argv[++*i];
	} else if (!strncmp(a, "--window=", 9)) {
		v = a + 9;
	} else {
		return 0;
	}
	if (ft_parse_duration_ns(v, &c->window_ns) || !c->window_ns)
		return ft_usage_error("--window needs a positive duration such as 100ms, not '%s'", v);
	return 1;
}

int cmd_drops(int argc, char **argv)
{
	struct rpt_drops_conf conf = { 0 };
	struct rpt_analyzer an = rpt_drops_analyzer;
	const struct rpt_analyzer *list[1] = { &an };
	char usage[sizeof(drops_usage) + sizeof(rpt_drops_options_help)];
	struct rpt_command c = { .usage = usage, .extra = rpt_drops_option, .an = list, .n = 1,
				 .arg = &conf };

	an.conf = &conf;
	snprintf(usage, sizeof(usage), "%s%s", drops_usage, rpt_drops_options_help);
	return rpt_run_command(argc, argv, &c);
}
