/* SPDX-License-Identifier: GPL-2.0-only */
/* Most of its time in the kernel (getppid in a loop): the samples taken
 * there count as unattributed.kernel, but their user stacks must still
 * credit the call site in do_syscalls. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) long do_syscalls(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += getppid();
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%ld\n", do_syscalls(argc > 1 ? 300000 : 3000000));
	return 0;
}
