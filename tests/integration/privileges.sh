#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Privileges (docs/threat-model.md): record works with CAP_BPF +
# CAP_PERFMON alone; it drops every capability once set up; it refuses to
# write through a symbolic link; run through sudo (SUDO_UID/SUDO_GID, set
# here by hand since sudo may be missing) it gives the profile to the
# invoking user and takes -p only for that user's processes.
. "$(dirname "$0")/../lib.sh"

need_root privileges || exit 0
build_workloads || { fail build_workloads; exit 0; }
cd "$WORK" || exit 1
# The tests below that run as plain root must not inherit a real sudo's.
unset SUDO_UID SUDO_GID SUDO_USER
REC=$TOP/pgoprof-record
NOBODY=65534
counter() { "$PGOPROF" show "$1" | awk -v k="$2" '$1 == "counter" && $2 == k { print $4 }'; }
# Capability masks of /proc/PID/status, as numbers.
capmask() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# --- CAP_BPF + CAP_PERFMON alone, as user nobody --------------------------
# capsh: the two capabilities become ambient, so that pgoprof-record (no
# file capabilities) gets them in its permitted and effective sets; no
# CAP_SYS_ADMIN, CAP_SYS_RESOURCE (memlock: the kernel charges BPF memory
# to the cgroup since 5.11) or CAP_DAC_READ_SEARCH.
D=$WORK/privs
rm -rf "$D"; mkdir -p "$D"; chmod 0777 "$D"
# caps_as CAPS CMD: run sh -c CMD as nobody with exactly CAPS (comma list).
caps_as() {
	capsh --caps="$1+eip cap_setuid,cap_setgid,cap_setpcap+ep" --keep=1 \
		--user=nobody --addamb="$1" -- -c "$2"
}
if ! command -v capsh >/dev/null; then
	fail "capsh (Debian package libcap2-bin) is not installed"
else
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	unpriv=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)
	caps_as cap_bpf,cap_perfmon "grep '^Cap[EP]' /proc/self/status" >"$D/caps.txt"
	check "capsh: nobody with exactly CAP_BPF + CAP_PERFMON (0xc000000000)" \
		sh -c "grep -q '^CapEff:.*000000c000000000' '$D/caps.txt' && grep -q '^CapPrm:.*000000c000000000' '$D/caps.txt'"
	for cg in fp auto; do
		caps_as cap_bpf,cap_perfmon "'$REC' --call-graph $cg -o '$D/caps-$cg.raw' -- ./hot 1" \
			>/dev/null 2>"$D/caps-$cg.err"; rc=$?
		check "CAP_BPF + CAP_PERFMON only, --call-graph $cg (paranoid $paranoid, unprivileged_bpf_disabled $unpriv): recorded (rc=$rc)" \
			test "$rc" -eq 0
		check "CAP_BPF + CAP_PERFMON only, $cg: hot_loop in the profile" sh -c \
			"'$PGOPROF' convert -q '$D/caps-$cg.raw' --binary hot --format llvm-text -o - | grep -q '^hot_loop:'"
		check "CAP_BPF + CAP_PERFMON only, $cg: the file is nobody's, mode 644" \
			test "$(stat -c '%u %a' "$D/caps-$cg.raw")" = "$NOBODY 644"
	done
	caps_as cap_perfmon "'$REC' -m stack -o '$D/nobpf.raw' -- true" >/dev/null 2>"$D/nobpf.err"; rc=$?
	check "without CAP_BPF: refused, the message names CAP_BPF (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'CAP_BPF' '$D/nobpf.err' && test ! -e '$D/nobpf.raw'"
	caps_as cap_bpf "'$REC' -m stack -o '$D/noperfmon.raw' -- true" >/dev/null 2>"$D/noperfmon.err"; rc=$?
	check "without CAP_PERFMON: refused (rc=$rc)" sh -c \
		"test $rc -eq 1 && grep -q 'CAP_PERFMON' '$D/noperfmon.err' && test ! -e '$D/noperfmon.raw'"
	# SUDO_UID means nothing when the real user is not root.
	caps_as cap_bpf,cap_perfmon "SUDO_UID=4242 SUDO_GID=4242 '$REC' -q -m stack -o '$D/fakesudo.raw' -- true" \
		>/dev/null 2>&1
	check "SUDO_UID ignored when the real user is not root" \
		test "$(stat -c '%u' "$D/fakesudo.raw" 2>/dev/null)" = "$NOBODY"
fi

# --- capabilities dropped once set up --------------------------------------
# The recorder's own status, while it records: only CAP_DAC_READ_SEARCH
# (bit 2) stays, through sudo too (the writer child has the user's rights);
# no_new_privs.
status_during() { # OUT ENV...: record a sleep; copy its status once it records
	out=$1; shift
	env "$@" "$REC" -q -m stack -o "$D/drop.raw" -- sleep 60 2>/dev/null & rpid=$!
	wait_recording $rpid
	cp "/proc/$rpid/status" "$out"
	kill -INT $rpid; wait $rpid
}
status_during "$D/drop-root.txt"
check "as root: CapEff = CapPrm = CapBnd = CAP_DAC_READ_SEARCH, no inheritable/ambient" sh -c \
	"grep -Eq '^CapEff:.*0000000000000004$' '$D/drop-root.txt' &&
	 grep -Eq '^CapPrm:.*0000000000000004$' '$D/drop-root.txt' &&
	 grep -Eq '^CapBnd:.*0000000000000004$' '$D/drop-root.txt' &&
	 grep -Eq '^CapInh:.*0000000000000000$' '$D/drop-root.txt' &&
	 grep -Eq '^CapAmb:.*0000000000000000$' '$D/drop-root.txt'"
check "as root: no_new_privs set" grep -Eq '^NoNewPrivs:[[:space:]]*1$' "$D/drop-root.txt"
status_during "$D/drop-sudo.txt" SUDO_UID=$NOBODY SUDO_GID=$NOBODY
check "through sudo: CAP_DAC_READ_SEARCH only, no CAP_CHOWN (0x4)" sh -c \
	"grep -Eq '^CapEff:.*0000000000000004$' '$D/drop-sudo.txt' &&
	 grep -Eq '^CapBnd:.*0000000000000004$' '$D/drop-sudo.txt'"

# --- symbolic links ---------------------------------------------------------
echo precious >"$D/victim"
ln -sf victim "$D/link.raw"
"$REC" -q -m stack -o "$D/link.raw" -- touch "$D/ran" 2>"$D/link.err"; rc=$?
check "record -o SYMLINK: refused before the command runs (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'symbolic link' '$D/link.err' && test ! -e '$D/ran'"
check "record -o SYMLINK: the link and its target untouched" sh -c \
	"test -L '$D/link.raw' && test \"\$(cat '$D/victim')\" = precious"
# A link that appears while recording (the check at the end, outfile_open).
"$REC" -q -m stack -o "$D/late.raw" -- sh -c "ln -s victim '$D/late.raw'; sleep 0.2" 2>"$D/late.err"; rc=$?
check "record -o FILE that became a symlink meanwhile: refused (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'symbolic link' '$D/late.err' && test \"\$(cat '$D/victim')\" = precious"

# --- through sudo: the output goes to the invoking user --------------------
rm -f "$D/sudo.raw"
SUDO_UID=$NOBODY SUDO_GID=$NOBODY "$REC" -q -m stack -o "$D/sudo.raw" -- ./hot 1 >/dev/null 2>"$D/sudo.err"; rc=$?
check "SUDO_UID/SUDO_GID: recorded (rc=$rc)" test "$rc" -eq 0
check "SUDO_UID/SUDO_GID: output owned by $NOBODY:$NOBODY, mode 644 ($(stat -c '%u:%g %a' "$D/sudo.raw" 2>&1))" \
	test "$(stat -c '%u:%g %a' "$D/sudo.raw")" = "$NOBODY:$NOBODY 644"
taken=$(counter "$D/sudo.raw" samples.taken)
check "SUDO_UID/SUDO_GID: the profile is whole ($taken samples)" test "${taken:-0}" -gt 0
"$REC" -q -m stack -o "$D/root.raw" -- true
check "plain root: output owned by root, mode 644" test "$(stat -c '%u:%g %a' "$D/root.raw")" = "0:0 644"
SUDO_UID=$NOBODY SUDO_GID=$NOBODY "$REC" -q -m stack -o /dev/null -- true
check "SUDO_UID: /dev/null written in place, still root's" test "$(stat -c '%u %F' /dev/null)" = "0 character special file"
SUDO_UID=x SUDO_GID=$NOBODY "$REC" -q -m stack -o "$D/bad.raw" -- true 2>"$D/bad.err"; rc=$?
check "SUDO_UID not a number: refused (rc=$rc)" sh -c "test $rc -eq 1 && grep -q SUDO_UID '$D/bad.err'"

# --- -p through sudo: only the invoking user's processes -------------------
# Each is taken once it runs sleep: until setpriv has exec'ed it, the
# second process is still root's.
sleep 30 & rootpid=$!
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups sleep 30 & nobodypid=$!
wait_exe $rootpid "$(command -v sleep)"
wait_exe $nobodypid "$(command -v sleep)"
SUDO_UID=$NOBODY SUDO_GID=$NOBODY "$REC" -q -m stack -p $rootpid -d 0.5 -o "$D/p-root.raw" 2>"$D/p-root.err"; rc=$?
check "SUDO_UID=$NOBODY, -p of root's process: refused clearly (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'belongs to user 0, not to user $NOBODY' '$D/p-root.err' && test ! -e '$D/p-root.raw'"
SUDO_UID=$NOBODY SUDO_GID=$NOBODY "$REC" -q -m stack -p $nobodypid -d 0.5 -o "$D/p-own.raw" 2>"$D/p-own.err"; rc=$?
check "SUDO_UID=$NOBODY, -p of that user's process: recorded (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c %u '$D/p-own.raw')\" = $NOBODY"
"$REC" -q -m stack -p $nobodypid -d 0.5 -o "$D/p-plain.raw" 2>"$D/p-plain.err"; rc=$?
check "plain root, -p of another user's process: allowed (rc=$rc)" test "$rc" -eq 0
SUDO_UID=0 SUDO_GID=0 "$REC" -q -m stack -p $rootpid -d 0.5 -o "$D/p-sudo0.raw" 2>/dev/null; rc=$?
check "SUDO_UID=0 (sudo from root) is plain root (rc=$rc)" test "$rc" -eq 0
kill $rootpid $nobodypid 2>/dev/null
wait $rootpid $nobodypid 2>/dev/null || :
