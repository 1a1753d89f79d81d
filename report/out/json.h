/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one JSON writer of report/ (issue 10; after bpftool's json_writer.h):
 * objects, arrays, the commas between members, nesting and the escaping of
 * strings (flytrap.c ft_json_char: one rule for bytes that are not UTF-8)
 * are kept here, so a printer says only what it writes:
 *
 *	rpt_json_obj(j);
 *	rpt_json_kstr(j, "comm", t->comm);
 *	rpt_json_ku64(j, "switches", t->switches);
 *	rpt_json_obj_end(j);
 *
 * The writer buffers: output reaches the stream at rpt_json_flush() and
 * rpt_json_done(), or when the buffer is full.  Without a stream (f NULL)
 * the text stays in memory (rpt_json_take).  Writes never fail on the
 * spot: the first error is kept in err and returned by rpt_json_done().
 */
#ifndef FLYTRAP_RPT_JSON_H
#define FLYTRAP_RPT_JSON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RPT_JSON_BUF (64 * 1024)
/*
 * Nesting the writer keeps commas for: a call graph's tree nests two levels
 * per frame (the node, its children), and its stacks stop at 256 frames.
 */
#define RPT_JSON_MAX_DEPTH 4096

struct rpt_json {
	FILE *f;		/* NULL: the text is kept in buf, which grows */
	char *buf;
	size_t len, cap;
	int err;		/* first error (an errno value), 0: none */
	unsigned flags;		/* FT_JSON_SCRIPT: '<' escaped (JSON in an HTML <script>) */
	unsigned depth;		/* open objects and arrays */
	uint64_t had[RPT_JSON_MAX_DEPTH / 64];	/* bit d: the container at depth d has a member */
	bool keyed;		/* a key was written: its value takes no comma */
};

/* Start a writer on f (NULL: in memory); 0 or -ENOMEM. */
int rpt_json_init(struct rpt_json *j, FILE *f, unsigned flags);
/* Write out what is buffered (no stream: nothing). */
void rpt_json_flush(struct rpt_json *j);
/* Flush and free; 0, or -errno of the first failed write (or unclosed nesting: -EINVAL). */
int rpt_json_done(struct rpt_json *j);
/* The in-memory text (NUL-terminated, the caller frees it) and its length; the writer is done. */
char *rpt_json_take(struct rpt_json *j, size_t *len);

/* Make room for n bytes (flushes, or grows the memory buffer). */
void rpt_json_grow(struct rpt_json *j, size_t n);

static inline void rpt_json_need(struct rpt_json *j, size_t n)
{
	if (j->len + n > j->cap)
		rpt_json_grow(j, n);
}

/* Bytes as they are (already JSON), with no comma handling. */
static inline void rpt_json_raw(struct rpt_json *j, const char *s, size_t n)
{
	rpt_json_need(j, n);
	if (j->len + n <= j->cap) {
		memcpy(j->buf + j->len, s, n);
		j->len += n;
	}
}

#define RPT_JSON_LIT(j, s) rpt_json_raw(j, s, sizeof(s) - 1)

/*
 * The comma a value needs inside its container (none after a key, none for
 * the first member).  Inline: export writes millions of members.
 */
static inline void rpt_json_sep(struct rpt_json *j)
{
	unsigned d = j->depth - 1;

	if (j->keyed) {
		j->keyed = false;
		return;
	}
	if (!j->depth || j->depth > RPT_JSON_MAX_DEPTH)
		return;
	if (j->had[d / 64] & (1ULL << (d % 64)))
		RPT_JSON_LIT(j, ",");
	j->had[d / 64] |= 1ULL << (d % 64);
}

/*
 * A key given as a string literal that needs no escaping ("ts"): copied as
 * it is, quotes and colon included, with no scan.
 */
#define RPT_JSON_KEY_LIT(j, key) rpt_json_key_quoted(j, "\"" key "\":", sizeof(key) + 2)

static inline void rpt_json_key_quoted(struct rpt_json *j, const char *quoted, size_t n)
{
	rpt_json_sep(j);
	rpt_json_raw(j, quoted, n);
	j->keyed = true;
}

/*
 * Members already written as JSON text ("a":1,"b":2), put in the open
 * object with the comma before them: export formats a track's pid and tid
 * once for the two events of a slice.
 */
static inline void rpt_json_members(struct rpt_json *j, const char *text, size_t n)
{
	rpt_json_sep(j);
	rpt_json_raw(j, text, n);
}

/*
 * The separator of the next value, then a newline: the value starts a line
 * of its own (export's one event per line).
 */
static inline void rpt_json_newline(struct rpt_json *j)
{
	rpt_json_sep(j);
	RPT_JSON_LIT(j, "\n");
	j->keyed = true;	/* the separator is written */
}

/* Empty an in-memory writer (and its nesting) to write the next text into it. */
static inline void rpt_json_reset(struct rpt_json *j)
{
	j->len = 0;
	j->depth = 0;
	j->keyed = false;
}

/* Open an object or array ('{', '['): inline, like its close. */
static inline void rpt_json_open(struct rpt_json *j, char c)
{
	unsigned d;

	rpt_json_sep(j);
	rpt_json_raw(j, &c, 1);
	d = j->depth++;
	if (j->depth > RPT_JSON_MAX_DEPTH) {
		if (!j->err)
			j->err = EINVAL;
		return;
	}
	j->had[d / 64] &= ~(1ULL << (d % 64));
}

static inline void rpt_json_close(struct rpt_json *j, char c)
{
	if (!j->depth) {
		if (!j->err)
			j->err = EINVAL;
		return;
	}
	j->depth--;
	j->keyed = false;
	rpt_json_raw(j, &c, 1);
}

static inline void rpt_json_obj(struct rpt_json *j)
{
	rpt_json_open(j, '{');
}

static inline void rpt_json_obj_end(struct rpt_json *j)
{
	rpt_json_close(j, '}');
}

/* Tokens with no comma handling (for writers that keep their own). */
void rpt_json_put_u64(struct rpt_json *j, uint64_t v);
void rpt_json_put_i64(struct rpt_json *j, int64_t v);
void rpt_json_put_strn(struct rpt_json *j, const char *s, size_t n);	/* stops at NUL */

/* Values: each one takes the comma it needs inside its container. */
void rpt_json_arr(struct rpt_json *j);
void rpt_json_arr_end(struct rpt_json *j);
void rpt_json_key(struct rpt_json *j, const char *key);
void rpt_json_keyn(struct rpt_json *j, const char *key, size_t n);
void rpt_json_str(struct rpt_json *j, const char *s);		/* NULL: "" */
void rpt_json_strn(struct rpt_json *j, const char *s, size_t n);
void rpt_json_str_or_null(struct rpt_json *j, const char *s);	/* NULL: null */
void rpt_json_u64(struct rpt_json *j, uint64_t v);
void rpt_json_i64(struct rpt_json *j, int64_t v);
void rpt_json_bool(struct rpt_json *j, bool v);
void rpt_json_null(struct rpt_json *j);
/* A number with prec decimals ("%.*f"); NaN and infinities as null. */
void rpt_json_double(struct rpt_json *j, int prec, double v);
/*
 * v thousandths with their three decimals, exactly: 1234567 is 1234.567
 * (nanoseconds as microseconds).
 */
void rpt_json_milli(struct rpt_json *j, uint64_t v);
/* A value that is JSON already (n bytes). */
void rpt_json_value(struct rpt_json *j, const char *text, size_t n);
/*
 * A value some other function prints to a stream: the comma is written and
 * the buffer flushed, and the stream returned (NULL without one).
 */
FILE *rpt_json_value_stream(struct rpt_json *j);

/* Members: "key":value */
void rpt_json_kobj(struct rpt_json *j, const char *key);
void rpt_json_karr(struct rpt_json *j, const char *key);
void rpt_json_kstr(struct rpt_json *j, const char *key, const char *s);
void rpt_json_kstr_or_null(struct rpt_json *j, const char *key, const char *s);
void rpt_json_ku64(struct rpt_json *j, const char *key, uint64_t v);
void rpt_json_ki64(struct rpt_json *j, const char *key, int64_t v);
void rpt_json_kbool(struct rpt_json *j, const char *key, bool v);
void rpt_json_knull(struct rpt_json *j, const char *key);
void rpt_json_kdouble(struct rpt_json *j, const char *key, int prec, double v);
void rpt_json_kmilli(struct rpt_json *j, const char *key, uint64_t v);

#endif
