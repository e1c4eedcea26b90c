#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a fresh Debian 12 machine lacks to build and test pgoprof.
#   sh ci/install-deps.sh          install the missing packages (make deps;
#                                  root, or sudo); idempotent
#   sh ci/install-deps.sh --check  only say what is missing (make check):
#                                  exit 1 when the build cannot work, 0
#                                  when only tools of some tests are
#                                  missing (those tests say SKIP)
set -eu

# To build pgoprof: compilers, the libraries, bpftool for the skeleton,
# protoc-c for pprof's profile.proto.
BUILD_PKGS="make gcc binutils pkg-config libbpf-dev bpftool libelf-dev libdw-dev
libcapstone-dev zlib1g-dev clang clang-16 libiberty-dev libprotobuf-c-dev
protobuf-c-compiler"
# To test it: the consumers (llvm-16, gcc, autofdo; the newer clang-19
# and clang-22 with their llvm-profdata, from bookworm and
# bookworm-security, docs/pgo.md), the peers (perf, valgrind), record
# --exact's engines (qemu-user, valgrind) and the tools some tests drive
# (chromium, go, tcl, lld).
TEST_PKGS="llvm-16 libclang-rt-16-dev clang-19 llvm-19 clang-22 llvm-22 lld
linux-perf dpkg-dev tcl valgrind qemu-user libcap2-bin time autofdo chromium
fonts-dejavu-core golang-go"

missing_of() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			printf ' %s' "$p"
	done
}

# shellcheck disable=SC2086
build_missing=$(missing_of $BUILD_PKGS)
# shellcheck disable=SC2086
test_missing=$(missing_of $TEST_PKGS)
missing="$build_missing$test_missing"

if [ "${1:-}" = --check ]; then
	if [ -n "$build_missing" ]; then
		echo "cannot build: missing Debian packages:$build_missing; run 'make deps' (as root) first" >&2
		exit 1
	fi
	[ -n "$test_missing" ] &&
		echo "missing Debian packages:$test_missing; the tests that need them say SKIP ('make deps' installs them)" >&2
	exit 0
fi
[ $# -eq 0 ] || { echo "usage: sh ci/install-deps.sh [--check]" >&2; exit 2; }
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null; then SUDO=sudo
	else
		echo "install-deps: missing:$missing; run 'make deps' as root" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "install-deps: installing$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
