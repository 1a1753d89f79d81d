// SPDX-License-Identifier: GPL-2.0-only
/*
 * record/bpfobj_json.c: map entries of a user's BPF object as JSON typed
 * by the object's BTF, the way `bpftool map dump` shows them, rendered
 * while recording: the readers of the file (built without libbpf) then
 * print and query text, and the BTF travels beside it for anyone who
 * wants the raw types.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "format.h"
#include "record/bpfobj_int.h"

#define MAX_DEPTH 16

void jb_put(struct jbuf *j, const char *s, size_t n)
{
	if (j->oom)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t c = j->cap ? j->cap : 256;
		char *p;

		while (c < j->len + n + 1)
			c *= 2;
		p = realloc(j->p, c);
		if (!p) {
			j->oom = true;
			return;
		}
		j->p = p;
		j->cap = c;
	}
	memcpy(j->p + j->len, s, n);
	j->len += n;
	j->p[j->len] = 0;
}

void jb_printf(struct jbuf *j, const char *fmt, ...)
{
	char tmp[128], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		jb_put(j, tmp, (size_t)n);
		return;
	}
	/*
	 * longer than the buffer (an event format's print fmt line names every
	 * field): cut, it made trace-cmd print [FAILED TO PARSE]
	 */
	big = malloc((size_t)n + 1);
	if (!big) {
		j->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	jb_put(j, big, (size_t)n);
	free(big);
}

void jb_release(struct jbuf *j)
{
	free(j->p);
	memset(j, 0, sizeof(*j));
}

/* A JSON string; bytes that are not printable ASCII become \u00XX (one rule for every byte). */
static void json_str(struct jbuf *j, const char *s, size_t n)
{
	size_t i;

	jb_put(j, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			jb_printf(j, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			jb_printf(j, "\\u%04x", c);
		else
			jb_put(j, (const char *)&c, 1);
	}
	jb_put(j, "\"", 1);
}

static void hex_bytes(struct jbuf *j, const uint8_t *d, size_t n)
{
	size_t i;

	jb_put(j, "[", 1);
	for (i = 0; i < n; i++)
		jb_printf(j, "%s\"0x%02x\"", i ? "," : "", d[i]);
	jb_put(j, "]", 1);
}

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int n = 0;

	while (t && n++ < MAX_DEPTH &&
	       (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t) ||
		btf_is_type_tag(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

bool rec_btf_is_int(const struct btf *btf, uint32_t id, bool *is_signed)
{
	const struct btf_type *t;

	if (!btf || !id)
		return false;
	t = skip_mods(btf, &id);
	if (!t || !btf_is_int(t) || t->size > 8 || btf_int_offset(t))
		return false;
	*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	return true;
}

static uint64_t load_uint(const uint8_t *d, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, d, n > 8 ? 8 : n);	/* little endian: the recorder's host order */
	return v;
}

static void json_int(struct jbuf *j, uint64_t v, size_t size, bool sign, bool is_bool)
{
	if (is_bool) {
		jb_printf(j, "%s", v ? "true" : "false");
	} else if (sign) {
		int sh = 64 - 8 * (int)size;
		int64_t s = size < 8 ? (int64_t)(v << sh) >> sh : (int64_t)v;

		jb_printf(j, "%lld", (long long)s);
	} else {
		jb_printf(j, "%llu", (unsigned long long)v);
	}
}

static void json_type(const struct btf *btf, uint32_t id, const uint8_t *d, size_t avail,
		      struct jbuf *j, int depth);

static bool is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = skip_mods(btf, &id);

	return t && btf_is_int(t) && t->size == 1 &&
	       ((btf_int_encoding(t) & BTF_INT_CHAR) ||
		!strcmp(btf__name_by_offset(btf, t->name_off) ?: "", "char"));
}

static void json_array(const struct btf *btf, const struct btf_type *t, const uint8_t *d,
		       size_t avail, struct jbuf *j, int depth)
{
	const struct btf_array *a = btf_array(t);
	__s64 esz = btf__resolve_size(btf, a->type);
	uint32_t i;

	if (esz <= 0 || (uint64_t)esz * a->nelems > avail) {
		jb_put(j, "null", 4);
		return;
	}
	if (is_char(btf, a->type)) {
		size_t n = strnlen((const char *)d, a->nelems);

		json_str(j, (const char *)d, n);
		return;
	}
	jb_put(j, "[", 1);
	for (i = 0; i < a->nelems; i++) {
		if (i)
			jb_put(j, ",", 1);
		json_type(btf, a->type, d + (size_t)i * esz, esz, j, depth + 1);
	}
	jb_put(j, "]", 1);
}

static void json_struct(const struct btf *btf, const struct btf_type *t, const uint8_t *d,
			size_t avail, struct jbuf *j, int depth)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, n = btf_vlen(t);

	jb_put(j, "{", 1);
	for (i = 0; i < n; i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint32_t boff = btf_member_bit_offset(t, i), bsz = btf_member_bitfield_size(t, i);

		if (i)
			jb_put(j, ",", 1);
		json_str(j, name && *name ? name : "(anon)", name && *name ? strlen(name) : 6);
		jb_put(j, ":", 1);
		if (bsz) {
			/* a bitfield: the bytes that hold it, shifted and masked (little endian) */
			size_t first = boff / 8, last = (boff + bsz - 1) / 8;
			uint64_t v;

			if (last >= avail || last - first >= 8 || bsz > 64) {
				jb_put(j, "null", 4);
				continue;
			}
			v = load_uint(d + first, last - first + 1) >> (boff % 8);
			if (bsz < 64)
				v &= (1ull << bsz) - 1;
			jb_printf(j, "%llu", (unsigned long long)v);
		} else if (boff % 8 || boff / 8 > avail) {
			jb_put(j, "null", 4);
		} else {
			json_type(btf, m->type, d + boff / 8, avail - boff / 8, j, depth + 1);
		}
	}
	jb_put(j, "}", 1);
}

static void json_enum(const struct btf *btf, const struct btf_type *t, const uint8_t *d,
		      struct jbuf *j)
{
	uint64_t v = load_uint(d, t->size);
	uint16_t i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		uint64_t ev;
		const char *name;

		if (btf_is_enum(t))
			ev = (uint32_t)btf_enum(t)[i].val;
		else
			ev = btf_enum64_value(&btf_enum64(t)[i]);
		if (t->size < 8)
			ev &= (1ull << (8 * t->size)) - 1;
		name = btf__name_by_offset(btf, btf_is_enum(t) ? btf_enum(t)[i].name_off
							 : btf_enum64(t)[i].name_off);
		if (ev == v && name) {
			json_str(j, name, strlen(name));
			return;
		}
	}
	json_int(j, v, t->size, btf_kflag(t), false);
}

static void json_type(const struct btf *btf, uint32_t id, const uint8_t *d, size_t avail,
		      struct jbuf *j, int depth)
{
	const struct btf_type *t;
	__s64 size;

	if (!btf || !id || depth > MAX_DEPTH) {
		hex_bytes(j, d, avail);
		return;
	}
	t = skip_mods(btf, &id);
	size = t ? btf__resolve_size(btf, id) : -1;
	if (!t || size < 0 || (uint64_t)size > avail) {
		jb_put(j, "null", 4);
		return;
	}
	if (btf_is_int(t)) {
		if (t->size > 8 || btf_int_offset(t))
			hex_bytes(j, d, t->size);
		else
			json_int(j, load_uint(d, t->size), t->size,
				 btf_int_encoding(t) & BTF_INT_SIGNED,
				 btf_int_encoding(t) & BTF_INT_BOOL);
	} else if (btf_is_any_enum(t) && t->size <= 8) {
		json_enum(btf, t, d, j);
	} else if (btf_is_ptr(t)) {
		jb_printf(j, "%llu", (unsigned long long)load_uint(d, size));
	} else if (btf_is_array(t)) {
		json_array(btf, t, d, avail, j, depth);
	} else if (btf_is_composite(t)) {
		json_struct(btf, t, d, avail, j, depth);
	} else if (btf_is_float(t) && (t->size == 4 || t->size == 8)) {
		float f;
		double x;

		if (t->size == 4) {
			memcpy(&f, d, 4);
			x = f;
		} else {
			memcpy(&x, d, 8);
		}
		jb_printf(j, "%.17g", x);
	} else {
		hex_bytes(j, d, size);
	}
}

void rec_btf_json(const struct btf *btf, uint32_t id, const void *data, size_t size,
		  struct jbuf *j)
{
	json_type(btf, id, data, size, j, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct reader {
	struct bpf_map *map;
	const struct btf *btf;
	enum bpf_map_type type;
	uint32_t ksz, vsz, kid, vid;
	int ncpus;
	bool percpu, value_int, value_signed;
	uint64_t deadline;
	struct rec_snap *s;
};

/* One entry as a line: key JSON, tab, value JSON (per-CPU: sum and per CPU). */
static void put_entry(struct reader *r, const uint8_t *key, const uint8_t *val)
{
	struct jbuf *j = &r->s->text;
	uint32_t stride = (r->vsz + 7) & ~7u;
	int cpu;

	rec_btf_json(r->btf, r->kid, key, r->ksz, j);
	jb_put(j, "\t", 1);
	if (r->type == BPF_MAP_TYPE_STACK_TRACE) {
		/* addresses up to the first 0, as strings: JSON numbers lose u64 precision */
		uint32_t i, n = r->vsz / 8;

		jb_put(j, "[", 1);
		for (i = 0; i < n && load_uint(val + 8 * i, 8); i++)
			jb_printf(j, "%s\"0x%llx\"", i ? "," : "",
				  (unsigned long long)load_uint(val + 8 * i, 8));
		jb_put(j, "]", 1);
	} else if (r->percpu) {
		jb_put(j, "{", 1);
		if (r->value_int) {
			uint64_t sum = 0;

			for (cpu = 0; cpu < r->ncpus; cpu++)
				sum += load_uint(val + (size_t)cpu * stride, r->vsz);
			jb_put(j, "\"sum\":", 6);
			json_int(j, sum, r->value_signed ? 8 : 8, r->value_signed, false);
			jb_put(j, ",", 1);
		}
		jb_put(j, "\"cpus\":[", 8);
		for (cpu = 0; cpu < r->ncpus; cpu++) {
			if (cpu)
				jb_put(j, ",", 1);
			rec_btf_json(r->btf, r->vid, val + (size_t)cpu * stride, r->vsz, j);
		}
		jb_put(j, "]}", 2);
	} else {
		rec_btf_json(r->btf, r->vid, val, r->vsz, j);
	}
	jb_put(j, "\n", 1);
	r->s->nentries++;
}

static bool bound_hit(struct reader *r)
{
	if (r->s->text.len < REC_SNAP_MAX_BYTES && mono_ns() < r->deadline)
		return false;
	r->s->flags |= FMT_BPFMAP_TRUNCATED;
	return true;
}

/* Batches of up to 256 entries; -ENOTSUP and friends when the kernel has no batch for it. */
static int read_batched(struct reader *r, uint8_t *keys, uint8_t *vals, size_t vstride)
{
	uint64_t in = 0, out = 0;
	bool first = true;
	int ret = 0;

	for (;;) {
		__u32 count = 256, i;

		ret = bpf_map_lookup_batch(bpf_map__fd(r->map), first ? NULL : &in, &out, keys,
					   vals, &count, NULL);
		if (ret < 0)
			ret = -errno;
		if (ret && ret != -ENOENT)
			return first ? ret : ret;
		for (i = 0; i < count; i++)
			put_entry(r, keys + (size_t)i * r->ksz, vals + (size_t)i * vstride);
		if (ret == -ENOENT || r->s->text.oom || bound_hit(r))
			return r->s->text.oom ? -ENOMEM : 0;
		in = out;
		first = false;
	}
}

static int read_iter(struct reader *r, uint8_t *key, uint8_t *next, uint8_t *val)
{
	int fd = bpf_map__fd(r->map);
	bool first = true;

	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		memcpy(key, next, r->ksz);
		first = false;
		if (bpf_map_lookup_elem(fd, key, val))
			continue;	/* deleted meanwhile */
		put_entry(r, key, val);
		if (r->s->text.oom)
			return -ENOMEM;
		if (bound_hit(r))
			break;
	}
	return 0;
}

int rec_snap_read(struct bpf_map *map, const struct btf *btf, int ncpus, struct rec_snap *s)
{
	struct reader r = { .map = map, .btf = btf, .ncpus = ncpus, .s = s };
	uint8_t *keys = NULL, *vals = NULL, *k1 = NULL, *k2 = NULL;
	size_t vstride;
	int ret;

	r.type = bpf_map__type(map);
	switch (r.type) {
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		r.percpu = true;
		s->flags |= FMT_BPFMAP_PERCPU;
		break;
	case BPF_MAP_TYPE_STACK_TRACE:
		s->flags |= FMT_BPFMAP_STACKS;
		break;
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
		break;
	default:
		return -EOPNOTSUPP;
	}
	r.ksz = bpf_map__key_size(map);
	r.vsz = bpf_map__value_size(map);
	r.kid = btf ? bpf_map__btf_key_type_id(map) : 0;
	r.vid = btf ? bpf_map__btf_value_type_id(map) : 0;
	r.value_int = rec_btf_is_int(btf, r.vid, &r.value_signed);
	r.deadline = mono_ns() + REC_SNAP_MAX_NS;
	s->ts = mono_ns();
	vstride = r.percpu ? (size_t)((r.vsz + 7) & ~7u) * ncpus : r.vsz;
	keys = calloc(256, r.ksz ? r.ksz : 1);
	vals = calloc(256, vstride ? vstride : 1);
	k1 = calloc(1, r.ksz + 8);
	k2 = calloc(1, r.ksz + 8);
	if (!keys || !vals || !k1 || !k2) {
		ret = -ENOMEM;
		goto out;
	}
	ret = r.type == BPF_MAP_TYPE_STACK_TRACE ? -EOPNOTSUPP
						   : read_batched(&r, keys, vals, vstride);
	if (ret && ret != -ENOMEM && s->nentries == 0) {
		/* no batch lookup for this map type or kernel: one key at a time */
		ret = read_iter(&r, k1, k2, vals);
	}
out:
	free(keys);
	free(vals);
	free(k1);
	free(k2);
	return ret;
}
