// SPDX-License-Identifier: GPL-2.0-only
/*
 * Output files written whole or not at all (design decision 10); see the
 * fmt_outfile part of format.h.
 *
 * A root recorder is often told to write into /tmp, where anyone can have
 * left a symbolic link at the name given, or at any name we would derive
 * from it.  So nothing is ever opened by a name that existed before: the
 * data goes into a file created here exclusively (O_EXCL|O_NOFOLLOW, mode
 * 0600) under a random name in the destination's directory, and rename()
 * puts it in place once it is complete and on disk.  rename() replaces a
 * link at the destination; it never writes through one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "format.h"

static bool owner_set;
static uid_t owner_uid;
static gid_t owner_gid;

/*
 * Test hook, for tests/live/72-rec-write-faults.sh (never in a man page):
 * FLYTRAP_TEST_WRITE_FAULT=KIND:ERR[@NAME] makes every write of one kind
 * fail with ERR (ENOSPC or EIO), as a full or failing disk would, in the
 * file whose name ends in NAME (a rotation's "t-0002.dat"), or in every
 * file without one.  KIND: "header" (the file header and the metadata
 * sections), "data" (a CPU's data: its spool and its BUFFER section),
 * "index" (what close writes after the data: time index, facts,
 * checksums, options, strings), "fsync", "rename".  Read once.
 */
static struct {
	char kind[16];
	char name[256];
	int err;
} fault;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

static void fault_read(void)
{
	const char *e = getenv("FLYTRAP_TEST_WRITE_FAULT"), *colon, *at;
	size_t kl;

	if (!e || !(colon = strchr(e, ':')))
		return;
	kl = (size_t)(colon - e);
	at = strchr(colon, '@');
	if (!kl || kl >= sizeof(fault.kind) || (at && strlen(at + 1) >= sizeof(fault.name)))
		return;
	if (!strncmp(colon + 1, "ENOSPC", 6) && (colon[7] == '@' || !colon[7]))
		fault.err = -ENOSPC;
	else if (!strncmp(colon + 1, "EIO", 3) && (colon[4] == '@' || !colon[4]))
		fault.err = -EIO;
	else
		return;
	memcpy(fault.kind, e, kl);
	if (at)
		strcpy(fault.name, at + 1);
}

int fmt_test_fault(const char *kind, const char *dest)
{
	size_t dl, nl;

	pthread_once(&fault_once, fault_read);
	if (!fault.err || strcmp(kind, fault.kind))
		return 0;
	nl = strlen(fault.name);
	dl = dest ? strlen(dest) : 0;
	if (nl && (dl < nl || strcmp(dest + dl - nl, fault.name)))
		return 0;
	return fault.err;
}

void fmt_outfile_set_owner(uid_t uid, gid_t gid)
{
	owner_set = true;
	owner_uid = uid;
	owner_gid = gid;
}

bool fmt_outfile_owner(uid_t *uid, gid_t *gid)
{
	if (owner_set) {
		*uid = owner_uid;
		*gid = owner_gid;
	}
	return owner_set;
}

int fmt_outfile_check(const char *dest, const char **why)
{
	struct stat st;

	*why = NULL;
	if (!*dest) {
		*why = "the name is empty";
		return -EINVAL;
	}
	if (dest[strlen(dest) - 1] == '/') {
		*why = "it names a directory";
		return -EISDIR;
	}
	/*
	 * /dev/stdout and the like are links to a descriptor or a device:
	 * the rename would replace the link itself (as root, in /dev).  They
	 * are refused rather than written through: an output here is either
	 * whole or not there, which a descriptor cannot promise.
	 */
	if (!strncmp(dest, "/proc/", 6) || !strncmp(dest, "/dev/fd/", 8) ||
	    !strcmp(dest, "/dev/stdout") || !strcmp(dest, "/dev/stderr") || !strcmp(dest, "/dev/stdin")) {
		*why = "it names a descriptor, not a file (to write to standard output, leave out -o)";
		return -EINVAL;
	}
	if (lstat(dest, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		char t[16];
		ssize_t n = readlink(dest, t, sizeof(t) - 1);

		if (n >= 5 && (!strncmp(t, "/dev/", 5) || (n >= 6 && !strncmp(t, "/proc/", 6)))) {
			*why = "it links to a device or a descriptor, not a file";
			return -EINVAL;
		}
	}
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;	/* replaced, a link never followed */
	if (S_ISDIR(st.st_mode)) {
		*why = "it is a directory";
		return -EISDIR;
	}
	if (S_ISFIFO(st.st_mode))
		*why = "it is a FIFO";
	else if (S_ISSOCK(st.st_mode))
		*why = "it is a socket";
	else
		*why = "it is a device";
	return -EINVAL;
}

/* The directory part of path ("." when it has none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, (size_t)(slash - path) + (slash == path));
}

int fmt_outfile_open(struct fmt_outfile *o, const char *dest)
{
	const char *slash = strrchr(dest, '/'), *why;
	int dirlen = slash ? (int)(slash - dest + 1) : 0, tries, err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	err = fmt_outfile_check(dest, &why);
	if (err)
		return err;
	o->dest = strdup(dest);
	if (!o->dest)
		return -ENOMEM;
	for (tries = 0; tries < 100; tries++) {
		unsigned char r[6];

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
			err = -EIO;
			break;
		}
		free(o->temp);
		if (asprintf(&o->temp, "%.*s.%s.%02x%02x%02x%02x%02x%02x", dirlen, dest, dest + dirlen,
			     r[0], r[1], r[2], r[3], r[4], r[5]) < 0) {
			o->temp = NULL;
			err = -ENOMEM;
			break;
		}
		o->fd = open(o->temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd >= 0)
			return 0;
		err = -errno;
		if (err != -EEXIST)
			break;
	}
	free(o->temp);
	free(o->dest);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	return err;
}

/* fsync the directory holding path, so that a rename survives a crash. */
static int sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd, err = 0;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	/* some file systems cannot sync a directory: the rename happened anyway */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		err = -errno;
	close(fd);
	return err;
}

/* On disk, mode 0600, the owner given: what every finished output gets. */
static int finish_fd(int fd, const char *dest, bool chown_it, uid_t uid, gid_t gid)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((err = fmt_test_fault("fsync", dest)))
		return err;
	if (fsync(fd) < 0 && errno != EINVAL)
		return -errno;
	if (chown_it && (st.st_uid != uid || st.st_gid != gid) && fchown(fd, uid, gid) < 0)
		return -errno;
	/* chown may clear mode bits; the file stays readable by its owner only */
	if (fchmod(fd, 0600) < 0)
		return -errno;
	return 0;
}

int fmt_outfile_seal(struct fmt_outfile *o)
{
	uid_t uid = 0;
	gid_t gid = 0;
	bool ch = fmt_outfile_owner(&uid, &gid);

	return o->fd < 0 ? -EBADF : finish_fd(o->fd, o->dest, ch, uid, gid);
}

int fmt_outfile_commit(struct fmt_outfile *o)
{
	int err = fmt_outfile_seal(o);

	if (!err && close(o->fd) < 0)
		err = -errno;
	o->fd = -1;
	if (!err)
		err = fmt_test_fault("rename", o->dest);
	if (!err && rename(o->temp, o->dest) < 0)
		err = -errno;
	if (err)
		return err;	/* the caller keeps or removes the temporary file */
	err = sync_dir(o->dest);
	fmt_outfile_release(o);
	return err;
}

void fmt_outfile_release(struct fmt_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->temp);
	free(o->dest);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

void fmt_outfile_abort(struct fmt_outfile *o)
{
	if (o->temp)
		unlink(o->temp);
	fmt_outfile_release(o);
}

int fmt_outfile_place(const char *temp, const char *dest, bool chown_it, uid_t uid, gid_t gid)
{
	const char *why;
	struct stat st;
	int fd, err;

	err = fmt_outfile_check(dest, &why);
	if (err)
		return err;
	fd = open(temp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* only a file this process could have made: its own uid's */
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (st.st_uid != geteuid() && !(chown_it && st.st_uid == uid))
		err = -EPERM;
	if (!err)
		err = finish_fd(fd, dest, chown_it, uid, gid);
	close(fd);
	if (!err)
		err = fmt_test_fault("rename", dest);
	if (!err && rename(temp, dest) < 0)
		err = -errno;
	return err ?: sync_dir(dest);
}

int fmt_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off, uint64_t *done)
{
	uint64_t pos = off;
	int err = 0;

	while (n > 0) {
		ssize_t r = pwritev(fd, iov, n, (off_t)pos);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? -errno : -EIO;
			break;
		}
		pos += (uint64_t)r;
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	if (done)
		*done = pos - off;
	return err;
}
