// SPDX-License-Identifier: GPL-2.0-only
/*
 * drops' output: the result drops.c computes (struct rpt_drops_result), as
 * JSON and as text.  Nothing here reads the trace; analyze prints the same
 * result inside its own document.
 */
#include <errno.h>
#include <inttypes.h>

#include "report/analyzers/drops.h"
#include "report/out/json.h"
#include "report/out/table.h"

/* ---- JSON ------------------------------------------------------------------ */

static void json_counts(struct rpt_json *j, const char *key, const struct rpt_drops_count *c,
			size_t n)
{
	size_t k;

	rpt_json_kobj(j, key);
	for (k = 0; k < n; k++) {
		rpt_json_key(j, c[k].name);
		rpt_json_u64(j, c[k].count);
	}
	rpt_json_obj_end(j);
}

static void json_totals(const struct rpt_drops_result *r, struct rpt_json *j)
{
	rpt_json_kobj(j, "total");
	rpt_json_ku64(j, "lost", r->lost);
	rpt_json_ku64(j, "lost_marked", r->lost_marked);
	rpt_json_ku64(j, "loss_markers", r->loss_markers);
	rpt_json_ku64(j, "unknown_markers", r->unknown_markers);
	rpt_json_kbool(j, "kernel_counters", r->kernel_counters);
	rpt_json_ku64(j, "kernel_lost", r->kernel_lost);
	rpt_json_kbool(j, "kernel_start_stats", r->kernel_start_stats);
	rpt_json_ku64(j, "unread_at_end", r->unread_at_end);
	rpt_json_ku64(j, "bpf_drops", r->bpf_drops);
	rpt_json_ku64(j, "bpf_lost_marked", r->bpf_lost_marked);
	rpt_json_ku64(j, "bpf_loss_markers", r->bpf_loss_markers);
	rpt_json_ku64(j, "recorder_lost", r->recorder_lost);
	rpt_json_obj_end(j);
}

static void json_stream(const struct rpt_drops_stream *s, struct rpt_json *j)
{
	rpt_json_obj(j);
	rpt_json_kstr(j, "buffer", s->buffer);
	rpt_json_ki64(j, "cpu", s->cpu);
	rpt_json_ku64(j, "events", s->events);
	rpt_json_ku64(j, "bytes", s->bytes);
	rpt_json_ku64(j, "pages", s->pages);
	rpt_json_ku64(j, "first_ts", s->first_ts);
	rpt_json_ku64(j, "last_ts", s->last_ts);
	rpt_json_ku64(j, "loss_markers", s->markers);
	rpt_json_ku64(j, "lost_marked", s->lost_marked);
	rpt_json_ku64(j, "unknown_markers", s->unknown_markers);
	if (s->kernel) {
		rpt_json_kobj(j, "kernel");
		rpt_json_ku64(j, "overrun", s->overrun);
		rpt_json_ku64(j, "commit_overrun", s->commit_overrun);
		rpt_json_ku64(j, "dropped", s->dropped);
		rpt_json_ku64(j, "lost", s->kernel_lost);
		rpt_json_ku64(j, "entries_at_end", s->entries_at_end);
		rpt_json_ku64(j, "read", s->read);
		rpt_json_kbool(j, "start_stats", s->start_stats);
		rpt_json_obj_end(j);
	} else {
		rpt_json_knull(j, "kernel");
	}
	rpt_json_ku64(j, "lost", s->lost);
	rpt_json_ku64(j, "complete_from", s->complete_from);
	rpt_json_ku64(j, "complete_to", s->complete_to);
	json_counts(j, "types", s->types, s->ntypes);
	rpt_json_obj_end(j);
}

/* The per-window table: text (windows with loss) and JSON (every window) */
static const struct rpt_col window_cols[] = {
	{ "start", "start", -16, 0 }, { NULL, "end", 0, 0 }, { "events", "events", 8, 1 },
	{ NULL, "loss_markers", 0, 0 }, { "lost", "lost_marked", 7, 1 },
	{ "no-count", "unknown_markers", 9, 1 }, { "bpf", "bpf_drops", 6, 1 },
};
#define NWINDOW_COLS (sizeof(window_cols) / sizeof(window_cols[0]))
static const struct rpt_table window_table = { window_cols, NWINDOW_COLS, "  " };

static void window_cells(struct rpt_cell *c, const struct rpt_drops_window *w, char *b1, size_t n)
{
	c[0] = rpt_cell_u64(w->start, rpt_fmt_ts(b1, n, w->start));
	c[1] = rpt_cell_u64(w->end, NULL);
	c[2] = rpt_cell_u64(w->events, NULL);
	c[3] = rpt_cell_u64(w->markers, NULL);
	c[4] = rpt_cell_u64(w->lost_marked, NULL);
	c[5] = rpt_cell_u64(w->unknown_markers, NULL);
	c[6] = rpt_cell_u64(w->bpf, NULL);
}

static void json_windows(const struct rpt_drops_result *r, struct rpt_json *j)
{
	size_t k;

	rpt_json_ku64(j, "window_ns", r->window_ns);
	rpt_json_karr(j, "windows");
	for (k = 0; k < r->nwindows; k++) {
		struct rpt_cell c[NWINDOW_COLS];
		char b1[32];

		window_cells(c, &r->windows[k], b1, sizeof(b1));
		rpt_table_json_row(&window_table, j, c);
	}
	rpt_json_arr_end(j);
	rpt_json_karr(j, "losses");
	for (k = 0; k < r->nlosses; k++) {
		const struct rpt_drops_loss *l = &r->losses[k];

		rpt_json_obj(j);
		rpt_json_kstr(j, "buffer", l->buffer);
		rpt_json_ki64(j, "cpu", l->cpu);
		rpt_json_ku64(j, "after_ts", l->after_ts);
		rpt_json_ku64(j, "ts", l->ts);
		rpt_json_ki64(j, "count", l->count);
		rpt_json_ku64(j, "markers", l->markers);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

static void json_sources(const struct rpt_drops_result *r, struct rpt_json *j)
{
	size_t k;

	rpt_json_karr(j, "streams");
	for (k = 0; k < r->nstreams; k++)
		json_stream(&r->streams[k], j);
	rpt_json_arr_end(j);
	rpt_json_karr(j, "bpf");
	for (k = 0; k < r->nbpf; k++) {
		rpt_json_obj(j);
		rpt_json_ku64(j, "prog", r->bpf[k].prog);
		rpt_json_kstr(j, "name", r->bpf[k].name);
		rpt_json_ku64(j, "cpu", r->bpf[k].cpu);
		rpt_json_ku64(j, "count", r->bpf[k].count);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
	json_counts(j, "recorder", r->recorder, r->nrecorder);
}

static void json_flight(const struct rpt_drops_result *r, struct rpt_json *j)
{
	size_t k;

	rpt_json_karr(j, "shed");
	for (k = 0; k < r->nshed; k++) {
		rpt_json_obj(j);
		rpt_json_kstr(j, "kind", "shed");
		rpt_json_ku64(j, "from_ts", r->shed[k].from_ts);
		rpt_json_ku64(j, "to_ts", r->shed[k].to_ts);
		rpt_json_kstr(j, "event", r->shed[k].event);
		rpt_json_kstr(j, "why", r->shed[k].why);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
	rpt_json_kstr_or_null(j, "flight_cpu_data_start", r->flight_cpu_data_start);
}

void rpt_drops_json(const struct rpt_drops_result *r, struct rpt_json *j)
{
	size_t k;

	rpt_json_obj(j);
	rpt_json_kstr(j, "file", r->path);
	rpt_json_kbool(j, "partial", r->partial);
	rpt_json_ku64(j, "events", r->events);
	rpt_json_ku64(j, "first_ts", r->first_ts);
	rpt_json_ku64(j, "last_ts", r->last_ts);
	rpt_json_kbool(j, "windowed", r->windowed);
	rpt_json_ku64(j, "events_in_file", r->events_in_file);
	rpt_json_ku64(j, "file_first_ts", r->file_first_ts);
	rpt_json_ku64(j, "file_last_ts", r->file_last_ts);
	json_totals(r, j);
	json_sources(r, j);
	json_windows(r, j);
	json_counts(j, "affected_types", r->types, r->ntypes);
	rpt_json_karr(j, "affected_analyses");
	for (k = 0; k < r->nanalyses; k++)
		rpt_json_str(j, r->analyses[k]);
	rpt_json_arr_end(j);
	json_flight(r, j);
	rpt_json_karr(j, "advice");
	for (k = 0; k < r->nadvice; k++)
		rpt_json_str(j, r->advice[k]);
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

int rpt_drops_print_json(const struct rpt_drops_result *r, FILE *out)
{
	struct rpt_json j;
	int err;

	if (rpt_json_init(&j, out, 0))
		return -ENOMEM;
	rpt_drops_json(r, &j);
	RPT_JSON_LIT(&j, "\n");
	err = rpt_json_done(&j);
	return err == -ENOMEM ? err : 0;	/* a failed write stays on the stream */
}

/* ---- text ------------------------------------------------------------------ */

static const char *buf_label(const char *bn)
{
	return *bn ? bn : "(top)";
}

static void text_flight(const struct rpt_drops_result *r, FILE *out)
{
	char b1[32], b2[32];
	size_t k;

	for (k = 0; k < r->nshed; k++) {
		const struct rpt_drops_shed *sh = &r->shed[k];

		fprintf(out, "  shed: %s off %s..%s (%s): its events there are not in the file\n",
			sh->event, rpt_fmt_ts(b1, sizeof(b1), sh->from_ts),
			sh->to_ts ? rpt_fmt_ts(b2, sizeof(b2), sh->to_ts) : "end", sh->why);
	}
	if (r->flight_cpu_data_start)
		fprintf(out, "  flight window%s%s: complete data from (buffer/CPU:time) %s;\n"
			"  anything older was let go by the recorder's window "
			"(retention, not loss)\n",
			r->trigger ? " of trigger " : "", r->trigger ? r->trigger : "",
			r->flight_cpu_data_start);
}

static void text_span(const struct rpt_drops_result *r, FILE *out)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (!r->windowed)
		fprintf(out, "  %" PRIu64 " events read, %s..%s\n", r->events,
			rpt_fmt_ts(b1, sizeof(b1), r->file_first_ts),
			rpt_fmt_ts(b2, sizeof(b2), r->file_last_ts));
	else if (!r->nsel)
		fprintf(out, "  0 events in the window %s..%s: it is outside the file's span\n"
			"  %s..%s (%" PRIu64 " events read)\n",
			r->has_t0 ? rpt_fmt_ts(b1, sizeof(b1), r->t0) : "start",
			r->has_t1 ? rpt_fmt_ts(b2, sizeof(b2), r->t1) : "end",
			rpt_fmt_ts(b3, sizeof(b3), r->file_first_ts),
			rpt_fmt_ts(b4, sizeof(b4), r->file_last_ts), r->events_in_file);
	else
		fprintf(out, "  %" PRIu64 " events in the window, %s..%s\n"
			"  (of %" PRIu64 " read, %s..%s)\n",
			r->events, rpt_fmt_ts(b1, sizeof(b1), r->first_ts),
			rpt_fmt_ts(b2, sizeof(b2), r->last_ts), r->events_in_file,
			rpt_fmt_ts(b3, sizeof(b3), r->file_first_ts),
			rpt_fmt_ts(b4, sizeof(b4), r->file_last_ts));
}

static void text_totals(const struct rpt_drops_result *r, FILE *out)
{
	uint64_t lost = r->kernel_counters && r->kernel_lost > r->lost_marked ? r->kernel_lost
									     : r->lost_marked;

	if (r->narrowed_by_task)
		fputs("  (--pid and --comm do not narrow this report: a loss belongs to no task)\n",
		      out);
	if (r->windowed)
		fputs("  (kernel counters and the recorder backlog cover the whole recording:\n"
		      "  the window's total counts its page markers and BPF failures)\n", out);
	fprintf(out, "  total lost:          %" PRIu64 "%s\n", r->lost,
		r->unknown_markers && (!r->kernel_counters || r->windowed) ?
		" (plus pages lost with no count)" : "");
	fprintf(out, "  kernel ring buffer:  %" PRIu64 " (%s)\n", lost,
		r->kernel_counters ?
			(r->kernel_start_stats ? "kernel counters, end minus start" :
						 "kernel counters at the end; no start stats") :
			"page markers only: the file has no CPU stats");
	fprintf(out, "  page loss markers:   %" PRIu64 " marker%s, %" PRIu64 " events counted, "
		"%" PRIu64 " with no count\n", r->loss_markers, r->loss_markers == 1 ? "" : "s",
		r->lost_marked, r->unknown_markers);
	fprintf(out, "  BPF ring buffer:     %" PRIu64, r->bpf_drops);
	if (r->bpf_loss_markers)
		fprintf(out, " (its pages carry %" PRIu64 " marker%s for %s)", r->bpf_loss_markers,
			r->bpf_loss_markers == 1 ? "" : "s",
			r->fig.has_bpf_records ? "the same loss" : "them");
	fputc('\n', out);
	fprintf(out, "  recorder backlog:    %" PRIu64 "%s\n", r->recorder_lost,
		r->has_recstats ? "" : " (no recorder stats in the file)");
	if (r->unread_at_end)
		fprintf(out, "  unread at the end:   %" PRIu64 " (left in the kernel buffers)\n",
			r->unread_at_end);
}

static const struct rpt_col stream_cols[] = {
	{ "CPU", "cpu", 3, 0 }, { "events", "events", 10, 1 }, { "lost", "lost", 9, 1 },
	{ "markers", "loss_markers", 8, 1 }, { "overrun", "overrun", 9, 1 },
	{ "commit", "commit_overrun", 9, 1 }, { "dropped", "dropped", 9, 1 },
};
static const struct rpt_table stream_table = { stream_cols, 7, "  " };

static const struct rpt_col bpf_cols[] = {
	{ "prog", "name", -24, 0 }, { "CPU", "cpu", 4, 1 }, { "count", "count", 9, 1 },
};
static const struct rpt_table bpf_table = { bpf_cols, 3, "  " };

static void text_streams(const struct rpt_drops_result *r, FILE *out)
{
	char b1[32], b2[32], nb[128];
	int lastbuf = -1;
	size_t k;

	for (k = 0; k < r->nstreams; k++) {
		const struct rpt_drops_stream *s = &r->streams[k];
		const char *bn = s->buffer;

		struct rpt_cell c[] = {
			rpt_cell_i64(s->cpu, NULL), rpt_cell_u64(s->events, NULL),
			rpt_cell_u64(!r->windowed ? s->lost : s->lost_marked, NULL),
			rpt_cell_u64(s->markers, NULL),
			s->kernel ? rpt_cell_u64(s->overrun, NULL) : rpt_cell_none(),
			s->kernel ? rpt_cell_u64(s->commit_overrun, NULL) : rpt_cell_none(),
			s->kernel ? rpt_cell_u64(s->dropped, NULL) : rpt_cell_none(),
		};

		if (s->buffer_index != lastbuf) {
			fprintf(out, "\nbuffer %s%s%s\n", *bn ? "\"" : "", buf_label(bn),
				*bn ? "\"" : "");
			rpt_table_head(&stream_table, out);
			lastbuf = s->buffer_index;
		}
		rpt_table_text_row(&stream_table, out, c);
	}
	fputs("\ncomplete data (from the first record after the last loss marker)\n", out);
	for (k = 0; k < r->nstreams; k++) {
		const struct rpt_drops_stream *s = &r->streams[k];

		rpt_fit(nb, sizeof(nb), buf_label(s->buffer), 14);
		if (!s->events)
			fprintf(out, "  %-14s CPU %-3d no events\n", nb, s->cpu);
		else
			fprintf(out, "  %-14s CPU %-3d %s..%s%s\n", nb, s->cpu,
				rpt_fmt_ts(b1, sizeof(b1), s->complete_from),
				rpt_fmt_ts(b2, sizeof(b2), s->complete_to),
				s->drops_unmarked ? " (drops not marked)" : "");
	}
}

static void text_bpf_recorder(const struct rpt_drops_result *r, FILE *out)
{
	char nb[128];
	size_t j;

	if (r->nbpf) {
		fputs("\nBPF ring buffer reservation failures\n", out);
		rpt_table_head(&bpf_table, out);
		for (j = 0; j < r->nbpf; j++) {
			struct rpt_cell c[] = {
				rpt_cell_str(rpt_fit(nb, sizeof(nb),
						     r->bpf[j].name ? r->bpf[j].name : "?", 24)),
				rpt_cell_u64(r->bpf[j].cpu, NULL),
				rpt_cell_u64(r->bpf[j].count, NULL),
			};

			rpt_table_text_row(&bpf_table, out, c);
		}
	}
	if (r->nrecorder) {
		fputs("\nrecorder\n", out);
		for (j = 0; j < r->nrecorder; j++)
			fprintf(out, "  %-30s %12" PRIu64 "\n",
				rpt_fit(nb, sizeof(nb), r->recorder[j].name, 30),
				r->recorder[j].count);
	}
}

static void text_losses(const struct rpt_drops_result *r, FILE *out)
{
	char b1[32], b2[32], b3[32], nb[128];
	size_t j;

	if (!r->loss_markers)
		return;
	fputs("\nloss markers (events lost between the two times)\n", out);
	for (j = 0; j < r->nlosses && j < 20; j++) {
		const struct rpt_drops_loss *l = &r->losses[j];

		if (l->count < 0)
			snprintf(b3, sizeof(b3), "unknown");
		else
			snprintf(b3, sizeof(b3), "%" PRId64, l->count);
		fprintf(out, "  %-14s CPU %-3d %s..%s  %s\n",
			rpt_fit(nb, sizeof(nb), buf_label(l->buffer), 14), l->cpu,
			rpt_fmt_ts(b1, sizeof(b1), l->after_ts ? l->after_ts : l->ts),
			rpt_fmt_ts(b2, sizeof(b2), l->ts), b3);
	}
	if (r->nlosses > 20)
		fprintf(out, "  ... %zu more (see --json)\n", r->nlosses - 20);
}

static void text_windows(const struct rpt_drops_result *r, FILE *out)
{
	char b1[32], b3[32];
	int printed = 0, skipped = 0;
	size_t k;

	if (!r->window_ns || !(r->loss_markers || r->bpf_drops))
		return;
	fprintf(out, "\nper %s window (windows with loss)\n",
		rpt_fmt_dur(b3, sizeof(b3), r->window_ns));
	rpt_table_head(&window_table, out);
	for (k = 0; k < r->nwindows; k++) {
		const struct rpt_drops_window *w = &r->windows[k];
		struct rpt_cell c[NWINDOW_COLS];

		if (!w->markers && !w->bpf)
			continue;
		if (printed++ >= 40) {
			skipped++;
			continue;
		}
		window_cells(c, w, b1, sizeof(b1));
		rpt_table_text_row(&window_table, out, c);
	}
	if (skipped)
		fprintf(out, "  ... %d more windows with loss (see --json)\n", skipped);
}

static void text_affected(const struct rpt_drops_result *r, FILE *out)
{
	char nb[128];
	size_t j;

	if (r->ntypes) {
		fputs("\naffected event types (recorded on CPUs that lost events)\n", out);
		for (j = 0; j < r->ntypes && j < 10; j++)
			fprintf(out, "  %-40s %12" PRIu64 "\n",
				rpt_fit(nb, sizeof(nb), r->types[j].name, 40), r->types[j].count);
		if (r->ntypes > 10)
			fprintf(out, "  ... %zu more types\n", r->ntypes - 10);
	}
	if (r->nanalyses) {
		fputs("\naffected analyses\n", out);
		for (j = 0; j < r->nanalyses; j++)
			fprintf(out, "  %s\n", r->analyses[j]);
	}
	fputs("\nadvice\n", out);
	if (!r->nadvice)
		fputs("  nothing was lost: no change needed\n", out);
	for (j = 0; j < r->nadvice; j++)
		rpt_print_bullet(out, 76, r->advice[j]);
}

void rpt_drops_text(const struct rpt_drops_result *r, FILE *out)
{
	rpt_print_title(out, "Lost events in", r->path);
	text_flight(r, out);
	text_span(r, out);
	rpt_notes_clock(&r->notes, out);
	rpt_notes_damage(&r->notes, out);
	text_totals(r, out);
	text_streams(r, out);
	text_bpf_recorder(r, out);
	text_losses(r, out);
	text_windows(r, out);
	text_affected(r, out);
}

