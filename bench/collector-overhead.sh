#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Collector overhead: a CPU-bound workload (pgo/examples/wordfreq.c) under
# no profiler, pgoprof record (stack mode, --call-graph fp and dwarf) and
# perf record (-g and --call-graph dwarf) at several frequencies, in
# interleaved rounds; the slowdown as the ratio against the no-profiler run
# of the same round.  Then each collector's own CPU time and peak RSS
# (/usr/bin/time -v of the collector attached with -p to the workload, so
# that the workload's own CPU and RSS are not counted).
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-m MB] [-F HZ,...] [-n RUNS] [-N OWN_RUNS] [-t] [-o OUT.md]

  -m MB       wordfreq input size in MiB (default 32)
  -F HZ,...   sampling frequencies (default 99,999,4999)
  -n RUNS     interleaved rounds for the slowdown (default 9)
  -N RUNS     rounds for the collector's own CPU/RSS (default 3)
  -t          no measuring: the table again from the last run's
              bench/work/overhead/results.txt (same -m/-F/-n/-N)
  -o OUT      Markdown output (default bench/results/collector-overhead.md; - = stdout)
Needs root (BPF, perf), clang-16, perf, /usr/bin/time (apt-get install time).
USAGE
}
MB=32 FREQS=99,999,4999 RUNS=9 OWN=3 TONLY=
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
OUT=$REPO/bench/results/collector-overhead.md
while getopts m:F:n:N:to:h o; do
    case $o in
        m) MB=$OPTARG ;; F) FREQS=$OPTARG ;; n) RUNS=$OPTARG ;; N) OWN=$OPTARG ;; t) TONLY=1 ;;
        o) OUT=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
die() { echo "collector-overhead: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
W=$REPO/bench/work/overhead
mkdir -p "$W"
make -s -C "$REPO" pgoprof pgoprof-record >&2
WL=$W/wordfreq
[ -x "$WL" ] && [ "$WL" -nt "$REPO/pgo/examples/wordfreq.c" ] ||
    clang-16 -O2 -g -fno-omit-frame-pointer -o "$WL" "$REPO/pgo/examples/wordfreq.c"
PR=$REPO/pgoprof REC=$REPO/pgoprof-record
IFS=, read -ra FS <<<"$FREQS"

# cell name -> command prefix (the workload follows)
cells=(none)
for f in "${FS[@]}"; do cells+=("pgoprof-fp@$f" "pgoprof-dwarf@$f" "perf-g@$f" "perf-dwarf@$f"); done
prefix() {
    local c=${1%@*} f=${1#*@}
    case $c in
        none) ;;
        pgoprof-fp) echo "$PR record -q -m stack --call-graph fp -F $f -o $W/x.raw --" ;;
        pgoprof-dwarf) echo "$PR record -q -m stack --call-graph dwarf -F $f -o $W/x.raw --" ;;
        perf-g) echo "perf record -N -B -F $f -g -o $W/x.data --" ;;
        perf-dwarf) echo "perf record -N -B -F $f --call-graph dwarf -o $W/x.data --" ;;
    esac
}
# prints "wall user+sys maxrss_kb" of a command (its children included)
timed() {
    /usr/bin/time -f '%e %U %S %M' -o "$W/time.txt" "$@" >"$W/cmd.log" 2>&1 ||
        { cat "$W/cmd.log" >&2; die "failed: $*"; }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/time.txt"
}
R=$W/results.txt
if [ -z "$TONLY" ]; then
: >"$R"
timed "$WL" "$MB" >/dev/null	# warm-up
n=${#cells[@]}
for ((r = 0; r < RUNS; r++)); do
    for ((k = 0; k < n; k++)); do
        c=${cells[$(((k + r * 5) % n))]}	# rotate the order each round
        # shellcheck disable=SC2046
        t=$(timed $(prefix "$c") "$WL" "$MB")
        echo "run $c $r $t" >>"$R"; echo "  round $r $c: $t" >&2
    done
done
# The collector's own CPU and RSS: attached to a running workload with -p.
for ((r = 0; r < OWN; r++)); do
    for c in "${cells[@]:1}"; do
        m=${c%@*} f=${c#*@}
        case $m in
            pgoprof-fp) cmd=("$REC" -q -m stack --call-graph fp -F "$f" -o "$W/y.raw") ;;
            pgoprof-dwarf) cmd=("$REC" -q -m stack --call-graph dwarf -F "$f" -o "$W/y.raw") ;;
            perf-g) cmd=(perf record -N -B -F "$f" -g -o "$W/y.data") ;;
            perf-dwarf) cmd=(perf record -N -B -F "$f" --call-graph dwarf -o "$W/y.data") ;;
        esac
        "$WL" "$MB" >/dev/null & pid=$!
        /usr/bin/time -f '%e %U %S %M' -o "$W/own.txt" "${cmd[@]}" -p "$pid" >"$W/own.log" 2>&1 || true
        wait "$pid" || true
        t=$(tail -n 1 "$W/own.txt" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }')
        echo "own $c $r $t" >>"$R"; echo "  own $r $c: $t" >&2
    done
done

fi

# --- table ------------------------------------------------------------------
q() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { i = 1 + p * (NR - 1); l = int(i); h = (l < NR) ? l + 1 : l
                                   printf "%.4g\n", a[l] + (i - l) * (a[h] - a[l]) }'; }
col() { awk -v k="$1" -v c="$2" -v f="$3" '$1 == k && $2 == c { print $f }' "$R"; }
ratios() { awk -v c="$1" -v f="$2" '$1 == "run" && $2 == "none" { b[$3] = $f }
                                    $1 == "run" && $2 == c { v[$3] = $f }
                                    END { for (r in v) if (b[r] > 0) print v[r] / b[r] }' "$R"; }
{
echo "## Collector overhead (bench/collector-overhead.sh)"
echo
echo "Workload: \`wordfreq $MB\` (pgo/examples/wordfreq.c, clang-16 -O2 -g -fno-omit-frame-pointer), no-profiler median $(col run none 4 | q 0.5) s wall. $RUNS interleaved rounds: each round runs every cell once (no profiler included), in an order rotated per round. Slowdown = wall of the cell / wall of the no-profiler run of the same round; median and IQR over the rounds. Wall of a profiled run is the whole \`pgoprof record -- CMD\` / \`perf record -- CMD\` (start-up and writing included). $(date -u +%F), $(nproc) CPUs shared with other CPU-heavy jobs, cpu-clock sampling (no PMU; pgoprof in stack mode)."
echo
echo "| collector | Hz | median wall s | slowdown (median) | slowdown IQR | CPU s, collector + workload (median) | extra CPU vs none | peak RSS MB, max(collector, workload) |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
bc=$(col run none 5 | q 0.5)
echo "| none | - | $(col run none 4 | q 0.5) | 1 | - | $bc | - | $(col run none 6 | q 0.5 | awk '{ printf "%.0f", $1 / 1024 }') |"
for c in "${cells[@]:1}"; do
    m=${c%@*} f=${c#*@}
    cpu=$(col run "$c" 5 | q 0.5)
    printf '| %s | %s | %s | %.3f | %.3f–%.3f | %s | %+.2f s | %.0f |\n' "$m" "$f" "$(col run "$c" 4 | q 0.5)" \
        "$(ratios "$c" 4 | q 0.5)" "$(ratios "$c" 4 | q 0.25)" "$(ratios "$c" 4 | q 0.75)" \
        "$cpu" "$(awk -v a="$cpu" -v b="$bc" 'BEGIN { print a - b }')" \
        "$(col run "$c" 6 | q 0.5 | awk '{ print $1 / 1024 }')"
done
echo
echo "The collector's own cost, attached with \`-p PID\` to a running \`wordfreq $MB\` ($OWN runs each, medians; /usr/bin/time of the collector alone: \`pgoprof-record -m stack --call-graph fp|dwarf -F HZ -p PID\`, \`perf record -N -B -F HZ -g|--call-graph dwarf -p PID\`):"
echo
echo "| collector | Hz | own CPU s (user+sys) | own peak RSS MB |"
echo "|---|---:|---:|---:|"
for c in "${cells[@]:1}"; do
    printf '| %s | %s | %s | %.0f |\n' "${c%@*}" "${c#*@}" "$(col own "$c" 5 | q 0.5)" \
        "$(col own "$c" 6 | q 0.5 | awk '{ print $1 / 1024 }')"
done
echo
echo "Notes: perf runs with \`-N -B\` (no build-id cache, no build-id collection): perf $(perf --version 2>/dev/null | awk '{ print $3 }') here aborts at exit in util/build-id.c without them. \`perf record -N -B -F 99 -g -- true\` alone takes ~1 s wall (start-up and exit), so most of perf's slowdown is a fixed cost, not a per-sample one; a shorter workload inflates it (-m 8: perf ~2.9x, pgoprof 1.15-1.49x). With fp stacks both collectors walk the stack in the kernel, in the sampled task's context: that cost shows in the workload's CPU (\"extra CPU vs none\"), not in the collector's own CPU; with dwarf pgoprof unwinds in its own process (its own CPU and RSS grow with the rate), perf only copies the stack into the file (unwinding is left to perf script/report). Peak RSS of a profiled run is the maximum over the process tree, so it hides a collector smaller than the workload; the own-cost table has the collector alone."
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else mkdir -p "$(dirname "$OUT")"; cp "$W/table.md" "$OUT"; cat "$OUT"; fi
