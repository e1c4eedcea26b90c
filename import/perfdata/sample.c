/* SPDX-License-Identifier: GPL-2.0-only */
/* PERF_RECORD_SAMPLE of perf.data: its fields, one decoder per
 * PERF_SAMPLE_* group in the kernel's order (include/uapi/linux/
 * perf_event.h, enum perf_event_type; perf's evsel__parse_sample,
 * tools/perf/util/evsel.c), then the sample's user stack (call chain,
 * or --call-graph dwarf registers and stack unwound as pgoprof-record
 * does) and branch stack into the samples (import/samples.h). */
#include "internal.h"
#include "../../proc/stackdepth.h"	/* MAX_STACK_DEPTH: the kernel's stack depth */
#include "../../lib/escape.h"
#include "../../lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The fields of one sample that the import uses. */
struct psample {
	uint64_t ip, time, nchain, nbr;
	uint32_t pid, tid;
	const uint8_t *chain;	/* nchain u64 */
	const uint8_t *br;	/* nbr perf_branch_entry, 24 bytes each */
	uint64_t abi, nregs;	/* PERF_SAMPLE_REGS_ABI_*, registers at regs */
	const uint8_t *regs;
	const uint8_t *ustack;	/* the copy of the user stack ... */
	uint64_t ustack_size, dyn_size;	/* ... dyn_size bytes of it filled */
};

/* The unwinder's view of the mappings (unwind.h): pid's current address
 * space; the file ID is the raw object index.  A mapping without a known
 * build-ID is not unwound through (the file here may be another one). */
static int locate(void *arg, pid_t pid, uint64_t addr, struct unwind_file *f)
{
	struct imp *m = arg;
	const struct raw_object *o;
	uint32_t obj;
	uint64_t off;

	if (samples_resolve(&m->s, samples_key(&m->s, (uint32_t)pid), addr, &obj,
			    &off) != UNATTR_NONE)
		return -1;
	o = &m->s.prof->objs[obj];
	if (o->id_kind != RAW_ID_BUILD_ID)
		return -1;
	*f = (struct unwind_file){ obj, off, o->path, o->build_id,
				   o->build_id_len };
	return 0;
}

/* pid has new mappings, or is a new address space (fork, exec). */
void pd_invalidate(struct imp *m, uint32_t pid)
{
	if (m->uw)
		unwind_invalidate(m->uw, (pid_t)pid);
}

static uint64_t read_size(const struct pattr *a, struct rbuf *r)
{
	uint64_t rf = a->read_format, per, fixed, nr;

	fixed = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	if (!(rf & PERF_FORMAT_GROUP))
		return fixed + per;
	nr = rb_u64(r);
	if (r->failed)
		return 0;
	if (fixed > r->len - r->pos || nr > (r->len - r->pos - fixed) / per) {
		r->pos -= 8;
		rb_fail(r, "read values of %" PRIu64 " events do not fit in the sample", nr);
		return 0;
	}
	return fixed + nr * per;
}

/* Are the user registers of a sample of a (abi: the sample's
 * PERF_SAMPLE_REGS_ABI) in another layout than x86-64's?  Counts them by
 * why: another architecture (HEADER_ARCH, else the register mask), or a
 * 32-bit process. */
static int regs_foreign(struct imp *m, const struct pattr *a, uint64_t abi)
{
	if ((m->host.arch && strcmp(m->host.arch, REGS_ARCH)) ||
	    (a->regs_user & REGS_NOT_X86_64)) {
		m->foreign_regs++;
		if (!m->foreign_mask)
			m->foreign_mask = a->regs_user;
		return 1;
	}
	if (abi != PERF_SAMPLE_REGS_ABI_64) {
		m->regs32++;
		return 1;
	}
	return 0;
}

/* One line for the samples whose registers regs_foreign() refused. */
void pd_report_foreign_regs(const struct imp *m)
{
	static const char kept[] = "their IP samples and call chains are kept";

	if (m->foreign_regs && m->host.arch && strcmp(m->host.arch, REGS_ARCH)) {
		char *arch = esc_strdup(m->host.arch, 0);

		warnx("%s was recorded on %s: the user registers of its %" PRIu64
		      " --call-graph dwarf samples are not unwound here (" REGS_ARCH " only); %s",
		      m->name, arch, m->foreign_regs, kept);
		free(arch);
	} else if (m->foreign_regs)
		warnx("%s was recorded on another architecture than " REGS_ARCH
		      " (sample_regs_user 0x%" PRIx64 "): the user registers of its %" PRIu64
		      " --call-graph dwarf samples are not unwound here; %s",
		      m->name, m->foreign_mask, m->foreign_regs, kept);
	if (m->regs32)
		warnx("%s: the user registers of %" PRIu64 " --call-graph dwarf samples of 32-bit processes "
		      "are not unwound here (" REGS_ARCH " only); %s", m->name, m->regs32, kept);
}

/* The copy of the user stack in s, with the nregs user registers at regs
 * (perf's order, the bits of mask), unwound into ips[MAX_STACK_DEPTH]:
 * the number of frames. */
static size_t unwind_user(struct imp *m, struct unwind_sample *s,
			  uint64_t mask, const uint8_t *regs, uint64_t nregs,
			  uint64_t *ips)
{
	uint64_t vals[64];
	enum unwind_end end;
	size_t n;

	for (uint64_t i = 0; i < nregs; i++)
		vals[i] = get64(regs + 8 * i);
	unwind_regs_from_perf(s, mask, vals);
	if (!m->uw)
		m->uw = unwind_new(UNWIND_DWARF, locate, m);
	n = unwind_stack(m->uw, s, ips, MAX_STACK_DEPTH, &end);
	m->unwind_ends[end]++;
	m->unwound++;
	return n;
}

/* IDENTIFIER, IP, TID, TIME, then ADDR, ID, STREAM_ID, CPU and PERIOD,
 * which are skipped. */
static void dec_head(uint64_t st, struct rbuf *r, struct psample *s)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		rb_u64(r);
	if (st & PERF_SAMPLE_IP)
		s->ip = rb_u64(r);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rb_u32(r);
		s->tid = rb_u32(r);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = rb_u64(r);
	rb_bytes(r, 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
			 !!(st & PERF_SAMPLE_STREAM_ID) +
			 !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD)));
}

/* CALLCHAIN: u64 nr, then nr addresses and PERF_CONTEXT_* markers. */
static void dec_callchain(struct rbuf *r, struct psample *s)
{
	s->nchain = rb_u64(r);
	if (!r->failed && s->nchain > (r->len - r->pos) / 8) {
		r->pos -= 8;
		rb_fail(r, "call chain of %" PRIu64 " entries does not fit in the sample (%zu bytes left)",
			s->nchain, r->len - r->pos - 8);
	}
	s->chain = rb_bytes(r, s->nchain * 8);
}

/* BRANCH_STACK: u64 nr, u64 hw_idx if the attribute asked for it, then
 * nr perf_branch_entry. */
static void dec_branch_stack(const struct pattr *a, struct rbuf *r,
			     struct psample *s)
{
	s->nbr = rb_u64(r);
	if (a->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		rb_u64(r);
	if (!r->failed && s->nbr > (r->len - r->pos) / 24) {
		r->pos -= a->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX ? 16 : 8;
		rb_fail(r, "branch stack of %" PRIu64 " entries does not fit in the sample",
			s->nbr);
	}
	s->br = rb_bytes(r, s->nbr * 24);
}

/* REGS_USER (--call-graph dwarf): u64 abi, then, if abi is not 0, one
 * u64 per bit of sample_regs_user. */
static void dec_regs_user(const struct pattr *a, struct rbuf *r,
			  struct psample *s)
{
	s->abi = rb_u64(r);
	if (s->abi) {
		s->nregs = (uint64_t)__builtin_popcountll(a->regs_user);
		s->regs = rb_bytes(r, s->nregs * 8);
	}
}

/* STACK_USER: u64 size, the copy of the stack, and if size is not 0 the
 * u64 dyn_size of it that the kernel filled. */
static void dec_stack_user(struct rbuf *r, struct psample *s)
{
	s->ustack_size = rb_u64(r);
	if (!r->failed && s->ustack_size > r->len - r->pos) {
		r->pos -= 8;
		rb_fail(r, "user stack of %" PRIu64 " bytes does not fit in the sample (%zu bytes left)",
			s->ustack_size, r->len - r->pos - 8);
	}
	s->ustack = rb_bytes(r, s->ustack_size);
	if (s->ustack_size)
		s->dyn_size = rb_u64(r);
	if (s->dyn_size > s->ustack_size)
		s->dyn_size = s->ustack_size;
}

/* The fields of the sample rc of attribute a into s: 0, or -1 after the
 * message. */
static int decode(struct imp *m, const struct pattr *a, const struct rec *rc,
		  struct psample *s)
{
	uint64_t st = a->sample_type;
	struct rbuf r;

	pd_reader(m, &r, rc->off + 8, rc->off + rc->size);
	dec_head(st, &r, s);
	if (st & PERF_SAMPLE_READ) {
		uint64_t n = read_size(a, &r);

		rb_bytes(&r, n);
	}
	if (st & PERF_SAMPLE_CALLCHAIN)
		dec_callchain(&r, s);
	if (st & PERF_SAMPLE_RAW)
		rb_bytes(&r, rb_u32(&r));
	if (st & PERF_SAMPLE_BRANCH_STACK)
		dec_branch_stack(a, &r, s);
	if (st & PERF_SAMPLE_REGS_USER)
		dec_regs_user(a, &r, s);
	if (st & PERF_SAMPLE_STACK_USER)
		dec_stack_user(&r, s);
	return pd_check_reader(m, &r);
}

/* What the CPU ran at sample s: the user code, a virtual machine's guest
 * or the kernel (a kernel sample: its cpumode, or an IP with the top bit
 * set, or with neither a call chain that starts in the kernel). */
enum where { IN_USER, IN_GUEST, IN_KERNEL };

static enum where sample_where(uint64_t st, int cpumode,
			       const struct psample *s)
{
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_USER)
		return IN_GUEST;
	if (cpumode == PERF_RECORD_MISC_KERNEL ||
	    cpumode == PERF_RECORD_MISC_HYPERVISOR ||
	    ((st & PERF_SAMPLE_IP) && (int64_t)s->ip < 0) ||
	    (cpumode == 0 && !(st & PERF_SAMPLE_IP) && s->nchain &&
	     get64(s->chain) >= PERF_CONTEXT_MAX &&
	     get64(s->chain) != PERF_CONTEXT_USER))
		return IN_KERNEL;
	return IN_USER;
}

/* The user part of the call chain: the leaf, then return addresses, into
 * ips[MAX_STACK_DEPTH].  Returns their number. */
static size_t user_chain(const struct psample *s, uint64_t *ips)
{
	size_t nips = 0;

	for (uint64_t i = 0; i < s->nchain; i++) {
		if (get64(s->chain + 8 * i) != PERF_CONTEXT_USER)
			continue;
		for (i++; i < s->nchain && nips < MAX_STACK_DEPTH; i++) {
			uint64_t v = get64(s->chain + 8 * i);

			if (v >= PERF_CONTEXT_MAX)
				break;
			ips[nips++] = v;
		}
		break;
	}
	return nips;
}

/* The user stack of s into ips[MAX_STACK_DEPTH]: its call chain, else
 * (dwarf mode) its registers and stack unwound as pgoprof-record does.
 * kernel: a sample in the kernel, whose user registers are those that
 * entered it (ips[0] the user IP of the system call or fault), and which
 * without them has no user IP to keep (a kernel thread's: not counted in
 * import.user_stack_not_unwound).  Returns their number, 0 if none. */
static size_t user_stack(struct imp *m, const struct pattr *a,
			 const struct psample *s, int kernel, uint64_t *ips)
{
	uint64_t st = a->sample_type;
	size_t nips = user_chain(s, ips);

	if (!nips && s->regs && (st & PERF_SAMPLE_STACK_USER)) {
		struct unwind_sample us = {
			.pid = (pid_t)s->pid,
			.tid = (pid_t)s->tid,
			.stack = s->ustack,
			.stack_len = (size_t)s->dyn_size,
		};

		if (!regs_foreign(m, a, s->abi))
			nips = unwind_user(m, &us, a->regs_user, s->regs,
					   s->nregs, ips);
	} else if ((st & PERF_SAMPLE_STACK_USER) && !kernel) {
		m->dwarf_stacks++;	/* no user registers: the IP only */
	}
	return nips;
}

/* A sample in the user code: its user stack, else its IP alone (-b),
 * added to the samples. */
static void add_user_stack(struct imp *m, const struct pattr *a,
			   const struct psample *s)
{
	uint64_t ips[MAX_STACK_DEPTH];
	size_t nips = user_stack(m, a, s, 0, ips);
	int chained = nips > 0;

	if (!nips && (a->sample_type & PERF_SAMPLE_IP))
		ips[nips++] = s->ip;	/* no user call chain: -b */
	if (!nips)
		m->s.no_user_stack++;
	else
		samples_add_stack(&m->s, samples_key(&m->s, s->pid), ips, nips,
				  chained);
}

/* The branch stack of s: taken branches, and the fall-through ranges
 * between them unless a branch filter (-j without any) or a call stack
 * (--call-graph lbr) made the records something else. */
static void add_branch_stack(struct imp *m, const struct pattr *a,
			     const struct psample *s)
{
	if (a->branch_type & PERF_SAMPLE_BRANCH_CALL_STACK) {
		m->call_stack_lbr++;
		return;
	}
	if (!(a->branch_type & PERF_SAMPLE_BRANCH_ANY))
		m->no_ranges_filter++;
	samples_add_branches(&m->s, samples_key(&m->s, s->pid), s->br, s->nbr,
			     24, !!(a->branch_type & PERF_SAMPLE_BRANCH_ANY));
}

void pd_sample(struct imp *m, const struct rec *rc)
{
	int ai = pd_attr_of(m, rc->off, rc->size, rc->type);
	struct psample s = { .time = NO_TIME, .pid = UINT32_MAX };
	const struct pattr *a;

	if (ai < 0) {
		m->unknown_id++;
		return;
	}
	a = &m->attrs[ai];
	if (decode(m, a, rc, &s))
		return;
	if (!a->selected) {
		m->other_samples++;
		return;
	}
	/* A time 0 changes duration_ms by where it comes (samples_time):
	 * a worker thread leaves such a file to one thread. */
	if (m->quiet && s.time == 0) {
		m->failed = 1;
		return;
	}
	m->attrs[ai].samples++;
	m->s.taken++;
	if (s.time != NO_TIME)
		samples_time(&m->s, s.time);
	switch (sample_where(a->sample_type,
			     rc->misc & PERF_RECORD_MISC_CPUMODE_MASK, &s)) {
	case IN_GUEST:
		m->s.guest++;
		break;
	case IN_KERNEL: {
		/* As pgoprof-record: the user stack that entered the kernel
		 * under the kernel mark; its branch records are not used. */
		uint64_t ips[MAX_STACK_DEPTH];
		size_t n = user_stack(m, a, &s, 1, ips);

		samples_add_kernel(&m->s, samples_key(&m->s, s.pid), ips, n);
		break;
	}
	case IN_USER:
		add_user_stack(m, a, &s);
		if (s.br)
			add_branch_stack(m, a, &s);
		break;
	}
}
