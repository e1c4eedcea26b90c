#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Binaries linked without a build-ID (-Wl,--build-id=none, ld.bfd and
# lld), in both paths:
# - pgoprof record names such a file by the MD5 of its bytes (content-md5
#   in pgoprof show); convert finds it by that digest, and says the file
#   changed since recording when it did.
# - pgoprof import of perf record -g keeps it by the path recorded
#   (path-md5); convert matches it by file name and says so in one line,
#   refuses two objects of that name (both listed) unless --recorded-path
#   names one.
# Two programs of one name with different build-IDs in one recording stay
# apart: each binary converts with its own samples.
. "$(dirname "$0")/../lib.sh"

D=$WORK/nobuildid
rm -rf "$D"; mkdir -p "$D/a" "$D/b" "$D/c"; cd "$D" || exit 1

obj_line() { "$PGOPROF" show "$1" | awk -v p="$2" '$1 == "object" && $6 == p { $2 = ""; print }'; }
kind_of() { "$PGOPROF" show "$1" | awk -v p="$2" '$1 == "object" && $6 == p { print $3 }'; }
# total samples of function $3 in the profile of binary $2 from raw $1
fn_of() {
	"$PGOPROF" convert "$1" --binary "$2" --format llvm-text -o "$2.$$.txt" \
		${4:+--recorded-path "$4"} 2>"$2.conv.err" || return 0
	fn_total "$2.$$.txt" "$3"
}
build() { # OUT LINKER BUILD-ID [CFLAGS]
	$CLANG $PROF_CFLAGS ${4:-} -fuse-ld=$2 -Wl,--build-id=$3 -o "$1" \
		"$TOP/tests/workloads/hot.c" "$TOP/tests/workloads/libhot.c"
}
perf_rec() { # perf 6.1 may abort on this machine: retried (import.sh)
	for try in 1 2 3 4 5 6; do
		perf record -N -q -e cpu-clock -g "$@" >/dev/null 2>perf.err && return 0
		sleep 2
	done
	return 1
}

for ld in bfd lld; do
	if ! build hot-$ld $ld none 2>cc.err; then
		fail "$ld --build-id=none: build" "$(head -n 2 cc.err | tr '\n' ' ')"
		continue
	fi
	check "$ld --build-id=none: the binary has no build-ID note" \
		sh -c "! readelf -n hot-$ld | grep -q 'Build ID'"
	if need_root "pgoprof record of a binary without a build-ID ($ld)"; then
		"$PGOPROF" record -q -o rec-$ld.raw -- ./hot-$ld 1 6 >/dev/null 2>rec.err
		k=$(kind_of rec-$ld.raw "$D/hot-$ld")
		check "record ($ld): the object is named by its content ($k)" test "$k" = content-md5
		n=$(fn_of rec-$ld.raw hot-$ld hot_loop)
		check "record ($ld): convert finds it by content: hot_loop ${n:-none}" test "${n:-0}" -gt 0
		check "record ($ld): by content, not by name (no 'matched by' line)" \
			sh -c "! grep -q 'matched by' hot-$ld.conv.err"
		"$PGOPROF" convert -q rec-$ld.raw --binary hot-$ld -o hot-$ld.extbin 2>/dev/null
		check "record ($ld): llvm-profdata reads the profile" "$PROFDATA" show --sample hot-$ld.extbin
		check "record ($ld): check --binary finds it" "$PGOPROF" check --binary hot-$ld rec-$ld.raw
		cp hot-$ld changed && printf 'x' >>changed && mv changed c/hot-$ld
		"$PGOPROF" convert rec-$ld.raw --binary c/hot-$ld -o /dev/null 2>changed.err; rc=$?
		check "record ($ld): a file changed since recording is refused as such (rc=$rc)" \
			sh -c "test $rc = 1 && grep -q 'content MD5' changed.err && grep -q 'changed since recording' changed.err"
	fi
	if ! perf_rec -o perf-$ld.data -- ./hot-$ld 1 6; then
		fail "perf record -g of hot-$ld" "$(tail -n 2 perf.err | tr '\n' ' ')"
		continue
	fi
	"$PGOPROF" import -o perf-$ld.raw perf-$ld.data 2>import.err
	k=$(kind_of perf-$ld.raw "$D/hot-$ld")
	check "import ($ld): the object is kept by its path ($k)" test "$k" = path-md5
	check "import ($ld): says the object has no build-ID, and how convert finds it" \
		grep -q "without a build-ID ($D/hot-$ld).*by file name" import.err
	n=$(fn_of perf-$ld.raw hot-$ld hot_loop)
	check "import ($ld): convert matches by file name: hot_loop ${n:-none}" test "${n:-0}" -gt 0
	check "import ($ld): convert says it matched by file name, and the path" \
		grep -q "matched by file name to the samples recorded at $D/hot-$ld" hot-$ld.conv.err
	# Without reading files here: libraries that perf gave no build-ID
	# (hit only by call chains) are kept by path too; hot-$ld the same.
	"$PGOPROF" import -q --no-local-files -o nolocal-$ld.raw perf-$ld.data 2>/dev/null
	a=$(obj_line perf-$ld.raw "$D/hot-$ld") b=$(obj_line nolocal-$ld.raw "$D/hot-$ld")
	check "import --no-local-files ($ld): the same object of hot-$ld ($b)" \
		sh -c "test -n '$a' && test '$a' = '$b'"
done

# Two programs named hot, without build-IDs, in one recording: refused by
# name with both listed; --recorded-path takes the one meant.
build a/hot bfd none -O1 && build b/hot bfd none -O2 || fail "two hot builds"
if perf_rec -o two.data -- sh -c "./a/hot 1 6; ./b/hot 1 6"; then
	"$PGOPROF" import -q -o two.raw two.data 2>/dev/null
	"$PGOPROF" convert two.raw --binary a/hot -o /dev/null 2>two.err; rc=$?
	check "two of one name: refused with both listed (rc=$rc)" sh -c \
		"test $rc = 1 && grep -q '2 objects named hot' two.err && grep -q '$D/a/hot' two.err && grep -q '$D/b/hot' two.err && grep -q -- --recorded-path two.err"
	na=$(fn_of two.raw a/hot hot_loop "$D/a/hot")
	check "two of one name: --recorded-path takes a/hot (hot_loop ${na:-none})" sh -c \
		"test '${na:-0}' -gt 0 && grep -q 'matched by --recorded-path to the samples recorded at $D/a/hot' a/hot.conv.err"
	"$PGOPROF" convert two.raw --binary a/hot --recorded-path "$D/nowhere/hot" -o /dev/null 2>none.err; rc=$?
	check "--recorded-path of no object: refused (rc=$rc)" sh -c \
		"test $rc = 1 && grep -q 'no object recorded at $D/nowhere/hot' none.err"
else
	fail "perf record -g of two programs" "$(tail -n 2 perf.err | tr '\n' ' ')"
fi

# The same with build-IDs: each binary gets the samples of its own
# object: convert's count is that of the object recorded at its path.
obj_samples() { "$PGOPROF" show "$1" | awk -v p="$2" '$1 == "object" && $6 == p { print $8 }'; }
conv_samples() { awk '/ samples of / { print $3; exit }' "$1"; }
build a/hot-id bfd sha1 -O1 && build b/hot-id bfd sha1 -O2 &&
	mv a/hot-id a/hid && mv b/hot-id b/hid || fail "two hid builds"
if perf_rec -o twoid.data -- sh -c "./a/hid 1 6; ./b/hid 1 6"; then
	"$PGOPROF" import -q -o twoid.raw twoid.data 2>/dev/null
	for x in a b; do
		n=$(fn_of twoid.raw $x/hid hot_loop)
		got=$(conv_samples $x/hid.conv.err) want=$(obj_samples twoid.raw "$D/$x/hid")
		check "two of one name with build-IDs: $x/hid converts its own object's $want samples ($got; hot_loop ${n:-none})" \
			sh -c "test -n '$want' && test '$got' = '$want' && test '${n:-0}' -gt 0 && ! grep -q 'matched by' $x/hid.conv.err"
	done
else
	fail "perf record -g of two programs with build-IDs" "$(tail -n 2 perf.err | tr '\n' ' ')"
fi
