// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap status: everything that traces this machine, who owns it and what
 * it costs a system call.  Looking changes nothing; the cost measurement
 * uses a private instance (flytrap-<pid>, so a SIGKILLed status is cleaned
 * by plain `flytrap reset`) and fd-scoped BPF statistics, which the kernel
 * switches off when the fd closes, even on SIGKILL.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "lastboot.h"
#include "record.h"
#include "state.h"
#include "status.h"
#include "tracer.h"

/* ---- small helpers ------------------------------------------------------ */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		ft_error("out of memory");
		exit(EXIT_FAIL);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		ft_error("out of memory");
		exit(EXIT_FAIL);
	}
	return d;
}

/* grow arr by one element and point at it */
#define PUSH(arr, n) ((arr) = xrealloc((arr), sizeof(*(arr)) * ((n) + 1)), &(arr)[(n)++])

static void strv_push(char ***v, int *n, const char *s)
{
	*PUSH(*v, *n) = xstrdup(s);
}

static void strv_free(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void pids_add(struct st_pids *p, pid_t pid)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->v[i] == pid)
			return;
	*PUSH(p->v, p->n) = pid;
}

static char *trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void unseen(struct st_status *s, const char *what, int err)
{
	char *t = ft_asprintf("%s: %s", what, strerror(err));

	*PUSH(s->unseen, s->nunseen) = t;
}

/* A read failure that means "we may not look" (not "the kernel has no such thing"). */
static bool denied(int err)
{
	return err == EACCES;
}

static char *read_at(const char *dir, const char *file, int *err)
{
	char *p = ft_asprintf("%s/%s", dir, file), *t;

	t = rec_read_file(p, NULL);
	*err = t ? 0 : errno;
	free(p);
	return t;
}

/* Lines that are not comments ("#...") nor empty; -1 (and *err) when unreadable. */
static long count_lines(const char *text)
{
	long n = 0;
	const char *l = text;

	while (l && *l) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (len && l[0] != '#')
			n++;
		l = e ? e + 1 : NULL;
	}
	return n;
}

bool st_pid_alive(pid_t pid)
{
	return pid > 0 && !(kill(pid, 0) && errno == ESRCH);
}

static pid_t name_pid(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, pl) || !isdigit((unsigned char)name[pl]))
		return 0;
	v = strtol(name + pl, &end, 10);
	if (*end || v <= 0 || v > 0x3fffffff)
		return 0;
	return (pid_t)v;
}

static double boot_uptime(void)
{
	char *t = rec_read_file("/proc/uptime", NULL);
	double up = -1;

	if (t) {
		up = strtod(t, NULL);
		free(t);
	}
	return up;
}

/* Note a process once, with its command and age. */
static void proc_note(struct st_status *s, pid_t pid)
{
	struct st_proc *p;
	char path[64], *t, *rp;
	int i;

	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return;
	p = PUSH(s->procs, s->nprocs);
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	t = rec_read_file(path, NULL);
	snprintf(p->comm, sizeof(p->comm), "%s", t ? trim(t) : "?");
	free(t);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	t = rec_read_file(path, NULL);
	rp = t ? strrchr(t, ')') : NULL;
	if (rp) {
		unsigned long long start = 0;
		double up = boot_uptime();
		long hz = sysconf(_SC_CLK_TCK);

		/* field 22 (starttime); after ')' come fields 3.. */
		if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			   "%*d %*d %*d %*d %llu", &start) == 1 && up >= 0 && hz > 0) {
			double age = up - (double)start / hz;

			p->age_s = age > 0 ? (uint64_t)age : 0;
			p->have_age = true;
		}
	}
	free(t);
}

const struct st_proc *st_proc(const struct st_status *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

/* ---- tracefs ------------------------------------------------------------ */

static const char *const costly_options[] = {
	"stacktrace", "userstacktrace", "sym-userobj", "func_stack_trace",
	"function-fork", "event-fork", "display-graph",
};

static const char *const syscall_events[] = {
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	"syscalls:sys_enter_getpid", "syscalls:sys_exit_getpid",
};

static bool on_syscall_path(const char *ev)
{
	size_t i;

	for (i = 0; i < sizeof(syscall_events) / sizeof(syscall_events[0]); i++)
		if (!strcmp(ev, syscall_events[i]))
			return true;
	return false;
}

static const char *place_label(const struct st_place *p)
{
	return p->name ? p->name : "top level";
}

static void read_events(struct st_status *s, struct st_place *p)
{
	char *text, *line, *save = NULL, what[4200];
	int err;

	text = read_at(p->path, "set_event", &err);
	if (!text) {
		if (err != ENOENT) {
			snprintf(what, sizeof(what), "%s/set_event", p->path);
			unseen(s, what, err);
		}
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *f, *tr, rel[600];
		struct st_event *e;

		if (!colon || line[0] == '#')
			continue;
		e = PUSH(p->ev, p->nev);
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(trim(line));
		e->syscall_path = on_syscall_path(e->name);
		*colon = '/';
		snprintf(rel, sizeof(rel), "events/%s/filter", line);
		f = read_at(p->path, rel, &err);
		if (f && strcmp(trim(f), "none") && *trim(f))
			e->filter = xstrdup(trim(f));
		free(f);
		snprintf(rel, sizeof(rel), "events/%s/trigger", line);
		tr = read_at(p->path, rel, &err);
		if (tr) {
			char *l2, *s2 = NULL;

			for (l2 = strtok_r(tr, "\n", &s2); l2; l2 = strtok_r(NULL, "\n", &s2))
				if (l2[0] != '#' && *trim(l2))
					strv_push(&e->triggers, &e->ntriggers, trim(l2));
			free(tr);
		}
	}
	free(text);
}

static long read_count(struct st_status *s, const char *dir, const char *file)
{
	char what[4200], *t;
	long n = -1;
	int err;

	t = read_at(dir, file, &err);
	if (t) {
		n = count_lines(t);
		free(t);
	} else if (denied(err)) {
		snprintf(what, sizeof(what), "%s/%s", dir, file);
		unseen(s, what, err);
	}
	/* EPERM/ENODEV/ENOENT: the kernel has no function tracer here, nothing can hide in it */
	return n;
}

static void read_place(struct st_status *s, struct st_place *p)
{
	struct stat st;
	char *t;
	size_t i;
	int err;

	t = read_at(p->path, "current_tracer", &err);
	if (t) {
		p->tracer = xstrdup(trim(t));
		free(t);
	} else if (err != ENOENT) {
		char what[4200];

		/* one line for a place that cannot be read at all (not root) */
		snprintf(what, sizeof(what), "%s%s", p->path, denied(err) ? " (needs root)" : "");
		unseen(s, what, err);
		p->tracing_on = p->buffer_kb = p->buffer_total_kb = -1;
		p->ftrace_filter = p->ftrace_notrace = p->graph_function = p->hooked = -1;
		p->unreadable = true;
		return;
	}
	p->tracing_on = -1;
	t = read_at(p->path, "tracing_on", &err);
	if (t) {
		p->tracing_on = atoi(t) != 0;
		free(t);
	}
	p->buffer_kb = p->buffer_total_kb = -1;
	t = read_at(p->path, "buffer_size_kb", &err);
	if (t) {
		/* "1408" or "7 (expanded: 1408)": the kernel grows it on first use */
		char *x = strstr(t, "expanded:");

		p->buffer_kb = strtol(x ? x + 9 : t, NULL, 10);
		free(t);
	}
	t = read_at(p->path, "buffer_total_size_kb", &err);
	if (t) {
		p->buffer_total_kb = strtol(t, NULL, 10);
		free(t);
	}
	read_events(s, p);
	p->ftrace_filter = read_count(s, p->path, "set_ftrace_filter");
	p->ftrace_notrace = read_count(s, p->path, "set_ftrace_notrace");
	p->graph_function = read_count(s, p->path, "set_graph_function");
	p->hooked = p->name ? -1 : read_count(s, p->path, "enabled_functions");
	for (i = 0; i < sizeof(costly_options) / sizeof(costly_options[0]); i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "options/%s", costly_options[i]);
		t = read_at(p->path, rel, &err);
		if (t && atoi(t) == 1)
			strv_push(&p->options, &p->noptions, costly_options[i]);
		free(t);
	}
	/* an instance directory's time stamps are those of its mkdir */
	if (p->name && !stat(p->path, &st))
		p->created = st.st_mtime;
	if (p->name) {
		char base[256];
		size_t l;

		/* "flytrap-123-trigger" is the second instance of recorder 123 (flight.h) */
		snprintf(base, sizeof(base), "%s", p->name);
		l = strlen(base);
		if (l > 8 && !strcmp(base + l - 8, "-trigger"))
			base[l - 8] = '\0';
		p->recorder = name_pid(base, REC_INSTANCE_PREFIX);
		p->recorder_alive = p->recorder && rec_pid_is_recorder(p->recorder);
		p->own = p->recorder == getpid();
	}
}

static void collect_tracefs(struct st_status *s)
{
	struct st_place *p;
	struct dirent *de;
	char *dir;
	DIR *d;

	p = PUSH(s->places, s->nplaces);
	memset(p, 0, sizeof(*p));
	p->path = xstrdup(s->tracefs);
	read_place(s, p);
	if (p->unreadable)
		return;

	dir = ft_asprintf("%s/instances", s->tracefs);
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			unseen(s, dir, errno);
		free(dir);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		p = PUSH(s->places, s->nplaces);
		memset(p, 0, sizeof(*p));
		p->name = xstrdup(de->d_name);
		p->path = ft_asprintf("%s/%s", dir, de->d_name);
		read_place(s, p);
	}
	closedir(d);
	free(dir);
}

static bool name_in(char **v, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* kprobes and uprobes share "p:"/"r:" in dynamic_events: uprobe_events tells them apart */
static void collect_probes(struct st_status *s)
{
	char **uprobes = NULL, *text, *line, *save = NULL;
	int nup = 0, err, i, j;

	text = read_at(s->tracefs, "uprobe_events", &err);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		strv_push(&uprobes, &nup, line);
	free(text);
	text = read_at(s->tracefs, "dynamic_events", &err);
	if (!text) {
		char *k = read_at(s->tracefs, "kprobe_events", &err);

		text = ft_asprintf("%s", k ? k : "");
		free(k);
		for (i = 0; i < nup; i++) {
			char *t2 = ft_asprintf("%s%s\n", text, uprobes[i]);

			free(text);
			text = t2;
		}
	}
	save = NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind = line[0], group[128], name[256], ev[400];
		struct st_probe *pr;

		if (sscanf(line, "%*[^:]:%127[^/]/%255s", group, name) != 2)
			continue;
		pr = PUSH(s->probes, s->nprobes);
		memset(pr, 0, sizeof(*pr));
		pr->group = xstrdup(group);
		pr->name = xstrdup(name);
		pr->def = xstrdup(line);
		if ((kind == 'p' || kind == 'r') && name_in(uprobes, nup, line))
			snprintf(pr->kind, sizeof(pr->kind), "uprobe");
		else if (kind == 'p' || kind == 'r')
			snprintf(pr->kind, sizeof(pr->kind), "kprobe");
		else if (kind == 's')
			snprintf(pr->kind, sizeof(pr->kind), "synthetic");
		else if (kind == 'e')
			snprintf(pr->kind, sizeof(pr->kind), "eprobe");
		else if (kind == 'f' || kind == 't')
			snprintf(pr->kind, sizeof(pr->kind), "fprobe");
		else
			snprintf(pr->kind, sizeof(pr->kind), "dynamic");
		pr->recorder = name_pid(group, REC_UPROBE_PREFIX);
		pr->recorder_alive = pr->recorder && rec_pid_is_recorder(pr->recorder);
		snprintf(ev, sizeof(ev), "%s:%s", group, name);
		for (i = 0; i < s->nplaces; i++)
			for (j = 0; j < s->places[i].nev; j++)
				if (!strcmp(s->places[i].ev[j].name, ev))
					strv_push(&pr->enabled_in, &pr->nenabled,
						  s->places[i].name ? s->places[i].name : "top");
	}
	free(text);
	strv_free(uprobes, nup);
}

/* ---- BPF programs ------------------------------------------------------- */

static struct st_prog *prog_by_id(struct st_status *s, uint32_t id)
{
	int i;

	for (i = 0; i < s->nprogs; i++)
		if (s->progs[i].id == id)
			return &s->progs[i];
	return NULL;
}

static const char *prog_type_name(uint32_t type, uint32_t attach)
{
	switch (type) {
	case BPF_PROG_TYPE_KPROBE: return "kprobe";
	case BPF_PROG_TYPE_TRACEPOINT: return "tracepoint";
	case BPF_PROG_TYPE_PERF_EVENT: return "perf_event";
	case BPF_PROG_TYPE_RAW_TRACEPOINT: return "raw_tp";
	case BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE: return "raw_tp_w";
	case BPF_PROG_TYPE_TRACING:
		switch (attach) {
		case BPF_TRACE_FENTRY: return "fentry";
		case BPF_TRACE_FEXIT: return "fexit";
		case BPF_MODIFY_RETURN: return "fmod_ret";
		case BPF_TRACE_RAW_TP: return "tp_btf";
		default: return "tracing";
		}
	default:
		return NULL;
	}
}

/* The kernel function or tracepoint a BTF-attached program hooks, or NULL. */
static char *btf_target(uint32_t obj_id, uint32_t type_id)
{
	const struct btf_type *t;
	struct btf *btf;
	const char *n;
	char *r = NULL;

	if (!type_id)
		return NULL;
	btf = obj_id ? btf__load_from_kernel_by_id(obj_id) : btf__load_vmlinux_btf();
	if (!btf)
		return NULL;
	t = btf__type_by_id(btf, type_id);
	n = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	if (n)
		r = xstrdup(n);
	btf__free(btf);
	return r;
}

static const char *const syscall_hooks[] = {
	"sys_enter", "sys_exit", "sys_enter_getpid", "sys_exit_getpid",
	"do_syscall_64", "x64_sys_call", "__x64_sys_getpid", "__do_sys_getpid",
	"syscall_trace_enter", "syscall_exit_to_user_mode",
};

static void prog_attach(struct st_prog *p, const char *kind, const char *what)
{
	char *a = ft_asprintf("%s %s", kind, what);
	const char *base = strchr(what, ':') ? strchr(what, ':') + 1 : what;
	size_t i;

	if (name_in(p->attach, p->nattach, a)) {
		free(a);
		return;
	}
	*PUSH(p->attach, p->nattach) = a;
	if (strcmp(kind, "uprobe") && strcmp(kind, "uretprobe"))
		for (i = 0; i < sizeof(syscall_hooks) / sizeof(syscall_hooks[0]); i++)
			if (!strcmp(base, syscall_hooks[i]))
				p->syscall_path = true;
}

static int prog_stats(uint32_t id, uint64_t *cnt, uint64_t *ns)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), err = 0;

	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	else {
		*cnt = info.run_cnt;
		*ns = info.run_time_ns;
	}
	close(fd);
	return err;
}

/*
 * A program's maps, their types and sizes (entries x key+value bytes), in
 * one line: what a user's own program (record --bpf-object) holds, and the
 * built-in ones alike.  NULL when it has none or they cannot be read.
 */
static char *prog_maps(int fd, uint32_t nmaps)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), ids[16], i, n;
	char *out = NULL;
	size_t ol = 0;
	FILE *f;

	if (!nmaps)
		return NULL;
	memset(&info, 0, sizeof(info));
	n = nmaps < 16 ? nmaps : 16;
	info.nr_map_ids = n;
	info.map_ids = (uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return NULL;
	f = open_memstream(&out, &ol);
	if (!f)
		return NULL;
	for (i = 0; i < n && i < info.nr_map_ids; i++) {
		struct bpf_map_info mi;
		uint32_t ml = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &ml))
			fprintf(f, "%s%.16s %s %ux(%u+%u) B", ftell(f) ? "\n" : "",
				mi.name[0] ? mi.name : "(no name)",
				libbpf_bpf_map_type_str(mi.type) ?: "?", mi.max_entries, mi.key_size,
				mi.value_size);
		close(mfd);
	}
	if (nmaps > n)
		fprintf(f, "\n%u more", nmaps - n);
	fclose(f);
	if (out && !*out) {
		free(out);
		out = NULL;
	}
	return out;
}

static void collect_progs(struct st_status *s)
{
	uint32_t id = 0;

	for (;;) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		const char *tn;
		char *target, *maps;
		struct st_prog *p;
		int fd, i;

		if (bpf_prog_get_next_id(id, &id)) {
			if (errno != ENOENT)
				unseen(s, errno == EPERM ? "BPF programs and links (needs root)" :
				       "BPF programs", errno);
			break;
		}
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			if (errno != ENOENT)
				unseen(s, "a BPF program", errno);
			continue;
		}
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		maps = prog_maps(fd, info.nr_map_ids);
		close(fd);
		/*
		 * These headers' prog info has no attach type: a BTF program's
		 * target tells it ("btf_trace_<tp>" for tp_btf, "bpf_iter_<x>"
		 * for iterators, which hook nothing), its link refines fentry.
		 */
		target = info.type == BPF_PROG_TYPE_TRACING ?
			btf_target(info.attach_btf_obj_id, info.attach_btf_id) : NULL;
		if (target && !strncmp(target, "bpf_iter_", 9)) {
			free(target);
			free(maps);
			continue;
		}
		tn = prog_type_name(info.type, target && !strncmp(target, "btf_trace_", 10) ?
				    BPF_TRACE_RAW_TP : 0);
		if (!tn) {
			free(target);
			free(maps);
			continue;
		}
		p = PUSH(s->progs, s->nprogs);
		memset(p, 0, sizeof(*p));
		p->maps = maps;
		p->id = info.id;
		p->type = info.type;
		snprintf(p->type_name, sizeof(p->type_name), "%s", tn);
		snprintf(p->name, sizeof(p->name), "%.16s", info.name);
		for (i = 0; i < BPF_TAG_SIZE; i++)
			snprintf(p->tag + 2 * i, 3, "%02x", info.tag[i]);
		p->load_time_ns = info.load_time;
		p->cnt0 = info.run_cnt;
		p->ns0 = info.run_time_ns;
		if (target) {
			p->btf_target = target;
			if (!strncmp(target, "btf_trace_", 10))
				prog_attach(p, tn, target + 10);
		}
	}
}

static void collect_links(struct st_status *s)
{
	uint32_t id = 0;

	for (;;) {
		struct bpf_link_info info;
		uint32_t len = sizeof(info);
		char tp[256] = "";
		struct st_prog *p;
		int fd;

		if (bpf_link_get_next_id(id, &id)) {
			if (errno != ENOENT && errno != EPERM)	/* EPERM: said with the programs */
				unseen(s, "BPF links", errno);
			break;
		}
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.raw_tracepoint.tp_name = (uint64_t)(uintptr_t)tp;
		info.raw_tracepoint.tp_name_len = sizeof(tp);
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		close(fd);
		p = prog_by_id(s, info.prog_id);
		if (!p)
			continue;
		*PUSH(p->links, p->nlinks) = info.id;
		/* a tp_btf program's link is a raw_tp link to the same tracepoint */
		if (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT && tp[0] && strcmp(p->type_name, "tp_btf"))
			prog_attach(p, "raw_tp", tp);
		if (info.type == BPF_LINK_TYPE_TRACING && p->btf_target &&
		    strncmp(p->btf_target, "btf_trace_", 10)) {
			const char *k = prog_type_name(BPF_PROG_TYPE_TRACING, info.tracing.attach_type);

			snprintf(p->type_name, sizeof(p->type_name), "%s", k);
			prog_attach(p, k, p->btf_target);
		}
	}
}

/* A BPF filesystem pin keeps a program (or its link) alive with no process. */
static void scan_pins(struct st_status *s, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d;

	if (depth > 6 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		char *path;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		path = ft_asprintf("%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			scan_pins(s, path, depth + 1);
		} else if ((fd = bpf_obj_get(path)) >= 0) {
			struct bpf_prog_info pi;
			struct bpf_link_info li;
			uint32_t len;
			struct st_prog *p = NULL;
			char self[64], kind[64] = "";
			ssize_t n;

			snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
			n = readlink(self, kind, sizeof(kind) - 1);
			kind[n > 0 ? n : 0] = '\0';
			memset(&pi, 0, sizeof(pi));
			memset(&li, 0, sizeof(li));
			len = sizeof(pi);
			if (!strcmp(kind, "anon_inode:bpf-prog") && !bpf_obj_get_info_by_fd(fd, &pi, &len))
				p = prog_by_id(s, pi.id);
			len = sizeof(li);
			if (!strcmp(kind, "anon_inode:bpf_link") && !bpf_obj_get_info_by_fd(fd, &li, &len))
				p = prog_by_id(s, li.prog_id);
			if (p) {
				p->pinned = true;
				strv_push(&p->pins, &p->npins, path);
			}
			close(fd);
		}
		free(path);
	}
	closedir(d);
}

static void collect_pins(struct st_status *s)
{
	char *m = rec_read_file("/proc/self/mounts", NULL), *line, *save = NULL;

	for (line = m ? strtok_r(m, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[1024], type[64];

		if (sscanf(line, "%255s %1023s %63s", dev, mnt, type) == 3 && !strcmp(type, "bpf"))
			scan_pins(s, mnt, 0);
	}
	free(m);
}

/* ---- processes ---------------------------------------------------------- */

static const char *fd_type_kind(uint32_t t)
{
	switch (t) {
	case BPF_FD_TYPE_RAW_TRACEPOINT: return "raw_tp";
	case BPF_FD_TYPE_TRACEPOINT: return "tracepoint";
	case BPF_FD_TYPE_KPROBE: return "kprobe";
	case BPF_FD_TYPE_KRETPROBE: return "kretprobe";
	case BPF_FD_TYPE_UPROBE: return "uprobe";
	case BPF_FD_TYPE_URETPROBE: return "uretprobe";
	default: return "perf event";
	}
}

/* "system:name" of a tracepoint from its bare name, by the event id directory */
static void tp_full_name(const struct st_status *s, const char *name, char *out, size_t n)
{
	char *path;
	DIR *d;
	struct dirent *de;

	snprintf(out, n, "%s", name);
	if (!s->tracefs || strchr(name, ':'))
		return;
	path = ft_asprintf("%s/events", s->tracefs);
	d = opendir(path);
	free(path);
	while (d && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = ft_asprintf("%s/events/%s/%s", s->tracefs, de->d_name, name);
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			snprintf(out, n, "%s:%s", de->d_name, name);
			free(path);
			break;
		}
		free(path);
	}
	if (d)
		closedir(d);
}

static uint32_t fdinfo_u32(pid_t pid, const char *fd, const char *key)
{
	char path[96], *t, *k;
	uint32_t v = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	t = rec_read_file(path, NULL);
	k = t ? strstr(t, key) : NULL;
	if (k)
		v = (uint32_t)strtoul(k + strlen(key), NULL, 10);
	free(t);
	return v;
}

static void perf_fd(struct st_status *s, pid_t pid, const char *fdname, int *perf_plain)
{
	char buf[512] = "", what[600];
	uint32_t len = sizeof(buf), prog_id = 0, fd_type = 0;
	__u64 off = 0, addr = 0;
	struct st_prog *p;

	if (bpf_task_fd_query(pid, atoi(fdname), 0, buf, &len, &prog_id, &fd_type, &off, &addr) ||
	    !(p = prog_by_id(s, prog_id))) {
		(*perf_plain)++;
		return;
	}
	pids_add(&p->holders, pid);
	proc_note(s, pid);
	if (fd_type == BPF_FD_TYPE_TRACEPOINT) {
		tp_full_name(s, buf, what, sizeof(what));
	} else if (fd_type == BPF_FD_TYPE_UPROBE || fd_type == BPF_FD_TYPE_URETPROBE) {
		snprintf(what, sizeof(what), "%s:0x%llx", buf, (unsigned long long)off);
	} else if (buf[0]) {
		if (off)
			snprintf(what, sizeof(what), "%s+%llu", buf, (unsigned long long)off);
		else
			snprintf(what, sizeof(what), "%s", buf);
	} else if (addr) {
		snprintf(what, sizeof(what), "0x%llx", (unsigned long long)addr);
	} else {
		snprintf(what, sizeof(what), "(software or hardware counter)");
	}
	prog_attach(p, fd_type_kind(fd_type), what);
}

static void tracefs_fd(struct st_status *s, pid_t pid, const char *rel)
{
	int i;

	/* trace_marker writers (loggers) do not hold a buffer in use */
	if (strstr(rel, "trace_marker"))
		return;
	if (!strncmp(rel, "instances/", 10)) {
		const char *n = rel + 10;
		size_t l = strcspn(n, "/");

		for (i = 1; i < s->nplaces; i++)
			if (strlen(s->places[i].name) == l && !strncmp(s->places[i].name, n, l))
				break;
		if (i >= s->nplaces)
			return;
	} else {
		i = 0;
	}
	pids_add(&s->places[i].holders, pid);
	proc_note(s, pid);
}

static void scan_proc(struct st_status *s, pid_t pid, bool *denied_any)
{
	char dir[64], link[4096], fdpath[384];
	int perf_plain = 0;
	struct dirent *de;
	size_t tl = s->tracefs ? strlen(s->tracefs) : 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d) {
		if (denied(errno))
			*denied_any = true;
		return;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", dir, de->d_name);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, "anon_inode:[perf_event]")) {
			perf_fd(s, pid, de->d_name, &perf_plain);
		} else if (!strcmp(link, "anon_inode:bpf-prog")) {
			struct st_prog *p = prog_by_id(s, fdinfo_u32(pid, de->d_name, "prog_id:"));

			if (p) {
				pids_add(&p->holders, pid);
				proc_note(s, pid);
			}
		} else if (!strcmp(link, "anon_inode:bpf_link")) {
			struct st_prog *p = prog_by_id(s, fdinfo_u32(pid, de->d_name, "prog_id:"));

			if (p) {
				pids_add(&p->holders, pid);
				proc_note(s, pid);
				/* a raw_tp link answers the query with its tracepoint */
				if (strcmp(p->type_name, "tp_btf"))
					perf_fd(s, pid, de->d_name, &(int){ 0 });
			}
		} else if (tl && !strncmp(link, s->tracefs, tl) && link[tl] == '/') {
			tracefs_fd(s, pid, link + tl + 1);
		} else if (!strncmp(link, "/sys/kernel/debug/tracing/", 26)) {
			tracefs_fd(s, pid, link + 26);
		}
	}
	closedir(d);
	if (perf_plain) {
		struct st_perf *pe = PUSH(s->perf, s->nperf);

		pe->pid = pid;
		pe->count = perf_plain;
		proc_note(s, pid);
	}
}

static void collect_procs(struct st_status *s)
{
	bool den = false;
	struct dirent *de;
	DIR *d = opendir("/proc");
	pid_t self = getpid();

	if (!d) {
		unseen(s, "/proc", errno);
		return;
	}
	while ((de = readdir(d))) {
		pid_t pid = name_pid(de->d_name, "");

		/* trace-cmd is listed among the owners when it holds something (report holds nothing) */
		if (pid && pid != self)
			scan_proc(s, pid, &den);
	}
	closedir(d);
	if (den)
		unseen(s, "other users' /proc/PID/fd (needs root)", EACCES);
}

/* Run notes of recorders (state.h): pid, start time, instance, output. */
static void collect_recorders(struct st_status *s)
{
	struct rec_note *v = NULL;
	double up = boot_uptime();
	long hz = sysconf(_SC_CLK_TCK);
	time_t now = time(NULL);
	int n, i;

	n = rec_notes_list(&v);
	if (n < 0) {
		char what[600];

		snprintf(what, sizeof(what), "run notes in %s", rec_state_dir());
		unseen(s, what, -n);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		struct st_recorder *r = PUSH(s->recs, s->nrecs);

		memset(r, 0, sizeof(*r));
		r->pid = v[i].pid;
		r->alive = rec_note_alive(&v[i]);
		r->output = v[i].output ? xstrdup(v[i].output) : NULL;
		if (v[i].start && up >= 0 && hz > 0 && up >= (double)v[i].start / hz)
			r->since = now - (time_t)(up - (double)v[i].start / hz);
		if (r->alive)
			proc_note(s, r->pid);
	}
	rec_notes_free(v, n);
	/* recorders without a note (older ones) still own their instance */
	for (i = 1; i < s->nplaces; i++) {
		struct st_place *p = &s->places[i];
		int j;

		if (!p->recorder || p->own)
			continue;
		for (j = 0; j < s->nrecs && s->recs[j].pid != p->recorder; j++)
			;
		if (j == s->nrecs) {
			struct st_recorder *r = PUSH(s->recs, s->nrecs);

			memset(r, 0, sizeof(*r));
			r->pid = p->recorder;
			r->alive = p->recorder_alive;
			r->since = p->created;
			if (r->alive)
				proc_note(s, r->pid);
		}
	}
}

void st_collect(struct st_status *s)
{
	const char *top;

	memset(s, 0, sizeof(*s));
	s->syscall_ns = s->ftrace_event_ns = s->bpf_per_syscall_ns = -1;
	top = tracefs_tracing_dir();
	if (top && !access(top, F_OK)) {
		s->tracefs = xstrdup(top);
		collect_tracefs(s);
		collect_probes(s);
	} else {
		unseen(s, "tracefs (not mounted: mount -t tracefs nodev /sys/kernel/tracing)", ENOENT);
	}
	collect_progs(s);
	collect_links(s);
	collect_pins(s);
	collect_procs(s);
	collect_recorders(s);
}

/* ---- what it costs -------------------------------------------------------- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The cheapest of a few rounds of n getpid() calls: the least disturbed one. */
static double getpid_ns(int rounds, int n)
{
	double best = -1, start = now_ns();
	int r, i;

	/* a slow machine (15 us a call under load) gets fewer rounds, not seconds */
	for (r = 0; r < rounds && (r < 2 || now_ns() - start < 3e8); r++) {
		double t0 = now_ns(), t;

		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
		t = (now_ns() - t0) / n;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* Write text to dir/file (truncating, or appending); EBUSY is retried for a second. */
static int write_at(const char *dir, const char *file, const char *text, bool append)
{
	char *p = ft_asprintf("%s/%s", dir, file);
	int fd = open(p, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)), err = 0, i;

	free(p);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 50; i++) {
		err = write(fd, text, strlen(text)) < 0 ? -errno : 0;
		if (err != -EBUSY)
			break;
		usleep(20000);
	}
	close(fd);
	return err;
}

static int write_file(const char *dir, const char *file, const char *text)
{
	return write_at(dir, file, text, false);
}

static int enable_all(const char *dir, char **types, int n, const char *v)
{
	int i, err = 0;

	for (i = 0; i < n; i++) {
		char rel[600], *c;

		snprintf(rel, sizeof(rel), "events/%s/enable", types[i]);
		c = strchr(rel + 7, ':');
		if (c)
			*c = '/';
		if (write_file(dir, rel, v) && !err)
			err = -errno;
	}
	return err;
}

static int remove_dir(const char *path)
{
	int i, err = 0;

	for (i = 0; i < 100; i++) {
		err = rmdir(path) ? -errno : 0;
		if (err != -EBUSY)
			break;
		usleep(20000);
	}
	return err == -ENOENT ? 0 : err;
}

/*
 * The cost of one event of each type in types, measured in a private
 * instance: getpid() with them enabled there minus without, per event.
 */
static double ftrace_event_cost(struct st_status *s, char **types, int n)
{
	sigset_t block, old;
	double off = -1, on = -1, d;
	char *dir;
	int r, err = 0;

	dir = ft_asprintf("%s/instances/%s%d", s->tracefs, REC_INSTANCE_PREFIX, (int)getpid());
	/* no signal may leave the instance behind: they wait until it is gone */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (mkdir(dir, 0755)) {
		err = -errno;
		goto out;
	}
	write_file(dir, "buffer_size_kb", "64");
	for (r = 0; r < 5 && !err; r++) {
		err = enable_all(dir, types, n, "0");
		d = getpid_ns(1, 5000);
		if (off < 0 || d < off)
			off = d;
		if (!err)
			err = enable_all(dir, types, n, "1");
		d = getpid_ns(1, 5000);
		if (on < 0 || d < on)
			on = d;
	}
	write_file(dir, "tracing_on", "0");
	enable_all(dir, types, n, "0");
	r = remove_dir(dir);
	if (r)
		ft_warn("cannot remove the measuring instance '%s': %s (flytrap reset removes it)",
			dir, strerror(-r));
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err) {
		*PUSH(s->notes, s->nnotes) = ft_asprintf("the per-event cost was not measured: %s",
							strerror(-err));
		free(dir);
		return -1;
	}
	free(dir);
	d = (on - off) / n;
	return d > 0 ? d : 0;
}

static void measure_ftrace(struct st_status *s)
{
	char **types = NULL;
	int nt = 0, i, j;

	for (i = 0; i < s->nplaces; i++) {
		const struct st_place *p = &s->places[i];

		if (p->own)
			continue;
		if (p->tracer && strcmp(p->tracer, "nop"))
			s->function_tracer |= !strncmp(p->tracer, "function", 8);
		for (j = 0; j < p->nev; j++) {
			if (!p->ev[j].syscall_path)
				continue;
			s->ftrace_per_syscall++;
			if (!name_in(types, nt, p->ev[j].name))
				strv_push(&types, &nt, p->ev[j].name);
		}
	}
	if (nt && s->tracefs)
		s->ftrace_event_ns = ftrace_event_cost(s, types, nt);
	else if (!nt)
		s->ftrace_event_ns = 0;
	strv_free(types, nt);
}

static void measure_bpf(struct st_status *s, double interval_s)
{
	struct timespec ts;
	char *g = rec_read_file("/proc/sys/kernel/bpf_stats_enabled", NULL);
	int fd = -1, i;
	double sum = 0;
	bool any = false;

	s->interval_s = interval_s;
	if (g && atoi(g) == 1) {
		s->bpf_stats = "global";
	} else {
		fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (fd < 0) {
			s->bpf_stats = errno == EPERM ? "refused (needs root)" : "not available";
			free(g);
			return;
		}
		s->bpf_stats = "fd";
	}
	free(g);
	for (i = 0; i < s->nprogs; i++)
		prog_stats(s->progs[i].id, &s->progs[i].cnt0, &s->progs[i].ns0);
	ts.tv_sec = (time_t)interval_s;
	ts.tv_nsec = (long)((interval_s - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	for (i = 0; i < s->nprogs; i++) {
		struct st_prog *p = &s->progs[i];

		if (prog_stats(p->id, &p->cnt1, &p->ns1) || p->cnt1 < p->cnt0 || p->ns1 < p->ns0)
			continue;
		p->measured = true;
		if (p->syscall_path && p->cnt1 > p->cnt0) {
			sum += (double)(p->ns1 - p->ns0) / (double)(p->cnt1 - p->cnt0);
			any = true;
		}
	}
	if (fd >= 0)
		close(fd);
	s->bpf_per_syscall_ns = any ? sum : 0;
}

void st_measure(struct st_status *s, double interval_s)
{
	s->measured = true;
	/* BPF first: the programs listed may be gone after the timing loops */
	if (interval_s > 0 && s->nprogs)
		measure_bpf(s, interval_s);
	else if (!s->nprogs)
		s->bpf_per_syscall_ns = 0;
	s->syscall_ns = getpid_ns(5, 20000);
	measure_ftrace(s);
}

/* ---- the verdict ---------------------------------------------------------- */

bool st_place_active(const struct st_place *p)
{
	return p->nev || (p->tracer && strcmp(p->tracer, "nop"));
}

bool st_prog_attached(const struct st_prog *p)
{
	return p->nattach || p->nlinks || p->pinned;
}

bool st_tracing(const struct st_status *s)
{
	int i;

	for (i = 0; i < s->nplaces; i++)
		if (!s->places[i].own && st_place_active(&s->places[i]))
			return true;
	for (i = 0; i < s->nprogs; i++)
		if (st_prog_attached(&s->progs[i]))
			return true;
	return s->nperf > 0;
}

void st_release(struct st_status *s)
{
	int i, j;

	for (i = 0; i < s->nplaces; i++) {
		struct st_place *p = &s->places[i];

		for (j = 0; j < p->nev; j++) {
			free(p->ev[j].name);
			free(p->ev[j].filter);
			strv_free(p->ev[j].triggers, p->ev[j].ntriggers);
		}
		free(p->ev);
		free(p->name);
		free(p->path);
		free(p->tracer);
		strv_free(p->options, p->noptions);
		free(p->holders.v);
	}
	free(s->places);
	for (i = 0; i < s->nprobes; i++) {
		free(s->probes[i].group);
		free(s->probes[i].name);
		free(s->probes[i].def);
		strv_free(s->probes[i].enabled_in, s->probes[i].nenabled);
	}
	free(s->probes);
	for (i = 0; i < s->nprogs; i++) {
		strv_free(s->progs[i].attach, s->progs[i].nattach);
		strv_free(s->progs[i].pins, s->progs[i].npins);
		free(s->progs[i].btf_target);
		free(s->progs[i].maps);
		free(s->progs[i].links);
		free(s->progs[i].holders.v);
	}
	free(s->progs);
	free(s->perf);
	for (i = 0; i < s->nrecs; i++)
		free(s->recs[i].output);
	free(s->recs);
	free(s->procs);
	strv_free(s->unseen, s->nunseen);
	strv_free(s->notes, s->nnotes);
	free(s->tracefs);
	memset(s, 0, sizeof(*s));
}

/* ---- text ------------------------------------------------------------------- */

#define WIDTH 80

/* One line of at most WIDTH columns; a cut line ends in '~'. */
static void line(int indent, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(int indent, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	size_t n, i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < ' ')
			buf[i] = ' ';
	n = strlen(buf);
	if ((size_t)indent + n > WIDTH) {
		n = WIDTH - indent - 1;
		buf[n++] = '~';
		buf[n] = '\0';
	}
	printf("%*s%s\n", indent, "", buf);
}

static void fmt_age(char *b, size_t n, double s)
{
	if (s < 120)
		snprintf(b, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(b, n, "%.0f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(b, n, "%.0f h", s / 3600);
	else
		snprintf(b, n, "%.0f days", s / 86400);
}

static void fmt_time(char *b, size_t n, double ns)
{
	if (ns < 0)
		snprintf(b, n, "?");
	else if (ns < 10000)
		snprintf(b, n, "%.2f us", ns / 1000);
	else
		snprintf(b, n, "%.1f us", ns / 1000);
}

static void fmt_proc(const struct st_status *s, pid_t pid, char *b, size_t n)
{
	const struct st_proc *p = st_proc(s, pid);

	snprintf(b, n, "%d (%s)", (int)pid, p ? p->comm : "?");
}

static void fmt_pids(const struct st_status *s, const struct st_pids *ps, char *b, size_t n)
{
	size_t used = 0;
	int i;

	b[0] = '\0';
	for (i = 0; i < ps->n && used + 2 < n; i++) {
		char one[64];

		fmt_proc(s, ps->v[i], one, sizeof(one));
		used += snprintf(b + used, n - used, "%s%s", i ? ", " : "", one);
	}
}

static const struct st_recorder *recorder(const struct st_status *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->nrecs; i++)
		if (s->recs[i].pid == pid)
			return &s->recs[i];
	return NULL;
}

/* What a boot-reserved buffer holds (malloc'd line), or NULL for any other place. */
static char *boot_buffer(const struct st_place *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!p->name || !p->path || !(f = open_memstream(&text, &len)))
		return NULL;
	if (rec_lastboot_describe(p->name, f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	return text;
}

static void print_owner(const struct st_status *s, const struct st_place *p)
{
	char hold[1024];
	const struct st_recorder *r;

	if (p->recorder) {
		r = recorder(s, p->recorder);
		if (p->recorder_alive)
			line(4, "owner: flytrap %d (running)%s%s%s", (int)p->recorder,
			     r && r->output ? ", writing '" : "", r && r->output ? r->output : "",
			     r && r->output ? "'" : "");
		else
			line(4, "owner: flytrap recorder %d, dead (flytrap reset removes it)",
			     (int)p->recorder);
	}
	if (p->holders.n && !(p->holders.n == 1 && p->holders.v[0] == p->recorder)) {
		fmt_pids(s, &p->holders, hold, sizeof(hold));
		line(4, "in use by %s", hold);
	} else if (!p->recorder && p->name) {
		char *boot = boot_buffer(p);

		if (boot)
			line(4, "%s", boot);
		else
			line(4, "owner unknown: no process has it open");
		free(boot);
	}
}

static void print_events(const struct st_place *p)
{
	char buf[WIDTH + 1];
	int i, used = 0, lines = 0, shown = 0;

	for (i = 0; i < p->nev; i++) {
		const struct st_event *e = &p->ev[i];
		int j;

		if (e->filter)
			line(4, "%s  filter: %s", e->name, e->filter);
		for (j = 0; j < e->ntriggers; j++)
			line(4, "%s  trigger: %s", e->name, e->triggers[j]);
		if (e->filter || e->ntriggers)
			shown++;
	}
	if (shown == p->nev)
		return;
	/* the rest as a wrapped list; three lines at most */
	buf[0] = '\0';
	for (i = 0; i < p->nev && lines < 3; i++) {
		const struct st_event *e = &p->ev[i];
		int len = (int)strlen(e->name);

		if (e->filter || e->ntriggers)
			continue;
		if (used && 4 + used + 1 + len > WIDTH) {
			line(4, "%s", buf);
			lines++;
			used = 0;
			buf[0] = '\0';
			if (lines == 3)
				break;
		}
		used += snprintf(buf + used, sizeof(buf) - used, "%s%s", used ? " " : "", e->name);
		shown++;
	}
	if (used && lines < 3)
		line(4, "%s", buf);
	if (shown < p->nev)
		line(4, "... and %d more (--json lists all)", p->nev - shown);
}

static void print_place(const struct st_status *s, const struct st_place *p, time_t now)
{
	char head[512], age[32] = "", buf[40];
	int i;

	if (p->created)
		fmt_age(age, sizeof(age), difftime(now, p->created));
	if (p->buffer_kb >= 0)
		snprintf(buf, sizeof(buf), "%ld KB/CPU", p->buffer_kb);
	else
		snprintf(buf, sizeof(buf), "buffer ?");
	snprintf(head, sizeof(head), "tracer %s, tracing %s, %d event%s, %s",
		 p->tracer ? p->tracer : "?", p->tracing_on < 0 ? "?" : p->tracing_on ? "on" : "off",
		 p->nev, p->nev == 1 ? "" : "s", buf);
	if (p->name) {
		line(2, "instance %s%s%s%s", p->name, age[0] ? " (" : "", age, age[0] ? " old)" : "");
		line(4, "%s", head);
	} else {
		line(2, "top level: %s", head);
	}
	if (p->noptions) {
		char opts[512] = "";
		size_t u = 0;

		for (i = 0; i < p->noptions; i++)
			u += snprintf(opts + u, sizeof(opts) - u, "%s%s", i ? ", " : "", p->options[i]);
		line(4, "costly options on: %s", opts);
	}
	if (p->ftrace_filter > 0 || p->ftrace_notrace > 0 || p->graph_function > 0)
		line(4, "set_ftrace_filter %ld, set_ftrace_notrace %ld, set_graph_function %ld lines",
		     p->ftrace_filter, p->ftrace_notrace, p->graph_function);
	if (p->hooked > 0)
		line(4, "%ld kernel functions hooked by ftrace (enabled_functions)", p->hooked);
	print_events(p);
	print_owner(s, p);
}

static void print_tracefs(const struct st_status *s)
{
	time_t now = time(NULL);
	int i;

	if (!s->tracefs)
		return;
	line(0, "tracefs %s", s->tracefs);
	if (s->nplaces && s->places[0].unreadable) {
		line(2, "not readable");
		return;
	}
	for (i = 0; i < s->nplaces; i++)
		if (!s->places[i].own)
			print_place(s, &s->places[i], now);
	for (i = 0; i < s->nprobes; i++) {
		const struct st_probe *pr = &s->probes[i];
		const char *sp = strchr(pr->def, ' ');
		char where[512] = "";
		size_t u = 0;
		int j;

		for (j = 0; j < pr->nenabled; j++)
			u += snprintf(where + u, sizeof(where) - u, "%s%s", j ? ", " : "",
				      pr->enabled_in[j]);
		line(2, "%s %s/%s %s", pr->kind, pr->group, pr->name, sp ? sp + 1 : "");
		if (pr->recorder)
			line(4, "owner: flytrap recorder %d (%s)%s%s", (int)pr->recorder,
			     pr->recorder_alive ? "running" : "dead", u ? ", enabled in " : "", where);
		else
			line(4, "%s%s", u ? "enabled in " : "defined, not enabled", where);
	}
}

static void print_bpf(const struct st_status *s)
{
	int i, j, shown = 0;

	for (i = 0; i < s->nprogs; i++) {
		const struct st_prog *p = &s->progs[i];
		char hold[1024], age[32] = "?";
		double up = boot_uptime();

		if (!shown++)
			line(0, "BPF programs on tracing hooks");
		if (up >= 0 && p->load_time_ns)
			fmt_age(age, sizeof(age), up - p->load_time_ns / 1e9);
		line(2, "%u %s %s  tag %s  loaded %s ago", p->id, p->type_name,
		     p->name[0] ? p->name : "(no name)", p->tag, age);
		for (j = 0; j < p->nattach; j++)
			line(4, "on %s", p->attach[j]);
		if (!p->nattach)
			line(4, "%s", st_prog_attached(p) ? "attached (target not known)" :
			     "loaded, not attached");
		if (p->holders.n) {
			fmt_pids(s, &p->holders, hold, sizeof(hold));
			line(4, "held by %s%s", hold, p->pinned ? ", and pinned" : "");
		} else {
			line(4, "%s", p->pinned ? "pinned in a BPF filesystem, no process holds it" :
			     "no process holds it");
		}
		for (const char *m = p->maps; m && *m; m += strcspn(m, "\n") + (m[strcspn(m, "\n")] != 0))
			line(4, "map %.*s", (int)strcspn(m, "\n"), m);
		if (p->measured && s->interval_s > 0) {
			uint64_t dc = p->cnt1 - p->cnt0, dn = p->ns1 - p->ns0;

			if (dc)
				line(4, "%.0f runs/s, %.0f ns each, %.2f%% of a CPU", dc / s->interval_s,
				     (double)dn / dc, dn / (s->interval_s * 1e7));
			else
				line(4, "did not run in %.1f s", s->interval_s);
		} else if (s->interval_s > 0) {
			line(4, "not measured (it went away)");
		}
	}
}

static void print_perf(const struct st_status *s)
{
	int i;

	for (i = 0; i < s->nperf; i++) {
		char who[128];

		if (!i)
			line(0, "perf events held open");
		fmt_proc(s, s->perf[i].pid, who, sizeof(who));
		line(2, "%d perf event%s held by %s", s->perf[i].count, s->perf[i].count == 1 ? "" : "s",
		     who);
	}
}

/*
 * The systemd unit a process runs in ("flytrap-flight.service"), from its
 * cgroup: 0 when it is one, -1 otherwise.
 */
static int service_of(pid_t pid, char *out, size_t len)
{
	char path[64], buf[512], *slash;
	size_t n;
	FILE *f;
	int err = -1;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	while (f && err && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		slash = strrchr(buf, '/');
		n = slash ? strlen(slash + 1) : 0;
		if (n > 8 && n < len && !strcmp(slash + 1 + n - 8, ".service")) {
			memcpy(out, slash + 1, n + 1);
			err = 0;
		}
	}
	if (f)
		fclose(f);
	return err;
}

static void print_owners(const struct st_status *s)
{
	time_t now = time(NULL);
	int i, shown = 0;

	for (i = 0; i < s->nrecs; i++) {
		const struct st_recorder *r = &s->recs[i];
		char age[32] = "";

		if (r->pid == getpid())
			continue;
		if (!shown++)
			line(0, "owners");
		if (r->since)
			fmt_age(age, sizeof(age), difftime(now, r->since));
		if (r->alive) {
			char unit[256], as[300] = "";

			/* a recorder systemd runs is that service (pkg/systemd) */
			if (!service_of(r->pid, unit, sizeof(unit)))
				snprintf(as, sizeof(as), " as %s", unit);
			line(2, "flytrap recorder %d%s: running%s%s%s%s%s", (int)r->pid, as,
			     age[0] ? " for " : "", age, r->output ? ", writing '" : "",
			     r->output ? r->output : "", r->output ? "'" : "");
		}
		else
			line(2, "flytrap recorder %d: dead%s%s%s", (int)r->pid,
			     r->output ? ", was writing '" : "", r->output ? r->output : "",
			     r->output ? "'" : "");
	}
	for (i = 0; i < s->nprocs; i++) {
		const struct st_proc *p = &s->procs[i];
		char age[32] = "?";

		if (strcmp(p->comm, "trace-cmd"))
			continue;
		if (!shown++)
			line(0, "owners");
		if (p->have_age)
			fmt_age(age, sizeof(age), (double)p->age_s);
		line(2, "trace-cmd %d: running for %s", (int)p->pid, age);
	}
}

static void print_cost(const struct st_status *s)
{
	double ft, add;
	char a[32], b[32], c[32];

	if (!s->measured)
		return;
	ft = s->ftrace_event_ns >= 0 ? s->ftrace_event_ns * s->ftrace_per_syscall : -1;
	add = ft >= 0 && s->bpf_per_syscall_ns >= 0 ? ft + s->bpf_per_syscall_ns : -1;
	fmt_time(a, sizeof(a), s->syscall_ns);
	if (!s->ftrace_per_syscall && s->bpf_per_syscall_ns == 0) {
		line(0, "cost: system calls take %s now; no tracing hook %s on their path", a,
		     s->nunseen ? "found" : "is");
	} else {
		fmt_time(b, sizeof(b), add >= 0 ? add : ft >= 0 ? ft : s->bpf_per_syscall_ns);
		line(0, "cost: system calls take %s now; tracing adds %s%s", a,
		     add >= 0 ? "about " : "at least ", b);
		fmt_time(b, sizeof(b), s->ftrace_event_ns);
		fmt_time(c, sizeof(c), s->bpf_per_syscall_ns);
		if (s->ftrace_per_syscall && s->bpf_per_syscall_ns > 0)
			line(6, "(%d ftrace event%s per call at %s each, BPF programs %s)",
			     s->ftrace_per_syscall, s->ftrace_per_syscall == 1 ? "" : "s", b, c);
		else if (s->ftrace_per_syscall)
			line(6, "(%d ftrace event%s per call at %s each%s)", s->ftrace_per_syscall,
			     s->ftrace_per_syscall == 1 ? "" : "s", b,
			     s->bpf_per_syscall_ns < 0 ? "; BPF programs not measured" : "");
		else
			line(6, "(BPF programs on the system-call path)");
	}
	if (s->function_tracer)
		line(6, "a function tracer runs: every kernel function pays (in the time above)");
}

static void print_text(const struct st_status *s)
{
	int i;

	print_tracefs(s);
	print_bpf(s);
	print_perf(s);
	print_owners(s);
	print_cost(s);
	for (i = 0; i < s->nnotes; i++)
		line(0, "note: %s", s->notes[i]);
	for (i = 0; i < s->nunseen; i++)
		line(0, "not looked at: %s", s->unseen[i]);
	line(0, "%s", st_tracing(s) ? "something traces this machine" :
	     s->nunseen ? "nothing traces this machine where flytrap could look" :
	     "nothing traces this machine");
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_key(FILE *f, bool *first, const char *k)
{
	fprintf(f, "%s", *first ? "" : ",");
	*first = false;
	ft_json_str(f, k);
	fputc(':', f);
}

static void json_strv(FILE *f, char **v, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		ft_json_str(f, v[i]);
	}
	fputc(']', f);
}

static void json_pids(FILE *f, const struct st_status *s, const struct st_pids *p)
{
	int i;

	fputc('[', f);
	for (i = 0; i < p->n; i++) {
		const struct st_proc *pr = st_proc(s, p->v[i]);

		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", (int)p->v[i]);
		ft_json_str(f, pr ? pr->comm : "");
		fputc('}', f);
	}
	fputc(']', f);
}

static void json_long(FILE *f, long v)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", v);
}

static void json_num(FILE *f, double v)
{
	if (v < 0 || !isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.1f", v);
}

static void json_place(FILE *f, const struct st_status *s, const struct st_place *p, time_t now)
{
	bool first = true;
	int i;

	fputc('{', f);
	json_key(f, &first, "name");
	ft_json_str(f, p->name ? p->name : "top");
	fprintf(f, ",\"instance\":%s,\"path\":", p->name ? "true" : "false");
	ft_json_str(f, p->path);
	fputs(",\"tracer\":", f);
	if (p->tracer)
		ft_json_str(f, p->tracer);
	else
		fputs("null", f);
	fputs(",\"tracing_on\":", f);
	fputs(p->tracing_on < 0 ? "null" : p->tracing_on ? "true" : "false", f);
	{
		char *boot = boot_buffer(p);

		/* a buffer the kernel reserved at boot (Linux 6.12), and what it holds */
		fputs(",\"boot_buffer\":", f);
		if (boot)
			ft_json_str(f, boot);
		else
			fputs("null", f);
		free(boot);
	}
	fputs(",\"active\":", f);
	fputs(st_place_active(p) ? "true" : "false", f);
	fputs(",\"buffer_kb\":", f);
	json_long(f, p->buffer_kb);
	fputs(",\"buffer_total_kb\":", f);
	json_long(f, p->buffer_total_kb);
	fputs(",\"age_s\":", f);
	json_long(f, p->created ? (long)difftime(now, p->created) : -1);
	fputs(",\"set_ftrace_filter\":", f);
	json_long(f, p->ftrace_filter);
	fputs(",\"set_ftrace_notrace\":", f);
	json_long(f, p->ftrace_notrace);
	fputs(",\"set_graph_function\":", f);
	json_long(f, p->graph_function);
	fputs(",\"hooked_functions\":", f);
	json_long(f, p->hooked);
	fputs(",\"costly_options\":", f);
	json_strv(f, p->options, p->noptions);
	fputs(",\"events\":[", f);
	for (i = 0; i < p->nev; i++) {
		const struct st_event *e = &p->ev[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		ft_json_str(f, e->name);
		fputs(",\"filter\":", f);
		if (e->filter)
			ft_json_str(f, e->filter);
		else
			fputs("null", f);
		fputs(",\"triggers\":", f);
		json_strv(f, e->triggers, e->ntriggers);
		fprintf(f, ",\"syscall_path\":%s}", e->syscall_path ? "true" : "false");
	}
	fputs("],\"recorder\":", f);
	if (p->recorder)
		fprintf(f, "{\"pid\":%d,\"running\":%s}", (int)p->recorder,
			p->recorder_alive ? "true" : "false");
	else
		fputs("null", f);
	fputs(",\"in_use_by\":", f);
	json_pids(f, s, &p->holders);
	fputc('}', f);
}

static void json_progs(FILE *f, const struct st_status *s)
{
	double up = boot_uptime();
	int i;

	fputc('[', f);
	for (i = 0; i < s->nprogs; i++) {
		const struct st_prog *p = &s->progs[i];

		fprintf(f, "%s{\"id\":%u,\"type\":", i ? "," : "", p->id);
		ft_json_str(f, p->type_name);
		fputs(",\"name\":", f);
		ft_json_str(f, p->name);
		fprintf(f, ",\"tag\":\"%s\",\"attached\":%s,\"attach\":", p->tag,
			st_prog_attached(p) ? "true" : "false");
		json_strv(f, p->attach, p->nattach);
		fputs(",\"held_by\":", f);
		json_pids(f, s, &p->holders);
		fprintf(f, ",\"pinned\":%s,\"syscall_path\":%s,\"age_s\":", p->pinned ? "true" : "false",
			p->syscall_path ? "true" : "false");
		json_long(f, up >= 0 && p->load_time_ns ? (long)(up - p->load_time_ns / 1e9) : -1);
		fputs(",\"maps\":", f);
		if (p->maps)
			ft_json_str(f, p->maps);
		else
			fputs("null", f);
		if (p->measured)
			fprintf(f, ",\"runs\":%llu,\"run_ns\":%llu",
				(unsigned long long)(p->cnt1 - p->cnt0),
				(unsigned long long)(p->ns1 - p->ns0));
		else
			fputs(",\"runs\":null,\"run_ns\":null", f);
		fputc('}', f);
	}
	fputc(']', f);
}

static void print_json(const struct st_status *s)
{
	FILE *f = stdout;
	time_t now = time(NULL);
	bool any;
	double ft;
	int i;

	fprintf(f, "{\"tracing\":%s,\"complete\":%s,\"not_looked_at\":",
		st_tracing(s) ? "true" : "false", s->nunseen ? "false" : "true");
	json_strv(f, s->unseen, s->nunseen);
	fputs(",\"tracefs\":", f);
	if (s->tracefs)
		ft_json_str(f, s->tracefs);
	else
		fputs("null", f);
	fputs(",\"places\":[", f);
	for (i = 0; i < s->nplaces; i++) {
		if (s->places[i].own)
			continue;
		if (i)
			fputc(',', f);
		json_place(f, s, &s->places[i], now);
	}
	fputs("],\"dynamic_events\":[", f);
	for (i = 0; i < s->nprobes; i++) {
		const struct st_probe *p = &s->probes[i];

		fprintf(f, "%s{\"kind\":\"%s\",\"group\":", i ? "," : "", p->kind);
		ft_json_str(f, p->group);
		fputs(",\"name\":", f);
		ft_json_str(f, p->name);
		fputs(",\"definition\":", f);
		ft_json_str(f, p->def);
		fputs(",\"enabled_in\":", f);
		json_strv(f, p->enabled_in, p->nenabled);
		fputs(",\"recorder\":", f);
		if (p->recorder)
			fprintf(f, "{\"pid\":%d,\"running\":%s}", (int)p->recorder,
				p->recorder_alive ? "true" : "false");
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("],\"bpf_programs\":", f);
	json_progs(f, s);
	fputs(",\"bpf_stats\":", f);
	if (s->bpf_stats)
		ft_json_str(f, s->bpf_stats);
	else
		fputs("null", f);
	fputs(",\"perf_events\":[", f);
	for (i = 0; i < s->nperf; i++) {
		const struct st_proc *p = st_proc(s, s->perf[i].pid);

		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", (int)s->perf[i].pid);
		ft_json_str(f, p ? p->comm : "");
		fprintf(f, ",\"count\":%d,\"type\":\"perf event\"}", s->perf[i].count);
	}
	fputs("],\"recorders\":[", f);
	for (i = 0; i < s->nrecs; i++) {
		const struct st_recorder *r = &s->recs[i];

		fprintf(f, "%s{\"pid\":%d,\"running\":%s,\"output\":", i ? "," : "", (int)r->pid,
			r->alive ? "true" : "false");
		if (r->output)
			ft_json_str(f, r->output);
		else
			fputs("null", f);
		fputs(",\"age_s\":", f);
		json_long(f, r->since ? (long)difftime(now, r->since) : -1);
		fputc('}', f);
	}
	fputs("],\"trace_cmd\":[", f);
	for (i = 0, any = false; i < s->nprocs; i++) {
		const struct st_proc *p = &s->procs[i];

		if (strcmp(p->comm, "trace-cmd"))
			continue;
		fprintf(f, "%s{\"pid\":%d,\"age_s\":", any ? "," : "", (int)p->pid);
		json_long(f, p->have_age ? (long)p->age_s : -1);
		fputc('}', f);
		any = true;
	}
	fputs("],\"cost\":", f);
	if (s->measured) {
		ft = s->ftrace_event_ns >= 0 ? s->ftrace_event_ns * s->ftrace_per_syscall : -1;
		fputs("{\"syscall_ns\":", f);
		json_num(f, s->syscall_ns);
		fprintf(f, ",\"ftrace_events_per_syscall\":%d,\"ftrace_event_ns\":",
			s->ftrace_per_syscall);
		json_num(f, s->ftrace_event_ns);
		fputs(",\"bpf_ns_per_syscall\":", f);
		json_num(f, s->bpf_per_syscall_ns);
		fputs(",\"added_ns\":", f);
		json_num(f, ft >= 0 && s->bpf_per_syscall_ns >= 0 ? ft + s->bpf_per_syscall_ns : -1);
		fprintf(f, ",\"bpf_interval_s\":%.3f,\"function_tracer\":%s}", s->interval_s,
			s->function_tracer ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fputs(",\"notes\":", f);
	json_strv(f, s->notes, s->nnotes);
	fputs("}\n", f);
}

/* ---- the command --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap status [--json] [--interval T] [--no-cost] [-v]\n"
"\n"
"Everything that traces this machine right now: the tracefs top level and\n"
"every instance (tracer, events, filters, triggers, probes, buffers, costly\n"
"options), BPF programs on tracing hooks and the processes holding them,\n"
"perf events held open, flytrap recorders and trace-cmd, and what tracing\n"
"adds to a system call.  Needs root to see everything.\n"
"\n"
"  --json           machine-readable output\n"
"  --interval T     measure BPF programs' run time over T (default 1s; 0: no)\n"
"  --no-cost        change nothing, measure nothing\n"
"  -v, --verbose    more messages\n"
"  -h, --help       this text\n"
"\n"
"Exit status: 0 nothing traces, 3 something does, 1 some places could not be\n"
"looked at (and nothing was found), 2 usage error.\n");
}

static const struct ft_opt opts[] = {
	{ "json", 0, false, 'j' }, { "interval", 0, true, 'i' }, { "no-cost", 0, false, 'N' },
	{ "verbose", 'v', false, 'v' }, { "help", 'h', false, 'h' }, { 0 },
};

int cmd_status(int argc, char **argv)
{
	struct st_status s;
	uint64_t interval_ns = 1000000000ull;
	bool json = false, cost = true;
	struct ft_optparse p;
	int c, rc;

	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next(&p)) != FT_OPT_END) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'i':
			if (ft_parse_duration_ns(p.value, &interval_ns) || interval_ns > 600000000000ull)
				return ft_usage_error("bad --interval '%s' (a duration up to 10m)", p.value);
			break;
		case 'N':
			cost = false;
			break;
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		case FT_OPT_OPERAND:
			return ft_usage_error("unexpected argument '%s'", p.value);
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}

	st_collect(&s);
	if (cost)
		st_measure(&s, interval_ns / 1e9);
	if (json)
		print_json(&s);
	else
		print_text(&s);
	rc = st_tracing(&s) ? 3 : s.nunseen ? EXIT_FAIL : EXIT_OK;
	st_release(&s);
	return ft_finish_stdout(rc);
}

/* ---- reset --all ----------------------------------------------------------------- */

enum act_kind {
	A_OWN,		/* a dead recorder's leftover: plain reset's part, run after these */
	A_INSTANCE,	/* arg: instance path; list: its triggers ("event\ttrigger") */
	A_TRACER,	/* top level current_tracer -> nop */
	A_TRACING_ON,	/* top level tracing_on -> 1 */
	A_EVENTS,	/* top level events off */
	A_FILTER,	/* arg: event ("sys:ev") */
	A_TRIGGER,	/* arg: event, arg2: trigger */
	A_EMPTY,	/* arg: top-level file to empty */
	A_OPTION,	/* arg: option name */
	A_PROBE,	/* arg: "group/name" */
	A_UNPIN,	/* arg: pin path */
	A_KILL,		/* pid */
};

struct act {
	enum act_kind kind;
	char *text;
	char *arg, *arg2;
	pid_t pid;
};

struct plan {
	struct act *acts;
	int nacts;
	char **keep;
	int nkeep;
	char **cannot;
	int ncannot;
};

static struct act *plan_add(struct plan *pl, enum act_kind k, const char *arg, const char *arg2,
			    char *text)
{
	struct act *a = PUSH(pl->acts, pl->nacts);

	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->arg = arg ? xstrdup(arg) : NULL;
	a->arg2 = arg2 ? xstrdup(arg2) : NULL;
	a->text = text;
	return a;
}

static void plan_free(struct plan *pl)
{
	int i;

	for (i = 0; i < pl->nacts; i++) {
		free(pl->acts[i].text);
		free(pl->acts[i].arg);
		free(pl->acts[i].arg2);
	}
	free(pl->acts);
	strv_free(pl->keep, pl->nkeep);
	strv_free(pl->cannot, pl->ncannot);
}

static bool forced(const struct st_reset_opts *o, const char *name)
{
	return name_in(o->force, o->nforce, name);
}

static bool forced_pid(const struct st_reset_opts *o, pid_t pid)
{
	char b[24];

	snprintf(b, sizeof(b), "%d", (int)pid);
	return forced(o, b);
}

/* A place is in use when a live recorder owns it or a process has it open. */
static bool place_kept(const struct st_status *s, const struct st_place *p,
		       const struct st_reset_opts *o, struct plan *pl)
{
	char hold[1024];

	if (forced(o, p->name ? p->name : "top"))
		return false;
	if (p->recorder_alive) {
		*PUSH(pl->keep, pl->nkeep) = ft_asprintf("instance %s: flytrap recorder %d is running",
						       p->name, (int)p->recorder);
		return true;
	}
	if (p->holders.n) {
		fmt_pids(s, &p->holders, hold, sizeof(hold));
		*PUSH(pl->keep, pl->nkeep) = ft_asprintf("%s%s: in use by %s", p->name ? "instance " : "",
						       place_label(p), hold);
		return true;
	}
	return false;
}

static void plan_top(const struct st_status *s, const struct st_reset_opts *o, struct plan *pl)
{
	static const char *const files[] = { "set_ftrace_filter", "set_ftrace_notrace",
					     "set_graph_function" };
	const struct st_place *p = &s->places[0];
	long counts[3] = { p->ftrace_filter, p->ftrace_notrace, p->graph_function };
	int i, j;

	if (place_kept(s, p, o, pl))
		return;
	if (p->tracer && strcmp(p->tracer, "nop"))
		plan_add(pl, A_TRACER, NULL, NULL,
			 ft_asprintf("set the top level's current_tracer to nop (it is %s)", p->tracer));
	for (i = 0; i < p->nev; i++) {
		const struct st_event *e = &p->ev[i];

		if (e->filter)
			plan_add(pl, A_FILTER, e->name, NULL,
				 ft_asprintf("clear the filter of %s (top level)", e->name));
		for (j = 0; j < e->ntriggers; j++)
			plan_add(pl, A_TRIGGER, e->name, e->triggers[j],
				 ft_asprintf("remove trigger '%s' of %s (top level)", e->triggers[j],
					   e->name));
	}
	if (p->nev)
		plan_add(pl, A_EVENTS, NULL, NULL,
			 ft_asprintf("disable %d event%s of the top level (%s%s)", p->nev,
				   p->nev == 1 ? "" : "s", p->ev[0].name, p->nev > 1 ? ", ..." : ""));
	for (i = 0; i < 3; i++)
		if (counts[i] > 0)
			plan_add(pl, A_EMPTY, files[i], NULL,
				 ft_asprintf("empty the top level's %s (%ld lines)", files[i], counts[i]));
	for (i = 0; i < p->noptions; i++)
		plan_add(pl, A_OPTION, p->options[i], NULL,
			 ft_asprintf("switch the top level's option %s off", p->options[i]));
	if (p->tracing_on == 0)
		plan_add(pl, A_TRACING_ON, NULL, NULL,
			 ft_asprintf("switch the top level's tracing_on back on (the default)"));
}

static void plan_progs(const struct st_status *s, const struct st_reset_opts *o, struct plan *pl)
{
	int i, j;

	for (i = 0; i < s->nprogs; i++) {
		const struct st_prog *p = &s->progs[i];
		bool live = false;

		if (!st_prog_attached(p))
			continue;
		for (j = 0; j < p->holders.n; j++) {
			char who[128];

			if (!st_pid_alive(p->holders.v[j]))
				continue;
			live = true;
			fmt_proc(s, p->holders.v[j], who, sizeof(who));
			if (forced_pid(o, p->holders.v[j]))
				plan_add(pl, A_KILL, NULL, NULL,
					 ft_asprintf("end process %s (SIGTERM): it holds BPF program %u %s",
						   who, p->id, p->name))->pid = p->holders.v[j];
			else
				*PUSH(pl->cannot, pl->ncannot) =
					ft_asprintf("BPF program %u %s: held by %s (--force %d ends it)",
						  p->id, p->name, who, (int)p->holders.v[j]);
		}
		for (j = 0; j < p->npins; j++)
			plan_add(pl, A_UNPIN, p->pins[j], NULL,
				 ft_asprintf("unpin BPF program %u %s (%s)", p->id, p->name, p->pins[j]));
		if (!live && !p->npins)
			*PUSH(pl->cannot, pl->ncannot) =
				ft_asprintf("BPF program %u %s: no process or pin found that holds it",
					  p->id, p->name);
	}
	for (i = 0; i < s->nperf; i++) {
		char who[128];

		fmt_proc(s, s->perf[i].pid, who, sizeof(who));
		if (forced_pid(o, s->perf[i].pid))
			plan_add(pl, A_KILL, NULL, NULL,
				 ft_asprintf("end process %s (SIGTERM): it holds %d perf events", who,
					   s->perf[i].count))->pid = s->perf[i].pid;
		else
			*PUSH(pl->cannot, pl->ncannot) =
				ft_asprintf("%d perf event%s held by %s (--force %d ends it)",
					  s->perf[i].count, s->perf[i].count == 1 ? "" : "s", who,
					  (int)s->perf[i].pid);
	}
}

static void plan_all(const struct st_status *s, const struct st_reset_opts *o, struct plan *pl)
{
	char **kept = NULL;
	struct dirent *de;
	int nkept = 0, i, j;
	DIR *d;

	/* dead recorders' saved top-level state goes back first (their own clean-up) */
	d = opendir(REC_TRACER_STATE_DIR);
	while (d && (de = readdir(d))) {
		pid_t pid = name_pid(de->d_name, "tracer-");

		if (pid && !rec_pid_is_recorder(pid))
			plan_add(pl, A_OWN, NULL, NULL,
				 ft_asprintf("put back the top-level settings dead recorder %d saved",
					   (int)pid));
	}
	if (d)
		closedir(d);
	for (i = 1; i < s->nplaces; i++) {
		const struct st_place *p = &s->places[i];

		if (p->own)
			continue;
		if (p->recorder && !p->recorder_alive && !p->holders.n) {
			plan_add(pl, A_OWN, NULL, NULL,
				 ft_asprintf("remove instance %s of dead recorder %d", p->name,
					   (int)p->recorder));
			continue;
		}
		if (place_kept(s, p, o, pl)) {
			strv_push(&kept, &nkept, p->name);
			continue;
		}
		plan_add(pl, A_INSTANCE, p->path, NULL,
			 ft_asprintf("remove instance %s (%d event%s, tracer %s)", p->name, p->nev,
				   p->nev == 1 ? "" : "s", p->tracer ? p->tracer : "?"));
	}
	if (s->nplaces) {
		plan_top(s, o, pl);
		if (s->places[0].holders.n && !forced(o, "top"))
			strv_push(&kept, &nkept, "top");
	}
	for (i = 0; i < s->nprobes; i++) {
		const struct st_probe *p = &s->probes[i];
		char gn[400];

		snprintf(gn, sizeof(gn), "%s/%s", p->group, p->name);
		if (p->recorder_alive) {
			*PUSH(pl->keep, pl->nkeep) = ft_asprintf("%s %s: flytrap recorder %d is running",
							       p->kind, gn, (int)p->recorder);
			continue;
		}
		if (p->recorder) {
			plan_add(pl, A_OWN, NULL, NULL, ft_asprintf("remove %s %s of dead recorder %d",
								  p->kind, gn, (int)p->recorder));
			continue;
		}
		for (j = 0; j < p->nenabled && !name_in(kept, nkept, p->enabled_in[j]); j++)
			;
		if (j < p->nenabled) {
			*PUSH(pl->keep, pl->nkeep) = ft_asprintf("%s %s: enabled in %s, which is kept",
							       p->kind, gn, p->enabled_in[j]);
			continue;
		}
		plan_add(pl, A_PROBE, gn, NULL, ft_asprintf("remove %s %s", p->kind, gn));
	}
	plan_progs(s, o, pl);
	for (i = 0; i < s->nrecs; i++) {
		const struct st_recorder *r = &s->recs[i];

		if (r->alive || !r->output)
			continue;
		plan_add(pl, A_OWN, NULL, NULL,
			 ft_asprintf("forget dead recorder %d's run note (it was writing '%s')",
				   (int)r->pid, r->output));
	}
	strv_free(kept, nkept);
}

static int top_write(const struct st_status *s, const char *rel, const char *text, bool append)
{
	return write_at(s->tracefs, rel, text, append);
}

static char *event_file(const char *ev, const char *file)
{
	char *r = ft_asprintf("events/%s/%s", ev, file), *c = strchr(r + 7, ':');

	if (c)
		*c = '/';
	return r;
}

static int remove_instance_all(const struct st_status *s, const char *path)
{
	const struct st_place *p = NULL;
	int i, j;

	for (i = 1; i < s->nplaces; i++)
		if (!strcmp(s->places[i].path, path))
			p = &s->places[i];
	write_file(path, "tracing_on", "0");
	write_file(path, "current_tracer", "nop");
	for (i = 0; p && i < p->nev; i++)
		for (j = 0; j < p->ev[i].ntriggers; j++) {
			char *f = event_file(p->ev[i].name, "trigger"), *t;

			t = ft_asprintf("!%s", p->ev[i].triggers[j]);
			/* "hist:keys=x if y" is removed by its part before " if" */
			if (strstr(t, " if "))
				*strstr(t, " if ") = '\0';
			write_file(path, f, t);
			free(t);
			free(f);
		}
	write_file(path, "events/enable", "0");
	return remove_dir(path);
}

static int kill_wait(pid_t pid)
{
	int i;

	if (kill(pid, SIGTERM))
		return -errno;
	for (i = 0; i < 150 && st_pid_alive(pid); i++)
		usleep(20000);
	return st_pid_alive(pid) ? -ETIMEDOUT : 0;
}

static int do_act(const struct st_status *s, const struct act *a)
{
	char *f, *t;
	int err = 0;

	switch (a->kind) {
	case A_OWN:
		return 0;
	case A_INSTANCE:
		return remove_instance_all(s, a->arg);
	case A_TRACER:
		return top_write(s, "current_tracer", "nop", false);
	case A_TRACING_ON:
		return top_write(s, "tracing_on", "1", false);
	case A_EVENTS:
		return top_write(s, "events/enable", "0", false);
	case A_FILTER:
		f = event_file(a->arg, "filter");
		err = top_write(s, f, "0", false);
		free(f);
		return err;
	case A_TRIGGER:
		f = event_file(a->arg, "trigger");
		t = ft_asprintf("!%s", a->arg2);
		if (strstr(t, " if "))
			*strstr(t, " if ") = '\0';
		err = top_write(s, f, t, true);
		free(t);
		free(f);
		return err;
	case A_EMPTY:
		return top_write(s, a->arg, "", false);
	case A_OPTION:
		f = ft_asprintf("options/%s", a->arg);
		err = top_write(s, f, "0", false);
		free(f);
		return err;
	case A_PROBE:
		/* disabled first wherever it is on (the top level was reset above) */
		t = ft_asprintf("-:%s\n", a->arg);
		err = top_write(s, "dynamic_events", t, true);
		if (err == -ENOENT || err == -EINVAL)
			err = top_write(s, "uprobe_events", t, true);
		if (err == -ENOENT || err == -EINVAL)
			err = top_write(s, "kprobe_events", t, true);
		free(t);
		return err;
	case A_UNPIN:
		return unlink(a->arg) ? -errno : 0;
	case A_KILL:
		return kill_wait(a->pid);
	}
	return 0;
}

static bool confirm(void)
{
	char buf[64];

	fprintf(stderr, "change these? [y/N] ");
	fflush(stderr);
	if (!fgets(buf, sizeof(buf), stdin))
		return false;
	return buf[0] == 'y' || buf[0] == 'Y';
}

int st_reset_all(struct st_reset_opts *o)
{
	struct st_status s;
	struct plan pl = { 0 };
	int i, rc = EXIT_OK;

	st_collect(&s);
	for (i = 0; i < s.nunseen; i++)
		ft_warn("could not look at %s", s.unseen[i]);
	if (!s.tracefs || (s.nunseen && geteuid())) {
		st_release(&s);
		return ft_error("flytrap reset --all needs root");
	}
	plan_all(&s, o, &pl);
	if (pl.nacts) {
		printf("flytrap reset --all %s:\n", o->dry ? "would" : "will");
		for (i = 0; i < pl.nacts; i++)
			printf("  %s\n", pl.acts[i].text);
	}
	for (i = 0; i < pl.nkeep; i++)
		printf("keeps %s\n", pl.keep[i]);
	for (i = 0; i < pl.ncannot; i++)
		printf("cannot detach %s\n", pl.cannot[i]);
	if (!pl.nacts)
		fprintf(stderr, "flytrap: nothing to reset\n");
	if (o->dry || !pl.nacts)
		goto out;
	if (!o->yes) {
		fflush(stdout);
		if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
			rc = ft_usage_error("reset --all changes what others left: add --yes "
					    "(no terminal to ask on)");
			goto out_nocannot;
		}
		if (!confirm()) {
			fprintf(stderr, "flytrap: nothing changed\n");
			rc = EXIT_FAIL;
			goto out_nocannot;
		}
	}
	for (i = 0; i < pl.nacts; i++)
		o->plain |= pl.acts[i].kind == A_OWN;
	for (i = 0; i < pl.nacts; i++) {
		int err = do_act(&s, &pl.acts[i]);

		if (err) {
			ft_error("cannot %s: %s", pl.acts[i].text, strerror(-err));
			rc = EXIT_FAIL;
		} else if (pl.acts[i].kind != A_OWN) {
			printf("done: %s\n", pl.acts[i].text);
		}
	}
out:
	if (pl.ncannot)
		rc = EXIT_FAIL;
out_nocannot:
	plan_free(&pl);
	st_release(&s);
	return ft_finish_stdout(rc);
}
