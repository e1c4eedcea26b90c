#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The sampler ladder of pgoprof record (docs/man/pgoprof-record.1,
# "Sampling mode") on the machine at hand: --probe's contract (one word on
# standard output, for pgo/pgo.mk), one line per rung, the META of the mode
# taken; where the machine has no PMU (a VM with cpu-clock only), that
# --mode exec and --event fail loudly, naming what they tried.  The
# decision for other machines is tests/unit/test_probe.c's.
. "$(dirname "$0")/../lib.sh"

need_root ladder || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
cd "$WORK" || exit 1
meta() { "$PGOPROF" show "$1" | awk -v k="$2" '$1 == "meta" && $2 == k { print $4 }'; }

word=$("$PGOPROF" record --probe 2>probe.err); rc=$?
check "--probe: exit 0 and one word on stdout ($word)" sh -c \
	"test $rc -eq 0 && test \$(printf '%s\n' '$word' | wc -l) -eq 1 && echo '$word' | grep -Eqx 'lbr|exec|stack'"
check "--probe: one line per rung on stderr, then the mode taken" sh -c \
	"test \$(grep -c '^pgoprof-record: rung [123], ' probe.err) -eq 3 && grep -q '^pgoprof-record: mode $word' probe.err && test \$(wc -l <probe.err) -eq 4"
qword=$("$PGOPROF" record -q --probe 2>probe-q.err)
check "--probe -q: the word only" sh -c "test '$qword' = '$word' && ! test -s probe-q.err"
"$PGOPROF" record --probe -- true >/dev/null 2>probe-cmd.err; rc=$?
check "--probe with a command: bad usage (rc=$rc)" test $rc -eq 2

# Privileges: the probes run as -a records (per CPU), which needs
# CAP_PERFMON: refused, never taken for "no PMU here".
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$TOP/pgoprof-record" --probe 2>probe-priv.err); rc=$?
	check "--probe without privileges: exit 1, says CAP_PERFMON, no word (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'CAP_PERFMON' probe-priv.err && test -z '$out'"
else
	skip "--probe without privileges" "perf_event_paranoid <= 0 or no setpriv: anyone may probe"
fi

# The recording auto makes: its META says the event and the signal.
"$PGOPROF" record -o auto.raw -- ./hot 1 >/dev/null 2>auto.err; rc=$?
case $word in
lbr) want_signal=branch-records ;;
exec) want_signal=executions ;;
*) want_signal=time ;;
esac
check "auto records what --probe said: signal $want_signal (rc=$rc, signal $(meta auto.raw signal))" sh -c \
	"test $rc -eq 0 && test '$(meta auto.raw signal)' = '$want_signal' && grep -q '^pgoprof-record: rung 3, ' auto.err"

if ls /sys/bus/event_source/devices/ | grep -Eq '^(cpu|cpu_core|cpu_atom|ibs_op|armv.*|arm_.*pmu.*)$'; then
	skip "ladder on a machine without a PMU" "this machine has one: tests/unit/test_probe.c covers the table, bench/hwcheck.sh the hardware"
	exit 0
fi
check "no PMU: --probe says stack" test "$word" = stack
check "no PMU: auto writes event cpu-clock, signal time" sh -c \
	"test '$(meta auto.raw event)' = cpu-clock && test '$(meta auto.raw signal)' = time"
"$PGOPROF" record -q --mode exec -o exec.raw -- ./hot 1 >/dev/null 2>exec.err; rc=$?
check "no PMU: --mode exec fails in one line naming what it tried (rc=$rc)" sh -c \
	"test $rc -eq 1 && test \$(wc -l <exec.err) -eq 1 && grep -q -- '--mode exec: this CPU or VM offers no execution-proportional event' exec.err && grep -q 'instructions:ppp' exec.err && grep -q 'ibs_op' exec.err && grep -q 'branches' exec.err && ! test -e exec.raw"
"$PGOPROF" record --mode exec -o exec.raw -- ./hot 1 >/dev/null 2>exec-v.err; rc=$?
check "no PMU: --mode exec without -q says the rungs too (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q '^pgoprof-record: rung 2, execution samples: .*; not taken' exec-v.err"
"$PGOPROF" record -q --event instructions:pp -o ev.raw -- true 2>ev.err; rc=$?
check "no PMU: --event instructions:pp fails naming it (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q -- '--event instructions:pp: not on this CPU or VM' ev.err && ! test -e ev.raw"
"$PGOPROF" record -q --event cycles -o ev.raw -- true 2>ev2.err; rc=$?
check "--event cycles: bad usage, names the choices (rc=$rc)" sh -c \
	"test $rc -eq 2 && grep -q 'instructions:pp' ev2.err"

# The rate asked for beside the rate used, when stack mode lowers it.
"$PGOPROF" record -F 100000 -o fast.raw -- ./hot 1 >/dev/null 2>fast.err
if grep -q 'lowered to [0-9]* Hz' fast.err; then
	used=$(sed -n 's/.*lowered to \([0-9]*\) Hz.*/\1/p' fast.err)
	check "-F lowered: META sample_freq_requested 100000, sample_freq $used" sh -c \
		"test '$(meta fast.raw sample_freq_requested)' = 100000 && test '$(meta fast.raw sample_freq)' = '$used'"
else
	skip "-F lowered: META sample_freq_requested" "sampling at 100000 Hz was cheap enough here: not lowered"
fi
check "-F kept: no sample_freq_requested" sh -c "test -z '$(meta auto.raw sample_freq_requested)'"

# The BPF program on each kind of sample (cpu-clock, instructions, ibs_op):
# BPF_PROG_TEST_RUN is not implemented for BPF_PROG_TYPE_PERF_EVENT, so it
# cannot be driven here; said, not faked.
skip "BPF program on each kind of sample by BPF_PROG_TEST_RUN" \
	"the kernel has no test_run for perf_event programs (kernel/trace/bpf_trace.c: perf_event_prog_ops is empty); every kind reaches the program as the same bpf_perf_event_data, of which it reads only regs, and fpcount.sh drives its counting through fp_count_test"
