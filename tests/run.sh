#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run the tests: sh tests/run.sh [BUILD [long]].  BUILD (default build) is
# where 'make unit-tests' put the unit tests (BUILD/tests, built with ASan
# and UBSan).
#   (no mode)  make check: every unit test and tests/integration/*.sh;
#              logs, results.txt and times.txt in tests/out/.
#   long       make check-long: what is too long for make check, with
#              PGOPROF_TEST_LONG=1: the long cases of the unit tests that
#              have some (exhaustive sweeps, big programs) and
#              tests/long/*.sh; logs and the rest in tests/out/long/.
# Each test prints PASS/FAIL lines (SKIP where root or a tool is
# missing); the last line of this script is "N passed, N failed, N
# skipped".  times.txt: each test's wall time in seconds,
# "SECONDS NAME" in the order run, then the total.
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
MODE=${2:-check}
# The tests find the test tools of this tree there (tests/lib.sh).
BUILD=$(cd "$BUILD" && pwd) || exit 1
export BUILD
case $MODE in
check)	OUT=tests/out
	unset PGOPROF_TEST_LONG
	units=$(echo "$BUILD"/tests/test_*)
	scripts=$(ls tests/integration/*.sh) ;;
long)	OUT=tests/out/long
	PGOPROF_TEST_LONG=1; export PGOPROF_TEST_LONG
	units=$(for c in $(grep -l PGOPROF_TEST_LONG tests/unit/test_*.c); do
		echo "$BUILD/tests/$(basename "$c" .c)"; done)
	scripts=$(ls tests/long/*.sh) ;;
*)	echo "usage: sh tests/run.sh [BUILD [long]]" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
: >"$OUT/results.txt"
: >"$OUT/times.txt"

# Wall time in seconds with two decimals (/proc/uptime: no date +%N needed).
now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

run() { # NAME COMMAND...
	name=$1; shift
	t0=$(now)
	"$@" >"$OUT/$name.log" 2>"$OUT/$name.err"
	rc=$?
	printf '%8s %s\n' "$(elapsed "$t0" "$(now)")" "$name" >>"$OUT/times.txt"
	grep -E '^(PASS|FAIL|SKIP) ' "$OUT/$name.log" | sed "s|^\(....\) |\1 $name: |" | tee -a "$OUT/results.txt"
	# A test program that died without reporting is a failure too.
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$OUT/$name.log"; then
		echo "FAIL $name: exited with status $rc ($(tail -n 2 "$OUT/$name.err" | tr '\n' ' '))" |
			tee -a "$OUT/results.txt"
	fi
}

T0=$(now)
for t in $units; do
	run "$(basename "$t")" "$t"
done
for t in $scripts; do
	run "$(basename "$t" .sh)" sh "$t"
done
printf '%8s %s\n' "$(elapsed "$T0" "$(now)")" total >>"$OUT/times.txt"
passed=$(grep -c '^PASS ' "$OUT/results.txt")
failed=$(grep -c '^FAIL ' "$OUT/results.txt")
skipped=$(grep -c '^SKIP ' "$OUT/results.txt")
# SKIP: what this machine cannot run (no root, a tool missing), said by
# the test; never counted as passed.
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
