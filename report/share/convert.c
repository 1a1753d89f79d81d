// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap convert: rewrite any trace.dat flytrap can read (v6 or v7, zstd,
 * zlib or uncompressed, either byte order) as a version 7 file, zstd or
 * uncompressed.  Ring-buffer pages are copied byte for byte and the byte
 * order and long size are kept, so every option whose payload is binary
 * (CPUCOUNT, TSC2NSEC, TRACEID, TIME_SHIFT, GUEST, …) stays valid verbatim.
 * Only what depends on file offsets is rebuilt: section pointers, BUFFER
 * descriptors and the options chain.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/share/convert.h"
#include "report/core/writer.h"
#include "flytrap.h"
#include "format.h"

static const char usage_text[] =
	"usage: flytrap convert [options] IN -o OUT\n"
	"\n"
	"Rewrite a trace.dat (version 6 or 7, any compression trace-cmd uses) as a\n"
	"version 7 file that trace-cmd report and KernelShark open.  Pages are copied\n"
	"unchanged; metadata and options are carried over.\n"
	"\n"
	"  -o, --output FILE        where to write (required; never the input)\n"
	"  -c, --compression ALGO   zstd (default) or none\n"
	"  -l, --level N            zstd level 1..19 (default 3)\n"
	"      --chunk N            pages per compressed chunk (default 10)\n"
	"      --kallsyms FILE      use FILE (/proc/kallsyms format) as the kernel\n"
	"                           symbols, e.g. for a file recorded without them\n"
	"      --keep-symbols FILE  keep only the kernel symbols named in FILE (one\n"
	"                           per line): a small file to attach to a report\n"
	"  -v                       more messages\n"
	"  -h, --help               this help\n";

struct conv {
	struct fmt_reader *r;
	struct fmt_writer *w;
	struct fmt_wbuf *b;
	int cpu;
	uint64_t pages;
};

static int format_cb(void *arg, const char *system, const char *text, size_t len)
{
	struct conv *cv = arg;

	if (!strcmp(system, "ftrace"))
		return fmt_writer_ftrace_format(cv->w, text, len);
	return fmt_writer_event_format(cv->w, system, text, len);
}

static int page_cb(void *arg, const void *page, uint32_t page_size)
{
	struct conv *cv = arg;

	cv->pages++;
	return fmt_wbuf_add_page(cv->b, cv->cpu, page);
}

/* Kernel symbol texts bigger than this are not a kallsyms file. */
#define KALLSYMS_MAX (256u << 20)

struct ksym_line {
	unsigned long long addr;
	const char *line;
	size_t len;
	const char *name;
	size_t nlen;
};

struct names {
	char **v;
	size_t n;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const struct names *nm, const char *name, size_t len)
{
	char buf[512], *key = buf;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return bsearch(&key, nm->v, nm->n, sizeof(*nm->v), cmp_str) != NULL;
}

static void free_names(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	nm->v = NULL;
	nm->n = 0;
}

/*
 * The whole of a file or pipe, NUL-terminated, refusing more than max bytes
 * (-EFBIG) or a NUL byte inside (-EINVAL): /dev/zero must not hang us.
 */
static int read_text(const char *path, size_t max, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0;
	char *buf, *nb;
	int err = 0;

	if (!f)
		return -errno;
	buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		if (memchr(buf + n, '\0', got)) {
			err = -EINVAL;
			break;
		}
		n += got;
		if (n > max) {
			err = -EFBIG;
			break;
		}
		if (n < cap) {
			if (ferror(f))
				err = -EIO;
			break;
		}
		nb = realloc(buf, (cap *= 2) + 1);
		if (!nb)
			free(buf);
		buf = nb;
	}
	fclose(f);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* A list of names (one per line, blank lines skipped) is at most this big. */
#define NAMES_MAX (64u << 20)

/* One name per line, sorted for bsearch.  A pipe is fine (<(...)). */
static int load_names(const char *path, struct names *nm)
{
	char *text, *p, *nl;
	size_t len;
	int err = read_text(path, NAMES_MAX, &text, &len);

	if (err)
		return err;
	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		char **nv;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		p[strcspn(p, "\r")] = '\0';
		if (!*p)
			continue;
		nv = realloc(nm->v, (nm->n + 1) * sizeof(*nv));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		nm->v = nv;
		if (!(nv[nm->n] = strdup(p))) {
			err = -ENOMEM;
			break;
		}
		nm->n++;
	}
	free(text);
	if (!err)
		qsort(nm->v, nm->n, sizeof(*nm->v), cmp_str);
	return err;
}

/*
 * The lines of a kallsyms text ("ADDR TYPE NAME [module]"), or NULL when
 * out of memory.  Lines that do not parse are left out.
 */
static struct ksym_line *parse_kallsyms(const char *text, size_t len, size_t *count)
{
	const char *p = text, *end = text + len;
	struct ksym_line *s = NULL;
	size_t n = 0, cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		struct ksym_line y = { 0 };
		int digits = 0;

		while (q < le && isxdigit((unsigned char)*q) && digits < 17) {
			y.addr = y.addr << 4 | (unsigned)(isdigit((unsigned char)*q) ? *q - '0' :
							  (tolower((unsigned char)*q) - 'a' + 10));
			q++;
			digits++;
		}
		y.line = p;
		y.len = (size_t)(le - p) + (nl ? 1 : 0);
		if (digits && digits <= 16 && q < le && *q == ' ') {
			while (q < le && *q == ' ')
				q++;
			while (q < le && *q != ' ')	/* the type letter */
				q++;
			while (q < le && *q == ' ')
				q++;
			y.name = q;
			while (q < le && *q != ' ' && *q != '\t')
				q++;
			y.nlen = (size_t)(q - y.name);
		}
		if (y.nlen) {
			if (n == cap) {
				struct ksym_line *ns =
					realloc(s, (cap = cap ? cap * 2 : 4096) * sizeof(*s));

				if (!ns) {
					free(s);
					return NULL;
				}
				s = ns;
			}
			s[n++] = y;
		}
		p = le + (nl ? 1 : 0);
	}
	*count = n;
	return s ? s : calloc(1, sizeof(*s));
}

/*
 * The kallsyms text (malloc'd) cut down to the named symbols, each with the
 * next symbol at a higher address, which tells where the kept one ends.
 */
static char *trim_kallsyms(const char *text, size_t len, const struct names *nm, size_t *out_len)
{
	size_t n = 0, i, o = 0;
	struct ksym_line *s = parse_kallsyms(text, len, &n);
	char *out = NULL;
	bool *keep;

	if (!s)
		return NULL;
	qsort(s, n, sizeof(*s), cmp_ksym);
	keep = calloc(n + 1, 1);
	out = malloc(len + 2);
	if (!keep || !out) {
		free(keep);
		free(out);
		free(s);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (!wanted(nm, s[i].name, s[i].nlen))
			continue;
		keep[i] = true;
		for (size_t j = i + 1; j < n; j++) {
			if (s[j].addr > s[i].addr) {
				keep[j] = true;
				break;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		memcpy(out + o, s[i].line, s[i].len);
		o += s[i].len;
		if (s[i].line[s[i].len - 1] != '\n')
			out[o++] = '\n';
	}
	out[o] = '\0';
	*out_len = o;
	free(keep);
	free(s);
	return out;
}

/* ---- the kernel symbols a rewritten file needs (slice, redact) ---------------------- */

/* The fields of one event that may hold kernel text addresses. */
struct kfield {
	struct fmt_field f;
	int elem;		/* bytes per value */
	bool to_end;		/* the last field, an array: values run to the record's end */
};

struct kfields {
	int n;
	struct kfield v[];
};

struct rpt_ksyms_keep {
	const char *text;
	size_t len;
	struct ksym_line *s;		/* by address */
	size_t n;
	uint8_t *keep;		/* KEEP_LINE, KEEP_HOLDS */
	uint64_t lo, hi;	/* the addresses a value must lie between to be one */
	struct kfields **by_id;	/* per event ID, made at its first record (65536) */
};

#define KEEP_LINE 1		/* the line is written */
#define KEEP_HOLDS 2		/* an address lies in it: the symbol after it is written too */

/* Functions (and weak ones): what stacks and %pS fields point into. */
static bool is_text(const struct ksym_line *y)
{
	const char *t = y->line + strcspn(y->line, " ");

	while (*t == ' ')
		t++;
	return *t == 'T' || *t == 't' || *t == 'W' || *t == 'w';
}

struct rpt_ksyms_keep *rpt_ksyms_keep_new(const char *text, size_t len)
{
	struct rpt_ksyms_keep *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->text = text ? text : "";
	k->len = text ? len : 0;
	k->s = parse_kallsyms(k->text, k->len, &k->n);
	k->keep = calloc(k->n + 1, 1);
	k->by_id = calloc(65536, sizeof(*k->by_id));
	if (!k->s || !k->keep || !k->by_id) {
		rpt_ksyms_keep_free(k);
		errno = ENOMEM;
		return NULL;
	}
	qsort(k->s, k->n, sizeof(*k->s), cmp_ksym);
	for (size_t i = 0; i < k->n; i++) {
		const struct ksym_line *y = &k->s[i];

		/* _text and _stext: merge tells kernels apart by them, redact counts from them */
		if ((y->nlen == 5 && !memcmp(y->name, "_text", 5)) ||
		    (y->nlen == 6 && !memcmp(y->name, "_stext", 6)))
			k->keep[i] = KEEP_LINE;
		if (!y->addr || !is_text(y))
			continue;
		if (!k->lo || y->addr < k->lo)
			k->lo = y->addr;
		if (y->addr > k->hi)
			k->hi = y->addr;
	}
	/* past the last function, a module's text may still run on a little */
	k->hi = k->hi > UINT64_MAX - (1u << 20) ? UINT64_MAX : k->hi + (1u << 20);
	return k;
}

void rpt_ksyms_keep_addr(struct rpt_ksyms_keep *k, uint64_t a)
{
	size_t lo = 0, hi, i;

	if (!k || !k->lo || a < k->lo || a > k->hi)
		return;
	hi = k->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (k->s[m].addr <= a)
			lo = m + 1;
		else
			hi = m;
	}
	/* the function holding a */
	for (i = lo; i > 0 && k->s[i - 1].addr == k->s[lo - 1].addr; i--)
		;
	if (k->keep[i] & KEEP_HOLDS)
		return;
	for (size_t j = i; j < lo; j++)
		if (is_text(&k->s[j]))
			k->keep[i] |= KEEP_HOLDS;
	if (!(k->keep[i] & KEEP_HOLDS))
		return;
	/*
	 * every name at that address (__do_softirq, __softirqentry_text_start):
	 * libtraceevent's search picks among them by the table's size, so the
	 * name printed may be another alias of the same address than before
	 */
	for (size_t j = i; j < lo; j++)
		k->keep[j] |= KEEP_LINE;
	/*
	 * and the symbol after it, where it ends; and the function after it,
	 * for readers that skip absolute ('A') symbols (libtraceevent does)
	 */
	for (size_t j = lo, any = 0; j < k->n; j++) {
		if (k->s[j].addr <= k->s[i].addr)
			continue;
		if (!any++)
			k->keep[j] |= KEEP_LINE;
		if (is_text(&k->s[j])) {
			k->keep[j] |= KEEP_LINE;
			break;
		}
	}
}

/* Integer fields and arrays of the kernel's long size; strings and chars are no addresses. */
static struct kfields *kfields_of(const struct tep_event *e)
{
	const struct tep_format_field *f, *last = NULL;
	int n = 0, long_size = e->tep ? tep_get_long_size(e->tep) : 8;
	struct kfields *kf;

	for (f = e->format.fields; f; f = f->next)
		n++;
	kf = calloc(1, sizeof(*kf) + (size_t)n * sizeof(kf->v[0]));
	if (!kf)
		return NULL;
	for (f = e->format.fields; f; f = f->next)
		if (!last || f->offset > last->offset)
			last = f;
	for (f = e->format.fields; f; f = f->next) {
		bool array = f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC);
		int elem = array ? (int)f->elementsize : f->size;
		struct kfield *v = &kf->v[kf->n];

		if (f->flags & TEP_FIELD_IS_STRING || (f->type && strstr(f->type, "char")))
			continue;
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) && elem <= 0)
			elem = long_size;	/* "__data_loc unsigned long[]": no size given */
		if (elem != long_size || fmt_field_resolve(e, f->name, &v->f))
			continue;
		v->elem = elem;
		/* ftrace's kernel_stack declares caller[8] and holds as many as were taken */
		v->to_end = f == last && (f->flags & TEP_FIELD_IS_ARRAY) &&
			    !(f->flags & TEP_FIELD_IS_DYNAMIC);
		kf->n++;
	}
	return kf;
}

void rpt_ksyms_keep_record(struct rpt_ksyms_keep *k, const struct tep_event *e,
			   const void *data, int size)
{
	struct kfields *kf;
	bool swap;

	if (!k || !e || e->id < 0 || e->id > 65535 || !data || size <= 0 || !k->lo)
		return;
	kf = k->by_id[e->id];
	if (!kf && !(kf = k->by_id[e->id] = kfields_of(e)))
		return;
	for (int i = 0; i < kf->n; i++) {
		const struct kfield *v = &kf->v[i];
		const uint8_t *p;
		int len = 0;

		swap = v->f.big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		if (v->to_end && v->f.offset >= 0 && v->f.offset < size) {
			p = (const uint8_t *)data + v->f.offset;
			len = size - v->f.offset;
		} else {
			p = fmt_field_ptr(&v->f, data, size, &len);
		}
		for (int o = 0; p && o + v->elem <= len; o += v->elem)
			rpt_ksyms_keep_addr(k, fmt_read_num(p + o, v->elem, swap));
	}
}

void rpt_ksyms_keep_name(struct rpt_ksyms_keep *k, uint64_t addr, const char *name)
{
	size_t nl = name ? strlen(name) : 0;

	for (size_t i = 0; k && nl && i < k->n; i++)
		if (k->s[i].addr == addr && k->s[i].nlen == nl && !memcmp(k->s[i].name, name, nl))
			k->keep[i] |= KEEP_LINE;
}

void rpt_ksyms_keep_every(struct rpt_ksyms_keep *k)
{
	for (size_t i = 0; k && i < k->n; i++)
		k->keep[i] |= KEEP_LINE;
}

/* line y with its address less base, in as many hex digits as it had (at least) */
static size_t shifted_line(char *out, const struct ksym_line *y, uint64_t base)
{
	size_t digits = strspn(y->line, "0123456789abcdefABCDEF");
	int n = sprintf(out, "%0*llx", (int)digits, (unsigned long long)(y->addr - base));

	memcpy(out + n, y->line + digits, y->len - digits);
	return (size_t)n + y->len - digits;
}

char *rpt_ksyms_keep_text(const struct rpt_ksyms_keep *k, uint64_t base, size_t *out_len,
			  size_t *nkept)
{
	size_t o = 0, kept = 0;
	char *out;

	*out_len = 0;
	if (nkept)
		*nkept = 0;
	if (!k)
		return NULL;
	/* a shifted address may take up to 16 digits where the line had fewer */
	if (base && k->n > (SIZE_MAX - k->len - 2) / 16)
		return NULL;
	out = malloc(k->len + 2 + (base ? 16 * k->n : 0));
	if (!out)
		return NULL;
	for (size_t i = 0; i < k->n; i++) {
		/* kallsyms read without the right to see them (every address 0) stay whole */
		if (!k->keep[i] && k->lo)
			continue;
		if (base) {
			o += shifted_line(out + o, &k->s[i], base);
		} else {
			memcpy(out + o, k->s[i].line, k->s[i].len);
			o += k->s[i].len;
		}
		if (k->s[i].line[k->s[i].len - 1] != '\n')
			out[o++] = '\n';
		kept++;
	}
	out[o] = '\0';
	*out_len = o;
	if (nkept)
		*nkept = kept;
	return out;
}

size_t rpt_ksyms_keep_total(const struct rpt_ksyms_keep *k)
{
	return k ? k->n : 0;
}

void rpt_ksyms_keep_free(struct rpt_ksyms_keep *k)
{
	if (!k)
		return;
	for (int i = 0; k->by_id && i < 65536; i++)
		free(k->by_id[i]);
	free(k->by_id);
	free(k->keep);
	free(k->s);
	free(k);
}

/* A whole kallsyms file, checked to hold at least one symbol line. */
static int read_kallsyms(const char *path, char **text, size_t *len)
{
	size_t count = 0;
	struct ksym_line *s;
	int err = read_text(path, KALLSYMS_MAX, text, len);

	if (err == -EFBIG || err == -EINVAL)
		return ft_error("'%s' is not a kallsyms file (%s)", path,
				err == -EFBIG ? "over 256 MB" : "binary data");
	if (err)
		return ft_error("cannot read '%s': %s", path, strerror(-err));
	s = parse_kallsyms(*text, *len, &count);
	free(s);
	if (!count) {
		free(*text);
		*text = NULL;
		return ft_error("'%s' is not a kallsyms file (lines of \"ADDRESS TYPE NAME\")",
				path);
	}
	return EXIT_OK;
}

/* What convert cannot copy faithfully: refuse rather than drop it */
static int check_convertible(const struct conv *cv, const struct fmt_info *in, const char *in_path)
{
	int i;

	/* latency-format text (BUFFER_TEXT) has no pages to copy */
	if (in->latency.present || fmt_reader_option(cv->r, FMT_OPT_BUFFER_TEXT, 0))
		return ft_error("cannot convert '%s': latency-format (text) buffers are not "
				"supported", in_path);
	for (i = 0; i < in->nbuffers; i++)
		if (in->buffers[i].page_size && in->buffers[i].page_size != in->page_size)
			return ft_error("cannot convert '%s': buffer '%s' has %u-byte pages, "
					"the file %u",
					in_path, in->buffers[i].name, in->buffers[i].page_size,
					in->page_size);
	return 0;
}

/* The kernel symbols to write: the file's, --kallsyms's, cut down to --keep-symbols */
struct conv_kallsyms {
	const char *text;
	size_t len;
	char *own, *trimmed;
	struct names keep;
};

static int pick_kallsyms(const struct fmt_info *in, const struct rpt_convert_opts *o,
			 struct conv_kallsyms *k)
{
	int rc, err;

	k->text = in->kallsyms.data ? in->kallsyms.data : "";
	k->len = in->kallsyms.len;
	if (o->kallsyms_path) {
		rc = read_kallsyms(o->kallsyms_path, &k->own, &k->len);
		if (rc)
			return rc;
		k->text = k->own;
	}
	if (!o->keep_symbols_path)
		return 0;
	err = load_names(o->keep_symbols_path, &k->keep);
	if (err == -EINVAL || err == -EFBIG)
		return ft_error("'%s' is not a list of symbol names (%s)", o->keep_symbols_path,
				err == -EFBIG ? "over 64 MB" : "binary data");
	if (err)
		return ft_error("cannot read '%s': %s", o->keep_symbols_path, strerror(-err));
	k->trimmed = trim_kallsyms(k->text, k->len, &k->keep, &k->len);
	if (!k->trimmed)
		return ft_error("out of memory trimming the kernel symbols");
	k->text = k->trimmed;
	return 0;
}

/* Everything before the buffers; *what names the part that failed */
static int copy_metadata(struct conv *cv, const struct fmt_info *in, const struct conv_kallsyms *k,
			 const struct rpt_convert_opts *o, const char **what, bool *have_cpucount)
{
	int err;

	*what = "headers";
	err = fmt_writer_headers(cv->w, in->header_page.data, in->header_page.len,
				 in->header_event.data, in->header_event.len);
	if (!err) {
		*what = "event formats";
		err = fmt_reader_formats(cv->r, format_cb, cv);
	}
	if (!err) {
		*what = "kallsyms";
		err = fmt_writer_kallsyms(cv->w, k->text, k->len);
	}
	if (!err && !o->drop_printk) {
		*what = "printk formats";
		err = fmt_writer_printk(cv->w, in->printk.data, in->printk.len);
	}
	if (!err) {
		*what = "cmdlines";
		err = fmt_writer_cmdlines(cv->w, in->cmdlines.data, in->cmdlines.len);
	}
	if (!err) {
		*what = "options";
		err = rpt_copy_options(cv->r, cv->w, NULL, NULL, have_cpucount);
	}
	return err;
}

/*
 * Every buffer's pages, CPU by CPU.  Damage in the input keeps what was
 * readable and sets *rc; a writer error is returned.  *maxcpu: the highest
 * CPU that had pages.
 */
static int copy_buffers(struct conv *cv, const struct fmt_info *in, const char *in_path,
			int *maxcpu, int *rc)
{
	int i, j, err = 0;

	for (i = 0; i < in->nbuffers && !err; i++) {
		const struct fmt_buffer *b = &in->buffers[i];

		err = fmt_wbuf_new(cv->w, b->name, b->clock, &cv->b);
		for (j = 0; j < b->ncpus && !err; j++) {
			uint64_t before = cv->pages;

			cv->cpu = b->cpus[j].cpu;
			err = fmt_reader_read_pages(cv->r, i, cv->cpu, page_cb, cv);
			if (err && !fmt_writer_error(cv->w)[0]) {
				ft_warn("'%s': %s; the output keeps the pages before it", in_path,
					fmt_reader_error(cv->r));
				*rc = EXIT_FAIL;
				err = 0;
			}
			if (cv->pages > before && cv->cpu > *maxcpu)
				*maxcpu = cv->cpu;
			ft_info("buffer '%s' cpu %d: %llu pages", b->name, cv->cpu,
				(unsigned long long)(cv->pages - before));
		}
	}
	return err;
}

static int open_output(struct conv *cv, const struct fmt_info *in, const char *out_path,
		       const struct rpt_convert_opts *o)
{
	struct fmt_writer_opts wo = { 0 };
	int err;

	wo.compression = o->compression ? o->compression : "zstd";
	wo.zstd_level = o->level;
	wo.big_endian = in->big_endian;
	wo.long_size = in->long_size == 4 || in->long_size == 8 ? in->long_size : in->kernel_long;
	wo.page_size = in->page_size;
	wo.pages_per_chunk = o->chunk;
	wo.discard_spools_on_error = true;
	err = rpt_writer_open(out_path, &wo, &cv->w);
	return err ? ft_error("cannot create '%s': %s", out_path, strerror(-err)) : 0;
}

/* Copy the open input into the open writer, then close it; the writer is gone after */
static int convert_into(struct conv *cv, const struct fmt_info *in, const char *in_path,
			const char *out_path, const struct rpt_convert_opts *o,
			const struct conv_kallsyms *k)
{
	bool have_cpucount = false;
	const char *what = "";
	int err, maxcpu = -1, rc = EXIT_OK;

	err = copy_metadata(cv, in, k, o, &what, &have_cpucount);
	if (!err) {
		what = "buffers";
		err = copy_buffers(cv, in, in_path, &maxcpu, &rc);
	}
	/* a v6 file says its CPU count in the header, not in an option */
	if (!err && !have_cpucount) {
		int n = in->cpus > maxcpu + 1 ? in->cpus : maxcpu + 1;

		err = fmt_writer_cpucount(cv->w, (uint32_t)n);
	}
	if (err) {
		rc = ft_error("cannot convert '%s' (%s): %s", in_path, what,
			      fmt_writer_error(cv->w)[0] ? fmt_writer_error(cv->w) :
							   strerror(-err));
		rpt_writer_abort(cv->w); /* removes its temporary file; out_path is untouched */
		return rc;
	}
	err = rpt_writer_close(cv->w);
	if (err)	/* the writer is freed by close: its message went with it */
		return ft_error("cannot write '%s': %s", out_path, strerror(-err));
	if (in->truncated_at) {
		ft_warn("'%s' ends early (at byte %llu): '%s' holds only the readable part",
			in_path, (unsigned long long)in->truncated_at, out_path);
		rc = EXIT_FAIL;
	}
	ft_info("wrote '%s': %llu pages", out_path, (unsigned long long)cv->pages);
	return rc;
}

int rpt_convert(const char *in_path, const char *out_path, const struct rpt_convert_opts *o)
{
	struct conv cv = { 0 };
	struct conv_kallsyms k = { 0 };
	const struct fmt_info *in;
	char *err_text = NULL;
	int err, rc;

	err = fmt_reader_open(in_path, FMT_OPEN_NO_PLUGINS, &cv.r, &err_text);
	if (err) {
		ft_error("%s", err_text ? err_text : strerror(-err));
		free(err_text);
		return EXIT_FAIL;
	}
	in = fmt_reader_info(cv.r);
	rc = check_convertible(&cv, in, in_path);
	if (!rc)
		rc = pick_kallsyms(in, o, &k);
	if (!rc)
		rc = open_output(&cv, in, out_path, o);
	if (!rc)
		rc = convert_into(&cv, in, in_path, out_path, o, &k);
	fmt_reader_close(cv.r);
	free(k.own);
	free(k.trimmed);
	free_names(&k.keep);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	static const struct ft_opt opts[] = {
		{ NULL, 'i', true, 'i' }, { "output", 'o', true, 'o' },
		{ "compression", 'c', true, 'c' }, { "level", 'l', true, 'l' },
		{ "chunk", 0, true, 'C' }, { "kallsyms", 0, true, 'K' },
		{ "keep-symbols", 0, true, 'S' }, { NULL, 'v', false, FT_OPT_ID_VERBOSE },
		FT_OPT_HELP_ENTRY, { 0 },
	};
	static const char *const help[] = { usage_text, NULL };
	struct rpt_convert_opts co = { .compression = "zstd" };
	const char *in_path = NULL, *out_path = NULL, *arg;
	struct ft_optparse p;
	struct stat si, so;
	uint64_t v;
	int c;

	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		arg = p.value;
		switch (c) {
		case 'i':
		case FT_OPT_OPERAND:
			if (in_path)
				return ft_usage_error("more than one input file given");
			in_path = arg;
			break;
		case 'o':
			out_path = arg;
			break;
		case 'c':
			if (strcmp(arg, "zstd") && strcmp(arg, "none"))
				return ft_usage_error("unknown compression '%s' (use zstd or none)",
						      arg);
			co.compression = arg;
			break;
		case 'l':
			if (ft_parse_u64(arg, &v) || v < 1 || v > 19)
				return ft_usage_error("invalid level '%s' (1..19)", arg);
			co.level = (int)v;
			break;
		case 'C':
			if (ft_parse_u64(arg, &v) || v < 1 || v > 1024)
				return ft_usage_error("invalid chunk size '%s' (1..1024 pages)",
						      arg);
			co.chunk = (int)v;
			break;
		case 'K':
			co.kallsyms_path = arg;
			break;
		case 'S':
			co.keep_symbols_path = arg;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (!in_path)
		return ft_usage_error("no input file given");
	if (!out_path)
		return ft_usage_error("no output file given (-o OUT)");
	if (co.level && strcmp(co.compression, "zstd"))
		return ft_usage_error("--level applies to zstd only");
	{
		const char *why = NULL;

		if (fmt_outfile_check(out_path, &why) && why)
			return ft_usage_error("cannot write '%s': %s", out_path, why);
	}
	/* the output replaces the input only when complete, but an in-place convert is a mistake */
	if (stat(in_path, &si) == 0 && stat(out_path, &so) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino)
		return ft_usage_error("the output '%s' is the input", out_path);
	return rpt_convert(in_path, out_path, &co);
}
