// SPDX-License-Identifier: GPL-2.0-only
/*
 * format/bpfobj.c: the options record --bpf-object writes (the objects a
 * file was recorded with, their BTF, and their maps' snapshots), checked
 * before anyone reads them: they come from files of others.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* BTF as the kernel defines it (include/uapi/linux/btf.h), spelled out: no kernel headers here. */
#define BTF_MAGIC_LE 0xeb9f
#define BTF_HDR_MIN 24
enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64, K_MAX = K_ENUM64
};

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Bytes after a type's 12-byte header that its kind and vlen take. */
static int type_extra(uint32_t kind, uint32_t vlen, uint64_t *extra)
{
	switch (kind) {
	case K_INT:
	case K_VAR:
	case K_DECL_TAG:
		*extra = 4;
		return 0;
	case K_ARRAY:
		*extra = 12;
		return 0;
	case K_STRUCT:
	case K_UNION:
	case K_DATASEC:
	case K_ENUM64:
		*extra = (uint64_t)vlen * 12;
		return 0;
	case K_ENUM:
	case K_FUNC_PROTO:
		*extra = (uint64_t)vlen * 8;
		return 0;
	case K_PTR:
	case K_FWD:
	case K_TYPEDEF:
	case K_VOLATILE:
	case K_CONST:
	case K_RESTRICT:
	case K_FUNC:
	case K_FLOAT:
	case K_TYPE_TAG:
		*extra = 0;
		return 0;
	}
	return -EBADMSG;
}

/* Check a raw BTF blob: header, sections inside it, every type in bounds, names in strings. */
static int check_btf(const uint8_t *b, uint32_t len, uint32_t *ntypes, const char **why)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len, n = 0;
	uint16_t magic;
	bool swap;
	uint64_t pos, end;

	*why = "BTF header truncated";
	if (len < BTF_HDR_MIN)
		return -EBADMSG;
	memcpy(&magic, b, 2);
	if (magic != BTF_MAGIC_LE && magic != __builtin_bswap16(BTF_MAGIC_LE)) {
		*why = "BTF magic wrong";
		return -EBADMSG;
	}
	swap = magic != BTF_MAGIC_LE;
	hdr_len = rd32(b + 4, swap);
	type_off = rd32(b + 8, swap);
	type_len = rd32(b + 12, swap);
	str_off = rd32(b + 16, swap);
	str_len = rd32(b + 20, swap);
	*why = "BTF version or header length wrong";
	if (b[2] != 1 || hdr_len < BTF_HDR_MIN || hdr_len > len)
		return -EBADMSG;
	*why = "BTF sections outside the data";
	if ((uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len || type_len % 4)
		return -EBADMSG;
	*why = "BTF strings not terminated";
	if (str_len && (b[hdr_len + str_off] || b[hdr_len + str_off + str_len - 1]))
		return -EBADMSG;
	pos = (uint64_t)hdr_len + type_off;
	end = pos + type_len;
	while (pos < end) {
		uint32_t name_off, info, kind, vlen;
		uint64_t extra;

		*why = "BTF type truncated";
		if (end - pos < 12)
			return -EBADMSG;
		name_off = rd32(b + pos, swap);
		info = rd32(b + pos + 4, swap);
		kind = (info >> 24) & 0x1f;
		vlen = info & 0xffff;
		*why = "BTF type of an unknown kind";
		if (kind == 0 || kind > K_MAX || type_extra(kind, vlen, &extra))
			return -EBADMSG;
		*why = "BTF type name outside the strings";
		if (name_off >= str_len && name_off)
			return -EBADMSG;
		*why = "BTF type truncated";
		if (extra > end - pos - 12)
			return -EBADMSG;
		pos += 12 + extra;
		n++;
	}
	*ntypes = n;
	*why = NULL;
	return 0;
}

/*
 * A JSON value (RFC 8259, no white space: the recorder writes none) from
 * *p; advances *p past it.  Depth bounded: files come from others.
 */
static bool json_value(const char **p, const char *end, int depth);

static bool json_string(const char **p, const char *end)
{
	const char *q = *p + 1;

	while (q < end && *q != '"') {
		if ((unsigned char)*q < 0x20)
			return false;
		if (*q == '\\') {
			if (++q >= end)
				return false;
			if (*q == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (q + i >= end || !strchr("0123456789abcdefABCDEF", q[i]) || !q[i])
						return false;
				q += 4;
			} else if (!strchr("\"\\/bfnrt", *q) || !*q) {
				return false;
			}
		}
		q++;
	}
	if (q >= end)
		return false;
	*p = q + 1;
	return true;
}

static bool json_number(const char **p, const char *end)
{
	const char *q = *p;
	bool digits = false;

	if (q < end && *q == '-')
		q++;
	while (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
			   *q == '+' || *q == '-')) {
		digits |= *q >= '0' && *q <= '9';
		q++;
	}
	*p = q;
	return digits;
}

static bool json_word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

static bool json_value(const char **p, const char *end, int depth)
{
	char close;

	if (*p >= end || depth > 64)
		return false;
	switch (**p) {
	case '"':
		return json_string(p, end);
	case 't':
		return json_word(p, end, "true");
	case 'f':
		return json_word(p, end, "false");
	case 'n':
		return json_word(p, end, "null");
	case '[':
	case '{':
		close = **p == '[' ? ']' : '}';
		(*p)++;
		if (*p < end && **p == close) {
			(*p)++;
			return true;
		}
		for (;;) {
			if (close == '}' && (*p >= end || **p != '"' || !json_string(p, end) ||
					     *p >= end || *(*p)++ != ':'))
				return false;
			if (!json_value(p, end, depth + 1) || *p >= end)
				return false;
			if (**p == close) {
				(*p)++;
				return true;
			}
			if (*(*p)++ != ',')
				return false;
		}
	default:
		return json_number(p, end);
	}
}

bool fmt_json_valid(const char *s, size_t n)
{
	const char *p = s;

	return json_value(&p, s + n, 0) && p == s + n;
}

/* Leading bytes of p[0..n) that are '-' or digits (the text need not end in a NUL). */
static size_t num_len(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == '-' || (p[i] >= '0' && p[i] <= '9')))
		i++;
	return i;
}

int fmt_bpfmap_int(const char *s, size_t n, int64_t *v)
{
	char buf[32], *e;
	const char *p = s;
	size_t l;

	/* a per-CPU integer: {"sum":N,"cpus":[...]} */
	if (n > 7 && !memcmp(s, "{\"sum\":", 7)) {
		p = s + 7;
		n -= 7;
		l = num_len(p, n);
		if (l == n || p[l] != ',')
			return 0;
		n = l;
	}
	if (!n || n >= sizeof(buf) || num_len(p, n) < n)
		return 0;
	memcpy(buf, p, n);
	buf[n] = 0;
	errno = 0;
	if (buf[0] == '-') {
		long long x = strtoll(buf, &e, 10);

		if (errno || *e)
			return 0;
		*v = x;
	} else {
		unsigned long long x = strtoull(buf, &e, 10);

		if (errno || *e)
			return 0;
		*v = (int64_t)x;	/* u64 above INT64_MAX wrap, as SQLite's integers do */
	}
	return 1;
}

static bool has_nul(const char *p, size_t n)
{
	return memchr(p, 0, n) != NULL;
}

int fmt_bpfobj_parse(const void *data, size_t len, bool swap, struct fmt_bpfobj *o,
		     const char **why)
{
	const uint8_t *p = data;
	struct fmt_bpfobj_hdr h;
	const char *w = "object option shorter than its header";
	int ret = -EBADMSG;

	memset(o, 0, sizeof(*o));
	if (len < sizeof(h))
		goto out;
	memcpy(&h, p, sizeof(h));
	w = "object option magic wrong";
	if (memcmp(h.magic, FMT_BPFOBJ_MAGIC, sizeof(h.magic)))
		goto out;
	if (swap) {
		h.text_len = __builtin_bswap32(h.text_len);
		h.btf_len = __builtin_bswap32(h.btf_len);
	}
	w = "object option sizes exceed the option";
	if ((uint64_t)h.text_len + h.btf_len > len - sizeof(h))
		goto out;
	o->text = (const char *)p + sizeof(h);
	o->text_len = h.text_len;
	w = "object option text holds a NUL";
	if (has_nul(o->text, o->text_len))
		goto out;
	o->btf = p + sizeof(h) + h.text_len;
	o->btf_len = h.btf_len;
	ret = h.btf_len ? check_btf(o->btf, h.btf_len, &o->btf_types, &w) : 0;
out:
	if (why)
		*why = ret ? w : NULL;
	return ret;
}

const char *fmt_bpfobj_get(const struct fmt_bpfobj *o, const char *key, size_t from, size_t *vlen,
			   size_t *next)
{
	size_t klen = strlen(key), pos = from;

	while (pos < o->text_len) {
		const char *line = o->text + pos;
		const char *nl = memchr(line, '\n', o->text_len - pos);
		size_t l = nl ? (size_t)(nl - line) : o->text_len - pos;

		pos += l + (nl != NULL);
		if (l > klen && !memcmp(line, key, klen) && line[klen] == '=') {
			*vlen = l - klen - 1;
			if (next)
				*next = pos;
			return line + klen + 1;
		}
	}
	return NULL;
}

int fmt_bpfmap_parse(const void *data, size_t len, bool swap, struct fmt_bpfmap *m,
		     const char **why)
{
	const uint8_t *p = data;
	struct fmt_bpfmap_hdr h;
	const char *w = "map option shorter than its header";
	size_t pos = 0, lines = 0;
	int ret = -EBADMSG;

	memset(m, 0, sizeof(*m));
	if (len < sizeof(h))
		goto out;
	memcpy(&h, p, sizeof(h));
	w = "map option magic wrong";
	if (memcmp(h.magic, FMT_BPFMAP_MAGIC, sizeof(h.magic)))
		goto out;
	if (swap) {
		h.ts = __builtin_bswap64(h.ts);
		h.name_len = __builtin_bswap32(h.name_len);
		h.nentries = __builtin_bswap32(h.nentries);
		h.text_len = __builtin_bswap32(h.text_len);
		h.flags = __builtin_bswap32(h.flags);
	}
	w = "map option sizes exceed the option";
	if ((uint64_t)h.name_len + h.text_len > len - sizeof(h) || !h.name_len)
		goto out;
	m->ts = h.ts;
	m->name = (const char *)p + sizeof(h);
	m->name_len = h.name_len;
	m->text = m->name + h.name_len;
	m->text_len = h.text_len;
	m->nentries = h.nentries;
	m->flags = h.flags;
	w = "map option name or entries hold a NUL";
	if (has_nul(m->name, m->name_len) || has_nul(m->text, m->text_len) ||
	    memchr(m->name, '\n', m->name_len))
		goto out;
	w = "map entry without exactly one tab or line end";
	while (pos < m->text_len) {
		const char *line = m->text + pos;
		const char *nl = memchr(line, '\n', m->text_len - pos);
		const char *tab;

		if (!nl)
			goto out;
		tab = memchr(line, '\t', nl - line);
		if (!tab || tab == line || tab + 1 == nl || memchr(tab + 1, '\t', nl - tab - 1))
			goto out;
		w = "map entry that is not JSON";
		if (!fmt_json_valid(line, tab - line) || !fmt_json_valid(tab + 1, nl - tab - 1))
			goto out;
		w = "map entry without exactly one tab or line end";
		pos += nl - line + 1;
		lines++;
	}
	w = "map option entry count wrong";
	if (lines != m->nentries)
		goto out;
	ret = 0;
out:
	if (why)
		*why = ret ? w : NULL;
	return ret;
}

int fmt_bpfmap_next(const struct fmt_bpfmap *m, size_t *pos, const char **key, size_t *klen,
		    const char **val, size_t *vlen)
{
	const char *line, *nl, *tab;

	if (*pos >= m->text_len)
		return 0;
	line = m->text + *pos;
	nl = memchr(line, '\n', m->text_len - *pos);
	if (!nl)
		return 0;
	tab = memchr(line, '\t', nl - line);
	if (!tab)
		return 0;
	*key = line;
	*klen = tab - line;
	*val = tab + 1;
	*vlen = nl - tab - 1;
	*pos += nl - line + 1;
	return 1;
}
