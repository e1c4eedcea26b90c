/* SPDX-License-Identifier: GPL-2.0-only */
/* A flame graph as one self-contained SVG file, in the layout of Brendan
 * Gregg's flamegraph.pl (github.com/brendangregg/FlameGraph): the root
 * "all" at the bottom, each frame as wide as the samples whose stacks
 * pass through it, frames merged by name along the path from the root and
 * sorted by name on each level, warm colours from a hash of the name.
 * docs/flamegraph.md describes the picture and the existing tools that
 * draw the same from folded stacks. */
#ifndef PGOPROF_FLAME_H
#define PGOPROF_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One call stack and how many samples (count) had it.  names[0] is the
 * outermost frame (the root side, e.g. "main"), names[depth-1] the leaf.
 * A NULL name is drawn as "[unknown]".  Names are bytes, shown as UTF-8
 * (invalid sequences as U+FFFD); the writer keeps no pointer to them. */
struct flame_stack {
	const char *const *names;
	uint32_t depth;
	uint64_t count;
};

/* The geometry, for whoever reads the picture back (the tests do):
 * image width and frame height in pixels, margins, the font size. */
#define FLAME_WIDTH 1200
#define FLAME_XPAD 10
#define FLAME_FRAME_HEIGHT 16
#define FLAME_FONT_SIZE 12
#define FLAME_YPAD_TOP (FLAME_FONT_SIZE * 4)
#define FLAME_YPAD_BOTTOM (FLAME_FONT_SIZE * 2 + 10)
/* A frame narrower than 1/FLAME_MIN_FRACTION of all samples (0.1%) is
 * not drawn; a note under the title says how many were left out. */
#define FLAME_MIN_FRACTION 1000

/* Write the flame graph of the n stacks v (samples: their counts) to f,
 * headed by title (NULL: "Flame Graph").  Stacks with equal paths are
 * added up; stacks of depth 0 count in "all" only.  The same input, in
 * any order, gives the same bytes.  Returns 0, or -1 with a message if
 * the counts add up past 2^64 (nothing is written then); write errors
 * are left in f's error indicator for the caller. */
int flame_write(FILE *f, const char *title, const struct flame_stack *v, size_t n);

/* flame_write() to path, atomically (lib/util.h's outfile: a temporary,
 * renamed over path when whole); "-" is standard output.  Returns 0, or
 * -1 with one message naming path, and no file left behind. */
int flame_write_svg(const char *path, const char *title,
		    const struct flame_stack *v, size_t n);

#endif
