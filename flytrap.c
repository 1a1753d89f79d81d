// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap: record kernel traces into trace.dat files and analyze them
 * offline.  git-style front end: `flytrap CMD [options]`.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "format/format.h"

int ft_verbose;
const char *ft_cmd = "flytrap";

#ifndef FT_NO_MAIN
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
#ifndef FT_NO_RECORD
	{ "record",    cmd_record,    "record ftrace events and BPF data into a trace.dat (root)" },
	{ "reset",     cmd_reset,     "remove what a killed recorder left in tracefs (root)" },
	{ "status",    cmd_status,    "is something tracing this machine, and what does it cost" },
	{ "recover",   cmd_recover,   "turn a killed recorder's partial output into a readable file" },
	{ "trigger",   cmd_trigger,   "make a running flight recorder write its window (root)" },
	{ "lastboot",  cmd_lastboot,  "a trace buffer that outlives a warm reboot (Linux 6.12)" },
#endif
	{ "report",    cmd_report,    "list the events of a trace.dat, like trace-cmd report" },
	{ "info",      cmd_info,      "what is in a trace.dat at a glance" },
	{ "convert",   cmd_convert,   "rewrite any readable trace.dat as version 7" },
	{ "callgraph", cmd_callgraph, "call trees, folded stacks and flame graphs" },
	{ "overhead",  cmd_overhead,  "where the time went, and what the tracing cost" },
	{ "drops",     cmd_drops,     "every lost event: per CPU, per source, per time window" },
	{ "export",    cmd_export,    "Chrome/Perfetto JSON or a self-contained HTML report" },
	{ "analyze",   cmd_analyze,   "overhead, drops and callgraph together, in one pass" },
	{ "sql",       cmd_sql,       "SQL over trace files (Perfetto-style tables, no import)" },
	{ "load",      cmd_load,      "load trace files into ClickHouse for fleet queries" },
	{ "slice",     cmd_slice,     "cut a time window, CPUs, tasks or events into a trace.dat" },
	{ "redact",    cmd_redact,    "replace names, paths and addresses by keyed tokens" },
	{ "merge",     cmd_merge,     "join rotation segments, or recordings of one kernel" },
	{ "diff",      cmd_diff,      "what changed between two recordings (and a flame graph)" },
	{ "verify",    cmd_verify,    "check that a trace.dat is whole (checksums, pages, order)" },
};
#endif

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "flytrap: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int ft_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

void ft_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void ft_info(const char *fmt, ...)
{
	va_list ap;

	if (!ft_verbose)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int ft_usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "flytrap %s: ", ft_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'flytrap %s --help')\n", ft_cmd);
	return EXIT_USAGE;
}

bool ft_progress_enabled(void)
{
	return isatty(STDERR_FILENO) && !getenv("FLYTRAP_NO_PROGRESS");
}

/* strtoull in base (0: also 0x hex), the whole text, no sign, no space */
static int parse_whole_u64(const char *s, int base, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

char *ft_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

int ft_parse_u64(const char *s, uint64_t *out)
{
	return parse_whole_u64(s, 0, out);
}

/* number with optional fraction times a unit; rejects junk and overflow */
static int parse_scaled(const char *s, uint64_t *out, const char *suffix_table[],
			const uint64_t scale[], uint64_t default_scale)
{
	char *end;
	double v;
	uint64_t mul = default_scale;

	/* plain decimals only: strtod would also take "nan", "inf" and hex */
	if (!s || !(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || memchr(s, 'x', (size_t)(end - s)) ||
	    memchr(s, 'X', (size_t)(end - s)))
		return -EINVAL;
	if (*end) {
		int i;

		for (i = 0; suffix_table[i]; i++)
			if (!strcmp(end, suffix_table[i]))
				break;
		if (!suffix_table[i])
			return -EINVAL;
		mul = scale[i];
	}
	if (v * (double)mul >= 1.8e19)
		return -EINVAL;
	*out = (uint64_t)(v * (double)mul + 0.5);
	return 0;
}

int ft_parse_duration_ns(const char *s, uint64_t *out)
{
	static const char *sfx[] = { "ns", "us", "ms", "s", "m", "h", NULL };
	static const uint64_t mul[] = { 1, 1000, 1000000, 1000000000ULL,
					60000000000ULL, 3600000000000ULL };

	return parse_scaled(s, out, sfx, mul, 1000000000ULL);
}

int ft_parse_size(const char *s, uint64_t *out)
{
	static const char *sfx[] = { "K", "k", "KB", "KiB", "M", "MB", "MiB", "G", "GB", "GiB", "B", NULL };
	static const uint64_t mul[] = { 1ULL << 10, 1ULL << 10, 1ULL << 10, 1ULL << 10,
					1ULL << 20, 1ULL << 20, 1ULL << 20,
					1ULL << 30, 1ULL << 30, 1ULL << 30, 1 };

	return parse_scaled(s, out, sfx, mul, 1);
}

/*
 * Seconds as report and the analyzers print them ("1464.221523", "12.5",
 * "7"), exactly to the ns: strtod rounds the 19-digit ns counts of a
 * wall-clock time line.  At most 9 decimals.
 */
int ft_parse_ts(const char *s, uint64_t *out_ns)
{
	uint64_t secs = 0, frac = 0;
	int digits = 0;

	if (!s || !(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (secs > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -EINVAL;
		secs = secs * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
	}
	if (*s)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*out_ns = secs * 1000000000ULL + frac;
	return 0;
}

int ft_parse_decimal(const char *s, uint64_t *out)
{
	return parse_whole_u64(s, 10, out);
}

int ft_parse_cpulist(const char *s, uint64_t mask[4])
{
	const char *p = s;

	memset(mask, 0, 4 * sizeof(uint64_t));
	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
		}
		if (a > b || b > 255)
			return -EINVAL;
		for (; a <= b; a++)
			mask[a / 64] |= 1ULL << (a % 64);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

void ft_opt_init(struct ft_optparse *p, int argc, char **argv, const struct ft_opt *table)
{
	memset(p, 0, sizeof(*p));
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	if (table)
		p->tables[p->ntables++] = table;
}

int ft_opt_add_table(struct ft_optparse *p, const struct ft_opt *table)
{
	if (p->ntables >= FT_OPT_TABLES)
		return -1;
	p->tables[p->ntables++] = table;
	return 0;
}

bool ft_looks_like_option(const char *v)
{
	return v[0] == '-' && v[1] && !isdigit((unsigned char)v[1]);
}

/* The entry named name[0, n) or with letter c (name NULL), in the first table that has it */
static const struct ft_opt *opt_find(struct ft_optparse *p, const char *name, size_t n, char c)
{
	for (int k = 0; k < p->ntables; k++)
		for (const struct ft_opt *t = p->tables[k]; t->name || t->letter; t++)
			if (name ? t->name && strlen(t->name) == n && !strncmp(t->name, name, n)
				 : t->letter == c) {
				p->which = k;
				return t;
			}
	return NULL;
}

static int opt_next_long(struct ft_optparse *p, const char *a)
{
	const char *eq = strchr(a + 2, '=');
	size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	const struct ft_opt *o = opt_find(p, a + 2, n, 0);

	if (!o) {
		ft_usage_error("unknown option '%.*s'", (int)n + 2, a);
		return FT_OPT_ERROR;
	}
	if (!o->value && eq) {
		ft_usage_error("option '--%s' takes no value", o->name);
		return FT_OPT_ERROR;
	}
	p->value = NULL;
	p->opt = o;
	if (o->value && eq) {
		p->value = eq + 1;
	} else if (o->value) {
		if (p->i >= p->argc) {
			ft_usage_error("option '--%s' needs a value", o->name);
			return FT_OPT_ERROR;
		}
		if (ft_looks_like_option(p->argv[p->i])) {
			ft_usage_error("option '--%s' needs a value, not the option '%s' (write "
				       "--%s=VALUE for a value that starts with '-')", o->name,
				       p->argv[p->i], o->name);
			return FT_OPT_ERROR;
		}
		p->value = p->argv[p->i++];
	}
	return o->id;
}

static int opt_next_letter(struct ft_optparse *p)
{
	char c = *p->group++;
	const struct ft_opt *o = opt_find(p, NULL, 0, c);

	if (!o) {
		ft_usage_error("unknown option '-%c'", c);
		return FT_OPT_ERROR;
	}
	p->value = NULL;
	p->opt = o;
	if (!o->value)
		return o->id;
	if (*p->group) {
		p->value = p->group;	/* -xVALUE */
	} else if (p->i >= p->argc) {
		ft_usage_error("option '-%c' needs a value", c);
		return FT_OPT_ERROR;
	} else if (ft_looks_like_option(p->argv[p->i])) {
		ft_usage_error("option '-%c' needs a value, not the option '%s' (write -%cVALUE for a "
			       "value that starts with '-')", c, p->argv[p->i], c);
		return FT_OPT_ERROR;
	} else {
		p->value = p->argv[p->i++];
	}
	p->group = NULL;
	return o->id;
}

int ft_opt_next(struct ft_optparse *p)
{
	const char *a;

	if (p->group && *p->group)
		return opt_next_letter(p);
	p->group = NULL;
	if (p->i >= p->argc)
		return FT_OPT_END;
	a = p->argv[p->i++];
	if (!p->no_more && !strcmp(a, "--")) {
		p->no_more = true;
		return ft_opt_next(p);
	}
	if (p->no_more || a[0] != '-' || !a[1]) {
		p->value = a;	/* a file name ("-" included) */
		return FT_OPT_OPERAND;
	}
	if (a[1] == '-')
		return opt_next_long(p, a);
	p->group = a + 1;
	return opt_next_letter(p);
}

int ft_opt_next_std(struct ft_optparse *p, const char *const *help)
{
	int id;

	while ((id = ft_opt_next(p)) == FT_OPT_ID_VERBOSE)
		ft_verbose++;
	if (id == FT_OPT_ID_HELP) {
		for (; help && *help; help++)
			fputs(*help, stdout);
		exit(ft_finish_stdout(EXIT_OK));
	}
	return id;
}

int ft_finish_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return rc;
		ft_error("cannot write to standard output: %s", strerror(errno));
		return rc ? rc : EXIT_FAIL;
	}
	return rc;
}

size_t ft_utf8_len(const unsigned char *s, size_t n, uint32_t *cp_out)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80) {
		len = 1;
		cp = s[0];
		goto ok;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
ok:
	if (cp_out)
		*cp_out = cp;
	return len;
}

/*
 * The one rule for JSON strings from raw bytes (task names, symbols, event
 * strings): valid UTF-8 passes through; '"' and '\\' are escaped, \n and \t
 * get their short forms, other control bytes and DEL become \u00XX; a byte
 * that is not part of valid UTF-8 becomes the code point of the same value
 * (0xE9 -> \u00e9), so the output is always valid JSON and two names that
 * differ in such bytes stay different.  With FT_JSON_SCRIPT '<' is \u003c
 * (JSON inside an HTML <script> element).
 */
size_t ft_json_char(const unsigned char *p, size_t n, unsigned flags, char out[8], size_t *used)
{
	unsigned char c = p[0];
	size_t l;

	*used = 1;
	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	}
	if (c == '\n' || c == '\t') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : 't';
		return 2;
	}
	if (c >= 0x80 && (l = ft_utf8_len(p, n, NULL)) != 0) {
		memcpy(out, p, l);
		*used = l;
		return l;
	}
	if (c < 0x20 || c >= 0x7f || (c == '<' && (flags & FT_JSON_SCRIPT))) {
		static const char hex[] = "0123456789abcdef";

		memcpy(out, "\\u00", 4);
		out[4] = hex[c >> 4];
		out[5] = hex[c & 15];
		return 6;
	}
	out[0] = (char)c;
	return 1;
}

/* A JSON string of at most n bytes of s (stopping at a NUL), by ft_json_char's rule. */
void ft_json_strn_flags(FILE *f, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;

	fputc('"', f);
	while (i < n && p[i]) {
		char out[8];
		size_t used, len;

		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\' &&
		    (p[i] != '<' || !(flags & FT_JSON_SCRIPT))) {
			i++;
			continue;
		}
		fwrite(p + start, 1, i - start, f);
		len = ft_json_char(p + i, n - i, flags, out, &used);
		fwrite(out, 1, len, f);
		i += used;
		start = i;
	}
	fwrite(p + start, 1, i - start, f);
	fputc('"', f);
}

void ft_json_strn(FILE *f, const char *s, size_t n)
{
	ft_json_strn_flags(f, s, n, 0);
}

void ft_json_str(FILE *f, const char *s)
{
	ft_json_strn_flags(f, s ? s : "", SIZE_MAX, 0);
}

#ifndef FT_NO_MAIN
/* What this build is, and what it leaves out (--version). */
static void print_build(void)
{
#ifdef FT_STATIC
	printf("build: static, BPF programs embedded\n"
	       "left out: libtraceevent plugins (dlopen); flytrap formats sched_switch,\n"
	       "  sched_wakeup, kmem, hrtimer and futex events as they do; ftrace function and\n"
	       "  kernel_stack, kvm, kvmmmu, jbd2, mac80211, cfg80211, scsi, tlb and xen events\n"
	       "  print their kernel print format instead; debuginfod (libcurl): debug files\n"
	       "  come only from this machine's debug directories\n");
#elif defined(FT_NO_RECORD)
	printf("build: dynamic, analysis only (no record, reset, recover)\n");
#else
	printf("build: dynamic, BPF programs embedded, libtraceevent plugins loaded\n");
#endif
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: flytrap [-v] [--version] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'flytrap COMMAND --help' describes a command.\n");
}

/*
 * Run as root through sudo, every file a command writes goes to the user
 * who ran sudo (SUDO_UID, SUDO_GID), so that "analyze without root" works
 * on the file just recorded.  Not root, or not through sudo: files stay ours.
 */
static void sudo_owner(void)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	uint64_t uid, gid;
	struct passwd *pw;

	if (geteuid() != 0 || !u || ft_parse_u64(u, &uid) || uid >= (uid_t)-1)
		return;
	if (!g || ft_parse_u64(g, &gid) || gid >= (gid_t)-1) {
		pw = getpwuid((uid_t)uid);
		if (!pw)
			return;
		gid = pw->pw_gid;
	}
	fmt_outfile_set_owner((uid_t)uid, (gid_t)gid);
}

int main(int argc, char **argv)
{
	size_t i;

	/* A closed pipe (`| head`) should end us quietly via EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);

	argc--, argv++;
	while (argc > 0 && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-v") || !strcmp(argv[0], "--verbose")) {
			ft_verbose++;
		} else if (!strcmp(argv[0], "--version")) {
			printf("flytrap %s\n", FLYTRAP_VERSION);
			print_build();
			return ft_finish_stdout(0);
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			usage(stdout);
			return ft_finish_stdout(0);
		} else {
			fprintf(stderr, "flytrap: unknown option '%s' (see 'flytrap --help')\n", argv[0]);
			return EXIT_USAGE;
		}
		argc--, argv++;
	}
	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[0], commands[i].name)) {
			ft_cmd = commands[i].name;
			sudo_owner();
			return commands[i].fn(argc, argv);
		}
	}
#ifdef FT_NO_RECORD
	if (!strcmp(argv[0], "record") || !strcmp(argv[0], "reset") || !strcmp(argv[0], "recover") ||
	    !strcmp(argv[0], "trigger") || !strcmp(argv[0], "status") ||
	    !strcmp(argv[0], "lastboot")) {
		fprintf(stderr, "flytrap: '%s' is not in this analysis-only build (built with NO_RECORD=1)\n",
			argv[0]);
		return EXIT_USAGE;
	}
#endif
	fprintf(stderr, "flytrap: '%s' is not a flytrap command (see 'flytrap --help')\n", argv[0]);
	return EXIT_USAGE;
}
#endif
