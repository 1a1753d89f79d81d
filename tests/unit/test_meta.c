// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap's own text options (format/meta.c): the typed fields of a
 * recorder's META and RECSTATS, duplicate keys (the first wins, all are
 * kept), lines without '=', CRLF, bad numbers, malformed shed and
 * cpu_data_start items, text cut at every length, data without a NUL (in
 * a buffer of exactly its size, so a sanitizer build sees any overread),
 * a NUL inside, a line of a MiB, and a shipped recording read through
 * fmt_reader_meta().
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/ftmeta.h"
#include "check.h"

static const char start_meta[] =
	"recorder=flytrap 0.1.0\n"
	"command_line=flytrap record -e sched:sched_switch\n"
	"hostname=vm\n"
	"start_time=2026-11-29T18:30:32Z\n"
	"start_epoch_ns=1795977032859676043\n"
	"instance=flytrap-12473\n"
	"clock=mono\n"
	"buffer_kb=1410\n"
	"events=sched:sched_switch,irq:irq_handler_entry\n"
	"pids=12525,12526\n"
	"bpf_progs=syscalls,offcpu,profile,syscalls/mapfull\n"
	"bpf_ufunc=0 /usr/bin/ls main 0x4010\n";

static const char end_meta[] =
	"recording_mode=flight\n"
	"trace_id=00112233aabbccdd\n"
	"flight_dump=3\n"
	"trigger=signal USR1\n"
	"trigger_ts=123456789\n"
	"window_start_ns=1000\n"
	"window_end_ns=2000\n"
	"cpu_data_start=/0:1500,/1:1600:whole,inst/2:1700\n"
	"shed=100,200,sched:sched_switch,cpu budget\n"
	"shed=300,0,irq:irq_handler_entry,still off\n";

static const char recstats[] =
	"cpu_user_us=69070\ncpu_sys_us=234839\nmax_rss_kb=5120\ncapture_user_us=5166\n"
	"capture_sys_us=6052\nduration_ns=4176338378\nbytes_read=507904\nbytes_written=80761\n"
	"pages=124\nwakeups=4\nmax_buffer_fill_pct=22\nevents=10260\noverrun=7\ndropped=1\n"
	"bpf_records=10419\nbpf_drops=2\nbpf_bytes=955120\nbpf_pages=137\n"
	"cpu0=pages:3 bytes_read:12288 max_drain:8192 splice:1\n";

/* A copy of text in a buffer of exactly n bytes (no room for a NUL past it). */
static char *exact(const char *text, size_t n)
{
	char *b = malloc(n ? n : 1);

	if (b)
		memcpy(b, text, n);
	return b;
}

static void parse(struct fmt_meta *m, const char *meta, size_t ml, const char *rs, size_t rl)
{
	fmt_meta_init(m);
	CHECK(!fmt_meta_add(m, meta, ml, false), "add META");
	if (rs)
		CHECK(!fmt_meta_add(m, rs, rl, true), "add RECSTATS");
	CHECK(!fmt_meta_finish(m), "finish");
}

static void well_formed(void)
{
	struct fmt_meta m;

	fmt_meta_init(&m);
	CHECK(!fmt_meta_add(&m, start_meta, sizeof(start_meta), false), "start");
	CHECK(!fmt_meta_add(&m, end_meta, sizeof(end_meta), false), "end");
	CHECK(!fmt_meta_add(&m, recstats, sizeof(recstats), true), "recstats");
	CHECK(!fmt_meta_finish(&m), "finish");
	CHECK(m.present && m.rs.present, "present");
	CHECK(m.all.n == 22, "%zu META lines", m.all.n);
	CHECK(m.recorder && !strcmp(m.recorder, "flytrap 0.1.0"), "recorder %s", m.recorder);
	CHECK(m.hostname && !strcmp(m.hostname, "vm"), "hostname %s", m.hostname);
	CHECK(m.command_line && !strcmp(m.command_line, "flytrap record -e sched:sched_switch"),
	      "command_line");
	CHECK(m.start_time && !strcmp(m.start_time, "2026-11-29T18:30:32Z"), "start_time");
	CHECK(m.start_epoch_ns.has && m.start_epoch_ns.v == 1795977032859676043ULL, "epoch");
	CHECK(m.instance && !strcmp(m.instance, "flytrap-12473"), "instance");
	CHECK(m.clock && !strcmp(m.clock, "mono"), "clock");
	CHECK(m.buffer_kb.has && m.buffer_kb.v == 1410, "buffer_kb %llu",
	      (unsigned long long)m.buffer_kb.v);
	CHECK(m.events && !strcmp(m.events, "sched:sched_switch,irq:irq_handler_entry"), "events");
	CHECK(m.pids && !strcmp(m.pids, "12525,12526"), "pids");
	CHECK(m.recording_mode && !strcmp(m.recording_mode, "flight"), "mode");
	CHECK(m.trace_id && !strcmp(m.trace_id, "00112233aabbccdd"), "trace_id");
	CHECK(m.flight_dump.has && m.flight_dump.v == 3, "flight_dump");
	CHECK(!m.rotation_segment.has, "no rotation_segment");
	CHECK(m.trigger && !strcmp(m.trigger, "signal USR1"), "trigger");
	CHECK(m.trigger_ts.has && m.trigger_ts.v == 123456789, "trigger_ts");
	CHECK(m.window_start_ns.v == 1000 && m.window_end_ns.v == 2000, "window");
	CHECK(!m.recovered.has, "not recovered");
	/* cpu_data_start: the top buffer's name is empty */
	CHECK(m.ncpu_start == 3, "%zu cpu starts", m.ncpu_start);
	if (m.ncpu_start == 3) {
		CHECK(!strcmp(m.cpu_start[0].buffer, "") && m.cpu_start[0].cpu == 0 &&
		      m.cpu_start[0].ts == 1500 && !m.cpu_start[0].whole, "start 0");
		CHECK(m.cpu_start[1].cpu == 1 && m.cpu_start[1].ts == 1600 && m.cpu_start[1].whole,
		      "start 1");
		CHECK(!strcmp(m.cpu_start[2].buffer, "inst") && m.cpu_start[2].cpu == 2 &&
		      m.cpu_start[2].ts == 1700, "start 2");
	}
	CHECK(m.nshed == 2, "%zu sheds", m.nshed);
	if (m.nshed == 2) {
		CHECK(m.shed[0].from_ts == 100 && m.shed[0].to_ts == 200 &&
		      !strcmp(m.shed[0].event, "sched:sched_switch") &&
		      !strcmp(m.shed[0].why, "cpu budget"), "shed 0");
		CHECK(m.shed[1].to_ts == 0 && !strcmp(m.shed[1].why, "still off"), "shed 1");
	}
	CHECK(m.nbpf_progs == 4 && !strcmp(m.bpf_prog_names[0], "syscalls") &&
	      !strcmp(m.bpf_prog_names[3], "syscalls/mapfull"), "%zu progs", m.nbpf_progs);
	CHECK(!strcmp(fmt_kv_get(&m.all, FMT_META_BPF_UFUNC), "0 /usr/bin/ls main 0x4010"),
	      "ufunc");
	CHECK(!fmt_kv_get(&m.all, "no_such_key"), "absent key");
	/* the recorder's statistics, each counter */
	CHECK(m.rs.all.n == 19, "%zu RECSTATS lines", m.rs.all.n);
	CHECK(m.rs.cpu_user_us.v == 69070 && m.rs.cpu_sys_us.v == 234839, "cpu");
	CHECK(m.rs.max_rss_kb.has && m.rs.max_rss_kb.v == 5120, "rss");
	CHECK(m.rs.capture_user_us.v == 5166 && m.rs.capture_sys_us.v == 6052, "capture");
	CHECK(m.rs.duration_ns.v == 4176338378ULL, "duration");
	CHECK(m.rs.bytes_read.v == 507904 && m.rs.bytes_written.v == 80761, "bytes");
	CHECK(m.rs.pages.v == 124 && m.rs.wakeups.v == 4, "pages, wakeups");
	CHECK(m.rs.max_buffer_fill_pct.has && m.rs.max_buffer_fill_pct.v == 22, "fill");
	CHECK(m.rs.events.v == 10260 && m.rs.overrun.v == 7 && m.rs.dropped.v == 1, "kernel");
	CHECK(m.rs.bpf_records.v == 10419 && m.rs.bpf_drops.v == 2 && m.rs.bpf_bytes.v == 955120 &&
	      m.rs.bpf_pages.v == 137, "bpf");
	CHECK(!strcmp(fmt_kv_get(&m.rs.all, "cpu0"),
		      "pages:3 bytes_read:12288 max_drain:8192 splice:1"), "cpu0 line");
	/* META's "events" and RECSTATS' "events" are separate lists */
	CHECK(!strcmp(fmt_kv_get(&m.rs.all, FMT_RS_EVENTS), "10260"), "recstats events");
	fmt_meta_release(&m);
	CHECK(!m.all.n && !m.hostname && !m.nshed, "released");
	fmt_meta_release(&m);	/* twice is harmless */
}

static void damaged(void)
{
	static const char dup[] =
		"hostname=first\nbuffer_kb=12x\nhostname=second\nno equals sign\n\n=lead\n"
		"trigger_ts=\nstart_epoch_ns=18446744073709551616\n"
		"flight_dump=18446744073709551615\n"
		"window_start_ns=-1\nclock=mono\r\ntrace_id=\r\n"
		"shed=1,2,ev\nshed=x,2,ev,why\nshed=1,2,,why\nshed=1,2,ev,\n"
		"cpu_data_start=nocpu,/x:1,/1:,/2:5:part,/3:7,/4:8:whole:x,/65536:1,/65535:1\n"
		"bpf_progs=, a ,,b,\n";
	struct fmt_meta m;
	const struct fmt_kv *kv;

	parse(&m, dup, sizeof(dup) - 1, NULL, 0);
	CHECK(!m.rs.present && !m.rs.all.n, "no RECSTATS");
	CHECK(m.hostname && !strcmp(m.hostname, "first"), "first duplicate wins: %s", m.hostname);
	CHECK(!strcmp(m.all.kv[2].val, "second"), "the duplicate is kept");
	CHECK(!m.buffer_kb.has && !m.buffer_kb.v, "12x is no number");
	kv = &m.all.kv[3];
	CHECK(!kv->val && !strcmp(kv->key, "no equals sign") && !strcmp(kv->line, "no equals sign"),
	      "a line without '='");
	CHECK(!fmt_kv_get(&m.all, "no equals sign"), "no value to get");
	CHECK(!strcmp(m.all.kv[4].key, "") && !strcmp(m.all.kv[4].val, "lead"), "empty key");
	CHECK(!m.trigger_ts.has && fmt_kv_get(&m.all, FMT_META_TRIGGER_TS), "empty number");
	CHECK(!m.start_epoch_ns.has, "2^64 overflows");
	CHECK(m.flight_dump.has && m.flight_dump.v == UINT64_MAX, "2^64-1 fits");
	CHECK(!m.window_start_ns.has, "negative");
	CHECK(!strcmp(m.clock, "mono"), "CR dropped from the value");
	CHECK(!strcmp(m.all.kv[9].line, "clock=mono\r"), "but kept in the line");
	CHECK(m.trace_id && !strcmp(m.trace_id, ""), "a value of only CR is empty");
	CHECK(m.nshed == 0, "%zu malformed sheds accepted", m.nshed);
	CHECK(m.ncpu_start == 2, "%zu cpu starts", m.ncpu_start);
	if (m.ncpu_start == 2)
		CHECK(m.cpu_start[0].cpu == 3 && m.cpu_start[0].ts == 7 &&
		      m.cpu_start[1].cpu == 65535, "the well-formed items");
	CHECK(m.nbpf_progs == 2 && !strcmp(m.bpf_prog_names[0], "a") &&
	      !strcmp(m.bpf_prog_names[1], "b"), "empty program names skipped");
	fmt_meta_release(&m);
}

/* shed's event is 1..255 bytes, its reason cut at 127 */
static void shed_limits(void)
{
	char text[1024], *p = text;
	struct fmt_meta m;

	p += sprintf(p, "shed=1,2,");
	memset(p, 'e', 255);
	p += 255;
	p += sprintf(p, ",");
	memset(p, 'w', 200);
	p += 200;
	p += sprintf(p, "\nshed=3,4,");
	memset(p, 'e', 256);
	p += 256;
	p += sprintf(p, ",why\n");
	parse(&m, text, (size_t)(p - text), NULL, 0);
	CHECK(m.nshed == 1, "%zu sheds", m.nshed);
	if (m.nshed == 1)
		CHECK(strlen(m.shed[0].event) == 255 && strlen(m.shed[0].why) == 127, "lengths");
	fmt_meta_release(&m);
}

static void unterminated(void)
{
	struct fmt_meta m;
	size_t n = strlen(start_meta) - 2;	/* no NUL, no last '\n', one byte less */
	char *b = exact(start_meta, n);
	static const char nul[] = "hostname=a\0hostname=b\nclock=x\n";

	parse(&m, b, n, NULL, 0);
	CHECK(m.all.n == 12, "%zu lines", m.all.n);
	CHECK(!strcmp(fmt_kv_get(&m.all, FMT_META_BPF_UFUNC), "0 /usr/bin/ls main 0x401"),
	      "the last line up to the end");
	fmt_meta_release(&m);
	free(b);
	/* the text ends at the first NUL */
	parse(&m, nul, sizeof(nul), NULL, 0);
	CHECK(m.all.n == 1 && !strcmp(m.hostname, "a") && !m.clock, "NUL ends the text");
	fmt_meta_release(&m);
	parse(&m, NULL, 0, "", 1);
	CHECK(m.present && !m.all.n && m.rs.present && !m.rs.all.n && !m.hostname, "empty options");
	fmt_meta_release(&m);
}

/* every prefix of the options, in exact-size buffers: never a crash, never more lines */
static void truncated(void)
{
	size_t ml = strlen(end_meta), rl = strlen(recstats), cut, bad = 0;

	for (cut = 0; cut <= ml || cut <= rl; cut++) {
		size_t a = cut < ml ? cut : ml, b = cut < rl ? cut : rl;
		char *mb = exact(end_meta, a), *rb = exact(recstats, b);
		struct fmt_meta m;

		fmt_meta_init(&m);
		if (fmt_meta_add(&m, mb, a, false) || fmt_meta_add(&m, rb, b, true) ||
		    fmt_meta_finish(&m) || m.all.n > 10 || m.rs.all.n > 19 || m.nshed > 2 ||
		    (m.trigger_ts.has && m.trigger_ts.v > 123456789))
			bad++;
		fmt_meta_release(&m);
		free(mb);
		free(rb);
	}
	CHECK(!bad, "%zu cuts went wrong", bad);
}

static void huge(void)
{
	size_t n = 1 << 20;
	char *b = malloc(n);
	struct fmt_meta m;

	if (!b)
		return;
	memcpy(b, "command_line=", 13);
	memset(b + 13, 'x', n - 13 - 11);
	memcpy(b + n - 11, "\nclock=mono", 11);
	parse(&m, b, n, NULL, 0);
	CHECK(m.all.n == 2 && strlen(m.command_line) == n - 13 - 11, "a MiB line");
	CHECK(m.clock && !strcmp(m.clock, "mono"), "the line after it");
	fmt_meta_release(&m);
	free(b);
}

/* a shipped recording through the reader (the tests run from the source tree) */
static void from_file(void)
{
	struct fmt_reader *r = NULL;
	const struct fmt_meta *m, *again;

	if (fmt_reader_open("tests/data/sample.dat", 0, &r, NULL) < 0) {
		CHECK(0, "cannot open tests/data/sample.dat");
		return;
	}
	m = fmt_reader_meta(r);
	again = fmt_reader_meta(r);
	CHECK(m && m == again, "decoded once");
	if (m) {
		CHECK(m->hostname && !strcmp(m->hostname, "vm"), "hostname");
		CHECK(m->recorder && !strncmp(m->recorder, "flytrap ", 8), "recorder");
		CHECK(m->buffer_kb.has && m->buffer_kb.v == 1410, "buffer_kb");
		CHECK(m->rs.present && m->rs.bytes_written.v == 80761, "bytes_written");
		CHECK(m->nbpf_progs > 3 && !strcmp(m->bpf_prog_names[0], "syscalls"), "progs");
	}
	fmt_reader_close(r);
}

int main(void)
{
	well_formed();
	damaged();
	shed_limits();
	unterminated();
	truncated();
	huge();
	from_file();
	return check_summary();
}
