// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap's own text options decoded once: FMT_OPT_FT_META and
 * FMT_OPT_FT_RECSTATS, "key=value\n" lines written by the recorder with the
 * names of ftmeta.h.  The payload comes from the file, so nothing in it is
 * trusted: the text ends at the first NUL or at the payload's end, whichever
 * comes first, lines may be of any length, lack '=' or repeat a key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ftmeta.h"
#include "internal.h"

/*
 * One copy of the text split two ways: the first half keeps each line whole
 * (fmt_kv.line), the second has the key and the value cut apart.
 */
static int kvlist_add(struct fmt_kvlist *l, const char *data, size_t size)
{
	size_t len = data ? strnlen(data, size) : 0, i;
	char **nt, *t, *b;

	if (len > (SIZE_MAX - 2) / 2)
		return -ENOMEM;
	nt = realloc(l->texts, (l->ntexts + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	l->texts = nt;
	t = malloc(2 * len + 2);
	if (!t)
		return -ENOMEM;
	l->texts[l->ntexts++] = t;
	b = t + len + 1;
	if (len) {
		memcpy(t, data, len);
		memcpy(b, data, len);
	}
	t[len] = b[len] = '\0';
	for (i = 0; i < len;) {
		char *nl = memchr(t + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - t) : len;
		char *eq = memchr(b + i, '=', e - i);
		struct fmt_kv *kv;

		if (e == i) {	/* an empty line says nothing */
			i = e + 1;
			continue;
		}
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 32;
			struct fmt_kv *nk = realloc(l->kv, cap * sizeof(*nk));

			if (!nk)
				return -ENOMEM;
			l->kv = nk;
			l->cap = cap;
		}
		t[e] = b[e] = '\0';
		kv = &l->kv[l->n++];
		kv->line = t + i;
		kv->key = b + i;
		kv->val = NULL;
		if (eq) {
			*eq = '\0';
			if (eq + 1 < b + e && b[e - 1] == '\r')	/* a CRLF line */
				b[e - 1] = '\0';
			kv->val = eq + 1;
		}
		i = e + 1;
	}
	return 0;
}

static void kvlist_release(struct fmt_kvlist *l)
{
	for (size_t i = 0; i < l->ntexts; i++)
		free(l->texts[i]);
	free(l->texts);
	free(l->kv);
	memset(l, 0, sizeof(*l));
}

const char *fmt_kv_get(const struct fmt_kvlist *l, const char *key)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (l->kv[i].val && !strcmp(l->kv[i].key, key))
			return l->kv[i].val;
	return NULL;
}

/* A whole decimal number that fits 64 bits: true and *v, else false. */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!s || !n)
		return false;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

static void set_num(struct fmt_meta_num *n, const char *val)
{
	n->has = val && parse_u64(val, strlen(val), &n->v);
	if (!n->has)
		n->v = 0;
}

void fmt_meta_init(struct fmt_meta *m)
{
	memset(m, 0, sizeof(*m));
}

int fmt_meta_add(struct fmt_meta *m, const void *data, size_t size, bool recstats)
{
	if (recstats) {
		m->rs.present = true;
		return kvlist_add(&m->rs.all, data, size);
	}
	m->present = true;
	return kvlist_add(&m->all, data, size);
}

/* "FROM,TO,SYSTEM:EVENT,WHY": an event name of 1..255 bytes without ',', WHY cut at 127 */
static int add_shed(struct fmt_meta *m, const char *v)
{
	const char *c1 = strchr(v, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	const char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
	struct fmt_meta_shed sh, *ns;
	size_t wl;

	if (!c3 || !parse_u64(v, (size_t)(c1 - v), &sh.from_ts) ||
	    !parse_u64(c1 + 1, (size_t)(c2 - c1 - 1), &sh.to_ts) ||
	    c3 == c2 + 1 || c3 - c2 - 1 > 255 || !c3[1])
		return 0;
	wl = strlen(c3 + 1);
	ns = realloc(m->shed, (m->nshed + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	m->shed = ns;
	sh.event = strndup(c2 + 1, (size_t)(c3 - c2 - 1));
	sh.why = strndup(c3 + 1, wl > 127 ? 127 : wl);
	if (!sh.event || !sh.why) {
		free((char *)sh.event);
		free((char *)sh.why);
		return -ENOMEM;
	}
	m->shed[m->nshed++] = sh;
	return 0;
}

/* One "BUFFER/CPU:TS[:whole]" item of n bytes; a malformed one is skipped. */
static int add_cpu_start(struct fmt_meta *m, const char *s, size_t n)
{
	const char *slash = NULL, *c1, *c2, *end = s + n;
	struct fmt_meta_cpustart cs = { 0 }, *nc;
	uint64_t cpu;

	for (const char *p = s; p < end; p++)
		if (*p == '/')
			slash = p;
	if (!slash)
		return 0;
	c1 = memchr(slash, ':', (size_t)(end - slash));
	if (!c1 || !parse_u64(slash + 1, (size_t)(c1 - slash - 1), &cpu) || cpu > 65535)
		return 0;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!parse_u64(c1 + 1, (size_t)((c2 ? c2 : end) - c1 - 1), &cs.ts))
		return 0;
	if (c2 && ((size_t)(end - c2) != 6 || memcmp(c2, ":whole", 6)))
		return 0;
	cs.whole = c2 != NULL;
	cs.cpu = (unsigned)cpu;
	nc = realloc(m->cpu_start, (m->ncpu_start + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	m->cpu_start = nc;
	cs.buffer = strndup(s, (size_t)(slash - s));
	if (!cs.buffer)
		return -ENOMEM;
	m->cpu_start[m->ncpu_start++] = cs;
	return 0;
}

static int split_cpu_start(struct fmt_meta *m)
{
	const char *p = m->cpu_data_start;
	int err = 0;

	while (p && *p && !err) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);

		err = add_cpu_start(m, p, n);
		p = c ? c + 1 : NULL;
	}
	return err;
}

static int split_progs(struct fmt_meta *m)
{
	char *save = NULL, *tok;

	if (!m->bpf_progs)
		return 0;
	m->own = strdup(m->bpf_progs);
	if (!m->own)
		return -ENOMEM;
	for (tok = strtok_r(m->own, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const char **nn = realloc(m->bpf_prog_names, (m->nbpf_progs + 1) * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		m->bpf_prog_names = nn;
		nn[m->nbpf_progs++] = tok;
	}
	return 0;
}

#define STR(k, f) { k, offsetof(struct fmt_meta, f) }
static const struct { const char *key; size_t off; } meta_strs[] = {
	STR(FMT_META_RECORDER, recorder), STR(FMT_META_COMMAND_LINE, command_line),
	STR(FMT_META_HOSTNAME, hostname), STR(FMT_META_START_TIME, start_time),
	STR(FMT_META_INSTANCE, instance), STR(FMT_META_CLOCK, clock),
	STR(FMT_META_EVENTS, events), STR(FMT_META_PIDS, pids),
	STR(FMT_META_RECORDING_MODE, recording_mode), STR(FMT_META_TRACE_ID, trace_id),
	STR(FMT_META_TRIGGER, trigger), STR(FMT_META_CPU_DATA_START, cpu_data_start),
	STR(FMT_META_BPF_PROGS, bpf_progs),
};
#undef STR

#define NUM(k, f) { k, offsetof(struct fmt_meta, f) }
static const struct { const char *key; size_t off; } meta_nums[] = {
	NUM(FMT_META_START_EPOCH_NS, start_epoch_ns), NUM(FMT_META_BUFFER_KB, buffer_kb),
	NUM(FMT_META_TRIGGER_TS, trigger_ts), NUM(FMT_META_WINDOW_START_NS, window_start_ns),
	NUM(FMT_META_WINDOW_END_NS, window_end_ns), NUM(FMT_META_FLIGHT_DUMP, flight_dump),
	NUM(FMT_META_ROTATION_SEGMENT, rotation_segment), NUM(FMT_META_RECOVERED, recovered),
	NUM(FMT_META_RECOVERED_TORN_BYTES, recovered_torn_bytes),
};
#undef NUM

#define RS(k, f) { k, offsetof(struct fmt_recstats, f) }
static const struct { const char *key; size_t off; } rs_nums[] = {
	RS(FMT_RS_CPU_USER_US, cpu_user_us), RS(FMT_RS_CPU_SYS_US, cpu_sys_us),
	RS(FMT_RS_MAX_RSS_KB, max_rss_kb), RS(FMT_RS_CAPTURE_USER_US, capture_user_us),
	RS(FMT_RS_CAPTURE_SYS_US, capture_sys_us), RS(FMT_RS_DURATION_NS, duration_ns),
	RS(FMT_RS_BYTES_READ, bytes_read), RS(FMT_RS_BYTES_WRITTEN, bytes_written),
	RS(FMT_RS_PAGES, pages), RS(FMT_RS_WAKEUPS, wakeups),
	RS(FMT_RS_MAX_BUFFER_FILL_PCT, max_buffer_fill_pct), RS(FMT_RS_EVENTS, events),
	RS(FMT_RS_OVERRUN, overrun), RS(FMT_RS_DROPPED, dropped),
	RS(FMT_RS_BPF_RECORDS, bpf_records), RS(FMT_RS_BPF_DROPS, bpf_drops),
	RS(FMT_RS_BPF_BYTES, bpf_bytes), RS(FMT_RS_BPF_PAGES, bpf_pages),
};
#undef RS

int fmt_meta_finish(struct fmt_meta *m)
{
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(meta_strs) / sizeof(*meta_strs); i++) {
		const char **f = (const char **)((char *)m + meta_strs[i].off);

		*f = fmt_kv_get(&m->all, meta_strs[i].key);
	}
	for (i = 0; i < sizeof(meta_nums) / sizeof(*meta_nums); i++)
		set_num((struct fmt_meta_num *)((char *)m + meta_nums[i].off),
			fmt_kv_get(&m->all, meta_nums[i].key));
	for (i = 0; i < sizeof(rs_nums) / sizeof(*rs_nums); i++)
		set_num((struct fmt_meta_num *)((char *)&m->rs + rs_nums[i].off),
			fmt_kv_get(&m->rs.all, rs_nums[i].key));
	for (i = 0; i < m->all.n && !err; i++)
		if (m->all.kv[i].val && !strcmp(m->all.kv[i].key, FMT_META_SHED))
			err = add_shed(m, m->all.kv[i].val);
	if (!err)
		err = split_cpu_start(m);
	if (!err)
		err = split_progs(m);
	return err;
}

void fmt_meta_release(struct fmt_meta *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nshed; i++) {
		free((char *)m->shed[i].event);
		free((char *)m->shed[i].why);
	}
	free(m->shed);
	for (i = 0; i < m->ncpu_start; i++)
		free((char *)m->cpu_start[i].buffer);
	free(m->cpu_start);
	free(m->bpf_prog_names);
	free(m->own);
	kvlist_release(&m->all);
	kvlist_release(&m->rs.all);
	memset(m, 0, sizeof(*m));
}

const struct fmt_meta *fmt_reader_meta(struct fmt_reader *r)
{
	const struct fmt_option *o;
	struct fmt_meta *m;
	int n, err = 0;

	if (r->meta)
		return r->meta;
	m = malloc(sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	fmt_meta_init(m);
	for (n = 0; !err && (o = fmt_reader_option(r, FMT_OPT_FT_META, n)); n++)
		err = fmt_meta_add(m, o->data, o->size, false);
	for (n = 0; !err && (o = fmt_reader_option(r, FMT_OPT_FT_RECSTATS, n)); n++)
		err = fmt_meta_add(m, o->data, o->size, true);
	if (!err)
		err = fmt_meta_finish(m);
	if (err) {
		fmt_meta_release(m);
		free(m);
		errno = -err;
		return NULL;
	}
	r->meta = m;
	return m;
}

void fmt_meta_free_reader(struct fmt_reader *r)
{
	fmt_meta_release(r->meta);
	free(r->meta);
	r->meta = NULL;
}
