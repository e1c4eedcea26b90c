#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report/flame.c's SVG in a real browser (Debian's chromium, headless):
# the screenshot shows the hottest frame (hot_loop, 65% of the samples of
# tests/flamegen) in its fill colour where the SVG puts it, and on a page
# that loads the SVG, the frame's text is laid out, visible, as wide as
# its name and inside its frame; a click zooms the frame to the full
# width (the inline script), "Reset Zoom" undoes it.
. "$(dirname "$0")/../lib.sh"

D=$WORK/flame
rm -rf "$D"
mkdir -p "$D"

check flame_write "$BUILD/flamegen" "$D/flame.svg"
[ -s "$D/flame.svg" ] || exit 1
check flame_xml python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$D/flame.svg"

CHROMIUM=$(command -v chromium || command -v chromium-browser) || {
	echo "SKIP flame: chromium missing"
	exit 0
}

# One headless run, with nothing fetched from the network; a fresh profile.
browser() {
	_prof=$(mktemp -d)
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$_prof" --force-device-scale-factor=1 \
		--hide-scrollbars "$@" 2>>"$D/chromium.err"
	_rc=$?
	rm -rf "$_prof"
	return $_rc
}

# The hottest frame's rect, "X Y WIDTH HEIGHT R G B", read from the SVG.
python3 - "$D/flame.svg" >"$D/hot.txt" <<'EOF'
import re, sys
svg = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<g class="f"><title>hot_loop \(\d+ samples[^<]*</title><rect x="([\d.]+)" '
              r'y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
print(" ".join(m.groups()) if m else "none")
EOF
read -r HX HY HW HH HR HG HB <"$D/hot.txt"
if [ "$HX" = none ]; then
	fail flame_hot_frame "no hot_loop frame in the SVG"
	exit 1
fi

# The screenshot: a PNG decoded with zlib (no imaging library needed).
browser --screenshot="$D/shot.png" --window-size=1200,800 "file://$D/flame.svg" >"$D/shot.log"
check flame_screenshot python3 - "$D/shot.png" "$HX" "$HY" "$HW" "$HH" "$HR" "$HG" "$HB" <<'EOF'
import struct, sys, zlib

def png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])

w, h, px = png(sys.argv[1])
x, y, fw, fh = (float(v) for v in sys.argv[2:6])
fill = tuple(int(v) for v in sys.argv[6:9])
print("screenshot %dx%d, hot_loop at x %.1f y %.1f width %.1f, fill %s" % (w, h, x, y, fw, fill))
assert w >= 1200 and h >= y + fh, "screenshot smaller than the graph"
# The frame's right half (its text is on the left): its fill colour.
inside = [px(int(x + fw * i / 20), int(y + fh / 2)) for i in range(10, 19)]
inside += [px(int(x + fw * 3 / 4), int(y + fh * j / 6)) for j in range(1, 6)]
near = lambda p: all(abs(p[k] - fill[k]) <= 6 for k in range(3))
bad = [p for p in inside if not near(p)]
assert not bad, "hot_loop's pixels are not its fill %s: %s" % (fill, bad[:5])
# Not one colour all over: the background above the frames differs.
top = px(600, 5)
assert not near(top) and top != (0, 0, 0), "no background above the frames: %s" % (top,)
warm = sum(1 for yy in range(0, int(y + fh), 4) for xx in range(0, w, 8)
           if (lambda p: p[0] >= 205 and p[2] <= 60)(px(xx, yy)))
assert warm > 200, "only %d warm pixels" % warm
print("ok: hot_loop drawn in %s, %d warm pixels sampled" % (fill, warm))
EOF
cp "$OUT/last.log" "$D/screenshot-check.log"

# The DOM: a page loads the SVG (as a document, so the XML parser reads
# it and its script runs), measures hot_loop's text, clicks the frame
# and "Reset Zoom", and writes what it found into the page.
cat >"$D/measure.html" <<'EOF'
<!DOCTYPE html>
<html><body>
<iframe id="svg" src="flame.svg" width="1200" height="400"></iframe>
<pre id="result">not measured</pre>
<script>
window.addEventListener("load", function () {
  var out = document.getElementById("result"), d, g, t, r, bb, cs, z, u;
  function num(v) { return (+v).toFixed(1); }
  try {
    d = document.getElementById("svg").contentDocument;
    if (d.getElementsByTagName("parsererror").length) { out.textContent = "parsererror"; return; }
    g = Array.from(d.querySelectorAll("g.f")).find(function (g) {
      return g.firstChild.textContent.indexOf("hot_loop (") === 0; });
    t = g.querySelector("text"); r = g.querySelector("rect");
    bb = t.getBBox(); cs = d.defaultView.getComputedStyle(t);
    var res = ["frames=" + d.querySelectorAll("g.f").length, "text=" + t.textContent,
      "len=" + num(t.getComputedTextLength()), "bbox=" + [bb.x, bb.y, bb.width, bb.height].map(num).join(","),
      "rect=" + ["x", "y", "width", "height"].map(function (a) { return num(r.getAttribute(a)); }).join(","),
      "display=" + cs.display, "visibility=" + cs.visibility, "opacity=" + cs.opacity, "fill=" + cs.fill.replace(/ /g, "")];
    g.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    z = d.querySelector("g.f").parentNode.querySelectorAll("g.f");
    res.push("zoomed=" + num(r.getAttribute("x")) + "," + num(r.getAttribute("width")));
    res.push("hidden=" + Array.from(z).filter(function (e) { return e.style.display === "none"; }).length);
    d.getElementById("unzoom").dispatchEvent(new MouseEvent("click", { bubbles: true }));
    res.push("unzoomed=" + num(r.getAttribute("x")) + "," + num(r.getAttribute("width")));
    out.textContent = "RESULT " + res.join(" ");
  } catch (e) { out.textContent = "error " + e; }
});
</script>
</body></html>
EOF
browser --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom \
	"file://$D/measure.html" >"$D/dom.html"
RES=$(sed -n 's/.*<pre id="result">\(.*\)<\/pre>.*/\1/p' "$D/dom.html")
echo "measured: $RES"
field() { echo "$RES" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

case $RES in
RESULT*) pass flame_dom ;;
*) fail flame_dom "the page did not measure the SVG: ${RES:-$(tail -n 2 "$D/chromium.err" | tr '\n' ' ')}"
   exit 1 ;;
esac
# the 14 frames of tests/flamegen less "rare" (3 of 9753 samples: under 0.1%)
check flame_dom_frames [ "$(field frames)" = 13 ]
check flame_text [ "$(field text)" = hot_loop ]
check flame_text_visible [ "$(field display)" != none -a "$(field visibility)" = visible -a \
	"$(field opacity)" = 1 -a "$(field fill)" = "rgb(0,0,0)" ]
# laid out: as wide as its name, and inside its frame (flamegraph.pl's
# 0.59 em per character is an estimate; the real font may be wider)
check flame_text_width awk -v b="$(field bbox)" -v r="$(field rect)" -v l="$(field len)" 'BEGIN {
	split(b, bb, ","); split(r, rr, ",")
	printf "text %s wide at x %s; frame x %s width %s\n", l, bb[1], rr[1], rr[3]
	exit !(l > 20 && bb[3] > 20 && bb[4] > 5 && bb[1] >= rr[1] && bb[1] + bb[3] <= rr[1] + rr[3] &&
	       bb[2] >= rr[2] - 2 && bb[2] + bb[4] <= rr[2] + rr[4] + 2) }'
check flame_zoom [ "$(field zoomed)" = "10.0,1180.0" -a "$(field hidden)" -gt 0 ]
check flame_unzoom [ "$(field unzoomed)" = "$HX,$HW" ]
