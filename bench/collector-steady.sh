#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Collector overhead in steady state (issue 17): a CPU-bound workload
# (bench/steady.c) runs SECONDS (default 60) and prints its own throughput
# (iterations/s) once a second; a collector is attached with -p for the
# middle ATTACH seconds (default 30).  The throughput inside the attached
# window (its first 2 s and last 1 s left out: start-up and teardown) is
# compared with the unattached seconds of the same run (before and after,
# the workload's first 3 s and the second after the collector exits left
# out), and with runs that had nothing attached ("none", same schedule).
#
# Usage: bench/collector-steady.sh [-c CONFIGS] [-r ROUNDS] [-l LABEL]
#            [-b BINDIR] [-s SECONDS] [-A ATTACH] [-t] [-o OUT.md]
#
#   -c CONFIGS  comma-separated cells: none, pgoprof-fp@HZ,
#               pgoprof-dwarf@HZ, perf-g@HZ, perf-dwarf@HZ, perf-ip@HZ
#               (perf record without stacks: what the sampling interrupt
#               alone costs) (default: none and the four collectors with
#               stacks at 99, 999 and 4999 Hz)
#   -r ROUNDS   rounds (default 1); a round runs every cell once, in an
#               order rotated from round to round; results are appended,
#               so a long series is run as several locked chunks of at
#               most ~13 cells (one minute each)
#   -l LABEL    results under this label (default "after"; e.g. "before"
#               with -b pointing at the old binaries)
#   -b BINDIR   where pgoprof and pgoprof-record are (default: the tree's)
#   -t          no measuring: the table from the results so far
#   -o OUT      Markdown (default bench/results/collector-steady.md; - = stdout)
#
# Run each chunk under the machine's lock, e.g.
#   flock /tmp/pgoprof-heavy.lock bench/collector-steady.sh -c none,pgoprof-fp@99,perf-g@99
# No CPU pinning: users attach a profiler to a program as it runs, with the
# scheduler free to put the collector's user-space work on another CPU;
# that work is reported apart (collector CPU, % of one CPU), so nothing of
# the cost is hidden.  Needs root, perf, /usr/bin/time.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
CONFIGS= ROUNDS=1 LABEL=after BIN=$REPO TONLY= SECS=60 ATT=30
OUT=$REPO/bench/results/collector-steady.md
while getopts c:r:l:b:s:A:to:h o; do
    case $o in
        c) CONFIGS=$OPTARG ;; r) ROUNDS=$OPTARG ;; l) LABEL=$OPTARG ;;
        b) BIN=$(cd "$OPTARG" && pwd) ;; s) SECS=$OPTARG ;; A) ATT=$OPTARG ;;
        t) TONLY=1 ;; o) OUT=$OPTARG ;;
        h) sed -n '3,34p' "$0"; exit 0 ;; *) sed -n '3,34p' "$0" >&2; exit 2 ;;
    esac
done
die() { echo "collector-steady: $*" >&2; exit 1; }
W=$REPO/bench/work/steady
R=$W/results.txt
mkdir -p "$W"
if [ -z "$CONFIGS" ]; then
    CONFIGS=none
    for f in 99 999 4999; do CONFIGS+=",pgoprof-fp@$f,pgoprof-dwarf@$f,perf-g@$f,perf-dwarf@$f"; done
fi
IFS=, read -ra CELLS <<<"$CONFIGS"

now() { date +%s.%N; }
# The collector attached to PID for ATT seconds, as users would run it.
collector() { # CELL PID
    local c=${1%@*} f=${1#*@}
    case $c in
        none) sleep "$ATT" ;;
        pgoprof-fp) "$BIN/pgoprof" record -q -m stack --call-graph fp -F "$f" -p "$2" -d "$ATT" -o "$W/x.raw" ;;
        pgoprof-dwarf) "$BIN/pgoprof" record -q -m stack --call-graph dwarf -F "$f" -p "$2" -d "$ATT" -o "$W/x.raw" ;;
        perf-g) perf record -q -N -B -F "$f" -g -p "$2" -o "$W/x.data" -- sleep "$ATT" ;;
        perf-dwarf) perf record -q -N -B -F "$f" --call-graph dwarf -p "$2" -o "$W/x.data" -- sleep "$ATT" ;;
        # The sampling interrupt alone: no stack at all, the IP only.
        perf-ip) perf record -q -N -B -F "$f" -p "$2" -o "$W/x.data" -- sleep "$ATT" ;;
        *) die "unknown cell $1" ;;
    esac
}

# One run: "LABEL CELL ROUND attached_ips unattached_ips collector_cpu_s
# attached_s" appended to $R.
run_cell() { # CELL ROUND
    local log=$W/ips.txt wl l e
    "$W/steady" "$SECS" >"$log" &
    wl=$!
    sleep "$(awk -v s="$SECS" -v a="$ATT" 'BEGIN { print (s - a) / 2 }')"
    l=$(now)
    /usr/bin/time -f '%U %S' -o "$W/cpu.txt" bash -c "$(declare -f collector die); BIN='$BIN' W='$W' ATT='$ATT' collector '$1' $wl" \
        >"$W/coll.log" 2>&1 &
    cp=$!
    # The sampling program's cost per run (kernel.bpf_stats_enabled),
    # read before the collector ends and its programs go.
    sleep $((ATT - 3))
    bpf=$(bpftool prog show 2>/dev/null | awk '/ name (on_sample|on_stack_sample) / {
            for (i = 1; i < NF; i++) { if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") n = $(i + 1) } }
            END { print n ? sprintf("%.0f", t / n) : "-" }')
    wait "$cp" || { cat "$W/coll.log" >&2; kill "$wl"; die "$1 failed"; }
    e=$(now)
    wait "$wl"
    hz=${1#*@}
    case $1 in pgoprof-*) hz=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "sample_freq" { print $4 }') ;; none) hz=- ;; esac
    awk -v l="$l" -v e="$e" -v s0="$(head -n 1 "$log" | cut -d' ' -f1)" \
        -v cpu="$(tail -n 1 "$W/cpu.txt" | awk '{ print $1 + $2 }')" \
        -v lab="$LABEL" -v cell="$1" -v r="$2" -v bpf="$bpf" -v hz="$hz" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i; j > 1 && a[j-1] > t; j--) a[j] = a[j-1]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        { t = $1
          if (t - 1 >= l + 2 && t <= e - 1) { ic[++ni] = $3; iw[ni] = $2 }
          else if ((t <= l && t - 1 >= s0 + 2) || t - 1 >= e + 1) { oc[++no] = $3; ow[no] = $2 } }
        END { if (!ni || !no) { print "collector-steady: empty window" > "/dev/stderr"; exit 1 }
              printf "%s %s %s %.0f %.0f %.2f %.1f %.0f %.0f %s %s\n", lab, cell, r, med(ic, ni), med(oc, no),
                     cpu, e - l, med(iw, ni), med(ow, no), bpf, hz }' \
        "$log" >>"$R"
    tail -n 1 "$R" >&2
}

if [ -z "$TONLY" ]; then
    [ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
    command -v perf >/dev/null || die "perf missing"
    [ "$BIN" != "$REPO" ] || make -s -C "$REPO" pgoprof pgoprof-record >&2
    [ -x "$W/steady" ] && [ "$W/steady" -nt "$HERE/steady.c" ] ||
        cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$W/steady" "$HERE/steady.c"
    old_stats=$(sysctl -n kernel.bpf_stats_enabled)
    sysctl -qw kernel.bpf_stats_enabled=1
    trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats' EXIT
    n=${#CELLS[@]}
    for ((r = 0; r < ROUNDS; r++)); do
        rid=$(date +%s)
        for ((k = 0; k < n; k++)); do
            run_cell "${CELLS[$(((k + r * 5) % n))]}" "$rid"
        done
    done
fi

# --- table ------------------------------------------------------------------
[ -s "$R" ] || die "no results in $R"
med() { sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
labels=$(awk '{ print $1 }' "$R" | awk '!s[$0]++')
{
echo "## Collector overhead in steady state (bench/collector-steady.sh)"
echo
echo "Workload: \`bench/steady.c\` (cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer; hashing, a sort and a table walk 3 to 5 calls deep), ${SECS} s, printing every second its iterations per second of its own CPU time (the throughput used below: other jobs taking the CPU do not move it, and the kernel here charges the sampling interrupt, BPF program included, to the interrupted task: no CONFIG_IRQ_TIME_ACCOUNTING) and per second of wall time (*in-run, wall*: moved by every other job on the machine). The collector is attached with \`-p PID\` for the middle ${ATT} s: \`pgoprof record -m stack --call-graph fp|dwarf -F HZ -p PID -d $ATT\`, \`perf record -N -B -F HZ -g|--call-graph dwarf -p PID -- sleep $ATT\`. *in-run* = 1 - median throughput while attached (first 2 s and last 1 s of the window left out) / median throughput of the same run's unattached seconds (before and after; the first 3 s and the second after the collector exits left out). *vs none* = 1 - the same attached median / the median over \"none\" runs (same schedule, nothing attached) of their middle window. Medians over rounds; cells interleaved, their order rotated per round. Collector CPU: the collector's own user+sys CPU (/usr/bin/time) over the attached wall time, % of one CPU. *Hz run*: the rate pgoprof-record sampled at (meta sample_freq: above 1000 Hz it lowers the rate to what keeps sampling within kernel.perf_cpu_time_max_percent, halved with DWARF stacks). *BPF ns / sample*: run_time_ns / run_cnt of the sampling program (on_sample, on_stack_sample) from \`bpftool prog show\` with kernel.bpf_stats_enabled=1, 3 s before the window ends; *BPF %* = that x Hz run: the share of the sampled CPU the program takes, the part of the overhead that the throughput cannot resolve on this machine. No CPU pinning (see the script's header). $(nproc) vCPUs, no PMU (cpu-clock), shared with other jobs; $(date -u +%F)."
for lab in $labels; do
    nb=$(awk -v lab="$lab" '$1 == lab && $2 == "none" { print $4 }' "$R" | med)
    [ "$nb" = - ] && nb=$(awk '$2 == "none" { print $4 }' "$R" | med)
    echo
    echo "### $lab"
    echo
    echo "| collector | Hz asked | Hz run | runs | in-run overhead % (median) | min–max | in-run, wall % | vs none % | collector CPU % of a CPU | BPF ns / sample | BPF % of the sampled CPU | pgoprof / perf (in-run) |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
    for cell in $(awk -v lab="$lab" '$1 == lab { print $2 }' "$R" | awk '!s[$0]++' | sort -t@ -k2,2n -k1,1); do
        awk -v lab="$lab" -v cell="$cell" -v nb="$nb" -v R="$R" '
            function med(a, n,   i, j, t) {
                for (i = 2; i <= n; i++) { t = a[i]; for (j = i; j > 1 && a[j-1] > t; j--) a[j] = a[j-1]; a[j] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            function ov(c, arr,   n, lo, hi, x) {
                n = 0; nb_ = 0; nh = 0
                while ((getline line < R) > 0) { split(line, f, " ")
                    if ((f[1] == lab || lab == "*") && f[2] == c) { arr[++n] = 100 * (1 - f[4] / f[5]); ia[n] = f[4]; cp[n] = 100 * f[6] / f[7]; aw[n] = 100 * (1 - f[8] / f[9])
                                                  if (f[10] != "-" && f[10] != "") bp[++nb_] = f[10]; if (f[11] != "-" && f[11] != "") hzv[++nh] = f[11] } }
                close(R); return n }
            BEGIN {
                n = ov(cell, o); if (!n) exit
                lo = hi = o[1]; for (i = 1; i <= n; i++) { if (o[i] < lo) lo = o[i]; if (o[i] > hi) hi = o[i] }
                m = med(o, n); mi = med(ia, n); mc = med(cp, n); mw = med(aw, n)
                bns = nb_ ? sprintf("%.0f", med(bp, nb_)) : "-"; ehz = nh ? med(hzv, nh) : "-"
                bpct = nb_ && nh ? sprintf("%.3f", 100 * med(bp, nb_) * ehz / 1e9) : "-"
                split(cell, cf, "@"); peer = ""
                if (cf[1] == "pgoprof-fp") peer = "perf-g@" cf[2]
                if (cf[1] == "pgoprof-dwarf") peer = "perf-dwarf@" cf[2]
                ratio = "-"
                if (peer != "") { k = ov(peer, p); if (!k) { savelab = lab; lab = "*"; k = ov(peer, p); lab = savelab }
                                  if (k) { pm = med(p, k); ratio = pm > 0 ? sprintf("%.2f", m / pm) : "perf <= 0" } }
                vs = nb == "-" || cf[1] == "none" ? "-" : sprintf("%.2f", 100 * (1 - mi / nb))
                printf "| %s | %s | %s | %d | %.2f | %.2f – %.2f | %.2f | %s | %.1f | %s | %s | %s |\n", cf[1], cf[1] == "none" ? "-" : cf[2], ehz, n, m, lo, hi, mw, vs, mc, bns, bpct, ratio }'
    done
done
echo
echo "Raw results: bench/work/steady/results.txt (label cell round attached_ips unattached_ips collector_cpu_s attached_wall_s attached_wall_ips unattached_wall_ips; ips per CPU-second unless _wall)."
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else cp "$W/table.md" "$OUT"; cat "$OUT"; fi
