// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_target N: a user program with a known call tree for --uprobe tests.
 * Each of the N rounds calls ut_outer(), which calls ut_middle() twice, each
 * of which calls ut_leaf() once:
 *
 *	ut_outer → ut_middle → ut_leaf ← ← ut_middle → ut_leaf ← ← ←
 *
 * The functions are kept out of line and do work after each call, so the
 * compiler can neither inline them nor turn a call into a jump.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long ut_sink;

__attribute__((noinline, used)) unsigned long ut_leaf(unsigned long x)
{
	ut_sink += x;
	__asm__ volatile("" ::: "memory");
	return ut_sink * 3 + 1;
}

__attribute__((noinline, used)) unsigned long ut_middle(unsigned long x)
{
	unsigned long r = ut_leaf(x + 1);

	__asm__ volatile("" ::: "memory");
	return r + 7;
}

__attribute__((noinline, used)) unsigned long ut_outer(unsigned long x)
{
	unsigned long r = ut_middle(x);

	r += ut_middle(r);
	__asm__ volatile("" ::: "memory");
	return r ^ 5;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1, i;
	unsigned long acc = 0;

	if (n < 0) {
		fprintf(stderr, "usage: uprobe_target N\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		acc += ut_outer((unsigned long)i);
	printf("%lu\n", acc);
	return 0;
}
