/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * format/ internals shared by the reader's files (reader.c parses the file,
 * iter.c decodes pages and merges CPUs).  Not for use outside format/.
 */
#ifndef FLYTRAP_FORMAT_INTERNAL_H
#define FLYTRAP_FORMAT_INTERNAL_H

#include <stdarg.h>

#include "format.h"
#include "compress.h"

/* Hard limits that keep a hostile file from making us allocate absurd amounts. */
#define FMT_MAX_META	(1ULL << 30)	/* one metadata blob or section */
#define FMT_MAX_CHUNK	(64ULL << 20)	/* one decompressed data chunk */
#define FMT_MAX_CPUS	4096
#define FMT_MAX_OPTIONS	100000
#define FMT_MAX_FORMATS	100000
#define FMT_MAX_PAGE	(1U << 24)
/* zstd/zlib cannot expand a block by more than this in practice; a larger
 * declared size is a lie we refuse before allocating. */
#define FMT_MAX_RATIO	8192

struct fmt_format_text {
	char *system;		/* "ftrace" for the ftrace formats */
	char *text;
	size_t len;
	bool bad;		/* refused: libtraceevent crashed or failed on it */
	bool tried;		/* parsed (or refused) already */
	int id;			/* from the "ID:" line, -1 if none */
	char *name;		/* from the "name:" line */
};

struct fmt_reader {
	int fd;
	char *path;
	unsigned flags;
	struct fmt_info info;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	char err[512];

	/* storage behind info's pointers */
	char *compression, *compression_version, *clock, *uname, *version;
	char *hp, *he, *kallsyms, *printk, *cmdlines, *procmaps;
	struct fmt_option *options;
	int options_cap;
	struct fmt_format_text *formats;
	int nformats, formats_cap;
	bool have_traceclock;
	bool old_format;	/* header_page empty: pre-2.6.31 layout, decoded as nothing */
	struct fmt_guest *guests; /* behind info.guests */

	/* event ID -> parsed event, for the iterator's hot path */
	struct tep_event **by_id;
	int *fmt_by_id;		/* event ID -> format not parsed yet, -1 none */
	int by_id_len;

	uint64_t err_off;	/* byte offset named by the last error */
	struct fmt_sums *sums;	/* checksums option, decoded on first use (sums.c) */
	struct fmt_tindex *tindex; /* time index section, decoded on first use (tindex.c) */
	struct fmt_facts *facts;   /* its facts section, likewise */
	struct fmt_state *state;   /* its state records section, likewise */
	/*
	 * Called around the fork that screens formats (before: true, then
	 * false): an iterator's worker threads pause so that none holds a lock
	 * the child would inherit taken (iter.c).  NULL: none.
	 */
	void (*fork_hook)(void *arg, bool before);
	void *fork_arg;
	uint64_t data_bytes;	/* see fmt_reader_data_bytes() */
	struct fmt_meta *meta;	/* flytrap's text options, decoded on first use (meta.c) */
	struct fmt_ksyms *ksyms; /* kallsyms, parsed on the first lookup (reader_ksyms.c) */
	uint64_t kallsyms_sec;	/* FMT_OPEN_LAZY_KALLSYMS: its section, read on first use */
	bool kallsyms_pending;	/* ... and not read yet */
};

/*
 * Kernel symbols from a kallsyms text (reader_ksyms.c), parsed on the first
 * lookup with libtraceevent's rules, answers as its table gives them.  text
 * must outlive the table.  fmt_ksyms_resolve() is a tep_func_resolver_t
 * whose priv is the table.
 */
struct fmt_ksyms *fmt_ksyms_new(const char *text, size_t len);
/* Gives the text (owned by arg's owner) on first use, under the table's lock; 0 or -errno. */
typedef int (*fmt_ksyms_text_fn)(void *arg, const char **text, size_t *len);
struct fmt_ksyms *fmt_ksyms_new_lazy(fmt_ksyms_text_fn fetch, void *arg);
/* Fetch the text now (not parse it), once, whichever thread asks first. */
void fmt_ksyms_text(struct fmt_ksyms *k);
void fmt_ksyms_free(struct fmt_ksyms *k);
const char *fmt_ksyms_find(struct fmt_ksyms *k, uint64_t addr, uint64_t *start,
			   const char **mod);
uint64_t fmt_ksyms_parses(const struct fmt_ksyms *k);
char *fmt_ksyms_resolve(void *priv, unsigned long long *addrp, char **modp);

/* Frees r's decoded flytrap metadata (meta.c). */
void fmt_meta_free_reader(struct fmt_reader *r);

void fmt_sums_free(struct fmt_sums *t);
struct fmt_tindex;
struct fmt_facts;
struct fmt_state;

/*
 * Where fmt_rerr() writes in a thread that decodes for an iterator (its
 * worker threads): the message is given to the reader by the thread that
 * owns it, when the merge reaches that point (iter.c).  NULL: the reader.
 */
struct fmt_errslot {
	uint64_t off;
	char msg[512];
};
extern __thread struct fmt_errslot *fmt_err_tls;

/* Record an error message (printf style) with the byte offset; returns err. */
int fmt_rerr(struct fmt_reader *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Bounds-checked pread of exactly n bytes at off. */
int fmt_rread(struct fmt_reader *r, uint64_t off, void *buf, size_t n);

/* Numbers in the file's byte order. */
static inline uint16_t fmt_get16(bool be, const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, 2);
	return be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap16(v) : v;
}

static inline uint32_t fmt_get32(bool be, const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
	return be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap32(v) : v;
}

static inline uint64_t fmt_get64(bool be, const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8);
	return be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap64(v) : v;
}

/*
 * Read a compressed block {u32 csize, u32 usize, data} at off, with at most
 * avail bytes available for it; *out is malloc'd (usize bytes + NUL).
 * *consumed gets 8 + csize.
 */
int fmt_read_zblock(struct fmt_reader *r, struct fmt_zctx *z, uint64_t off, uint64_t avail,
		    uint64_t max_usize, void **out, uint32_t *usize, uint64_t *consumed);

/*
 * The stamp of the last data record of one ring-buffer page (page_size
 * bytes in byte order be, a commit field of 8 bytes when long8), decoded as
 * the iterator decodes it; the page header's stamp when it holds no record.
 * A damaged record ends the walk (the stamps before it count).
 */
uint64_t fmt_page_last_ts(const void *page, uint32_t page_size, bool be, bool long8);
int fmt_page_walk(const void *page, uint32_t page_size, bool be, bool long8,
		  int (*cb)(void *ctx, uint64_t ts, const void *data, uint32_t size, int64_t missed),
		  void *ctx, uint64_t *last);

/* The time index (tindex.c); NULL-safe. */
void fmt_tindex_free(struct fmt_tindex *t);
void fmt_facts_free(struct fmt_facts *f);
void fmt_state_free(struct fmt_state *s);

#endif
