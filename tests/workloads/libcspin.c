/* SPDX-License-Identifier: GPL-2.0-only */
/* Spends its time in libc's random_r (exported, not an IFUNC), so that
 * samples land in libc.so.6 at a known function. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static char state[256];
	struct random_data buf = { 0 };
	long n = argc > 1 ? atol(argv[1]) : 60000000;
	int32_t r, sum = 0;

	initstate_r(1, state, sizeof(state), &buf);
	for (long i = 0; i < n; i++) {
		random_r(&buf, &r);
		sum ^= r;
	}
	printf("%d\n", sum);
	return 0;
}
