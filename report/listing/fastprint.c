// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiled event formatters (see fastprint.h).
 *
 * libtraceevent keeps a parsed print format per event, but still walks it
 * per record: every conversion goes through vsnprintf, every atom through
 * strtoull, field names are looked up with strcmp and the result is copied
 * through a temporary trace_seq.  Most events in real traces use a tiny
 * subset of the print-format language, so we translate that subset once
 * per event type into operations that read the record directly, and
 * decline anything else.
 *
 * The translation mirrors libtraceevent 1.7's own reading of the format:
 * the literal text with its backslash escapes and "%%", one argument per
 * conversion, integers read unsigned from the record and then passed to
 * printf as char/short/int/long/long long according to the h/l modifiers,
 * casts that only mask, "%s" of a char array printed up to its first NUL,
 * "%s" of __get_str() printed as a C string unless the __data_loc length
 * is 0.  The differential test (tests/unit/test_rpt_fastprint.c) holds it
 * to the library's output.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/listing/fastprint.h"
#include "format.h"
#include "report/core/kinds.h"

/* ---- compiled representation ------------------------------------------ */

/* A numeric expression over the record (the eval_num_arg() subset we take). */
enum xkind {
	X_CONST,	/* val */
	X_FIELD,	/* size bytes at offset, unsigned */
	X_CAST,		/* a, masked with val when val != 0 */
	X_INDEX,	/* size bytes at offset + a * size, then masked with val when val != 0 */
	X_BINOP,	/* a op b (both evaluated, like libtraceevent) */
	X_COND,		/* a ? b : c */
	X_DYNLEN,	/* the length half of the __data_loc word at offset */
};

struct xnode {
	enum xkind kind;
	int offset;
	int size;
	char op[3];
	uint64_t val;
	struct xnode *a, *b, *c;
	struct xnode *pool_next;	/* every node of a type, for freeing */
};

/* What a %s prints (print_str_arg()'s subset). */
enum skind {
	S_CONST,	/* text (a string atom) */
	S_FIELD,	/* a fixed-size field, up to its first NUL */
	S_DYN,		/* __get_str(): a __data_loc / __rel_loc string */
	S_FLAGS,	/* __print_flags(x, delim, { value, "name" }, ...) */
	S_SYMBOL,	/* __print_symbolic(x, { value, "name" }, ...) */
	S_COND,		/* x ? a : b */
	S_ARRAY,	/* __print_array(__get_dynamic_array(f), len(f) / n, n), libtraceevent 1.8 */
};

struct sym_value {
	int64_t val;
	const char *str;	/* the event's own string, owned by libtraceevent */
	size_t len;
};

struct snode {
	enum skind kind;
	const char *text;	/* S_CONST (libtraceevent's), S_FLAGS delimiter or NULL */
	size_t len;
	int foff, fsize;	/* S_FIELD / S_DYN */
	bool rel;		/* S_DYN: __rel_loc */
	struct xnode *x;	/* S_FLAGS / S_SYMBOL / S_COND */
	struct sym_value *syms;	/* S_FLAGS / S_SYMBOL */
	int nsyms;
	struct snode *a, *b;	/* S_COND */
	struct snode *pool_next;
};

enum okind {
	O_LIT,		/* text */
	O_INT,		/* d i u x X o */
	O_PTR,		/* plain %p */
	O_FUNC,		/* %ps %pf (name), %pS %pF (name+0xoffset) of a kernel address */
	O_STR,		/* %s */
};

struct fop {
	enum okind kind;
	char conv;
	uint8_t bits;		/* O_INT: width of the C argument printf sees */
	bool sgn;		/* O_INT: signed conversion (d, i) */
	bool minus, zero, hash;
	bool simple;		/* O_INT: none of the flags, no width, no precision */
	int width;		/* -1: none */
	int prec;		/* -1: none */
	char *text;		/* O_LIT (owned) */
	size_t textlen;
	struct xnode *x;	/* O_INT, O_PTR */
	struct snode *str;	/* O_STR */
};

enum tkind {
	T_UNSEEN = 0,
	T_DECLINED,
	T_GENERIC,
	T_SWITCH,	/* plugin_sched_switch: sched_switch */
	T_WAKEUP,	/* plugin_sched_switch: sched_wakeup, sched_wakeup_new */
	T_KMEM,		/* plugin_kmem: "(func+0xoff) " of call_site, then the print format */
	T_HRSTART,	/* plugin_hrtimer: hrtimer_start */
	T_HREXPIRE,	/* plugin_hrtimer: hrtimer_expire_entry */
	T_FUTEX,	/* plugin_futex: syscalls:sys_enter_futex */
};

struct sfield {
	int off, size;
	bool ok;
};

struct ftype {
	enum tkind kind;
	const char *why;		/* T_DECLINED: static reason */
	int retries;			/* compiles left for a "symbol atom" decline */
	tep_event_handler_func handler;	/* what the type was compiled against */
	int flags;
	int min_size;			/* records shorter than this are declined */
	int nops;
	struct fop *ops;
	struct xnode *pool;
	struct snode *spool;
	/* T_SWITCH / T_WAKEUP */
	struct sfield pid, prio, state, next_pid, next_prio, success, target_cpu;
	struct sfield comm, next_comm;
	/* sched_switch: the __print_flags() list of prev_state in the event's format */
	struct tep_print_flag_sym *state_syms;
	struct sfield call_site;	/* T_KMEM */
	/* T_HRSTART / T_HREXPIRE ("timer" on old kernels, else "hrtimer") */
	struct sfield timer, function, expires, softexpires, now;
	/* T_FUTEX */
	struct sfield uaddr, op, val, utime, uaddr2, val3;
};

struct rpt_fastprint {
	struct tep_handle *tep;
	bool swap;		/* file byte order differs from ours */
	int long_size;
	struct ftype **types;	/* by event ID */
	int ntypes;
	/*
	 * Comm registration (what plugin_sched_switch does for every comm it
	 * prints) is a no-op for pids libtraceevent already has once its comm
	 * list became the sorted array; we learn that from the EEXIST it
	 * answers and skip the lookups from then on.
	 */
	/* kernel symbol lookups, direct-mapped (call sites repeat) */
	struct fcache {
		uint64_t addr;
		const char *name;	/* NULL: no symbol */
		uint64_t start;
		bool valid;
	} fcache[256];
	bool comm_array;
	uint64_t *pid_known;	/* bitmap of pids known to be registered */
	size_t pid_words;
	char *buf;		/* the text being built; appended to s only on success */
	size_t len, cap;
	bool oom;
	int compat;		/* the libtraceevent printed: 17 (1.7, trace-cmd 3.1.6), 18 (1.8) */
	struct rpt_fastprint_stats st;
};

/* ---- helpers ------------------------------------------------------------ */

/* as libtraceevent reads a number of the record, byte order included */
static inline uint64_t rd(const struct rpt_fastprint *fp, const uint8_t *p, int size)
{
	return fmt_read_num(p, size, fp->swap);
}

static bool grow(struct rpt_fastprint *fp, size_t n);

static inline bool reserve(struct rpt_fastprint *fp, size_t n)
{
	return fp->cap - fp->len >= n || grow(fp, n);
}

static bool grow(struct rpt_fastprint *fp, size_t n)
{
	size_t cap;
	char *nb;

	if (fp->len + n <= fp->cap)
		return true;
	cap = fp->cap ? fp->cap : 256;
	while (cap < fp->len + n)
		cap *= 2;
	nb = realloc(fp->buf, cap);
	if (!nb) {
		fp->oom = true;
		return false;
	}
	fp->buf = nb;
	fp->cap = cap;
	return true;
}

static inline void put(struct rpt_fastprint *fp, const char *p, size_t n)
{
	if (!reserve(fp, n))
		return;
	memcpy(fp->buf + fp->len, p, n);
	fp->len += n;
}

static inline void putch(struct rpt_fastprint *fp, char c)
{
	if (fp->len < fp->cap || reserve(fp, 1))
		fp->buf[fp->len++] = c;
}

static void putpad(struct rpt_fastprint *fp, char c, int n)
{
	if (n <= 0 || !reserve(fp, n))
		return;
	memset(fp->buf + fp->len, c, n);
	fp->len += n;
}

static inline int udigits(uint64_t v)
{
	int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	if (v >= 1000)
		return n + 3;
	if (v >= 100)
		return n + 2;
	return v >= 10 ? n + 1 : n;
}

/* Decimal digits of v written backwards, ending right before end. */
static inline void put_dec_back(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		end[0] = pairs[2 * r];
		end[1] = pairs[2 * r + 1];
	}
	if (v >= 10) {
		end -= 2;
		end[0] = pairs[2 * v];
		end[1] = pairs[2 * v + 1];
	} else {
		*--end = (char)('0' + v);
	}
}

/* printf's integer conversions, for the flags the compiler accepted. */
static void put_int(struct rpt_fastprint *fp, const struct fop *op, uint64_t v)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	const char *dig = op->conv == 'X' ? upper : lower;
	char tmp[32];
	int nd = 0, zeros = 0, len, pad;
	unsigned base = 10;
	const char *prefix = "";
	char sign = 0;
	uint64_t mag;

	if (op->bits < 64) {
		uint64_t m = (1ULL << op->bits) - 1;

		v &= m;
		if (op->sgn && (v >> (op->bits - 1)))
			v |= ~m;
	}
	if (op->simple) {
		/* no width, precision or flags: the common case, digits straight out */
		char *o;
		int n;

		if (op->conv == 'x' || op->conv == 'X') {
			int k;

			n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
			if (!reserve(fp, n))
				return;
			o = fp->buf + fp->len + n;
			/* two digits a step (addresses have up to 16) */
			for (k = n; k >= 2; k -= 2) {
				unsigned b = (unsigned)(v & 0xff);

				o -= 2;
				o[0] = dig[b >> 4];
				o[1] = dig[b & 15];
				v >>= 8;
			}
			if (k)
				*--o = dig[v & 15];
		} else if (op->conv == 'o') {
			n = v ? (64 - __builtin_clzll(v) + 2) / 3 : 1;
			if (!reserve(fp, n))
				return;
			o = fp->buf + fp->len + n;
			do {
				*--o = (char)('0' + (v & 7));
				v >>= 3;
			} while (v);
		} else {
			bool neg = op->sgn && (int64_t)v < 0;

			mag = neg ? -v : v;
			n = udigits(mag) + neg;
			if (!reserve(fp, n))
				return;
			o = fp->buf + fp->len + n;
			put_dec_back(o, mag);
			if (neg)
				fp->buf[fp->len] = '-';
		}
		fp->len += n;
		return;
	}
	if (op->sgn && (int64_t)v < 0) {
		sign = '-';
		mag = -v;
	} else {
		mag = v;
	}
	if (op->conv == 'x' || op->conv == 'X')
		base = 16;
	else if (op->conv == 'o')
		base = 8;
	if (base == 10) {
		while (mag) {
			tmp[nd++] = (char)('0' + mag % 10);
			mag /= 10;
		}
	} else {
		unsigned shift = base == 16 ? 4 : 3;

		if (op->hash && base == 16 && mag)
			prefix = op->conv == 'X' ? "0X" : "0x";
		while (mag) {
			tmp[nd++] = dig[mag & (base - 1)];
			mag >>= shift;
		}
	}
	if (op->prec >= 0)
		zeros = op->prec > nd ? op->prec - nd : 0;
	else if (!nd)
		zeros = 1;
	if (op->hash && base == 8 && !zeros)
		zeros = 1;
	len = (sign ? 1 : 0) + (int)strlen(prefix) + zeros + nd;
	pad = op->width - len;
	if (!op->minus && !(op->zero && op->prec < 0))
		putpad(fp, ' ', pad);
	if (sign)
		putch(fp, sign);
	put(fp, prefix, strlen(prefix));
	if (!op->minus && op->zero && op->prec < 0)
		putpad(fp, '0', pad);
	putpad(fp, '0', zeros);
	if (reserve(fp, nd))
		while (nd)
			fp->buf[fp->len++] = tmp[--nd];
	if (op->minus)
		putpad(fp, ' ', pad);
}

static void put_str(struct rpt_fastprint *fp, const struct fop *op, const char *p, size_t n)
{
	int pad;

	if (op->prec >= 0 && n > (size_t)op->prec)
		n = op->prec;
	pad = op->width > (int)n ? op->width - (int)n : 0;
	if (!op->minus)
		putpad(fp, ' ', pad);
	put(fp, p, n);
	if (op->minus)
		putpad(fp, ' ', pad);
}

/* Decimal of an unsigned value, no padding (the sched formatters). */
static void put_u64(struct rpt_fastprint *fp, uint64_t v)
{
	int n = udigits(v);

	if (!reserve(fp, n))
		return;
	put_dec_back(fp->buf + fp->len + n, v);
	fp->len += n;
}

static void put_s64(struct rpt_fastprint *fp, int64_t v)
{
	if (v < 0) {
		putch(fp, '-');
		put_u64(fp, -(uint64_t)v);
	} else {
		put_u64(fp, v);
	}
}

/* ---- expression evaluation --------------------------------------------- */

static bool xeval(const struct rpt_fastprint *fp, const struct xnode *x,
		  const uint8_t *d, int size, uint64_t *out)
{
	uint64_t a, b;

	switch (x->kind) {
	case X_CONST:
		*out = x->val;
		return true;
	case X_FIELD:
		/* offset + size <= min_size, checked once per record */
		*out = rd(fp, d + x->offset, x->size);
		return true;
	case X_CAST:
		if (!xeval(fp, x->a, d, size, &a))
			return false;
		*out = x->val ? a & x->val : a;
		return true;
	case X_INDEX: {
		uint64_t off;

		if (!xeval(fp, x->a, d, size, &a))
			return false;
		/* an index past the record: libtraceevent reads garbage or warns */
		if (a > (uint64_t)size)
			return false;
		off = (uint64_t)x->offset + a * (uint64_t)x->size;
		if (off + x->size > (uint64_t)size)
			return false;
		a = rd(fp, d + off, x->size);
		*out = x->val ? a & x->val : a;
		return true;
	}
	case X_COND:
		if (!xeval(fp, x->a, d, size, &a))
			return false;
		return xeval(fp, a ? x->b : x->c, d, size, out);
	case X_DYNLEN:
		a = rd(fp, d + x->offset, 4);
		/*
		 * libtraceevent prints 0 when offset + length (the offset as
		 * stored, even a __rel_loc's) passes the record's end: a damaged
		 * record, left to it
		 */
		if ((a & 0xffff) + (a >> 16) > (uint64_t)size)
			return false;
		*out = a >> 16;
		return true;
	case X_BINOP:
		if (!xeval(fp, x->a, d, size, &a) || !xeval(fp, x->b, d, size, &b))
			return false;
		switch (x->op[0]) {
		case '!':
			*out = x->op[1] ? a != b : !b;
			return true;
		case '~':
			*out = ~b;
			return true;
		case '|':
			*out = x->op[1] ? (a || b) : (a | b);
			return true;
		case '&':
			*out = x->op[1] ? (a && b) : (a & b);
			return true;
		case '<':
			if (x->op[1] == '<') {
				if (b >= 64)
					return false;
				*out = a << b;
			} else {
				*out = x->op[1] ? a <= b : a < b;
			}
			return true;
		case '>':
			if (x->op[1] == '>') {
				if (b >= 64)
					return false;
				*out = a >> b;
			} else {
				*out = x->op[1] ? a >= b : a > b;
			}
			return true;
		case '=':
			*out = a == b;
			return true;
		case '-':
			*out = a - b;
			return true;
		case '+':
			*out = a + b;
			return true;
		case '*':
			*out = a * b;
			return true;
		case '/':
			if (!b)
				return false;
			*out = a / b;
			return true;
		case '%':
			if (!b)
				return false;
			*out = a % b;
			return true;
		}
		return false;
	}
	return false;
}

static inline bool xget(const struct rpt_fastprint *fp, const struct xnode *x,
			const uint8_t *d, int size, uint64_t *out)
{
	if (x->kind == X_FIELD) {
		*out = rd(fp, d + x->offset, x->size);
		return true;
	}
	return xeval(fp, x, d, size, out);
}

/* ---- compiling ---------------------------------------------------------- */

/* compared by address: a decline worth another try (see lookup()) */
static const char why_symbol_atom[] = "symbol atom";

struct cc {
	struct rpt_fastprint *fp;
	struct tep_event *event;
	struct ftype *t;
	const char *why;
	int cap;
};

static struct xnode *xnew(struct cc *c, enum xkind kind)
{
	struct xnode *x = calloc(1, sizeof(*x));

	if (!x) {
		c->why = "out of memory";
		return NULL;
	}
	x->kind = kind;
	x->pool_next = c->t->pool;
	c->t->pool = x;
	return x;
}

static void need(struct cc *c, int end)
{
	if (end > c->t->min_size)
		c->t->min_size = end;
}

static struct tep_format_field *arg_field(struct cc *c, struct tep_print_arg *arg)
{
	struct tep_format_field *f = arg->field.field;

	if (!f && arg->field.name)
		f = tep_find_any_field(c->event, arg->field.name);
	if (!f)
		c->why = "unknown field";
	return f;
}

/*
 * What libtraceevent's cast evaluation does to a value: mask for the sized
 * integer types it knows, nothing for anything else.  Returns the mask, 0
 * for "unchanged".
 */
static uint64_t cast_mask(const char *type)
{
	size_t len = strlen(type);

	if (!len || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return 0;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strcmp(type, "u64") || !strcmp(type, "s64"))
		return 0;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return 0;
}

static bool good_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static struct xnode *compile_num(struct cc *c, struct tep_print_arg *arg, int depth);

static struct xnode *compile_atom(struct cc *c, const struct tep_print_arg *arg)
{
	const char *a = arg->atom.atom;
	struct xnode *x;
	uint64_t v;

	if (!a) {
		c->why = "atom";
		return NULL;
	}
	v = strtoull(a, NULL, 0);
	/* a zero that is not a number is a kernel symbol name */
	if (!v && !isdigit((unsigned char)a[0])) {
		c->why = why_symbol_atom;
		return NULL;
	}
	x = xnew(c, X_CONST);
	if (x)
		x->val = v;
	return x;
}

static struct xnode *compile_field(struct cc *c, struct tep_print_arg *arg)
{
	struct tep_format_field *f = arg_field(c, arg);
	struct xnode *x;

	if (!f)
		return NULL;
	if (!good_size(f->size) || f->offset < 0) {
		c->why = "field size";
		return NULL;
	}
	x = xnew(c, X_FIELD);
	if (x) {
		x->offset = f->offset;
		x->size = f->size;
		need(c, f->offset + f->size);
	}
	return x;
}

/*
 * __get_dynamic_array_len(f): libtraceevent (1.7 and 1.8 alike) prints the
 * top half of the __data_loc word, the length in bytes, without reading the
 * data.  flytrap's BPF events print their copied user stack's length so;
 * declining them let libtraceevent 1.7 print the whole event, __print_array
 * as 1.7 does, where the default listing is 1.8's.
 */
static struct xnode *compile_dynlen(struct cc *c, struct tep_print_arg *arg)
{
	struct tep_format_field *f = arg->dynarray.field;
	struct xnode *x;

	if (!f || f->size != 4 || f->offset < 0) {
		c->why = "__get_dynamic_array_len";
		return NULL;
	}
	x = xnew(c, X_DYNLEN);
	if (!x)
		return NULL;
	x->offset = f->offset;
	x->size = f->size;
	need(c, f->offset + f->size);
	return x;
}

static struct xnode *compile_cast(struct cc *c, struct tep_print_arg *arg, int depth)
{
	struct xnode *x;

	if (!arg->typecast.type) {
		c->why = "cast";
		return NULL;
	}
	x = xnew(c, X_CAST);
	if (!x)
		return NULL;
	x->val = cast_mask(arg->typecast.type);
	x->a = compile_num(c, arg->typecast.item, depth + 1);
	return x->a ? x : NULL;
}

/* FIELD[i], possibly under casts: an element read (a constant index: a plain field read) */
static struct xnode *compile_index(struct cc *c, struct tep_print_arg *arg, int depth)
{
	struct tep_print_arg *l = arg->op.left, *typearg = NULL;
	struct tep_format_field *f;
	struct xnode *x;

	while (l && l->type == TEP_PRINT_TYPE) {
		if (!typearg)
			typearg = l;
		l = l->typecast.item;
	}
	if (!l || l->type != TEP_PRINT_FIELD) {
		c->why = "index of a non-field";
		return NULL;
	}
	f = arg_field(c, l);
	if (!f)
		return NULL;
	if (!good_size(f->elementsize) || f->offset < 0) {
		c->why = "element size";
		return NULL;
	}
	x = xnew(c, X_INDEX);
	if (!x)
		return NULL;
	x->offset = f->offset;
	x->size = f->elementsize;
	if (typearg) {
		/* libtraceevent strips the " *" of the cast's pointer type */
		const char *ty = typearg->typecast.type;
		size_t len = ty ? strlen(ty) : 0;
		char buf[64];

		if (len < 2 || len >= sizeof(buf) || ty[len - 1] != '*') {
			c->why = "cast of an element";
			return NULL;
		}
		memcpy(buf, ty, len - 2);
		buf[len - 2] = 0;
		x->val = cast_mask(buf);
	}
	x->a = compile_num(c, arg->op.right, depth + 1);
	if (!x->a)
		return NULL;
	/* REC->args[3]: a constant index is a plain field read */
	if (x->a->kind == X_CONST && !x->val && x->a->val < 4096) {
		x->kind = X_FIELD;
		x->offset += (int)x->a->val * x->size;
		need(c, x->offset + x->size);
	}
	return x;
}

static struct xnode *compile_cond(struct cc *c, struct tep_print_arg *arg, int depth)
{
	struct tep_print_arg *r = arg->op.right;
	struct xnode *x;

	if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":")) {
		c->why = "ternary";
		return NULL;
	}
	x = xnew(c, X_COND);
	if (!x)
		return NULL;
	x->a = compile_num(c, arg->op.left, depth + 1);
	x->b = x->a ? compile_num(c, r->op.left, depth + 1) : NULL;
	x->c = x->b ? compile_num(c, r->op.right, depth + 1) : NULL;
	return x->c ? x : NULL;
}

/* the operators the evaluator knows, as libtraceevent spells them */
static bool known_binop(const char *op)
{
	static const char *const ops[] = {
		"!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=", ">", ">>", ">=", "==",
		"-", "+", "*", "/", "%",
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

static struct xnode *compile_op(struct cc *c, struct tep_print_arg *arg, int depth)
{
	const char *op = arg->op.op;
	struct xnode *x;

	if (!op || strlen(op) > 2) {
		c->why = "operator";
		return NULL;
	}
	if (!strcmp(op, "["))
		return compile_index(c, arg, depth);
	if (!strcmp(op, "?"))
		return compile_cond(c, arg, depth);
	if (!known_binop(op)) {
		c->why = "operator";
		return NULL;
	}
	x = xnew(c, X_BINOP);
	if (!x)
		return NULL;
	strcpy(x->op, op);
	/* libtraceevent evaluates both sides, even of a unary operator */
	x->a = compile_num(c, arg->op.left, depth + 1);
	x->b = x->a ? compile_num(c, arg->op.right, depth + 1) : NULL;
	return x->b ? x : NULL;
}

static struct xnode *compile_num(struct cc *c, struct tep_print_arg *arg, int depth)
{
	if (!arg || depth > 32) {
		c->why = "expression";
		return NULL;
	}
	switch (arg->type) {
	case TEP_PRINT_NULL:
		return xnew(c, X_CONST);
	case TEP_PRINT_ATOM:
		return compile_atom(c, arg);
	case TEP_PRINT_FIELD:
		return compile_field(c, arg);
	case TEP_PRINT_TYPE:
		return compile_cast(c, arg, depth);
	case TEP_PRINT_OP:
		return compile_op(c, arg, depth);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return compile_dynlen(c, arg);
	case TEP_PRINT_FLAGS:
		c->why = "__print_flags";
		return NULL;
	case TEP_PRINT_SYMBOL:
		c->why = "__print_symbolic";
		return NULL;
	case TEP_PRINT_FUNC:
		c->why = "function";
		return NULL;
	default:
		c->why = "argument kind";
		return NULL;
	}
}

static struct fop *newop(struct cc *c, enum okind kind)
{
	struct ftype *t = c->t;
	struct fop *op;

	if (t->nops == c->cap) {
		int cap = c->cap ? c->cap * 2 : 8;
		struct fop *n = realloc(t->ops, cap * sizeof(*n));

		if (!n) {
			c->why = "out of memory";
			return NULL;
		}
		t->ops = n;
		c->cap = cap;
	}
	op = &t->ops[t->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->width = -1;
	op->prec = -1;
	return op;
}

static bool add_lit(struct cc *c, const char *p, size_t n)
{
	struct fop *op;

	if (!n)
		return true;
	/* merge with a literal right before */
	if (c->t->nops && c->t->ops[c->t->nops - 1].kind == O_LIT) {
		op = &c->t->ops[c->t->nops - 1];
		char *nt = realloc(op->text, op->textlen + n + 1);

		if (!nt) {
			c->why = "out of memory";
			return false;
		}
		memcpy(nt + op->textlen, p, n);
		op->textlen += n;
		nt[op->textlen] = 0;
		op->text = nt;
		return true;
	}
	op = newop(c, O_LIT);
	if (!op)
		return false;
	op->text = malloc(n + 1);
	if (!op->text) {
		c->why = "out of memory";
		return false;
	}
	memcpy(op->text, p, n);
	op->text[n] = 0;
	op->textlen = n;
	return true;
}

/*
 * Literal text up to the next conversion, with libtraceevent's escapes.
 * Returns the characters consumed, or -1 to decline.
 */
static int compile_lit(struct cc *c, const char *f)
{
	const char *start = f;
	char buf[256];
	size_t n = 0;

	for (; *f; f++) {
		char ch = *f;

		if (ch == '\\') {
			f++;
			switch (*f) {
			case 'n':
				ch = '\n';
				break;
			case 't':
				ch = '\t';
				break;
			case 'r':
				ch = '\r';
				break;
			case 0:
				/* libtraceevent would read past the string */
				c->why = "trailing backslash";
				return -1;
			default:
				ch = *f;
				break;
			}
		} else if (ch == '%') {
			if (f[1] != '%')
				break;
			f++;
		}
		if (n == sizeof(buf)) {
			if (!add_lit(c, buf, n))
				return -1;
			n = 0;
		}
		buf[n++] = ch;
	}
	if (!add_lit(c, buf, n))
		return -1;
	return (int)(f - start);
}

static struct snode *snew(struct cc *c, enum skind kind)
{
	struct snode *n = calloc(1, sizeof(*n));

	if (!n) {
		c->why = "out of memory";
		return NULL;
	}
	n->kind = kind;
	n->pool_next = c->t->spool;
	c->t->spool = n;
	return n;
}

/* libtraceevent's value of a flag/symbol entry: a number, a softirq or hrtimer name, or -1 */
static int64_t flag_value(const char *v)
{
	static const struct {
		const char *name;
		int64_t val;
	} names[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	size_t i;

	if (isdigit((unsigned char)v[0]))
		return (int64_t)strtoull(v, NULL, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, v))
			return names[i].val;
	return -1;
}

static bool compile_syms(struct cc *c, struct snode *n, struct tep_print_flag_sym *list)
{
	struct tep_print_flag_sym *f;
	int i = 0;

	for (f = list; f; f = f->next)
		n->nsyms++;
	if (n->nsyms > 4096) {
		c->why = "symbol table size";
		return false;
	}
	n->syms = calloc(n->nsyms ? n->nsyms : 1, sizeof(*n->syms));
	if (!n->syms) {
		c->why = "out of memory";
		return false;
	}
	for (f = list; f; f = f->next, i++) {
		if (!f->value || !f->str) {
			c->why = "symbol entry";
			return false;
		}
		n->syms[i].val = flag_value(f->value);
		n->syms[i].str = f->str;
		n->syms[i].len = strlen(f->str);
	}
	return true;
}

/*
 * __print_array() of a whole __data_loc array, the shape BPF events and
 * tracepoints use: libtraceevent 1.8 prints it as the kernel does,
 * "{0x1,0x2}"; 1.7's text differs, so that one stays with libtraceevent.
 */
static struct snode *compile_array(struct cc *c, struct tep_print_arg *arg)
{
	struct tep_print_arg *fa = arg->int_array.field, *cnt = arg->int_array.count;
	struct tep_print_arg *es = arg->int_array.el_size;
	struct tep_format_field *f;
	struct snode *n;
	long el;

	if (c->fp->compat < 18 || !fa || fa->type != TEP_PRINT_DYNAMIC_ARRAY || !es ||
	    es->type != TEP_PRINT_ATOM || !es->atom.atom || !cnt || cnt->type != TEP_PRINT_OP ||
	    !cnt->op.op || strcmp(cnt->op.op, "/") || !cnt->op.left || !cnt->op.right ||
	    cnt->op.left->type != TEP_PRINT_DYNAMIC_ARRAY_LEN ||
	    cnt->op.right->type != TEP_PRINT_ATOM || !cnt->op.right->atom.atom) {
		c->why = "__print_array";
		return NULL;
	}
	el = strtol(es->atom.atom, NULL, 0);
	f = fa->dynarray.field;
	if ((el != 1 && el != 2 && el != 4 && el != 8) ||
	    strtol(cnt->op.right->atom.atom, NULL, 0) != el || !f ||
	    cnt->op.left->dynarray.field != f || f->size != 4 || f->offset < 0) {
		c->why = "__print_array";
		return NULL;
	}
	n = snew(c, S_ARRAY);
	if (!n)
		return NULL;
	n->foff = f->offset;
	n->fsize = f->size;
	n->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
	n->len = (size_t)el;
	need(c, f->offset + f->size);
	return n;
}

static struct snode *compile_str(struct cc *c, struct tep_print_arg *arg, int depth)
{
	struct tep_format_field *f;
	struct snode *n;

	if (!arg || depth > 16) {
		c->why = "%s argument";
		return NULL;
	}
	switch (arg->type) {
	case TEP_PRINT_NULL:
		return snew(c, S_CONST);	/* prints nothing */
	case TEP_PRINT_ATOM:
		if (!arg->atom.atom) {
			c->why = "atom";
			return NULL;
		}
		n = snew(c, S_CONST);
		if (n) {
			n->text = arg->atom.atom;
			n->len = strlen(n->text);
		}
		return n;
	case TEP_PRINT_FIELD:
		f = arg_field(c, arg);
		if (!f)
			return NULL;
		/* a long-sized scalar printed with %s is looked up as a printk string */
		if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == c->fp->long_size) {
			c->why = "%s of a pointer";
			return NULL;
		}
		if (f->size <= 0 || f->offset < 0 || (f->flags & TEP_FIELD_IS_DYNAMIC)) {
			c->why = "%s field size";
			return NULL;
		}
		n = snew(c, S_FIELD);
		if (n) {
			n->foff = f->offset;
			n->fsize = f->size;
			need(c, f->offset + f->size);
		}
		return n;
	case TEP_PRINT_STRING:
		f = arg->string.field;
		if (!f && arg->string.string)
			f = tep_find_any_field(c->event, arg->string.string);
		if (!f || f->size != 4 || f->offset < 0) {
			c->why = "__get_str field";
			return NULL;
		}
		n = snew(c, S_DYN);
		if (n) {
			n->foff = f->offset;
			n->fsize = f->size;
			n->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
			need(c, f->offset + f->size);
		}
		return n;
	case TEP_PRINT_FLAGS:
		n = snew(c, S_FLAGS);
		if (!n)
			return NULL;
		n->text = arg->flags.delim;
		n->len = n->text ? strlen(n->text) : 0;
		n->x = compile_num(c, arg->flags.field, 0);
		if (!n->x || !compile_syms(c, n, arg->flags.flags))
			return NULL;
		return n;
	case TEP_PRINT_SYMBOL:
		n = snew(c, S_SYMBOL);
		if (!n)
			return NULL;
		n->x = compile_num(c, arg->symbol.field, 0);
		if (!n->x || !compile_syms(c, n, arg->symbol.symbols))
			return NULL;
		return n;
	case TEP_PRINT_INT_ARRAY:
		return compile_array(c, arg);
	case TEP_PRINT_OP: {
		struct tep_print_arg *r = arg->op.right;

		if (!arg->op.op || strcmp(arg->op.op, "?") || !r || r->type != TEP_PRINT_OP ||
		    !r->op.op || strcmp(r->op.op, ":")) {
			c->why = "%s of an expression";
			return NULL;
		}
		n = snew(c, S_COND);
		if (!n)
			return NULL;
		n->x = compile_num(c, arg->op.left, 0);
		n->a = n->x ? compile_str(c, r->op.left, depth + 1) : NULL;
		n->b = n->a ? compile_str(c, r->op.right, depth + 1) : NULL;
		return n->b ? n : NULL;
	}
	default:
		c->why = "%s argument kind";
		return NULL;
	}
}

/*
 * One conversion starting at f ('%'), with libtraceevent's reading of it:
 * the characters it skips over, then the conversion letter.  Only specs that
 * are also plain printf syntax are taken.  Returns the characters consumed,
 * or -1 to decline.
 */
/*
 * The flags, width, precision and length of the conversion at start (its
 * letter at f) into op; printf's order only.  The length modifier's rank
 * (-2 hh, -1 h, 0, 1 l/z, 2 ll/L), or -3 for a spec the printer leaves to
 * libtraceevent.
 */
static int conv_spec(struct fop *op, const char *start, const char *f)
{
	const char *p;
	int ls = 0;

	for (p = start + 1; strchr("-#0", *p) && *p; p++) {
		if (*p == '-')
			op->minus = true;
		else if (*p == '#')
			op->hash = true;
		else
			op->zero = true;
	}
	if (isdigit((unsigned char)*p)) {
		op->width = 0;
		while (isdigit((unsigned char)*p) && op->width < 100000)
			op->width = op->width * 10 + (*p++ - '0');
	}
	if (*p == '.') {
		p++;
		op->prec = 0;
		while (isdigit((unsigned char)*p) && op->prec < 100000)
			op->prec = op->prec * 10 + (*p++ - '0');
	}
	if (p[0] == 'h' && p[1] == 'h') {
		ls = -2;
		p += 2;
	} else if (p[0] == 'h') {
		ls = -1;
		p++;
	} else if (p[0] == 'l' && p[1] == 'l') {
		ls = 2;
		p += 2;
	} else if (p[0] == 'l' || p[0] == 'z') {
		ls = 1;
		p++;
	} else if (p[0] == 'L') {
		ls = 2;
		p++;
	}
	return p != f || op->width > 4096 || op->prec > 4096 ? -3 : ls;
}

/* %p and its kernel-symbol forms %pF %pS %pf %ps; the conversion's length, or -1 */
static int compile_ptr(struct cc *c, struct fop *op, const char *f, struct tep_print_arg *arg,
		       int len)
{
	if (len != 2) {
		c->why = "%p flags";
		return -1;
	}
	if (f[1] && strchr("FSfs", f[1])) {
		/* a kernel symbol, looked up like libtraceevent does */
		op->kind = O_FUNC;
		op->conv = f[1];
		op->x = compile_num(c, arg, 0);
		return op->x ? len + 1 : -1;
	}
	/* %pM, %pI4, %pU, %ph, ... have printers of their own */
	if (f[1] && strchr("MmIiUh", f[1])) {
		c->why = "%p extension";
		return -1;
	}
	op->kind = O_PTR;
	op->x = compile_num(c, arg, 0);
	return op->x ? len : -1;
}

/* %d %u %i %x %X %o of the width the length modifier's rank ls gives */
static int compile_int(struct cc *c, struct fop *op, struct tep_print_arg *arg, int ls, int len)
{
	static const int bits[] = { 8, 16, 32, (int)sizeof(long) * 8, 64 };

	op->bits = bits[ls + 2];
	if (ls == 1 && sizeof(long) != 8 && c->fp->long_size == 8)
		op->bits = 64;	/* libtraceevent turns %l into %ll there */
	op->sgn = op->conv == 'd' || op->conv == 'i';
	op->simple = !op->minus && !op->zero && !op->hash && op->width < 0 && op->prec < 0;
	op->x = compile_num(c, arg, 0);
	return op->x ? len : -1;
}

static int compile_conv(struct cc *c, const char *f, struct tep_print_arg **argp)
{
	const char *start = f;
	struct tep_print_arg *arg = *argp;
	struct fop *op;
	char conv;
	int ls, len;

	for (f++; *f; f++) {
		if (strchr("#hlLzZ.0123456789-", *f))
			continue;
		break;
	}
	conv = *f;
	if (!conv) {
		c->why = "unterminated conversion";
		return -1;
	}
	if (conv == '*') {
		c->why = "%*";
		return -1;
	}
	/*
	 * libtraceevent 1.7 does not know '+' or %c: it prints ">+<" / ">c<"
	 * and shifts the arguments; leave that to it.
	 */
	if (conv == '+' || conv == 'c' || !strchr("duixXops", conv)) {
		c->why = "conversion letter";
		return -1;
	}
	if (!arg) {
		c->why = "missing argument";
		return -1;
	}
	len = (int)(f - start) + 1;
	if (len > 30) {
		c->why = "long conversion";
		return -1;
	}
	op = newop(c, O_INT);
	if (!op)
		return -1;
	op->conv = conv;
	ls = conv_spec(op, start, f);
	if (ls < -2) {
		c->why = "unusual conversion spec";
		return -1;
	}
	*argp = arg->next;
	if (conv == 'p')
		return compile_ptr(c, op, f, arg, len);
	if (conv != 's')
		return compile_int(c, op, arg, ls, len);
	if (ls || op->zero || op->hash) {
		c->why = "%s flags";
		return -1;
	}
	op->kind = O_STR;
	op->str = compile_str(c, arg, 0);
	return op->str ? len : -1;
}

static bool compile_generic(struct cc *c)
{
	struct tep_event *ev = c->event;
	struct tep_print_arg *arg = ev->print_fmt.args;
	const char *f = ev->print_fmt.format;

	if (!f) {
		c->why = "no print format";
		return false;
	}
	while (*f) {
		int n;

		if (f[0] == '%' && f[1] != '%')
			n = compile_conv(c, f, &arg);
		else
			n = compile_lit(c, f);
		if (n < 0)
			return false;
		if (!n) {
			c->why = "format";
			return false;
		}
		f += n;
	}
	return true;
}

static bool sched_field(struct cc *c, const char *name, struct sfield *sf, bool any)
{
	struct tep_format_field *f = any ? tep_find_any_field(c->event, name)
					 : tep_find_field(c->event, name);

	sf->ok = false;
	if (!f || f->offset < 0)
		return false;
	if (!any && !good_size(f->size))
		return false;
	if (any && f->size <= 0)
		return false;
	sf->off = f->offset;
	sf->size = f->size;
	sf->ok = true;
	need(c, f->offset + f->size);
	return true;
}

/* Is handler one that libtraceevent's plugin file (e.g. "plugin_sched_switch.so") registered? */
static bool from_plugin(tep_event_handler_func handler, const char *file)
{
	Dl_info info;
	const char *base;

#ifdef FT_STATIC
	/* no plugins in a static build: these events are formatted as their plugin would */
	if (!handler)
		return true;
#endif
	if (!dladdr((void *)handler, &info) || !info.dli_fname)
		return false;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	return !strcmp(base, file);
}

/* whether the expression arg reads the field name */
static bool uses_field(const struct tep_print_arg *arg, const char *name, int depth)
{
	if (!arg || depth > 16)
		return false;
	switch (arg->type) {
	case TEP_PRINT_FIELD:
		return arg->field.name && !strcmp(arg->field.name, name);
	case TEP_PRINT_OP:
		return uses_field(arg->op.left, name, depth + 1) ||
		       uses_field(arg->op.right, name, depth + 1);
	case TEP_PRINT_TYPE:
		return uses_field(arg->typecast.item, name, depth + 1);
	default:
		return false;
	}
}

/* the symbol list of the first __print_flags() of prev_state in a print format's arguments */
static struct tep_print_flag_sym *state_flags(struct tep_print_arg *arg, int depth)
{
	struct tep_print_flag_sym *f;

	for (; arg && depth < 16; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_FLAGS:
			if (arg->flags.flags && uses_field(arg->flags.field, "prev_state", depth + 1))
				return arg->flags.flags;
			break;
		case TEP_PRINT_OP:
			if ((f = state_flags(arg->op.left, depth + 1)) ||
			    (f = state_flags(arg->op.right, depth + 1)))
				return f;
			break;
		case TEP_PRINT_TYPE:
			if ((f = state_flags(arg->typecast.item, depth + 1)))
				return f;
			break;
		default:
			break;
		}
		if (depth)
			break;	/* an operand is one argument, not a list */
	}
	return NULL;
}

/*
 * plugin_sched_switch's sched_switch and sched_wakeup(_new) formatters.
 * Which events those are is the kind table's to say (kinds.h), as for
 * every analyzer; the plugin check stays, since the plugin's output is
 * what these copy.  The fields are checked again here: the table requires
 * two of sched_switch's, the plugin reads all seven.
 */
static void compile_sched(struct cc *c)
{
	struct tep_event *ev = c->event;
	struct ftype *t = c->t;
	struct rpt_kind_info ki;

	rpt_kind_resolve(ev, &ki);
	if ((ki.kind != RPT_K_SCHED_SWITCH && ki.kind != RPT_K_SCHED_WAKEUP) ||
	    !from_plugin(ev->handler, "plugin_sched_switch.so")) {
		c->why = "handler";
		return;
	}
	if (ki.kind == RPT_K_SCHED_SWITCH) {
		/* every field the plugin reads, so it never takes its error paths */
		if (!sched_field(c, "prev_pid", &t->pid, false) ||
		    !sched_field(c, "prev_prio", &t->prio, false) ||
		    !sched_field(c, "prev_state", &t->state, false) ||
		    !sched_field(c, "next_pid", &t->next_pid, false) ||
		    !sched_field(c, "next_prio", &t->next_prio, false) ||
		    !sched_field(c, "prev_comm", &t->comm, true) ||
		    !sched_field(c, "next_comm", &t->next_comm, true)) {
			c->why = "sched_switch fields";
			return;
		}
		t->state_syms = state_flags(ev->print_fmt.args, 0);
		t->kind = T_SWITCH;
		return;
	}
	if (!sched_field(c, "pid", &t->pid, false) ||
	    !sched_field(c, "prio", &t->prio, false) ||
	    !sched_field(c, "target_cpu", &t->target_cpu, false) ||
	    !sched_field(c, "comm", &t->comm, true)) {
		c->why = "sched_wakeup fields";
		return;
	}
	/* optional: printed only when present (and then it must be readable) */
	if (tep_find_field(ev, "success") && !sched_field(c, "success", &t->success, false)) {
		c->why = "sched_wakeup success field";
		return;
	}
	t->kind = T_WAKEUP;
}

static bool compile_generic(struct cc *c);

static void compile_handler(struct cc *c)
{
	struct tep_event *ev = c->event;
	struct ftype *t = c->t;
	struct tep_format_field *f;

	if (!ev->system) {
		c->why = "handler";
		return;
	}
	/*
	 * plugin_kmem prints "(func+0xoff) " for call_site when the address
	 * resolves, and returns 1 so the print format follows.
	 */
	if (!strcmp(ev->system, "kmem") && from_plugin(ev->handler, "plugin_kmem.so")) {
		f = tep_find_field(ev, "call_site");
		if (f && good_size(f->size) && f->offset >= 0) {
			t->call_site.off = f->offset;
			t->call_site.size = f->size;
			t->call_site.ok = true;
			need(c, f->offset + f->size);
		}
		if (compile_generic(c))
			t->kind = T_KMEM;
		return;
	}
	if (!strcmp(ev->system, "syscalls") && !strcmp(ev->name, "sys_enter_futex") &&
	    from_plugin(ev->handler, "plugin_futex.so")) {
		/* all six with err=1: a missing one prints an error and then the format */
		if (!sched_field(c, "uaddr", &t->uaddr, false) ||
		    !sched_field(c, "op", &t->op, false) ||
		    !sched_field(c, "val", &t->val, false) ||
		    !sched_field(c, "utime", &t->utime, false) ||
		    !sched_field(c, "uaddr2", &t->uaddr2, false) ||
		    !sched_field(c, "val3", &t->val3, false)) {
			c->why = "futex fields";
			return;
		}
		t->kind = T_FUTEX;
		return;
	}
	if (!strcmp(ev->system, "timer") && from_plugin(ev->handler, "plugin_hrtimer.so")) {
		bool start = !strcmp(ev->name, "hrtimer_start");

		if (!start && strcmp(ev->name, "hrtimer_expire_entry")) {
			c->why = "handler";
			return;
		}
		/* fields the plugin prints with err=1 must be there: no "CAN'T FIND FIELD" */
		if (tep_find_field(ev, "timer")) {
			if (!sched_field(c, "timer", &t->timer, false)) {
				c->why = "hrtimer fields";
				return;
			}
		} else if (!sched_field(c, "hrtimer", &t->timer, false)) {
			c->why = "hrtimer fields";
			return;
		}
		if (tep_find_field(ev, "function") &&
		    !sched_field(c, "function", &t->function, false)) {
			c->why = "hrtimer fields";
			return;
		}
		if (start ? !sched_field(c, "expires", &t->expires, false) ||
			    !sched_field(c, "softexpires", &t->softexpires, false)
			  : !sched_field(c, "now", &t->now, false)) {
			c->why = "hrtimer fields";
			return;
		}
		t->kind = start ? T_HRSTART : T_HREXPIRE;
		return;
	}
	compile_sched(c);
}

static void type_release(struct ftype *t)
{
	int i;

	for (i = 0; i < t->nops; i++)
		free(t->ops[i].text);
	free(t->ops);
	while (t->pool) {
		struct xnode *x = t->pool;

		t->pool = x->pool_next;
		free(x);
	}
	while (t->spool) {
		struct snode *n = t->spool;

		t->spool = n->pool_next;
		free(n->syms);
		free(n);
	}
	memset(t, 0, sizeof(*t));
}

/*
 * The events whose libtraceevent plugins (sched_switch, kmem, hrtimer, futex)
 * compile_handler() formats itself: in a static build, which has no plugins,
 * they go there as if the plugin had registered them.  Other plugins' events
 * (ftrace function and kernel_stack, kvm, kvmmmu, jbd2, mac80211, cfg80211,
 * scsi, tlb, xen) print their kernel print format there (flytrap --version
 * says so).
 */
static bool static_plugin_event(const struct tep_event *ev)
{
#ifdef FT_STATIC
	static const char *const kmem[] = { "kmalloc", "kmalloc_node", "kfree", "kmem_cache_alloc",
					    "kmem_cache_alloc_node", "kmem_cache_free" };
	size_t i;

	if (!ev->system || !ev->name)
		return false;
	if (!strcmp(ev->system, "kmem")) {
		for (i = 0; i < sizeof(kmem) / sizeof(kmem[0]); i++)
			if (!strcmp(ev->name, kmem[i]))
				return true;
		return false;
	}
	if (!strcmp(ev->system, "sched"))
		return !strcmp(ev->name, "sched_switch") || !strcmp(ev->name, "sched_wakeup") ||
		       !strcmp(ev->name, "sched_wakeup_new");
	if (!strcmp(ev->system, "timer"))
		return !strcmp(ev->name, "hrtimer_start") ||
		       !strcmp(ev->name, "hrtimer_expire_entry");
	return !strcmp(ev->system, "syscalls") && !strcmp(ev->name, "sys_enter_futex");
#else
	(void)ev;
	return false;
#endif
}

static void compile(struct rpt_fastprint *fp, struct ftype *t, struct tep_event *ev)
{
	struct cc c = { .fp = fp, .event = ev, .t = t };
	int retries = t->retries;

	type_release(t);
	t->retries = retries;
	t->handler = ev->handler;
	t->flags = ev->flags;
	t->kind = T_DECLINED;
	/* the common fields are read for every record anyway */
	if (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW)) {
		c.why = "raw or failed format";
	} else if (ev->flags & TEP_EVENT_FL_ISBPRINT) {
		c.why = "bprint";
	} else if ((ev->handler || static_plugin_event(ev)) &&
		   !(ev->flags & TEP_EVENT_FL_NOHANDLE)) {
		compile_handler(&c);
	} else if (compile_generic(&c)) {
		t->kind = T_GENERIC;
	}
	if (t->kind == T_DECLINED) {
		const char *why = c.why ? c.why : "unsupported";

		type_release(t);
		t->handler = ev->handler;
		t->flags = ev->flags;
		t->kind = T_DECLINED;
		t->why = why;
		t->retries = retries;
		fp->st.types_declined++;
	} else {
		fp->st.types_fast++;
	}
}

static struct ftype *lookup(struct rpt_fastprint *fp, struct tep_event *ev)
{
	struct ftype *t;

	if (ev->id < 0 || ev->id > 0xffff)
		return NULL;
	if (ev->id >= fp->ntypes) {
		int n = fp->ntypes ? fp->ntypes : 64;
		struct ftype **nt;

		while (n <= ev->id)
			n *= 2;
		nt = realloc(fp->types, n * sizeof(*nt));
		if (!nt)
			return NULL;
		memset(nt + fp->ntypes, 0, (n - fp->ntypes) * sizeof(*nt));
		fp->types = nt;
		fp->ntypes = n;
	}
	t = fp->types[ev->id];
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		fp->types[ev->id] = t;
	}
	/*
	 * A kernel symbol name in an expression (mm_page_alloc's vmemmap_base)
	 * is looked up by libtraceevent the first time it prints the event and
	 * then replaced by its value: after the fallback has printed one
	 * record the format compiles.  A few tries, not forever.
	 */
	if (t->kind == T_UNSEEN)
		t->retries = 3;
	else if (t->kind == T_DECLINED && t->retries > 0 && t->why == why_symbol_atom) {
		t->retries--;
		fp->st.types_declined--;
		compile(fp, t, ev);
		return t;
	}
	/* a handler registered (or flags changed) after we compiled: start over */
	if (t->kind == T_UNSEEN || t->handler != ev->handler || t->flags != ev->flags) {
		if (t->kind != T_UNSEEN) {
			if (t->kind == T_DECLINED)
				fp->st.types_declined--;
			else
				fp->st.types_fast--;
		}
		compile(fp, t, ev);
	}
	return t;
}

/* ---- running ------------------------------------------------------------ */

/*
 * tep_find_function_info() of addr, remembered.  libtraceevent's symbol
 * table does not change once it is loaded (see fastprint.h).
 */
static const char *find_func(struct rpt_fastprint *fp, uint64_t addr, uint64_t *start)
{
	struct fcache *c = &fp->fcache[(addr ^ addr >> 8 ^ addr >> 16) & 255];
	unsigned long long st = 0;
	const char *name = NULL;

	if (!c->valid || c->addr != addr) {
		if (!tep_find_function_info(fp->tep, addr, &name, &st, NULL))
			name = NULL;
		c->addr = addr;
		c->name = name;
		c->start = st;
		c->valid = true;
	}
	*start = c->start;
	return c->name;
}

static bool run_str(struct rpt_fastprint *fp, const struct fop *op, const struct snode *n,
		    const uint8_t *d, int size)
{
	uint64_t v;
	int i;

	switch (n->kind) {
	case S_CONST:
		put_str(fp, op, n->text ? n->text : "", n->len);
		return true;
	case S_FIELD: {
		const char *p = (const char *)d + n->foff;
		const char *z = memchr(p, 0, n->fsize);

		put_str(fp, op, p, z ? (size_t)(z - p) : (size_t)n->fsize);
		return true;
	}
	case S_DYN: {
		uint32_t loc = (uint32_t)rd(fp, d + n->foff, 4);
		uint32_t o = loc & 0xffff, l = loc >> 16;
		const char *p, *z;

		if (o > (uint32_t)size || o + l > (uint32_t)size)
			return false;	/* damaged: leave it to libtraceevent */
		if (n->rel)
			o += n->foff + n->fsize;
		if (!l)
			return true;	/* libtraceevent prints nothing, not even padding */
		if (o >= (uint32_t)size)
			return false;
		p = (const char *)d + o;
		z = memchr(p, 0, size - o);
		if (!z)
			return false;	/* unterminated: libtraceevent reads past the record */
		put_str(fp, op, p, z - p);
		return true;
	}
	case S_ARRAY: {
		uint32_t loc = (uint32_t)rd(fp, d + n->foff, 4);
		uint64_t o = loc & 0xffff, l = loc >> 16;
		char t[24];

		if (n->rel)
			o += (uint64_t)n->foff + (uint64_t)n->fsize;
		if (o + l > (uint64_t)size)
			return false;	/* damaged: leave it to libtraceevent */
		putch(fp, '{');
		for (v = 0; v + n->len <= l; v += n->len) {
			int k = snprintf(t, sizeof(t), "%s0x%llx", v ? "," : "",
					 (unsigned long long)rd(fp, d + o + v, (int)n->len));

			put(fp, t, (size_t)k);
		}
		putch(fp, '}');
		return true;
	}
	case S_FLAGS: {
		int64_t val;
		bool printed = false;

		if (!xget(fp, n->x, d, size, &v))
			return false;
		val = (int64_t)v;
		for (i = 0; i < n->nsyms; i++) {
			const struct sym_value *sy = &n->syms[i];

			if (!val && sy->val < 0) {
				put_str(fp, op, sy->str, sy->len);
				break;
			}
			if (sy->val > 0 && (val & sy->val) == sy->val) {
				if (printed && n->text)
					put(fp, n->text, n->len);
				put_str(fp, op, sy->str, sy->len);
				printed = true;
				val &= ~sy->val;
			}
		}
		if (val) {
			static const struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
							.simple = true, .width = -1, .prec = -1 };

			if (printed && n->text)
				put(fp, n->text, n->len);
			put(fp, "0x", 2);
			put_int(fp, &hex, (uint64_t)val);
		}
		return true;
	}
	case S_SYMBOL: {
		static const struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
						.simple = true, .width = -1, .prec = -1 };

		if (!xget(fp, n->x, d, size, &v))
			return false;
		for (i = 0; i < n->nsyms; i++) {
			if ((int64_t)v == n->syms[i].val) {
				put_str(fp, op, n->syms[i].str, n->syms[i].len);
				return true;
			}
		}
		put(fp, "0x", 2);
		put_int(fp, &hex, v);
		return true;
	}
	case S_COND:
		if (!xget(fp, n->x, d, size, &v))
			return false;
		return run_str(fp, op, v ? n->a : n->b, d, size);
	}
	return false;
}

static bool run_generic(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d, int size)
{
	int i;

	for (i = 0; i < t->nops; i++) {
		const struct fop *op = &t->ops[i];
		uint64_t v;

		switch (op->kind) {
		case O_LIT:
			put(fp, op->text, op->textlen);
			break;
		case O_INT:
			if (!xget(fp, op->x, d, size, &v))
				return false;
			put_int(fp, op, v);
			break;
		case O_PTR:
			if (!xget(fp, op->x, d, size, &v))
				return false;
			if (!v) {
				put(fp, "(nil)", 5);
			} else {
				struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
						   .width = -1, .prec = -1 };

				put(fp, "0x", 2);
				put_int(fp, &hex, v);
			}
			break;
		case O_STR:
			if (!run_str(fp, op, op->str, d, size))
				return false;
			break;
		case O_FUNC: {
			static const struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
							.simple = true, .width = -1, .prec = -1 };
			uint64_t start;
			const char *name;

			if (!xget(fp, op->x, d, size, &v))
				return false;
			name = find_func(fp, v, &start);
			if (name) {
				put(fp, name, strlen(name));
				if (op->conv == 'S' || op->conv == 'F') {
					put(fp, "+0x", 3);
					put_int(fp, &hex, v - start);
				}
			} else {
				put(fp, "0x", 2);
				put_int(fp, &hex, v);
			}
			break;
		}
		}
	}
	return true;
}

static inline uint64_t sf_get(const struct rpt_fastprint *fp, const struct sfield *sf,
			      const uint8_t *d)
{
	return rd(fp, d + sf->off, sf->size);
}

#define PID_CACHE_MAX (1 << 22)	/* the kernel's largest pid_max */

static bool pid_is_known(const struct rpt_fastprint *fp, int pid)
{
	if (!fp->comm_array)
		return false;
	if (!pid)
		return true;	/* libtraceevent ignores pid 0 in array mode */
	return pid > 0 && (size_t)pid / 64 < fp->pid_words &&
	       (fp->pid_known[pid / 64] >> (pid % 64) & 1);
}

static void pid_set_known(struct rpt_fastprint *fp, int pid)
{
	size_t w = (size_t)pid / 64;

	if (pid <= 0 || pid >= PID_CACHE_MAX)
		return;
	if (w >= fp->pid_words) {
		size_t n = fp->pid_words ? fp->pid_words : 64;
		uint64_t *nb;

		while (n <= w)
			n *= 2;
		nb = realloc(fp->pid_known, n * sizeof(*nb));
		if (!nb)
			return;	/* only a cache */
		memset(nb + fp->pid_words, 0, (n - fp->pid_words) * sizeof(*nb));
		fp->pid_known = nb;
		fp->pid_words = n;
	}
	fp->pid_known[w] |= 1ULL << (pid % 64);
}

static void register_comm(struct rpt_fastprint *fp, const char *comm, int pid)
{
	int ret;

	errno = 0;
	ret = tep_register_comm(fp->tep, comm, pid);
	/* only the sorted array answers EEXIST, and it never goes back to a list */
	if (ret < 0 && errno == EEXIST)
		fp->comm_array = true;
	if (fp->comm_array && (ret == 0 || errno == EEXIST))
		pid_set_known(fp, pid);
}

/* plugin_sched_switch's "%.*s" of a comm field, then tep_register_comm() of what it printed */
static void put_comm(struct rpt_fastprint *fp, const struct sfield *sf, const uint8_t *d, int pid)
{
	const char *p = (const char *)d + sf->off;
	const char *z = memchr(p, 0, sf->size);
	size_t n = z ? (size_t)(z - p) : (size_t)sf->size;
	char small[64], *comm = small;

	put(fp, p, n);
	if (pid_is_known(fp, pid))
		return;
	if (n >= sizeof(small)) {
		comm = malloc(n + 1);
		if (!comm) {
			fp->oom = true;
			return;
		}
	}
	memcpy(comm, p, n);
	comm[n] = 0;
	register_comm(fp, comm, pid);
	if (comm != small)
		free(comm);
}

/*
 * prev_state's letters.  libtraceevent 1.7's plugin names the bits from a
 * table of its own (that of kernels before 4.14: bit 7 is "W"); 1.8 reads
 * them from the event's own __print_flags() list when it has one (kernels
 * since 4.14 say bit 5 is "Z" and bit 7 "I", TASK_IDLE), so each kernel's
 * states come out under its own names.
 */
static void put_state(struct rpt_fastprint *fp, const struct ftype *t, int val)
{
	static const char states[] = "SDTtZXxW";
	const struct tep_print_flag_sym *f;
	bool found = false;
	unsigned i;

	if (fp->compat >= 18 && t->state_syms) {
		for (f = t->state_syms; f; f = f->next) {
			int64_t v = flag_value(f->value);

			if (v <= 0 || ((int64_t)val & v) != v)
				continue;
			if (found)
				putch(fp, '|');
			found = true;
			put(fp, f->str, strlen(f->str));
		}
	} else {
		for (i = 0; i < sizeof(states) - 1; i++) {
			if (!(val & (1 << i)))
				continue;
			if (found)
				putch(fp, '|');
			found = true;
			putch(fp, states[i]);
		}
	}
	if (!found)
		putch(fp, 'R');
}

static void run_switch(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	uint64_t pid = sf_get(fp, &t->pid, d), next = sf_get(fp, &t->next_pid, d);

	put_comm(fp, &t->comm, d, (int)pid);
	putch(fp, ':');
	put_s64(fp, (int64_t)pid);
	put(fp, " [", 2);
	put_s64(fp, (int32_t)sf_get(fp, &t->prio, d));
	put(fp, "] ", 2);
	put_state(fp, t, (int)sf_get(fp, &t->state, d));
	put(fp, " ==> ", 5);
	put_comm(fp, &t->next_comm, d, (int)next);
	putch(fp, ':');
	put_s64(fp, (int64_t)next);
	put(fp, " [", 2);
	put_s64(fp, (int32_t)sf_get(fp, &t->next_prio, d));
	putch(fp, ']');
}

static void run_wakeup(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	uint64_t pid = sf_get(fp, &t->pid, d), cpu;
	struct fop cpufmt = { .kind = O_INT, .conv = 'u', .bits = 64, .zero = true,
			      .width = 3, .prec = -1 };

	put_comm(fp, &t->comm, d, (int)pid);
	putch(fp, ':');
	put_s64(fp, (int64_t)pid);
	put(fp, " [", 2);
	put_s64(fp, (int64_t)sf_get(fp, &t->prio, d));
	putch(fp, ']');
	if (t->success.ok) {
		put(fp, " success=", 9);
		put_s64(fp, (int64_t)sf_get(fp, &t->success, d));
	}
	cpu = sf_get(fp, &t->target_cpu, d);
	put(fp, " CPU:", 5);
	put_int(fp, &cpufmt, cpu);
}

static void put_call_site(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	static const struct fop hex32 = { .kind = O_INT, .conv = 'x', .bits = 32,
					   .simple = true, .width = -1, .prec = -1 };
	uint64_t val = sf_get(fp, &t->call_site, d);
	uint64_t start;
	const char *name = find_func(fp, val, &start);

	if (!name)
		return;
	putch(fp, '(');
	put(fp, name, strlen(name));
	put(fp, "+0x", 3);
	put_int(fp, &hex32, val - start);
	put(fp, ") ", 2);
}

/* plugin_hrtimer's " function=%s" of "name/0x<start - addr>" (sic), or of "0x%08llx" */
static void put_hr_function(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	static const struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
					.simple = true, .width = -1, .prec = -1 };
	static const struct fop hex8 = { .kind = O_INT, .conv = 'x', .bits = 64, .zero = true,
					 .width = 8, .prec = -1 };
	uint64_t val = sf_get(fp, &t->function, d), start;
	const char *name = find_func(fp, val, &start);
	size_t mark;

	put(fp, " function=", 10);
	if (!name) {
		put(fp, "0x", 2);
		put_int(fp, &hex8, val);
		return;
	}
	/* the plugin formats into a 128-byte buffer */
	mark = fp->len;
	put(fp, name, strlen(name));
	put(fp, "/0x", 3);
	put_int(fp, &hex, start - val);
	if (fp->len - mark > 127)
		fp->len = mark + 127;
}

static void run_hrtimer(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	static const struct fop hex = { .kind = O_INT, .conv = 'x', .bits = 64,
					.simple = true, .width = -1, .prec = -1 };

	put(fp, "hrtimer=0x", 10);
	put_int(fp, &hex, sf_get(fp, &t->timer, d));
	if (t->kind == T_HREXPIRE) {
		put(fp, " now=", 5);
		put_u64(fp, sf_get(fp, &t->now, d));
		if (t->function.ok)
			put_hr_function(fp, t, d);
		return;
	}
	if (t->function.ok)
		put_hr_function(fp, t, d);
	put(fp, " expires=", 9);
	put_u64(fp, sf_get(fp, &t->expires, d));
	put(fp, " softexpires=", 13);
	put_u64(fp, sf_get(fp, &t->softexpires, d));
}

/*
 * plugin_futex: what it prints for each futex command (FUTEX_WAIT = 0 ...):
 * val as hex or decimal, utime as " utime=" hex or as " val2=" decimal,
 * and whether uaddr2 and val3 follow.
 */
enum { F_NONE, F_HEX, F_DEC };
static const struct futex_cmd {
	const char *name;
	uint8_t val, utime;
	bool uaddr2, val3;
} futex_cmds[] = {
	{ "FUTEX_WAIT", F_HEX, F_HEX, false, false },
	{ "FUTEX_WAKE", F_DEC, F_NONE, false, false },
	{ "FUTEX_FD", F_DEC, F_NONE, false, false },
	{ "FUTEX_REQUEUE", F_DEC, F_DEC, true, false },
	{ "FUTEX_CMP_REQUEUE", F_DEC, F_DEC, true, true },
	{ "FUTEX_WAKE_OP", F_DEC, F_DEC, true, true },
	{ "FUTEX_LOCK_PI", F_NONE, F_HEX, false, false },
	{ "FUTEX_UNLOCK_PI", F_NONE, F_NONE, false, false },
	{ "FUTEX_TRYLOCK_PI", F_NONE, F_NONE, false, false },
	{ "FUTEX_WAIT_BITSET", F_HEX, F_HEX, false, true },
	{ "FUTEX_WAKE_BITSET", F_DEC, F_NONE, false, true },
	{ "FUTEX_WAIT_REQUEUE_PI", F_HEX, F_HEX, true, true },
	{ "FUTEX_CMP_REQUEUE_PI", F_DEC, F_DEC, true, true },
};

static void put_hex08(struct rpt_fastprint *fp, const char *label, uint64_t v)
{
	static const struct fop hex8 = { .kind = O_INT, .conv = 'x', .bits = 64, .zero = true,
					 .width = 8, .prec = -1 };

	put(fp, label, strlen(label));
	put(fp, "0x", 2);
	put_int(fp, &hex8, v);
}

static bool run_futex(struct rpt_fastprint *fp, const struct ftype *t, const uint8_t *d)
{
	uint64_t op = sf_get(fp, &t->op, d), cmd = op & ~(uint64_t)(128 | 256);
	uint64_t val = sf_get(fp, &t->val, d), utime = sf_get(fp, &t->utime, d);
	const struct futex_cmd *fc;

	/* commands the plugin does not know print the format; so may newer tables */
	if (cmd >= sizeof(futex_cmds) / sizeof(futex_cmds[0]))
		return false;
	fc = &futex_cmds[cmd];
	put(fp, "op=", 3);
	put(fp, fc->name, strlen(fc->name));
	if (op & 128)
		put(fp, "|FUTEX_PRIVATE_FLAG", 19);
	if (op & 256)
		put(fp, "|FUTEX_CLOCK_REALTIME", 21);
	put_hex08(fp, " uaddr=", sf_get(fp, &t->uaddr, d));
	if (fc->val == F_HEX) {
		put_hex08(fp, " val=", val);
	} else if (fc->val == F_DEC) {
		put(fp, " val=", 5);
		put_u64(fp, val);
	}
	if (fc->utime == F_HEX) {
		put_hex08(fp, " utime=", utime);
	} else if (fc->utime == F_DEC) {
		put(fp, " val2=", 6);
		put_u64(fp, utime);
	}
	if (fc->uaddr2)
		put_hex08(fp, " uaddr2=", sf_get(fp, &t->uaddr2, d));
	if (fc->val3)
		put_hex08(fp, " val3=", sf_get(fp, &t->val3, d));
	return true;
}

/* ---- API ------------------------------------------------------------------ */

struct rpt_fastprint *rpt_fastprint_new(struct tep_handle *tep)
{
	struct rpt_fastprint *fp = calloc(1, sizeof(*fp));

	if (!fp)
		return NULL;
	fp->tep = tep;
	fp->compat = 17;
	fp->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	fp->long_size = tep_get_long_size(tep);
	if (!fp->long_size)
		fp->long_size = sizeof(long);
	return fp;
}

void rpt_fastprint_set_tep_version(struct rpt_fastprint *fp, int version)
{
	fp->compat = version;
}

void rpt_fastprint_free(struct rpt_fastprint *fp)
{
	int i;

	if (!fp)
		return;
	for (i = 0; i < fp->ntypes; i++) {
		if (fp->types[i]) {
			type_release(fp->types[i]);
			free(fp->types[i]);
		}
	}
	free(fp->types);
	free(fp->pid_known);
	free(fp->buf);
	free(fp);
}

bool rpt_fastprint_type_ok(struct rpt_fastprint *fp, struct tep_event *event, const char **why)
{
	struct ftype *t = lookup(fp, event);

	if (why)
		*why = !t ? "out of memory" : t->kind == T_DECLINED ? t->why : NULL;
	return t && t->kind != T_DECLINED;
}

void rpt_fastprint_stats(const struct rpt_fastprint *fp, struct rpt_fastprint_stats *st)
{
	*st = fp->st;
}

/* The text of rec after fp->buf[0..fp->len): true, or false with fp->len where it was. */
static bool format_rec(struct rpt_fastprint *fp, struct tep_event *event, struct tep_record *rec)
{
	const uint8_t *d = rec->data;
	size_t start = fp->len;
	struct ftype *t;

	t = lookup(fp, event);
	if (!t || t->kind == T_DECLINED || !d || rec->size < t->min_size)
		goto decline;
	fp->oom = false;
	switch (t->kind) {
	case T_GENERIC:
		if (!run_generic(fp, t, d, rec->size))
			goto decline;
		break;
	case T_SWITCH:
		run_switch(fp, t, d);
		break;
	case T_WAKEUP:
		run_wakeup(fp, t, d);
		break;
	case T_HRSTART:
	case T_HREXPIRE:
		run_hrtimer(fp, t, d);
		break;
	case T_FUTEX:
		if (!run_futex(fp, t, d))
			goto decline;
		break;
	case T_KMEM:
		if (t->call_site.ok)
			put_call_site(fp, t, d);
		if (!run_generic(fp, t, d, rec->size))
			goto decline;
		break;
	default:
		goto decline;
	}
	if (fp->oom)
		goto decline;
	fp->st.fast++;
	return true;

decline:
	fp->len = start;
	fp->st.declined++;
	return false;
}

bool rpt_fastprint_info(struct rpt_fastprint *fp, struct trace_seq *s,
			struct tep_event *event, struct tep_record *rec)
{
	unsigned int need_len;

	if (s->state != TRACE_SEQ__GOOD) {
		fp->st.declined++;
		return false;
	}
	fp->len = 0;
	if (!format_rec(fp, event, rec))
		return false;

	/* append, growing s through the library when it is too small */
	need_len = s->len + fp->len + 1;
	if (need_len <= s->buffer_size && need_len > s->len) {
		if (fp->len)	/* an empty text may come with no buffer at all */
			memcpy(s->buffer + s->len, fp->buf, fp->len);
		s->len += fp->len;
		s->buffer[s->len] = 0;	/* what trace_seq_terminate() does */
	} else {
		size_t i;

		for (i = 0; i < fp->len; i++)
			trace_seq_putc(s, (unsigned char)fp->buf[i]);
		trace_seq_terminate(s);
	}
	return true;
}

bool rpt_fastprint_append(struct rpt_fastprint *fp, struct tep_event *event, struct tep_record *rec,
			  char **buf, size_t *len, size_t *cap)
{
	char *own = fp->buf;
	size_t own_cap = fp->cap;
	bool ok;

	/* the formatters write (and grow) the caller's buffer in place of their own */
	fp->buf = *buf;
	fp->cap = *cap;
	fp->len = *len;
	ok = format_rec(fp, event, rec);
	*buf = fp->buf;
	*cap = fp->cap;
	if (ok)
		*len = fp->len;
	fp->buf = own;
	fp->cap = own_cap;
	fp->len = 0;
	return ok;
}
