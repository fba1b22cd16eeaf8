/* kernel.c — the kernel object the pipeline's emit step fills
 * (driver/kernel.h): a new, empty one and its end, what dispatch needs copied out of the
 * lowering, native code through the kernel cache, and the label of the
 * plan a kernel keeps. */
#include "driver/pipeline.h"
#include "tir/form.h"
#include "tir/text.h"

#include "gpu/cuda.h"

#include <string.h>

static tilec_kernel *kernel_new(tilec_context *ctx, const char *name) {
    tilec_kernel *k = tilec_alloc(ctx, sizeof *k);
    if (!k) return NULL;
    k->ctx = ctx;
    strbuf_init(&k->name, ctx);
    strbuf_init(&k->plan, ctx);
    strbuf_init(&k->plan_realization, ctx);
    strbuf_init(&k->realization, ctx);
    strbuf_init(&k->json, ctx);
    strbuf_init(&k->split, ctx);
    strbuf_init(&k->recipe_text, ctx);
    strbuf_init(&k->chosen_params, ctx);
    strbuf_append(&k->name, name);
    return k;
}

static const char *param_name(const tir_func *f, size_t i) {
    const char *name = tir_value_name(tir_func_param(f, i));
    return name ? name : "";
}

/* Each TileIR parameter's name and use (tilec_kernel_arg_name, _arg_use),
 * in one block: the uses, then the names' pointers, then their text. */
static bool describe_params(tilec_kernel *k, const tir_func *f) {
    size_t n = tir_func_param_count(f), text = 0;
    for (size_t i = 0; i < n; i++) text += strlen(param_name(f, i)) + 1;
    size_t names_at = (n + sizeof(char *) - 1) / sizeof(char *) * sizeof(char *);
    unsigned char *block = tilec_alloc(k->ctx, names_at + n * sizeof(char *) + text + 1);
    if (!block) return false;
    k->arg_use = block;
    k->arg_names = (const char **)(block + names_at);
    char *at = (char *)(k->arg_names + n);
    for (size_t i = 0; i < n; i++) {
        const char *name = param_name(f, i);
        k->arg_use[i] = (unsigned char)tir_func_param_use(f, i);
        k->arg_names[i] = memcpy(at, name, strlen(name) + 1);
        at += strlen(name) + 1;
    }
    return true;
}

tilec_status pipeline_kernel_start(pipeline *p) {
    if (!p->make_kernel) return TILEC_OK;
    if (!(p->k = kernel_new(p->ctx, tir_func_name(p->f))))
        return tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a kernel");
    p->k->workers = p->workers;
    const tir_func *f = p->source;
    for (uint32_t i = 0; i < f->sym_count; i++) {
        size_t n = strlen(f->syms[i]->name) + 1;
        rt_dim *d = &p->k->dims[p->k->dim_count];
        if (!(d->name = tilec_alloc(p->ctx, n)))
            return tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a kernel");
        memcpy(d->name, f->syms[i]->name, n);
        d->lo = f->syms[i]->lo, d->hi = f->syms[i]->hi;
        p->k->dim_count++;
    }
    for (uint32_t i = 0; i < f->shape_param_count; i++) {
        const tir_shape_param *sp = &f->shape_params[i];
        if (!sp->choices) continue;
        strbuf *c = &p->k->chosen_params;
        strbuf_printf(c, "%s%s:%lld of ", c->len ? " " : "", sp->name, (long long)sp->value);
        for (uint32_t j = 0; j < sp->choice_count; j++)
            strbuf_printf(c, "%s%lld", j ? "," : "", (long long)sp->choices[j]);
    }
    return describe_params(p->k, f) && !p->k->chosen_params.failed
               ? TILEC_OK
               : tilec_error(p->ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a kernel");
}

/* Everything the kernel owns: its helper kernels, code, runtime, the CUDA
 * driver's module, tables and strings. */
void pipeline_kernel_free(tilec_kernel *k) {
    if (!k) return;
    for (uint32_t i = 0; i < RT_MAX_PACKS; i++) pipeline_kernel_free(k->pack[i]);
    pipeline_kernel_free(k->split_partial);
    pipeline_kernel_free(k->split_combine);
    pipeline_kernel_free(k->unfused);
    for (uint32_t i = 0; i < k->variant_count; i++) pipeline_kernel_free(k->variants[i]);
    tilec_free(k->ctx, k->disjoint);
    tilec_free(k->ctx, k->disjoint_or_equal);
    rt_program_free_scratch(k->ctx, &k->prog);
    simd_kernel_destroy(k->native);
    if (k->xir) lower_result_free(k->xir);
    tilec_free(k->ctx, k->xir);
    if (k->module) gpu_cuda_unload(k->cuda, k->module);
    gpu_cuda_close(k->cuda);
    gpu_kernel_destroy(k->gpu);
    tilec_free(k->ctx, k->gpu_written);
    if (k->owns_runtime) tilec_runtime_destroy(k->runtime);
    tilec_free(k->ctx, k->params);
    tilec_free(k->ctx, k->arg_use);
    tilec_free(k->ctx, k->fault_sites);
    tilec_free(k->ctx, k->size_steps);
    tilec_free(k->ctx, k->arg_sizes);
    for (uint32_t i = 0; i < k->dim_count; i++) tilec_free(k->ctx, k->dims[i].name);
    strbuf_free(&k->name);
    strbuf_free(&k->plan);
    strbuf_free(&k->plan_realization);
    strbuf_free(&k->realization);
    strbuf_free(&k->json);
    strbuf_free(&k->split);
    strbuf_free(&k->recipe_text);
    strbuf_free(&k->chosen_params);
    tilec_free(k->ctx, k->recipe_func);
    tilec_free(k->ctx, k->recipe_arrays);
    tilec_free(k->ctx, k);
}

bool tilec_kernel_keep_recipe(tilec_kernel *k, const tir_func *f, const tilec_compile_options *o) {
    tilec_compile_options r = o ? *o : tilec_compile_options_default();
    size_t n = r.root_axis_order_len + r.root_axis_tiles_len + r.bucket_cuts_len;
    const char *name = tir_func_name(f);
    if (!tir_print_to_strbuf(tir_func_module(f), &k->recipe_text) ||
        !(k->recipe_func = tilec_alloc(k->ctx, strlen(name) + 1)) ||
        (n && !(k->recipe_arrays = tilec_alloc(k->ctx, n * sizeof *k->recipe_arrays))))
        return false;
    memcpy(k->recipe_func, name, strlen(name) + 1);
    uint32_t *at = k->recipe_arrays;
    const uint32_t **arrays[3] = {&r.root_axis_order, &r.root_axis_tiles, &r.bucket_cuts};
    size_t lens[3] = {r.root_axis_order_len, r.root_axis_tiles_len, r.bucket_cuts_len};
    for (int i = 0; i < 3; i++) {
        if (lens[i]) memcpy(at, *arrays[i], lens[i] * sizeof *at);
        *arrays[i] = lens[i] ? at : NULL;
        at += lens[i];
    }
    r.runtime = NULL;
    r.gpu_arch = NULL;
    k->recipe_options = r;
    return true;
}

/* The argument table and the launch geometry (a function of the runtime
 * sizes for a kernel of f's that has them). */
bool pipeline_take_launch(tilec_kernel *k, const tir_func *f, const plan_result *p, const lower_result *lr) {
    k->params = lr->arg_count ? tilec_alloc(k->ctx, lr->arg_count * sizeof *k->params) : NULL;
    if (lr->arg_count && !k->params) return false;
    k->prog.user_args = (uint32_t)(lr->arg_count - lr->packed);
    for (size_t i = 0; i < lr->arg_count; i++) {
        k->params[i] = (rt_param){lr->args[i].elem, lr->args[i].min_bytes};
        if (i < k->prog.user_args) k->arg_bytes += lr->args[i].min_bytes;
    }
    k->prog.desc = (rt_kernel){
        .name = strbuf_cstr(&k->name),
        /* same ABI: runtime.c; the XIR interpreter's kernel has no entry */
        .entry = k->native ? (rt_entry)(void (*)(void))simd_kernel_entry(k->native) : NULL,
        .arg_count = (uint32_t)lr->arg_count,
        .params = k->params,
        .dispatch_size = lr->dispatch_size,
        .block_size = lr->block_size,
        /* runtime sizes: the grain the candidate asked (0: the pool's
         * heuristic at each dispatch's block count), not the one at the
         * sizes it was planned at */
        .blocks_per_task = f->sym_count ? plan_selected(p)->candidate.blocks_per_task
                                        : plan_selected(p)->work.blocks_per_task,
        .workspace_bytes = k->native ? simd_kernel_workspace_bytes(k->native) : 0,
    };
    if (f->sym_count && !kernel_sizes_make(k, f, lr->local_lanes)) return false;
    tilec_plan_label(p, f->sym_count != 0, &k->plan);
    strbuf_append(&k->plan_realization, lr->realization ? lr->realization : "");
    return !k->plan.failed && !k->plan_realization.failed;
}

void tilec_plan_label(const plan_result *p, bool sized, strbuf *s) {
    const plan_choice *c = plan_selected(p);
    strbuf_append(s, "order[");
    for (uint32_t i = 0; i < c->candidate.rank; i++) strbuf_printf(s, "%s%u", i ? "," : "", c->candidate.order[i]);
    strbuf_printf(s, "]/block%u", c->candidate.block_size);
    if (c->candidate.local_lanes > 1) strbuf_printf(s, "/local%u", c->candidate.local_lanes);
    if (c->candidate.fused) strbuf_append(s, c->candidate.fused == 1 ? "/fused" : "/fused2");
    if (sized && !c->candidate.blocks_per_task) strbuf_append(s, "/grain-per-dispatch");
    else
        strbuf_printf(s, "/grain%llu/tasks%llu", (unsigned long long)c->work.blocks_per_task,
                      (unsigned long long)c->work.task_count);
    if (c->candidate.tiled) {
        strbuf_append(s, "/tiles[");
        for (size_t i = 0; i < c->candidate.rank; i++) strbuf_printf(s, "%s%u", i ? "," : "", c->candidate.tiles[i]);
        strbuf_append(s, "]");
    }
}

tilec_status tilec_compile_native(tilec_context *ctx, tilec_kernel *k, const xir_func *f, const tilec_compile_options *o,
                                  const simd_facts *d) {
    simd_cache_outcome cached = SIMD_CACHE_OFF;
    tilec_status st;
    if (k->aot) /* emitted into the object; its code is generated at the end */
        st = simd_aot_add(k->aot, f, o, d, &k->native, &k->aot_entry);
    else
        st = simd_compile_cached(ctx, f, o, d, &k->native, &cached);
    k->cache = simd_cache_outcome_name(cached);
    return st;
}
