/* options.h — the execution planner's options (docs/planner.md "Options")
 * and the cost-model coefficients, with their defaults and validation.
 *
 * Every field is a constraint or a setting, never a hint: a fixed block size
 * or root order is exact, the candidate budget is a hard limit (exceeding it
 * is an error, never a partial search), and representation settings are fixed
 * for the whole search.  Arrays (root order, root tiles) and the cost policy
 * are borrowed for the duration of one planning call.
 *
 * Diagnostics: PLAN-O.. (options), PLAN-C01 (coefficients). */
#ifndef TILEC_PLAN_OPTIONS_H
#define TILEC_PLAN_OPTIONS_H

#include "options/options.h"
#include "tilec/tilec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The uncalibrated relative-work prior (docs/planner.md "Cost"):
 * not nanoseconds, not instruction counts.  All finite and >= 0.  The public
 * facade's type, so compile options pass through unchanged. */
typedef tilec_cost_coefficients plan_cost_coefficients;

/* Panel packing (plan/pack.h): the facade's enum. */
typedef tilec_pack plan_pack_mode;
#define PLAN_PACK_AUTO TILEC_PACK_AUTO
#define PLAN_PACK_ON TILEC_PACK_ON
#define PLAN_PACK_OFF TILEC_PACK_OFF

/* Packing and split reductions (plan/split.h) share one three-way switch,
 * with the same values in both facade enums: auto (the planner's rule), on,
 * off. */
_Static_assert((int)TILEC_PACK_AUTO == (int)TILEC_SPLIT_AUTO && (int)TILEC_PACK_ON == (int)TILEC_SPLIT_ON &&
                   (int)TILEC_PACK_OFF == (int)TILEC_SPLIT_OFF,
               "packing and split modes share their values");

/* X(field) in report order. */
#define PLAN_COEFFICIENTS(X) \
    X(arithmetic) X(broadcast_load) X(contiguous_memory) X(gathered_lane) X(block_dispatch) X(task_dispatch) \
    X(worker_activation) X(l1_line) X(l2_line) X(l3_line)

plan_cost_coefficients plan_cost_coefficients_default(void);

typedef struct plan_cost_policy plan_cost_policy; /* target.h */

typedef struct {
    uint32_t block_size;              /* 0: search the target's proposals; else exact */
    const uint32_t *root_axis_order;  /* exact order, outer → inner */
    size_t root_axis_order_len;       /* 0: search every permutation */
    const uint32_t *root_axis_tiles;  /* mixed-radix root traversal factors */
    size_t root_axis_tiles_len;       /* 0: none */
    uint64_t max_candidates;          /* 1024; >= 1 */
    plan_cost_coefficients cost;      /* the prior (a cost policy may replace it) */
    uint32_t max_unrolled_tile_elements; /* 64; 0 = no bound (fully expanded) */
    uint64_t max_unrolled_region_work;   /* 4096; 0 = no region bound */
    uint32_t reduction_partitions;       /* 4; 1..16 */
    uint32_t max_recipe_depth;           /* 64; 0 = no deferred recipes (lowering setting) */
    uint32_t local_lanes;                /* 0 searches {1, W} (default); 1 one program per lane; W forces */
    uint32_t blocks_per_task;            /* 0: the target's heuristic; else a fixed CPU task grain */
    bool search_task_grain;              /* also enumerate task grains (task-grain targets only) */
    bool search_tiles;                   /* also try root axis tilings around the best plan (no fixed tiles) */
    const plan_cost_policy *cost_policy; /* NULL: the target's policy, else the analytic formula */
    tilec_fuse fuse;                     /* auto: candidates with and without fusion (plan_candidate.fused) */
    plan_pack_mode pack;                 /* decided for the selected plan (plan_result.packing) */
    tilec_split split;                   /* split a mergeable reduce (plan/split.h, plan_result.split) */
    uint32_t split_chunks;               /* 0: the model's choice; else exactly this many (implies on) */
} plan_options;

plan_options plan_options_default(void);

/* Checks what can be checked without a kernel or target: the candidate
 * budget, partitions, the modes, the chunk count's bounds, the coefficients.  TILEC_E_ARG with one diagnostic. */
tilec_status plan_options_validate(tilec_context *ctx, const plan_options *o);

/* Every coefficient finite and >= 0; `source` names where they came from
 * ("the options", "cost policy 'x'") in the PLAN-C01 diagnostic. */
tilec_status plan_coefficients_validate(tilec_context *ctx, const plan_cost_coefficients *c, const char *source);

#endif
