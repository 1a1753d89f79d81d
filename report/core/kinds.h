/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an event is: one table (report/core/kinds.c) says which event formats
 * are a sched_switch, a syscall entry, a function_graph exit, a uprobe...,
 * and which fields each kind carries.  The replay resolves every event id
 * against it once (rpt_kind_resolve) and, for the kinds some running
 * analyzer asked for, decodes each record into a struct rpt_rec
 * (rpt_rec_decode).  Analyzers never match event names themselves.
 */
#ifndef FLYTRAP_REPORT_KINDS_H
#define FLYTRAP_REPORT_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"

enum rpt_kind {
	RPT_K_OTHER = 0,	/* none of the below (or a required field is missing) */
	RPT_K_SCHED_SWITCH,	/* sched:sched_switch */
	RPT_K_SCHED_WAKEUP,	/* sched:sched_wakeup, sched:sched_wakeup_new */
	RPT_K_SCHED_WAKING,	/* sched:sched_waking */
	RPT_K_PROCESS_FORK,	/* sched:sched_process_fork */
	RPT_K_PROCESS_EXIT,	/* sched:sched_process_exit */
	RPT_K_TASK_NEWTASK,	/* task:task_newtask */
	RPT_K_TASK_RENAME,	/* task:task_rename */
	RPT_K_RAW_SYS_ENTER,	/* raw_syscalls:sys_enter */
	RPT_K_RAW_SYS_EXIT,	/* raw_syscalls:sys_exit */
	RPT_K_SYS_ENTER,	/* syscalls:sys_enter_NAME */
	RPT_K_SYS_EXIT,		/* syscalls:sys_exit_NAME */
	RPT_K_FG_ENTRY,		/* ftrace:funcgraph_entry */
	RPT_K_FG_EXIT,		/* ftrace:funcgraph_exit */
	RPT_K_FUNCTION,		/* ftrace:function */
	RPT_K_KSTACK,		/* ftrace:kernel_stack */
	RPT_K_USTACK,		/* ftrace:user_stack */
	RPT_K_IRQ_ENTRY,	/* irq:irq_handler_entry */
	RPT_K_IRQ_EXIT,		/* irq:irq_handler_exit */
	RPT_K_SOFTIRQ_ENTRY,	/* irq:softirq_entry */
	RPT_K_SOFTIRQ_EXIT,	/* irq:softirq_exit */
	RPT_K_CPU_FREQ,		/* power:cpu_frequency */
	RPT_K_CPU_IDLE,		/* power:cpu_idle */
	RPT_K_BPF_SYSCALL,	/* flytrap:syscall: one completed call */
	RPT_K_BPF_SYSHIST,	/* flytrap:syscall_hist */
	RPT_K_BPF_OFFCPU,	/* flytrap:offcpu */
	RPT_K_BPF_PROFILE,	/* flytrap:profile */
	RPT_K_BPF_UCOPY,	/* flytrap:ucopy_more */
	RPT_K_BPF_UFUNC_ENTRY,	/* flytrap:ufunc_entry */
	RPT_K_BPF_UFUNC_EXIT,	/* flytrap:ufunc_exit */
	RPT_K_BPF_KFUNC_ENTRY,	/* flytrap:kfunc_entry (the ufunc layout) */
	RPT_K_BPF_KFUNC_EXIT,	/* flytrap:kfunc_exit */
	RPT_K_PROBE_ENTRY,	/* uprobe/kprobe, any system: __probe_ip, or by name */
	RPT_K_PROBE_RET,	/* uretprobe/kretprobe: __probe_func + __probe_ret_ip, or by name */
	RPT_K_PROCESS_EXEC,	/* sched:sched_process_exec */
	RPT_K_NR
};

#define RPT_KIND_BIT(k) (1ULL << (k))

/*
 * An analyzer lists the kinds it reads once, as X(KIND, ITS_OWN_KIND)
 * pairs in a macro, and makes both its table (kind -> its own kind) and
 * its .kinds mask from that one list, so the two cannot disagree:
 *   #define MY_KIND_LIST(X) X(SCHED_SWITCH, MK_SWITCH) X(SYS_ENTER, MK_ENTER)
 *   static const unsigned char my_kind_of[RPT_K_NR] = { MY_KIND_LIST(RPT_KIND_ENTRY) };
 *   .kinds = 0 MY_KIND_LIST(RPT_KIND_MASK),
 */
#define RPT_KIND_ENTRY(k, mine) [RPT_K_##k] = (mine),
#define RPT_KIND_MASK(k, mine) | RPT_KIND_BIT(RPT_K_##k)

/*
 * Field slots of struct rpt_kind_info.f, per kind, in the order of the
 * rule table's field names.  Slots past a kind's list stay absent.
 */
enum {
	RPT_F_SW_PREV_PID = 0, RPT_F_SW_NEXT_PID, RPT_F_SW_PREV_COMM, RPT_F_SW_NEXT_COMM,
	RPT_F_SW_PREV_STATE, RPT_F_SW_PREV_PRIO, RPT_F_SW_NEXT_PRIO,
};
enum { RPT_F_WK_PID = 0, RPT_F_WK_COMM, RPT_F_WK_PRIO };
enum { RPT_F_FORK_PARENT = 0, RPT_F_FORK_CHILD, RPT_F_FORK_COMM };
enum { RPT_F_EXIT_PID = 0, RPT_F_EXIT_COMM };
enum { RPT_F_EXEC_PID = 0, RPT_F_EXEC_OLD_PID };
enum { RPT_F_TASK_PID = 0, RPT_F_TASK_COMM };	/* task_newtask: comm; task_rename: newcomm */
enum { RPT_F_SYS_ID = 0, RPT_F_SYS_RET };	/* id (raw) or __syscall_nr (named) */
enum { RPT_F_FG_FUNC = 0, RPT_F_FG_DEPTH, RPT_F_FG_CALLTIME, RPT_F_FG_RETTIME };
enum { RPT_F_FN_IP = 0, RPT_F_FN_PARENT };
enum { RPT_F_KS_CALLER = 0, RPT_F_KS_SIZE };
enum { RPT_F_US_CALLER = 0, RPT_F_US_TGID };
enum { RPT_F_IRQ_NR = 0, RPT_F_IRQ_NAME, RPT_F_IRQ_RET };	/* irq, or vec for softirqs */
enum { RPT_F_PW_STATE = 0, RPT_F_PW_CPU };
enum { RPT_F_BS_NR = 0, RPT_F_BS_DURATION, RPT_F_BS_RET, RPT_F_BS_TGID, RPT_F_BS_START };
enum {
	RPT_F_BH_NR = 0, RPT_F_BH_COUNT, RPT_F_BH_TOTAL, RPT_F_BH_MAX, RPT_F_BH_SLOTS,
	RPT_F_BH_TGID,
};
enum {
	RPT_F_OC_DURATION = 0, RPT_F_OC_STATE, RPT_F_OC_WAKER_PID, RPT_F_OC_TGID,
	RPT_F_OC_WAKER_COMM, RPT_F_OC_KSTACK, RPT_F_OC_USTACK, RPT_F_OC_START,
	RPT_F_OC_WAKER_TGID, RPT_F_OC_COMM,
};
enum { RPT_F_PR_KSTACK = 0, RPT_F_PR_USTACK, RPT_F_PR_TGID, RPT_F_PR_COMM };
enum { RPT_F_UC_OFFSET = 0, RPT_F_UC_UCOPY };
enum {
	RPT_F_UF_FUNC = 0, RPT_F_UF_DEPTH, RPT_F_UF_DURATION, RPT_F_UF_FLAGS, RPT_F_UF_START,
	RPT_F_UF_TGID, RPT_F_UF_IP, RPT_F_UF_RET,
};
/* entry: __probe_ip; return: __probe_func, __probe_ret_ip */
enum { RPT_F_PB_IP = 0, RPT_F_PB_RET_IP };

#define RPT_KIND_FIELDS 10

/* One event id, resolved once: its kind and the offsets of its fields. */
struct rpt_kind_info {
	enum rpt_kind kind;
	/*
	 * syscalls:sys_enter_NAME/sys_exit_NAME: NAME; probes: the event
	 * name; otherwise NULL.  Points into the event format (lives as long
	 * as the tep handle).
	 */
	const char *arg;
	bool probe_by_name;		/* a probe known by its name only (no __probe_* fields) */
	struct fmt_field f[RPT_KIND_FIELDS];
	/*
	 * Bytes of the kernel's long, the entry width of ftrace's caller[]
	 * arrays: the tep handle's from rpt_kind_resolve, which the replay
	 * replaces by the file's own (its header page's) so every analyzer
	 * reads the arrays the same way.
	 */
	int long_size;
	/* fields any event may carry, resolved for every id */
	struct fmt_field common_pid, tgid, comm;
	/* flytrap records of --user-stack cfi|dwarf (dynamic fields only) */
	struct fmt_field uregs, ucopy;
};

/*
 * Resolve event format e (NULL: unknown id, RPT_K_OTHER) against the rule
 * table into *ki.  Never fails; every field absent from e is offset -1.
 */
void rpt_kind_resolve(const struct tep_event *e, struct rpt_kind_info *ki);
/* "sched_switch", ..., for messages and tests; "other" for RPT_K_OTHER. */
const char *rpt_kind_name(enum rpt_kind k);
/* true for the kinds that come in an entry/return pair of a probe. */
static inline bool rpt_kind_is_probe(enum rpt_kind k)
{
	return k == RPT_K_PROBE_ENTRY || k == RPT_K_PROBE_RET;
}

/* A string field of a record: pointer into the record and length, NULL/0 when absent. */
struct rpt_str {
	const char *s;
	int len;
};

/* A byte array field of a record (registers, a stack copy): NULL/0 when absent. */
struct rpt_bytes {
	const uint8_t *p;
	int len;
};

/*
 * An array field of a record read as integers (stack addresses, histogram
 * slots): n entries of width bytes at p, in the file's byte order (read
 * them with rpt_arr_at).  p NULL and n 0 when absent or out of the record;
 * p set with n 0 when the field is there but holds less than one entry.
 */
struct rpt_arr {
	const uint8_t *p;
	int n;
	unsigned char width;	/* 4 or 8 */
	bool big_endian;
};

/* Entry i (< a->n) of a, in host order. */
static inline uint64_t rpt_arr_at(const struct rpt_arr *a, int i)
{
	return fmt_read_num(a->p + (size_t)i * a->width, a->width,
			    a->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
}

/*
 * One event decoded by its kind.  Integers of absent or cut fields read 0
 * and strings NULL: the decoder never reads past the record.  Only the
 * member of the union that kind names is written.
 */
struct rpt_rec {
	enum rpt_kind kind;
	int pid;			/* common_pid, -1 when the record is too short */
	union {
		struct {
			int prev_pid, next_pid, prev_prio, next_prio;
			int64_t prev_state;
			bool has_state;
			struct rpt_str prev_comm, next_comm;
		} sw;			/* RPT_K_SCHED_SWITCH */
		struct {
			int pid, prio;
			struct rpt_str comm;
		} wake;			/* RPT_K_SCHED_WAKEUP, _WAKING */
		struct {
			int parent, child;
			struct rpt_str comm;
		} fork;			/* RPT_K_PROCESS_FORK */
		struct {
			int pid;
			struct rpt_str comm;
		} task;			/* _PROCESS_EXIT, _TASK_NEWTASK, _TASK_RENAME */
		struct {
			int pid, old_pid;	/* the process's pid now, the exec'ing thread's */
		} exec;			/* RPT_K_PROCESS_EXEC */
		struct {
			long id;	/* -1: a named event without __syscall_nr */
			int64_t ret;
			bool has_ret;
			const char *name;	/* syscalls:sys_*_NAME: NAME, else NULL */
		} sys;			/* RPT_K_RAW_SYS_*, RPT_K_SYS_* */
		struct {
			uint64_t func, calltime, rettime;
			int depth;
			bool has_times;	/* exit: calltime and rettime both in the format */
		} fg;			/* RPT_K_FG_ENTRY, _FG_EXIT */
		struct {
			uint64_t ip, parent;
		} fn;			/* RPT_K_FUNCTION */
		struct {
			int nr;		/* irq or softirq vector */
			int ret;
			struct rpt_str name;
		} irq;			/* RPT_K_IRQ_*, RPT_K_SOFTIRQ_* */
		struct {
			uint32_t state, cpu;
		} pw;			/* RPT_K_CPU_FREQ, _CPU_IDLE */
		struct {
			long nr;
			int64_t ret;
			uint64_t duration, start;
			int tgid;
			bool has_ret;	/* the format has ret */
		} bsys;			/* RPT_K_BPF_SYSCALL */
		struct {
			uint64_t func, duration, flags, start, ip;
			int64_t ret;
			int depth, tgid;
		} bfunc;		/* RPT_K_BPF_[UK]FUNC_* */
		struct {
			uint64_t ip;	/* entry: __probe_ip; return: __probe_func */
			uint64_t ret_ip;	/* return: __probe_ret_ip */
		} probe;		/* RPT_K_PROBE_* */
		struct {
			/*
			 * kernel_stack: caller[] runs to the end of the record
			 * (declared [8], written with size entries) and is cut
			 * to size entries when size is positive
			 */
			struct rpt_arr caller;
			int64_t size;	/* kernel_stack: entries (some kernels: bytes) */
			int tgid;	/* user_stack */
		} stk;			/* RPT_K_KSTACK, RPT_K_USTACK */
		struct {
			/* kstack and ustack: u64 entries as __data_loc, longs as fixed arrays */
			struct rpt_arr kstack, ustack;
			bool has_stacks;	/* the format has both */
			bool has_tgid;		/* the format has tgid (it may still read 0) */
			int tgid;
			struct rpt_str comm;
			/* --user-stack cfi|dwarf: registers and stack copy, in the format or not */
			bool has_copy;
			struct rpt_bytes uregs, ucopy;
			/* flytrap:offcpu only */
			uint64_t duration, start, state;
			int waker_pid, waker_tgid;
			struct rpt_str waker_comm;
		} smp;			/* RPT_K_BPF_PROFILE, RPT_K_BPF_OFFCPU */
		struct {
			uint32_t offset;	/* where in the whole copy this part goes */
			struct rpt_bytes copy;
			bool has_copy;		/* the format's ucopy is a __data_loc array */
		} ucopy;		/* RPT_K_BPF_UCOPY */
		struct {
			int nr, tgid;
			uint64_t count, total, max;
			struct rpt_arr slots;	/* u64 counts of log2 buckets */
		} hist;			/* RPT_K_BPF_SYSHIST */
	};
};

/*
 * Decode the record data[0, size) of an event whose id resolved to *ki.
 * Kinds without a typed view (RPT_K_OTHER) get kind and pid only.
 */
void rpt_rec_decode(const struct rpt_kind_info *ki, const void *data, int size, struct rpt_rec *r);

/*
 * The entry name a probe return is paired with by name when no address
 * pairs it: NAME__return, NAME_ret -> NAME; r_NAME -> p_NAME.  Into buf.
 */
const char *rpt_probe_entry_name(const char *ret_name, char *buf, size_t len);

#endif
