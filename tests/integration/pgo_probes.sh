#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Pseudo-probes with exact counts (issue 29): pgo.mk's clang exact mode
# builds with -fpseudo-probe-for-profiling, convert writes a probe-based
# profile (a !CFGChecksum per function and inlinee) from record --exact,
# and the PGO build has the probes and the older inliner's flags; clang
# applies the profile (entry counts); PGO_PROBES=0 gives a line profile
# and no probe flags.  convert --probes: off writes lines from the same
# recording, on refuses a binary without probes and afdo.  No root:
# exact counts run under valgrind.
. "$(dirname "$0")/../lib.sh"

for t in valgrind "$CLANG" "$PROFDATA"; do
	need_tool pgo_probes "$t" "valgrind, clang-16 or llvm-16" || exit 0
done
D=$WORK/pgo_probes
rm -rf "$D" && mkdir -p "$D" || exit 1
EX=$TOP/pgo/examples
before=$(ls -A "$EX")
set -- PGOPROF="$PGOPROF" PGO_MODE=exact PGO_CC="$CLANG" \
	'PGO_TRAIN=$(PGO_BINARY) 1 >/dev/null'

P=$D/probes
make -C "$EX" "$@" PGO_DIR="$P" pgo-profile pgo-build >"$D/probes.log" 2>&1
rc=$?
check "make pgo-profile pgo-build, PGO_MODE=exact (clang) exits 0 (rc=$rc)" test $rc -eq 0
# -gdwarf-4 only where record --exact runs callgrind.
G4=$([ "$("$PGOPROF" record --exact --print-engine 2>/dev/null)" = qemu ] || echo ' -gdwarf-4')
check "the exact build has the probes" grep -q -- \
	"build sampled: $CLANG -O2 -g$G4 -fdebug-info-for-profiling -fpseudo-probe-for-profiling\$" "$D/probes.log"
check "convert took the probes" grep -q "^pgoprof convert: pseudo-probes: [1-9][0-9]* probes counted" "$D/probes.log"
"$PGOPROF" show "$P/wordfreq.extbin" >"$D/probes.txt" 2>&1
check "the profile is probe-based: main has a checksum" sh -c \
	"awk '/^main:/ { m = 1; next } /^[^ ]/ { m = 0 } m && /^ !CFGChecksum: [0-9]+\$/ { ok = 1 } END { exit !ok }' '$D/probes.txt'"
check "llvm-profdata reads it as probe-based" sh -c \
	"'$PROFDATA' show --sample --show-sec-info-only '$P/wordfreq.extbin' | grep -q 'FunctionMetadata.*Flags: {probe}'"
check "the PGO build has the probes and the older inliner" grep -q -- \
	"build pgo: $CLANG -O2 -g -fprofile-sample-use=$P/wordfreq.extbin -fsample-profile-use-profi -fpseudo-probe-for-profiling -mllvm -sample-profile-prioritized-inline=0 -mllvm -sample-profile-inline-size=0 -mllvm -ext-tsp-apply-without-profile=false\$" "$D/probes.log"
"$CLANG" -O2 -g -fpseudo-probe-for-profiling -fprofile-sample-use="$P/wordfreq.extbin" \
	-S -emit-llvm -o "$D/wordfreq.ll" "$EX/wordfreq.c" 2>"$D/ll.err"
check "clang-16 applies it (main gets a profile)" grep -q 'define .*@main(.*!prof ![0-9]*' "$D/wordfreq.ll"
check "... as a count, not a stale drop" sh -c \
	"grep -q '^![0-9]* = !{!\"function_entry_count\", i64 [1-9]' '$D/wordfreq.ll' && ! test -s '$D/ll.err'"

# PGO_PROBES=0: lines, as before.
L=$D/lines
make -C "$EX" "$@" PGO_DIR="$L" PGO_PROBES=0 pgo-profile pgo-build >"$D/lines.log" 2>&1
rc=$?
check "PGO_PROBES=0 exits 0 (rc=$rc)" test $rc -eq 0
check "PGO_PROBES=0: no probes in either build" sh -c \
	"grep -q -- 'build sampled: $CLANG -O2 -g$G4 -fdebug-info-for-profiling\$' '$D/lines.log' &&
	 grep -q -- 'build pgo: $CLANG -O2 -g -fprofile-sample-use=$L/wordfreq.extbin -fsample-profile-use-profi\$' '$D/lines.log'"
check "PGO_PROBES=0: a line profile (no checksum)" sh -c \
	"'$PGOPROF' show '$L/wordfreq.extbin' >'$D/lines.txt' && grep -q '^main:' '$D/lines.txt' && ! grep -q CFGChecksum '$D/lines.txt'"

# convert --probes on the probe build's recording.  --probes off reads
# its line table, which some libdw versions reject (libdw 0.188: the
# probe build's discriminators): then no profile, and a note that says
# why; else a line profile with counts.  Never a profile of heads only.
rm -f "$D/off.txt"
"$PGOPROF" convert "$P/wordfreq.raw" --binary "$P/sampled/wordfreq" --probes off \
	-f llvm-text -o "$D/off.txt" 2>"$D/off.err"
rc=$?
check "--probes off: lines from the same recording, or no profile and why (rc=$rc)" sh -c \
	"if test $rc -eq 0; then grep -q '^main:' '$D/off.txt' && grep -q '^ [0-9.]*: [1-9]' '$D/off.txt' &&
	   ! grep -q CFGChecksum '$D/off.txt' && ! grep -q pseudo-probes '$D/off.err';
	 else test $rc -eq 1 && ! test -e '$D/off.txt' &&
	   grep -q 'built with -fpseudo-probe-for-profiling, whose line-table discriminators' '$D/off.err'; fi"
"$PGOPROF" convert "$L/wordfreq.raw" --binary "$L/sampled/wordfreq" --probes on \
	-o "$D/on.extbin" 2>"$D/on.err"
rc=$?
check "--probes on, a binary without probes: exit 1, says how to build it (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'has no .pseudo_probe section: build it with -fpseudo-probe-for-profiling' '$D/on.err' && ! test -e '$D/on.extbin'"
"$PGOPROF" convert "$P/wordfreq.raw" --binary "$P/sampled/wordfreq" --probes on \
	-f afdo -o "$D/on.afdo" 2>"$D/afdo.err"
rc=$?
check "--probes on with afdo: exit 1 (rc=$rc)" sh -c "test $rc -eq 1 && grep -q 'write llvm-text or llvm-extbinary' '$D/afdo.err'"
check "the example directory is left as it was" test "$(ls -A "$EX")" = "$before"
