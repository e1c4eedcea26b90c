#!/bin/bash
# Conversion speed: pgoprof convert vs llvm-profgen-16 on the same
# synthesized branch-record samples of speedtest1, and pgoprof convert on
# synthesized stack samples, at growing sizes.  Wall time, peak RSS
# (/usr/bin/time -v) and samples/s, ratios against the peer in the same
# round, and the slope of log(time) and log(RSS) vs log(samples).
set -eu

usage() {
    cat <<USAGE
Usage: $0 [-s SIZES] [-S STACK_SIZES] [-r RUNS] [-R BIG_RUNS] [-o OUT.md]

  -s SIZES        branch-record sample counts (default 10000,100000,1000000)
  -S SIZES        stack sample counts (default 10000,100000,1000000,10000000)
  -r RUNS         interleaved rounds per size below 10^6 (default 3)
  -R RUNS         rounds at 10^6 samples and above (default 3)
  -o OUT          Markdown output (default bench/results/convert-speed.md; - = stdout)

Branch records come from build/tests/test_lbr --gen (a random walk over
speedtest1's code, written as perf-script text for llvm-profgen and as a
raw profile for pgoprof; 10^6 samples = 1.2 GB of text).  Stack samples
come from a small generator built from the C source below (stackgen).
Inputs are cached in bench/work/conv/.
USAGE
}

SIZES=10000,100000,1000000 SSIZES=10000,100000,1000000,10000000 RUNS=3 BIGRUNS=3
HERE=$(cd "$(dirname "$0")" && pwd) REPO=$(cd "$HERE/.." && pwd)
OUT=$REPO/bench/results/convert-speed.md
while getopts s:S:r:R:o:h o; do
    case $o in
        s) SIZES=$OPTARG ;; S) SSIZES=$OPTARG ;; r) RUNS=$OPTARG ;; R) BIGRUNS=$OPTARG ;;
        o) OUT=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
die() { echo "convert-speed: $*" >&2; exit 1; }
PROFGEN=/usr/lib/llvm-16/bin/llvm-profgen
[ -x "$PROFGEN" ] || die "llvm-profgen-16 missing (apt-get install llvm-16)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
W=$REPO/bench/work/conv
mkdir -p "$W"
B=$W/speedtest1
[ -x "$B" ] || "$HERE/build-speedtest.sh" "$B" clang-16 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer >&2
make -s -C "$REPO" pgoprof build/tests/test_lbr >&2
TEST_LBR=$REPO/build/tests/test_lbr

# --- stack-sample generator -------------------------------------------------
cat >"$W/stackgen.c" <<'EOF'
/* Synthesize a stack-mode raw profile of N samples for BINARY.  Capstone
 * decodes .text.  A sample is a stack of 1..8 frames: the outermost return
 * address is drawn skewed (n*u^3, so some code is hot), each call site
 * calls one fixed function (a hash of the site), and inside it the next
 * frame is one of its call sites or, at the end, the leaf: one of its
 * instructions.  So stacks are consistent, edges are bounded by the call
 * sites, and distinct IPs grow sublinearly with N as in real profiles.
 * Usage: stackgen BINARY N SEED OUT.raw */
#include "raw/rawprof.h"
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rs;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double unif(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }
static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
/* first index with a[i] >= x */
static size_t lower(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { size_t m = (lo + hi) / 2; if (a[m] < x) lo = m + 1; else hi = m; }
	return lo;
}

int main(int argc, char **argv)
{
	if (argc != 5) { fprintf(stderr, "usage: stackgen BINARY N SEED OUT.raw\n"); return 2; }
	uint64_t n = strtoull(argv[2], 0, 10);
	rs = strtoull(argv[3], 0, 10) * 2654435761u + 88172645463325252ull;
	elf_version(EV_CURRENT);
	int fd = open(argv[1], O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) { perror(argv[1]); return 1; }
	size_t shstr; elf_getshdrstrndx(e, &shstr);
	Elf_Scn *s = NULL; GElf_Shdr sh;
	uint8_t bid[64]; uint32_t bidlen = 0;
	uint64_t *ins = NULL, *rets = NULL, *fent = NULL, taddr = 0, toff = 0;
	size_t nins = 0, nrets = 0, nf = 0;
	while ((s = elf_nextscn(e, s))) {
		gelf_getshdr(s, &sh);
		const char *nm = elf_strptr(e, shstr, sh.sh_name);
		Elf_Data *d = elf_getdata(s, NULL);
		if (sh.sh_type == SHT_NOTE && !strcmp(nm, ".note.gnu.build-id")) {
			GElf_Nhdr nh; size_t no, doff, off = 0;
			while ((off = gelf_getnote(d, off, &nh, &no, &doff)))
				if (nh.n_type == NT_GNU_BUILD_ID) { bidlen = nh.n_descsz; memcpy(bid, (char *)d->d_buf + doff, bidlen); }
		} else if (sh.sh_type == SHT_SYMTAB) {
			size_t cnt = sh.sh_size / sh.sh_entsize;
			fent = malloc(cnt * sizeof *fent);
			for (size_t i = 0; i < cnt; i++) {
				GElf_Sym sym; gelf_getsym(d, i, &sym);
				if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value && sym.st_size)
					fent[nf++] = sym.st_value;
			}
		} else if (!strcmp(nm, ".text")) {
			csh h; cs_insn *in;
			cs_open(CS_ARCH_X86, CS_MODE_64, &h);
			cs_option(h, CS_OPT_SKIPDATA, CS_OPT_ON);
			ins = malloc(sh.sh_size * sizeof *ins); rets = malloc(sh.sh_size * sizeof *rets);
			const uint8_t *code = d->d_buf; size_t len = sh.sh_size; uint64_t a = sh.sh_addr;
			taddr = sh.sh_addr; toff = sh.sh_offset;
			in = cs_malloc(h);
			while (cs_disasm_iter(h, &code, &len, &a, in)) {
				uint64_t off = in->address - sh.sh_addr + sh.sh_offset;
				ins[nins++] = off;
				if (!strncmp(in->mnemonic, "call", 4)) rets[nrets++] = off + in->size;
			}
			cs_free(in, 1); cs_close(&h);
		}
	}
	if (!bidlen || !nins || !nrets || !nf) { fprintf(stderr, "stackgen: no build-id/text/calls/symbols\n"); return 1; }
	for (size_t i = 0; i < nf; i++) fent[i] = fent[i] - taddr + toff;	/* all in .text */
	qsort(fent, nf, sizeof *fent, cmp64);
	struct raw_profile p; raw_init(&p);
	raw_set_meta(&p, "event", "cpu-clock");
	uint32_t oi = raw_object(&p, bid, bidlen, argv[1]);
	for (uint64_t k = 0; k < n; k++) {
		double v = unif();
		uint64_t r = rets[(size_t)(nrets * v * v * v)], leaf = 0;
		int depth = 1 + rnd() % 8;
		for (int j = 0; j < depth; j++) {
			size_t fi = (size_t)((r * 0x9e3779b97f4a7c15ull) >> 17) % nf;
			uint64_t f = fent[fi], fend = fi + 1 < nf ? fent[fi + 1] : ~0ull;
			raw_add_edge(&p.objs[oi], r, oi, f, 1);
			size_t c0 = lower(rets, nrets, f), c1 = lower(rets, nrets, fend);
			if (j == depth - 1 || c0 == c1) {
				size_t i0 = lower(ins, nins, f), i1 = lower(ins, nins, fend);
				leaf = i1 > i0 ? ins[i0 + rnd() % (i1 - i0)] : f;
				break;
			}
			r = rets[c0 + rnd() % (c1 - c0)];
		}
		raw_add_ip(&p.objs[oi], leaf, 1);
		if ((k & 0xfffff) == 0xfffff) raw_normalize(&p);
	}
	raw_add_counter(&p, CNT_SAMPLES, n);
	raw_normalize(&p);
	fprintf(stderr, "stackgen: %zu samples: %zu distinct ips, %zu edges\n",
		(size_t)n, p.objs[oi].nips, p.objs[oi].nedges);
	return raw_write_file(&p, argv[4]) ? 1 : 0;
}
EOF
SG=$W/stackgen
if [ ! -x "$SG" ] || [ "$W/stackgen.c" -nt "$SG" ]; then
    gcc -O2 -I"$REPO" -o "$SG" "$W/stackgen.c" "$REPO"/build/raw/*.o "$REPO"/build/lib/*.o \
        -lelf -lcapstone -lz
fi

# --- measuring ------------------------------------------------------------
# one timed run: prints "wall_s maxrss_kb"
timed() {
    local log=$W/time.log
    /usr/bin/time -v -o "$log" "$@" >"$W/cmd.log" 2>&1 || { cat "$W/cmd.log" >&2; die "failed: $*"; }
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
                    for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
                /Maximum resident set size/ { m = $2 }
                END { printf "%.3f %d\n", w, m }' "$log"
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# slope of log(y) vs log(x) from lines "x y"
slope() { awk '{ x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
               END { if (n < 2) { print "n/a"; exit } printf "%.2f\n", (n * sxy - sx * sy) / (n * sxx - sx * sx) }'; }
fmt_n() { awk -v n="$1" 'BEGIN { e = int(log(n) / log(10) + 1e-9); if (10 ^ e == n) printf "10^%d", e; else print n }'; }

R=$W/results.txt
: >"$R"
IFS=, read -ra LS <<<"$SIZES"
IFS=, read -ra SS <<<"$SSIZES"
for n in "${LS[@]}"; do
    d=$W/lbr-$n
    if [ ! -s "$d/lbr.raw" ] || [ ! -s "$d/perf.txt" ]; then
        echo "convert-speed: generating $n branch-record samples" >&2
        mkdir -p "$d"; "$TEST_LBR" --gen "$B" "$n" 1 "$d" >&2
    fi
    runs=$RUNS; [ "$n" -ge 1000000 ] && runs=$BIGRUNS
    for ((i = 0; i < runs; i++)); do
        for t in $( ((i % 2)) && echo "profgen ours" || echo "ours profgen"); do
            if [ "$t" = ours ]; then
                r=$(timed "$REPO/pgoprof" convert "$d/lbr.raw" --binary "$B" -f llvm-text -o "$W/ours.txt")
            else
                r=$(timed "$PROFGEN" --binary "$B" --perfscript "$d/perf.txt" --format=text --output "$W/ref.txt")
            fi
            echo "lbr $t $n $i $r" >>"$R"; echo "  lbr $t n=$n round $i: $r" >&2
        done
    done
done
for n in "${SS[@]}"; do
    f=$W/stack-$n.raw
    [ -s "$f" ] || "$SG" "$B" "$n" 1 "$f" 2>"$f.info"
    runs=$RUNS; [ "$n" -ge 1000000 ] && runs=$BIGRUNS; [ "$runs" -lt 3 ] && runs=3
    for ((i = 0; i < runs; i++)); do
        r=$(timed "$REPO/pgoprof" convert "$f" --binary "$B" -f llvm-text -o "$W/ours-stack.txt")
        echo "stack ours $n $i $r" >>"$R"; echo "  stack n=$n round $i: $r" >&2
    done
done

# --- table ----------------------------------------------------------------
col() { awk -v k="$1" -v t="$2" -v n="$3" -v c="$4" '$1 == k && $2 == t && $3 == n { print $c }' "$R" | median; }
{
echo "## Conversion speed (bench/convert-speed.sh)"
echo
echo "Binary: speedtest1 (sqlite $(cat "$REPO/bench/work/sqlite/src/VERSION" 2>/dev/null || echo '?'); clang-16 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer; $(stat -c %s "$B") bytes). $(date -u +%F), $(nproc) CPUs shared with other jobs: wall times are medians of interleaved rounds (order alternating); peak RSS from /usr/bin/time -v."
echo
echo "### Branch records: pgoprof convert vs llvm-profgen-16 (same samples)"
echo
echo "Samples: random walk over speedtest1's code (build/tests/test_lbr --gen BINARY N 1 DIR), 32 branches each; raw profile for pgoprof, perf-script text for llvm-profgen. Rounds: $RUNS below 10^6, $BIGRUNS at 10^6 and above. Not like for like in one respect: the raw profile is already aggregated (distinct ranges and branches with counts, as pgoprof record writes it), while llvm-profgen parses and aggregates every sample of the perf-script text; that is the cost each pipeline leaves to its converter. 10^7 samples not run: test_lbr --gen (an ASan build) takes ~5 min per 10^6 samples and the text would be 12 GB."
echo
echo "| samples | input (raw / perf-script) | pgoprof wall s | llvm-profgen wall s | time ratio (pgoprof/profgen) | pgoprof RSS MB | profgen RSS MB | RSS ratio | pgoprof samples/s | profgen samples/s | throughput ratio |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${LS[@]}"; do
    d=$W/lbr-$n
    tw=$(col lbr ours "$n" 5) pw=$(col lbr profgen "$n" 5) tm=$(col lbr ours "$n" 6) pm=$(col lbr profgen "$n" 6)
    awk -v n="$n" -v nn="$(fmt_n "$n")" -v tw="$tw" -v pw="$pw" -v tm="$tm" -v pm="$pm" \
        -v rs="$(stat -c %s "$d/lbr.raw")" -v ps="$(stat -c %s "$d/perf.txt")" 'BEGIN {
        printf "| %s | %.1f MB / %.0f MB | %.2f | %.2f | %.3f | %.0f | %.0f | %.2f | %.3g | %.3g | %.1fx |\n",
            nn, rs / 1e6, ps / 1e6, tw, pw, tw / pw, tm / 1024, pm / 1024, tm / pm, n / tw, n / pw, pw / tw }'
done
echo
echo "Same output? At $(fmt_n "${LS[-1]}") samples the two LLVM text profiles have $(wc -l <"$W/ours.txt") and $(wc -l <"$W/ref.txt") lines, $(diff "$W/ours.txt" "$W/ref.txt" | grep -c '^<' || true) of them differing (tests/unit/test_lbr.c: call targets in libc, which llvm-profgen cannot see)."
echo
echo "Growth, slope of log(y) vs log(samples) (1 = linear):"
echo
echo "| tool | wall time | peak RSS |"
echo "|---|---:|---:|"
for t in ours profgen; do
    st=$(for n in "${LS[@]}"; do echo "$n $(col lbr $t "$n" 5)"; done | slope)
    sm=$(for n in "${LS[@]}"; do echo "$n $(col lbr $t "$n" 6)"; done | slope)
    echo "| $([ $t = ours ] && echo 'pgoprof convert' || echo 'llvm-profgen-16') | $st | $sm |"
done
echo
echo "### Stack samples: pgoprof convert only"
echo
echo "No peer: llvm-profgen-16 makes no profile without branch records. Samples: synthesized stack raw profiles (stackgen in this script: consistent stacks of 1-8 frames, skewed toward hot code). A raw profile is aggregated, so its size and the convert cost follow the distinct IPs and edges, not the sample count. At least 3 rounds each."
echo
echo "| samples | distinct IPs | edges | raw MB | wall s | peak RSS MB | samples/s |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in "${SS[@]}"; do
    f=$W/stack-$n.raw
    read -r ips eds < <(sed -n 's/.*: \([0-9]*\) distinct ips, \([0-9]*\) edges/\1 \2/p' "$f.info")
    awk -v nn="$(fmt_n "$n")" -v n="$n" -v w="$(col stack ours "$n" 5)" -v m="$(col stack ours "$n" 6)" \
        -v ips="${ips:-?}" -v eds="${eds:-?}" -v sz="$(stat -c %s "$f")" 'BEGIN {
        printf "| %s | %s | %s | %.1f | %.2f | %.0f | %.3g |\n", nn, ips, eds, sz / 1e6, w, m / 1024, n / w }'
done
echo
echo "Slope of log(wall) vs log(samples): $(for n in "${SS[@]}"; do echo "$n $(col stack ours "$n" 5)"; done | slope); of log(peak RSS): $(for n in "${SS[@]}"; do echo "$n $(col stack ours "$n" 6)"; done | slope); of log(wall) vs log(distinct IPs + edges): $(for n in "${SS[@]}"; do sed -n 's/.*: \([0-9]*\) distinct ips, \([0-9]*\) edges/\1 \2/p' "$W/stack-$n.raw.info" | awk -v w="$(col stack ours "$n" 5)" '{ print $1 + $2, w }'; done | slope)."
} >"$W/table.md"
if [ "$OUT" = - ]; then cat "$W/table.md"; else mkdir -p "$(dirname "$OUT")"; cp "$W/table.md" "$OUT"; cat "$OUT"; fi
