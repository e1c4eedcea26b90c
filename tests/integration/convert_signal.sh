#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof convert follows the profile's signal (issue 28): with
# --estimator auto (the default) it takes the estimator measured best for
# what the samples measure (META signal), says which and why in one line,
# and warns when the binary got too few samples, with the recorder's
# lowered rate when META says so.  The profiles: an exact-count recording
# of lbrsynth's dispatch program (callgrind), and execution-proportional
# samples drawn from it by build/bench/expsample, some relabelled as time
# samples (--meta) as pgoprof-record writes cpu-clock recordings.
. "$(dirname "$0")/../lib.sh"

need_tool convert_signal valgrind valgrind || exit 0
need_tool convert_signal "$CLANG" clang-16 || exit 0
need_expsample convert_signal || exit 0
D=$WORK/convert_signal
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
$CLANG -O2 -g -gdwarf-4 -fdebug-info-for-profiling -o dispatch \
	"$TOP/tests/lbrsynth/progs/dispatch.c" || { fail "convert_signal: build"; exit 0; }
"$PGOPROF" record --exact -q -o exact.raw -- ./dispatch 20000 >/dev/null 2>&1 ||
	{ fail "convert_signal: record --exact"; exit 0; }
"$XS" exact.raw -n 2000 --seed 1 -o few.raw 2>/dev/null &&
"$XS" exact.raw -n 200000 --seed 1 -o many.raw 2>/dev/null &&
"$XS" exact.raw -n 2000 --seed 1 -o time.raw --meta signal=time --meta event=cpu-clock \
	--meta sample_freq=2348 --meta sample_freq_requested=9999 2>/dev/null &&
"$XS" exact.raw -n 200000 --seed 1 -o timemany.raw --meta signal=time --meta event=cpu-clock 2>/dev/null &&
"$XS" exact.raw -n 2000 --seed 1 -o unknown.raw --meta signal=none --meta event=r00c0 2>/dev/null ||
	{ fail "convert_signal: expsample"; exit 0; }

# conv NAME RAW [OPTIONS]: NAME.txt (LLVM text) and NAME.err (stderr)
conv() {
	_n=$1 _r=$2; shift 2
	"$PGOPROF" convert "$_r" --binary dispatch -f llvm-text -o "$_n.txt" "$@" 2>"$_n.err"
}
conv few few.raw
conv few-block few.raw --estimator block
conv few-sum few.raw --estimator sum
conv many many.raw
conv time time.raw
conv time-sum time.raw --estimator sum
conv time-mean time.raw --estimator mean
conv timemany timemany.raw
conv unknown unknown.raw
conv exact exact.raw
conv few-quiet few.raw --min-samples 0

check "convert_signal: execution samples: the line says block and why" \
	grep -qx 'pgoprof convert: estimator block: samples proportional to executions: a line counts as its busiest basic block (event instructions)' few.err
check "convert_signal: execution samples: auto gives block's profile, not sum's" sh -c \
	'cmp -s few.txt few-block.txt && ! cmp -s few.txt few-sum.txt'
check "convert_signal: time samples: the line says sum and why" \
	grep -qx 'pgoprof convert: estimator sum: time samples: a line.s samples, as measured best for them (event cpu-clock)' time.err
check "convert_signal: time samples: auto gives sum's profile, not mean's" sh -c \
	'cmp -s time.txt time-sum.txt && ! cmp -s time.txt time-mean.txt'
check "convert_signal: unknown signal: mean, said so" sh -c \
	"grep -q '^pgoprof convert: estimator mean: the profile does not say what its samples measure' unknown.err"
check "convert_signal: exact counts: no estimator, said so; no sample warning" sh -c \
	"grep -qx 'pgoprof convert: no estimator: exact counts: each range.s count is its executions' exact.err &&
	 ! grep -q 'too few' exact.err"
check "convert_signal: an explicit --estimator wins, without the line" sh -c \
	"! grep -q 'estimator' few-sum.err"
check "convert_signal: 2,000 execution samples: too few, what to do" sh -c \
	"grep -q '^pgoprof convert: warning: dispatch has only [0-9]* execution samples (fewer than 50000, --min-samples): too few to trust' few.err &&
	 grep -q 'a longer training run, at a higher rate (-F), or several runs combined with .pgoprof merge.' few.err"
check "convert_signal: 2,000 time samples at a lowered rate: said in the warning" \
	grep -q "^pgoprof convert: warning: dispatch has only [0-9]* time samples .*; recorded at 2348 Hz of the 9999 Hz asked for (pgoprof-record lowered its rate under load); record a longer" time.err
check "convert_signal: 200,000 samples: no warning" sh -c \
	"grep -q 'samples of dispatch' many.err && ! grep -q 'too few' many.err timemany.err"
check "convert_signal: --min-samples 0: no warning" sh -c \
	"grep -q 'samples of dispatch' few-quiet.err && ! grep -q 'too few' few-quiet.err"
