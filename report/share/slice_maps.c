// SPDX-License-Identifier: GPL-2.0-only
/*
 * slice: the process maps and user symbols of the kept processes only.  A
 * slice of one task should not carry the maps (library paths, binaries) of
 * every other process the recording saw: the blocks of trace-cmd's
 * PROCMAPS option and of flytrap's maps section are kept for the processes
 * the caller keeps, then the build-ids and the stored symbol tables of the
 * binaries those maps name.  A file without maps gives no way to tell
 * which binary is whose: its build-ids and symbol tables stay whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report/share/slice_maps.h"

struct paths {
	char **v;
	int n, cap;
};

static bool paths_has(const struct paths *p, const char *s, size_t n)
{
	for (int i = 0; i < p->n; i++)
		if (strlen(p->v[i]) == n && !memcmp(p->v[i], s, n))
			return true;
	return false;
}

/* A mapped file's path, also without the " (deleted)" the kernel adds (the recorder drops it). */
static int paths_add(struct paths *p, const char *s, size_t n)
{
	while (n && (s[n - 1] == '\0' || s[n - 1] == '\r'))
		n--;
	if (n > 10 && !memcmp(s + n - 10, " (deleted)", 10) && paths_add(p, s, n - 10))
		return -ENOMEM;
	if (!n || paths_has(p, s, n))
		return 0;
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 64;
		char **nv = realloc(p->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->v = nv;
		p->cap = cap;
	}
	if (!(p->v[p->n] = strndup(s, n)))
		return -ENOMEM;
	p->n++;
	return 0;
}

static void paths_release(struct paths *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

/* The start of word k (space separated) of a line, or NULL. */
static const char *word(const char *s, size_t n, int k)
{
	size_t i = 0;

	for (int w = 0; i < n; w++) {
		while (i < n && s[i] == ' ')
			i++;
		if (i < n && w == k)
			return s + i;
		while (i < n && s[i] != ' ')
			i++;
	}
	return NULL;
}

struct filter {
	bool (*keep)(void *arg, int pid);
	void *arg;
	struct paths *paths;
	FILE *out;
	bool in_kept;		/* the current block is of a kept process */
	unsigned long libs_left;	/* trace-cmd's layout: library lines still to come */
	int *seen, nseen, seencap;	/* processes counted */
	struct rpt_slice_maps_stats *st;
};

/* A process's block: kept or not; each process counted once (it may be in both layouts). */
static int block_starts(struct filter *f, int pid)
{
	f->in_kept = f->keep(f->arg, pid);
	for (int i = 0; i < f->nseen; i++)
		if (f->seen[i] == pid)
			return 0;
	if (f->nseen == f->seencap) {
		int cap = f->seencap ? f->seencap * 2 : 64;
		int *nv = realloc(f->seen, (size_t)cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->seen = nv;
		f->seencap = cap;
	}
	f->seen[f->nseen++] = pid;
	f->st->procs_kept += f->in_kept;
	f->st->procs_dropped += !f->in_kept;
	return 0;
}

/*
 * flytrap's maps section: "== PID COMM" (or "=< PID UNTIL COMM", an image
 * PID ran until an exec), then /proc/PID/maps lines (the path is word 5).
 */
static int ft_line(struct filter *f, const char *s, size_t n)
{
	const char *path;

	if (n > 3 && (!memcmp(s, "== ", 3) || !memcmp(s, "=< ", 3))) {
		return block_starts(f, atoi(s + 3));
	} else if (f->in_kept && (path = word(s, n, 5)) && paths_add(f->paths, path,
								      (size_t)(s + n - path))) {
		return -ENOMEM;
	}
	return 0;
}

/* trace-cmd's PROCMAPS: "PID NLIBS COMM" (hex), then NLIBS lines "START END PATH". */
static int tc_line(struct filter *f, const char *s, size_t n)
{
	const char *path;

	if (f->libs_left) {
		f->libs_left--;
		path = word(s, n, 2);
		return f->in_kept && path ? paths_add(f->paths, path, (size_t)(s + n - path)) : 0;
	}
	if (!word(s, n, 2))
		return 0;	/* the rest of a name with a newline in it: its block's */
	f->libs_left = strtoul(word(s, n, 1), NULL, 16);
	if (f->libs_left > 1000000)
		f->libs_left = 0;
	return block_starts(f, (int)strtol(s, NULL, 16));
}

/* The lines of the kept blocks of a maps text (malloc'd, *olen without the NUL), or NULL. */
static char *filter_maps(struct filter *f, const char *text, size_t len, bool tc, size_t *olen)
{
	char *out = NULL;
	const char *p = text, *end = text + len;
	int err = 0;

	f->out = open_memstream(&out, olen);
	if (!f->out)
		return NULL;
	f->in_kept = false;
	f->libs_left = 0;
	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		size_t n = (size_t)(le - p);

		while (n && p[n - 1] == '\0')
			n--;
		if (n)
			err = tc ? tc_line(f, p, n) : ft_line(f, p, n);
		if (n && f->in_kept)
			fprintf(f->out, "%.*s\n", (int)n, p);
		p = nl ? nl + 1 : end;
	}
	if (fclose(f->out) || err) {
		free(out);
		return NULL;
	}
	return out;
}

static uint64_t get_u64(const void *p, bool be)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int k = 0; k < 8; k++)
		v |= (uint64_t)b[be ? 7 - k : k] << (8 * k);
	return v;
}

/* A section written now and the option that points at it queued. */
static int put_section(struct fmt_writer *w, uint16_t opt, uint16_t sec, const void *d, size_t len,
		       bool be)
{
	uint64_t off = 0;
	uint8_t ptr[8];
	int err = fmt_writer_section(w, sec, NULL, d, len, &off);

	for (int k = 0; !err && k < 8; k++)
		ptr[be ? 7 - k : k] = (uint8_t)(off >> (8 * k));
	return err ? err : fmt_writer_option(w, opt, ptr, 8);
}

static int maps_options(struct fmt_reader *r, struct fmt_writer *w, struct filter *f, bool *any)
{
	const struct fmt_info *in = fmt_reader_info(r);
	const struct fmt_option *o;
	int err = 0;

	for (int k = 0; !err && (o = fmt_reader_option(r, FMT_OPT_FT_PROCMAPS, k)); k++) {
		void *d = NULL;
		size_t len = 0, ol = 0;
		char *t;

		if (o->size != 8 || fmt_reader_section(r, get_u64(o->data, in->big_endian),
						       FMT_SEC_FT_PROCMAPS, &d, &len))
			continue;	/* unreadable: left out, as convert does */
		*any = true;
		t = filter_maps(f, d, len, false, &ol);
		free(d);
		if (!t)
			return -ENOMEM;
		if (ol)
			err = put_section(w, FMT_OPT_FT_PROCMAPS, FMT_SEC_FT_PROCMAPS, t, ol,
					  in->big_endian);
		free(t);
	}
	for (int k = 0; !err && (o = fmt_reader_option(r, FMT_OPT_PROCMAPS, k)); k++) {
		size_t ol = 0;
		char *t = filter_maps(f, o->data, o->size, true, &ol);

		*any = true;
		if (!t)
			return -ENOMEM;
		/* with its NUL, as trace-cmd writes it */
		if (ol)
			err = ol < UINT32_MAX ?
			      fmt_writer_option(w, FMT_OPT_PROCMAPS, t, (uint32_t)ol + 1) :
			      -EOVERFLOW;
		free(t);
	}
	return err;
}

/* "PATH BUILD-ID" lines of the binaries the kept maps name. */
static int buildids_option(struct fmt_writer *w, const struct fmt_option *o, struct filter *f)
{
	char *out = NULL;
	size_t ol = 0;
	FILE *m = open_memstream(&out, &ol);
	const char *p = o->data, *end = p + o->size;
	int err = 0;

	if (!m)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		const char *sp;

		while (n && p[n - 1] == '\0')
			n--;
		sp = n ? memrchr(p, ' ', n) : NULL;
		if (sp && paths_has(f->paths, p, (size_t)(sp - p)))
			fprintf(m, "%.*s\n", (int)n, p);
		else if (n)
			f->st->binaries_dropped++;
		p = nl ? nl + 1 : end;
	}
	if (fclose(m))
		return -ENOMEM;
	if (ol)
		err = ol < UINT32_MAX ?
		      fmt_writer_option(w, FMT_OPT_FT_BUILDIDS, out, (uint32_t)ol + 1) :
		      -EOVERFLOW;
	free(out);
	return err;
}

/*
 * flytrap's symbol tables ("FTSYMS1\0", u32 count, u32 0, then per binary
 * a record whose u32 size comes first and whose u16 path length at +4
 * gives the path at +24): the records of the binaries the kept maps name.
 */
static uint8_t *symtab_filter(const uint8_t *d, size_t len, struct filter *f, size_t *olen)
{
	uint8_t *out = len >= 16 && !memcmp(d, "FTSYMS1", 8) ? malloc(len) : NULL;
	size_t off = 16, oo = 16;
	uint32_t nbin, kept = 0;

	if (!out)
		return NULL;
	memcpy(out, d, 16);
	memcpy(&nbin, d + 8, 4);
	for (uint32_t k = 0; k < nbin && off + 24 <= len; k++) {
		uint32_t rs;
		uint16_t pl;

		memcpy(&rs, d + off, 4);
		memcpy(&pl, d + off + 4, 2);
		if (rs < 24 || rs > len - off || pl > rs - 24)
			break;	/* a damaged record: what follows cannot be found */
		if (paths_has(f->paths, (const char *)d + off + 24, pl)) {
			memcpy(out + oo, d + off, rs);
			oo += rs;
			kept++;
		} else {
			f->st->symtabs_dropped++;
		}
		off += rs;
	}
	memcpy(out + 8, &kept, 4);
	*olen = oo;
	return out;
}

/* A symbol table section anew: filtered (the file has maps), or whole. */
static int symtab_option(struct fmt_reader *r, struct fmt_writer *w, const struct fmt_option *o,
			 struct filter *f, bool filter)
{
	const struct fmt_info *in = fmt_reader_info(r);
	void *d = NULL;
	size_t len = 0, ol = 0;
	uint8_t *t;
	int err;

	if (o->size != 8 ||
	    fmt_reader_section(r, get_u64(o->data, in->big_endian), FMT_SEC_FT_SYMTAB, &d, &len))
		return 0;	/* unreadable: left out, as convert does */
	if (!filter) {
		err = put_section(w, FMT_OPT_FT_SYMTAB, FMT_SEC_FT_SYMTAB, d, len, in->big_endian);
		free(d);
		return err;
	}
	t = symtab_filter(d, len, f, &ol);
	free(d);
	if (!t)
		return 0;	/* not a table of ours: left out */
	err = put_section(w, FMT_OPT_FT_SYMTAB, FMT_SEC_FT_SYMTAB, t, ol, in->big_endian);
	free(t);
	return err;
}

bool rpt_slice_maps_option(uint16_t id)
{
	return id == FMT_OPT_PROCMAPS || id == FMT_OPT_FT_PROCMAPS || id == FMT_OPT_FT_BUILDIDS ||
	       id == FMT_OPT_FT_SYMTAB;
}

/* The build-ids and symbol tables: filtered by the kept maps' paths, or whole without maps. */
static int binary_options(struct fmt_reader *r, struct fmt_writer *w, struct filter *f, bool any)
{
	const struct fmt_option *o;
	int err = 0;

	for (int k = 0; !err && (o = fmt_reader_option(r, FMT_OPT_FT_BUILDIDS, k)); k++)
		err = any ? buildids_option(w, o, f)
			  : fmt_writer_option(w, FMT_OPT_FT_BUILDIDS, o->data, o->size);
	for (int k = 0; !err && (o = fmt_reader_option(r, FMT_OPT_FT_SYMTAB, k)); k++)
		err = symtab_option(r, w, o, f, any);
	return err;
}

int rpt_slice_maps(struct fmt_reader *r, struct fmt_writer *w, bool (*keep)(void *arg, int pid),
		   void *arg, struct rpt_slice_maps_stats *st)
{
	struct paths paths = { 0 };
	struct filter f = { .keep = keep, .arg = arg, .paths = &paths, .st = st };
	bool any = false;
	int err;

	memset(st, 0, sizeof(*st));
	err = maps_options(r, w, &f, &any);
	if (!err)
		err = binary_options(r, w, &f, any);
	paths_release(&paths);
	free(f.seen);
	return err;
}
