// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON writer of report/ (json.h): a buffer, the nesting state that
 * places the commas, and string escaping by flytrap's one rule.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "flytrap.h"
#include "report/out/json.h"

int rpt_json_init(struct rpt_json *j, FILE *f, unsigned flags)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->flags = flags;
	j->cap = f ? RPT_JSON_BUF : 256;
	j->buf = malloc(j->cap + 1);
	if (!j->buf) {
		j->cap = 0;
		j->err = ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

void rpt_json_flush(struct rpt_json *j)
{
	if (!j->f || !j->len)
		return;
	if (fwrite(j->buf, 1, j->len, j->f) != j->len && !j->err)
		j->err = errno ? errno : EIO;
	j->len = 0;
}

void rpt_json_grow(struct rpt_json *j, size_t n)
{
	size_t cap = j->cap ? j->cap : 256;
	char *b;

	if (j->f) {
		rpt_json_flush(j);
		if (n <= j->cap)
			return;
	}
	while (cap < j->len + n) {
		if (cap > SIZE_MAX / 4)
			goto fail;
		cap *= 2;
	}
	b = realloc(j->buf, cap + 1);
	if (!b)
		goto fail;
	j->buf = b;
	j->cap = cap;
	return;
fail:
	if (!j->err)
		j->err = ENOMEM;
}

int rpt_json_done(struct rpt_json *j)
{
	int err;

	rpt_json_flush(j);
	if (j->depth && !j->err)
		j->err = EINVAL;
	err = j->err;
	free(j->buf);
	memset(j, 0, sizeof(*j));
	return -err;
}

char *rpt_json_take(struct rpt_json *j, size_t *len)
{
	char *b = j->buf;

	if (j->err || j->f || !b) {
		free(b);
		memset(j, 0, sizeof(*j));
		*len = 0;
		return NULL;
	}
	b[j->len] = '\0';	/* cap + 1 bytes are allocated */
	*len = j->len;
	memset(j, 0, sizeof(*j));
	return b;
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The decimal digits of v, two at a time, ending at end; returns where they start. */
static inline char *u64_digits(char *end, uint64_t v)
{
	char *p = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

/* n (at most 28) bytes from s: a loop, cheaper than a call for a number's few digits */
static inline void put_short(struct rpt_json *j, const char *s, size_t n)
{
	char *d;

	rpt_json_need(j, n);
	if (j->len + n > j->cap)
		return;
	d = j->buf + j->len;
	j->len += n;
	while (n--)
		*d++ = *s++;
}

void rpt_json_put_u64(struct rpt_json *j, uint64_t v)
{
	char t[24], *p = u64_digits(t + sizeof(t), v);

	put_short(j, p, (size_t)(t + sizeof(t) - p));
}

void rpt_json_put_i64(struct rpt_json *j, int64_t v)
{
	if (v < 0) {
		RPT_JSON_LIT(j, "-");
		rpt_json_put_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		rpt_json_put_u64(j, (uint64_t)v);
	}
}

/*
 * Byte by byte into the buffer, room made for 64 bytes at a time (8 per
 * byte: the longest escape): names are short, and a call per run of
 * plain bytes costs more than this loop.
 */
void rpt_json_put_strn(struct rpt_json *j, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	unsigned char lt = j->flags & FT_JSON_SCRIPT ? '<' : '"';	/* '"': no extra byte */
	size_t i = 0;

	RPT_JSON_LIT(j, "\"");
	while (i < n && p[i]) {
		char *d, *lim;

		rpt_json_need(j, 64);
		if (j->len + 64 > j->cap)
			return;		/* out of memory: err is set */
		d = j->buf + j->len;
		lim = d + 56;
		while (d < lim && i < n && p[i]) {
			unsigned char c = p[i];
			size_t used;

			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != lt) {
				*d++ = (char)c;
				i++;
				continue;
			}
			d += ft_json_char(p + i, n - i, j->flags, d, &used);
			i += used;
		}
		j->len = (size_t)(d - j->buf);
	}
	RPT_JSON_LIT(j, "\"");
}

/* Before a value: the comma after the container's previous member. */
static void before_value(struct rpt_json *j)
{
	rpt_json_sep(j);
}

void rpt_json_arr(struct rpt_json *j)
{
	rpt_json_open(j, '[');
}

void rpt_json_arr_end(struct rpt_json *j)
{
	rpt_json_close(j, ']');
}

void rpt_json_keyn(struct rpt_json *j, const char *key, size_t n)
{
	before_value(j);
	rpt_json_put_strn(j, key, n);
	RPT_JSON_LIT(j, ":");
	j->keyed = true;
}

void rpt_json_key(struct rpt_json *j, const char *key)
{
	rpt_json_keyn(j, key, SIZE_MAX);
}

void rpt_json_strn(struct rpt_json *j, const char *s, size_t n)
{
	before_value(j);
	rpt_json_put_strn(j, s, n);
}

void rpt_json_str(struct rpt_json *j, const char *s)
{
	rpt_json_strn(j, s, SIZE_MAX);
}

void rpt_json_str_or_null(struct rpt_json *j, const char *s)
{
	if (s)
		rpt_json_str(j, s);
	else
		rpt_json_null(j);
}

void rpt_json_u64(struct rpt_json *j, uint64_t v)
{
	before_value(j);
	rpt_json_put_u64(j, v);
}

void rpt_json_i64(struct rpt_json *j, int64_t v)
{
	before_value(j);
	rpt_json_put_i64(j, v);
}

void rpt_json_bool(struct rpt_json *j, bool v)
{
	before_value(j);
	if (v)
		RPT_JSON_LIT(j, "true");
	else
		RPT_JSON_LIT(j, "false");
}

void rpt_json_null(struct rpt_json *j)
{
	before_value(j);
	RPT_JSON_LIT(j, "null");
}

void rpt_json_double(struct rpt_json *j, int prec, double v)
{
	char t[64];
	int n;

	if (!isfinite(v)) {
		rpt_json_null(j);
		return;
	}
	before_value(j);
	n = snprintf(t, sizeof(t), "%.*f", prec < 0 ? 0 : prec > 17 ? 17 : prec, v);
	if (n > 0 && (size_t)n < sizeof(t))
		rpt_json_raw(j, t, (size_t)n);
	else
		RPT_JSON_LIT(j, "null");	/* past 1e45: no figure of ours is */
}

void rpt_json_milli(struct rpt_json *j, uint64_t v)
{
	char t[28], *end = t + sizeof(t), *p;
	unsigned r = (unsigned)(v % 1000);

	before_value(j);
	end[-4] = '.';
	end[-3] = (char)('0' + r / 100);
	memcpy(end - 2, digits2 + 2 * (r % 100), 2);
	p = u64_digits(end - 4, v / 1000);
	put_short(j, p, (size_t)(end - p));
}

void rpt_json_value(struct rpt_json *j, const char *text, size_t n)
{
	before_value(j);
	rpt_json_raw(j, text, n);
}

FILE *rpt_json_value_stream(struct rpt_json *j)
{
	before_value(j);
	rpt_json_flush(j);
	return j->f;
}

void rpt_json_kobj(struct rpt_json *j, const char *key)
{
	rpt_json_key(j, key);
	rpt_json_obj(j);
}

void rpt_json_karr(struct rpt_json *j, const char *key)
{
	rpt_json_key(j, key);
	rpt_json_arr(j);
}

void rpt_json_kstr(struct rpt_json *j, const char *key, const char *s)
{
	rpt_json_key(j, key);
	rpt_json_str(j, s);
}

void rpt_json_kstr_or_null(struct rpt_json *j, const char *key, const char *s)
{
	rpt_json_key(j, key);
	rpt_json_str_or_null(j, s);
}

void rpt_json_ku64(struct rpt_json *j, const char *key, uint64_t v)
{
	rpt_json_key(j, key);
	rpt_json_u64(j, v);
}

void rpt_json_ki64(struct rpt_json *j, const char *key, int64_t v)
{
	rpt_json_key(j, key);
	rpt_json_i64(j, v);
}

void rpt_json_kbool(struct rpt_json *j, const char *key, bool v)
{
	rpt_json_key(j, key);
	rpt_json_bool(j, v);
}

void rpt_json_knull(struct rpt_json *j, const char *key)
{
	rpt_json_key(j, key);
	rpt_json_null(j);
}

void rpt_json_kdouble(struct rpt_json *j, const char *key, int prec, double v)
{
	rpt_json_key(j, key);
	rpt_json_double(j, prec, v);
}

void rpt_json_kmilli(struct rpt_json *j, const char *key, uint64_t v)
{
	rpt_json_key(j, key);
	rpt_json_milli(j, v);
}
