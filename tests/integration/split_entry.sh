#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The entry of a function that GCC split into a hot and a cold part
# (docs/convert.md, section 3): work() calls a cold function on a path
# that never runs, so gcc -O2 moves that path to work.cold, in
# .text.unlikely before work, and describes work by DW_AT_ranges alone.
# The entry is work's own symbol, not the lowest address:
#  - exact counts: work's HEAD is its 100,001 calls, and main's call site
#    has work as a call target (a call to the lowest address would not be
#    a call: HEAD 0 and no target);
#  - execution samples (drawn, seeded): work's HEAD is non-zero.
. "$(dirname "$0")/../lib.sh"

GCC=${GCC:-gcc}
need_tool split_entry "$GCC" gcc || exit 0
D=$WORK/split_entry
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
cat >c.c <<'C'
#include <stdio.h>
#include <stdlib.h>
volatile unsigned sink;
__attribute__((cold, noinline, noreturn)) void fail(const char *what, unsigned i)
{
	fprintf(stderr, "%s %u\n", what, i);
	exit(3);
}
__attribute__((noinline)) unsigned work(unsigned i)
{
	if (i == 0xfffffffeu) {
		sink = i * 3;
		fail("unexpected", sink ^ i);
	}
	return i * 2654435761u >> 3;
}
int main(int argc, char **argv)
{
	unsigned s = 0;

	(void)argv;
	for (unsigned i = 0; i < 100000 + (unsigned)argc; i++)
		s += work(i);
	printf("%u\n", s);
	return 0;
}
C
"$GCC" -O2 -g -o c c.c || { fail "split_entry: build"; exit 0; }
cold=$(nm c | awk '$3 == "work.cold" { print $1 }') hot=$(nm c | awk '$3 == "work" { print $1 }')
check "split_entry: gcc split work() and put its cold part first (work.cold ${cold:-none}, work ${hot:-none})" \
	test -n "$cold" -a -n "$hot" -a "$((0x${cold:-0}))" -lt "$((0x${hot:-0}))"
"$PGOPROF" record --exact -q -o exact.raw -- ./c >/dev/null 2>record.err ||
	{ fail "split_entry: record --exact" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$PGOPROF" convert -q exact.raw --binary c -f llvm-text -o exact.txt ||
	{ fail "split_entry: convert"; exit 0; }
head=$(awk -F: '$1 == "work" { print $3 }' exact.txt)
check "split_entry: exact counts: work's HEAD is its calls (${head:-none})" test "$head" = 100001
check "split_entry: exact counts: main calls work" \
	grep -q "^ [0-9.]*: 100001 work:100001$" exact.txt
if need_expsample split_entry; then
	"$XS" exact.raw -n 20000 --seed 1 -o ip.raw 2>/dev/null &&
	"$PGOPROF" convert -q ip.raw --binary c -f llvm-text -o ip.txt ||
		{ fail "split_entry: expsample or convert"; exit 0; }
	head=$(awk -F: '$1 == "work" { print $3 }' ip.txt)
	check "split_entry: execution samples: work has a HEAD (${head:-none})" \
		test "${head:-0}" -gt 0
fi
