/* SPDX-License-Identifier: GPL-2.0-only */
/* expsample: execution-proportional samples (what an `instructions`
 * sampler records) synthesized from an exact-count profile, for the
 * measurements of bench/quality.sh -S and the tests of the converter's
 * rules for them (synth/expsample.h says how they are drawn).
 *
 *   build/bench/expsample EXACT.raw -n 50000 [--skid 0.5] [--seed S]
 *                         [--max-depth D] -o OUT.raw
 *
 * Build: make build/bench/expsample */
#include "../synth/expsample.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>



static void usage(FILE *f)
{
	fprintf(f,
"usage: expsample EXACT.raw -n N [--skid F] [--seed S] [--max-depth D] -o OUT.raw\n\n"
"Draw N samples from an exact-count profile (pgoprof record --exact), each\n"
"instruction in proportion to its count, with call stacks drawn from its\n"
"call counts, and write them as a stack-fp raw profile of signal\n"
"executions (event instructions).\n\n"
"  -n, --samples N     samples to draw (>= 1)\n"
"      --skid F        move this fraction of samples (0..1, drawn per sample)\n"
"                      to the next executed instruction (default 0)\n"
"      --seed S        the generator's seed (default 1): same seed, same output\n"
"      --max-depth D   frames per stack, leaf included (default 127, the\n"
"                      kernel's default perf_event_max_stack)\n"
"      --meta KEY=VALUE  set a META key of the output (repeatable), e.g.\n"
"                      signal=time event=cpu-clock, for the tests of the\n"
"                      converter's rules by signal\n"
"  -o, --output OUT    write here (atomically; '-': stdout)\n");
}

static int number(const char *opt, const char *s, uint64_t min, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *v < min)
		return err("%s %s: give a whole number of at least %" PRIu64, opt, s, min);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "skid", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "max-depth", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "meta", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct xs_options o = { .seed = 1, .max_depth = 127 };
	const char *out = NULL;
	char **meta = NULL;
	size_t nmeta = 0, cap = 0;
	struct raw_profile in, p;
	struct xs_stats st;
	uint64_t v;
	char *end;
	int opt, rc;

	progname = "expsample";
	while ((opt = getopt_long(argc, argv, "n:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (number("-n", optarg, 1, &o.samples))
				return 2;
			break;
		case 'k':
			o.skid = strtod(optarg, &end);
			if (end == optarg || *end || !(o.skid >= 0 && o.skid <= 1)) {
				err("--skid %s: give a fraction from 0 to 1", optarg);
				return 2;
			}
			break;
		case 's':
			if (number("--seed", optarg, 0, &o.seed))
				return 2;
			break;
		case 'd':
			if (number("--max-depth", optarg, 1, &v) || v > RAW_STACK_DEPTH_MAX) {
				err("--max-depth: at most %d", RAW_STACK_DEPTH_MAX);
				return 2;
			}
			o.max_depth = (uint32_t)v;
			break;
		case 'o': out = optarg; break;
		case 'm':
			if (!strchr(optarg, '=') || *optarg == '=') {
				err("--meta %s: give KEY=VALUE", optarg);
				return 2;
			}
			grow(&meta, &cap, nmeta + 1, sizeof(*meta));
			meta[nmeta++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || !out || !o.samples) {
		usage(stderr);
		return 2;
	}
	if (raw_read_file(&in, argv[optind]))
		return 1;
	raw_init(&p);
	rc = xs_sample(&in, argv[optind], &o, &p, &st) ? 1 : 0;
	for (size_t i = 0; !rc && i < nmeta; i++) {
		char *eq = strchr(meta[i], '=');

		*eq = '\0';
		raw_set_meta(&p, meta[i], eq + 1);
	}
	if (!rc && raw_write_file(&p, out))
		rc = 1;
	if (!rc)
		fprintf(stderr, "expsample: wrote %s: %" PRIu64 " samples of %" PRIu64 " instructions (%" PRIu64 " moved by skid), %" PRIu64 " caller frames; stacks ended by a call without a next instruction %" PRIu64 ", at --max-depth %" PRIu64 ", at recursion %" PRIu64 "; %" PRIu64 " calls not to a function's start; %" PRIu64 " objects without symbols (functions from call targets)\n",
			out, o.samples, st.instructions, st.skidded, st.frames, st.no_return,
			st.depth_cut, st.recursion_cut, st.calls_not_to_entry, st.objects_without_symbols);
	raw_free(&in);
	raw_free(&p);
	free(meta);
	return rc;
}
