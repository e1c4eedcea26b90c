/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the ELF readers, on a file holding the input.
 *   proc/buildid.c buildid_read_fd: the collector's own bounded reader
 *     of the ELF header, program headers and PT_NOTE segments;
 *   proc/elfaddr.c elf_load_segments (libelf program headers -> PT_LOAD
 *     table) and the offset <-> vaddr maps over it;
 *   convert/symbolize.c sym_open(path, NULL, 0): libdwfl, the DWARF index,
 *     then lookups, names and instruction decoding at addresses of the
 *     file's own segments and functions.
 * The file lives in a private directory made at start (in /dev/shm when
 * there is one; one left by a run that crashed is removed by the next),
 * so what libdwfl looks for next to it (.gnu_debuglink) is only the file
 * itself. */
#include "fuzz.h"
#include "../../proc/buildid.h"
#include "../../proc/elfaddr.h"
#include "../../convert/symbolize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

static char dir[256], path[300];
static int fd = -1;

static void cleanup(void)
{
	if (fd >= 0)
		close(fd);
	unlink(path);
	rmdir(dir);
}

/* The directories of earlier runs that ended without atexit (a crash, a
 * timeout): DIR/pgoprof-fuzz-elf.PID whose process is gone. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char p[600];
	long pid;

	while (d && (e = readdir(d))) {
		if (sscanf(e->d_name, "pgoprof-fuzz-elf.%ld", &pid) != 1 ||
		    pid <= 0 || !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		snprintf(p, sizeof(p), "%s/%s/binary", base, e->d_name);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
		rmdir(p);
	}
	if (d)
		closedir(d);
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) ? getenv("TMPDIR") : "/dev/shm";

	if (!base)
		base = "/tmp";
	remove_stale(base);
	snprintf(dir, sizeof(dir), "%s/pgoprof-fuzz-elf.%ld", base, (long)getpid());
	if (mkdir(dir, 0700) && errno != EEXIST)
		abort();
	snprintf(path, sizeof(path), "%s/binary", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	atexit(cleanup);
	elf_version(EV_CURRENT);
}

static void count_insn(uint64_t vaddr, uint32_t len, void *arg)
{
	(void)vaddr;
	*(uint64_t *)arg += len;
}

static void count_insn_kind(uint64_t vaddr, uint32_t len, unsigned kind, void *arg)
{
	(void)vaddr;
	(void)kind;
	*(uint64_t *)arg += len;
}

/* What convert and check ask of an opened binary, at address a. */
static void probe_address(struct symbolizer *s, uint64_t a)
{
	struct sym_result r;
	uint64_t bytes = 0;
	uint32_t len;
	long fn;

	if (sym_lookup(s, a, &r) == SYM_OK)
		FUZZ_CHECK(r.nframes >= 1 && r.nframes <= SYM_MAX_FRAMES);
	(void)sym_function_name(s, a);
	(void)sym_follows_call(s, a);
	(void)sym_insn_kind(s, a, &len);
	(void)sym_dup_factor(s, a);
	(void)sym_starts_function(s, a);
	fn = sym_function_at(s, a);
	if (fn >= 0) {
		(void)sym_function_entry(s, fn);
		sym_function_insns(s, fn, count_insn, &bytes);
		sym_function_insns_kind(s, fn, count_insn_kind, &bytes);
	}
}

static void symbolize(void)
{
	struct symbolizer *s = sym_open(path, NULL, 0);
	const struct load_seg *segs;
	size_t idlen;
	int n;

	if (!s)
		return;
	(void)sym_build_id(s, &idlen);
	segs = sym_segments(s, &n);
	for (int i = 0; i < n && i < 8; i++) {
		probe_address(s, segs[i].vaddr);
		probe_address(s, segs[i].vaddr + segs[i].memsz / 2);
		probe_address(s, segs[i].vaddr + segs[i].filesz - 1);
	}
	(void)sym_function_by_name(s, "main");
	sym_close(s);
}

static void load_segments(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct load_seg *segs;
	Elf *elf;
	int n;

	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf) {
		n = elf_load_segments(elf, &segs);
		for (int i = 0; i < n; i++) {
			uint64_t v, o;

			if (segs[i].filesz &&
			    !offset_to_vaddr(segs, n, segs[i].offset, &v))
				(void)vaddr_to_offset(segs, n, v, &o);
		}
		free(segs);
		elf_end(elf);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[64];
	uint32_t idlen = 0;

	if (fd < 0)
		setup();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (!buildid_read_fd(fd, id, sizeof(id), &idlen))
		FUZZ_CHECK(idlen > 0 && idlen <= sizeof(id));
	load_segments(data, size);
	symbolize();
	return 0;
}
