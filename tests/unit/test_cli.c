// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command-line helpers every command shares (flytrap.c): option value
 * parsers and JSON string output, which must stay valid JSON for any bytes
 * a trace file holds.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flytrap.h"

static char *json(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ft_json_strn(f, s, n);
	fclose(f);
	return buf;
}

static void test_json(void)
{
	static const struct { const char *in; size_t n; const char *out; } cases[] = {
		{ "plain", 5, "\"plain\"" },
		{ "q\"b\\n", 5, "\"q\\\"b\\\\n\"" },
		{ "a\nb\tc\x01", 6, "\"a\\nb\\tc\\u0001\"" },
		{ "stop\0here", 9, "\"stop\"" },
		{ "cut", 2, "\"cu\"" },
		{ "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"" },		/* valid UTF-8 passes */
		{ "\xe2\x82\xac!", 4, "\"\xe2\x82\xac!\"" },		/* 3-byte sequence */
		{ "bad\xff", 4, "\"bad\\u00ff\"" },			/* invalid byte */
		{ "\xc3", 1, "\"\\u00c3\"" },				/* sequence cut by n */
		{ "\xc0\xaf", 2, "\"\\u00c0\\u00af\"" },		/* overlong */
		{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" },	/* surrogate */
		{ "\x7f", 1, "\"\\u007f\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = json(cases[i].in, cases[i].n);

		CHECK(got && !strcmp(got, cases[i].out), "case %zu: got %s want %s", i, got, cases[i].out);
		free(got);
	}
}

static void test_parsers(void)
{
	uint64_t v, m[4];

	CHECK(!ft_parse_duration_ns("1.5", &v) && v == 1500000000ULL, "1.5 -> %llu", (unsigned long long)v);
	CHECK(!ft_parse_duration_ns("500ms", &v) && v == 500000000ULL, "500ms");
	CHECK(!ft_parse_duration_ns("2m", &v) && v == 120000000000ULL, "2m");
	CHECK(!ft_parse_duration_ns("10us", &v) && v == 10000ULL, "10us");
	CHECK(ft_parse_duration_ns("10 s", &v) && ft_parse_duration_ns("-1", &v) &&
	      ft_parse_duration_ns("", &v) && ft_parse_duration_ns("5x", &v), "junk durations refused");
	CHECK(ft_parse_duration_ns("nanms", &v) && ft_parse_duration_ns("inf", &v) &&
	      ft_parse_duration_ns("infinity", &v) && ft_parse_duration_ns("0x10", &v) &&
	      ft_parse_size("nanM", &v) && ft_parse_ts("NaN", &v) && ft_parse_ts(".", &v),
	      "nan, inf and hex refused");
	CHECK(!ft_parse_duration_ns(".5", &v) && v == 500000000ULL, ".5");
	CHECK(!ft_parse_duration_ns("1e3ms", &v) && v == 1000000000ULL, "1e3ms");
	CHECK(!ft_parse_size("100M", &v) && v == 100ULL << 20, "100M");
	CHECK(!ft_parse_size("4096", &v) && v == 4096, "4096");
	CHECK(!ft_parse_size("1.5G", &v) && v == 3ULL << 29, "1.5G");
	CHECK(ft_parse_size("1e30", &v) && ft_parse_size("M", &v), "absurd sizes refused");
	CHECK(!ft_parse_ts("1020.124066", &v) && v == 1020124066000ULL, "ts %llu", (unsigned long long)v);
	/* a wall-clock time line: 19 digits of ns, exact (a double is 256 ns off here) */
	CHECK(!ft_parse_ts("1795000000.000002001", &v) && v == 1795000000000002001ULL,
	      "epoch ts %llu", (unsigned long long)v);
	CHECK(!ft_parse_ts(".5", &v) && v == 500000000ULL && !ft_parse_ts("7", &v) && v == 7000000000ULL,
	      "short forms");
	CHECK(ft_parse_ts("1.0000000001", &v) && ft_parse_ts("1e9", &v) && ft_parse_ts("+1", &v) &&
	      ft_parse_ts("18446744074", &v), "10 decimals, exponents, signs and overflow refused");
	CHECK(!ft_parse_decimal("010", &v) && v == 10 && ft_parse_decimal("0x10", &v) &&
	      ft_parse_decimal("+1", &v) && ft_parse_decimal(" 1", &v), "ticks: decimal digits only");
	CHECK(!ft_parse_u64("0x10", &v) && v == 16, "hex");
	CHECK(ft_parse_u64("-3", &v) && ft_parse_u64("3z", &v), "bad numbers refused");
	CHECK(!ft_parse_cpulist("0,2-3,255", m) && m[0] == 0xd && m[3] == 1ULL << 63, "cpulist");
	CHECK(ft_parse_cpulist("3-1", m) && ft_parse_cpulist("256", m) && ft_parse_cpulist("1,,2", m) &&
	      ft_parse_cpulist("a", m) && ft_parse_cpulist("1-", m), "bad cpulists refused");
}

static const struct ft_opt demo_opts[] = {
	{ "event", 'e', true, 'e' },
	{ "raw", 'R', false, 'R' },
	{ NULL, 'N', false, 'N' },
	{ "from", 0, true, 1000 },
	{ "json", 0, false, 1001 },
	{ 0 },
};

/* Parse args (NULL-terminated) into "id=value ..." ("@" for an operand); "ERR" on a refusal */
static const char *opt_trace(char **args, char *out, size_t len)
{
	struct ft_optparse p;
	size_t used = 0;
	int argc = 0, id;

	while (args[argc])
		argc++;
	ft_opt_init(&p, argc, args, demo_opts);
	out[0] = 0;
	while ((id = ft_opt_next(&p)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR)
			return "ERR";
		used += (size_t)snprintf(out + used, len - used, "%s%s%s%s", used ? " " : "",
					 id == FT_OPT_OPERAND ? "@" : id < 256 ? (char[2]){ (char)id, 0 } :
					 id == 1000 ? "from" : "json", p.value ? "=" : "",
					 p.value ? p.value : "");
		if (used >= len)
			return "TOO LONG";
	}
	return out;
}

static void test_optparse(void)
{
	static const struct { const char *args[8]; const char *want; } cases[] = {
		{ { "cmd", "-e", "sched", "f.dat" }, "e=sched @=f.dat" },
		{ { "cmd", "-esched", "--event=irq", "--event", "x" }, "e=sched e=irq e=x" },
		{ { "cmd", "-RN", "-RNe", "v" }, "R N R N e=v" },
		{ { "cmd", "a", "--from", "-5", "b" }, "@=a from=-5 @=b" },
		{ { "cmd", "--json", "--", "--json", "-R" }, "json @=--json @=-R" },
		{ { "cmd", "-" }, "@=-" },
		{ { "cmd", "--from=" }, "from=" },
		{ { "cmd", "--nope" }, "ERR" },
		{ { "cmd", "-x" }, "ERR" },
		{ { "cmd", "-Rx" }, "ERR" },
		{ { "cmd", "--event" }, "ERR" },
		{ { "cmd", "-e" }, "ERR" },
		{ { "cmd", "--event", "--json" }, "ERR" },
		{ { "cmd", "-e", "-R" }, "ERR" },
		{ { "cmd", "--json=1" }, "ERR" },
		{ { "cmd", "--jso" }, "ERR" },
	};
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = opt_trace((char **)cases[i].args, buf, sizeof(buf));

		CHECK(!strcmp(got, cases[i].want), "case %zu: got '%s' want '%s'", i, got, cases[i].want);
	}
}

int main(void)
{
	test_json();
	test_parsers();
	test_optparse();
	return check_summary();
}
