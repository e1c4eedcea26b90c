#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ci/layers.sh: this tree keeps its layers (a sub-folder such as
# import/perfdata/ being of its folder's layer), and on a copy of the
# sources an include that goes up a layer, sideways, or into bpf/ fails,
# naming the file, the line and the include; a generated header does not
# count.
. "$(dirname "$0")/../lib.sh"
T=$WORK/layers
LAYERS="$TOP/ci/layers.sh"

check "the tree's includes go down the layers" sh "$LAYERS" "$TOP"

# fresh: a copy of the layers' sources in $T/tree.
fresh() {
	rm -rf "$T" && mkdir -p "$T/tree" &&
	(cd "$TOP" && cp -R lib raw proc collector convert import report cli bpf qemu version.h "$T/tree/")
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

fresh && echo '#include "record.skel.h"' >>"$T/tree/proc/unwind.c"
check "a generated header (not in the tree) is not checked" sh "$LAYERS" "$T/tree"
rm -rf "$T"
