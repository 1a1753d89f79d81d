// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkrpt: build the synthetic trace.dat files the analyzer tests use, with
 * the format/ writer and page encoder, so every number the analyzers print
 * can be worked out by hand from the event lists below.
 *
 *   mkrpt graph  OUT     function_graph calls with a known tree (1 CPU)
 *   mkrpt sched  OUT     sched_switch, raw_syscalls, irq, softirq (2 CPUs)
 *   mkrpt drops  OUT     page loss markers, CPU stats at start and end,
 *                        BPF drop records, recorder stats (2 CPUs)
 *   mkrpt stacks OUT     kernel_stack + user_stack samples with kallsyms
 *                        and process maps
 *   mkrpt pairs  OUT     calls with lost exits and exits without entries,
 *                        for every source of report/core/calls.h (2 CPUs)
 *   mkrpt bpf    OUT     flytrap BPF records (syscall, syscall_hist,
 *                        profile, offcpu, ufunc) and uprobe events
 *   mkrpt manyloss OUT N  N pages on one CPU, each after a loss marker
 *   mkrpt bench  OUT N   N events (sched_switch, syscalls, function_graph)
 *                        on 2 CPUs, for the benchmarks
 *   mkrpt wrap   OUT N   N events on one CPU whose first stamps an OFFSET option
 *                        takes below zero (adjusted stamps out of order)
 *   mkrpt names  OUT N   the same with tasks that come, go and change names,
 *                        and losses (windows that skip chunks)
 *
 * The expected outputs live in tests/report/golden/; the reasoning behind
 * each number is in the comments of the builders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/ftmeta.h"
#include "synth_formats.h"

#define MS 1000000ULL
#define US 1000ULL
#define S  1000000000ULL

enum {
	ID_KSTACK = 4,
	ID_FG_EXIT = 10,
	ID_FG_ENTRY = 11,
	ID_USTACK = 13,
	ID_SWITCH = 300,
	ID_SYS_ENTER = 301,
	ID_SYS_EXIT = 302,
	ID_IRQ_ENTRY = 303,
	ID_IRQ_EXIT = 304,
	ID_SOFTIRQ_ENTRY = 305,
	ID_SOFTIRQ_EXIT = 306,
	ID_UP_ENTRY = 400,
	ID_UP_RETURN = 401,
	ID_UP2_ENTRY = 402,
	ID_UP2_RETURN = 403,
	ID_BPF_SYSCALL = 1001,
	ID_BPF_SYSHIST = 1002,
	ID_BPF_OFFCPU = 1003,
	ID_BPF_PROFILE = 1004,
	ID_BPF_UENTRY = 1005,
	ID_BPF_UEXIT = 1006,
};


static const char fmt_kstack[] =
	"name: kernel_stack\nID: 4\nformat:\n" COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1]\n";
static const char fmt_ustack[] =
	"name: user_stack\nID: 13\nformat:\n" COMMON
	"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1]\n";
static const char fmt_sys_enter[] =
	"name: sys_enter\nID: 301\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx)\", REC->id, REC->args[0], REC->args[1]\n";
static const char fmt_sys_exit[] =
	"name: sys_exit\nID: 302\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
static const char fmt_irq_entry[] =
	"name: irq_handler_entry\nID: 303\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";
static const char fmt_irq_exit[] =
	"name: irq_handler_exit\nID: 304\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%d\", REC->irq, REC->ret\n";
static const char fmt_softirq_entry[] =
	"name: softirq_entry\nID: 305\nformat:\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";
static const char fmt_softirq_exit[] =
	"name: softirq_exit\nID: 306\nformat:\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";

/* BPF event formats as record/bpf.c writes them (common fields, then the record's ev struct) */
static const char fmt_bpf_syscall[] =
	"name: syscall\nID: 1001\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int nr;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 start;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 ret;\toffset:32;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"tgid=%d nr=%d ret=%lld duration=%llu\", REC->tgid, REC->nr, REC->ret, REC->duration\n";
static const char fmt_bpf_syshist[] =
	"name: syscall_hist\nID: 1002\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int nr;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 count;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 total_ns;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 max_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 slots[40];\toffset:40;\tsize:320;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d nr=%d count=%llu\", REC->tgid, REC->nr, REC->count\n";
static const char fmt_bpf_offcpu[] =
	"name: offcpu\nID: 1003\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int state;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 start;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int waker_pid;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int waker_tgid;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:char waker_comm[16];\toffset:56;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] kstack;\toffset:72;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ustack;\toffset:76;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d duration=%llu\", REC->tgid, REC->duration\n";
static const char fmt_bpf_profile[] =
	"name: profile\nID: 1004\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] kstack;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ustack;\toffset:36;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d comm=%s\", REC->tgid, REC->comm\n";
static const char fmt_bpf_uentry[] =
	"name: ufunc_entry\nID: 1005\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int func;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 ip;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d func=%u depth=%u\", REC->tgid, REC->func, REC->depth\n";
static const char fmt_bpf_uexit[] =
	"name: ufunc_exit\nID: 1006\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int func;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 start;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 ret;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d func=%u depth=%u duration=%llu\", REC->tgid, REC->func, REC->depth, "
	"REC->duration\n";
/* uprobe events of `record --uprobe` (group flytrap_<pid>) */
static const char fmt_up_entry[] =
	"name: handle_req\nID: 400\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx)\", REC->__probe_ip\n";
static const char fmt_up_return[] =
	"name: handle_req__return\nID: 401\nformat:\n" COMMON
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n";
static const char fmt_up2_entry[] =
	"name: helper\nID: 402\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx)\", REC->__probe_ip\n";
static const char fmt_up2_return[] =
	"name: helper__return\nID: 403\nformat:\n" COMMON
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

/* kernel functions of the synthetic traces */
#define K_KSYS_READ	0xffffffff81100000ULL
#define K_VFS_READ	0xffffffff81100400ULL
#define K_EXT4_READ	0xffffffff81100800ULL
#define K_FSNOTIFY	0xffffffff81100c00ULL
#define K_ENTRY		0xffffffff81200000ULL
#define K_SCHEDULE	0xffffffff81200400ULL
#define K_IDLE		0xffffffff81200800ULL
static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81100000 T ksys_read\n"
	"ffffffff81100400 T vfs_read\n"
	"ffffffff81100800 t ext4_file_read_iter\n"
	"ffffffff81100c00 T fsnotify\n"
	"ffffffff81200000 T entry_SYSCALL_64\n"
	"ffffffff81200400 T schedule\n"
	"ffffffff81200800 t do_idle\n"
	"ffffffff81300000 A __absolute_marker\n"
	"ffffffff81300400 t bpf_prog_6deef7357e7b4530_offcpu\n"
	"ffffffff81300800 T __traceiter_sched_switch\n"
	"ffffffff81400000 T _etext\n";

/* ---- output file ------------------------------------------------------------- */

struct out {
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	struct fmt_page_enc pe[4];
	int ncpu;
	int64_t missed_next[4];
};

static void die(struct out *o, const char *what, int err)
{
	fprintf(stderr, "mkrpt: %s: %s (%s)\n", what, strerror(-err), o && o->w ? fmt_writer_error(o->w) : "");
	if (o && o->w)
		fmt_writer_abort(o->w);
	exit(1);
}

/* MKRPT_BIG_ENDIAN=1: a big-endian file, its records in that byte order too */
static bool g_be;

static void out_open(struct out *o, const char *path, int ncpu, const char *cmdlines,
		     void (*extra)(struct out *o))
{
	/* MKRPT_COMPRESSION=none: plain pages, for byte-level damage tests */
	struct fmt_writer_opts wo = { .compression = getenv("MKRPT_COMPRESSION") ?: "zstd" };

	g_be = getenv("MKRPT_BIG_ENDIAN") && !strcmp(getenv("MKRPT_BIG_ENDIAN"), "1");
	wo.big_endian = g_be;
	char hp[512];
	int err, hpl, c;

	memset(o, 0, sizeof(*o));
	o->ncpu = ncpu;
	err = fmt_writer_open(path, &wo, &o->w);
	if (err)
		die(NULL, "open", err);
	hpl = fmt_header_page_text(8, 4096, hp, sizeof(hp));
	if (hpl < 0)
		die(o, "header_page", hpl);
	err = fmt_writer_headers(o->w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_ftrace_format(o->w, fmt_kstack, strlen(fmt_kstack));
	err = err ?: fmt_writer_ftrace_format(o->w, fmt_fg_exit, strlen(fmt_fg_exit));
	err = err ?: fmt_writer_ftrace_format(o->w, fmt_fg_entry, strlen(fmt_fg_entry));
	err = err ?: fmt_writer_ftrace_format(o->w, fmt_ustack, strlen(fmt_ustack));
	err = err ?: fmt_writer_event_format(o->w, "sched", fmt_switch, strlen(fmt_switch));
	err = err ?: fmt_writer_event_format(o->w, "raw_syscalls", fmt_sys_enter, strlen(fmt_sys_enter));
	err = err ?: fmt_writer_event_format(o->w, "raw_syscalls", fmt_sys_exit, strlen(fmt_sys_exit));
	err = err ?: fmt_writer_event_format(o->w, "irq", fmt_irq_entry, strlen(fmt_irq_entry));
	err = err ?: fmt_writer_event_format(o->w, "irq", fmt_irq_exit, strlen(fmt_irq_exit));
	err = err ?: fmt_writer_event_format(o->w, "irq", fmt_softirq_entry, strlen(fmt_softirq_entry));
	err = err ?: fmt_writer_event_format(o->w, "irq", fmt_softirq_exit, strlen(fmt_softirq_exit));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_syscall, strlen(fmt_bpf_syscall));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_syshist, strlen(fmt_bpf_syshist));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_offcpu, strlen(fmt_bpf_offcpu));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_profile, strlen(fmt_bpf_profile));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_uentry, strlen(fmt_bpf_uentry));
	err = err ?: fmt_writer_event_format(o->w, "flytrap", fmt_bpf_uexit, strlen(fmt_bpf_uexit));
	err = err ?: fmt_writer_event_format(o->w, "flytrap_123", fmt_up_entry, strlen(fmt_up_entry));
	err = err ?: fmt_writer_event_format(o->w, "flytrap_123", fmt_up_return, strlen(fmt_up_return));
	err = err ?: fmt_writer_event_format(o->w, "flytrap_123", fmt_up2_entry, strlen(fmt_up2_entry));
	err = err ?: fmt_writer_event_format(o->w, "flytrap_123", fmt_up2_return, strlen(fmt_up2_return));
	err = err ?: fmt_writer_kallsyms(o->w, kallsyms, strlen(kallsyms));
	err = err ?: fmt_writer_printk(o->w, "", 0);
	err = err ?: fmt_writer_cmdlines(o->w, cmdlines, strlen(cmdlines));
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_TRACECLOCK, "local global counter uptime perf [mono] mono_raw boot\n");
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_UNAME, "Linux mkrpt 6.18.0 x86_64");
	err = err ?: fmt_writer_cpucount(o->w, (uint32_t)ncpu);
	if (err)
		die(o, "metadata", err);
	if (extra)
		extra(o);
	err = fmt_wbuf_new(o->w, "", "mono", &o->b);
	if (err)
		die(o, "buffer", err);
	for (c = 0; c < ncpu; c++)
		if (fmt_page_enc_init(&o->pe[c], 4096, 8, g_be))
			die(o, "page encoder", -ENOMEM);
}

static void flush_page(struct out *o, int cpu)
{
	int err;

	if (!o->pe[cpu].nrecords && !o->pe[cpu].missed)
		return;
	err = fmt_wbuf_add_page(o->b, cpu, fmt_page_enc_finish(&o->pe[cpu]));
	if (err)
		die(o, "add page", err);
}

/* the next page of cpu starts after a loss of count events (-1 = unknown) */
static void new_page_after_loss(struct out *o, int cpu, int64_t count)
{
	flush_page(o, cpu);
	fmt_page_enc_set_missed(&o->pe[cpu], count);
}

static void emit(struct out *o, int cpu, uint64_t ts, const void *payload, uint32_t len)
{
	int err = fmt_page_enc_add(&o->pe[cpu], ts, payload, len);

	if (err == -ENOSPC) {
		flush_page(o, cpu);
		err = fmt_page_enc_add(&o->pe[cpu], ts, payload, len);
	}
	if (err)
		die(o, "add record", err);
}

static void out_close(struct out *o, void (*extra)(struct out *o))
{
	int c, err;

	for (c = 0; c < o->ncpu; c++) {
		flush_page(o, c);
		fmt_page_enc_release(&o->pe[c]);
	}
	if (extra)
		extra(o);
	err = fmt_writer_close(o->w);
	if (err) {
		fprintf(stderr, "mkrpt: close: %s\n", strerror(-err));
		exit(1);
	}
}

/* ---- records ---------------------------------------------------------------------- */

/* integers in the file's byte order (g_be), whatever this machine's */
static void put_n(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[g_be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}
static void put16(uint8_t *p, uint16_t v) { put_n(p, v, 2); }
static void put32(uint8_t *p, uint32_t v) { put_n(p, v, 4); }
static void put64(uint8_t *p, uint64_t v) { put_n(p, v, 8); }

static void common(uint8_t *p, int id, int pid)
{
	put16(p, (uint16_t)id);
	p[2] = 0;
	p[3] = 0;
	put32(p + 4, (uint32_t)pid);
}

static void fg_entry(struct out *o, int cpu, uint64_t ts, int pid, uint64_t func, int depth)
{
	uint8_t r[24] = { 0 };

	common(r, ID_FG_ENTRY, pid);
	put64(r + 8, func);
	put32(r + 16, (uint32_t)depth);
	emit(o, cpu, ts, r, sizeof(r));
}

static void fg_exit(struct out *o, int cpu, uint64_t ts, int pid, uint64_t func, int depth, uint64_t calltime)
{
	uint8_t r[40] = { 0 };

	common(r, ID_FG_EXIT, pid);
	put64(r + 8, func);
	put32(r + 16, (uint32_t)depth);
	put64(r + 24, calltime);
	put64(r + 32, ts);
	emit(o, cpu, ts, r, sizeof(r));
}

static void sched_switch(struct out *o, int cpu, uint64_t ts, int prev, const char *pcomm, long state,
			 int next, const char *ncomm)
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
	emit(o, cpu, ts, r, sizeof(r));
}

static void sys_enter(struct out *o, int cpu, uint64_t ts, int pid, long nr)
{
	uint8_t r[64] = { 0 };

	common(r, ID_SYS_ENTER, pid);
	put64(r + 8, (uint64_t)nr);
	emit(o, cpu, ts, r, sizeof(r));
}

static void sys_exit(struct out *o, int cpu, uint64_t ts, int pid, long nr, long ret)
{
	uint8_t r[24] = { 0 };

	common(r, ID_SYS_EXIT, pid);
	put64(r + 8, (uint64_t)nr);
	put64(r + 16, (uint64_t)ret);
	emit(o, cpu, ts, r, sizeof(r));
}

static void irq_entry(struct out *o, int cpu, uint64_t ts, int pid, int irq, const char *name)
{
	uint8_t r[32] = { 0 };
	size_t nl = strlen(name) + 1;

	common(r, ID_IRQ_ENTRY, pid);
	put32(r + 8, (uint32_t)irq);
	put32(r + 12, (uint32_t)(nl << 16 | 16));
	memcpy(r + 16, name, nl);
	emit(o, cpu, ts, r, (uint32_t)(16 + nl));
}

static void irq_exit(struct out *o, int cpu, uint64_t ts, int pid, int irq)
{
	uint8_t r[16] = { 0 };

	common(r, ID_IRQ_EXIT, pid);
	put32(r + 8, (uint32_t)irq);
	put32(r + 12, 1);
	emit(o, cpu, ts, r, sizeof(r));
}

static void softirq(struct out *o, int cpu, uint64_t ts, int pid, unsigned vec, bool entry)
{
	uint8_t r[12] = { 0 };

	common(r, entry ? ID_SOFTIRQ_ENTRY : ID_SOFTIRQ_EXIT, pid);
	put32(r + 8, vec);
	emit(o, cpu, ts, r, sizeof(r));
}

static void stack(struct out *o, int cpu, uint64_t ts, int pid, bool user, const uint64_t *a, int n)
{
	uint8_t r[80] = { 0 };
	int k;

	common(r, user ? ID_USTACK : ID_KSTACK, pid);
	put32(r + 8, user ? (uint32_t)pid : (uint32_t)n);
	for (k = 0; k < n && k < 8; k++)
		put64(r + 16 + 8 * k, a[k]);
	/* user stacks end with ULONG_MAX when shorter than the array */
	if (user && n < 8)
		put64(r + 16 + 8 * n, UINT64_MAX);
	emit(o, cpu, ts, r, sizeof(r));
}

/* ---- the traces ----------------------------------------------------------------------- */

/*
 * graph: one CPU.  Task 100 ("app"):
 *   1.000000 ksys_read {                      200 us, self 200-90-40 = 70
 *   1.000010   vfs_read {                     90 us, self 90-30-20 = 40
 *   1.000020     ext4_file_read_iter  30 us
 *   1.000060     ext4_file_read_iter  20 us
 *   1.000100   }
 *   1.000110   fsnotify  40 us
 *   1.000200 }
 * Task 200 ("worker"):
 *   1.000300 vfs_read {                       100 us, self 90
 *   1.000310   ext4_file_read_iter  10 us
 *   1.000400 }
 *   1.000500 a return of fsnotify with no call (trace started mid-call)
 *   1.000600 ksys_read { never returns (still open at the end)
 */
static void build_graph(const char *path)
{
	struct out o;
	uint64_t t = 1 * S;

	out_open(&o, path, 1, "100 app\n200 worker\n", NULL);
	fg_entry(&o, 0, t, 100, K_KSYS_READ, 0);
	fg_entry(&o, 0, t + 10 * US, 100, K_VFS_READ, 1);
	fg_entry(&o, 0, t + 20 * US, 100, K_EXT4_READ, 2);
	fg_exit(&o, 0, t + 50 * US, 100, K_EXT4_READ, 2, t + 20 * US);
	fg_entry(&o, 0, t + 60 * US, 100, K_EXT4_READ, 2);
	fg_exit(&o, 0, t + 80 * US, 100, K_EXT4_READ, 2, t + 60 * US);
	fg_exit(&o, 0, t + 100 * US, 100, K_VFS_READ, 1, t + 10 * US);
	fg_entry(&o, 0, t + 110 * US, 100, K_FSNOTIFY, 1);
	fg_exit(&o, 0, t + 150 * US, 100, K_FSNOTIFY, 1, t + 110 * US);
	fg_exit(&o, 0, t + 200 * US, 100, K_KSYS_READ, 0, t);
	fg_entry(&o, 0, t + 300 * US, 200, K_VFS_READ, 0);
	fg_entry(&o, 0, t + 310 * US, 200, K_EXT4_READ, 1);
	fg_exit(&o, 0, t + 320 * US, 200, K_EXT4_READ, 1, t + 310 * US);
	fg_exit(&o, 0, t + 400 * US, 200, K_VFS_READ, 0, t + 300 * US);
	fg_exit(&o, 0, t + 500 * US, 200, K_FSNOTIFY, 0, t + 450 * US);
	fg_entry(&o, 0, t + 600 * US, 200, K_KSYS_READ, 0);
	out_close(&o, NULL);
}

/*
 * sched: two CPUs, 10.000 .. 10.100 s.
 * CPU 0: app(100) runs 10.000-10.010, idle to 10.020, app to 10.030
 *        (preempted, state R), bg(200) to 10.040, app to 10.100, then idle.
 *        busy 90 ms, idle 10 ms, 6 switches.
 *        app: read 2 ms (10.001-10.003), write 1 ms failing with -11
 *        (10.004-10.005), read 4 ms (10.021-10.025); eth0 irq 16 for
 *        500 us at 10.006; TIMER softirq 1 ms at 10.050.
 * CPU 1: worker(300) runs 10.000-10.050, idle to 10.100, worker again.
 *        busy 50 ms, idle 50 ms, 3 switches.
 * Tasks: app on-CPU 80 ms, runnable 10 ms, blocked 10 ms, 3 syscalls;
 *        bg on-CPU 10 ms, blocked 60 ms; worker on-CPU 50 ms, blocked 50 ms.
 */
static void build_sched(const char *path)
{
	struct out o;
	uint64_t t = 10 * S;

	out_open(&o, path, 2, "100 app\n200 bg\n300 worker\n", NULL);
	sched_switch(&o, 0, t, 0, "swapper/0", 0, 100, "app");
	sched_switch(&o, 1, t, 0, "swapper/1", 0, 300, "worker");
	sys_enter(&o, 0, t + 1 * MS, 100, 0);
	sys_exit(&o, 0, t + 3 * MS, 100, 0, 10);
	sys_enter(&o, 0, t + 4 * MS, 100, 1);
	sys_exit(&o, 0, t + 5 * MS, 100, 1, -11);
	irq_entry(&o, 0, t + 6 * MS, 100, 16, "eth0");
	irq_exit(&o, 0, t + 6 * MS + 500 * US, 100, 16);
	sched_switch(&o, 0, t + 10 * MS, 100, "app", 1, 0, "swapper/0");
	sched_switch(&o, 0, t + 20 * MS, 0, "swapper/0", 0, 100, "app");
	sys_enter(&o, 0, t + 21 * MS, 100, 0);
	sys_exit(&o, 0, t + 25 * MS, 100, 0, 0);
	sched_switch(&o, 0, t + 30 * MS, 100, "app", 0, 200, "bg");
	sched_switch(&o, 0, t + 40 * MS, 200, "bg", 1, 100, "app");
	sched_switch(&o, 1, t + 50 * MS, 300, "worker", 1, 0, "swapper/1");
	softirq(&o, 0, t + 50 * MS, 100, 1, true);
	softirq(&o, 0, t + 51 * MS, 100, 1, false);
	sched_switch(&o, 0, t + 100 * MS, 100, "app", 1, 0, "swapper/0");
	sched_switch(&o, 1, t + 100 * MS, 0, "swapper/1", 0, 300, "worker");
	out_close(&o, NULL);
}

/*
 * drops: two CPUs.
 * CPU 0: page 1: 20.000 20.001 20.002; page 2 after 5 lost: 20.100 20.101;
 *        page 3 after an unknown count: 20.200 20.300.
 *        Kernel: overrun 100 at the start, 112 at the end: 12 lost.
 * CPU 1: page 1: 20.000 20.050; page 2 after 7 lost: 20.400 20.500.
 *        Kernel: overrun 0 -> 7, dropped 1 -> 4: 10 lost.
 * BPF: 4 syscalls records lost on CPU 0 at 20.150, 2 profile records on
 *      CPU 1 at 20.450.  Recorder: backlog_lost=3.
 * Total: 12 + 10 + 6 + 3 = 31.
 */
static void drops_start(struct out *o)
{
	static const char start[] =
		"CPU: 0\nentries: 0\noverrun: 100\ncommit overrun: 0\nbytes: 0\noldest event ts: 19.000000\n"
		"now ts: 19.900000\ndropped events: 0\nread events: 50\n"
		"CPU: 1\nentries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\noldest event ts: 19.000000\n"
		"now ts: 19.900000\ndropped events: 1\nread events: 20\n";
	int err = fmt_writer_option_str(o->w, FMT_OPT_FT_CPUSTAT_START, start);

	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_FT_META,
					   FMT_META_RECORDER "=mkrpt\n" FMT_META_BUFFER_KB "=4\n"
					   FMT_META_BPF_PROGS "=syscalls,offcpu,profile,ufunc\n");
	if (err)
		die(o, "start options", err);
}

static void drops_end(struct out *o)
{
	struct fmt_bpf_drop d[2] = {
		{ .ts = 20 * S + 150 * MS, .cpu = 0, .prog = 0, .count = 4 },
		{ .ts = 20 * S + 450 * MS, .cpu = 1, .prog = 2, .count = 2 },
	};
	int err = fmt_writer_cpustat(o->w, "", 0,
				     "entries: 0\noverrun: 112\ncommit overrun: 0\nbytes: 4096\n"
				     "oldest event ts: 20.000000\nnow ts: 20.600000\ndropped events: 0\nread events: 57\n");

	err = err ?: fmt_writer_cpustat(o->w, "", 1,
					"entries: 0\noverrun: 7\ncommit overrun: 0\nbytes: 2048\n"
					"oldest event ts: 20.000000\nnow ts: 20.600000\ndropped events: 4\nread events: 24\n");
	err = err ?: fmt_writer_option(o->w, FMT_OPT_FT_BPF_DROPS, d, sizeof(d));
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_FT_RECSTATS,
					   "cpu_user_ns=1200000\ncpu_sys_ns=3400000\nbytes_read=16384\n"
					   "bytes_written=2048\nbacklog_max_bytes=8192\nbacklog_lost=3\n");
	if (err)
		die(o, "end options", err);
}

static void build_drops(const char *path)
{
	struct out o;
	uint64_t t = 20 * S;

	out_open(&o, path, 2, "100 app\n300 worker\n", drops_start);
	sched_switch(&o, 0, t, 0, "swapper/0", 0, 100, "app");
	sched_switch(&o, 1, t, 0, "swapper/1", 0, 300, "worker");
	sys_enter(&o, 0, t + 1 * MS, 100, 0);
	sys_exit(&o, 0, t + 2 * MS, 100, 0, 1);
	sched_switch(&o, 1, t + 50 * MS, 300, "worker", 1, 0, "swapper/1");
	new_page_after_loss(&o, 0, 5);
	sys_enter(&o, 0, t + 100 * MS, 100, 0);
	sys_exit(&o, 0, t + 101 * MS, 100, 0, 1);
	new_page_after_loss(&o, 0, -1);
	sys_enter(&o, 0, t + 200 * MS, 100, 1);
	sys_exit(&o, 0, t + 300 * MS, 100, 1, 1);
	new_page_after_loss(&o, 1, 7);
	sched_switch(&o, 1, t + 400 * MS, 0, "swapper/1", 0, 300, "worker");
	sched_switch(&o, 1, t + 500 * MS, 300, "worker", 1, 0, "swapper/1");
	out_close(&o, drops_end);
}

/*
 * stacks: process 100 ("app") maps /usr/bin/fakeapp at 0x400000.
 *   sample 1 (CPU 0): kernel ext4_file_read_iter+0x10 <- vfs_read+0x20 <-
 *            ksys_read+0x30, user 0x401000 <- 0x402000 (both in fakeapp)
 *   sample 2 (CPU 0): the same kernel stack, no user stack
 *   sample 3 (CPU 1): pid 200 kernel do_idle+0x8 <- schedule+0x4 <-
 *            entry_SYSCALL_64+0x2, user 0x7f0000001000 (no maps: unknown)
 */
static void stacks_maps(struct out *o)
{
	static const char maps[] = "64 1 app\n400000 500000 /usr/bin/fakeapp\n";
	int err = fmt_writer_option_str(o->w, FMT_OPT_PROCMAPS, maps);

	if (err)
		die(o, "maps", err);
}

static void build_stacks(const char *path)
{
	struct out o;
	uint64_t t = 30 * S;
	uint64_t k1[3] = { K_EXT4_READ + 0x10, K_VFS_READ + 0x20, K_KSYS_READ + 0x30 };
	uint64_t k2[3] = { K_IDLE + 8, K_SCHEDULE + 4, K_ENTRY + 2 };
	uint64_t u1[2] = { 0x401000, 0x402000 };
	uint64_t u2[1] = { 0x7f0000001000ULL };

	out_open(&o, path, 2, "100 app\n200 other\n", stacks_maps);
	stack(&o, 0, t, 100, false, k1, 3);
	stack(&o, 0, t, 100, true, u1, 2);
	stack(&o, 0, t + 1 * MS, 100, false, k1, 3);
	sys_enter(&o, 0, t + 2 * MS, 100, 0);
	stack(&o, 1, t + 3 * MS, 200, false, k2, 3);
	stack(&o, 1, t + 3 * MS, 200, true, u2, 1);
	out_close(&o, NULL);
}

static void bpf_hdr(uint8_t *r, int id, int pid)
{
	common(r, id, pid);
	put32(r + 8, (uint32_t)pid);	/* tgid == pid in these traces */
}

static void bpf_syscall(struct out *o, int cpu, uint64_t end, int pid, int nr, uint64_t dur, int64_t ret)
{
	uint8_t r[40] = { 0 };

	bpf_hdr(r, ID_BPF_SYSCALL, pid);
	put32(r + 12, (uint32_t)nr);
	put64(r + 16, end - dur);
	put64(r + 24, dur);
	put64(r + 32, (uint64_t)ret);
	emit(o, cpu, end, r, sizeof(r));
}

/* offcpu (kind 1) or profile (kind 0) record with its two stacks */
static void bpf_stacks(struct out *o, int cpu, uint64_t ts, int pid, bool offcpu, uint64_t dur,
		       const uint64_t *k, int kn, const uint64_t *u, int un)
{
	uint8_t r[256] = { 0 };
	int fixed = offcpu ? 80 : 40, koff = offcpu ? 72 : 32, i;

	bpf_hdr(r, offcpu ? ID_BPF_OFFCPU : ID_BPF_PROFILE, pid);
	if (offcpu) {
		put32(r + 12, 1);
		put64(r + 16, ts - dur);
		put64(r + 24, dur);
		memcpy(r + 40, "app", 4);
	} else {
		memcpy(r + 16, "app", 4);
	}
	put32(r + koff, (uint32_t)(kn * 8) << 16 | (uint32_t)fixed);
	put32(r + koff + 4, (uint32_t)(un * 8) << 16 | (uint32_t)(fixed + kn * 8));
	for (i = 0; i < kn; i++)
		put64(r + fixed + 8 * i, k[i]);
	for (i = 0; i < un; i++)
		put64(r + fixed + 8 * (kn + i), u[i]);
	emit(o, cpu, ts, r, (uint32_t)(fixed + 8 * (kn + un)));
}

static void ufunc(struct out *o, int cpu, uint64_t ts, int pid, unsigned func, unsigned depth, bool entry,
		  uint64_t dur)
{
	uint8_t r[48] = { 0 };

	bpf_hdr(r, entry ? ID_BPF_UENTRY : ID_BPF_UEXIT, pid);
	put32(r + 12, func);
	put32(r + 16, depth);
	if (entry) {
		put64(r + 24, 0x401000 + func * 0x100);
		emit(o, cpu, ts, r, 32);
	} else {
		put64(r + 24, ts - dur);
		put64(r + 32, dur);
		emit(o, cpu, ts, r, 48);
	}
}

/* a uprobe entry (ip) or return (func) at its own address */
static void uprobe_at(struct out *o, int cpu, uint64_t ts, int pid, int id, uint64_t ip)
{
	uint8_t r[24] = { 0 };

	common(r, id, pid);
	put64(r + 8, ip);
	put64(r + 16, 0x401234);
	emit(o, cpu, ts, r, (id == ID_UP_ENTRY || id == ID_UP2_ENTRY) ? 16 : 24);
}

/* the bpf file's probes: both at 0x402000 */
static void uprobe(struct out *o, int cpu, uint64_t ts, int pid, int id)
{
	uprobe_at(o, cpu, ts, pid, id, 0x402000);
}

static void bpf_meta(struct out *o)
{
	static const char maps[] = "== 500 app\n00400000-00500000 r-xp 00000000 08:01 1234 /usr/bin/app\n";
	uint64_t off;
	int err = fmt_writer_option_str(o->w, FMT_OPT_FT_META,
					"bpf_progs=syscalls,offcpu,profile,ufunc\n"
					"bpf_ufunc=0 /usr/bin/app main 0x401000\n"
					"bpf_ufunc=1 /usr/bin/app parse_config 0x401100\n"
					"bpf_ufunc=2 /usr/bin/app compute 0x401200\n");

	err = err ?: fmt_writer_section(o->w, FMT_SEC_FT_PROCMAPS, "flytrap procmaps", maps, strlen(maps), &off);
	err = err ?: fmt_writer_option(o->w, FMT_OPT_FT_PROCMAPS, &off, sizeof(off));
	if (err)
		die(o, "bpf metadata", err);
}

/*
 * bpf: flytrap BPF records and uprobe events, one CPU.
 *   ufunc (pid 500): main 40.000-40.020 (20 ms, self 12), parse_config
 *     40.001-40.003 (2 ms), compute 40.004-40.010 (6 ms).
 *   uprobes (pid 600): handle_req 40.100-40.105 (5 ms, self 4), helper
 *     40.101-40.102 (1 ms).
 *   flytrap:syscall (pid 500): read 1 ms and 3 ms, write 2 ms returning -5.
 *   flytrap:syscall_hist (pid 700): open, 3 calls, 3000 ns in all, max
 *     1500 ns; two in the 512-1023 ns slot, one in 1024-2047.
 *   flytrap:profile (pid 500): 2 samples app -> entry_SYSCALL_64 ->
 *     schedule, 1 sample do_idle.
 *   flytrap:offcpu (pid 500): 7 ms and 3 ms blocked in app ->
 *     entry_SYSCALL_64 -> schedule (under the BPF program's own frames,
 *     which the analyzer drops).
 */
static void build_bpf(const char *path)
{
	struct out o;
	uint64_t t = 40 * S;
	uint64_t kp[2] = { K_SCHEDULE + 4, K_ENTRY + 2 }, kidle[1] = { K_IDLE + 8 };
	uint64_t koff[4] = { 0xffffffff81300400ULL + 0x40, 0xffffffff81300800ULL + 0x10, K_SCHEDULE + 4, K_ENTRY + 2 };
	uint64_t u[1] = { 0x401000 + 0x20 };
	uint8_t h[360] = { 0 };

	out_open(&o, path, 1, "500 app\n600 server\n700 opener\n", bpf_meta);
	ufunc(&o, 0, t, 500, 0, 1, true, 0);
	ufunc(&o, 0, t + 1 * MS, 500, 1, 2, true, 0);
	ufunc(&o, 0, t + 3 * MS, 500, 1, 2, false, 2 * MS);
	bpf_syscall(&o, 0, t + 3 * MS + 500 * US, 500, 0, 1 * MS, 100);
	ufunc(&o, 0, t + 4 * MS, 500, 2, 2, true, 0);
	bpf_syscall(&o, 0, t + 8 * MS, 500, 0, 3 * MS, 100);
	ufunc(&o, 0, t + 10 * MS, 500, 2, 2, false, 6 * MS);
	bpf_syscall(&o, 0, t + 15 * MS, 500, 1, 2 * MS, -5);
	ufunc(&o, 0, t + 20 * MS, 500, 0, 1, false, 20 * MS);
	bpf_stacks(&o, 0, t + 30 * MS, 500, false, 0, kp, 2, u, 1);
	bpf_stacks(&o, 0, t + 31 * MS, 500, false, 0, kp, 2, u, 1);
	bpf_stacks(&o, 0, t + 32 * MS, 500, false, 0, kidle, 1, NULL, 0);
	bpf_stacks(&o, 0, t + 50 * MS, 500, true, 7 * MS, koff, 4, u, 1);
	bpf_stacks(&o, 0, t + 60 * MS, 500, true, 3 * MS, koff, 4, u, 1);
	uprobe(&o, 0, t + 100 * MS, 600, ID_UP_ENTRY);
	uprobe(&o, 0, t + 101 * MS, 600, ID_UP2_ENTRY);
	uprobe(&o, 0, t + 102 * MS, 600, ID_UP2_RETURN);
	uprobe(&o, 0, t + 105 * MS, 600, ID_UP_RETURN);
	bpf_hdr(h, ID_BPF_SYSHIST, 700);
	put32(h + 12, 2);
	put64(h + 16, 3);
	put64(h + 24, 3000);
	put64(h + 32, 1500);
	put64(h + 40 + 9 * 8, 2);
	put64(h + 40 + 10 * 8, 1);
	emit(&o, 0, t + 200 * MS, h, sizeof(h));
	out_close(&o, NULL);
}

/*
 * pairs: calls whose exits were lost and exits without their entries, for
 * each source the commands pair (report/core/calls.h); 2 CPUs, from 70 s.
 *   function_graph, task fg (100), CPU 0: ksys_read depth 0 +0..+100 us
 *     holds vfs_read depth 1 entered at +10 whose exit was lost (it ends at
 *     the next entry at its depth) and ext4_file_read_iter depth 1
 *     +30..+40; then fsnotify depth 0 at +200, exit lost, and schedule
 *     depth 0 +300..+350; an exit of do_idle depth 0 at +400 (calltime
 *     +380) without its entry.
 *   BPF ufunc, task uf (500, the process bpf_meta names), CPU 1: main depth
 *     1 +0..+100 us holds parse_config depth 2 +10..+60 (50 us), which holds
 *     parse_config depth 3 entered at +20 whose exit was lost (a recursion:
 *     the depth-2 exit closes depth 2, not the innermost parse_config);
 *     then compute depth 1 +200..+250.
 *   uprobes, task up (600), CPU 1: handle_req (ip 0x402000) +500..+600 us
 *     holds helper (0x402100) entered at +510 whose return was lost; a
 *     helper return at +700 without its entry.
 *   raw_syscalls, task sc (400), CPU 0: read at +500 us, exit lost; write
 *     +520..+530; an exit of read (nr 0) at +540 with no read open.
 * So, closed calls: ksys_read 100 us, ext4_file_read_iter 10, schedule 50,
 * main 100, parse_config 50 (under main), compute 50, handle_req 100,
 * write 10; never returned: vfs_read, fsnotify, the inner parse_config,
 * helper, read.
 */
static void build_pairs(const char *path)
{
	struct out o;
	uint64_t t = 70 * S;

	out_open(&o, path, 2, "100 fg\n400 sc\n500 uf\n600 up\n", bpf_meta);
	fg_entry(&o, 0, t, 100, K_KSYS_READ, 0);
	fg_entry(&o, 0, t + 10 * US, 100, K_VFS_READ, 1);
	fg_entry(&o, 0, t + 30 * US, 100, K_EXT4_READ, 1);
	fg_exit(&o, 0, t + 40 * US, 100, K_EXT4_READ, 1, t + 30 * US);
	fg_exit(&o, 0, t + 100 * US, 100, K_KSYS_READ, 0, t);
	fg_entry(&o, 0, t + 200 * US, 100, K_FSNOTIFY, 0);
	fg_entry(&o, 0, t + 300 * US, 100, K_SCHEDULE, 0);
	fg_exit(&o, 0, t + 350 * US, 100, K_SCHEDULE, 0, t + 300 * US);
	fg_exit(&o, 0, t + 400 * US, 100, K_IDLE, 0, t + 380 * US);
	ufunc(&o, 1, t, 500, 0, 1, true, 0);
	ufunc(&o, 1, t + 10 * US, 500, 1, 2, true, 0);
	ufunc(&o, 1, t + 20 * US, 500, 1, 3, true, 0);
	ufunc(&o, 1, t + 60 * US, 500, 1, 2, false, 50 * US);
	ufunc(&o, 1, t + 100 * US, 500, 0, 1, false, 100 * US);
	ufunc(&o, 1, t + 200 * US, 500, 2, 1, true, 0);
	ufunc(&o, 1, t + 250 * US, 500, 2, 1, false, 50 * US);
	sys_enter(&o, 0, t + 500 * US, 400, 0);
	uprobe_at(&o, 1, t + 500 * US, 600, ID_UP_ENTRY, 0x402000);
	uprobe_at(&o, 1, t + 510 * US, 600, ID_UP2_ENTRY, 0x402100);
	sys_enter(&o, 0, t + 520 * US, 400, 1);
	sys_exit(&o, 0, t + 530 * US, 400, 1, 8);
	sys_exit(&o, 0, t + 540 * US, 400, 0, 8);
	uprobe_at(&o, 1, t + 600 * US, 600, ID_UP_RETURN, 0x402000);
	uprobe_at(&o, 1, t + 700 * US, 600, ID_UP2_RETURN, 0x402100);
	out_close(&o, NULL);
}

/*
 * bpfloss: what the recorder writes when its BPF ring buffer overflows
 * (issue 31).  The top buffer: sched_switch on CPUs 0 and 1, no loss, the
 * kernel's counters at 0.  The BPF buffer "flytrap-bpf": flytrap:syscall
 * records of pid 500, and on CPU 1 a page after 9 lost records (the mark the
 * recorder sets so that trace-cmd shows the gap) for the 9 reservation
 * failures it also stores as a record (FMT_OPT_FT_BPF_DROPS: CPU 1,
 * syscalls, 60.150) unless MKRPT_NO_BPF_RECORDS=1.  One loss: 9 events.
 */
static void bpfloss_start(struct out *o)
{
	static const char start[] =
		"CPU: 0\nentries: 0\noverrun: 0\ncommit overrun: 0\ndropped events: 0\n"
		"read events: 0\nCPU: 1\nentries: 0\noverrun: 0\ncommit overrun: 0\n"
		"dropped events: 0\nread events: 0\n";
	int err = fmt_writer_option_str(o->w, FMT_OPT_FT_CPUSTAT_START, start);

	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_FT_META,
					   FMT_META_RECORDER "=mkrpt\n" FMT_META_BUFFER_KB "=4\n"
					   FMT_META_BPF_PROGS "=syscalls,offcpu,profile,ufunc\n"
					   "bpf_buffer=flytrap-bpf\n");
	if (err)
		die(o, "start options", err);
}

static void bpfloss_end(struct out *o)
{
	struct fmt_bpf_drop d[1] = {
		{ .ts = 60 * S + 150 * MS, .cpu = 1, .prog = 0, .count = 9 },
	};
	static const char end[] = "entries: 0\noverrun: 0\ncommit overrun: 0\n"
				  "dropped events: 0\nread events: 2\n";
	const char *no = getenv("MKRPT_NO_BPF_RECORDS");
	int err = fmt_writer_cpustat(o->w, "", 0, end);

	err = err ?: fmt_writer_cpustat(o->w, "", 1, end);
	if (!no || strcmp(no, "1"))
		err = err ?: fmt_writer_option(o->w, FMT_OPT_FT_BPF_DROPS, d, sizeof(d));
	err = err ?: fmt_writer_option_str(o->w, FMT_OPT_FT_RECSTATS,
					   "cpu_user_us=1000\ncpu_sys_us=2000\n"
					   "bytes_read=8192\nbytes_written=2048\nbpf_records=6\n"
					   "bpf_drops=9\nbpf_bytes=240\nbpf_pages=3\n");
	if (err)
		die(o, "end options", err);
}

static void build_bpfloss(const char *path)
{
	struct out o;
	uint64_t t = 60 * S;
	int c, err;

	out_open(&o, path, 2, "500 app\n", bpfloss_start);
	sched_switch(&o, 0, t, 0, "swapper/0", 0, 500, "app");
	sched_switch(&o, 1, t + 100 * MS, 0, "swapper/1", 0, 500, "app");
	sched_switch(&o, 0, t + 300 * MS, 500, "app", 1, 0, "swapper/0");
	sched_switch(&o, 1, t + 300 * MS, 500, "app", 1, 0, "swapper/1");
	/* the top buffer's pages out, then the same encoders write the BPF buffer */
	for (c = 0; c < o.ncpu; c++)
		flush_page(&o, c);
	err = fmt_wbuf_new(o.w, "flytrap-bpf", "mono", &o.b);
	if (err)
		die(&o, "BPF buffer", err);
	bpf_syscall(&o, 0, t + 10 * MS, 500, 0, 1 * MS, 100);
	bpf_syscall(&o, 1, t + 110 * MS, 500, 0, 1 * MS, 100);
	bpf_syscall(&o, 0, t + 120 * MS, 500, 1, 1 * MS, 1);
	new_page_after_loss(&o, 1, 9);
	bpf_syscall(&o, 1, t + 200 * MS, 500, 0, 1 * MS, 100);
	bpf_syscall(&o, 1, t + 210 * MS, 500, 1, 1 * MS, 1);
	bpf_syscall(&o, 0, t + 220 * MS, 500, 0, 1 * MS, 100);
	out_close(&o, bpfloss_end);
}

/* manyloss: n pages on CPU 0, one event each, every page after a loss of 2 (one of them unknown) */
static void build_manyloss(const char *path, uint64_t n)
{
	struct out o;
	uint64_t i, t = 50 * S;

	out_open(&o, path, 1, "100 app\n", NULL);
	for (i = 0; i < n; i++) {
		if (i)
			new_page_after_loss(&o, 0, i == n / 2 ? -1 : 2);
		sys_enter(&o, 0, t + i * US, 100, 0);
	}
	out_close(&o, NULL);
}

/*
 * One task round of bench and names: a syscall around two nested kernel
 * calls (6 events); MKRPT_NO_CALLS=1: three syscalls instead (6 events
 * too), for a file without call records (a slice can skip what is before
 * its cut then).
 */
static void bench_calls(struct out *o, int cpu, uint64_t ts, int pid, uint64_t i)
{
	static int no_calls = -1;

	if (no_calls < 0)
		no_calls = getenv("MKRPT_NO_CALLS") && !strcmp(getenv("MKRPT_NO_CALLS"), "1");
	sys_enter(o, cpu, ts + 100, pid, (long)(i % 7));
	if (no_calls) {
		sys_exit(o, cpu, ts + 1000, pid, (long)(i % 7), 0);
		sys_enter(o, cpu, ts + 1050, pid, 1);
		sys_exit(o, cpu, ts + 1100 + (i % 13) * 50, pid, 1, 0);
		sys_enter(o, cpu, ts + 1900, pid, 2);
		sys_exit(o, cpu, ts + 1950, pid, 2, 0);
		return;
	}
	fg_entry(o, cpu, ts + 200, pid, K_KSYS_READ, 0);
	fg_entry(o, cpu, ts + 300, pid, K_VFS_READ, 1);
	fg_exit(o, cpu, ts + 900, pid, K_VFS_READ, 1, ts + 300);
	fg_exit(o, cpu, ts + 1000, pid, K_KSYS_READ, 0, ts + 200);
	sys_exit(o, cpu, ts + 1100 + (i % 13) * 50, pid, (long)(i % 7), 0);
}

/* bench: n events round-robin over 2 CPUs: switches, syscalls, calls */
static void build_bench(const char *path, uint64_t n)
{
	struct out o;
	uint64_t i = 0, t = 100 * S;
	int cpu;

	out_open(&o, path, 2, "1000 bench0\n1001 bench1\n2000 other0\n2001 other1\n", NULL);
	while (i < n) {
		for (cpu = 0; cpu < 2 && i < n; cpu++) {
			int pid = 1000 + cpu, other = 2000 + cpu;
			uint64_t ts = t;

			bench_calls(&o, cpu, ts, pid, i);
			sched_switch(&o, cpu, ts + 2000, pid, "bench", 1, other, "other");
			sched_switch(&o, cpu, ts + 3000, other, "other", 0, pid, "bench");
			i += 8;
		}
		t += 4000;
	}
	out_close(&o, NULL);
}

/*
 * names: like bench, but the tasks change: every epoch (500 rounds) each
 * CPU runs another pid of five, named after its epoch ("w0-e12"), which
 * CPU 1 switches to once on CPU 1 first (a task named on one CPU, running
 * on the other), and a page after a loss starts every seventh epoch.  A
 * window then meets tasks named only before it, renamed after it, and
 * losses on both sides: what the time index's facts must stand in for.
 */
/* names without calls: process 900's maps, whose thread 1000 says so once, at the start */
static void names_meta(struct out *o)
{
	static const char maps[] = "== 900 wpool\n00400000-00500000 r-xp 00000000 08:01 77 /usr/bin/wpool\n";
	uint64_t off;
	int err = fmt_writer_section(o->w, FMT_SEC_FT_PROCMAPS, "flytrap procmaps", maps,
				     strlen(maps), &off);

	err = err ?: fmt_writer_option(o->w, FMT_OPT_FT_PROCMAPS, &off, sizeof(off));
	if (err)
		die(o, "names metadata", err);
}

static void build_names(const char *path, uint64_t n)
{
	struct out o;
	uint64_t i = 0, t = 100 * S, round = 0;
	bool no_calls = getenv("MKRPT_NO_CALLS") && !strcmp(getenv("MKRPT_NO_CALLS"), "1");
	int cpu;

	out_open(&o, path, 2, "1000 w0\n1001 w1\n2000 other0\n2001 other1\n",
		 no_calls ? names_meta : NULL);
	if (no_calls) {
		uint8_t r[40] = { 0 };

		/* a BPF record: task 1000 is a thread of process 900 (a slice keeps 900's maps) */
		bpf_hdr(r, ID_BPF_SYSCALL, 1000);
		put32(r + 8, 900);
		put32(r + 12, 39);
		put64(r + 16, t - 20);
		put64(r + 24, 10);
		emit(&o, 0, t - 10, r, sizeof(r));
		i++;
	}
	while (i < n) {
		uint64_t epoch = round / 500;
		bool start = round % 500 == 0;

		for (cpu = 0; cpu < 2 && i < n; cpu++) {
			int pid = 1000 + cpu + 10 * (int)(epoch % 5), other = 2000 + cpu;
			uint64_t ts = t;
			char comm[16];

			snprintf(comm, sizeof(comm), "w%d-e%u", cpu, (unsigned)(epoch % 100000));
			if (start && epoch % 7 == 3)
				new_page_after_loss(&o, cpu, cpu ? -1 : 5);
			if (start && cpu == 1) {
				char c0[16];

				/* CPU 0's new task, named here first */
				snprintf(c0, sizeof(c0), "w0-e%u", (unsigned)(epoch % 100000));
				sched_switch(&o, 1, ts + 50, other, "other", 0, pid - 1, c0);
				sched_switch(&o, 1, ts + 60, pid - 1, c0, 1, other, "other");
				i += 2;
			}
			bench_calls(&o, cpu, ts, pid, i);
			/* the name is given once an epoch: sys and call events carry none */
			if (start) {
				sched_switch(&o, cpu, ts + 2000, pid, comm, 1, other, "other");
				sched_switch(&o, cpu, ts + 3000, other, "other", 0, pid, comm);
				i += 2;
			}
			i += 6;
		}
		t += 4000;
		round++;
	}
	out_close(&o, NULL);
}

/* wrap: an OFFSET of -1.00005 s, so the first stamps of a file starting at 1 s go below zero */
static void wrap_meta(struct out *o)
{
	int err = fmt_writer_option_str(o->w, FMT_OPT_OFFSET, "-1000050000");

	if (err)
		die(o, "offset option", err);
}

/* wrap: n syscall exits on one CPU, 1 us apart, from raw 1 s, with wrap_meta's OFFSET */
static void build_wrap(const char *path, uint64_t n)
{
	struct out o;

	out_open(&o, path, 1, "1000 w0\n", wrap_meta);
	for (uint64_t i = 0; i < n; i++)
		sys_exit(&o, 0, 1 * S + i * US, 1000, 0, 0);
	out_close(&o, NULL);
}

/*
 * cgmix: n events of every kind callgraph pairs or joins, drawn at random
 * (MKRPT_SEED, default 1) over 3 CPUs and 6 tasks that migrate:
 * function_graph entries and exits (some exits lost, some entries at a
 * depth that ends calls, some exits of no call), uprobe entries and
 * returns of two probes at two addresses (nested, some returns lost or
 * unpaired), BPF ufunc entries and exits, kernel_stack events with or
 * without the user_stack after them (of the task, or of another), BPF
 * profile and off-CPU samples, syscalls, switches between them, and
 * forks of mixb by mixa and its execs (its samples named from mixa's
 * maps in between).  A
 * ranged callgraph must print what one replay prints on any cut of it
 * (tests/report/ranges.sh).  MKRPT_MIX_CLEAN=1: no uprobe or ufunc exit
 * lost or unpaired, and the sixth task's calls from ufunc alone (a range
 * cannot pair such an exit alone: with them, ranges mostly replay once).
 */
static uint64_t mix_state;

static uint32_t mix_rand(uint32_t n)
{
	mix_state = mix_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return n ? (uint32_t)((mix_state >> 33) % n) : 0;
}

struct mix_task {
	int pid;
	int nfg, nup, nuf;
	uint64_t fg[40], fgt[40];
	int up[40];
	unsigned uf[40];
	uint64_t uft[40];
};

static const char fmt_fork[] =
	"name: sched_process_fork\nID: 310\nformat:\n" COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid\n";
static const char fmt_exec[] =
	"name: sched_process_exec\nID: 311\nformat:\n" COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static void mix_fork(struct out *o, int cpu, uint64_t ts, int parent, int child)
{
	uint8_t r[48] = { 0 };

	common(r, 310, parent);
	strcpy((char *)r + 8, "mixa");
	put32(r + 24, (uint32_t)parent);
	strcpy((char *)r + 28, "mixa");
	put32(r + 44, (uint32_t)child);
	emit(o, cpu, ts, r, sizeof(r));
}

static void mix_exec(struct out *o, int cpu, uint64_t ts, int pid)
{
	uint8_t r[40] = { 0 };

	common(r, 311, pid);
	put32(r + 8, (uint32_t)(15 << 16 | 20));
	put32(r + 12, (uint32_t)pid);
	put32(r + 16, (uint32_t)pid);
	memcpy(r + 20, "/usr/bin/mixb", 14);
	emit(o, cpu, ts, r, 36);
}

static void mix_maps(struct out *o)
{
	static const char maps[] =
		"== 501 mixa\n00400000-00500000 r-xp 00000000 08:01 11 /usr/bin/mixa\n"
		"== 502 mixb\n00400000-00500000 r-xp 00000000 08:01 12 /usr/bin/mixb\n";
	uint64_t off;
	int err = fmt_writer_option_str(o->w, FMT_OPT_FT_META,
					"bpf_progs=offcpu,profile,ufunc\n"
					"bpf_ufunc=0 /usr/bin/mixa main 0x401000\n"
					"bpf_ufunc=1 /usr/bin/mixa parse 0x401100\n"
					"bpf_ufunc=2 /usr/bin/mixa work 0x401200\n");

	err = err ?: fmt_writer_section(o->w, FMT_SEC_FT_PROCMAPS, "flytrap procmaps", maps,
					strlen(maps), &off);
	err = err ?: fmt_writer_option(o->w, FMT_OPT_FT_PROCMAPS, &off, sizeof(off));
	err = err ?: fmt_writer_event_format(o->w, "sched", fmt_fork, strlen(fmt_fork));
	err = err ?: fmt_writer_event_format(o->w, "sched", fmt_exec, strlen(fmt_exec));
	if (err)
		die(o, "cgmix metadata", err);
}

static void build_cgmix(const char *path, uint64_t n)
{
	static const uint64_t kf[6] = { K_KSYS_READ, K_VFS_READ, K_EXT4_READ, K_FSNOTIFY,
					K_SCHEDULE, K_ENTRY };
	static const char *const comm[6] = { "mixa", "mixa", "mixb", "mixb", "mixc", "mixd" };
	struct mix_task tk[6];
	int cur[3] = { 0, 2, 4 };
	uint64_t i, t = 200 * S, ka[4], ua[4];
	struct out o;
	int k;

	bool clean = getenv("MKRPT_MIX_CLEAN") && !strcmp(getenv("MKRPT_MIX_CLEAN"), "1");

	mix_state = getenv("MKRPT_SEED") ? strtoull(getenv("MKRPT_SEED"), NULL, 0) : 1;
	memset(tk, 0, sizeof(tk));
	for (k = 0; k < 6; k++)
		tk[k].pid = 501 + k;
	out_open(&o, path, 3, "501 mixa\n502 mixa\n503 mixb\n504 mixb\n505 mixc\n506 mixd\n",
		 mix_maps);
	for (i = 0; i < n; i++) {
		int cpu = (int)mix_rand(3);
		struct mix_task *x = &tk[cur[cpu]];
		uint32_t r = mix_rand(100), d;
		uint64_t f;

		t += 1 + mix_rand(3000);
		/*
		 * the calls of a task come from one source (two of them:
		 * function_graph, two uprobes, one BPF ufunc), the last task's
		 * from all three at once
		 */
		if (r < 65 && (cur[cpu] < 5 || clean)) {
			static const uint32_t base[6] = { 0, 0, 38, 38, 53, 53 },
					      span[6] = { 38, 38, 15, 15, 12, 12 };

			r = base[cur[cpu]] + r % span[cur[cpu]];
		}
		/* calls nest a few deep, returning more often the deeper they are */
		if (r >= 38 && r < 46 && x->nup > 4 + (int)mix_rand(20))
			r = 46;
		if (r >= 53 && r < 59 && x->nuf > 4 + (int)mix_rand(20))
			r = 59;
		if (r < 20 && x->nfg > 4 + (int)mix_rand(20))
			r = 20;
		if (r < 20) {			/* function_graph entry */
			d = (uint32_t)x->nfg;
			if (x->nfg && !mix_rand(12))
				d = mix_rand((uint32_t)x->nfg);	/* the exits above were lost */
			f = kf[mix_rand(6)];
			fg_entry(&o, cpu, t, x->pid, f, (int)d);
			if (d < 40) {
				x->nfg = (int)d + 1;
				x->fg[d] = f;
				x->fgt[d] = t;
			}
		} else if (r < 38) {		/* function_graph exit */
			if (!x->nfg || !mix_rand(15)) {
				fg_exit(&o, cpu, t, x->pid, kf[mix_rand(6)], (int)mix_rand(4), t - 50);
				continue;
			}
			x->nfg--;
			if (x->nfg && !mix_rand(10))
				x->nfg--;	/* this one's exit lost: its caller returns */
			fg_exit(&o, cpu, t, x->pid, x->fg[x->nfg], x->nfg, x->fgt[x->nfg]);
		} else if (r < 46) {		/* uprobe entry */
			int id = mix_rand(2) ? ID_UP_ENTRY : ID_UP2_ENTRY;

			/* clean: each probe at its own address (its returns pair by it) */
			uprobe_at(&o, cpu, t, x->pid, id,
				  clean ? (id == ID_UP_ENTRY ? 0x402000 : 0x402100) :
				  mix_rand(2) ? 0x402000 : 0x401234);
			if (x->nup < 40)
				x->up[x->nup++] = id;
		} else if (r < 53) {		/* uprobe return */
			int id;

			if (clean && !x->nup)
				continue;
			id = x->nup && (clean || mix_rand(8)) ? x->up[--x->nup] :
				(mix_rand(2) ? ID_UP_ENTRY : ID_UP2_ENTRY);
			if (x->nup && !clean && !mix_rand(12))
				x->nup--;	/* an inner return lost */
			uprobe_at(&o, cpu, t, x->pid, id == ID_UP_ENTRY ? ID_UP_RETURN : ID_UP2_RETURN,
				  clean && id != ID_UP_ENTRY ? 0x402100 : 0x402000);
		} else if (r < 59) {		/* ufunc entry */
			unsigned fn = mix_rand(3);

			ufunc(&o, cpu, t, x->pid, fn, (unsigned)x->nuf + 1, true, 0);
			if (x->nuf < 40) {
				x->uf[x->nuf] = fn;
				x->uft[x->nuf++] = t;
			}
		} else if (r < 65) {		/* ufunc exit */
			if (!x->nuf) {
				if (!clean)
					ufunc(&o, cpu, t, x->pid, mix_rand(3), 1 + mix_rand(3), false, 100);
				continue;
			}
			x->nuf--;
			ufunc(&o, cpu, t, x->pid, x->uf[x->nuf], (unsigned)x->nuf + 1, false,
			      t - x->uft[x->nuf]);
		} else if (r < 75) {		/* kernel_stack, maybe a user_stack after it */
			int kn = 1 + (int)mix_rand(4), un = 1 + (int)mix_rand(3), w = (int)mix_rand(4);

			for (k = 0; k < kn; k++)
				ka[k] = kf[mix_rand(6)] + 8;
			for (k = 0; k < un; k++)
				ua[k] = 0x401000 + 0x100 * mix_rand(4);
			if (w)
				stack(&o, cpu, t, x->pid, false, ka, kn);
			if (w != 1)
				stack(&o, cpu, t, w == 3 ? tk[mix_rand(6)].pid : x->pid, true, ua, un);
		} else if (r < 82) {		/* BPF profile or off-CPU sample */
			int kn = 1 + (int)mix_rand(3), un = (int)mix_rand(3);

			for (k = 0; k < kn; k++)
				ka[k] = kf[mix_rand(6)] + 4;
			for (k = 0; k < un; k++)
				ua[k] = 0x401000 + 0x100 * mix_rand(4) + 0x10;
			bpf_stacks(&o, cpu, t, x->pid, mix_rand(3) == 0, 1000 + mix_rand(5000), ka, kn,
				   ua, un);
		} else if (r < 92) {		/* a syscall event */
			if (mix_rand(2))
				sys_enter(&o, cpu, t, x->pid, (long)mix_rand(5));
			else
				sys_exit(&o, cpu, t, x->pid, (long)mix_rand(5), 0);
		} else if (r < 94) {		/* mixb (502) forked by mixa (501), or its exec */
			/* clean: mostly execs, so that few cuts fall between a fork and its exec */
			if (clean ? !mix_rand(8) : mix_rand(2))
				mix_fork(&o, cpu, t, 501, 502);
			else
				mix_exec(&o, cpu, t, 502);
		} else {			/* a switch: another task, maybe one that ran elsewhere */
			int nx = (int)mix_rand(6);

			for (k = 0; k < 3; k++)
				if (cur[k] == nx)
					break;
			if (k < 3)
				continue;	/* it runs on another CPU now */
			sched_switch(&o, cpu, t, x->pid, comm[cur[cpu]], 1, tk[nx].pid, comm[nx]);
			cur[cpu] = nx;
		}
	}
	out_close(&o, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mkrpt graph|sched|drops|stacks OUT | mkrpt bench OUT N\n");
		return 2;
	}
	if (!strcmp(argv[1], "graph"))
		build_graph(argv[2]);
	else if (!strcmp(argv[1], "sched"))
		build_sched(argv[2]);
	else if (!strcmp(argv[1], "drops"))
		build_drops(argv[2]);
	else if (!strcmp(argv[1], "pairs"))
		build_pairs(argv[2]);
	else if (!strcmp(argv[1], "bpf"))
		build_bpf(argv[2]);
	else if (!strcmp(argv[1], "stacks"))
		build_stacks(argv[2]);
	else if (!strcmp(argv[1], "bpfloss"))
		build_bpfloss(argv[2]);
	else if (!strcmp(argv[1], "manyloss") && argc == 4)
		build_manyloss(argv[2], strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "bench") && argc == 4)
		build_bench(argv[2], strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "names") && argc == 4)
		build_names(argv[2], strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "cgmix") && argc == 4)
		build_cgmix(argv[2], strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "wrap") && argc == 4)
		build_wrap(argv[2], strtoull(argv[3], NULL, 0));
	else {
		fprintf(stderr, "mkrpt: unknown kind '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}
