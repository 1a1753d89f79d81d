// SPDX-License-Identifier: GPL-2.0-only
/*
 * The state directory (/run/flytrap) and the recorders' run notes: see
 * state.h.  A note is a few "key=value" lines; paths with a newline are
 * refused rather than written ambiguously.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "record.h"
#include "state.h"

#define STATE_PARENT "/run"
#define STATE_DIR STATE_PARENT "/flytrap"

const char *rec_state_dir(void)
{
	return STATE_DIR;
}

static const char *root_hint(int err)
{
	return (err == EACCES || err == EPERM) && geteuid() ? " (needs root)" : "";
}

int rec_state_prepare(bool create)
{
	const char *dir = rec_state_dir();
	struct stat st;

	if (create && mkdir(STATE_PARENT, 0755) < 0 && errno != EEXIST) {
		int e = errno;

		ft_error("cannot create '%s': %s%s", STATE_PARENT, strerror(e), root_hint(e));
		return -e;
	}
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int e = errno;

		ft_error("cannot create the state directory '%s': %s%s", dir, strerror(e), root_hint(e));
		return -e;
	}
	if (lstat(dir, &st) < 0) {
		int e = errno;

		if (e == ENOENT && !create)
			return -ENOENT;
		ft_error("cannot use the state directory '%s': %s%s", dir, strerror(e), root_hint(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		ft_error("refusing the state directory '%s': it is a symbolic link", dir);
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		ft_error("refusing the state directory '%s': it is not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		ft_error("refusing the state directory '%s': it belongs to uid %u, not to uid %u",
			 dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700) < 0) {
		int e = errno;

		ft_error("cannot set the mode of the state directory '%s': %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

char *rec_state_path(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", rec_state_dir(), name) < 0)
		return NULL;
	return p;
}

unsigned long long rec_proc_start(pid_t pid)
{
	char path[64], *text, *p;
	unsigned long long v = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	text = rec_read_file(path, NULL);
	if (!text)
		return 0;
	/* the name may hold spaces and parentheses: fields start after the last ')' */
	p = strrchr(text, ')');
	for (i = 0; p && i < 20; i++) {
		p = strchr(p + 1, ' ');
	}
	if (p)
		v = strtoull(p + 1, NULL, 10);
	free(text);
	return v;
}

/*
 * The absolute name of path (which may not exist yet): its directory
 * resolved, its last component kept as given.
 */
char *rec_abs_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *out = NULL;

	if (slash && !slash[1])
		return realpath(path, NULL);
	dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	if (!dir)
		return NULL;
	real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return NULL;
	if (asprintf(&out, "%s%s%s", real, strcmp(real, "/") ? "/" : "", slash ? slash + 1 : path) < 0)
		out = NULL;
	free(real);
	return out;
}

static char *note_name(pid_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), REC_NOTE_PREFIX "%d", (int)pid);
	return rec_state_path(name);
}

static bool one_line(const char *s)
{
	return !s || !strchr(s, '\n');
}

int rec_note_write(const struct rec_note *n)
{
	char *path = note_name(getpid()), *tmp = NULL;
	FILE *f = NULL;
	int err = 0, i, fd;

	if (!path || asprintf(&tmp, "%s.new", path) < 0) {
		free(path);
		return -ENOMEM;
	}
	if (!one_line(n->output) || !one_line(n->temp) || !one_line(n->instance)) {
		ft_error("cannot note the output '%s' in '%s': the name holds a newline", n->output,
			 path);
		err = -EINVAL;
		goto out;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		ft_error("cannot create '%s': %s", tmp, strerror(-err));
		goto out;
	}
	fprintf(f, "pid=%d\nstart=%llu\n", (int)n->pid, n->start);
	if (n->instance)
		fprintf(f, "instance=%s\n", n->instance);
	if (n->output)
		fprintf(f, "output=%s\n", n->output);
	if (n->temp)
		fprintf(f, "temp=%s\n", n->temp);
	if (n->chown)
		fprintf(f, "uid=%u\ngid=%u\n", (unsigned)n->uid, (unsigned)n->gid);
	for (i = 0; i < n->nspools; i++)
		if (one_line(n->spools[i]))
			fprintf(f, "spool=%s\n", n->spools[i]);
	if (n->store && one_line(n->store))
		fprintf(f, "store=%s\n", n->store);
	if (n->requests)
		fprintf(f, "requests=1\n");
	if (ferror(f) | fclose(f)) {
		err = -(errno ? errno : EIO);
		ft_error("cannot write '%s': %s", tmp, strerror(-err));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		err = -errno;
		ft_error("cannot rename '%s' to '%s': %s", tmp, path, strerror(-err));
		unlink(tmp);
	}
out:
	free(tmp);
	free(path);
	return err;
}

static int note_append(pid_t pid, const char *key, const char *value)
{
	char *path = note_name(pid), *line = NULL;
	int fd, err = 0;
	ssize_t r;

	if (!path)
		return -ENOMEM;
	if (!one_line(value) || asprintf(&line, "%s=%s\n", key, value) < 0) {
		free(path);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else {
		/* one write of a short line with O_APPEND: never interleaved */
		r = write(fd, line, strlen(line));
		if (r != (ssize_t)strlen(line))
			err = r < 0 ? -errno : -EIO;
		close(fd);
	}
	free(line);
	free(path);
	return err;
}

int rec_note_add_spool(pid_t pid, const char *spool)
{
	return note_append(pid, "spool", spool);
}

int rec_note_mark_reset(pid_t pid)
{
	return note_append(pid, "reset", "done");
}

int rec_note_remove_pid(pid_t pid)
{
	char *path = note_name(pid);
	int err = 0;

	if (!path)
		return -ENOMEM;
	if (unlink(path) < 0 && errno != ENOENT)
		err = -errno;
	free(path);
	return err;
}

void rec_note_remove(void)
{
	rec_note_remove_pid(getpid());
}

void rec_note_free(struct rec_note *n)
{
	int i;

	free(n->instance);
	free(n->output);
	free(n->temp);
	free(n->store);
	for (i = 0; i < n->nspools; i++)
		free(n->spools[i]);
	free(n->spools);
	memset(n, 0, sizeof(*n));
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

int rec_note_read(pid_t pid, struct rec_note *n)
{
	char *path = note_name(pid), *text, *line, *save = NULL;
	int err = 0;

	memset(n, 0, sizeof(*n));
	if (!path)
		return -ENOMEM;
	text = rec_read_file(path, NULL);
	free(path);
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '='), *v;

		if (!eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(line, "pid"))
			n->pid = (pid_t)atoi(v);
		else if (!strcmp(line, "start"))
			n->start = strtoull(v, NULL, 10);
		else if (!strcmp(line, "instance"))
			err = set_str(&n->instance, v);
		else if (!strcmp(line, "output"))
			err = set_str(&n->output, v);
		else if (!strcmp(line, "temp"))
			err = set_str(&n->temp, v);
		else if (!strcmp(line, "store"))
			err = set_str(&n->store, v);
		else if (!strcmp(line, "uid")) {
			n->uid = (uid_t)strtoul(v, NULL, 10);
			n->chown = true;
		} else if (!strcmp(line, "gid"))
			n->gid = (gid_t)strtoul(v, NULL, 10);
		else if (!strcmp(line, "reset"))
			n->reset = true;
		else if (!strcmp(line, "requests"))
			n->requests = true;
		else if (!strcmp(line, "spool")) {
			char **sv = realloc(n->spools, (size_t)(n->nspools + 1) * sizeof(*sv));
			int k;
			bool dup = false;

			if (!sv) {
				err = -ENOMEM;
				break;
			}
			n->spools = sv;
			for (k = 0; k < n->nspools; k++)
				dup |= !strcmp(sv[k], v);
			if (!dup) {
				sv[n->nspools] = strdup(v);
				if (!sv[n->nspools])
					err = -ENOMEM;
				else
					n->nspools++;
			}
		}
	}
	free(text);
	if (!err && n->pid != pid)
		err = -EBADMSG;
	if (err)
		rec_note_free(n);
	return err;
}

static int cmp_note(const void *a, const void *b)
{
	const struct rec_note *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int rec_notes_list(struct rec_note **out)
{
	DIR *d = opendir(rec_state_dir());
	struct rec_note *v = NULL;
	struct dirent *de;
	int n = 0;

	*out = NULL;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t pl = strlen(REC_NOTE_PREFIX);
		struct rec_note *nv;
		char *end;
		long pid;

		if (strncmp(de->d_name, REC_NOTE_PREFIX, pl) || de->d_name[pl] < '1' ||
		    de->d_name[pl] > '9')
			continue;
		pid = strtol(de->d_name + pl, &end, 10);
		if (*end || pid <= 0 || pid > 0x3fffffff)
			continue;
		nv = realloc(v, (size_t)(n + 1) * sizeof(*nv));
		if (!nv)
			break;
		v = nv;
		if (!rec_note_read((pid_t)pid, &v[n]))
			n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_note);
	*out = v;
	return n;
}

void rec_notes_free(struct rec_note *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rec_note_free(&v[i]);
	free(v);
}

bool rec_note_alive(const struct rec_note *n)
{
	if (n->pid <= 0 || (kill(n->pid, 0) < 0 && errno == ESRCH))
		return false;
	if (n->start && rec_proc_start(n->pid) != n->start)
		return false;	/* the pid went to another process */
	return rec_pid_is_recorder(n->pid);
}

/*
 * The two helpers the state code shares with the rest of the recorder
 * live here, so that state.c links on its own (the kernel lab's
 * tracer-check builds tracer.c and state.c without the recorder).
 */
char *rec_read_file(const char *path, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = NULL, *tmp;
	int fd, err;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096) {
			if (cap > (size_t)1 << 30) {
				err = EFBIG;
				goto fail;
			}
			tmp = realloc(buf, cap * 2);
			if (!tmp) {
				err = ENOMEM;
				goto fail;
			}
			buf = tmp;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	errno = err;
	return NULL;
}

bool rec_pid_is_recorder(pid_t pid)
{
	char path[64], *comm, exe[4096];
	const char *base;
	ssize_t n;
	bool yes = false;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm = rec_read_file(path, NULL);
	if (comm) {
		yes = !strncmp(comm, "flytrap", 7);
		free(comm);
		if (yes)
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		base = strrchr(exe, '/');
		base = base ? base + 1 : exe;
		yes = !strncmp(base, "flytrap", 7);
	}
	return yes;
}

/* ---- one recorder per output ------------------------------------------------------------ */

/*
 * The lock file of an output: named after a hash of its absolute name, so
 * that "t.dat", "./t.dat" and "/dir/t.dat" meet in one file, and only root
 * (who owns the state directory) can plant one.
 */
static char *lock_name(const char *abs)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	char name[64];
	const char *p;

	for (p = abs; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	snprintf(name, sizeof(name), REC_LOCK_PREFIX "%016llx", (unsigned long long)h);
	return rec_state_path(name);
}

/* The pid a lock file names ("pid=N" on its first line), 0 if none. */
static pid_t lock_holder(int fd)
{
	char buf[128];
	ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);
	long v;

	if (r <= 4)
		return 0;
	buf[r] = '\0';
	if (strncmp(buf, "pid=", 4))
		return 0;
	v = strtol(buf + 4, NULL, 10);
	return v > 0 && v <= 0x3fffffff ? (pid_t)v : 0;
}

int rec_output_lock(const char *output, struct rec_output_lock *l)
{
	char *abs = rec_abs_path(output), *path = NULL, text[64];
	int fd = -1, err = 0, tries;
	struct stat a, b;

	l->fd = -1;
	l->path = NULL;
	/* a directory that does not exist: creating the output says so later */
	if (!abs)
		return 0;
	path = lock_name(abs);
	if (!path) {
		err = -ENOMEM;
		goto out;
	}
	for (tries = 0; tries < 100; tries++) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = -errno;
			ft_error("cannot create the lock '%s' for '%s': %s", path, abs, strerror(-err));
			goto out;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			pid_t pid = 0;
			int k;

			err = errno == EWOULDBLOCK ? -EBUSY : -errno;
			/*
			 * The holder writes its pid right after it took the lock: give
			 * it a moment (a file left by a killed holder names a dead pid).
			 */
			for (k = 0; err == -EBUSY && k < 100; k++) {
				pid = lock_holder(fd);
				if (pid && rec_pid_is_recorder(pid))
					break;
				pid = 0;
				usleep(10000);
			}
			if (err == -EBUSY && pid)
				ft_error("'%s' is being recorded by flytrap pid %d: give another -o, "
					 "or stop that recorder first", abs, (int)pid);
			else if (err == -EBUSY)
				ft_error("'%s' is being recorded by another flytrap recorder", abs);
			else
				ft_error("cannot lock '%s': %s", path, strerror(-err));
			goto out;
		}
		/* the holder before us removes the file while it holds it: ours may be gone */
		if (!fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		err = -EAGAIN;
		ft_error("cannot lock '%s': it keeps changing", path);
		goto out;
	}
	snprintf(text, sizeof(text), "pid=%d\n", (int)getpid());
	/* the pid first, then the cut: whoever reads it meanwhile sees "pid=" or nothing */
	if (pwrite(fd, text, strlen(text), 0) != (ssize_t)strlen(text) ||
	    pwrite(fd, abs, strlen(abs), (off_t)strlen(text)) < 0 ||
	    ftruncate(fd, (off_t)(strlen(text) + strlen(abs))) < 0) {
		err = -errno;
		ft_error("cannot write the lock '%s': %s", path, strerror(-err));
		goto out;
	}
	l->fd = fd;
	l->path = path;
	fd = -1;
	path = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	free(abs);
	return err;
}

void rec_output_unlock(struct rec_output_lock *l)
{
	if (l->fd >= 0) {
		/* removed while held: whoever opened it meanwhile sees another inode and retries */
		unlink(l->path);
		close(l->fd);
	}
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}

/* ---- trigger requests --------------------------------------------------------------------- */

static char *trig_name(pid_t recorder, pid_t from, const char *suffix)
{
	char name[96];

	snprintf(name, sizeof(name), REC_TRIG_PREFIX "%d-%d%s", (int)recorder, (int)from, suffix);
	return rec_state_path(name);
}

/* Write path whole (a temporary name, then rename): a reader never sees half of it. */
static int write_whole(const char *path, const char *text)
{
	char *tmp = NULL;
	int fd, err = 0;
	size_t len = strlen(text);

	if (asprintf(&tmp, "%s.new", path) < 0)
		return -ENOMEM;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (write(fd, text, len) != (ssize_t)len)
		err = -(errno ? errno : EIO);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	return err;
}

int rec_trig_request(pid_t recorder, uint64_t mono_ns)
{
	char *path = trig_name(recorder, getpid(), ""), *reply = trig_name(recorder, getpid(), ".reply");
	char text[64];
	int err;

	if (!path || !reply) {
		err = -ENOMEM;
		goto out;
	}
	unlink(reply);	/* of an earlier process with our pid */
	snprintf(text, sizeof(text), "ts=%llu\n", (unsigned long long)mono_ns);
	err = write_whole(path, text);
out:
	free(path);
	free(reply);
	return err;
}

void rec_trig_withdraw(pid_t recorder)
{
	char *path = trig_name(recorder, getpid(), "");

	if (path)
		unlink(path);
	free(path);
}

int rec_trig_wait_reply(pid_t recorder, char *buf, size_t len, int timeout_ms)
{
	char *path = trig_name(recorder, getpid(), ".reply"), *text = NULL;
	int waited = 0, err = -ETIMEDOUT;

	if (!path)
		return -ENOMEM;
	for (;;) {
		text = rec_read_file(path, NULL);
		if (text) {
			snprintf(buf, len, "%s", text);
			free(text);
			unlink(path);
			err = 0;
			break;
		}
		if (waited >= timeout_ms || (kill(recorder, 0) < 0 && errno == ESRCH))
			break;
		usleep(20000);
		waited += 20;
	}
	free(path);
	return err;
}

int rec_trig_take(pid_t self, struct rec_trig_req *v, int max)
{
	char prefix[64];
	DIR *d = opendir(rec_state_dir());
	struct dirent *de;
	size_t pl;
	int n = 0;

	if (!d)
		return -errno;
	snprintf(prefix, sizeof(prefix), REC_TRIG_PREFIX "%d-", (int)self);
	pl = strlen(prefix);
	while (n < max && (de = readdir(d))) {
		char *end, *path, *text;
		long from;

		if (strncmp(de->d_name, prefix, pl) || de->d_name[pl] < '1' || de->d_name[pl] > '9')
			continue;
		from = strtol(de->d_name + pl, &end, 10);
		if (*end || from <= 0 || from > 0x3fffffff)
			continue;	/* a reply, or a request still being written */
		path = rec_state_path(de->d_name);
		text = path ? rec_read_file(path, NULL) : NULL;
		v[n].from = (pid_t)from;
		v[n].ts = text && !strncmp(text, "ts=", 3) ? strtoull(text + 3, NULL, 10) : 0;
		/* taken once: whoever removes it answers it */
		if (path && !unlink(path))
			n++;
		free(text);
		free(path);
	}
	closedir(d);
	return n;
}

int rec_trig_reply(pid_t self, pid_t from, const char *text)
{
	char *path = trig_name(self, from, ".reply");
	int err;

	if (!path)
		return -ENOMEM;
	err = write_whole(path, text);
	free(path);
	return err;
}

void rec_trig_cleanup(pid_t self)
{
	char prefix[64];
	DIR *d = opendir(rec_state_dir());
	struct dirent *de;

	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), REC_TRIG_PREFIX "%d-", (int)self);
	while ((de = readdir(d))) {
		char *path;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		path = rec_state_path(de->d_name);
		if (path)
			unlink(path);
		free(path);
	}
	closedir(d);
}

/* ---- the file a dump is being written to ------------------------------------------------ */

static char *scratch_name(pid_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), REC_SCRATCH_PREFIX "%d", (int)pid);
	return rec_state_path(name);
}

int rec_scratch_set(const char *const *paths, int n)
{
	char *note = scratch_name(getpid()), *text = NULL;
	size_t len = 0;
	FILE *m = NULL;
	int err = 0, i;

	if (!note)
		return -ENOMEM;
	if (!n) {
		if (unlink(note) < 0 && errno != ENOENT)
			err = -errno;
		goto out;
	}
	m = open_memstream(&text, &len);
	if (!m) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		char *abs = rec_abs_path(paths[i]);

		if (abs && one_line(abs))
			fprintf(m, "%s\n", abs);
		free(abs);
	}
	if (fclose(m)) {
		err = -ENOMEM;
		goto out;
	}
	err = write_whole(note, text);
out:
	free(text);
	free(note);
	return err;
}

int rec_scratch_remove(pid_t pid, char **removed)
{
	char *note = scratch_name(pid), *text, *line, *save = NULL;
	struct stat st;
	int err = 0;

	*removed = NULL;
	if (!note)
		return -ENOMEM;
	text = rec_read_file(note, NULL);
	/* the temporary file first, then its spools */
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		/* only regular files: the note is root's, the directory it names may not be */
		if (line[0] != '/' || lstat(line, &st) || !S_ISREG(st.st_mode))
			continue;
		if (unlink(line) < 0)
			err = -errno;
		else if (!*removed)
			*removed = strdup(line);
	}
	free(text);
	unlink(note);
	free(note);
	return err;
}

int rec_output_locks_sweep(bool dry)
{
	DIR *d = opendir(rec_state_dir());
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *path;
		int fd;

		if (strncmp(de->d_name, REC_LOCK_PREFIX, strlen(REC_LOCK_PREFIX)))
			continue;
		path = rec_state_path(de->d_name);
		fd = path ? open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC) : -1;
		/* held: a live recorder's; free: a killed one's, removed while we hold it */
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
			if (dry || !unlink(path))
				n++;
		}
		if (fd >= 0)
			close(fd);
		free(path);
	}
	closedir(d);
	return n;
}
