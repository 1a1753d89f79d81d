// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one kind table (report/core/kinds.c): every kind is matched in its own
 * system and not in another, probes are found by their fields in any group
 * and by their names (foo / foo_ret, foo / foo__return, p_foo / r_foo) in
 * the probe groups, a missing or impossible required field makes the event
 * "other", and the decoder reads nothing past a short record (run it under
 * SAN=1: the records are malloc'd to their exact size).
 *
 * The writer's second table (format/names.c, fmt_statesrc_resolve: which
 * events the time index keeps as state records) must say what this one
 * says of the same formats, or a window would start from other events than
 * the analyzers act on: the state kind of every format here and of every
 * format stored in the .dat files of tests/data and the fixtures is the
 * one its kind maps to, with the same pid fields, and the writer's
 * screening of format texts (fmt_statesrc_may) lets each of them through.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report/core/kinds.h"
#include "check.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define PRINT "\nprint fmt: \"x\"\n"

#define SWITCH_FIELDS \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n" \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"

struct fmt_src {
	const char *sys, *text;
};

static const struct fmt_src formats[] = {
	{ "sched", "name: sched_switch\nID: 10\nformat:\n" COMMON SWITCH_FIELDS PRINT },
	/* the same name and layout in another system: not a sched_switch */
	{ "mykprobes", "name: sched_switch\nID: 11\nformat:\n" COMMON SWITCH_FIELDS PRINT },
	/* no next_pid */
	{ "sched", "name: sched_switch\nID: 12\nformat:\n" COMMON
	  "\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n" PRINT },
	{ "sched", "name: sched_wakeup\nID: 13\nformat:\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" PRINT },
	{ "raw_syscalls", "name: sys_enter\nID: 14\nformat:\n" COMMON
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n" PRINT },
	{ "raw_syscalls", "name: sys_exit\nID: 15\nformat:\n" COMMON
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n" PRINT },
	{ "syscalls", "name: sys_enter_openat\nID: 16\nformat:\n" COMMON
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n" PRINT },
	{ "syscalls", "name: sys_exit_openat\nID: 17\nformat:\n" COMMON
	  "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n" PRINT },
	{ "ftrace", "name: funcgraph_entry\nID: 18\nformat:\n" COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n" PRINT },
	{ "ftrace", "name: funcgraph_exit\nID: 19\nformat:\n" COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n" PRINT },
	/* funcgraph_entry outside ftrace: not the tracer's record */
	{ "other", "name: funcgraph_entry\nID: 20\nformat:\n" COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n" PRINT },
	/* uprobes the kernel made, in a group of someone's choosing */
	{ "probe_app", "name: foo\nID: 21\nformat:\n" COMMON
	  "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n" PRINT },
	{ "probe_app", "name: foo_ret\nID: 22\nformat:\n" COMMON
	  "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n" PRINT },
	/* probes without the kernel's fields: by name, in the probe groups only */
	{ "uprobes", "name: bar\nID: 23\nformat:\n" COMMON PRINT },
	{ "uprobes", "name: bar_ret\nID: 24\nformat:\n" COMMON PRINT },
	{ "flytrap_app", "name: baz__return\nID: 25\nformat:\n" COMMON PRINT },
	{ "somegroup", "name: bar_ret\nID: 26\nformat:\n" COMMON PRINT },
	{ "irq", "name: irq_handler_entry\nID: 27\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n" PRINT },
	{ "myirq", "name: irq_handler_entry\nID: 28\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n" PRINT },
	{ "irq", "name: softirq_exit\nID: 29\nformat:\n" COMMON
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n" PRINT },
	{ "flytrap", "name: syscall\nID: 30\nformat:\n" COMMON
	  "\tfield:u32 nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 tgid;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u64 duration;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:s64 ret;\toffset:24;\tsize:8;\tsigned:1;\n" PRINT },
	/* flytrap:syscall without duration: a required field is missing */
	{ "flytrap", "name: syscall\nID: 31\nformat:\n" COMMON
	  "\tfield:u32 nr;\toffset:8;\tsize:4;\tsigned:0;\n" PRINT },
	/* a pid of 3 bytes cannot be read: impossible sizes do not match */
	{ "sched", "name: sched_waking\nID: 32\nformat:\n" COMMON
	  "\tfield:char pid[3];\toffset:8;\tsize:3;\tsigned:1;\n" PRINT },
	{ "flytrap", "name: ufunc_exit\nID: 33\nformat:\n" COMMON
	  "\tfield:u32 func;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 depth;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u64 duration;\toffset:16;\tsize:8;\tsigned:0;\n" PRINT },
	{ "uprobes", "name: r_qux\nID: 34\nformat:\n" COMMON PRINT },
	{ "sched", "name: sched_process_exit\nID: 35\nformat:\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" PRINT },
	{ "syscalls", "name: sys_enter_\nID: 36\nformat:\n" COMMON PRINT },
	{ "ftrace", "name: kernel_stack\nID: 37\nformat:\n" COMMON
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n" PRINT },
	{ "ftrace", "name: user_stack\nID: 38\nformat:\n" COMMON
	  "\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n" PRINT },
	{ "flytrap", "name: offcpu\nID: 39\nformat:\n" COMMON
	  "\tfield:u64 duration;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 start;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 state;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 waker_pid;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 tgid;\toffset:32;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 waker_tgid;\toffset:36;\tsize:4;\tsigned:0;\n"
	  "\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:char waker_comm[16];\toffset:56;\tsize:16;\tsigned:0;\n"
	  "\tfield:__data_loc u64[] kstack;\toffset:72;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u64[] ustack;\toffset:76;\tsize:4;\tsigned:0;\n" PRINT },
	{ "flytrap", "name: profile\nID: 40\nformat:\n" COMMON
	  "\tfield:u32 tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	  "\tfield:__data_loc u64[] kstack;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u64[] ustack;\toffset:32;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u8[] uregs;\toffset:36;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u8[] ucopy;\toffset:40;\tsize:4;\tsigned:0;\n" PRINT },
	{ "flytrap", "name: ucopy_more\nID: 41\nformat:\n" COMMON
	  "\tfield:u32 offset;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u8[] ucopy;\toffset:12;\tsize:4;\tsigned:0;\n" PRINT },
	{ "flytrap", "name: syscall_hist\nID: 42\nformat:\n" COMMON
	  "\tfield:u32 nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 tgid;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u64 count;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 total_ns;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 max_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 slots[4];\toffset:40;\tsize:32;\tsigned:0;\n" PRINT },
	/* an off-CPU record with its duration only: no stacks, no tgid */
	{ "flytrap", "name: offcpu\nID: 43\nformat:\n" COMMON
	  "\tfield:u64 duration;\toffset:8;\tsize:8;\tsigned:0;\n" PRINT },
	/* the state events without a field their rule needs, or in another system (44-57) */
	{ "sched", "name: sched_process_exit\nID: 44\nformat:\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" PRINT },
	{ "irq", "name: irq_handler_entry\nID: 45\nformat:\n" COMMON
	  "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n" PRINT },
	{ "irq", "name: irq_handler_exit\nID: 46\nformat:\n" COMMON
	  "\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n" PRINT },
	/* vec as a __data_loc: not an integer the readers take */
	{ "irq", "name: softirq_entry\nID: 47\nformat:\n" COMMON
	  "\tfield:__data_loc char[] vec;\toffset:8;\tsize:4;\tsigned:0;\n" PRINT },
	{ "raw_syscalls", "name: sys_enter\nID: 48\nformat:\n" COMMON
	  "\tfield:unsigned long args[6];\toffset:8;\tsize:48;\tsigned:0;\n" PRINT },
	/* a raw exit with its id and no ret: still an exit (ret is not required) */
	{ "raw_syscalls", "name: sys_exit\nID: 49\nformat:\n" COMMON
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n" PRINT },
	{ "mysyscalls", "name: sys_enter_openat\nID: 50\nformat:\n" COMMON
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n" PRINT },
	/* a pid of 3 bytes, a next_pid that is a string */
	{ "sched", "name: sched_process_exit\nID: 51\nformat:\n" COMMON
	  "\tfield:char pid[3];\toffset:8;\tsize:3;\tsigned:1;\n" PRINT },
	{ "sched", "name: sched_switch\nID: 52\nformat:\n" COMMON
	  "\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:char next_pid[16];\toffset:12;\tsize:16;\tsigned:0;\n" PRINT },
	/* a named syscall exit of a format without common_pid: kept as nobody's (-1) */
	{ "syscalls", "name: sys_exit_read\nID: 53\nformat:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	  "\tfield:long ret;\toffset:8;\tsize:8;\tsigned:1;\n" PRINT },
	{ "irq", "name: softirq_entry\nID: 54\nformat:\n" COMMON
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n" PRINT },
	{ "irq", "name: irq_handler_exit\nID: 55\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n" PRINT },
	/* names that start like the rules' and are other events */
	{ "sched", "name: sched_switch_x\nID: 56\nformat:\n" COMMON SWITCH_FIELDS PRINT },
	{ "raw_syscalls", "name: sys_enter_openat\nID: 57\nformat:\n" COMMON
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n" PRINT },
	/* spacing a kernel never writes, which libtraceevent reads all the same */
	{ "raw_syscalls", "name:sys_exit\nID: 58\nformat:\n" COMMON
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n" PRINT },
	{ "irq", " name :\tirq_handler_exit \nID: 59\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n" PRINT },
};

static struct tep_handle *tep;

static void resolve(int id, struct rpt_kind_info *ki)
{
	rpt_kind_resolve(tep_find_event(tep, id), ki);
}

/* A record of exactly size bytes (so ASan sees any read past it), common_pid = pid. */
static unsigned char *record(size_t size, int pid)
{
	unsigned char *d = calloc(1, size);

	if (d && size >= 8)
		memcpy(d + 4, &pid, 4);
	return d;
}

static void check_sched(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(64, 42);
	int prev = 7, next = 9;
	long state = 1;

	resolve(10, &ki);
	CHECK(ki.kind == RPT_K_SCHED_SWITCH, "sched:sched_switch is %s", rpt_kind_name(ki.kind));
	memcpy(d + 8, "bash", 5);
	memcpy(d + 24, &prev, 4);
	memcpy(d + 32, &state, 8);
	memcpy(d + 40, "ls", 3);
	memcpy(d + 56, &next, 4);
	rpt_rec_decode(&ki, d, 64, &r);
	CHECK(r.pid == 42, "common_pid %d", r.pid);
	CHECK(r.sw.prev_pid == 7 && r.sw.next_pid == 9, "pids %d %d", r.sw.prev_pid, r.sw.next_pid);
	CHECK(r.sw.has_state && r.sw.prev_state == 1, "state %lld", (long long)r.sw.prev_state);
	CHECK(r.sw.prev_comm.s && r.sw.prev_comm.len == 16 && !strcmp(r.sw.prev_comm.s, "bash"),
	      "prev_comm");
	CHECK(r.sw.next_comm.s && !strcmp(r.sw.next_comm.s, "ls"), "next_comm");
	/* cut after prev_pid: the rest reads as absent, nothing past byte 28 is touched */
	free(d);
	d = record(28, 42);
	memcpy(d + 24, &prev, 4);
	rpt_rec_decode(&ki, d, 28, &r);
	CHECK(r.sw.prev_pid == 7 && r.sw.next_pid == 0, "cut: %d %d", r.sw.prev_pid, r.sw.next_pid);
	CHECK(!r.sw.next_comm.s && r.sw.next_comm.len == 0, "cut: next_comm absent");
	free(d);
	/* shorter than the common fields */
	d = record(3, 0);
	rpt_rec_decode(&ki, d, 3, &r);
	CHECK(r.pid == -1 && r.sw.prev_pid == 0 && !r.sw.prev_comm.s, "3-byte record");
	free(d);

	resolve(11, &ki);
	CHECK(ki.kind == RPT_K_OTHER, "mykprobes:sched_switch is %s", rpt_kind_name(ki.kind));
	resolve(12, &ki);
	CHECK(ki.kind == RPT_K_OTHER,
	      "sched_switch without next_pid is %s", rpt_kind_name(ki.kind));
	CHECK(ki.f[RPT_F_SW_PREV_PID].offset == -1, "no half-resolved fields left");
	resolve(13, &ki);
	CHECK(ki.kind == RPT_K_SCHED_WAKEUP, "sched_wakeup is %s", rpt_kind_name(ki.kind));
	d = record(32, 1);
	prev = 1234;
	memcpy(d + 24, &prev, 4);
	rpt_rec_decode(&ki, d, 32, &r);
	CHECK(r.wake.pid == 1234, "wakeup pid %d", r.wake.pid);
	free(d);
	resolve(32, &ki);
	CHECK(ki.kind == RPT_K_OTHER, "a 3-byte pid is %s", rpt_kind_name(ki.kind));
	resolve(35, &ki);
	CHECK(ki.kind == RPT_K_PROCESS_EXIT, "sched_process_exit is %s", rpt_kind_name(ki.kind));
}

static void check_syscalls(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(24, 5);
	long id = 257, ret = -2;

	resolve(14, &ki);
	CHECK(ki.kind == RPT_K_RAW_SYS_ENTER, "raw sys_enter is %s", rpt_kind_name(ki.kind));
	resolve(15, &ki);
	CHECK(ki.kind == RPT_K_RAW_SYS_EXIT, "raw sys_exit is %s", rpt_kind_name(ki.kind));
	memcpy(d + 8, &id, 8);
	memcpy(d + 16, &ret, 8);
	rpt_rec_decode(&ki, d, 24, &r);
	CHECK(r.sys.id == 257 && r.sys.ret == -2 && r.sys.has_ret, "exit %ld %lld", r.sys.id,
	      (long long)r.sys.ret);
	rpt_rec_decode(&ki, d, 20, &r);
	CHECK(r.sys.id == 257 && r.sys.ret == 0, "cut ret reads 0");
	free(d);
	resolve(16, &ki);
	CHECK(ki.kind == RPT_K_SYS_ENTER && ki.arg && !strcmp(ki.arg, "openat"),
	      "sys_enter_openat");
	CHECK(ki.f[RPT_F_SYS_ID].offset == 8, "__syscall_nr resolved");
	resolve(17, &ki);
	CHECK(ki.kind == RPT_K_SYS_EXIT && ki.f[RPT_F_SYS_ID].offset == -1, "sys_exit_openat");
	d = record(24, 5);
	rpt_rec_decode(&ki, d, 24, &r);
	CHECK(r.sys.id == -1 && r.sys.name && !strcmp(r.sys.name, "openat"), "named exit: id -1");
	free(d);
	resolve(36, &ki);
	CHECK(ki.kind == RPT_K_OTHER,
	      "syscalls:sys_enter_ (no name) is %s", rpt_kind_name(ki.kind));
	resolve(30, &ki);
	CHECK(ki.kind == RPT_K_BPF_SYSCALL, "flytrap:syscall is %s", rpt_kind_name(ki.kind));
	CHECK(ki.tgid.offset == 12, "tgid resolved for every id");
	d = record(32, 5);
	memcpy(d + 24, &ret, 8);
	rpt_rec_decode(&ki, d, 32, &r);
	CHECK(r.bsys.has_ret && r.bsys.ret == -2, "flytrap:syscall ret %lld", (long long)r.bsys.ret);
	rpt_rec_decode(&ki, d, 24, &r);
	CHECK(r.bsys.has_ret && r.bsys.ret == 0, "cut ret: 0, the format still has it");
	free(d);
	resolve(31, &ki);
	CHECK(ki.kind == RPT_K_OTHER,
	      "flytrap:syscall without duration is %s", rpt_kind_name(ki.kind));
}

static void check_calls(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(40, 3);
	uint64_t func = 0xffffffff81000010ULL, t0 = 100, t1 = 250;
	int depth = 4;

	resolve(18, &ki);
	CHECK(ki.kind == RPT_K_FG_ENTRY, "ftrace:funcgraph_entry is %s", rpt_kind_name(ki.kind));
	resolve(19, &ki);
	CHECK(ki.kind == RPT_K_FG_EXIT, "ftrace:funcgraph_exit is %s", rpt_kind_name(ki.kind));
	memcpy(d + 8, &func, 8);
	memcpy(d + 16, &depth, 4);
	memcpy(d + 24, &t0, 8);
	memcpy(d + 32, &t1, 8);
	rpt_rec_decode(&ki, d, 40, &r);
	CHECK(r.fg.func == func && r.fg.depth == 4, "funcgraph func/depth");
	CHECK(r.fg.calltime == 100 && r.fg.rettime == 250, "calltime/rettime");
	rpt_rec_decode(&ki, d, 39, &r);
	CHECK(r.fg.calltime == 100 && r.fg.rettime == 0, "rettime cut by one byte reads 0");
	CHECK(r.fg.has_times, "a funcgraph_exit format with calltime and rettime says so");
	ki.f[RPT_F_FG_CALLTIME].offset = -1;
	rpt_rec_decode(&ki, d, 40, &r);
	CHECK(!r.fg.has_times && r.fg.rettime == 250, "without calltime: no times, rettime read");
	resolve(18, &ki);
	rpt_rec_decode(&ki, d, 40, &r);
	CHECK(!r.fg.has_times, "funcgraph_entry has no times");
	free(d);
	resolve(20, &ki);
	CHECK(ki.kind == RPT_K_OTHER, "other:funcgraph_entry is %s", rpt_kind_name(ki.kind));
	resolve(33, &ki);
	CHECK(ki.kind == RPT_K_BPF_UFUNC_EXIT, "flytrap:ufunc_exit is %s", rpt_kind_name(ki.kind));
}

static void check_probes(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(24, 3);
	uint64_t ip = 0x401000, ret = 0x401234;
	char buf[64];

	resolve(21, &ki);
	CHECK(ki.kind == RPT_K_PROBE_ENTRY && !ki.probe_by_name, "probe_app:foo is %s",
	      rpt_kind_name(ki.kind));
	CHECK(ki.arg && !strcmp(ki.arg, "foo"), "probe name");
	resolve(22, &ki);
	CHECK(ki.kind == RPT_K_PROBE_RET, "probe_app:foo_ret is %s", rpt_kind_name(ki.kind));
	memcpy(d + 8, &ip, 8);
	memcpy(d + 16, &ret, 8);
	rpt_rec_decode(&ki, d, 24, &r);
	CHECK(r.probe.ip == ip && r.probe.ret_ip == ret, "return probe addresses");
	rpt_rec_decode(&ki, d, 16, &r);
	CHECK(r.probe.ip == ip && r.probe.ret_ip == 0, "cut __probe_ret_ip reads 0");
	free(d);
	resolve(23, &ki);
	CHECK(ki.kind == RPT_K_PROBE_ENTRY && ki.probe_by_name, "uprobes:bar is %s",
	      rpt_kind_name(ki.kind));
	resolve(24, &ki);
	CHECK(ki.kind == RPT_K_PROBE_RET, "uprobes:bar_ret is %s", rpt_kind_name(ki.kind));
	resolve(25, &ki);
	CHECK(ki.kind == RPT_K_PROBE_RET, "flytrap_app:baz__return is %s", rpt_kind_name(ki.kind));
	resolve(34, &ki);
	CHECK(ki.kind == RPT_K_PROBE_RET, "uprobes:r_qux is %s", rpt_kind_name(ki.kind));
	resolve(26, &ki);
	CHECK(ki.kind == RPT_K_OTHER,
	      "somegroup:bar_ret without fields is %s", rpt_kind_name(ki.kind));
	CHECK(!strcmp(rpt_probe_entry_name("foo_ret", buf, sizeof(buf)), "foo"), "foo_ret -> foo");
	CHECK(!strcmp(rpt_probe_entry_name("foo__return", buf, sizeof(buf)), "foo"), "foo__return");
	CHECK(!strcmp(rpt_probe_entry_name("r_foo", buf, sizeof(buf)), "p_foo"), "r_foo -> p_foo");
	CHECK(!strcmp(rpt_probe_entry_name("foo", buf, sizeof(buf)), "foo"), "foo stays");
}

static void check_irq(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(20, 0);
	int irq = 19;
	uint32_t loc = 4u << 16 | 16;	/* 4 bytes at offset 16 */

	resolve(27, &ki);
	CHECK(ki.kind == RPT_K_IRQ_ENTRY, "irq:irq_handler_entry is %s", rpt_kind_name(ki.kind));
	memcpy(d + 8, &irq, 4);
	memcpy(d + 12, &loc, 4);
	memcpy(d + 16, "eth", 4);
	rpt_rec_decode(&ki, d, 20, &r);
	CHECK(r.irq.nr == 19 && r.irq.name.s && !strcmp(r.irq.name.s, "eth"), "irq 19 eth");
	/* the name's __data_loc points past the record */
	loc = 8u << 16 | 16;
	memcpy(d + 12, &loc, 4);
	rpt_rec_decode(&ki, d, 20, &r);
	CHECK(r.irq.nr == 19 && !r.irq.name.s, "out-of-bounds __data_loc gives no name");
	free(d);
	resolve(28, &ki);
	CHECK(ki.kind == RPT_K_OTHER, "myirq:irq_handler_entry is %s", rpt_kind_name(ki.kind));
	resolve(29, &ki);
	CHECK(ki.kind == RPT_K_SOFTIRQ_EXIT, "irq:softirq_exit is %s", rpt_kind_name(ki.kind));
	rpt_kind_resolve(NULL, &ki);
	CHECK(ki.kind == RPT_K_OTHER && ki.common_pid.offset == -1, "unknown id");
}

/* v into d at off, host order (the test formats are little-endian like the host) */
static void put32(unsigned char *d, int off, uint32_t v)
{
	memcpy(d + off, &v, 4);
}

static void put64(unsigned char *d, int off, uint64_t v)
{
	memcpy(d + off, &v, 8);
}

static void check_kstack(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(16 + 10 * 8, 7);

	resolve(37, &ki);
	CHECK(ki.kind == RPT_K_KSTACK, "ftrace:kernel_stack is %s", rpt_kind_name(ki.kind));
	CHECK(ki.long_size == 8, "long size from the tep handle: %d", ki.long_size);
	for (int i = 0; i < 10; i++)
		put64(d, 16 + 8 * i, 0xffffffff81000000ULL + (uint64_t)i);
	/* size 0: caller[] runs to the record end, past its declared 8 entries */
	rpt_rec_decode(&ki, d, 96, &r);
	CHECK(r.stk.caller.n == 10 && r.stk.caller.width == 8 && r.stk.size == 0,
	      "kernel_stack of 10: n %d", r.stk.caller.n);
	CHECK(rpt_arr_at(&r.stk.caller, 9) == 0xffffffff81000009ULL, "caller[9]");
	put32(d, 8, 3);
	rpt_rec_decode(&ki, d, 96, &r);
	CHECK(r.stk.size == 3 && r.stk.caller.n == 3, "size 3 cuts caller to %d", r.stk.caller.n);
	put32(d, 8, 100);
	rpt_rec_decode(&ki, d, 96, &r);
	CHECK(r.stk.caller.n == 10, "a size past the record end: %d", r.stk.caller.n);
	/* cut in the middle of an entry, then before caller[] */
	rpt_rec_decode(&ki, d, 16 + 8 * 2 + 5, &r);
	CHECK(r.stk.caller.n == 2 && rpt_arr_at(&r.stk.caller, 1) == 0xffffffff81000001ULL,
	      "cut record: %d entries", r.stk.caller.n);
	rpt_rec_decode(&ki, d, 14, &r);
	CHECK(!r.stk.caller.p && r.stk.caller.n == 0, "cut before caller[]: absent");
	/* a 32-bit kernel's longs */
	ki.long_size = 4;
	put32(d, 8, 0);
	rpt_rec_decode(&ki, d, 96, &r);
	CHECK(r.stk.caller.width == 4 && r.stk.caller.n == 20, "4-byte entries: n %d",
	      r.stk.caller.n);
	CHECK(rpt_arr_at(&r.stk.caller, 0) == 0x81000000u &&
	      rpt_arr_at(&r.stk.caller, 1) == 0xffffffffu, "4-byte entries: halves of a u64");
	free(d);

	d = record(16 + 80, 7);
	resolve(38, &ki);
	CHECK(ki.kind == RPT_K_USTACK, "ftrace:user_stack is %s", rpt_kind_name(ki.kind));
	put32(d, 8, 4242);
	put64(d, 16, 0x401000);
	rpt_rec_decode(&ki, d, 96, &r);
	CHECK(r.stk.tgid == 4242 && r.stk.caller.n == 8 && rpt_arr_at(&r.stk.caller, 0) == 0x401000,
	      "user_stack: tgid %d, its 8 declared entries (%d)", r.stk.tgid, r.stk.caller.n);
	rpt_rec_decode(&ki, d, 10, &r);
	CHECK(r.stk.tgid == 0 && !r.stk.caller.p, "cut user_stack: tgid 0, no caller[]");
	free(d);
}

static void check_offcpu(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(80 + 24 + 8, 11);

	resolve(39, &ki);
	CHECK(ki.kind == RPT_K_BPF_OFFCPU, "flytrap:offcpu is %s", rpt_kind_name(ki.kind));
	put64(d, 8, 5000);
	put64(d, 16, 123);
	put32(d, 24, 2);
	put32(d, 28, 77);
	put32(d, 32, 10);
	put32(d, 36, 70);
	memcpy(d + 40, "sleeper", 8);
	memcpy(d + 56, "waker", 6);
	put32(d, 72, 24u << 16 | 80);	/* three kernel frames */
	put32(d, 76, 8u << 16 | 104);	/* one user frame */
	put64(d, 80, 0xffffffff81000001ULL);
	put64(d, 96, 0xffffffff81000003ULL);
	put64(d, 104, 0x401234);
	rpt_rec_decode(&ki, d, 112, &r);
	CHECK(r.pid == 11 && r.smp.duration == 5000 && r.smp.start == 123 && r.smp.state == 2,
	      "offcpu duration/start/state");
	CHECK(r.smp.waker_pid == 77 && r.smp.waker_tgid == 70 && r.smp.tgid == 10 && r.smp.has_tgid,
	      "offcpu pids");
	CHECK(r.smp.comm.s && !strcmp(r.smp.comm.s, "sleeper") && r.smp.waker_comm.s &&
	      !strcmp(r.smp.waker_comm.s, "waker"), "offcpu comms");
	CHECK(r.smp.has_stacks && r.smp.kstack.n == 3 && r.smp.kstack.width == 8 &&
	      rpt_arr_at(&r.smp.kstack, 2) == 0xffffffff81000003ULL, "kstack: %d", r.smp.kstack.n);
	CHECK(r.smp.ustack.n == 1 && rpt_arr_at(&r.smp.ustack, 0) == 0x401234, "ustack");
	CHECK(!r.smp.has_copy && !r.smp.uregs.p && !r.smp.ucopy.p, "no stack copy");
	/* BPF stacks stay u64 on a 32-bit kernel */
	ki.long_size = 4;
	rpt_rec_decode(&ki, d, 112, &r);
	CHECK(r.smp.kstack.width == 8 && r.smp.kstack.n == 3, "kstack u64 whatever the long");
	/* cut inside waker_comm: the stacks' __data_loc words are gone */
	rpt_rec_decode(&ki, d, 60, &r);
	CHECK(r.smp.duration == 5000 && r.smp.tgid == 10 && r.smp.comm.s && !r.smp.waker_comm.s,
	      "cut offcpu: the fields before the cut");
	CHECK(r.smp.has_stacks && !r.smp.kstack.p && !r.smp.ustack.p && r.smp.ustack.n == 0,
	      "cut offcpu: stacks absent, the format still has them");
	/* the kernel stack's data past the record end */
	rpt_rec_decode(&ki, d, 100, &r);
	CHECK(!r.smp.kstack.p && !r.smp.ustack.p, "__data_loc past the end: no stacks");
	free(d);
	resolve(43, &ki);
	d = record(16, 11);
	put64(d, 8, 9);
	rpt_rec_decode(&ki, d, 16, &r);
	CHECK(ki.kind == RPT_K_BPF_OFFCPU && r.smp.duration == 9 && !r.smp.has_stacks &&
	      !r.smp.has_tgid && r.smp.tgid == 0, "offcpu with its duration only");
	free(d);
}

static void check_profile(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(44 + 8 + 32 + 16, 12);

	resolve(40, &ki);
	CHECK(ki.kind == RPT_K_BPF_PROFILE, "flytrap:profile is %s", rpt_kind_name(ki.kind));
	put32(d, 8, 12);
	memcpy(d + 12, "worker", 7);
	put32(d, 28, 0u << 16 | 44);		/* no kernel frames */
	put32(d, 32, 8u << 16 | 44);
	put32(d, 36, 32u << 16 | 52);
	put32(d, 40, 16u << 16 | 84);
	put64(d, 44, 0x400500);
	rpt_rec_decode(&ki, d, 100, &r);
	CHECK(r.smp.tgid == 12 && r.smp.comm.s && !strcmp(r.smp.comm.s, "worker"), "profile tgid");
	CHECK(r.smp.kstack.p && r.smp.kstack.n == 0 && r.smp.ustack.n == 1 &&
	      rpt_arr_at(&r.smp.ustack, 0) == 0x400500, "profile stacks");
	CHECK(r.smp.has_copy && r.smp.uregs.p == d + 52 && r.smp.uregs.len == 32 &&
	      r.smp.ucopy.p == d + 84 && r.smp.ucopy.len == 16, "profile registers and copy");
	CHECK(r.smp.duration == 0 && !r.smp.waker_comm.s, "no offcpu fields in a profile");
	rpt_rec_decode(&ki, d, 90, &r);
	CHECK(r.smp.uregs.p && !r.smp.ucopy.p && r.smp.ucopy.len == 0, "copy past the end");
	free(d);

	resolve(41, &ki);
	CHECK(ki.kind == RPT_K_BPF_UCOPY, "flytrap:ucopy_more is %s", rpt_kind_name(ki.kind));
	d = record(24, 12);
	put32(d, 8, 4096);
	put32(d, 12, 8u << 16 | 16);
	rpt_rec_decode(&ki, d, 24, &r);
	CHECK(r.ucopy.offset == 4096 && r.ucopy.has_copy && r.ucopy.copy.p == d + 16 &&
	      r.ucopy.copy.len == 8, "ucopy_more part");
	rpt_rec_decode(&ki, d, 20, &r);
	CHECK(r.ucopy.offset == 4096 && !r.ucopy.copy.p && r.ucopy.copy.len == 0, "cut part");
	free(d);
}

static void check_hist(void)
{
	struct rpt_kind_info ki;
	struct rpt_rec r;
	unsigned char *d = record(72, 13);

	resolve(42, &ki);
	CHECK(ki.kind == RPT_K_BPF_SYSHIST, "flytrap:syscall_hist is %s", rpt_kind_name(ki.kind));
	put32(d, 8, 0xffffffffu);
	put32(d, 12, 99);
	put64(d, 16, 6);
	put64(d, 24, 600);
	put64(d, 32, 200);
	put64(d, 40, 1);
	put64(d, 64, 5);
	rpt_rec_decode(&ki, d, 72, &r);
	CHECK(r.hist.nr == -1 && r.hist.tgid == 99, "hist nr %d tgid %d", r.hist.nr, r.hist.tgid);
	CHECK(r.hist.count == 6 && r.hist.total == 600 && r.hist.max == 200, "hist sums");
	CHECK(r.hist.slots.n == 4 && rpt_arr_at(&r.hist.slots, 0) == 1 &&
	      rpt_arr_at(&r.hist.slots, 3) == 5, "hist slots");
	rpt_rec_decode(&ki, d, 50, &r);
	CHECK(r.hist.max == 200 && !r.hist.slots.p && r.hist.slots.n == 0, "cut hist: no slots");
	rpt_rec_decode(&ki, d, 30, &r);
	CHECK(r.hist.count == 6 && r.hist.total == 0 && r.hist.max == 0, "cut hist: total cut");
	free(d);
}

/* ---- the state records' table against this one ------------------------------ */

/* The state kind (format/format.h) the analyzers' kind k maps to. */
static int state_of(enum rpt_kind k)
{
	switch (k) {
	case RPT_K_SCHED_SWITCH:
		return FMT_ST_SWITCH;
	case RPT_K_PROCESS_EXIT:
		return FMT_ST_EXIT;
	case RPT_K_RAW_SYS_ENTER:
	case RPT_K_RAW_SYS_EXIT:
	case RPT_K_SYS_ENTER:
	case RPT_K_SYS_EXIT:
		return FMT_ST_SYSCALL;
	case RPT_K_IRQ_ENTRY:
	case RPT_K_IRQ_EXIT:
		return FMT_ST_IRQ;
	case RPT_K_SOFTIRQ_ENTRY:
	case RPT_K_SOFTIRQ_EXIT:
		return FMT_ST_SOFTIRQ;
	case RPT_K_SCHED_WAKEUP:	/* slice's: the names trace-cmd's sched plugin takes */
		return FMT_ST_WAKEUP;
	case RPT_K_FG_ENTRY:
	case RPT_K_FG_EXIT:
	case RPT_K_BPF_UFUNC_ENTRY:
	case RPT_K_BPF_UFUNC_EXIT:
	case RPT_K_BPF_KFUNC_ENTRY:
	case RPT_K_BPF_KFUNC_EXIT:
		return FMT_ST_CALL;
	default:
		return FMT_ST_NONE;
	}
}

struct agree {
	int formats, mismatches, by_state[FMT_ST_CALL + 1];
};

/*
 * Both tables on format e (text: its stored format, for the screening, or
 * NULL): the same kind, and the fields the state records are keyed by are
 * the ones the analyzers read.  where names the format in a failure.
 */
static void agree_on(const struct tep_event *e, const char *sys, const char *text, size_t len,
		     const char *where, struct agree *ag)
{
	struct rpt_kind_info ki;
	struct fmt_statesrc ss;
	int want, bad = 0;

	rpt_kind_resolve(e, &ki);
	fmt_statesrc_resolve(e, &ss);
	want = state_of(ki.kind);
	ag->formats++;
	/* a call record is kept whatever its fields: slice falls back on any */
	if (want == FMT_ST_NONE && e->system && e->name &&
	    ((!strcmp(e->system, "ftrace") && (!strcmp(e->name, "funcgraph_entry") ||
					       !strcmp(e->name, "funcgraph_exit"))) ||
	     (!strcmp(e->system, "flytrap") &&
	      (!strcmp(e->name, "ufunc_entry") || !strcmp(e->name, "ufunc_exit") ||
	       !strcmp(e->name, "kfunc_entry") || !strcmp(e->name, "kfunc_exit")))))
		want = FMT_ST_CALL;
	if (ss.kind >= FMT_ST_NONE && ss.kind <= FMT_ST_CALL)
		ag->by_state[ss.kind]++;
	CHECK(ss.kind == want, "%s: %s:%s is %s to the analyzers, state kind %d (want %d)",
	      where, e->system, e->name, rpt_kind_name(ki.kind), ss.kind, want);
	bad |= ss.kind != want;
	switch (ss.kind == want ? want : FMT_ST_NONE) {
	case FMT_ST_SWITCH:
		CHECK(ss.a.offset == ki.f[RPT_F_SW_PREV_PID].offset &&
		      ss.b.offset == ki.f[RPT_F_SW_NEXT_PID].offset && ss.a.offset >= 0 &&
		      ss.b.offset >= 0, "%s: %s:%s: prev_pid/next_pid at %d/%d, the analyzers' %d/%d",
		      where, e->system, e->name, ss.a.offset, ss.b.offset,
		      ki.f[RPT_F_SW_PREV_PID].offset, ki.f[RPT_F_SW_NEXT_PID].offset);
		bad |= ss.a.offset != ki.f[RPT_F_SW_PREV_PID].offset ||
		       ss.b.offset != ki.f[RPT_F_SW_NEXT_PID].offset;
		break;
	case FMT_ST_EXIT:
	case FMT_ST_WAKEUP: {
		/* keyed by the pid field the analyzers read */
		int at = ki.f[want == FMT_ST_EXIT ? RPT_F_EXIT_PID : RPT_F_WK_PID].offset;

		CHECK(ss.a.offset == at && ss.a.offset >= 0, "%s: %s:%s: pid at %d, the analyzers' %d",
		      where, e->system, e->name, ss.a.offset, at);
		bad |= ss.a.offset != at;
		break;
	}
	case FMT_ST_SYSCALL:
		/*
		 * keyed by the task the analyzers charge the call to: the int at
		 * offset 4 (rpt_event_pid), no field of the format
		 */
		CHECK(ss.a.offset == -1, "%s: %s:%s: a syscall keyed by a field at %d", where,
		      e->system, e->name, ss.a.offset);
		bad |= ss.a.offset != -1;
		break;
	case FMT_ST_IRQ:
		/* an entry is kept as its irq's first, by the irq field the analyzers read */
		CHECK(ss.named == !strcmp(e->name, "irq_handler_entry") &&
		      (!ss.named || ss.a.offset == ki.f[RPT_F_IRQ_NR].offset),
		      "%s: %s:%s: named %d, irq at %d, the analyzers' %d", where, e->system, e->name,
		      ss.named, ss.a.offset, ki.f[RPT_F_IRQ_NR].offset);
		bad |= ss.named != !strcmp(e->name, "irq_handler_entry");
		break;
	}
	if (text && ss.kind != FMT_ST_NONE) {
		CHECK(fmt_statesrc_may(sys, text, len),
		      "%s: the writer's screening drops %s:%s, a state event", where, sys, e->name);
		bad |= !fmt_statesrc_may(sys, text, len);
	}
	ag->mismatches += bad;
}

static void check_state_synthetic(void)
{
	struct agree ag = { 0 };
	struct fmt_statesrc ss;
	char where[32];

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const char *t = formats[i].text;
		int id = atoi(strstr(t, "\nID: ") + 5);

		snprintf(where, sizeof(where), "format %zu", i);
		agree_on(tep_find_event(tep, id), formats[i].sys, t, strlen(t), where, &ag);
	}
	/* the cases of the rules, one by one (the loop above checks that both tables agree) */
	fmt_statesrc_resolve(tep_find_event(tep, 10), &ss);
	CHECK(ss.kind == FMT_ST_SWITCH && ss.a.offset == 24 && ss.b.offset == 56,
	      "sched_switch: kind %d, pids at %d %d", ss.kind, ss.a.offset, ss.b.offset);
	for (int id = 11; id <= 12; id++) {
		fmt_statesrc_resolve(tep_find_event(tep, id), &ss);
		CHECK(ss.kind == FMT_ST_NONE && ss.a.offset == -1 && ss.b.offset == -1,
		      "format ID %d: kind %d, fields %d %d", id, ss.kind, ss.a.offset, ss.b.offset);
	}
	fmt_statesrc_resolve(tep_find_event(tep, 35), &ss);
	CHECK(ss.kind == FMT_ST_EXIT && ss.a.offset == 24, "sched_process_exit: %d", ss.kind);
	fmt_statesrc_resolve(tep_find_event(tep, 16), &ss);
	CHECK(ss.kind == FMT_ST_SYSCALL && ss.a.offset == -1, "sys_enter_openat: %d", ss.kind);
	fmt_statesrc_resolve(tep_find_event(tep, 53), &ss);
	CHECK(ss.kind == FMT_ST_SYSCALL && ss.a.offset == -1,
	      "sys_exit_read without common_pid: kind %d, key field %d", ss.kind, ss.a.offset);
	fmt_statesrc_resolve(tep_find_event(tep, 49), &ss);
	CHECK(ss.kind == FMT_ST_SYSCALL, "raw sys_exit without ret: %d", ss.kind);
	for (int id = 44; id <= 48; id++) {
		fmt_statesrc_resolve(tep_find_event(tep, id), &ss);
		CHECK(ss.kind == FMT_ST_NONE, "format ID %d without its field: kind %d", id, ss.kind);
	}
	for (int id = 50; id <= 52; id++) {
		fmt_statesrc_resolve(tep_find_event(tep, id), &ss);
		CHECK(ss.kind == FMT_ST_NONE, "format ID %d: kind %d", id, ss.kind);
	}
	fmt_statesrc_resolve(tep_find_event(tep, 54), &ss);
	CHECK(ss.kind == FMT_ST_SOFTIRQ, "softirq_entry: %d", ss.kind);
	fmt_statesrc_resolve(tep_find_event(tep, 55), &ss);
	CHECK(ss.kind == FMT_ST_IRQ, "irq_handler_exit: %d", ss.kind);
	for (int id = 56; id <= 57; id++) {
		fmt_statesrc_resolve(tep_find_event(tep, id), &ss);
		CHECK(ss.kind == FMT_ST_NONE, "format ID %d (a longer name): kind %d", id, ss.kind);
	}
	fmt_statesrc_resolve(NULL, &ss);
	CHECK(ss.kind == FMT_ST_NONE && ss.a.offset == -1, "no format: kind %d", ss.kind);
	/* the screening reads the name as libtraceevent does, and no further than len */
	fmt_statesrc_resolve(tep_find_event(tep, 58), &ss);
	CHECK(ss.kind == FMT_ST_SYSCALL, "name:sys_exit: kind %d", ss.kind);
	fmt_statesrc_resolve(tep_find_event(tep, 59), &ss);
	CHECK(ss.kind == FMT_ST_IRQ, "' name :\\tirq_handler_exit ': kind %d", ss.kind);
	CHECK(fmt_namesrc_may_name("sched", "name:sched_wakeup\n", 18), "name:sched_wakeup");
	CHECK(fmt_namesrc_may_name("sched", "\tname :  sched_switch \n", 24), "name : sched_switch");
	CHECK(!fmt_namesrc_may_name("sched", "nam: sched_switch\n", 18), "nam:");
	CHECK(!fmt_namesrc_may_name("sched", "name sched_switch\n", 18), "no colon");
	CHECK(!fmt_statesrc_may("sched", "name: \nsched_switch\n", 20), "an empty name");
	CHECK(!fmt_statesrc_may("sched", "name: sched_switch\n", 10), "a name cut by len");
	CHECK(!fmt_statesrc_may("sched", "name: sched_switch_x\n", 21), "sched_switch_x");
	CHECK(!fmt_statesrc_may("syscalls", "name: sys_enter_\n", 17), "sys_enter_ with no name");
	CHECK(fmt_statesrc_may("syscalls", "name: sys_enter_read\nID", 23), "sys_enter_read");
	CHECK(!fmt_statesrc_may("other", "name: sys_enter\n", 16), "sys_enter outside raw_syscalls");
	printf("synthetic formats: %d, %d state kinds differ\n", ag.formats, ag.mismatches);
}

struct file_ctx {
	struct fmt_reader *r;
	const char *path;
	struct agree *ag;
};

/* One stored format: the reader's parse of it (none when the reader refused it) and its text. */
static int on_format(void *arg, const char *sys, const char *text, size_t len)
{
	struct file_ctx *fc = arg;
	const char *p = memmem(text, len, "\nID: ", 5);
	struct tep_event *e;
	char where[512];

	if (!p)
		return 0;
	e = fmt_reader_event(fc->r, atoi(p + 5));
	if (!e || !e->system || strcmp(e->system, sys))
		return 0;
	snprintf(where, sizeof(where), "%s", fc->path);
	agree_on(e, sys, text, len, where, fc->ag);
	return 0;
}

static void check_state_dir(const char *dir, struct agree *ag, int *files)
{
	struct dirent **list;
	int n;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		printf("  %s: not there, skipped\n", dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name);
		struct file_ctx fc = { 0 };
		char path[4096];

		if (l > 4 && !strcmp(list[i]->d_name + l - 4, ".dat")) {
			snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
			fc.path = path;
			fc.ag = ag;
			if (!fmt_reader_open(path, FMT_OPEN_NO_PLUGINS, &fc.r, NULL)) {
				fmt_reader_formats(fc.r, on_format, &fc);
				fmt_reader_close(fc.r);
				(*files)++;
			}
		}
		free(list[i]);
	}
	free(list);
}

static void check_state_files(void)
{
	const char *fx = getenv("FIXTURES");
	struct agree ag = { 0 };
	int files = 0;

	check_state_dir("tests/data", &ag, &files);
	check_state_dir(fx && *fx ? fx : "../shared/fixtures", &ag, &files);
	printf("stored formats: %d in %d files (switch %d, exit %d, syscall %d, irq %d, softirq %d,"
	       " wakeup %d, call %d), %d state kinds differ\n", ag.formats, files,
	       ag.by_state[FMT_ST_SWITCH], ag.by_state[FMT_ST_EXIT], ag.by_state[FMT_ST_SYSCALL],
	       ag.by_state[FMT_ST_IRQ], ag.by_state[FMT_ST_SOFTIRQ], ag.by_state[FMT_ST_WAKEUP],
	       ag.by_state[FMT_ST_CALL], ag.mismatches);
	/* tests/data alone has every state kind (run from the top of the tree, as tests/run does) */
	CHECK(files >= 8, "only %d files read: run from the top of the tree", files);
	for (int k = FMT_ST_SWITCH; k <= FMT_ST_CALL; k++)
		CHECK(ag.by_state[k] > 0, "no stored format of state kind %d", k);
}

int main(void)
{
	tep = tep_alloc();
	if (!tep) {
		CHECK(0, "tep_alloc");
		return check_summary();
	}
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		CHECK(tep_parse_event(tep, formats[i].text, strlen(formats[i].text),
				      formats[i].sys) == 0,
		      "parse format %zu", i);
	check_sched();
	check_syscalls();
	check_calls();
	check_probes();
	check_irq();
	check_kstack();
	check_offcpu();
	check_profile();
	check_hist();
	check_state_synthetic();
	check_state_files();
	tep_free(tep);
	return check_summary();
}
