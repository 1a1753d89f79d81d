// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscall_storm N [PROCESSES [RATE]]: a syscall-heavy workload for benchmarks
 * and overload tests.  Each of PROCESSES (default 1) forked processes makes
 * N cheap syscalls (getppid through syscall(2)), at most RATE calls per
 * second each when RATE is given (paced with the vDSO clock, which makes no
 * syscall).  Prints one line on stdout:
 *
 *	calls 1000000 ns 412345678 ns_per_call 412.3 cpu_ns_per_call 398.1
 *
 * ns is the wall time of the whole run, ns_per_call the wall time per call
 * of one process, cpu_ns_per_call the processes' CPU time (user + system)
 * per call: that is what tracing adds to, and it is not inflated by other
 * load on the machine the way wall time is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void storm(long n, double rate)
{
	double t0 = now(), step = rate > 0 ? 1e9 / rate : 0;
	long i;

	for (i = 0; i < n; i++) {
		/* pace in batches of 64 calls: one clock read per batch */
		if (step > 0 && (i & 63) == 0)
			while (now() - t0 < (double)i * step)
				;
		syscall(SYS_getppid);
	}
}

int main(int argc, char **argv)
{
	long n, procs = 1, t;
	double rate = 0, t0, t1, cpu;
	struct rusage ru;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: syscall_storm N [PROCESSES [RATE]]\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	if (argc >= 3)
		procs = strtol(argv[2], NULL, 0);
	if (argc == 4)
		rate = strtod(argv[3], NULL);
	if (n <= 0 || procs < 1 || procs > 256 || rate < 0) {
		fprintf(stderr, "syscall_storm: bad arguments\n");
		return 2;
	}
	t0 = now();
	for (t = 0; t < procs; t++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			storm(n, rate);
			_exit(0);
		}
	}
	for (t = 0; t < procs; t++)
		wait(NULL);
	t1 = now();
	getrusage(RUSAGE_CHILDREN, &ru);
	cpu = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
	      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
	printf("calls %ld ns %.0f ns_per_call %.1f cpu_ns_per_call %.1f\n", n * procs, t1 - t0,
	       (t1 - t0) / (double)n, cpu / (double)(n * procs));
	return 0;
}
