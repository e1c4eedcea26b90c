#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-long: every fuzz target of tests/fuzz/fuzz.mk (FUZZ_TARGETS)
# runs through tests/fuzz/run.sh, on its corpus (made by seeds.sh when
# empty) and its regression inputs.  One PASS line per target that ran
# without a crash, FAIL with the crash (input in build/fuzz/artifacts/,
# libFuzzer's seed in build/fuzz/logs/); SKIP without a clang that links
# libFuzzer.
#
# How long: long enough to find issue 27's findings 1 and 8 again if they
# came back in another form (the same bug is found at once: its input is
# in tests/fuzz/regress/).  Measured with each bug put back, from the seed
# corpus alone, a run per libFuzzer -seed (2-CPU VM, load average 4 to 7):
#  - fuzz_callgrind (use-after-free of a redefined name): 8 seeds of 8
#    found it, after 126, 613, 1075, 1159, 3318, 5475, 7607 and 14720
#    executions (2 to 52 s; 130 to 280 executions a second): 60000 runs
#    miss a mean of 4300 with odds of e^-14.
#  - fuzz_raw (half-read count, 64 GiB calloc): rare.  From the seeds
#    of before the small ones seeds.sh now makes: 2 finds in 3.55 M
#    executions over 6 runs (139 k, 488 k; 4 runs of 0.59 to 0.92 M found
#    nothing), a mean of about 1.8 M; with them, 2 runs of 2 (20 k,
#    985 k).  6 M runs miss a mean of 1.8 M with odds of 1 in 30 (about
#    37 minutes at 2700 executions a second).
# MAXSECS caps a target's time (a slow machine runs fewer).  The other
# targets: FUZZ_LONG_SECS seconds each (default 60).
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1
LOG=$OUT/fuzz_long
mkdir -p "$LOG"

targets=$(make -s --no-print-directory -f tests/fuzz/fuzz.mk fuzz-targets)
for t in $targets; do
	case $t in
	callgrind) runs=60000 maxsecs=1200 ;;
	raw) runs=6000000 maxsecs=3000 ;;
	*) runs=-1 maxsecs=${FUZZ_LONG_SECS:-60} ;;
	esac
	FUZZ_FLAGS="-runs=$runs" sh tests/fuzz/run.sh "$maxsecs" "$t" >"$LOG/$t.out" 2>"$LOG/$t.err"
	rc=$?
	line=$(grep "^fuzz_$t: " "$LOG/$t.out")
	if [ $rc -eq 2 ] && grep -q 'no clang with libFuzzer' "$LOG/$t.err"; then
		skip "fuzz_$t" "$(tail -n 1 "$LOG/$t.err")"
	elif [ $rc -eq 0 ] && [ -n "$line" ]; then
		pass "$line"
	else
		fail "fuzz_$t" "${line:-$(tail -n 2 "$LOG/$t.err" | tr '\n' ' ')}"
	fi
done
