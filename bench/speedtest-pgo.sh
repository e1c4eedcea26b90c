#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The whole sample-PGO loop on SQLite's speedtest1 with clang-16 and pgoprof:
# build, record, convert, rebuild with the profile, A/B time, report.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-w DIR] [-n RUNS] [-F HZ] [-a ARGS] [--no-profi] [--no-ir-check]

  1. baseline build:  clang-16 -O2 -g
  2. profiling build: clang-16 -O2 -g -fdebug-info-for-profiling
                      -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
  3. pgoprof record -F HZ the profiling build running speedtest1 ARGS,
     pgoprof convert --binary it to an LLVM text sample profile
  4. PGO build:       clang-16 -O2 -g -fprofile-sample-use=PROFILE
     (and a variant with -fsample-profile-use-profi, unless --no-profi)
  5. bench/ab-time.sh -n RUNS: baseline vs each PGO build
  6. report: pgoprof counters, convert summary, top 10 functions, A/B tables
     (also written to DIR/report.txt)

  -w DIR         work directory (default: bench/work/pgo)
  -n RUNS        timed runs per binary in each A/B comparison (default 10)
  -F HZ          sampling frequency for pgoprof record (default 999)
  -a ARGS        speedtest1 arguments, one string (default: "--memdb --size 100")
  --no-profi     skip the -fsample-profile-use-profi variant
  --no-ir-check  skip compiling sqlite3.c to IR to check for !prof metadata
Needs root (pgoprof record uses BPF). Builds pgoprof with make if missing.
USAGE
}

die() { echo "speedtest-pgo: $*" >&2; exit 1; }
step() { echo "== speedtest-pgo: $*" >&2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
W=$REPO/bench/work/pgo runs=10 hz=999 args="--memdb --size 100" profi=1 ircheck=1
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -w|-n|-F|-a) [ $# -ge 2 ] || die "$1 needs a value (see --help)"
            case $1 in -w) W=$2 ;; -n) runs=$2 ;; -F) hz=$2 ;; -a) args=$2 ;; esac
            shift 2 ;;
        --no-profi) profi=; shift ;;
        --no-ir-check) ircheck=; shift ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n must be a positive integer, got '$runs'"
[[ $hz =~ ^[1-9][0-9]*$ ]] || die "-F must be a positive integer, got '$hz'"
[ "$(id -u)" -eq 0 ] || die "pgoprof record needs root; rerun as root"
command -v clang-16 >/dev/null || die "clang-16 not found (apt-get install clang-16)"
read -ra targs <<<"$args"

PGOPROF=$REPO/pgoprof
if [ ! -x "$PGOPROF" ] || [ ! -x "$REPO/pgoprof-record" ]; then
    step "building pgoprof"
    make -C "$REPO" >&2 || die "make failed in $REPO"
fi
mkdir -p "$W"
W=$(cd "$W" && pwd)
SQLITE_SRC=${SQLITE_DIR:-$REPO/bench/work/sqlite}/src
"$REPO/bench/fetch-sqlite.sh" ${SQLITE_DIR:+"$SQLITE_DIR"} >/dev/null

# build NAME CFLAGS...: speedtest1 into $W/speedtest1.NAME, log in build-NAME.log
build() {
    local name=$1; shift
    step "build $name: clang-16 $*"
    "$REPO/bench/build-speedtest.sh" "$W/speedtest1.$name" clang-16 "$@" \
        >"$W/build-$name.log" 2>&1 || { tail -n 20 "$W/build-$name.log" >&2; die "build $name failed, see $W/build-$name.log"; }
}
warnings() { grep -c 'warning:' "$W/build-$1.log" || true; }

build base -O2 -g
build fp -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer

step "record: speedtest1.fp $args at $hz Hz"
"$PGOPROF" record -F "$hz" -o "$W/speedtest1.raw" -- "$W/speedtest1.fp" "${targs[@]}" \
    >"$W/record.log" 2>&1 || { tail -n 20 "$W/record.log" >&2; die "pgoprof record failed, see $W/record.log"; }
"$PGOPROF" show "$W/speedtest1.raw" >"$W/show.txt" || die "pgoprof show failed"
"$PGOPROF" convert "$W/speedtest1.raw" --binary "$W/speedtest1.fp" --format llvm-text -o "$W/speedtest1.prof" \
    2>"$W/convert.log" || { cat "$W/convert.log" >&2; die "pgoprof convert failed"; }
[ -s "$W/speedtest1.prof" ] || die "empty profile $W/speedtest1.prof"

variants=(pgo)
build pgo -O2 -g -fprofile-sample-use="$W/speedtest1.prof"
if [ -n "$profi" ]; then
    variants+=(profi)
    build profi -O2 -g -fprofile-sample-use="$W/speedtest1.prof" -fsample-profile-use-profi
fi

# IR check: does the profile reach the IR? (function_entry_count, !prof on branches)
ir=
if [ -n "$ircheck" ]; then
    step "IR check: sqlite3.c -fprofile-sample-use -S -emit-llvm -o $W/sqlite3.pgo.ll"
    clang-16 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OS_KV_OPTIONAL \
        -I"$SQLITE_SRC" -O2 -g -fprofile-sample-use="$W/speedtest1.prof" \
        -S -emit-llvm -o "$W/sqlite3.pgo.ll" "$SQLITE_SRC/sqlite3.c" || die "IR check: clang failed"
    ir=$(awk '
        /^define / { defs++; f = $0; sub(/\(.*/, "", f); sub(/.*@/, "", f)
                     if (match($0, /!prof ![0-9]+/)) prof[f] = substr($0, RSTART + 7, RLENGTH - 7) }
        /^ +(br|switch) .*!prof/ { bw++; if (f == "sqlite3VdbeExec") vbw++ }
        /^ +call .*!prof/ { cw++ }
        /^![0-9]+ = !\{!"function_entry_count"/ { split($1, a, "!"); split($0, c, "i64 ")
                     cnt[a[2]] = c[2] + 0 }
        END { for (f in prof) if (cnt[prof[f]] >= 0) known++
              printf "%d of %d defined functions have a known function_entry_count (others: -1, no profile)\n", known, defs
              printf "%d br/switch and %d calls carry !prof\n", bw, cw
              v = prof["sqlite3VdbeExec"]
              printf "sqlite3VdbeExec: %s, %d br/switch with !prof\n", v != "" ? "function_entry_count " cnt[v] : "NO !prof", vbw }' \
        "$W/sqlite3.pgo.ll")
fi

declare -A ab
for v in "${variants[@]}"; do
    step "A/B: base vs $v, $runs runs each"
    ab[$v]=$("$REPO/bench/ab-time.sh" -n "$runs" -- "$W/speedtest1.base" "${targs[@]}" \
                 -- "$W/speedtest1.$v" "${targs[@]}")
done

{
    echo "# speedtest1 sample PGO with pgoprof ($(date -u +%FT%TZ))"
    echo "workload: speedtest1 $args; record -F $hz; work dir $W"
    echo
    echo "## pgoprof record / show counters"
    grep -E '^pgoprof-record:.*(wrote|warn|error)' "$W/record.log" || true
    grep '^counter' "$W/show.txt"
    echo
    echo "## pgoprof convert summary"
    cat "$W/convert.log"
    echo
    prof=$W/speedtest1.prof
    read -r nfun sum < <(awk -F: '/^[^ \t]/ { n++; s += $2 } END { print n, s }' "$prof")
    echo "## top 10 of $nfun functions (TOTAL incl. inlined code; $sum samples in all)"
    printf '%4s %7s %6s %6s  %s\n' rank total % head function
    grep -v '^[[:space:]]' "$prof" | sort -t: -k2,2nr | head -n 10 | awk -F: -v s="$sum" \
        '{ printf "%4d %7d %5.1f%% %6d  %s\n", NR, $2, 100 * $2 / s, $3, $1 }'
    awk '/^[^ \t]/ && $0 ~ /:0:0$/ { z++ } /^ / && NF >= 3 { cs++; if ($2 == 0) cz++ }
        END { printf "profile shape: %d functions with TOTAL 0; %d of %d call-site lines have count 0\n", z, cz, cs }' "$prof"
    echo
    echo "## clang warnings per build"
    for b in base fp "${variants[@]}"; do echo "$b: $(warnings "$b")"; done
    grep -h 'warning:' "$W"/build-pgo.log ${profi:+"$W"/build-profi.log} | sort | uniq -c | head -n 10 || true
    [ -z "$ir" ] || { echo; echo "## profile in IR (sqlite3.c)"; echo "$ir"; }
    for v in "${variants[@]}"; do
        echo
        echo "## A/B: baseline (-O2 -g) vs $v"
        echo "${ab[$v]}"
    done
} | tee "$W/report.txt"
