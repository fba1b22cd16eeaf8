/* interpret.c — the interpreters' kernels.  The reference target
 * (TILEC_ENGINE_REFERENCE) neither plans nor lowers: its kernel is the
 * caller's TileIR, borrowed, run by the FP64 reference interpreter
 * (tir_interpret) — the oracle every other engine is checked against.
 * The XIR interpreter's (TILEC_ENGINE_XIR; the targets xir and xir-cuda of
 * targets.c plan and lower as for the modeled CPU or GPU): the emit stage
 * keeps the lowering itself as the kernel's code; dispatch runs
 * it on the W-lane XIR interpreter (xir/interp.h) on the calling thread.
 * A plan that packs panels has its copy kernels made the same way, run
 * first into the kernel's scratch as native dispatch does; a bounds fault
 * is reported as the reference interpreter reports it.  This is what
 * `tilec run --xir` runs: the lowering's semantics, without the backend. */
#include "driver/pipeline.h"

#include "base/clock.h"
#include "base/invariant.h"
#include "tir/ir.h"
#include "xir/interp.h"

#include <string.h>

static tilec_status no_memory(tilec_context *ctx) {
    return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a kernel");
}

/* A root domain with no instances: a kernel that checks its arguments and
 * interprets nothing. */
tilec_status pipeline_xir_empty(pipeline *p) {
    if (!(p->k->xir = tilec_alloc(p->ctx, sizeof *p->k->xir))) return no_memory(p->ctx);
    p->k->xir->packet_width = p->width;
    return tilec_kernel_empty_launch(p->ctx, p->k, p->f, p->width);
}

/* The lowering moves into the kernel, then its panel copy kernels. */
tilec_status pipeline_xir_emit(pipeline *p) {
    tilec_kernel *k = p->k;
    if (!k) return TILEC_OK;
    if (!(k->xir = tilec_alloc(p->ctx, sizeof *k->xir))) return no_memory(p->ctx);
    *k->xir = p->lowered;
    memset(&p->lowered, 0, sizeof p->lowered);
    k->times = (tilec_compile_times){.verify = p->ms[TILEC_STAGE_VERIFY],
                                     .plan = p->ms[TILEC_STAGE_PLAN],
                                     .lower = p->ms[TILEC_STAGE_LOWER]};
    k->flops = tilec_count_mma_flops(p->f);
    if (!pipeline_take_launch(k, p->f, &p->plan, k->xir) || !tilec_kernel_take_fault_sites(k, k->xir))
        return no_memory(p->ctx);
    tilec_status st = k->xir->packed ? program_compile_packs(p) : TILEC_OK;
    k->times.total = now_ms() - p->verified;
    return st;
}

/* Interprets k's lowering on args[0..n); a recorded bounds fault becomes
 * the reference's diagnostic. */
static tilec_status interpret(tilec_context *ctx, const tilec_kernel *k, uint32_t dispatch_size, size_t n,
                              const tir_buffer *args) {
    const lower_result *r = k->xir;
    fault_record faults = {0};
    xir_interp_options o = xir_interp_default_options();
    o.faults = &faults;
    tilec_status st = xir_interpret_with(ctx, r->kernel, dispatch_size, r->packet_width, n, args, &o);
    if (!st && faults.count)
        st = TILEC_INVARIANT(ctx, faults.site < k->fault_site_count)
                 ? tir_fault_report(ctx, &k->fault_sites[faults.site], faults.value)
                 : TILEC_E_INTERNAL;
    return st;
}

/* The arguments as the interpreters take them, in all[0..n), after the
 * checks every dispatch makes (RT-D02..D05); room for `spare` more. */
enum { MAX_ARGS = 64 };
static tilec_status bind(tilec_context *ctx, const tilec_kernel *k, const rt_param *params, size_t n,
                         const tilec_buffer *args, size_t spare, tir_buffer all[MAX_ARGS]) {
    if (n > MAX_ARGS - spare)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "RT-D02", tilec_no_loc(),
                           "%s: an interpreter's kernel takes at most %zu arguments", k->prog.desc.name,
                           (size_t)MAX_ARGS - spare);
    rt_arg bound[MAX_ARGS];
    for (size_t i = 0; args && i < n; i++) {
        bound[i] = (rt_arg){args[i].data, args[i].size_bytes, args[i].elem};
        all[i] = (tir_buffer){args[i].data, args[i].size_bytes};
    }
    return rt_check_bound_args(ctx, k->prog.desc.name, params, k->prog.user_args, args ? bound : NULL, (uint32_t)n);
}

/* A kernel compiled for a range of sizes at `dims`: its dispatch size and
 * each argument's bytes, as the runtime computes them (rt_program_sizes). */
static tilec_status sized_launch(tilec_context *ctx, const tilec_kernel *k, const int64_t *dims, rt_param *params,
                                 uint32_t *dispatch_size) {
    if (k->prog.user_args + k->prog.packs + 1 > MAX_ARGS) /* params holds them all */
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "RT-D02", tilec_no_loc(),
                           "%s: an interpreter's kernel takes at most %d arguments", k->prog.desc.name, MAX_ARGS - 1);
    return rt_program_launch_sizes(ctx, &k->prog, dims, params, dispatch_size);
}

/* A pack's copy kernel from src into panels (at the dims when it has
 * runtime sizes: its dispatch size theirs, the dims its last buffer). */
static tilec_status run_copy(tilec_context *ctx, const tilec_kernel *c, tir_buffer src, tir_buffer panels,
                             const int64_t *dims) {
    rt_param sized[MAX_ARGS];
    uint32_t dispatch_size = c->xir->dispatch_size;
    tilec_status st = c->prog.dim_count ? sized_launch(ctx, c, dims, sized, &dispatch_size) : TILEC_OK;
    tir_buffer copy[3] = {src, panels, {(void *)dims, c->prog.dim_count * sizeof *dims}};
    return st ? st : interpret(ctx, c, dispatch_size, c->prog.dim_count ? 3 : 2, copy);
}

tilec_status pipeline_dispatch_xir(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                   const int64_t *dims) {
    rt_program *prog = &k->prog;
    tir_buffer all[MAX_ARGS];
    rt_param sized[MAX_ARGS];
    uint32_t dispatch_size = k->xir->dispatch_size;
    rt_panel_layout panels;
    tilec_status st = prog->dim_count ? sized_launch(ctx, k, dims, sized, &dispatch_size) : TILEC_OK;
    if (!st) st = bind(ctx, k, prog->dim_count ? sized : k->params, n, args, RT_MAX_PACKS + 1, all);
    if (!st && prog->packs && !rt_program_panels_at(prog, dims, &panels))
        st = tilec_error(ctx, TILEC_E_ARG, "RT-D10", tilec_no_loc(),
                         "kernel '@%s': its panels' bytes do not fit at these runtime sizes", prog->desc.name);
    if (st || !dispatch_size) return st;
    if (prog->packs) { /* the panels are the kernel's, laid out at these sizes */
        pthread_mutex_lock(&prog->scratch_lock);
        st = rt_program_grow_scratch(ctx, prog, panels.total);
    }
    for (uint32_t i = 0; !st && i < prog->packs; i++) {
        all[n + i] = (tir_buffer){(char *)prog->scratch + panels.offset[i], panels.bytes[i]};
        st = run_copy(ctx, k->pack[i], all[prog->packed_param[i]], all[n + i], dims);
    }
    size_t count = n + prog->packs;
    if (prog->dim_count) all[count++] = (tir_buffer){(void *)dims, prog->dim_count * sizeof *dims}; /* last, as the runtime passes them */
    if (!st) st = interpret(ctx, k, dispatch_size, count, all);
    if (prog->packs) pthread_mutex_unlock(&prog->scratch_lock);
    return st;
}

/* ---- the reference interpreter ---- */

static tilec_status reference_prepare(pipeline *p) {
    p->workers = 1;
    return pipeline_kernel_start(p);
}

/* The caller's kernel, as written (not flattened: the reference shares no
 * rewrite with the engines it checks). */
static tilec_status reference_emit(pipeline *p) {
    tilec_kernel *k = p->k;
    if (!k) return TILEC_OK;
    k->reference = p->source;
    k->times = (tilec_compile_times){.verify = p->ms[TILEC_STAGE_VERIFY], .total = now_ms() - p->verified};
    k->flops = tilec_count_mma_flops(p->source);
    tilec_status st = tilec_kernel_tir_params(p->ctx, k, p->source);
    if (st) return st;
    if (p->source->sym_count && !kernel_sizes_make(k, p->source, 1)) return no_memory(p->ctx); /* arg bytes at sizes */
    strbuf_append(&k->plan, "reference");
    return k->plan.failed ? no_memory(p->ctx) : TILEC_OK;
}

const pipeline_target PIPELINE_REFERENCE = {"reference", reference_prepare, NULL, NULL, false, reference_emit};

tilec_status pipeline_dispatch_reference(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                         const int64_t *dims) {
    tir_buffer all[MAX_ARGS];
    if (!k->dim_count) {
        tilec_status st = bind(ctx, k, k->params, n, args, 0, all);
        return st ? st : tir_interpret(ctx, k->reference, n, all);
    }
    /* The kernel at these sizes: a static copy, whose views give the bytes
     * each argument must have. */
    tir_module *m = tir_func_specialize(k->reference, k->dim_count, dims);
    if (!m) return TILEC_E_SHAPE;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel sized = {.ctx = ctx};
    tilec_status st = tilec_kernel_tir_params(ctx, &sized, f);
    sized.prog.desc.name = k->prog.desc.name;
    if (!st) st = bind(ctx, &sized, sized.params, n, args, 0, all);
    if (!st) st = tir_interpret(ctx, f, n, all);
    tilec_free(ctx, sized.params);
    tir_module_destroy(m);
    return st;
}
