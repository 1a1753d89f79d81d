/* SPDX-License-Identifier: GPL-2.0-only */
/* slice: the maps and user symbols of the kept processes (slice_maps.c). */
#ifndef FLYTRAP_REPORT_SLICE_MAPS_H
#define FLYTRAP_REPORT_SLICE_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"

struct rpt_slice_maps_stats {
	int procs_kept, procs_dropped;	/* processes of the maps */
	int binaries_dropped;		/* build-ids left out */
	int symtabs_dropped;		/* symbol tables left out */
};

/* The options rpt_slice_maps() writes (to leave out of a plain copy). */
bool rpt_slice_maps_option(uint16_t id);

/*
 * Queue on w the maps of r's processes that keep() accepts (trace-cmd's
 * PROCMAPS, flytrap's maps section), and the build-ids and symbol tables of
 * the binaries those maps name (all of them when r has no maps).  An
 * unreadable section is left out.  0 or -errno.
 */
int rpt_slice_maps(struct fmt_reader *r, struct fmt_writer *w, bool (*keep)(void *arg, int pid),
		   void *arg, struct rpt_slice_maps_stats *st);

#endif
