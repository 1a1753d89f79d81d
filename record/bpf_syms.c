// SPDX-License-Identifier: GPL-2.0-only
/*
 * What user-space stack addresses need to be resolved on another machine:
 * the executable mappings of every process a BPF record came from, the
 * build-id of each mapped binary and, with --symbols, its ELF function
 * symbols and load segments.  Binaries are read through
 * /proc/PID/map_files/ while the process lives, so a binary deleted or
 * replaced on disk is still the one that ran.  Layouts: docs/bpf.md.
 */
#include <ctype.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "format.h"
#include "record/bpf_int.h"
#include "record/record.h"

#define SYMTAB_MAGIC "FTSYMS1"
#define SYMTAB_F_CFI 1u		/* an entry's flags (its u32 at +20): the CFI block follows */

struct load_seg {
	uint64_t vaddr, memsz, offset, filesz;
};

struct fsym {
	uint64_t addr, size;
	uint32_t name_off;
	uint8_t type, bind;
};

struct bin {
	char *path;
	unsigned long dev_major, dev_minor, ino;
	uint8_t bid[32];
	int bid_len;
	int etype;
	bool read_ok;
	struct load_seg *loads;
	int nloads;
	struct fsym *syms;
	int nsyms;
	char *strtab;
	size_t strsz;
	/*
	 * --symbols: the call-frame information (.eh_frame, .eh_frame_hdr as
	 * mapped), so that a stack copy unwinds where the binary is absent;
	 * cfi_eh NULL: none stored
	 */
	uint8_t *cfi_hdr, *cfi_eh;
	uint64_t cfi_hdr_va, cfi_eh_va, entry;
	uint32_t cfi_hdr_sz, cfi_eh_sz;
	uint16_t machine;
	uint8_t eclass, edata;
};

struct lib_range {
	char *path;
	uint64_t start, end;
};

struct mapent {
	uint64_t start, end, off;
	uint64_t at;		/* mono ns: when it was read (/proc) or reported (exit) */
	unsigned long maj, min, ino;
	char perms[5];
	char *path;		/* "[vdso]" or an absolute path */
};

struct proc {
	int pid;
	char comm[17];
	struct mapent *ents;	/* executable mappings, deduplicated */
	size_t nents, ents_cap;
	struct lib_range *libs;
	int nlibs;
	dev_t exe_dev;		/* /proc/PID/exe at the last read (exe_ino 0: unknown) */
	ino_t exe_ino;
	/*
	 * 0: the process's image (its last).  Else an earlier image, the one
	 * it ran until an exec at this stamp (mono ns, the trace clock): its
	 * mappings as the kernel reported them before that exec.
	 */
	uint64_t until;
};

struct seen {
	int tgid;		/* 0 = empty slot (tgid 0 is never noted) */
	int proc;		/* index into procs, -1 = nothing to read (kernel thread, gone) */
	int nreads;
	bool counted_gone;	/* counted in rec_syms.gone (maps never read from /proc) */
	uint64_t next_read;	/* mono ns */
};

/*
 * The call-frame information --symbols stores, in all (uncompressed): a
 * binary past it is stored without (docs/man/flytrap-record.1 says so).
 * libc's is about 100 KiB, python3's 0.5 MiB, a browser's tens of MiB.
 */
#define CFI_STORE_MAX (64ULL << 20)

struct rec_syms {
	bool symbols;
	uint64_t cfi_bytes, cfi_bins, cfi_left_out;
	struct seen *seen;	/* open-addressing hash on tgid */
	size_t seen_cap, seen_n;
	struct proc *procs;
	size_t nprocs, procs_cap;
	struct bin *bins;
	size_t nbins, bins_cap;
	uint64_t gone;
	uint64_t images;	/* earlier images kept (procs with until != 0) */
	long last_image;	/* the proc of the last earlier image added to, -1: none */
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *q;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

struct rec_syms *rec_syms_new(bool symbols)
{
	struct rec_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->symbols = symbols;
	s->last_image = -1;
	s->seen_cap = 1024;
	s->seen = calloc(s->seen_cap, sizeof(*s->seen));
	if (!s->seen) {
		free(s);
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(s->seen);
		free(s);
		errno = EINVAL;
		return NULL;
	}
	return s;
}

static void bin_release(struct bin *b)
{
	free(b->path);
	free(b->loads);
	free(b->syms);
	free(b->strtab);
	free(b->cfi_hdr);
	free(b->cfi_eh);
}

void rec_syms_free(struct rec_syms *s)
{
	size_t i, k;
	int j;

	if (!s)
		return;
	for (i = 0; i < s->nprocs; i++) {
		for (k = 0; k < s->procs[i].nents; k++)
			free(s->procs[i].ents[k].path);
		free(s->procs[i].ents);
		for (j = 0; j < s->procs[i].nlibs; j++)
			free(s->procs[i].libs[j].path);
		free(s->procs[i].libs);
	}
	free(s->procs);
	for (i = 0; i < s->nbins; i++)
		bin_release(&s->bins[i]);
	free(s->bins);
	free(s->seen);
	free(s);
}

void rec_syms_counts(const struct rec_syms *s, uint64_t *captured, uint64_t *gone,
		     uint64_t *binaries)
{
	*captured = s ? s->nprocs - s->images : 0;
	*gone = s ? s->gone : 0;
	*binaries = s ? s->nbins : 0;
}

void rec_syms_cfi_counts(const struct rec_syms *s, uint64_t *binaries, uint64_t *bytes,
			 uint64_t *left_out)
{
	*binaries = s ? s->cfi_bins : 0;
	*bytes = s ? s->cfi_bytes : 0;
	*left_out = s ? s->cfi_left_out : 0;
}

static size_t slot_of(const struct seen *tab, size_t cap, int tgid)
{
	size_t i, mask = cap - 1;

	for (i = ((unsigned)tgid * 2654435761u) & mask; tab[i].tgid && tab[i].tgid != tgid;
	     i = (i + 1) & mask)
		;
	return i;
}

/* The entry of tgid, inserted (tgid set, proc -1, nreads 0) if new; NULL on ENOMEM. */
static struct seen *seen_get(struct rec_syms *s, int tgid)
{
	struct seen *e;

	if (s->seen_n * 2 >= s->seen_cap) {
		size_t ncap = s->seen_cap * 2, k;
		struct seen *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (k = 0; k < s->seen_cap; k++)
			if (s->seen[k].tgid)
				n[slot_of(n, ncap, s->seen[k].tgid)] = s->seen[k];
		free(s->seen);
		s->seen = n;
		s->seen_cap = ncap;
	}
	e = &s->seen[slot_of(s->seen, s->seen_cap, tgid)];
	if (!e->tgid) {
		e->tgid = tgid;
		e->proc = -1;
		s->seen_n++;
	}
	return e;
}

/* ---- ELF ------------------------------------------------------------------ */

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the GNU build-id note, from the sections or, without them, the program headers (libdwelf) */
static void read_build_id(Elf *e, struct bin *b)
{
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(e, &id);

	if (n > 0 && (size_t)n <= sizeof(b->bid) && id) {
		memcpy(b->bid, id, (size_t)n);
		b->bid_len = (int)n;
	}
}

static int read_loads(Elf *e, struct bin *b)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -EBADMSG;
	b->loads = calloc(n ? n : 1, sizeof(*b->loads));
	if (!b->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->loads[b->nloads++] = (struct load_seg){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz };
	}
	return 0;
}

/*
 * Call cb for every defined function symbol (.symtab, or .dynsym when the
 * binary is stripped).  Stops at cb's non-zero return.
 */
static int for_each_func(Elf *e, int (*cb)(void *arg, const char *name, const GElf_Sym *sym,
					   const GElf_Shdr *text), void *arg)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL, *use;
	Elf_Data *d;
	GElf_Shdr sh;
	size_t i, cnt;

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
		return 0;
	if (!gelf_getshdr(use, &sh) || !sh.sh_entsize)
		return -EBADMSG;
	d = elf_getdata(use, NULL);
	if (!d)
		return -EBADMSG;
	cnt = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < cnt; i++) {
		GElf_Sym sym;
		GElf_Shdr tsh;
		const char *name;
		Elf_Scn *ts;
		int t, r;

		if (!gelf_getsym(d, i, &sym))
			continue;
		t = GELF_ST_TYPE(sym.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !sym.st_value)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		ts = elf_getscn(e, sym.st_shndx);
		if (!ts || !gelf_getshdr(ts, &tsh))
			continue;
		r = cb(arg, name, &sym, &tsh);
		if (r)
			return r;
	}
	return 0;
}

struct symcollect {
	struct bin *b;
	size_t cap, strcap;
	int err;
};

static int collect_sym(void *arg, const char *name, const GElf_Sym *sym, const GElf_Shdr *text)
{
	struct symcollect *c = arg;
	struct bin *b = c->b;
	size_t len = strlen(name) + 1;
	size_t n = b->nsyms;

	if (grow((void **)&b->syms, &c->cap, n + 1, sizeof(*b->syms)) ||
	    grow((void **)&b->strtab, &c->strcap, b->strsz + len, 1)) {
		c->err = -ENOMEM;
		return 1;
	}
	if (b->strsz > UINT32_MAX - len) {
		c->err = -EOVERFLOW;
		return 1;
	}
	memcpy(b->strtab + b->strsz, name, len);
	b->syms[n] = (struct fsym){ sym->st_value, sym->st_size, (uint32_t)b->strsz,
				    GELF_ST_TYPE(sym->st_info), GELF_ST_BIND(sym->st_info) };
	b->strsz += len;
	b->nsyms++;
	return 0;
}

/* A section's raw bytes, when the file holds all of them (not NOBITS, sizes agree). */
static Elf_Data *section_bytes(Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS || !sh->sh_size)
		return NULL;
	d = elf_rawdata(scn, NULL);
	return d && d->d_buf && d->d_size == sh->sh_size ? d : NULL;
}

/*
 * .eh_frame and .eh_frame_hdr by name, as the loader maps them (what
 * elfutils' unwinder reads), within what is left of CFI_STORE_MAX.  A
 * binary without section headers stores none.
 */
static void read_cfi(struct rec_syms *s, struct bin *b, Elf *e, const GElf_Ehdr *eh)
{
	Elf_Scn *scn = NULL, *hdr = NULL, *frame = NULL;
	Elf_Data *hd, *fd;
	GElf_Shdr sh, hsh, fsh;
	size_t shstr;
	uint64_t need;

	if (elf_getshdrstrndx(e, &shstr))
		return;
	while ((scn = elf_nextscn(e, scn))) {
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		if (!strcmp(nm, ".eh_frame"))
			frame = scn;
		else if (!strcmp(nm, ".eh_frame_hdr"))
			hdr = scn;
	}
	fd = section_bytes(frame, &fsh);
	if (!fd)
		return;
	hd = section_bytes(hdr, &hsh);
	need = fd->d_size + (hd ? hd->d_size : 0);
	if (fd->d_size > UINT32_MAX / 4 || need > CFI_STORE_MAX - s->cfi_bytes) {
		s->cfi_left_out++;
		return;
	}
	b->cfi_eh = malloc(fd->d_size);
	b->cfi_hdr = hd ? malloc(hd->d_size) : NULL;
	if (!b->cfi_eh || (hd && !b->cfi_hdr)) {
		free(b->cfi_eh);
		free(b->cfi_hdr);
		b->cfi_eh = b->cfi_hdr = NULL;
		s->cfi_left_out++;
		return;
	}
	memcpy(b->cfi_eh, fd->d_buf, fd->d_size);
	b->cfi_eh_sz = (uint32_t)fd->d_size;
	b->cfi_eh_va = fsh.sh_addr;
	if (hd) {
		memcpy(b->cfi_hdr, hd->d_buf, hd->d_size);
		b->cfi_hdr_sz = (uint32_t)hd->d_size;
		b->cfi_hdr_va = hsh.sh_addr;
	}
	b->entry = eh->e_entry;
	b->machine = eh->e_machine;
	b->eclass = eh->e_ident[EI_CLASS];
	b->edata = eh->e_ident[EI_DATA];
	s->cfi_bytes += need;
	s->cfi_bins++;
}

static void read_elf(struct rec_syms *s, struct bin *b, Elf *e)
{
	GElf_Ehdr eh;

	if (!e)
		return;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		goto out;
	b->etype = eh.e_type;
	read_build_id(e, b);
	if (read_loads(e, b))
		goto out;
	if (s->symbols) {
		struct symcollect c = { .b = b };

		for_each_func(e, collect_sym, &c);
		if (c.err)
			goto out;
		if (b->nsyms)
			qsort(b->syms, b->nsyms, sizeof(*b->syms), fsym_cmp);
		read_cfi(s, b, e, &eh);
	}
	b->read_ok = true;
out:
	elf_end(e);
}

static void read_binary(struct rec_syms *s, struct bin *b, int fd)
{
	read_elf(s, b, elf_begin(fd, ELF_C_READ_MMAP, NULL));
}

/*
 * The vDSO has no file; every process of this kernel maps the same image
 * (at its own address), so the recorder's own copy gives its symbols under
 * the path "[vdso]" (clock_gettime & co. show up in user stacks).
 */
static void add_vdso(struct rec_syms *s)
{
	unsigned long long start = 0, end = 0;
	char line[512];
	struct bin *b;
	size_t i;
	FILE *f;

	for (i = 0; i < s->nbins; i++)
		if (!strcmp(s->bins[i].path, "[vdso]"))
			return;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end <= start || getauxval(AT_SYSINFO_EHDR) != start)
		return;
	if (grow((void **)&s->bins, &s->bins_cap, s->nbins + 1, sizeof(*s->bins)))
		return;
	b = &s->bins[s->nbins];
	memset(b, 0, sizeof(*b));
	b->path = strdup("[vdso]");
	if (!b->path)
		return;
	s->nbins++;
	read_elf(s, b, elf_memory((char *)(uintptr_t)start, end - start));
}

/* ---- processes ------------------------------------------------------------ */

static struct bin *find_or_add_bin(struct rec_syms *s, int pid, const char *path,
				   unsigned long maj, unsigned long min, unsigned long ino,
				   uint64_t start, uint64_t end)
{
	char p[96];
	struct bin *b;
	size_t i;
	int fd;

	for (i = 0; i < s->nbins; i++) {
		b = &s->bins[i];
		if (b->ino == ino && b->dev_major == maj && b->dev_minor == min && !strcmp(b->path, path))
			return b;
	}
	if (grow((void **)&s->bins, &s->bins_cap, s->nbins + 1, sizeof(*s->bins)))
		return NULL;
	b = &s->bins[s->nbins];
	memset(b, 0, sizeof(*b));
	b->path = strdup(path);
	if (!b->path)
		return NULL;
	b->dev_major = maj;
	b->dev_minor = min;
	b->ino = ino;
	s->nbins++;

	/* the mapped file itself, even if the path was deleted or replaced */
	fd = -1;
	if (pid > 0) {
		snprintf(p, sizeof(p), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
		fd = rec_open_regular(p, false);	/* a magic link: followed to the mapping */
	}
	if (fd < 0) {
		struct stat st;

		/* a path from the maps is never a link, unless someone replaced it since */
		fd = rec_open_regular(path, true);
		/* by path: only if it is still the file that was mapped */
		if (fd >= 0 && ino && (fstat(fd, &st) || st.st_ino != ino ||
				       major(st.st_dev) != maj || minor(st.st_dev) != min)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		read_binary(s, b, fd);
		close(fd);
	}
	return b;
}

int rec_syms_note_binary(struct rec_syms *s, const char *path)
{
	struct stat st;
	struct bin *b;

	if (stat(path, &st))
		return -errno;
	b = find_or_add_bin(s, 0, path, major(st.st_dev), minor(st.st_dev), st.st_ino, 0, 0);
	return b ? 0 : -ENOMEM;
}

static int add_lib(struct proc *pr, const char *path, uint64_t start, uint64_t end)
{
	struct lib_range *l;
	int i;

	for (i = 0; i < pr->nlibs; i++) {
		l = &pr->libs[i];
		if (!strcmp(l->path, path)) {
			if (start < l->start)
				l->start = start;
			if (end > l->end)
				l->end = end;
			return 0;
		}
	}
	l = realloc(pr->libs, (pr->nlibs + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	pr->libs = l;
	l = &pr->libs[pr->nlibs];
	l->path = strdup(path);
	if (!l->path)
		return -ENOMEM;
	l->start = start;
	l->end = end;
	pr->nlibs++;
	return 0;
}

static struct proc *proc_of(struct rec_syms *s, struct seen *e)
{
	if (e->proc < 0) {
		if (grow((void **)&s->procs, &s->procs_cap, s->nprocs + 1, sizeof(*s->procs)))
			return NULL;
		memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
		s->procs[s->nprocs].pid = e->tgid;
		strcpy(s->procs[s->nprocs].comm, "<...>");
		e->proc = s->nprocs++;
	}
	return &s->procs[e->proc];
}

/* Add one executable mapping (deduplicated) and its binary. */
static void add_mapping(struct rec_syms *s, struct proc *pr, int live_pid, uint64_t at,
			uint64_t start, uint64_t end, uint64_t off, unsigned long maj,
			unsigned long min, unsigned long ino, const char *perms, const char *path)
{
	struct mapent *m;
	char clean[4096];
	size_t i, pl = strlen(path);

	for (i = 0; i < pr->nents; i++) {
		m = &pr->ents[i];
		if (m->start == start && m->end == end && m->off == off && m->ino == ino) {
			if (at > m->at)
				m->at = at;
			return;
		}
	}
	if (pl >= sizeof(clean) ||
	    grow((void **)&pr->ents, &pr->ents_cap, pr->nents + 1, sizeof(*pr->ents)))
		return;
	memcpy(clean, path, pl + 1);
	if (pl > 10 && !strcmp(clean + pl - 10, " (deleted)"))
		clean[pl - 10] = 0;
	m = &pr->ents[pr->nents];
	m->path = strdup(clean);
	if (!m->path)
		return;
	m->start = start;
	m->end = end;
	m->off = off;
	m->at = at;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	snprintf(m->perms, sizeof(m->perms), "%.4s", perms);
	pr->nents++;
	if (clean[0] == '/') {
		add_lib(pr, clean, start, end);
		find_or_add_bin(s, live_pid, clean, maj, min, ino, start, end);
	}
}

/*
 * An exec at until replaced the image of pr: the mappings read or reported
 * before it were the old image's (the kernel reported those apart), those
 * read since are the new one's.  trace-cmd's library ranges are made again
 * from what stays.
 */
static void forget_before(struct proc *pr, uint64_t until)
{
	size_t i, n = 0;

	for (i = 0; i < pr->nents; i++) {
		if (pr->ents[i].at < until)
			free(pr->ents[i].path);
		else
			pr->ents[n++] = pr->ents[i];
	}
	if (n == pr->nents)
		return;
	pr->nents = n;
	for (i = 0; i < (size_t)pr->nlibs; i++)
		free(pr->libs[i].path);
	pr->nlibs = 0;
	for (i = 0; i < pr->nents; i++)
		if (pr->ents[i].path[0] == '/')
			add_lib(pr, pr->ents[i].path, pr->ents[i].start, pr->ents[i].end);
}

/*
 * A process that exec'd since its maps were last read runs another program:
 * the mappings of the old one go (a range of the old libc merged with the new
 * one's cut every stack in it).  What ran before the exec was its parent's
 * program, which callgraph names from the parent's maps (sched_process_fork
 * and _exec).
 */
static void forget_old_image(struct rec_syms *s, struct seen *e, struct stat *st)
{
	char path[64];
	struct proc *pr;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/exe", e->tgid);
	if (stat(path, st)) {
		st->st_ino = 0;
		return;
	}
	if (e->proc < 0)
		return;
	pr = &s->procs[e->proc];
	if (pr->exe_ino && (pr->exe_dev != st->st_dev || pr->exe_ino != st->st_ino)) {
		for (i = 0; i < pr->nents; i++)
			free(pr->ents[i].path);
		pr->nents = 0;
		for (i = 0; i < (size_t)pr->nlibs; i++)
			free(pr->libs[i].path);
		pr->nlibs = 0;
	}
}

/*
 * (Re-)read the executable mappings of e->tgid and merge them into its
 * proc entry.  Returns false when /proc has nothing (gone, kernel thread).
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The mappings read are stamped with the time the read ended: an exec
 * after it replaced them (forget_before()), one before it made them.
 */
static bool read_maps(struct rec_syms *s, struct seen *e)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	struct proc *pr = NULL;
	bool any = false;
	struct stat exe;
	FILE *f;
	ssize_t n;
	int fd;
	struct mline {
		unsigned long long start, end, off;
		unsigned long maj, min, ino;
		char perms[8];
		char *path;
	} *ml = NULL;
	size_t nml = 0, mlcap = 0;
	uint64_t now;

	forget_old_image(s, e, &exe);
	snprintf(path, sizeof(path), "/proc/%d/maps", e->tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* read whole first: the time after the read stamps them */
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long start, end, off;
		unsigned long maj, min, ino;
		char perms[8];
		int pos = 0;
		const char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %lx:%lx %lu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &pos) < 7 || !pos)
			continue;
		if (strlen(perms) < 3 || perms[2] != 'x')
			continue;
		p = line + pos;
		line[strcspn(line, "\n")] = 0;
		/* file-backed code, and the vdso (its symbols come from the kernel image) */
		if (*p != '/' && strcmp(p, "[vdso]"))
			continue;
		if (grow((void **)&ml, &mlcap, nml + 1, sizeof(*ml)))
			break;
		ml[nml] = (struct mline){ start, end, off, maj, min, ino, "", strdup(p) };
		memcpy(ml[nml].perms, perms, sizeof(perms));
		if (ml[nml].path)
			nml++;
	}
	free(line);
	fclose(f);
	now = mono_ns();
	for (size_t i = 0; i < nml; i++) {
		if (!pr && !(pr = proc_of(s, e)))
			break;
		any = true;
		add_mapping(s, pr, e->tgid, now, ml[i].start, ml[i].end, ml[i].off, ml[i].maj,
			    ml[i].min, ml[i].ino, ml[i].perms, ml[i].path);
	}
	for (size_t i = 0; i < nml; i++)
		free(ml[i].path);
	free(ml);
	if (!pr)
		return false;
	if (exe.st_ino) {
		pr->exe_dev = exe.st_dev;
		pr->exe_ino = exe.st_ino;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", e->tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char comm[sizeof(pr->comm)];

		n = read(fd, comm, sizeof(comm) - 1);
		if (n > 0) {
			comm[n] = 0;
			comm[strcspn(comm, "\n")] = 0;
			strcpy(pr->comm, comm);
		}
		close(fd);
	}
	return any;
}

/* The earlier image of tgid that ran until the exec at until: found, or added. */
static struct proc *image_of(struct rec_syms *s, int tgid, uint64_t until)
{
	struct proc *pr;

	/* the mappings of one exec come one after the other */
	if (s->last_image >= 0 && s->procs[s->last_image].pid == tgid &&
	    s->procs[s->last_image].until == until)
		return &s->procs[s->last_image];
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].until == until && s->procs[i].pid == tgid) {
			s->last_image = (long)i;
			return &s->procs[i];
		}
	if (grow((void **)&s->procs, &s->procs_cap, s->nprocs + 1, sizeof(*s->procs)))
		return NULL;
	pr = &s->procs[s->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->pid = tgid;
	pr->until = until;
	strcpy(pr->comm, "<...>");
	s->last_image = (long)s->nprocs++;
	s->images++;
	return pr;
}

void rec_syms_add_vma(struct rec_syms *s, int tgid, const char *comm, uint64_t at,
		      uint64_t start, uint64_t end, uint64_t off, unsigned long maj,
		      unsigned long min, unsigned long ino, unsigned flags, const char *path,
		      uint64_t until)
{
	char perms[5];
	struct seen *e;
	struct proc *pr;

	if (!s || tgid <= 0)
		return;
	if (until) {
		/* an earlier image: its own entry; the process's own loses what it had then */
		pr = image_of(s, tgid, until);
		if (!pr)
			return;
		if ((e = seen_get(s, tgid)) && e->proc >= 0)
			forget_before(&s->procs[e->proc], until);
		goto add;
	}
	if (!(e = seen_get(s, tgid)) || !(pr = proc_of(s, e)))
		return;
	if (e->counted_gone) {
		s->gone--;	/* its maps arrived from the kernel after all */
		e->counted_gone = false;
	}
	if (!e->nreads) {
		e->nreads = 1;
		e->next_read = UINT64_MAX;	/* exiting: /proc has nothing more */
	}
add:
	if (comm && comm[0])
		snprintf(pr->comm, sizeof(pr->comm), "%s", comm);
	perms[0] = flags & 1 ? 'r' : '-';
	perms[1] = flags & 2 ? 'w' : '-';
	perms[2] = flags & 4 ? 'x' : '-';
	perms[3] = flags & 8 ? 's' : 'p';
	perms[4] = 0;
	add_mapping(s, pr, 0, at, start, end, off, maj, min, ino, perms, path);
}

/*
 * A process is first seen right after exec often, before the dynamic
 * loader has mapped its libraries; so its maps are read again (merged) when
 * it shows up later: after 50 ms, 250 ms, 1 s, then every 10 s.
 */
static void schedule_next(struct seen *e, uint64_t now)
{
	static const uint64_t step[] = { 50000000, 250000000, 1000000000 };

	e->next_read = now + (e->nreads <= 3 ? step[e->nreads - 1] : 10000000000ull);
}

void rec_syms_note_pid(struct rec_syms *s, int tgid, uint64_t now)
{
	struct seen *e;

	if (!s || tgid <= 0)
		return;
	e = seen_get(s, tgid);
	if (!e)
		return;
	if (e->nreads && (e->next_read == UINT64_MAX))
		return;
	if (e->nreads && now < e->next_read)
		return;
	e->nreads++;
	if (!read_maps(s, e)) {
		if (e->nreads == 1 && e->proc < 0) {
			s->gone++;
			e->counted_gone = true;
		}
		e->next_read = UINT64_MAX;	/* gone or a kernel thread: never again */
		return;
	}
	schedule_next(e, now);
}

void rec_syms_refresh(struct rec_syms *s)
{
	size_t i;

	for (i = 0; s && i < s->seen_cap; i++)
		if (s->seen[i].tgid && s->seen[i].proc >= 0)
			read_maps(s, &s->seen[i]);
}

/* ---- output --------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void sb_put(struct sbuf *b, const void *d, size_t n)
{
	if (b->err)
		return;
	if (grow((void **)&b->p, &b->cap, b->len + n + 1, 1)) {
		b->err = -ENOMEM;
		return;
	}
	/* an empty piece may come without a buffer (a binary with no build-id) */
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->err = b->err ? b->err : -EOVERFLOW;
		return;
	}
	sb_put(b, tmp, n);
}

static void sb_pad8(struct sbuf *b)
{
	static const char z[8];

	if (b->len % 8)
		sb_put(b, z, 8 - b->len % 8);
}

static void sb_u16(struct sbuf *b, uint16_t v) { sb_put(b, &v, 2); }
static void sb_u32(struct sbuf *b, uint32_t v) { sb_put(b, &v, 4); }
static void sb_u64(struct sbuf *b, uint64_t v) { sb_put(b, &v, 8); }
static void sb_u8(struct sbuf *b, uint8_t v) { sb_put(b, &v, 1); }

static void build_symtab(struct rec_syms *s, struct sbuf *o)
{
	uint32_t nbin = 0;
	size_t i;
	int k;

	for (i = 0; i < s->nbins; i++)
		nbin += s->bins[i].read_ok;
	sb_put(o, SYMTAB_MAGIC, 8);
	sb_u32(o, nbin);
	sb_u32(o, 0);
	for (i = 0; i < s->nbins; i++) {
		struct bin *b = &s->bins[i];
		size_t start = o->len, pl = strlen(b->path);

		if (!b->read_ok)
			continue;
		if (pl > UINT16_MAX)
			pl = UINT16_MAX;
		sb_u32(o, 0);		/* rec_size, patched below */
		sb_u16(o, pl);
		sb_u8(o, b->bid_len);
		sb_u8(o, b->etype);
		sb_u32(o, b->nloads);
		sb_u32(o, b->nsyms);
		sb_u32(o, b->strsz);
		sb_u32(o, b->cfi_eh ? SYMTAB_F_CFI : 0);
		sb_put(o, b->path, pl);
		sb_put(o, b->bid, b->bid_len);
		sb_pad8(o);
		for (k = 0; k < b->nloads; k++) {
			sb_u64(o, b->loads[k].vaddr);
			sb_u64(o, b->loads[k].memsz);
			sb_u64(o, b->loads[k].offset);
			sb_u64(o, b->loads[k].filesz);
		}
		for (k = 0; k < b->nsyms; k++) {
			sb_u64(o, b->syms[k].addr);
			sb_u64(o, b->syms[k].size);
			sb_u32(o, b->syms[k].name_off);
			sb_u8(o, b->syms[k].type);
			sb_u8(o, b->syms[k].bind);
			sb_u16(o, 0);
		}
		sb_put(o, b->strtab, b->strsz);
		sb_pad8(o);
		if (b->cfi_eh) {
			sb_u16(o, b->machine);
			sb_u8(o, b->eclass);
			sb_u8(o, b->edata);
			sb_u32(o, b->cfi_hdr_sz);
			sb_u64(o, b->cfi_hdr_va);
			sb_u64(o, b->cfi_eh_va);
			sb_u64(o, b->cfi_eh_sz);
			sb_u64(o, b->entry);
			sb_put(o, b->cfi_hdr, b->cfi_hdr_sz);
			sb_pad8(o);
			sb_put(o, b->cfi_eh, b->cfi_eh_sz);
			sb_pad8(o);
		}
		if (!o->err) {
			uint32_t rs = o->len - start;

			memcpy(o->p + start, &rs, 4);
		}
	}
}

int rec_syms_write(struct rec_syms *s, struct fmt_writer *w, const pid_t *skip_pids, int nskip,
		   char *err, size_t errlen)
{
	struct sbuf pm = { 0 }, ft = { 0 }, bids = { 0 }, st = { 0 };
	uint64_t off;
	size_t i, k;
	int j, ret = 0;

	/*
	 * The earlier images first, as "=< PID UNTIL COMM" blocks: a reader
	 * that knows only "== PID COMM" has no process open before its first
	 * such line, and passes over them.
	 */
	for (i = 0; i < s->nprocs; i++) {
		struct proc *pr = &s->procs[i];

		if (!pr->until || !pr->nents)
			continue;
		sb_printf(&ft, "=< %d %" PRIu64 " %s\n", pr->pid, pr->until, pr->comm);
		for (k = 0; k < pr->nents; k++) {
			struct mapent *m = &pr->ents[k];

			sb_printf(&ft, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %02lx:%02lx %lu %s\n",
				  m->start, m->end, m->perms, m->off, m->maj, m->min, m->ino, m->path);
		}
	}
	for (i = 0; i < s->nprocs; i++) {
		struct proc *pr = &s->procs[i];
		bool skip = false;

		if (pr->until)
			continue;
		for (j = 0; j < nskip; j++)
			skip |= skip_pids[j] == pr->pid;
		if (!skip && pr->nlibs) {
			sb_printf(&pm, "%x %x %s\n", pr->pid, pr->nlibs, pr->comm);
			for (j = 0; j < pr->nlibs; j++)
				sb_printf(&pm, "%" PRIx64 " %" PRIx64 " %s\n", pr->libs[j].start,
					  pr->libs[j].end, pr->libs[j].path);
		}
		if (!pr->nents)
			continue;
		sb_printf(&ft, "== %d %s\n", pr->pid, pr->comm);
		for (k = 0; k < pr->nents; k++) {
			struct mapent *m = &pr->ents[k];

			sb_printf(&ft, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %02lx:%02lx %lu %s\n",
				  m->start, m->end, m->perms, m->off, m->maj, m->min, m->ino, m->path);
		}
	}
	for (i = 0; i < s->nbins; i++) {
		struct bin *b = &s->bins[i];
		char hex[65];
		int x;

		if (!b->bid_len)
			continue;
		for (x = 0; x < b->bid_len; x++)
			sprintf(hex + 2 * x, "%02x", b->bid[x]);
		sb_printf(&bids, "%s %s\n", b->path, hex);
	}
	if (s->symbols) {
		for (i = 0; i < s->nprocs; i++) {
			for (k = 0; k < s->procs[i].nents; k++)
				if (!strcmp(s->procs[i].ents[k].path, "[vdso]"))
					break;
			if (k < s->procs[i].nents) {
				add_vdso(s);
				break;
			}
		}
		build_symtab(s, &st);
	}
	ret = pm.err ? pm.err : ft.err ? ft.err : bids.err ? bids.err : st.err;
	if (ret) {
		snprintf(err, errlen, "cannot build the process tables: %s", strerror(-ret));
		goto out;
	}
	if (pm.len && pm.len < UINT32_MAX &&
	    (ret = fmt_writer_option(w, FMT_OPT_PROCMAPS, pm.p, pm.len + 1))) {
		snprintf(err, errlen, "cannot store the process maps: %s", fmt_writer_error(w));
		goto out;
	}
	if (ft.len) {
		ret = fmt_writer_section(w, FMT_SEC_FT_PROCMAPS, "flytrap procmaps", ft.p, ft.len, &off);
		if (!ret)
			ret = fmt_writer_option(w, FMT_OPT_FT_PROCMAPS, &off, sizeof(off));
		if (ret) {
			snprintf(err, errlen, "cannot store the process maps: %s", fmt_writer_error(w));
			goto out;
		}
	}
	if (bids.len && (ret = fmt_writer_option(w, FMT_OPT_FT_BUILDIDS, bids.p, bids.len + 1))) {
		snprintf(err, errlen, "cannot store the build-ids: %s", fmt_writer_error(w));
		goto out;
	}
	if (s->symbols) {
		ret = fmt_writer_section(w, FMT_SEC_FT_SYMTAB, "flytrap symtab", st.p, st.len, &off);
		if (!ret)
			ret = fmt_writer_option(w, FMT_OPT_FT_SYMTAB, &off, sizeof(off));
		if (ret) {
			snprintf(err, errlen, "cannot store the symbol tables: %s", fmt_writer_error(w));
			goto out;
		}
	}
out:
	free(pm.p);
	free(ft.p);
	free(bids.p);
	free(st.p);
	return ret;
}

/* ---- ufunc symbol matching ------------------------------------------------ */

struct matchctx {
	const char *glob;
	struct rec_ufunc_sym *v;
	size_t n, cap;
	int err;
};

static int match_sym(void *arg, const char *name, const GElf_Sym *sym, const GElf_Shdr *text)
{
	struct matchctx *m = arg;
	size_t i;

	if (fnmatch(m->glob, name, 0))
		return 0;
	if (!(text->sh_flags & SHF_EXECINSTR) || sym->st_value < text->sh_addr ||
	    sym->st_value - text->sh_addr >= text->sh_size)
		return 0;
	for (i = 0; i < m->n; i++)
		if (m->v[i].addr == sym->st_value)
			return 0;	/* alias of a function already matched */
	if (grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v))) {
		m->err = -ENOMEM;
		return 1;
	}
	m->v[m->n].name = strdup(name);
	if (!m->v[m->n].name) {
		m->err = -ENOMEM;
		return 1;
	}
	m->v[m->n].addr = sym->st_value;
	m->v[m->n].offset = sym->st_value - text->sh_addr + text->sh_offset;
	m->n++;
	return 0;
}

int rec_ufunc_match(const char *path, const char *glob, struct rec_ufunc_sym **out,
		    char *err, size_t errlen)
{
	struct matchctx m = { .glob = glob };
	Elf *e = NULL;
	int fd, ret;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf initialisation failed");
		return -EINVAL;
	}
	fd = rec_open_regular(path, false);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return ret;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		ret = -ENOEXEC;
		goto out;
	}
	ret = for_each_func(e, match_sym, &m);
	if (m.err || ret < 0) {
		ret = m.err ? m.err : ret;
		snprintf(err, errlen, "cannot read the symbols of '%s': %s", path, strerror(-ret));
		goto out;
	}
	*out = m.v;
	m.v = NULL;
	ret = m.n;
out:
	if (m.v)
		rec_ufunc_syms_free(m.v, m.n);
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

void rec_ufunc_syms_free(struct rec_ufunc_sym *v, int n)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
