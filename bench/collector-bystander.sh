#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a recording costs the tasks it does not record (issue 17): a copy
# of bench/steady.c pinned to each CPU runs SECONDS (default 24); from
# second 7, `pgoprof record -F HZ -m stack -- sleep 10` records a command
# that only sleeps.  The drop of each copy's throughput per CPU-second in
# the middle of the recording (seconds 9-15) against before and after it
# (seconds 2-5 and 19-22) is what the recording took from a bystander.
# With sampling events on every CPU (pgoprof up to c764e47) every task
# took the interrupts; on the targets' threads, none.
#
# Usage: bench/collector-bystander.sh [-F HZ] [-r ROUNDS] BINDIR...
#   -F HZ      the rate (default 4999)
#   -r ROUNDS  rounds, each BINDIR once a round, interleaved (default 2)
#   BINDIR     where a pgoprof build is (pgoprof and pgoprof-record)
# Prints one line per copy: BINDIR round Hz-run cpu drop%.  Run it under the
# machine's lock: flock /tmp/pgoprof-heavy.lock bench/collector-bystander.sh ...
# Needs root, taskset, cc.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
HZ=4999 ROUNDS=2
while getopts F:r:h o; do
    case $o in
        F) HZ=$OPTARG ;; r) ROUNDS=$OPTARG ;;
        h) sed -n '3,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "collector-bystander: give one or more pgoprof build directories" >&2; exit 2; }
W=$REPO/bench/work/bystander
mkdir -p "$W"
[ -x "$W/steady" ] && [ "$W/steady" -nt "$HERE/steady.c" ] ||
    cc -std=c11 -O2 -o "$W/steady" "$HERE/steady.c"
for r in $(seq "$ROUNDS"); do
    for b in "$@"; do
        pids=
        for c in $(seq 0 $(($(nproc) - 1))); do
            taskset -c "$c" "$W/steady" 24 >"$W/cpu$c.txt" & pids="$pids $!"
        done
        sleep 7
        "$b/pgoprof" record -q -F "$HZ" -m stack -o "$W/x.raw" -- sleep 10
        # shellcheck disable=SC2086
        wait $pids
        hz=$("$b/pgoprof" show "$W/x.raw" | awk '$2 == "sample_freq" { print $4 }')
        for c in $(seq 0 $(($(nproc) - 1))); do
            awk -v b="$b" -v r="$r" -v c="$c" -v hz="$hz" 'NR > 1 {
                if (!t0) t0 = $1; s = $1 - t0
                if (s >= 9 && s <= 15) { w += $3; nw++ }
                else if ((s >= 2 && s <= 5) || (s >= 19 && s <= 22)) { o += $3; no++ }
            } END { printf "%s %d %s Hz cpu%d %.2f\n", b, r, hz, c, 100 * (1 - (w / nw) / (o / no)) }' "$W/cpu$c.txt"
        done
    done
done
