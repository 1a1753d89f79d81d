// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap overhead: where the machine's time went (CPU busy/idle, task on-
 * and off-CPU time, syscall latencies, IRQ and softirq time) and what the
 * tracing itself cost (events and bytes per type, peak rates, the
 * recorder's own figures), with advice on what to filter or aggregate.
 *
 * Everything is kept per CPU, per task, per syscall or per event type, so
 * memory does not grow with the number of events.  Durations are clipped to
 * the --from/--to window; the scheduling state is replayed from every event
 * (also those outside the window) so that the first interval in the window
 * is known.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "format/ftmeta.h"
#include "report/analyzers/overhead.h"
#include "report/core/replay.h"
#include "report/syms/sysnames.h"

enum okind {
	OK_OTHER = 1,
	OK_SWITCH,
	OK_SYS_ENTER,		/* raw_syscalls:sys_enter or syscalls:sys_enter_* */
	OK_SYS_EXIT,
	OK_BPF_SYSCALL,		/* flytrap:syscall: one record per completed call */
	OK_BPF_SYSHIST,		/* flytrap:syscall_hist: log2 histogram per task and syscall */
	OK_IRQ_ENTRY,
	OK_IRQ_EXIT,
	OK_SOFTIRQ_ENTRY,
	OK_SOFTIRQ_EXIT,
	OK_PROC_EXIT,		/* sched:sched_process_exit: pid */
	OK_NR
};

/*
 * Events of a type in the current second on one CPU, and the most in one
 * second; the first second's count too, so that two time ranges merge
 * (the second a cut falls in is split between them).
 */
struct cpu_rate {
	uint64_t sec, cnt, peak;
	uint64_t first_sec, first_cnt;
};

struct otype {
	int kind;		/* enum okind, from the event's rpt_kind */
	unsigned char rkind;	/* that rpt_kind (the advice names function_graph records) */
	/* tracing cost */
	uint64_t count, bytes;
	int ncpu;
	struct cpu_rate *rate;
};

struct ocpu {
	bool seen, known;
	int curr;
	uint64_t since, first, last;
	uint64_t busy, idle, switches;
	uint64_t irq_since, softirq_since;
	int irq, softirq;
	bool in_irq, in_softirq;
};

struct otask {
	int pid;
	/*
	 * The state is what the task's last switch-in, last switch-out and
	 * last sched_process_exit say, whatever came before them, and a time
	 * off-CPU open at a window's end ends at the task's next switch or
	 * exit: a window read that skips chunks gets those from the chunks'
	 * state records (the first and last of each), and the figures a full
	 * read has.  A switch-out without a switch-in before it (a recording
	 * limited to some pids) starts a new time off-CPU: when the task ran
	 * in between is unknown.
	 */
	bool off_known;
	bool off_dead;		/* switched out X (EXIT_DEAD) or Z (EXIT_ZOMBIE) */
	bool off_blocked;	/* switched out in a sleeping state (not TASK_RUNNING) */
	bool exit_seen;		/* a sched_process_exit since its last switch-in */
	uint64_t off_since;
	uint64_t on_cpu, runnable, blocked, switches;
	uint64_t sys_count[2], sys_time[2];	/* per source: tracepoints, BPF */
	bool in_sys;
	long sys_nr;
	uint64_t sys_ts;
};

struct osys {
	long nr;
	int src;		/* 0: raw_syscalls/syscalls tracepoints, 1: BPF records */
	const char *name;
	uint64_t errors;
	struct rpt_hist h;
	bool from_hist;		/* some figures come from in-kernel log2 histograms */
};

struct oirq {
	int nr;
	char name[32];
	uint64_t count, total, max;
};

struct overhead {
	const struct rpt_overhead_conf *conf;
	struct rpt_types types;
	struct rpt_map tasks;		/* pid -> struct otask */
	struct rpt_map sys;		/* nr -> struct osys */
	struct rpt_map irqs;		/* irq -> struct oirq */
	struct rpt_map softirqs;	/* vec -> struct oirq */
	int ncpus;
	struct ocpu *cpus;
	enum rpt_sys_abi abi;
	uint64_t t0, t1;		/* the window: events and calls inside count */
	uint64_t t1_clip;		/* where intervals end: t1, or a range's cut (t1 + 1) */
	bool closed;			/* close_open() done (at a range's end) */
	bool in_range;			/* one range of a ranged analysis (ctx->in_range) */
	uint64_t sys_unmatched;
	uint64_t pages;			/* pages seen, for the compression ratio */
	struct rpt_map lastpage;	/* stream -> last page offset */
	uint64_t *lp_cached;		/* lastpage value of lp_buf/lp_cpu */
	int lp_buf, lp_cpu;
	struct otask *last_task;	/* map values never move */
	uint64_t ucopy_stacks, ucopy_bytes;	/* --user-stack copies */
	bool oom;
};

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static int ovh_init(struct rpt_ctx *ctx, void *priv)
{
	struct overhead *o = priv;
	static const struct rpt_overhead_conf defconf;

	o->conf = ctx->conf ? ctx->conf : &defconf;
	o->types.elem_size = sizeof(struct otype);
	rpt_map_init(&o->tasks, sizeof(struct otask));
	rpt_map_init(&o->sys, sizeof(struct osys));
	rpt_map_init(&o->irqs, sizeof(struct oirq));
	rpt_map_init(&o->softirqs, sizeof(struct oirq));
	rpt_map_init(&o->lastpage, sizeof(uint64_t));
	o->abi = rpt_sys_abi(ctx->info->uname, ctx->info->kernel_long);
	o->t0 = ctx->opts->has_t0 ? ctx->opts->t0_ns : 0;
	o->t1 = ctx->opts->has_t1 ? ctx->opts->t1_ns : UINT64_MAX;
	o->t1_clip = ctx->in_range && ctx->opts->has_t1 ? o->t1 + 1 : o->t1;
	o->in_range = ctx->in_range;
	return 0;
}

/*
 * What overhead does with each kind of report/core/kinds.h (absent: nothing,
 * OK_OTHER): its table and the kinds it reads (OVH_KINDS), from one list.
 */
#define OVH_KIND_LIST(X) \
	X(SCHED_SWITCH, OK_SWITCH) \
	X(PROCESS_EXIT, OK_PROC_EXIT) \
	X(RAW_SYS_ENTER, OK_SYS_ENTER) \
	X(SYS_ENTER, OK_SYS_ENTER) \
	X(RAW_SYS_EXIT, OK_SYS_EXIT) \
	X(SYS_EXIT, OK_SYS_EXIT) \
	X(BPF_SYSCALL, OK_BPF_SYSCALL) \
	X(BPF_SYSHIST, OK_BPF_SYSHIST) \
	X(IRQ_ENTRY, OK_IRQ_ENTRY) \
	X(IRQ_EXIT, OK_IRQ_EXIT) \
	X(SOFTIRQ_ENTRY, OK_SOFTIRQ_ENTRY) \
	X(SOFTIRQ_EXIT, OK_SOFTIRQ_EXIT)
static const unsigned char okind_of[RPT_K_NR] = { OVH_KIND_LIST(RPT_KIND_ENTRY) };

/* the kinds overhead reads as typed records (ctx->rec) */
#define OVH_KINDS (0 OVH_KIND_LIST(RPT_KIND_MASK))

/* a function_graph record (ftrace:funcgraph_entry/exit) */
static bool is_graph(const struct otype *t)
{
	return t->rkind == RPT_K_FG_ENTRY || t->rkind == RPT_K_FG_EXIT;
}

/* length of [a, b] inside the window */
static uint64_t clip(const struct overhead *o, uint64_t a, uint64_t b)
{
	if (a < o->t0)
		a = o->t0;
	if (b > o->t1_clip)
		b = o->t1_clip;
	return b > a ? b - a : 0;
}

static struct ocpu *cpu_get(struct overhead *o, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= o->ncpus) {
		int n = cpu + 1 < 8 ? 8 : cpu + 1;
		struct ocpu *nc = realloc(o->cpus, (size_t)n * sizeof(*nc));

		if (!nc) {
			o->oom = true;
			return NULL;
		}
		memset(nc + o->ncpus, 0, (size_t)(n - o->ncpus) * sizeof(*nc));
		o->cpus = nc;
		o->ncpus = n;
	}
	return &o->cpus[cpu];
}

static struct otask *task_get(struct overhead *o, int pid)
{
	bool created;
	struct otask *t;

	/* syscall entry and exit of one task come in pairs: one cached entry */
	if (o->last_task && o->last_task->pid == pid)
		return o->last_task;
	t = rpt_map_get(&o->tasks, (uint64_t)(uint32_t)pid, &created);
	if (!t) {
		o->oom = true;
		return NULL;
	}
	if (created)
		t->pid = pid;
	o->last_task = t;
	return t;
}

/*
 * A file may hold the same syscalls twice (raw_syscalls events and BPF
 * records): each source gets its own table and the report shows one.
 */
static struct osys *sys_get(struct overhead *o, int src, long nr, const char *name)
{
	bool created;
	struct osys *s = rpt_map_get(&o->sys, (uint64_t)nr ^ ((uint64_t)src << 62), &created);

	if (!s) {
		o->oom = true;
		return NULL;
	}
	if (created) {
		s->nr = nr;
		s->src = src;
	}
	if (!s->name)
		s->name = name ? name : rpt_syscall_name(o->abi, nr);
	return s;
}

/* Gone (exited, or switched out dead): the time after its switch-out is no one's. */
static bool task_gone(const struct otask *t)
{
	return t->exit_seen || (t->off_known && t->off_dead);
}

/* The time a task spent off-CPU, up to ts: runnable or blocked, nothing once gone. */
static void off_account(struct overhead *o, struct otask *t, uint64_t ts)
{
	uint64_t off;

	if (!t->off_known || task_gone(t))
		return;
	off = clip(o, t->off_since, ts);
	if (t->off_blocked)
		t->blocked += off;
	else
		t->runnable += off;
}

/*
 * The task leaving a CPU at ts after dt on it (counted when its CPU is
 * selected): from now on it waits runnable, blocked, or is gone.
 */
static void switch_out(struct overhead *o, int pid, int64_t state, uint64_t ts, uint64_t dt,
		       bool sel)
{
	struct otask *tp = task_get(o, pid);

	if (!tp)
		return;
	if (sel)
		tp->on_cpu += dt;
	tp->off_known = true;
	tp->off_since = ts;
	/* X (EXIT_DEAD, 0x10) or Z (EXIT_ZOMBIE, 0x20): gone; TASK_RUNNING (0): preempted */
	tp->off_dead = (state & 0x30) != 0;
	tp->off_blocked = (state & 0xff) != 0;
}

/*
 * The task taking a CPU at ts: the time since its switch-out was runnable or blocked.
 * counted: an event of the file (not a state record) inside the window.
 */
static void switch_in(struct overhead *o, int pid, uint64_t ts, bool counted)
{
	struct otask *tn = task_get(o, pid);

	if (!tn)
		return;
	off_account(o, tn, ts);
	tn->exit_seen = false;	/* running again (a pid reused after an exit, too) */
	if (counted)
		tn->switches++;
	tn->off_known = false;
}

/* A sched_switch ends the CPU's busy or idle interval, prev's run and next's wait. */
static void on_switch(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
		      const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *r = ctx->rec;
	int prev = r->sw.prev_pid;
	int next = r->sw.next_pid;
	int64_t state = r->sw.has_state ? r->sw.prev_state : 1;
	uint64_t ts = ev->rec.ts;
	uint64_t since = c->known ? c->since : c->first;
	uint64_t dt = clip(o, since, ts);
	bool sel = rpt_cpu_selected(ctx->opts, ev->rec.cpu);
	/* a state record (a skipped chunk's, a slice's at its cut) is no switch of the window */
	bool counted = !ctx->from_facts && ts >= o->t0 && ts <= o->t1;

	/* before the first switch, the CPU ran prev since its first event */
	if (sel) {
		if (prev == 0)
			c->idle += dt;
		else
			c->busy += dt;
		if (counted)
			c->switches++;
	}
	if (prev != 0)
		switch_out(o, prev, state, ts, dt, sel);
	if (next != 0)
		switch_in(o, next, ts, counted);
	c->known = true;
	c->curr = next;
	c->since = ts;
}

static void sys_done(struct overhead *o, const struct rpt_ctx *ctx, int cpu, int src, int pid,
		     long nr, const char *name, uint64_t start, uint64_t end, int64_t ret,
		     bool has_ret)
{
	struct osys *s;
	struct otask *tk;

	/* a call belongs to the window (and the CPU) where it ends */
	if (end < o->t0 || end > o->t1 || !rpt_cpu_selected(ctx->opts, cpu) ||
	    !rpt_task_selected(ctx, pid))
		return;
	s = sys_get(o, src, nr, name);
	if (!s || rpt_hist_add(&s->h, end >= start ? end - start : 0)) {
		o->oom = true;
		return;
	}
	if (has_ret && ret < 0 && ret > -4096)
		s->errors++;
	tk = task_get(o, pid);
	if (tk) {
		tk->sys_count[src]++;
		tk->sys_time[src] += end >= start ? end - start : 0;
	}
}

static void on_bpf_hist(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *rec = ctx->rec;
	uint64_t count = rec->hist.count, total = rec->hist.total, max = rec->hist.max;
	const struct rpt_arr *slots = &rec->hist.slots;
	struct osys *s;
	struct otask *tk;
	uint64_t added = 0, sum0;

	/*
	 * written once at the end, covering the whole recording: used when that
	 * record is in the window
	 */
	if (!rpt_task_selected(ctx, pid) || !slots->p || ev->rec.ts < o->t0 || ev->rec.ts > o->t1 ||
	    ctx->opts->has_cpus)
		return;	/* (not per CPU: left out when --cpu is given) */
	s = sys_get(o, 1, rec->hist.nr, NULL);
	if (!s)
		return;
	sum0 = s->h.sum;
	/*
	 * Log2 slots carry no values inside a slot: each slot's calls go in at
	 * its middle, so percentiles from aggregated data are within a factor
	 * of ~1.5; count, total and max stay exact.
	 */
	for (int k = 0; k < slots->n && k < 64; k++) {
		uint64_t n = rpt_arr_at(slots, k), mid = k == 0 ? 1 : (3ULL << k) / 2, j;

		for (j = 0; j < n && added < count; j++, added++)
			if (rpt_hist_add(&s->h, mid > max ? max : mid)) {
				o->oom = true;
				return;
			}
	}
	/* keep the sum exact: replace the slot middles added above by the real total */
	s->h.sum = sum0 + total;
	if (max > s->h.max)
		s->h.max = max;
	s->from_hist = true;
	tk = task_get(o, pid);
	if (tk) {
		tk->sys_count[1] += count;
		tk->sys_time[1] += total;
	}
}

/* A task's sched_process_exit: the time after its last switch-out counts as no one's. */
static void on_proc_exit(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			 const struct fmt_event *ev, int pid)
{
	struct otask *tk = task_get(o, ctx->rec->task.pid);

	if (tk)
		tk->exit_seen = true;
}

static void on_sys_enter(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			 const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *rec = ctx->rec;
	struct otask *tk = task_get(o, pid);

	if (!tk)
		return;
	tk->in_sys = true;
	/* a syscalls:sys_enter_NAME without its number: one per event id */
	tk->sys_nr = rec->sys.id < 0 ? -1 - (long)ev->type : rec->sys.id;
	tk->sys_ts = ev->rec.ts;
}

/* A syscall exit completes the call its task entered, when the numbers agree. */
static void on_sys_exit(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *rec = ctx->rec;
	struct otask *tk = task_get(o, pid);
	long nr = rec->sys.id;
	uint64_t ts = ev->rec.ts;

	if (!tk)
		return;
	if (!tk->in_sys || (nr >= 0 && tk->sys_nr >= 0 && tk->sys_nr != nr)) {
		if (ts >= o->t0 && ts <= o->t1)
			o->sys_unmatched++;
	} else {
		sys_done(o, ctx, ev->rec.cpu, 0, pid, tk->sys_nr >= 0 ? tk->sys_nr : nr,
			 rec->sys.name, tk->sys_ts, ts, rec->sys.ret, rec->sys.has_ret);
	}
	tk->in_sys = false;
}

/* flytrap:syscall: a whole call in one record, written at its end. */
static void on_bpf_syscall(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			   const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *rec = ctx->rec;
	uint64_t dur = rec->bsys.duration, ts = ev->rec.ts;

	sys_done(o, ctx, ev->rec.cpu, 1, pid, (long)(int32_t)rec->bsys.nr, NULL,
		 ts >= dur ? ts - dur : 0, ts, rec->bsys.ret, rec->bsys.has_ret);
}

static void on_irq_entry(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			 const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *rec = ctx->rec;
	int irq = rec->irq.nr;
	struct oirq *q = rpt_map_get(&o->irqs, (uint64_t)(uint32_t)irq, NULL);
	int len = rec->irq.name.len;
	const char *nm = rec->irq.name.s;

	if (q && nm && !q->name[0]) {
		if (len > 31)
			len = 31;
		memcpy(q->name, nm, (size_t)len);
		q->name[len] = 0;
		q->name[strnlen(q->name, 31)] = 0;
	}
	c->in_irq = true;
	c->irq = irq;
	c->irq_since = ev->rec.ts;
}

/*
 * How long a handler that ended at ts ran: inside the window (a run
 * belongs to the window where it ends, cut at its start).  A range of a
 * ranged analysis is no window of the user's: the whole run.
 */
static uint64_t handler_dur(const struct overhead *o, uint64_t since, uint64_t ts)
{
	if (o->in_range)
		return ts > since ? ts - since : 0;
	return clip(o, since, ts);
}

/* One run of an irq or softirq handler ended in the window: count it, its time, the longest. */
static void irq_account(struct oirq *q, int nr, uint64_t dt)
{
	q->nr = nr;
	q->count++;
	q->total += dt;
	if (dt > q->max)
		q->max = dt;
}

static void on_irq_exit(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			const struct fmt_event *ev, int pid)
{
	int irq = ctx->rec->irq.nr;
	uint64_t ts = ev->rec.ts;

	if (c->in_irq && c->irq == irq && rpt_cpu_selected(ctx->opts, ev->rec.cpu)) {
		struct oirq *q = rpt_map_get(&o->irqs, (uint64_t)(uint32_t)irq, NULL);
		uint64_t dt = handler_dur(o, c->irq_since, ts);

		if (q && ts >= o->t0 && ts <= o->t1)
			irq_account(q, irq, dt);
	}
	c->in_irq = false;
}

static void on_softirq_entry(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			     const struct fmt_event *ev, int pid)
{
	c->in_softirq = true;
	c->softirq = ctx->rec->irq.nr;
	c->softirq_since = ev->rec.ts;
}

static void on_softirq_exit(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			    const struct fmt_event *ev, int pid)
{
	int vec = ctx->rec->irq.nr;
	uint64_t ts = ev->rec.ts;

	if (c->in_softirq && c->softirq == vec && rpt_cpu_selected(ctx->opts, ev->rec.cpu)) {
		struct oirq *q = rpt_map_get(&o->softirqs, (uint64_t)(uint32_t)vec, NULL);
		uint64_t dt = handler_dur(o, c->softirq_since, ts);

		if (q && ts >= o->t0 && ts <= o->t1) {
			if (!q->name[0])
				snprintf(q->name, sizeof(q->name), "%s",
					 vec >= 0 && vec < 10 ? softirq_names[vec] : "?");
			irq_account(q, vec, dt);
		}
	}
	c->in_softirq = false;
}

/*
 * Pages seen, for the compression ratio: an event on another page than
 * the last one of its stream (buffer and CPU) starts a new page.
 */
static void count_page(struct overhead *o, const struct fmt_event *ev)
{
	uint64_t *lp, stream;

	if (o->lp_cached && o->lp_buf == ev->buffer && o->lp_cpu == ev->rec.cpu) {
		lp = o->lp_cached;
	} else {
		stream = (uint64_t)(uint32_t)ev->buffer << 32 | (uint32_t)ev->rec.cpu;
		lp = rpt_map_get(&o->lastpage, stream, NULL);
		o->lp_cached = lp;
		o->lp_buf = ev->buffer;
		o->lp_cpu = ev->rec.cpu;
	}
	if (lp && *lp != ev->page_offset + 1) {
		*lp = ev->page_offset + 1;
		o->pages++;
	}
}

/* The peak rate of an event type: the most events of it in one second on one CPU. */
static void count_rate(struct overhead *o, struct otype *t, int cpu, uint64_t ts)
{
	struct cpu_rate *r;
	uint64_t sec = ts / 1000000000ULL;

	if (cpu < 0 || cpu >= 4096)
		return;
	if (cpu >= t->ncpu) {
		int n = cpu + 1;
		struct cpu_rate *nr = realloc(t->rate, (size_t)n * sizeof(*nr));

		if (!nr) {
			o->oom = true;
			return;
		}
		memset(nr + t->ncpu, 0, (size_t)(n - t->ncpu) * sizeof(*nr));
		t->rate = nr;
		t->ncpu = n;
	}
	r = &t->rate[cpu];
	if (!r->peak)
		r->first_sec = sec;
	if (sec != r->sec || !r->cnt) {
		r->sec = sec;
		r->cnt = 0;
	}
	if (++r->cnt > r->peak)
		r->peak = r->cnt;
	if (sec == r->first_sec)
		r->first_cnt = r->cnt;
}

/* What a selected event cost the tracing: its bytes, its user stack copy, its rate. */
static void count_cost(struct overhead *o, const struct rpt_ctx *ctx, struct otype *t,
		       const struct fmt_event *ev)
{
	int cl = 0;

	t->count++;
	t->bytes += (uint64_t)ev->rec.record_size;
	if (ctx->ki->ucopy.offset >= 0 &&
	    fmt_field_ptr(&ctx->ki->ucopy, ev->rec.data, ev->rec.size, &cl) && cl > 0) {
		o->ucopy_stacks++;
		o->ucopy_bytes += (uint64_t)cl;
	}
	count_rate(o, t, ev->rec.cpu, ev->rec.ts);
}

/*
 * One handler per kind of enum okind (none for OK_OTHER).  ctx->rec holds
 * the decoded record for the kinds of OVH_KINDS; pid is the event's
 * common_pid (-1 when the record is too short for it).
 */
typedef void ovh_handler(struct overhead *o, const struct rpt_ctx *ctx, struct ocpu *c,
			 const struct fmt_event *ev, int pid);

static ovh_handler *const on_okind[OK_NR] = {
	[OK_SWITCH] = on_switch,
	[OK_SYS_ENTER] = on_sys_enter,
	[OK_SYS_EXIT] = on_sys_exit,
	[OK_BPF_SYSCALL] = on_bpf_syscall,
	[OK_BPF_SYSHIST] = on_bpf_hist,
	[OK_IRQ_ENTRY] = on_irq_entry,
	[OK_IRQ_EXIT] = on_irq_exit,
	[OK_SOFTIRQ_ENTRY] = on_softirq_entry,
	[OK_SOFTIRQ_EXIT] = on_softirq_exit,
	[OK_PROC_EXIT] = on_proc_exit,
};

static void ovh_event(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev)
{
	struct overhead *o = priv;
	struct otype *t = rpt_types_get(&o->types, ev->type);
	struct ocpu *c = cpu_get(o, ev->rec.cpu);
	int pid;

	if (!t || !c)
		return;
	if (!t->kind) {
		t->kind = okind_of[ctx->ki->kind] ? okind_of[ctx->ki->kind] : OK_OTHER;
		t->rkind = (unsigned char)ctx->ki->kind;
	}
	if (!ctx->from_facts)
		count_page(o, ev);
	if (!c->seen) {
		c->seen = true;
		c->first = ev->rec.ts;
	}
	c->last = ev->rec.ts;
	pid = rpt_event_pid(ctx, ev);
	if (!ctx->from_facts && rpt_event_selected(ctx, ev))
		count_cost(o, ctx, t, ev);
	if (on_okind[t->kind])
		on_okind[t->kind](o, ctx, c, ev, pid);
}

/*
 * A window may skip the chunks outside it: the state at its start and the
 * switches after it come from the chunks' state records (the state here is
 * a function of those last events, see struct otask), the CPUs' first
 * events and the pages from the facts.
 */
static bool ovh_window_read(struct rpt_ctx *ctx, void *priv, struct rpt_window_read *w)
{
	(void)ctx;
	(void)priv;
	w->state = true;
	return true;
}

static void ovh_window_begin(struct rpt_ctx *ctx, void *priv, const struct rpt_window_read *w)
{
	struct overhead *o = priv;

	(void)ctx;
	for (int i = 0; i < w->nstreams; i++) {
		const struct rpt_stream_span *sp = &w->streams[i];
		struct ocpu *c = cpu_get(o, sp->cpu);

		if (!c)
			continue;
		if (!c->seen || sp->first_ts < c->first) {
			c->seen = true;
			c->first = sp->first_ts;
		}
		o->pages += sp->pages_skipped;
	}
}

/* ---- ranged analysis: a range closed, then added to the one before ----------- */

static void close_open(struct overhead *o, const struct rpt_ctx *ctx);

/* What is open at a range's end is clipped there: the next range takes it up. */
static void ovh_range_end(struct rpt_ctx *ctx, void *priv)
{
	struct overhead *o = priv;

	close_open(o, ctx);
	o->closed = true;
}

/* One CPU's rate of a later range (s) after d's: the second a cut falls in adds up. */
static void rate_merge(struct cpu_rate *d, const struct cpu_rate *s)
{
	uint64_t mid;

	if (!s->peak)
		return;
	if (!d->peak) {
		*d = *s;
		return;
	}
	if (d->sec != s->first_sec) {
		if (s->peak > d->peak)
			d->peak = s->peak;
		d->sec = s->sec;
		d->cnt = s->cnt;
		return;
	}
	mid = d->cnt + s->first_cnt;
	if (d->first_sec == d->sec)
		d->first_cnt = mid;
	if (s->peak > d->peak)
		d->peak = s->peak;
	if (mid > d->peak)
		d->peak = mid;
	d->cnt = s->sec == s->first_sec ? mid : s->cnt;
	d->sec = s->sec;
}

static int type_merge(struct otype *d, const struct otype *s)
{
	if (!d->kind) {
		d->kind = s->kind;
		d->rkind = s->rkind;
	}
	d->count += s->count;
	d->bytes += s->bytes;
	if (s->ncpu > d->ncpu) {
		struct cpu_rate *nr = realloc(d->rate, (size_t)s->ncpu * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		memset(nr + d->ncpu, 0, (size_t)(s->ncpu - d->ncpu) * sizeof(*nr));
		d->rate = nr;
		d->ncpu = s->ncpu;
	}
	for (int c = 0; c < s->ncpu; c++)
		rate_merge(&d->rate[c], &s->rate[c]);
	return 0;
}

static int irqs_merge(struct rpt_map *d, const struct rpt_map *s)
{
	size_t pos = 0;
	uint64_t key;
	const struct oirq *sq;

	while ((sq = rpt_map_next(s, &pos, &key))) {
		struct oirq *dq = rpt_map_get(d, key, NULL);

		if (!dq)
			return -ENOMEM;
		if (!dq->name[0])
			memcpy(dq->name, sq->name, sizeof(dq->name));
		if (sq->count)
			dq->nr = sq->nr;
		dq->count += sq->count;
		dq->total += sq->total;
		if (sq->max > dq->max)
			dq->max = sq->max;
	}
	return 0;
}

/*
 * A later range's figures added to dst's.  Sums add (every interval was
 * clipped to its range, every call and event counted in the range where
 * it ends); a task's state is the later range's, which saw it last; the
 * pages are every range's whole-file count already (the facts give the
 * skipped chunks').
 */
static int ovh_merge(struct rpt_ctx *ctx, void *dst, void *src)
{
	struct overhead *d = dst;
	const struct overhead *s = src;
	size_t pos = 0;
	const struct otask *st;
	const struct osys *ss;

	(void)ctx;
	if (s->oom || d->oom)
		return -ENOMEM;
	for (int i = 0; i < s->types.n; i++) {
		const struct otype *t =
			(const struct otype *)(s->types.slots + (size_t)i * s->types.elem_size);
		struct otype *dt;

		if (!t->kind)
			continue;
		dt = rpt_types_get(&d->types, i);
		if (!dt || type_merge(dt, t))
			return -ENOMEM;
	}
	for (int i = 0; i < s->ncpus; i++) {
		const struct ocpu *sc = &s->cpus[i];
		struct ocpu *dc;

		if (!sc->seen && !sc->known)
			continue;
		dc = cpu_get(d, i);
		if (!dc)
			return -ENOMEM;
		if (sc->seen && (!dc->seen || sc->first < dc->first))
			dc->first = sc->first;
		dc->seen |= sc->seen;
		dc->known |= sc->known;
		dc->busy += sc->busy;
		dc->idle += sc->idle;
		dc->switches += sc->switches;
	}
	while ((st = rpt_map_next(&s->tasks, &pos, NULL))) {
		struct otask *dt = task_get(d, st->pid), keep;

		if (!dt)
			return -ENOMEM;
		keep = *dt;
		*dt = *st;
		dt->on_cpu += keep.on_cpu;
		dt->runnable += keep.runnable;
		dt->blocked += keep.blocked;
		dt->switches += keep.switches;
		for (int k = 0; k < 2; k++) {
			dt->sys_count[k] += keep.sys_count[k];
			dt->sys_time[k] += keep.sys_time[k];
		}
	}
	pos = 0;
	while ((ss = rpt_map_next(&s->sys, &pos, NULL))) {
		struct osys *ds = sys_get(d, ss->src, ss->nr, ss->name);

		if (!ds || rpt_hist_merge(&ds->h, &ss->h))
			return -ENOMEM;
		ds->errors += ss->errors;
		ds->from_hist |= ss->from_hist;
	}
	if (irqs_merge(&d->irqs, &s->irqs) || irqs_merge(&d->softirqs, &s->softirqs))
		return -ENOMEM;
	d->sys_unmatched += s->sys_unmatched;
	d->ucopy_stacks += s->ucopy_stacks;
	d->ucopy_bytes += s->ucopy_bytes;
	return d->oom ? -ENOMEM : 0;
}

/* ---- output ------------------------------------------------------------------ */

static int cmp_task(const void *a, const void *b)
{
	const struct otask *x = *(const struct otask *const *)a,
			   *y = *(const struct otask *const *)b;

	if (x->on_cpu != y->on_cpu)
		return x->on_cpu < y->on_cpu ? 1 : -1;
	if (x->sys_time[0] + x->sys_time[1] != y->sys_time[0] + y->sys_time[1])
		return x->sys_time[0] + x->sys_time[1] < y->sys_time[0] + y->sys_time[1] ? 1 : -1;
	return x->pid - y->pid;
}

static int cmp_sys(const void *a, const void *b)
{
	const struct osys *x = *(const struct osys *const *)a, *y = *(const struct osys *const *)b;

	if (x->h.sum != y->h.sum)
		return x->h.sum < y->h.sum ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct oirq *x = *(const struct oirq *const *)a, *y = *(const struct oirq *const *)b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->nr - y->nr;
}

struct typerow {
	int id;
	const struct otype *t;
	uint64_t peak;
	int peak_cpu;
};

static int cmp_typerow(const void *a, const void *b)
{
	const struct typerow *x = a, *y = b;

	if (x->t->bytes != y->t->bytes)
		return x->t->bytes < y->t->bytes ? 1 : -1;
	return x->id - y->id;
}

static void sys_label(const struct osys *s, char *buf, size_t len)
{
	if (s->name)
		snprintf(buf, len, "%s", s->name);
	else if (s->nr < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "syscall_%ld", s->nr);
}

static void **collect(struct rpt_map *m, size_t *n, int (*cmp)(const void *, const void *))
{
	void **arr = calloc(m->count ? m->count : 1, sizeof(*arr));
	size_t pos = 0;
	void *v;

	*n = 0;
	if (!arr)
		return NULL;
	while ((v = rpt_map_next(m, &pos, NULL)))
		arr[(*n)++] = v;
	qsort(arr, *n, sizeof(*arr), cmp);
	return arr;
}

static int add_advice(char **adv, int *n, int max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add_advice(char **adv, int *n, int max, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (*n >= max)
		return 0;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -ENOMEM;
	adv[(*n)++] = s;
	return 0;
}

static const char *type_label(const struct rpt_ctx *ctx, int id, char *buf, size_t len)
{
	struct tep_event *e = tep_find_event(ctx->tep, id);

	if (e)
		snprintf(buf, len, "%s:%s", e->system, e->name);
	else
		snprintf(buf, len, "[unknown type %d]", id);
	return buf;
}

/* fn(arg, key, value) for every "key=value" line of the recorder's RECSTATS */
static void recstats_each(const struct rpt_ctx *ctx, void *arg,
			  void (*fn)(void *arg, const char *k, int kl, const char *v, int vl))
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);

	for (size_t n = 0; m && n < m->rs.all.n; n++) {
		const struct fmt_kv *kv = &m->rs.all.kv[n];
		size_t kl = strlen(kv->key), vl = kv->val ? strlen(kv->val) : 0;

		if (kv->val && kl && kl <= INT_MAX && vl <= INT_MAX)
			fn(arg, kv->key, (int)kl, kv->val, (int)vl);
	}
}

/*
 * The pids a recording was limited to (flytrap record -P or a command: the
 * "pids=" metadata line, the kernel's set_event_pid), malloc'd, or NULL.
 * Such a file has only the switches of those tasks: the CPUs' busy and idle
 * time and other tasks' times cannot be known from it.
 */
static char *recorded_pids(const struct rpt_ctx *ctx)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);

	return m && m->pids && *m->pids ? strdup(m->pids) : NULL;
}

void rpt_overhead_result_release(struct rpt_overhead_result *r)
{
	size_t k;
	int i;

	if (!r)
		return;
	for (k = 0; k < r->ntasks; k++)
		free(r->tasks[k].comm);
	for (k = 0; k < r->nsyscalls; k++)
		free(r->syscalls[k].name);
	for (k = 0; k < r->nirqs; k++)
		free(r->irqs[k].name);
	for (k = 0; k < r->nsoftirqs; k++)
		free(r->softirqs[k].name);
	for (k = 0; k < r->ntypes; k++)
		free(r->types[k].name);
	for (i = 0; i < r->nadvice; i++)
		free(r->advice[i]);
	for (k = 0; k < r->nstats; k++) {
		free(r->stats[k].key);
		free(r->stats[k].value);
	}
	free(r->stats);
	free(r->path);
	free(r->tasks);
	free(r->syscalls);
	free(r->irqs);
	free(r->softirqs);
	free(r->types);
	free(r->cpus);
	free(r->recorded_pids);
	memset(r, 0, sizeof(*r));
}

/* ---- compute ------------------------------------------------------------------ */

/* close what is still open at the end of the trace */
static void close_open(struct overhead *o, const struct rpt_ctx *ctx)
{
	size_t pos = 0;
	struct otask *t;
	int i;

	for (i = 0; i < o->ncpus; i++) {
		struct ocpu *c = &o->cpus[i];
		uint64_t dt;

		if (!c->seen)
			continue;
		dt = clip(o, c->known ? c->since : c->first, ctx->all_last_ts);
		if (!rpt_cpu_selected(ctx->opts, i) || !c->known)
			continue;
		if (c->curr == 0) {
			c->idle += dt;
		} else {
			t = task_get(o, c->curr);
			c->busy += dt;
			if (t)
				t->on_cpu += dt;
		}
	}
	while ((t = rpt_map_next(&o->tasks, &pos, NULL)))
		off_account(o, t, ctx->all_last_ts);
}

static int fill_cpus(const struct overhead *o, const struct rpt_ctx *ctx,
		     struct rpt_overhead_result *r)
{
	int i;

	r->cpus = calloc(o->ncpus > 0 ? (size_t)o->ncpus : 1, sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	for (i = 0; i < o->ncpus; i++) {
		const struct ocpu *c = &o->cpus[i];
		struct rpt_ovh_cpu *rc = &r->cpus[r->ncpus];

		if (!c->seen || !rpt_cpu_selected(ctx->opts, i))
			continue;
		rc->cpu = i;
		rc->known = c->known;
		rc->busy_ns = c->busy;
		rc->idle_ns = c->idle;
		rc->switches = c->switches;
		r->ncpus++;
	}
	return 0;
}

/* the tasks with data in the window and the filters, by on-CPU time */
static int fill_tasks(struct overhead *o, const struct rpt_ctx *ctx, struct rpt_overhead_result *r)
{
	const struct rpt_opts *op = ctx->opts;
	int ssrc = r->syscall_source;
	struct otask **tasks;
	size_t ntasks, k;

	tasks = (struct otask **)collect(&o->tasks, &ntasks, cmp_task);
	r->tasks = calloc(ntasks ? ntasks : 1, sizeof(*r->tasks));
	if (!tasks || !r->tasks) {
		free(tasks);
		return -ENOMEM;
	}
	for (k = 0; k < ntasks; k++) {
		const struct otask *t = tasks[k];
		struct rpt_ovh_task *rt = &r->tasks[r->ntasks];

		if (t->pid == 0 || !rpt_task_selected(ctx, t->pid))
			continue;
		/*
		 * with --cpu: the tasks that ran there (off-CPU time is not per CPU);
		 * a switch-in counts too: a slice does not know since when a task it
		 * sees taking a CPU had waited, the whole file does (its time blocked)
		 */
		if (!(op->has_cpus ? t->on_cpu || t->sys_count[ssrc]
				   : t->on_cpu || t->runnable || t->blocked || t->sys_count[ssrc] ||
				     t->switches))
			continue;
		rt->comm = strdup(rpt_comm(ctx, t->pid));
		if (!rt->comm) {
			free(tasks);
			return -ENOMEM;
		}
		rt->pid = t->pid;
		rt->tgid = rpt_tgid(ctx, t->pid);
		rt->exited = task_gone(t);
		rt->on_cpu_ns = t->on_cpu;
		rt->runnable_ns = t->runnable;
		rt->blocked_ns = t->blocked;
		rt->switches = t->switches;
		rt->syscalls = t->sys_count[ssrc];
		rt->syscall_ns = t->sys_time[ssrc];
		r->ntasks++;
	}
	free(tasks);
	return 0;
}

/* the syscalls of one source (BPF records when present: they see every task's exact durations) */
static int fill_syscalls(struct overhead *o, struct rpt_overhead_result *r)
{
	uint64_t src_calls[2] = { 0, 0 };
	struct osys **sys = NULL;
	size_t nsys, k;
	int ssrc;
	char b1[32];

	sys = (struct osys **)collect(&o->sys, &nsys, cmp_sys);
	r->syscalls = calloc(nsys ? nsys : 1, sizeof(*r->syscalls));
	if (!sys || !r->syscalls) {
		free(sys);
		return -ENOMEM;
	}
	for (k = 0; k < nsys; k++)
		src_calls[sys[k]->src] += sys[k]->h.count;
	ssrc = o->conf->syscall_source == 1 ? 0 :
	       o->conf->syscall_source == 2 ? 1 : src_calls[1] ? 1 : 0;
	r->syscall_source = ssrc;
	r->syscall_calls_other_source = src_calls[!ssrc];
	r->syscalls_unmatched = o->sys_unmatched;
	for (k = 0; k < nsys; k++) {
		const struct osys *s = sys[k];
		struct rpt_ovh_syscall *rs = &r->syscalls[r->nsyscalls];

		if (!s->h.count || s->src != ssrc)
			continue;
		sys_label(s, b1, sizeof(b1));
		rs->name = strdup(b1);
		if (!rs->name) {
			free(sys);
			return -ENOMEM;
		}
		rs->nr = s->nr < 0 ? -1L : s->nr;
		rs->count = s->h.count;
		rs->errors = s->errors;
		rs->total_ns = s->h.sum;
		rs->mean_ns = s->h.count ? s->h.sum / s->h.count : 0;
		rs->min_ns = s->h.min;
		rs->p50_ns = rpt_hist_quantile(&s->h, 0.5);
		rs->p99_ns = rpt_hist_quantile(&s->h, 0.99);
		rs->max_ns = s->h.max;
		rs->from_hist = s->from_hist;
		r->nsyscalls++;
	}
	free(sys);
	return 0;
}

/* rows created by events outside the window carry nothing: only those with a count */
static int fill_irqs(struct rpt_map *m, struct rpt_ovh_irq **out, size_t *nout)
{
	struct oirq **irqs;
	size_t n, k;

	irqs = (struct oirq **)collect(m, &n, cmp_irq);
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!irqs || !*out) {
		free(irqs);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		struct rpt_ovh_irq *ri = &(*out)[*nout];

		if (!irqs[k]->count)
			continue;
		ri->name = strdup(irqs[k]->name);
		if (!ri->name) {
			free(irqs);
			return -ENOMEM;
		}
		ri->nr = irqs[k]->nr;
		ri->count = irqs[k]->count;
		ri->total_ns = irqs[k]->total;
		ri->max_ns = irqs[k]->max;
		(*nout)++;
	}
	free(irqs);
	return 0;
}

/* event types with records, by bytes; *rows (the kinds, for the advice) malloc'd */
static int fill_types(struct overhead *o, const struct rpt_ctx *ctx, struct rpt_overhead_result *r,
		      struct typerow **rowsp)
{
	struct typerow *rows = calloc((size_t)(o->types.n > 0 ? o->types.n : 1), sizeof(*rows));
	char b1[32];	/* labels are cut to 31 bytes, as the tables always had them */
	int i, nrows = 0;

	*rowsp = rows;
	r->types = calloc((size_t)(o->types.n > 0 ? o->types.n : 1), sizeof(*r->types));
	if (!rows || !r->types)
		return -ENOMEM;
	for (i = 0; i < o->types.n; i++) {
		const struct otype *t =
			(const struct otype *)(o->types.slots + (size_t)i * o->types.elem_size);
		int c;

		if (!t->count)
			continue;
		rows[nrows].id = i;
		rows[nrows].t = t;
		for (c = 0; c < t->ncpu; c++)
			if (t->rate[c].peak > rows[nrows].peak) {
				rows[nrows].peak = t->rate[c].peak;
				rows[nrows].peak_cpu = c;
			}
		r->bytes += t->bytes;
		r->events += t->count;
		nrows++;
	}
	qsort(rows, (size_t)nrows, sizeof(*rows), cmp_typerow);
	for (i = 0; i < nrows; i++) {
		struct rpt_ovh_type *rt = &r->types[i];

		rt->name = strdup(type_label(ctx, rows[i].id, b1, sizeof(b1)));
		if (!rt->name)
			return -ENOMEM;
		rt->id = rows[i].id;
		rt->count = rows[i].t->count;
		rt->bytes = rows[i].t->bytes;
		rt->peak_rate = rows[i].peak;
		rt->peak_cpu = rows[i].peak_cpu;
		r->ntypes++;
	}
	return 0;
}

/* stored and page bytes, and the compression ratio (the recorder's own figures first) */
static void fill_storage(const struct overhead *o, const struct rpt_ctx *ctx,
			 struct rpt_overhead_result *r)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	const struct fmt_recstats *rs = m ? &m->rs : NULL;
	int i, c;

	for (i = 0; i < ctx->info->nbuffers; i++)
		for (c = 0; c < ctx->info->buffers[i].ncpus; c++)
			r->stored_bytes += ctx->info->buffers[i].cpus[c].size;
	r->uncompressed_bytes = o->pages * ctx->info->page_size;
	if (rs && rs->bytes_read.has && rs->bytes_written.has && rs->bytes_written.v)
		r->compression_ratio = (double)rs->bytes_read.v / (double)rs->bytes_written.v;
	else if (r->stored_bytes && r->uncompressed_bytes)
		r->compression_ratio = (double)r->uncompressed_bytes / (double)r->stored_bytes;
}

/* what to filter or aggregate: the heaviest event types, and what the file lacks */
static int make_advice(const struct overhead *o, const struct rpt_ctx *ctx,
		       const struct typerow *rows, struct rpt_overhead_result *res)
{
	char **adv = res->advice;
	int i, *nadv = &res->nadvice, nrows = (int)res->ntypes, err = 0;
	uint64_t tot_bytes = res->bytes;
	double ratio = res->compression_ratio;
	uint64_t shown_calls = 0;
	bool sched = false;
	size_t k;

	if (nrows && tot_bytes) {
		const struct typerow *r = &rows[0];
		struct tep_event *e = tep_find_event(ctx->tep, r->id);
		double share = 100.0 * (double)r->t->bytes / (double)tot_bytes;

		/*
		 * Only costs worth acting on: a type with a few hundred records
		 * is cheap whatever its share, and the in-kernel histograms are
		 * already the aggregated form.
		 */
		if (share >= 25 && e && r->t->count >= 1000 && r->t->kind != OK_BPF_SYSHIST) {
			if (r->t->kind == OK_SYS_ENTER || r->t->kind == OK_SYS_EXIT)
				err = add_advice(adv, nadv, 12,
						 "%s:%s is %.0f%% of the bytes: to measure syscall "
						 "latency, aggregate in the kernel instead (--bpf "
						 "syscalls=agg keeps one histogram per task and "
						 "syscall), or filter by pid or syscall id",
						 e->system, e->name, share);
			else if (r->t->kind == OK_SWITCH)
				err = add_advice(adv, nadv, 12,
						 "%s:%s is %.0f%% of the bytes (peak %" PRIu64
						 "/s on CPU %d): filter it to the tasks you study "
						 "(e.g. a filter on prev_pid/next_pid) or use the "
						 "BPF offcpu program, which records only blocks "
						 "longer than a threshold",
						 e->system, e->name, share, r->peak, r->peak_cpu);
			else if (is_graph(r->t))
				err = add_advice(adv, nadv, 12,
						 "function_graph records are %.0f%% of the bytes: "
						 "limit them to the functions you study "
						 "(set_graph_function) and a maximum depth "
						 "(max_graph_depth)",
						 share);
			else if (strstr(e->name, "stack"))
				err = add_advice(adv, nadv, 12,
						 "%s:%s is %.0f%% of the bytes: lower the sampling "
						 "rate or keep stacks only for the events you "
						 "study",
						 e->system, e->name, share);
			else
				err = add_advice(adv, nadv, 12,
						 "%s:%s is %.0f%% of the bytes (peak %" PRIu64
						 "/s on CPU %d): filter it (an event filter on its "
						 "fields, --pid, --cpu) or drop it if the analysis "
						 "does not need it",
						 e->system, e->name, share, r->peak, r->peak_cpu);
		}
		struct tep_event *e0 = tep_find_event(ctx->tep, rows[0].id);

		for (i = 1; !err && i < nrows && i < 3; i++) {
			e = tep_find_event(ctx->tep, rows[i].id);
			share = 100.0 * (double)rows[i].t->bytes / (double)tot_bytes;
			/* the other half of a pair (entry/exit) is covered by the advice above */
			if (e && e0 && share >= 20 && rows[0].t->kind != OK_OTHER &&
			    rows[i].t->kind != OK_OTHER && !strcmp(e->system, e0->system))
				continue;
			if (e && e0 && is_graph(rows[i].t) && is_graph(rows[0].t))
				continue;
			if (e && share >= 20 && rows[i].t->count >= 1000 &&
			    rows[i].t->kind != OK_BPF_SYSHIST)
				err = add_advice(adv, nadv, 12,
						 "%s:%s is another %.0f%% of the bytes: filter or "
						 "aggregate it too",
						 e->system, e->name, share);
		}
	}
	for (i = 0; i < o->ncpus; i++)
		if (o->cpus[i].known)
			sched = true;
	if (!err && !sched && res->events)
		err = add_advice(adv, nadv, 12,
				 "the file has no sched:sched_switch events, so CPU busy/idle and "
				 "task on/off-CPU times are unknown: record sched_switch (or --bpf "
				 "offcpu) to get them");
	for (k = 0; k < res->nsyscalls; k++)
		shown_calls += res->syscalls[k].count;
	if (!err && shown_calls && res->syscall_calls_other_source)
		err = add_advice(adv, nadv, 12,
				 "syscalls are recorded twice (tracepoints and BPF records): drop "
				 "the raw_syscalls/syscalls events, the BPF records carry the "
				 "durations");
	if (!err && ctx->nlosses)
		err = add_advice(adv, nadv, 12,
				 "the trace lost events (%d loss markers): see 'flytrap drops' for "
				 "where, and filter the heaviest events above first",
				 ctx->nlosses);
	if (!err && ratio > 0 && ratio < 2 && res->stored_bytes > (1 << 20))
		err = add_advice(adv, nadv, 12,
				 "the data compresses only %.1fx: many distinct values (pointers, "
				 "timestamps) in the events; fewer fields or aggregation help more "
				 "than compression",
				 ratio);
	return err;
}

struct rs_keep {
	struct rpt_overhead_result *r;
	bool oom;
};

static void rs_keep(void *arg, const char *k, int kl, const char *v, int vl)
{
	struct rs_keep *w = arg;
	struct rpt_ovh_stat *n;

	if (w->oom)
		return;
	n = realloc(w->r->stats, (w->r->nstats + 1) * sizeof(*n));
	if (!n) {
		w->oom = true;
		return;
	}
	w->r->stats = n;
	n += w->r->nstats;
	n->key = strndup(k, (size_t)kl);
	n->value = strndup(v, (size_t)vl);
	w->r->nstats++;
	w->oom = !n->key || !n->value;
}

/* What the JSON says of the file: its path, damage, losses and the recorder's statistics. */
static int fill_file(struct rpt_overhead_result *r, const struct rpt_ctx *ctx)
{
	struct rs_keep w = { .r = r };

	r->path = strdup(ctx->opts->path ? ctx->opts->path : "");
	r->partial = rpt_partial(ctx);
	rpt_notes_fill(ctx, r->first_ts, r->last_ts, &r->notes);
	recstats_each(ctx, &w, rs_keep);
	return !r->path || w.oom ? -ENOMEM : 0;
}

static int ovh_compute(struct overhead *o, const struct rpt_ctx *ctx, struct rpt_overhead_result *r)
{
	const struct rpt_opts *op = ctx->opts;
	struct typerow *rows = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	if (o->oom)
		return -ENOMEM;
	if (!o->closed)
		close_open(o, ctx);
	r->recorded_pids = recorded_pids(ctx);
	err = fill_cpus(o, ctx, r);
	if (!err)
		err = fill_syscalls(o, r);
	if (!err)
		err = fill_tasks(o, ctx, r);
	if (!err)
		err = fill_irqs(&o->irqs, &r->irqs, &r->nirqs);
	if (!err)
		err = fill_irqs(&o->softirqs, &r->softirqs, &r->nsoftirqs);
	if (!err)
		err = fill_types(o, ctx, r, &rows);
	r->ucopy_stacks = o->ucopy_stacks;
	r->ucopy_bytes = o->ucopy_bytes;
	if (!err) {
		fill_storage(o, ctx, r);
		err = make_advice(o, ctx, rows, r);
	}
	free(rows);
	r->first_ts = op->has_t0 ? op->t0_ns : ctx->all_first_ts;
	r->last_ts = op->has_t1 && op->t1_ns < ctx->all_last_ts ? op->t1_ns : ctx->all_last_ts;
	if (r->last_ts < r->first_ts)
		r->last_ts = r->first_ts;
	if (!err)
		err = fill_file(r, ctx);
	return err;
}

static int ovh_finish(struct rpt_ctx *ctx, void *priv)
{
	struct overhead *o = priv;
	const struct rpt_opts *op = ctx->opts;
	FILE *out = op->out ? op->out : stdout;
	struct rpt_overhead_result res;
	int err = ovh_compute(o, ctx, &res);

	if (!err && o->conf->result) {
		*o->conf->result = res;	/* the caller's now */
		return 0;
	}
	if (!err && op->json)
		err = rpt_overhead_print_json(&res, out);
	else if (!err)
		rpt_overhead_text(&res, op, o->conf->top, out);
	rpt_overhead_result_release(&res);
	return err;
}

static void ovh_release(void *priv)
{
	struct overhead *o = priv;
	size_t pos = 0;
	struct osys *sy;
	int i;

	while ((sy = rpt_map_next(&o->sys, &pos, NULL)))
		rpt_hist_release(&sy->h);
	for (i = 0; i < o->types.n; i++) {
		struct otype *t = (struct otype *)(o->types.slots + (size_t)i * o->types.elem_size);

		free(t->rate);
	}
	rpt_types_release(&o->types);
	rpt_map_release(&o->tasks);
	rpt_map_release(&o->sys);
	rpt_map_release(&o->irqs);
	rpt_map_release(&o->softirqs);
	rpt_map_release(&o->lastpage);
	free(o->cpus);
}

const struct rpt_analyzer rpt_overhead_analyzer = {
	.name = "overhead",
	.priv_size = sizeof(struct overhead),
	.init = ovh_init,
	/* scheduling state needs every event; the filters are applied inside */
	.event_unfiltered = ovh_event,
	.window_read = ovh_window_read,
	.window_begin = ovh_window_begin,
	.range_end = ovh_range_end,
	.merge = ovh_merge,
	.finish = ovh_finish,
	.release = ovh_release,
	.kinds = OVH_KINDS,
};

static const char ovh_usage[] =
	"usage: flytrap overhead [options] [FILE]\n"
	"\n"
	"Where the time went in FILE (default trace.dat): CPU busy/idle, per-task\n"
	"on-CPU, runnable and blocked time, syscall count/total/mean/p50/p99/max, IRQ\n"
	"and softirq time; and what the tracing cost: events and bytes per type, peak\n"
	"rate per CPU, the recorder's own figures, and what to filter or aggregate.\n"
	"\n"
	"options:\n";

const char rpt_overhead_options_help[] =
	"  --top N            rows per table (default 20)\n"
	"  --syscalls SRC     bpf or tracepoints: which records the syscall table uses\n"
	"                     when the file has both (default: bpf)\n";

enum { OVH_O_SYSCALLS = 1, OVH_O_TOP };

const struct ft_opt rpt_overhead_opts[] = {
	{ "syscalls", 0, true, OVH_O_SYSCALLS }, { "top", 0, true, OVH_O_TOP }, { 0 },
};

int rpt_overhead_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct rpt_overhead_conf *c = arg;
	uint64_t n;

	(void)table;
	if (o->id == OVH_O_SYSCALLS) {
		if (!strcmp(v, "bpf"))
			c->syscall_source = 2;
		else if (!strcmp(v, "tracepoints"))
			c->syscall_source = 1;
		else
			return ft_usage_error("--syscalls needs bpf or tracepoints, not '%s'", v);
		return 0;
	}
	if (ft_parse_u64(v, &n) || !n || n > 1000000)
		return ft_usage_error("--top needs a number from 1 to 1000000, not '%s'", v);
	c->top = (int)n;
	return 0;
}

int cmd_overhead(int argc, char **argv)
{
	struct rpt_overhead_conf conf = { 0 };
	struct rpt_analyzer an = rpt_overhead_analyzer;
	const struct rpt_analyzer *list[1] = { &an };
	char usage[sizeof(ovh_usage) + sizeof(rpt_overhead_options_help)];
	struct rpt_command c = { .usage = usage, .opts = { rpt_overhead_opts },
				 .option = rpt_overhead_option, .an = list, .n = 1,
				 .arg = &conf };

	an.conf = &conf;
	snprintf(usage, sizeof(usage), "%s%s", ovh_usage, rpt_overhead_options_help);
	return rpt_run_command(argc, argv, &c);
}
