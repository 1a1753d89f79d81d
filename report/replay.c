// SPDX-License-Identifier: GPL-2.0-only
/*
 * One replay pass over a trace.dat feeding several analyzers, plus the small
 * helpers they share (options, task names, loss markers, histograms, maps).
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "json.h"
#include "replay.h"
#include "share.h"

#define FILTERS_HELP \
	"  --from T, --to T   only events from / up to time T, as the analyzers print\n" \
	"                     it: seconds (12.5), or clock ticks on a raw counter\n" \
	"                     clock such as x86-tsc (as `report` prints them)\n" \
	"  --cpu LIST         only these CPUs, e.g. 0,2-3\n" \
	"  --pid N[,N...]     only these pids (thread or process id); repeatable\n" \
	"  --comm GLOB        only tasks whose name matches GLOB; repeatable\n" \
	"  --threads N        threads that read the file (default: the cores available;\n" \
	"                     1 reads in one thread); the output is the same\n"

const char rpt_opts_help[] =
	"  --json             machine-readable output (fields: see the man page)\n"
	FILTERS_HELP;
const char rpt_opts_help_filters[] = FILTERS_HELP;

/* ---- options ------------------------------------------------------------ */

/* The file being analyzed counts raw clock ticks, not ns (set per file). */
static bool ts_ticks;
/*
 * The first damaged stream of the last replay (the error is printed once,
 * after the output, by rpt_replay_status()), and the errno of the first
 * failed write to an analyzer's output, for the one "cannot write" line.
 */
static char first_damage[512];
static int out_errno;

int rpt_parse_pids(const char *arg, int **pids, int *npids)
{
	const char *q = arg;

	if (!q || !*q)
		return ft_usage_error("--pid needs a process id");
	while (*q) {
		char *end;
		long pid;
		int *np;

		errno = 0;
		pid = *q >= '0' && *q <= '9' ? strtol(q, &end, 10) : -1;
		if (pid < 0 || errno || pid > INT32_MAX || (*end && *end != ','))
			return ft_usage_error("--pid needs process ids such as 42 or 42,43, not '%s'", arg);
		np = realloc(*pids, (size_t)(*npids + 1) * sizeof(int));
		if (!np)
			return ft_error("out of memory");
		*pids = np;
		(*pids)[(*npids)++] = (int)pid;
		q = *end ? end + 1 : end;
	}
	return 0;
}

int rpt_filter_opt(struct rpt_opts *o, enum rpt_filter_kind k, const char *v)
{
	static const char *const names[] = { "--from", "--to", "--cpu", "--pid", "--comm" };
	uint64_t mask[4], t;
	char **nc, *dup;
	int c;

	switch (k) {
	case RPT_F_FROM:
	case RPT_F_TO:
		/*
		 * Checked here (the usage error comes before the open), read once
		 * the file is open: rpt_opts_resolve() knows whether the clock
		 * counts ns (then seconds) or raw ticks (then an integer).
		 */
		if (!v || (ft_parse_ts(v, &t) && ft_parse_decimal(v, &t)))
			return ft_usage_error("%s needs a time as report prints it, e.g. 12.5 or "
					      "1464.221523 (seconds), or clock ticks, not '%s'",
					      names[k], v ? v : "");
		if (k == RPT_F_FROM) {
			o->has_t0 = true;
			o->t0_ns = t;
			o->t0_arg = v;
		} else {
			o->has_t1 = true;
			o->t1_ns = t;
			o->t1_arg = v;
		}
		return 0;
	case RPT_F_CPU:
		/* repeated, the lists add up, as trace-cmd's --cpu does */
		if (!v || ft_parse_cpulist(v, mask))
			return ft_usage_error("--cpu needs a CPU list such as 0,2-3 (CPUs 0-255), not '%s'",
					      v ? v : "");
		for (c = 0; c < 4; c++)
			o->cpu_mask[c] |= mask[c];
		o->has_cpus = true;
		return 0;
	case RPT_F_PID:
		return rpt_parse_pids(v, &o->pids, &o->npids) ? EXIT_USAGE : 0;
	case RPT_F_COMM:
		if (!v || !*v)
			return ft_usage_error("--comm needs a task name or glob");
		dup = strdup(v);
		nc = dup ? realloc(o->comms, (o->ncomms + 1) * sizeof(*nc)) : NULL;
		if (!nc) {
			free(dup);
			return ft_error("out of memory");
		}
		o->comms = nc;
		o->comms[o->ncomms++] = dup;
		return 0;
	}
	return EXIT_USAGE;
}

enum { RPT_O_JSON = 900, RPT_O_THREADS, RPT_O_FILTER };	/* + enum rpt_filter_kind */

const struct ft_opt rpt_filter_opts[] = {
	{ "from", 0, true, RPT_O_FILTER + RPT_F_FROM }, { "to", 0, true, RPT_O_FILTER + RPT_F_TO },
	{ "cpu", 0, true, RPT_O_FILTER + RPT_F_CPU }, { "pid", 0, true, RPT_O_FILTER + RPT_F_PID },
	{ "comm", 0, true, RPT_O_FILTER + RPT_F_COMM }, { "threads", 0, true, RPT_O_THREADS },
	{ 0 },
};

const struct ft_opt rpt_json_opts[] = { { "json", 0, false, RPT_O_JSON }, { 0 } };

int rpt_opts_option(struct rpt_opts *o, int id, const char *v)
{
	if (id == RPT_O_JSON) {
		o->json = true;
		return 0;
	}
	if (id == RPT_O_THREADS)
		return rpt_threads_arg(v, &o->threads) ? EXIT_USAGE : 0;
	if (id >= RPT_O_FILTER + RPT_F_FROM && id <= RPT_O_FILTER + RPT_F_COMM)
		return rpt_filter_opt(o, (enum rpt_filter_kind)(id - RPT_O_FILTER), v);
	return ft_usage_error("unknown option");
}

int rpt_threads_default(void)
{
	cpu_set_t set;
	int n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n < 1)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > RPT_MAX_THREADS ? RPT_MAX_THREADS : n;
}

int rpt_threads_arg(const char *v, int *out)
{
	uint64_t n;

	if (!v || ft_parse_u64(v, &n) || n < 1 || n > RPT_MAX_THREADS) {
		ft_usage_error("--threads needs a thread count from 1 to %d", RPT_MAX_THREADS);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* --from/--to on a raw counter clock: an integer tick count */
int rpt_time_arg(const char *name, const char *v, bool in_usecs, const char *clock, uint64_t *out)
{
	if (in_usecs)
		return ft_parse_ts(v, out) ?
			ft_usage_error("%s %s: give a time in seconds as the analyzers print it, e.g. 12.5",
				       name, v) : 0;
	return ft_parse_decimal(v, out) ?
		ft_usage_error("%s %s: this file's clock (%s) is a raw counter, give clock ticks "
			       "as the analyzers and 'report' print them (an integer)", name, v,
			       clock && *clock ? clock : "raw") : 0;
}

const char *rpt_fmt_cpus(char *buf, size_t len, const uint64_t mask[4])
{
	size_t n = 0;
	int c = 0, e;

	buf[0] = 0;
	while (c < 256) {
		if (!(mask[c / 64] & (1ULL << (c % 64)))) {
			c++;
			continue;
		}
		for (e = c; e + 1 < 256 && (mask[(e + 1) / 64] & (1ULL << ((e + 1) % 64))); e++)
			;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, e);
		c = e + 1;
	}
	return buf;
}

void rpt_warn_cpus(const struct fmt_info *info, const uint64_t cpu_mask[4], const char *path)
{
	uint64_t have[4] = { 0 }, missing[4];
	bool any_missing = false;
	int b, k, c;

	for (b = 0; b < info->nbuffers; b++)
		for (k = 0; k < info->buffers[b].ncpus; k++) {
			c = info->buffers[b].cpus[k].cpu;
			if (c >= 0 && c < 256 && info->buffers[b].cpus[k].size)
				have[c / 64] |= 1ULL << (c % 64);
		}
	for (k = 0; k < 4; k++) {
		missing[k] = cpu_mask[k] & ~have[k];
		any_missing |= missing[k] != 0;
	}
	if (any_missing) {
		char m[256], h[256];
		bool beyond = info->cpus > 0;	/* every missing CPU past the recorded ones */

		for (c = 0; c < 256 && beyond; c++)
			if ((missing[c / 64] & (1ULL << (c % 64))) && c < info->cpus)
				beyond = false;
		rpt_fmt_cpus(m, sizeof(m), missing);
		rpt_fmt_cpus(h, sizeof(h), have);
		if (beyond && info->cpus == 1)
			ft_warn("--cpu %s: '%s' was recorded on CPU 0 only", m, path);
		else if (beyond)
			ft_warn("--cpu %s: '%s' was recorded on CPUs 0-%d (events on %s)",
				m, path, info->cpus - 1, *h ? h : "none");
		else
			ft_warn("--cpu %s: '%s' has no events on %s (events on CPUs %s)",
				m, path, strchr(m, ',') || strchr(m, '-') ? "these CPUs" : "that CPU",
				*h ? h : "none");
	}
}

int rpt_opts_resolve(struct rpt_opts *o, struct fmt_reader *r)
{
	const struct fmt_info *info = fmt_reader_info(r);

	ts_ticks = !info->clock_in_usecs;
	if (o->t0_arg && rpt_time_arg("--from", o->t0_arg, !ts_ticks, info->clock, &o->t0_ns))
		return EXIT_USAGE;
	if (o->t1_arg && rpt_time_arg("--to", o->t1_arg, !ts_ticks, info->clock, &o->t1_ns))
		return EXIT_USAGE;
	if (o->has_t0 && o->has_t1 && o->t1_ns < o->t0_ns)
		return ft_usage_error("--to is before --from");
	if (o->has_cpus)
		rpt_warn_cpus(info, o->cpu_mask, o->path);
	return 0;
}

void rpt_opts_release(struct rpt_opts *o)
{
	int k;

	free(o->pids);
	for (k = 0; k < o->ncomms; k++)
		free(o->comms[k]);
	free(o->comms);
	o->pids = NULL;
	o->comms = NULL;
	o->npids = o->ncomms = 0;
}

bool rpt_glob(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/* ---- maps ---------------------------------------------------------------- */

#define MAP_CHUNK_VALS 256

void rpt_map_init(struct rpt_map *m, size_t val_size)
{
	memset(m, 0, sizeof(*m));
	/* keep values 8-byte aligned inside the chunks */
	m->val_size = (val_size + 7) & ~(size_t)7;
	if (!m->val_size)
		m->val_size = 8;
}

static inline size_t map_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static int map_grow(struct rpt_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, k;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	void **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (k = 0; k < m->cap; k++) {
		size_t s;

		if (!m->vals[k])
			continue;
		s = map_slot(m->keys[k], ncap);
		while (nv[s])
			s = (s + 1) & (ncap - 1);
		nk[s] = m->keys[k];
		nv[s] = m->vals[k];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

void *rpt_map_find(const struct rpt_map *m, uint64_t key)
{
	size_t s;

	if (!m->cap)
		return NULL;
	s = map_slot(key, m->cap);
	while (m->vals[s]) {
		if (m->keys[s] == key)
			return m->vals[s];
		s = (s + 1) & (m->cap - 1);
	}
	return NULL;
}

void *rpt_map_get_slow(struct rpt_map *m, uint64_t key, bool *created)
{
	size_t s;
	void *v;

	if (created)
		*created = false;
	if (m->cap) {
		s = map_slot(key, m->cap);
		while (m->vals[s]) {
			if (m->keys[s] == key)
				return m->vals[s];
			s = (s + 1) & (m->cap - 1);
		}
	}
	if ((m->count + 1) * 4 > m->cap * 3 && map_grow(m))
		return NULL;
	if (!m->nchunks || m->chunk_used == MAP_CHUNK_VALS) {
		char **nc = realloc(m->chunks, (m->nchunks + 1) * sizeof(*nc));

		if (!nc)
			return NULL;
		m->chunks = nc;
		nc[m->nchunks] = calloc(MAP_CHUNK_VALS, m->val_size);
		if (!nc[m->nchunks])
			return NULL;
		m->nchunks++;
		m->chunk_used = 0;
	}
	v = m->chunks[m->nchunks - 1] + m->chunk_used++ * m->val_size;
	s = map_slot(key, m->cap);
	while (m->vals[s])
		s = (s + 1) & (m->cap - 1);
	m->keys[s] = key;
	m->vals[s] = v;
	m->count++;
	if (created)
		*created = true;
	return v;
}

void *rpt_map_next(const struct rpt_map *m, size_t *pos, uint64_t *key)
{
	while (*pos < m->cap) {
		size_t s = (*pos)++;

		if (m->vals[s]) {
			if (key)
				*key = m->keys[s];
			return m->vals[s];
		}
	}
	return NULL;
}

void rpt_map_release(struct rpt_map *m)
{
	size_t k;

	for (k = 0; k < m->nchunks; k++)
		free(m->chunks[k]);
	free(m->chunks);
	free(m->keys);
	free(m->vals);
	rpt_map_init(m, m->val_size);
}

/* ---- per-type tables ----------------------------------------------------- */

void *rpt_types_grow(struct rpt_types *t, int id)
{
	if (id < 0 || id > 0xffff)
		return NULL;
	if (id >= t->n) {
		int nn = id < 64 ? 64 : id + 1 + id / 2;
		char *ns;

		if (nn > 0x10000)
			nn = 0x10000;
		ns = realloc(t->slots, (size_t)nn * t->elem_size);
		if (!ns)
			return NULL;
		memset(ns + (size_t)t->n * t->elem_size, 0, (size_t)(nn - t->n) * t->elem_size);
		t->slots = ns;
		t->n = nn;
	}
	return t->slots + (size_t)id * t->elem_size;
}

void rpt_types_release(struct rpt_types *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n = 0;
}

/* ---- histogram ----------------------------------------------------------- */

unsigned rpt_hist_bucket(uint64_t v)
{
	unsigned e, sub;

	if (v < 64)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);	/* >= 6 */
	sub = (unsigned)(v >> (e - RPT_HIST_SUB_BITS)) & ((1u << RPT_HIST_SUB_BITS) - 1);
	return 64 + (e - 6) * (1u << RPT_HIST_SUB_BITS) + sub;
}

uint64_t rpt_hist_bucket_low(unsigned i)
{
	unsigned e, sub;

	if (i < 64)
		return i;
	i -= 64;
	e = i / (1u << RPT_HIST_SUB_BITS) + 6;
	sub = i % (1u << RPT_HIST_SUB_BITS);
	return (1ULL << e) | ((uint64_t)sub << (e - RPT_HIST_SUB_BITS));
}

int rpt_hist_add(struct rpt_hist *h, uint64_t v)
{
	if (!h->buckets) {
		h->buckets = calloc(RPT_HIST_BUCKETS, sizeof(*h->buckets));
		if (!h->buckets)
			return -ENOMEM;
	}
	h->buckets[rpt_hist_bucket(v)]++;
	if (h->count < RPT_HIST_EXACT)
		h->exact[h->count] = v;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	return 0;
}

uint64_t rpt_hist_quantile(const struct rpt_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (!h->count || !h->buckets)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest-rank: the smallest value with at least q * count values <= it */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	if (h->count <= RPT_HIST_EXACT) {
		uint64_t v[RPT_HIST_EXACT];
		unsigned a, b;

		memcpy(v, h->exact, (size_t)h->count * sizeof(*v));
		for (a = 1; a < h->count; a++)	/* insertion sort: at most 32 values */
			for (b = a; b > 0 && v[b - 1] > v[b]; b--) {
				uint64_t x = v[b];

				v[b] = v[b - 1];
				v[b - 1] = x;
			}
		return v[rank - 1];
	}
	for (i = 0; i < RPT_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i >= RPT_HIST_BUCKETS)
		return h->max;
	lo = rpt_hist_bucket_low(i);
	hi = i + 1 < RPT_HIST_BUCKETS ? rpt_hist_bucket_low(i + 1) - 1 : UINT64_MAX;
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

void rpt_hist_release(struct rpt_hist *h)
{
	free(h->buckets);
	memset(h, 0, sizeof(*h));
}

/* ---- formatting ---------------------------------------------------------- */

bool rpt_raw_clock(void)
{
	return ts_ticks;
}

const char *rpt_fmt_ts(char *buf, size_t len, uint64_t ns)
{
	if (ts_ticks) {
		snprintf(buf, len, "%" PRIu64, ns);
		return buf;
	}
	/* rounded to the microsecond, as report (and trace-cmd) print times */
	ns = ns > UINT64_MAX - 500 ? ns : ns + 500;
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, (uint64_t)(ns / 1000000000u), (uint64_t)(ns % 1000000000u / 1000));
	return buf;
}

/* "1.500 us", or compact (at most 8 characters for 3-digit values): "1.5us" */
static const char *fmt_dur(char *buf, size_t len, uint64_t ns, bool compact)
{
	/* one style everywhere ("4.02 s" next to "4.175 s"), a space before the unit */
	if (!compact) {
		if (ns < 1000)
			snprintf(buf, len, "%" PRIu64 " ns", ns);
		else if (ns < 1000000)
			snprintf(buf, len, "%.3f us", ns / 1e3);
		else if (ns < 1000000000ULL)
			snprintf(buf, len, "%.3f ms", ns / 1e6);
		else
			snprintf(buf, len, "%.3f s", ns / 1e9);
		return buf;
	}
	/* at most 8 characters; the unit switches where the rounded value would reach 1000 */
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 999950)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 999950000)
		snprintf(buf, len, "%.*f ms", ns < 99995000 ? 2 : 1, ns / 1e6);
	else if (ns < 999950000000ULL)
		snprintf(buf, len, "%.*f s", ns < 99995000000ULL ? 2 : 1, ns / 1e9);
	else if (ns < 999999500000000ULL)
		snprintf(buf, len, "%.0f s", ns / 1e9);
	else
		snprintf(buf, len, "%.0f h", ns / 3.6e12);
	return buf;
}

const char *rpt_fmt_dur(char *buf, size_t len, uint64_t ns)
{
	return fmt_dur(buf, len, ns, false);
}

const char *rpt_fmt_dur_short(char *buf, size_t len, uint64_t ns)
{
	return fmt_dur(buf, len, ns, true);
}

const char *rpt_fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b < 1024)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else if (b < (1ULL << 20))
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	else if (b < (1ULL << 30))
		snprintf(buf, len, "%.1f MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.2f GiB", b / 1073741824.0);
	return buf;
}

/* ---- tasks --------------------------------------------------------------- */

struct task_info {
	int tgid;		/* -1 unknown */
	char comm[16];
	bool has_comm;
};

struct rpt_tasks {
	struct rpt_map map;
};

/* Per event id: its kind and fields (report/kinds.h), resolved the first time it is seen. */
struct replay_type {
	bool done;
	struct rpt_kind_info ki;
};

static struct task_info *task_get(struct rpt_tasks *t, int pid)
{
	bool created;
	struct task_info *ti = rpt_map_get(&t->map, (uint64_t)(uint32_t)pid, &created);

	if (ti && created)
		ti->tgid = -1;
	return ti;
}

static void task_set_comm(struct rpt_tasks *t, int pid, const void *data, int size,
			  const struct fmt_field *f)
{
	int len;
	const char *s = fmt_field_ptr(f, data, size, &len);
	struct task_info *ti;

	if (!s || pid < 0)
		return;
	ti = task_get(t, pid);
	if (!ti)
		return;
	if (len > 15)
		len = 15;
	memcpy(ti->comm, s, (size_t)len);
	ti->comm[len] = 0;
	ti->comm[strnlen(ti->comm, 15)] = 0;
	ti->has_comm = ti->comm[0] != 0;
}

const char *rpt_comm(const struct rpt_ctx *ctx, int pid)
{
	struct task_info *ti = ctx->tasks ? rpt_map_find(&ctx->tasks->map, (uint64_t)(uint32_t)pid) : NULL;

	if (pid == 0)
		return "<idle>";
	if (ti && ti->has_comm)
		return ti->comm;
	if (ctx->tep)
		return tep_data_comm_from_pid(ctx->tep, pid);
	return "<...>";
}

int rpt_tgid(const struct rpt_ctx *ctx, int pid)
{
	struct task_info *ti = ctx->tasks ? rpt_map_find(&ctx->tasks->map, (uint64_t)(uint32_t)pid) : NULL;

	return ti ? ti->tgid : -1;
}

/* Task names and tgids learned from the events of the kinds that carry them. */
static void replay_track(struct rpt_tasks *t, const struct rpt_kind_info *ki,
			 const struct fmt_event *ev)
{
	const void *d = ev->rec.data;
	int sz = ev->rec.size;
	int pid;

	switch (ki->kind) {
	case RPT_K_SCHED_SWITCH:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_SW_PREV_PID], d, sz), d, sz,
			      &ki->f[RPT_F_SW_PREV_COMM]);
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_SW_NEXT_PID], d, sz), d, sz,
			      &ki->f[RPT_F_SW_NEXT_COMM]);
		break;
	case RPT_K_PROCESS_FORK:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_FORK_CHILD], d, sz), d, sz,
			      &ki->f[RPT_F_FORK_COMM]);
		break;
	case RPT_K_SCHED_WAKEUP:
	case RPT_K_SCHED_WAKING:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_WK_PID], d, sz), d, sz,
			      &ki->f[RPT_F_WK_COMM]);
		break;
	case RPT_K_TASK_RENAME:
	case RPT_K_TASK_NEWTASK:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_TASK_PID], d, sz), d, sz,
			      &ki->f[RPT_F_TASK_COMM]);
		break;
	default:
		/* flytrap's BPF records name their own task */
		if (ki->comm.offset >= 0 && ki->common_pid.offset >= 0)
			task_set_comm(t, (int)fmt_field_u64(&ki->common_pid, d, sz), d, sz,
				      &ki->comm);
		break;
	}
	if (ki->tgid.offset >= 0 && ki->common_pid.offset >= 0) {
		struct task_info *ti;

		pid = (int)fmt_field_u64(&ki->common_pid, d, sz);
		ti = pid > 0 ? task_get(t, pid) : NULL;
		if (ti)
			ti->tgid = (int)fmt_field_u64(&ki->tgid, d, sz);
	}
}

/*
 * Before the analyzers see ev: its kind (resolved once per id), the task
 * names it carries, and its typed record when a running analyzer reads
 * that kind (want: the union of their .kinds).
 */
static void replay_prepare(struct rpt_ctx *ctx, struct rpt_types *types, struct rpt_tasks *tasks,
			   const struct fmt_event *ev, uint64_t want, struct rpt_rec *rec)
{
	static const struct rpt_kind_info none = {
		.kind = RPT_K_OTHER,
		.common_pid.offset = -1, .tgid.offset = -1, .comm.offset = -1,
		.uregs.offset = -1, .ucopy.offset = -1,
	};
	struct replay_type *rt = rpt_types_get(types, ev->type);

	ctx->rec = NULL;
	if (!rt) {
		ctx->ki = &none;
		return;
	}
	if (!rt->done) {
		rpt_kind_resolve(ev->event, &rt->ki);
		rt->done = true;
	}
	ctx->ki = &rt->ki;
	replay_track(tasks, &rt->ki, ev);
	if (want & RPT_KIND_BIT(rt->ki.kind)) {
		rpt_rec_decode(&rt->ki, ev->rec.data, ev->rec.size, rec);
		ctx->rec = rec;
	}
}

/* ---- filtering ------------------------------------------------------------ */

/*
 * common_pid: an int at offset 4 in every event format since 2.6.32 (the
 * common fields are fixed by the kernel's trace_entry), so the filter needs
 * no per-type lookup.
 */
static int event_pid(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	uint32_t pid;

	if (ev->rec.size < 8)
		return -1;
	memcpy(&pid, (const char *)ev->rec.data + 4, 4);
	if (ctx->info && ctx->info->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		pid = __builtin_bswap32(pid);
	return (int)pid;
}

int rpt_event_pid(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	return event_pid(ctx, ev);
}

bool rpt_event_selected(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	const struct rpt_opts *o = ctx->opts;

	if (o->has_t0 && ev->rec.ts < o->t0_ns)
		return false;
	if (o->has_t1 && ev->rec.ts > o->t1_ns)
		return false;
	if (o->has_cpus && !rpt_cpu_selected(o, ev->rec.cpu))
		return false;
	if ((o->npids || o->ncomms) && !rpt_task_selected(ctx, event_pid(ctx, ev)))
		return false;
	return true;
}

bool rpt_task_selected(const struct rpt_ctx *ctx, int pid)
{
	const struct rpt_opts *o = ctx->opts;
	int k;

	if (o->npids) {
		int tgid = rpt_tgid(ctx, pid);

		for (k = 0; k < o->npids; k++)
			if (o->pids[k] == pid || (tgid > 0 && o->pids[k] == tgid))
				break;
		if (k == o->npids)
			return false;
	}
	if (o->ncomms) {
		const char *c = rpt_comm(ctx, pid);

		for (k = 0; k < o->ncomms; k++)
			if (rpt_glob(o->comms[k], c))
				break;
		if (k == o->ncomms)
			return false;
	}
	return true;
}

/* ---- loss notes ----------------------------------------------------------- */

bool rpt_cpu_selected(const struct rpt_opts *o, int cpu)
{
	if (!o->has_cpus)
		return true;
	return cpu >= 0 && cpu < 256 && (o->cpu_mask[cpu / 64] & (1ULL << (cpu % 64)));
}

struct loss_sum {
	int markers;
	uint64_t events, unknown, first, last;
	uint64_t cpus[4];
};

static void loss_sum(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct loss_sum *s)
{
	int k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < ctx->nlosses; k++) {
		const struct rpt_loss *l = &ctx->losses[k];

		/* a loss matters if the gap it stands for overlaps the window */
		if (l->ts < t0 || (l->prev_ts ? l->prev_ts : l->ts) > t1)
			continue;
		if (!rpt_cpu_selected(ctx->opts, l->cpu))
			continue;
		if (!s->markers)
			s->first = l->prev_ts ? l->prev_ts : l->ts;
		s->last = l->ts;
		s->markers += (int)l->markers;
		if (l->count < 0)
			s->unknown++;
		else
			s->events += (uint64_t)l->count;
		if (l->cpu >= 0 && l->cpu < 256)
			s->cpus[l->cpu / 64] |= 1ULL << (l->cpu % 64);
	}
}

/*
 * Sum of overrun + commit overrun + dropped events over the selected CPUs
 * of every buffer: the CPUSTAT text at the end minus the one at the start
 * (when present).  Same text layout as trace-cmd's option 2.
 */
static uint64_t stat_sum(const struct rpt_ctx *ctx, uint16_t id, bool *found)
{
	const struct fmt_option *o;
	uint64_t sum = 0;
	int n, cpu = -1;

	for (n = 0; (o = fmt_reader_option(ctx->r, id, n)); n++) {
		const char *p = o->data, *end = p + o->size;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char line[128];
			unsigned long long v;

			if (ll < sizeof(line)) {
				memcpy(line, p, ll);
				line[ll] = 0;
				if (sscanf(line, "CPU: %d", &cpu) == 1)
					*found = true;
				else if (sscanf(line, "Buffer: %*s") == 0 && !strncmp(line, "Buffer:", 7))
					cpu = -1;
				else if (cpu >= 0 && rpt_cpu_selected(ctx->opts, cpu) &&
					 (sscanf(line, "overrun: %llu", &v) == 1 ||
					  sscanf(line, "commit overrun: %llu", &v) == 1 ||
					  sscanf(line, "dropped events: %llu", &v) == 1))
					sum += v;
			}
			p = nl ? nl + 1 : end;
		}
	}
	return sum;
}

/* events the kernel counted as lost over the whole recording (0 when the file has no stats) */
static uint64_t kernel_lost(const struct rpt_ctx *ctx)
{
	bool f1 = false, f2 = false;
	uint64_t end, start;

	if (!ctx->r)
		return 0;
	end = stat_sum(ctx, FMT_OPT_CPUSTAT, &f1);
	start = stat_sum(ctx, FMT_OPT_FT_CPUSTAT_START, &f2);
	return f1 && end > start ? end - start : 0;
}

void rpt_notes_fill(const struct rpt_ctx *ctx, uint64_t t0, uint64_t t1, struct rpt_notes *n)
{
	struct loss_sum s, all;
	uint64_t kl = kernel_lost(ctx);

	memset(n, 0, sizeof(*n));
	n->raw_clock = ts_ticks;
	snprintf(n->clock, sizeof(n->clock), "%s",
		 ctx->info && ctx->info->clock && *ctx->info->clock ? ctx->info->clock : "raw");
	n->stream_errors = ctx->stream_errors;
	n->truncated_at = ctx->info ? ctx->info->truncated_at : 0;
	loss_sum(ctx, t0, t1, &s);
	loss_sum(ctx, 0, UINT64_MAX, &all);
	/* losses the pages do not mark (non-overwrite drops): the time is unknown */
	if (kl > all.events && !all.unknown)
		n->unmarked_lost = kl - all.events;
	memcpy(n->loss_cpus, s.cpus, sizeof(n->loss_cpus));
	n->nevents = ctx->nevents;
	n->nevents_all = ctx->nevents_all;
	n->file_first_ts = ctx->all_first_ts;
	n->file_last_ts = ctx->all_last_ts;
	n->sel_first_ts = ctx->first_ts;
	n->sel_last_ts = ctx->last_ts;
	n->loss = (struct rpt_loss_summary){ .markers = s.markers, .events = s.events,
					     .unknown = s.unknown, .first_ts = s.first,
					     .last_ts = s.last, .kernel_lost = kl };
}

int rpt_notes_loss(const struct rpt_notes *n, FILE *out)
{
	char a[32], b[32];
	int c, k = 0;

	if (n->unmarked_lost)
		fprintf(out, "note: the kernel counted %" PRIu64 " lost events that no page marks (their\n"
			"      time is unknown): figures may be incomplete; see 'flytrap drops'\n",
			n->unmarked_lost);
	if (!n->loss.markers)
		return 0;
	fprintf(out, "note: events were lost between %s and %s on CPU",
		rpt_fmt_ts(a, sizeof(a), n->loss.first_ts), rpt_fmt_ts(b, sizeof(b), n->loss.last_ts));
	for (c = 0; c < 256; c++)
		if (n->loss_cpus[c / 64] & (1ULL << (c % 64)))
			fprintf(out, "%s%d", k++ ? "," : " ", c);
	fprintf(out, "\n      (%d loss marker%s, %" PRIu64 " events%s):\n"
		"      figures covering that time are incomplete; see 'flytrap drops'\n",
		n->loss.markers, n->loss.markers == 1 ? "" : "s", n->loss.events,
		n->loss.unknown ? " + an unknown number" : "");
	return n->loss.markers;
}

void rpt_loss_summary_json(const struct rpt_loss_summary *s, struct rpt_json *j)
{
	rpt_json_obj(j);
	rpt_json_ki64(j, "markers", s->markers);
	rpt_json_ku64(j, "events", s->events);
	rpt_json_ku64(j, "unknown", s->unknown);
	rpt_json_ku64(j, "first_ts", s->first_ts);
	rpt_json_ku64(j, "last_ts", s->last_ts);
	rpt_json_ku64(j, "kernel_lost", s->kernel_lost);
	rpt_json_obj_end(j);
}

/* ---- replay --------------------------------------------------------------- */

/* Last timestamp per (buffer, cpu) stream, for the start of a loss gap. */
struct stream_last {
	uint64_t ts;
	int last_loss;		/* index + 1 of this stream's latest entry in ctx->losses */
};

/*
 * Markers are kept one by one up to RPT_MAX_LOSSES; after that a marker is
 * merged into its stream's latest entry (the gap then spans both), so
 * memory stays bounded when every page of a huge file lost events.
 */
#define RPT_MAX_LOSSES 65536

static int add_loss(struct rpt_ctx *ctx, int *cap, const struct fmt_event *ev, struct stream_last *sl)
{
	struct rpt_loss *l;

	if (ctx->nlosses >= RPT_MAX_LOSSES && sl && sl->last_loss) {
		l = &ctx->losses[sl->last_loss - 1];
		l->ts = ev->rec.ts;
		l->markers++;
		if (l->count >= 0 && ev->rec.missed_events > 0)
			l->count += ev->rec.missed_events;
		else
			l->count = -1;
		return 0;
	}
	if (ctx->nlosses == *cap) {
		int ncap = *cap ? *cap * 2 : 64;
		struct rpt_loss *nl = realloc(ctx->losses, (size_t)ncap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		ctx->losses = nl;
		*cap = ncap;
	}
	l = &ctx->losses[ctx->nlosses++];
	if (sl)
		sl->last_loss = ctx->nlosses;
	l->ts = ev->rec.ts;
	l->prev_ts = sl ? sl->ts : 0;
	l->count = ev->rec.missed_events < 0 ? -1 : ev->rec.missed_events;
	l->buffer = ev->buffer;
	l->cpu = ev->rec.cpu;
	l->markers = 1;
	return 0;
}

/*
 * Progress on stderr, only when it is a terminal (style.md), and only once a
 * replay has run for a second: the clock is read every PROGRESS_EVERY + 1
 * events, so the hot loop pays one test per event.
 */
#define PROGRESS_EVERY ((1u << 18) - 1)

struct progress {
	bool on, shown;
	struct timespec start;
	double last;		/* seconds since start at the last update */
	const char *path;	/* the file name: the line must fit a terminal to be redrawn */
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_begin(struct progress *p, const struct rpt_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->on = ft_progress_enabled();
	p->path = o->path ? o->path : "input";
	if (strrchr(p->path, '/'))
		p->path = strrchr(p->path, '/') + 1;
	if (p->on)
		clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void progress_show(struct progress *p, uint64_t n)
{
	double dt = since(&p->start);

	/* from one second on, four updates a second */
	if (dt < 1.0 || dt - p->last < 0.25)
		return;
	p->last = dt;
	fprintf(stderr, "\r%.40s: %.1fM events read, %.1fM/s", p->path, (double)n / 1e6, (double)n / 1e6 / dt);
	p->shown = true;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);	/* leave the terminal as it was */
	p->shown = false;
}

/*
 * A slice (report/slice.c) carries the records that make the state at its
 * cuts: entries of calls open at its start and the last sched_switch of
 * each CPU ("prologue="), exits of calls open at its end ("epilogue=").
 * They are handed to the analyzers before and after the slice's own events
 * (not counted as events, not printed by report), so that a call cut by
 * the window keeps its true duration.  Lines: "KEY=BUFFER CPU RAW_TS HEX".
 */
static void feed_slice_records(struct rpt_ctx *ctx, const char *key, struct rpt_types *types,
			       struct rpt_tasks *tasks, const struct rpt_analyzer *const *an, int n,
			       void **privs)
{
	const struct fmt_option *o = fmt_reader_option(ctx->r, FMT_OPT_FT_SLICE, 0);
	const char *p, *end;
	size_t klen = strlen(key);
	uint8_t buf[65536];
	uint64_t want = 0;
	struct rpt_rec rec;

	for (int k = 0; k < n; k++)
		want |= an[k]->kinds;

	if (!o || !o->size)
		return;
	p = o->data;
	end = p + strnlen(p, o->size);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		struct fmt_event ev = { 0 };
		unsigned long long raw;
		int b, cpu, used = 0, len = 0;

		if ((size_t)(le - p) > klen + 1 && !memcmp(p, key, klen) && p[klen] == '=' &&
		    sscanf(p + klen + 1, "%d %d %llu %n", &b, &cpu, &raw, &used) == 3 && used &&
		    b >= 0 && b < ctx->info->nbuffers && cpu >= 0) {
			const char *h = p + klen + 1 + used;

			while (h + 1 < le && len < (int)sizeof(buf) && isxdigit((unsigned char)h[0]) &&
			       isxdigit((unsigned char)h[1])) {
				char two[3] = { h[0], h[1], 0 };

				buf[len++] = (uint8_t)strtoul(two, NULL, 16);
				h += 2;
			}
			if (len >= 8) {
				ev.rec.data = buf;
				ev.rec.size = len;
				ev.rec.cpu = cpu;
				ev.buffer = b;
				ev.raw_ts = raw;
				ev.rec.ts = fmt_reader_adjust_ts_cpu(ctx->r, raw, b, cpu);
				ev.type = ctx->info->big_endian ? buf[0] << 8 | buf[1] : buf[1] << 8 | buf[0];
				ev.event = fmt_reader_event(ctx->r, ev.type);
				replay_prepare(ctx, types, tasks, &ev, want, &rec);
				for (int k = 0; k < n; k++)
					if (an[k]->event_unfiltered)
						an[k]->event_unfiltered(ctx, privs[k], &ev);
				if (rpt_event_selected(ctx, &ev))
					for (int k = 0; k < n; k++)
						if (an[k]->event)
							an[k]->event(ctx, privs[k], &ev);
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* One replay: the context the analyzers see, their private data, and the reader's bookkeeping. */
struct replay {
	struct rpt_ctx ctx;
	struct rpt_tasks tasks;
	struct rpt_types types;
	struct rpt_map last;	/* (buffer << 32 | cpu) -> struct stream_last */
	struct fmt_iter *it;
	const struct rpt_analyzer *const *an;
	int n;
	void **privs;
	int ninit;		/* analyzers whose init succeeded (the first ninit) */
	bool any_unfiltered;
	uint64_t want;		/* kinds some analyzer reads as typed records */
	int losscap, nerrs;
	int last_buf, last_cpu;	/* the stream of sl_cached */
	struct stream_last *sl_cached;
	struct progress prog;
	struct rpt_rec rec;
};

/* The context and the analyzers' private data; privs stays NULL when even that fails. */
static int replay_begin(struct replay *rp, struct fmt_reader *r, const struct rpt_opts *opts,
			const struct rpt_analyzer *const *an, int n)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k, err = 0;

	memset(rp, 0, sizeof(*rp));
	rp->types.elem_size = sizeof(struct replay_type);
	rp->an = an;
	rp->n = n;
	rp->last_buf = -1;
	rp->last_cpu = -1;
	first_damage[0] = 0;
	ctx->r = r;
	ctx->tep = fmt_reader_tep(r);
	ctx->info = fmt_reader_info(r);
	ctx->opts = opts;
	ts_ticks = !ctx->info->clock_in_usecs;
	progress_begin(&rp->prog, opts);
	rpt_map_init(&rp->tasks.map, sizeof(struct task_info));
	rpt_map_init(&rp->last, sizeof(struct stream_last));
	ctx->tasks = &rp->tasks;

	rp->privs = calloc((size_t)(n > 0 ? n : 1), sizeof(*rp->privs));
	if (!rp->privs)
		err = -ENOMEM;
	for (k = 0; !err && k < n; k++) {
		rp->privs[k] = calloc(1, an[k]->priv_size ? an[k]->priv_size : 1);
		if (!rp->privs[k])
			err = -ENOMEM;
		if (an[k]->event_unfiltered)
			rp->any_unfiltered = true;
		rp->want |= an[k]->kinds;
	}
	return err;
}

/* Each analyzer's init, with its own configuration in ctx->conf; stops at the first failure. */
static int init_analyzers(struct replay *rp)
{
	int err = 0;

	for (int k = 0; k < rp->n && !err; k++) {
		if (rp->an[k]->init) {
			rp->ctx.conf = rp->an[k]->conf;
			err = rp->an[k]->init(&rp->ctx, rp->privs[k]);
			rp->ctx.conf = NULL;
		}
		if (!err)
			rp->ninit++;
	}
	return err;
}

static int open_events(struct replay *rp)
{
	struct fmt_iter_opts io;
	const struct rpt_opts *opts = rp->ctx.opts;

	memset(&io, 0, sizeof(io));
	io.threads = opts->threads ? opts->threads : rpt_threads_default();
	/* the analyzers run beside the read and merge: the serial part is theirs, not the reader's */
	io.pipeline = true;
	/*
	 * The CPU filter is not pushed into the iterator: loss markers and
	 * task names come from every CPU (a task named by a sched_switch on
	 * one CPU runs on another later), and an analyzer must give the same
	 * figures alone and next to others in `flytrap analyze`.
	 */
	return fmt_iter_new(rp->ctx.r, &io, &rp->it);
}

/*
 * A damaged CPU stream (rc < 0 from the iterator): counted, the first
 * message kept; the read goes on with the other streams until there are
 * too many to be worth it, when rc becomes the replay's error.
 */
static int stream_error(struct replay *rp, int rc)
{
	const struct rpt_opts *opts = rp->ctx.opts;

	/* the first is the error rpt_replay_status() prints; later ones are details */
	if (!rp->nerrs)
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(rp->ctx.r));
	else if (rp->nerrs < 10)
		ft_warn("'%s': another damaged CPU stream: %s", opts->path ? opts->path : "input",
			fmt_reader_error(rp->ctx.r));
	rp->nerrs++;
	rp->ctx.stream_errors = rp->nerrs;
	return rp->nerrs > 1000000 ? rc : 0;
}

/* The loss bookkeeping of ev's stream: a marker when events were missed before it. */
static int note_stream(struct replay *rp, const struct fmt_event *ev)
{
	struct stream_last *sl;
	int err;

	/* events come in runs per stream: remember the last one looked up */
	if (ev->buffer != rp->last_buf || ev->rec.cpu != rp->last_cpu || !rp->sl_cached) {
		uint64_t key = (uint64_t)(uint32_t)ev->buffer << 32 | (uint32_t)ev->rec.cpu;

		rp->sl_cached = rpt_map_get(&rp->last, key, NULL);
		rp->last_buf = ev->buffer;
		rp->last_cpu = ev->rec.cpu;
	}
	sl = rp->sl_cached;
	err = ev->rec.missed_events ? add_loss(&rp->ctx, &rp->losscap, ev, sl) : 0;
	if (sl && !err)
		sl->ts = ev->rec.ts;
	return err;
}

/* The event prepared, shown to the analyzers that see every event, then to the rest if selected */
static void dispatch_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k;

	replay_prepare(ctx, &rp->types, &rp->tasks, ev, rp->want, &rp->rec);

	if (rp->any_unfiltered)
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event_unfiltered)
				rp->an[k]->event_unfiltered(ctx, rp->privs[k], ev);
	if (rpt_event_selected(ctx, ev)) {
		if (!ctx->nevents)
			ctx->first_ts = ev->rec.ts;
		ctx->nevents++;
		ctx->last_ts = ev->rec.ts;
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event)
				rp->an[k]->event(ctx, rp->privs[k], ev);
	}
}

/* One event read from the file: counted, its stream's losses noted, then dispatched */
static int replay_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int err;

	if (!ctx->nevents_all)
		ctx->all_first_ts = ev->rec.ts;
	ctx->nevents_all++;
	ctx->all_last_ts = ev->rec.ts;
	if (rp->prog.on && !(ctx->nevents_all & PROGRESS_EVERY))
		progress_show(&rp->prog, ctx->nevents_all);
	err = note_stream(rp, ev);
	if (!err)
		dispatch_event(rp, ev);
	return err;
}

/* Every event of the file, between a slice's prologue and epilogue records. */
static int replay_events(struct replay *rp)
{
	const struct fmt_event *ev;
	int err = 0, rc;

	feed_slice_records(&rp->ctx, "prologue", &rp->types, &rp->tasks, rp->an, rp->n, rp->privs);
	while (!err && (rc = fmt_iter_next(rp->it, &ev)) != 0)
		err = rc < 0 ? stream_error(rp, rc) : replay_event(rp, ev);
	if (!err)
		feed_slice_records(&rp->ctx, "epilogue", &rp->types, &rp->tasks, rp->an, rp->n,
				   rp->privs);
	return err;
}

/* After the last event: no current record any more, every damaged stream counted. */
static void replay_end(struct replay *rp)
{
	struct rpt_ctx *ctx = &rp->ctx;

	ctx->ki = NULL;
	ctx->rec = NULL;
	if (fmt_iter_errors(rp->it) > ctx->stream_errors)
		ctx->stream_errors = fmt_iter_errors(rp->it);
	if (ctx->stream_errors && !first_damage[0])
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(ctx->r));
	progress_end(&rp->prog);
}

/*
 * Each analyzer's finish, all of them even when one fails (the first
 * failure is returned); an analyzer with its own stream prints there.
 */
static int finish_analyzers(struct replay *rp)
{
	const struct rpt_opts *opts = rp->ctx.opts;
	int err = 0;

	for (int k = 0; k < rp->n; k++) {
		const struct rpt_analyzer *a = rp->an[k];
		struct rpt_opts own;
		int e;

		if (!a->finish)
			continue;
		if (a->out) {
			own = *opts;
			own.out = a->out;
			rp->ctx.opts = &own;
		}
		e = a->finish(&rp->ctx, rp->privs[k]);
		rp->ctx.opts = opts;
		/* remember why the output failed before anything else sets errno */
		if (ferror(a->out ? a->out : opts->out ? opts->out : stdout) && !out_errno)
			out_errno = errno ? errno : EIO;
		if (e && !err)
			err = e;
	}
	return err;
}

static void replay_release(struct replay *rp)
{
	fmt_iter_free(rp->it);
	for (int k = 0; rp->privs && k < rp->n; k++) {
		if (k < rp->ninit && rp->an[k]->release)
			rp->an[k]->release(rp->privs[k]);
		free(rp->privs[k]);
	}
	free(rp->privs);
	free(rp->ctx.losses);
	rpt_map_release(&rp->tasks.map);
	rpt_map_release(&rp->last);
	rpt_types_release(&rp->types);
}

int rpt_replay(struct fmt_reader *r, const struct rpt_opts *opts,
	       const struct rpt_analyzer *const *an, int n)
{
	struct replay rp;
	int err;

	err = replay_begin(&rp, r, opts, an, n);
	if (!err)
		err = init_analyzers(&rp);
	if (!err)
		err = open_events(&rp);
	if (!err) {
		err = replay_events(&rp);
		replay_end(&rp);
		if (!err)
			err = finish_analyzers(&rp);
		/* a damaged or cut file: the figures are partial, and the exit says so */
		if (!err && (rp.ctx.stream_errors || rp.nerrs || rp.ctx.info->truncated_at))
			err = -EBADMSG;
	}
	replay_release(&rp);
	return err;
}

/* ---- command front end ------------------------------------------------------ */

bool rpt_out_failed(FILE *f)
{
	if (!ferror(f))
		return false;
	if (!out_errno)
		out_errno = errno ? errno : EIO;
	return true;
}

void rpt_set_out_errno(int e)
{
	if (!out_errno)
		out_errno = e;
}

/*
 * Standard output at the end of a command: one "cannot write" line naming
 * it (none when a reader such as `head` left: EPIPE), whoever failed first.
 */
static int finish_stdout(int rc)
{
	int e;

	if (fflush(stdout))
		e = out_errno ? out_errno : errno;
	else if (ferror(stdout) || out_errno)
		e = out_errno ? out_errno : EIO;
	else
		return rc;
	out_errno = 0;
	if (e == EPIPE)
		return rc;
	ft_error("cannot write to standard output: %s", strerror(e));
	return rc ? rc : EXIT_FAIL;
}

bool rpt_partial(const struct rpt_ctx *ctx)
{
	return ctx->stream_errors || (ctx->info && ctx->info->truncated_at);
}

void rpt_notes_damage(const struct rpt_notes *n, FILE *out)
{
	if (n->stream_errors)
		fprintf(out, "note: the file is damaged (%d CPU stream%s early): the figures are\n"
			"      partial, they cover the readable events\n", n->stream_errors,
			n->stream_errors == 1 ? " stops" : "s stop");
	else if (n->truncated_at)
		fprintf(out, "note: the file is cut at byte %" PRIu64 ": the figures are partial, they\n"
			"      cover what it held up to there\n", n->truncated_at);
}

int rpt_replay_status(int rc, struct fmt_reader *r, const struct rpt_opts *o, const char *what)
{
	const struct fmt_info *in = r ? fmt_reader_info(r) : NULL;

	if (!rc)
		return EXIT_OK;
	/* the output went to stdout first: the verdict comes after it */
	fflush(stdout);
	if (rc == -EIO && rpt_out_failed(o->out ? o->out : stdout))
		return EXIT_OK;	/* a write error: finish_stdout() names the output (quiet on EPIPE) */
	if (rc == -EBADMSG && first_damage[0])
		ft_error("'%s': %s; the figures above are partial (they cover the readable events)",
			 o->path, first_damage);
	else if (rc == -EBADMSG && in && in->truncated_at)
		ft_error("'%s': the file is truncated (it stops at byte offset %" PRIu64 "); the figures "
			 "above are partial (they cover what it held up to there)", o->path, in->truncated_at);
	else if (rc == -EBADMSG)
		ft_error("'%s' has damaged event data: %s (the figures above are partial)",
			 o->path, fmt_reader_error(r));
	else if (rc != -ECANCELED)	/* -ECANCELED: the analyzer said why */
		ft_error("cannot %s '%s': %s", what, o->path, strerror(-rc));
	return EXIT_FAIL;
}

#define OPT_DONE (-1000)	/* --help printed */

/*
 * The command line of an analyzer command: -h/-v, the common options
 * (--json unless the command has its own, the filters, --threads), then
 * the command's own tables; the files in paths[].  0, OPT_DONE after
 * --help, or the exit code after the message.
 */
static int parse_command(const struct rpt_command *c, struct rpt_opts *o, int argc, char **argv,
			 char **paths, int *npaths)
{
	static const struct ft_opt base[] = {
		{ "help", 'h', false, 'h' }, { "verbose", 'v', false, 'v' }, { 0 },
	};
	struct ft_optparse p;
	int id, k, first, rc = 0;

	ft_opt_init(&p, argc, argv, base);
	ft_opt_add_table(&p, rpt_filter_opts);
	if (!c->no_json)
		ft_opt_add_table(&p, rpt_json_opts);
	first = p.ntables;
	for (k = 0; k < RPT_CMD_TABLES && c->opts[k]; k++)
		ft_opt_add_table(&p, c->opts[k]);
	while (!rc && (id = ft_opt_next(&p)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR)
			rc = EXIT_USAGE;	/* the parser said why */
		else if (id == FT_OPT_OPERAND)
			paths[(*npaths)++] = (char *)p.value;
		else if (id == 'h' && p.which == 0) {
			fputs(c->usage, stdout);
			fputs(c->no_json ? rpt_opts_help_filters : rpt_opts_help, stdout);
			fputs("  -v                 more messages on stderr\n", stdout);
			rc = OPT_DONE;
		} else if (id == 'v' && p.which == 0)
			ft_verbose++;
		else if (p.which < first)
			rc = rpt_opts_option(o, id, p.value);
		else
			rc = c->option(c->arg, p.which - first, p.opt, p.value);
	}
	return rc;
}

int rpt_run_command(int argc, char **argv, const struct rpt_command *c)
{
	struct rpt_opts o;
	struct fmt_reader *r = NULL;
	char *msg = NULL, **paths = calloc((size_t)argc + 1, sizeof(*paths));
	char *joined = NULL, *label = NULL;
	int rc, ret, npaths = 0;

	memset(&o, 0, sizeof(o));
	o.out = stdout;
	if (!paths)
		return ft_error("out of memory");
	rc = parse_command(c, &o, argc, argv, paths, &npaths);
	if (rc) {
		rpt_opts_release(&o);
		free(paths);
		return rc == OPT_DONE ? ft_finish_stdout(EXIT_OK) : rc;
	}
	o.path = npaths ? paths[0] : "trace.dat";
	if (npaths > 1 &&
	    asprintf(&label, "%s..%s", paths[0], strrchr(paths[npaths - 1], '/') ? strrchr(paths[npaths - 1], '/') + 1
								   : paths[npaths - 1]) >= 0)
		o.path = label;
	if (c->check) {
		rc = c->check(c->arg, &o);
		if (rc) {
			rpt_opts_release(&o);
			free(paths);
			free(label);
			return rc;
		}
	}
	/* several files: the segments of one rotation, read as one recording (decision 8) */
	if (npaths > 1 && (rc = rpt_join_segments(paths, npaths, &joined))) {
		rpt_opts_release(&o);
		free(paths);
		free(label);
		return rc;
	}
	free(paths);
	rc = fmt_reader_open(joined ? joined : o.path, 0, &r, &msg);
	if (joined) {
		unlink(joined);	/* the reader holds it open; nothing is left behind */
		free(joined);
	}
	if (rc) {
		if (msg)
			ft_error("%s", msg);	/* the reader's message names the file */
		else
			ft_error("cannot open '%s': %s", o.path, strerror(-rc));
		free(msg);
		rpt_opts_release(&o);
		free(label);
		return EXIT_FAIL;
	}
	ret = rpt_opts_resolve(&o, r);
	if (ret == EXIT_OK) {
		if (c->run)
			ret = c->run(c->arg, r, &o);
		else
			ret = rpt_replay_status(rpt_replay(r, &o, c->an, c->n), r, &o, "analyze");
	}
	fmt_reader_close(r);
	rpt_opts_release(&o);
	free(label);
	return finish_stdout(ret);
}

const char *rpt_fmt_filters(const struct rpt_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
#define ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	if (o->has_t0 && ts_ticks)
		ADD("from %" PRIu64 " ticks ", o->t0_ns);
	else if (o->has_t0 && o->t0_arg)
		ADD("from %s s ", o->t0_arg);
	else if (o->has_t0)
		ADD("from %" PRIu64 ".%09" PRIu64 " s ", o->t0_ns / UINT64_C(1000000000), o->t0_ns % UINT64_C(1000000000));
	if (o->has_t1 && ts_ticks)
		ADD("to %" PRIu64 " ticks ", o->t1_ns);
	else if (o->has_t1 && o->t1_arg)
		ADD("to %s s ", o->t1_arg);
	else if (o->has_t1)
		ADD("to %" PRIu64 ".%09" PRIu64 " s ", o->t1_ns / UINT64_C(1000000000), o->t1_ns % UINT64_C(1000000000));
	if (o->has_cpus) {
		char c[256];

		rpt_fmt_cpus(c, sizeof(c), o->cpu_mask);
		ADD("CPU%s %s ", strchr(c, ',') || strchr(c, '-') ? "s" : "", c);
	}
	for (k = 0; k < o->npids; k++)
		ADD("pid %d ", o->pids[k]);
	for (k = 0; k < o->ncomms; k++)
		ADD("comm %s ", o->comms[k]);
#undef ADD
	if (n >= len)
		n = len - 1;
	if (n && buf[n - 1] == ' ')
		buf[n - 1] = '\0';
	return buf;
}

void rpt_notes_clock(const struct rpt_notes *n, FILE *out)
{
	if (!n->raw_clock)
		return;
	fprintf(out, "note: the clock (%s) is a raw counter: times are clock ticks, and the\n"
		"      durations below count ticks as if they were nanoseconds\n", n->clock);
}

/* Display width of a UTF-8 string (code points; paths are rarely wide). */
static size_t cols(const char *s, size_t n)
{
	size_t k, w = 0;

	for (k = 0; k < n; k++)
		w += ((unsigned char)s[k] & 0xc0) != 0x80;
	return w;
}

/* Byte length of the longest prefix of s (n bytes) with at most w columns, on a character boundary. */
static size_t prefix_cols(const char *s, size_t n, size_t w)
{
	size_t k, c = 0;

	for (k = 0; k < n; k++) {
		if (((unsigned char)s[k] & 0xc0) != 0x80) {
			if (c == w)
				return k;
			c++;
		}
	}
	return n;
}

const char *rpt_fit(char *buf, size_t len, const char *s, int width)
{
	size_t n = strlen(s);

	if (width < 2 || cols(s, n) <= (size_t)width)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s~", (int)prefix_cols(s, n, (size_t)width - 1), s);
	return buf;
}

void rpt_print_title(FILE *out, const char *what, const char *path)
{
	const size_t width = 80;
	size_t wl = cols(what, strlen(what)) + 1, pl, room, keep_end, head, tail_start;
	const char *base;

	if (!path)
		path = "input";
	pl = strlen(path);
	if (wl + cols(path, pl) <= width || wl + 8 > width) {
		fprintf(out, "%s %s\n", what, path);
		return;
	}
	/*
	 * Too long: keep the file name (the end of the path) and as much of
	 * the start as fits, "..." in between; a file name too long on its
	 * own keeps its end.
	 */
	room = width - wl - 3;
	base = strrchr(path, '/');
	base = base ? base : path;
	keep_end = cols(base, strlen(base));
	if (keep_end > room)
		keep_end = room;
	head = prefix_cols(path, pl, room - keep_end);
	/* the tail: the last keep_end characters */
	tail_start = pl;
	while (tail_start > 0 && cols(path + tail_start, pl - tail_start) < keep_end)
		tail_start--;
	while (tail_start > 0 && ((unsigned char)path[tail_start] & 0xc0) == 0x80)
		tail_start--;
	fprintf(out, "%s %.*s...%s\n", what, (int)head, path, path + tail_start);
}

void rpt_print_bullet(FILE *out, int width, const char *p)
{
	int col = 0, first = 1;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);

		if (col && col + 1 + wl > width) {
			fputc('\n', out);
			col = 0;
		}
		if (!col) {
			fputs(first ? "  - " : "    ", out);
			col = 4;
			first = 0;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, (size_t)wl, out);
		col += wl;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}
