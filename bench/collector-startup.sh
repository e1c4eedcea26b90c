#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Collector start-up and teardown (issue 17): how long `pgoprof record --
# CMD` and `perf record -- CMD` take to exec CMD, to arm sampling, and to
# return after CMD exits.  CMD is bench/steady.c with SECONDS 0: it prints
# the time it started (CLOCK_REALTIME) and exits at once, so
#   exec     = CMD's start - the collector's launch (date +%s.%N just before)
#   teardown = the collector's return - CMD's start (CMD runs ~1 ms)
# pgoprof-record -v gives its phases (ms since its main()): sampling armed,
# BPF load, the command let go; and (builds since issue 17's second round)
# the wall-clock time main() was entered and the time of the first sample
# of the target (the BPF program's clock), so that
#   pre-main = main()'s start - the collector's launch
#   first    = the first sample of CMD's process - the launch (it may come
#              before CMD's main(): the process is sampled from its exec)
# Then one strace -T -e bpf run per pgoprof cell splits the BPF load into
# map creation and program loads (the verifier); the rest of the load is
# libbpf in user space, mostly reading and parsing the kernel's BTF.
#
# Usage: bench/collector-startup.sh [-n RUNS] [-l LABEL] [-b BINDIR] [-c LABEL=BINDIR] [-t] [-o OUT.md]
#   -n RUNS    interleaved rounds (default 10)
#   -l LABEL   results under this label (default "after")
#   -b BINDIR  where pgoprof and pgoprof-record are (default: the tree's)
#   -c LABEL=BINDIR  another build, measured in the same rounds (each
#              round runs every cell of every build, in rotating order)
#   -t         no measuring: the table from the results so far
#   -o OUT     Markdown (default bench/results/collector-startup.md; - = stdout)
# Run under the machine's lock: flock /tmp/pgoprof-heavy.lock bench/collector-startup.sh
# Needs root, perf, strace.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
RUNS=10 LABEL=after BIN=$REPO TONLY= OTHERS=()
OUT=$REPO/bench/results/collector-startup.md
while getopts n:l:b:c:to:h o; do
    case $o in
        n) RUNS=$OPTARG ;; l) LABEL=$OPTARG ;; b) BIN=$(cd "$OPTARG" && pwd) ;;
        c) OTHERS+=("$OPTARG") ;;
        t) TONLY=1 ;; o) OUT=$OPTARG ;;
        h) sed -n '3,29p' "$0"; exit 0 ;; *) sed -n '3,29p' "$0" >&2; exit 2 ;;
    esac
done
die() { echo "collector-startup: $*" >&2; exit 1; }
W=$REPO/bench/work/startup
R=$W/results.txt
mkdir -p "$W"
# "LABEL BINDIR CELL" for each run of a round: every build's pgoprof
# cells (with the kernel's stack map for fp stacks where the build has the
# option: the only way before Linux 6.1), perf's once.
JOBS=()
add_build() { # LABEL BINDIR
    JOBS+=("$1 $2 pgoprof-fp")
    "$2/pgoprof-record" --help 2>/dev/null | grep -q -- --fp-stack-map &&
        JOBS+=("$1 $2 pgoprof-fp-stackmap")
    JOBS+=("$1 $2 pgoprof-dwarf")
}
add_build "$LABEL" "$BIN"
for o in "${OTHERS[@]}"; do add_build "${o%%=*}" "$(cd "${o#*=}" && pwd)"; done
JOBS+=("$LABEL $BIN perf-g" "$LABEL $BIN perf-dwarf" "$LABEL $BIN none")

cmd_of() { # CELL [BINDIR]: the collector's command line, CMD follows
    local BIN=${2:-$BIN} V=-v
    # -v where the build has it (an older build to compare with may not).
    "$BIN/pgoprof-record" --help 2>/dev/null | grep -q -- --verbose || V=
    case $1 in
        pgoprof-fp) echo "$BIN/pgoprof record $V -q -m stack --call-graph fp -F 999 -o $W/x.raw --" ;;
        pgoprof-fp-stackmap) echo "$BIN/pgoprof record $V -q -m stack --call-graph fp --fp-stack-map -F 999 -o $W/x.raw --" ;;
        pgoprof-dwarf) echo "$BIN/pgoprof record $V -q -m stack --call-graph dwarf -F 999 -o $W/x.raw --" ;;
        none) echo "" ;;	# CMD alone: the floor (the shell's fork and exec)
        perf-g) echo "perf record -q -N -B -F 999 -g -o $W/x.data --" ;;
        perf-dwarf) echo "perf record -q -N -B -F 999 --call-graph dwarf -o $W/x.data --" ;;
    esac
}
# The -v phase's time in ms, or "-".
phase_ms() { awk -v p="$1" 'index($0, p) { v = $2 } END { print v == "" ? "-" : v }' "$W/err.txt"; }

# ms from launch T0 to main()'s start, and to the first sample ("-" when
# the build does not say).
premain_ms() { awk -v t0="$1" '/main\(\) entered at/ { m = $2; r = $7 } END { if (r == "") print "-"; else printf "%.1f", (r - m / 1e3 - t0) * 1e3 }' "$W/err.txt"; }
first_ms() { awk -v t0="$1" '/main\(\) entered at/ { m = $2; r = $7 } /first sample of the target at/ { f = $(NF - 1) } END { if (r == "" || f == "") print "-"; else printf "%.1f", (r + (f - m) / 1e3 - t0) * 1e3 }' "$W/err.txt"; }

# "LABEL CELL exec_ms teardown_ms armed_ms load_ms started_ms premain_ms
# first_ms" appended to $R.  Arguments: LABEL BINDIR CELL.
run_cell() {
    local t0 t1 ex cmd
    cmd=$(cmd_of "$3" "$2")
    t0=$(date +%s.%N)
    $cmd "$W/steady" 0 >"$W/out.txt" 2>"$W/err.txt" || { cat "$W/err.txt" >&2; die "$3 failed"; }
    t1=$(date +%s.%N)
    ex=$(awk '$1 == "exec" { print $2 }' "$W/out.txt")
    [ -n "$ex" ] || die "$3: no exec line"
    echo "$1 $3 $(awk -v a="$t0" -v b="$ex" -v c="$t1" 'BEGIN { printf "%.1f %.1f", (b - a) * 1e3, (c - b) * 1e3 }') $(phase_ms 'sampling armed') $(phase_ms 'BPF loaded') $(phase_ms 'command started') $(premain_ms "$t0") $(first_ms "$t0")" >>"$R"
    tail -n 1 "$R" >&2
}

# strace of the BPF syscalls: "LABEL CELL bpf what ms" lines, summed by map
# name (MAP_CREATE) and in all (PROG_LOAD).  Arguments: LABEL BINDIR CELL.
bpf_split() {
    # shellcheck disable=SC2046
    strace -f -T -e trace=bpf -o "$W/strace.txt" $(cmd_of "$3" "$2") "$W/steady" 0 >/dev/null 2>&1 || true
    awk -v lab="$1" -v cell="$3" '
        /BPF_MAP_CREATE|BPF_PROG_LOAD/ {
            t = $NF; gsub(/[<>]/, "", t)
            if ($0 ~ /BPF_MAP_CREATE/ && match($0, /map_name="[^"]*"/)) what = "map " substr($0, RSTART + 10, RLENGTH - 11)
            else what = /BPF_MAP_CREATE/ ? "map (other)" : "program loads (verifier)"
            ms[what] += t * 1e3 }
        END { for (w in ms) printf "%s %s bpf %.1f %s\n", lab, cell, ms[w], w }' "$W/strace.txt" >>"$R"
}

if [ -z "$TONLY" ]; then
    command -v perf >/dev/null || die "perf missing"
    command -v strace >/dev/null || die "strace missing (apt-get install strace)"
    [ "$BIN" != "$REPO" ] || make -s -C "$REPO" pgoprof pgoprof-record >&2
    [ -x "$W/steady" ] && [ "$W/steady" -nt "$HERE/steady.c" ] ||
        cc -O2 -g -fno-omit-frame-pointer -o "$W/steady" "$HERE/steady.c"
    for o in "$LABEL" "${OTHERS[@]%%=*}"; do sed -i "/^$o /d" "$R" 2>/dev/null || true; done
    for ((r = 0; r < RUNS; r++)); do
        # shellcheck disable=SC2086
        for ((k = 0; k < ${#JOBS[@]}; k++)); do run_cell ${JOBS[$(((k + r) % ${#JOBS[@]}))]}; done
    done
    for j in "${JOBS[@]}"; do
        # shellcheck disable=SC2086
        case $j in *" pgoprof-"*) bpf_split $j ;; esac
    done
fi

# --- table ------------------------------------------------------------------
[ -s "$R" ] || die "no results in $R"
med() { grep -v '^-$' | sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v l="$1" -v c="$2" -v f="$3" '$1 == l && $2 == c && $3 != "bpf" { print ($f == "" ? "-" : $f) }' "$R"; }
{
echo "## Collector start-up and teardown (bench/collector-startup.sh)"
echo
echo "\`pgoprof record -v -q -m stack --call-graph fp|dwarf -F 999 -o x.raw -- steady 0\` and \`perf record -q -N -B -F 999 -g|--call-graph dwarf -o x.data -- steady 0\`, where \`steady 0\` (bench/steady.c) prints the time it started and exits. *exec*: from launching the collector (\`date +%s.%N\` just before, in the same shell) to the command's first instruction of main(); *teardown*: from then to the collector's return (the command itself runs about 1 ms); *pre-main*: from the launch to pgoprof-record's main(); *first sample*: from the launch to the first sample of the command's process (-v; it can come before the command's main(): the process is sampled from its exec on). *none*: the command without a collector (the shell's fork and exec, and \`date\`'s exit: the floor of every row). *armed*, *BPF load*, *cmd started*: pgoprof-record -v's phases, ms after its main() (sampling is armed before the command is let go). Medians of $RUNS interleaved runs; $(nproc) vCPUs shared with other jobs; $(date -u +%F)."
for lab in $(awk '{ print $1 }' "$R" | awk '!s[$0]++'); do
    echo
    echo "### $lab"
    echo
    echo "| collector | exec ms | teardown ms | pre-main ms | first sample ms | armed ms (-v) | BPF load ms (-v) | cmd started ms (-v) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for c in pgoprof-fp pgoprof-fp-stackmap pgoprof-dwarf perf-g perf-dwarf none; do
        [ -n "$(col "$lab" "$c" 3)" ] || continue
        echo "| $c | $(col "$lab" "$c" 3 | med) | $(col "$lab" "$c" 4 | med) | $(col "$lab" "$c" 8 | med) | $(col "$lab" "$c" 9 | med) | $(col "$lab" "$c" 5 | med) | $(col "$lab" "$c" 6 | med) | $(col "$lab" "$c" 7 | med) |"
    done
    if grep -q "^$lab [^ ]* bpf " "$R"; then
        echo
        echo "BPF syscalls of the load, one strace -T run (ms; strace adds a little to each):"
        echo
        echo "| collector | what | ms |"
        echo "|---|---|---:|"
        awk -v l="$lab" '$1 == l && $3 == "bpf" { w = $5; for (i = 6; i <= NF; i++) w = w " " $i; printf "| %s | %s | %s |\n", $2, w, $4 }' "$R" | sort -t'|' -k2,2 -k4,4gr
    fi
done
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else cp "$W/table.md" "$OUT"; cat "$OUT"; fi
