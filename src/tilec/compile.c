/* compile.c — tilec_compile, the driver of the pipeline
 *
 *   verify (TileIR) → plan (planner, thread-pool target with the real W and
 *   worker count) → lower (the selected plan to XIR) → vectorize + JIT
 *   (SIMD backend) → the packing kernel, when the plan packs (plan/pack.h:
 *   a TileIR kernel of its own, compiled by this same pipeline)
 *
 * after flattening nested root parallels into one (plan/flatten.h), and
 * unless the kernel's mergeable reduce is split across programs
 * (plan/split.h): then the kernel is its partial and combine kernels, each
 * compiled by this pipeline (not split again); or its root domain is empty:
 * then nothing runs (empty.c).
 *
 * and the kernel's lifetime.  Each stage reports its own diagnostics; the
 * driver adds none of its own except option errors (TILEC-O..) and NOMEM
 * (TILEC-M..).  The XIR module is dropped once native code exists: the kernel
 * keeps only what dispatch and metadata need. */
#include "tilec/kernel.h"

#include "base/clock.h"
#include "base/host.h"
#include "plan/admit.h"
#include "plan/flatten.h"
#include "plan/gpu_target.h"
#include "plan/report.h"
#include "plan/solve.h"
#include "simd/aot.h"
#include "rt/pool.h"
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

/* The backend reports its stage times in its realization string. */
static tilec_kernel *kernel_new(tilec_context *ctx) {
    tilec_kernel *k = tilec_alloc(ctx, sizeof *k);
    if (!k) return NULL;
    k->ctx = ctx;
    strbuf_init(&k->name, ctx);
    strbuf_init(&k->plan, ctx);
    strbuf_init(&k->plan_realization, ctx);
    strbuf_init(&k->realization, ctx);
    strbuf_init(&k->json, ctx);
    strbuf_init(&k->split, ctx);
    return k;
}

/* Copies what dispatch needs out of the lowering: the argument table and
 * the launch geometry. */
static bool take_launch(tilec_kernel *k, const plan_result *p, const lower_result *lr) {
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

_Static_assert((int)PLAN_MAX_PACKS <= (int)RT_MAX_PACKS, "the runtime holds every pack the planner makes");

/* A packing kernel: plan_pack_build's copy, compiled for the same width,
 * runtime and bounds checking (its own plan, never packing), and where the
 * panels it fills lie in the scratch block (64-byte aligned, after the
 * previous pack's). */
static tilec_status compile_pack(tilec_context *ctx, tilec_kernel *k, const tir_func *f, const plan_pack *pack,
                                 const tilec_compile_options *o, uint32_t width) {
    tir_module *m = plan_pack_build(ctx, f, pack);
    if (!m) return TILEC_E_NOMEM;
    tilec_compile_options po = tilec_compile_options_default();
    po.width = width;
    po.runtime = k->runtime;
    po.threads = k->workers;
    po.check_bounds = o->check_bounds;
    po.pack = TILEC_PACK_OFF;
    uint32_t i = k->prog.packs;
    tilec_status st = tilec_compile_kernel(ctx, tir_module_func(m, 0), &po, k->aot, &k->pack[i]);
    tir_module_destroy(m);
    if (st) return st;
    k->prog.pack[i] = &k->pack[i]->prog;
    k->prog.packed_param[i] = pack->param;
    k->prog.pack_offset[i] = i ? (k->prog.pack_offset[i - 1] + k->prog.pack_bytes[i - 1] + 63) & ~(uint64_t)63 : 0;
    k->prog.pack_bytes[i] = pack->bytes;
    k->prog.packs++;
    k->times.total += k->pack[i]->times.total;
    return TILEC_OK;
}

/* Every pack's copy kernel, and one scratch block for all their panels. */
static tilec_status compile_packs(tilec_context *ctx, tilec_kernel *k, const tir_func *f, const plan_packing *packing,
                                  const tilec_compile_options *o, uint32_t width) {
    tilec_status st = TILEC_OK;
    for (uint32_t i = 0; !st && i < packing->count; i++) st = compile_pack(ctx, k, f, &packing->packs[i], o, width);
    uint32_t last = k->prog.packs - 1;
    return st ? st : rt_program_alloc_scratch(ctx, &k->prog, k->prog.pack_offset[last] + k->prog.pack_bytes[last], "panels");
}

/* A split kernel: its partial and combine kernels (plan_split_build),
 * compiled with the kernel's options on its runtime, and their workspace;
 * the kernel's own argument table is the TileIR parameters. */
static tilec_status compile_split(tilec_context *ctx, tilec_kernel *k, const tir_func *f, const plan_split *split,
                                  const tilec_compile_options *o) {
    tir_module *m = plan_split_build(ctx, f, split);
    if (!m) return TILEC_E_NOMEM;
    tilec_compile_options so = *o;
    so.runtime = k->runtime;
    so.threads = k->workers;
    so.split = TILEC_SPLIT_OFF;
    so.split_chunks = 0;
    /* The combine kernel has the kernel's root axes; the partial kernel one
     * more, the chunks, innermost in a fixed order and untiled (factor 1). */
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
    tilec_status st = tilec_compile_kernel(ctx, tir_module_func(m, 0), &po, k->aot, &k->split_partial);
    if (!st) st = tilec_compile_kernel(ctx, tir_module_func(m, 1), &so, k->aot, &k->split_combine);
    tir_module_destroy(m);
    if (st) return st;
    const tilec_kernel *p = k->split_partial, *c = k->split_combine;
    rt_program *prog = &k->prog;
    prog->split_partial = &k->split_partial->prog;
    prog->split_combine = &k->split_combine->prog;
    prog->user_args = (uint32_t)f->body->arg_count;
    prog->split_carries = split->reduce->result_count;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < prog->split_carries; i++) {
        const rt_param *w = &p->params[prog->user_args + i];
        prog->split_offset[i] = bytes;
        prog->split_bytes[i] = w->min_bytes;
        prog->split_elem[i] = w->elem;
        bytes += (w->min_bytes + 63) & ~(uint64_t)63;
    }
    if (!(k->params = tilec_alloc(ctx, (prog->user_args ? prog->user_args : 1) * sizeof *k->params)))
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    for (uint32_t i = 0; i < prog->user_args; i++) {
        k->params[i] = p->params[i];
        if (c->params[i].min_bytes > k->params[i].min_bytes) k->params[i].min_bytes = c->params[i].min_bytes;
        k->arg_bytes += k->params[i].min_bytes;
    }
    /* checks the arguments only (dispatch runs the two kernels): the
     * partial kernel's geometry over the TileIR parameters */
    prog->desc = p->prog.desc;
    prog->desc.name = strbuf_cstr(&k->name);
    prog->desc.arg_count = prog->user_args;
    prog->desc.params = k->params;
    k->flops = tilec_count_mma_flops(f);
    k->times = p->times;
    k->times.total += c->times.total;
    strbuf_printf(&k->plan, "split%u(%s)+combine(%s)", split->chunks, strbuf_cstr(&p->plan), strbuf_cstr(&c->plan));
    strbuf_printf(&k->plan_realization, "%s | combine: %s", strbuf_cstr(&p->plan_realization),
                  strbuf_cstr(&c->plan_realization));
    strbuf_printf(&k->split, "%s", split->why);
    if (k->plan.failed || k->plan_realization.failed || k->split.failed)
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    return rt_program_alloc_scratch(ctx, prog, bytes, "split workspace");
}

/* The unfused twin of a kernel whose streamed loads need some arguments
 * apart (lower_arg.disjoint*), and those needs; nothing when none.  A twin
 * the planner cannot fit (PLAN-S01: it would snapshot rows beyond the
 * budget, which is why the kernel streams them) is left out: dispatch then
 * refuses arguments that overlap where the streams need them apart
 * (RT-D09) instead of refusing the kernel. */
static tilec_status compile_unfused(tilec_context *ctx, tilec_kernel *k, const tir_func *f, const lower_result *lr,
                                    const tilec_compile_options *o) {
    bool needed = false;
    uint32_t n = k->prog.user_args;
    for (uint32_t i = 0; i < n; i++) needed = needed || lr->args[i].disjoint || lr->args[i].disjoint_or_equal;
    if (!needed) return TILEC_OK;
    k->prog.disjoint = k->disjoint = tilec_alloc(ctx, n * sizeof *k->disjoint);
    k->prog.disjoint_or_equal = k->disjoint_or_equal = tilec_alloc(ctx, n * sizeof *k->disjoint_or_equal);
    if (!k->disjoint || !k->disjoint_or_equal)
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    for (uint32_t i = 0; i < n; i++) {
        k->disjoint[i] = lr->args[i].disjoint;
        k->disjoint_or_equal[i] = lr->args[i].disjoint_or_equal;
    }
    tilec_compile_options uo = *o;
    uo.runtime = k->runtime;
    uo.threads = k->workers;
    uo.fuse = TILEC_FUSE_OFF;
    size_t diags = tilec_diag_count(ctx);
    tilec_status st = tilec_compile_kernel(ctx, f, &uo, k->aot, &k->unfused);
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

/* The runtime the kernel dispatches on, borrowed or its own, and the
 * worker count it is planned for; an ahead-of-time kernel has no runtime
 * (the program linking it brings one) and is planned for o->threads. */
static tilec_status attach_runtime(tilec_context *ctx, tilec_kernel *k, const tilec_compile_options *o) {
    tilec_status st = TILEC_OK;
    if (k->aot) {
        st = rt_resolve_worker_count(ctx, o->threads, &k->workers);
    } else if (o->runtime) {
        k->runtime = o->runtime;
    } else {
        k->owns_runtime = true;
        st = tilec_runtime_create(ctx, o->threads, &k->runtime);
    }
    if (!st && k->runtime) k->workers = tilec_runtime_workers(k->runtime);
    return st;
}

/* The write-only parameters whose stores stream past the caches
 * (tilec_stores): auto, when the parameters together span at least 3/4 of
 * the last-level cache — the output would be evicted before any reuse
 * (glibc's memcpy uses the same bound for its non-temporal copies). */
/* The parameters the dispatch keeps apart from every other one (each pair
 * must not overlap for the kernel to run: lower_arg.disjoint). */
static uint64_t apart_args(const lower_result *lowered) {
    uint64_t apart = 0;
    size_t n = lowered->arg_count < 64 ? lowered->arg_count : 64;
    for (size_t a = 0; a < n; a++) {
        bool alone = n == lowered->arg_count;
        for (size_t b = 0; b < n && alone; b++)
            alone = a == b || (lowered->args[a].disjoint >> b & 1) || (lowered->args[b].disjoint >> a & 1);
        if (alone) apart |= 1ull << a;
    }
    return apart;
}

static uint64_t streaming_args(const lower_result *lowered, tilec_stores policy, uint64_t l3_bytes) {
    uint64_t footprint = 0, written = 0;
    for (size_t a = 0; a < lowered->arg_count && a < 64; a++) {
        footprint += lowered->args[a].min_bytes;
        if (lowered->args[a].usage == LOWER_USAGE_WRITE) written |= 1ull << a;
    }
    if (policy == TILEC_STORES_STREAMING) return written;
    if (policy == TILEC_STORES_CACHED || footprint / 3 < l3_bytes / 4) return 0;
    return written;
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

/* Describes the kernel and hands it out, or destroys it on failure. */
static tilec_status finish(tilec_context *ctx, tilec_kernel *k, tilec_status st, tilec_kernel **out) {
    if (!st && !tilec_kernel_describe(k))
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    if (st) {
        tilec_kernel_destroy(k);
        return st;
    }
    *out = k;
    return TILEC_OK;
}

/* The packet width of `o` (its option, else TILEC_SIMD_WIDTH, else the
 * described host's); 0 and TILEC-O01 when invalid, or TILEC-O02 when the
 * host description (TILEC_HOST) is. */
static uint32_t packet_width(tilec_context *ctx, const tilec_compile_options *o) {
    host_desc host;
    char why[256];
    if (!host_current(&host, why, sizeof why)) {
        tilec_error(ctx, TILEC_E_ARG, "TILEC-O02", tilec_no_loc(), "TILEC_HOST: %s", why);
        return 0;
    }
    uint32_t width = simd_resolve_width(o->width, getenv("TILEC_SIMD_WIDTH"));
    if (!width)
        tilec_error(ctx, TILEC_E_ARG, "TILEC-O01", tilec_no_loc(),
                    "packet width must be 1, 2, 4, 8 or 16 (option %u, TILEC_SIMD_WIDTH '%s')", o->width,
                    getenv("TILEC_SIMD_WIDTH") ? getenv("TILEC_SIMD_WIDTH") : "");
    return width;
}

/* The planner's target for the described host (base/host.h; checked by
 * packet_width): a thread pool of `workers` with packets of `width`, the
 * host's vector registers, and its caches where known (else the modeled
 * defaults). */
static void host_target(plan_thread_pool *target, uint32_t width, uint32_t workers) {
    plan_thread_pool_init(target, width, workers);
    target->vector_registers = simd_host_vector_registers(width);
    host_desc host;
    if (!host_current(&host, NULL, 0)) return;
    if (host.l1d_bytes) target->l1d_bytes = host.l1d_bytes;
    if (host.l2_bytes) target->l2_bytes = host.l2_bytes;
    if (host.l3_bytes) target->l3_bytes = host.l3_bytes;
}

tilec_status tilec_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat) {
    tilec_status st = tir_verify(ctx, f->module);
    *flat = st ? NULL : plan_flatten_build(ctx, f);
    return st ? st : *flat ? TILEC_OK : TILEC_E_NOMEM;
}

tilec_status tilec_explain(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tir_write_fn write, void *user) {
    if (!ctx || !f || !write)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_explain: NULL argument");
    if (plan_flatten_applies(f)) {
        tir_module *flat;
        tilec_status st = tilec_flatten(ctx, f, &flat);
        if (!st) st = tilec_explain(ctx, tir_module_func(flat, 0), options, write, user);
        tir_module_destroy(flat);
        return st;
    }
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    uint32_t width = packet_width(ctx, &o), workers = 0;
    if (!width) return TILEC_E_ARG;
    tilec_status st = o.runtime ? TILEC_OK : rt_resolve_worker_count(ctx, o.threads, &workers);
    if (o.runtime) workers = tilec_runtime_workers(o.runtime);
    if (!st) st = tir_verify(ctx, f->module);
    if (st) return st;
    plan_thread_pool target;
    host_target(&target, width, workers);
    plan_options po = tilec_planner_options(&o);
    plan_result plan;
    st = plan_kernel(ctx, f, &po, &target.info, &plan);
    const plan_choice **rank = plan_ranking(ctx, &plan);
    /* a plan, or why there is none: the report says which candidates failed */
    if (rank && (!st || plan.candidate_count)) {
        strbuf text;
        strbuf_init(&text, ctx);
        plan_report_text(&text, &plan, rank, true);
        tilec_status w = text.failed ? TILEC_E_NOMEM : write(user, strbuf_cstr(&text), strlen(strbuf_cstr(&text)));
        strbuf_free(&text);
        if (!st) st = w;
    } else if (!rank && !st) {
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory ranking the candidates");
    }
    tilec_free(ctx, rank);
    plan_result_free(&plan);
    return st;
}

tilec_status tilec_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tilec_kernel **out) {
    return tilec_compile_kernel(ctx, f, options, NULL, out);
}

tilec_status tilec_compile_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options, simd_aot *aot,
                            tilec_kernel **out) {
    *out = NULL;
    if (plan_flatten_applies(f)) { /* the flat module is dropped once the kernel exists */
        tir_module *flat;
        tilec_status st = tilec_flatten(ctx, f, &flat);
        if (!st) st = tilec_compile_kernel(ctx, tir_module_func(flat, 0), options, aot, out);
        tir_module_destroy(flat);
        return st;
    }
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    if (o.target == TILEC_TARGET_CUDA && aot)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "TILEC-AOT03", tilec_no_loc(),
                           "ahead-of-time objects are CPU code; the CUDA target has tilec_emit_ptx");
    uint32_t width = o.target == TILEC_TARGET_CUDA ? PLAN_GPU_WARP : packet_width(ctx, &o);
    if (!width) return TILEC_E_ARG;
    tilec_kernel *k = kernel_new(ctx);
    if (!k) return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a kernel");
    strbuf_append(&k->name, tir_func_name(f));
    if (o.target == TILEC_TARGET_CUDA) return finish(ctx, k, tilec_compile_gpu(ctx, k, f, &o), out);
    k->aot = aot;
    tilec_status st = attach_runtime(ctx, k, &o);
    if (st) {
        tilec_kernel_destroy(k);
        return st;
    }

    double t0 = now_ms();
    st = tir_verify(ctx, f->module);
    double t1 = now_ms();
    if (!st && plan_root_empty(f)) {
        st = tilec_compile_empty(ctx, k, f, width, &o);
        k->times.verify = t1 - t0;
        k->times.total = now_ms() - t0;
        return finish(ctx, k, st, out);
    }

    plan_thread_pool target;
    host_target(&target, width, k->workers);
    plan_options po = tilec_planner_options(&o);
    plan_result plan;
    memset(&plan, 0, sizeof plan);
    bool planned = false;
    if (!st) {
        st = plan_kernel(ctx, f, &po, &target.info, &plan);
        planned = true;
    }
    double t2 = now_ms();
    if (!st && plan.split.reduce) {
        st = compile_split(ctx, k, f, &plan.split, &o);
        plan_result_free(&plan);
        return finish(ctx, k, st, out);
    }

    lower_result lowered;
    memset(&lowered, 0, sizeof lowered);
    lower_options lo = lower_options_default();
    lo.check_bounds = o.check_bounds;
    lo.fused_mma = o.fused_mma;
    if (!st) st = plan_lower(ctx, f, &plan, &lo, &lowered);
    double t3 = now_ms();

    if (!st) {
        simd_options so = simd_options_default();
        so.streaming_args = streaming_args(&lowered, o.stores, target.l3_bytes);
        so.apart_args = apart_args(&lowered);
        so.width = width;
        so.full_packet_specialization = o.full_packet_specialization;
        so.capture_ir = o.capture_ir;
        so.capture_asm = o.capture_asm;
        so.required_packet_width = lowered.required_packet_width;
        st = tilec_compile_native(ctx, k, lowered.kernel, &so);
    }
    double t4 = now_ms();

    if (!st) {
        /* a cache hit ran no LLVM: its lookup is the whole backend time */
        simd_compile_times backend = strcmp(k->cache, "hit") ? simd_kernel_compile_times(k->native)
                                                             : (simd_compile_times){.emit_ms = t4 - t3};
        k->times = (tilec_compile_times){.verify = t1 - t0,
                                         .plan = t2 - t1,
                                         .lower = t3 - t2,
                                         .llvm = backend.emit_ms,
                                         .jit = backend.jit_ms,
                                         .total = t4 - t0,
                                         .optimize = backend.optimize_ms,
                                         .codegen = backend.codegen_ms};
        k->flops = tilec_count_mma_flops(f);
        if (!take_launch(k, &plan, &lowered) || !tilec_kernel_take_fault_sites(k, &lowered))
            st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    }
    if (!st && lowered.packed) st = compile_packs(ctx, k, f, &plan.packing, &o, width);
    if (!st) st = compile_unfused(ctx, k, f, &lowered, &o);
    if (lowered.module) lower_result_free(&lowered);
    if (planned) plan_result_free(&plan);
    return finish(ctx, k, st, out);
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
