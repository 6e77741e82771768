/* test_sha256.c - SHA-256 (results/sha256.c) against the FIPS 180-2 appendix B vectors: "abc" (one
 * block), the 448-bit message (padding into a second block), one million "a" (fed in uneven pieces,
 * so that blocks straddle the calls), plus the empty message and runs of "a" either side of a block's
 * padding boundary (55, 56 and 64 bytes; their digests as sha256sum gives them).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sha256.h"

static void hex_of(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
    sha256_ctx c;
    uint8_t d[SHA256_DIGEST_LEN];
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, d);
    sha256_hex(d, hex);
}

static void check_vector(const char *msg, const char *want)
{
    char hex[SHA256_HEX_LEN + 1];
    hex_of(msg, strlen(msg), hex);
    CHECK_STR(hex, want);
}

/* n times "a". */
static void check_repeat(size_t n, const char *want)
{
    char a[64], hex[SHA256_HEX_LEN + 1];
    memset(a, 'a', n);
    hex_of(a, n, hex);
    CHECK_STR(hex, want);
}

/* One million "a", fed 1 to 997 bytes at a time. */
static void check_million(void)
{
    static char a[1000];
    memset(a, 'a', sizeof a);
    sha256_ctx c;
    uint8_t d[SHA256_DIGEST_LEN];
    char hex[SHA256_HEX_LEN + 1];
    sha256_init(&c);
    size_t left = 1000000, step = 1;
    while (left > 0) {
        size_t n = step < left ? step : left;
        sha256_update(&c, a, n);
        left -= n;
        step = step % 997 + 1;
    }
    sha256_final(&c, d);
    sha256_hex(d, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    check_vector("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_vector("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check_million();
    check_vector("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* 55 bytes: the length still fits the first block; 56: it needs a second; 64: a whole block. */
    check_repeat(55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    check_repeat(56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    check_repeat(64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    CHECK_DONE();
}
