/* sha256.h - SHA-256 (FIPS 180-4), small and dependency-free: the content key of a run file in a
 * history (hist_file_key, history.h), so that the same bytes are one run whatever their name.
 * Exercised by tests/test_sha256.c against the FIPS 180-2 test vectors.
 */
#ifndef RINGBENCH_SHA256_H
#define RINGBENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64 /* lowercase hex characters, without the terminator */

typedef struct sha256_ctx {
    uint32_t state[8];
    uint64_t bytes; /* message length so far */
    uint8_t block[64];
    size_t used; /* bytes of block filled */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
/* Ends the message and writes its digest; c must be initialised again before it is reused. */
void sha256_final(sha256_ctx *c, uint8_t digest[SHA256_DIGEST_LEN]);
/* The digest as 64 lowercase hex characters and a terminator. */
void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1]);

#endif
