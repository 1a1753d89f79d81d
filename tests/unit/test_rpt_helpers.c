// SPDX-License-Identifier: GPL-2.0-only
/*
 * Analyzer helpers: the log-linear histogram (bucket bounds, the documented
 * 1/64 percentile error on random data, exact percentiles for few values),
 * the u64 map (stable values, iteration), the common option parser,
 * globbing, and symbol lookup (kallsyms text; user addresses of this very
 * program through its own /proc/self/maps and ELF symbols).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/core/replay.h"
#include "report/syms/symbols.h"
#include "check.h"



static uint64_t rng = 88172645463325252ULL;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hist(void)
{
	struct rpt_hist h = { 0 };
	static uint64_t vals[20000];
	const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999 };
	uint64_t v;
	unsigned b, k;

	/* every value lies inside its bucket, buckets are ordered */
	for (k = 0; k < 200000; k++) {
		v = xorshift() >> (xorshift() % 64);
		b = rpt_hist_bucket(v);
		CHECK(b < RPT_HIST_BUCKETS, "bucket %u of %" PRIu64, b, v);
		CHECK(rpt_hist_bucket_low(b) <= v, "low %" PRIu64 " > %" PRIu64, rpt_hist_bucket_low(b), v);
		if (b + 1 < RPT_HIST_BUCKETS)
			CHECK(v < rpt_hist_bucket_low(b + 1), "%" PRIu64 " beyond bucket %u", v, b);
	}
	CHECK(rpt_hist_bucket(UINT64_MAX) == RPT_HIST_BUCKETS - 1, "last bucket %u", rpt_hist_bucket(UINT64_MAX));
	for (v = 0; v < 64; v++)
		CHECK(rpt_hist_bucket(v) == v && rpt_hist_bucket_low((unsigned)v) == v, "small %" PRIu64, v);

	/* few values: exact nearest-rank percentiles */
	rpt_hist_add(&h, 4000000);
	rpt_hist_add(&h, 2000000);
	CHECK(rpt_hist_quantile(&h, 0.5) == 2000000, "p50 %" PRIu64, rpt_hist_quantile(&h, 0.5));
	CHECK(rpt_hist_quantile(&h, 0.99) == 4000000, "p99 %" PRIu64, rpt_hist_quantile(&h, 0.99));
	CHECK(h.sum == 6000000 && h.min == 2000000 && h.max == 4000000 && h.count == 2, "sum/min/max");
	rpt_hist_release(&h);

	/* many values spread over six decades: within 1/64 of the exact percentile */
	for (k = 0; k < 20000; k++) {
		uint64_t e = xorshift() % 20;

		vals[k] = (1000ULL << e) + xorshift() % (1000ULL << e);
		CHECK(rpt_hist_add(&h, vals[k]) == 0, "add");
	}
	qsort(vals, 20000, sizeof(vals[0]), cmp_u64);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t rank = (uint64_t)(qs[k] * 20000 + 0.999999);
		uint64_t exact = vals[rank - 1], got = rpt_hist_quantile(&h, qs[k]);
		double err = (double)(got > exact ? got - exact : exact - got) / (double)exact;

		CHECK(err <= 1.0 / 64, "q%.3f: got %" PRIu64 ", exact %" PRIu64 " (%.3f%%)", qs[k], got, exact,
		      100 * err);
	}
	CHECK(rpt_hist_quantile(&h, 1.0) == vals[19999], "max");
	CHECK(rpt_hist_quantile(&h, 0.0) == vals[0], "min");
	rpt_hist_release(&h);
	CHECK(rpt_hist_quantile(&h, 0.5) == 0, "empty histogram");
}

/*
 * rpt_hist_merge (ranged analysis): values split between two histograms at
 * any point, merged, give what one histogram of them all gives: count, sum,
 * min, max, buckets and every percentile, below and above the exact limit.
 */
static void test_hist_merge(void)
{
	static uint64_t vals[3000];
	const size_t sizes[] = { 1, 2, 20, RPT_HIST_EXACT, RPT_HIST_EXACT + 1, 100, 3000 };
	const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0 };

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];

		for (size_t k = 0; k < n; k++)
			vals[k] = xorshift() % 5000000;
		for (size_t cut = 0; cut <= n; cut += n / 7 + 1) {
			struct rpt_hist all = { 0 }, a = { 0 }, b = { 0 };
			bool same;

			for (size_t k = 0; k < n; k++) {
				rpt_hist_add(&all, vals[k]);
				rpt_hist_add(k < cut ? &a : &b, vals[k]);
			}
			CHECK(rpt_hist_merge(&a, &b) == 0, "merge");
			same = a.count == all.count && a.sum == all.sum && a.min == all.min &&
			       a.max == all.max && !memcmp(a.buckets, all.buckets,
							   RPT_HIST_BUCKETS * sizeof(*a.buckets));
			CHECK(same, "%zu values cut at %zu: count %" PRIu64 "/%" PRIu64 " sum %" PRIu64
			      "/%" PRIu64 " min %" PRIu64 "/%" PRIu64 " max %" PRIu64 "/%" PRIu64, n, cut,
			      a.count, all.count, a.sum, all.sum, a.min, all.min, a.max, all.max);
			for (size_t q = 0; q < sizeof(qs) / sizeof(qs[0]); q++)
				CHECK(rpt_hist_quantile(&a, qs[q]) == rpt_hist_quantile(&all, qs[q]),
				      "%zu values cut at %zu: q%.2f %" PRIu64 " against %" PRIu64, n, cut,
				      qs[q], rpt_hist_quantile(&a, qs[q]), rpt_hist_quantile(&all, qs[q]));
			rpt_hist_release(&all);
			rpt_hist_release(&a);
			rpt_hist_release(&b);
		}
	}
	/* an empty side changes nothing */
	{
		struct rpt_hist a = { 0 }, e = { 0 };

		rpt_hist_add(&a, 7);
		CHECK(rpt_hist_merge(&a, &e) == 0 && a.count == 1 && a.sum == 7, "merge of nothing");
		CHECK(rpt_hist_merge(&e, &a) == 0 && e.count == 1 && e.min == 7 && e.max == 7 &&
		      rpt_hist_quantile(&e, 0.5) == 7, "merge into nothing");
		rpt_hist_release(&a);
		rpt_hist_release(&e);
	}
}

struct val {
	uint64_t key, n;
};

static void test_map(void)
{
	struct rpt_map m;
	static struct val *ptrs[100000];
	size_t pos = 0, seen = 0;
	uint64_t key, k;
	struct val *v;
	bool created;

	rpt_map_init(&m, sizeof(struct val));
	for (k = 0; k < 100000; k++) {
		v = rpt_map_get(&m, k * 7919, &created);
		CHECK(v && created, "insert %" PRIu64, k);
		if (!v)
			break;
		v->key = k * 7919;
		ptrs[k] = v;
	}
	for (k = 0; k < 100000; k++) {
		v = rpt_map_get(&m, k * 7919, &created);
		CHECK(v == ptrs[k] && !created, "value of %" PRIu64 " moved", k);
		CHECK(rpt_map_find(&m, k * 7919) == ptrs[k], "find %" PRIu64, k);
	}
	CHECK(rpt_map_find(&m, 3) == NULL, "absent key found");
	while ((v = rpt_map_next(&m, &pos, &key))) {
		CHECK(v->key == key, "iteration key");
		seen++;
	}
	CHECK(seen == 100000 && m.count == 100000, "iterated %zu", seen);
	rpt_map_release(&m);
	CHECK(rpt_map_find(&m, 0) == NULL, "released map finds");
}

static void test_opts(void)
{
	struct rpt_opts o = { 0 };
	char *argv[] = { "x", "--from=1.5", "--to", "2", "--cpu", "0,2-3", "--pid", "4,5", "--comm", "ab*",
			 "--json", "--cpu", "1", "--other", "--cpu", "zz", "--pid", "-3", "--pid", "+3" };
	int argc = (int)(sizeof(argv) / sizeof(argv[0])), id, n = 0, rc;
	struct ft_optparse p;

	ft_opt_init(&p, argc, argv, rpt_filter_opts);
	ft_opt_add_table(&p, rpt_json_opts);
	while (n < 7 && (id = ft_opt_next(&p)) > 0) {
		rc = rpt_opts_option(&o, id, p.value);
		CHECK(rc == 0, "option %d refused (%d)", n, rc);
		n++;
	}
	CHECK(n == 7, "%d options taken", n);
	CHECK(o.has_t0 && o.t0_ns == 1500000000ULL, "from %" PRIu64, o.t0_ns);
	CHECK(o.has_t1 && o.t1_ns == 2000000000ULL, "to %" PRIu64, o.t1_ns);
	CHECK(o.has_cpus && o.cpu_mask[0] == 0xf, "cpu lists add up: mask %" PRIx64, o.cpu_mask[0]);
	CHECK(o.npids == 2 && o.pids[0] == 4 && o.pids[1] == 5, "pids");
	CHECK(o.ncomms == 1 && !strcmp(o.comms[0], "ab*"), "comm");
	CHECK(o.json, "json");
	CHECK(ft_opt_next(&p) == FT_OPT_ERROR, "--other taken");
	id = ft_opt_next(&p);
	CHECK(id > 0 && rpt_opts_option(&o, id, p.value) == EXIT_USAGE, "--cpu zz accepted");
	id = ft_opt_next(&p);	/* "-3" is a value (a digit follows the '-'), which --pid refuses */
	CHECK(id > 0 && rpt_opts_option(&o, id, p.value) == EXIT_USAGE, "--pid -3 accepted");
	id = ft_opt_next(&p);
	CHECK(id > 0 && rpt_opts_option(&o, id, p.value) == EXIT_USAGE, "--pid +3 accepted");
	rpt_opts_release(&o);
	CHECK(o.pids == NULL && o.comms == NULL, "release");

	CHECK(rpt_glob("kworker/*", "kworker/0:1"), "glob *");
	CHECK(!rpt_glob("kworker", "kworker/0:1"), "glob exact");
	CHECK(rpt_glob("ba?h", "bash"), "glob ?");
}

/* a function whose address this test resolves through its own ELF symbols */
__attribute__((noinline)) int test_rpt_marker_function(int x)
{
	return x * 3 + 1;
}

static void test_symbols(void)
{
	static const char ks[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T start_kernel\n"
		"ffffffff81000080 t early_init\n"
		"ffffffff81002000 A absolute_thing\n"
		"ffffffffc0001000 t mod_func\t[mymod]\n"
		"garbage line\n";
	struct rpt_syms *s = rpt_syms_new(NULL, NULL, NULL, 0);
	uint64_t off = 0;
	const char *n, *dso = NULL;
	char maps[65536], buf[128];
	FILE *f;
	size_t len;

	CHECK(s != NULL, "rpt_syms_new");
	if (!s)
		return;
	CHECK(rpt_syms_add_kallsyms(s, ks, strlen(ks)) == 0, "kallsyms");
	n = rpt_syms_kernel(s, 0xffffffff81000105ULL, &off);
	CHECK(n && !strcmp(n, "start_kernel") && off == 5, "start_kernel+5: %s+%" PRIu64, n ? n : "NULL", off);
	n = rpt_syms_kernel(s, 0xffffffff81000090ULL, &off);
	CHECK(n && !strcmp(n, "early_init") && off == 0x10, "unsorted input: %s", n ? n : "NULL");
	n = rpt_syms_kernel(s, 0xffffffff81002010ULL, &off);
	CHECK(n && !strcmp(n, "start_kernel"), "absolute symbols are skipped: %s", n ? n : "NULL");
	n = rpt_syms_kernel(s, 0xffffffffc0001004ULL, &off);
	CHECK(n && !strcmp(n, "mod_func"), "module tag kept out of the name: %s", n ? n : "NULL");
	CHECK(rpt_syms_kernel(s, 0xffffffff80000000ULL, &off) == NULL, "below the first symbol");
	CHECK(rpt_syms_kernel(s, 0xffffffffd0000000ULL, &off) == NULL, "far past the last symbol");

	/* this process, described the way the recorder stores maps */
	f = fopen("/proc/self/maps", "r");
	CHECK(f != NULL, "open /proc/self/maps");
	if (f) {
		len = (size_t)snprintf(maps, sizeof(maps), "== %d test\n", (int)getpid());
		len += fread(maps + len, 1, sizeof(maps) - len - 1, f);
		fclose(f);
		CHECK(rpt_syms_add_maps(s, maps, len) == 0, "maps");
		n = rpt_syms_user(s, (int)getpid(), (uint64_t)(uintptr_t)&test_rpt_marker_function + 4, &dso, &off);
		CHECK(n && !strcmp(n, "test_rpt_marker_function") && off == 4, "own function: %s+%" PRIu64,
		      n ? n : "NULL", off);
		CHECK(dso && !strcmp(dso, "test_rpt_helpers"), "dso %s", dso ? dso : "NULL");
		n = rpt_syms_user(s, (int)getpid() + 1, (uint64_t)(uintptr_t)&test_rpt_marker_function, &dso, &off);
		CHECK(n == NULL && dso == NULL, "another pid resolves");
	}
	CHECK(rpt_syms_missing(s, buf, sizeof(buf)) == 0, "missing binaries: %s", buf);
	rpt_syms_free(s);

	/* trace-cmd's maps (no file offsets) of a binary that does not exist */
	s = rpt_syms_new(NULL, NULL, NULL, 0);
	if (s) {
		static const char tc[] = "2a 1 app\n400000 500000 /nonexistent/app\n";

		CHECK(rpt_syms_add_maps(s, tc, strlen(tc)) == 0, "trace-cmd maps");
		n = rpt_syms_user(s, 42, 0x401000, &dso, &off);
		CHECK(n == NULL && dso && !strcmp(dso, "app"), "unknown binary: %s / %s", n ? n : "NULL",
		      dso ? dso : "NULL");
		CHECK(rpt_syms_missing(s, buf, sizeof(buf)) == 1 && strstr(buf, "/nonexistent/app"), "missing: %s", buf);
		rpt_syms_free(s);
	}
}

/* hex build-id of an ELF file, or "" */
static void file_buildid(const char *path, char *hex, size_t len)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;

	hex[0] = 0;
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, no, dof, k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &no, &dof)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz * 2 < len)
				for (k = 0; k < nh.n_descsz; k++)
					sprintf(hex + 2 * k, "%02x", ((unsigned char *)d->d_buf)[dof + k]);
	}
	if (e)
		elf_end(e);
out:
	if (fd >= 0)
		close(fd);
}

/* /proc/self/maps as flytrap stores it, with this program's path replaced by fake */
static size_t own_maps(char *buf, size_t len, const char *real, const char *fake)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	size_t used = (size_t)snprintf(buf, len, "== %d test\n", (int)getpid());

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, real);

		if (p)
			used += (size_t)snprintf(buf + used, len - used, "%.*s%s\n", (int)(p - line), line, fake);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s", line);
		if (used >= len)
			break;
	}
	if (f)
		fclose(f);
	return used < len ? used : len - 1;
}

/* binaries found by build-id in a debug directory and under --symfs */
static void test_symbol_search(void)
{
	char real[PATH_MAX], bid[130], dir[] = "/tmp/rpt-syms.XXXXXX", p[PATH_MAX + 64], maps[65536], line[256];
	const char *dirs[2] = { dir, NULL }, *n, *dso;
	struct rpt_syms *s;
	uint64_t off = 0, addr = (uint64_t)(uintptr_t)&test_rpt_marker_function + 2;
	size_t len;

	if (!realpath("/proc/self/exe", real) || !mkdtemp(dir)) {
		CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	file_buildid(real, bid, sizeof(bid));
	if (strlen(bid) < 4) {
		printf("note: this binary has no build-id; debug-directory lookup not tested\n");
		rmdir(dir);
		return;
	}
	len = own_maps(maps, sizeof(maps), real, "/nonexistent/bin/prog");

	/* debug directory: DIR/.build-id/xx/rest.debug */
	snprintf(p, sizeof(p), "%s/.build-id", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s", dir, bid);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", dir, bid, bid + 2);
	CHECK(symlink(real, p) == 0, "symlink %s", p);
	s = rpt_syms_new(NULL, NULL, dirs, 0);
	snprintf(line, sizeof(line), "/nonexistent/bin/prog %s\n", bid);
	CHECK(s && rpt_syms_add_maps(s, maps, len) == 0 && rpt_syms_add_buildids(s, line, strlen(line)) == 0, "setup");
	n = rpt_syms_user(s, (int)getpid(), addr, &dso, &off);
	CHECK(n && !strcmp(n, "test_rpt_marker_function") && off == 2, "by build-id in a debug dir: %s",
	      n ? n : "NULL");
	CHECK(dso && !strcmp(dso, "prog"), "dso %s", dso ? dso : "NULL");
	rpt_syms_free(s);
	unlink(p);

	/* --symfs DIR: DIR/nonexistent/bin/prog, checked against the build-id */
	snprintf(p, sizeof(p), "%s/nonexistent", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/nonexistent/bin", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/nonexistent/bin/prog", dir);
	CHECK(symlink(real, p) == 0, "symlink %s", p);
	s = rpt_syms_new(NULL, dir, NULL, 0);
	CHECK(s && rpt_syms_add_maps(s, maps, len) == 0 && rpt_syms_add_buildids(s, line, strlen(line)) == 0, "setup");
	n = rpt_syms_user(s, (int)getpid(), addr, &dso, &off);
	CHECK(n && !strcmp(n, "test_rpt_marker_function"), "under --symfs: %s", n ? n : "NULL");
	rpt_syms_free(s);
	/* ... but not another build of it */
	s = rpt_syms_new(NULL, dir, NULL, 0);
	snprintf(line, sizeof(line), "/nonexistent/bin/prog 00112233445566778899aabbccddeeff00112233\n");
	CHECK(s && rpt_syms_add_maps(s, maps, len) == 0 && rpt_syms_add_buildids(s, line, strlen(line)) == 0, "setup");
	n = rpt_syms_user(s, (int)getpid(), addr, &dso, &off);
	CHECK(n == NULL, "a binary with another build-id was used: %s", n);
	rpt_syms_free(s);

	unlink(p);
	snprintf(p, sizeof(p), "%s/nonexistent/bin", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/nonexistent", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s", dir, bid);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/.build-id", dir);
	rmdir(p);
	rmdir(dir);
}

static void test_format(void)
{
	char b[32];

	/* rounded to the microsecond, like report and trace-cmd */
	CHECK(!strcmp(rpt_fmt_ts(b, sizeof(b), 12345678901ULL), "12.345679"), "ts %s", b);
	CHECK(!strcmp(rpt_fmt_ts(b, sizeof(b), 12345678499ULL), "12.345678"), "ts %s", b);
	CHECK(!strcmp(rpt_fmt_ts(b, sizeof(b), 12999999500ULL), "13.000000"), "ts %s", b);
	CHECK(!strcmp(rpt_fmt_dur(b, sizeof(b), 999), "999 ns"), "dur %s", b);
	CHECK(!strcmp(rpt_fmt_dur(b, sizeof(b), 1500), "1.500 us"), "dur %s", b);
	CHECK(!strcmp(rpt_fmt_dur(b, sizeof(b), 2500000000ULL), "2.500 s"), "dur %s", b);
	/* the same style as rpt_fmt_dur (a space before the unit), in at most 8 characters */
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 999), "999 ns"), "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 1550), "1.6 us") ||
	      !strcmp(b, "1.5 us"), "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 999999), "1000.0 us") ||
	      strlen(b) <= 8, "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 12500000), "12.50 ms"), "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 999900000), "999.9 ms"), "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 4021000000ULL), "4.02 s"), "short %s", b);
	CHECK(!strcmp(rpt_fmt_dur_short(b, sizeof(b), 123456000000ULL), "123.5 s"), "short %s", b);
	{
		static const uint64_t v[] = { 0, 999, 999949, 999950, 99999999, 999999999, 99999999999ULL,
					      9999999999999ULL, 999999999999999ULL };
		size_t k;

		for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			CHECK(strlen(rpt_fmt_dur_short(b, sizeof(b), v[k])) <= 8, "short %s is wider than 8", b);
	}
	/* names cut for a column show it */
	CHECK(!strcmp(rpt_fit(b, sizeof(b), "clock_nanosleep", 14), "clock_nanosle~"), "fit %s", b);
	CHECK(!strcmp(rpt_fit(b, sizeof(b), "nanosleep", 14), "nanosleep"), "fit %s", b);
	CHECK(!strcmp(rpt_fit(b, sizeof(b), "4a100000.ethernet", 16), "4a100000.ethern~"), "fit %s", b);
	CHECK(!strcmp(rpt_fmt_bytes(b, sizeof(b), 1536), "1.5 KiB"), "bytes %s", b);
}

/* rpt_print_title into a string, newline removed */
static const char *title(char *buf, size_t len, const char *what, const char *path)
{
	FILE *f = fmemopen(buf, len, "w");
	size_t n;

	buf[0] = 0;
	if (!f)
		return buf;
	rpt_print_title(f, what, path);
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return buf;
}

/* display columns of UTF-8 text */
static size_t columns(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void test_titles(void)
{
	char b[512], longp[300], longb[300];
	uint64_t m[4] = { 0xf | 1ULL << 8, 0, 0, 1ULL << 3 };
	struct rpt_opts o = { 0 };
	int k;

	CHECK(!strcmp(title(b, sizeof(b), "Overhead of", "t.dat"), "Overhead of t.dat"), "%s", b);
	snprintf(longp, sizeof(longp), "/home/user/%s/some-trace.dat",
		 "a-very-long-directory-name/another-very-long-directory-name/and-one-more-level");
	title(b, sizeof(b), "Lost events in", longp);
	CHECK(columns(b) == 80, "%zu columns: %s", columns(b), b);
	CHECK(strstr(b, ".../") && strstr(b, "/some-trace.dat") && !strncmp(b, "Lost events in /home/user/", 26),
	      "shortened: %s", b);
	/* a file name longer than the line keeps its end */
	memset(longb, 'x', 150);
	strcpy(longb + 150, "-end.dat");
	title(b, sizeof(b), "Call graph of", longb);
	CHECK(columns(b) <= 80 && strstr(b, "...") && strstr(b, "-end.dat"), "long name: %s", b);
	/* cut on a character boundary */
	longp[0] = 0;
	for (k = 0; k < 40; k++)
		strcat(longp, "\xc3\xa9t\xc3\xa9/");
	strcat(longp, "f.dat");
	title(b, sizeof(b), "Overhead of", longp);
	CHECK(columns(b) <= 80 && ft_utf8_len((const unsigned char *)b, strlen(b), NULL) &&
	      strstr(b, "/f.dat"), "utf-8: %s", b);
	for (k = 0; b[k]; ) {
		size_t l = ft_utf8_len((const unsigned char *)b + k, strlen(b + k), NULL);

		CHECK(l > 0, "invalid UTF-8 at byte %d of %s", k, b);
		k += l ? (int)l : 1;
	}

	CHECK(!strcmp(rpt_fmt_cpus(b, sizeof(b), m), "0-3,8,195"), "cpus %s", b);
	o.has_t0 = true;
	o.t0_ns = 10500000000ULL;
	o.has_cpus = true;
	o.cpu_mask[0] = 2;
	o.npids = 1;
	o.pids = &k;
	k = 42;
	CHECK(!strcmp(rpt_fmt_filters(&o, b, sizeof(b)), "from 10.500000000 s CPU 1 pid 42"), "filters %s", b);
	o.cpu_mask[0] = 6;
	CHECK(strstr(rpt_fmt_filters(&o, b, sizeof(b)), "CPUs 1-2"), "filters %s", b);
	CHECK(*rpt_fmt_filters(&o, b, 8) && strlen(b) < 8, "filters cut %s", b);
}

int main(void)
{
	test_hist();
	test_hist_merge();
	test_map();
	test_opts();
	test_symbols();
	test_symbol_search();
	test_format();
	test_titles();
	return check_summary();
}
