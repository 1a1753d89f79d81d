// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkexport OUT.dat [--scale N | --epoch]: a synthetic trace.dat for the export
 * tests, with every kind of record `flytrap export` turns into tracks and
 * a known answer (tests/report/41-export-synthetic.sh checks it):
 *
 *   CPU 0, top buffer, tasks alpha (100) and beta (101):
 *     1000 sched_switch swapper/0 -> alpha
 *     2000 sys_enter  alpha read           3000 sys_exit ret 5
 *     2100 funcgraph_entry ksys_read        2900 funcgraph_exit
 *     2200 funcgraph_entry vfs_read         2700 funcgraph_exit
 *     3500 irq_handler_entry 19 eth0        3600 irq_handler_exit 19
 *     4000 sys_exit alpha write (no entry: dropped)
 *     5000 sys_enter alpha write (exit lost: an instant)
 *     6000 sys_enter alpha getpid           6500 sys_exit ret 100
 *     7000 funcgraph_exit do_sys_open, calltime 6600 (entry lost: X 6600..7000)
 *     7500 funcgraph_exit vfs_read, calltime 6400 (would straddle getpid: dropped)
 *     7800 funcgraph_exit ksys_read, calltime 6550 (X 6550..7800, around do_sys_open)
 *     8000 sched_switch alpha (S) -> beta
 *     8500 sys_enter beta read
 *     -- page boundary, 7 events lost --
 *     9000 sys_exit beta read ret 3
 *     9500 sys_enter beta futex (never exits: an instant)
 *   CPU 1, top buffer, task gamma (102):
 *     1500 sched_switch swapper/1 -> gamma
 *     5500 uprobe foo (ip 0x401000)         5800 foo__return
 *     7900 sched_wakeup beta (runs at 8000 on CPU 0: a wakeup arrow)
 *     9800 sys_enter gamma exit
 *    10000 sched_process_exit gamma (ends the open exit call)
 *    10000 sched_switch gamma -> swapper/1
 *   buffer "flytrap" (BPF records):
 *     CPU 1: 4500 flytrap:syscall gamma nanosleep start 3000 duration 1500 ret 0
 *            5501 flytrap:ufunc_entry gamma foo, 5799 flytrap:ufunc_exit (the same
 *            call as the uprobes: on a second track of gamma)
 *     CPU 0: 8900 flytrap:offcpu beta blocked 8600..8900 (state 1), woken by gamma
 * Timestamps are those numbers in ns plus 1 s.  uname says x86_64.
 *
 * With --epoch, the same on a wall-clock time line (1795000001 s and up).
 * With --scale N, N repetitions of a busier pattern on 2 CPUs and 8
 * tasks instead (about 24 events each), for benchmarks and memory checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "synth_formats.h"

/* 1 s, or with --epoch a wall-clock time (2026-11-29, ns since 1970) */
static uint64_t BASE = 1000000000ULL;


enum { ID_SWITCH = 300, ID_EXIT = 301, ID_SYS_ENTER = 302, ID_SYS_EXIT = 303,
       ID_FG_ENTRY = 11, ID_FG_EXIT = 10, ID_IRQ_ENTRY = 304, ID_IRQ_EXIT = 305,
       ID_UP = 306, ID_URET = 307, ID_WAKEUP = 308, ID_BPF_SYSCALL = 5000, ID_BPF_OFFCPU = 5001,
       ID_BPF_UENTRY = 5002, ID_BPF_UEXIT = 5003 };

static const char fmt_pexit[] =
	"name: sched_process_exit\nID: 301\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n";
static const char fmt_wakeup[] =
	"name: sched_wakeup\nID: 308\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n";
static const char fmt_sys_enter[] =
	"name: sys_enter\nID: 302\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
	"REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";
static const char fmt_sys_exit[] =
	"name: sys_exit\nID: 303\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
static const char fmt_irq_entry[] =
	"name: irq_handler_entry\nID: 304\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";
static const char fmt_irq_exit[] =
	"name: irq_handler_exit\nID: 305\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";
static const char fmt_up[] =
	"name: foo\nID: 306\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx)\", REC->__probe_ip\n";
static const char fmt_uret[] =
	"name: foo__return\nID: 307\nformat:\n" COMMON
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n";
static const char fmt_bpf_syscall[] =
	"name: syscall\nID: 5000\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int nr;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 start;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 ret;\toffset:32;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"tgid=%d nr=%d ret=%lld duration=%llu start=%llu\", REC->tgid, REC->nr, "
	"REC->ret, REC->duration, REC->start\n";

static const char fmt_bpf_offcpu[] =
	"name: offcpu\nID: 5001\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int state;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 start;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int waker_pid;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int waker_tgid;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:char waker_comm[16];\toffset:56;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d comm=%s state=0x%x duration=%llu waker=%d/%d waker_comm=%s\", REC->tgid, "
	"REC->comm, REC->state, REC->duration, REC->waker_pid, REC->waker_tgid, REC->waker_comm\n";

static const char fmt_bpf_uentry[] =
	"name: ufunc_entry\nID: 5002\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int func;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int pad;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 ip;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d func=%u depth=%u ip=0x%llx\", REC->tgid, REC->func, REC->depth, REC->ip\n";
static const char fmt_bpf_uexit[] =
	"name: ufunc_exit\nID: 5003\nformat:\n" COMMON
	"\tfield:int tgid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int func;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 start;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 ret;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"tgid=%d func=%u depth=%u flags=%u duration=%llu\", REC->tgid, REC->func, "
	"REC->depth, REC->flags, REC->duration\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static const char kallsyms[] =
	"ffffffff81000000 T ksys_read\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 T do_sys_open\n"
	"ffffffff81000300 T schedule\n";
#define F_KSYS_READ 0xffffffff81000000ULL
#define F_VFS_READ 0xffffffff81000100ULL
#define F_DO_SYS_OPEN 0xffffffff81000200ULL
#define F_SCHEDULE 0xffffffff81000300ULL

/* ---- records ------------------------------------------------------------ */

struct stream {
	struct fmt_page_enc pe;
	struct fmt_wbuf *b;
	int cpu;
	uint64_t pages;
};

static struct fmt_writer *w;
static uint64_t nrecords;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkexport: %s: %s (%s)\n", what, strerror(-err), w ? fmt_writer_error(w) : "");
	exit(1);
}

static void put(struct stream *s, uint64_t ts, const uint8_t *p, uint32_t len)
{
	int err = fmt_page_enc_add(&s->pe, BASE + ts, p, len);

	if (err == -ENOSPC) {
		err = fmt_wbuf_add_page(s->b, s->cpu, fmt_page_enc_finish(&s->pe));
		if (err)
			die("add page", err);
		s->pages++;
		err = fmt_page_enc_add(&s->pe, BASE + ts, p, len);
	}
	if (err)
		die("add record", err);
	nrecords++;
}

static void flush(struct stream *s)
{
	int err;

	if (!s->pe.nrecords)
		return;
	err = fmt_wbuf_add_page(s->b, s->cpu, fmt_page_enc_finish(&s->pe));
	if (err)
		die("add page", err);
	s->pages++;
}

static void hdr(uint8_t *p, uint16_t id, int32_t pid)
{
	memcpy(p, &id, 2);
	p[2] = p[3] = 0;
	memcpy(p + 4, &pid, 4);
}

static void ev_switch(struct stream *s, uint64_t ts, const char *pc, int32_t pp, int64_t state,
		      const char *nc, int32_t np)
{
	uint8_t p[64] = { 0 };
	int32_t prio = 120;

	hdr(p, ID_SWITCH, pp);
	strncpy((char *)p + 8, pc, 15);
	memcpy(p + 24, &pp, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &state, 8);
	strncpy((char *)p + 40, nc, 15);
	memcpy(p + 56, &np, 4);
	memcpy(p + 60, &prio, 4);
	put(s, ts, p, 64);
}

static void ev_wakeup(struct stream *s, uint64_t ts, int32_t waker, const char *comm, int32_t pid,
		      int32_t target)
{
	uint8_t p[36] = { 0 };
	int32_t prio = 120;

	hdr(p, ID_WAKEUP, waker);
	strncpy((char *)p + 8, comm, 15);
	memcpy(p + 24, &pid, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &target, 4);
	put(s, ts, p, 36);
}

static void ev_sys(struct stream *s, uint64_t ts, int32_t pid, bool enter, int64_t nr, int64_t ret)
{
	uint8_t p[64] = { 0 };

	hdr(p, enter ? ID_SYS_ENTER : ID_SYS_EXIT, pid);
	memcpy(p + 8, &nr, 8);
	if (!enter)
		memcpy(p + 16, &ret, 8);
	put(s, ts, p, enter ? 64 : 24);
}

static void ev_fg(struct stream *s, uint64_t ts, int32_t pid, bool entry, uint64_t func, int32_t depth,
		  uint64_t calltime)
{
	uint8_t p[40] = { 0 };

	hdr(p, entry ? ID_FG_ENTRY : ID_FG_EXIT, pid);
	memcpy(p + 8, &func, 8);
	memcpy(p + 16, &depth, 4);
	if (!entry) {
		uint64_t c = BASE + calltime, r = BASE + ts;

		memcpy(p + 24, &c, 8);
		memcpy(p + 32, &r, 8);
	}
	put(s, ts, p, entry ? 24 : 40);
}

static void ev_irq(struct stream *s, uint64_t ts, int32_t pid, bool entry, int32_t irq, const char *name)
{
	uint8_t p[32] = { 0 };
	int32_t one = 1;
	uint32_t len = 16;

	hdr(p, entry ? ID_IRQ_ENTRY : ID_IRQ_EXIT, pid);
	memcpy(p + 8, &irq, 4);
	if (entry) {
		uint32_t n = (uint32_t)strlen(name) + 1, loc = n << 16 | 16;

		memcpy(p + 12, &loc, 4);
		memcpy(p + 16, name, n);
		len = 16 + n;
	} else {
		memcpy(p + 12, &one, 4);
	}
	put(s, ts, p, len);
}

static void ev_probe(struct stream *s, uint64_t ts, int32_t pid, bool ret, uint64_t ip)
{
	uint8_t p[24] = { 0 };
	uint64_t rip = ip + 0x234;

	hdr(p, ret ? ID_URET : ID_UP, pid);
	memcpy(p + 8, &ip, 8);
	if (ret)
		memcpy(p + 16, &rip, 8);
	put(s, ts, p, ret ? 24 : 16);
}

static void ev_pexit(struct stream *s, uint64_t ts, int32_t pid, const char *comm)
{
	uint8_t p[32] = { 0 };

	hdr(p, ID_EXIT, pid);
	strncpy((char *)p + 8, comm, 15);
	memcpy(p + 24, &pid, 4);
	put(s, ts, p, 32);
}

static void ev_bpf_syscall(struct stream *s, uint64_t ts, int32_t pid, int32_t tgid, int32_t nr,
			   uint64_t start, uint64_t dur, int64_t ret)
{
	uint8_t p[40] = { 0 };
	uint64_t st = BASE + start;

	hdr(p, ID_BPF_SYSCALL, pid);
	memcpy(p + 8, &tgid, 4);
	memcpy(p + 12, &nr, 4);
	memcpy(p + 16, &st, 8);
	memcpy(p + 24, &dur, 8);
	memcpy(p + 32, &ret, 8);
	put(s, ts, p, 40);
}

static void ev_bpf_offcpu(struct stream *s, uint64_t ts, int32_t pid, uint64_t dur, int32_t waker,
			  const char *comm, const char *wcomm)
{
	uint8_t p[72] = { 0 };
	uint64_t st = BASE + ts - dur;
	uint32_t state = 1;

	hdr(p, ID_BPF_OFFCPU, pid);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &state, 4);
	memcpy(p + 16, &st, 8);
	memcpy(p + 24, &dur, 8);
	memcpy(p + 32, &waker, 4);
	memcpy(p + 36, &waker, 4);
	strncpy((char *)p + 40, comm, 15);
	strncpy((char *)p + 56, wcomm, 15);
	put(s, ts, p, 72);
}

static void ev_bpf_ufunc(struct stream *s, uint64_t ts, int32_t pid, bool entry, uint32_t func,
			 uint32_t depth, uint64_t start)
{
	uint8_t p[48] = { 0 };
	uint64_t ip = 0x401000, st = BASE + start, dur = ts - start;

	hdr(p, entry ? ID_BPF_UENTRY : ID_BPF_UEXIT, pid);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &func, 4);
	memcpy(p + 16, &depth, 4);
	if (entry) {
		memcpy(p + 24, &ip, 8);
	} else {
		memcpy(p + 24, &st, 8);
		memcpy(p + 32, &dur, 8);
	}
	put(s, ts, p, entry ? 32 : 48);
}

/* ---- the known trace -------------------------------------------------------- */

/*
 * The three tasks' names; --hostile makes them markup and quotes (15 bytes
 * at most, as comm fields are), for the HTML report's escaping test.
 */
static const char *NAME_A = "alpha", *NAME_B = "beta", *NAME_C = "gamma";
static const char *UFUNC_BIN = "/usr/bin/synthetic";

static void known(struct stream *c0, struct stream *c1, struct stream *b0, struct stream *b1)
{
	ev_switch(c0, 1000, "swapper/0", 0, 0, NAME_A, 100);
	ev_sys(c0, 2000, 100, true, 0, 0);
	ev_fg(c0, 2100, 100, true, F_KSYS_READ, 0, 0);
	ev_fg(c0, 2200, 100, true, F_VFS_READ, 1, 0);
	ev_fg(c0, 2700, 100, false, F_VFS_READ, 1, 2200);
	ev_fg(c0, 2900, 100, false, F_KSYS_READ, 0, 2100);
	ev_sys(c0, 3000, 100, false, 0, 5);
	ev_irq(c0, 3500, 100, true, 19, "eth0");
	ev_irq(c0, 3600, 100, false, 19, NULL);
	ev_sys(c0, 4000, 100, false, 1, 0);
	ev_sys(c0, 5000, 100, true, 1, 0);
	ev_sys(c0, 6000, 100, true, 39, 0);
	ev_sys(c0, 6500, 100, false, 39, 100);
	ev_fg(c0, 7000, 100, false, F_DO_SYS_OPEN, 0, 6600);
	ev_fg(c0, 7500, 100, false, F_VFS_READ, 0, 6400);
	ev_fg(c0, 7800, 100, false, F_KSYS_READ, 0, 6550);
	ev_switch(c0, 8000, NAME_A, 100, 1, NAME_B, 101);
	ev_sys(c0, 8500, 101, true, 0, 0);
	flush(c0);
	fmt_page_enc_set_missed(&c0->pe, 7);
	ev_sys(c0, 9000, 101, false, 0, 3);
	ev_sys(c0, 9500, 101, true, 202, 0);

	ev_switch(c1, 1500, "swapper/1", 0, 0, NAME_C, 102);
	ev_probe(c1, 5500, 102, false, 0x401000);
	ev_probe(c1, 5800, 102, true, 0x401000);
	ev_wakeup(c1, 7900, 102, NAME_B, 101, 0);
	ev_sys(c1, 9800, 102, true, 60, 0);
	ev_pexit(c1, 10000, 102, NAME_C);
	ev_switch(c1, 10000, NAME_C, 102, 16, "swapper/1", 0);

	ev_bpf_syscall(b1, 4500, 102, 102, 35, 3000, 1500, 0);
	ev_bpf_ufunc(b1, 5501, 102, true, 0, 1, 0);
	ev_bpf_ufunc(b1, 5799, 102, false, 0, 1, 5501);
	ev_bpf_offcpu(b0, 8900, 101, 300, 102, NAME_B, NAME_C);
}

/*
 * Busier pattern for benchmarks: per repetition on each CPU, a switch
 * between two of 8 tasks, three syscalls with two levels of kernel
 * functions in one of them, and a BPF syscall record every 4th time.
 */
static void scaled(struct stream *c0, struct stream *c1, struct stream *b1, uint64_t n)
{
	static const char *comms[8] = { "web", "db", "cache", "log", "cron", "sshd", "nginx", "java" };
	struct stream *cs[2] = { c0, c1 };
	uint64_t i, t;
	int c;

	for (i = 0; i < n; i++) {
		for (c = 0; c < 2; c++) {
			int a = (int)((i + (uint64_t)c * 3) % 8), b = (int)((i + (uint64_t)c * 3 + 1) % 8);
			int32_t pa = 1000 + a + c * 8, pb = 1000 + b + c * 8;
			struct stream *s = cs[c];

			t = i * 10000 + (uint64_t)c * 7;
			ev_switch(s, t + 100, comms[a], pa, 1, comms[b], pb);
			ev_sys(s, t + 1000, pb, true, 0, 0);
			ev_fg(s, t + 1100, pb, true, F_KSYS_READ, 0, 0);
			ev_fg(s, t + 1200, pb, true, F_VFS_READ, 1, 0);
			ev_fg(s, t + 1300, pb, true, F_SCHEDULE, 2, 0);
			ev_fg(s, t + 1700, pb, false, F_SCHEDULE, 2, t + 1300);
			ev_fg(s, t + 2200, pb, false, F_VFS_READ, 1, t + 1200);
			ev_fg(s, t + 2300, pb, false, F_KSYS_READ, 0, t + 1100);
			ev_sys(s, t + 2400, pb, false, 0, 512);
			ev_sys(s, t + 3000, pb, true, 1, 0);
			ev_sys(s, t + 3600, pb, false, 1, 512);
			ev_sys(s, t + 4000, pb, true, 39, 0);
			ev_sys(s, t + 4100, pb, false, 39, pb);
			if (c == 1 && i % 4 == 0)
				ev_bpf_syscall(b1, t + 5000, pb, pb, 35, t + 4500, 500, 0);
		}
	}
}

int main(int argc, char **argv)
{
	struct fmt_writer_opts o = { .compression = "zstd" };
	struct stream c0 = { .cpu = 0 }, c1 = { .cpu = 1 }, b0 = { .cpu = 0 }, b1 = { .cpu = 1 };
	struct fmt_wbuf *top, *bpf;
	char hp[1024], cmdlines[512];
	uint64_t scale = 0;
	int err, hpl, i, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: mkexport OUT.dat [--scale N | --epoch | --hostile]\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[2], "--scale"))
		scale = strtoull(argv[3], NULL, 10);
	if (argc == 3 && !strcmp(argv[2], "--epoch"))
		BASE = 1795000000ULL * 1000000000ULL;
	if (argc == 3 && !strcmp(argv[2], "--hostile")) {
		NAME_A = "<svg onload=1>";
		NAME_B = "</script><b>x";
		NAME_C = "a\"'&<i>\\z";
		UFUNC_BIN = "/tmp/</title>&<x>";
	}
	err = fmt_writer_open(argv[1], &o, &w);
	if (err)
		die("open", err);
	hpl = fmt_header_page_text(8, 4096, hp, sizeof(hp));
	err = fmt_writer_headers(w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_ftrace_format(w, fmt_fg_entry, strlen(fmt_fg_entry));
	err = err ?: fmt_writer_ftrace_format(w, fmt_fg_exit, strlen(fmt_fg_exit));
	err = err ?: fmt_writer_event_format(w, "sched", fmt_switch, strlen(fmt_switch));
	err = err ?: fmt_writer_event_format(w, "sched", fmt_pexit, strlen(fmt_pexit));
	err = err ?: fmt_writer_event_format(w, "sched", fmt_wakeup, strlen(fmt_wakeup));
	err = err ?: fmt_writer_event_format(w, "raw_syscalls", fmt_sys_enter, strlen(fmt_sys_enter));
	err = err ?: fmt_writer_event_format(w, "raw_syscalls", fmt_sys_exit, strlen(fmt_sys_exit));
	err = err ?: fmt_writer_event_format(w, "irq", fmt_irq_entry, strlen(fmt_irq_entry));
	err = err ?: fmt_writer_event_format(w, "irq", fmt_irq_exit, strlen(fmt_irq_exit));
	err = err ?: fmt_writer_event_format(w, "uprobes", fmt_up, strlen(fmt_up));
	err = err ?: fmt_writer_event_format(w, "uprobes", fmt_uret, strlen(fmt_uret));
	err = err ?: fmt_writer_event_format(w, "flytrap", fmt_bpf_syscall, strlen(fmt_bpf_syscall));
	err = err ?: fmt_writer_event_format(w, "flytrap", fmt_bpf_offcpu, strlen(fmt_bpf_offcpu));
	err = err ?: fmt_writer_event_format(w, "flytrap", fmt_bpf_uentry, strlen(fmt_bpf_uentry));
	err = err ?: fmt_writer_event_format(w, "flytrap", fmt_bpf_uexit, strlen(fmt_bpf_uexit));
	err = err ?: fmt_writer_kallsyms(w, kallsyms, strlen(kallsyms));
	err = err ?: fmt_writer_printk(w, "", 0);
	if (scale) {
		for (i = 0; i < 16; i++)
			n += snprintf(cmdlines + n, sizeof(cmdlines) - (size_t)n, "%d task%d\n", 1000 + i, i);
	} else {
		n = snprintf(cmdlines, sizeof(cmdlines), "100 %s\n101 %s\n102 %s\n", NAME_A, NAME_B, NAME_C);
	}
	err = err ?: fmt_writer_cmdlines(w, cmdlines, (size_t)n);
	err = err ?: fmt_writer_option_str(w, FMT_OPT_TRACECLOCK, "[mono] local global\n");
	err = err ?: fmt_writer_option_str(w, FMT_OPT_UNAME, "Linux synthetic 6.18.0 x86_64");
	/* two META options, as the recorder writes them (its own, then the BPF capture's) */
	err = err ?: fmt_writer_option_str(w, FMT_OPT_FT_META, "recorder=mkexport\n");
	{
		char meta[256];

		snprintf(meta, sizeof(meta), "bpf_progs=syscalls,offcpu,profile,ufunc\nbpf_ufunc=0 %s foo 0x401000\n",
			 UFUNC_BIN);
		err = err ?: fmt_writer_option_str(w, FMT_OPT_FT_META, meta);
	}
	err = err ?: fmt_writer_cpucount(w, 2);
	if (!err) {
		/* one BPF reservation failure window: 2 records of "syscalls" on CPU 1 at 9900 */
		struct fmt_bpf_drop d = { .ts = BASE + 9900, .cpu = 1, .prog = 0, .count = 2 };

		err = fmt_writer_option(w, FMT_OPT_FT_BPF_DROPS, &d, sizeof(d));
	}
	err = err ?: fmt_wbuf_new(w, "", "mono", &top);
	err = err ?: fmt_wbuf_new(w, "flytrap", "mono", &bpf);
	if (err)
		die("metadata", err);
	c0.b = top;
	c1.b = top;
	b0.b = bpf;
	b1.b = bpf;
	fmt_page_enc_init(&b0.pe, 4096, 8, false);
	fmt_page_enc_init(&c0.pe, 4096, 8, false);
	fmt_page_enc_init(&c1.pe, 4096, 8, false);
	fmt_page_enc_init(&b1.pe, 4096, 8, false);
	if (scale)
		scaled(&c0, &c1, &b1, scale);
	else
		known(&c0, &c1, &b0, &b1);
	flush(&b0);
	flush(&c0);
	flush(&c1);
	flush(&b1);
	fmt_page_enc_release(&b0.pe);
	fmt_page_enc_release(&c0.pe);
	fmt_page_enc_release(&c1.pe);
	fmt_page_enc_release(&b1.pe);
	err = fmt_writer_close(w);
	w = NULL;
	if (err)
		die("close", err);
	printf("%" PRIu64 " records\n", nrecords);
	return 0;
}
