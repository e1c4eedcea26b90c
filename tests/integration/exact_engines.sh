#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record --exact's two engines agree: qemu-user with pgoprof's plugin
# (qemu/count.c) gives every instruction of a program's own code (.text of
# the executable and of its shared library) the count callgrind gives, and
# every call site the same number of calls, on threads, a signal handler,
# a child spawned with exec.  Where callgrind is wrong the plugin is
# checked against the program's own arithmetic: a fork's child counts only
# what it ran (callgrind's child file also holds the parent's counts
# before the fork).  And: JIT code is unattributed by reason, a DWARF 5
# binary needs no special build, and auto falls back to callgrind, said in
# one line, when QEMU cannot run.
. "$(dirname "$0")/../lib.sh"

need_tool exact_engines valgrind valgrind || exit 0
need_tool exact_engines qemu-x86_64 qemu-user || exit 0
[ "$(uname -m)" = x86_64 ] || { skip exact_engines "the tests' programs are x86_64"; exit 0; }
D=$WORK/exact_engines
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1

$CLANG -O2 -g -gdwarf-4 -fPIC -shared -o libhot.so "$TOP/tests/workloads/libhot.c" &&
$CLANG -O2 -g -gdwarf-4 -o engines "$TOP/tests/workloads/engines.c" -L. -lhot \
	-Wl,-rpath,"$D" -lpthread || { fail "exact_engines: build"; exit 0; }

AWKHEX='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# own RAW: "path offset count" of every instruction of .text of engines
# and libhot.so, and "path call SITE calls" of their call sites.
own() {
	for bin in engines libhot.so; do
		set -- "$1" $(readelf -SW $bin | awk "$AWKHEX"'$2 == ".text" { print hex($5), hex($5) + hex($6) }')
		"$PGOPROF" show "$1" | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/$bin"'") }
			on && $1 == "range" { split($2, r, "-"); o = hex(r[1])
				if (o >= '"$2"' && o < '"$3"') print "'$bin'", o, $3 }
			on && $1 == "branch" { s[hex($2)] += $5 }
			END { for (k in s) print "'$bin'", "call", k, s[k] }'
	done | sort
}

for e in callgrind qemu; do
	"$PGOPROF" record --exact --engine $e -q -o nofork.$e.raw -- ./engines nofork >$e.out 2>$e.err ||
		fail "exact_engines: record --engine $e" "$(tail -n 2 $e.err | tr '\n' ' ')"
	own nofork.$e.raw >nofork.$e.own
done
n=$(grep -vc ' call ' nofork.callgrind.own)
grep -v ' call ' nofork.callgrind.own >insns.callgrind
grep -v ' call ' nofork.qemu.own >insns.qemu
check "exact_engines: threads, a signal handler, a spawned exec: all $n instructions as callgrind counts them" sh -c \
	"test $n -gt 100 && cmp insns.callgrind insns.qemu"
# Call sites: callgrind's, each with its count; the plugin has more only
# where callgrind lost the callee (a call into .plt.got, whose entries
# valgrind does not name) or counts no call (crt's tail jumps).
grep ' call ' nofork.callgrind.own >calls.callgrind
grep ' call ' nofork.qemu.own >calls.qemu
c=$(wc -l <calls.callgrind)
extra=$(comm -13 calls.callgrind calls.qemu | while read -r bin _ site _; do
	objdump -d --no-show-raw-insn "$bin" | grep "^ *$(printf %x "$site"):" | grep -v '@plt>\|	jmp '
done)
check "exact_engines: all $c call sites with callgrind's numbers of calls; more only into .plt.got or by jmp" sh -c \
	"test $c -gt 5 && test -z \"\$(comm -23 calls.callgrind calls.qemu)\" && test -z '$extra'"
check "exact_engines: the same output as natively" sh -c \
	"./engines nofork | cmp -s - qemu.out"
check "exact_engines: both engines count 2 processes" sh -c \
	"'$PGOPROF' show nofork.qemu.raw | grep -q 'counter processes = 2\$' &&
	 '$PGOPROF' show nofork.callgrind.raw | grep -q 'counter processes = 2\$'"

# lib_mix's first instruction: 13,500 calls (engines.c), the fork's child
# counting its 500 only.
entry=$(nm libhot.so | awk '$3 == "lib_mix" { print $1 }')
"$PGOPROF" record --exact --engine qemu -q -o fork.raw -- ./engines >/dev/null 2>fork.err
calls=$("$PGOPROF" show fork.raw | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/libhot.so"'") }
	on && $1 == "range" { split($2, r, "-"); if (hex(r[1]) == hex("'$entry'")) print $3 }')
check "exact_engines: a fork's child counts what it ran: lib_mix entered $calls times (13500)" \
	test "$calls" = 13500
"$PGOPROF" record --exact --engine qemu -q -o fork2.raw -- ./engines >/dev/null 2>&1
own fork.raw >fork.own; own fork2.raw >fork2.own
check "exact_engines: the program's own counts are the same run after run" cmp fork.own fork2.own

# A tail call (mid's "jmp leaf") counts as a call, as callgrind counts it:
# leaf's head is its number of entries.
cat >tail.c <<'C'
#include <stdlib.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + (x >> 2); }
__attribute__((noinline)) int mid(int x) { return leaf(x + 1); }
int main(int argc, char **argv)
{
	int s = 0, n = atoi(argv[1]);

	for (int i = 0; i < n; i++)
		s += mid(i);
	return s & 1;
}
C
$CLANG -O2 -g -o tail tail.c
jmp=$(objdump -d --no-show-raw-insn tail | awk '/<mid>:/ { on = 1 } on && /jmp .*<leaf>/ { sub(":", "", $1); print $1; exit }')
"$PGOPROF" record --exact --engine qemu -q -o tail.raw -- ./tail 1000
tcalls=$("$PGOPROF" show tail.raw | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/tail"'") }
	on && $1 == "branch" && hex($2) == hex("'"$jmp"'") { n += $5 } END { print n + 0 }')
check "exact_engines: a tail call (jmp at 0x$jmp) counted as 1000 calls ($tcalls)" \
	test -n "$jmp" -a "$tcalls" = 1000

# The plugin knows a direct call's callee, and whether a direct jump can
# reach a function's first instruction, when it translates the block; the
# other calls it follows at run time.  Each kind of call site, with the
# number of calls the loop makes (n = 1000): a conditional tail call and
# a fall-through into the next function (written in assembly: compilers
# rarely emit them), a tail call through a PLT entry, an indirect tail
# call, an indirect call, direct calls.
cat >kinds.c <<'C'
#include <stdlib.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + (x >> 2); }
int ctail(int), ftail(int);
__asm__(".text\n.globl ctail\n.type ctail,@function\nctail:\n"
	"\ttestb $1, %dil\n\tjne leaf\n\tleal -1(%rdi), %eax\n\tret\n.size ctail, .-ctail\n"
	".Lodd:\n\tmovl %edi, %eax\n\tret\n"
	".globl ftail\n.type ftail,@function\nftail:\n"
	"\ttestb $1, %dil\n\tjne .Lodd\n.size ftail, .-ftail\n"
	".globl fnext\n.type fnext,@function\nfnext:\n\tleal 2(%rdi), %eax\n\tret\n.size fnext, .-fnext\n");
__attribute__((noinline)) int viaplt(const char *s) { return (int)strtol(s, NULL, 10); }
int (*volatile fp)(int) = leaf;
__attribute__((noinline)) int indirect(int x) { return fp(x); }
int main(int argc, char **argv)
{
	int s = 0, n = atoi(argv[1]);

	for (int i = 0; i < n; i++)
		s += ctail(i) + ftail(i) + viaplt(argv[1]) + indirect(i) + fp(i);
	return s & 1;
}
C
$CLANG -O2 -g -o kinds kinds.c
"$PGOPROF" record --exact --engine qemu -q -o kinds.raw -- ./kinds 1000
# The program's object number is the profile's, not always 0.
"$PGOPROF" show kinds.raw | awk "$AWKHEX"' $1 == "object" { on = ($6 == "'"$D/kinds"'"); if (on) self = $2 }
	on && $1 == "branch" { split($4, c, ":"); print hex($2), (c[1] == self ? hex(c[2]) : "lib"), $5 }' >kinds.calls
# what, site, callee (its offset, or "lib": libc's strtol, not the PLT entry), calls
nm kinds | awk "$AWKHEX"'{ print $3, hex($1) }' >kinds.syms
objdump -d --no-show-raw-insn kinds | awk "$AWKHEX"'
	FNR == NR { at[$1] = $2; next }
	/^[0-9a-f]+ <[^>]*>:$/ { fn = $2 } { a = $1; sub(":", "", a); a = hex(a) }
	/	j[a-z]* .*<leaf>/ && fn == "<ctail>:" { print "ctail", a, at["leaf"], 500 }
	/	j[a-z]* / && fn == "<ftail>:" { print "ftail", a, at["fnext"], 500 }
	/	jmp .*<strtol@plt>/ && fn == "<viaplt>:" { print "viaplt", a, "lib", 1000 }
	/	jmp +\*/ && fn == "<indirect>:" { print "indirect", a, at["leaf"], 1000 }
	/	call +\*/ && fn == "<main>:" { print "main-indirect", a, at["leaf"], 1000 }
	match($0, /	call .*<(ctail|ftail|viaplt|indirect)>/) { f = $NF; gsub(/[<>]/, "", f)
		print "main-direct", a, at[f], 1000 }' kinds.syms - >kinds.want
while read -r what site callee want; do
	got=$(awk -v s="$site" -v c="$callee" '$1 == s && $2 == c { print $3 }' kinds.calls)
	check "exact_engines: call kinds: $what (0x$(printf %x "$site")): ${got:-no} calls to its callee ($want)" \
		test "${got:-0}" = "$want"
done <kinds.want
check "exact_engines: call kinds: 9 call sites found in the binary" test "$(wc -l <kinds.want)" = 9

# Code in no file (a JIT's): unattributed by reason.
cat >jit.c <<'C'
#include <string.h>
#include <sys/mman.h>
int main(void)
{
	unsigned char *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(p, "\x90\x90\xc3", 3);	/* nop; nop; ret */
	for (int i = 0; i < 1000; i++)
		((void (*)(void))p)();
	return 0;
}
C
${CC:-cc} -O1 -o jit jit.c
"$PGOPROF" record --exact --engine qemu -q -o jit.raw -- ./jit 2>jit.err
check "exact_engines: JIT code: its 3000 instructions unattributed (anonymous)" sh -c \
	"'$PGOPROF' show jit.raw | grep -q 'counter instructions.unattributed.anonymous = 3000\$'"

# clang 16's default DWARF 5: profiled as built, lines found by convert.
$CLANG -O2 -g -fdebug-info-for-profiling -o dwarf5 "$TOP/tests/workloads/hot.c" "$TOP/tests/workloads/libhot.c"
"$PGOPROF" record --exact -q -o dwarf5.raw -- ./dwarf5 0 >/dev/null 2>dwarf5.err; rc=$?
"$PGOPROF" convert -q dwarf5.raw --binary dwarf5 -f llvm-text -o dwarf5.txt 2>/dev/null
check "exact_engines: a DWARF 5 binary needs no special build (rc=$rc)" sh -c \
	"test $rc = 0 && grep -q '^main:' dwarf5.txt && test \$(wc -l <dwarf5.txt) -gt 3"

# Auto takes callgrind when QEMU cannot run, in one line; the command runs once.
cat >false-qemu <<'S'
#!/bin/sh
echo "qemu: could not load the plugin" >&2; exit 1
S
chmod +x false-qemu
"$PGOPROF" record --exact --qemu ./false-qemu -o fb.raw -- sh -c "echo x >>ran" 2>fb.err; rc=$?
check "exact_engines: QEMU stopped before the command: callgrind instead, said, the command run once (rc=$rc)" sh -c \
	"test $rc = 0 && test \$(wc -l <ran) = 1 && grep -q 'callgrind instead' fb.err &&
	 '$PGOPROF' show fb.raw | grep -q 'recorder = callgrind'"
"$PGOPROF" record --exact --engine qemu --qemu ./false-qemu -o fq.raw -- true 2>fq.err; rc=$?
check "exact_engines: --engine qemu where QEMU cannot run: rc 1, said, no profile (rc=$rc)" sh -c \
	"test $rc = 1 && test ! -e fq.raw && grep -q 'engine qemu' fq.err"
"$PGOPROF" record --exact --qemu /nonexistent/qemu -o nq.raw -- true 2>nq.err; rc=$?
check "exact_engines: no QEMU: callgrind, with the package named (rc=$rc)" sh -c \
	"test $rc = 0 && grep -q 'apt install qemu-user' nq.err && test -s nq.raw"
# The expected duration, once the native one is given.
"$PGOPROF" record --exact --engine qemu --native-time 2 -o nt.raw -- true 2>nt.err
check "exact_engines: --native-time 2: about 4-20 s expected, said" \
	grep -q 'under qemu-user: 2-10x slower than natively (about 4-20 s in all for 2 s natively)' nt.err
"$PGOPROF" record --exact --native-time -1 -o nt2.raw -- true 2>nt2.err; rc=$?
check "exact_engines: --native-time -1: usage error, named (rc=$rc)" sh -c \
	"test $rc = 2 && grep -q -- '--native-time -1' nt2.err && test ! -e nt2.raw"
exit 0
