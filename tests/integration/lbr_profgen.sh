#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Branch records: the same synthesized LBR samples of the hot workload (a
# PIE that calls into libhot.so), converted by lbr_add (convert/lbr.c) and by
# llvm-profgen-16, give the same LLVM text profile, line for line.  The
# samples come from build/tests/test_lbr --gen (a random walk over the
# machine code; see tests/unit/test_lbr.c), as perf-script text for
# llvm-profgen and as a raw profile for pgoprof.
. "$(dirname "$0")/../lib.sh"

TEST_LBR=${TEST_LBR:-$TOP/build/tests/test_lbr}
PROFGEN=${PROFGEN:-/usr/lib/llvm-16/bin/llvm-profgen}
if [ ! -x "$TEST_LBR" ]; then
	fail lbr_profgen "build/tests/test_lbr is missing: run 'make unit-tests'"; exit 0
fi
if [ ! -x "$PROFGEN" ]; then
	fail lbr_profgen "llvm-profgen-16 is missing (apt-get install llvm-16)"; exit 0
fi
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
mkdir -p "$WORK/lbr" && cd "$WORK/lbr" || exit 1

check "synthesize branch records of hot" "$TEST_LBR" --gen "$WORK/hot" 5000 11 "$WORK/lbr"
check "llvm-profgen converts them" "$PROFGEN" --binary "$WORK/hot" --perfscript perf.txt \
	--output profgen.txt --format=text
check "lbr_add converts them" "$TEST_LBR" --convert "$WORK/hot" lbr.raw pgoprof.txt
check "hot_loop is in the profile" grep -q '^hot_loop:' pgoprof.txt
if cmp -s pgoprof.txt profgen.txt; then
	pass "same profile as llvm-profgen-16 ($(grep -c '^[^ ]' profgen.txt) functions, $(wc -l <profgen.txt) lines)"
else
	fail "same profile as llvm-profgen-16" "$(diff pgoprof.txt profgen.txt | head -n 4 | tr '\n' ' ')"
fi
check "llvm-profdata reads it" "$PROFDATA" show --sample pgoprof.txt
"$CLANG" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=pgoprof.txt -S -emit-llvm \
	-o hot.ll "$TOP/tests/workloads/hot.c" 2>clang.err
check "clang-16 applies it" sh -c "grep -q function_entry_count hot.ll && ! grep -q warning clang.err"
