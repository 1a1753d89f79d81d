// SPDX-License-Identifier: GPL-2.0-only
/*
 * trim_kallsyms IN OUT NAMES: copy the trace.dat IN to OUT with its
 * kallsyms cut down to the symbols named in the file NAMES (one per line),
 * each followed by the next symbol in address order so every kept symbol
 * still has its end; printk formats are dropped.  This is
 * `flytrap convert --keep-symbols NAMES` at zstd level 19, without the
 * printk formats, as a program of its own for the lab guest.
 *
 * Used by tests/lab/10-kernel-lab.sh (FLYTRAP_LAB_UPDATE_GOLDEN=1) to turn
 * the lab's real function_graph recording (~900 KB, almost all of it the
 * lab kernel's kallsyms) into a small golden file; the script then checks
 * that trace-cmd report prints the trimmed file exactly as the original.
 */
#include <stdio.h>

#include "report/share/convert.h"

int main(int argc, char **argv)
{
	struct rpt_convert_opts o = {
		.compression = "zstd",
		.level = 19,
		.drop_printk = true,
	};

	if (argc != 4) {
		fprintf(stderr, "usage: trim_kallsyms IN OUT NAMES\n");
		return 2;
	}
	o.keep_symbols_path = argv[3];
	return rpt_convert(argv[1], argv[2], &o);
}
