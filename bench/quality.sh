#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Profile quality: how close sampled profiles come to an exact-count profile
# of the same training run, in the compiler's result (executed instructions
# under cachegrind) and in the profile itself (pgoprof compare).
set -euo pipefail

usage() {
    cat <<USAGE
Usage: $0 [OPTIONS]

For each program and compiler, with the defaults a user of pgo/pgo.mk gets
(clang-16: extbinary, --estimator sum --call-targets calls,
-fsample-profile-use-profi; gcc-12: afdo, --gcc-version 12, --estimator sum
--call-targets stack, -fno-unroll-loops --param=tracer-dynamic-coverage=0),
builds

  baseline      -O2 -g
  instrumented  clang -fprofile-instr-generate/-use, gcc -fprofile-generate/-use
  exact         the exact build (clang: -O2 -g -gdwarf-4
                -fdebug-info-for-profiling; gcc: -O2 -g) run once under
                'pgoprof record --exact' (qemu-user or callgrind) on the training run,
                converted, and used as the profile
  sampled HZ    the sampled build (clang: -O2 -g -fdebug-info-for-profiling
                -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer; gcc:
                -O2 -g -fno-omit-frame-pointer) recorded by 'pgoprof record
                -F HZ' on the same training run, REPS independent
                recordings per HZ, each converted and built on its own

and measures each binary's executed instructions (Ir, cachegrind on an
'objcopy --strip-debug' copy, reduced input; outputs checked), and each
sampled profile's overlap with the exact one ('pgoprof compare' of the two
as LLVM text: body, head, target). Writes a Markdown table per program x
compiler (median over the recordings, min..max spread, the fraction of the
exact profile's Ir reduction reached) and the functions whose share
differs most between the exact and a sampled profile.

Programs (sources fetched at first use with apt-get source, never committed):
  sqlite  SQLite's speedtest1; training --memdb --size 100, cachegrind --size 10
  bzip2   bzip2 1.0.8: -9 then -d of a generated text corpus; training 10 MiB,
          cachegrind 2 MiB
  lua     Lua 5.4 running bench/lua-bench.lua; training 16 rounds, cachegrind 1
  zstd    zstd 1.5.4 (programs/ zstd-small): training -3 then -d of a generated
          32 MiB text corpus; cachegrind -19 then -d of 256 KiB of zstd's C
          sources (other input, other level: code training never ran)
  gawk    gawk 5.2.1 running bench/gawk-bench.awk (LC_ALL=C.UTF-8); training
          on a generated 4 MiB text corpus, cachegrind on 512 KiB of gawk's
          C sources

Options:
  -w, --workload W[,W]   sqlite, bzip2, lua, zstd, gawk, or all (default all)
  -c, --compiler C[,C]   clang, gcc, or all (default all)
  -F, --freq HZ[,HZ]     sampling rates (default 99,999,9999; none: no
                         cpu-clock recordings)
  -S, --sim N[,N]        simulated execution-proportional samples (issue
                         28): N samples drawn from the exact profile of the
                         training run in proportion to each instruction's
                         count (build/bench/expsample, seeds 1..REPS), and
                         N/skid with half of them moved to the next executed
                         instruction (e.g. 5000,50000,500000,50000/skid);
                         converted with the exact build (default: none)
  -E, --sim-estimators E[,E]
                         the estimators the simulated profiles are
                         converted with, each a row (default: auto, what
                         convert picks for their signal)
      --no-instr         no instrumented-PGO build (its row shows —)
  -R, --replicates K     independent recordings per rate (default 3)
  -n, --top N            functions listed per program x compiler (default 8)
  -j, --jobs N           parallel builds and cachegrind runs (default 2)
  -V, --variant NAME     a variant for an ablation: the sampled and
                         simulated profiles and builds are named ID.NAME,
                         and the exact profile is converted once more as
                         exact.NAME (a row and a column of its own); the
                         recordings are shared (default: none)
  -X, --convert-opts O   more 'pgoprof convert' options for the variant's
                         profiles (split at spaces), e.g. '--cold-cut 1e-7';
                         without -V, for the sampled profiles only
      --no-profi         clang: build without -fsample-profile-use-profi
  -o, --output FILE      the Markdown (default bench/results/quality.md; '-':
                         stdout only); rewritten after each program x compiler
      --work DIR         work directory (default bench/work/quality)
      --fresh            rebuild, re-record and re-measure everything
  -h, --help             this text

Builds, recordings and Ir values are cached in the work directory by their
inputs, so an interrupted run goes on where it stopped. Needs root
(pgoprof record) and valgrind.
USAGE
}

die() { echo "quality: $*" >&2; exit 1; }
step() { echo "== quality $(date +%T): $*" >&2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
CMDLINE="bench/quality.sh${*:+ $*}"
PGOPROF=${PGOPROF:-$REPO/pgoprof}
workloads=all compilers=all freqs=99,999,9999 nrep=3 top=8 jobs=2 fresh=
variant= xopts= profi=-fsample-profile-use-profi
sims= simests=auto instr=1
EXPSAMPLE=${EXPSAMPLE:-$REPO/build/bench/expsample}
out=$REPO/bench/results/quality.md
WROOT=$REPO/bench/work/quality

while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -w|--workload|-c|--compiler|-F|--freq|-R|--replicates|-n|--top|-j|--jobs|-o|--output|--work|-V|--variant|-X|--convert-opts|-S|--sim|-E|--sim-estimators)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in
                -w|--workload) workloads=$2 ;;
                -c|--compiler) compilers=$2 ;;
                -F|--freq) freqs=$2 ;;
                -R|--replicates) nrep=$2 ;;
                -n|--top) top=$2 ;;
                -j|--jobs) jobs=$2 ;;
                -o|--output) out=$2 ;;
                --work) WROOT=$2 ;;
                -V|--variant) variant=.$2 ;;
                -X|--convert-opts) xopts=$2 ;;
                -S|--sim) sims=$2 ;;
                -E|--sim-estimators) simests=$2 ;;
            esac
            shift 2 ;;
        --fresh) fresh=1; shift ;;
        --no-profi) profi=; shift ;;
        --no-instr) instr=; shift ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
. "$REPO/bench/workloads.sh"
[ "$workloads" = all ] && workloads=${WORKLOADS// /,}
[ "$compilers" = all ] && compilers=clang,gcc
IFS=, read -ra WLS <<<"$workloads"
IFS=, read -ra CCS <<<"$compilers"
FREQS=() SIMS=() SIMESTS=()
[ "$freqs" = none ] || IFS=, read -ra FREQS <<<"$freqs"
[ -z "$sims" ] || IFS=, read -ra SIMS <<<"$sims"
IFS=, read -ra SIMESTS <<<"$simests"
for s in "${SIMS[@]}"; do [[ $s =~ ^[1-9][0-9]*(/skid)?$ ]] || die "-S: bad sample count '$s' (N or N/skid)"; done
for e in "${SIMESTS[@]}"; do case $e in auto|mean|sum|max|block|block-capped|flow) ;; *) die "-E: unknown estimator '$e'" ;; esac; done
for w in "${WLS[@]}"; do [[ " $WORKLOADS " == *" $w "* ]] || die "unknown workload '$w' (${WORKLOADS// /, })"; done
for c in "${CCS[@]}"; do case $c in clang|gcc) ;; *) die "unknown compiler '$c' (clang, gcc)" ;; esac; done
for f in "${FREQS[@]}"; do [[ $f =~ ^[1-9][0-9]*$ ]] || die "-F: bad frequency '$f'"; done
[[ $nrep =~ ^[1-9][0-9]*$ ]] || die "-R must be a positive integer, got '$nrep'"
[[ $top =~ ^[0-9]+$ ]] || die "-n must be a number, got '$top'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j must be a positive integer, got '$jobs'"
wl_setup

# ---------------------------------------------------------------- profiles

# record ID HZ: $W/prof/ID.raw, a recording of the training run (HZ = exact:
# 'pgoprof record --exact' of the exact build), cached by the binary's checksum
record() {
    local id=$1 hz=$2 raw=$W/prof/$1.raw bin sum t0 t1
    bin=$W/bin/fp
    [ "$hz" = exact ] && bin=$W/bin/ex
    sum=$(md5 "$bin")
    if [ -z "$fresh" ] && [ -s "$raw" ] && [ "$(cat "$raw.key" 2>/dev/null)" = "$sum" ]; then
        return 0
    fi
    wl_train_cmd "$bin"
    t0=$EPOCHREALTIME
    if [ "$hz" = exact ]; then
        step "$WL/$CC: record --exact of the training run"
        "$PGOPROF" record --exact -o "$raw" -- "${TRAIN[@]}" >"$W/logs/record-$id.log" 2>&1 \
            || { tail -n 20 "$W/logs/record-$id.log" >&2; die "pgoprof record --exact failed"; }
    else
        step "$WL/$CC: record -F $hz ($id)"
        "$PGOPROF" record -F "$hz" -o "$raw" -- "${TRAIN[@]}" >"$W/logs/record-$id.log" 2>&1 \
            || { tail -n 20 "$W/logs/record-$id.log" >&2; die "pgoprof record failed"; }
    fi
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$raw.secs"
    echo "$sum" >"$raw.key"
}

# pid ID: the name of the profile of recording ID (its variant's, for a
# sampled one)
pid() { if [ "$1" = exact ]; then echo exact; else echo "$1$variant"; fi; }

# convert ID [RAW EST]: $W/prof/PID.EXT (the compiler's input) and
# $W/prof/PID.txt (LLVM text, same estimator), from the binary the raw
# profile is of; a simulated profile or the exact one's variant (RAW, of
# the exact build) is converted with estimator EST (and the variant's
# options) and named ID
convert() {
    local id=$1 bin=$W/bin/fp p x=() raw=$W/prof/$1.raw
    p=$(pid "$id")
    [ "$id" = exact ] && bin=$W/bin/ex
    [ "$id" = exact ] || read -ra x <<<"$xopts"
    conv_opts
    if [ $# -gt 1 ]; then
        raw=$2 bin=$W/bin/ex p=$id
        [ -n "$variant" ] || x=()
        conv_opts "$3"
    fi
    "$PGOPROF" convert "$raw" --binary "$bin" "${CONV[@]}" "${x[@]}" \
        -o "$W/prof/$p.$EXT" 2>"$W/logs/convert-$p.log" \
        || { cat "$W/logs/convert-$p.log" >&2; die "pgoprof convert $p failed"; }
    "$PGOPROF" convert "$raw" --binary "$bin" --format llvm-text "${EST[@]}" "${x[@]}" \
        -o "$W/prof/$p.txt" -q || die "pgoprof convert $p --format llvm-text failed"
}

# sim_id SPEC K EST: the name of a simulated profile
sim_id() { echo "sim-${1/\//-}-r$2.$3$variant"; }

# simulate SPEC K: $W/prof/sim-SPEC-rK.raw ('/' as '-'), SPEC's samples
# (N or N/skid) drawn from the exact profile with seed K, cached by the
# exact profile's checksum and expsample's
simulate() {
    local raw=$W/prof/sim-${1/\//-}-r$2.raw n=${1%/skid} key skid=()
    [ "$n" = "$1" ] || skid=(--skid 0.5)
    key="$(md5 "$W/prof/exact.raw") $(md5 "$EXPSAMPLE") $n ${skid[*]} $2"
    if [ -z "$fresh" ] && [ -s "$raw" ] && [ "$(cat "$raw.key" 2>/dev/null)" = "$key" ]; then
        return 0
    fi
    "$EXPSAMPLE" "$W/prof/exact.raw" -n "$n" "${skid[@]}" --seed "$2" -o "$raw" \
        2>"$W/logs/expsample-${1/\//-}-r$2.log" || die "expsample $1 failed (see $W/logs)"
    echo "$key" >"$raw.key"
}

# samples ID: the sampled binary's samples (cpu-clock) in the recording
samples() {
    awk '/samples of/ { print $3; exit }' "$W/logs/convert-$1.log"
}

# used_hz ID: the rate the recording ran at (pgoprof-record lowers a rate
# above 1000 Hz to what keeps sampling under perf_cpu_time_max_percent)
used_hz() {
    grep -o 'recording at [0-9]* Hz' "$W/logs/record-$1.log" | grep -o '[0-9][0-9]*' | head -n 1
}

# overlap ID: "body head target" of ID against the exact profile; the full
# output of pgoprof compare in $W/prof/ID.compare
overlap() {
    "$PGOPROF" compare -n "$top" "$W/prof/exact.txt" "$W/prof/$1.txt" >"$W/prof/$1.compare" \
        || die "pgoprof compare exact $1 failed"
    awk '$1 == "body" { b = $2 } $1 == "head" { h = $2 } $1 == "target" { t = $2 }
         END { print b, h, t }' "$W/prof/$1.compare"
}

# A profile on which the compiler stops with an internal compiler error is
# built again with this added (gcc-12's vectorizer divides by zero on some
# exact-count profiles; see bench/results/quality.md), and marked.
ICE_WORKAROUND=-fno-tree-loop-vectorize

# build_pgo NAME KEY FLAGS...: build NAME; on an internal compiler error,
# again with ICE_WORKAROUND, noted in $W/bin/NAME.workaround ("KEY|FLAGS")
build_pgo() {
    local nm=$1 key=$2
    shift 2
    local b=$W/bin/$nm log=$W/logs/build-$nm.log
    if [ -z "$fresh" ] && [ "$(cut -d'|' -f1 "$b.workaround" 2>/dev/null)" = "$key" ]; then
        build "$nm" "$key" "$@" $ICE_WORKAROUND
        return
    fi
    rm -f "$b.workaround"
    build "$nm" "$key" "$@" 2>/dev/null && return 0
    grep -q 'internal compiler error' "$log" || { tail -n 20 "$log" >&2; return 1; }
    step "$WL/$CC: $nm: $(grep -m1 -o 'internal compiler error.*' "$log") ($(grep -m1 -o 'during [A-Z]* pass: [a-z0-9_]*' "$log")); again with $ICE_WORKAROUND"
    cp "$log" "$W/logs/build-$nm.ice.log"
    build "$nm" "$key" "$@" $ICE_WORKAROUND || return 1
    echo "$key|$ICE_WORKAROUND" >"$b.workaround"
}
wa() { [ -s "$W/bin/$1.workaround" ] && echo " †" || true; }

# ---------------------------------------------------------------- statistics

# stat3: the median, min and max of the numbers on stdin ("med min max")
stat3() {
    sort -g | awk '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              print m, v[1], v[NR] }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", (a / b - 1) * 100 }'; }

# sim_row SPEC EST: the table row of the simulated profiles SPEC converted
# with EST (median over the seeds), their lines in recordings.txt.tmp;
# SIM_MED: the median Ir.  Needs irb, ire.
sim_row() {
    local sp=$1 e=$2 k p irs=() ovs=() smp=() med mn mx b h t
    for ((k = 1; k <= nrep; k++)); do
        p=$(sim_id "$sp" "$k" "$e")
        irs+=("$(head -n 1 "$W/bin/pgo-$p.ir")")
        ovs+=("$(overlap "$p")")
        smp+=("$(samples "$p")")
        printf '%s %s %s %s %s - -\n' "$WL-$CC" "$p" "${smp[k-1]}" "$(pct "${irs[k-1]}" "$irb")" "${ovs[k-1]}" >>"$W/recordings.txt.tmp"
    done
    read -r med mn mx <<<"$(printf '%s\n' "${irs[@]}" | stat3)"
    b=$(printf '%s\n' "${ovs[@]}" | awk '{ print $1 }' | stat3 | cut -d' ' -f1)
    h=$(printf '%s\n' "${ovs[@]}" | awk '{ print $2 }' | stat3 | cut -d' ' -f1)
    t=$(printf '%s\n' "${ovs[@]}" | awk '{ print $3 }' | stat3 | cut -d' ' -f1)
    printf '| simulated exec %s%s, --estimator %s (median of %d)%s | %s | %.1f | %s | %s..%s | %s | %.4f | %.4f | %.4f |\n' \
        "${sp%/skid}" "$( [ "$sp" = "${sp%/skid}" ] || echo ', skid 0.5')" "$e" "$nrep" \
        "$(for ((k = 1; k <= nrep; k++)); do wa "pgo-$(sim_id "$sp" "$k" "$e")"; done | head -n 1)" \
        "$(printf '%s\n' "${smp[@]}" | stat3 | cut -d' ' -f1)" "$(awk -v a="$med" 'BEGIN { print a / 1e6 }')" \
        "$(pct "$med" "$irb")" "$(pct "$mn" "$irb")" "$(pct "$mx" "$irb")" \
        "$(awk -v a="$med" -v b="$irb" -v e="$ire" 'BEGIN { printf (b == e ? "—" : "%.2f"), (b - a) / (b - e) }')" "$b" "$h" "$t"
    SIM_MED=$med
}

# ---------------------------------------------------------------- one program x compiler

run_one() {
    WL=$1 CC=$2
    W=$WROOT/$WL-$CC
    mkdir -p "$W/bin" "$W/prof" "$W/logs"
    case $CC in clang) CCBIN=clang-16 ;; gcc) CCBIN=gcc-12 ;; esac
    wl_prepare

    local fpflags exflags
    case $CC in
        clang) fpflags=(-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
               exflags=(-O2 -g -gdwarf-4 -fdebug-info-for-profiling) ;;
        gcc) fpflags=(-O2 -g -fno-omit-frame-pointer)
             exflags=(-O2 -g) ;;
    esac
    step "$WL/$CC: baseline, sampled and exact builds"
    pool_run build base "" -O2 -g
    [ ${#FREQS[@]} -eq 0 ] || pool_run build fp "" "${fpflags[@]}"
    pool_run build ex "" "${exflags[@]}"
    pool_wait
    wl_ref "$W/bin/base"
    [ -z "$instr" ] || build_instr

    # recordings: the exact one, then REPS per rate
    local ids=() hz k id
    : >"$W/recordings.txt.tmp"
    record exact exact
    for hz in "${FREQS[@]}"; do
        for ((k = 1; k <= nrep; k++)); do
            id=F$hz-r$k
            record "$id" "$hz"
            ids+=("$id")
        done
    done

    step "$WL/$CC: convert, build with each profile"
    conv_opts
    local names=(base ${instr:+instr}) nm psum p sp e
    for id in exact "${ids[@]}"; do
        convert "$id"
        p=$(pid "$id")
        psum=$(md5 "$W/prof/$p.$EXT")
        use_flags "$W/prof/$p.$EXT"
        pool_run build_pgo "pgo-$p" "$psum${profi:+|}${profi:-|no-profi}" "${USE[@]}"
        names+=("pgo-$p")
    done
    # the exact profile converted with the variant's options (-V, -X)
    if [ -n "$variant" ]; then
        p=exact$variant
        convert "$p" "$W/prof/exact.raw" sum
        psum=$(md5 "$W/prof/$p.$EXT")
        use_flags "$W/prof/$p.$EXT"
        pool_run build_pgo "pgo-$p" "$psum${profi:+|}${profi:-|no-profi}" "${USE[@]}"
        names+=("pgo-$p")
    fi
    # simulated execution-proportional samples, of the exact build
    for sp in "${SIMS[@]}"; do
        for ((k = 1; k <= nrep; k++)); do
            simulate "$sp" "$k"
            for e in "${SIMESTS[@]}"; do
                p=$(sim_id "$sp" "$k" "$e")
                convert "$p" "$W/prof/sim-${sp/\//-}-r$k.raw" "$e"
                psum=$(md5 "$W/prof/$p.$EXT")
                use_flags "$W/prof/$p.$EXT"
                pool_run build_pgo "pgo-$p" "$psum${profi:+|}${profi:-|no-profi}" "${USE[@]}"
                names+=("pgo-$p")
            done
        done
    done
    pool_wait
    # the baseline with the workaround too, when a profile needed it
    if ls "$W"/bin/*.workaround >/dev/null 2>&1; then
        build base-wa "" -O2 -g $ICE_WORKAROUND
        names+=(base-wa)
    fi

    step "$WL/$CC: cachegrind ($(wl_cg_desc)), ${#names[@]} binaries"
    for nm in "${names[@]}"; do pool_run measure_ir "$nm"; done
    pool_wait

    # the table
    local irb iri ire ir
    irb=$(head -n 1 "$W/bin/base.ir")
    iri=$irb
    [ -z "$instr" ] || iri=$(head -n 1 "$W/bin/instr.ir")
    ire=$(head -n 1 "$W/bin/pgo-exact.ir")
    local exsecs exinsn
    exsecs=$(cat "$W/prof/exact.raw.secs")
    exinsn=$(awk '/wrote .* instructions of/ { for (i = 1; i <= NF; i++) if ($i == "instructions") print $(i - 1) }' "$W/logs/record-exact.log" | tail -n 1)
    echo "### $WL, $CCBIN"
    echo
    echo "training run: $(wl_train_desc); Ir: $(wl_cg_desc)."
    exeng=$(sed -n 's/^pgoprof record: running .* under \([a-z-]*\):.*/\1/p' \
        "$W/logs/record-exact.log" | head -n 1)
    echo "The exact-count recording${exeng:+ ($exeng)} of the training run took ${exsecs} s${exinsn:+ ($exinsn instructions)}."
    echo
    echo "| profile | samples | Ir (M) | Ir vs -O2 | spread (min..max) | of exact's reduction | body | head | target |"
    echo "|---|---:|---:|---:|---|---:|---:|---:|---:|"
    printf '| -O2 | | %.1f | — | | | | | |\n' "$(awk -v a="$irb" 'BEGIN { print a / 1e6 }')"
    [ -z "$instr" ] || printf '| instrumented PGO | | %.1f | %s | | %s | | | |\n' "$(awk -v a="$iri" 'BEGIN { print a / 1e6 }')" \
        "$(pct "$iri" "$irb")" "$(awk -v a="$iri" -v b="$irb" -v e="$ire" 'BEGIN { printf (b == e ? "—" : "%.2f"), (b - a) / (b - e) }')"
    if [ -s "$W/bin/base-wa.ir" ] && ls "$W"/bin/*.workaround >/dev/null 2>&1; then
        ir=$(head -n 1 "$W/bin/base-wa.ir")
        printf '| -O2 %s | | %.1f | %s | | | | | |\n' "$ICE_WORKAROUND" "$(awk -v a="$ir" 'BEGIN { print a / 1e6 }')" "$(pct "$ir" "$irb")"
    fi
    printf '| exact counts%s | | %.1f | %s | | 1.00 | 1 | 1 | 1 |\n' "$(wa pgo-exact)" "$(awk -v a="$ire" 'BEGIN { print a / 1e6 }')" "$(pct "$ire" "$irb")"
    local rows=()
    if [ -n "$variant" ]; then
        ir=$(head -n 1 "$W/bin/pgo-exact$variant.ir")
        printf '| exact counts, variant %s%s | | %.1f | %s | | %s | %.4f | %.4f | %.4f |\n' "${variant#.}" "$(wa "pgo-exact$variant")" \
            "$(awk -v a="$ir" 'BEGIN { print a / 1e6 }')" "$(pct "$ir" "$irb")" \
            "$(awk -v a="$ir" -v b="$irb" -v e="$ire" 'BEGIN { printf (b == e ? "—" : "%.2f"), (b - a) / (b - e) }')" \
            $(overlap "exact$variant")
        rows+=("exact$variant $(pct "$ir" "$irb")")
    fi
    for hz in "${FREQS[@]}"; do
        local irs=() ovs=() smp=() hzs=() med mn mx nwa=0 used
        for ((k = 1; k <= nrep; k++)); do
            id=F$hz-r$k
            p=$(pid "$id")
            [ -z "$(wa "pgo-$p")" ] || nwa=$((nwa + 1))
            irs+=("$(head -n 1 "$W/bin/pgo-$p.ir")")
            ovs+=("$(overlap "$p")")
            smp+=("$(samples "$p")")
            hzs+=("$(used_hz "$id")")
        done
        read -r med mn mx <<<"$(printf '%s\n' "${irs[@]}" | stat3)"
        local sm b h t
        sm=$(printf '%s\n' "${smp[@]}" | stat3 | cut -d' ' -f1)
        b=$(printf '%s\n' "${ovs[@]}" | awk '{ print $1 }' | stat3 | cut -d' ' -f1)
        h=$(printf '%s\n' "${ovs[@]}" | awk '{ print $2 }' | stat3 | cut -d' ' -f1)
        t=$(printf '%s\n' "${ovs[@]}" | awk '{ print $3 }' | stat3 | cut -d' ' -f1)
        used=$(printf '%s\n' "${hzs[@]}" | stat3 | awk -v hz="$hz" '$2 == hz && $3 == hz { exit } { printf "; %s", $2 == $3 ? $2 " Hz used" : $2 "–" $3 " Hz used" }')
        printf '| sampled %s Hz (median of %d%s)%s | %s | %.1f | %s | %s..%s | %s | %.4f | %.4f | %.4f |\n' \
            "$hz" "$nrep" "$used" "$( [ "$nwa" -eq 0 ] || echo " † ($nwa)")" "$sm" "$(awk -v a="$med" 'BEGIN { print a / 1e6 }')" "$(pct "$med" "$irb")" \
            "$(pct "$mn" "$irb")" "$(pct "$mx" "$irb")" \
            "$(awk -v a="$med" -v b="$irb" -v e="$ire" 'BEGIN { printf (b == e ? "—" : "%.2f"), (b - a) / (b - e) }')" \
            "$b" "$h" "$t"
        # one line per recording, for the summary and the notes
        for ((k = 1; k <= nrep; k++)); do
            printf '%s %s %s %s %s %s %s\n' "$WL-$CC" "F$hz-r$k" "${smp[k-1]}" "$(pct "${irs[k-1]}" "$irb")" "${ovs[k-1]}" \
                "$(cat "$W/prof/F$hz-r$k.raw.secs")" "${hzs[k-1]}" >>"$W/recordings.txt.tmp"
        done
        rows+=("$hz $(pct "$med" "$irb")")
    done
    local sp e
    for sp in "${SIMS[@]}"; do
        for e in "${SIMESTS[@]}"; do
            sim_row "$sp" "$e"
            rows+=("sim:$sp:$e $(pct "$SIM_MED" "$irb")")
        done
    done
    mv "$W/recordings.txt.tmp" "$W/recordings.txt"
    echo
    if ls "$W"/bin/*.workaround >/dev/null 2>&1; then
        local f=$W/logs/build-$(basename "$(ls "$W"/bin/*.workaround | head -n 1)" .workaround).ice.log
        echo "† built with \`$ICE_WORKAROUND\` (and so is the row \`-O2 $ICE_WORKAROUND\`): without it $CCBIN stops with"
        echo "\`$(grep -m1 -o 'internal compiler error.*' "$f" 2>/dev/null)\` ($(grep -m1 -o 'during [A-Z]* pass: [a-z0-9_]*' "$f" 2>/dev/null), $(grep -m1 -o '[a-z0-9_]*\.c:[0-9]*:[0-9]*: internal' "$f" 2>/dev/null | sed 's/: internal//')) on this profile."
        echo
    fi
    echo "samples: the sampled binary's cpu-clock samples in a recording (median); Hz used: what pgoprof-record lowered"
    echo "the rate to (it keeps sampling under kernel.perf_cpu_time_max_percent); body, head, target: \`pgoprof compare\`"
    echo "weighted overlap with the exact profile (median over the recordings); of exact's reduction ="
    echo "(Ir_-O2 - Ir_profile) / (Ir_-O2 - Ir_exact), for the median."
    echo
    echo "<details><summary>$WL, $CCBIN: each recording</summary>"
    echo
    echo "| recording | Hz used | samples | Ir vs -O2 | body | head | target | recording s |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $9, $3, $4, $5, $6, $7, $8 }' "$W/recordings.txt"
    echo
    echo "</details>"
    echo
    # summary line for the overview table
    printf '| %s | %s | %.1f | %s | %s |' "$WL" "$CCBIN" "$(awk -v a="$irb" 'BEGIN { print a / 1e6 }')" \
        "$( [ -n "$instr" ] && pct "$iri" "$irb" || echo —)" "$(pct "$ire" "$irb")$(wa pgo-exact)" >"$W/summary.line"
    for r in "${rows[@]}"; do printf ' %s |' "${r#* }" >>"$W/summary.line"; done
    echo >>"$W/summary.line"
    # the functions that differ most, for the highest rate's median recording
    if [ "$top" -gt 0 ] && [ ${#FREQS[@]} -gt 0 ]; then
        local hi=${FREQS[${#FREQS[@]}-1]} best= bestd=
        for ((k = 1; k <= nrep; k++)); do
            id=$(pid "F$hi-r$k")
            ir=$(head -n 1 "$W/bin/pgo-$id.ir")
            printf '%s %s\n' "$ir" "$id"
        done | sort -g | awk -v n="$nrep" 'NR == int((n + 1) / 2) { print $2 }' >"$W/median-id"
        best=$(cat "$W/median-id")
        echo "<details><summary>$WL, $CCBIN: exact vs sampled $hi Hz ($best, the median recording): \`pgoprof compare -n $top exact.txt $best.txt\`</summary>"
        echo
        echo '```'
        cat "$W/prof/$best.compare"
        echo '```'
        echo
        echo "</details>"
        echo
    fi
}

# ---------------------------------------------------------------- the report

# In the output, the notes written by hand start at this line and are kept.
NOTES_MARK='<!-- notes: written by hand, kept when bench/quality.sh rewrites this file -->'

report() { # the header, the summary table, then the sections
    {
        echo "## Profile quality: sampled vs exact-count profiles ($(date -u +%F), pgoprof $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
        echo
        echo "Command: \`$CMDLINE\`"
        echo
        echo "Machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/Mem:/ { print $2 }') GiB,"
        echo "kernel $(uname -r), $(clang-16 --version | head -n 1), $(gcc-12 --version | head -n 1), valgrind $(valgrind --version | sed 's/valgrind-//')."
        echo
        echo "Ir vs -O2 (executed instructions under cachegrind, reduced input); sampled: median of $nrep recordings."
        echo
        printf '| program | compiler | -O2 Ir (M) | instrumented | exact counts |'
        [ -z "$variant" ] || printf ' exact %s |' "${variant#.}"
        for hz in "${FREQS[@]}"; do printf ' sampled %s Hz |' "$hz"; done
        for sp in "${SIMS[@]}"; do for e in "${SIMESTS[@]}"; do printf ' sim %s %s |' "$sp" "$e"; done; done
        echo
        printf '|---|---|---:|---:|---:|'
        [ -z "$variant" ] || printf -- '---:|'
        for hz in "${FREQS[@]}"; do printf -- '---:|'; done
        for sp in "${SIMS[@]}"; do for e in "${SIMESTS[@]}"; do printf -- '---:|'; done; done
        echo
        cat "$WROOT"/summary.lines 2>/dev/null || true
        echo
        cat "$WROOT"/sections.md 2>/dev/null || true
        # what was written by hand below the marker stays
        [ "$out" = - ] || [ ! -f "$out" ] || awk -v m="$NOTES_MARK" 'index($0, m) == 1 { p = 1 } p' "$out"
    }
}

t_start=$EPOCHREALTIME
: >"$WROOT/summary.lines"
: >"$WROOT/sections.md"
for WLx in "${WLS[@]}"; do
    for CCx in "${CCS[@]}"; do
        t0=$EPOCHREALTIME
        mkdir -p "$WROOT/$WLx-$CCx"
        run_one "$WLx" "$CCx" >"$WROOT/$WLx-$CCx/section.md.tmp"
        secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
        step "$WLx/$CCx done in $secs s"
        echo "$secs" >>"$WROOT/$WLx-$CCx/seconds"
        { cat "$WROOT/$WLx-$CCx/section.md.tmp"
          awk -v w="$WLx" -v c="$CCx" '{ s += $1 } END { printf "(%s, %s: %d s of builds, recordings, conversions and cachegrind runs, over %d run(s) of this script that reached the end of it; this one %d s.)\n\n", w, c, s, NR, $1 }' "$WROOT/$WLx-$CCx/seconds"
        } >>"$WROOT/sections.md"
        cat "$WROOT/$WLx-$CCx/summary.line" >>"$WROOT/summary.lines"
        if [ "$out" != - ]; then
            mkdir -p "$(dirname "$out")"
            report >"$out.tmp" && mv "$out.tmp" "$out"
        fi
    done
done
report
step "all done in $(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
[ "$out" = - ] || echo "quality: wrote $out" >&2
