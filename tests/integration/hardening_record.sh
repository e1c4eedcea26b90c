#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof-record's output and -p against a hostile or careless user
# (docs/threat-model.md): a FIFO at -o is another user's in a sticky
# directory (refused), has no reader (refused at the end, the samples
# saved elsewhere) or a reader that never reads (SIGTERM still ends the
# recorder); -p of a process of more threads than open files allowed
# names the limit; a process of many threads that each run less than a
# sampling period gets a warning that says so.
. "$(dirname "$0")/../lib.sh"

need_root hardening_record || exit 0
build_workloads || { fail build_workloads; exit 0; }
unset SUDO_UID SUDO_GID SUDO_USER
REC=$TOP/pgoprof-record
NOBODY=65534
D=$WORK/hardening_record
rm -rf "$D"; mkdir -p "$D"
cd "$D" || exit 1
gone() { # PID: up to 10 s until it no longer exists
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	! kill -0 "$1" 2>/dev/null
}

# --- a FIFO at -o ------------------------------------------------------------
mkdir -m 1777 sticky
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups mkfifo sticky/fifo
timeout -k 5 30 "$REC" -q -m stack -o "$D/sticky/fifo" -- touch "$D/ran.sticky" 2>sticky.err; rc=$?
check "root, -o another user's FIFO in a sticky directory: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.sticky' && grep -q 'sticky' sticky.err"
mkfifo fifo
mkdir tmpd
TMPDIR=$D/tmpd timeout -k 5 30 "$REC" -q -m stack -o "$D/fifo" -- "$WORK/hot" 1 >/dev/null 2>noreader.err; rc=$?
saved=$(ls "$D"/tmpd/pgoprof-fifo.* 2>/dev/null | head -n 1)
check "-o a FIFO that nobody reads: no hang, exit 1, the samples saved and named (rc=$rc, $saved)" sh -c \
	"test $rc -eq 1 && grep -q 'no reader' noreader.err && test -n '$saved' &&
	 grep -q \"saved to $saved\" noreader.err && '$PGOPROF' show '$saved' | grep -q '^counter samples.taken'"
# A reader that holds the FIFO open (O_RDWR does not wait for a writer)
# with a pipe of one page, and never reads: the writer fills the page.
perl -e 'open(my $f, "+<", "fifo") or die; fcntl($f, 1031, 4096); sleep 60' & reader=$!
writer_in_fifo() { # the recorder's writer child has the FIFO open
	for c in $(cat /proc/$rpid/task/*/children 2>/dev/null); do
		ls -l /proc/$c/fd 2>/dev/null | grep -q " -> $D/fifo\$" && return 0
	done
	return 1
}
TMPDIR=$D/tmpd "$REC" -q -m stack -o "$D/fifo" -- "$WORK/hot" 1 >/dev/null 2>stuck.err & rpid=$!
until_true 30 writer_in_fifo
kill -TERM $rpid
if gone $rpid; then
	wait $rpid; rc=$?
	check "-o a FIFO whose reader never reads: SIGTERM ends the recorder, said (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'interrupted' stuck.err"
else
	fail "-o a FIFO whose reader never reads: SIGTERM ends the recorder" "still running 10 s after SIGTERM"
	pkill -KILL -P $rpid; kill -KILL $rpid; wait $rpid
fi
kill $reader 2>/dev/null; wait $reader 2>/dev/null

# --- -p of a process of many threads ------------------------------------------
# 1000 threads, each 20 us of CPU every 200 ms: 100 us a second each, far
# below one period of 1 ms (999 Hz) on its own cpu-clock, although the
# process as a whole runs 0.1 CPU.
$CLANG -O2 -pthread -o threads "$TOP/tests/workloads/threads.c" || { fail "build threads"; exit 0; }
./threads 1000 20 200 300 >threads.out & tpid=$!
until_true 30 grep -q ready threads.out
(ulimit -n 1024; exec timeout -k 5 60 "$REC" -q -m stack -p $tpid -d 0.5 -o "$D/nofile.raw") 2>nofile.err; rc=$?
check "-p of 1000 threads under ulimit -n 1024: the limit named (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'Too many open files' nofile.err && grep -q 'ulimit -n' nofile.err"
timeout -k 5 60 "$REC" -q -m stack -p $tpid -d 1 -o "$D/idle.raw" 2>idle.err; rc=$?
# Under load a thread's own CPU time (its wake-ups and syscalls) can
# reach a period and give a sample: then there is nothing to warn of,
# and the check below would pass or fail by how the machine was loaded.
taken=$("$PGOPROF" show "$D/idle.raw" 2>/dev/null | awk '$2 == "samples.taken" { print $4 }')
if [ "$rc" -eq 0 ] && [ "${taken:-0}" -gt 0 ]; then
	skip "-p of 1000 threads that each run less than a period: the warning says why" \
		"a thread reached a period under this load ($taken samples): no warning is due"
else
	check "-p of 1000 threads that each run less than a period: the warning says why (rc=$rc)" sh -c \
		"test $rc -eq 0 && grep -q 'gave no samples' idle.err && grep -Eq '10[0-9][0-9] threads' idle.err &&
		 grep -q -- ' -a' idle.err && grep -q -- '-c' idle.err"
fi
kill $tpid 2>/dev/null; wait $tpid 2>/dev/null || :
