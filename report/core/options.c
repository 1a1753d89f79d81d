// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzers' options: --from/--to (exact to the ns, ticks on a raw
 * counter clock), --cpu, --pid, --comm, --threads and --json, parsed once
 * for every command that replays a file (rpt_filter_opt).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <sys/stat.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"

#define FILTERS_HELP \
	"  --from T, --to T   only events from / up to time T, as the analyzers print\n" \
	"                     it: seconds (12.5), or clock ticks on a raw counter\n" \
	"                     clock such as x86-tsc (as `report` prints them)\n" \
	"  --cpu LIST         only these CPUs, e.g. 0,2-3\n" \
	"  --pid N[,N...]     only these pids (thread or process id); repeatable\n" \
	"  --comm GLOB        only tasks whose name matches GLOB; repeatable\n" \
	"  --threads N        threads that read the file (default: the cores available\n" \
	"                     if they really run in parallel and the file is large,\n" \
	"                     else 1); the output is the same\n"

const char rpt_opts_help[] =
	"  --json             machine-readable output (fields: see the man page)\n"
	FILTERS_HELP;
const char rpt_opts_help_filters[] = FILTERS_HELP;

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
			return ft_usage_error("--pid needs process ids such as 42 or 42,43, "
					      "not '%s'", arg);
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
			return ft_usage_error("--cpu needs a CPU list such as 0,2-3 (CPUs 0-255), "
					      "not '%s'", v ? v : "");
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

/* ---- the default thread count -------------------------------------------------------- */

static volatile uint64_t spin_sink;

/*
 * n steps of work that keeps a core's multipliers busy every cycle (eight
 * independent chains): a hyperthread sibling then adds little, as it adds
 * little to the reader's decoding, where one dependent chain would let two
 * siblings look like two cores.
 */
static void spin(uint64_t n)
{
	uint64_t x[8], i, sum = 0;
	int k;

	for (k = 0; k < 8; k++)
		x[k] = n + (uint64_t)k;
	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++)
			x[k] = x[k] * 6364136223846793005ULL + 1442695040888963407ULL;
	for (k = 0; k < 8; k++)
		sum += x[k];
	spin_sink = sum;
}

static double mid3(double *v)
{
	double a = v[0], b = v[1], c = v[2];

	return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct spin_arg {
	uint64_t n;
	double cpu;		/* CPU seconds the thread got */
};

static void *spin_thread(void *arg)
{
	struct spin_arg *a = arg;
	double c = thread_cpu_s();

	spin(a->n);
	a->cpu = thread_cpu_s() - c;
	return NULL;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * How many cores two threads really get at once, from 1 to 2: the same
 * spin alone and on two threads side by side, and the CPU time the two
 * were given over the wall time (the median of three rounds, or two
 * rounds on the same side of the bar, so that one preemption does not
 * decide).  A VM's two vCPUs sharing a host
 * core, or a machine busy with other work, give well under 2 (this
 * project's 2-vCPU machine: about 1.36, and less when others run), and
 * then the reader's second thread costs more than it saves.  About 5 ms of CPU;
 * FLYTRAP_PARALLEL=X sets the answer instead (benches, tests).
 */
static double measure_parallel(void)
{
	const char *env = getenv("FLYTRAP_PARALLEL");
	double one, two, got, v[3], t, c;
	uint64_t n = 1 << 12;
	int i;

	if (env && *env) {
		char *end;
		double x = strtod(env, &end);

		if (end != env && !*end && x >= 1 && x <= RPT_MAX_THREADS)
			return x;
	}
	/* work of ~0.5 ms on one core: the measure is part of every large open */
	for (;;) {
		t = mono_s();
		spin(n);
		t = mono_s() - t;
		if (t >= 0.0005 || n >= (1ULL << 32))
			break;
		n *= 2;
	}
	for (i = 0; i < 3; i++) {
		struct spin_arg a = { .n = n };
		pthread_t th;

		t = mono_s();
		spin(n);
		one = mono_s() - t;

		t = mono_s();
		c = thread_cpu_s();
		if (pthread_create(&th, NULL, spin_thread, &a))
			return 1;
		spin(n);
		c = thread_cpu_s() - c;
		pthread_join(th, NULL);
		two = mono_s() - t;
		/*
		 * The lower of: the work two threads got done against one (a
		 * sibling hyperthread shares the core), and the CPU they were
		 * given over the wall time (other programs hold the cores).
		 */
		v[i] = 2 * one / two;
		got = (c + a.cpu) / two;
		if (got < v[i])
			v[i] = got;
		/*
		 * Two rounds on the same side of the bar decide as the median of
		 * three would: the third is not run (a third less CPU).
		 */
		if (i == 1 && (v[0] < RPT_PARALLEL_MIN) == (v[1] < RPT_PARALLEL_MIN)) {
			t = (v[0] + v[1]) / 2;
			return t < 1 ? 1 : t > 2 ? 2 : t;
		}
	}
	t = mid3(v);
	return t < 1 ? 1 : t > 2 ? 2 : t;
}

static pthread_once_t parallel_once = PTHREAD_ONCE_INIT;
static double parallel_cores;

/*
 * The measure is kept a few seconds in the user's runtime directory, so that
 * a script running flytrap on many files pays it once, not ~20 ms of wall
 * time per large open.  Only a directory of the user's own, mode 0700
 * ($XDG_RUNTIME_DIR, systemd's /run/user/UID), and a regular file of the
 * user's (not a link) are trusted; the boot id and the monotonic clock say
 * whether it is recent.  Anything else: measure.
 */
#define PARALLEL_CACHE_NS 10000000000ULL

static bool parallel_cache_path(char *buf, size_t cap)
{
	const char *d = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (!d || d[0] != '/' || stat(d, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return false;
	return snprintf(buf, cap, "%s/flytrap-parallel", d) < (int)cap;
}

static bool boot_id(char *id, size_t cap)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	bool ok = f && fgets(id, (int)cap, f);

	if (f)
		fclose(f);
	if (ok)
		id[strcspn(id, "\n")] = 0;
	return ok && *id;
}

static uint64_t mono_ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static bool parallel_cached(double *v)
{
	char path[4096], id[64], buf[160], fid[64];
	unsigned long long at;
	struct stat st;
	ssize_t n;
	int fd;

	if (!parallel_cache_path(path, sizeof(path)) || !boot_id(id, sizeof(id)))
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ? -1 :
		read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	if (sscanf(buf, "%63s %llu %lf", fid, &at, v) != 3 || strcmp(fid, id) ||
	    at > mono_ns_now() || mono_ns_now() - at > PARALLEL_CACHE_NS || !(*v >= 1 && *v <= 2))
		return false;
	return true;
}

static void parallel_keep(double v)
{
	char path[4096], tmp[4200], id[64], buf[160];
	int fd, len;

	if (!parallel_cache_path(path, sizeof(path)) || !boot_id(id, sizeof(id)))
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%s %llu %.3f\n", id, (unsigned long long)mono_ns_now(), v);
	if (write(fd, buf, (size_t)len) != len) {
		close(fd);
		unlink(tmp);
		return;
	}
	if (close(fd) || rename(tmp, path))
		unlink(tmp);
}

static void parallel_init(void)
{
	const char *env = getenv("FLYTRAP_PARALLEL");

	if (!(env && *env) && parallel_cached(&parallel_cores))
		return;
	parallel_cores = measure_parallel();
	if (!(env && *env))
		parallel_keep(parallel_cores);
}

/*
 * A CPU quota caps what threads get whatever the affinity mask says (a
 * container given 1.5 CPUs of a 64-core host: its threads are stopped once
 * they have used 150 ms in a 100 ms period).  The quota of each cgroup from
 * the process's up to its hierarchy's root counts, the smallest wins:
 * cgroup v2 cpu.max ("QUOTA PERIOD" or "max PERIOD"), v1 cpu.cfs_quota_us
 * over cpu.cfs_period_us (-1: none).  Read here, as no Debian library
 * reports it (libcgroup manages groups, it does not resolve this).
 */
static bool read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

/* cores a cgroup directory's own quota allows; 0: no quota there */
static double dir_quota(const char *dir, bool v2)
{
	char path[4300], buf[128];
	long long q, per;

	if (v2) {
		char w[32];
		uint64_t u;

		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		if (!read_small(path, buf, sizeof(buf)) || sscanf(buf, "%31s %lld", w, &per) != 2 ||
		    !strcmp(w, "max") || ft_parse_u64(w, &u) || !u || u > (1ULL << 62) || per <= 0)
			return 0;
		q = (long long)u;
	} else {
		snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
		if (!read_small(path, buf, sizeof(buf)) || sscanf(buf, "%lld", &q) != 1 || q <= 0)
			return 0;
		snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
		if (!read_small(path, buf, sizeof(buf)) || sscanf(buf, "%lld", &per) != 1 || per <= 0)
			return 0;
	}
	return (double)q / (double)per;
}

/* has the comma list a token tok? */
static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, tok, n) && (p[n] == ',' || p[n] == 0))
			return true;
	return false;
}

double rpt_cgroup_cores_at(const char *proc_cgroup, const char *mountinfo, const char *prefix)
{
	char line[4096], cg[2][4096] = { "", "" }, dir[4200];
	bool have[2] = { false, false };
	double best = 0;
	FILE *f = fopen(proc_cgroup, "re");

	if (!f)
		return 0;
	/* "ID:CONTROLLERS:PATH": v2 is "0::PATH", v1's cpu controller is named in the list */
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		*b++ = 0;
		b[strcspn(b, "\n")] = 0;
		if (!strcmp(line, "0:") ) {
			snprintf(cg[1], sizeof(cg[1]), "%s", b);
			have[1] = true;
		} else if (has_token(a + 1, "cpu")) {
			snprintf(cg[0], sizeof(cg[0]), "%s", b);
			have[0] = true;
		}
	}
	fclose(f);
	f = fopen(mountinfo, "re");
	if (!f)
		return 0;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS" */
	while (fgets(line, sizeof(line), f)) {
		char root[4096], mnt[4096], fstype[64], super[1024], *dash = strstr(line, " - ");
		const char *rel;
		size_t rl;
		int v2;

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
			continue;
		v2 = !strcmp(fstype, "cgroup2");
		if (!v2 && !(!strcmp(fstype, "cgroup") && has_token(super, "cpu")))
			continue;
		if (!have[v2] || strchr(mnt, '\\'))
			continue;	/* an escaped name: not a path as is */
		/* the mount shows the hierarchy from root on: the process's path below it */
		rel = cg[v2];
		rl = strlen(root);
		if (strcmp(root, "/")) {
			if (strncmp(rel, root, rl) || (rel[rl] != '/' && rel[rl] != 0))
				continue;
			rel += rl;
		}
		if (snprintf(dir, sizeof(dir), "%s%s%s", prefix ? prefix : "", mnt, rel) >=
		    (int)sizeof(dir))
			continue;
		for (size_t base = strlen(prefix ? prefix : "") + strlen(mnt);;) {
			double q = dir_quota(dir, v2);
			char *slash;

			if (q > 0 && (best == 0 || q < best))
				best = q;
			slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) < base)
				break;
			*slash = 0;
		}
		have[v2] = false;	/* one mount of each hierarchy */
	}
	fclose(f);
	return best;
}

static int affinity_cores(void)
{
	cpu_set_t set;
	int n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n < 1)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n;
}

static pthread_once_t cores_once = PTHREAD_ONCE_INIT;
static int usable_cores;

/* the cores of the affinity mask, fewer where a CPU quota allows fewer (rounded down) */
static void cores_init(void)
{
	double q = rpt_cgroup_cores_at("/proc/self/cgroup", "/proc/self/mountinfo", NULL);
	int n = affinity_cores();

	if (q > 0 && q < n)
		n = q < 1 ? 1 : (int)q;
	usable_cores = n > RPT_MAX_THREADS ? RPT_MAX_THREADS : n;
}

int rpt_usable_cores(void)
{
	pthread_once(&cores_once, cores_init);
	return usable_cores;
}

int rpt_threads_default(void)
{
	int n = rpt_usable_cores();

	if (n <= 1)
		return 1;
	/*
	 * A second thread pays for itself only where it really runs beside the
	 * first: the pipeline's two threads burn ~2.2x the CPU of one and hand
	 * over every batch of events, waking a thread that may have gone idle,
	 * so below ~1.6 cores of parallelism from a cold start the default
	 * stays at one thread.
	 */
	pthread_once(&parallel_once, parallel_init);
	if (parallel_cores < RPT_PARALLEL_MIN)
		return 1;
	return n;
}

int rpt_threads_for(uint64_t file_size)
{
	/* a small file is read before a second thread would have started helping */
	if (file_size < RPT_THREADS_MIN_FILE)
		return 1;
	return rpt_threads_default();
}

int rpt_ranges_for(uint64_t file_size)
{
	/*
	 * Ranges hand nothing over: each runs apart from its start to its end
	 * (hundreds of ms: range_plan() puts RPT_RANGE_MIN_EVENTS in each), so
	 * a vCPU's slow wake-up, which decides the pipeline's default, costs
	 * them once.  Where the threads do not get cores of their own they
	 * share one, and the ranges cost their starts and the merge: 5% on one
	 * CPU (docs/benchmarks.md).  A quota (rpt_usable_cores()) is the
	 * case that would cost that always, so it counts; a busy machine gives
	 * two threads more of its time than one.
	 */
	if (file_size < RPT_THREADS_MIN_FILE)
		return 1;
	return rpt_usable_cores();
}

double rpt_parallel_cores(void)
{
	pthread_once(&parallel_once, parallel_init);
	return parallel_cores;
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
			ft_usage_error("%s %s: give a time in seconds as the analyzers print it, "
				       "e.g. 12.5", name, v) : 0;
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
			n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d",
					      n ? "," : "", c, e);
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
			ft_warn("--cpu %s: '%s' has no events on %s (events on CPUs %s)", m, path,
				strchr(m, ',') || strchr(m, '-') ? "these CPUs" : "that CPU",
				*h ? h : "none");
	}
}

int rpt_opts_resolve(struct rpt_opts *o, struct fmt_reader *r)
{
	const struct fmt_info *info = fmt_reader_info(r);

	rpt_set_raw_clock(!info->clock_in_usecs);
	if (o->t0_arg &&
	    rpt_time_arg("--from", o->t0_arg, !rpt_raw_clock(), info->clock, &o->t0_ns))
		return EXIT_USAGE;
	if (o->t1_arg && rpt_time_arg("--to", o->t1_arg, !rpt_raw_clock(), info->clock, &o->t1_ns))
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

