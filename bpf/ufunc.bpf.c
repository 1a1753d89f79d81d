// SPDX-License-Identifier: GPL-2.0-only
/*
 * User function tracing: the same two programs are attached as uprobe and
 * uretprobe to every matched function; the attach cookie is the function's
 * index in the recorder's table.  A per-thread stack pairs returns with
 * entries to give durations and depths.
 */
#include "ftcommon.bpf.h"
#include "ufunc.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct ft_ufunc_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_ufunc_stack);
} zero_stack SEC(".maps");

SEC("uprobe")
int BPF_KPROBE(ft_uentry)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, zk = 0, func = bpf_get_attach_cookie(ctx), d;
	__u64 now = bpf_ktime_get_ns();
	struct ft_ufunc_stack *s;
	struct ft_uentry_rec *r;

	if (!ft_wanted(pid_tgid >> 32))
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s) {
		struct ft_ufunc_stack *z = bpf_map_lookup_elem(&zero_stack, &zk);

		if (!z)
			return 0;
		if (bpf_map_update_elem(&stacks, &tid, z, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&stacks, &tid)) {
			ft_count(FT_SLOT_UFUNC, FT_ST_MAPFULL);
			return 0;
		}
		s = bpf_map_lookup_elem(&stacks, &tid);
		if (!s)
			return 0;
	}
	d = s->depth;
	if (d < FT_UFUNC_DEPTH) {
		s->ts[d] = now;
		s->func[d] = func;
	}
	s->depth = d + 1;

	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r), 0);
	if (!r) {
		ft_count(FT_SLOT_UFUNC, FT_ST_DROPS);
		return 0;
	}
	ft_fill_hdr(&r->h, FT_K_UENTRY, sizeof(*r), now, pid_tgid);
	r->ev.tgid = pid_tgid >> 32;
	r->ev.func = func;
	r->ev.depth = d + 1;
	r->ev.pad = 0;
	r->ev.ip = PT_REGS_IP(ctx);
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r), true));
	ft_count(FT_SLOT_UFUNC, FT_ST_EMITTED);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(ft_uexit)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, func = bpf_get_attach_cookie(ctx), d = 0, flags = 0;
	__u64 now = bpf_ktime_get_ns(), start = 0;
	struct ft_ufunc_stack *s;
	struct ft_uexit_rec *r;

	if (!ft_wanted(pid_tgid >> 32))
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s || s->depth == 0) {
		flags = FT_UEXIT_NOENTRY;
	} else {
		d = s->depth;
		if (d <= FT_UFUNC_DEPTH) {
			start = s->ts[(d - 1) & (FT_UFUNC_DEPTH - 1)];
			if (s->func[(d - 1) & (FT_UFUNC_DEPTH - 1)] != func)
				flags = FT_UEXIT_MISMATCH;
		} else {
			flags = FT_UEXIT_NOENTRY;
		}
		s->depth = d - 1;
		if (d == 1)
			bpf_map_delete_elem(&stacks, &tid);
	}

	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r), 0);
	if (!r) {
		ft_count(FT_SLOT_UFUNC, FT_ST_DROPS);
		return 0;
	}
	ft_fill_hdr(&r->h, FT_K_UEXIT, sizeof(*r), now, pid_tgid);
	r->ev.tgid = pid_tgid >> 32;
	r->ev.func = func;
	r->ev.depth = d;
	r->ev.flags = flags;
	r->ev.start = start;
	r->ev.duration = start ? now - start : 0;
	r->ev.ret = PT_REGS_RC(ctx);
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r), true));
	ft_count(FT_SLOT_UFUNC, FT_ST_EMITTED);
	return 0;
}

/* a thread that exits inside traced functions never returns from them */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ft_ufunc_task_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&stacks, &tid);
	return 0;
}
