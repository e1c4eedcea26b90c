#!/bin/bash
# run.sh WL [conv.py opts]: probe build, exact record, probe profile, PGO build, Ir
set -e
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PGOPROF=$REPO/pgoprof
die() { echo "probe: $*" >&2; exit 1; }
step() { echo "== probe $(date +%T): $*" >&2; }
WROOT=$REPO/bench/work/quality
WL=$1; shift; CC=clang; CCBIN=clang-16; jobs=1
W=$WROOT/$WL-$CC
TAG=${TAG:-probe}
. $REPO/bench/workloads.sh
mkdir -p $W/bin $W/prof $W/logs
build pex "" -O2 -g -gdwarf-4 -fpseudo-probe-for-profiling
raw=$W/prof/pex.raw
if [ ! -s $raw ] || [ "$(cat $raw.key 2>/dev/null)" != "$(md5 $W/bin/pex)" ]; then
  wl_train_cmd $W/bin/pex
  step "record --exact"
  $PGOPROF record --exact -o $raw -- "${TRAIN[@]}" > $W/logs/record-pex.log 2>&1
  md5 $W/bin/pex > $raw.key
fi
# CONV=pgoprof: pgoprof convert (extbinary, --probes auto) instead of the prototype
if [ "${CONV:-proto}" = pgoprof ]; then
  $PGOPROF convert $raw --binary $W/bin/pex "$@" -o $W/prof/$TAG.txt
else
  python3 $REPO/bench/results/ceiling-probes-proto.py $raw $W/bin/pex $W/prof/$TAG.txt "$@"
fi
build pgo-$TAG "$(md5 $W/prof/$TAG.txt)" -O2 -g -fpseudo-probe-for-profiling -fprofile-sample-use=$W/prof/$TAG.txt ${USEX:--fsample-profile-use-profi}
measure_ir pgo-$TAG
irb=$(head -n1 $W/bin/base.ir); ir=$(head -n1 $W/bin/pgo-$TAG.ir)
ire=$(head -n1 $W/bin/pgo-exact.ir 2>/dev/null || echo 0)
echo "$WL $TAG: Ir $ir base $irb ($(awk -v a=$ir -v b=$irb 'BEGIN{printf "%+.2f%%", (a/b-1)*100}')) exact-line $ire ($(awk -v a=$ire -v b=$irb 'BEGIN{printf "%+.2f%%", (a/b-1)*100}'))"
