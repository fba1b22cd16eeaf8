/* resources.c — sums the allocation sites of a representation plan (see
 * resources.h) with checked arithmetic. */
#include "realize/resources.h"

#include "base/checked.h"
#include "base/context.h"

tilec_status plan_resources_of(const plan_repr *r, plan_resources *out) {
    *out = (plan_resources){0, 0};
    for (size_t id = 0; id < r->value_count; id++) {
        const plan_value *v = &r->values[id];
        uint64_t arrays = v->arrays + (v->snapshot ? 1 : 0), sites, bytes;
        if (!arrays || !v->multiplicity) continue;
        if (!checked_mul_u64(arrays, v->multiplicity, &sites) ||
            !checked_mul_u64(sites, v->count, &bytes) || !checked_mul_u64(bytes, tir_scalar_size(v->elem), &bytes) ||
            !checked_add_u64(out->snapshot_allocations, sites, &out->snapshot_allocations) ||
            !checked_add_u64(out->snapshot_bytes_per_worker, bytes, &out->snapshot_bytes_per_worker))
            return tilec_error(r->ctx, TILEC_E_BUDGET, "LOWER-B02", tilec_no_loc(),
                               "snapshot storage budget: the static snapshot demand of kernel '@%s' overflows 64 bits",
                               r->func->name);
    }
    return TILEC_OK;
}

tilec_status plan_analyze_resources(tilec_context *ctx, const tir_func *f, const plan_repr_options *options,
                                    plan_resources *out) {
    *out = (plan_resources){0, 0};
    plan_admission admission;
    tilec_status st = plan_admit(ctx, f, &admission);
    if (st) return st;
    plan_repr repr;
    if ((st = plan_represent(ctx, f, &admission, options, &repr))) return st;
    st = plan_resources_of(&repr, out);
    plan_repr_free(&repr);
    return st;
}
