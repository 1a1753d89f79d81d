// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap export: the trace as Chrome trace-event JSON (what the Perfetto
 * UI and chrome://tracing load), or as one self-contained HTML report.
 *
 * The JSON is written while the replay runs: memory holds the open slices
 * of each thread and the state of each CPU, never the events.  Tracks:
 *  - one per task (pid = thread group when known, tid = task): syscalls
 *    and function calls as nested slices;
 *  - a "CPUs" process with one track per CPU showing which task runs (from
 *    sched_switch) and one per CPU with hard and soft interrupts;
 *  - loss markers (instant events) where the kernel or BPF dropped data,
 *    and counters for busy CPUs and events lost so far.
 * Slices on a thread are kept properly nested: an exit closes its entry,
 * and what was opened above that entry never exited in the trace (its
 * exit was lost); an exit without an entry becomes a slice only when it
 * nests inside what is open and after what already closed, otherwise it is
 * counted and dropped.
 *
 * Every slice is written when it ends, as a B and an E event with the same
 * name and args (viewers such as speedscope pair them by name and args,
 * and add an X's duration to its start in floating point, which can move
 * its end past the start of the next slice).  An entry whose exit is not
 * in the trace has no known length: it becomes an instant event on its
 * track at its start, and is counted (enters_without_exit).
 *
 * This file decides what goes where; export_json.c writes each event,
 * export_cmd.c is the command, and which exit closes which entry is
 * report/core/calls.c's rule.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "report/core/calls.h"
#include "report/core/replay.h"
#include "report/out/flamesvg.h"
#include "report/out/json.h"
#include "report/syms/sysnames.h"
#include "report/analyzers/export.h"
#include "report/analyzers/export_int.h"

/* One export per process: the command (export_cmd.c) sets this before the replay. */
struct exp_conf exp_conf;

/* ---- tasks ----------------------------------------------------------------- */

static int cpu_grow(struct exp *x, int cpu)
{
	struct cpu_state *a;
	int n;

	if (cpu < x->ncpus)
		return 0;
	if (cpu < 0 || cpu > 65535)
		return -EINVAL;
	n = cpu + 1 > x->ncpus * 2 ? cpu + 1 : x->ncpus * 2;
	a = realloc(x->cpus, (size_t)n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a + x->ncpus, 0, (size_t)(n - x->ncpus) * sizeof(*a));
	x->cpus = a;
	x->ncpus = n;
	return 0;
}

/*
 * The track of task tid (common_pid) seen on cpu.  tgid is the thread
 * group when the event carries it (BPF records), else -1: the replay's
 * task table may know it; a task whose group is unknown at its first event
 * is its own process (the pid of a track cannot change later).
 */
static struct thr *thread_track(struct exp *x, const struct rpt_ctx *ctx, int32_t tid, int cpu,
				int32_t tgid, bool side)
{
	uint64_t key = tid == 0 ? (1ULL << 40) | (uint32_t)cpu : (uint32_t)tid;
	struct cpu_state *c = &x->cpus[cpu];
	bool created = false;
	struct thr *t;

	if (side)
		key |= 1ULL << 41;
	/* consecutive events on a CPU are mostly the same task's; map values never move */
	if (c->last_thr && c->last_key == key)
		return c->last_thr;
	t = rpt_map_get(&x->threads, key, &created);
	if (!t)
		return NULL;
	c->last_thr = t;
	c->last_key = key;
	if (created) {
		rpt_calls_init(&t->open, sizeof(struct oslice));
		t->real_tid = tid;
		t->side = side;
		if (tid == 0) {
			t->pid = 0;
			t->tid = IDLE_TID_BASE + cpu;
		} else {
			if (tgid <= 0)
				tgid = rpt_tgid(ctx, tid);
			t->pid = tgid > 0 ? tgid : tid;
			t->tid = tid;
		}
		if (side)
			t->tid += SIDE_TID_OFFSET;
	}
	return t;
}

static struct thr *thread(struct exp *x, const struct rpt_ctx *ctx, int32_t tid, int cpu,
			  int32_t tgid)
{
	return thread_track(x, ctx, tid, cpu, tgid, false);
}

/*
 * HTML mode: the stacks of calls as they close, self time as weight, under
 * a "comm-tid" root; used when the callgraph analyzer is not available.
 */
static uint32_t nopen(const struct thr *t)
{
	return (uint32_t)t->open.n;
}

static struct oslice *open_at(const struct thr *t, uint32_t i)
{
	return rpt_calls_at(&t->open, (int)i);
}

/* the innermost open slice; NULL: none */
static struct oslice *open_top(const struct thr *t)
{
	return t->open.n ? open_at(t, nopen(t) - 1) : NULL;
}

static void flame_close(struct exp *x, const struct rpt_ctx *ctx, struct thr *t,
			const char *leaf, uint64_t dur, uint64_t self)
{
	const char *fr[66];
	char root[48];
	uint32_t i, n = 0, skip;

	if (!x->hd || !x->hd->calls)
		return;
	snprintf(root, sizeof(root), "%s-%d", t->real_tid ? rpt_comm(ctx, t->real_tid) : "swapper",
		 t->real_tid);
	fr[n++] = root;
	/* keep the innermost frames when the stack is deeper than the array */
	skip = nopen(t) > 64 ? nopen(t) - 64 : 0;
	for (i = skip; i < nopen(t); i++)
		fr[n++] = open_at(t, i)->name;
	if (leaf)
		fr[n++] = leaf;
	rpt_flame_add(x->hd->calls, fr, (int)n, self);
	(void)dur;
}

static struct level *cur_level(struct thr *t)
{
	return t->open.n ? &open_top(t)->kids : &t->top;
}

static void level_add(struct level *l, uint64_t start, uint64_t end)
{
	l->s[l->pos] = start;
	l->e[l->pos] = end;
	l->pos = (uint8_t)((l->pos + 1) % KIDS);
	if (l->n < KIDS)
		l->n++;
	else
		l->truncated = true;
}

/* true when no slice closed at this level starts before start and ends after it */
static bool level_fits(const struct level *l, uint64_t start)
{
	uint64_t oldest_end = UINT64_MAX;
	int i;

	for (i = 0; i < l->n; i++) {
		if (l->s[i] < start && l->e[i] > start)
			return false;
		if (l->e[i] < oldest_end)
			oldest_end = l->e[i];
	}
	/* forgotten ones end before the oldest kept: harmless only if that is before start */
	return !l->truncated || oldest_end <= start;
}

static const char *oslice_name(const struct oslice *s)
{
	return s->nm ? s->nm : s->name;
}

/* End the innermost open slice at ts; ret goes into its args when has_ret. */
static void close_top_ret(struct exp *x, struct thr *t, uint64_t ts, bool has_ret, int64_t ret)
{
	struct oslice *s = open_top(t), *up;
	struct rpt_json *a = exp_args_begin(x);
	uint64_t dur;

	if (ts < s->ts)
		ts = s->ts;
	dur = ts - s->ts;
	if (x->hd && x->ctx)
		flame_close(x, x->ctx, t, NULL, dur, dur > s->child_ns ? dur - s->child_ns : 0);
	t->open.n--;	/* s stays readable: the element is only reused by the next push */
	if ((up = open_top(t)))
		up->child_ns += dur;
	if (has_ret) {
		rpt_json_obj(a);
		RPT_JSON_KEY_LIT(a, "ret");
		rpt_json_i64(a, ret);
		rpt_json_obj_end(a);
	}
	exp_slice_pair(x, t->pid, t->tid, s->ts, ts, oslice_name(s), s->nl, s->cat);
	t->used = true;
	x->slices++;
	level_add(cur_level(t), s->ts, ts);
}

static void close_top(struct exp *x, struct thr *t, uint64_t ts)
{
	close_top_ret(x, t, ts, false, 0);
}

/*
 * The innermost open slice never saw its exit (lost, not recorded, or
 * after the end of the trace): an instant at its entry, counted.
 */
static void drop_top(struct exp *x, struct thr *t)
{
	struct oslice *s = open_at(t, (uint32_t)--t->open.n);

	exp_instant(x, s->ts, t->pid, t->tid, "t", oslice_name(s), s->nl);
	RPT_JSON_KEY_LIT(&x->j, "cat");
	rpt_json_value(&x->j, s->cat, strlen(s->cat));
	exp_no_exit_end(&x->j);
	t->used = true;
	x->no_exit++;
	x->instants++;
}

/*
 * An entry: kept open until its exit.  name must outlive the replay unless
 * copy (a name formatted into the caller's buffer: kept in the slice).
 */
static void open_slice(struct exp *x, struct thr *t, uint64_t ts, const struct rpt_call *pc,
		       const char *name, size_t namelen, bool copy, const char *cat)
{
	struct oslice *o;
	size_t l;
	int n;

	/* what it ends first (calls.h): slices whose exits were lost, as instants */
	for (n = rpt_calls_enter(&t->open, pc); n > 0; n--)
		drop_top(x, t);
	o = rpt_calls_push(&t->open, pc, MAX_OPEN);
	if (!o) {
		x->too_deep++;
		return;
	}
	o->ts = ts;
	o->cat = cat;
	l = strnlen(name, namelen < sizeof(o->name) - 1 ? namelen : sizeof(o->name) - 1);
	memcpy(o->name, name, l);
	o->name[l] = '\0';
	o->nm = copy ? NULL : name;
	o->nl = copy ? l : namelen;
}

/*
 * Find the open slice exit pc closes (calls.h), drop what is above it
 * (those never exited: instants), and leave it on top.  Returns false when
 * nothing pairs (an exit whose entry is not in the trace).
 */
static bool unwind_to(struct exp *x, struct thr *t, const struct rpt_call *pc)
{
	int drop, k = rpt_calls_exit(&t->open, pc, &drop);

	for (; drop > 0; drop--)
		drop_top(x, t);
	return k >= 0;
}

/*
 * A call known only from its exit (start, duration; it ends now): written
 * as a complete event when it fits the thread's nesting — inside the
 * innermost open slice, and straddling no slice already closed at that
 * level (those it covers whole become its children).
 */
static bool complete_ok(struct thr *t, uint64_t start)
{
	if (t->open.n && start < open_top(t)->ts)
		return false;
	return level_fits(cur_level(t), start);
}

/* The args of a call known only from its exit. */
static void args_entry_lost(struct exp *x)
{
	struct rpt_json *a = exp_args_begin(x);

	rpt_json_obj(a);
	rpt_json_kbool(a, "entry_lost", true);
	rpt_json_obj_end(a);
}

/* A call known from its end: start..end, args from x->a (exp_args_begin() first). */
static void complete(struct exp *x, struct thr *t, uint64_t start, uint64_t end,
		     const char *name, size_t namelen, const char *cat)
{
	exp_slice_pair(x, t->pid, t->tid, start, end, name, namelen, cat);
	t->used = true;
	x->completes++;
	if (x->hd && x->ctx) {
		char leaf[63];

		snprintf(leaf, sizeof(leaf), "%.*s", (int)(namelen < 62 ? namelen : 62), name);
		flame_close(x, x->ctx, t, leaf, end - start, end - start);
	}
	if (t->open.n)
		open_top(t)->child_ns += end - start;
	level_add(cur_level(t), start, end);
}

/* ---- event types ----------------------------------------------------------- */

/*
 * What export does with each kind of report/core/kinds.h (absent: nothing,
 * K_OTHER): its table and the kinds it reads as typed records (EXP_KINDS,
 * decoded once by the replay), from one list.
 */
#define EXP_KIND_LIST(X) \
	X(SCHED_SWITCH, K_SCHED_SWITCH) \
	X(SCHED_WAKEUP, K_WAKEUP) \
	X(PROCESS_EXIT, K_PROCESS_EXIT) \
	X(RAW_SYS_ENTER, K_RAW_SYS_ENTER) \
	X(RAW_SYS_EXIT, K_RAW_SYS_EXIT) \
	X(SYS_ENTER, K_SYS_ENTER) \
	X(SYS_EXIT, K_SYS_EXIT) \
	X(FG_ENTRY, K_FG_ENTRY) \
	X(FG_EXIT, K_FG_EXIT) \
	X(BPF_SYSCALL, K_BPF_SYSCALL) \
	X(BPF_UFUNC_ENTRY, K_BPF_UENTRY) \
	X(BPF_KFUNC_ENTRY, K_BPF_UENTRY) \
	X(BPF_UFUNC_EXIT, K_BPF_UEXIT) \
	X(BPF_KFUNC_EXIT, K_BPF_UEXIT) \
	X(BPF_OFFCPU, K_BPF_OFFCPU) \
	X(IRQ_ENTRY, K_IRQ_ENTRY) \
	X(IRQ_EXIT, K_IRQ_EXIT) \
	X(SOFTIRQ_ENTRY, K_SOFTIRQ_ENTRY) \
	X(SOFTIRQ_EXIT, K_SOFTIRQ_EXIT) \
	X(PROBE_ENTRY, K_PROBE_ENTRY) \
	X(PROBE_RET, K_PROBE_RET)
static const uint8_t kind_of[RPT_K_NR] = { EXP_KIND_LIST(RPT_KIND_ENTRY) };

/* The kinds export reads as typed records (ctx->rec, decoded once by the replay). */
#define EXP_KINDS (0 EXP_KIND_LIST(RPT_KIND_MASK))

/* What export does with an event id of the kind table (its fields are the replay's). */
static void resolve(struct exp_evtype *et, const struct tep_event *e,
		    const struct rpt_kind_info *ki)
{
	et->kind = kind_of[ki->kind] ? kind_of[ki->kind] : K_OTHER;
	et->evname = e ? e->name : NULL;
	et->name = ki->arg;
	/* kfunc records have the ufunc layout: only the names table differs */
	et->kfunc = ki->kind == RPT_K_BPF_KFUNC_ENTRY || ki->kind == RPT_K_BPF_KFUNC_EXIT;
	/* slices pair probes by address: a probe known by name only has none */
	if (ki->probe_by_name)
		et->kind = K_OTHER;
	/* a return pairs by name too (calls.h): its entry's, NAME for NAME__return */
	if (ki->kind == RPT_K_PROBE_ENTRY && ki->arg) {
		et->probe_name = rpt_hash_str(ki->arg);
	} else if (ki->kind == RPT_K_PROBE_RET && ki->arg) {
		char entry[256];

		et->probe_name = rpt_hash_str(rpt_probe_entry_name(ki->arg, entry, sizeof(entry)));
	}
}

static const char *softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER",
	"RCU",
};

/*
 * BPF-traced user functions are named by "bpf_ufunc=N BINARY NAME 0xADDR"
 * lines of the META option (record/bpf.c), kernel functions by "bpf_kfunc=N
 * [kernel.kallsyms|MODULE] NAME 0xADDR"; read once into x->ufn / x->kfn.
 */
static int ufunc_names(struct exp *x, bool kfunc)
{
	struct exp_fname **tab = kfunc ? &x->kfn : &x->ufn;
	uint32_t *cnt = kfunc ? &x->nkfn : &x->nufn;
	const char *key = kfunc ? FMT_META_BPF_KFUNC : FMT_META_BPF_UFUNC;
	size_t k;

	for (k = 0; x->meta && k < x->meta->all.n; k++) {
		const char *v = x->meta->all.kv[k].val, *end, *b, *nm, *sp;
		char *num_end;
		unsigned long n;

		if (!v || strcmp(x->meta->all.kv[k].key, key))
			continue;
		end = v + strlen(v);
		n = strtoul(v, &num_end, 10);

		if (num_end == v || n > 65535 || num_end >= end || *num_end != ' ')
			continue;
		b = num_end + 1;
		nm = memchr(b, ' ', (size_t)(end - b));
		if (!nm)
			continue;
		nm++;
		sp = memchr(nm, ' ', (size_t)(end - nm));
		if (n >= *cnt) {
			struct exp_fname *a = realloc(*tab, (n + 1) * sizeof(*a));

			if (!a)
				return -ENOMEM;
			memset(a + *cnt, 0, (n + 1 - *cnt) * sizeof(*a));
			*tab = a;
			*cnt = (uint32_t)n + 1;
		}
		(*tab)[n].name = nm;
		(*tab)[n].len = sp ? (size_t)(sp - nm) : (size_t)(end - nm);
	}
	return 0;
}

/* name of BPF ufunc (or kfunc) func, else "ufunc#N" ("kfunc#N") in buf */
static const char *ufunc_name(const struct exp *x, bool kfunc, uint32_t func, size_t *len,
			      char *buf, size_t blen)
{
	const struct exp_fname *tab = kfunc ? x->kfn : x->ufn;
	uint32_t n = kfunc ? x->nkfn : x->nufn;

	if (func < n && tab[func].name && tab[func].len) {
		*len = tab[func].len;
		return tab[func].name;
	}
	snprintf(buf, blen, "%s#%u", kfunc ? "kfunc" : "ufunc", func);
	*len = strlen(buf);
	return buf;
}

/* Name of BPF program slot prog from "bpf_progs=a,b,c", into buf. */
static const char *bpf_prog_name(const struct exp *x, uint32_t prog, char *buf, size_t blen)
{
	if (x->meta && prog < x->meta->nbpf_progs)
		snprintf(buf, blen, "%.60s", x->meta->bpf_prog_names[prog]);
	else
		snprintf(buf, blen, "program %u", prog);
	return buf;
}

/* ---- per event ------------------------------------------------------------- */

static void run_end(struct exp *x, int cpu, uint64_t ts, const char *comm, size_t commlen,
		    int32_t pid, bool partial, int64_t state, bool has_state)
{
	struct cpu_state *c = &x->cpus[cpu];
	uint64_t start = c->known ? c->run_start : c->first_ts;
	struct rpt_json *a;

	if (ts <= start || pid == 0)
		return;
	a = exp_args_begin(x);
	rpt_json_obj(a);
	RPT_JSON_KEY_LIT(a, "pid");
	rpt_json_i64(a, pid);
	if (has_state) {
		RPT_JSON_KEY_LIT(a, "prev_state");
		rpt_json_i64(a, state);
	}
	if (partial)
		rpt_json_kbool(a, "partial", true);
	rpt_json_obj_end(a);
	exp_slice_pair(x, CPU_PID, CPU_TID(cpu), start, ts, comm, commlen, CAT("sched"));
	x->sched_slices++;
	if (x->hd && exp_tl_busy(&x->hd->tl, cpu, start, ts) == 0 && x->hd->oncpu) {
		int cl = (int)strnlen(comm, commlen < 16 ? commlen : 16);
		char cbuf[17], name[48];
		const char *fr[2];

		snprintf(cbuf, sizeof(cbuf), "%.*s", cl, comm);
		snprintf(name, sizeof(name), "%s-%d", cbuf, pid);
		fr[0] = cbuf;
		fr[1] = name;
		rpt_flame_add(x->hd->oncpu, fr, 2, ts - start);
	}
}

/*
 * The woken task starts running: an arrow (flow events, bound to the
 * enclosing slices) from the waker's run to this run on the CPU tracks.
 */
static void wake_flow(struct exp *x, int32_t pid, int cpu, uint64_t ts)
{
	struct wake *w = rpt_map_find(&x->wakeups, (uint32_t)pid);
	int k;

	if (!w || !w->ts || w->ts > ts)
		return;
	x->flow_id++;
	/* no "bp":"e": an f binds to the next slice, the run that starts here */
	for (k = 0; k < 2; k++) {
		exp_ev(x, k ? 'f' : 's', k ? ts : w->ts, CPU_PID, CPU_TID(k ? cpu : w->cpu));
		RPT_JSON_KEY_LIT(&x->j, "id");
		rpt_json_u64(&x->j, x->flow_id);
		rpt_json_kstr(&x->j, "name", "wakeup");
		rpt_json_kstr(&x->j, "cat", "sched");
		rpt_json_obj_end(&x->j);
	}
	w->ts = 0;
	x->flows++;
}

static void busy_counter(struct exp *x, uint64_t ts)
{
	exp_ev(x, 'C', ts, CPU_PID, CPU_PID);
	rpt_json_kstr(&x->j, "name", "busy CPUs");
	rpt_json_kobj(&x->j, "args");
	RPT_JSON_KEY_LIT(&x->j, "busy");
	rpt_json_i64(&x->j, x->nbusy);
	rpt_json_obj_end(&x->j);
	rpt_json_obj_end(&x->j);
}

static void on_switch(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
		      const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_rec *r = ctx->rec;
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t prev = r->sw.prev_pid, next = r->sw.next_pid;
	int plen = r->sw.prev_comm.len, nlen = r->sw.next_comm.len;
	const char *pcomm = r->sw.prev_comm.s, *ncomm = r->sw.next_comm.s;
	bool was_busy = c->known ? c->cur != 0 : prev != 0;
	char pbuf[24];

	if (!pcomm) {
		snprintf(pbuf, sizeof(pbuf), "pid %d", prev);
		pcomm = pbuf;
		plen = (int)strlen(pbuf);
	}
	run_end(x, cpu, ev->rec.ts, pcomm, (size_t)plen, prev, !c->known || c->cur != prev,
		r->sw.prev_state, r->sw.has_state);
	c->known = true;
	c->cur = next;
	c->run_start = ev->rec.ts;
	if (next > 0 && x->wakeups.count)
		wake_flow(x, next, cpu, ev->rec.ts);
	memset(c->comm, 0, sizeof(c->comm));
	if (ncomm)
		memcpy(c->comm, ncomm, (size_t)nlen < 16 ? (size_t)nlen : 16);
	else
		snprintf(c->comm, sizeof(c->comm), "pid %d", next);
	if (was_busy != (next != 0)) {
		x->nbusy += next != 0 ? 1 : -1;
		if (x->nbusy < 0)
			x->nbusy = 0;
		busy_counter(x, ev->rec.ts);
	}
	if (x->hd)
		x->hd->tl.have_sched = true;
}

static void irq_slice(struct exp *x, int cpu, uint64_t start, uint64_t end, const char *name,
		      size_t len, const char *cat, int64_t nr)
{
	struct rpt_json *a = exp_args_begin(x);

	rpt_json_obj(a);
	rpt_json_ki64(a, "nr", nr);
	rpt_json_obj_end(a);
	exp_slice_pair(x, CPU_PID, IRQ_TID(cpu), start, end, name, len, cat);
	x->irq_slices++;
}

/* "softirq NET_RX", or "softirq N" for a vector softirq_names has no name for */
static void softirq_label(int32_t vec, char *buf, size_t len)
{
	if (vec >= 0 && vec < (int32_t)(sizeof(softirq_names) / sizeof(softirq_names[0])))
		snprintf(buf, len, "softirq %s", softirq_names[vec]);
	else
		snprintf(buf, len, "softirq %d", vec);
}

/*
 * An irq handler entry whose exit never came (lost, or the exit event was
 * not recorded): a marker, since its length is unknown.
 */
static void irq_unended(struct exp *x, int cpu)
{
	struct cpu_state *c = &x->cpus[cpu];
	char name[64];

	snprintf(name, sizeof(name), "irq %d %.32s", c->irq, c->irq_name);
	exp_instant(x, c->irq_start, CPU_PID, IRQ_TID(cpu), "t", name, SIZE_MAX);
	rpt_json_kstr(&x->j, "cat", "irq");
	exp_no_exit_end(&x->j);
	c->in_irq = false;
	x->instants++;
}

/* A softirq still running at the end of the trace: a marker, like irq_unended(). */
static void softirq_unended(struct exp *x, int cpu)
{
	struct cpu_state *c = &x->cpus[cpu];
	char name[48];

	softirq_label(c->softirq, name, sizeof(name));
	exp_instant(x, c->softirq_start, CPU_PID, IRQ_TID(cpu), "t", name, SIZE_MAX);
	rpt_json_kstr(&x->j, "cat", "softirq");
	exp_no_exit_end(&x->j);
	c->in_softirq = false;
	x->instants++;
	x->no_exit++;
}

/* Name of syscall nr: the static table entry, or "syscall_NR" formatted into buf. */
static const char *syscall_name(struct exp *x, int64_t nr, char *buf, size_t len)
{
	const char *n = rpt_syscall_name(x->abi, (long)nr);

	if (n)
		return n;
	snprintf(buf, len, "syscall_%" PRId64, nr);
	return buf;
}

/*
 * Viewers read ts as a double of microseconds: exact to the nanosecond
 * only below 2^53 ns (about 104 days).  Uptime clocks stay below; a file
 * on wall-clock time (trace-cmd's DATE option, epoch ns) does not, and
 * gets its timestamps counted from the start of the second of its first
 * event (otherData.ts_offset_us says by how much).
 */
#define TS_EXACT_MAX (1ULL << 53)

static void ts_base(struct exp *x, const struct rpt_ctx *ctx, uint64_t ts)
{
	uint64_t first = ctx->nevents_all && ctx->all_first_ts < ts ? ctx->all_first_ts : ts;

	x->based = true;
	if (first >= TS_EXACT_MAX)
		x->base = first - first % UINT64_C(1000000000);
}

/* A kernel function's symbol, or its address formatted into buf when kallsyms lacks it. */
static const char *kfunc_name(const struct rpt_ctx *ctx, uint64_t addr, char *buf, size_t len)
{
	/* the reader's table: safe beside the ranges of the other analyzers (replay.c) */
	const char *fn = fmt_reader_ksym(ctx->r, addr, NULL);

	if (fn)
		return fn;
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

/*
 * Remember who woke a task, so that an arrow can be drawn when it runs.
 * An arrow needs a slice at its start: the waker's run on this CPU.
 */
static void on_wakeup(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
		      const struct fmt_event *ev, int32_t tid)
{
	int32_t p = ctx->rec->wake.pid;
	struct cpu_state *c = &x->cpus[ev->rec.cpu];
	uint64_t ts = ev->rec.ts;
	struct wake *w;

	if (p <= 0 || !c->known || c->cur == 0 || c->run_start >= ts)
		return;
	w = rpt_map_get(&x->wakeups, (uint32_t)p, NULL);
	if (w && !w->ts) {
		w->ts = ts;
		w->cpu = ev->rec.cpu;
	}
}

/* A task that exits leaves nothing open: its slices end here. */
static void on_process_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			    const struct fmt_event *ev, int32_t tid)
{
	int32_t p = ctx->rec->task.pid;
	struct thr *pt = p > 0 ? rpt_map_find(&x->threads, (uint32_t)p) : NULL;

	while (pt && pt->open.n) {
		close_top(x, pt, ev->rec.ts);
		x->forced_ends++;
	}
}

/* a syscall as calls.h pairs it: by number, -1 (not known) pairing with any */
static struct rpt_call sys_call(int64_t nr)
{
	return (struct rpt_call){ .key = nr >= 0 ? (uint64_t)nr : RPT_CALL_ANY,
				  .src = RPT_CALL_SYSCALL };
}

static void on_sys_enter(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	int64_t nr = ctx->rec->sys.id;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	const struct rpt_call pc = sys_call(nr);
	char name[64];
	const char *s;

	if (!t)
		return;
	/* a syscall never nests in another: open_slice ends an open one, which lost its exit */
	s = et->kind == K_SYS_ENTER ? et->name : syscall_name(x, nr, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, &pc, s, strlen(s), s == name, CAT("syscall"));
}

static void on_sys_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			const struct fmt_event *ev, int32_t tid)
{
	int64_t ret = ctx->rec->sys.ret;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	const struct rpt_call pc = sys_call(ctx->rec->sys.id);

	if (!t)
		return;
	if (!unwind_to(x, t, &pc)) {
		x->orphans++;
		return;
	}
	close_top_ret(x, t, ev->rec.ts, ctx->rec->sys.has_ret, ret);
}

static void on_funcgraph_entry(struct exp *x, const struct rpt_ctx *ctx,
			       const struct exp_evtype *et, const struct fmt_event *ev, int32_t tid)
{
	uint64_t addr = ctx->rec->fg.func;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	const struct rpt_call pc = { .key = addr, .depth = (uint32_t)ctx->rec->fg.depth,
				     .src = RPT_CALL_FGRAPH };
	char name[64];
	const char *fn;

	if (!t)
		return;
	fn = kfunc_name(ctx, addr, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, &pc, fn, strlen(fn), fn == name, CAT("kernel"));
}

/*
 * A function_graph exit closes its entry; without one, its calltime and
 * rettime still give the call's length, so it can become a whole slice.
 */
static void on_funcgraph_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			      const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_rec *r = ctx->rec;
	uint64_t addr = r->fg.func, call = r->fg.calltime, ret = r->fg.rettime;
	uint64_t ts = ev->rec.ts;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	const struct rpt_call pc = { .key = addr, .depth = (uint32_t)r->fg.depth,
				     .src = RPT_CALL_FGRAPH };
	char name[64];
	const char *fn;

	if (!t)
		return;
	if (unwind_to(x, t, &pc)) {
		close_top(x, t, ts);
	} else if (r->fg.has_times && ret > call &&
		   ret - call <= ts && complete_ok(t, ts - (ret - call))) {
		fn = kfunc_name(ctx, addr, name, sizeof(name));
		args_entry_lost(x);
		complete(x, t, ts - (ret - call), ts, fn, strlen(fn), CAT("kernel"));
	} else {
		x->orphans++;
	}
}

static void on_probe_entry(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			   const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_call pc = { .key = ctx->rec->probe.ip, .name = et->probe_name,
				     .src = RPT_CALL_PROBE };
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);

	if (t)
		open_slice(x, t, ev->rec.ts, &pc, et->name, strlen(et->name), false, CAT("probe"));
}

static void on_probe_ret(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	/* __probe_func: the entry's __probe_ip */
	const struct rpt_call pc = { .key = ctx->rec->probe.ip, .name = et->probe_name,
				     .src = RPT_CALL_PROBE };
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);

	if (!t)
		return;
	if (unwind_to(x, t, &pc))
		close_top(x, t, ev->rec.ts);
	else
		x->orphans++;
}

/* flytrap:syscall: one record per call, written at its end with its duration. */
static void on_bpf_syscall(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			   const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_rec *r = ctx->rec;
	int64_t nr = r->bsys.nr, ret = r->bsys.ret;
	uint64_t dur = r->bsys.duration, ts = ev->rec.ts;
	/* a tgid of 0 (absent) is unknown: thread_track() asks the task table */
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, r->bsys.tgid);
	struct rpt_json *a;
	char name[64];
	const char *s;

	if (!t)
		return;
	if (dur > ts || !complete_ok(t, ts - dur)) {
		x->unnested++;
		return;
	}
	s = syscall_name(x, nr, name, sizeof(name));
	a = exp_args_begin(x);
	rpt_json_obj(a);
	RPT_JSON_KEY_LIT(a, "ret");
	rpt_json_i64(a, ret);
	rpt_json_obj_end(a);
	complete(x, t, ts - dur, ts, s, strlen(s), CAT("syscall"));
}

/*
 * The track of a BPF function record: kernel functions nest in the task's
 * own track (inside its syscalls), user functions go to the side track
 * when uprobes describe the same calls.
 */
static struct thr *bpf_func_track(struct exp *x, const struct rpt_ctx *ctx,
				  const struct exp_evtype *et, const struct fmt_event *ev,
				  int32_t tid)
{
	return thread_track(x, ctx, tid, ev->rec.cpu, ctx->rec->bfunc.tgid,
			    x->ufunc_side && !et->kfunc);
}

static void on_bpf_func_entry(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			      const struct fmt_event *ev, int32_t tid)
{
	uint32_t fn = (uint32_t)ctx->rec->bfunc.func;
	uint32_t depth = (uint32_t)ctx->rec->bfunc.depth;
	const struct rpt_call pc = { .key = fn, .depth = depth,
				     .src = et->kfunc ? RPT_CALL_KFUNC : RPT_CALL_UFUNC };
	struct thr *t = bpf_func_track(x, ctx, et, ev, tid);
	char name[64];
	const char *s;
	size_t nl = 0;

	if (!t)
		return;
	s = ufunc_name(x, et->kfunc, fn, &nl, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, &pc, s, nl, s == name, et->kfunc ? CAT("kernel") : CAT("user"));
}

/*
 * A BPF function exit closes its entry; without one, a record that knows
 * its start (and so its duration) becomes a whole slice.
 */
static void on_bpf_func_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			     const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_rec *r = ctx->rec;
	uint32_t fn = (uint32_t)r->bfunc.func;
	uint32_t depth = (uint32_t)r->bfunc.depth;
	const struct rpt_call pc = { .key = fn, .depth = depth,
				     .src = et->kfunc ? RPT_CALL_KFUNC : RPT_CALL_UFUNC };
	uint64_t dur = r->bfunc.duration, start = r->bfunc.start, ts = ev->rec.ts;
	struct thr *t = bpf_func_track(x, ctx, et, ev, tid);
	char name[64];
	const char *s;
	size_t nl = 0;

	if (!t)
		return;
	if (unwind_to(x, t, &pc)) {
		close_top(x, t, ts);
		return;
	}
	if (!start || dur > ts || !complete_ok(t, ts - dur)) {
		x->orphans++;
		return;
	}
	s = ufunc_name(x, et->kfunc, fn, &nl, name, sizeof(name));
	args_entry_lost(x);
	complete(x, t, ts - dur, ts, s, nl, et->kfunc ? CAT("kernel") : CAT("user"));
}

/* flytrap:offcpu: the period a task was blocked, written when it wakes. */
static void on_bpf_offcpu(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			  const struct fmt_event *ev, int32_t tid)
{
	const struct rpt_rec *r = ctx->rec;
	uint64_t dur = r->smp.duration, ts = ev->rec.ts;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, r->smp.has_tgid ? r->smp.tgid : -1);
	struct rpt_json *a;

	if (!t)
		return;
	if (dur > ts || !complete_ok(t, ts - dur)) {
		x->unnested++;
		return;
	}
	a = exp_args_begin(x);
	rpt_json_obj(a);
	rpt_json_ku64(a, "state", r->smp.state);
	rpt_json_ki64(a, "waker_pid", r->smp.waker_pid);
	if (r->smp.waker_comm.s && r->smp.waker_comm.len > 0) {
		rpt_json_key(a, "waker_comm");
		rpt_json_strn(a, r->smp.waker_comm.s, (size_t)r->smp.waker_comm.len);
	}
	rpt_json_obj_end(a);
	complete(x, t, ts - dur, ts, "off-CPU", 7, CAT("offcpu"));
}

static void on_irq_entry(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int nl = ctx->rec->irq.name.len;
	const char *in = ctx->rec->irq.name.s;
	size_t max = sizeof(c->irq_name) - 1;

	if (c->in_irq)
		irq_unended(x, cpu);
	c->in_irq = true;
	c->irq_start = ev->rec.ts;
	c->irq = ctx->rec->irq.nr;
	memset(c->irq_name, 0, sizeof(c->irq_name));
	if (in && nl > 0)
		memcpy(c->irq_name, in, (size_t)nl < max ? (size_t)nl : max);
}

static void on_irq_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t irq = ctx->rec->irq.nr;
	uint64_t ts = ev->rec.ts;
	char name[64];

	if (c->in_irq && c->irq == irq && ts >= c->irq_start) {
		snprintf(name, sizeof(name), "irq %d %.32s", irq, c->irq_name);
		irq_slice(x, cpu, c->irq_start, ts, name, strlen(name), CAT("irq"), irq);
	} else {
		x->orphans++;
	}
	c->in_irq = false;
}

static void on_softirq_entry(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			     const struct fmt_event *ev, int32_t tid)
{
	struct cpu_state *c = &x->cpus[ev->rec.cpu];

	c->in_softirq = true;
	c->softirq_start = ev->rec.ts;
	c->softirq = ctx->rec->irq.nr;
}

static void on_softirq_exit(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			    const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t vec = ctx->rec->irq.nr;
	uint64_t ts = ev->rec.ts;
	char name[48];

	/* a hard irq inside this softirq already ended: it nests */
	if (c->in_softirq && c->softirq == vec && ts >= c->softirq_start) {
		softirq_label(vec, name, sizeof(name));
		irq_slice(x, cpu, c->softirq_start, ts, name, strlen(name), CAT("softirq"), vec);
	} else {
		x->orphans++;
	}
	c->in_softirq = false;
}

/* --instants: any other event is a marker on its task, with the text trace-cmd prints for it. */
static void on_other(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
		     const struct fmt_event *ev, int32_t tid)
{
	struct thr *t;

	if (!exp_conf.instants)
		return;
	t = thread(x, ctx, tid, ev->rec.cpu, -1);
	if (!t)
		return;
	t->used = true;
	exp_instant(x, ev->rec.ts, t->pid, t->tid, "t", et->evname ? et->evname : "unknown event",
		  SIZE_MAX);
	rpt_json_kobj(&x->j, "args");
	rpt_json_ki64(&x->j, "cpu", ev->rec.cpu);
	if (ev->event && x->seq_ready) {
		trace_seq_reset(&x->seq);
		tep_print_event(ctx->tep, &x->seq, (struct tep_record *)&ev->rec, "%s",
				TEP_PRINT_INFO);
		trace_seq_terminate(&x->seq);
		rpt_json_key(&x->j, "info");
		rpt_json_strn(&x->j, x->seq.buffer, x->seq.len);
	}
	rpt_json_obj_end(&x->j);
	rpt_json_obj_end(&x->j);
	x->instants++;
}

/*
 * What every event does, whatever its kind: the time base at the first
 * one, the start of its CPU's first run, the HTML timeline.  False when
 * its CPU is out of range (or the CPU table cannot grow): nothing else
 * is done with it.
 */
static bool note_event(struct exp *x, const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	int cpu = ev->rec.cpu;

	if (!x->based)
		ts_base(x, ctx, ev->rec.ts);
	if (cpu < 0 || (cpu >= x->ncpus && cpu_grow(x, cpu)))
		return false;
	if (!x->cpus[cpu].seen) {
		x->cpus[cpu].seen = true;
		x->cpus[cpu].first_ts = ev->rec.ts;
	}
	if (x->hd) {
		exp_tl_event(&x->hd->tl, ev->rec.ts, cpu);
		x->hd->nevents++;
	}
	return true;
}

/* The HTML "events by task" flame graph: one sample per event under its task. */
static void flame_by_event(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			   int32_t tid)
{
	const char *fr[2];
	char tn[48];

	snprintf(tn, sizeof(tn), "%s-%d", rpt_comm(ctx, tid), tid);
	fr[0] = tn;
	fr[1] = et->evname ? et->evname : "[unknown event]";
	rpt_flame_add(x->hd->byevent, fr, 2, 1);
}

/* One handler per kind; tid is the event's common_pid (never negative here). */
typedef void exp_handler(struct exp *x, const struct rpt_ctx *ctx, const struct exp_evtype *et,
			 const struct fmt_event *ev, int32_t tid);

static exp_handler *const on_kind[K_NR] = {
	[K_OTHER] = on_other,
	[K_SCHED_SWITCH] = on_switch,
	[K_WAKEUP] = on_wakeup,
	[K_PROCESS_EXIT] = on_process_exit,
	[K_RAW_SYS_ENTER] = on_sys_enter,
	[K_RAW_SYS_EXIT] = on_sys_exit,
	[K_SYS_ENTER] = on_sys_enter,
	[K_SYS_EXIT] = on_sys_exit,
	[K_FG_ENTRY] = on_funcgraph_entry,
	[K_FG_EXIT] = on_funcgraph_exit,
	[K_PROBE_ENTRY] = on_probe_entry,
	[K_PROBE_RET] = on_probe_ret,
	[K_BPF_SYSCALL] = on_bpf_syscall,
	[K_BPF_UENTRY] = on_bpf_func_entry,
	[K_BPF_UEXIT] = on_bpf_func_exit,
	[K_BPF_OFFCPU] = on_bpf_offcpu,
	[K_IRQ_ENTRY] = on_irq_entry,
	[K_IRQ_EXIT] = on_irq_exit,
	[K_SOFTIRQ_ENTRY] = on_softirq_entry,
	[K_SOFTIRQ_EXIT] = on_softirq_exit,
};

static void exp_event(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev)
{
	struct exp *x = priv;
	struct exp_evtype *et = rpt_types_get(&x->types, ev->type);
	int32_t tid;

	/*
	 * A slice's state at its cuts (the CPU's last switch, calls open
	 * there) lies outside its window: the export of a window of the whole
	 * file does not see those events either, and the two must agree.
	 */
	if (ctx->from_facts || !note_event(x, ctx, ev) || !et)
		return;
	if (et->kind == K_UNRESOLVED)
		resolve(et, ev->event, ctx->ki);
	tid = rpt_event_pid(ctx, ev);
	if (tid < 0)
		return;		/* payload shorter than its common fields */

	on_kind[et->kind](x, ctx, et, ev, tid);
	if (x->hd && x->hd->byevent)
		flame_by_event(x, ctx, et, tid);
}

/* ---- start and end ----------------------------------------------------------- */

/* Does the file hold formats of uprobe (or kprobe) entry or return events? */
static bool has_uprobe_formats(struct tep_handle *tep)
{
	struct tep_event **evs = tep ? tep_list_events(tep, TEP_EVENT_SORT_ID) : NULL;
	struct rpt_kind_info ki;
	int i;

	for (i = 0; evs && evs[i]; i++) {
		rpt_kind_resolve(evs[i], &ki);
		if (rpt_kind_is_probe(ki.kind) && !ki.probe_by_name)
			return true;
	}
	return false;
}

static int exp_init(struct rpt_ctx *ctx, void *priv)
{
	struct exp *x = priv;

	x->ctx = ctx;
	/* args: a few members, in memory; copied into the events that carry them */
	if (rpt_json_init(&x->j, exp_conf.out, 0) || rpt_json_init(&x->a, NULL, 0))
		return -ENOMEM;
	x->types.elem_size = sizeof(struct exp_evtype);
	rpt_map_init(&x->threads, sizeof(struct thr));
	rpt_map_init(&x->wakeups, sizeof(struct wake));
	x->abi = rpt_sys_abi(ctx->info ? ctx->info->uname : NULL,
			     ctx->info ? ctx->info->kernel_long : 8);
	x->meta = fmt_reader_meta(ctx->r);
	if (!x->meta)
		return -ENOMEM;
	if (ufunc_names(x, false) || ufunc_names(x, true))
		return -ENOMEM;
	x->ufunc_side = has_uprobe_formats(ctx->tep) &&
			tep_find_event_by_name(ctx->tep, "flytrap", "ufunc_entry");
	if (exp_conf.instants) {
		trace_seq_init(&x->seq);
		x->seq_ready = x->seq.buffer != NULL;
	}
	x->hd = exp_conf.html ? exp_conf.html_data : NULL;
	if (x->hd) {
		x->hd->oncpu = rpt_flame_new();
		x->hd->byevent = rpt_flame_new();
		x->hd->calls = rpt_flame_new();
		if (!x->hd->oncpu || !x->hd->byevent || !x->hd->calls)
			return -ENOMEM;
	}
	if (cpu_grow(x, ctx->info && ctx->info->cpus > 0 ? ctx->info->cpus - 1 : 0))
		return -ENOMEM;
	if (!x->hd) {
		rpt_json_obj(&x->j);
		rpt_json_karr(&x->j, "traceEvents");
	}
	return 0;
}

/* One page loss: a marker on its CPU, and the counter of events lost so far. */
static void loss_marker(struct exp *x, const struct rpt_loss *l, const char *bname)
{
	struct rpt_json *j = &x->j;

	exp_instant(x, l->ts, CPU_PID, CPU_TID(l->cpu), "t", "events lost", SIZE_MAX);
	rpt_json_kstr(j, "cat", "drops");
	rpt_json_kobj(j, "args");
	if (l->count < 0)
		rpt_json_kstr(j, "count", "unknown");
	else
		rpt_json_ki64(j, "count", l->count);
	rpt_json_kstr(j, "buffer", bname);
	if (l->prev_ts) {
		rpt_json_key(j, "after_ts_us");
		exp_ts(x, j, l->prev_ts);
	}
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
	if (l->count > 0)
		x->lost_total += (uint64_t)l->count;
	exp_ev(x, 'C', l->ts, CPU_PID, CPU_PID);
	rpt_json_kstr(j, "name", "events lost");
	rpt_json_kobj(j, "args");
	rpt_json_ku64(j, "lost", x->lost_total);
	rpt_json_obj_end(j);
	rpt_json_obj_end(j);
}

static void loss_markers(struct exp *x, const struct rpt_ctx *ctx)
{
	const struct rpt_opts *o = ctx->opts;
	const struct fmt_info *info = ctx->info;
	const struct fmt_option *opt;
	int k, n;

	for (k = 0; k < ctx->nlosses; k++) {
		const struct rpt_loss *l = &ctx->losses[k];
		const char *bname = "";
		bool bpfb;

		if ((o->has_t0 && l->ts < o->t0_ns) ||
		    (o->has_t1 && (l->prev_ts ? l->prev_ts : l->ts) > o->t1_ns))
			continue;
		if (!rpt_cpu_selected(o, l->cpu))
			continue;
		if (info && l->buffer >= 0 && l->buffer < info->nbuffers)
			bname = info->buffers[l->buffer].name;
		loss_marker(x, l, *bname ? bname : "top");
		/* the BPF buffer's marks repeat the failure records read below: count once */
		bpfb = rpt_bpf_buffer(ctx->r, bname);
		if (x->hd && bpfb && !fmt_reader_option(ctx->r, FMT_OPT_FT_BPF_DROPS, 0)) {
			exp_tl_loss(&x->hd->tl, l->ts, l->count, true);
			x->hd->nlosses++;
			if (l->count > 0)
				x->hd->lost_events += (uint64_t)l->count;
		} else if (x->hd && !bpfb) {
			exp_tl_loss(&x->hd->tl, l->ts, l->count, false);
			x->hd->nlosses++;
			if (l->count > 0)
				x->hd->lost_events += (uint64_t)l->count;
		}
		if (l->cpu >= 0 && l->cpu >= x->ncpus)
			cpu_grow(x, l->cpu);
	}

	/* BPF reservation failures per window, from the recorder's option */
	for (n = 0; (opt = fmt_reader_option(ctx->r, FMT_OPT_FT_BPF_DROPS, n)); n++) {
		const uint8_t *p = opt->data;
		uint32_t i, cnt = opt->size / 24;
		bool swap = info && info->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

		for (i = 0; i < cnt; i++) {
			struct fmt_bpf_drop dr;
			char pname[64];
			uint64_t ts;

			memcpy(&dr.ts, p + i * 24, 8);
			memcpy(&dr.cpu, p + i * 24 + 8, 4);
			memcpy(&dr.prog, p + i * 24 + 12, 4);
			memcpy(&dr.count, p + i * 24 + 16, 8);
			if (swap) {
				dr.ts = __builtin_bswap64(dr.ts);
				dr.cpu = __builtin_bswap32(dr.cpu);
				dr.prog = __builtin_bswap32(dr.prog);
				dr.count = __builtin_bswap64(dr.count);
			}
			ts = fmt_reader_adjust_ts(ctx->r, dr.ts);
			if ((o->has_t0 && ts < o->t0_ns) || (o->has_t1 && ts > o->t1_ns))
				continue;
			if (dr.cpu > 65535 || !rpt_cpu_selected(o, (int)dr.cpu))
				continue;
			if ((int)dr.cpu >= x->ncpus)
				cpu_grow(x, (int)dr.cpu);
			exp_instant(x, ts, CPU_PID, CPU_TID((int32_t)dr.cpu), "t", "BPF records lost",
				  SIZE_MAX);
			rpt_json_kstr(&x->j, "cat", "drops");
			rpt_json_kobj(&x->j, "args");
			rpt_json_ku64(&x->j, "count", dr.count);
			rpt_json_kstr(&x->j, "program",
				      bpf_prog_name(x, dr.prog, pname, sizeof(pname)));
			rpt_json_obj_end(&x->j);
			rpt_json_obj_end(&x->j);
			if (x->hd) {
				exp_tl_loss(&x->hd->tl, ts, (int64_t)dr.count, true);
				x->hd->nlosses++;
				x->hd->lost_events += dr.count;
			}
		}
	}
}

/*
 * A flight-recorder dump: what fired and when (the recorder's "trigger=" and
 * "trigger_ts=" lines), as one instant across every track, so the moment
 * the file was written for is where a viewer opens it; outside --from/--to
 * it is left out.  Returns whether the file says it was triggered.
 */
static bool trigger_mark(struct exp *x, const struct rpt_ctx *ctx)
{
	const struct rpt_opts *o = ctx->opts;
	const char *reason = x->meta ? x->meta->trigger : NULL;
	size_t rl = reason ? strlen(reason) : 0;
	char name[160];
	uint64_t ts;

	if (!reason || !x->meta->trigger_ts.has)
		return false;
	ts = fmt_reader_adjust_ts(ctx->r, x->meta->trigger_ts.v);
	x->trigger_ts = ts;
	x->trigger = reason;
	x->trigger_len = rl;
	if ((o->has_t0 && ts < o->t0_ns) || (o->has_t1 && ts > o->t1_ns))
		return true;
	snprintf(name, sizeof(name), "trigger: %.*s", (int)(rl > 140 ? 140 : rl), reason);
	exp_instant(x, ts, CPU_PID, CPU_PID, "g", name, SIZE_MAX);
	rpt_json_kstr(&x->j, "cat", "trigger");
	rpt_json_kobj(&x->j, "args");
	rpt_json_key(&x->j, "trigger");
	rpt_json_strn(&x->j, reason, rl);
	rpt_json_obj_end(&x->j);
	rpt_json_obj_end(&x->j);
	x->trigger_marked = true;
	return true;
}

static int exp_finish(struct rpt_ctx *ctx, void *priv)
{
	struct exp *x = priv;
	uint64_t end = ctx->last_ts;
	struct rpt_map pids;
	size_t pos = 0;
	uint64_t key;
	struct thr *t;
	int c;

	/* what is still open: the trace ended inside these calls, their ends are unknown */
	while ((t = rpt_map_next(&x->threads, &pos, &key)))
		while (t->open.n)
			drop_top(x, t);
	for (c = 0; c < x->ncpus; c++) {
		struct cpu_state *cs = &x->cpus[c];

		if (cs->known && cs->cur != 0)
			run_end(x, c, end, cs->comm, strnlen(cs->comm, 16), cs->cur, true, 0,
				false);
		if (cs->in_softirq)
			softirq_unended(x, c);
		if (cs->in_irq)
			irq_unended(x, c);
	}
	loss_markers(x, ctx);
	trigger_mark(x, ctx);

	/* names: processes, threads, CPU tracks */
	rpt_map_init(&pids, 1);
	pos = 0;
	while ((t = rpt_map_next(&x->threads, &pos, &key))) {
		char nm[48];
		bool created = false;

		if (!t->used)
			continue;
		if (t->real_tid == 0) {
			snprintf(nm, sizeof(nm), "swapper/%d", t->tid - IDLE_TID_BASE);
			exp_meta_name(x, "thread_name", t->pid, t->tid, nm);
		} else {
			if (t->side) {
				snprintf(nm, sizeof(nm), "%.30s (BPF)", rpt_comm(ctx, t->real_tid));
				exp_meta_name(x, "thread_name", t->pid, t->tid, nm);
			} else {
				exp_meta_name(x, "thread_name", t->pid, t->tid,
					  rpt_comm(ctx, t->real_tid));
			}
		}
		if (rpt_map_get(&pids, (uint32_t)t->pid, &created) && created)
			exp_meta_name(x, "process_name", t->pid, t->pid,
				  t->pid == 0 ? "idle" : rpt_comm(ctx, t->pid));
	}
	rpt_map_release(&pids);
	exp_meta_name(x, "process_name", CPU_PID, CPU_PID, "CPUs");
	exp_meta_sort(x, "process_sort_index", CPU_PID, CPU_PID, -1);
	for (c = 0; c < x->ncpus; c++) {
		char nm[32];

		if (!x->cpus[c].seen)
			continue;
		snprintf(nm, sizeof(nm), "CPU %d", c);
		exp_meta_name(x, "thread_name", CPU_PID, CPU_TID(c), nm);
		exp_meta_sort(x, "thread_sort_index", CPU_PID, CPU_TID(c), 2 * c);
		snprintf(nm, sizeof(nm), "CPU %d irq", c);
		exp_meta_name(x, "thread_name", CPU_PID, IRQ_TID(c), nm);
		exp_meta_sort(x, "thread_sort_index", CPU_PID, IRQ_TID(c), 2 * c + 1);
	}

	if (!x->hd) {
		/*
		 * No "displayTimeUnit": some Perfetto versions read it as the
		 * unit of ts and dur, which are microseconds here whatever it says.
		 */
		exp_trace_end(x, ctx);
	} else {
		x->hd->first_ts = ctx->first_ts;
		x->hd->last_ts = ctx->last_ts;
	}
	rpt_json_flush(&x->j);
	if (x->j.err && !exp_conf.write_errno)
		exp_conf.write_errno = x->j.err;
	if (x->j.f && fflush(x->j.f) && !exp_conf.write_errno)
		exp_conf.write_errno = errno ? errno : EIO;
	ft_info("export: %" PRIu64 " events, %" PRIu64 " slices, %" PRIu64 " from their end, "
		"%" PRIu64 " CPU slices, %" PRIu64 " exits without entry, %" PRIu64
		" entries without exit",
		ctx->nevents, x->slices, x->completes, x->sched_slices + x->irq_slices,
		x->orphans, x->no_exit);
	return x->j.f && ferror(x->j.f) ? -EIO : 0;
}

static void exp_release(void *priv)
{
	struct exp *x = priv;
	size_t pos = 0;
	uint64_t key;
	struct thr *t;

	while ((t = rpt_map_next(&x->threads, &pos, &key)))
		rpt_calls_release(&t->open);
	rpt_map_release(&x->threads);
	rpt_map_release(&x->wakeups);
	rpt_types_release(&x->types);
	if (x->seq_ready)
		trace_seq_destroy(&x->seq);
	free(x->ufn);
	free(x->kfn);
	free(x->cpus);
	if (x->j.err && !exp_conf.write_errno)
		exp_conf.write_errno = x->j.err;
	/* a replay that failed before finish: what is still buffered is not written */
	rpt_json_reset(&x->j);
	rpt_json_done(&x->j);
	rpt_json_done(&x->a);
}

const struct rpt_analyzer exp_analyzer = {
	.name = "export",
	.priv_size = sizeof(struct exp),
	.init = exp_init,
	.event = exp_event,
	.finish = exp_finish,
	.release = exp_release,
	.kinds = EXP_KINDS,
};
