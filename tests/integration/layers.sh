#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ci/layers.sh: this tree keeps its layers (a sub-folder such as
# import/perfdata/ being of its folder's layer), and on a copy of the
# sources an include that goes up a layer, sideways, or into bpf/ fails,
# naming the file, the line and the include; a generated header does not
# count.  The order is layers.txt's alone: ci/layers.sh and layers.mk read it.
. "$(dirname "$0")/../lib.sh"
T=$WORK/layers
LAYERS="$TOP/ci/layers.sh"

check "the tree's includes go down the layers" sh "$LAYERS" "$TOP"

# The ranked directories, low to high.
RANKED=$(sed 's/#.*//' "$TOP/layers.txt")

# fresh: a copy of the layers' sources (every ranked directory, bpf/,
# qemu/) and layers.txt in $T/tree.
fresh() {
	rm -rf "$T" && mkdir -p "$T/tree" &&
	# shellcheck disable=SC2086
	(cd "$TOP" && cp -R $RANKED bpf qemu version.h layers.txt "$T/tree/")
}

# bad NAME FILE INCLUDE: FILE gets a last line #include "INCLUDE";
# ci/layers.sh must exit 1 with a line FILE:LINE: includes "INCLUDE".
bad() {
	fresh || { fail "$1" "cannot copy the sources"; return; }
	echo "#include \"$3\"" >>"$T/tree/$2"
	n=$(wc -l <"$T/tree/$2")
	sh "$LAYERS" "$T/tree" >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -qF "$2:$n: includes \"$3\"" "$T/out"; then
		pass "$1"
	else
		fail "$1" "status $rc: $(head -n 3 "$T/out" | tr '\n' ' ')"
	fi
}

bad "a lower layer including a higher one fails (raw -> cli)" raw/rawprof.h ../cli/cmds.h
bad "proc including collector fails" proc/mappings.c ../collector/stacktab.h
bad "same-rank layers fail (convert -> import)" convert/lbr.c ../import/samples.h
bad "a sub-folder is of its layer (import/perfdata -> collector fails)" \
	import/perfdata/sample.c ../../collector/stacktab.h
bad "bpf/ outside collector and proc fails (import -> bpf)" import/perfscript/records.c ../../bpf/record.h
bad "bpf/ including user space fails" bpf/record.h ../raw/rawprof.h
bad "qemu/ outside import fails (convert -> qemu)" convert/convert.c ../qemu/count.h
bad "qemu/ including pgoprof fails" qemu/count.h ../raw/rawprof.h
bad "synth including report fails" synth/walk.c ../report/funcs.h

# The order is read from layers.txt: with raw/ and proc/ swapped there,
# proc's include of raw/ goes up.
fresh && awk '{ if ($1 == "raw") $1 = "proc"; else if ($1 == "proc") $1 = "raw"; print }' \
	"$TOP/layers.txt" >"$T/tree/layers.txt"
sh "$LAYERS" "$T/tree" >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q '^proc/mappings.h:[0-9]*: includes "../raw/' "$T/out"; then
	pass "the ranks are layers.txt's (raw and proc swapped: proc -> raw fails)"
else
	fail "the ranks are layers.txt's (raw and proc swapped: proc -> raw fails)" \
	     "status $rc: $(head -n 2 "$T/out" | tr '\n' ' ')"
fi

# layers.mk links the archives in layers.txt's order, highest first, the
# directories of one rank as listed.
printf 'include layers.mk\nall:\n\t@echo $(LAYERS)\n' >"$T/print.mk"
printf '# low\nlow\nmid1 mid2  # one rank\n\nhigh\n' >"$T/layers.txt"
got=$(cd "$TOP" && make -s -f "$T/print.mk" LAYERS_FILE="$T/layers.txt")
check "layers.mk reads a layers file: high mid1 mid2 low" test "$got" = "high mid1 mid2 low"
got=$(cd "$TOP" && make -s -f "$T/print.mk")
want=$(sed 's/#.*//' "$TOP/layers.txt" |
       awk 'NF { $1 = $1; l[n++] = $0 } END { while (n--) printf "%s%s", l[n], n ? " " : "\n" }')
check "layers.mk: the layers of layers.txt, highest first ($want)" test "$got" = "$want"

fresh && echo '#include "record.skel.h"' >>"$T/tree/proc/unwind.c"
check "a generated header (not in the tree) is not checked" sh "$LAYERS" "$T/tree"
rm -rf "$T"
