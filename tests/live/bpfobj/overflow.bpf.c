// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/36-bpf-object-attach.sh: 201 ring buffer records per write()
 * of the processes named target_comm into a 4 KiB ring, which holds about
 * 85 of them: the rest fail to reserve and are counted in events_drops
 * (MAP_drops), which the recorder turns into the file's loss records.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile char target_comm[16] = "";
u64 events_drops = 0;

struct events_event {
	u64 ts;
	u32 pid;
	u32 seq;
};
struct events_event *events_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int ftt_overflow(void *ctx)
{
	char comm[16];
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++) {
		if (comm[i] != target_comm[i])
			return 0;
		if (!comm[i])
			break;
	}
	for (i = 0; i < 201; i++) {
		struct events_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

		if (!e) {
			__sync_fetch_and_add(&events_drops, 1);
			continue;
		}
		e->ts = bpf_ktime_get_ns();
		e->pid = bpf_get_current_pid_tgid() >> 32;
		e->seq = i;
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
