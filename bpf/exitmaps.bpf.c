// SPDX-License-Identifier: GPL-2.0-only
/*
 * The executable mappings of a process, taken in the kernel as it exits.
 * The recorder reads /proc/PID/maps when it first sees a process, but a
 * short-lived one is often gone by the time its first record is drained;
 * on kernels where sched_process_exit fires before exit_mm() (6.16+) the
 * address space is still there, so the last thread of every process that
 * produced a record reports its file mappings (path rebuilt from the
 * dentries, across mounts) here.  Older kernels: p->mm is already NULL and
 * this program stays silent.  The same walk runs before each exec of such a
 * process (exec_maps() below).
 */
#include "ftcommon.bpf.h"
#include "exitmaps.h"

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __weak __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __weak __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __weak __ksym;

#define FT_VM_EXEC 0x4

/* The record is built here, then copied into the ring buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ft_vma_rec);
} scratch SEC(".maps");

/*
 * Path walk state.  It lives in map memory on purpose: the verifier then
 * sees unknown values instead of tracking every component count on every
 * branch, which made the program too large to verify inside the VMA loop.
 */
struct walk {
	struct dentry *d;
	struct mount *m;
	__u32 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} walks SEC(".maps");

static long walk_step(__u32 i, void *unused)
{
	__u32 zk = 0;
	struct walk *w = bpf_map_lookup_elem(&walks, &zk);
	struct ft_vma_rec *r = bpf_map_lookup_elem(&scratch, &zk);
	struct dentry *d, *parent, *root;
	struct mount *m;
	__u32 n;

	if (!w || !r)
		return 1;
	/* locals: CO-RE relocations must not cover the access to w itself */
	d = w->d;
	m = w->m;
	parent = BPF_CORE_READ(d, d_parent);
	root = BPF_CORE_READ(m, mnt.mnt_root);
	if (d == root) {
		struct mount *up = BPF_CORE_READ(m, mnt_parent);

		if (up == m)
			return 1;	/* the root of the mount tree */
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->m = up;
		return 0;
	}
	if (d == parent)
		return 1;		/* detached (deleted) or pseudo file system */
	n = w->n;
	if (n >= FT_PATH_COMPS) {
		w->n = FT_PATH_COMPS + 1;	/* truncated */
		return 1;
	}
	bpf_probe_read_kernel_str(r->comp[n], FT_COMP_LEN, BPF_CORE_READ(d, d_name.name));
	w->n = n + 1;
	w->d = parent;
	return 0;
}

/*
 * The executable file mappings of p, one record each, with mark in their
 * flags (0: the process exits; FT_VMA_PRE_EXEC: the image it runs until an
 * exec), all stamped now.
 */
static __always_inline void report_maps(struct task_struct *p, __s32 tgid, __u16 mark)
{
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	__u64 now, vdso = 0;

	now = bpf_ktime_get_ns();
	if (bpf_core_field_exists(p->mm->context.vdso))
		vdso = (__u64)BPF_CORE_READ(p, mm, context.vdso);
	bpf_iter_task_vma_new(&it, p, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		struct ft_vma_rec *r;
		struct walk *w;
		struct file *f;
		__u64 flags = BPF_CORE_READ(vma, vm_flags);
		__u32 zk = 0;

		__u64 start = BPF_CORE_READ(vma, vm_start);

		f = BPF_CORE_READ(vma, vm_file);
		if (!(flags & FT_VM_EXEC) || (!f && (!vdso || start != vdso)))
			continue;
		r = bpf_map_lookup_elem(&scratch, &zk);
		w = bpf_map_lookup_elem(&walks, &zk);
		if (!r || !w)
			break;
		ft_fill_hdr(&r->h, FT_K_VMA, sizeof(*r), now, (__u64)tgid << 32 | (__u32)tgid);
		r->start = start;
		r->end = BPF_CORE_READ(vma, vm_end);
		r->flags = (flags & 0xf) | mark;
		/* the scratch record keeps the last walk's bytes after the NUL */
		__builtin_memset(r->comm, 0, sizeof(r->comm));
		bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
		if (!f) {
			r->pgoff = 0;
			r->ino = 0;
			r->dev = 0;
			r->flags |= FT_VMA_VDSO;
			r->ncomp = 0;
			goto send;
		}
		r->pgoff = BPF_CORE_READ(vma, vm_pgoff);
		r->ino = BPF_CORE_READ(f, f_inode, i_ino);
		r->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
		w->d = BPF_CORE_READ(f, f_path.dentry);
		w->m = (void *)BPF_CORE_READ(f, f_path.mnt) - bpf_core_field_offset(struct mount, mnt);
		w->n = 0;
		bpf_loop(FT_PATH_COMPS + 8, walk_step, NULL, 0);
		r->ncomp = w->n;
send:
		if (bpf_ringbuf_output(&ft_events, r, sizeof(*r), ft_wake_flags(now, sizeof(*r), false))) {
			ft_count(FT_SLOT_EXITMAPS, FT_ST_DROPS);
			continue;
		}
		ft_count(FT_SLOT_EXITMAPS, FT_ST_EMITTED);
	}
	bpf_iter_task_vma_destroy(&it);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ft_exit_maps, struct task_struct *p)
{
	__s32 tgid = p->tgid;

	if (!ft_wanted(tgid) || !bpf_map_lookup_elem(&ft_seen, &tgid))
		return 0;
	/* only the last thread: signal->live reached 0 in do_exit() */
	if (BPF_CORE_READ(p, signal, live.counter) != 0 || !p->mm)
		return 0;
	report_maps(p, tgid, 0);
	bpf_map_delete_elem(&ft_seen, &tgid);
	return 0;
}

/*
 * An exec replaces the image: a process that execs twice ran a program in
 * between whose mappings neither /proc (read later) nor the exit (the last
 * image's) can give.  sched_prepare_exec (Linux 6.10+) runs past the point
 * of no return of an exec, while the old mm is still the task's: the
 * mappings go out marked FT_VMA_PRE_EXEC and stamped, and the recorder
 * keeps them as the image the process ran until then.
 */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(ft_exec_maps, struct task_struct *task, struct linux_binprm *bprm)
{
	__s32 tgid = task->tgid;

	if (!ft_wanted(tgid) || !bpf_map_lookup_elem(&ft_seen, &tgid) || !task->mm)
		return 0;
	report_maps(task, tgid, FT_VMA_PRE_EXEC);
	return 0;
}
