/* SPDX-License-Identifier: GPL-2.0-only */
/* The flame graph writer (flame.h).  The stacks are sorted by their paths
 * of names, as flamegraph.pl sorts its folded lines; walking them in that
 * order, a frame opens where a stack's path leaves the previous one's and
 * closes where the next one's leaves it, so frames with equal paths merge
 * and siblings come out sorted by name.  A frame's extent is in samples
 * [start, end) of the sorted order; pixels are computed only at output. */
#include "flame.h"
#include "../lib/escape.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct frame {
	const char *name;
	uint32_t depth;		/* 0: "all"; names[i] of a stack: i + 1 */
	uint64_t start, end;	/* samples, in the sorted order */
};

struct frames {
	struct frame *v;
	size_t n, cap;
	uint64_t total;		/* samples */
};

static const char *name_at(const struct flame_stack *s, uint32_t i)
{
	return s->names[i] ? s->names[i] : "[unknown]";
}

/* Paths compared name by name; a path sorts before its extensions. */
static int cmp_path(const void *a, const void *b)
{
	const struct flame_stack *x = *(const struct flame_stack *const *)a;
	const struct flame_stack *y = *(const struct flame_stack *const *)b;

	for (uint32_t i = 0; i < x->depth && i < y->depth; i++) {
		int c = strcmp(name_at(x, i), name_at(y, i));

		if (c)
			return c;
	}
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static uint32_t common_prefix(const struct flame_stack *x, const struct flame_stack *y)
{
	uint32_t i = 0;

	while (i < x->depth && i < y->depth && !strcmp(name_at(x, i), name_at(y, i)))
		i++;
	return i;
}

static void push(struct frames *fr, const struct frame *f)
{
	grow(&fr->v, &fr->cap, fr->n + 1, sizeof(*fr->v));
	fr->v[fr->n++] = *f;
}

/* Close the open frames open[keep..*nopen) at sample t. */
static void close_to(struct frames *fr, struct frame *open, uint32_t *nopen,
		     uint32_t keep, uint64_t t)
{
	while (*nopen > keep) {
		open[--*nopen].end = t;
		push(fr, &open[*nopen]);
	}
}

/* All frames of v, "all" included, into fr.  -1 if the counts overflow. */
static int build_frames(struct frames *fr, const struct flame_stack *v, size_t n)
{
	const struct flame_stack **s = xcalloc(n ? n : 1, sizeof(*s));
	const struct flame_stack *prev = NULL;
	size_t m = 0;
	uint32_t maxdepth = 0, nopen = 0;
	struct frame *open;
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].count) {
			s[m++] = &v[i];
			if (v[i].depth > maxdepth)
				maxdepth = v[i].depth;
		}
	sort(s, m, sizeof(*s), cmp_path);
	open = xcalloc((size_t)maxdepth + 1, sizeof(*open));
	for (size_t i = 0; i < m; i++) {
		uint32_t keep = prev ? common_prefix(prev, s[i]) : 0;

		close_to(fr, open, &nopen, keep, t);
		for (; nopen < s[i]->depth; nopen++)
			open[nopen] = (struct frame){ name_at(s[i], nopen), nopen + 1, t, 0 };
		if (s[i]->count > UINT64_MAX - t) {
			free(open);
			free(s);
			return err("flame graph: the sample counts add up past 2^64");
		}
		t += s[i]->count;
		prev = s[i];
	}
	close_to(fr, open, &nopen, 0, t);
	push(fr, &(struct frame){ "all", 0, 0, t });
	fr->total = t;
	free(open);
	free(s);
	return 0;
}

static int cmp_place(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Keep the frames at least 1/FLAME_MIN_FRACTION of the samples wide, in
 * the order of depth, then position.  Returns how many were dropped (a
 * dropped frame's children are narrower still: dropped too). */
static size_t prune(struct frames *fr)
{
	uint64_t min = fr->total / FLAME_MIN_FRACTION + (fr->total % FLAME_MIN_FRACTION != 0);
	size_t k = 0, dropped;

	for (size_t i = 0; i < fr->n; i++)
		if (fr->v[i].end - fr->v[i].start >= min)
			fr->v[k++] = fr->v[i];
	dropped = fr->n - k;
	fr->n = k;
	sort(fr->v, fr->n, sizeof(*fr->v), cmp_place);
	return dropped;
}

/* The length of the UTF-8 character at s that XML 1.0 allows (lib's
 * utf8_len, less U+FFFE and U+FFFF), or 0. */
static size_t xml_char_len(const unsigned char *s)
{
	size_t len = utf8_len(s);

	if (len == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;
	return len;
}

static size_t text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	for (; *p; p += len ? len : 1, n++)
		len = xml_char_len(p);
	return n;
}

/* s as XML character data (fit for an attribute value too), clipped to
 * max characters the way flamegraph.pl clips: the first max - 2, then
 * "..".  Control characters and invalid UTF-8 become U+FFFD. */
static void put_xml(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = text_chars(s), keep = n <= max ? n : max >= 2 ? max - 2 : 0;

	for (size_t i = 0, len; i < keep && *p; i++, p += len ? len : 1) {
		len = xml_char_len(p);
		if (!len || *p < 0x20)
			fputs("\xef\xbf\xbd", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else
			fwrite(p, 1, len, f);
	}
	if (n > max)
		fputs("..", f);
}

/* A length in tenths of a pixel as "P.T": no locale's decimal comma. */
static void put_tenths(FILE *f, long long t)
{
	fprintf(f, "%lld.%lld", t / 10, t % 10);
}

/* flamegraph.pl's namehash(): a value in [0, 1] from the first three
 * bytes of name, weighting early ones more, so that a name has the same
 * colour in every graph. */
static double name_hash(const char *name, int reverse)
{
	size_t len = strlen(name);
	double v = 0, weight = 1, max = 1;

	for (size_t i = 0; i < len && i < 3; i++) {
		unsigned char c = (unsigned char)name[reverse ? len - 1 - i : i];

		v += (double)(c % (10 + i)) / (9 + i) * weight;
		max += weight;
		weight *= 0.7;
	}
	return 1 - v / max;
}

/* flamegraph.pl's "hot" palette, keyed by the name (its --hash). */
static void put_colour(FILE *f, const char *name)
{
	double v1 = name_hash(name, 0), v2 = name_hash(name, 1);

	fprintf(f, "rgb(%d,%d,%d)", 205 + (int)(50 * v2), (int)(230 * v1), (int)(55 * v2));
}

struct layout {
	uint64_t total;
	long long height;	/* pixels */
};

/* x of sample t, in tenths of a pixel, rounded, so that neighbours meet. */
static long long x10(const struct layout *l, uint64_t t)
{
	long double span = (FLAME_WIDTH - 2 * FLAME_XPAD) * 10;

	return FLAME_XPAD * 10 + llroundl((long double)t * span / l->total);
}

/* One frame: <g class="f"><title/><rect/><text/></g>, with no space
 * between them, for the script's childNodes. */
static void put_frame(FILE *f, const struct layout *l, const struct frame *fr)
{
	long long x = x10(l, fr->start), w = x10(l, fr->end) - x;
	long long y = l->height - FLAME_YPAD_BOTTOM - (fr->depth + 1LL) * FLAME_FRAME_HEIGHT + 1;
	uint64_t samples = fr->end - fr->start;
	unsigned long long pct = (unsigned long long)llroundl((long double)samples * 10000 / l->total);
	/* flamegraph.pl's text width: 0.59 of the font size per character */
	size_t chars = (size_t)(w * 100 / (FLAME_FONT_SIZE * 590));

	fputs("<g class=\"f\"><title>", f);
	put_xml(f, fr->name, SIZE_MAX);
	fprintf(f, " (%" PRIu64 " samples, %llu.%02llu%%)</title><rect x=\"", samples,
		pct / 100, pct % 100);
	put_tenths(f, x);
	fputs("\" y=\"", f);
	put_tenths(f, y * 10);
	fputs("\" width=\"", f);
	put_tenths(f, w);
	fprintf(f, "\" height=\"%d.0\" fill=\"", FLAME_FRAME_HEIGHT - 1);
	put_colour(f, fr->name);
	fputs("\" rx=\"2\" ry=\"2\"/><text x=\"", f);
	put_tenths(f, x + 30);
	fputs("\" y=\"", f);
	put_tenths(f, y * 10 + (FLAME_FRAME_HEIGHT - 1) * 5 + 30);
	fputs("\">", f);
	if (chars >= 3)
		put_xml(f, fr->name, chars);
	fputs("</text></g>\n", f);
}

/* Click a frame to zoom to it, "Reset Zoom" to go back, "Search" to
 * highlight the frames whose names match a regular expression; the
 * details line shows the frame under the pointer.  The picture does not
 * need it: each frame's <title> is its tooltip. */
static const char script[] =
	"var svg=document.documentElement,fs=svg.querySelectorAll('g.f');\n"
	"function $(id){return document.getElementById(id)}\n"
	"function nm(g){var t=g.firstChild.textContent;return t.slice(0,t.lastIndexOf(' ('))}\n"
	"function fit(g,x,w){var c=Math.floor(w/FW),s=Array.from(nm(g));\n"
	" g.childNodes[1].setAttribute('x',x.toFixed(1));g.childNodes[1].setAttribute('width',w.toFixed(1));\n"
	" g.childNodes[2].setAttribute('x',(x+3).toFixed(1));\n"
	" g.childNodes[2].textContent=c<3?'':s.length<=c?s.join(''):s.slice(0,c-2).join('')+'..'}\n"
	"fs.forEach(function(g){var r=g.childNodes[1];g.ox=+r.getAttribute('x');g.ow=+r.getAttribute('width');g.oy=+r.getAttribute('y')});\n"
	"function zoom(z){var k=(W-2*P)/z.ow;$('unzoom').style.opacity=1;\n"
	" fs.forEach(function(g){var out=g.ox+g.ow<=z.ox+.05||g.ox>=z.ox+z.ow-.05;\n"
	"  g.style.display=out?'none':'';g.style.opacity=g.oy>z.oy?.5:'';\n"
	"  if(!out)g.oy>z.oy?fit(g,P,W-2*P):fit(g,P+(g.ox-z.ox)*k,g.ow*k)})}\n"
	"function unzoom(){$('unzoom').style.opacity=0;\n"
	" fs.forEach(function(g){g.style.display=g.style.opacity='';fit(g,g.ox,g.ow)})}\n"
	"function search(){var re=prompt('Search (regular expression)'),m=[],s=0,e=0;if(re==null)return;\n"
	" try{re=new RegExp(re)}catch(x){return}\n"
	" fs.forEach(function(g){var hit=re.source!='(?:)'&&re.test(nm(g));\n"
	"  g.childNodes[1].style.fill=hit?'rgb(230,0,230)':'';if(hit)m.push([g.ox,g.ox+g.ow])});\n"
	" m.sort(function(a,b){return a[0]-b[0]}).forEach(function(r){if(r[1]>e){s+=r[1]-Math.max(r[0],e);e=r[1]}});\n"
	" $('matched').textContent=m.length?'Matched: '+(100*s/(W-2*P)).toFixed(1)+'%':''}\n"
	"svg.addEventListener('click',function(ev){var g=ev.target.closest('g.f');\n"
	" if(g)zoom(g);else if(ev.target.id=='unzoom')unzoom();else if(ev.target.id=='search')search()});\n"
	"svg.addEventListener('mouseover',function(ev){var g=ev.target.closest('g.f');\n"
	" $('details').textContent=g?g.firstChild.textContent:' '});\n";

static void put_head(FILE *f, const char *title, const struct layout *l, size_t dropped)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%lld\" viewBox=\"0 0 %d %lld\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", FLAME_WIDTH, l->height,
		FLAME_WIDTH, l->height);
	fputs("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n"
	      "<style>text{font-family:Verdana,'DejaVu Sans',sans-serif;font-size:12px;fill:#000}"
	      "g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:.5}"
	      "#title{font-size:17px}#note{fill:#555}#unzoom{opacity:0}#unzoom,#search{cursor:pointer}</style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%lld\" fill=\"url(#background)\"/>\n",
		FLAME_WIDTH, l->height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", FLAME_WIDTH / 2);
	put_xml(f, title ? title : "Flame Graph", SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"note\" x=\"%d\" y=\"40\" text-anchor=\"middle\">", FLAME_WIDTH / 2);
	if (!l->total)
		fputs("no samples", f);
	else
		fprintf(f, "%" PRIu64 " samples", l->total);
	if (dropped)
		fprintf(f, "; %zu frame%s narrower than 0.1%% of them not drawn", dropped,
			dropped == 1 ? "" : "s");
	fprintf(f, "</text>\n<text id=\"unzoom\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%lld\" text-anchor=\"end\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%lld\"> </text>\n",
		FLAME_XPAD, FLAME_WIDTH - FLAME_XPAD, FLAME_WIDTH - FLAME_XPAD, l->height - 17,
		FLAME_XPAD, l->height - 17);
}

int flame_write(FILE *f, const char *title, const struct flame_stack *v, size_t n)
{
	struct frames fr = { 0 };
	struct layout l;
	uint32_t maxdepth = 0;
	size_t dropped;

	if (build_frames(&fr, v, n)) {
		free(fr.v);
		return -1;
	}
	dropped = fr.total ? prune(&fr) : 0;
	if (!fr.total)
		fr.n = 0;
	for (size_t i = 0; i < fr.n; i++)
		if (fr.v[i].depth > maxdepth)
			maxdepth = fr.v[i].depth;
	l.total = fr.total;
	l.height = (maxdepth + 1LL) * FLAME_FRAME_HEIGHT + FLAME_YPAD_TOP + FLAME_YPAD_BOTTOM;
	put_head(f, title, &l, dropped);
	for (size_t i = 0; i < fr.n; i++)
		put_frame(f, &l, &fr.v[i]);
	fprintf(f, "<script><![CDATA[\nvar W=%d,P=%d,FW=%d*.59;\n%s]]></script>\n</svg>\n",
		FLAME_WIDTH, FLAME_XPAD, FLAME_FONT_SIZE, script);
	free(fr.v);
	return 0;
}

int flame_write_svg(const char *path, const char *title,
		    const struct flame_stack *v, size_t n)
{
	struct outfile out;

	if (!strcmp(path, "-")) {
		int rc = flame_write(stdout, title, v, n);

		return stdout_flush() ? -1 : rc;
	}
	if (outfile_open(&out, path))
		return -1;
	if (flame_write(out.f, title, v, n))
		return outfile_fail(&out);
	return outfile_commit(&out);
}
