// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file's kernel symbols (its kallsyms text), parsed on the first
 * lookup instead of at open.
 *
 * libtraceevent's tep_parse_kallsyms() runs sscanf() and two strdup()s per
 * line, and tep_free() frees them again: on a full kallsyms (~200k lines)
 * that was most of what any command paid before its first event, whether
 * or not it ever named a kernel address.  Here the text is copied once, the
 * names are cut in place (NUL-terminated in the copy) and an array of
 * {address, name, module} sorted once by address stands in for the
 * library's table.  The reader hands it to libtraceevent as its function
 * resolver (tep_set_function_resolver), so %pS, the function plugins and
 * tep_find_function*() all see it.
 *
 * Byte-identical output needs the same answers as the library's table,
 * including its odd corners, which this file reproduces on purpose:
 *  - a line is cut as "%16llx %c %n%*s%n%*1[\t][%n%*s%n" would: an address
 *    of at most 16 characters, the type, the name up to white space, and a
 *    module only after one tab and '[' (its last character dropped);
 *  - the first line that does not parse ends the table (those before it
 *    stay), as does a NUL in the text (the library copies it with strdup);
 *  - type 'A'/'a' and names starting with '$' are left out;
 *  - symbols at one address sort later-line-first (the library prepends to
 *    a list, then sorts it with glibc's stable merge sort);
 *  - a lookup is glibc's bsearch() with the library's comparison: an
 *    address matches a symbol at it or one below the next symbol's, and
 *    the last symbol matches only its own address.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal.h"

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset of the NUL-terminated name in buf */
	uint32_t mod;		/* offset of the module name; 0: none */
};

struct fmt_ksyms {
	pthread_mutex_t lock;
	int ready;		/* parsed (atomic: lookups come from several threads) */
	int have_text;		/* text fetched (atomic, likewise) */
	fmt_ksyms_text_fn fetch; /* gives the text on first use; NULL: text given */
	void *fetch_arg;
	const char *text;	/* the reader's kallsyms text, len bytes */
	size_t len;
	char *buf;		/* one copy of the text, names cut in place */
	struct ksym *sym;
	size_t n;
	uint64_t parses;	/* how many times the text was parsed (tests) */
};

static bool ks_space(char c)
{
	return isspace((unsigned char)c);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "%16llx": white space, then at most 16 characters of sign, 0x and digits */
static bool scan_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	int width = 16, digits = 0;
	bool neg = false;
	uint64_t v = 0;

	while (*p && ks_space(*p))
		p++;
	if (*p == '+' || *p == '-') {
		neg = *p == '-';
		p++;
		width--;
	}
	if (width > 0 && *p == '0') {
		p++;
		width--;
		digits++;
		if (width > 0 && (*p == 'x' || *p == 'X')) {
			p++;
			width--;
		}
	}
	while (width > 0 && hexval(*p) >= 0) {
		v = v << 4 | (uint64_t)hexval(*p);
		p++;
		width--;
		digits++;
	}
	if (!digits)
		return false;
	*out = neg ? -v : v;
	*pp = p;
	return true;
}

/*
 * One line (NUL-terminated in buf): false when it ends the table.  A
 * symbol kept is appended to k->sym (room for it is there).
 */
static bool parse_line(struct fmt_ksyms *k, char *line)
{
	const char *p = line;
	char *func, *func_end, *mod = NULL, *mod_end = NULL;
	uint64_t addr;
	char type;

	if (!scan_hex(&p, &addr))
		return false;
	while (*p && ks_space(*p))
		p++;
	if (!*p)
		return false;
	type = *p++;
	while (*p && ks_space(*p))
		p++;
	func = (char *)p;
	while (*p && !ks_space(*p))
		p++;
	if (p == func)
		return false;
	func_end = (char *)p;
	if (p[0] == '\t' && p[1] == '[') {
		const char *q;

		mod = (char *)p + 2;
		q = mod;
		while (*q && ks_space(*q))
			q++;
		if (*q) {
			while (*q && !ks_space(*q))
				q++;
			mod_end = (char *)q;
		}
	}
	if (func[0] == '$' || type == 'A' || type == 'a')
		return true;
	*func_end = '\0';
	if (mod_end)
		mod_end[-1] = '\0';
	k->sym[k->n++] = (struct ksym){
		.addr = addr,
		.name = (uint32_t)(func - k->buf),
		.mod = mod_end ? (uint32_t)(mod - k->buf) : 0,
	};
	return true;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* the later line first, as the library's list and stable sort leave them */
	return x->name > y->name ? -1 : x->name < y->name;
}

static void parse(struct fmt_ksyms *k)
{
	size_t len = k->text ? strnlen(k->text, k->len) : 0, lines = 1, i;
	char *p, *end;

	k->parses++;
	/* offsets are 32-bit: a text of 4 GiB or more is not a kallsyms */
	if (!len || len >= UINT32_MAX)
		return;
	for (i = 0; i < len; i++)
		lines += k->text[i] == '\n';
	k->buf = malloc(len + 1);
	k->sym = malloc(lines * sizeof(*k->sym));
	if (!k->buf || !k->sym) {
		free(k->buf);
		free(k->sym);
		k->buf = NULL;
		k->sym = NULL;
		return;
	}
	memcpy(k->buf, k->text, len);
	k->buf[len] = '\0';
	end = k->buf + len;
	for (p = k->buf; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		*nl = '\0';
		if (nl > p && !parse_line(k, p))
			break;
		p = nl + 1;
	}
	qsort(k->sym, k->n, sizeof(*k->sym), cmp_ksym);
}

/* under k->lock */
static void fetch_text(struct fmt_ksyms *k)
{
	if (k->have_text)
		return;
	if (k->fetch && k->fetch(k->fetch_arg, &k->text, &k->len)) {
		k->text = NULL;
		k->len = 0;
	}
	__atomic_store_n(&k->have_text, 1, __ATOMIC_RELEASE);
}

void fmt_ksyms_text(struct fmt_ksyms *k)
{
	if (!k || __atomic_load_n(&k->have_text, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&k->lock);
	fetch_text(k);
	pthread_mutex_unlock(&k->lock);
}

static void ensure(struct fmt_ksyms *k)
{
	if (__atomic_load_n(&k->ready, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&k->lock);
	fetch_text(k);
	if (!k->ready) {
		parse(k);
		__atomic_store_n(&k->ready, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&k->lock);
}

static const struct ksym *lookup(struct fmt_ksyms *k, uint64_t addr)
{
	size_t l = 0, u = k->n;

	while (l < u) {
		size_t i = (l + u) / 2;
		uint64_t a = k->sym[i].addr;
		uint64_t next = i + 1 < k->n ? k->sym[i + 1].addr : 0;

		if (addr == a || (addr > a && addr < next))
			return &k->sym[i];
		if (addr < a)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
}

struct fmt_ksyms *fmt_ksyms_new(const char *text, size_t len)
{
	struct fmt_ksyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	pthread_mutex_init(&k->lock, NULL);
	k->text = text;
	k->len = len;
	k->have_text = 1;
	return k;
}

struct fmt_ksyms *fmt_ksyms_new_lazy(fmt_ksyms_text_fn fetch, void *arg)
{
	struct fmt_ksyms *k = fmt_ksyms_new(NULL, 0);

	if (!k)
		return NULL;
	k->have_text = 0;
	k->fetch = fetch;
	k->fetch_arg = arg;
	return k;
}

void fmt_ksyms_free(struct fmt_ksyms *k)
{
	if (!k)
		return;
	pthread_mutex_destroy(&k->lock);
	free(k->buf);
	free(k->sym);
	free(k);
}

const char *fmt_ksyms_find(struct fmt_ksyms *k, uint64_t addr, uint64_t *start,
			   const char **mod)
{
	const struct ksym *s;

	if (!k)
		return NULL;
	ensure(k);
	s = lookup(k, addr);
	if (!s)
		return NULL;
	if (start)
		*start = s->addr;
	if (mod)
		*mod = s->mod ? k->buf + s->mod : NULL;
	return k->buf + s->name;
}

uint64_t fmt_ksyms_parses(const struct fmt_ksyms *k)
{
	return k ? __atomic_load_n(&k->parses, __ATOMIC_RELAXED) : 0;
}

/* tep_func_resolver_t: libtraceevent's lookups, answered from k */
char *fmt_ksyms_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	uint64_t start = 0;
	const char *mod = NULL;
	const char *name = fmt_ksyms_find(priv, *addrp, &start, &mod);

	if (!name)
		return NULL;
	*addrp = start;
	*modp = (char *)mod;
	return (char *)name;
}
