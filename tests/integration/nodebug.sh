#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A binary without debug info for its own code (issue 31, item 7): main.c
# built without -g, helper.c with, so that the binary has DWARF and
# convert opens it.  convert names the functions that have samples but no
# debug info (work) and says the fix (build with -g), instead of taking
# them for PLT and startup code:
# - IP samples (perf script at work's address, imported): all dropped,
#   work named, and a warning that the profile is empty and why; no
#   profile is written (status 1), as none of the samples was attributed;
# - exact counts (record --exact, ranges): work and main named with their
#   executions, startup code said to be expected.
. "$(dirname "$0")/../lib.sh"

D=$WORK/nodebug
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
cat >main.c <<'SRC'
#include <stdlib.h>
long helper(long);
volatile long sink;
__attribute__((noinline)) long work(long n)
{
	long h = 1;
	for (long i = 0; i < n; i++)
		h = h * 31 + i;
	return h;
}
int main(int argc, char **argv)
{
	sink = work(argc > 1 ? atol(argv[1]) : 1000) + helper(3);
	return 0;
}
SRC
echo 'long helper(long x) { return x * 2; }' >helper.c
if ! $CLANG -O2 -c main.c -o main.o || ! $CLANG -O2 -g -c helper.c -o helper.o ||
   ! $CLANG -o nd main.o helper.o; then
	fail "nodebug: build nd"; exit 0
fi

# 20 IP samples in work, as perf script text.
bid=$(readelf -n nd | awk '/Build ID/ { print $3 }')
set -- $(readelf -lW nd | awk '$1 == "LOAD" && /R E/ { print $2, $3 }')
off=$1 va=$2 w=$(nm nd | awk '$3 == "work" { print $1 }')
{
	printf 'nd 100/100 10.000100: PERF_RECORD_MMAP2 100/100: [0x%x(0x1000) @ %s <%s>]: r-xp %s\n' \
		$((0x555555554000 + va)) "$off" "$bid" "$D/nd"
	i=0
	while [ $i -lt 20 ]; do
		printf 'nd 100/100 10.%06d:     250000 cpu-clock: \n\t%16x x (y)\n\n' \
			$((1000 + i)) $((0x555555554000 + 0x$w + 4))
		i=$((i + 1))
	done
} >nd.txt
"$PGOPROF" import -q -o ip.raw nd.txt 2>import.err
"$PGOPROF" convert ip.raw --binary nd -o ip.prof 2>ip.err; rc=$?
check "IP samples: work named as having samples but no debug info, build with -g; no profile written (rc=$rc)" sh -c \
	"test $rc = 1 && ! test -e ip.prof && grep -q '20 samples in 1 function of nd that has symbols but no debug info: work 20; build it with -g' ip.err"
check "IP samples: no profile, and why" sh -c \
	"grep -q \"note: the samples of nd's own code are in functions without debug info\" ip.err && grep -q 'no sample of nd could be given a function and a line (the reasons above): no profile written' ip.err"
check "IP samples: not blamed on PLT and startup code" sh -c "! grep -q 'PLT' ip.err"

if ! command -v valgrind >/dev/null; then
	skip "nodebug exact" "valgrind is not installed (make deps installs it)"; exit 0
fi
"$PGOPROF" record --exact -q -o nd.raw -- ./nd 5000 2>rec.err
"$PGOPROF" convert nd.raw --binary nd -o nd.prof 2>nd.err; rc=$?
check "exact counts: work and main named with their executions, build with -g" sh -c \
	"test $rc = 0 && grep -q 'executions in 2 functions of nd that have symbols but no debug info: work [0-9]\{4,\}, main [0-9]*; build them with -g' nd.err"
check "exact counts: startup code said to be expected" \
	grep -q 'executions in startup code and PLT stubs (expected' nd.err
