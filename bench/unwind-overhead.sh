#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of DWARF call graphs: wall time of one CPU-bound workload under
# pgoprof record --call-graph fp | dwarf | auto and perf record
# --call-graph dwarf, all at 999 Hz, interleaved (each round runs every
# configuration once, in a rotated order), plus the bytes each sample costs
# and the unwinding time per sample.  Needs root (BPF, perf).
#
#   bench/unwind-overhead.sh [-n RUNS] [-w WORKLOAD] [-a ARG]
#
# RUNS rounds (default 9, at least 9 for the report).  WORKLOAD: libcsort
# (default: qsort in libc calling back into the program, built by gcc -O2
# without frame pointers, about 17 frames deep) or leafcall (a hot leaf 3
# frames deep).  ARG: the workload's argument (default: about 2 s of work).
# Results: bench/work/unwind/ (times.tsv, report.md), report on stdout.
set -eu

RUNS=9 WL=libcsort ARG=
while getopts n:w:a:h o; do
	case $o in
	n) RUNS=$OPTARG ;;
	w) WL=$OPTARG ;;
	a) ARG=$OPTARG ;;
	*) sed -n '2,15p' "$0"; exit 2 ;;
	esac
done
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$TOP/bench/work/unwind
PGOPROF=$TOP/pgoprof
mkdir -p "$OUT"
cd "$OUT"
[ "$(id -u)" = 0 ] || { echo "$0: needs root (BPF and perf)" >&2; exit 1; }
case $WL in
libcsort) ARG=${ARG:-120} ;;
leafcall) ARG=${ARG:-1000000} ;;
*) echo "$0: -w libcsort or leafcall" >&2; exit 2 ;;
esac
gcc -O2 -g -o "$WL" "$TOP/tests/workloads/$WL.c" -lpthread
CMD="./$WL $ARG"

CONFIGS="none pg-fp pg-dwarf pg-auto perf-dwarf"
# CONFIG ROUND: runs it, prints "WALL CPU" in seconds, CPU being user +
# system time of the profiler and the workload together (its unwinding,
# its copies), which other load on the machine disturbs less than wall.
run() {
	case $1 in
	none) set -- $CMD ;;
	pg-*) set -- "$PGOPROF" record -q -F 999 --call-graph "${1#pg-}" -o "$1.$2.raw" -- $CMD ;;
	perf-dwarf) set -- perf record -q -F 999 -e cpu-clock --call-graph dwarf -o "perf.$2.data" -- $CMD ;;
	esac
	/usr/bin/time -f '%e %U %S' -o time.out "$@" >/dev/null 2>>run.log
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' time.out
}

: >run.log
rm -f pg-*.raw perf.*.data
printf 'round\tconfig\twall\tcpu\n' >times.tsv
run none 0 >/dev/null	# warm-up: page cache, BPF verifier
set -- $CONFIGS
for r in $(seq 1 "$RUNS"); do
	for c in "$@"; do
		printf '%d\t%s\t%s\n' "$r" "$c" "$(run "$c" "$r" | tr ' ' '\t')" >>times.tsv
	done
	set -- "${@:2}" "$1"	# rotate the order for the next round
done

med() { awk -v c="$1" -v f="${2:-3}" '$2 == c { print $f }' times.tsv | median; }
# Per-round ratios a/b (field 3 wall, 4 CPU), their median: robust to
# drift between rounds.
pair() { awk -v a="$1" -v b="$2" -v f="${3:-3}" '$2 == a { x[$1] = $f } $2 == b { y[$1] = $f }
	END { for (r in x) if (r in y && y[r] > 0) print x[r] / y[r] }' times.tsv | median; }
counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }

# Bytes and unwinding time per sample, summed over the rounds.
sum_pg() { # CONFIG: bytes_per_sample unwind_us_per_sample samples lost
	local b=0 s=0 u=0 l=0 f
	for f in "$1".*.raw; do
		b=$((b + $(counter "$f" ringbuf.bytes)))
		u=$((u + $(counter "$f" unwinder.time_us)))
		s=$((s + $(counter "$f" samples.taken) - $(counter "$f" unattributed.kernel)))
		l=$((l + $(counter "$f" samples.lost)))
	done
	echo "$b $u $s $l" | awk '{ printf "%.0f %.1f %d %d\n", $3 ? $1 / $3 : 0, $3 ? $2 / $3 : 0, $3, $4 }'
}
perf_bytes=0 perf_samples=0 perf_unwind=0
for f in perf.*.data; do
	perf_bytes=$((perf_bytes + $(stat -c %s "$f")))
	perf_samples=$((perf_samples + $(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')))
done
# perf unwinds when the data is read: time perf script (addresses only, no
# inline lookup) over one file, less a pass that reads the events without
# unwinding (perf report --stats): the unwinding and its start-up.
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
t_script=$(secs perf script -F ip --no-inline -i perf.1.data)
t_stats=$(secs perf report --stats -i perf.1.data)
n1=$(perf report -i perf.1.data --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
perf_unwind=$(echo "($t_script - $t_stats) * 1000000 / $n1" | bc -l)

{
	echo "## --call-graph overhead: $CMD, 999 Hz, $RUNS interleaved rounds, $(nproc) CPUs"
	echo
	echo "| configuration | median wall s | wall vs none | median CPU s | CPU vs none |"
	echo "|---|---|---|---|---|"
	for c in $CONFIGS; do
		printf '| %s | %.3f | %.3f | %.2f | %.3f |\n' "$c" "$(med "$c")" \
			"$(pair "$c" none)" "$(med "$c" 4)" "$(pair "$c" none 4)"
	done
	echo
	echo "| ratio (median of per-round ratios) | wall | CPU |"
	echo "|---|---|---|"
	for p in "pg-dwarf pg-fp" "pg-dwarf perf-dwarf" "pg-auto pg-fp" "pg-auto perf-dwarf"; do
		set -- $p
		printf '| %s / %s | %.3f | %.3f |\n' "$1" "$2" "$(pair "$1" "$2")" "$(pair "$1" "$2" 4)"
	done
	echo
	echo "| configuration | bytes/sample | unwinding µs/sample | samples | lost |"
	echo "|---|---|---|---|---|"
	for c in pg-dwarf pg-auto; do
		set -- $(sum_pg "$c")
		echo "| $c | $1 | $2 | $3 | $4 |"
	done
	printf '| perf-dwarf | %.0f | %.1f (perf script, one run) | %d | - |\n' \
		"$(echo "$perf_bytes / $perf_samples" | bc -l)" "$perf_unwind" "$perf_samples"
	echo
	echo "pgoprof: bytes = ring-buffer records (header, registers, auto's"
	echo "frame-pointer chain, stack copy); unwinding = unwinder.time_us in"
	echo "the collector, off the sampled CPU's critical path. perf: perf.data"
	echo "size per sample (includes side-band records); its unwinding happens"
	echo "later, in perf script -F ip --no-inline, timed less perf report"
	echo "--stats (the reading of the file) over round 1's file, start-up"
	echo "included."
} | tee report.md
