// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap redact: a copy of a recording that can leave the machine.  Task
 * names, file paths, the host name, command lines and print events' text
 * become keyed tokens (redact_policy.c), the same name the same token in
 * every place; kernel addresses become offsets from _text with kallsyms
 * cut to the symbols the file uses; pointers are hashed and user stacks
 * dropped.  What is kept, hashed or dropped is a policy: a default and the
 * rules of --policy FILE.
 *
 * Every record is rewritten through a plan made once per event type
 * (which fields are names, paths, addresses); a string in a __data_loc
 * field may change length, and then the record's dynamic part is laid out
 * anew with its offsets.  After writing, the output is read back: no
 * replaced value may be left in a decoded field, nor (six bytes or more)
 * anywhere in its uncompressed bytes; else the output is removed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/share/convert.h"
#include "flytrap.h"
#include "report/out/json.h"
#include "format.h"
#include "report/share/redact.h"
#include "report/core/replay.h"
#include "report/share/rewrite.h"

static const char usage_text[] =
	"usage: flytrap redact [options] IN -o OUT\n"
	"       flytrap redact [options] IN... -o DIR\n"
	"\n"
	"Write a copy of IN with task names, file paths, the host name, command lines\n"
	"and print events' text replaced by keyed tokens (one name, one token), kernel\n"
	"addresses made relative to _text, pointers hashed and user stacks dropped.\n"
	"The output is checked for every value replaced before it is kept.\n"
	"\n"
	"  -o, --output FILE   where to write (required; never the input); with several\n"
	"                      inputs a directory, each written under its own name\n"
	"      --policy FILE   rules on top of the default policy (see flytrap-redact(1))\n"
	"      --key FILE      the HMAC key (16 bytes or more): one key, the same\n"
	"                      tokens; without it, a random key that is not kept\n"
	"                      (one for all the inputs of one call: they still merge)\n"
	"      --keep-kallsyms every kernel symbol, not only those the events use\n"
	"      --show-policy   print the effective policy and exit\n"
	"      --json          a JSON summary on standard output\n"
	"  -v                  more messages\n"
	"  -h, --help          this help\n";

enum op { OP_STR, OP_KADDR, OP_KADDR_ARR, OP_PTR, OP_DROP, OP_USTACK, OP_UCOPY };
enum { CLS_AUTO = 100 };

struct field_op {
	struct fmt_field f;
	uint8_t op;
	uint8_t cls;		/* enum rpt_red_class or CLS_AUTO */
	int8_t action;		/* a field rule's, or -1 */
	bool tail;		/* an array of size 0: it runs to the end of the record */
	int elem;		/* element size of an address array */
	const char *name;
};

struct rtype {
	bool done;
	const struct tep_event *e;
	int nops;
	struct field_op *ops;
	int ndyn;		/* dynamic fields, in field order, for laying them out anew */
	struct fmt_field *dyn;
	int fixed_end;
};

struct field_new {			/* the new contents of a dynamic or tail field */
	bool set;
	const uint8_t *p;
	uint32_t len;
};

struct red {
	struct rpt_red_policy pol;
	struct rpt_red_ctx c;
	struct fmt_reader *r;
	const struct fmt_info *in;
	const char *in_path, *out_path;
	bool json;
	struct rtype *types;	/* by event ID */
	uint8_t *buf, *old, *strs;	/* the record being built, a copy, new strings */
	size_t bufcap, strcap, strused;
	struct field_new *slots;
	int slotcap;
	int maxcpu;
	struct rpt_enc *enc;
	struct fmt_wbuf **wb;
	uint64_t events, events_out;
	size_t npublic;		/* values also in the kernel's texts: decoded check only */
	char key_id[17];	/* the key's fingerprint (and those of earlier redactions) */
	char *left;		/* what the check found */
};

/* ---- the plan of an event type ---------------------------------------------------- */

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static const char *const kaddr_names[] = { "ip", "parent_ip", "func", "caller_ip", "ret_ip",
					   "function", "fmt", "str", NULL };
static const char *const ptr_names[] = { "ptr", "call_site", "skbaddr", "skb", "addr", "page",
					 NULL };
/* interp: the interpreter sched_prepare_exec names (the file itself when there is none) */
static const char *const path_names[] = { "filename", "pathname", "path", "file", "fname", "interp",
					  NULL };

static int str_class(const char *name)
{
	size_t l = strlen(name);

	if (l >= 4 && !strcmp(name + l - 4, "comm"))
		return RED_C_COMM;
	if (name_in(name, path_names))
		return RED_C_PATH;
	return CLS_AUTO;
}

static bool is_pointer(const struct tep_format_field *f)
{
	size_t l = strlen(f->name);

	return (f->flags & TEP_FIELD_IS_POINTER) || name_in(f->name, ptr_names) ||
	       (l > 4 && (!strcmp(f->name + l - 4, "addr") || !strcmp(f->name + l - 4, "_ptr")));
}

/*
 * Kernel addresses kept, and every kernel symbol with them: nothing to
 * change or to note.  Kept without --keep-kallsyms, they are still noted
 * so that the kallsyms keep only the symbols they use.
 */
static bool kaddr_untouched(const struct red *d)
{
	return d->c.kaddr == RED_KEEP && d->c.keep_kallsyms;
}

/* The op for one field, or -1 to leave it as it is. */
static int field_op(struct red *d, const struct tep_event *e, const struct tep_format_field *f,
		    struct field_op *o)
{
	int fa = rpt_red_field_action(&d->pol, e->system, e->name, f->name);
	bool dyn = f->flags & TEP_FIELD_IS_DYNAMIC;
	/*
	 * a field of size 0 runs to the end of the record, array or not
	 * ("u32 buf;" of old kernels)
	 */
	bool arr = (f->flags & TEP_FIELD_IS_ARRAY) || dyn || f->size == 0;
	bool str = (f->flags & TEP_FIELD_IS_STRING) || (arr && strstr(f->type, "char"));
	bool ftrace = !strcmp(e->system, "ftrace");
	int klong = d->in->kernel_long == 4 ? 4 : 8;

	o->action = (int8_t)fa;
	o->cls = CLS_AUTO;
	o->tail = arr && !dyn && f->size == 0;
	o->name = f->name;
	if (fa == RED_KEEP && str && !dyn && !o->tail && str_class(f->name) == RED_C_COMM) {
		/* a comm kept as it is still loses what follows its NUL (do_str) */
		o->cls = RED_C_COMM;
		return OP_STR;
	}
	if (fa == RED_KEEP)
		return -1;
	if (fa == RED_DROP)
		return OP_DROP;
	/*
	 * record --user-stack: a copy of the top of the user stack (user
	 * memory: anything the program had there) and the registers it starts
	 * from go with the user stacks
	 */
	if (dyn && !strcmp(e->system, "flytrap") &&
	    (!strcmp(f->name, "ucopy") || !strcmp(f->name, "uregs")))
		return d->pol.ustack == RED_DROP ? OP_UCOPY : -1;
	if (str) {
		o->cls = (uint8_t)str_class(f->name);
		return OP_STR;
	}
	if (!strcmp(f->name, "ustack") || (ftrace && !strcmp(e->name, "user_stack") &&
					   !strcmp(f->name, "caller"))) {
		o->elem = !strcmp(f->name, "ustack") ? 8 : klong;
		return d->pol.ustack == RED_DROP ? OP_USTACK : -1;
	}
	if (arr && (!strcmp(f->name, "kstack") || (ftrace && !strcmp(e->name, "kernel_stack") &&
						  !strcmp(f->name, "caller")))) {
		o->elem = !strcmp(f->name, "kstack") ? 8 : klong;
		return kaddr_untouched(d) ? -1 : OP_KADDR_ARR;
	}
	if (arr || (f->size != 8 && f->size != klong))
		return -1;
	if (fa == RED_HASH)
		return OP_PTR;
	if (name_in(f->name, kaddr_names) && strcmp(f->name, "call_site"))
		return kaddr_untouched(d) ? -1 : OP_KADDR;
	if (is_pointer(f))
		return d->pol.pointers == RED_KEEP ? -1 : OP_PTR;
	return -1;
}

static struct rtype *plan(struct red *d, int id, const struct tep_event *e)
{
	struct rtype *t;
	int n = 0;

	if (id < 0 || id > 65535 || !e)
		return NULL;
	t = &d->types[id];
	if (t->done)
		return t;
	t->done = true;
	t->e = e;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		n++;
	t->ops = calloc((size_t)n + 1, sizeof(*t->ops));
	t->dyn = calloc((size_t)n + 1, sizeof(*t->dyn));
	if (!t->ops || !t->dyn)
		return NULL;
	for (struct tep_format_field *f = e->format.common_fields; f; f = f->next)
		if (f->offset + f->size > t->fixed_end)
			t->fixed_end = f->offset + f->size;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
		struct field_op *o = &t->ops[t->nops];
		int op;

		if (f->offset + f->size > t->fixed_end)
			t->fixed_end = f->offset + f->size;
		if (fmt_field_resolve(e, f->name, &o->f))
			continue;
		if (f->flags & TEP_FIELD_IS_DYNAMIC)
			t->dyn[t->ndyn++] = o->f;
		op = field_op(d, e, f, o);
		if (op < 0)
			continue;
		o->op = (uint8_t)op;
		t->nops++;
	}
	return t;
}

/* ---- one record ------------------------------------------------------------------- */

bool rpt_red_is_kaddr(uint64_t v, int kernel_long)
{
	return kernel_long == 4 ? v >= 0xc0000000ULL && v <= 0xffffffffULL
				: v >= 0xffff800000000000ULL;
}

/*
 * Kernel text lies within 4 GiB of its base (modules and BPF programs
 * included): a file redacted before holds offsets below that.
 */
#define REL_SPAN (1ULL << 32)

bool rpt_red_ctx_is_kaddr(const struct rpt_red_ctx *c, uint64_t v, int kernel_long)
{
	if (c->rel_input)
		return v && v < REL_SPAN;
	return rpt_red_is_kaddr(v, kernel_long);
}

uint64_t rpt_red_kaddr(struct rpt_red_ctx *c, uint64_t v)
{
	c->n.kaddr++;
	if (c->kaddr == RED_DROP)
		return 0;
	rpt_ksyms_keep_addr(c->ksyms, v);
	/* an offset of a file redacted before is one already (text_base 0) */
	return c->kaddr == RED_KEEP ? v : v - c->text_base;
}

static void put_uint(const struct fmt_field *f, uint8_t *p, int size, uint64_t v)
{
	for (int i = 0; i < size; i++)
		p[f->big_endian ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_uint(const struct fmt_field *f, const uint8_t *p, int size)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v |= (uint64_t)p[f->big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Room for a new string of a dynamic field; NULL when out of memory. */
static uint8_t *str_room(struct red *d, size_t n)
{
	if (d->strused + n > d->strcap) {
		/* the slots point into strs: it must never move while a record is built */
		return NULL;
	}
	d->strused += n;
	return d->strs + d->strused - n;
}

/*
 * A string field: the token, nothing, or the value kept.  Fixed arrays
 * change in place; dynamic and tail ones get a slot.
 */
static int do_str(struct red *d, const struct field_op *o, uint8_t *rec, uint32_t len, struct field_new *s)
{
	int flen = 0;
	uint8_t *p = (uint8_t *)fmt_field_ptr(&o->f, rec, (int)len, &flen);
	char tok[64], *v;
	size_t n;
	int cls = o->cls, action = o->action, tl;
	bool nl;
	FILE *f;
	char *out = NULL;
	size_t olen = 0;

	if (o->tail && o->f.offset >= 0 && (uint32_t)o->f.offset <= len) {
		p = rec + o->f.offset;
		flen = (int)(len - (uint32_t)o->f.offset);
	}
	if (!p || flen <= 0)
		return 0;
	n = strnlen((const char *)p, (size_t)flen);
	/*
	 * what follows the NUL of a comm array is what the buffer held
	 * before: often another task's name (BPF records of older recorders)
	 */
	if (cls == RED_C_COMM && !o->f.is_dynamic && !o->tail && n < (size_t)flen)
		memset(p + n, 0, (size_t)flen - n);
	nl = n && p[n - 1] == '\n';
	if (n - nl == 0)
		return 0;
	if (cls == CLS_AUTO)
		cls = p[0] == '/' ? RED_C_PATH : action == RED_HASH ? RED_C_TEXT : -1;
	if (cls < 0)
		return 0;
	v = strndup((const char *)p, n - nl);
	f = v ? open_memstream(&out, &olen) : NULL;
	if (!f) {
		free(v);
		return -ENOMEM;
	}
	if (!rpt_red_put(&d->c, f, (enum rpt_red_class)cls, action, v, n - nl)) {
		fclose(f);
		free(out);
		free(v);
		return 0;
	}
	if (nl)
		fputc('\n', f);
	free(v);
	if (fclose(f)) {
		free(out);
		return -ENOMEM;
	}
	tl = (int)(olen < sizeof(tok) - 1 ? olen : sizeof(tok) - 1);
	memcpy(tok, out, (size_t)tl);
	tok[tl] = '\0';
	free(out);
	if (!o->f.is_dynamic && !o->tail) {
		memset(p, 0, (size_t)flen);
		memcpy(p, tok, (size_t)(tl < flen - 1 ? tl : flen - 1));
		return 0;
	}
	s->p = str_room(d, (size_t)tl + 1);
	if (!s->p)
		return -ENOMEM;
	memcpy((uint8_t *)s->p, tok, (size_t)tl + 1);
	s->len = (uint32_t)tl + 1;
	s->set = true;
	d->c.n.records_rebuilt++;
	return 0;
}

static void do_addrs(struct red *d, const struct field_op *o, uint8_t *rec, uint32_t len)
{
	int flen = 0;
	uint8_t *p = (uint8_t *)fmt_field_ptr(&o->f, rec, (int)len, &flen);

	if (o->tail && o->f.offset >= 0 && (uint32_t)o->f.offset <= len) {
		p = rec + o->f.offset;
		flen = (int)(len - (uint32_t)o->f.offset);
	} else if (!o->f.is_dynamic && p && o->f.offset + flen < (int)len &&
		   !strcmp(o->name, "caller")) {
		flen = (int)len - o->f.offset;	/* kernel_stack holds more than caller[8] says */
	}
	if (!p || o->elem <= 0)
		return;
	for (int i = 0; i + o->elem <= flen; i += o->elem) {
		uint64_t v = get_uint(&o->f, p + i, o->elem);

		if (o->op == OP_USTACK) {
			if (v)
				d->c.n.ustack++;
			put_uint(&o->f, p + i, o->elem, 0);
		} else if (rpt_red_ctx_is_kaddr(&d->c, v, o->elem)) {
			put_uint(&o->f, p + i, o->elem, rpt_red_kaddr(&d->c, v));
		}
	}
}

/* Lay out the dynamic fields anew after the fixed part. */
static int rebuild(struct red *d, const struct rtype *t, const uint8_t *in, uint32_t len,
		   uint32_t *olen)
{
	uint32_t cur = (uint32_t)t->fixed_end;
	uint8_t *out = d->buf;

	if (cur > len)
		return -EBADMSG;
	/* the fields left as they are keep what the ops changed in place (a kstack) */
	memcpy(d->old, d->buf, len);
	in = d->old;
	for (int i = 0; i < t->ndyn; i++) {
		const struct fmt_field *f = &t->dyn[i];
		struct field_new *s = &d->slots[i];
		int flen = 0;
		const void *p = s->set ? s->p : fmt_field_ptr(f, in, (int)len, &flen);
		uint32_t n = s->set ? s->len : p ? (uint32_t)flen : 0, loc;

		if (cur + n > 0xffff || cur + n > d->bufcap)
			return -EOVERFLOW;
		if (n)
			memcpy(out + cur, p, n);
		loc = cur - (f->is_relative ? (uint32_t)(f->offset + 4) : 0);
		put_uint(f, out + f->offset, 4, (uint64_t)n << 16 | (loc & 0xffff));
		cur += n;
	}
	*olen = cur;
	return 0;
}

static int redact_record(struct red *d, const uint8_t *in, uint32_t len, const uint8_t **out,
			 uint32_t *olen)
{
	uint16_t id = 0;
	const struct rtype *t;
	bool relayout = false;
	int err = 0;

	*out = in;
	*olen = len;
	if (len < 8)
		return 0;
	id = (uint16_t)get_uint(&(struct fmt_field){ .big_endian = d->in->big_endian }, in, 2);
	t = plan(d, id, fmt_reader_event(d->r, id));
	if (!t || !t->nops)
		return 0;
	if ((size_t)len + 64 * ((size_t)t->ndyn + 1) > d->bufcap) {
		size_t cap = (size_t)len + 64 * ((size_t)t->ndyn + 1) + 4096;
		uint8_t *nb = realloc(d->buf, cap), *no = nb ? realloc(d->old, cap) : NULL;

		if (nb)
			d->buf = nb;
		if (!nb || !no)
			return -ENOMEM;
		d->old = no;
		d->bufcap = cap;
	}
	if (t->ndyn + 1 > d->slotcap) {
		struct field_new *ns = realloc(d->slots, (size_t)(t->ndyn + 1) * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		d->slots = ns;
		d->slotcap = t->ndyn + 1;
	}
	memset(d->slots, 0, (size_t)d->slotcap * sizeof(*d->slots));
	d->strused = 0;
	memcpy(d->buf, in, len);
	for (int i = 0; i < t->nops && !err; i++) {
		const struct field_op *o = &t->ops[i];
		struct field_new tail = { 0 }, *s = &tail;
		uint64_t v;

		for (int k = 0; o->f.is_dynamic && k < t->ndyn; k++)
			if (t->dyn[k].offset == o->f.offset)
				s = &d->slots[k];
		switch (o->op) {
		case OP_STR:
			err = do_str(d, o, d->buf, len, s);
			break;
		case OP_UCOPY: {
			int cl = 0;

			s->set = true;	/* nothing */
			s->len = 0;
			if (!strcmp(o->name, "ucopy") && fmt_field_ptr(&o->f, in, (int)len, &cl) &&
			    cl > 0)
				d->c.n.ucopy++;
			break;
		}
		case OP_KADDR_ARR:
		case OP_USTACK:
			if (o->op == OP_USTACK && o->f.is_dynamic) {
				s->set = true;	/* nothing */
				s->len = 0;
				d->c.n.ustack++;
			} else {
				do_addrs(d, o, d->buf, len);
			}
			break;
		case OP_KADDR:
		case OP_PTR:
			if (o->f.offset + o->f.size > (int)len)
				break;
			v = get_uint(&o->f, d->buf + o->f.offset, o->f.size);
			if (o->op == OP_KADDR && rpt_red_ctx_is_kaddr(&d->c, v, o->f.size))
				v = rpt_red_kaddr(&d->c, v);
			else if (o->op == OP_PTR && v) {
				bool drop = d->pol.pointers == RED_DROP && o->action != RED_HASH;

				v = drop ? 0 : rpt_red_pointer(d->c.t, v);
				d->c.n.pointers++;
			}
			put_uint(&o->f, d->buf + o->f.offset, o->f.size, v);
			break;
		case OP_DROP:
			d->c.n.dropped++;
			if (o->f.is_dynamic) {
				s->set = true;
				s->len = 0;
			} else if (o->tail) {
				if (o->f.offset >= 0 && (uint32_t)o->f.offset <= len)
					memset(d->buf + o->f.offset, 0,
					       len - (uint32_t)o->f.offset);
			} else if (o->f.offset + o->f.size <= (int)len) {
				memset(d->buf + o->f.offset, 0, (size_t)o->f.size);
			}
			break;
		}
		if (o->tail && tail.set) {
			/* the record ends with the new string */
			memcpy(d->buf + o->f.offset, tail.p, tail.len);
			*olen = (uint32_t)o->f.offset + tail.len;
			len = *olen;
		}
		relayout |= s != &tail && s->set;
	}
	if (err)
		return err;
	*out = d->buf;
	if (relayout)
		err = rebuild(d, t, in, *olen, olen);
	return err;
}

static int rec_cb(void *arg, const uint8_t *in, uint32_t len, const uint8_t **out, uint32_t *olen)
{
	return redact_record(arg, in, len, out, olen);
}

/* ---- the pass --------------------------------------------------------------------- */

static int run(struct red *d)
{
	struct fmt_iter *it;
	const struct fmt_event *ev;
	int rc, err;

	err = fmt_iter_new(d->r, NULL, &it);
	if (err)
		return ft_error("'%s': %s", d->in_path, fmt_reader_error(d->r)), -ECANCELED;
	while ((rc = fmt_iter_next(it, &ev)) != 0) {
		const uint8_t *out;
		uint32_t olen;
		int ix;

		if (rc < 0) {
			/* a redacted copy of part of a file looks whole: refuse */
			ft_error("'%s': %s", d->in_path, fmt_reader_error(d->r));
			err = -ECANCELED;
			break;
		}
		d->events++;
		err = redact_record(d, ev->rec.data, (uint32_t)ev->rec.size, &out, &olen);
		if (err) {
			ft_error("cannot redact a record of '%s' at %llu: %s", d->in_path,
				 (unsigned long long)ev->rec.ts, strerror(-err));
			err = -ECANCELED;
			break;
		}
		ix = ev->buffer * (d->maxcpu + 1) + ev->rec.cpu;
		err = rpt_enc_add(&d->enc[ix], d->in, ev->raw_ts, out, olen, ev->rec.missed_events);
		if (err)
			break;
		d->events_out++;
	}
	fmt_iter_free(it);
	if (err && err != -ECANCELED)
		ft_error("cannot redact '%s': %s", d->in_path, strerror(-err));
	return err;
}

static int redact_option(struct red *d, struct fmt_writer *w)
{
	char text[640];
	size_t np = 0;
	size_t ns = rpt_red_count(d->c.t, &np);
	bool rel = d->c.kaddr == RED_RELATIVE || (d->c.kaddr == RED_KEEP && d->c.rel_input);

	/*
	 * redact_key_id tells merge and diff whether two files' tokens can
	 * match: one key (and the same keys before it), one id
	 */
	snprintf(text, sizeof(text),
		 "redacted_by=flytrap %s\nredact_policy_sha256=%s\nredact_key=%s\n"
		 "redact_key_id=%s\nredact_values=%zu\nredact_pointers=%zu\n"
		 "redact_kernel_addresses=%s%s%s\n",
		 FLYTRAP_VERSION, d->pol.sha256, rpt_red_key_given(d->c.t) ? "given" : "random",
		 d->key_id, ns, np, rel ? "relative to " :
		 d->c.kaddr == RED_DROP ? "dropped" : "kept", rel ? d->c.base_name : "",
		 rel && d->c.base_name[0] != '_' ? " (2 MiB below)" : "");
	return fmt_writer_option_str(w, FMT_OPT_FT_META, text);
}

/* Whether the first nl bytes of name are a buffer a merge named after its source's file. */
static bool merge_source_buffer(struct red *d, const char *name, size_t nl)
{
	const struct fmt_option *o = fmt_reader_option(d->r, FMT_OPT_FT_MERGE, 0);

	if (!o || !nl || rpt_red_meta_action(&d->pol, "source.0.buffer") != RED_HASH)
		return false;
	for (const char *p = o->data, *end = p + o->size; p < end;) {
		const char *le = memchr(p, '\n', (size_t)(end - p)), *eq;

		le = le ? le : end;
		eq = memchr(p, '=', (size_t)(le - p));
		if (eq && eq - p > 7 && !memcmp(eq - 7, ".buffer", 7) &&
		    !strncmp(p, "source.", 7) && (size_t)(le - eq - 1) == nl &&
		    !memcmp(eq + 1, name, nl))
			return true;
		p = le + 1;
	}
	return false;
}

/*
 * A buffer's name: a merge names each source's buffer after its file, and
 * an instance of it NAME:INSTANCE, so NAME is hashed as its
 * "source.N.buffer" metadata line is (the same token); an instance name
 * by the buffer rules.
 */
static const char *buffer_name(struct red *d, const char *name, char *buf, size_t cap)
{
	size_t nl = strlen(name), o = 0;
	const char *colon = strchr(name, ':'), *inst = name;
	int tl;

	if (!nl)
		return name;
	if (merge_source_buffer(d, name, nl)) {
		rpt_red_token(d->c.t, RED_C_TEXT, name, nl, buf, cap);
		return buf;
	}
	if (colon && merge_source_buffer(d, name, (size_t)(colon - name))) {
		tl = rpt_red_token(d->c.t, RED_C_TEXT, name, (size_t)(colon - name), buf, cap - 1);
		o = tl > 0 ? (size_t)tl : 0;
		buf[o++] = ':';
		inst = colon + 1;
	} else if (rpt_red_buffer_action(&d->pol, name) == RED_KEEP) {
		return name;
	}
	if (rpt_red_buffer_action(&d->pol, inst) == RED_KEEP) {
		snprintf(buf + o, cap - o, "%s", inst);
		return buf;
	}
	rpt_red_token(d->c.t, RED_C_TEXT, inst, strlen(inst), buf + o, cap - o);
	d->c.n.text++;
	return buf;
}

/*
 * The output under the writer's own temporary name beside OUT (*tmp,
 * malloc'd), closed but not renamed: the check reads it first.
 */
static int write_out(struct red *d, char **tmp)
{
	struct fmt_writer_opts wo;
	struct rpt_meta_copy mc = { .skip = rpt_red_skip_option, .arg = &d->c, .no_cmdlines = true,
				    .no_kallsyms = true };
	struct fmt_writer *w = NULL;
	const char *what = "";
	char *printk = NULL;
	int err, nstreams = d->in->nbuffers * (d->maxcpu + 1), i;

	rpt_writer_opts_like(d->in, &wo);
	wo.keep_temp = true;
	err = rpt_writer_open(d->out_path, &wo, &w);
	if (err)
		return ft_error("cannot create '%s': %s", d->out_path, strerror(-err)), -ECANCELED;
	*tmp = strdup(fmt_writer_temp(w));
	d->enc = calloc((size_t)nstreams, sizeof(*d->enc));
	d->wb = calloc((size_t)d->in->nbuffers + 1, sizeof(*d->wb));
	printk = rpt_red_printk(&d->c, d->in->printk.data ? d->in->printk.data : "",
				d->in->printk.len, &mc.printk_len);
	mc.printk = printk;
	if (!d->enc || !d->wb || !printk || !*tmp) {
		err = -ENOMEM;
		goto fail;
	}
	err = rpt_copy_meta(d->r, w, &mc, &what);
	if (!err)
		err = rpt_red_write_meta(&d->c, d->r, w, &what);
	for (i = 0; i < d->in->nbuffers && !err; i++) {
		char name[64];
		const char *bn = buffer_name(d, d->in->buffers[i].name, name, sizeof(name));

		err = fmt_wbuf_new(w, bn, d->in->buffers[i].clock, &d->wb[i]);
	}
	if (err)
		goto fail;
	for (i = 0; i < nstreams; i++) {
		d->enc[i].wb = d->wb[i / (d->maxcpu + 1)];
		d->enc[i].cpu = i % (d->maxcpu + 1);
	}
	err = run(d);
	if (err) {
		free(printk);
		rpt_writer_abort(w);
		free(*tmp);
		*tmp = NULL;
		return -ECANCELED;
	}
	what = "buffers";
	for (i = 0; i < nstreams && !err; i++)
		err = rpt_enc_flush(&d->enc[i]);
	if (!err) {
		what = "BPF objects and maps";
		err = rpt_red_write_bpfobjs(&d->c, d->r, w);
	}
	if (!err) {
		what = "kallsyms";
		err = rpt_red_write_kallsyms(&d->c, d->r, w);
	}
	if (!err) {
		what = "redact metadata";
		err = redact_option(d, w);
	}
	if (!err && !mc.have_cpucount)
		err = fmt_writer_cpucount(w, (uint32_t)(d->in->cpus > d->maxcpu + 1 ?
							d->in->cpus : d->maxcpu + 1));
	if (err)
		goto fail;
	free(printk);
	err = rpt_writer_close(w);
	if (err) {
		/* the writer removed its temporary file (discard_spools_on_error) */
		free(*tmp);
		*tmp = NULL;
		return ft_error("cannot write '%s': %s", d->out_path, strerror(-err)), -ECANCELED;
	}
	return 0;
fail:
	free(printk);
	ft_error("cannot write '%s' (%s): %s", d->out_path, what,
		 fmt_writer_error(w)[0] ? fmt_writer_error(w) : strerror(-err));
	rpt_writer_abort(w);
	free(*tmp);
	*tmp = NULL;
	return -ECANCELED;
}

/* ---- the check -------------------------------------------------------------------- */

static bool stale_tail(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return true;
	return false;
}

static char *stale_found(const struct fmt_event *ev, const char *field)
{
	char *found = NULL;

	if (asprintf(&found, "bytes after the NUL of %s:%s field %s", ev->event->system,
		     ev->event->name, field) < 0)
		found = strdup("bytes after the NUL of a comm");
	return found;
}

/*
 * Every string field of every event of the output, and nothing after the
 * NUL of a comm array (names under six bytes escape the raw search).
 */
static char *check_events(struct red *d, struct fmt_reader *r)
{
	struct fmt_iter *it;
	const struct fmt_event *ev;
	char *found = NULL;
	int rc;

	if (fmt_iter_new(r, NULL, &it))
		return strdup("the output's events (cannot read them)");
	while (!found && (rc = fmt_iter_next(it, &ev)) != 0) {
		if (rc < 0) {
			found = strdup("the output's events (damaged)");
			break;
		}
		for (struct tep_format_field *f = ev->event ? ev->event->format.fields : NULL;
		     f && !found; f = f->next) {
			struct fmt_field ff;
			int len = 0;
			const char *p;

			if (!(f->flags & TEP_FIELD_IS_STRING) &&
			    !((f->flags & TEP_FIELD_IS_ARRAY || f->size == 0) &&
			      strstr(f->type, "char")))
				continue;
			if (fmt_field_resolve(ev->event, f->name, &ff))
				continue;
			p = fmt_field_ptr(&ff, ev->rec.data, ev->rec.size, &len);
			if (ff.size == 0 && ff.offset <= ev->rec.size) {
				p = (const char *)ev->rec.data + ff.offset;
				len = ev->rec.size - ff.offset;
			}
			if (p && len > 0) {
				size_t n = strnlen(p, (size_t)len);

				if (!ff.is_dynamic && ff.size > 0 &&
				    str_class(f->name) == RED_C_COMM && n < (size_t)len &&
				    stale_tail(p + n, (size_t)len - n)) {
					found = stale_found(ev, f->name);
					break;
				}

				if (n && p[n - 1] == '\n')
					n--;
				if (n && rpt_red_was_replaced(d->c.t, p, n) &&
				    asprintf(&found, "'%.*s' in %s:%s field %s", (int)n, p,
					     ev->event->system, ev->event->name, f->name) < 0)
					found = NULL;
			}
		}
	}
	fmt_iter_free(it);
	return found;
}

/* The raw bytes of an uncompressed copy of the output. */
static char *check_raw(struct red *d, const char *tmp)
{
	struct rpt_convert_opts co = { .compression = "none" };
	char *plain = NULL, *val = NULL, *found = NULL;
	uint64_t at = 0;
	int rc;

	/* named after the output's own temporary file; convert writes it whole or not at all */
	if (asprintf(&plain, "%s.plain", tmp) < 0)
		return strdup("an uncompressed copy (cannot create it)");
	/* a signal between its rename into place and its removal must not leave it */
	rpt_clean_add(plain);
	if (rpt_convert(tmp, plain, &co) != EXIT_OK) {
		rpt_out_abort(plain);
		return strdup("an uncompressed copy (cannot write it)");
	}
	rc = rpt_red_scan_file(d->c.t, plain, 6, &val, &at);
	rpt_out_abort(plain);
	if (rc < 0)
		return strdup("the output's bytes (cannot read them)");
	if (rc > 0 && asprintf(&found, "'%s' at byte %llu of the uncompressed output", val,
			       (unsigned long long)at) < 0)
		found = strdup("a value in the output's bytes");
	free(val);
	return found;
}

static int corpus_format(void *arg, const char *system, const char *text, size_t len)
{
	(void)system;
	fwrite(text, 1, len, arg);
	fputc('\n', arg);
	return 0;
}

/*
 * The kernel's own texts in the output (and flytrap's name), the names of
 * the stored symbol tables and the metadata's keys: a value found there
 * is no leak of the recording, and is checked in decoded fields only.
 */
static void mark_public(struct red *d, struct fmt_reader *r)
{
	const struct fmt_info *in = fmt_reader_info(r);
	const struct fmt_option *v = fmt_reader_option(r, FMT_OPT_VERSION, 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	fprintf(f, "flytrap\n%s\n%s\n", in->header_page.data ? in->header_page.data : "",
		in->header_event.data ? in->header_event.data : "");
	fmt_reader_formats(r, corpus_format, f);
	fwrite(in->printk.data ? in->printk.data : "", 1, in->printk.len, f);
	fwrite(in->kallsyms.data ? in->kallsyms.data : "", 1, in->kallsyms.len, f);
	if (v)
		fwrite(v->data, 1, v->size, f);
	/* the kernel's clock list and CPU statistics */
	for (int k = 0; (v = fmt_reader_option(r, FMT_OPT_TRACECLOCK, k)); k++)
		fwrite(v->data, 1, v->size, f);
	for (int k = 0; (v = fmt_reader_option(r, FMT_OPT_CPUSTAT, k)); k++)
		fwrite(v->data, 1, v->size, f);
	for (int b = 0; b < in->nbuffers; b++)
		fprintf(f, "\n%s\n", in->buffers[b].name);
	rpt_red_public_words(r, f);
	if (d->c.kept)
		fwrite(d->c.kept, 1, d->c.kept_len, f);
	if (!fclose(f))
		d->npublic = rpt_red_mark_public(d->c.t, text, len, 6);
	free(text);
}

static int check_output(struct red *d, const char *tmp)
{
	struct fmt_reader *r = NULL;
	char *open_err = NULL;
	int err = fmt_reader_open(tmp, FMT_OPEN_LAZY_FORMATS, &r, &open_err);

	if (err) {
		ft_error("cannot read the redacted copy back: %s",
			 open_err ? open_err : strerror(-err));
		free(open_err);
		return -ECANCELED;
	}
	d->left = check_events(d, r);
	if (!d->left)
		d->left = rpt_red_check_meta(&d->c, r);
	mark_public(d, r);
	fmt_reader_close(r);
	if (!d->left)
		d->left = check_raw(d, tmp);
	if (d->left) {
		ft_error("'%s' not written: a value it replaced is still there: %s", d->out_path,
			 d->left);
		return -ECANCELED;
	}
	return 0;
}

/* ---- the command ------------------------------------------------------------------ */

static void print_summary(const struct red *d)
{
	const struct rpt_red_count *n = &d->c.n;
	size_t np = 0, nv = rpt_red_count(d->c.t, &np);

	if (d->json) {
		struct rpt_json j;

		if (rpt_json_init(&j, stdout, 0))
			return;
		rpt_json_obj(&j);
		rpt_json_kstr(&j, "input", d->in_path);
		rpt_json_kstr(&j, "output", d->out_path);
		rpt_json_ku64(&j, "events", d->events);
		rpt_json_kstr(&j, "policy_sha256", d->pol.sha256);
		rpt_json_kstr(&j, "key", rpt_red_key_given(d->c.t) ? "given" : "random");
		rpt_json_kstr(&j, "key_id", d->key_id);
		rpt_json_ku64(&j, "distinct_values", nv);
		rpt_json_ku64(&j, "distinct_pointers", np);
		rpt_json_kobj(&j, "replaced");
		rpt_json_ku64(&j, "comm", n->comm);
		rpt_json_ku64(&j, "path", n->path);
		rpt_json_ku64(&j, "host", n->host);
		rpt_json_ku64(&j, "text", n->text);
		rpt_json_obj_end(&j);
		rpt_json_ku64(&j, "dropped", n->dropped);
		rpt_json_ku64(&j, "kernel_addresses", n->kaddr);
		rpt_json_kstr(&j, "kernel_address_mode", d->c.kaddr == RED_RELATIVE ? "relative" :
						      d->c.kaddr == RED_DROP ? "dropped" : "kept");
		rpt_json_ku64(&j, "pointers", n->pointers);
		rpt_json_ku64(&j, "user_stacks", n->ustack);
		rpt_json_ku64(&j, "user_stack_copies", n->ucopy);
		rpt_json_ku64(&j, "records_resized", n->records_rebuilt);
		rpt_json_kobj(&j, "kernel_symbols");
		rpt_json_ku64(&j, "in", n->ksyms_in);
		rpt_json_ku64(&j, "out", n->ksyms_out);
		rpt_json_obj_end(&j);
		rpt_json_ku64(&j, "decoded_check_only", d->npublic);
		rpt_json_obj_end(&j);
		RPT_JSON_LIT(&j, "\n");
		rpt_json_done(&j);	/* a failed write stays on stdout (ft_finish_stdout) */
		return;
	}
	printf("redacted '%s' into '%s'\n  %llu events, every one checked\n", d->in_path,
	       d->out_path, (unsigned long long)d->events);
	printf("  %-28s %12s\n", "what", "replaced");
	printf("  %-28s %12llu\n", "task names (tokens)", (unsigned long long)n->comm);
	printf("  %-28s %12llu\n", "file paths (tokens)", (unsigned long long)n->path);
	printf("  %-28s %12llu\n", "host names (tokens)", (unsigned long long)n->host);
	printf("  %-28s %12llu\n", "texts, command lines", (unsigned long long)n->text);
	printf("  %-28s %12llu\n", "dropped fields and values", (unsigned long long)n->dropped);
	printf("  %-28s %12llu  (%s)\n", "kernel addresses", (unsigned long long)n->kaddr,
	       d->c.kaddr == RED_RELATIVE ? "relative" :
	       d->c.kaddr == RED_DROP ? "dropped" : "kept");
	if (d->c.kaddr == RED_RELATIVE)
		printf("  %-28s %.40s%s\n", "  relative to", d->c.base_name,
		       d->c.base_name[0] != '_' ? " (2 MiB below)" : "");
	printf("  %-28s %12llu\n", "pointers", (unsigned long long)n->pointers);
	printf("  %-28s %12llu\n", "user stacks dropped", (unsigned long long)n->ustack);
	printf("  %-28s %12llu\n", "user stack copies dropped", (unsigned long long)n->ucopy);
	printf("  %-28s %12llu of %llu\n", "kernel symbols kept", (unsigned long long)n->ksyms_out,
	       (unsigned long long)n->ksyms_in);
	if (d->npublic) {
		printf("  %zu value%s also in the kernel's own texts (checked in decoded fields\n"
		       "  only):", d->npublic, d->npublic == 1 ? "" : "s");
		for (size_t k = 0; k < d->npublic && k < 4; k++)
			printf("%s %.16s", k ? "," : "", rpt_red_public_name(d->c.t, k));
		printf("%s\n", d->npublic > 4 ? ", …" : "");
	}
	printf("  distinct values %zu, pointers %zu; policy %.12s…; key %s (id %s)\n", nv, np,
	       d->pol.sha256, rpt_red_key_given(d->c.t) ? "given" : "random, not kept",
	       d->key_id);
}

/* What the command line says; the same for every input of one call. */
struct red_args {
	const char **ins;
	int nin;
	const char *out, *policy_path, *key_path;
	bool json, show_policy, keep_kallsyms, out_dir;
};

/* The output of input k: OUT itself, or DIR/BASENAME for several inputs (malloc'd). */
static char *out_name(const struct red_args *A, int k)
{
	const char *base = strrchr(A->ins[k], '/');
	char *o = NULL;

	if (!A->out_dir)
		return strdup(A->out);
	base = base ? base + 1 : A->ins[k];
	return asprintf(&o, "%s/%s", A->out, base) < 0 ? NULL : o;
}

/* Each output writable, none an input, no two the same. */
static int check_outputs(const struct red_args *A)
{
	for (int k = 0; k < A->nin; k++) {
		char *o = out_name(A, k);
		const char *why = NULL;
		struct stat si, so;
		int rc = 0;

		if (!o)
			return ft_error("out of memory");
		if (fmt_outfile_check(o, &why) && why)
			rc = ft_usage_error("cannot write '%s': %s", o, why);
		for (int i = 0; !rc && i < A->nin; i++)
			if (stat(A->ins[i], &si) == 0 && stat(o, &so) == 0 &&
			    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
				rc = ft_usage_error("the output '%s' is an input", o);
		for (int i = 0; !rc && i < k; i++) {
			const char *bi = strrchr(A->ins[i], '/'), *bk = strrchr(A->ins[k], '/');

			if (!strcmp(bi ? bi + 1 : A->ins[i], bk ? bk + 1 : A->ins[k]))
				rc = ft_usage_error("'%s' and '%s' would both be written to '%s'",
						    A->ins[i], A->ins[k], o);
		}
		free(o);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_args(struct red_args *A, int argc, char **argv)
{
	static const struct ft_opt opts[] = {
		{ "output", 'o', true, 'o' }, { "policy", 0, true, 'P' }, { "key", 0, true, 'K' },
		{ "show-policy", 0, false, 'S' }, { "json", 0, false, 'j' },
		{ "keep-kallsyms", 0, false, 'k' }, { NULL, 'v', false, FT_OPT_ID_VERBOSE },
		FT_OPT_HELP_ENTRY, { 0 },
	};
	static const char *const help[] = { usage_text, NULL };
	struct ft_optparse p;
	struct stat st;
	int c;

	A->ins = calloc((size_t)argc + 1, sizeof(*A->ins));
	if (!A->ins)
		return ft_error("out of memory");
	ft_opt_init(&p, argc, argv, opts);
	while ((c = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		switch (c) {
		case 'o': A->out = p.value; break;
		case 'P': A->policy_path = p.value; break;
		case 'K': A->key_path = p.value; break;
		case 'S': A->show_policy = true; break;
		case 'j': A->json = true; break;
		case 'k': A->keep_kallsyms = true; break;
		case FT_OPT_OPERAND:
			A->ins[A->nin++] = p.value;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (A->show_policy)
		return 0;
	if (!A->nin)
		return ft_usage_error("no input file given");
	if (!A->out || !*A->out)
		return ft_usage_error("no output file given (-o OUT)");
	A->out_dir = A->nin > 1;
	if (A->out_dir && (stat(A->out, &st) || !S_ISDIR(st.st_mode)))
		return ft_usage_error("%d input files: -o names a directory to write them to "
				      "('%s' is none)", A->nin, A->out);
	return check_outputs(A);
}

/* Buffers, CPUs and the kernel-address mode the file allows. */
static int prepare(struct red *d)
{
	const struct fmt_info *in = d->in;
	const char *ks = in->kallsyms.data ? in->kallsyms.data : "", *mode;
	const struct fmt_meta *meta;

	if (in->latency.present)
		return ft_error("cannot redact '%s': a latency-format (text) file has no events",
				d->in_path);
	for (int b = 0; b < in->nbuffers; b++) {
		if (in->buffers[b].page_size && in->buffers[b].page_size != in->page_size)
			return ft_error("cannot redact '%s': buffer '%s' has %u-byte pages, "
					"the file %u", d->in_path, in->buffers[b].name,
					in->buffers[b].page_size, in->page_size);
		for (int c = 0; c < in->buffers[b].ncpus; c++)
			if (in->buffers[b].cpus[c].cpu > d->maxcpu)
				d->maxcpu = in->buffers[b].cpus[c].cpu;
	}
	d->c.kaddr = d->pol.kaddr;
	meta = fmt_reader_meta(d->r);
	mode = meta ? fmt_kv_get(&meta->all, "redact_kernel_addresses") : NULL;
	/*
	 * a file redacted before holds offsets from its base already: they
	 * stay, and name the same symbols (base 0)
	 */
	d->c.rel_input = rpt_red_relative_input(mode, ks, in->kallsyms.len, d->c.base_name,
						sizeof(d->c.base_name));
	if (!d->c.rel_input && d->c.kaddr != RED_DROP &&
	    !rpt_red_text_base(ks, in->kallsyms.len, &d->c.text_base, d->c.base_name,
			       sizeof(d->c.base_name)) && d->c.kaddr == RED_RELATIVE) {
		/* nothing to be relative to: an address would tell the KASLR offset */
		ft_warn("'%s' has no kernel text symbol: kernel addresses are dropped", d->in_path);
		d->c.kaddr = RED_DROP;
	}
	rpt_red_key_id(d->c.t, meta ? fmt_kv_get(&meta->all, "redact_key_id") : NULL, d->key_id,
		       sizeof(d->key_id));
	d->types = calloc(65536, sizeof(*d->types));
	d->strcap = 1 << 16;
	d->strs = malloc(d->strcap);
	/* the kallsyms are kept by pointer: the reader outlives the context */
	d->c.ksyms = rpt_ksyms_keep_new(ks, in->kallsyms.len);
	if (!d->types || !d->strs || !d->c.ksyms)
		return ft_error("out of memory");
	return 0;
}

static void red_release(struct red *d)
{
	int nstreams = d->in ? d->in->nbuffers * (d->maxcpu + 1) : 0;

	for (int i = 0; d->enc && i < nstreams; i++)
		rpt_enc_release(&d->enc[i]);
	for (int i = 0; d->types && i < 65536; i++) {
		free(d->types[i].ops);
		free(d->types[i].dyn);
	}
	free(d->types);
	free(d->enc);
	free(d->wb);
	free(d->buf);
	free(d->old);
	free(d->strs);
	free(d->slots);
	free(d->left);
	rpt_ksyms_keep_free(d->c.ksyms);
	free(d->c.kept);
	rpt_red_tokens_free(d->c.t);
	rpt_red_policy_release(&d->pol);
	fmt_reader_close(d->r);
}

/* One input into its output with the key of t0; an exit code. */
static int redact_one(const struct red_args *A, int k, const struct rpt_red_tokens *t0)
{
	struct red d = { 0 };
	char *open_err = NULL, *tmp = NULL, *out = out_name(A, k);
	int rc = 0, err;

	d.in_path = A->ins[k];
	d.out_path = out;
	d.json = A->json;
	if (!out) {
		rc = ft_error("out of memory");
		goto out;
	}
	if ((rc = rpt_red_policy_load(&d.pol, A->policy_path))) {
		rc = EXIT_USAGE;
		goto out;
	}
	d.c.p = &d.pol;
	d.c.rec = rec_cb;
	d.c.rec_arg = &d;
	d.c.keep_kallsyms = A->keep_kallsyms;
	d.c.t = rpt_red_tokens_new_like(t0);
	if (!d.c.t) {
		rc = ft_error("cannot make a key: %s", strerror(errno));
		goto out;
	}
	err = fmt_reader_open(d.in_path, FMT_OPEN_LAZY_FORMATS, &d.r, &open_err);
	if (err) {
		rc = ft_error("%s", open_err ? open_err : strerror(-err));
		free(open_err);
		goto out;
	}
	if ((rc = rpt_red_policy_check_fields(&d.pol, d.r, d.in_path)))
		goto out;
	d.in = fmt_reader_info(d.r);
	d.c.big_endian = d.in->big_endian;
	if ((rc = prepare(&d)))
		goto out;
	err = write_out(&d, &tmp);
	if (!err)
		err = check_output(&d, tmp);
	if (err) {
		rpt_out_abort(tmp);
		rc = EXIT_FAIL;
		goto out;
	}
	err = rpt_out_commit(tmp, d.out_path);
	if (err) {
		rc = ft_error("cannot rename the output into '%s': %s", d.out_path, strerror(-err));
		goto out;
	}
	print_summary(&d);
out:
	red_release(&d);
	free(out);
	return rc;
}

int cmd_redact(int argc, char **argv)
{
	struct red_args A = { 0 };
	struct rpt_red_policy pol;
	struct rpt_red_tokens *t0 = NULL;
	int rc, k;

	if ((rc = parse_args(&A, argc, argv)))
		goto out;
	/* a wrong policy file is said once, before any input is read */
	if (rpt_red_policy_load(&pol, A.policy_path)) {
		rpt_red_policy_release(&pol);
		rc = EXIT_USAGE;
		goto out;
	}
	if (A.show_policy)
		fputs(pol.text, stdout);
	rpt_red_policy_release(&pol);
	if (A.show_policy)
		goto out;
	/* one key for every input: a rotation's segments redacted together still merge */
	t0 = rpt_red_tokens_new(A.key_path);
	if (!t0) {
		rc = errno == EINVAL ? EXIT_USAGE :
		     ft_error("cannot make a key: %s", strerror(errno));
		goto out;
	}
	for (k = 0; k < A.nin; k++) {
		int r1 = redact_one(&A, k, t0);

		if (r1 == EXIT_USAGE) {
			rc = r1;
			break;
		}
		if (r1 && !rc)
			rc = r1;
	}
out:
	rpt_red_tokens_free(t0);
	free(A.ins);
	return ft_finish_stdout(rc);
}
