#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Hostile input and output around the profiles (a security review):
# /dev/zero, a FIFO of random bytes or an endless pipe as input is refused
# from its first bytes, or at the documented size limit, not read until
# memory runs out; a signal while an output is being written leaves no
# hidden temporary behind; a full disk or a full standard output is an
# error that says why.  Every run is bounded in time and memory.
. "$(dirname "$0")/../lib.sh"

LBRGEN=$TOP/build/bench/lbrgen
D=$WORK/hardening_io
mkdir -p "$D" && cd "$D" || exit 1
umount "$D/full" 2>/dev/null
rm -rf ./* ./.[!.]*
if ! make -s -C "$TOP" build/bench/lbrgen >build.log 2>&1; then
	fail "build lbrgen" "$(tail -n 3 build.log | tr '\n' ' ')"; exit 0
fi
# The inputs: a perf.data, its raw profile and an LLVM text profile.
if ! $CLANG -O2 -g -o dispatch "$TOP/tests/lbrsynth/progs/dispatch.c" >cc.log 2>&1 ||
   ! "$LBRGEN" -q -n 2000 -s 3 -o d.perf.data --raw d.raw dispatch >gen.log 2>&1 ||
   ! "$PGOPROF" convert -q d.raw --binary dispatch --format llvm-text -o d.prof >>gen.log 2>&1; then
	fail "make the test inputs" "$(tail -n 3 cc.log gen.log | tr '\n' ' ')"; exit 0
fi

# A sanitizer build (make check SANITIZE=1) maps terabytes of shadow
# memory, so ulimit -v cannot bound it: ASan's own RSS limit does, and its
# runtime must come first in LD_PRELOAD (the fsync shim below).
ASAN_LIB=$(ldd "$PGOPROF" 2>/dev/null | awk '/libasan/ { print $3 }')
bounded() { # COMMAND...: exec'd within 20 s and 2 GB
	if [ -n "$ASAN_LIB" ]; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=2000" exec timeout 20 "$@"
	fi
	ulimit -v 2000000; exec timeout 20 "$@"
}

# expect_to STDOUT NAME STATUS MESSAGE COMMAND...: COMMAND, within 20 s
# and 2 GB of address space and with its output to STDOUT, exits with
# STATUS and one line on stderr that holds MESSAGE; it leaves no output
# (out.*) nor temporary (.out.*) here or in full/.
expect_to() {
	to=$1 name=$2 want=$3 msg=$4; shift 4
	( bounded "$@" ) >"$to" 2>stderr.txt; rc=$?
	left=$(ls -A . full 2>/dev/null | grep '^\.\?out\.')
	if [ $rc -eq "$want" ] && [ "$(wc -l <stderr.txt)" -eq 1 ] &&
	   grep -qF -- "$msg" stderr.txt && [ -z "$left" ]; then
		pass "$name"
	else
		fail "$name" "status $rc (want $want), left '$left', stderr: $(head -c 300 stderr.txt | tr '\n' ' ')"
	fi
	rm -f out.* .out.* full/out.* full/.out.*
}
expect() { expect_to stdout.txt "$@"; }

# (5) Input that never ends: /dev/zero, and the FIFO "rand" that feed
# fills from /dev/urandom (stop ends the writer if pgoprof never opened it).
feed() { if [ "$f" = rand ]; then cat /dev/urandom >rand 2>/dev/null & fi; }
stop() { if [ "$f" = rand ]; then kill $! 2>/dev/null; wait $! 2>/dev/null; fi; }
for f in /dev/zero rand; do
	what="$f"
	if [ "$f" = rand ]; then
		mkfifo rand
		what="a FIFO of /dev/urandom"
	fi
	feed; expect "show of $what" 1 "$f: neither a pgoprof raw profile" "$PGOPROF" show $f; stop
	feed; expect "merge of $what" 1 "$f: neither a pgoprof raw profile" "$PGOPROF" merge -o out.raw $f; stop
	feed; expect "check of $what" 1 "$f: neither a pgoprof raw profile" "$PGOPROF" check --binary dispatch $f; stop
	feed; expect "convert of $what" 1 "$f: byte 0: not a pgoprof raw profile" "$PGOPROF" convert $f --binary dispatch -o out.prof; stop
	feed; expect "import of $what" 1 "$f: byte 0: not a perf.data file" "$PGOPROF" import -o out.raw $f; stop
	rm -f rand
done
expect "show - of /dev/zero" 1 "standard input: neither a pgoprof raw profile" sh -c "exec '$PGOPROF' show - </dev/zero"
expect "import - of /dev/zero" 1 "standard input: byte 0: not a perf.data file" sh -c "exec '$PGOPROF' import -o out.raw - </dev/zero"
# A good magic, then no end: the limit (lowered from 1024 MiB).
expect "an endless raw profile on a pipe stops at the limit" 1 \
	"standard input: not a regular file and larger than 4 MiB" sh -c \
	"(printf 'PGORAW\\0\\0'; cat /dev/zero) | PGOPROF_STREAM_MAX_MIB=4 '$PGOPROF' show -"
expect "an endless perf.data on a pipe stops at the limit" 1 \
	"standard input: not a regular file and larger than 4 MiB" sh -c \
	"(printf 'PERFILE2'; cat /dev/zero) | PGOPROF_STREAM_MAX_MIB=4 '$PGOPROF' import -o out.raw -"
expect "a bad PGOPROF_STREAM_MAX_MIB" 1 "PGOPROF_STREAM_MAX_MIB=lots: give a positive number" \
	sh -c "cat d.raw | PGOPROF_STREAM_MAX_MIB=lots '$PGOPROF' show -"
check "a raw profile on a pipe reads whole" sh -c \
	"cat d.raw | '$PGOPROF' show - >pipe.show && '$PGOPROF' show d.raw | cmp - pipe.show"
check "merge reads a FIFO once" sh -c "mkfifo fifo && { cat d.prof >fifo & } &&
	timeout 20 '$PGOPROF' merge -o m.prof fifo; rc=\$?; kill \$! 2>/dev/null; [ \$rc = 0 ] && cmp m.prof d.prof"
rm -f fifo m.prof pipe.show

# (7) A signal while the output is written.  The shim stops the process
# in the fsync of outfile_commit: the temporary exists, fully written, not
# yet renamed; the signal comes from outside, as from kill(1).  Background
# jobs of sh ignore SIGINT (and a run under nohup SIGHUP), which pgoprof
# then rightly leaves alone: the shim gives both their default action back.
cat >stopshim.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>

__attribute__((constructor)) static void sigint_default(void)
{
	signal(SIGINT, SIG_DFL);
	if (!getenv("KEEP_SIGHUP"))
		signal(SIGHUP, SIG_DFL);
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	raise(SIGSTOP);
	return real(fd);
}
EOF
$CLANG -shared -fPIC -o stopshim.so stopshim.c -ldl 2>shim.log ||
	fail "build the fsync shim" "$(tail -n 3 shim.log | tr '\n' ' ')"
state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1; }

# interrupted NAME SIGNAL STATUS OUT COMMAND...: COMMAND, stopped with its
# temporary for OUT, then sent SIGNAL and continued, exits with STATUS
# and leaves neither OUT nor the temporary (or, status 0: OUT alone).
interrupted() {
	name=$1 sig=$2 want=$3 target=$4; shift 4
	"$@" >/dev/null 2>stderr.txt & pid=$!
	i=0
	while [ $i -lt 200 ] && [ "$(state $pid)" != T ]; do
		sleep 0.05; i=$((i + 1))
	done
	stopped=$(state $pid) tmp=$(ls -A | grep -c "^\.$target\.")
	kill -$sig $pid; kill -CONT $pid; wait $pid; rc=$?
	left=$(ls -A | grep -e "^\.$target\." -e "^$target\$" | tr '\n' ' ')
	[ $want -eq 0 ] && [ "$left" = "$target " ] && left=
	if [ "$stopped" = T ] && [ "$tmp" -eq 1 ] && [ $rc -eq $want ] && [ -z "$left" ]; then
		pass "$name"
	else
		fail "$name" "stopped '$stopped', temporaries while stopped $tmp, status $rc (want $want), left '$left', stderr: $(head -c 200 stderr.txt | tr '\n' ' ')"
	fi
	rm -f "$target" ".$target".*
}
SHIM="env LD_PRELOAD=${ASAN_LIB:+$ASAN_LIB:}$D/stopshim.so"
interrupted "SIGTERM while merge writes" TERM 143 out.raw $SHIM "$PGOPROF" merge -o out.raw d.raw d.raw
interrupted "SIGHUP while convert writes" HUP 129 out.prof $SHIM "$PGOPROF" convert -q d.raw --binary dispatch -o out.prof
interrupted "SIGINT while import writes" INT 130 out.raw $SHIM "$PGOPROF" import -q -o out.raw d.perf.data
interrupted "an ignored SIGHUP stays ignored (nohup)" HUP 0 out.raw \
	sh -c "trap '' HUP; exec $SHIM KEEP_SIGHUP=1 '$PGOPROF' merge -o out.raw d.raw"

# (10) Standard output full.
expect_to /dev/full "show of a raw profile to a full stdout" 1 \
	"cannot write standard output: No space left on device" "$PGOPROF" show d.raw
expect_to /dev/full "show of a text profile to a full stdout" 1 \
	"cannot write standard output: No space left on device" "$PGOPROF" show d.prof
expect_to /dev/full "check to a full stdout" 1 \
	"cannot write standard output: No space left on device" "$PGOPROF" check --binary dispatch d.prof
expect_to /dev/full "merge -o - to a full stdout" 1 \
	"cannot write standard output: No space left on device" "$PGOPROF" merge -o - d.raw
expect_to /dev/full "--help to a full stdout" 1 \
	"cannot write standard output: No space left on device" "$PGOPROF" --help

# A full disk: a 64 KiB tmpfs, filled.
if [ "$(id -u)" != 0 ]; then
	pass "full disk: needs root to mount a tmpfs (skipped)"
elif ! mkdir -p full || ! mount -t tmpfs -o size=64k tmpfs full 2>mount.log; then
	pass "full disk: cannot mount a tmpfs: $(head -n 1 mount.log) (skipped)"
else
	trap 'umount "$D/full"' EXIT
	dd if=/dev/zero of=full/fill bs=4k 2>/dev/null
	expect "merge to a full disk says why" 1 \
		"cannot write full/out.raw: No space left on device" "$PGOPROF" merge -o full/out.raw d.raw
	expect "import to a full disk says why" 1 \
		"cannot write full/out.raw: No space left on device" "$PGOPROF" import -q -o full/out.raw d.perf.data
	expect "merge of text profiles to a full disk says why" 1 \
		"cannot write full/out.prof: No space left on device" "$PGOPROF" merge -o full/out.prof d.prof
	umount full && trap - EXIT
fi
