// SPDX-License-Identifier: GPL-2.0-only
/*
 * Syscall latency: one flytrap:syscall record per completed syscall, or
 * (agg mode) a log2 histogram per (thread, syscall) kept in a map that
 * the recorder turns into flytrap:syscall_hist events at the end.
 */
#include "ftcommon.bpf.h"
#include "syscalls.h"

const volatile bool agg_mode = false;

/*
 * --trigger syscall[:NAMES]>DUR: a call of one of the numbers in trig_nrs
 * (a bitmap) that took trig_ns or longer raises trig_hits; the recorder
 * reads these globals through the skeleton's mapped .bss.  0 = no trigger.
 */
const volatile __u64 trig_ns = 0;
const volatile __u8 trig_nrs[FT_TRIG_NRS / 8] = {};
__u64 trig_hits = 0;
__u64 trig_ts = 0;
__u64 trig_dur = 0;
__s32 trig_nr = 0;
__s32 trig_tid = 0;

/*
 * Entry time per thread in task-local storage: no hashing and no bucket
 * lock on the hottest path, and the kernel frees it with the task (exit
 * and exit_group never reach sys_exit).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ft_sys_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ft_syshist_key);
	__type(value, struct ft_syshist_val);
} hists SEC(".maps");

/* Zero value for inserting a new histogram (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_syshist_val);
} zero_hist SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(ft_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ft_sys_start *st;

	if (!ft_wanted(pid_tgid >> 32))
		return 0;
	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		ft_count(FT_SLOT_SYSCALLS, FT_ST_MAPFULL);
		return 0;
	}
	st->ts = bpf_ktime_get_ns();
	st->nr = id;
	return 0;
}

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0;

	/* Unrolled binary search: the verifier wants bounded work. */
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r < FT_HIST_SLOTS ? r : FT_HIST_SLOTS - 1;
}

static __always_inline void add_hist(__u64 pid_tgid, __s32 nr, __u64 dur)
{
	struct ft_syshist_key key = { .tid = (__u32)pid_tgid, .nr = nr };
	struct ft_syshist_val *v;
	__u32 zk = 0;

	v = bpf_map_lookup_elem(&hists, &key);
	if (!v) {
		struct ft_syshist_val *z = bpf_map_lookup_elem(&zero_hist, &zk);

		if (!z)
			return;
		z->tgid = pid_tgid >> 32;
		ft_mark_seen(z->tgid);
		/* NOEXIST: -EEXIST only means another CPU inserted it first */
		bpf_map_update_elem(&hists, &key, z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&hists, &key);
		if (!v) {
			ft_count(FT_SLOT_SYSCALLS, FT_ST_MAPFULL);
			return;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, dur);
	if (dur > v->max_ns)
		v->max_ns = dur;
	__sync_fetch_and_add(&v->slots[log2_slot(dur)], 1);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ft_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ft_syscall_rec *r;
	struct ft_sys_start *st;
	__u64 now, start;
	__s64 nr;

	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->ts)
		return 0;	/* entered before attach, or filtered out */
	now = bpf_ktime_get_ns();
	start = st->ts;
	nr = st->nr;
	st->ts = 0;

	if (trig_ns && now - start >= trig_ns && nr >= 0 && nr < FT_TRIG_NRS &&
	    (trig_nrs[nr / 8] & (1 << (nr % 8)))) {
		trig_ts = now;
		trig_dur = now - start;
		trig_nr = nr;
		trig_tid = (__u32)pid_tgid;
		__sync_fetch_and_add(&trig_hits, 1);
	}

	if (agg_mode) {
		add_hist(pid_tgid, nr, now - start);
		return 0;
	}
	r = bpf_ringbuf_reserve(&ft_events, sizeof(*r), 0);
	if (!r) {
		ft_count(FT_SLOT_SYSCALLS, FT_ST_DROPS);
		return 0;
	}
	ft_fill_hdr(&r->h, FT_K_SYSCALL, sizeof(*r), now, pid_tgid);
	r->ev.tgid = pid_tgid >> 32;
	r->ev.nr = nr;
	r->ev.start = start;
	r->ev.duration = now - start;
	r->ev.ret = ret;
	bpf_ringbuf_submit(r, ft_wake_flags(now, sizeof(*r), true));
	ft_count(FT_SLOT_SYSCALLS, FT_ST_EMITTED);
	return 0;
}
