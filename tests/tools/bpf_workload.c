// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_workload: known workloads for the BPF live tests.
 *
 *   bpf_workload sys N M MS	getppid() N times through syscall(2), then
 *				nanosleep MS milliseconds M times
 *   bpf_workload burn MS	spin MS milliseconds of CPU in bw_burn_outer()
 *				-> bw_burn_inner() (frame pointers kept, so
 *				user stacks unwind through them)
 *   bpf_workload calls N	N rounds of the call tree
 *				bw_a -> bw_b -> bw_c, bw_b -> bw_c, bw_a -> bw_rec(3)
 *				(bw_rec recurses: depths 2, 3, 4)
 *   bpf_workload storm N	getppid() N times, as fast as possible, then
 *				prints "elapsed_ns NS cpu_ns NS" of the loop
 *   bpf_workload rate R MS	getppid() at R calls per second for MS ms
 *				(at most 100 calls between clock reads), then prints
 *				"calls N elapsed_ns NS"
 *
 * Prints "pid PID" first (and flushes) so a test knows whom to look for.
 */
#pragma GCC optimize("no-omit-frame-pointer")
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long bw_sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* CPU time of this process (user + system): what tracing costs the traced */
static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline, used)) void bw_burn_inner(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		bw_sink += i * 7;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void bw_burn_outer(unsigned long long until)
{
	while (now_ns() < until)
		bw_burn_inner(100000);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) unsigned long bw_c(unsigned long x)
{
	bw_sink += x;
	__asm__ volatile("" ::: "memory");
	return bw_sink;
}

__attribute__((noinline, used)) unsigned long bw_b(unsigned long x)
{
	unsigned long r = bw_c(x + 1);

	bw_sink += r;
	__asm__ volatile("" ::: "memory");
	return bw_sink;
}

__attribute__((noinline, used)) unsigned long bw_rec(int n)
{
	unsigned long r = n > 1 ? bw_rec(n - 1) : 1;

	bw_sink += r;
	__asm__ volatile("" ::: "memory");
	return bw_sink;
}

__attribute__((noinline, used)) unsigned long bw_a(unsigned long x)
{
	unsigned long r = bw_b(x) + bw_b(x + 1) + bw_rec(3);

	bw_sink += r;
	__asm__ volatile("" ::: "memory");
	return bw_sink;
}

static int usage(void)
{
	fprintf(stderr, "usage: bpf_workload sys N M MS | burn MS | calls N | storm N | rate R MS\n");
	return 2;
}

int main(int argc, char **argv)
{
	long i;

	if (argc < 3)
		return usage();
	printf("pid %d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "sys") && argc == 5) {
		long n = atol(argv[2]), m = atol(argv[3]), ms = atol(argv[4]);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		for (i = 0; i < m; i++)
			nanosleep(&ts, NULL);
	} else if (!strcmp(argv[1], "burn") && argc == 3) {
		bw_burn_outer(now_ns() + atol(argv[2]) * 1000000ull);
	} else if (!strcmp(argv[1], "calls") && argc == 3) {
		long n = atol(argv[2]);

		for (i = 0; i < n; i++)
			bw_a(i);
	} else if (!strcmp(argv[1], "storm") && argc == 3) {
		long n = atol(argv[2]);
		unsigned long long t0 = now_ns(), c0 = cpu_ns();

		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		printf("elapsed_ns %llu cpu_ns %llu\n", now_ns() - t0, cpu_ns() - c0);
	} else if (!strcmp(argv[1], "rate") && argc == 4) {
		double rate = atof(argv[2]);
		unsigned long long t0 = now_ns(), end = t0 + atol(argv[3]) * 1000000ull, t;
		long calls = 0;

		if (rate <= 0)
			return usage();
		/* busy pacing: sleeping would add wakeups (and off-CPU events) */
		while ((t = now_ns()) < end) {
			long due = (long)((t - t0) * rate / 1e9);

			for (i = 0; calls < due && i < 100; i++, calls++)
				syscall(SYS_getppid);
		}
		printf("calls %ld elapsed_ns %llu\n", calls, now_ns() - t0);
	} else {
		return usage();
	}
	return 0;
}
