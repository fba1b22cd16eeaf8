/* harness.h — a minimal test harness: CHECK records a failure with its location
 * and keeps going; TEST_MAIN_END prints a summary and sets the exit status. */
#ifndef TILEC_TEST_HARNESS_H
#define TILEC_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
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

/* Reads a whole file into a NUL-terminated malloc'd buffer (NULL if unreadable). */
static inline char *read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf) buf[got] = '\0';
    *length = got;
    return buf;
}

#define TEST_MAIN_END() \
    do { \
        fprintf(stderr, "%d checks, %d failures\n", harness_checks, harness_failures); \
        return harness_failures ? 1 : 0; \
    } while (0)

#endif
