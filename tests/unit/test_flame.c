/* SPDX-License-Identifier: GPL-2.0-only */
/* report/flame.c: the SVG holds exactly the frames the stacks make, where
 * flamegraph.pl's layout puts them (read back from the output), names
 * escaped and clipped, equal paths merged, narrow frames dropped and
 * counted, the same bytes for the same stacks in any order, and a file
 * that could not be written leaves nothing behind. */
#include "check.h"
#include "capture.h"
#include "../../report/flame.h"
#include "../../lib/util.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define S(count, ...) \
	{ (const char *const[]){ __VA_ARGS__ }, \
	  sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *), count }

/* The SVG of v, malloc'd. */
static char *svg_of(const struct flame_stack *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(flame_write(f, "Test", v, n) == 0);
	fclose(f);
	return buf;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

struct box {
	double x, y, w, tx;
	char text[256];
};

/* The frame whose tooltip starts with title (as escaped in the SVG):
 * its rect and text; returns how many frames have that title. */
static int frame(const char *svg, const char *title, struct box *b)
{
	const char *p = svg, *t;
	char key[300];
	int n = 0;

	snprintf(key, sizeof(key), "<g class=\"f\"><title>%s (", title);
	while ((p = strstr(p, key))) {
		n++;
		p = strstr(p, "<rect ");
		if (sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", &b->x, &b->y, &b->w) != 3)
			return -1;
		t = strstr(p, "<text x=\"");
		if (sscanf(t, "<text x=\"%lf\"", &b->tx) != 1)
			return -1;
		t = strchr(t, '>') + 1;
		snprintf(b->text, sizeof(b->text), "%.*s", (int)(strstr(t, "</text>") - t), t);
	}
	return n;
}

/* Checks that frame name is at x, y, width w (pixels). */
static int at(const char *svg, const char *name, double x, double y, double w)
{
	struct box b;
	int n = frame(svg, name, &b);

	if (n == 1 && b.x == x && b.y == y && b.w == w)
		return 1;
	printf("  %s: %d frames, x %.1f y %.1f w %.1f; want x %.1f y %.1f w %.1f\n",
	       name, n, b.x, b.y, b.w, x, y, w);
	return 0;
}

/* 1180 samples: one per pixel of the 1200 - 2 * 10 wide graph. */
static const struct flame_stack layout[] = {
	S(300, "main", "b"),
	S(200, "main", "a"),
	S(100, "main", "a", "x"),
	S(80, "main"),
	S(500, "other"),
};

static void test_layout(void)
{
	char *svg = svg_of(layout, ARRAY_SIZE(layout));
	/* 4 levels: height 4 * 16 + 48 + 34; the root's top at 146 - 34 - 16 + 1 */
	struct box b;

	CHECK(strstr(svg, "width=\"1200\" height=\"146\""));
	CHECK(count_of(svg, "<g class=\"f\">") == 6);
	/* sorted by name on each level; a frame's own samples before its
	 * children's, where flamegraph.pl's sorted lines put them */
	CHECK(at(svg, "all", 10, 97, 1180));
	CHECK(at(svg, "main", 10, 81, 680));
	CHECK(at(svg, "a", 90, 65, 300));
	CHECK(at(svg, "x", 290, 49, 100));
	CHECK(at(svg, "b", 390, 65, 300));
	CHECK(at(svg, "other", 690, 81, 500));
	CHECK(strstr(svg, "<title>main (680 samples, 57.63%)</title>"));
	CHECK(strstr(svg, "<title>all (1180 samples, 100.00%)</title>"));
	CHECK(frame(svg, "other", &b) == 1 && !strcmp(b.text, "other") && b.tx == 693);
	CHECK(strstr(svg, ">1180 samples</text>"));
	CHECK(!strstr(svg, "not drawn"));
	free(svg);
}

/* The same path in several entries, in any order: one frame, and the
 * same bytes. */
static void test_merge_and_determinism(void)
{
	const struct flame_stack split[] = {
		S(100, "main", "a", "x"),
		S(500, "other"),
		S(150, "main", "b"),
		S(80, "main"),
		S(200, "main", "a"),
		S(150, "main", "b"),
		S(0, "main", "never"),
	};
	char *a = svg_of(layout, ARRAY_SIZE(layout));
	char *b = svg_of(split, ARRAY_SIZE(split));
	char *c = svg_of(split, ARRAY_SIZE(split));

	CHECK(at(b, "b", 390, 65, 300));
	CHECK(!strstr(b, "never"));
	CHECK(!strcmp(a, b));
	CHECK(!strcmp(b, c));
	free(a);
	free(b);
	free(c);
}

/* Names of C++ and of no encoding at all come out as well-formed XML. */
static void test_escaping(void)
{
	const struct flame_stack v[] = {
		S(500, "main", "std::map<int, int>::find(int const&)"),
		S(400, "main", "say\"hi\"", "bad\xff\x01utf8"),
		S(280, "main", NULL),
	};
	char *svg = svg_of(v, ARRAY_SIZE(v));
	struct box b;

	*strstr(svg, "<script>") = '\0';	/* the frames and text only */
	CHECK(frame(svg, "std::map&lt;int, int&gt;::find(int const&amp;)", &b) == 1);
	CHECK(!strcmp(b.text, "std::map&lt;int, int&gt;::find(int const&amp;)"));
	CHECK(frame(svg, "say&quot;hi&quot;", &b) == 1);
	CHECK(frame(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8", &b) == 1);
	CHECK(frame(svg, "[unknown]", &b) == 1);
	CHECK(!strstr(svg, "<int"));
	CHECK(!strstr(svg, "\xff"));
	/* every & starts an entity */
	for (const char *p = svg; (p = strchr(p, '&')); p++)
		CHECK(!strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4) ||
		      !strncmp(p, "&amp;", 5) || !strncmp(p, "&quot;", 6));
	free(svg);
}

/* Text as many characters as fit at 0.59 of the font size each, the
 * last two of a clipped name "..", whole UTF-8 characters only. */
static void test_clipping(void)
{
	const struct flame_stack v[] = {
		S(60, "abcdefghijklmnop"),	/* 60 px: 8 characters */
		S(20, "tiny"),			/* 20 px: 2, no text */
		S(60, "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4"),
		S(1040, "wide"),
	};
	char *svg = svg_of(v, ARRAY_SIZE(v));
	struct box b;

	CHECK(frame(svg, "abcdefghijklmnop", &b) == 1 && b.w == 60 &&
	      !strcmp(b.text, "abcdef.."));
	CHECK(frame(svg, "tiny", &b) == 1 && b.w == 20 && !strcmp(b.text, ""));
	CHECK(frame(svg, "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4", &b) == 1 &&
	      !strcmp(b.text, "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4.."));
	CHECK(frame(svg, "wide", &b) == 1 && !strcmp(b.text, "wide"));
	free(svg);
}

/* Of 10000 samples, a frame of 9 (under 0.1%) is left out with its
 * child, and the note says so; one of 10 is drawn. */
static void test_narrow_note(void)
{
	const struct flame_stack v[] = {
		S(9981, "main", "work"),
		S(9, "main", "rare", "rarer"),
		S(10, "main", "edge"),
	};
	char *svg = svg_of(v, ARRAY_SIZE(v));
	struct box b;

	CHECK(frame(svg, "rare", &b) == 0);
	CHECK(frame(svg, "rarer", &b) == 0);
	CHECK(frame(svg, "edge", &b) == 1);
	CHECK(count_of(svg, "<g class=\"f\">") == 4);
	CHECK(strstr(svg, ">10000 samples; 2 frames narrower than 0.1% of them not drawn</text>"));
	free(svg);
}

/* No samples, or stacks of depth 0 only: a graph all the same. */
static void test_empty(void)
{
	const struct flame_stack v[] = { { NULL, 0, 5 } };
	char *svg = svg_of(NULL, 0);

	CHECK(count_of(svg, "<g class=\"f\">") == 0);
	CHECK(strstr(svg, ">no samples</text>"));
	CHECK(strstr(svg, "</svg>\n"));
	free(svg);
	svg = svg_of(v, 1);
	CHECK(at(svg, "all", 10, 49, 1180));
	CHECK(count_of(svg, "<g class=\"f\">") == 1);
	free(svg);
}

static void test_overflow(void)
{
	const struct flame_stack v[] = { S(UINT64_MAX, "a"), S(1, "b") };
	char msg[256];
	FILE *f = tmpfile();

	capture_begin();
	CHECK(flame_write(f, NULL, v, 2) == -1);
	capture_end(msg, sizeof(msg));
	CHECK(strstr(msg, "past 2^64"));
	CHECK(ftell(f) == 0);
	fclose(f);
}

static char dir[] = "/tmp/pgoprof-test-flame-XXXXXX";

static int files_in_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* A directory that is not there, and a write that fails half-way (a file
 * size limit: root may write anywhere): an error naming the file, no
 * temporary left, an older file kept whole. */
static void test_unwritable(void)
{
	char path[sizeof(dir) + 16], msg[512], old[8] = "";
	struct rlimit lim, small;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/none/f.svg", dir);
	capture_begin();
	CHECK(flame_write_svg(path, NULL, layout, ARRAY_SIZE(layout)) == -1);
	capture_end(msg, sizeof(msg));
	/* outfile_open() names the output and the directory it lacks */
	CHECK(strstr(msg, "/none/f.svg") && strstr(msg, "No such file"));
	CHECK(files_in_dir() == 0);

	snprintf(path, sizeof(path), "%s/f.svg", dir);
	f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	getrlimit(RLIMIT_FSIZE, &lim);
	small = (struct rlimit){ 100, lim.rlim_max };	/* the soft limit only: it goes back up */
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &small);
	capture_begin();
	rc = flame_write_svg(path, NULL, layout, ARRAY_SIZE(layout));
	capture_end(msg, sizeof(msg));
	setrlimit(RLIMIT_FSIZE, &lim);
	signal(SIGXFSZ, SIG_DFL);
	CHECK(rc == -1);
	CHECK(strstr(msg, "cannot write") && strstr(msg, path));
	CHECK(files_in_dir() == 1);
	f = fopen(path, "r");
	CHECK(f && fgets(old, sizeof(old), f) && !strcmp(old, "old\n"));
	if (f)
		fclose(f);

	/* and when it can be written, it is, whole */
	CHECK(flame_write_svg(path, NULL, layout, ARRAY_SIZE(layout)) == 0);
	CHECK(files_in_dir() == 1);
	unlink(path);
}

int main(void)
{
	progname = "test_flame";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_layout);
	RUN(test_merge_and_determinism);
	RUN(test_escaping);
	RUN(test_clipping);
	RUN(test_narrow_note);
	RUN(test_empty);
	RUN(test_overflow);
	RUN(test_unwritable);
	rmdir(dir);
	return tests_failed != 0;
}
