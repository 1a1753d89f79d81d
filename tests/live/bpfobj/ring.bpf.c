// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/34-bpf-object.sh: one ring buffer record per write() of the
 * processes named target_comm: a struct with a string and integers, whose
 * layout the recorder reads from BTF (struct events_event: MAP_event).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile char target_comm[16] = "";
u64 events_drops = 0;		/* MAP_drops: failed reservations, read by the recorder */

struct events_event {
	u64 ts;			/* bpf_ktime_get_ns(): the event's time stamp */
	u32 pid;		/* becomes common_pid */
	s32 fd;
	u64 count;
	char comm[16];
};
/* clang keeps in BTF only the types something global uses */
struct events_event *events_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int ftt_ring_write(struct trace_event_raw_sys_enter *ctx)
{
	struct events_event *e;
	char comm[16];
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	if (target_comm[0]) {
		for (i = 0; i < 16; i++) {
			if (comm[i] != target_comm[i])
				return 0;
			if (!comm[i])
				break;
		}
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&events_drops, 1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->fd = ctx->args[0];
	e->count = ctx->args[2];
	__builtin_memcpy(e->comm, comm, sizeof(comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
