#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compare pgoprof's sample PGO with the compiler's instrumented PGO on real
# programs: executed instructions under cachegrind (the deterministic proxy)
# and interleaved wall-time rounds, written as a Markdown table.
set -euo pipefail

usage() {
    cat <<USAGE
Usage: $0 [OPTIONS]

For each workload and compiler, builds and measures these variants:
  baseline      -O2 -g
  instrumented  clang: -fprofile-instr-generate, then -fprofile-instr-use
                gcc:   -fprofile-generate, then -fprofile-use
                trained on one training run
  pgoprof ...   the sampled build (clang: -O2 -g -fdebug-info-for-profiling
                -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer; gcc:
                -O2 -g -fno-omit-frame-pointer) recorded by 'pgoprof record -F HZ'
                over the training run (repeated -T times, merged), converted
                with 'pgoprof convert --estimator E', then
                clang: -O2 -g -fprofile-sample-use=P [FLAGS]
                gcc:   -O2 -g -fauto-profile=P
                one variant per HZ x REPS x E x FLAGS x TRANSFORM
Then it measures each variant's executed instructions (Ir, cachegrind on an
'objcopy --strip-debug' copy, reduced input) and, unless --quick, its wall
time on the training input in RUNS interleaved rounds (the order of the
variants rotates every round; one warm-up round first).

Workloads (sources fetched at first use, never committed):
  sqlite  SQLite's speedtest1 (bench/fetch-sqlite.sh, bench/build-speedtest.sh)
          training: speedtest1 --memdb --size 100; cachegrind: --size 10
  bzip2   bzip2 1.0.8 from Debian (bench/fetch-bzip2.sh) compressing (-9) and
          decompressing a generated text corpus
          training: 10 MiB corpus; cachegrind: 2 MiB corpus
  lua     Lua 5.4 from Debian (bench/fetch-lua.sh) running bench/lua-bench.lua
          training: 16 rounds; cachegrind: 1 round

Options:
  -w, --workload W[,W]     sqlite, bzip2, lua, or all (sqlite,bzip2; default
                           sqlite)
  -c, --compiler C[,C]     clang (clang-16), gcc (gcc-12), or all (default clang)
  -n, --runs N             interleaved wall-time rounds (default 15)
  -F, --freq HZ[,HZ]       sampling frequencies (default 999)
  -T, --train-reps R[,R]   training runs recorded per profile (default 1)
  -e, --estimator E[,E]    sum, mean, max (default mean; pgoprof's default)
  -x, --flags S[,S]        clang only: plain, profi (-fsample-profile-use-profi),
                           accurate (-fprofile-sample-accurate), profi+accurate
                           (default plain); gcc always uses plain
  -X, --transform T[,T]    experiments on the profile (through LLVM text and
                           'pgoprof merge --format'): none (default), nocalls
                           (drop call targets), dropzero (drop the body
                           records with count 0), callhead (count 0 of a
                           call line := the callees' HEAD shares), head0
                           (HEAD = 0), headcall
                           (HEAD = the sum of the call-target counts naming
                           the function; see bench/README.md)
  -V, --variants SPEC[,SPEC]
                           instead of the product of -F -T -e -x -X: a list of
                           HZ/REPS/EST/FLAGS[/TRANSFORM], e.g. 999/1/mean/plain;
                           a SPEC prefixed by clang= or gcc= is for that
                           compiler only (gcc skips FLAGS other than plain)
  -R, --replicates K       K independent recordings (and profiles, builds) of
                           each variant, to see how much of a difference is
                           noise; adds a table of the mean over replicates
      --quick              cachegrind only, no wall time
      --no-instr           skip the instrumented variant
  -j, --jobs N             parallel builds and cachegrind runs (default nproc)
  -o, --output FILE        also write the Markdown here (default
                           bench/results/pgo-compare.md; '-' for stdout only)
      --work DIR           work directory (default bench/work/compare)
      --fresh              rebuild, re-record and re-measure everything
  -h, --help               this text

Builds, recordings and Ir values are cached in the work directory by their
inputs (flags, profile checksum, binary checksum), so a second invocation
with more variants only builds the new ones. Needs root (pgoprof record).
USAGE
}

die() { echo "pgo-compare: $*" >&2; exit 1; }
step() { echo "== pgo-compare: $*" >&2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
CMDLINE="bench/pgo-compare.sh${*:+ $*}"
PGOPROF=$REPO/pgoprof
workloads=sqlite compilers=clang runs=15 freqs=999 reps=1 ests=mean
sflags=plain transforms=none variants= nrep=1 quick= instr=1 jobs=$(nproc) fresh=
out=$REPO/bench/results/pgo-compare.md
WROOT=$REPO/bench/work/compare

while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -w|--workload|-c|--compiler|-n|--runs|-F|--freq|-T|--train-reps|-e|--estimator|-x|--flags|-X|--transform|-V|--variants|-R|--replicates|-j|--jobs|-o|--output|--work)
            [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in
                -w|--workload) workloads=$2 ;;
                -c|--compiler) compilers=$2 ;;
                -n|--runs) runs=$2 ;;
                -F|--freq) freqs=$2 ;;
                -T|--train-reps) reps=$2 ;;
                -e|--estimator) ests=$2 ;;
                -x|--flags) sflags=$2 ;;
                -X|--transform) transforms=$2 ;;
                -V|--variants) variants=$2 ;;
                -R|--replicates) nrep=$2 ;;
                -j|--jobs) jobs=$2 ;;
                -o|--output) out=$2 ;;
                --work) WROOT=$2 ;;
            esac
            shift 2 ;;
        --quick) quick=1; shift ;;
        --no-instr) instr=; shift ;;
        --fresh) fresh=1; shift ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[ "$workloads" = all ] && workloads=sqlite,bzip2
[ "$compilers" = all ] && compilers=clang,gcc
IFS=, read -ra WLS <<<"$workloads"
IFS=, read -ra CCS <<<"$compilers"
IFS=, read -ra FREQS <<<"$freqs"
IFS=, read -ra REPS <<<"$reps"
IFS=, read -ra ESTS <<<"$ests"
IFS=, read -ra SFLAGS <<<"$sflags"
IFS=, read -ra XFORMS <<<"$transforms"
for w in "${WLS[@]}"; do case $w in sqlite|bzip2|lua) ;; *) die "unknown workload '$w' (sqlite, bzip2, lua)" ;; esac; done
for c in "${CCS[@]}"; do case $c in clang|gcc) ;; *) die "unknown compiler '$c' (clang, gcc)" ;; esac; done
for f in "${FREQS[@]}"; do [[ $f =~ ^[1-9][0-9]*$ ]] || die "-F: bad frequency '$f'"; done
for r in "${REPS[@]}"; do [[ $r =~ ^[1-9][0-9]*$ ]] || die "-T: bad repetition count '$r'"; done
for e in "${ESTS[@]}"; do case $e in sum|mean|max) ;; *) die "-e: unknown estimator '$e' (sum, mean, max)" ;; esac; done
for s in "${SFLAGS[@]}"; do case $s in plain|profi|accurate|profi+accurate) ;; *) die "-x: unknown flag set '$s'" ;; esac; done
for t in "${XFORMS[@]}"; do case $t in none|nocalls|dropzero|callhead|head0|headcall) ;; *) die "-X: unknown transform '$t'" ;; esac; done
# SPECS: one "CC HZ REPS EST FLAGS XFORM" per variant (CC = any, clang, gcc)
SPECS=()
if [ -n "$variants" ]; then
    IFS=, read -ra VS <<<"$variants"
    for v in "${VS[@]}"; do
        c=any
        case $v in clang=*|gcc=*) c=${v%%=*}; v=${v#*=} ;; esac
        IFS=/ read -r f r e s t <<<"$v"
        t=${t:-none}
        [[ $f =~ ^[1-9][0-9]*$ && $r =~ ^[1-9][0-9]*$ ]] || die "-V: bad spec '$v' (HZ/REPS/EST/FLAGS[/TRANSFORM])"
        case $e in sum|mean|max) ;; *) die "-V: unknown estimator in '$v'" ;; esac
        case $s in plain|profi|accurate|profi+accurate) ;; *) die "-V: unknown flag set in '$v'" ;; esac
        case $t in none|nocalls|dropzero|callhead|head0|headcall) ;; *) die "-V: unknown transform in '$v'" ;; esac
        SPECS+=("$c $f $r $e $s $t")
    done
else
    for f in "${FREQS[@]}"; do for r in "${REPS[@]}"; do for e in "${ESTS[@]}"; do
        for t in "${XFORMS[@]}"; do for s in "${SFLAGS[@]}"; do
            SPECS+=("any $f $r $e $s $t")
        done; done
    done; done; done
fi
[[ $nrep =~ ^[1-9][0-9]*$ ]] || die "-R must be a positive integer, got '$nrep'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n must be a positive integer, got '$runs'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j must be a positive integer, got '$jobs'"
. "$REPO/bench/workloads.sh"
wl_setup

# ---------------------------------------------------------------- profiles

# record_raw HZ REPS ID: $W/prof/ID.raw from the sampled build
record_raw() {
    local hz=$1 r=$2 raw=$W/prof/$3.raw fpsum
    fpsum=$(md5 "$W/bin/fp")
    if [ -z "$fresh" ] && [ -s "$raw" ] && [ "$(cat "$raw.fp" 2>/dev/null)" = "$fpsum" ]; then
        return 0
    fi
    step "$WL/$CC: record -F $hz, $r training run(s)"
    local parts=() i
    wl_train_cmd "$W/bin/fp"
    for ((i = 1; i <= r; i++)); do
        "$PGOPROF" record -F "$hz" -o "$raw.$i" -- "${TRAIN[@]}" >"$W/logs/record-$3-$i.log" 2>&1 \
            || { tail -n 20 "$W/logs/record-$3-$i.log" >&2; die "pgoprof record failed"; }
        parts+=("$raw.$i")
    done
    if [ "$r" -eq 1 ]; then
        mv "$raw.1" "$raw"
    else
        "$PGOPROF" merge -o "$raw" "${parts[@]}" || die "pgoprof merge failed"
        rm -f "${parts[@]}"
    fi
    echo "$fpsum" >"$raw.fp"
}

# make_profile ID EST XFORM: sets PROF to the profile file for $CC.
# Converted every time (it takes seconds); the builds are keyed by the
# profile's checksum, so an unchanged profile does not rebuild.
make_profile() {
    local e=$2 x=$3 base=$W/prof/$1-$2
    local raw=$W/prof/$1.raw fmt=llvm-extbinary ext=prof
    [ "$CC" = gcc ] && { fmt=afdo; ext=afdo; }
    if [ -z "${CONVERTED[$base]:-}" ]; then
        "$PGOPROF" convert "$raw" --binary "$W/bin/fp" --estimator "$e" --format llvm-text \
            -o "$base.txt" 2>"$base.convert.log" || { cat "$base.convert.log" >&2; die "pgoprof convert failed"; }
        "$PGOPROF" convert "$raw" --binary "$W/bin/fp" --estimator "$e" --format "$fmt" \
            -o "$base.$ext" -q || die "pgoprof convert --format $fmt failed"
        CONVERTED[$base]=1
    fi
    PROF=$base.$ext
    [ "$x" = none ] && return 0
    PROF=$base-$x.$ext
    transform "$x" <"$base.txt" >"$base-$x.txt"
    "$PGOPROF" merge --format "$fmt" -o "$PROF" "$base-$x.txt" || die "pgoprof merge --format $fmt failed"
}

# Profile experiments on LLVM text (see bench/README.md). TOTALs are left
# as they are: clang uses them only to rank functions.
transform() {
    case $1 in
        nocalls)   # drop every call target, keep the body counts
            awk 'match($0, /^ +[0-9.]+: [0-9]+/) { $0 = substr($0, 1, RLENGTH) } { print }' ;;
        dropzero)  # drop the records with body count 0 (call lines that have
                   # call targets but no samples of their own): clang reads a
                   # present 0 as "never ran", an absent line as "unknown"
            awk '!/^ +[0-9.]+: 0( |$)/' ;;
        callhead)  # a record with count 0 and call targets (a call line
                   # without samples of its own) gets the calls' estimated
                   # count: for each target, HEAD(target) x this site's share
                   # of the target's call-target samples; dropped if < 1
            awk '{ l[NR] = $0 }
                 /^[^ ]/ { n = split($0, a, ":"); head[a[1]] = a[n] }
                 /^ +[0-9.]+: [0-9]+ / { for (i = 3; i <= NF; i++) { k = $i; c = k; sub(/:[0-9]+$/, "", k); sub(/.*:/, "", c); tc[k] += c } }
                 END { for (j = 1; j <= NR; j++) { s = l[j]
                         if (s ~ /^ +[0-9.]+: 0 /) { nf = split(s, f, " "); est = 0
                             for (i = 3; i <= nf; i++) { k = f[i]; c = k; sub(/:[0-9]+$/, "", k); sub(/.*:/, "", c)
                                 if (tc[k] > 0) est += head[k] * c / tc[k] }
                             if (est < 1) continue
                             sub(/: 0 /, ": " int(est + 0.5) " ", s) }
                         print s } }' ;;
        head0)     # HEAD = 0 for every function
            awk '/^[^ ]/ { n = split($0, a, ":"); a[n] = 0; s = a[1]; for (i = 2; i <= n; i++) s = s ":" a[i]; $0 = s } { print }' ;;
        headcall)  # HEAD = the call-target samples that name the function
            awk '{ l[NR] = $0 }
                 /^ +[0-9.]+: [0-9]+( |$)/ { for (i = 3; i <= NF; i++) { k = $i; c = k; sub(/:[0-9]+$/, "", k); sub(/.*:/, "", c); calls[k] += c } }
                 END { for (i = 1; i <= NR; i++) { s = l[i]
                         if (s ~ /^[^ ]/) { n = split(s, a, ":"); if (a[1] in calls) a[n] = calls[a[1]]
                             s = a[1]; for (j = 2; j <= n; j++) s = s ":" a[j] }
                         print s } }' ;;
        *) die "unknown transform '$1'" ;;
    esac
}

# ---------------------------------------------------------------- wall time

# wall NAME...: RUNS interleaved rounds (rotating order), one warm-up round;
# times in $W/wall/NAME.times
wall() {
    local names=("$@") n=$# i k j t0 t1 rc
    mkdir -p "$W/wall"
    for nm in "${names[@]}"; do : >"$W/wall/$nm.times"; done
    for ((i = 0; i <= runs; i++)); do
        local line=""
        for ((k = 0; k < n; k++)); do
            j=$(((k + i) % n))
            wl_train_cmd "$W/bin/${names[j]}"
            t0=$EPOCHREALTIME
            rc=0
            "${TRAIN[@]}" >/dev/null 2>"$W/logs/wall.err" || rc=$?
            t1=$EPOCHREALTIME
            [ $rc -eq 0 ] || { cat "$W/logs/wall.err" >&2; die "${names[j]} failed with status $rc"; }
            t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
            [ "$i" -eq 0 ] || echo "$t" >>"$W/wall/${names[j]}.times"
            line+=" ${names[j]}=$t"
        done
        if [ "$i" -eq 0 ]; then echo "warm-up:$line" >&2; else echo "round $i/$runs:$line" >&2; fi
    done
}

# stats FILE: "median q1 q3 min max" (quartiles by linear interpolation)
stats() {
    sort -g "$1" | awk '
        function q(p,   h, l) { h = (NR - 1) * p + 1; l = int(h); return l >= NR ? v[NR] : v[l] + (h - l) * (v[l + 1] - v[l]) }
        { v[NR] = $1 }
        END { printf "%.4f %.4f %.4f %.4f %.4f\n", q(0.5), q(0.25), q(0.75), v[1], v[NR] }'
}

# paired NAME: median over rounds of base_time/NAME_time - 1, in %
paired() {
    paste "$W/wall/base.times" "$W/wall/$1.times" | awk '{ print ($1 / $2 - 1) * 100 }' | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---------------------------------------------------------------- one workload x compiler

run_one() {
    WL=$1 CC=$2
    W=$WROOT/$WL-$CC
    mkdir -p "$W/bin" "$W/prof" "$W/logs"
    case $CC in clang) CCBIN=clang-16 ;; gcc) CCBIN=gcc-12 ;; esac
    wl_prepare

    local fpflags
    case $CC in
        clang) fpflags=(-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer) ;;
        gcc) fpflags=(-O2 -g -fno-omit-frame-pointer) ;;
    esac
    step "$WL/$CC: baseline and sampled builds"
    pool_run build base "" -O2 -g
    pool_run build fp "" "${fpflags[@]}"
    pool_wait
    wl_ref "$W/bin/base"
    [ -z "$instr" ] || build_instr

    # profiles and sample-PGO builds
    local names=(base) labels=(baseline) flagdesc=("-O2 -g") hz r e s x k id
    declare -gA NOTE=() CONVERTED=() GROUP=()
    [ -z "$instr" ] || { names+=(instr); labels+=(instrumented); flagdesc+=("$(sed 's/.*-g //; s/=[^ ]*\//=/' "$W/bin/instr.key")"); }
    local spec sc
    declare -A seen=()
    for spec in "${SPECS[@]}"; do
        read -r sc hz r e s x <<<"$spec"
        [ "$sc" = any ] || [ "$sc" = "$CC" ] || continue
        for ((k = 1; k <= nrep; k++)); do
            id=F$hz-T$r; [ "$k" -eq 1 ] || id+=-r$k
            [ -n "${seen[$id]:-}" ] || record_raw "$hz" "$r" "$id"
            seen[$id]=1
        done
    done
    step "$WL/$CC: convert and build the sample-PGO variants"
    for spec in "${SPECS[@]}"; do
        read -r sc hz r e s x <<<"$spec"
        [ "$sc" = any ] || [ "$sc" = "$CC" ] || continue
        [ "$CC" = gcc ] && [ "$s" != plain ] && continue
        for ((k = 1; k <= nrep; k++)); do
        id=F$hz-T$r; [ "$k" -eq 1 ] || id+=-r$k
        local nm="s-$id-$e-$s-$x"
        [ -z "${seen[$nm]:-}" ] || continue
        seen[$nm]=1
        make_profile "$id" "$e" "$x"
        local prof=$PROF psum samples fl=() lb="pgoprof F$hz"
        psum=$(md5 "$prof")
        samples=$(awk '/samples of/ { print $3; exit }' "$W/prof/$id-$e.convert.log")
        [ "$r" -eq 1 ] || lb+=" x$r"
        lb+=" $e"
        [ "$x" = none ] || lb+=" [$x]"
        case $CC in
            clang) fl=(-O2 -g -fprofile-sample-use="$prof") ;;
            gcc) fl=(-O2 -g -fauto-profile="$prof") ;;
        esac
        case $s in
            profi) fl+=(-fsample-profile-use-profi); lb+=" +profi" ;;
            accurate) fl+=(-fprofile-sample-accurate); lb+=" +accurate" ;;
            profi+accurate) fl+=(-fsample-profile-use-profi -fprofile-sample-accurate); lb+=" +profi +accurate" ;;
        esac
        GROUP[$nm]=$lb
        [ "$nrep" -eq 1 ] || lb+=" #$k"
        pool_run build "$nm" "$psum" "${fl[@]}"
        names+=("$nm") labels+=("$lb")
        flagdesc+=("$(printf '%s ' "${fl[@]:2}" | sed "s|=$W/prof/|=|; s/ \$//")")
        NOTE[$nm]=$samples
        done
    done
    pool_wait

    step "$WL/$CC: cachegrind ($(wl_cg_desc)), ${#names[@]} binaries"
    for nm in "${names[@]}"; do pool_run measure_ir "$nm"; done
    pool_wait

    if [ -z "$quick" ]; then
        step "$WL/$CC: wall time, $runs interleaved rounds of ${#names[@]} binaries"
        wall "${names[@]}"
    fi

    # the table
    local irb iri sb si
    irb=$(head -n 1 "$W/bin/base.ir")
    [ -z "$instr" ] || iri=$(head -n 1 "$W/bin/instr.ir")
    if [ -z "$quick" ]; then
        read -r sb _ <<<"$(stats "$W/wall/base.times")"
        [ -z "$instr" ] || { read -r si _ <<<"$(stats "$W/wall/instr.times")"; }
    fi
    echo "### $WL, $CCBIN ($($CCBIN --version | head -n 1))"
    echo
    echo "training run: $(wl_train_desc); cachegrind: $(wl_cg_desc);"
    echo "wall time: $( [ -n "$quick" ] && echo "not measured (--quick)" || echo "$runs interleaved rounds on the training input")."
    echo
    echo "| variant | flags | samples | Ir (M) | Ir vs base | Ir gain / instr | wall median s | IQR s | min–max s | speedup | paired | wall gain / instr |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    local k
    for ((k = 0; k < ${#names[@]}; k++)); do
        local nm=${names[k]} ir dir gr="" med q1 q3 mn mx sp="" pd="" wg=""
        ir=$(head -n 1 "$W/bin/$nm.ir")
        dir=$(awk -v a="$ir" -v b="$irb" 'BEGIN { printf "%+.2f%%", (a / b - 1) * 100 }')
        if [ -n "$instr" ]; then
            gr=$(awk -v a="$ir" -v b="$irb" -v i="$iri" 'BEGIN { printf (b == i ? "—" : "%.2f"), (b - a) / (b - i) }')
        fi
        [ "$nm" = base ] && { dir="—"; gr="—"; }
        if [ -z "$quick" ]; then
            read -r med q1 q3 mn mx <<<"$(stats "$W/wall/$nm.times")"
            sp=$(awk -v b="$sb" -v c="$med" 'BEGIN { printf "%+.2f%%", (b / c - 1) * 100 }')
            pd="$(paired "$nm")%"
            [ -z "$instr" ] || wg=$(awk -v b="$sb" -v c="$med" -v i="$si" 'BEGIN { g = b / i - 1; printf (g <= 0 ? "n/a" : "%.2f"), (b / c - 1) / (g ? g : 1) }')
            [ "$nm" = base ] && { sp="—"; pd="—"; wg="—"; }
            q1="$q1–$q3" mx="$mn–$mx"
        else
            med="" q1="" mx=""
        fi
        printf '| %s | `%s` | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
            "${labels[k]}" "${flagdesc[k]}" "${NOTE[$nm]:-}" "$(awk -v a="$ir" 'BEGIN { print a / 1e6 }')" \
            "$dir" "$gr" "$med" "$q1" "$mx" "$sp" "$pd" "$wg"
    done
    echo
    echo "Ir gain / instr = (Ir_base - Ir_variant) / (Ir_base - Ir_instrumented); speedup = median_base / median_variant - 1;"
    echo "paired = median over rounds of (base / variant - 1) within a round; wall gain / instr = speedup / instrumented speedup."
    echo "samples = the sampled binary's cpu-clock samples in the recording(s)."
    echo
    if [ "$nrep" -gt 1 ]; then
        echo "Over the $nrep replicates (independent recordings) of each variant, Ir vs base:"
        echo
        echo "| variant | mean | min | max | Ir gain / instr (mean) |"
        echo "|---|---:|---:|---:|---:|"
        for ((k = 0; k < ${#names[@]}; k++)); do
            local nm=${names[k]}
            [ -n "${GROUP[$nm]:-}" ] || continue
            printf '%s\t%s\n' "${GROUP[$nm]}" "$(head -n 1 "$W/bin/$nm.ir")"
        done | awk -F'\t' -v b="$irb" -v i="${iri:-0}" '
            { d = ($2 / b - 1) * 100; g = $1
              if (!(g in n)) { order[++ng] = g; mn[g] = d; mx[g] = d }
              n[g]++; s[g] += d; if (d < mn[g]) mn[g] = d; if (d > mx[g]) mx[g] = d }
            END { for (j = 1; j <= ng; j++) { g = order[j]; m = s[g] / n[g]
                    printf "| %s | %+.2f%% | %+.2f%% | %+.2f%% | %s |\n", g, m, mn[g], mx[g],
                        (i > 0 && i != b) ? sprintf("%.2f", m / ((i / b - 1) * 100)) : "" } }'
        echo
    fi
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
    echo "## pgoprof vs instrumented PGO ($(date -u +%F), pgoprof $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "Command: \`$CMDLINE\`"
    echo
} >"$tmp"
for WLx in "${WLS[@]}"; do
    for CCx in "${CCS[@]}"; do
        run_one "$WLx" "$CCx" >>"$tmp"
    done
done
cat "$tmp"
if [ "$out" != - ]; then
    mkdir -p "$(dirname "$out")"
    cat "$tmp" >"$out.tmp" && mv "$out.tmp" "$out"
    echo "pgo-compare: wrote $out" >&2
fi
