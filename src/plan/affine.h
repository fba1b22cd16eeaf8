/* affine.h — index values as affine forms over region coordinates, shared by
 * panel packing (pack.c) and the access summaries (access.c).
 *
 * An index value built from index constants, add, sub and mul by a constant
 * is Σ scale_i · coord_i + offset, each coord_i a block argument (the caller
 * checks that it is a region coordinate and not a loop carry).  Anything
 * else — a loaded or cast value, div, mod, min, select, a product of two
 * coordinates, an overflow, more than PLAN_AFFINE_TERMS coordinates — is not
 * affine. */
#ifndef TILEC_PLAN_AFFINE_H
#define TILEC_PLAN_AFFINE_H

#include "tir/ir.h"

#include <stdbool.h>
#include <stdint.h>

enum { PLAN_AFFINE_TERMS = 8 };

typedef struct {
    uint32_t count;                            /* terms with a nonzero scale, each coordinate once */
    const tir_value *coord[PLAN_AFFINE_TERMS]; /* block arguments */
    int64_t scale[PLAN_AFFINE_TERMS];
    int64_t offset;
} plan_affine;

/* Whether index value v is affine; *out its form. */
bool plan_affine_of(const tir_value *v, plan_affine *out);

#endif
