// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel and user symbols for the call graphs (see symbols.h for where
 * they come from).  Every size read from the file or from an ELF file is
 * checked before use; a binary that cannot be read is remembered as such
 * and its addresses print as "dso+0xoffset".
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <event-parse.h>
#ifndef FT_STATIC
#include <elfutils/debuginfod.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/core/replay.h"	/* rpt_map, rpt_hash_str */
#include "report/syms/symbols.h"

/* a stored table entry's flags (docs/bpf.md): its CFI block follows the string table */
#define SYMTAB_F_CFI 1u

struct sym {
	uint64_t addr, size;	/* size 0: up to the next symbol */
	const char *name;
	size_t noff;		/* user symbols: offset of name in ubin.names while loading */
	uint32_t rank;		/* order in its table: among aliases, the first one names */
	uint8_t alias;		/* user symbols: 0 global, 1 local, 2 weak (see cmp_sym) */
};

/* where a binary's names came from (rpt_syms_binary) */
enum bin_source {
	SRC_NONE, SRC_RECORDED, SRC_SYMTAB, SRC_DYNSYM, SRC_MINIDEBUG, SRC_DEBUGFILE,
	SRC_DEBUGINFOD,
};
static const char *const src_names[] = {
	[SRC_NONE] = "none", [SRC_RECORDED] = "recorded", [SRC_SYMTAB] = "symtab",
	[SRC_DYNSYM] = "dynsym", [SRC_MINIDEBUG] = "minidebuginfo", [SRC_DEBUGFILE] = "debug file",
	[SRC_DEBUGINFOD] = "debuginfod",
};

struct load {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;		/* PF_*; 0 when unknown (stored tables) */
};

struct ubin {
	char *path;
	char *buildid;		/* hex, or NULL */
	char *file;		/* the ELF file read (the binary or its debug file), or NULL */
	bool tried, ok;
	bool disk_tried;	/* a stored table's binary looked for on this machine */
	bool timed_out;		/* debuginfod gave up at the deadline */
	enum bin_source src;
	int etype;
	int nloads;
	struct load *loads;
	/*
	 * The ELF file read is a debug file (its code is NOBITS): its LOAD
	 * headers keep the binary's p_vaddr and p_memsz, but p_offset and
	 * p_filesz describe the debug file, so file offsets cannot be mapped.
	 */
	bool no_offsets;
	int nsyms, cap;
	int nfuncs;		/* of nsyms, those from a symbol table (not PLT stubs) */
	struct sym *syms;
	char *names;		/* owned names, NUL-separated */
	size_t nused, ncap;
	/* its DWARF (for inlined functions), opened at the first address that asks */
	bool dw_tried;
	Dwfl *dw;
	Dwfl_Module *dwmod;	/* NULL: no DWARF (then nothing is inlined) */
	/*
	 * record --symbols: the binary's stored CFI block (in s->symtab,
	 * sizes checked; NULL: none) and, once the unwinder asked for it
	 * where the binary is absent, that CFI as an ELF file (cfi_fd_tried;
	 * cfi_fd -1: it could not be made)
	 */
	const uint8_t *cfi;
	size_t cfi_len;
	bool cfi_fd_tried;
	int cfi_fd;
};

struct umap {
	uint64_t start, end, pgoff;
	bool has_pgoff;
	int bin;		/* index into bins */
	/* va_from_length: the whole mapping this piece is part of (reset when maps are sorted) */
	bool joined;
	uint64_t jstart, jend;
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

/*
 * An earlier image of a process: the mappings it had until an exec at
 * until (flytrap's "=< PID UNTIL COMM" blocks), kept as a process of its
 * own whose key (negative, below any pid) stands in for the tgid.
 */
struct image {
	int tgid, key;
	uint64_t until;
};
#define IMAGE_KEY0 (-(1 << 20))

struct rpt_syms {
	/* kernel: the reader's table, else (no reader) rpt_syms_add_kallsyms's */
	struct fmt_reader *reader;
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
	struct image *images;
	int nimages;
	char *symfs;
	char **debug_dirs;
	int ndebug;
	/* a stored FTSYMS1 section */
	void *symtab;
	size_t symtab_len;
	/* elfutils: where debug files are looked for, debuginfod */
	Dwfl_Callbacks cb;
	char *dbgpath;		/* ":.debug:DIR...:/usr/lib/debug" (libdwfl's debuginfo_path) */
	char *dbg_cache;	/* libdebuginfod's cache: files there came from a server */
	bool debuginfod;
	bool quiet;		/* RPT_SYMS_QUIET */
	int dbg_timeout;	/* seconds per binary */
	struct timespec deadline;
	bool timed_out;
	/*
	 * Inlined functions per (binary, address): a chain of names in ichain
	 * (names interned in inames, owned in istr), so that each address of
	 * a profile is looked up in the DWARF once, whatever process ran it.
	 */
	struct rpt_map icache;		/* hash(bin, va) -> struct icache */
	struct rpt_map inames;		/* hash(name) -> char * (one of istr) */
	const char **ichain;
	size_t nichain, cichain;
	char **istr;
	size_t nistr, cistr;
};

struct icache {
	uint64_t va;
	int bin;
	uint32_t at, n;		/* ichain[at...at+n) */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/*
	 * Aliases: the name perf would pick (a sized symbol, not weak, global,
	 * fewer leading underscores, the longer name: __getdents64 over
	 * __GI___getdents64 and the weak getdents64), then the first in its
	 * table (clock_nanosleep@GLIBC_2.2.5 before @@GLIBC_2.17), then by name.
	 */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	if (x->alias != y->alias)
		return x->alias < y->alias ? -1 : 1;
	{
		size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
		size_t lx = strcspn(x->name, "@"), ly = strcspn(y->name, "@");

		if (ux != uy)
			return ux < uy ? -1 : 1;
		if (lx != ly)
			return lx > ly ? -1 : 1;
		if (strncmp(x->name, y->name, lx))
			return strncmp(x->name, y->name, lx);
	}
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
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

/*
 * The function the reader's kallsyms put addr in (fmt_reader_ksym(): its
 * own table, parsed once under its lock, then only read, so that the
 * ranges of an analysis look up from their threads at once; libtraceevent's
 * lookup would answer through one struct of the handle).
 */
static const char *reader_kernel(struct fmt_reader *r, uint64_t addr, uint64_t *off)
{
	uint64_t start = 0;
	const char *name = fmt_reader_ksym(r, addr, &start);

	/* zeroed kallsyms (no permission when recorded) give every symbol address 0 */
	if (!name || !start || start > addr)
		return NULL;
	if (off)
		*off = addr - start;
	return name;
}

const char *rpt_syms_kernel(struct rpt_syms *s, uint64_t addr, uint64_t *off)
{
	const struct sym *k;

	if (s && s->reader)
		return reader_kernel(s->reader, addr, off);
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

static int proc_add_map(struct rpt_syms *s, struct uproc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, bool has_pgoff, const char *path, size_t plen)
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

/*
 * Does [start, end) touch an executable mapping of p?  Yes when p's
 * mappings came without permissions (trace-cmd's PROCMAPS alone).
 */
static bool touches_exec(const struct uproc *p, uint64_t start, uint64_t end)
{
	for (int k = 0; k < p->nx; k++)
		if (p->x[k].start < end && start < p->x[k].end)
			return true;
	return !p->nx;
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

int rpt_syms_image_at(const struct rpt_syms *s, int tgid, uint64_t ts)
{
	const struct image *best = NULL;

	for (int k = 0; s && k < s->nimages; k++) {
		const struct image *im = &s->images[k];

		if (im->tgid == tgid && ts < im->until && (!best || im->until < best->until))
			best = im;
	}
	return best ? best->key : tgid;
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
		if (!strncmp(line, "=< ", 3)) {
			/* flytrap: "=< PID UNTIL COMM", the image PID ran until an exec */
			unsigned long long until;
			struct image *ni;

			cur = NULL;
			if (sscanf(line + 3, "%u %llu", &pid, &until) != 2 || !pid || !until ||
			    s->nimages >= (1 << 20))
				continue;
			ni = realloc(s->images, (size_t)(s->nimages + 1) * sizeof(*ni));
			if (!ni) {
				err = -ENOMEM;
				continue;
			}
			s->images = ni;
			ni[s->nimages] = (struct image){ (int)pid, IMAGE_KEY0 - s->nimages, until };
			cur = proc_get(s, ni[s->nimages].key, true);
			if (!cur)
				err = -ENOMEM;
			s->nimages++;
			continue;
		}
		if (!strncmp(line, "== ", 3)) {
			/* flytrap: "== PID COMM" (decimal) */
			cur = sscanf(line + 3, "%u", &pid) == 1 ?
			      proc_get(s, (int)pid, true) : NULL;
			if (!cur && sscanf(line + 3, "%u", &pid) == 1)
				err = -ENOMEM;
			continue;
		}
		if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %n", &a, &b, perms, &off, dev, &ino,
			   &n) == 6) {
			/* /proc/PID/maps line: only executable mappings of files matter */
			if (cur && n > 0 && strchr(perms, 'x')) {
				err = proc_add_map(s, cur, a, b, off, true, line + n,
						   strlen(line + n));
				err = err ?: proc_add_xrange(cur, a, b);
			}
			continue;
		}
		n = 0;
		if (sscanf(line, "%llx %llx %n", &a, &b, &n) == 2 && n > 0 && line[n] == '/') {
			/*
			 * trace-cmd: "START END PATH" (no file offset), data files
			 * too (LC_CTYPE, gconv-modules.cache): where flytrap's maps
			 * said which mappings execute, the others name no binary
			 */
			if (cur && touches_exec(cur, a, b))
				err = proc_add_map(s, cur, a, b, 0, false, line + n,
						   strlen(line + n));
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

static void maps_sort(struct uproc *p)
{
	int k;

	if (p->sorted)
		return;
	qsort(p->maps, (size_t)p->nmaps, sizeof(*p->maps), cmp_map);
	p->sorted = true;
	for (k = 0; k < p->nmaps; k++)
		p->maps[k].joined = false;
}

/* ---- user: names ------------------------------------------------------------ */

/* raw demangled (malloc'd) when it is a C++ or Rust symbol (libiberty knows both), else NULL */
static char *demangled(const char *raw)
{
	return raw && raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R') ?
	       cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI) : NULL;
}

/*
 * Add a function of b: its name demangled when it is a C++ or Rust symbol
 * (demangled()), then suffix ("@@GLIBC_2.2.5", "@plt").
 * Names go into one block; the pointers are set once loading ends.
 */
static int add_name(struct ubin *b, uint64_t addr, uint64_t size, const char *raw,
		    const char *suffix, uint32_t rank, int bind)
{
	char *dm = demangled(raw);
	const char *nm = dm ? dm : raw;
	size_t l, ls = suffix ? strlen(suffix) : 0;

	l = strlen(nm);
	if (b->nused + l + ls + 1 > b->ncap) {
		size_t nc = b->ncap ? b->ncap * 2 : 4096;
		char *nn;

		while (nc < b->nused + l + ls + 1)
			nc *= 2;
		nn = realloc(b->names, nc);
		if (!nn)
			goto oom;
		b->names = nn;
		b->ncap = nc;
	}
	if (b->nsyms == b->cap) {
		int nc = b->cap ? b->cap * 2 : 256;
		struct sym *ns = realloc(b->syms, (size_t)nc * sizeof(*ns));

		if (!ns)
			goto oom;
		b->syms = ns;
		b->cap = nc;
	}
	memcpy(b->names + b->nused, nm, l);
	if (ls)
		memcpy(b->names + b->nused + l, suffix, ls);
	b->names[b->nused + l + ls] = 0;
	b->syms[b->nsyms++] = (struct sym){
		.addr = addr, .size = size, .noff = b->nused, .rank = rank,
		.alias = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 1,
	};
	b->nused += l + ls + 1;
	free(dm);
	return 0;
oom:
	free(dm);
	return -ENOMEM;
}

/* names point into b->names from here on; sorted for find_sym */
static void bin_seal(struct ubin *b)
{
	int k;

	for (k = 0; k < b->nsyms; k++)
		b->syms[k].name = b->names + b->syms[k].noff;
	if (b->nsyms)
		qsort(b->syms, (size_t)b->nsyms, sizeof(*b->syms), cmp_sym);
}

static void bin_clear(struct ubin *b)
{
	free(b->loads);
	free(b->syms);
	free(b->names);
	b->loads = NULL;
	b->syms = NULL;
	b->names = NULL;
	b->nloads = b->nsyms = b->cap = b->nfuncs = 0;
	b->nused = b->ncap = 0;
	b->no_offsets = false;
	b->src = SRC_NONE;
}

/* ---- user: ELF through elfutils ----------------------------------------------- */

static bool is_function(const GElf_Sym *sy, GElf_Word shndx)
{
	int t = GELF_ST_TYPE(sy->st_info);

	return (t == STT_FUNC || t == STT_GNU_IFUNC) && shndx != SHN_UNDEF && sy->st_value;
}

static Elf_Scn *section_of_type(Elf *e, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static Elf_Scn *section_named(Elf *e, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_section(Elf *e, const char *name)
{
	GElf_Shdr sh;
	size_t shstrndx;

	return !elf_getshdrstrndx(e, &shstrndx) && section_named(e, shstrndx, name, &sh);
}

/* The version names .gnu.version_d defines, by version index (0x7fff at most). */
struct verdefs {
	Elf_Data *versym;
	const char **name;
	size_t n;
};

static int verdefs_read(Elf *e, struct verdefs *v)
{
	GElf_Shdr sh;
	Elf_Scn *vs = section_of_type(e, SHT_GNU_versym, &sh);
	Elf_Scn *vd = section_of_type(e, SHT_GNU_verdef, &sh);
	Elf_Data *d = vd ? elf_getdata(vd, NULL) : NULL;
	size_t off = 0, k;

	memset(v, 0, sizeof(*v));
	v->versym = vs ? elf_getdata(vs, NULL) : NULL;
	if (!d || !v->versym)
		return 0;
	v->n = 0x8000;
	v->name = calloc(v->n, sizeof(*v->name));
	if (!v->name)
		return -ENOMEM;
	for (k = 0; k < sh.sh_info && k < v->n; k++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (!gelf_getverdef(d, (int)off, &def))
			break;
		/* the base definition names the file itself, not a version */
		if (!(def.vd_flags & VER_FLG_BASE) && off + def.vd_aux <= INT_MAX &&
		    gelf_getverdaux(d, (int)(off + def.vd_aux), &aux))
			v->name[def.vd_ndx & 0x7fff] = elf_strptr(e, sh.sh_link, aux.vda_name);
		if (!def.vd_next || off + def.vd_next > INT_MAX)
			break;
		off += def.vd_next;
	}
	return 0;
}

/* "@VER" for a hidden version, "@@VER" for the default one (as perf and binutils print them) */
static const char *version_suffix(const struct verdefs *v, size_t ndx, char *buf, size_t len)
{
	GElf_Versym vs;
	const char *n;

	if (!v->name || !gelf_getversym(v->versym, (int)ndx, &vs))
		return NULL;
	n = v->name[vs & 0x7fff];
	if (!n || !*n)
		return NULL;
	snprintf(buf, len, "%s%s", (vs & 0x8000) ? "@" : "@@", n);
	return buf;
}

/* .dynsym functions with their versions: what a stripped shared library still names */
static int read_dynsym(struct ubin *b, Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_of_type(e, SHT_DYNSYM, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	struct verdefs v;
	size_t k, n;
	int err;

	if (!d || !sh.sh_entsize)
		return 0;
	err = verdefs_read(e, &v);
	n = sh.sh_size / sh.sh_entsize;
	for (k = 1; k < n && k <= INT_MAX && !err; k++) {
		GElf_Sym sy;
		const char *nm, *sfx;
		char buf[128];

		if (!gelf_getsym(d, (int)k, &sy) || !is_function(&sy, sy.st_shndx))
			continue;
		nm = elf_strptr(e, sh.sh_link, sy.st_name);
		if (!nm || !*nm)
			continue;
		sfx = version_suffix(&v, k, buf, sizeof(buf));
		err = add_name(b, sy.st_value, sy.st_size, nm, sfx, (uint32_t)k,
			       GELF_ST_BIND(sy.st_info));
	}
	free(v.name);
	return err;
}

/*
 * PLT stubs, named "foo@plt" after the .rela.plt entry each one jumps
 * through: entry k of .plt.sec, or of .plt after its header (16 bytes on
 * x86, 32 on arm64; other machines only with .plt.sec).
 */
static int read_plt(struct ubin *b, Elf *e, const GElf_Ehdr *eh)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rd, *dd;
	size_t shstrndx, n, k;
	uint64_t base, ent = 16, room, hdr;
	bool rela = true;
	int err = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	rel = section_named(e, shstrndx, ".rela.plt", &rsh);
	if (!rel) {
		rel = section_named(e, shstrndx, ".rel.plt", &rsh);
		rela = false;
	}
	if (!rel || !rsh.sh_entsize)
		return 0;
	hdr = eh->e_machine == EM_X86_64 || eh->e_machine == EM_386 ? 16 :
	      eh->e_machine == EM_AARCH64 ? 32 : 0;
	if ((plt = section_named(e, shstrndx, ".plt.sec", &psh))) {
		hdr = 0;
		if (psh.sh_entsize)
			ent = psh.sh_entsize;
	} else if (!hdr || !(plt = section_named(e, shstrndx, ".plt", &psh))) {
		return 0;
	}
	/* a debug file keeps the headers but not the code (NOBITS) */
	if (psh.sh_type != SHT_PROGBITS || psh.sh_size < hdr)
		return 0;
	base = psh.sh_addr + hdr;
	room = (psh.sh_size - hdr) / ent;
	dyn = elf_getscn(e, rsh.sh_link);
	rd = elf_getdata(rel, NULL);
	if (!dyn || !gelf_getshdr(dyn, &dsh) || !(dd = elf_getdata(dyn, NULL)) || !rd)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (k = 0; k < n && k < room && k <= INT_MAX && !err; k++) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sy;
		uint64_t info;
		const char *nm;

		if (rela ? !gelf_getrela(rd, (int)k, &ra) : !gelf_getrel(rd, (int)k, &r))
			continue;
		info = rela ? ra.r_info : r.r_info;
		if (!GELF_R_SYM(info) || GELF_R_SYM(info) > INT_MAX)
			continue;
		if (!gelf_getsym(dd, (int)GELF_R_SYM(info), &sy))
			continue;
		nm = elf_strptr(e, dsh.sh_link, sy.st_name);
		if (nm && *nm)
			err = add_name(b, base + k * ent, ent, nm, "@plt", UINT32_MAX, STB_GLOBAL);
	}
	return err;
}

static bool from_debuginfod(const struct rpt_syms *s, const char *file)
{
	size_t l = s->dbg_cache ? strlen(s->dbg_cache) : 0;

	return l && !strncmp(file, s->dbg_cache, l) && file[l] == '/';
}

#ifndef FT_STATIC
/* libdebuginfod's progress callback: a nonzero return ends the download */
static int debuginfod_progress(debuginfod_client *c, long a, long b)
{
	struct rpt_syms *s = debuginfod_get_user_data(c);
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s || now.tv_sec < s->deadline.tv_sec ||
	    (now.tv_sec == s->deadline.tv_sec && now.tv_nsec < s->deadline.tv_nsec))
		return 0;
	s->timed_out = true;
	return 1;
}
#endif

static Dwfl *dwfl_open(struct rpt_syms *s)
{
	Dwfl *d = dwfl_begin(&s->cb);

#ifndef FT_STATIC
	if (d && s->debuginfod) {
		debuginfod_client *c = dwfl_get_debuginfod_client(d);

		if (c) {
			debuginfod_set_user_data(c, s);
			debuginfod_set_progressfn(c, debuginfod_progress);
		}
	}
#endif
	return d;
}

static void warn_timeout(const struct rpt_syms *s, const struct ubin *b)
{
	ft_warn("debuginfod: no debug file for '%s' within %d s (DEBUGINFOD_TIMEOUT)", b->path,
		s->dbg_timeout);
}

void rpt_syms_warn(const struct rpt_syms *s)
{
	for (int k = 0; s && k < s->nbins; k++)
		if (s->bins[k].timed_out)
			warn_timeout(s, &s->bins[k]);
}

/* Function symbols of mod: the best table elfutils finds, .dynsym with versions, PLT stubs. */
static int read_symbols(struct rpt_syms *s, struct ubin *b, Dwfl_Module *mod, Elf *e,
			const GElf_Ehdr *eh)
{
	GElf_Shdr sh;
	bool symtab = section_of_type(e, SHT_SYMTAB, &sh) != NULL;
	const char *debugfile = NULL;
	int n, k, err = 0, from_main = 0, from_other = 0;

	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	s->deadline.tv_sec += s->dbg_timeout;
	s->timed_out = false;
	/* this is where elfutils looks for a debug file: build-id, debuglink, debuginfod */
	n = dwfl_module_getsymtab(mod);
	for (k = 1; k < n && !err; k++) {
		GElf_Sym sy;
		GElf_Addr a;
		GElf_Word shndx;
		Elf *se = NULL;
		Dwarf_Addr bias;
		const char *nm = dwfl_module_getsym_info(mod, k, &sy, &a, &shndx, &se, &bias);

		if (!nm || !*nm || !is_function(&sy, shndx))
			continue;
		if (se == e) {
			from_main++;
			if (!symtab)
				continue;	/* .dynsym: read below, with the versions */
		} else {
			from_other++;
		}
		/* st_value, not a: the binary's own addresses, like the loads */
		err = add_name(b, sy.st_value, sy.st_size, nm, NULL, (uint32_t)k,
			       GELF_ST_BIND(sy.st_info));
	}
	b->timed_out = s->timed_out;
	if (b->timed_out && !s->quiet)
		warn_timeout(s, b);
	if (!err && !symtab && from_main)
		err = read_dynsym(b, e);
	b->nfuncs = b->nsyms;
	if (!err)
		err = read_plt(b, e, eh);
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (symtab)
		b->src = SRC_SYMTAB;
	else if (from_other && debugfile)
		b->src = from_debuginfod(s, debugfile) ? SRC_DEBUGINFOD : SRC_DEBUGFILE;
	else if (from_other && has_section(e, ".gnu_debugdata"))
		b->src = SRC_MINIDEBUG;	/* read by elfutils (xz) */
	else if (from_other)
		/* libdwfl gives no file name for what debuginfod sent */
		b->src = s->debuginfod ? SRC_DEBUGINFOD : SRC_DEBUGFILE;
	else if (from_main)
		b->src = SRC_DYNSYM;
	return err;
}

static int read_loads(struct ubin *b, Elf *e)
{
	size_t n, k;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	b->loads = calloc(n ? n : 1, sizeof(*b->loads));
	if (!b->loads)
		return -ENOMEM;
	for (k = 0; k < n && k <= INT_MAX; k++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)k, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->loads[b->nloads++] = (struct load){ ph.p_vaddr, ph.p_memsz, ph.p_offset,
						       ph.p_filesz, ph.p_flags };
		/*
		 * code with no bytes in the file: a debug file
		 * (objcopy --only-keep-debug, eu-strip -f)
		 */
		if ((ph.p_flags & PF_X) && ph.p_memsz && !ph.p_filesz)
			b->no_offsets = true;
	}
	return 0;
}

/*
 * 0 when b's build-id (hex) is mod's; with fill, b gets the file's when it
 * has none (nothing recorded: any build of the path is taken).
 */
static int check_buildid(struct ubin *b, Dwfl_Module *mod, bool fill)
{
	const unsigned char *bits;
	GElf_Addr va;
	char hex[129];
	int n = dwfl_module_build_id(mod, &bits, &va), k;

	if (n > 64)
		return -ESTALE;
	for (k = 0; k < n; k++)
		snprintf(hex + 2 * k, 3, "%02x", bits[k]);
	hex[n > 0 ? 2 * n : 0] = 0;
	if (fill)
		return !b->buildid && n > 0 && !(b->buildid = strdup(hex)) ? -ENOMEM : 0;
	/* else another build of that path */
	return n <= 0 || strcasecmp(hex, b->buildid) ? -ESTALE : 0;
}

/* Read loads and function symbols of the ELF file into b.  0, or -errno. */
static int load_elf(struct rpt_syms *s, struct ubin *b, const char *file, const char *want_bid)
{
	Dwfl *d = dwfl_open(s);
	Dwfl_Module *mod;
	GElf_Addr bias;
	GElf_Ehdr eh;
	Elf *e = NULL;
	int err;

	if (!d)
		return -ENOMEM;
	dwfl_report_begin(d);
	mod = dwfl_report_elf(d, b->path, file, -1, 0, false);
	dwfl_report_end(d, NULL, NULL);
	if (!mod || !(e = dwfl_module_getelf(mod, &bias)) || !gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	bin_clear(b);
	err = want_bid ? check_buildid(b, mod, false) : 0;
	err = err ?: read_loads(b, e);
	if (!err) {
		b->etype = eh.e_type;
		err = read_symbols(s, b, mod, e, &eh);
	}
	err = err ?: check_buildid(b, mod, true);
out:
	dwfl_end(d);
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

/*
 * A stored entry's CFI block (docs/bpf.md), from its start (the end of the
 * string table, 8-aligned) to the entry's end: kept when its sizes fit
 * and it names an ELF class and byte order, else ignored.
 */
#define CFI_HEAD 40
static void cfi_block(struct ubin *b, const uint8_t *d, size_t from, size_t end)
{
	size_t c = (from + 7) & ~(size_t)7, room;
	uint32_t hsz;
	uint64_t esz;

	if (c > end || end - c < CFI_HEAD)
		return;
	room = end - c - CFI_HEAD;
	memcpy(&hsz, d + c + 4, 4);
	memcpy(&esz, d + c + 24, 8);
	if ((d[c + 2] != ELFCLASS32 && d[c + 2] != ELFCLASS64) ||
	    (d[c + 3] != ELFDATA2LSB && d[c + 3] != ELFDATA2MSB) || hsz > room ||
	    ((hsz + 7) & ~(size_t)7) > room || !esz || esz > room - ((hsz + 7) & ~(size_t)7))
		return;
	b->cfi = d + c;
	b->cfi_len = end - c;
}

/*
 * The stored CFI as an ELF file, for elfutils' unwinder (which reads a
 * module from a file descriptor): the binary's class, byte order,
 * machine, type and entry point, its loads (no bytes behind them: the file
 * holds no code), and .eh_frame_hdr then .eh_frame at their addresses, in
 * a memfd.  libelf lays it out; -1 when it cannot be made.
 */
static int cfi_elf(const struct ubin *b)
{
	const uint8_t *c = b->cfi;
	uint16_t machine;
	uint32_t hsz;
	uint64_t hva, eva, esz, entry;
	const char names[] = "\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
	GElf_Ehdr eh;
	Elf *e = NULL;
	int fd, k, ok = 0;

	memcpy(&machine, c, 2);
	memcpy(&hsz, c + 4, 4);
	memcpy(&hva, c + 8, 8);
	memcpy(&eva, c + 16, 8);
	memcpy(&esz, c + 24, 8);
	memcpy(&entry, c + 32, 8);
	fd = memfd_create("flytrap-cfi", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !gelf_newehdr(e, c[2]) || !gelf_getehdr(e, &eh))
		goto out;
	eh.e_ident[EI_DATA] = c[3];
	eh.e_type = (GElf_Half)b->etype;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_entry = entry;
	if (!gelf_update_ehdr(e, &eh) || (b->nloads && !gelf_newphdr(e, (size_t)b->nloads)))
		goto out;
	for (k = 0; k < b->nloads; k++) {
		GElf_Phdr ph = {
			.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = b->loads[k].vaddr,
			.p_paddr = b->loads[k].vaddr, .p_memsz = b->loads[k].memsz,
			.p_align = 4096,
		};

		if (!gelf_update_phdr(e, k, &ph))
			goto out;
	}
	{
		const uint8_t *hp = c + CFI_HEAD, *ep = hp + ((hsz + 7) & ~(size_t)7);
		const struct { size_t name; uint64_t va, size; const uint8_t *p; GElf_Word type;
			       GElf_Xword flags; } part[3] = {
			{ 1, hva, hsz, hp, SHT_PROGBITS, SHF_ALLOC },
			{ 15, eva, esz, ep, SHT_PROGBITS, SHF_ALLOC },
			{ 25, 0, sizeof(names), (const uint8_t *)names, SHT_STRTAB, 0 },
		};

		for (k = 0; k < 3; k++) {
			Elf_Scn *scn;
			Elf_Data *dd;
			GElf_Shdr sh;

			if (!part[k].size)
				continue;	/* no .eh_frame_hdr: .eh_frame alone */
			if (!(scn = elf_newscn(e)) || !(dd = elf_newdata(scn)) ||
			    !gelf_getshdr(scn, &sh))
				goto out;
			dd->d_buf = (void *)(uintptr_t)part[k].p;
			dd->d_size = part[k].size;
			dd->d_type = ELF_T_BYTE;
			dd->d_align = 1;
			dd->d_version = EV_CURRENT;
			sh.sh_name = (GElf_Word)part[k].name;
			sh.sh_type = part[k].type;
			sh.sh_flags = part[k].flags;
			sh.sh_addr = part[k].va;
			sh.sh_addralign = 1;
			if (!gelf_update_shdr(scn, &sh))
				goto out;
			if (k == 2) {
				/* read again: gelf_newphdr set the program header count */
				if (!gelf_getehdr(e, &eh))
					goto out;
				eh.e_shstrndx = (GElf_Half)elf_ndxscn(scn);
				if (!gelf_update_ehdr(e, &eh))
					goto out;
			}
		}
	}
	ok = elf_update(e, ELF_C_WRITE) > 0;
out:
	if (e)
		elf_end(e);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
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
		uint32_t rs, nloads, nsyms, strsz, flags;
		uint16_t pl;
		uint8_t bl, et;
		size_t p, loads_off, syms_off, str_off;
		int bi;
		uint32_t j;
		struct ubin *b;

		if (!rd(d, len, off, &rs, 4) || rs < 24 || rs > len - off)
			return;
		if (!rd(d, len, off + 4, &pl, 2) || !rd(d, len, off + 6, &bl, 1) ||
		    !rd(d, len, off + 7, &et, 1) || !rd(d, len, off + 8, &nloads, 4) ||
		    !rd(d, len, off + 12, &nsyms, 4) || !rd(d, len, off + 16, &strsz, 4) ||
		    !rd(d, len, off + 20, &flags, 4))
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
		bin_clear(b);
		b->etype = et;
		b->loads = calloc(nloads ? nloads : 1, sizeof(*b->loads));
		if (!b->loads)
			return;
		for (j = 0; j < nloads; j++) {
			const uint8_t *l = d + loads_off + (size_t)j * 32;

			memcpy(&b->loads[j].vaddr, l, 8);
			memcpy(&b->loads[j].memsz, l + 8, 8);
			memcpy(&b->loads[j].offset, l + 16, 8);
			memcpy(&b->loads[j].filesz, l + 24, 8);
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
			if (add_name(b, a, sz, (const char *)d + str_off + no, NULL, j, STB_GLOBAL))
				return;
		}
		if (flags & SYMTAB_F_CFI)
			cfi_block(b, d, str_off + strsz, off + rs);
		bin_seal(b);
		b->nfuncs = b->nsyms;
		b->src = SRC_RECORDED;
		b->tried = b->ok = true;
		off += rs;
	}
}

static bool try_file(struct rpt_syms *s, struct ubin *b, const char *file, const char *bid,
		     bool debug)
{
	if (access(file, R_OK))
		return false;
	if (load_elf(s, b, file, bid)) {
		bin_clear(b);
		return false;
	}
	if (debug)
		b->src = SRC_DEBUGFILE;
	bin_seal(b);
	free(b->file);
	b->file = strdup(file);	/* NULL on ENOMEM: the unwinder goes without it */
	return true;
}

/*
 * A binary named by a stored table (record --symbols) may still be on this
 * machine, the same build (its build-id recorded): the stored names stay,
 * but the file is what the unwinder reads the CFI and code from, so that
 * --symbols does not switch unwinding off where the binary is.
 */
static void stored_find_file(struct rpt_syms *s, struct ubin *b)
{
	struct ubin t;
	char file[PATH_MAX];
	const char *base = strrchr(b->path, '/');
	int k;

	b->disk_tried = true;
	if (b->file || !b->buildid)
		return;
	for (k = 0; k < 3; k++) {
		if (k < 2 && !s->symfs)
			continue;
		if (k == 0)
			snprintf(file, sizeof(file), "%s%s", s->symfs, b->path);
		else if (k == 1)
			snprintf(file, sizeof(file), "%s/%s", s->symfs, base ? base + 1 : b->path);
		else
			snprintf(file, sizeof(file), "%s", b->path);
		memset(&t, 0, sizeof(t));
		t.path = b->path;
		t.buildid = b->buildid;
		if (!try_file(s, &t, file, b->buildid, false))
			continue;
		bin_clear(&t);
		b->file = t.file;
		return;
	}
}

/*
 * The binary itself, under --symfs or at its path (the same build when a
 * build-id was recorded), else, for a binary not on this machine, its
 * debug file found by build-id (the same build by construction; its loads
 * match the binary's).  elfutils then finds the debug file of a stripped
 * binary (build-id, .gnu_debuglink, MiniDebugInfo, debuginfod).
 */
static void bin_load(struct rpt_syms *s, struct ubin *b)
{
	char file[PATH_MAX];
	int k;

	if (b->tried) {
		if (b->src == SRC_RECORDED && !b->disk_tried)
			stored_find_file(s, b);
		return;
	}
	b->tried = true;
	if (s->symfs) {
		const char *base = strrchr(b->path, '/');

		snprintf(file, sizeof(file), "%s%s", s->symfs, b->path);
		if (try_file(s, b, file, b->buildid, false))
			goto ok;
		snprintf(file, sizeof(file), "%s/%s", s->symfs, base ? base + 1 : b->path);
		if (try_file(s, b, file, b->buildid, false))
			goto ok;
	}
	if (try_file(s, b, b->path, b->buildid, false))
		goto ok;
	if (b->buildid && strlen(b->buildid) > 2) {
		for (k = 0; k <= s->ndebug + (s->symfs != NULL); k++) {
			const char *dir = k < s->ndebug ? s->debug_dirs[k] :
					  k == s->ndebug ? "/usr/lib/debug" : s->symfs;

			snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", dir, b->buildid,
				 b->buildid + 2);
			if (try_file(s, b, file, NULL, true))
				goto ok;
		}
	}
	return;
ok:
	b->ok = true;
}

/*
 * The binary's address for addr in m when b's loads carry no file offsets
 * (b->no_offsets).  The loader maps a load from its p_vaddr rounded down to
 * the recording machine's page, so m (merged with the mappings of the same
 * file that continue it) is as long as one executable load rounded out to
 * the page: that load and that page size (4, 16 or 64 KiB; where two
 * sizes give that length, they give the same start) place addr.
 */
static void join_pieces(const struct uproc *p, struct umap *m)
{
	uint64_t start = m->start, end = m->end, pgoff = m->pgoff;
	bool more = true;
	int k;

	while (more) {
		more = false;
		for (k = 0; k < p->nmaps; k++) {
			const struct umap *o = &p->maps[k];

			if (o->bin != m->bin || !o->has_pgoff)
				continue;
			if (o->end == start && o->pgoff < pgoff &&
			    pgoff - o->pgoff == start - o->start) {
				start = o->start;
				pgoff = o->pgoff;
				more = true;
			} else if (o->start == end && o->pgoff > pgoff &&
				   o->pgoff - pgoff == end - start) {
				end = o->end;
				more = true;
			}
		}
	}
	m->jstart = start;
	m->jend = end;
	m->joined = true;
}

static bool va_from_length(const struct uproc *p, struct umap *m, const struct ubin *b,
			   uint64_t addr, uint64_t *va)
{
	static const uint64_t pages[] = { 4096, 16384, 65536 };
	uint64_t start, end;
	int k, j;

	/* /proc/PID/maps splits a mapping (mprotect, madvise): its pieces joined again */
	if (!m->joined)
		join_pieces(p, m);
	start = m->jstart;
	end = m->jend;
	for (k = 0; k < b->nloads; k++) {
		const struct load *l = &b->loads[k];

		if (!(l->flags & PF_X) || !l->memsz || l->vaddr > UINT64_MAX - l->memsz - 65536)
			continue;
		for (j = 0; j < (int)(sizeof(pages) / sizeof(pages[0])); j++) {
			uint64_t lo = l->vaddr & ~(pages[j] - 1);
			uint64_t hi = (l->vaddr + l->memsz + pages[j] - 1) & ~(pages[j] - 1);
			uint64_t v = addr - start + lo;

			if (hi - lo != end - start)
				continue;
			if (v < l->vaddr || v - l->vaddr >= l->memsz)
				break;	/* another load, perhaps */
			*va = v;
			return true;
		}
	}
	return false;
}

/* the binary's own address (the one its symbols carry) for addr in m, or false */
static bool bin_va(const struct uproc *p, struct umap *m, const struct ubin *b,
		   uint64_t addr, uint64_t *va)
{
	uint64_t foff, base = m->start, first = UINT64_MAX;
	int k;

	if (b->etype == ET_EXEC) {
		*va = addr;
		return true;
	}
	if (m->has_pgoff && b->no_offsets)
		return va_from_length(p, m, b, addr, va);
	if (m->has_pgoff) {
		foff = addr - m->start + m->pgoff;
		for (k = 0; k < b->nloads; k++)
			if (foff >= b->loads[k].offset &&
			    foff - b->loads[k].offset < b->loads[k].filesz) {
				*va = foff - b->loads[k].offset + b->loads[k].vaddr;
				return true;
			}
		return false;
	}
	/* no file offsets (trace-cmd maps): the lowest mapping of the path is the load base */
	for (k = 0; k < p->nmaps; k++)
		if (p->maps[k].bin == m->bin && p->maps[k].start < base)
			base = p->maps[k].start;
	for (k = 0; k < b->nloads; k++) {
		/* a debug file's offsets are its own: the first load starts the file */
		uint64_t v = b->no_offsets ? b->loads[k].vaddr & ~(uint64_t)4095 :
			     b->loads[k].vaddr - b->loads[k].offset;

		if (v < first)
			first = v;
	}
	if (first == UINT64_MAX)
		first = 0;
	*va = addr - base + first;
	return true;
}

/*
 * The binary mapped at addr in process tgid (read now if it was not yet)
 * and addr as that binary's own address: the binary, or NULL when no
 * mapping covers addr; *va_ok whether *va could be placed.
 */
static struct ubin *user_bin(struct rpt_syms *s, int tgid, uint64_t addr, uint64_t *va,
			     bool *va_ok)
{
	struct uproc *p = s ? proc_get(s, tgid, false) : NULL;
	struct umap *m = NULL;
	struct ubin *b;
	int lo, hi;

	*va_ok = false;
	if (!p || !p->nmaps)
		return NULL;
	maps_sort(p);
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
	bin_load(s, b);
	*va_ok = b->ok && bin_va(p, m, b, addr, va);
	return b;
}

const char *rpt_syms_user(struct rpt_syms *s, int tgid, uint64_t addr, const char **dso,
			  uint64_t *off)
{
	const struct sym *sy;
	struct ubin *b;
	uint64_t va = 0;
	bool va_ok;

	b = user_bin(s, tgid, addr, &va, &va_ok);
	if (dso) {
		const char *base = b ? strrchr(b->path, '/') : NULL;

		*dso = !b ? NULL : base ? base + 1 : b->path;
	}
	if (!b || !va_ok || !b->nsyms)
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

/* ---- user: inlined functions, from DWARF ---------------------------------------- */

/*
 * b's DWARF: the file read for its symbols (the binary or its debug file)
 * reported again, at its own addresses, in a Dwfl kept for later
 * addresses; libdwfl finds the debug file of a stripped binary the way it
 * found its symbols (by then in debuginfod's cache when a server sent it).
 */
static Dwfl_Module *bin_dwarf(struct rpt_syms *s, struct ubin *b)
{
	Dwarf_Addr bias;
	Dwfl_Module *mod;

	if (b->dw_tried)
		return b->dwmod;
	b->dw_tried = true;
	/* a server that did not answer for the symbols is not asked again */
	if (!b->file || b->timed_out || !(b->dw = dwfl_open(s)))
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	s->deadline.tv_sec += s->dbg_timeout;
	dwfl_report_begin(b->dw);
	/* base 0 with p_vaddr added: module addresses are the binary's own (bin_va's) */
	mod = dwfl_report_elf(b->dw, b->path, b->file, -1, 0, true);
	dwfl_report_end(b->dw, NULL, NULL);
	if (mod && dwfl_module_getdwarf(mod, &bias))
		b->dwmod = mod;
	if (!b->dwmod) {
		dwfl_end(b->dw);
		b->dw = NULL;
	}
	return b->dwmod;
}

/* name interned in s (one copy of each), NULL on ENOMEM */
static const char *inline_name(struct rpt_syms *s, const char *name)
{
	bool created;
	char **slot = rpt_map_get(&s->inames, rpt_hash_str(name), &created), *c;

	if (slot && !created && *slot && !strcmp(*slot, name))
		return *slot;
	if (s->nistr == s->cistr) {
		size_t nc = s->cistr ? 2 * s->cistr : 64;
		char **ns = realloc(s->istr, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		s->istr = ns;
		s->cistr = nc;
	}
	c = strdup(name);
	if (!c)
		return NULL;
	s->istr[s->nistr++] = c;
	if (slot && created)
		*slot = c;	/* a hash collision keeps the first name in the map */
	return c;
}

/*
 * The name of an inlined instance: its abstract origin's (integrated),
 * the linkage name demangled as the symbol tables' names are (C++:
 * "ns::Klass::method(int)"), else DW_AT_name.
 */
static const char *die_fname(struct rpt_syms *s, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	const char *nm;
	char *dm;

	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	dm = demangled(ln);
	nm = dm ? dm : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	nm = inline_name(s, nm ? nm : "[inlined]");
	free(dm);
	return nm;
}

/*
 * The inlined instances around va in mod, outermost first, into out (at
 * most max): the innermost scope holding va, then the scopes around it in
 * the concrete tree (dwarf_getscopes goes on with the abstract origin's
 * lexical scopes past the first inlined instance; the caller's are what a
 * call chain needs) up to the function they were inlined into.
 */
static int inline_chain(struct rpt_syms *s, Dwfl_Module *mod, uint64_t va, const char **out,
			int max)
{
	const char *in[RPT_SYMS_MAX_INLINE];
	Dwarf_Die *sc = NULL, inner;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, va, &bias);
	int n, k, m = 0;

	if (!cu || dwarf_getscopes(cu, va - bias, &sc) <= 0) {
		free(sc);
		return 0;
	}
	inner = sc[0];
	free(sc);
	sc = NULL;
	n = dwarf_getscopes_die(&inner, &sc);
	for (k = 0; k < n && m < RPT_SYMS_MAX_INLINE; k++) {
		int tag = dwarf_tag(&sc[k]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_compile_unit)
			break;
		if (tag == DW_TAG_inlined_subroutine && (in[m] = die_fname(s, &sc[k])))
			m++;
	}
	free(sc);
	/* a chain cut by max keeps its outer end: the callers of what is dropped */
	for (k = 0; k < m && k < max; k++)
		out[k] = in[m - 1 - k];
	return k;
}

static bool grow_ichain(struct rpt_syms *s, size_t n)
{
	size_t nc = s->cichain ? s->cichain : 256;
	const char **nv;

	while (nc < s->nichain + n)
		nc *= 2;
	nv = realloc(s->ichain, nc * sizeof(*nv));
	if (!nv)
		return false;
	s->ichain = nv;
	s->cichain = nc;
	return true;
}

int rpt_syms_user_inline(struct rpt_syms *s, int tgid, uint64_t addr, const char **names,
			 int max)
{
	struct ubin *b;
	struct icache *c;
	Dwfl_Module *mod;
	const char *ch[RPT_SYMS_MAX_INLINE];
	uint64_t va = 0, key;
	bool va_ok, created;
	int n, k;

	b = user_bin(s, tgid, addr, &va, &va_ok);
	if (!b || !va_ok || max <= 0)
		return 0;
	key = va * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(b - s->bins);
	c = rpt_map_get(&s->icache, key, &created);
	if (c && !created && c->va == va && c->bin == (int)(b - s->bins))
		goto out;
	mod = bin_dwarf(s, b);
	n = mod ? inline_chain(s, mod, va, ch, RPT_SYMS_MAX_INLINE) : 0;
	if (!c || !created || (n && s->nichain + (size_t)n > s->cichain &&
			       !grow_ichain(s, (size_t)n))) {
		/* no room to keep it (ENOMEM, a hash collision): this answer only */
		for (k = 0; k < n && k < max; k++)
			names[k] = ch[k];
		return k;
	}
	c->va = va;
	c->bin = (int)(b - s->bins);
	c->at = (uint32_t)s->nichain;
	c->n = (uint32_t)n;
	if (n) {
		memcpy(s->ichain + s->nichain, ch, (size_t)n * sizeof(*ch));
		s->nichain += (size_t)n;
	}
out:
	for (k = 0; k < (int)c->n && k < max; k++)
		names[k] = s->ichain[c->at + k];
	return k;
}

int rpt_syms_user_map(struct rpt_syms *s, int tgid, int k, struct rpt_syms_umap *out)
{
	struct uproc *p = s ? proc_get(s, tgid, false) : NULL;
	struct umap *m;
	struct ubin *b;
	uint64_t va;

	if (!p || k < 0 || k >= p->nmaps)
		return -1;
	maps_sort(p);
	m = &p->maps[k];
	b = &s->bins[m->bin];
	bin_load(s, b);
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->start = m->start;
	out->end = m->end;
	out->path = b->path;
	if (!b->ok || !(b->file || b->cfi) || !bin_va(p, m, b, m->start, &va))
		return 0;
	if (!b->file) {
		/* not on this machine: the CFI record --symbols stored */
		if (!b->cfi_fd_tried) {
			b->cfi_fd_tried = true;
			b->cfi_fd = cfi_elf(b);
		}
		if (b->cfi_fd < 0)
			return 0;
		out->fd = b->cfi_fd;
	}
	out->file = b->file;
	out->bias = m->start - va;
	return 0;
}

int rpt_syms_missing(const struct rpt_syms *s, char *buf, size_t len)
{
	int k, n = 0;
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (k = 0; s && k < s->nbins; k++) {
		if (!s->bins[k].tried || (s->bins[k].ok && s->bins[k].nfuncs))
			continue;
		if (used < len) {
			int w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "",
					 s->bins[k].path);

			if (w > 0)
				used += (size_t)w;
		}
		n++;
	}
	return n;
}

int rpt_syms_binary(const struct rpt_syms *s, int k, struct rpt_syms_bin *out)
{
	int n = -1, j;

	for (j = 0; s && j < s->nbins; j++) {
		const struct ubin *b = &s->bins[j];

		if (!b->tried || ++n != k)
			continue;
		out->path = b->path;
		out->buildid = b->buildid;
		out->source = src_names[b->ok && b->nfuncs ? b->src : SRC_NONE];
		out->nsyms = b->ok ? b->nsyms : 0;
		out->timed_out = b->timed_out;
		return 0;
	}
	return -1;
}

void rpt_syms_take_tried(struct rpt_syms *dst, const struct rpt_syms *src)
{
	for (int k = 0; dst && src && k < dst->nbins && k < src->nbins; k++) {
		struct ubin *d = &dst->bins[k];
		const struct ubin *s = &src->bins[k];

		/* both are the same file's tables, in its order; anything else: leave them */
		if (strcmp(d->path, s->path))
			return;
		if (s->tried && !d->tried)
			bin_load(dst, d);
		/* a stored table's binary looked for on this machine: its second call does that */
		if (s->disk_tried && !d->disk_tried)
			bin_load(dst, d);
		d->timed_out |= s->timed_out;
	}
}

bool rpt_syms_debuginfod(const struct rpt_syms *s)
{
	return s && s->debuginfod;
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

/*
 * libdwfl's search path: the binary's directory and its .debug/, each
 * --debug-dir, --symfs and SYMFS/usr/lib/debug, then /usr/lib/debug.  An
 * absolute directory is searched for DIR/.build-id/xx/rest.debug and for
 * the .gnu_debuglink name under DIR/<the binary's directory>/.
 */
static int debug_path(struct rpt_syms *s)
{
	const char *dirs[3 + 64];
	size_t len = 1, used = 0;
	int k, n = 0;

	dirs[n++] = ".debug";
	/* a ':' cannot be said in that list: such a directory is only searched by build-id */
	for (k = 0; k < s->ndebug && n < 64; k++)
		if (!strchr(s->debug_dirs[k], ':'))
			dirs[n++] = s->debug_dirs[k];
	if (s->symfs && !strchr(s->symfs, ':'))
		dirs[n++] = s->symfs;
	dirs[n++] = "/usr/lib/debug";
	for (k = 0; k < n; k++)
		len += strlen(dirs[k]) + 1 + (dirs[k] == s->symfs ? strlen(s->symfs) + 16 : 0);
	s->dbgpath = malloc(len);
	if (!s->dbgpath)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		char *at = s->dbgpath + used;

		used += (size_t)snprintf(at, len - used, ":%s", dirs[k]);
		if (dirs[k] == s->symfs)
			used += (size_t)snprintf(s->dbgpath + used, len - used, ":%s/usr/lib/debug",
						 s->symfs);
	}
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = &s->dbgpath;
	return 0;
}

/*
 * debuginfod (libdwfl asks it when DEBUGINFOD_URLS is set and nothing on
 * this machine has the debug file): DEBUGINFOD_TIMEOUT seconds per binary,
 * 5 by default, not libdebuginfod's 90; its cache directory, to say which
 * names came from a server.  The static build has no libcurl: never.
 */
static int debuginfod_setup(struct rpt_syms *s, unsigned flags)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *t = getenv("DEBUGINFOD_TIMEOUT");
	const char *cache = getenv("DEBUGINFOD_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *end;
	long v;
	int n = 0;

#ifdef FT_STATIC
	flags |= RPT_SYMS_NO_DEBUGINFOD;
#endif
	if ((flags & RPT_SYMS_NO_DEBUGINFOD) || !urls || !*urls) {
		/* libdwfl reads the variable itself: off means unset */
		unsetenv("DEBUGINFOD_URLS");
		return 0;
	}
	s->debuginfod = true;
	s->dbg_timeout = 5;
	v = t ? strtol(t, &end, 10) : 0;
	if (t && *t && !*end && v > 0 && v < 86400)
		s->dbg_timeout = (int)v;
	else if (setenv("DEBUGINFOD_TIMEOUT", "5", 1))
		return -ENOMEM;
	if (cache && *cache)
		n = asprintf(&s->dbg_cache, "%s", cache);
	else if (xdg && *xdg)
		n = asprintf(&s->dbg_cache, "%s/debuginfod_client", xdg);
	else if (home && *home)
		n = asprintf(&s->dbg_cache, "%s/.cache/debuginfod_client", home);
	if (n < 0)
		s->dbg_cache = NULL;
	return n < 0 ? -ENOMEM : 0;
}

struct rpt_syms *rpt_syms_new(struct fmt_reader *r, const char *symfs,
			      const char *const *debug_dirs, unsigned flags)
{
	struct rpt_syms *s = calloc(1, sizeof(*s));
	const struct fmt_option *o;
	int n;

	if (!s)
		return NULL;
	s->quiet = flags & RPT_SYMS_QUIET;
	rpt_map_init(&s->icache, sizeof(struct icache));
	rpt_map_init(&s->inames, sizeof(char *));
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
	if (debug_path(s) || debuginfod_setup(s, flags))
		goto fail;
	if (!r)
		return s;
	/*
	 * The reader gave them to libtraceevent: one table, read and parsed on
	 * the first kernel address (a deferred one may turn out empty: then
	 * libtraceevent finds nothing, as with none).
	 */
	if (fmt_reader_has_kallsyms(r)) {
		s->reader = fmt_reader_tep(r) ? r : NULL;
		if (!s->reader) {
			const struct fmt_blob *ks = fmt_reader_kallsyms(r);

			if (rpt_syms_add_kallsyms(s, ks->data, ks->len) == -ENOMEM)
				goto fail;
		}
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
		free(s->bins[k].file);
		if (s->bins[k].cfi_fd_tried && s->bins[k].cfi_fd >= 0)
			close(s->bins[k].cfi_fd);
		bin_clear(&s->bins[k]);
		if (s->bins[k].dw)
			dwfl_end(s->bins[k].dw);
	}
	free(s->bins);
	for (k = 0; k < s->nprocs; k++) {
		free(s->procs[k].maps);
		free(s->procs[k].x);
	}
	free(s->procs);
	free(s->images);
	free(s->symfs);
	for (k = 0; k < s->ndebug; k++)
		free(s->debug_dirs[k]);
	free(s->debug_dirs);
	free(s->symtab);
	free(s->dbgpath);
	free(s->dbg_cache);
	rpt_map_release(&s->icache);
	rpt_map_release(&s->inames);
	free(s->ichain);
	for (size_t j = 0; j < s->nistr; j++)
		free(s->istr[j]);
	free(s->istr);
	free(s);
}
