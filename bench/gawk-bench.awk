# SPDX-License-Identifier: GPL-2.0-only
# A text-processing benchmark for gawk (bench/quality.sh's gawk workload):
# word and identifier counts, log-line fields, regular expressions,
# gsub/sprintf/substr, and sorted reports at the end.  Its output depends
# on the input only (no time, no rand, no addresses), so every build of
# gawk prints the same bytes for one input:
#   gawk -f bench/gawk-bench.awk FILE...
{
    nlines++
    nchars += length($0) + 1
    nfields += NF
    lenhist[int(length($0) / 8)]++
    for (i = 1; i <= NF; i++) {
        w = tolower($i)
        gsub(/[^a-z0-9_]+/, "", w)
        if (w != "") {
            words[w]++
            if (length(w) > 2)
                suffix[substr(w, length(w) - 1)]++
        }
    }
    # identifiers and numbers, by repeated match()
    s = $0
    while (match(s, /[A-Za-z_][A-Za-z0-9_]*|[0-9]+/)) {
        t = substr(s, RSTART, RLENGTH)
        if (t ~ /^[0-9]/)
            numsum += t % 1000003
        else if (RLENGTH > 3)
            ident[substr(t, 1, 4)]++
        s = substr(s, RSTART + RLENGTH)
    }
    # log lines: per host and status
    if (match($0, /^([0-9]+)-([0-9]+)-([0-9]+) ([0-9]+):([0-9]+):([0-9]+) (host[0-9]+) pid=([0-9]+) status=([0-9]+) bytes=([0-9]+)/, m)) {
        hostbytes[m[7]] += m[10]
        hostreq[m[7]]++
        status[m[9]]++
        hour[m[4] + 0]++
        month[sprintf("%02d", m[2])] += m[10] / 1024
    }
    # punctuation and a rewritten line
    np = gsub(/[.,;:?!(){}\[\]]/, "&", $0)
    punct += np
    if (NR % 7 == 0) {
        r = $0
        gsub(/[aeiou]/, "", r)
        sub(/^[ \t]+/, "", r)
        rw = rw + length(r)
        if (NR % 1001 == 0)
            sample[NR] = toupper(substr(r, 1, 24))
    }
    n = split($0, parts, /[ \t]+/)
    if (n > maxparts) maxparts = n
}

function top(arr, k, title,    key, i) {
    printf "%s:\n", title
    PROCINFO["sorted_in"] = "@val_num_desc"
    i = 0
    for (key in arr) {
        if (++i > k) break
        printf "  %-24s %10d\n", key, arr[key]
    }
    delete PROCINFO["sorted_in"]
}

END {
    printf "lines %d chars %d fields %d punct %d maxparts %d rewritten %d\n",
        nlines, nchars, nfields, punct, maxparts, rw
    printf "distinct words %d identifiers %d numbers mod sum %d\n",
        length(words), length(ident), numsum
    top(words, 25, "words")
    top(suffix, 10, "suffixes")
    top(ident, 10, "identifier prefixes")
    top(hostreq, 5, "hosts by requests")
    PROCINFO["sorted_in"] = "@ind_num_asc"
    for (h in hour) printf "hour %02d %d\n", h, hour[h]
    for (b in lenhist) printf "len %3d-%3d %d\n", b * 8, b * 8 + 7, lenhist[b]
    PROCINFO["sorted_in"] = "@ind_str_asc"
    for (s in status) printf "status %s %d\n", s, status[s]
    for (x in month) printf "month %s %.3f KiB\n", x, month[x]
    for (x in hostbytes) tb += hostbytes[x]
    printf "bytes %d mean %.2f\n", tb, length(hostreq) ? tb / length(hostreq) : 0
    PROCINFO["sorted_in"] = "@ind_num_asc"
    for (x in sample) printf "sample %d %s\n", x, sample[x]
    nw = asorti(words, sorted)
    for (i = 1; i <= nw; i += int(nw / 20) + 1)
        printf "word %d %s\n", i, sorted[i]
}
