// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline user-stack unwinding through elfutils (see unwind.h).
 *
 * libdwfl's unwinder asks three things of us (Dwfl_Thread_Callbacks): the
 * one thread there is (next_thread), its registers at the sample
 * (set_initial_registers, from the record), and memory (memory_read: the
 * stack copy; outside it, the file contents of the mapped binaries, which
 * is what a process's read-only code and data were).  One Dwfl per process
 * is kept with its modules reported at the addresses of the file's maps;
 * the record being unwound is handed over through the state pointer, so a
 * Dwfl serves every stack of its process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "report/syms/unwind.h"

#define MAX_PROCS 32		/* Dwfls kept (each holds its binaries open) */
#define STACK_NEAR (1u << 20)	/* reads this far past the copy are stack reads it lacked */

struct uw_proc {
	int tgid;
	Dwfl *d;
	bool ok;		/* modules reported and the state attached */
	uint64_t used;		/* last use, for eviction */
};

struct rpt_unwind {
	struct rpt_syms *syms;
	enum rpt_unwind_arch arch;
	Dwfl_Callbacks cb;
	struct uw_proc procs[MAX_PROCS];
	uint64_t clock;
	/* the stack being unwound */
	const uint64_t *regs;
	int nregs;
	const uint8_t *copy;
	size_t clen;
	uint64_t sp;
	bool copy_short;	/* a read just past the copy: it was too small */
	bool read_failed;	/* any read failed (the walk may then end as if complete) */
	uint64_t *pcs, *sps;
	int n, max;
	Dwarf_Addr last_pc;
	bool last_act;
	char why[200];
	uint64_t nstacks, nframes;
};

static char *debuginfo_path;	/* libdwfl's default: .debug next to the file, /usr/lib/debug */

/* ---- thread callbacks ---------------------------------------------------------- */

static pid_t uw_next_thread(Dwfl *d, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(d);
}

/* 8 bytes of the mapped file at run-time address addr, from the binary's PT_LOAD contents */
static bool read_file_word(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(d, addr);
	GElf_Addr bias;
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph, k, fsize;
	char *raw;

	if (!e || elf_getphdrnum(e, &nph) || !(raw = elf_rawfile(e, &fsize)))
		return false;
	for (k = 0; k < nph; k++) {
		GElf_Phdr ph;
		uint64_t va = addr - bias;

		if (!gelf_getphdr(e, (int)k, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va < ph.p_vaddr || va - ph.p_vaddr > ph.p_filesz ||
		    ph.p_filesz - (va - ph.p_vaddr) < 8)
			continue;
		if (ph.p_offset > fsize || fsize - ph.p_offset < ph.p_filesz)
			return false;
		memcpy(out, raw + ph.p_offset + (va - ph.p_vaddr), 8);
		return true;
	}
	return false;
}

static bool uw_memory_read(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct rpt_unwind *u = arg;

	if (addr >= u->sp && addr - u->sp <= u->clen && u->clen - (addr - u->sp) >= 8) {
		memcpy(result, u->copy + (addr - u->sp), 8);
		return true;
	}
	if (read_file_word(d, addr, result))
		return true;
	/*
	 * Below the sampled SP is the dead part of the stack (the copy starts at
	 * SP): the CFI of a function sampled in its epilogue still names slots
	 * there for registers it has popped.  Their values do not matter to
	 * the walk; what matters is that a read above it, a caller's return
	 * address, failed.
	 */
	if (addr < u->sp && u->sp - addr <= 256)
		return false;
	u->read_failed = true;
	if (addr >= u->sp && addr - u->sp < u->clen + STACK_NEAR)
		u->copy_short = true;
	return false;
}

static bool uw_set_regs(Dwfl_Thread *t, void *arg)
{
	struct rpt_unwind *u = arg;
	Dwarf_Word r[3];

	if (u->nregs < 3)
		return false;
	switch (u->arch) {
	case RPT_UW_X86_64:
		/* DWARF numbers: 6 rbp, 7 rsp; the IP is the PC */
		r[0] = u->regs[2];
		r[1] = u->regs[1];
		if (!dwfl_thread_state_registers(t, 6, 2, r))
			return false;
		break;
	case RPT_UW_ARM64:
		/* DWARF numbers: 29 fp (x29), 30 lr (x30), 31 sp */
		if (u->nregs < 4)
			return false;
		r[0] = u->regs[3];
		r[1] = u->regs[2];
		r[2] = u->regs[1];
		if (!dwfl_thread_state_registers(t, 29, 3, r))
			return false;
		break;
	default:
		return false;
	}
	dwfl_thread_state_register_pc(t, u->regs[0]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = uw_next_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_regs,
};

/* ---- processes ------------------------------------------------------------------- */

/* a Dwfl with the binaries of tgid where its maps put them, its state attached */
static bool proc_open(struct rpt_unwind *u, struct uw_proc *p, int tgid)
{
	const char *seen[256];
	struct rpt_syms_umap m;
	int k, j, nseen = 0, nmod = 0;

	p->tgid = tgid;
	p->ok = false;
	p->d = dwfl_begin(&u->cb);
	if (!p->d)
		return false;
	dwfl_report_begin(p->d);
	for (k = 0; !rpt_syms_user_map(u->syms, tgid, k, &m); k++) {
		if (!m.file && m.fd < 0)
			continue;
		/* a binary's code mapped in pieces is one module: report it once */
		for (j = 0; j < nseen && seen[j] != m.path; j++)
			;
		if (j < nseen || nseen == 256)
			continue;
		seen[nseen++] = m.path;
		if (m.file) {
			if (dwfl_report_elf(p->d, m.path, m.file, -1, m.bias, true))
				nmod++;
		} else {
			/* the stored CFI: elfutils keeps (and closes) the descriptor it is given */
			int fd = dup(m.fd);

			if (fd >= 0 && dwfl_report_elf(p->d, m.path, m.path, fd, m.bias, true))
				nmod++;
			else if (fd >= 0)
				close(fd);
		}
	}
	dwfl_report_end(p->d, NULL, NULL);
	if (!nmod)
		return false;
	p->ok = dwfl_attach_state(p->d, NULL, tgid > 0 ? tgid : 1, &thread_cb, u);
	return p->ok;
}

static struct uw_proc *proc_get(struct rpt_unwind *u, int tgid)
{
	struct uw_proc *p = NULL, *old = &u->procs[0];
	int k;

	for (k = 0; k < MAX_PROCS; k++) {
		if (u->procs[k].used && u->procs[k].tgid == tgid) {
			p = &u->procs[k];
			break;
		}
		if (u->procs[k].used < old->used)
			old = &u->procs[k];
	}
	if (!p) {
		p = old;
		if (p->d)
			dwfl_end(p->d);
		memset(p, 0, sizeof(*p));
		proc_open(u, p, tgid);
	}
	p->used = ++u->clock;
	return p;
}

/* ---- walking ------------------------------------------------------------------------ */

static int uw_frame(Dwfl_Frame *f, void *arg)
{
	struct rpt_unwind *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(f, &pc, &act))
		return DWARF_CB_ABORT;
	if (!pc || u->n >= u->max)
		return DWARF_CB_ABORT;
	if (u->sps) {
		/* DWARF numbers of the stack pointer: rsp 7, sp 31 */
		Dwarf_Word sp;

		if (dwfl_frame_reg(f, u->arch == RPT_UW_ARM64 ? 31 : 7, &sp))
			sp = 0;
		u->sps[u->n] = sp;
	}
	u->pcs[u->n++] = pc;
	u->last_pc = pc;
	u->last_act = act;
	return DWARF_CB_OK;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* why the walk stopped at u->last_pc */
static const char *stop_reason(struct rpt_unwind *u, struct uw_proc *p)
{
	Dwarf_Addr pc = u->last_pc - (u->last_act ? 0 : 1), bias;
	Dwfl_Module *mod = dwfl_addrmodule(p->d, pc);
	struct rpt_syms_umap m;
	const char *name;
	int k;

	if (!mod) {
		for (k = 0; !rpt_syms_user_map(u->syms, p->tgid, k, &m); k++)
			if (pc >= m.start && pc < m.end)
				break;
		if (rpt_syms_user_map(u->syms, p->tgid, k, &m))
			return "no binary mapped there";
		snprintf(u->why, sizeof(u->why), "no binary for %s", base_name(m.path));
		return u->why;
	}
	if (u->copy_short)
		return "stack copy too small";
	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	name = base_name(name ? name : "?");
	if (!dwfl_module_eh_cfi(mod, &bias) && !dwfl_module_dwarf_cfi(mod, &bias)) {
		snprintf(u->why, sizeof(u->why), "no CFI for %s", name);
		return u->why;
	}
	snprintf(u->why, sizeof(u->why), "%s: %.120s", name, dwfl_errmsg(-1));
	return u->why;
}

/*
 * Whether the walk's last frame is its binary's entry point (the dynamic
 * loader's _start calls _dl_start first thing and has no CFI for the
 * return address after it): the outermost frame of a process starting up,
 * so the walk is complete, not stopped short.
 */
static bool at_entry(struct rpt_unwind *u, struct uw_proc *p)
{
	Dwarf_Addr pc = u->last_pc - (u->last_act ? 0 : 1), bias;
	Dwfl_Module *mod = dwfl_addrmodule(p->d, pc);
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	GElf_Ehdr eh;

	if (!e || !gelf_getehdr(e, &eh) || !eh.e_entry || pc < eh.e_entry + bias)
		return false;
	return pc - (eh.e_entry + bias) < 64;
}

/* one walk from regs over the copy into pcs/sps; libdwfl's return code */
static int walk(struct rpt_unwind *u, struct uw_proc *p, const uint64_t *regs, int nregs,
		const uint8_t *copy, size_t clen, uint64_t *pcs, uint64_t *sps, int max)
{
	u->regs = regs;
	u->nregs = nregs;
	u->copy = copy;
	u->clen = clen;
	u->sp = regs[1];
	u->copy_short = u->read_failed = false;
	u->pcs = pcs;
	u->sps = sps;
	u->n = 0;
	u->max = max;
	u->last_pc = regs[0];
	u->last_act = true;
	return dwfl_getthread_frames(p->d, dwfl_pid(p->d), uw_frame, u);
}

/*
 * Whether pc lies in a PLT section of its binary (.plt, .plt.sec, .plt.got):
 * a stub entered by a call, with no frame of its own and, in many binaries,
 * no CFI either (libdwfl then ends the walk there as if it were complete).
 */
static bool in_plt(struct uw_proc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->d, pc);
	Dwarf_Addr bias;
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;

	if (!e || elf_getshdrstrndx(e, &shstr))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    pc - bias < sh.sh_addr || pc - bias - sh.sh_addr >= sh.sh_size)
			continue;
		nm = elf_strptr(e, shstr, sh.sh_name);
		return nm && !strncmp(nm, ".plt", 4);
	}
	return false;
}

int rpt_unwind_user(struct rpt_unwind *u, int tgid, const uint64_t *regs, int nregs,
		    const uint8_t *copy, size_t clen, uint64_t *pcs, uint64_t *sps, int max,
		    const char **why)
{
	struct uw_proc *p;
	int rc, base = 0;

	*why = "no registers";
	if (!u || nregs < 3 || !regs[0] || !regs[1] || max <= 0)
		return 0;
	p = proc_get(u, tgid);
	if (!p->ok) {
		*why = p->d ? "no binary of the process readable" : "out of memory";
		return 0;
	}
	rc = walk(u, p, regs, nregs, copy, clen, pcs, sps, max);
	/*
	 * Sampled in a PLT stub on x86-64 (memcmp@plt under sort's comparator):
	 * the stub pushed nothing, so its return address is the word at SP.
	 * The walk goes on from there, its caller, as from a frame of its own.
	 */
	if (u->n == 1 && u->arch == RPT_UW_X86_64 && max > 1 && nregs <= 4 && clen >= 8 &&
	    in_plt(p, regs[0])) {
		uint64_t r2[4] = { 0 }, ra;

		memcpy(&ra, copy, 8);
		memcpy(r2, regs, (size_t)nregs * sizeof(*regs));
		r2[0] = ra;
		r2[1] = regs[1] + 8;
		if (ra) {
			base = 1;
			rc = walk(u, p, r2, nregs, copy + 8, clen - 8, pcs + 1, sps ? sps + 1 : NULL,
				  max - 1);
			if (!u->n) {	/* nothing from there: the stub alone, as before */
				base = 0;
				rc = walk(u, p, regs, nregs, copy, clen, pcs, sps, max);
			}
		}
	}
	u->nstacks++;
	u->nframes += (uint64_t)(u->n + base);
	/* libdwfl ends a walk whose return address could not be read as if it were complete */
	if ((rc == 0 && !u->read_failed) || (u->n && !u->copy_short && at_entry(u, p)))
		*why = NULL;
	else if (u->n + base >= max)
		*why = "too many frames";
	else
		*why = stop_reason(u, p);
	return u->n + base;
}

void rpt_unwind_counts(const struct rpt_unwind *u, uint64_t *stacks, uint64_t *frames)
{
	*stacks = u ? u->nstacks : 0;
	*frames = u ? u->nframes : 0;
}

struct rpt_unwind *rpt_unwind_new(struct rpt_syms *s, enum rpt_unwind_arch arch)
{
	struct rpt_unwind *u;

	if (arch != RPT_UW_X86_64 && arch != RPT_UW_ARM64) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	u->syms = s;
	u->arch = arch;
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &debuginfo_path;
	return u;
}

void rpt_unwind_free(struct rpt_unwind *u)
{
	int k;

	if (!u)
		return;
	for (k = 0; k < MAX_PROCS; k++)
		if (u->procs[k].d)
			dwfl_end(u->procs[k].d);
	free(u);
}
