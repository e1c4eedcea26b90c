#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a shared profile keeps: record --only and merge --keep leave out the
# other objects (counted in filtered.samples), --strip-paths the paths and
# the command line.  The assertions are on what the filter decides: which
# build-IDs remain, which counters and META keys are written.
. "$(dirname "$0")/../lib.sh"

need_root privacy || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
cd "$WORK" || exit 1
D=$WORK/privacy
rm -rf "$D"; mkdir -p "$D"

note_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
ids() { "$PGOPROF" show "$1" | awk '$1 == "object" { print $4 }' | sort | tr '\n' ' '; }
counter() { "$PGOPROF" show "$1" | awk -v k="$2" '$1 == "counter" && $2 == k { print $4 }'; }
hot_id=$(note_id hot)
lib_id=$(note_id libhot.so)

if ! "$PGOPROF" record -q -o "$D/all.raw" -- ./hot 1 >/dev/null 2>"$D/all.err"; then
	fail "record" "$(cat "$D/all.err")"; exit 0
fi
check "the full recording has hot, libhot.so and more (libc, ld.so)" \
	sh -c "'$PGOPROF' show '$D/all.raw' | grep -c '^object' | awk '{ exit !(\$1 > 2) }'"

# record --only, by path (relative: resolved as the kernel names it)
"$PGOPROF" record -q --only ./hot -o "$D/only.raw" -- ./hot 1 >/dev/null 2>"$D/only.err"
check "record --only ./hot: only hot's build-ID" test "$(ids "$D/only.raw")" = "$hot_id "
check "record --only: filtered.samples is written" test -n "$(counter "$D/only.raw" filtered.samples)"
check "record --only: one line says what was kept" grep -q 'kept 1 object' "$D/only.err"

# record --only of an object never sampled: no object at all, said
"$PGOPROF" record -q --only deadbeefdeadbeef -o "$D/none.raw" -- ./hot 1 >/dev/null 2>"$D/none.err"
check "record --only ID never sampled: no object written" test -z "$(ids "$D/none.raw")"
check "record --only ID never sampled: said" grep -q 'written without objects' "$D/none.err"

# record --strip-paths: no path, no command line; the build-IDs stay
"$PGOPROF" record -q --strip-paths -o "$D/strip.raw" -- ./hot 1 >/dev/null 2>&1
check "record --strip-paths: every object path is empty" \
	sh -c "'$PGOPROF' show '$D/strip.raw' | grep '^object' | grep -v -q ' path  samples ' && exit 1 || exit 0"
check "record --strip-paths: no target" sh -c "! '$PGOPROF' show '$D/strip.raw' | grep -q '^meta target'"
check "record --strip-paths: hot's build-ID stays" sh -c "'$PGOPROF' show '$D/strip.raw' | grep -q '$hot_id'"

# merge --keep by build-ID prefix (libhot.so) and by path (hot)
"$PGOPROF" merge --keep "$(echo "$lib_id" | cut -c1-12)" --keep "$WORK/hot" \
	-o "$D/keep.raw" "$D/all.raw" 2>"$D/keep.err"
check "merge --keep ID --keep PATH: just those two" \
	test "$(ids "$D/keep.raw")" = "$(printf '%s\n%s\n' "$hot_id" "$lib_id" | sort | tr '\n' ' ')"
all_ips=$("$PGOPROF" show "$D/all.raw" | awk '$1 == "ip" { n += $3 } END { print n + 0 }')
keep_ips=$("$PGOPROF" show "$D/keep.raw" | awk '$1 == "ip" { n += $3 } END { print n + 0 }')
check "merge --keep: the samples left out are counted ($keep_ips + filtered = $all_ips)" \
	test $((keep_ips + $(counter "$D/keep.raw" filtered.samples))) -eq "$all_ips"
check "merge --keep: every stack frame is in a kept object or unknown" \
	sh -c "'$PGOPROF' show '$D/keep.raw' | awk '\$1 == \"stack\" { for (i = 3; i <= NF; i++) if (\$i !~ /^[01]:/ && \$i != \"unknown\" && \$i != \"kernel\") bad = 1 } END { exit bad }'"
check "merge --keep: the profile still converts for hot" \
	sh -c "'$PGOPROF' convert -q '$D/keep.raw' --binary hot --format llvm-text | grep -q '^hot_loop:'"

# an ID that names nothing: exit 1, no output
"$PGOPROF" merge --keep cafecafecafe -o "$D/bad.raw" "$D/all.raw" 2>"$D/bad.err"
rc=$?
check "merge --keep of no object: exit 1 ($rc), no file" sh -c "[ $rc = 1 ] && [ ! -e '$D/bad.raw' ]"
check "merge --keep of no object: says so" grep -q 'has no object with this build-ID' "$D/bad.err"
