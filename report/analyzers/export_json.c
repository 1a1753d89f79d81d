// SPDX-License-Identifier: GPL-2.0-only
/*
 * How one Chrome trace event is written (the format the Perfetto UI and
 * chrome://tracing load): the events' heads, slices as B/E pairs, instants,
 * metadata, and the closing otherData.  export.c decides what to write.
 */
#include <stdint.h>
#include <string.h>

#include "flytrap.h"
#include "report/analyzers/export_int.h"

/* Start an event on the track pid/tid: {"ph":"P","ts":T,"pid":P,"tid":T */
void exp_ev(struct exp *x, char ph, uint64_t ts, int32_t pid, int32_t tid)
{
	struct rpt_json *j = &x->j;

	exp_ev_head(x, ph, ts);
	RPT_JSON_KEY_LIT(j, "pid");
	rpt_json_i64(j, pid);
	RPT_JSON_KEY_LIT(j, "tid");
	rpt_json_i64(j, tid);
}

/* An instant event on pid/tid, open for its args: ..."s":"t","name":NAME */
void exp_instant(struct exp *x, uint64_t ts, int32_t pid, int32_t tid, const char *scope,
		      const char *name, size_t namelen)
{
	exp_ev(x, 'i', ts, pid, tid);
	rpt_json_kstr(&x->j, "s", scope);
	rpt_json_key(&x->j, "name");
	rpt_json_strn(&x->j, name, namelen);
}

/* The args of an entry whose exit is not in the trace, closing its event. */
void exp_no_exit_end(struct rpt_json *j)
{
	rpt_json_kobj(j, "args");
	rpt_json_kstr(j, "exit", "not in the trace");
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
}

/*
 * Start the args of the next slice: the writer of x->a, empty (no args)
 * until an object is written into it; exp_slice_pair() copies it into both
 * events of the slice.
 */
struct rpt_json *exp_args_begin(struct exp *x)
{
	rpt_json_reset(&x->a);
	return &x->a;
}

/* v in decimal (a sign first when negative), written backwards from end (12 bytes of room) */
static char *i32_text(char *end, int32_t v)
{
	uint32_t u = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;

	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--end = '-';
	return end;
}

/* "pid":P,"tid":T into buf (at least 40 bytes); its length */
static size_t pid_tid_text(char *buf, int32_t pid, int32_t tid)
{
	char t[12], *p;
	size_t n = 0, k;

	memcpy(buf, "\"pid\":", 6);
	n = 6;
	p = i32_text(t + sizeof(t), pid);
	k = (size_t)(t + sizeof(t) - p);
	memcpy(buf + n, p, k);
	n += k;
	memcpy(buf + n, ",\"tid\":", 7);
	n += 7;
	p = i32_text(t + sizeof(t), tid);
	k = (size_t)(t + sizeof(t) - p);
	memcpy(buf + n, p, k);
	return n + k;
}

/*
 * One slice from start to end on the track pid/tid: a B and an E event
 * with the same name, cat and args (x->a, when it holds anything).
 */
void exp_slice_pair(struct exp *x, int32_t pid, int32_t tid, uint64_t start, uint64_t end,
		       const char *name, size_t namelen, const char *cat)
{
	struct rpt_json *j = &x->j;
	char pt[40];
	size_t ptlen = pid_tid_text(pt, pid, tid);	/* once for both events */
	int k;

	for (k = 0; k < 2; k++) {
		exp_ev_head(x, k ? 'E' : 'B', k ? end : start);
		rpt_json_members(j, pt, ptlen);
		RPT_JSON_KEY_LIT(j, "name");
		rpt_json_strn(j, name, namelen);
		RPT_JSON_KEY_LIT(j, "cat");
		rpt_json_value(j, cat, strlen(cat));
		if (x->a.len) {
			RPT_JSON_KEY_LIT(j, "args");
			rpt_json_value(j, x->a.buf, x->a.len);
		}
		rpt_json_obj_end(j);
	}
}

void exp_meta_name(struct exp *x, const char *what, int32_t pid, int32_t tid, const char *name)
{
	exp_ev(x, 'M', 0, pid, tid);
	rpt_json_kstr(&x->j, "name", what);
	rpt_json_kobj(&x->j, "args");
	rpt_json_kstr(&x->j, "name", name);
	rpt_json_obj_end(&x->j);
	rpt_json_obj_end(&x->j);
}

void exp_meta_sort(struct exp *x, const char *what, int32_t pid, int32_t tid, int64_t idx)
{
	exp_ev(x, 'M', 0, pid, tid);
	rpt_json_kstr(&x->j, "name", what);
	rpt_json_kobj(&x->j, "args");
	rpt_json_ki64(&x->j, "sort_index", idx);
	rpt_json_obj_end(&x->j);
	rpt_json_obj_end(&x->j);
}

/* The end of the event list, and the figures of the export (otherData). */
void exp_trace_end(struct exp *x, const struct rpt_ctx *ctx)
{
	struct rpt_json *j = &x->j;

	RPT_JSON_LIT(j, "\n");
	rpt_json_arr_end(j);
	rpt_json_newline(j);
	rpt_json_kobj(j, "otherData");
	rpt_json_kstr(j, "generator", "flytrap " FLYTRAP_VERSION);
	rpt_json_kstr(j, "source", ctx->opts->path);
	rpt_json_key(j, "ts_offset_us");
	rpt_json_milli(j, x->base);
	rpt_json_ku64(j, "events", ctx->nevents);
	rpt_json_ku64(j, "slices", x->slices + x->completes);
	rpt_json_ku64(j, "cpu_slices", x->sched_slices + x->irq_slices);
	rpt_json_ku64(j, "wakeups", x->flows);
	rpt_json_ku64(j, "exits_without_entry", x->orphans);
	rpt_json_ku64(j, "enters_without_exit", x->no_exit);
	rpt_json_ku64(j, "closed_at_task_exit", x->forced_ends);
	rpt_json_ku64(j, "not_nested", x->unnested + x->too_deep);
	rpt_json_ku64(j, "events_lost", x->lost_total);
	if (x->trigger) {
		rpt_json_key(j, "trigger");
		rpt_json_strn(j, x->trigger, x->trigger_len);
		rpt_json_key(j, "trigger_ts_us");
		exp_ts(x, j, x->trigger_ts);
	}
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
	RPT_JSON_LIT(j, "\n");
}
