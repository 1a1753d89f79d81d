// SPDX-License-Identifier: GPL-2.0-only
/*
 * report -F: libtraceevent's parsed filters evaluated per record (see
 * filter.h for why and for the two places that differ).
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "report/listing/filter.h"

struct slot {
	struct tep_filter_type *ft;	/* NULL: the filter has no rule for this type */
	bool own;			/* evaluated here; else tep_filter_match() */
};

struct rpt_evfilter {
	struct tep_event_filter *f;
	struct tep_handle *tep;
	bool swap;			/* the file's byte order is not ours */
	int nids;
	struct slot *slot;		/* by event ID */
};

/* one evaluation: the record and whether an error ended it */
struct eval {
	const struct rpt_evfilter *cf;
	struct tep_record *rec;
	bool err;
};

/* libtraceevent's pseudo fields COMM and CPU belong to no event */
static bool is_pseudo(const struct tep_format_field *f, const char *name)
{
	return !f->event && f->name && !strcmp(f->name, name);
}

static bool value_ok(const struct tep_filter_arg *a)
{
	const struct tep_format_field *f;

	switch (a->type) {
	case TEP_FILTER_ARG_FIELD:
		f = a->field.field;
		if (!f)
			return false;
		if (!f->event)
			return is_pseudo(f, "CPU");
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	case TEP_FILTER_ARG_VALUE:
		return a->value.type == TEP_FILTER_NUMBER;
	case TEP_FILTER_ARG_EXP:
		return a->exp.type >= TEP_FILTER_EXP_ADD && a->exp.type <= TEP_FILTER_EXP_XOR &&
		       a->exp.left && a->exp.right && value_ok(a->exp.left) &&
		       value_ok(a->exp.right);
	default:
		return false;
	}
}

/* does every node of the tree have a meaning here? */
static bool tree_ok(const struct tep_filter_arg *a)
{
	const struct tep_format_field *f;

	if (!a)
		return false;
	switch (a->type) {
	case TEP_FILTER_ARG_BOOLEAN:
		return true;
	case TEP_FILTER_ARG_OP:
		if (a->op.type == TEP_FILTER_OP_NOT)
			return tree_ok(a->op.right);
		return (a->op.type == TEP_FILTER_OP_AND || a->op.type == TEP_FILTER_OP_OR) &&
		       tree_ok(a->op.left) && tree_ok(a->op.right);
	case TEP_FILTER_ARG_NUM:
		return a->num.type >= TEP_FILTER_CMP_EQ && a->num.type <= TEP_FILTER_CMP_LE &&
		       a->num.left && a->num.right && value_ok(a->num.left) &&
		       value_ok(a->num.right);
	case TEP_FILTER_ARG_STR:
		f = a->str.field;
		if (a->str.type < TEP_FILTER_CMP_MATCH || a->str.type > TEP_FILTER_CMP_NOT_REGEX ||
		    !f || !a->str.val)
			return false;
		if (!f->event)
			return is_pseudo(f, "COMM");
		return (f->flags & TEP_FIELD_IS_STRING) && f->size > 0 && a->str.buffer;
	case TEP_FILTER_ARG_EXP:
	case TEP_FILTER_ARG_VALUE:
	case TEP_FILTER_ARG_FIELD:
		return value_ok(a);
	default:
		return false;
	}
}

struct rpt_evfilter *rpt_evfilter_new(struct tep_event_filter *f)
{
	struct rpt_evfilter *cf = calloc(1, sizeof(*cf));
	int i, max = -1;

	if (!cf)
		return NULL;
	cf->f = f;
	cf->tep = f->tep;
	cf->swap = tep_is_file_bigendian(f->tep) != tep_is_local_bigendian(f->tep);
	for (i = 0; i < f->filters; i++)
		if (f->event_filters[i].event_id > max)
			max = f->event_filters[i].event_id;
	cf->nids = max + 1;
	if (cf->nids) {
		cf->slot = calloc(cf->nids, sizeof(*cf->slot));
		if (!cf->slot) {
			free(cf);
			errno = ENOMEM;
			return NULL;
		}
	}
	for (i = 0; i < f->filters; i++) {
		struct tep_filter_type *ft = &f->event_filters[i];

		if (ft->event_id < 0)
			continue;
		cf->slot[ft->event_id].ft = ft;
		cf->slot[ft->event_id].own = ft->event && tree_ok(ft->filter);
	}
	return cf;
}

void rpt_evfilter_free(struct rpt_evfilter *cf)
{
	if (!cf)
		return;
	free(cf->slot);
	free(cf);
}

/* tep_read_number() of the field, inside the record */
static unsigned long long read_field(struct eval *e, const struct tep_format_field *f)
{
	const unsigned char *p;
	unsigned long long v;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (f->offset < 0 ||
	    (unsigned int)f->offset + (unsigned int)f->size > (unsigned int)e->rec->size) {
		e->err = true;
		return 0;
	}
	p = (const unsigned char *)e->rec->data + f->offset;
	switch (f->size) {
	case 1:
		v = *p;
		break;
	case 2:
		memcpy(&v16, p, 2);
		v = e->cf->swap ? __builtin_bswap16(v16) : v16;
		break;
	case 4:
		memcpy(&v32, p, 4);
		v = e->cf->swap ? __builtin_bswap32(v32) : v32;
		break;
	default:
		memcpy(&v64, p, 8);
		v = e->cf->swap ? __builtin_bswap64(v64) : v64;
		break;
	}
	if (!(f->flags & TEP_FIELD_IS_SIGNED))
		return v;
	/*
	 * libtraceevent casts to char, short, int, long long (plain char as
	 * this platform has it)
	 */
	switch (f->size) {
	case 1:
		return (unsigned long long)(long long)(char)v;
	case 2:
		return (unsigned long long)(long long)(short)v;
	case 4:
		return (unsigned long long)(long long)(int)v;
	default:
		return v;
	}
}

static unsigned long long value(struct eval *e, const struct tep_filter_arg *a)
{
	unsigned long long l, r;

	if (a->type == TEP_FILTER_ARG_VALUE)
		return a->value.val;
	if (a->type == TEP_FILTER_ARG_FIELD)
		return a->field.field->event ? read_field(e, a->field.field) :
					       (unsigned long long)e->rec->cpu;
	/* an expression: both sides are read before the operation, as libtraceevent does */
	l = value(e, a->exp.left);
	r = value(e, a->exp.right);
	if (e->err)
		return 0;
	switch (a->exp.type) {
	case TEP_FILTER_EXP_ADD:
		return l + r;
	case TEP_FILTER_EXP_SUB:
		return l - r;
	case TEP_FILTER_EXP_MUL:
		return l * r;
	case TEP_FILTER_EXP_DIV:
	case TEP_FILTER_EXP_MOD:
		if (!r) {
			e->err = true;	/* libtraceevent dies of SIGFPE here */
			return 0;
		}
		return a->exp.type == TEP_FILTER_EXP_DIV ? l / r : l % r;
	case TEP_FILTER_EXP_RSHIFT:
		return l >> (r & 63);
	case TEP_FILTER_EXP_LSHIFT:
		return l << (r & 63);
	case TEP_FILTER_EXP_AND:
		return l & r;
	case TEP_FILTER_EXP_OR:
		return l | r;
	default:
		return l ^ r;
	}
}

static bool compare_num(struct eval *e, const struct tep_filter_arg *a)
{
	unsigned long long l = value(e, a->num.left), r = value(e, a->num.right);

	if (e->err)
		return false;
	switch (a->num.type) {
	case TEP_FILTER_CMP_EQ:
		return l == r;
	case TEP_FILTER_CMP_NE:
		return l != r;
	case TEP_FILTER_CMP_GT:
		return l > r;
	case TEP_FILTER_CMP_LT:
		return l < r;
	case TEP_FILTER_CMP_GE:
		return l >= r;
	default:
		return l <= r;
	}
}

/*
 * The string libtraceevent compares: a char array or __data_loc string in
 * the record, copied into the filter's buffer (field size + 1) when its
 * last byte is not NUL, as libtraceevent does; or the task's name for COMM.
 */
static const char *string_of(struct eval *e, const struct tep_filter_arg *a)
{
	const struct tep_format_field *f = a->str.field;
	const char *data = e->rec->data;
	unsigned int off, size, rsize = (unsigned int)e->rec->size;

	if (!f->event)
		return tep_data_comm_from_pid(e->cf->tep, tep_data_pid(e->cf->tep, e->rec));
	if (f->offset < 0 || (unsigned int)f->offset + (unsigned int)f->size > rsize)
		goto bad;
	off = (unsigned int)f->offset;
	size = (unsigned int)f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		memcpy(&loc, data + off, 4);
		if (e->cf->swap)
			loc = __builtin_bswap32(loc);
		size = loc >> 16;
		off = loc & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)f->offset + (unsigned int)f->size;
		if (!size || off + size > rsize)
			goto bad;
	}
	if (!data[off + size - 1])
		return data + off;
	/* libtraceevent copies the field's size (4 for a __data_loc) from there */
	if (off + (unsigned int)f->size > rsize)
		goto bad;
	memcpy(a->str.buffer, data + off, f->size);
	return a->str.buffer;
bad:
	e->err = true;
	return NULL;
}

static bool compare_str(struct eval *e, const struct tep_filter_arg *a)
{
	const char *s = string_of(e, a);

	if (!s)
		return false;
	switch (a->str.type) {
	case TEP_FILTER_CMP_MATCH:
		return !strcmp(s, a->str.val);
	case TEP_FILTER_CMP_NOT_MATCH:
		return strcmp(s, a->str.val) != 0;
	case TEP_FILTER_CMP_REGEX:
		return !regexec(&a->str.reg, s, 0, NULL, 0);
	default:
		return regexec(&a->str.reg, s, 0, NULL, 0) != 0;
	}
}

static bool test(struct eval *e, const struct tep_filter_arg *a)
{
	if (e->err)
		return false;
	switch (a->type) {
	case TEP_FILTER_ARG_BOOLEAN:
		return a->boolean.value;
	case TEP_FILTER_ARG_OP:
		if (a->op.type == TEP_FILTER_OP_AND)
			return test(e, a->op.left) && test(e, a->op.right);
		if (a->op.type == TEP_FILTER_OP_OR)
			return test(e, a->op.left) || test(e, a->op.right);
		return !test(e, a->op.right);
	case TEP_FILTER_ARG_NUM:
		return compare_num(e, a);
	case TEP_FILTER_ARG_STR:
		return compare_str(e, a);
	default:
		return value(e, a) != 0;
	}
}

bool rpt_evfilter_hit(struct rpt_evfilter *cf, struct tep_record *rec, int type)
{
	const struct slot *s;
	struct eval e = { cf, rec, false };
	enum tep_errno ret;
	bool hit;

	if (!cf->f->filters)
		return true;
	if (type >= 0 && type >= cf->nids)
		return false;
	s = type >= 0 ? &cf->slot[type] : NULL;
	if (s && !s->ft)
		return false;
	if (!s || !s->own) {
		ret = tep_filter_match(cf->f, rec);
		return ret == TEP_ERRNO__FILTER_MATCH || ret == TEP_ERRNO__NO_FILTER;
	}
	hit = test(&e, s->ft->filter);
	return hit && !e.err;
}

int rpt_evfilter_types(const struct rpt_evfilter *cf, int *own)
{
	int i, n = 0, k = 0;

	for (i = 0; i < cf->nids; i++) {
		n += cf->slot[i].ft != NULL;
		k += cf->slot[i].ft && cf->slot[i].own;
	}
	if (own)
		*own = k;
	return n;
}

int rpt_evfilter_parse_crashes(struct tep_handle *tep, const char *text)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct tep_event_filter *f;
		size_t k;
		int fd;

		/*
		 * The crash is expected: die quietly (no core file, no handler,
		 * and not glibc's "double free detected" on our stderr).
		 */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
			signal(sigs[k], SIG_DFL);
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		tep_set_loglevel(TEP_LOG_NONE);
		f = tep_filter_alloc(tep);
		if (f) {
			tep_filter_add_filter_str(f, text);
			tep_filter_free(f);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	/* a sanitizer runtime may catch the signal and exit non-zero instead */
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int rpt_evfilter_add_str(struct tep_event_filter *f, const char *text)
{
	int err;

#if defined(__SANITIZE_ADDRESS__)
	__lsan_disable();
#endif
	err = tep_filter_add_filter_str(f, text);
#if defined(__SANITIZE_ADDRESS__)
	__lsan_enable();
#endif
	return err;
}
