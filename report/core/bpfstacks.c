// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stack ids of record --bpf-object programs and the stacks they name
 * (report/core/bpfstacks.h).  Everything comes from the object and map
 * options that format/ checked (fmt_bpfobj_parse, fmt_bpfmap_parse: sizes,
 * one JSON value each side of every entry's tab); the JSON is walked here
 * with every length bounded by the entry, since the file is someone else's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report/core/bpfstacks.h"
#include "report/core/replay.h"

#define MAX_STACK_FRAMES 1024	/* addresses kept per stack (perf_event_max_stack is 127) */

struct stackmap {
	char *name;		/* "OBJECT/MAP" */
	int obj;
	struct rpt_map ids;	/* (uint32_t)id -> struct span */
	uint64_t *addrs;
	size_t naddrs, cap;
};

struct span {
	uint32_t id;
	uint32_t off, n;
};

struct rpt_bpfstk {
	char **objs;		/* object names */
	int nobjs;
	struct stackmap *maps;
	int nmaps;
	struct rpt_bpfstk_src *src;
	int nsrc;
	struct fmt_bpfmap *snap;	/* per source: the snapshot (maps only) */
	bool swap;			/* the file's byte order is not the host's */
	const char *damage;		/* the first option that did not parse: why (static) */
};

/* ---- a bounded JSON walk ---------------------------------------------------------- */

/* the end of the JSON string starting at s[0] == '"' (past its quote), or NULL */
static const char *str_end(const char *s, const char *end)
{
	for (s++; s < end; s++) {
		if (*s == '\\')
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* the end of the JSON value at s (format/ checked it is one), or NULL */
static const char *value_end(const char *s, const char *end)
{
	int depth = 0;

	if (s >= end)
		return NULL;
	if (*s != '{' && *s != '[') {
		if (*s == '"')
			return str_end(s, end);
		while (s < end && *s != ',' && *s != '}' && *s != ']')
			s++;
		return s;
	}
	while (s < end) {
		if (*s == '"') {
			s = str_end(s, end);
			if (!s)
				return NULL;
			continue;
		}
		if (*s == '{' || *s == '[')
			depth++;
		else if ((*s == '}' || *s == ']') && --depth == 0)
			return s + 1;
		s++;
	}
	return NULL;
}

/* a plain JSON integer spanning exactly [s, e) */
static bool json_int(const char *s, const char *e, int64_t *v)
{
	char buf[32], *x;
	size_t n = (size_t)(e - s);

	if (!n || n >= sizeof(buf) || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*v = strtoll(buf, &x, 10);
	return !errno && !*x;
}

/*
 * The members of the object [s, end): fn(arg, name, name_len, value, value_end)
 * for each; false when it is not an object.
 */
typedef void (*member_fn)(void *arg, const char *k, size_t kl, const char *v, const char *ve);
static bool members(const char *s, const char *end, member_fn fn, void *arg)
{
	const char *p = s + 1;

	if (s >= end || *s != '{')
		return false;
	while (p < end && *p == '"') {
		const char *ke = str_end(p, end), *v, *ve;

		if (!ke || ke >= end || *ke != ':')
			return false;
		v = ke + 1;
		ve = value_end(v, end);
		if (!ve)
			return false;
		fn(arg, p + 1, (size_t)(ke - 1 - (p + 1)), v, ve);
		p = ve;
		if (p < end && *p == ',')
			p++;
	}
	return true;
}

/*
 * A key that is a number, or bpftool's bytes ["0x01",...] (a map without
 * BTF for its key) in the file's byte order, as an unsigned 32-bit id.
 */
static bool key_id(const struct rpt_bpfstk *s, const char *k, size_t kl, uint32_t *id)
{
	const char *p = k, *end = k + kl;
	uint8_t b[4];
	int64_t v;
	int n = 0;

	if (json_int(k, end, &v)) {
		*id = (uint32_t)v;
		return v >= 0 && v <= UINT32_MAX;
	}
	if (kl < 2 || *k != '[')
		return false;
	for (p = k + 1; p < end && *p == '"' && n < 4; n++) {
		char *x;
		unsigned long c = strtoul(p + 1, &x, 16);

		if (x == p + 1 || x >= end || *x != '"' || c > 0xff)
			return false;
		b[n] = (uint8_t)c;
		p = x + 1;
		if (p < end && *p == ',')
			p++;
	}
	if (n != 4 || p >= end || *p != ']')
		return false;
	if (s->swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		*id = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	else
		*id = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* ---- objects, stack maps, sources ------------------------------------------------------ */

static int obj_index(struct rpt_bpfstk *s, const char *name, size_t len)
{
	char **no;
	int k;

	for (k = 0; k < s->nobjs; k++)
		if (strlen(s->objs[k]) == len && !memcmp(s->objs[k], name, len))
			return k;
	no = realloc(s->objs, (size_t)(s->nobjs + 1) * sizeof(*no));
	if (!no)
		return -ENOMEM;
	s->objs = no;
	s->objs[s->nobjs] = strndup(name, len);
	if (!s->objs[s->nobjs])
		return -ENOMEM;
	return s->nobjs++;
}

/* a stack map snapshot's entries: id -> addresses (the value's "0x..." strings) */
static int load_stacks(struct rpt_bpfstk *s, struct stackmap *sm, const struct fmt_bpfmap *m)
{
	const char *k, *v;
	size_t pos = 0, kl, vl;

	while (fmt_bpfmap_next(m, &pos, &k, &kl, &v, &vl)) {
		const char *p = v, *end = v + vl;
		struct span *sp;
		uint32_t id;
		bool created;

		if (!key_id(s, k, kl, &id))
			continue;
		sp = rpt_map_get(&sm->ids, id, &created);
		if (!sp)
			return -ENOMEM;
		if (!created)
			continue;	/* one entry per id; a repeat is damage, the first counts */
		sp->id = id;
		sp->off = (uint32_t)sm->naddrs;
		sp->n = 0;
		while (sp->n < MAX_STACK_FRAMES && (p = memchr(p, '"', (size_t)(end - p))) &&
		       p + 1 < end) {
			char *e;
			uint64_t a = strtoull(p + 1, &e, 16);

			if (e == p + 1 || e >= end || *e != '"')
				break;
			if (sm->naddrs == sm->cap) {
				size_t nc = sm->cap ? sm->cap * 2 : 256;
				uint64_t *na;

				if (nc > UINT32_MAX)
					return -EOVERFLOW;
				na = realloc(sm->addrs, nc * sizeof(*na));
				if (!na)
					return -ENOMEM;
				sm->addrs = na;
				sm->cap = nc;
			}
			sm->addrs[sm->naddrs++] = a;
			sp->n++;
			p = e + 1;
		}
	}
	return 0;
}

struct has_id {
	bool yes;
};

static void has_id_member(void *arg, const char *k, size_t kl, const char *v, const char *ve)
{
	int64_t x;

	if (rpt_bpfstk_is_id_name(k, kl) && json_int(v, ve, &x))
		((struct has_id *)arg)->yes = true;
}

/* a counts map: its first entry's key is an object with a stack id member */
static bool counts_map(const struct fmt_bpfmap *m)
{
	const char *k, *v;
	size_t pos = 0, kl, vl;
	struct has_id h = { false };

	if (m->flags & FMT_BPFMAP_STACKS || !fmt_bpfmap_next(m, &pos, &k, &kl, &v, &vl))
		return false;
	return members(k, k + kl, has_id_member, &h) && h.yes;
}

static struct rpt_bpfstk_src *add_src(struct rpt_bpfstk *s, const char *name, size_t len,
				      int obj)
{
	struct rpt_bpfstk_src *ns = realloc(s->src, (size_t)(s->nsrc + 1) * sizeof(*ns));
	struct fmt_bpfmap *nm;

	if (!ns)
		return NULL;
	s->src = ns;
	nm = realloc(s->snap, (size_t)(s->nsrc + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	s->snap = nm;
	memset(&s->src[s->nsrc], 0, sizeof(*ns));
	memset(&s->snap[s->nsrc], 0, sizeof(*nm));
	s->src[s->nsrc].name = strndup(name, len);
	s->src[s->nsrc].obj = obj;
	if (!s->src[s->nsrc].name)
		return NULL;
	return &s->src[s->nsrc++];
}

/* the last snapshot (latest time, then latest option) of each map, in first-seen order */
static int last_snapshots(struct rpt_bpfstk *s, struct fmt_reader *r, struct fmt_bpfmap **out,
			  int *n)
{
	const struct fmt_option *o;
	struct fmt_bpfmap m, *v = NULL;
	int k, j, nv = 0;

	*out = NULL;
	*n = 0;
	for (k = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPFMAP, k)); k++) {
		const char *why = NULL;

		if (fmt_bpfmap_parse(o->data, o->size, s->swap, &m, &why)) {
			if (!s->damage)
				s->damage = why ? why : "unreadable map option";
			continue;
		}
		for (j = 0; j < nv; j++)
			if (v[j].name_len == m.name_len && !memcmp(v[j].name, m.name, m.name_len))
				break;
		if (j == nv) {
			struct fmt_bpfmap *nn = realloc(v, (size_t)(nv + 1) * sizeof(*nn));

			if (!nn) {
				free(v);
				return -ENOMEM;
			}
			v = nn;
			v[nv++] = m;
		} else if (m.ts >= v[j].ts) {
			v[j] = m;
		}
	}
	*out = v;
	*n = nv;
	return 0;
}

static int add_maps(struct rpt_bpfstk *s, struct fmt_reader *r)
{
	struct fmt_bpfmap *v;
	int k, nv, err;

	err = last_snapshots(s, r, &v, &nv);
	for (k = 0; !err && k < nv; k++) {
		const char *sl = memchr(v[k].name, '/', v[k].name_len);
		int obj = obj_index(s, v[k].name, sl ? (size_t)(sl - v[k].name) : v[k].name_len);

		if (obj < 0) {
			err = obj;
		} else if (v[k].flags & FMT_BPFMAP_STACKS) {
			struct stackmap *nm = realloc(s->maps, (size_t)(s->nmaps + 1) * sizeof(*nm));

			if (!nm) {
				err = -ENOMEM;
				break;
			}
			s->maps = nm;
			memset(&nm[s->nmaps], 0, sizeof(*nm));
			rpt_map_init(&nm[s->nmaps].ids, sizeof(struct span));
			nm[s->nmaps].obj = obj;
			nm[s->nmaps].name = strndup(v[k].name, v[k].name_len);
			s->nmaps++;
			err = nm[s->nmaps - 1].name ? load_stacks(s, &nm[s->nmaps - 1], &v[k]) : -ENOMEM;
		} else if (counts_map(&v[k])) {
			struct rpt_bpfstk_src *src = add_src(s, v[k].name, v[k].name_len, obj);

			if (!src) {
				err = -ENOMEM;
				break;
			}
			src->ts = fmt_reader_adjust_ts(r, v[k].ts);
			src->why = FMT_BPFMAP_WHY(v[k].flags);
			src->truncated = (v[k].flags & FMT_BPFMAP_TRUNCATED) != 0;
			s->snap[s->nsrc - 1] = v[k];
		}
	}
	free(v);
	return err;
}

/* "event=MAP EVENT STRUCT|raw ..." lines of each object: ring sources when typed */
static int add_rings(struct rpt_bpfstk *s, struct fmt_reader *r)
{
	const struct fmt_option *o;
	int k;

	for (k = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPFOBJ, k)); k++) {
		struct fmt_bpfobj ob;
		const char *name, *ev, *why = NULL;
		size_t nl, el, next = 0;
		int obj;

		if (fmt_bpfobj_parse(o->data, o->size, s->swap, &ob, &why)) {
			if (!s->damage)
				s->damage = why ? why : "unreadable object option";
			continue;
		}
		if (!(name = fmt_bpfobj_get(&ob, "name", 0, &nl, NULL)) || !nl || nl > 64)
			continue;
		obj = obj_index(s, name, nl);
		if (obj < 0)
			return obj;
		while ((ev = fmt_bpfobj_get(&ob, "event", next, &el, &next))) {
			char map[128], event[128], st[128], full[200];
			char line[400];
			struct rpt_bpfstk_src *src;

			if (el >= sizeof(line))
				continue;
			memcpy(line, ev, el);
			line[el] = 0;
			if (sscanf(line, "%127s %127s %127s", map, event, st) != 3 ||
			    !strcmp(st, "raw"))
				continue;
			snprintf(full, sizeof(full), "%.*s/%s", (int)nl, name, map);
			src = add_src(s, full, strlen(full), obj);
			if (!src)
				return -ENOMEM;
			src->ring = true;
			src->event = strdup(event);
			if (!src->event)
				return -ENOMEM;
		}
	}
	return 0;
}

struct rpt_bpfstk *rpt_bpfstk_new(struct fmt_reader *r)
{
	const struct fmt_info *in = fmt_reader_info(r);
	struct rpt_bpfstk *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->swap = in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	err = add_maps(s, r);
	if (!err)
		err = add_rings(s, r);
	if (err) {
		rpt_bpfstk_free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

void rpt_bpfstk_free(struct rpt_bpfstk *s)
{
	int k;

	if (!s)
		return;
	for (k = 0; k < s->nobjs; k++)
		free(s->objs[k]);
	free(s->objs);
	for (k = 0; k < s->nmaps; k++) {
		free(s->maps[k].name);
		free(s->maps[k].addrs);
		rpt_map_release(&s->maps[k].ids);
	}
	free(s->maps);
	for (k = 0; k < s->nsrc; k++) {
		free(s->src[k].name);
		free(s->src[k].event);
	}
	free(s->src);
	free(s->snap);
	free(s);
}

const char *rpt_bpfstk_damage(const struct rpt_bpfstk *s)
{
	return s ? s->damage : NULL;
}

int rpt_bpfstk_nsources(const struct rpt_bpfstk *s)
{
	return s ? s->nsrc : 0;
}

const struct rpt_bpfstk_src *rpt_bpfstk_source(const struct rpt_bpfstk *s, int k)
{
	return s && k >= 0 && k < s->nsrc ? &s->src[k] : NULL;
}

int rpt_bpfstk_find(const struct rpt_bpfstk *s, const char *name)
{
	int k, found = -1;

	for (k = 0; s && k < s->nsrc; k++)
		if (!strcmp(s->src[k].name, name))
			return k;
	for (k = 0; s && k < s->nsrc; k++) {
		const char *sl = strchr(s->src[k].name, '/');

		if (sl && !strcmp(sl + 1, name)) {
			if (found >= 0)
				return -2;
			found = k;
		}
	}
	return found;
}

int rpt_bpfstk_find_event(const struct rpt_bpfstk *s, const char *event)
{
	int k;

	for (k = 0; s && k < s->nsrc; k++)
		if (s->src[k].ring && !strcmp(s->src[k].event, event))
			return k;
	return -1;
}

bool rpt_bpfstk_is_id_name(const char *name, size_t len)
{
	size_t k;

	if (len < 7 || memcmp(name + len - 2, "id", 2))
		return false;
	for (k = 0; k + 5 <= len - 2; k++)
		if (!memcmp(name + k, "stack", 5))
			return true;
	return false;
}

static bool has(const char *name, size_t len, const char *what)
{
	size_t wl = strlen(what), k;

	for (k = 0; k + wl <= len; k++)
		if (!memcmp(name + k, what, wl))
			return true;
	return false;
}

int rpt_bpfstk_side(const char *name, size_t len)
{
	if (len && (name[0] == 'u' || has(name, len, "user")))
		return RPT_BPFSTK_USER;
	if (len && (name[0] == 'k' || has(name, len, "kern")))
		return RPT_BPFSTK_KERNEL;
	return RPT_BPFSTK_ANY;
}

int rpt_bpfstk_map_for(const struct rpt_bpfstk *s, int k, const char *field, size_t len)
{
	int m, first = -1, letter = -1, nletter = 0;

	if (!s || k < 0 || k >= s->nsrc)
		return -1;
	for (m = 0; m < s->nmaps; m++) {
		const char *sl;

		if (s->maps[m].obj != s->src[k].obj)
			continue;
		if (first < 0)
			first = m;
		sl = strchr(s->maps[m].name, '/');
		if (len && sl && sl[1] == field[0]) {
			letter = m;
			nletter++;
		}
	}
	return nletter == 1 ? letter : first;
}

const char *rpt_bpfstk_map_name(const struct rpt_bpfstk *s, int m)
{
	return s && m >= 0 && m < s->nmaps ? s->maps[m].name : "";
}

int rpt_bpfstk_stack(const struct rpt_bpfstk *s, int m, int64_t id, const uint64_t **addrs,
		     int *n)
{
	const struct span *sp;

	if (!s || m < 0 || m >= s->nmaps || id < 0 || id > UINT32_MAX)
		return 0;
	sp = rpt_map_find(&s->maps[m].ids, (uint64_t)id);
	if (!sp || sp->id != (uint32_t)id)
		return 0;
	*addrs = s->maps[m].addrs + sp->off;
	*n = (int)sp->n;
	return 1;
}

void rpt_bpfstk_each_addr(const struct rpt_bpfstk *s, void (*fn)(void *arg, uint64_t addr),
			  void *arg)
{
	for (int m = 0; s && m < s->nmaps; m++)
		for (size_t i = 0; i < s->maps[m].naddrs; i++)
			fn(arg, s->maps[m].addrs[i]);
}

/* ---- the entries of a counts map ------------------------------------------------------ */

struct key_walk {
	const struct rpt_bpfstk *s;
	int src;
	struct rpt_bpfstk_sample *smp;
};

/* a JSON string's bytes into buf (escapes other than \" and \\ become '?') */
static void json_str_copy(const char *v, const char *ve, char *buf, size_t len)
{
	size_t n = 0;

	for (v++; v < ve - 1 && n + 1 < len; v++) {
		if (*v == '\\' && v + 1 < ve - 1) {
			v++;
			buf[n++] = *v == '"' || *v == '\\' ? *v : '?';
			if (*v == 'u')
				v += v + 4 < ve - 1 ? 4 : 0;
			continue;
		}
		buf[n++] = *v;
	}
	buf[n] = 0;
}

static void key_member(void *arg, const char *k, size_t kl, const char *v, const char *ve)
{
	struct key_walk *w = arg;
	struct rpt_bpfstk_sample *smp = w->smp;
	int64_t x;

	if (rpt_bpfstk_is_id_name(k, kl) && json_int(v, ve, &x)) {
		if (smp->nids < RPT_BPFSTK_IDS) {
			smp->side[smp->nids] = rpt_bpfstk_side(k, kl);
			smp->ids[smp->nids] = x;
			smp->maps[smp->nids++] = rpt_bpfstk_map_for(w->s, w->src, k, kl);
		}
	} else if (((kl == 3 && !memcmp(k, "pid", 3)) || (kl == 3 && !memcmp(k, "tid", 3))) &&
		   json_int(v, ve, &x) && x >= 0 && x <= INT32_MAX) {
		smp->pid = (int)x;
	} else if (kl == 4 && !memcmp(k, "tgid", 4) && json_int(v, ve, &x) && x >= 0 &&
		   x <= INT32_MAX) {
		smp->tgid = (int)x;
	} else if (((kl == 4 && !memcmp(k, "comm", 4)) || (kl == 4 && !memcmp(k, "name", 4))) &&
		   *v == '"') {
		json_str_copy(v, ve, smp->comm, sizeof(smp->comm));
	}
}

struct first_int {
	bool found;
	int64_t v;
};

static void first_int_member(void *arg, const char *k, size_t kl, const char *v, const char *ve)
{
	struct first_int *f = arg;

	(void)k;
	(void)kl;
	if (!f->found && json_int(v, ve, &f->v))
		f->found = true;
}

/* the count of an entry: an integer, a per-CPU sum, or a struct's first integer member */
static bool entry_count(const char *v, size_t vl, uint64_t *w)
{
	struct first_int f = { false, 0 };
	int64_t x;

	if (fmt_bpfmap_int(v, vl, &x)) {
		f.found = true;
		f.v = x;
	} else if (!members(v, v + vl, first_int_member, &f)) {
		return false;
	}
	if (!f.found || f.v < 0)
		return false;
	*w = (uint64_t)f.v;
	return true;
}

int rpt_bpfstk_samples(const struct rpt_bpfstk *s, int k, rpt_bpfstk_fn fn, void *arg,
		       uint64_t *skipped)
{
	const struct fmt_bpfmap *m;
	const char *key, *v;
	size_t pos = 0, kl, vl;
	int err = 0;

	if (!s || k < 0 || k >= s->nsrc || s->src[k].ring)
		return -EINVAL;
	m = &s->snap[k];
	while (!err && fmt_bpfmap_next(m, &pos, &key, &kl, &v, &vl)) {
		struct rpt_bpfstk_sample smp;
		struct key_walk w = { s, k, &smp };

		memset(&smp, 0, sizeof(smp));
		smp.pid = smp.tgid = -1;
		if (!members(key, key + kl, key_member, &w) || !smp.nids ||
		    !entry_count(v, vl, &smp.weight)) {
			(*skipped)++;
			continue;
		}
		err = fn(arg, &smp);
	}
	return err;
}
