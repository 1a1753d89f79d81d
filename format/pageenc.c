// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page encoder: turn (timestamp, payload) records into ring-buffer
 * sub-buffers laid out exactly like the kernel's, so that BPF records can be
 * stored as pages of their own buffer and decoded by any trace.dat reader
 * (trace-cmd, KernelShark, flytrap) with no special case.
 *
 * Layout (docs/trace-dat-format.md §4): u64 page timestamp, a kernel long
 * "commit" (data bytes | bit 31 missed | bit 30 count stored), the events,
 * then optionally the missed count as a kernel long.  Each event starts with
 * a 32-bit word holding a 5-bit type_len and a 27-bit time delta, packed as
 * the kernel's C bitfield: low bits first on little-endian, high bits first
 * on big-endian.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TYPE_DATA_MAX		28	/* type_len 1..28: payload = type_len * 4 bytes */
#define DELTA_BITS		27
#define DELTA_MAX		((1ULL << DELTA_BITS) - 1)
#define COMMIT_MISSED		(1ULL << 31)
#define COMMIT_STORED		(1ULL << 30)

static inline bool host_be(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static void put32(const struct fmt_page_enc *pe, uint8_t *p, uint32_t v)
{
	if (pe->big_endian != host_be())
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static void put64(const struct fmt_page_enc *pe, uint8_t *p, uint64_t v)
{
	if (pe->big_endian != host_be())
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static void put_long(const struct fmt_page_enc *pe, uint8_t *p, uint64_t v)
{
	if (pe->kernel_long == 4)
		put32(pe, p, (uint32_t)v);
	else
		put64(pe, p, v);
}

/* The event header word: bitfield order follows the file's byte order. */
static uint32_t event_word(const struct fmt_page_enc *pe, unsigned type_len, uint32_t delta)
{
	if (pe->big_endian)
		return (uint32_t)type_len << DELTA_BITS | (delta & DELTA_MAX);
	return (delta & DELTA_MAX) << 5 | type_len;
}

static uint32_t data_start(const struct fmt_page_enc *pe)
{
	return 8 + (uint32_t)pe->kernel_long;
}

static uint32_t data_cap(const struct fmt_page_enc *pe)
{
	return pe->page_size - data_start(pe);
}

int fmt_page_enc_init(struct fmt_page_enc *pe, uint32_t page_size, int kernel_long, bool big_endian)
{
	memset(pe, 0, sizeof(*pe));
	if (kernel_long != 4 && kernel_long != 8)
		return -EINVAL;
	/* the commit field holds 27 bits of length */
	if (page_size < 64 || page_size > (1U << DELTA_BITS) || page_size % 4)
		return -EINVAL;
	pe->page = calloc(1, page_size);
	if (!pe->page)
		return -ENOMEM;
	pe->page_size = page_size;
	pe->kernel_long = kernel_long;
	pe->big_endian = big_endian;
	return 0;
}

void fmt_page_enc_release(struct fmt_page_enc *pe)
{
	if (!pe)
		return;
	free(pe->page);
	pe->page = NULL;
}

/* Bytes a payload of len takes, header word(s) included, without a time extend. */
static uint64_t record_bytes(uint32_t len)
{
	uint64_t padded = ((uint64_t)len + 3) & ~3ULL;

	if (padded && padded <= TYPE_DATA_MAX * 4)
		return 4 + padded;
	return 8 + padded;	/* type_len 0: array[0] holds the length */
}

int fmt_page_enc_add(struct fmt_page_enc *pe, uint64_t ts, const void *payload, uint32_t len)
{
	uint8_t *p;
	uint64_t need, delta = 0, padded;
	bool extend = false;
	uint32_t delta_word;

	need = record_bytes(len);
	if (need > data_cap(pe))
		return -EMSGSIZE;
	if (pe->nrecords == 0) {
		/* fresh page: the previous page was returned by finish() and may still be in use until now */
		memset(pe->page, 0, pe->page_size);
		pe->used = 0;
		pe->page_ts = ts;
		pe->last_ts = ts;
	} else {
		if (ts < pe->last_ts)
			return -EINVAL;
		delta = ts - pe->last_ts;
		if (delta > DELTA_MAX) {
			/*
			 * TIME_EXTEND carries 27 + 32 bits.  A larger jump cannot be
			 * expressed inside this page; it starts the next one.
			 */
			if (delta >> (DELTA_BITS + 32))
				return -ENOSPC;
			extend = true;
			need += 8;
		}
	}
	if (pe->used + need > data_cap(pe))
		return -ENOSPC;

	p = pe->page + data_start(pe) + pe->used;
	delta_word = (uint32_t)(delta & DELTA_MAX);
	if (extend) {
		/* the kernel's rb_add_time_stamp(): low 27 bits in the word, the rest in array[0] */
		put32(pe, p, event_word(pe, TYPE_TIME_EXTEND, delta_word));
		put32(pe, p + 4, (uint32_t)(delta >> DELTA_BITS));
		p += 8;
		delta_word = 0;
	}
	padded = ((uint64_t)len + 3) & ~3ULL;
	if (padded && padded <= TYPE_DATA_MAX * 4) {
		put32(pe, p, event_word(pe, (unsigned)(padded / 4), delta_word));
		p += 4;
	} else {
		put32(pe, p, event_word(pe, 0, delta_word));
		/* array[0] counts its own word; readers round (array[0] - 4) up to 4 */
		put32(pe, p + 4, (uint32_t)(padded + 4));
		p += 8;
	}
	if (len)
		memcpy(p, payload, len);
	/* padding bytes are already zero (page cleared on the first record) */
	pe->used += (uint32_t)need;
	pe->last_ts = ts;
	pe->nrecords++;
	return 0;
}

void fmt_page_enc_set_missed(struct fmt_page_enc *pe, int64_t count)
{
	pe->missed = count < 0 ? -1 : count;
}

const void *fmt_page_enc_finish(struct fmt_page_enc *pe)
{
	uint64_t commit = pe->used;

	if (pe->nrecords == 0) {
		/* an empty page (only a loss marker, or nothing at all) */
		memset(pe->page, 0, pe->page_size);
		pe->used = 0;
		commit = 0;
	}
	if (pe->missed) {
		commit |= COMMIT_MISSED;
		/* the kernel stores the count only when it fits after the data */
		if (pe->missed > 0 && pe->used + (uint32_t)pe->kernel_long <= data_cap(pe)) {
			put_long(pe, pe->page + data_start(pe) + pe->used, (uint64_t)pe->missed);
			commit |= COMMIT_STORED;
		}
	}
	put64(pe, pe->page, pe->page_ts);
	put_long(pe, pe->page + 8, commit);

	pe->used = 0;
	pe->nrecords = 0;
	pe->missed = 0;
	pe->page_ts = 0;
	return pe->page;
}

int fmt_header_page_text(int kernel_long, uint32_t page_size, char *buf, size_t len)
{
	int n;
	uint32_t off = 8 + (uint32_t)kernel_long;

	if ((kernel_long != 4 && kernel_long != 8) || page_size <= off)
		return -EINVAL;
	/* byte-for-byte what the kernel prints in events/header_page */
	n = snprintf(buf, len,
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:0;\n",
		     kernel_long, off, page_size - off);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}
