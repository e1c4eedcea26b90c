#!/bin/sh
# Run every test: the unit tests (built by 'make unit-tests' with ASan and
# UBSan, in BUILD/tests: argument 1, default build) and the integration
# scripts.  Each prints PASS/FAIL lines; the last
# line of this script is "N passed, N failed".  Logs: tests/out/; each
# script's wall time in seconds: tests/out/times.txt ("SECONDS NAME", in
# the order run, then the total).
cd "$(dirname "$0")/.." || exit 1
OUT=tests/out
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
	grep -E '^(PASS|FAIL) ' "$OUT/$name.log" | sed "s|^\(....\) |\1 $name: |" | tee -a "$OUT/results.txt"
	# A test program that died without reporting is a failure too.
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$OUT/$name.log"; then
		echo "FAIL $name: exited with status $rc ($(tail -n 2 "$OUT/$name.err" | tr '\n' ' '))" |
			tee -a "$OUT/results.txt"
	fi
}

T0=$(now)
BUILD=${1:-build}
for t in "$BUILD"/tests/test_*; do
	run "$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	run "$(basename "$t" .sh)" sh "$t"
done
printf '%8s %s\n' "$(elapsed "$T0" "$(now)")" total >>"$OUT/times.txt"
passed=$(grep -c '^PASS ' "$OUT/results.txt")
failed=$(grep -c '^FAIL ' "$OUT/results.txt")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
