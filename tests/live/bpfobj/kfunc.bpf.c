// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/35-bpf-object-kernel.sh: a kprobe and an fentry program, the
 * attach types the build machines' kernel refuses.  Counts calls of
 * do_sys_openat2 per process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} opens SEC(".maps");

static __always_inline void count(void)
{
	u32 pid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *v = bpf_map_lookup_elem(&opens, &pid);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&opens, &pid, &one, BPF_NOEXIST);
}

#ifdef USE_FENTRY
SEC("fentry/do_sys_openat2")
int BPF_PROG(ftt_fentry_open)
{
	count();
	return 0;
}
#else
SEC("kprobe/do_sys_openat2")
int BPF_KPROBE(ftt_kprobe_open)
{
	count();
	return 0;
}
#endif

char LICENSE[] SEC("license") = "GPL";
