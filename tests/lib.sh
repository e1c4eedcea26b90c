# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the integration tests (sourced).  Each check prints one line,
# "PASS name" or "FAIL name: why", which tests/run.sh counts.
set -u
# Under "sudo make check", pgoprof-record would act for the sudo user (and
# refuse -p of root's test processes): the tests run as plain root.
unset SUDO_UID SUDO_GID SUDO_USER
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/tests/out
WORK=$OUT/work
PGOPROF=$TOP/pgoprof
# The object tree of make check (tests/run.sh says which): the test tools
# it built (flamegen, lbrsynth).
BUILD=${BUILD:-$TOP/build}
CLANG=${CLANG:-clang-16}
PROFDATA=${PROFDATA:-llvm-profdata-16}
# The flags a sampled binary needs: line discriminators, and frame
# pointers everywhere (also in leaf functions) for the stack walk.
PROF_CFLAGS="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
mkdir -p "$WORK"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
# skip NAME WHY: what cannot run here (no root, a tool missing) is neither
# passed nor failed; tests/run.sh counts it in its last line.
skip() { echo "SKIP $1${2:+: $2}"; }
# need_tool NAME COMMAND PACKAGE: skips NAME (status 1) when COMMAND is
# not installed, naming the Debian package that has it.
need_tool() {
	command -v "$2" >/dev/null 2>&1 && return 0
	skip "$1" "$2 is not installed (Debian: $3; 'make deps' installs it)"
	return 1
}

# need_expsample NAME: XS is build/bench/expsample (execution samples
# drawn from exact counts); skips NAME (status 1) when it is not built.
need_expsample() {
	XS=$BUILD/bench/expsample
	[ -x "$XS" ] && return 0
	skip "$1" "$XS not built (make unit-tests builds it)"
	return 1
}

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	name=$1; shift
	if "$@" >"$OUT/last.log" 2>&1; then pass "$name"
	else fail "$name" "$(tail -n 3 "$OUT/last.log" | tr '\n' ' ')"; fi
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		skip "$1" "needs root for BPF (CI runs as root; run 'sudo make check')"
		return 1
	fi
}

# Build the test workloads once: a PIE with an inlined function and a call
# into a shared library, and a program that spins in libc.
build_workloads() {
	[ -x "$WORK/hot" ] && [ "$WORK/hot" -nt "$TOP/tests/workloads/hot.c" ] && return 0
	$CLANG $PROF_CFLAGS -fPIC -shared -o "$WORK/libhot.so" "$TOP/tests/workloads/libhot.c" &&
	$CLANG $PROF_CFLAGS -fPIE -pie -o "$WORK/hot" "$TOP/tests/workloads/hot.c" \
		-L"$WORK" -lhot -Wl,-rpath,"$WORK" &&
	$CLANG $PROF_CFLAGS -fPIE -pie -o "$WORK/libcspin" "$TOP/tests/workloads/libcspin.c"
}

# Total samples of function $2 (column 0 "name:TOTAL:HEAD") in text profile $1.
fn_total() { awk -F: -v f="$2" '/^[^ ]/ && $1 == f { print $2 }' "$1"; }

# Waiting for a state instead of sleeping a guessed time: under load (CI
# runs make check beside other jobs; a developer runs make -j2 beside it)
# a process may take seconds to get where a sleep expected it to be.
# until_true SECONDS COMMAND...: runs COMMAND every 0.1 s until it
# succeeds; fails after SECONDS.
until_true() {
	_ut_n=$(($1 * 10)); shift
	while ! "$@"; do
		_ut_n=$((_ut_n - 1))
		[ "$_ut_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# The effective capabilities of process $1, as in /proc/PID/status.
cap_eff() { awk '$1 == "CapEff:" { print $2 }' "/proc/$1/status" 2>/dev/null; }
_dropped_or_gone() { # PID CAPEFF: PID's CapEff is not CAPEFF, or PID ended
	_e=$(cap_eff "$1")
	[ -z "$_e" ] || [ "$_e" != "$2" ] ||
		grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}
# wait_recording PID: until pgoprof-record PID (started by us, as root)
# records.  Its last step of setting up (collector/main.c, main: the BPF
# programs loaded, the events open and attached; only then is the command
# started) drops its capabilities (collector/privdrop.c), so its CapEff
# then differs from ours.  Fails if PID ends first, or after 60 s.
wait_recording() {
	until_true 60 _dropped_or_gone "$1" "$(cap_eff $$)" &&
		[ -n "$(cap_eff "$1")" ] && [ "$(cap_eff "$1")" != "$(cap_eff $$)" ]
}

# wait_exe PID PATH: until process PID runs PATH (the exec after a fork
# is done).  Fails after 60 s.
_runs() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]; }
wait_exe() { until_true 60 _runs "$1" "$(readlink -f "$2")"; }

# cpu_ms COMMAND...: runs COMMAND (output discarded) and prints the CPU
# time, user and system, in milliseconds, that it and its children took
# (the shell's times: a subshell's children start at zero).
cpu_ms() {
	( "$@" >/dev/null 2>&1; times ) | awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }'
}
