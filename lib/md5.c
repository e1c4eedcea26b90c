/* SPDX-License-Identifier: GPL-2.0-only */
/* MD5 (RFC 1321): see md5.h. */
#include "md5.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const uint8_t md5_r[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void md5_block(uint32_t h[4], const uint8_t *p)
{
	uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	for (int i = 0; i < 64; i++) {
		uint32_t f, t;
		int g;

		if (i < 16) {
			f = (b & c) | (~b & d);
			g = i;
		} else if (i < 32) {
			f = (d & b) | (~d & c);
			g = (5 * i + 1) % 16;
		} else if (i < 48) {
			f = b ^ c ^ d;
			g = (3 * i + 5) % 16;
		} else {
			f = c ^ (b | ~d);
			g = (7 * i) % 16;
		}
		t = a + f + md5_k[i] + w[g];
		a = d;
		d = c;
		c = b;
		b += t << md5_r[i] | t >> (32 - md5_r[i]);
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

void md5_init(struct md5 *c)
{
	static const uint32_t iv[4] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476 };

	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
}

void md5_update(struct md5 *c, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t have = (size_t)(c->len % 64);

	c->len += n;
	if (have) {
		size_t take = 64 - have < n ? 64 - have : n;

		memcpy(c->buf + have, p, take);
		p += take;
		n -= take;
		if (have + take < 64)
			return;
		md5_block(c->h, c->buf);
	}
	for (; n >= 64; p += 64, n -= 64)
		md5_block(c->h, p);
	memcpy(c->buf, p, n);
}

void md5_final(struct md5 *c, uint8_t out[MD5_DIGEST_LEN])
{
	static const uint8_t pad[64] = { 0x80 };
	uint64_t bits = c->len * 8;
	uint8_t lenb[8];

	for (int k = 0; k < 8; k++)
		lenb[k] = (uint8_t)(bits >> (8 * k));
	md5_update(c, pad, 1 + (55 - c->len % 64) % 64);
	md5_update(c, lenb, 8);
	for (int i = 0; i < 16; i++)
		out[i] = (uint8_t)(c->h[i / 4] >> (8 * (i % 4)));
}

void md5_buffer(const void *data, size_t n, uint8_t out[MD5_DIGEST_LEN])
{
	struct md5 c;

	md5_init(&c);
	md5_update(&c, data, n);
	md5_final(&c, out);
}

int md5_fd(int fd, uint64_t max, uint8_t out[MD5_DIGEST_LEN])
{
	static __thread uint8_t buf[1 << 16];
	struct stat st;
	struct md5 c;
	uint64_t total = 0;
	ssize_t n;

	if (fstat(fd, &st))
		return -1;
	if (!S_ISREG(st.st_mode))
		return errno = EINVAL, -1;
	if ((uint64_t)st.st_size > max)
		return errno = EFBIG, -1;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	md5_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if ((total += (uint64_t)n) > max)	/* it grew while read */
			return errno = EFBIG, -1;
		md5_update(&c, buf, (size_t)n);
	}
	md5_final(&c, out);
	return 0;
}

uint64_t md5_low64(const char *s)
{
	uint8_t d[MD5_DIGEST_LEN];
	uint64_t v = 0;

	md5_buffer(s, strlen(s), d);
	for (int k = 7; k >= 0; k--)
		v = v << 8 | d[k];
	return v;
}
