// SPDX-License-Identifier: GPL-2.0-only
/*
 * SQLite virtual tables over trace files (see sql.h).
 *
 * Nothing is imported: every table is a cursor over the reader's
 * timestamp-ordered events, so memory follows the query (a sort, a GROUP
 * BY) and not the file.  ftrace_event and args are the events themselves;
 * the other tables are small state machines fed by one pass (a CPU's last
 * switch for sched_slice, a thread's open calls for slice) that emit rows
 * as intervals close.
 *
 * Ids.  An event's id (and arg_set_id) is its place in the file: file
 * index, buffer, CPU and the record's offset in that CPU's page stream.
 * The same event has the same id whatever the query reads, and an id leads
 * back to its event by reading one CPU stream forward (args, extract_arg,
 * ftrace_event.id = X), which a join in time order does once.  utid is the
 * thread id and upid the process id: stable across queries, time windows,
 * files and the ClickHouse side, at the price of one thread for a reused
 * tid (Perfetto numbers them by appearance instead).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flytrap.h"
#include "format/ftmeta.h"
#include "report/core/calls.h"
#include "report/core/kinds.h"
#include "report/core/replay.h"
#include "report/sql/sql.h"
#include "report/syms/symbols.h"
#include "report/syms/sysnames.h"

/* ---- schema -------------------------------------------------------------- */

#define C(n, t) { n, t, false }
#define N(n, t) { n, t, true }
static const struct sq_col c_ftrace_event[] = {
	C("id", 'i'), C("ts", 'i'), C("name", 't'), C("cpu", 'i'), C("utid", 'i'),
	C("arg_set_id", 'i'), N("common_flags", 'i'), C("ucpu", 'i'), C("tid", 'i'),
	C("system", 't'), C("buffer", 't'),
};
static const struct sq_col c_args[] = {
	C("arg_set_id", 'i'), C("flat_key", 't'), C("key", 't'), N("int_value", 'i'),
	N("string_value", 't'), N("real_value", 'r'), C("value_type", 't'),
};
static const struct sq_col c_thread[] = {
	C("utid", 'i'), C("id", 'i'), C("tid", 'i'), N("name", 't'), N("start_ts", 'i'),
	N("end_ts", 'i'), N("upid", 'i'), N("is_main_thread", 'i'),
};
static const struct sq_col c_process[] = {
	C("upid", 'i'), C("id", 'i'), C("pid", 'i'), N("name", 't'), N("start_ts", 'i'),
	N("end_ts", 'i'), N("parent_upid", 'i'), N("uid", 'i'), N("cmdline", 't'),
};
static const struct sq_col c_cpu[] = {
	C("id", 'i'), C("cpu", 'i'), C("ucpu", 'i'), C("cluster_id", 'i'), N("processor", 't'),
};
static const struct sq_col c_sched_slice[] = {
	C("id", 'i'), C("ts", 'i'), C("dur", 'i'), C("cpu", 'i'), C("utid", 'i'),
	N("end_state", 't'), C("priority", 'i'), C("ucpu", 'i'),
};
static const struct sq_col c_thread_state[] = {
	C("id", 'i'), C("ts", 'i'), C("dur", 'i'), N("cpu", 'i'), C("utid", 'i'), C("state", 't'),
	N("io_wait", 'i'), N("blocked_function", 't'), N("waker_utid", 'i'), N("ucpu", 'i'),
};
static const struct sq_col c_slice[] = {
	C("id", 'i'), C("ts", 'i'), C("dur", 'i'), C("track_id", 'i'), C("category", 't'),
	C("name", 't'), C("depth", 'i'), N("parent_id", 'i'), N("arg_set_id", 'i'), C("utid", 'i'),
	C("cpu", 'i'), N("ret", 'i'),
};
static const struct sq_col c_counter[] = {
	C("id", 'i'), C("ts", 'i'), C("track_id", 'i'), C("value", 'r'), N("arg_set_id", 'i'),
	C("name", 't'), C("cpu", 'i'),
};
static const struct sq_col c_drops[] = {
	C("ts", 'i'), N("window_start", 'i'), C("buffer", 't'), C("cpu", 'i'), C("source", 't'),
	N("count", 'i'),
};
static const struct sq_col c_meta[] = {
	C("file", 't'), C("key", 't'), C("value", 't'),
};
static const struct sq_col c_bpf_syscall[] = {
	C("id", 'i'), C("ts", 'i'), C("cpu", 'i'), C("utid", 'i'), C("tgid", 'i'), C("nr", 'i'),
	C("name", 't'), C("start", 'i'), C("dur", 'i'), C("ret", 'i'),
};
static const struct sq_col c_bpf_syscall_hist[] = {
	C("id", 'i'), C("ts", 'i'), C("utid", 'i'), C("tgid", 'i'), C("nr", 'i'), C("name", 't'),
	C("count", 'i'), C("total_ns", 'i'), C("max_ns", 'i'), C("slots", 't'),
};
static const struct sq_col c_bpf_offcpu[] = {
	C("id", 'i'), C("ts", 'i'), C("cpu", 'i'), C("utid", 'i'), C("tgid", 'i'), C("state", 'i'),
	C("start", 'i'), C("dur", 'i'), C("waker_utid", 'i'), C("waker_tgid", 'i'), C("comm", 't'),
	C("waker_comm", 't'), C("kstack", 't'), C("ustack", 't'),
};
static const struct sq_col c_bpf_profile[] = {
	C("id", 'i'), C("ts", 'i'), C("cpu", 'i'), C("utid", 'i'), C("tgid", 'i'), C("comm", 't'),
	C("kstack", 't'), C("ustack", 't'),
};
static const struct sq_col c_bpf_func[] = {
	C("id", 'i'), C("ts", 'i'), C("cpu", 'i'), C("utid", 'i'), C("tgid", 'i'), C("kind", 't'),
	C("func", 'i'), C("name", 't'), C("depth", 'i'), C("flags", 'i'), C("start", 'i'),
	C("dur", 'i'), C("ret", 'i'),
};
/* record --bpf-object's map snapshots: key and value as JSON, integers typed where they are */
static const struct sq_col c_bpf_map[] = {
	C("ts", 'i'), C("map", 't'), C("key", 't'), C("value", 't'), N("key_int", 'i'),
	N("value_int", 'i'), C("why", 't'), C("file", 't'),
};

#undef C
#undef N

enum tkind {
	T_EVENT, T_ARGS, T_THREAD, T_PROCESS, T_CPU, T_SCHED, T_TSTATE, T_SLICE, T_COUNTER, T_DROPS,
	T_META, T_BPF_SYSCALL, T_BPF_SYSHIST, T_BPF_OFFCPU, T_BPF_PROFILE, T_BPF_FUNC,
	T_BPF_MAP,
};

#define T(n, c, o) { n, c, (int)(sizeof(c) / sizeof(c[0])), o }
/* in enum tkind order */
const struct sq_table sq_tables[] = {
	T("ftrace_event", c_ftrace_event, "ts, cpu"),
	T("args", c_args, "arg_set_id"),
	T("thread", c_thread, "utid"),
	T("process", c_process, "upid"),
	T("cpu", c_cpu, "cpu"),
	T("sched_slice", c_sched_slice, "ts, cpu"),
	T("thread_state", c_thread_state, "ts, utid"),
	T("slice", c_slice, "ts, utid"),
	T("counter", c_counter, "ts, track_id"),
	T("drops", c_drops, "ts, cpu"),
	T("meta", c_meta, "key"),
	T("bpf_syscall", c_bpf_syscall, "ts, utid"),
	T("bpf_syscall_hist", c_bpf_syscall_hist, "utid, nr"),
	T("bpf_offcpu", c_bpf_offcpu, "ts, utid"),
	T("bpf_profile", c_bpf_profile, "ts, utid"),
	T("bpf_func", c_bpf_func, "ts, utid"),
	T("bpf_map", c_bpf_map, "ts, map"),
};
#undef T
const int sq_ntables = (int)(sizeof(sq_tables) / sizeof(sq_tables[0]));

/* ---- files and event types ------------------------------------------------- */

enum ekind {
	K_OTHER = 0, K_SWITCH, K_WAKEUP, K_FORK, K_EXIT, K_RENAME, K_FG_ENTRY, K_FG_EXIT,
	K_UP_ENTRY, K_UP_RET, K_UF_ENTRY, K_UF_EXIT, K_KF_ENTRY, K_KF_EXIT, K_SYS_ENTER, K_SYS_EXIT,
	K_BPF_SYSCALL, K_BPF_SYSHIST, K_BPF_OFFCPU, K_BPF_PROFILE, K_CPUFREQ, K_CPUIDLE,
};

struct afield {			/* one decoded field of an event type, for args */
	const char *name;
	struct fmt_field f;
	unsigned long flags;
	int elemsize, count;	/* fixed arrays: element size and count */
	bool text;		/* char array / string */
};

/* One event id as the tables decode it: its kind and fields, resolved once. */
struct sq_evtype {
	bool done;
	int kind;
	/* the one table's view of the event (report/core/kinds.h): records decode through it */
	struct rpt_kind_info ki;
	struct fmt_field fpid, fflags, ftgid;
	const char *sysname;	/* syscalls:sys_enter_NAME */
	bool named_nr;		/* that event has __syscall_nr */
	char *probe;		/* uprobe function name */
	int nargs;		/* -1: not resolved yet */
	struct afield *args;
};

struct sfile {
	char *path;
	int index;		/* after ordering */
	struct fmt_reader *r;
	const struct fmt_info *info;
	struct tep_handle *tep;
	uint64_t first_ts;
	enum rpt_sys_abi abi;
	struct rpt_types types;
	struct rpt_syms *syms;
	char **fnames[2];	/* BPF ufunc / kfunc names by index */
	struct rpt_map unnamed;	/* kernel address without a symbol -> char[24] "0x..." */
	int nfnames[2];
};

struct ttask {			/* thread table state */
	char comm[24];
	int tgid, ppid;
	bool has_start, has_end;
	uint64_t start_ts, end_ts;
};

struct sq_engine {
	sqlite3 *db;
	int n;
	struct sfile *f;
	bool damaged;
	uint64_t bytes;
	char host[256];
	bool threads_done;
	struct rpt_map threads;	/* tid -> struct ttask */
	struct seeker *xseek;	/* for extract_arg() */
};

sqlite3 *sq_db(struct sq_engine *en) { return en->db; }
bool sq_damaged(const struct sq_engine *en) { return en->damaged; }
uint64_t sq_trace_id(const struct sq_engine *en) { return en->n ? en->f[0].info->trace_id : 0; }
const char *sq_host(const struct sq_engine *en) { return en->host; }
uint64_t sq_bytes_read(const struct sq_engine *en) { return en->bytes; }

uint64_t sq_data_bytes(const struct sq_engine *en)
{
	uint64_t n = 0;

	for (int i = 0; i < en->n; i++)
		n += fmt_reader_data_bytes(en->f[i].r);
	return n;
}

/* What sql does with each kind of report/core/kinds.h (0: K_OTHER). */
static const unsigned char ekind_of[RPT_K_NR] = {
	[RPT_K_SCHED_SWITCH] = K_SWITCH,
	[RPT_K_SCHED_WAKEUP] = K_WAKEUP,
	[RPT_K_SCHED_WAKING] = K_WAKEUP,
	[RPT_K_PROCESS_FORK] = K_FORK,
	[RPT_K_PROCESS_EXIT] = K_EXIT,
	[RPT_K_TASK_RENAME] = K_RENAME,
	[RPT_K_FG_ENTRY] = K_FG_ENTRY,
	[RPT_K_FG_EXIT] = K_FG_EXIT,
	[RPT_K_RAW_SYS_ENTER] = K_SYS_ENTER,
	[RPT_K_SYS_ENTER] = K_SYS_ENTER,
	[RPT_K_RAW_SYS_EXIT] = K_SYS_EXIT,
	[RPT_K_SYS_EXIT] = K_SYS_EXIT,
	[RPT_K_BPF_SYSCALL] = K_BPF_SYSCALL,
	[RPT_K_BPF_SYSHIST] = K_BPF_SYSHIST,
	[RPT_K_BPF_OFFCPU] = K_BPF_OFFCPU,
	[RPT_K_BPF_PROFILE] = K_BPF_PROFILE,
	[RPT_K_BPF_UFUNC_ENTRY] = K_UF_ENTRY,
	[RPT_K_BPF_UFUNC_EXIT] = K_UF_EXIT,
	[RPT_K_BPF_KFUNC_ENTRY] = K_KF_ENTRY,
	[RPT_K_BPF_KFUNC_EXIT] = K_KF_EXIT,
	[RPT_K_CPU_FREQ] = K_CPUFREQ,
	[RPT_K_CPU_IDLE] = K_CPUIDLE,
	[RPT_K_PROBE_ENTRY] = K_UP_ENTRY,
	[RPT_K_PROBE_RET] = K_UP_RET,
};

/*
 * An event id's kind from the one table.  Uprobes pair as in callgraph: a
 * uretprobe's __probe_func (f[0]) is its entry's __probe_ip (f[0]),
 * whatever the names; the slice is named after the entry event, for a
 * return the name rpt_probe_entry_name() gives (NAME_ret, NAME__return,
 * r_NAME), used when it pairs with no address.
 */
static void classify(struct sq_evtype *t, const struct tep_event *e)
{
	struct rpt_kind_info *ki = &t->ki;
	char name[256];

	rpt_kind_resolve(e, ki);
	t->kind = ekind_of[ki->kind] ? ekind_of[ki->kind] : K_OTHER;
	t->fpid = ki->common_pid;
	t->ftgid = ki->tgid;
	t->fflags.offset = -1;
	if (e)
		fmt_field_resolve(e, "common_flags", &t->fflags);
	if (ki->kind == RPT_K_SYS_ENTER || ki->kind == RPT_K_SYS_EXIT) {
		t->sysname = ki->arg;
		t->named_nr = ki->f[RPT_F_SYS_ID].offset >= 0;
	} else if (ki->kind == RPT_K_PROBE_ENTRY) {
		t->probe = strdup(ki->arg);
	} else if (ki->kind == RPT_K_PROBE_RET) {
		t->probe = strdup(rpt_probe_entry_name(ki->arg, name, sizeof(name)));
	}
	if (rpt_kind_is_probe(ki->kind) && !t->probe)
		t->kind = K_OTHER;
}

/* The record of ev as the one table decodes it (what sql reads of every kind it knows). */
static void decode(const struct sq_evtype *t, const struct fmt_event *ev, struct rpt_rec *r)
{
	rpt_rec_decode(&t->ki, ev->rec.data, (int)ev->rec.size, r);
}

/* whether the event type has field slot k (report/core/kinds.h's RPT_F_*) of its kind */
static bool has_field(const struct sq_evtype *t, int k)
{
	return t->ki.f[k].offset >= 0;
}

static struct sq_evtype *etype_of(struct sfile *f, const struct fmt_event *ev)
{
	struct sq_evtype *t = rpt_types_get(&f->types, ev->type);

	if (!t)
		return NULL;
	if (!t->done) {
		t->done = true;
		t->nargs = -1;
		classify(t, ev->event);
	}
	return t;
}

static int64_t fv(const struct fmt_field *f, const struct fmt_event *ev)
{
	return (int64_t)fmt_field_u64(f, ev->rec.data, ev->rec.size);
}

static bool fhas(const struct fmt_field *f)
{
	return f->offset >= 0;
}

static int ev_pid(const struct sq_evtype *t, const struct fmt_event *ev)
{
	return fhas(&t->fpid) ? (int)fv(&t->fpid, ev) : -1;
}

/* n bytes of text at p (up to a NUL), made valid UTF-8 (other bytes as '?') */
static char *utf8_text(const unsigned char *p, int n, char *buf, size_t len)
{
	size_t i = 0, o = 0;

	buf[0] = 0;
	if (!p || n <= 0)
		return buf;
	while (i < (size_t)n && p[i] && o + 4 < len) {
		size_t l = ft_utf8_len(p + i, (size_t)n - i, NULL);

		if (l == 0 || (l == 1 && p[i] < 0x20)) {
			buf[o++] = '?';
			i++;
			continue;
		}
		memcpy(buf + o, p + i, l);
		o += l;
		i += l;
	}
	buf[o] = 0;
	return buf;
}

/* a fixed char array or __data_loc string field, as utf8_text() */
static char *fstr(const struct fmt_field *f, const struct fmt_event *ev, char *buf, size_t len)
{
	int n = 0;
	const unsigned char *p = fmt_field_ptr(f, ev->rec.data, ev->rec.size, &n);

	return utf8_text(p, n, buf, len);
}

/* a decoded record's string, as utf8_text() */
static char *rstr(struct rpt_str s, char *buf, size_t len)
{
	return utf8_text((const unsigned char *)s.s, s.len, buf, len);
}

/* BPF ufunc/kfunc names from the META lines "bpf_ufunc=IDX BINARY NAME ..." */
static int load_fnames(struct sfile *f)
{
	const struct fmt_meta *m = fmt_reader_meta(f->r);

	if (!m)
		return -ENOMEM;
	for (size_t n = 0; n < m->all.n; n++) {
		const struct fmt_kv *kv = &m->all.kv[n];
		int k = !kv->val ? -1 : !strcmp(kv->key, FMT_META_BPF_UFUNC) ? 0
			: !strcmp(kv->key, FMT_META_BPF_KFUNC) ? 1 : -1;
		char bin[512], name[256];
		unsigned idx;

		if (k < 0 || !*kv->val || strlen(kv->line) >= 1024 ||
		    sscanf(kv->val, "%u %511s %255s", &idx, bin, name) != 3 || idx >= 65536)
			continue;
		if ((int)idx >= f->nfnames[k]) {
			char **nn = realloc(f->fnames[k], (idx + 1) * sizeof(*nn));

			if (!nn)
				return -ENOMEM;
			memset(nn + f->nfnames[k], 0,
			       (idx + 1 - (size_t)f->nfnames[k]) * sizeof(*nn));
			f->fnames[k] = nn;
			f->nfnames[k] = (int)idx + 1;
		}
		free(f->fnames[k][idx]);
		f->fnames[k][idx] = strdup(name);
	}
	return 0;
}

/* The recording host's name (META hostname=) into out, left as it was when absent or too long */
static void meta_host(const struct sfile *f, char *out, size_t len)
{
	const struct fmt_meta *m = fmt_reader_meta(f->r);

	if (m && m->hostname && *m->hostname && strlen(m->hostname) < len)
		memcpy(out, m->hostname, strlen(m->hostname) + 1);
}

static const char *fname_of(const struct sfile *f, int k, int64_t idx, char *buf, size_t len)
{
	if (idx >= 0 && idx < f->nfnames[k] && f->fnames[k][idx])
		return f->fnames[k][idx];
	snprintf(buf, len, "%s#%" PRId64, k ? "kfunc" : "ufunc", idx);
	return buf;
}

/* the same, as a string that lives as long as the file (call frames keep it) */
static const char *fname_keep(struct sfile *f, int k, int64_t idx)
{
	char buf[32];

	if (idx < 0 || idx >= 65536)
		return k ? "kfunc#?" : "ufunc#?";
	if (idx >= f->nfnames[k]) {
		char **nn = realloc(f->fnames[k], (size_t)(idx + 1) * sizeof(*nn));

		if (!nn)
			return "?";
		memset(nn + f->nfnames[k], 0, (size_t)(idx + 1 - f->nfnames[k]) * sizeof(*nn));
		f->fnames[k] = nn;
		f->nfnames[k] = (int)idx + 1;
	}
	if (!f->fnames[k][idx]) {
		snprintf(buf, sizeof(buf), "%s#%" PRId64, k ? "kfunc" : "ufunc", idx);
		f->fnames[k][idx] = strdup(buf);
	}
	return f->fnames[k][idx] ? f->fnames[k][idx] : "?";
}

static const char *ksym(struct sfile *f, uint64_t addr, char *buf, size_t len)
{
	const char *nm = f->syms ? rpt_syms_kernel(f->syms, addr, NULL) : NULL;

	if (nm)
		return nm;
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

static const char *sys_name(const struct sfile *f, long nr, const char *named, char *buf,
			    size_t len)
{
	const char *nm = named ? named : nr >= 0 ? rpt_syscall_name(f->abi, nr) : NULL;

	if (nm)
		return nm;
	snprintf(buf, len, "syscall_%ld", nr);
	return buf;
}

/* ---- ids ------------------------------------------------------------------------ */

#define ID_OFF_BITS 40
static int64_t ev_id(int file, const struct fmt_event *ev)
{
	return (int64_t)((uint64_t)file << 54 | (uint64_t)(ev->buffer & 63) << 48 |
			 (uint64_t)(ev->rec.cpu & 255) << ID_OFF_BITS |
			 ((uint64_t)ev->rec.offset & ((1ULL << ID_OFF_BITS) - 1)));
}

/* ---- scanning ---------------------------------------------------------------------- */

struct scan {
	struct sq_engine *en;
	int fi;
	struct fmt_iter *it;
	struct fmt_iter_opts opts;
	uint64_t lo, hi;
	const struct fmt_event *ev;
	int errors;
};

static void scan_init(struct scan *s, struct sq_engine *en)
{
	memset(s, 0, sizeof(*s));
	s->en = en;
	s->hi = UINT64_MAX;
}

static void scan_release(struct scan *s)
{
	if (s->it)
		fmt_iter_free(s->it);
	s->it = NULL;
}

/* 1: s->ev is the next event in [lo, hi] of the selected CPUs, 0: the end */
static int scan_next(struct scan *s)
{
	struct sq_engine *en = s->en;
	const struct fmt_event *ev;
	int rc;

	for (;;) {
		if (!s->it) {
			if (s->fi >= en->n || en->f[s->fi].first_ts > s->hi)
				return 0;
			/* the time index: start where lo starts, not at the file's start */
			s->opts.seek = s->lo > 0;
			s->opts.seek_ts = s->lo;
			if (fmt_iter_new(en->f[s->fi].r, &s->opts, &s->it) < 0) {
				en->damaged = true;
				s->it = NULL;
				s->fi++;
				continue;
			}
		}
		rc = fmt_iter_next(s->it, &ev);
		if (rc < 0) {
			en->damaged = true;
			/* a stream that keeps failing: give the file up */
			if (++s->errors > 4096) {
				scan_release(s);
				s->fi++;
			}
			continue;
		}
		if (rc == 0 || ev->rec.ts > s->hi) {	/* time order: nothing later is in range */
			scan_release(s);
			s->fi++;
			continue;
		}
		if (ev->rec.ts < s->lo)
			continue;	/* not decoded: no field, name or args touched */
		en->bytes += (uint64_t)ev->rec.size;
		s->ev = ev;
		return 1;
	}
}

/*
 * Events by id: one iterator per (file, buffer, CPU) stream, moved
 * forward; a request behind it starts that stream again.
 */
#define NSEEK 8
struct seekslot {
	bool used;
	int fi, buf, cpu;
	struct fmt_iter *it;
	const struct fmt_event *ev;	/* last event read from it */
	unsigned age;
};
struct seeker {
	struct seekslot s[NSEEK];
	unsigned clock;
};

static void seeker_release(struct seeker *k)
{
	int i;

	if (!k)
		return;
	for (i = 0; i < NSEEK; i++)
		if (k->s[i].it)
			fmt_iter_free(k->s[i].it);
	memset(k, 0, sizeof(*k));
}

static const struct fmt_event *seek_id(struct sq_engine *en, struct seeker *k, int64_t id)
{
	uint64_t u = (uint64_t)id, off = u & ((1ULL << ID_OFF_BITS) - 1);
	int fi = (int)(u >> 54), buf = (int)(u >> 48 & 63), cpu = (int)(u >> ID_OFF_BITS & 255);
	struct seekslot *sl = NULL;
	const struct fmt_event *ev;
	int i, rc;

	if (id < 0 || fi >= en->n)
		return NULL;
	for (i = 0; i < NSEEK; i++) {
		struct seekslot *c = &k->s[i];

		if (c->used && c->fi == fi && c->buf == buf && c->cpu == cpu) {
			if (c->ev && (uint64_t)c->ev->rec.offset == off)
				return c->ev;
			if (c->ev && (uint64_t)c->ev->rec.offset > off) { /* behind: start again */
				fmt_iter_free(c->it);
				c->it = NULL;
				c->ev = NULL;
			}
			sl = c;
			break;
		}
	}
	if (!sl) {
		sl = &k->s[0];
		for (i = 0; i < NSEEK; i++) {
			if (!k->s[i].used) {
				sl = &k->s[i];
				break;
			}
			if (k->s[i].age < sl->age)
				sl = &k->s[i];
		}
		if (sl->it)
			fmt_iter_free(sl->it);
		memset(sl, 0, sizeof(*sl));
		sl->used = true;
		sl->fi = fi;
		sl->buf = buf;
		sl->cpu = cpu;
	}
	sl->age = ++k->clock;
	if (!sl->it) {
		struct fmt_iter_opts o = { 0 };

		o.cpu_mask[cpu / 64] = 1ULL << (cpu % 64);
		o.buffer_mask = 1ULL << buf;
		if (fmt_iter_new(en->f[fi].r, &o, &sl->it) < 0) {
			sl->used = false;
			sl->it = NULL;
			return NULL;
		}
	}
	for (;;) {
		rc = fmt_iter_next(sl->it, &ev);
		if (rc < 0) {
			en->damaged = true;
			continue;
		}
		if (rc == 0) {
			fmt_iter_free(sl->it);
			sl->it = NULL;
			sl->ev = NULL;
			sl->used = false;
			return NULL;
		}
		sl->ev = ev;
		if ((uint64_t)ev->rec.offset >= off)
			break;
	}
	en->bytes += (uint64_t)ev->rec.size;
	return (uint64_t)ev->rec.offset == off ? ev : NULL;
}

/* ---- args ----------------------------------------------------------------------------- */

struct arg {
	char flat[128], key[144];
	char vt;		/* 'i' int, 'u' uint, 't' string */
	int64_t i;
	char *s;		/* malloc'd */
};

struct arglist {
	struct arg *a;
	int n, cap;
};

static void args_clear(struct arglist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->a[i].s);
	l->n = 0;
}

static struct arg *args_push(struct arglist *l)
{
	struct arg *a;

	if (l->n == l->cap) {
		int nc = l->cap ? l->cap * 2 : 16;
		struct arg *na = realloc(l->a, (size_t)nc * sizeof(*na));

		if (!na)
			return NULL;
		l->a = na;
		l->cap = nc;
	}
	a = &l->a[l->n++];
	memset(a, 0, sizeof(*a));
	return a;
}

static int resolve_args(struct sq_evtype *t, const struct tep_event *e)
{
	struct tep_format_field *f;
	int n = 0, k = 0;

	t->nargs = 0;
	if (!e)
		return 0;
	for (f = e->format.fields; f; f = f->next)
		n++;
	t->args = calloc((size_t)(n ? n : 1), sizeof(*t->args));
	if (!t->args)
		return -ENOMEM;
	for (f = e->format.fields; f; f = f->next) {
		struct afield *a = &t->args[k];

		if (fmt_field_resolve(e, f->name, &a->f))
			continue;
		a->name = f->name;
		a->flags = f->flags;
		a->text = (f->flags & TEP_FIELD_IS_STRING) ||
			  ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1 &&
			   strstr(f->type, "char"));
		a->elemsize = f->elementsize ? (int)f->elementsize : f->size;
		a->count = (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
			   a->elemsize > 0 ? f->size / a->elemsize : 1;
		k++;
	}
	t->nargs = k;
	return 0;
}

static uint64_t rd(const uint8_t *p, int size, bool big)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < size; i++)
		v = big ? v << 8 | p[i] : v | (uint64_t)p[i] << (8 * i);
	return v;
}

static int64_t sext(uint64_t v, int size)
{
	if (size >= 8)
		return (int64_t)v;
	if (v & 1ULL << (size * 8 - 1))
		v |= ~0ULL << (size * 8);
	return (int64_t)v;
}

#define MAX_ELEMS 1024
static int decode_args(struct sfile *sf, const struct fmt_event *ev, struct arglist *l)
{
	struct sq_evtype *t = etype_of(sf, ev);
	int k;

	args_clear(l);
	if (!t || !ev->event)
		return 0;
	if (t->nargs < 0 && resolve_args(t, ev->event))
		return -ENOMEM;
	for (k = 0; k < t->nargs; k++) {
		struct afield *a = &t->args[k];
		const uint8_t *d = ev->rec.data, *p;
		int size = ev->rec.size, len = 0, cnt, i, es = a->elemsize;
		bool sgn = a->f.is_signed;
		struct arg *x;

		if (a->text) {
			char buf[4096];

			if (!(x = args_push(l)))
				return -ENOMEM;
			snprintf(x->flat, sizeof(x->flat), "%s", a->name);
			snprintf(x->key, sizeof(x->key), "%s", a->name);
			x->vt = 't';
			x->s = strdup(fstr(&a->f, ev, buf, sizeof(buf)));
			if (!x->s)
				return -ENOMEM;
			continue;
		}
		if (a->f.is_dynamic) {
			p = fmt_field_ptr(&a->f, d, size, &len);
			if (!p || es <= 0 || es > 8)
				continue;
			cnt = len / es;
		} else {
			if (a->f.offset < 0 || a->f.offset + a->f.size > size || es <= 0 || es > 8)
				continue;
			p = d + a->f.offset;
			cnt = a->count;
		}
		if (cnt > MAX_ELEMS)
			cnt = MAX_ELEMS;
		for (i = 0; i < cnt; i++) {
			uint64_t v = rd(p + (size_t)i * (size_t)es, es, a->f.big_endian);

			if (!(x = args_push(l)))
				return -ENOMEM;
			snprintf(x->flat, sizeof(x->flat), "%s", a->name);
			if ((a->flags & TEP_FIELD_IS_ARRAY))
				snprintf(x->key, sizeof(x->key), "%s[%d]", a->name, i);
			else
				snprintf(x->key, sizeof(x->key), "%s", a->name);
			x->vt = sgn ? 'i' : 'u';
			x->i = sgn ? sext(v, es) : (int64_t)v;
		}
	}
	return 0;
}

/* ---- rows of the derived tables --------------------------------------------------------- */

struct val {
	char t;			/* 0 NULL, 'i', 'r', 't' */
	int64_t i;
	double d;
	char *s;		/* malloc'd */
};

struct rowq {
	int ncols;
	struct val *v;		/* nrows * ncols */
	size_t head, n, cap;	/* rows */
};

static struct val *rowq_add(struct rowq *q)
{
	struct val *r;

	if (q->head && q->head == q->n) {
		q->head = q->n = 0;
	}
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 64;
		struct val *nv;

		if (q->head) {	/* reuse the popped part first */
			memmove(q->v, q->v + q->head * (size_t)q->ncols,
				(q->n - q->head) * (size_t)q->ncols * sizeof(*nv));
			q->n -= q->head;
			q->head = 0;
		}
		if (q->n == q->cap) {
			nv = realloc(q->v, nc * (size_t)q->ncols * sizeof(*nv));
			if (!nv)
				return NULL;
			q->v = nv;
			q->cap = nc;
		}
	}
	r = q->v + q->n * (size_t)q->ncols;
	memset(r, 0, (size_t)q->ncols * sizeof(*r));
	q->n++;
	return r;
}

static void row_free(struct val *r, int ncols)
{
	int i;

	for (i = 0; i < ncols; i++)
		free(r[i].s);
}

static void rowq_release(struct rowq *q)
{
	size_t i;

	for (i = q->head; i < q->n; i++)
		row_free(q->v + i * (size_t)q->ncols, q->ncols);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

static void vi(struct val *v, int64_t i) { v->t = 'i'; v->i = i; }
static void vr(struct val *v, double d) { v->t = 'r'; v->d = d; }
static void vs(struct val *v, const char *s) { v->t = 't'; v->s = strdup(s ? s : ""); }

/* ---- per-kind state -------------------------------------------------------------------- */

struct cpustate {
	bool known;
	uint64_t ts;
	int pid, prio;
};

struct tstate {			/* thread_state: what a thread does since `since` */
	bool known;
	char state[12];		/* "Running", "R", "R+", "S", "D", ... */
	uint64_t since;
	int cpu;		/* Running: its CPU */
	int waker;		/* R after a wakeup: the waker's tid, else -1 */
};

/* A call open on a thread's stack: a row of the slice table once it closes. */
struct sq_open_call {
	struct rpt_call call;	/* first: how it pairs (report/core/calls.h) */
	int64_t id, argset;
	uint64_t ts;
	/* lives as long as the engine (symbols, type names); syscalls: NULL, see sys_named */
	const char *name;
	const char *sys_named;	/* syscalls:sys_enter_NAME: NAME */
};

struct stask {			/* slice: a thread's open calls, every source on one stack */
	struct rpt_calls calls;	/* of struct sq_open_call */
};

/* deeper than this, a thread's calls are not followed (a runaway recursion) */
#define SQ_MAX_OPEN 4096

struct dstate {
	struct cpustate *cpus;
	int ncpus;
	struct rpt_map map;
	bool map_init;
	int64_t next_id;
	uint64_t last_ts;
};

struct cursor {
	sqlite3_vtab_cursor base;
	struct sq_engine *en;
	int kind;
	int64_t rowid;
	bool eof;
	/* event tables */
	struct scan sc;
	bool by_id;		/* ftrace_event.id = X / args.arg_set_id = X */
	int64_t want_id;
	const char *want_name;
	char *want_name_buf;
	struct seeker *seek;
	const struct fmt_event *ev;
	int evfile;
	struct arglist al;
	int argi;
	/* derived tables */
	struct rowq q;
	struct val *row;	/* current row (popped, freed on next) */
	bool scanning;
	struct dstate st;
};

struct vtab {
	sqlite3_vtab base;
	struct sq_engine *en;
	int kind;
};

/* ---- thread prepass --------------------------------------------------------------------- */

static struct ttask *tt_get(struct sq_engine *en, int tid)
{
	bool created;
	struct ttask *t;

	if (tid < 0)
		return NULL;
	t = rpt_map_get(&en->threads, (uint64_t)(uint32_t)tid, &created);
	if (t && created) {
		t->tgid = -1;
		t->ppid = -1;
	}
	return t;
}

static void tt_comm(struct ttask *t, const char *s)
{
	if (t && s && *s)
		snprintf(t->comm, sizeof(t->comm), "%s", s);
}

static void threads_event(struct sq_engine *en, struct sfile *sf, const struct fmt_event *ev)
{
	struct sq_evtype *t = etype_of(sf, ev);
	struct rpt_rec r;
	char b[64];
	struct ttask *tk;
	int pid;

	if (!t)
		return;
	pid = ev_pid(t, ev);
	tk = tt_get(en, pid);
	if (tk && fhas(&t->ftgid) && t->kind >= K_BPF_SYSCALL && t->kind <= K_BPF_PROFILE) {
		int g = (int)fv(&t->ftgid, ev);

		if (g > 0)
			tk->tgid = g;
	}
	if (tk && fhas(&t->ftgid) && (t->kind == K_UF_ENTRY || t->kind == K_UF_EXIT ||
				       t->kind == K_KF_ENTRY || t->kind == K_KF_EXIT)) {
		int g = (int)fv(&t->ftgid, ev);

		if (g > 0)
			tk->tgid = g;
	}
	if (t->kind == K_OTHER)
		return;
	decode(t, ev, &r);
	switch (t->kind) {
	case K_SWITCH:
		tt_comm(tt_get(en, r.sw.prev_pid), rstr(r.sw.prev_comm, b, sizeof(b)));
		tt_comm(tt_get(en, r.sw.next_pid), rstr(r.sw.next_comm, b, sizeof(b)));
		break;
	case K_WAKEUP:
		tt_comm(tt_get(en, r.wake.pid), rstr(r.wake.comm, b, sizeof(b)));
		break;
	case K_FORK:
		tt_get(en, r.fork.parent);
		tk = tt_get(en, r.fork.child);
		if (tk) {
			tt_comm(tk, rstr(r.fork.comm, b, sizeof(b)));
			tk->ppid = r.fork.parent;
			tk->has_start = true;
			tk->start_ts = ev->rec.ts;
			tk->has_end = false;
		}
		break;
	case K_EXIT:
		tk = tt_get(en, r.task.pid);
		if (tk) {
			tk->has_end = true;
			tk->end_ts = ev->rec.ts;
		}
		break;
	case K_RENAME:
		tt_comm(tt_get(en, r.task.pid), rstr(r.task.comm, b, sizeof(b)));
		break;
	case K_BPF_OFFCPU:
	case K_BPF_PROFILE:
		tt_comm(tk, rstr(r.smp.comm, b, sizeof(b)));
		break;
	default:
		break;
	}
}

/* comm of tid from the saved cmdlines ("pid comm" lines) */
static bool cmdline_comm(const struct sfile *sf, int tid, char *out, size_t len)
{
	const char *p = sf->info->cmdlines.data, *end = p ? p + sf->info->cmdlines.len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[64];
		int pid, n = 0;

		if (ll < sizeof(line)) {
			memcpy(line, p, ll);
			line[ll] = 0;
			if (sscanf(line, "%d %n", &pid, &n) == 1 && pid == tid && n > 0) {
				snprintf(out, len, "%s", line + n);
				return true;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

static int threads_build(struct sq_engine *en)
{
	struct scan s;
	size_t pos = 0;
	uint64_t key;
	struct ttask *t;
	int i;

	if (en->threads_done)
		return 0;
	rpt_map_init(&en->threads, sizeof(struct ttask));
	tt_get(en, 0);
	scan_init(&s, en);
	while (scan_next(&s) == 1)
		threads_event(en, &en->f[s.fi], s.ev);
	scan_release(&s);
	while ((t = rpt_map_next(&en->threads, &pos, &key))) {
		if (!t->comm[0])
			for (i = 0; i < en->n &&
			     !cmdline_comm(&en->f[i], (int)key, t->comm, sizeof(t->comm)); i++)
				;
		if (key == 0 && !t->comm[0])
			snprintf(t->comm, sizeof(t->comm), "swapper");
		if (key == 0)
			t->tgid = 0;
	}
	en->threads_done = true;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sorted keys of the thread map (deterministic row order) */
static uint64_t *thread_keys(struct sq_engine *en, size_t *n)
{
	uint64_t *k = malloc((en->threads.count + 1) * sizeof(*k)), key;
	size_t pos = 0, i = 0;

	if (!k)
		return NULL;
	while (rpt_map_next(&en->threads, &pos, &key))
		k[i++] = key;
	qsort(k, i, sizeof(*k), cmp_u64);
	*n = i;
	return k;
}

static int fill_threads(struct cursor *c)
{
	struct sq_engine *en = c->en;
	uint64_t *k;
	size_t n, i;

	if (threads_build(en) || !(k = thread_keys(en, &n)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ttask *t = rpt_map_find(&en->threads, k[i]);
		struct val *r = rowq_add(&c->q);

		if (!r) {
			free(k);
			return -ENOMEM;
		}
		vi(&r[0], (int64_t)k[i]);
		vi(&r[1], (int64_t)k[i]);
		vi(&r[2], (int64_t)k[i]);
		if (t->comm[0])
			vs(&r[3], t->comm);
		if (t->has_start)
			vi(&r[4], (int64_t)t->start_ts);
		if (t->has_end)
			vi(&r[5], (int64_t)t->end_ts);
		if (t->tgid >= 0) {
			vi(&r[6], t->tgid);
			vi(&r[7], t->tgid == (int)k[i]);
		}
	}
	free(k);
	return 0;
}

static int fill_processes(struct cursor *c)
{
	struct sq_engine *en = c->en;
	uint64_t *k;
	size_t n, i;

	if (threads_build(en) || !(k = thread_keys(en, &n)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ttask *t = rpt_map_find(&en->threads, k[i]), *par;
		struct val *r;
		bool lead = t->tgid == (int)k[i];
		size_t j;

		/* a process is a known tgid; it is listed once, at its number */
		if (t->tgid < 0)
			continue;
		if (!lead) {
			struct ttask *g = rpt_map_find(&en->threads, (uint64_t)(uint32_t)t->tgid);

			if (g)
				continue;	/* listed at the leader's key */
			for (j = 0; j < i; j++) {
				struct ttask *o = rpt_map_find(&en->threads, k[j]);

				if (o->tgid == t->tgid)
					break;
			}
			if (j < i)
				continue;
		}
		if (!(r = rowq_add(&c->q))) {
			free(k);
			return -ENOMEM;
		}
		vi(&r[0], t->tgid);
		vi(&r[1], t->tgid);
		vi(&r[2], t->tgid);
		if (lead && t->comm[0])
			vs(&r[3], t->comm);
		if (lead && t->has_start)
			vi(&r[4], (int64_t)t->start_ts);
		if (lead && t->has_end)
			vi(&r[5], (int64_t)t->end_ts);
		if (lead && t->ppid >= 0) {
			par = rpt_map_find(&en->threads, (uint64_t)(uint32_t)t->ppid);
			vi(&r[6], par && par->tgid >= 0 ? par->tgid : t->ppid);
		}
	}
	free(k);
	return 0;
}

static int fill_cpus(struct cursor *c)
{
	uint64_t seen[4] = { 0 };
	int i, b, k;

	for (i = 0; i < c->en->n; i++) {
		const struct fmt_info *in = c->en->f[i].info;

		for (b = 0; b < in->nbuffers; b++)
			for (k = 0; k < in->buffers[b].ncpus; k++) {
				int cpu = in->buffers[b].cpus[k].cpu;

				if (cpu >= 0 && cpu < 256)
					seen[cpu / 64] |= 1ULL << (cpu % 64);
			}
	}
	for (i = 0; i < 256; i++) {
		struct val *r;

		if (!(seen[i / 64] & 1ULL << (i % 64)))
			continue;
		if (!(r = rowq_add(&c->q)))
			return -ENOMEM;
		vi(&r[0], i);
		vi(&r[1], i);
		vi(&r[2], i);
		vi(&r[3], 0);
	}
	return 0;
}

static int meta_row(struct cursor *c, const char *file, const char *k, size_t kl, const char *v,
		    size_t vl)
{
	struct val *r = rowq_add(&c->q);

	if (!r)
		return -ENOMEM;
	vs(&r[0], file);
	r[1].t = r[2].t = 't';
	r[1].s = strndup(k, kl);
	r[2].s = strndup(v, vl);
	return r[1].s && r[2].s ? 0 : -ENOMEM;
}

/* "key=value" lines of an option, with prefix before each key */
static int meta_lines(struct cursor *c, const char *file, const struct fmt_kvlist *l,
		      const char *prefix)
{
	char key[256];

	for (size_t n = 0; n < l->n; n++) {
		if (!l->kv[n].val)
			continue;
		snprintf(key, sizeof(key), "%s%s", prefix, l->kv[n].key);
		if (meta_row(c, file, key, strlen(key), l->kv[n].val, strlen(l->kv[n].val)))
			return -ENOMEM;
	}
	return 0;
}

static int fill_meta(struct cursor *c)
{
	int i;

	for (i = 0; i < c->en->n; i++) {
		const struct sfile *sf = &c->en->f[i];
		const struct fmt_info *in = sf->info;
		const struct fmt_meta *m = fmt_reader_meta(sf->r);
		char v[64];
		const char *file = sf->path;
#define KV(k, s) do { if (meta_row(c, file, k, strlen(k), s, strlen(s))) return -ENOMEM; } while (0)

		snprintf(v, sizeof(v), "%d", in->version);
		KV("version", v);
		KV("compression", in->compression ? in->compression : "none");
		KV("clock", in->clock ? in->clock : "");
		KV("uname", in->uname ? in->uname : "");
		snprintf(v, sizeof(v), "%016" PRIx64, in->trace_id);
		KV("trace_id", v);
		snprintf(v, sizeof(v), "%d", in->cpus);
		KV("cpus", v);
		snprintf(v, sizeof(v), "%" PRIu64, in->file_size);
		KV("file_size", v);
		snprintf(v, sizeof(v), "%s", in->truncated_at ? "yes" : "no");
		KV("truncated", v);
#undef KV
		if (!m || meta_lines(c, file, &m->all, "") ||
		    meta_lines(c, file, &m->rs.all, "recstats."))
			return -ENOMEM;
	}
	return 0;
}

/*
 * bpf_map: one row per entry of every snapshot (FMT_OPT_FT_BPFMAP), in
 * file order.  -EBADMSG for a damaged option, *why saying what.
 */
static int fill_bpf_map(struct cursor *c, const char **why)
{
	static const char *const whys[] = { "end", "snapshot", "dump" };
	int i, k;

	for (i = 0; i < c->en->n; i++) {
		const struct sfile *sf = &c->en->f[i];
		bool swap = sf->info->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		const struct fmt_option *o;

		/* the objects too: their BTF types these rows */
		for (k = 0; (o = fmt_reader_option(sf->r, FMT_OPT_FT_BPFOBJ, k)); k++) {
			struct fmt_bpfobj ob;
			int err = fmt_bpfobj_parse(o->data, o->size, swap, &ob, why);

			if (err)
				return err;
		}
		for (k = 0; (o = fmt_reader_option(sf->r, FMT_OPT_FT_BPFMAP, k)); k++) {
			struct fmt_bpfmap m;
			const char *key, *val;
			size_t pos = 0, kl, vl;
			int err = fmt_bpfmap_parse(o->data, o->size, swap, &m, why);

			if (err)
				return err;
			while (fmt_bpfmap_next(&m, &pos, &key, &kl, &val, &vl)) {
				struct val *r = rowq_add(&c->q);
				unsigned w = FMT_BPFMAP_WHY(m.flags);
				int64_t x;

				if (!r)
					return -ENOMEM;
				vi(&r[0], (int64_t)fmt_reader_adjust_ts(sf->r, m.ts));
				r[1].t = r[2].t = r[3].t = 't';
				r[1].s = strndup(m.name, m.name_len);
				r[2].s = strndup(key, kl);
				r[3].s = strndup(val, vl);
				if (fmt_bpfmap_int(key, kl, &x))
					vi(&r[4], x);
				if (fmt_bpfmap_int(val, vl, &x))
					vi(&r[5], x);
				vs(&r[6], w < 3 ? whys[w] : "other");
				vs(&r[7], sf->path);
				if (!r[1].s || !r[2].s || !r[3].s || !r[6].s || !r[7].s)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/* BPF reservation failures (option) as drops rows; program names from META bpf_progs= */
static int fill_bpf_drops(struct cursor *c)
{
	int i;

	for (i = 0; i < c->en->n; i++) {
		const struct sfile *sf = &c->en->f[i];
		const struct fmt_option *o = fmt_reader_option(sf->r, FMT_OPT_FT_BPF_DROPS, 0);
		const struct fmt_meta *m = fmt_reader_meta(sf->r);
		const char *const *names = m ? m->bpf_prog_names : NULL;
		int nn = m ? (int)m->nbpf_progs : 0, k;

		if (!m)
			return -ENOMEM;
		if (!o)
			continue;
		for (k = 0; (size_t)(k + 1) * sizeof(struct fmt_bpf_drop) <= o->size; k++) {
			struct fmt_bpf_drop d;
			struct val *r = rowq_add(&c->q);
			char src[96];

			if (!r)
				return -ENOMEM;
			memcpy(&d, (const char *)o->data + (size_t)k * sizeof(d), sizeof(d));
			snprintf(src, sizeof(src), "bpf:%s",
				 d.prog < (uint32_t)nn ? names[d.prog] : "?");
			/* on the events' time line, in the buffer the file names */
			vi(&r[0], (int64_t)fmt_reader_adjust_ts(sf->r, d.ts));
			vs(&r[2], fmt_kv_get(&m->all, "bpf_buffer") ? fmt_kv_get(&m->all, "bpf_buffer")
								      : "flytrap-bpf");
			vi(&r[3], d.cpu);
			vs(&r[4], src);
			vi(&r[5], (int64_t)d.count);
		}
	}
	return 0;
}

/* trace-cmd's rendering of prev_state */
static void state_str(int64_t st, char *buf, size_t len)
{
	static const char ch[] = "SDTtXZPI";
	size_t o = 0;
	int b;

	if ((st & 0xff) == 0) {
		snprintf(buf, len, "%s", st ? "R+" : "R");
		return;
	}
	for (b = 0; b < 8 && o + 3 < len; b++)
		if (st & 1 << b) {
			if (o)
				buf[o++] = '|';
			buf[o++] = ch[b];
		}
	buf[o] = 0;
}

static struct cpustate *cpu_state(struct dstate *d, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= d->ncpus) {
		struct cpustate *n = realloc(d->cpus, (size_t)(cpu + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + d->ncpus, 0, (size_t)(cpu + 1 - d->ncpus) * sizeof(*n));
		d->cpus = n;
		d->ncpus = cpu + 1;
	}
	return &d->cpus[cpu];
}

static int sched_feed(struct cursor *c, struct sq_evtype *t, const struct fmt_event *ev)
{
	struct cpustate *cs;
	struct rpt_rec sw;
	struct val *r;
	char st[16];

	if (t->kind != K_SWITCH || !(cs = cpu_state(&c->st, ev->rec.cpu)))
		return 0;
	decode(t, ev, &sw);
	if (cs->known) {
		if (!(r = rowq_add(&c->q)))
			return -ENOMEM;
		vi(&r[0], c->st.next_id++);
		vi(&r[1], (int64_t)cs->ts);
		vi(&r[2], (int64_t)(ev->rec.ts - cs->ts));
		vi(&r[3], ev->rec.cpu);
		vi(&r[4], sw.sw.prev_pid);
		state_str(sw.sw.has_state ? sw.sw.prev_state : 0, st, sizeof(st));
		vs(&r[5], st);
		vi(&r[6], sw.sw.prev_prio);
		vi(&r[7], ev->rec.cpu);
	}
	cs->known = true;
	cs->ts = ev->rec.ts;
	cs->pid = sw.sw.next_pid;
	cs->prio = sw.sw.next_prio;
	return 0;
}

/* the slices still running at the end: to the last event, end_state NULL */
static int sched_finish(struct cursor *c)
{
	int i;

	for (i = 0; i < c->st.ncpus; i++) {
		struct cpustate *cs = &c->st.cpus[i];
		struct val *r;

		if (!cs->known)
			continue;
		if (!(r = rowq_add(&c->q)))
			return -ENOMEM;
		vi(&r[0], c->st.next_id++);
		vi(&r[1], (int64_t)cs->ts);
		vi(&r[2], (int64_t)(c->st.last_ts > cs->ts ? c->st.last_ts - cs->ts : 0));
		vi(&r[3], i);
		vi(&r[4], cs->pid);
		vi(&r[6], cs->prio);
		vi(&r[7], i);
	}
	return 0;
}

static int ts_emit(struct cursor *c, int tid, struct tstate *s, uint64_t now)
{
	struct val *r;

	if (!s->known || tid == 0)
		return 0;
	if (!(r = rowq_add(&c->q)))
		return -ENOMEM;
	vi(&r[0], c->st.next_id++);
	vi(&r[1], (int64_t)s->since);
	vi(&r[2], (int64_t)(now - s->since));
	if (!strcmp(s->state, "Running")) {
		vi(&r[3], s->cpu);
		vi(&r[9], s->cpu);
	}
	vi(&r[4], tid);
	vs(&r[5], s->state);
	if (!strcmp(s->state, "D"))
		vi(&r[6], 1);
	if (s->waker >= 0)
		vi(&r[8], s->waker);
	return 0;
}

static struct tstate *ts_get(struct cursor *c, int tid)
{
	bool created;
	struct tstate *s;

	if (!c->st.map_init) {
		rpt_map_init(&c->st.map, sizeof(struct tstate));
		c->st.map_init = true;
	}
	s = rpt_map_get(&c->st.map, (uint64_t)(uint32_t)tid, &created);
	if (s && created)
		s->waker = -1;
	return s;
}

static int tstate_feed(struct cursor *c, struct sq_evtype *t, const struct fmt_event *ev)
{
	uint64_t now = ev->rec.ts;
	struct rpt_rec r;
	struct tstate *s;
	int rc;

	if (t->kind == K_SWITCH || t->kind == K_WAKEUP)
		decode(t, ev, &r);
	if (t->kind == K_SWITCH) {
		int prev = r.sw.prev_pid, next = r.sw.next_pid;

		if (prev != 0 && (s = ts_get(c, prev))) {
			if ((rc = ts_emit(c, prev, s, now)))
				return rc;
			s->known = true;
			state_str(r.sw.has_state ? r.sw.prev_state : 0, s->state,
				  sizeof(s->state));
			s->since = now;
			s->waker = -1;
		}
		if (next != 0 && (s = ts_get(c, next))) {
			if ((rc = ts_emit(c, next, s, now)))
				return rc;
			s->known = true;
			snprintf(s->state, sizeof(s->state), "Running");
			s->since = now;
			s->cpu = ev->rec.cpu;
			s->waker = -1;
		}
	} else if (t->kind == K_WAKEUP) {
		int tid = r.wake.pid;

		s = ts_get(c, tid);
		if (!s || tid == 0 || !s->known || !strcmp(s->state, "Running") ||
		    s->state[0] == 'R')
			return 0;
		if ((rc = ts_emit(c, tid, s, now)))
			return rc;
		snprintf(s->state, sizeof(s->state), "R");
		s->since = now;
		s->waker = ev_pid(t, ev);
	}
	return 0;
}

static int tstate_finish(struct cursor *c)
{
	size_t pos = 0;
	uint64_t key;
	struct tstate *s;
	uint64_t *keys;
	size_t n = 0, i;

	if (!c->st.map_init)
		return 0;
	keys = malloc((c->st.map.count + 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	while (rpt_map_next(&c->st.map, &pos, &key))
		keys[n++] = key;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i++) {
		s = rpt_map_find(&c->st.map, keys[i]);
		if (s->known && c->st.last_ts >= s->since &&
		    ts_emit(c, (int)keys[i], s, c->st.last_ts)) {
			free(keys);
			return -ENOMEM;
		}
	}
	free(keys);
	return 0;
}

static struct stask *stask_get(struct cursor *c, const struct fmt_event *ev, int pid)
{
	/* the idle tasks of all CPUs share pid 0 but not their calls */
	uint64_t key = pid == 0 ? 1ULL << 40 | (uint32_t)ev->rec.cpu : (uint32_t)pid;

	struct stask *tk;
	bool created;

	if (!c->st.map_init) {
		rpt_map_init(&c->st.map, sizeof(struct stask));
		c->st.map_init = true;
	}
	tk = rpt_map_get(&c->st.map, key, &created);
	if (tk && created)
		rpt_calls_init(&tk->calls, sizeof(struct sq_open_call));
	return tk;
}

static struct sq_open_call *open_call(const struct stask *tk, int k)
{
	return rpt_calls_at(&tk->calls, k);
}

static int slice_row(struct cursor *c, int64_t id, uint64_t ts, uint64_t dur, const char *cat,
		     const char *name, int depth, int64_t parent, int64_t argset, int pid, int cpu,
		     bool has_ret, int64_t ret)
{
	struct val *r = rowq_add(&c->q);

	if (!r)
		return -ENOMEM;
	vi(&r[0], id);
	vi(&r[1], (int64_t)ts);
	vi(&r[2], (int64_t)dur);
	vi(&r[3], pid);
	vs(&r[4], cat);
	vs(&r[5], name);
	vi(&r[6], depth);
	if (parent >= 0)
		vi(&r[7], parent);
	if (argset >= 0)
		vi(&r[8], argset);
	vi(&r[9], pid);
	vi(&r[10], cpu);
	if (has_ret)
		vi(&r[11], ret);
	return 0;
}

/* an entry: the calls it ends first (calls.h: no row for them), then its own */
static struct sq_open_call *enter(struct cursor *c, struct stask *tk, const struct rpt_call *pc,
				  const char *name, const struct fmt_event *ev, int64_t argset)
{
	struct sq_open_call *f;

	tk->calls.n -= rpt_calls_enter(&tk->calls, pc);
	f = rpt_calls_push(&tk->calls, pc, SQ_MAX_OPEN);
	if (!f)
		return NULL;
	f->id = c->st.next_id++;
	f->argset = argset;
	f->ts = ev->rec.ts;
	f->name = name;
	return f;
}

/* the open call exit pc closes (calls.h), the unreturned ones above it gone; NULL: none */
static struct sq_open_call *closing(struct stask *tk, const struct rpt_call *pc, int *k)
{
	int drop;

	*k = rpt_calls_exit(&tk->calls, pc, &drop);
	tk->calls.n -= drop;
	return *k >= 0 ? open_call(tk, *k) : NULL;
}

/* pop the top call k as a slice of duration dur */
static int leave(struct cursor *c, struct stask *tk, int k, uint64_t dur, const char *cat,
		 const char *name, int pid, int cpu, bool has_ret, int64_t ret)
{
	struct sq_open_call f = *open_call(tk, k);

	tk->calls.n = k;
	return slice_row(c, f.id, f.ts, dur, cat, name ? name : f.name, k,
			 k ? open_call(tk, k - 1)->id : -1, f.argset, pid, cpu, has_ret, ret);
}

static const char *intern_sym(struct sfile *sf, uint64_t addr)
{
	char buf[24], *v;
	const char *nm = ksym(sf, addr, buf, sizeof(buf));
	bool created;

	if (nm != buf)
		return nm;
	/* unnamed addresses: the map's values never move, so frames can point at them */
	v = rpt_map_get(&sf->unnamed, addr, &created);
	if (!v)
		return "?";
	if (created)
		snprintf(v, 24, "%s", buf);
	return v;
}

static int slice_feed(struct cursor *c, struct sfile *sf, struct sq_evtype *t,
		      const struct fmt_event *ev)
{
	int pid = ev_pid(t, ev), cpu = ev->rec.cpu, k;
	int64_t id = ev_id(sf->index, ev);
	struct sq_open_call *f;
	struct rpt_call pc = { 0 };
	struct stask *tk;
	struct rpt_rec r;
	char buf[64];

	if (t->kind < K_FG_ENTRY || t->kind > K_BPF_SYSCALL)
		return 0;
	decode(t, ev, &r);
	if (t->kind == K_BPF_SYSCALL) {
		uint64_t dur = r.bsys.duration;
		const char *nm = sys_name(sf, (long)(int32_t)r.bsys.nr, NULL, buf, sizeof(buf));

		return slice_row(c, c->st.next_id++, ev->rec.ts >= dur ? ev->rec.ts - dur : 0, dur,
				 "bpf_syscall", nm, 0, -1, id, pid, cpu, r.bsys.has_ret,
				 r.bsys.ret);
	}
	if (!(tk = stask_get(c, ev, pid)))
		return -ENOMEM;
	switch (t->kind) {
	case K_FG_ENTRY:
	case K_FG_EXIT:
		pc = (struct rpt_call){ .key = r.fg.func, .depth = (uint32_t)r.fg.depth,
					.src = RPT_CALL_FGRAPH };
		break;
	case K_UP_ENTRY:
	case K_UP_RET:
		/* entry: __probe_ip; return: __probe_func (0: the format has none); by name else */
		pc = (struct rpt_call){ .key = has_field(t, RPT_F_PB_IP) ? r.probe.ip : 0,
					.name = t->probe ? rpt_hash_str(t->probe) : 0,
					.src = RPT_CALL_PROBE };
		break;
	case K_UF_ENTRY:
	case K_UF_EXIT:
	case K_KF_ENTRY:
	case K_KF_EXIT:
		pc = (struct rpt_call){ .key = (uint32_t)r.bfunc.func,
					.depth = (uint32_t)r.bfunc.depth,
					.src = t->kind == K_KF_ENTRY || t->kind == K_KF_EXIT ?
						       RPT_CALL_KFUNC : RPT_CALL_UFUNC };
		break;
	case K_SYS_ENTER:
	case K_SYS_EXIT:
		/* -1: a named event without __syscall_nr, which pairs with any */
		pc = (struct rpt_call){ .key = r.sys.id >= 0 ? (uint64_t)r.sys.id : RPT_CALL_ANY,
					.src = RPT_CALL_SYSCALL };
		break;
	default:
		return 0;
	}
	switch (t->kind) {
	case K_FG_ENTRY:
		enter(c, tk, &pc, intern_sym(sf, r.fg.func), ev, id);
		return 0;
	case K_UP_ENTRY:
		enter(c, tk, &pc, t->probe ? t->probe : "?", ev, id);
		return 0;
	case K_UF_ENTRY:
	case K_KF_ENTRY:
		enter(c, tk, &pc, fname_keep(sf, t->kind == K_KF_ENTRY, (int64_t)r.bfunc.func), ev,
		      id);
		return 0;
	case K_SYS_ENTER:
		if ((f = enter(c, tk, &pc, NULL, ev, id)))
			f->sys_named = t->sysname;
		return 0;
	default:
		break;
	}
	if (!(f = closing(tk, &pc, &k)))
		return 0;
	switch (t->kind) {
	case K_FG_EXIT:
		return leave(c, tk, k, r.fg.has_times && r.fg.rettime >= r.fg.calltime ?
				       r.fg.rettime - r.fg.calltime : ev->rec.ts - f->ts,
			     "funcgraph", NULL, pid, cpu, false, 0);
	case K_UP_RET:
		return leave(c, tk, k, ev->rec.ts - f->ts, "uprobe", NULL, pid, cpu, false, 0);
	case K_UF_EXIT:
	case K_KF_EXIT: {
		uint64_t bd = has_field(t, RPT_F_UF_DURATION) ? r.bfunc.duration : 0;

		return leave(c, tk, k, bd ? bd : ev->rec.ts - f->ts,
			     t->kind == K_KF_EXIT ? "kfunc" : "ufunc", NULL, pid, cpu,
			     has_field(t, RPT_F_UF_RET), r.bfunc.ret);
	}
	case K_SYS_EXIT: {
		/* the entry's number and name, else the exit's */
		long nr = f->call.key != RPT_CALL_ANY ? (long)f->call.key : r.sys.id;
		const char *nm = sys_name(sf, nr, f->sys_named ? f->sys_named : t->sysname, buf,
					  sizeof(buf));

		return leave(c, tk, k, ev->rec.ts - f->ts, "syscall", nm, pid, cpu, r.sys.has_ret,
			     r.sys.ret);
	}
	default:
		return 0;
	}
}

static int counter_feed(struct cursor *c, struct sfile *sf, struct sq_evtype *t,
			const struct fmt_event *ev)
{
	struct rpt_rec pw;
	struct val *r;
	int cpu;

	if (t->kind != K_CPUFREQ && t->kind != K_CPUIDLE)
		return 0;
	if (!(r = rowq_add(&c->q)))
		return -ENOMEM;
	decode(t, ev, &pw);
	cpu = (int)pw.pw.cpu;
	vi(&r[0], c->st.next_id++);
	vi(&r[1], (int64_t)ev->rec.ts);
	/* one track per (counter, CPU): cpufreq 0x10000 + cpu, cpuidle 0x20000 + cpu */
	vi(&r[2], (t->kind == K_CPUFREQ ? 0x10000 : 0x20000) + (cpu & 0xffff));
	/* cpu_idle's state is -1 (PWR_EVENT_EXIT) on leaving idle */
	vr(&r[3], t->kind == K_CPUIDLE ? (double)(int32_t)pw.pw.state : (double)pw.pw.state);
	vi(&r[4], ev_id(sf->index, ev));
	vs(&r[5], t->kind == K_CPUFREQ ? "cpufreq" : "cpuidle");
	vi(&r[6], cpu);
	return 0;
}

static int drops_feed(struct cursor *c, struct sfile *sf, const struct fmt_event *ev)
{
	uint64_t key = (uint64_t)sf->index << 32 | (uint64_t)(ev->buffer & 0xffff) << 16 |
		       (uint32_t)(ev->rec.cpu & 0xffff);
	uint64_t *last;
	struct val *r;
	bool bpf;

	if (!c->st.map_init) {
		rpt_map_init(&c->st.map, sizeof(uint64_t));
		c->st.map_init = true;
	}
	if (!(last = rpt_map_get(&c->st.map, key, NULL)))
		return -ENOMEM;
	/*
	 * The recorder marks the BPF buffer's pages for its reservation
	 * failures, which fill_bpf_drops() lists from its records: one row per
	 * loss, so those marks are rows only in a file without the records.
	 */
	bpf = ev->page_missed && rpt_bpf_buffer(sf->r, sf->info->buffers[ev->buffer].name);
	if (ev->page_missed && !(bpf && fmt_reader_option(sf->r, FMT_OPT_FT_BPF_DROPS, 0))) {
		if (!(r = rowq_add(&c->q)))
			return -ENOMEM;
		vi(&r[0], (int64_t)ev->rec.ts);
		if (*last)
			vi(&r[1], (int64_t)*last);
		vs(&r[2], sf->info->buffers[ev->buffer].name);
		vi(&r[3], ev->rec.cpu);
		vs(&r[4], bpf ? "bpf" : "ftrace");
		if (ev->page_missed > 0)
			vi(&r[5], ev->page_missed);
	}
	*last = ev->rec.ts;
	return 0;
}

/* comma-separated hex addresses of a __data_loc unsigned long[] */
static char *stack_text(const struct rpt_arr *a)
{
	char *s = malloc((size_t)a->n * 19 + 1), *o = s;
	int i;

	if (!s)
		return NULL;
	*o = 0;
	for (i = 0; i < a->n; i++)
		o += sprintf(o, "%s0x%" PRIx64, i ? "," : "", rpt_arr_at(a, i));
	return s;
}

static int bpf_feed(struct cursor *c, struct sfile *sf, struct sq_evtype *t,
		    const struct fmt_event *ev)
{
	static const char kinds[] = { [T_BPF_SYSCALL - T_BPF_SYSCALL] = K_BPF_SYSCALL,
				      [T_BPF_SYSHIST - T_BPF_SYSCALL] = K_BPF_SYSHIST,
				      [T_BPF_OFFCPU - T_BPF_SYSCALL] = K_BPF_OFFCPU,
				      [T_BPF_PROFILE - T_BPF_SYSCALL] = K_BPF_PROFILE };
	int pid = ev_pid(t, ev);
	struct rpt_rec e;
	struct val *r;
	char buf[64];

	if (c->kind == T_BPF_FUNC ? t->kind != K_UF_EXIT && t->kind != K_KF_EXIT
				  : t->kind != kinds[c->kind - T_BPF_SYSCALL])
		return 0;
	if (!(r = rowq_add(&c->q)))
		return -ENOMEM;
	decode(t, ev, &e);
	vi(&r[0], ev_id(sf->index, ev));
	vi(&r[1], (int64_t)ev->rec.ts);
	switch (c->kind) {
	case T_BPF_SYSCALL:
		vi(&r[2], ev->rec.cpu);
		vi(&r[3], pid);
		vi(&r[4], e.bsys.tgid);
		vi(&r[5], (int32_t)e.bsys.nr);
		vs(&r[6], sys_name(sf, (long)(int32_t)e.bsys.nr, NULL, buf, sizeof(buf)));
		vi(&r[7], (int64_t)e.bsys.start);
		vi(&r[8], (int64_t)e.bsys.duration);
		vi(&r[9], e.bsys.ret);
		break;
	case T_BPF_SYSHIST: {
		const struct fmt_field *sl = &t->ki.f[RPT_F_BH_SLOTS];
		struct rpt_arr a = e.hist.slots;
		char *s = malloc(40 * 21 + 1), *o = s;
		int i;

		if (!s)
			return -ENOMEM;
		*o = 0;
		/* the program's 40 u64 slots, also where the format misdescribes the array */
		if (!a.p && sl->offset >= 0 && sl->offset + 320 <= (int)ev->rec.size)
			a = (struct rpt_arr){ (const uint8_t *)ev->rec.data + sl->offset, 40, 8,
					      sl->big_endian };
		for (i = 0; i < 40 && i < a.n; i++)
			o += sprintf(o, "%s%" PRIu64, i ? "," : "", rpt_arr_at(&a, i));
		vi(&r[2], pid);
		vi(&r[3], e.hist.tgid);
		vi(&r[4], e.hist.nr);
		vs(&r[5], sys_name(sf, (long)e.hist.nr, NULL, buf, sizeof(buf)));
		vi(&r[6], (int64_t)e.hist.count);
		vi(&r[7], (int64_t)e.hist.total);
		vi(&r[8], (int64_t)e.hist.max);
		r[9].t = 't';
		r[9].s = s;
		break;
	}
	case T_BPF_OFFCPU:
		vi(&r[2], ev->rec.cpu);
		vi(&r[3], pid);
		vi(&r[4], e.smp.tgid);
		vi(&r[5], (int64_t)e.smp.state);
		vi(&r[6], (int64_t)e.smp.start);
		vi(&r[7], (int64_t)e.smp.duration);
		vi(&r[8], e.smp.waker_pid);
		vi(&r[9], e.smp.waker_tgid);
		vs(&r[10], rstr(e.smp.comm, buf, sizeof(buf)));
		vs(&r[11], rstr(e.smp.waker_comm, buf, sizeof(buf)));
		r[12].t = r[13].t = 't';
		r[12].s = stack_text(&e.smp.kstack);
		r[13].s = stack_text(&e.smp.ustack);
		break;
	case T_BPF_PROFILE:
		vi(&r[2], ev->rec.cpu);
		vi(&r[3], pid);
		vi(&r[4], e.smp.tgid);
		vs(&r[5], rstr(e.smp.comm, buf, sizeof(buf)));
		r[6].t = r[7].t = 't';
		r[6].s = stack_text(&e.smp.kstack);
		r[7].s = stack_text(&e.smp.ustack);
		break;
	case T_BPF_FUNC: {
		int kk = t->kind == K_KF_EXIT;

		vi(&r[2], ev->rec.cpu);
		vi(&r[3], pid);
		vi(&r[4], e.bfunc.tgid);
		vs(&r[5], kk ? "kfunc" : "ufunc");
		vi(&r[6], (int64_t)e.bfunc.func);
		vs(&r[7], fname_of(sf, kk, (int64_t)e.bfunc.func, buf, sizeof(buf)));
		vi(&r[8], e.bfunc.depth);
		vi(&r[9], (int64_t)e.bfunc.flags);
		vi(&r[10], (int64_t)e.bfunc.start);
		vi(&r[11], (int64_t)e.bfunc.duration);
		vi(&r[12], e.bfunc.ret);
		break;
	}
	}
	return 0;
}

/* feed one event to the cursor's table */
static int derived_feed(struct cursor *c, struct sfile *sf, const struct fmt_event *ev)
{
	struct sq_evtype *t;

	c->st.last_ts = ev->rec.ts;
	if (c->kind == T_DROPS)
		return drops_feed(c, sf, ev);
	if (!(t = etype_of(sf, ev)))
		return -ENOMEM;
	switch (c->kind) {
	case T_SCHED: return sched_feed(c, t, ev);
	case T_TSTATE: return tstate_feed(c, t, ev);
	case T_SLICE: return slice_feed(c, sf, t, ev);
	case T_COUNTER: return counter_feed(c, sf, t, ev);
	default: return bpf_feed(c, sf, t, ev);
	}
}

static int derived_finish(struct cursor *c)
{
	switch (c->kind) {
	case T_SCHED: return sched_finish(c);
	case T_TSTATE: return tstate_finish(c);
	case T_DROPS: return fill_bpf_drops(c);
	default: return 0;
	}
}

static void dstate_release(struct cursor *c)
{
	size_t pos = 0;
	struct stask *tk;

	if (c->kind == T_SLICE && c->st.map_init)
		while ((tk = rpt_map_next(&c->st.map, &pos, NULL)))
			rpt_calls_release(&tk->calls);
	if (c->st.map_init)
		rpt_map_release(&c->st.map);
	free(c->st.cpus);
	memset(&c->st, 0, sizeof(c->st));
}

/* ---- the virtual table module ---------------------------------------------------------- */

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		      char **err)
{
	struct sq_engine *en = aux;
	struct vtab *v;
	char sql[2048];
	size_t o;
	int k, i, rc;

	if (argc < 4)
		return SQLITE_ERROR;
	for (k = 0; k < sq_ntables && strcmp(sq_tables[k].name, argv[3]); k++)
		;
	if (k == sq_ntables) {
		*err = sqlite3_mprintf("no flytrap table %s", argv[3]);
		return SQLITE_ERROR;
	}
	o = (size_t)snprintf(sql, sizeof(sql), "CREATE TABLE x(");
	for (i = 0; i < sq_tables[k].ncols; i++)
		o += (size_t)snprintf(sql + o, sizeof(sql) - o, "%s\"%s\" %s", i ? ", " : "",
				      sq_tables[k].cols[i].name,
				      sq_tables[k].cols[i].type == 'i' ? "INTEGER" :
				      sq_tables[k].cols[i].type == 'r' ? "REAL" : "TEXT");
	snprintf(sql + o, sizeof(sql) - o, ")");
	rc = sqlite3_declare_vtab(db, sql);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->en = en;
	v->kind = k;
	*out = &v->base;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* idxNum bits for the event tables: which argv entries follow, in this order */
enum { IX_ID = 1, IX_LO = 2, IX_HI = 4, IX_CPU = 8, IX_NAME = 16, IX_TSEQ = 32 };

static int vt_best_index(sqlite3_vtab *tab, sqlite3_index_info *ii)
{
	struct vtab *v = (struct vtab *)tab;
	int id = -1, lo = -1, hi = -1, eq = -1, cpu = -1, name = -1, i, n = 0, bits = 0;
	double cost = 1e7;

	if (v->kind != T_EVENT && v->kind != T_ARGS) {
		ii->estimatedCost = v->kind <= T_CPU || v->kind == T_META ? 1000 : 1e7;
		return SQLITE_OK;
	}
	for (i = 0; i < ii->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ii->aConstraint[i];
		int op = c->op;

		if (!c->usable)
			continue;
		if (c->iColumn == 0 && op == SQLITE_INDEX_CONSTRAINT_EQ)
			id = i;
		else if (v->kind == T_ARGS)
			continue;
		else if (c->iColumn == 1 && op == SQLITE_INDEX_CONSTRAINT_EQ)
			eq = i;
		else if (c->iColumn == 1 &&
			 (op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_GT))
			lo = i;
		else if (c->iColumn == 1 &&
			 (op == SQLITE_INDEX_CONSTRAINT_LE || op == SQLITE_INDEX_CONSTRAINT_LT))
			hi = i;
		else if (c->iColumn == 3 && op == SQLITE_INDEX_CONSTRAINT_EQ)
			cpu = i;
		else if (c->iColumn == 2 && op == SQLITE_INDEX_CONSTRAINT_EQ)
			name = i;
	}
#define USE(k, bit, om) do { bits |= (bit); ii->aConstraintUsage[k].argvIndex = ++n; \
	ii->aConstraintUsage[k].omit = (om); cost /= 4; } while (0)
	if (id >= 0) {
		USE(id, IX_ID, 1);
		cost = 20;
		ii->estimatedRows = v->kind == T_ARGS ? 8 : 1;
		if (v->kind == T_EVENT)
			ii->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	} else {
		/* the scan's bounds are inclusive: > and < are checked again by SQLite */
		if (eq >= 0)
			USE(eq, IX_TSEQ, 1);
		if (lo >= 0 && eq < 0)
			USE(lo, IX_LO, ii->aConstraint[lo].op == SQLITE_INDEX_CONSTRAINT_GE);
		if (hi >= 0 && eq < 0)
			USE(hi, IX_HI, ii->aConstraint[hi].op == SQLITE_INDEX_CONSTRAINT_LE);
		if (cpu >= 0)
			USE(cpu, IX_CPU, 1);
		if (name >= 0)
			USE(name, IX_NAME, 1);
	}
#undef USE
	ii->idxNum = bits;
	ii->estimatedCost = cost;
	/* one file is read in time order */
	if (v->kind == T_EVENT && v->en->n == 1 && ii->nOrderBy == 1 &&
	    ii->aOrderBy[0].iColumn == 1 && !ii->aOrderBy[0].desc)
		ii->orderByConsumed = 1;
	return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out)
{
	struct vtab *v = (struct vtab *)tab;
	struct cursor *c = calloc(1, sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	c->en = v->en;
	c->kind = v->kind;
	c->q.ncols = sq_tables[v->kind].ncols;
	scan_init(&c->sc, c->en);
	*out = &c->base;
	return SQLITE_OK;
}

static void cur_reset(struct cursor *c)
{
	scan_release(&c->sc);
	scan_init(&c->sc, c->en);
	if (c->row) {
		row_free(c->row, c->q.ncols);
		free(c->row);
		c->row = NULL;
	}
	rowq_release(&c->q);
	c->q.ncols = sq_tables[c->kind].ncols;
	dstate_release(c);
	args_clear(&c->al);
	c->ev = NULL;
	c->eof = false;
	c->rowid = 0;
	c->scanning = false;
}

static int vt_close(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;

	cur_reset(c);
	free(c->al.a);
	seeker_release(c->seek);
	free(c->seek);
	free(c->want_name_buf);
	free(c);
	return SQLITE_OK;
}

static bool want_event(struct cursor *c, const struct fmt_event *ev)
{
	if (c->want_name && (!ev->event || strcmp(ev->event->name, c->want_name)))
		return false;
	return true;
}

/* the next event of ftrace_event, or the next event with args for args */
static int next_event(struct cursor *c)
{
	if (c->by_id) {
		c->eof = true;
		return 0;
	}
	while (scan_next(&c->sc) == 1) {
		if (!want_event(c, c->sc.ev))
			continue;
		c->ev = c->sc.ev;
		c->evfile = c->sc.fi;
		return 1;
	}
	c->eof = true;
	return 0;
}

static int args_next(struct cursor *c)
{
	while (++c->argi >= c->al.n) {
		if (next_event(c) != 1)
			return 0;
		if (decode_args(&c->en->f[c->evfile], c->ev, &c->al))
			return -ENOMEM;
		c->argi = -1;
	}
	return 1;
}

static int derived_next(struct cursor *c)
{
	if (c->row) {
		row_free(c->row, c->q.ncols);
		free(c->row);
		c->row = NULL;
	}
	while (c->q.head == c->q.n) {
		if (!c->scanning) {
			c->eof = true;
			return 0;
		}
		if (scan_next(&c->sc) == 1) {
			if (derived_feed(c, &c->en->f[c->sc.fi], c->sc.ev))
				return -ENOMEM;
		} else {
			c->scanning = false;
			if (derived_finish(c))
				return -ENOMEM;
		}
	}
	c->row = c->q.v + c->q.head * (size_t)c->q.ncols;
	c->q.head++;
	/* the popped row's strings move to c->row: copy it out of the queue memory */
	{
		struct val *cp = malloc((size_t)c->q.ncols * sizeof(*cp));

		if (!cp)
			return -ENOMEM;
		memcpy(cp, c->row, (size_t)c->q.ncols * sizeof(*cp));
		c->row = cp;
	}
	return 1;
}

static int vt_next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	int rc;

	c->rowid++;
	if (c->kind == T_EVENT)
		rc = next_event(c);
	else if (c->kind == T_ARGS)
		rc = args_next(c);
	else
		rc = derived_next(c);
	return rc < 0 ? SQLITE_NOMEM : SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs, int argc,
		     sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)cur;
	int a = 0, rc = 0;

	cur_reset(c);
	c->by_id = false;
	c->want_name = NULL;
	if (c->kind == T_EVENT || c->kind == T_ARGS) {
		if (idx & IX_ID) {
			int64_t id = sqlite3_value_int64(argv[a++]);
			const struct fmt_event *ev;

			if (!c->seek && !(c->seek = calloc(1, sizeof(*c->seek))))
				return SQLITE_NOMEM;
			c->by_id = true;
			ev = seek_id(c->en, c->seek, id);
			c->ev = ev;
			c->evfile = (int)((uint64_t)id >> 54);
			if (!ev) {
				c->eof = true;
				return SQLITE_OK;
			}
			if (c->kind == T_EVENT)
				return SQLITE_OK;
			if (decode_args(&c->en->f[c->evfile], ev, &c->al))
				return SQLITE_NOMEM;
			c->argi = 0;
			c->eof = c->al.n == 0;
			return SQLITE_OK;
		}
		if (idx & IX_TSEQ) {
			sqlite3_int64 t = sqlite3_value_int64(argv[a++]);

			if (t < 0) {
				c->eof = true;
				return SQLITE_OK;
			}
			c->sc.lo = c->sc.hi = (uint64_t)t;
		}
		if (idx & IX_LO) {
			sqlite3_int64 lo = sqlite3_value_int64(argv[a++]);

			c->sc.lo = lo > 0 ? (uint64_t)lo : 0;
		}
		if (idx & IX_HI) {
			sqlite3_int64 hi = sqlite3_value_int64(argv[a++]);

			if (hi < 0) {
				c->eof = true;
				return SQLITE_OK;
			}
			c->sc.hi = (uint64_t)hi;
		}
		if (idx & IX_CPU) {
			sqlite3_int64 cpu = sqlite3_value_int64(argv[a++]);

			if (cpu < 0 || cpu > 255) {
				c->eof = true;
				return SQLITE_OK;
			}
			c->sc.opts.cpu_mask[cpu / 64] = 1ULL << (cpu % 64);
		}
		if (idx & IX_NAME) {
			const unsigned char *s = sqlite3_value_text(argv[a++]);

			free(c->want_name_buf);
			c->want_name_buf = strdup(s ? (const char *)s : "");
			if (!c->want_name_buf)
				return SQLITE_NOMEM;
			c->want_name = c->want_name_buf;
		}
		if (c->kind == T_EVENT)
			rc = next_event(c);
		else {
			c->argi = 0;
			c->al.n = 0;
			c->argi = -1;
			rc = args_next(c);
		}
		return rc < 0 ? SQLITE_NOMEM : SQLITE_OK;
	}
	switch (c->kind) {
	case T_THREAD: rc = fill_threads(c); break;
	case T_PROCESS: rc = fill_processes(c); break;
	case T_CPU: rc = fill_cpus(c); break;
	case T_META: rc = fill_meta(c); break;
	case T_BPF_MAP: {
		const char *why = NULL;

		rc = fill_bpf_map(c, &why);
		if (rc == -EBADMSG) {
			sqlite3_free(cur->pVtab->zErrMsg);
			cur->pVtab->zErrMsg = sqlite3_mprintf("bpf_map: damaged --bpf-object data: %s",
							      why ? why : "unreadable");
			return SQLITE_CORRUPT;
		}
		break;
	}
	default: c->scanning = true; break;
	}
	if (rc)
		return SQLITE_NOMEM;
	return derived_next(c) < 0 ? SQLITE_NOMEM : SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct cursor *)cur)->eof;
}

static void result_val(sqlite3_context *ctx, const struct val *v)
{
	switch (v->t) {
	case 'i': sqlite3_result_int64(ctx, v->i); break;
	case 'r': sqlite3_result_double(ctx, v->d); break;
	case 't': sqlite3_result_text(ctx, v->s ? v->s : "", -1, SQLITE_TRANSIENT); break;
	default: sqlite3_result_null(ctx); break;
	}
}

static void event_column(struct cursor *c, sqlite3_context *ctx, int col)
{
	const struct fmt_event *ev = c->ev;
	struct sfile *sf = &c->en->f[c->evfile];
	struct sq_evtype *t;

	switch (col) {
	case 0: case 5: sqlite3_result_int64(ctx, ev_id(sf->index, ev)); break;
	case 1: sqlite3_result_int64(ctx, (sqlite3_int64)ev->rec.ts); break;
	case 2:
		sqlite3_result_text(ctx, ev->event ? ev->event->name : "[UNKNOWN EVENT]", -1,
				    SQLITE_TRANSIENT);
		break;
	case 3: case 7: sqlite3_result_int64(ctx, ev->rec.cpu); break;
	case 4: case 8:
		t = etype_of(sf, ev);
		if (t && fhas(&t->fpid))
			sqlite3_result_int64(ctx, ev_pid(t, ev));
		else
			sqlite3_result_null(ctx);
		break;
	case 6:
		t = etype_of(sf, ev);
		if (t && fhas(&t->fflags))
			sqlite3_result_int64(ctx, fv(&t->fflags, ev));
		else
			sqlite3_result_null(ctx);
		break;
	case 9:
		sqlite3_result_text(ctx, ev->event ? ev->event->system : "", -1, SQLITE_TRANSIENT);
		break;
	case 10:
		sqlite3_result_text(ctx, sf->info->buffers[ev->buffer].name, -1, SQLITE_TRANSIENT);
		break;
	default: sqlite3_result_null(ctx); break;
	}
}

static void args_column(struct cursor *c, sqlite3_context *ctx, int col)
{
	const struct arg *a = &c->al.a[c->argi];

	switch (col) {
	case 0: sqlite3_result_int64(ctx, ev_id(c->en->f[c->evfile].index, c->ev)); break;
	case 1: sqlite3_result_text(ctx, a->flat, -1, SQLITE_TRANSIENT); break;
	case 2: sqlite3_result_text(ctx, a->key, -1, SQLITE_TRANSIENT); break;
	case 3:
		if (a->vt == 't')
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, a->i);
		break;
	case 4:
		if (a->vt == 't')
			sqlite3_result_text(ctx, a->s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		break;
	case 6:
		sqlite3_result_text(ctx, a->vt == 't' ? "string" : a->vt == 'i' ? "int" : "uint",
				    -1, SQLITE_STATIC);
		break;
	default: sqlite3_result_null(ctx); break;
	}
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct cursor *c = (struct cursor *)cur;

	if (c->kind == T_EVENT)
		event_column(c, ctx, col);
	else if (c->kind == T_ARGS)
		args_column(c, ctx, col);
	else if (c->row && col < c->q.ncols)
		result_val(ctx, &c->row[col]);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module ft_module = {
	.iVersion = 0,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

/* ---- event_counts: ftrace_event's counts, aggregated in C ---------------------------- */

/*
 * event_counts(name, system, cpu, buffer, tid, count) holds, for every
 * (file, buffer, CPU, event type, tid) that ftrace_event has rows for, how
 * many: the GROUP BY of the common count queries done in one pass with a
 * hash table, not a sort of every row by SQLite (which spilled 100M rows to
 * temporary files).  A query that needs only cpu, buffer and count takes
 * them from the time index's per-chunk event counts without reading any
 * event, where every CPU stream has them.  sq_pushdown() rewrites the
 * usual ftrace_event aggregates onto this table.
 */
#define EC_INDEX_COLS ((1ULL << 2) | (1ULL << 3) | (1ULL << 5))

struct crow {
	int file, buffer, cpu;
	const struct tep_event *event;	/* NULL: an unknown event */
	bool has_tid;
	int tid;
	uint64_t count;
};

struct counts {
	struct crow *rows;
	size_t n, cap;
};

struct ctab {
	sqlite3_vtab base;
	struct sq_engine *en;
	struct counts full, index;	/* computed on first use, then kept */
	bool have_full, have_index;
};

struct ccur {
	sqlite3_vtab_cursor base;
	const struct counts *c;
	size_t i;
};

static struct crow *crow_add(struct counts *c)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct crow *nr = realloc(c->rows, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		c->rows = nr;
		c->cap = nc;
	}
	memset(&c->rows[c->n], 0, sizeof(c->rows[0]));
	return &c->rows[c->n++];
}

/* one pass over every file: a row per (file, buffer, CPU, type, tid) */
static int counts_scan(struct sq_engine *en, struct counts *out)
{
	struct rpt_map rows, streams;
	struct scan sc;
	uint64_t last_skey = ~0ULL;
	uint32_t stream = 0;
	int rc = 0;

	/* (file, buffer, CPU) -> a stream number; (stream, type, tid) -> row + 1 */
	rpt_map_init(&rows, sizeof(uint32_t));
	rpt_map_init(&streams, sizeof(uint32_t));
	scan_init(&sc, en);
	while (scan_next(&sc) == 1) {
		const struct fmt_event *ev = sc.ev;
		struct sq_evtype *t = etype_of(&en->f[sc.fi], ev);
		bool has = t && fhas(&t->fpid);
		int tid = has ? ev_pid(t, ev) : 0;
		uint64_t skey = (uint64_t)sc.fi << 40 | (uint64_t)(ev->buffer & 0xffff) << 24 |
				(uint64_t)(ev->rec.cpu & 0xffffff);
		uint32_t *v;
		bool created;

		if (skey != last_skey) {
			v = rpt_map_get(&streams, skey, &created);
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			if (created)
				*v = (uint32_t)streams.count;
			stream = *v;
			last_skey = skey;
		}
		if (stream >= (1U << 15)) {
			rc = -E2BIG;
			break;
		}
		v = rpt_map_get(&rows, (uint64_t)stream << 49 | (uint64_t)has << 48 |
			       (uint64_t)(ev->type & 0xffff) << 32 | (uint32_t)tid, &created);
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		if (created) {
			struct crow *r = crow_add(out);

			if (!r) {
				rc = -ENOMEM;
				break;
			}
			*r = (struct crow){ .file = sc.fi, .buffer = ev->buffer,
					    .cpu = ev->rec.cpu, .event = ev->event,
					    .has_tid = has, .tid = tid };
			*v = (uint32_t)out->n;
		}
		out->rows[*v - 1].count++;
	}
	scan_release(&sc);
	rpt_map_release(&rows);
	rpt_map_release(&streams);
	return rc;
}

/*
 * cpu, buffer and count from the time index's facts: 1 done, 0 some CPU
 * stream has none (then the scan answers).
 */
static int counts_index(struct sq_engine *en, struct counts *out)
{
	for (int fi = 0; fi < en->n; fi++) {
		struct sfile *sf = &en->f[fi];

		for (int b = 0; b < sf->info->nbuffers; b++) {
			const struct fmt_buffer *buf = &sf->info->buffers[b];

			for (int k = 0; k < buf->ncpus; k++) {
				const struct fmt_cpu_facts *fa =
					fmt_reader_facts(sf->r, b, buf->cpus[k].cpu);
				struct crow *r;
				uint64_t n = 0;

				if (!fa || !fa->sorted) {
					out->n = 0;
					return 0;
				}
				for (uint32_t c = 0; c < fa->n; c++)
					n += fa->chunks[c].nev;
				if (!n)
					continue;
				r = crow_add(out);
				if (!r)
					return -ENOMEM;
				*r = (struct crow){ .file = fi, .buffer = b, .cpu = buf->cpus[k].cpu,
						    .count = n };
			}
		}
	}
	return 1;
}

static int ct_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct ctab *v;
	int rc;

	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(\"name\" TEXT, \"system\" TEXT, "
				  "\"cpu\" INTEGER, \"buffer\" TEXT, \"tid\" INTEGER, "
				  "\"count\" INTEGER)");
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->en = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int ct_disconnect(sqlite3_vtab *tab)
{
	struct ctab *v = (struct ctab *)tab;

	free(v->full.rows);
	free(v->index.rows);
	sqlite3_free(v);
	return SQLITE_OK;
}

static int ct_best_index(sqlite3_vtab *tab, sqlite3_index_info *ii)
{
	(void)tab;
	/* idxNum 1: the index's counts do (only cpu, buffer, count used) */
	ii->idxNum = (ii->colUsed & ~EC_INDEX_COLS) ? 0 : 1;
	ii->estimatedCost = 1000;
	ii->estimatedRows = 1000;
	return SQLITE_OK;
}

static int ct_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out)
{
	struct ccur *c = sqlite3_malloc(sizeof(*c));

	(void)tab;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int ct_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int ct_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs, int argc,
		     sqlite3_value **argv)
{
	struct ccur *c = (struct ccur *)cur;
	struct ctab *v = (struct ctab *)cur->pVtab;
	int rc;

	(void)idxs;
	(void)argc;
	(void)argv;
	c->i = 0;
	if (idx == 1 && !v->have_index) {
		rc = counts_index(v->en, &v->index);
		if (rc < 0)
			return SQLITE_NOMEM;
		v->have_index = rc == 1;
	}
	if (idx == 1 && v->have_index) {
		c->c = &v->index;
		return SQLITE_OK;
	}
	if (!v->have_full) {
		rc = counts_scan(v->en, &v->full);
		if (rc < 0) {
			free(v->full.rows);
			memset(&v->full, 0, sizeof(v->full));
			return rc == -ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
		}
		v->have_full = true;
	}
	c->c = &v->full;
	return SQLITE_OK;
}

static int ct_next(sqlite3_vtab_cursor *cur)
{
	((struct ccur *)cur)->i++;
	return SQLITE_OK;
}

static int ct_eof(sqlite3_vtab_cursor *cur)
{
	struct ccur *c = (struct ccur *)cur;

	return !c->c || c->i >= c->c->n;
}

static int ct_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ccur *c = (struct ccur *)cur;
	struct ctab *v = (struct ctab *)cur->pVtab;
	const struct crow *r = &c->c->rows[c->i];
	const struct sfile *sf = &v->en->f[r->file];

	switch (col) {
	case 0:
		sqlite3_result_text(ctx, r->event ? r->event->name : "[UNKNOWN EVENT]", -1,
				    SQLITE_TRANSIENT);
		break;
	case 1:
		sqlite3_result_text(ctx, r->event ? r->event->system : "", -1, SQLITE_TRANSIENT);
		break;
	case 2: sqlite3_result_int64(ctx, r->cpu); break;
	case 3: sqlite3_result_text(ctx, sf->info->buffers[r->buffer].name, -1, SQLITE_TRANSIENT);
		break;
	case 4:
		if (r->has_tid)
			sqlite3_result_int64(ctx, r->tid);
		else
			sqlite3_result_null(ctx);
		break;
	case 5: sqlite3_result_int64(ctx, (sqlite3_int64)r->count); break;
	default: sqlite3_result_null(ctx); break;
	}
	return SQLITE_OK;
}

static int ct_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct ccur *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module ct_module = {
	.xCreate = ct_connect, .xConnect = ct_connect, .xBestIndex = ct_best_index,
	.xDisconnect = ct_disconnect, .xDestroy = ct_disconnect, .xOpen = ct_open,
	.xClose = ct_close, .xFilter = ct_filter, .xNext = ct_next, .xEof = ct_eof,
	.xColumn = ct_column, .xRowid = ct_rowid,
};

/* ---- aggregate pushdown ---------------------------------------------------------------- */

struct sql_tok {
	const char *p;
	size_t n;
};

/* the statement's tokens: words, numbers, single punctuation; false on anything else */
static bool tokenize(const char *s, const char *end, struct sql_tok *t, int max, int *n)
{
	*n = 0;
	while (s < end) {
		const char *b = s;

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (isalnum((unsigned char)*s) || *s == '_') {
			while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
				s++;
		} else if (strchr("(),*;", *s)) {
			s++;
		} else {
			/* quotes, comments, operators: not a shape we rewrite */
			return false;
		}
		if (*n == max)
			return false;
		t[(*n)++] = (struct sql_tok){ b, (size_t)(s - b) };
	}
	return true;
}

static bool tis(const struct sql_tok *t, const char *w)
{
	return t->n == strlen(w) && !strncasecmp(t->p, w, t->n);
}

static int key_of(const struct sql_tok *t)
{
	static const char *const keys[] = { "name", "system", "cpu", "buffer", "tid" };

	for (int k = 0; k < 5; k++)
		if (tis(t, keys[k]))
			return k;
	return -1;
}

/* COUNT ( * ) at t[i]: its length in tokens, or 0 */
static int count_star(const struct sql_tok *t, int i, int n)
{
	return i + 3 < n && tis(&t[i], "count") && tis(&t[i + 1], "(") && tis(&t[i + 2], "*") &&
	       tis(&t[i + 3], ")") ? 4 : 0;
}

static void put(char **o, size_t *left, const char *p, size_t n)
{
	if (n >= *left)
		n = *left ? *left - 1 : 0;
	memcpy(*o, p, n);
	*o += n;
	*left -= n;
	**o = '\0';
}

char *sq_pushdown(const char *sql, const char *end)
{
	struct sql_tok t[64];
	int n, i, c = -1, clen = 0, sel_keys = 0, grp_keys = 0;
	const char *alias_p = NULL;
	size_t alias_n = 0, left;
	char *out, *o;

	if (!tokenize(sql, end, t, 64, &n))
		return NULL;
	while (n && tis(&t[n - 1], ";"))
		n--;
	if (n < 6 || !tis(&t[0], "select"))
		return NULL;
	/* the select list: keys and one COUNT(*) [AS alias] */
	for (i = 1; i < n && !tis(&t[i], "from");) {
		int k, cl = count_star(t, i, n);

		if (cl) {
			if (c >= 0)
				return NULL;
			c = i;
			clen = cl;
			i += cl;
			if (i + 1 < n && tis(&t[i], "as") && key_of(&t[i + 1]) < 0 &&
			    !tis(&t[i + 1], "from")) {
				alias_p = t[i + 1].p;
				alias_n = t[i + 1].n;
				i += 2;
			}
		} else if ((k = key_of(&t[i])) >= 0) {
			if (sel_keys & (1 << k))
				return NULL;
			sel_keys |= 1 << k;
			i++;
		} else {
			return NULL;
		}
		if (i < n && tis(&t[i], ","))
			i++;
		else if (i < n && !tis(&t[i], "from"))
			return NULL;
	}
	if (c < 0 || i + 1 >= n || !tis(&t[i + 1], "ftrace_event"))
		return NULL;
	i += 2;
	/* GROUP BY exactly the selected keys */
	if (i + 1 < n && tis(&t[i], "group") && tis(&t[i + 1], "by")) {
		for (i += 2; i < n; i++) {
			int k = key_of(&t[i]);

			if (k < 0 || (grp_keys & (1 << k)))
				return NULL;
			grp_keys |= 1 << k;
			if (i + 1 < n && tis(&t[i + 1], ","))
				i++;
			else
				break;
		}
		i++;
	}
	if (grp_keys != sel_keys)
		return NULL;
	/* the rest: ORDER BY keys, positions, the alias or COUNT(*), then LIMIT n */
	for (int j = i; j < n; j++) {
		int cl = count_star(t, j, n), k = key_of(&t[j]);

		if (cl) {
			j += cl - 1;
			continue;
		}
		/* a key not grouped would pick some row's value: not ours to choose */
		if (k >= 0 && !(sel_keys & (1 << k)))
			return NULL;
		if (k < 0 && !tis(&t[j], ",") && !tis(&t[j], "order") &&
		    !tis(&t[j], "by") && !tis(&t[j], "asc") && !tis(&t[j], "desc") &&
		    !tis(&t[j], "limit") && !isdigit((unsigned char)*t[j].p) &&
		    !(alias_p && t[j].n == alias_n && !strncasecmp(t[j].p, alias_p, alias_n)))
			return NULL;
	}
	left = (size_t)(end - sql) + 256;
	out = malloc(left);
	if (!out)
		return NULL;
	o = out;
	*o = '\0';
	/* SELECT ... as written, with COUNT(*) summed from event_counts under its own name */
	put(&o, &left, "SELECT ", 7);
	for (int j = 1; j < n; j++) {
		if (j == c) {
			put(&o, &left, "coalesce(sum(count), 0) AS \"", 28);
			if (alias_p)
				put(&o, &left, alias_p, alias_n);
			else
				put(&o, &left, t[c].p, (size_t)(t[c + clen - 1].p + 1 - t[c].p));
			put(&o, &left, "\" ", 2);
			j += clen - 1 + (alias_p ? 2 : 0);
			continue;
		}
		if (tis(&t[j], "ftrace_event")) {
			put(&o, &left, "event_counts ", 13);
			continue;
		}
		if (j > c && count_star(t, j, n)) {
			put(&o, &left, "sum(count) ", 11);
			j += 3;
			continue;
		}
		put(&o, &left, t[j].p, t[j].n);
		put(&o, &left, " ", 1);
	}
	return out;
}

/* ---- functions: percentile (exact nearest rank), extract_arg ------------------------- */

struct pct {
	double *v;
	size_t n, cap;
	double p;
	bool bad_p, oom, all_int;
	int64_t *iv;
};

static void pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pct *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	int t;

	if (!s)
		return;
	if (!s->n && !s->cap)
		s->all_int = true;
	s->p = sqlite3_value_double(argv[1]);
	if (s->p < 0 || s->p > 100 || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		s->bad_p = true;
	t = sqlite3_value_type(argv[0]);
	if (t == SQLITE_NULL)
		return;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		double *nv = realloc(s->v, nc * sizeof(*nv));
		int64_t *ni = realloc(s->iv, nc * sizeof(*ni));

		if (nv)
			s->v = nv;
		if (ni)
			s->iv = ni;
		if (!nv || !ni) {
			s->oom = true;
			return;
		}
		s->cap = nc;
	}
	if (t != SQLITE_INTEGER)
		s->all_int = false;
	s->iv[s->n] = sqlite3_value_int64(argv[0]);
	s->v[s->n++] = sqlite3_value_double(argv[0]);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void pct_final(sqlite3_context *ctx)
{
	struct pct *s = sqlite3_aggregate_context(ctx, 0);
	size_t rank;

	if (!s || !s->n) {
		if (s && s->bad_p)
			sqlite3_result_error(ctx, "percentile: p must be between 0 and 100", -1);
		else
			sqlite3_result_null(ctx);
		if (s) {
			free(s->v);
			free(s->iv);
		}
		return;
	}
	if (s->bad_p || s->oom) {
		sqlite3_result_error(ctx, s->oom ? "percentile: out of memory" :
				     "percentile: p must be between 0 and 100", -1);
	} else {
		/* nearest rank: the smallest value with at least p% of the values <= it */
		long double x = (long double)s->p * (long double)s->n / 100.0L;

		rank = (size_t)ceill(x - 1e-9L);
		if (rank < 1)
			rank = 1;
		if (rank > s->n)
			rank = s->n;
		if (s->all_int) {
			qsort(s->iv, s->n, sizeof(*s->iv), cmp_i);
			sqlite3_result_int64(ctx, s->iv[rank - 1]);
		} else {
			qsort(s->v, s->n, sizeof(*s->v), cmp_d);
			sqlite3_result_double(ctx, s->v[rank - 1]);
		}
	}
	free(s->v);
	free(s->iv);
}

static void extract_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sq_engine *en = sqlite3_user_data(ctx);
	const struct fmt_event *ev;
	const char *key = (const char *)sqlite3_value_text(argv[1]);
	struct arglist l = { 0 };
	int64_t id = sqlite3_value_int64(argv[0]);
	int i;

	sqlite3_result_null(ctx);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || !key)
		return;
	if (!en->xseek && !(en->xseek = calloc(1, sizeof(*en->xseek)))) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	ev = seek_id(en, en->xseek, id);
	if (!ev)
		return;
	if (decode_args(&en->f[(uint64_t)id >> 54], ev, &l)) {
		sqlite3_result_error_nomem(ctx);
	} else {
		for (i = 0; i < l.n; i++)
			if (!strcmp(l.a[i].key, key)) {
				if (l.a[i].vt == 't')
					sqlite3_result_text(ctx, l.a[i].s, -1, SQLITE_TRANSIENT);
				else
					sqlite3_result_int64(ctx, l.a[i].i);
				break;
			}
	}
	args_clear(&l);
	free(l.a);
}

/*
 * hist_bucket(x): the analyzers' histogram bucket of x (RPT_HIST_*), hist_bucket_low(b): its
 * lowest value
 */
static void hist_bucket(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 v = sqlite3_value_int64(argv[0]);

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, rpt_hist_bucket(v > 0 ? (uint64_t)v : 0));
}

static void hist_bucket_low(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_int64 b = sqlite3_value_int64(argv[0]);

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || b < 0 || b >= RPT_HIST_BUCKETS)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, (sqlite3_int64)rpt_hist_bucket_low((unsigned)b));
}

/* ---- open / close --------------------------------------------------------------------------- */

static void file_release(struct sfile *f)
{
	int i, k;

	if (f->types.slots) {
		for (i = 0; i < f->types.n; i++) {
			struct sq_evtype *t =
				(struct sq_evtype *)(f->types.slots + (size_t)i * f->types.elem_size);

			free(t->probe);
			free(t->args);
		}
		rpt_types_release(&f->types);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < f->nfnames[k]; i++)
			free(f->fnames[k][i]);
		free(f->fnames[k]);
	}
	rpt_map_release(&f->unnamed);
	if (f->syms)
		rpt_syms_free(f->syms);
	if (f->r)
		fmt_reader_close(f->r);
	free(f->path);
}

void sq_close(struct sq_engine *en)
{
	int i;

	if (!en)
		return;
	if (en->db)
		sqlite3_close(en->db);
	seeker_release(en->xseek);
	free(en->xseek);
	for (i = 0; i < en->n; i++)
		file_release(&en->f[i]);
	free(en->f);
	if (en->threads_done)
		rpt_map_release(&en->threads);
	free(en);
}

static int cmp_file(const void *a, const void *b)
{
	const struct sfile *x = a, *y = b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->index - y->index;
}

static int open_file(struct sfile *f, const char *path, int idx, char **err)
{
	struct fmt_iter *it;
	const struct fmt_event *ev;
	char *e = NULL;
	int rc;

	f->index = idx;
	f->path = strdup(path);
	f->types.elem_size = sizeof(struct sq_evtype);
	rpt_map_init(&f->unnamed, 24);
	if (!f->path)
		return -ENOMEM;
	rc = fmt_reader_open(path, FMT_OPEN_LAZY_FORMATS | FMT_OPEN_LAZY_KALLSYMS, &f->r, &e);
	if (rc < 0) {
		if (asprintf(err, "cannot open '%s': %s", path, e ? e : strerror(-rc)) < 0)
			*err = NULL;
		free(e);
		return rc;
	}
	f->info = fmt_reader_info(f->r);
	f->tep = fmt_reader_tep(f->r);
	f->abi = rpt_sys_abi(f->info->uname, f->info->kernel_long);
	f->syms = rpt_syms_new(f->r, NULL, NULL, 0);
	f->first_ts = UINT64_MAX;
	if (fmt_iter_new(f->r, NULL, &it) == 0) {
		if (fmt_iter_next(it, &ev) == 1)
			f->first_ts = ev->rec.ts;
		fmt_iter_free(it);
	}
	return load_fnames(f);
}

/*
 * Sorts and GROUP BYs that SQLite cannot avoid (ORDER BY ts over a whole
 * file, a GROUP BY event_counts cannot answer) keep their temporary data
 * in memory when the files hold at most SQ_TEMP_MEM_EVENTS events (by the
 * time index's counts; without an index, by file size), about 1 GiB of
 * sorter at the widest rows; above it, in temporary files as before, so
 * that memory stays bounded whatever the file.
 */
#define SQ_TEMP_MEM_EVENTS (20ULL * 1000 * 1000)
#define SQ_TEMP_MEM_FILE (256ULL << 20)

static void temp_store(struct sq_engine *en)
{
	uint64_t events = 0, bytes = 0;
	bool counted = true;

	for (int fi = 0; fi < en->n; fi++) {
		const struct fmt_info *info = en->f[fi].info;

		bytes += info->file_size;
		for (int b = 0; b < info->nbuffers; b++)
			for (int k = 0; k < info->buffers[b].ncpus; k++) {
				const struct fmt_cpu_facts *fa = fmt_reader_facts(
					en->f[fi].r, b, info->buffers[b].cpus[k].cpu);

				if (!fa) {
					counted = false;
					continue;
				}
				for (uint32_t c = 0; c < fa->n; c++)
					events += fa->chunks[c].nev;
			}
	}
	if (counted ? events <= SQ_TEMP_MEM_EVENTS : bytes <= SQ_TEMP_MEM_FILE)
		sqlite3_exec(en->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
}

int sq_open(char *const *paths, int n, struct sq_engine **out, char **err)
{
	struct sq_engine *en = calloc(1, sizeof(*en));
	char sql[256];
	int i, rc;

	*err = NULL;
	if (!en || n > 511 || !(en->f = calloc((size_t)(n ? n : 1), sizeof(*en->f)))) {
		free(en);
		*err = strdup(n > 511 ? "at most 511 files" : "out of memory");
		return n > 511 ? -E2BIG : -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rc = open_file(&en->f[i], paths[i], i, err);
		en->n = i + 1;
		if (rc >= 0 && en->f[i].info->truncated_at)
			en->damaged = true;	/* cut: what is read is what was left */
		if (rc < 0) {
			sq_close(en);
			return rc;
		}
	}
	qsort(en->f, (size_t)n, sizeof(*en->f), cmp_file);
	for (i = 0; i < n; i++)
		en->f[i].index = i;
	if (n)
		meta_host(&en->f[0], en->host, sizeof(en->host));
	if (sqlite3_open(":memory:", &en->db) != SQLITE_OK ||
	    sqlite3_create_module(en->db, "flytrap", &ft_module, en) != SQLITE_OK ||
	    sqlite3_create_module(en->db, "flytrap_counts", &ct_module, en) != SQLITE_OK ||
	    sqlite3_create_function(en->db, "percentile", 2, SQLITE_UTF8, NULL, NULL, pct_step,
				    pct_final) != SQLITE_OK ||
	    sqlite3_create_function(en->db, "extract_arg", 2, SQLITE_UTF8, en, extract_arg, NULL,
				    NULL) != SQLITE_OK ||
	    sqlite3_create_function(en->db, "hist_bucket", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, hist_bucket, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(en->db, "hist_bucket_low", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, hist_bucket_low, NULL,
				    NULL) != SQLITE_OK) {
		*err = strdup(en->db ? sqlite3_errmsg(en->db) : "cannot open SQLite");
		sq_close(en);
		return -ENOMEM;
	}
	/* before any temp table: changing temp_store drops the temp database */
	temp_store(en);
	for (i = 0; i < sq_ntables; i++) {
		snprintf(sql, sizeof(sql), "CREATE VIRTUAL TABLE temp.\"%s\" USING flytrap(%s)",
			 sq_tables[i].name, sq_tables[i].name);
		if (sqlite3_exec(en->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			*err = strdup(sqlite3_errmsg(en->db));
			sq_close(en);
			return -EINVAL;
		}
	}
	if (sqlite3_exec(en->db, "CREATE VIRTUAL TABLE temp.event_counts USING flytrap_counts",
			 NULL, NULL, NULL) != SQLITE_OK) {
		*err = strdup(sqlite3_errmsg(en->db));
		sq_close(en);
		return -EINVAL;
	}
	/* Perfetto's aliases and track tables, as views */
	sqlite3_exec(en->db,
		     "CREATE TEMP VIEW raw AS SELECT * FROM ftrace_event;"
		     "CREATE TEMP VIEW sched AS SELECT * FROM sched_slice;"
		     "CREATE TEMP VIEW thread_track AS SELECT utid AS id, utid, name FROM thread;"
		     "CREATE TEMP VIEW trace_bounds AS SELECT min(ts) AS start_ts, "
		     "max(ts) AS end_ts FROM ftrace_event;",
		     NULL, NULL, NULL);
	*out = en;
	return 0;
}
