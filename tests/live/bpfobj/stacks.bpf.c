// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/36-bpf-object-attach.sh: kernel stacks of sched_switch in a
 * STACK_TRACE map, counted per stack id in a hash map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 128);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 16 * sizeof(u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 128);
	__type(key, s32);
	__type(value, u64);
} counts SEC(".maps");

SEC("tracepoint/sched/sched_switch")
int ftt_switch(void *ctx)
{
	s32 id = bpf_get_stackid(ctx, &stacks, 0);
	u64 one = 1, *v = bpf_map_lookup_elem(&counts, &id);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&counts, &id, &one, BPF_NOEXIST);
	return 0;
}
char LICENSE[] SEC("license") = "GPL";
