// SPDX-License-Identifier: GPL-2.0-only
/*
 * SVG flame graphs (see flamesvg.h).
 *
 * Stacks go into a prefix tree: one node per distinct (parent, frame name)
 * pair, found through one open-addressing hash keyed by both, and frame
 * names are interned once.  Rendering walks the tree iteratively (stacks
 * from a file can be arbitrarily deep, the C stack is not), children in
 * name order so the picture does not depend on the order samples came in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/out/flamesvg.h"
#include "flytrap.h"

#define NONE UINT32_MAX

struct fnode {
	uint32_t name;		/* string id */
	uint32_t parent;
	uint32_t first, last, next;	/* children in insertion order */
	uint32_t depth;
	uint64_t total;		/* weight of every stack through this node */
	uint64_t self;		/* weight of stacks ending here */
	uint64_t base;		/* differential graphs: the "before" weight through this node */
};

struct rpt_flame {
	/* interned names: strs[id] points into one of the arena chunks */
	char **strs;
	uint32_t nstrs, strs_cap;
	uint32_t *str_hash;	/* slots: id + 1, 0 empty */
	uint32_t str_hash_cap;
	char **chunks;
	size_t nchunks, chunk_used, chunk_size;

	struct fnode *nodes;
	uint32_t nnodes, nodes_cap;
	uint32_t *node_hash;	/* slots: node + 1, 0 empty; key (parent, name) */
	uint32_t node_hash_cap;

	/* scratch for rpt_flame_add_folded() */
	char *line;
	size_t line_cap;
	const char **frames;
	size_t frames_cap;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t hash_pair(uint32_t a, uint32_t b)
{
	uint64_t h = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static char *arena_copy(struct rpt_flame *fl, const char *s, size_t n)
{
	char *p;

	if (!fl->nchunks || fl->chunk_used + n + 1 > fl->chunk_size) {
		size_t sz = n + 1 > 65536 ? n + 1 : 65536;
		char **c = realloc(fl->chunks, (fl->nchunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		fl->chunks = c;
		c[fl->nchunks] = malloc(sz);
		if (!c[fl->nchunks])
			return NULL;
		fl->nchunks++;
		fl->chunk_used = 0;
		fl->chunk_size = sz;
	}
	p = fl->chunks[fl->nchunks - 1] + fl->chunk_used;
	memcpy(p, s, n);
	p[n] = '\0';
	fl->chunk_used += n + 1;
	return p;
}

/* The keys the two tables hash: name id i's bytes, node i's (parent, name). */
static uint64_t str_key(const struct rpt_flame *fl, uint32_t i)
{
	return hash_bytes(fl->strs[i], strlen(fl->strs[i]));
}

static uint64_t node_key(const struct rpt_flame *fl, uint32_t i)
{
	return hash_pair(fl->nodes[i].parent, fl->nodes[i].name);
}

/*
 * Double one of the open-addressing tables (slots: entry + 1, 0 empty;
 * 1024 slots at first) and put entries [from, n) back in it by key(): the
 * names' table and the nodes' grow the same way.  0 or -ENOMEM.
 */
static int rehash(struct rpt_flame *fl, uint32_t **tab, uint32_t *tab_cap, uint32_t from,
		  uint32_t n, uint64_t (*key)(const struct rpt_flame *, uint32_t))
{
	uint32_t cap = *tab_cap ? *tab_cap * 2 : 1024;
	uint32_t *t, i;

	if (cap < *tab_cap)
		return -ENOMEM;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = from; i < n; i++) {
		uint32_t j = (uint32_t)key(fl, i) & (cap - 1);

		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = i + 1;
	}
	free(*tab);
	*tab = t;
	*tab_cap = cap;
	return 0;
}

/* id of name[0..n), adding it when new; -ENOMEM */
static int64_t intern(struct rpt_flame *fl, const char *name, size_t n)
{
	uint64_t h;
	uint32_t j;
	char *copy;

	if (!name || !n) {
		name = "[unknown]";
		n = strlen(name);
	}
	if ((uint64_t)(fl->nstrs + 1) * 2 > fl->str_hash_cap &&
	    rehash(fl, &fl->str_hash, &fl->str_hash_cap, 0, fl->nstrs, str_key))
		return -ENOMEM;
	h = hash_bytes(name, n);
	j = (uint32_t)h & (fl->str_hash_cap - 1);
	while (fl->str_hash[j]) {
		const char *s = fl->strs[fl->str_hash[j] - 1];

		if (!strncmp(s, name, n) && s[n] == '\0')
			return fl->str_hash[j] - 1;
		j = (j + 1) & (fl->str_hash_cap - 1);
	}
	if (fl->nstrs == fl->strs_cap) {
		uint32_t cap = fl->strs_cap ? fl->strs_cap * 2 : 256;
		char **s;

		if (cap < fl->strs_cap)
			return -ENOMEM;
		s = realloc(fl->strs, (size_t)cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		fl->strs = s;
		fl->strs_cap = cap;
	}
	copy = arena_copy(fl, name, n);
	if (!copy)
		return -ENOMEM;
	fl->strs[fl->nstrs] = copy;
	fl->str_hash[j] = fl->nstrs + 1;
	return fl->nstrs++;
}

static int64_t new_node(struct rpt_flame *fl, uint32_t parent, uint32_t name)
{
	struct fnode *n;

	if (fl->nnodes == NONE - 1)
		return -ENOMEM;
	if (fl->nnodes == fl->nodes_cap) {
		uint32_t cap = fl->nodes_cap ? fl->nodes_cap * 2 : 256;
		struct fnode *a;

		if (cap < fl->nodes_cap)
			cap = NONE - 1;
		a = realloc(fl->nodes, (size_t)cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		fl->nodes = a;
		fl->nodes_cap = cap;
	}
	n = &fl->nodes[fl->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->first = n->last = n->next = NONE;
	if (parent != NONE) {
		struct fnode *p = &fl->nodes[parent];

		n->depth = p->depth + 1;
		if (p->last == NONE)
			p->first = fl->nnodes;
		else
			fl->nodes[p->last].next = fl->nnodes;
		p->last = fl->nnodes;
	}
	return fl->nnodes++;
}

/* child of parent named name, created when missing */
static int64_t child(struct rpt_flame *fl, uint32_t parent, uint32_t name)
{
	uint32_t j;
	int64_t n;

	/* from 1: the root is never looked up */
	if ((uint64_t)fl->nnodes * 2 + 2 > fl->node_hash_cap &&
	    rehash(fl, &fl->node_hash, &fl->node_hash_cap, 1, fl->nnodes, node_key))
		return -ENOMEM;
	j = (uint32_t)hash_pair(parent, name) & (fl->node_hash_cap - 1);
	while (fl->node_hash[j]) {
		const struct fnode *c = &fl->nodes[fl->node_hash[j] - 1];

		if (c->parent == parent && c->name == name)
			return fl->node_hash[j] - 1;
		j = (j + 1) & (fl->node_hash_cap - 1);
	}
	n = new_node(fl, parent, name);
	if (n >= 0)
		fl->node_hash[j] = (uint32_t)n + 1;
	return n;
}

struct rpt_flame *rpt_flame_new(void)
{
	struct rpt_flame *fl = calloc(1, sizeof(*fl));
	int64_t root;

	if (!fl)
		goto fail;
	root = intern(fl, "all", 3);
	if (root < 0 || new_node(fl, NONE, (uint32_t)root) < 0)
		goto fail;
	return fl;
fail:
	rpt_flame_free(fl);
	errno = ENOMEM;
	return NULL;
}

void rpt_flame_free(struct rpt_flame *fl)
{
	size_t i;

	if (!fl)
		return;
	for (i = 0; i < fl->nchunks; i++)
		free(fl->chunks[i]);
	free(fl->chunks);
	free(fl->strs);
	free(fl->str_hash);
	free(fl->nodes);
	free(fl->node_hash);
	free(fl->line);
	free(fl->frames);
	free(fl);
}

/* frames given as pointer + length pairs share this path */
static int add_frames(struct rpt_flame *fl, const char *const *frames, const size_t *lens,
		      int nframes, uint64_t weight)
{
	uint32_t cur = 0;
	int i;

	for (i = 0; i < nframes; i++) {
		const char *f = frames[i];
		size_t n = lens ? lens[i] : (f ? strlen(f) : 0);
		int64_t id = intern(fl, f, n), c;

		if (id < 0)
			return -ENOMEM;
		c = child(fl, cur, (uint32_t)id);
		if (c < 0)
			return -ENOMEM;
		cur = (uint32_t)c;
	}
	/* only now, so a failed allocation leaves the totals consistent */
	fl->nodes[cur].self = sat_add(fl->nodes[cur].self, weight);
	while (cur != NONE) {
		fl->nodes[cur].total = sat_add(fl->nodes[cur].total, weight);
		cur = fl->nodes[cur].parent;
	}
	return 0;
}

int rpt_flame_add(struct rpt_flame *fl, const char *const *frames, int nframes, uint64_t weight)
{
	if (!fl || nframes < 0 || (nframes > 0 && !frames))
		return -EINVAL;
	return add_frames(fl, frames, NULL, nframes, weight);
}

int rpt_flame_add_base(struct rpt_flame *fl, const char *const *frames, int nframes,
		       uint64_t weight)
{
	uint32_t cur = 0;
	int i;

	if (!fl || nframes < 0 || (nframes > 0 && !frames))
		return -EINVAL;
	for (i = 0; i < nframes; i++) {
		const char *f = frames[i];
		int64_t id = intern(fl, f, f ? strlen(f) : 0), c;

		if (id < 0)
			return -ENOMEM;
		c = child(fl, cur, (uint32_t)id);
		if (c < 0)
			return -ENOMEM;
		cur = (uint32_t)c;
	}
	for (; cur != NONE; cur = fl->nodes[cur].parent)
		fl->nodes[cur].base = sat_add(fl->nodes[cur].base, weight);
	return 0;
}

int rpt_flame_add_folded(struct rpt_flame *fl, const char *line)
{
	size_t len, i, nf = 0, start;
	const char *sp, *p;
	uint64_t w = 0;
	size_t *lens;
	int err;

	if (!fl || !line)
		return -EINVAL;
	len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (!len || line[0] == '#')
		return 0;
	for (sp = line + len; sp > line && sp[-1] != ' '; sp--)
		;
	sp = sp > line ? sp - 1 : NULL;
	if (!sp || sp == line || sp + 1 == line + len)
		return -EINVAL;
	for (p = sp + 1; p < line + len; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (w > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		w = w * 10 + (uint64_t)(*p - '0');
	}
	len = (size_t)(sp - line);
	/* frames: count separators first so one allocation fits them */
	nf = 1;
	for (i = 0; i < len; i++)
		nf += line[i] == ';';
	if (nf > (size_t)INT32_MAX)
		return -EINVAL;
	if (nf > fl->frames_cap) {
		/* pointers and lengths in one block */
		void *a = realloc(fl->frames, nf * (sizeof(char *) + sizeof(size_t)));

		if (!a)
			return -ENOMEM;
		fl->frames = a;
		fl->frames_cap = nf;
	}
	lens = (size_t *)(fl->frames + fl->frames_cap);
	nf = 0;
	start = 0;
	for (i = 0; i <= len; i++) {
		if (i == len || line[i] == ';') {
			fl->frames[nf] = line + start;
			lens[nf] = i - start;
			nf++;
			start = i + 1;
		}
	}
	err = add_frames(fl, fl->frames, lens, (int)nf, w);
	return err;
}

uint64_t rpt_flame_total(const struct rpt_flame *fl)
{
	return fl ? fl->nodes[0].total : 0;
}

uint64_t rpt_flame_nodes(const struct rpt_flame *fl)
{
	return fl ? fl->nnodes : 0;
}

/* ---- output ------------------------------------------------------------- */


/*
 * Frame names come from traced programs: anything may be in them.  Write
 * at most max characters (code points) as XML text, '?' for bytes that
 * are not valid UTF-8 or not XML characters; returns characters written.
 */
/* A UTF-8 sequence that is also an XML character (not U+FFFE/U+FFFF), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t l = ft_utf8_len(s, n, &cp);

	return l && cp != 0xfffe && cp != 0xffff ? l : 0;
}

static size_t xml_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, chars = 0;

	while (i < n && chars < max) {
		size_t l = utf8_len(p + i, n - i);

		if (!l) {
			fputc('?', out);
			i++;
		} else if (l > 1) {
			fwrite(p + i, 1, l, out);
			i += l;
		} else {
			unsigned char c = p[i++];

			switch (c) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&#39;", out); break;
			default:
				fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
			}
		}
		chars++;
	}
	return chars;
}

static size_t utf8_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, chars = 0;

	while (i < n) {
		size_t l = utf8_len(p + i, n - i);

		i += l ? l : 1;
		chars++;
	}
	return chars;
}

/*
 * Deterministic warm colours (the classic flame palette) from a hash of
 * the name; kernel frames ("_[k]" suffix, flamegraph.pl's convention) in
 * orange, placeholders ("[unknown]", "[...]") in grey, functions inlined
 * into their caller (" (inlined)", as callgraph names them; flamegraph.pl's
 * "_[i]") in aqua: no call was made there.
 */
static void frame_colour(const char *name, unsigned rgb[3])
{
	static const char inl[] = " (inlined)";
	size_t n = strlen(name), il = sizeof(inl) - 1;
	uint64_t h = hash_bytes(name, n);
	unsigned a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	if ((n > il && !strcmp(name + n - il, inl)) || (n >= 4 && !strcmp(name + n - 4, "_[i]"))) {
		rgb[0] = 60 + a * 50 / 255;
		rgb[1] = 180 + b * 40 / 255;
		rgb[2] = 180 + c * 40 / 255;
	} else if (n >= 4 && !strcmp(name + n - 4, "_[k]")) {
		rgb[0] = 200 + a * 55 / 255;
		rgb[1] = 140 + b * 60 / 255;
		rgb[2] = 40 + c * 40 / 255;
	} else if (name[0] == '[') {
		rgb[0] = rgb[1] = rgb[2] = 160 + a * 40 / 255;
	} else {
		rgb[0] = 205 + a * 50 / 255;
		rgb[1] = b * 230 / 255;
		rgb[2] = c * 55 / 255;
	}
}

#define FRAME_H 16
#define FONT_PX 12
#define FONT_W 0.59		/* average glyph width / font size (Verdana) */
#define PAD_PCT 0.5		/* left and right margin, percent of the width */
#define TOP_PAD (FRAME_H * 3)
#define BOTTOM_PAD (FRAME_H * 2 + 4)

/*
 * Differential colours: red where the weight grew from the base, blue where
 * it shrank, the deeper the larger the change relative to the larger of
 * the two; near white when unchanged.
 */
static void diff_colour(uint64_t now, uint64_t before, unsigned rgb[3])
{
	uint64_t hi = now > before ? now : before, d = now > before ? now - before : before - now;
	unsigned v = hi ? (unsigned)(200.0 * (double)d / (double)hi) : 0;

	if (now >= before) {
		rgb[0] = 255;
		rgb[1] = rgb[2] = 245 - v;
	} else {
		rgb[0] = rgb[1] = 245 - v;
		rgb[2] = 255;
	}
}

struct render {
	const struct rpt_flame *fl;
	bool differential;
	FILE *out;
	const char *pfx;
	const char *unit;
	double width, min_frac;
	bool icicle;
	uint32_t *sorted;	/* children of one node, reused */
	size_t sorted_cap;
	uint64_t *offs;		/* their offsets */
	size_t offs_cap;
	uint32_t maxdepth;
	uint64_t drawn, omitted, merged;
};

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct rpt_flame *fl = arg;
	const struct fnode *x = &fl->nodes[*(const uint32_t *)a];
	const struct fnode *y = &fl->nodes[*(const uint32_t *)b];

	return strcmp(fl->strs[x->name], fl->strs[y->name]);
}

struct walk_item {
	uint32_t node;		/* the frame's node, or for a merged frame its parent */
	uint32_t merged;	/* > 0: a frame standing for this many narrow children */
	uint64_t off;		/* weight to the left of this frame */
	uint64_t weight;	/* merged frames only */
};

struct walk {
	struct walk_item *st;
	size_t n, cap;
};

static int walk_push(struct walk *w, uint32_t node, uint64_t off, uint32_t merged, uint64_t weight)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct walk_item *a = realloc(w->st, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		w->st = a;
		w->cap = cap;
	}
	w->st[w->n].node = node;
	w->st[w->n].off = off;
	w->st[w->n].merged = merged;
	w->st[w->n].weight = weight;
	w->n++;
	return 0;
}

/*
 * Push the wide-enough children of item (sorted by name) so they pop in
 * name order; visit(it) is called on every node popped.
 */
/*
 * Depth-first, left to right.  Children wide enough are drawn in name
 * order packed from their parent's left edge; the narrow ones are merged
 * into one "[N small frames]" frame after them when together they are wide
 * enough, else left out.  visit(it) is called on every frame.
 */
static int walk_tree(struct render *r, int (*visit)(struct render *, const struct walk_item *))
{
	const struct rpt_flame *fl = r->fl;
	double total = (double)fl->nodes[0].total;
	struct walk w = { 0 };
	int err = walk_push(&w, 0, 0, 0, 0);

	while (!err && w.n) {
		struct walk_item it = w.st[--w.n];
		const struct fnode *n = &fl->nodes[it.node];
		size_t k = 0, i, ndrawn = 0;
		uint64_t off = it.off, small = 0;
		uint32_t c, nsmall = 0;

		err = visit(r, &it);
		if (err || it.merged)
			continue;
		for (c = n->first; c != NONE; c = fl->nodes[c].next) {
			if (r->differential && !fl->nodes[c].total)
				continue;	/* only in the base: no width to draw */
			if ((double)fl->nodes[c].total / total < r->min_frac) {
				small = sat_add(small, fl->nodes[c].total);
				nsmall++;
				continue;
			}
			if (k == r->sorted_cap) {
				size_t cap = r->sorted_cap ? r->sorted_cap * 2 : 64;
				uint32_t *a = realloc(r->sorted, cap * sizeof(*a));

				if (!a) {
					err = -ENOMEM;
					goto out;
				}
				r->sorted = a;
				r->sorted_cap = cap;
			}
			r->sorted[k++] = c;
		}
		ndrawn = k;
		qsort_r(r->sorted, k, sizeof(*r->sorted), cmp_child, (void *)fl);
		/* offsets left to right in the scratch array, then push right to left */
		if (k > r->offs_cap) {
			uint64_t *a = realloc(r->offs, k * sizeof(*a));

			if (!a) {
				err = -ENOMEM;
				goto out;
			}
			r->offs = a;
			r->offs_cap = k;
		}
		for (i = 0; i < ndrawn; i++) {
			r->offs[i] = off;
			off = sat_add(off, fl->nodes[r->sorted[i]].total);
		}
		r->omitted += nsmall;
		if (nsmall && (double)small / total >= r->min_frac) {
			r->merged += nsmall;
			if (walk_push(&w, it.node, off, nsmall, small)) {
				err = -ENOMEM;
				goto out;
			}
		}
		for (i = ndrawn; i-- > 0;) {
			if (walk_push(&w, r->sorted[i], r->offs[i], 0, 0)) {
				err = -ENOMEM;
				goto out;
			}
		}
	}
out:
	free(w.st);
	return err;
}

static int visit_depth(struct render *r, const struct walk_item *it)
{
	uint32_t d = r->fl->nodes[it->node].depth + (it->merged ? 1 : 0);

	if (d > r->maxdepth)
		r->maxdepth = d;
	return 0;
}

static double frame_y(const struct render *r, uint32_t depth)
{
	if (r->icicle)
		return TOP_PAD + (double)depth * FRAME_H;
	return TOP_PAD + (double)(r->maxdepth - depth) * FRAME_H;
}

static void fmt_weight(char *buf, size_t len, uint64_t v)
{
	/* digits grouped by commas: 1,234,567 */
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), i, o = 0;

	for (i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

static int visit_draw(struct render *r, const struct walk_item *it)
{
	const struct rpt_flame *fl = r->fl;
	const struct fnode *n = &fl->nodes[it->node];
	const char *name = fl->strs[n->name];
	uint64_t weight = it->merged ? it->weight : n->total;
	uint32_t depth = n->depth + (it->merged ? 1 : 0);
	double total = (double)fl->nodes[0].total;
	double xf = total > 0 ? (double)it->off / total : 0;
	double wf = total > 0 ? (double)weight / total : 1;
	double wpx, y = frame_y(r, depth);
	size_t fit, chars;
	char mname[64];
	unsigned rgb[3];
	char wbuf[40];
	FILE *out = r->out;

	if (it->merged) {
		/* "[" makes it grey, like other placeholders */
		snprintf(mname, sizeof(mname), "[%u small frames]", it->merged);
		name = mname;
	}
	r->drawn++;
	if (xf + wf > 1)
		wf = 1 - xf;
	wpx = wf * r->width * (100 - 2 * PAD_PCT) / 100;
	fit = wpx > 6 ? (size_t)((wpx - 6) / (FONT_PX * FONT_W)) : 0;
	chars = utf8_chars(name);
	fmt_weight(wbuf, sizeof(wbuf), weight);
	if (r->differential && !it->merged)
		diff_colour(n->total, n->base, rgb);
	else
		frame_colour(name, rgb);
	fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\"><title>",
		xf, wf, depth);
	xml_text(out, name, SIZE_MAX);
	if (r->differential && !it->merged) {
		char bbuf[40];

		fmt_weight(bbuf, sizeof(bbuf), n->base);
		fprintf(out, " (%s %s, %.2f%%; before %s", wbuf, r->unit, 100.0 * wf, bbuf);
		if (n->base)
			fprintf(out, ", %+.1f%%)</title>",
				100.0 * ((double)n->total - (double)n->base) / (double)n->base);
		else
			fputs(", new)</title>", out);
	} else {
		fprintf(out, " (%s %s, %.2f%%)</title>", wbuf, r->unit, 100.0 * wf);
	}
	fprintf(out, "<rect x=\"%.4f%%\" y=\"%.1f\" width=\"%.4f%%\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		PAD_PCT + (100 - 2 * PAD_PCT) * xf, y,
		(100 - 2 * PAD_PCT) * wf, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(out, "<text x=\"%.4f%%\" dx=\"3\" y=\"%.1f\">",
		PAD_PCT + (100 - 2 * PAD_PCT) * xf, y + FRAME_H - 4.5);
	/* pre-fitted for the nominal width; the script refits to the real one */
	if (chars <= fit) {
		xml_text(out, name, SIZE_MAX);
	} else if (fit >= 3) {
		xml_text(out, name, fit - 2);
		fputs("..", out);
	}
	fputs("</text></g>\n", out);
	return ferror(out) ? -EIO : 0;
}

/*
 * The interactive part: hover details, click to zoom (ancestors stay as
 * full-width faded bars), reset, regex search with the matched share, and
 * label fitting to whatever width the SVG ends up with.  All state hangs off
 * one closure per graph so several graphs can share an HTML page.  No '<'
 * or '&' outside the CDATA section, so it is valid in SVG and in HTML.
 */
static const char flame_js[] =
"(function(){\n"
"function init(pfx){\n"
" var svg=document.getElementById(pfx+'-svg');\n"
" if(!svg||svg.getAttribute('data-ready'))return;\n"
" svg.setAttribute('data-ready','1');\n"
" var unit=svg.getAttribute('data-unit'),total=+svg.getAttribute('data-total');\n"
" var PAD=" "0.5" ",FW=" "7.08" ";\n"
" var det=document.getElementById(pfx+'-details').firstChild;\n"
" var unz=document.getElementById(pfx+'-unzoom'),srch=document.getElementById(pfx+'-search');\n"
" var mat=document.getElementById(pfx+'-matched');\n"
" var fr=[].slice.call(svg.querySelectorAll('g.f')).map(function(g){\n"
"  var t=g.querySelector('title').textContent;\n"
"  return {g:g,r:g.querySelector('rect'),t:g.querySelector('text'),x:+g.getAttribute('data-x'),\n"
"   w:+g.getAttribute('data-w'),d:+g.getAttribute('data-d'),name:t.replace(/ \\([^(]*\\)$/,''),\n"
"   fill:g.querySelector('rect').getAttribute('fill')};});\n"
" var zx=0,zw=1,zd=0;\n"
" function pct(v){return (PAD+(100-2*PAD)*v).toFixed(4)+'%';}\n"
" function fit(){\n"
"  var W=svg.getBoundingClientRect().width||1200;\n"
"  fr.forEach(function(f){\n"
"   if(f.g.style.display==='none')return;\n"
"   var w=f.zw*W*(100-2*PAD)/100,n=Math.floor((w-6)/FW);\n"
"   f.t.textContent=n>=f.name.length?f.name:(n>=3?f.name.slice(0,n-2)+'..':'');\n"
"  });\n"
" }\n"
" function layout(){\n"
"  fr.forEach(function(f){\n"
"   var x,w;\n"
"   if(f.d<zd){ if(f.x<=zx+1e-8&&f.x+f.w>=zx+zw-1e-8){x=0;w=1;f.g.style.opacity='0.5';}"
"else{f.g.style.display='none';return;} }\n"
"   else if(f.x+1e-8>=zx&&f.x+f.w<=zx+zw+1e-8){x=(f.x-zx)/zw;w=f.w/zw;f.g.style.opacity='';}\n"
"   else{f.g.style.display='none';return;}\n"
"   f.g.style.display='';f.zw=w;\n"
"   f.r.setAttribute('x',pct(x));f.r.setAttribute('width',((100-2*PAD)*w).toFixed(4)+'%');\n"
"   f.t.setAttribute('x',pct(x));\n"
"  });\n"
"  unz.style.opacity=zw<1?'1':'0';\n"
"  fit();\n"
" }\n"
" fr.forEach(function(f){\n"
"  f.zw=f.w;\n"
"  f.g.addEventListener('mouseover',function(){"
"det.nodeValue=f.g.querySelector('title').textContent;});\n"
"  f.g.addEventListener('mouseout',function(){det.nodeValue=' ';});\n"
"  f.g.addEventListener('click',function(){ "
"if(f.d===0){zx=0;zw=1;zd=0;}else{zx=f.x;zw=f.w;zd=f.d;} layout(); });\n"
" });\n"
" unz.addEventListener('click',function(){zx=0;zw=1;zd=0;layout();});\n"
" srch.addEventListener('click',function(){\n"
"  var term=window.prompt('Search frames (regular expression):','');\n"
"  var re=null;\n"
"  if(term){try{re=new RegExp(term);}"
"catch(e){window.alert('bad regular expression: '+e.message);return;}}\n"
"  var spans=[];\n"
"  fr.forEach(function(f){\n"
"   var m=re!==null&&re.test(f.name);\n"
"   f.r.setAttribute('fill',m?'rgb(230,0,230)':f.fill);\n"
"   if(m)spans.push([f.x,f.x+f.w]);\n"
"  });\n"
"  spans.sort(function(a,b){return a[0]-b[0];});\n"
"  var sum=0,end=-1;\n"
"  spans.forEach(function(s){ if(s[0]>=end){sum+=s[1]-s[0];end=s[1];} "
"else if(s[1]>end){sum+=s[1]-end;end=s[1];} });\n"
"  mat.firstChild.nodeValue=re?'Matched: '+(100*sum).toFixed(2)+'%':' ';\n"
" });\n"
" window.addEventListener('resize',fit);\n"
" if(svg.ownerDocument.documentElement===svg)svg.setAttribute('width','100%');\n"
" layout();\n"
"}\n"
"var all=document.querySelectorAll('svg[data-flame]');\n"
"for(var i=0;i<all.length;i++)init(all[i].getAttribute('data-flame'));\n"
"})();\n";

int rpt_flame_svg_opts(const struct rpt_flame *fl, FILE *out, const struct rpt_flame_opts *opts)
{
	struct rpt_flame_opts def = { 0 };
	struct render r = { 0 };
	const char *title, *unit, *pfx;
	double height;
	char wbuf[40];
	int err = 0;

	if (!fl || !out)
		return -EINVAL;
	if (!opts)
		opts = &def;
	title = opts->title ? opts->title : "Flame graph";
	unit = opts->unit ? opts->unit : "samples";
	pfx = opts->id_prefix && *opts->id_prefix ? opts->id_prefix : "fg";
	r.fl = fl;
	r.out = out;
	r.pfx = pfx;
	r.unit = unit;
	r.width = opts->width ? opts->width : 1200;
	r.min_frac = (opts->min_px > 0 ? opts->min_px : 0.1) /
		     (r.width * (100 - 2 * PAD_PCT) / 100);
	r.icicle = opts->icicle;
	r.differential = opts->differential;

	if (fl->nodes[0].total) {
		err = walk_tree(&r, visit_depth);
		if (err)
			goto out;
	}
	height = TOP_PAD + (double)(r.maxdepth + 1) * FRAME_H + BOTTOM_PAD;

	if (!opts->embed)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"%s-svg\" "
		"data-flame=\"%s\" width=\"%s\" height=\"%.0f\" data-unit=\"", pfx, pfx,
		opts->embed ? "100%" : "1200", height);
	xml_text(out, unit, SIZE_MAX);
	fprintf(out, "\" data-total=\"%" PRIu64 "\" font-family=\"Verdana, sans-serif\" "
		"font-size=\"%d\">\n", fl->nodes[0].total, FONT_PX);
	fputs("<title>", out);
	xml_text(out, title, SIZE_MAX);
	fputs("</title>\n", out);
	/* styles are scoped by the svg id so an HTML page can hold several graphs */
	fprintf(out, "<style>#%s-svg g.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
		"#%s-svg g.f text{pointer-events:none;fill:#000}"
		"#%s-svg .btn{cursor:pointer;fill:#333;text-decoration:underline}</style>\n",
		pfx, pfx, pfx);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"%.0f\" fill=\"#f8f8f0\"/>\n",
		height);
	fputs("<text x=\"50%\" y=\"20\" text-anchor=\"middle\" font-size=\"16\">", out);
	xml_text(out, title, SIZE_MAX);
	fputs("</text>\n", out);
	fmt_weight(wbuf, sizeof(wbuf), fl->nodes[0].total);
	fputs("<text x=\"50%\" y=\"36\" text-anchor=\"middle\" fill=\"#555\">", out);
	fprintf(out, "total %s ", wbuf);
	xml_text(out, unit, SIZE_MAX);
	fputs("; click a frame to zoom, hover for details</text>\n", out);
	fprintf(out, "<text id=\"%s-unzoom\" class=\"btn\" x=\"%.1f%%\" y=\"20\" opacity=\"0\">"
		"Reset zoom</text>\n", pfx, PAD_PCT);
	fprintf(out, "<text id=\"%s-search\" class=\"btn\" x=\"%.1f%%\" y=\"20\" "
		"text-anchor=\"end\">Search</text>\n", pfx, 100 - PAD_PCT);
	fprintf(out, "<text id=\"%s-matched\" x=\"%.1f%%\" y=\"%.0f\" "
		"text-anchor=\"end\"> </text>\n",
		pfx, 100 - PAD_PCT, height - 10);
	fprintf(out, "<text id=\"%s-details\" x=\"%.1f%%\" y=\"%.0f\"> </text>\n",
		pfx, PAD_PCT, height - 10);
	if (!fl->nodes[0].total) {
		fprintf(out, "<text x=\"50%%\" y=\"%d\" text-anchor=\"middle\">no data</text>\n",
			TOP_PAD + FRAME_H - 4);
	} else {
		r.omitted = 0;
		r.merged = 0;
		err = walk_tree(&r, visit_draw);
		if (err)
			goto out;
	}
	if (r.omitted)
		fprintf(out, "<!-- %" PRIu64 " frames narrower than %.2f px not drawn alone, "
			"%" PRIu64 " of them merged -->\n", r.omitted,
			opts->min_px > 0 ? opts->min_px : 0.1, r.merged);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", out);
	fputs(flame_js, out);
	fputs("]]></script>\n</svg>\n", out);
	if (ferror(out))
		err = -EIO;
out:
	free(r.sorted);
	free(r.offs);
	return err;
}

int rpt_flame_svg(const struct rpt_flame *fl, FILE *out, const char *title, const char *unit)
{
	struct rpt_flame_opts o = { .title = title, .unit = unit };

	return rpt_flame_svg_opts(fl, out, &o);
}

static void folded_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

int rpt_flame_folded(const struct rpt_flame *fl, FILE *out)
{
	uint32_t *path = NULL, cur;
	size_t cap = 0;
	int err = 0;

	if (!fl || !out)
		return -EINVAL;
	/* iterative pre-order over first/next links, the path rebuilt from parents */
	cur = fl->nodes[0].first;
	while (cur != NONE) {
		const struct fnode *n = &fl->nodes[cur];

		if (n->self) {
			uint32_t d = n->depth, i, p;

			if (d > cap) {
				uint32_t *a = realloc(path, (size_t)d * 2 * sizeof(*a));

				if (!a) {
					err = -ENOMEM;
					break;
				}
				path = a;
				cap = (size_t)d * 2;
			}
			for (p = cur, i = d; i > 0; i--, p = fl->nodes[p].parent)
				path[i - 1] = p;
			for (i = 0; i < d; i++) {
				if (i)
					fputc(';', out);
				folded_name(out, fl->strs[fl->nodes[path[i]].name]);
			}
			fprintf(out, " %" PRIu64 "\n", n->self);
		}
		if (n->first != NONE) {
			cur = n->first;
			continue;
		}
		while (cur != NONE && fl->nodes[cur].next == NONE)
			cur = fl->nodes[cur].parent;
		if (cur == NONE || cur == 0)
			break;
		cur = fl->nodes[cur].next;
	}
	free(path);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
