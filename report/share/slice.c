// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap slice: the part of a recording a user picks (time window, CPUs,
 * tasks, events) as a trace.dat of its own, with the context that makes it
 * readable alone: every option, the formats, kallsyms and printk formats,
 * the cmdlines of the tasks that appear, the loss markers inside the window
 * and, as flytrap metadata (FMT_OPT_FT_SLICE), where it came from and the
 * state at the cuts: the task on each CPU, and the entry records of the
 * function-graph / ufunc / kfunc frames open at the start (with the exit
 * records of those open at the end), which the replay hands the analyzers
 * around the slice's own events so that callgraph gives the calls their
 * true durations.
 *
 * Records are re-encoded into new pages with their stored time stamps, so
 * every option about time (DATE, OFFSET, TSC2NSEC, TIME_SHIFT) stays valid
 * as it is copied.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "format.h"
#include "report/core/bpfstacks.h"
#include "report/core/calls.h"
#include "report/core/kinds.h"
#include "report/core/replay.h"
#include "report/share/convert.h"
#include "report/share/rewrite.h"
#include "report/share/slice_maps.h"

static const char usage_text[] =
	"usage: flytrap slice [options] IN -o OUT\n"
	"\n"
	"Write the part of IN that the filters select as a trace.dat of its own, with\n"
	"its options, formats, symbols, the cmdlines of the tasks in it, the loss\n"
	"markers inside it and the state at the cut (for callgraph and overhead).\n"
	"\n"
	"  -o, --output FILE   where to write (required; never the input)\n"
	"      --from T        first time kept, as report prints it (12.345678)\n"
	"      --to T          last time kept\n"
	"      --cpu LIST      only these CPUs (0,2-3)\n"
	"      --pid N[,N..]   only events of these tasks (common_pid)\n"
	"      --comm GLOB     only events of tasks named so\n"
	"  -e, --event EV      only these events (sched_switch, sched:*, …; repeat)\n"
	"      --keep-kallsyms keep every kernel symbol (default: those the kept\n"
	"                      events and stacks point into)\n"
	"      --json          a JSON summary on standard output\n"
	"  -v                  more messages\n"
	"  -h, --help          this help\n";

enum fkind { FK_UNSET, FK_NONE, FK_FG_ENTRY, FK_FG_EXIT, FK_UF_ENTRY, FK_UF_EXIT,
	     FK_KF_ENTRY, FK_KF_EXIT, FK_SWITCH, FK_WAKEUP };

/* What slice reads of one event id: its kind and the fields naming tasks and functions. */
struct slice_evtype {
	uint8_t kind;
	int8_t sel;		/* -e: 0 unknown, 1 kept, -1 dropped */
	struct fmt_field f_func, f_depth;
	int npid;
	struct fmt_field f_pid[4];	/* integer fields naming tasks (next_pid, …) */
	struct fmt_field c1, p1, c2, p2;	/* comms the sched plugin registers */
	struct fmt_field f_tgid;	/* the process of common_pid (BPF records, user_stack) */
	struct fmt_field f_cpid;	/* common_pid, as the index's facts read it */
};

struct learned {
	int pid;
	char comm[24];
	uint64_t ts, seq;	/* where the name was seen: stamp, stream rank, order */
	int rank;
};

/* A task's process, and where a record said so. */
struct tgid_at {
	int tgid;
	int rank;
	uint64_t ts;
};

/* A call's entry record, held on its task's stack while the call is open. */
struct held_entry {
	struct rpt_call call;	/* first: how it pairs (report/core/calls.h) */
	uint64_t raw_ts;
	bool open_at_end;	/* was open when the window ended: its exit is an epilogue */
	int buffer, cpu;
	uint8_t *payload;
	uint32_t len;
};

struct ftask {
	int pid;
	struct rpt_calls calls;	/* of struct held_entry */
};

struct rec_copy {
	int buffer, cpu;
	uint64_t raw_ts;
	uint8_t *payload;
	uint32_t len;
};

struct slice {
	struct fmt_reader *r;
	const struct fmt_info *in;
	struct rpt_opts o;
	const char *in_path, *out_path;
	char **events;
	int nevents;
	char *filters;		/* as typed */

	struct slice_evtype *types;	/* by event ID */
	int maxcpu;
	struct rpt_enc *enc;	/* nbuffers × (maxcpu + 1) */
	struct fmt_wbuf **wb;
	int64_t *carried;	/* loss seen on a record left out, per stream */

	struct ftask *tasks;	/* stacks per pid, sorted by pid */
	int ntasks, tasks_cap;
	uint64_t open_at_end;	/* frames whose exit is still to come after the window */
	bool started, ended;

	struct rec_copy *pro, *epi;
	int npro, nepi, procap, epicap;
	struct rec_copy *last_switch;	/* per stream of the top buffer, before the window */
	int *cpu_task;		/* per stream: common_pid of the last record before the window */

	/*
	 * trace-cmd's sched plugin names a task the cmdlines lack after the
	 * first sched_switch or wakeup that carries its comm: those seen before
	 * the window go into the slice's cmdlines, so its lines name them too.
	 */
	int *cmdl_pids;		/* pids of the file's cmdlines, sorted */
	int ncmdl;
	struct learned *learned;
	int nlearned, learned_cap;
	struct rpt_map learned_ix;	/* pid -> index in learned + 1 */
	uint64_t seq;

	/*
	 * --from with the time index: each stream starts at the chunk that
	 * holds its last event before the cut, and what slice takes from the
	 * chunks before (names, processes, the CPU's last switch) comes from
	 * the index's facts and state records (seek_plan()).
	 */
	bool seek;
	struct fmt_iter_range *rg;
	int nrg;
	uint64_t chunks_skipped, chunks_all;

	int *pids;		/* tasks that appear (cmdlines kept) */
	int npids, pidcap;
	struct rpt_map tgids;	/* pid -> struct tgid_at, from the records' tgid fields */
	int *procs;		/* processes of the tasks that appear (maps kept), sorted */
	int nprocs;
	struct rpt_slice_maps_stats maps;
	uint64_t kept, read, losses;

	bool keep_kallsyms;		/* --keep-kallsyms: all of them */
	struct rpt_ksyms_keep *ksyms;	/* else those the kept records point into */
	size_t ksyms_kept, ksyms_all;
};

static void enc_index(const struct slice *s, int buffer, int cpu, int *ix)
{
	*ix = buffer * (s->maxcpu + 1) + cpu;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void note_pid(struct slice *s, int pid)
{
	if (pid <= 0)
		return;
	if (s->npids && s->pids[s->npids - 1] == pid)
		return;
	if (s->npids == s->pidcap) {
		int cap = s->pidcap ? s->pidcap * 2 : 256;
		int *np = realloc(s->pids, (size_t)cap * sizeof(*np));

		if (!np)
			return;
		s->pids = np;
		s->pidcap = cap;
	}
	s->pids[s->npids++] = pid;
	/* keep it small: sort and unique now and then */
	if (s->npids == s->pidcap) {
		int k = 0;

		qsort(s->pids, (size_t)s->npids, sizeof(int), cmp_int);
		for (int i = 0; i < s->npids; i++)
			if (!k || s->pids[k - 1] != s->pids[i])
				s->pids[k++] = s->pids[i];
		s->npids = k;
	}
}

static bool pid_kept(void *arg, int pid)
{
	struct slice *s = arg;

	return s->npids && bsearch(&pid, s->pids, (size_t)s->npids, sizeof(int), cmp_int) != NULL;
}

static bool event_wanted(const struct slice *s, const struct tep_event *e)
{
	char full[256];

	if (!s->nevents)
		return true;
	if (!e)
		return false;
	snprintf(full, sizeof(full), "%s:%s", e->system, e->name);
	for (int i = 0; i < s->nevents; i++)
		if (!fnmatch(s->events[i], full, 0) || !fnmatch(s->events[i], e->name, 0))
			return true;
	return false;
}

/*
 * What the slice keeps state for, by the one kind table (report/core/kinds.c):
 * calls (function_graph, flytrap's ufunc/kfunc records), whose edges the
 * window must not cut, and the task names the sched plugin prints.
 */
static void classify(struct slice_evtype *t, const struct tep_event *e)
{
	struct rpt_kind_info ki;

	rpt_kind_resolve(e, &ki);
	switch (ki.kind) {
	case RPT_K_FG_ENTRY:
	case RPT_K_FG_EXIT:
		t->kind = ki.kind == RPT_K_FG_ENTRY ? FK_FG_ENTRY : FK_FG_EXIT;
		t->f_func = ki.f[RPT_F_FG_FUNC];
		t->f_depth = ki.f[RPT_F_FG_DEPTH];
		break;
	case RPT_K_BPF_UFUNC_ENTRY: t->kind = FK_UF_ENTRY; break;
	case RPT_K_BPF_UFUNC_EXIT: t->kind = FK_UF_EXIT; break;
	case RPT_K_BPF_KFUNC_ENTRY: t->kind = FK_KF_ENTRY; break;
	case RPT_K_BPF_KFUNC_EXIT: t->kind = FK_KF_EXIT; break;
	case RPT_K_SCHED_SWITCH:
		t->kind = FK_SWITCH;
		t->c1 = ki.f[RPT_F_SW_PREV_COMM];
		t->p1 = ki.f[RPT_F_SW_PREV_PID];
		t->c2 = ki.f[RPT_F_SW_NEXT_COMM];
		t->p2 = ki.f[RPT_F_SW_NEXT_PID];
		break;
	case RPT_K_SCHED_WAKEUP:
		t->kind = FK_WAKEUP;
		t->c1 = ki.f[RPT_F_WK_COMM];
		t->p1 = ki.f[RPT_F_WK_PID];
		break;
	default:
		break;
	}
	if (t->kind >= FK_UF_ENTRY && t->kind <= FK_KF_EXIT) {
		t->f_func = ki.f[RPT_F_UF_FUNC];
		t->f_depth = ki.f[RPT_F_UF_DEPTH];
	}
}

static struct slice_evtype *etype(struct slice *s, const struct fmt_event *ev)
{
	struct slice_evtype *t;
	const struct tep_event *e = ev->event;

	if (ev->type < 0 || ev->type > 65535)
		return NULL;
	t = &s->types[ev->type];
	if (t->kind != FK_UNSET)
		return t;
	t->kind = FK_NONE;
	t->sel = event_wanted(s, e) ? 1 : -1;
	t->f_func.offset = t->f_depth.offset = -1;
	t->c1.offset = t->p1.offset = t->c2.offset = t->p2.offset = -1;
	t->f_tgid.offset = -1;
	if (!e)
		return t;
	{
		/* the process of a task as the index's facts take it (format/names.c) */
		struct fmt_namesrc ns;

		fmt_namesrc_resolve(e, &ns);
		t->f_tgid = ns.tgid;
		t->f_cpid = ns.common_pid;
	}
	classify(t, e);
	for (struct tep_format_field *f = e->format.fields; f && t->npid < 4; f = f->next) {
		size_t l = strlen(f->name);

		if (l >= 3 && !strcmp(f->name + l - 3, "pid") && !(f->flags & TEP_FIELD_IS_ARRAY) &&
		    f->size == 4 && !fmt_field_resolve(e, f->name, &t->f_pid[t->npid]))
			t->npid++;
	}
	return t;
}

static int event_pid(const struct fmt_event *ev)
{
	int32_t pid;

	/* common_pid follows common_type, flags and preempt_count */
	if (ev->rec.size < 8)
		return -1;
	memcpy(&pid, (const uint8_t *)ev->rec.data + 4, 4);
	return ev->event ? (int)tep_data_pid(ev->event->tep, (struct tep_record *)&ev->rec) : pid;
}

static bool task_wanted(const struct slice *s, int pid)
{
	bool ok = true;

	if (s->o.npids) {
		ok = false;
		for (int i = 0; i < s->o.npids; i++)
			ok |= s->o.pids[i] == pid;
	}
	if (ok && s->o.ncomms) {
		const char *comm = tep_data_comm_from_pid(fmt_reader_tep(s->r), pid);

		ok = false;
		for (int i = 0; i < s->o.ncomms; i++)
			ok |= !fnmatch(s->o.comms[i], comm ? comm : "<...>", 0);
	}
	return ok;
}

static bool in_cmdlines(const struct slice *s, int pid)
{
	return s->ncmdl &&
	       bsearch(&pid, s->cmdl_pids, (size_t)s->ncmdl, sizeof(int), cmp_int) != NULL;
}

/* Is (ts, rank) before (ts0, rank0) in the merge's order? */
static inline bool earlier(uint64_t ts, int rank, uint64_t ts0, int rank0)
{
	return ts != ts0 ? ts < ts0 : rank < rank0;
}

/*
 * A name a record gives (at ts on the stream of rank).  The first name
 * wins, as tep_register_comm() keeps it; records come in merge order but
 * for the index's, which come first and give way to an earlier one.
 */
static void learn(struct slice *s, const struct fmt_field *c, const struct fmt_field *p,
		  const void *data, int size, uint64_t ts, int rank)
{
	const char *comm;
	int pid, len, *ix;
	bool created;
	struct learned *l;

	if (c->offset < 0 || p->offset < 0)
		return;
	pid = (int)fmt_field_u64(p, data, size);
	comm = fmt_field_ptr(c, data, size, &len);
	if (!comm || in_cmdlines(s, pid))
		return;
	ix = rpt_map_get(&s->learned_ix, (uint64_t)(uint32_t)pid, &created);
	if (!ix)
		return;
	if (!created && *ix) {	/* (0: its entry could not be made last time) */
		l = &s->learned[*ix - 1];
		/* a full read meets the first name first (and keeps it with stamps out of order) */
		if (!s->seek || !earlier(ts, rank, l->ts, l->rank))
			return;
		l->ts = ts;
		l->rank = rank;
		l->seq = s->seq++;
		goto name;
	}
	if (s->nlearned == s->learned_cap) {
		int cap = s->learned_cap ? s->learned_cap * 2 : 64;
		struct learned *nl = realloc(s->learned, (size_t)cap * sizeof(*nl));

		if (!nl)
			return;
		s->learned = nl;
		s->learned_cap = cap;
	}
	l = &s->learned[s->nlearned++];
	*ix = s->nlearned;
	*l = (struct learned){ .pid = pid, .ts = ts, .rank = rank, .seq = s->seq++ };
name:
	len = (int)strnlen(comm, (size_t)len);
	if (len > (int)sizeof(l->comm) - 1)
		len = (int)sizeof(l->comm) - 1;
	memcpy(l->comm, comm, (size_t)len);
	l->comm[len] = '\0';
}

/* A task's process, from a record at (ts, rank): the last in merge order wins. */
static void set_tgid(struct slice *s, int pid, int tgid, uint64_t ts, int rank)
{
	struct tgid_at *t;
	bool created;

	if (pid <= 0)
		return;
	t = rpt_map_get(&s->tgids, (uint64_t)pid, &created);
	if (!t || (!created && s->seek && earlier(ts, rank, t->ts, t->rank)))
		return;
	*t = (struct tgid_at){ tgid, rank, ts };
}

static void load_cmdline_pids(struct slice *s)
{
	const char *p = s->in->cmdlines.data, *end = p ? p + s->in->cmdlines.len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *q;
		long pid = strtol(p, &q, 10);

		if (q > p) {
			int *np = realloc(s->cmdl_pids, (size_t)(s->ncmdl + 1) * sizeof(*np));

			if (!np)
				break;
			s->cmdl_pids = np;
			s->cmdl_pids[s->ncmdl++] = (int)pid;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (s->ncmdl)
		qsort(s->cmdl_pids, (size_t)s->ncmdl, sizeof(int), cmp_int);
}

/* ---- stacks of open frames ------------------------------------------------------- */

static struct ftask *ftask(struct slice *s, int pid)
{
	int lo = 0, hi = s->ntasks;

	while (lo < hi) {
		int m = (lo + hi) / 2;

		if (s->tasks[m].pid < pid)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < s->ntasks && s->tasks[lo].pid == pid)
		return &s->tasks[lo];
	if (s->ntasks == s->tasks_cap) {
		int cap = s->tasks_cap ? s->tasks_cap * 2 : 64;
		struct ftask *nt = realloc(s->tasks, (size_t)cap * sizeof(*nt));

		if (!nt)
			return NULL;
		s->tasks = nt;
		s->tasks_cap = cap;
	}
	memmove(&s->tasks[lo + 1], &s->tasks[lo], (size_t)(s->ntasks - lo) * sizeof(*s->tasks));
	s->ntasks++;
	s->tasks[lo] = (struct ftask){ .pid = pid };
	rpt_calls_init(&s->tasks[lo].calls, sizeof(struct held_entry));
	return &s->tasks[lo];
}

static int copy_rec(struct rec_copy **v, int *n, int *cap, const struct fmt_event *ev)
{
	struct rec_copy *c;

	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 64;
		struct rec_copy *nv = realloc(*v, (size_t)nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	c = &(*v)[*n];
	c->payload = malloc(ev->rec.size ? (size_t)ev->rec.size : 1);
	if (!c->payload)
		return -ENOMEM;
	memcpy(c->payload, ev->rec.data, (size_t)ev->rec.size);
	c->len = (uint32_t)ev->rec.size;
	c->buffer = ev->buffer;
	c->cpu = ev->rec.cpu;
	c->raw_ts = ev->raw_ts;
	(*n)++;
	return 0;
}

/* A kept record (an open call's entry, a CPU's last switch) into the prologue. */
static int prologue_add(struct slice *s, uint8_t *payload, uint32_t len, int cpu, int buffer,
			uint64_t raw_ts)
{
	struct fmt_event ev = { 0 };

	ev.rec.data = payload;
	ev.rec.size = (int)len;
	ev.rec.cpu = cpu;
	ev.buffer = buffer;
	ev.raw_ts = raw_ts;
	return copy_rec(&s->pro, &s->npro, &s->procap, &ev);
}

static struct held_entry *held(const struct ftask *t, int k)
{
	return rpt_calls_at(&t->calls, k);
}

static void pop(struct slice *s, struct ftask *t)
{
	struct held_entry *f = held(t, --t->calls.n);

	if (f->open_at_end)
		s->open_at_end--;
	free(f->payload);
}

#define MAX_STACK 512

/* Follow the calls of one task; an exit that closes a frame open at the end is kept. */
static int track_frames(struct slice *s, const struct slice_evtype *ty, const struct fmt_event *ev,
			int pid)
{
	const void *d = ev->rec.data;
	int sz = ev->rec.size, k, drop;
	struct rpt_call pc = {
		.key = fmt_field_u64(&ty->f_func, d, sz),
		.depth = (uint32_t)fmt_field_u64(&ty->f_depth, d, sz),
		.src = ty->kind == FK_FG_ENTRY || ty->kind == FK_FG_EXIT ? RPT_CALL_FGRAPH :
		       ty->kind == FK_UF_ENTRY || ty->kind == FK_UF_EXIT ? RPT_CALL_UFUNC :
									   RPT_CALL_KFUNC,
	};
	struct ftask *t = ftask(s, pid);
	struct held_entry *f;

	if (!t)
		return -ENOMEM;
	switch (ty->kind) {
	case FK_FG_ENTRY:
	case FK_UF_ENTRY:
	case FK_KF_ENTRY:
		for (drop = rpt_calls_enter(&t->calls, &pc); drop > 0; drop--)
			pop(s, t);
		if (t->calls.n >= MAX_STACK)
			return 0;
		f = rpt_calls_push(&t->calls, &pc, MAX_STACK);
		if (!f)
			return -ENOMEM;
		f->raw_ts = ev->raw_ts;
		f->buffer = ev->buffer;
		f->cpu = ev->rec.cpu;
		f->payload = malloc(sz ? (size_t)sz : 1);
		f->len = (uint32_t)sz;
		if (!f->payload) {
			t->calls.n--;
			return -ENOMEM;
		}
		memcpy(f->payload, d, (size_t)sz);
		return 0;
	default:
		break;
	}
	/* an exit: the frame it closes, after those above it that never returned */
	k = rpt_calls_exit(&t->calls, &pc, &drop);
	for (; drop > 0; drop--)
		pop(s, t);
	if (k < 0)
		return 0;
	if (held(t, k)->open_at_end && task_wanted(s, pid) && (!s->nevents || ty->sel > 0)) {
		int err = copy_rec(&s->epi, &s->nepi, &s->epicap, ev);

		if (err)
			return err;
	}
	pop(s, t);
	return 0;
}

/* The window starts: frames open now, and the last switch of each CPU, go in the prologue. */
static int window_starts(struct slice *s)
{
	int err = 0, nstreams = s->in->nbuffers * (s->maxcpu + 1);

	s->started = true;
	if (!s->o.has_t0)
		return 0;
	for (int i = 0; i < s->ntasks && !err; i++) {
		struct ftask *t = &s->tasks[i];

		if (!task_wanted(s, t->pid))
			continue;
		for (int k = 0; k < t->calls.n && !err; k++) {
			struct held_entry *f = held(t, k);

			if (s->o.has_cpus && !rpt_cpu_selected(&s->o, f->cpu))
				continue;
			err = prologue_add(s, f->payload, f->len, f->cpu, f->buffer, f->raw_ts);
			note_pid(s, t->pid);
		}
	}
	for (int i = 0; i < nstreams && !err; i++) {
		struct rec_copy *c = &s->last_switch[i];

		if (!c->payload)
			continue;
		err = prologue_add(s, c->payload, c->len, c->cpu, c->buffer, c->raw_ts);
	}
	for (int i = 0; i < nstreams; i++)
		note_pid(s, s->cpu_task[i]);
	return err;
}

static void window_ends(struct slice *s)
{
	s->ended = true;
	if (!s->o.has_t1)
		return;
	for (int i = 0; i < s->ntasks; i++)
		for (int k = 0; k < s->tasks[i].calls.n; k++) {
			held(&s->tasks[i], k)->open_at_end = true;
			s->open_at_end++;
		}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec_copy *x = a, *y = b;

	return x->raw_ts < y->raw_ts ? -1 : x->raw_ts > y->raw_ts;
}

/* ---- the pass ---------------------------------------------------------------------- */

static int keep_event(struct slice *s, const struct fmt_event *ev, const struct slice_evtype *ty,
		      int pid)
{
	int ix, err;
	int64_t loss;

	enc_index(s, ev->buffer, ev->rec.cpu, &ix);
	loss = ev->rec.missed_events;
	if (s->carried[ix]) {
		loss = s->carried[ix] < 0 || loss < 0 ? -1 : s->carried[ix] + loss;
		s->carried[ix] = 0;
	}
	if (loss)
		s->losses++;
	err = rpt_enc_add(&s->enc[ix], s->in, ev->raw_ts, ev->rec.data, (uint32_t)ev->rec.size,
			  loss);
	if (err)
		return err;
	rpt_ksyms_keep_record(s->ksyms, ev->event, ev->rec.data, ev->rec.size);
	s->kept++;
	note_pid(s, pid);
	for (int k = 0; ty && k < ty->npid; k++)
		note_pid(s, (int)fmt_field_u64(&ty->f_pid[k], ev->rec.data, ev->rec.size));
	return 0;
}

/* ---- a cut without the chunks before it ------------------------------------------- */

static int cmp_learned(const void *a, const void *b)
{
	const struct learned *x = a, *y = b;

	if (x->ts != y->ts || x->rank != y->rank)
		return earlier(x->ts, x->rank, y->ts, y->rank) ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A record of the index's state section as the iterator would hand it. */
static void state_event(const struct slice *s, const struct fmt_state_rec *sr, int buffer,
			int cpu, struct fmt_event *ev)
{
	const uint8_t *d = sr->data;

	memset(ev, 0, sizeof(*ev));
	ev->rec.ts = fmt_reader_adjust_ts_cpu(s->r, sr->ts, buffer, cpu);
	ev->rec.cpu = cpu;
	ev->rec.data = (void *)d;
	ev->rec.size = (int)sr->size;
	ev->rec.record_size = (int)sr->size;
	ev->buffer = buffer;
	ev->raw_ts = sr->ts;
	ev->type = sr->type;
	ev->event = fmt_reader_event(s->r, ev->type);
}

/* FLYTRAP_WINDOW_READ=say: why a slice reads from the start */
static bool no_seek(const char *env, const char *why)
{
	if (env && !strcmp(env, "say"))
		fprintf(stderr, "slice: reads from the start: %s\n", why);
	return false;
}

/*
 * Can the chunks before the cut be skipped?  Only with --from, when every
 * CPU stream has the index's facts (stamps in order) and state records,
 * the chunks skipped pass their checksums (damage is read and reported as
 * a full read reports it), nothing shifts stamps per CPU, and no call
 * record (function graph, ufunc, kfunc) lies in them: the calls open at
 * the cut need every call before it, which the index does not keep.  Each
 * stream then starts at the chunk with its last event before the cut (the
 * task on the CPU there).  FLYTRAP_WINDOW_READ=full reads everything
 * (tests compare).
 */
static bool seek_plan(struct slice *s)
{
	const struct fmt_info *in = s->in;
	const char *env = getenv("FLYTRAP_WINDOW_READ");
	int ns = 0;

	if (!s->o.has_t0 || (env && !strcmp(env, "full")))
		return false;
	if (in->truncated_at || in->time_shift.present)
		return no_seek(env, "a truncated file, or stamps shifted per CPU");
	if (in->nbuffers > 32767)
		return no_seek(env, "more buffers than the merge's ranks hold");
	if (fmt_reader_facts_status(s->r, NULL) != 1)
		return no_seek(env, "no facts in the time index");
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++)
			ns += in->buffers[b].cpus[c].size != 0;
	free(s->rg);
	s->rg = calloc(ns ? (size_t)ns : 1, sizeof(*s->rg));
	s->nrg = 0;
	s->chunks_skipped = s->chunks_all = 0;
	if (!s->rg)
		return false;
	for (int b = 0; b < in->nbuffers; b++)
		for (int c = 0; c < in->buffers[b].ncpus; c++) {
			const struct fmt_cpu_data *cd = &in->buffers[b].cpus[c];
			const struct fmt_cpu_facts *cf;
			const struct fmt_cpu_state *cs;
			uint32_t first = 0, start;

			if (!cd->size)
				continue;
			cf = fmt_reader_facts(s->r, b, cd->cpu);
			cs = fmt_reader_state(s->r, b, cd->cpu);
			if (!cf || !cf->sorted || !rpt_state_fits(cf, cs) || cd->cpu < 0 ||
			    cd->cpu > s->maxcpu || cd->cpu > 0xffff)
				return no_seek(env, "a CPU without facts and state records that fit "
					       "them, or with stamps out of order");
			if (!rpt_facts_adjusted_sorted(s->r, b, cd->cpu, cf))
				return no_seek(env, "stamps out of order once adjusted (OFFSET, TSC2NSEC)");
			/* a writer before them kept no wakeups or call records */
			if (!(cs->flags & FMT_STATE_SLICE_KINDS))
				return no_seek(env, "state records without wakeups and calls");
			while (first < cf->n && (!cf->chunks[first].nev ||
						 fmt_reader_adjust_ts_cpu(s->r, cf->chunks[first].last, b,
									  cd->cpu) < s->o.t0_ns))
				first++;
			for (start = first; start > 0 && !cf->chunks[start - 1].nev; start--)
				;
			if (start > 0)
				start--;	/* its last event is the one before the cut */
			if (fmt_reader_check_chunks(s->r, b, cd->cpu, 0, start))
				return no_seek(env, "a chunk before the cut fails its checksum");
			for (uint32_t k = 0; k < start; k++) {
				const struct fmt_chunk_state *ch = &cs->chunks[k];

				for (uint32_t j = 0; j < ch->nrec; j++) {
					const struct fmt_state_rec *sr = &cs->recs[ch->rec_at + j];
					const struct slice_evtype *ty;
					struct fmt_event ev;

					state_event(s, sr, b, cd->cpu, &ev);
					ty = etype(s, &ev);
					if (ty && ty->kind >= FK_FG_ENTRY && ty->kind <= FK_KF_EXIT)
						return no_seek(env, "call records before the cut");
				}
			}
			/*
			 * to the end: the read stops at the first event after the
			 * window in merge order, or after the exits of the calls
			 * open there, as a full read does
			 */
			s->rg[s->nrg++] = (struct fmt_iter_range){ b, cd->cpu, start, cf->n };
			s->chunks_skipped += start;
			s->chunks_all += cf->n;
		}
	if (!s->chunks_skipped)
		return false;
	if (env && !strcmp(env, "say"))
		fprintf(stderr, "slice: %" PRIu64 " of %" PRIu64 " chunks skipped\n",
			s->chunks_skipped, s->chunks_all);
	return true;
}

/*
 * What the chunks skipped before the cut give, in place of reading them:
 * their events counted as read, the processes their facts assign, and
 * from their state records the names (each pid's first switch and wakeup
 * are there) and each CPU's last switch.  The records read later give way
 * to these only where a full read's merge order says so.
 */
static int seek_before(struct slice *s)
{
	for (int i = 0; i < s->nrg; i++) {
		const struct fmt_iter_range *rg = &s->rg[i];
		const struct fmt_cpu_facts *cf = fmt_reader_facts(s->r, rg->buffer, rg->cpu);
		const struct fmt_cpu_state *cs = fmt_reader_state(s->r, rg->buffer, rg->cpu);
		int rank = rpt_stream_rank(rg->buffer, rg->cpu), ix;
		const struct fmt_state_rec *last_sw = NULL;

		enc_index(s, rg->buffer, rg->cpu, &ix);
		for (uint32_t k = 0; k < rg->first; k++) {
			const struct fmt_chunk_facts *ch = &cf->chunks[k];
			const struct fmt_chunk_state *cst = &cs->chunks[k];

			s->read += ch->nev;
			for (uint32_t j = 0; j < ch->nnames; j++) {
				const struct fmt_fact_name *nm = &cf->names[ch->name_at + j];

				if (nm->what == 2)
					set_tgid(s, nm->pid, nm->tgid,
						 fmt_reader_adjust_ts_cpu(s->r, nm->ts, rg->buffer, rg->cpu),
						 rank);
			}
			for (uint32_t j = 0; j < cst->nrec; j++) {
				const struct fmt_state_rec *sr = &cs->recs[cst->rec_at + j];
				const struct slice_evtype *ty;
				struct fmt_event ev;

				state_event(s, sr, rg->buffer, rg->cpu, &ev);
				ty = etype(s, &ev);
				if (!ty || (ty->kind != FK_SWITCH && ty->kind != FK_WAKEUP))
					continue;
				learn(s, &ty->c1, &ty->p1, ev.rec.data, ev.rec.size, ev.rec.ts, rank);
				learn(s, &ty->c2, &ty->p2, ev.rec.data, ev.rec.size, ev.rec.ts, rank);
				if (ty->kind == FK_SWITCH)
					last_sw = sr;
			}
		}
		if (last_sw && rg->buffer == 0) {
			struct rec_copy *c = &s->last_switch[ix];
			struct fmt_event ev;
			int n = 0, cap = 1, err;

			state_event(s, last_sw, rg->buffer, rg->cpu, &ev);
			free(c->payload);
			c->payload = NULL;
			if ((err = copy_rec(&c, &n, &cap, &ev)))
				return err;
		}
	}
	return 0;
}

static int run(struct slice *s)
{
	struct fmt_iter *it;
	struct fmt_iter_opts io = {
		.threads = s->o.threads ? s->o.threads : rpt_threads_default(),
		.no_peek = true,
	};
	const struct fmt_event *ev;
	int rc, err = 0, damaged = 0, ix;

	s->seek = seek_plan(s);
	if (s->seek) {
		io.ranges = s->rg;
		io.nranges = s->nrg;
		err = fmt_iter_new(s->r, &io, &it);
		if (err == -ESPIPE) {
			/* the file disagrees with its index: read it all */
			s->seek = false;
			io.ranges = NULL;
			io.nranges = 0;
		} else if (!err && (err = seek_before(s))) {
			fmt_iter_free(it);
			ft_error("cannot slice '%s': %s", s->in_path, strerror(-err));
			return err;
		}
	}
	if (!s->seek)
		err = fmt_iter_new(s->r, &io, &it);
	if (err)
		return ft_error("'%s': %s", s->in_path, fmt_reader_error(s->r)), -ECANCELED;
	while ((rc = fmt_iter_next(it, &ev)) != 0) {
		const struct slice_evtype *ty;
		int pid;
		bool in_window, selected;

		if (rc < 0) {
			/*
			 * apart from err, which the steps below reset: a slice
			 * of a damaged file is not written, and the exit says so
			 */
			ft_error("'%s': %s", s->in_path, fmt_reader_error(s->r));
			damaged = -ECANCELED;
			continue;	/* the other CPUs' damage is said too */
		}
		s->read++;
		ty = etype(s, ev);
		pid = event_pid(ev);
		if (ty && ty->f_tgid.offset >= 0)
			set_tgid(s, (int)fmt_field_u64(&ty->f_cpid, ev->rec.data, ev->rec.size),
				 (int)fmt_field_u64(&ty->f_tgid, ev->rec.data, ev->rec.size),
				 ev->rec.ts, rpt_stream_rank(ev->buffer, ev->rec.cpu));
		if (!s->started && (!s->o.has_t0 || ev->rec.ts >= s->o.t0_ns) &&
		    (err = window_starts(s)))
			break;
		if (!s->ended && s->o.has_t1 && ev->rec.ts > s->o.t1_ns) {
			window_ends(s);
			if (!s->open_at_end)
				break;	/* nothing after the window matters */
		}
		in_window = s->started && !s->ended;
		enc_index(s, ev->buffer, ev->rec.cpu, &ix);
		if (!s->started) {
			s->cpu_task[ix] = pid;
			if (ty && (ty->kind == FK_SWITCH || ty->kind == FK_WAKEUP)) {
				int rank = rpt_stream_rank(ev->buffer, ev->rec.cpu);

				learn(s, &ty->c1, &ty->p1, ev->rec.data, ev->rec.size, ev->rec.ts, rank);
				learn(s, &ty->c2, &ty->p2, ev->rec.data, ev->rec.size, ev->rec.ts, rank);
			}
			if (ty && ty->kind == FK_SWITCH && ev->buffer == 0) {
				struct rec_copy *c = &s->last_switch[ix];
				int n = 0, cap = 1;

				free(c->payload);
				c->payload = NULL;
				if ((err = copy_rec(&c, &n, &cap, ev)))
					break;
			}
		}
		if (ty && ty->kind >= FK_FG_ENTRY && ty->kind <= FK_KF_EXIT && pid >= 0 &&
		    (err = track_frames(s, ty, ev, pid)))
			break;
		if (s->ended && !s->open_at_end)
			break;
		if (!in_window)
			continue;
		selected = (!s->o.has_cpus || rpt_cpu_selected(&s->o, ev->rec.cpu)) &&
			   (!ty || ty->sel > 0) && (!s->nevents || ty) &&
			   (!(s->o.npids || s->o.ncomms) || task_wanted(s, pid));
		if (!selected) {
			/* a loss marker on a record left out moves to the next one kept */
			if (ev->rec.missed_events)
				s->carried[ix] = s->carried[ix] < 0 || ev->rec.missed_events < 0 ?
						 -1 : s->carried[ix] + ev->rec.missed_events;
			continue;
		}
		if ((err = keep_event(s, ev, ty, pid)))
			break;
	}
	fmt_iter_free(it);
	if (err && err != -ECANCELED)
		ft_error("cannot slice '%s': %s", s->in_path, strerror(-err));
	return err ? err : damaged;
}

/* ---- metadata -------------------------------------------------------------------- */

static bool skip_opt(void *arg, const struct fmt_option *o)
{
	(void)arg;
	/* a slice of a slice says where it came from anew; checksums are the writer's */
	return o->id == FMT_OPT_FT_SLICE || o->id == FMT_OPT_FT_CHECKSUMS ||
	       o->id == FMT_OPT_FT_DIGEST ||
	       rpt_slice_maps_option(o->id);	/* the kept processes' only, after the pass */
}

static int add_recs(FILE *f, const char *key, const struct rec_copy *v, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s=%d %d %llu ", key, v[i].buffer, v[i].cpu,
			(unsigned long long)v[i].raw_ts);
		for (uint32_t k = 0; k < v[i].len; k++)
			fprintf(f, "%02x", v[i].payload[k]);
		fputc('\n', f);
	}
	return 0;
}

static void keep_stack_addr(void *arg, uint64_t addr)
{
	rpt_ksyms_keep_addr(arg, addr);
}

/*
 * The kernel symbols of the kept records, the state records at the cuts
 * included, and of the stacks in a --bpf-object program's stack maps (kept
 * whole: callgraph --source bpf-stacks names their kernel frames).
 */
static int write_kallsyms(struct slice *s, struct fmt_writer *w)
{
	const struct rec_copy *v[2] = { s->pro, s->epi };
	int nv[2] = { s->npro, s->nepi }, err;
	bool swap = s->in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	char *text;
	size_t len;

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < nv[k]; i++) {
			const struct rec_copy *c = &v[k][i];

			if (c->len >= 2)
				rpt_ksyms_keep_record(s->ksyms,
						      fmt_reader_event(s->r,
								       (int)fmt_read_num(c->payload,
											 2, swap)),
						      c->payload, (int)c->len);
		}
	{
		struct rpt_bpfstk *bs = rpt_bpfstk_new(s->r);

		if (!bs)
			return -ENOMEM;
		rpt_bpfstk_each_addr(bs, keep_stack_addr, s->ksyms);
		rpt_bpfstk_free(bs);
	}
	text = rpt_ksyms_keep_text(s->ksyms, 0, &len, &s->ksyms_kept);
	if (!text)
		return -ENOMEM;
	s->ksyms_all = rpt_ksyms_keep_total(s->ksyms);
	err = fmt_writer_kallsyms(w, text, len);
	free(text);
	return err;
}

static int slice_option(struct slice *s, struct fmt_writer *w)
{
	const char *base = strrchr(s->in_path, '/') ? strrchr(s->in_path, '/') + 1 : s->in_path;
	struct fmt_digest dg;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err, nstreams = s->in->nbuffers * (s->maxcpu + 1);
	char t0[32], t1[32];

	if (!f)
		return -ENOMEM;
	fprintf(f, "slice_of=%s\n", base);
	if (s->in->trace_id)
		fprintf(f, "source_trace_id=%016llx\n", (unsigned long long)s->in->trace_id);
	if (fmt_reader_digest(s->r, &dg) > 0)
		fprintf(f, "source_digest=%08x\n", dg.crc);
	fprintf(f, "from=%s\nto=%s\n",
		s->o.has_t0 ? rpt_fmt_ts(t0, sizeof(t0), s->o.t0_ns) : "start",
		s->o.has_t1 ? rpt_fmt_ts(t1, sizeof(t1), s->o.t1_ns) : "end");
	fprintf(f, "filters=%s\nevents_kept=%llu\nloss_markers=%llu\n",
		s->filters ? s->filters : "", (unsigned long long)s->kept,
		(unsigned long long)s->losses);
	if (s->maps.procs_kept || s->maps.procs_dropped)
		fprintf(f, "maps_kept=%d\nmaps_dropped=%d\n"
			"buildids_dropped=%d\nsymtabs_dropped=%d\n",
			s->maps.procs_kept, s->maps.procs_dropped, s->maps.binaries_dropped,
			s->maps.symtabs_dropped);
	for (int i = 0; s->o.has_t0 && i < nstreams; i++)
		if (s->cpu_task[i] >= 0) {
			const char *comm =
				tep_data_comm_from_pid(fmt_reader_tep(s->r), s->cpu_task[i]);

			fprintf(f, "cpu_task=%d %d %d %s\n", i / (s->maxcpu + 1),
				i % (s->maxcpu + 1), s->cpu_task[i], comm ? comm : "<...>");
		}
	if (s->npro > 1)	/* qsort of NULL is undefined, even for 0 elements */
		qsort(s->pro, (size_t)s->npro, sizeof(*s->pro), cmp_rec);
	add_recs(f, "prologue", s->pro, s->npro);
	add_recs(f, "epilogue", s->epi, s->nepi);
	if (fclose(f) || len > UINT32_MAX - 1) {
		free(text);
		return -ENOMEM;
	}
	err = fmt_writer_option(w, FMT_OPT_FT_SLICE, text, (uint32_t)len + 1);
	free(text);
	return err;
}

static bool proc_kept(void *arg, int pid)
{
	struct slice *s = arg;

	return s->nprocs && bsearch(&pid, s->procs, (size_t)s->nprocs, sizeof(int), cmp_int);
}

/* The processes whose maps stay: each task that appears, and its process when a record named it. */
static int kept_procs(struct slice *s)
{
	int k = 0;

	s->procs = malloc(((size_t)s->npids * 2 + 1) * sizeof(*s->procs));
	if (!s->procs)
		return -ENOMEM;
	for (int i = 0; i < s->npids; i++) {
		const struct tgid_at *tg = rpt_map_find(&s->tgids, (uint64_t)s->pids[i]);

		s->procs[k++] = s->pids[i];
		if (tg && tg->tgid > 0 && tg->tgid != s->pids[i])
			s->procs[k++] = tg->tgid;
	}
	if (k > 1)
		qsort(s->procs, (size_t)k, sizeof(int), cmp_int);
	s->nprocs = k;
	return 0;
}

static int write_slice(struct slice *s)
{
	struct fmt_writer_opts wo;
	struct rpt_meta_copy mc = { .skip = skip_opt };
	struct fmt_writer *w = NULL;
	const char *what = "";
	char *cmdl = NULL;
	int err, nstreams = s->in->nbuffers * (s->maxcpu + 1), i;

	/* the writer's own temporary file beside OUT, renamed over it at close */
	rpt_writer_opts_like(s->in, &wo);
	err = rpt_writer_open(s->out_path, &wo, &w);
	if (err)
		return ft_error("cannot create '%s': %s", s->out_path, strerror(-err)), -ECANCELED;
	s->enc = calloc((size_t)nstreams, sizeof(*s->enc));
	s->wb = calloc((size_t)s->in->nbuffers + 1, sizeof(*s->wb));
	if (!s->enc || !s->wb) {
		err = -ENOMEM;
		goto fail;
	}
	/* the cmdlines and the kernel symbols needed are known only after the pass */
	mc.no_cmdlines = true;
	if (!s->keep_kallsyms) {
		mc.no_kallsyms = true;
		s->ksyms = rpt_ksyms_keep_new(s->in->kallsyms.data, s->in->kallsyms.len);
		if (!s->ksyms) {
			err = -ENOMEM;
			goto fail;
		}
	}
	err = rpt_copy_meta(s->r, w, &mc, &what);
	if (err)
		goto fail;
	for (i = 0; i < s->in->nbuffers && !err; i++)
		err = fmt_wbuf_new(w, s->in->buffers[i].name, s->in->buffers[i].clock, &s->wb[i]);
	what = "buffers";
	for (i = 0; i < nstreams && !err; i++) {
		s->enc[i].wb = s->wb[i / (s->maxcpu + 1)];
		s->enc[i].cpu = i % (s->maxcpu + 1);
	}
	if (err)
		goto fail;
	err = run(s);
	if (!err && !s->kept) {
		/* as grep does: nothing selected is a failure, said once, and no file */
		if (s->read && s->filters)
			ft_error("'%s': no event passes the filters (%s); '%s' not written",
				 s->in_path, s->filters, s->out_path);
		else
			ft_error("'%s' holds no event; '%s' not written", s->in_path,
				 s->out_path);
		err = -ECANCELED;
	}
	if (err) {
		rpt_writer_abort(w);
		return err;
	}
	for (i = 0; i < nstreams && !err; i++)
		err = rpt_enc_flush(&s->enc[i]);
	if (err)
		goto fail;
	if (s->npids)
		qsort(s->pids, (size_t)s->npids, sizeof(int), cmp_int);
	cmdl = rpt_cmdlines_filter(s->in->cmdlines.data ? s->in->cmdlines.data : "",
				   s->in->cmdlines.len, pid_kept, s, &mc.cmdlines_len);
	if (!cmdl) {
		err = -ENOMEM;
		goto fail;
	}
	/* the names in the order a full read meets them (it does already) */
	if (s->seek && s->nlearned > 1)
		qsort(s->learned, (size_t)s->nlearned, sizeof(*s->learned), cmp_learned);
	for (i = 0; i < s->nlearned; i++) {
		char line[64], *nc;
		int n;

		if (!pid_kept(s, s->learned[i].pid))
			continue;
		n = snprintf(line, sizeof(line), "%d %s\n", s->learned[i].pid, s->learned[i].comm);
		nc = realloc(cmdl, mc.cmdlines_len + (size_t)n + 1);
		if (!nc) {
			err = -ENOMEM;
			goto fail;
		}
		cmdl = nc;
		memcpy(cmdl + mc.cmdlines_len, line, (size_t)n + 1);
		mc.cmdlines_len += (size_t)n;
	}
	what = "cmdlines";
	err = fmt_writer_cmdlines(w, cmdl, mc.cmdlines_len);
	if (!err && s->ksyms) {
		what = "kallsyms";
		err = write_kallsyms(s, w);
	}
	if (!err) {
		what = "process maps";
		err = kept_procs(s);
		err = err ? err : rpt_slice_maps(s->r, w, proc_kept, s, &s->maps);
	}
	if (!err) {
		what = "slice metadata";
		err = slice_option(s, w);
	}
	if (!err && !mc.have_cpucount)
		err = fmt_writer_cpucount(w, (uint32_t)(s->in->cpus > s->maxcpu + 1 ?
							s->in->cpus : s->maxcpu + 1));
	if (err)
		goto fail;
	free(cmdl);
	return rpt_out_finish(w, NULL, s->out_path);
fail:
	free(cmdl);
	return rpt_out_fail(w, NULL, s->out_path, what, err);
}

static void print_summary(const struct slice *s)
{
	char t0[32], t1[32];

	if (s->o.json) {
		struct rpt_json j;

		if (rpt_json_init(&j, stdout, 0))
			return;
		rpt_json_obj(&j);
		rpt_json_kstr(&j, "input", s->in_path);
		rpt_json_kstr(&j, "output", s->out_path);
		rpt_json_ku64(&j, "events_read", s->read);
		rpt_json_ku64(&j, "events_kept", s->kept);
		rpt_json_ku64(&j, "loss_markers", s->losses);
		rpt_json_ki64(&j, "tasks", s->npids);
		rpt_json_ki64(&j, "open_frames_at_start", s->npro);
		rpt_json_ki64(&j, "exits_after_end", s->nepi);
		if (s->ksyms) {
			rpt_json_ku64(&j, "kallsyms_kept", s->ksyms_kept);
			rpt_json_ku64(&j, "kallsyms_in", s->ksyms_all);
		}
		rpt_json_obj_end(&j);
		RPT_JSON_LIT(&j, "\n");
		rpt_json_done(&j);	/* a failed write stays on stdout (ft_finish_stdout) */
		return;
	}
	ft_info("'%s': %llu of %llu events read kept (%s to %s), %d tasks, %llu loss markers",
		s->out_path, (unsigned long long)s->kept, (unsigned long long)s->read,
		s->o.has_t0 ? rpt_fmt_ts(t0, sizeof(t0), s->o.t0_ns) : "start",
		s->o.has_t1 ? rpt_fmt_ts(t1, sizeof(t1), s->o.t1_ns) : "end", s->npids,
		(unsigned long long)s->losses);
}

static int add_filter_text(struct slice *s, const char *a, const char *b)
{
	char *n;

	if (asprintf(&n, "%s%s%s%s%s", s->filters ? s->filters : "", s->filters ? " " : "", a,
		     b ? " " : "", b ? b : "") < 0)
		return -ENOMEM;
	free(s->filters);
	s->filters = n;
	return 0;
}

static const struct ft_opt slice_opts[] = {
	FT_OPT_HELP_ENTRY, { NULL, 'v', false, FT_OPT_ID_VERBOSE }, { "output", 'o', true, 'o' },
	{ "event", 'e', true, 'e' }, { "keep-kallsyms", 0, false, 'K' }, { 0 },
};

/* -o and -e (the slice's own): 0, or the exit code after the message */
static int own_option(struct slice *s, const struct ft_opt *o, const char *v)
{
	char **ne;

	switch (o->id) {
	case 'o':
		s->out_path = v;
		return 0;
	case 'K':
		s->keep_kallsyms = true;
		return 0;
	}
	if (!*v)
		return ft_usage_error("option '--event' needs an event name");
	ne = realloc(s->events, (size_t)(s->nevents + 1) * sizeof(*ne));
	if (!ne)
		return ft_error("out of memory");
	s->events = ne;
	s->events[s->nevents++] = (char *)v;	/* an argv string */
	return add_filter_text(s, "-e", v) ? ft_error("out of memory") : 0;
}

static int parse_args(struct slice *s, int argc, char **argv)
{
	static const char *const help[] = { usage_text, rpt_opts_help_filters, NULL };
	struct ft_optparse p;
	int id, rc = 0;
	char name[40];

	ft_opt_init(&p, argc, argv, slice_opts);
	ft_opt_add_table(&p, rpt_filter_opts);
	ft_opt_add_table(&p, rpt_json_opts);
	while (!rc && (id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR) {
			rc = EXIT_USAGE;	/* the parser said why */
		} else if (id == FT_OPT_OPERAND) {
			if (s->in_path)
				rc = ft_usage_error("more than one input file given");
			s->in_path = p.value;
		} else if (p.which == 0) {
			rc = own_option(s, p.opt, p.value);
		} else {
			rc = rpt_opts_option(&s->o, id, p.value);
			/* the filters, as the slice's metadata names them */
			snprintf(name, sizeof(name), "--%s", p.opt->name);
			if (!rc && p.which == 1 && add_filter_text(s, name, p.value))
				rc = ft_error("out of memory");
		}
	}
	if (rc)
		return rc;
	if (!s->in_path)
		return ft_usage_error("no input file given");
	if (!s->out_path || !*s->out_path)
		return ft_usage_error("no output file given (-o OUT)");
	{
		const char *why = NULL;

		if (fmt_outfile_check(s->out_path, &why) && why)
			return ft_usage_error("cannot write '%s': %s", s->out_path, why);
	}
	return 0;
}

static void slice_release(struct slice *s)
{
	int nstreams = s->in ? s->in->nbuffers * (s->maxcpu + 1) : 0;

	for (int i = 0; i < s->ntasks; i++) {
		for (int k = 0; k < s->tasks[i].calls.n; k++)
			free(held(&s->tasks[i], k)->payload);
		rpt_calls_release(&s->tasks[i].calls);
	}
	free(s->tasks);
	for (int i = 0; i < s->npro; i++)
		free(s->pro[i].payload);
	for (int i = 0; i < s->nepi; i++)
		free(s->epi[i].payload);
	free(s->pro);
	free(s->epi);
	for (int i = 0; s->last_switch && i < nstreams; i++)
		free(s->last_switch[i].payload);
	for (int i = 0; s->enc && i < nstreams; i++)
		rpt_enc_release(&s->enc[i]);
	free(s->last_switch);
	free(s->cpu_task);
	free(s->carried);
	free(s->enc);
	free(s->wb);
	free(s->types);
	free(s->pids);
	free(s->procs);
	rpt_map_release(&s->tgids);
	rpt_map_release(&s->learned_ix);
	free(s->rg);
	free(s->cmdl_pids);
	free(s->learned);
	free(s->events);
	free(s->filters);
	rpt_ksyms_keep_free(s->ksyms);
	rpt_opts_release(&s->o);
	fmt_reader_close(s->r);
}

int cmd_slice(int argc, char **argv)
{
	struct slice s = { 0 };
	struct stat si, so;
	char *open_err = NULL;
	int rc, err, nstreams;

	rpt_map_init(&s.tgids, sizeof(struct tgid_at));
	rpt_map_init(&s.learned_ix, sizeof(int));
	if ((rc = parse_args(&s, argc, argv)))
		goto out;
	if (stat(s.in_path, &si) == 0 && stat(s.out_path, &so) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino) {
		rc = ft_usage_error("the output '%s' is the input", s.out_path);
		goto out;
	}
	s.o.path = s.in_path;
	err = fmt_reader_open(s.in_path, FMT_OPEN_LAZY_FORMATS, &s.r, &open_err);
	if (err) {
		rc = ft_error("%s", open_err ? open_err : strerror(-err));
		free(open_err);
		goto out;
	}
	s.in = fmt_reader_info(s.r);
	if ((rc = rpt_opts_resolve(&s.o, s.r)))
		goto out;
	if (s.in->latency.present) {
		rc = ft_error("cannot slice '%s': a latency-format (text) file has no "
			      "events to cut", s.in_path);
		goto out;
	}
	for (int b = 0; b < s.in->nbuffers; b++) {
		if (s.in->buffers[b].page_size && s.in->buffers[b].page_size != s.in->page_size) {
			rc = ft_error("cannot slice '%s': buffer '%s' has %u-byte pages, "
				      "the file %u", s.in_path, s.in->buffers[b].name,
				      s.in->buffers[b].page_size, s.in->page_size);
			goto out;
		}
		for (int c = 0; c < s.in->buffers[b].ncpus; c++)
			if (s.in->buffers[b].cpus[c].cpu > s.maxcpu)
				s.maxcpu = s.in->buffers[b].cpus[c].cpu;
	}
	nstreams = s.in->nbuffers * (s.maxcpu + 1);
	s.types = calloc(65536, sizeof(*s.types));
	s.carried = calloc((size_t)nstreams + 1, sizeof(*s.carried));
	s.last_switch = calloc((size_t)nstreams + 1, sizeof(*s.last_switch));
	s.cpu_task = malloc(((size_t)nstreams + 1) * sizeof(*s.cpu_task));
	if (!s.types || !s.carried || !s.last_switch || !s.cpu_task) {
		rc = ft_error("out of memory");
		goto out;
	}
	for (int i = 0; i < nstreams; i++)
		s.cpu_task[i] = -1;
	load_cmdline_pids(&s);
	/*
	 * --from/--to are times as report prints them, rounded to the
	 * microsecond: keep every event printed inside, as the user sees it.
	 */
	if (s.in->clock_in_usecs) {
		if (s.o.has_t0)
			s.o.t0_ns = s.o.t0_ns >= 500 ? s.o.t0_ns - 500 : 0;
		if (s.o.has_t1)
			s.o.t1_ns = s.o.t1_ns + 499;
	}
	err = write_slice(&s);
	rc = err ? EXIT_FAIL : EXIT_OK;
	if (!err)
		print_summary(&s);
out:
	slice_release(&s);
	return ft_finish_stdout(rc);
}
