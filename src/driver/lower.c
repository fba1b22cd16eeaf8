/* lower.c — the lower stage's work: a plan realized as XIR.  The selected
 * plan fixes the lowering's block width, root order, tiles, packet width,
 * local lanes, fusion level, packing and snapshot budget (a realize_choice);
 * the record the plan was made under fixes the representation settings, so
 * the lowering rebuilds exactly the representation plan the planner priced.  The lowering checks its
 * emitted allocas against that plan, and this file checks that the lowered
 * resource facts equal the planned ones (a mismatch is PLAN-I01, an
 * internal error).  The realization string is the planner's items
 * (plan_report_describe) followed by the lowering's own. */
#include "driver/pipeline.h"

#include "plan/report.h"

#include <string.h>

/* What the selected candidate decided, as the lowering reads it: its
 * arrays are the candidate's, the packing the plan's. */
static realize_choice choice_of(const plan_result *plan, const plan_choice *c) {
    realize_choice r = realize_choice_default();
    r.block = c->candidate.block_size;
    r.packet_width = c->candidate.packet_width;
    r.order = c->candidate.order;
    r.order_len = c->candidate.rank;
    r.tiles = c->candidate.tiled ? c->candidate.tiles : NULL;
    r.tiles_len = c->candidate.tiled ? c->candidate.rank : 0;
    r.lanes = c->candidate.local_lanes;
    r.fused = c->candidate.fused;
    r.snapshot_budget = c->limits.max_snapshot_bytes_per_worker;
    r.packing = plan->packing.count || plan->packing.word_count ? &plan->packing : NULL;
    return r;
}

tilec_status pipeline_lower(tilec_context *ctx, const tir_func *f, const plan_result *plan, lower_result *out) {
    if (!ctx || !out) return TILEC_E_ARG;
    memset(out, 0, sizeof *out);
    const plan_choice *c = plan ? plan_selected(plan) : NULL;
    if (!c)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O08", tilec_no_loc(), "plan_lower needs a successful plan");
    realize_choice choice = choice_of(plan, c);
    tilec_status st = lower_kernel(ctx, f, &plan->options, &choice, out);
    if (st) return st;
    /* (A kernel with runtime sizes was priced at a bucket's sizes, without
     * the loop peels its lowering adds: its budget was checked there.) */
    if (!f->sym_count && (out->resources.snapshot_bytes_per_worker != c->resources.snapshot_bytes_per_worker ||
                          out->resources.snapshot_allocations != c->resources.snapshot_allocations)) {
        st = tilec_error(ctx, TILEC_E_INTERNAL, "PLAN-I01", tilec_no_loc(),
                         "internal error: kernel '@%s' lowered to %llu snapshot bytes in %llu arrays, but the plan "
                         "priced %llu bytes in %llu arrays",
                         f->name, (unsigned long long)out->resources.snapshot_bytes_per_worker,
                         (unsigned long long)out->resources.snapshot_allocations,
                         (unsigned long long)c->resources.snapshot_bytes_per_worker,
                         (unsigned long long)c->resources.snapshot_allocations);
        lower_result_free(out);
        return st;
    }
    strbuf s;
    strbuf_init(&s, ctx);
    plan_report_describe(&s, plan);
    strbuf_append(&s, out->realization ? out->realization : "");
    const char *text = s.failed ? NULL : arena_strdup(&out->module->arena, strbuf_cstr(&s));
    strbuf_free(&s);
    if (!text) {
        lower_result_free(out);
        return tilec_error(ctx, TILEC_E_NOMEM, "PLAN-M01", tilec_no_loc(), "out of memory describing the plan");
    }
    out->realization = text;
    return TILEC_OK;
}

tilec_status pipeline_plan_and_lower(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                                     const plan_target_info *info, plan_result *plan, lower_result *out) {
    if (out) memset(out, 0, sizeof *out);
    tilec_status st = plan_kernel(ctx, f, options, info, plan);
    return st ? st : pipeline_lower(ctx, f, plan, out);
}
