/* SPDX-License-Identifier: GPL-2.0-only */
/* flamegen OUT.svg: the flame graph of a fixed set of stacks, for
 * tests/integration/flame.sh to open in a browser.  hot_loop is the
 * hottest function (6300 of 9753 samples, 65%); the names have what C++
 * names have (< > &) and a byte that is not UTF-8 (which a browser's XML
 * parser refuses unless replaced); one frame is under 0.1% and left out. */
#include "../../report/flame.h"
#include "../../lib/util.h"

#define S(count, ...) \
	{ (const char *const[]){ __VA_ARGS__ }, \
	  sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *), count }

static const struct flame_stack stacks[] = {
	S(6000, "main", "run", "compute", "hot_loop"),
	S(300, "main", "run", "compute", "hot_loop", "std::vector<int>::push_back(int&&)"),
	S(800, "main", "run", "compute", "helper"),
	S(1500, "main", "run", "parse<std::map<int, int> >"),
	S(400, "main", "run", "io_wait&flush"),
	S(600, "main", "init", "load_config"),
	S(3, "main", "init", "rare"),
	S(50, "main", "init", "bad\xffname"),
	S(100, "[unknown]"),
};

int main(int argc, char **argv)
{
	progname = "flamegen";
	if (argc != 2)
		die(2, "usage: flamegen OUT.svg");
	return flame_write_svg(argv[1], "Flame Graph: flamegen", stacks, ARRAY_SIZE(stacks)) ? 1 : 0;
}
