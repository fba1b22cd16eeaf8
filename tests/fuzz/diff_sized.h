/* diff_sized.h — differential cases as kernels with runtime sizes
 * (docs/fuzzing.md "Runtime sizes"): a case's kernel with some extents made
 * runtime sizes, and the sizes to run it at.  diff_run.c compiles the
 * rewritten kernel once and runs it at each sampled size against the
 * reference interpreter of the kernel at those sizes. */
#ifndef TILEC_TESTS_DIFF_SIZED_H
#define TILEC_TESTS_DIFF_SIZED_H

#include <stdbool.h>
#include <stdint.h>

enum { DIFF_MAX_SIZES = 3, DIFF_SIZED_ROUNDS = 3 };

typedef struct {
    uint32_t count;
    int64_t value[DIFF_MAX_SIZES], lo[DIFF_MAX_SIZES], hi[DIFF_MAX_SIZES]; /* as written, and the declared range */
} diff_sizes;

/* The case's text with up to DIFF_MAX_SIZES extents (view axes, parallel
 * and loop domains, picked by seed) made runtime sizes S0.. over
 * [v/2, 2v+3], declared in the kernel's header (malloc'd); NULL when the
 * kernel has no such extent. */
char *diff_sized_text(const char *text, uint64_t seed, diff_sizes *out);
/* The sizes of round r: 0 the extents as written, 1 the ranges' tops,
 * then random values in the ranges. */
void diff_sized_sample(const diff_sizes *s, uint32_t round, uint64_t seed, int64_t *dims);

#endif
