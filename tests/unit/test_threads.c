// SPDX-License-Identifier: GPL-2.0-only
/*
 * The default thread count (report/core/options.c): one thread where two
 * do not really run in parallel (FLYTRAP_PARALLEL below the bar) or the
 * file is small, the cores of the affinity mask otherwise; --threads N is
 * not involved (it overrides the default before it is asked for).  Each
 * case runs in a child, as the measure is taken once per process.  The
 * figure measured on this machine is printed, not checked (it depends on
 * what else runs).
 */
#include <sched.h>
#include <stdlib.h>
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

int main(void)
{
	int n = cores();
	int got;

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
