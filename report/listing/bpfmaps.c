// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --bpf-maps: the map snapshots record --bpf-object stored
 * (FMT_OPT_FT_BPFMAP), entries as the recorder typed them from BTF, the
 * way `bpftool map dump` prints them.  format/ checked every entry is one
 * JSON value, so they are copied as they are.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report/listing/bpfmaps.h"
#include "report/syms/symbols.h"

static const char *why_name(uint32_t flags)
{
	switch (FMT_BPFMAP_WHY(flags)) {
	case 0: return "end";
	case 1: return "snapshot";
	case 2: return "dump";
	}
	return "other";
}

/*
 * A stack trace map's value, ["0xADDR",...]: each kernel address with its
 * function from the file's kallsyms, one frame a line (user addresses have
 * no process in a stack map to resolve them in: printed bare).
 */
static void frames(struct rpt_syms *sy, const char *v, size_t vl, FILE *out)
{
	const char *p = v, *end = v + vl;
	int i = 0;

	while (p < end && (p = memchr(p, '"', end - p)) && p + 1 < end) {
		char *e;
		uint64_t a = strtoull(p + 1, &e, 16), off = 0;
		const char *fn = sy ? rpt_syms_kernel(sy, a, &off) : NULL;

		if (e == p + 1 || e >= end || *e != '"')
			break;
		if (fn)
			fprintf(out, "      #%d 0x%" PRIx64 " %s+0x%" PRIx64 "\n", i++, a, fn, off);
		else
			fprintf(out, "      #%d 0x%" PRIx64 "\n", i++, a);
		p = e + 1;
	}
}

static void entries(const struct fmt_bpfmap *m, bool json, struct rpt_syms *sy, FILE *out)
{
	const char *k, *v;
	size_t pos = 0, kl, vl, n = 0;

	fputs("[", out);
	while (fmt_bpfmap_next(m, &pos, &k, &kl, &v, &vl)) {
		fprintf(out, "%s%s{\"key\":%.*s,\"value\":%.*s}", n++ ? "," : "",
			json ? "" : "\n  ", (int)kl, k, (int)vl, v);
		if (!json && (m->flags & FMT_BPFMAP_STACKS)) {
			fputs("\n", out);
			frames(sy, v, vl, out);
		}
	}
	fputs(json || !n ? "]" : "\n]\n", out);
	if (!json && !n)
		fputs("\n", out);
}

int rpt_bpfmaps_print(struct fmt_reader *r, bool json, FILE *out, const char **why)
{
	const struct fmt_info *in = fmt_reader_info(r);
	bool swap = in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	const struct fmt_option *o;
	struct fmt_bpfmap m;
	struct rpt_syms *sy = NULL;
	int k, err;

	/* check all first: a damaged file prints nothing that looks complete */
	for (k = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPFMAP, k)); k++) {
		err = fmt_bpfmap_parse(o->data, o->size, swap, &m, why);
		if (err)
			return err;
	}
	for (k = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPFOBJ, k)); k++) {
		struct fmt_bpfobj ob;

		err = fmt_bpfobj_parse(o->data, o->size, swap, &ob, why);
		if (err)
			return err;
	}
	if (json)
		fputs("[", out);
	for (k = 0; (o = fmt_reader_option(r, FMT_OPT_FT_BPFMAP, k)); k++) {
		uint64_t ts;

		fmt_bpfmap_parse(o->data, o->size, swap, &m, NULL);
		ts = fmt_reader_adjust_ts(r, m.ts);
		if (json) {
			fprintf(out, "%s{\"map\":\"", k ? "," : "");
			/* names are identifiers and '/', checked by the recorder; escape anyway */
			for (size_t i = 0; i < m.name_len; i++) {
				unsigned char c = m.name[i];

				if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f)
					fprintf(out, "\\u%04x", c);
				else
					fputc(c, out);
			}
			fprintf(out, "\",\"ts\":%" PRIu64 ",\"why\":\"%s\",\"truncated\":%s,"
				"\"percpu\":%s,\"entries\":", ts, why_name(m.flags),
				m.flags & FMT_BPFMAP_TRUNCATED ? "true" : "false",
				m.flags & FMT_BPFMAP_PERCPU ? "true" : "false");
			entries(&m, true, NULL, out);
			fputs("}", out);
		} else {
			fprintf(out, "%s%.*s at %" PRIu64 ".%06" PRIu64 " (%s): %u entr%s%s\n",
				k ? "\n" : "", (int)m.name_len, m.name, ts / 1000000000,
				ts % 1000000000 / 1000, why_name(m.flags), m.nentries,
				m.nentries == 1 ? "y" : "ies",
				m.flags & FMT_BPFMAP_TRUNCATED ? " (truncated: the size or time bound of the read)" : "");
			if ((m.flags & FMT_BPFMAP_STACKS) && !sy)
				sy = rpt_syms_new(r, NULL, NULL, RPT_SYMS_NO_DEBUGINFOD);
			entries(&m, false, sy, out);
		}
	}
	if (json)
		fputs("]\n", out);
	rpt_syms_free(sy);
	return 0;
}
