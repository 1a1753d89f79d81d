/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --user-stack cfi|dwarf: the user registers an unwinder starts from and a
 * copy of the top of the user stack (common.h), for profile.bpf.c and
 * offcpu.bpf.c.  ft_ucopy_len is set by the recorder (0: frame pointers
 * only, nothing copied); the destination has ft_ucopy_len +
 * FT_UCOPY_SLACK bytes of room, which the verifier checks at load time
 * (ft_ucopy_len is a constant of the frozen .rodata).
 */
#ifndef FLYTRAP_USTACK_BPF_H
#define FLYTRAP_USTACK_BPF_H

const volatile __u32 ft_ucopy_len = 0;

/* The saved user registers of the current task (its pt_regs at kernel entry). */
static __always_inline void ft_user_regs(__u64 *regs)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	regs[0] = regs[1] = regs[2] = regs[3] = 0;
	if (!r)
		return;
#if defined(__TARGET_ARCH_x86)
	regs[0] = BPF_CORE_READ(r, ip);
	regs[1] = BPF_CORE_READ(r, sp);
	regs[2] = BPF_CORE_READ(r, bp);
#elif defined(__TARGET_ARCH_arm64)
	regs[0] = BPF_CORE_READ(r, pc);
	regs[1] = BPF_CORE_READ(r, sp);
	regs[2] = BPF_CORE_READ(r, regs[30]);
	regs[3] = BPF_CORE_READ(r, regs[29]);
#endif
}

/*
 * Copy up to ft_ucopy_len bytes from the user stack pointer sp into dst, a
 * page at a time (a read that crosses the top of the stack would fail as a
 * whole); returns the bytes copied.
 */
static __always_inline __u32 ft_copy_user_stack(__u8 *dst, __u64 sp)
{
	__u64 want = ft_ucopy_len, done = 0, n;
	int i;

	if (!want || want > FT_UCOPY_MAX || !sp)
		return 0;
	for (i = 0; i < FT_UCOPY_MAX / 4096 + 1; i++) {
		n = 4096 - ((sp + done) & 4095);
		/* the verifier must see done < want on the register the access uses */
		barrier_var(done);
		if (done >= want)
			break;
		if (n > want - done)
			n = want - done;
		barrier_var(n);
		if (n > 4096)
			break;
		if (bpf_probe_read_user(dst + done, n, (const void *)(sp + done)))
			break;
		done += n;
	}
	return done;
}

#endif
