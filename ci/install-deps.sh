#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what a fresh Debian 12 machine lacks to build and test pgoprof.
# Idempotent: asks apt only for packages that are missing.
set -eu

PKGS="make gcc binutils pkg-config libbpf-dev bpftool libelf-dev libdw-dev
libcapstone-dev zlib1g-dev clang clang-16 llvm-16 libclang-rt-16-dev lld
linux-perf dpkg-dev tcl valgrind libcap2-bin time autofdo libiberty-dev
chromium fonts-dejavu-core libprotobuf-c-dev protobuf-c-compiler golang-go"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
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
