// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel and user symbols for the call graphs (see symbols.h for where
 * they come from).  Every size read from the file or from an ELF file is
 * checked before use; a binary that cannot be read is remembered as such
 * and its addresses print as "dso+0xoffset".
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

struct sym {
	uint64_t addr, size;	/* size 0: up to the next symbol */
	const char *name;
};

struct load {
	uint64_t vaddr, memsz, offset, filesz;
};

struct ubin {
	char *path;
	char *buildid;		/* hex, or NULL */
	bool tried, ok;
	int etype;
	int nloads;
	struct load *loads;
	int nsyms;
	struct sym *syms;
	char *strtab;		/* owned names */
};

struct umap {
	uint64_t start, end, pgoff;
	bool has_pgoff;
	int bin;		/* index into bins */
};

struct xrange {
	uint64_t start, end;
};

struct uproc {
	int tgid;
	int nmaps, cap;
	struct umap *maps;
	bool sorted;
	/* every executable mapping (files, [vdso]) when flytrap's maps listed them */
	int nx, xcap;
	struct xrange *x;
	bool xsorted;		/* sorted by start, overlaps merged */
};

struct rpt_syms {
	/* kernel */
	struct sym *ksyms;
	int nksyms, kcap;
	char *kstr;		/* copy of the kallsyms text, names point into it */
	size_t kstr_len;
	bool ksorted;
	/* user */
	struct ubin *bins;
	int nbins;
	struct uproc *procs;
	int nprocs;
	char *symfs;
	char **debug_dirs;
	int ndebug;
	/* a stored FTSYMS1 section, kept whole: bins point into it */
	void *symtab;
	size_t symtab_len;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* prefer a sized symbol, then the first name: stable output */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* greatest symbol with addr <= a, or NULL */
static const struct sym *find_sym(const struct sym *v, int n, uint64_t a)
{
	int lo = 0, hi = n - 1, best = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= a) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0)
		return NULL;
	/* among equal addresses the sorted order put the preferred one first */
	while (best > 0 && v[best - 1].addr == v[best].addr)
		best--;
	if (v[best].size && a - v[best].addr >= v[best].size) {
		/* past the end of a sized symbol: only an enclosing unsized one could match */
		return NULL;
	}
	return &v[best];
}

/* ---- kernel ------------------------------------------------------------- */

int rpt_syms_add_kallsyms(struct rpt_syms *s, const char *text, size_t len)
{
	char *copy, *p, *end;
	size_t old = s->kstr_len;

	if (!len)
		return 0;
	/*
	 * Names point into one copy of the text; a second kallsyms would move
	 * it, so it gets its own copy chained through the realloc below only
	 * when there was none.
	 */
	if (s->kstr)
		return -EEXIST;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = 0;
	s->kstr = copy;
	s->kstr_len = old + len;
	p = copy;
	end = copy + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p, *q, *name;
		unsigned long long addr;
		char type;

		if (nl)
			*nl = 0;
		p = nl ? nl + 1 : end;
		addr = strtoull(line, &q, 16);
		if (q == line || *q != ' ')
			continue;
		q++;
		type = *q;
		if (!type || q[1] != ' ')
			continue;
		name = q + 2;
		/* absolute symbols and local labels are not functions */
		if (type == 'a' || type == 'A' || name[0] == '$' || !name[0])
			continue;
		{
			char *sp = strpbrk(name, " \t");

			/* keep the module tag out of the name: "func [mod]" -> "func" */
			if (sp)
				*sp = 0;
		}
		if (s->nksyms == s->kcap) {
			int nc = s->kcap ? s->kcap * 2 : 4096;
			struct sym *nk = realloc(s->ksyms, (size_t)nc * sizeof(*nk));

			if (!nk)
				return -ENOMEM;
			s->ksyms = nk;
			s->kcap = nc;
		}
		s->ksyms[s->nksyms++] = (struct sym){ .addr = addr, .size = 0, .name = name };
	}
	s->ksorted = false;
	return 0;
}

const char *rpt_syms_kernel(struct rpt_syms *s, uint64_t addr, uint64_t *off)
{
	const struct sym *k;

	if (!s || !s->nksyms)
		return NULL;
	if (!s->ksorted) {
		qsort(s->ksyms, (size_t)s->nksyms, sizeof(*s->ksyms), cmp_sym);
		s->ksorted = true;
	}
	k = find_sym(s->ksyms, s->nksyms, addr);
	/* the last symbol has no end; do not claim addresses far past it */
	if (!k || (k == &s->ksyms[s->nksyms - 1] && addr - k->addr > (1 << 20)))
		return NULL;
	/* zeroed kallsyms (no permission when recorded) give every symbol address 0 */
	if (k->addr == 0)
		return NULL;
	if (off)
		*off = addr - k->addr;
	return k->name;
}

/* ---- user: maps -------------------------------------------------------------- */

static int bin_index(struct rpt_syms *s, const char *path, size_t plen)
{
	int k;
	struct ubin *nb;

	for (k = 0; k < s->nbins; k++)
		if (strlen(s->bins[k].path) == plen && !memcmp(s->bins[k].path, path, plen))
			return k;
	nb = realloc(s->bins, (size_t)(s->nbins + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	s->bins = nb;
	memset(&nb[s->nbins], 0, sizeof(*nb));
	nb[s->nbins].path = strndup(path, plen);
	if (!nb[s->nbins].path)
		return -ENOMEM;
	return s->nbins++;
}

static struct uproc *proc_get(struct rpt_syms *s, int tgid, bool create)
{
	int k;
	struct uproc *np;

	for (k = 0; k < s->nprocs; k++)
		if (s->procs[k].tgid == tgid)
			return &s->procs[k];
	if (!create)
		return NULL;
	np = realloc(s->procs, (size_t)(s->nprocs + 1) * sizeof(*np));
	if (!np)
		return NULL;
	s->procs = np;
	memset(&np[s->nprocs], 0, sizeof(*np));
	np[s->nprocs].tgid = tgid;
	return &np[s->nprocs++];
}

static int proc_add_map(struct rpt_syms *s, struct uproc *p, uint64_t start, uint64_t end, uint64_t pgoff,
			bool has_pgoff, const char *path, size_t plen)
{
	int b;
	int k;

	if (end <= start || !plen || path[0] != '/')
		return 0;
	for (k = 0; k < p->nmaps; k++)
		if (p->maps[k].start == start && p->maps[k].end == end)
			return 0;	/* both map sources list it */
	b = bin_index(s, path, plen);
	if (b < 0)
		return b;
	if (p->nmaps == p->cap) {
		int nc = p->cap ? p->cap * 2 : 16;
		struct umap *nm = realloc(p->maps, (size_t)nc * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		p->maps = nm;
		p->cap = nc;
	}
	p->maps[p->nmaps++] = (struct umap){ start, end, pgoff, has_pgoff, b };
	p->sorted = false;
	return 0;
}

static int proc_add_xrange(struct uproc *p, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (p->nx == p->xcap) {
		int nc = p->xcap ? p->xcap * 2 : 16;
		struct xrange *nx = realloc(p->x, (size_t)nc * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		p->x = nx;
		p->xcap = nc;
	}
	p->x[p->nx++] = (struct xrange){ start, end };
	p->xsorted = false;
	return 0;
}

static int cmp_xrange(const void *a, const void *b)
{
	const struct xrange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* the maps are read several times during a recording: one sorted list without overlaps */
static void xranges_sort(struct uproc *p)
{
	int k, n = 0;

	qsort(p->x, (size_t)p->nx, sizeof(*p->x), cmp_xrange);
	for (k = 0; k < p->nx; k++) {
		if (n && p->x[k].start <= p->x[n - 1].end) {
			if (p->x[k].end > p->x[n - 1].end)
				p->x[n - 1].end = p->x[k].end;
		} else {
			p->x[n++] = p->x[k];
		}
	}
	p->nx = n;
	p->xsorted = true;
}

int rpt_syms_user_exec(struct rpt_syms *s, int tgid, uint64_t addr)
{
	struct uproc *p = s ? proc_get(s, tgid, false) : NULL;
	int lo, hi, best = -1;

	if (!p || !p->nx)
		return -1;
	if (!p->xsorted)
		xranges_sort(p);
	lo = 0;
	hi = p->nx - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (p->x[mid].start <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best >= 0 && addr < p->x[best].end;
}

int rpt_syms_add_maps(struct rpt_syms *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct uproc *cur = NULL;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *ls = p;
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[4352];
		unsigned long long a, b, off, ino;
		unsigned pid, nlibs;
		char perms[8], dev[32];
		int n = 0;

		p = nl ? nl + 1 : end;
		if (ll >= sizeof(line))
			continue;
		memcpy(line, ls, ll);
		line[ll] = 0;
		while (ll && (line[ll - 1] == '\r' || line[ll - 1] == 0))
			line[--ll] = 0;
		if (!strncmp(line, "== ", 3)) {
			/* flytrap: "== PID COMM" (decimal) */
			cur = sscanf(line + 3, "%u", &pid) == 1 ? proc_get(s, (int)pid, true) : NULL;
			if (!cur && sscanf(line + 3, "%u", &pid) == 1)
				err = -ENOMEM;
			continue;
		}
		if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %n", &a, &b, perms, &off, dev, &ino, &n) == 6) {
			/* /proc/PID/maps line: only executable mappings of files matter */
			if (cur && n > 0 && strchr(perms, 'x')) {
				err = proc_add_map(s, cur, a, b, off, true, line + n, strlen(line + n));
				err = err ?: proc_add_xrange(cur, a, b);
			}
			continue;
		}
		n = 0;
		if (sscanf(line, "%llx %llx %n", &a, &b, &n) == 2 && n > 0 && line[n] == '/') {
			/* trace-cmd: "START END PATH" (no file offset) */
			if (cur)
				err = proc_add_map(s, cur, a, b, 0, false, line + n, strlen(line + n));
			continue;
		}
		if (sscanf(line, "%x %x %n", &pid, &nlibs, &n) == 2 && n > 0) {
			/* trace-cmd: "PID NLIBS COMM" in hex */
			cur = proc_get(s, (int)pid, true);
			if (!cur)
				err = -ENOMEM;
		}
	}
	return err;
}

static int cmp_map(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* ---- user: ELF -------------------------------------------------------------- */

static int add_sym(struct ubin *b, int *cap, uint64_t addr, uint64_t size, const char *name)
{
	if (b->nsyms == *cap) {
		int nc = *cap ? *cap * 2 : 256;
		struct sym *ns = realloc(b->syms, (size_t)nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		b->syms = ns;
		*cap = nc;
	}
	b->syms[b->nsyms++] = (struct sym){ addr, size, name };
	return 0;
}

static char *elf_buildid(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz <= 64) {
				char *hex = malloc(nh.n_descsz * 2 + 1);
				size_t k;

				if (!hex)
					return NULL;
				for (k = 0; k < nh.n_descsz; k++)
					sprintf(hex + 2 * k, "%02x", ((const uint8_t *)d->d_buf)[doff + k]);
				hex[nh.n_descsz * 2] = 0;
				return hex;
			}
		}
	}
	return NULL;
}

/* Read loads and function symbols of an ELF file into b.  0, or -errno. */
static int load_elf(struct ubin *b, const char *file, const char *want_bid)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), err = 0, cap = 0;
	Elf *e = NULL;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL, *tab = NULL, *dyn = NULL, *use;
	GElf_Shdr sh;
	size_t n, k, strsz = 0, used = 0;
	char *bid = NULL;

	if (fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return -ENOTSUP;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	bid = elf_buildid(e);
	if (want_bid && bid && strcmp(want_bid, bid)) {
		err = -ESTALE;	/* another build of that path */
		goto out;
	}
	if (want_bid && !bid) {
		err = -ESTALE;
		goto out;
	}
	if (elf_getphdrnum(e, &n)) {
		err = -ENOEXEC;
		goto out;
	}
	free(b->loads);
	b->loads = calloc(n ? n : 1, sizeof(*b->loads));
	b->nloads = 0;
	if (!b->loads) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < n; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_LOAD)
			b->loads[b->nloads++] = (struct load){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz };
	}
	b->etype = eh.e_type;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			tab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	use = tab ? tab : dyn;
	if (!use)
		goto out;
	{
		Elf_Data *d = elf_getdata(use, NULL);
		size_t cnt;

		if (!gelf_getshdr(use, &sh) || !sh.sh_entsize || !d) {
			err = -ENOEXEC;
			goto out;
		}
		cnt = sh.sh_size / sh.sh_entsize;
		/* names are copied into one block sized in a first pass */
		for (k = 0; k < cnt; k++) {
			GElf_Sym sy;
			const char *nm;
			int t;

			if (!gelf_getsym(d, (int)k, &sy))
				continue;
			t = GELF_ST_TYPE(sy.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sy.st_shndx == SHN_UNDEF || !sy.st_value)
				continue;
			nm = elf_strptr(e, sh.sh_link, sy.st_name);
			if (nm && *nm)
				strsz += strlen(nm) + 1;
		}
		free(b->strtab);
		b->strtab = malloc(strsz ? strsz : 1);
		if (!b->strtab) {
			err = -ENOMEM;
			goto out;
		}
		for (k = 0; k < cnt; k++) {
			GElf_Sym sy;
			const char *nm;
			size_t l;
			int t;

			if (!gelf_getsym(d, (int)k, &sy))
				continue;
			t = GELF_ST_TYPE(sy.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sy.st_shndx == SHN_UNDEF || !sy.st_value)
				continue;
			nm = elf_strptr(e, sh.sh_link, sy.st_name);
			if (!nm || !*nm)
				continue;
			l = strlen(nm) + 1;
			if (used + l > strsz)
				break;
			memcpy(b->strtab + used, nm, l);
			err = add_sym(b, &cap, sy.st_value, sy.st_size, b->strtab + used);
			used += l;
			if (err)
				goto out;
		}
	}
out:
	free(bid);
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* ---- user: stored symbol tables (FTSYMS1, written by record --symbols) -------- */

static bool rd(const uint8_t *base, size_t len, size_t off, void *out, size_t n)
{
	if (off > len || n > len - off)
		return false;
	memcpy(out, base + off, n);
	return true;
}

static void load_symtab_section(struct rpt_syms *s)
{
	const uint8_t *d = s->symtab;
	size_t len = s->symtab_len, off = 16;
	uint32_t nbin, k;

	if (len < 16 || memcmp(d, "FTSYMS1", 8))
		return;
	memcpy(&nbin, d + 8, 4);
	for (k = 0; k < nbin && off < len; k++) {
		uint32_t rs, nloads, nsyms, strsz;
		uint16_t pl;
		uint8_t bl, et;
		size_t p, loads_off, syms_off, str_off;
		int bi, cap = 0;
		uint32_t j;
		struct ubin *b;

		if (!rd(d, len, off, &rs, 4) || rs < 24 || rs > len - off)
			return;
		if (!rd(d, len, off + 4, &pl, 2) || !rd(d, len, off + 6, &bl, 1) || !rd(d, len, off + 7, &et, 1) ||
		    !rd(d, len, off + 8, &nloads, 4) || !rd(d, len, off + 12, &nsyms, 4) ||
		    !rd(d, len, off + 16, &strsz, 4))
			return;
		p = off + 24;
		if ((size_t)pl + bl > rs - 24)
			return;
		loads_off = (p + pl + bl + 7) & ~(size_t)7;
		syms_off = loads_off + (size_t)nloads * 32;
		str_off = syms_off + (size_t)nsyms * 24;
		if (nloads > rs / 32 || nsyms > rs / 24 || str_off + strsz > off + rs) {
			off += rs;
			continue;
		}
		bi = bin_index(s, (const char *)d + p, pl);
		if (bi < 0)
			return;
		b = &s->bins[bi];
		if (b->ok) {
			off += rs;
			continue;
		}
		if (bl && !b->buildid) {
			b->buildid = malloc((size_t)bl * 2 + 1);
			if (b->buildid) {
				for (j = 0; j < bl; j++)
					sprintf(b->buildid + 2 * j, "%02x", d[p + pl + j]);
				b->buildid[bl * 2] = 0;
			}
		}
		b->etype = et;
		b->loads = calloc(nloads ? nloads : 1, sizeof(*b->loads));
		if (!b->loads)
			return;
		for (j = 0; j < nloads; j++) {
			memcpy(&b->loads[j], d + loads_off + (size_t)j * 32, 32);
		}
		b->nloads = (int)nloads;
		for (j = 0; j < nsyms; j++) {
			uint64_t a, sz;
			uint32_t no;

			memcpy(&a, d + syms_off + (size_t)j * 24, 8);
			memcpy(&sz, d + syms_off + (size_t)j * 24 + 8, 8);
			memcpy(&no, d + syms_off + (size_t)j * 24 + 16, 4);
			/* names must be NUL-terminated inside the string table */
			if (no >= strsz || !memchr(d + str_off + no, 0, strsz - no))
				continue;
			if (add_sym(b, &cap, a, sz, (const char *)d + str_off + no))
				return;
		}
		if (b->nsyms)
			qsort(b->syms, (size_t)b->nsyms, sizeof(*b->syms), cmp_sym);
		b->tried = b->ok = true;
		off += rs;
	}
}

static bool try_file(struct ubin *b, const char *file, const char *bid)
{
	if (access(file, R_OK))
		return false;
	if (load_elf(b, file, bid))
		return false;
	if (b->nsyms)
		qsort(b->syms, (size_t)b->nsyms, sizeof(*b->syms), cmp_sym);
	return true;
}

static void bin_load(struct rpt_syms *s, struct ubin *b)
{
	char file[PATH_MAX];
	int k;

	if (b->tried)
		return;
	b->tried = true;
	if (s->symfs) {
		const char *base = strrchr(b->path, '/');

		snprintf(file, sizeof(file), "%s%s", s->symfs, b->path);
		if (try_file(b, file, b->buildid))
			goto ok;
		snprintf(file, sizeof(file), "%s/%s", s->symfs, base ? base + 1 : b->path);
		if (try_file(b, file, b->buildid))
			goto ok;
	}
	if (b->buildid && strlen(b->buildid) > 2) {
		for (k = 0; k <= s->ndebug; k++) {
			const char *dir = k < s->ndebug ? s->debug_dirs[k] : "/usr/lib/debug";

			snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", dir, b->buildid, b->buildid + 2);
			/* a debug file is the same build by construction; its loads match the binary's */
			if (try_file(b, file, NULL))
				goto ok;
		}
		if (s->symfs) {
			snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", s->symfs, b->buildid, b->buildid + 2);
			if (try_file(b, file, NULL))
				goto ok;
		}
	}
	/* the path on this machine: only the same build (or any, when none was recorded) */
	if (try_file(b, b->path, b->buildid))
		goto ok;
	return;
ok:
	b->ok = true;
}

const char *rpt_syms_user(struct rpt_syms *s, int tgid, uint64_t addr, const char **dso, uint64_t *off)
{
	struct uproc *p = s ? proc_get(s, tgid, false) : NULL;
	struct umap *m = NULL;
	struct ubin *b;
	const struct sym *sy;
	uint64_t foff, va = 0;
	int lo, hi, k;
	bool found = false;

	if (dso)
		*dso = NULL;
	if (!p || !p->nmaps)
		return NULL;
	if (!p->sorted) {
		qsort(p->maps, (size_t)p->nmaps, sizeof(*p->maps), cmp_map);
		p->sorted = true;
	}
	lo = 0;
	hi = p->nmaps - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr) {
			m = &p->maps[mid];
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (!m || addr >= m->end)
		return NULL;
	b = &s->bins[m->bin];
	if (dso) {
		const char *base = strrchr(b->path, '/');

		*dso = base ? base + 1 : b->path;
	}
	bin_load(s, b);
	if (!b->ok || !b->nsyms)
		return NULL;
	if (b->etype == ET_EXEC) {
		va = addr;
		found = true;
	} else if (m->has_pgoff) {
		foff = addr - m->start + m->pgoff;
		for (k = 0; k < b->nloads; k++)
			if (foff >= b->loads[k].offset && foff - b->loads[k].offset < b->loads[k].filesz) {
				va = foff - b->loads[k].offset + b->loads[k].vaddr;
				found = true;
				break;
			}
	} else {
		/* no file offsets (trace-cmd maps): the lowest mapping of the path is the load base */
		uint64_t base = m->start, first = UINT64_MAX;

		for (k = 0; k < p->nmaps; k++)
			if (p->maps[k].bin == m->bin && p->maps[k].start < base)
				base = p->maps[k].start;
		for (k = 0; k < b->nloads; k++)
			if (b->loads[k].vaddr - b->loads[k].offset < first)
				first = b->loads[k].vaddr - b->loads[k].offset;
		if (first == UINT64_MAX)
			first = 0;
		va = addr - base + first;
		found = true;
	}
	if (!found)
		return NULL;
	sy = find_sym(b->syms, b->nsyms, va);
	/*
	 * ELF functions carry sizes; the few that do not (_init, _fini, asm
	 * entry points) would otherwise claim every address up to the next
	 * symbol, which in a stripped library can be far away.
	 */
	if (!sy || (!sy->size && va - sy->addr >= 4096))
		return NULL;
	if (off)
		*off = va - sy->addr;
	return sy->name;
}

int rpt_syms_missing(const struct rpt_syms *s, char *buf, size_t len)
{
	int k, n = 0;
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (k = 0; s && k < s->nbins; k++) {
		if (!s->bins[k].tried || s->bins[k].ok)
			continue;
		if (used < len) {
			int w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "", s->bins[k].path);

			if (w > 0)
				used += (size_t)w;
		}
		n++;
	}
	return n;
}

/* ---- life cycle ----------------------------------------------------------------- */

int rpt_syms_add_buildids(struct rpt_syms *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *sp = NULL, *q;
		int bi;

		for (q = le; q > p; q--)
			if (q[-1] == ' ') {
				sp = q - 1;
				break;
			}
		if (sp && sp > p && le - sp > 1) {
			bi = bin_index(s, p, (size_t)(sp - p));
			if (bi < 0)
				return bi;
			if (!s->bins[bi].buildid) {
				size_t hl = (size_t)(le - sp - 1);

				while (hl && (sp[hl] == 0 || sp[hl] == '\r'))
					hl--;
				s->bins[bi].buildid = strndup(sp + 1, hl);
				if (!s->bins[bi].buildid)
					return -ENOMEM;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

struct rpt_syms *rpt_syms_new(struct fmt_reader *r, const char *symfs, const char *const *debug_dirs)
{
	struct rpt_syms *s = calloc(1, sizeof(*s));
	const struct fmt_option *o;
	int n;

	if (!s)
		return NULL;
	if (symfs && !(s->symfs = strdup(symfs)))
		goto fail;
	for (n = 0; debug_dirs && debug_dirs[n]; n++) {
		char **nd = realloc(s->debug_dirs, (size_t)(n + 1) * sizeof(*nd));

		if (!nd)
			goto fail;
		s->debug_dirs = nd;
		if (!(nd[n] = strdup(debug_dirs[n])))
			goto fail;
		s->ndebug = n + 1;
	}
	if (!r)
		return s;
	{
		const struct fmt_info *info = fmt_reader_info(r);

		if (info->kallsyms.len && rpt_syms_add_kallsyms(s, info->kallsyms.data, info->kallsyms.len) == -ENOMEM)
			goto fail;
	}
	/* flytrap's maps first: they carry file offsets */
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_PROCMAPS, n)); n++) {
		uint64_t off;
		void *data = NULL;
		size_t len = 0;

		if (o->size < 8)
			continue;
		memcpy(&off, o->data, 8);
		if (fmt_reader_section(r, off, FMT_SEC_FT_PROCMAPS, &data, &len) == 0) {
			int e = rpt_syms_add_maps(s, data, len);

			free(data);
			if (e == -ENOMEM)
				goto fail;
		}
	}
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_PROCMAPS, n)); n++)
		if (rpt_syms_add_maps(s, o->data, o->size) == -ENOMEM)
			goto fail;
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BUILDIDS, n)); n++)
		if (rpt_syms_add_buildids(s, o->data, o->size))
			goto fail;
	for (n = 0; (o = fmt_reader_option(r, FMT_OPT_FT_SYMTAB, n)); n++) {
		uint64_t off;

		if (o->size < 8 || s->symtab)
			continue;
		memcpy(&off, o->data, 8);
		if (fmt_reader_section(r, off, FMT_SEC_FT_SYMTAB, &s->symtab, &s->symtab_len) == 0)
			load_symtab_section(s);
	}
	return s;
fail:
	rpt_syms_free(s);
	errno = ENOMEM;
	return NULL;
}

void rpt_syms_free(struct rpt_syms *s)
{
	int k;

	if (!s)
		return;
	free(s->ksyms);
	free(s->kstr);
	for (k = 0; k < s->nbins; k++) {
		free(s->bins[k].path);
		free(s->bins[k].buildid);
		free(s->bins[k].loads);
		free(s->bins[k].syms);
		free(s->bins[k].strtab);
	}
	free(s->bins);
	for (k = 0; k < s->nprocs; k++) {
		free(s->procs[k].maps);
		free(s->procs[k].x);
	}
	free(s->procs);
	free(s->symfs);
	for (k = 0; k < s->ndebug; k++)
		free(s->debug_dirs[k]);
	free(s->debug_dirs);
	free(s->symtab);
	free(s);
}
