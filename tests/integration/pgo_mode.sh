#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgo.mk's PGO_MODE=auto, decided on each answer of the PMU probe (a stub
# in PGO_PROBE: no hardware needed), its one line of why, once per
# make pgo-profile; the estimator left to convert unless the user sets
# one; convert's warnings shown; and the note when pgoprof record lowered
# its rate.  pgoprof itself is a stub here (it logs its arguments): this
# checks pgo.mk's wiring, tests/integration/pgo_mk.sh the real loop.
. "$(dirname "$0")/../lib.sh"

# auto's exact needs an engine (pgo/mode.sh refuses exact without one;
# the stub pgoprof names none, so callgrind is assumed).
need_tool pgo_mode valgrind valgrind || exit 0
D=$WORK/pgo_mode
rm -rf "$D" && mkdir -p "$D/proj" || exit 1

# The stub pgoprof: record runs the training command and writes the raw
# file; convert warns on stderr, as convert's sample-sufficiency check
# does; show of a raw profile prints the META of a recording whose rate
# was lowered from 9999 to 2348 Hz when FAKE_LOWERED=1.
cat >"$D/pgoprof" <<'EOF'
#!/bin/sh
echo "stub $*" >>"$FAKE_LOG"
cmd=$1; shift
case $cmd in
record|convert)
	out=
	while [ $# -gt 0 ]; do
		case $1 in -o) out=$2; shift 2 ;; --) shift; break ;; *) shift ;; esac
	done
	[ $cmd = convert ] || "$@" || exit 1
	[ $cmd = record ] || echo "pgoprof convert: warning: 812 samples of the program, too few to trust" >&2
	echo "$cmd" >"$out" ;;
show)
	case $1 in
	*.raw)	[ "${FAKE_LOWERED:-0}" = 1 ] && asked=9999 || asked=2348
		printf '%s\n' '# pgoprof raw profile, format version 1' 'meta event = cpu-clock' \
			'meta sample_freq = 2348' "meta sample_freq_requested = $asked" \
			'counter samples.taken = 9800' 'object 00ff' ;;
	*)	echo "main:100:0" ;;
	esac ;;
esac
EOF
# The stub probe: says on stderr what it tried, answers $FAKE_PROBE on
# stdout; "refused" exits 1 as --probe does without privileges, "old"
# exits 2 as a pgoprof without --probe does.  Each call is counted.
cat >"$D/probe" <<'EOF'
#!/bin/sh
echo probe >>"$FAKE_PROBES"
[ "$FAKE_PROBE" = old ] || echo "pgoprof-record: branch stacks: not here" >&2
case $FAKE_PROBE in
refused) echo "pgoprof-record: cannot probe for branch records (Operation not permitted): run as root or grant CAP_PERFMON" >&2; exit 1 ;;
old) echo "pgoprof-record: unrecognized option '--probe'" >&2; echo "usage: pgoprof-record [OPTIONS] -- COMMAND" >&2; exit 2 ;;
*) echo "$FAKE_PROBE" ;;
esac
EOF
chmod +x "$D/pgoprof" "$D/probe"
cat >"$D/proj/Makefile" <<EOF
PGO_PROGRAM = prog
PGO_BUILD = cp $(command -v cp) \$(PGO_OUT)/prog
PGO_TRAIN = \$(PGO_BINARY) --version >/dev/null
PGO_COMPILER = clang
include $TOP/pgo/pgo.mk
EOF
export FAKE_LOG="$D/log" FAKE_PROBES="$D/probes"

# run NAME PROBE_ANSWER MAKE_ARGS...: make pgo-profile into $D/NAME.out
run() {
	n=$1; FAKE_PROBE=$2; export FAKE_PROBE; shift 2
	: >"$FAKE_LOG"; : >"$FAKE_PROBES"
	make -C "$D/proj" --no-print-directory PGOPROF="$D/pgoprof" PGO_PROBE="$D/probe" \
		PGO_DIR="$D/$n" "$@" >"$D/$n.out" 2>&1
	echo $? >"$D/$n.rc"
}
# decided NAME MODE: the run recorded in MODE, with its flags, and said so once.
decided() {
	n=$1 m=$2
	[ "$(cat "$D/$n.rc")" = 0 ] && [ "$(cat "$D/$n/mode")" = "$m" ] || return 1
	[ "$(grep -c '^pgo.mk: PGO_MODE=auto: ' "$D/$n.out")" = 1 ] || return 1
	[ "$(grep -c . "$FAKE_PROBES")" = 1 ] || return 1
	if [ "$m" = sample ]; then
		grep -q "^stub record -F 9999 -o $D/$n/prog.raw -- env" "$FAKE_LOG" &&
		grep -q -- '^pgo.mk: build sampled: .*-fno-omit-frame-pointer' "$D/$n.out"
	else
		grep -q "^stub record --exact -o $D/$n/prog.raw -- env" "$FAKE_LOG" &&
		grep -q -- '^pgo.mk: build sampled: .*-O2 -g -gdwarf-4 -fdebug-info-for-profiling -fpseudo-probe-for-profiling$' "$D/$n.out"
	fi
}

run lbr lbr pgo-profile
check "auto, probe says lbr: sample, once" decided lbr sample
check "auto, lbr: says why" grep -q '^pgo.mk: PGO_MODE=auto: sample: this machine records branch stacks (pgoprof record --probe: lbr)$' "$D/lbr.out"
run exec exec pgo-profile
check "auto, probe says exec: sample, once" decided exec sample
check "auto, exec: says why" grep -q '^pgo.mk: PGO_MODE=auto: sample: this machine samples an event proportional to executions' "$D/exec.out"
run stack stack pgo-profile
check "auto, probe says stack: exact, once" decided stack exact
check "auto, stack: says why and what it costs" grep -q \
	'^pgo.mk: PGO_MODE=auto: exact: this machine samples only cpu-clock (pgoprof record --probe: stack), which measures time, .* under callgrind .* about 40x slower' "$D/stack.out"
check "auto, stack: the probe's lines kept in PGO_DIR/mode.log" grep -q 'branch stacks: not here' "$D/stack/mode.log"
# Where record --exact runs under qemu-user: its cost said, and the build
# as sampled builds are (any DWARF version).
run qemu stack pgo-profile PGO_EXACT_ENGINE=qemu
check "auto, stack, the qemu engine: its cost said, no -gdwarf-4 build" sh -c \
	"grep -q '^pgo.mk: PGO_MODE=auto: exact: .* under qemu-user .* about 2-10x slower' '$D/qemu.out' &&
	 grep -q -- '^pgo.mk: build sampled: .*-O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling\$' '$D/qemu.out'"
run refused refused pgo-profile
check "auto, probe refused: exact, once" decided refused exact
check "auto, refused: says why (the probe's reason) and the cost" grep -q \
	"^pgo.mk: PGO_MODE=auto: exact: probing the PMU failed (exit 1: .*run as root or grant CAP_PERFMON); .*about 40x slower" "$D/refused.out"
run old old pgo-profile
check "auto, a pgoprof without --probe: exact, once" decided old exact
check "auto, old pgoprof: names the unknown option" grep -q \
	"^pgo.mk: PGO_MODE=auto: exact: probing the PMU failed (exit 2: pgoprof-record: unrecognized option '--probe')" "$D/old.out"
run odd 'lbr exec' pgo-profile
check "auto, an answer of another kind: exact" decided odd exact

# Once per pgo-profile: not at parse time, not for the other goals.
run goals stack pgo-profile pgo-build pgo-vars
check "pgo-profile pgo-build pgo-vars: one probe, one decision line" sh -c \
	"test \$(grep -c . '$FAKE_PROBES') = 1 && test \$(grep -c '^pgo.mk: PGO_MODE=' '$D/goals.out') = 1"
check "pgo-vars gives the mode in use" grep -q '^PGO_MODE_USED=exact$' "$D/goals.out"
run vars stack pgo-vars
check "make pgo-vars does not probe" test ! -s "$FAKE_PROBES"

# gcc's PGO build turns the unroller -fauto-profile enables back off, from
# exact counts and from samples alike (pgo.mk says why).
run gcc-exact stack pgo-vars PGO_CC=gcc PGO_COMPILER=gcc PGO_MODE=exact
run gcc-sample stack pgo-vars PGO_CC=gcc PGO_COMPILER=gcc PGO_MODE=sample
check "gcc, exact and sample: -fauto-profile, -fno-unroll-loops, no tracer without profile" sh -c \
	"grep -q '^PGO_USE_CFLAGS=-fauto-profile=[^ ]* -fno-unroll-loops --param=tracer-dynamic-coverage=0\$' '$D/gcc-exact.out' &&
	 grep -q '^PGO_USE_CFLAGS=-fauto-profile=[^ ]* -fno-unroll-loops --param=tracer-dynamic-coverage=0\$' '$D/gcc-sample.out'"

# clang's PGO build reads the profile in every mode; from exact counts it
# is probe-based (PGO_PROBES=1, the default) and needs the probes too.
run clang-exact stack pgo-vars PGO_CC=clang-16 PGO_COMPILER=clang PGO_MODE=exact
run clang-exact0 stack pgo-vars PGO_CC=clang-16 PGO_COMPILER=clang PGO_MODE=exact PGO_PROBES=0
run clang-sample stack pgo-vars PGO_CC=clang-16 PGO_COMPILER=clang PGO_MODE=sample
U='^PGO_USE_CFLAGS=-fprofile-sample-use=[^ ]* -fsample-profile-use-profi'
check "clang, exact: -fprofile-sample-use with profi and the probes' flags" \
	grep -q "$U -fpseudo-probe-for-profiling -mllvm -sample-profile-prioritized-inline=0 -mllvm -sample-profile-inline-size=0 -mllvm -ext-tsp-apply-without-profile=false\$" "$D/clang-exact.out"
check "clang, exact with PGO_PROBES=0, and sample: -fprofile-sample-use with profi, no probes" sh -c \
	"grep -q '$U\$' '$D/clang-exact0.out' && grep -q '$U\$' '$D/clang-sample.out'"

# PGO_MODE=sample and exact: no probe, as asked.
run forced-sample stack pgo-profile PGO_MODE=sample
check "PGO_MODE=sample: cpu-clock samples even where auto would not, no probe" sh -c \
	"test ! -s '$FAKE_PROBES' && grep -q '^stub record -F 9999 ' '$FAKE_LOG' &&
	 grep -q '^pgo.mk: PGO_MODE=sample: ' '$D/forced-sample.out'"
run forced-exact lbr pgo-profile PGO_MODE=exact
check "PGO_MODE=exact: record --exact, no probe" sh -c \
	"test ! -s '$FAKE_PROBES' && grep -q '^stub record --exact ' '$FAKE_LOG'"
run badmode lbr pgo-profile PGO_MODE=fast
check "PGO_MODE of another value is refused" grep -q "PGO_MODE is 'fast': give auto, sample or exact" "$D/badmode.out"

# make -n prints the commands of the mode the probe chose.
FAKE_PROBE=lbr make -n -C "$D/proj" --no-print-directory PGOPROF="$D/pgoprof" PGO_PROBE="$D/probe" \
	PGO_DIR="$D/dry" pgo-profile >"$D/dry.out" 2>&1
check "make -n pgo-profile: the probe's mode (sample: record -F)" grep -q "pgoprof record -F 9999 -o $D/dry/prog.raw" "$D/dry.out"

# The estimator: convert's own choice unless the user names one.
run est lbr pgo-profile
check "clang: no --estimator by default" sh -c \
	"grep -q '^stub convert .* --format llvm-extbinary --call-targets calls -o ' '$FAKE_LOG' && ! grep -q -- --estimator '$FAKE_LOG'"
run est-user lbr pgo-profile PGO_ESTIMATOR_clang=sum
check "clang: PGO_ESTIMATOR_clang=sum wins" grep -q '^stub convert .* --format llvm-extbinary --estimator sum --call-targets calls -o ' "$FAKE_LOG"
run est-gcc lbr pgo-profile PGO_COMPILER=gcc PGO_GCC_VERSION=12
check "gcc: no --estimator by default" sh -c \
	"grep -q '^stub convert .* --format afdo --call-targets stack --gcc-version 12 -o ' '$FAKE_LOG' && ! grep -q -- --estimator '$FAKE_LOG'"
run est-gcc-user lbr pgo-profile PGO_COMPILER=gcc PGO_GCC_VERSION=12 PGO_ESTIMATOR_gcc=max
check "gcc: PGO_ESTIMATOR_gcc=max wins" grep -q '^stub convert .* --format afdo --estimator max --call-targets stack --gcc-version 12 -o ' "$FAKE_LOG"

# What convert says, and a rate that record lowered.
check "convert's warnings reach the output" grep -q '^pgoprof convert: warning: 812 samples' "$D/est.out"
check "no rate note when record sampled at the rate asked" sh -c "! grep -q 'Hz asked' '$D/est.out'"
export FAKE_LOWERED=1
run lowered lbr pgo-profile
unset FAKE_LOWERED
check "the rate record lowered: one line, last" sh -c "tail -n 1 '$D/lowered.out' | grep -q \
	'^pgo.mk: pgoprof record sampled at 2348 Hz, not the 9999 Hz asked (PGO_FREQ): .* 9800 samples in all'"

# ci/pgo-stage.sh keeps the decision with the artifacts.  No gate: two
# timed runs of a 3 ms program decide nothing on a loaded machine.
export FAKE_PROBE=stack
: >"$FAKE_PROBES"
sh "$TOP/ci/pgo-stage.sh" -C "$D/proj" -o "$D/art" PGOPROF="$D/pgoprof" PGO_PROBE="$D/probe" \
	PGO_DIR="$D/stage" PGO_RUNS=2 PGO_WARMUP=0 PGO_PROXY_CMD= PGO_GATE=none >"$D/stage.out" 2>&1
rc=$?
check "ci/pgo-stage.sh with auto: exits 0 (rc=$rc), one probe" sh -c "test $rc = 0 && test \$(grep -c . '$FAKE_PROBES') = 1"
check "ci/pgo-stage.sh: mode.log among the artifacts, with the decision" grep -q \
	'^pgo.mk: PGO_MODE=auto: exact: this machine samples only cpu-clock' "$D/art/mode.log"
