// SPDX-License-Identifier: GPL-2.0-only
/*
 * Syscall numbers to names for the architectures a trace.dat says it came
 * from (uname option).  Raw syscall events and BPF records carry only the
 * number.  The tables (syscalls.h in the build directory) are generated at
 * build time by report/syms/gen-syscalls.sh from the kernel's UAPI headers of
 * each architecture (Debian's linux-libc-dev and linux-libc-dev-*-cross);
 * numbers are ABI, so they do not change, only grow, and a number past a
 * table prints as syscall_N.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/syms/sysnames.h"

#include "syscalls.h"

#define TABLE(t) { t, sizeof(t) / sizeof(t[0]) }
static const struct {
	const char *const *names;
	size_t n;
} tables[RPT_SYS_NABI] = {
	[RPT_SYS_X86_64] = TABLE(sc_x86_64),
	[RPT_SYS_I386] = TABLE(sc_i386),
	[RPT_SYS_AARCH64] = TABLE(sc_aarch64),
	[RPT_SYS_ARM] = TABLE(sc_arm),
	[RPT_SYS_RISCV64] = TABLE(sc_riscv64),
	[RPT_SYS_PPC64] = TABLE(sc_ppc64),
	[RPT_SYS_S390X] = TABLE(sc_s390x),
};

/* the machine word of a uname text: the whole word, not a part of another */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = text; (p = strstr(p, word)); p++) {
		bool start = p == text || !isalnum((unsigned char)p[-1]);
		bool end = !isalnum((unsigned char)p[n]) && p[n] != '_';

		if (start && end)
			return true;
	}
	return false;
}

enum rpt_sys_abi rpt_sys_abi(const char *uname, int kernel_long)
{
	static const char *const arm32[] = { "armv7l", "armv7", "armv6l", "armv8l", "armv5tel",
					     "armhf", "armel", "arm", NULL };
	int i;

	if (!uname || !*uname)
		return RPT_SYS_UNKNOWN;
	/*
	 * The machine is the last word of `uname -a`-style text but trace-cmd
	 * writes "sysname release version" only on some versions, so look for
	 * the machine names anywhere.
	 */
	if (has_word(uname, "x86_64") || has_word(uname, "amd64"))
		return kernel_long == 4 ? RPT_SYS_I386 : RPT_SYS_X86_64;
	if (has_word(uname, "i686") || has_word(uname, "i586") || has_word(uname, "i386"))
		return RPT_SYS_I386;
	if (has_word(uname, "aarch64") || has_word(uname, "arm64"))
		return RPT_SYS_AARCH64;
	if (has_word(uname, "riscv64"))
		return RPT_SYS_RISCV64;
	/* loongarch64 numbers its syscalls as asm-generic does, like riscv64 */
	if (has_word(uname, "loongarch64"))
		return RPT_SYS_RISCV64;
	if (has_word(uname, "ppc64le") || has_word(uname, "ppc64"))
		return RPT_SYS_PPC64;
	if (has_word(uname, "s390x"))
		return RPT_SYS_S390X;
	for (i = 0; arm32[i]; i++)
		if (has_word(uname, arm32[i]))
			return RPT_SYS_ARM;
	return RPT_SYS_UNKNOWN;
}

const char *rpt_syscall_name(enum rpt_sys_abi abi, long nr)
{
	if (abi <= RPT_SYS_UNKNOWN || abi >= RPT_SYS_NABI || !tables[abi].names)
		return NULL;
	if (nr < 0 || (size_t)nr >= tables[abi].n)
		return NULL;
	return tables[abi].names[nr];
}

const char *rpt_sys_abi_name(enum rpt_sys_abi abi)
{
	static const char *const names[RPT_SYS_NABI] = {
		[RPT_SYS_UNKNOWN] = "unknown", [RPT_SYS_X86_64] = "x86_64",
		[RPT_SYS_I386] = "i386",       [RPT_SYS_AARCH64] = "aarch64",
		[RPT_SYS_ARM] = "arm",         [RPT_SYS_RISCV64] = "riscv64",
		[RPT_SYS_PPC64] = "ppc64",     [RPT_SYS_S390X] = "s390x",
	};

	return abi >= 0 && abi < RPT_SYS_NABI ? names[abi] : "unknown";
}
