#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Messages that used to mislead: a weight above 2^64-1, counts that
# saturate in a weighted merge, a directory given as the ELF file, and
# damaged ELF files (each message names the file and the damaged part).
. "$(dirname "$0")/../lib.sh"

need_root messages || exit 0
build_workloads || { fail build_workloads "clang-16 could not build tests/workloads"; exit 0; }
mkdir -p "$WORK/messages" && cd "$WORK/messages" || exit 1
rm -rf ./*
"$PGOPROF" record -q -o hot.raw -- ../hot 1 >/dev/null 2>record.err ||
	{ fail "record" "$(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }

# says NAME STATUS LINE COMMAND...: COMMAND exits with STATUS and prints
# exactly LINE on stderr.
says() {
	name=$1 status=$2 line=$3; shift 3
	"$@" >/dev/null 2>err.txt; rc=$?
	if [ $rc = "$status" ] && [ "$(cat err.txt)" = "$line" ]; then pass "$name"
	else fail "$name" "rc=$rc (want $status), said: $(cat err.txt | tr '\n' '|') want: $line"; fi
}

# --weight above 2^64-1: strtoull saturated it silently.
says "merge -w above 2^64-1: refused" 2 \
	"pgoprof merge: --weight hot.raw=18446744073709551616: N is above 2^64-1 (18446744073709551615), the largest count: give a smaller weight" \
	"$PGOPROF" merge -w hot.raw=18446744073709551616 -o big.raw hot.raw
check "merge -w above 2^64-1: no output" test ! -e big.raw

# Counts that overflow: saturated at 2^64-1 (never wrapped), and said.
says "raw merge: saturated counts are reported" 0 \
	"pgoprof merge: warning: sat.raw: $(
	"$PGOPROF" show hot.raw | awk '$1 == "counter" && $4 > 0 || $1 == "ip" || $1 == "edge" || $1 == "stack" { n++ } END { print n }'
	) counts reached 2^64-1 with the weights given and stopped there (saturated, not wrapped): their ratios to other counts are wrong; merge with smaller weights" \
	"$PGOPROF" merge -w hot.raw=18446744073709551615 -o sat.raw hot.raw hot.raw
check "raw merge: every IP count is 2^64-1" sh -c \
	"'$PGOPROF' show sat.raw | awk '\$1 == \"ip\" && \$3 != \"18446744073709551615\" { bad = 1 } END { exit bad }'"
says "raw merge without overflow: no warning" 0 "" \
	"$PGOPROF" merge -w hot.raw=1000 -o ok.raw hot.raw hot.raw
printf 'main:100:10\n 1: 50\n 2: 50 leaf:30\n' >p.txt
says "profile merge: saturated counts are reported" 0 \
	"pgoprof merge: warning: sat.txt: 5 counts reached 2^64-1 with the weights given and stopped there (saturated, not wrapped): their ratios to other counts are wrong; merge with smaller weights" \
	"$PGOPROF" merge -w p.txt=4611686018427387904 -o sat.txt p.txt p.txt
check "profile merge: saturated, not wrapped" grep -q '^main:18446744073709551615:18446744073709551615$' sat.txt

# A directory where the ELF file belongs: libdwfl said "invalid file
# descriptor".
mkdir -p dir
says "convert --binary DIR" 1 "pgoprof convert: dir is a directory: give the ELF file" \
	"$PGOPROF" convert hot.raw --binary dir -o out.prof
says "convert --debug-binary DIR" 1 "pgoprof convert: dir is a directory: give the ELF file" \
	"$PGOPROF" convert hot.raw --binary ../hot --debug-binary dir -o out.prof
says "check --binary DIR" 1 "pgoprof check: dir is a directory: give the ELF file" \
	"$PGOPROF" check --binary dir hot.raw
says "show --binary DIR" 1 "pgoprof show: dir is a directory: give the ELF file" \
	"$PGOPROF" show hot.raw --binary dir

# Damaged ELF files: the file and the damaged part, not libelf's bare
# "invalid data" or a "no debug info" that sends the user to rebuild.
# patch FILE OFFSET HEX: the bytes HEX written at OFFSET of FILE.
patch() {
	printf "$(echo "$3" | awk '
	function nib(c) { return index("0123456789abcdef", c) - 1 }
	{ for (i = 1; i < length($0); i += 2) printf "\\%03o", nib(substr($0, i, 1)) * 16 + nib(substr($0, i + 1, 1)) }')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# The file offset of section $2 of $1, in decimal.
sec() { echo $((0x$(readelf -W -S "$1" | awk -v s="$2" '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == s { print $4; exit }'))); }
# The number in the line of readelf -h FILE that starts with FIELD.
header() { readelf -h "$1" | awk -F: -v f="$2" 'index($1, f) { split($2, a, " "); print a[1]; exit }'; }

shoff=$(header ../hot "Start of section headers") shnum=$(header ../hot "Number of section headers")
head -c 3000 ../hot >trunc
says "truncated ELF: its section header table lies past the end" 1 \
	"pgoprof convert: trunc: section header table: bytes $(printf '0x%x..0x%x' $shoff $((shoff + 64 * shnum))) lie past the end of the file (3000 bytes): truncated? give the whole ELF file" \
	"$PGOPROF" convert hot.raw --binary trunc -o out.prof
says "truncated ELF, show --binary" 1 \
	"pgoprof show: trunc: section header table: bytes $(printf '0x%x..0x%x' $shoff $((shoff + 64 * shnum))) lie past the end of the file (3000 bytes): truncated? give the whole ELF file" \
	"$PGOPROF" show hot.raw --binary trunc

cp ../hot phdr && patch phdr 32 00000000ffff0000	# e_phoff
says "ELF with a damaged e_phoff" 1 \
	"pgoprof convert: phdr: program header table: bytes 0xffff00000000..$(printf '0x%x' $((0xffff00000000 + 56 * $(header ../hot "Number of program headers")))) lie past the end of the file ($(wc -c <../hot) bytes): truncated? give the whole ELF file" \
	"$PGOPROF" convert hot.raw --binary phdr -o out.prof

cp ../hot abbrev && patch abbrev "$(sec abbrev .debug_abbrev)" ffffffffffffffff
says "ELF with damaged DWARF: the section and the DIE" 1 \
	"pgoprof convert: abbrev: section .debug_info: the children of the DIE at offset 0xc: invalid DWARF (libdw): the debug info is damaged; rebuild, or pass an undamaged --debug-binary FILE" \
	"$PGOPROF" convert hot.raw --binary abbrev -o out.prof

# Every sample then lacks a line: no profile is written (status 1).
cp ../hot lines && patch lines "$(sec lines .debug_line)" f0ffff7f
rm -f out.prof
"$PGOPROF" convert -q hot.raw --binary lines -o out.prof 2>err.txt
rc=$?
check "ELF with a damaged line table: one warning names .debug_line, then the error (rc=$rc): $(tr '\n' ' ' <err.txt)" \
	test $rc -eq 1 -a ! -e out.prof -a "$(cat err.txt)" = "pgoprof convert: warning: lines: section .debug_line: the line table of the unit at .debug_info offset 0xc: invalid .debug_line section (libdw): the samples of its functions have no line
pgoprof convert: no sample of lines could be given a function and a line (without -q: why): no profile written"

objcopy --compress-debug-sections=zlib ../hot zlib
cp zlib inflate && patch inflate $(($(sec inflate .debug_info) + 24)) ffffffffffffffff
says "ELF with a compressed section that does not inflate" 1 \
	"pgoprof convert: inflate: section .debug_info: inflating it: cannot decompress data (libelf)" \
	"$PGOPROF" convert hot.raw --binary inflate -o out.prof
says "the same file undamaged converts" 0 "" "$PGOPROF" convert -q hot.raw --binary zlib -o out.prof

# capstone that cannot be loaded (here a file where the library belongs,
# ahead in LD_LIBRARY_PATH): convert names the cause and fails, status 1
# (convert/insn.c returns the error; it used to exit there itself).
mkdir -p nocs && for v in 3 4 5 6; do : >nocs/libcapstone.so.$v; done
LD_LIBRARY_PATH=$PWD/nocs "$PGOPROF" convert hot.raw --binary ../hot -o nocs.prof 2>err.txt
rc=$?
if [ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && [ ! -e nocs.prof ] &&
   grep -q '^pgoprof convert: cannot load capstone, to decode instructions: .*nocs/libcapstone.so.[0-9]: ' err.txt
then pass "capstone missing: convert fails with one message"
else fail "capstone missing: convert fails with one message" "rc=$rc: $(tr '\n' '|' <err.txt)"; fi

# record -v: one line per start-up and teardown phase, in order, with the
# milliseconds since pgoprof-record started (bench/collector-startup.sh
# reads them).
"$PGOPROF" record -q -v -m stack --call-graph fp -o v.raw -- ../hot 1 >/dev/null 2>v.err
check "record -v: the phases, in order, times not decreasing" awk '
	BEGIN { n = split("mode chosen|BPF object opened|BPF loaded|fork tracepoint attached|side-band open|existing mappings read|rate decided|sampling armed|command started|target ended|last samples read|stacks collected|profile written|done", want, "|") }
	$1 == "pgoprof-record:" && $3 == "ms" { if (index($0, want[k + 1])) k++; if ($2 < last) bad = 1; last = $2 }
	END { exit !(k == n && !bad) }' v.err
