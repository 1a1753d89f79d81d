// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/34-bpf-object.sh: bytes written per process, summed in the
 * kernel (the example of docs/bpf.md "Your own program"), plus a per-CPU
 * count of the calls.  Only processes named target_comm (--bpf-set).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile char target_comm[16] = "";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} bytes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} calls SEC(".maps");

static __always_inline bool wanted(void)
{
	char comm[16];
	int i;

	if (!target_comm[0])
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++) {
		if (comm[i] != target_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

SEC("tracepoint/syscalls/sys_enter_write")
int ftt_count_write(struct trace_event_raw_sys_enter *ctx)
{
	u32 pid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	u64 n = ctx->args[2], init = 0, *v, *c;

	if (!wanted())
		return 0;
	v = bpf_map_lookup_elem(&bytes, &pid);
	if (!v) {
		bpf_map_update_elem(&bytes, &pid, &init, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&bytes, &pid);
		if (!v)
			return 0;
	}
	__sync_fetch_and_add(v, n);
	c = bpf_map_lookup_elem(&calls, &zero);
	if (c)
		*c += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
