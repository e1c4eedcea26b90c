#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Exact counts of an x86 REP string instruction (docs/convert.md,
# "Exact counts"): the engines count each of its iterations, the
# compiler wants how often it ran.  clear() runs rep stosq of 48 words,
# 1,000 times: its line is written with 1,000, the count of the
# instruction before it, not with the ~48,000 iterations, and convert
# says how many it left out.  In jump_in() a jump goes to the rep
# stosq, so the instruction before it does not bound its entries: it
# keeps what the engine counted.
. "$(dirname "$0")/../lib.sh"

GCC=${GCC:-gcc}
need_tool rep_string "$GCC" gcc || exit 0
case $(uname -m) in
x86_64) ;;
*) skip "rep_string: REP string instructions are x86" && exit 0 ;;
esac
D=$WORK/rep_string
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
cat >r.c <<'C'
#include <stdio.h>
unsigned long buf[64];
__attribute__((noinline)) void clear(unsigned long n)
{
	unsigned long *d = buf;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(0UL) : "memory");
}
__attribute__((noinline)) void jump_in(unsigned long n)
{
	unsigned long *d = buf;
	__asm__ volatile("jmp 1f\n1:\trep stosq" : "+D"(d), "+c"(n) : "a"(0UL) : "memory");
}
int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 999 + argc; i++) {
		clear(48);
		jump_in(48);
	}
	printf("%lu\n", buf[0]);
	return 0;
}
C
"$GCC" -O2 -g -o r r.c || { fail "rep_string: build"; exit 0; }
"$PGOPROF" record --exact -q -o exact.raw -- ./r >/dev/null 2>record.err ||
	{ fail "rep_string: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$PGOPROF" convert exact.raw --binary r -f llvm-text -o exact.txt 2>convert.err ||
	{ fail "rep_string: convert" "$(tail -n 2 convert.err | tr '\n' ' ')"; exit 0; }
# The asm statements are lines 6 and 11, 3 lines after their function's.
clear=$(awk '/^clear:/ { f = 1; next } /^[^ ]/ { f = 0 } f && $1 == "3:" { print $2 }' exact.txt)
jump=$(awk '/^jump_in:/ { f = 1; next } /^[^ ]/ { f = 0 } f && $1 == "3:" { print $2 }' exact.txt)
check "rep_string: clear's rep stosq counts its 1,000 executions (${clear:-none})" \
	test "${clear:-0}" = 1000
check "rep_string: a rep stosq that a jump goes to keeps its iterations (${jump:-none})" \
	test "${jump:-0}" -ge 48000
check "rep_string: convert says it counted one REP string instruction once per execution" \
	grep -q "^pgoprof convert:   1 REP string instructions counted once per execution, not per iteration ([0-9]* iterations left out)$" convert.err
