#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof-record against a hostile or careless user (docs/threat-model.md):
# the output is created with the invoking user's rights, links in the
# output's directories are not followed as root, a bad -o is found before
# the training run, a full disk keeps the samples, SIGHUP ends a recording
# like SIGINT, a killed recorder takes its command with it, the rate is
# kept to what the machine sustains, and -p says when it cannot work.
. "$(dirname "$0")/../lib.sh"

need_root hardening || exit 0
build_workloads || { fail build_workloads; exit 0; }
cd "$WORK" || exit 1
unset SUDO_UID SUDO_GID SUDO_USER
REC=$TOP/pgoprof-record
NOBODY=65534
D=$WORK/hard
rm -rf "$D"; mkdir -p "$D"
as_sudo() { SUDO_UID=$NOBODY SUDO_GID=$NOBODY "$@"; }
# rec NAME ARGS...: record (stack mode, quiet) the command "touch RAN.NAME";
# its stderr in NAME.err, its status in $rc.
rec() {
	n=$1; shift
	"$@" -q -m stack -- touch "$D/ran.$n" 2>"$D/$n.err"; rc=$?
}

# --- 1. the output is created with the invoking user's rights --------------
# An /etc-like directory: root's, 0755, with a root-owned file in it.
mkdir -p "$D/etc" "$D/home"; chmod 755 "$D/etc"; chown $NOBODY:$NOBODY "$D/home"
echo secret >"$D/etc/victim"; chmod 644 "$D/etc/victim"
rec victim as_sudo "$REC" -o "$D/etc/victim"
check "sudo, -o a root-owned file in a root directory: refused before the command runs (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.victim' && grep -q 'cannot create files' '$D/victim.err'"
check "sudo: the root-owned file is untouched (root's, 644, its content)" sh -c \
	"test \"\$(stat -c '%u:%g %a' '$D/etc/victim')\" = '0:0 644' && test \"\$(cat '$D/etc/victim')\" = secret"
rec newetc as_sudo "$REC" -o "$D/etc/new.raw"
check "sudo, -o a new file in a root directory: refused, nothing created (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.newetc' && test -z \"\$(ls -A '$D/etc' | grep -v '^victim\$')\""
as_sudo "$REC" -q -m stack -o "$D/home/p.raw" -- ./hot 1 >/dev/null 2>"$D/home.err"; rc=$?
check "sudo, -o in the user's own directory: written, the user's, 644 (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c '%u:%g %a' '$D/home/p.raw')\" = '$NOBODY:$NOBODY 644' &&
	 '$PGOPROF' show '$D/home/p.raw' >/dev/null"
mkdir -m 1777 "$D/sticky"; echo root >"$D/sticky/rootfile"
rec sticky as_sudo "$REC" -o "$D/sticky/rootfile"
check "sudo, -o root's file in a sticky directory (like /tmp): refused (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.sticky' && grep -q 'sticky' '$D/sticky.err' &&
	 test \"\$(cat '$D/sticky/rootfile')\" = root"
"$REC" -q -m stack -o "$D/etc/root.raw" -- true; rc=$?
check "plain root, -o in a root directory: written, root's (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c '%u:%g %a' '$D/etc/root.raw')\" = '0:0 644'"

# --- 2. no symbolic link in the output's directories, as root --------------
ln -s "$D/etc" "$D/dlink"
rec dlink "$REC" -o "$D/dlink/x.raw"
check "root, -o through a planted directory link: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.dlink' && test ! -e '$D/etc/x.raw' &&
	 grep -q 'dlink is a symbolic link' '$D/dlink.err'"
ln -s "$D/home" "$D/ulink"
rec ulink as_sudo "$REC" -o "$D/ulink/y.raw"
check "sudo, -o through a link to the user's own directory: followed (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c %u '$D/home/y.raw')\" = $NOBODY"

# --- 6. a bad -o is found before the training run --------------------------
rec empty "$REC" -o ""
check "-o '': refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.empty' && grep -q 'give a file name' '$D/empty.err'"
rec nodir "$REC" -o "$D/no/such/dir/p.raw"
check "-o in a missing directory: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.nodir' && grep -q 'No such file or directory' '$D/nodir.err'"
rec isdir "$REC" -o "$D/home"
check "-o a directory: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.isdir' && grep -q 'is a directory' '$D/isdir.err'"
mkdir -p "$D/tmpd"
TMPDIR=$D/tmpd "$REC" -q -m stack -o /dev/full -- ./hot 1 >/dev/null 2>"$D/full.err"; rc=$?
saved=$(ls "$D"/tmpd/pgoprof-full.* 2>/dev/null | head -n 1)
check "a full disk at the end: exit 1, the profile saved under \$TMPDIR and named (rc=$rc, $saved)" sh -c \
	"test $rc -eq 1 && test -n '$saved' && grep -q 'No space left on device' '$D/full.err' &&
	 grep -q \"saved to $saved\" '$D/full.err' && '$PGOPROF' show '$saved' | grep -q '^counter samples.taken'"

# --- 4. SIGHUP, and a recorder killed outright -----------------------------
# wait_for FILE PATTERN: up to 10 s until FILE holds PATTERN.
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "$2" "$1" 2>/dev/null
}
gone() { # PID: up to 10 s until it no longer exists
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	! kill -0 "$1" 2>/dev/null
}
rm -f "$D/hup.pid"
"$REC" -m stack -o "$D/hup.raw" -- sh -c "echo \$\$ >'$D/hup.pid'; exec sleep 60" 2>"$D/hup.err" & rpid=$!
wait_recording $rpid && wait_for "$D/hup.pid" .
kill -HUP $rpid
gone $rpid; wait $rpid; rc=$?
check "SIGHUP: the recorder stops and writes the profile (rc=$rc)" sh -c \
	"'$PGOPROF' show '$D/hup.raw' | grep -q '^meta target'"
check "SIGHUP: the command is stopped too" gone "$(cat "$D/hup.pid")"
rm -f "$D/kill.pid"
"$REC" -m stack -o "$D/kill.raw" -- sh -c "echo \$\$ >'$D/kill.pid'; exec sleep 60" 2>"$D/kill.err" & rpid=$!
wait_recording $rpid && wait_for "$D/kill.pid" .
kill -KILL $rpid; wait $rpid 2>/dev/null
check "SIGKILL of the recorder: its command does not run on (PR_SET_PDEATHSIG)" gone "$(cat "$D/kill.pid")"
check "SIGKILL of the recorder: no file, no temporary left" sh -c \
	"sleep 0.2; test -z \"\$(ls -A '$D' | grep 'kill.raw')\""

# --- 3. the rate the machine sustains --------------------------------------
"$REC" -q -F 999 -c 100000 -o "$D/fc.raw" -- true 2>"$D/fc.err"; rc=$?
check "-F with -c: refused (rc=$rc)" sh -c "test $rc -eq 2 && grep -q 'not both' '$D/fc.err'"
"$REC" -q -m stack -c 1 -o "$D/c1.raw" -- true 2>"$D/c1.err"; rc=$?
check "-c 1 in stack mode: refused, the floor named (rc=$rc)" sh -c "test $rc -eq 2 && grep -q 'at least 10000' '$D/c1.err'"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$REC" -q -F $((max + 1)) -o "$D/fmax.raw" -- true 2>"$D/fmax.err"; rc=$?
check "-F above kernel.perf_event_max_sample_rate ($max): refused (rc=$rc)" test $rc -eq 2
# The highest rate accepted, on a program of about 2 s: it must end within
# twice the program's own time (it froze this VM for minutes before).  The
# program's own time is taken just before and just after, and the slower
# of the two counts: a machine that other work slows slows both.
# The bound is the issue's 2x for the build users run (make check); the
# sanitizer build (make check SANITIZE=1) unwinds DWARF stacks 2-3 times
# slower in user space, where the rate limit only estimates the cost (half
# the share), so there it is 3x: still no stall.
secs() { /usr/bin/time -f %e -o "$D/t" "$@" >/dev/null; tail -n 1 "$D/t"; }
bound=2
ldd "$REC" 2>/dev/null | grep -q libasan && bound=3
# A machine busy with other work can stretch one run more than the other:
# a run over the bound is measured again, up to three times in all (a
# rate that stalls the machine is over it every time).
for cg in fp dwarf; do
	for try in 1 2 3; do
		own1=$(secs ./hot 3)
		took=$(secs timeout -s KILL 120 "$REC" -m stack --call-graph $cg -F "$max" \
			-o "$D/fast-$cg.raw" -- ./hot 3 2>"$D/fast-$cg.err")
		own2=$(secs ./hot 3)
		own=$(echo "$own1 $own2" | awk '{ print ($1 > $2 ? $1 : $2) }')
		awk -v a="$took" -v b="$own" -v k=$bound 'BEGIN { exit !(a > 0 && a <= k * b) }' && break
	done
	low=$(sed -n 's/.*lowered to \([0-9]*\) Hz.*/\1/p' "$D/fast-$cg.err")
	freq=$("$PGOPROF" show "$D/fast-$cg.raw" | awk '$1 == "meta" && $2 == "sample_freq" { print $4 }')
	check "--call-graph $cg -F $max: ends within ${bound}x the program's own time (${took}s against ${own1}s and ${own2}s; try $try)" \
		awk -v a="$took" -v b="$own" -v k=$bound 'BEGIN { exit !(a > 0 && a <= k * b) }'
	check "--call-graph $cg -F $max: the profile's sample_freq is the rate used (${low:-not lowered}, meta $freq)" \
		test "$freq" = "${low:-$max}"
done

# --- 9. -p that cannot give samples ----------------------------------------
"$REC" -q -p 2 -d 0.2 -o "$D/kthread.raw" 2>"$D/kthread.err"; rc=$?
check "-p of a kernel thread: refused (rc=$rc)" sh -c "test $rc -eq 1 && grep -q 'kernel thread' '$D/kthread.err'"
sh -c 'sleep 0.1 & exec sleep 30' & zparent=$!
i=0; zpid=
while [ -z "$zpid" ] && [ $i -lt 50 ]; do
	zpid=$(ps -o pid=,stat= --ppid $zparent | awk '$2 ~ /^Z/ { print $1 }'); sleep 0.1; i=$((i + 1))
done
"$REC" -q -p "${zpid:-0}" -d 0.2 -o "$D/zombie.raw" 2>"$D/zombie.err"; rc=$?
check "-p of a zombie: refused (rc=$rc)" sh -c "test $rc -eq 1 && grep -q 'zombie' '$D/zombie.err'"
kill $zparent 2>/dev/null; wait $zparent 2>/dev/null
# A shell that waits while its child works: no samples of its own.
sh -c "sh -c 'i=0; while :; do i=\$((i + 1)); done' & echo \$! >'$D/spin.pid'; wait" & shpid=$!
wait_for "$D/spin.pid" .
"$REC" -q -m stack -p $shpid -d 1 -o "$D/shell.raw" 2>"$D/shell.err"; rc=$?
check "-p of a waiting shell: a warning offers --children (rc=$rc)" sh -c \
	"test $rc -eq 0 && grep -q 'gave no samples.*--children' '$D/shell.err'"
# The child spins for the whole second: ~1000 samples at 999 Hz, none of
# them can miss it on a machine that runs it.
"$REC" -q -m stack --children -p $shpid -d 1 -o "$D/children.raw" 2>"$D/children.err"; rc=$?
check "-p --children: the working child is sampled, no warning (rc=$rc)" sh -c \
	"test $rc -eq 0 && ! grep -q 'no samples' '$D/children.err' && '$PGOPROF' show '$D/children.raw' | grep -q '^object'"
kill "$(cat "$D/spin.pid")" $shpid 2>/dev/null; wait $shpid 2>/dev/null
"$REC" -q --children -o "$D/nop.raw" -- true 2>/dev/null; rc=$?
check "--children without -p: refused (rc=$rc)" test $rc -eq 2
if command -v capsh >/dev/null; then
	capsh --caps="cap_bpf,cap_perfmon+eip cap_setuid,cap_setgid,cap_setpcap+ep" --keep=1 \
		--user=nobody --addamb=cap_bpf,cap_perfmon -- -c \
		"'$REC' -q -m stack -p 1 -d 0.2 -o /tmp/pgoprof-p1.raw" 2>"$D/p1.err"; rc=$?
	check "-p 1 as another user: says permission denied, not 'no such process' (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'Permission denied' '$D/p1.err' && ! grep -q 'no such process' '$D/p1.err'"
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$REC" -m stack -o /tmp/pgoprof-nopriv.raw -- true 2>"$D/nopriv.err"
	check "without privileges: pgoprof-record's own message, no libbpf lines" sh -c \
		"grep -q 'CAP_BPF' '$D/nopriv.err' && ! grep -q 'libbpf' '$D/nopriv.err'"
fi
rm -f /tmp/pgoprof-p1.raw /tmp/pgoprof-nopriv.raw

# --- 10. messages -----------------------------------------------------------
"$REC" -q -o "$D/quiet.raw" -- ./hot 1 >/dev/null 2>"$D/quiet.err"; rc=$?
check "-q: nothing on stderr, not even the mode line (rc=$rc)" sh -c "test $rc -eq 0 && test ! -s '$D/quiet.err'"
"$REC" -q -m stack --call-graph dwarf,7 -o "$D/d7.raw" -- true 2>"$D/d7.err"; rc=$?
check "--call-graph dwarf,7: refused, not rounded (rc=$rc)" sh -c "test $rc -eq 2 && grep -q 'multiple of 8' '$D/d7.err'"
check "--help lists --ring-size, --max-stacks and --children" sh -c \
	"'$REC' --help | grep -q -- --ring-size && '$REC' --help | grep -q -- --max-stacks && '$REC' --help | grep -q -- --children"
check "--version: the version pgoprof says, status 0" sh -c \
	"v=\$('$REC' --version) && test \"\$v\" = \"pgoprof-record \$('$TOP/pgoprof' --version | cut -d' ' -f2)\""
