#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Conversion speed and memory against the peers, on the same inputs.
# Branch records: one synthesized perf.data per size (build/bench/lbrgen, a
# random walk over speedtest1's code), converted by pgoprof (import +
# convert), by perf script + llvm-profgen-16, and by AutoFDO's
# create_llvm_prof and create_gcov.  Stack samples: pgoprof convert on
# the same walk as call-chain samples (perf record -g), against AutoFDO
# with --use_lbr=false (llvm-profgen needs branch records).  Wall
# time, peak RSS (/usr/bin/time -v), samples/s, ratios against the peer in
# the same round, and the slope of log(time) and log(RSS) vs log(samples).
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-s SIZES] [-S STACK_SIZES] [-r RUNS] [-R BIG_RUNS] [-m MEM_GB] [-o OUT.md]

  -s SIZES        branch-record sample counts (default 10000,100000,1000000,10000000)
  -S SIZES        stack sample counts (default 10000,100000,1000000,10000000)
  -r RUNS         interleaved rounds per size below 10^6 (default 3)
  -R RUNS         rounds at 10^6 samples and above (default 3 at 10^6, 1 above)
  -m MEM_GB       address-space limit for each peer run (default 20): a peer
                  that needs more fails and the table says so
  -o OUT          Markdown output (default bench/results/convert-speed.md; - = stdout)

Branch records: build/bench/lbrgen -n N -s 1 writes a perf.data of N
samples of 32 branch records each (816 bytes a sample; 10^7 samples = 8.2
GB, and perf script makes 13 GB of text of it): have ~25 GB free under
bench/work/conv/.  The speedtest1 binary is built with DWARF 4, because
create_llvm_prof/create_gcov 0.19 read no DWARF 5.  Inputs are cached in
bench/work/conv/; a size's text is deleted after its rounds.
USAGE
}

SIZES=10000,100000,1000000,10000000 SSIZES=10000,100000,1000000,10000000 RUNS=3 BIGRUNS=
MEM_GB=20
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
OUT=$REPO/bench/results/convert-speed.md
while getopts s:S:r:R:m:o:h o; do
    case $o in
        s) SIZES=$OPTARG ;; S) SSIZES=$OPTARG ;; r) RUNS=$OPTARG ;; R) BIGRUNS=$OPTARG ;;
        m) MEM_GB=$OPTARG ;; o) OUT=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
die() { echo "convert-speed: $*" >&2; exit 1; }
PROFGEN=/usr/lib/llvm-16/bin/llvm-profgen
[ -x "$PROFGEN" ] || die "llvm-profgen-16 missing (apt-get install llvm-16)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
command -v create_llvm_prof >/dev/null && command -v create_gcov >/dev/null ||
    die "create_llvm_prof/create_gcov missing (apt-get install autofdo, or make deps)"
W=$REPO/bench/work/conv
mkdir -p "$W"
B=$W/speedtest1
BFLAGS="-O2 -g -gdwarf-4 -fdebug-info-for-profiling -fno-omit-frame-pointer"
[ -x "$B" ] || "$HERE/build-speedtest.sh" "$B" clang-16 $BFLAGS >&2
make -s -C "$REPO" pgoprof build/bench/lbrgen >&2
LBRGEN=$REPO/build/bench/lbrgen
P=$REPO/pgoprof

# --- measuring ------------------------------------------------------------
# one timed run: prints "wall_s maxrss_kb", or "fail fail" when the command
# failed (a peer over the address-space limit).  Its stdout goes to $W/cmd.out.
timed() {
    local log=$W/time.log
    if ! /usr/bin/time -v -o "$log" "$@" >"$W/cmd.out" 2>"$W/cmd.err"; then
        echo "convert-speed: failed: $* ($(grep -v '^W' "$W/cmd.err" | tail -1 | cut -c1-200))" >&2
        echo "fail fail"; return
    fi
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
                    for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
                /Maximum resident set size/ { m = $2 }
                END { printf "%.3f %d\n", w, m }' "$log"
}
# a peer, under the address-space limit
CAPPED=(bash -c 'ulimit -v "$1"; shift; exec "$@"' capped $((MEM_GB * 1024 * 1024)))
# slope of log(y) vs log(x) from lines "x y"
slope() { awk '$2 != "fail" { x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
               END { if (n < 2) { print "n/a"; exit } printf "%.2f\n", (n * sxy - sx * sy) / (n * sxx - sx * sx) }'; }
fmt_n() { awk -v n="$1" 'BEGIN { e = int(log(n) / log(10) + 1e-9); if (10 ^ e == n) printf "10^%d", e; else print n }'; }

R=$W/results.txt
: >"$R"
IFS=, read -ra LS <<<"$SIZES"
IFS=, read -ra SS <<<"$SSIZES"
# one step of a pipeline on kind K's input of n samples; appends
# "K STEP n round wall rss" to $R.  K: lbr (branch records) or stack (call
# chains; AutoFDO then runs with --use_lbr=false, on the samples' IPs).
step() {
    local k=$1 t=$2 n=$3 i=$4 d=$W/$1-$3 r nolbr=
    [ "$k" = stack ] && nolbr=--use_lbr=false
    case $t in convert) rm -f "$W/ours-$k.txt" ;; profgen) rm -f "$W/ref.txt" ;; clp) rm -f "$W/clp-$k.txt" ;; esac
    case $t in
        import)  r=$(timed "$P" import -q "$d/perf.data" -o "$d/imported.raw") ;;
        convert) r=$(timed "$P" convert -q "$d/imported.raw" --binary "$B" -f llvm-text -o "$W/ours-$k.txt") ;;
        afdo)    r=$(timed "$P" convert -q "$d/imported.raw" --binary "$B" -f afdo -o "$W/ours-$k.afdo") ;;
        script)  r=$(timed bash -c 'exec perf script -F ip,brstack --show-mmap-events -i "$1" >"$2" 2>/dev/null' \
                         script "$d/perf.data" "$d/perf.txt") ;;
        profgen) r=$(timed "${CAPPED[@]}" "$PROFGEN" --binary "$B" --perfscript "$d/perf.txt" --format=text --output "$W/ref.txt") ;;
        clp)     r=$(timed "${CAPPED[@]}" create_llvm_prof $nolbr --profile "$d/perf.data" --binary "$B" --format text --out "$W/clp-$k.txt") ;;
        gcov)    r=$(timed "${CAPPED[@]}" create_gcov $nolbr --profile "$d/perf.data" --binary "$B" --gcov "$W/gcov-$k.afdo") ;;
    esac
    echo "$k $t $n $i $r" >>"$R"; echo "  $k $t n=$n round $i: $r" >&2
}
# every round of kind k at size n, the pipelines in a rotated order
measure() {
    local k=$1 n=$2 d=$W/$1-$2 runs=$RUNS pipes
    mkdir -p "$d"
    if [ ! -s "$d/perf.data" ]; then
        echo "convert-speed: generating $n $k samples" >&2
        "$LBRGEN" -q $([ "$k" = stack ] && echo --callchain) -n "$n" -s 1 -o "$d/perf.data" "$B"
    fi
    [ "$n" -ge 1000000 ] && runs=${BIGRUNS:-3}
    [ "$n" -gt 1000000 ] && runs=${BIGRUNS:-1}
    if [ "$k" = lbr ]; then pipes=(ours profgen autofdo); else pipes=(ours autofdo); fi
    for ((i = 0; i < runs; i++)); do
        for ((j = 0; j < ${#pipes[@]}; j++)); do
            case ${pipes[(i + j) % ${#pipes[@]}]} in
                ours) step "$k" import "$n" "$i"; step "$k" convert "$n" "$i"; step "$k" afdo "$n" "$i" ;;
                profgen) step "$k" script "$n" "$i"; step "$k" profgen "$n" "$i" ;;
                autofdo) step "$k" clp "$n" "$i"; step "$k" gcov "$n" "$i" ;;
            esac
        done
    done
    if [ -f "$d/perf.txt" ]; then stat -c %s "$d/perf.txt" >"$d/perf.txt.size"; rm -f "$d/perf.txt"; fi
}
for n in "${LS[@]}"; do measure lbr "$n"; done
for n in "${SS[@]}"; do measure stack "$n"; done

# --- table ----------------------------------------------------------------
col() { awk -v k="$1" -v t="$2" -v n="$3" -v c="$4" '$1 == k && $2 == t && $3 == n { print $c }' "$R" | median; }
# a pipeline of kind k: its wall (sum of its steps) or RSS (max); "fail" if
# a step failed
pipe() { local k=$1 c=$2 n=$3; shift 3; for t in "$@"; do col "$k" "$t" "$n" "$c"; done |
         awk -v c="$c" '$1 == "fail" { f = 1 } { if (c == 5) v += $1; else if ($1 > v) v = $1 }
                        END { if (f) print "fail"; else print v }'; }
sec() { awk -v v="$1" 'BEGIN { if (v == "fail") print "failed"; else printf "%.2f\n", v }'; }
mb() { awk -v v="$1" 'BEGIN { if (v == "fail") print "failed"; else printf "%.0f\n", v / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "fail") print "-"; else if (b == "fail") print "peer failed"; else printf "%.3f\n", a / b }'; }
rate() { awk -v n="$1" -v w="$2" 'BEGIN { if (w == "fail") print "-"; else printf "%.3g\n", n / w }'; }
# top-level records "name:total:head" (create_llvm_prof 0.19 also writes
# lines of garbage bytes where inlined callees' names should be)
funcs() { if [ -s "$1" ]; then echo "$(grep -a -c -E '^[A-Za-z_.$][^ :]*:[0-9]+:[0-9]+$' "$1" || true) functions"; else echo 'no output (failed)'; fi; }
row() { printf '|'; printf ' %s |' "$@"; echo; }
name() { case $1 in import) echo 'pgoprof import' ;; convert) echo 'pgoprof convert' ;; afdo) echo 'pgoprof convert -f afdo' ;;
         script) echo 'perf script' ;; profgen) echo 'llvm-profgen-16' ;; clp) echo create_llvm_prof ;; gcov) echo create_gcov ;; esac; }
# tables of kind k over sizes "$@"
tables() {
    local k=$1 steps peers n; shift
    if [ "$k" = lbr ]; then steps="import convert afdo script profgen clp gcov"; else steps="import convert afdo clp gcov"; fi
    echo "Wall time, seconds (pipelines: the sum of their steps):"
    echo
    if [ "$k" = lbr ]; then
        echo "| samples | perf.data MB | pgoprof import | pgoprof convert | pgoprof import + convert | perf script | llvm-profgen | perf script + llvm-profgen | create_llvm_prof | pgoprof import + convert -f afdo | create_gcov |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "| samples | perf.data MB | pgoprof import | pgoprof convert | pgoprof import + convert | create_llvm_prof | pgoprof import + convert -f afdo | create_gcov |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    fi
    for n in "$@"; do
        local cells=("$(fmt_n "$n")" "$(stat -c %s "$W/$k-$n/perf.data" | awk '{ printf "%.0f", $1 / 1e6 }')"
                     "$(sec "$(col "$k" import "$n" 5)")" "$(sec "$(col "$k" convert "$n" 5)")"
                     "$(sec "$(pipe "$k" 5 "$n" import convert)")")
        [ "$k" = lbr ] && cells+=("$(sec "$(col "$k" script "$n" 5)")" "$(sec "$(col "$k" profgen "$n" 5)")"
                                  "$(sec "$(pipe "$k" 5 "$n" script profgen)")")
        cells+=("$(sec "$(col "$k" clp "$n" 5)")" "$(sec "$(pipe "$k" 5 "$n" import afdo)")" "$(sec "$(col "$k" gcov "$n" 5)")")
        row "${cells[@]}"
    done
    echo
    echo "Peak RSS, MB (pipelines: their largest step):"
    echo
    if [ "$k" = lbr ]; then
        echo "| samples | pgoprof import | pgoprof convert | pgoprof convert -f afdo | perf script | llvm-profgen | create_llvm_prof | create_gcov |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "| samples | pgoprof import | pgoprof convert | pgoprof convert -f afdo | create_llvm_prof | create_gcov |"
        echo "|---:|---:|---:|---:|---:|---:|"
    fi
    for n in "$@"; do
        local cells=("$(fmt_n "$n")")
        for t in $steps; do cells+=("$(mb "$(col "$k" "$t" "$n" 6)")"); done
        row "${cells[@]}"
    done
    echo
    echo "Ratios, pgoprof / peer (below 1: pgoprof is faster or smaller), whole pipelines from the same perf.data; throughput in samples/s:"
    echo
    if [ "$k" = lbr ]; then
        echo "| samples | time vs perf script + llvm-profgen | time, convert alone vs llvm-profgen alone | time vs create_llvm_prof | time (afdo) vs create_gcov | RSS vs llvm-profgen | RSS vs create_llvm_prof | RSS (afdo) vs create_gcov | pgoprof samples/s | llvm-profgen samples/s | create_llvm_prof samples/s |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "| samples | time vs create_llvm_prof | time (afdo) vs create_gcov | RSS vs create_llvm_prof | RSS (afdo) vs create_gcov | pgoprof samples/s | create_llvm_prof samples/s |"
        echo "|---:|---:|---:|---:|---:|---:|---:|"
    fi
    for n in "$@"; do
        local ours oursa pg cells
        ours=$(pipe "$k" 5 "$n" import convert) oursa=$(pipe "$k" 5 "$n" import afdo)
        cells=("$(fmt_n "$n")")
        [ "$k" = lbr ] && { pg=$(pipe "$k" 5 "$n" script profgen)
            cells+=("$(ratio "$ours" "$pg")" "$(ratio "$(col "$k" convert "$n" 5)" "$(col "$k" profgen "$n" 5)")"); }
        cells+=("$(ratio "$ours" "$(col "$k" clp "$n" 5)")" "$(ratio "$oursa" "$(col "$k" gcov "$n" 5)")")
        [ "$k" = lbr ] && cells+=("$(ratio "$(pipe "$k" 6 "$n" import convert)" "$(pipe "$k" 6 "$n" script profgen)")")
        cells+=("$(ratio "$(pipe "$k" 6 "$n" import convert)" "$(col "$k" clp "$n" 6)")"
                "$(ratio "$(pipe "$k" 6 "$n" import afdo)" "$(col "$k" gcov "$n" 6)")" "$(rate "$n" "$ours")")
        [ "$k" = lbr ] && cells+=("$(rate "$n" "$pg")")
        cells+=("$(rate "$n" "$(col "$k" clp "$n" 5)")")
        row "${cells[@]}"
    done
    echo
    echo "Growth, slope of log(y) vs log(samples) over the sizes where the step ran (1 = linear):"
    echo
    echo "| step | wall time | peak RSS |"
    echo "|---|---:|---:|"
    for t in $steps; do
        row "$(name "$t")" "$(for n in "$@"; do echo "$n $(col "$k" "$t" "$n" 5)"; done | slope)" \
            "$(for n in "$@"; do echo "$n $(col "$k" "$t" "$n" 6)"; done | slope)"
    done
    echo
}
{
echo "## Conversion speed and memory against the peers (bench/convert-speed.sh)"
echo
echo "Binary: speedtest1 (sqlite $(cat "$REPO/bench/work/sqlite/src/VERSION" 2>/dev/null || echo '?'); clang-16 $BFLAGS; $(stat -c %s "$B") bytes). $(date -u +%F), $(nproc) CPUs shared with other jobs: wall times are medians of the rounds; peak RSS from /usr/bin/time -v. Peers: llvm-profgen-16 (after perf script $(perf version 2>/dev/null | awk '{ print $3 }')), AutoFDO $(dpkg-query -W -f='${Version}' autofdo 2>/dev/null) create_llvm_prof and create_gcov, each limited to $MEM_GB GB of address space (ulimit -v). Rounds: $RUNS below 10^6 samples, ${BIGRUNS:-3} at 10^6, ${BIGRUNS:-1} above; in each round the pipelines run in a rotated order. Inputs: build/bench/lbrgen -n N -s 1 (synth/walk.c: a random walk over speedtest1's machine code), one perf.data per size that every pipeline reads. pgoprof: \`pgoprof import\` (perf.data -> raw profile, aggregated) then \`pgoprof convert\` (-f llvm-text; -f afdo for GCC). A profile from \`pgoprof record\` is aggregated in the kernel already, so \`pgoprof convert\` alone is what a pgoprof user waits for; import is what perf users pay."
echo
echo "### Branch records (perf record -b: 32 taken branches a sample)"
echo
echo "llvm-profgen: \`perf script -F ip,brstack --show-mmap-events\` then \`llvm-profgen --perfscript\` (--format=text). AutoFDO: \`create_llvm_prof --format text\` and \`create_gcov\` read the perf.data themselves."
echo
tables lbr "${LS[@]}"
echo "Outputs at $(fmt_n "${LS[-1]}") samples (last round): pgoprof $(funcs "$W/ours-lbr.txt"), $(wc -l <"$W/ours-lbr.txt" 2>/dev/null || echo 0) lines; llvm-profgen $(funcs "$W/ref.txt"), $(wc -l <"$W/ref.txt" 2>/dev/null || echo 0) lines, $(diff "$W/ours-lbr.txt" "$W/ref.txt" 2>/dev/null | grep -c '^<' || true) of pgoprof's lines differ from it (call targets into the pretend libc, which llvm-profgen cannot see: tests/unit/test_lbr.c); create_llvm_prof $(funcs "$W/clp-lbr.txt") (where it runs, its text output also has lines of garbage bytes where the names of inlined callees belong: AutoFDO 0.19). perf script text: $(for n in "${LS[@]}"; do printf '%s %.0f MB; ' "$(fmt_n "$n")" "$(awk '{ print $1 / 1e6 }' "$W/lbr-$n/perf.txt.size" 2>/dev/null)"; done)"
echo
echo "### Stack samples (perf record -g: call chains)"
echo
echo "Same walk, written with \`lbrgen --callchain\`: each sample an IP and its call chain. llvm-profgen-16 makes no profile from call chains without branch records, so the peers are AutoFDO's tools with \`--use_lbr=false\` (they then count the samples' IPs only; pgoprof also turns the chains into call targets)."
echo
tables stack "${SS[@]}"
echo "Outputs at $(fmt_n "${SS[-1]}") samples (last round): pgoprof $(funcs "$W/ours-stack.txt"); create_llvm_prof $(funcs "$W/clp-stack.txt")."
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else mkdir -p "$(dirname "$OUT")"; cp "$W/table.md" "$OUT"; cat "$OUT"; fi
