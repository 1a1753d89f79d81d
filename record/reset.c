// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap reset: remove what a killed recorder left in tracefs, and only
 * that.  A recorder names everything after its pid (instance
 * "flytrap-<pid>", probe group "flytrap_<pid>"), so a leftover is one whose
 * pid is no longer a running flytrap.  Running it twice is harmless: the
 * second run finds nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "record.h"
#include "state.h"
#include "tracer.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap reset [-n] [-v]\n"
"\n"
"Remove what killed flytrap recorders left in tracefs: instances named\n"
"flytrap-<pid> and probe groups flytrap_<pid> whose recorder is no longer\n"
"running, and top-level tracer settings they saved.  Never touches a running\n"
"recorder's resources or anything flytrap did not create.  Needs root.\n"
"\n"
"  -n, --dry-run   only list what would be removed\n"
"  -v, --verbose   more messages\n"
"  -h, --help      this text\n");
}

/* "flytrap-123" / "flytrap_123" → 123, or -1 for anything else */
static pid_t owner_pid(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, pl) || !name[pl] || name[pl] < '0' || name[pl] > '9')
		return -1;
	v = strtol(name + pl, &end, 10);
	/* "flytrap-123-trigger": the second instance of --trigger EVENT (flight.h) */
	if ((*end && strcmp(end, "-trigger")) || v <= 0 || v > 0x3fffffff)
		return -1;
	return (pid_t)v;
}

static int write_str(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	ssize_t r;
	int err = 0;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	if (r < 0)
		err = -errno;
	close(fd);
	return err;
}

static int remove_instance(const char *top, const char *name, bool dry, int *done)
{
	char path[4096];
	int i, err = 0;

	if (dry) {
		printf("would remove instance %s\n", name);
		(*done)++;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/instances/%s/tracing_on", top, name);
	write_str(path, "0", false);
	snprintf(path, sizeof(path), "%s/instances/%s/events/enable", top, name);
	write_str(path, "0", false);
	snprintf(path, sizeof(path), "%s/instances/%s", top, name);
	for (i = 0; i < 50; i++) {
		err = rmdir(path) ? -errno : 0;
		if (err != -EBUSY)
			break;
		usleep(20000);
	}
	if (err && err != -ENOENT) {
		ft_error("cannot remove instance '%s': %s", name, strerror(-err));
		return err;
	}
	printf("removed instance %s\n", name);
	(*done)++;
	return 0;
}

static int reset_instances(const char *top, bool dry, int *done)
{
	char path[4096];
	struct dirent *de;
	int err = 0, r;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", top);
	d = opendir(path);
	if (!d) {
		err = errno;
		if (err == ENOENT)
			return 0;
		ft_error("cannot list '%s': %s%s", path, strerror(err),
			 err == EACCES ? " (flytrap reset needs root)" : "");
		return -err;
	}
	while ((de = readdir(d))) {
		pid_t pid = owner_pid(de->d_name, REC_INSTANCE_PREFIX);

		if (pid < 0)
			continue;
		if (rec_pid_is_recorder(pid)) {
			ft_info("instance %s belongs to running recorder %d: kept", de->d_name, (int)pid);
			continue;
		}
		r = remove_instance(top, de->d_name, dry, done);
		if (r && !err)
			err = r;
	}
	closedir(d);
	return err;
}

/* uprobe_events lines look like "p:flytrap_123/name /path:0x..." */
static int reset_uprobes(const char *top, bool dry, int *done)
{
	char path[4096], *text, *line, *save = NULL;
	int err = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", top);
	text = rec_read_file(path, NULL);
	if (!text) {
		err = errno;
		if (err == ENOENT)
			return 0;
		ft_error("cannot read '%s': %s", path, strerror(err));
		return -err;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char group[128], event[256], cmd[512];
		pid_t pid;
		int r = 0, i;

		if (sscanf(line, "%*c:%127[^/]/%255s", group, event) != 2)
			continue;
		pid = owner_pid(group, REC_UPROBE_PREFIX);
		if (pid < 0 || rec_pid_is_recorder(pid))
			continue;
		if (dry) {
			printf("would remove uprobe %s/%s\n", group, event);
			(*done)++;
			continue;
		}
		/* a leftover probe may still be enabled in the top level: only ours is touched */
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
		for (i = 0; i < 50; i++) {
			r = write_str(path, cmd, true);
			if (r != -EBUSY)
				break;
			usleep(20000);
		}
		if (r && r != -ENOENT) {
			ft_error("cannot remove uprobe %s/%s: %s%s", group, event, strerror(-r),
				 r == -EBUSY ? " (enabled by another tracing user)" : "");
			if (!err)
				err = r;
			continue;
		}
		printf("removed uprobe %s/%s\n", group, event);
		(*done)++;
	}
	free(text);
	return err;
}

/*
 * Run notes of killed recorders (state.h) name the file they were
 * writing: tell the user to recover it, then drop the note.
 */
static int reset_notes(bool dry, int *done)
{
	struct rec_note *v;
	int n, i;

	n = rec_notes_list(&v);
	if (n < 0) {
		ft_error("cannot list '%s': %s", rec_state_dir(), strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		if (rec_note_alive(&v[i]))
			continue;
		if (v[i].output && !access(v[i].output, F_OK))
			printf("recorder %d was writing '%s': run 'flytrap recover %s'\n", (int)v[i].pid,
			       v[i].output, v[i].output);
		if (!dry)
			rec_note_remove_pid(v[i].pid);
		(*done)++;
	}
	rec_notes_free(v, n);
	return 0;
}

static const struct option long_opts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_reset(int argc, char **argv)
{
	const char *top;
	bool dry = false;
	int c, done = 0, err = 0, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":nvh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry = true;
			break;
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
	if (optind < argc)
		return ft_usage_error("unexpected argument '%s'", argv[optind]);

	/* a state directory that is a link or someone else's is not read */
	r = rec_state_prepare(false);
	if (r && r != -ENOENT)
		return EXIT_FAIL;
	top = tracefs_tracing_dir();
	if (!top || access(top, F_OK))
		return ft_error("cannot find tracefs (mount it: mount -t tracefs nodev /sys/kernel/tracing)");

	/* instances first: they may hold the probes enabled */
	r = reset_instances(top, dry, &done);
	if (r == -EACCES || r == -EPERM)
		return EXIT_FAIL;	/* said once; the rest would only repeat it */
	if (r)
		err = r;
	if (!dry) {
		char *report = NULL;

		r = rec_tracer_reset_stale(&report);
		if (report) {
			fputs(report, stdout);
			if (report[0] && report[strlen(report) - 1] != '\n')
				fputc('\n', stdout);
			free(report);
		}
		if (r < 0 && !err)
			err = r;
		else if (r > 0)
			done += r;
	}
	r = reset_uprobes(top, dry, &done);
	if (r && !err)
		err = r;
	reset_notes(dry, &done);
	if (!done && !err)
		fprintf(stderr, "flytrap: nothing to reset\n");
	return ft_finish_stdout(err ? EXIT_FAIL : EXIT_OK);
}
