#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of 'pgoprof record --exact' per engine (issue 30): the training
# run natively, under the qemu engine and under callgrind, and whether the
# two engines give the same profile (pgoprof compare, per instruction, and
# the Ir of the program rebuilt with each).
set -euo pipefail

usage() {
    cat <<USAGE
Usage: $0 [OPTIONS]

For each program, the exact build (clang-16: -O2 -g -gdwarf-4
-fdebug-info-for-profiling, pgo.mk's exact flags with DWARF 4 so that both
engines run the same binary; gcc-12: -O2 -g) runs its training input

  native     the command alone
  qemu       under 'pgoprof record --exact --engine qemu'
  callgrind  under 'pgoprof record --exact --engine callgrind'

in interleaved rounds (the order rotates each round), timing the wall
clock and the user+sys CPU of the whole process tree (bash's time). The
table gives the medians, each engine's slowdown against native and qemu
against callgrind (ratios of medians).

Then, per program: whether the rounds' raw profiles of one engine are
byte-identical; the instructions of the program's own binary whose
counts differ between the engines (pgoprof show -b); the 'pgoprof
compare' overlap (body, head, target) of the two profiles converted
alike (as bench/quality.sh converts its exact profile); and the Ir
(cachegrind, reduced input, as quality.sh) of -O2 and of the program
rebuilt with each profile.

Options:
  -w, --workload W[,W]   sqlite, bzip2, lua, or all (default all)
  -c, --compiler C       clang or gcc (default clang)
  -R, --rounds N         interleaved rounds (default 3)
      --cg-rounds N|W=N[,W=N]
                         rounds that run callgrind too, for every program
                         or per program (default: all; callgrind on
                         speedtest1 takes minutes a run: sqlite=1)
  -j, --jobs N           parallel builds and cachegrind runs (default 2)
  -o, --output FILE      the Markdown (default bench/results/exact-engine.md;
                         '-': stdout only); notes below the marker are kept
      --work DIR         work directory (default bench/work/exact-engine)
      --fresh            rebuild and re-measure everything
  -h, --help             this text

Needs qemu-user (qemu-x86_64), valgrind, clang-16/gcc-12; run as root like
the other bench scripts (they fetch sources with apt-get source).
USAGE
}

die() { echo "exact-engine: $*" >&2; exit 1; }
step() { echo "== exact-engine $(date +%T): $*" >&2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
CMDLINE="bench/exact-engine.sh${*:+ $*}"
PGOPROF=${PGOPROF:-$REPO/pgoprof}
workloads=all CC=clang rounds=3 cgrounds= jobs=2 fresh=
out=$REPO/bench/results/exact-engine.md
WROOT=$REPO/bench/work/exact-engine
profi=-fsample-profile-use-profi

while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -w|--workload|-c|--compiler|-R|--rounds|--cg-rounds|-j|--jobs|-o|--output|--work)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in
                -w|--workload) workloads=$2 ;;
                -c|--compiler) CC=$2 ;;
                -R|--rounds) rounds=$2 ;;
                --cg-rounds) cgrounds=$2 ;;
                -j|--jobs) jobs=$2 ;;
                -o|--output) out=$2 ;;
                --work) WROOT=$2 ;;
            esac
            shift 2 ;;
        --fresh) fresh=1; shift ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[ "$workloads" = all ] && workloads=sqlite,bzip2,lua
IFS=, read -ra WLS <<<"$workloads"
for w in "${WLS[@]}"; do case $w in sqlite|bzip2|lua) ;; *) die "unknown workload '$w' (sqlite, bzip2, lua)" ;; esac; done
case $CC in clang) CCBIN=clang-16 ;; gcc) CCBIN=gcc-12 ;; *) die "unknown compiler '$CC' (clang, gcc)" ;; esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-R must be a positive integer, got '$rounds'"
[[ ${cgrounds:-$rounds} =~ ^[1-9][0-9]*$|^[a-z0-9]+=[1-9][0-9]*(,[a-z0-9]+=[1-9][0-9]*)*$ ]] \
    || die "--cg-rounds: N or W=N[,W=N], got '$cgrounds'"

# cg_rounds WL: the rounds that run callgrind for WL (at most -R)
cg_rounds() {
    local n=$rounds
    case ${cgrounds:-} in
        *=*) n=$(tr , '\n' <<<"$cgrounds" | awk -F= -v w="$1" -v n="$rounds" '$1 == w { n = $2 } END { print n }') ;;
        ?*) n=$cgrounds ;;
    esac
    [ "$n" -le "$rounds" ] || n=$rounds
    echo "$n"
}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j must be a positive integer, got '$jobs'"
. "$REPO/bench/workloads.sh"
wl_setup
[ -f "$REPO/pgoprof-count.so" ] || die "no $REPO/pgoprof-count.so (make builds it)"
"$PGOPROF" record --exact --engine qemu --print-engine >/dev/null 2>&1 \
    || die "the qemu engine cannot run here (apt-get install qemu-user)"

# ---------------------------------------------------------------- runs

# timed NAME K CMD...: run CMD (output to the log), append "wall cpu" (s;
# cpu = user + sys of CMD and its children) to $W/times/NAME
timed() {
    local name=$1 k=$2 t TIMEFORMAT='%R %U %S'
    shift 2
    t=$({ time "$@" >"$W/logs/$name-r$k.log" 2>&1; } 2>&1) \
        || { tail -n 20 "$W/logs/$name-r$k.log" >&2; die "$WL: $name round $k failed"; }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t" >>"$W/times/$name"
}

# run_round K: one round of native, qemu and callgrind (up to --cg-rounds),
# the order rotated by K
run_round() {
    local k=$1 order=(native qemu callgrind) i e
    for ((i = 0; i < 3; i++)); do
        e=${order[(i + k) % 3]}
        [ "$e" != callgrind ] || [ "$k" -le "$(cg_rounds "$WL")" ] || continue
        step "$WL: round $k/$rounds, $e"
        case $e in
            native) timed native "$k" "${TRAIN[@]}" ;;
            *) timed "$e" "$k" "$PGOPROF" record --exact --engine "$e" \
                   -o "$W/prof/$e-r$k.raw" -- "${TRAIN[@]}" ;;
        esac
    done
}

# col NAME N: the median of column N of $W/times/NAME
col() { awk -v c="$2" '{ print $c }' "$W/times/$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", (a / b - 1) * 100 }'; }

# same_rounds E: "yes" when every round's raw profile of engine E is
# byte-identical to round 1's, else "no" and the files whose counts differ
same_rounds() {
    local f d=
    for f in "$W/prof/$1"-r*.raw; do
        cmp -s "$f" "$W/prof/$1-r1.raw" && continue
        d="$d $(diff <("$PGOPROF" show "$W/prof/$1-r1.raw" | obj_lines) <("$PGOPROF" show "$f" | obj_lines) \
            | awk '/^[<>]/ { sub(/\|.*/, "", $2); sub(/.*\//, "", $2); print $2 }')"
    done
    if [ -z "$d" ]; then echo yes; else echo "no ($(tr ' ' '\n' <<<"$d" | sort -u | grep . | paste -sd, -))"; fi
}
# obj_lines: pgoprof show's ranges and branches prefixed with their object's path
obj_lines() { awk '$1 == "object" { for (i = 2; i < NF; i++) if ($i == "path") o = $(i + 1) }
                   $1 == "range" || $1 == "branch" { print o "|" $1, $2, $3, $4, $5 }'; }

# convert E: $W/prof/E.EXT (compiler input) and E.txt (LLVM text) from
# round 1's profile of engine E, as quality.sh converts its exact profile
convert() {
    local e=$1
    conv_opts
    "$PGOPROF" convert "$W/prof/$e-r1.raw" --binary "$W/bin/ex" "${CONV[@]}" \
        -o "$W/prof/$e.$EXT" 2>"$W/logs/convert-$e.log" \
        || { cat "$W/logs/convert-$e.log" >&2; die "pgoprof convert $e failed"; }
    "$PGOPROF" convert "$W/prof/$e-r1.raw" --binary "$W/bin/ex" --format llvm-text "${EST[@]}" \
        -o "$W/prof/$e.txt" -q || die "pgoprof convert $e --format llvm-text failed"
}

# flat E: $W/prof/E.flat, round 1's raw profile of engine E as sorted
# lines "KEY count": KEY = object path, then range A-B (an instruction's
# count: exact profiles write one range per instruction) or the call edge
# (site -> object path:callee)
flat() {
    "$PGOPROF" show "$W/prof/$1-r1.raw" | awk '
        $1 == "object" { for (i = 2; i < NF; i++) if ($i == "path") p[$2] = $(i + 1); o = p[$2] }
        $1 == "range" { print o "|" $2, $3 }
        $1 == "branch" { split($4, c, ":"); e[++n] = o "|" $2 "->" c[1] ":" c[2] " " $5 }
        END { for (i = 1; i <= n; i++) { split(e[i], f, "->"); split(f[2], c, ":"); print f[1] "->" p[c[1]] ":" c[2] } }' \
        | LC_ALL=C sort -k1,1 >"$W/prof/$1.flat"
}

# insn_diff OBJ: instructions of object path OBJ (a regex) in the two
# engines' profiles: "instructions differing sum|diff| qemu-total
# callgrind-total", then the same for call edges from OBJ
insn_diff() {
    LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 "$W/prof/qemu.flat" "$W/prof/callgrind.flat" \
        | awk -v o="$1" '{ split($1, k, "|") } k[1] ~ o && ($1 ~ /->/) == e {
                n++; d = $2 - $3; if (d) { nd++; ad += d < 0 ? -d : d }; tq += $2; tc += $3 }
            END { printf "%d %d %d %d %d\n", n, nd, ad, tq, tc }' e="${2:-0}"
}

run_one() {
    WL=$1
    W=$WROOT/$WL-$CC
    mkdir -p "$W/bin" "$W/prof" "$W/logs" "$W/times"
    wl_prepare
    local exflags
    case $CC in
        clang) exflags=(-O2 -g -gdwarf-4 -fdebug-info-for-profiling) ;;
        gcc) exflags=(-O2 -g) ;;
    esac
    step "$WL/$CC: -O2 and exact builds"
    pool_run build base "" -O2 -g
    pool_run build ex "" "${exflags[@]}"
    pool_wait
    wl_ref "$W/bin/base"

    # one untimed warm-up of the native run (page cache)
    wl_train_cmd "$W/bin/ex"
    "${TRAIN[@]}" >/dev/null 2>&1 || die "$WL: the training run failed"
    # the rounds, unless done already with the same binary, engines and
    # round counts (an interrupted run goes on from here)
    local k key
    key="$(md5 "$W/bin/ex" "$PGOPROF" "$REPO/pgoprof-count.so" | tr '\n' ' ')$rounds $(cg_rounds "$WL")"
    if [ -n "$fresh" ] || [ "$(cat "$W/times/key" 2>/dev/null)" != "$key" ]; then
        rm -f "$W/times"/* "$W/prof"/*-r*.raw
        for ((k = 1; k <= rounds; k++)); do run_round "$k"; done
        echo "$key" >"$W/times/key"
    fi

    step "$WL/$CC: convert both profiles, build with each"
    local e psum
    for e in qemu callgrind; do
        convert "$e"
        psum=$(md5 "$W/prof/$e.$EXT")
        use_flags "$W/prof/$e.$EXT"
        pool_run build "pgo-$e" "$psum${profi:+|}${profi}" "${USE[@]}"
    done
    pool_wait
    step "$WL/$CC: cachegrind ($(wl_cg_desc))"
    for e in base pgo-qemu pgo-callgrind; do pool_run measure_ir "$e"; done
    pool_wait
    "$PGOPROF" compare -n 8 -l 8 "$W/prof/callgrind.txt" "$W/prof/qemu.txt" >"$W/prof/compare.txt" \
        || die "pgoprof compare failed"

    # the row of the timing table and of the equivalence table
    local nw nc qw qc cw cc
    nw=$(col native 1) nc=$(col native 2)
    qw=$(col qemu 1) qc=$(col qemu 2)
    cw=$(col callgrind 1) cc=$(col callgrind 2)
    printf '| %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | **%s** | %s | %s | %s | %s | %s |\n' \
        "$WL" "$(wc -l <"$W/times/qemu")/$(wc -l <"$W/times/callgrind")" \
        "$nw" "$nc" "$qw" "$qc" "$cw" "$cc" \
        "$(ratio "$qw" "$nw")" "$(ratio "$qc" "$nc")" "$(ratio "$cw" "$nw")" "$(ratio "$cc" "$nc")" \
        "$(ratio2 "$qw" "$cw")" "$(ratio2 "$qc" "$cc")" >"$W/time.line"
    local irb irq irc n nd ad t b h tg ident
    irb=$(head -n 1 "$W/bin/base.ir")
    irq=$(head -n 1 "$W/bin/pgo-qemu.ir")
    irc=$(head -n 1 "$W/bin/pgo-callgrind.ir")
    flat qemu
    flat callgrind
    read -r n nd ad t _ <<<"$(insn_diff "^$W/bin/ex\$")"
    read -r b h tg <<<"$(awk '$1 == "body" { b = $2 } $1 == "head" { h = $2 } $1 == "target" { t = $2 }
                             END { print b, h, t }' "$W/prof/compare.txt")"
    ident=no
    cmp -s "$W/bin/pgo-qemu" "$W/bin/pgo-callgrind" && ident=yes
    printf '| %s | %s / %s | %d | %d (%.2g of counts) | %s | %s | %s | %.1f | %s | %s | %s |\n' \
        "$WL" "$(same_rounds qemu)" "$(same_rounds callgrind)" "$n" "$nd" \
        "$(awk -v a="$ad" -v t="$t" 'BEGIN { print t ? a / t : 0 }')" "$b" "$h" "$tg" \
        "$(awk -v a="$irb" 'BEGIN { print a / 1e6 }')" "$(pct "$irq" "$irb")" "$(pct "$irc" "$irb")" "$ident" >"$W/equiv.line"
}

# ---------------------------------------------------------------- the report

NOTES_MARK='<!-- notes: written by hand, kept when bench/exact-engine.sh rewrites this file -->'

report() {
    local w
    echo "## record --exact: qemu engine vs callgrind vs native ($(date -u +%F), pgoprof $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "Command: \`$CMDLINE\`"
    echo
    echo "Machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/Mem:/ { print $2 }') GiB,"
    echo "kernel $(uname -r), $($CCBIN --version | head -n 1), $(qemu-x86_64 --version | head -n 1), valgrind $(valgrind --version | sed 's/valgrind-//')."
    echo
    echo "Training runs of the exact build (\`${CCBIN}\`, pgo.mk's exact flags$( [ "$CC" = clang ] && echo ' with -gdwarf-4 for both engines')):"
    for w in "${WLS[@]}"; do WL=$w; W=$WROOT/$w-$CC; echo "$w: $(wl_train_desc)."; done
    echo
    echo "Medians over interleaved rounds (runs: qemu/callgrind), seconds; cpu = user + sys of the process tree."
    echo
    echo "| program | runs | native wall | native cpu | qemu wall | qemu cpu | callgrind wall | callgrind cpu | qemu/native wall | qemu/native cpu | callgrind/native wall | callgrind/native cpu | qemu/callgrind wall | qemu/callgrind cpu |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for w in "${WLS[@]}"; do cat "$WROOT/$w-$CC/time.line" 2>/dev/null || true; done
    echo
    echo "Equivalence: rounds identical = every round's raw profile byte-identical to the first (qemu / callgrind);"
    echo "instructions = the program's own instructions with a count in either profile (\`pgoprof show\`'s ranges), differing ="
    echo "those whose counts differ (sum of |difference| over qemu's total); body, head, target = \`pgoprof compare\`"
    echo "of the two profiles converted alike (\`convert --format llvm-text\` with quality.sh's options); Ir = cachegrind,"
    echo "$( [ "$CC" = clang ] && echo "reduced input, -O2 and the program built with each profile (\`-fprofile-sample-use $profi\`)" || echo "reduced input, -O2 and the program built with each profile (\`-fauto-profile\`)")."
    echo
    echo "| program | rounds identical | instructions | differing | body | head | target | -O2 Ir (M) | Ir, qemu profile | Ir, callgrind profile | same binary |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for w in "${WLS[@]}"; do cat "$WROOT/$w-$CC/equiv.line" 2>/dev/null || true; done
    echo
    [ "$out" = - ] || [ ! -f "$out" ] || awk -v m="$NOTES_MARK" 'index($0, m) == 1 { p = 1 } p' "$out"
}

mkdir -p "$WROOT"
for WLx in "${WLS[@]}"; do
    run_one "$WLx"
    if [ "$out" != - ]; then
        mkdir -p "$(dirname "$out")"
        report >"$out.tmp" && mv "$out.tmp" "$out"
    fi
done
report
[ "$out" = - ] || echo "exact-engine: wrote $out" >&2
