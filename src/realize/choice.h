/* choice.h — what a plan decided about realizing a kernel, as the lowering
 * reads it: block width, packet width, root order and tiles, local lanes,
 * fusion level, packing, and the budgets the plan was checked against.
 * The compile options (tilec_compile_options) are not repeated here: the
 * lowering reads them from the record itself (the representation settings
 * the planner priced, bounds checks, fma), and these facts beside it.
 *
 * The planner fills one from its selected candidate (the driver's lower
 * stage); unit tests fill one by hand.  Arrays and the packing are
 * borrowed for the duration of one lowering. */
#ifndef TILEC_REALIZE_CHOICE_H
#define TILEC_REALIZE_CHOICE_H

#include "realize/packing.h"
#include "realize/represent.h"

typedef struct {
    uint32_t block;          /* B: logical workers per runtime block; 1..1024, a multiple of W */
    uint32_t packet_width;   /* W: 1, 2, 4, 8, 16 or 32 (32: a GPU warp) */
    const uint32_t *order;   /* π, outer → inner; a complete permutation */
    size_t order_len;        /* 0 = identity */
    const uint32_t *tiles;   /* one factor per original root axis (realize/root_map.h) */
    size_t tiles_len;        /* 0 = untiled */
    uint32_t lanes;          /* 1 (whole program per lane) or W (packet-local) */
    uint32_t fused;          /* fusion level (plan_candidate.fused): 1 streamed loads and cheap recomputed
                                values, 2 costly ones too (realize/represent.h) */
    uint64_t snapshot_budget;      /* static snapshot bytes per worker (the target's budget for the plan) */
    uint64_t max_expanded_values;  /* emitted XIR instructions */
    uint64_t max_unrolled_region_work; /* 0 = no region bound (the planner's PLAN_MAX_UNROLLED_REGION_WORK) */
    uint32_t max_recipe_depth;         /* 0 = no deferred recipes (the planner's PLAN_MAX_RECIPE_DEPTH) */
    /* Reads these loads' tiles from packed panels, one buffer argument each
     * after the parameters (NULL: none; docs/lowering.md "Packed panels"). */
    const plan_packing *packing;
} realize_choice;

/* The budget of emitted XIR instructions no option sets. */
enum { REALIZE_MAX_EXPANDED_VALUES = 262144 };

/* B 64, W 8, identity order, untiled, one program per lane, unfused, no
 * packing, a 256 KiB snapshot budget and the planner's limits. */
static inline realize_choice realize_choice_default(void) {
    return (realize_choice){.block = 64,
                            .packet_width = 8,
                            .lanes = 1,
                            .snapshot_budget = 256 * 1024,
                            .max_expanded_values = REALIZE_MAX_EXPANDED_VALUES,
                            .max_unrolled_region_work = PLAN_MAX_UNROLLED_REGION_WORK,
                            .max_recipe_depth = PLAN_MAX_RECIPE_DEPTH};
}

#endif
