#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof import speed and memory on branch-record samples (issue 17):
# 10^6 samples of perf record -b synthesized by build/bench/lbrgen over
# three binaries (speedtest1, bzip2, and a large C++ one), imported with
# -j1 (the single-threaded path) and the default (-j = online CPUs),
# several rounds, medians; the page-cache read of the same file
# (cat FILE >/dev/null) is the floor.  One 10^7-sample run for peak RSS.
# With -P OLD, an older pgoprof build (without -j) runs in the same rounds
# as "before", and every output is compared with cmp.
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-n SAMPLES] [-N BIG] [-r RUNS] [-b BIG_BINARY] [-P OLD_PGOPROF] [-k] [-o OUT.md]

  -n SAMPLES      samples per binary (default 1000000)
  -N BIG          samples of the peak-RSS run on speedtest1 (default 10000000;
                  0: none).  10^7 samples are 8.2 GB of perf.data under
                  bench/work/imp/, deleted afterwards unless -k
  -r RUNS         rounds per binary (default 5); the big run has 1
  -b BINARY       the large binary (default the HotSpot JVM, libjvm.so of
                  OpenJDK 17: C++, 13 MB of code with a symbol table)
  -P OLD          also time this pgoprof binary (the build before, no -j)
  -k              keep the big input
  -o OUT          Markdown output (default bench/results/import-speed.md;
                  - = stdout).  What follows the line "<!-- notes -->" in
                  an existing OUT is kept (the profile notes).

speedtest1 is built with bench/build-speedtest.sh (clang-16 -O2 -g), bzip2
from bench/work/bzip2/src (bench/fetch-bzip2.sh) with clang-16 -O2 -g.
Wall, user and sys time and peak RSS from /usr/bin/time; run it under
flock /tmp/pgoprof-heavy.lock on a shared machine.
USAGE
}

N=1000000 BIGN=10000000 RUNS=5 OLD= KEEP=0
DEFAULT_BIGBIN=/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so
BIGBIN=$DEFAULT_BIGBIN
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
OUT=$REPO/bench/results/import-speed.md
while getopts n:N:r:b:P:ko:h o; do
    case $o in
        n) N=$OPTARG ;; N) BIGN=$OPTARG ;; r) RUNS=$OPTARG ;; b) BIGBIN=$OPTARG ;;
        P) OLD=$OPTARG ;; k) KEEP=1 ;; o) OUT=$OPTARG ;; h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
die() { echo "import-speed: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
# The default large binary is a Debian package's: installed when missing.
if [ ! -r "$BIGBIN" ] && [ "$BIGBIN" = "$DEFAULT_BIGBIN" ] && [ "$(id -u)" = 0 ]; then
    echo "import-speed: installing openjdk-17-jre-headless for $BIGBIN" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        openjdk-17-jre-headless >/dev/null || true
fi
[ -r "$BIGBIN" ] || die "$BIGBIN missing: give a large binary with a symbol table (-b), or install openjdk-17-jre-headless"
[ -z "$OLD" ] || [ -x "$OLD" ] || die "$OLD is not executable"
W=$REPO/bench/work/imp
mkdir -p "$W"
make -s -C "$REPO" pgoprof build/bench/lbrgen >&2
P=$REPO/pgoprof LBRGEN=$REPO/build/bench/lbrgen CPUS=$(nproc)

# --- the binaries -----------------------------------------------------------
[ -x "$W/speedtest1" ] || "$HERE/build-speedtest.sh" "$W/speedtest1" clang-16 -O2 -g >&2
if [ ! -x "$W/bzip2" ]; then
    [ -f "$REPO/bench/work/bzip2/src/bzip2.c" ] || "$HERE/fetch-bzip2.sh" >&2
    (cd "$REPO/bench/work/bzip2/src" &&
     clang-16 -O2 -g -D_FILE_OFFSET_BITS=64 -o "$W/bzip2" blocksort.c huffman.c crctable.c \
         randtable.c compress.c decompress.c bzlib.c bzip2.c)
fi
NAMES=(speedtest1 bzip2 "$(basename "$BIGBIN")")
BINS=("$W/speedtest1" "$W/bzip2" "$BIGBIN")

# --- measuring --------------------------------------------------------------
# one run: "wall user+sys rss_kb" of the command, its output in $W/out.raw
timed() {
    /usr/bin/time -f '%e %U %S %M' -o "$W/time.log" "$@" >/dev/null 2>"$W/cmd.err" ||
        die "failed: $* ($(tail -1 "$W/cmd.err"))"
    awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$W/time.log"
}
# the floor: the file read from the page cache (after one read to warm it)
floor() { cat "$1" >/dev/null; timed cat "$1" | awk '{ print $1 }'; }
R=$W/results.txt
: >"$R"
# every variant of one input, rounds interleaved; appends
# "name n variant round wall cpu rss" to $R, and checks the outputs
measure() {
    local name=$1 n=$2 d=$3 runs=$4 i v r
    local vars=("j1" "jdef")
    [ -n "$OLD" ] && vars=("old" "${vars[@]}")
    echo "$name $n size 0 $(stat -c %s "$d") 0 0" >>"$R"	# the big input goes
    for ((i = 0; i < runs; i++)); do
        echo "$name $n floor $i $(floor "$d") 0 0" >>"$R"
        for v in "${vars[@]}"; do
            case $v in
                old)  r=$(timed "$OLD" import -q -o "$W/out-old.raw" "$d") ;;
                j1)   r=$(timed "$P" import -q -j1 -o "$W/out-j1.raw" "$d") ;;
                jdef) r=$(timed "$P" import -q -o "$W/out-jdef.raw" "$d") ;;
            esac
            echo "$name $n $v $i $r" >>"$R"
            echo "  $name n=$n $v round $i: $r" >&2
        done
        cmp "$W/out-j1.raw" "$W/out-jdef.raw" || die "$name: -j1 and -j$CPUS differ"
        [ -z "$OLD" ] || cmp "$W/out-old.raw" "$W/out-j1.raw" ||
            die "$name: $OLD and this build differ"
    done
}
input() {	# the perf.data of n samples of binary b, cached
    local f=$W/$1-$2.data
    [ -s "$f" ] || { echo "import-speed: generating $2 samples of $1" >&2; "$LBRGEN" -q -n "$2" -o "$f" "$3"; }
    echo "$f"
}
for k in "${!NAMES[@]}"; do
    measure "${NAMES[$k]}" "$N" "$(input "${NAMES[$k]}" "$N" "${BINS[$k]}")" "$RUNS"
done
if [ "$BIGN" -gt 0 ]; then
    big=$(input speedtest1 "$BIGN" "$W/speedtest1")
    measure speedtest1 "$BIGN" "$big" 1
    [ "$KEEP" = 1 ] || rm -f "$big"
fi

# --- table ------------------------------------------------------------------
col() { awk -v a="$1" -v n="$2" -v v="$3" -v c="$4" '$1 == a && $2 == n && $3 == v { print $c }' "$R" | median; }
fmt_n() { awk -v n="$1" 'BEGIN { e = int(log(n) / log(10) + 1e-9); if (10 ^ e == n) printf "10^%d", e; else print n }'; }
vname() { case $1 in old) echo "before (main)" ;; j1) echo "-j1" ;; jdef) echo "default (-j$CPUS)" ;; esac; }
row() { printf '|'; printf ' %s |' "$@"; echo; }
table() {
    local n=$1 a v w vars=(j1 jdef)
    [ -n "$OLD" ] && vars=(old j1 jdef)
    echo "| binary | samples | perf.data MB | page-cache read, s | import | wall, s | user+sys, s | peak RSS, MB | wall / read | ns a sample |"
    echo "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"
    for a in "${NAMES[@]}"; do
        grep -q "^$a $n " "$R" || continue
        for v in "${vars[@]}"; do
            w=$(col "$a" "$n" "$v" 5)
            row "$a" "$(fmt_n "$n")" "$(awk -v s="$(col "$a" "$n" size 5)" 'BEGIN { printf "%.0f", s / 1e6 }')" \
                "$(col "$a" "$n" floor 5)" "$(vname "$v")" "$w" "$(col "$a" "$n" "$v" 6)" \
                "$(awk -v k="$(col "$a" "$n" "$v" 7)" 'BEGIN { printf "%.0f", k / 1024 }')" \
                "$(awk -v w="$w" -v f="$(col "$a" "$n" floor 5)" 'BEGIN { if (f > 0) printf "%.1f", w / f; else print "-" }')" \
                "$(awk -v w="$w" -v n="$n" 'BEGIN { printf "%.0f", w * 1e9 / n }')"
        done
    done
}
{
echo "## pgoprof import speed (bench/import-speed.sh)"
echo
echo "$(date -u +%F), $CPUS CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')) shared with other jobs. Inputs: \`build/bench/lbrgen -q -n N -o FILE BINARY\` (perf record -b as lbrgen writes it: 32 branch records a sample, 816 bytes), one file per binary: speedtest1 (sqlite $(cat "$REPO/bench/work/sqlite/src/VERSION" 2>/dev/null || echo '?'), clang-16 -O2 -g, $(stat -c %s "$W/speedtest1") bytes), bzip2 1.0.8 (clang-16 -O2 -g, $(stat -c %s "$W/bzip2") bytes), $(basename "$BIGBIN") ($BIGBIN, $(stat -c %s "$BIGBIN") bytes). Commands: \`pgoprof import -q -j1 -o OUT FILE\` and \`pgoprof import -q -o OUT FILE\` (default -j: the online CPUs)$([ -n "$OLD" ] && echo "; before: \`$OLD import -q -o OUT FILE\` (the build of main before this work)"). Wall time, user+sys time and peak RSS by /usr/bin/time, medians of $RUNS rounds (the variants interleaved in each round$([ "$BIGN" -gt 0 ] && echo "; 1 round at $(fmt_n "$BIGN")")); page-cache read: \`cat FILE >/dev/null\` after a first read. Every round's outputs are compared with cmp: byte-identical."
echo
table "$N"
if [ "$BIGN" -gt 0 ]; then
    echo
    echo "Peak RSS at $(fmt_n "$BIGN") samples (one round):"
    echo
    table "$BIGN"
fi
if [ "$OUT" != - ] && [ -f "$OUT" ] && grep -q '^<!-- notes -->' "$OUT"; then
    echo
    sed -n '/^<!-- notes -->/,$p' "$OUT"
fi
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else mkdir -p "$(dirname "$OUT")"; cp "$W/table.md" "$OUT"; cat "$OUT"; fi
