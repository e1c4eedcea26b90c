#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The sampler ladder on real hardware, for a user or release engineer to
# run on their machine (docs/hardware.md).  It says which rung
# `pgoprof record` (--mode auto) takes and why, records one program
# (pgo/examples/wordfreq.c) by each rung the machine has and with
# `record --exact`, and compares:
#   - the branch-record profile (rung 1) with `perf record -b` of the same
#     program and input, imported (`pgoprof compare` overlap);
#   - every sampled profile with the exact one (overlap), and the program
#     rebuilt with each (clang-16 -fprofile-sample-use) by the instructions
#     it executes (cachegrind Ir) against -O2;
# and ends with one line to paste into a bug report.
# Needs root (pgoprof-record), clang-16, valgrind; perf for rung 1's check.
# Usage: sudo sh bench/hwcheck.sh [-F HZ] [-n MB] [-k]
#   -F HZ   the sampling rate (default 9999, pgo.mk's)
#   -n MB   wordfreq's training input in MB (default 8; Ir is measured at 2)
#   -k      keep the work directory (its path is printed)
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
PGOPROF=$REPO/pgoprof
CC=${CC:-clang-16}
hz=9999 mb=8 keep=
while [ $# -gt 0 ]; do
	case $1 in
	-F) hz=$2; shift 2 ;;
	-n) mb=$2; shift 2 ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "hwcheck: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
say() { echo "hwcheck: $*"; }
[ -x "$PGOPROF" ] && [ -x "$REPO/pgoprof-record" ] || { say "build pgoprof first (make)"; exit 1; }
command -v "$CC" >/dev/null || { say "$CC is not installed (Debian: clang-16)"; exit 1; }
command -v valgrind >/dev/null || { say "valgrind is not installed (Debian: valgrind)"; exit 1; }
W=$(mktemp -d /tmp/hwcheck.XXXXXX) || exit 1
[ -n "$keep" ] && say "work directory $W" || trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
FLAGS="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
$CC $FLAGS -o wordfreq "$REPO/pgo/examples/wordfreq.c" || exit 1

# ---- the ladder ----
auto=$("$PGOPROF" record --probe 2>probe.err); rc=$?
sed 's/^pgoprof-record: /  /' probe.err
[ $rc -eq 0 ] || { say "the probes were refused (above): run as root"; exit 1; }
say "auto takes: $auto"
rungs= events=
for m in lbr exec stack; do
	if "$PGOPROF" record -q --probe --mode $m >/dev/null 2>&1; then
		rungs="$rungs $m"
	fi
done
for e in instructions:ppp instructions:pp instructions:p ibs_op instructions branches; do
	"$PGOPROF" record -q --probe --event $e >/dev/null 2>&1 && events="$events${events:+,}$e"
done
say "rungs this machine has:$rungs; exact (callgrind): yes"
say "execution events: ${events:-none}"

# ---- the recordings ----
ir() { # BINARY: instructions executed by wordfreq 2 (cachegrind Ir)
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"./$1" 2 2>&1 >/dev/null | awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
}
overlap() { "$PGOPROF" compare -n 0 -l 0 "$1" "$2" | awk '$1 == "body" { print $2 }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", 100 * (a - b) / b }'; }
"$PGOPROF" record --exact -o exact.raw -- ./wordfreq "$mb" >/dev/null 2>exact.err ||
	{ cat exact.err; say "record --exact failed"; exit 1; }
"$PGOPROF" convert -q exact.raw --binary wordfreq -o exact.prof || exit 1
base=$(ir wordfreq)
$CC $FLAGS -fprofile-sample-use=exact.prof -o wf-exact "$REPO/pgo/examples/wordfreq.c" || exit 1
exact_ir=$(ir wf-exact)
say "exact: Ir $(pct "$exact_ir" "$base") against -O2 ($base)"
summary="exact $(pct "$exact_ir" "$base")"
for m in $rungs; do
	"$PGOPROF" record -q --mode $m -F "$hz" -o $m.raw -- ./wordfreq "$mb" >/dev/null 2>$m.err ||
		{ say "$m: record failed: $(cat $m.err)"; summary="$summary; $m failed"; continue; }
	ev=$("$PGOPROF" show $m.raw | awk '$1 == "meta" && $2 == "event" { print $4 }')
	n=$("$PGOPROF" show $m.raw | awk '$2 == "samples.taken" { print $4 }')
	"$PGOPROF" convert -q $m.raw --binary wordfreq -o $m.prof || continue
	$CC $FLAGS -fprofile-sample-use=$m.prof -o wf-$m "$REPO/pgo/examples/wordfreq.c" || continue
	r=$(ir wf-$m) o=$(overlap $m.prof exact.prof)
	say "$m ($ev, $n samples): body overlap with exact $o; Ir $(pct "$r" "$base") against -O2 (exact: $(pct "$exact_ir" "$base"))"
	summary="$summary; $m $ev n=$n overlap=$o Ir=$(pct "$r" "$base")"
	[ $m = lbr ] || continue
	# perf's branch stacks of the same program and input, imported.
	if ! command -v perf >/dev/null; then
		say "lbr: perf is not installed (Debian: linux-perf): no perf record -b to compare with"
		continue
	fi
	if [ "$ev" = ex_ret_brn_tkn ]; then pev="-e rc4:u -c 100003"; else pev="-e cycles:u"; fi
	# shellcheck disable=SC2086
	if perf record -q -b $pev -o perf.data -- ./wordfreq "$mb" >/dev/null 2>perf.err &&
	   "$PGOPROF" import -q -o perf.raw perf.data 2>>perf.err &&
	   "$PGOPROF" convert -q perf.raw --binary wordfreq -o perf.prof 2>>perf.err; then
		o=$(overlap lbr.prof perf.prof)
		say "lbr: body overlap with perf record -b $pev + import: $o"
		summary="$summary; lbr/perf overlap=$o"
	else
		say "lbr: perf record -b failed: $(tail -n 2 perf.err | tr '\n' ' ')"
	fi
done

# ---- one line for a bug report ----
cpu=$(awk -F': ' '/^model name|^CPU part/ { print $2; exit }' /proc/cpuinfo)
echo "hwcheck: pgoprof $("$PGOPROF" --version 2>/dev/null | awk '{ print $NF }'); $(uname -sr); ${cpu:-unknown CPU}; auto=$auto; rungs:$rungs; exec events: ${events:-none}; $summary"
