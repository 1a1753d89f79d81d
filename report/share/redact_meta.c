// SPDX-License-Identifier: GPL-2.0-only
/*
 * redact: the file's metadata.  Each text that names tasks, files or the
 * machine is rewritten line by line with the same tokens as the events
 * (the path of a binary in PROCMAPS, the build-ids and the symbol tables
 * is one token, so symbols are still found for it); the kallsyms keep the
 * symbols the events use, at offsets from _text.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/share/convert.h"
#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "report/share/redact.h"

/*
 * A path kept as it is: a task named after it (a program run from a
 * memfd is "memfd:NAME") has a token elsewhere, and this is no leak of it.
 */
static void note_kept(struct rpt_red_ctx *c, const char *v, size_t n)
{
	if (c->kept_len + n + 1 > c->kept_cap) {
		size_t cap = (c->kept_len + n + 1) * 2 + 4096;
		char *nk = realloc(c->kept, cap);

		if (!nk)
			return;	/* the check is stricter without it, never weaker */
		c->kept = nk;
		c->kept_cap = cap;
	}
	memcpy(c->kept + c->kept_len, v, n);
	c->kept[c->kept_len + n] = '\n';
	c->kept_len += n + 1;
}

bool rpt_red_put(struct rpt_red_ctx *c, FILE *f, enum rpt_red_class cls, int action,
		 const char *v, size_t n)
{
	char tok[64], *z = strndup(v, n);
	int tl;

	if (!z)
		return false;
	if (action < 0)
		action = (int)rpt_red_value_action(c->p, cls, z);
	free(z);
	if (action == RED_KEEP || !n || rpt_red_is_token(cls, v, n)) {
		if (cls == RED_C_PATH && n)
			note_kept(c, v, n);
		fwrite(v, 1, n, f);
		return false;
	}
	if (action == RED_DROP) {
		c->n.dropped++;
		return true;
	}
	tl = rpt_red_token(c->t, cls, v, n, tok, sizeof(tok));
	if (tl < 0)
		return false;
	fwrite(tok, 1, (size_t)tl, f);
	if (cls == RED_C_COMM)
		c->n.comm++;
	else if (cls == RED_C_PATH)
		c->n.path++;
	else if (cls == RED_C_HOST)
		c->n.host++;
	else
		c->n.text++;
	return true;
}

/* A text rewritten line by line; NULL when out of memory. */
typedef void (*line_fn)(struct rpt_red_ctx *c, FILE *f, const char *line, size_t n, void *st);

static char *by_line(struct rpt_red_ctx *c, const char *text, size_t len, line_fn fn, void *st,
		     size_t *olen)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, olen);
	const char *p = text, *end = text + len;

	if (!f)
		return NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);

		while (n && p[n - 1] == '\0')
			n--;
		if (n)
			fn(c, f, p, n, st);
		p = nl ? nl + 1 : end;
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* The start of word k (0-based, space separated) of a line, its length in *wl. */
static const char *word(const char *s, size_t n, int k, size_t *wl)
{
	size_t i = 0;

	for (int w = 0; i < n; w++) {
		size_t b;

		while (i < n && s[i] == ' ')
			i++;
		b = i;
		while (i < n && s[i] != ' ')
			i++;
		if (w == k && i > b) {
			*wl = i - b;
			return s + b;
		}
	}
	return NULL;
}

/* ---- cmdlines, uname, build-ids, maps ------------------------------------------- */

static void cmdline_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	size_t wl = 0;
	const char *pid = word(s, n, 0, &wl);
	const char *comm = pid ? pid + wl : NULL;

	(void)st;
	if (!pid)
		return;
	for (size_t i = 0; i < wl; i++) {
		if (!isdigit((unsigned char)pid[i])) {
			/* no pid: the rest of a name with a newline in it (prctl allows one) */
			rpt_red_put(c, f, RED_C_COMM, -1, s, n);
			fputc('\n', f);
			return;
		}
	}
	while (comm && comm < s + n && *comm == ' ')
		comm++;
	fprintf(f, "%.*s ", (int)wl, pid);
	rpt_red_put(c, f, RED_C_COMM, -1, comm, (size_t)(s + n - comm));
	fputc('\n', f);
}

static void buildid_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	const char *sp = memrchr(s, ' ', n);

	(void)st;
	if (!sp) {
		c->n.dropped++;
		return;
	}
	rpt_red_put(c, f, RED_C_PATH, -1, s, (size_t)(sp - s));
	fprintf(f, "%.*s\n", (int)(s + n - sp), sp);
}

/* trace-cmd's PROCMAPS: "PID NLIBS COMM" (hex) then NLIBS lines "START END PATH". */
static void procmaps_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	unsigned long *left = st;
	size_t w0 = 0, w1 = 0, w2 = 0;
	const char *a = word(s, n, 0, &w0), *b = word(s, n, 1, &w1), *rest = word(s, n, 2, &w2);

	if (!a || !b || !rest) {
		c->n.dropped++;
		return;
	}
	fprintf(f, "%.*s %.*s ", (int)w0, a, (int)w1, b);
	/*
	 * a library is a path or a kernel name ([vdso]); anything else is
	 * the next process's line, its task name, whatever its count said
	 */
	if (*left && (rest[0] == '/' || rest[0] == '[')) {
		(*left)--;
		/* the kernel's names of mappings ([heap], anon_inode:x) are kept */
		rpt_red_put(c, f, RED_C_PATH, rest[0] == '/' ? -1 : RED_KEEP, rest,
			    (size_t)(s + n - rest));
	} else {
		*left = strtoul(b, NULL, 16);
		if (*left > 1000000)
			*left = 0;
		rpt_red_put(c, f, RED_C_COMM, -1, rest, (size_t)(s + n - rest));
	}
	fputc('\n', f);
}

/*
 * flytrap's maps section: "== PID COMM" (or "=< PID UNTIL COMM", an image
 * PID ran until an exec), then /proc/PID/maps lines.
 */
static void ftmaps_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	size_t wl = 0, ul = 0;
	const char *path;

	(void)st;
	if (n > 3 && !memcmp(s, "=< ", 3)) {
		const char *pid = word(s, n, 1, &wl), *until = pid ? word(s, n, 2, &ul) : NULL;
		const char *comm = until ? until + ul + 1 : NULL;

		if (!comm || comm > s + n) {
			c->n.dropped++;
			return;
		}
		fprintf(f, "=< %.*s %.*s ", (int)wl, pid, (int)ul, until);
		rpt_red_put(c, f, RED_C_COMM, -1, comm, (size_t)(s + n - comm));
		fputc('\n', f);
		return;
	}
	if (n > 3 && !memcmp(s, "== ", 3)) {
		const char *pid = word(s, n, 1, &wl), *comm = pid ? pid + wl + 1 : NULL;

		if (!comm || comm > s + n) {
			c->n.dropped++;
			return;
		}
		fprintf(f, "== %.*s ", (int)wl, pid);
		rpt_red_put(c, f, RED_C_COMM, -1, comm, (size_t)(s + n - comm));
		fputc('\n', f);
		return;
	}
	path = word(s, n, 5, &wl);
	if (!path && !word(s, n, 4, &wl)) {
		/* not a maps line: the rest of a name with a newline in it */
		rpt_red_put(c, f, RED_C_COMM, -1, s, n);
		fputc('\n', f);
		return;
	}
	if (!path) {
		fprintf(f, "%.*s\n", (int)n, s);
		return;
	}
	fwrite(s, 1, (size_t)(path - s), f);
	rpt_red_put(c, f, RED_C_PATH, path[0] == '/' ? -1 : RED_KEEP, path,
		    (size_t)(s + n - path));
	fputc('\n', f);
}

/* UNAME: "SYSNAME NODENAME RELEASE ...": the node name is the host name. */
static char *uname_text(struct rpt_red_ctx *c, const char *s, size_t n, size_t *olen)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, olen);
	size_t wl = 0;
	const char *node;

	if (!f)
		return NULL;
	while (n && s[n - 1] == '\0')
		n--;
	node = word(s, n, 1, &wl);
	if (!node) {
		fwrite(s, 1, n, f);
	} else {
		fwrite(s, 1, (size_t)(node - s), f);
		rpt_red_put(c, f, RED_C_HOST, rpt_red_meta_action(c->p, "hostname"), node, wl);
		fwrite(node + wl, 1, (size_t)(s + n - node - wl), f);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- key=value texts: flytrap metadata, a slice's, a merge's -------------------- */

static void hex_record(struct rpt_red_ctx *c, FILE *f, const char *v, size_t n)
{
	size_t wl = 0;
	const char *hex = word(v, n, 3, &wl);
	uint8_t *rec;
	const uint8_t *out;
	uint32_t olen;

	if (!hex || wl % 2 || !(rec = malloc(wl / 2 + 1))) {
		c->n.dropped++;
		return;
	}
	for (size_t i = 0; i < wl / 2; i++) {
		unsigned x;

		if (sscanf(hex + 2 * i, "%2x", &x) != 1)
			x = 0;
		rec[i] = (uint8_t)x;
	}
	if (c->rec(c->rec_arg, rec, (uint32_t)(wl / 2), &out, &olen)) {
		c->n.dropped++;
		free(rec);
		return;
	}
	fwrite(v, 1, (size_t)(hex - v), f);
	for (uint32_t i = 0; i < olen; i++)
		fprintf(f, "%02x", out[i]);
	free(rec);
}

/*
 * A slice's filters as typed: the task name of each "--comm NAME" (or
 * "--comm=NAME") is a comm, up to the next option word or the end.
 */
static void filters_value(struct rpt_red_ctx *c, FILE *f, const char *v, size_t n)
{
	const char *p = v, *end = v + n;

	while (p < end) {
		const char *o = memmem(p, (size_t)(end - p), "--comm", 6), *val, *ve;

		if (!o || o + 6 == end || (o[6] != ' ' && o[6] != '=')) {
			o = o ? o + 6 : end;
			fwrite(p, 1, (size_t)(o - p), f);
			p = o;
			continue;
		}
		val = o + 7;
		for (ve = val; ve < end && !(ve + 1 < end && ve[0] == ' ' && ve[1] == '-'); ve++)
			;
		fwrite(p, 1, (size_t)(val - p), f);
		rpt_red_put(c, f, RED_C_COMM, -1, val, (size_t)(ve - val));
		p = ve;
	}
}

/* Values of known keys that hold a name among other words. */
static bool special_value(struct rpt_red_ctx *c, FILE *f, const char *key, size_t kl,
			  const char *v, size_t n)
{
	size_t wl = 0;
	const char *w;

#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(key, s, kl))
	if (KEY(FMT_META_BPF_UFUNC) && (w = word(v, n, 1, &wl))) {
		fwrite(v, 1, (size_t)(w - v), f);
		rpt_red_put(c, f, RED_C_PATH, -1, w, wl);
		fwrite(w + wl, 1, (size_t)(v + n - w - wl), f);
		return true;
	}
	if (KEY(FMT_META_BPF_KFUNC) && (w = word(v, n, 3, &wl)) && wl > 2 && !memcmp(w, "0x", 2)) {
		uint64_t a = strtoull(w, NULL, 16);

		fwrite(v, 1, (size_t)(w - v), f);
		if (rpt_red_ctx_is_kaddr(c, a, 8))
			a = rpt_red_kaddr(c, a);
		fprintf(f, "0x%llx", (unsigned long long)a);
		return true;
	}
	if (KEY("cpu_task") && (w = word(v, n, 3, &wl))) {
		fwrite(v, 1, (size_t)(w - v), f);
		rpt_red_put(c, f, RED_C_COMM, -1, w, (size_t)(v + n - w));
		return true;
	}
	if (KEY("filters")) {
		filters_value(c, f, v, n);
		return true;
	}
	if (KEY("prologue") || KEY("epilogue")) {
		hex_record(c, f, v, n);
		return true;
	}
#undef KEY
	return false;
}

static void meta_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	const char *eq = memchr(s, '=', n), *v;
	char key[128];
	size_t kl, vl, hl = strlen(FMT_META_HOSTNAME);
	int a;
	enum rpt_red_class cls;

	(void)st;
	if (!eq || (size_t)(eq - s) >= sizeof(key)) {
		c->n.dropped++;	/* not key=value: nothing says what it holds */
		return;
	}
	kl = (size_t)(eq - s);
	memcpy(key, s, kl);
	key[kl] = '\0';
	/*
	 * a file redacted before: this run writes its own lines (the first
	 * line of a key is the one readers take)
	 */
	if (!strncmp(key, "redact", 6))
		return;
	v = eq + 1;
	vl = (size_t)(s + n - v);
	a = rpt_red_meta_action(c->p, key);
	if (a == RED_DROP) {
		c->n.dropped++;
		return;
	}
	fprintf(f, "%s=", key);
	if (a == RED_KEEP) {
		fwrite(v, 1, vl, f);
	} else if (a < 0 && special_value(c, f, key, kl, v, vl)) {
		;
	} else {
		/* the recorder's hostname and a merge's source.N.hostname */
		cls = kl >= hl && !strcmp(key + kl - hl, FMT_META_HOSTNAME) ? RED_C_HOST
		      : vl && v[0] == '/' ? RED_C_PATH : RED_C_TEXT;
		if (a < 0 && cls != RED_C_PATH)
			a = RED_KEEP;
		rpt_red_put(c, f, cls, cls == RED_C_PATH && a == RED_HASH ? -1 : a, v, vl);
	}
	fputc('\n', f);
}

/* ---- flytrap's symbol tables: the binaries' paths --------------------------------- */

static void *symtab_redact(struct rpt_red_ctx *c, const uint8_t *d, size_t len, size_t *olen)
{
	uint8_t *out = malloc(len + 16 + 4096), *o;
	size_t off = 16, oo = 16, cap = len + 16 + 4096;
	uint32_t nbin, k, kept = 0;

	if (!out || len < 16 || memcmp(d, "FTSYMS1", 8)) {
		free(out);
		return NULL;
	}
	memcpy(&nbin, d + 8, 4);
	memcpy(out, d, 16);
	for (k = 0; k < nbin && off + 24 <= len; k++) {
		uint32_t rs;
		uint16_t pl, npl;
		uint8_t bl;
		size_t rest_old, rest_new, need;
		char tok[64] = "";
		char *tp = NULL;
		size_t tl = 0;
		FILE *f;

		memcpy(&rs, d + off, 4);
		memcpy(&pl, d + off + 4, 2);
		bl = d[off + 6];
		if (rs < 24 || rs > len - off || (size_t)pl + bl > rs - 24)
			break;
		f = open_memstream(&tp, &tl);
		if (!f)
			break;
		rpt_red_put(c, f, RED_C_PATH, -1, (const char *)d + off + 24, pl);
		if (fclose(f))
			break;
		snprintf(tok, sizeof(tok), "%.*s", (int)tl, tp);
		free(tp);
		npl = (uint16_t)strlen(tok);
		rest_old = (24 + (size_t)pl + bl + 7) & ~(size_t)7;
		rest_new = (24 + (size_t)npl + bl + 7) & ~(size_t)7;
		if (rest_old > rs)
			break;
		need = rest_new + (rs - rest_old);
		if (oo + need > cap) {
			uint8_t *no = realloc(out, (cap = oo + need + 4096));

			if (!no)
				break;
			out = no;
		}
		o = out + oo;
		memset(o, 0, rest_new);
		memcpy(o, d + off, 24);
		{
			uint32_t nrs = (uint32_t)need;

			memcpy(o, &nrs, 4);
			memcpy(o + 4, &npl, 2);
		}
		memcpy(o + 24, tok, npl);
		memcpy(o + 24 + npl, d + off + 24 + pl, bl);
		memcpy(o + rest_new, d + off + rest_old, rs - rest_old);
		oo += need;
		off += rs;
		kept++;
	}
	memcpy(out + 8, &kept, 4);
	*olen = oo;
	return out;
}

static uint64_t get_u64(const void *p, bool big_endian)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int k = 0; k < 8; k++)
		v |= (uint64_t)b[big_endian ? 7 - k : k] << (8 * k);
	return v;
}

/*
 * The symbol names of a stored symbol table (each binary's string table)
 * onto f.  A task named after a function of a binary (timeout, python3)
 * is that function where it occurs as one: the names are kept as they are.
 */
static void symtab_names(const uint8_t *d, size_t len, FILE *f)
{
	size_t off = 16;
	uint32_t nbin;

	if (len < 16 || memcmp(d, "FTSYMS1", 8))
		return;
	memcpy(&nbin, d + 8, 4);
	for (uint32_t k = 0; k < nbin && off + 24 <= len; k++) {
		uint32_t rs, nloads, nsyms, strsz;
		uint16_t pl;
		size_t loads_off, str_off;

		memcpy(&rs, d + off, 4);
		memcpy(&pl, d + off + 4, 2);
		memcpy(&nloads, d + off + 8, 4);
		memcpy(&nsyms, d + off + 12, 4);
		memcpy(&strsz, d + off + 16, 4);
		if (rs < 24 || rs > len - off || (size_t)pl + d[off + 6] > rs - 24)
			return;
		loads_off = (off + 24 + pl + d[off + 6] + 7) & ~(size_t)7;
		str_off = loads_off + (size_t)nloads * 32 + (size_t)nsyms * 24;
		if (nloads <= rs / 32 && nsyms <= rs / 24 && str_off <= off + rs &&
		    strsz <= off + rs - str_off) {
			fwrite(d + str_off, 1, strsz, f);
			fputc('\0', f);
		}
		off += rs;
	}
}

/* The keys of a key=value text: flytrap's own words (a task may be named "hostname"). */
static void meta_keys(const char *s, size_t n, FILE *f)
{
	for (const char *p = s, *end = s + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(le - p));

		if (eq)
			fprintf(f, "%.*s\n", (int)(eq - p), p);
		p = le + 1;
	}
}

void rpt_red_public_words(struct fmt_reader *r, FILE *f)
{
	const struct fmt_info *in = fmt_reader_info(r);

	for (int i = 0; i < in->noptions; i++) {
		const struct fmt_option *o = &in->options[i];
		void *data = NULL;
		size_t len = 0;

		if (o->id == FMT_OPT_FT_META || o->id == FMT_OPT_FT_RECSTATS ||
		    o->id == FMT_OPT_FT_SLICE || o->id == FMT_OPT_FT_MERGE)
			meta_keys(o->data, o->size, f);

		if (o->id != FMT_OPT_FT_SYMTAB || o->size != 8 ||
		    fmt_reader_section(r, get_u64(o->data, in->big_endian), FMT_SEC_FT_SYMTAB,
				       &data, &len))
			continue;
		symtab_names(data, len, f);
		free(data);
	}
}

/* ---- the options ------------------------------------------------------------------ */

bool rpt_red_skip_option(void *arg, const struct fmt_option *o)
{
	(void)arg;
	switch (o->id) {
	case FMT_OPT_UNAME:
	case FMT_OPT_PROCMAPS:
	case FMT_OPT_GUEST:
	case FMT_OPT_FT_META:
	case FMT_OPT_FT_BUILDIDS:
	case FMT_OPT_FT_SYMTAB:
	case FMT_OPT_FT_PROCMAPS:
	case FMT_OPT_FT_SLICE:
	case FMT_OPT_FT_MERGE:
	case FMT_OPT_FT_CHECKSUMS:
	case FMT_OPT_FT_DIGEST:
	case FMT_OPT_FT_BPFOBJ:		/* rpt_red_write_bpfobjs, after the events */
	case FMT_OPT_FT_BPFMAP:
	/* where the previous boot's kernel and this boot's modules were loaded (KASLR) */
	case FMT_OPT_LAST_BOOT_INFO:
	case FMT_OPT_MODULES_FILE:
		return true;
	default:
		return false;
	}
}

/* ---- record --bpf-object: the objects' text and the maps' JSON -------------------- */

/* An object's "key=value" lines: its path is a path, a --bpf-set value may be a task name. */
static void bpfobj_line(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, void *st)
{
	const char *eq = memchr(s, '=', n), *v, *e2;
	size_t kl;

	(void)st;
	if (!eq) {
		c->n.dropped++;
		return;
	}
	kl = (size_t)(eq - s);
	v = eq + 1;
	fwrite(s, 1, kl + 1, f);
	if (kl == 4 && !memcmp(s, "path", 4)) {
		rpt_red_put(c, f, RED_C_PATH, -1, v, (size_t)(s + n - v));
	} else if (kl == 3 && !memcmp(s, "set", 3) && (e2 = memchr(v, '=', (size_t)(s + n - v)))) {
		/*
		 * --bpf-set NAME=VALUE: a number stays; a string is most often a
		 * task name to match (target_comm=), and gets the token the same
		 * name gets in the events, so the filter still reads right
		 */
		const char *val = e2 + 1;
		size_t vl = (size_t)(s + n - val);
		char *end = NULL;

		fwrite(v, 1, (size_t)(val - v), f);
		if (vl && (strtoll(val, &end, 0), end == val + vl))
			fwrite(val, 1, vl, f);
		else
			rpt_red_put(c, f, RED_C_COMM, -1, val, vl);
	} else {
		fwrite(v, 1, (size_t)(s + n - v), f);
	}
	fputc('\n', f);
}

/*
 * One JSON value of a map entry, rewritten: strings that are member names
 * stay; in a stack map "0x..." kernel addresses follow the kernel-address
 * policy (and keep their symbols); any other string is program data,
 * most often a task name (comm), and gets the token of its class.
 */
static void bpfmap_json(struct rpt_red_ctx *c, FILE *f, const char *s, size_t n, bool stacks,
			int klong)
{
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *q;

		if (*p != '"') {
			fputc(*p++, f);
			continue;
		}
		for (q = p + 1; q < end && *q != '"'; q++)
			if (*q == '\\' && q + 1 < end)
				q++;
		if (q >= end) {			/* unterminated: the rest as it is */
			fwrite(p, 1, (size_t)(end - p), f);
			return;
		}
		if (q + 1 < end && q[1] == ':') {
			fwrite(p, 1, (size_t)(q + 1 - p), f);	/* a member name */
		} else if (stacks && q - p > 3 && p[1] == '0' && p[2] == 'x') {
			char *e = NULL;
			uint64_t a = strtoull(p + 3, &e, 16);

			if (e == q && rpt_red_ctx_is_kaddr(c, a, klong))
				fprintf(f, "\"0x%" PRIx64 "\"", rpt_red_kaddr(c, a));
			else
				fwrite(p, 1, (size_t)(q + 1 - p), f);
		} else {
			fputc('"', f);
			rpt_red_put(c, f, q[-1] == '/' || p[1] == '/' ? RED_C_PATH : RED_C_COMM, -1,
				    p + 1, (size_t)(q - p - 1));
			fputc('"', f);
		}
		p = q + 1;
	}
}

static int bpfobj_option(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w,
			 const struct fmt_option *o)
{
	const struct fmt_info *in = fmt_reader_info(r);
	bool swap = in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	int klong = in->kernel_long ? in->kernel_long : 8;
	struct fmt_bpfobj ob;
	struct fmt_bpfmap m;
	char *out = NULL;
	size_t olen = 0;
	FILE *f;
	int err;

	if (o->id == FMT_OPT_FT_BPFOBJ && !fmt_bpfobj_parse(o->data, o->size, swap, &ob, NULL)) {
		struct fmt_bpfobj_hdr h;
		unsigned long left = 0;
		size_t tl = 0;
		char *t = by_line(c, ob.text, ob.text_len, bpfobj_line, &left, &tl);

		if (!t)
			return -ENOMEM;
		memcpy(h.magic, FMT_BPFOBJ_MAGIC, sizeof(h.magic));
		h.text_len = (uint32_t)tl;
		h.btf_len = ob.btf_len;
		if (swap) {
			h.text_len = __builtin_bswap32(h.text_len);
			h.btf_len = __builtin_bswap32(h.btf_len);
		}
		f = open_memstream(&out, &olen);
		if (!f) {
			free(t);
			return -ENOMEM;
		}
		fwrite(&h, sizeof(h), 1, f);
		fwrite(t, 1, tl, f);
		fwrite(ob.btf, 1, ob.btf_len, f);
		free(t);
	} else if (o->id == FMT_OPT_FT_BPFMAP && !fmt_bpfmap_parse(o->data, o->size, swap, &m, NULL)) {
		struct fmt_bpfmap_hdr h;
		const char *k, *v;
		size_t pos = 0, kl, vl, tstart;
		bool stacks = m.flags & FMT_BPFMAP_STACKS;

		f = open_memstream(&out, &olen);
		if (!f)
			return -ENOMEM;
		memcpy(&h, o->data, sizeof(h));	/* ts, counts, flags as they were */
		fwrite(&h, sizeof(h), 1, f);
		fwrite(m.name, 1, m.name_len, f);
		fflush(f);
		tstart = olen;
		while (fmt_bpfmap_next(&m, &pos, &k, &kl, &v, &vl)) {
			bpfmap_json(c, f, k, kl, stacks, klong);
			fputc('\t', f);
			bpfmap_json(c, f, v, vl, stacks, klong);
			fputc('\n', f);
		}
		if (fclose(f) || !out) {
			free(out);
			return -ENOMEM;
		}
		f = NULL;
		/* the text's new length, into the header written above */
		h.text_len = (uint32_t)(olen - tstart);
		if (swap)
			h.text_len = __builtin_bswap32(h.text_len);
		memcpy(out + offsetof(struct fmt_bpfmap_hdr, text_len), &h.text_len,
		       sizeof(h.text_len));
	} else {
		c->n.dropped++;		/* damaged: left out, as convert does */
		return 0;
	}
	if (f && (fclose(f) || !out)) {
		free(out);
		return -ENOMEM;
	}
	err = olen < UINT32_MAX ? fmt_writer_option(w, o->id, out, (uint32_t)olen) : -EOVERFLOW;
	free(out);
	return err;
}

int rpt_red_write_bpfobjs(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w)
{
	const struct fmt_info *in = fmt_reader_info(r);
	int err = 0;

	for (int i = 0; i < in->noptions && !err; i++)
		if (in->options[i].id == FMT_OPT_FT_BPFOBJ || in->options[i].id == FMT_OPT_FT_BPFMAP)
			err = bpfobj_option(c, r, w, &in->options[i]);
	return err;
}

/* A section an option points at, redacted, written anew, and the option queued. */
static int section_option(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w,
			  const struct fmt_option *o, uint16_t sec)
{
	void *data = NULL, *nd = NULL;
	size_t len = 0, nl = 0;
	uint64_t noff = 0;
	uint8_t ptr[8];
	int err;

	if (o->size != 8)
		return 0;
	err = fmt_reader_section(r, get_u64(o->data, c->big_endian), sec, &data, &len);
	if (err) {
		c->n.dropped++;	/* unreadable: left out, as convert does */
		return 0;
	}
	if (sec == FMT_SEC_FT_SYMTAB) {
		nd = symtab_redact(c, data, len, &nl);
	} else {
		unsigned long left = 0;

		nd = by_line(c, data, len, ftmaps_line, &left, &nl);
	}
	free(data);
	if (!nd) {
		c->n.dropped++;
		return 0;
	}
	err = fmt_writer_section(w, sec, NULL, nd, nl, &noff);
	free(nd);
	for (int k = 0; !err && k < 8; k++)
		ptr[c->big_endian ? 7 - k : k] = (uint8_t)(noff >> (8 * k));
	return err ? err : fmt_writer_option(w, o->id, ptr, 8);
}

static int text_option(struct rpt_red_ctx *c, struct fmt_writer *w, const struct fmt_option *o)
{
	const char *s = o->data;
	size_t n = o->size, nl = 0;
	unsigned long left = 0;
	char *t;
	int err;

	if (o->id == FMT_OPT_UNAME)
		t = uname_text(c, s, n, &nl);
	else if (o->id == FMT_OPT_PROCMAPS)
		t = by_line(c, s, n, procmaps_line, &left, &nl);
	else if (o->id == FMT_OPT_FT_BUILDIDS)
		t = by_line(c, s, n, buildid_line, NULL, &nl);
	else
		t = by_line(c, s, n, meta_line, NULL, &nl);
	if (!t)
		return -ENOMEM;
	err = nl < UINT32_MAX ? fmt_writer_option(w, o->id, t, (uint32_t)nl + 1) : -EOVERFLOW;
	free(t);
	return err;
}

int rpt_red_write_meta(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w,
		       const char **what)
{
	const struct fmt_info *in = fmt_reader_info(r);
	size_t nl = 0;
	char *cl;
	int err;

	*what = "cmdlines";
	cl = by_line(c, in->cmdlines.data ? in->cmdlines.data : "", in->cmdlines.len, cmdline_line,
		     NULL, &nl);
	if (!cl)
		return -ENOMEM;
	err = fmt_writer_cmdlines(w, cl, nl);
	free(cl);
	*what = "options";
	for (int i = 0; i < in->noptions && !err; i++) {
		const struct fmt_option *o = &in->options[i];

		switch (o->id) {
		case FMT_OPT_FT_SYMTAB:
			err = section_option(c, r, w, o, FMT_SEC_FT_SYMTAB);
			break;
		case FMT_OPT_FT_PROCMAPS:
			err = section_option(c, r, w, o, FMT_SEC_FT_PROCMAPS);
			break;
		case FMT_OPT_UNAME:
		case FMT_OPT_PROCMAPS:
		case FMT_OPT_FT_META:
		case FMT_OPT_FT_BUILDIDS:
		case FMT_OPT_FT_SLICE:
		case FMT_OPT_FT_MERGE:
			err = text_option(c, w, o);
			break;
		case FMT_OPT_GUEST:
			c->n.dropped++;	/* a guest's name, in a binary layout */
			break;
		default:
			break;
		}
	}
	return err;
}

/* ---- kernel symbols and printk formats -------------------------------------------- */

struct ksym_rest {
	uint64_t addr;
	const char *rest;	/* " T name [mod]" */
	size_t len;
};

static struct ksym_rest *parse_ksyms(const char *text, size_t len, size_t *count)
{
	const char *p = text, *end = text + len;
	struct ksym_rest *v = NULL;
	size_t n = 0, cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		char *q;
		uint64_t a = strtoull(p, &q, 16);

		if (q > p && q < le && *q == ' ') {
			if (n == cap) {
				struct ksym_rest *nv =
					realloc(v, (cap = cap ? cap * 2 : 4096) * sizeof(*v));

				if (!nv) {
					free(v);
					return NULL;
				}
				v = nv;
			}
			v[n++] = (struct ksym_rest){ a, q, (size_t)(le - q) };
		}
		p = nl ? nl + 1 : end;
	}
	*count = n;
	return v ? v : calloc(1, sizeof(*v));
}

/*
 * _text (or _stext); a file whose kallsyms were cut without it takes the
 * 2 MiB boundary below its lowest kernel text symbol: offsets from it say
 * nothing of the KASLR offset.  Addresses of 0 (kallsyms read without the right to
 * see them) are no base.
 */
bool rpt_red_text_base(const char *text, size_t len, uint64_t *base, char *name, size_t cap)
{
	static const char *const names[] = { "_text", "_stext" };
	size_t n = 0;
	struct ksym_rest *v = parse_ksyms(text, len, &n), *low = NULL, *named[2] = { NULL, NULL };

	for (size_t i = 0; v && i < n; i++) {
		const char *r = v[i].rest;

		if (!v[i].addr || v[i].len < 4 || (r[1] != 'T' && r[1] != 't') ||
		    !rpt_red_is_kaddr(v[i].addr, v[i].addr >> 32 ? 8 : 4))
			continue;
		for (int k = 0; k < 2; k++) {
			size_t l = strlen(names[k]);

			if (!named[k] && v[i].len >= l + 3 && !memcmp(r + 3, names[k], l) &&
			    (v[i].len == l + 3 || isspace((unsigned char)r[l + 3])))
				named[k] = &v[i];
		}
		if (!low || v[i].addr < low->addr)
			low = &v[i];
	}
	if (named[0] || named[1]) {
		int k = named[0] ? 0 : 1;

		*base = named[k]->addr;
		snprintf(name, cap, "%s", names[k]);
	} else if (low) {
		/*
		 * KASLR moves the kernel by multiples of 2 MiB: from the 2 MiB
		 * boundary below it, no address is 0 (which reads as none) and
		 * the offsets are those of every boot.
		 */
		*base = low->addr & ~(uint64_t)0x1fffff;
		snprintf(name, cap, "%.*s", (int)strcspn(low->rest + 3, " \t\n"), low->rest + 3);
	}
	free(v);
	return named[0] || named[1] || low;
}

bool rpt_red_relative_input(const char *meta, const char *text, size_t len, char *name,
			    size_t cap)
{
	static const char rel[] = "relative to ";
	const size_t rl = sizeof(rel) - 1;
	size_t n = 0;
	struct ksym_rest *v;
	bool at0 = false, high = false, nonzero = false;

	if (meta && !strncmp(meta, rel, rl) && meta[rl] && meta[rl] != ' ') {
		snprintf(name, cap, "%.*s", (int)strcspn(meta + rl, " \n"), meta + rl);
		return true;
	}
	/* a redacted file whose metadata was lost: its base at 0, nothing in the upper half */
	v = parse_ksyms(text, len, &n);
	for (size_t i = 0; v && i < n; i++) {
		const char *r = v[i].rest;

		high |= v[i].addr >= (1ULL << 32);
		/* kallsyms read without the right to see them are all 0: no base */
		nonzero |= v[i].addr != 0;
		if (!at0 && !v[i].addr && v[i].len > 3 && (r[1] == 'T' || r[1] == 't')) {
			size_t wl = 0;

			while (3 + wl < v[i].len && !isspace((unsigned char)r[3 + wl]))
				wl++;
			if ((wl == 5 && !memcmp(r + 3, "_text", 5)) ||
			    (wl == 6 && !memcmp(r + 3, "_stext", 6))) {
				at0 = true;
				snprintf(name, cap, "%.*s", (int)wl, r + 3);
			}
		}
	}
	free(v);
	return at0 && !high && nonzero;
}

/*
 * The symbols the events use (the addresses rpt_red_kaddr met, as slice
 * keeps them: convert.c), the base, or all of them with --keep-kallsyms;
 * relative addresses written less the base.
 */
int rpt_red_write_kallsyms(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w)
{
	const struct fmt_info *in = fmt_reader_info(r);
	const char *text = in->kallsyms.data ? in->kallsyms.data : "";
	size_t olen = 0, kept = 0;
	char *out;
	int err;

	/* kept whole: asked for, or no base to tell real addresses (all 0) from none */
	if (c->kaddr == RED_KEEP && (c->keep_kallsyms || !c->base_name[0]))
		return fmt_writer_kallsyms(w, text, in->kallsyms.len);
	if (!c->ksyms)
		return -ENOMEM;
	c->n.ksyms_in = rpt_ksyms_keep_total(c->ksyms);
	if (c->kaddr == RED_DROP)
		return fmt_writer_kallsyms(w, "", 0);
	if (c->keep_kallsyms)
		rpt_ksyms_keep_every(c->ksyms);
	rpt_ksyms_keep_name(c->ksyms, c->text_base, c->base_name);
	out = rpt_ksyms_keep_text(c->ksyms, c->kaddr == RED_RELATIVE ? c->text_base : 0, &olen,
				  &kept);
	if (!out)
		return -ENOMEM;
	c->n.ksyms_out = kept;
	err = fmt_writer_kallsyms(w, out, olen);
	free(out);
	return err;
}

char *rpt_red_printk(struct rpt_red_ctx *c, const char *text, size_t len, size_t *olen)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, olen);
	const char *p = text, *end = text + len;

	if (!f)
		return NULL;
	while (p < end && c->kaddr != RED_DROP) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		char *q;
		uint64_t a = strtoull(p, &q, 16);

		if (c->kaddr == RED_RELATIVE && q > p && rpt_red_is_kaddr(a, 8)) {
			fprintf(f, "0x%llx%.*s\n", (unsigned long long)(a - c->text_base),
				(int)(le - q), q);
		} else {
			fprintf(f, "%.*s\n", (int)(le - p), p);
		}
		p = nl ? nl + 1 : end;
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- the check of the output's metadata ------------------------------------------- */

static bool replaced_word(struct rpt_red_ctx *c, const char *s, size_t n, char **found,
			  const char *where)
{
	if (!n || !rpt_red_was_replaced(c->t, s, n))
		return false;
	if (asprintf(found, "'%.*s' in %s", (int)n, s, where) < 0)
		*found = strdup(where);
	return true;
}

/*
 * Each line of a text as a decoded value can be: the whole line, what
 * follows each space or '=' (a comm after its pid, a value after its key,
 * a path at the end of a maps line) and what precedes each space (a path
 * before its build-id).
 */
static char *check_text(struct rpt_red_ctx *c, const char *text, size_t len, const char *where)
{
	const char *p = text, *end = text + len;
	char *found = NULL;

	while (p < end && !found) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		size_t n = (size_t)(le - p);

		while (n && p[n - 1] == '\0')
			n--;
		replaced_word(c, p, n, &found, where);
		for (size_t i = 0; i < n && !found; i++)
			if (p[i] == ' ' || p[i] == '=')
				if (!replaced_word(c, p + i + 1, n - i - 1, &found, where) &&
				    p[i] == ' ')
					replaced_word(c, p, i, &found, where);
		p = nl ? nl + 1 : end;
	}
	return found;
}

char *rpt_red_check_meta(struct rpt_red_ctx *c, struct fmt_reader *r)
{
	const struct fmt_info *in = fmt_reader_info(r);
	char *found = check_text(c, in->cmdlines.data ? in->cmdlines.data : "", in->cmdlines.len,
				 "the cmdlines");

	for (int i = 0; i < in->noptions && !found; i++) {
		const struct fmt_option *o = &in->options[i];
		char where[64];

		snprintf(where, sizeof(where), "option %#x", o->id);
		if (o->id == FMT_OPT_FT_PROCMAPS && o->size == 8) {
			void *data = NULL;
			size_t len = 0;

			if (!fmt_reader_section(r, get_u64(o->data, in->big_endian),
						FMT_SEC_FT_PROCMAPS, &data, &len))
				found = check_text(c, data, len, "the maps section");
			free(data);
		} else if (rpt_red_skip_option(NULL, o) && o->size &&
			   memchr(o->data, '\0', o->size) == (const char *)o->data + o->size - 1) {
			found = check_text(c, o->data, o->size - 1, where);
		}
	}
	return found;
}
