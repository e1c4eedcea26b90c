#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every counter name and META key that the code writes into a raw profile
# is documented in docs/raw-format.md (as `NAME`, section 5), read from
# the sources, not from profiles that happen to have them: the calls of
# the writers (raw_add_counter, raw_add_unattributed, raw_set_meta and
# their wrappers) in every layer's sources (layers.txt).  A name is an
# argument's string literals, with the tree's #define NAME "..." and
# tables (NAME[] = { "...", ... }) expanded, the "unattributed." that
# raw_add_unattributed puts before its reason, and the PREFIX%s names
# that snprintf(name, ...) builds from a table.  A call whose name the
# rules cannot read fails, unless it is one of FORWARD's: the writers
# themselves, the reader and merge, which pass names on.
. "$(dirname "$0")/../lib.sh"
T=$WORK/raw_names
rm -rf "$T" && mkdir -p "$T" || exit 1
DOC=$TOP/docs/raw-format.md

# FILE ARGUMENT: a call of a writer whose name argument is a variable
# that holds names read elsewhere (or built by a snprintf the rules read).
FORWARD='
raw/rawprof.c name
raw/rawprof.c kv->key
raw/rawprof.c src->counters[i].name
raw/rawio.c name
raw/rawio.c k
import/samples.c name
import/samples.c reason
import/qemucount.c name
import/callgrind.c name
import/perfdata.c name
collector/dwarfcg.c name
'
# Names the rules read that no code writes, with why.
NEVER='
unattributed.none  unattr_name[UNATTR_NONE]: the loops over the reasons start after it
'

# names: "KIND NAME FILE:LINE" for every name written (KIND counter or
# meta), "? EXPR FILE:LINE" for a call the rules cannot read.
names() {
	# shellcheck disable=SC2046
	(cd "$TOP" && awk -v fwd="$FORWARD" '
	BEGIN {
		n = split(fwd, l, "\n")
		for (i = 1; i <= n; i++)
			if (split(l[i], w, " ") == 2) forward[w[1] " " w[2]] = 1
		W["raw_add_counter"] = "counter"; W["samples_count"] = "counter"
		W["counter"] = "counter"; W["raw_set_meta"] = "meta"
		W["raw_add_unattributed"] = "unattr"; W["count_unattributed"] = "unattr"
	}
	{ src[FILENAME] = src[FILENAME] $0 "\n" }
	# #define NAME "literal"
	/^#define [A-Za-z_0-9]+[ \t]+"[^"]*"/ {
		v = $0; sub(/^[^"]*"/, "", v); sub(/".*/, "", v); macro[$2] = v
	}
	# the literals of NAME[...] = { ... } (a table of names)
	/^(static )?const char \*const [a-z_]+\[[A-Z_]*\] = \{/ {
		t = $0; sub(/\[.*/, "", t); sub(/.* /, "", t); intab = t; tab[t] = ""
	}
	intab != "" {
		s = $0
		while (match(s, /"[^"]*"/)) {
			tab[intab] = tab[intab] " " substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
		if ($0 ~ /};/) intab = ""
	}
	# The string values of an expression: literals and macros joined,
	# the alternatives of ?: separated by a space; a table reference is
	# every name of the table; "" if something else is in it.
	function values(e,    out, cur, tok, ok, t, r) {
		out = ""; cur = ""; ok = 0
		gsub(/^[ \t\n]+|[ \t\n]+$/, "", e)
		if (e ~ /^[a-z_]+\[[^]]*\]$/) {
			t = e; sub(/\[.*/, "", t)
			return t in tab ? substr(tab[t], 2) : ""
		}
		if (e ~ /\?/) { sub(/^[^?]*\?/, "", e); split(e, r, ":")
			return values(r[1]) " " values(r[2]) }
		while (e != "") {
			sub(/^[ \t\n]+/, "", e)
			if (match(e, /^"[^"]*"/)) { cur = cur substr(e, 2, RLENGTH - 2); ok = 1 }
			else if (match(e, /^[A-Z_][A-Z_0-9]*/) && (substr(e, 1, RLENGTH) in macro)) {
				cur = cur macro[substr(e, 1, RLENGTH)]; ok = 1 }
			else return ""
			e = substr(e, RLENGTH + 1)
		}
		return ok ? cur : ""
	}
	# The arguments of the call whose "(" is at s[p], split at top-level
	# commas into a[1..]; returns their number.
	function args(s, p, a,    d, i, c, n, instr) {
		d = 0; n = 1; a[1] = ""; instr = 0
		for (i = p + 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (instr) { a[n] = a[n] c; if (c == "\"" && substr(s, i - 1, 1) != "\\") instr = 0; continue }
			if (c == "\"") instr = 1
			if (c == "(") d++
			if (c == ")" && d-- == 0) return n
			if (c == "," && d == 0) { a[++n] = ""; continue }
			a[n] = a[n] c
		}
		return n
	}
	function lineof(s, p,    t) { t = substr(s, 1, p); return gsub(/\n/, "", t) + 1 }
	function emit(kind, v, where,    k, m, x) {
		m = split(v, x, " ")
		for (k = 1; k <= m; k++) print kind, x[k], where
	}
	END {
		for (f in src) {
			s = src[f]; off = 0
			while (match(s, /[^A-Za-z_0-9>.](raw_add_counter|samples_count|counter|raw_set_meta|raw_add_unattributed|count_unattributed|snprintf)\(/)) {
				fn = substr(s, RSTART + 1, RLENGTH - 2)
				p = RSTART + RLENGTH - 1
				pre = substr(s, 1, RSTART); sub(/.*\n/, "", pre)
				where = f ":" lineof(src[f], off + p)
				n = args(s, p, a)
				s = substr(s, p + 1); off += p
				if (pre ~ /(void|int|char|uint64_t)[ \t*]*$/ || pre ~ /^[a-z]/)
					continue	# a declaration or definition
				if (fn == "snprintf") {
					# snprintf(name, sizeof(name), "PREFIX%s", TABLE[i])
					if (a[1] != "name" || n != 4) continue
					fmt = values(a[3]); v = values(a[4])
					if (fmt !~ /^[a-z_.]+%s$/ || v == "") continue
					sub(/%s$/, "", fmt); m = split(v, x, " ")
					for (k = 1; k <= m; k++) print "counter", fmt x[k], where
					continue
				}
				e = a[2]; gsub(/^[ \t\n]+|[ \t\n]+$/, "", e)
				v = values(e)
				if (v == "") {
					if (!((f " " e) in forward)) print "?", e, where
					continue
				}
				if (W[fn] == "unattr") {
					m = split(v, x, " "); v = ""
					for (k = 1; k <= m; k++) v = v " unattributed." x[k]
				}
				emit(W[fn] == "meta" ? "meta" : "counter", v, where)
			}
		}
	}' $(for d in $(sed 's/#.*//' layers.txt); do ls "$d"/*.c "$d"/*.h; done) qemu/count.h)
}

names >"$T/all" || { fail "raw names: read the sources"; exit 0; }
# The rules must find what is known to be written, else they read nothing.
for want in "counter samples.taken" "counter unattributed.no_mapping" \
	    "counter unwind.fp_end" "counter instructions.unattributed.valgrind" \
	    "counter instructions.unattributed.anonymous" "counter ranges.unattributed" \
	    "meta signal" "meta sample_freq" "meta sample_period"; do
	grep -q "^$want " "$T/all" || fail "raw names: the rules find $want" "not found"
done
if grep '^? ' "$T/all" >"$T/unread"; then
	fail "raw names: every writer's name is read" \
	     "$(sed 's/^? \(.*\) \(.*\)/\2: \1/' "$T/unread" | tr '\n' ' ')(a new way of naming: teach the test, or FORWARD)"
else
	pass "raw names: every writer's name is read ($(wc -l <"$T/all") calls)"
fi
for kind in counter meta; do
	missing=
	for name in $(awk -v k=$kind '$1 == k { print $2 }' "$T/all" | sort -u); do
		printf '%s\n' "$NEVER" | grep -q "^$name " && continue
		grep -qF "\`$name\`" "$DOC" && continue
		missing="$missing $name ($(awk -v k=$kind -v n="$name" '$1 == k && $2 == n { print $3; exit }' "$T/all"))"
	done
	if [ -z "$missing" ]; then
		pass "raw names: every $kind written is in docs/raw-format.md ($(awk -v k=$kind '$1 == k { print $2 }' "$T/all" | sort -u | wc -l) names)"
	else
		fail "raw names: every $kind written is in docs/raw-format.md" "not documented:$missing"
	fi
done
[ -n "${KEEP:-}" ] || rm -rf "$T"
