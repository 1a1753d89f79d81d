// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text the analyzers print: times (seconds, or ticks on a raw counter
 * clock), durations, sizes, the filters line, names fitted to a column,
 * titles and wrapped bullets.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"

/* The file being analyzed counts raw clock ticks, not ns (set per file). */
static bool ts_ticks;

void rpt_set_raw_clock(bool ticks)
{
	ts_ticks = ticks;
}


bool rpt_raw_clock(void)
{
	return ts_ticks;
}

const char *rpt_fmt_ts(char *buf, size_t len, uint64_t ns)
{
	if (ts_ticks) {
		snprintf(buf, len, "%" PRIu64, ns);
		return buf;
	}
	/* rounded to the microsecond, as report (and trace-cmd) print times */
	ns = ns > UINT64_MAX - 500 ? ns : ns + 500;
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, (uint64_t)(ns / 1000000000u),
		 (uint64_t)(ns % 1000000000u / 1000));
	return buf;
}

/* "1.500 us", or compact (at most 8 characters for 3-digit values): "1.5us" */
static const char *fmt_dur(char *buf, size_t len, uint64_t ns, bool compact)
{
	/* one style everywhere ("4.02 s" next to "4.175 s"), a space before the unit */
	if (!compact) {
		if (ns < 1000)
			snprintf(buf, len, "%" PRIu64 " ns", ns);
		else if (ns < 1000000)
			snprintf(buf, len, "%.3f us", ns / 1e3);
		else if (ns < 1000000000ULL)
			snprintf(buf, len, "%.3f ms", ns / 1e6);
		else
			snprintf(buf, len, "%.3f s", ns / 1e9);
		return buf;
	}
	/* at most 8 characters; the unit switches where the rounded value would reach 1000 */
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 999950)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 999950000)
		snprintf(buf, len, "%.*f ms", ns < 99995000 ? 2 : 1, ns / 1e6);
	else if (ns < 999950000000ULL)
		snprintf(buf, len, "%.*f s", ns < 99995000000ULL ? 2 : 1, ns / 1e9);
	else if (ns < 999999500000000ULL)
		snprintf(buf, len, "%.0f s", ns / 1e9);
	else
		snprintf(buf, len, "%.0f h", ns / 3.6e12);
	return buf;
}

const char *rpt_fmt_dur(char *buf, size_t len, uint64_t ns)
{
	return fmt_dur(buf, len, ns, false);
}

const char *rpt_fmt_dur_short(char *buf, size_t len, uint64_t ns)
{
	return fmt_dur(buf, len, ns, true);
}

const char *rpt_fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b < 1024)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else if (b < (1ULL << 20))
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	else if (b < (1ULL << 30))
		snprintf(buf, len, "%.1f MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.2f GiB", b / 1073741824.0);
	return buf;
}

const char *rpt_fmt_filters(const struct rpt_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
#define ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	if (o->has_t0 && ts_ticks)
		ADD("from %" PRIu64 " ticks ", o->t0_ns);
	else if (o->has_t0 && o->t0_arg)
		ADD("from %s s ", o->t0_arg);
	else if (o->has_t0)
		ADD("from %" PRIu64 ".%09" PRIu64 " s ", o->t0_ns / UINT64_C(1000000000),
		    o->t0_ns % UINT64_C(1000000000));
	if (o->has_t1 && ts_ticks)
		ADD("to %" PRIu64 " ticks ", o->t1_ns);
	else if (o->has_t1 && o->t1_arg)
		ADD("to %s s ", o->t1_arg);
	else if (o->has_t1)
		ADD("to %" PRIu64 ".%09" PRIu64 " s ", o->t1_ns / UINT64_C(1000000000),
		    o->t1_ns % UINT64_C(1000000000));
	if (o->has_cpus) {
		char c[256];

		rpt_fmt_cpus(c, sizeof(c), o->cpu_mask);
		ADD("CPU%s %s ", strchr(c, ',') || strchr(c, '-') ? "s" : "", c);
	}
	for (k = 0; k < o->npids; k++)
		ADD("pid %d ", o->pids[k]);
	for (k = 0; k < o->ncomms; k++)
		ADD("comm %s ", o->comms[k]);
#undef ADD
	if (n >= len)
		n = len - 1;
	if (n && buf[n - 1] == ' ')
		buf[n - 1] = '\0';
	return buf;
}

/* Display width of a UTF-8 string (code points; paths are rarely wide). */
static size_t cols(const char *s, size_t n)
{
	size_t k, w = 0;

	for (k = 0; k < n; k++)
		w += ((unsigned char)s[k] & 0xc0) != 0x80;
	return w;
}

/*
 * Byte length of the longest prefix of s (n bytes) with at most w columns, on
 * a character boundary.
 */
static size_t prefix_cols(const char *s, size_t n, size_t w)
{
	size_t k, c = 0;

	for (k = 0; k < n; k++) {
		if (((unsigned char)s[k] & 0xc0) != 0x80) {
			if (c == w)
				return k;
			c++;
		}
	}
	return n;
}

const char *rpt_fit(char *buf, size_t len, const char *s, int width)
{
	size_t n = strlen(s);

	if (width < 2 || cols(s, n) <= (size_t)width)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s~", (int)prefix_cols(s, n, (size_t)width - 1), s);
	return buf;
}

void rpt_print_title(FILE *out, const char *what, const char *path)
{
	const size_t width = 80;
	size_t wl = cols(what, strlen(what)) + 1, pl, room, keep_end, head, tail_start;
	const char *base;

	if (!path)
		path = "input";
	pl = strlen(path);
	if (wl + cols(path, pl) <= width || wl + 8 > width) {
		fprintf(out, "%s %s\n", what, path);
		return;
	}
	/*
	 * Too long: keep the file name (the end of the path) and as much of
	 * the start as fits, "..." in between; a file name too long on its
	 * own keeps its end.
	 */
	room = width - wl - 3;
	base = strrchr(path, '/');
	base = base ? base : path;
	keep_end = cols(base, strlen(base));
	if (keep_end > room)
		keep_end = room;
	head = prefix_cols(path, pl, room - keep_end);
	/* the tail: the last keep_end characters */
	tail_start = pl;
	while (tail_start > 0 && cols(path + tail_start, pl - tail_start) < keep_end)
		tail_start--;
	while (tail_start > 0 && ((unsigned char)path[tail_start] & 0xc0) == 0x80)
		tail_start--;
	fprintf(out, "%s %.*s...%s\n", what, (int)head, path, path + tail_start);
}

void rpt_print_bullet(FILE *out, int width, const char *p)
{
	int col = 0, first = 1;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);

		if (col && col + 1 + wl > width) {
			fputc('\n', out);
			col = 0;
		}
		if (!col) {
			fputs(first ? "  - " : "    ", out);
			col = 4;
			first = 0;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, (size_t)wl, out);
		col += wl;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}
