// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writer: files written with fmt_writer_* are parsed back by an
 * independent little v7 parser in this test (not the project's reader, so
 * a shared misunderstanding cannot hide), and checked for what trace-cmd
 * and KernelShark rely on: contiguous sections from the header to EOF, the
 * OPTIONS chain from the header pointer, every section pointer landing on a
 * section of the right ID, metadata that decompresses to what was given,
 * BUFFER options for "" and the instances, CPUCOUNT, page-aligned
 * uncompressed data, and every page coming back byte for byte.  Then the
 * crash path: a child writes and SIGKILLs itself, fmt_writer_recover()
 * finishes the file and every flushed page must be there.  Then write
 * errors (ENOSPC, EFBIG) must come back as -errno with a message.
 *
 * `test_writer --emit FILE [--be] [--long4] [--none] [--chunk N]` writes a
 * synthetic file with known events for tests/compat (trace-cmd as oracle).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>

#include "format/format.h"
#include "format/compress.h"
#include "check.h"



/* ---- a synthetic event ------------------------------------------------- */

#define TEST_EVENT_ID 1000
static const char test_format[] =
	"name: flytrap_test\n"
	"ID: 1000\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 value;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq=%llu value=%u msg=%s\", REC->seq, REC->value, __get_str(msg)\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static void p16(bool be, uint8_t *p, uint16_t v) { for (int i = 0; i < 2; i++) p[be ? 1 - i : i] = (uint8_t)(v >> (8 * i)); }
static void p32(bool be, uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i)); }
static void p64(bool be, uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[be ? 7 - i : i] = (uint8_t)(v >> (8 * i)); }
static uint16_t g16(bool be, const uint8_t *p) { uint16_t v = 0; for (int i = 0; i < 2; i++) v |= (uint16_t)(p[be ? 1 - i : i] << (8 * i)); return v; }
static uint32_t g32(bool be, const uint8_t *p) { uint32_t v = 0; for (int i = 0; i < 4; i++) v |= (uint32_t)p[be ? 3 - i : i] << (8 * i); return v; }
static uint64_t g64(bool be, const uint8_t *p) { uint64_t v = 0; for (int i = 0; i < 8; i++) v |= (uint64_t)p[be ? 7 - i : i] << (8 * i); return v; }

/* payload of event seq: common fields, seq, value, msg "m<seq>" */
static uint32_t make_payload(bool be, uint8_t *buf, uint64_t seq, int pid)
{
	char msg[32];
	int n = snprintf(msg, sizeof(msg), "m%" PRIu64, seq) + 1;

	memset(buf, 0, 24);
	p16(be, buf, TEST_EVENT_ID);
	buf[2] = 0;
	buf[3] = 0;
	p32(be, buf + 4, (uint32_t)pid);
	p64(be, buf + 8, seq);
	p32(be, buf + 16, (uint32_t)(seq * 3));
	p32(be, buf + 20, (uint32_t)n << 16 | 24);
	memcpy(buf + 24, msg, (size_t)n);
	return 24 + (uint32_t)n;
}

struct wcfg {
	bool be;
	int lsize;
	const char *comp;
	int ppc;
	uint32_t page_size;
	const char *spool_dir;
};

/*
 * Pages fed to the writer, kept so the parsed file can be compared: for
 * buffer b, CPU c, a list of pages.
 */
#define NBUF 2
#define NCPU 3
struct fed {
	uint8_t *pages[NBUF][NCPU];
	int npages[NBUF][NCPU];
};

static const char *buf_names[NBUF] = { "", "flytrap" };

static int n_extra_opts;
static uint16_t extra_opt_id[8];
static const char *extra_opt_text[8];
/* --section ID=TEXT: a section of that ID (u64 size, then TEXT) and option ID pointing at it */
static int n_extra_secs;
static uint16_t extra_sec_id[4];
static const char *extra_sec_text[4];

static int emit_file(const char *path, const struct wcfg *c, int events_per_cpu, struct fed *fed,
		     bool close_it, struct fmt_writer **wout, struct fmt_wbuf **bufs_out)
{
	struct fmt_writer_opts o = { .compression = c->comp, .big_endian = c->be,
				     .long_size = c->lsize, .page_size = c->page_size,
				     .pages_per_chunk = c->ppc, .spool_dir = c->spool_dir };
	struct fmt_writer *w;
	struct fmt_wbuf *bufs[NBUF];
	struct fmt_page_enc pe;
	char hp[512];
	uint8_t payload[64];
	int err, b, cpu, hpl;
	uint64_t seq = 0;

	err = fmt_writer_open(path, &o, &w);
	if (err)
		return err;
	hpl = fmt_header_page_text(c->lsize, c->page_size, hp, sizeof(hp));
	err = fmt_writer_headers(w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_event_format(w, "flytrap", test_format, strlen(test_format));
	err = err ?: fmt_writer_kallsyms(w, "ffffffff81000000 T _stext\nffffffff81000100 T start_kernel\n", 57);
	err = err ?: fmt_writer_printk(w, "", 0);
	err = err ?: fmt_writer_cmdlines(w, "4242 flytest\n", 13);
	err = err ?: fmt_writer_option_str(w, FMT_OPT_TRACECLOCK, "[mono] local global\n");
	err = err ?: fmt_writer_option_str(w, FMT_OPT_UNAME, "Linux testhost 6.18.0 x86_64");
	err = err ?: fmt_writer_option_str(w, FMT_OPT_VERSION, "flytrap-test");
	err = err ?: fmt_writer_cpucount(w, NCPU);
	err = err ?: fmt_writer_option_str(w, FMT_OPT_FT_META, "recorder=test_writer\n");
	/* --opt ID=TEXT from the command line (DATE, OFFSET, …) */
	for (int k = 0; k < n_extra_opts && !err; k++)
		err = fmt_writer_option_str(w, extra_opt_id[k], extra_opt_text[k]);
	/* trace-cmd.dat.v7(5)'s BTF FILE and MODULES FILE sections: a u64 size, then the bytes */
	for (int k = 0; k < n_extra_secs && !err; k++) {
		size_t n = strlen(extra_sec_text[k]);
		uint8_t *sec = malloc(8 + n), ptr[8];
		uint64_t off = 0;

		if (!sec) {
			err = -ENOMEM;
			break;
		}
		for (int i = 0; i < 8; i++)
			sec[c->be ? 7 - i : i] = (uint8_t)((uint64_t)n >> (8 * i));
		memcpy(sec + 8, extra_sec_text[k], n);
		err = fmt_writer_section(w, extra_sec_id[k], NULL, sec, 8 + n, &off);
		free(sec);
		for (int i = 0; i < 8; i++)
			ptr[c->be ? 7 - i : i] = (uint8_t)(off >> (8 * i));
		err = err ?: fmt_writer_option(w, extra_sec_id[k], ptr, 8);
	}
	if (err) {
		printf("setup: %s\n", fmt_writer_error(w));
		fmt_writer_abort(w);
		return err;
	}
	for (b = 0; b < NBUF; b++) {
		err = fmt_wbuf_new(w, buf_names[b], "mono", &bufs[b]);
		if (err) {
			fmt_writer_abort(w);
			return err;
		}
	}
	fmt_page_enc_init(&pe, c->page_size, c->lsize, c->be);
	/* round-robin over (buffer, cpu) streams, one page at a time, as a recorder does */
	{
		int left[NBUF][NCPU];
		bool more = true, missed_done = false;

		for (b = 0; b < NBUF; b++)
			for (cpu = 0; cpu < NCPU; cpu++)
				left[b][cpu] = events_per_cpu / (b + 1) + cpu * 7;
		while (more) {
			more = false;
			for (b = 0; b < NBUF; b++) {
				for (cpu = 0; cpu < NCPU; cpu++) {
					const void *page;

					if (left[b][cpu] <= 0)
						continue;
					/* one page worth of records for this stream */
					while (left[b][cpu] > 0) {
						uint64_t ts = 1000000000ULL + seq * 1000 + (uint64_t)cpu;
						uint32_t len = make_payload(c->be, payload, seq, 4242);

						if (fmt_page_enc_add(&pe, ts, payload, len) == -ENOSPC)
							break;
						seq++;
						left[b][cpu]--;
					}
					/* the first page of CPU 1 reports 5 lost events */
					if (b == 0 && cpu == 1 && !missed_done) {
						fmt_page_enc_set_missed(&pe, 5);
						missed_done = true;
					}
					page = fmt_page_enc_finish(&pe);
					err = fmt_wbuf_add_page(bufs[b], cpu, page);
					if (err) {
						fmt_page_enc_release(&pe);
						if (!close_it && wout) {
							*wout = w;
							return err;
						}
						printf("add_page: %s\n", fmt_writer_error(w));
						fmt_writer_abort(w);
						return err;
					}
					if (fed) {
						int n = fed->npages[b][cpu]++;

						fed->pages[b][cpu] = realloc(fed->pages[b][cpu],
									     (size_t)(n + 1) * c->page_size);
						memcpy(fed->pages[b][cpu] + (size_t)n * c->page_size, page, c->page_size);
					}
					more = more || left[b][cpu] > 0;
				}
			}
		}
	}
	fmt_page_enc_release(&pe);
	/* a late option, as the recorder's end-of-run stats are */
	fmt_writer_cpustat(w, "", 0, "entries: 0\noverrun: 0\n");
	fmt_writer_cpustat(w, "flytrap", 0, "entries: 0\noverrun: 0\n");
	if (!close_it) {
		*wout = w;
		if (bufs_out)
			memcpy(bufs_out, bufs, sizeof(bufs));
		return 0;
	}
	err = fmt_writer_close(w);
	return err;
}

/* ---- an independent v7 parser ------------------------------------------ */

static bool host_is_be(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

struct pfile {
	uint8_t *d;
	size_t n;
	bool be;
	uint32_t page_size;
	char comp[16];
	uint64_t opt_ptr;
};

static int load(const char *path, struct pfile *f)
{
	FILE *fp = fopen(path, "rb");
	long n;

	memset(f, 0, sizeof(*f));
	if (!fp)
		return -errno;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	f->d = malloc((size_t)n + 1);
	f->n = fread(f->d, 1, (size_t)n, fp);
	fclose(fp);
	return 0;
}

/* body of the section at off (decompressed if flagged), malloc'd */
static uint8_t *section_body(struct pfile *f, uint64_t off, uint16_t id, size_t *len)
{
	uint16_t sid, fl;
	uint64_t sz;
	uint8_t *out;

	if (off + 16 > f->n)
		return NULL;
	sid = g16(f->be, f->d + off);
	fl = g16(f->be, f->d + off + 2);
	sz = g64(f->be, f->d + off + 8);
	if (sid != id || off + 16 + sz > f->n)
		return NULL;
	if (fl & 1) {
		uint32_t cs = g32(f->be, f->d + off + 16), us = g32(f->be, f->d + off + 20);

		if (8 + (uint64_t)cs != sz)
			return NULL;
		out = malloc(us + 1);
		if (fmt_decompress(f->comp, f->d + off + 24, cs, out, us)) {
			free(out);
			return NULL;
		}
		*len = us;
		return out;
	}
	out = malloc(sz + 1);
	memcpy(out, f->d + off + 16, sz);
	*len = sz;
	return out;
}

struct tix_walk {
	bool be;
	uint64_t npages, first;
};

static int tix_page(void *arg, const void *page, uint32_t page_size)
{
	struct tix_walk *t = arg;

	(void)page_size;
	if (!t->npages++)
		t->first = g64(t->be, page);
	return 0;
}

/*
 * The time index the writer stored (every file it finishes has one): an
 * entry per CPU with data whose chunks hold every page, the first stamp
 * that of the first page.
 */
static void check_tindex(const char *path)
{
	struct fmt_reader *r;
	const struct fmt_info *in;
	uint64_t nchunks = 0;
	char *msg = NULL;

	if (fmt_reader_open(path, FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &r, &msg)) {
		CHECK(0, "%s: the reader refuses it: %s", path, msg ? msg : "");
		free(msg);
		return;
	}
	in = fmt_reader_info(r);
	CHECK(fmt_reader_tindex_status(r, &nchunks) == 1 && nchunks > 0, "%s: no time index", path);
	for (int b = 0; b < in->nbuffers; b++) {
		for (int k = 0; k < in->buffers[b].ncpus; k++) {
			const struct fmt_cpu_tindex *ti;
			struct tix_walk w = { .be = in->big_endian };
			uint64_t raw = 0;
			int cpu = in->buffers[b].cpus[k].cpu;

			if (!in->buffers[b].cpus[k].size)
				continue;
			ti = fmt_reader_tindex(r, b, cpu);
			CHECK(ti != NULL, "%s: buffer %d CPU %d has no index entry", path, b, cpu);
			if (!ti)
				continue;
			fmt_reader_read_pages(r, b, cpu, tix_page, &w);
			for (uint32_t i = 0; i < ti->n; i++)
				raw += ti->chunks[i].raw;
			CHECK(raw == w.npages * in->buffers[b].page_size && ti->chunks[0].first == w.first,
			      "%s: buffer %d CPU %d: the index holds %llu bytes of pages from %llu, the data "
			      "%llu pages from %llu", path, b, cpu, (unsigned long long)raw,
			      (unsigned long long)ti->chunks[0].first, (unsigned long long)w.npages,
			      (unsigned long long)w.first);
		}
	}
	fmt_reader_close(r);
}

static void verify_file(const char *path, const struct wcfg *c, struct fed *fed, bool recovered,
			int min_pages[NBUF][NCPU])
{
	struct pfile f;
	struct stat st;
	size_t p;
	uint64_t off, next;
	int nopt_sections = 0, nbufopts = 0, cpucount = -1, i;
	uint64_t ptr[32] = { 0 };
	bool saw_meta = false, saw_recovered = false, saw_top = false, saw_strings = false;

	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "%s: mode %o", path, st.st_mode & 0777);
	if (load(path, &f)) {
		CHECK(0, "cannot load %s", path);
		return;
	}
	CHECK(f.n > 32 && !memcmp(f.d, "\x17\x08\x44tracing7\0", 12), "%s: magic", path);
	f.be = f.d[12] == 1;
	CHECK(f.be == c->be, "endian byte %d", f.d[12]);
	CHECK(f.d[13] == c->lsize, "long byte %d", f.d[13]);
	f.page_size = g32(f.be, f.d + 14);
	CHECK(f.page_size == c->page_size, "page size %u", f.page_size);
	p = 18;
	snprintf(f.comp, sizeof(f.comp), "%s", (char *)f.d + p);
	CHECK(!strcmp(f.comp, c->comp ? c->comp : "zstd"), "compression '%s'", f.comp);
	p += strlen((char *)f.d + p) + 1;
	CHECK(!strcmp(f.comp, "none") ? f.d[p] == 0 : strlen((char *)f.d + p) > 0, "compression version");
	p += strlen((char *)f.d + p) + 1;
	f.opt_ptr = g64(f.be, f.d + p);
	p += 8;

	/* sections are contiguous from the header to EOF (the STRINGS walk) */
	for (off = p; off + 16 <= f.n;) {
		uint64_t sz = g64(f.be, f.d + off + 8);

		if (g16(f.be, f.d + off) == FMT_OPT_STRINGS)
			saw_strings = true;
		if (off + 16 + sz > f.n)
			break;
		off += 16 + sz;
	}
	CHECK(off == f.n, "%s: section walk stops at %" PRIu64 " of %zu", path, off, f.n);
	CHECK(saw_strings, "no STRINGS section");

	/* the options chain */
	for (next = f.opt_ptr; next; ) {
		size_t len = 0, q = 0;
		uint8_t *body = section_body(&f, next, 0, &len);

		CHECK(body != NULL, "options section at %" PRIu64, next);
		if (!body)
			break;
		nopt_sections++;
		next = 0;
		while (q + 6 <= len) {
			uint16_t id = g16(f.be, body + q);
			uint32_t sz = g32(f.be, body + q + 2);
			uint8_t *d = body + q + 6;

			if (q + 6 + sz > len) {
				CHECK(0, "option %u overruns its section", id);
				break;
			}
			if (id == FMT_OPT_DONE) {
				CHECK(sz == 8, "DONE size %u", sz);
				next = g64(f.be, d);
				CHECK(q + 14 == len, "DONE is not last");
				break;
			}
			if (id >= FMT_OPT_HEADER_INFO && id <= FMT_OPT_CMDLINES) {
				CHECK(sz == 8, "pointer option size");
				ptr[id] = g64(f.be, d);
			}
			if (id == FMT_OPT_CPUCOUNT)
				cpucount = (int)g32(f.be, d);
			if (id == FMT_OPT_FT_META) {
				saw_meta = true;
				if (strstr((char *)d, "recovered=1"))
					saw_recovered = true;
			}
			if (id == FMT_OPT_BUFFER) {
				uint64_t soff = g64(f.be, d);
				char *name = (char *)d + 8, *clock = name + strlen(name) + 1;
				uint8_t *x = (uint8_t *)clock + strlen(clock) + 1;
				uint32_t ps = g32(f.be, x), ncpu = g32(f.be, x + 4), k;
				int b = -1;

				nbufopts++;
				for (i = 0; i < NBUF; i++)
					if (!strcmp(name, buf_names[i]))
						b = i;
				if (!*name)
					saw_top = true;
				CHECK(b >= 0, "unknown buffer '%s'", name);
				CHECK(!strcmp(clock, "mono"), "buffer clock '%s'", clock);
				CHECK(ps == c->page_size, "buffer page size %u", ps);
				CHECK(soff + 16 <= f.n && g16(f.be, f.d + soff) == FMT_OPT_BUFFER,
				      "BUFFER option points at %" PRIu64, soff);
				CHECK((g16(f.be, f.d + soff + 2) & 1) == (strcmp(f.comp, "none") ? 1 : 0),
				      "BUFFER section flag");
				for (k = 0; k < ncpu && b >= 0; k++) {
					uint8_t *e = x + 8 + k * 20;
					uint32_t cpu = g32(f.be, e);
					uint64_t doff = g64(f.be, e + 4), dsz = g64(f.be, e + 12);
					uint8_t *pages = NULL;
					size_t np = 0;

					CHECK(cpu < NCPU, "cpu %u", cpu);
					if (cpu >= NCPU)
						continue;
					CHECK(doff > soff && doff + dsz <= f.n, "cpu data outside the file");
					if (doff + dsz > f.n || doff + 4 > f.n)
						continue;
					if (!strcmp(f.comp, "none")) {
						CHECK(doff % c->page_size == 0, "uncompressed data at %" PRIu64 " not page aligned", doff);
						CHECK(dsz % c->page_size == 0, "uncompressed size");
						pages = malloc(dsz + 1);
						memcpy(pages, f.d + doff, dsz);
						np = dsz / c->page_size;
					} else {
						uint32_t nch = g32(f.be, f.d + doff), ch;
						uint64_t q2 = doff + 4;

						for (ch = 0; ch < nch; ch++) {
							uint32_t cs, us;

							if (q2 + 8 > f.n || q2 + 8 + g32(f.be, f.d + q2) > f.n) {
								CHECK(0, "chunk %u outside the file", ch);
								break;
							}
							cs = g32(f.be, f.d + q2);
							us = g32(f.be, f.d + q2 + 4);

							CHECK(us % c->page_size == 0 && us / c->page_size <= (uint32_t)c->ppc,
							      "chunk usize %u", us);
							pages = realloc(pages, np * c->page_size + us);
							CHECK(fmt_decompress("zstd", f.d + q2 + 8, cs,
									     pages + np * c->page_size, us) == 0,
							      "chunk %u decompress", ch);
							np += us / c->page_size;
							q2 += 8 + cs;
						}
						CHECK(q2 - doff - 4 == dsz, "cpu data size %" PRIu64 " vs %" PRIu64,
						      dsz, q2 - doff - 4);
					}
					if (fed) {
						int want = fed->npages[b][cpu];

						if (recovered) {
							CHECK((int)np >= min_pages[b][cpu] && (int)np <= want,
							      "buffer %d cpu %u: %zu pages, expected %d..%d", b, cpu, np,
							      min_pages[b][cpu], want);
						} else {
							CHECK((int)np == want, "buffer %d cpu %u: %zu pages, fed %d", b,
							      cpu, np, want);
						}
						CHECK(np == 0 || !memcmp(pages, fed->pages[b][cpu], np * c->page_size),
						      "buffer %d cpu %u: pages differ", b, cpu);
					}
					free(pages);
				}
			}
			q += 6 + sz;
		}
		free(body);
	}
	CHECK(nopt_sections >= 2, "only %d options sections", nopt_sections);
	CHECK(nbufopts == NBUF, "%d BUFFER options", nbufopts);
	CHECK(saw_top, "no BUFFER option for the top buffer");
	CHECK(cpucount == NCPU, "CPUCOUNT %d", cpucount);
	CHECK(saw_meta, "flytrap META option missing");
	CHECK(saw_recovered == recovered, "recovered marker %d", saw_recovered);
	for (i = FMT_OPT_HEADER_INFO; i <= FMT_OPT_CMDLINES; i++) {
		size_t len = 0;
		uint8_t *body = section_body(&f, ptr[i], (uint16_t)i, &len);

		CHECK(ptr[i] && body, "section %d via its option (offset %" PRIu64 ")", i, ptr[i]);
		if (body && i == FMT_OPT_EVENT_FORMATS) {
			CHECK(g32(f.be, body) == 1 && !strcmp((char *)body + 4, "flytrap") &&
			      g32(f.be, body + 12) == 1 && g64(f.be, body + 16) == strlen(test_format) &&
			      !memcmp(body + 24, test_format, strlen(test_format)), "event formats body");
		}
		if (body && i == FMT_OPT_HEADER_INFO)
			CHECK(!memcmp(body, "header_page\0", 12), "headers body");
		if (body && i == FMT_OPT_CMDLINES)
			CHECK(g64(f.be, body) == 13 && !memcmp(body + 8, "4242 flytest\n", 13), "cmdlines body");
		free(body);
	}
	free(f.d);
	check_tindex(path);
}

static void free_fed(struct fed *fed)
{
	for (int b = 0; b < NBUF; b++)
		for (int c = 0; c < NCPU; c++)
			free(fed->pages[b][c]);
	memset(fed, 0, sizeof(*fed));
}

static int count_spools(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".spool."))
			n++;
	closedir(d);
	return n;
}

static char tmpdir[] = "/tmp/flytrap-writer.XXXXXX";

/*
 * The temporary file a writer of path left (".BASE.XXXXXXXXXXXX" beside
 * it, not a spool): this test's own directory, so the one there is ours.
 */
static bool temp_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');
	char dir[256], want[256];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(want, sizeof(want), ".%s.", slash + 1);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, want, strlen(want)) && !strstr(e->d_name, ".spool.") &&
		    strlen(e->d_name) == strlen(want) + 12) {
			snprintf(out, n, "%s/%s", dir, e->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

static void test_roundtrip(const struct wcfg *c, int events)
{
	struct fed fed = { 0 };
	char path[256];
	int err;

	snprintf(path, sizeof(path), "%s/rt-%s-%s-%d-%d.dat", tmpdir, c->be ? "be" : "le",
		 c->comp ? c->comp : "zstd", c->lsize, c->ppc);
	{
		/* a spool left by an earlier, killed writer of the same output */
		char stale[300];
		FILE *sf;

		snprintf(stale, sizeof(stale), "%s/.%s.spool.7.5", c->spool_dir ? c->spool_dir : tmpdir,
			 strrchr(path, '/') + 1);
		sf = fopen(stale, "w");
		if (sf) {
			fputs("FTSPOOL1 stale", sf);
			fclose(sf);
		}
	}
	err = emit_file(path, c, events, &fed, true, NULL, NULL);
	CHECK(err == 0, "%s: write: %d", path, err);
	if (!err)
		verify_file(path, c, &fed, false, NULL);
	{
		/* another writer's spool is not ours to remove: names are unique now */
		char stale[300], t[300];

		snprintf(stale, sizeof(stale), "%s/.%s.spool.7.5", c->spool_dir ? c->spool_dir : tmpdir,
			 strrchr(path, '/') + 1);
		CHECK(access(stale, F_OK) == 0, "a spool of another writer was removed");
		unlink(stale);
		CHECK(!temp_of(path, t, sizeof(t)), "temporary file '%s' left after close", t);
	}
	CHECK(count_spools(tmpdir) == 0, "spools left after close");
	free_fed(&fed);
}

static int read_whole(const char *path, uint8_t **out, size_t *len)
{
	struct pfile f;
	int err = load(path, &f);

	*out = f.d;
	*len = f.n;
	return err;
}

static int write_whole(const char *path, const uint8_t *d, size_t n, bool keep_inode)
{
	/* O_TRUNC keeps the inode, which recovery matches spools against */
	int fd = open(path, O_WRONLY | O_CREAT | (keep_inode ? O_TRUNC : O_TRUNC | O_EXCL), 0600);
	bool ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, d, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -EIO;
}

/*
 * A writer killed mid-recording: a child writes, flushes, writes more
 * and SIGKILLs itself.  Recovery must keep every page up to the flush.
 */
static void test_recover(const struct wcfg *c)
{
	struct fed fed = { 0 };
	char path[256], *msg = NULL, tp[300], planted[330], fifo[330], victim[300];
	int min_pages[NBUF][NCPU], status, err, pfd[2];
	pid_t pid;
	const char *sdir = c->spool_dir ? c->spool_dir : tmpdir;

	snprintf(path, sizeof(path), "%s/crash-%s%s.dat", tmpdir, c->comp ? c->comp : "zstd",
		 c->spool_dir ? "-sd" : "");
	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		struct fmt_writer *w = NULL;
		struct fmt_wbuf *bufs[NBUF];

		close(pfd[0]);
		/* no close: the writer is still open when the process dies */
		if (emit_file(path, c, 400, &fed, false, &w, bufs))
			_exit(3);
		for (int b = 0; b < NBUF; b++)
			fmt_wbuf_flush(bufs[b]);
		/* tell the parent what was fed, then add pages that stay unflushed */
		for (int b = 0; b < NBUF; b++)
			for (int k = 0; k < NCPU; k++) {
				if (write(pfd[1], &fed.npages[b][k], sizeof(int)) != sizeof(int) ||
				    (fed.npages[b][k] &&
				     write(pfd[1], fed.pages[b][k], (size_t)fed.npages[b][k] * c->page_size) < 0))
					_exit(4);
			}
		close(pfd[1]);
		for (int k = 0; k < c->ppc - 1; k++)
			fmt_wbuf_add_page(bufs[0], 0, fed.pages[0][0]);
		kill(getpid(), SIGKILL);
		_exit(5);
	}
	close(pfd[1]);
	for (int b = 0; b < NBUF; b++)
		for (int k = 0; k < NCPU; k++) {
			int n = 0;
			size_t want, got = 0;

			if (read(pfd[0], &n, sizeof(n)) != sizeof(n))
				break;
			fed.npages[b][k] = n;
			want = (size_t)n * c->page_size;
			fed.pages[b][k] = malloc(want + 1);
			while (got < want) {
				ssize_t r = read(pfd[0], fed.pages[b][k] + got, want - got);

				if (r <= 0)
					break;
				got += (size_t)r;
			}
			min_pages[b][k] = n;
		}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child did not die by SIGKILL (%d)", status);
	CHECK(count_spools(sdir) > 0, "no spools after the crash");
	/* nothing complete-looking at the destination: the data is under the temporary name */
	CHECK(access(path, F_OK) != 0, "'%s' exists after the crash", path);
	if (!temp_of(path, tp, sizeof(tp))) {
		CHECK(0, "no temporary file of '%s' after the crash", path);
		free_fed(&fed);
		return;
	}
	{
		/*
		 * Names another user could plant beside it: a link to a file of
		 * ours and a FIFO (an open that blocked would hang recovery).
		 * Neither is followed, read or removed.
		 */
		snprintf(planted, sizeof(planted), "%s.spool.9.9", tp);
		snprintf(fifo, sizeof(fifo), "%s.spool.8.8", tp);
		snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
		write_whole(victim, (const uint8_t *)"precious\n", 9, false);
		CHECK(symlink(victim, planted) == 0, "symlink");
		CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
	}
	err = fmt_writer_recover(tp, &msg);
	CHECK(err == 0, "recover: %d %s", err, msg ? msg : "");
	free(msg);
	if (!err)
		verify_file(tp, c, &fed, true, min_pages);
	{
		uint8_t *v = NULL;
		size_t vn = 0;
		struct stat st;

		CHECK(lstat(planted, &st) == 0 && S_ISLNK(st.st_mode), "planted link removed");
		CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "planted FIFO removed");
		CHECK(!read_whole(victim, &v, &vn) && vn == 9 && !memcmp(v, "precious\n", 9),
		      "the link's target changed");
		free(v);
		unlink(planted);
		unlink(fifo);
		unlink(victim);
	}
	CHECK(count_spools(sdir) == 0, "spools left after recover");
	/* recovering a complete file is a no-op that succeeds */
	msg = NULL;
	err = fmt_writer_recover(tp, &msg);
	CHECK(err == 1, "second recover: %d %s", err, msg ? msg : "");
	free(msg);
	/* then it goes where the writer would have put it */
	err = fmt_outfile_place(tp, path, false, 0, 0);
	CHECK(err == 0, "place '%s' at '%s': %d", tp, path, err);
	if (!err)
		verify_file(path, c, &fed, true, min_pages);
	free_fed(&fed);
}

/*
 * A chunk damaged in a dead writer's spool (its zstd frame's magic flipped)
 * is skipped by the readers of the recovered file as a loss with its time
 * window, not where they stop: recovery gives it a checksum it fails, and
 * the events after it on that CPU are read.
 */
static void test_recover_damaged(const struct wcfg *c)
{
	struct fed fed = { 0 };
	char path[256], tp[300], spool[330], *msg = NULL, *oerr = NULL;
	struct fmt_reader *r = NULL;
	struct fmt_iter *it = NULL;
	const struct fmt_event *ev;
	int status, err, rc, n0 = 0, nother = 0, skips = 0, fd;
	uint32_t hdr = 0;
	uint8_t b;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/damaged.dat", tmpdir);
	pid = fork();
	if (pid == 0) {
		struct fmt_writer *w = NULL;
		struct fmt_wbuf *bufs[NBUF];

		if (emit_file(path, c, 3000, &fed, false, &w, bufs))
			_exit(3);
		for (int k = 0; k < NBUF; k++)
			fmt_wbuf_flush(bufs[k]);
		kill(getpid(), SIGKILL);
		_exit(5);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status), "damaged: child did not die (%d)", status);
	if (!temp_of(path, tp, sizeof(tp))) {
		CHECK(0, "damaged: no temporary file");
		return;
	}
	/* the first chunk of buffer 0, CPU 0: {u32 csize, u32 usize, frame} after the header */
	snprintf(spool, sizeof(spool), "%s.spool.0.0", tp);
	fd = open(spool, O_RDWR);
	CHECK(fd >= 0 && pread(fd, &hdr, 4, 8) == 4 && hdr > 52, "damaged: spool header of '%s'", spool);
	if (fd >= 0 && pread(fd, &b, 1, (off_t)hdr + 9) == 1) {
		b ^= 0xff;
		CHECK(pwrite(fd, &b, 1, (off_t)hdr + 9) == 1, "damaged: cannot damage the spool");
	}
	if (fd >= 0)
		close(fd);
	err = fmt_writer_recover(tp, &msg);
	CHECK(err == 0, "damaged: recover: %d %s", err, msg ? msg : "");
	free(msg);
	err = err ? err : fmt_reader_open(tp, 0, &r, &oerr);
	CHECK(err == 0, "damaged: open the recovered file: %s", oerr ? oerr : "");
	free(oerr);
	if (!err && !fmt_iter_new(r, NULL, &it)) {
		while ((rc = fmt_iter_next(it, &ev)) != 0) {
			if (rc < 0) {
				skips += strstr(fmt_reader_error(r), "fail their checksum") != NULL;
				continue;
			}
			if (ev->buffer == 0 && ev->rec.cpu == 0)
				n0++;
			else
				nother++;
		}
		fmt_iter_free(it);
	}
	CHECK(skips == 1, "damaged: %d checksum skips reported (%s)", skips, r ? fmt_reader_error(r) : "");
	CHECK(n0 > 0 && n0 < 3000, "damaged: %d events of CPU 0 after the damaged chunk", n0);
	/* (the pages still in the encoders when the writer died are not in the spools) */
	CHECK(nother > 3 * 3000, "damaged: the other CPUs' events: %d", nother);
	printf("recover: a damaged spool chunk skipped, %d of 3000 events of its CPU read after it\n", n0);
	fmt_reader_close(r);
	unlink(tp);
	free_fed(&fed);
}

/* ---- the iterator's no_peek mode ------------------------------------------ */

/*
 * no_peek hands out the streams' own events instead of a copy: the same
 * events in the same order, and a peek refused rather than moving the
 * stream under the event the caller holds.
 */
static void test_no_peek(const struct wcfg *c)
{
	struct fed fed = { 0 };
	struct fmt_iter_opts np = { .no_peek = true };
	struct fmt_reader *r1 = NULL, *r2 = NULL;
	struct fmt_iter *i1 = NULL, *i2 = NULL;
	const struct fmt_event *e1, *e2;
	char path[256], *oerr = NULL;
	long n = 0, bad = 0;
	int rc1, rc2, err;

	snprintf(path, sizeof(path), "%s/no-peek.dat", tmpdir);
	err = emit_file(path, c, 2000, &fed, true, NULL, NULL);
	CHECK(err == 0, "no_peek: write: %d", err);
	free_fed(&fed);
	err = err ?: fmt_reader_open(path, 0, &r1, &oerr);
	err = err ?: fmt_reader_open(path, 0, &r2, &oerr);
	CHECK(err == 0, "no_peek: open: %s", oerr ? oerr : "");
	free(oerr);
	err = err ?: fmt_iter_new(r1, NULL, &i1);
	err = err ?: fmt_iter_new(r2, &np, &i2);
	CHECK(err == 0, "no_peek: iterators: %d", err);
	while (!err) {
		rc1 = fmt_iter_next(i1, &e1);
		rc2 = fmt_iter_next(i2, &e2);
		if (rc1 != rc2) {
			bad++;
			break;
		}
		if (rc1 <= 0)
			break;
		n++;
		if (e1->rec.ts != e2->rec.ts || e1->rec.cpu != e2->rec.cpu || e1->buffer != e2->buffer ||
		    e1->rec.size != e2->rec.size || e1->rec.missed_events != e2->rec.missed_events ||
		    memcmp(e1->rec.data, e2->rec.data, (size_t)e1->rec.size))
			bad++;
		if (n == 100)
			CHECK(fmt_iter_peek(i2, e2->buffer, &e2) == -EINVAL, "no_peek: a peek was not refused");
	}
	CHECK(!err && n > 2000 && !bad, "no_peek: %ld events, %ld differ", n, bad);
	fmt_iter_free(i1);
	fmt_iter_free(i2);
	fmt_reader_close(r1);
	fmt_reader_close(r2);
	unlink(path);
}

/* ---- recovery from every crash point ----------------------------------- */

/*
 * A finished file cut short (copied half-way, say) has no spools: its
 * chunks are in the file.  Recovery must refuse and leave every byte.
 */
static void test_recover_finished_cut(const struct wcfg *c)
{
	struct fed fed = { 0 };
	char path[256], *msg = NULL;
	uint8_t *d = NULL, *after = NULL;
	size_t n = 0, m = 0;
	int err;

	snprintf(path, sizeof(path), "%s/finished-cut.dat", tmpdir);
	err = emit_file(path, c, 1000, &fed, true, NULL, NULL);
	CHECK(err == 0, "finished-cut: write: %d", err);
	free_fed(&fed);
	if (err || read_whole(path, &d, &n))
		return;
	write_whole(path, d, n * 9 / 10, true);
	err = fmt_writer_recover(path, &msg);
	CHECK(err < 0 && msg && strstr(msg, "no spool files"), "finished-cut: recover gave %d '%s'",
	      err, msg ? msg : "");
	free(msg);
	CHECK(!read_whole(path, &after, &m) && m == n * 9 / 10 && !memcmp(after, d, m),
	      "finished-cut: recover changed the file (%zu of %zu bytes left)", m, n * 9 / 10);
	free(after);
	free(d);
	unlink(path);
}

/* Section walk and BUFFER option count of a finished file; -1 if the walk fails. */
/* ---- the compression pool and concurrent adders ------------------------- */

#define POOL_CPUS 4
#define POOL_PAGES 2000

struct pool_feed {
	struct fmt_wbuf *b;
	int cpu;
	uint8_t *pages;		/* POOL_PAGES pages of 4096 */
	int err;
};

static void *pool_adder(void *arg)
{
	struct pool_feed *f = arg;

	for (int i = 0; i < POOL_PAGES && !f->err; i++)
		f->err = fmt_wbuf_add_page(f->b, f->cpu, f->pages + (size_t)i * 4096);
	return NULL;
}

/*
 * The same pages written with one compression thread and one adder, and
 * with four threads and one adder thread per CPU: the same bytes.
 */
static int pool_write(const char *path, uint8_t **pages, int threads, bool concurrent)
{
	struct fmt_writer_opts o = { .page_size = 4096, .long_size = 8, .threads = threads };
	struct pool_feed f[POOL_CPUS];
	pthread_t th[POOL_CPUS];
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	char hp[512];
	int err, hpl = fmt_header_page_text(8, 4096, hp, sizeof(hp));

	if ((err = fmt_writer_open(path, &o, &w)))
		return err;
	err = fmt_writer_headers(w, hp, (size_t)hpl, header_event, strlen(header_event));
	err = err ?: fmt_writer_event_format(w, "flytrap", test_format, strlen(test_format));
	err = err ?: fmt_writer_cpucount(w, POOL_CPUS);
	err = err ?: fmt_wbuf_new(w, "", "mono", &b);
	err = err ?: fmt_wbuf_add_cpus(b, POOL_CPUS);
	for (int c = 0; c < POOL_CPUS && !err; c++)
		f[c] = (struct pool_feed){ b, c, pages[c], 0 };
	if (!err && concurrent) {
		int started = 0;

		for (int c = 0; c < POOL_CPUS; c++)
			started += !pthread_create(&th[c], NULL, pool_adder, &f[c]);
		CHECK(started == POOL_CPUS, "adder threads: %d started", started);
		for (int c = 0; c < started; c++)
			pthread_join(th[c], NULL);
	} else if (!err) {
		/* interleaved as one capture thread would */
		for (int i = 0; i < POOL_PAGES && !err; i++)
			for (int c = 0; c < POOL_CPUS && !err; c++)
				err = fmt_wbuf_add_page(b, c, pages[c] + (size_t)i * 4096);
	}
	for (int c = 0; c < POOL_CPUS && !err; c++)
		err = f[c].err;
	if (err) {
		printf("pool_write: %s\n", fmt_writer_error(w));
		fmt_writer_abort(w);
		return err;
	}
	return fmt_writer_close(w);
}

static void test_pool(void)
{
	struct fmt_page_enc pe;
	uint8_t *pages[POOL_CPUS], payload[64], *a = NULL, *b = NULL;
	char pa[300], pb[300];
	size_t la = 0, lb = 0;
	uint64_t seq = 0;

	fmt_page_enc_init(&pe, 4096, 8, false);
	for (int c = 0; c < POOL_CPUS; c++) {
		pages[c] = malloc((size_t)POOL_PAGES * 4096);
		for (int i = 0; i < POOL_PAGES; i++) {
			/*
			 * Chunks (10 pages) alternate between full pages of varied
			 * bytes and one event a page, so one compresses much more slowly
			 * than the next and a thread finishing early must wait its turn.
			 */
			int full = (i / 10) % 2 == 0;

			for (int e = 0; e < (full ? 1000 : 1); e++, seq++) {
				uint32_t len = make_payload(false, payload, seq, 4242 + c);

				for (uint32_t k = 24; full && k + 8 <= len; k += 8) {
					uint64_t x = seq * 0x9E3779B97F4A7C15ULL + k;

					memcpy(payload + k, &x, 8);
				}
				if (fmt_page_enc_add(&pe, 1000000000ULL + seq * 100 + (uint64_t)c, payload,
						     len) == -ENOSPC)
					break;
			}
			memcpy(pages[c] + (size_t)i * 4096, fmt_page_enc_finish(&pe), 4096);
		}
	}
	fmt_page_enc_release(&pe);
	/* the digest fed while writing must equal the file read back */
	setenv("FLYTRAP_TEST_DIGEST", "check", 1);
	snprintf(pa, sizeof(pa), "%s/pool1.dat", tmpdir);
	snprintf(pb, sizeof(pb), "%s/pool4.dat", tmpdir);
	CHECK(pool_write(pa, pages, 1, false) == 0, "one thread");
	CHECK(pool_write(pb, pages, 4, true) == 0, "four threads, concurrent adders");
	CHECK(read_whole(pa, &a, &la) == 0 && read_whole(pb, &b, &lb) == 0, "read back");
	CHECK(la && la == lb && !memcmp(a, b, la), "the pool's file differs (%zu / %zu bytes)", la, lb);
	free(b);
	b = NULL;
	CHECK(pool_write(pb, pages, 3, false) == 0, "three threads, one adder");
	CHECK(read_whole(pb, &b, &lb) == 0 && la == lb && !memcmp(a, b, la), "three threads differ");
	CHECK(count_spools(tmpdir) == 0, "spools left by the pool");
	unsetenv("FLYTRAP_TEST_DIGEST");
	free(a);
	free(b);
	for (int c = 0; c < POOL_CPUS; c++)
		free(pages[c]);
	unlink(pa);
	unlink(pb);
}

static int light_check(const char *path)
{
	struct pfile f;
	size_t p;
	uint64_t off, next;
	int nbuf = 0;

	if (load(path, &f))
		return -1;
	f.be = f.d[12] == 1;
	p = 18;
	snprintf(f.comp, sizeof(f.comp), "%s", (char *)f.d + p);
	p += strlen((char *)f.d + p) + 1;
	p += strlen((char *)f.d + p) + 1;
	f.opt_ptr = g64(f.be, f.d + p);
	for (off = p + 8; off + 16 <= f.n; off += 16 + g64(f.be, f.d + off + 8))
		if (off + 16 + g64(f.be, f.d + off + 8) > f.n)
			break;
	if (off != f.n) {
		free(f.d);
		return -1;
	}
	for (next = f.opt_ptr; next;) {
		size_t len = 0, q = 0;
		uint8_t *body = section_body(&f, next, 0, &len);

		if (!body) {
			nbuf = -1;
			break;
		}
		next = 0;
		while (q + 6 <= len) {
			uint16_t id = g16(f.be, body + q);
			uint32_t sz = g32(f.be, body + q + 2);

			if (q + 6 + sz > len)
				break;
			if (id == FMT_OPT_BUFFER)
				nbuf++;
			if (id == FMT_OPT_DONE)
				next = g64(f.be, body + q + 6);
			q += 6 + sz;
		}
		free(body);
	}
	free(f.d);
	return nbuf;
}

/*
 * The output cut at every section boundary (and one byte after, and in
 * the middle), with the spools intact, and spools with a torn last chunk:
 * recovery either finishes a file trace-cmd can walk, with both buffers,
 * or says the headers are missing; it never crashes or leaves spools.
 */
static void test_recover_cuts(const struct wcfg *c)
{
	char path[256], *msg = NULL, sp[64][300];
	uint8_t *out = NULL, *spool[64] = { 0 };
	size_t outlen = 0, splen[64] = { 0 };
	int nsp = 0, status, trials = 0, oks = 0;
	uint64_t cuts[256];
	int ncuts = 0;
	pid_t pid;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/cuts.dat", tmpdir);
	pid = fork();
	if (pid == 0) {
		struct fmt_writer *w = NULL;
		struct fmt_wbuf *bufs[NBUF];

		if (emit_file(path, c, 300, NULL, false, &w, bufs))
			_exit(3);
		for (int b = 0; b < NBUF; b++)
			fmt_wbuf_flush(bufs[b]);
		kill(getpid(), SIGKILL);
		_exit(5);
	}
	waitpid(pid, &status, 0);
	/* the output is the writer's temporary file until close */
	if (!temp_of(path, path, sizeof(path)) || read_whole(path, &out, &outlen)) {
		CHECK(0, "no output after the crash");
		return;
	}
	d = opendir(tmpdir);
	while (d && (e = readdir(d)) && nsp < 64) {
		if (!strstr(e->d_name, "cuts.dat.") || !strstr(e->d_name, ".spool."))
			continue;
		snprintf(sp[nsp], sizeof(sp[nsp]), "%s/%s", tmpdir, e->d_name);
		read_whole(sp[nsp], &spool[nsp], &splen[nsp]);
		nsp++;
	}
	if (d)
		closedir(d);
	CHECK(nsp == NBUF * NCPU, "%d spools after the crash", nsp);

	/* cut points: each section boundary, +1, and the middle of each section */
	{
		bool be = out[12] == 1;
		size_t p = 18;
		uint64_t off;

		p += strlen((char *)out + p) + 1;
		p += strlen((char *)out + p) + 1;
		for (off = p + 8; off + 16 <= outlen && ncuts < 250;) {
			uint64_t sz = g64(be, out + off + 8);

			cuts[ncuts++] = off;
			cuts[ncuts++] = off + 1;
			cuts[ncuts++] = off + 16 + sz / 2;
			off += 16 + sz;
		}
		cuts[ncuts++] = outlen;
		cuts[ncuts++] = 5;
	}
	for (int t = 0; t <= ncuts; t++) {
		bool torn = t == ncuts;	/* last trial: whole output, spools with torn tails */
		uint64_t cut = torn ? outlen : cuts[t];
		int err, nb;

		if (cut > outlen)
			continue;
		write_whole(path, out, cut, true);
		for (int k = 0; k < nsp; k++) {
			size_t n = splen[k];

			if (torn && k % 2 == 0 && n > 100)
				n -= 5;		/* a chunk cut short by the kill */
			unlink(sp[k]);
			write_whole(sp[k], spool[k], n, false);
		}
		msg = NULL;
		err = fmt_writer_recover(path, &msg);
		trials++;
		if (err) {
			CHECK(msg && (strstr(msg, "headers") || strstr(msg, "version 7") ||
				      strstr(msg, "header")), "cut at %" PRIu64 ": error %d '%s'", cut, err,
			      msg ? msg : "");
		} else {
			oks++;
			nb = light_check(path);
			CHECK(nb == NBUF, "cut at %" PRIu64 ": recovered file has %d BUFFER options", cut, nb);
			CHECK(count_spools(tmpdir) == 0, "cut at %" PRIu64 ": spools left", cut);
		}
		free(msg);
		/* a failed recovery keeps the spools; clear them for the next trial */
		for (int k = 0; k < nsp; k++)
			unlink(sp[k]);
	}
	CHECK(oks > trials / 2, "only %d of %d cut points recovered", oks, trials);
	printf("recovery: %d cut points, %d recovered, the rest refused cleanly\n", trials, oks);
	unlink(path);
	free(out);
	for (int k = 0; k < nsp; k++)
		free(spool[k]);
}

static void test_errors(void)
{
	struct fmt_writer *w = NULL;
	struct fmt_writer_opts o = { .spool_dir = tmpdir };
	struct wcfg c = { false, 8, "zstd", 10, 4096 };
	char path[256], *msg = NULL;
	int err, status;
	pid_t pid;

	/* a device, a FIFO or a directory is refused, never written into or replaced */
	{
		const char *why = NULL;
		char fifo[300];
		struct stat st;

		if (access("/dev/full", W_OK) == 0) {
			err = fmt_writer_open("/dev/full", &o, &w);
			CHECK(err == -EINVAL, "/dev/full: %d", err);
			CHECK(fmt_outfile_check("/dev/full", &why) == -EINVAL && why &&
			      !strcmp(why, "it is a device"), "/dev/full: %s", why ? why : "accepted");
		}
		snprintf(fifo, sizeof(fifo), "%s/fifo.dat", tmpdir);
		CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
		CHECK(fmt_writer_open(fifo, &o, &w) == -EINVAL, "FIFO accepted");
		CHECK(fmt_outfile_check(fifo, &why) == -EINVAL && why && !strcmp(why, "it is a FIFO"),
		      "FIFO: %s", why ? why : "accepted");
		CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
		unlink(fifo);
		CHECK(fmt_writer_open(tmpdir, &o, &w) == -EISDIR, "directory accepted");
		CHECK(fmt_outfile_check(tmpdir, &why) == -EISDIR && why && strstr(why, "directory"),
		      "directory: %s", why ? why : "accepted");
		CHECK(fmt_outfile_check("x/", &why) == -EISDIR, "a name ending in / accepted");
	}
	/* a link at the destination is replaced by the file, its target left as it was */
	{
		char target[300], link_[300];
		struct wcfg lc = { false, 8, "zstd", 10, 4096 };
		uint8_t *v = NULL;
		size_t vn = 0;
		struct stat st;

		snprintf(target, sizeof(target), "%s/target", tmpdir);
		snprintf(link_, sizeof(link_), "%s/link.dat", tmpdir);
		write_whole(target, (const uint8_t *)"keep me\n", 8, false);
		CHECK(symlink(target, link_) == 0, "symlink");
		err = emit_file(link_, &lc, 50, NULL, true, NULL, NULL);
		CHECK(err == 0, "write through a planted link's name: %d", err);
		CHECK(lstat(link_, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
		      "the output is not a regular file of mode 0600 (mode %o)", (unsigned)st.st_mode);
		CHECK(!read_whole(target, &v, &vn) && vn == 8 && !memcmp(v, "keep me\n", 8),
		      "the link's target was written");
		free(v);
		unlink(target);
		unlink(link_);
	}
	o.compression = "lz4";
	snprintf(path, sizeof(path), "%s/bad.dat", tmpdir);
	CHECK(fmt_writer_open(path, &o, &w) == -EOPNOTSUPP, "lz4 accepted");
	o.compression = NULL;
	o.long_size = 3;
	CHECK(fmt_writer_open(path, &o, &w) == -EINVAL, "long size 3 accepted");
	unlink(path);

	/*
	 * EFBIG while close() copies the spools into the output: the error
	 * comes back, the spools are kept, and once the limit is gone
	 * fmt_writer_recover() finishes the file.
	 */
	snprintf(path, sizeof(path), "%s/big.dat", tmpdir);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 200000, 200000 };
		struct fmt_writer *cw = NULL;
		int e;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		e = emit_file(path, &c, 8000, NULL, false, &cw, NULL);
		if (e) {
			printf("EFBIG while adding pages: %d %s\n", e, fmt_writer_error(cw));
			fmt_writer_abort(cw);
			_exit(10);
		}
		e = fmt_writer_close(cw);
		printf("EFBIG case: %d\n", e);
		_exit(e == -EFBIG ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "file size limit at close not reported as EFBIG (%d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		int n = count_spools(tmpdir);

		CHECK(n == NBUF * NCPU, "%d spools kept after a failed close, expected %d", n, NBUF * NCPU);
		CHECK(access(path, F_OK) != 0, "a failed close left '%s' in place", path);
		if (!temp_of(path, path, sizeof(path)))
			CHECK(0, "a failed close removed its temporary file");
		err = fmt_writer_recover(path, &msg);
		CHECK(err == 0, "recover after EFBIG: %d %s", err, msg ? msg : "");
		free(msg);
		msg = NULL;
		CHECK(count_spools(tmpdir) == 0, "spools left after recover");
		if (!err)
			verify_file(path, &c, NULL, true, NULL);
	}
	unlink(path);

	/*
	 * EFBIG in the worker while the caller keeps adding pages (a spool
	 * reaches the limit): the error surfaces in a later call, and abort
	 * frees everything once (ASan checks the buffers handed to the worker).
	 */
	snprintf(path, sizeof(path), "%s/big2.dat", tmpdir);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 100000, 100000 };
		struct fmt_writer *cw = NULL;
		int e;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		e = emit_file(path, &c, 60000, NULL, false, &cw, NULL);
		printf("EFBIG in the worker: %d %s\n", e, cw ? fmt_writer_error(cw) : "");
		if (e != -EFBIG || !strstr(fmt_writer_error(cw), "spool"))
			_exit(1);
		fmt_writer_abort(cw);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "spool EFBIG in the worker not reported cleanly (%d)",
	      status);
	CHECK(count_spools(tmpdir) == 0, "spools left after abort");
	unlink(path);

	/* a header_page for other sub-buffers than the file's page size is refused */
	{
		char hp[512];
		int n = fmt_header_page_text(8, 8192, hp, sizeof(hp));

		snprintf(path, sizeof(path), "%s/hp.dat", tmpdir);
		CHECK(fmt_writer_open(path, NULL, &w) == 0, "open");
		CHECK(fmt_writer_headers(w, hp, (size_t)n, "", 0) == -EINVAL, "8192-byte header_page on 4096 pages");
		CHECK(strstr(fmt_writer_error(w), "8192") != NULL, "message '%s'", fmt_writer_error(w));
		fmt_writer_abort(w);
	}
	/* no headers given: the writer supplies the kernel's header_page */
	{
		struct pfile f;
		uint8_t page[4096] = { 0 };
		struct fmt_wbuf *b;
		size_t hl = 0;
		uint8_t *body;
		bool found = false;

		snprintf(path, sizeof(path), "%s/min.dat", tmpdir);
		CHECK(fmt_writer_open(path, NULL, &w) == 0, "open");
		CHECK(fmt_wbuf_new(w, "", NULL, &b) == 0, "wbuf");
		CHECK(fmt_wbuf_add_page(b, 0, page) == 0, "page");
		CHECK(fmt_writer_close(w) == 0, "close");
		if (!load(path, &f)) {
			/* HEADER_INFO is the first section after the 37-byte header */
			f.be = host_is_be();
			snprintf(f.comp, sizeof(f.comp), "zstd");
			body = section_body(&f, 37, FMT_OPT_HEADER_INFO, &hl);
			found = body && hl > 12 && !memcmp(body, "header_page", 12) &&
				strstr((char *)body + 20, "size:4080") != NULL;
			free(body);
			free(f.d);
		}
		CHECK(found, "no default header_page in a file written without headers");
	}

	/* the message */
	snprintf(path, sizeof(path), "%s/msg.dat", tmpdir);
	CHECK(fmt_writer_open(path, NULL, &w) == 0, "open");
	CHECK(fmt_writer_option(w, FMT_OPT_BUFFER, "x", 1) == -EINVAL, "BUFFER option accepted from caller");
	CHECK(strstr(fmt_writer_error(w), "written by the writer") != NULL, "message '%s'", fmt_writer_error(w));
	fmt_writer_abort(w);
	{
		/* a writer that never opened a file of its own must not close someone's fd 0 */
		int z = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (z > 0 && fcntl(0, F_GETFD) == -1) {
			dup2(z, 0);
			close(z);
		} else if (z > 0) {
			close(z);
		}
		CHECK(fmt_writer_recover("/nonexistent/x.dat", &msg) == -ENOENT, "recover of a missing file");
		CHECK(fcntl(0, F_GETFD) != -1, "recover closed fd 0");
	}
	CHECK(msg && strstr(msg, "/nonexistent/x.dat"), "recover message '%s'", msg ? msg : "");
	free(msg);
}

/*
 * `test_writer --bench MB [--none] [--level N] FILE`: push MB of realistic
 * pages (sched-like records, 2 CPUs) through the writer and print MB/s,
 * close included.  Not a test: a number for docs/benchmarks.md.
 */
static int bench_main(const char *path, int mb, const char *comp, int level)
{
	struct fmt_writer_opts o = { .compression = comp, .zstd_level = level };
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	struct fmt_page_enc pe;
	uint8_t payload[64], *pages;
	int npages = 256, i, err;
	long total = (long)mb * 1024 * 1024 / 4096;
	struct timespec t0, t1;
	double secs;
	uint64_t seq = 0;
	char hp[512];

	pages = malloc((size_t)npages * 4096);
	fmt_page_enc_init(&pe, 4096, 8, false);
	for (i = 0; i < npages; i++) {
		while (1) {
			uint32_t len = make_payload(false, payload, seq, 1000 + (int)(seq % 97));

			if (fmt_page_enc_add(&pe, 1000000000ULL + seq * 731, payload, len))
				break;
			seq++;
		}
		memcpy(pages + (size_t)i * 4096, fmt_page_enc_finish(&pe), 4096);
	}
	fmt_page_enc_release(&pe);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = fmt_writer_open(path, &o, &w);
	if (err)
		return 1;
	fmt_writer_headers(w, hp, (size_t)fmt_header_page_text(8, 4096, hp, sizeof(hp)), "", 0);
	fmt_writer_event_format(w, "flytrap", test_format, strlen(test_format));
	fmt_wbuf_new(w, "", "mono", &b);
	{
		struct rusage ru;
		double cpu;

		for (long k = 0; k < total && !err; k++)
			err = fmt_wbuf_add_page(b, (int)(k & 1), pages + (size_t)(k % npages) * 4096);
		/* CPU time of the calling thread: what the recorder's loop pays */
		getrusage(RUSAGE_THREAD, &ru);
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		printf("caller thread CPU for add_page: %.3f s (%.0f MB/s of its time)\n", cpu, mb / cpu);
	}
	err = err ?: fmt_writer_close(w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	{
		struct stat st;

		stat(path, &st);
		printf("%s level %d: %d MB of pages in %.3f s = %.0f MB/s, file %.1f MB (ratio %.1f)\n",
		       comp, level ? level : 3, mb, secs, mb / secs, (double)st.st_size / 1048576,
		       (double)mb * 1048576 / (double)st.st_size);
	}
	free(pages);
	return err ? 1 : 0;
}

/*
 * `test_writer --kshark FILE`: read FILE the way KernelShark 2.x does
 * (libkshark-tepdata.c): tracecmd_open_head + tracecmd_init_data for the
 * top buffer, tracecmd_buffer_instance_handle for every instance, and for
 * each, CPUs 0..tep_get_cpus()-1 walked with tracecmd_read_cpu_first /
 * tracecmd_read_data.  Prints "cpus=N records=M missed=K".  libtracecmd
 * (trace-cmd's library) is loaded with dlopen because Debian ships no
 * headers for it; exit 77 when it is not installed.
 */
struct tracecmd_input;
struct tc_api {
	struct tracecmd_input *(*open_head)(const char *file, int flags);
	int (*init_data)(struct tracecmd_input *h);
	struct tep_record *(*read_cpu_first)(struct tracecmd_input *h, int cpu);
	struct tep_record *(*read_data)(struct tracecmd_input *h, int cpu);
	void (*free_record)(struct tep_record *r);
	struct tep_handle *(*get_tep)(struct tracecmd_input *h);
	int (*buffer_instances)(struct tracecmd_input *h);
	struct tracecmd_input *(*instance_handle)(struct tracecmd_input *h, int i);
	void (*close)(struct tracecmd_input *h);
};

static void kshark_walk(struct tc_api *tc, struct tracecmd_input *h, int ncpus, long *recs, long *missed)
{
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct tep_record *r = tc->read_cpu_first(h, cpu);

		while (r) {
			(*recs)++;
			if (r->missed_events)
				(*missed)++;
			tc->free_record(r);
			r = tc->read_data(h, cpu);
		}
	}
}

static int kshark_main(const char *path)
{
	void *lib = dlopen("libtracecmd.so.1", RTLD_NOW);
	struct tc_api tc;
	struct tracecmd_input *h;
	long recs = 0, missed = 0;
	int ncpus, n;

	if (!lib) {
		printf("SKIP: libtracecmd.so.1 not available\n");
		return 77;
	}
	tc.open_head = (void *)dlsym(lib, "tracecmd_open_head");
	tc.init_data = (void *)dlsym(lib, "tracecmd_init_data");
	tc.read_cpu_first = (void *)dlsym(lib, "tracecmd_read_cpu_first");
	tc.read_data = (void *)dlsym(lib, "tracecmd_read_data");
	tc.free_record = (void *)dlsym(lib, "tracecmd_free_record");
	tc.get_tep = (void *)dlsym(lib, "tracecmd_get_tep");
	tc.buffer_instances = (void *)dlsym(lib, "tracecmd_buffer_instances");
	tc.instance_handle = (void *)dlsym(lib, "tracecmd_buffer_instance_handle");
	tc.close = (void *)dlsym(lib, "tracecmd_close");
	if (!tc.open_head || !tc.init_data || !tc.read_cpu_first || !tc.read_data || !tc.free_record ||
	    !tc.get_tep || !tc.buffer_instances || !tc.instance_handle || !tc.close) {
		printf("SKIP: libtracecmd.so.1 lacks a symbol KernelShark uses\n");
		return 77;
	}
	h = tc.open_head(path, 0);
	if (!h || tc.init_data(h) < 0) {
		printf("libtracecmd cannot open %s\n", path);
		return 1;
	}
	ncpus = tep_get_cpus(tc.get_tep(h));
	kshark_walk(&tc, h, ncpus, &recs, &missed);
	n = tc.buffer_instances(h);
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *ih = tc.instance_handle(h, i);

		if (!ih) {
			printf("libtracecmd cannot open instance %d of %s\n", i, path);
			return 1;
		}
		kshark_walk(&tc, ih, ncpus, &recs, &missed);
		tc.close(ih);
	}
	tc.close(h);
	printf("cpus=%d buffers=%d records=%ld missed=%ld\n", ncpus, n + 1, recs, missed);
	return 0;
}

static int emit_main(int argc, char **argv)
{
	struct wcfg c = { false, 8, "zstd", 10, 4096 };
	const char *path = NULL;
	int events = 300, i, err, bench_mb = 0, level = 0;
	bool crash = false, recover = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--emit") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--be"))
			c.be = true;
		else if (!strcmp(argv[i], "--long4"))
			c.lsize = 4;
		else if (!strcmp(argv[i], "--none"))
			c.comp = "none";
		else if (!strcmp(argv[i], "--events") && i + 1 < argc)
			events = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			c.ppc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bench") && i + 1 < argc)
			bench_mb = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--level") && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--crash"))
			crash = true;
		else if (!strcmp(argv[i], "--recover"))
			recover = true;
		else if (!strcmp(argv[i], "--section") && i + 1 < argc && n_extra_secs < 4 &&
			 strchr(argv[i + 1], '=')) {
			extra_sec_id[n_extra_secs] = (uint16_t)strtoul(argv[++i], NULL, 0);
			extra_sec_text[n_extra_secs++] = strchr(argv[i], '=') + 1;
		}
		else if (!strcmp(argv[i], "--opt") && i + 1 < argc && n_extra_opts < 8 &&
			 strchr(argv[i + 1], '=')) {
			extra_opt_id[n_extra_opts] = (uint16_t)strtoul(argv[++i], NULL, 0);
			extra_opt_text[n_extra_opts++] = strchr(argv[i], '=') + 1;
		}
		else
			path = argv[i];
	}
	if (bench_mb > 0 && path)
		return bench_main(path, bench_mb, c.comp, level);
	if (crash && path) {
		/* write everything, flush, and die by SIGKILL before close */
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			struct fmt_writer *w = NULL;
			struct fmt_wbuf *bufs[NBUF];

			if (emit_file(path, &c, events, NULL, false, &w, bufs))
				_exit(3);
			for (int b = 0; b < NBUF; b++)
				fmt_wbuf_flush(bufs[b]);
			kill(getpid(), SIGKILL);
			_exit(4);
		}
		waitpid(pid, &status, 0);
		return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
	}
	if (recover && path) {
		/* a killed writer's file is its temporary one: finish that, then put it at path */
		char *msg = NULL, tp[300];
		bool temp = access(path, F_OK) && temp_of(path, tp, sizeof(tp));

		err = fmt_writer_recover(temp ? tp : path, &msg);
		if (err)
			fprintf(stderr, "test_writer: cannot recover '%s': %s\n", path, msg ? msg : strerror(-err));
		free(msg);
		if (!err && temp && (err = fmt_outfile_place(tp, path, false, 0, 0)))
			fprintf(stderr, "test_writer: cannot rename '%s' to '%s': %s\n", tp, path,
				strerror(-err));
		return err ? 1 : 0;
	}
	if (!path) {
		fprintf(stderr, "usage: test_writer --emit FILE [--be] [--long4] [--none] [--events N] [--chunk N] [--opt ID=TEXT]\n");
		return 2;
	}
	err = emit_file(path, &c, events, NULL, true, NULL, NULL);
	if (err)
		fprintf(stderr, "test_writer: cannot write '%s': %s\n", path, strerror(-err));
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct wcfg cfgs[] = {
		{ false, 8, "zstd", 10, 4096 },
		{ true, 8, "zstd", 10, 4096 },
		{ false, 4, "none", 10, 4096 },
		{ true, 4, "none", 3, 4096 },
		{ false, 8, "zstd", 1, 8192 },
		{ false, 8, NULL, 7, 4096 },
	};
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--kshark"))
		return kshark_main(argv[2]);
	if (argc > 1)
		return emit_main(argc, argv);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		test_roundtrip(&cfgs[i], 1000);
		test_roundtrip(&cfgs[i], 0);
	}
	test_recover(&cfgs[0]);
	test_recover(&cfgs[2]);
	{
		/* spools elsewhere: recovery finds them through the FT_SPOOLDIR section */
		char sd[300];
		struct wcfg c = cfgs[1];

		snprintf(sd, sizeof(sd), "%s/spools", tmpdir);
		mkdir(sd, 0700);
		c.spool_dir = sd;
		test_recover(&c);
		CHECK(count_spools(tmpdir) == 0, "spools in the output's directory");
	}
	test_no_peek(&cfgs[0]);
	test_no_peek(&cfgs[3]);
	test_recover_damaged(&cfgs[0]);
	test_recover_finished_cut(&cfgs[0]);
	test_recover_cuts(&cfgs[0]);
	test_recover_cuts(&cfgs[3]);
	test_errors();
	test_pool();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("cannot remove %s\n", tmpdir);
	}
	return check_summary();
}
