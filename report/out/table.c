// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table printer (table.h): text lines and JSON objects from one column list.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/out/json.h"
#include "report/out/table.h"

/* Text cell c of column col, after its gap (none before the first text column). */
static void text_cell(FILE *out, const struct rpt_col *col, bool first, const char *text)
{
	int w = col->width < 0 ? -col->width : col->width;

	if (!first)
		fprintf(out, "%*s", col->gap, "");
	if (col->width < 0)
		fprintf(out, "%-*s", w, text);
	else
		fprintf(out, "%*s", w, text);
}

void rpt_table_head(const struct rpt_table *t, FILE *out)
{
	bool first = true;
	size_t k;

	fputs(t->indent ? t->indent : "", out);
	for (k = 0; k < t->ncols; k++) {
		if (!t->cols[k].head)
			continue;
		struct rpt_col c = t->cols[k];

		if (!first && c.head_shift > 0)
			fprintf(out, "%*s", c.head_shift, "");
		if (c.head_shift < 0)
			c.width += c.width < 0 ? -c.head_shift : c.head_shift;
		text_cell(out, &c, first, c.head);
		first = false;
	}
	fputc('\n', out);
}

static const char *cell_text(const struct rpt_cell *c, char *buf, size_t len)
{
	if (c->text)
		return c->text;
	switch (c->kind) {
	case RPT_CELL_STR:
		return c->s ? c->s : "";
	case RPT_CELL_U64:
		snprintf(buf, len, "%" PRIu64, c->u);
		return buf;
	case RPT_CELL_I64:
		snprintf(buf, len, "%" PRId64, c->i);
		return buf;
	case RPT_CELL_BOOL:
		return c->b ? "yes" : "no";
	case RPT_CELL_DBL:
		snprintf(buf, len, "%.*f", c->prec, c->d);
		return buf;
	default:
		return "-";
	}
}

void rpt_table_text_row(const struct rpt_table *t, FILE *out, const struct rpt_cell *cells)
{
	bool first = true;
	size_t k;

	fputs(t->indent ? t->indent : "", out);
	for (k = 0; k < t->ncols; k++) {
		char buf[32];

		if (!t->cols[k].head)
			continue;
		text_cell(out, &t->cols[k], first, cell_text(&cells[k], buf, sizeof(buf)));
		first = false;
	}
	fputc('\n', out);
}

void rpt_table_json_row(const struct rpt_table *t, struct rpt_json *j, const struct rpt_cell *cells)
{
	size_t k;

	rpt_json_obj(j);
	for (k = 0; k < t->ncols; k++) {
		const struct rpt_cell *c = &cells[k];

		if (!t->cols[k].key)
			continue;
		rpt_json_key(j, t->cols[k].key);
		if (c->kind == RPT_CELL_STR)
			rpt_json_str(j, c->s);
		else if (c->kind == RPT_CELL_U64)
			rpt_json_u64(j, c->u);
		else if (c->kind == RPT_CELL_I64)
			rpt_json_i64(j, c->i);
		else if (c->kind == RPT_CELL_BOOL)
			rpt_json_bool(j, c->b);
		else if (c->kind == RPT_CELL_DBL)
			rpt_json_double(j, c->prec, c->d);
		else
			rpt_json_null(j);
	}
	rpt_json_obj_end(j);
}

size_t rpt_table_text_width(const struct rpt_table *t)
{
	size_t w = t->indent ? strlen(t->indent) : 0, k;
	bool first = true;

	for (k = 0; k < t->ncols; k++) {
		if (!t->cols[k].head)
			continue;
		w += (size_t)(first ? 0 : t->cols[k].gap) +
		     (size_t)(t->cols[k].width < 0 ? -t->cols[k].width : t->cols[k].width);
		first = false;
	}
	return w;
}
