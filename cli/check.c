/* SPDX-License-Identifier: GPL-2.0-only */
/* pgoprof check: is a profile stale for a binary, for profiles carried
 * across commits (docs/report.md "check").  With the binary the profile
 * was recorded from (--recorded-binary, or a raw profile's recorded path
 * while it still has the build-ID), each function's line offsets are
 * compared by what they meant there and what they mean in the new build
 * (convert/stale.h): unchanged, shifted by N lines, rewritten, missing.
 * A probe-based profile is compared by CFG checksum with the binary's
 * .pseudo_probe_desc, as clang does.  Without either, the samples on
 * lines that no longer have code are the measure. */
#include "cmds.h"
#include "../convert/convert.h"
#include "../convert/formats.h"
#include "../convert/binobj.h"
#include "../convert/pseudoprobe.h"
#include "../convert/stale.h"
#include "../convert/symbolize.h"
#include "../lib/escape.h"
#include "../lib/util.h"
#include "../raw/rawprof.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fit {
	const char *name;
	uint64_t total, matched;
};

struct lines {
	struct symbolizer *sym;
	struct sym_result *res;
	uint8_t seen[65536];	/* line offsets of the function's own code */
};

struct check_opts {
	const char *binary, *debug, *recorded;
	double min_fit;		/* percent */
	double hot;		/* percent of the profile's samples */
	int allow_stale;
};

/* One function's verdict, for the report. */
struct verdict {
	const char *name;
	struct stale_verdict v;
	uint64_t sum_old, sum_new;	/* CFG checksums (probe-based) */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pgoprof check --binary ELF [--debug-binary ELF] [--recorded-binary OLD]\n"
		   "                     [--min-fit PERCENT] [--hot PERCENT] [--allow-stale] PROFILE\n\n"
		   "Tell whether PROFILE (LLVM text or extbinary, GCC .afdo, or a raw\n"
		   "profile) is stale for ELF, function by function: unchanged, shifted\n"
		   "by N lines (and whether its lines could be re-keyed), rewritten, or\n"
		   "missing.  The profile's line offsets are compared by what they meant\n"
		   "in the binary it was recorded from (OLD; for a raw profile, also the\n"
		   "file at its recorded path while it has the recorded build-ID) and\n"
		   "what they mean in ELF; a pseudo-probe profile by CFG checksum.\n"
		   "Without OLD, only the samples on lines where ELF has no code count.\n\n"
		   "  -r, --recorded-binary OLD  the binary the profile was recorded from\n"
		   "  -m, --min-fit PERCENT      lowest share of samples that keep their\n"
		   "                             line and code (default 80)\n"
		   "      --hot PERCENT          a function with this share of the samples\n"
		   "                             is hot (default 1)\n"
		   "      --allow-stale          a stale hot function does not fail\n\n"
		   "Exit status 1 when a hot function is shifted, rewritten or missing\n"
		   "(unless --allow-stale), or the fit is below PERCENT; 2 on bad usage.\n");
}

/* ---- Without the recorded binary: samples on lines with code ---- */

static void mark_line(uint64_t vaddr, uint32_t len, void *arg)
{
	struct lines *l = arg;

	(void)len;
	if (sym_lookup(l->sym, vaddr, l->res) == SYM_OK)
		l->seen[l->res->frames[0].line_offset & 0xffff] = 1;
}

/* Samples of f (top level: body and inlined callsites), all of them and
 * those on lines with code (l NULL: all).  Not f->total: llvm-profgen's
 * totals count bytes, not lines. */
static uint64_t line_samples(const struct fsamples *f, const struct lines *l)
{
	uint64_t m = 0;

	for (size_t i = 0; i < f->nbody; i++)
		if (!l || l->seen[f->body[i].line & 0xffff])
			m += f->body[i].count;
	for (size_t i = 0; i < f->ncs; i++)
		if (!l || l->seen[f->cs[i].line & 0xffff])
			m += f->cs[i].callee->total;
	return m;
}

static int cmp_fit(const void *a, const void *b)
{
	const struct fit *x = a, *y = b;
	uint64_t lx = x->total - x->matched, ly = y->total - y->matched;

	return (lx < ly) - (lx > ly);
}

static void fit_report(struct fit *fits, size_t n, uint64_t total, uint64_t in_funcs,
		       uint64_t matched, size_t missing, double min_fit)
{
	size_t changed = 0;

	printf("functions: %zu in the profile, %zu missing from the binary (%.1f%% of samples in functions that exist)\n",
	       n, missing, total ? 100.0 * (double)in_funcs / (double)total : 0.0);
	sort(fits, n, sizeof(*fits), cmp_fit);
	for (size_t i = 0; i < n; i++) {
		double f = fits[i].total ? (double)fits[i].matched / (double)fits[i].total : 1;

		if (f >= 0.9 || !fits[i].total)
			continue;
		if (changed++ >= 10)
			continue;
		fputs("  changed: ", stdout);
		esc_fputs(fits[i].name, 0, stdout);
		printf(": %.0f%% of its %llu samples on lines that still have code\n",
		       100 * f, (unsigned long long)fits[i].total);
	}
	printf("line structure: %zu functions changed (under 90%% of their samples on lines with code)\n",
	       changed);
	printf("fit: %.1f%% of the samples land on functions and lines that still exist (minimum %.1f%%)\n",
	       total ? 100.0 * (double)matched / (double)total : 100.0, min_fit);
	printf("note: without the binary the profile was recorded from (--recorded-binary), a function shifted or rewritten where the new build still has code is not seen\n");
}

/* The fit of p's line offsets to s's line table. */
static int check_fit(const struct fs_profile *p, struct symbolizer *s,
		     double min_fit)
{
	struct lines *l = xmalloc(sizeof(*l));
	struct fit *fits = xcalloc(p->nfuncs, sizeof(*fits));
	uint64_t total = 0, in_funcs = 0, matched = 0;
	size_t missing = 0;
	int rc;

	l->sym = s;
	l->res = xmalloc(sizeof(*l->res));
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct fsamples *f = p->funcs[i];
		long fn = sym_function_by_name(s, f->name);
		uint64_t all = line_samples(f, NULL);

		fits[i] = (struct fit){ f->name, all, 0 };
		total += all;
		if (fn < 0) {
			missing++;
			fits[i].total = 0;	/* missing, not changed */
			continue;
		}
		in_funcs += all;
		memset(l->seen, 0, sizeof(l->seen));
		sym_function_insns(s, fn, mark_line, l);
		fits[i].matched = line_samples(f, l);
		matched += fits[i].matched;
	}
	fit_report(fits, p->nfuncs, total, in_funcs, matched, missing, min_fit);
	rc = total && 100.0 * (double)matched / (double)total < min_fit;
	free(fits);
	free(l->res);
	free(l);
	return rc;
}

/* ---- Verdicts: the recorded binary's lines, or CFG checksums ---- */

static int cmp_verdict(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;

	if (x->v.total != y->v.total)
		return (x->v.total < y->v.total) - (x->v.total > y->v.total);
	return strcmp(x->name, y->name);
}

static int is_stale(const struct stale_verdict *v)
{
	return v->kind == STALE_SHIFTED || v->kind == STALE_REWRITTEN ||
	       v->kind == STALE_MISSING;
}

/* One line on function x. */
static void say(const struct verdict *x, int probes)
{
	const struct stale_verdict *v = &x->v;
	double t = v->total ? (double)v->total / 100 : 1;

	fputs("  ", stdout);
	esc_fputs(x->name, 0, stdout);
	printf(": %s", stale_kind_name(v->kind));
	if (v->kind == STALE_SHIFTED)
		printf(" by %d line%s from offset %u", v->shift,
		       v->shift == 1 || v->shift == -1 ? "" : "s", v->from);
	if (probes && v->kind == STALE_REWRITTEN)
		printf(" (%llu samples; CFG checksum %llu in the profile, %llu in the binary: clang drops them)",
		       (unsigned long long)v->total, (unsigned long long)x->sum_old,
		       (unsigned long long)x->sum_new);
	else if (v->kind == STALE_SHIFTED || v->kind == STALE_REWRITTEN)
		printf(" (%.0f%% of its %llu samples on moved lines, %.0f%% on lines whose code is nowhere in the new build)",
		       (double)v->moved / t, (unsigned long long)v->total, (double)v->lost / t);
	else if (v->kind == STALE_UNCHANGED && (v->lost + v->moved) * 200 >= v->total)
		printf(" (%llu samples; %.0f%% on lines whose code differs: another compiler or flags?)",
		       (unsigned long long)v->total, (double)(v->lost + v->moved) / t);
	else
		printf(" (%llu samples)", (unsigned long long)v->total);
	if (v->kind == STALE_SHIFTED)
		printf(v->lost ? ": re-keyable in part" :
			       ": re-keyable, every sampled line's code is in the new build");
	putchar('\n');
}

/* Print the verdicts (sorted here), the summary and the fit; the exit
 * status. */
static int verdict_report(struct verdict *vs, size_t n, const struct check_opts *o,
			  int probes)
{
	uint64_t all = 0, kept = 0;
	size_t count[STALE_NO_OLD + 1] = { 0 }, hot_stale = 0, shown = 0;
	double fit;

	sort(vs, n, sizeof(*vs), cmp_verdict);
	for (size_t i = 0; i < n; i++)
		all += vs[i].v.total;
	for (size_t i = 0; i < n; i++) {
		const struct stale_verdict *v = &vs[i].v;
		int hot = all && 100.0 * (double)v->total >= o->hot * (double)all;

		count[v->kind]++;
		if (v->kind != STALE_MISSING && v->kind != STALE_NO_OLD)
			kept += v->total - v->moved - v->lost;
		hot_stale += hot && is_stale(v);
		if ((hot || is_stale(v)) && shown++ < 20)
			say(&vs[i], probes);
	}
	printf("functions: %zu in the profile: %zu unchanged, %zu shifted, %zu rewritten, %zu missing",
	       n, count[STALE_UNCHANGED], count[STALE_SHIFTED], count[STALE_REWRITTEN],
	       count[STALE_MISSING]);
	if (count[STALE_NO_OLD])
		printf(", %zu not in the recorded binary", count[STALE_NO_OLD]);
	printf("; %zu hot (%.1f%% of the samples or more) and stale\n", hot_stale, o->hot);
	fit = all ? 100.0 * (double)kept / (double)all : 100.0;
	printf("fit: %.1f%% of the samples keep their %s (minimum %.1f%%)\n",
	       fit, probes ? "function's checksum" : "line offset and code", o->min_fit);
	if (hot_stale)
		printf("stale: %s\n", o->allow_stale ? "allowed (--allow-stale)" :
		       "record the new build, or see docs/report.md \"check\" (exit status 1)");
	return (hot_stale && !o->allow_stale) || fit < o->min_fit;
}

static int check_lines(const struct fs_profile *p, struct symbolizer *old,
		       struct symbolizer *new, const struct check_opts *o)
{
	struct verdict *vs = xcalloc(p->nfuncs, sizeof(*vs));
	int rc;

	for (size_t i = 0; i < p->nfuncs; i++) {
		vs[i].name = p->funcs[i]->name;
		stale_compare(p->funcs[i], old, new, &vs[i].v);
	}
	rc = verdict_report(vs, p->nfuncs, o, 0);
	free(vs);
	return rc;
}

static const struct pp_desc *desc_by_name(const struct pseudo_probes *pp,
					  const char *name)
{
	for (size_t i = 0; i < pp->ndesc; i++)
		if (pp->desc[i].name && !strcmp(pp->desc[i].name, name))
			return &pp->desc[i];
	return NULL;
}

/* A probe-based profile: each function's checksum against the binary's
 * .pseudo_probe_desc. */
static int check_probes(const struct fs_profile *p, const struct check_opts *o)
{
	struct pseudo_probes pp = { 0 };
	struct verdict *vs;
	int rc = pp_read(&pp, o->binary);

	if (rc) {
		if (rc > 0)
			err("%s: no .pseudo_probe section: the profile is probe-based, build with -fpseudo-probe-for-profiling",
			    o->binary);
		pp_free(&pp);
		return 1;
	}
	vs = xcalloc(p->nfuncs, sizeof(*vs));
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct fsamples *f = p->funcs[i];
		const struct pp_desc *d = desc_by_name(&pp, f->name);
		struct stale_verdict *v = &vs[i].v;

		vs[i].name = f->name;
		v->total = line_samples(f, NULL);
		vs[i].sum_old = f->checksum;
		vs[i].sum_new = d ? d->hash : 0;
		v->kind = !d ? STALE_MISSING : d->hash == f->checksum ?
			  STALE_UNCHANGED : STALE_REWRITTEN;
		v->kept = v->kind == STALE_UNCHANGED ? v->total : 0;
		v->lost = v->total - v->kept;
	}
	rc = verdict_report(vs, p->nfuncs, o, 1);
	free(vs);
	pp_free(&pp);
	return rc;
}

/* ---- Dispatch ---- */

static int check_profile(const struct fs_profile *p, const struct check_opts *o)
{
	struct symbolizer *new, *old = NULL;
	int rc;

	if (p->probe_based)
		return check_probes(p, o);
	new = sym_open(o->binary, o->debug, 1);
	if (!new)
		return 1;
	if (o->recorded) {
		old = sym_open(o->recorded, NULL, 1);
		if (!old) {
			sym_close(new);
			return 1;
		}
	}
	rc = old ? check_lines(p, old, new, o) : check_fit(p, new, o->min_fit);
	if (old)
		sym_close(old);
	sym_close(new);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The path of the binary raw profile p was recorded from, for o->binary:
 * o->recorded, else the file at the recorded path of the object of the
 * same file name while it is still that object.  NULL if none; the
 * caller frees it. */
static char *recorded_of(const struct raw_profile *p, const struct check_opts *o)
{
	struct symbolizer *s;
	char *path;

	if (o->recorded)
		return xstrdup(o->recorded);
	for (size_t i = 0; i < p->nobjs; i++) {
		if (!p->objs[i].path ||
		    strcmp(base_name(p->objs[i].path), base_name(o->binary)))
			continue;
		s = binobj_open_recorded(&p->objs[i]);
		if (!s)
			continue;
		path = xstrdup(sym_path(s));
		sym_close(s);
		return path;
	}
	return NULL;
}

/* Convert raw profile raw_path with binary old (with convert's defaults,
 * its own option parser, but no cold cut) into *out, through a private
 * temporary directory.  0, or 1 after a message. */
static int raw_lines(const char *raw_path, const char *old, struct any_profile *out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4096 + 16];
	char *argv[] = { "convert", (char *)raw_path, "--binary", (char *)old,
			 "-f", "llvm-text", "--cold-cut", "0", "-q", "-o", path, NULL };
	struct convert_options c = { 0 };
	int rc;

	snprintf(dir, sizeof(dir), "%s/pgoprof-check.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return err("cannot create a directory like %s: %s", dir, strerror(errno)), 1;
	snprintf(path, sizeof(path), "%s/recorded.prof", dir);
	optind = 0;
	rc = convert_parse_args(&c, (int)(sizeof(argv) / sizeof(*argv)) - 1, argv);
	if (rc < 0)
		rc = convert_profile(&c) || any_profile_read(out, path) ? 1 : 0;
	unlink(path);
	rmdir(dir);
	return rc;
}

static int check_raw(const struct raw_profile *p, const char *path,
		     const struct check_opts *o)
{
	struct symbolizer *s = sym_open(o->binary, NULL, 0);
	struct check_opts ro = *o;
	struct any_profile conv;
	const uint8_t *id;
	size_t len;
	int found, rc;

	if (!s)
		return 1;
	id = sym_build_id(s, &len);
	found = id && raw_match_object(p, id, (uint32_t)len) >= 0;
	ro.recorded = found ? NULL : recorded_of(p, o);
	if (!found && !ro.recorded)
		found = binobj_find(s, p, path, NULL) >= 0;
	if (found || !ro.recorded) {
		printf("%s: %s the samples of %s%s\n", path,
		       found ? "holds" : "does not hold", o->binary,
		       found ? ": it fits exactly" :
		       ": give the binary it was recorded from (--recorded-binary OLD) to compare them");
		sym_close(s);
		return !found;
	}
	sym_close(s);
	rc = raw_lines(path, ro.recorded, &conv);
	if (!rc) {
		printf("%s (raw, recorded from %s) against %s\n", path, ro.recorded, o->binary);
		rc = check_profile(&conv.fs, &ro);
		any_profile_free(&conv);
	}
	free((char *)ro.recorded);
	return rc;
}

/* opt's percentage arg into *v: 0, or -1 after a message. */
static int percent(const char *opt, const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || *end || !(*v >= 0 && *v <= 100))
		return err("%s %s: give a percentage from 0 to 100", opt, arg);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	enum { OPT_HOT = 256, OPT_ALLOW_STALE };
	static const struct option longopts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "debug-binary", required_argument, NULL, 'g' },
		{ "recorded-binary", required_argument, NULL, 'r' },
		{ "min-fit", required_argument, NULL, 'm' },
		{ "hot", required_argument, NULL, OPT_HOT },
		{ "allow-stale", no_argument, NULL, OPT_ALLOW_STALE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct check_opts o = { .min_fit = 80, .hot = 1 };
	struct any_profile in;
	int c;

	while ((c = getopt_long(argc, argv, "b:g:r:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.binary = optarg; break;
		case 'g': o.debug = optarg; break;
		case 'r': o.recorded = optarg; break;
		case 'm':
			if (percent("--min-fit", optarg, &o.min_fit))
				return CMD_USAGE;
			break;
		case OPT_HOT:
			if (percent("--hot", optarg, &o.hot))
				return CMD_USAGE;
			break;
		case OPT_ALLOW_STALE: o.allow_stale = 1; break;
		case 'h': return cmd_usage(usage, CMD_HELP);
		default: return cmd_usage(usage, CMD_USAGE);
		}
	}
	if (!o.binary || optind + 1 != argc)
		return cmd_usage(usage, CMD_USAGE);
	if (any_profile_read(&in, argv[optind]))
		return 1;
	if (in.is_raw) {
		c = check_raw(&in.raw, argv[optind], &o);
	} else {
		printf("%s (%s) against %s\n", argv[optind], format_name(in.fmt), o.binary);
		c = check_profile(&in.fs, &o);
	}
	any_profile_free(&in);
	return c;
}
