// SPDX-License-Identifier: GPL-2.0-only
/*
 * report -w: wakeup latencies (wakeup.h).  The arithmetic and the summary's
 * rounding are trace-cmd's, so the two print the same.
 */
#include <stdio.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "report/listing/wakeup.h"

/* a task woken and not yet switched in */
struct rpt_wakeup_pending {
	uint64_t start;
	bool waiting;
};

bool rpt_wakeup_init(struct rpt_wakeup *w, struct fmt_reader *r, struct tep_handle *tep)
{
	struct tep_event *e;

	memset(w, 0, sizeof(*w));
	rpt_map_init(&w->woken, sizeof(struct rpt_wakeup_pending));
	w->all.min = w->rt.min = ~0ULL;
	w->wk_new_id = -1;
	if (fmt_reader_load_formats(r) < 0)
		return false;
	e = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	if (!e || !(w->wk_pid = tep_find_field(e, "pid")))
		return false;
	w->wk_id = e->id;
	w->wk_success = tep_find_field(e, "success");
	e = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (!e || !(w->sw_next_pid = tep_find_field(e, "next_pid")) ||
	    !(w->sw_next_prio = tep_find_field(e, "next_prio")))
		return false;
	w->sw_id = e->id;
	e = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	if (e) {
		if (!(w->wk_new_pid = tep_find_field(e, "pid")))
			return false;
		w->wk_new_id = e->id;
		w->wk_new_success = tep_find_field(e, "success");
	}
	return true;
}

static void sums_add(struct rpt_wakeup_sums *s, uint64_t lat, uint64_t ts)
{
	if (lat > s->max) {
		s->max = lat;
		s->max_ts = ts;
	}
	if (lat < s->min) {
		s->min = lat;
		s->min_ts = ts;
	}
	s->total += lat;
	s->count++;
}

/* A wakeup that succeeded (no success field: every one) notes its task's start. */
static void woken(struct rpt_wakeup *w, const struct fmt_event *ev, bool is_new)
{
	const void *data = ev->rec.data;
	unsigned long long val;
	struct rpt_wakeup_pending *p;

	if (!tep_read_number_field(is_new ? w->wk_new_success : w->wk_success, data, &val) &&
	    !val)
		return;
	if (tep_read_number_field(is_new ? w->wk_new_pid : w->wk_pid, data, &val))
		return;
	p = rpt_map_get(&w->woken, (uint64_t)(uint32_t)(int)val, NULL);
	if (p) {
		p->start = ev->rec.ts;
		p->waiting = true;
	}
}

void rpt_wakeup_event(struct rpt_wakeup *w, const struct fmt_event *ev, char *out, size_t outsz)
{
	const void *data = ev->rec.data;
	unsigned long long val;
	struct rpt_wakeup_pending *p;
	uint64_t lat;
	bool rt;

	out[0] = 0;
	if (ev->type == w->wk_id || (w->wk_new_id >= 0 && ev->type == w->wk_new_id)) {
		woken(w, ev, ev->type != w->wk_id);
		return;
	}
	if (ev->type != w->sw_id || tep_read_number_field(w->sw_next_prio, data, &val))
		return;
	rt = val <= 99;
	if (tep_read_number_field(w->sw_next_pid, data, &val))
		return;
	p = rpt_map_find(&w->woken, (uint64_t)(uint32_t)(int)val);
	if (!p || !p->waiting)
		return;
	p->waiting = false;
	lat = ev->rec.ts - p->start;
	sums_add(&w->all, lat, ev->rec.ts);
	if (rt)
		sums_add(&w->rt, lat, ev->rec.ts);
	snprintf(out, outsz, " Latency: %llu.%03llu usecs", (unsigned long long)(lat / 1000),
		 (unsigned long long)(lat % 1000));
}

static void print_sums(const struct rpt_wakeup_sums *s, FILE *f)
{
	unsigned long long avg = s->total / s->count;

	fprintf(f, "\nAverage wakeup latency: %llu.%03llu usecs\n", avg / 1000, avg % 1000);
	fprintf(f, "Maximum Latency: %llu.%03llu usecs at ", (unsigned long long)(s->max / 1000),
		(unsigned long long)(s->max % 1000));
	fprintf(f, "timestamp: %llu.%06llu\n", (unsigned long long)(s->max_ts / 1000000000),
		(unsigned long long)(((s->max_ts + 500) % 1000000000) / 1000));
	fprintf(f, "Minimum Latency: %llu.%03llu usecs at ", (unsigned long long)(s->min / 1000),
		(unsigned long long)(s->min % 1000));
	fprintf(f, "timestamp: %llu.%06llu\n\n", (unsigned long long)(s->min_ts / 1000000000),
		(unsigned long long)(((s->min_ts + 500) % 1000000000) / 1000));
}

void rpt_wakeup_print(const struct rpt_wakeup *w, FILE *f)
{
	if (!w->all.count)
		return;
	print_sums(&w->all, f);
	if (w->rt.count) {
		fprintf(f, "RT task timings:\n");
		print_sums(&w->rt, f);
	}
}

void rpt_wakeup_release(struct rpt_wakeup *w)
{
	rpt_map_release(&w->woken);
}
