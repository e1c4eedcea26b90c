/* SPDX-License-Identifier: GPL-2.0-only */
/* A minimal test harness: each test function prints one line, "PASS name"
 * or "FAIL name", which tests/run.sh counts; a failed CHECK prints where. */
#ifndef PGOPROF_CHECK_H
#define PGOPROF_CHECK_H

#include <stdio.h>

static int check_failed, tests_failed;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			check_failed++;                                    \
			printf("  check failed at %s:%d: %s\n", __FILE__,  \
			       __LINE__, #cond);                           \
		}                                                          \
	} while (0)

static inline void run_test(const char *name, void (*fn)(void))
{
	int before = check_failed;

	fn();
	if (check_failed != before)
		tests_failed++;
	printf("%s %s\n", check_failed == before ? "PASS" : "FAIL", name);
	fflush(stdout);
}

#define RUN(fn) run_test(#fn, fn)

#endif
