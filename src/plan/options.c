/* options.c — planner option defaults and the checks that need no kernel or
 * target (see options.h).  Checks that need the target (block widths, local
 * lanes, task grains) or the kernel (root order, tiles) live in solve.c. */
#include "plan/options.h"

#include "base/context.h"
#include "plan/split.h"

#include <math.h>
#include <string.h>

plan_cost_coefficients plan_cost_coefficients_default(void) {
    return (plan_cost_coefficients){
        .arithmetic = 1,
        .broadcast_load = 1,
        .contiguous_memory = 2,
        .gathered_lane = 2,
        .block_dispatch = 128,
        .task_dispatch = 0,
        /* Waking a second worker and joining it costs about 1 µs on the
         * development host (gemm 17×19×13: 0.58 µs on one worker, 1.34 µs on
         * two); one model unit is about 0.12 ns there (gemm 1024³: score
         * 2.28e8 for 27.6 ms, 17×19×13: 5033 for 0.58 µs). */
        .worker_activation = 8000,
        /* Off until calibrated (`tilec tune --fit`, issue 18): with the
         * priors 1, 4, 16 (a line filled from L2 about a cycle, from L3 a few,
         * from memory about twenty) the model, which sees the views and not
         * the packed panels, ranked gemm_bf16 1000³'s orders wrong on a host
         * with a 2 MiB L2 and ran 1.75× slower. */
        .l1_line = 0,
        .l2_line = 0,
        .l3_line = 0,
    };
}

plan_options plan_options_default(void) {
    return (plan_options){
        .block_size = 0,
        .max_candidates = 1024,
        .cost = plan_cost_coefficients_default(),
        .max_unrolled_tile_elements = 64,
        .max_unrolled_region_work = 4096,
        .reduction_partitions = 4,
        .max_recipe_depth = 64,
        .local_lanes = 0,
        .blocks_per_task = 0,
        .search_task_grain = false,
        .search_tiles = false,
    };
}

tilec_status plan_coefficients_validate(tilec_context *ctx, const plan_cost_coefficients *c, const char *source) {
#define X(field) \
    if (!isfinite(c->field) || c->field < 0) \
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-C01", tilec_no_loc(), \
                           "invalid cost coefficient from %s: " #field " is %g; every coefficient must be finite and >= 0", \
                           source, c->field);
    PLAN_COEFFICIENTS(X)
#undef X
    return TILEC_OK;
}

static const char *const mode_names[] = {"auto", "on", "off"};

const char *plan_mode_name(unsigned mode) { return mode < 3 ? mode_names[mode] : "?"; }

bool plan_mode_parse(const char *text, unsigned *mode) {
    for (unsigned m = 0; m < 3; m++)
        if (!strcmp(text, mode_names[m])) return *mode = m, true;
    return false;
}

tilec_status plan_options_validate(tilec_context *ctx, const plan_options *o) {
    if (o->max_candidates == 0)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O01", tilec_no_loc(),
                           "max_candidates is 0: the candidate budget must allow at least one candidate");
    if (o->reduction_partitions < 1 || o->reduction_partitions > 16)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O02", tilec_no_loc(), "reduction_partitions %u is outside 1..16",
                           o->reduction_partitions);
    if (o->root_axis_order_len && !o->root_axis_order)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O03", tilec_no_loc(), "root_axis_order has a length but no array");
    if (o->root_axis_tiles_len && !o->root_axis_tiles)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O03", tilec_no_loc(), "root_axis_tiles has a length but no array");
    if ((unsigned)o->pack > PLAN_PACK_OFF)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O09", tilec_no_loc(), "pack %u is not auto (0), on (1) or off (2)",
                           (unsigned)o->pack);
    if ((unsigned)o->split > TILEC_SPLIT_OFF)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O10", tilec_no_loc(), "split %u is not auto (0), on (1) or off (2)",
                           (unsigned)o->split);
    if (o->split_chunks == 1 || o->split_chunks > PLAN_SPLIT_MAX_CHUNKS)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O12", tilec_no_loc(),
                           "split_chunks %u is outside 2..%d (0: the planner's choice)", o->split_chunks,
                           PLAN_SPLIT_MAX_CHUNKS);
    if ((unsigned)o->fuse > TILEC_FUSE_OFF)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O11", tilec_no_loc(), "fuse %u is not auto (0), on (1) or off (2)",
                           (unsigned)o->fuse);
    return plan_coefficients_validate(ctx, &o->cost, "the options");
}
