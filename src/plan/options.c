/* options.c — the coefficients' defaults and the checks of the planner's
 * options that need no kernel or target (see options.h).  Checks that need
 * the target (block widths, local lanes, task grains) or the kernel (root
 * order, tiles) live in solve.c. */
#include "plan/options.h"

#include "base/context.h"
#include "plan/split.h"

#include <math.h>
#include <string.h>

plan_cost_coefficients plan_cost_coefficients_default(void) { return tilec_compile_options_default().cost; }

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

tilec_status plan_options_validate(tilec_context *ctx, const tilec_compile_options *o) {
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
    if (o->bucket_cuts_len && !o->bucket_cuts)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O03", tilec_no_loc(), "bucket_cuts has a length but no array");
    if (o->bucket_cuts_len > 15)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O13", tilec_no_loc(), "bucket_cuts has %zu cuts (at most 15)",
                           o->bucket_cuts_len);
    for (size_t i = 1; i < o->bucket_cuts_len; i++)
        if (o->bucket_cuts[i] <= o->bucket_cuts[i - 1])
            return tilec_error(ctx, TILEC_E_ARG, "PLAN-O13", tilec_no_loc(),
                               "bucket_cuts must rise: %u follows %u", o->bucket_cuts[i], o->bucket_cuts[i - 1]);
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
