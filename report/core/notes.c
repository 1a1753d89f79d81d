// SPDX-License-Identifier: GPL-2.0-only
/*
 * The notes at the head of every analyzer's output: losses in the window
 * (markers, the kernel's counters, BPF drops), the damage, the raw clock.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"


struct loss_sum {
	int markers;
	uint64_t events, unknown, first, last;
	uint64_t cpus[4];
};

static void loss_sum(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct loss_sum *s)
{
	int k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < ctx->nlosses; k++) {
		const struct rpt_loss *l = &ctx->losses[k];

		/* a loss matters if the gap it stands for overlaps the window */
		if (l->ts < t0 || (l->prev_ts ? l->prev_ts : l->ts) > t1)
			continue;
		if (!rpt_cpu_selected(ctx->opts, l->cpu))
			continue;
		if (!s->markers)
			s->first = l->prev_ts ? l->prev_ts : l->ts;
		s->last = l->ts;
		s->markers += (int)l->markers;
		if (l->count < 0)
			s->unknown++;
		else
			s->events += (uint64_t)l->count;
		if (l->cpu >= 0 && l->cpu < 256)
			s->cpus[l->cpu / 64] |= 1ULL << (l->cpu % 64);
	}
}

/*
 * Sum of overrun + commit overrun + dropped events over the selected CPUs
 * of every buffer: the CPUSTAT text at the end minus the one at the start
 * (when present).  Same text layout as trace-cmd's option 2.
 */
static uint64_t stat_sum(const struct rpt_ctx *ctx, uint16_t id, bool *found)
{
	const struct fmt_option *o;
	uint64_t sum = 0;
	int n, cpu = -1;

	for (n = 0; (o = fmt_reader_option(ctx->r, id, n)); n++) {
		const char *p = o->data, *end = p + o->size;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char line[128];
			unsigned long long v;

			if (ll < sizeof(line)) {
				memcpy(line, p, ll);
				line[ll] = 0;
				if (sscanf(line, "CPU: %d", &cpu) == 1)
					*found = true;
				else if (sscanf(line, "Buffer: %*s") == 0 &&
					 !strncmp(line, "Buffer:", 7))
					cpu = -1;
				else if (cpu >= 0 && rpt_cpu_selected(ctx->opts, cpu) &&
					 (sscanf(line, "overrun: %llu", &v) == 1 ||
					  sscanf(line, "commit overrun: %llu", &v) == 1 ||
					  sscanf(line, "dropped events: %llu", &v) == 1))
					sum += v;
			}
			p = nl ? nl + 1 : end;
		}
	}
	return sum;
}

/* events the kernel counted as lost over the whole recording (0 when the file has no stats) */
static uint64_t kernel_lost(const struct rpt_ctx *ctx)
{
	bool f1 = false, f2 = false;
	uint64_t end, start;

	if (!ctx->r)
		return 0;
	end = stat_sum(ctx, FMT_OPT_CPUSTAT, &f1);
	start = stat_sum(ctx, FMT_OPT_FT_CPUSTAT_START, &f2);
	return f1 && end > start ? end - start : 0;
}

void rpt_notes_fill(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct rpt_notes *n)
{
	struct loss_sum s, all;
	uint64_t kl = kernel_lost(ctx);

	memset(n, 0, sizeof(*n));
	n->raw_clock = rpt_raw_clock();
	snprintf(n->clock, sizeof(n->clock), "%s",
		 ctx->info && ctx->info->clock && *ctx->info->clock ? ctx->info->clock : "raw");
	n->stream_errors = ctx->stream_errors;
	n->truncated_at = ctx->info ? ctx->info->truncated_at : 0;
	loss_sum(ctx, t0, t1, &s);
	loss_sum(ctx, 0, UINT64_MAX, &all);
	if (rpt_loss_fig_ctx(ctx, 0, UINT64_MAX, &n->fig))
		memset(&n->fig, 0, sizeof(n->fig));
	/*
	 * losses the pages do not mark (non-overwrite drops): the time is
	 * unknown.  The BPF buffer's marks are not the kernel's.
	 */
	if (kl > n->fig.kernel_marked && !all.unknown)
		n->unmarked_lost = kl - n->fig.kernel_marked;
	if (t0 > ctx->all_first_ts || t1 < ctx->all_last_ts)
		rpt_loss_fig_ctx(ctx, t0, t1, &n->fig);
	memcpy(n->loss_cpus, s.cpus, sizeof(n->loss_cpus));
	n->nevents = ctx->nevents;
	n->nevents_all = ctx->nevents_all;
	n->file_first_ts = ctx->all_first_ts;
	n->file_last_ts = ctx->all_last_ts;
	n->sel_first_ts = ctx->first_ts;
	n->sel_last_ts = ctx->last_ts;
	n->loss = (struct rpt_loss_summary){ .markers = s.markers, .events = s.events,
					     .unknown = s.unknown, .first_ts = s.first,
					     .last_ts = s.last, .kernel_lost = kl };
}

int rpt_notes_loss(const struct rpt_notes *n, FILE *out)
{
	char a[32], b[32];
	int c, k = 0;

	if (n->unmarked_lost)
		fprintf(out, "note: the kernel counted %" PRIu64 " lost events that no page marks "
			"(their\n"
			"      time is unknown): figures may be incomplete; see 'flytrap drops'\n",
			n->unmarked_lost);
	if (!n->loss.markers)
		return 0;
	fprintf(out, "note: events were lost between %s and %s on CPU",
		rpt_fmt_ts(a, sizeof(a), n->loss.first_ts),
		rpt_fmt_ts(b, sizeof(b), n->loss.last_ts));
	for (c = 0; c < 256; c++)
		if (n->loss_cpus[c / 64] & (1ULL << (c % 64)))
			fprintf(out, "%s%d", k++ ? "," : " ", c);
	fprintf(out, "\n      (%d loss marker%s, %" PRIu64 " events%s):\n"
		"      figures covering that time are incomplete; see 'flytrap drops'\n",
		n->loss.markers, n->loss.markers == 1 ? "" : "s", n->loss.events,
		n->loss.unknown ? " + an unknown number" : "");
	return n->loss.markers;
}

void rpt_loss_summary_json(const struct rpt_loss_summary *s, struct rpt_json *j)
{
	rpt_json_obj(j);
	rpt_json_ki64(j, "markers", s->markers);
	rpt_json_ku64(j, "events", s->events);
	rpt_json_ku64(j, "unknown", s->unknown);
	rpt_json_ku64(j, "first_ts", s->first_ts);
	rpt_json_ku64(j, "last_ts", s->last_ts);
	rpt_json_ku64(j, "kernel_lost", s->kernel_lost);
	rpt_json_obj_end(j);
}

void rpt_notes_damage(const struct rpt_notes *n, FILE *out)
{
	if (n->stream_errors)
		fprintf(out, "note: the file is damaged (%d CPU stream%s early): the figures are\n"
			"      partial, they cover the readable events\n", n->stream_errors,
			n->stream_errors == 1 ? " stops" : "s stop");
	else if (n->truncated_at)
		fprintf(out, "note: the file is cut at byte %" PRIu64 ": the figures are partial, "
			"they\n"
			"      cover what it held up to there\n", n->truncated_at);
}

void rpt_notes_clock(const struct rpt_notes *n, FILE *out)
{
	if (!n->raw_clock)
		return;
	fprintf(out, "note: the clock (%s) is a raw counter: times are clock ticks, and the\n"
		"      durations below count ticks as if they were nanoseconds\n", n->clock);
}

/* ---- the one loss figure (issue 31) ------------------------------------------------------- */

bool rpt_bpf_buffer(struct fmt_reader *r, const char *name)
{
	const struct fmt_meta *m = r ? fmt_reader_meta(r) : NULL;
	const char *b = m && m->present ? fmt_kv_get(&m->all, "bpf_buffer") : NULL;

	if (!name || !*name)
		return false;
	if (b)
		return !strcmp(b, name);
	/* the recorder has always named it so; a file of another tool has no such buffer */
	return m && m->present && !strcmp(name, "flytrap-bpf");
}

bool rpt_recorder_loss_key(const char *k)
{
	/* the kernel's and the BPF counters have figures of their own */
	if (!strcmp(k, "overrun") || !strcmp(k, "dropped") || !strncmp(k, "bpf_", 4))
		return false;
	return (strstr(k, "drop") || strstr(k, "lost")) && !strstr(k, "max") && !strstr(k, "pct");
}

/* One (buffer, CPU) stream of the figure: its marks and its kernel counters. */
struct fig_stream {
	int buffer, cpu;
	bool bpf, end, start;
	uint64_t marked, lost_end, lost_start;
};

static struct fig_stream *fig_stream(struct fig_stream **v, size_t *n, size_t *cap, int buffer,
				     int cpu)
{
	size_t k;

	for (k = 0; k < *n; k++)
		if ((*v)[k].buffer == buffer && (*v)[k].cpu == cpu)
			return &(*v)[k];
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct fig_stream *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return NULL;
		*v = nv;
		*cap = c;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].buffer = buffer;
	(*v)[*n].cpu = cpu;
	return &(*v)[(*n)++];
}

static int buffer_named(const struct fmt_info *in, const char *name)
{
	int k;

	for (k = 0; k < in->nbuffers; k++)
		if (!strcmp(in->buffers[k].name, name))
			return k;
	return -1;
}

/*
 * The kernel's loss counters of each (buffer, CPU) in a CPUSTAT option's
 * text ("Buffer: NAME" switches the buffer, "CPU: N" starts a CPU), added
 * to the streams as the end or the start figure.
 */
static int fig_cpustat(struct fmt_reader *r, const struct fmt_info *in, uint16_t id, bool start,
		       struct fig_stream **v, size_t *n, size_t *cap)
{
	const struct fmt_option *o;
	int k, buffer = 0, cpu = -1;

	for (k = 0; (o = fmt_reader_option(r, id, k)); k++) {
		const char *p = o->data, *end = p + o->size;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char line[256];
			unsigned long long val;
			struct fig_stream *s;

			if (ll >= sizeof(line))
				ll = sizeof(line) - 1;
			memcpy(line, p, ll);
			line[ll] = 0;
			p = nl ? nl + 1 : end;
			if (!strncmp(line, "Buffer:", 7)) {
				const char *name = line + 7;

				while (*name == ' ')
					name++;
				buffer = buffer_named(in, name);
				cpu = -1;
				continue;
			}
			if (sscanf(line, "CPU: %d", &cpu) == 1 || cpu < 0 || buffer < 0)
				continue;
			if (sscanf(line, "overrun: %llu", &val) != 1 &&
			    sscanf(line, "commit overrun: %llu", &val) != 1 &&
			    sscanf(line, "dropped events: %llu", &val) != 1)
				continue;
			if (!(s = fig_stream(v, n, cap, buffer, cpu)))
				return -ENOMEM;
			if (start) {
				s->start = true;
				s->lost_start += val;
			} else {
				s->end = true;
				s->lost_end += val;
			}
		}
	}
	return 0;
}

/* The recorder's records of BPF reservation failures inside [t0, t1] (all when whole). */
static void fig_bpf_records(struct fmt_reader *r, const struct fmt_info *in, bool whole,
			    uint64_t t0, uint64_t t1, const struct rpt_opts *o,
			    struct rpt_loss_fig *f)
{
	bool swap = in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	const struct fmt_option *opt;
	int k;

	for (k = 0; (opt = fmt_reader_option(r, FMT_OPT_FT_BPF_DROPS, k)); k++) {
		size_t i, cnt = opt->size / sizeof(struct fmt_bpf_drop);

		f->has_bpf_records = true;
		for (i = 0; i < cnt; i++) {
			struct fmt_bpf_drop d;
			uint64_t ts, count;
			uint32_t cpu;

			memcpy(&d, (const char *)opt->data + i * sizeof(d), sizeof(d));
			ts = swap ? __builtin_bswap64(d.ts) : d.ts;
			cpu = swap ? __builtin_bswap32(d.cpu) : d.cpu;
			count = swap ? __builtin_bswap64(d.count) : d.count;
			ts = fmt_reader_adjust_ts(r, ts);
			if (!whole && (ts < t0 || ts > t1))
				continue;
			if (o && !rpt_cpu_selected(o, cpu > 255 ? -1 : (int)cpu))
				continue;
			f->bpf_records += count;
		}
	}
}

int rpt_loss_fig_fill(struct fmt_reader *r, const struct fmt_info *in,
		      const struct rpt_loss_marks *m, size_t n, bool whole, uint64_t t0,
		      uint64_t t1, const struct rpt_opts *o, struct rpt_loss_fig *f)
{
	struct fig_stream *v = NULL;
	size_t nv = 0, cap = 0, k;
	const struct fmt_meta *meta = fmt_reader_meta(r);
	int err = 0;

	memset(f, 0, sizeof(*f));
	if (!meta)
		return -ENOMEM;
	for (k = 0; k < n && !err; k++) {
		struct fig_stream *s = fig_stream(&v, &nv, &cap, m[k].buffer, m[k].cpu);

		if (!s)
			err = -ENOMEM;
		else
			s->marked += m[k].marked;
	}
	if (!err)
		err = fig_cpustat(r, in, FMT_OPT_CPUSTAT, false, &v, &nv, &cap);
	if (!err)
		err = fig_cpustat(r, in, FMT_OPT_FT_CPUSTAT_START, true, &v, &nv, &cap);
	for (k = 0; k < nv && !err; k++) {
		struct fig_stream *s = &v[k];
		uint64_t kl = s->end && s->lost_end > s->lost_start ? s->lost_end - s->lost_start : 0;

		if (o && !rpt_cpu_selected(o, s->cpu))
			continue;
		if (s->buffer >= 0 && s->buffer < in->nbuffers &&
		    rpt_bpf_buffer(r, in->buffers[s->buffer].name)) {
			f->bpf_marked += s->marked;
			continue;
		}
		f->kernel_marked += s->marked;
		f->kernel_counters |= s->end;
		/* the counters cover the whole recording, the marks say where: the larger */
		f->kernel += whole && kl > s->marked ? kl : s->marked;
	}
	free(v);
	if (err)
		return err;
	fig_bpf_records(r, in, whole, t0, t1, o, f);
	f->bpf = f->has_bpf_records ? f->bpf_records : f->bpf_marked;
	for (k = 0; whole && meta->rs.present && k < meta->rs.all.n; k++) {
		const struct fmt_kv *kv = &meta->rs.all.kv[k];
		unsigned long long val;
		char *e;

		if (!kv->val || !rpt_recorder_loss_key(kv->key))
			continue;
		val = strtoull(kv->val, &e, 10);
		if (e != kv->val && (!*e || *e == ' '))
			f->recorder += val;
	}
	f->total = f->kernel + f->bpf + f->recorder;
	return 0;
}

int rpt_loss_fig_ctx(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct rpt_loss_fig *f)
{
	struct rpt_loss_marks *m;
	size_t n = 0;
	bool whole = t0 <= ctx->all_first_ts && t1 >= ctx->all_last_ts;
	int k, err;

	memset(f, 0, sizeof(*f));
	if (!ctx->r || !ctx->info)
		return 0;
	m = calloc(ctx->nlosses ? (size_t)ctx->nlosses : 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (k = 0; k < ctx->nlosses; k++) {
		const struct rpt_loss *l = &ctx->losses[k];

		if (l->count <= 0 || l->ts < t0 || (l->prev_ts ? l->prev_ts : l->ts) > t1)
			continue;
		m[n++] = (struct rpt_loss_marks){ l->buffer, l->cpu, (uint64_t)l->count };
	}
	err = rpt_loss_fig_fill(ctx->r, ctx->info, m, n, whole, t0, t1, ctx->opts, f);
	free(m);
	return err;
}

const char *rpt_loss_fig_text(const struct rpt_loss_fig *f, char *buf, size_t len)
{
	const struct { const char *what; uint64_t v; } part[] = {
		{ "kernel ring buffer", f->kernel }, { "BPF ring buffer", f->bpf },
		{ "recorder backlog", f->recorder },
	};
	size_t k, o;
	const char *sep = " (";

	o = (size_t)snprintf(buf, len, "%" PRIu64 " event%s", f->total, f->total == 1 ? "" : "s");
	for (k = 0; k < sizeof(part) / sizeof(part[0]) && o < len; k++) {
		if (!part[k].v)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s %" PRIu64, sep, part[k].what,
				      part[k].v);
		sep = ", ";
	}
	if (*sep == ',' && o < len)
		snprintf(buf + o, len - o, ")");
	return buf;
}

void rpt_loss_fig_json(const struct rpt_loss_fig *f, struct rpt_json *j)
{
	rpt_json_obj(j);
	rpt_json_ku64(j, "total", f->total);
	rpt_json_ku64(j, "kernel", f->kernel);
	rpt_json_ku64(j, "bpf", f->bpf);
	rpt_json_ku64(j, "recorder", f->recorder);
	rpt_json_obj_end(j);
}
