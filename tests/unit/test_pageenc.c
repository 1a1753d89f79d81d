// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page encoder: pages built from known records are decoded with
 * libtraceevent's kbuffer (the decoder trace-cmd and KernelShark use) and
 * every timestamp, payload and missed count compared with what went in.
 * Covers both byte orders and both kernel long sizes, small and large
 * (type_len 0) records, deltas that need a TIME_EXTEND, a record that
 * exactly fills the page, records that can never fit, and the missed-event
 * flags with and without a stored count.  Also checks fmt_header_page_text
 * against the text this kernel prints (when tracefs is readable).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>

#include "format/format.h"
#include "check.h"



struct rec {
	uint64_t ts;
	uint32_t len;
	const uint8_t *data;
};

/* payloads are windows into one pseudo-random pattern */
static uint8_t pattern[65536 + 4096];

struct cfg {
	bool be;
	int lsize;
	uint32_t page_size;
};

static struct kbuffer *kb_for(const struct cfg *c)
{
	return kbuffer_alloc(c->lsize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			     c->be ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
}

static void fill(struct rec *r, uint64_t ts, uint32_t len, unsigned seed)
{
	r->ts = ts;
	r->len = len;
	r->data = pattern + (seed * 131) % 4096;
}

/*
 * Decode one page and compare with recs[0..n).  Payload sizes come back
 * rounded up to 4; the padding must be zero.
 */
static void check_page(const struct cfg *c, const char *what, void *page,
		       const struct rec *recs, int n, int expect_missed)
{
	struct kbuffer *kb = kb_for(c);
	unsigned long long ts;
	void *d;
	int i = 0;

	CHECK(kb != NULL, "%s: kbuffer_alloc", what);
	if (!kb)
		return;
	CHECK(kbuffer_load_subbuffer(kb, page) == 0, "%s: load", what);
	CHECK(kbuffer_missed_events(kb) == expect_missed, "%s: missed %d, expected %d", what,
	      kbuffer_missed_events(kb), expect_missed);
	for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts), i++) {
		int sz = kbuffer_event_size(kb);
		uint32_t padded;

		if (i >= n) {
			CHECK(0, "%s: extra record %d", what, i);
			break;
		}
		padded = (recs[i].len + 3) & ~3u;
		CHECK(ts == recs[i].ts, "%s: rec %d ts %llu, expected %" PRIu64, what, i, ts, recs[i].ts);
		CHECK((uint32_t)sz == padded, "%s: rec %d size %d, expected %u", what, i, sz, padded);
		if ((uint32_t)sz >= recs[i].len) {
			static const uint8_t zero[4];

			CHECK(!memcmp(d, recs[i].data, recs[i].len), "%s: rec %d payload differs", what, i);
			CHECK(!memcmp((uint8_t *)d + recs[i].len, zero, padded - recs[i].len),
			      "%s: rec %d padding not zero", what, i);
		}
		if (i == 1)
			CHECK(kbuffer_missed_events(kb) == 0, "%s: missed reported past the first record", what);
	}
	CHECK(i == n, "%s: decoded %d records, expected %d", what, i, n);
	kbuffer_free(kb);
}

static void test_basic(const struct cfg *c)
{
	struct fmt_page_enc pe;
	static struct rec recs[8];
	char what[96];
	const void *page;
	/* small, odd-sized, exactly 112 (largest type_len 28), 113 (type 0), big, zero-delta */
	static const uint32_t lens[] = { 8, 13, 112, 113, 700, 4, 1, 250 };
	uint64_t ts = 1000000000ULL;
	int i;

	snprintf(what, sizeof(what), "basic %s long%d page%u", c->be ? "BE" : "LE", c->lsize,
		 c->page_size);
	CHECK(fmt_page_enc_init(&pe, c->page_size, c->lsize, c->be) == 0, "%s: init", what);
	for (i = 0; i < 8; i++) {
		/* deltas: 0, small, just under 2^27, exactly 2^27, 2^27+1, 500 ms, 3 s, 0 */
		static const uint64_t deltas[] = { 0, 17, (1ULL << 27) - 1, 1ULL << 27,
						   (1ULL << 27) + 1, 500000000ULL, 3000000000ULL, 0 };
		ts += deltas[i];
		fill(&recs[i], ts, lens[i], (unsigned)i);
		CHECK(fmt_page_enc_add(&pe, recs[i].ts, recs[i].data, recs[i].len) == 0,
		      "%s: add %d", what, i);
	}
	CHECK(pe.nrecords == 8, "%s: nrecords %u", what, pe.nrecords);
	page = fmt_page_enc_finish(&pe);
	check_page(c, what, (void *)page, recs, 8, 0);
	/* the page returned stays intact until the next add */
	check_page(c, what, (void *)page, recs, 8, 0);
	fmt_page_enc_release(&pe);
}

/* Fill pages until full; every record must land in exactly one page, in order. */
static void test_fill(const struct cfg *c, uint32_t len)
{
	struct fmt_page_enc pe;
	struct rec *recs = calloc(16384, sizeof(*recs));
	char what[96];
	int n = 0, start = 0, pages = 0, err;
	uint64_t ts = 5;

	snprintf(what, sizeof(what), "fill %u %s long%d", len, c->be ? "BE" : "LE", c->lsize);
	CHECK(fmt_page_enc_init(&pe, c->page_size, c->lsize, c->be) == 0, "%s: init", what);
	while (pages < 3 && n < 16384) {
		fill(&recs[n], ts, len, (unsigned)n);
		err = fmt_page_enc_add(&pe, ts, recs[n].data, len);
		if (err == -ENOSPC) {
			const void *page = fmt_page_enc_finish(&pe);

			check_page(c, what, (void *)page, recs + start, n - start, 0);
			start = n;
			pages++;
			continue;
		}
		CHECK(err == 0, "%s: add err %d", what, err);
		if (err)
			break;
		n++;
		ts += 1000;
	}
	CHECK(pages == 3, "%s: pages %d", what, pages);
	fmt_page_enc_release(&pe);
	free(recs);
}

/* A record that fills the data area to the last byte, and one byte more. */
static void test_exact_fit(const struct cfg *c)
{
	struct fmt_page_enc pe;
	static struct rec r;
	char what[96];
	uint32_t cap = c->page_size - 8 - (uint32_t)c->lsize;
	/* type 0 record: 8 bytes of header + payload */
	uint32_t len = cap - 8;
	const void *page;

	snprintf(what, sizeof(what), "exact fit %s long%d", c->be ? "BE" : "LE", c->lsize);
	CHECK(fmt_page_enc_init(&pe, c->page_size, c->lsize, c->be) == 0, "%s: init", what);
	fill(&r, 42, len, 9);
	CHECK(fmt_page_enc_add(&pe, r.ts, r.data, len) == 0, "%s: add", what);
	CHECK(pe.used == cap, "%s: used %u of %u", what, pe.used, cap);
	CHECK(fmt_page_enc_add(&pe, 43, r.data, 4) == -ENOSPC, "%s: page should be full", what);
	/* a missed count cannot be stored in a full page: flag only */
	fmt_page_enc_set_missed(&pe, 77);
	page = fmt_page_enc_finish(&pe);
	check_page(c, what, (void *)page, &r, 1, -1);
	/* one byte too many can never fit */
	CHECK(fmt_page_enc_add(&pe, 1, r.data, len + 1) == -EMSGSIZE, "%s: oversized record", what);
	/* the encoder is usable after a refusal */
	CHECK(fmt_page_enc_add(&pe, 1, r.data, 4) == 0, "%s: add after EMSGSIZE", what);
	fmt_page_enc_release(&pe);
}

static void test_missed(const struct cfg *c)
{
	struct fmt_page_enc pe;
	static struct rec r[2];
	char what[96];
	const void *page;

	snprintf(what, sizeof(what), "missed %s long%d", c->be ? "BE" : "LE", c->lsize);
	CHECK(fmt_page_enc_init(&pe, c->page_size, c->lsize, c->be) == 0, "%s: init", what);
	fill(&r[0], 100, 24, 1);
	fill(&r[1], 200, 40, 2);
	fmt_page_enc_set_missed(&pe, 12345);
	fmt_page_enc_add(&pe, r[0].ts, r[0].data, r[0].len);
	fmt_page_enc_add(&pe, r[1].ts, r[1].data, r[1].len);
	page = fmt_page_enc_finish(&pe);
	check_page(c, what, (void *)page, r, 2, 12345);

	/* unknown count: flag only */
	fmt_page_enc_set_missed(&pe, -1);
	fmt_page_enc_add(&pe, r[0].ts, r[0].data, r[0].len);
	page = fmt_page_enc_finish(&pe);
	check_page(c, what, (void *)page, r, 1, -1);

	/* the next page has no loss */
	fmt_page_enc_add(&pe, r[1].ts, r[1].data, r[1].len);
	page = fmt_page_enc_finish(&pe);
	check_page(c, what, (void *)page, r + 1, 1, 0);
	fmt_page_enc_release(&pe);
}

static void test_errors(void)
{
	struct fmt_page_enc pe;
	uint8_t d[16] = { 0 };

	CHECK(fmt_page_enc_init(&pe, 4096, 5, false) == -EINVAL, "long 5 accepted");
	CHECK(fmt_page_enc_init(&pe, 4097, 8, false) == -EINVAL, "odd page size accepted");
	CHECK(fmt_page_enc_init(&pe, 4096, 8, false) == 0, "init");
	CHECK(fmt_page_enc_add(&pe, 100, d, 8) == 0, "add");
	CHECK(fmt_page_enc_add(&pe, 99, d, 8) == -EINVAL, "backwards timestamp accepted");
	/* a jump beyond what TIME_EXTEND holds (59 bits) starts a new page */
	CHECK(fmt_page_enc_add(&pe, 100 + (1ULL << 60), d, 8) == -ENOSPC, "2^60 delta in one page");
	fmt_page_enc_finish(&pe);
	CHECK(fmt_page_enc_add(&pe, 100 + (1ULL << 60), d, 8) == 0, "2^60 ts on a fresh page");
	fmt_page_enc_release(&pe);
	fmt_page_enc_release(NULL);
}

static void test_header_page(void)
{
	char buf[512], kern[512];
	FILE *f;
	int n;
	size_t kn;

	n = fmt_header_page_text(8, 4096, buf, sizeof(buf));
	CHECK(n == 205, "64-bit header_page is %d bytes, expected 205", n);
	CHECK(strstr(buf, "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n") != NULL,
	      "64-bit data line");
	n = fmt_header_page_text(4, 4096, buf, sizeof(buf));
	CHECK(n > 0 && strstr(buf, "commit;\toffset:8;\tsize:4;") && strstr(buf, "offset:12;\tsize:4084;"),
	      "32-bit header_page");
	CHECK(fmt_header_page_text(8, 4096, buf, 10) == -ENOSPC, "short buffer");
	CHECK(fmt_header_page_text(3, 4096, buf, sizeof(buf)) == -EINVAL, "long 3");
	/* byte-for-byte the kernel's text, when we can read it */
	f = fopen("/sys/kernel/tracing/events/header_page", "r");
	if (f) {
		kn = fread(kern, 1, sizeof(kern) - 1, f);
		fclose(f);
		kern[kn] = 0;
		if (kn > 0) {
			n = fmt_header_page_text((int)sizeof(long), 4096, buf, sizeof(buf));
			CHECK(n == (int)kn && !memcmp(buf, kern, kn), "differs from this kernel's header_page");
		}
	}
}

int main(void)
{
	static const struct cfg cfgs[] = {
		{ false, 8, 4096 }, { true, 8, 4096 }, { false, 4, 4096 }, { true, 4, 4096 },
		{ false, 8, 8192 }, { true, 4, 65536 },
	};
	size_t i;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 2654435761u >> 13);
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		test_basic(&cfgs[i]);
		test_fill(&cfgs[i], 20);
		test_fill(&cfgs[i], 130);
		test_exact_fit(&cfgs[i]);
		test_missed(&cfgs[i]);
	}
	test_errors();
	test_header_page();
	return check_summary();
}
