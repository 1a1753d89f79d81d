/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line rules report and info share with the analyzers (see
 * replay.c's rpt_opts_parse): options may come before or after the file,
 * "--" ends them, long names are spelled out in full (no abbreviations,
 * as the analyzers take none), and a mistake is one usage line naming the
 * option as typed.  Implemented in report.c.
 */
#ifndef FLYTRAP_REPORT_CLI_H
#define FLYTRAP_REPORT_CLI_H

#include <getopt.h>

/*
 * Check argv against the short option string (getopt syntax, no leading
 * '+' or ':') and the long options before getopt_long() runs: unknown
 * options, abbreviated long names, a missing value, a value given to a
 * flag.  Returns 0, or EXIT_USAGE after printing the one-line error.
 * After it, getopt_long(argc, argv, shorts, lopts, NULL) cannot fail.
 */
int rpt_check_args(int argc, char **argv, const char *shorts, const struct option *lopts);

#endif
