// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel function tracing: entry and return of up to FT_KFUNC_MAX kernel
 * functions, with a per-thread stack that pairs returns with entries
 * (depth, duration), like ufunc.bpf.c does for user functions.
 *
 * Two ways in, same records.  The recorder loads the fentry/fexit pairs
 * first (BPF trampolines called straight from the function's ftrace
 * site: no breakpoint, no pt_regs, the cheapest hook the kernel has);
 * where the kernel refuses them it loads this object again with only the
 * kprobe/kretprobe pair, attached once per function with the function's
 * index as cookie.  One object for both so that the record code is one.
 */
#include "ftcommon.bpf.h"
#include "kfunc.h"

/* Address of each traced function (kallsyms), written into entry records. */
const volatile __u64 ft_kfunc_ip[FT_KFUNC_MAX] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct ft_kfunc_stack);
} ft_kfunc_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_kfunc_stack);
} ft_kfunc_zero SEC(".maps");

/*
 * The stack of a thread.  Every CPU's idle task is pid 0, and a traced
 * function called from an interrupt on an idle CPU runs "in" it: those
 * get one stack per CPU (keys above any pid: PID_MAX_LIMIT is 2^22).
 */
static __always_inline __u32 stack_key(__u32 tid)
{
	return tid ? tid : 0x80000000u | bpf_get_smp_processor_id();
}

static __always_inline int on_entry(__u32 func)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = stack_key((__u32)pid_tgid), zk = 0, d;
	__u64 now = bpf_ktime_get_ns();
	struct ft_kfunc_stack *s;
	struct ft_kentry_rec *r;

	func &= FT_KFUNC_MAX - 1;
	if (!ft_wanted(pid_tgid >> 32))
		return 0;
	s = bpf_map_lookup_elem(&ft_kfunc_stacks, &tid);
	if (!s) {
		struct ft_kfunc_stack *z = bpf_map_lookup_elem(&ft_kfunc_zero, &zk);

		if (!z)
			return 0;
		if (bpf_map_update_elem(&ft_kfunc_stacks, &tid, z, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&ft_kfunc_stacks, &tid)) {
			ft_count(FT_SLOT_KFUNC, FT_ST_MAPFULL);
			return 0;
		}
		s = bpf_map_lookup_elem(&ft_kfunc_stacks, &tid);
		if (!s)
			return 0;
	}
	d = s->depth;
	if (d < FT_KFUNC_DEPTH) {
		s->ts[d] = now;
		s->func[d] = func;
	}
	s->depth = d + 1;

	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r), 0);
	if (!r) {
		ft_count(FT_SLOT_KFUNC, FT_ST_DROPS);
		return 0;
	}
	ft_fill_hdr(&r->h, FT_K_KENTRY, sizeof(*r), now, pid_tgid);
	r->ev.tgid = pid_tgid >> 32;
	r->ev.func = func;
	r->ev.depth = d + 1;
	r->ev.pad = 0;
	r->ev.ip = ft_kfunc_ip[func];
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r), true));
	ft_count(FT_SLOT_KFUNC, FT_ST_EMITTED);
	return 0;
}

static __always_inline int on_exit(__u32 func, __u64 ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = stack_key((__u32)pid_tgid), d = 0, flags = 0;
	__u64 now = bpf_ktime_get_ns(), start = 0;
	struct ft_kfunc_stack *s;
	struct ft_kexit_rec *r;

	func &= FT_KFUNC_MAX - 1;
	if (!ft_wanted(pid_tgid >> 32))
		return 0;
	s = bpf_map_lookup_elem(&ft_kfunc_stacks, &tid);
	if (!s || s->depth == 0) {
		flags = FT_UEXIT_NOENTRY;
	} else {
		d = s->depth;
		if (d <= FT_KFUNC_DEPTH) {
			start = s->ts[(d - 1) & (FT_KFUNC_DEPTH - 1)];
			if (s->func[(d - 1) & (FT_KFUNC_DEPTH - 1)] != func)
				flags = FT_UEXIT_MISMATCH;
		} else {
			flags = FT_UEXIT_NOENTRY;
		}
		s->depth = d - 1;
		if (d == 1)
			bpf_map_delete_elem(&ft_kfunc_stacks, &tid);
	}

	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r), 0);
	if (!r) {
		ft_count(FT_SLOT_KFUNC, FT_ST_DROPS);
		return 0;
	}
	ft_fill_hdr(&r->h, FT_K_KEXIT, sizeof(*r), now, pid_tgid);
	r->ev.tgid = pid_tgid >> 32;
	r->ev.func = func;
	r->ev.depth = d;
	r->ev.flags = flags;
	r->ev.start = start;
	r->ev.duration = start ? now - start : 0;
	r->ev.ret = ret;
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r), true));
	ft_count(FT_SLOT_KFUNC, FT_ST_EMITTED);
	return 0;
}

/*
 * One fentry/fexit pair per function slot; the recorder gives each used
 * slot its target (bpf_program__set_attach_target) and leaves the others
 * unloaded.  bpf_get_func_ret() reads the return value whatever the
 * function's argument count (Linux 5.17+; older kernels fail the load and
 * get kprobes).
 */
#define FT_KFUNC_PAIR(i)						\
	SEC("fentry")							\
	int ft_kentry##i(void *ctx)					\
	{								\
		return on_entry(i);					\
	}								\
	SEC("fexit")							\
	int ft_kexit##i(void *ctx)					\
	{								\
		__u64 ret = 0;						\
									\
		bpf_get_func_ret(ctx, &ret);				\
		return on_exit(i, ret);					\
	}

FT_KFUNC_PAIR(0)
FT_KFUNC_PAIR(1)
FT_KFUNC_PAIR(2)
FT_KFUNC_PAIR(3)
FT_KFUNC_PAIR(4)
FT_KFUNC_PAIR(5)
FT_KFUNC_PAIR(6)
FT_KFUNC_PAIR(7)
_Static_assert(FT_KFUNC_MAX == 8, "one FT_KFUNC_PAIR per slot");

SEC("kprobe")
int ft_kprobe(struct pt_regs *ctx)
{
	return on_entry(bpf_get_attach_cookie(ctx));
}

SEC("kretprobe")
int ft_kretprobe(struct pt_regs *ctx)
{
	return on_exit(bpf_get_attach_cookie(ctx), PT_REGS_RC(ctx));
}

/* a thread that exits inside traced functions never returns from them */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ft_kfunc_task_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&ft_kfunc_stacks, &tid);
	return 0;
}
