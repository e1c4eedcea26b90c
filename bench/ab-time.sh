#!/bin/bash
# Interleaved A/B wall-clock timing of two commands.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-n RUNS] [-w WARMUP] -- BASELINE_CMD... -- CANDIDATE_CMD...

Runs baseline and candidate alternately (A B A B ...) RUNS times each
(default 10), after WARMUP untimed pairs (default 1), and prints a Markdown
table of median/min/max wall time plus the candidate/baseline ratio of
medians. Command output goes to a log that is shown only if a command fails.
The baseline command cannot contain a literal '--'; wrap it in
sh -c '...' if it needs one. Exits non-zero if any run fails.

Example:
    $0 -n 5 -- ./speedtest1.base --memdb -- ./speedtest1.pgo --memdb
USAGE
}

die() { echo "ab-time: $*" >&2; exit 2; }

runs=10 warmup=1
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -n) [ $# -ge 2 ] || die "-n needs a number"; runs=$2; shift 2 ;;
        -w) [ $# -ge 2 ] || die "-w needs a number"; warmup=$2; shift 2 ;;
        --) shift; break ;;
        *) usage >&2; die "unexpected '$1'; put '--' before the baseline command" ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$runs'"
[[ $warmup =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer, got '$warmup'"

base=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do base+=("$1"); shift; done
[ $# -gt 0 ] || die "missing '--' between baseline and candidate commands (see --help)"
shift
cand=("$@")
[ ${#base[@]} -gt 0 ] || die "empty baseline command (see --help)"
[ ${#cand[@]} -gt 0 ] || die "empty candidate command (see --help)"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Prints the wall time of one run in seconds; aborts the script if it fails.
time_one() {
    local t0 t1 rc=0
    t0=$EPOCHREALTIME
    "$@" >"$log" 2>&1 || rc=$?
    t1=$EPOCHREALTIME
    if [ $rc -ne 0 ]; then
        { echo "ab-time: command failed with exit code $rc: $*"; tail -n 20 "$log"; } >&2
        exit 1
    fi
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

for ((i = 0; i < warmup; i++)); do
    time_one "${base[@]}" >/dev/null
    time_one "${cand[@]}" >/dev/null
done

tb=() tc=()
for ((i = 1; i <= runs; i++)); do
    tb+=("$(time_one "${base[@]}")")
    tc+=("$(time_one "${cand[@]}")")
    echo "run $i/$runs: baseline ${tb[-1]}s candidate ${tc[-1]}s" >&2
done

# "median min max" of the given numbers.
stats() {
    printf '%s\n' "$@" | sort -g | awk '
        { v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'
}
read -r mb nb xb <<<"$(stats "${tb[@]}")"
read -r mc nc xc <<<"$(stats "${tc[@]}")"

mdcmd() { local s="$*"; printf "\`%s\`" "${s//|/\\|}"; }

echo
echo "| | command | runs | median s | min s | max s |"
echo "|---|---|---:|---:|---:|---:|"
echo "| baseline | $(mdcmd "${base[@]}") | $runs | $mb | $nb | $xb |"
echo "| candidate | $(mdcmd "${cand[@]}") | $runs | $mc | $nc | $xc |"
echo
awk -v b="$mb" -v c="$mc" 'BEGIN {
    printf "ratio of medians (candidate/baseline): %.4f\n", c / b
    printf "speedup (baseline/candidate - 1): %+.2f%%\n", (b / c - 1) * 100 }'
