/* compile.c — from a plan to lowered XIR (see plan_lower / plan_compile in
 * solve.h).  The selected plan fixes the lowering's block width, root order,
 * packet width and snapshot budget; the plan's options fix the
 * representation settings, so the lowering rebuilds exactly the
 * representation plan the planner priced.  The lowering then checks its
 * emitted allocas against that plan, and this file checks that the lowered
 * resource facts equal the planned ones (a mismatch is PLAN-I01, an
 * internal error).
 *
 * The realization string is the planner's items (search size, every cost
 * term, schedule, fusion) followed by the lowering's own. */
#include "plan/solve.h"

#include "base/strbuf.h"

#include <string.h>

static void describe_plan(const plan_result *p, strbuf *s) {
    const plan_choice *c = plan_selected(p);
    const plan_options *o = &p->options;
    strbuf_printf(s,
                  "planner=exact; target=%s; candidates=%llu; admitted_candidates=%zu; rejected_candidates=%zu; "
                  "cost_policy=%s; custom_cost_policy=%d; ",
                  p->target_name, (unsigned long long)p->candidate_count, p->candidates.len, p->rejected.len,
                  p->policy, p->custom_policy);
#define X(term) strbuf_printf(s, "cost_" #term "=%.17g; ", c->cost.term);
    PLAN_COST_TERMS(X)
#undef X
    strbuf_printf(s,
                  "planned_block=%u; planned_local_lanes=%u; blocks_per_task=%llu; task_count=%llu; "
                  "active_workers=%llu; cpu_workers=%u; l1d_bytes=%llu; l2_bytes=%llu; l3_bytes=%llu; "
                  "vector_registers=%u; spill_accesses=%.17g; reused_load_bytes=%.17g; critical_packets=%llu; critical_blocks=%llu; "
                  "critical_tasks=%llu; cache_lines_l1=%.17g; cache_lines_l2=%.17g; cache_lines_l3=%.17g; "
                  "fuse=%s; fused=%u; ",
                  c->candidate.block_size, c->candidate.local_lanes, (unsigned long long)c->work.blocks_per_task,
                  (unsigned long long)c->work.task_count, (unsigned long long)c->work.active_workers,
                  p->target.worker_count, (unsigned long long)p->target.l1d_bytes,
                  (unsigned long long)p->target.l2_bytes, (unsigned long long)p->target.l3_bytes,
                  p->target.vector_registers, c->work.spill_accesses, c->work.reused_load_bytes, (unsigned long long)c->work.critical_packets,
                  (unsigned long long)c->work.critical_blocks, (unsigned long long)c->work.critical_tasks,
                  c->work.cache_lines[0], c->work.cache_lines[1], c->work.cache_lines[2], options_mode_name(o->fuse),
                  c->candidate.fused);
}

tilec_status plan_lower(tilec_context *ctx, const tir_func *f, const plan_result *plan, const lower_options *base,
                        lower_result *out) {
    if (!ctx || !out) return TILEC_E_ARG;
    memset(out, 0, sizeof *out);
    const plan_choice *c = plan ? plan_selected(plan) : NULL;
    if (!c)
        return tilec_error(ctx, TILEC_E_ARG, "PLAN-O08", tilec_no_loc(), "plan_lower needs a successful plan");
    lower_options o = base ? *base : lower_options_default();
    o.block_size = c->candidate.block_size;
    o.packet_width = c->candidate.packet_width;
    o.root_axis_order = c->candidate.order;
    o.root_axis_order_len = c->candidate.rank;
    o.root_axis_tiles = c->candidate.tiled ? c->candidate.tiles : NULL;
    o.root_axis_tiles_len = c->candidate.tiled ? c->candidate.rank : 0;
    o.max_local_bytes = c->limits.max_snapshot_bytes_per_worker;
    o.max_unrolled_tile_elements = plan->options.max_unrolled_tile_elements;
    o.max_unrolled_region_work = plan->options.max_unrolled_region_work;
    o.reduction_partitions = plan->options.reduction_partitions;
    o.max_recipe_depth = plan->options.max_recipe_depth;
    o.local_lanes = c->candidate.local_lanes;
    o.fuse = c->candidate.fused;
    o.packing = plan->packing.count ? &plan->packing : NULL;
    tilec_status st = lower_kernel(ctx, f, &o, out);
    if (st) return st;
    if (out->resources.snapshot_bytes_per_worker != c->resources.snapshot_bytes_per_worker ||
        out->resources.snapshot_allocations != c->resources.snapshot_allocations) {
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
    describe_plan(plan, &s);
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

tilec_status plan_compile(tilec_context *ctx, const tir_func *f, const plan_options *options,
                          const plan_target_info *info, const lower_options *base, plan_result *plan,
                          lower_result *out) {
    if (out) memset(out, 0, sizeof *out);
    tilec_status st = plan_kernel(ctx, f, options, info, plan);
    return st ? st : plan_lower(ctx, f, plan, base, out);
}
