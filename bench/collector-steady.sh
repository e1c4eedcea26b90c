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
# Usage: bench/collector-steady.sh [-m paired|single] [-L same|split|free]
#            [-c CONFIGS] [-r ROUNDS] [-l LABEL] [-b BINDIR] [-s SECONDS]
#            [-A ATTACH] [-t] [-o OUT.md]
#
#   -m MODE     paired (default): two copies of the workload run at once,
#               the collector attached to one of them; the overhead is the
#               drop, in the window, of the throughput ratio
#               attached/control against the same ratio outside it, so
#               that what slows both copies cancels.  single: one copy,
#               the figures of the first tables (results kept apart:
#               bench/work/steady/results.txt; paired: paired.txt)
#   -L LAYOUT   paired mode's pinning: same (default): both copies on one
#               vCPU (vCPU 0 and 1 in turn from one run of a cell to the
#               next), the collector on the other; split: one copy on each
#               vCPU, the collector with the attached one; free: nothing
#               pinned.  On this VM only "same" narrows the spread: the
#               throughput of each vCPU moves by itself (see the results)
#   -c CONFIGS  comma-separated cells: none, pgoprof-fp@HZ,
#               pgoprof-dwarf@HZ, perf-g@HZ, perf-dwarf@HZ, perf-ip@HZ
#               (perf record without stacks), floor@HZ (bench/timerfloor:
#               the cpu-clock event on the PID's threads, as perf -p opens
#               it, with no ring buffer and no BPF program: the sampling
#               interrupt alone, the floor every sampler pays),
#               floor-cpu@HZ (the same event on every CPU, as
#               pgoprof-record opens it: every task on the CPU
#               interrupted) (default: none and the four collectors with
#               stacks at 99, 999 and 4999 Hz)
#   -r ROUNDS   rounds (default 1); a round runs every cell once, in an
#               order rotated from round to round (over the rounds already
#               in the results); results are appended, so a long series is
#               run as several locked chunks of at most ~5 cells (one
#               minute each)
#   -l LABEL    results under this label (default "after"; e.g. "before"
#               with -b pointing at the old binaries); with -t, the table
#               of this label only, between markers of its own in OUT
#   -C LABELS   comma-separated labels whose pgoprof runs had sampling
#               events on every CPU (builds up to c764e47): their floor
#               is floor-cpu, and their paired figure leaves it out
#               (default: floor,after, the runs of 2026-11-24 and -27);
#               since 44d2371 the events are on the target's threads, as
#               perf's: run new builds under a new label (e.g. -l thread)
#   -b BINDIR   where pgoprof and pgoprof-record are (default: the tree's)
#   -s SECONDS  the workload's run (default 60); -A ATTACH: the window in
#               its middle (default 30)
#   -t          no measuring: the table from the results so far
#   -o OUT      Markdown (default bench/results/collector-steady.md; - =
#               stdout); the mode's table replaces the block between its
#               markers in OUT, or is appended to it, so the text around
#               the tables stays
#
# Run each chunk under the machine's lock, e.g.
#   flock /tmp/pgoprof-heavy.lock bench/collector-steady.sh -c none,pgoprof-fp@99,perf-g@99
# Single mode does not pin: users attach a profiler to a program as it
# runs, with the scheduler free to put the collector's user-space work on
# another CPU; that work is reported apart (collector CPU, % of one CPU),
# so nothing of the cost is hidden.  Paired mode's "same" layout is as
# fair: the throughput is per CPU-second of the copy itself, so sharing
# the vCPU with the control (CFS gives each half, in slices of a few ms)
# leaves it as it is, and the collector's user-space work goes to the
# other vCPU as it would to any spare CPU, its CPU reported apart as in
# single mode.  What the copies share besides the vCPU's speed is its
# caches, refilled at every slice anyway; the sampling interrupt and its
# BPF program run only while the attached copy runs, and are charged to it.
# Needs root, perf, taskset, /usr/bin/time.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
CONFIGS= ROUNDS=1 LABEL=after LSET= PCPU=floor,after BIN=$REPO TONLY= SECS=60 ATT=30 MODE=paired LAYOUT=same
OUT=$REPO/bench/results/collector-steady.md
usage() { sed -n '3,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; }
while getopts m:c:r:l:C:b:s:A:L:to:h o; do
    case $o in
        m) MODE=$OPTARG ;; c) CONFIGS=$OPTARG ;; r) ROUNDS=$OPTARG ;; l) LABEL=$OPTARG LSET=1 ;;
        C) PCPU=$OPTARG ;;
        b) BIN=$(cd "$OPTARG" && pwd) ;; s) SECS=$OPTARG ;; A) ATT=$OPTARG ;;
        L) LAYOUT=$OPTARG ;; t) TONLY=1 ;; o) OUT=$OPTARG ;;
        h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
die() { echo "collector-steady: $*" >&2; exit 1; }
case $MODE in paired | single) ;; *) die "-m paired or single, not $MODE" ;; esac
case $LAYOUT in same | split | free) ;; *) die "-L same, split or free, not $LAYOUT" ;; esac
W=$REPO/bench/work/steady
R=$W/results.txt P=$W/paired.txt
mkdir -p "$W/paired"
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
        # Not even the IP: the interrupt and the kernel's overflow path
        # with nowhere to write (bench/timerfloor.c); per task or per CPU.
        floor) "$W/timerfloor" -F "$f" -p "$2" -d "$ATT" -o "$W/floor.txt" ;;
        floor-cpu) "$W/timerfloor" --cpu -F "$f" -p "$2" -d "$ATT" -o "$W/floor.txt" ;;
        *) die "unknown cell $1" ;;
    esac
}

# The sampling program's ns per run so far (kernel.bpf_stats_enabled).
bpf_ns() {
    bpftool prog show 2>/dev/null | awk '/ name (on_sample|on_stack_sample) / {
        for (i = 1; i < NF; i++) { if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") n = $(i + 1) } }
        END { print n ? sprintf("%.0f", t / n) : "-" }'
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
    bpf=$(bpf_ns)
    wait "$cp" || { cat "$W/coll.log" >&2; kill "$wl"; die "$1 failed"; }
    e=$(now)
    wait "$wl"
    hz=${1#*@}
    case $1 in
        pgoprof-*) hz=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "sample_freq" { print $4 }') ;;
        floor*) hz=$(cut -d' ' -f1 "$W/floor.txt") ;; none) hz=- ;;
    esac
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

# Run in the background only (pin ... &): it execs, so that $! is the
# command's own PID, the one a collector must attach to, and not that of a
# subshell waiting for it.
pin() { # CPU|"" COMMAND...
    local c=$1
    shift
    if [ -n "$c" ]; then exec taskset -c "$c" "$@"; else exec "$@"; fi
}

# Paired mode, one run: two copies of the workload, the collector attached
# to copy T on vCPU CPU; "LABEL CELL ROUND CPU LAYOUT paired_% paired_med_%
# single_% single_med_% collector_cpu_s attached_s bpf_ns hz seconds_in
# seconds_out" appended to $P, the copies' lines kept in $W/paired/.
run_pair() { # CELL ROUND CPU
    local c=$3 o=$((1 - $3)) t ctl l e cp tag pa pb pc
    tag=$W/paired/$2-$1-cpu$3
    # same: both copies share the vCPU CPU, a few ms at a time, so both
    # see the same vCPU speed; the collector's user-space work goes on the
    # other vCPU, as on any machine with a CPU to spare.  split: one copy
    # per vCPU, the collector with its copy.  free: nothing pinned.
    case $LAYOUT in
        same) pa=$c pb=$c pc=$o ;; split) pa=$c pb=$o pc=$c ;; free) pa= pb= pc= ;;
    esac
    pin "$pa" "$W/steady" "$SECS" >"$tag-T.txt" &
    t=$!
    pin "$pb" "$W/steady" "$SECS" >"$tag-C.txt" &
    ctl=$!
    sleep "$(awk -v s="$SECS" -v a="$ATT" 'BEGIN { print (s - a) / 2 }')"
    [ "$(cat "/proc/$t/comm" 2>/dev/null)" = steady ] || die "copy T is not pid $t"
    l=$(now)
    pin "$pc" /usr/bin/time -f '%U %S' -o "$W/cpu.txt" \
        bash -c "$(declare -f collector die); BIN='$BIN' W='$W' ATT='$ATT' collector '$1' $t" \
        >"$W/coll.log" 2>&1 &
    cp=$!
    sleep $((ATT - 3))
    bpf=$(bpf_ns)
    wait "$cp" || { cat "$W/coll.log" >&2; kill "$t" "$ctl"; die "$1 failed"; }
    e=$(now)
    wait "$t" "$ctl"
    echo "$l $e" >"$tag-window.txt"
    hz=${1#*@}
    case $1 in
        pgoprof-*) hz=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "sample_freq" { print $4 }') ;;
        floor*) hz=$(cut -d' ' -f1 "$W/floor.txt") ;; none) hz=- ;;
    esac
    awk -v l="$l" -v e="$e" -v cpu="$(tail -n 1 "$W/cpu.txt" | awk '{ print $1 + $2 }')" \
        -v lab="$LABEL" -v cell="$1" -v r="$2" -v vc="$3" -v lay="$LAYOUT" -v bpf="$bpf" -v hz="$hz" "$PAIR_AWK" \
        "$tag-T.txt" "$tag-C.txt" >>"$P"
    tail -n 1 "$P" >&2
}
# The copies' lines of the same second (they come as CLOCK_REALTIME
# passes it) are matched; the window and the unattached seconds are those
# of single mode.  The throughput of a stretch is its iterations over its
# CPU seconds (a ratio of sums: each second weighs by the CPU it had);
# paired = 1 - (T/C in the window) / (T/C outside).  The median of the
# per-second ratios and the single-copy figures of T alone are kept to
# compare the statistics on the same runs.
PAIR_AWK='
function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i; j > 1 && a[j-1] > t; j--) a[j] = a[j-1]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
FNR == 1 { f++; if ($1 > s0) s0 = $1 }
{ s = int($1); if (f == 1) { ia[s] = $4; ca[s] = $5 } else { ib[s] = $4; cb[s] = $5 } }
END {
    for (s in ia) {
        if (!(s in ib) || ca[s] <= 0 || cb[s] <= 0) continue
        s += 0
        if (s - 1 >= l + 2 && s <= e - 1) k = "w"
        else if ((s <= l && s - 1 >= s0 + 2) || s - 1 >= e + 1) k = "o"
        else continue
        IA[k] += ia[s]; CA[k] += ca[s]; IB[k] += ib[s]; CB[k] += cb[s]
        q = (ia[s] / ca[s]) / (ib[s] / cb[s])
        if (k == "w") { qw[++nw] = q; aw[nw] = ia[s] / ca[s] } else { qo[++no] = q; ao[no] = ia[s] / ca[s] }
    }
    if (!nw || !no) { print "collector-steady: empty window" > "/dev/stderr"; exit 1 }
    printf "%s %s %s %s %s %.3f %.3f %.3f %.3f %.2f %.1f %s %s %d %d\n", lab, cell, r, vc, lay,
        100 * (1 - (IA["w"] / CA["w"]) / (IB["w"] / CB["w"]) / ((IA["o"] / CA["o"]) / (IB["o"] / CB["o"]))),
        100 * (1 - med(qw, nw) / med(qo, no)), 100 * (1 - (IA["w"] / CA["w"]) / (IA["o"] / CA["o"])),
        100 * (1 - med(aw, nw) / med(ao, no)), cpu, e - l, bpf, hz, nw, no
}'

if [ -z "$TONLY" ]; then
    [ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
    [ "$MODE" = single ] || command -v taskset >/dev/null || die "taskset missing"
    command -v perf >/dev/null || die "perf missing"
    [ "$BIN" != "$REPO" ] || make -s -C "$REPO" pgoprof pgoprof-record >&2
    [ -x "$W/steady" ] && [ "$W/steady" -nt "$HERE/steady.c" ] ||
        cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$W/steady" "$HERE/steady.c"
    [ -x "$W/timerfloor" ] && [ "$W/timerfloor" -nt "$HERE/timerfloor.c" ] ||
        cc -std=c11 -O2 -Wall -Wextra -o "$W/timerfloor" "$HERE/timerfloor.c" -lm
    old_stats=$(sysctl -n kernel.bpf_stats_enabled)
    sysctl -qw kernel.bpf_stats_enabled=1
    trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats' EXIT
    n=${#CELLS[@]}
    if [ "$MODE" = single ]; then
        for ((r = 0; r < ROUNDS; r++)); do
            rid=$(date +%s)
            for ((k = 0; k < n; k++)); do
                run_cell "${CELLS[$(((k + r * 5) % n))]}" "$rid"
            done
        done
    else
        for ((r = 0; r < ROUNDS; r++)); do
            rid=$(date +%s)
            # Rounds are run one locked chunk at a time: the rotation and
            # the vCPU each cell's copy gets go on from the results so far,
            # so that the order and the vCPU change from chunk to chunk.
            done_r=$(awk '{ print $3 }' "$P" 2>/dev/null | sort -u | wc -l)
            for ((k = 0; k < n; k++)); do
                cell=${CELLS[$(((k + done_r) % n))]}
                runs=$(awk -v lab="$LABEL" -v c="$cell" '$1 == lab && $2 == c' "$P" 2>/dev/null | wc -l)
                run_pair "$cell" "$rid" $((runs % 2))
            done
        done
    fi
fi

# --- table ------------------------------------------------------------------
med() { sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
single_table() {
[ -s "$R" ] || die "no results in $R"
labels=$(awk '{ print $1 }' "$R" | awk '!s[$0]++')
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
}

paired_table() {
[ -s "$P" ] || die "no results in $P"
local labels lab
labels=$(awk '{ print $1 }' "$P" | awk '!s[$0]++')
[ -z "$TONLY" ] || [ -z "$LSET" ] || labels=$LABEL
echo "Paired: two copies of \`bench/steady.c\` (${SECS} s) on one vCPU (layout *same*: \`taskset -c N\` both; the collector with \`taskset\` on the other vCPU; N alternates from run to run of a cell), the collector attached to one copy (*T*) for the middle ${ATT} s, the other (*C*) the control.  Throughput of a stretch = its iterations / its CPU seconds (the copy's own, summed over the stretch).  *Overhead* of a run = 1 - (T/C over the window) / (T/C over the unattached seconds), the window and the unattached seconds as in single mode (first 2 s and last 1 s of the window, the first 3 s of the run and the second after the collector exits left out).  *mean*: over the runs; *95% interval*: mean ± t(0.975, runs-1) x SD / sqrt(runs), a t-interval over the per-run figures; *SD*: of the per-run figures; *T alone, C alone*: the mean over the same runs of 1 - window / unattached throughput of each copy by itself (T alone is what single mode measures; C alone should be noise only: where it is not, the sampling of T slows C too); *single SD*: the SD of T alone over the runs, the noise the control takes out.  *vs perf*: mean minus perf's mean at the same rate (perf-g for pgoprof-fp, perf-dwarf or else perf-g for pgoprof-dwarf; perf-g for perf-ip, floor, floor-cpu), with a Welch 95% interval.  *floor*: bench/timerfloor, the cpu-clock event at the rate on T's threads (as perf -p opens it) with no ring buffer and no BPF program, the sampling interrupt alone; *floor-cpu*: the same on every CPU (as pgoprof-record opens it), which interrupts C as much as T.  *vs floor*: mean minus floor's mean at the same rate, Welch 95%: the collector's cost above the interrupt.  pgoprof-record builds up to c764e47 opened per-CPU events (labels -C: ${PCPU}): for them floor-cpu's mean, since their paired figure leaves the interrupt out (as floor-cpu's does), and their *vs perf* compares their work above the interrupt with perf's whole cost (see \"The interrupt floor\"); later builds open per-thread events, as perf does.  Collector CPU, Hz run, BPF ns / sample and BPF % as in single mode.  $(nproc) vCPUs, no PMU (cpu-clock), shared with other jobs; $(date -u +%F)."
for lab in $labels; do
    echo
    echo "#### paired: $lab"
    echo
    echo "| collector | Hz asked | Hz run | runs (vCPU 0/1) | overhead % (mean) | 95% interval | SD per run | T alone, C alone % (mean) | single SD | vs perf, points (95%) | vs floor, points (95%) | collector CPU % of a CPU | BPF ns / sample | BPF % of the sampled CPU |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|---:|---:|---:|"
    for cell in $(awk -v lab="$lab" '$1 == lab { print $2 }' "$P" | awk '!s[$0]++' | sort -t@ -k2,2n -k1,1); do
        awk -v lab="$lab" -v cell="$cell" -v P="$P" -v pcpu=",$PCPU," '
            function med(a, n,   i, j, t) {
                for (i = 2; i <= n; i++) { t = a[i]; for (j = i; j > 1 && a[j-1] > t; j--) a[j] = a[j-1]; a[j] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            # t(0.975, df); df rounded down, so the interval errs wide.
            function tq(df,   t) {
                split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
                df = int(df); return df < 1 ? 0 : df <= 30 ? t[df] : df <= 40 ? 2.042 : df <= 60 ? 2.021 : 2.000 }
            # Per-run figures of cell C into o[]; mean, variance, n in m_, v_, n_.
            function load(c,   n, x, s, ss) {
                n = 0; s = 0; ss = 0; nb_ = 0; nh = 0; c0 = 0; sv = 0; ssv = 0; sc = 0
                while ((getline line < P) > 0) { split(line, f, " ")
                    if (f[1] != lab || f[2] != c) continue
                    x = f[6]; n++; s += x; ss += x * x; c0 += f[4] == 0
                    sv += f[8]; ssv += f[8] * f[8]; cp[n] = 100 * f[10] / f[11]
                    sc += 100 * (1 - (1 - f[8] / 100) / (1 - f[6] / 100))
                    if (f[12] != "-" && f[12] != "") bp[++nb_] = f[12]; if (f[13] != "-" && f[13] != "") hzv[++nh] = f[13] }
                close(P); n_ = n; if (!n) return 0
                m_ = s / n; v_ = n > 1 ? (ss - n * m_ * m_) / (n - 1) : 0; if (v_ < 0) v_ = 0
                vs_ = n > 1 ? (ssv - sv * sv / n) / (n - 1) : 0; if (vs_ < 0) vs_ = 0
                mt_ = sv / n; mcd_ = sc / n
                return n }
            # This cell mean (m, v, n) minus cell C'"'"'s, with a Welch 95%
            # interval; "-" when C has no runs.
            function welch(c,   d, a, b, df, h) {
                if (!load(c)) return "-"
                d = m - m_; a = v / n; b = v_ / n_
                if (n < 2 || n_ < 2) return sprintf("%+.2f %s", d, c)
                df = (a + b) > 0 ? (a + b) ^ 2 / (a * a / (n - 1) + b * b / (n_ - 1)) : n + n_ - 2
                h = tq(df) * sqrt(a + b)
                return sprintf("%+.2f (%+.2f – %+.2f) %s", d, d - h, d + h, c) }
            BEGIN {
                if (!load(cell)) exit
                n = n_; m = m_; v = v_; vs = vs_; n0 = c0; mc = med(cp, n); mt = mt_; mcd = mcd_
                bns = nb_ ? sprintf("%.0f", med(bp, nb_)) : "-"; ehz = nh ? med(hzv, nh) : "-"
                bpct = nb_ && nh ? sprintf("%.3f", 100 * med(bp, nb_) * ehz / 1e9) : "-"
                ci = n > 1 ? sprintf("%.2f – %.2f", m - tq(n - 1) * sqrt(v / n), m + tq(n - 1) * sqrt(v / n)) : "-"
                split(cell, cf, "@"); peer = ""
                if (cf[1] == "pgoprof-fp") peer = "perf-g@" cf[2]
                if (cf[1] == "pgoprof-dwarf") { peer = "perf-dwarf@" cf[2]; if (!load(peer)) peer = "perf-g@" cf[2] }
                if (cf[1] ~ /^(floor|floor-cpu|perf-ip)$/) peer = "perf-g@" cf[2]
                vp = peer != "" ? welch(peer) : "-"
                # pgoprof builds up to c764e47 opened per-CPU events: their
                # floor is floor-cpu (-C); later ones, per thread, floor.
                vf = cf[1] ~ /^pgoprof-/ && index(pcpu, "," lab ",") ? welch("floor-cpu@" cf[2]) : cf[1] !~ /^(none|floor)$/ ? welch("floor@" cf[2]) : "-"
                printf "| %s | %s | %s | %d (%d/%d) | %.2f | %s | %.2f | %.2f, %.2f | %.2f | %s | %s | %.1f | %s | %s |\n", cf[1], cf[1] == "none" ? "-" : cf[2], ehz,
                       n, n0, n - n0, m, ci, sqrt(v), mt, mcd, sqrt(vs), vp, vf, mc, bns, bpct }'
    done
done
echo
echo "Raw results: bench/work/steady/paired.txt (label cell round vCPU layout overhead_% median_of_second_ratios_% single_% single_median_% collector_cpu_s attached_wall_s bpf_ns hz seconds_in seconds_out), the copies' lines in bench/work/steady/paired/."
}

# The mode's table between its markers in OUT, the rest of OUT kept.
emit() { # MODE
    local k=$1
    [ -z "$TONLY" ] || [ -z "$LSET" ] || k+=" $LABEL"
    local b="<!-- collector-steady.sh $k: generated, edit the script -->" e="<!-- end collector-steady.sh $k -->"
    { echo "$b"; "$1"_table; echo "$e"; } >"$W/table.md"
    if [ "$OUT" = - ]; then cat "$W/table.md"; return; fi
    if [ -f "$OUT" ] && grep -qF "$b" "$OUT"; then
        awk -v b="$b" -v e="$e" -v t="$W/table.md" '
            $0 == b { while ((getline x < t) > 0) print x; skip = 1; next }
            $0 == e { skip = 0; next }
            !skip' "$OUT" >"$W/out.md"
        cp "$W/out.md" "$OUT"
    elif [ -f "$OUT" ]; then
        { echo; cat "$W/table.md"; } >>"$OUT"
    else
        cp "$W/table.md" "$OUT"
    fi
    cat "$W/table.md"
}
emit "$MODE"
