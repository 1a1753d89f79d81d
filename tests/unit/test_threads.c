// SPDX-License-Identifier: GPL-2.0-only
/*
 * The default thread count (report/core/options.c): one thread where two
 * do not really run in parallel (FLYTRAP_PARALLEL below the bar) or the
 * file is small, the cores of the affinity mask otherwise; --threads N is
 * not involved (it overrides the default before it is asked for).  Each
 * case runs in a child, as the measure is taken once per process.  The
 * figure measured on this machine is printed, not checked (it depends on
 * what else runs).  The measure kept for a few seconds in
 * $XDG_RUNTIME_DIR/flytrap-parallel: made by a measure (mode 0600), taken
 * when it is this boot's and recent, left when it is a link or another
 * boot's; the test's own directory stands in for the user's.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/core/replay.h"
#include "check.h"

/* the affinity mask's cores, fewer under a CPU quota (checked by quota_checks()) */
static int cores(void)
{
	cpu_set_t set;
	int n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	n = n < 1 ? 1 : n > RPT_MAX_THREADS ? RPT_MAX_THREADS : n;
	CHECK(rpt_usable_cores() >= 1 && rpt_usable_cores() <= n, "usable cores %d of %d",
	      rpt_usable_cores(), n);
	return rpt_usable_cores();
}

/* in a child with FLYTRAP_PARALLEL=par: rpt_threads_for(size) */
static int threads_with(const char *par, uint64_t size)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (par)
			setenv("FLYTRAP_PARALLEL", par, 1);
		else
			unsetenv("FLYTRAP_PARALLEL");
		_exit(rpt_threads_for(size) & 0xff);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static char cache[4200];

/* the cache file with this boot's id (or another), written now */
static void put_cache(const char *boot, double v)
{
	char id[64] = "", buf[200];
	struct timespec t;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (fgets(id, sizeof(id), f))
			id[strcspn(id, "\n")] = 0;
		fclose(f);
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(buf, sizeof(buf), "%s %llu %.3f\n", boot ? boot : id,
		 (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec, v);
	unlink(cache);
	f = fopen(cache, "w");
	if (f) {
		fputs(buf, f);
		fclose(f);
	}
}

static void cache_checks(int n)
{
	static char dir[300];
	const char *tmp = getenv("TMPDIR");
	char link[4300];
	struct stat st;
	int got;

	if (n == 1) {
		printf("SKIP the kept measure: one usable core, nothing is measured\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/flytrap-threads.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return;
	snprintf(cache, sizeof(cache), "%s/flytrap-parallel", dir);
	setenv("XDG_RUNTIME_DIR", dir, 1);
	chmod(getenv("XDG_RUNTIME_DIR"), 0700);
	got = threads_with(NULL, 1ULL << 30);
	CHECK(got >= 1 && !stat(cache, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	      "a measure leaves its figure in $XDG_RUNTIME_DIR, mode 0600");
	put_cache(NULL, 2.0);
	got = threads_with(NULL, 1ULL << 30);
	CHECK(got == (n == 1 ? 1 : n), "a recent figure of 2 cores is taken: %d threads", got);
	put_cache(NULL, 1.0);
	got = threads_with(NULL, 1ULL << 30);
	CHECK(got == 1, "a recent figure of 1 core is taken: %d threads", got);
	put_cache(NULL, 2.0);
	got = threads_with("1.36", 1ULL << 30);
	CHECK(got == 1, "FLYTRAP_PARALLEL beats the kept figure: %d threads", got);
	/* another boot's figure, or one behind a link, is measured again (and replaced) */
	put_cache("another-boot", 2.0);
	threads_with(NULL, 1ULL << 30);
	{
		char buf[200] = "";
		FILE *f = fopen(cache, "r");

		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = 0;
			fclose(f);
		}
		CHECK(strncmp(buf, "another-boot", 12) != 0, "another boot's figure is replaced: %s", buf);
	}
	snprintf(link, sizeof(link), "%s.target", cache);
	rename(cache, link);
	symlink(link, cache);
	threads_with(NULL, 1ULL << 30);
	CHECK(!lstat(cache, &st) && S_ISREG(st.st_mode), "a link in its place is not followed (replaced)");
	unlink(link);
	unlink(cache);
	rmdir(getenv("XDG_RUNTIME_DIR"));
	unsetenv("XDG_RUNTIME_DIR");
}

/* write text to root/rel, making its directories */
static void put(const char *root, const char *rel, const char *text)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The cgroup CPU quota: a fake /proc and /sys tree, as a container or a
 * systemd slice shows them.  v2: the smallest cpu.max from the group up,
 * "max" none; a mount whose root is the group's ancestor (no cgroup
 * namespace) strips it.  v1: cpu.cfs_quota_us over the period, -1 none, the
 * hierarchy found by its "cpu" super option among "cpu,cpuacct".
 */
static void quota_checks(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[300], cg[400], mi[400], cmd[400];
	double q;

	snprintf(dir, sizeof(dir), "%s/flytrap-quota.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return;
	snprintf(cg, sizeof(cg), "%s/cgroup", dir);
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);

	put(dir, "cgroup", "0::/system.slice/job.service\n");
	put(dir, "mountinfo",
	    "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
	    "30 22 0:26 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n");
	put(dir, "sys/fs/cgroup/system.slice/job.service/cpu.max", "max 100000\n");
	put(dir, "sys/fs/cgroup/system.slice/cpu.max", "250000 100000\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q > 2.49 && q < 2.51, "v2: the slice's 250 ms per 100 ms: %.2f cores", q);
	put(dir, "sys/fs/cgroup/system.slice/job.service/cpu.max", "150000 100000\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q > 1.49 && q < 1.51, "v2: the smaller quota, the service's own: %.2f cores", q);
	put(dir, "sys/fs/cgroup/system.slice/job.service/cpu.max", "max 100000\n");
	put(dir, "sys/fs/cgroup/system.slice/cpu.max", "max 100000\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q == 0, "v2: no quota anywhere: %.2f", q);

	/* no cgroup namespace: the mount's root is the container's group */
	put(dir, "cgroup", "0::/docker/abc\n");
	put(dir, "mountinfo", "30 22 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
	put(dir, "sys/fs/cgroup/cpu.max", "50000 100000\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q > 0.49 && q < 0.51, "v2: a container's own quota at its mount's root: %.2f", q);

	put(dir, "cgroup", "12:pids:/\n4:cpu,cpuacct:/k8s/pod1\n0::/\n");
	put(dir, "mountinfo",
	    "40 30 0:35 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	    "41 30 0:36 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n");
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/pod1/cpu.cfs_quota_us", "300000\n");
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/pod1/cpu.cfs_period_us", "100000\n");
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/cpu.cfs_quota_us", "-1\n");
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/cpu.cfs_period_us", "100000\n");
	put(dir, "sys/fs/cgroup/cpuset/k8s/pod1/cpu.cfs_quota_us", "10000\n");
	put(dir, "sys/fs/cgroup/cpuset/k8s/pod1/cpu.cfs_period_us", "100000\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q > 2.99 && q < 3.01, "v1: the pod's 3 cores, found under cpu,cpuacct: %.2f", q);
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/pod1/cpu.cfs_quota_us", "-1\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q == 0, "v1: -1 is no quota: %.2f", q);
	put(dir, "sys/fs/cgroup/cpu,cpuacct/k8s/pod1/cpu.cfs_quota_us", "junk\n");
	q = rpt_cgroup_cores_at(cg, mi, dir);
	CHECK(q == 0, "v1: a quota that is not a number is none: %.2f", q);
	q = rpt_cgroup_cores_at("/nonexistent/cgroup", mi, dir);
	CHECK(q == 0, "no /proc/self/cgroup: no quota");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("could not remove %s\n", dir);
	q = rpt_cgroup_cores_at("/proc/self/cgroup", "/proc/self/mountinfo", NULL);
	printf("this process's CPU quota: %.2f cores (0: none)\n", q);
}

int main(void)
{
	int n = cores();
	int got;

	quota_checks();
	cache_checks(n);
	unsetenv("XDG_RUNTIME_DIR");

	got = threads_with("1.36", 1ULL << 30);
	CHECK(got == 1, "1.36 cores of parallelism, a large file: %d threads", got);
	got = threads_with("2", 1ULL << 30);
	CHECK(got == (n == 1 ? 1 : n), "2 cores, a large file: %d threads, %d cores", got, n);
	got = threads_with("2", 1024);
	CHECK(got == 1, "2 cores, a small file: %d threads", got);
	got = threads_with("2", RPT_THREADS_MIN_FILE);
	CHECK(got == (n == 1 ? 1 : n), "2 cores, a file at the bar: %d threads", got);
	got = threads_with("junk", 1024);
	CHECK(got == 1, "a bad FLYTRAP_PARALLEL, a small file: %d threads", got);
	got = threads_with(NULL, 1ULL << 30);
	CHECK(got >= 1 && got <= n, "measured: %d threads", got);
	/* ranges take the usable cores, measure or not; not on a small file */
	CHECK(rpt_ranges_for(1024) == 1, "ranges: a small file, one thread");
	setenv("FLYTRAP_PARALLEL", "1", 1);
	got = rpt_ranges_for(1ULL << 30);
	CHECK(got == rpt_usable_cores() && got <= n, "ranges: %d threads on %d usable cores, "
	      "whatever two threads measure", got, rpt_usable_cores());
	unsetenv("FLYTRAP_PARALLEL");
	{
		struct timespec a, b;
		double par;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		par = rpt_parallel_cores();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		printf("this machine: %d cores, %.2f measured in parallel (%.1f ms of CPU), "
		       "default %d threads, %d for ranges (%d usable cores)\n", n, par,
		       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
		       rpt_threads_default(), rpt_ranges_for(1ULL << 30), rpt_usable_cores());
	}
	return check_summary();
}
