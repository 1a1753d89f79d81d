/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the command front-ends (record/, report/): the command table,
 * messages, and small option-parsing helpers.  format/ never includes this.
 */
#ifndef FLYTRAP_H
#define FLYTRAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FLYTRAP_VERSION "0.1.0"

/* Exit codes (style.md): 0 ok, 1 failure, 2 usage error. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

extern int ft_verbose;		/* number of -v given */
extern const char *ft_cmd;	/* current subcommand name, for messages */

/* "flytrap: error: …" on stderr.  Return value is EXIT_FAIL for `return ft_error(...)`. */
int ft_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "flytrap: warning: …" */
void ft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "flytrap CMD: …" usage problem on one line; returns EXIT_USAGE. */
int ft_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void ft_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* true when stderr is a terminal (progress lines go there only then). */
bool ft_progress_enabled(void);

/*
 * Parse helpers: return 0 or -EINVAL.  Durations accept ns/us/ms/s/m
 * suffixes (no suffix = seconds); sizes accept K/M/G (no suffix = bytes);
 * timestamps are seconds with a fraction ("12.5" = 12.5 s) as printed by
 * report, exact to the ns; ft_parse_decimal takes decimal digits only (a
 * raw clock's tick count as report prints it), ft_parse_u64 also 0x hex.
 */
int ft_parse_u64(const char *s, uint64_t *out);
int ft_parse_decimal(const char *s, uint64_t *out);
int ft_parse_duration_ns(const char *s, uint64_t *out);
int ft_parse_size(const char *s, uint64_t *out);
int ft_parse_ts(const char *s, uint64_t *out_ns);
/* A formatted string in new memory (free it), or NULL when memory is short. */
char *ft_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CPU list "0,2-5" into a 256-bit mask. */
int ft_parse_cpulist(const char *s, uint64_t mask[4]);


/*
 * The commands' option parser: a table per command (long name, letter,
 * whether it takes a value, the id it returns), read in order so an
 * option can depend on the ones before it (report's -i then -F).  It takes
 * "--name value", "--name=value", "-x value", "-xvalue" and grouped
 * letters ("-RN"); "--" ends the options; anything else is an operand,
 * returned in its place.  A mistake (an unknown option, a missing value,
 * a value that is an option, "=" on an option without a value) gets the
 * one-line usage error.
 */
struct ft_opt {
	const char *name;	/* without "--"; NULL: letter only.  {0} ends the table */
	char letter;		/* 0: long only */
	bool value;		/* takes a value */
	int id;			/* what ft_opt_next() returns for it (> 0) */
};

#define FT_OPT_TABLES 8

struct ft_optparse {
	int argc;
	char **argv;
	const struct ft_opt *tables[FT_OPT_TABLES];	/* looked up in order */
	int ntables;
	int which;		/* the table of the option returned */
	int i;			/* the next argument */
	const char *group;	/* the rest of a "-abc" group */
	bool no_more;		/* after "--" */
	const char *value;	/* the value of the option returned, or the operand */
	const struct ft_opt *opt;	/* the table entry of the option returned */
};

enum { FT_OPT_END = 0, FT_OPT_OPERAND = -1, FT_OPT_ERROR = -2 };

void ft_opt_init(struct ft_optparse *p, int argc, char **argv, const struct ft_opt *table);
/* One more table (a command made of several: analyze); 0, or -1 when full. */
int ft_opt_add_table(struct ft_optparse *p, const struct ft_opt *table);
/* Whether an argument taken as a value is in fact an option ("-5" is a value, "-x" is not). */
bool ft_looks_like_option(const char *v);
/* The next option's id (its value in p->value), FT_OPT_OPERAND, FT_OPT_END, or FT_OPT_ERROR. */
int ft_opt_next(struct ft_optparse *p);

/*
 * -h/--help and -v, the same in every command.  A command's table names
 * them with these ids (FT_OPT_HELP_ENTRY, and its own spelling of -v:
 * report's is -V, some take --verbose too) and reads its options with
 * ft_opt_next_std(), which takes both itself: -v raises ft_verbose and goes
 * on to the next option; -h prints the help texts (NULL-terminated, one
 * after the other) on stdout and exits, 0 or 1 when stdout could not be
 * written (ft_finish_stdout).  Anything else is ft_opt_next()'s.
 */
enum { FT_OPT_ID_HELP = 0x10000, FT_OPT_ID_VERBOSE };
#define FT_OPT_HELP_ENTRY { "help", 'h', false, FT_OPT_ID_HELP }
int ft_opt_next_std(struct ft_optparse *p, const char *const *help);
/* The line that -v gets in the help of the commands that print it. */
#define FT_HELP_VERBOSE "  -v                 more messages on stderr\n"

/* Flush stdout and turn a write error (EPIPE excepted) into EXIT_FAIL. */
int ft_finish_stdout(int rc);

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), 0 if the
 * bytes are not UTF-8 (overlong, surrogate, past U+10FFFF, cut short);
 * *cp (may be NULL) gets the code point.
 */
size_t ft_utf8_len(const unsigned char *s, size_t n, uint32_t *cp);

/*
 * JSON strings from raw bytes, by one rule (flytrap.c ft_json_char): valid
 * UTF-8 as it is, any other byte as the code point of its value; always
 * valid JSON.  ft_json_char writes one character's JSON form (at most 6
 * bytes) into out, returns its length and sets *used to the bytes it took
 * from p (n > 0 bytes there, p[0] not NUL).
 */
#define FT_JSON_SCRIPT 1u	/* '<' as \u003c: JSON inside an HTML <script> */
size_t ft_json_char(const unsigned char *p, size_t n, unsigned flags, char out[8], size_t *used);
void ft_json_strn_flags(FILE *f, const char *s, size_t n, unsigned flags);
void ft_json_str(FILE *f, const char *s);
void ft_json_strn(FILE *f, const char *s, size_t n);

/* One subcommand per file: int cmd_<name>(int argc, char **argv), argv[0] = name. */
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_callgraph(int argc, char **argv);
int cmd_overhead(int argc, char **argv);
int cmd_drops(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_redact(int argc, char **argv);
int cmd_diff(int argc, char **argv);
#ifndef FT_NO_RECORD
int cmd_record(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_recover_last_boot(int argc, char **argv);	/* recover --last-boot: record/lastboot.c */
int cmd_lastboot(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_status(int argc, char **argv);
#endif

#endif
