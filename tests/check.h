/* check.h - the assertions every ringbench C test uses.
 *
 * CHECK(cond) and friends print file:line and the failed expression, count the failure and go on;
 * CHECK_DONE() ends main with 0 when nothing failed, 1 otherwise. TEST_SKIP(why) exits 77, which
 * CTest reports as skipped (SKIP_RETURN_CODE), for a test whose hardware is absent.
 */
#ifndef RINGBENCH_CHECK_H
#define RINGBENCH_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        check_count++;                                                               \
        if (!(cond)) {                                                               \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)
#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        check_count++;                                                               \
        if (!(cond)) {                                                               \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)
#define CHECK_STR(a, b) CHECK_MSG(strcmp((a), (b)) == 0, "'%s' != '%s'", (a), (b))
#define CHECK_INT(a, b) CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))
#define CHECK_NEAR(a, b, tol)                                                                              \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%.9g != %.9g (tol %g)", (double)(a), (double)(b), \
              (double)(tol))
#define TEST_SKIP(...)       \
    do {                     \
        printf("SKIPPED: "); \
        printf(__VA_ARGS__); \
        printf("\n");        \
        exit(77);            \
    } while (0)
#define CHECK_DONE()                                                   \
    do {                                                               \
        printf("%d checks, %d failed\n", check_count, check_failures); \
        return check_failures ? 1 : 0;                                 \
    } while (0)

#endif
