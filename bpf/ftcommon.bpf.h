/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF-side helpers shared by the programs: the ring buffer, the per-CPU
 * statistics map and the process filter.  The recorder creates these three
 * maps once and hands the same fds to every skeleton (bpf_map__reuse_fd),
 * so all programs feed one ring buffer and one set of counters.
 */
#ifndef FLYTRAP_FTCOMMON_BPF_H
#define FLYTRAP_FTCOMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16);	/* replaced by the recorder's map */
} ft_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_SLOT_NR * FT_ST_NR);
	__type(key, __u32);
	__type(value, __u64);
} ft_stats SEC(".maps");

/* tgid -> 1: traced processes when ft_filter_pids is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FT_MAX_PIDS);
	__type(key, __s32);
	__type(value, __u8);
} ft_pids SEC(".maps");

/*
 * tgid -> 1: processes that produced a record, whose executable mappings
 * exitmaps.bpf.c reports when they exit (LRU: the oldest are forgotten).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FT_MAX_PIDS);
	__type(key, __s32);
	__type(value, __u8);
} ft_seen SEC(".maps");

const volatile __s32 ft_self_tgid = 0;	/* the recorder: never traced */
const volatile bool ft_filter_pids = false;
/* Wake the recorder only when this much data waits (set to a fraction of the ring) ... */
const volatile __u64 ft_wakeup_bytes = 0;
/* ... always when this much waits (half the ring: a full ring has no submit left to wake it) ... */
const volatile __u64 ft_urgent_bytes = 0;
/* ... or when records have been waiting this long (ns) */
const volatile __u64 ft_wakeup_ns = 100000000;
__u64 ft_last_wake = 0;	/* racy across CPUs on purpose: a spare wakeup is harmless */

/*
 * Flags for bpf_ringbuf_submit/output.  The default wakes the reader when
 * it has caught up, which for a fast reader means one wakeup (irq_work +
 * context switch) per record: it made per-event syscall tracing several
 * times slower.  So records are committed silently and the reader is woken
 * once enough has piled up, or when the oldest wait may be 100 ms old (so
 * the recorder still sees a new process while it lives, and samples the
 * drop counters in time).
 */
static __always_inline __u64 ft_wake_flags(__u64 now, __u64 size, bool queued)
{
	__u64 avail = bpf_ringbuf_query(&ft_events, BPF_RB_AVAIL_DATA), since = now - ft_last_wake;

	if (!queued)
		avail += size;
	/*
	 * Above the mark, wake at most once per millisecond: every forced
	 * wake-up while the reader is still catching up costs an irq_work IPI,
	 * and the reader drains everything it finds anyway.  Past half the
	 * ring, wake on every record: once it is full no commit is left to
	 * carry a wake-up and records are lost until the reader's own timer.
	 */
	if ((avail >= ft_wakeup_bytes && since >= 1000000) || avail >= ft_urgent_bytes ||
	    since >= ft_wakeup_ns) {
		ft_last_wake = now;
		return BPF_RB_FORCE_WAKEUP;
	}
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void ft_count(__u32 slot, __u32 stat)
{
	__u32 key = FT_STAT_KEY(slot, stat);
	__u64 *v = bpf_map_lookup_elem(&ft_stats, &key);

	/*
	 * Atomic even though the value is per-CPU: syscall tracepoints are
	 * preemptible on this kernel, so two tasks can interleave on a CPU.
	 */
	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline bool ft_wanted(__s32 tgid)
{
	if (tgid == ft_self_tgid)
		return false;
	if (ft_filter_pids && !bpf_map_lookup_elem(&ft_pids, &tgid))
		return false;
	return true;
}

/* Last tgid marked on this CPU: most records repeat it, and this lookup is inlined. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s32);
} ft_last_seen SEC(".maps");

static __always_inline void ft_mark_seen(__s32 tgid)
{
	__u32 zk = 0;
	__s32 *last = bpf_map_lookup_elem(&ft_last_seen, &zk);
	__u8 one = 1;

	if (last && *last == tgid)
		return;
	if (!bpf_map_lookup_elem(&ft_seen, &tgid))
		bpf_map_update_elem(&ft_seen, &tgid, &one, BPF_NOEXIST);
	if (last)
		*last = tgid;
}

static __always_inline void ft_fill_hdr(struct ft_hdr *h, __u16 kind, __u32 size, __u64 ts,
					__u64 pid_tgid)
{
	ft_mark_seen(pid_tgid >> 32);
	h->ts = ts;
	h->kind = kind;
	h->cpu = bpf_get_smp_processor_id();
	h->size = size;
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
}

#endif
