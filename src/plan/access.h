/* access.h — static access summaries (docs/planner.md "Access summaries"):
 * for every view access of the root program, the elements it may touch as a
 * function of the root coordinates.
 *
 * An access's origin on view axis a must be affine (plan/affine.h) in the
 * root coordinates and the coordinates of the loops around it:
 *   origin_a = offset_a + Σ_j scale_a[j]·r_j + Σ_l d_l·x_l,  x_l ∈ [0, n_l)
 * and the tile adds e·t (e ∈ [0, extent_a), t its stride).  For root
 * coordinates r the access touches, on axis a, indices within
 *   offset_a + Σ_j scale_a[j]·r_j + [lo_a, hi_a]
 * with [lo_a, hi_a] the range of the loop and tile terms, and the summary is
 * the box of those ranges (intersected with the view for bounds=zero tiles:
 * `clipped`; scalar and bounds=assume accesses never leave it).  It is
 * `exact` when the access touches every element of the box: it runs
 * unconditionally (no enclosing `if`, no mask), each loop coordinate feeds
 * one axis, and each axis's loop and tile terms cover their range without a
 * hole (checked by enumeration up to 2^16 combinations).  An origin that is
 * not affine, or depends on a loop carry, a map or nested parallel
 * coordinate or another non-coordinate value, leaves the access `unknown`
 * with the reason: a consumer must then assume it may touch the whole view
 * (fail closed). */
#ifndef TILEC_PLAN_ACCESS_H
#define TILEC_PLAN_ACCESS_H

#include "base/arena.h"
#include "realize/admit.h"

typedef struct {
    int64_t *scale;  /* [root rank] */
    int64_t offset;
    int64_t lo, hi;  /* lo <= hi */
} plan_access_axis;

typedef struct {
    const tir_op *op;
    uint32_t param;           /* the view parameter */
    bool store;
    bool known;               /* false: `why`, and nothing else is set */
    const char *why;
    bool never;               /* an enclosing loop is empty: it touches nothing */
    bool clipped;             /* bounds=zero tile: the box is intersected with the view */
    bool exact;               /* every element of the (clipped) box is touched */
    uint32_t rank;            /* the view's */
    uint32_t roots;           /* the root domain's rank */
    plan_access_axis *axes;   /* [rank] */
    uint64_t elements;        /* Π (hi − lo + 1), saturated: the box per program before clipping */
} plan_access;

typedef struct {
    plan_access *items; /* in program order */
    size_t count;
} plan_accesses;

/* Summarizes every view access of the admitted kernel, allocating in `ar`;
 * TILEC_E_NOMEM (with a diagnostic) on allocation failure. */
tilec_status plan_access_summarize(tilec_context *ctx, const plan_admission *admission, arena *ar,
                                   plan_accesses *out);

/* The index range of axis a of a known access for root coordinates r:
 * [*first, *last] (clipped to the view when the access is). *first > *last:
 * empty. */
void plan_access_range(const plan_access *acc, uint32_t a, const int64_t *root, int64_t *first, int64_t *last);

#endif
