// SPDX-License-Identifier: GPL-2.0-only
/*
 * Off-CPU time: at switch-out remember when and where (kernel + user stack)
 * a thread stopped running, note who woke it, and at switch-in emit one
 * flytrap:offcpu record with the blocked duration.
 */
#include "ftcommon.bpf.h"
#include "offcpu.h"
#include "ustack.bpf.h"

const volatile __u64 min_ns = 0;

/* --trigger offcpu>DUR: a block of trig_ns or longer raises trig_hits (read via .bss). */
const volatile __u64 trig_ns = 0;
__u64 trig_hits = 0;
__u64 trig_ts = 0;
__u64 trig_dur = 0;
__s32 trig_tid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct ft_offcpu_state);
} blocked SEC(".maps");

/*
 * --user-stack cfi|dwarf: registers and stack copy per blocked thread
 * (struct ft_ucopy; value size sizeof(struct ft_ucopy) + ft_ucopy_len +
 * FT_UCOPY_SLACK, set by the recorder).  Not preallocated: memory for the
 * threads blocked now, not for every possible entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ft_ucopy) + FT_UCOPY_SLACK);
} ucopies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ft_ucopy) + FT_UCOPY_SLACK);
} uscratch SEC(".maps");

/* Scratch for building a state (too big for the 512-byte BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_offcpu_state);
} scratch SEC(".maps");

/* at the switch-out of tid (current): its user registers and the top of its stack */
static __always_inline void save_ucopy(__u32 tid)
{
	__u32 zk = 0;
	struct ft_ucopy *u = bpf_map_lookup_elem(&uscratch, &zk);

	if (!u)
		return;
	ft_user_regs(u->regs);
	u->len = ft_copy_user_stack(u->data, u->regs[1]);
	u->pad = 0;
	if (bpf_map_update_elem(&ucopies, &tid, u, BPF_ANY))
		ft_count(FT_SLOT_OFFCPU, FT_ST_MAPFULL);
}

/* into the record of tid's switch-in: what save_ucopy kept (r has ft_ucopy_len bytes of room) */
static __always_inline void take_ucopy(struct ft_offcpu_rec *r, __u32 tid)
{
	struct ft_ucopy *u;
	__u32 len;

	r->ucopy = 0;
	r->regs[0] = r->regs[1] = r->regs[2] = r->regs[3] = 0;
	if (!ft_ucopy_len)
		return;
	u = bpf_map_lookup_elem(&ucopies, &tid);
	if (!u)
		return;
	len = u->len;
	if (len > ft_ucopy_len)
		len = ft_ucopy_len;
	__builtin_memcpy(r->regs, u->regs, sizeof(r->regs));
	if (len && !bpf_probe_read_kernel(r->copy, len, u->data))
		r->ucopy = len;
	bpf_map_delete_elem(&ucopies, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ft_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 zk = 0, prev_tid = prev->pid, next_tid = next->pid;
	__s32 prev_tgid = prev->tgid;
	struct ft_offcpu_state *st;
	struct ft_offcpu_rec *r;
	__u64 now = bpf_ktime_get_ns();
	long n;

	/* a dying task (TASK_DEAD) never comes back: no state to keep */
	if (prev_tid && !(prev_state & 0x80) && ft_wanted(prev_tgid)) {
		st = bpf_map_lookup_elem(&scratch, &zk);
		if (st) {
			st->ts = now;
			st->state = prev_state;
			st->waker_tid = 0;
			st->waker_tgid = 0;
			/* all of it: the record copies the 16 bytes, not the name */
			__builtin_memset(st->waker_comm, 0, sizeof(st->waker_comm));
			/* prev is current here, so the helpers see its stacks */
			n = bpf_get_stack(ctx, st->kstack, sizeof(st->kstack), 0);
			st->kdepth = n > 0 ? (__u64)n / 8 : 0;
			n = bpf_get_stack(ctx, st->ustack, sizeof(st->ustack), BPF_F_USER_STACK);
			st->udepth = n > 0 ? (__u64)n / 8 : 0;
			if (bpf_map_update_elem(&blocked, &prev_tid, st, BPF_ANY))
				ft_count(FT_SLOT_OFFCPU, FT_ST_MAPFULL);
			else if (ft_ucopy_len)
				save_ucopy(prev_tid);
		}
	}

	if (!next_tid)
		return 0;
	st = bpf_map_lookup_elem(&blocked, &next_tid);
	if (!st)
		return 0;
	if (trig_ns && now - st->ts >= trig_ns) {
		trig_ts = now;
		trig_dur = now - st->ts;
		trig_tid = next_tid;
		__sync_fetch_and_add(&trig_hits, 1);
	}
	if (now - st->ts < min_ns) {
		bpf_map_delete_elem(&blocked, &next_tid);
		if (ft_ucopy_len)
			bpf_map_delete_elem(&ucopies, &next_tid);
		return 0;
	}
	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r) + ft_ucopy_len, 0);
	if (!r) {
		ft_count(FT_SLOT_OFFCPU, FT_ST_DROPS);
		bpf_map_delete_elem(&blocked, &next_tid);
		if (ft_ucopy_len)
			bpf_map_delete_elem(&ucopies, &next_tid);
		return 0;
	}
	take_ucopy(r, next_tid);
	ft_fill_hdr(&r->h, FT_K_OFFCPU, sizeof(*r) + ft_ucopy_len, now,
		    (__u64)next->tgid << 32 | next_tid);
	r->ev.tgid = next->tgid;
	r->ev.state = st->state;
	r->ev.start = st->ts;
	r->ev.duration = now - st->ts;
	r->ev.waker_tid = st->waker_tid;
	r->ev.waker_tgid = st->waker_tgid;
	/*
	 * the _str helper stops at the NUL and a reserved record is not
	 * cleared: what follows the name would be an earlier record's bytes
	 */
	__builtin_memset(r->ev.comm, 0, sizeof(r->ev.comm));
	bpf_probe_read_kernel_str(r->ev.comm, sizeof(r->ev.comm), next->comm);
	__builtin_memcpy(r->ev.waker_comm, st->waker_comm, sizeof(r->ev.waker_comm));
	r->kdepth = st->kdepth;
	r->udepth = st->udepth;
	/*
	 * The record has room for both stacks at full depth; the recorder
	 * only reads kdepth + udepth entries.
	 */
	__builtin_memcpy(r->stack, st->kstack, sizeof(st->kstack));
	__builtin_memcpy(r->stack + FT_OFFCPU_DEPTH, st->ustack, sizeof(st->ustack));
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r) + ft_ucopy_len, true));
	ft_count(FT_SLOT_OFFCPU, FT_ST_EMITTED);
	bpf_map_delete_elem(&blocked, &next_tid);
	return 0;
}

static __always_inline void note_waker(struct task_struct *p)
{
	__u32 tid = p->pid;
	struct ft_offcpu_state *st = bpf_map_lookup_elem(&blocked, &tid);
	__u64 pid_tgid;

	if (!st)
		return;
	pid_tgid = bpf_get_current_pid_tgid();
	st->waker_tid = (__u32)pid_tgid;
	st->waker_tgid = pid_tgid >> 32;
	bpf_get_current_comm(st->waker_comm, sizeof(st->waker_comm));
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ft_sched_wakeup, struct task_struct *p)
{
	note_waker(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ft_sched_wakeup_new, struct task_struct *p)
{
	note_waker(p);
	return 0;
}
