/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flytrap redact: the policy (what is kept, hashed or dropped), the keyed
 * tokens and the record of every value replaced, which the check after
 * writing looks for in the output.  redact_policy.c implements it,
 * redact.c (the command) and redact_meta.c (the file's metadata) use it.
 */
#ifndef FLYTRAP_REPORT_REDACT_H
#define FLYTRAP_REPORT_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

enum rpt_red_action { RED_KEEP, RED_HASH, RED_DROP, RED_RELATIVE };

/* What a value is: decides the rule that applies and the token's shape. */
enum rpt_red_class {
	RED_C_COMM,	/* a task name: a token of at most 15 characters */
	RED_C_PATH,	/* a file path: "/~" and the digest */
	RED_C_HOST,	/* a host name */
	RED_C_TEXT,	/* any other string: a command line, a print event's text */
};

enum rpt_red_rule_kind { RED_R_COMM, RED_R_PATH, RED_R_FIELD, RED_R_META, RED_R_BUFFER };

struct rpt_red_rule {
	enum rpt_red_rule_kind kind;
	char *glob;		/* fnmatch pattern: a comm, a path, SYSTEM:EVENT.FIELD, a key */
	enum rpt_red_action action;
	int line;		/* of the policy file; 0 for the defaults */
};

struct rpt_red_policy {
	struct rpt_red_rule *rules;	/* the defaults, then the file's: the last match wins */
	int nrules;
	enum rpt_red_action kaddr;	/* kernel addresses: KEEP, RELATIVE (to _text), DROP */
	enum rpt_red_action pointers;	/* pointer-valued fields: KEEP, HASH, DROP */
	enum rpt_red_action ustack;	/* user stacks: KEEP, DROP */
	char *text;			/* the effective policy, one rule a line (what is hashed) */
	size_t text_len;
	char sha256[65];		/* hex SHA-256 of text */
	const char *path;		/* the policy file (NULL: the defaults alone) */
	int cur_line;			/* while parsing: the line, 0 in the defaults */
};

/*
 * The default policy, then the rules of path (NULL: none).  0, or
 * EXIT_FAIL after a one-line error naming the file, line and problem.
 */
int rpt_red_policy_load(struct rpt_red_policy *p, const char *path);
void rpt_red_policy_release(struct rpt_red_policy *p);
/*
 * Every field rule of the policy file names a field of an event r
 * describes (as a pattern: one match is enough).  0, or EXIT_USAGE after
 * a one-line error naming the file, the line and what is missing.
 */
int rpt_red_policy_check_fields(const struct rpt_red_policy *p, struct fmt_reader *r,
				const char *in_path);
/* The action of the buffer rules for a buffer (instance) name: RED_KEEP or RED_HASH. */
enum rpt_red_action rpt_red_buffer_action(const struct rpt_red_policy *p, const char *name);

/* The action for a value of a class (comm and path rules; host and text: hash). */
enum rpt_red_action rpt_red_value_action(const struct rpt_red_policy *p, enum rpt_red_class c,
					 const char *value);
/*
 * The action a field rule gives SYSTEM:EVENT.FIELD, or -1 when no field
 * rule matches (the field's class decides).
 */
int rpt_red_field_action(const struct rpt_red_policy *p, const char *system, const char *event,
			 const char *field);
/* The action for a metadata key: a meta rule, or -1 when none matches. */
int rpt_red_meta_action(const struct rpt_red_policy *p, const char *key);

/* The tokens of one run: an HMAC-SHA256 key and every value replaced. */
struct rpt_red_tokens;
struct rpt_ksyms_keep;

/*
 * With key_path, the key is that file's bytes (16 to 4096); without, 32
 * random bytes that are never stored.  NULL with errno set (and, for a
 * key file, a one-line error printed).
 */
struct rpt_red_tokens *rpt_red_tokens_new(const char *key_path);
void rpt_red_tokens_free(struct rpt_red_tokens *t);

/*
 * The token of value (n bytes) as class c, NUL-terminated in out (at
 * most cap - 1 bytes, cut when it has to be: a comm array of 8).  The
 * value is remembered as replaced.  Returns the token's length, or -1
 * when out of memory.
 */
int rpt_red_token(struct rpt_red_tokens *t, enum rpt_red_class c, const char *value, size_t n,
		  char *out, size_t cap);
/*
 * Does v look like a token of class c (a redacted file redacted again)?
 * "/~" and 16 hex digits for a path, "~" and 6 to 12 for the others (a
 * comm array cuts it).  rpt_red_token() gives such a value back as it is.
 */
bool rpt_red_is_token(enum rpt_red_class c, const char *v, size_t n);
/* The keyed token of a pointer value (remembered as replaced). */
uint64_t rpt_red_pointer(struct rpt_red_tokens *t, uint64_t v);

/* Was this exact string replaced somewhere? */
bool rpt_red_was_replaced(const struct rpt_red_tokens *t, const char *value, size_t n);
bool rpt_red_pointer_replaced(const struct rpt_red_tokens *t, uint64_t v);
/* Number of distinct strings replaced, and of pointers. */
size_t rpt_red_count(const struct rpt_red_tokens *t, size_t *pointers);
bool rpt_red_key_given(const struct rpt_red_tokens *t);
/*
 * The key's fingerprint (16 hex digits, in out of cap >= 17 bytes): the
 * same for one key, another for another, and no help in finding the key.
 * prev (may be NULL): the id of the input's own redaction, so that a file
 * redacted twice matches only one redacted with the same keys in turn.
 * merge and diff read it to tell why two files' tokens differ.
 */
void rpt_red_key_id(const struct rpt_red_tokens *t, const char *prev, char *out, size_t cap);
/*
 * Tokens under the key of like (given or random) and no value replaced
 * yet: the files of one call share one key.  NULL with errno set.
 */
struct rpt_red_tokens *rpt_red_tokens_new_like(const struct rpt_red_tokens *like);

/*
 * Mark the replaced strings of min_len bytes or more that occur in text
 * (the kernel's own texts: formats, symbols): a task named "timeout" is
 * also a word of the event formats, so the raw search leaves them out and
 * only decoded fields are checked for them.  Returns how many are marked;
 * rpt_red_public_name() gives the k-th.
 */
size_t rpt_red_mark_public(struct rpt_red_tokens *t, const void *text, size_t len, size_t min_len);
const char *rpt_red_public_name(const struct rpt_red_tokens *t, size_t k);

/*
 * Search the bytes of path for every replaced string of min_len bytes or
 * more that is not marked public.  0 none found; 1 found, *found (malloc'd) the value and *at its
 * offset; -errno when the file cannot be read.
 */
int rpt_red_scan_file(const struct rpt_red_tokens *t, const char *path, size_t min_len,
		      char **found, uint64_t *at);

/* ---- one run: what redact.c and redact_meta.c share ------------------------------ */

struct rpt_red_count {
	uint64_t comm, path, host, text;	/* values replaced by tokens */
	uint64_t dropped;			/* fields, lines and values dropped */
	uint64_t kaddr, pointers, ustack;	/* addresses made relative or dropped; stacks cut */
	uint64_t ucopy;				/* record --user-stack copies dropped */
	uint64_t records_rebuilt;		/* records whose length changed */
	uint64_t ksyms_in, ksyms_out;		/* kernel symbols before and after */
};

struct rpt_red_ctx {
	const struct rpt_red_policy *p;
	struct rpt_red_tokens *t;
	enum rpt_red_action kaddr;	/* effective: RELATIVE needs a _text symbol */
	uint64_t text_base;
	char base_name[64];		/* the symbol at text_base: _text, or another */
	bool big_endian;
	struct rpt_red_count n;
	bool rel_input;			/* the input's addresses are offsets already (redacted) */
	bool keep_kallsyms;		/* --keep-kallsyms: every symbol, not those used */
	char *kept;			/* paths kept ([vdso], memfd:x), '\n' after each */
	size_t kept_len, kept_cap;
	struct rpt_ksyms_keep *ksyms;	/* the kernel symbols the addresses met need */
	/* rewrite one record (a slice's prologue): 0 with *out (owned by the callee) */
	int (*rec)(void *arg, const uint8_t *in, uint32_t len, const uint8_t **out, uint32_t *olen);
	void *rec_arg;
};

/* Is v a kernel address (the upper half) of a kernel with longs of this size? */
bool rpt_red_is_kaddr(uint64_t v, int kernel_long);
/*
 * Is v a kernel address of this run's input: the upper half, or in a file
 * redacted before (rel_input) an offset from its base.
 */
bool rpt_red_ctx_is_kaddr(const struct rpt_red_ctx *c, uint64_t v, int kernel_long);
/*
 * v as the policy wants a kernel address: relative to _text, 0, or itself
 * (an offset already stays one).  Remembers it to keep its symbol.
 */
uint64_t rpt_red_kaddr(struct rpt_red_ctx *c, uint64_t v);

/*
 * A string value of class cls under action (-1: the class's rule)
 * appended to f: the token, nothing (drop) or the value.  Returns true
 * when it was changed.
 */
bool rpt_red_put(struct rpt_red_ctx *c, FILE *f, enum rpt_red_class cls, int action,
		 const char *v, size_t n);

/*
 * Every option of r that names something (UNAME, PROCMAPS, flytrap
 * metadata, build-ids, symbol tables, a slice's or merge's record), the
 * cmdlines and printk formats, redacted onto w.  The kallsyms are written
 * by rpt_red_write_kallsyms() after the events (it keeps the symbols they
 * use).  skip_option() tells rpt_copy_options which ones these are.
 */
bool rpt_red_skip_option(void *arg, const struct fmt_option *o);
int rpt_red_write_meta(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w,
		       const char **what);
int rpt_red_write_kallsyms(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w);
/*
 * record --bpf-object's options, redacted (after the events, before the
 * kallsyms): an object's path and --bpf-set strings, the maps' strings
 * (task names, paths) tokenized, a stack map's kernel addresses under the
 * kernel-address policy (their symbols kept).
 */
int rpt_red_write_bpfobjs(struct rpt_red_ctx *c, struct fmt_reader *r, struct fmt_writer *w);
/*
 * Words of r that are no user data, onto f: the symbol names of its
 * stored symbol tables (record --symbols) and the keys of its metadata.
 */
void rpt_red_public_words(struct fmt_reader *r, FILE *f);
/* The printk formats with their addresses as the policy wants (malloc'd), or NULL. */
char *rpt_red_printk(struct rpt_red_ctx *c, const char *text, size_t len, size_t *olen);
/*
 * The base of relative kernel addresses in a kallsyms text: _text, or
 * _stext, or the lowest text symbol (its name in name).  True when found.
 */
bool rpt_red_text_base(const char *text, size_t len, uint64_t *base, char *name, size_t cap);
/*
 * Whether a file's kernel addresses are offsets already (a redacted file):
 * its metadata says "redact_kernel_addresses=relative to NAME" (meta, may
 * be NULL), or its kallsyms hold _text or _stext at 0 and no address of
 * the upper half.  The base's name in name.
 */
bool rpt_red_relative_input(const char *meta, const char *text, size_t len, char *name,
			    size_t cap);

/*
 * Decoded check of the output's metadata: a replaced value left in a
 * cmdline, option value or word.  NULL when none, else a malloc'd
 * "'VALUE' in PLACE".
 */
char *rpt_red_check_meta(struct rpt_red_ctx *c, struct fmt_reader *r);

#endif
