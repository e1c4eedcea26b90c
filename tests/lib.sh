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
CLANG=${CLANG:-clang-16}
PROFDATA=${PROFDATA:-llvm-profdata-16}
# The flags a sampled binary needs: line discriminators, and frame
# pointers everywhere (also in leaf functions) for the stack walk.
PROF_CFLAGS="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
mkdir -p "$WORK"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	name=$1; shift
	if "$@" >"$OUT/last.log" 2>&1; then pass "$name"
	else fail "$name" "$(tail -n 3 "$OUT/last.log" | tr '\n' ' ')"; fi
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		fail "$1" "needs root for BPF (CI runs as root; run 'sudo make check')"
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
