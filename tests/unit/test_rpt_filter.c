// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential test of report -F's filter evaluator (report/listing/filter.c)
 * against libtraceevent's tep_filter_match(): for every record and every
 * filter, rpt_evfilter_hit() must say what tep_filter_match() says (MATCH or
 * NO_FILTER: shown; anything else: not).
 *
 *  1. a synthetic event with signed and unsigned fields of every size, a
 *     char array (NUL-terminated or full), __data_loc and __rel_loc strings
 *     and a pointer, in random and edge-case records, with task names
 *     registered, little-endian (the big-endian file is checked for what
 *     libtraceevent reads in the record: numbers, char arrays, COMM, CPU;
 *     its filter reads a __data_loc descriptor in host order);
 *  2. the parser-crash screen on filters libtraceevent 1.7.1 dies on, and
 *     records a filter must not read past: a record cut before the field
 *     is a miss, and division by zero is a miss, where libtraceevent reads
 *     outside the record or dies;
 *  3. every trace.dat of the fixtures ($FIXTURES, else ../shared/fixtures)
 *     and of tests/data, with filters on common fields, COMM, CPU and the
 *     fields of the events those files hold.
 *
 * Extra arguments are trace.dat files to check instead of 3.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report/listing/filter.h"
#include "check.h"

struct tally {
	uint64_t records, hits, own_types, types, mismatches;
};

static bool lib_hit(struct tep_event_filter *f, struct tep_record *rec)
{
	enum tep_errno r = tep_filter_match(f, rec);

	return r == TEP_ERRNO__FILTER_MATCH || r == TEP_ERRNO__NO_FILTER;
}

/* one filter string on a tep; NULL when libtraceevent refuses it there */
static struct tep_event_filter *make(struct tep_handle *tep, const char *text,
				     struct rpt_evfilter **cf)
{
	struct tep_event_filter *f = tep_filter_alloc(tep);

	*cf = NULL;
	if (!f)
		return NULL;
	if (rpt_evfilter_add_str(f, text) < 0) {
		tep_filter_free(f);
		return NULL;
	}
	*cf = rpt_evfilter_new(f);
	CHECK(*cf != NULL, "rpt_evfilter_new(%s)", text);
	if (!*cf) {
		tep_filter_free(f);
		return NULL;
	}
	return f;
}

static void compare(struct tep_event_filter *f, struct rpt_evfilter *cf, struct tep_record *rec,
		    int type, const char *where, const char *text, struct tally *t)
{
	bool a = lib_hit(f, rec), b = rpt_evfilter_hit(cf, rec, type);

	t->records++;
	t->hits += b;
	if (a != b) {
		if (t->mismatches++ < 10)
			CHECK(a == b, "%s: filter '%s' on a record of type %d (cpu %d): libtraceevent %d, "
			      "flytrap %d", where, text, type, rec->cpu, a, b);
		else
			fails++;
	}
}

/* ---- 1, 2: synthetic records ----------------------------------------------- */

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char probe_fmt[] =
	"name: probe\nID: 7\nformat:\n" COMMON
	"\tfield:s8 a8;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:u8 b8;\toffset:9;\tsize:1;\tsigned:0;\n"
	"\tfield:s16 a16;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:u16 b16;\toffset:12;\tsize:2;\tsigned:0;\n"
	"\tfield:s32 a32;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 b32;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 a64;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 b64;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char name[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] dyn;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:60;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long ptr;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:char pad[3];\toffset:72;\tsize:3;\tsigned:0;\n"
	"\nprint fmt: \"%d\", REC->a32\n";
static const char other_fmt[] =
	"name: other\nID: 9\nformat:\n" COMMON
	"\tfield:int a32;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"%d\", REC->a32\n";
#define PROBE_SIZE 75

/* filters on the synthetic events; those libtraceevent refuses are skipped */
static const char *const synth_filters[] = {
	"probe", "probe,other", "other", "test/.*", ".*:common_pid!=0", "probe:a8<0", "probe:a8==-1",
	"probe:b8>200", "probe:a16<-100||a16>100", "probe:b16==65535", "probe:a32>=0", "probe:a32<=-5",
	"probe:b32>4000000000", "probe:a64<0", "probe:a64==-9223372036854775808", "probe:b64>1000",
	"probe:b64==18446744073709551615", "probe:a8==b8", "probe:a32==a16",
	"probe:a32+1", "probe:a32-b32", "probe:b64/3", "probe:b32%7", "probe:b8>>2", "probe:b8<<60",
	"probe:b16&1", "probe:b16|1", "probe:b16^b8", "probe:a32*b8", "probe:b16&1&&b8^3",
	"probe:a8&128||b32%2", "probe:!(b16&2)", "probe:CPU&1", "probe:a32&&b32",
	"probe:!(a8==0)", "probe:!a8", "probe:a8==0&&(b8==1||b16==2)", "probe:a8!=0||b8!=0&&b16>5",
	"probe:name==\"bash\"", "probe:name!=\"bash\"", "probe:name~\"b*\"", "probe:name=~\"^k.*r\"",
	"probe:name!~\"^s\"", "probe:name==\"0123456789abcdef\"", "probe:name~\"0123*\"",
	"probe:name==\"x\"", "probe:dyn==\"eth0\"", "probe:dyn~\"eth*\"", "probe:dyn=~\"[0-9]$\"",
	"probe:rel==\"rel-b\"", "probe:rel!~\"^rel\"", "probe:COMM==\"bash\"", "probe:COMM~\"*worker*\"",
	"probe:COMM!=\"<...>\"", ".*:COMM=~\"^s\"", "probe:CPU==1", ".*:CPU>1||common_pid<100",
	"probe:ptr==\"start_kernel\"", "probe:ptr>0", "probe:nosuch==1", "probe:nosuch==1||a8<0",
	"probe:a32==1&&nosuch==2", "probe:pad==1", "probe:common_flags&4", "probe:common_preempt_count>1",
	"probe,other:a32>0", "other:a32<0||COMM==\"bash\"", "probe:a32==\"1\"",
};

static const char *const names[] = {
	"bash", "kworker/0:1", "swapper/0", "b", "0123456789abcdef", "sshd", "x", "",
};
static const char *const dyns[] = { "eth0", "eth1", "lo", "wlan9", "", "ethernet-with-a-long-name" };

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t rnd_value(void)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, 100, 101, 200, 5,
	};

	if (rnd() % 3)
		return edge[rnd() % (sizeof(edge) / sizeof(edge[0]))];
	return rnd() >> (rnd() % 64);
}

static void put(uint8_t *p, uint64_t v, int n, bool be)
{
	int i;

	for (i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* a probe record: fields, then the dyn and rel strings; returns its size */
static unsigned int probe_record(uint8_t *buf, size_t cap, bool be, bool odd_strings)
{
	const char *name = names[rnd() % (sizeof(names) / sizeof(names[0]))];
	const char *dyn = dyns[rnd() % (sizeof(dyns) / sizeof(dyns[0]))];
	const char *rel = rnd() % 2 ? "rel-a" : "rel-b";
	unsigned int at = PROBE_SIZE, dl = (unsigned int)strlen(dyn) + 1, rl = (unsigned int)strlen(rel) + 1;
	static const int offs[] = { 8, 9, 10, 12, 16, 20, 24, 32 }, sizes[] = { 1, 1, 2, 2, 4, 4, 8, 8 };
	size_t i;

	memset(buf, 0, cap);
	put(buf, 7, 2, be);
	put(buf + 2, rnd() & 0xff, 1, be);
	put(buf + 3, rnd() % 4, 1, be);
	put(buf + 4, rnd() % 2 ? 0 : 1 + rnd() % 6, 4, be);
	for (i = 0; i < 8; i++)
		put(buf + offs[i], rnd_value(), sizes[i], be);
	/* a full 16-byte name has no NUL: libtraceevent copies it out */
	memcpy(buf + 40, name, strlen(name) < 16 ? strlen(name) + 1 : 16);
	if (odd_strings && rnd() % 4 == 0)
		dl--;	/* no NUL in the record's string */
	memcpy(buf + at, dyn, dl);
	put(buf + 56, (uint64_t)dl << 16 | at, 4, be);
	at += dl;
	/* __rel_loc: offset from the end of the field */
	memcpy(buf + at, rel, rl);
	put(buf + 60, (uint64_t)rl << 16 | (at - 64), 4, be);
	at += rl;
	put(buf + 64, rnd() % 2 ? 0xffffffff81000000ULL : rnd_value(), 8, be);
	return at;
}

static void synthetic(bool be)
{
	struct tep_handle *tep = tep_alloc();
	struct tally t = { 0 };
	char where[32];
	size_t i;
	int k;

	snprintf(where, sizeof(where), "synthetic %s", be ? "BE" : "LE");
	if (!tep) {
		CHECK(0, "tep_alloc");
		return;
	}
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_register_function(tep, "start_kernel", 0xffffffff81000000ULL, NULL);
	tep_register_comm(tep, "bash", 1);
	tep_register_comm(tep, "kworker/1:2", 2);
	tep_register_comm(tep, "swapper/1", 3);
	CHECK(tep_parse_event(tep, probe_fmt, sizeof(probe_fmt) - 1, "test") == 0, "parse probe");
	CHECK(tep_parse_event(tep, other_fmt, sizeof(other_fmt) - 1, "test") == 0, "parse other");
	for (i = 0; i < sizeof(synth_filters) / sizeof(synth_filters[0]); i++) {
		const char *text = synth_filters[i];
		struct rpt_evfilter *cf;
		struct tep_event_filter *f;
		int own = 0;

		/* a big-endian __data_loc: libtraceevent's filter reads the descriptor in host order */
		if (be && (strstr(text, "dyn") || strstr(text, "rel")))
			continue;
		f = make(tep, text, &cf);
		if (!f)
			continue;
		t.types += rpt_evfilter_types(cf, &own);
		t.own_types += own;
		for (k = 0; k < 4000; k++) {
			uint8_t buf[256];
			struct tep_record rec = { 0 };
			unsigned int size;

			if (k % 5 == 4) {	/* an "other" record */
				memset(buf, 0, sizeof(buf));
				put(buf, 9, 2, be);
				put(buf + 4, rnd() % 5, 4, be);
				put(buf + 8, rnd_value(), 4, be);
				size = 12;
			} else {
				size = probe_record(buf, sizeof(buf), be, true);
			}
			rec.data = buf;
			rec.size = (int)size;
			rec.cpu = (int)(rnd() % 4);
			compare(f, cf, &rec, k % 5 == 4 ? 9 : 7, where, text, &t);
		}
		rpt_evfilter_free(cf);
		tep_filter_free(f);
	}
	printf("  %s: %" PRIu64 " record tests, %" PRIu64 " shown, %" PRIu64 " of %" PRIu64
	       " event rules evaluated here, %" PRIu64 " mismatches\n",
	       where, t.records, t.hits, t.own_types, t.types, t.mismatches);
	CHECK(t.own_types * 10 >= t.types * 8, "%s: only %" PRIu64 " of %" PRIu64 " rules evaluated here",
	      where, t.own_types, t.types);

	/* libtraceevent's parser crashes on these: the screen says so, in a child */
	CHECK(rpt_evfilter_parse_crashes(tep, "probe:a8==") == 1, "%s: 'a8==' not caught", where);
	CHECK(rpt_evfilter_parse_crashes(tep, "probe:a8==1||") == 1, "%s: 'a8==1||' not caught", where);
	CHECK(rpt_evfilter_parse_crashes(tep, "probe:(a32+1)*2>10") == 1, "%s: '(a32+1)*2>10' not caught",
	      where);
	CHECK(rpt_evfilter_parse_crashes(tep, "probe:a8==1") == 0, "%s: 'a8==1' said to crash", where);
	CHECK(rpt_evfilter_parse_crashes(tep, "probe:a8==(") == 0, "%s: 'a8==(' said to crash", where);

	/* 2: a record cut before its field, and division by zero: a miss, no crash */
	{
		struct rpt_evfilter *cf;
		struct tep_event_filter *f = make(tep, "probe:b64>0||b64==0", &cf);
		uint8_t buf[256];
		struct tep_record rec = { .data = buf, .size = 30 };

		probe_record(buf, sizeof(buf), be, false);
		CHECK(f && !rpt_evfilter_hit(cf, &rec, 7), "%s: a field past the record's end matched", where);
		rec.size = 40;
		CHECK(f && rpt_evfilter_hit(cf, &rec, 7), "%s: a field inside the record did not match", where);
		rpt_evfilter_free(cf);
		if (f)
			tep_filter_free(f);
		f = make(tep, "probe:b8/a16||b8%a16", &cf);
		put(buf + 10, 0, 2, be);
		rec.size = 40;
		CHECK(f && !rpt_evfilter_hit(cf, &rec, 7), "%s: a division by zero matched", where);
		rpt_evfilter_free(cf);
		if (f)
			tep_filter_free(f);
		f = make(tep, "probe:dyn==\"eth0\"", &cf);
		put(buf + 56, (uint64_t)200 << 16 | 70, 4, be);
		rec.size = 80;
		CHECK(f && !rpt_evfilter_hit(cf, &rec, 7), "%s: a string past the record's end matched", where);
		rpt_evfilter_free(cf);
		if (f)
			tep_filter_free(f);
	}
	tep_free(tep);
}

/* ---- 3: recorded files ------------------------------------------------------ */

static const char *const file_filters[] = {
	".*", ".*:common_pid!=0", ".*:common_pid>10&&common_pid<2000", ".*:!(common_pid==0)",
	".*:common_pid%2", ".*:common_pid+3&&common_pid>>1", ".*:common_flags&1", ".*:common_flags&8",
	".*:common_preempt_count>0", ".*:COMM==\"bash\"", ".*:COMM~\"k*\"", ".*:COMM=~\"^ls$\"",
	".*:COMM!~\"^swapper\"", ".*:CPU==0", ".*:CPU!=1||common_pid==0",
	"sched_switch:prev_pid==0", "sched_switch:prev_comm==\"swapper/0\"",
	"sched_switch:next_comm~\"*worker*\"", "sched_switch:prev_state==0", "sched_switch:prev_state&1",
	"sched_switch:prev_prio<120||next_prio>120", "sched_switch:prev_comm=~\"^k\"&&next_pid!=0",
	"sched_switch,sched_wakeup:prev_pid==0", "sched.*:pid>100", "sched_wakeup:target_cpu==1",
	"sched_wakeup:comm!=\"bash\"", "sched_waking:success==1", "irq_handler_entry:name==\"eth0\"",
	"irq.*:irq==16||vec==1", "irq_handler_entry:name~\"*virtio*\"", "softirq_entry:vec==7",
	"sys_exit:ret<0", "sys_exit:id==0", "sys_enter:id>10", "raw_syscalls/sys_exit:ret>=0",
	"function:ip!=0", "ftrace/function:parent_ip>ip", "funcgraph_entry:depth>1",
	"funcgraph_exit:rettime-calltime", "kmalloc:bytes_alloc>=64", "kmem/.*:gfp_flags&16",
	"ext4.*:dev!=0", "block.*:sector>0", "timer.*:expires>0", "hrtimer.*:function==\"tick_sched_timer\"",
	"kernel_stack:caller[0]!=0", "workqueue.*:function~\"*work*\"", "print:ip!=0", "bprint:fmt!=0",
	"sys_enter_openat:filename~\"*.so*\"", "sys_enter_write:count>100", ".*:nosuch==1||common_pid==1",
};

#define NFF (sizeof(file_filters) / sizeof(file_filters[0]))

/* every filter libtraceevent makes on this file, each record through all of them */
static void check_file(const char *path, struct tally *tot)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct tep_event_filter *f[NFF];
	struct rpt_evfilter *cf[NFF];
	struct fmt_reader *r = NULL;
	struct fmt_iter *it = NULL;
	const struct fmt_event *ev;
	struct tally t = { 0 };
	size_t i;
	int ret;

	if (fmt_reader_open(path, 0, &r, NULL) < 0) {
		printf("  %s: not readable, skipped\n", name);
		return;
	}
	for (i = 0; i < NFF; i++) {
		int own = 0;

		f[i] = make(fmt_reader_tep(r), file_filters[i], &cf[i]);
		if (f[i]) {
			t.types += rpt_evfilter_types(cf[i], &own);
			t.own_types += own;
		}
	}
	if (fmt_iter_new(r, NULL, &it) == 0) {
		while ((ret = fmt_iter_next(it, &ev)) != 0) {
			if (ret < 0) {
				if (fmt_iter_errors(it) > 64)
					break;
				continue;
			}
			if (ev->type < 0)
				continue;
			for (i = 0; i < NFF; i++)
				if (f[i])
					compare(f[i], cf[i], (struct tep_record *)&ev->rec, ev->type, name,
						file_filters[i], &t);
		}
	}
	fmt_iter_free(it);
	for (i = 0; i < NFF; i++) {
		rpt_evfilter_free(cf[i]);
		if (f[i])
			tep_filter_free(f[i]);
	}
	printf("  %s: %" PRIu64 " record tests, %" PRIu64 " shown, %" PRIu64 " of %" PRIu64
	       " event rules evaluated here, %" PRIu64 " mismatches\n",
	       name, t.records, t.hits, t.own_types, t.types, t.mismatches);
	tot->records += t.records;
	tot->hits += t.hits;
	tot->types += t.types;
	tot->own_types += t.own_types;
	tot->mismatches += t.mismatches;
	fmt_reader_close(r);
}

static void check_dir(const char *dir, struct tally *tot)
{
	struct dirent **list;
	int n, i;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		printf("  %s: not there, skipped\n", dir);
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name);
		char path[4096];

		if (l > 4 && !strcmp(list[i]->d_name + l - 4, ".dat")) {
			snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
			check_file(path, tot);
		}
		free(list[i]);
	}
	free(list);
}

int main(int argc, char **argv)
{
	const char *fx = getenv("FIXTURES");
	struct tally tot = { 0 };
	int i;

	synthetic(false);
	synthetic(true);
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			check_file(argv[i], &tot);
	} else {
		check_dir(fx && *fx ? fx : "../shared/fixtures", &tot);
		check_dir("tests/data", &tot);
	}
	printf("files: %" PRIu64 " record tests, %" PRIu64 " shown, %" PRIu64 " of %" PRIu64
	       " event rules evaluated here, %" PRIu64 " mismatches\n",
	       tot.records, tot.hits, tot.own_types, tot.types, tot.mismatches);
	CHECK(tot.records > 100000, "only %" PRIu64 " record tests on files", tot.records);
	CHECK(tot.own_types * 10 >= tot.types * 8, "only %" PRIu64 " of %" PRIu64
	      " rules on files evaluated here", tot.own_types, tot.types);
	return check_summary();
}
