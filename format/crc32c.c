// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum the
 * writer stores for every data chunk.  The SSE4.2 crc32 instruction does
 * 8 bytes per step where the CPU has it; elsewhere a byte-wise table.
 * Both give the same value (checked by tests/unit).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format.h"

static uint32_t table[256];
static int table_ready;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
	__atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE))
		make_table();
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;

	while (n && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		n--;
	}
	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		n -= 8;
	}
	while (n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t fmt_crc32c_soft(uint32_t crc, const void *data, size_t n)
{
	return ~crc_soft(~crc, data, n);
}

uint32_t fmt_crc32c(uint32_t crc, const void *data, size_t n)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_hw(~crc, data, n);
#endif
	return fmt_crc32c_soft(crc, data, n);
}

/*
 * Polynomial arithmetic for combining CRCs without the data (the file
 * digest is fed while writing: spools copied in whole, a few bytes patched
 * later).  Reflected representation: bit 31 is x^0.
 */
static uint32_t mulmod(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	while (m) {
		if (a & m)
			p ^= b;
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ 0x82F63B78u : b >> 1;
	}
	return p;
}

/* x^(8 * nbytes) mod P */
static uint32_t x8n(uint64_t nbytes)
{
	uint32_t p = 1u << 31, sq = 1u << 30;	/* x^0, x^1 */
	int k;

	for (k = 0; k < 3; k++)
		sq = mulmod(sq, sq);		/* x^8 */
	while (nbytes) {
		if (nbytes & 1)
			p = mulmod(sq, p);
		sq = mulmod(sq, sq);
		nbytes >>= 1;
	}
	return p;
}

uint32_t fmt_crc32c_cat(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	return mulmod(x8n(len_b), crc_a) ^ crc_b;
}

uint32_t fmt_crc32c_patch(uint32_t crc, const void *old, const void *new, size_t n, uint64_t after)
{
	uint8_t d[64];
	uint32_t reg = 0;
	size_t i, k;

	/* the register over old XOR new from zero, then moved past the bytes after it */
	for (i = 0; i < n; i += k) {
		k = n - i > sizeof(d) ? sizeof(d) : n - i;
		for (size_t j = 0; j < k; j++)
			d[j] = ((const uint8_t *)old)[i + j] ^ ((const uint8_t *)new)[i + j];
		reg = ~fmt_crc32c(~reg, d, k);
	}
	return crc ^ mulmod(x8n(after), reg);
}
