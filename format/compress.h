/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * format/ internal: the block (de)compressors trace.dat uses.
 *
 * trace-cmd compresses each metadata section as one block and CPU data in
 * chunks of whole pages; every block carries its uncompressed size, so
 * decompression here is always "exactly dlen bytes or an error".  Names are
 * trace-cmd's: "zstd", "zlib" (zlib wrapper, as compress2() writes it) and
 * "none" (a plain copy).  zlib is supported for reading only.
 *
 * All functions return 0 (or a byte count) on success and a negative errno
 * on failure; nothing prints.
 */
#ifndef FLYTRAP_COMPRESS_H
#define FLYTRAP_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* true if algo can be decompressed ("zstd", "zlib", "none"). */
bool fmt_decompress_supported(const char *algo);
/* true if algo can be written ("zstd", "none"). */
bool fmt_compress_supported(const char *algo);
/* Version string trace-cmd stores after the name ("1.5.4" for zstd, "" for none). */
const char *fmt_compress_version(const char *algo);

/*
 * Reusable context for one thread (keeps zstd's and zlib's state between
 * blocks, which matters for many small chunks).  level is used only for
 * compression (0 = zstd default 3).  Returns NULL with errno set
 * (EOPNOTSUPP for an unknown algo, ENOMEM).  fmt_zctx_free(NULL) is a no-op.
 */
struct fmt_zctx;
struct fmt_zctx *fmt_zctx_new(const char *algo, int level);
void fmt_zctx_free(struct fmt_zctx *z);

/*
 * Decompress src[0..slen) into dst, which has room for exactly dlen bytes.
 * Returns 0 only if the block decodes completely to exactly dlen bytes;
 * -EBADMSG for corrupt data or any other size (never writes past
 * dst + dlen); -EOPNOTSUPP for an unknown algo; -ENOMEM.
 */
int fmt_zctx_decompress(struct fmt_zctx *z, const void *src, size_t slen, void *dst, size_t dlen);
/* One-shot form (creates and frees a context per call). */
int fmt_decompress(const char *algo, const void *src, size_t slen, void *dst, size_t dlen);

/*
 * Worst-case compressed size of len bytes (for sizing dst), 0 if algo
 * cannot compress.
 */
size_t fmt_compress_bound(const char *algo, size_t len);

/*
 * Compress src[0..slen) into dst (capacity dcap; fmt_compress_bound() is
 * always enough) as one block.  Returns the compressed size, or -ENOSPC if
 * dcap is too small, -EOPNOTSUPP, -ENOMEM, -EIO for other library errors.
 */
ssize_t fmt_zctx_compress(struct fmt_zctx *z, const void *src, size_t slen, void *dst, size_t dcap);
ssize_t fmt_compress(const char *algo, int level, const void *src, size_t slen,
		     void *dst, size_t dcap);

#endif
