// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat reader: file header, the v6 sequential layout, the v7 sections
 * and options chain, metadata, and the per-CPU data tables of every
 * buffer.  Event data is decoded by iter.c.
 *
 * Every size and offset comes from an untrusted file: each is checked
 * against the bytes that remain before anything is allocated or read, and
 * every failure names the byte offset where it happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

__thread struct fmt_errslot *fmt_err_tls;

int fmt_rerr(struct fmt_reader *r, int err, uint64_t off, const char *fmt, ...)
{
	struct fmt_errslot *t = fmt_err_tls;
	char *buf = t ? t->msg : r->err;
	size_t len = t ? sizeof(t->msg) : sizeof(r->err);
	va_list ap;
	int n;

	*(t ? &t->off : &r->err_off) = off;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (at byte offset %llu)", (unsigned long long)off);
	return err;
}

int fmt_rread(struct fmt_reader *r, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;

	if (off > r->info.file_size || n > r->info.file_size - off)
		return fmt_rerr(r, -EBADMSG, off, "file truncated: %zu bytes needed, %llu left",
				n, (unsigned long long)(off > r->info.file_size ? 0 :
							r->info.file_size - off));
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return fmt_rerr(r, -errno, off + done, "read failed: %s", strerror(errno));
		}
		if (got == 0)
			return fmt_rerr(r, -EBADMSG, off + done, "unexpected end of file");
		done += got;
	}
	return 0;
}

/* ---- a cursor over either the file or a decompressed section ----------- */

struct cur {
	struct fmt_reader *r;
	const uint8_t *mem;	/* NULL: read from the file */
	uint64_t base;		/* file offset of mem[0] (for messages) */
	uint64_t pos, end;	/* file offsets or mem indexes */
};

static int cur_read(struct cur *c, void *buf, size_t n)
{
	if (c->pos > c->end || n > c->end - c->pos)
		return fmt_rerr(c->r, -EBADMSG, c->base + c->pos,
				"truncated: %zu bytes needed, %llu left", n,
				(unsigned long long)(c->pos > c->end ? 0 : c->end - c->pos));
	if (c->mem)
		memcpy(buf, c->mem + c->pos, n);
	else if (fmt_rread(c->r, c->pos, buf, n))
		return -EBADMSG;
	c->pos += n;
	return 0;
}

static int cur_u16(struct cur *c, uint16_t *v)
{
	uint8_t b[2];
	int err = cur_read(c, b, 2);

	if (!err)
		*v = fmt_get16(c->r->info.big_endian, b);
	return err;
}

static int cur_u32(struct cur *c, uint32_t *v)
{
	uint8_t b[4];
	int err = cur_read(c, b, 4);

	if (!err)
		*v = fmt_get32(c->r->info.big_endian, b);
	return err;
}

static int cur_u64(struct cur *c, uint64_t *v)
{
	uint8_t b[8];
	int err = cur_read(c, b, 8);

	if (!err)
		*v = fmt_get64(c->r->info.big_endian, b);
	return err;
}

/* size bytes into a NUL-terminated malloc'd buffer, size checked first */
static int cur_blob(struct cur *c, uint64_t size, char **out)
{
	char *p;
	int err;

	if (c->pos > c->end || size > c->end - c->pos || size > FMT_MAX_META)
		return fmt_rerr(c->r, -EBADMSG, c->base + c->pos,
				"declared size %llu does not fit the %llu bytes left",
				(unsigned long long)size,
				(unsigned long long)(c->pos > c->end ? 0 : c->end - c->pos));
	p = malloc(size + 1);
	if (!p)
		return -ENOMEM;
	err = cur_read(c, p, size);
	if (err) {
		free(p);
		return err;
	}
	p[size] = 0;
	*out = p;
	return 0;
}

/* NUL-terminated string of at most max bytes */
static int cur_str(struct cur *c, size_t max, char **out)
{
	char buf[4096];
	size_t i;

	if (max > sizeof(buf))
		max = sizeof(buf);
	for (i = 0; i < max; i++) {
		if (cur_read(c, &buf[i], 1))
			return -EBADMSG;
		if (!buf[i]) {
			*out = strdup(buf);
			return *out ? 0 : -ENOMEM;
		}
	}
	return fmt_rerr(c->r, -EBADMSG, c->base + c->pos, "string longer than %zu bytes", max);
}

/* ---- compressed blocks ---------------------------------------------------- */

int fmt_read_zblock(struct fmt_reader *r, struct fmt_zctx *z, uint64_t off, uint64_t avail,
		    uint64_t max_usize, void **out, uint32_t *usize_out, uint64_t *consumed)
{
	uint8_t hdr[8];
	uint32_t csize, usize;
	void *src = NULL, *dst = NULL;
	int err;

	if (avail < 8)
		return fmt_rerr(r, -EBADMSG, off, "compressed block header does not fit");
	err = fmt_rread(r, off, hdr, 8);
	if (err)
		return err;
	csize = fmt_get32(r->info.big_endian, hdr);
	usize = fmt_get32(r->info.big_endian, hdr + 4);
	if (csize > avail - 8)
		return fmt_rerr(r, -EBADMSG, off, "compressed size %u does not fit the %llu bytes left",
				csize, (unsigned long long)(avail - 8));
	if (usize > max_usize || (uint64_t)usize > (uint64_t)csize * FMT_MAX_RATIO + (1 << 20))
		return fmt_rerr(r, -EBADMSG, off, "implausible uncompressed size %u for %u compressed bytes",
				usize, csize);
	src = malloc(csize ? csize : 1);
	dst = malloc((size_t)usize + 1);
	if (!src || !dst) {
		err = -ENOMEM;
		goto out;
	}
	err = fmt_rread(r, off + 8, src, csize);
	if (err)
		goto out;
	err = z ? fmt_zctx_decompress(z, src, csize, dst, usize)
		: fmt_decompress(r->info.compression, src, csize, dst, usize);
	if (err) {
		err = fmt_rerr(r, err, off, "%s block does not decompress to its declared %u bytes",
			       r->info.compression, usize);
		goto out;
	}
	((char *)dst)[usize] = 0;
	*out = dst;
	dst = NULL;
	*usize_out = usize;
	*consumed = 8 + (uint64_t)csize;
out:
	free(src);
	free(dst);
	return err;
}

/* ---- v7 sections ------------------------------------------------------------ */

struct sec_hdr {
	uint16_t id, flags;
	int32_t desc;
	uint64_t size;
};

static int read_sec_hdr(struct fmt_reader *r, uint64_t off, struct sec_hdr *h)
{
	uint8_t b[16];
	bool be = r->info.big_endian;
	int err = fmt_rread(r, off, b, 16);

	if (err)
		return err;
	h->id = fmt_get16(be, b);
	h->flags = fmt_get16(be, b + 2);
	h->desc = (int32_t)fmt_get32(be, b + 4);
	h->size = fmt_get64(be, b + 8);
	if (h->size > r->info.file_size - off - 16)
		return fmt_rerr(r, -EBADMSG, off, "section %u declares %llu bytes, beyond the end of the file",
				h->id, (unsigned long long)h->size);
	return 0;
}

int fmt_reader_section(struct fmt_reader *r, uint64_t offset, uint16_t expect_id,
		       void **data, size_t *len)
{
	struct sec_hdr h;
	int err;

	if (r->info.version < 7)
		return fmt_rerr(r, -EOPNOTSUPP, offset, "sections exist only in version 7 files");
	if (offset < 16 || offset > r->info.file_size - 16)
		return fmt_rerr(r, -EBADMSG, offset, "section offset outside the file");
	err = read_sec_hdr(r, offset, &h);
	if (err)
		return err;
	if (h.id != expect_id)
		return fmt_rerr(r, -EBADMSG, offset, "expected section %u, found %u", expect_id, h.id);
	if (h.flags & 1) {
		uint32_t usize;
		uint64_t used;

		err = fmt_read_zblock(r, NULL, offset + 16, h.size, FMT_MAX_META, data, &usize, &used);
		if (!err)
			*len = usize;
		return err;
	}
	if (h.size > FMT_MAX_META)
		return fmt_rerr(r, -EBADMSG, offset, "section of %llu bytes is too large",
				(unsigned long long)h.size);
	{
		struct cur c = { .r = r, .pos = offset + 16, .end = offset + 16 + h.size };
		char *p;

		err = cur_blob(&c, h.size, &p);
		if (!err) {
			*data = p;
			*len = h.size;
		}
	}
	return err;
}

/* ---- metadata parts (shared by v6 and the v7 sections) --------------------- */

static void clamp_cpu(struct fmt_reader *r, struct fmt_cpu_data *cd);
static int recover_buffers(struct fmt_reader *r, uint64_t pos);
static int kernel_long_from_header_page(const char *hp, size_t len);

static int add_format(struct fmt_reader *r, const char *system, char *text, size_t len)
{
	struct fmt_format_text *f;

	if (r->nformats >= FMT_MAX_FORMATS) {
		free(text);
		return fmt_rerr(r, -EBADMSG, 0, "more than %d event formats", FMT_MAX_FORMATS);
	}
	if (r->nformats == r->formats_cap) {
		int cap = r->formats_cap ? r->formats_cap * 2 : 64;
		void *p = realloc(r->formats, cap * sizeof(*r->formats));

		if (!p) {
			free(text);
			return -ENOMEM;
		}
		r->formats = p;
		r->formats_cap = cap;
	}
	f = &r->formats[r->nformats];
	memset(f, 0, sizeof(*f));
	f->system = strdup(system);
	if (!f->system) {
		free(text);
		return -ENOMEM;
	}
	f->text = text;
	f->len = len;
	r->nformats++;
	return 0;
}

static int parse_header_info(struct cur *c)
{
	struct fmt_reader *r = c->r;
	char name[13];
	uint64_t size;
	int err;

	err = cur_read(c, name, 12);
	if (err)
		return err;
	if (memcmp(name, "header_page", 12))
		return fmt_rerr(r, -EBADMSG, c->base + c->pos - 12, "'header_page' marker missing");
	if ((err = cur_u64(c, &size)) || (err = cur_blob(c, size, &r->hp)))
		return err;
	r->info.header_page.data = r->hp;
	r->info.header_page.len = size;
	err = cur_read(c, name, 13);
	if (err)
		return err;
	if (memcmp(name, "header_event", 13))
		return fmt_rerr(r, -EBADMSG, c->base + c->pos - 13, "'header_event' marker missing");
	if ((err = cur_u64(c, &size)) || (err = cur_blob(c, size, &r->he)))
		return err;
	r->info.header_event.data = r->he;
	r->info.header_event.len = size;
	return 0;
}

static int parse_ftrace_formats(struct cur *c)
{
	uint32_t n, i;
	int err = cur_u32(c, &n);

	if (err)
		return err;
	if (n > FMT_MAX_FORMATS)
		return fmt_rerr(c->r, -EBADMSG, c->base + c->pos - 4, "%u ftrace formats is implausible", n);
	for (i = 0; i < n; i++) {
		uint64_t size;
		char *text;

		if ((err = cur_u64(c, &size)) || (err = cur_blob(c, size, &text)))
			return err;
		err = add_format(c->r, "ftrace", text, size);
		if (err)
			return err;
	}
	return 0;
}

static int parse_event_formats(struct cur *c)
{
	uint32_t nsys, s;
	int err = cur_u32(c, &nsys);

	if (err)
		return err;
	if (nsys > FMT_MAX_FORMATS)
		return fmt_rerr(c->r, -EBADMSG, c->base + c->pos - 4, "%u event systems is implausible", nsys);
	for (s = 0; s < nsys; s++) {
		char *sys;
		uint32_t nev, i;

		if ((err = cur_str(c, 1024, &sys)))
			return err;
		if ((err = cur_u32(c, &nev))) {
			free(sys);
			return err;
		}
		for (i = 0; i < nev && !err; i++) {
			uint64_t size;
			char *text;

			if ((err = cur_u64(c, &size)) || (err = cur_blob(c, size, &text)))
				break;
			err = add_format(c->r, sys, text, size);
		}
		free(sys);
		if (err)
			return err;
	}
	return 0;
}

static int parse_sized_text(struct cur *c, int width, char **out, struct fmt_blob *blob)
{
	uint64_t size;
	int err;

	if (width == 4) {
		uint32_t s32;

		err = cur_u32(c, &s32);
		size = s32;
	} else {
		err = cur_u64(c, &size);
	}
	if (err)
		return err;
	free(*out);
	*out = NULL;
	/*
	 * trace-cmd extract sometimes declares a text one byte longer than it
	 * stored (saved_cmdlines changing under it) and its reader takes what
	 * is there; do the same inside a section, where the bound is known.
	 */
	if (c->mem && c->pos <= c->end && size > c->end - c->pos && size - (c->end - c->pos) <= 16)
		size = c->end - c->pos;
	err = cur_blob(c, size, out);
	if (err)
		return err;
	blob->data = *out;
	blob->len = size;
	return 0;
}

/* ---- options ---------------------------------------------------------------- */

static int set_clock_from_text(struct fmt_reader *r, const char *text, size_t len)
{
	const char *lb = memchr(text, '[', len), *rb;
	static const char *usec_clocks[] = { "local", "global", "uptime", "perf", "mono",
					     "mono_raw", "tsc2nsec", NULL };	/* not tai: 3.1.6 omits it */
	size_t n;
	int i;
	char *name;

	if (!lb)
		return 0;
	rb = memchr(lb, ']', len - (lb - text));
	if (!rb)
		return 0;
	n = rb - lb - 1;
	name = strndup(lb + 1, n);
	if (!name)
		return -ENOMEM;
	free(r->clock);
	r->clock = name;
	r->info.clock = name;
	for (i = 0; usec_clocks[i]; i++)
		if (!strcmp(name, usec_clocks[i]))
			break;
	/* trace-cmd never switches microseconds back on once a clock turned it off */
	if (!usec_clocks[i])
		r->info.clock_in_usecs = false;
	return 0;
}

static int add_option(struct fmt_reader *r, uint16_t id, uint32_t size, void *data, uint64_t off)
{
	struct fmt_option *o;

	if (r->info.noptions >= FMT_MAX_OPTIONS)
		return fmt_rerr(r, -EBADMSG, off, "more than %d options", FMT_MAX_OPTIONS);
	if (r->info.noptions == r->options_cap) {
		int cap = r->options_cap ? r->options_cap * 2 : 32;
		void *p = realloc(r->options, cap * sizeof(*r->options));

		if (!p)
			return -ENOMEM;
		r->options = p;
		r->options_cap = cap;
		r->info.options = r->options;
	}
	o = &r->options[r->info.noptions++];
	o->id = id;
	o->size = size;
	o->data = data;
	o->file_offset = off;
	return 0;
}

static struct fmt_buffer *new_buffer(struct fmt_reader *r)
{
	void *p = realloc(r->info.buffers, (r->info.nbuffers + 1) * sizeof(struct fmt_buffer));

	if (!p)
		return NULL;
	r->info.buffers = p;
	memset(&r->info.buffers[r->info.nbuffers], 0, sizeof(struct fmt_buffer));
	return &r->info.buffers[r->info.nbuffers++];
}

static int parse_v7_buffer_option(struct fmt_reader *r, const uint8_t *d, uint32_t size, uint64_t off)
{
	struct cur c = { .r = r, .mem = d, .base = off, .pos = 0, .end = size };
	struct fmt_buffer *b;
	uint64_t sec;
	uint32_t page_size, ncpus, i;
	char *name = NULL, *clock = NULL;
	struct sec_hdr h;
	int err;

	if ((err = cur_u64(&c, &sec)) || (err = cur_str(&c, size, &name)))
		return err;
	if ((err = cur_str(&c, size, &clock)) || (err = cur_u32(&c, &page_size)) ||
	    (err = cur_u32(&c, &ncpus)))
		goto fail;
	if (ncpus > FMT_MAX_CPUS || (uint64_t)ncpus * 20 > c.end - c.pos) {
		err = fmt_rerr(r, -EBADMSG, off, "buffer '%s' lists %u CPUs in %u bytes", name, ncpus, size);
		goto fail;
	}
	if (page_size < 16 || page_size > FMT_MAX_PAGE) {
		err = fmt_rerr(r, -EBADMSG, off, "buffer '%s' has page size %u", name, page_size);
		goto fail;
	}
	if (sec < 16 || sec > r->info.file_size - 16) {
		err = fmt_rerr(r, -EBADMSG, off, "buffer '%s' points outside the file", name);
		goto fail;
	}
	err = read_sec_hdr(r, sec, &h);
	if (err)
		goto fail;
	if (h.id != FMT_OPT_BUFFER) {
		err = fmt_rerr(r, -EBADMSG, sec, "buffer '%s' points at section %u, not a buffer", name, h.id);
		goto fail;
	}
	for (i = 0; i < (uint32_t)r->info.nbuffers; i++) {
		if (!strcmp(r->info.buffers[i].name, name)) {
			err = fmt_rerr(r, -EBADMSG, off, "buffer '%s' described twice", name);
			goto fail;
		}
	}
	b = new_buffer(r);
	if (!b) {
		err = -ENOMEM;
		goto fail;
	}
	b->name = name;
	b->clock = clock;
	b->page_size = page_size;
	b->compressed = h.flags & 1;
	b->section_offset = sec;
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	for (i = 0; i < ncpus; i++) {
		uint32_t cpu;
		uint64_t doff, dsize;
		uint32_t j;

		if ((err = cur_u32(&c, &cpu)) || (err = cur_u64(&c, &doff)) || (err = cur_u64(&c, &dsize)))
			return err;
		if (cpu >= FMT_MAX_CPUS)
			return fmt_rerr(r, -EBADMSG, off, "CPU id %u is out of range", cpu);
		for (j = 0; j < (uint32_t)b->ncpus; j++)
			if (b->cpus[j].cpu == (int)cpu)
				return fmt_rerr(r, -EBADMSG, off, "CPU %u listed twice in buffer '%s'", cpu, name);
		b->cpus[b->ncpus].cpu = cpu;
		b->cpus[b->ncpus].offset = doff;
		b->cpus[b->ncpus].size = dsize;
		if (dsize)
			clamp_cpu(r, &b->cpus[b->ncpus]);
		b->ncpus++;
	}
	return 0;
fail:
	free(name);
	free(clock);
	return err;
}

/*
 * FMT_OPEN_LAZY_KALLSYMS: only the section's header is checked now (a
 * damaged offset fails the open as before); its text, often the largest
 * piece of metadata, is decompressed when first needed (load_kallsyms).
 */
static int defer_kallsyms(struct fmt_reader *r, uint64_t sec)
{
	struct sec_hdr h;
	int err;

	if (sec < 16 || sec > r->info.file_size - 16)
		return fmt_rerr(r, -EBADMSG, sec, "section offset outside the file");
	err = read_sec_hdr(r, sec, &h);
	if (err)
		return err;
	if (h.id != FMT_OPT_KALLSYMS)
		return fmt_rerr(r, -EBADMSG, sec, "expected section %u, found %u",
				FMT_OPT_KALLSYMS, h.id);
	free(r->kallsyms);
	r->kallsyms = NULL;
	r->info.kallsyms = (struct fmt_blob){ 0 };
	r->kallsyms_sec = sec;
	r->kallsyms_pending = true;
	return 0;
}

/* the deferred kallsyms section, read now; a damaged one reads as empty */
static int load_kallsyms(void *arg, const char **text, size_t *len)
{
	struct fmt_reader *r = arg;

	if (r->kallsyms_pending) {
		void *data = NULL;
		size_t dlen = 0;
		int err;

		r->kallsyms_pending = false;
		err = fmt_reader_section(r, r->kallsyms_sec, FMT_OPT_KALLSYMS, &data, &dlen);
		if (!err) {
			struct cur c = { .r = r, .mem = data, .base = r->kallsyms_sec + 16,
					 .pos = 0, .end = dlen };

			err = parse_sized_text(&c, 4, &r->kallsyms, &r->info.kallsyms);
		}
		free(data);
		if (err) {
			free(r->kallsyms);
			r->kallsyms = NULL;
			r->info.kallsyms = (struct fmt_blob){ 0 };
		}
	}
	*text = r->kallsyms;
	*len = r->info.kallsyms.len;
	return 0;
}

static int parse_meta_section_option(struct fmt_reader *r, uint16_t id, const uint8_t *d,
				     uint32_t size, uint64_t off)
{
	void *data;
	size_t len;
	uint64_t sec;
	int err;
	struct cur c;

	if (size < 8)
		return fmt_rerr(r, -EBADMSG, off, "option %u is too short", id);
	sec = fmt_get64(r->info.big_endian, d);
	if (id == FMT_OPT_KALLSYMS && (r->flags & FMT_OPEN_LAZY_KALLSYMS))
		return defer_kallsyms(r, sec);
	err = fmt_reader_section(r, sec, id, &data, &len);
	if (err)
		return err;
	c = (struct cur){ .r = r, .mem = data, .base = sec + 16, .pos = 0, .end = len };
	switch (id) {
	case FMT_OPT_HEADER_INFO:
		err = parse_header_info(&c);
		break;
	case FMT_OPT_FTRACE_EVENTS:
		err = parse_ftrace_formats(&c);
		break;
	case FMT_OPT_EVENT_FORMATS:
		err = parse_event_formats(&c);
		break;
	case FMT_OPT_KALLSYMS:
		err = parse_sized_text(&c, 4, &r->kallsyms, &r->info.kallsyms);
		break;
	case FMT_OPT_PRINTK:
		err = parse_sized_text(&c, 4, &r->printk, &r->info.printk);
		break;
	case FMT_OPT_CMDLINES:
		err = parse_sized_text(&c, 8, &r->cmdlines, &r->info.cmdlines);
		break;
	}
	free(data);
	return err;
}

static char *opt_string(const uint8_t *d, uint32_t size)
{
	return strndup((const char *)d, size);
}

/* ---- host/guest time synchronisation (TRACEID, TIME_SHIFT, GUEST) -------- */

static void free_time_shift(struct fmt_time_shift *ts)
{
	int i;

	for (i = 0; ts->cpus && i < ts->ncpus; i++)
		free(ts->cpus[i].samples);
	free(ts->cpus);
	memset(ts, 0, sizeof(*ts));
}

struct sample_ix {
	struct fmt_tsync_sample s;
	size_t ix;
};

/* by time (signed, as trace-cmd compares), then file order: a stable sort */
static int cmp_sample(const void *a, const void *b)
{
	const struct sample_ix *x = a, *y = b;

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/*
 * u64 peer trace ID, u32 flags, u32 CPU count, then per CPU {u32 n,
 * times[n], offsets[n], scalings[n]} (u64 each), then optionally per CPU
 * fraction_bits[n].  Every count is checked against the bytes left before
 * anything is allocated.  trace-cmd sorts each CPU's samples by time and
 * drops repeated times; so do we.  A later TIME_SHIFT replaces an earlier
 * one, as in trace-cmd.
 */
static int parse_time_shift(struct fmt_reader *r, const uint8_t *d, uint32_t size, uint64_t off)
{
	bool be = r->info.big_endian;
	struct fmt_time_shift ts = { .present = true };
	uint32_t ncpus, i, k;
	uint64_t pos;
	int err = 0;

	if (size < 16)
		return fmt_rerr(r, -EBADMSG, off, "TIME_SHIFT option of %u bytes is too short", size);
	ts.peer_id = fmt_get64(be, d);
	ts.flags = fmt_get32(be, d + 8);
	ncpus = fmt_get32(be, d + 12);
	pos = 16;
	if (ncpus > FMT_MAX_CPUS || (uint64_t)ncpus * 4 > size - pos)
		return fmt_rerr(r, -EBADMSG, off, "TIME_SHIFT option lists %u CPUs in %u bytes",
				ncpus, size);
	ts.ncpus = (int)ncpus;
	ts.cpus = calloc(ncpus ? ncpus : 1, sizeof(*ts.cpus));
	if (!ts.cpus)
		return -ENOMEM;
	for (i = 0; i < ncpus; i++) {
		struct fmt_tsync_cpu *c = &ts.cpus[i];
		uint32_t n;

		if (size - pos < 4) {
			err = fmt_rerr(r, -EBADMSG, off + pos, "TIME_SHIFT option ends before CPU %u", i);
			goto fail;
		}
		n = fmt_get32(be, d + pos);
		pos += 4;
		if (n > (size - pos) / 24) {
			err = fmt_rerr(r, -EBADMSG, off + pos - 4,
				       "TIME_SHIFT CPU %u declares %u samples, only %llu bytes left",
				       i, n, (unsigned long long)(size - pos));
			goto fail;
		}
		c->nsamples = (int)n;
		c->samples = calloc(n ? n : 1, sizeof(*c->samples));
		if (!c->samples) {
			err = -ENOMEM;
			goto fail;
		}
		for (k = 0; k < n; k++) {
			c->samples[k].time = (int64_t)fmt_get64(be, d + pos + 8ULL * k);
			c->samples[k].offset = (int64_t)fmt_get64(be, d + pos + 8ULL * (n + k));
			c->samples[k].scaling = (int64_t)fmt_get64(be, d + pos + 8ULL * (2ULL * n + k));
		}
		pos += 24ULL * n;
	}
	if (pos < size) {
		/* fraction bits, per CPU, for the same counts */
		ts.has_fraction = true;
		for (i = 0; i < ncpus; i++) {
			struct fmt_tsync_cpu *c = &ts.cpus[i];

			if ((uint64_t)c->nsamples > (size - pos) / 8) {
				err = fmt_rerr(r, -EBADMSG, off + pos,
					       "TIME_SHIFT fraction bits of CPU %u do not fit the option", i);
				goto fail;
			}
			for (k = 0; k < (uint32_t)c->nsamples; k++)
				c->samples[k].fraction = (int64_t)fmt_get64(be, d + pos + 8ULL * k);
			pos += 8ULL * c->nsamples;
		}
	}
	for (i = 0; i < ncpus; i++) {
		struct fmt_tsync_cpu *c = &ts.cpus[i];
		struct sample_ix *t;
		int j, m = 0;

		if (c->nsamples < 2)
			continue;
		t = malloc(c->nsamples * sizeof(*t));
		if (!t) {
			err = -ENOMEM;
			goto fail;
		}
		for (j = 0; j < c->nsamples; j++) {
			t[j].s = c->samples[j];
			t[j].ix = j;
		}
		qsort(t, c->nsamples, sizeof(*t), cmp_sample);
		for (j = 0; j < c->nsamples; j++)
			if (j == 0 || t[j].s.time != t[j - 1].s.time)
				c->samples[m++] = t[j].s;
		c->nsamples = m;
		free(t);
	}
	free_time_shift(&r->info.time_shift);
	r->info.time_shift = ts;
	return 0;
fail:
	free_time_shift(&ts);
	return err;
}

/* name\0, u64 trace ID, u32 vCPU count, then {u32 vcpu, u32 host pid} per vCPU */
static int parse_guest(struct fmt_reader *r, const uint8_t *d, uint32_t size, uint64_t off)
{
	bool be = r->info.big_endian;
	const uint8_t *nul = memchr(d, 0, size);
	struct fmt_guest g = { 0 }, *p;
	uint64_t pos;
	uint32_t n, i;

	if (!nul)
		return fmt_rerr(r, -EBADMSG, off, "GUEST option: the name has no terminating NUL");
	pos = nul - d + 1;
	if (size - pos < 12)
		return fmt_rerr(r, -EBADMSG, off, "GUEST option '%s' is too short", (const char *)d);
	g.trace_id = fmt_get64(be, d + pos);
	n = fmt_get32(be, d + pos + 8);
	pos += 12;
	if (n > FMT_MAX_CPUS || (uint64_t)n * 8 > size - pos)
		return fmt_rerr(r, -EBADMSG, off, "GUEST option '%s' lists %u vCPUs in %u bytes",
				(const char *)d, n, size);
	g.nvcpus = (int)n;
	g.vcpu_pid = calloc(n ? n : 1, sizeof(int));
	g.name = strdup((const char *)d);
	if (!g.vcpu_pid || !g.name) {
		free(g.vcpu_pid);
		free((char *)g.name);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint32_t vcpu = fmt_get32(be, d + pos + 8ULL * i);

		if (vcpu >= n) {
			free(g.vcpu_pid);
			free((char *)g.name);
			return fmt_rerr(r, -EBADMSG, off, "GUEST option '%s' lists vCPU %u of %u",
					(const char *)d, vcpu, n);
		}
		g.vcpu_pid[vcpu] = (int)fmt_get32(be, d + pos + 8ULL * i + 4);
	}
	p = realloc(r->guests, (r->info.nguests + 1) * sizeof(*p));
	if (!p) {
		free(g.vcpu_pid);
		free((char *)g.name);
		return -ENOMEM;
	}
	r->guests = p;
	r->guests[r->info.nguests++] = g;
	r->info.guests = r->guests;
	return 0;
}

/* ---- latency-format text ---------------------------------------------------- */

/*
 * v7 BUFFER_TEXT: u64 section offset, name\0, clock\0.  The section holds
 * the text, raw or as a chunk list.  Every chunk header is checked here,
 * so that reading the text later can only fail on corrupt data.
 */
static int parse_v7_buffer_text(struct fmt_reader *r, const uint8_t *d, uint32_t size, uint64_t off)
{
	struct cur c = { .r = r, .mem = d, .base = off, .pos = 0, .end = size };
	struct fmt_latency *lat = &r->info.latency;
	struct fmt_buffer *b;
	char *name = NULL, *clock = NULL;
	uint64_t sec, end;
	struct sec_hdr h;
	int err, i;

	if ((err = cur_u64(&c, &sec)) || (err = cur_str(&c, size, &name)))
		return err;
	if ((err = cur_str(&c, size, &clock)))
		goto fail;
	if (name[0]) {
		err = fmt_rerr(r, -EOPNOTSUPP, off, "latency-format text in buffer '%s' (an instance) "
			       "is not supported", name);
		goto fail;
	}
	if (lat->present) {
		err = fmt_rerr(r, -EBADMSG, off, "latency-format text described twice");
		goto fail;
	}
	for (i = 0; i < r->info.nbuffers; i++) {
		if (!r->info.buffers[i].name[0]) {
			err = fmt_rerr(r, -EBADMSG, off, "the top buffer holds both pages and latency text");
			goto fail;
		}
	}
	if (sec < 16 || sec > r->info.file_size - 16) {
		err = fmt_rerr(r, -EBADMSG, off, "latency text points outside the file");
		goto fail;
	}
	{
		uint8_t hb[16];
		bool be = r->info.big_endian;

		if ((err = fmt_rread(r, sec, hb, 16)))
			goto fail;
		h.id = fmt_get16(be, hb);
		h.flags = fmt_get16(be, hb + 2);
		h.size = fmt_get64(be, hb + 8);
	}
	if (h.size > r->info.file_size - sec - 16) {
		/* cut inside the text: what is there stays readable */
		h.size = r->info.file_size - sec - 16;
		if (!r->info.truncated_at || r->info.truncated_at > r->info.file_size)
			r->info.truncated_at = r->info.file_size;
	}
	if (h.id != FMT_OPT_BUFFER_TEXT) {
		err = fmt_rerr(r, -EBADMSG, sec, "latency text points at section %u, not %u",
			       h.id, FMT_OPT_BUFFER_TEXT);
		goto fail;
	}
	lat->present = true;
	lat->compressed = h.flags & 1;
	lat->offset = sec + 16;
	lat->section_size = h.size;
	end = sec + 16 + h.size;
	if (!lat->compressed) {
		/* trace-cmd reads from here to the end of the file */
		lat->size = r->info.file_size - lat->offset;
	} else {
		uint8_t b4[8];
		uint64_t p = lat->offset + 4;
		uint32_t n, k;

		if (h.size < 4) {
			err = fmt_rerr(r, -EBADMSG, sec, "latency text section of %llu bytes has no chunk count",
				       (unsigned long long)h.size);
			goto fail;
		}
		if ((err = fmt_rread(r, lat->offset, b4, 4)))
			goto fail;
		n = fmt_get32(r->info.big_endian, b4);
		if (n > (h.size - 4) / 8) {
			err = fmt_rerr(r, -EBADMSG, lat->offset, "latency text declares %u chunks in %llu bytes",
				       n, (unsigned long long)h.size);
			goto fail;
		}
		for (k = 0; k < n; k++) {
			uint32_t cs, us;

			if (r->info.truncated_at && end - p < 8)
				break;	/* the rest of the chunks are cut off */
			if (end - p < 8) {
				err = fmt_rerr(r, -EBADMSG, p, "latency text chunk %u of %u does not fit its section",
					       k, n);
				goto fail;
			}
			if ((err = fmt_rread(r, p, b4, 8)))
				goto fail;
			cs = fmt_get32(r->info.big_endian, b4);
			us = fmt_get32(r->info.big_endian, b4 + 4);
			if (cs > end - p - 8 && r->info.truncated_at)
				break;
			if (cs > end - p - 8) {
				err = fmt_rerr(r, -EBADMSG, p, "latency text chunk %u declares %u compressed bytes, "
					       "%llu left in the section", k, cs,
					       (unsigned long long)(end - p - 8));
				goto fail;
			}
			if (us > FMT_MAX_CHUNK || (uint64_t)us > (uint64_t)cs * FMT_MAX_RATIO + (1 << 20)) {
				err = fmt_rerr(r, -EBADMSG, p, "latency text chunk %u declares an implausible "
					       "%u bytes for %u compressed", k, us, cs);
				goto fail;
			}
			lat->size += us;
			p += 8 + (uint64_t)cs;
		}
		lat->nchunks = k;
	}
	b = new_buffer(r);
	if (!b) {
		err = -ENOMEM;
		goto fail;
	}
	b->name = name;
	b->clock = clock;
	b->page_size = r->info.page_size;
	b->compressed = lat->compressed;
	b->section_offset = sec;
	return 0;
fail:
	free(name);
	free(clock);
	return err;
}

/*
 * After a v6 "latency" marker the rest of the file is text.  trace-cmd
 * still reads a clock block {u64 len, len bytes} there when the file has a
 * TRACECLOCK option, so those bytes never show; when len does not fit it
 * falls back to the local clock having consumed only the 8 bytes of len.
 * (Its read of a len that fits the machine's memory but not the file goes
 * to the end of the file instead; text is never such a number, since its
 * bytes are printable.)
 */
static int parse_v6_latency(struct fmt_reader *r, uint64_t pos)
{
	struct fmt_latency *lat = &r->info.latency;
	uint64_t fs = r->info.file_size;

	lat->present = true;
	lat->offset = pos;
	if (r->have_traceclock) {
		uint8_t b8[8];
		uint64_t len;
		int err;

		if (fs - pos < 8) {
			lat->offset = fs;
		} else {
			if ((err = fmt_rread(r, pos, b8, 8)))
				return err;
			len = fmt_get64(r->info.big_endian, b8);
			if (len <= fs - pos - 8) {
				char *text = malloc(len + 1);

				if (!text)
					return -ENOMEM;
				if ((err = fmt_rread(r, pos + 8, text, len))) {
					free(text);
					return err;
				}
				text[len] = 0;
				err = set_clock_from_text(r, text, len);
				free(text);
				if (err)
					return err;
				lat->offset = pos + 8 + len;
			} else {
				err = set_clock_from_text(r, "[local]", 7);
				if (err)
					return err;
				lat->offset = pos + 8;
			}
		}
		lat->clock_skipped = lat->offset - pos;
	}
	lat->size = fs - lat->offset;
	return 0;
}

#define LATENCY_READ_BLOCK 8192	/* glibc's BUFSIZ: trace-cmd's read size */

int fmt_reader_latency_read(struct fmt_reader *r,
			    int (*cb)(void *arg, const char *text, size_t len), void *arg)
{
	const struct fmt_latency *lat = &r->info.latency;
	char *buf = NULL;
	int err = 0;

	if (!lat->present)
		return -EINVAL;
	if (!lat->compressed) {
		uint64_t pos = lat->offset, end = lat->offset + lat->size;

		buf = malloc(LATENCY_READ_BLOCK);
		if (!buf)
			return -ENOMEM;
		while (pos < end && !err) {
			size_t n = end - pos > LATENCY_READ_BLOCK ? LATENCY_READ_BLOCK : (size_t)(end - pos);

			err = fmt_rread(r, pos, buf, n);
			if (!err)
				err = cb(arg, buf, n);
			pos += n;
		}
		free(buf);
		return err;
	} else {
		struct fmt_zctx *z = fmt_zctx_new(r->info.compression, 0);
		uint64_t p = lat->offset + 4, end = lat->offset + lat->section_size;
		uint32_t k;

		if (!z)
			return -errno;
		for (k = 0; k < lat->nchunks && !err; k++) {
			uint32_t usize;
			uint64_t used;
			void *out = NULL;

			err = fmt_read_zblock(r, z, p, end - p, FMT_MAX_CHUNK, &out, &usize, &used);
			if (err)
				break;
			p += used;
			/* trace-cmd's loop ends at an empty chunk */
			if (!usize) {
				free(out);
				break;
			}
			err = cb(arg, out, usize);
			free(out);
		}
		fmt_zctx_free(z);
		return err;
	}
}

/* Act on one option (both versions; v6 BUFFER is handled by the caller). */
static int handle_option(struct fmt_reader *r, uint16_t id, uint8_t *d, uint32_t size, uint64_t off)
{
	bool be = r->info.big_endian;
	char *s;
	int err = 0;

	switch (id) {
	case FMT_OPT_DATE:
		s = opt_string(d, size);
		if (!s)
			return -ENOMEM;
		r->info.has_date = true;
		r->info.date_offset_ns = strtoll(s, NULL, 0) * 1000;
		free(s);
		break;
	case FMT_OPT_OFFSET:
		s = opt_string(d, size);
		if (!s)
			return -ENOMEM;
		r->info.ts_offset_ns += strtoll(s, NULL, 0);
		free(s);
		break;
	case FMT_OPT_TRACECLOCK:
		r->have_traceclock = true;
		err = set_clock_from_text(r, (const char *)d, size);
		break;
	case FMT_OPT_UNAME:
		free(r->uname);
		r->uname = opt_string(d, size);
		if (!r->uname)
			return -ENOMEM;
		r->info.uname = r->uname;
		break;
	case FMT_OPT_VERSION:
		free(r->version);
		r->version = opt_string(d, size);
		if (!r->version)
			return -ENOMEM;
		r->info.tracecmd_version = r->version;
		break;
	case FMT_OPT_CPUCOUNT:
		if (size < 4)
			return fmt_rerr(r, -EBADMSG, off, "CPUCOUNT option is too short");
		r->info.cpus = fmt_get32(be, d);
		if (r->info.cpus > FMT_MAX_CPUS)
			return fmt_rerr(r, -EBADMSG, off, "CPU count %d is out of range", r->info.cpus);
		break;
	case FMT_OPT_PROCMAPS:
		free(r->procmaps);
		r->procmaps = opt_string(d, size);
		if (!r->procmaps)
			return -ENOMEM;
		r->info.procmaps.data = r->procmaps;
		r->info.procmaps.len = strlen(r->procmaps);
		break;
	case FMT_OPT_TRACEID:
		if (size >= 8)
			r->info.trace_id = fmt_get64(be, d);
		break;
	case FMT_OPT_TIME_SHIFT:
		err = parse_time_shift(r, d, size, off);
		break;
	case FMT_OPT_GUEST:
		err = parse_guest(r, d, size, off);
		break;
	case FMT_OPT_BUFFER_TEXT:
		if (r->info.version >= 7)
			err = parse_v7_buffer_text(r, d, size, off);
		break;
	case FMT_OPT_TSC2NSEC:
		if (size < 16)
			return fmt_rerr(r, -EBADMSG, off, "TSC2NSEC option is too short");
		r->info.has_tsc2nsec = true;
		r->info.tsc_mult = fmt_get32(be, d);
		r->info.tsc_shift = fmt_get32(be, d + 4);
		r->info.tsc_offset = fmt_get64(be, d + 8);
		if (r->info.tsc_shift > 63)
			return fmt_rerr(r, -EBADMSG, off, "TSC2NSEC shift %u is out of range", r->info.tsc_shift);
		break;
	case FMT_OPT_HEADER_INFO:
	case FMT_OPT_FTRACE_EVENTS:
	case FMT_OPT_EVENT_FORMATS:
	case FMT_OPT_KALLSYMS:
	case FMT_OPT_PRINTK:
	case FMT_OPT_CMDLINES:
		if (r->info.version >= 7)
			err = parse_meta_section_option(r, id, d, size, off);
		break;
	case FMT_OPT_BUFFER:
		if (r->info.version >= 7)
			err = parse_v7_buffer_option(r, d, size, off);
		break;
	default:
		break;	/* kept in the options list, acted on by whoever knows it */
	}
	return err;
}

/* Parse a list of options from a cursor; v7 ends at DONE (returns its next offset). */
static int parse_options(struct fmt_reader *r, struct cur *c, uint64_t *next, bool v7)
{
	int err;

	*next = 0;
	for (;;) {
		uint16_t id;
		uint32_t size;
		uint8_t *d;
		uint64_t off;

		if ((err = cur_u16(c, &id)))
			return err;
		if (id == FMT_OPT_DONE && !v7)
			return 0;	/* v6: a bare u16 0 */
		if ((err = cur_u32(c, &size)))
			return err;
		off = c->base + c->pos;
		if (c->pos > c->end || size > c->end - c->pos)
			return fmt_rerr(r, -EBADMSG, off, "option %u declares %u bytes, only %llu left",
					id, size, (unsigned long long)(c->pos > c->end ? 0 : c->end - c->pos));
		if (id == FMT_OPT_DONE) {
			uint8_t b[8];

			if (size < 8)
				return fmt_rerr(r, -EBADMSG, off, "DONE option without its next-section offset");
			if ((err = cur_read(c, b, 8)))
				return err;
			*next = fmt_get64(r->info.big_endian, b);
			c->pos += size - 8;
			return 0;
		}
		if ((err = cur_blob(c, size, (char **)&d)))
			return err;
		err = add_option(r, id, size, d, off);
		if (err) {
			free(d);
			return err;
		}
		err = handle_option(r, id, d, size, off);
		if (err)
			return err;
	}
}

static int parse_v7(struct fmt_reader *r, uint64_t first_options)
{
	uint64_t off = first_options;
	int nsec = 0;
	int err;

	while (off) {
		struct sec_hdr h;
		struct cur c;
		void *mem = NULL;
		uint64_t next;

		if (++nsec > 10000)
			return fmt_rerr(r, -EBADMSG, off, "options chain loops");
		if (off >= r->info.file_size - 16 && nsec > 1) {
			/* the file was cut: later options (buffer descriptions) are gone */
			r->info.truncated_at = r->info.file_size;
			return 0;
		}
		if (off < 16 || off > r->info.file_size - 16)
			return fmt_rerr(r, -EBADMSG, off, "options section offset outside the file");
		err = read_sec_hdr(r, off, &h);
		if (err && nsec > 1) {
			r->info.truncated_at = r->info.file_size;
			return 0;	/* cut inside a later options section */
		}
		if (err)
			return err;
		if (h.id != FMT_OPT_DONE)
			return fmt_rerr(r, -EBADMSG, off, "expected an options section, found section %u", h.id);
		if (h.flags & 1) {
			uint32_t usize;
			uint64_t used;

			err = fmt_read_zblock(r, NULL, off + 16, h.size, FMT_MAX_META, &mem, &usize, &used);
			if (err)
				return err;
			c = (struct cur){ .r = r, .mem = mem, .base = off + 16, .pos = 0, .end = usize };
		} else {
			c = (struct cur){ .r = r, .pos = off + 16, .end = off + 16 + h.size };
		}
		err = parse_options(r, &c, &next, true);
		free(mem);
		if (err)
			return err;
		/* sections only go forward in trace-cmd's writer; this also stops loops */
		if (next && next <= off)
			return fmt_rerr(r, -EBADMSG, off, "options chain points backwards to %llu",
					(unsigned long long)next);
		off = next;
	}
	return 0;
}

/*
 * Data that runs past the end of the file: keep what is there (events
 * before the damage stay readable) and remember where the file stops.
 */
static void clamp_cpu(struct fmt_reader *r, struct fmt_cpu_data *cd)
{
	uint64_t fs = r->info.file_size;

	if (cd->offset <= fs && cd->size <= fs - cd->offset)
		return;
	if (!r->info.truncated_at || fs < r->info.truncated_at)
		r->info.truncated_at = fs;
	cd->truncated = true;
	cd->size = cd->offset < fs ? fs - cd->offset : 0;
}

/*
 * Where one CPU's chunk list at p ends: *q gets the offset after its last
 * chunk (or end when the list runs past it: *cut).  Returns false when the
 * bytes at p do not look like a chunk list: a zero or absurd count, or a
 * first chunk whose sizes no writer produces (each chunk holds whole
 * pages).  Zero padding therefore never passes.
 */
static bool chunk_list(struct fmt_reader *r, uint64_t p, uint64_t end, uint32_t ps,
		       uint64_t *q_out, bool *cut)
{
	bool be = r->info.big_endian;
	uint8_t h[8];
	uint32_t n, k;
	uint64_t q = p + 4;

	*cut = false;
	if (p + 4 > end || fmt_rread(r, p, h, 4))
		return false;
	n = fmt_get32(be, h);
	if (!n || n > (1U << 24))
		return false;
	for (k = 0; k < n; k++) {
		uint32_t cs, us;

		if (q + 8 > end || fmt_rread(r, q, h, 8)) {
			*cut = true;
			break;
		}
		cs = fmt_get32(be, h);
		us = fmt_get32(be, h + 4);
		if (!cs || !us || us % ps || us > FMT_MAX_CHUNK ||
		    (uint64_t)us > (uint64_t)cs * FMT_MAX_RATIO + (1 << 20)) {
			if (!k)
				return false;
			/* a damaged later chunk: the iterator names it; keep the list up to here */
			*cut = true;
			q = end;
			break;
		}
		q += 8 + (uint64_t)cs;
		if (q > end) {
			*cut = true;
			break;
		}
	}
	*q_out = *cut ? end : q;
	return true;
}

/*
 * A buffer rebuilt from a BUFFER section whose option was lost: the top
 * buffer if the file has none, else "recoveredN"; its CPU ids are guesses.
 */
static struct fmt_buffer *new_recovered_buffer(struct fmt_reader *r, uint64_t pos, int *nrec)
{
	struct fmt_buffer *buf;
	bool have_top = false;
	int i;

	for (i = 0; i < r->info.nbuffers; i++)
		if (!r->info.buffers[i].name[0])
			have_top = true;
	buf = new_buffer(r);
	if (!buf)
		return NULL;
	if (have_top) {
		if (asprintf((char **)&buf->name, "recovered%d", ++*nrec) < 0)
			buf->name = NULL;
	} else {
		buf->name = strdup("");
	}
	buf->page_size = r->info.page_size;
	buf->recovered = true;
	buf->cpu_ids_guessed = true;
	buf->section_offset = pos;
	buf->cpus = calloc(FMT_MAX_CPUS, sizeof(*buf->cpus));
	if (!buf->name || !buf->cpus)
		return NULL;
	return buf;
}

/*
 * An uncompressed BUFFER section is the CPUs' pages back to back from the
 * first page boundary, with no count or sizes.  With one CPU that is the
 * whole story.  With several, each CPU's pages run forward in time, and the
 * next CPU's first page goes back to the start of the recording: split
 * where a page's time stamp drops.  (A CPU whose data starts after the
 * previous one ends would merge with it: the CPU ids are guesses.)
 */
static int recover_raw_buffer(struct fmt_reader *r, uint64_t pos, uint64_t end, int *nrec)
{
	uint64_t fs = r->info.file_size;
	uint32_t ps = r->info.page_size;
	uint64_t p = (pos + 16 + ps - 1) / ps * ps, start = p, last_ts = 0;
	int hdr_commit = kernel_long_from_header_page(r->hp, r->info.header_page.len);
	struct fmt_buffer *buf;
	bool seen = false;

	if (p >= end)
		return 0;
	if (!hdr_commit)
		hdr_commit = r->info.long_size;
	buf = new_recovered_buffer(r, pos, nrec);
	if (!buf)
		return -ENOMEM;
	for (; p + ps <= end; p += ps) {
		uint8_t h[16];
		uint64_t ts, commit;

		if (r->info.cpus == 1)
			break;	/* one CPU: no need to look */
		if (fmt_rread(r, p, h, 8 + hdr_commit))
			return -EBADMSG;
		ts = fmt_get64(r->info.big_endian, h);
		commit = hdr_commit == 8 ? fmt_get64(r->info.big_endian, h + 8)
					 : fmt_get32(r->info.big_endian, h + 8);
		if (!(commit & ((1U << 27) - 1)))
			continue;	/* an empty page says nothing about time */
		if (seen && ts < last_ts && buf->ncpus < FMT_MAX_CPUS - 1) {
			buf->cpus[buf->ncpus].cpu = buf->ncpus;
			buf->cpus[buf->ncpus].offset = start;
			buf->cpus[buf->ncpus].size = p - start;
			buf->ncpus++;
			start = p;
		}
		last_ts = ts;
		seen = true;
	}
	buf->cpus[buf->ncpus].cpu = buf->ncpus;
	buf->cpus[buf->ncpus].offset = start;
	buf->cpus[buf->ncpus].size = end - start;
	buf->cpus[buf->ncpus].truncated = end == fs;
	buf->ncpus++;
	if (r->info.cpus == buf->ncpus && (end < fs || r->info.cpus == 1))
		buf->cpu_ids_guessed = false;
	return 0;
}

/*
 * A v7 file cut inside (or after) a buffer's data loses that buffer's
 * BUFFER option, which trace-cmd and flytrap write after the data.  Walk
 * the sections from the start and rebuild a description for each buffer
 * section nobody described.  Compressed CPU data is a chunk list (u32
 * count, then {u32 csize, u32 usize, bytes} per chunk), so the chunks show
 * where each CPU's data ends.  The next CPU's list starts right there
 * (flytrap packs them) or at the next page boundary after zero padding
 * (trace-cmd aligns each CPU): try both, keep the one that parses.
 *
 * CPU ids are not stored in the section.  When the file's CPU count
 * equals the number of streams of a complete section, the ids are exact
 * (every CPU had data); otherwise they are numbered in order, a guess.
 * Uncompressed sections: see recover_raw_buffer().
 */
static int recover_buffers(struct fmt_reader *r, uint64_t pos)
{
	uint64_t fs = r->info.file_size;
	uint32_t ps = r->info.page_size;
	int nrec = 0;

	while (pos + 16 <= fs) {
		uint8_t b[16];
		uint16_t id, flags;
		uint64_t size, end, p;
		struct fmt_buffer *buf;
		int i, known = 0;

		if (fmt_rread(r, pos, b, 16))
			return -EBADMSG;
		id = fmt_get16(r->info.big_endian, b);
		flags = fmt_get16(r->info.big_endian, b + 2);
		size = fmt_get64(r->info.big_endian, b + 8);
		end = size > fs - pos - 16 ? fs : pos + 16 + size;
		for (i = 0; i < r->info.nbuffers; i++)
			if (r->info.buffers[i].section_offset == pos)
				known = 1;
		if (id == FMT_OPT_BUFFER && !known && (flags & 1)) {
			buf = new_recovered_buffer(r, pos, &nrec);
			if (!buf)
				return -ENOMEM;
			buf->compressed = true;
			p = pos + 16;
			while (p + 4 <= end && buf->ncpus < FMT_MAX_CPUS) {
				uint64_t q, a = (p + ps - 1) / ps * ps;
				bool cut;

				if (!chunk_list(r, p, end, ps, &q, &cut)) {
					if (a == p || !chunk_list(r, a, end, ps, &q, &cut))
						break;
					p = a;
				}
				buf->cpus[buf->ncpus].cpu = buf->ncpus;
				buf->cpus[buf->ncpus].offset = p;
				buf->cpus[buf->ncpus].size = q - p;
				buf->cpus[buf->ncpus].truncated = cut;
				buf->ncpus++;
				if (cut)
					break;
				p = q;
			}
			if (buf->ncpus && r->info.cpus == buf->ncpus && end < fs &&
			    !buf->cpus[buf->ncpus - 1].truncated)
				buf->cpu_ids_guessed = false;
		}
		if (id == FMT_OPT_BUFFER && !known && !(flags & 1)) {
			int err = recover_raw_buffer(r, pos, end, &nrec);

			if (err)
				return err;
		}
		if (size > fs - pos - 16)
			break;
		pos += 16 + size;
	}
	return 0;
}

/*
 * trace-cmd's reader walks the sections from the header to the end of the
 * file (for the STRINGS it names sections with); a section that runs past
 * the end, or a piece of a header, means the file was cut there even when
 * everything the options point at is whole (a cut in the trailing STRINGS
 * section).  The walk stops quietly at bytes that are not a section header
 * (a writer that leaves gaps): only a chain of real headers can end in a cut.
 */
static void check_section_chain(struct fmt_reader *r, uint64_t pos)
{
	uint64_t fs = r->info.file_size;
	int n = 0;

	while (pos < fs && n++ < 100000) {
		uint8_t b[16];
		uint16_t id;
		uint64_t size;

		if (fs - pos < 16) {
			if (!r->info.truncated_at)
				r->info.truncated_at = fs;
			return;
		}
		if (fmt_rread(r, pos, b, 16))
			return;
		id = fmt_get16(r->info.big_endian, b);
		size = fmt_get64(r->info.big_endian, b + 8);
		if (id > 64 && (id < FMT_OPT_FT_BASE || id > FMT_OPT_FT_BASE + 0xff))
			return;
		if (fmt_get16(r->info.big_endian, b + 2) & ~1)
			return;	/* flags other than "compressed": not a header */
		if (size > fs - pos - 16) {
			if (!r->info.truncated_at)
				r->info.truncated_at = fs;
			return;
		}
		pos += 16 + size;
	}
}

/* v6 flyrecord table: cpus × {u64 offset, u64 size} (+ clock block) */
static int parse_v6_flyrecord(struct fmt_reader *r, struct cur *c, struct fmt_buffer *b, int ncpus)
{
	int i, err;

	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	for (i = 0; i < ncpus; i++) {
		uint64_t off, size;

		if ((err = cur_u64(c, &off)) || (err = cur_u64(c, &size)))
			return err;
		if (!size)
			continue;
		b->cpus[b->ncpus].cpu = i;
		b->cpus[b->ncpus].offset = off;
		b->cpus[b->ncpus].size = size;
		clamp_cpu(r, &b->cpus[b->ncpus]);
		b->ncpus++;
	}
	if (r->have_traceclock) {
		uint64_t len;
		char *text;

		/* trace-cmd reads this block only when option 4 exists */
		if ((err = cur_u64(c, &len)))
			return err;
		if (len) {
			if ((err = cur_blob(c, len, &text)))
				return err;
			err = set_clock_from_text(r, text, len);
			if (!b->clock && r->clock)
				b->clock = strdup(r->clock);
			free(text);
			if (err)
				return err;
		}
	}
	return 0;
}

static int parse_v6(struct fmt_reader *r, uint64_t pos)
{
	struct cur c = { .r = r, .pos = pos, .end = r->info.file_size };
	uint32_t ncpus;
	char marker[10];
	int err, i;

	if ((err = parse_header_info(&c)) || (err = parse_ftrace_formats(&c)) ||
	    (err = parse_event_formats(&c)) ||
	    (err = parse_sized_text(&c, 4, &r->kallsyms, &r->info.kallsyms)) ||
	    (err = parse_sized_text(&c, 4, &r->printk, &r->info.printk)) ||
	    (err = parse_sized_text(&c, 8, &r->cmdlines, &r->info.cmdlines)) ||
	    (err = cur_u32(&c, &ncpus)))
		return err;
	if (ncpus > FMT_MAX_CPUS)
		return fmt_rerr(r, -EBADMSG, c.pos - 4, "CPU count %u is out of range", ncpus);
	r->info.cpus = ncpus;
	for (;;) {
		uint64_t next;

		if ((err = cur_read(&c, marker, 10)))
			return err;
		if (memcmp(marker, "options  ", 10))
			break;
		if ((err = parse_options(r, &c, &next, false)))
			return err;
	}
	/* a CPUCOUNT option overrides part 8, as in trace-cmd */
	ncpus = r->info.cpus;
	if (!memcmp(marker, "latency", 7))
		return parse_v6_latency(r, c.pos);
	if (memcmp(marker, "flyrecord", 9))
		return fmt_rerr(r, -EBADMSG, c.pos - 10, "expected 'flyrecord' or 'latency' marker");
	{
		struct fmt_buffer *top = new_buffer(r);

		if (!top)
			return -ENOMEM;
		top->name = strdup("");
		top->page_size = r->info.page_size;
		top->section_offset = c.pos - 10;
		if (!top->name)
			return -ENOMEM;
		if ((err = parse_v6_flyrecord(r, &c, top, ncpus)))
			return err;
	}
	/* instances: BUFFER options {u64 offset, name} pointing at their own flyrecord */
	for (i = 0; i < r->info.noptions; i++) {
		struct fmt_option *o = &r->options[i];
		struct fmt_buffer *b;
		struct cur bc;
		char m[10];

		if (o->id != FMT_OPT_BUFFER)
			continue;
		if (o->size < 9)
			return fmt_rerr(r, -EBADMSG, o->file_offset, "BUFFER option is too short");
		b = new_buffer(r);
		if (!b)
			return -ENOMEM;
		b->name = strndup((const char *)o->data + 8, o->size - 8);
		if (!b->name)
			return -ENOMEM;
		b->page_size = r->info.page_size;
		b->section_offset = fmt_get64(r->info.big_endian, o->data);
		bc = (struct cur){ .r = r, .pos = b->section_offset, .end = r->info.file_size };
		if ((err = cur_read(&bc, m, 10)))
			return err;
		if (memcmp(m, "flyrecord", 9))
			return fmt_rerr(r, -EBADMSG, b->section_offset,
					"buffer '%s' does not point at a flyrecord block", b->name);
		if ((err = parse_v6_flyrecord(r, &bc, b, ncpus)))
			return err;
	}
	return 0;
}

/* ---- libtraceevent set-up, with crash-prone formats kept out ------------ */

static int kernel_long_from_header_page(const char *hp, size_t len)
{
	const char *p = hp ? memmem(hp, len, " commit;", 8) : NULL;
	const char *s;
	int size;

	if (!p)
		return 0;
	s = strstr(p, "size:");
	if (!s || sscanf(s, "size:%d", &size) != 1)
		return 0;
	return size == 4 || size == 8 ? size : 0;
}

static struct tep_handle *new_tep(struct fmt_reader *r)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, r->info.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, r->info.long_size);
	tep_set_page_size(tep, r->info.page_size);
	if (r->info.cpus)
		tep_set_cpus(tep, r->info.cpus);
	return tep;
}

/* Parse one format and print a zeroed record of it: what crashes libtraceevent. */
static void probe_format(struct tep_handle *tep, struct fmt_format_text *f)
{
	struct tep_event *ev = NULL;
	static char zero[4096];
	struct tep_record rec = { .data = zero, .size = sizeof(zero), .cpu = 0 };
	struct trace_seq s;
	/*
	 * Test hook: make the screening child die on one format, the way a
	 * libtraceevent bug would, so tests can check the isolation.
	 */
	const char *crash = getenv("FLYTRAP_TEST_CRASH_FORMAT");

	if (crash && *crash) {
		char pat[256];

		snprintf(pat, sizeof(pat), "name: %s\n", crash);
		if (memmem(f->text, f->len, pat, strlen(pat)))
			raise(SIGSEGV);
	}
	if (tep_parse_format(tep, &ev, f->text, f->len, f->system) || !ev)
		return;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_destroy(&s);
}

/*
 * Debian's libtraceevent 1.7.1 crashes on some malformed format text.  We
 * parse the formats in idx[] once in a forked child (a copy of our tep,
 * with the plugins and the events parsed so far) that reports its progress
 * through a pipe; a format during which the child died is marked bad, and
 * the child is restarted after it.  The parent then parses only good ones.
 * One fork for a clean batch.
 */
/*
 * A child silent this long has stopped: a format takes microseconds, and a
 * child can inherit a lock some other thread held at the fork (seen once,
 * under AddressSanitizer, with redact's compression workers running).
 */
#define SCREEN_SILENCE_MS 10000

static int screen_formats(struct fmt_reader *r, const int *idx, int n)
{
	int start = 0, stalls = 0, stalled_at = -2, silence = SCREEN_SILENCE_MS, stall_k = 0;
	/*
	 * test hooks: FLYTRAP_TEST_STALL_FORMAT=NAME[,K] stops the child before
	 * that format its first K times (1), the way an inherited lock would;
	 * FLYTRAP_TEST_SCREEN_SILENCE_MS sets the wait
	 */
	const char *ts = getenv("FLYTRAP_TEST_STALL_FORMAT"), *tm = getenv("FLYTRAP_TEST_SCREEN_SILENCE_MS");
	char stall_pat[256] = "";

	if (ts && *ts) {
		const char *comma = strchr(ts, ',');

		stall_k = comma ? atoi(comma + 1) : 1;
		snprintf(stall_pat, sizeof(stall_pat), "name: %.*s\n",
			 (int)(comma ? (size_t)(comma - ts) : strlen(ts)), ts);
	}
	if (tm && atoi(tm) > 0)
		silence = atoi(tm);

	while (start < n) {
		int pfd[2], status;
		pid_t pid;
		int last_started = -1, finished = 0;
		int msg[2];
		bool stalled = false;

		if (pipe(pfd))
			return -errno;
		fflush(NULL);
		if (r->fork_hook)
			r->fork_hook(r->fork_arg, true);
		pid = fork();
		if (pid != 0 && r->fork_hook)
			r->fork_hook(r->fork_arg, false);
		if (pid < 0) {
			close(pfd[0]);
			close(pfd[1]);
			return -errno;
		}
		if (pid == 0) {
			int i;

			close(pfd[0]);
			/*
			 * A crash here is expected now and then: die quietly, with no
			 * core file, whatever handlers the program (or a sanitizer or
			 * fuzzer runtime) installed.
			 */
			setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
			{
				static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP };
				size_t k;

				for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
					signal(sigs[k], SIG_DFL);
			}
			/* quiet: libtraceevent's warnings for bad formats are the parent's to give */
			tep_set_loglevel(TEP_LOG_NONE);
			for (i = start; i < n; i++) {
				msg[0] = i;
				msg[1] = 0;
				if (write(pfd[1], msg, sizeof(msg)) != sizeof(msg))
					_exit(4);
				if (stalls < stall_k &&
				    memmem(r->formats[idx[i]].text, r->formats[idx[i]].len, stall_pat,
					   strlen(stall_pat)))
					pause();
				probe_format(r->tep, &r->formats[idx[i]]);
				msg[1] = 1;
				if (write(pfd[1], msg, sizeof(msg)) != sizeof(msg))
					_exit(4);
			}
			_exit(0);
		}
		close(pfd[1]);
		for (;;) {
			struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
			int pr = poll(&pf, 1, silence);
			ssize_t got;

			if (pr < 0 && errno == EINTR)
				continue;
			if (pr == 0) {
				stalled = true;
				kill(pid, SIGKILL);
				break;
			}
			got = read(pfd[0], msg, sizeof(msg));
			if (got < 0 && errno == EINTR)
				continue;
			if (got != sizeof(msg))
				break;
			if (msg[1] == 0)
				last_started = msg[0];
			else
				finished = msg[0] + 1;
		}
		close(pfd[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!stalled && WIFEXITED(status) && WEXITSTATUS(status) == 0 && finished == n)
			break;
		/*
		 * A child that stopped answering goes again from where it was; a
		 * format it stopped in twice is bad, as one it crashed in
		 */
		if (stalled && ++stalls > 5)
			return fmt_rerr(r, -EIO, 0, "cannot check event formats (helper process stopped)");
		if (stalled && !(last_started >= start && last_started >= finished &&
				 last_started == stalled_at)) {
			stalled_at = last_started >= finished ? last_started : -2;
			if (finished > start)
				start = finished;
			continue;
		}
		if (last_started >= start && last_started >= finished) {
			r->formats[idx[last_started]].bad = true;
			start = last_started + 1;
		} else if (finished > start) {
			start = finished;
		} else {
			/* the child died before reporting anything: give up screening */
			return fmt_rerr(r, -EIO, 0, "cannot check event formats (helper process failed)");
		}
	}
	return 0;
}

/* "name: X" and "ID: N" from a format text, without parsing it */
static void scan_format(struct fmt_format_text *f)
{
	const char *p = f->text, *end = f->text + f->len;

	f->id = -1;
	f->name = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l;

		if (!nl)
			nl = end;
		l = nl - p;
		if (!f->name && l > 6 && !memcmp(p, "name: ", 6))
			f->name = strndup(p + 6, l - 6);
		else if (f->id < 0 && l > 4 && !memcmp(p, "ID: ", 4)) {
			char buf[16];
			size_t k = l - 4 < sizeof(buf) - 1 ? l - 4 : sizeof(buf) - 1;
			char *e;
			long v;

			memcpy(buf, p + 4, k);
			buf[k] = 0;
			v = strtol(buf, &e, 10);
			if (e != buf && v >= 0 && v < 65536)
				f->id = (int)v;
		}
		if (f->name && f->id >= 0)
			return;
		p = nl + 1;
	}
}

/* Parse formats idx[0..n) (screened first unless trusted); no-op for ones already tried. */
static int parse_formats(struct fmt_reader *r, int *idx, int n)
{
	int i, k = 0, err;

	for (i = 0; i < n; i++)
		if (!r->formats[idx[i]].tried)
			idx[k++] = idx[i];
	if (!k)
		return 0;
	if (!(r->flags & FMT_OPEN_TRUST_FORMATS)) {
		err = screen_formats(r, idx, k);
		if (err)
			return err;
	}
	for (i = 0; i < k; i++) {
		struct fmt_format_text *f = &r->formats[idx[i]];
		struct tep_event *ev = NULL;

		f->tried = true;
		if (f->bad || tep_parse_format(r->tep, &ev, f->text, f->len, f->system) || !ev) {
			/* trace-cmd keeps going too; the event prints as unknown */
			f->bad = true;
			r->info.nbad_formats++;
			continue;
		}
		if (ev->id >= 0 && ev->id < r->by_id_len)
			r->by_id[ev->id] = ev;
	}
	return 0;
}

struct tep_event *fmt_reader_event(struct fmt_reader *r, int id)
{
	int idx;

	if (id < 0 || id >= r->by_id_len)
		return NULL;
	if (r->by_id[id] || r->fmt_by_id[id] < 0)
		return r->by_id[id];
	idx = r->fmt_by_id[id];
	r->fmt_by_id[id] = -1;	/* one try */
	if (parse_formats(r, &idx, 1))
		return NULL;
	return r->by_id[id];
}

struct tep_event *fmt_reader_find_event(struct fmt_reader *r, const char *system, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(r->tep, system, name);
	int i;

	if (ev)
		return ev;
	for (i = 0; i < r->nformats; i++) {
		struct fmt_format_text *f = &r->formats[i];

		if (!f->tried && f->name && !strcmp(f->name, name) &&
		    (!system || !strcmp(f->system, system)) && f->id >= 0)
			return fmt_reader_event(r, f->id);
	}
	return NULL;
}

int fmt_reader_load_formats(struct fmt_reader *r)
{
	int *idx = malloc((r->nformats ? r->nformats : 1) * sizeof(int));
	int i, err;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < r->nformats; i++)
		idx[i] = i;
	err = parse_formats(r, idx, r->nformats);
	for (i = 0; i < r->by_id_len; i++)
		r->fmt_by_id[i] = -1;
	free(idx);
	return err;
}

/*
 * The lines of a printk format text that libtraceevent can take: it reads
 * each "ADDR : \"FORMAT\"" line with no bounds of its own (up to two bytes
 * before a short format and one past a line without ':'; a heap overflow
 * on a damaged file).  So a line is kept only with an address before its
 * first ':', a byte after it, and, once the leading quote is off, a
 * format of at least 3 bytes; the others carry nothing usable.  NULL on
 * no memory.
 */
static char *printk_lines_safe(const char *text)
{
	size_t len = strlen(text), o = 0;
	char *out = malloc(len + 1);
	const char *l = text;

	if (!out)
		return NULL;
	while (*l) {
		const char *end = strchr(l, '\n'), *colon, *f;
		size_t ll;

		if (!end)
			end = l + strlen(l);
		ll = (size_t)(end - l);
		colon = memchr(l, ':', ll);
		if (colon && colon > l && colon + 1 < end) {
			f = colon + 2;			/* libtraceevent skips one byte after ':' */
			if (f < end && *f == '"')
				f++;
			if (f <= end && end - f >= 3) {
				memcpy(out + o, l, ll);
				o += ll;
				out[o++] = '\n';
			}
		}
		l = *end ? end + 1 : end;
	}
	out[o] = 0;
	return out;
}

static int setup_tep(struct fmt_reader *r)
{
	int i;

	r->tep = new_tep(r);
	if (!r->tep)
		return -ENOMEM;
	if (r->hp && r->info.header_page.len)
		tep_parse_header_page(r->tep, r->hp, r->info.header_page.len, r->info.kernel_long);
	else
		r->old_format = true;
#ifndef FT_STATIC
	/* a static build has none: report/listing/fastprint.c formats their events */
	if (!(r->flags & FMT_OPEN_NO_PLUGINS))
		r->plugins = tep_load_plugins(r->tep);
#endif
	/* parsed on the first lookup: most commands never name a kernel address */
	if (r->kallsyms_pending || (r->kallsyms && r->info.kallsyms.len)) {
		r->ksyms = fmt_ksyms_new_lazy(load_kallsyms, r);
		if (!r->ksyms || tep_set_function_resolver(r->tep, fmt_ksyms_resolve, r->ksyms))
			return -ENOMEM;
	}
	if (r->printk && r->info.printk.len) {
		char *clean = printk_lines_safe(r->printk);

		if (clean)
			tep_parse_printk_formats(r->tep, clean);
		free(clean);
	}
	if (r->cmdlines && r->info.cmdlines.len)
		tep_parse_saved_cmdlines(r->tep, r->cmdlines);

	/* event IDs are u16 in the payload */
	r->by_id_len = 65536;
	r->by_id = calloc(r->by_id_len, sizeof(*r->by_id));
	r->fmt_by_id = malloc(r->by_id_len * sizeof(*r->fmt_by_id));
	if (!r->by_id || !r->fmt_by_id)
		return -ENOMEM;
	memset(r->fmt_by_id, 0xff, r->by_id_len * sizeof(*r->fmt_by_id));
	for (i = 0; i < r->nformats; i++) {
		scan_format(&r->formats[i]);
		if (r->formats[i].id >= 0)
			r->fmt_by_id[r->formats[i].id] = i;
	}
	/*
	 * Formats are parsed when first needed (an event of that ID, a lookup
	 * by name): a trace-cmd file carries ~2000 of them and uses a handful.
	 */
	if (!(r->flags & FMT_OPEN_LAZY_FORMATS))
		return fmt_reader_load_formats(r);
	return 0;
}

/* ---- open / close ----------------------------------------------------------- */

static int parse_file(struct fmt_reader *r)
{
	struct cur c = { .r = r, .pos = 0, .end = r->info.file_size };
	char head[10], *ver = NULL, *end;
	uint8_t b[6];
	long v;
	int err;

	if ((err = cur_read(&c, head, 10)))
		return fmt_rerr(r, -EBADMSG, 0, "not a trace.dat file: too short");
	if (memcmp(head, magic, 10))
		return fmt_rerr(r, -EBADMSG, 0, "not a trace.dat file: bad magic");
	if ((err = cur_str(&c, 16, &ver)))
		return err;
	v = strtol(ver, &end, 10);
	if (end == ver || *end || v < 1 || v > 7) {
		err = fmt_rerr(r, -EOPNOTSUPP, 10, "unsupported file version '%s'", ver);
		free(ver);
		return err;
	}
	free(ver);
	r->info.version = (int)v;
	if ((err = cur_read(&c, b, 6)))
		return err;
	if (b[0] > 1)
		return fmt_rerr(r, -EBADMSG, c.pos - 6, "bad endianness byte %u", b[0]);
	r->info.big_endian = b[0];
	r->info.long_size = b[1];
	if (b[1] != 4 && b[1] != 8)
		return fmt_rerr(r, -EBADMSG, c.pos - 5, "bad long size %u", b[1]);
	r->info.page_size = fmt_get32(r->info.big_endian, b + 2);
	if (r->info.page_size < 16 || r->info.page_size > FMT_MAX_PAGE)
		return fmt_rerr(r, -EBADMSG, c.pos - 4, "bad page size %u", r->info.page_size);
	r->info.clock_in_usecs = true;

	if (r->info.version >= 7) {
		uint64_t opt;

		if ((err = cur_str(&c, 64, &r->compression)) ||
		    (err = cur_str(&c, 64, &r->compression_version)) || (err = cur_u64(&c, &opt)))
			return err;
		if (!fmt_decompress_supported(r->compression))
			return fmt_rerr(r, -EOPNOTSUPP, c.pos, "unsupported compression '%s'", r->compression);
		r->info.compression = r->compression;
		r->info.compression_version = r->compression_version;
		err = parse_v7(r, opt);
		if (err)
			return err;
		if (!r->info.truncated_at)
			check_section_chain(r, c.pos);
		if (r->info.truncated_at) {
			err = recover_buffers(r, c.pos);
			if (err)
				return err;
		}
		if (!r->hp)
			return fmt_rerr(r, -EBADMSG, opt, "no HEADER_INFO section");
	} else {
		r->compression = strdup("none");
		r->compression_version = strdup("");
		if (!r->compression || !r->compression_version)
			return -ENOMEM;
		r->info.compression = r->compression;
		r->info.compression_version = r->compression_version;
		err = parse_v6(r, c.pos);
		if (err)
			return err;
	}
	/* the top buffer first, always present (possibly empty) */
	{
		int i, top = -1;

		for (i = 0; i < r->info.nbuffers; i++)
			if (!r->info.buffers[i].name[0])
				top = i;
		if (top < 0) {
			struct fmt_buffer *nb = new_buffer(r);

			if (!nb || !(nb->name = strdup("")))
				return -ENOMEM;
			nb->page_size = r->info.page_size;
			top = r->info.nbuffers - 1;
		}
		if (top > 0) {
			struct fmt_buffer t = r->info.buffers[top];

			memmove(&r->info.buffers[1], &r->info.buffers[0], top * sizeof(t));
			r->info.buffers[0] = t;
		}
		/* trace-cmd reads the top buffer with the header's page size */
		r->info.buffers[0].page_size = r->info.page_size;
	}
	r->info.kernel_long = kernel_long_from_header_page(r->hp, r->info.header_page.len);
	if (!r->info.kernel_long)
		r->info.kernel_long = r->info.long_size;
	if (!r->info.clock)
		r->info.clock = r->info.buffers[0].clock ? r->info.buffers[0].clock : "";
	/*
	 * trace-cmd leaves microseconds on for any clock when the file has a
	 * TSC2NSEC multiplier (the counter is converted to ns), wherever the
	 * option sits relative to the clock (checked with both orders, v6 and v7).
	 */
	if (r->info.has_tsc2nsec && r->info.tsc_mult)
		r->info.clock_in_usecs = true;
	if (!r->info.uname)
		r->info.uname = "";
	if (!r->info.tracecmd_version)
		r->info.tracecmd_version = "";
	return setup_tep(r);
}

int fmt_reader_open(const char *path, unsigned flags, struct fmt_reader **out, char **out_err)
{
	struct fmt_reader *r = calloc(1, sizeof(*r));
	struct stat st;
	int err;

	*out = NULL;
	if (out_err)
		*out_err = NULL;
	if (!r)
		return -ENOMEM;
	r->flags = flags;
	/*
	 * O_NONBLOCK: opening a FIFO with no writer would otherwise wait
	 * forever; a non-regular file is refused below anyway, and for a
	 * regular file the flag changes nothing (cleared all the same).
	 */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		err = -errno;
		if (out_err && asprintf(out_err, "cannot open '%s': %s", path, strerror(errno)) < 0)
			*out_err = NULL;
		free(r);
		return err;
	}
	r->path = strdup(path);
	if (fstat(r->fd, &st)) {
		err = -errno;
		snprintf(r->err, sizeof(r->err), "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		/* no byte offset: the message is about the path, not its contents */
		err = -EINVAL;
		snprintf(r->err, sizeof(r->err), "not a regular file (%s); give a trace.dat file",
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device" :
			 S_ISSOCK(st.st_mode) ? "a socket" : "a special file");
		goto fail;
	}
	{
		int fl = fcntl(r->fd, F_GETFL);

		if (fl >= 0)
			fcntl(r->fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	r->info.file_size = st.st_size;
	err = parse_file(r);
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	if (out_err) {
		if (!r->err[0])
			snprintf(r->err, sizeof(r->err), "%s", strerror(-err));
		if (asprintf(out_err, "'%s': %s", path, r->err) < 0)
			*out_err = NULL;
	}
	fmt_reader_close(r);
	return err;
}

void fmt_reader_close(struct fmt_reader *r)
{
	int i;

	if (!r)
		return;
	fmt_meta_free_reader(r);
	if (r->tep) {
#ifndef FT_STATIC
		if (r->plugins)
			tep_unload_plugins(r->plugins, r->tep);
#endif
		tep_free(r->tep);
	}
	fmt_ksyms_free(r->ksyms);
	for (i = 0; i < r->info.nbuffers; i++) {
		free((char *)r->info.buffers[i].name);
		free((char *)r->info.buffers[i].clock);
		free(r->info.buffers[i].cpus);
	}
	free(r->info.buffers);
	free_time_shift(&r->info.time_shift);
	for (i = 0; i < r->info.nguests; i++) {
		free((char *)r->guests[i].name);
		free(r->guests[i].vcpu_pid);
	}
	free(r->guests);
	for (i = 0; i < r->info.noptions; i++)
		free((void *)r->options[i].data);
	free(r->options);
	for (i = 0; i < r->nformats; i++) {
		free(r->formats[i].system);
		free(r->formats[i].name);
		free(r->formats[i].text);
	}
	free(r->fmt_by_id);
	free(r->formats);
	free(r->by_id);
	free(r->compression);
	free(r->compression_version);
	free(r->clock);
	free(r->uname);
	free(r->version);
	free(r->hp);
	free(r->he);
	free(r->kallsyms);
	free(r->printk);
	free(r->cmdlines);
	free(r->procmaps);
	fmt_sums_free(r->sums);
	fmt_tindex_free(r->tindex);
	fmt_facts_free(r->facts);
	fmt_state_free(r->state);
	free(r->path);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

const char *fmt_reader_error(const struct fmt_reader *r)
{
	return r ? r->err : "";
}

uint64_t fmt_reader_error_offset(const struct fmt_reader *r)
{
	return r ? r->err_off : 0;
}

const struct fmt_info *fmt_reader_info(const struct fmt_reader *r)
{
	return &r->info;
}

struct tep_handle *fmt_reader_tep(struct fmt_reader *r)
{
	return r->tep;
}

const struct fmt_blob *fmt_reader_kallsyms(struct fmt_reader *r)
{
	if (r->ksyms) {
		fmt_ksyms_text(r->ksyms);
	} else if (r->kallsyms_pending) {
		const char *t;
		size_t n;

		load_kallsyms(r, &t, &n);
	}
	return &r->info.kallsyms;
}

bool fmt_reader_has_kallsyms(const struct fmt_reader *r)
{
	return r->kallsyms_sec || r->info.kallsyms.len;
}

int fmt_reader_tep_funcs(struct fmt_reader *r)
{
	fmt_reader_kallsyms(r);
	if (!r->tep || !r->ksyms)
		return 0;
	tep_reset_function_resolver(r->tep);
	fmt_ksyms_free(r->ksyms);
	r->ksyms = NULL;
	/* a line that does not parse ends the table, as it did when loaded at open */
	tep_parse_kallsyms(r->tep, r->kallsyms);
	return 0;
}

/*
 * libtraceevent's own table (after fmt_reader_tep_funcs(), or none) is
 * sorted on its first lookup: one lookup at a time, from any thread.
 */
static pthread_mutex_t tep_funcs_lock = PTHREAD_MUTEX_INITIALIZER;

const char *fmt_reader_ksym(struct fmt_reader *r, uint64_t addr, uint64_t *start)
{
	if (!r->ksyms) {
		const char *name;

		pthread_mutex_lock(&tep_funcs_lock);
		name = r->tep ? tep_find_function(r->tep, addr) : NULL;
		if (name && start)
			*start = tep_find_function_address(r->tep, addr);
		pthread_mutex_unlock(&tep_funcs_lock);
		return name;
	}
	return fmt_ksyms_find(r->ksyms, addr, start, NULL);
}

uint64_t fmt_reader_ksym_parses(const struct fmt_reader *r)
{
	return fmt_ksyms_parses(r->ksyms);
}

const struct fmt_option *fmt_reader_option(const struct fmt_reader *r, uint16_t id, int n)
{
	int i;

	for (i = 0; i < r->info.noptions; i++)
		if (r->options[i].id == id && n-- == 0)
			return &r->options[i];
	return NULL;
}

int fmt_reader_formats(struct fmt_reader *r,
		       int (*cb)(void *arg, const char *system, const char *text, size_t len),
		       void *arg)
{
	int i, ret;

	for (i = 0; i < r->nformats; i++) {
		ret = cb(arg, r->formats[i].system, r->formats[i].text, r->formats[i].len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * trace-cmd's mul_u64_u32_shr() with its argument types: the multiplier is
 * held in an int (so one above 2^31 is sign-extended), and the high half is
 * shifted left by 32 - shift (x86 masks shift counts to 6 bits).
 */
static uint64_t tsc_mul_shr(uint64_t a, uint32_t mult, uint32_t shift)
{
	uint64_t mul = (uint64_t)(int64_t)(int32_t)mult;
	uint64_t al = (uint32_t)a, ah = a >> 32, ret;

	ret = (al * mul) >> (shift & 63);
	if (ah)
		ret += (ah * mul) << ((32 - shift) & 63);
	return ret;
}

uint64_t fmt_reader_adjust_ts(const struct fmt_reader *r, uint64_t ts)
{
	const struct fmt_info *in = &r->info;

	if (in->has_tsc2nsec && in->tsc_mult)
		ts = tsc_mul_shr(ts, in->tsc_mult, in->tsc_shift);
	return ts + (uint64_t)in->date_offset_ns + (uint64_t)in->ts_offset_ns;
}

/*
 * trace-cmd's timestamp_correction_calc(), in wrapping arithmetic where its
 * signed overflows would wrap (and without its one trapping division).
 */
static uint64_t tsync_calc(uint64_t ts, uint32_t flags, const struct fmt_tsync_sample *min,
			   const struct fmt_tsync_sample *max)
{
	int64_t tscor;

	if (flags & 1) {	/* interpolate */
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t num = (int64_t)((ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));

		num = (int64_t)((uint64_t)num + (uint64_t)(delta / 2));
		if (delta == -1)
			num = (int64_t)(0 - (uint64_t)num);
		else if (delta)
			num /= delta;
		tscor = (int64_t)((uint64_t)min->offset + (uint64_t)num);
	} else {
		tscor = min->offset;
	}
	ts = (ts * (uint64_t)min->scaling) >> (min->fraction & 63);
	return ts + (uint64_t)tscor;
}

/* trace-cmd's timestamp_host_sync(): the samples around ts on this CPU */
static uint64_t tsync_ts(const struct fmt_time_shift *t, uint64_t ts, int cpu)
{
	const struct fmt_tsync_sample *s;
	int n, min, max, mid;

	if (cpu < 0 || cpu >= t->ncpus)
		return ts;
	s = t->cpus[cpu].samples;
	n = t->cpus[cpu].nsamples;
	if (n == 0)
		return ts;	/* trace-cmd reads past its array here; leave the time alone */
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (n == 2 || ts <= (uint64_t)s[0].time)
		return tsync_calc(ts, t->flags, &s[0], &s[1]);
	if (ts >= (uint64_t)s[n - 1].time)
		return tsync_calc(ts, t->flags, &s[n - 2], &s[n - 1]);
	min = 0;
	max = n - 1;
	mid = (min + max) / 2;
	while (min <= max) {
		if (ts < (uint64_t)s[mid].time)
			max = mid - 1;
		else if (ts > (uint64_t)s[mid].time)
			min = mid + 1;
		else
			break;
		mid = (min + max) / 2;
	}
	return tsync_calc(ts, t->flags, &s[mid], &s[mid + 1]);
}

uint64_t fmt_reader_adjust_ts_cpu(const struct fmt_reader *r, uint64_t ts, int buffer, int cpu)
{
	/* trace-cmd's instance handles start with no host/guest state */
	if (buffer == 0 && r->info.time_shift.present)
		ts = tsync_ts(&r->info.time_shift, ts, cpu);
	return fmt_reader_adjust_ts(r, ts);
}

/* ---- fields ------------------------------------------------------------------ */

int fmt_field_resolve(const struct tep_event *event, const char *name, struct fmt_field *f)
{
	struct tep_format_field *tf;

	memset(f, 0, sizeof(*f));
	f->offset = -1;
	if (!event)
		return -ENOENT;
	tf = tep_find_any_field((struct tep_event *)event, name);
	if (!tf)
		return -ENOENT;
	f->offset = tf->offset;
	f->size = tf->size;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->is_dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->is_relative = tf->flags & TEP_FIELD_IS_RELATIVE;
	f->big_endian = tep_is_file_bigendian(event->tep);
	return 0;
}

const void *fmt_field_ptr(const struct fmt_field *f, const void *data, int size, int *len)
{
	if (f->offset < 0 || f->offset + f->size > size)
		return NULL;
	if (f->is_dynamic) {
		uint32_t v = (uint32_t)fmt_field_u64(&(struct fmt_field){ .offset = f->offset,
					.size = 4, .big_endian = f->big_endian }, data, size);
		uint32_t off = v & 0xffff, l = v >> 16;

		/* __rel_loc: relative to the end of the field */
		if (f->is_relative)
			off += f->offset + f->size;
		if (off > (uint32_t)size || l > (uint32_t)size - off)
			return NULL;
		*len = l;
		return (const uint8_t *)data + off;
	}
	*len = f->size;
	return (const uint8_t *)data + f->offset;
}
