// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap verify: is a trace.dat whole?  Everything is decoded: the
 * sections and options (by opening it), the whole-file digest and every
 * chunk checksum a flytrap writer stored, chunk sizes and decompression,
 * page headers and commit sizes, time stamps in order per CPU, and that
 * every event ID has a format.  Each damaged byte range is listed; a file
 * without checksums (trace-cmd's) gets every other check and a list of the
 * checks it could not have.
 *
 * Exit: 0 whole, 1 damaged (or unreadable), 3 with --strict when a check
 * could not be made, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "format.h"

#define EXIT_UNCHECKED 3
#define MAX_LISTED 1000		/* damaged ranges kept (the count goes on) */

static const char usage_text[] =
	"usage: flytrap verify [--strict] [--json] FILE\n"
	"\n"
	"Check that a trace.dat is whole: its sections, the whole-file digest and\n"
	"chunk checksums flytrap stores, chunk sizes, page headers, time order per\n"
	"CPU and event IDs.  Lists every damaged byte range.\n"
	"\n"
	"      --strict   exit 3 when a check could not be made (a file without\n"
	"                 checksums, such as trace-cmd's)\n"
	"      --json     the result as one JSON object\n"
	"  -v             more messages\n"
	"  -h, --help     this help\n"
	"\n"
	"Exit status: 0 whole, 1 damaged, 2 usage error, 3 (--strict) unchecked parts.\n";

struct range {
	uint64_t from, to;	/* [from, to); to == from: the end is unknown */
	char *what;
};

struct verify {
	const char *path;
	struct fmt_reader *r;
	const struct fmt_info *in;
	struct range *d;
	int nd, dcap;
	uint64_t ndamaged;
	char *unchecked[16];
	int nunchecked;
	/* what was checked */
	bool digest_ok, digest_bad;
	uint64_t chunks_checked, events, unknown_events, cpus;
	int sections;
};

static void add_damage(struct verify *v, uint64_t from, uint64_t to, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_damage(struct verify *v, uint64_t from, uint64_t to, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	v->ndamaged++;
	if (v->nd >= MAX_LISTED)
		return;
	if (v->nd == v->dcap) {
		int cap = v->dcap ? v->dcap * 2 : 16;
		struct range *nr = realloc(v->d, (size_t)cap * sizeof(*nr));

		if (!nr)
			return;
		v->d = nr;
		v->dcap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v->d[v->nd++] = (struct range){ from, to, s };
}

static void add_unchecked(struct verify *v, const char *what)
{
	if (v->nunchecked < (int)(sizeof(v->unchecked) / sizeof(v->unchecked[0])))
		v->unchecked[v->nunchecked++] = strdup(what);
}

/* Is off inside a range already listed (a chunk that failed its checksum)? */
static bool listed(const struct verify *v, uint64_t off)
{
	for (int i = 0; i < v->nd; i++)
		if (off >= v->d[i].from && off < v->d[i].to)
			return true;
	return false;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* CRC32C of the file with the digest's payload counted as zeros. */
static void check_digest(struct verify *v, int fd)
{
	static const uint8_t zeros[16];
	struct fmt_digest dg;
	uint64_t pos = 0, size = v->in->file_size;
	uint8_t *buf;
	uint32_t crc = 0;
	int e = fmt_reader_digest(v->r, &dg);

	if (e < 0) {
		add_damage(v, 0, 0, "the whole-file digest option is malformed");
		return;
	}
	if (!e) {
		add_unchecked(v, "whole-file digest (the file has none)");
		return;
	}
	if (dg.size != size) {
		add_damage(v, dg.size < size ? dg.size : size, dg.size < size ? size : dg.size,
			   "the file is %llu bytes, its digest was taken over %llu",
			   (unsigned long long)size, (unsigned long long)dg.size);
		return;
	}
	buf = malloc(1 << 20);
	if (!buf)
		return;
	while (pos < size) {
		size_t n = size - pos > (1 << 20) ? (1 << 20) : (size_t)(size - pos);
		uint64_t a, b;

		if (read_at(fd, buf, n, pos)) {
			add_damage(v, pos, pos, "cannot read the file here");
			break;
		}
		a = dg.offset > pos ? dg.offset - pos : 0;
		b = dg.offset + 16 > pos ? dg.offset + 16 - pos : 0;
		if (a > n)
			a = n;
		if (b > n)
			b = n;
		crc = fmt_crc32c(crc, buf, (size_t)a);
		crc = fmt_crc32c(crc, zeros, (size_t)(b - a));
		crc = fmt_crc32c(crc, buf + b, n - (size_t)b);
		pos += n;
	}
	free(buf);
	if (pos == size && crc != dg.crc)
		v->digest_bad = true;	/* told after the chunks: they may say where */
	else if (pos == size)
		v->digest_ok = true;
}

/* Every stored chunk checksum, by reading the chunks. */
static void check_sums(struct verify *v, int fd)
{
	const struct fmt_info *in = v->in;
	int st = fmt_reader_sums_status(v->r), b, c;
	uint64_t without = 0;
	uint8_t *buf = NULL;
	size_t cap = 0;

	if (st < 0) {
		const struct fmt_option *o = fmt_reader_option(v->r, FMT_OPT_FT_CHECKSUMS, 0);

		add_damage(v, o ? o->file_offset : 0, o ? o->file_offset + o->size : 0,
			   "the chunk checksums option is malformed");
	}
	for (b = 0; b < in->nbuffers; b++) {
		const struct fmt_buffer *fb = &in->buffers[b];

		for (c = 0; c < fb->ncpus; c++) {
			const struct fmt_cpu_sums *s;

			if (!fb->cpus[c].size)
				continue;
			v->cpus++;
			s = fmt_reader_sums(v->r, b, fb->cpus[c].cpu);
			if (!s) {
				without++;
				continue;
			}
			for (uint32_t k = 0; k < s->n; k++) {
				const struct fmt_chunk_sum *cs = &s->chunks[k];

				if (cs->offset > in->file_size ||
				    cs->len > in->file_size - cs->offset) {
					add_damage(v, cs->offset, in->file_size,
						   "CPU %d%s%s: chunk %u of %u is cut off by the "
						   "end of the file", s->cpu,
						   *fb->name ? " of buffer " : "", fb->name, k + 1,
						   s->n);
					break;
				}
				if (cs->len > cap) {
					free(buf);
					cap = cs->len;
					buf = malloc(cap);
					if (!buf) {
						cap = 0;
						break;
					}
				}
				if (read_at(fd, buf, cs->len, cs->offset)) {
					add_damage(v, cs->offset, cs->offset, "cannot read here");
					break;
				}
				v->chunks_checked++;
				ft_info("CPU %d%s%s: %s %u of %u at bytes %llu-%llu", s->cpu,
					*fb->name ? " of buffer " : "", fb->name,
					s->compressed ? "chunk" : "block", k + 1, s->n,
					(unsigned long long)cs->offset,
					(unsigned long long)(cs->offset + cs->len - 1));
				if (fmt_crc32c(0, buf, cs->len) != cs->crc)
					add_damage(v, cs->offset, cs->offset + cs->len,
						   "CPU %d%s%s: %s %u of %u fails its checksum",
						   s->cpu, *fb->name ? " of buffer " : "", fb->name,
						   s->compressed ? "chunk" : "block", k + 1, s->n);
			}
		}
	}
	free(buf);
	if (without && st == 0)
		add_unchecked(v, "chunk checksums (the file has none)");
	else if (without) {
		char t[96];

		snprintf(t, sizeof(t), "chunk checksums of %llu CPU stream(s) that have none",
			 (unsigned long long)without);
		add_unchecked(v, t);
	}
}

struct last_ts {
	int buffer, cpu;
	uint64_t ts;
	bool reported;
};

/* Decode every event: page headers, record lengths, time order per CPU, event IDs. */
static void check_events(struct verify *v)
{
	struct last_ts *lt = NULL;
	int nlt = 0, ltcap = 0, err;
	struct fmt_iter *it;
	const struct fmt_event *ev;
	int unknown_ids[8], nunknown_ids = 0;

	if (fmt_iter_new(v->r, NULL, &it)) {
		add_damage(v, fmt_reader_error_offset(v->r), fmt_reader_error_offset(v->r), "%s",
			   fmt_reader_error(v->r));
		return;
	}
	while ((err = fmt_iter_next(it, &ev)) != 0) {
		struct last_ts *l = NULL;

		if (err < 0) {
			uint64_t off = fmt_reader_error_offset(v->r);

			if (!listed(v, off))
				add_damage(v, off, off, "%s", fmt_reader_error(v->r));
			continue;
		}
		v->events++;
		for (int i = 0; i < nlt; i++)
			if (lt[i].buffer == ev->buffer && lt[i].cpu == ev->rec.cpu)
				l = &lt[i];
		if (!l) {
			if (nlt == ltcap) {
				struct last_ts *n =
					realloc(lt, (size_t)(ltcap = ltcap ? ltcap * 2 : 16) *
						    sizeof(*n));
				if (!n)
					break;
				lt = n;
			}
			l = &lt[nlt++];
			*l = (struct last_ts){ ev->buffer, ev->rec.cpu, ev->raw_ts, false };
		}
		if (ev->raw_ts < l->ts && !l->reported) {
			l->reported = true;
			if (!listed(v, ev->page_offset))
				add_damage(v, ev->page_offset, ev->page_offset,
					   "CPU %d: time goes back by %llu ns here "
					   "(the page at this offset; compressed files: the "
					   "uncompressed offset)",
					   ev->rec.cpu, (unsigned long long)(l->ts - ev->raw_ts));
		}
		l->ts = ev->raw_ts;
		if (!ev->event) {
			bool seen = false;

			v->unknown_events++;
			for (int i = 0; i < nunknown_ids; i++)
				seen |= unknown_ids[i] == ev->type;
			if (!seen && nunknown_ids < 8) {
				unknown_ids[nunknown_ids++] = ev->type;
				if (!listed(v, ev->page_offset))
					add_damage(v, ev->page_offset, ev->page_offset,
						   "CPU %d: an event of ID %d, which has no format",
						   ev->rec.cpu, ev->type);
			}
		}
	}
	fmt_iter_free(it);
	free(lt);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static void print_text(const struct verify *v)
{
	printf("%s: %s\n", v->path, v->ndamaged ? "DAMAGED" : "whole");
	for (int i = 0; i < v->nd; i++) {
		const struct range *d = &v->d[i];

		if (d->to > d->from)
			printf("  bytes %llu-%llu (%llu bytes): %s\n", (unsigned long long)d->from,
			       (unsigned long long)d->to - 1, (unsigned long long)(d->to - d->from),
			       d->what ? d->what : "");
		else
			printf("  at byte %llu: %s\n", (unsigned long long)d->from,
			       d->what ? d->what : "");
	}
	if (v->ndamaged > (uint64_t)v->nd)
		printf("  ... and %llu more\n",
		       (unsigned long long)(v->ndamaged - (uint64_t)v->nd));
	printf("checked: sections and options, %s%llu chunk checksum(s), %llu CPU stream(s), "
	       "%llu events (page headers, time order per CPU, event IDs)\n",
	       v->digest_ok ? "whole-file digest, " : "", (unsigned long long)v->chunks_checked,
	       (unsigned long long)v->cpus, (unsigned long long)v->events);
	for (int i = 0; i < v->nunchecked; i++)
		printf("not checked: %s\n", v->unchecked[i] ? v->unchecked[i] : "");
}

static int print_json(const struct verify *v)
{
	struct rpt_json j;

	if (rpt_json_init(&j, stdout, 0))
		return -ENOMEM;
	rpt_json_obj(&j);
	rpt_json_kstr(&j, "file", v->path);
	rpt_json_kbool(&j, "whole", !v->ndamaged);
	rpt_json_karr(&j, "damaged");
	for (int i = 0; i < v->nd; i++) {
		const struct range *d = &v->d[i];

		rpt_json_obj(&j);
		rpt_json_ku64(&j, "from", d->from);
		if (d->to > d->from)
			rpt_json_ku64(&j, "to", d->to);
		else
			rpt_json_knull(&j, "to");
		rpt_json_kstr(&j, "what", d->what);
		rpt_json_obj_end(&j);
	}
	rpt_json_arr_end(&j);
	rpt_json_ku64(&j, "damaged_total", v->ndamaged);
	rpt_json_kbool(&j, "digest_ok", v->digest_ok);
	rpt_json_ku64(&j, "chunks_checked", v->chunks_checked);
	rpt_json_ku64(&j, "cpu_streams", v->cpus);
	rpt_json_ku64(&j, "events", v->events);
	rpt_json_ku64(&j, "unknown_events", v->unknown_events);
	rpt_json_karr(&j, "not_checked");
	for (int i = 0; i < v->nunchecked; i++)
		rpt_json_str(&j, v->unchecked[i]);
	rpt_json_arr_end(&j);
	rpt_json_obj_end(&j);
	RPT_JSON_LIT(&j, "\n");
	/* a failed write stays on stdout (ft_finish_stdout says it) */
	return rpt_json_done(&j) == -ENOMEM ? -ENOMEM : 0;
}

int cmd_verify(int argc, char **argv)
{
	enum { O_STRICT = 256, O_JSON };
	static const struct ft_opt opts[] = {
		{ "strict", 0, false, O_STRICT }, { "json", 0, false, O_JSON },
		{ "verbose", 'v', false, FT_OPT_ID_VERBOSE }, FT_OPT_HELP_ENTRY, { 0 },
	};
	static const char *const help[] = { usage_text, NULL };
	struct verify v = { 0 };
	struct ft_optparse p;
	bool strict = false, json = false;
	const char *path = NULL;
	char *open_err = NULL;
	int c, rc, err, fd;

	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		switch (c) {
		case O_STRICT: strict = true; break;
		case O_JSON: json = true; break;
		case FT_OPT_OPERAND:
			if (path)
				return ft_usage_error("one file at a time");
			path = p.value;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (!path)
		return ft_usage_error("no file given (flytrap verify FILE)");
	v.path = path;
	fd = open(v.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ft_error("cannot open '%s': %s", v.path, strerror(errno));
	{
		struct stat st;

		/* nothing to verify: an error on stderr, not a damage report on stdout */
		if (!fstat(fd, &st) && !S_ISREG(st.st_mode)) {
			close(fd);
			return ft_error("cannot verify '%s': not a regular file (%s); give a "
					"trace.dat file", v.path,
					S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
		}
	}
	err = fmt_reader_open(v.path, FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS, &v.r, &open_err);
	if (err) {
		/* the reader names the offset where the file stopped making sense */
		add_damage(&v, 0, 0, "%s", open_err ? open_err : strerror(-err));
		free(open_err);
	} else {
		v.in = fmt_reader_info(v.r);
		check_digest(&v, fd);
		check_sums(&v, fd);
		if (v.in->truncated_at)
			add_damage(&v, v.in->truncated_at, v.in->file_size > v.in->truncated_at ?
				   v.in->file_size : v.in->truncated_at,
				   "the file ends before its own tables say (cut short)");
		if (v.in->latency.present)
			add_unchecked(&v, "latency-format text (no pages to decode)");
		if (v.in->nbad_formats)
			add_damage(&v, 0, 0, "%d event format(s) cannot be parsed",
				   v.in->nbad_formats);
		check_events(&v);
		if (v.digest_bad)
			add_damage(&v, 0, v.in->file_size, "the whole-file digest does not match%s",
				   v.nd ? "" : ": the damage is outside the data chunks (metadata "
				   "sections, options or padding), which have no checksums "
				   "of their own");
	}
	close(fd);
	if (v.nd > 1)
		qsort(v.d, (size_t)v.nd, sizeof(*v.d), cmp_range);
	rc = v.ndamaged ? EXIT_FAIL : strict && v.nunchecked ? EXIT_UNCHECKED : EXIT_OK;
	if (!json)
		print_text(&v);
	else if (print_json(&v))
		rc = ft_error("out of memory");
	for (int i = 0; i < v.nd; i++)
		free(v.d[i].what);
	free(v.d);
	for (int i = 0; i < v.nunchecked; i++)
		free(v.unchecked[i]);
	fmt_reader_close(v.r);
	return ft_finish_stdout(rc);
}
