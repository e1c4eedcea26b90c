#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build-IDs of every length the linkers make (lld --build-id=fast: 8
# bytes; md5, uuid: 16; sha1: 20; 0xHEX: 4), from ld.bfd and lld, are
# kept at their real length wherever they come from: the ELF note, an
# MMAP2 record, perf's HEADER_BUILD_ID with a size and, as perf before 5.x
# wrote it, zero-padded to 20 bytes without one (lbrgen --old-build-ids).
# Each profile converts with its binary, and the diagnosis of a real
# mismatch still says the binary differs.
. "$(dirname "$0")/../lib.sh"

D=$WORK/buildids
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
LBRGEN=$TOP/build/bench/lbrgen
[ -x "$LBRGEN" ] || make -C "$TOP" -s build/bench/lbrgen >/dev/null 2>&1
note_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
obj_id() { "$PGOPROF" show "$1" | awk -v p="$2" '$1 == "object" && $6 == p { print $4 }'; }
main_total() { "$PGOPROF" convert -q "$1" --binary "$2" --format llvm-text -o - 2>"$2.conv.err" |
	awk -F: '/^main:/ { print $2 }'; }

for ld in bfd lld; do
	for style in fast md5 sha1 uuid 0x1a2b3c4d; do
		[ $ld = bfd ] && [ $style = fast ] && continue	# lld only
		b=hot-$ld-$(echo $style | tr -d x)
		if ! $CLANG $PROF_CFLAGS -fuse-ld=$ld -Wl,--build-id=$style -o $b \
			"$TOP/tests/workloads/hot.c" "$TOP/tests/workloads/libhot.c" 2>"$b.cc.err"; then
			fail "$ld --build-id=$style: build" "$(head -n 2 "$b.cc.err" | tr '\n' ' ')"
			continue
		fi
		want=$(note_id $b)
		for kind in new old; do
			flag=; [ $kind = old ] && flag=--old-build-ids
			"$LBRGEN" -q --callchain $flag -n 5000 -o $b.$kind.data $b &&
				"$PGOPROF" import -q -o $b.$kind.raw $b.$kind.data 2>"$b.$kind.err"
			got=$(obj_id $b.$kind.raw "$D/$b")
			check "$ld --build-id=$style ($kind perf): the raw profile keeps the ${#want}-digit ID ($got)" \
				test "$got" = "$want"
			n=$(main_total $b.$kind.raw $b)
			check "$ld --build-id=$style ($kind perf): converts with its binary (main: ${n:-none})" \
				test "${n:-0}" -gt 0
		done
	done
done

# Without the file here the padding is still cut; a binary with another
# ID is refused as rebuilt, by convert and show alike.
b=hot-lld-fast
"$PGOPROF" import -q --no-local-files -o padded.raw $b.old.data 2>/dev/null
check "--no-local-files: the padding is cut from the header's ID ($(obj_id padded.raw "$D/$b"))" \
	test "$(obj_id padded.raw "$D/$b")" = "$(note_id $b)"
n=$(main_total $b.old.raw hot-lld-md5)
check "a binary whose ID differs is refused as rebuilt" sh -c \
	"test -z '$n' && grep -q 'was the binary rebuilt' hot-lld-md5.conv.err"
"$PGOPROF" show $b.old.raw --binary hot-lld-md5 >/dev/null 2>show.err; rc=$?
check "show --binary of another build: the same diagnosis as convert (rc=$rc)" sh -c \
	"test $rc -eq 1 && grep -q 'was the binary rebuilt' show.err"
check "show --binary and check --binary find the 8-byte ID's object" sh -c \
	"'$PGOPROF' show $b.old.raw --binary $b | grep -q hot_loop && '$PGOPROF' check --binary $b $b.old.raw"
"$PGOPROF" convert -q $b.old.raw --binary $b -o $b.extbin 2>/dev/null
check "llvm-profdata reads the profile of the 8-byte ID" "$PROFDATA" show --sample $b.extbin

# Recorded here: the kernel's MMAP2 build-ID (its own length) or the file.
if [ "$(id -u)" = 0 ]; then
	for b in hot-lld-fast hot-bfd-01a2b3c4d; do
		"$TOP/pgoprof-record" -q -m stack -o $b.rec.raw -- ./$b 1 >/dev/null 2>$b.rec.err
		check "$b recorded: the raw profile has its $(note_id $b | wc -c | awk '{ print $1 - 1 }')-digit ID" \
			test "$(obj_id $b.rec.raw "$D/$b")" = "$(note_id $b)"
		t=$("$PGOPROF" convert -q $b.rec.raw --binary $b --format llvm-text -o - 2>/dev/null |
			awk -F: '/^hot_loop:/ { print $2 }')
		# hot_loop runs for most of the second: hundreds of samples.
		check "$b recorded: hot_loop has its samples (${t:-none})" test "${t:-0}" -gt 0
	done
fi
