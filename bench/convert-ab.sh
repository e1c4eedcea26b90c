#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Before and after: two pgoprof builds on the same inputs, interleaved.
# `pgoprof import` of a branch-record and a call-chain perf.data
# (build/bench/lbrgen) and `pgoprof convert` of the raw profiles they
# give; wall time, CPU time and peak RSS (/usr/bin/time -v), medians, and
# a check that both builds write the same bytes.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-n RUNS] [-s LBR_SAMPLES] [-S STACK_SAMPLES] [-o OUT.md] BEFORE AFTER

  BEFORE, AFTER   two pgoprof executables, e.g. one built from an older
                  commit:  git worktree add /tmp/old REV && make -C /tmp/old pgoprof
  -n RUNS         interleaved rounds (default 7; order alternates)
  -s N            branch-record samples (default 1000000)
  -S N            call-chain samples (default 10000000)
  -o OUT          Markdown table (default: stdout)

Inputs (cached in bench/work/conv/): speedtest1 as bench/convert-speed.sh
builds it, lbrgen perf.data files, and the raw profiles AFTER imports from
them.  A step whose output differs between the two builds is marked.
USAGE
}

RUNS=7 NL=1000000 NS=10000000 OUT=-
while getopts n:s:S:o:h o; do
    case $o in
        n) RUNS=$OPTARG ;; s) NL=$OPTARG ;; S) NS=$OPTARG ;; o) OUT=$OPTARG ;;
        h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { usage >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2")
die() { echo "convert-ab: $*" >&2; exit 1; }
[ -x "$OLD" ] && [ -x "$NEW" ] || die "$1 and $2 must be pgoprof executables"
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
W=$REPO/bench/work/conv B=$REPO/bench/work/conv/speedtest1
mkdir -p "$W/ab"
[ -x "$B" ] || "$HERE/build-speedtest.sh" "$B" clang-16 -O2 -g -gdwarf-4 \
    -fdebug-info-for-profiling -fno-omit-frame-pointer >&2
make -s -C "$REPO" build/bench/lbrgen >&2
L=$W/ab/lbr-$NL.perf.data S=$W/ab/stack-$NS.perf.data
[ -s "$L" ] || "$REPO/build/bench/lbrgen" -q -n "$NL" -s 1 -o "$L" "$B"
[ -s "$S" ] || "$REPO/build/bench/lbrgen" -q --callchain -n "$NS" -s 1 -o "$S" "$B"
"$NEW" import -q "$L" -o "$W/ab/lbr.raw"
"$NEW" import -q "$S" -o "$W/ab/stack.raw"

# name|arguments (OUT is replaced by the output file)
CASES=("import, branch records $NL|import -q $L -o OUT"
       "import, call chains $NS|import -q $S -o OUT"
       "convert, branch records|convert -q $W/ab/lbr.raw --binary $B -f llvm-text -o OUT"
       "convert, branch records, afdo|convert -q $W/ab/lbr.raw --binary $B -f afdo -o OUT"
       "convert, call chains|convert -q $W/ab/stack.raw --binary $B -f llvm-text -o OUT"
       "convert, call chains, extbinary|convert -q $W/ab/stack.raw --binary $B -o OUT")
R=$W/ab/results.txt
: >"$R"
run() { # WHICH CASE ROUND
    local bin=$OLD c=${CASES[$2]} args out=$W/ab/out-$1-$2
    [ "$1" = new ] && bin=$NEW
    args=${c#*|}
    /usr/bin/time -f '%e %U %S %M' -o "$W/ab/time" "$bin" ${args//OUT/$out} >/dev/null 2>&1 ||
        die "failed: $bin ${args//OUT/$out}"
    echo "$1 $2 $3 $(cat "$W/ab/time")" >>"$R"
}
for ((r = 0; r < RUNS; r++)); do
    echo "convert-ab: round $((r + 1)) of $RUNS" >&2
    for ((c = 0; c < ${#CASES[@]}; c++)); do
        if ((r % 2)); then run new "$c" "$r"; run old "$c" "$r"; else run old "$c" "$r"; run new "$c" "$r"; fi
    done
done
med() { awk -v w="$1" -v c="$2" -v f="$3" '$1 == w && $2 == c { print $f }' "$R" | median; }
cpu() { awk -v w="$1" -v c="$2" '$1 == w && $2 == c { print $5 + $6 }' "$R" | median; }
{
echo "| step | before wall s | after wall s | speed-up | before CPU s | after CPU s | before peak RSS MB | after peak RSS MB | same output |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for ((c = 0; c < ${#CASES[@]}; c++)); do
    same=yes
    cmp -s "$W/ab/out-old-$c" "$W/ab/out-new-$c" || same=NO
    awk -v n="${CASES[$c]%%|*}" -v ow="$(med old "$c" 4)" -v nw="$(med new "$c" 4)" \
        -v oc="$(cpu old "$c")" -v nc="$(cpu new "$c")" -v om="$(med old "$c" 7)" \
        -v nm="$(med new "$c" 7)" -v s="$same" 'BEGIN {
        printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.0f | %.0f | %s |\n",
               n, ow, nw, ow / nw, oc, nc, om / 1024, nm / 1024, s }'
done
echo
echo "$RUNS interleaved rounds (order alternating), medians; $(nproc) CPUs shared with other jobs; $(date -u +%F)."
echo "Before: $OLD ($("$OLD" --version 2>/dev/null | head -1)); after: $NEW ($("$NEW" --version 2>/dev/null | head -1))."
} >"$W/ab/table.md"
if [ "$OUT" = - ]; then cat "$W/ab/table.md"; else cp "$W/ab/table.md" "$OUT"; cat "$OUT"; fi
