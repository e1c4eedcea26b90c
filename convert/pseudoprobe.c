// SPDX-License-Identifier: GPL-2.0-only
/* clang's pseudo-probe sections, and probe-based profiles from them
 * (pseudoprobe.h; docs/convert.md "Pseudo-probes").
 *
 * .pseudo_probe_desc, one record per function of the source:
 *   GUID u64le, CFG hash u64le, name length ULEB128, name bytes.
 * .pseudo_probe, one tree per function body in the binary:
 *   FUNCTION := GUID u64le, NPROBES ULEB128, NINLINEES ULEB128,
 *               NPROBES x PROBE, NINLINEES x {call probe index ULEB128,
 *               FUNCTION}
 *   PROBE    := index ULEB128, one byte (type: bits 0-3; attributes: bits
 *               4-6, 2 = sentinel; bit 7: the address is a SLEB128 delta
 *               from the previous probe's), address (u64le, or the delta)
 * The previous address runs on through the inlinees; a top-level record
 * starts from its function's address (found by GUID), as
 * MCPseudoProbeDecoder::buildAddress2ProbeMap in LLVM 16 does. */
#include "pseudoprobe.h"
#include "../lib/bytes.h"
#include "../lib/md5.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* lower_u64's keys: each of these starts with the u64 it is sorted by. */
_Static_assert(offsetof(struct pp_probe, vaddr) == 0, "pp_probe key");
_Static_assert(offsetof(struct pp_sym, vaddr) == 0, "pp_sym key");

#define PP_SENTINEL 2		/* attribute: a split function's marker */
#define PP_MAX_DEPTH 256	/* deepest inline nesting read */

/* The first of n elements of size bytes at base, sorted by the u64 that
 * each starts with, whose u64 is not below key (n if none). */
static size_t lower_u64(const void *base, size_t n, size_t size, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * size, sizeof(v));
		if (v < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct elf_sec {
	const uint8_t *buf;
	size_t len;
};

/* Section name's bytes, or buf NULL if there is none. */
static int find_section(Elf *e, const char *name, struct elf_sec *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	out->buf = NULL;
	out->len = 0;
	if (elf_getshdrstrndx(e, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *n;

		if (!gelf_getshdr(scn, &sh) ||
		    !(n = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		if (!(d = elf_getdata(scn, NULL)))
			return -1;
		out->buf = d->d_buf;
		out->len = d->d_size;
		return 0;
	}
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	const struct pp_desc *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pp_sym *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_probe(const void *a, const void *b)
{
	const struct pp_probe *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int read_desc(struct pseudo_probes *pp, struct rbuf *r)
{
	size_t cap = 0;

	while (r->pos < r->len && !r->failed) {
		struct pp_desc d;
		uint64_t n;
		const uint8_t *s;

		d.guid = rb_u64(r);
		d.hash = rb_u64(r);
		n = rb_uleb(r);
		if (!r->failed && n > r->len - r->pos)
			return rb_fail(r, "name of %" PRIu64 " bytes runs past the end", n);
		if (!(s = rb_bytes(r, n)))
			break;
		if (pp->ndesc == cap) {
			cap = cap ? 2 * cap : 256;
			pp->desc = xrealloc(pp->desc, cap * sizeof(*pp->desc));
		}
		d.name = xmalloc(n + 1);
		memcpy(d.name, s, n);
		d.name[n] = 0;
		pp->desc[pp->ndesc++] = d;
	}
	if (r->failed)
		return -1;
	qsort(pp->desc, pp->ndesc, sizeof(*pp->desc), cmp_desc);
	return 0;
}

/* The function symbols, and by GUID (MD5 of the name, and of the name
 * without a ".llvm." or ".part." suffix) where each starts. */
struct guid_start {
	uint64_t guid, vaddr;
};
_Static_assert(offsetof(struct guid_start, guid) == 0, "guid_start key");

static int cmp_gs(const void *a, const void *b)
{
	const struct guid_start *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void read_syms(struct pseudo_probes *pp, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0, used = 0, scap = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			size_t len;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value || sym.st_shndx == SHN_UNDEF ||
			    !(n = elf_strptr(e, sh.sh_link, sym.st_name)) || !*n)
				continue;
			len = strlen(n) + 1;
			if (used + len > scap) {
				scap = (used + len) * 2 + 4096;
				pp->strtab = xrealloc(pp->strtab, scap);
			}
			memcpy(pp->strtab + used, n, len);
			if (pp->nsyms == cap) {
				cap = cap ? 2 * cap : 256;
				pp->syms = xrealloc(pp->syms, cap * sizeof(*pp->syms));
			}
			/* An offset for now: strtab may still move. */
			pp->syms[pp->nsyms].vaddr = sym.st_value;
			pp->syms[pp->nsyms++].name = (const char *)(uintptr_t)used;
			used += len;
		}
	}
	for (size_t i = 0; i < pp->nsyms; i++)
		pp->syms[i].name = pp->strtab + (uintptr_t)pp->syms[i].name;
	qsort(pp->syms, pp->nsyms, sizeof(*pp->syms), cmp_sym);
}

static struct guid_start *guid_starts(const struct pseudo_probes *pp,
				      size_t *n)
{
	static const char *const suffix[] = { ".llvm.", ".part." };
	struct guid_start *v = xcalloc(3 * pp->nsyms + 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; i < pp->nsyms; i++) {
		const char *name = pp->syms[i].name;

		v[k++] = (struct guid_start){ md5_low64(name), pp->syms[i].vaddr };
		for (int j = 0; j < 2; j++) {
			const char *s = strstr(name, suffix[j]);
			char *base;

			if (!s)
				continue;
			base = xstrdup(name);
			base[s - name] = 0;
			v[k++] = (struct guid_start){ md5_low64(base),
						      pp->syms[i].vaddr };
			free(base);
		}
	}
	qsort(v, k, sizeof(*v), cmp_gs);
	*n = k;
	return v;
}

static const struct guid_start *start_of(const struct guid_start *v,
					 size_t n, uint64_t guid)
{
	size_t i = lower_u64(v, n, sizeof(*v), guid);

	return i < n && v[i].guid == guid ? &v[i] : NULL;
}

struct decoder {
	struct pseudo_probes *pp;
	struct rbuf r;
	uint64_t last;		/* the previous probe's address */
	size_t cap_nodes, cap_probes;
	const struct guid_start *gs;	/* function starts by GUID */
	size_t ngs;
	int placed;		/* last is a real address: the top-level
				 * function's start was found, or a sentinel's */
	size_t unplaced_probes;
};

static void add_probe(struct decoder *d, uint64_t vaddr, uint32_t index,
		      uint32_t node, uint8_t type)
{
	struct pseudo_probes *pp = d->pp;

	if (pp->nprobes == d->cap_probes) {
		d->cap_probes = d->cap_probes ? 2 * d->cap_probes : 1024;
		pp->probes = xrealloc(pp->probes,
				      d->cap_probes * sizeof(*pp->probes));
	}
	pp->probes[pp->nprobes++] = (struct pp_probe){
		.vaddr = vaddr, .index = index, .node = node, .type = type };
}

/* One FUNCTION record (its GUID already read) and its inlinees. */
static int read_function(struct decoder *d, uint64_t guid, uint32_t site,
			 int32_t parent, int depth)
{
	struct pseudo_probes *pp = d->pp;
	struct rbuf *r = &d->r;
	uint64_t nprobes, ninl;
	int32_t node;

	if (depth > PP_MAX_DEPTH)
		return rb_fail(r, "inline tree deeper than %d", PP_MAX_DEPTH);
	if (pp->nnodes == d->cap_nodes) {
		d->cap_nodes = d->cap_nodes ? 2 * d->cap_nodes : 256;
		pp->nodes = xrealloc(pp->nodes, d->cap_nodes * sizeof(*pp->nodes));
	}
	node = (int32_t)pp->nnodes;
	pp->nodes[pp->nnodes++] = (struct pp_node){
		.guid = guid, .site = site, .parent = parent };
	nprobes = rb_uleb(r);
	ninl = rb_uleb(r);
	for (uint64_t i = 0; i < nprobes && !r->failed; i++) {
		uint64_t index = rb_uleb(r), addr;
		uint8_t t = rb_u8(r);

		if (t & 0x80)
			addr = d->last + (uint64_t)rb_sleb(r);
		else
			addr = rb_u64(r);
		if (r->failed)
			break;
		/* A sentinel (index 0) names, by GUID, the function whose
		 * code the next probes are in (a split part, foo.cold): the
		 * next deltas count from its start. */
		if ((t >> 4 & 7) & PP_SENTINEL) {
			const struct guid_start *g;

			if (!(t & 0x80) && (g = start_of(d->gs, d->ngs, addr))) {
				d->last = g->vaddr;
				d->placed = 1;
			}
			continue;
		}
		if (index == 0 || index > UINT32_MAX)
			return rb_fail(r, "probe index %" PRIu64, index);
		d->last = addr;
		if (d->placed)
			add_probe(d, addr, (uint32_t)index, (uint32_t)node,
				  t & 0xf);
		else
			d->unplaced_probes++;
	}
	for (uint64_t i = 0; i < ninl && !r->failed; i++) {
		uint64_t s = rb_uleb(r), g = rb_u64(r);

		if (!r->failed && s > UINT32_MAX)
			return rb_fail(r, "inline site %" PRIu64, s);
		if (read_function(d, g, (uint32_t)s, node, depth + 1))
			return -1;
	}
	return r->failed ? -1 : 0;
}

static int read_probes(struct pseudo_probes *pp, const struct elf_sec *sec,
		       const char *path)
{
	struct decoder d = { .pp = pp };
	struct guid_start *gs;
	size_t ngs;
	int rc = 0;

	gs = guid_starts(pp, &ngs);
	d.gs = gs;
	d.ngs = ngs;
	rb_init(&d.r, sec->buf, sec->len, path);
	while (d.r.pos < d.r.len && rc == 0) {
		uint64_t guid = rb_u64(&d.r);
		const struct guid_start *s = start_of(gs, ngs, guid);

		/* As LLVM: without the start, last runs on (and a sentinel
		 * may place the record); until placed, probes are left out. */
		if (s)
			d.last = s->vaddr;
		d.placed = s != NULL;
		rc = read_function(&d, guid, 0, -1, 0);
	}
	pp->unplaced = d.unplaced_probes;
	free(gs);
	if (rc || d.r.failed)
		return -1;
	qsort(pp->probes, pp->nprobes, sizeof(*pp->probes), cmp_probe);
	return 0;
}

int pp_read(struct pseudo_probes *pp, const char *path)
{
	struct elf_sec desc, probes;
	struct rbuf r;
	char name[600];
	Elf *e;
	int fd, rc = -1;

	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err("%s: cannot open: %s", path, strerror(errno));
	if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return err("%s: %s (libelf)", path, elf_errmsg(-1));
	}
	if (find_section(e, ".pseudo_probe", &probes) ||
	    find_section(e, ".pseudo_probe_desc", &desc)) {
		err("%s: the pseudo-probe sections: %s (libelf)", path,
		    elf_errmsg(-1));
		goto out;
	}
	rc = 1;
	if (!probes.buf)
		goto out;
	rc = -1;
	if (!desc.buf) {
		err("%s: .pseudo_probe without .pseudo_probe_desc", path);
		goto out;
	}
	snprintf(name, sizeof(name), "%s: section .pseudo_probe_desc", path);
	rb_init(&r, desc.buf, desc.len, name);
	if (read_desc(pp, &r))
		goto out;
	read_syms(pp, e);
	snprintf(name, sizeof(name), "%s: section .pseudo_probe", path);
	if (read_probes(pp, &probes, name))
		goto out;
	for (size_t i = 0; i < pp->nnodes; i++) {
		if (!pp_desc_of(pp, pp->nodes[i].guid)) {
			err("%s: .pseudo_probe: function GUID %#" PRIx64
			    " has no .pseudo_probe_desc record", path,
			    pp->nodes[i].guid);
			goto out;
		}
	}
	rc = 0;
out:
	elf_end(e);
	close(fd);
	return rc;
}

void pp_free(struct pseudo_probes *pp)
{
	for (size_t i = 0; i < pp->ndesc; i++)
		free(pp->desc[i].name);
	free(pp->desc);
	free(pp->nodes);
	free(pp->probes);
	free(pp->syms);
	free(pp->strtab);
	memset(pp, 0, sizeof(*pp));
}

const struct pp_desc *pp_desc_of(const struct pseudo_probes *pp,
				 uint64_t guid)
{
	struct pp_desc key = { .guid = guid };

	return bsearch(&key, pp->desc, pp->ndesc, sizeof(*pp->desc), cmp_desc);
}

/* Index of the first probe at or after vaddr. */
static size_t probe_lower(const struct pseudo_probes *pp, uint64_t vaddr)
{
	return lower_u64(pp->probes, pp->nprobes, sizeof(*pp->probes), vaddr);
}

const char *pp_sym_at(const struct pseudo_probes *pp, uint64_t vaddr)
{
	size_t i = lower_u64(pp->syms, pp->nsyms, sizeof(*pp->syms), vaddr);

	return i < pp->nsyms && pp->syms[i].vaddr == vaddr ? pp->syms[i].name : NULL;
}

/* The profile of node's function: its top-level function's, or an
 * inlinee's inside it, created as needed, each with its checksum. */
static struct fsamples *node_samples(struct fs_profile *prof,
				     const struct pseudo_probes *pp,
				     uint32_t node)
{
	const struct pp_desc *d = pp_desc_of(pp, pp->nodes[node].guid);
	int32_t parent = pp->nodes[node].parent;
	struct fsamples *f;

	if (parent < 0)
		f = fs_function(prof, d->name);
	else
		f = fs_inlinee(node_samples(prof, pp, (uint32_t)parent),
			       pp->nodes[node].site, 0, d->name);
	f->checksum = d->hash;
	return f;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The GUIDs of the top-level functions that ran (any probe of theirs,
 * inlinees included, has a count), sorted; *n their number.  Caller
 * frees. */
static uint64_t *hot_roots(const struct pseudo_probes *pp,
			   const uint64_t *count, const uint32_t *root,
			   size_t *n)
{
	uint64_t *g = xcalloc(pp->nprobes + 1, sizeof(*g));
	size_t k = 0, u = 0;

	for (size_t i = 0; i < pp->nprobes; i++)
		if (count[i])
			g[k++] = pp->nodes[root[pp->probes[i].node]].guid;
	qsort(g, k, sizeof(*g), cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (!u || g[u - 1] != g[i])
			g[u++] = g[i];
	*n = u;
	return g;
}

/* The body records of f and its inlinees with a count of 0. */
static uint64_t zero_records(const struct fsamples *f)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->nbody; i++)
		n += f->body[i].count == 0;
	for (size_t i = 0; i < f->ncs; i++)
		n += zero_records(f->cs[i].callee);
	return n;
}

/* Every probe of a function that ran gets a body record, 0 where it did
 * not run: the sample loader reads a probe without a record as unknown
 * and lets its flow inference fill it (getProbeWeight in LLVM 16's
 * SampleProfileLoaderBaseImpl.h), a record of 0 as known cold.  As
 * llvm-profgen's ProfileGenerator::preprocessRangeCounter, which gives
 * every range of a function with a sample a count of 0 first "to be
 * consistent with compiler that interpret zero count as unexecuted";
 * functions that did not run get no record. */
static void add_counts(struct fs_profile *prof, const struct pseudo_probes *pp,
		       const uint64_t *count, struct pp_stats *st)
{
	uint32_t *root = xcalloc(pp->nnodes + 1, sizeof(*root));
	uint64_t *hot;
	size_t nhot;

	for (size_t n = 0; n < pp->nnodes; n++)
		root[n] = pp->nodes[n].parent < 0 ? (uint32_t)n
			  : root[pp->nodes[n].parent];
	hot = hot_roots(pp, count, root, &nhot);
	for (size_t i = 0; i < pp->nprobes; i++) {
		const struct pp_probe *p = &pp->probes[i];
		uint64_t g = pp->nodes[root[p->node]].guid;
		struct fsamples *f;

		if (!count[i] && !bsearch(&g, hot, nhot, sizeof(*hot), cmp_u64))
			continue;
		if (count[i])
			st->probes++;
		f = node_samples(prof, pp, p->node);
		fs_add_body(f, p->index, 0, count[i]);
		if (p->index == 1 && pp->nodes[p->node].parent < 0)
			f->head += count[i];
	}
	free(hot);
	free(root);
	for (size_t i = 0; i < prof->nfuncs; i++)
		st->probes_zero += zero_records(prof->funcs[i]);
}

/* The call probe at vaddr, or NULL. */
static const struct pp_probe *call_probe_at(const struct pseudo_probes *pp,
					    uint64_t vaddr)
{
	for (size_t i = probe_lower(pp, vaddr);
	     i < pp->nprobes && pp->probes[i].vaddr == vaddr; i++)
		if (pp->probes[i].type != PP_BLOCK)
			return &pp->probes[i];
	return NULL;
}

static void add_calls(struct fs_profile *prof, const struct pseudo_probes *pp,
		      const struct raw_object *ob, int obj,
		      const struct load_seg *segs, int nsegs,
		      pp_callee_fn callee, void *arg, struct pp_stats *st)
{
	for (size_t i = 0; i < ob->nbranches; i++) {
		const struct raw_branch *b = &ob->branches[i];
		const struct pp_probe *p;
		const char *name = NULL;
		uint64_t from, to;

		st->calls += b->count;
		if (offset_to_vaddr(segs, nsegs, b->from, &from) ||
		    !(p = call_probe_at(pp, from)))
			continue;
		if (b->to_obj == (uint32_t)obj) {
			if (!offset_to_vaddr(segs, nsegs, b->to, &to))
				name = pp_sym_at(pp, to);
		} else if (callee) {
			name = callee(arg, b->to_obj, b->to);
		}
		if (!name)
			continue;
		fs_add_target(node_samples(prof, pp, p->node), p->index, 0,
			      name, b->count);
		st->calls_used += b->count;
	}
}

void pp_add(struct fs_profile *prof, const struct pseudo_probes *pp,
	    const struct raw_profile *raw, int obj,
	    const struct load_seg *segs, int nsegs,
	    pp_callee_fn callee, void *arg, struct pp_stats *st)
{
	const struct raw_object *ob = &raw->objs[obj];
	uint64_t *count = xcalloc(pp->nprobes + 1, sizeof(*count));

	memset(st, 0, sizeof(*st));
	prof->probe_based = 1;
	for (size_t i = 0; i < ob->nranges; i++) {
		const struct raw_range *r = &ob->ranges[i];
		uint64_t b, e;

		st->insns += r->count;
		if (offset_to_vaddr(segs, nsegs, r->begin, &b) ||
		    offset_to_vaddr(segs, nsegs, r->end, &e) || e < b) {
			st->insns_unmapped += r->count;
			continue;
		}
		for (size_t k = probe_lower(pp, b);
		     k < pp->nprobes && pp->probes[k].vaddr <= e; k++)
			count[k] += r->count;
	}
	add_counts(prof, pp, count, st);
	add_calls(prof, pp, ob, obj, segs, nsegs, callee, arg, st);
	free(count);
}
