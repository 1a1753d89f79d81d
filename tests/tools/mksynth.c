// SPDX-License-Identifier: GPL-2.0-only
/*
 * mksynth: synthetic trace.dat files for the call-graph tests, built with
 * the format/ writer.
 *
 *   mksynth OUT.dat uprobes SYSTEM OUTER OUTER_RET INNER INNER_RET
 *     uprobe and uretprobe events with the kernel's fields (__probe_ip;
 *     __probe_func, __probe_ret_ip) in event system SYSTEM under the given
 *     names, so a test can try any naming scheme.  Known answer:
 *       task app (700), CPU 0, 100 times: OUTER at 0x401000 for 100 us,
 *         INNER at 0x401200 inside it twice (20 us, then 10 us);
 *       task worker (701), CPU 1, 100 times: INNER alone for 5 us,
 *         overlapping app's calls in time.
 *     So: 400 calls; OUTER 100 x 100 us = 10 ms; INNER 200 calls under
 *     OUTER (3 ms) and 100 at worker's top level (0.5 ms).
 *
 *   mksynth OUT.dat stacks MAPS STACKS [BUILDIDS]
 *     flytrap:profile records (BPF stack samples, user stacks only), the
 *     process maps of file MAPS (flytrap's "== PID COMM" then
 *     /proc/PID/maps lines) in the procmaps section, and one sample per
 *     line of file STACKS: "PID ADDR..." (hex, innermost first), 1 ms apart;
 *     "TID/PID ADDR..." for a thread TID of process PID (tgid PID);
 *     file BUILDIDS ("PATH HEX" lines) is the build-ids option.  With
 *     MKSYNTH_PROCMAPS=1 in the environment the maps also go into
 *     trace-cmd's PROCMAPS option ("PID NLIBS COMM", "START END PATH").
 *
 *   mksynth OUT.dat ustacks MAPS STACKS [BUILDIDS]
 *     The same as record --user-stack cfi writes them: a STACKS line
 *     "PID ADDR... | IP SP BP [WORD...]" (hex) also keeps those user
 *     registers and the WORDs as the copy of the stack from SP up.
 *
 *   mksynth OUT.dat syscalls UNAME NR...
 *     raw_syscalls sys_enter/sys_exit pairs of task app (700) on CPU 0 in a
 *     file whose uname option is UNAME, so the syscall name tables of each
 *     architecture can be checked: the k-th NR given (from 1) is called k
 *     times, 10 us each.
 *
 *   mksynth OUT.dat workload N FUNC SYSNR GETPID_US
 *     for `diff`: task app (700) on CPU 0 runs N rounds of 200 us; in each
 *     it is switched in at +0 and out (sleeping) at +150 us, calls main
 *     (uprobes at 0x401000) from +1 to +101 us, inside it work (0x401200)
 *     from +10 to +30 us and FUNC (0x401400) from +50 to +60 us, and makes
 *     two syscalls (raw_syscalls): getpid (39) from +40 us lasting
 *     GETPID_US us, and SYSNR from +60 to +65 us.  So: app on-CPU N x 150
 *     us, the file spans (N - 1) x 200 + 150 us, getpid N calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "synth_formats.h"

#define BASE 1000000000ULL	/* 1 s */
#define US 1000ULL
#define MAX_USTACK 1024

enum { ID_SYS_ENTER = 500, ID_SYS_EXIT = 501 };
enum { ID_UP = 400, ID_UP_RET = 401, ID_UP2 = 402, ID_UP2_RET = 403, ID_UP3 = 404, ID_UP3_RET = 405,
       ID_SWITCH = 300, ID_PROFILE = 1004 };

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static const char fmt_profile[] =
	"name: profile\nID: 1004\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] kstack;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ustack;\toffset:36;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d comm=%s\", REC->tgid, REC->comm\n";

/* ustacks: the profile event with the registers and stack copy of record --user-stack */
static const char fmt_profile_u[] =
	"name: profile\nID: 1004\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] kstack;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ustack;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] uregs;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned char[] ucopy;\toffset:44;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d comm=%s\", REC->tgid, REC->comm\n";
static bool ustacks_mode;

struct out {
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	struct fmt_page_enc pe[2];
};

static void die(struct out *o, const char *what, int err)
{
	fprintf(stderr, "mksynth: %s: %s (%s)\n", what, strerror(err < 0 ? -err : err),
		o && o->w ? fmt_writer_error(o->w) : "");
	if (o && o->w)
		fmt_writer_abort(o->w);
	exit(1);
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void common(uint8_t *p, int id, int pid)
{
	put16(p, (uint16_t)id);
	p[2] = p[3] = 0;
	put32(p + 4, (uint32_t)pid);
}

static void flush_page(struct out *o, int cpu)
{
	int err;

	if (!o->pe[cpu].nrecords)
		return;
	err = fmt_wbuf_add_page(o->b, cpu, fmt_page_enc_finish(&o->pe[cpu]));
	if (err)
		die(o, "add page", err);
}

static void emit(struct out *o, int cpu, uint64_t ts, const void *payload, uint32_t len)
{
	int err = fmt_page_enc_add(&o->pe[cpu], BASE + ts, payload, len);

	if (err == -ENOSPC) {
		flush_page(o, cpu);
		err = fmt_page_enc_add(&o->pe[cpu], BASE + ts, payload, len);
	}
	if (err)
		die(o, "add record", err);
}

/* the probe formats as the kernel writes them for "p:SYS/NAME" and "r:SYS/NAME" */
static void probe_format(struct out *o, const char *sys, const char *name, int id, bool ret)
{
	char f[1024];
	int n;

	if (ret)
		n = snprintf(f, sizeof(f), "name: %s\nID: %d\nformat:\n" COMMON
			     "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
			     "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			     "print fmt: \"(%%lx <- %%lx)\", REC->__probe_func, REC->__probe_ret_ip\n",
			     name, id);
	else
		n = snprintf(f, sizeof(f), "name: %s\nID: %d\nformat:\n" COMMON
			     "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
			     "print fmt: \"(%%lx)\", REC->__probe_ip\n", name, id);
	if (n <= 0 || (size_t)n >= sizeof(f))
		die(o, "probe format", -E2BIG);
	n = fmt_writer_event_format(o->w, sys, f, (size_t)n);
	if (n)
		die(o, "probe format", n);
}

static const char fmt_sys_enter[] =
	"name: sys_enter\nID: 500\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
	"REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";
static const char fmt_sys_exit[] =
	"name: sys_exit\nID: 501\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

static const char *uname_text = "Linux mksynth 6.18.0 x86_64";

static void out_open(struct out *o, const char *path, const char *cmdlines)
{
	struct fmt_writer_opts wo = { .compression = "zstd" };
	char hp[512];
	int err, hpl;

	memset(o, 0, sizeof(*o));
	err = fmt_writer_open(path, &wo, &o->w);
	if (err)
		die(NULL, "open", err);
	hpl = fmt_header_page_text(8, 4096, hp, sizeof(hp));
	if (hpl < 0)
		die(o, "header_page", hpl);
	err = fmt_writer_headers(o->w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_event_format(o->w, "sched", fmt_switch, strlen(fmt_switch));
	err = err ?: (ustacks_mode ? fmt_writer_event_format(o->w, "flytrap", fmt_profile_u,
							      strlen(fmt_profile_u)) :
		      fmt_writer_event_format(o->w, "flytrap", fmt_profile, strlen(fmt_profile)));
	err = err ?: fmt_writer_kallsyms(o->w, "", 0);
	err = err ?: fmt_writer_printk(o->w, "", 0);
	err = err ?: fmt_writer_cmdlines(o->w, cmdlines, strlen(cmdlines));
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_TRACECLOCK, "local global [mono] boot\n");
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_UNAME, uname_text);
	err = err ?: fmt_writer_cpucount(o->w, 2);
	if (err)
		die(o, "metadata", err);
}

static void out_start(struct out *o)
{
	int err = fmt_wbuf_new(o->w, "", "mono", &o->b), c;

	if (err)
		die(o, "buffer", err);
	for (c = 0; c < 2; c++)
		if (fmt_page_enc_init(&o->pe[c], 4096, 8, false))
			die(o, "page encoder", -ENOMEM);
}

static void out_close(struct out *o)
{
	int c, err;

	for (c = 0; c < 2; c++) {
		flush_page(o, c);
		fmt_page_enc_release(&o->pe[c]);
	}
	err = fmt_writer_close(o->w);
	if (err)
		die(NULL, "close", err);
}

/* ---- uprobes ------------------------------------------------------------------ */

static void probe(struct out *o, int cpu, uint64_t ts, int pid, int id, uint64_t addr)
{
	uint8_t r[24] = { 0 };
	bool ret = id == ID_UP_RET || id == ID_UP2_RET || id == ID_UP3_RET;

	common(r, id, pid);
	put64(r + 8, addr);
	if (ret)
		put64(r + 16, 0x400800);	/* the caller's return address */
	emit(o, cpu, ts, r, ret ? 24 : 16);
}

static int uprobes(const char *path, char **names)
{
	const char *sys = names[0];
	struct out o;
	uint64_t t;
	int i;

	out_open(&o, path, "700 app\n701 worker\n");
	probe_format(&o, sys, names[1], ID_UP, false);
	probe_format(&o, sys, names[2], ID_UP_RET, true);
	probe_format(&o, sys, names[3], ID_UP2, false);
	probe_format(&o, sys, names[4], ID_UP2_RET, true);
	out_start(&o);
	for (i = 0; i < 100; i++) {
		t = (uint64_t)i * 200 * US;
		probe(&o, 0, t, 700, ID_UP, 0x401000);
		probe(&o, 0, t + 10 * US, 700, ID_UP2, 0x401200);
		probe(&o, 0, t + 30 * US, 700, ID_UP2_RET, 0x401200);
		probe(&o, 0, t + 40 * US, 700, ID_UP2, 0x401200);
		probe(&o, 0, t + 50 * US, 700, ID_UP2_RET, 0x401200);
		probe(&o, 0, t + 100 * US, 700, ID_UP_RET, 0x401000);
		probe(&o, 1, t + 20 * US, 701, ID_UP2, 0x401200);
		probe(&o, 1, t + 25 * US, 701, ID_UP2_RET, 0x401200);
	}
	out_close(&o);
	return 0;
}

/* ---- workload (diff) ----------------------------------------------------------- */

static void sched_switch(struct out *o, uint64_t ts, int prev, const char *pcomm, long state, int next,
			 const char *ncomm)
{
	uint8_t r[64] = { 0 };

	common(r, ID_SWITCH, prev);
	strncpy((char *)r + 8, pcomm, 15);
	put32(r + 24, (uint32_t)prev);
	put32(r + 28, 120);
	put64(r + 32, (uint64_t)state);
	strncpy((char *)r + 40, ncomm, 15);
	put32(r + 56, (uint32_t)next);
	put32(r + 60, 120);
	emit(o, 0, ts, r, sizeof(r));
}

static void syscall_pair(struct out *o, uint64_t ts, uint64_t dur, int pid, long nr)
{
	uint8_t r[64] = { 0 };

	common(r, ID_SYS_ENTER, pid);
	put64(r + 8, (uint64_t)nr);
	emit(o, 0, ts, r, 64);
	memset(r, 0, sizeof(r));
	common(r, ID_SYS_EXIT, pid);
	put64(r + 8, (uint64_t)nr);
	put64(r + 16, (uint64_t)pid);
	emit(o, 0, ts + dur, r, 24);
}

static int workload(const char *path, char **args)
{
	long n = strtol(args[0], NULL, 10), sysnr = strtol(args[2], NULL, 10);
	uint64_t gdur = strtoull(args[3], NULL, 10) * US, t;
	struct out o;
	long i;
	int err;

	if (n <= 0 || sysnr < 0 || !gdur || gdur > 9 * US) {
		fprintf(stderr, "mksynth: workload: N > 0, SYSNR >= 0, GETPID_US 1..9\n");
		return 2;
	}
	out_open(&o, path, "700 app\n");
	probe_format(&o, "uprobes", "main", ID_UP, false);
	probe_format(&o, "uprobes", "main__return", ID_UP_RET, true);
	probe_format(&o, "uprobes", "work", ID_UP2, false);
	probe_format(&o, "uprobes", "work__return", ID_UP2_RET, true);
	probe_format(&o, "uprobes", args[1], ID_UP3, false);
	{
		char rn[128];

		snprintf(rn, sizeof(rn), "%s__return", args[1]);
		probe_format(&o, "uprobes", rn, ID_UP3_RET, true);
	}
	err = fmt_writer_event_format(o.w, "raw_syscalls", fmt_sys_enter, strlen(fmt_sys_enter));
	err = err ?: fmt_writer_event_format(o.w, "raw_syscalls", fmt_sys_exit, strlen(fmt_sys_exit));
	if (err)
		die(&o, "syscall formats", err);
	out_start(&o);
	for (i = 0; i < n; i++) {
		t = (uint64_t)i * 200 * US;
		sched_switch(&o, t, 0, "swapper/0", 0, 700, "app");
		probe(&o, 0, t + 1 * US, 700, ID_UP, 0x401000);
		probe(&o, 0, t + 10 * US, 700, ID_UP2, 0x401200);
		probe(&o, 0, t + 30 * US, 700, ID_UP2_RET, 0x401200);
		syscall_pair(&o, t + 40 * US, gdur, 700, 39);
		probe(&o, 0, t + 50 * US, 700, ID_UP3, 0x401400);
		probe(&o, 0, t + 60 * US, 700, ID_UP3_RET, 0x401400);
		syscall_pair(&o, t + 60 * US, 5 * US, 700, sysnr);
		probe(&o, 0, t + 101 * US, 700, ID_UP_RET, 0x401000);
		sched_switch(&o, t + 150 * US, 700, "app", 1, 0, "swapper/0");
	}
	out_close(&o);
	return 0;
}

/* ---- stacks ------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		die(NULL, path, -errno);
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				die(NULL, "read", -ENOMEM);
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void profile(struct out *o, uint64_t ts, int pid, int tgid, const uint64_t *u, int un)
{
	static uint8_t r[40 + 8 * MAX_USTACK];
	int i;

	memset(r, 0, 40);
	common(r, ID_PROFILE, pid);
	put32(r + 8, (uint32_t)tgid);
	memcpy(r + 16, "app", 4);
	put32(r + 32, 40);			/* kstack: empty */
	put32(r + 36, (uint32_t)(un * 8) << 16 | 40);
	for (i = 0; i < un; i++)
		put64(r + 40 + 8 * i, u[i]);
	emit(o, 0, ts, r, (uint32_t)(40 + 8 * un));
}

/* a sample with user registers (IP, SP, BP) and nw words of stack copy */
static void profile_u(struct out *o, uint64_t ts, int pid, int tgid, const uint64_t *u, int un,
		      const uint64_t *regs, const uint64_t *w, int nw)
{
	static uint8_t r[48 + 8 * (2 * MAX_USTACK + 4)];
	uint32_t off = 48;
	int i;

	memset(r, 0, 48);
	common(r, ID_PROFILE, pid);
	put32(r + 8, (uint32_t)tgid);
	memcpy(r + 16, "app", 4);
	put32(r + 32, off);			/* kstack: empty */
	put32(r + 36, (uint32_t)(un * 8) << 16 | off);
	for (i = 0; i < un; i++)
		put64(r + off + 8 * i, u[i]);
	off += 8 * (uint32_t)un;
	put32(r + 40, 32u << 16 | off);
	for (i = 0; i < 4; i++)
		put64(r + off + 8 * i, i < 3 ? regs[i] : 0);
	off += 32;
	put32(r + 44, (uint32_t)(nw * 8) << 16 | off);
	for (i = 0; i < nw; i++)
		put64(r + off + 8 * i, w[i]);
	off += 8 * (uint32_t)nw;
	emit(o, 0, ts, r, off);
}

/* trace-cmd's PROCMAPS from flytrap's maps text: each process's file mappings. */
static void tc_block(FILE *t, int pid, int nlibs, const char *comm, FILE *l, char **libs)
{
	fclose(l);
	fprintf(t, "%x %x %s\n%s", pid, nlibs, comm, *libs);
	free(*libs);
	*libs = NULL;
}

static int tc_procmaps(struct out *o, const char *maps)
{
	char *text = NULL, *libs = NULL, comm[64] = "";
	size_t tl = 0, ll = 0;
	FILE *t = open_memstream(&text, &tl), *l = NULL;
	int pid = -1, nlibs = 0, err;

	for (const char *p = maps; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		unsigned long long a, b;
		int n = 0;

		if (!strncmp(p, "== ", 3)) {
			if (l)
				tc_block(t, pid, nlibs, comm, l, &libs);
			l = NULL;
			if (sscanf(p + 3, "%d %63s", &pid, comm) != 2)
				continue;
			nlibs = 0;
			l = open_memstream(&libs, &ll);
		} else if (l && sscanf(p, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &n) == 2 && n &&
			   p[n] == '/') {
			fprintf(l, "%llx %llx %.*s\n", a, b, (int)strcspn(p + n, "\n"), p + n);
			nlibs++;
		}
	}
	if (l)
		tc_block(t, pid, nlibs, comm, l, &libs);
	fclose(t);
	err = fmt_writer_option(o->w, FMT_OPT_PROCMAPS, text, (uint32_t)tl + 1);
	free(text);
	return err;
}

static int stacks(const char *path, const char *maps_path, const char *stacks_path,
		  const char *bids_path)
{
	static uint64_t u[MAX_USTACK];
	size_t ml, sl;
	char *maps = slurp(maps_path, &ml), *st = slurp(stacks_path, &sl), *line, *save = NULL;
	char cmdlines[256] = "", *p;
	struct out o;
	uint64_t off, ts = 0;
	int err, pid;

	/* the task names from the maps' "== PID COMM" lines */
	for (p = maps; (p = strstr(p, "== ")); p += 3) {
		char comm[17];
		size_t cl = strlen(cmdlines);

		if (sscanf(p + 3, "%d %16s", &pid, comm) == 2 && cl + 32 < sizeof(cmdlines))
			snprintf(cmdlines + cl, sizeof(cmdlines) - cl, "%d %s\n", pid, comm);
	}
	out_open(&o, path, cmdlines);
	err = fmt_writer_section(o.w, FMT_SEC_FT_PROCMAPS, "flytrap procmaps", maps, ml, &off);
	err = err ?: fmt_writer_option(o.w, FMT_OPT_FT_PROCMAPS, &off, sizeof(off));
	if (err)
		die(&o, "maps", err);
	if (getenv("MKSYNTH_PROCMAPS") && (err = tc_procmaps(&o, maps)))
		die(&o, "PROCMAPS", err);
	if (bids_path) {
		size_t bl;
		char *bids = slurp(bids_path, &bl);

		/* with its NUL, as record writes it */
		err = fmt_writer_option(o.w, FMT_OPT_FT_BUILDIDS, bids, bl + 1);
		free(bids);
		if (err)
			die(&o, "build-ids", err);
	}
	if (ustacks_mode) {
		static const char meta[] = "bpf_user_stack=cfi 512 x86_64:ip,sp,bp\n";

		err = fmt_writer_option(o.w, FMT_OPT_FT_META, meta, sizeof(meta));
		if (err)
			die(&o, "meta", err);
	}
	out_start(&o);
	for (line = strtok_r(st, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *q = line, *end;
		int n = 0;

		int tgid;

		pid = (int)strtol(q, &end, 10);
		if (end == q)
			continue;	/* blank or comment */
		tgid = pid;
		if (*end == '/')
			tgid = (int)strtol(end + 1, &end, 10);
		for (q = end; n < MAX_USTACK; q = end) {
			uint64_t a = strtoull(q, &end, 16);

			if (end == q)
				break;
			u[n++] = a;
		}
		if (ustacks_mode && (q = strchr(line + (end - line), '|'))) {
			static uint64_t w[MAX_USTACK];
			uint64_t regs[3] = { 0 };
			int nw = 0, k;

			for (q++, k = 0; k < 3; k++, q = end)
				regs[k] = strtoull(q, &end, 16);
			for (; nw < MAX_USTACK; q = end) {
				uint64_t a = strtoull(q, &end, 16);

				if (end == q)
					break;
				w[nw++] = a;
			}
			profile_u(&o, ts, pid, tgid, u, n, regs, w, nw);
		} else {
			profile(&o, ts, pid, tgid, u, n);
		}
		ts += 1000 * US;
	}
	out_close(&o);
	free(maps);
	free(st);
	return 0;
}

/* ---- syscalls ------------------------------------------------------------------ */

static int syscalls(const char *path, const char *uname, char **nrs, int n)
{
	uint8_t r[64];
	struct out o;
	uint64_t t = 0;
	char *end;
	int i, k;

	uname_text = uname;
	out_open(&o, path, "700 app\n");
	if (fmt_writer_event_format(o.w, "raw_syscalls", fmt_sys_enter, strlen(fmt_sys_enter)) ||
	    fmt_writer_event_format(o.w, "raw_syscalls", fmt_sys_exit, strlen(fmt_sys_exit)))
		die(&o, "syscall formats", -EINVAL);
	out_start(&o);
	for (i = 0; i < n; i++) {
		long nr = strtol(nrs[i], &end, 0);

		if (*end || end == nrs[i])
			die(&o, "syscall number", -EINVAL);
		for (k = 0; k <= i; k++) {
			memset(r, 0, sizeof(r));
			common(r, ID_SYS_ENTER, 700);
			put64(r + 8, (uint64_t)nr);
			emit(&o, 0, t += 5 * US, r, 64);
			common(r, ID_SYS_EXIT, 700);
			put64(r + 16, 0);
			emit(&o, 0, t += 10 * US, r, 24);
		}
	}
	out_close(&o);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[2], "uprobes"))
		return uprobes(argv[1], argv + 3);
	if (argc >= 5 && !strcmp(argv[2], "syscalls"))
		return syscalls(argv[1], argv[3], argv + 4, argc - 4);
	if ((argc == 5 || argc == 6) && !strcmp(argv[2], "stacks"))
		return stacks(argv[1], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	if ((argc == 5 || argc == 6) && !strcmp(argv[2], "ustacks")) {
		ustacks_mode = true;
		return stacks(argv[1], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	}
	if (argc == 7 && !strcmp(argv[2], "workload"))
		return workload(argv[1], argv + 3);
	fprintf(stderr, "usage: mksynth OUT.dat uprobes SYSTEM OUTER OUTER_RET INNER INNER_RET\n"
			"       mksynth OUT.dat stacks MAPS STACKS [BUILDIDS]\n"
			"       mksynth OUT.dat ustacks MAPS STACKS [BUILDIDS]\n"
			"       mksynth OUT.dat syscalls UNAME NR...\n"
			"       mksynth OUT.dat workload N FUNC SYSNR GETPID_US\n");
	return 2;
}
