/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/util.c: an outfile's temporary never outlives the process that made
 * it (signals, exit()), yet a forked child and the program's own signal
 * handlers are left alone; read_input() stops early on a bad head and
 * bounds what it reads from a file that is not regular.  lib/md5.c: RFC
 * 1321's test suite, in one piece and in pieces, and from a file.
 * lib/hindex.c: every key is found after the index grew and after a
 * rebuild, also when all hashes collide, and it stays at most half full;
 * under a byte budget (hindex_try_reserve, try_grow) an index or array
 * grows exactly while the new one fits with the old, and a refusal
 * changes nothing.  sat_add64 and sat_mul64 stop at UINT64_MAX exactly
 * when the true result does not fit.  dec_u64 takes digits only, up to
 * UINT64_MAX, and leaves *v alone on a refusal.  lib/strtab.c and
 * lib/strmap.c (on lib/hindex): numbers in first-insertion order through
 * the index's growth, a look-up that adds nothing, a value replaced. */
#include "check.h"
#include "../../lib/hindex.h"
#include "../../lib/md5.h"
#include "../../lib/strmap.h"
#include "../../lib/strtab.h"
#include "../../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/pgoprof-test-util-XXXXXX";
static char out[sizeof(dir) + 8];

/* How many files dir holds (the target, temporaries); rm: and
 * remove them. */
static int files(int rm)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 256];
	int n = 0;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rm)
			unlink(path);
	}
	if (d)
		closedir(d);
	return n;
}

/* Run fn in a child; its wait status. */
static int in_child(void (*fn)(void))
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

/* fn, in a child, succeeds and leaves the output alone. */
static void commits_in_child(void (*fn)(void))
{
	int st = in_child(fn);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(access(out, F_OK) == 0);
	CHECK(files(1) == 1);
}

static void open_then_term(void)
{
	struct outfile o;

	if (outfile_open(&o, out) || fputs("half", o.f) < 0)
		_exit(1);
	raise(SIGTERM);
	_exit(2);
}

static void open_then_exit(void)
{
	struct outfile o;

	if (outfile_open(&o, out))
		_exit(1);
	exit(3);
}

static void test_signal_removes_temporary(void)
{
	int st = in_child(open_then_term);

	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK(files(1) == 0);
}

static void test_exit_removes_temporary(void)
{
	int st = in_child(open_then_exit);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	CHECK(files(1) == 0);
}

static volatile sig_atomic_t caught;
static void on_term(int sig)
{
	caught = sig;
}

/* A program that catches SIGTERM itself (pgoprof-record) keeps its
 * handler; the commit gives the default action back. */
static void own_handler_then_commit(void)
{
	struct sigaction sa;
	struct outfile o;

	/* Under nohup the test itself starts with SIGHUP ignored. */
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, on_term);
	if (outfile_open(&o, out))
		_exit(1);
	raise(SIGTERM);
	if (caught != SIGTERM || outfile_commit(&o))
		_exit(2);
	signal(SIGTERM, SIG_DFL);
	if (outfile_open(&o, out) || outfile_commit(&o))
		_exit(3);
	if (sigaction(SIGHUP, NULL, &sa) || sa.sa_handler != SIG_DFL)
		_exit(4);
	_exit(0);
}

static void test_own_handler_kept(void)
{
	commits_in_child(own_handler_then_commit);
}

/* A child forked while the temporary is open leaves it to its parent. */
static void fork_then_commit(void)
{
	struct outfile o;
	pid_t pid;

	if (outfile_open(&o, out))
		_exit(1);
	pid = fork();
	if (pid == 0)
		exit(0);
	waitpid(pid, NULL, 0);
	if (access(o.tmp, F_OK) || outfile_commit(&o))
		_exit(2);
	_exit(0);
}

static void test_child_leaves_temporary(void)
{
	commits_in_child(fork_then_commit);
}

/* A FIFO that no process reads is refused at once, not waited for (a
 * blocking open would never return); with a reader it is written in
 * place.  In a child, under an alarm: a hang fails the test. */
static void open_fifo(void)
{
	struct outfile o;
	int rd;

	alarm(10);
	if (mkfifo(out, 0600) || !outfile_open(&o, out))
		_exit(1);
	rd = open(out, O_RDONLY | O_NONBLOCK);
	if (rd < 0 || outfile_open(&o, out) || o.tmp || fputs("x", o.f) < 0 ||
	    outfile_commit(&o))
		_exit(2);
	if (read(rd, &(char){ 0 }, 1) != 1)
		_exit(3);
	_exit(0);
}

static void test_fifo_without_reader(void)
{
	int st = in_child(open_fifo);

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(files(1) == 1);	/* the FIFO, and no temporary */
}

static int never(const uint8_t *head, size_t len)
{
	(void)head;
	(void)len;
	return 0;
}

static void test_read_input_bounded(void)
{
	size_t len = 0;
	uint8_t *b = read_input("/dev/zero", &len, never);

	CHECK(b && len == INPUT_HEAD && b[len] == 0);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "1", 1);
	b = read_input("/dev/zero", &len, NULL);
	CHECK(!b);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "-1", 1);
	CHECK(!read_input("/dev/null", &len, NULL));
	unsetenv("PGOPROF_STREAM_MAX_MIB");
	b = read_input("/dev/null", &len, never);
	CHECK(b && len == 0 && b[0] == 0);
	free(b);
}

static int md5_is(const uint8_t d[MD5_DIGEST_LEN], const char *hex)
{
	char h[2 * MD5_DIGEST_LEN + 1];

	hex_string(h, d, MD5_DIGEST_LEN);
	return !strcmp(h, hex);
}

static void test_md5(void)
{
	static const char *const suite[][2] = {	/* RFC 1321, A.5 */
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "a", "0cc175b9c0f1b6a831c399e269772661" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		  "d174ab98d277d9f5a5611c2c9f419d9f" },
		{ "1234567890123456789012345678901234567890"
		  "1234567890123456789012345678901234567890",
		  "57edf4a22be3c955ac49da2e2107b67a" },
	};
	uint8_t d[MD5_DIGEST_LEN];
	char path[sizeof(dir) + 8];
	struct md5 c;
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(suite); i++) {
		const char *s = suite[i][0];
		size_t n = strlen(s);

		md5_buffer(s, n, d);
		CHECK(md5_is(d, suite[i][1]));
		for (size_t cut = 0; cut <= n; cut += 7) {	/* in pieces */
			md5_init(&c);
			md5_update(&c, s, cut);
			md5_update(&c, s + cut, n - cut);
			md5_final(&c, d);
			CHECK(md5_is(d, suite[i][1]));
		}
	}
	snprintf(path, sizeof(path), "%s/md5", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3);
	CHECK(md5_fd(fd, 3, d) == 0 && md5_is(d, suite[2][1]));
	CHECK(md5_fd(fd, 2, d) == -1 && errno == EFBIG);
	close(fd);
	unlink(path);
	fd = open("/dev/null", O_RDONLY);
	CHECK(md5_fd(fd, 100, d) == -1 && errno == EINVAL);
	close(fd);
}

/* A table of keys; hash_mask 0 makes every hash collide. */
struct keys {
	uint64_t *v;
	size_t n;
	uint64_t hash_mask;
};

static uint64_t key_hash(const void *t, size_t i)
{
	const struct keys *k = t;

	return (k->v[i] * 0x9e3779b97f4a7c15ull) & k->hash_mask;
}

static int key_eq(const void *t, size_t i, const void *key)
{
	return ((const struct keys *)t)->v[i] == *(const uint64_t *)key;
}

/* Insert key unless present; returns its entry number. */
static size_t key_add(struct hindex *x, struct keys *k, uint64_t key)
{
	size_t *slot;

	hindex_reserve(x, k->n, 8, key_hash, k);
	slot = hindex_find(x, (key * 0x9e3779b97f4a7c15ull) & k->hash_mask,
			   key_eq, k, &key);
	if (!*slot) {
		k->v[k->n] = key;
		*slot = ++k->n;
	}
	return *slot - 1;
}

static void hindex_case(uint64_t hash_mask, size_t n)
{
	struct keys k = { calloc(n, sizeof(uint64_t)), 0, hash_mask };
	struct hindex x = { 0 };
	int ok = 1;

	for (size_t i = 0; i < n; i++)
		ok &= key_add(&x, &k, 1000 + 7 * i) == i;
	CHECK(ok && k.n == n);
	CHECK(x.cap >= 2 * n && x.cap >= 8 && !(x.cap & (x.cap - 1)));
	for (size_t i = 0; i < n; i++)	/* again: found, nothing added */
		ok &= key_add(&x, &k, 1000 + 7 * i) == i;
	CHECK(ok && k.n == n);
	/* The entries reversed, as a caller's sort would move them. */
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t t = k.v[i];

		k.v[i] = k.v[n - 1 - i];
		k.v[n - 1 - i] = t;
	}
	hindex_rebuild(&x, k.n, 8, key_hash, &k);
	for (size_t i = 0; i < n; i++)
		ok &= key_add(&x, &k, 1000 + 7 * i) == n - 1 - i;
	CHECK(ok && k.n == n);
	hindex_free(&x);
	CHECK(x.cap == 0 && x.slot == NULL);
	free(k.v);
}

static void test_hindex(void)
{
	hindex_case(UINT64_MAX, 10000);
	hindex_case(0, 300);		/* every hash the same */
	hindex_case(UINT64_MAX, 1);
}

/* The caller holds 100 bytes besides the index.  8 slots, then 16 with
 * the 8 still held, fit in max: 32 with the 16 do not, by one byte (a
 * rule that counted only the grown index would let them). */
static void test_hindex_budget(void)
{
	struct keys k = { calloc(16, sizeof(uint64_t)), 0, UINT64_MAX };
	struct hindex x = { 0 };
	const size_t s = sizeof(size_t);
	size_t bytes = 100, max = 100 + 16 * s + 32 * s - 1;
	size_t *slot, *before;
	int ok = 1;

	CHECK(hindex_try_reserve(&x, 0, 8, &bytes, 100 + 8 * s - 1, key_hash, &k) == -1);
	CHECK(x.cap == 0 && x.slot == NULL && bytes == 100);
	for (uint64_t key = 0; key < 8; key++) {
		ok &= hindex_try_reserve(&x, k.n, 8, &bytes, max, key_hash, &k) == 0;
		ok &= bytes == 100 + x.cap * s;
		k.v[k.n] = key;
		slot = hindex_find(&x, key_hash(&k, k.n), key_eq, &k, &key);
		*slot = ++k.n;
	}
	CHECK(ok && x.cap == 16 && bytes == 100 + 16 * s);
	before = x.slot;
	CHECK(hindex_try_reserve(&x, k.n, 8, &bytes, max, key_hash, &k) == -1);
	CHECK(x.cap == 16 && x.slot == before && bytes == 100 + 16 * s);
	for (uint64_t key = 0; key < 8; key++) {
		slot = hindex_find(&x, key * 0x9e3779b97f4a7c15ull, key_eq, &k, &key);
		ok &= *slot == key + 1;
	}
	CHECK(ok);
	CHECK(hindex_try_reserve(&x, k.n, 8, &bytes, max + 1, key_hash, &k) == 0);
	CHECK(x.cap == 32 && bytes == 100 + 32 * s);
	hindex_free(&x);
	free(k.v);
}

/* try_grow: an array of 10 bytes' owner grows from 0 to 16 elements of
 * 4 bytes, then to 32 with the 16 still held; one byte less refuses. */
static void test_try_grow(void)
{
	uint32_t *a = NULL, *before;
	size_t cap = 0, bytes = 10;

	CHECK(try_grow(&a, &cap, 1, 4, &bytes, 10 + 64 - 1) == -1);
	CHECK(a == NULL && cap == 0 && bytes == 10);
	CHECK(try_grow(&a, &cap, 1, 4, &bytes, 10 + 64) == 0);
	CHECK(a != NULL && cap == 16 && bytes == 10 + 64);
	CHECK(try_grow(&a, &cap, 16, 4, &bytes, 0) == 0);	/* room already */
	before = a;
	CHECK(try_grow(&a, &cap, 17, 4, &bytes, 10 + 64 + 128 - 1) == -1);
	CHECK(a == before && cap == 16 && bytes == 10 + 64);
	CHECK(try_grow(&a, &cap, 17, 4, &bytes, 10 + 64 + 128) == 0);
	CHECK(cap == 32 && bytes == 10 + 128);
	free(a);
	/* No wrap-around near the top of size_t. */
	bytes = SIZE_MAX - 4;
	CHECK(budget_grow(&bytes, SIZE_MAX, 0, 8) == -1 && bytes == SIZE_MAX - 4);
	CHECK(budget_grow(&bytes, 4, 0, 8) == -1 && bytes == SIZE_MAX - 4);
}

/* The saturating add and multiply: exact up to UINT64_MAX, UINT64_MAX
 * from the first value past it, whichever operand is the large one. */
static void test_saturating(void)
{
	CHECK(sat_add64(2, 3) == 5);
	CHECK(sat_add64(UINT64_MAX - 3, 3) == UINT64_MAX);
	CHECK(sat_add64(UINT64_MAX - 3, 4) == UINT64_MAX);
	CHECK(sat_add64(4, UINT64_MAX - 3) == UINT64_MAX);
	CHECK(sat_add64(UINT64_MAX - 4, 3) == UINT64_MAX - 1);
	CHECK(sat_add64(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	CHECK(sat_add64(0, UINT64_MAX) == UINT64_MAX);
	CHECK(sat_mul64(6, 7) == 42);
	CHECK(sat_mul64(UINT64_MAX, 0) == 0 && sat_mul64(0, UINT64_MAX) == 0);
	CHECK(sat_mul64(UINT64_MAX / 3, 3) == UINT64_MAX / 3 * 3);
	CHECK(sat_mul64(UINT64_MAX / 3 + 1, 3) == UINT64_MAX);
	CHECK(sat_mul64(3, UINT64_MAX / 3 + 1) == UINT64_MAX);
	CHECK(sat_mul64(1ull << 32, 1ull << 32) == UINT64_MAX);
	CHECK(sat_mul64((1ull << 32) - 1, (1ull << 32) + 1) == UINT64_MAX);
}

/* dec_u64: the largest value and one past it (by the last digit and
 * by length), empty, sign, space, a non-digit next to '0' and '9', and a
 * string that goes on past n. */
static void test_dec_u64(void)
{
	static const char *const bad[] = {
		"", "18446744073709551616", "18446744073709551620",
		"99999999999999999999", "184467440737095516150", "-1", "+1",
		" 1", "1 ", "0x1", "1/", "1:", "12a",
	};
	uint64_t v = 7;

	CHECK(dec_u64("0", 1, &v) == 0 && v == 0);
	CHECK(dec_u64("00042", 5, &v) == 0 && v == 42);
	CHECK(dec_u64("18446744073709551615", 20, &v) == 0 && v == UINT64_MAX);
	CHECK(dec_u64("123:456", 3, &v) == 0 && v == 123);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		v = 7;
		CHECK(dec_u64(bad[i], strlen(bad[i]), &v) == -1 && v == 7);
	}
	CHECK(dec_u64(NULL, 0, &v) == -1 && v == 7);
}

/* 3000 strings (the index grows from 256 slots to 8192), each twice. */
static void test_strtab_strmap(void)
{
	struct strtab t = { 0 };
	struct strmap m = { 0 };
	char name[32];
	uint32_t v = 7;
	int ok = 1;

	CHECK(strtab_find(&t, "a") == -1 && t.n == 0);
	CHECK(!strmap_find(&m, "a", &v) && v == 7);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < 3000; i++) {
			snprintf(name, sizeof(name), "s%zu", i);
			ok &= strtab_id(&t, name) == i;
			strmap_put(&m, name, (uint32_t)(i * 3 + (size_t)pass));
		}
	CHECK(ok && t.n == 3000 && m.keys.n == 3000);
	CHECK(t.index.cap == 8192);
	for (size_t i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "s%zu", i);
		ok &= strtab_find(&t, name) == (long)i;
		ok &= !strcmp(strtab_get(&t, name), name) && t.n == 3000;
		ok &= strmap_find(&m, name, &v) && v == i * 3 + 1;
	}
	CHECK(ok);
	CHECK(strtab_find(&t, "s3000") == -1 && t.n == 3000);
	CHECK(!strmap_find(&m, "", &v) && m.keys.n == 3000);
	strtab_free(&t);
	strmap_free(&m);
	CHECK(t.n == 0 && t.index.cap == 0 && m.keys.n == 0 && m.vals == NULL);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(out, sizeof(out), "%s/out", dir);
	RUN(test_signal_removes_temporary);
	RUN(test_exit_removes_temporary);
	RUN(test_own_handler_kept);
	RUN(test_child_leaves_temporary);
	RUN(test_fifo_without_reader);
	RUN(test_read_input_bounded);
	RUN(test_md5);
	RUN(test_hindex);
	RUN(test_hindex_budget);
	RUN(test_try_grow);
	RUN(test_saturating);
	RUN(test_dec_u64);
	RUN(test_strtab_strmap);
	rmdir(dir);
	return tests_failed != 0;
}
