/* SPDX-License-Identifier: GPL-2.0-only */
/* The shared-library half of the test workload: a hot function that must
 * be attributed to libhot.so by build-ID, not to the executable. */
long lib_mix(long x)
{
	long r = x;

	for (int i = 0; i < 64; i++)
		r = (r * 6364136223846793005L + 1442695040888963407L) ^ (r >> 17);
	return r;
}
