#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Collector memory (issue 17): the collector's peak RSS (/usr/bin/time %M
# of the collector alone) attached with -p for ATTACH seconds (default 10)
# to bench/steady.c, at 4999 Hz by default, with the samples it dropped;
# pgoprof's with --call-graph fp and dwarf, perf record's with -g and
# --call-graph dwarf.
#
# Usage: bench/collector-memory.sh [-F HZ] [-A ATTACH] [-l LABEL] [-b BINDIR]
#            [-x 'EXTRA pgoprof OPTIONS'] [-t] [-o OUT.md]
#   -l LABEL   results under this label (default "after"; rows of the same
#              label and options are replaced)
#   -b BINDIR  where pgoprof and pgoprof-record are (default: the tree's)
#   -x OPTS    more options for pgoprof record (e.g. '--mem-budget 16M')
#   -t         no measuring: the table from the results so far
#   -o OUT     Markdown (default bench/results/collector-memory.md; - = stdout)
# Run under the machine's lock: flock /tmp/pgoprof-heavy.lock bench/collector-memory.sh
set -eu

HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
HZ=4999 ATT=10 LABEL=after BIN=$REPO EXTRA= TONLY=
OUT=$REPO/bench/results/collector-memory.md
while getopts F:A:l:b:x:to:h o; do
    case $o in
        F) HZ=$OPTARG ;; A) ATT=$OPTARG ;; l) LABEL=$OPTARG ;; b) BIN=$(cd "$OPTARG" && pwd) ;;
        x) EXTRA=$OPTARG ;; t) TONLY=1 ;; o) OUT=$OPTARG ;;
        h) sed -n '3,18p' "$0"; exit 0 ;; *) sed -n '3,18p' "$0" >&2; exit 2 ;;
    esac
done
die() { echo "collector-memory: $*" >&2; exit 1; }
W=$REPO/bench/work/memory
R=$W/results.txt
mkdir -p "$W"
tag="$LABEL${EXTRA:+ ($EXTRA)}"

# "TAG|CELL|HZ asked|HZ run|peak RSS KiB|taken|lost" appended to $R.
run_cell() {
    local cmd wl hz=$HZ taken=- lost=-
    case $1 in
        # shellcheck disable=SC2206
        pgoprof-fp) cmd=("$BIN/pgoprof-record" -q -m stack --call-graph fp $EXTRA) ;;
        # shellcheck disable=SC2206
        pgoprof-dwarf) cmd=("$BIN/pgoprof-record" -q -m stack --call-graph dwarf $EXTRA) ;;
        perf-g) cmd=(perf record -q -N -B -g) ;;
        perf-dwarf) cmd=(perf record -q -N -B --call-graph dwarf) ;;
    esac
    "$W/steady" $((ATT + 4)) >/dev/null &
    wl=$!
    sleep 2
    case $1 in
        pgoprof-*) /usr/bin/time -f %M -o "$W/rss.txt" "${cmd[@]}" -F "$HZ" -p "$wl" -d "$ATT" -o "$W/x.raw" 2>"$W/err.txt" ;;
        perf-*) /usr/bin/time -f %M -o "$W/rss.txt" "${cmd[@]}" -F "$HZ" -p "$wl" -o "$W/x.data" -- sleep "$ATT" 2>"$W/err.txt" ;;
    esac || { cat "$W/err.txt" >&2; kill "$wl"; die "$1 failed"; }
    wait "$wl"
    if [ "${1%%-*}" = pgoprof ]; then
        hz=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "sample_freq" { print $4 }')
        taken=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "samples.taken" { print $4 }')
        lost=$("$BIN/pgoprof" show "$W/x.raw" | awk '$2 == "samples.lost" { print $4 }')
    fi
    echo "$tag|$1|$HZ|$hz|$(tail -n 1 "$W/rss.txt")|$taken|$lost" >>"$R"
    tail -n 1 "$R" >&2
}

if [ -z "$TONLY" ]; then
    command -v perf >/dev/null || die "perf missing"
    [ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
    [ "$BIN" != "$REPO" ] || make -s -C "$REPO" pgoprof pgoprof-record >&2
    [ -x "$W/steady" ] && [ "$W/steady" -nt "$HERE/steady.c" ] ||
        cc -O2 -g -fno-omit-frame-pointer -o "$W/steady" "$HERE/steady.c"
    [ -f "$R" ] && awk -F'|' -v t="$tag" '$1 != t' "$R" >"$R.tmp" && mv "$R.tmp" "$R"
    for c in pgoprof-fp pgoprof-dwarf perf-g perf-dwarf; do run_cell "$c"; done
fi

[ -s "$R" ] || die "no results in $R"
{
echo "## Collector memory (bench/collector-memory.sh)"
echo
echo "Peak RSS of the collector alone (\`/usr/bin/time -f %M\`), attached with \`-p PID\` for $ATT s to \`bench/steady.c\` (one busy thread): \`pgoprof-record -q -m stack --call-graph fp|dwarf [OPTIONS] -F HZ -p PID -d $ATT\`, \`perf record -q -N -B -g|--call-graph dwarf -F HZ -p PID -- sleep $ATT\`. *Hz run*: pgoprof's meta sample_freq (above 1000 Hz pgoprof-record lowers the rate to what keeps sampling within kernel.perf_cpu_time_max_percent, halved with DWARF stacks). $(nproc) vCPUs; $(date -u +%F)."
echo
echo "| build | collector | Hz asked | Hz run | peak RSS MiB | samples taken | samples lost |"
echo "|---|---|---:|---:|---:|---:|---:|"
awk -F'|' '{ printf "| %s | %s | %s | %s | %.1f | %s | %s |\n", $1, $2, $3, $4, $5 / 1024, $6, $7 }' "$R"
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else cp "$W/table.md" "$OUT"; cat "$OUT"; fi
