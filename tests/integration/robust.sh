#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Faults: SIGKILL leaves no BPF program behind; a full disk or a read-only
# directory gives a clear error and no file, whole or partial.
. "$(dirname "$0")/../lib.sh"

need_root robust || exit 0
build_workloads || { fail build_workloads; exit 0; }
cd "$WORK" || exit 1

# IDs of loaded programs of ours; those that appear while our recorder runs
# are its own, even if another recording runs beside it.  They are listed
# once it records (wait_recording), not after a guessed second.
progs() { bpftool prog show 2>/dev/null | awk '/ name (on_sample|on_lbr_sample|on_stack_sample) / { print $1 }' | sort; }
progs >ids.before
"$TOP/pgoprof-record" -q -a -o killed.raw 2>/dev/null & rpid=$!
wait_recording $rpid
progs >ids.during
comm -13 ids.before ids.during >ids.ours
kill -KILL $rpid; wait $rpid 2>/dev/null
# The kernel frees programs after their last reference goes, a little
# later (up to 30 s allowed, for a loaded machine).
none_left() { progs >ids.after; [ -z "$(comm -12 ids.ours ids.after)" ]; }
until_true 30 none_left
check "SIGKILL: no BPF program left ($(wc -l <ids.ours) loaded, $(comm -12 ids.ours ids.after | wc -l) left)" \
	sh -c "test -s ids.ours && test -z \"\$(comm -12 ids.ours ids.after)\""
check "SIGKILL: no output file, whole or partial" sh -c "! ls -A | grep -q 'killed.raw'"

# A full disk and a read-only directory, on small tmpfs mounts of our own.
# (A profile of hot to convert: its own, not another test's hot.raw.)
"$PGOPROF" record -q -o robust.raw -- ./hot 1 >/dev/null 2>&1 || fail "record hot"
mkdir -p full ro
umount full ro 2>/dev/null
if mount -t tmpfs -o size=8k tmpfs full && mount -t tmpfs -o ro tmpfs ro; then
	dd if=/dev/zero of=full/filler bs=1k count=8 2>/dev/null
	"$PGOPROF" record -q -o full/out.raw -- ./hot 1 >/dev/null 2>full.err; rc=$?
	check "record to a full disk fails clearly (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'full/' full.err && ! ls -A full | grep -q out.raw"
	"$PGOPROF" convert -q robust.raw --binary hot -o full/out.prof 2>fullc.err; rc=$?
	check "convert to a full disk fails clearly (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'out.prof' fullc.err && ! ls -A full | grep -q out.prof"
	"$PGOPROF" record -q -o ro/out.raw -- ./hot 1 >/dev/null 2>ro.err; rc=$?
	check "record into a read-only directory fails clearly (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'Read-only file system' ro.err"
	umount full ro
else
	fail "mount tmpfs for the full-disk tests"
fi
