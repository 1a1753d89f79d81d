// SPDX-License-Identifier: GPL-2.0-only
/*
 * trim_kallsyms IN OUT NAMES: copy the trace.dat IN to OUT with its
 * kallsyms cut down to the symbols named in the file NAMES (one per line),
 * each followed by the next symbol in address order so every kept symbol
 * still has its end.  printk formats are dropped.  Ring-buffer pages,
 * event formats, cmdlines and options are copied as they are.
 *
 * Used by tests/lab/10-kernel-lab.sh (FLYTRAP_LAB_UPDATE_GOLDEN=1) to turn
 * the lab's real function_graph recording (~900 KB, almost all of it the
 * lab kernel's kallsyms) into a small golden file; the script then checks
 * that trace-cmd report prints the trimmed file exactly as the original.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct sym {
	unsigned long long addr;
	const char *line;
	size_t len;
	const char *name;
	size_t nlen;
};

static char **names;
static size_t nnames;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const char *name, size_t len)
{
	char buf[512], *key = buf;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return bsearch(&key, names, nnames, sizeof(*names), cmp_str) != NULL;
}

static int load_names(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char **nn;

		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		nn = realloc(names, (nnames + 1) * sizeof(*nn));
		if (!nn || !(nn[nnames] = strdup(line))) {
			free(nn ? nn : names);
			fclose(f);
			return -ENOMEM;
		}
		names = nn;
		nnames++;
	}
	fclose(f);
	qsort(names, nnames, sizeof(*names), cmp_str);
	return 0;
}

/* The trimmed kallsyms text (malloc'd) of text[0..len). */
static char *trim(const char *text, size_t len, size_t *out_len)
{
	struct sym *s = NULL;
	size_t n = 0, cap = 0, i, o = 0;
	const char *p = text, *end = text + len;
	char *out;
	bool *keep;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q;
		struct sym y = { 0 };
		char *ae;

		y.addr = strtoull(p, &ae, 16);
		y.line = p;
		y.len = (size_t)(le - p) + (nl ? 1 : 0);
		/* "ADDR T name [module]" */
		q = ae;
		while (q < le && *q == ' ')
			q++;
		while (q < le && *q != ' ')
			q++;
		while (q < le && *q == ' ')
			q++;
		y.name = q;
		while (q < le && *q != ' ' && *q != '\t')
			q++;
		y.nlen = (size_t)(q - y.name);
		if (ae != p && y.nlen) {
			if (n == cap) {
				struct sym *ns = realloc(s, (cap = cap ? cap * 2 : 4096) * sizeof(*s));

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
	qsort(s, n, sizeof(*s), cmp_sym);
	keep = calloc(n + 1, 1);
	out = malloc(len + 1);
	if (!keep || !out) {
		free(keep);
		free(out);
		free(s);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (wanted(s[i].name, s[i].nlen)) {
			keep[i] = true;
			/* the next symbol at a higher address bounds this one */
			for (size_t j = i + 1; j < n; j++) {
				if (s[j].addr > s[i].addr) {
					keep[j] = true;
					break;
				}
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

struct copy {
	struct fmt_wbuf *b;
	struct fmt_writer *w;
	int cpu;
};

static int format_cb(void *arg, const char *system, const char *text, size_t len)
{
	struct copy *c = arg;

	if (!strcmp(system, "ftrace"))
		return fmt_writer_ftrace_format(c->w, text, len);
	return fmt_writer_event_format(c->w, system, text, len);
}

static int page_cb(void *arg, const void *page, uint32_t page_size)
{
	struct copy *c = arg;

	return fmt_wbuf_add_page(c->b, c->cpu, page);
}

/* Options the writer makes itself, and ones pointing into the old file. */
static bool skipped_option(uint16_t id)
{
	switch (id) {
	case FMT_OPT_DONE:
	case FMT_OPT_BUFFER:
	case FMT_OPT_STRINGS:
	case FMT_OPT_HEADER_INFO:
	case FMT_OPT_FTRACE_EVENTS:
	case FMT_OPT_EVENT_FORMATS:
	case FMT_OPT_KALLSYMS:
	case FMT_OPT_PRINTK:
	case FMT_OPT_CMDLINES:
	case FMT_OPT_BUFFER_TEXT:
	case FMT_OPT_FT_SYMTAB:
	case FMT_OPT_FT_PROCMAPS:
		return true;
	default:
		return false;
	}
}

int main(int argc, char **argv)
{
	struct fmt_writer_opts wo = { 0 };
	struct copy c = { 0 };
	struct fmt_reader *r = NULL;
	const struct fmt_info *in;
	char *err_text = NULL, *ks = NULL;
	size_t kslen = 0;
	int err, i, j;

	if (argc != 4) {
		fprintf(stderr, "usage: trim_kallsyms IN OUT NAMES\n");
		return 2;
	}
	err = load_names(argv[3]);
	if (err) {
		fprintf(stderr, "trim_kallsyms: cannot read '%s': %s\n", argv[3], strerror(-err));
		return 1;
	}
	err = fmt_reader_open(argv[1], FMT_OPEN_NO_PLUGINS, &r, &err_text);
	if (err) {
		fprintf(stderr, "trim_kallsyms: %s\n", err_text ? err_text : strerror(-err));
		free(err_text);
		return 1;
	}
	in = fmt_reader_info(r);
	ks = trim(in->kallsyms.data ? in->kallsyms.data : "", in->kallsyms.len, &kslen);
	if (!ks) {
		fprintf(stderr, "trim_kallsyms: out of memory\n");
		fmt_reader_close(r);
		return 1;
	}
	wo.big_endian = in->big_endian;
	wo.long_size = in->long_size;
	wo.page_size = in->page_size;
	wo.zstd_level = 19;
	wo.discard_spools_on_error = true;
	err = fmt_writer_open(argv[2], &wo, &c.w);
	if (!err)
		err = fmt_writer_headers(c.w, in->header_page.data, in->header_page.len,
					 in->header_event.data, in->header_event.len);
	if (!err)
		err = fmt_reader_formats(r, format_cb, &c);
	if (!err)
		err = fmt_writer_kallsyms(c.w, ks, kslen);
	if (!err)
		err = fmt_writer_cmdlines(c.w, in->cmdlines.data, in->cmdlines.len);
	for (i = 0; i < in->noptions && !err; i++)
		if (!skipped_option(in->options[i].id))
			err = fmt_writer_option(c.w, in->options[i].id, in->options[i].data,
						in->options[i].size);
	for (i = 0; i < in->nbuffers && !err; i++) {
		const struct fmt_buffer *b = &in->buffers[i];

		err = fmt_wbuf_new(c.w, b->name, b->clock, &c.b);
		for (j = 0; j < b->ncpus && !err; j++) {
			c.cpu = b->cpus[j].cpu;
			err = fmt_reader_read_pages(r, i, c.cpu, page_cb, &c);
		}
	}
	if (err) {
		fprintf(stderr, "trim_kallsyms: cannot copy '%s': %s\n", argv[1],
			c.w && fmt_writer_error(c.w)[0] ? fmt_writer_error(c.w) : strerror(-err));
		if (c.w)
			fmt_writer_abort(c.w);
		remove(argv[2]);
	} else {
		err = fmt_writer_close(c.w);
		if (err)
			fprintf(stderr, "trim_kallsyms: cannot write '%s': %s\n", argv[2], strerror(-err));
	}
	free(ks);
	fmt_reader_close(r);
	for (size_t k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	return err ? 1 : 0;
}
