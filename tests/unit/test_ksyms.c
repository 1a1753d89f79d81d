// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader's kallsyms table (format/reader_ksyms.c) against the one it
 * replaces, libtraceevent's tep_parse_kallsyms(): the same name, start and
 * module for every address a test can think of (each symbol's address, one
 * past it, one before it, between symbols, below the first, above the
 * last) on texts with the library's odd corners (duplicate addresses,
 * modules, 'A' and '$' symbols, blank lines, CRLF, leading blanks, long
 * addresses, a line that does not parse, a NUL inside) and on this
 * machine's /proc/kallsyms when it can be read.  Then the laziness itself:
 * a shipped recording opens without parsing its kallsyms, the first
 * lookup parses it once, and the listing's -f still sees every function.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/format.h"
#include "format/internal.h"
#include "check.h"

static const char *texts[] = {
	"ffffffff81000000 T _stext\n"
	"ffffffff81000010 t dup_a\n"
	"ffffffff81000010 t dup_b\n"
	"ffffffff81000010 W dup_c\n"
	"ffffffff81000100 T after_dup\n"
	"0000000000001000 A fixed_percpu_data\n"
	"ffffffff81000200 a abs_local\n"
	"ffffffff81000300 t $x.1\n"
	"ffffffffc0001000 t mod_fn\t[nvme]\n"
	"ffffffffc0001100 t mod_fn2\t[ext4]\n"
	"ffffffffc0001200 t sp_mod [notatab]\n"
	"ffffffffc0001300 t empty_mod\t[\n"
	"ffffffffc0001400 t one_mod\t[x\n"
	"ffffffffc0001500 t blank_mod\t[ y]\n"
	"\n\n"
	"   ffffffff82000000 T leading_blanks\n"
	"ffffffff82000100 T crlf_name\r\n"
	"0xffffffff82000200 T hex_prefix\n"
	"ffffffff820003001 T seventeen_digits\n"
	"ffffffff82000400 T last_one\n",

	/* a line that does not parse ends the table; the lines before it stay */
	"ffffffff81000000 T first\n"
	"ffffffff81000100 T second\n"
	"garbage line\n"
	"ffffffff81000200 T never_seen\n",

	/* a type but no name */
	"ffffffff81000000 T first\n"
	"ffffffff81000100 T\n"
	"ffffffff81000200 T never_seen\n",

	/* zeroed addresses (kallsyms read without permission) */
	"0000000000000000 T a\n"
	"0000000000000000 T b\n"
	"0000000000000000 t c\t[m]\n",

	/* no newline at the end, one symbol */
	"ffffffff81000000 T only",

	"",
};

static size_t nprobes;

/* one address through both tables */
static void probe(struct tep_handle *tep, struct fmt_ksyms *k, uint64_t addr, const char *what)
{
	const char *want = NULL, *got, *gmod = NULL;
	unsigned long long wstart = 0;
	uint64_t gstart = 0;

	nprobes++;
	if (!tep_find_function_info(tep, addr, &want, &wstart, NULL))
		want = NULL;
	got = fmt_ksyms_find(k, addr, &gstart, &gmod);
	if (!want || !got) {
		CHECK(!want && !got, "%s %#llx: library %s, reader %s", what,
		      (unsigned long long)addr, want ? want : "(none)", got ? got : "(none)");
		return;
	}
	CHECK(!strcmp(want, got) && wstart == gstart, "%s %#llx: library %s@%#llx, reader %s@%#llx",
	      what, (unsigned long long)addr, want, wstart, got, (unsigned long long)gstart);
}

/* the addresses of text's lines, and their neighbours */
static void compare(const char *text, size_t len, const char *what)
{
	struct tep_handle *tep = tep_alloc();
	struct fmt_ksyms *k = fmt_ksyms_new(text, len);
	const char *p = text, *end = text + strnlen(text, len);
	uint64_t edges[] = { 0, 1, 0xfff, 0x1000, 0x1001, ~0ULL, ~0ULL - 1 };
	size_t i;

	if (!tep || !k) {
		CHECK(0, "out of memory");
		return;
	}
	tep_set_loglevel(TEP_LOG_NONE);
	tep_parse_kallsyms(tep, text);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		probe(tep, k, edges[i], what);
	while (p < end) {
		char *e;
		uint64_t a = strtoull(p, &e, 16);
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (e != p) {
			probe(tep, k, a, what);
			probe(tep, k, a + 1, what);
			probe(tep, k, a - 1, what);
			probe(tep, k, a + 0x80, what);
		}
		p = nl ? nl + 1 : end;
	}
	/* modules, through libtraceevent's own table */
	if (len) {
		const char *mod = NULL;

		if (fmt_ksyms_find(k, 0xffffffffc0001000ULL, NULL, &mod) && mod)
			CHECK(!strcmp(mod, "nvme"), "%s: module %s", what, mod);
	}
	CHECK(fmt_ksyms_parses(k) == (len ? 1 : 0) || !strnlen(text, len),
	      "%s: parsed %llu times", what, (unsigned long long)fmt_ksyms_parses(k));
	fmt_ksyms_free(k);
	tep_free(tep);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap + 1);
		if (!buf)
			break;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* a recording opens without parsing its kallsyms; lookups parse it once */
static void lazy(void)
{
	struct fmt_reader *r = NULL;
	char *err = NULL;
	uint64_t start = 0;
	const char *name, *p;
	struct tep_handle *tep;
	const struct fmt_blob *ks;
	uint64_t addr;
	int i;

	if (fmt_reader_open("tests/data/sample.dat", FMT_OPEN_LAZY_FORMATS, &r, &err)) {
		CHECK(0, "cannot open sample.dat: %s", err ? err : "?");
		free(err);
		return;
	}
	CHECK(fmt_reader_ksym_parses(r) == 0, "kallsyms parsed at open");
	ks = &fmt_reader_info(r)->kallsyms;
	CHECK(ks->len > 100000, "sample.dat has no full kallsyms");
	/* an address inside the symbol on the text's 1000th line */
	for (i = 0, p = ks->data; p && i < 1000; i++) {
		p = memchr(p, '\n', ks->len - (size_t)(p - ks->data));
		if (p)
			p++;
	}
	addr = p ? strtoull(p, NULL, 16) + 1 : 0;
	name = fmt_reader_ksym(r, addr, &start);
	CHECK(fmt_reader_ksym_parses(r) == 1, "kallsyms not parsed by a lookup");
	tep = fmt_reader_tep(r);
	CHECK(name && tep_find_function(tep, addr) == name,
	      "the reader's answer and libtraceevent's differ");
	(void)fmt_reader_ksym(r, addr + 64, NULL);
	CHECK(fmt_reader_ksym_parses(r) == 1, "kallsyms parsed twice");
	CHECK(fmt_reader_tep_funcs(r) == 0, "fmt_reader_tep_funcs failed");
	name = tep_find_function(tep, addr);
	CHECK(name && start == tep_find_function_address(tep, addr),
	      "libtraceevent's own table after fmt_reader_tep_funcs differs");
	fmt_reader_close(r);
}

int main(void)
{
	size_t i, len;
	char *sys;
	static const char nul_inside[] = "ffffffff81000000 T a\n\0ffffffff81000100 T b\n";

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char what[32];

		snprintf(what, sizeof(what), "text %zu", i);
		compare(texts[i], strlen(texts[i]), what);
	}
	compare(nul_inside, sizeof(nul_inside) - 1, "NUL inside");
	sys = slurp("/proc/kallsyms", &len);
	if (sys && len)
		compare(sys, len, "/proc/kallsyms");
	free(sys);
	lazy();
	printf("%zu addresses compared\n", nprobes);
	return check_summary();
}
