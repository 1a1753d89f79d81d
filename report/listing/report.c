// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap report: the event listing.
 *
 * With default options every event line is byte-for-byte the line
 * `trace-cmd report` (3.1.x) prints for the same file: same plugins (via
 * libtraceevent), same column layout and timestamp rounding, the same
 * "CPU:N [N EVENTS DROPPED]" markers, instance prefixes, and trace-cmd's own
 * function_graph printer (which merges a leaf entry with its exit).  Users
 * can diff the two.  trace-cmd report's own options print what it prints:
 * -F/-v event filters through libtraceevent's filter parser, -R/-r/-N/-n/-O
 * for the print formats and plugins, -l, -w, the time options, several -i
 * files merged in time order, and the file-information outputs (--stat,
 * --uname, --cpus, ...).  --json writes one object per event with every
 * field decoded.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/listing/bpfmaps.h"
#include "report/listing/fastprint.h"
#include "report/listing/filter.h"
#include "report/listing/wakeup.h"
#include "format.h"
#include "report/core/replay.h"
#include "report/core/join.h"

struct report;

/*
 * The listing's text: every line is built in this one buffer and written
 * with write(2) when OUT_FLUSH bytes wait (no stdio, no allocation per
 * event).  err: the errno of a failed write (or ENOMEM); then nothing more
 * is kept.
 */
struct outbuf {
	char *buf;
	size_t len, cap;
	int err;
};
#define OUT_FLUSH (256u << 10)

/* per event type: what every line of that type repeats */
struct ltype {
	const char *name;	/* the event's name, as the line prints it (up to 64 bytes) */
	uint8_t nlen;
	uint8_t pid;		/* 0: not seen, 1: common_pid read here, 2: through libtraceevent */
	uint8_t pid_size;
	uint16_t pid_off;
	uint8_t lat;		/* 0: not seen, 1: flags column cached by its two bytes, 2: not */
	uint8_t fn;		/* 0: not looked at, 1: raw_fn/raw_off below are known */
	uint64_t raw_fn;	/* fields (by position) the format prints with %pS, %ps, %pF, %pf */
	uint64_t raw_off;	/* of those, the ones printed with their offset (%pS, %pF) */
};

/*
 * The flags column of trace-cmd 3.2 and later (libtraceevent's latency
 * text) by event type and the two bytes it reads, direct-mapped: there are
 * few distinct ones and this runs for every line.
 */
struct latcache {
	uint32_t key;		/* type << 16 | common_flags << 8 | common_preempt_count */
	uint8_t len;
	bool valid;
	char text[14];
};
#define LAT_SLOTS 4096

/* kernel function names of the graph printer, direct-mapped (they repeat) */
struct fncache {
	uint64_t addr;
	const char *name;	/* NULL: no symbol */
	bool valid;
};

/* comms of pids libtraceevent knows; a known pid keeps its comm (tep_register_comm) */
struct commcache {
	int pid;
	uint8_t len;
	bool valid;
	const char *comm;
};

/* One -F, in command-line order: -v before it makes it a negative filter. */
struct rfilter {
	const char *text;
	bool neg;
};

/* One input file (-i) and what trace-cmd keeps per handle. */
struct rinput {
	char *trigger;			/* a flight dump's "trigger=": --json marks it */
	uint64_t trigger_ts;
	bool trigger_marked;
	struct report *rp;
	const char *path;		/* as given */
	const char *base;		/* after the last '/': the multi-file prefix */
	struct fmt_reader *r;
	struct tep_handle *tep;
	const struct fmt_info *info;
	struct fmt_iter *it;
	struct rpt_fastprint *fast;	/* compiled formats; NULL falls back to libtraceevent */
	struct tep_plugin_list *plugins; /* -L: the local plugins loaded here */
	const struct fmt_event *cur;	/* event being printed (for the graph printer) */
	const struct fmt_event *pending; /* multi-file merge: next event of this file */
	int cpus;			/* the "cpus=" value */
	bool in_usecs;			/* secs.usecs time column (else the raw count) */
	bool use_trace_clock;		/* --ts-diff rounds to usecs */

	/* -F / -v of this file */
	struct rfilter *fstr;
	int nfstr;
	struct tep_event_filter **pos, **neg;
	struct rpt_evfilter **cpos, **cneg; /* their evaluators */
	int npos, nneg;
	bool stack_setup;		/* trace-cmd keeps showing a stack after a shown event */
	int kstack_id, ustack_id;
	bool last_printed[256];

	/* time options (--ts-offset after this -i, --ts2secs) */
	bool has_ts_offset;
	int64_t ts_offset;
	uint64_t ts2secs;

	/* per event type: does it pass -e? (0 unknown, 1 yes, 2 no) */
	uint8_t *type_ok;

	/* funcgraph */
	int fg_exit_id;
	struct tep_format_field *fg_exit_func, *fg_exit_calltime, *fg_exit_rettime;
	/* the printer's fields for the listing's own copy of it (graph_out); fg_fast: all usable */
	bool fg_fast;
	struct tep_event *fg_ent, *fg_ex;
	struct tep_format_field *fg_ent_func, *fg_ent_depth, *fg_ent_pid, *fg_ex_depth, *fg_ex_pid;
	struct fncache *fncache;	/* 256 slots, with fg_fast */

	/* the listing's caches */
	bool swap;			/* the file's byte order is not ours */
	struct ltype *ltypes;		/* 65536, on first use */
	struct latcache *lats;		/* LAT_SLOTS, on first use */
	struct commcache *comms;	/* COMM_SLOTS */
};
#define COMM_SLOTS 1024

struct report {
	struct rinput *in;
	int nin;
	struct outbuf out;		/* the text listing */
	int prefix_width;		/* file / instance-name column, 0 when none */
	bool multi;			/* several -i: every line names its file */
	bool nsecs;			/* -t */
	bool json;

	/* flytrap's selections */
	char **events;
	int nevents;
	struct rpt_opts sel;	/* --cpu --pid --comm --from --to, as the analyzers take them */
	struct rpt_json jout;		/* --json: the lines, through the one JSON writer */
	int threads;			/* --threads, 0: the cores available */
	uint64_t t0, t1;		/* compared with the time as printed (see shown_ts) */

	/* trace-cmd report's output options */
	bool raw;			/* -R */
	char **raw_events, **nohandler_events; /* -r, -n */
	int nraw_events, nnohandler_events;
	bool no_plugins, local_plugins;	/* -N, -L */
	bool plugin_opts;		/* -O given */
	bool no_irqs, no_softirqs;	/* -I, -S */
	bool latency;			/* -l */
	int compat;			/* the trace-cmd whose listing is printed: 31 (3.1.6), 33 (3.3.1) */
	bool test_filters;		/* -T */
	bool tsdiff, tscheck, raw_ts, align_ts, nodate;
	uint64_t ts2secs;		/* --ts2secs before a second -i: every file */
	uint64_t last_ts;		/* --ts-diff / --ts-check state */
	uint64_t check_ts;

	/* -w */
	bool wakeup;
	struct rpt_wakeup wk;
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

static int graph_entry(struct trace_seq *s, struct tep_record *rec, struct tep_event *event,
		       void *ctx)
{
	struct rinput *in = ctx;
	struct tep_handle *tep = in->tep;
	unsigned long long func, depth, pid, nfunc, npid, call, ret;
	const struct fmt_event *next;

	if (in->fg_exit_id < 0)
		return -1;	/* no exit format: libtraceevent prints the raw format */
	if (tep_get_field_val(s, event, "func", rec, &func, 1) ||
	    tep_get_common_field_val(s, event, "common_pid", rec, &pid, 1))
		return trace_seq_putc(s, '!');
	if (tep_get_field_val(s, event, "depth", rec, &depth, 1))
		return trace_seq_putc(s, '!');
	if (depth > 1000)
		depth = 1000;

	/* a leaf: the next record of this buffer is our own exit */
	if (in->it && in->cur && fmt_iter_peek(in->it, in->cur->buffer, &next) == 1 &&
	    next->type == in->fg_exit_id &&
	    next->event && !tep_read_number_field(in->fg_exit_func, next->rec.data, &nfunc) &&
	    !tep_get_common_field_val(NULL, next->event, "common_pid",
				      (struct tep_record *)&next->rec, &npid, 0) &&
	    npid == pid && nfunc == func) {
		if (tep_read_number_field(in->fg_exit_calltime, next->rec.data, &call) ||
		    tep_read_number_field(in->fg_exit_rettime, next->rec.data, &ret))
			return trace_seq_putc(s, '!');
		fmt_iter_take_peeked(in->it, &next);
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

static int graph_exit(struct trace_seq *s, struct tep_record *rec, struct tep_event *event,
		      void *ctx)
{
	unsigned long long depth, call, ret;

	(void)ctx;
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

/* a field tep_read_number_field() reads */
static bool num_field(const struct tep_format_field *f)
{
	return f && f->offset >= 0 &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static void setup_graph(struct rinput *in)
{
	struct tep_event *ent = fmt_reader_find_event(in->r, "ftrace", "funcgraph_entry");
	struct tep_event *ex = fmt_reader_find_event(in->r, "ftrace", "funcgraph_exit");

	in->fg_exit_id = -1;
	if (ex) {
		in->fg_exit_func = tep_find_field(ex, "func");
		in->fg_exit_calltime = tep_find_field(ex, "calltime");
		in->fg_exit_rettime = tep_find_field(ex, "rettime");
		if (in->fg_exit_func && in->fg_exit_calltime && in->fg_exit_rettime)
			in->fg_exit_id = ex->id;
		tep_register_event_handler(in->tep, ex->id, "ftrace", "funcgraph_exit",
					   graph_exit, in);
	}
	if (ent)
		tep_register_event_handler(in->tep, ent->id, "ftrace", "funcgraph_entry",
					   graph_entry, in);
	if (ent && ex && in->fg_exit_id >= 0) {
		in->fg_ent = ent;
		in->fg_ex = ex;
		in->fg_ent_func = tep_find_field(ent, "func");
		in->fg_ent_depth = tep_find_field(ent, "depth");
		in->fg_ent_pid = tep_find_common_field(ent, "common_pid");
		in->fg_ex_depth = tep_find_field(ex, "depth");
		in->fg_ex_pid = tep_find_common_field(ex, "common_pid");
		in->fncache = calloc(256, sizeof(*in->fncache));
		in->fg_fast = in->fncache && num_field(in->fg_ent_func) &&
			      num_field(in->fg_ent_depth) && num_field(in->fg_ent_pid) &&
			      num_field(in->fg_ex_depth) && num_field(in->fg_ex_pid) &&
			      num_field(in->fg_exit_func) && num_field(in->fg_exit_calltime) &&
			      num_field(in->fg_exit_rettime);
	}
}

/* ---- flytrap's selections ------------------------------------------------------- */

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
static uint64_t shown_ts(const struct report *rp, const struct rinput *in, uint64_t ts)
{
	if (rp->nsecs || !in->in_usecs)
		return ts;
	return (ts + 500) / 1000 * 1000;
}

static bool type_selected(struct report *rp, struct rinput *in, const struct fmt_event *ev)
{
	int i;
	uint8_t v;

	if (!rp->nevents)
		return true;
	if (ev->type < 0 || !ev->event)
		return false;
	if ((v = in->type_ok[ev->type]))
		return v == 1;
	v = 2;
	for (i = 0; i < rp->nevents; i++) {
		if (event_matches(rp->events[i], ev->event->system, ev->event->name)) {
			v = 1;
			break;
		}
	}
	in->type_ok[ev->type] = v;
	return v == 1;
}

/* trace-cmd's skip_record() (--cpu, -I, -S) and flytrap's own selections */
static bool selected(struct report *rp, struct rinput *in, const struct fmt_event *ev)
{
	int i, pid;

	if (rp->sel.has_cpus && (ev->rec.cpu >= 256 ||
			     !(rp->sel.cpu_mask[ev->rec.cpu / 64] & (1ULL << (ev->rec.cpu % 64)))))
		return false;
	if (rp->no_irqs || rp->no_softirqs) {
		int flags = tep_data_flags(in->tep, (struct tep_record *)&ev->rec);

		if (rp->no_irqs && (flags & 0x08))	/* TRACE_FLAG_HARDIRQ */
			return false;
		if (rp->no_softirqs && (flags & 0x10))	/* TRACE_FLAG_SOFTIRQ */
			return false;
	}
	if (rp->sel.has_t0 && shown_ts(rp, in, ev->rec.ts) < rp->t0)
		return false;
	if (rp->sel.has_t1 && shown_ts(rp, in, ev->rec.ts) > rp->t1)
		return false;
	if (!type_selected(rp, in, ev))
		return false;
	if (!rp->sel.npids && !rp->sel.ncomms)
		return true;
	pid = ev->event ? tep_data_pid(in->tep, (struct tep_record *)&ev->rec) : -1;
	for (i = 0; i < rp->sel.npids; i++)
		if (pid == rp->sel.pids[i])
			return true;
	if (rp->sel.ncomms && pid >= 0) {
		const char *comm = tep_data_comm_from_pid(in->tep, pid);

		for (i = 0; i < rp->sel.ncomms; i++)
			if (comm && !fnmatch(rp->sel.comms[i], comm, 0))
				return true;
	}
	return false;
}

/* ---- -F / -v: libtraceevent's event filters, combined as trace-cmd does --------- */

/*
 * trace-cmd's tracecmd_filter_match(): an event passes when a positive
 * filter matches it (or there is none), or when it is a kernel/user stack
 * right after an event of its CPU that was shown; then no negative filter
 * may match it.
 */
static bool filters_pass(struct rinput *in, const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;
	bool found = false;
	int i;

	if (!in->npos && !in->nneg)
		return true;
	if (!in->stack_setup) {
		struct tep_event *e;

		in->stack_setup = true;
		in->kstack_id = -1;
		if ((e = fmt_reader_find_event(in->r, "ftrace", "kernel_stack")))
			in->kstack_id = e->id;
		if ((e = fmt_reader_find_event(in->r, "ftrace", "user_stack")))
			in->ustack_id = e->id;
	}
	for (i = 0; i < in->npos && !found; i++)
		found = rpt_evfilter_hit(in->cpos[i], rec, ev->type);
	if (!found && in->npos) {
		bool stack = ev->rec.cpu >= 0 && ev->rec.cpu < 256 &&
			     in->last_printed[ev->rec.cpu] &&
			     ((in->kstack_id >= 0 && ev->type == in->kstack_id) ||
			      (in->ustack_id >= 0 && ev->type == in->ustack_id));

		if (!stack)
			return false;
	}
	found = false;
	for (i = 0; i < in->nneg && !found; i++)
		found = rpt_evfilter_hit(in->cneg[i], rec, ev->type);
	if (ev->rec.cpu >= 0 && ev->rec.cpu < 256)
		in->last_printed[ev->rec.cpu] = !found;
	return !found;
}

/*
 * trace-cmd adds an ftrace "blktrace" event when it opens a file's data
 * (its blk hack: the block tracer's records have no format file), right
 * after ftrace's power, kmem_free or user_stack event.  Its filters see that
 * event too, so the filters made here must.
 */
static void add_blktrace_event(struct rinput *in)
{
	static const char *const after[] = { "power", "kmem_free", "user_stack" };
	static const struct { const char *name; int offset, size; } common[] = {
		{ "common_type", 0, 2 }, { "common_flags", 2, 1 },
		{ "common_preempt_count", 3, 1 }, { "common_pid", 4, 4 },
	};
	struct tep_event *e = NULL;
	struct tep_format_field *f;
	char buf[2048];
	int i, n;

	for (i = 0; i < 3 && !e; i++)
		e = tep_find_event_by_name(in->tep, "ftrace", after[i]);
	if (!e)
		return;
	for (i = 0; i < 4; i++) {
		f = tep_find_common_field(e, common[i].name);
		if (!f || f->offset != common[i].offset || f->size != common[i].size)
			return;
	}
	n = snprintf(buf, sizeof(buf), "name: blktrace\nID: %d\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\n", e->id + 1);
	f = tep_find_common_field(e, "common_lock_depth");
	if (f) {
		if (f->offset != 8 || f->size != 4)
			return;
		n += snprintf(buf + n, sizeof(buf) - n,
			      "\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n");
	}
	n += snprintf(buf + n, sizeof(buf) - n, "\n"
		      "\tfield:u64 sector;\toffset:16;\tsize:8;\n"
		      "\tfield:int bytes;\toffset:24;\tsize:4;\n"
		      "\tfield:int action;\toffset:28;\tsize:4;\n"
		      "\tfield:int pid;\toffset:32;\tsize:4;\n"
		      "\tfield:int device;\toffset:36;\tsize:4;\n"
		      "\tfield:int cpu;\toffset:40;\tsize:4;\n"
		      "\tfield:short error;\toffset:44;\tsize:2;\n"
		      "\tfield:short pdu_len;\toffset:46;\tsize:2;\n"
		      "\tfield:void data;\toffset:48;\tsize:0;\n"
		      "\n"
		      "print fmt: \"%%d\", REC->pid\n");
	tep_parse_event(in->tep, buf, (unsigned long)n, "ftrace");
}

/*
 * Parse only the formats a filter can name: libtraceevent's filter looks
 * at the parsed events, and parsing every format of a file (a trace-cmd
 * file stores ~2000) costs more than listing a million events.  The event
 * part of a filter is split as tep_filter_add_filter_str() splits it
 * ("EV[,EV...]", each "SYSTEM/NAME" or "NAME", regexes matched whole and
 * case-blind, a lone NAME against systems too).
 */
struct fmt_name {
	char system[128], name[128];
};
struct name_scan {
	struct fmt_name *v;
	int n, cap;
};

static int collect_name(void *arg, const char *system, const char *text, size_t len)
{
	struct name_scan *ns = arg;
	const char *p = memmem(text, len, "name: ", 6);
	size_t n;

	if (!p)
		return 0;
	p += 6;
	n = strcspn(p, "\n");
	if (n >= sizeof(ns->v->name) || (size_t)(p - text) + n > len || strlen(system) >= 128)
		return 0;
	if (ns->n == ns->cap) {
		int cap = ns->cap ? ns->cap * 2 : 512;
		struct fmt_name *v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ns->v = v;
		ns->cap = cap;
	}
	memcpy(ns->v[ns->n].name, p, n);
	ns->v[ns->n].name[n] = 0;
	snprintf(ns->v[ns->n].system, sizeof(ns->v->system), "%s", system);
	ns->n++;
	return 0;
}

static char *trim(char *t)
{
	char *e;

	while (isspace((unsigned char)*t))
		t++;
	e = t + strlen(t);
	while (e > t && isspace((unsigned char)e[-1]))
		*--e = 0;
	return t;
}

/* 1: the event part of f names (system, name); 0: not; -1: a regex libtraceevent refuses too */
static int filter_names(const char *f, const char *system, const char *name)
{
	const char *colon = strchr(f, ':');
	size_t len = colon ? (size_t)(colon - f) : strlen(f);
	char *part = strndup(f, len), *save = NULL, *ev;
	int hit = 0;

	if (!part)
		return -1;
	for (ev = strtok_r(part, ",", &save); ev && !hit; ev = strtok_r(NULL, ",", &save)) {
		char *sp = NULL, *sys = strtok_r(ev, "/", &sp), *nm = strtok_r(NULL, "/", &sp),
		     re[300];
		regex_t sreg, ereg;

		if (!sys)
			continue;
		if (!nm) {
			nm = sys;
			sys = NULL;
		}
		snprintf(re, sizeof(re), "^%s$", trim(nm));
		if (regcomp(&ereg, re, REG_ICASE | REG_NOSUB)) {
			hit = -1;
			break;
		}
		if (sys) {
			snprintf(re, sizeof(re), "^%s$", trim(sys));
			if (regcomp(&sreg, re, REG_ICASE | REG_NOSUB)) {
				regfree(&ereg);
				hit = -1;
				break;
			}
			hit = !regexec(&sreg, system, 0, NULL, 0) &&
			      !regexec(&ereg, name, 0, NULL, 0);
			regfree(&sreg);
		} else {
			hit = !regexec(&ereg, system, 0, NULL, 0) ||
			      !regexec(&ereg, name, 0, NULL, 0);
		}
		regfree(&ereg);
	}
	free(part);
	return hit;
}

static int load_filter_formats(struct rinput *in)
{
	struct name_scan ns = { 0 };
	int i, k, err = 0, named = 0;

	if (fmt_reader_formats(in->r, collect_name, &ns) < 0 || !ns.n) {
		free(ns.v);
		return fmt_reader_load_formats(in->r);
	}
	/* mark the named formats (name[0] = 0: not named) */
	for (i = 0; i < ns.n && !err; i++) {
		int m = 0;

		for (k = 0; k < in->nfstr && !m; k++) {
			m = filter_names(in->fstr[k].text, ns.v[i].system, ns.v[i].name);
			if (m < 0)
				err = 1; /* libtraceevent gives the error: let it see everything */
		}
		if (m > 0)
			named++;
		else
			ns.v[i].name[0] = 0;
	}
	/*
	 * Each format parsed on its own is screened in a fork of its own
	 * (format/reader.c): a filter that names many ('.*' names ~2000) loads
	 * them all in one screening batch instead.
	 */
	if (err || named > 16) {
		free(ns.v);
		return fmt_reader_load_formats(in->r);
	}
	for (i = 0; i < ns.n; i++)
		if (ns.v[i].name[0])
			fmt_reader_find_event(in->r, ns.v[i].system, ns.v[i].name);
	free(ns.v);
	return 0;
}

/*
 * libtraceevent says only "no event found" when one EVENT of a list names
 * nothing: find that one.  Every format a filter names was parsed
 * (load_filter_formats), so the parsed events are the ones to look at.
 * Returns the part (malloc'd, trimmed) or NULL.
 */
static char *missing_event(struct rinput *in, const char *f)
{
	size_t len = strcspn(f, ":");
	char *part = strndup(f, len), *save = NULL, *ev, *miss = NULL;
	struct tep_event **events = tep_list_events(in->tep, TEP_EVENT_SORT_ID);

	for (ev = part ? strtok_r(part, ",", &save) : NULL; ev && !miss;
	     ev = strtok_r(NULL, ",", &save)) {
		int i, hit = 0;

		for (i = 0; events && events[i] && hit == 0; i++)
			hit = filter_names(ev, events[i]->system, events[i]->name);
		if (hit == 0)
			miss = strdup(trim(ev));
	}
	free(part);
	return miss;
}

/* "Syntax error" -> "syntax error" (our messages are lower case), "RegEx" stays */
static void lower_word(char *s)
{
	size_t i;

	for (i = 1; s[i] && s[i] != ' '; i++)
		if (!islower((unsigned char)s[i]))
			return;
	s[0] = (char)tolower((unsigned char)s[0]);
}

/*
 * libtraceevent's parse errors are three lines (the condition, a caret
 * under where it stopped, the message): one line, "message (read up to 'text')".
 */
static void why_one_line(char *why, size_t size)
{
	char *nl1 = strchr(why, '\n'), *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL, *caret;
	char buf[512];
	int upto;

	if (!nl2) {
		lower_word(why);
		return;
	}
	caret = memchr(nl1 + 1, '^', nl2 - nl1 - 1);
	upto = caret ? (int)(caret - nl1) : (int)(nl1 - why);
	if (upto > nl1 - why)
		upto = (int)(nl1 - why);
	snprintf(buf, sizeof(buf), "%s (read up to '%.*s')", nl2 + 1, upto, why);
	lower_word(buf);
	upto = (int)strlen(buf);
	if ((size_t)upto >= size)
		upto = (int)size - 1;
	memcpy(why, buf, upto);
	why[upto] = 0;
}

/* Build this file's filters; -T prints each event's filter as libtraceevent made it. */
static int make_filters(struct report *rp, struct rinput *in)
{
	int i;

	if (!in->nfstr)
		return 0;
	if (load_filter_formats(in) < 0)
		return ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
	add_blktrace_event(in);
	in->pos = calloc(in->nfstr, sizeof(*in->pos));
	in->neg = calloc(in->nfstr, sizeof(*in->neg));
	in->cpos = calloc(in->nfstr, sizeof(*in->cpos));
	in->cneg = calloc(in->nfstr, sizeof(*in->cneg));
	if (!in->pos || !in->neg || !in->cpos || !in->cneg)
		return ft_error("out of memory");
	if (rp->test_filters)
		tep_set_test_filters(in->tep, 1);
	for (i = 0; i < in->nfstr; i++) {
		struct tep_event_filter *f = tep_filter_alloc(in->tep);
		struct rpt_evfilter *cf;
		enum tep_errno err;
		char why[256];

		if (!f)
			return ft_error("out of memory");
		if (rpt_evfilter_parse_crashes(in->tep, in->fstr[i].text) == 1) {
			tep_filter_free(f);
			fflush(stdout);
			return ft_usage_error("-F '%s': libtraceevent's filter parser crashes on "
					      "it (as on '==' or '&&' with nothing after it, "
					      "or '(a+1)*2')", in->fstr[i].text);
		}
		err = rpt_evfilter_add_str(f, in->fstr[i].text);
		if (err < 0) {
			char *miss = err == TEP_ERRNO__EVENT_NOT_FOUND ?
				     missing_event(in, in->fstr[i].text) : NULL;

			if (tep_filter_strerror(f, err, why, sizeof(why)) < 0 || !why[0])
				snprintf(why, sizeof(why), "not a filter libtraceevent can make");
			why_one_line(why, sizeof(why));
			tep_filter_free(f);
			fflush(stdout);
			if (miss) {
				/* trace-cmd refuses it too ("Failed to create event filter") */
				err = ft_usage_error("-F '%s': no event '%s' in '%s' (names are "
						     "regular expressions matched whole)",
						     in->fstr[i].text, miss, in->path);
				free(miss);
				return err;
			}
			return ft_usage_error("-F '%s': %s (in '%s')", in->fstr[i].text, why,
					      in->path);
		}
		cf = rpt_evfilter_new(f);
		if (!cf) {
			tep_filter_free(f);
			return ft_error("out of memory");
		}
		if (in->fstr[i].neg) {
			in->cneg[in->nneg] = cf;
			in->neg[in->nneg++] = f;
		} else {
			in->cpos[in->npos] = cf;
			in->pos[in->npos++] = f;
		}
	}
	return 0;
}

/* -r / -n: trace-cmd's set_event_flags(), "^EVENT$" case-blind on names and systems */
static int set_event_flags(struct rinput *in, char **list, int n, int flag, const char *opt)
{
	struct tep_event **events;
	int i, k;

	if (!n)
		return 0;
	if (fmt_reader_load_formats(in->r) < 0)
		return ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
	events = tep_list_events(in->tep, TEP_EVENT_SORT_ID);
	for (k = 0; k < n; k++) {
		size_t len = strlen(list[k]) + 3;
		char *re = malloc(len);
		regex_t regex;

		if (!re)
			return ft_error("out of memory");
		snprintf(re, len, "^%s$", list[k]);
		if (regcomp(&regex, re, REG_ICASE | REG_NOSUB)) {
			free(re);
			return ft_usage_error("%s '%s': not a regular expression", opt, list[k]);
		}
		free(re);
		for (i = 0; events && events[i]; i++)
			if (!regexec(&regex, events[i]->name, 0, NULL, 0) ||
			    !regexec(&regex, events[i]->system, 0, NULL, 0))
				events[i]->flags |= flag;
		regfree(&regex);
	}
	return 0;
}

/* ---- text output ------------------------------------------------------------------- */

/*
 * The event's own text: compiled formatter when it handles the type and
 * nothing asks for libtraceevent's own behaviour (-R, -r, -n, -O), else
 * libtraceevent.
 */
static void print_info(struct report *rp, struct rinput *in, struct trace_seq *s,
		       const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;

	in->cur = ev;
	if (rp->raw) {
		tep_print_event(in->tep, s, rec, "%s", TEP_PRINT_INFO_RAW);
		return;
	}
	if (in->fast && ev->event &&
	    !(ev->event->flags & (TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_NOHANDLE)) &&
	    rpt_fastprint_info(in->fast, s, ev->event, rec))
		return;
	tep_print_event(in->tep, s, rec, "%s", TEP_PRINT_INFO);
}

/* ---- the text listing: one buffer, write(2) ------------------------------------------ */

static bool out_grow(struct outbuf *o, size_t n)
{
	size_t cap = o->cap ? o->cap : 2 * OUT_FLUSH;
	char *nb;

	if (o->err)
		return false;
	while (cap - o->len < n) {
		if (cap > SIZE_MAX / 4) {
			o->err = ENOMEM;
			return false;
		}
		cap *= 2;
	}
	nb = realloc(o->buf, cap);
	if (!nb) {
		o->err = ENOMEM;
		return false;
	}
	o->buf = nb;
	o->cap = cap;
	return true;
}

/* room for n more bytes at o->buf + o->len, or NULL (o->err says why) */
static inline char *out_room(struct outbuf *o, size_t n)
{
	if (o->cap - o->len >= n || out_grow(o, n))
		return o->buf + o->len;
	return NULL;
}

static void out_put(struct outbuf *o, const void *text, size_t n)
{
	char *p = out_room(o, n);

	if (p && n) {
		memcpy(p, text, n);
		o->len += n;
	}
}

/* everything waiting, to standard output; a failure is kept in o->err */
static void out_flush(struct outbuf *o)
{
	size_t off = 0;

	while (off < o->len && !o->err) {
		ssize_t w = write(STDOUT_FILENO, o->buf + off, o->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			break;
		}
		off += (size_t)w;
	}
	o->len = 0;
}

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline int udigits(unsigned long long v)
{
	int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* unsigned decimal, zero-padded to width (0: none); a leading '-' if neg */
static char *put_udec(char *p, unsigned long long v, int width, bool neg)
{
	int n = udigits(v);
	char *e;

	if (neg) {
		/* pids are never negative in practice; keep printf's answer for the odd case */
		return p + sprintf(p, "%d", -(int)v);
	}
	for (; n < width; width--)
		*p++ = '0';
	e = p + n;
	p = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		p[0] = digit_pairs[2 * r];
		p[1] = digit_pairs[2 * r + 1];
	}
	if (v >= 10) {
		p[-2] = digit_pairs[2 * v];
		p[-1] = digit_pairs[2 * v + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
	return e;
}

/* v right-aligned in width columns of spaces ("%*llu") */
static char *put_uright(char *p, unsigned long long v, int width)
{
	for (width -= udigits(v); width > 0; width--)
		*p++ = ' ';
	return put_udec(p, v, 0, false);
}

/* "%5llu.%0*llu" */
static char *put_secs(char *p, unsigned long long secs, unsigned long long frac, int digits)
{
	p = put_uright(p, secs, 5);
	*p++ = '.';
	return put_udec(p, frac, digits, false);
}

/* The time column without its leading space and colon, as libtraceevent prints it. */
static char *put_time(const struct report *rp, const struct rinput *in, char *p, uint64_t ts)
{
	if (rp->nsecs && in->in_usecs)
		return put_secs(p, ts / 1000000000ULL, ts % 1000000000ULL, 9);
	if (in->in_usecs) {
		unsigned long long us = (ts + 500) / 1000;

		return put_secs(p, us / 1000000, us % 1000000, 6);
	}
	return put_uright(p, ts, 12);
}

/* trace-cmd's print_handle_file(): the file or instance name column */
static void put_prefix(struct report *rp, struct rinput *in, int buffer, int width)
{
	const char *name = buffer ? in->info->buffers[buffer].name : rp->multi ? in->base : "";
	size_t n;
	char *p;

	if (!rp->prefix_width && !rp->multi)
		return;
	/* "%*s: " of the name, "%*s  " of none */
	n = strlen(name);
	p = out_room(&rp->out, n + (width > 0 ? (size_t)width : 0) + 2);
	if (!p)
		return;
	if (width > 0 && n < (size_t)width) {
		memset(p, ' ', width - n);
		p += width - n;
	}
	memcpy(p, name, n);
	p += n;
	*p++ = n ? ':' : ' ';
	*p++ = ' ';
	rp->out.len = p - rp->out.buf;
}

static void put_missed(struct outbuf *o, const struct fmt_event *ev)
{
	char t[80];
	int n = 0;

	if (ev->rec.missed_events > 0)
		n = snprintf(t, sizeof(t), "CPU:%d [%lld EVENTS DROPPED]\n", ev->rec.cpu,
			     (long long)ev->rec.missed_events);
	else if (ev->rec.missed_events < 0)
		n = snprintf(t, sizeof(t), "CPU:%d [EVENTS DROPPED]\n", ev->rec.cpu);
	if (n > 0)
		out_put(o, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

static void put_name(struct trace_seq *s, const struct tep_event *event)
{
	const char *name = event ? event->name : "(NULL)";
	size_t len = strlen(name);

	trace_seq_printf(s, " %s: ", name);
	if (len < 20)
		trace_seq_printf(s, "%.*s", (int)(20 - len), "                    ");
}

/*
 * trace-cmd's trace_show_data() call for call, through libtraceevent: for
 * the options that change the line's columns (-l, --ts-diff).
 */
static void line_tep(struct report *rp, struct rinput *in, struct trace_seq *s,
		     const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;
	const char *tfmt = !in->in_usecs ? "%12d:" : rp->nsecs ? " %9.1d:" : " %6.1000d:";

	tep_print_event(in->tep, s, rec, rp->latency ? "%8.8s-%-5d %3d" : "%16s-%-5d [%03d]",
			TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
	if (rp->latency || rp->compat >= 33) {
		/* 3.2 and later print the flags column on every line, after a space without -l */
		if (rp->raw)
			trace_seq_printf(s, "-0x%x", tep_data_flags(in->tep, rec));
		else
			tep_print_event(in->tep, s, rec, rp->latency ? "%s" : " %s",
					TEP_PRINT_LATENCY);
	}
	tep_print_event(in->tep, s, rec, tfmt, TEP_PRINT_TIME);
	if (rp->tsdiff) {
		unsigned long long ts = ev->rec.ts;
		char buf[50] = "";

		if (in->use_trace_clock && !rp->nsecs)
			ts = (ts + 500) / 1000;
		if (rp->last_ts)
			snprintf(buf, sizeof(buf), "(+%lld)", (long long)(ts - rp->last_ts));
		rp->last_ts = ts;
		trace_seq_printf(s, " %-8s", buf);
	}
	put_name(s, ev->event);
	print_info(rp, in, s, ev);
}

/* field f of rec as tep_read_number_field() reads it, when it lies inside the record */
static inline bool fld(const struct rinput *in, const struct tep_format_field *f,
		       const struct tep_record *rec, uint64_t *v)
{
	if (f->offset + f->size > rec->size)
		return false;
	*v = fmt_read_num((const uint8_t *)rec->data + f->offset, f->size, in->swap);
	return true;
}

static const char *graph_fn(struct rinput *in, uint64_t addr)
{
	struct fncache *c = &in->fncache[(addr ^ addr >> 8 ^ addr >> 16) & 255];

	if (!c->valid || c->addr != addr) {
		c->addr = addr;
		c->name = tep_find_function(in->tep, addr);
		c->valid = true;
	}
	return c->name;
}

/* graph_overhead() and graph_duration() */
static char *put_graph_time(char *p, uint64_t d)
{
	const char *mark = d == ~0ULL ? "  " : d > 1000000000ULL ? "$ " : d > 1000000ULL ? "# " :
			   d > 100000ULL ? "! " : d > 10000ULL ? "+ " : "  ";
	char *start;
	int w;

	memcpy(p, mark, 2);
	p += 2;
	start = p;
	p = put_udec(p, d / 1000, 0, false);
	w = (int)(p - start);
	if (w < 7) {
		*p++ = '.';
		p = put_udec(p, d % 1000, 3, false);
		w += 4;
	}
	memcpy(p, " us ", 4);
	p += 4;
	for (; w < 7; w++)
		*p++ = ' ';
	memcpy(p, "|  ", 3);
	return p + 3;
}

/*
 * The graph printer's text (graph_entry(), graph_exit()) straight into the
 * listing, for the records it prints without complaint; false hands the
 * record to libtraceevent and the printer (nothing consumed).
 */
static bool graph_out(struct report *rp, struct rinput *in, const struct fmt_event *ev)
{
	const struct tep_record *rec = &ev->rec;
	uint64_t func = 0, depth, pid, call = 0, ret = 0, nfunc, npid;
	const struct fmt_event *next;
	bool entry = ev->event == in->fg_ent, leaf = false;
	const char *name = NULL;
	size_t nl = 20;
	char *p;

	if (!in->fg_fast || (!entry && ev->event != in->fg_ex))
		return false;
	if (entry) {
		if (!fld(in, in->fg_ent_func, rec, &func) || !fld(in, in->fg_ent_pid, rec, &pid) ||
		    !fld(in, in->fg_ent_depth, rec, &depth))
			return false;
		/* a leaf: the next record of this buffer is our own exit */
		if (in->it && fmt_iter_peek(in->it, ev->buffer, &next) == 1 &&
		    next->type == in->fg_exit_id && next->event) {
			if (next->event != in->fg_ex ||
			    !fld(in, in->fg_exit_func, &next->rec, &nfunc) ||
			    !fld(in, in->fg_ex_pid, &next->rec, &npid))
				return false;
			if (npid == pid && nfunc == func) {
				if (!fld(in, in->fg_exit_calltime, &next->rec, &call) ||
				    !fld(in, in->fg_exit_rettime, &next->rec, &ret))
					return false;
				leaf = true;
			}
		}
		name = graph_fn(in, func);
		if (name)
			nl = strlen(name);
	} else if (!fld(in, in->fg_exit_calltime, rec, &call) ||
		   !fld(in, in->fg_exit_rettime, rec, &ret) ||
		   !fld(in, in->fg_ex_depth, rec, &depth)) {
		return false;
	}
	if (depth > 1000)
		depth = 1000;
	p = out_room(&rp->out, 2 * depth + nl + 64);
	if (!p)
		return true;	/* out of memory: the listing stops */
	if (leaf)
		fmt_iter_take_peeked(in->it, &next);
	if (leaf || !entry) {
		p = put_graph_time(p, ret - call);
	} else {
		memcpy(p, "             |  ", 16);
		p += 16;
	}
	memset(p, ' ', 2 * depth);
	p += 2 * depth;
	if (!entry) {
		*p++ = '}';
	} else {
		if (name) {
			memcpy(p, name, nl);
			p += nl;
		} else {
			p += sprintf(p, "%llx", (unsigned long long)func);
		}
		memcpy(p, leaf ? "();" : "() {", leaf ? 3 : 4);
		p += leaf ? 3 : 4;
	}
	rp->out.len = p - rp->out.buf;
	return true;
}

static struct ltype *ltype_of(struct rinput *in, const struct fmt_event *ev);

/*
 * The fields e's print format prints as kernel functions (%pS, %ps, %pF,
 * %pf of a field, through casts): bit i for the i-th field of the format;
 * *off the ones with "+offset" (S, F).  The walk pairs each conversion with
 * its argument as libtraceevent does: one argument per conversion, one more
 * per '*' width or precision, none for "%%".
 */
static uint64_t raw_fn_fields(struct tep_event *e, uint64_t *off)
{
	const char *f = e->print_fmt.format;
	struct tep_print_arg *a = e->print_fmt.args;
	uint64_t fn = 0;

	*off = 0;
	/* libtraceevent prints every field as a plain value without its parse of the format */
	if (!e->print_fmt.print_cache || e->flags & TEP_EVENT_FL_FAILED)
		return 0;
	while (f && *f && a) {
		struct tep_print_arg *v;
		struct tep_format_field *fl, *x;
		int i;

		if (*f++ != '%')
			continue;
		if (*f == '%') {
			f++;
			continue;
		}
		for (; *f && strchr("#-+ '0123456789.hlLzZjt*", *f); f++)
			if (*f == '*' && a)
				a = a->next;
		if (!*f || !a)
			break;
		v = a;
		a = a->next;
		if (*f++ != 'p' || !*f || !strchr("FfSs", *f))
			continue;
		while (v && v->type == TEP_PRINT_TYPE)
			v = v->typecast.item;
		if (!v || v->type != TEP_PRINT_FIELD)
			continue;
		fl = v->field.field ? v->field.field : tep_find_field(e, v->field.name);
		for (i = 0, x = e->format.fields; x && i < 64; x = x->next, i++) {
			if (x != fl)
				continue;
			fn |= 1ULL << i;
			if (*f == 'S' || *f == 'F')
				*off |= 1ULL << i;
		}
	}
	return fn;
}

/*
 * An event printed field by field (-R, or -r EVENT), when its format prints
 * some field as a kernel function: that field as libtraceevent 1.8 prints it
 * raw, "name+0xoff (0xaddr)" (1.7: "name+0xoff"; no symbol: 1.8 " (0xaddr)",
 * 1.7 "0xaddr"), the others as the installed libtraceevent does.  Done here
 * so the listing follows --compat, not the libtraceevent it runs on.
 */
static void raw_fn_out(struct report *rp, struct rinput *in, struct trace_seq *s,
		       const struct fmt_event *ev, uint64_t fn, uint64_t off)
{
	struct tep_event *e = ev->event;
	struct tep_format_field *x;
	int i;

	for (i = 0, x = e->format.fields; x; x = x->next, i++) {
		unsigned long long val, start;
		const char *name;

		trace_seq_printf(s, " %s=", x->name);
		if (i >= 64 || !(fn >> i & 1) || x->flags & TEP_FIELD_IS_ARRAY ||
		    (long)x->offset + x->size > (long)ev->rec.size ||
		    tep_read_number_field(x, ev->rec.data, &val)) {
			tep_print_field_content(s, ev->rec.data, ev->rec.size, x);
			continue;
		}
		name = tep_find_function(in->tep, val);
		if (name) {
			trace_seq_puts(s, name);
			start = tep_find_function_address(in->tep, val);
			if (off >> i & 1)
				trace_seq_printf(s, "+0x%llx", val - start);
		}
		if (name && rp->compat < 33)
			continue;
		if (rp->compat >= 33)
			trace_seq_puts(s, " (");
		if (tep_get_long_size(in->tep) == 4)
			trace_seq_printf(s, "0x%lx", (long)val);
		else
			trace_seq_printf(s, "0x%llx", val);
		if (rp->compat >= 33)
			trace_seq_puts(s, ")");
	}
	trace_seq_terminate(s);
}

/*
 * The event's own text into the listing: compiled formatter, the graph printer, or libtraceevent.
 */
static void info_out(struct report *rp, struct rinput *in, struct trace_seq *s,
		     const struct fmt_event *ev)
{
	struct tep_event *e = ev->event;
	struct outbuf *o = &rp->out;
	struct ltype *t;

	if (!rp->raw && in->fast && !(e->flags & (TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_NOHANDLE))) {
		if (e->handler == graph_entry || e->handler == graph_exit) {
			if (graph_out(rp, in, ev))
				return;
		} else if (!o->err &&
			   rpt_fastprint_append(in->fast, e, (struct tep_record *)&ev->rec, &o->buf,
						&o->len, &o->cap)) {
			return;
		}
	}
	in->cur = ev;
	trace_seq_reset(s);
	if ((rp->raw || e->flags & TEP_EVENT_FL_PRINTRAW) && (t = ltype_of(in, ev))) {
		if (!t->fn) {
			t->raw_fn = raw_fn_fields(e, &t->raw_off);
			t->fn = 1;
		}
		if (t->raw_fn) {
			raw_fn_out(rp, in, s, ev, t->raw_fn, t->raw_off);
			out_put(o, s->buffer, s->len);
			return;
		}
	}
	tep_print_event(in->tep, s, (struct tep_record *)&ev->rec, "%s",
			rp->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	out_put(o, s->buffer, s->len);
}

/* what every line of ev's type repeats; NULL when the type has no slot */
static struct ltype *ltype_of(struct rinput *in, const struct fmt_event *ev)
{
	struct ltype *t;

	if (ev->type < 0 || ev->type > 0xffff)
		return NULL;
	if (!in->ltypes && !(in->ltypes = calloc(65536, sizeof(*in->ltypes))))
		return NULL;
	t = &in->ltypes[ev->type];
	if (t->name != ev->event->name) {
		size_t n = strlen(ev->event->name);

		memset(t, 0, sizeof(*t));
		t->name = ev->event->name;
		t->nlen = n > 64 ? 64 : n;
	}
	return t;
}

/* tep_data_pid(), reading common_pid where libtraceevent does */
static int line_pid(struct rinput *in, struct ltype *t, const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;
	const uint8_t *d = ev->rec.data;
	const struct tep_format_field *f;
	int pid;

	if (t && t->pid == 1 && t->pid_off + t->pid_size <= ev->rec.size)
		return (int)fmt_read_num(d + t->pid_off, t->pid_size, in->swap);
	pid = tep_data_pid(in->tep, rec);
	if (!t || t->pid)
		return pid;
	/* the first record of the type: the field's own offset must give libtraceevent's answer */
	f = tep_find_common_field(ev->event, "common_pid");
	t->pid = 2;
	if (num_field(f) && f->offset <= 0xffff && f->offset + f->size <= ev->rec.size &&
	    (int)fmt_read_num(d + f->offset, f->size, in->swap) == pid) {
		t->pid = 1;
		t->pid_off = (uint16_t)f->offset;
		t->pid_size = (uint8_t)f->size;
	}
	return pid;
}

/* tep_data_comm_from_pid(), remembered for the pids it knows */
static const char *line_comm(struct rinput *in, int pid, size_t *len)
{
	struct commcache *c = in->comms ? &in->comms[(unsigned)pid % COMM_SLOTS] : NULL;
	const char *comm;

	if (c && c->valid && c->pid == pid) {
		*len = c->len;
		return c->comm;
	}
	comm = tep_data_comm_from_pid(in->tep, pid);
	*len = strlen(comm);
	if (!in->comms && (in->comms = calloc(COMM_SLOTS, sizeof(*in->comms))))
		c = &in->comms[(unsigned)pid % COMM_SLOTS];
	/* "<...>" may still get a name (sched_switch registers comms); a known pid keeps its own */
	if (c && *len <= 255 && strcmp(comm, "<...>")) {
		c->pid = pid;
		c->comm = comm;
		c->len = (uint8_t)*len;
		c->valid = true;
	}
	return comm;
}

/*
 * Whether ev's flags column depends on nothing but its type and the bytes
 * common_flags and common_preempt_count (at 2 and 3, the layout of every
 * kernel since 2.6): no lock depth nor migrate-disable field, which
 * libtraceevent would print too.
 */
static bool lat_cacheable(struct tep_event *e)
{
	struct tep_format_field *fl = tep_find_common_field(e, "common_flags");
	struct tep_format_field *pc = tep_find_common_field(e, "common_preempt_count");

	return fl && pc && fl->offset == 2 && fl->size == 1 && pc->offset == 3 && pc->size == 1 &&
	       !tep_find_common_field(e, "common_lock_depth") &&
	       !tep_find_common_field(e, "common_migrate_disable");
}

/*
 * The flags column trace-cmd 3.2 and later print after the CPU by default
 * (irqs-off, need-resched, hardirq/softirq, preempt depth, migrate-disable):
 * libtraceevent's latency text, remembered by type and the bytes it reads.
 */
static void put_lat(struct rinput *in, struct trace_seq *s, struct ltype *t,
		    const struct fmt_event *ev)
{
	struct outbuf *o = &in->rp->out;
	struct latcache *c = NULL;
	const uint8_t *d = ev->rec.data;

	if (t && !t->lat)
		t->lat = lat_cacheable(ev->event) ? 1 : 2;
	if (t && t->lat == 1 && ev->rec.size >= 4 && ev->type >= 0 && ev->type <= 0xffff) {
		uint32_t key = (uint32_t)ev->type << 16 | (uint32_t)d[2] << 8 | d[3];

		if (!in->lats)
			in->lats = calloc(LAT_SLOTS, sizeof(*in->lats));
		if (in->lats) {
			c = &in->lats[(key ^ (key >> 16) * 31) % LAT_SLOTS];
			if (c->valid && c->key == key) {
				out_put(o, c->text, c->len);
				return;
			}
		}
		if (c) {
			c->key = key;
			c->valid = false;
		}
	}
	trace_seq_reset(s);
	tep_print_event(in->tep, s, (struct tep_record *)&ev->rec, "%s", TEP_PRINT_LATENCY);
	out_put(o, s->buffer, s->len);
	if (c && s->len < sizeof(c->text)) {
		memcpy(c->text, s->buffer, s->len);
		c->len = (uint8_t)s->len;
		c->valid = true;
	}
}

/* the usual line, built by hand in the listing's buffer: this runs for every event */
static void line_fast(struct report *rp, struct rinput *in, struct trace_seq *s,
		      const struct fmt_event *ev)
{
	static const char unknown[] =
		"[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               [UNKNOWN EVENT]";
	struct outbuf *o = &rp->out;
	struct ltype *t;
	int pid;
	const char *comm, *name;
	size_t nl, cl;
	char *line, *p;

	if (!ev->event) {
		/* exactly what libtraceevent makes of an unknown ID in trace-cmd's four calls */
		out_put(o, unknown, sizeof(unknown) - 1);
		return;
	}
	t = ltype_of(in, ev);
	pid = line_pid(in, t, ev);
	comm = line_comm(in, pid, &cl);
	name = ev->event->name;
	nl = t ? t->nlen : strlen(name);
	/* "%16s-%-5d [%03d]", the time column and " name: " padded to 20 */
	if (cl > 128)
		cl = 128;
	if (nl > 64)
		nl = 64;
	line = p = out_room(o, 320);
	if (!p)
		return;
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
	if (rp->compat >= 33 && rp->raw) {
		/* -R: the flags byte in hex, as 3.2 and later print it */
		p += sprintf(p, "-0x%x", tep_data_flags(in->tep, (struct tep_record *)&ev->rec));
	} else if (rp->compat >= 33) {
		*p++ = ' ';
		o->len = p - o->buf;
		put_lat(in, s, t, ev);
		line = p = out_room(o, 160);
		if (!p)
			return;
	}
	if (in->in_usecs)
		*p++ = ' ';
	p = put_time(rp, in, p, ev->rec.ts);
	*p++ = ':';
	*p++ = ' ';
	memcpy(p, name, nl);
	p += nl;
	*p++ = ':';
	*p++ = ' ';
	if (nl < 20) {
		memset(p, ' ', 20 - nl);
		p += 20 - nl;
	}
	o->len = p - o->buf;
	info_out(rp, in, s, ev);
}

static void print_event(struct report *rp, struct rinput *in, struct trace_seq *s,
			const struct fmt_event *ev)
{
	struct outbuf *o = &rp->out;
	size_t start = o->len;
	char lat[64] = "";

	put_prefix(rp, in, ev->buffer, rp->prefix_width);
	put_missed(o, ev);
	if (rp->latency || rp->tsdiff) {
		trace_seq_reset(s);
		line_tep(rp, in, s, ev);
		out_put(o, s->buffer, s->len);
	} else {
		line_fast(rp, in, s, ev);
	}
	if (o->len > start && o->buf[o->len - 1] == '\n')
		o->len--;
	if (rp->wakeup) {
		rpt_wakeup_event(&rp->wk, ev, lat, sizeof(lat));
		out_put(o, lat, strlen(lat));
	}
	out_put(o, "\n", 1);
	if (o->len >= OUT_FLUSH)
		out_flush(o);
}
/* ---- JSON output --------------------------------------------------------------------- */

/*
 * JSON numbers are doubles to most readers (jq, JavaScript): exact only up
 * to 2^53.  Larger integers go out as strings so no digit is lost:
 * unsigned ones (addresses, masks, ids) in hex, "0xffffffff81100810",
 * signed ones in decimal.
 */
#define JSON_EXACT_MAX (1ULL << 53)

/* An integer field: a number, or a string when JSON readers would round it (past 2^53) */
static void json_int(struct rpt_json *j, unsigned long long v, bool is_signed)
{
	char t[32];
	int n;

	if (is_signed) {
		long long sv = (long long)v;

		if (sv > (long long)JSON_EXACT_MAX || sv < -(long long)JSON_EXACT_MAX)
			n = snprintf(t, sizeof(t), "\"%lld\"", sv);
		else
			n = snprintf(t, sizeof(t), "%lld", sv);
	} else if (v > JSON_EXACT_MAX) {
		n = snprintf(t, sizeof(t), "\"0x%llx\"", v);
	} else {
		n = snprintf(t, sizeof(t), "%llu", v);
	}
	rpt_json_value(j, t, (size_t)n);
}

static void json_field(struct rpt_json *j, struct rinput *in, struct tep_format_field *f,
		       const struct fmt_event *ev)
{
	const uint8_t *data = ev->rec.data;
	int size = ev->rec.size;
	unsigned int off = f->offset, len = f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v;

		if (off + 4 > (unsigned)size || tep_read_number_field(f, data, &v)) {
			rpt_json_null(j);
			return;
		}
		off = (unsigned)v & 0xffff;
		len = (unsigned)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (off > (unsigned)size || len > (unsigned)size - off) {
		rpt_json_null(j);
		return;
	}
	if (f->flags & TEP_FIELD_IS_STRING ||
	    ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char"))) {
		rpt_json_strn(j, (const char *)data + off, len);
		return;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY || f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int esz = f->elementsize > 0 && f->elementsize <= 8 ? f->elementsize : 1,
			     i;

		rpt_json_arr(j);
		for (i = 0; i + esz <= len; i += esz)
			json_int(j, tep_read_number(in->tep, data + off + i, esz), false);
		rpt_json_arr_end(j);
		return;
	}
	if (len == 1 || len == 2 || len == 4 || len == 8) {
		unsigned long long v = tep_read_number(in->tep, data + off, len);

		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv = len == 1 ? (int8_t)v : len == 2 ? (int16_t)v :
				       len == 4 ? (int32_t)v : (long long)v;
			json_int(j, (unsigned long long)sv, true);
		} else {
			json_int(j, v, false);
		}
		return;
	}
	rpt_json_null(j);
}

/* "ts": a number, or past 2^53 (a DATE offset) its decimal digits as a string */
static void json_ts(struct rpt_json *j, uint64_t ts)
{
	char t[32];
	int n;

	rpt_json_key(j, "ts");
	if (ts <= JSON_EXACT_MAX) {
		rpt_json_u64(j, ts);
		return;
	}
	n = snprintf(t, sizeof(t), "\"%" PRIu64 "\"", ts);
	rpt_json_value(j, t, (size_t)n);
}

static void print_json(struct report *rp, struct rinput *in, struct trace_seq *s,
		       const struct fmt_event *ev)
{
	struct tep_record *rec = (struct tep_record *)&ev->rec;
	struct rpt_json *j = &rp->jout;
	struct tep_format_field *f;
	int pid;

	rpt_json_obj(j);
	json_ts(j, ev->rec.ts);	/* ns since boot stay below 2^53 (104 days) */
	rpt_json_ki64(j, "cpu", ev->rec.cpu);
	if (in->info->nbuffers > 1)
		rpt_json_kstr(j, "buffer", in->info->buffers[ev->buffer].name);
	if (ev->rec.missed_events)
		rpt_json_ki64(j, "lost", (int64_t)ev->rec.missed_events);
	if (!ev->event) {
		rpt_json_ki64(j, "id", ev->type);
		rpt_json_knull(j, "event");
		rpt_json_obj_end(j);
		RPT_JSON_LIT(j, "\n");
		return;
	}
	pid = tep_data_pid(in->tep, rec);
	rpt_json_ki64(j, "pid", pid);
	rpt_json_kstr(j, "comm", tep_data_comm_from_pid(in->tep, pid));
	rpt_json_kstr(j, "system", ev->event->system);
	rpt_json_kstr(j, "event", ev->event->name);
	rpt_json_kobj(j, "fields");
	f = ev->event->format.fields;
	for (int i = 0; i < ev->event->format.nr_fields && f; i++, f = f->next) {
		rpt_json_key(j, f->name);
		json_field(j, in, f, ev);
	}
	rpt_json_obj_end(j);
	trace_seq_reset(s);
	print_info(rp, in, s, ev);
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	rpt_json_key(j, "text");
	rpt_json_strn(j, s->buffer, s->len);
	rpt_json_obj_end(j);
	RPT_JSON_LIT(j, "\n");
}

/* ---- latency-format files ------------------------------------------------------------- */
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
static int report_latency(struct report *rp, struct rinput *in, const char *path)
{
	struct lat_out lo = { .json = rp->json };
	int err, rc = EXIT_OK;

	if (rp->nevents || rp->sel.has_cpus || rp->sel.npids || rp->sel.ncomms || rp->sel.has_t0 ||
	    rp->sel.has_t1)
		ft_warn("'%s' is a latency-format file (text, no events): the filters do not apply",
			path);
	if (!rp->json)
		printf("cpus=%d\n", in->info->cpus);
	err = fmt_reader_latency_read(in->r, lat_block, &lo);
	if (rp->json && !rpt_json_init(&rp->jout, stdout, 0)) {
		rpt_json_obj(&rp->jout);
		rpt_json_kstr(&rp->jout, "format", "latency");
		rpt_json_ki64(&rp->jout, "cpus", in->info->cpus);
		rpt_json_key(&rp->jout, "text");
		rpt_json_strn(&rp->jout, lo.text ? lo.text : "", lo.len);
		rpt_json_obj_end(&rp->jout);
		RPT_JSON_LIT(&rp->jout, "\n");
		rpt_json_done(&rp->jout);	/* a write error shows in ferror(stdout) */
	} else if (rp->json) {
		err = -ENOMEM;
	} else {
		putchar('\n');
	}
	if (err) {
		fflush(stdout);
		rc = ft_error("'%s': %s", path, fmt_reader_error(in->r)[0] ? fmt_reader_error(in->r)
								: strerror(-err));
	} else if (in->info->truncated_at) {
		fflush(stdout);
		rc = ft_error("'%s': the file is truncated (it stops at byte offset %llu); "
			      "the text it held up to there is printed above", path,
			      (unsigned long long)in->info->truncated_at);
	}
	free(lo.text);
	return rc;
}

/* ---- command ------------------------------------------------------------------------- */

static const char usage_text[] =
	"usage: flytrap report [options] [FILE]\n"
	"\n"
	"List the events of a trace.dat (default ./trace.dat) in time order, one line\n"
	"each, exactly as `trace-cmd report` 3.3 prints them (--compat 3.1: as 3.1.6\n"
	"does).  trace-cmd report's options work as there (flytrap report(1) lists\n"
	"what each follows).\n"
	"\n"
	"flytrap's selections:\n"
	"  -e, --event EVENT  only these events: NAME, SYSTEM or SYSTEM:NAME, globs\n"
	"                     allowed (sched, sched:*, sched_sw*); repeatable\n"
	"      --cpu LIST     only these CPUs (e.g. 0,2-3)\n"
	"  -P, --pid PID[,PID...]  only events of these pids; repeatable\n"
	"      --comm GLOB    only events of tasks whose name matches; repeatable\n"
	"      --from TIME    only events at or after this time, as printed (seconds,\n"
	"                     or clock ticks on a raw-counter clock)\n"
	"      --to TIME      only events at or before this time, as printed\n"
	"      --json         one JSON object per event, every field decoded\n"
	"trace-cmd report's options:\n"
	"  -i FILE            input file; several -i: merged in time order, each line\n"
	"                     prefixed with its file's name\n"
	"  -F FILTER          libtraceevent event filter, EVENT[,EVENT...][:COND];\n"
	"                     repeatable (the -i before it: that file only)\n"
	"  -v                 the -F filters after it hide what they match\n"
	"  -T, --filter-test  print the filters made, then exit\n"
	"  -R                 raw field values for every event; -r EVENTS for these\n"
	"  -N                 no plugins; -n EVENTS: no plugin handler for these\n"
	"  -L                 only local plugins (~/.local/lib/traceevent/plugins)\n"
	"  -O PLUGIN:VAR=VAL  a plugin option\n"
	"  -I, -S             hide events with the hardirq / softirq flag\n"
	"  -l                 the latency format's columns\n"
	"  -w                 wakeup latencies, and their summary at the end\n"
	"  -t                 nanosecond timestamps\n"
	"      --ts-offset NS add NS to the times of the -i before it\n"
	"      --ts2secs HZ   the clock counts HZ ticks a second\n"
	"      --ts-diff, --raw-ts, --align-ts, --ts-check, --nodate\n"
	"      --stat, --uname, --version (of the program that wrote the file)\n"
	"      --bpf-maps         the maps of record --bpf-object (like bpftool map dump)\n"
	"      --cpus, --first-event, --last-event, --check-events\n"
	"  -f, -E             functions (kallsyms), event types stored in the file\n"
	"      --endian       byte orders: what trace-cmd report -e prints (here -e\n"
	"                     selects events)\n"
	"      --printk       printk formats: what trace-cmd report -P prints (here -P\n"
	"                     selects pids)\n"
	"      --threads N    threads that read the file (default: the cores\n"
	"                     available; 1: one); the output is the same\n"
	"      --compat VER   3.3: trace-cmd 3.3.1's listing (Debian 13, the default);\n"
	"                     3.1: 3.1.6's (Debian 12, no flags column)\n"
	"  -V, --verbose      more messages on stderr\n"
	"  -h, --help         this help\n";

/* --from/--to once the clock is known: seconds on a ns clock, ticks on a raw counter */
static int resolve_times(struct report *rp)
{
	const char *names[2] = { "--from", "--to" }, *args[2] = { rp->sel.t0_arg, rp->sel.t1_arg };
	uint64_t *vals[2] = { &rp->t0, &rp->t1 };
	const struct rinput *in = &rp->in[0];
	int k;

	for (k = 0; k < 2; k++) {
		if (!args[k])
			continue;
		if (rpt_time_arg(names[k], args[k], in->in_usecs, in->info->clock, vals[k]))
			return EXIT_USAGE;
	}
	if (rp->sel.has_t0 && rp->sel.has_t1 && rp->t0 > rp->t1)
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
static void warn_unmatched(struct report *rp, struct rinput *in)
{
	struct match_scan m = { .rp = rp };
	int i;

	if (!rp->nevents)
		return;
	m.matched = calloc(rp->nevents, sizeof(bool));
	if (!m.matched)
		return;
	fmt_reader_formats(in->r, match_format, &m);
	for (i = 0; i < rp->nevents; i++)
		if (!m.matched[i])
			ft_warn("-e '%s' matches no event type in '%s' (give NAME, SYSTEM or "
				"SYSTEM:NAME, globs allowed; `flytrap info` lists the file's "
				"events)", rp->events[i], in->path);
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

/* ---- trace-cmd report's file-information outputs ---------------------------------- */

/* the last option of this id as a string (trace-cmd keeps the last one), or NULL */
static const char *last_option_text(const struct rinput *in, uint16_t id)
{
	const struct fmt_option *o = NULL, *x;
	int n;

	for (n = 0; (x = fmt_reader_option(in->r, id, n)); n++)
		o = x;
	if (!o)
		return NULL;
	if (!o->size || memchr(o->data, 0, o->size) == NULL)
		return NULL;	/* not a string trace-cmd could print either */
	return o->data;
}

static int count_page(void *arg, const void *page, uint32_t page_size)
{
	(void)page;
	(void)page_size;
	++*(uint64_t *)arg;
	return 0;
}

/* --stat: the CPUSTAT options as trace-cmd joins them, then each CPU's data range */
static void print_stat(const struct rinput *in)
{
	const struct fmt_option *o;
	const struct fmt_buffer *top = &in->info->buffers[0];
	int n, i, c, ncpu, any = 0;
	uint64_t next = top->page_size;	/* trace-cmd's first unpacked offset */

	printf("\nKernel buffer statistics:\n"
	       "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
	       "        recorded in the trace data. They should all be zero.\n\n");
	for (n = 0; (o = fmt_reader_option(in->r, FMT_OPT_CPUSTAT, n)); n++) {
		if (!o->size)
			continue;
		/* trace-cmd overwrites each option's last byte (its NUL) with a newline */
		fwrite(o->data, 1, strnlen(o->data, o->size - 1), stdout);
		if (strnlen(o->data, o->size - 1) == o->size - 1)
			putchar('\n');
		any = 1;
		if (strnlen(o->data, o->size - 1) < o->size - 1)
			break;	/* an inner NUL ends trace-cmd's string */
	}
	if (any)
		putchar('\n');
	else
		printf(" No stats in this file\n");
	if (in->info->version < 7) {
		/* v6 lists every CPU; an empty one sits where the data before it ends */
		uint64_t end = top->ncpus ? top->cpus[0].offset : 0;

		for (i = 0; i < in->info->cpus; i++) {
			unsigned long long off = end, size = 0;
			int k;

			for (k = 0; k < top->ncpus; k++)
				if (top->cpus[k].cpu == i) {
					off = top->cpus[k].offset;
					size = top->cpus[k].size;
				}
			end = off + size;
			printf("CPU%d data recorded at offset=0x%llx\n", i, off);
			printf("    %lld bytes in size\n", (long long)size);
		}
		return;
	}
	/*
	 * the top buffer's CPUs by number up to the highest it lists, as
	 * trace-cmd keeps them: one without an entry is at offset 0 with 0
	 * bytes (a flytrap file lists only CPUs with data); compressed data
	 * where trace-cmd unpacks it
	 */
	ncpu = 0;
	for (i = 0; i < top->ncpus; i++)
		if (top->cpus[i].cpu >= ncpu)
			ncpu = top->cpus[i].cpu + 1;
	for (c = 0; c < ncpu; c++) {
		unsigned long long off = 0, size = 0;

		for (i = 0; i < top->ncpus && top->cpus[i].cpu != c; i++)
			;
		if (i < top->ncpus) {
			off = top->cpus[i].offset;
			size = top->cpus[i].size;
		}
		if (i < top->ncpus && top->compressed && size) {
			uint64_t pages = 0;

			fmt_reader_read_pages(in->r, 0, c, count_page, &pages);
			size = pages * top->page_size;
			off = next;
			next = (next + size + top->page_size - 1) & ~((uint64_t)top->page_size - 1);
		}
		printf("CPU%d data recorded at offset=0x%llx\n", c, off);
		printf("    %lld bytes in size\n", (long long)size);
	}
}

/* --cpus / --first-event / --last-event */
static int print_cpus(struct report *rp, struct rinput *in, bool first, bool last,
		      const struct fmt_iter_opts *base)
{
	const struct fmt_buffer *top = &in->info->buffers[0];
	int i, k, err = 0;

	printf("List of CPUs in %s with data:\n", in->path);
	for (i = 0; i < in->cpus && i < 256; i++) {
		struct fmt_iter_opts o = *base;
		struct fmt_iter *it = NULL;
		const struct fmt_event *ev;
		uint64_t ts_first = 0, ts_last = 0;
		char buf[64], *p;
		int n = 0;

		for (k = 0; k < top->ncpus; k++)
			if (top->cpus[k].cpu == i && top->cpus[k].size)
				break;
		if (k == top->ncpus)
			continue;
		memset(o.cpu_mask, 0, sizeof(o.cpu_mask));
		o.cpu_mask[i / 64] = 1ULL << (i % 64);
		o.buffer_mask = 1;
		err = fmt_iter_new(in->r, &o, &it);
		if (err)
			break;
		while ((err = fmt_iter_next(it, &ev)) == 1) {
			if (!n++)
				ts_first = ev->rec.ts;
			ts_last = ev->rec.ts;
			if (!last)
				break;
		}
		fmt_iter_free(it);
		if (err < 0)
			break;
		if (!n)
			continue;
		printf("  %d", i);
		if (first) {
			p = put_time(rp, in, buf, ts_first);
			*p = 0;
			printf("\tFirst event:%s", buf);
		}
		if (last) {
			p = put_time(rp, in, buf, ts_last);
			*p = 0;
			printf("\tLast event:%s", buf);
		}
		printf("\n");
	}
	if (err < 0)
		return ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
	return 0;
}

/* -E: every event type the file stores, "system:name", sorted as trace-cmd sorts them */
static int print_event_list(struct rinput *in)
{
	struct tep_event **events;
	int i;

	if (fmt_reader_load_formats(in->r) < 0)
		return ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
	events = tep_list_events(in->tep, TEP_EVENT_SORT_SYSTEM);
	for (i = 0; events && events[i]; i++) {
		if (events[i]->system)
			printf("%s:", events[i]->system);
		printf("%s\n", events[i]->name);
	}
	return 0;
}

/* --check-events: do all the file's event formats parse? */
static int check_events(struct rinput *in)
{
	int err = fmt_reader_load_formats(in->r);

	if (err < 0)
		return ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
	if (in->info->nbad_formats)
		return ft_error("'%s': %d event format(s) do not parse", in->path,
				in->info->nbad_formats);
	return EXIT_OK;
}

/*
 * What trace-cmd report prints instead of the listing, in its order of
 * precedence.  Returns -1 when none was asked for (list the events), else
 * the exit code.
 */
struct info_opts {
	bool page_size, endian, check, funcs, printk, event_list, cpus, first, last;
	bool stat, uname, version;
	bool bpf_maps;		/* --bpf-maps: report/listing/bpfmaps.c */
};

static int info_before_listing(struct report *rp, const struct info_opts *io,
			       const struct fmt_iter_opts *opts)
{
	int i, rc;

	for (i = 0; i < rp->nin; i++) {
		struct rinput *in = &rp->in[i];

		if (io->page_size) {
			printf("file page size is %u, and host page size is %d\n",
			       in->info->page_size, getpagesize());
			return EXIT_OK;
		}
		if (io->endian) {
			printf("file is %s endian and host is %s endian\n",
			       tep_is_file_bigendian(in->tep) ? "big" : "little",
			       tep_is_local_bigendian(in->tep) ? "big" : "little");
			return EXIT_OK;
		}
		if (io->check)
			return check_events(in);
		if (io->funcs) {
			/* the reader keeps kallsyms out of libtraceevent's table until asked */
			fmt_reader_tep_funcs(in->r);
			tep_print_funcs(in->tep);
			return EXIT_OK;
		}
		if (io->printk) {
			tep_print_printk(in->tep);
			return EXIT_OK;
		}
		if (io->event_list)
			return print_event_list(in);
		if (io->bpf_maps) {
			const char *why = NULL;

			if (rpt_bpfmaps_print(in->r, rp->json, stdout, &why))
				return ft_error("'%s': damaged --bpf-object data: %s", in->path,
						why ? why : "unreadable");
			if (i + 1 == rp->nin)
				return EXIT_OK;
			continue;
		}
		if (io->cpus && (rc = print_cpus(rp, in, io->first, io->last, &opts[i])))
			return rc;
	}
	return io->cpus ? EXIT_OK : -1;
}

/* ---- opening the files, the merged listing ------------------------------------------ */

static int open_input(struct report *rp, struct rinput *in)
{
	/* formats and kallsyms are read when an event or an address needs them */
	unsigned flags = FMT_OPEN_LAZY_FORMATS | FMT_OPEN_LAZY_KALLSYMS;
	char *err_text = NULL;
	const char *slash;
	int err, i;

	if (rp->no_plugins || rp->local_plugins)
		flags |= FMT_OPEN_NO_PLUGINS;
	err = fmt_reader_open(in->path, flags, &in->r, &err_text);
	if (err) {
		ft_error("%s", err_text ? err_text : strerror(-err));
		free(err_text);
		return EXIT_FAIL;
	}
	in->rp = rp;
	in->tep = fmt_reader_tep(in->r);
	in->info = fmt_reader_info(in->r);
	slash = strrchr(in->path, '/');
	in->base = slash ? slash + 1 : in->path;
	if (rp->local_plugins && !rp->no_plugins) {
		/* trace-cmd -L: the user's plugin directories, not the system's */
		tep_set_flag(in->tep, TEP_DISABLE_SYS_PLUGINS);
		in->plugins = tep_load_plugins(in->tep);
	}
	if (rp->nsecs)
		tep_set_flag(in->tep, TEP_NSEC_OUTPUT);
	/* --raw-ts: trace-cmd prints the raw count whenever the file names its clock */
	in->in_usecs = rp->raw_ts ? !in->info->clock[0] : in->info->clock_in_usecs;
	in->use_trace_clock = fmt_reader_option(in->r, FMT_OPT_TRACECLOCK, 0) &&
			      !(in->ts2secs || rp->ts2secs);
	/* trace-cmd: the larger of CPUCOUNT and the top buffer's CPU slots */
	in->cpus = in->info->cpus;
	for (i = 0; i < in->info->buffers[0].ncpus; i++)
		if (in->info->buffers[0].cpus[i].cpu + 1 > in->cpus)
			in->cpus = in->info->buffers[0].cpus[i].cpu + 1;
	in->swap = tep_is_file_bigendian(in->tep) != tep_is_local_bigendian(in->tep);
	in->type_ok = calloc(65536, 1);
	if (!in->type_ok)
		return ft_error("out of memory");
	if (!rp->no_plugins && !rp->local_plugins)
		setup_graph(in);	/* trace-cmd's own printer comes with its plugins */
	/* the graph printer and other registered handlers stay with libtraceevent */
	if (!getenv("FLYTRAP_NO_FASTPRINT") && !rp->plugin_opts)
		in->fast = rpt_fastprint_new(in->tep);
	if (in->fast)
		rpt_fastprint_set_tep_version(in->fast, rp->compat >= 33 ? 18 : 17);
	if (set_event_flags(in, rp->nohandler_events, rp->nnohandler_events,
			    TEP_EVENT_FL_NOHANDLE, "-n") ||
	    set_event_flags(in, rp->raw_events, rp->nraw_events, TEP_EVENT_FL_PRINTRAW, "-r"))
		return EXIT_USAGE;
	return 0;
}

static void close_input(struct rinput *in)
{
	int i;

	if (in->fast && ft_verbose) {
		struct rpt_fastprint_stats st;

		rpt_fastprint_stats(in->fast, &st);
		ft_info("compiled formats printed %llu events (%d types), "
			"libtraceevent %llu (%d types)",
			(unsigned long long)st.fast, st.types_fast, (unsigned long long)st.declined,
			st.types_declined);
	}
	rpt_fastprint_free(in->fast);
	fmt_iter_free(in->it);
	for (i = 0; i < in->npos; i++) {
		rpt_evfilter_free(in->cpos[i]);
		tep_filter_free(in->pos[i]);
	}
	for (i = 0; i < in->nneg; i++) {
		rpt_evfilter_free(in->cneg[i]);
		tep_filter_free(in->neg[i]);
	}
	free(in->pos);
	free(in->neg);
	free(in->cpos);
	free(in->cneg);
	if (in->plugins)
		tep_unload_plugins(in->plugins, in->tep);
	fmt_reader_close(in->r);
	free(in->fstr);
	free(in->type_ok);
	free(in->ltypes);
	free(in->lats);
	free(in->comms);
	free(in->fncache);
}

/* the iterator options of one file: its CPUs and time options */
static void iter_opts(const struct report *rp, const struct rinput *in, struct fmt_iter_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (rp->raw_ts)
		o->ts_flags |= FMT_TS_RAW;
	if (rp->nodate)
		o->ts_flags |= FMT_TS_NODATE;
	o->ts2secs_hz = in->ts2secs ? in->ts2secs : rp->ts2secs;
	o->ts_offset = in->ts_offset;
	o->threads = rp->threads ? rp->threads : rpt_threads_for(in->info->file_size);
}

/* after resolve_times() */
static void seek_opts(const struct report *rp, struct fmt_iter_opts *o)
{
	/*
	 * --from: the time index starts each CPU near the window (a margin of
	 * 1 ms below it, as printed times are rounded), so what lies before is
	 * not read.  Not with what looks at the records before the window
	 * (-w's wakeups, --ts-diff's previous record, --ts-check, --align-ts);
	 * the iterator itself leaves it out under the time options.
	 * FLYTRAP_NO_SEEK=1 reads from the start (tests compare the two).
	 */
	if (rp->sel.has_t0 && !rp->wakeup && !rp->tsdiff && !rp->tscheck && !rp->align_ts &&
	    !(getenv("FLYTRAP_NO_SEEK") && strcmp(getenv("FLYTRAP_NO_SEEK"), "0"))) {
		o->seek = true;
		o->seek_ts = rp->t0 > 1000000 ? rp->t0 - 1000000 : 0;
	}
}

/* --align-ts: trace-cmd subtracts the earliest first event of the files' top buffers */
static int align_times(struct report *rp, struct fmt_iter_opts *opts)
{
	uint64_t first = 0;
	int i, err;

	if (!rp->align_ts || rp->raw_ts)
		return 0;	/* --raw-ts leaves every stamp alone, offsets included */
	for (i = 0; i < rp->nin; i++) {
		struct fmt_iter_opts o = opts[i];
		struct fmt_iter *it;
		const struct fmt_event *ev;
		uint64_t ts = 0;

		o.buffer_mask = 1;
		err = fmt_iter_new(rp->in[i].r, &o, &it);
		if (err)
			return ft_error("'%s': %s", rp->in[i].path, strerror(-err));
		if (fmt_iter_next(it, &ev) == 1)
			ts = ev->rec.ts;
		fmt_iter_free(it);
		if (!i || ts < first)
			first = ts;
	}
	for (i = 0; i < rp->nin; i++)
		opts[i].ts_offset -= (int64_t)first;
	return 0;
}

/* the instance names (and, with several files, file names) set the prefix column */
static int name_width(const struct report *rp, int upto_file)
{
	int i, b, w = 0;

	for (i = 0; i < rp->nin; i++) {
		const struct rinput *in = &rp->in[i];

		if (rp->multi && (int)strlen(in->base) > w)
			w = (int)strlen(in->base);
		if (i >= upto_file)
			continue;
		for (b = 1; b < in->info->nbuffers; b++) {
			const char *n = strrchr(in->info->buffers[b].name, '/');
			int l = (int)strlen(n ? n + 1 : in->info->buffers[b].name);

			if (l > w)
				w = l;
		}
	}
	return w;
}

/* merge order across files: trace-cmd lists every file's top buffer before any instance */
static bool event_before(const struct rinput *a, int ia, const struct rinput *b, int ib)
{
	const struct fmt_event *x = a->pending, *y = b->pending;

	if (x->rec.ts != y->rec.ts)
		return x->rec.ts < y->rec.ts;
	if ((x->buffer != 0) != (y->buffer != 0))
		return x->buffer == 0;
	return ia < ib;
}

/* the next event of one file into in->pending (NULL at its end); damage is said once per stream */
static int pull(struct report *rp, struct rinput *in, int *rc)
{
	for (;;) {
		const struct fmt_event *ev;
		int err = fmt_iter_next(in->it, &ev);

		if (err == 1) {
			in->pending = ev;
			return 1;
		}
		if (err == 0) {
			in->pending = NULL;
			return 0;
		}
		/*
		 * One error says why the exit fails; a second damaged stream
		 * is a detail of the same verdict, so it is a warning.
		 */
		out_flush(&rp->out);
		if (rp->json)
			rpt_json_flush(&rp->jout);
		fflush(stdout);
		if (*rc == EXIT_OK)
			ft_error("'%s': %s", in->path, fmt_reader_error(in->r));
		else
			ft_warn("'%s': another damaged CPU stream: %s", in->path,
				fmt_reader_error(in->r));
		*rc = EXIT_FAIL;
	}
}

/*
 * --json: a flight-recorder dump's trigger as a line of its own, {"ts":T,
 * "mark":"trigger","trigger":"WHAT"}, before the first event at or after
 * it (or at the end), when it falls in the window.
 */
static void json_trigger(struct report *rp, struct rinput *in, uint64_t before_ts)
{
	uint64_t ts = in->trigger_ts;

	if (!rp->json || !in->trigger || in->trigger_marked || before_ts < ts)
		return;
	in->trigger_marked = true;
	if ((rp->sel.has_t0 && shown_ts(rp, in, ts) < rp->t0) ||
	    (rp->sel.has_t1 && shown_ts(rp, in, ts) > rp->t1))
		return;
	rpt_json_obj(&rp->jout);
	json_ts(&rp->jout, ts);
	rpt_json_kstr(&rp->jout, "mark", "trigger");
	rpt_json_kstr(&rp->jout, "trigger", in->trigger);
	if (rp->nin > 1)
		rpt_json_kstr(&rp->jout, "file", in->base);
	rpt_json_obj_end(&rp->jout);
	RPT_JSON_LIT(&rp->jout, "\n");
}

static void trigger_load(struct rinput *in)
{
	const struct fmt_meta *m = fmt_reader_meta(in->r);

	in->trigger = m && m->trigger_ts.has && m->trigger ? strdup(m->trigger) : NULL;
	if (in->trigger)
		in->trigger_ts = fmt_reader_adjust_ts(in->r, m->trigger_ts.v);
}

static uint64_t list_events(struct report *rp, int *rc)
{
	struct trace_seq s;
	uint64_t nprinted = 0;
	int i;

	trace_seq_init(&s);
	fflush(stdout);	/* what came before; the text listing goes out with write(2) */
	if (rp->json && rpt_json_init(&rp->jout, stdout, 0)) {
		*rc = ft_error("out of memory");
		trace_seq_destroy(&s);
		return 0;
	}
	for (i = 0; i < rp->nin; i++) {
		if (rp->json)
			trigger_load(&rp->in[i]);
		pull(rp, &rp->in[i], rc);
	}
	for (;;) {
		struct rinput *in = NULL;
		const struct fmt_event *ev;
		int best = -1;

		for (i = 0; i < rp->nin; i++)
			if (rp->in[i].pending &&
			    (best < 0 || event_before(&rp->in[i], i, &rp->in[best], best)))
				best = i;
		if (best < 0)
			break;
		in = &rp->in[best];
		ev = in->pending;
		/*
		 * events come in time order: past --to nothing more is printed (-w, --ts-check
		 * look on)
		 */
		if (rp->sel.has_t1 && !rp->wakeup && !rp->tscheck &&
		    shown_ts(rp, in, ev->rec.ts) > rp->t1)
			break;
		if (filters_pass(in, ev) && selected(rp, in, ev)) {
			if (rp->tscheck && rp->check_ts > ev->rec.ts) {
				out_flush(&rp->out);
				if (rp->json) {
					rpt_json_flush(&rp->jout);
					fflush(stdout);
				}
				ft_warn("record on CPU %d went backwards: %llu to %llu "
					"(delta -%llu)",
					ev->rec.cpu, (unsigned long long)rp->check_ts,
					(unsigned long long)ev->rec.ts,
					(unsigned long long)(rp->check_ts - ev->rec.ts));
			}
			rp->check_ts = ev->rec.ts;
			json_trigger(rp, in, ev->rec.ts);
			if (rp->json)
				print_json(rp, in, &s, ev);
			else
				print_event(rp, in, &s, ev);
			nprinted++;
			if (rp->out.err || (rp->json && (rp->jout.err || ferror(stdout))))
				break;
		}
		pull(rp, in, rc);
	}
	for (i = 0; i < rp->nin; i++) {
		json_trigger(rp, &rp->in[i], UINT64_MAX);
		free(rp->in[i].trigger);
		rp->in[i].trigger = NULL;
	}
	out_flush(&rp->out);
	/* a failed write shows in ferror(stdout), which the command's end reports */
	if (rp->json && rpt_json_done(&rp->jout) == -ENOMEM && *rc == EXIT_OK)
		*rc = ft_error("out of memory");
	trace_seq_destroy(&s);
	return nprinted;
}

enum {
	OPT_CPU = 256, OPT_COMM, OPT_FROM, OPT_TO, OPT_JSON, OPT_TS_OFFSET, OPT_TS2SECS,
	OPT_TS_DIFF, OPT_TS_CHECK, OPT_RAW_TS, OPT_ALIGN_TS, OPT_NODATE, OPT_STAT, OPT_BPF_MAPS, OPT_UNAME,
	OPT_VERSION, OPT_CPUS, OPT_FIRST, OPT_LAST, OPT_CHECK, OPT_ENDIAN, OPT_PRINTK, OPT_PROFILE,
	OPT_BYCOMM, OPT_THREADS, OPT_COMPAT,
};

/* trace-cmd report's profile options: flytrap has that breakdown in another command */
static int profile_refused(const char *opt)
{
	return ft_usage_error("%s: trace-cmd's per-task profile is not part of report here; "
			      "`flytrap overhead` gives each task's running, runnable (preempted) "
			      "and blocked time", opt);
}

/* --compat VERSION: whose listing to print, trace-cmd 3.3.1's (33, the default) or 3.1.6's (31) */
static int compat_version(const char *arg)
{
	if (!strcmp(arg, "3.1") || !strcmp(arg, "3.1.6"))
		return 31;
	if (!strcmp(arg, "3.3") || !strcmp(arg, "3.3.1"))
		return 33;
	return 0;
}

static int opt_compat(struct report *rp, const char *arg)
{
	rp->compat = compat_version(arg);
	if (!rp->compat)
		return ft_usage_error("--compat %s: the listings matched are 3.1 (trace-cmd 3.1.6, "
				      "Debian 12) and 3.3 (trace-cmd 3.3.1, Debian 13)", arg);
	return 0;
}

/* -e / -P without a usable value: the trace-cmd report meaning was probably wanted */
static int tracecmd_letter(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		bool none = i + 1 >= argc || ft_looks_like_option(argv[i + 1]);

		if (!strcmp(argv[i], "-e") && none)
			return ft_usage_error("option '-e' needs a value, an event (flytrap's -e "
					      "selects events); for the file's endianness, "
					      "trace-cmd report's -e, use --endian");
		if (!strcmp(argv[i], "-P") && none)
			return ft_usage_error("option '-P' needs a value, a pid (flytrap's -P "
					      "selects pids); for the printk formats, trace-cmd "
					      "report's -P, use --printk");
	}
	return 0;
}

static int add_input(struct report *rp, const char *path)
{
	struct rinput *n = realloc(rp->in, (rp->nin + 1) * sizeof(*n));

	if (!n)
		return ft_error("out of memory");
	rp->in = n;
	memset(&n[rp->nin], 0, sizeof(*n));
	n[rp->nin].path = path;
	rp->nin++;
	return 0;
}

static int add_filter(struct rinput *in, const char *text, bool neg)
{
	struct rfilter *f = realloc(in->fstr, (in->nfstr + 1) * sizeof(*f));

	if (!f)
		return ft_error("out of memory");
	in->fstr = f;
	f[in->nfstr].text = text;
	f[in->nfstr].neg = neg;
	in->nfstr++;
	return 0;
}

/* trace-cmd takes atoll(): here a whole number, signed for --ts-offset */
static int parse_int(const char *opt, const char *arg, bool is_signed, int64_t *out)
{
	char *end;

	errno = 0;
	*out = is_signed ? strtoll(arg, &end, 10) : (int64_t)strtoull(arg, &end, 10);
	if (errno || end == arg || *end || (!is_signed && (arg[0] == '-' || !*out)))
		return ft_usage_error("%s needs %s, not '%s'", opt,
				      is_signed ? "nanoseconds (an integer, may be negative)" :
						  "a clock frequency in Hz (a positive integer)",
				      arg);
	return 0;
}

/* What the command line says before the inputs exist: -F and --ts-offset before the first -i */
struct report_args {
	struct info_opts io;
	struct rfilter *pre;	/* -F before the first -i */
	int npre;
	bool neg, given_i, pre_offset;
	int64_t pre_ts_offset;
	const char **ops;	/* the operands: files */
	int nops;
};

#define OPT_NOT_MINE (-1)

/* What to read: -i, the filters (-e -P --cpu --comm --from --to -F -v -T) */
static int opt_selection(struct report *rp, struct report_args *a, int c, const char *arg)
{
	struct rinput *cur = rp->nin ? &rp->in[rp->nin - 1] : NULL;

	switch (c) {
	case 'i':
		if (add_input(rp, arg))
			return EXIT_FAIL;
		a->given_i = true;
		return 0;
	case 'e':
		if (!*arg)
			return ft_usage_error("-e/--event needs an event name, system or glob");
		return push_str(&rp->events, &rp->nevents, arg) ? ft_error("out of memory") : 0;
	case OPT_CPU:
		return rpt_filter_opt(&rp->sel, RPT_F_CPU, arg);
	case 'P':
		return rpt_filter_opt(&rp->sel, RPT_F_PID, arg);
	case OPT_COMM:
		return rpt_filter_opt(&rp->sel, RPT_F_COMM, arg);
	case OPT_FROM:
		return rpt_filter_opt(&rp->sel, RPT_F_FROM, arg);
	case OPT_TO:
		return rpt_filter_opt(&rp->sel, RPT_F_TO, arg);
	case 'F':
		if (!*arg)
			return ft_usage_error("-F needs a filter, e.g. 'sched_switch:prev_pid==1'");
		if (cur)
			return add_filter(cur, arg, a->neg) ? EXIT_FAIL : 0;
		struct rfilter *f = realloc(a->pre, (a->npre + 1) * sizeof(*f));

		if (!f)
			return ft_error("out of memory");
		a->pre = f;
		a->pre[a->npre].text = arg;
		a->pre[a->npre++].neg = a->neg;
		return 0;
	case 'v':
		if (a->neg)
			return ft_usage_error("only one -v can be used "
					      "(it negates every -F after it)");
		a->neg = true;
		return 0;
	case 'T':
		rp->test_filters = true;
		return 0;
	}
	return OPT_NOT_MINE;
}

/* -O PLUGIN:OPTION[=VALUE], handed to libtraceevent (which keeps its own copies) */
static int plugin_option(struct report *rp, const char *arg)
{
	char *opt = strdup(arg), *eq;

	if (!opt)
		return ft_error("out of memory");
	eq = strchr(opt, '=');
	if (eq)
		*eq++ = 0;
	if (!*opt) {
		free(opt);
		return ft_usage_error("-O needs PLUGIN:OPTION[=VALUE], not '%s'", arg);
	}
	tep_plugin_add_option(opt, eq);
	free(opt);
	rp->plugin_opts = true;
	return 0;
}

/* --ts-offset and --ts2secs: the last -i's, or, before any, the first file's / every file's */
static int opt_clock(struct report *rp, struct report_args *a, int c, const char *arg)
{
	struct rinput *cur = rp->nin ? &rp->in[rp->nin - 1] : NULL;
	int64_t v;

	if (c == OPT_TS_OFFSET) {
		if (parse_int("--ts-offset", arg, true, &v))
			return EXIT_USAGE;
		if (cur) {
			cur->ts_offset = v;
			cur->has_ts_offset = true;
		} else {
			a->pre_ts_offset = v;
			a->pre_offset = true;
		}
		return 0;
	}
	if (parse_int("--ts2secs", arg, false, &v))
		return EXIT_USAGE;
	/* as trace-cmd: before the second -i it is every file's */
	if (rp->nin >= 2)
		cur->ts2secs = (uint64_t)v;
	else
		rp->ts2secs = (uint64_t)v;
	return 0;
}

/* How the events print: -R -r -n -N -L -O -I -S -l -w -t, the time options, --json */
static int opt_output(struct report *rp, struct report_args *a, int c, const char *arg)
{
	switch (c) {
	case 'R': rp->raw = true; return 0;
	case 'r':
		return push_str(&rp->raw_events, &rp->nraw_events, arg) ?
			       ft_error("out of memory") : 0;
	case 'n':
		return push_str(&rp->nohandler_events, &rp->nnohandler_events, arg) ?
			       ft_error("out of memory") : 0;
	case 'N': rp->no_plugins = true; return 0;
	case 'L': rp->local_plugins = true; return 0;
	case 'O': return plugin_option(rp, arg);
	case 'I': rp->no_irqs = true; return 0;
	case 'S': rp->no_softirqs = true; return 0;
	case 'l': rp->latency = true; return 0;
	case 'w': rp->wakeup = true; return 0;
	case 't': rp->nsecs = true; return 0;
	case OPT_TS_OFFSET:
	case OPT_TS2SECS: return opt_clock(rp, a, c, arg);
	case OPT_TS_DIFF: rp->tsdiff = true; return 0;
	case OPT_TS_CHECK: rp->tscheck = true; return 0;
	case OPT_RAW_TS: rp->raw_ts = true; return 0;
	case OPT_ALIGN_TS: rp->align_ts = true; return 0;
	case OPT_NODATE: rp->nodate = true; return 0;
	case OPT_THREADS: return rpt_threads_arg(arg, &rp->threads) ? EXIT_USAGE : 0;
	case OPT_JSON: rp->json = true; return 0;
	case OPT_COMPAT: return opt_compat(rp, arg);
	case 'G': return profile_refused("-G");
	case 'H': return profile_refused("-H");
	case OPT_PROFILE: return profile_refused("--profile");
	case OPT_BYCOMM: return profile_refused("--by-comm");
	}
	return OPT_NOT_MINE;
}

/* trace-cmd report's file-information outputs: -f -E -p --stat --uname ... */
static int opt_info(struct info_opts *io, int c)
{
	switch (c) {
	case 'f': io->funcs = true; return 0;
	case 'E': io->event_list = true; return 0;
	case 'p': io->page_size = true; return 0;
	case OPT_STAT: io->stat = true; return 0;
	case OPT_BPF_MAPS: io->bpf_maps = true; return 0;
	case OPT_UNAME: io->uname = true; return 0;
	case OPT_VERSION: io->version = true; return 0;
	case OPT_CPUS: io->cpus = true; return 0;
	case OPT_FIRST: io->first = io->cpus = true; return 0;
	case OPT_LAST: io->last = io->cpus = true; return 0;
	case OPT_CHECK: io->check = true; return 0;
	case OPT_ENDIAN: io->endian = true; return 0;
	case OPT_PRINTK: io->printk = true; return 0;
	}
	return OPT_NOT_MINE;
}

static const struct ft_opt report_opts[] = {
	{ NULL, 'i', true, 'i' }, { "event", 'e', true, 'e' }, { "cpu", 0, true, OPT_CPU },
	{ "pid", 'P', true, 'P' }, { "comm", 0, true, OPT_COMM }, { "from", 0, true, OPT_FROM },
	{ "to", 0, true, OPT_TO }, { NULL, 'F', true, 'F' }, { NULL, 'v', false, 'v' },
	{ "json", 0, false, OPT_JSON }, FT_OPT_HELP_ENTRY,
	{ "verbose", 'V', false, FT_OPT_ID_VERBOSE }, { "filter-test", 'T', false, 'T' },
	{ NULL, 'R', false, 'R' }, { NULL, 'r', true, 'r' }, { NULL, 'N', false, 'N' },
	{ NULL, 'n', true, 'n' }, { NULL, 'O', true, 'O' }, { NULL, 'I', false, 'I' },
	{ NULL, 'S', false, 'S' }, { NULL, 'l', false, 'l' }, { NULL, 'w', false, 'w' },
	{ NULL, 'f', false, 'f' }, { NULL, 'E', false, 'E' }, { NULL, 'G', false, 'G' },
	{ NULL, 'H', true, 'H' }, { NULL, 'L', false, 'L' }, { NULL, 't', false, 't' },
	{ NULL, 'p', false, 'p' },
	{ "ts-offset", 0, true, OPT_TS_OFFSET }, { "ts2secs", 0, true, OPT_TS2SECS },
	{ "ts-diff", 0, false, OPT_TS_DIFF }, { "ts-check", 0, false, OPT_TS_CHECK },
	{ "raw-ts", 0, false, OPT_RAW_TS }, { "align-ts", 0, false, OPT_ALIGN_TS },
	{ "nodate", 0, false, OPT_NODATE }, { "stat", 0, false, OPT_STAT },
	{ "uname", 0, false, OPT_UNAME }, { "version", 0, false, OPT_VERSION },
	{ "cpus", 0, false, OPT_CPUS }, { "first-event", 0, false, OPT_FIRST },
	{ "threads", 0, true, OPT_THREADS }, { "last-event", 0, false, OPT_LAST },
	{ "check-events", 0, false, OPT_CHECK }, { "endian", 0, false, OPT_ENDIAN },
	{ "printk", 0, false, OPT_PRINTK }, { "profile", 0, false, OPT_PROFILE },
	{ "by-comm", 0, false, OPT_BYCOMM }, { "bpf-maps", 0, false, OPT_BPF_MAPS },
	{ "compat", 0, true, OPT_COMPAT }, { 0 },
};

/* The options, in order (-F and --ts-offset belong to the -i before them) */
static int parse_report_args(struct report *rp, struct report_args *a, int argc, char **argv)
{
	static const char *const help[] = { usage_text, NULL };
	struct ft_optparse p;
	int c, rc;

	if (tracecmd_letter(argc, argv))
		return EXIT_USAGE;
	a->ops = calloc((size_t)argc + 1, sizeof(*a->ops));
	if (!a->ops)
		return ft_error("out of memory");
	ft_opt_init(&p, argc, argv, report_opts);
	while ((c = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		if (c == FT_OPT_ERROR)
			return EXIT_USAGE;	/* the parser said why */
		if (c == FT_OPT_OPERAND) {
			a->ops[a->nops++] = p.value;
			continue;
		}
		rc = opt_selection(rp, a, c, p.value);
		if (rc == OPT_NOT_MINE)
			rc = opt_output(rp, a, c, p.value);
		if (rc == OPT_NOT_MINE)
			rc = opt_info(&a->io, c);
		if (rc)
			return rc == OPT_NOT_MINE ?
				       ft_usage_error("unknown option '%s'", argv[p.i - 1]) : rc;
	}
	return 0;
}

/*
 * The inputs: the -i files, or the operands.  Several files without -i are
 * the segments of one rotation (or a flight recorder's dumps), read as one
 * recording through a joined temporary copy (design decision 8); two
 * recordings are for -i A -i B.
 */
static int place_inputs(struct report *rp, struct report_args *a, char **joined)
{
	int rc;

	if (!rp->nin && a->nops > 1) {
		if ((rc = rpt_join_segments((char **)a->ops, a->nops, joined)))
			return rc;
		if (add_input(rp, *joined))
			return EXIT_FAIL;
	} else if (!rp->nin) {
		if (add_input(rp, a->nops ? a->ops[0] : "trace.dat"))
			return EXIT_FAIL;
	} else if (a->nops) {
		return ft_usage_error("more than one input file given");
	}
	if (a->pre_offset) {
		if (a->given_i)
			return ft_usage_error("--ts-offset must come after the -i it applies to");
		rp->in[0].ts_offset = a->pre_ts_offset;
	}
	rp->multi = rp->nin > 1;
	if (rp->wakeup && rp->multi)
		return ft_usage_error("-w (wakeup latencies) takes one input file");
	/* the -F given before the first -i are that file's, in front of its own */
	if (a->npre) {
		struct rinput *f = &rp->in[0];
		struct rfilter *all = malloc((a->npre + f->nfstr) * sizeof(*all));

		if (!all)
			return ft_error("out of memory");
		memcpy(all, a->pre, a->npre * sizeof(*all));
		if (f->nfstr)
			memcpy(all + a->npre, f->fstr, f->nfstr * sizeof(*all));
		free(f->fstr);
		f->fstr = all;
		f->nfstr += a->npre;
	}
	return 0;
}

/* Open every input and say what the selection will not find in it */
static int open_inputs(struct report *rp, struct fmt_iter_opts *opts, const char *joined,
		       const char *first_segment)
{
	int i, rc;

	for (i = 0; i < rp->nin; i++) {
		rc = open_input(rp, &rp->in[i]);
		if (joined) {
			unlink(joined);	/* the reader holds it open: nothing is left behind */
			rp->in[i].path = first_segment;	/* messages name the first segment */
		}
		if (rc)
			return rc;
		iter_opts(rp, &rp->in[i], &opts[i]);
	}
	return 0;
}

static void warn_selection(struct report *rp)
{
	for (int i = 0; i < rp->nin; i++) {
		struct rinput *in = &rp->in[i];

		warn_unmatched(rp, in);
		if (rp->sel.has_cpus)	/* as the analyzers say it */
			rpt_warn_cpus(in->info, rp->sel.cpu_mask, in->path);
		for (int b = 0; b < in->info->nbuffers; b++)
			if (in->info->buffers[b].cpu_ids_guessed)
				ft_warn("'%s': buffer \"%s\" was rebuilt from a cut file and its "
					"CPU numbers are guesses (numbered in file order)",
					in->path, in->info->buffers[b].name);
	}
}

/* --uname / --version / --stat: one file's header facts instead of its events */
static void print_header_facts(const struct rinput *in, const struct info_opts *io)
{
	const char *t;

	if (!io->uname && !io->version) {
		print_stat(in);
		return;
	}
	/* trace-cmd's --uname prints the version after it */
	if (io->uname && !io->version) {
		t = last_option_text(in, FMT_OPT_UNAME);
		printf("%s\n", t ? t : " uname was not recorded in this file");
	}
	t = last_option_text(in, FMT_OPT_VERSION);
	printf("%s\n", t ? t : " version was not recorded in this file");
}

/*
 * Per input: the filters, the "cpus=" line, and the iterator.  *done when
 * the command ends here (-T, a latency-format file, --uname/--version/--stat).
 */
static int start_inputs(struct report *rp, const struct info_opts *io, struct fmt_iter_opts *opts,
			bool *done)
{
	bool facts = io->uname || io->version || io->stat;
	int i, rc, err;

	*done = true;
	for (i = 0; i < rp->nin; i++) {
		struct rinput *in = &rp->in[i];

		rc = make_filters(rp, in);
		if (rc || (rp->test_filters && in->nfstr))
			return rc;	/* trace-cmd -T: the filters are printed, nothing else */
		if (in->info->latency.present) {
			if (rp->multi)
				return ft_usage_error("'%s' is a latency-format file "
						      "(text, no events): it cannot be merged "
						      "with other files", in->path);
			if (in->nfstr)
				ft_warn("'%s' is a latency-format file (text, no events): "
					"the filters do not apply", in->path);
			return report_latency(rp, in, in->path);
		}
		if (!rp->json) {
			/*
			 * the file column is as wide as the names known when trace-cmd prints this
			 */
			if (rp->multi)
				printf("%*s: ", name_width(rp, i), in->base);
			printf("cpus=%d\n", in->cpus);
		}
		if (facts) {
			print_header_facts(in, io);
			continue;
		}
		if (rp->wakeup && !rpt_wakeup_init(&rp->wk, in->r, in->tep))
			rp->wakeup = false;	/* trace-cmd shows nothing then, silently */
		err = fmt_iter_new(in->r, &opts[i], &in->it);
		if (err)
			return ft_error("'%s': %s", in->path, fmt_reader_error(in->r)[0] ?
							fmt_reader_error(in->r) : strerror(-err));
	}
	*done = facts;
	return 0;
}

/* After the listing: what could not be printed, and a truncated file's failure */
static int finish_listing(struct report *rp, uint64_t nprinted, int rc)
{
	if (rp->out.err && rp->out.err != EPIPE)
		rc = ft_error("cannot write to standard output: %s", strerror(rp->out.err));
	if (rp->wakeup)
		rpt_wakeup_print(&rp->wk, stdout);
	ft_info("%llu events printed", (unsigned long long)nprinted);
	for (int i = 0; i < rp->nin; i++) {
		struct rinput *in = &rp->in[i];

		if (in->info->nbad_formats)
			ft_warn("'%s': %d event format(s) could not be parsed safely; their events "
				"printed as unknown", in->path, in->info->nbad_formats);
		if (in->info->truncated_at && rc == EXIT_OK)
			rc = ft_error("'%s': the file is truncated (it stops at byte offset %llu); "
				      "what it held up to there is printed above", in->path,
				      (unsigned long long)in->info->truncated_at);
	}
	return rc;
}

static void free_report(struct report *rp, struct report_args *a)
{
	for (int i = 0; i < rp->nin; i++)
		close_input(&rp->in[i]);
	free(rp->in);
	free(a->pre);
	free(a->ops);
	free(rp->events);
	rpt_opts_release(&rp->sel);
	free(rp->raw_events);
	free(rp->nohandler_events);
	rpt_wakeup_release(&rp->wk);
	free(rp->out.buf);
}

int cmd_report(int argc, char **argv)
{
	static char obuf[1 << 20];
	struct report rp = { .compat = 33 };
	struct report_args a = { 0 };
	struct fmt_iter_opts *opts = NULL;
	char *joined = NULL;
	bool done;
	const char *env = getenv("FLYTRAP_REPORT_COMPAT");
	int rc, i;

	/* a default for scripts written against one trace-cmd; --compat still wins */
	if (env && *env && !(rp.compat = compat_version(env)))
		return ft_usage_error("FLYTRAP_REPORT_COMPAT=%s: the listings matched are 3.1 "
				      "and 3.3", env);
	rc = parse_report_args(&rp, &a, argc, argv);
	if (rc)
		goto out;
	rc = place_inputs(&rp, &a, &joined);
	if (rc)
		goto out;
	opts = calloc(rp.nin, sizeof(*opts));
	if (!opts) {
		rc = ft_error("out of memory");
		goto out;
	}
	rc = open_inputs(&rp, opts, joined, a.nops ? a.ops[0] : NULL);
	if (rc)
		goto out;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	rc = info_before_listing(&rp, &a.io, opts);
	if (rc >= 0)
		goto out;
	rc = resolve_times(&rp);
	if (rc)
		goto out;
	for (i = 0; i < rp.nin; i++)
		seek_opts(&rp, &opts[i]);
	warn_selection(&rp);
	rc = align_times(&rp, opts);
	if (rc)
		goto out;
	rp.prefix_width = name_width(&rp, rp.nin);
	rc = start_inputs(&rp, &a.io, opts, &done);
	if (rc || done)
		goto out;
	uint64_t nprinted = list_events(&rp, &rc);

	rc = finish_listing(&rp, nprinted, rc);
out:
	free_report(&rp, &a);
	if (joined)
		unlink(joined);
	free(joined);
	free(opts);
	return ft_finish_stdout(rc);
}
