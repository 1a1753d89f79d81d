// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C: the published check value, the hardware and table code agreeing
 * on every length and alignment (the hardware path steps 8 bytes at a
 * time after aligning), and that a CRC continued over pieces equals the
 * CRC of the whole (the digest is computed that way).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "check.h"

int main(void)
{
	static uint8_t buf[4096 + 16];
	uint32_t seed = 12345;

	CHECK(fmt_crc32c(0, "123456789", 9) == 0xE3069283u, "got %08x", fmt_crc32c(0, "123456789", 9));
	CHECK(fmt_crc32c_soft(0, "123456789", 9) == 0xE3069283u, "soft %08x",
	      fmt_crc32c_soft(0, "123456789", 9));
	CHECK(fmt_crc32c(0, "", 0) == 0, "empty");
	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	for (size_t off = 0; off < 9; off++)
		for (size_t n = 0; n < 300; n += 7)
			CHECK(fmt_crc32c(0, buf + off, n) == fmt_crc32c_soft(0, buf + off, n),
			      "offset %zu length %zu", off, n);
	for (size_t cut = 0; cut <= 4096; cut += 513) {
		uint32_t a = fmt_crc32c(fmt_crc32c(0, buf, cut), buf + cut, 4096 - cut);

		CHECK(a == fmt_crc32c(0, buf, 4096), "split at %zu", cut);
	}
	for (size_t bit = 0; bit < 4096 * 8; bit += 997) {
		uint32_t before = fmt_crc32c(0, buf, 4096), after;

		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		after = fmt_crc32c(0, buf, 4096);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		CHECK(before != after, "flipping bit %zu leaves the CRC as it was", bit);
	}
	/* combining two CRCs, and patching bytes, without the data (the file digest) */
	for (size_t cut = 0; cut <= 4096; cut += 331) {
		uint32_t whole = fmt_crc32c(0, buf, 4096);
		uint32_t a = fmt_crc32c(0, buf, cut), b = fmt_crc32c(0, buf + cut, 4096 - cut);

		CHECK(fmt_crc32c_cat(a, b, 4096 - cut) == whole, "cat at %zu", cut);
	}
	for (size_t at = 0; at + 8 <= 4096; at += 509) {
		uint8_t old[8], nw[8];
		uint32_t before = fmt_crc32c(0, buf, 4096), want, got;

		memcpy(old, buf + at, 8);
		for (int i = 0; i < 8; i++)
			nw[i] = (uint8_t)(old[i] * 7 + i + 1);
		memcpy(buf + at, nw, 8);
		want = fmt_crc32c(0, buf, 4096);
		memcpy(buf + at, old, 8);
		got = fmt_crc32c_patch(before, old, nw, 8, 4096 - at - 8);
		CHECK(got == want, "patch at %zu: %08x, want %08x", at, got, want);
	}
	/* a long run of zeros after the patch (the shift by repeated squaring) */
	{
		static uint8_t big[1 << 20];
		uint32_t before = fmt_crc32c(0, big, sizeof(big)), want;

		big[3] = 0x5a;
		want = fmt_crc32c(0, big, sizeof(big));
		CHECK(fmt_crc32c_patch(before, "\0", "\x5a", 1, sizeof(big) - 4) == want, "long shift");
		CHECK(fmt_crc32c_cat(fmt_crc32c(0, big, 4), fmt_crc32c(0, big + 4, sizeof(big) - 4),
				     sizeof(big) - 4) == want, "long cat");
	}
	return check_summary();
}
