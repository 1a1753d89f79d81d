/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The program of the inlined-frames tests (tests/live/53-callgraph-inline.sh,
 * tests/report/callgraph-inline.sh), built with -O2 -g: step() and mix() are
 * inlined into hot_loop(), which is not.
 */
#include <stdlib.h>
#include <time.h>

static unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9E3779B97F4A7C15UL;
	x ^= x >> 29;
	return x;
}

static unsigned long step(unsigned long x)
{
	for (int k = 0; k < 64; k++)
		x = mix(x + (unsigned long)k);
	return x;
}

__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < n; i++)
		x = step(x + i);
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	volatile unsigned long sink = 0, n = 100000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += hot_loop(n);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return (int)(sink & 1);
}
