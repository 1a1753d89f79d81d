/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Flame graphs written by flytrap itself: collect weighted stacks, then
 * render one self-contained interactive SVG (hover titles, click to zoom,
 * search, an inline script and no external resources).
 *
 * Stacks are merged into a prefix tree as they are added, so memory is
 * bounded by the number of distinct stack prefixes, never by the number of
 * samples.  Frame names are copied (callers keep ownership of theirs).
 * Colours are a pure function of the frame name (same name, same colour,
 * in every file).  Children narrower than opts->min_px at the nominal
 * width are not drawn alone: together they become one "[N small frames]"
 * frame after their drawn siblings when that is wide enough, else they are
 * left out (their weight stays in the parent's width either way).
 * Rectangle geometry is in percent of the width, so the picture fits any
 * width it is given; labels are fitted by the script (and pre-fitted for
 * the nominal width when scripts do not run).
 */
#ifndef FLYTRAP_FLAMESVG_H
#define FLYTRAP_FLAMESVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rpt_flame;

/* An empty graph; NULL with errno = ENOMEM.  Free with rpt_flame_free(). */
struct rpt_flame *rpt_flame_new(void);
/* Frees everything; NULL is a no-op. */
void rpt_flame_free(struct rpt_flame *fl);

/*
 * Add weight to one stack, frames[0] being the root (outermost caller)
 * and frames[nframes - 1] the leaf.  nframes == 0 adds to the root itself
 * (counted in the total, drawn as the "all" bar only).  A NULL or empty
 * frame name is stored as "[unknown]".  Weights add up with saturation at
 * UINT64_MAX.  Returns 0, -EINVAL (nframes < 0 or frames NULL with
 * nframes > 0) or -ENOMEM.
 */
int rpt_flame_add(struct rpt_flame *fl, const char *const *frames, int nframes, uint64_t weight);

/*
 * A differential graph's "before": add weight to the base of one stack
 * (as rpt_flame_add adds to its weight).  Widths come from the weights
 * only; with rpt_flame_opts.differential the frames are coloured by how
 * their weight compares to their base, and frames with a base but no
 * weight are not drawn.  Same returns as rpt_flame_add().
 */
int rpt_flame_add_base(struct rpt_flame *fl, const char *const *frames, int nframes,
		       uint64_t weight);

/*
 * Add one line in the folded format of flamegraph.pl / speedscope:
 * "root;child;leaf WEIGHT" (the weight is the text after the last space;
 * a trailing newline is allowed).  Empty lines and lines starting with '#'
 * are ignored and return 0.  Returns 0, -EINVAL (no weight, weight not a
 * decimal integer, empty stack) or -ENOMEM.
 */
int rpt_flame_add_folded(struct rpt_flame *fl, const char *line);

/* Sum of all weights added so far. */
uint64_t rpt_flame_total(const struct rpt_flame *fl);
/* Distinct nodes (stack prefixes) held, for memory accounting. */
uint64_t rpt_flame_nodes(const struct rpt_flame *fl);

struct rpt_flame_opts {
	const char *title;	/* NULL: "Flame graph" */
	const char *unit;	/* what weights count: "samples" (NULL), "ns", … */
	unsigned width;		/* nominal width in px for label fitting and min_px; 0: 1200 */
	double min_px; /* merge or omit frames narrower than this at the nominal width; <= 0: 0.1 */
	/*
	 * Embedded in an HTML page: no XML prolog, width="100%", and every id
	 * and script global prefixed with id_prefix (NULL: "fg") so several
	 * graphs can share a page.
	 */
	bool embed;
	const char *id_prefix;
	bool icicle;		/* root at the top instead of the bottom */
	/*
	 * Colours from weight against base (rpt_flame_add_base): red where
	 * the weight grew, blue where it shrank, pale when unchanged; the
	 * hover title gives both.
	 */
	bool differential;
};

/*
 * Write the SVG to out.  opts may be NULL (defaults above).  Returns 0, or
 * -EIO when writing fails (ferror(out)), or -ENOMEM.  An empty graph gives
 * a valid SVG that says there is no data.
 */
int rpt_flame_svg_opts(const struct rpt_flame *fl, FILE *out, const struct rpt_flame_opts *opts);

/* Shorthand: rpt_flame_svg_opts() with only title and unit set (either may be NULL). */
int rpt_flame_svg(const struct rpt_flame *fl, FILE *out, const char *title, const char *unit);

/*
 * Write the merged stacks back in folded form, one "a;b;c WEIGHT" line per
 * node with self weight, in depth-first order of first insertion.  Frame
 * names containing ';' or newlines are written with those replaced by
 * ':' and ' '.  Returns 0 or -EIO.
 */
int rpt_flame_folded(const struct rpt_flame *fl, FILE *out);

#endif
