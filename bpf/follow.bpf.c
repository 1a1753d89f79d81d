// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process filter follows forks: when a selected process creates a new
 * process, its tgid joins the filter map shared by every program, so
 * `flytrap record --bpf ... -- cmd` sees cmd's children too (like the
 * ftrace side's event-fork).  Loaded only when a filter is set; it writes
 * no records, so it has no record header.
 */
#include "ftcommon.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ft_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__s32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ptgid == ctgid || !bpf_map_lookup_elem(&ft_pids, &ptgid))
		return 0;	/* a new thread, or not ours */
	if (bpf_map_update_elem(&ft_pids, &ctgid, &one, BPF_ANY))
		ft_count(FT_SLOT_FOLLOW, FT_ST_MAPFULL);
	return 0;
}
