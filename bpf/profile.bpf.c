// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU profile: a perf_event program on the software cpu-clock event of
 * each CPU takes the kernel and user stack of whatever was running.
 */
#include "ftcommon.bpf.h"
#include "profile.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_profile_rec);
} scratch SEC(".maps");

SEC("perf_event")
int ft_profile(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ft_profile_rec *r;
	__u32 zk = 0, size;
	__u64 now;
	long kn, un;

	/* idle is not a profile sample: it is the absence of one */
	if ((__u32)pid_tgid == 0 || !ft_wanted(pid_tgid >> 32))
		return 0;
	r = bpf_map_lookup_elem(&scratch, &zk);
	if (!r)
		return 0;
	kn = bpf_get_stack(ctx, r->stack, FT_MAX_STACK * 8, 0);
	if (kn < 0)
		kn = 0;
	un = bpf_get_stack(ctx, r->stack + FT_MAX_STACK, FT_MAX_STACK * 8, BPF_F_USER_STACK);
	if (un < 0)
		un = 0;
	r->kdepth = (__u64)kn / 8;
	r->udepth = (__u64)un / 8;
	r->pad = 0;
	r->ev.tgid = pid_tgid >> 32;
	r->ev.pad = 0;
	bpf_get_current_comm(r->ev.comm, sizeof(r->ev.comm));
	/*
	 * Whole record for simplicity of the verifier proof; the user stack
	 * sits at a fixed offset, the recorder reads kdepth/udepth entries.
	 */
	size = sizeof(*r);
	now = bpf_ktime_get_ns();
	ft_fill_hdr(&r->h, FT_K_PROFILE, size, now, pid_tgid);
	if (bpf_ringbuf_output(&ft_events, r, size, ft_wake_flags(now, size, false))) {
		ft_count(FT_SLOT_PROFILE, FT_ST_DROPS);
		return 0;
	}
	ft_count(FT_SLOT_PROFILE, FT_ST_EMITTED);
	return 0;
}
