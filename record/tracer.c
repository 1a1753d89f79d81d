// SPDX-License-Identifier: GPL-2.0-only
/*
 * The function / function_graph tracers and kprobe events (record/tracer.h).
 *
 * Every tracefs file is written through save_and_write(): the old content
 * is kept (and, for top-level files, also persisted under
 * REC_TRACER_STATE_DIR) before the first write, and restore puts the saved
 * contents back in reverse order.  Files are written with plain
 * open/write/close rather than libtracefs so that the errno of the very
 * write the kernel refused reaches the message.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <tracefs.h>

#include "flytrap.h"
#include "record/tracer.h"

/* One saved file: restore writes content back to path. */
struct saved_file {
	char *path;		/* absolute */
	char *content;		/* as read before the first write */
	char *persist;		/* file in the state directory, or NULL */
	bool restored;
};

struct rec_tracer {
	struct tracefs_instance *inst;
	char *inst_dir;		/* the instance's directory */
	char *top_dir;		/* the tracefs mount */
	char *run_dir;		/* where the tracer runs: inst_dir or top_dir */
	bool top;		/* the tracer runs in the top level */
	bool set_called;
	bool running;		/* top-level tracing_on switched on by start */
	enum rec_tracer_kind kind;

	struct saved_file *saved;
	size_t nsaved, cap_saved;
	char *state_dir;	/* REC_TRACER_STATE_DIR/tracer-<pid>, once created */
	unsigned persist_seq;

	char group[64];
	char **kprobes;		/* event names in group, all created by us */
	size_t nkprobes;

	const char *systems[3];
	char *last_error;
};

/* ---- small helpers ------------------------------------------------------- */

static void set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(char **err, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (!err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(*err);
	*err = s;
}

static char *path_join(const char *dir, const char *name)
{
	return ft_asprintf("%s/%s", dir, name);
}

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Whole file into a NUL-terminated malloc'd buffer; NULL with errno set. */
static char *read_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	for (;;) {
		ssize_t n;

		if (!buf) {
			close(fd);
			errno = ENOMEM;
			return NULL;
		}
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				continue;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/*
 * One write() of text to path.  Returns 0 or -errno of the failing step.
 * The kernel applies filter files on close, so close errors count too.
 */
static int write_text(const char *path, const char *text, int flags)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	int ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, text, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool is_filter_file(const char *path)
{
	const char *b = base_name(path);

	return !strcmp(b, "set_ftrace_filter") || !strcmp(b, "set_ftrace_notrace") ||
	       !strcmp(b, "set_graph_function") || !strcmp(b, "set_graph_notrace");
}

/*
 * The selected word of a "a [b] c" list (trace_clock), or the whole
 * trimmed text.  Returns a pointer into s (modified).
 */
static char *selected_word(char *s)
{
	char *o = strchr(s, '['), *c;

	if (o) {
		c = strchr(o, ']');
		if (c) {
			*c = '\0';
			return o + 1;
		}
	}
	trim(s);
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/*
 * Write a filter file back to the list in content: truncate, then one
 * write per function.  The kernel lists module functions as "func [mod]"
 * but only parses "func:mod:mod", and prints "#### all functions
 * enabled ####" (a comment) for an empty filter.
 */
static int restore_filter(const char *path, const char *content)
{
	char *copy = strdup(content), *line, *save = NULL;
	int ret, fd;

	if (!copy)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		free(copy);
		return -errno;
	}
	ret = 0;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *mod, *entry;
		ssize_t n;

		trim(line);
		while (isspace((unsigned char)*line))
			line++;
		if (!*line || *line == '#')
			continue;
		mod = strstr(line, " [");
		if (mod && line[strlen(line) - 1] == ']') {
			*mod = '\0';
			mod += 2;
			mod[strlen(mod) - 1] = '\0';
			entry = ft_asprintf("%s:mod:%s\n", line, mod);
		} else {
			entry = ft_asprintf("%s\n", line);
		}
		if (!entry) {
			ret = -ENOMEM;
			break;
		}
		/*
		 * One function per write, ended by a newline: the kernel's
		 * parser keeps a word without one open for the next write.
		 */
		do {
			n = write(fd, entry, strlen(entry));
		} while (n < 0 && errno == EINTR);
		if (n < 0 && !ret)
			ret = -errno;
		free(entry);
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	free(copy);
	return ret;
}

/* Put one file back the way it was read. */
static int restore_content(const char *path, const char *content)
{
	char *copy;
	int ret;

	if (is_filter_file(path))
		return restore_filter(path, content);
	copy = strdup(content);
	if (!copy)
		return -ENOMEM;
	if (!strcmp(base_name(path), "trace_clock")) {
		ret = write_text(path, selected_word(copy), O_TRUNC);
	} else {
		trim(copy);
		ret = write_text(path, copy, O_TRUNC);
	}
	free(copy);
	return ret;
}

static bool pid_is_flytrap(pid_t pid)
{
	char path[64], *comm;
	bool ret;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm = read_text(path);
	if (!comm)
		return false;
	trim(comm);
	ret = !strcmp(comm, "flytrap");
	free(comm);
	return ret;
}

static bool valid_event_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* ---- saving --------------------------------------------------------------- */

static void note_error(struct rec_tracer *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_error(struct rec_tracer *t, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s) {
		free(t->last_error);
		t->last_error = s;
	}
}

/* The state directory of this recorder, created on first use. */
static int state_dir(struct rec_tracer *t)
{
	char *d;

	if (t->state_dir)
		return 0;
	if (rec_state_prepare(true))
		return -EACCES;
	d = ft_asprintf("%s/tracer-%d", REC_TRACER_STATE_DIR, (int)getpid());
	if (!d)
		return -ENOMEM;
	if (mkdir(d, 0700) < 0 && errno != EEXIST) {
		int e = errno;

		free(d);
		return -e;
	}
	t->state_dir = d;
	return 0;
}

/*
 * Persisted entry: "NNNN" (order) in the state directory holding
 * "path\n" followed by the saved content.  Written to a temporary name and
 * renamed so a SIGKILL never leaves a half entry behind.
 */
static int persist(struct rec_tracer *t, struct saved_file *s)
{
	char *tmp = NULL, *final = NULL;
	int ret, fd;
	size_t plen, clen;

	ret = state_dir(t);
	if (ret)
		return ret;
	final = ft_asprintf("%s/%04u", t->state_dir, t->persist_seq);
	tmp = ft_asprintf("%s/.%04u.tmp", t->state_dir, t->persist_seq);
	if (!final || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	unlink(tmp);	/* ours from a killed run: only root writes the state directory */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	plen = strlen(s->path);
	clen = strlen(s->content);
	if (write(fd, s->path, plen) != (ssize_t)plen || write(fd, "\n", 1) != 1 ||
	    write(fd, s->content, clen) != (ssize_t)clen) {
		ret = errno ? -errno : -EIO;
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		ret = -errno;
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, final) < 0) {
		ret = -errno;
		unlink(tmp);
		goto out;
	}
	t->persist_seq++;
	s->persist = final;
	final = NULL;
	ret = 0;
out:
	free(tmp);
	free(final);
	return ret;
}

static struct saved_file *find_saved(struct rec_tracer *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->nsaved; i++)
		if (!t->saved[i].restored && !strcmp(t->saved[i].path, path))
			return &t->saved[i];
	return NULL;
}

/*
 * Save path (once) and write text to it.  Files of the top level are
 * persisted before the write so `flytrap reset` can undo them.  flags:
 * O_TRUNC or O_APPEND.  Returns 0 or -errno; *what says which step failed
 * ("saving", "reading", "writing") for the message.
 */
static int save_and_write(struct rec_tracer *t, const char *path, const char *text, int flags,
			  const char **what)
{
	struct saved_file *s = find_saved(t, path);
	int ret;

	*what = "writing";
	if (!s) {
		char *content = read_text(path);

		if (!content) {
			*what = "reading";
			return -errno;
		}
		if (t->nsaved == t->cap_saved) {
			size_t nc = t->cap_saved ? t->cap_saved * 2 : 8;
			struct saved_file *ns = realloc(t->saved, nc * sizeof(*ns));

			if (!ns) {
				free(content);
				return -ENOMEM;
			}
			t->saved = ns;
			t->cap_saved = nc;
		}
		s = &t->saved[t->nsaved];
		memset(s, 0, sizeof(*s));
		s->path = strdup(path);
		s->content = content;
		if (!s->path) {
			free(content);
			return -ENOMEM;
		}
		t->nsaved++;
		if (!strncmp(path, t->top_dir, strlen(t->top_dir)) &&
		    strncmp(path, t->inst_dir, strlen(t->inst_dir))) {
			ret = persist(t, s);
			if (ret) {
				/* never change the top level without a way back */
				*what = "saving the state of";
				t->nsaved--;
				free(s->path);
				free(s->content);
				return ret;
			}
		}
	}
	return write_text(path, text, flags);
}

static bool in_instance(const struct rec_tracer *t, const char *path)
{
	size_t n = strlen(t->inst_dir);

	return !strncmp(path, t->inst_dir, n) && path[n] == '/';
}

/* Restore saved files from the end down to index `from`. */
static int restore_saved(struct rec_tracer *t, size_t from)
{
	bool inst_busy = false;
	int first = 0;

	while (t->nsaved > from) {
		struct saved_file *s = &t->saved[t->nsaved - 1];
		int ret;

		/*
		 * The kernel refuses current_tracer (EBUSY) while the
		 * instance's trace_pipe_raw is open.  Then the instance's
		 * other files stay too: emptying set_ftrace_filter under a
		 * running function tracer would hook every kernel function
		 * just before the instance's removal ends it all anyway.
		 */
		if (inst_busy && in_instance(t, s->path))
			ret = 0;
		else
			ret = restore_content(s->path, s->content);
		if (ret == -EBUSY && in_instance(t, s->path)) {
			inst_busy = true;
			ret = 0;
		}
		/* -ENOENT: the instance is gone, and the file with it */
		if (ret && ret != -ENOENT) {
			note_error(t, "cannot restore '%s': %s", s->path, strerror(-ret));
			if (!first)
				first = ret;
		}
		if (s->persist && (!ret || ret == -ENOENT))
			unlink(s->persist);
		free(s->path);
		free(s->content);
		free(s->persist);
		t->nsaved--;
	}
	return first;
}

static void remove_state_dir(struct rec_tracer *t)
{
	if (t->state_dir && t->nsaved == 0) {
		if (rmdir(t->state_dir) == 0 || errno == ENOENT) {
			free(t->state_dir);
			t->state_dir = NULL;
		}
	}
}

/* ---- parsing ---------------------------------------------------------------- */

int rec_tracer_parse_kind(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "function"))
		return REC_TRACER_FUNCTION;
	if (!strcmp(name, "function_graph"))
		return REC_TRACER_FUNCTION_GRAPH;
	return -1;
}

struct kprobe_spec {
	char type;		/* 'p' or 'r' */
	char maxactive[16];	/* digits after r, may be empty */
	char name[64];		/* may be empty */
	const char *rest;	/* "SYMBOL[+OFF] ARGS", into the spec */
	char symbol[128];	/* first word of rest */
};

static int parse_kprobe(const char *spec, struct kprobe_spec *k, char **err)
{
	const char *p = spec, *q;
	size_t n;

	memset(k, 0, sizeof(*k));
	while (isspace((unsigned char)*p))
		p++;
	if (*p != 'p' && *p != 'r') {
		set_err(err, "kprobe '%s': must start with 'p' (probe) or 'r' (return probe)", spec);
		return -EINVAL;
	}
	k->type = *p++;
	q = p;
	while (isdigit((unsigned char)*p))
		p++;
	n = (size_t)(p - q);
	if (n) {
		if (k->type != 'r' || n >= sizeof(k->maxactive)) {
			set_err(err, "kprobe '%s': a number after '%c' is only allowed for return probes (rMAXACTIVE)",
				spec, k->type);
			return -EINVAL;
		}
		memcpy(k->maxactive, q, n);
	}
	if (*p == ':') {
		p++;
		q = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		n = (size_t)(p - q);
		if (memchr(q, '/', n)) {
			set_err(err, "kprobe '%s': flytrap puts probes in its own event group; give NAME, not GROUP/NAME",
				spec);
			return -EINVAL;
		}
		if (!n || n >= sizeof(k->name)) {
			set_err(err, "kprobe '%s': the event name after ':' is %s", spec, n ? "too long" : "empty");
			return -EINVAL;
		}
		memcpy(k->name, q, n);
		if (!valid_event_name(k->name)) {
			set_err(err, "kprobe '%s': event name '%s' may only hold letters, digits and '_'", spec,
				k->name);
			return -EINVAL;
		}
	} else if (*p && !isspace((unsigned char)*p)) {
		set_err(err, "kprobe '%s': expected 'p[:NAME] SYMBOL' or 'r[:NAME] SYMBOL'", spec);
		return -EINVAL;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		set_err(err, "kprobe '%s': no probe point (SYMBOL[+OFFSET] or ADDRESS) given", spec);
		return -EINVAL;
	}
	k->rest = p;
	q = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	n = (size_t)(p - q);
	if (n >= sizeof(k->symbol)) {
		set_err(err, "kprobe '%s': probe point is too long", spec);
		return -EINVAL;
	}
	memcpy(k->symbol, q, n);
	if (strchr(spec, '\n')) {
		set_err(err, "kprobe '%s': must be one line", spec);
		return -EINVAL;
	}
	return 0;
}

int rec_tracer_check_kprobe(const char *spec, char **err)
{
	struct kprobe_spec k;

	return parse_kprobe(spec, &k, err);
}

/* ---- life cycle ----------------------------------------------------------- */

struct rec_tracer *rec_tracer_new(struct tracefs_instance *inst)
{
	struct rec_tracer *t = calloc(1, sizeof(*t));
	const char *top;

	if (!t)
		return NULL;
	t->inst = inst;
	top = tracefs_tracing_dir();
	if (!top) {
		free(t);
		errno = ENODEV;
		return NULL;
	}
	t->top_dir = strdup(top);
	t->inst_dir = tracefs_instance_get_dir(inst);
	if (!t->top_dir || !t->inst_dir) {
		free(t->top_dir);
		free(t->inst_dir);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->run_dir = t->inst_dir;
	snprintf(t->group, sizeof(t->group), "%s%d", REC_KPROBE_GROUP_PREFIX, (int)getpid());
	return t;
}

static const char *kind_name(enum rec_tracer_kind k)
{
	return k == REC_TRACER_FUNCTION ? "function" : "function_graph";
}

/* true when word occurs in the whitespace-separated list text */
static bool word_in(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while ((p = strstr(p, word))) {
		bool start = p == text || isspace((unsigned char)p[-1]);
		bool end = !p[n] || isspace((unsigned char)p[n]);

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

/* A file of the directory where the tracer runs, else of the top level. */
static char *run_or_top_file(struct rec_tracer *t, const char *name, bool *at_top)
{
	char *p = path_join(t->run_dir, name);

	*at_top = t->top;
	if (p && !path_exists(p) && !t->top) {
		free(p);
		p = path_join(t->top_dir, name);
		*at_top = true;
	}
	return p;
}

/*
 * Decide where the tracer runs: in the instance when the kernel lists it
 * there, else in an idle top level.
 */
static int choose_buffer(struct rec_tracer *t, enum rec_tracer_kind kind, char **err)
{
	const char *tr = kind_name(kind);
	char *path, *list, *cur, *ev;
	bool in_inst, in_top;
	int ret = 0;

	path = path_join(t->inst_dir, "available_tracers");
	list = path ? read_text(path) : NULL;
	free(path);
	in_inst = list && word_in(list, tr);
	free(list);
	if (in_inst)
		return 0;

	path = path_join(t->top_dir, "available_tracers");
	list = path ? read_text(path) : NULL;
	free(path);
	in_top = list && word_in(list, tr);
	free(list);
	if (!in_top) {
		set_err(err, "the %s tracer is not available in this kernel (%s)", tr,
			kind == REC_TRACER_FUNCTION ? "CONFIG_FUNCTION_TRACER" : "CONFIG_FUNCTION_GRAPH_TRACER");
		return -EOPNOTSUPP;
	}

	/* Only in the top level (before Linux 6.12): use it if idle. */
	path = path_join(t->top_dir, "current_tracer");
	cur = path ? read_text(path) : NULL;
	free(path);
	path = path_join(t->top_dir, "set_event");
	ev = path ? read_text(path) : NULL;
	free(path);
	if (!cur || !ev) {
		set_err(err, "cannot read the top-level tracer state: %s", strerror(errno));
		ret = -errno;
	} else {
		trim(cur);
		trim(ev);
		if (strcmp(cur, "nop")) {
			set_err(err, "this kernel runs the %s tracer only in the top-level buffer, and that is in use by the '%s' tracer",
				tr, cur);
			ret = -EBUSY;
		} else if (*ev) {
			set_err(err, "this kernel runs the %s tracer only in the top-level buffer, and that is in use (events enabled there)",
				tr);
			ret = -EBUSY;
		} else {
			t->top = true;
			t->run_dir = t->top_dir;
		}
	}
	free(cur);
	free(ev);
	return ret;
}

/* The message for a refused write to a tracer file. */
static void refused(char **err, const char *what, const char *path, int e, const char *arg)
{
	const char *file = base_name(path);

	if (strcmp(what, "writing"))
		arg = NULL;	/* the value is only part of a failed write */
	if (!strcmp(what, "saving the state of")) {
		/* the state directory failed, not the kernel */
		set_err(err, "cannot save %s in '%s/tracer-%d' before changing it: %s", file,
			rec_state_dir(), (int)getpid(), strerror(-e));
		return;
	}

	if (e == -EPERM || e == -EACCES)
		set_err(err, "the kernel refuses function tracing: %s %s%s%s%s: %s (lockdown, or ftrace disabled)",
			what, file, arg ? " ('" : "", arg ? arg : "", arg ? "')" : "", strerror(-e));
	else if (e == -ENOENT || e == -ENODEV)
		set_err(err, "this kernel has no tracefs file %s (dynamic ftrace, CONFIG_DYNAMIC_FTRACE)", file);
	else if (e == -EINVAL && arg && is_filter_file(path))
		set_err(err, "no kernel function matches '%s' (%s)", arg, file);
	else
		set_err(err, "%s %s%s%s%s: %s", what, file, arg ? " ('" : "", arg ? arg : "", arg ? "')" : "",
			strerror(-e));
}

/* Narrowing list: truncate, then append every entry. */
static int write_list(struct rec_tracer *t, const char *name, const char *const *items, size_t n,
		      char **err)
{
	const char *what;
	bool at_top;
	char *path, *line;
	size_t i;
	int ret = 0;

	if (!n)
		return 0;
	path = run_or_top_file(t, name, &at_top);
	if (!path)
		return -ENOMEM;
	if (!path_exists(path)) {
		refused(err, "writing", path, -ENOENT, NULL);
		free(path);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n && !ret; i++) {
		if (!items[i] || !*items[i] || strchr(items[i], '\n')) {
			set_err(err, "%s: empty or multi-line function pattern", name);
			ret = -EINVAL;
			break;
		}
		/*
		 * The first entry replaces the list, the others add to it.  The
		 * newline makes the kernel match the word during write(), so a
		 * pattern matching nothing fails here with EINVAL; without it
		 * the word is matched at close() and the failure is lost.
		 */
		line = ft_asprintf("%s\n", items[i]);
		if (!line) {
			ret = -ENOMEM;
			break;
		}
		ret = save_and_write(t, path, line, i ? O_APPEND : O_TRUNC, &what);
		free(line);
		if (ret)
			refused(err, what, path, ret, items[i]);
	}
	free(path);
	return ret;
}

static int write_one(struct rec_tracer *t, const char *path, const char *value, char **err)
{
	const char *what;
	int ret = save_and_write(t, path, value, O_TRUNC, &what);

	if (ret)
		refused(err, what, path, ret, value);
	return ret;
}

int rec_tracer_set(struct rec_tracer *t, const struct rec_tracer_opts *o, char **err)
{
	size_t mark = t->nsaved;
	char *path = NULL, *clock = NULL;
	bool at_top;
	int ret;

	if (t->set_called) {
		set_err(err, "the tracer is already set");
		return -EALREADY;
	}
	if (o->kind == REC_TRACER_NONE) {
		if (o->ngraph_funcs || o->nfilter || o->nnotrace || o->max_graph_depth || o->func_stack) {
			set_err(err, "-g, -l, -n, --max-graph-depth and --func-stack need -p function or -p function_graph");
			return -EINVAL;
		}
		return 0;
	}
	if (o->kind != REC_TRACER_FUNCTION && o->kind != REC_TRACER_FUNCTION_GRAPH) {
		set_err(err, "unknown tracer");
		return -EINVAL;
	}
	if (o->kind == REC_TRACER_FUNCTION && (o->ngraph_funcs || o->max_graph_depth)) {
		set_err(err, "-g and --max-graph-depth need -p function_graph");
		return -EINVAL;
	}
	if (o->kind == REC_TRACER_FUNCTION_GRAPH && o->func_stack) {
		set_err(err, "--func-stack is an option of the function tracer, not function_graph");
		return -EINVAL;
	}
	t->set_called = true;

	ret = choose_buffer(t, o->kind, err);
	if (ret)
		goto fail;

	if (t->top) {
		/*
		 * The top level records nothing until rec_tracer_start, and
		 * shares the instance's clock so the two buffers merge.
		 */
		path = path_join(t->top_dir, "tracing_on");
		ret = path ? write_one(t, path, "0", err) : -ENOMEM;
		free(path);
		path = NULL;
		if (ret)
			goto fail;
		path = path_join(t->inst_dir, "trace_clock");
		clock = path ? read_text(path) : NULL;
		free(path);
		path = NULL;
		if (clock) {
			path = path_join(t->top_dir, "trace_clock");
			ret = path ? write_one(t, path, selected_word(clock), err) : -ENOMEM;
			free(path);
			path = NULL;
			if (ret)
				goto fail;
		}
	}

	ret = write_list(t, "set_ftrace_filter", o->filter, o->nfilter, err);
	if (!ret)
		ret = write_list(t, "set_ftrace_notrace", o->notrace, o->nnotrace, err);
	if (!ret)
		ret = write_list(t, "set_graph_function", o->graph_funcs, o->ngraph_funcs, err);
	if (ret)
		goto fail;
	if (o->max_graph_depth) {
		char num[16];

		snprintf(num, sizeof(num), "%u", o->max_graph_depth);
		path = run_or_top_file(t, "max_graph_depth", &at_top);
		ret = path ? write_one(t, path, num, err) : -ENOMEM;
		free(path);
		path = NULL;
		if (ret)
			goto fail;
	}

	path = path_join(t->run_dir, "current_tracer");
	ret = path ? write_one(t, path, kind_name(o->kind), err) : -ENOMEM;
	free(path);
	path = NULL;
	if (ret)
		goto fail;

	if (o->func_stack) {
		/* a tracer flag: the kernel takes it only while the tracer is current */
		path = path_join(t->run_dir, "options/func_stack_trace");
		if (!path) {
			ret = -ENOMEM;
			goto fail;
		}
		if (!path_exists(path)) {
			set_err(err, "this kernel has no func_stack_trace option for the function tracer");
			ret = -EOPNOTSUPP;
			goto fail;
		}
		ret = write_one(t, path, "1", err);
		free(path);
		path = NULL;
		if (ret)
			goto fail;
	}
	t->kind = o->kind;
	free(clock);
	return 0;

fail:
	free(path);
	free(clock);
	restore_saved(t, mark);
	remove_state_dir(t);
	t->top = false;
	t->run_dir = t->inst_dir;
	if (err && !*err)
		set_err(err, "cannot set up the %s tracer: %s", kind_name(o->kind), strerror(-ret));
	return ret;
}

/* ---- kprobes ------------------------------------------------------------- */

static bool kprobe_taken(struct rec_tracer *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nkprobes; i++)
		if (!strcmp(t->kprobes[i], name))
			return true;
	return false;
}

/* The kernel's complaint about the last dynamic event write, or NULL. */
static char *kernel_complaint(void)
{
	char *all = tracefs_error_last(NULL), *p, *nl, *ret = NULL;

	if (!all)
		return NULL;
	p = strstr(all, "error: ");
	if (p) {
		p += 7;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		trim(p);
		ret = strdup(p);
	}
	free(all);
	return ret;
}

static int enable_file(const char *dir, const char *group, const char *name, const char *val)
{
	char *path = ft_asprintf("%s/events/%s/%s/enable", dir, group, name);
	int ret;

	if (!path)
		return -ENOMEM;
	ret = write_text(path, val, O_TRUNC);
	free(path);
	return ret;
}

/* Disable (ignoring a missing instance) and delete group/name. */
static int delete_kprobe(const char *top_dir, const char *inst_dir, const char *group,
			 const char *name)
{
	char *cmd, *path;
	int ret;

	if (inst_dir)
		enable_file(inst_dir, group, name, "0");
	enable_file(top_dir, group, name, "0");
	cmd = ft_asprintf("-:%s/%s", group, name);
	path = path_join(top_dir, "kprobe_events");
	if (!cmd || !path) {
		free(cmd);
		free(path);
		return -ENOMEM;
	}
	ret = write_text(path, cmd, O_APPEND);
	free(cmd);
	free(path);
	return ret;
}

int rec_tracer_add_kprobe(struct rec_tracer *t, const char *spec, char **err)
{
	struct kprobe_spec k;
	char name[64], *cmd = NULL, *path = NULL, *why;
	char **nk;
	int ret;

	ret = parse_kprobe(spec, &k, err);
	if (ret)
		return ret;
	path = path_join(t->top_dir, "kprobe_events");
	if (!path)
		return -ENOMEM;
	if (!path_exists(path)) {
		set_err(err, "kprobe events are not available in this kernel (no kprobe_events in tracefs, CONFIG_KPROBE_EVENTS)");
		ret = -EOPNOTSUPP;
		goto out;
	}

	if (k.name[0]) {
		snprintf(name, sizeof(name), "%s", k.name);
		if (kprobe_taken(t, name)) {
			set_err(err, "kprobe '%s': the name '%s' is used twice", spec, name);
			ret = -EEXIST;
			goto out;
		}
	} else {
		/* the kernel's own default name, p_SYMBOL_OFFSET, made unique here */
		char base[48], *s;
		unsigned i;

		snprintf(base, sizeof(base), "%c_%.40s", k.type, k.symbol);
		for (s = base; *s; s++)
			if (!isalnum((unsigned char)*s) && *s != '_')
				*s = '_';
		snprintf(name, sizeof(name), "%s", base);
		for (i = 1; kprobe_taken(t, name); i++)
			snprintf(name, sizeof(name), "%s_%u", base, i);
	}

	nk = realloc(t->kprobes, (t->nkprobes + 1) * sizeof(*nk));
	if (!nk) {
		ret = -ENOMEM;
		goto out;
	}
	t->kprobes = nk;

	cmd = ft_asprintf("%c%s:%s/%s %s", k.type, k.maxactive, t->group, name, k.rest);
	if (!cmd) {
		ret = -ENOMEM;
		goto out;
	}
	tracefs_error_clear(NULL);
	ret = write_text(path, cmd, O_APPEND);
	if (ret) {
		why = kernel_complaint();
		if (ret == -EPERM || ret == -EACCES)
			set_err(err, "kprobe '%s': the kernel refuses kprobe events: %s", spec, strerror(-ret));
		else if (why)
			set_err(err, "kprobe '%s' refused by the kernel: %s", spec, why);
		else
			set_err(err, "kprobe '%s' refused by the kernel: %s", spec, strerror(-ret));
		free(why);
		goto out;
	}
	t->kprobes[t->nkprobes] = strdup(name);
	if (!t->kprobes[t->nkprobes]) {
		delete_kprobe(t->top_dir, NULL, t->group, name);
		ret = -ENOMEM;
		goto out;
	}
	t->nkprobes++;

	ret = enable_file(t->inst_dir, t->group, name, "1");
	if (ret) {
		set_err(err, "kprobe '%s': cannot enable %s/%s in the instance: %s", spec, t->group, name,
			strerror(-ret));
		t->nkprobes--;
		delete_kprobe(t->top_dir, t->inst_dir, t->group, name);
		free(t->kprobes[t->nkprobes]);
	}
out:
	free(cmd);
	free(path);
	return ret;
}

/* ---- queries -------------------------------------------------------------- */

const char *const *rec_tracer_systems(const struct rec_tracer *t)
{
	struct rec_tracer *w = (struct rec_tracer *)t;
	size_t n = 0;

	if (t->kind != REC_TRACER_NONE)
		w->systems[n++] = "ftrace";
	if (t->nkprobes)
		w->systems[n++] = t->group;
	w->systems[n] = NULL;
	return w->systems;
}

const char *const *rec_tracer_kprobes(const struct rec_tracer *t, size_t *n)
{
	*n = t->nkprobes;
	return (const char *const *)t->kprobes;
}

const char *rec_tracer_group(const struct rec_tracer *t)
{
	return t->group;
}

struct tracefs_instance *rec_tracer_buffer(const struct rec_tracer *t, bool *top)
{
	*top = t->kind != REC_TRACER_NONE && t->top;
	return *top ? NULL : t->inst;
}

int rec_tracer_start(struct rec_tracer *t, char **err)
{
	char *path;
	int ret;

	if (!t->top || t->kind == REC_TRACER_NONE)
		return 0;
	path = path_join(t->top_dir, "tracing_on");
	if (!path)
		return -ENOMEM;
	/* saved (as it was before rec_tracer_set) by the "0" write there */
	ret = write_text(path, "1", O_TRUNC);
	if (ret)
		set_err(err, "cannot start the top-level tracer: writing tracing_on: %s", strerror(-ret));
	else
		t->running = true;
	free(path);
	return ret;
}

void rec_tracer_stop(struct rec_tracer *t)
{
	char *path;

	if (!t->running)
		return;
	path = path_join(t->top_dir, "tracing_on");
	if (path && write_text(path, "0", O_TRUNC) == 0)
		t->running = false;
	free(path);
}

int rec_tracer_restore(struct rec_tracer *t)
{
	int first = 0, ret;

	if (!t)
		return 0;
	rec_tracer_stop(t);
	/* probes first: they may feed the buffers the files below describe */
	while (t->nkprobes) {
		const char *name = t->kprobes[t->nkprobes - 1];

		ret = delete_kprobe(t->top_dir, t->inst_dir, t->group, name);
		if (ret && ret != -ENOENT) {
			note_error(t, "cannot remove kprobe %s/%s: %s", t->group, name, strerror(-ret));
			if (!first)
				first = ret;
			/* keep it listed: a second restore may succeed */
			break;
		}
		free(t->kprobes[--t->nkprobes]);
	}
	ret = restore_saved(t, 0);
	if (ret && !first)
		first = ret;
	remove_state_dir(t);
	if (!t->nsaved) {
		t->kind = REC_TRACER_NONE;
		t->top = false;
		t->run_dir = t->inst_dir;
	}
	return first;
}

const char *rec_tracer_last_error(const struct rec_tracer *t)
{
	return t->last_error;
}

void rec_tracer_free(struct rec_tracer *t)
{
	size_t i;

	if (!t)
		return;
	rec_tracer_restore(t);
	for (i = 0; i < t->nkprobes; i++)
		free(t->kprobes[i]);
	for (i = 0; i < t->nsaved; i++) {
		free(t->saved[i].path);
		free(t->saved[i].content);
		free(t->saved[i].persist);
	}
	free(t->kprobes);
	free(t->saved);
	free(t->state_dir);
	free(t->inst_dir);
	free(t->top_dir);
	free(t->last_error);
	free(t);
}

/* ---- flytrap reset --------------------------------------------------------- */

struct report {
	char *text;
	size_t len;
	int done;
	int first_err;
};

static void report_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_line(struct report *r, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, *n;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	n = realloc(r->text, r->len + (size_t)len + 2);
	if (n) {
		r->text = n;
		memcpy(r->text + r->len, s, (size_t)len);
		r->len += (size_t)len;
		r->text[r->len++] = '\n';
		r->text[r->len] = '\0';
	}
	free(s);
}

/* pid of a group "flytrap_<pid>", or 0 */
static pid_t group_pid(const char *group)
{
	size_t pl = strlen(REC_KPROBE_GROUP_PREFIX);
	const char *p = group + pl;
	char *end;
	long v;

	if (strncmp(group, REC_KPROBE_GROUP_PREFIX, pl) || !isdigit((unsigned char)*p))
		return 0;
	v = strtol(p, &end, 10);
	if (*end || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

static void reset_kprobes(const char *top, struct report *r)
{
	char *path = path_join(top, "kprobe_events"), *list, *line, *save = NULL;
	char **inst = NULL;
	int i, ret;

	list = path ? read_text(path) : NULL;
	free(path);
	if (!list)
		return;		/* no kprobes in this kernel: nothing to do */
	inst = tracefs_instances(NULL);
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "p:GROUP/NAME SYMBOL ..." or "r10:GROUP/NAME ..." */
		char *colon = strchr(line, ':'), *slash, *sp, group[64], name[64];
		pid_t pid;

		if (!colon)
			continue;
		sp = strpbrk(colon, " \t");
		if (sp)
			*sp = '\0';
		slash = strchr(colon, '/');
		if (!slash || (size_t)(slash - colon - 1) >= sizeof(group) || strlen(slash + 1) >= sizeof(name))
			continue;
		memcpy(group, colon + 1, (size_t)(slash - colon - 1));
		group[slash - colon - 1] = '\0';
		snprintf(name, sizeof(name), "%s", slash + 1);
		pid = group_pid(group);
		if (!pid || pid_is_flytrap(pid))
			continue;
		for (i = 0; inst && inst[i]; i++) {
			char *d = ft_asprintf("%s/instances/%s", top, inst[i]);

			if (d)
				enable_file(d, group, name, "0");
			free(d);
		}
		ret = delete_kprobe(top, NULL, group, name);
		if (ret && ret != -ENOENT) {
			report_line(r, "cannot remove kprobe %s/%s: %s", group, name, strerror(-ret));
			if (!r->first_err)
				r->first_err = ret;
		} else {
			report_line(r, "removed kprobe %s/%s", group, name);
			r->done++;
		}
	}
	tracefs_list_free(inst);
	free(list);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);	/* newest first */
}

/*
 * A dead recorder's saved current_tracer is put back only while the top
 * level still runs a tracer flytrap sets: if someone has taken the top
 * level since, restoring would end their tracing.  Then the saved state is
 * dropped with a line in the report.  Returns false when dropped.
 */
static bool top_still_ours(const char *dir, char **names, size_t n, pid_t pid, struct report *r)
{
	bool ours = true;
	size_t i;

	for (i = 0; i < n && ours; i++) {
		char *p = path_join(dir, names[i]), *text = p ? read_text(p) : NULL, *nl, *cur;

		if (text && (nl = strchr(text, '\n'))) {
			*nl = '\0';
			if (!strcmp(base_name(text), "current_tracer") && (cur = read_text(text))) {
				trim(cur);
				if (strcmp(cur, "function") && strcmp(cur, "function_graph")) {
					report_line(r, "left the top level as it is: its tracer is now '%s', not recorder %d's; dropped the saved state",
						    cur, (int)pid);
					ours = false;
				}
				free(cur);
			}
		}
		free(text);
		free(p);
	}
	if (!ours) {
		for (i = 0; i < n; i++) {
			char *p = path_join(dir, names[i]);

			if (p)
				unlink(p);
			free(p);
		}
		rmdir(dir);
	}
	return ours;
}

/* Restore one dead recorder's saved top-level files, newest first. */
static void reset_state_dir(const char *dir, pid_t pid, struct report *r)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	bool all_ok = true;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.') {
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				/* a temporary entry from a write cut short */
				char *p = path_join(dir, de->d_name);

				if (p)
					unlink(p);
				free(p);
			}
			continue;
		}
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	if (!top_still_ours(dir, names, n, pid, r))
		all_ok = false;
	for (i = 0; i < n && all_ok; i++) {
		char *p = path_join(dir, names[i]), *text = p ? read_text(p) : NULL, *nl;
		int ret;

		if (!text || !(nl = strchr(text, '\n'))) {
			report_line(r, "cannot read saved state %s", p ? p : names[i]);
			all_ok = false;
		} else {
			*nl = '\0';
			ret = restore_content(text, nl + 1);
			if (ret) {
				report_line(r, "cannot restore %s (recorder %d): %s", text, (int)pid, strerror(-ret));
				if (!r->first_err)
					r->first_err = ret;
				all_ok = false;
			} else {
				report_line(r, "restored %s (recorder %d)", text, (int)pid);
				r->done++;
				unlink(p);
			}
		}
		free(text);
		free(p);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (all_ok)
		rmdir(dir);
}

int rec_tracer_reset_stale(char **report)
{
	struct report r = { 0 };
	const char *top = tracefs_tracing_dir();
	DIR *d;
	struct dirent *de;

	*report = NULL;
	if (!top)
		return -ENODEV;
	reset_kprobes(top, &r);
	d = opendir(REC_TRACER_STATE_DIR);
	if (d) {
		while ((de = readdir(d))) {
			char *end, *dir;
			long pid;

			if (strncmp(de->d_name, "tracer-", 7))
				continue;
			pid = strtol(de->d_name + 7, &end, 10);
			if (*end || pid <= 0 || pid > INT_MAX || pid_is_flytrap((pid_t)pid))
				continue;
			dir = path_join(REC_TRACER_STATE_DIR, de->d_name);
			if (dir)
				reset_state_dir(dir, (pid_t)pid, &r);
			free(dir);
		}
		closedir(d);
	}
	*report = r.text;
	return r.first_err ? r.first_err : r.done;
}
