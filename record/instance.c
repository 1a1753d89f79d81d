// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's private tracefs instance: creation, events and filters,
 * per-CPU page capture (splice into a pipe, read() where splice is refused),
 * per-CPU statistics, signals, and tear-down in an order the kernel accepts
 * (uprobes can only go once no instance has them enabled).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "format.h"
#include "record.h"
#include "flight.h"

volatile sig_atomic_t rec_stop_signal;
volatile sig_atomic_t rec_trigger_signal;
volatile sig_atomic_t rec_request_signal;

/* SIGUSR1: a trigger (flight dump, or the end of a normal recording after --after). */
static void on_trigger(int sig)
{
	(void)sig;
	rec_trigger_signal++;
}

/* SIGUSR2: `flytrap trigger` left a request in the state directory. */
static void on_request(int sig)
{
	(void)sig;
	rec_request_signal++;
}

static void on_stop(int sig)
{
	rec_stop_signal = sig;
}

/* SIGCHLD/SIGALRM: only there so that ppoll() returns EINTR. */
static void on_wake(int sig)
{
	(void)sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int wake_signals[] = { SIGCHLD, SIGALRM };

int rec_signals_install(sigset_t *old)
{
	struct sigaction sa;
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&block, stop_signals[i]);
	for (i = 0; i < sizeof(wake_signals) / sizeof(wake_signals[0]); i++)
		sigaddset(&block, wake_signals[i]);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &block, old))
		return -errno;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal must end the wait, not resume it */
	sa.sa_handler = on_stop;
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction prev;

		/* under nohup a hang-up must not end the recording */
		if (stop_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &prev) &&
		    prev.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
	}
	/* no SA_NOCLDSTOP: the command's ptrace stops must wake the loop */
	sa.sa_handler = on_wake;
	for (i = 0; i < sizeof(wake_signals) / sizeof(wake_signals[0]); i++)
		sigaction(wake_signals[i], &sa, NULL);
	sa.sa_handler = on_trigger;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_request;
	sigaction(SIGUSR2, &sa, NULL);
	/*
	 * Past a file size limit (ulimit -f) a write fails with EFBIG and is
	 * reported like a full disk; the default action would kill us with the
	 * instance still recording.  A handler, not SIG_IGN: exec resets it, so
	 * the command keeps the default.
	 */
	sa.sa_handler = on_wake;
	sigaction(SIGXFSZ, &sa, NULL);
	return 0;
}

void rec_signals_restore(const sigset_t *old)
{
	size_t i;

	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction cur;

		if (!sigaction(stop_signals[i], NULL, &cur) && cur.sa_handler == on_stop)
			signal(stop_signals[i], SIG_DFL);
	}
	for (i = 0; i < sizeof(wake_signals) / sizeof(wake_signals[0]); i++)
		signal(wake_signals[i], SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	/* a trigger racing with the end must not kill a finished recorder */
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- small file helpers ------------------------------------------------- */

static int write_file(const char *path, const char *text, bool append)
{
	size_t len = strlen(text);
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	do {
		r = write(fd, text, len);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static char *inst_path(struct rec_instance *ri, const char *file)
{
	char *p;

	if (asprintf(&p, "%s/%s", ri->dir, file) < 0)
		return NULL;
	return p;
}

int rec_instance_write(struct rec_instance *ri, const char *file, const char *text)
{
	char *p = inst_path(ri, file);
	int err;

	if (!p)
		return -ENOMEM;
	err = write_file(p, text, false);
	free(p);
	return err;
}

char *rec_instance_read(struct rec_instance *ri, const char *file, size_t *len)
{
	char *p = inst_path(ri, file), *text;
	int e;

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	text = rec_read_file(p, len);
	e = errno;
	free(p);
	errno = e;
	return text;
}

char *rec_tracefs_read(const char *rel, size_t *len)
{
	const char *top = tracefs_tracing_dir();
	char *p, *text;
	int e;

	if (!top) {
		errno = ENODEV;
		return NULL;
	}
	if (asprintf(&p, "%s/%s", top, rel) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	text = rec_read_file(p, len);
	e = errno;
	free(p);
	errno = e;
	return text;
}

int rec_instance_option(struct rec_instance *ri, const char *name, bool on)
{
	char file[128];

	snprintf(file, sizeof(file), "options/%s", name);
	return rec_instance_write(ri, file, on ? "1" : "0");
}

/* ---- geometry ------------------------------------------------------------ */

/* "field: char data;\toffset:16;\tsize:4080;" → page size 4096, long 8. */
static int parse_header_page(const char *hp, uint32_t *page_size, int *kernel_long)
{
	const char *data = strstr(hp, " data;");
	const char *commit = strstr(hp, " commit;");
	unsigned long off, size, csize;

	if (!data || !commit)
		return -EBADMSG;
	if (sscanf(strstr(data, "offset:") ? strstr(data, "offset:") : "", "offset:%lu;", &off) != 1)
		return -EBADMSG;
	if (sscanf(strstr(data, "size:") ? strstr(data, "size:") : "", "size:%lu;", &size) != 1)
		return -EBADMSG;
	if (sscanf(strstr(commit, "size:") ? strstr(commit, "size:") : "", "size:%lu;", &csize) != 1)
		return -EBADMSG;
	if (off + size < 64 || off + size > (1UL << 20) || (csize != 4 && csize != 8))
		return -EBADMSG;
	*page_size = (uint32_t)(off + size);
	*kernel_long = (int)csize;
	return 0;
}

static int count_cpus(struct rec_instance *ri)
{
	char *p = inst_path(ri, "per_cpu");
	struct dirent *de;
	int max = -1;
	DIR *d;

	if (!p)
		return -ENOMEM;
	d = opendir(p);
	free(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long n;

		if (strncmp(de->d_name, "cpu", 3))
			continue;
		n = strtol(de->d_name + 3, &end, 10);
		if (*end || n < 0 || n > 4095)
			continue;
		if (n > max)
			max = (int)n;
	}
	closedir(d);
	return max + 1;
}

int rec_instance_create(struct rec_instance *ri, const char *clock)
{
	const char *top;
	char *hp = NULL;
	int err, n;

	memset(ri, 0, sizeof(*ri));
	snprintf(ri->name, sizeof(ri->name), REC_INSTANCE_PREFIX "%d", (int)getpid());
	snprintf(ri->uprobe_group, sizeof(ri->uprobe_group), REC_UPROBE_PREFIX "%d", (int)getpid());

	top = tracefs_tracing_dir();
	if (!top || access(top, F_OK)) {
		ft_error("cannot find tracefs (mount it: mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENODEV;
	}
	ri->tracing_dir = strdup(top);
	if (!ri->tracing_dir)
		return -ENOMEM;
	if (tracefs_instance_exists(ri->name)) {
		/* our pid, so its owner is dead: a leftover of a killed recorder */
		ft_error("tracefs instance '%s' already exists (left by a killed recorder); run 'flytrap reset'",
			 ri->name);
		return -EEXIST;
	}
	errno = 0;
	ri->ti = tracefs_instance_create(ri->name);
	if (!ri->ti || !tracefs_instance_is_new(ri->ti)) {
		err = errno ? -errno : -EIO;
		ft_error("cannot create tracefs instance '%s': %s", ri->name, strerror(-err));
		if (ri->ti && !tracefs_instance_is_new(ri->ti)) {
			/* someone else's: never remove it */
			tracefs_instance_free(ri->ti);
			ri->ti = NULL;
		}
		return err;
	}
	ri->created = true;
	ri->dir = tracefs_instance_get_dir(ri->ti);
	if (!ri->dir)
		return -ENOMEM;

	/* A new instance records at once: stop it until everything is set. */
	err = rec_instance_write(ri, "tracing_on", "0");
	if (err) {
		ft_error("cannot stop tracing in instance '%s': %s", ri->name, strerror(-err));
		return err;
	}
	if (clock && *clock) {
		err = rec_instance_write(ri, "trace_clock", clock);
		if (err) {
			ft_error("cannot set trace clock '%s': %s", clock, strerror(-err));
			return err;
		}
	}

	hp = rec_instance_read(ri, "events/header_page", NULL);
	if (!hp)
		hp = rec_tracefs_read("events/header_page", NULL);
	if (!hp) {
		err = -errno;
		ft_error("cannot read 'events/header_page': %s", strerror(errno));
		return err;
	}
	err = parse_header_page(hp, &ri->page_size, &ri->kernel_long);
	free(hp);
	if (err) {
		ft_error("cannot understand the kernel's 'events/header_page'");
		return err;
	}
	n = count_cpus(ri);
	if (n <= 0) {
		ft_error("cannot list the per-CPU buffers of '%s': %s", ri->name,
			 n < 0 ? strerror(-n) : "none found");
		return n < 0 ? n : -ENODEV;
	}
	ri->max_cpus = n;
	return 0;
}

int rec_instance_attach(struct rec_instance *ri, const char *name)
{
	const char *top = tracefs_tracing_dir();
	char *hp;
	int err, n;

	memset(ri, 0, sizeof(*ri));
	snprintf(ri->name, sizeof(ri->name), "%s", name);
	if (!top)
		return -ENODEV;
	ri->tracing_dir = strdup(top);
	if (!ri->tracing_dir || asprintf(&ri->dir, "%s/instances/%s", top, name) < 0) {
		ri->dir = NULL;
		return -ENOMEM;
	}
	hp = rec_instance_read(ri, "events/header_page", NULL);
	if (!hp)
		hp = rec_tracefs_read("events/header_page", NULL);
	if (!hp)
		return -errno;
	err = parse_header_page(hp, &ri->page_size, &ri->kernel_long);
	free(hp);
	if (err)
		return err;
	n = count_cpus(ri);
	if (n <= 0)
		return n < 0 ? n : -ENODEV;
	ri->max_cpus = n;
	return 0;
}

int rec_write_host_options(struct fmt_writer *w, struct rec_instance *ri)
{
	char version[64], *clock;
	struct utsname un;
	int err = 0;

	if (!uname(&un)) {
		char buf[4 * sizeof(un.sysname) + 4];

		snprintf(buf, sizeof(buf), "%s %s %s %s", un.sysname, un.nodename, un.release, un.machine);
		err = fmt_writer_option_str(w, FMT_OPT_UNAME, buf);
	}
	clock = rec_instance_read(ri, "trace_clock", NULL);
	if (!err && clock)
		err = fmt_writer_option_str(w, FMT_OPT_TRACECLOCK, clock);
	free(clock);
	if (!err)
		err = fmt_writer_cpucount(w, (uint32_t)ri->max_cpus);
	snprintf(version, sizeof(version), "flytrap %s", FLYTRAP_VERSION);
	return err ? err : fmt_writer_option_str(w, FMT_OPT_VERSION, version);
}

int rec_instance_top(struct rec_instance *top, const struct rec_instance *ri)
{
	memset(top, 0, sizeof(*top));
	snprintf(top->name, sizeof(top->name), "%s", "");
	snprintf(top->uprobe_group, sizeof(top->uprobe_group), "%s", ri->uprobe_group);
	top->dir = strdup(ri->tracing_dir);
	top->tracing_dir = strdup(ri->tracing_dir);
	if (!top->dir || !top->tracing_dir)
		return -ENOMEM;
	top->page_size = ri->page_size;
	top->kernel_long = ri->kernel_long;
	top->max_cpus = ri->max_cpus;
	/* ti stays NULL and created false: destroy only closes our fds */
	return 0;
}

/* ---- events --------------------------------------------------------------- */

static bool is_dir(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool have_event(struct rec_instance *ri, const char *sys, const char *name)
{
	int i;

	for (i = 0; i < ri->nevents; i++)
		if (!strcmp(ri->events[i].system, sys) && !strcmp(ri->events[i].name, name))
			return true;
	return false;
}

int rec_instance_track(struct rec_instance *ri, const char *sys, const char *name)
{
	struct rec_event *ev;

	ev = realloc(ri->events, (size_t)(ri->nevents + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ri->events = ev;
	ev[ri->nevents].system = strdup(sys);
	ev[ri->nevents].name = strdup(name);
	if (!ev[ri->nevents].system || !ev[ri->nevents].name) {
		free(ev[ri->nevents].system);
		free(ev[ri->nevents].name);
		return -ENOMEM;
	}
	ri->nevents++;
	return 0;
}

static int enable_one(struct rec_instance *ri, const char *sys, const char *name,
		      const char *filter, bool explicit)
{
	char file[1024];
	int err;

	if (filter) {
		snprintf(file, sizeof(file), "events/%s/%s/filter", sys, name);
		err = rec_instance_write(ri, file, filter);
		if (err && !explicit && err == -EINVAL) {
			/* a glob's filter may name fields only some of its events have */
			ft_warn("filter '%s' does not fit %s:%s; that event is not recorded", filter, sys, name);
			return 0;
		}
		if (err) {
			ft_error("cannot set filter '%s' on %s:%s: %s", filter, sys, name,
				 err == -EINVAL ? "the kernel rejected the expression" : strerror(-err));
			return err;
		}
	}
	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, name);
	err = rec_instance_write(ri, file, "1");
	if (err) {
		if (explicit) {
			ft_error("cannot enable event %s:%s: %s", sys, name, strerror(-err));
			return err;
		}
		/* one refused event of a glob does not stop the others */
		ft_warn("event %s:%s refused by the kernel (%s); recording the others",
			sys, name, strerror(-err));
		return 0;
	}
	if (have_event(ri, sys, name))
		return 1;
	err = rec_instance_track(ri, sys, name);
	return err ? err : 1;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int rec_instance_enable(struct rec_instance *ri, const char *spec, const char *filter)
{
	char *sys_pat = NULL, *ev_pat = NULL, *colon, *evdir;
	struct dirent *sde, *ede;
	DIR *sd = NULL, *ed;
	bool either = false;	/* "name" alone: a system or an event of any system */
	int n = 0, err = 0;

	sys_pat = strdup(spec);
	if (!sys_pat)
		return -ENOMEM;
	colon = strchr(sys_pat, ':');
	if (colon) {
		*colon = '\0';
		ev_pat = colon + 1;
		if (!*ev_pat)
			ev_pat = (char *)"*";
		if (!*sys_pat) {
			free(sys_pat);
			sys_pat = strdup("*");
			if (!sys_pat)
				return -ENOMEM;
			ev_pat = strchr(spec, ':') + 1;
		}
	} else {
		either = true;
	}

	evdir = inst_path(ri, "events");
	if (!evdir) {
		err = -ENOMEM;
		goto out;
	}
	sd = opendir(evdir);
	if (!sd) {
		err = -errno;
		ft_error("cannot list '%s': %s", evdir, strerror(errno));
		goto out;
	}
	while ((sde = readdir(sd))) {
		char sysdir[4096];
		bool sys_match;

		if (sde->d_name[0] == '.' || !is_dir(evdir, sde->d_name))
			continue;
		sys_match = !fnmatch(sys_pat, sde->d_name, 0);
		if (!either && !sys_match)
			continue;
		/* our own uprobes are only added through --uprobe */
		if (!strncmp(sde->d_name, REC_UPROBE_PREFIX, strlen(REC_UPROBE_PREFIX)) &&
		    strcmp(sde->d_name, ri->uprobe_group) && has_glob(spec))
			continue;
		snprintf(sysdir, sizeof(sysdir), "%s/%s", evdir, sde->d_name);
		ed = opendir(sysdir);
		if (!ed)
			continue;
		while ((ede = readdir(ed))) {
			bool match;
			int r;

			if (ede->d_name[0] == '.' || !is_dir(sysdir, ede->d_name))
				continue;
			if (either)
				match = sys_match || !fnmatch(sys_pat, ede->d_name, 0);
			else
				match = !fnmatch(ev_pat, ede->d_name, 0);
			if (!match)
				continue;
			r = enable_one(ri, sde->d_name, ede->d_name, filter, !has_glob(spec) && !either);
			if (r < 0) {
				err = r;
				closedir(ed);
				goto out;
			}
			n += r;
		}
		closedir(ed);
	}
out:
	if (sd)
		closedir(sd);
	free(evdir);
	free(sys_pat);
	return err ? err : n;
}

/* ---- capture ---------------------------------------------------------------- */

int rec_capture_open(struct rec_instance *ri, const uint64_t *cpu_mask)
{
	bool no_splice = getenv("FLYTRAP_NO_SPLICE") && strcmp(getenv("FLYTRAP_NO_SPLICE"), "0");
	int cpu, err = 0;

	ri->cpus = calloc((size_t)ri->max_cpus, sizeof(*ri->cpus));
	if (!ri->cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < ri->max_cpus; cpu++) {
		struct rec_cpu *c;
		char file[128];
		int p[2];

		if (cpu_mask && cpu < 256 && !(cpu_mask[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		if (cpu_mask && cpu >= 256)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		c = &ri->cpus[ri->ncpus];
		c->cpu = cpu;
		c->pipe_rd = c->pipe_wr = -1;
		{
			char *path = inst_path(ri, file);

			if (!path)
				return -ENOMEM;
			c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			free(path);
		}
		if (c->fd < 0) {
			if (errno == ENOENT)
				continue;	/* CPU not present */
			err = -errno;
			ft_error("cannot open '%s/%s': %s", ri->dir, file, strerror(errno));
			return err;
		}
		/* FLYTRAP_NO_SPLICE=1: the read() path on demand, for tests */
		if (no_splice || pipe2(p, O_CLOEXEC | O_NONBLOCK)) {
			c->use_read = true;
		} else {
			c->pipe_rd = p[0];
			c->pipe_wr = p[1];
		}
		c->stats_start = rec_cpu_stats(ri, cpu);
		ri->ncpus++;
	}
	if (!ri->ncpus) {
		ft_error("no CPU to record (check --cpus)");
		return -ENODEV;
	}
	return 0;
}

/* A page that carries neither data nor a lost-events mark is not worth a slot. */
static bool page_is_empty(const struct rec_instance *ri, const uint8_t *page)
{
	uint64_t commit = 0;

	if (ri->kernel_long == 8) {
		memcpy(&commit, page + 8, 8);
	} else {
		uint32_t c32;

		memcpy(&c32, page + 8, 4);
		commit = c32;
	}
	return (commit & ((1ULL << 27) - 1)) == 0 && !(commit & (1ULL << 31));
}

static int give_page(struct rec_instance *ri, struct rec_cpu *c, struct fmt_wbuf *wb,
		     uint8_t *page, int *werr)
{
	int err;

	c->bytes_read += ri->page_size;
	if (page_is_empty(ri, page)) {
		c->empty_pages++;
		return 0;
	}
	if (c->mark_loss) {
		/* the commit word's "missed events" flag, count unknown (drops shows it) */
		if (ri->kernel_long == 8) {
			uint64_t commit;

			memcpy(&commit, page + 8, 8);
			commit |= 1ULL << 31;
			memcpy(page + 8, &commit, 8);
		} else {
			uint32_t commit;

			memcpy(&commit, page + 8, 4);
			commit |= 1U << 31;
			memcpy(page + 8, &commit, 4);
		}
		c->mark_loss = false;
	}
	err = fmt_wbuf_add_page(wb, c->cpu, page);
	if (err) {
		*werr = err;
		return err;
	}
	c->pages++;
	return 1;
}

/* Read exactly len bytes (whole pages) out of the splice pipe. */
static int pipe_read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, buf + got, len - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

int rec_capture_partial(struct rec_instance *ri, struct rec_cpu *c, struct fmt_wbuf *wb, int *werr)
{
	uint8_t *page = malloc(ri->page_size);
	ssize_t r;
	int err = 0;

	if (!page)
		return -ENOMEM;
	do {
		r = read(c->fd, page, ri->page_size);
	} while (r < 0 && errno == EINTR);
	if (r < 0 && errno != EAGAIN)
		err = -errno;
	if (r > 0) {
		if ((size_t)r < ri->page_size)
			memset(page + r, 0, ri->page_size - (size_t)r);
		err = give_page(ri, c, wb, page, werr);
	}
	free(page);
	return err < 0 ? err : 0;
}

int rec_capture_drain(struct rec_instance *ri, struct rec_cpu *c, struct fmt_wbuf *wb,
		      bool final, int *werr)
{
	uint8_t *page;
	size_t chunk = (size_t)ri->page_size * 16;	/* a default pipe holds 16 pages */
	uint64_t before = c->bytes_read;
	int moved = 0, err = 0;
	ssize_t r;

	*werr = 0;
	page = aligned_alloc(64, ri->page_size);
	if (!page)
		return -ENOMEM;

	while (!c->use_read) {
		ssize_t left;

		r = splice(c->fd, NULL, c->pipe_wr, NULL, chunk, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
				ft_info("splice refused on CPU %d (%s): reading pages with read()",
					c->cpu, strerror(errno));
				c->use_read = true;
				break;
			}
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		if (r % ri->page_size) {
			/* the kernel splices whole sub-buffers; anything else is unexpected */
			err = -EIO;
			goto out;
		}
		for (left = r; left > 0; left -= ri->page_size) {
			err = pipe_read_full(c->pipe_rd, page, ri->page_size);
			if (err)
				goto out;
			err = give_page(ri, c, wb, page, werr);
			if (err < 0)
				goto out;
			moved += err;
			err = 0;
		}
	}
	/*
	 * read() also hands out partial pages.  Without splice it is the only
	 * way; with splice only at the end, so that pages are not cut short
	 * while the recording runs.
	 */
	while (c->use_read || final) {
		r = read(c->fd, page, ri->page_size);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		if ((size_t)r < ri->page_size)
			memset(page + r, 0, ri->page_size - (size_t)r);
		err = give_page(ri, c, wb, page, werr);
		if (err < 0)
			goto out;
		moved += err;
		err = 0;
	}
out:
	if (c->bytes_read - before > c->max_drain)
		c->max_drain = c->bytes_read - before;
	free(page);
	return err ? err : moved;
}

char *rec_cpu_stats(struct rec_instance *ri, int cpu)
{
	char file[128];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	return rec_instance_read(ri, file, NULL);
}

uint64_t rec_stats_field(const char *stats, const char *key)
{
	size_t klen = strlen(key);
	const char *p = stats;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* ---- tear-down ---------------------------------------------------------- */

int rec_instance_destroy(struct rec_instance *ri)
{
	int i, err = 0, r = 0;

	if (ri->ti && ri->created)
		rec_instance_write(ri, "tracing_on", "0");
	for (i = 0; i < ri->ncpus; i++) {
		struct rec_cpu *c = &ri->cpus[i];

		if (c->fd >= 0)
			close(c->fd);
		if (c->pipe_rd >= 0)
			close(c->pipe_rd);
		if (c->pipe_wr >= 0)
			close(c->pipe_wr);
		c->fd = c->pipe_rd = c->pipe_wr = -1;
	}

	if (ri->ti && ri->created) {
		/* the kernel refuses rmdir while an event is mid-update; retry briefly */
		rec_instance_write(ri, "events/enable", "0");
		for (i = 0; i < 50; i++) {
			r = tracefs_instance_destroy(ri->ti);
			if (!r || errno != EBUSY)
				break;
			usleep(20000);
		}
		if (r && tracefs_instance_exists(ri->name)) {
			err = -errno;
			ft_error("cannot remove tracefs instance '%s': %s (run 'flytrap reset')",
				 ri->name, strerror(errno));
		}
		ri->created = false;
	}
	if (ri->nuprobes) {
		r = rec_uprobe_remove_all(ri);
		if (r && !err)
			err = r;
	}
	if (ri->ti) {
		tracefs_instance_free(ri->ti);
		ri->ti = NULL;
	}
	return err;
}

void rec_instance_release(struct rec_instance *ri)
{
	int i;

	rec_instance_destroy(ri);
	for (i = 0; i < ri->ncpus; i++) {
		free(ri->cpus[i].stats_start);
		free(ri->cpus[i].stats_end);
	}
	free(ri->cpus);
	ri->cpus = NULL;
	ri->ncpus = 0;
	for (i = 0; i < ri->nevents; i++) {
		free(ri->events[i].system);
		free(ri->events[i].name);
	}
	free(ri->events);
	ri->events = NULL;
	ri->nevents = 0;
	free(ri->dir);
	ri->dir = NULL;
	free(ri->tracing_dir);
	ri->tracing_dir = NULL;
}

/* ---- leftovers ------------------------------------------------------------- */

