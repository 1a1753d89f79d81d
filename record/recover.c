// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap recover FILE: finish the output of a recorder that was killed (or
 * whose disk filled up), from the metadata already in FILE and the complete
 * chunks in its spool files.  The work is the writer's (fmt_writer_recover);
 * this is the command around it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flytrap.h"
#include "format.h"
#include "record/state.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap recover [-v] FILE\n"
"\n"
"Make the partial output of a killed recorder readable: keep the metadata\n"
"FILE already holds, add the complete compressed chunks from its spool files,\n"
"and write the closing options.  At most the last unflushed chunk per CPU is\n"
"lost.  FILE is rewritten in place; the spool files are removed.\n"
"\n"
"  -v, --verbose   more messages\n"
"  -h, --help      this text\n");
}

/* The run note of the dead recorder that wrote file is done with. */
static void forget_note(const char *file)
{
	struct rec_note *v;
	char *abs = rec_abs_path(file);
	int n, i;

	if (!abs || rec_state_prepare(false))
		goto out;
	n = rec_notes_list(&v);
	for (i = 0; i < n; i++)
		if (v[i].output && !strcmp(v[i].output, abs) && !rec_note_alive(&v[i]))
			rec_note_remove_pid(v[i].pid);
	if (n > 0)
		rec_notes_free(v, n);
out:
	free(abs);
}

static const struct option long_opts[] = {
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_recover(int argc, char **argv)
{
	char *msg = NULL;
	struct stat st;
	int c, err;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":vh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		default:
			return ft_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return ft_usage_error("missing FILE");
	if (optind + 1 < argc)
		return ft_usage_error("unexpected argument '%s'", argv[optind + 1]);
	if (stat(argv[optind], &st))
		return ft_error("cannot open '%s': %s", argv[optind], strerror(errno));
	err = fmt_writer_recover(argv[optind], &msg);
	if (err == 1) {
		fprintf(stderr, "flytrap: '%s' is complete already: nothing to recover\n", argv[optind]);
		return EXIT_OK;
	}
	if (err) {
		ft_error("cannot recover '%s': %s", argv[optind], msg ? msg : strerror(-err));
		free(msg);
		return EXIT_FAIL;
	}
	free(msg);
	forget_note(argv[optind]);
	if (!stat(argv[optind], &st))
		fprintf(stderr, "flytrap: recovered '%s' (%llu bytes)\n", argv[optind],
			(unsigned long long)st.st_size);
	return EXIT_OK;
}
