/* program.c — a kernel's helper kernels, each a pipeline of its own, and
 * the one place their option rules are written:
 *
 *   panel copies  (rewrite/pack.h) the defaults, plus the parent's packet
 *                 width, runtime, workers and bounds checking; never packing
 *   split         (rewrite/split.h) the parent's options on its runtime, split
 *                 off; the partial kernel's root order and tiles grow by the
 *                 chunk axis, innermost and untiled
 *   unfused twin  the parent's options on its runtime, fusion off; a twin
 *                 the planner cannot fit (PLAN-S01) is left out
 *
 * and how their programs hang under the parent's (rt/program.h). */
#include "driver/pipeline.h"

#include "realize/packing.h"
#include "rewrite/pack.h"
#include "rewrite/split.h"
#include "tir/ir.h"

#include <string.h>

_Static_assert((int)PLAN_MAX_PACKS <= (int)RT_MAX_PACKS, "the runtime holds every pack the planner makes");

/* A helper kernel of p: a pipeline of its own on p's target, made whole. */
static tilec_status compile_child(const pipeline *parent, const tir_func *f, const tilec_compile_options *o,
                                  tilec_kernel **out) {
    pipeline p;
    pipeline_init(&p, parent->ctx, f, o, parent->target, TILEC_STAGE_EMIT);
    p.aot = parent->aot;
    p.modeled_workers = parent->workers;
    p.plan_at = parent->plan_at; /* a variant's helpers: planned at its sizes */
    tilec_status st = pipeline_make(&p, out);
    pipeline_free(&p);
    return st;
}

static tilec_status no_memory(tilec_context *ctx) {
    return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
}

/* A packing kernel: plan_pack_build's copy and where the panels it fills
 * lie in the scratch block (64-byte aligned, after the previous pack's). */
static tilec_status compile_pack(pipeline *p, const plan_pack *pack) {
    tilec_kernel *k = p->k;
    tir_module *m = plan_pack_build(p->ctx, p->f, pack);
    if (!m) return TILEC_E_NOMEM;
    tilec_compile_options po = tilec_compile_options_default();
    po.width = p->width;
    po.runtime = k->runtime;
    po.threads = k->workers;
    po.check_bounds = p->o.check_bounds;
    po.pack = TILEC_PACK_OFF;
    uint32_t i = k->prog.packs;
    tilec_status st = compile_child(p, tir_module_func(m, 0), &po, &k->pack[i]);
    tir_module_destroy(m);
    if (st) return st;
    k->prog.pack[i] = &k->pack[i]->prog;
    k->prog.packed_param[i] = pack->param;
    k->prog.pack_offset[i] = i ? align64(k->prog.pack_offset[i - 1] + k->prog.pack_bytes[i - 1]) : 0;
    k->prog.pack_bytes[i] = pack->bytes;
    k->prog.packs++;
    k->times.total += k->pack[i]->times.total;
    return TILEC_OK;
}

tilec_status program_compile_packs(pipeline *p) {
    const plan_packing *packing = &p->plan.packing;
    tilec_kernel *k = p->k;
    tilec_status st = TILEC_OK;
    for (uint32_t i = 0; !st && i < packing->count; i++) st = compile_pack(p, &packing->packs[i]);
    uint32_t last = k->prog.packs - 1;
    return st ? st
              : rt_program_alloc_scratch(p->ctx, &k->prog, k->prog.pack_offset[last] + k->prog.pack_bytes[last],
                                         "panels");
}

tilec_status program_compile_split(pipeline *p) {
    tilec_context *ctx = p->ctx;
    tilec_kernel *k = p->k;
    const plan_split *split = &p->plan.split;
    const tilec_compile_options *o = &p->o;
    const tir_module *m = p->split; /* built by the split stage */
    tilec_compile_options so = *o;
    so.runtime = k->runtime;
    so.threads = k->workers;
    so.split = TILEC_SPLIT_OFF;
    so.split_chunks = 0;
    uint32_t order[PLAN_MAX_RANK + 1], tiles[PLAN_MAX_RANK + 1];
    size_t rank = split->root->domain->rank;
    tilec_compile_options po = so;
    if (o->root_axis_order_len == rank) {
        memcpy(order, o->root_axis_order, rank * sizeof *order);
        order[rank] = (uint32_t)rank;
        po.root_axis_order = order;
        po.root_axis_order_len = rank + 1;
    }
    if (o->root_axis_tiles_len == rank) {
        memcpy(tiles, o->root_axis_tiles, rank * sizeof *tiles);
        tiles[rank] = 1;
        po.root_axis_tiles = tiles;
        po.root_axis_tiles_len = rank + 1;
    }
    tilec_status st = compile_child(p, tir_module_func(m, 0), &po, &k->split_partial);
    if (!st) st = compile_child(p, tir_module_func(m, 1), &so, &k->split_combine);
    if (st) return st;
    const tilec_kernel *part = k->split_partial, *c = k->split_combine;
    rt_program *prog = &k->prog;
    prog->split_partial = &k->split_partial->prog;
    prog->split_combine = &k->split_combine->prog;
    prog->user_args = (uint32_t)p->f->body->arg_count;
    prog->dim_count = part->prog.dim_count;
    prog->arg_bytes = part->prog.arg_bytes; /* the user's views, as both kernels declare them */
    prog->split_carries = split->reduce->result_count;
    uint64_t bytes = 0; /* (0 for a workspace that follows a runtime size: dispatch grows the scratch) */
    for (uint32_t i = 0; i < prog->split_carries; i++) {
        const rt_param *w = &part->params[prog->user_args + i];
        prog->split_bytes[i] = w->min_bytes;
        prog->split_elem[i] = w->elem;
        bytes += align64(w->min_bytes);
    }
    if (!(k->params = tilec_alloc(ctx, (prog->user_args ? prog->user_args : 1) * sizeof *k->params)))
        return no_memory(ctx);
    for (uint32_t i = 0; i < prog->user_args; i++) {
        k->params[i] = part->params[i];
        if (c->params[i].min_bytes > k->params[i].min_bytes) k->params[i].min_bytes = c->params[i].min_bytes;
        k->arg_bytes += k->params[i].min_bytes;
    }
    /* checks the arguments only (dispatch runs the two kernels): the
     * partial kernel's geometry over the TileIR parameters */
    prog->desc = part->prog.desc;
    prog->desc.name = strbuf_cstr(&k->name);
    prog->desc.arg_count = prog->user_args;
    prog->desc.params = k->params;
    k->flops = tilec_count_mma_flops(p->f);
    k->times = part->times;
    k->times.total += c->times.total;
    strbuf_printf(&k->plan, "split%u(%s)+combine(%s)", split->chunks, strbuf_cstr(&part->plan),
                  strbuf_cstr(&c->plan));
    strbuf_printf(&k->plan_realization, "%s | combine: %s", strbuf_cstr(&part->plan_realization),
                  strbuf_cstr(&c->plan_realization));
    strbuf_printf(&k->split, "%s", split->why);
    if (k->plan.failed || k->plan_realization.failed || k->split.failed) return no_memory(ctx);
    return rt_program_alloc_scratch(ctx, prog, bytes, "split workspace");
}

/* Dispatch refuses arguments that overlap where the streams need them apart
 * (RT-D09) when the twin is left out, instead of refusing the kernel. */
tilec_status program_compile_unfused(pipeline *p) {
    tilec_context *ctx = p->ctx;
    tilec_kernel *k = p->k;
    const lower_result *lr = &p->lowered;
    bool needed = false;
    uint32_t n = k->prog.user_args;
    for (uint32_t i = 0; i < n; i++) needed = needed || lr->args[i].disjoint || lr->args[i].disjoint_or_equal;
    if (!needed) return TILEC_OK;
    k->prog.disjoint = k->disjoint = tilec_alloc(ctx, n * sizeof *k->disjoint);
    k->prog.disjoint_or_equal = k->disjoint_or_equal = tilec_alloc(ctx, n * sizeof *k->disjoint_or_equal);
    if (!k->disjoint || !k->disjoint_or_equal) return no_memory(ctx);
    for (uint32_t i = 0; i < n; i++) {
        k->disjoint[i] = lr->args[i].disjoint;
        k->disjoint_or_equal[i] = lr->args[i].disjoint_or_equal;
    }
    tilec_compile_options uo = p->o;
    uo.runtime = k->runtime;
    uo.threads = k->workers;
    uo.fuse = TILEC_FUSE_OFF;
    size_t diags = tilec_diag_count(ctx);
    tilec_status st = compile_child(p, p->f, &uo, &k->unfused);
    if (st == TILEC_E_UNSUPPORTED && tilec_diag_count(ctx) > diags &&
        !strcmp(tilec_diag_at(ctx, tilec_diag_count(ctx) - 1)->code, "PLAN-S01")) {
        tilec_diag_truncate(ctx, diags);
        return TILEC_OK;
    }
    if (!st) {
        k->prog.unfused = &k->unfused->prog;
        k->times.total += k->unfused->times.total;
    }
    return st;
}
