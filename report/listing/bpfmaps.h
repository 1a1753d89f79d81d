/* SPDX-License-Identifier: GPL-2.0-only */
/* report --bpf-maps: the maps of record --bpf-object, like `bpftool map dump`. */
#ifndef FLYTRAP_REPORT_BPFMAPS_H
#define FLYTRAP_REPORT_BPFMAPS_H

#include <stdbool.h>
#include <stdio.h>

struct fmt_reader;

/*
 * Print every map snapshot of the file (text: a line naming the map and
 * when it was read, then the entries as a JSON array; json: one array of
 * snapshots).  Returns 0, or -EBADMSG for a damaged option with *why set
 * (static text).
 */
int rpt_bpfmaps_print(struct fmt_reader *r, bool json, FILE *out, const char **why);

#endif
