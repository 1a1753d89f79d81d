// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential test of the compiled event formatters (report/listing/fastprint.c)
 * against libtraceevent itself: for every record the fast path accepts, its
 * text must be byte for byte what tep_print_event(..., "%s", TEP_PRINT_INFO)
 * prints.
 *
 *  1. synthetic event formats exercising every conversion, flag, cast,
 *     operator and string kind the compiler takes (and some it must refuse),
 *     filled with random and edge-case values, little and big endian, long
 *     size 8 and 4, with libtraceevent's plugins loaded (sched_switch and
 *     sched_wakeup go through plugin_sched_switch);
 *  2. every trace.dat in the fixtures directory ($FIXTURES, else
 *     ../shared/fixtures), plugins loaded as `flytrap report` loads them;
 *  3. as root with tracefs: a recording made now on a private instance with
 *     many event systems enabled (trace-cmd extract into a temp dir).
 *
 * Extra arguments are trace.dat files to check as well.  Prints how many
 * records and types were handled fast or declined, and why.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format.h"
#include "report/listing/fastprint.h"
#include "check.h"



struct tally {
	uint64_t fast, declined, mismatch;
};

static struct trace_seq sa, sb;

static void show_bytes(const char *tag, const char *p, unsigned n)
{
	unsigned i;

	printf("    %s (%u): \"", tag, n);
	for (i = 0; i < n && i < 300; i++) {
		unsigned char ch = p[i];

		if (ch >= 32 && ch < 127 && ch != '\\')
			putchar(ch);
		else
			printf("\\x%02x", ch);
	}
	printf("\"\n");
}

/* One record both ways.  A prefix in s checks that the fast path appends. */
static void compare(struct rpt_fastprint *fp, struct tep_handle *tep, struct tep_event *ev,
		    struct tep_record *rec, struct tally *t, const char *where)
{
	bool ok;

	trace_seq_reset(&sa);
	trace_seq_reset(&sb);
	trace_seq_puts(&sa, "<>");
	trace_seq_puts(&sb, "<>");
	tep_print_event(tep, &sa, rec, "%s", TEP_PRINT_INFO);
	ok = rpt_fastprint_info(fp, &sb, ev, rec);
	if (!ok) {
		t->declined++;
		if (sb.len != 2) {
			t->mismatch++;
			CHECK(sb.len == 2, "%s: %s:%s declined but wrote to s", where, ev->system, ev->name);
		}
		return;
	}
	t->fast++;
	if (sa.len != sb.len || memcmp(sa.buffer, sb.buffer, sa.len)) {
		t->mismatch++;
		if (t->mismatch <= 10) {
			CHECK(0, "%s: %s:%s (id %d, %d bytes) differs", where, ev->system, ev->name,
			      ev->id, rec->size);
			printf("    print fmt: %s\n", ev->print_fmt.format ? ev->print_fmt.format : "(null)");
			show_bytes("libtraceevent", sa.buffer, sa.len);
			show_bytes("fastprint    ", sb.buffer, sb.len);
		} else {
			fails++;
		}
	}
}

/* The event types whose records were declined most, with the reason. */
static void declined_report(struct rpt_fastprint *fp, struct tep_handle *tep, uint32_t *counts)
{
	int shown, i;

	for (shown = 0; shown < 12; shown++) {
		struct tep_event *ev;
		const char *why = NULL;
		int best = -1;

		for (i = 0; i < 65536; i++)
			if (counts[i] && (best < 0 || counts[i] > counts[best]))
				best = i;
		if (best < 0)
			break;
		ev = tep_find_event(tep, best);
		if (ev && !rpt_fastprint_type_ok(fp, ev, &why))
			printf("    declined %8u x %s:%s (%s)\n", counts[best], ev->system, ev->name, why);
		else if (ev)
			printf("    declined %8u x %s:%s (records cut short or damaged)\n", counts[best],
			       ev->system, ev->name);
		counts[best] = 0;
	}
}

static void type_report(struct rpt_fastprint *fp, struct tep_handle *tep, const char *where)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int i, nfast = 0, ndecl = 0;

	if (!evs)
		return;
	for (i = 0; evs[i]; i++) {
		const char *why;

		if (rpt_fastprint_type_ok(fp, evs[i], &why)) {
			nfast++;
		} else {
			ndecl++;
			if (getenv("FASTPRINT_VERBOSE"))
				printf("    declined %s:%s: %s\n", evs[i]->system, evs[i]->name, why);
		}
	}
	printf("  %s: %d event types compile, %d declined\n", where, nfast, ndecl);
}

/* ---- 1. synthetic formats ------------------------------------------------- */

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

struct synth {
	const char *sys, *name;
	const char *fields;	/* with "LONG" standing for the long size */
	const char *fmt;
	bool must_be_fast;
	bool must_decline;
};

static const struct synth synths[] = {
	{ "fp", "ints",
	  "\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
	  "\tfield:u8 b;\toffset:9;\tsize:1;\tsigned:0;\n"
	  "\tfield:s16 c;\toffset:10;\tsize:2;\tsigned:1;\n"
	  "\tfield:u16 d;\toffset:12;\tsize:2;\tsigned:0;\n"
	  "\tfield:s32 e;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\tfield:u32 f;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:s64 g;\toffset:24;\tsize:8;\tsigned:1;\n"
	  "\tfield:u64 h;\toffset:32;\tsize:8;\tsigned:0;\n",
	  "\"a=%d b=%u c=%hd d=%hu e=%d f=%u g=%lld h=%llu i=%ld j=%lx k=%08x l=%-6d| m=%5u n=%#x o=%#lo "
	  "q=%.3d s=%hhd t=%hhx u=%X v=%zu w=%Lu x=%i y=%o z=%-#12llx| A=%.0d B=%5.3d| "
	  "D=%lu E=%ld F=%hhu G=%hx H=%llx I=%#X K=%010lld L=%p M=%-20lu| N=%.20llx O=%#o P=%#.0x\", "
	  "REC->a, REC->b, REC->c, REC->d, REC->e, REC->f, REC->g, REC->h, REC->g, REC->h, REC->e, "
	  "REC->a, REC->c, REC->f, REC->h, REC->e, REC->a, REC->b, REC->e, REC->f, REC->f, REC->h, "
	  "REC->h, REC->c, REC->d, REC->g, REC->b, REC->e, REC->b, REC->a, REC->f, REC->c, "
	  "REC->d, REC->g, REC->h, REC->e, REC->g, REC->h, REC->h, REC->b, REC->d",
	  true, false },
	/* libtraceevent 1.7 prints ">+<" and ">c<" for these and shifts the arguments */
	{ "fp", "plus",
	  "\tfield:s32 e;\toffset:8;\tsize:4;\tsigned:1;\n",
	  "\"p=%+d\", REC->e", false, true },
	{ "fp", "char",
	  "\tfield:s32 e;\toffset:8;\tsize:4;\tsigned:1;\n",
	  "\"r=%c\", REC->e", false, true },
	{ "fp", "strs",
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc char[] other;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 n;\toffset:32;\tsize:4;\tsigned:0;\n"
	  "\tfield:__rel_loc char[] rel;\toffset:36;\tsize:4;\tsigned:0;\n",
	  "\"comm=%s name=%s w=[%-10s] p=[%.3s] r=[%8s] o=%s lit=%s n=%u %% \\t tab\\\\ end rel=%s\", "
	  "REC->comm, __get_str(name), REC->comm, __get_str(name), __get_str(other), "
	  "__get_str(other), \"const\", REC->n, __get_rel_str(rel)",
	  true, false },
	{ "fp", "sysenter",
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:long id;\toffset:16;\tsize:LONG;\tsigned:1;\n"
	  "\tfield:unsigned long args[6];\toffset:24;\tsize:6LONG;\tsigned:0;\n",
	  "\"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
	  "REC->args[2], REC->args[3], REC->args[4], REC->args[5]",
	  true, false },
	{ "fp", "syscalls",
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:long ret;\toffset:40;\tsize:8;\tsigned:1;\n",
	  "\"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx ret %ld\", ((unsigned long)(REC->fd)), "
	  "((unsigned long)(REC->buf)), ((unsigned long)(REC->count)), REC->ret",
	  true, false },
	{ "fp", "exprs",
	  "\tfield:s32 a;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:u32 b;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u64 c;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:u16 arr[4];\toffset:24;\tsize:8;\tsigned:0;\n",
	  "\"x=%d y=%u z=%lu w=%d v=%u t=%llu m=%u s=%lld q=%x r=%d k=%u j=%d\", (int)REC->a, (u8)REC->b, "
	  "((unsigned long)(REC->c)), REC->a + 3 * REC->b, REC->a > 5 ? REC->a : REC->b, "
	  "REC->c >> 3, REC->b & 0xff, (s16)REC->a, REC->arr[2], (REC->a == 0) || (REC->b != 7), "
	  "(unsigned char)REC->b, -REC->a",
	  true, false },
	{ "fp", "flags",
	  "\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int vec;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:int ret;\toffset:20;\tsize:4;\tsigned:1;\n",
	  "\"flags=%s|%-6s|%s| s=%s [%8s] c=%s d=%s\", "
	  "__print_flags(REC->flags, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 0x10, \"C\" }, "
	  "{ 0x8000000000000000, \"TOP\" }), "
	  "__print_flags(REC->flags & 3, \"\", { 0, \"ZERO\" }, { 1, \"A\" }), "
	  "__print_flags(REC->vec, \"+\", { -1, \"NEG\" }, { 0x3, \"AB\" }, { 4, \"C\" }), "
	  "__print_symbolic(REC->vec, { 0, \"HI\" }, { 1, \"TIMER\" }, { 999, \"BIG\" }), "
	  "__print_symbolic(REC->ret, { HI_SOFTIRQ, \"hi\" }, { TIMER_SOFTIRQ, \"timer\" }, "
	  "{ -1, \"minus\" }), "
	  "REC->ret ? \"handled\" : \"unhandled\", "
	  "(REC->flags & 1) ? __print_flags(REC->flags, \"|\", { 1, \"X\" }) : \"none\"",
	  true, false },
	{ "fp", "softirq",
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n",
	  "\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, "
	  "{ 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, "
	  "{ 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, "
	  "{ 9, \"RCU\" })",
	  true, false },
	{ "fp", "ksym",
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long call_site;\toffset:16;\tsize:8;\tsigned:0;\n",
	  "\"%pS %ps [%pF] %pf %p\", (void *)REC->ip, (void *)REC->call_site, (void *)REC->ip, "
	  "(void *)REC->call_site, (void *)REC->ip",
	  true, false },
	/* kernel symbol names: libtraceevent replaces them by their value on first use */
	{ "fp", "symatom",
	  "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n",
	  "\"a=%lx b=%lx c=%lu\", ((unsigned long)do_one_thing) + REC->pfn, "
	  "((unsigned long)no_such_symbol) + REC->pfn, REC->pfn",
	  false, false },
	/* flytrap's own BPF events (ucopy_more, offcpu's ucopy_len) print an array's length */
	{ "fp", "dynlen",
	  "\tfield:unsigned int offset;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned int total;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc unsigned char[] ucopy;\toffset:16;\tsize:4;\tsigned:0;\n",
	  "\"offset=%u total=%u len=%u words=%d x=%lx\", REC->offset, REC->total, "
	  "__get_dynamic_array_len(ucopy), __get_dynamic_array_len(ucopy) / 8, "
	  "REC->total + __get_dynamic_array_len(ucopy)",
	  true, false },
	{ "fp", "mac",
	  "\tfield:u8 addr[6];\toffset:8;\tsize:6;\tsigned:0;\n",
	  "\"%pM\", REC->addr",
	  false, true },
	/* plugin_kmem's handler prints "(func+0xoff) " first, then the format */
	{ "kmem", "kmalloc",
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n",
	  "\"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s\", (void *)REC->call_site, "
	  "REC->ptr, REC->bytes_req, REC->bytes_alloc, (REC->gfp_flags) ? "
	  "__print_flags(REC->gfp_flags, \"|\", {(unsigned long)(0x400|0x800), \"GFP_NOWAIT\"}, "
	  "{(unsigned long)0x10, \"__GFP_IO\"}) : \"none\"",
	  true, false },
	{ "fp", "strptr",
	  "\tfield:unsigned long p;\toffset:8;\tsize:LONG;\tsigned:0;\n",
	  "\"%s\", REC->p",
	  false, true },
	/* plugin_futex prints this itself */
	{ "syscalls", "sys_enter_futex",
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:int op;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 val;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:const struct __kernel_timespec * utime;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 * uaddr2;\toffset:48;\tsize:8;\tsigned:0;\n"
	  "\tfield:u32 val3;\toffset:56;\tsize:8;\tsigned:0;\n",
	  "\"uaddr: 0x%08lx, op: 0x%08lx, val: 0x%08lx, utime: 0x%08lx, uaddr2: 0x%08lx, val3: 0x%08lx\", "
	  "((unsigned long)(REC->uaddr)), ((unsigned long)(REC->op)), ((unsigned long)(REC->val)), "
	  "((unsigned long)(REC->utime)), ((unsigned long)(REC->uaddr2)), ((unsigned long)(REC->val3))",
	  true, false },
	/* plugin_hrtimer prints these itself */
	{ "timer", "hrtimer_start",
	  "\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:s64 expires;\toffset:24;\tsize:8;\tsigned:1;\n"
	  "\tfield:s64 softexpires;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:unsigned int mode;\toffset:40;\tsize:4;\tsigned:0;\n",
	  "\"hrtimer=%p function=%ps expires=%llu softexpires=%llu\", REC->hrtimer, REC->function, "
	  "(unsigned long long) REC->expires, (unsigned long long) REC->softexpires",
	  true, false },
	{ "timer", "hrtimer_expire_entry",
	  "\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:s64 now;\toffset:16;\tsize:8;\tsigned:1;\n"
	  "\tfield:void * function;\toffset:24;\tsize:8;\tsigned:0;\n",
	  "\"hrtimer=%p function=%ps now=%llu\", REC->hrtimer, REC->function, (unsigned long long) REC->now",
	  true, false },
	{ "sched", "sched_switch",
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n",
	  "\"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, REC->prev_pid, "
	  "REC->next_comm, REC->next_pid",
	  true, false },
	{ "sched", "sched_wakeup",
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n",
	  "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu",
	  true, false },
	{ "sched", "sched_wakeup_new",
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:36;\tsize:4;\tsigned:1;\n",
	  "\"comm=%s pid=%d prio=%d success=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	  "REC->success, REC->target_cpu",
	  true, false },
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

#define KBASE 0xffffffff81000000ULL

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void wr(uint8_t *p, int size, uint64_t v, bool be)
{
	int i;

	for (i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t edge_value(int size)
{
	static const uint64_t edges[] = { 0, 1, 2, 7, 9, 10, 99, 100, 255, 256, 0x7f, 0x80,
					  0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000ULL,
					  0xffffffffULL, 0x7fffffffffffffffULL,
					  0x8000000000000000ULL, ~0ULL, ~0ULL - 1 };
	uint64_t v;

	switch (rnd() % 4) {
	case 0:
		v = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
		break;
	case 1:
		v = rnd() % 1000;
		break;
	case 2:
		v = -(rnd() % 1000);
		break;
	default:
		v = rnd();
		break;
	}
	if (size < 8)
		v &= (1ULL << (8 * size)) - 1;
	return v;
}

static void rand_text(char *p, int n, bool nul)
{
	static const char cs[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_:/.%";
	int i;

	for (i = 0; i < n; i++)
		p[i] = cs[rnd() % (sizeof(cs) - 1)];
	if (nul && n)
		p[rnd() % n] = 0;
}

/* A random record for ev: fixed fields, then the dynamic strings. */
static int make_record(struct tep_event *ev, bool be, uint8_t *buf, int cap)
{
	struct tep_format_field *f;
	int end = 0;

	memset(buf, 0, cap);
	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	wr(buf, 2, ev->id, be);
	wr(buf + 4, 4, rnd() % 5000, be);
	for (f = ev->format.fields; f; f = f->next) {
		uint8_t *p = buf + f->offset;

		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			int len = rnd() % 4 ? (int)(rnd() % 40) : 0;
			uint32_t loc;

			if (end + len + 1 > cap)
				len = 0;
			if (len) {
				rand_text((char *)buf + end, len, rnd() % 4 == 0);
				buf[end + len] = 0;
				len++;	/* the kernel's length counts the NUL */
			}
			/* __rel_loc counts from the end of the field itself */
			loc = (uint32_t)len << 16 |
			      (uint32_t)(f->flags & TEP_FIELD_IS_RELATIVE ? end - (f->offset + f->size) : end);
			end += len;
			/* now and then a damaged __data_loc (the buffer stays NUL-padded) */
			if (rnd() % 8 == 0)
				loc = (uint32_t)(rnd() % 64) << 16 | (uint32_t)(rnd() % (end + 24));
			wr(p, 4, loc, be);
		} else if ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1) {
			rand_text((char *)p, f->size, rnd() % 8 != 0);
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			unsigned i;

			for (i = 0; f->elementsize && i < f->size / f->elementsize; i++)
				wr(p + i * f->elementsize, f->elementsize, edge_value(f->elementsize), be);
		} else if (f->size <= 8 && (!strcmp(f->name, "ip") || !strcmp(f->name, "call_site") ||
						  !strcmp(f->name, "function"))) {
			/* mostly inside the few functions registered, sometimes outside */
			uint64_t v = rnd() % 8 ? KBASE + rnd() % 0x5000 : edge_value(f->size);

			wr(p, f->size, v, be);
		} else if (f->size <= 8 && !strcmp(f->name, "op")) {
			/* futex commands 0..15 with the private and realtime flags */
			wr(p, f->size, rnd() % 4 ? (rnd() % 16) | (rnd() % 4) << 7 : edge_value(f->size), be);
		} else if (f->size <= 8) {
			wr(p, f->size, edge_value(f->size), be);
		}
	}
	return end;
}

static char *expand_longs(const char *fields, int long_size)
{
	static char out[4096];
	size_t o = 0;
	const char *p;

	/* "6LONG" is six longs, "LONG" one; offsets in the table assume 8 */
	for (p = fields; *p && o < sizeof(out) - 8; p++) {
		if (!strncmp(p, "6LONG", 5)) {
			o += snprintf(out + o, sizeof(out) - o, "%d", 6 * long_size);
			p += 4;
		} else if (!strncmp(p, "LONG", 4)) {
			o += snprintf(out + o, sizeof(out) - o, "%d", long_size);
			p += 3;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
	return out;
}

static void synthetic(bool be, int long_size)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_plugin_list *plugins;
	struct rpt_fastprint *fp;
	struct tally t = { 0 };
	char where[64];
	size_t i;

	snprintf(where, sizeof(where), "synthetic %s long%d", be ? "BE" : "LE", long_size);
	if (!tep) {
		CHECK(0, "tep_alloc");
		return;
	}
	tep_set_long_size(tep, long_size);
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	plugins = tep_load_plugins(tep);
	/* a few kernel functions for %pS, %ps and plugin_kmem's call_site */
	tep_register_function(tep, "start_kernel", KBASE, NULL);
	tep_register_function(tep, "do_one_thing", KBASE + 0x1000, NULL);
	tep_register_function(tep, "kmalloc_caller", KBASE + 0x1800, "somemod");
	tep_register_function(tep, "last_func", KBASE + 0x4000, NULL);
	/* longer than plugin_hrtimer's 128-byte buffer */
	tep_register_function(tep, "a_function_with_a_very_long_name_that_goes_on_and_on_"
			      "and_on_well_past_one_hundred_and_twenty_eight_bytes_of_text_and_then_"
			      "some_more_to_be_sure",
			      KBASE + 0x2000, NULL);
	for (i = 0; i < sizeof(synths) / sizeof(synths[0]); i++) {
		const struct synth *sy = &synths[i];
		char text[8192];
		int n;

		n = snprintf(text, sizeof(text), "name: %s\nID: %zu\nformat:\n" COMMON "%s\nprint fmt: %s\n",
			     sy->name, 100 + i, expand_longs(sy->fields, long_size), sy->fmt);
		CHECK(tep_parse_event(tep, text, n, sy->sys) == 0, "%s: cannot parse %s", where, sy->name);
	}
	fp = rpt_fastprint_new(tep);
	CHECK(fp != NULL, "rpt_fastprint_new");
	for (i = 0; fp && i < sizeof(synths) / sizeof(synths[0]); i++) {
		const struct synth *sy = &synths[i];
		struct tep_event *ev = tep_find_event_by_name(tep, sy->sys, sy->name);
		const char *why = NULL;
		bool ok;
		int k;

		if (!ev)
			continue;
		ok = rpt_fastprint_type_ok(fp, ev, &why);
		if (!strcmp(sy->sys, "sched") || !strcmp(sy->sys, "kmem") || !strcmp(sy->sys, "timer") ||
		    !strcmp(sy->sys, "syscalls"))
			printf("  %s: %s:%s %s\n", where, sy->sys, sy->name,
			       ev->handler ? "has its plugin handler" : "has no plugin handler (plugins not installed?)");
		if (sy->must_be_fast)
			CHECK(ok, "%s: %s should compile (declined: %s)", where, sy->name, why);
		if (sy->must_decline)
			CHECK(!ok, "%s: %s should be declined", where, sy->name);
		for (k = 0; k < 3000; k++) {
			uint8_t buf[512];
			struct tep_record rec = { 0 };

			rec.size = make_record(ev, be, buf, sizeof(buf));
			rec.data = buf;
			compare(fp, tep, ev, &rec, &t, where);
			if (k < 50) {
				/* a record cut short must be declined or printed identically */
				rec.size = rnd() % (rec.size + 1);
				if (rec.size >= 4)
					compare(fp, tep, ev, &rec, &t, where);
			}
		}
	}
	if (fp) {
		struct tep_event *ev = tep_find_event_by_name(tep, "fp", "symatom");
		const char *why = NULL;

		CHECK(ev && rpt_fastprint_type_ok(fp, ev, &why),
		      "%s: symatom should compile once libtraceevent resolved its symbols (%s)", where, why);
	}
	printf("%s: %" PRIu64 " records fast, %" PRIu64 " declined, %" PRIu64 " mismatches\n",
	       where, t.fast, t.declined, t.mismatch);
	CHECK(t.fast > 0, "%s: nothing was handled fast", where);
	rpt_fastprint_free(fp);
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
}

/* ---- 2./3. real files ------------------------------------------------------- */

struct totals {
	uint64_t fast, declined, mismatch, files;
};

static void check_file(const char *path, struct totals *tot)
{
	struct fmt_reader *r = NULL;
	struct fmt_iter *it = NULL;
	struct rpt_fastprint *fp = NULL;
	struct rpt_fastprint_stats st;
	const struct fmt_event *ev;
	struct tally t = { 0 };
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint32_t *counts = calloc(65536, sizeof(*counts));
	uint64_t before;
	char *err = NULL;
	int ret;

	ret = fmt_reader_open(path, 0, &r, &err);
	if (ret < 0) {
		printf("  %s: not readable (%s), skipped\n", name, err ? err : strerror(-ret));
		free(err);
		free(counts);
		return;
	}
	fp = rpt_fastprint_new(fmt_reader_tep(r));
	CHECK(fp != NULL, "rpt_fastprint_new");
	if (!fp || fmt_iter_new(r, NULL, &it) < 0)
		goto out;
	for (;;) {
		ret = fmt_iter_next(it, &ev);
		if (ret == 0)
			break;
		if (ret < 0) {
			/* damaged stream: the others can still be drained */
			if (fmt_iter_errors(it) > 64)
				break;
			continue;
		}
		if (!ev->event)
			continue;
		before = t.declined;
		compare(fp, fmt_reader_tep(r), ev->event, (struct tep_record *)&ev->rec, &t, name);
		if (t.declined != before && counts && ev->event->id >= 0 && ev->event->id < 65536)
			counts[ev->event->id]++;
	}
	rpt_fastprint_stats(fp, &st);
	printf("  %s: %" PRIu64 " records fast, %" PRIu64 " declined, %" PRIu64
	       " mismatches; %d types fast, %d declined\n",
	       name, t.fast, t.declined, t.mismatch, st.types_fast, st.types_declined);
	type_report(fp, fmt_reader_tep(r), name);
	if (counts)
		declined_report(fp, fmt_reader_tep(r), counts);
	tot->fast += t.fast;
	tot->declined += t.declined;
	tot->mismatch += t.mismatch;
	tot->files++;
out:
	free(counts);
	fmt_iter_free(it);
	rpt_fastprint_free(fp);
	fmt_reader_close(r);
}

/*
 * The sched plugin registers every comm it prints, and later lookups see
 * it.  Two readers of the same file in lockstep: one prints everything with
 * libtraceevent, the other through the fast path, opened the way `flytrap
 * report` opens files (formats parsed on first use); the comm report looks
 * up before each event's text must agree too.
 */
static void check_side_effects(const char *path)
{
	struct fmt_reader *r1 = NULL, *r2 = NULL;
	struct fmt_iter *i1 = NULL, *i2 = NULL;
	struct rpt_fastprint *fp = NULL;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t n = 0, bad = 0;

	if (fmt_reader_open(path, 0, &r1, NULL) < 0 ||
	    fmt_reader_open(path, FMT_OPEN_LAZY_FORMATS, &r2, NULL) < 0 ||
	    !(fp = rpt_fastprint_new(fmt_reader_tep(r2))) ||
	    fmt_iter_new(r1, NULL, &i1) < 0 || fmt_iter_new(r2, NULL, &i2) < 0)
		goto out;
	for (;;) {
		const struct fmt_event *e1, *e2;
		int a = fmt_iter_next(i1, &e1), b = fmt_iter_next(i2, &e2);
		struct tep_handle *t1 = fmt_reader_tep(r1), *t2 = fmt_reader_tep(r2);
		const char *c1, *c2;
		int pid;

		if (a != b) {
			CHECK(a == b, "%s: the two readers disagree", name);
			break;
		}
		if (a <= 0)
			break;
		if (!e1->event || !e2->event)
			continue;
		pid = tep_data_pid(t1, (struct tep_record *)&e1->rec);
		c1 = tep_data_comm_from_pid(t1, pid);
		c2 = tep_data_comm_from_pid(t2, pid);
		trace_seq_reset(&sa);
		trace_seq_reset(&sb);
		tep_print_event(t1, &sa, (struct tep_record *)&e1->rec, "%s", TEP_PRINT_INFO);
		if (!rpt_fastprint_info(fp, &sb, e2->event, (struct tep_record *)&e2->rec))
			tep_print_event(t2, &sb, (struct tep_record *)&e2->rec, "%s", TEP_PRINT_INFO);
		n++;
		if (strcmp(c1, c2) || sa.len != sb.len || memcmp(sa.buffer, sb.buffer, sa.len)) {
			if (++bad <= 5)
				CHECK(0, "%s: event %" PRIu64 ": comm '%s' vs '%s', text '%.*s' vs '%.*s'",
				      name, n, c1, c2, (int)sa.len, sa.buffer, (int)sb.len, sb.buffer);
			else
				fails++;
		}
	}
	printf("  %s: comm lookups and text after registration: %" PRIu64 " events, %" PRIu64
	       " differences\n", name, n, bad);
out:
	fmt_iter_free(i1);
	fmt_iter_free(i2);
	rpt_fastprint_free(fp);
	fmt_reader_close(r1);
	fmt_reader_close(r2);
}

static void check_dir(const char *dir, struct totals *tot)
{
	struct dirent **names;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		printf("SKIP part: no fixtures at %s\n", dir);
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]->d_name);
		char path[4096];

		if (l > 4 && !strcmp(names[i]->d_name + l - 4, ".dat")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			check_file(path, tot);
			check_side_effects(path);
		}
		free(names[i]);
	}
	free(names);
}

static int put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * Record a few seconds of many event systems on a private instance, extract
 * it with trace-cmd into tmpdir, and check that file.  The instance is
 * removed on every path.
 */
static void live(const char *tmpdir, struct totals *tot)
{
	static const char *const systems[] = {
		"sched", "raw_syscalls", "syscalls", "irq", "timer", "kmem", "block", "net",
		"signal", "task", "workqueue", "writeback", "filemap", "ext4", "skb", "sock",
		"tcp", "napi", "rcu", "power", "random", "vmscan", "compaction", "oom",
		"pagemap", "percpu", "ipi", "cgroup", "module", "syscalls",
	};
	const char *tfs = "/sys/kernel/tracing";
	char inst[256], path[512], out[512], cmd[2048];
	size_t i;
	struct stat stt;

	if (geteuid() != 0) {
		printf("SKIP part: not root, no live recording\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/instances", tfs);
	if (stat(path, &stt) < 0 && system("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null") != 0) {
		printf("SKIP part: no tracefs\n");
		return;
	}
	if (system("command -v trace-cmd >/dev/null 2>&1") != 0) {
		printf("SKIP part: no trace-cmd\n");
		return;
	}
	snprintf(inst, sizeof(inst), "%s/instances/fastprint-test-%d", tfs, (int)getpid());
	if (mkdir(inst, 0755) < 0) {
		printf("SKIP part: cannot create %s: %s\n", inst, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
	put_file(path, "4096");
	for (i = 0; i < sizeof(systems) / sizeof(systems[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/enable", inst, systems[i]);
		put_file(path, "1");	/* systems this kernel lacks are simply absent */
	}
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && ( ls -lR /usr/include > /dev/null 2>&1; "
		 "dd if=/dev/zero of=f bs=64k count=32 conv=fsync 2>/dev/null; cat f > /dev/null; rm -f f; "
		 "ping -c 3 -i 0.2 127.0.0.1 > /dev/null 2>&1; sleep 0.2; "
		 "for i in 1 2 3 4 5; do sh -c 'echo $$' > /dev/null; done; "
		 "find /usr/share/doc -name '*.gz' 2>/dev/null | head -50 | xargs cat > /dev/null 2>&1; "
		 "kill -0 $$ ) < /dev/null", tmpdir);
	if (system(cmd) != 0)
		printf("  note: workload exited non-zero\n");
	snprintf(path, sizeof(path), "%s/tracing_on", inst);
	put_file(path, "0");
	snprintf(out, sizeof(out), "%s/live.dat", tmpdir);
	/*
	 * trace-cmd extract switches the top level's tracing_on off and on:
	 * with the lock tests/lib.sh's tc_extract takes, two at once (the
	 * offline tests run in parallel) cannot leave it off.
	 */
	snprintf(cmd, sizeof(cmd),
		 "flock %s trace-cmd extract -B fastprint-test-%d -o '%s' > '%s/extract.log' 2>&1",
		 tfs, (int)getpid(), out, tmpdir);
	/*
	 * trace-cmd reads /proc/kallsyms twice and gives up when its size
	 * changed in between (BPF programs loading elsewhere): try again.
	 */
	for (i = 0; i < 3 && system(cmd) != 0; i++) {
		char show[600];

		snprintf(show, sizeof(show), "tail -n 3 '%s/extract.log'", tmpdir);
		printf("  note: trace-cmd extract failed:\n");
		fflush(stdout);
		if (system(show) != 0)
			printf("  (no log)\n");
		unlink(out);
	}
	snprintf(path, sizeof(path), "%s/extract.log", tmpdir);
	unlink(path);
	/* extract -B removes the instance itself; make sure of it */
	if (stat(inst, &stt) == 0) {
		snprintf(path, sizeof(path), "%s/events/enable", inst);
		put_file(path, "0");
		if (rmdir(inst) < 0)
			CHECK(0, "cannot remove %s: %s", inst, strerror(errno));
	}
	if (stat(out, &stt) < 0) {
		printf("SKIP part: trace-cmd extract made no file\n");
		return;
	}
	check_file(out, tot);
	check_side_effects(out);
	unlink(out);
}

int main(int argc, char **argv)
{
	struct totals tot = { 0 };
	const char *fx = getenv("FIXTURES");
	char tmpl[] = "/tmp/ft-fastprint-XXXXXX";
	char *tmpdir;
	int i;

	trace_seq_init(&sa);
	trace_seq_init(&sb);

	synthetic(false, 8);
	synthetic(true, 8);
	synthetic(false, 4);
	synthetic(true, 4);

	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			check_file(argv[i], &tot);
			check_side_effects(argv[i]);
		}
	} else {
		check_dir(fx && *fx ? fx : "../shared/fixtures", &tot);
		tmpdir = mkdtemp(tmpl);
		if (tmpdir) {
			live(tmpdir, &tot);
			rmdir(tmpdir);
		}
	}
	printf("files: %" PRIu64 ", records formatted fast: %" PRIu64 ", declined: %" PRIu64
	       ", mismatches: %" PRIu64 "\n", tot.files, tot.fast, tot.declined, tot.mismatch);
	trace_seq_destroy(&sa);
	trace_seq_destroy(&sb);
	return check_summary();
}
