/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flytrap convert as a function, for the command and for test tools that
 * need a copy of a file with some metadata replaced.
 */
#ifndef FLYTRAP_CONVERT_H
#define FLYTRAP_CONVERT_H

#include <stdbool.h>

struct rpt_convert_opts {
	const char *compression;	/* "zstd" (default when NULL) or "none" */
	int level;			/* zstd level, 0 = the writer's default */
	int chunk;			/* pages per chunk, 0 = the writer's default */
	const char *kallsyms_path;	/* replace the kernel symbols with this file */
	const char *keep_symbols_path;	/* keep only the symbols named here */
	bool drop_printk;		/* leave the printk formats out */
};

/* Copy IN to OUT as version 7; messages go through ft_error/ft_warn.
 * Returns an exit code (EXIT_OK, or EXIT_FAIL with OUT removed, or kept
 * up to the damage of a damaged IN). */
int rpt_convert(const char *in_path, const char *out_path, const struct rpt_convert_opts *o);

struct fmt_reader;
struct fmt_writer;
struct fmt_option;

/*
 * Queue every option of r's file on w except those holding offsets into
 * it (sections, buffers, the chain: the writer makes its own) and those
 * skip() (may be NULL) returns true for; sections that flytrap options
 * point at are copied and the pointers rewritten.  *have_cpucount tells
 * whether a CPUCOUNT was copied.  Returns 0 or -errno (writer's message).
 */
int rpt_copy_options(struct fmt_reader *r, struct fmt_writer *w,
		     bool (*skip)(void *arg, const struct fmt_option *o), void *arg,
		     bool *have_cpucount);

#endif
