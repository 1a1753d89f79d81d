// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/34-bpf-object.sh: a program the verifier refuses (a map
 * value used without the NULL check), next to one it accepts, which must
 * not stay attached either.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int ftt_fine(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int ftt_unchecked(void *ctx)
{
	u32 key = 0;
	u64 *v = bpf_map_lookup_elem(&counts, &key);

	*v += 1;	/* no NULL check: "invalid mem access 'map_value_or_null'" */
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
