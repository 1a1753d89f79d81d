// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/36-bpf-object-attach.sh: a perf_event program sampling
 * cpu-clock into a perf event array (struct samples_event), and a uprobe
 * program with a bare section (--bpf-attach names its target) counting
 * calls per process in a hash map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct samples_event { u32 pid; u32 cpu; u64 ip; char comm[16]; };
struct samples_event *sample_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, u32);
	__type(value, u64);
} calls SEC(".maps");

SEC("perf_event")
int ftt_sample(struct bpf_perf_event_data *ctx)
{
	struct samples_event s = {};

	s.pid = bpf_get_current_pid_tgid() >> 32;
	s.cpu = bpf_get_smp_processor_id();
	s.ip = PT_REGS_IP(&ctx->regs);
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, &s, sizeof(s));
	return 0;
}

SEC("uprobe")
int ftt_uprobe(void *ctx)
{
	u32 pid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *v = bpf_map_lookup_elem(&calls, &pid);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&calls, &pid, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
