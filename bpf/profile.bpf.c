// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU profile: a perf_event program on the software cpu-clock event of
 * each CPU takes the kernel and user stack of whatever was running.
 */
#include "ftcommon.bpf.h"
#include "profile.h"
#include "ustack.bpf.h"

/* value size: sizeof(struct ft_profile_rec) + ft_ucopy_len + FT_UCOPY_SLACK (the recorder's) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ft_profile_rec) + FT_UCOPY_SLACK);
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
	r->ucopy = 0;
	if (ft_ucopy_len) {
		ft_user_regs(r->regs);
		r->ucopy = ft_copy_user_stack(r->copy, r->regs[1]);
	} else {
		r->regs[0] = r->regs[1] = r->regs[2] = r->regs[3] = 0;
	}
	r->ev.tgid = pid_tgid >> 32;
	r->ev.pad = 0;
	bpf_get_current_comm(r->ev.comm, sizeof(r->ev.comm));
	/*
	 * The address arrays whole for simplicity of the verifier proof (the
	 * user stack sits at a fixed offset, the recorder reads kdepth/udepth
	 * entries), the stack copy as long as it is.
	 */
	if (r->ucopy > ft_ucopy_len)
		return 0;
	size = sizeof(*r) + r->ucopy;
	now = bpf_ktime_get_ns();
	ft_fill_hdr(&r->h, FT_K_PROFILE, size, now, pid_tgid);
	if (bpf_ringbuf_output(&ft_events, r, size, ft_wake_flags(now, size, false))) {
		ft_count(FT_SLOT_PROFILE, FT_ST_DROPS);
		return 0;
	}
	ft_count(FT_SLOT_PROFILE, FT_ST_EMITTED);
	return 0;
}
