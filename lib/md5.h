/* SPDX-License-Identifier: GPL-2.0-only */
/* MD5 (RFC 1321).  Used where a format or an identity is defined by it:
 * LLVM's MD5 name tables (llvm/Support/MD5.h, MD5Hash) and the content
 * digest that names an object without a build-ID in a raw profile
 * (docs/raw-format.md).  Not for security. */
#ifndef PGOPROF_MD5_H
#define PGOPROF_MD5_H

#include <stddef.h>
#include <stdint.h>

#define MD5_DIGEST_LEN 16

struct md5 {
	uint32_t h[4];
	uint64_t len;		/* bytes so far */
	uint8_t buf[64];	/* a partial block */
};

void md5_init(struct md5 *c);
/* Add n bytes of data (any n, in any number of calls). */
void md5_update(struct md5 *c, const void *data, size_t n);
/* The digest of everything added, in RFC 1321's byte order; c is spent. */
void md5_final(struct md5 *c, uint8_t out[MD5_DIGEST_LEN]);
/* The digest of n bytes at data. */
void md5_buffer(const void *data, size_t n, uint8_t out[MD5_DIGEST_LEN]);
/* LLVM's MD5Hash() of the string s: the first 8 bytes of its digest as a
 * little-endian number (llvm/Support/MD5.h); also Function::getGUID. */
uint64_t md5_low64(const char *s);

/* The digest of the regular file open on fd, read from its start (the
 * file offset is moved).  Returns 0; or -1 with errno set: EFBIG if the
 * file is larger than max bytes (nothing is read), EINVAL if it is not a
 * regular file, or read's error. */
int md5_fd(int fd, uint64_t max, uint8_t out[MD5_DIGEST_LEN]);

#endif
