// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap info: what is in a trace.dat at a glance — format, kernel, clock,
 * buffers and CPUs, time span, events and bytes per type, every loss the
 * file records, the kernel's CPU stats, and flytrap's own metadata.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"
#include "format.h"

struct type_stat {
	uint64_t count, bytes;
};

struct cpu_stat {
	int buffer, cpu;
	uint64_t events, bytes;
	uint64_t lost_pages, lost_known, lost_unknown_pages;
	uint64_t first_ts, last_ts;
};

struct info {
	struct fmt_reader *r;
	const struct fmt_info *in;
	struct type_stat *types;	/* by event ID (65536 + 1 for unknown) */
	struct cpu_stat *cpus;
	int ncpus;
	uint64_t nevents, bytes, first_ts, last_ts;
	int stream_errors;
	char *first_error;
	struct rpt_loss_fig fig;	/* the one loss figure (drops prints the same) */
};

static struct cpu_stat *cpu_slot(struct info *inf, int buffer, int cpu)
{
	int i;
	struct cpu_stat *p;

	for (i = 0; i < inf->ncpus; i++)
		if (inf->cpus[i].buffer == buffer && inf->cpus[i].cpu == cpu)
			return &inf->cpus[i];
	p = realloc(inf->cpus, (inf->ncpus + 1) * sizeof(*p));
	if (!p)
		return NULL;
	inf->cpus = p;
	p = &inf->cpus[inf->ncpus++];
	memset(p, 0, sizeof(*p));
	p->buffer = buffer;
	p->cpu = cpu;
	return p;
}

static int scan(struct info *inf)
{
	struct fmt_iter_opts io = { .no_peek = true };
	struct fmt_iter *it;
	const struct fmt_event *ev;
	struct cpu_stat *cs = NULL;
	int err;

	err = fmt_iter_new(inf->r, &io, &it);
	if (err)
		return err;
	while ((err = fmt_iter_next(it, &ev)) != 0) {
		int t;

		if (err < 0) {
			inf->stream_errors++;
			if (!inf->first_error)
				inf->first_error = strdup(fmt_reader_error(inf->r));
			continue;
		}
		t = ev->event ? ev->type : 65536;
		inf->types[t].count++;
		inf->types[t].bytes += ev->rec.record_size;
		if (!cs || cs->buffer != ev->buffer || cs->cpu != ev->rec.cpu) {
			cs = cpu_slot(inf, ev->buffer, ev->rec.cpu);
			if (!cs) {
				err = -ENOMEM;
				break;
			}
		}
		if (!cs->events)
			cs->first_ts = ev->rec.ts;
		cs->last_ts = ev->rec.ts;
		cs->events++;
		cs->bytes += ev->rec.record_size;
		if (ev->page_missed) {
			cs->lost_pages++;
			if (ev->page_missed > 0)
				cs->lost_known += ev->page_missed;
			else
				cs->lost_unknown_pages++;
		}
		if (!inf->nevents)
			inf->first_ts = ev->rec.ts;
		if (ev->rec.ts > inf->last_ts)
			inf->last_ts = ev->rec.ts;
		inf->nevents++;
		inf->bytes += ev->rec.record_size;
	}
	fmt_iter_free(it);
	return err < 0 ? err : 0;
}

static const char *human(uint64_t b, char *buf, size_t n)
{
	if (b >= 1ULL << 30)
		snprintf(buf, n, "%.1f GiB", b / (double)(1ULL << 30));
	else if (b >= 1ULL << 20)
		snprintf(buf, n, "%.1f MiB", b / (double)(1ULL << 20));
	else if (b >= 10ULL << 10)
		snprintf(buf, n, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, n, "%llu B", (unsigned long long)b);
	return buf;
}

/* rounded to the microsecond as the listing prints the event: --to copied from here keeps it */
static void ts_text(const struct fmt_info *in, uint64_t ts, char *buf, size_t n)
{
	if (in->clock_in_usecs) {
		ts = ts > UINT64_MAX - 500 ? ts : ts + 500;
		snprintf(buf, n, "%llu.%06llu", (unsigned long long)(ts / 1000000000ULL),
			 (unsigned long long)(ts % 1000000000ULL / 1000));
	} else {
		snprintf(buf, n, "%llu", (unsigned long long)ts);
	}
}

static int cmp_types(const void *a, const void *b, void *arg)
{
	const struct type_stat *t = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (t[x].bytes != t[y].bytes)
		return t[x].bytes < t[y].bytes ? 1 : -1;
	return x - y;
}

static const char *type_name(struct info *inf, int id, char *buf, size_t n)
{
	struct tep_event *e = id < 65536 ? fmt_reader_event(inf->r, id) : NULL;

	if (e)
		snprintf(buf, n, "%s:%s", e->system, e->name);
	else
		snprintf(buf, n, "[unknown id %d]", id == 65536 ? -1 : id);
	return buf;
}

/* Sum every "CPU: N" CPUSTAT block's "key: value" for one key, per buffer name. */
/* The kernel's per-CPU ring-buffer statistics (CPUSTAT), one text line per CPU */
static void cpustat_lines(struct info *inf, FILE *out)
{
	const struct fmt_option *o;
	int i;

	for (i = 0; (o = fmt_reader_option(inf->r, FMT_OPT_CPUSTAT, i)); i++) {
		const char *t = o->data;
		size_t len = strnlen(t, o->size);
		char *copy = strndup(t, len), *line, *save = NULL;
		static char buffer[256];

		if (!copy)
			return;
		if (!strncmp(copy, "\nBuffer: ", 9)) {
			char *e = strchr(copy + 9, '\n');

			if (e)
				*e = 0;
			snprintf(buffer, sizeof(buffer), "%s", copy + 9);
			free(copy);
			continue;
		}
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':');
			char *val;

			if (!colon)
				continue;
			*colon = 0;
			val = colon + 1;
			while (*val == ' ')
				val++;
			if (!strcmp(line, "CPU"))
				fprintf(out, "  %s%sCPU %d:", buffer, buffer[0] ? " " : "",
					atoi(val));
			else if (!strcmp(line, "entries") || !strcmp(line, "overrun") ||
				 !strcmp(line, "commit overrun") ||
				 !strcmp(line, "dropped events") || !strcmp(line, "read events"))
				fprintf(out, " %s %s",
					!strcmp(line, "commit overrun") ? "commit-overrun" :
					!strcmp(line, "dropped events") ? "dropped" :
					!strcmp(line, "read events") ? "read" : line, val);
		}
		fputc('\n', out);
		free(copy);
	}
}

/* The same statistics as JSON objects, one per CPU: its buffer, "cpu", every field */
static void cpustat_json(struct info *inf, struct rpt_json *j)
{
	const struct fmt_option *o;
	char buffer[256] = "";
	int i;

	for (i = 0; (o = fmt_reader_option(inf->r, FMT_OPT_CPUSTAT, i)); i++) {
		char *copy = strndup(o->data, strnlen(o->data, o->size)), *line, *save = NULL;

		if (!copy)
			return;
		if (!strncmp(copy, "\nBuffer: ", 9)) {
			char *e = strchr(copy + 9, '\n');

			if (e)
				*e = 0;
			snprintf(buffer, sizeof(buffer), "%s", copy + 9);
			free(copy);
			continue;
		}
		rpt_json_obj(j);
		rpt_json_kstr(j, "buffer", buffer);
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':'), *val;

			if (!colon)
				continue;
			*colon = 0;
			for (val = colon + 1; *val == ' '; val++)
				;
			if (!strcmp(line, "CPU"))
				rpt_json_ki64(j, "cpu", atoi(val));
			else if (*val && strspn(val, "0123456789") == strlen(val)) {
				rpt_json_key(j, line);
				/* the kernel's figure as written */
				rpt_json_value(j, val, strlen(val));
			} else {
				rpt_json_kstr(j, line, val);
			}
		}
		rpt_json_obj_end(j);
		free(copy);
	}
}

/*
 * The recorder's bytes_read and bytes_written count the kernel's pages; the
 * BPF buffer's pages (RECSTATS bpf_pages) and what they take in the file
 * are added, so that a BPF-only recording does not read "0 B".
 */
static void bpf_bytes(const struct info *inf, const struct fmt_recstats *rs, uint64_t *rd,
		      uint64_t *wr)
{
	const struct fmt_info *in = inf->in;

	for (int b = 0; b < in->nbuffers; b++) {
		const struct fmt_buffer *buf = &in->buffers[b];

		if (!rpt_bpf_buffer(inf->r, buf->name))
			continue;
		if (rs->bpf_pages.has && rs->bpf_pages.v < UINT64_MAX / (buf->page_size + 1))
			*rd += rs->bpf_pages.v * buf->page_size;
		for (int i = 0; i < buf->ncpus; i++)
			*wr += buf->cpus[i].size;
	}
}

static void print_recorder(struct info *inf)
{
	const struct fmt_meta *m = fmt_reader_meta(inf->r);
	const struct fmt_recstats *rs = m ? &m->rs : NULL;
	char h1[32], h2[32];
	double u, sy, cu, cs, d;

	if (!rs || !rs->cpu_user_us.has || !rs->cpu_sys_us.has)
		return;
	u = (double)rs->cpu_user_us.v;
	sy = (double)rs->cpu_sys_us.v;
	cu = (double)rs->capture_user_us.v;
	cs = (double)rs->capture_sys_us.v;
	d = (double)rs->duration_ns.v;
	/*
	 * The CPU while recording belongs with the recording's duration; the
	 * process total adds setup and teardown (loading BPF, reading
	 * kallsyms, finishing the file), which can be far longer.
	 */
	if (rs->capture_user_us.has && rs->capture_sys_us.has) {
		printf("recorder:    %.3f s CPU while recording (user %.3f, sys %.3f)",
		       (cu + cs) / 1e6, cu / 1e6, cs / 1e6);
		if (rs->duration_ns.has)
			printf(" in %.2f s", d / 1e9);
		printf("\n             %.3f s CPU in total, setup and teardown included\n",
		       (u + sy) / 1e6);
	} else {
		printf("recorder:    %.3f s CPU (user %.3f, sys %.3f)", (u + sy) / 1e6, u / 1e6,
		       sy / 1e6);
		if (rs->duration_ns.has)
			printf(" in %.2f s", d / 1e9);
		printf("\n");
	}
	if (rs->bytes_read.has && rs->bytes_written.has) {
		uint64_t rd = rs->bytes_read.v, wr = rs->bytes_written.v;

		bpf_bytes(inf, rs, &rd, &wr);
		printf("             read %s of pages, wrote %s (%.1fx compression)\n",
		       human(rd, h1, sizeof(h1)), human(wr, h2, sizeof(h2)),
		       wr ? (double)rd / (double)wr : 0.0);
	}
	if (rs->wakeups.has && rs->max_buffer_fill_pct.has)
		printf("             %llu wakeups, kernel buffers at most %llu%% full\n",
		       (unsigned long long)rs->wakeups.v,
		       (unsigned long long)rs->max_buffer_fill_pct.v);
}

/*
 * One metadata line within 80 columns: "  text", continued on lines
 * indented by 4, broken after a comma or space where one is near enough,
 * else hard at the edge (a long path has neither).
 */
static void print_folded(const char *p, size_t len)
{
	const int width = 78;
	int indent = 2;

	while (len) {
		size_t room = (size_t)(width - indent), cut = len;

		if (len > room) {
			cut = room;
			while (cut > room / 2 && p[cut - 1] != ',' && p[cut - 1] != ' ')
				cut--;
			if (cut <= room / 2)
				cut = room;
		}
		printf("%*s%.*s\n", indent, "", (int)cut, p);
		p += cut;
		len -= cut;
		indent = 4;
	}
}

/* trace ID, TIME_SHIFT and GUEST options (host/guest tracing with trace-cmd -A) */
static void print_hostguest(const struct fmt_info *in)
{
	const struct fmt_time_shift *t = &in->time_shift;
	char line[256];
	int i, k;

	if (in->trace_id)
		printf("trace id:    0x%016llx\n", (unsigned long long)in->trace_id);
	if (t->present) {
		printf("time shift:  guest of host trace 0x%016llx, %s, %d CPU%s%s\n",
		       (unsigned long long)t->peer_id, t->flags & 1 ? "interpolated" : "stepwise",
		       t->ncpus, t->ncpus == 1 ? "" : "s",
		       t->has_fraction ? ", fraction bits" : "");
		for (i = 0; i < t->ncpus; i++) {
			const struct fmt_tsync_cpu *c = &t->cpus[i];

			if (!c->nsamples) {
				printf("             CPU %d: no samples (times left as recorded)\n",
				       i);
				continue;
			}
			snprintf(line, sizeof(line), "CPU %d: %d sample%s, offset %+lld ns", i,
				 c->nsamples, c->nsamples == 1 ? "" : "s",
				 (long long)c->samples[0].offset);
			if (c->nsamples > 1)
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 " .. %+lld ns",
					 (long long)c->samples[c->nsamples - 1].offset);
			if (c->nsamples > 1 &&
			    (c->samples[0].scaling != 1 || c->samples[0].fraction))
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 ", scaling %lld >> %lld", (long long)c->samples[0].scaling,
					 (long long)c->samples[0].fraction);
			print_folded(line, strlen(line));
		}
	}
	for (i = 0; i < in->nguests; i++) {
		const struct fmt_guest *g = &in->guests[i];
		size_t n;

		n = (size_t)snprintf(line, sizeof(line), "guest %s, trace 0x%016llx, %d vCPU%s:",
				     g->name, (unsigned long long)g->trace_id, g->nvcpus,
				     g->nvcpus == 1 ? "" : "s");
		for (k = 0; k < g->nvcpus && n < sizeof(line); k++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %d=pid %d%s", k,
					      g->vcpu_pid[k], k + 1 < g->nvcpus ? "," : "");
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		if (!i)
			printf("guests:      %d\n", in->nguests);
		print_folded(line, n);
	}
}

/*
 * The key=value text of a slice: shown whole but for the records
 * a slice keeps for the analyzers (state at its cuts), which are counted.
 */
static bool share_record_key(const char *p, size_t n)
{
	return (n > 9 && !memcmp(p, "prologue=", 9)) || (n > 9 && !memcmp(p, "epilogue=", 9)) ||
	       (n > 9 && !memcmp(p, "cpu_task=", 9));
}

static void share_kv_text(struct info *inf, uint16_t id, const char *title)
{
	const struct fmt_option *o = fmt_reader_option(inf->r, id, 0);
	const char *p, *end;
	unsigned long records = 0;

	if (!o)
		return;
	printf("\n%s\n", title);
	p = o->data;
	end = p + strnlen(o->data, o->size);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			nl = end;
		if (share_record_key(p, (size_t)(nl - p)))
			records++;
		else if (nl > p)
			print_folded(p, nl - p);
		p = nl + 1;
	}
	if (records)
		printf("  (%lu records of the state at the cuts, for the analyzers)\n", records);
}

static void share_kv_json(struct info *inf, uint16_t id, struct rpt_json *j)
{
	const struct fmt_option *o = fmt_reader_option(inf->r, id, 0);
	const char *p, *end;

	if (!o) {
		rpt_json_null(j);
		return;
	}
	rpt_json_obj(j);
	p = o->data;
	end = p + strnlen(o->data, o->size);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eq;

		if (!nl)
			nl = end;
		eq = memchr(p, '=', nl - p);
		if (eq && !share_record_key(p, (size_t)(nl - p))) {
			rpt_json_keyn(j, p, (size_t)(eq - p));
			rpt_json_strn(j, eq + 1, (size_t)(nl - eq - 1));
		}
		p = nl + 1;
	}
	rpt_json_obj_end(j);
}

/* Whether --from/--to read a stored index or search the chunks (fmt_iter_opts.seek). */
static const char *tindex_state(struct info *inf, uint64_t *chunks)
{
	int st = fmt_reader_tindex_status(inf->r, chunks);

	return st > 0 ? "stored" : st == -EBADMSG ? "malformed" : "none";
}

static void print_tindex(struct info *inf)
{
	uint64_t chunks = 0;
	const char *st = tindex_state(inf, &chunks);

	if (!strcmp(st, "stored")) {
		int fcpus = 0, fst = fmt_reader_facts_status(inf->r, &fcpus);
		int scpus = 0, sst = fmt_reader_state_status(inf->r, &scpus);

		printf("time index:  stored, %llu chunk%s%s%s\n", (unsigned long long)chunks,
		       chunks == 1 ? "" : "s", fst == 1 && fcpus ? ", with their facts" :
		       fst == -EBADMSG ? ", facts malformed" : "",
		       sst == 1 && scpus ? " and state records" :
		       sst == -EBADMSG ? ", state records malformed" : "");
	}
	else
		printf("time index:  %s (--from searches the pages)\n",
		       !strcmp(st, "none") ? "none" : "malformed, ignored");
}

/* The file and how it was written: size, format, kernel, writer, clock and CPUs. */
static void text_header(const struct fmt_info *in, const char *path)
{
	char b1[64];

	printf("file:        %s (%s)\n", path, human(in->file_size, b1, sizeof(b1)));
	printf("format:      v%d, %s%s%s, %s-endian, %d-byte longs, %u-byte pages\n",
	       in->version, in->compression, in->compression_version[0] ? " " : "",
	       in->compression_version, in->big_endian ? "big" : "little", in->kernel_long,
	       in->page_size);
	printf("kernel:      %s\n", in->uname[0] ? in->uname : "(not recorded)");
	if (in->tracecmd_version[0])
		printf("written by:  %s\n", in->tracecmd_version);
	printf("clock:       %s%s\n", in->clock[0] ? in->clock : "(not recorded)",
	       in->clock_in_usecs ? "" : " (raw counter: timestamps are not ns)");
	if (in->has_date || in->ts_offset_ns)
		printf("offsets:     date %+lld ns, offset %+lld ns\n",
		       (long long)in->date_offset_ns, (long long)in->ts_offset_ns);
	printf("cpus:        %d\n", in->cpus);
}

/*
 * trace-cmd 3.4's sections: the recording host's BTF (BTF_FILE) and loaded
 * modules (MODULES_FILE), and a persistent buffer's last_boot_info text.
 * trace-cmd.dat.v7(5) puts a u64 size before a section's data, trace-cmd
 * 3.4's writer only the data: a size that counts exactly the rest is taken
 * as the document's, anything else as all data.
 */
struct tc34 {
	int btf, modules;		/* 0: absent, 1: read, -1: damaged */
	uint64_t btf_size, modules_size;
	int nmodules;
	char first_module[64];
	const char *boot;		/* LAST_BOOT_INFO payload, not NUL-terminated */
	size_t boot_len;
};

static uint64_t get64(bool be, const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;
	int k;

	for (k = 0; k < 8; k++)
		v |= (uint64_t)b[be ? 7 - k : k] << (8 * k);
	return v;
}

static int tc34_section(struct info *inf, uint16_t id, uint64_t *size, char **text)
{
	const struct fmt_option *o = fmt_reader_option(inf->r, id, 0);
	void *data = NULL;
	size_t len = 0;
	uint64_t off, n;

	*size = 0;
	if (!o)
		return 0;
	if (o->size < 8 || inf->in->version < 7)
		return -1;
	off = get64(inf->in->big_endian, o->data);
	if (!off || fmt_reader_section(inf->r, off, id, &data, &len))
		return -1;
	n = len;
	if (len >= 8 && get64(inf->in->big_endian, data) == len - 8) {
		n = len - 8;
		memmove(data, (char *)data + 8, n);
	}
	*size = n;
	if (text && !(*text = strndup((const char *)data, (size_t)n))) {
		free(data);
		return -1;
	}
	free(data);
	return 1;
}

static void tc34_read(struct info *inf, struct tc34 *t)
{
	const struct fmt_option *o = fmt_reader_option(inf->r, FMT_OPT_LAST_BOOT_INFO, 0);
	char *mods = NULL, *p;

	memset(t, 0, sizeof(*t));
	t->btf = tc34_section(inf, FMT_OPT_BTF_FILE, &t->btf_size, NULL);
	t->modules = tc34_section(inf, FMT_OPT_MODULES_FILE, &t->modules_size, &mods);
	if (t->modules == 1 && mods) {
		/* /proc/modules: one module a line, its name first */
		for (p = mods; *p; ) {
			char *nl = strchr(p, '\n');
			size_t w = strcspn(p, " \n");

			if (w && !t->nmodules)
				snprintf(t->first_module, sizeof(t->first_module), "%.*s", (int)w, p);
			if (w)
				t->nmodules++;
			if (!nl)
				break;
			p = nl + 1;
		}
	}
	free(mods);
	if (o) {
		t->boot = o->data;
		t->boot_len = strnlen(o->data, o->size);
	}
}

static void text_tc34(struct info *inf)
{
	struct tc34 t;
	char b[64];

	tc34_read(inf, &t);
	if (t.btf)
		printf("btf:         %s\n", t.btf < 0 ? "BTF_FILE option points at no BTF section" :
		       human(t.btf_size, b, sizeof(b)));
	if (t.modules < 0)
		printf("modules:     MODULES_FILE option points at no modules section\n");
	else if (t.modules)
		printf("modules:     %d loaded%s%s%s\n", t.nmodules, t.nmodules ? " (" : "",
		       t.first_module, t.nmodules > 1 ? ", ...)" : t.nmodules ? ")" : "");
	if (t.boot) {
		const char *colon = memchr(t.boot, ':', t.boot_len);
		size_t nl;

		if (!colon) {
			printf("last boot:   %.*s (no instance name)\n", (int)t.boot_len, t.boot);
		} else {
			nl = strcspn(colon + 1, "\n");
			if (nl > t.boot_len - (size_t)(colon + 1 - t.boot))
				nl = t.boot_len - (size_t)(colon + 1 - t.boot);
			printf("last boot:   instance \"%.*s\": %.*s\n", (int)(colon - t.boot), t.boot,
			       (int)nl, colon + 1);
		}
	}
}

static void json_tc34(struct info *inf, struct rpt_json *j)
{
	struct tc34 t;

	tc34_read(inf, &t);
	if (t.btf > 0)
		rpt_json_ku64(j, "btf_size", t.btf_size);
	else if (t.btf)
		rpt_json_kstr(j, "btf_size", "damaged");
	else
		rpt_json_knull(j, "btf_size");
	if (t.modules > 0)
		rpt_json_ki64(j, "modules", t.nmodules);
	else if (t.modules)
		rpt_json_kstr(j, "modules", "damaged");
	else
		rpt_json_knull(j, "modules");
	rpt_json_key(j, "last_boot_info");
	if (t.boot)
		rpt_json_strn(j, t.boot, t.boot_len);
	else
		rpt_json_null(j);
}

/* A latency tracer's text in place of events */
static void text_latency(const struct fmt_info *in)
{
	char b1[64];

	if (!in->latency.present)
		return;
	printf("latency:     text of a latency tracer, %s%s",
	       human(in->latency.size, b1, sizeof(b1)),
	       in->latency.compressed ? "" : " (to the end of the file)");
	if (in->latency.compressed)
		printf(" in %u %s chunk%s", in->latency.nchunks, in->compression,
		       in->latency.nchunks == 1 ? "" : "s");
	printf("\n");
	if (in->latency.clock_skipped)
		printf("             its first %llu bytes are read as a clock block "
		       "(TRACECLOCK option)\n", (unsigned long long)in->latency.clock_skipped);
	printf("             no events: `flytrap report` prints the text\n");
}

/* One line per ring buffer: its CPUs with data and their size in the file */
static void text_buffers(const struct fmt_info *in)
{
	char b1[64];

	for (int b = 0; b < in->nbuffers; b++) {
		const struct fmt_buffer *buf = &in->buffers[b];
		uint64_t sz = 0;
		int withdata = 0;

		for (int i = 0; i < buf->ncpus; i++) {
			sz += buf->cpus[i].size;
			withdata += buf->cpus[i].size > 0;
		}
		printf("%s \"%s\"%s: %d CPU%s with data, %s%s%s\n",
		       b ? "            " : "buffers:    ", buf->name, buf->name[0] ? "" : " (top)",
		       withdata, withdata == 1 ? "" : "s", human(sz, b1, sizeof(b1)),
		       buf->compressed ? " compressed" : "",
		       buf->cpu_ids_guessed ? " (rebuilt: CPU ids guessed)" :
		       buf->recovered ? " (rebuilt)" : "");
	}
}

/* The time span the scan saw (when it saw events) and how many events it read */
static void text_events(struct info *inf)
{
	const struct fmt_info *in = inf->in;
	char b1[64], b2[64];

	if (inf->nevents) {
		ts_text(in, inf->first_ts, b1, sizeof(b1));
		ts_text(in, inf->last_ts, b2, sizeof(b2));
		if (in->clock_in_usecs)
			printf("time span:   %s .. %s (%.6f s)\n", b1, b2,
			       (inf->last_ts - inf->first_ts) / 1e9);
		else
			printf("time span:   %s .. %s (%llu clock ticks)\n", b1, b2,
			       (unsigned long long)(inf->last_ts - inf->first_ts));
	}
	printf("events:      %llu (%s in records)\n", (unsigned long long)inf->nevents,
	       human(inf->bytes, b1, sizeof(b1)));
}

/* The scan's page marks and the file's counters as the one loss figure */
static int fill_fig(struct info *inf)
{
	struct rpt_loss_marks *m = calloc(inf->ncpus ? (size_t)inf->ncpus : 1, sizeof(*m));
	int i, err;

	if (!m)
		return -ENOMEM;
	for (i = 0; i < inf->ncpus; i++)
		m[i] = (struct rpt_loss_marks){ inf->cpus[i].buffer, inf->cpus[i].cpu,
						inf->cpus[i].lost_known };
	err = rpt_loss_fig_fill(inf->r, inf->in, m, (size_t)inf->ncpus, true, 0, UINT64_MAX,
				NULL, &inf->fig);
	free(m);
	return err;
}

/*
 * The one loss figure by source, then the pages with a loss flag, one line
 * per CPU that has some
 */
static void text_losses(struct info *inf)
{
	const struct fmt_info *in = inf->in;
	uint64_t lost_pages = 0, lost_unknown = 0;
	char fb[160];
	int i;

	for (i = 0; i < inf->ncpus; i++) {
		lost_pages += inf->cpus[i].lost_pages;
		lost_unknown += inf->cpus[i].lost_unknown_pages;
	}
	if (!lost_pages && !inf->fig.total) {
		printf("lost:        no page carries a loss flag\n");
		return;
	}
	printf("lost:        %s%s\n", rpt_loss_fig_text(&inf->fig, fb, sizeof(fb)),
	       lost_unknown ? " (some counts unknown)" : "");
	if (lost_pages)
		printf("             marked on %llu page%s:\n", (unsigned long long)lost_pages,
		       lost_pages == 1 ? "" : "s");
	for (i = 0; i < inf->ncpus; i++) {
		struct cpu_stat *c = &inf->cpus[i];

		if (!c->lost_pages)
			continue;
		printf("             %s%sCPU %d: %llu event%s on %llu page%s%s\n",
		       in->buffers[c->buffer].name, in->buffers[c->buffer].name[0] ? " " : "",
		       c->cpu, (unsigned long long)c->lost_known, c->lost_known == 1 ? "" : "s",
		       (unsigned long long)c->lost_pages, c->lost_pages == 1 ? "" : "s",
		       c->lost_unknown_pages ? " (some counts unknown)" : "");
	}
}

/* What could not be read: refused formats, a cut file, damaged CPU streams */
static void text_damage(struct info *inf)
{
	const struct fmt_info *in = inf->in;

	if (in->nbad_formats)
		printf("formats:     %d refused as unsafe or unparsable\n", in->nbad_formats);
	if (in->truncated_at)
		printf("damage:      file truncated at byte %llu\n",
		       (unsigned long long)in->truncated_at);
	if (inf->stream_errors)
		printf("damage:      %d CPU stream(s) unreadable: %s\n", inf->stream_errors,
		       inf->first_error ? inf->first_error : "");
}

/* The table of event types, largest share of the record bytes first */
static void text_types(struct info *inf)
{
	char b1[64], name[256];
	int *order, n = 0, i;

	order = inf->nevents ? malloc(65537 * sizeof(int)) : NULL;
	if (!order)
		return;
	for (i = 0; i <= 65536; i++)
		if (inf->types[i].count)
			order[n++] = i;
	qsort_r(order, n, sizeof(int), cmp_types, inf->types);
	printf("\n%-42s %12s %12s %7s\n", "event type", "count", "bytes", "share");
	for (i = 0; i < n; i++) {
		struct type_stat *t = &inf->types[order[i]];

		printf("%-42.42s %12llu %12s %6.1f%%\n",
		       type_name(inf, order[i], name, sizeof(name)), (unsigned long long)t->count,
		       human(t->bytes, b1, sizeof(b1)),
		       inf->bytes ? 100.0 * t->bytes / inf->bytes : 0.0);
	}
	free(order);
}

static void text_cpustats(struct info *inf)
{
	if (!fmt_reader_option(inf->r, FMT_OPT_CPUSTAT, 0))
		return;
	printf("\nkernel CPU stats at the end of the recording:\n");
	cpustat_lines(inf, stdout);
}

/* the recorder's two META options (start, end) read as one list */
/* ---- record --bpf-object: the objects the file was recorded with -------------------- */

static bool info_swap(const struct info *inf)
{
	return inf->in->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* Every object and map option readable?  0, or -EBADMSG with *why. */
static int objects_check(struct info *inf, const char **why)
{
	const struct fmt_option *o;
	struct fmt_bpfobj ob;
	struct fmt_bpfmap m;
	int k, err = 0;

	for (k = 0; !err && (o = fmt_reader_option(inf->r, FMT_OPT_FT_BPFOBJ, k)); k++)
		err = fmt_bpfobj_parse(o->data, o->size, info_swap(inf), &ob, why);
	for (k = 0; !err && (o = fmt_reader_option(inf->r, FMT_OPT_FT_BPFMAP, k)); k++)
		err = fmt_bpfmap_parse(o->data, o->size, info_swap(inf), &m, why);
	return err;
}

/* "prog=", "map=", "event=" values of an object, each through fn */
static void object_lines(const struct fmt_bpfobj *ob, const char *key,
			 void (*fn)(void *arg, const char *v, size_t n), void *arg)
{
	size_t pos = 0, vl;
	const char *v;

	while ((v = fmt_bpfobj_get(ob, key, pos, &vl, &pos)))
		fn(arg, v, vl);
}

static void text_line(void *arg, const char *v, size_t n)
{
	printf("    %s %.*s\n", (const char *)arg, (int)n, v);
}

static void text_objects(struct info *inf)
{
	const struct fmt_option *o;
	struct fmt_bpfobj ob;
	int k;

	for (k = 0; (o = fmt_reader_option(inf->r, FMT_OPT_FT_BPFOBJ, k)); k++) {
		const char *name, *sha, *path;
		size_t nl = 0, sl = 0, pl = 0;

		if (fmt_bpfobj_parse(o->data, o->size, info_swap(inf), &ob, NULL))
			continue;
		if (!k)
			printf("\nBPF objects (record --bpf-object):\n");
		name = fmt_bpfobj_get(&ob, "name", 0, &nl, NULL);
		sha = fmt_bpfobj_get(&ob, "sha256", 0, &sl, NULL);
		path = fmt_bpfobj_get(&ob, "path", 0, &pl, NULL);
		printf("  %.*s  sha256 %.*s  %.*s  (BTF: %u types)\n", (int)nl, name ? name : "",
		       (int)sl, sha ? sha : "?", (int)pl, path ? path : "", ob.btf_types);
		object_lines(&ob, "prog", text_line, "program");
		object_lines(&ob, "map", text_line, "map");
		object_lines(&ob, "event", text_line, "events of");
		object_lines(&ob, "set", text_line, "set");
	}
}

static void json_line(void *arg, const char *v, size_t n)
{
	rpt_json_strn(arg, v, n);
}

static void json_objects(struct info *inf, struct rpt_json *j)
{
	static const char *const keys[] = { "prog", "map", "event", "set" };
	static const char *const arrs[] = { "programs", "maps", "events", "sets" };
	const struct fmt_option *o;
	struct fmt_bpfobj ob;
	int k, i;

	rpt_json_karr(j, "bpf_objects");
	for (k = 0; (o = fmt_reader_option(inf->r, FMT_OPT_FT_BPFOBJ, k)); k++) {
		static const char *const one[] = { "name", "path", "sha256", "size" };
		const char *v;
		size_t vl;

		if (fmt_bpfobj_parse(o->data, o->size, info_swap(inf), &ob, NULL))
			continue;
		rpt_json_obj(j);
		for (i = 0; i < 4; i++) {
			rpt_json_key(j, one[i]);
			v = fmt_bpfobj_get(&ob, one[i], 0, &vl, NULL);
			if (v)
				rpt_json_strn(j, v, vl);
			else
				rpt_json_null(j);
		}
		rpt_json_ku64(j, "btf_types", ob.btf_types);
		for (i = 0; i < 4; i++) {
			rpt_json_karr(j, arrs[i]);
			object_lines(&ob, keys[i], json_line, j);
			rpt_json_arr_end(j);
		}
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

static void text_metadata(const struct fmt_meta *m)
{
	if (m && m->present)
		printf("\nflytrap metadata:\n");
	for (size_t k = 0; m && k < m->all.n; k++)
		print_folded(m->all.kv[k].line, strlen(m->all.kv[k].line));
}

static void print_text(struct info *inf, const char *path)
{
	text_header(inf->in, path);
	print_hostguest(inf->in);
	text_tc34(inf);
	text_latency(inf->in);
	text_buffers(inf->in);
	print_tindex(inf);
	text_events(inf);
	text_losses(inf);
	print_recorder(inf);
	text_damage(inf);
	text_types(inf);
	text_cpustats(inf);
	share_kv_text(inf, FMT_OPT_FT_SLICE, "this file is a slice (flytrap slice):");
	share_kv_text(inf, FMT_OPT_FT_MERGE, "this file is a merge (flytrap merge):");
	text_objects(inf);
	text_metadata(fmt_reader_meta(inf->r));
}

/* flytrap's "key=value" lines as a JSON object of strings, null without the option */
static void json_kv_list(struct rpt_json *j, bool present, const struct fmt_kvlist *l)
{
	if (!present) {
		rpt_json_null(j);
		return;
	}
	rpt_json_obj(j);
	for (size_t n = 0; n < l->n; n++)
		if (l->kv[n].val)
			rpt_json_kstr(j, l->kv[n].key, l->kv[n].val);
	rpt_json_obj_end(j);
}

/* The members from "file" to "time_index": the file, how it was written, its clock and CPUs */
static void json_header(struct info *inf, const char *path, struct rpt_json *j)
{
	const struct fmt_info *in = inf->in;
	uint64_t tix_chunks = 0;
	const char *tix;

	rpt_json_kstr(j, "file", path);
	rpt_json_ku64(j, "file_size", in->file_size);
	rpt_json_ki64(j, "version", in->version);
	rpt_json_kstr(j, "compression", in->compression);
	rpt_json_kstr(j, "compression_version", in->compression_version);
	rpt_json_kbool(j, "big_endian", in->big_endian);
	rpt_json_ki64(j, "long_size", in->long_size);
	rpt_json_ki64(j, "kernel_long", in->kernel_long);
	rpt_json_ku64(j, "page_size", in->page_size);
	rpt_json_kstr(j, "uname", in->uname);
	rpt_json_kstr(j, "writer", in->tracecmd_version);
	rpt_json_kstr(j, "clock", in->clock);
	rpt_json_kbool(j, "clock_in_ns", in->clock_in_usecs);
	rpt_json_ki64(j, "date_offset_ns", in->date_offset_ns);
	rpt_json_ki64(j, "ts_offset_ns", in->ts_offset_ns);
	rpt_json_ki64(j, "cpus", in->cpus);
	tix = tindex_state(inf, &tix_chunks);
	rpt_json_ku64(j, "trace_id", in->trace_id);
	rpt_json_kobj(j, "time_index");
	rpt_json_kstr(j, "status", tix);
	rpt_json_ku64(j, "chunks", tix_chunks);
	{
		int fcpus = 0, fst = fmt_reader_facts_status(inf->r, &fcpus);

		/* what a window's reader knows of the chunks it skips (FMT_SEC_FT_FACTS) */
		rpt_json_kstr(j, "facts", fst == 1 ? "stored" : fst == -EBADMSG ? "malformed" : "none");
		rpt_json_ki64(j, "facts_cpus", fcpus);
		/* and the state that analyzers such as overhead carry over them (FMT_SEC_FT_STATE) */
		fst = fmt_reader_state_status(inf->r, &fcpus);
		rpt_json_kstr(j, "state", fst == 1 ? "stored" : fst == -EBADMSG ? "malformed" : "none");
		rpt_json_ki64(j, "state_cpus", fcpus);
	}
	rpt_json_obj_end(j);
}

static void json_latency(const struct fmt_info *in, struct rpt_json *j)
{
	if (!in->latency.present) {
		rpt_json_knull(j, "latency");
		return;
	}
	rpt_json_kobj(j, "latency");
	rpt_json_ku64(j, "size", in->latency.size);
	rpt_json_kbool(j, "compressed", in->latency.compressed);
	rpt_json_ku64(j, "chunks", in->latency.nchunks);
	rpt_json_ku64(j, "offset", in->latency.offset);
	rpt_json_ku64(j, "section_size", in->latency.section_size);
	rpt_json_ku64(j, "clock_skipped", in->latency.clock_skipped);
	rpt_json_obj_end(j);
}

/* A guest's TIME_SHIFT option: its host, and every sample of every CPU */
static void json_time_shift(const struct fmt_info *in, struct rpt_json *j)
{
	const struct fmt_time_shift *t = &in->time_shift;

	if (!t->present) {
		rpt_json_knull(j, "time_shift");
		return;
	}
	rpt_json_kobj(j, "time_shift");
	rpt_json_ku64(j, "peer_trace_id", t->peer_id);
	rpt_json_ku64(j, "flags", t->flags);
	rpt_json_kbool(j, "fraction", t->has_fraction);
	rpt_json_karr(j, "cpus");
	for (int i = 0; i < t->ncpus; i++) {
		rpt_json_arr(j);
		for (int k = 0; k < t->cpus[i].nsamples; k++) {
			const struct fmt_tsync_sample *sm = &t->cpus[i].samples[k];

			rpt_json_obj(j);
			rpt_json_ki64(j, "time", sm->time);
			rpt_json_ki64(j, "offset", sm->offset);
			rpt_json_ki64(j, "scaling", sm->scaling);
			rpt_json_ki64(j, "fraction", sm->fraction);
			rpt_json_obj_end(j);
		}
		rpt_json_arr_end(j);
	}
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

/* A host's GUEST options: each guest's name, trace id and the pid behind each vCPU */
static void json_guests(const struct fmt_info *in, struct rpt_json *j)
{
	rpt_json_karr(j, "guests");
	for (int i = 0; i < in->nguests; i++) {
		const struct fmt_guest *g = &in->guests[i];

		rpt_json_obj(j);
		rpt_json_kstr(j, "name", g->name);
		rpt_json_ku64(j, "trace_id", g->trace_id);
		rpt_json_karr(j, "vcpu_pids");
		for (int k = 0; k < g->nvcpus; k++)
			rpt_json_i64(j, g->vcpu_pid[k]);
		rpt_json_arr_end(j);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

/* The ring buffers as the file lays them out: where each CPU's data is and its size */
static void json_buffers(const struct fmt_info *in, struct rpt_json *j)
{
	rpt_json_karr(j, "buffers");
	for (int b = 0; b < in->nbuffers; b++) {
		const struct fmt_buffer *buf = &in->buffers[b];

		rpt_json_obj(j);
		rpt_json_kstr(j, "name", buf->name);
		rpt_json_kstr(j, "clock", buf->clock ? buf->clock : "");
		rpt_json_ku64(j, "page_size", buf->page_size);
		rpt_json_kbool(j, "compressed", buf->compressed);
		rpt_json_kbool(j, "recovered", buf->recovered);
		rpt_json_kbool(j, "cpu_ids_guessed", buf->cpu_ids_guessed);
		rpt_json_karr(j, "cpus");
		for (int i = 0; i < buf->ncpus; i++) {
			rpt_json_obj(j);
			rpt_json_ki64(j, "cpu", buf->cpus[i].cpu);
			rpt_json_ku64(j, "offset", buf->cpus[i].offset);
			rpt_json_ku64(j, "size", buf->cpus[i].size);
			rpt_json_kbool(j, "truncated", buf->cpus[i].truncated);
			rpt_json_obj_end(j);
		}
		rpt_json_arr_end(j);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

/* What the scan counted: events and bytes, their time span, and each event type (by id) */
static void json_events(struct info *inf, struct rpt_json *j)
{
	char name[256];
	int i;

	rpt_json_ku64(j, "events", inf->nevents);
	rpt_json_ku64(j, "event_bytes", inf->bytes);
	if (inf->nevents) {
		rpt_json_ku64(j, "first_ts", inf->first_ts);
		rpt_json_ku64(j, "last_ts", inf->last_ts);
	} else {
		rpt_json_knull(j, "first_ts");
		rpt_json_knull(j, "last_ts");
	}
	rpt_json_karr(j, "types");
	for (i = 0; i <= 65536; i++) {
		if (!inf->types[i].count)
			continue;
		rpt_json_obj(j);
		rpt_json_ki64(j, "id", i == 65536 ? -1 : i);
		rpt_json_kstr(j, "name", type_name(inf, i, name, sizeof(name)));
		rpt_json_ku64(j, "count", inf->types[i].count);
		rpt_json_ku64(j, "bytes", inf->types[i].bytes);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

/* The scan's figures per (buffer, CPU) stream, losses included */
static void json_per_cpu(struct info *inf, struct rpt_json *j)
{
	rpt_json_karr(j, "per_cpu");
	for (int i = 0; i < inf->ncpus; i++) {
		struct cpu_stat *c = &inf->cpus[i];

		rpt_json_obj(j);
		rpt_json_kstr(j, "buffer", inf->in->buffers[c->buffer].name);
		rpt_json_ki64(j, "cpu", c->cpu);
		rpt_json_ku64(j, "events", c->events);
		rpt_json_ku64(j, "bytes", c->bytes);
		rpt_json_ku64(j, "first_ts", c->first_ts);
		rpt_json_ku64(j, "last_ts", c->last_ts);
		rpt_json_ku64(j, "lost_pages", c->lost_pages);
		rpt_json_ku64(j, "lost_events", c->lost_known);
		rpt_json_ku64(j, "lost_unknown_pages", c->lost_unknown_pages);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
}

static int print_json(struct info *inf, const char *path)
{
	const struct fmt_info *in = inf->in;
	const struct fmt_meta *m = fmt_reader_meta(inf->r);
	struct rpt_json j;

	if (rpt_json_init(&j, stdout, 0))
		return -ENOMEM;
	rpt_json_obj(&j);
	json_header(inf, path, &j);
	json_latency(in, &j);
	json_tc34(inf, &j);
	json_time_shift(in, &j);
	json_guests(in, &j);
	json_buffers(in, &j);
	json_events(inf, &j);
	json_per_cpu(inf, &j);
	rpt_json_karr(&j, "cpustats");
	cpustat_json(inf, &j);
	rpt_json_arr_end(&j);
	rpt_json_ki64(&j, "bad_formats", in->nbad_formats);
	rpt_json_ku64(&j, "truncated_at", in->truncated_at);
	rpt_json_ki64(&j, "stream_errors", inf->stream_errors);
	rpt_json_key(&j, "lost");
	rpt_loss_fig_json(&inf->fig, &j);
	rpt_json_key(&j, "flytrap");
	json_kv_list(&j, m && m->present, m ? &m->all : NULL);
	rpt_json_key(&j, "recorder");
	json_kv_list(&j, m && m->rs.present, m ? &m->rs.all : NULL);
	rpt_json_key(&j, "slice");
	share_kv_json(inf, FMT_OPT_FT_SLICE, &j);
	rpt_json_key(&j, "merge");
	share_kv_json(inf, FMT_OPT_FT_MERGE, &j);
	json_objects(inf, &j);
	rpt_json_obj_end(&j);
	RPT_JSON_LIT(&j, "\n");
	/* a failed write stays on stdout (ft_finish_stdout says it) */
	return rpt_json_done(&j) == -ENOMEM ? -ENOMEM : 0;
}

static const char usage_text[] =
	"usage: flytrap info [options] [FILE]\n"
	"\n"
	"What is in a trace.dat (default ./trace.dat): format, kernel, clock, buffers,\n"
	"CPUs, time span, events and bytes per event type, losses, the kernel's CPU\n"
	"stats and flytrap's own metadata.\n"
	"\n"
	"  -i FILE        input file (same as the FILE argument)\n"
	"      --json     one JSON object instead of text\n"
	"  -v, --verbose  more messages on stderr\n"
	"  -h, --help     this help\n";

int cmd_info(int argc, char **argv)
{
	static const struct ft_opt opts[] = {
		{ NULL, 'i', true, 'i' }, { "json", 0, false, 'j' }, FT_OPT_HELP_ENTRY,
		{ "verbose", 'v', false, FT_OPT_ID_VERBOSE }, { 0 },
	};
	static const char *const help[] = { usage_text, NULL };
	struct info inf = { 0 };
	struct ft_optparse p;
	const char *path = NULL;
	char *err_text = NULL;
	bool json = false;
	const char *why = NULL;
	int c, err, rc = EXIT_OK;

	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		switch (c) {
		case 'i':
		case FT_OPT_OPERAND:
			if (path)
				return ft_usage_error("more than one input file given");
			path = p.value;
			break;
		case 'j':
			json = true;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (!path)
		path = "trace.dat";
	err = fmt_reader_open(path, FMT_OPEN_LAZY_FORMATS, &inf.r, &err_text);
	if (err) {
		ft_error("%s", err_text ? err_text : strerror(-err));
		free(err_text);
		return EXIT_FAIL;
	}
	inf.in = fmt_reader_info(inf.r);
	inf.types = calloc(65537, sizeof(*inf.types));
	if (!inf.types) {
		rc = ft_error("out of memory");
		goto out;
	}
	err = scan(&inf);
	if (!err && fill_fig(&inf)) {
		rc = ft_error("out of memory");
		goto out;
	}
	if (err) {
		rc = ft_error("'%s': %s", path, fmt_reader_error(inf.r));
		goto out;
	}
	if (objects_check(&inf, &why)) {
		rc = ft_error("'%s': damaged --bpf-object data: %s", path, why ? why : "unreadable");
		goto out;
	}
	if (!json)
		print_text(&inf, path);
	else if (print_json(&inf, path))
		rc = ft_error("out of memory");
	/* the figures above cover only the readable part: say why the exit fails, once */
	if (inf.stream_errors)
		rc = ft_error("'%s': %s%s", path,
			      inf.first_error ? inf.first_error : "damaged event data",
			      inf.stream_errors > 1 ?
				      " (the first of several damaged CPU streams)" : "");
	else if (inf.in->truncated_at)
		rc = ft_error("'%s': the file is truncated (it stops at byte offset %llu); "
			      "the figures cover what it held up to there", path,
			      (unsigned long long)inf.in->truncated_at);
out:
	free(inf.types);
	free(inf.cpus);
	free(inf.first_error);
	fmt_reader_close(inf.r);
	return ft_finish_stdout(rc);
}
