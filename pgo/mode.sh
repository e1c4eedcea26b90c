#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# How pgo.mk records the training run: PGO_MODE auto, sample or exact ->
# sample or exact, one rule in one place (make pgo-profile, make demo and
# ci/pgo-stage.sh all go through pgo.mk).  docs/pgo.md, "PGO_MODE".
#
# mode.sh [-o FILE] MODE PROBE
#   MODE   auto, sample or exact
#   PROBE  a shell command that answers on stdout with the one word
#          `pgoprof record --mode auto` would take here: lbr (branch
#          stacks), exec (an event proportional to executions) or stack
#          (cpu-clock); exit 1 when probing is refused (pgoprof-record(1),
#          --probe).  Run only for auto.
# Prints the mode (sample or exact) on stdout, or with -o writes it to
# FILE (atomically) and the probe's per-rung lines and the decision to
# FILE.log; always one line on stderr that says which and why.
# PGO_EXACT_ENGINE (environment): the engine `pgoprof record --exact`
# takes here (--print-engine): qemu, else callgrind is assumed.
# Exit 0; 2 on bad usage, or when exact is chosen and there is no engine.
#
# Why auto never takes cpu-clock: its samples measure time, compilers read
# execution counts, and no estimator turns one into the other on every
# program (issue 28: two of five programs got slower); exact counts gave
# every program its gain, at the cost of a slower training run (qemu-user:
# 2-10x, callgrind: about 40x).
set -u
out=
if [ "${1:-}" = -o ]; then out=${2:?}; shift 2; fi
[ $# -eq 2 ] || { echo "usage: mode.sh [-o FILE] auto|sample|exact PROBE" >&2; exit 2; }
mode=$1 probe=$2
say() { echo "pgo.mk: PGO_MODE=$mode: $*" | tee -a "$log" >&2; }
engine=${PGO_EXACT_ENGINE:-callgrind}
if [ "$engine" = qemu ]; then
	exact_cost="the training run runs under qemu-user for exact counts (no root, no PMU), about 2-10x slower than natively"
else
	exact_cost="the training run runs under callgrind for exact counts (no root, no PMU), about 40x slower than natively"
fi

log=/dev/null
if [ -n "$out" ]; then
	log=$out.log
	: >"$log" || exit 2
fi

case $mode in
sample)
	say "the training run is sampled by the best event pgoprof record finds here" ;;
exact)
	say "$exact_cost" ;;
auto)
	err=$(mktemp) || exit 2
	answer=$(sh -c "$probe" 2>"$err")
	rc=$?
	[ -z "$out" ] || cat "$err" >>"$log"
	# The refusal is the probe's last line; an older pgoprof without
	# --probe says so first, then prints its usage (exit 2).
	[ $rc -eq 2 ] && why=$(head -n 1 "$err") || why=$(tail -n 1 "$err")
	rm -f "$err"
	answer=$(echo $answer)
	if [ $rc -ne 0 ]; then
		mode_now=exact
		say "exact: probing the PMU failed (exit $rc${why:+: $why}); $exact_cost"
	else
		case $answer in
		lbr)	mode_now=sample
			say "sample: this machine records branch stacks (pgoprof record --probe: lbr)" ;;
		exec)	mode_now=sample
			say "sample: this machine samples an event proportional to executions (pgoprof record --probe: exec)" ;;
		stack)	mode_now=exact
			say "exact: this machine samples only cpu-clock (pgoprof record --probe: stack), which measures time, not the execution counts compilers read; $exact_cost (PGO_MODE=sample samples anyway)" ;;
		*)	mode_now=exact
			say "exact: the probe answered '$answer', not lbr, exec or stack; $exact_cost" ;;
		esac
	fi
	mode=$mode_now ;;
*)
	echo "pgo.mk: PGO_MODE is '$mode': give auto, sample or exact" >&2
	exit 2 ;;
esac

if [ "$mode" = exact ] && [ "$engine" != qemu ] && ! command -v valgrind >/dev/null 2>&1; then
	echo "pgo.mk: exact counts need qemu-user or valgrind: install one (Debian: apt-get install qemu-user), or set PGO_MODE=sample" >&2
	exit 2
fi
if [ -z "$out" ]; then
	echo "$mode"
else
	{ echo "$mode" >"$out.tmp" && mv "$out.tmp" "$out"; } || { rm -f "$out.tmp"; exit 2; }
fi
