/* SPDX-License-Identifier: GPL-2.0-only */
/* A short-lived process: a few milliseconds of CPU, then exit.  Hundreds
 * of them in a row test that mappings of processes that come and go are
 * caught before their samples need them. */
int main(void)
{
	volatile unsigned long h = 1;

	for (long i = 0; i < 2000000; i++)
		h = h * 31 + (unsigned long)i;
	return (int)(h & 1);
}
