// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap recover FILE: finish the output of a recorder that was killed (or
 * whose disk filled up), from the metadata already in FILE and the complete
 * chunks in its spool files.  The work is the writer's (fmt_writer_recover);
 * this is the command around it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "format.h"
#include "record/flight.h"
#include "record/record.h"
#include "record/state.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap recover [-v] FILE\n"
"       flytrap recover --last-boot [-i NAME] -o FILE   (the previous boot's\n"
"       events from a boot-reserved buffer: flytrap recover --last-boot -h)\n"
"\n"
"Make the partial output of a killed recorder readable: keep the metadata\n"
"it already holds, add the complete compressed chunks from its spool files,\n"
"and write the closing options.  At most the last unflushed chunk per CPU is\n"
"lost.  FILE is the name the recording was going to (-o): its temporary file\n"
"and spool files are found through the recorder's run note in /run/flytrap,\n"
"and the finished file is renamed to FILE.  Without a note (after a reboot)\n"
"FILE is rewritten in place, with only the spool files of FILE's owner.\n"
"A killed --rotate recording: FILE is its -o name; the file it was filling\n"
"is written as the next FILE-NNNN (run 'flytrap reset' first: it adds what\n"
"the kernel still held).\n"
"\n"
"  -v, --verbose   more messages\n"
"  -h, --help      this text\n");
}

/* The note of a dead recorder whose output or temporary file is abs: 0, or -ENOENT. */
static int find_note(const char *abs, struct rec_note *out)
{
	struct rec_note *v;
	int n, i, err = -ENOENT;

	if (!abs || rec_state_prepare(false))
		return -ENOENT;
	n = rec_notes_list(&v);
	for (i = 0; i < n && err; i++) {
		if (!(v[i].output && !strcmp(v[i].output, abs)) && !(v[i].temp && !strcmp(v[i].temp, abs)))
			continue;
		*out = v[i];
		memset(&v[i], 0, sizeof(v[i]));
		err = 0;
	}
	if (n > 0)
		rec_notes_free(v, n);
	return err;
}

/*
 * The writer's recovery of temp with these spools, for the note of output;
 * EXIT_OK, or EXIT_FAIL once said why.
 */
static int recover_spools(const char *output, const char *temp, char *const *spools, int nspools,
			  const char *names)
{
	char *msg = NULL;
	int err = fmt_writer_recover_spools_names(temp, (const char *const *)spools, nspools, names,
						  names ? strlen(names) : 0, &msg);

	if (err < 0)
		ft_error("cannot recover '%s' (from '%s'): %s", output, temp,
			 msg ? msg : strerror(-err));
	free(msg);
	return err < 0 ? EXIT_FAIL : EXIT_OK;
}

/* whether text (cmdlines lines) names pid */
static bool names_pid(const char *text, int pid)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (atoi(l) == pid)
			return true;
	return false;
}

/*
 * The task names a killed recording's file gets: the recorder writes a
 * file's cmdlines when it finishes it, so the one the kill interrupted has
 * none, and a task its events never name (one that ran without switching,
 * say) would be "<...>".  For a rotation, the names of the file before it
 * (the same recording, its tasks); then the kernel's saved_cmdlines for the
 * pids those lack.  NULL when neither has any.
 */
static char *recovered_names(const char *output, bool rotation)
{
	char *prev = rotation ? rec_flight_last_file(output) : NULL, *kern, *text = NULL, *line;
	char *save = NULL;
	struct fmt_reader *r = NULL;
	size_t len = 0, klen = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		free(prev);
		return NULL;
	}
	if (prev && !fmt_reader_open(prev, FMT_OPEN_NO_PLUGINS | FMT_OPEN_LAZY_FORMATS |
				     FMT_OPEN_LAZY_KALLSYMS, &r, NULL)) {
		const struct fmt_info *in = fmt_reader_info(r);

		if (in && in->cmdlines.len)
			fprintf(m, "%.*s%s", (int)in->cmdlines.len, (const char *)in->cmdlines.data,
				((const char *)in->cmdlines.data)[in->cmdlines.len - 1] == '\n' ? "" : "\n");
		fmt_reader_close(r);
	}
	free(prev);
	if (fflush(m)) {
		fclose(m);
		free(text);
		return NULL;
	}
	kern = rec_tracefs_read("saved_cmdlines", &klen);
	for (line = kern ? strtok_r(kern, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		if (!names_pid(text, atoi(line)))
			fprintf(m, "%s\n", line);
	free(kern);
	if (fclose(m) || !len) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Finish what the recorder of note n left: its temporary file with the
 * spools the note lists, then renamed to the output, owned as the note says.
 */
static int recover_noted(const struct rec_note *n)
{
	char *names = recovered_names(n->output, false);
	struct stat st;
	int err;

	err = recover_spools(n->output, n->temp, n->spools, n->nspools, names);
	free(names);
	if (err)
		return EXIT_FAIL;
	err = fmt_outfile_place(n->temp, n->output, n->chown, n->uid, n->gid);
	if (err) {
		const char *why = NULL;

		fmt_outfile_check(n->output, &why);
		ft_error("cannot rename '%s' to '%s': %s", n->temp, n->output, why ? why : strerror(-err));
		return EXIT_FAIL;
	}
	rec_note_remove_pid(n->pid);
	if (!stat(n->output, &st))
		fprintf(stderr, "flytrap: recovered '%s' (%llu bytes)\n", n->output,
			(unsigned long long)st.st_size);
	return EXIT_OK;
}

/* No note names file: finish it where it is (spools checked by the writer). */
static int recover_in_place(const char *file)
{
	char *msg = NULL;
	struct stat st;
	int err;

	if (lstat(file, &st))
		return ft_error("cannot open '%s': %s (and no recording of it is noted in '%s')", file,
				strerror(errno), rec_state_dir());
	err = fmt_writer_recover(file, &msg);
	if (err == 1) {
		fprintf(stderr, "flytrap: '%s' is complete already: nothing to recover\n", file);
		return EXIT_OK;
	}
	if (err) {
		ft_error("cannot recover '%s': %s", file, msg ? msg : strerror(-err));
		free(msg);
		return EXIT_FAIL;
	}
	free(msg);
	if (!stat(file, &st))
		fprintf(stderr, "flytrap: recovered '%s' (%llu bytes)\n", file,
			(unsigned long long)st.st_size);
	return EXIT_OK;
}

/*
 * A flight recorder keeps its recent chunks in a store of segment files,
 * and no file of its metadata (formats, kallsyms, options): its window was
 * never going to be a file without a trigger, and its dumps are complete
 * files already.  The note stays, so that reset still finds the store
 * (which can hold the whole --flight limit of disk).
 */
static int refuse_store(const struct rec_note *n)
{
	return ft_error("cannot recover '%s': killed recorder %d was a flight recorder, whose "
			"store ('%s*') holds a window no trigger asked for; its dumps are complete "
			"files; run 'flytrap reset' to remove the store", n->output,
			(int)n->pid, n->store);
}

static void noted_spool(void *arg, const char *path)
{
	if (rec_note_add_spool(*(const pid_t *)arg, path))
		ft_warn("cannot note spool file '%s'", path);
}

/*
 * A killed rotation: its kept metadata file (the note's temp) with the
 * chunks of its store (moved into spools by reset, or here when reset was
 * not run) and the kernel's pages reset saved, finished as the next
 * rotation file: the one the kill interrupted.
 */
static int recover_rotation(const struct rec_note *n)
{
	struct rec_note fresh;
	pid_t pid = n->pid;
	char *msg = NULL, *final = NULL, *gone = NULL, *names;
	struct stat st;
	int err;

	err = rec_flight_store_save(n->store, n->temp, (const char *const *)n->spools, n->nspools,
				    noted_spool, &pid, &msg);
	if (err < 0) {
		ft_error("cannot recover '%s': cannot read the store '%s*': %s", n->output,
			 n->store, msg ? msg : strerror(-err));
		free(msg);
		return EXIT_FAIL;
	}
	free(msg);
	msg = NULL;
	if (rec_note_read(pid, &fresh))
		return ft_error("cannot recover '%s': the note of recorder %d went away", n->output,
				(int)pid);
	names = recovered_names(n->output, true);
	err = recover_spools(n->output, fresh.temp, fresh.spools, fresh.nspools, names);
	free(names);
	rec_note_free(&fresh);
	if (err)
		return EXIT_FAIL;
	err = rec_flight_place(n->output, n->temp, &final);
	if (err)
		return ft_error("cannot rename '%s' beside '%s': %s", n->temp, n->output,
				strerror(-err));
	if (n->chown && chown(final, n->uid, n->gid))
		ft_warn("cannot give '%s' to uid %u: %s", final, (unsigned)n->uid, strerror(errno));
	/* the rotation file it was writing when killed, if reset did not remove it */
	if (!rec_scratch_remove(pid, &gone) && gone)
		fprintf(stderr,
			"flytrap: removed '%s', the unfinished file recorder %d was writing\n",
			gone, (int)pid);
	free(gone);
	rec_note_remove_pid(pid);
	if (!stat(final, &st))
		fprintf(stderr, "flytrap: recovered '%s' (%llu bytes): the rotation file "
			"recorder %d was filling\n", final, (unsigned long long)st.st_size, (int)pid);
	free(final);
	return EXIT_OK;
}

static const struct ft_opt opts[] = {
	{ "verbose", 'v', false, 'v' }, { "help", 'h', false, 'h' }, { 0 },
};

int cmd_recover(int argc, char **argv)
{
	struct ft_optparse p;
	struct rec_note n;
	const char *path = NULL;
	char *abs;
	int c, rc;

	for (c = 1; c < argc && strcmp(argv[c], "--"); c++)
		if (!strcmp(argv[c], "--last-boot"))
			return cmd_recover_last_boot(argc, argv);
	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next(&p)) != FT_OPT_END) {
		switch (c) {
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		case FT_OPT_OPERAND:
			if (path)
				return ft_usage_error("unexpected argument '%s'", p.value);
			path = p.value;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (!path)
		return ft_usage_error("missing FILE");
	abs = rec_abs_path(path);
	if (!find_note(abs, &n)) {
		free(abs);
		if (rec_note_alive(&n)) {
			rc = ft_error("recorder %d is still writing '%s'", (int)n.pid, n.output);
		} else if (n.store && !n.temp) {
			rc = refuse_store(&n);
		} else if (n.store && !access(n.temp, F_OK)) {
			rc = recover_rotation(&n);
		} else if (n.temp && !access(n.temp, F_OK)) {
			rc = recover_noted(&n);
		} else {
			/* finished, or an older recorder's note: the file is where it was */
			rec_note_remove_pid(n.pid);
			rc = recover_in_place(path);
		}
		rec_note_free(&n);
		return rc;
	}
	free(abs);
	return recover_in_place(path);
}
