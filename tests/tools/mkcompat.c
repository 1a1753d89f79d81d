// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkcompat: build trace.dat files of kinds this machine cannot record, so
 * the compatibility tests can put them in front of trace-cmd 3.1.6 and
 * flytrap side by side.
 *
 *   mkcompat lat6 OUT TEXT [--traceclock] [--cpus N]
 *        version 6 latency-format file: header, metadata, CPU count,
 *        optional TRACECLOCK option, "latency  " marker, the bytes of TEXT
 *   mkcompat lat7 OUT TEXT zstd|none [--tail] [--chunk BYTES] [--cpus N]
 *                 [--bad KIND]
 *        version 7 latency-format file written byte by byte: HEADER_INFO
 *        and EVENT_FORMATS sections, an OPTIONS section (section pointers,
 *        CPUCOUNT, BUFFER_TEXT, DONE) and a BUFFER_TEXT section holding
 *        TEXT, raw or in zstd chunks of BYTES (default 40960).  --tail puts
 *        the OPTIONS section after the text (trace-cmd's own order), so an
 *        uncompressed text no longer ends the file.  --bad writes one lie:
 *        nchunks, csize, usize (declared sizes), zdata (corrupt compressed
 *        bytes), section (the option points at a section of another ID),
 *        noclock (option without its clock string)
 *   mkcompat guest OUT [--flags N] [--nofraction] [--be] [--bad KIND]
 *        a guest file (events on CPUs 0, 2 and 3, plus an instance) with
 *        TRACEID and a TIME_SHIFT option: one sample for CPU 0, two scaled
 *        samples for CPU 1, five samples (unsorted, one time repeated) with
 *        fraction bits for CPU 2, one for CPU 3; the instance is not
 *        corrected.  --bad: ts-ncpus, ts-count, ts-frac, ts-short
 *   mkcompat host OUT [--be] [--bad KIND]
 *        a host file with TRACEID and two GUEST options (vCPU -> host pid);
 *        --bad: guest-nonul, guest-vcpu, guest-count, guest-short
 *   mkcompat tsc OUT MULT SHIFT [--clock-first]
 *        a file on the x86-tsc clock with a TSC2NSEC option (after the
 *        TRACECLOCK option with --clock-first)
 *
 * --be writes guest and host files in big-endian byte order.
 *
 * Events are "test:tick" records (pid, seq) at known raw times, so every
 * corrected time can be worked out by hand; the tests compare flytrap's
 * output with trace-cmd's rather than with stored text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/compress.h"

#define ID_TICK 500

static const char fmt_tick[] =
	"name: tick\nID: 500\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long long seq;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"seq=%llu\", REC->seq\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static void usage(void)
{
	fputs("usage: mkcompat lat6|lat7|guest|host|tsc OUT ... (see the source)\n", stderr);
	exit(2);
}

static void fatal(const char *what, int err)
{
	fprintf(stderr, "mkcompat: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* ---- a growing byte buffer, little-endian numbers ---------------------- */

struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct bytes *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			fatal("out of memory", ENOMEM);
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_le(struct bytes *b, uint64_t v, int n)
{
	unsigned char t[8];
	int i;

	for (i = 0; i < n; i++)
		t[i] = (unsigned char)(v >> (8 * i));
	put(b, t, n);
}

/* numbers of the event files: --be writes a big-endian file */
static bool g_be;

static void enc(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[g_be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void put_num(struct bytes *b, uint64_t v, int n)
{
	unsigned char t[8];

	enc(t, v, n);
	put(b, t, n);
}

static void set_le(struct bytes *b, size_t at, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		b->p[at + i] = (unsigned char)(v >> (8 * i));
}

static void put_str(struct bytes *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct bytes b = { 0 };
	char buf[65536];
	size_t n;

	if (!f)
		fatal(path, errno);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		put(&b, buf, n);
	fclose(f);
	put(&b, "", 1);
	*len = b.len - 1;
	return (char *)b.p;
}

static void write_all(const char *path, const struct bytes *b)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f))
		fatal(path, errno ? errno : EIO);
}

static void header_page(char *hp, size_t n, int *len)
{
	*len = fmt_header_page_text(8, 4096, hp, n);
	if (*len < 0)
		fatal("header_page text", *len);
}

/* ---- latency-format files ------------------------------------------------ */

static int cmd_lat6(int argc, char **argv)
{
	struct bytes b = { 0 };
	char hp[1024], *text;
	size_t tlen;
	int hpl, i, cpus = 2;
	bool clock = false;

	if (argc < 4)
		usage();
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--traceclock"))
			clock = true;
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			cpus = atoi(argv[++i]);
		else
			usage();
	}
	text = read_all(argv[3], &tlen);
	header_page(hp, sizeof(hp), &hpl);
	put(&b, "\x17\x08\x44tracing6", 11);
	put(&b, "", 1);
	put_le(&b, 0, 1);		/* little endian */
	put_le(&b, 8, 1);		/* long size */
	put_le(&b, 4096, 4);
	put(&b, "header_page", 12);
	put_le(&b, hpl, 8);
	put(&b, hp, hpl);
	put(&b, "header_event", 13);
	put_le(&b, strlen(header_event), 8);
	put(&b, header_event, strlen(header_event));
	put_le(&b, 0, 4);		/* ftrace formats */
	put_le(&b, 0, 4);		/* event systems */
	put_le(&b, 0, 4);		/* kallsyms */
	put_le(&b, 0, 4);		/* printk */
	put_le(&b, 0, 8);		/* cmdlines */
	put_le(&b, cpus, 4);
	if (clock) {
		static const char tc[] = "[local] global counter uptime perf mono mono_raw boot\n";

		put(&b, "options  ", 10);
		put_le(&b, FMT_OPT_TRACECLOCK, 2);
		put_le(&b, sizeof(tc), 4);
		put(&b, tc, sizeof(tc));
		put_le(&b, 0, 2);
	}
	put(&b, "latency  ", 10);
	put(&b, text, tlen);
	write_all(argv[2], &b);
	free(text);
	free(b.p);
	return 0;
}

/* section header; returns the offset of its size field for patching */
static size_t sec_start(struct bytes *b, uint16_t id, uint16_t flags)
{
	size_t at;

	put_le(b, id, 2);
	put_le(b, flags, 2);
	put_le(b, (uint64_t)-1, 4);	/* no description string */
	at = b->len;
	put_le(b, 0, 8);
	return at;
}

static void sec_end(struct bytes *b, size_t at)
{
	set_le(b, at, b->len - at - 8, 8);
}

/* a metadata section body, one zstd block when compressed */
static void sec_body(struct bytes *b, const struct bytes *body, bool z)
{
	if (!z) {
		put(b, body->p, body->len);
	} else {
		size_t cap = fmt_compress_bound("zstd", body->len);
		void *out = malloc(cap);
		ssize_t n;

		if (!out)
			fatal("out of memory", ENOMEM);
		n = fmt_compress("zstd", 0, body->p, body->len, out, cap);
		if (n < 0)
			fatal("zstd", (int)n);
		put_le(b, (uint64_t)n, 4);
		put_le(b, body->len, 4);
		put(b, out, (size_t)n);
		free(out);
	}
}

static int cmd_lat7(int argc, char **argv)
{
	struct bytes b = { 0 }, body = { 0 };
	const char *bad = "";
	char hp[1024], *text;
	size_t tlen, at, opt_ptr, hi, ef, opts, txt = 0, bt_ptr = 0, chunk = 40960;
	int hpl, i, cpus = 2;
	bool z, tail = false;

	if (argc < 5)
		usage();
	z = !strcmp(argv[4], "zstd");
	if (!z && strcmp(argv[4], "none"))
		usage();
	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--tail"))
			tail = true;
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			cpus = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bad") && i + 1 < argc)
			bad = argv[++i];
		else
			usage();
	}
	if (!chunk)
		usage();
	text = read_all(argv[3], &tlen);
	header_page(hp, sizeof(hp), &hpl);

	put(&b, "\x17\x08\x44tracing7", 11);
	put(&b, "", 1);
	put_le(&b, 0, 1);
	put_le(&b, 8, 1);
	put_le(&b, 4096, 4);
	put_str(&b, z ? "zstd" : "none");
	put_str(&b, z ? fmt_compress_version("zstd") : "");
	opt_ptr = b.len;
	put_le(&b, 0, 8);

	/* HEADER_INFO */
	hi = b.len;
	at = sec_start(&b, FMT_OPT_HEADER_INFO, z);
	put(&body, "header_page", 12);
	put_le(&body, hpl, 8);
	put(&body, hp, hpl);
	put(&body, "header_event", 13);
	put_le(&body, strlen(header_event), 8);
	put(&body, header_event, strlen(header_event));
	sec_body(&b, &body, z);
	sec_end(&b, at);
	/* EVENT_FORMATS: no systems */
	ef = b.len;
	at = sec_start(&b, FMT_OPT_EVENT_FORMATS, z);
	body.len = 0;
	put_le(&body, 0, 4);
	sec_body(&b, &body, z);
	sec_end(&b, at);

	for (i = 0; i < 2; i++) {
		bool write_opts = tail ? i == 1 : i == 0;

		if (write_opts) {
			opts = b.len;
			set_le(&b, opt_ptr, opts, 8);
			at = sec_start(&b, FMT_OPT_DONE, 0);
			put_le(&b, FMT_OPT_HEADER_INFO, 2);
			put_le(&b, 8, 4);
			put_le(&b, hi, 8);
			put_le(&b, FMT_OPT_EVENT_FORMATS, 2);
			put_le(&b, 8, 4);
			put_le(&b, ef, 8);
			put_le(&b, FMT_OPT_CPUCOUNT, 2);
			put_le(&b, 4, 4);
			put_le(&b, cpus, 4);
			put_le(&b, FMT_OPT_BUFFER_TEXT, 2);
			if (!strcmp(bad, "noclock")) {
				put_le(&b, 9, 4);
				bt_ptr = b.len;
				put_le(&b, 0, 8);
				put(&b, "", 1);
			} else {
				put_le(&b, 8 + 1 + 6, 4);
				bt_ptr = b.len;
				put_le(&b, 0, 8);
				put_str(&b, "");
				put_str(&b, "local");
			}
			put_le(&b, FMT_OPT_DONE, 2);
			put_le(&b, 8, 4);
			put_le(&b, 0, 8);
			sec_end(&b, at);
		} else {
			/* the text section */
			txt = b.len;
			at = sec_start(&b, !strcmp(bad, "section") ? FMT_OPT_BUFFER : FMT_OPT_BUFFER_TEXT, z);
			if (!z) {
				put(&b, text, tlen);
			} else {
				size_t n = (tlen + chunk - 1) / chunk, k, cnt = b.len;
				struct fmt_zctx *zc = fmt_zctx_new("zstd", 0);

				if (!zc)
					fatal("zstd", errno);
				put_le(&b, n, 4);
				for (k = 0; k < n; k++) {
					size_t len = tlen - k * chunk > chunk ? chunk : tlen - k * chunk;
					size_t cap = fmt_compress_bound("zstd", len);
					void *out = malloc(cap);
					ssize_t c;

					if (!out)
						fatal("out of memory", ENOMEM);
					c = fmt_zctx_compress(zc, text + k * chunk, len, out, cap);
					if (c < 0)
						fatal("zstd", (int)c);
					/* a broken frame magic: no decoder can take it for data */
					if (!strcmp(bad, "zdata") && k == n - 1 && c > 8)
						memset(out, 0x5a, 4);
					put_le(&b, !strcmp(bad, "csize") && k == 0 ? 0x7fffff00 : (uint64_t)c, 4);
					put_le(&b, !strcmp(bad, "usize") && k == 0 ? 0xfffffff0 : len, 4);
					put(&b, out, (size_t)c);
					free(out);
				}
				fmt_zctx_free(zc);
				if (!strcmp(bad, "nchunks"))
					set_le(&b, cnt, 0x10000000, 4);
			}
			sec_end(&b, at);
		}
	}
	set_le(&b, bt_ptr, txt, 8);
	write_all(argv[2], &b);
	free(text);
	free(body.p);
	free(b.p);
	return 0;
}

/* ---- files with events ------------------------------------------------------ */

struct ev_out {
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	struct fmt_page_enc pe;
};

static void open_out(struct ev_out *o, const char *path, const char *clock_opt,
		     const char *cmdlines, int ncpu)
{
	struct fmt_writer_opts wo = { .compression = "zstd", .big_endian = g_be };
	char hp[1024];
	int hpl, err;

	header_page(hp, sizeof(hp), &hpl);
	err = fmt_writer_open(path, &wo, &o->w);
	if (err)
		fatal(path, err);
	err = fmt_writer_headers(o->w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_event_format(o->w, "test", fmt_tick, strlen(fmt_tick));
	err = err ?: fmt_writer_kallsyms(o->w, "", 0);
	err = err ?: fmt_writer_printk(o->w, "", 0);
	err = err ?: fmt_writer_cmdlines(o->w, cmdlines, strlen(cmdlines));
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_UNAME, "Linux mkcompat 6.18.0 x86_64");
	if (clock_opt)
		err = err ?: fmt_writer_option_str(o->w, FMT_OPT_TRACECLOCK, clock_opt);
	err = err ?: fmt_writer_cpucount(o->w, (uint32_t)ncpu);
	if (err)
		fatal("metadata", err);
}

static void begin_buffer(struct ev_out *o, const char *name, const char *clock)
{
	int err = fmt_wbuf_new(o->w, name, clock, &o->b);

	if (err)
		fatal("buffer", err);
	fmt_page_enc_release(&o->pe);	/* the previous buffer's encoder */
	if (fmt_page_enc_init(&o->pe, 4096, 8, g_be))
		fatal("page encoder", ENOMEM);
}

/* one page per CPU and call: every event of the list */
static void cpu_page(struct ev_out *o, int cpu, int pid, const uint64_t *ts, int n, uint64_t seq0)
{
	int i, err;

	for (i = 0; i < n; i++) {
		unsigned char rec[16] = { 0 };
		uint64_t seq = seq0 + i;

		enc(rec, ID_TICK, 2);
		enc(rec + 4, (uint32_t)pid, 4);
		enc(rec + 8, seq, 8);
		err = fmt_page_enc_add(&o->pe, ts[i], rec, sizeof(rec));
		if (err)
			fatal("page add", err);
	}
	err = fmt_wbuf_add_page(o->b, cpu, fmt_page_enc_finish(&o->pe));
	if (err)
		fatal("add page", err);
}

static void close_out(struct ev_out *o)
{
	int err;

	fmt_page_enc_release(&o->pe);
	err = fmt_writer_close(o->w);
	if (err)
		fatal("close", err);
}

#define S 1000000000ULL

static void add_u64(struct bytes *b, const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		put_num(b, (uint64_t)v[i], 8);
}

static int cmd_guest(int argc, char **argv)
{
	struct ev_out o = { 0 };
	struct bytes ts = { 0 };
	const char *bad = "";
	uint32_t flags = 1;
	bool fraction = true;
	int i, err;
	uint64_t id = 0x6775657374303031ULL;	/* "guest001" */
	unsigned char idb[8];

	if (argc < 3)
		usage();
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--flags") && i + 1 < argc)
			flags = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--nofraction"))
			fraction = false;
		else if (!strcmp(argv[i], "--bad") && i + 1 < argc)
			bad = argv[++i];
		else if (!strcmp(argv[i], "--be"))
			g_be = true;
		else
			usage();
	}
	open_out(&o, argv[2], "[local] global counter\n", "1000 vcpu-a\n1002 vcpu-c\n1003 vcpu-d\n", 4);
	enc(idb, id, 8);
	err = fmt_writer_option(o.w, FMT_OPT_TRACEID, idb, 8);
	if (err)
		fatal("TRACEID", err);
	{
		/*
		 * The arrays are indexed by CPU id (checked against trace-cmd).
		 * CPU 0: one sample: only its offset is added, no scaling.
		 * CPU 1 (no data): two samples, scaling 3 >> 1 (x1.5), offsets -1 ms
		 * and -3 ms (interpolated with flag bit 0).
		 * CPU 2: five samples in the file out of order, two of them at the
		 * same time (the first stays), scaling (2^32 + 4295) >> 32, which
		 * overflows 64 bits past 4.29 s as it does in trace-cmd.
		 * CPU 3: one sample of +123 ns.
		 */
		int64_t t0[] = { 0 }, o0[] = { 5 * (int64_t)S }, s0[] = { 7 }, f0[] = { 3 };
		int64_t t1[] = { 1 * (int64_t)S, 3 * (int64_t)S }, o1[] = { -1000000, -3000000 },
			s1[] = { 3, 3 }, f1[] = { 1, 1 };
		int64_t t2[] = { 4 * (int64_t)S, 2 * (int64_t)S, 6 * (int64_t)S, 2 * (int64_t)S, 8 * (int64_t)S },
			o2[] = { 40000, 20000, 60000, 99999, -80000 },
			s2[] = { (1LL << 32) + 4295, (1LL << 32) + 4295, (1LL << 32) + 4295, 1, (1LL << 32) + 4295 },
			f2[] = { 32, 32, 32, 0, 32 };
		int64_t t3[] = { 0 }, o3[] = { 123 }, s3[] = { 1 }, f3[] = { 0 };
		uint32_t ncpus = !strcmp(bad, "ts-ncpus") ? 0x40000000 : 4;

		if (!strcmp(bad, "extreme")) {
			/*
			 * Not a lie, but the edges of the arithmetic: times INT64_MIN and
			 * INT64_MAX (their difference wraps to -1, where trace-cmd's
			 * division traps), offsets at both ends, a scaling of INT64_MIN
			 * and a fraction shift of 200.
			 */
			t1[0] = INT64_MIN;
			t1[1] = INT64_MAX;
			o1[0] = INT64_MIN;
			o1[1] = INT64_MAX;
			t2[0] = INT64_MIN;
			t2[2] = INT64_MAX;
			o2[0] = INT64_MIN;
			o2[4] = INT64_MAX;
			s2[1] = INT64_MIN;
			f2[1] = 200;
			f2[4] = -1;
		}

		put_num(&ts, 0x686f737430303031ULL, 8);	/* peer: "host0001" */
		put_num(&ts, flags, 4);
		put_num(&ts, ncpus, 4);
		put_num(&ts, 1, 4);
		add_u64(&ts, t0, 1);
		add_u64(&ts, o0, 1);
		add_u64(&ts, s0, 1);
		put_num(&ts, !strcmp(bad, "ts-count") ? 0x00ffffff : 2, 4);
		add_u64(&ts, t1, 2);
		add_u64(&ts, o1, 2);
		add_u64(&ts, s1, 2);
		put_num(&ts, 5, 4);
		add_u64(&ts, t2, 5);
		add_u64(&ts, o2, 5);
		add_u64(&ts, s2, 5);
		put_num(&ts, 1, 4);
		add_u64(&ts, t3, 1);
		add_u64(&ts, o3, 1);
		add_u64(&ts, s3, 1);
		if (fraction) {
			add_u64(&ts, f0, 1);
			add_u64(&ts, f1, 2);
			add_u64(&ts, f2, 5);
			if (strcmp(bad, "ts-frac"))
				add_u64(&ts, f3, 1);
		}
		if (!strcmp(bad, "ts-short"))
			ts.len = 12;
		err = fmt_writer_option(o.w, FMT_OPT_TIME_SHIFT, ts.p, (uint32_t)ts.len);
		if (err)
			fatal("TIME_SHIFT", err);
	}
	begin_buffer(&o, "", "local");
	{
		/* raw times around and between the samples */
		uint64_t c0[] = { S / 2, 1 * S + 1, 2 * S + 999, 9 * S };
		uint64_t c2[] = { S / 2, 1 * S, 2 * S + 12345, 3 * S, 3 * S + 777, 7 * S };
		uint64_t c3[] = { 1 * S, 2 * S, 2 * S + 1, 3 * S + 5, 4 * S, 5 * S + 3, 6 * S, 7 * S + 11,
				  8 * S, 9 * S + 42 };

		cpu_page(&o, 0, 1000, c0, 4, 0);
		if (!strcmp(bad, "extreme"))
			cpu_page(&o, 1, 1001, c0, 4, 50);	/* the pair INT64_MIN, INT64_MAX */
		cpu_page(&o, 2, 1002, c2, 6, 100);
		cpu_page(&o, 3, 1003, c3, 10, 200);
	}
	begin_buffer(&o, "inst", "local");
	{
		uint64_t i0[] = { S / 4, 3 * S, 6 * S + 1 };

		cpu_page(&o, 0, 1000, i0, 3, 900);
	}
	close_out(&o);
	free(ts.p);
	return 0;
}

static int cmd_host(int argc, char **argv)
{
	struct ev_out o = { 0 };
	struct bytes g = { 0 };
	const char *bad = "";
	uint64_t id = 0x686f737430303031ULL;
	unsigned char idb[8];
	int i, err;

	if (argc < 3)
		usage();
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--bad") && i + 1 < argc)
			bad = argv[++i];
		else if (!strcmp(argv[i], "--be"))
			g_be = true;
		else
			usage();
	}
	open_out(&o, argv[2], "[local] global counter\n", "4321 qemu-vm1\n4322 qemu-vm1\n", 2);
	enc(idb, id, 8);
	err = fmt_writer_option(o.w, FMT_OPT_TRACEID, idb, 8);
	if (err)
		fatal("TRACEID", err);
	/* vm1: 2 vCPUs in order */
	put(&g, "vm1", !strcmp(bad, "guest-nonul") ? 3 : 4);
	if (strcmp(bad, "guest-nonul")) {
		put_num(&g, 0x6775657374303031ULL, 8);
		put_num(&g, !strcmp(bad, "guest-count") ? 0x01000000 : 2, 4);
		put_num(&g, 0, 4);
		put_num(&g, 4321, 4);
		put_num(&g, !strcmp(bad, "guest-vcpu") ? 7 : 1, 4);
		put_num(&g, 4322, 4);
	}
	if (!strcmp(bad, "guest-short"))
		g.len = 10;
	err = fmt_writer_option(o.w, FMT_OPT_GUEST, g.p, (uint32_t)g.len);
	/* vm2: 3 vCPUs listed out of order */
	g.len = 0;
	put_str(&g, "vm2");
	put_num(&g, 0x6775657374303032ULL, 8);
	put_num(&g, 3, 4);
	put_num(&g, 2, 4);
	put_num(&g, 5002, 4);
	put_num(&g, 0, 4);
	put_num(&g, 5000, 4);
	put_num(&g, 1, 4);
	put_num(&g, 5001, 4);
	err = err ?: fmt_writer_option(o.w, FMT_OPT_GUEST, g.p, (uint32_t)g.len);
	if (err)
		fatal("GUEST", err);
	begin_buffer(&o, "", "local");
	{
		uint64_t c0[] = { S, S + 500, 2 * S };
		uint64_t c1[] = { S + 250, 3 * S };

		cpu_page(&o, 0, 4321, c0, 3, 0);
		cpu_page(&o, 1, 4322, c1, 2, 10);
	}
	close_out(&o);
	free(g.p);
	return 0;
}

static int cmd_tsc(int argc, char **argv)
{
	struct ev_out o = { 0 };
	unsigned char opt[16];
	uint32_t mult, shift;
	uint64_t off = 0;
	bool clock_first;
	int err;

	if (argc < 5)
		usage();
	mult = strtoul(argv[3], NULL, 0);
	shift = strtoul(argv[4], NULL, 0);
	clock_first = argc > 5 && !strcmp(argv[5], "--clock-first");
	memcpy(opt, &mult, 4);
	memcpy(opt + 4, &shift, 4);
	memcpy(opt + 8, &off, 8);
	open_out(&o, argv[2], clock_first ? "local global counter [x86-tsc]\n" : NULL, "77 tsc-task\n", 1);
	err = fmt_writer_option(o.w, FMT_OPT_TSC2NSEC, opt, 16);
	if (!clock_first)
		err = err ?: fmt_writer_option_str(o.w, FMT_OPT_TRACECLOCK, "local global counter [x86-tsc]\n");
	if (err)
		fatal("TSC2NSEC", err);
	begin_buffer(&o, "", "x86-tsc");
	{
		/* TSC ticks: small, past 2^32, and large */
		uint64_t c0[] = { 1000, 3000000000ULL, 5000000123ULL, 123456789012345ULL, 9000000000000000ULL };

		cpu_page(&o, 0, 77, c0, 5, 0);
	}
	close_out(&o);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "lat6"))
		return cmd_lat6(argc, argv);
	if (!strcmp(argv[1], "lat7"))
		return cmd_lat7(argc, argv);
	if (!strcmp(argv[1], "guest"))
		return cmd_guest(argc, argv);
	if (!strcmp(argv[1], "host"))
		return cmd_host(argc, argv);
	if (!strcmp(argv[1], "tsc"))
		return cmd_tsc(argc, argv);
	usage();
	return 2;
}
