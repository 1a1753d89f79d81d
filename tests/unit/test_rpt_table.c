// SPDX-License-Identifier: GPL-2.0-only
/*
 * report/out/table.c: one column list gives the text header, the rows at the
 * same widths (right or left aligned, "-" for a value that is not there)
 * and JSON objects with the columns' keys (null for the missing value,
 * numbers as numbers even when the text shows them otherwise).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/out/json.h"
#include "report/out/table.h"

static const struct rpt_col cols[] = {
	{ "prog", "name", -24, 0 },
	{ "CPU", "cpu", 4, 1 },
	{ "count", "count", 9, 1 },
	{ "total", "total_ns", 8, 2 },
	{ NULL, "json_only", 0, 0 },
	{ "kind", NULL, -5, 1 },
};
static const struct rpt_table table = { cols, 6, "  " };

static char *text_of(const struct rpt_cell *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (c)
		rpt_table_text_row(&table, f, c);
	else
		rpt_table_head(&table, f);
	fclose(f);
	return buf;
}

/* head_shift moves a header off its cells; bool and double cells in text and JSON */
static void shifted_and_typed(void)
{
	static const struct rpt_col c2[] = {
		{ "name", "name", -6, 0 },
		{ "on", "on", 5, 1, -2 },
		{ "share", "share", 6, 1 },
		{ "peak", NULL, 5, 1, 1 },
		{ NULL, "ok", 0, 0 },
	};
	const struct rpt_table t = { c2, 5, "" };
	struct rpt_cell row[] = {
		rpt_cell_str("a"), rpt_cell_u64(3, NULL), rpt_cell_dbl(0.12345, 4, "12.3%"),
		rpt_cell_str("9 @1"), rpt_cell_bool(true),
	};
	struct rpt_json j;
	char *buf = NULL, *s;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rpt_table_head(&t, f);
	rpt_table_text_row(&t, f, row);
	fclose(f);
	/* "on" ends two columns left of its cells, "peak" starts one further right */
	CHECK(buf && !strcmp(buf, "name    on  share   peak\na          3  12.3%  9 @1\n"),
	      "shifted [%s]", buf);
	free(buf);
	rpt_json_init(&j, NULL, 0);
	rpt_table_json_row(&t, &j, row);
	s = rpt_json_take(&j, &len);
	CHECK(s && !strcmp(s, "{\"name\":\"a\",\"on\":3,\"share\":0.1235,\"ok\":true}"),
	      "typed json %s", s);
	free(s);
}

int main(void)
{
	struct rpt_cell row[] = {
		rpt_cell_str("handler"), rpt_cell_i64(-1, NULL), rpt_cell_none(),
		rpt_cell_u64(1500, "1.500us"), rpt_cell_u64(7, NULL), rpt_cell_str("soft"),
	};
	struct rpt_json j;
	char *s;
	size_t len;

	s = text_of(NULL);
	CHECK(s && !strcmp(s, "  prog                      CPU     count     total kind \n"),
	      "header [%s]", s);
	free(s);
	s = text_of(row);
	CHECK(s && !strcmp(s, "  handler                    -1         -   1.500us soft \n"),
	      "row [%s]", s);
	free(s);
	CHECK(rpt_table_text_width(&table) == 2 + 24 + 5 + 10 + 10 + 6, "width %zu",
	      rpt_table_text_width(&table));
	rpt_json_init(&j, NULL, 0);
	rpt_json_arr(&j);
	rpt_table_json_row(&table, &j, row);
	rpt_json_arr_end(&j);
	s = rpt_json_take(&j, &len);
	CHECK(s && !strcmp(s, "[{\"name\":\"handler\",\"cpu\":-1,\"count\":null,\"total_ns\":1500,"
			      "\"json_only\":7}]"), "json %s", s);
	free(s);
	shifted_and_typed();
	return check_summary();
}
