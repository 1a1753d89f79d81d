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

#endif
