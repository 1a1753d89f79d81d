// SPDX-License-Identifier: GPL-2.0-only
/*
 * report/out/json.c, the one JSON writer: commas and nesting come out right
 * whatever the order of calls, strings follow flytrap's one escaping rule
 * (the same bytes as ft_json_strn), a stream gets exactly the in-memory
 * text, and misuse (unclosed or extra closes, too deep) is reported.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flytrap.h"
#include "report/out/json.h"

static char *take(struct rpt_json *j)
{
	size_t len;

	return rpt_json_take(j, &len);
}

static void test_nesting(void)
{
	struct rpt_json j;
	char *s;

	CHECK(!rpt_json_init(&j, NULL, 0), "init");
	rpt_json_obj(&j);
	rpt_json_kstr(&j, "file", "a.dat");
	rpt_json_kbool(&j, "partial", false);
	rpt_json_karr(&j, "cpus");
	rpt_json_obj(&j);
	rpt_json_ki64(&j, "cpu", -1);
	rpt_json_knull(&j, "busy_ns");
	rpt_json_obj_end(&j);
	rpt_json_obj(&j);
	rpt_json_obj_end(&j);
	rpt_json_arr(&j);
	rpt_json_arr_end(&j);
	rpt_json_u64(&j, 18446744073709551615ULL);
	rpt_json_arr_end(&j);
	rpt_json_kdouble(&j, "share", 4, 0.25);
	rpt_json_kdouble(&j, "nan", 3, NAN);
	rpt_json_kstr_or_null(&j, "pids", NULL);
	rpt_json_key(&j, "pre");
	rpt_json_value(&j, "{\"x\":1}", 7);
	rpt_json_obj_end(&j);
	s = take(&j);
	CHECK(s && !strcmp(s, "{\"file\":\"a.dat\",\"partial\":false,\"cpus\":[{\"cpu\":-1,"
			      "\"busy_ns\":null},{},[],18446744073709551615],\"share\":0.2500,"
			      "\"nan\":null,\"pids\":null,\"pre\":{\"x\":1}}"), "got %s", s);
	free(s);
}

static void test_top_level_array(void)
{
	struct rpt_json j;
	char *s;

	rpt_json_init(&j, NULL, 0);
	rpt_json_arr(&j);
	rpt_json_str(&j, "a");
	rpt_json_i64(&j, -9223372036854775807LL - 1);
	rpt_json_bool(&j, true);
	rpt_json_null(&j);
	rpt_json_arr_end(&j);
	s = take(&j);
	CHECK(s && !strcmp(s, "[\"a\",-9223372036854775808,true,null]"), "got %s", s);
	free(s);
}

/* the writer's strings are byte for byte ft_json_strn's (one rule everywhere) */
static void test_same_rule_as_ft_json(void)
{
	static const char *const in[] = {
		"plain", "q\"b\\n", "a\nb\tc\x01", "caf\xc3\xa9", "bad\xe9name", "\xc0\xaf",
		"\xed\xa0\x80", "\x7f", "\xf0\x9f\x98\x80 ok", "<script>",
	};
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct rpt_json j;
		char *a = NULL, *b;
		size_t alen = 0;
		FILE *f = open_memstream(&a, &alen);

		ft_json_str(f, in[i]);
		fclose(f);
		rpt_json_init(&j, NULL, 0);
		rpt_json_str(&j, in[i]);
		b = take(&j);
		CHECK(a && b && !strcmp(a, b), "case %zu: writer %s, ft_json_str %s", i, b, a);
		free(a);
		free(b);
	}
}

static void test_invalid_byte_rule(void)
{
	struct rpt_json j;
	char *s;

	/* 0xE9 alone is not UTF-8: the code point of the same value, not U+FFFD */
	rpt_json_init(&j, NULL, 0);
	rpt_json_str(&j, "caf\xe9");
	s = take(&j);
	CHECK(s && !strcmp(s, "\"caf\\u00e9\""), "got %s", s);
	free(s);
	/* inside <script>: '<' cannot end the element */
	rpt_json_init(&j, NULL, FT_JSON_SCRIPT);
	rpt_json_str(&j, "</script>");
	s = take(&j);
	CHECK(s && !strcmp(s, "\"\\u003c/script>\""), "got %s", s);
	free(s);
	rpt_json_init(&j, NULL, 0);
	rpt_json_strn(&j, "abc\0def", 7);
	rpt_json_strn(&j, "abcdef", 2);
	s = take(&j);
	CHECK(s && !strcmp(s, "\"abc\"\"ab\""), "NUL and n end a string: %s", s);
	free(s);
}

/* a stream gets the same text as memory, also past the buffer size */
static void test_stream(void)
{
	struct rpt_json m, j;
	char *a = NULL, *b;
	size_t alen = 0, blen, k;
	FILE *f = open_memstream(&a, &alen);

	rpt_json_init(&j, f, 0);
	rpt_json_init(&m, NULL, 0);
	rpt_json_arr(&j);
	rpt_json_arr(&m);
	for (k = 0; k < 3 * RPT_JSON_BUF / 8; k++) {
		rpt_json_u64(&j, k);
		rpt_json_u64(&m, k);
		if (k == 1000) {
			FILE *vs = rpt_json_value_stream(&j);

			fputs("\"side\"", vs);
			rpt_json_str(&m, "side");
		}
	}
	rpt_json_arr_end(&j);
	rpt_json_arr_end(&m);
	CHECK(rpt_json_done(&j) == 0, "done");
	fclose(f);
	b = rpt_json_take(&m, &blen);
	CHECK(a && b && alen == blen && !memcmp(a, b, blen), "stream %zu bytes, memory %zu", alen, blen);
	CHECK(alen > RPT_JSON_BUF, "the test passes the buffer size (%zu)", alen);
	free(a);
	free(b);
}

static void test_misuse(void)
{
	struct rpt_json j;
	unsigned k;
	size_t len;

	rpt_json_init(&j, NULL, 0);
	rpt_json_obj(&j);
	CHECK(rpt_json_done(&j) == -EINVAL, "an unclosed object is an error");
	rpt_json_init(&j, NULL, 0);
	rpt_json_arr_end(&j);
	CHECK(rpt_json_done(&j) == -EINVAL, "a close with nothing open is an error");
	rpt_json_init(&j, NULL, 0);
	for (k = 0; k < RPT_JSON_MAX_DEPTH + 2; k++)
		rpt_json_arr(&j);
	for (k = 0; k < RPT_JSON_MAX_DEPTH + 2; k++)
		rpt_json_arr_end(&j);
	CHECK(rpt_json_take(&j, &len) == NULL && len == 0, "too deep: no text");
}

/* A call graph 300 frames deep: two levels a frame, each with two members, commas right */
static void test_deep_tree(void)
{
	struct rpt_json j;
	char *t;
	size_t len, k, commas = 0;
	int d;

	rpt_json_init(&j, NULL, 0);
	for (d = 0; d < 300; d++) {
		rpt_json_obj(&j);
		rpt_json_ku64(&j, "n", (uint64_t)d);
		rpt_json_karr(&j, "children");
	}
	for (d = 0; d < 300; d++) {
		rpt_json_arr_end(&j);
		rpt_json_ku64(&j, "hidden", 0);
		rpt_json_obj_end(&j);
	}
	t = rpt_json_take(&j, &len);
	CHECK(t != NULL, "600 levels are within the writer's depth");
	for (k = 0; t && k < len; k++)
		commas += t[k] == ',';
	/* per frame: n,children and children,hidden */
	CHECK(commas == 600, "%zu commas", commas);
	CHECK(t && !strncmp(t, "{\"n\":0,\"children\":[{\"n\":1,", 26), "%.30s", t ? t : "");
	CHECK(t && len > 30 && !strcmp(t + len - 26, "],\"hidden\":0}],\"hidden\":0}"), "%s",
	      t && len > 30 ? t + len - 30 : "");
	free(t);
}

int main(void)
{
	test_nesting();
	test_deep_tree();
	test_top_level_array();
	test_same_rule_as_ft_json();
	test_invalid_byte_rule();
	test_stream();
	test_misuse();
	return check_summary();
}
