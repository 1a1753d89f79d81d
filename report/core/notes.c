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
	/* losses the pages do not mark (non-overwrite drops): the time is unknown */
	if (kl > all.events && !all.unknown)
		n->unmarked_lost = kl - all.events;
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
