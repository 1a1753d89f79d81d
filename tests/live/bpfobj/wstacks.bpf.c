// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/live/37-bpf-object-stacks.sh: a profile-like program in the style
 * of libbpf-tools' offcputime: on every send of a socket by the processes
 * named target_comm (--bpf-set), the kernel and the user stack ids from
 * bpf_get_stackid() into one STACK_TRACE map, counted per (pid, tgid,
 * stack ids, comm) in a hash map, and one ring buffer record per send
 * with the same ids.  sock:sock_send_length fires inside the write path
 * (write -> ksys_write -> vfs_write -> sock_write_iter -> __sock_sendmsg),
 * so a write(2) to a socket has those frames in its kernel stack.  Sends
 * of fail_len bytes ask for the user stack past its 255th frame, which no
 * stack has: the kernel answers -EFAULT, a stack id that was not collected.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define FTT_SKIP_ALL 255	/* BPF_F_SKIP_FIELD_MASK: skip more frames than any stack has */

const volatile char target_comm[16] = "";
const volatile s32 fail_len = -1;
u64 events_drops = 0;		/* MAP_drops: failed reservations, read by the recorder */

struct key_t {
	u32 pid;
	u32 tgid;
	s32 kern_stack_id;
	s32 user_stack_id;
	char comm[16];
};

struct events_event {
	u64 ts;			/* bpf_ktime_get_ns(): the event's time stamp */
	u32 pid;		/* becomes common_pid */
	u32 tgid;
	s32 kern_stack_id;
	s32 user_stack_id;
	s32 len;
	char comm[16];
};
/* clang keeps in BTF only the types something global uses */
struct events_event *events_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct key_t);
	__type(value, u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

SEC("tracepoint/sock/sock_send_length")
int ftt_send(struct trace_event_raw_sock_msg_length *ctx)
{
	struct key_t key = {};
	struct events_event *e;
	u64 id = bpf_get_current_pid_tgid(), one = 1, *v;
	s32 len = ctx->ret;
	int i;

	bpf_get_current_comm(key.comm, sizeof(key.comm));
	if (target_comm[0]) {
		for (i = 0; i < 16; i++) {
			if (key.comm[i] != target_comm[i])
				return 0;
			if (!key.comm[i])
				break;
		}
	}
	key.pid = (u32)id;
	key.tgid = id >> 32;
	key.kern_stack_id = bpf_get_stackid(ctx, &stacks, 0);
	key.user_stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK |
					    (len == fail_len ? FTT_SKIP_ALL : 0));
	v = bpf_map_lookup_elem(&counts, &key);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST);

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&events_drops, 1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid = key.pid;
	e->tgid = key.tgid;
	e->kern_stack_id = key.kern_stack_id;
	e->user_stack_id = key.user_stack_id;
	e->len = len;
	__builtin_memcpy(e->comm, key.comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
