// SPDX-License-Identifier: GPL-2.0-only
/*
 * openloop N PATH: open and close PATH N times, then print the CPU time
 * this process used (user + system: the BPF programs on do_sys_openat2
 * run in the caller's context and count as its system time) per call.
 * The kernel lab's overhead measurement of fentry against kprobes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n, i;
	double ns;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: openloop N PATH\n");
		return 2;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		close(fd);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("calls %ld cpu_ns %.0f per_call_ns %.0f\n", n, ns, ns / n);
	return 0;
}
