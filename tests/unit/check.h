/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' one assertion: CHECK(cond, fmt, ...) counts the check,
 * and on failure prints where and why and counts the failure.  A test's
 * main() ends with `return check_summary();`, which prints the totals and
 * exits non-zero when anything failed.
 */
#ifndef FLYTRAP_TEST_CHECK_H
#define FLYTRAP_TEST_CHECK_H

#include <stdio.h>

static int fails, checks;

#define CHECK(cond, ...) do { \
	checks++; \
	if (!(cond)) { \
		fails++; \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		putchar('\n'); \
	} \
} while (0)

static inline int check_summary(void)
{
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}

#endif
