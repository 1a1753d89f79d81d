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

static int cores(void)
{
	cpu_set_t set;
	int n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > RPT_MAX_THREADS ? RPT_MAX_THREADS : n;
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

int main(void)
{
	int n = cores();
	int got;

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
	unsetenv("FLYTRAP_PARALLEL");
	{
		struct timespec a, b;
		double par;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		par = rpt_parallel_cores();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		printf("this machine: %d cores, %.2f measured in parallel (%.1f ms of CPU), "
		       "default %d threads\n", n, par,
		       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
		       rpt_threads_default());
	}
	return check_summary();
}
