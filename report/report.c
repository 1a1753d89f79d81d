// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap report: the event listing.
 *
 * With default options every event line is byte-for-byte the line
 * `trace-cmd report` (3.1.x) prints for the same file: same plugins (via
 * libtraceevent), same column layout and timestamp rounding, the same
 * "CPU:N [N EVENTS DROPPED]" markers, instance prefixes, and trace-cmd's own
 * function_graph printer (which merges a leaf entry with its exit).  Users
 * can diff the two.  --json writes one object per event with every field
 * decoded.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "cli.h"
#include "fastprint.h"
#include "format.h"
#include "replay.h"

struct report {
	struct fmt_reader *r;
	struct tep_handle *tep;
	const struct fmt_info *info;
	struct fmt_iter *it;
	struct rpt_fastprint *fast;	/* compiled formats; NULL falls back to libtraceevent */
	const struct fmt_event *cur;	/* event being printed (for the graph printer) */
	int prefix_width;		/* instance-name column, 0 when there is one buffer */
	bool nsecs;			/* -t */
	bool json;

	/* filters */
	char **events;
	int nevents;
	bool has_cpus;
	uint64_t cpu_mask[4];
	int *pids;
	int npids;
	char **comms;
	int ncomms;
	bool has_t0, has_t1;
	const char *t0_arg, *t1_arg;	/* resolved once the file's clock is known */
	uint64_t t0, t1;		/* compared with the time as printed (see shown_ts) */

	/* per event type: does it pass the -e filter? (0 unknown, 1 yes, 2 no) */
	uint8_t *type_ok;
	int type_ok_len;

	/* funcgraph */
	int fg_exit_id;
	struct tep_format_field *fg_exit_func, *fg_exit_calltime, *fg_exit_rettime;
};

/* ---- trace-cmd's function_graph printer ------------------------------------ */

static void graph_overhead(struct trace_seq *s, unsigned long long d)
{
	if (d == ~0ULL)
		trace_seq_puts(s, "  ");
	else if (d > 1000000000ULL)
		trace_seq_puts(s, "$ ");
	else if (d > 1000000ULL)
		trace_seq_puts(s, "# ");
	else if (d > 100000ULL)
		trace_seq_puts(s, "! ");
	else if (d > 10000ULL)
		trace_seq_puts(s, "+ ");
	else
		trace_seq_puts(s, "  ");
}

static void graph_duration(struct trace_seq *s, unsigned long long d)
{
	char buf[64];
	int w;

	w = snprintf(buf, sizeof(buf), "%llu", d / 1000);
	if (w < 7)
		w += snprintf(buf + w, sizeof(buf) - w, ".%03llu", d % 1000);
	trace_seq_puts(s, buf);
	trace_seq_puts(s, " us ");
	for (; w < 7; w++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

static void graph_func(struct trace_seq *s, struct tep_handle *tep, unsigned long long func,
		       const char *tail)
{
	const char *name = tep_find_function(tep, func);

	if (name)
		trace_seq_printf(s, "%s%s", name, tail);
	else
		trace_seq_printf(s, "%llx%s", func, tail);
}

static int graph_entry(struct trace_seq *s, struct tep_record *rec, struct tep_event *event, void *ctx)
{
	struct report *rp = ctx;
	struct tep_handle *tep = rp->tep;
	unsigned long long func, depth, pid, nfunc, npid, call, ret;
	const struct fmt_event *next;

	if (rp->fg_exit_id < 0)
		return -1;	/* no exit format: libtraceevent prints the raw format */
	if (tep_get_field_val(s, event, "func", rec, &func, 1) ||
	    tep_get_common_field_val(s, event, "common_pid", rec, &pid, 1))
		return trace_seq_putc(s, '!');
	if (tep_get_field_val(s, event, "depth", rec, &depth, 1))
		return trace_seq_putc(s, '!');
	if (depth > 1000)
		depth = 1000;

	/* a leaf: the next record of this buffer is our own exit */
	if (rp->it && fmt_iter_peek(rp->it, rp->cur->buffer, &next) == 1 && next->type == rp->fg_exit_id &&
	    next->event && !tep_read_number_field(rp->fg_exit_func, next->rec.data, &nfunc) &&
	    !tep_get_common_field_val(NULL, next->event, "common_pid", (struct tep_record *)&next->rec,
				      &npid, 0) &&
	    npid == pid && nfunc == func) {
		if (tep_read_number_field(rp->fg_exit_calltime, next->rec.data, &call) ||
		    tep_read_number_field(rp->fg_exit_rettime, next->rec.data, &ret))
			return trace_seq_putc(s, '!');
		fmt_iter_take_peeked(rp->it, &next);
		graph_overhead(s, ret - call);
		graph_duration(s, ret - call);
		trace_seq_printf(s, "%*s", (int)(depth * 2), "");
		graph_func(s, tep, func, "();");
		return 0;
	}
	trace_seq_puts(s, "  ");
	trace_seq_puts(s, "           |  ");
	trace_seq_printf(s, "%*s", (int)(depth * 2), "");
	graph_func(s, tep, func, "() {");
	return 0;
}

static int graph_exit(struct trace_seq *s, struct tep_record *rec, struct tep_event *event, void *ctx)
{
	unsigned long long depth, call, ret;

	if (tep_get_field_val(s, event, "calltime", rec, &call, 1) ||
	    tep_get_field_val(s, event, "rettime", rec, &ret, 1) ||
	    tep_get_field_val(s, event, "depth", rec, &depth, 1))
		return trace_seq_putc(s, '!');
	if (depth > 1000)
		depth = 1000;
	graph_overhead(s, ret - call);
	graph_duration(s, ret - call);
	trace_seq_printf(s, "%*s", (int)(depth * 2), "");
	trace_seq_putc(s, '}');
	return 0;
}

static void setup_graph(struct report *rp)
{
	struct tep_event *ent = fmt_reader_find_event(rp->r, "ftrace", "funcgraph_entry");
	struct tep_event *ex = fmt_reader_find_event(rp->r, "ftrace", "funcgraph_exit");

	rp->fg_exit_id = -1;
	if (ex) {
		rp->fg_exit_func = tep_find_field(ex, "func");
		rp->fg_exit_calltime = tep_find_field(ex, "calltime");
		rp->fg_exit_rettime = tep_find_field(ex, "rettime");
		if (rp->fg_exit_func && rp->fg_exit_calltime && rp->fg_exit_rettime)
			rp->fg_exit_id = ex->id;
		tep_register_event_handler(rp->tep, ex->id, "ftrace", "funcgraph_exit", graph_exit, rp);
	}
	if (ent)
		tep_register_event_handler(rp->tep, ent->id, "ftrace", "funcgraph_entry", graph_entry, rp);
}

/* ---- filters ------------------------------------------------------------------- */

/*
 * -e as `record -e` takes it: SYSTEM:NAME globs ("sched:*", "sched:" for
 * the whole system), or one word that is an event name or a system name
 * ("sched_switch", "sched", "sched_*").
 */
static bool event_matches(const char *pat, const char *system, const char *name)
{
	const char *colon = strchr(pat, ':');
	char full[512];

	if (!colon)
		return !fnmatch(pat, name, 0) || !fnmatch(pat, system, 0);
	if (!colon[1]) {
		snprintf(full, sizeof(full), "%.*s", (int)(colon - pat), pat);
		return !fnmatch(full, system, 0);
	}
	snprintf(full, sizeof(full), "%s:%s", system, name);
	return !fnmatch(pat, full, 0);
}

/*
 * The time a line shows, in ns: report prints microseconds rounded to the
 * nearest (trace-cmd's "%6llu" of (ts + 500) / 1000), so --from/--to
 * compare with that, and a time copied from a line selects that line.
 * With -t, or a raw-counter clock printed in ticks, the value is exact.
 */
static uint64_t shown_ts(const struct report *rp, uint64_t ts)
{
	if (rp->nsecs || !rp->info->clock_in_usecs)
		return ts;
	return (ts + 500) / 1000 * 1000;
}

static bool type_selected(struct report *rp, const struct fmt_event *ev)
{
	int i;
	uint8_t v;

	if (!rp->nevents)
		return true;
	if (ev->type < 0 || !ev->event)
		return false;
	if (ev->type < rp->type_ok_len && (v = rp->type_ok[ev->type]))
		return v == 1;
	v = 2;
	for (i = 0; i < rp->nevents; i++) {
		if (event_matches(rp->events[i], ev->event->system, ev->event->name)) {
			v = 1;
			break;
		}
	}
	if (ev->type < rp->type_ok_len)
		rp->type_ok[ev->type] = v;
	return v == 1;
}

static bool selected(struct report *rp, const struct fmt_event *ev)
{
	int i, pid;

	if (rp->has_t0 && shown_ts(rp, ev->rec.ts) < rp->t0)
		return false;
	if (rp->has_t1 && shown_ts(rp, ev->rec.ts) > rp->t1)
		return false;
	if (rp->has_cpus && (ev->rec.cpu >= 256 ||
			     !(rp->cpu_mask[ev->rec.cpu / 64] & (1ULL << (ev->rec.cpu % 64)))))
		return false;
	if (!type_selected(rp, ev))
		return false;
	if (!rp->npids && !rp->ncomms)
		return true;
	pid = ev->event ? tep_data_pid(rp->tep, (struct tep_record *)&ev->rec) : -1;
	for (i = 0; i < rp->npids; i++)
		if (pid == rp->pids[i])
			return true;
	if (rp->ncomms && pid >= 0) {
		const char *comm = tep_data_comm_from_pid(rp->tep, pid);

		for (i = 0; i < rp->ncomms; i++)
			if (comm && !fnmatch(rp->comms[i], comm, 0))
				return true;
	}
	return false;
}

/* ---- text output ------------------------------------------------------------------- */

/* The event's own text: compiled formatter when it handles the type, else libtraceevent. */
static void print_info(struct report *rp, struct trace_seq *s, const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;

	rp->cur = ev;
	if (rp->fast && rpt_fastprint_info(rp->fast, s, ev->event, rec))
		return;
	tep_print_event(rp->tep, s, rec, "%s", TEP_PRINT_INFO);
}

/* unsigned decimal, zero-padded to width (0: none); a leading '-' if neg */
static char *put_udec(char *p, unsigned long long v, int width, bool neg)
{
	char tmp[24];
	int n = 0;

	if (neg) {
		/* pids are never negative in practice; keep printf's answer for the odd case */
		return p + sprintf(p, "%d", -(int)v);
	}
	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "%5llu.%0*llu" */
static char *put_secs(char *p, unsigned long long secs, unsigned long long frac, int digits)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + secs % 10;
		secs /= 10;
	} while (secs);
	while (n < 5)
		tmp[n++] = ' ';
	while (n)
		*p++ = tmp[--n];
	*p++ = '.';
	return put_udec(p, frac, digits, false);
}

static void print_event(struct report *rp, struct trace_seq *s, const struct fmt_event *ev)
{
	const struct fmt_info *in = rp->info;
	struct tep_record *rec = (struct tep_record *)&ev->rec;

	trace_seq_reset(s);
	if (rp->prefix_width) {
		const char *name = in->buffers[ev->buffer].name;

		if (name[0])
			trace_seq_printf(s, "%*s: ", rp->prefix_width, name);
		else
			trace_seq_printf(s, "%*s  ", rp->prefix_width, "");
	}
	if (ev->rec.missed_events > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->rec.cpu,
				 (long long)ev->rec.missed_events);
	else if (ev->rec.missed_events < 0)
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->rec.cpu);

	if (!ev->event) {
		/* exactly what libtraceevent makes of an unknown ID in trace-cmd's four calls */
		trace_seq_puts(s, "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               [UNKNOWN EVENT]");
	} else {
		int pid = tep_data_pid(rp->tep, rec);
		const char *comm = tep_data_comm_from_pid(rp->tep, pid);
		size_t nl = strlen(ev->event->name);

		char line[256], *p = line;

		/* "%16s-%-5d [%03d]", the time column and " name: " padded to 20, by hand:
		 * this runs for every event and printf dominated the profile */
		{
			size_t cl = strlen(comm);

			if (cl > 128)
				cl = 128;
			if (cl < 16) {
				memset(p, ' ', 16 - cl);
				p += 16 - cl;
			}
			memcpy(p, comm, cl);
			p += cl;
			*p++ = '-';
			p = put_udec(p, pid < 0 ? 0 : (unsigned long long)pid, 0, pid < 0);
			while (p - line < (long)(cl < 16 ? 16 : cl) + 6)
				*p++ = ' ';
			*p++ = ' ';
			*p++ = '[';
			p = put_udec(p, (unsigned)ev->rec.cpu, 3, false);
			*p++ = ']';
		}
		if (rp->nsecs && in->clock_in_usecs) {
			*p++ = ' ';
			p = put_secs(p, ev->rec.ts / 1000000000ULL, ev->rec.ts % 1000000000ULL, 9);
			*p++ = ':';
		} else if (in->clock_in_usecs) {
			unsigned long long us = (ev->rec.ts + 500) / 1000;

			*p++ = ' ';
			p = put_secs(p, us / 1000000, us % 1000000, 6);
			*p++ = ':';
		} else {
			p += snprintf(p, 32, "%12llu:", (unsigned long long)ev->rec.ts);
		}
		*p++ = ' ';
		if (nl > 64)
			nl = 64;
		memcpy(p, ev->event->name, nl);
		p += nl;
		*p++ = ':';
		*p++ = ' ';
		if (nl < 20) {
			memset(p, ' ', 20 - nl);
			p += 20 - nl;
		}
		*p = 0;
		trace_seq_puts(s, line);
		print_info(rp, s, ev);
	}
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	fwrite(s->buffer, 1, s->len, stdout);
	putchar('\n');
}

/* ---- JSON output --------------------------------------------------------------------- */

/*
 * JSON numbers are doubles to most readers (jq, JavaScript): exact only up
 * to 2^53.  Larger integers go out as strings so no digit is lost:
 * unsigned ones (addresses, masks, ids) in hex, "0xffffffff81100810",
 * signed ones in decimal.
 */
#define JSON_EXACT_MAX (1ULL << 53)

static void json_int(unsigned long long v, bool is_signed)
{
	if (is_signed) {
		long long sv = (long long)v;

		if (sv > (long long)JSON_EXACT_MAX || sv < -(long long)JSON_EXACT_MAX)
			printf("\"%lld\"", sv);
		else
			printf("%lld", sv);
	} else if (v > JSON_EXACT_MAX) {
		printf("\"0x%llx\"", v);
	} else {
		printf("%llu", v);
	}
}

static void json_field(struct report *rp, struct tep_format_field *f, const struct fmt_event *ev)
{
	const uint8_t *data = ev->rec.data;
	int size = ev->rec.size;
	unsigned int off = f->offset, len = f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v;

		if (off + 4 > (unsigned)size || tep_read_number_field(f, data, &v)) {
			fputs("null", stdout);
			return;
		}
		off = (unsigned)v & 0xffff;
		len = (unsigned)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (off > (unsigned)size || len > (unsigned)size - off) {
		fputs("null", stdout);
		return;
	}
	if (f->flags & TEP_FIELD_IS_STRING || ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char"))) {
		ft_json_strn(stdout, (const char *)data + off, len);
		return;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY || f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int esz = f->elementsize > 0 && f->elementsize <= 8 ? f->elementsize : 1, i;

		putchar('[');
		for (i = 0; i + esz <= len; i += esz) {
			unsigned long long v = tep_read_number(rp->tep, data + off + i, esz);

			if (i)
				putchar(',');
			json_int(v, false);
		}
		putchar(']');
		return;
	}
	if (len == 1 || len == 2 || len == 4 || len == 8) {
		unsigned long long v = tep_read_number(rp->tep, data + off, len);

		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv = len == 1 ? (int8_t)v : len == 2 ? (int16_t)v : len == 4 ? (int32_t)v
											: (long long)v;
			json_int((unsigned long long)sv, true);
		} else {
			json_int(v, false);
		}
		return;
	}
	fputs("null", stdout);
}

static void print_json(struct report *rp, struct trace_seq *s, const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;
	int i;

	/* ns since boot stay below 2^53 (104 days); a DATE offset can pass it */
	if (ev->rec.ts > JSON_EXACT_MAX)
		printf("{\"ts\":\"%" PRIu64 "\",\"cpu\":%d", (uint64_t)ev->rec.ts, ev->rec.cpu);
	else
		printf("{\"ts\":%" PRIu64 ",\"cpu\":%d", (uint64_t)ev->rec.ts, ev->rec.cpu);
	if (rp->info->nbuffers > 1) {
		fputs(",\"buffer\":", stdout);
		ft_json_str(stdout, rp->info->buffers[ev->buffer].name);
	}
	if (ev->rec.missed_events)
		printf(",\"lost\":%lld", (long long)ev->rec.missed_events);
	if (!ev->event) {
		printf(",\"id\":%d,\"event\":null}\n", ev->type);
		return;
	}
	{
		int pid = tep_data_pid(rp->tep, rec);

		printf(",\"pid\":%d,\"comm\":", pid);
		ft_json_str(stdout, tep_data_comm_from_pid(rp->tep, pid));
	}
	fputs(",\"system\":", stdout);
	ft_json_str(stdout, ev->event->system);
	fputs(",\"event\":", stdout);
	ft_json_str(stdout, ev->event->name);
	fputs(",\"fields\":{", stdout);
	for (i = 0; i < ev->event->format.nr_fields; i++) {
		struct tep_format_field *f = ev->event->format.fields;
		int k;

		for (k = 0; k < i && f; k++)
			f = f->next;
		if (!f)
			break;
		if (i)
			putchar(',');
		ft_json_str(stdout, f->name);
		putchar(':');
		json_field(rp, f, ev);
	}
	fputs("},\"text\":", stdout);
	trace_seq_reset(s);
	print_info(rp, s, ev);
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	ft_json_strn(stdout, s->buffer, s->len);
	fputs("}\n", stdout);
}

/* ---- latency-format files ------------------------------------------------------------- */

struct lat_out {
	bool json;
	char *text;
	size_t len, cap;
};

/* trace-cmd prints each block it reads with "%.*s": up to the block's first NUL */
static int lat_block(void *arg, const char *text, size_t len)
{
	struct lat_out *lo = arg;
	size_t n = strnlen(text, len);

	if (!lo->json) {
		fwrite(text, 1, n, stdout);
		return ferror(stdout) ? -EIO : 0;
	}
	if (lo->len + n + 1 > lo->cap) {
		size_t cap = (lo->len + n + 1) * 2;
		char *p = realloc(lo->text, cap);

		if (!p)
			return -ENOMEM;
		lo->text = p;
		lo->cap = cap;
	}
	memcpy(lo->text + lo->len, text, n);
	lo->len += n;
	return 0;
}

/*
 * A latency tracer's file holds the text of its "trace" file, not events:
 * print it as trace-cmd does (the cpus= line, the text, a newline), or as
 * one JSON object.
 */
static int report_latency(struct report *rp, const char *path)
{
	struct lat_out lo = { .json = rp->json };
	int err, rc = EXIT_OK;

	if (rp->nevents || rp->has_cpus || rp->npids || rp->ncomms || rp->has_t0 || rp->has_t1)
		ft_warn("'%s' is a latency-format file (text, no events): the filters do not apply", path);
	if (!rp->json)
		printf("cpus=%d\n", rp->info->cpus);
	err = fmt_reader_latency_read(rp->r, lat_block, &lo);
	if (rp->json) {
		printf("{\"format\":\"latency\",\"cpus\":%d,\"text\":", rp->info->cpus);
		ft_json_strn(stdout, lo.text ? lo.text : "", lo.len);
		fputs("}\n", stdout);
	} else {
		putchar('\n');
	}
	if (err) {
		fflush(stdout);
		rc = ft_error("'%s': %s", path, fmt_reader_error(rp->r)[0] ? fmt_reader_error(rp->r)
								: strerror(-err));
	} else if (rp->info->truncated_at) {
		fflush(stdout);
		rc = ft_error("'%s': the file is truncated (it stops at byte offset %llu); "
			      "the text it held up to there is printed above", path,
			      (unsigned long long)rp->info->truncated_at);
	}
	free(lo.text);
	return rc;
}

/* ---- command ------------------------------------------------------------------------- */

static const char usage_text[] =
	"usage: flytrap report [options] [FILE]\n"
	"\n"
	"List the events of a trace.dat (default ./trace.dat) in time order, one line\n"
	"each, exactly as `trace-cmd report` prints them.\n"
	"\n"
	"  -i FILE            input file (same as the FILE argument)\n"
	"  -e, --event EVENT  only these events: NAME, SYSTEM or SYSTEM:NAME, globs\n"
	"                     allowed (sched, sched:*, sched_sw*); repeatable\n"
	"      --cpu LIST     only these CPUs (e.g. 0,2-3)\n"
	"  -P, --pid PID[,PID...]  only events of these pids; repeatable\n"
	"      --comm GLOB    only events of tasks whose name matches; repeatable\n"
	"      --from TIME    only events at or after this time, as printed (seconds,\n"
	"                     or clock ticks on a raw-counter clock)\n"
	"      --to TIME      only events at or before this time, as printed\n"
	"  -t                 nanosecond timestamps\n"
	"      --json         one JSON object per event, every field decoded\n"
	"  -v, --verbose      more messages on stderr\n"
	"  -h, --help         this help\n";

int rpt_check_args(int argc, char **argv, const char *shorts, const struct option *lopts)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--", 2)) {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			const struct option *o;

			for (o = lopts; o->name; o++)
				if (strlen(o->name) == n && !strncmp(o->name, a + 2, n))
					break;
			if (!o->name)
				return ft_usage_error("unknown option '%.*s'", (int)n + 2, a);
			if (o->has_arg == no_argument && eq)
				return ft_usage_error("option '--%s' takes no value", o->name);
			if (o->has_arg == required_argument && !eq) {
				if (i + 1 >= argc)
					return ft_usage_error("option '--%s' needs a value", o->name);
				i++;
			}
			continue;
		}
		if (a[0] != '-' || !a[1])
			continue;	/* a file name */
		for (a++; *a; a++) {
			const char *sp = *a == ':' ? NULL : strchr(shorts, *a);

			if (!sp)
				return ft_usage_error("unknown option '-%c'", *a);
			if (sp[1] == ':') {
				if (!a[1] && i + 1 >= argc)
					return ft_usage_error("option '-%c' needs a value", *a);
				if (!a[1])
					i++;
				break;
			}
		}
	}
	return 0;
}

/*
 * Seconds as report prints them ("1464.221523", "12.5", "7"), exactly to
 * the ns: strtod would round a 20-digit ns count.  At most 9 decimals.
 */
static int parse_time_exact(const char *s, uint64_t *ns)
{
	uint64_t secs = 0, frac = 0;
	int digits = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (secs > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -EINVAL;
		secs = secs * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (!digits)
			return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return 0;
}

/* a raw counter's tick count as report prints it: decimal digits */
static int parse_ticks(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* --from/--to once the clock is known: seconds on a ns clock, ticks on a raw counter */
static int resolve_times(struct report *rp)
{
	const char *names[2] = { "--from", "--to" }, *args[2] = { rp->t0_arg, rp->t1_arg };
	uint64_t *vals[2] = { &rp->t0, &rp->t1 };
	int k;

	for (k = 0; k < 2; k++) {
		if (!args[k])
			continue;
		if (rp->info->clock_in_usecs ? parse_time_exact(args[k], vals[k])
					     : parse_ticks(args[k], vals[k]))
			return rp->info->clock_in_usecs ?
				ft_usage_error("%s %s: give a time in seconds as report prints it, e.g. 12.5",
					       names[k], args[k]) :
				ft_usage_error("%s %s: this file's clock (%s) is a raw counter, give clock ticks "
					       "as report prints them (an integer)", names[k], args[k],
					       rp->info->clock[0] ? rp->info->clock : "raw");
	}
	if (rp->has_t0 && rp->has_t1 && rp->t0 > rp->t1)
		return ft_usage_error("--from is after --to");
	return 0;
}

struct match_scan {
	struct report *rp;
	bool *matched;
};

static int match_format(void *arg, const char *system, const char *text, size_t len)
{
	struct match_scan *m = arg;
	const char *p = memmem(text, len, "name: ", 6);
	char name[256];
	size_t n;
	int i;

	if (!p)
		return 0;
	p += 6;
	n = strcspn(p, "\n");
	if (n >= sizeof(name) || (size_t)(p - text) + n > len)
		return 0;
	memcpy(name, p, n);
	name[n] = 0;
	for (i = 0; i < m->rp->nevents; i++)
		if (!m->matched[i] && event_matches(m->rp->events[i], system, name))
			m->matched[i] = true;
	return 0;
}

/* A -e that names nothing in the file is most likely a typo: say so (once each). */
static void warn_unmatched(struct report *rp, const char *path)
{
	struct match_scan m = { .rp = rp };
	int i;

	if (!rp->nevents)
		return;
	m.matched = calloc(rp->nevents, sizeof(bool));
	if (!m.matched)
		return;
	fmt_reader_formats(rp->r, match_format, &m);
	for (i = 0; i < rp->nevents; i++)
		if (!m.matched[i])
			ft_warn("-e '%s' matches no event type in '%s' (give NAME, SYSTEM or SYSTEM:NAME, "
				"globs allowed; `flytrap info` lists the file's events)", rp->events[i], path);
	free(m.matched);
}

static int push_str(char ***arr, int *n, const char *s)
{
	char **p = realloc(*arr, (*n + 1) * sizeof(char *));

	if (!p)
		return -ENOMEM;
	*arr = p;
	p[(*n)++] = (char *)s;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'P' },
		{ "comm", required_argument, NULL, 'C' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct report rp = { 0 };
	const char *path = NULL;
	struct trace_seq s;
	char *err_text = NULL;
	int c, err, rc = EXIT_OK, i;
	uint64_t nprinted = 0;

	opterr = 0;
	optind = 1;
	if (rpt_check_args(argc, argv, "i:e:P:tvh", lopts))
		return EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "i:e:P:tvh", lopts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'i':
			if (path)
				return ft_usage_error("more than one input file given");
			path = optarg;
			break;
		case 'e':
			if (!*optarg)
				return ft_usage_error("-e/--event needs an event name, system or glob");
			if (push_str(&rp.events, &rp.nevents, optarg))
				return ft_error("out of memory");
			break;
		case 'c':
			if (ft_parse_cpulist(optarg, rp.cpu_mask))
				return ft_usage_error("--cpu needs a CPU list such as 0,2-3 (CPUs 0-255), not '%s'",
						      optarg);
			rp.has_cpus = true;
			break;
		case 'P': {
			/* as the analyzers' --pid: decimal ids, comma-separated, repeatable */
			const char *q = optarg;

			if (!*q)
				return ft_usage_error("--pid needs a process id");
			while (*q) {
				char *end;
				long pid;
				int *np;

				errno = 0;
				pid = *q >= '0' && *q <= '9' ? strtol(q, &end, 10) : -1;
				if (pid < 0 || errno || pid > INT32_MAX || (*end && *end != ','))
					return ft_usage_error("--pid needs process ids such as 42 or 42,43, not '%s'",
							      optarg);
				np = realloc(rp.pids, (rp.npids + 1) * sizeof(int));
				if (!np)
					return ft_error("out of memory");
				rp.pids = np;
				rp.pids[rp.npids++] = (int)pid;
				q = *end ? end + 1 : end;
			}
			break;
		}
		case 'C':
			if (!*optarg)
				return ft_usage_error("--comm needs a task name or glob");
			if (push_str(&rp.comms, &rp.ncomms, optarg))
				return ft_error("out of memory");
			break;
		case 'F':
			if (parse_time_exact(optarg, &v) && parse_ticks(optarg, &v))
				return ft_usage_error("--from needs a time as report prints it, e.g. 12.5 or "
						      "1464.221523 (seconds), or clock ticks, not '%s'", optarg);
			rp.t0_arg = optarg;
			rp.has_t0 = true;
			break;
		case 'T':
			if (parse_time_exact(optarg, &v) && parse_ticks(optarg, &v))
				return ft_usage_error("--to needs a time as report prints it, e.g. 12.5 or "
						      "1464.221523 (seconds), or clock ticks, not '%s'", optarg);
			rp.t1_arg = optarg;
			rp.has_t1 = true;
			break;
		case 't':
			rp.nsecs = true;
			break;
		case 'j':
			rp.json = true;
			break;
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return ft_finish_stdout(EXIT_OK);
		default:	/* rpt_check_args() let nothing wrong through */
			return ft_usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (ft_input_path(argc, argv, &path))
		return EXIT_USAGE;

	err = fmt_reader_open(path, FMT_OPEN_LAZY_FORMATS, &rp.r, &err_text);
	if (err) {
		ft_error("%s", err_text ? err_text : strerror(-err));
		free(err_text);
		rc = EXIT_FAIL;
		goto out;
	}
	rp.tep = fmt_reader_tep(rp.r);
	rp.info = fmt_reader_info(rp.r);
	rc = resolve_times(&rp);
	if (rc)
		goto out;
	warn_unmatched(&rp, path);
	if (rp.has_cpus)
		rpt_warn_cpus(rp.info, rp.cpu_mask, path);	/* as the analyzers say it */
	for (i = 0; i < rp.info->nbuffers; i++)
		if (rp.info->buffers[i].cpu_ids_guessed)
			ft_warn("'%s': buffer \"%s\" was rebuilt from a cut file and its CPU numbers are "
				"guesses (numbered in file order)", path, rp.info->buffers[i].name);
	rp.type_ok_len = 65536;
	rp.type_ok = calloc(rp.type_ok_len, 1);
	if (!rp.type_ok) {
		rc = ft_error("out of memory");
		goto out;
	}
	for (i = 1; i < rp.info->nbuffers; i++) {
		int l = (int)strlen(rp.info->buffers[i].name);

		if (l > rp.prefix_width)
			rp.prefix_width = l;
	}
	if (rp.info->nbuffers > 1 && !rp.prefix_width)
		rp.prefix_width = 1;
	setup_graph(&rp);
	/* the graph printer and other registered handlers stay with libtraceevent */
	if (!getenv("FLYTRAP_NO_FASTPRINT"))
		rp.fast = rpt_fastprint_new(rp.tep);

	static char obuf[1 << 20];

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (rp.info->latency.present) {
		rc = report_latency(&rp, path);
		goto out;
	}
	if (!rp.json) {
		/* trace-cmd: the larger of CPUCOUNT and the top buffer's CPU slots */
		int cpus = rp.info->cpus;
		const struct fmt_buffer *top = &rp.info->buffers[0];

		for (i = 0; i < top->ncpus; i++)
			if (top->cpus[i].cpu + 1 > cpus)
				cpus = top->cpus[i].cpu + 1;
		printf("cpus=%d\n", cpus);
	}
	err = fmt_iter_new(rp.r, NULL, &rp.it);
	if (err) {
		rc = ft_error("'%s': %s", path, fmt_reader_error(rp.r)[0] ? fmt_reader_error(rp.r)
								      : strerror(-err));
		goto out;
	}
	trace_seq_init(&s);
	for (;;) {
		const struct fmt_event *ev;

		err = fmt_iter_next(rp.it, &ev);
		if (err == 0)
			break;
		if (err < 0) {
			/*
			 * One error says why the exit fails; a second damaged stream
			 * is a detail of the same verdict, so it is a warning.
			 */
			fflush(stdout);
			if (rc == EXIT_OK)
				ft_error("'%s': %s", path, fmt_reader_error(rp.r));
			else
				ft_warn("'%s': another damaged CPU stream: %s", path, fmt_reader_error(rp.r));
			rc = EXIT_FAIL;
			continue;	/* the other CPUs still have readable events */
		}
		if (!selected(&rp, ev))
			continue;
		if (rp.json)
			print_json(&rp, &s, ev);
		else
			print_event(&rp, &s, ev);
		nprinted++;
		if (ferror(stdout))
			break;
	}
	trace_seq_destroy(&s);
	ft_info("%llu events printed", (unsigned long long)nprinted);
	if (rp.info->nbad_formats)
		ft_warn("'%s': %d event format(s) could not be parsed safely; their events printed as unknown",
			path, rp.info->nbad_formats);
	if (rp.info->truncated_at && rc == EXIT_OK)
		rc = ft_error("'%s': the file is truncated (it stops at byte offset %llu); "
			      "what it held up to there is printed above", path,
			      (unsigned long long)rp.info->truncated_at);
out:
	if (rp.fast && ft_verbose) {
		struct rpt_fastprint_stats st;

		rpt_fastprint_stats(rp.fast, &st);
		ft_info("compiled formats printed %llu events (%d types), libtraceevent %llu (%d types)",
			(unsigned long long)st.fast, st.types_fast, (unsigned long long)st.declined,
			st.types_declined);
	}
	rpt_fastprint_free(rp.fast);
	fmt_iter_free(rp.it);
	fmt_reader_close(rp.r);
	free(rp.events);
	free(rp.pids);
	free(rp.comms);
	free(rp.type_ok);
	return ft_finish_stdout(rc);
}
