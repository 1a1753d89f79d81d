// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last boot's trace.  Linux 6.12 can keep a tracefs instance in memory
 * reserved at boot (reserve_mem=SIZE:ALIGN:LABEL trace_instance=NAME@LABEL);
 * after a warm reboot that instance still holds the previous boot's events,
 * and its last_boot_info file says where that kernel's text was.
 *
 *   flytrap recover --last-boot -o FILE   the previous boot's buffer as a
 *                                         trace.dat v7 (cmd_recover_last_boot)
 *   flytrap lastboot cmdline|arm|disarm   the kernel parameters, and events
 *                                         on in the instance for this boot
 *
 * Nothing here is a recorder: the instance is the kernel's, made at boot,
 * and recover only reads it (reading trace_pipe_raw consumes the pages,
 * as trace-cmd extract does).  Event formats, kallsyms and printk formats
 * are this boot's: the same kernel image keeps the event IDs of its
 * built-in events, and kernel addresses are moved to the previous boot's
 * text by the difference last_boot_info gives, so every reader (trace-cmd
 * of any version included) names functions as the previous kernel had them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "lastboot.h"
#include "record.h"

#define LB_DEFAULT_NAME "flytrap_boot"
/* x86-64 links the kernel at this address; KASLR adds its offset to it */
#define X86_64_START_KERNEL 0xffffffff81000000ULL

/* ---- finding the instance and reading what it says ------------------------ */

static char *instances_dir(void)
{
	const char *top = tracefs_tracing_dir();
	char *d = NULL;

	if (!top || asprintf(&d, "%s/instances", top) < 0)
		return NULL;
	return d;
}

int rec_lastboot_list(char ***names)
{
	char *dir = instances_dir(), path[4096];
	struct dirent **de = NULL;
	int n, i, k = 0;

	*names = NULL;
	if (!dir)
		return -ENODEV;
	n = scandir(dir, &de, NULL, alphasort);
	if (n < 0) {
		n = -errno;
		free(dir);
		return n;
	}
	*names = calloc((size_t)n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/last_boot_info", dir, de[i]->d_name);
		if (*names && de[i]->d_name[0] != '.' && !access(path, F_OK))
			(*names)[k++] = strdup(de[i]->d_name);
		free(de[i]);
	}
	free(de);
	free(dir);
	return *names ? k : -ENOMEM;
}

void rec_lastboot_list_free(char **names)
{
	for (int i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/*
 * last_boot_info as Linux writes it: 6.12 "text delta:\tN\ndata delta:\tN"
 * (this boot's text less the previous one's); later kernels "ADDR\t[kernel]"
 * and "ADDR\tMODULE" lines for the previous boot, or "# Current" once the
 * buffer holds this boot's events.
 */
int rec_lastboot_parse(const char *text, struct rec_lastboot *lb)
{
	const char *p = text;

	memset(lb, 0, sizeof(*lb));
	if (!text)
		return -EINVAL;
	if (strstr(text, "# Current")) {
		lb->current = true;
		return 0;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[256], name[64];
		unsigned long long v;
		long long d;

		snprintf(line, sizeof(line), "%.*s", (int)(len < 255 ? len : 255), p);
		if (sscanf(line, "text delta: %lld", &d) == 1) {
			lb->text_delta = d;
			lb->have_delta = true;
		} else if (sscanf(line, "data delta: %lld", &d) == 1) {
			lb->data_delta = d;
			lb->have_data_delta = true;
		} else if (sscanf(line, "%llx %63s", &v, name) == 2) {
			if (!strcmp(name, "[kernel]")) {
				lb->prev_text = v;
				lb->have_prev_text = true;
			} else if (lb->nmods < REC_LASTBOOT_MODS) {
				memcpy(lb->mods[lb->nmods].name, name, sizeof(name));
				lb->mods[lb->nmods++].addr = v;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	lb->previous = lb->have_prev_text || (lb->have_delta && lb->text_delta);
	lb->unsure = lb->have_delta && !lb->text_delta && !lb->have_prev_text;
	return lb->have_delta || lb->have_prev_text ? 0 : -EINVAL;
}

/* Sum of one per_cpu stats field over the instance's CPUs. */
static uint64_t stats_total(struct rec_instance *ri, const char *key)
{
	uint64_t t = 0;

	for (int cpu = 0; cpu < ri->max_cpus; cpu++) {
		char *s = rec_cpu_stats(ri, cpu);

		if (s)
			t += rec_stats_field(s, key);
		free(s);
	}
	return t;
}

int rec_lastboot_describe(const char *name, FILE *f)
{
	struct rec_instance ri;
	struct rec_lastboot lb;
	char *info, *on, *ev;
	int err = rec_instance_attach(&ri, name);

	if (err)
		return err;
	info = rec_instance_read(&ri, "last_boot_info", NULL);
	if (!info) {
		rec_instance_release(&ri);
		return -ENOENT;
	}
	on = rec_instance_read(&ri, "tracing_on", NULL);
	ev = rec_instance_read(&ri, "set_event", NULL);
	if (!rec_lastboot_parse(info, &lb) && lb.previous) {
		fprintf(f, "boot buffer %s: %" PRIu64 " events of the previous boot (%" PRIu64
			" overwritten); 'flytrap recover --last-boot -o FILE' saves them\n",
			name, stats_total(&ri, "entries"), stats_total(&ri, "overrun"));
	} else {
		int nev = 0;

		for (char *p = ev; p && *p; p++)
			nev += *p == '\n';
		fprintf(f, "boot buffer %s: %s, %d event%s on, %" PRIu64 " events held%s\n", name,
			on && on[0] == '1' ? "tracing" : "tracing off", nev, nev == 1 ? "" : "s",
			stats_total(&ri, "entries"),
			lb.unsure ?
			" (Linux 6.12 without KASLR: which boot they are from is not said)" : "");
	}
	free(info);
	free(on);
	free(ev);
	rec_instance_release(&ri);
	return 0;
}

/* ---- recover --last-boot ---------------------------------------------------------- */

/* The loaded address of each module (/proc/modules), for the modules' own deltas. */
static bool module_base(const char *mods, const char *name, uint64_t *addr)
{
	const char *p = mods;
	size_t nl = strlen(name);

	while (p && *p) {
		const char *e = strchr(p, '\n');

		if (!strncmp(p, name, nl) && p[nl] == ' ') {
			const char *x = e ? e : p + strlen(p);

			while (x > p && x[-1] != ' ')
				x--;
			/* the last field but one is the address: "... Live 0xffffffffc0a00000" */
			if (!strncmp(x, "0x", 2))
				*addr = strtoull(x, NULL, 16);
			else {
				const char *a = strstr(p, " 0x");

				if (!a || (e && a > e))
					return false;
				*addr = strtoull(a + 1, NULL, 16);
			}
			return *addr != 0;
		}
		p = e ? e + 1 : NULL;
	}
	return false;
}

/*
 * /proc/kallsyms with every kernel text and data address moved to the
 * previous boot's (less delta); a module's symbols by that module's own
 * delta when last_boot_info lists it, else left out (its old address is
 * unknown).  Per-CPU offsets and absolute values (below the kernel's half)
 * stay.  Returns the text (malloc'd) or NULL; *dropped_mods counts modules
 * left out.
 */
static char *shifted_kallsyms(const char *text, size_t len, int64_t delta,
			      const struct rec_lastboot *lb, size_t *olen, int *dropped_mods)
{
	char *mods = rec_read_file("/proc/modules", NULL), *out = NULL;
	char last_mod[128] = "";
	FILE *f = open_memstream(&out, olen);
	const char *p = text, *end = text + len;
	int64_t mod_delta = 0;
	bool mod_known = false;

	*dropped_mods = 0;
	if (!f) {
		free(mods);
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *br = memchr(p, '[', n);
		uint64_t a = strtoull(p, NULL, 16);
		int64_t d = delta;

		if (br) {
			char mod[128];
			const char *cb = memchr(br, ']', (size_t)(p + n - br));
			size_t ml = cb ? (size_t)(cb - br - 1) : 0;

			snprintf(mod, sizeof(mod), "%.*s", (int)(ml < 127 ? ml : 127), br + 1);
			if (strcmp(mod, last_mod)) {
				uint64_t now = 0;

				snprintf(last_mod, sizeof(last_mod), "%s", mod);
				mod_known = false;
				for (int i = 0; i < lb->nmods; i++)
					if (!strcmp(lb->mods[i].name, mod) && mods &&
					    module_base(mods, mod, &now)) {
						mod_delta = (int64_t)(now - lb->mods[i].addr);
						mod_known = true;
					}
				if (!mod_known)
					(*dropped_mods)++;
			}
			if (!mod_known)
				goto next;
			d = mod_delta;
		}
		if (a >= 0xffff800000000000ULL && n > 16 && p[16] == ' ')
			fprintf(f, "%016" PRIx64 "%.*s\n", (uint64_t)(a - (uint64_t)d), (int)(n - 16),
				p + 16);
		else
			fprintf(f, "%.*s\n", (int)n, p);
next:
		p = nl ? nl + 1 : end;
	}
	free(mods);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* printk_formats ("0xADDR : \"fmt\"") at the previous boot's addresses. */
static char *shifted_printk(const char *text, size_t len, int64_t delta, size_t *olen)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, olen);
	const char *p = text, *end = text + len;

	if (!f)
		return NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *after;
		uint64_t a = strtoull(p, &after, 16);

		if (a >= 0xffff800000000000ULL && after > p && after <= p + n)
			fprintf(f, "0x%" PRIx64 "%.*s\n", (uint64_t)(a - (uint64_t)delta),
				(int)(n - (size_t)(after - p)), after);
		else
			fprintf(f, "%.*s\n", (int)n, p);
		p = nl ? nl + 1 : end;
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* This boot's _text, from kallsyms; 0 when hidden (kptr_restrict) or absent. */
static uint64_t kallsyms_text(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 24 && !strncmp(p + 16, " T _text", 8) && (n == 24 || isspace((unsigned char)p[24])))
			return strtoull(p, NULL, 16);
		p = nl ? nl + 1 : end;
	}
	return 0;
}

struct lb_run {
	const char *name, *output;
	struct rec_instance ri;
	struct fmt_writer *w;
	struct rec_lastboot lb;
	char *info;
	int64_t delta, data_delta;	/* this boot's addresses less the previous boot's */
	bool shifted;
	int dropped_mods;
};

static int add_formats(struct lb_run *r)
{
	char dir[4096];
	struct dirent **sys = NULL;
	int ns, i, err = 0;

	snprintf(dir, sizeof(dir), "%s/events", r->ri.dir);
	ns = scandir(dir, &sys, NULL, alphasort);
	if (ns < 0)
		return -errno;
	for (i = 0; i < ns; i++) {
		struct dirent **ev = NULL;
		char sd[4096 + 256];
		int ne, k;
		bool ftrace = !strcmp(sys[i]->d_name, "ftrace");

		snprintf(sd, sizeof(sd), "%s/%s", dir, sys[i]->d_name);
		ne = sys[i]->d_name[0] == '.' || err ? -1 : scandir(sd, &ev, NULL, alphasort);
		for (k = 0; k < ne; k++) {
			char rel[1024], *text;
			size_t len = 0;

			snprintf(rel, sizeof(rel), "events/%s/%s/format", sys[i]->d_name, ev[k]->d_name);
			text = ev[k]->d_name[0] == '.' || err ? NULL : rec_instance_read(&r->ri, rel, &len);
			if (text) {
				err = ftrace ? fmt_writer_ftrace_format(r->w, text, len) :
					fmt_writer_event_format(r->w, sys[i]->d_name, text, len);
			}
			free(text);
			free(ev[k]);
		}
		free(ev);
		free(sys[i]);
	}
	free(sys);
	return err;
}

static int add_symbols(struct lb_run *r)
{
	size_t len = 0, ol = 0;
	char *text = rec_read_file("/proc/kallsyms", &len), *sh;
	uint64_t now;
	int err = 0;

	if (!text) {
		ft_warn("cannot read /proc/kallsyms (%s): kernel addresses will not have names",
			strerror(errno));
		return 0;
	}
	now = kallsyms_text(text, len);
	if (!now) {
		ft_warn("/proc/kallsyms hides its addresses (kptr_restrict): kernel addresses will not have names");
		free(text);
		return 0;
	}
	if (r->lb.have_prev_text) {
		/* an address in the kernel's half is the old _text; else the old KASLR offset (x86-64) */
		uint64_t prev = r->lb.prev_text >= 0xffff800000000000ULL ? r->lb.prev_text :
			X86_64_START_KERNEL + r->lb.prev_text;

		r->delta = (int64_t)(now - prev);
		r->data_delta = r->delta;
	} else {
		r->delta = r->lb.text_delta;
		r->data_delta = r->lb.have_data_delta ? r->lb.data_delta : r->lb.text_delta;
	}
	sh = shifted_kallsyms(text, len, r->delta, &r->lb, &ol, &r->dropped_mods);
	free(text);
	if (!sh)
		return -ENOMEM;
	r->shifted = true;
	err = fmt_writer_kallsyms(r->w, sh, ol);
	free(sh);
	if (err)
		return err;
	text = rec_tracefs_read("printk_formats", &len);
	if (text) {
		sh = shifted_printk(text, len, r->data_delta, &ol);
		free(text);
		if (!sh)
			return -ENOMEM;
		err = fmt_writer_printk(r->w, sh, ol);
		free(sh);
	}
	return err;
}

static int add_options(struct lb_run *r, const char *cmdline)
{
	char *meta = NULL, *opt = NULL, host[256] = "", when[64] = "";
	size_t ml = 0;
	struct timespec ts;
	struct tm tm;
	FILE *m;
	int err = 0;

	err = rec_write_host_options(r->w, &r->ri);
	/* trace-cmd 3.4's form: "INSTANCE:" and the file's text, NUL included */
	if (!err && asprintf(&opt, "%s:%s", r->name, r->info) >= 0) {
		err = fmt_writer_option_str(r->w, FMT_OPT_LAST_BOOT_INFO, opt);
		free(opt);
	}
	if (err)
		return err;
	m = open_memstream(&meta, &ml);
	if (!m)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	gethostname(host, sizeof(host) - 1);
	fprintf(m, FMT_META_RECORDER "=flytrap %s\n", FLYTRAP_VERSION);
	fprintf(m, FMT_META_COMMAND_LINE "=%s\n", cmdline);
	fprintf(m, FMT_META_HOSTNAME "=%s\n", host);
	fprintf(m, FMT_META_INSTANCE "=%s\n", r->name);
	fprintf(m, FMT_META_LAST_BOOT "=%s\n", r->name);
	fprintf(m, FMT_META_LAST_BOOT_SAVED "=%s\n", when);
	fprintf(m, FMT_META_LAST_BOOT_KALLSYMS "=%s\n",
		r->shifted ? "previous-boot" : "none");
	if (r->dropped_mods)
		fprintf(m, FMT_META_LAST_BOOT_MODULES_LEFT_OUT "=%d\n", r->dropped_mods);
	if (fclose(m))
		return -ENOMEM;
	err = fmt_writer_option_str(r->w, FMT_OPT_FT_META, meta);
	free(meta);
	return err;
}

/* Refuse before any page is read when the output's file system cannot take them. */
static int check_space(struct lb_run *r)
{
	char *dir = strdup(r->output), *slash;
	struct statvfs sv;
	uint64_t need = 0, have;
	char *t = rec_instance_read(&r->ri, "buffer_total_size_kb", NULL);

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		slash == dir ? (void)(slash[1] = 0) : (void)(*slash = 0);
	if (t)
		need = strtoull(t, NULL, 10) * 1024;
	free(t);
	if (statvfs(slash ? dir : ".", &sv)) {
		free(dir);
		return 0;	/* the writer says what is wrong with the place */
	}
	free(dir);
	have = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (need && have < need) {
		ft_error("'%s': %" PRIu64 " KiB free, and the buffer may need %" PRIu64
			 " KiB: reading it empties it, so nothing is read", r->output, have / 1024,
			 need / 1024);
		return -ENOSPC;
	}
	return 0;
}

static const char *pick_instance(const char *want, char **names, int n)
{
	if (want) {
		for (int i = 0; i < n; i++)
			if (!strcmp(names[i], want))
				return want;
		ft_error("instance '%s' is not a boot-reserved buffer (no last_boot_info in it)", want);
		return NULL;
	}
	if (n == 1)
		return names[0];
	if (n == 0) {
		ft_error("no boot-reserved trace buffer on this kernel: it needs Linux 6.12 and "
			 "reserve_mem= trace_instance= on the kernel command line ('flytrap lastboot "
			 "cmdline' prints them)");
		return NULL;
	}
	ft_error("%d boot-reserved buffers (%s, %s%s): name one with --instance", n, names[0],
		 names[1], n > 2 ? ", ..." : "");
	return NULL;
}

/*
 * -o DIR (an existing directory): DIR/last-boot-YYYYmmddTHHMMSSZ.dat, named
 * when it is saved, so that a unit run at every boot keeps each one.
 */
static bool dir_name(const char *out, char *buf, size_t cap)
{
	struct stat st;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	if (stat(out, &st) || !S_ISDIR(st.st_mode))
		return false;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	return snprintf(buf, cap, "%s%slast-boot-%s.dat", out,
			out[strlen(out) - 1] == '/' ? "" : "/", when) < (int)cap;
}

static void usage_recover(FILE *f)
{
	fprintf(f,
"usage: flytrap recover --last-boot [-i NAME] -o FILE\n"
"\n"
"Save the previous boot's events from a boot-reserved trace buffer (Linux\n"
"6.12: reserve_mem= and trace_instance= on the kernel command line; 'flytrap\n"
"lastboot cmdline' prints them) as a trace.dat v7.  Kernel addresses name\n"
"the functions as the previous kernel had them: kallsyms and printk formats\n"
"are moved by the text address last_boot_info gives, which the file also\n"
"keeps (trace-cmd 3.4's LAST_BOOT_INFO).  Reading empties the buffer;\n"
"nothing is read when FILE's file system lacks the room.\n"
"\n"
"  -i, --instance NAME   the buffer, when there are several\n"
"  -o, --output FILE     where the file goes (required); a directory:\n"
"                        DIR/last-boot-YYYYmmddTHHMMSSZ.dat\n"
"  -v, --verbose         more messages\n"
"  -h, --help            this text\n");
}

static const struct ft_opt recover_opts[] = {
	{ "last-boot", 0, false, 'L' }, { "instance", 'i', true, 'i' },
	{ "output", 'o', true, 'o' }, { "verbose", 'v', false, 'v' },
	{ "help", 'h', false, 'h' }, { 0 },
};

int cmd_recover_last_boot(int argc, char **argv)
{
	struct fmt_writer_opts wo = { 0 };
	struct lb_run r = { 0 };
	struct fmt_wbuf *wb = NULL;
	struct ft_optparse p;
	const char *want = NULL;
	char **names = NULL, *cmdline = NULL, *hp = NULL, *he = NULL, *clock;
	size_t hpl = 0, hel = 0;
	uint64_t pages = 0, entries, overrun;
	int c, n, i, err = 0, rc = EXIT_FAIL;
	char outbuf[4096];

	ft_opt_init(&p, argc, argv, recover_opts);
	while ((c = ft_opt_next(&p)) != FT_OPT_END) {
		switch (c) {
		case 'L':
			break;
		case 'i':
			want = p.value;
			break;
		case 'o':
			r.output = p.value;
			break;
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage_recover(stdout);
			return ft_finish_stdout(EXIT_OK);
		case FT_OPT_OPERAND:
			return ft_usage_error("unexpected argument '%s' (the file is -o FILE)", p.value);
		default:
			return EXIT_USAGE;
		}
	}
	if (!r.output)
		return ft_usage_error("--last-boot needs -o FILE");
	if (dir_name(r.output, outbuf, sizeof(outbuf)))
		r.output = outbuf;
	if (geteuid() != 0)
		return ft_error("recover --last-boot reads tracefs and needs root"), EXIT_FAIL;
	n = rec_lastboot_list(&names);
	if (n < 0)
		return ft_error("cannot list the trace instances: %s", strerror(-n)), EXIT_FAIL;
	r.name = pick_instance(want, names, n);
	if (!r.name)
		goto out;
	err = rec_instance_attach(&r.ri, r.name);
	if (err) {
		ft_error("cannot read instance '%s': %s", r.name, strerror(-err));
		goto out;
	}
	r.info = rec_instance_read(&r.ri, "last_boot_info", NULL);
	if (!r.info || rec_lastboot_parse(r.info, &r.lb)) {
		ft_error("cannot read instance '%s's last_boot_info: %s", r.name,
			 r.info ? "not in a form this flytrap knows" : strerror(errno));
		goto out;
	}
	if (r.lb.current) {
		ft_error("buffer %s holds this boot's events (tracing started in it since boot): the "
			 "previous boot's are gone", r.name);
		goto out;
	}
	entries = stats_total(&r.ri, "entries");
	overrun = stats_total(&r.ri, "overrun");
	if (!entries) {
		ft_error("buffer %s holds no events: nothing traced into it before the reboot, or "
			 "they were saved already", r.name);
		goto out;
	}
	if (r.lb.unsure)
		ft_warn("buffer %s: Linux gives a text delta of 0 (no KASLR): it cannot say whether "
			"these events are the previous boot's or this one's", r.name);
	if (check_space(&r))
		goto out;

	for (i = 0; i < argc; i++) {
		char *old = cmdline;

		if (asprintf(&cmdline, "%s %s", old ? old : "flytrap", argv[i]) < 0)
			cmdline = NULL;
		free(old);
	}
	wo.page_size = r.ri.page_size;
	wo.long_size = r.ri.kernel_long;
	err = fmt_writer_open(r.output, &wo, &r.w);
	if (err) {
		ft_error("cannot create '%s': %s", r.output, strerror(-err));
		r.w = NULL;
		goto out;
	}
	hp = rec_instance_read(&r.ri, "events/header_page", &hpl);
	he = rec_instance_read(&r.ri, "events/header_event", &hel);
	err = hp && he ? fmt_writer_headers(r.w, hp, hpl, he, hel) : -EIO;
	if (!err)
		err = add_formats(&r);
	if (!err)
		err = add_symbols(&r);
	if (!err)
		err = add_options(&r, cmdline ? cmdline : "flytrap recover --last-boot");
	clock = rec_instance_read(&r.ri, "trace_clock", NULL);
	if (!err) {
		/* the clock the instance names in brackets */
		char cn[32] = "local", *lb = clock ? strchr(clock, '[') : NULL;

		if (lb && sscanf(lb + 1, "%31[^]]", cn) != 1)
			snprintf(cn, sizeof(cn), "local");
		err = fmt_wbuf_get(r.w, "", cn, &wb);
	}
	free(clock);
	if (!err)
		err = rec_capture_open(&r.ri, NULL);
	for (i = 0; !err && i < r.ri.ncpus; i++) {
		struct rec_cpu *cp = &r.ri.cpus[i];
		char *st;
		int werr = 0, got;

		while ((got = rec_capture_drain(&r.ri, cp, wb, true, &werr)) > 0)
			pages += (uint64_t)got;
		if (got < 0) {
			err = got;
			ft_error("cannot read CPU %d of buffer %s: %s", cp->cpu, r.name,
				 werr ? fmt_writer_error(r.w) : strerror(-got));
			break;
		}
		/* the stats once read, as a recording's end: the previous boot's overruns, none unread */
		st = rec_cpu_stats(&r.ri, cp->cpu);
		if (st)
			err = fmt_writer_cpustat(r.w, "", cp->cpu, st);
		free(st);
	}
	if (!err)
		err = fmt_writer_cmdlines_events(r.w, "", 0);
	if (err) {
		ft_error("cannot write '%s': %s (%s)", r.output, strerror(-err), fmt_writer_error(r.w));
		fmt_writer_abort(r.w);
		r.w = NULL;
		goto out;
	}
	err = fmt_writer_close(r.w);
	r.w = NULL;
	if (err) {
		ft_error("cannot finish '%s': %s", r.output, strerror(-err));
		goto out;
	}
	printf("wrote %s: %" PRIu64 " events of the previous boot in %" PRIu64 " pages from buffer %s",
	       r.output, entries, pages, r.name);
	if (overrun)
		printf(" (%" PRIu64 " older ones overwritten)", overrun);
	printf("\n");
	if (r.shifted)
		printf("kernel names: this boot's kallsyms moved by %s%#" PRIx64
		       " to the previous kernel's text%s\n", r.delta < 0 ? "+" : "-",
		       (uint64_t)(r.delta < 0 ? -r.delta : r.delta),
		       r.dropped_mods ? "; modules left out (their old addresses are unknown)" : "");
	rc = EXIT_OK;
out:
	if (r.w)
		fmt_writer_abort(r.w);
	free(hp);
	free(he);
	free(cmdline);
	free(r.info);
	if (r.ri.dir)
		rec_instance_release(&r.ri);
	rec_lastboot_list_free(names);
	return rc;
}

/* ---- flytrap lastboot ----------------------------------------------------------------- */

static void usage_lastboot(FILE *f)
{
	fprintf(f,
"usage: flytrap lastboot cmdline [--size SIZE] [-i NAME] [-e EVENTS]\n"
"       flytrap lastboot arm [-i NAME] [--discard] -e EVENTS...\n"
"       flytrap lastboot disarm [-i NAME]\n"
"\n"
"A trace buffer that outlives a warm reboot (Linux 6.12).\n"
"  cmdline   print the kernel parameters that reserve it (add them to\n"
"            GRUB_CMDLINE_LINUX in /etc/default/grub, run update-grub)\n"
"  arm       turn EVENTS on in it for this boot (SYSTEM:EVENT, SYSTEM:*,\n"
"            comma separated or -e again).  Refused while it still holds the\n"
"            previous boot's events: 'flytrap recover --last-boot -o FILE'\n"
"            saves them first, or --discard drops them\n"
"  disarm    turn its events and tracing off\n"
"\n"
"  -i, --instance NAME   the buffer (default: the only one; cmdline: "
LB_DEFAULT_NAME ")\n"
"      --size SIZE       cmdline: memory to reserve (default 32M)\n"
"  -e, --event EVENTS    events to trace\n"
"      --discard         arm: drop the previous boot's events\n"
"  -h, --help            this text\n");
}

static const struct ft_opt lastboot_opts[] = {
	{ "instance", 'i', true, 'i' }, { "size", 0, true, 's' }, { "event", 'e', true, 'e' },
	{ "discard", 0, false, 'd' }, { "help", 'h', false, 'h' }, { 0 },
};

static bool valid_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!v || end == s)
		return false;
	return !*end || ((*end == 'K' || *end == 'M' || *end == 'G') && !end[1]);
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static int lb_arm(const char *name, char **events, int nev, bool discard)
{
	struct rec_instance ri;
	struct rec_lastboot lb;
	char *info;
	int err, i, rc = EXIT_FAIL;

	err = rec_instance_attach(&ri, name);
	if (err)
		return ft_error("cannot read instance '%s': %s", name, strerror(-err)), EXIT_FAIL;
	info = rec_instance_read(&ri, "last_boot_info", NULL);
	if (info && !rec_lastboot_parse(info, &lb) && lb.previous && !discard &&
	    stats_total(&ri, "entries") > 0) {
		ft_error("buffer %s still holds %" PRIu64 " events of the previous boot: save them with "
			 "'flytrap recover --last-boot -o FILE', or drop them with --discard", name,
			 stats_total(&ri, "entries"));
		goto out;
	}
	/* an empty write to trace with O_TRUNC clears every CPU's buffer */
	err = rec_instance_write(&ri, "tracing_on", "0");
	if (!err) {
		char *path = NULL;
		FILE *f = asprintf(&path, "%s/trace", ri.dir) < 0 ? NULL : fopen(path, "w");

		err = f ? (fclose(f) ? -errno : 0) : -errno;
		free(path);
	}
	for (i = 0; !err && i < nev; i++) {
		char *list = strdup(events[i]), *save = NULL, *one;

		if (!list)
			err = -ENOMEM;
		for (one = list ? strtok_r(list, ",", &save) : NULL; one && !err;
		     one = strtok_r(NULL, ",", &save)) {
			err = rec_instance_enable(&ri, one, NULL);
			if (err < 0)
				ft_error("cannot turn on %s in buffer %s: %s", one, name, strerror(-err));
			else if (!err)
				ft_error("no event matches '%s'", one);
			err = err < 0 ? err : err ? 0 : -ENOENT;
		}
		free(list);
	}
	if (!err)
		err = rec_instance_write(&ri, "tracing_on", "1");
	if (err) {
		if (err != -ENOENT)
			ft_error("cannot arm buffer %s: %s", name, strerror(-err));
		rec_instance_write(&ri, "events/enable", "0");
		goto out;
	}
	printf("buffer %s traces %d event spec%s from now on; after a warm reboot, "
	       "'flytrap recover --last-boot -o FILE' saves them\n", name, nev, nev == 1 ? "" : "s");
	rc = EXIT_OK;
out:
	free(info);
	/* release leaves the kernel's instance and its events as they are now */
	rec_instance_release(&ri);
	return rc;
}

static int lb_disarm(const char *name)
{
	struct rec_instance ri;
	int err = rec_instance_attach(&ri, name);

	if (!err)
		err = rec_instance_write(&ri, "tracing_on", "0");
	if (!err)
		err = rec_instance_write(&ri, "events/enable", "0");
	if (ri.dir)
		rec_instance_release(&ri);
	if (err)
		return ft_error("cannot disarm buffer %s: %s", name, strerror(-err)), EXIT_FAIL;
	printf("buffer %s: events and tracing off\n", name);
	return EXIT_OK;
}

int cmd_lastboot(int argc, char **argv)
{
	struct ft_optparse p;
	const char *verb = NULL, *want = NULL, *size = "32M";
	char **events = NULL, **names = NULL;
	int c, nev = 0, n, rc = EXIT_FAIL;
	bool discard = false;

	ft_opt_init(&p, argc, argv, lastboot_opts);
	while ((c = ft_opt_next(&p)) != FT_OPT_END) {
		switch (c) {
		case 'i':
			want = p.value;
			break;
		case 's':
			size = p.value;
			break;
		case 'e': {
			char **ne = realloc(events, (size_t)(nev + 1) * sizeof(*ne));

			if (!ne)
				return ft_error("out of memory"), EXIT_FAIL;
			events = ne;
			events[nev++] = (char *)p.value;
			break;
		}
		case 'd':
			discard = true;
			break;
		case 'h':
			free(events);
			usage_lastboot(stdout);
			return ft_finish_stdout(EXIT_OK);
		case FT_OPT_OPERAND:
			if (verb) {
				free(events);
				return ft_usage_error("unexpected argument '%s'", p.value);
			}
			verb = p.value;
			break;
		default:
			free(events);
			return EXIT_USAGE;
		}
	}
	if (!verb || (strcmp(verb, "cmdline") && strcmp(verb, "arm") && strcmp(verb, "disarm"))) {
		free(events);
		return verb ? ft_usage_error("unknown lastboot command '%s' (cmdline, arm, disarm)", verb) :
			ft_usage_error("missing command: cmdline, arm or disarm");
	}
	if (!strcmp(verb, "cmdline")) {
		const char *name = want ? want : LB_DEFAULT_NAME;

		if (!valid_size(size) || !valid_name(name)) {
			free(events);
			return ft_usage_error(!valid_name(name) ?
				"--instance '%s': 1 to 15 letters, digits, '_' or '-'" :
				"--size '%s': a number of bytes with K, M or G", !valid_name(name) ? name : size);
		}
		/* events on the command line would trace over the previous boot's before it is saved */
		printf("reserve_mem=%s:4096:%s trace_instance=%s@%s\n", size, name, name, name);
		if (nev)
			fprintf(stderr, "flytrap: events are turned on after boot, once the previous boot's are "
				"saved: 'flytrap lastboot arm -e ...' (a trace_instance=...,EVENTS list would "
				"write over them at boot)\n");
		free(events);
		return ft_finish_stdout(EXIT_OK);
	}
	if (geteuid() != 0) {
		free(events);
		return ft_error("lastboot %s writes tracefs and needs root", verb), EXIT_FAIL;
	}
	if (!strcmp(verb, "arm") && !nev) {
		free(events);
		return ft_usage_error("arm needs -e EVENTS");
	}
	n = rec_lastboot_list(&names);
	if (n < 0) {
		free(events);
		return ft_error("cannot list the trace instances: %s", strerror(-n)), EXIT_FAIL;
	}
	want = pick_instance(want, names, n);
	if (want)
		rc = !strcmp(verb, "arm") ? lb_arm(want, events, nev, discard) : lb_disarm(want);
	rec_lastboot_list_free(names);
	free(events);
	return rc;
}
