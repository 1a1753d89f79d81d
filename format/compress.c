// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block (de)compression for trace.dat sections and chunks: zstd (read and
 * write), zlib (read only: trace-cmd 3.2 writes it, 3.1.6 cannot read it, so
 * flytrap never produces it) and "none".
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "compress.h"

enum algo { ALG_NONE, ALG_ZSTD, ALG_ZLIB, ALG_UNKNOWN };

struct fmt_zctx {
	enum algo algo;
	int level;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	z_stream zs;
	bool zs_ready;
};

static enum algo algo_of(const char *name)
{
	if (!name || !strcmp(name, "none"))
		return ALG_NONE;
	if (!strcmp(name, "zstd"))
		return ALG_ZSTD;
	if (!strcmp(name, "zlib"))
		return ALG_ZLIB;
	return ALG_UNKNOWN;
}

bool fmt_decompress_supported(const char *algo)
{
	return algo_of(algo) != ALG_UNKNOWN;
}

bool fmt_compress_supported(const char *algo)
{
	enum algo a = algo_of(algo);

	return a == ALG_NONE || a == ALG_ZSTD;
}

const char *fmt_compress_version(const char *algo)
{
	switch (algo_of(algo)) {
	case ALG_ZSTD:
		return ZSTD_versionString();
	case ALG_ZLIB:
		return zlibVersion();
	default:
		return "";
	}
}

struct fmt_zctx *fmt_zctx_new(const char *algo, int level)
{
	struct fmt_zctx *z;
	enum algo a = algo_of(algo);

	if (a == ALG_UNKNOWN) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->algo = a;
	z->level = level ? level : 3;
	return z;
}

void fmt_zctx_free(struct fmt_zctx *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	ZSTD_freeDCtx(z->dctx);
	if (z->zs_ready)
		inflateEnd(&z->zs);
	free(z);
}

static int zlib_decompress(struct fmt_zctx *z, const void *src, size_t slen, void *dst, size_t dlen)
{
	int ret;

	/* avail_in/avail_out are uInt; chunk and section sizes are u32 anyway */
	if (slen > UINT_MAX || dlen > UINT_MAX)
		return -EOVERFLOW;
	if (!z->zs_ready) {
		memset(&z->zs, 0, sizeof(z->zs));
		if (inflateInit(&z->zs) != Z_OK)
			return -ENOMEM;
		z->zs_ready = true;
	} else if (inflateReset(&z->zs) != Z_OK) {
		return -EBADMSG;
	}
	z->zs.next_in = (Bytef *)src;
	z->zs.avail_in = (uInt)slen;
	z->zs.next_out = dst;
	z->zs.avail_out = (uInt)dlen;
	ret = inflate(&z->zs, Z_FINISH);
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	/* the stream must end exactly when the output is full */
	if (ret != Z_STREAM_END || z->zs.total_out != dlen)
		return -EBADMSG;
	return 0;
}

int fmt_zctx_decompress(struct fmt_zctx *z, const void *src, size_t slen, void *dst, size_t dlen)
{
	unsigned char dummy;
	size_t n;

	switch (z->algo) {
	case ALG_NONE:
		if (slen != dlen)
			return -EBADMSG;
		if (dlen)
			memcpy(dst, src, dlen);
		return 0;
	case ALG_ZSTD:
		if (!z->dctx) {
			z->dctx = ZSTD_createDCtx();
			if (!z->dctx)
				return -ENOMEM;
		}
		if (!dlen)
			dst = &dummy;
		/* dstCapacity = dlen: zstd stops with an error rather than overrun */
		n = ZSTD_decompressDCtx(z->dctx, dst, dlen, src, slen);
		if (ZSTD_isError(n)) {
			if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation)
				return -ENOMEM;
			return -EBADMSG;
		}
		return n == dlen ? 0 : -EBADMSG;
	case ALG_ZLIB:
		if (!dlen)
			dst = &dummy;
		return zlib_decompress(z, src, slen, dst, dlen);
	default:
		return -EOPNOTSUPP;
	}
}

int fmt_decompress(const char *algo, const void *src, size_t slen, void *dst, size_t dlen)
{
	struct fmt_zctx *z = fmt_zctx_new(algo, 0);
	int err;

	if (!z)
		return -errno;
	err = fmt_zctx_decompress(z, src, slen, dst, dlen);
	fmt_zctx_free(z);
	return err;
}

size_t fmt_compress_bound(const char *algo, size_t len)
{
	switch (algo_of(algo)) {
	case ALG_NONE:
		return len;
	case ALG_ZSTD:
		return ZSTD_compressBound(len);
	default:
		return 0;
	}
}

ssize_t fmt_zctx_compress(struct fmt_zctx *z, const void *src, size_t slen, void *dst, size_t dcap)
{
	size_t n;

	switch (z->algo) {
	case ALG_NONE:
		if (dcap < slen)
			return -ENOSPC;
		if (slen)
			memcpy(dst, src, slen);
		return (ssize_t)slen;
	case ALG_ZSTD:
		if (!z->cctx) {
			z->cctx = ZSTD_createCCtx();
			if (!z->cctx)
				return -ENOMEM;
			if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel,
								z->level)))
				return -EINVAL;
		}
		n = ZSTD_compress2(z->cctx, dst, dcap, src, slen);
		if (ZSTD_isError(n)) {
			switch (ZSTD_getErrorCode(n)) {
			case ZSTD_error_dstSize_tooSmall:
				return -ENOSPC;
			case ZSTD_error_memory_allocation:
				return -ENOMEM;
			default:
				return -EIO;
			}
		}
		return (ssize_t)n;
	default:
		return -EOPNOTSUPP;
	}
}

ssize_t fmt_compress(const char *algo, int level, const void *src, size_t slen,
		     void *dst, size_t dcap)
{
	struct fmt_zctx *z = fmt_zctx_new(algo, level);
	ssize_t n;

	if (!z)
		return -errno;
	n = fmt_zctx_compress(z, src, slen, dst, dcap);
	fmt_zctx_free(z);
	return n;
}
