// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one definition of what each event kind is (see kinds.h).
 *
 * The system rule, decided once for every analyzer:
 *  - kernel tracepoints match only in their own system: sched_switch,
 *    sched_wakeup[_new], sched_waking, sched_process_fork/exit in "sched",
 *    task_newtask/task_rename in "task", irq_handler_entry/exit and
 *    softirq_entry/exit in "irq", cpu_frequency/cpu_idle in "power",
 *    sys_enter/sys_exit in "raw_syscalls", sys_enter_NAME/sys_exit_NAME in
 *    "syscalls".  A "sched_switch" of another system (a kprobe someone
 *    named so, a BPF record) is someone else's event with another layout.
 *  - the ftrace tracers' own records (funcgraph_entry/exit, function,
 *    kernel_stack, user_stack) match only in "ftrace".
 *  - flytrap's BPF records match only in "flytrap" (design decision 2).
 *  - probes match in any system (a uprobe's group is whatever its author
 *    chose: "uprobes", flytrap's "flytrap_*", "probe_app"...) by the
 *    kernel's fields: __probe_func + __probe_ret_ip is a return probe,
 *    __probe_ip an entry.  Without those fields (files written by hand or
 *    by other tools), events of the groups "uprobes" and "flytrap_*" are
 *    probes by name: NAME__return, NAME_ret and r_NAME are returns.
 * A rule also lists the fields its kind needs: when a required one is
 * missing or has an impossible size, the event is RPT_K_OTHER.
 */
#include <stdio.h>
#include <string.h>

#include "report/core/kinds.h"

/* how a field is read: an integer of 1, 2, 4 or 8 bytes, a string, or any (arrays) */
enum { FT_ANY = 0, FT_INT, FT_STR };

struct kind_rule {
	enum rpt_kind kind;
	const char *sys, *name;
	bool prefix;			/* name is a prefix (syscalls:sys_enter_*) */
	int nreq;			/* the first nreq fields are required */
	const char *fields[RPT_KIND_FIELDS];
	unsigned char type[RPT_KIND_FIELDS];
};

#define I FT_INT
#define S FT_STR
#define A FT_ANY
static const struct kind_rule rules[] = {
	{ RPT_K_SCHED_SWITCH, "sched", "sched_switch", false, 2,
	  { "prev_pid", "next_pid", "prev_comm", "next_comm", "prev_state", "prev_prio",
	    "next_prio" },
	  { I, I, S, S, I, I, I } },
	{ RPT_K_SCHED_WAKEUP, "sched", "sched_wakeup", false, 1, { "pid", "comm", "prio" },
	  { I, S, I } },
	{ RPT_K_SCHED_WAKEUP, "sched", "sched_wakeup_new", false, 1, { "pid", "comm", "prio" },
	  { I, S, I } },
	{ RPT_K_SCHED_WAKING, "sched", "sched_waking", false, 1, { "pid", "comm", "prio" },
	  { I, S, I } },
	{ RPT_K_PROCESS_FORK, "sched", "sched_process_fork", false, 2,
	  { "parent_pid", "child_pid", "child_comm" }, { I, I, S } },
	{ RPT_K_PROCESS_EXIT, "sched", "sched_process_exit", false, 1, { "pid", "comm" },
	  { I, S } },
	{ RPT_K_PROCESS_EXEC, "sched", "sched_process_exec", false, 1, { "pid", "old_pid" },
	  { I, I } },
	{ RPT_K_TASK_NEWTASK, "task", "task_newtask", false, 1, { "pid", "comm" }, { I, S } },
	{ RPT_K_TASK_RENAME, "task", "task_rename", false, 2, { "pid", "newcomm" }, { I, S } },
	{ RPT_K_RAW_SYS_ENTER, "raw_syscalls", "sys_enter", false, 1, { "id" }, { I } },
	{ RPT_K_RAW_SYS_EXIT, "raw_syscalls", "sys_exit", false, 1, { "id", "ret" }, { I, I } },
	{ RPT_K_SYS_ENTER, "syscalls", "sys_enter_", true, 0, { "__syscall_nr" }, { I } },
	{ RPT_K_SYS_EXIT, "syscalls", "sys_exit_", true, 0, { "__syscall_nr", "ret" }, { I, I } },
	{ RPT_K_FG_ENTRY, "ftrace", "funcgraph_entry", false, 2, { "func", "depth" }, { I, I } },
	{ RPT_K_FG_EXIT, "ftrace", "funcgraph_exit", false, 2,
	  { "func", "depth", "calltime", "rettime" }, { I, I, I, I } },
	{ RPT_K_FUNCTION, "ftrace", "function", false, 1, { "ip", "parent_ip" }, { I, I } },
	{ RPT_K_KSTACK, "ftrace", "kernel_stack", false, 1, { "caller", "size" }, { A, I } },
	{ RPT_K_USTACK, "ftrace", "user_stack", false, 1, { "caller", "tgid" }, { A, I } },
	{ RPT_K_IRQ_ENTRY, "irq", "irq_handler_entry", false, 1, { "irq", "name" }, { I, S } },
	{ RPT_K_IRQ_EXIT, "irq", "irq_handler_exit", false, 1, { "irq", "", "ret" }, { I, A, I } },
	{ RPT_K_SOFTIRQ_ENTRY, "irq", "softirq_entry", false, 1, { "vec" }, { I } },
	{ RPT_K_SOFTIRQ_EXIT, "irq", "softirq_exit", false, 1, { "vec" }, { I } },
	{ RPT_K_CPU_FREQ, "power", "cpu_frequency", false, 2, { "state", "cpu_id" }, { I, I } },
	{ RPT_K_CPU_IDLE, "power", "cpu_idle", false, 2, { "state", "cpu_id" }, { I, I } },
	{ RPT_K_BPF_SYSCALL, "flytrap", "syscall", false, 2,
	  { "nr", "duration", "ret", "tgid", "start" }, { I, I, I, I, I } },
	{ RPT_K_BPF_SYSHIST, "flytrap", "syscall_hist", false, 5,
	  { "nr", "count", "total_ns", "max_ns", "slots", "tgid" }, { I, I, I, I, A, I } },
	{ RPT_K_BPF_OFFCPU, "flytrap", "offcpu", false, 1,
	  { "duration", "state", "waker_pid", "tgid", "waker_comm", "kstack", "ustack", "start",
	    "waker_tgid", "comm" },
	  { I, I, I, I, S, A, A, I, I, S } },
	{ RPT_K_BPF_PROFILE, "flytrap", "profile", false, 2, { "kstack", "ustack", "tgid", "comm" },
	  { A, A, I, S } },
	{ RPT_K_BPF_UCOPY, "flytrap", "ucopy_more", false, 2, { "offset", "ucopy" }, { I, A } },
#define UFUNC_FIELDS { "func", "depth", "duration", "flags", "start", "tgid", "ip", "ret" }, \
		     { I, I, I, I, I, I, I, I }
	{ RPT_K_BPF_UFUNC_ENTRY, "flytrap", "ufunc_entry", false, 2, UFUNC_FIELDS },
	/* an exit without its duration tells nothing */
	{ RPT_K_BPF_UFUNC_EXIT, "flytrap", "ufunc_exit", false, 3, UFUNC_FIELDS },
	{ RPT_K_BPF_KFUNC_ENTRY, "flytrap", "kfunc_entry", false, 2, UFUNC_FIELDS },
	{ RPT_K_BPF_KFUNC_EXIT, "flytrap", "kfunc_exit", false, 3, UFUNC_FIELDS },
#undef UFUNC_FIELDS
};
#undef I
#undef S
#undef A

static const char *const kind_names[RPT_K_NR] = {
	[RPT_K_OTHER] = "other",
	[RPT_K_SCHED_SWITCH] = "sched_switch",
	[RPT_K_SCHED_WAKEUP] = "sched_wakeup",
	[RPT_K_SCHED_WAKING] = "sched_waking",
	[RPT_K_PROCESS_FORK] = "sched_process_fork",
	[RPT_K_PROCESS_EXIT] = "sched_process_exit",
	[RPT_K_PROCESS_EXEC] = "sched_process_exec",
	[RPT_K_TASK_NEWTASK] = "task_newtask",
	[RPT_K_TASK_RENAME] = "task_rename",
	[RPT_K_RAW_SYS_ENTER] = "raw_sys_enter",
	[RPT_K_RAW_SYS_EXIT] = "raw_sys_exit",
	[RPT_K_SYS_ENTER] = "sys_enter",
	[RPT_K_SYS_EXIT] = "sys_exit",
	[RPT_K_FG_ENTRY] = "funcgraph_entry",
	[RPT_K_FG_EXIT] = "funcgraph_exit",
	[RPT_K_FUNCTION] = "function",
	[RPT_K_KSTACK] = "kernel_stack",
	[RPT_K_USTACK] = "user_stack",
	[RPT_K_IRQ_ENTRY] = "irq_entry",
	[RPT_K_IRQ_EXIT] = "irq_exit",
	[RPT_K_SOFTIRQ_ENTRY] = "softirq_entry",
	[RPT_K_SOFTIRQ_EXIT] = "softirq_exit",
	[RPT_K_CPU_FREQ] = "cpu_frequency",
	[RPT_K_CPU_IDLE] = "cpu_idle",
	[RPT_K_BPF_SYSCALL] = "bpf_syscall",
	[RPT_K_BPF_SYSHIST] = "bpf_syscall_hist",
	[RPT_K_BPF_OFFCPU] = "bpf_offcpu",
	[RPT_K_BPF_PROFILE] = "bpf_profile",
	[RPT_K_BPF_UCOPY] = "bpf_ucopy",
	[RPT_K_BPF_UFUNC_ENTRY] = "bpf_ufunc_entry",
	[RPT_K_BPF_UFUNC_EXIT] = "bpf_ufunc_exit",
	[RPT_K_BPF_KFUNC_ENTRY] = "bpf_kfunc_entry",
	[RPT_K_BPF_KFUNC_EXIT] = "bpf_kfunc_exit",
	[RPT_K_PROBE_ENTRY] = "probe_entry",
	[RPT_K_PROBE_RET] = "probe_return",
};

const char *rpt_kind_name(enum rpt_kind k)
{
	return k >= 0 && k < RPT_K_NR && kind_names[k] ? kind_names[k] : "other";
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a > b && !strcmp(s + a - b, suf);
}

/* Field name of e into *f if it is there and readable as type; else absent. */
static bool field(const struct tep_event *e, const char *name, int type, struct fmt_field *f)
{
	if (!name[0] || fmt_field_resolve(e, name, f))
		return false;
	if (f->size <= 0 ||
	    (type == FT_INT && (f->is_dynamic || (f->size != 1 && f->size != 2 && f->size != 4 &&
						  f->size != 8)))) {
		f->offset = -1;
		return false;
	}
	return true;
}

static void clear_fields(struct rpt_kind_info *ki)
{
	for (int i = 0; i < RPT_KIND_FIELDS; i++)
		ki->f[i].offset = -1;
}

static bool apply_rule(const struct kind_rule *r, const struct tep_event *e,
		       struct rpt_kind_info *ki)
{
	for (int i = 0; i < RPT_KIND_FIELDS && r->fields[i]; i++)
		if (!field(e, r->fields[i], r->type[i], &ki->f[i]) && i < r->nreq) {
			clear_fields(ki);
			return false;
		}
	ki->kind = r->kind;
	if (r->prefix)
		ki->arg = e->name + strlen(r->name);
	return true;
}

static bool name_matches(const struct kind_rule *r, const char *name)
{
	if (r->prefix)
		return !strncmp(name, r->name, strlen(r->name)) && name[strlen(r->name)];
	return !strcmp(name, r->name);
}

/* The probe rule of the comment at the top. */
static void probe_kind(const struct tep_event *e, struct rpt_kind_info *ki)
{
	const char *sys = e->system, *nm = e->name;

	if (field(e, "__probe_func", FT_INT, &ki->f[RPT_F_PB_IP]) &&
	    field(e, "__probe_ret_ip", FT_INT, &ki->f[RPT_F_PB_RET_IP])) {
		ki->kind = RPT_K_PROBE_RET;
	} else {
		clear_fields(ki);
		if (field(e, "__probe_ip", FT_INT, &ki->f[RPT_F_PB_IP]))
			ki->kind = RPT_K_PROBE_ENTRY;
		else if (!strncmp(sys, "flytrap_", 8) || !strcmp(sys, "uprobes")) {
			ki->kind = has_suffix(nm, "__return") || has_suffix(nm, "_ret") ||
				   (nm[0] == 'r' && nm[1] == '_' && nm[2]) ?
				   RPT_K_PROBE_RET : RPT_K_PROBE_ENTRY;
			ki->probe_by_name = true;
		}
	}
	if (ki->kind != RPT_K_OTHER)
		ki->arg = nm;
}

void rpt_kind_resolve(const struct tep_event *e, struct rpt_kind_info *ki)
{
	bool named = false;

	memset(ki, 0, sizeof(*ki));
	clear_fields(ki);
	ki->common_pid.offset = ki->tgid.offset = ki->comm.offset = -1;
	ki->uregs.offset = ki->ucopy.offset = -1;
	ki->long_size = e && e->tep ? tep_get_long_size(e->tep) : 8;
	if (!e || !e->system || !e->name)
		return;
	field(e, "common_pid", FT_INT, &ki->common_pid);
	field(e, "tgid", FT_INT, &ki->tgid);
	if (!strcmp(e->system, "flytrap")) {
		field(e, "comm", FT_STR, &ki->comm);
		/* the stack copy of --user-stack cfi|dwarf: both dynamic, or neither */
		if (!field(e, "uregs", FT_ANY, &ki->uregs) ||
		    !field(e, "ucopy", FT_ANY, &ki->ucopy) ||
		    !ki->uregs.is_dynamic || !ki->ucopy.is_dynamic)
			ki->uregs.offset = -1;
		if (!field(e, "ucopy", FT_ANY, &ki->ucopy) || !ki->ucopy.is_dynamic)
			ki->ucopy.offset = -1;
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (strcmp(e->system, rules[i].sys) || !name_matches(&rules[i], e->name))
			continue;
		named = true;
		if (apply_rule(&rules[i], e, ki))
			return;
	}
	/* a kernel tracepoint or flytrap record missing its fields is nobody's probe */
	if (!named)
		probe_kind(e, ki);
}

const char *rpt_probe_entry_name(const char *nm, char *buf, size_t len)
{
	bool r_ = nm[0] == 'r' && nm[1] == '_' && nm[2];
	size_t l;

	snprintf(buf, len, "%s%s", r_ ? "p_" : "", r_ ? nm + 2 : nm);
	l = strlen(buf);
	if (has_suffix(buf, "__return"))
		buf[l - 8] = 0;
	else if (has_suffix(buf, "_ret"))
		buf[l - 4] = 0;
	return buf;
}

/* ---- decoding ----------------------------------------------------------------------- */

static int64_t geti(const struct rpt_kind_info *ki, int slot, const void *d, int sz)
{
	return (int64_t)fmt_field_u64(&ki->f[slot], d, sz);
}

static struct rpt_str gets(const struct rpt_kind_info *ki, int slot, const void *d, int sz)
{
	struct rpt_str s = { NULL, 0 };

	s.s = fmt_field_ptr(&ki->f[slot], d, sz, &s.len);
	if (!s.s)
		s.len = 0;
	return s;
}

/*
 * Only the member of the record's kind is written, whole (absent fields
 * 0): the others are never read, and the union is larger than most kinds'
 * members, so zeroing all of it for every event would cost more than the
 * decoding.
 */
#define ZERO(m) memset(&(m), 0, sizeof(m))

/* Array field slot read as width-byte integers; see struct rpt_arr. */
static struct rpt_arr geta(const struct fmt_field *f, int width, const void *d, int sz)
{
	struct rpt_arr a = { NULL, 0, (unsigned char)width, f->big_endian };
	int len = 0;

	a.p = fmt_field_ptr(f, d, sz, &len);
	if (a.p)
		a.n = len / width;
	return a;
}

static struct rpt_bytes getb(const struct fmt_field *f, const void *d, int sz)
{
	struct rpt_bytes b = { NULL, 0 };

	b.p = fmt_field_ptr(f, d, sz, &b.len);
	if (!b.p)
		b.len = 0;
	return b;
}

/* A stack of addresses: BPF writes u64 whatever the kernel, ftrace its longs. */
static struct rpt_arr stack(const struct rpt_kind_info *ki, const struct fmt_field *f,
			    const void *d, int sz)
{
	return geta(f, f->is_dynamic ? 8 : ki->long_size == 4 ? 4 : 8, d, sz);
}

/*
 * One decoder per member of struct rpt_rec, reached through decoders[]
 * by kind: a small function per kind keeps the per-event cost to the
 * fields it reads.
 */
typedef void decoder(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r);

static void dec_switch(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->sw);
	r->sw.prev_pid = (int)geti(ki, RPT_F_SW_PREV_PID, d, sz);
	r->sw.next_pid = (int)geti(ki, RPT_F_SW_NEXT_PID, d, sz);
	r->sw.prev_prio = (int)geti(ki, RPT_F_SW_PREV_PRIO, d, sz);
	r->sw.next_prio = (int)geti(ki, RPT_F_SW_NEXT_PRIO, d, sz);
	r->sw.has_state = ki->f[RPT_F_SW_PREV_STATE].offset >= 0;
	r->sw.prev_state = geti(ki, RPT_F_SW_PREV_STATE, d, sz);
	r->sw.prev_comm = gets(ki, RPT_F_SW_PREV_COMM, d, sz);
	r->sw.next_comm = gets(ki, RPT_F_SW_NEXT_COMM, d, sz);
}

static void dec_wake(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->wake);
	r->wake.pid = (int)geti(ki, RPT_F_WK_PID, d, sz);
	r->wake.prio = (int)geti(ki, RPT_F_WK_PRIO, d, sz);
	r->wake.comm = gets(ki, RPT_F_WK_COMM, d, sz);
}

static void dec_fork(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->fork);
	r->fork.parent = (int)geti(ki, RPT_F_FORK_PARENT, d, sz);
	r->fork.child = (int)geti(ki, RPT_F_FORK_CHILD, d, sz);
	r->fork.comm = gets(ki, RPT_F_FORK_COMM, d, sz);
}

static void dec_exec(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->exec);
	r->exec.pid = (int)geti(ki, RPT_F_EXEC_PID, d, sz);
	r->exec.old_pid = ki->f[RPT_F_EXEC_OLD_PID].offset >= 0 ?
			  (int)geti(ki, RPT_F_EXEC_OLD_PID, d, sz) : r->exec.pid;
}

/* process exit, task_newtask, task_rename: pid + comm */
static void dec_task(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->task);
	r->task.pid = (int)geti(ki, RPT_F_TASK_PID, d, sz);
	r->task.comm = gets(ki, RPT_F_TASK_COMM, d, sz);
}

static void dec_sys(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->sys);
	r->sys.id = ki->f[RPT_F_SYS_ID].offset >= 0 ? (long)geti(ki, RPT_F_SYS_ID, d, sz) : -1;
	r->sys.has_ret = ki->f[RPT_F_SYS_RET].offset >= 0;
	r->sys.ret = geti(ki, RPT_F_SYS_RET, d, sz);
	r->sys.name = ki->arg;
}

static void dec_fg(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->fg);
	r->fg.func = (uint64_t)geti(ki, RPT_F_FG_FUNC, d, sz);
	r->fg.depth = (int)geti(ki, RPT_F_FG_DEPTH, d, sz);
	r->fg.calltime = (uint64_t)geti(ki, RPT_F_FG_CALLTIME, d, sz);
	r->fg.rettime = (uint64_t)geti(ki, RPT_F_FG_RETTIME, d, sz);
	r->fg.has_times = ki->f[RPT_F_FG_CALLTIME].offset >= 0 &&
			  ki->f[RPT_F_FG_RETTIME].offset >= 0;
}

static void dec_fn(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->fn);
	r->fn.ip = (uint64_t)geti(ki, RPT_F_FN_IP, d, sz);
	r->fn.parent = (uint64_t)geti(ki, RPT_F_FN_PARENT, d, sz);
}

static void dec_probe(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->probe);
	r->probe.ip = (uint64_t)geti(ki, RPT_F_PB_IP, d, sz);
	r->probe.ret_ip = (uint64_t)geti(ki, RPT_F_PB_RET_IP, d, sz);
}

/* flytrap ufunc/kfunc entry and exit */
static void dec_bfunc(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->bfunc);
	r->bfunc.func = (uint64_t)geti(ki, RPT_F_UF_FUNC, d, sz);
	r->bfunc.depth = (int)geti(ki, RPT_F_UF_DEPTH, d, sz);
	r->bfunc.duration = (uint64_t)geti(ki, RPT_F_UF_DURATION, d, sz);
	r->bfunc.flags = (uint64_t)geti(ki, RPT_F_UF_FLAGS, d, sz);
	r->bfunc.start = (uint64_t)geti(ki, RPT_F_UF_START, d, sz);
	r->bfunc.tgid = (int)geti(ki, RPT_F_UF_TGID, d, sz);
	r->bfunc.ip = (uint64_t)geti(ki, RPT_F_UF_IP, d, sz);
	r->bfunc.ret = geti(ki, RPT_F_UF_RET, d, sz);
}

static void dec_irq(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->irq);
	r->irq.nr = (int)geti(ki, RPT_F_IRQ_NR, d, sz);
	r->irq.ret = (int)geti(ki, RPT_F_IRQ_RET, d, sz);
	r->irq.name = gets(ki, RPT_F_IRQ_NAME, d, sz);
}

static void dec_pw(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->pw);
	r->pw.state = (uint32_t)geti(ki, RPT_F_PW_STATE, d, sz);
	r->pw.cpu = (uint32_t)geti(ki, RPT_F_PW_CPU, d, sz);
}

static void dec_bsys(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->bsys);
	r->bsys.nr = (long)geti(ki, RPT_F_BS_NR, d, sz);
	r->bsys.duration = (uint64_t)geti(ki, RPT_F_BS_DURATION, d, sz);
	r->bsys.ret = geti(ki, RPT_F_BS_RET, d, sz);
	r->bsys.has_ret = ki->f[RPT_F_BS_RET].offset >= 0;
	r->bsys.tgid = (int)geti(ki, RPT_F_BS_TGID, d, sz);
	r->bsys.start = (uint64_t)geti(ki, RPT_F_BS_START, d, sz);
}

static void dec_hist(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->hist);
	r->hist.nr = (int)geti(ki, RPT_F_BH_NR, d, sz);
	r->hist.tgid = (int)geti(ki, RPT_F_BH_TGID, d, sz);
	r->hist.count = (uint64_t)geti(ki, RPT_F_BH_COUNT, d, sz);
	r->hist.total = (uint64_t)geti(ki, RPT_F_BH_TOTAL, d, sz);
	r->hist.max = (uint64_t)geti(ki, RPT_F_BH_MAX, d, sz);
	/* the program's slots are u64 on any kernel */
	r->hist.slots = geta(&ki->f[RPT_F_BH_SLOTS], 8, d, sz);
}

static void dec_ucopy(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->ucopy);
	r->ucopy.offset = (uint32_t)geti(ki, RPT_F_UC_OFFSET, d, sz);
	r->ucopy.has_copy = ki->f[RPT_F_UC_UCOPY].is_dynamic;
	r->ucopy.copy = getb(&ki->f[RPT_F_UC_UCOPY], d, sz);
}

static void dec_kstack(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	struct fmt_field f = ki->f[RPT_F_KS_CALLER];

	ZERO(r->stk);
	/* the kernel writes size entries into a caller[] its format declares [8] */
	if (!f.is_dynamic && f.offset >= 0 && f.offset < sz)
		f.size = sz - f.offset;
	r->stk.caller = stack(ki, &f, d, sz);
	r->stk.size = geti(ki, RPT_F_KS_SIZE, d, sz);
	if (r->stk.size > 0 && r->stk.size < r->stk.caller.n)
		r->stk.caller.n = (int)r->stk.size;
}

static void dec_ustack(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	ZERO(r->stk);
	r->stk.caller = stack(ki, &ki->f[RPT_F_US_CALLER], d, sz);
	r->stk.tgid = (int)geti(ki, RPT_F_US_TGID, d, sz);
}

/* flytrap:profile and flytrap:offcpu: the stacks of a sample or of a blocked period */
static void dec_samples(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	bool off = ki->kind == RPT_K_BPF_OFFCPU;
	int ks = off ? RPT_F_OC_KSTACK : RPT_F_PR_KSTACK;
	int us = off ? RPT_F_OC_USTACK : RPT_F_PR_USTACK;
	int tg = off ? RPT_F_OC_TGID : RPT_F_PR_TGID, cm = off ? RPT_F_OC_COMM : RPT_F_PR_COMM;

	ZERO(r->smp);
	r->smp.kstack = stack(ki, &ki->f[ks], d, sz);
	r->smp.ustack = stack(ki, &ki->f[us], d, sz);
	r->smp.has_stacks = ki->f[ks].offset >= 0 && ki->f[us].offset >= 0;
	r->smp.has_tgid = ki->f[tg].offset >= 0;
	r->smp.tgid = (int)geti(ki, tg, d, sz);
	r->smp.comm = gets(ki, cm, d, sz);
	r->smp.has_copy = ki->uregs.offset >= 0;
	r->smp.uregs = getb(&ki->uregs, d, sz);
	r->smp.ucopy = getb(&ki->ucopy, d, sz);
	if (!off)
		return;
	r->smp.duration = (uint64_t)geti(ki, RPT_F_OC_DURATION, d, sz);
	r->smp.start = (uint64_t)geti(ki, RPT_F_OC_START, d, sz);
	r->smp.state = (uint64_t)geti(ki, RPT_F_OC_STATE, d, sz);
	r->smp.waker_pid = (int)geti(ki, RPT_F_OC_WAKER_PID, d, sz);
	r->smp.waker_tgid = (int)geti(ki, RPT_F_OC_WAKER_TGID, d, sz);
	r->smp.waker_comm = gets(ki, RPT_F_OC_WAKER_COMM, d, sz);
}

/* the member each kind decodes into (none for RPT_K_OTHER) */
static decoder *const decoders[RPT_K_NR] = {
	[RPT_K_SCHED_SWITCH] = dec_switch,
	[RPT_K_SCHED_WAKEUP] = dec_wake,
	[RPT_K_SCHED_WAKING] = dec_wake,
	[RPT_K_PROCESS_FORK] = dec_fork,
	[RPT_K_PROCESS_EXIT] = dec_task,
	[RPT_K_PROCESS_EXEC] = dec_exec,
	[RPT_K_TASK_NEWTASK] = dec_task,
	[RPT_K_TASK_RENAME] = dec_task,
	[RPT_K_RAW_SYS_ENTER] = dec_sys,
	[RPT_K_RAW_SYS_EXIT] = dec_sys,
	[RPT_K_SYS_ENTER] = dec_sys,
	[RPT_K_SYS_EXIT] = dec_sys,
	[RPT_K_FG_ENTRY] = dec_fg,
	[RPT_K_FG_EXIT] = dec_fg,
	[RPT_K_FUNCTION] = dec_fn,
	[RPT_K_KSTACK] = dec_kstack,
	[RPT_K_USTACK] = dec_ustack,
	[RPT_K_IRQ_ENTRY] = dec_irq,
	[RPT_K_IRQ_EXIT] = dec_irq,
	[RPT_K_SOFTIRQ_ENTRY] = dec_irq,
	[RPT_K_SOFTIRQ_EXIT] = dec_irq,
	[RPT_K_CPU_FREQ] = dec_pw,
	[RPT_K_CPU_IDLE] = dec_pw,
	[RPT_K_BPF_SYSCALL] = dec_bsys,
	[RPT_K_BPF_SYSHIST] = dec_hist,
	[RPT_K_BPF_OFFCPU] = dec_samples,
	[RPT_K_BPF_PROFILE] = dec_samples,
	[RPT_K_BPF_UCOPY] = dec_ucopy,
	[RPT_K_BPF_UFUNC_ENTRY] = dec_bfunc,
	[RPT_K_BPF_UFUNC_EXIT] = dec_bfunc,
	[RPT_K_BPF_KFUNC_ENTRY] = dec_bfunc,
	[RPT_K_BPF_KFUNC_EXIT] = dec_bfunc,
	[RPT_K_PROBE_ENTRY] = dec_probe,
	[RPT_K_PROBE_RET] = dec_probe,
};

void rpt_rec_decode(const struct rpt_kind_info *ki, const void *d, int sz, struct rpt_rec *r)
{
	const struct fmt_field *cp = &ki->common_pid;

	r->kind = ki->kind;
	r->pid = cp->offset >= 0 && cp->offset + cp->size <= sz ?
		 (int)fmt_field_u64(cp, d, sz) : -1;
	if (ki->kind > RPT_K_OTHER && ki->kind < RPT_K_NR && decoders[ki->kind])
		decoders[ki->kind](ki, d, sz, r);
}
