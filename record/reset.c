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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "format.h"
#include "flight.h"
#include "record.h"
#include "state.h"
#include "status.h"
#include "tracer.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap reset [-n] [-v]\n"
"       flytrap reset --all [--yes] [--force WHAT]... [-n] [-v]\n"
"\n"
"Remove what killed flytrap recorders left in tracefs: instances named\n"
"flytrap-<pid> and probe groups flytrap_<pid> whose recorder is no longer\n"
"running, and top-level tracer settings they saved.  Never touches a running\n"
"recorder's resources or anything flytrap did not create.  Needs root.\n"
"\n"
"--all also turns off and removes what anyone else left (top-level tracer,\n"
"events, filters, triggers and options back to defaults, instances, probes,\n"
"pinned BPF programs), after listing it; it keeps instances of running\n"
"recorders or held open by a process, and cannot detach BPF programs or perf\n"
"events held by live processes (it names them and exits 1).\n"
"\n"
"  --all           everything 'flytrap status' lists, not only flytrap's\n"
"  -y, --yes       do not ask (required when not on a terminal)\n"
"  --force WHAT    with --all: also an instance in use (its name, or 'top'),\n"
"                  or end process PID (SIGTERM) holding BPF or perf events\n"
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

static void noted_spool(void *arg, const char *path)
{
	pid_t pid = *(const pid_t *)arg;
	char *abs = rec_abs_path(path);

	if (!abs || rec_note_add_spool(pid, abs))
		ft_warn("cannot note spool file '%s': run 'flytrap recover' before the next reset", path);
	free(abs);
}

/*
 * Before a dead recorder's instance goes, what its kernel buffers still
 * hold goes into that recording's spool files (found through its run note),
 * so that `flytrap recover` puts it in the file.  The first page saved of a
 * CPU the recorder had read from is flagged: the pages it had read and not
 * yet spooled (at most its last 250 ms) are lost, and `drops` shows where.
 */
static int save_instance(const struct rec_note *n, bool dry)
{
	struct fmt_writer_opts wo = { 0 };
	struct fmt_writer *w = NULL;
	struct fmt_wbuf *wb = NULL;
	struct rec_instance ri;
	const char *file = n->temp ? n->temp : n->output;
	char *msg = NULL;
	pid_t pid = n->pid;
	int err, i, pages = 0;

	/* a flight recorder writes no FILE until a dump: nothing to save into */
	if (!file || n->reset || access(file, F_OK))
		return 0;
	if (dry) {
		printf("would save what instance %s holds into the spool files of '%s'\n", n->instance,
		       n->output);
		return 0;
	}
	err = rec_instance_attach(&ri, n->instance);
	if (err) {
		ft_error("cannot read instance '%s': %s", n->instance, strerror(-err));
		goto out;
	}
	rec_instance_write(&ri, "tracing_on", "0");
	wo.on_spool = noted_spool;
	wo.on_spool_arg = &pid;
	err = fmt_writer_resume(file, (const char *const *)n->spools, n->nspools, &wo, &w, &msg);
	if (err) {
		ft_error("cannot save what instance '%s' holds: %s", n->instance, msg ? msg : strerror(-err));
		goto out;
	}
	/* a recorder that also captured the top level named its instance's buffer */
	if (fmt_wbuf_get(w, n->instance, NULL, &wb))
		err = fmt_wbuf_get(w, "", "mono", &wb);
	if (!err)
		err = rec_capture_open(&ri, NULL);
	for (i = 0; !err && i < ri.ncpus; i++) {
		struct rec_cpu *c = &ri.cpus[i];
		int werr = 0, r;

		c->mark_loss = c->stats_start && rec_stats_field(c->stats_start, "read events") > 0;
		r = rec_capture_drain(&ri, c, wb, true, &werr);
		if (r < 0) {
			err = r;
			ft_error("cannot save CPU %d of instance '%s': %s", c->cpu, n->instance,
				 werr ? fmt_writer_error(w) : strerror(-r));
		} else {
			pages += r;
		}
	}
	i = fmt_writer_suspend(w);
	if (i && !err) {
		err = i;
		ft_error("cannot write the spool files of '%s': %s", n->output, strerror(-i));
	}
	if (!err) {
		rec_note_mark_reset(n->pid);
		printf("saved %d page%s left in instance %s for '%s'\n", pages, pages == 1 ? "" : "s",
		       n->instance, n->output);
	}
out:
	free(msg);
	rec_instance_release(&ri);
	return err;
}

/*
 * A killed rotation's store: the chunks of the file it was filling go into
 * spools of its kept metadata file (the note's temp) before the kernel's
 * pages do, so that each CPU's data stays in order and `flytrap recover`
 * writes that file.  The note is read again after, for its new spools.
 */
static void save_store(const struct rec_note *n, bool dry)
{
	pid_t pid = n->pid;
	char *msg = NULL;
	int r;

	if (!n->store || !n->temp || n->reset || access(n->temp, F_OK))
		return;
	if (dry) {
		printf("would save the store of killed recorder %d for '%s'\n", (int)pid,
		       n->output);
		return;
	}
	r = rec_flight_store_save(n->store, n->temp, (const char *const *)n->spools, n->nspools,
				  noted_spool, &pid, &msg);
	if (r < 0)
		ft_error("cannot save the store '%s*' of '%s': %s", n->store, n->output,
			 msg ? msg : strerror(-r));
	else if (r > 0)
		printf("saved %d chunk%s of killed recorder %d's store for '%s'\n", r,
		       r == 1 ? "" : "s", (int)pid, n->output);
	free(msg);
}

static int reset_instances(const char *top, const struct rec_note *notes, int nnotes, bool dry,
			   int *done)
{
	char path[4096];
	struct dirent *de;
	int err = 0, r, i;
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
		for (i = 0; i < nnotes; i++) {
			struct rec_note fresh;

			if (notes[i].pid != pid || !notes[i].instance ||
			    strcmp(notes[i].instance, de->d_name) || rec_note_alive(&notes[i]))
				continue;
			if (!notes[i].store) {
				save_instance(&notes[i], dry);
				continue;
			}
			save_store(&notes[i], dry);
			if (!rec_note_read(pid, &fresh)) {
				save_instance(&fresh, dry);
				rec_note_free(&fresh);
			}
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
 * record --bpf-object attaches the user's kprobe and uprobe programs with
 * libbpf, which on kernels without the kprobe/uprobe perf PMUs creates
 * tracefs events "libbpf_<pid>_..." that only the link's destruction
 * removes: a killed recorder leaves them.  Those of a recorder a run note
 * names (and that is gone) are ours; nobody else's are touched.
 */
static int reset_libbpf_probes(const char *top, const char *file, const struct rec_note *notes,
			       int nnotes, bool dry, int *done)
{
	char path[4096], *text, *line, *save = NULL;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", top, file);
	text = rec_read_file(path, NULL);
	if (!text)
		return errno == ENOENT ? 0 : -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char group[128], event[256], cmd[512];
		unsigned pid;
		bool ours = false;
		int r, i;

		if (sscanf(line, "%*c:%127[^/]/%255s", group, event) != 2 ||
		    sscanf(event, "libbpf_%u_", &pid) != 1)
			continue;
		for (i = 0; i < nnotes; i++)
			ours |= notes[i].pid == (pid_t)pid;
		if (!ours || rec_pid_is_recorder(pid))
			continue;
		if (dry) {
			printf("would remove %s %s/%s\n", file, group, event);
			(*done)++;
			continue;
		}
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
		r = write_str(path, cmd, true);
		if (r && r != -ENOENT) {
			ft_error("cannot remove %s/%s from %s: %s", group, event, file, strerror(-r));
			if (!err)
				err = r;
			continue;
		}
		printf("removed %s/%s (%s)\n", group, event, file);
		(*done)++;
	}
	free(text);
	return err;
}

/*
 * Run notes of killed recorders (state.h) name the file they were
 * writing: tell the user to recover it (once).  The note stays for
 * `flytrap recover`, which finds the spool files through it; a note whose
 * files are gone is dropped.
 */
/*
 * A killed flight recorder's (or rotation's) store: its segment files,
 * PREFIX<number> beside the output, hold chunks no file was written from.
 * Without a trigger they were never going to be, and a store can hold the
 * whole --flight LIMIT of disk, so they go, and the user is told how much.
 */
static void reset_store(const struct rec_note *n, bool dry, int *done)
{
	const char *slash = strrchr(n->store, '/');
	char *dir;
	size_t plen;
	uint64_t bytes = 0;
	int files = 0;
	struct dirent *e;
	DIR *d;

	if (!slash || !slash[1])
		return;
	dir = strndup(n->store, (size_t)(slash - n->store) + (slash == n->store));
	d = dir ? opendir(dir) : NULL;
	plen = strlen(slash + 1);
	while (d && (e = readdir(d))) {
		const char *num = e->d_name + plen;
		struct stat st;

		if (strncmp(e->d_name, slash + 1, plen) || !*num || strspn(num, "0123456789") != strlen(num))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (!dry && unlinkat(dirfd(d), e->d_name, 0)) {
			ft_warn("cannot remove '%s/%s': %s", dir, e->d_name, strerror(errno));
			continue;
		}
		bytes += (uint64_t)st.st_size;
		files++;
	}
	if (d)
		closedir(d);
	free(dir);
	if (!files)
		return;
	printf("%s %d store file%s (%.1f MiB) of killed recorder %d beside '%s': chunks no trigger "
	       "or rotation had written to a file\n", dry ? "would remove" : "removed", files,
	       files == 1 ? "" : "s", (double)bytes / (1024.0 * 1024.0), (int)n->pid, n->output);
	(*done)++;
}

static void reset_notes(const struct rec_note *v, int n, bool dry, int *done)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *file = v[i].temp ? v[i].temp : v[i].output;

		if (rec_note_alive(&v[i]))
			continue;
		if (v[i].store) {
			char *gone = NULL;

			/* a rotation's store goes into its kept file, for recover (else it goes) */
			save_store(&v[i], dry);
			if (!v[i].temp || access(v[i].temp, F_OK))
				reset_store(&v[i], dry, done);
			/* the dump or rotation file it was writing when killed: never finished */
			if (!dry && !rec_scratch_remove(v[i].pid, &gone) && gone) {
				printf("removed '%s', the unfinished file killed recorder %d was writing\n",
				       gone, (int)v[i].pid);
				(*done)++;
			}
			free(gone);
		}
		if (file && !access(file, F_OK)) {
			if (v[i].reset)
				continue;	/* said by an earlier reset */
			printf("recorder %d was writing '%s': run 'flytrap recover %s'\n", (int)v[i].pid,
			       v[i].output, v[i].output);
			if (!dry)
				rec_note_mark_reset(v[i].pid);
		} else if (!dry) {
			rec_note_remove_pid(v[i].pid);
		}
		(*done)++;
	}
}

static const struct ft_opt opts[] = {
	{ "dry-run", 'n', false, 'n' }, { "all", 0, false, 'A' }, { "yes", 'y', false, 'y' },
	{ "force", 0, true, 'F' }, { "verbose", 'v', false, 'v' }, { "help", 'h', false, 'h' },
	{ 0 },
};

int cmd_reset(int argc, char **argv)
{
	struct st_reset_opts ao = { 0 };
	const char *top;
	struct rec_note *notes = NULL;
	bool dry = false, all = false;
	int c, done = 0, err = 0, r, nnotes = 0, all_rc = -1;
	const char *extra = NULL;
	struct ft_optparse p;

	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next(&p)) != FT_OPT_END) {
		switch (c) {
		case 'n':
			dry = true;
			break;
		case 'A':
			all = true;
			break;
		case 'y':
			ao.yes = true;
			break;
		case 'F':
			ao.force = realloc(ao.force, sizeof(*ao.force) * (ao.nforce + 1));
			if (!ao.force)
				return ft_error("out of memory");
			ao.force[ao.nforce++] = (char *)p.value;	/* an argv string */
			break;
		case FT_OPT_OPERAND:
			extra = extra ? extra : p.value;
			break;
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		default:
			free(ao.force);
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (extra)
		r = ft_usage_error("unexpected argument '%s'", extra);
	else if (!all && (ao.yes || ao.nforce))
		r = ft_usage_error("%s goes with --all", ao.yes ? "--yes" : "--force");
	else if (all)
		r = (ao.dry = dry, st_reset_all(&ao));
	else
		r = -1;
	free(ao.force);
	/* --all leaves dead recorders' leftovers to the plain reset below */
	if (r >= 0 && !ao.plain)
		return r;
	all_rc = r;

	/* a state directory that is a link or someone else's is not read */
	r = rec_state_prepare(false);
	if (r && r != -ENOENT)
		return EXIT_FAIL;
	top = tracefs_tracing_dir();
	if (!top || access(top, F_OK))
		return ft_error("cannot find tracefs (mount it: mount -t tracefs nodev /sys/kernel/tracing)");

	if (!r) {
		nnotes = rec_notes_list(&notes);
		if (nnotes < 0) {
			ft_error("cannot list '%s': %s", rec_state_dir(), strerror(-nnotes));
			nnotes = 0;
		}
	}
	/* instances first: they may hold the probes enabled */
	r = reset_instances(top, notes, nnotes, dry, &done);
	if (r == -EACCES || r == -EPERM) {
		rec_notes_free(notes, nnotes);
		return EXIT_FAIL;	/* said once; the rest would only repeat it */
	}
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
	r = reset_libbpf_probes(top, "kprobe_events", notes, nnotes, dry, &done);
	if (r && !err)
		err = r;
	r = reset_libbpf_probes(top, "uprobe_events", notes, nnotes, dry, &done);
	if (r && !err)
		err = r;
	reset_notes(notes, nnotes, dry, &done);
	/* the output locks of killed recorders: harmless, removed without a word */
	rec_output_locks_sweep(dry);
	rec_notes_free(notes, nnotes);
	if (!done && !err && all_rc < 0)
		fprintf(stderr, "flytrap: nothing to reset\n");
	return ft_finish_stdout(err ? EXIT_FAIL : all_rc > 0 ? all_rc : EXIT_OK);
}
