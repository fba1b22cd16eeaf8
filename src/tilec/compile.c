/* compile.c — the facade's compile entry points (include/tilec/tilec.h),
 * each one run of the pipeline (src/driver/pipeline.h): tilec_compile makes
 * a kernel, tilec_explain stops after planning and writes the plan's
 * report; and what they share with the pipeline: the planner's options of a
 * compile record, the plan's label, native code through the kernel cache,
 * and a kernel's end. */
#include "driver/pipeline.h"
#include "plan/report.h"
#include "tir/ir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

plan_options tilec_planner_options(const tilec_compile_options *o) {
    plan_options p = plan_options_default();
    p.block_size = o->block_size;
    p.root_axis_order = o->root_axis_order;
    p.root_axis_order_len = o->root_axis_order_len;
    p.root_axis_tiles = o->root_axis_tiles;
    p.root_axis_tiles_len = o->root_axis_tiles_len;
    p.max_candidates = o->max_candidates;
    p.blocks_per_task = o->blocks_per_task;
    p.search_task_grain = o->search_task_grain;
    p.search_tiles = o->search_tiles;
    p.cost = o->cost;
    p.max_unrolled_tile_elements = o->max_unrolled_tile_elements;
    p.reduction_partitions = o->reduction_partitions;
    p.local_lanes = o->local_lanes;
    p.pack = o->pack;
    p.split = o->split;
    p.split_chunks = o->split_chunks;
    p.fuse = o->fuse;
    return p;
}

void tilec_plan_label(const plan_result *p, strbuf *s) {
    const plan_choice *c = plan_selected(p);
    strbuf_append(s, "order[");
    for (uint32_t i = 0; i < c->candidate.rank; i++) strbuf_printf(s, "%s%u", i ? "," : "", c->candidate.order[i]);
    strbuf_printf(s, "]/block%u", c->candidate.block_size);
    if (c->candidate.local_lanes > 1) strbuf_printf(s, "/local%u", c->candidate.local_lanes);
    if (c->candidate.fused) strbuf_append(s, c->candidate.fused == 1 ? "/fused" : "/fused2");
    strbuf_printf(s, "/grain%llu/tasks%llu",
                  (unsigned long long)c->work.blocks_per_task, (unsigned long long)c->work.task_count);
    if (c->candidate.tiled) {
        strbuf_append(s, "/tiles[");
        for (size_t i = 0; i < c->candidate.rank; i++) strbuf_printf(s, "%s%u", i ? "," : "", c->candidate.tiles[i]);
        strbuf_append(s, "]");
    }
}

tilec_status tilec_compile_native(tilec_context *ctx, tilec_kernel *k, const xir_func *f, const simd_options *so) {
    simd_cache_outcome cached = SIMD_CACHE_OFF;
    tilec_status st;
    if (k->aot) /* emitted into the object; its code is generated at the end */
        st = simd_aot_add(k->aot, f, so, &k->native, &k->aot_entry);
    else
        st = simd_compile_cached(ctx, f, so, &k->native, &cached);
    k->cache = simd_cache_outcome_name(cached);
    return st;
}

tilec_status tilec_explain(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tir_write_fn write, void *user) {
    if (!ctx || !f || !write)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_explain: NULL argument");
    pipeline p;
    pipeline_init(&p, ctx, f, options, &PIPELINE_CPU, PIPELINE_PLAN);
    tilec_status st = pipeline_run(&p);
    const plan_choice **rank = p.planned ? plan_ranking(ctx, &p.plan) : NULL;
    /* a plan, or why there is none: the report says which candidates failed */
    if (rank && (!st || p.plan.candidate_count)) {
        strbuf text;
        strbuf_init(&text, ctx);
        plan_report_text(&text, &p.plan, rank, true);
        tilec_status w = text.failed ? TILEC_E_NOMEM : write(user, strbuf_cstr(&text), strlen(strbuf_cstr(&text)));
        strbuf_free(&text);
        if (!st) st = w;
    } else if (p.planned && !rank && !st) {
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory ranking the candidates");
    }
    tilec_free(ctx, rank);
    pipeline_free(&p);
    return st;
}

tilec_status tilec_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tilec_kernel **out) {
    return pipeline_compile(ctx, f, options, NULL, out);
}

void tilec_kernel_destroy(tilec_kernel *k) {
    if (!k) return;
    for (uint32_t i = 0; i < RT_MAX_PACKS; i++) tilec_kernel_destroy(k->pack[i]);
    tilec_kernel_destroy(k->split_partial);
    tilec_kernel_destroy(k->split_combine);
    tilec_kernel_destroy(k->unfused);
    tilec_free(k->ctx, k->disjoint);
    tilec_free(k->ctx, k->disjoint_or_equal);
    rt_program_free_scratch(k->ctx, &k->prog);
    simd_kernel_destroy(k->native);
    tilec_kernel_release_gpu(k);
    if (k->owns_runtime) tilec_runtime_destroy(k->runtime);
    tilec_free(k->ctx, k->params);
    tilec_free(k->ctx, k->fault_sites);
    strbuf_free(&k->name);
    strbuf_free(&k->plan);
    strbuf_free(&k->plan_realization);
    strbuf_free(&k->realization);
    strbuf_free(&k->json);
    strbuf_free(&k->split);
    tilec_free(k->ctx, k);
}
