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
