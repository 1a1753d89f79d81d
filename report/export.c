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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drops.h"
#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "overhead.h"
#include "replay.h"
#include "share.h"
#include "flamesvg.h"
#include "sysnames.h"
#include "export.h"

/* Pseudo process for the per-CPU tracks; above any Linux pid (PID_MAX_LIMIT is 2^22). */
#define CPU_PID 0x7ff00000
/*
 * Track ids under it are above any Linux tid too: Perfetto keys threads by
 * tid across processes, so a CPU track must not share a tid with a task.
 */
#define CPU_TID(cpu) (CPU_PID + 1 + (cpu))		/* which task runs on CPU n */
#define IRQ_TID(cpu) (CPU_PID + 0x10001 + (cpu))	/* interrupts on CPU n */
/* Idle tasks (pid 0) are per CPU: each gets its own track under pid 0. */
#define IDLE_TID_BASE 0x7fe00000
/*
 * When a file has both uprobe and BPF user-function records (both asked
 * for), the two describe the same calls with slightly different times and
 * cannot nest on one track: the BPF ones go to a second track of the task.
 */
#define SIDE_TID_OFFSET 0x40000000
#define MAX_OPEN 4096		/* open slices per thread; deeper entries are dropped */

enum kind {
	K_UNRESOLVED = 0,
	K_OTHER,
	K_SCHED_SWITCH,
	K_WAKEUP,		/* sched_wakeup, sched_wakeup_new */
	K_PROCESS_EXIT,
	K_RAW_SYS_ENTER,
	K_RAW_SYS_EXIT,
	K_SYS_ENTER,		/* syscalls:sys_enter_NAME */
	K_SYS_EXIT,
	K_FG_ENTRY,		/* ftrace:funcgraph_entry */
	K_FG_EXIT,
	K_PROBE_ENTRY,		/* uprobe / kprobe: __probe_ip */
	K_PROBE_RET,		/* __probe_func + __probe_ret_ip */
	K_BPF_SYSCALL,		/* flytrap:syscall */
	K_BPF_UENTRY,
	K_BPF_UEXIT,
	K_BPF_OFFCPU,		/* flytrap:offcpu: a blocked period, known at wake-up */
	K_IRQ_ENTRY,
	K_IRQ_EXIT,
	K_SOFTIRQ_ENTRY,
	K_SOFTIRQ_EXIT,
	K_NR
};

/* slice kinds on a thread's stack */
enum { S_SYSCALL = 1, S_KFUNC, S_PROBE, S_UFUNC, S_BPF_KFUNC };

struct exp_fname {
	const char *name;
	size_t len;
};

struct etype {
	uint8_t kind;
	bool kfunc;		/* K_BPF_UENTRY/UEXIT from flytrap:kfunc_*: a kernel function, bpf_kfunc= names */
	struct fmt_field f[6];
	const char *name;	/* event-derived slice name (sys_enter_NAME, probe name) */
	const char *evname;	/* system:name for instants */
};

/*
 * The last slices closed at one nesting level (inside one open slice, or
 * at a thread's top level), to decide whether a call known only from its
 * exit can be placed without straddling one of them.  Slices close in
 * time order, so their ends only grow; older ones than the ring holds end
 * no later than the oldest kept.
 */
#define KIDS 4
struct level {
	uint64_t s[KIDS], e[KIDS];
	uint8_t n, pos;
	bool truncated;		/* more closed here than the ring holds */
};

struct oslice {
	uint64_t ts;
	uint64_t key;
	uint64_t child_ns;	/* time in closed children (HTML call flame graph) */
	struct level kids;
	uint8_t kind;
	char name[63];		/* a copy: the HTML call flame graph, and names made on the fly */
	const char *nm;		/* the name as written: name[] or a string that outlives the replay */
	size_t nl;
	const char *cat;
};

struct thr {
	int32_t pid, tid;	/* as written */
	int32_t real_tid;
	uint32_t nopen, cap;
	struct oslice *open;
	struct level top;	/* slices closed with nothing open */
	bool used;		/* something was written on this track */
	bool side;		/* the BPF function track of a task that also has uprobes */
	uint8_t ptlen;
	char pt[40];		/* ,"pid":P,"tid":T */
};

struct cpu_state {
	bool known;		/* a sched_switch told who runs */
	int32_t cur;		/* pid running since run_start */
	uint64_t run_start;
	uint64_t first_ts;	/* first event on this CPU (start of a partial run) */
	bool seen;
	char comm[17];
	uint64_t irq_start, softirq_start;
	char irq_name[33];
	int32_t irq, softirq;
	bool in_irq, in_softirq;
	struct thr *last_thr;	/* thread() cache */
	uint64_t last_key;
};

/* A wakeup waiting for its task to run: both ends of the arrow are written then. */
struct wake {
	uint64_t ts;		/* 0: none pending */
	int32_t cpu;		/* where the waker ran */
};

struct exp_conf {
	bool instants;		/* every other event as an instant marker */
	bool html;
	struct exp_html_data *html_data;
	FILE *out;
	int write_errno;	/* first failed write */
};

/* One export per process: the command sets this before the replay. */
static struct exp_conf exp_conf;

struct jout {
	FILE *f;
	char *buf;
	size_t len;
	bool first;
	bool based;		/* base chosen (at the first event) */
	uint8_t seclen;		/* j_us(): digits of the last whole seconds */
	char secstr[24];
	uint64_t sec;
	uint64_t base;		/* subtracted from every timestamp, see ts_base() */
};

struct exp {
	struct jout j;
	struct rpt_types types;
	struct rpt_map threads;	/* key: tid, or IDLE key per CPU */
	struct rpt_map wakeups;	/* key: woken pid -> struct wake, until it runs */
	uint64_t flow_id;
	struct cpu_state *cpus;
	int ncpus;
	enum rpt_sys_abi abi;
	int nbusy;		/* CPUs running a task other than idle */
	uint64_t lost_total;
	/* statistics for otherData and -v */
	uint64_t slices, completes, instants, orphans, unnested, forced_ends, too_deep;
	uint64_t no_exit;	/* entries whose exit is not in the trace: written as instants */
	const char *trigger;	/* a flight dump's "trigger=" value (in meta), or NULL */
	size_t trigger_len;
	uint64_t trigger_ts;
	bool trigger_marked;
	struct jout a;		/* the args object of the slice being written (no stream) */
	uint64_t sched_slices, irq_slices, flows;
	const struct fmt_meta *meta;	/* the file's flytrap metadata (owned by the reader) */
	struct exp_fname *ufn;	/* bpf_ufunc= names by index */
	uint32_t nufn;
	struct exp_fname *kfn;	/* bpf_kfunc= names by index */
	uint32_t nkfn;
	bool ufunc_side;	/* uprobes and BPF ufunc both recorded */
	struct trace_seq seq;	/* --instants: event text */
	bool seq_ready;
	const struct rpt_ctx *ctx;
	struct exp_html_data *hd;
};

/* ---- JSON output --------------------------------------------------------- */

#define JBUF (256 * 1024)

static void j_flush(struct jout *j)
{
	/* no stream: the HTML report only wants the side effects */
	if (j->len && j->f && fwrite(j->buf, 1, j->len, j->f) != j->len && !exp_conf.write_errno)
		exp_conf.write_errno = errno ? errno : EIO;
	j->len = 0;
}

static inline void j_need(struct jout *j, size_t n)
{
	if (j->len + n > JBUF)
		j_flush(j);
}

static inline void j_raw(struct jout *j, const char *s, size_t n)
{
	if (n > JBUF / 2) {
		j_flush(j);
		fwrite(s, 1, n, j->f);
		return;
	}
	j_need(j, n);
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

#define J_LIT(j, s) j_raw(j, s, sizeof(s) - 1)

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void j_u64(struct jout *j, uint64_t v)
{
	char t[24];
	int n = 24, l;

	j_need(j, 24);
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		n -= 2;
		memcpy(t + n, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		n -= 2;
		memcpy(t + n, digits2 + 2 * v, 2);
	} else {
		t[--n] = (char)('0' + v);
	}
	l = 24 - n;
	memcpy(j->buf + j->len, t + n, (size_t)l);
	j->len += (size_t)l;
}

static inline void j_i64(struct jout *j, int64_t v)
{
	if (v < 0) {
		J_LIT(j, "-");
		j_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		j_u64(j, (uint64_t)v);
	}
}

/* ns as microseconds with the nanoseconds as three decimals */
/*
 * ns as microseconds with the nanoseconds as three decimals.  The whole
 * seconds change rarely from one event to the next: their digits are kept
 * from the last call, the rest is written in pairs.
 */
static inline void j_us(struct jout *j, uint64_t ns)
{
	uint64_t us = ns / 1000, sec = us / 1000000;
	unsigned r = (unsigned)(ns % 1000), u = (unsigned)(us % 1000000);
	char *p;

	if (!sec) {
		j_u64(j, us);
	} else {
		if (sec != j->sec || !j->seclen) {
			char t[24];
			int n = 24;
			uint64_t v = sec;

			while (v) {
				t[--n] = (char)('0' + v % 10);
				v /= 10;
			}
			j->seclen = (uint8_t)(24 - n);
			memcpy(j->secstr, t + n, j->seclen);
			j->sec = sec;
		}
		j_need(j, 32);
		p = j->buf + j->len;
		memcpy(p, j->secstr, j->seclen);
		p += j->seclen;
		memcpy(p, digits2 + 2 * (u / 10000), 2);
		memcpy(p + 2, digits2 + 2 * (u / 100 % 100), 2);
		memcpy(p + 4, digits2 + 2 * (u % 100), 2);
		j->len += j->seclen + 6;
	}
	j_need(j, 4);
	p = j->buf + j->len;
	p[0] = '.';
	p[1] = (char)('0' + r / 100);
	memcpy(p + 2, digits2 + 2 * (r % 100), 2);
	j->len += 4;
}


/*
 * JSON string from bytes that come from the trace (task names, symbols):
 * stops at NUL or n; plain ASCII is copied, everything else goes through
 * the one escaping rule of every JSON flytrap writes (ft_json_char).
 */
static void j_strn(struct jout *j, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	J_LIT(j, "\"");
	while (i < n && p[i]) {
		unsigned char c = p[i];
		size_t used;

		j_need(j, 8);
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			j->buf[j->len++] = (char)c;
			i++;
			continue;
		}
		j->len += ft_json_char(p + i, n - i, 0, j->buf + j->len, &used);
		i += used;
	}
	J_LIT(j, "\"");
}

static void j_str(struct jout *j, const char *s)
{
	j_strn(j, s ? s : "", SIZE_MAX);
}

/* Start an event object: {"ph":"P","ts":T,"pid":P,"tid":T */
static inline void j_ev_head(struct jout *j, char ph, uint64_t ts)
{
	j_need(j, 16);
	if (j->first) {
		memcpy(j->buf + j->len, "\n{\"ph\":\"", 8);
		j->len += 8;
		j->first = false;
	} else {
		memcpy(j->buf + j->len, ",\n{\"ph\":\"", 9);
		j->len += 9;
	}
	j->buf[j->len++] = ph;
	J_LIT(j, "\",\"ts\":");
	j_us(j, ts > j->base ? ts - j->base : 0);
}

static void j_ev(struct jout *j, char ph, uint64_t ts, int32_t pid, int32_t tid)
{
	j_ev_head(j, ph, ts);
	J_LIT(j, ",\"pid\":");
	j_i64(j, pid);
	J_LIT(j, ",\"tid\":");
	j_i64(j, tid);
}

/* Same with the ,"pid":P,"tid":T text of a thread formatted once. */
static inline void j_ev_pt(struct jout *j, char ph, uint64_t ts, const char *pt, size_t ptlen)
{
	j_ev_head(j, ph, ts);
	j_raw(j, pt, ptlen);
}

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
		t->ptlen = (uint8_t)snprintf(t->pt, sizeof(t->pt), ",\"pid\":%d,\"tid\":%d", t->pid, t->tid);
	}
	return t;
}

static struct thr *thread(struct exp *x, const struct rpt_ctx *ctx, int32_t tid, int cpu, int32_t tgid)
{
	return thread_track(x, ctx, tid, cpu, tgid, false);
}

/*
 * HTML mode: the stacks of calls as they close, self time as weight, under
 * a "comm-tid" root; used when the callgraph analyzer is not available.
 */
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
	skip = t->nopen > 64 ? t->nopen - 64 : 0;
	for (i = skip; i < t->nopen; i++)
		fr[n++] = t->open[i].name;
	if (leaf)
		fr[n++] = leaf;
	rpt_flame_add(x->hd->calls, fr, (int)n, self);
	(void)dur;
}

static struct level *cur_level(struct thr *t)
{
	return t->nopen ? &t->open[t->nopen - 1].kids : &t->top;
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

/* Start the args object of the next slice: returns the writer, or NULL for none. */
static struct jout *args_begin(struct exp *x)
{
	x->a.len = 0;
	return &x->a;
}

/*
 * One slice from start to end on the track pt: a B and an E event with the
 * same name, cat and args (x->a, when it holds anything).
 */
static void slice_pair(struct exp *x, const char *pt, size_t ptlen, uint64_t start, uint64_t end,
		       const char *name, size_t namelen, const char *cat)
{
	int k;

	for (k = 0; k < 2; k++) {
		j_ev_pt(&x->j, k ? 'E' : 'B', k ? end : start, pt, ptlen);
		J_LIT(&x->j, ",\"name\":");
		j_strn(&x->j, name, namelen);
		J_LIT(&x->j, ",\"cat\":\"");
		j_raw(&x->j, cat, strlen(cat));
		J_LIT(&x->j, "\"");
		if (x->a.len) {
			J_LIT(&x->j, ",\"args\":");
			j_raw(&x->j, x->a.buf, x->a.len);
		}
		J_LIT(&x->j, "}");
	}
}

/* ,"pid":P,"tid":T of a track that has no struct thr (the CPU tracks) */
static size_t track_pt(char *buf, size_t len, int32_t pid, int32_t tid)
{
	return (size_t)snprintf(buf, len, ",\"pid\":%d,\"tid\":%d", pid, tid);
}

/* End the innermost open slice at ts; ret goes into its args when has_ret. */
static void close_top_ret(struct exp *x, struct thr *t, uint64_t ts, bool has_ret, int64_t ret)
{
	struct oslice *s = &t->open[t->nopen - 1];
	struct jout *a = args_begin(x);
	uint64_t dur;

	if (ts < s->ts)
		ts = s->ts;
	dur = ts - s->ts;
	if (x->hd && x->ctx)
		flame_close(x, x->ctx, t, NULL, dur, dur > s->child_ns ? dur - s->child_ns : 0);
	t->nopen--;
	if (t->nopen)
		t->open[t->nopen - 1].child_ns += dur;
	if (has_ret) {
		J_LIT(a, "{\"ret\":");
		j_i64(a, ret);
		J_LIT(a, "}");
	}
	slice_pair(x, t->pt, t->ptlen, s->ts, ts, s->nm, s->nl, s->cat);
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
	struct oslice *s = &t->open[--t->nopen];

	j_ev_pt(&x->j, 'i', s->ts, t->pt, t->ptlen);
	J_LIT(&x->j, ",\"s\":\"t\",\"name\":");
	j_strn(&x->j, s->nm, s->nl);
	J_LIT(&x->j, ",\"cat\":\"");
	j_raw(&x->j, s->cat, strlen(s->cat));
	J_LIT(&x->j, "\",\"args\":{\"exit\":\"not in the trace\"}}");
	t->used = true;
	x->no_exit++;
	x->instants++;
}

/*
 * An entry: kept open until its exit.  name must outlive the replay unless
 * copy (a name formatted into the caller's buffer: kept in the slice).
 */
static void open_slice(struct exp *x, struct thr *t, uint64_t ts, uint8_t kind, uint64_t key,
		       const char *name, size_t namelen, bool copy, const char *cat)
{
	struct oslice *o;
	size_t l;

	if (t->nopen == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 8;
		struct oslice *a;

		if (t->cap >= MAX_OPEN || !(a = realloc(t->open, cap * sizeof(*a)))) {
			x->too_deep++;
			return;
		}
		t->open = a;
		t->cap = cap;
	}
	o = &t->open[t->nopen++];
	o->ts = ts;
	o->key = key;
	o->kind = kind;
	o->child_ns = 0;
	o->cat = cat;
	memset(&o->kids, 0, sizeof(o->kids));
	l = strnlen(name, namelen < sizeof(o->name) - 1 ? namelen : sizeof(o->name) - 1);
	memcpy(o->name, name, l);
	o->name[l] = '\0';
	o->nm = copy ? o->name : name;
	o->nl = copy ? l : namelen;
}

/*
 * Find the open slice an exit belongs to (kind, and key unless any_key),
 * drop what was opened after it (those never exited: instants), and leave
 * it on top.  Returns false
 * when nothing matches (an exit whose entry is not in the trace).
 */
static bool unwind_to(struct exp *x, struct thr *t, uint8_t kind, uint64_t key, bool any_key)
{
	uint32_t i;

	for (i = t->nopen; i > 0; i--) {
		const struct oslice *s = &t->open[i - 1];

		if (s->kind == kind && (any_key || s->key == key))
			break;
	}
	if (!i)
		return false;
	while (t->nopen > i)
		drop_top(x, t);
	return true;
}

/*
 * A call known only from its exit (start, duration; it ends now): written
 * as a complete event when it fits the thread's nesting — inside the
 * innermost open slice, and straddling no slice already closed at that
 * level (those it covers whole become its children).
 */
static bool complete_ok(struct thr *t, uint64_t start)
{
	if (t->nopen && start < t->open[t->nopen - 1].ts)
		return false;
	return level_fits(cur_level(t), start);
}

/* A call known from its end: start..end, args from x->a (args_begin() first). */
static void complete(struct exp *x, struct thr *t, uint64_t start, uint64_t end,
		     const char *name, size_t namelen, const char *cat)
{
	slice_pair(x, t->pt, t->ptlen, start, end, name, namelen, cat);
	t->used = true;
	x->completes++;
	if (x->hd && x->ctx) {
		char leaf[63];

		snprintf(leaf, sizeof(leaf), "%.*s", (int)(namelen < 62 ? namelen : 62), name);
		flame_close(x, x->ctx, t, leaf, end - start, end - start);
	}
	if (t->nopen)
		t->open[t->nopen - 1].child_ns += end - start;
	level_add(cur_level(t), start, end);
}

/* ---- event types ----------------------------------------------------------- */

/* What export does with each kind of report/kinds.h (0: nothing, K_OTHER). */
static const uint8_t kind_of[RPT_K_NR] = {
	[RPT_K_SCHED_SWITCH] = K_SCHED_SWITCH,
	[RPT_K_SCHED_WAKEUP] = K_WAKEUP,
	[RPT_K_PROCESS_EXIT] = K_PROCESS_EXIT,
	[RPT_K_RAW_SYS_ENTER] = K_RAW_SYS_ENTER,
	[RPT_K_RAW_SYS_EXIT] = K_RAW_SYS_EXIT,
	[RPT_K_SYS_ENTER] = K_SYS_ENTER,
	[RPT_K_SYS_EXIT] = K_SYS_EXIT,
	[RPT_K_FG_ENTRY] = K_FG_ENTRY,
	[RPT_K_FG_EXIT] = K_FG_EXIT,
	[RPT_K_BPF_SYSCALL] = K_BPF_SYSCALL,
	[RPT_K_BPF_UFUNC_ENTRY] = K_BPF_UENTRY,
	[RPT_K_BPF_KFUNC_ENTRY] = K_BPF_UENTRY,
	[RPT_K_BPF_UFUNC_EXIT] = K_BPF_UEXIT,
	[RPT_K_BPF_KFUNC_EXIT] = K_BPF_UEXIT,
	[RPT_K_BPF_OFFCPU] = K_BPF_OFFCPU,
	[RPT_K_IRQ_ENTRY] = K_IRQ_ENTRY,
	[RPT_K_IRQ_EXIT] = K_IRQ_EXIT,
	[RPT_K_SOFTIRQ_ENTRY] = K_SOFTIRQ_ENTRY,
	[RPT_K_SOFTIRQ_EXIT] = K_SOFTIRQ_EXIT,
	[RPT_K_PROBE_ENTRY] = K_PROBE_ENTRY,
	[RPT_K_PROBE_RET] = K_PROBE_RET,
};

/*
 * The kind of an event id from the one table, with its fields in export's
 * slots (most kinds keep the table's order; the ones below are moved).
 */
static void resolve(struct etype *et, const struct tep_event *e, const struct rpt_kind_info *ki)
{
	int i;

	for (i = 0; i < 6; i++)
		et->f[i] = ki->f[i];
	et->kind = kind_of[ki->kind] ? kind_of[ki->kind] : K_OTHER;
	et->evname = e ? e->name : NULL;
	et->name = ki->arg;
	/* kfunc records have the ufunc layout: only the names table differs */
	et->kfunc = ki->kind == RPT_K_BPF_KFUNC_ENTRY || ki->kind == RPT_K_BPF_KFUNC_EXIT;
	/* slices pair probes by address: a probe known by name only has none */
	if (ki->probe_by_name)
		et->kind = K_OTHER;
	switch (ki->kind) {
	case RPT_K_FG_EXIT:
		et->f[1] = ki->f[RPT_F_FG_CALLTIME];
		et->f[2] = ki->f[RPT_F_FG_RETTIME];
		break;
	case RPT_K_BPF_UFUNC_ENTRY:
	case RPT_K_BPF_KFUNC_ENTRY:
		et->f[3] = ki->f[RPT_F_UF_TGID];
		et->f[4] = ki->f[RPT_F_UF_IP];
		break;
	case RPT_K_BPF_UFUNC_EXIT:
	case RPT_K_BPF_KFUNC_EXIT:
		et->f[3] = ki->f[RPT_F_UF_TGID];
		et->f[4] = ki->f[RPT_F_UF_FLAGS];
		et->f[5] = ki->f[RPT_F_UF_START];
		break;
	default:
		break;
	}
}

static const char *softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
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
static const char *ufunc_name(const struct exp *x, bool kfunc, uint32_t func, size_t *len, char *buf,
			      size_t blen)
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
	struct jout *a;
	char pt[48];
	size_t ptl;

	if (ts <= start || pid == 0)
		return;
	a = args_begin(x);
	J_LIT(a, "{\"pid\":");
	j_i64(a, pid);
	if (has_state) {
		J_LIT(a, ",\"prev_state\":");
		j_i64(a, state);
	}
	if (partial)
		J_LIT(a, ",\"partial\":true");
	J_LIT(a, "}");
	ptl = track_pt(pt, sizeof(pt), CPU_PID, CPU_TID(cpu));
	slice_pair(x, pt, ptl, start, ts, comm, commlen, "sched");
	x->sched_slices++;
	if (x->hd && exp_tl_busy(&x->hd->tl, cpu, start, ts) == 0 && x->hd->oncpu) {
		char cbuf[17], name[48];
		const char *fr[2];

		snprintf(cbuf, sizeof(cbuf), "%.*s", (int)strnlen(comm, commlen < 16 ? commlen : 16), comm);
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
	struct jout *j = &x->j;

	if (!w || !w->ts || w->ts > ts)
		return;
	x->flow_id++;
	j_ev(j, 's', w->ts, CPU_PID, CPU_TID(w->cpu));
	J_LIT(j, ",\"id\":");
	j_u64(j, x->flow_id);
	J_LIT(j, ",\"name\":\"wakeup\",\"cat\":\"sched\"}");
	/* no "bp":"e": an f binds to the next slice, the run that starts here */
	j_ev(j, 'f', ts, CPU_PID, CPU_TID(cpu));
	J_LIT(j, ",\"id\":");
	j_u64(j, x->flow_id);
	J_LIT(j, ",\"name\":\"wakeup\",\"cat\":\"sched\"}");
	w->ts = 0;
	x->flows++;
}

static void busy_counter(struct exp *x, uint64_t ts)
{
	j_ev(&x->j, 'C', ts, CPU_PID, CPU_PID);
	J_LIT(&x->j, ",\"name\":\"busy CPUs\",\"args\":{\"busy\":");
	j_i64(&x->j, x->nbusy);
	J_LIT(&x->j, "}}");
}

static void on_switch(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
		      const struct fmt_event *ev, int32_t tid)
{
	const void *d = ev->rec.data;
	int sz = ev->rec.size, cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t prev = (int32_t)fmt_field_u64(&et->f[0], d, sz);
	int32_t next = (int32_t)fmt_field_u64(&et->f[1], d, sz);
	int plen = 0, nlen = 0;
	const char *pcomm = fmt_field_ptr(&et->f[2], d, sz, &plen);
	const char *ncomm = fmt_field_ptr(&et->f[3], d, sz, &nlen);
	bool was_busy = c->known ? c->cur != 0 : prev != 0;
	char pbuf[24];

	if (!pcomm) {
		snprintf(pbuf, sizeof(pbuf), "pid %d", prev);
		pcomm = pbuf;
		plen = (int)strlen(pbuf);
	}
	run_end(x, cpu, ev->rec.ts, pcomm, (size_t)plen, prev, !c->known || c->cur != prev,
		(int64_t)fmt_field_u64(&et->f[4], d, sz), et->f[4].offset >= 0);
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
	struct jout *a = args_begin(x);
	char pt[48];
	size_t ptl = track_pt(pt, sizeof(pt), CPU_PID, IRQ_TID(cpu));

	J_LIT(a, "{\"nr\":");
	j_i64(a, nr);
	J_LIT(a, "}");
	slice_pair(x, pt, ptl, start, end, name, len, cat);
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
	struct jout *j = &x->j;
	char name[64];

	snprintf(name, sizeof(name), "irq %d %.32s", c->irq, c->irq_name);
	j_ev(j, 'i', c->irq_start, CPU_PID, IRQ_TID(cpu));
	J_LIT(j, ",\"s\":\"t\",\"name\":");
	j_str(j, name);
	J_LIT(j, ",\"cat\":\"irq\",\"args\":{\"exit\":\"not in the trace\"}}");
	c->in_irq = false;
	x->instants++;
}

/* A softirq still running at the end of the trace: a marker, like irq_unended(). */
static void softirq_unended(struct exp *x, int cpu)
{
	struct cpu_state *c = &x->cpus[cpu];
	char name[48];

	softirq_label(c->softirq, name, sizeof(name));
	j_ev(&x->j, 'i', c->softirq_start, CPU_PID, IRQ_TID(cpu));
	J_LIT(&x->j, ",\"s\":\"t\",\"name\":");
	j_str(&x->j, name);
	J_LIT(&x->j, ",\"cat\":\"softirq\",\"args\":{\"exit\":\"not in the trace\"}}");
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

	x->j.based = true;
	if (first >= TS_EXACT_MAX)
		x->j.base = first - first % UINT64_C(1000000000);
}

/* Integer field i of the event's record (0 when the format lacks it or the record is cut). */
static inline uint64_t ev_u64(const struct etype *et, int i, const struct fmt_event *ev)
{
	return fmt_field_u64(&et->f[i], ev->rec.data, ev->rec.size);
}

/* The thread group a BPF record carries in slot 3, or -1 when its format has none. */
static inline int32_t ev_tgid(const struct etype *et, const struct fmt_event *ev)
{
	return et->f[3].offset >= 0 ? (int32_t)ev_u64(et, 3, ev) : -1;
}

/* A kernel function's symbol, or its address formatted into buf when kallsyms lacks it. */
static const char *kfunc_name(const struct rpt_ctx *ctx, uint64_t addr, char *buf, size_t len)
{
	const char *fn = tep_find_function(ctx->tep, addr);

	if (fn)
		return fn;
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

/*
 * Remember who woke a task, so that an arrow can be drawn when it runs.
 * An arrow needs a slice at its start: the waker's run on this CPU.
 */
static void on_wakeup(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
		      const struct fmt_event *ev, int32_t tid)
{
	int32_t p = (int32_t)ev_u64(et, 0, ev);
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
static void on_process_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			    const struct fmt_event *ev, int32_t tid)
{
	int32_t p = (int32_t)ev_u64(et, 0, ev);
	struct thr *pt = p > 0 ? rpt_map_find(&x->threads, (uint32_t)p) : NULL;

	while (pt && pt->nopen) {
		close_top(x, pt, ev->rec.ts);
		x->forced_ends++;
	}
}

static void on_sys_enter(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	int64_t nr = (int64_t)ev_u64(et, 0, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	char name[64];
	const char *s;

	if (!t)
		return;
	/* a syscall never nests in another: an open one lost its exit */
	if (unwind_to(x, t, S_SYSCALL, 0, true))
		drop_top(x, t);
	s = et->kind == K_SYS_ENTER ? et->name : syscall_name(x, nr, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, S_SYSCALL, (uint64_t)nr, s, strlen(s), s == name, "syscall");
}

static void on_sys_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			const struct fmt_event *ev, int32_t tid)
{
	int64_t ret = (int64_t)ev_u64(et, 1, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);

	if (!t)
		return;
	if (!unwind_to(x, t, S_SYSCALL, 0, true)) {
		x->orphans++;
		return;
	}
	close_top_ret(x, t, ev->rec.ts, et->f[1].offset >= 0, ret);
}

static void on_funcgraph_entry(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			       const struct fmt_event *ev, int32_t tid)
{
	uint64_t addr = ev_u64(et, 0, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	char name[64];
	const char *fn;

	if (!t)
		return;
	fn = kfunc_name(ctx, addr, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, S_KFUNC, addr, fn, strlen(fn), fn == name, "kernel");
}

/*
 * A function_graph exit closes its entry; without one, its calltime and
 * rettime still give the call's length, so it can become a whole slice.
 */
static void on_funcgraph_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			      const struct fmt_event *ev, int32_t tid)
{
	uint64_t addr = ev_u64(et, 0, ev), call = ev_u64(et, 1, ev), ret = ev_u64(et, 2, ev);
	uint64_t ts = ev->rec.ts;
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);
	char name[64];
	const char *fn;

	if (!t)
		return;
	if (unwind_to(x, t, S_KFUNC, addr, false)) {
		close_top(x, t, ts);
	} else if (et->f[1].offset >= 0 && et->f[2].offset >= 0 && ret > call &&
		   ret - call <= ts && complete_ok(t, ts - (ret - call))) {
		fn = kfunc_name(ctx, addr, name, sizeof(name));
		J_LIT(args_begin(x), "{\"entry_lost\":true}");
		complete(x, t, ts - (ret - call), ts, fn, strlen(fn), "kernel");
	} else {
		x->orphans++;
	}
}

static void on_probe_entry(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			   const struct fmt_event *ev, int32_t tid)
{
	uint64_t ip = ev_u64(et, 0, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);

	if (t)
		open_slice(x, t, ev->rec.ts, S_PROBE, ip, et->name, strlen(et->name), false,
			   "probe");
}

static void on_probe_ret(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	uint64_t fn = ev_u64(et, 0, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, -1);

	if (!t)
		return;
	if (unwind_to(x, t, S_PROBE, fn, false))
		close_top(x, t, ev->rec.ts);
	else
		x->orphans++;
}

/* flytrap:syscall: one record per call, written at its end with its duration. */
static void on_bpf_syscall(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			   const struct fmt_event *ev, int32_t tid)
{
	int64_t nr = (int64_t)ev_u64(et, 0, ev);
	uint64_t dur = ev_u64(et, 1, ev), ts = ev->rec.ts;
	int64_t ret = (int64_t)ev_u64(et, 2, ev);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, ev_tgid(et, ev));
	char name[64];
	const char *s;

	if (!t)
		return;
	if (dur > ts || !complete_ok(t, ts - dur)) {
		x->unnested++;
		return;
	}
	s = syscall_name(x, nr, name, sizeof(name));
	J_LIT(args_begin(x), "{\"ret\":");
	j_i64(&x->a, ret);
	J_LIT(&x->a, "}");
	complete(x, t, ts - dur, ts, s, strlen(s), "syscall");
}

/*
 * The track of a BPF function record: kernel functions nest in the task's
 * own track (inside its syscalls), user functions go to the side track
 * when uprobes describe the same calls.
 */
static struct thr *bpf_func_track(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
				  const struct fmt_event *ev, int32_t tid)
{
	return thread_track(x, ctx, tid, ev->rec.cpu, ev_tgid(et, ev), x->ufunc_side && !et->kfunc);
}

static void on_bpf_func_entry(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			      const struct fmt_event *ev, int32_t tid)
{
	uint32_t fn = (uint32_t)ev_u64(et, 0, ev);
	uint32_t depth = (uint32_t)ev_u64(et, 1, ev);
	struct thr *t = bpf_func_track(x, ctx, et, ev, tid);
	char name[64];
	const char *s;
	size_t nl = 0;

	if (!t)
		return;
	s = ufunc_name(x, et->kfunc, fn, &nl, name, sizeof(name));
	open_slice(x, t, ev->rec.ts, et->kfunc ? S_BPF_KFUNC : S_UFUNC, (uint64_t)fn << 32 | depth,
		   s, nl, s == name, et->kfunc ? "kernel" : "user");
}

/*
 * A BPF function exit closes its entry; without one, a record that knows
 * its start (and so its duration) becomes a whole slice.
 */
static void on_bpf_func_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			     const struct fmt_event *ev, int32_t tid)
{
	uint32_t fn = (uint32_t)ev_u64(et, 0, ev);
	uint32_t depth = (uint32_t)ev_u64(et, 1, ev);
	uint64_t dur = ev_u64(et, 2, ev), start = ev_u64(et, 5, ev), ts = ev->rec.ts;
	struct thr *t = bpf_func_track(x, ctx, et, ev, tid);
	char name[64];
	const char *s;
	size_t nl = 0;

	if (!t)
		return;
	if (unwind_to(x, t, et->kfunc ? S_BPF_KFUNC : S_UFUNC, (uint64_t)fn << 32 | depth, false)) {
		close_top(x, t, ts);
		return;
	}
	if (!start || dur > ts || !complete_ok(t, ts - dur)) {
		x->orphans++;
		return;
	}
	s = ufunc_name(x, et->kfunc, fn, &nl, name, sizeof(name));
	J_LIT(args_begin(x), "{\"entry_lost\":true}");
	complete(x, t, ts - dur, ts, s, nl, et->kfunc ? "kernel" : "user");
}

/* flytrap:offcpu: the period a task was blocked, written when it wakes. */
static void on_bpf_offcpu(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			  const struct fmt_event *ev, int32_t tid)
{
	uint64_t dur = ev_u64(et, 0, ev), ts = ev->rec.ts;
	int wl = 0;
	const char *wc = fmt_field_ptr(&et->f[4], ev->rec.data, ev->rec.size, &wl);
	struct thr *t = thread(x, ctx, tid, ev->rec.cpu, ev_tgid(et, ev));

	if (!t)
		return;
	if (dur > ts || !complete_ok(t, ts - dur)) {
		x->unnested++;
		return;
	}
	J_LIT(args_begin(x), "{\"state\":");
	j_u64(&x->a, ev_u64(et, 1, ev));
	J_LIT(&x->a, ",\"waker_pid\":");
	j_i64(&x->a, (int32_t)ev_u64(et, 2, ev));
	if (wc && wl > 0) {
		J_LIT(&x->a, ",\"waker_comm\":");
		j_strn(&x->a, wc, (size_t)wl);
	}
	J_LIT(&x->a, "}");
	complete(x, t, ts - dur, ts, "off-CPU", 7, "offcpu");
}

static void on_irq_entry(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			 const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int nl = 0;
	const char *in = fmt_field_ptr(&et->f[1], ev->rec.data, ev->rec.size, &nl);
	size_t max = sizeof(c->irq_name) - 1;

	if (c->in_irq)
		irq_unended(x, cpu);
	c->in_irq = true;
	c->irq_start = ev->rec.ts;
	c->irq = (int32_t)ev_u64(et, 0, ev);
	memset(c->irq_name, 0, sizeof(c->irq_name));
	if (in && nl > 0)
		memcpy(c->irq_name, in, (size_t)nl < max ? (size_t)nl : max);
}

static void on_irq_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t irq = (int32_t)ev_u64(et, 0, ev);
	uint64_t ts = ev->rec.ts;
	char name[64];

	if (c->in_irq && c->irq == irq && ts >= c->irq_start) {
		snprintf(name, sizeof(name), "irq %d %.32s", irq, c->irq_name);
		irq_slice(x, cpu, c->irq_start, ts, name, strlen(name), "irq", irq);
	} else {
		x->orphans++;
	}
	c->in_irq = false;
}

static void on_softirq_entry(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			     const struct fmt_event *ev, int32_t tid)
{
	struct cpu_state *c = &x->cpus[ev->rec.cpu];

	c->in_softirq = true;
	c->softirq_start = ev->rec.ts;
	c->softirq = (int32_t)ev_u64(et, 0, ev);
}

static void on_softirq_exit(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
			    const struct fmt_event *ev, int32_t tid)
{
	int cpu = ev->rec.cpu;
	struct cpu_state *c = &x->cpus[cpu];
	int32_t vec = (int32_t)ev_u64(et, 0, ev);
	uint64_t ts = ev->rec.ts;
	char name[48];

	/* a hard irq inside this softirq already ended: it nests */
	if (c->in_softirq && c->softirq == vec && ts >= c->softirq_start) {
		softirq_label(vec, name, sizeof(name));
		irq_slice(x, cpu, c->softirq_start, ts, name, strlen(name), "softirq", vec);
	} else {
		x->orphans++;
	}
	c->in_softirq = false;
}

/* --instants: any other event is a marker on its task, with the text trace-cmd prints for it. */
static void on_other(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
		     const struct fmt_event *ev, int32_t tid)
{
	struct thr *t;

	if (!exp_conf.instants)
		return;
	t = thread(x, ctx, tid, ev->rec.cpu, -1);
	if (!t)
		return;
	t->used = true;
	j_ev_pt(&x->j, 'i', ev->rec.ts, t->pt, t->ptlen);
	J_LIT(&x->j, ",\"s\":\"t\",\"name\":");
	j_str(&x->j, et->evname ? et->evname : "unknown event");
	J_LIT(&x->j, ",\"args\":{\"cpu\":");
	j_i64(&x->j, ev->rec.cpu);
	if (ev->event && x->seq_ready) {
		trace_seq_reset(&x->seq);
		tep_print_event(ctx->tep, &x->seq, (struct tep_record *)&ev->rec, "%s",
				TEP_PRINT_INFO);
		trace_seq_terminate(&x->seq);
		J_LIT(&x->j, ",\"info\":");
		j_strn(&x->j, x->seq.buffer, x->seq.len);
	}
	J_LIT(&x->j, "}}");
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

	if (!x->j.based)
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
static void flame_by_event(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
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
typedef void exp_handler(struct exp *x, const struct rpt_ctx *ctx, const struct etype *et,
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
	struct etype *et = rpt_types_get(&x->types, ev->type);
	int32_t tid;

	if (!note_event(x, ctx, ev) || !et)
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
	x->j.f = exp_conf.out;
	x->j.first = true;
	x->j.buf = malloc(JBUF);
	x->a.buf = malloc(JBUF);	/* args: a few fields; never flushed (no stream) */
	if (!x->j.buf || !x->a.buf)
		return -ENOMEM;
	x->types.elem_size = sizeof(struct etype);
	rpt_map_init(&x->threads, sizeof(struct thr));
	rpt_map_init(&x->wakeups, sizeof(struct wake));
	x->abi = rpt_sys_abi(ctx->info ? ctx->info->uname : NULL, ctx->info ? ctx->info->kernel_long : 8);
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
	if (!x->hd)
		J_LIT(&x->j, "{\"traceEvents\":[");
	return 0;
}

static void meta_name(struct exp *x, const char *what, int32_t pid, int32_t tid, const char *name)
{
	j_ev(&x->j, 'M', 0, pid, tid);
	J_LIT(&x->j, ",\"name\":\"");
	j_raw(&x->j, what, strlen(what));
	J_LIT(&x->j, "\",\"args\":{\"name\":");
	j_str(&x->j, name);
	J_LIT(&x->j, "}}");
}

static void meta_sort(struct exp *x, const char *what, int32_t pid, int32_t tid, int64_t idx)
{
	j_ev(&x->j, 'M', 0, pid, tid);
	J_LIT(&x->j, ",\"name\":\"");
	j_raw(&x->j, what, strlen(what));
	J_LIT(&x->j, "\",\"args\":{\"sort_index\":");
	j_i64(&x->j, idx);
	J_LIT(&x->j, "}}");
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

		if ((o->has_t0 && l->ts < o->t0_ns) || (o->has_t1 && (l->prev_ts ? l->prev_ts : l->ts) > o->t1_ns))
			continue;
		if (!rpt_cpu_selected(o, l->cpu))
			continue;
		if (info && l->buffer >= 0 && l->buffer < info->nbuffers)
			bname = info->buffers[l->buffer].name;
		j_ev(&x->j, 'i', l->ts, CPU_PID, CPU_TID(l->cpu));
		J_LIT(&x->j, ",\"s\":\"t\",\"name\":\"events lost\",\"cat\":\"drops\",\"args\":{\"count\":");
		if (l->count < 0)
			J_LIT(&x->j, "\"unknown\"");
		else
			j_i64(&x->j, l->count);
		J_LIT(&x->j, ",\"buffer\":");
		j_str(&x->j, *bname ? bname : "top");
		if (l->prev_ts) {
			J_LIT(&x->j, ",\"after_ts_us\":");
			j_us(&x->j, l->prev_ts > x->j.base ? l->prev_ts - x->j.base : 0);
		}
		J_LIT(&x->j, "}}");
		if (l->count > 0)
			x->lost_total += (uint64_t)l->count;
		j_ev(&x->j, 'C', l->ts, CPU_PID, CPU_PID);
		J_LIT(&x->j, ",\"name\":\"events lost\",\"args\":{\"lost\":");
		j_u64(&x->j, x->lost_total);
		J_LIT(&x->j, "}}");
		if (x->hd) {
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
			j_ev(&x->j, 'i', ts, CPU_PID, CPU_TID((int32_t)dr.cpu));
			J_LIT(&x->j, ",\"s\":\"t\",\"name\":\"BPF records lost\",\"cat\":\"drops\",\"args\":{\"count\":");
			j_u64(&x->j, dr.count);
			J_LIT(&x->j, ",\"program\":");
			j_str(&x->j, bpf_prog_name(x, dr.prog, pname, sizeof(pname)));
			J_LIT(&x->j, "}}");
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
	j_ev(&x->j, 'i', ts, CPU_PID, CPU_PID);
	J_LIT(&x->j, ",\"s\":\"g\",\"name\":");
	j_str(&x->j, name);
	J_LIT(&x->j, ",\"cat\":\"trigger\",\"args\":{\"trigger\":");
	j_strn(&x->j, reason, rl);
	J_LIT(&x->j, "}}");
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
		while (t->nopen)
			drop_top(x, t);
	for (c = 0; c < x->ncpus; c++) {
		struct cpu_state *cs = &x->cpus[c];

		if (cs->known && cs->cur != 0)
			run_end(x, c, end, cs->comm, strnlen(cs->comm, 16), cs->cur, true, 0, false);
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
			meta_name(x, "thread_name", t->pid, t->tid, nm);
		} else {
			if (t->side) {
				snprintf(nm, sizeof(nm), "%.30s (BPF)", rpt_comm(ctx, t->real_tid));
				meta_name(x, "thread_name", t->pid, t->tid, nm);
			} else {
				meta_name(x, "thread_name", t->pid, t->tid, rpt_comm(ctx, t->real_tid));
			}
		}
		if (rpt_map_get(&pids, (uint32_t)t->pid, &created) && created)
			meta_name(x, "process_name", t->pid, t->pid,
				  t->pid == 0 ? "idle" : rpt_comm(ctx, t->pid));
	}
	rpt_map_release(&pids);
	meta_name(x, "process_name", CPU_PID, CPU_PID, "CPUs");
	meta_sort(x, "process_sort_index", CPU_PID, CPU_PID, -1);
	for (c = 0; c < x->ncpus; c++) {
		char nm[32];

		if (!x->cpus[c].seen)
			continue;
		snprintf(nm, sizeof(nm), "CPU %d", c);
		meta_name(x, "thread_name", CPU_PID, CPU_TID(c), nm);
		meta_sort(x, "thread_sort_index", CPU_PID, CPU_TID(c), 2 * c);
		snprintf(nm, sizeof(nm), "CPU %d irq", c);
		meta_name(x, "thread_name", CPU_PID, IRQ_TID(c), nm);
		meta_sort(x, "thread_sort_index", CPU_PID, IRQ_TID(c), 2 * c + 1);
	}

	if (!x->hd) {
		/*
		 * No "displayTimeUnit": some Perfetto versions read it as the
		 * unit of ts and dur, which are microseconds here whatever it says.
		 */
		J_LIT(&x->j, "\n],\n\"otherData\":{\"generator\":\"flytrap ");
		J_LIT(&x->j, FLYTRAP_VERSION);
		J_LIT(&x->j, "\",\"source\":");
		j_str(&x->j, ctx->opts->path);
		J_LIT(&x->j, ",\"ts_offset_us\":");
		j_us(&x->j, x->j.base);
		J_LIT(&x->j, ",\"events\":");
		j_u64(&x->j, ctx->nevents);
		J_LIT(&x->j, ",\"slices\":");
		j_u64(&x->j, x->slices + x->completes);
		J_LIT(&x->j, ",\"cpu_slices\":");
		j_u64(&x->j, x->sched_slices + x->irq_slices);
		J_LIT(&x->j, ",\"wakeups\":");
		j_u64(&x->j, x->flows);
		J_LIT(&x->j, ",\"exits_without_entry\":");
		j_u64(&x->j, x->orphans);
		J_LIT(&x->j, ",\"enters_without_exit\":");
		j_u64(&x->j, x->no_exit);
		J_LIT(&x->j, ",\"closed_at_task_exit\":");
		j_u64(&x->j, x->forced_ends);
		J_LIT(&x->j, ",\"not_nested\":");
		j_u64(&x->j, x->unnested + x->too_deep);
		J_LIT(&x->j, ",\"events_lost\":");
		j_u64(&x->j, x->lost_total);
		if (x->trigger) {
			J_LIT(&x->j, ",\"trigger\":");
			j_strn(&x->j, x->trigger, x->trigger_len);
			J_LIT(&x->j, ",\"trigger_ts_us\":");
			j_us(&x->j, x->trigger_ts > x->j.base ? x->trigger_ts - x->j.base : 0);
		}
		J_LIT(&x->j, "}}\n");
	} else {
		x->hd->first_ts = ctx->first_ts;
		x->hd->last_ts = ctx->last_ts;
	}
	j_flush(&x->j);
	if (x->j.f && fflush(x->j.f) && !exp_conf.write_errno)
		exp_conf.write_errno = errno ? errno : EIO;
	ft_info("export: %" PRIu64 " events, %" PRIu64 " slices, %" PRIu64 " from their end, %" PRIu64
		" CPU slices, %" PRIu64 " exits without entry, %" PRIu64 " entries without exit",
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
		free(t->open);
	rpt_map_release(&x->threads);
	rpt_map_release(&x->wakeups);
	rpt_types_release(&x->types);
	if (x->seq_ready)
		trace_seq_destroy(&x->seq);
	free(x->ufn);
	free(x->kfn);
	free(x->cpus);
	free(x->j.buf);
	free(x->a.buf);
}

static const struct rpt_analyzer exp_analyzer = {
	.name = "export",
	.priv_size = sizeof(struct exp),
	.init = exp_init,
	.event = exp_event,
	.finish = exp_finish,
	.release = exp_release,
};

/* ---- HTML: the other analyzers in the same pass ------------------------------ */

#pragma weak rpt_callgraph_analyzer
#pragma weak rpt_overhead_analyzer
#pragma weak rpt_drops_analyzer
#pragma weak rpt_overhead_result_release
#pragma weak rpt_drops_result_release

static int run_html(struct fmt_reader *r, struct rpt_opts *o, FILE *out, const char *outpath)
{
	struct exp_html_data hd = { 0 };
	struct rpt_callgraph_conf cgc = { 0 };
	struct rpt_analyzer cg, ex = exp_analyzer, ov, dr;
	const struct rpt_analyzer *list[4];
	struct exp_html_input in = { 0 };
	struct rpt_overhead_conf ovc = { 0 };
	struct rpt_drops_conf drc = { 0 };
	struct rpt_overhead_result ovres = { 0 };
	struct rpt_drops_result drres = { 0 };
	FILE *devnull = NULL;
	const char *unit = NULL;
	char filters[512];
	int n = 0, rc, ret = EXIT_OK;
	struct rpt_flame *calls = rpt_flame_new();

	if (!calls)
		return ft_error("cannot export: %s", strerror(ENOMEM));
	/* the call graph's own printout is not wanted, only its stacks */
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		ret = ft_error("cannot export: %s", strerror(errno));
		goto out;
	}
	exp_conf.html = true;
	exp_conf.html_data = &hd;
	exp_conf.out = NULL;	/* the Chrome JSON is not wanted here */
	o->json = true;
	ex.out = devnull;
	list[n++] = &ex;
	if (&rpt_callgraph_analyzer) {
		cg = rpt_callgraph_analyzer;
		cgc.output = RPT_CG_FOLDED;
		cgc.per_task = true;
		cgc.flame = calls;
		cgc.flame_unit = &unit;
		cg.conf = &cgc;
		cg.out = devnull;
		list[n++] = &cg;
	}
	if (&rpt_overhead_analyzer) {
		ov = rpt_overhead_analyzer;
		ovc.result = &ovres;
		ov.conf = &ovc;
		list[n++] = &ov;
	}
	if (&rpt_drops_analyzer) {
		dr = rpt_drops_analyzer;
		drc.result = &drres;
		dr.conf = &drc;
		list[n++] = &dr;
	}

	rc = rpt_replay(r, o, list, n);
	if (rc && rc != -EBADMSG) {
		ret = rpt_replay_status(rc, r, o, "export");
		goto out;
	}
	ret = rpt_replay_status(rc, r, o, "export");	/* damaged data: the page covers what was read */
	in.path = o->path;
	in.info = fmt_reader_info(r);
	in.data = &hd;
	in.calls = calls;
	in.calls_unit = unit;
	in.calls_from_analyzer = true;
	if (!rpt_flame_total(calls)) {
		/* no callgraph analyzer in this build, or nothing it could use */
		in.calls = hd.calls;
		in.calls_unit = "ns";
		in.calls_from_analyzer = false;
	}
	in.overhead = ovres.path ? &ovres : NULL;	/* path: the analyzer finished */
	in.why_overhead = &rpt_overhead_analyzer ? "the overhead analyzer gave no output"
						 : "this flytrap was built without the overhead analyzer";
	in.drops = drres.path ? &drres : NULL;
	in.why_drops = &rpt_drops_analyzer ? "the drops analyzer gave no output"
					   : "this flytrap was built without the drops analyzer";
	in.filters = rpt_fmt_filters(o, filters, sizeof(filters));
	errno = 0;
	if (exp_html_write(out, &in) || fflush(out) || ferror(out)) {
		int e = errno ? errno : EIO;

		/* `| head`: the reader left, quietly; stdout is named once by the front end */
		if (!outpath)
			rpt_set_out_errno(e);
		else if (e != EPIPE)
			ret = ft_error("cannot write '%s': %s", outpath ? outpath : "standard output",
				       strerror(e));
	}
out:
	if (devnull)
		fclose(devnull);
	if (&rpt_overhead_analyzer)
		rpt_overhead_result_release(&ovres);
	if (&rpt_drops_analyzer)
		rpt_drops_result_release(&drres);
	exp_tl_release(&hd.tl);
	rpt_flame_free(hd.oncpu);
	rpt_flame_free(hd.byevent);
	rpt_flame_free(hd.calls);
	rpt_flame_free(calls);
	return ret;
}

/* ---- command ---------------------------------------------------------------- */

static const char usage_text[] =
"usage: flytrap export [FILE] [-o OUT] [--html | --json] [options]\n"
"\n"
"Write the trace as Chrome trace-event JSON, the format the Perfetto UI\n"
"(ui.perfetto.dev) and chrome://tracing open: tasks as tracks with their\n"
"syscalls and function calls as slices, one track per CPU showing which\n"
"task runs and its interrupts, lost events as markers.  With --html, write\n"
"one self-contained page instead (flame graph, CPU/drops timeline,\n"
"overhead and drops tables) to attach to a bug report.\n"
"\n"
"  FILE               input (default trace.dat)\n"
"  -o, --output OUT   write to OUT instead of standard output\n"
"  --html             the HTML report instead of JSON\n"
"  --json             the Chrome trace-event JSON (the default; the other\n"
"                     analyzers' --json has no other meaning here)\n"
"  --instants         also every other event, as an instant marker on its task\n";

struct exp_args {
	const char *outpath;
	bool html, json;
};

enum { EXP_O_HTML = 1, EXP_O_JSON, EXP_O_INSTANTS, EXP_O_OUTPUT };

static const struct ft_opt exp_opts[] = {
	{ "html", 0, false, EXP_O_HTML }, { "json", 0, false, EXP_O_JSON },
	{ "instants", 0, false, EXP_O_INSTANTS }, { "output", 'o', true, EXP_O_OUTPUT }, { 0 },
};

static int exp_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct exp_args *A = arg;

	(void)table;
	switch (o->id) {
	case EXP_O_HTML:
	case EXP_O_JSON:
		if (o->id == EXP_O_HTML ? A->json : A->html)
			return ft_usage_error("--html and --json: the output is one or the other");
		*(o->id == EXP_O_HTML ? &A->html : &A->json) = true;
		return 0;
	case EXP_O_INSTANTS:
		exp_conf.instants = true;
		return 0;
	default:
		if (!*v)
			return ft_usage_error("'--output' needs a file name");
		A->outpath = v;
		return 0;
	}
}

static int exp_run(void *arg, struct fmt_reader *r, struct rpt_opts *o)
{
	struct exp_args *A = arg;
	const struct rpt_analyzer *list[1] = { &exp_analyzer };
	FILE *out = stdout;
	struct fmt_outfile of;
	int rc, ret = EXIT_OK;

	if (A->outpath) {
		const char *why = NULL;

		if (fmt_outfile_check(A->outpath, &why) && why)
			return ft_usage_error("cannot write '%s': %s", A->outpath, why);
		/* written under a temporary name, renamed into place when whole */
		out = rpt_text_out_begin(A->outpath, &of);
		if (!out)
			return ft_error("cannot create '%s': %s", A->outpath, strerror(errno));
	}
	/* big blocks: the JSON writer hands over 256 KiB at a time anyway */
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	if (A->html) {
		ret = run_html(r, o, out, A->outpath);
	} else {
		exp_conf.out = out;
		rc = rpt_replay(r, o, list, 1);
		if (rc == -EIO && exp_conf.write_errno && !A->outpath) {
			/* the command front end names standard output once (EPIPE: quietly) */
			rpt_set_out_errno(exp_conf.write_errno);
			ret = EXIT_OK;
		} else if (rc == -EIO && exp_conf.write_errno == EPIPE)
			ret = EXIT_OK;	/* `| head`: the reader left, quietly */
		else if (rc == -EIO && exp_conf.write_errno)
			ret = ft_error("cannot write '%s': %s", A->outpath ? A->outpath : "standard output",
				       strerror(exp_conf.write_errno));
		else
			ret = rpt_replay_status(rc, r, o, "export");
	}
	if (A->outpath) {
		/* a failed export leaves nothing that looks like one */
		int e = rpt_text_out_end(out, &of, ret == EXIT_OK);

		if (e && ret == EXIT_OK)
			ret = ft_error("cannot write '%s': %s", A->outpath, strerror(-e));
	}
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct exp_args A = { 0 };
	struct rpt_command c = { .usage = usage_text, .no_json = true, .opts = { exp_opts },
				 .option = exp_option,
				 .run = exp_run, .arg = &A };

	memset(&exp_conf, 0, sizeof(exp_conf));
	return rpt_run_command(argc, argv, &c);
}
