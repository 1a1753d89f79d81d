// SPDX-License-Identifier: GPL-2.0-only
/*
 * getpid_loop N [CHILDREN]: a workload with a known number of syscalls.
 * Calls getpid() exactly N times through syscall(2) (so no libc cache can
 * skip the kernel), optionally in CHILDREN forked children as well, each
 * doing N calls.  Prints "pid PID" for itself and every child on stdout
 * (the PID is the answer of the first call), so a test can count the
 * sys_enter_getpid events per process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* n getpid calls in all; the first one's answer is printed */
static void calls(long n)
{
	long i, pid;

	if (n <= 0) {
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		return;
	}
	pid = syscall(SYS_getpid);
	printf("pid %ld\n", pid);
	fflush(stdout);
	for (i = 1; i < n; i++)
		syscall(SYS_getpid);
}

int main(int argc, char **argv)
{
	long n, children = 0, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: getpid_loop N [CHILDREN]\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	if (argc == 3)
		children = strtol(argv[2], NULL, 0);
	if (n < 0 || children < 0 || children > 64) {
		fprintf(stderr, "getpid_loop: bad arguments\n");
		return 2;
	}
	calls(n);
	for (i = 0; i < children; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			calls(n);
			_exit(0);
		}
		if (waitpid(p, NULL, 0) != p) {
			perror("waitpid");
			return 1;
		}
	}
	return 0;
}
