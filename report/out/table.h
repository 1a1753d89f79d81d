/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One table printer (issue 10): a column list gives the text header, the
 * widths and alignment, and the JSON keys; a row is one cell per column,
 * printed as a text line or as a JSON object.  A cell carries the JSON
 * value and, when the text shows it otherwise (a duration, a size), the
 * text.  Text tables stay within 80 columns: the widths say how.
 */
#ifndef FLYTRAP_RPT_TABLE_H
#define FLYTRAP_RPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rpt_json;

struct rpt_col {
	const char *head;	/* text header; NULL: a JSON-only column */
	const char *key;	/* JSON key; NULL: a text-only column */
	int width;		/* text width; negative: left-aligned */
	int gap;		/* spaces before it (the first text column: none, the indent) */
	/*
	 * The header's offset from its cells: N > 0 more spaces before it,
	 * N < 0 a header cell N narrower (it and the headers after it sit
	 * further left).  0 for a header over its cells.
	 */
	int head_shift;
};

enum rpt_cell_kind {
	RPT_CELL_STR, RPT_CELL_U64, RPT_CELL_I64, RPT_CELL_BOOL, RPT_CELL_DBL, RPT_CELL_NONE
};

struct rpt_cell {
	enum rpt_cell_kind kind;	/* the JSON value; NONE: null, "-" in text */
	const char *text;		/* the text shown; NULL: the value as it is */
	const char *s;
	uint64_t u;
	int64_t i;
	double d;
	int prec;			/* RPT_CELL_DBL: digits after the point in JSON */
	bool b;
};

static inline struct rpt_cell rpt_cell_str(const char *s)
{
	return (struct rpt_cell){ .kind = RPT_CELL_STR, .s = s };
}

static inline struct rpt_cell rpt_cell_u64(uint64_t v, const char *text)
{
	return (struct rpt_cell){ .kind = RPT_CELL_U64, .u = v, .text = text };
}

static inline struct rpt_cell rpt_cell_i64(int64_t v, const char *text)
{
	return (struct rpt_cell){ .kind = RPT_CELL_I64, .i = v, .text = text };
}

static inline struct rpt_cell rpt_cell_bool(bool v)
{
	return (struct rpt_cell){ .kind = RPT_CELL_BOOL, .b = v, .text = v ? "yes" : "no" };
}

/* v in JSON with prec digits after the point; text: shown as given (required) */
static inline struct rpt_cell rpt_cell_dbl(double v, int prec, const char *text)
{
	return (struct rpt_cell){ .kind = RPT_CELL_DBL, .d = v, .prec = prec, .text = text };
}

static inline struct rpt_cell rpt_cell_none(void)
{
	return (struct rpt_cell){ .kind = RPT_CELL_NONE };
}

struct rpt_table {
	const struct rpt_col *cols;
	size_t ncols;
	const char *indent;	/* before every text line, e.g. "  " */
};

/* The header line of the text columns. */
void rpt_table_head(const struct rpt_table *t, FILE *out);
/* One row as a text line (cells: one per column). */
void rpt_table_text_row(const struct rpt_table *t, FILE *out, const struct rpt_cell *cells);
/* One row as a JSON object of the keyed columns. */
void rpt_table_json_row(const struct rpt_table *t, struct rpt_json *j,
			const struct rpt_cell *cells);
/* The width of a text line (indent included), to check the 80 columns. */
size_t rpt_table_text_width(const struct rpt_table *t);

#endif
