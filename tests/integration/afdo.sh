#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# GCC AutoFDO: a hand-made profile of tests/workloads/hot.c, written as
# .afdo version 2 by convert/afdo.c (through build/tests/test_afdo), read by
# gcc 12 (-fauto-profile); the counts must land on the blocks they name.
# Also: how gcc 12 treats discriminators, which the writer relies on.
. "$(dirname "$0")/../lib.sh"

GCC=${GCC:-gcc}
TOOL=$TOP/build/tests/test_afdo
SRC=$TOP/tests/workloads/hot.c
D=$WORK/afdo
rm -rf "$D"
mkdir -p "$D"
cd "$D" || exit 1

if [ ! -x "$TOOL" ]; then
	fail afdo "build/tests/test_afdo is missing: run 'make unit-tests' first"
	exit 0
fi
if ! command -v "$GCC" >/dev/null; then
	fail afdo "no $GCC"
	exit 0
fi
gccver=$("$GCC" -dumpversion | cut -d. -f1)
check "gcc is version 12 (found ${gccver:-none})" test "${gccver:-0}" -eq 12

# ---- hot.c: line offsets from the source, checked against gcc's DWARF ----
line_of() { grep -n -F -- "$1" "$SRC" | head -n 1 | cut -d: -f1; }
HOT=$(line_of 'unsigned long hot_loop(long n)')
MIX=$(line_of 'unsigned long mix(unsigned long h,')
MAIN=$(line_of 'int main(int argc')
COLD=$(line_of 'long cold_path(long x)')
# a line of FUNCTION (declared at $2) that contains TEXT: its offset
off() { echo $(( $(awk -v from="$2" -v t="$1" 'NR > from && index($0, t) { print NR; exit }' "$SRC") - $2 )); }

"$GCC" -O2 -g -c "$SRC" -o plain.o
decl_line() { # FUNCTION: DW_AT_decl_line from gcc's debug info
	readelf --debug-dump=info plain.o 2>/dev/null | awk -v f="$1" '
		/DW_TAG_/ { in_sub = /DW_TAG_subprogram/; named = 0 }
		in_sub && /DW_AT_name/ && $NF == f { named = 1 }
		in_sub && named && /DW_AT_decl_line/ { print $NF + 0; exit }'
}
check "hot_loop starts at line $HOT in gcc's DWARF too" test "$(decl_line hot_loop)" = "$HOT"
check "mix starts at line $MIX in gcc's DWARF too" test "$(decl_line mix)" = "$MIX"

# A profile such as sampling hot_loop 20 times (n = 10M) would give, scaled
# so that the hottest line has 200000: the loop line, mix's four lines
# inlined at the call (each 200500: samples differ a little), the rare
# branch taken 1 in 256 (780) -- in hot_loop.cold, where gcc -O2 puts such
# code: the writer must merge it into hot_loop, as gcc cuts names at '.'.
L_FOR=$(off 'for (long i' "$HOT"); L_CALL=$(off 'h = mix(' "$HOT")
L_IF=$(off 'if ((h & 0xff)' "$HOT"); L_ADD=$(off 'h += (unsigned long)i;' "$HOT")
L_RET=$(off 'return h;' "$HOT")
M1=$(off 'h ^= v;' "$MIX"); M2=$(off 'h *= 0x100000001b3UL;' "$MIX")
M3=$(off 'h ^= h >> 29;' "$MIX"); M4=$(off 'return h;' "$MIX")
C_HOT=$(off 'h += hot_loop(' "$MAIN"); C_COLD=$(off 'l += cold_path(r);' "$MAIN")
C_IF=$(off 'if (r % 7 == 0)' "$MAIN"); C_FOR=$(off 'for (long r = 0;' "$MAIN")
cat >hot.txt <<EOF
hot_loop:1202060:20
 1: 20
 2: 20
 $L_FOR: 200000
 $L_CALL: mix:802000
  $M1: 200500
  $M2: 200500
  $M3: 200500
  $M4: 200500
 $L_IF: 200000
 $L_RET: 20
main:104:1
 1: 1
 $C_FOR: 21
 $C_HOT: 20 hot_loop:20
 $C_IF: 20
 $C_COLD: 3 cold_path:3
 $((C_FOR + 6)): 1
cold_path:6:3
 1: 3
 2: 3
hot_loop.cold:780:0
 $L_ADD: 780
EOF
check "write the profile as .afdo version 2" "$TOOL" --text-to-afdo hot.txt hot.afdo 2
check "the file starts with the gcda magic and version 2" sh -c \
	"od -An -tx1 -N8 hot.afdo | grep -q '61 64 63 67 02 00 00 00'"
check "pgoprof show reads it back" sh -c "'$PGOPROF' show hot.afdo | grep -q '^hot_loop:[0-9]*:20\$'"

# gcc 12 reads it: no diagnostic at all, and the counts on hot_loop's
# blocks right after the profile pass (fixup_cfg3 is the first GIMPLE dump
# after the IPA afdo pass; later dumps rescale counts).
mkdir gcc && cd gcc || exit 1
"$GCC" -O2 -g -c -fauto-profile=../hot.afdo -fdump-tree-fixup_cfg3 "$SRC" -o hot.o 2>../gcc.err
rc=$?
cd .. || exit 1
check "gcc -fauto-profile compiles with the profile (rc $rc)" test $rc -eq 0
check "gcc says nothing about the profile" sh -c "! test -s gcc.err"
[ -s gcc.err ] && sed 's/^/  gcc: /' gcc.err
fn_dump() { # FUNCTION: its part of the fixup_cfg3 dump
	awk -v f="$1" '/^;; Function / { on = ($3 == f) } on' gcc/*.fixup_cfg3
}
fn_dump hot_loop >hot_loop.dump
fn_dump main >main.dump
check "hot_loop's entry block has the profile's head count 20" grep -q '<bb 2> \[count: 20\]' hot_loop.dump
check "the loop body of hot_loop has count 200500 (mix, inlined at offset $L_CALL)" \
	grep -q '\[count: 200500\]' hot_loop.dump
check "the rare branch has count 780 (from hot_loop.cold, merged into hot_loop)" \
	grep -q '\[count: 780\]' hot_loop.dump
check "main's entry block has count 1" grep -q '<bb 2> \[count: 1\]' main.dump
check "main's call of hot_loop sits in a block of count 20" sh -c \
	"awk '/<bb [0-9]+> \\[count: 20\\]/ { b = 1; next } /<bb / { b = 0 } b && /hot_loop \\(/ { f = 1 } END { exit !f }' main.dump"
check "the functions are marked hot from the profile" grep -q '^;; Function hot_loop .*(hot)' gcc/*.fixup_cfg3

# gcc 12 refuses the other versions with a clear message.
"$TOOL" --text-to-afdo hot.txt hot1.afdo 1 &&
"$GCC" -O2 -c -fauto-profile=hot1.afdo "$SRC" -o /dev/null 2>v1.err
check "gcc 12 refuses version 1 ('does not match 2')" grep -q 'AutoFDO profile version 1 does not match 2' v1.err

# ---- discriminators: a loop written on one line ----
cat >disc.c <<'EOF'
int sum(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) s += a[i] * 3;
	return s;
}
EOF
"$GCC" -O2 -g -c disc.c -o disc.o
if command -v llvm-dwarfdump-16 >/dev/null; then
	check "gcc 12 gives the one-line loop's body a discriminator" sh -c \
		"llvm-dwarfdump-16 --debug-line disc.o | awk '\$2 == 4 && \$6 != 0 { f = 1 } END { exit !f }'"
fi
body_count() { # AFDO: the count of the block holding the loop body
	rm -rf dd && mkdir dd && (cd dd && "$GCC" -O2 -g -c -fauto-profile="../$1" \
		-fdump-tree-fixup_cfg3-lineno ../disc.c -o /dev/null 2>../dd.err) || return
	awk '/<bb [0-9]+> \[count: / { c = $4; sub(/\]:/, "", c) } /disc.c:4:40\]/ { print c; exit }' dd/*.fixup_cfg3
}
# Records written byte by byte, as given (no folding), line 4 = offset 3.
"$TOOL" --raw-v2 d_only.afdo sum 10 0:10 3.5:7777
check "gcc 12 masks a position's discriminator (3.5 lands on line 4)" \
	test "$(body_count d_only.afdo)" = 7777
"$TOOL" --raw-v2 d_last1.afdo sum 10 0:10 3:10 3.3:7777
"$TOOL" --raw-v2 d_last2.afdo sum 10 0:10 3.3:7777 3:10
check "gcc 12 keeps the last record of a line (3 then 3.3: 7777; 3.3 then 3: 10)" \
	test "$(body_count d_last1.afdo)-$(body_count d_last2.afdo)" = "7777-10"
# Our writer folds: the min of the line, whatever the order (a one-line
# loop's body gets the entry's count: the price of the rule below).
printf 'sum:7797:10\n 0: 10\n 3: 10\n 3.3: 7777\n' >d_text.txt
"$TOOL" --text-to-afdo d_text.txt d_ours.afdo 2
check "afdo_write folds 3: 10 and 3.3: 7777 into 3: 10" test "$(body_count d_ours.afdo)" = 10
check "the folded file holds one record for the line" sh -c \
	"'$TOOL' --afdo-to-text d_ours.afdo | grep -c '^ 3' | grep -qx 1"

# Why the min: a hot and a never-run block on one line (a macro, as Lua's
# vmfetch: the hook call and the fetch), told apart only by discriminators.
# gcc 12 gives the line's count to both blocks; folded by max, the hook
# call's block ran 1000 times for gcc, and propagation sends the loop's
# flow through it.
cat >macro.c <<'EOF'
extern int trap;
int hook(int);
#define STEP(x) { if (__builtin_expect(trap, 0)) trap = hook(x); s += (x); }
int run(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		STEP(a[i]);
	return s;
}
EOF
hook_count() { # AFDO: the count gcc gives the block that calls hook
	rm -rf dm && mkdir dm && (cd dm && "$GCC" -O2 -g -c -fauto-profile="../$1" \
		-fdump-tree-fixup_cfg3 ../macro.c -o /dev/null 2>../dm.err) || return
	awk '/<bb [0-9]+> \[count: / { c = $4; sub(/\]:/, "", c) } /hook \(/ { print c; exit }' dm/*.fixup_cfg3
}
printf 'run:3030:10\n 0: 10\n 2: 10\n 3: 1010\n 4: 1000\n 4.2: 0\n 6: 10\n' >m_text.txt
"$TOOL" --text-to-afdo m_text.txt m_ours.afdo 2
c=$(hook_count m_ours.afdo)
check "afdo_write folds 4: 1000 and 4.2: 0 (the hook call) so that gcc 12 gives the hook's block 0 (got ${c:-none})" \
	test "$c" = 0

# Inlined callsites: gcc 12 looks them up by (line << 16) alone.
MIXREC="$M1:333333,$M2:333333,$M3:333333,$M4:333333"
loop_count() { # AFDO: the count of hot_loop's loop body block
	rm -rf dh && mkdir dh && (cd dh && "$GCC" -O2 -g -c -fauto-profile="../$1" \
		-fdump-tree-fixup_cfg3 "$SRC" -o /dev/null 2>/dev/null) || return
	awk '/^;; Function / { on = ($3 == "hot_loop") } on && /<bb 3> \[count: / { c = $4; sub(/\]:/, "", c); print c; exit }' dh/*.fixup_cfg3
}
"$TOOL" --raw-v2 cs_disc.afdo hot_loop 20 1:20 "$L_FOR:1000" "$L_CALL.2@mix/$MIXREC"
"$TOOL" --raw-v2 cs_nodisc.afdo hot_loop 20 1:20 "$L_FOR:1000" "$L_CALL@mix/$MIXREC"
check "gcc 12 finds an inlined callsite at offset $L_CALL" test "$(loop_count cs_nodisc.afdo)" = 333333
c=$(loop_count cs_disc.afdo)
check "gcc 12 never finds one at offset $L_CALL.2 (loop body count ${c:-none})" \
	sh -c "test -n '$c' && test '$c' != 333333"
printf 'hot_loop:1333352:20\n 1: 20\n %s: 1000\n %s.2: mix:1333332\n  %s: 333333\n  %s: 333333\n  %s: 333333\n  %s: 333333\n' \
	"$L_FOR" "$L_CALL" "$M1" "$M2" "$M3" "$M4" >cs_text.txt
"$TOOL" --text-to-afdo cs_text.txt cs_ours.afdo 2
check "afdo_write folds callsite $L_CALL.2 to $L_CALL, which gcc 12 finds" \
	test "$(loop_count cs_ours.afdo)" = 333333
