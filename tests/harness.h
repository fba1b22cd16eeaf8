/* harness.h — a minimal test harness: CHECK records a failure with its location
 * and keeps going; TEST_MAIN_END prints a summary and sets the exit status. */
#ifndef TILEC_TEST_HARNESS_H
#define TILEC_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

static int harness_failures, harness_checks;

#define CHECK(cond) \
    do { \
        harness_checks++; \
        if (!(cond)) { \
            harness_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_MSG(cond, ...) \
    do { \
        harness_checks++; \
        if (!(cond)) { \
            harness_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle) \
    CHECK_MSG((haystack) && strstr((haystack), (needle)), "'%s' does not contain '%s'", \
              (haystack) ? (haystack) : "(null)", (needle))

#define TEST_MAIN_END() \
    do { \
        fprintf(stderr, "%d checks, %d failures\n", harness_checks, harness_failures); \
        return harness_failures ? 1 : 0; \
    } while (0)

#endif
