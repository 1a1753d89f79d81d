// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscall_storm N [THREADS]: a syscall-heavy workload for benchmarks and
 * overload tests.  Each of THREADS processes (default 1) makes N cheap
 * syscalls (getppid, through syscall(2)).  Prints the wall time and the
 * average nanoseconds per call on stdout:
 *
 *	calls 1000000 ns 412345678 ns_per_call 412.3
 */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	long n, threads = 1, i, t;
	double t0, t1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: syscall_storm N [PROCESSES]\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	if (argc == 3)
		threads = strtol(argv[2], NULL, 0);
	if (n < 0 || threads < 1 || threads > 256) {
		fprintf(stderr, "syscall_storm: bad arguments\n");
		return 2;
	}
	t0 = now();
	for (t = 0; t < threads; t++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			for (i = 0; i < n; i++)
				syscall(SYS_getppid);
			_exit(0);
		}
	}
	for (t = 0; t < threads; t++)
		wait(NULL);
	t1 = now();
	printf("calls %ld ns %.0f ns_per_call %.1f\n", n * threads, t1 - t0,
	       (t1 - t0) / (double)(n * threads) * (double)threads);
	return 0;
}
