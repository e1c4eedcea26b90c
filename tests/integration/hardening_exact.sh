#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pgoprof record --exact against a hostile or careless user
# (docs/threat-model.md, "pgoprof record --exact"): through sudo the
# command runs and the output is written as the invoking user; as root,
# -o obeys pgoprof-record's writer rules (no planted links, no other
# user's FIFO in a sticky directory); a FIFO without a reader is refused
# at once; --callgrind-out takes no file another user planted; a command
# that starts with '-' is no valgrind option.
. "$(dirname "$0")/../lib.sh"

need_root hardening_exact || exit 0
need_tool hardening_exact valgrind valgrind || exit 0
unset SUDO_UID SUDO_GID SUDO_USER
NOBODY=65534
NOGROUP=$(id -g nobody)
D=$WORK/hardening_exact
rm -rf "$D"; mkdir -p "$D"; chmod 755 "$D"
cd "$D" || exit 1
$CLANG -O2 -g -gdwarf-4 -o loops "$TOP/tests/lbrsynth/progs/loops.c" ||
	{ fail "hardening_exact: build loops"; exit 0; }
# exact NAME ARGS...: pgoprof record --exact -q ARGS, within 60 s; stderr
# in NAME.err, status in $rc.  as_sudo NAME ARGS...: the same, as sudo
# would run it for user nobody.
exact() {
	n=$1; shift
	timeout -k 5 60 env $SUDO_ENV "$PGOPROF" record --exact -q "$@" >/dev/null 2>"$n.err"; rc=$?
}
SUDO_ENV=
as_sudo() { SUDO_ENV="SUDO_UID=$NOBODY SUDO_GID=$NOGROUP"; exact "$@"; SUDO_ENV=; }

# --- through sudo: the command and the output are the invoking user's ------
mkdir -p etc home; chmod 755 etc; chown $NOBODY:$NOGROUP home
echo secret >etc/victim; chmod 644 etc/victim
as_sudo victim -o "$D/etc/victim" -- sh -c "touch '$D/ran.victim'"
check "exact, sudo, -o a root file in a root directory: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.victim' && test \"\$(cat '$D/etc/victim')\" = secret &&
	 test \"\$(stat -c '%u:%g' '$D/etc/victim')\" = 0:0 && grep -q 'etc/victim' victim.err"
as_sudo newetc -o "$D/etc/new.raw" -- ./loops 10
check "exact, sudo, -o a new file in a root directory: refused, nothing created (rc=$rc)" sh -c \
	"test $rc -eq 1 && test -z \"\$(ls -A '$D/etc' | grep -v '^victim\$')\""
as_sudo home -o "$D/home/p.raw" -- sh -c "grep -E '^(Uid|Gid|CapPrm|CapEff):' /proc/self/status >'$D/home/status'; ./loops 10"
check "exact, sudo: written in the user's directory, the user's, 644 (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c '%u:%g %a' '$D/home/p.raw')\" = '$NOBODY:$NOGROUP 644' &&
	 '$PGOPROF' show '$D/home/p.raw' | grep -q 'path $D/loops '"
check "exact, sudo: the command ran as the user, every ID, no capability" sh -c \
	"grep -Eq '^Uid:\s+$NOBODY\s+$NOBODY\s+$NOBODY\s+$NOBODY\$' '$D/home/status' &&
	 grep -Eq '^Gid:\s+$NOGROUP\s+$NOGROUP\s+$NOGROUP\s+$NOGROUP\$' '$D/home/status' &&
	 grep -Eq '^CapPrm:\s+0+\$' '$D/home/status' && grep -Eq '^CapEff:\s+0+\$' '$D/home/status'"
SUDO_UID=x SUDO_GID=$NOGROUP timeout -k 5 60 "$PGOPROF" record --exact -q -o "$D/home/bad.raw" -- true 2>badsudo.err; rc=$?
check "exact, SUDO_UID not a number: refused (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q SUDO_UID badsudo.err && test ! -e '$D/home/bad.raw'"
setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups env SUDO_UID=4242 SUDO_GID=4242 \
	timeout -k 5 60 "$PGOPROF" record --exact -q -o "$D/home/fake.raw" -- ./loops 10 >/dev/null 2>fake.err; rc=$?
check "exact: SUDO_UID ignored when the real user is not root (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c %u '$D/home/fake.raw')\" = $NOBODY"

# --- as root: pgoprof-record's writer rules --------------------------------
ln -s "$D/etc" dlink
exact dlink -o "$D/dlink/x.raw" -- sh -c "touch '$D/ran.dlink'"
check "exact, root, -o through a planted directory link: refused before the run (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.dlink' && test ! -e '$D/etc/x.raw' && grep -q 'dlink is a symbolic link' dlink.err"
mkdir -m 1777 sticky
setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups mkfifo sticky/fifo
exact sfifo -o "$D/sticky/fifo" -- sh -c "touch '$D/ran.sfifo'"
check "exact, root, -o another user's FIFO in a sticky directory: refused at once (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.sfifo' && grep -q 'sticky' sfifo.err"
mkfifo myfifo
exact fifo -o "$D/myfifo" -- sh -c "touch '$D/ran.fifo'"
check "exact, -o a FIFO that nobody reads: refused at once, not blocked (rc=$rc)" sh -c \
	"test $rc -eq 1 && test ! -e '$D/ran.fifo' && grep -q 'no reader' fifo.err"
# The reader counts once cat waits in its open of the FIFO (sleeping);
# timeout ends it if pgoprof never opens the FIFO.
timeout 60 cat myfifo >fifo.out & reader=$!
cat_waits() {
	c=$(cat /proc/$reader/task/$reader/children 2>/dev/null)
	[ -n "$c" ] && _runs "$c" "$(readlink -f "$(command -v cat)")" &&
		grep -q '^State:[[:space:]]*S' "/proc/$c/status"
}
until_true 30 cat_waits
exact fiforead -o "$D/myfifo" -- ./loops 10
wait $reader
check "exact, -o a FIFO with a reader: the profile goes through it (rc=$rc)" sh -c \
	"test $rc -eq 0 && '$PGOPROF' show fifo.out | grep -q 'path $D/loops '"
exact null -o /dev/null -- ./loops 10
check "exact, -o /dev/null: written in place, still root's device (rc=$rc)" sh -c \
	"test $rc -eq 0 && test \"\$(stat -c '%u %F' /dev/null)\" = '0 character special file'"

# --- --keep-counts: only this run's files -----------------------------------
mkdir -m 1777 shared
# Another user plants a callgrind file of 10^12 instructions there.
cat >planted <<PLANT
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 1
cmd: $D/loops
positions: instr
events: Ir
ob=$D/loops
fn=main
0x1130 1000000000000
totals: 1000000000000
PLANT
setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups cp planted shared/callgrind.out.1
setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups sh -c \
	"printf 'pgoprof-count 1\npid 1\nobject 0 $D/loops\ninsn 0 1130 1000000000000\nend\n' >shared/count.1.0"
ENGINES=callgrind
command -v qemu-x86_64 >/dev/null && ENGINES="callgrind qemu"
for e in $ENGINES; do
	case $e in callgrind) file=callgrind.out ;; qemu) file=count ;; esac
	mkdir -m 1777 shared/$e
	setpriv --reuid=$NOBODY --regid=$NOGROUP --clear-groups cp shared/callgrind.out.1 shared/count.1.0 shared/$e/
	exact keep -o keep.raw --engine $e --keep-counts "$D/shared/$e" -- ./loops 10
	ins=$("$PGOPROF" show keep.raw 2>/dev/null | awk '$1 == "counter" && $2 == "instructions" { print $4 }')
	check "exact --engine $e --keep-counts a shared directory: the planted file is not read ($ins instructions, rc=$rc)" sh -c \
		"test $rc -eq 0 && test -n '$ins' && test '$ins' -lt 1000000000 &&
		 '$PGOPROF' show keep.raw | grep -q 'counter processes = 1\$'"
	kept=$(ls "$D"/shared/$e/*/$file.* 2>/dev/null | wc -l)
	check "exact --engine $e --keep-counts: this run's file kept in a new directory in it ($kept), named" sh -c \
		"test $kept -eq 1 && grep -q \"$D/shared/$e/\" keep.err"
	exact again -o again.raw --engine $e --keep-counts "$D/shared/$e" -- ./loops 10
	check "exact --engine $e --keep-counts twice: the first run's files are not read again" sh -c \
		"test $rc -eq 0 && '$PGOPROF' show again.raw | grep -q 'counter processes = 1\$'"
done

# --- a command that starts with '-' is no valgrind option -------------------
exact dash -o dash.raw -- --log-file="$D/planted.log" ./loops 10
check "exact -- --log-file=PATH ./app: not a valgrind option, PATH not written (rc=$rc)" sh -c \
	"test $rc -ne 0 && test ! -e '$D/planted.log' && test ! -e dash.raw"
