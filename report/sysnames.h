/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Syscall names from numbers, for raw_syscalls and flytrap:syscall
 * records, which carry only the number.
 */
#ifndef FLYTRAP_SYSNAMES_H
#define FLYTRAP_SYSNAMES_H

#include <stddef.h>

enum rpt_sys_abi {
	RPT_SYS_UNKNOWN = 0,
	RPT_SYS_X86_64,
	RPT_SYS_I386,
	RPT_SYS_GENERIC,	/* arm64, riscv64, loongarch64: asm-generic numbering */
};

/*
 * The ABI for a uname text as stored in the file ("Linux host 6.1.0 #1 SMP
 * ... x86_64"), looked up by the machine word in it; kernel_long (4 or 8)
 * tells i386 from x86_64 when the text is ambiguous.
 */
enum rpt_sys_abi rpt_sys_abi(const char *uname, int kernel_long);

/*
 * Name of syscall nr, or NULL when unknown (callers print "syscall_<nr>").
 * The string is static.
 */
const char *rpt_syscall_name(enum rpt_sys_abi abi, long nr);

#endif
