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
	RPT_SYS_AARCH64,	/* asm-generic numbering, as arm64 builds it */
	RPT_SYS_ARM,		/* 32-bit ARM, EABI */
	RPT_SYS_RISCV64,	/* asm-generic numbering, riscv64 (and loongarch64) */
	RPT_SYS_PPC64,		/* ppc64 and ppc64le share the numbers */
	RPT_SYS_S390X,
	RPT_SYS_NABI
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

/* "x86_64", "aarch64", ... for messages and tests */
const char *rpt_sys_abi_name(enum rpt_sys_abi abi);

#endif
