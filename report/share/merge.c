// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap merge: recordings that one trace.dat can hold, as one file.  The
 * command (arguments and summary); the engine that checks and joins the
 * files is core/join.c, which also joins the rotation segments given to
 * the reading commands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "format.h"
#include "report/core/join.h"
#include "report/out/json.h"

static const char usage_text[] =
	"usage: flytrap merge [options] FILE FILE... -o OUT\n"
	"\n"
	"Join recordings that one trace.dat can hold: the segments of a rotation or\n"
	"the dumps of a flight recorder (one recording: joined in order, every event\n"
	"once), or recordings made on the same kernel of the same machine (each as a\n"
	"buffer of its own, named after its file).  Files from other kernels or\n"
	"machines are refused: read them together with 'flytrap report -i A -i B',\n"
	"or load them into ClickHouse with 'flytrap load'.\n"
	"\n"
	"  -o, --output FILE      where to write (required; never an input)\n"
	"      --name FILE=NAME   the buffer name of FILE's events (default: its base\n"
	"                         name without .dat)\n"
	"      --offset FILE=NS   add NS nanoseconds (may be negative) to FILE's times\n"
	"      --json             a JSON summary on standard output\n"
	"  -v                     more messages\n"
	"  -h, --help             this help\n";

/* ---- arguments ---------------------------------------------------------------------- */

static struct rpt_merge_src *src_named(struct rpt_merge *m, const char *spec,
				       const char **value)
{
	const char *eq = strrchr(spec, '=');

	if (!eq || eq == spec || !eq[1])
		return NULL;
	for (int i = 0; i < m->n; i++) {
		size_t l = strlen(m->s[i].path);
		const char *base = strrchr(m->s[i].path, '/');

		base = base ? base + 1 : m->s[i].path;
		if (((size_t)(eq - spec) == l && !memcmp(spec, m->s[i].path, l)) ||
		    ((size_t)(eq - spec) == strlen(base) && !memcmp(spec, base, strlen(base)))) {
			*value = eq + 1;
			return &m->s[i];
		}
	}
	return NULL;
}

static int parse_args(struct rpt_merge *m, int argc, char **argv)
{
	static const struct ft_opt opts[] = {
		FT_OPT_HELP_ENTRY, { NULL, 'v', false, FT_OPT_ID_VERBOSE }, { "json", 0, false, 'j' },
		{ "output", 'o', true, 'o' }, { "name", 0, true, 'n' }, { "offset", 0, true, 'O' },
		{ 0 },
	};
	static const char *const help[] = { usage_text, NULL };
	const char **names = NULL, **offsets = NULL;
	int nnames = 0, noffsets = 0, rc = 0, id;
	struct ft_optparse p;

	m->s = calloc((size_t)argc, sizeof(*m->s));
	names = calloc((size_t)argc, sizeof(*names));
	offsets = calloc((size_t)argc, sizeof(*offsets));
	if (!m->s || !names || !offsets) {
		rc = ft_error("out of memory");
		goto out;
	}
	ft_opt_init(&p, argc, argv, opts);
	while (!rc && (id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		switch (id) {
		case 'j': m->json = true; break;
		case 'o': m->out_path = p.value; break;
		case 'n': names[nnames++] = p.value; break;
		case 'O': offsets[noffsets++] = p.value; break;
		case FT_OPT_OPERAND:
			m->s[m->n].path = p.value;
			m->s[m->n].seq = -1;
			m->n++;
			break;
		default:
			rc = EXIT_USAGE;	/* the parser said why */
		}
	}
	if (rc)
		goto out;
	if (m->n < 2) {
		rc = ft_usage_error(m->n ? "one input file given: merge needs two or more"
					 : "no input files given");
		goto out;
	}
	if (!m->out_path || !*m->out_path) {
		rc = ft_usage_error("no output file given (-o OUT)");
		goto out;
	}
	{
		const char *why = NULL;

		if (fmt_outfile_check(m->out_path, &why) && why) {
			rc = ft_usage_error("cannot write '%s': %s", m->out_path, why);
			goto out;
		}
	}
	for (int i = 0; i < nnames; i++) {
		const char *v;
		struct rpt_merge_src *s = src_named(m, names[i], &v);

		if (!s) {
			rc = ft_usage_error("--name '%s': not FILE=NAME with FILE one of "
					    "the inputs", names[i]);
			goto out;
		}
		s->name = v;
	}
	for (int i = 0; i < noffsets; i++) {
		const char *v;
		struct rpt_merge_src *s = src_named(m, offsets[i], &v);
		char *end;
		long long ns;

		errno = 0;
		ns = s ? strtoll(v, &end, 10) : 0;
		if (!s || errno || *end) {
			rc = ft_usage_error("--offset '%s': not FILE=NS (nanoseconds) with FILE "
					    "one of the inputs",
					    offsets[i]);
			goto out;
		}
		s->user_offset = ns;
		s->has_user_offset = true;
	}
out:
	free(names);
	free(offsets);
	return rc;
}

/* ---- the summary ------------------------------------------------------------------------ */

static void print_summary(const struct rpt_merge *m)
{
	uint64_t dups = 0;

	for (int i = 0; i < m->n; i++)
		dups += m->s[i].dups;
	if (m->json) {
		struct rpt_json j;

		if (rpt_json_init(&j, stdout, 0))
			return;
		rpt_json_obj(&j);
		rpt_json_kstr(&j, "output", m->out_path);
		rpt_json_kstr(&j, "kind", m->one_recording ? "one_recording" : "buffers");
		rpt_json_ku64(&j, "events", m->written);
		rpt_json_ku64(&j, "duplicates", dups);
		rpt_json_karr(&j, "sources");
		for (int i = 0; i < m->n; i++) {
			const struct rpt_merge_src *s = &m->s[i];

			rpt_json_obj(&j);
			rpt_json_kstr(&j, "file", s->path);
			rpt_json_kstr(&j, "buffer", m->one_recording ? "" : s->name);
			rpt_json_ku64(&j, "events", s->events);
			rpt_json_ku64(&j, "duplicates", s->dups);
			rpt_json_ku64(&j, "loss_markers", s->losses);
			rpt_json_ki64(&j, "shift_ns", s->shift);
			rpt_json_ku64(&j, "first_ns", s->first_ts);
			rpt_json_ku64(&j, "last_ns", s->last_ts);
			rpt_json_obj_end(&j);
		}
		rpt_json_arr_end(&j);
		rpt_json_obj_end(&j);
		RPT_JSON_LIT(&j, "\n");
		rpt_json_done(&j);	/* a failed write stays on stdout (ft_finish_stdout) */
		return;
	}
	printf("%s: %" PRIu64 " events from %d files (%s)\n", m->out_path, m->written, m->n,
	       m->one_recording ? "one recording, in order" : "one buffer each");
	printf("  %-28s %-20s %12s %10s\n", "file", m->one_recording ? "" : "buffer", "events",
	       m->one_recording ? "repeated" : "shift ns");
	for (int i = 0; i < m->n; i++) {
		const struct rpt_merge_src *s = &m->s[i];
		const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;

		printf("  %-28.28s %-20.20s %12" PRIu64 " %10" PRId64 "\n", base,
		       m->one_recording ? "" : s->name, s->events,
		       m->one_recording ? (int64_t)s->dups : s->shift);
	}
}

/* ---- the command ------------------------------------------------------------------------ */

int cmd_merge(int argc, char **argv)
{
	struct rpt_merge m = { 0 };
	int rc;

	if (!(rc = parse_args(&m, argc, argv)) && !(rc = rpt_merge_open(&m)) &&
	    !(rc = rpt_merge_write(&m)))
		print_summary(&m);
	rpt_merge_release(&m);
	return ft_finish_stdout(rc);
}
