/* kernel.c — the kernel object the pipeline's emit step fills
 * (tilec/kernel.h): a new, empty one, and what dispatch needs copied out of
 * the lowering. */
#include "driver/pipeline.h"

tilec_kernel *pipeline_kernel_new(tilec_context *ctx, const char *name) {
    tilec_kernel *k = tilec_alloc(ctx, sizeof *k);
    if (!k) return NULL;
    k->ctx = ctx;
    strbuf_init(&k->name, ctx);
    strbuf_init(&k->plan, ctx);
    strbuf_init(&k->plan_realization, ctx);
    strbuf_init(&k->realization, ctx);
    strbuf_init(&k->json, ctx);
    strbuf_init(&k->split, ctx);
    strbuf_append(&k->name, name);
    return k;
}

/* The argument table and the launch geometry. */
bool pipeline_take_launch(tilec_kernel *k, const plan_result *p, const lower_result *lr) {
    k->params = lr->arg_count ? tilec_alloc(k->ctx, lr->arg_count * sizeof *k->params) : NULL;
    if (lr->arg_count && !k->params) return false;
    k->prog.user_args = (uint32_t)(lr->arg_count - lr->packed);
    for (size_t i = 0; i < lr->arg_count; i++) {
        k->params[i] = (rt_param){lr->args[i].elem, lr->args[i].min_bytes};
        if (i < k->prog.user_args) k->arg_bytes += lr->args[i].min_bytes;
    }
    k->prog.desc = (rt_kernel){
        .name = strbuf_cstr(&k->name),
        .entry = (rt_entry)(void (*)(void))simd_kernel_entry(k->native), /* same ABI: runtime.c */
        .arg_count = (uint32_t)lr->arg_count,
        .params = k->params,
        .dispatch_size = lr->dispatch_size,
        .block_size = lr->block_size,
        .blocks_per_task = plan_selected(p)->work.blocks_per_task,
        .workspace_bytes = simd_kernel_workspace_bytes(k->native),
    };
    tilec_plan_label(p, &k->plan);
    strbuf_append(&k->plan_realization, lr->realization ? lr->realization : "");
    return !k->plan.failed && !k->plan_realization.failed;
}
