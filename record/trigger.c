// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line of the always-on modes (--flight, --trigger, --after,
 * --max-dumps, --min-gap, --rotate, --keep, --cpu-budget) and the trigger
 * sources while recording:
 *  - syscall>DUR, syscall:NAME,...>DUR and offcpu>DUR are decided in the
 *    kernel by the BPF programs (a counter they raise, read here);
 *  - EVENT [if FILTER] runs in a second tracefs instance of our own,
 *    "flytrap-<pid>-trigger", with the event enabled and filtered there:
 *    tracefs holds one filter per event and instance, so the recording's
 *    own events keep what they record.  Anything in its buffer is a hit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "flytrap.h"
#include "record.h"
#include "bpf.h"
#include "flight.h"
#include "flight_int.h"
#include "report/syms/sysnames.h"

#define DEFAULT_FLIGHT_SIZE (1ULL << 30)

/* ---- options --------------------------------------------------------------- */

/* "60s", "512M", "60s,4G" */
static int parse_limit(const char *arg, uint64_t *ns, uint64_t *bytes)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int err = 0, n = 0;

	*ns = *bytes = 0;
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save), n++) {
		uint64_t v;

		if (!ft_parse_duration_ns(tok, &v) && strpbrk(tok, "smh")) {
			if (*ns || !v)
				err = -EINVAL;
			*ns = v;
		} else if (!ft_parse_size(tok, &v) && strpbrk(tok, "KkMGB")) {
			if (*bytes || v < (1ULL << 20))
				err = -EINVAL;
			*bytes = v;
		} else {
			err = -EINVAL;
		}
	}
	if (!n || n > 2)
		err = -EINVAL;
	free(dup);
	return err;
}

static int parse_trigger(struct rec_trig_spec *t, const char *arg, char *why, size_t wl)
{
	const char *gt = strchr(arg, '>');

	memset(t, 0, sizeof(*t));
	t->text = arg;
	if (!strncmp(arg, "syscall", 7) && gt && (arg[7] == '>' || arg[7] == ':')) {
		t->kind = REC_TRIG_SYSCALL;
		if (arg[7] == ':') {
			t->names = strndup(arg + 8, (size_t)(gt - arg - 8));
			if (!t->names || !*t->names) {
				snprintf(why, wl, "no syscall name after 'syscall:'");
				return -EINVAL;
			}
		}
	} else if (!strncmp(arg, "offcpu>", 7)) {
		t->kind = REC_TRIG_OFFCPU;
	} else {
		const char *sp = strstr(arg, " if "), *colon;
		size_t el = sp ? (size_t)(sp - arg) : strlen(arg);
		char *ev = strndup(arg, el);

		t->kind = REC_TRIG_EVENT;
		if (!ev)
			return -ENOMEM;
		while (el && ev[el - 1] == ' ')
			ev[--el] = '\0';
		colon = strchr(ev, ':');
		if (!colon || colon == ev || !colon[1] || strchr(colon + 1, ':') || strpbrk(ev, "/ *?[")) {
			snprintf(why, wl, "expected syscall>DUR, syscall:NAME[,NAME...]>DUR, offcpu>DUR "
				 "or SYSTEM:EVENT [if FILTER]");
			free(ev);
			return -EINVAL;
		}
		t->system = strndup(ev, (size_t)(colon - ev));
		t->event = strdup(colon + 1);
		free(ev);
		if (sp) {
			sp += 4;
			while (*sp == ' ')
				sp++;
			if (!*sp) {
				snprintf(why, wl, "empty filter after 'if'");
				return -EINVAL;
			}
			t->filter = strdup(sp);
		}
		return t->system && t->event && (!sp || t->filter) ? 0 : -ENOMEM;
	}
	if (ft_parse_duration_ns(gt + 1, &t->dur_ns) || !t->dur_ns) {
		snprintf(why, wl, "bad duration '%s' (examples: 100ms, 2s)", gt + 1);
		return -EINVAL;
	}
	return 0;
}

int rec_flight_option(struct rec_flight_conf *c, const char *name, const char *arg)
{
	uint64_t v;

	if (!strcmp(name, "flight")) {
		if (parse_limit(arg, &c->limit_ns, &c->limit_bytes))
			return ft_usage_error("bad --flight '%s' (a time, a size of 1M or more, or both: "
					      "60s, 512M, 60s,4G)", arg);
		if (!c->limit_bytes)
			c->limit_bytes = DEFAULT_FLIGHT_SIZE;
		c->flight = true;
	} else if (!strcmp(name, "trigger")) {
		char why[160] = "";
		int err;

		if (c->ntrig == REC_MAX_TRIGGERS)
			return ft_usage_error("too many --trigger (at most %d)", REC_MAX_TRIGGERS);
		err = parse_trigger(&c->trig[c->ntrig], arg, why, sizeof(why));
		c->ntrig++;
		if (err == -ENOMEM)
			return ft_error("out of memory");
		if (err)
			return ft_usage_error("bad --trigger '%s': %s", arg, why);
	} else if (!strcmp(name, "after")) {
		if (ft_parse_duration_ns(arg, &c->after_ns))
			return ft_usage_error("bad --after '%s' (examples: 1s, 500ms, 0)", arg);
		c->have_after = true;
	} else if (!strcmp(name, "max-dumps")) {
		if (ft_parse_u64(arg, &v) || !v || v > 1000000)
			return ft_usage_error("bad --max-dumps '%s' (1 or more)", arg);
		c->max_dumps = (unsigned)v;
		c->have_max_dumps = true;
	} else if (!strcmp(name, "min-gap")) {
		if (ft_parse_duration_ns(arg, &c->min_gap_ns))
			return ft_usage_error("bad --min-gap '%s' (examples: 10s, 1m)", arg);
		c->have_min_gap = true;
	} else if (!strcmp(name, "rotate")) {
		if (!ft_parse_duration_ns(arg, &v) && strpbrk(arg, "smh") && v >= 100000000ULL)
			c->rotate_ns = v;
		else if (!ft_parse_size(arg, &v) && strpbrk(arg, "KkMGB") && v >= (64ULL << 10))
			c->rotate_bytes = v;
		else
			return ft_usage_error("bad --rotate '%s' (a size of 64K or more, or a time of "
					      "100ms or more: 100M, 10m)", arg);
	} else if (!strcmp(name, "keep")) {
		if (ft_parse_u64(arg, &v) || !v || v > 1000000)
			return ft_usage_error("bad --keep '%s' (1 or more)", arg);
		c->keep = (unsigned)v;
		c->have_keep = true;
	} else if (!strcmp(name, "cpu-budget")) {
		char *end;
		double d = strtod(arg, &end);

		if (end == arg || (*end && strcmp(end, "%")) || !(d > 0) || d > 10000)
			return ft_usage_error("bad --cpu-budget '%s' (percent of one CPU, e.g. 5)", arg);
		c->cpu_budget_pct = d;
	} else if (!strcmp(name, "on-file")) {
		if (!*arg)
			return ft_usage_error("--on-file: empty command");
		c->on_file = arg;
	} else if (!strcmp(name, "on-file-timeout")) {
		if (ft_parse_duration_ns(arg, &c->on_file_timeout_ns) || !c->on_file_timeout_ns)
			return ft_usage_error("bad --on-file-timeout '%s' (examples: 60s, 5m)", arg);
	} else {
		return ft_usage_error("unknown option '--%s'", name);
	}
	return -1;
}

bool rec_flight_stores(const struct rec_flight_conf *c)
{
	return c->flight || c->rotate_bytes || c->rotate_ns;
}

int rec_flight_check(struct rec_flight_conf *c, uint64_t max_size, const char *bpf)
{
	bool rotate = c->rotate_bytes || c->rotate_ns;
	int i;

	if (c->flight && rotate)
		return ft_usage_error("--flight and --rotate do not go together (a flight recording "
				      "writes only when triggered)");
	if (c->flight && max_size)
		return ft_usage_error("--flight and --max-size do not go together (--flight LIMIT "
				      "bounds the size)");
	if (rotate && max_size)
		return ft_usage_error("--rotate and --max-size do not go together");
	if (c->have_keep && !rotate)
		return ft_usage_error("--keep needs --rotate");
	if (rotate && c->ntrig)
		return ft_usage_error("--trigger goes with --flight, or ends a normal recording; "
				      "not with --rotate");
	if ((c->have_after || c->have_max_dumps || c->have_min_gap) && !c->flight && !c->ntrig)
		return ft_usage_error("--after, --max-dumps and --min-gap need --flight or --trigger");
	if (!c->have_after)
		c->after_ns = 1000000000ULL;
	if (c->flight && c->limit_ns && c->after_ns > c->limit_ns)
		return ft_usage_error("--after is longer than the --flight window");
	for (i = 0; i < c->ntrig; i++) {
		const struct rec_trig_spec *t = &c->trig[i];
		const char *want = t->kind == REC_TRIG_SYSCALL ? "syscalls" :
				   t->kind == REC_TRIG_OFFCPU ? "offcpu" : NULL;

		if (want && (!bpf || !strstr(bpf, want)))
			return ft_usage_error("--trigger '%s' is decided by the BPF %s program: add "
					      "--bpf %s", t->text, want, want);
		if (t->kind == REC_TRIG_SYSCALL) {
			uint8_t bits[REC_TRIG_MAX_NRS / 8];
			char *err = NULL;

			if (rec_trigger_syscall_nrs(t, bits, &err)) {
				int rc = ft_usage_error("--trigger '%s': %s", t->text, err ? err : "bad names");

				free(err);
				return rc;
			}
		}
	}
	return -1;
}

int rec_trigger_check_events(const struct rec_flight_conf *c, const char *tracing_dir)
{
	int i;

	for (i = 0; i < c->ntrig; i++) {
		const struct rec_trig_spec *t = &c->trig[i];
		char path[4096];
		struct stat st;

		if (t->kind != REC_TRIG_EVENT)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracing_dir, t->system, t->event);
		if (stat(path, &st))
			return ft_usage_error("--trigger '%s': this kernel has no event %s:%s (see %s/"
					      "available_events)", t->text, t->system, t->event, tracing_dir);
	}
	return -1;
}

int rec_trigger_syscall_nrs(const struct rec_trig_spec *t, uint8_t *bitmap, char **err)
{
	struct utsname un;
	char buf[4 * sizeof(un.sysname) + 4], *dup, *tok, *save = NULL;
	enum rpt_sys_abi abi;
	int ret = 0;

	memset(bitmap, 0, REC_TRIG_MAX_NRS / 8);
	if (!t->names) {
		memset(bitmap, 0xff, REC_TRIG_MAX_NRS / 8);
		return 0;
	}
	uname(&un);
	snprintf(buf, sizeof(buf), "%s %s %s %s", un.sysname, un.nodename, un.release, un.machine);
	abi = rpt_sys_abi(buf, (int)sizeof(long));
	dup = strdup(t->names);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		long nr;
		bool found = false;

		for (nr = 0; nr < REC_TRIG_MAX_NRS; nr++) {
			const char *n = rpt_syscall_name(abi, nr);

			if (n && !strcmp(n, tok)) {
				bitmap[nr / 8] |= (uint8_t)(1u << (nr % 8));
				found = true;
			}
		}
		if (!found) {
			if (asprintf(err, "no syscall named '%s' on this machine", tok) < 0)
				*err = NULL;
			ret = -EINVAL;
		}
	}
	free(dup);
	return ret;
}

void rec_flight_conf_release(struct rec_flight_conf *c)
{
	int i;

	for (i = 0; i < c->ntrig; i++) {
		free(c->trig[i].names);
		free(c->trig[i].system);
		free(c->trig[i].event);
		free(c->trig[i].filter);
	}
	c->ntrig = 0;
}

/* ---- while recording ------------------------------------------------------------ */

struct rec_trig_state {
	const struct rec_flight_conf *c;
	struct rec_bpf *bpf;
	struct rec_bpf_trig seen;
	struct tracefs_instance *ti;
	char name[64];
	int *fds;
	int nfds;
	uint32_t page_size;
	uint8_t *page;
	int ev_trig;			/* index of the (first) EVENT trigger */
	int nev;
};

static int inst_write(struct rec_trig_state *t, const char *file, const char *text)
{
	int r = tracefs_instance_file_write(t->ti, file, text);

	return r < 0 ? (errno ? -errno : -EIO) : 0;
}

static void trig_instance_destroy(struct rec_trig_state *t)
{
	int i;

	if (!t->ti)
		return;
	inst_write(t, "tracing_on", "0");
	for (i = 0; i < t->nfds; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	free(t->fds);
	t->fds = NULL;
	t->nfds = 0;
	inst_write(t, "events/enable", "0");
	tracefs_instance_destroy(t->ti);
	tracefs_instance_free(t->ti);
	t->ti = NULL;
}

/* The second instance: each EVENT trigger's event enabled with its filter. */
static int trig_instance_create(struct rec_trig_state *t, struct rec_instance *ri)
{
	int i, err = 0;

	snprintf(t->name, sizeof(t->name), "%s%d-trigger", REC_INSTANCE_PREFIX, (int)getpid());
	t->ti = tracefs_instance_create(t->name);
	if (!t->ti) {
		err = errno ? -errno : -EIO;
		ft_error("cannot create the trigger instance '%s': %s", t->name, strerror(-err));
		return err;
	}
	if ((err = inst_write(t, "tracing_on", "0")) || (err = inst_write(t, "trace_clock", "mono")) ||
	    (err = inst_write(t, "buffer_size_kb", "16"))) {
		ft_error("cannot set up the trigger instance '%s': %s", t->name, strerror(-err));
		return err;
	}
	for (i = 0; i < t->c->ntrig; i++) {
		const struct rec_trig_spec *s = &t->c->trig[i];
		char file[512];

		if (s->kind != REC_TRIG_EVENT)
			continue;
		if (s->filter) {
			snprintf(file, sizeof(file), "events/%s/%s/filter", s->system, s->event);
			err = inst_write(t, file, s->filter);
			if (err) {
				ft_error("--trigger '%s': the kernel refused the filter '%s': %s", s->text,
					 s->filter, strerror(-err));
				return -EINVAL;
			}
		}
		snprintf(file, sizeof(file), "events/%s/%s/enable", s->system, s->event);
		err = inst_write(t, file, "1");
		if (err) {
			ft_error("--trigger '%s': cannot enable %s:%s: %s", s->text, s->system, s->event,
				 strerror(-err));
			return err;
		}
	}
	t->page_size = ri->page_size;
	t->page = malloc(t->page_size);
	t->fds = calloc((size_t)ri->ncpus, sizeof(*t->fds));
	if (!t->page || !t->fds)
		return -ENOMEM;
	for (i = 0; i < ri->ncpus; i++) {
		char file[128], *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", ri->cpus[i].cpu);
		path = tracefs_instance_get_file(t->ti, file);
		t->fds[i] = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		t->nfds++;
		if (t->fds[i] < 0) {
			err = -errno;
			ft_error("cannot read the trigger instance's CPU %d: %s", ri->cpus[i].cpu,
				 strerror(errno));
			return err;
		}
	}
	err = inst_write(t, "tracing_on", "1");
	if (err)
		ft_error("cannot start the trigger instance: %s", strerror(-err));
	return err;
}

struct rec_trig_state *rec_trig_state_new(const struct rec_flight_conf *c, struct rec_instance *ri,
					  struct rec_bpf *bpf, int *err)
{
	struct rec_trig_state *t = calloc(1, sizeof(*t));
	int i;

	*err = -ENOMEM;
	if (!t)
		return NULL;
	t->c = c;
	t->bpf = bpf;
	t->ev_trig = -1;
	for (i = 0; i < c->ntrig; i++)
		if (c->trig[i].kind == REC_TRIG_EVENT) {
			t->nev++;
			if (t->ev_trig < 0)
				t->ev_trig = i;
		}
	if (bpf)
		rec_bpf_trigger_state(bpf, &t->seen);
	if (t->nev && (*err = trig_instance_create(t, ri))) {
		rec_trig_state_free(t);
		return NULL;
	}
	*err = 0;
	return t;
}

static const char *which_event(const struct rec_trig_state *t, uint16_t id)
{
	int i;

	/* the page says the event's ID; name it by its trigger when there is one */
	for (i = 0; i < t->c->ntrig; i++) {
		const struct rec_trig_spec *s = &t->c->trig[i];
		char path[512], *text;
		int eid;

		if (s->kind != REC_TRIG_EVENT)
			continue;
		snprintf(path, sizeof(path), "events/%s/%s/id", s->system, s->event);
		text = tracefs_instance_file_read(NULL, path, NULL);
		eid = text ? atoi(text) : -1;
		free(text);
		if (eid == id || t->nev == 1)
			return s->text;
	}
	return t->c->trig[t->ev_trig].text;
}

int rec_trig_poll(struct rec_trig_state *t, char *what, size_t len, uint64_t *ts)
{
	struct rec_bpf_trig now;
	int i;

	*ts = 0;
	if (t->bpf) {
		rec_bpf_trigger_state(t->bpf, &now);
		if (now.syscall_hits != t->seen.syscall_hits) {
			char name[64], un_text[4 * sizeof(((struct utsname *)0)->sysname) + 4];
			struct utsname un;
			const char *sn = NULL;
			int k;

			for (k = 0; k < t->c->ntrig && t->c->trig[k].kind != REC_TRIG_SYSCALL; k++)
				;
			if (!uname(&un)) {
				snprintf(un_text, sizeof(un_text), "%s %s %s %s", un.sysname, un.nodename,
					 un.release, un.machine);
				sn = rpt_syscall_name(rpt_sys_abi(un_text, (int)sizeof(long)), now.syscall_nr);
			}
			if (sn)
				snprintf(name, sizeof(name), "%s", sn);
			else
				snprintf(name, sizeof(name), "%d", now.syscall_nr);
			snprintf(what, len, "%s: syscall %s took %.3f ms (tid %d)",
				 k < t->c->ntrig ? t->c->trig[k].text : "syscall", name,
				 (double)now.syscall_dur / 1e6, now.syscall_tid);
			*ts = now.syscall_ts;
			t->seen = now;
			return 1;
		}
		if (now.offcpu_hits != t->seen.offcpu_hits) {
			snprintf(what, len, "offcpu: tid %d off CPU for %.3f ms", now.offcpu_tid,
				 (double)now.offcpu_dur / 1e6);
			*ts = now.offcpu_ts;
			t->seen = now;
			return 1;
		}
	}
	for (i = 0; i < t->nfds; i++) {
		ssize_t r = read(t->fds[i], t->page, t->page_size);

		if (r >= 16) {
			uint16_t id = 0;
			uint64_t pts;

			memcpy(&pts, t->page, 8);
			/* first event: 4-byte header after the page header (8 + long), then common_type */
			if ((size_t)r >= 16 + 4 + 2)
				memcpy(&id, t->page + 16 + 4, 2);
			snprintf(what, len, "%s (CPU %d)", which_event(t, id), i);
			*ts = pts;
			/* the rest of the burst is the same trigger */
			while (read(t->fds[i], t->page, t->page_size) > 0)
				;
			return 1;
		}
	}
	return 0;
}

void rec_trig_state_free(struct rec_trig_state *t)
{
	if (!t)
		return;
	trig_instance_destroy(t);
	free(t->fds);
	free(t->page);
	free(t);
}
