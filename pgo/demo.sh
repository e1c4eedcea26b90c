#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The main job on the bundled workload (pgo/examples/wordfreq.c), end to
# end: build for profiling, record with pgoprof, convert, rebuild with the
# profile, and validate: both builds timed interleaved, and their
# instructions counted under cachegrind.  Output in build/demo/.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/demo
CC=${CC_PGO:-clang-16}
RUNS=${RUNS:-5}
SRC=$TOP/pgo/examples/wordfreq.c
PGOPROF=$TOP/pgoprof

[ "$(id -u)" -eq 0 ] || { echo "demo: recording needs root (BPF): run 'sudo make demo'" >&2; exit 1; }
mkdir -p "$OUT" && cd "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "1. baseline build: $CC -O2 -g"
$CC -O2 -g -o wordfreq.base "$SRC"

step "2. profiling build: + -fdebug-info-for-profiling and frame pointers"
$CC -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -o wordfreq.sampled "$SRC"

step "3. record: pgoprof record -F 9999 -o wordfreq.raw -- ./wordfreq.sampled"
"$PGOPROF" record -F 9999 -o wordfreq.raw -- ./wordfreq.sampled >/dev/null

# pgo/pgo.mk's defaults for clang (docs/pgo.md, bench/results/ablation.md)
CONV_OPTS="--estimator sum --call-targets calls"
step "4. convert: pgoprof convert wordfreq.raw --binary wordfreq.sampled $CONV_OPTS -o wordfreq.prof"
"$PGOPROF" convert wordfreq.raw --binary wordfreq.sampled $CONV_OPTS -o wordfreq.prof
echo "top functions (name:total samples:head estimate):"
"$PGOPROF" show wordfreq.prof | grep -v '^ ' | head -n 5 | sed 's/^/  /'

step "5. PGO build: $CC -O2 -g -fprofile-sample-use=wordfreq.prof -fsample-profile-use-profi"
$CC -O2 -g -fprofile-sample-use=wordfreq.prof -fsample-profile-use-profi -o wordfreq.pgo "$SRC"

step "6. validate: $RUNS interleaved timed pairs, and instructions executed under cachegrind"
# Wall time on a shared or virtual machine is noisy: the report gives the
# confidence interval of the time ratio, and when it contains 1 the
# deterministic proxy (cachegrind's Ir of a reduced run) decides instead
# (pgo-validate's gate auto).
rc=0
bash "$TOP/pgo/validate.sh" -q -n "$RUNS" -o validate \
	-p '"$PGO_BINARY" 1 >/dev/null' \
	--baseline ./wordfreq.base --candidate ./wordfreq.pgo -- '"$PGO_BINARY" 8 >/dev/null' || rc=$?
[ "$rc" -le 1 ] || exit "$rc"

printf '\nfiles: %s\n' "$OUT"
