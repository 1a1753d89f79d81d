// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_dump FILE [--no-events]: what the BPF live tests check, printed as
 * simple lines from a trace.dat, read with format/ only (no tracefs, no
 * access to the traced binaries), so it also shows that the file alone is
 * enough:
 *
 *   ev NAME TS CPU PID k=v ...	every flytrap:* event (integer fields, strings and
 *				NAME_stale=1 for bytes after a string's NUL), user
 *				stacks symbolized from the file as
 *				usyms=f1;f2;... (innermost first)
 *   ft NAME TS CPU PID		every other event (to check interleaving)
 *   drop TS CPU PROG COUNT	FMT_OPT_FT_BPF_DROPS windows
 *   meta KEY=VALUE		FMT_OPT_FT_META lines
 *   recstat KEY=VALUE		FMT_OPT_FT_RECSTATS lines (the recorder's own cost)
 *   buildid PATH HEX		FMT_OPT_FT_BUILDIDS lines
 *   map PID START-END OFF PATH	executable mappings (FMT_SEC_FT_PROCMAPS)
 *   symtab PATH NSYMS NLOADS	FMT_SEC_FT_SYMTAB entries (layout checked)
 *   error TEXT			anything malformed (exit status 1)
 *
 * It is also the reference reader of the SYMTAB and PROCMAPS layouts
 * documented in docs/bpf.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct load { uint64_t vaddr, memsz, offset, filesz; };
struct sym { uint64_t addr, size; uint32_t name; };
struct bin {
	char path[4096];
	const struct load *loads;
	const uint8_t *syms;	/* 24-byte entries */
	const char *str;
	uint32_t nloads, nsyms, strsz;
};
struct map { int pid; uint64_t start, end, off; char path[512]; };

static struct bin *bins;
static int nbins;
static struct map *maps;
static int nmaps;
static int errors;
static void *symtab_data;

static void error(const char *what)
{
	printf("error %s\n", what);
	errors++;
}

static int parse_symtab(const uint8_t *p, size_t len)
{
	uint32_t nbin, i;
	size_t off = 16;

	if (len < 16 || memcmp(p, "FTSYMS1", 8)) {
		error("symtab: bad magic");
		return -1;
	}
	memcpy(&nbin, p + 8, 4);
	bins = calloc(nbin ? nbin : 1, sizeof(*bins));
	for (i = 0; i < nbin; i++) {
		uint32_t rs, nl, ns, ss;
		uint16_t pl;
		uint8_t bl;
		size_t q;
		struct bin *b = &bins[nbins];

		if (len - off < 24) {
			error("symtab: truncated entry header");
			return -1;
		}
		memcpy(&rs, p + off, 4);
		memcpy(&pl, p + off + 4, 2);
		bl = p[off + 6];
		memcpy(&nl, p + off + 8, 4);
		memcpy(&ns, p + off + 12, 4);
		memcpy(&ss, p + off + 16, 4);
		if (rs % 8 || rs > len - off || rs < 24) {
			error("symtab: bad entry size");
			return -1;
		}
		q = 24 + pl + bl;
		q = (q + 7) & ~(size_t)7;
		if (q + (uint64_t)nl * 32 + (uint64_t)ns * 24 + ss > rs || pl >= sizeof(b->path)) {
			error("symtab: entry contents exceed its size");
			return -1;
		}
		memcpy(b->path, p + off + 24, pl);
		b->path[pl] = 0;
		b->loads = (const struct load *)(p + off + q);
		b->syms = p + off + q + nl * 32;
		b->str = (const char *)(p + off + q + nl * 32 + (size_t)ns * 24);
		b->nloads = nl;
		b->nsyms = ns;
		b->strsz = ss;
		if (ss && b->str[ss - 1]) {
			error("symtab: string table not terminated");
			return -1;
		}
		printf("symtab %s %u %u\n", b->path, ns, nl);
		nbins++;
		off += rs;
	}
	return 0;
}

static void parse_procmaps(const char *t, size_t len)
{
	const char *end = t + len;
	int pid = -1;

	while (t < end) {
		const char *nl = memchr(t, '\n', end - t);
		char line[1024];
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
		unsigned long long s, e, o;
		int pos = 0;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, t, n);
		line[n] = 0;
		t += n + 1;
		if (!strncmp(line, "== ", 3)) {
			pid = atoi(line + 3);
			continue;
		}
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &o, &pos) >= 3 && pos) {
			struct map *m;

			maps = realloc(maps, (nmaps + 1) * sizeof(*maps));
			m = &maps[nmaps++];
			m->pid = pid;
			m->start = s;
			m->end = e;
			m->off = o;
			snprintf(m->path, sizeof(m->path), "%s", line + pos);
			n = strlen(m->path);
			if (n > 10 && !strcmp(m->path + n - 10, " (deleted)"))
				m->path[n - 10] = 0;
			printf("map %d %llx-%llx %llx %s\n", pid, s, e, o, m->path);
		}
	}
}

/* Address of process tgid -> "function" (or "?"), from the file alone. */
static const char *symbolize(int tgid, uint64_t addr)
{
	int i, j;
	uint32_t k;

	for (i = 0; i < nmaps; i++) {
		struct map *m = &maps[i];
		uint64_t foff;

		if (m->pid != tgid || addr < m->start || addr >= m->end)
			continue;
		foff = addr - m->start + m->off;
		for (j = 0; j < nbins; j++) {
			struct bin *b = &bins[j];

			if (strcmp(b->path, m->path))
				continue;
			for (k = 0; k < b->nloads; k++) {
				struct load l;
				uint64_t va;
				const char *best = NULL;
				uint32_t s;

				memcpy(&l, &b->loads[k], sizeof(l));
				if (foff < l.offset || foff >= l.offset + l.filesz)
					continue;
				va = foff - l.offset + l.vaddr;
				for (s = 0; s < b->nsyms; s++) {
					uint64_t sa, sz;
					uint32_t no;

					memcpy(&sa, b->syms + s * 24, 8);
					memcpy(&sz, b->syms + s * 24 + 8, 8);
					memcpy(&no, b->syms + s * 24 + 16, 4);
					if (sa > va)
						break;	/* sorted by address */
					if (va < sa + (sz ? sz : 1) && no < b->strsz)
						best = b->str + no;
				}
				return best ? best : "?";
			}
		}
		return "?";
	}
	return "?";
}

int main(int argc, char **argv)
{
	const struct fmt_option *o;
	struct fmt_reader *r;
	struct fmt_iter *it;
	const struct fmt_event *ev;
	char *err = NULL;
	int n, ret, no_events = argc > 2 && !strcmp(argv[2], "--no-events");

	if (argc < 2)
		return 2;
	ret = fmt_reader_open(argv[1], 0, &r, &err);
	if (ret) {
		fprintf(stderr, "bpf_dump: %s\n", err ? err : strerror(-ret));
		return 1;
	}
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_META, n)); n++) {
		const char *t = o->data, *e = t + o->size;

		while (t < e && *t) {
			const char *nl = memchr(t, '\n', e - t);
			int l = nl ? nl - t : (int)strnlen(t, e - t);

			printf("meta %.*s\n", l, t);
			t += l + 1;
		}
	}
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_RECSTATS, n)); n++) {
		const char *t = o->data, *e = t + o->size;

		while (t < e && *t) {
			const char *nl = memchr(t, '\n', e - t);
			int l = nl ? nl - t : (int)strnlen(t, e - t);

			printf("recstat %.*s\n", l, t);
			t += l + 1;
		}
	}
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPF_DROPS, n)); n++) {
		const struct fmt_bpf_drop *d = o->data;
		uint32_t i;

		if (o->size % sizeof(*d))
			error("drops option size is not a multiple of the record");
		for (i = 0; i < o->size / sizeof(*d); i++) {
			struct fmt_bpf_drop x;

			memcpy(&x, d + i, sizeof(x));
			printf("drop %" PRIu64 " %u %u %" PRIu64 "\n", x.ts, x.cpu, x.prog, x.count);
		}
	}
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BUILDIDS, n)); n++) {
		const char *t = o->data, *e = t + o->size;

		while (t < e && *t) {
			const char *nl = memchr(t, '\n', e - t);
			int l = nl ? nl - t : (int)strnlen(t, e - t);

			printf("buildid %.*s\n", l, t);
			t += l + 1;
		}
	}
	o = fmt_reader_option(r, FMT_OPT_FT_PROCMAPS, 0);
	if (o && o->size == 8) {
		uint64_t off;
		void *data;
		size_t len;

		memcpy(&off, o->data, 8);
		if (fmt_reader_section(r, off, FMT_SEC_FT_PROCMAPS, &data, &len)) {
			error("cannot read the procmaps section");
		} else {
			parse_procmaps(data, len);
			free(data);
		}
	}
	o = fmt_reader_option(r, FMT_OPT_FT_SYMTAB, 0);
	if (o && o->size == 8) {
		uint64_t off;
		size_t len;

		memcpy(&off, o->data, 8);
		if (fmt_reader_section(r, off, FMT_SEC_FT_SYMTAB, &symtab_data, &len))
			error("cannot read the symtab section");
		else
			parse_symtab(symtab_data, len);	/* bins point into symtab_data */
	}
	if (no_events)
		goto out;
	ret = fmt_iter_new(r, NULL, &it);
	if (ret) {
		error("cannot iterate");
		goto out;
	}
	while ((ret = fmt_iter_next(it, &ev)) > 0) {
		struct tep_format_field *f;
		int pid = 0;
		struct fmt_field pf;

		if (!ev->event) {
			printf("ft UNKNOWN %" PRIu64 " %d 0\n", (uint64_t)ev->rec.ts, ev->rec.cpu);
			continue;
		}
		if (!fmt_field_resolve(ev->event, "common_pid", &pf))
			pid = (int)fmt_field_u64(&pf, ev->rec.data, ev->rec.size);
		if (strcmp(ev->event->system, "flytrap")) {
			printf("ft %s %" PRIu64 " %d %d\n", ev->event->name, (uint64_t)ev->rec.ts,
			       ev->rec.cpu, pid);
			continue;
		}
		printf("ev %s %" PRIu64 " %d %d", ev->event->name, (uint64_t)ev->rec.ts, ev->rec.cpu, pid);
		for (f = ev->event->format.fields; f; f = f->next) {
			struct fmt_field ff;

			if (fmt_field_resolve(ev->event, f->name, &ff))
				continue;
			if (ff.is_dynamic) {
				int len = 0, i, tgid;
				const uint8_t *p = fmt_field_ptr(&ff, ev->rec.data, ev->rec.size, &len);
				struct fmt_field tf;

				if (!p) {
					error("bad dynamic array");
					continue;
				}
				printf(" %s_depth=%d", f->name, len / 8);
				if (strcmp(f->name, "ustack"))
					continue;
				fmt_field_resolve(ev->event, "tgid", &tf);
				tgid = (int)fmt_field_u64(&tf, ev->rec.data, ev->rec.size);
				printf(" usyms=");
				for (i = 0; i + 8 <= len; i += 8) {
					uint64_t a;

					memcpy(&a, p + i, 8);
					printf("%s%s", i ? ";" : "", symbolize(tgid, a));
				}
				continue;
			}
			if (f->flags & TEP_FIELD_IS_ARRAY) {
				const char *sp = (const char *)ev->rec.data + f->offset;
				int sn;

				if (!(f->flags & TEP_FIELD_IS_STRING) || f->offset + f->size > ev->rec.size)
					continue;
				sn = (int)strnlen(sp, (size_t)f->size);
				printf(" %s=%.*s", f->name, sn, sp);
				/* bytes after the NUL: what the record's memory held before (a leak) */
				while (sn < f->size && !sp[sn])
					sn++;
				if (sn < f->size)
					printf(" %s_stale=1", f->name);
				continue;
			}
			printf(" %s=%" PRId64, f->name, (int64_t)fmt_field_u64(&ff, ev->rec.data, ev->rec.size));
		}
		printf("\n");
	}
	if (ret < 0)
		error("damaged event data");
	fmt_iter_free(it);
out:
	fmt_reader_close(r);
	free(symtab_data);
	free(bins);
	free(maps);
	free(err);
	return errors ? 1 : 0;
}
