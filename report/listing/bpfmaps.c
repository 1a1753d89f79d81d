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

#include "format.h"
#include "report/listing/bpfmaps.h"

static const char *why_name(uint32_t flags)
{
	switch (FMT_BPFMAP_WHY(flags)) {
	case 0: return "end";
	case 1: return "snapshot";
	case 2: return "dump";
	}
	return "other";
}

static void entries(const struct fmt_bpfmap *m, bool json, FILE *out)
{
	const char *k, *v;
	size_t pos = 0, kl, vl, n = 0;

	fputs("[", out);
	while (fmt_bpfmap_next(m, &pos, &k, &kl, &v, &vl))
		fprintf(out, "%s%s{\"key\":%.*s,\"value\":%.*s}", n++ ? "," : "",
			json ? "" : "\n  ", (int)kl, k, (int)vl, v);
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
			entries(&m, true, out);
			fputs("}", out);
		} else {
			fprintf(out, "%s%.*s at %" PRIu64 ".%06" PRIu64 " (%s): %u entr%s%s\n",
				k ? "\n" : "", (int)m.name_len, m.name, ts / 1000000000,
				ts % 1000000000 / 1000, why_name(m.flags), m.nentries,
				m.nentries == 1 ? "y" : "ies",
				m.flags & FMT_BPFMAP_TRUNCATED ? " (truncated: the size or time bound of the read)" : "");
			entries(&m, false, out);
		}
	}
	if (json)
		fputs("]\n", out);
	return 0;
}
