#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Where the sampling events go (pgoprof-record(1), "Where the sampling
# events go"): on the threads of the targets, inherited by what they
# start, so that a busy process beside them is not interrupted for them.
# The BPF program counts every sample of a task that is no target
# (samples.other_tasks): with events on every CPU, a busy loop beside a
# sleeping command gave it about one a millisecond; now none can come.
# Also: a command's grandchild is sampled (the events are inherited), -p
# takes every thread of PID, and -a still takes every CPU.
. "$(dirname "$0")/../lib.sh"

need_root targets || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
mkdir -p "$WORK/targets" && cd "$WORK/targets" || exit 1
rm -f ./*.raw ./*.err
$CLANG -O2 -g -pthread -o leafcall "$TOP/tests/workloads/leafcall.c" ||
	{ fail "build leafcall"; exit 0; }

counter() { "$PGOPROF" show "$1" | awk -v n="$2" '$1 == "counter" && $2 == n { print $4 }'; }
ntasks() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
has_threads() { [ "$(ntasks "$1")" -ge "$2" ]; }

# A busy process on every CPU that is no target.
busy=
for _ in $(nproc 2>/dev/null || echo 2); do
	sh -c 'while :; do :; done' & busy="$busy $!"
done
trap 'kill $busy 2>/dev/null' EXIT

"$PGOPROF" record -F 999 -m stack -o sleep.raw -- sleep 1 2>sleep.err
check "a command: the events go on its 1 thread" grep -q 'recording at 999 Hz on 1 thread and what it starts' sleep.err
other=$(counter sleep.raw samples.other_tasks)
check "a sleeping command beside busy CPUs: samples.other_tasks = 0 (${other:-none})" test "${other:-x}" = 0

# sh -> hot: the grandchild's CPU (about 0.8 s) is sampled through the
# events sh inherited.
"$PGOPROF" record -q -F 999 -m stack -o tree.raw -- sh -c "$WORK/hot 1 20 >/dev/null"
taken=$(counter tree.raw samples.taken) other=$(counter tree.raw samples.other_tasks)
check "sh -c hot: the grandchild sampled through inherited events (${taken:-0} samples, > 100)" \
	test "${taken:-0}" -gt 100
check "sh -c hot: samples.other_tasks = 0 (${other:-none})" test "${other:-x}" = 0

# -p of a process with two busy threads besides main: an event on each.
./leafcall threads 4000000000 >/dev/null & lc=$!
if until_true 30 has_threads $lc 3; then
	"$PGOPROF" record -F 999 -m stack -p $lc -d 1 -o p.raw 2>p.err
	taken=$(counter p.raw samples.taken) other=$(counter p.raw samples.other_tasks)
	check "-p: the events go on its 3 threads" grep -q 'recording at 999 Hz on 3 threads and what they start' p.err
	check "-p: its two busy threads sampled (${taken:-0} samples, > 200)" test "${taken:-0}" -gt 200
	check "-p: samples.other_tasks = 0 (${other:-none})" test "${other:-x}" = 0
else
	fail "-p" "leafcall threads did not start its threads"
fi
kill $lc 2>/dev/null
wait $lc 2>/dev/null

"$PGOPROF" record -F 99 -m stack -a -d 1 -o all.raw 2>all.err
check "-a: the events go on every CPU" grep -q "recording at 99 Hz on $(nproc) CPUs" all.err
