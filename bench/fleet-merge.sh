#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What merging a fleet's raw profiles costs: N hosts' profiles made by
# build/bench/fleetgen from one real recording (each count drawn again,
# a tenth of the addresses host-specific), merged by 'pgoprof merge' in
# one command; wall time, peak RSS and the merged profile's size per N.
# Writes bench/results/fleet-merge.md.  docs/fleet.md reads the figures.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    cat <<USAGE
Usage: $0 [-n N[,N...]] [--work DIR] [-o FILE] TEMPLATE.raw

  -n N,...      fleet sizes (default 10,100,1000,10000)
  --work DIR    where the hosts' profiles go (default bench/work/fleet);
                the largest N of them are made once and reused
  -o FILE       the Markdown (default bench/results/fleet-merge.md; - stdout)
USAGE
}

sizes=10,100,1000,10000 work=$REPO/bench/work/fleet out=$REPO/bench/results/fleet-merge.md
while [ $# -gt 0 ]; do
    case $1 in
        -n) sizes=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        -o) out=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
tmpl=$1
IFS=, read -ra NS <<<"$sizes"
max=0
for n in "${NS[@]}"; do [ "$n" -gt "$max" ] && max=$n; done

make -C "$REPO" -s all build/bench/fleetgen >/dev/null
key="$(md5sum <"$tmpl" | cut -c1-32) $max"
if [ "$(cat "$work/key" 2>/dev/null)" != "$key" ]; then
    echo "fleet-merge: making $max hosts' profiles in $work" >&2
    rm -rf "$work" && mkdir -p "$work/hosts"
    "$REPO/build/bench/fleetgen" -n "$max" -o "$work/hosts" "$tmpl"
    echo "$key" >"$work/key"
fi

row() { # N: "| N | input MB | s | MB RSS | out MB | ms per host |"
    local n=$1 t all=("$work"/hosts/*.raw)
    local files=("${all[@]:0:$n}")
    t=$( { /usr/bin/time -f '%e %M' "$REPO/pgoprof" merge -o "$work/merged-$n.raw" "${files[@]}" 2>&1 >/dev/null; } | tail -n 1)
    awk -v n="$n" -v t="$t" -v in_b="$(du -cb "${files[@]}" | tail -n 1 | cut -f1)" -v out_b="$(wc -c <"$work/merged-$n.raw")" \
        'BEGIN { split(t, a, " "); printf "| %d | %.1f | %.2f | %.0f | %.2f | %.1f |\n", n, in_b / 1e6, a[1], a[2] / 1024, out_b / 1e6, a[1] / n * 1000 }'
}

{
    echo "## Merging a fleet's raw profiles ($(date -u +%Y-%m-%d), pgoprof $(git -C "$REPO" rev-parse --short HEAD))"
    echo
    echo "Command: \`bench/fleet-merge.sh -n $sizes $(basename "$tmpl")\`; template: $(wc -c <"$tmpl") bytes,"
    echo "$("$REPO/pgoprof" show "$tmpl" | awk '$1 == "counter" && $2 == "samples.taken" { s = $4 } $1 == "counter" && $2 == "duration_ms" { d = $4 } $1 == "object" { o++ } $1 == "stack" { k++ } END { printf "%d samples in %.0f s, %d objects, %d stacks", s, d / 1000, o, k }')."
    echo "Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo). One \`pgoprof merge -o OUT FILE...\` per row, single-threaded."
    echo
    echo "| hosts | input (MB) | wall (s) | peak RSS (MB) | merged (MB) | ms per host |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for n in "${NS[@]}"; do row "$n"; done
} >"$out.tmp"
if [ "$out" = - ]; then cat "$out.tmp"; rm -f "$out.tmp"; else mv "$out.tmp" "$out"; cat "$out"; fi
