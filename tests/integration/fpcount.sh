#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Frame-pointer stacks are counted in the kernel by a hash of their frames
# (bpf/record.bpf.c count_frames, fp_counts), and each stack's frames come
# to the collector once through a ring (collector/fpstacks.c).  tests/fpcount
# runs synthesized stacks of 3 processes (1 to 127 frames, shared
# prefixes, the same frames in two processes) through count_frames by
# BPF_PROG_TEST_RUN and checks every key's count and frames against its
# own count; when the map is too small, the ring or the collector's table
# of frames too small (its share of --mem-budget), or a key's hash
# taken, every sample must be counted lost by its reason.  No sampling:
# nothing here depends on timing.  Its load is also where the verifier
# sees every sampling program (pgoprof-record loads the one it uses).
. "$(dirname "$0")/../lib.sh"

need_root "fpcount: fp stacks counted by hash in the kernel" || exit 0
D=$WORK/fpcount
mkdir -p "$D" && cd "$D" || exit 1
[ -x "$BUILD/fpcount" ] || { fail "fpcount" "$BUILD/fpcount is missing: make unit-tests builds it"; exit 0; }

# CASE ARGS...: fpcount's line in CASE.out; rc 0 = every count matched.
run() {
	c=$1; shift
	"$BUILD/fpcount" "$@" >"$c.out" 2>"$c.err"; rc=$?
	check "$c: every sample counted once, by key or by reason (rc=$rc)" \
		sh -c "test $rc -eq 0 || { cat '$c.err'; exit 1; }"
}
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1.out"; }

run maps
check "maps: 450 keys, all samples counted, none lost" sh -c \
	"test '$(field maps keys)' = 450 && test '$(field maps samples)' = '$(field maps counted)'"
check "the verifier loads all 7 programs (fp, fp before 6.1, LBR x 2, DWARF, fork, exit)" \
	test "$(field maps loaded)" = 7
run full --map-entries 100
check "full: 100 keys kept exactly, the rest lost.counts_map" sh -c \
	"test '$(field full keys)' = 100 && test '$(field full full)' -gt 0"
run ring --ring 4096
check "ring of one page: frames not sent are counted (unsent $(field ring unsent) keys, $(field ring frames_lost) samples)" \
	sh -c "test '$(field ring unsent)' -gt 0 && test '$(field ring frames_lost)' -gt 0"
run table --table 32768
check "table of 32 KiB: frames refused are counted (refused $(field table refused) stacks, $(field table frames_lost) samples)" \
	sh -c "test '$(field table refused)' -gt 0 && test '$(field table frames_lost)' -gt 0"
run collide --collide
check "a key's hash taken by another stack: its samples are lost.stack_hash" \
	test "$(field collide hash)" -gt 0
