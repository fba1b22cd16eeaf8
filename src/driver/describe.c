/* describe.c — what a compiled kernel tells about itself, built once the
 * pipeline made it: the realization items ("key=value; ", docs/facade.md)
 * and the same items as JSON, and the mma work.
 *
 * One item table feeds both formats, so they never disagree. */
#include "driver/kernel.h"

#include "gpu/cuda.h"
#include "plan/gpu_target.h"
#include "tir/ir.h"

#include <string.h>

/* ---- mma work ---- */

static uint64_t mul_sat(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* 2 · volume(c) · Π extents of a's dims that c lacks (the contraction). */
static uint64_t mma_flops(const tir_op *op) {
    const tir_space *a = tir_type_space(tir_op_operand(op, 0)->type);
    const tir_space *c = tir_type_space(tir_op_operand(op, 2)->type);
    uint64_t v = 2;
    for (size_t i = 0; i < tir_space_rank(c); i++) v = mul_sat(v, tir_space_extent(c, i));
    for (size_t i = 0; i < tir_space_rank(a); i++)
        if (tir_space_find(c, tir_space_dim(a, i)) < 0) v = mul_sat(v, tir_space_extent(a, i));
    return v;
}

static uint64_t block_flops(const tir_block *b) {
    uint64_t total = 0;
    for (const tir_op *op = tir_block_first(b); op; op = tir_op_next(op)) {
        if (op->kind == TIR_OP_MMA) total += mma_flops(op);
        const tir_block *body = tir_op_body(op);
        if (!body) continue;
        uint64_t trips = 1;
        if (op->kind == TIR_OP_PARALLEL || op->kind == TIR_OP_SERIAL || op->kind == TIR_OP_PIPELINE)
            if (!tir_space_volume(op->domain, &trips)) trips = UINT64_MAX;
        uint64_t inner = mul_sat(trips, block_flops(body));
        total = total > UINT64_MAX - inner ? UINT64_MAX : total + inner;
    }
    return total;
}

uint64_t tilec_count_mma_flops(const tir_func *f) {
    return tir_func_symbol_count(f) ? 0 : block_flops(tir_func_body(f)); /* with runtime sizes: per dispatch */
}

/* ---- realization and JSON ---- */

static void item_text(tilec_kernel *k, const char *key, const char *value) {
    strbuf_printf(&k->realization, "%s=%s; ", key, value);
    strbuf_printf(&k->json, "%s\"%s\": \"%s\"", k->json.len > 1 ? ", " : "", key, value);
}

static void item_u64(tilec_kernel *k, const char *key, uint64_t value) {
    strbuf_printf(&k->realization, "%s=%llu; ", key, (unsigned long long)value);
    strbuf_printf(&k->json, "%s\"%s\": %llu", k->json.len > 1 ? ", " : "", key, (unsigned long long)value);
}

/* packed=<copy kernel names, comma-separated>, or none. */
static void item_packs(tilec_kernel *k, const tilec_kernel *main) {
    strbuf names;
    strbuf_init(&names, k->ctx);
    for (uint32_t i = 0; i < main->prog.packs; i++)
        strbuf_printf(&names, "%s%s", i ? "," : "", strbuf_cstr(&main->pack[i]->name));
    item_text(k, "packed", main->prog.packs ? strbuf_cstr(&names) : "none");
    if (names.failed) k->realization.failed = true;
    strbuf_free(&names);
}

/* The runtime sizes, "L:1..4096,M:0..64" ("none": a static kernel; then
 * dispatch and argument_bytes are the dispatch's, else 0 and the static
 * arguments' bytes: each dispatch computes its own). */
static void item_dims(tilec_kernel *k) {
    strbuf dims;
    strbuf_init(&dims, k->ctx);
    for (uint32_t i = 0; i < k->dim_count; i++)
        strbuf_printf(&dims, "%s%s:%lld..%lld", i ? "," : "", k->dims[i].name, (long long)k->dims[i].lo,
                      (long long)k->dims[i].hi);
    item_text(k, "dims", k->dim_count ? strbuf_cstr(&dims) : "none"); /* identifiers and digits: no escaping */
    if (dims.failed) k->realization.failed = true;
    strbuf_free(&dims);
}

static void item_ms(tilec_kernel *k, const char *key, double value) {
    strbuf_printf(&k->realization, "%s=%.3f; ", key, value);
    strbuf_printf(&k->json, "%s\"%s\": %.3f", k->json.len > 1 ? ", " : "", key, value);
}

const simd_kernel *tilec_kernel_native(const tilec_kernel *k) {
    return k->native ? k->native : k->split_partial->native;
}

static void item_times(tilec_kernel *k) {
    item_ms(k, "verify_ms", k->times.verify);
    item_ms(k, "plan_ms", k->times.plan);
    item_ms(k, "lower_ms", k->times.lower);
    item_ms(k, "llvm_ms", k->times.llvm);
    item_ms(k, "optimize_ms", k->times.optimize);
    item_ms(k, "codegen_ms", k->times.codegen);
    item_ms(k, "jit_ms", k->times.jit);
    item_ms(k, "compile_ms", k->times.total);
}

static bool finish_items(tilec_kernel *k) {
    strbuf_append(&k->json, "}");
    if (k->realization.len) k->realization.data[--k->realization.len] = '\0'; /* drop the trailing space */
    return !k->realization.failed && !k->json.failed;
}

/* The items a kernel's description ends with: its mma work, its argument
 * bytes, its compile times (a CPU kernel's say its cache answer before its
 * times). */
static bool finish_work(tilec_kernel *k) {
    item_u64(k, "mma_flops", k->flops);
    item_u64(k, "argument_bytes", k->arg_bytes);
    item_times(k);
    return finish_items(k);
}

/* A CUDA kernel: its geometry, architecture and the GPU it loaded on. */
static bool describe_gpu(tilec_kernel *k) {
    item_text(k, "target", "cuda");
    item_text(k, "sm", gpu_kernel_sm(k->gpu));
    item_text(k, "device", gpu_cuda_device_name(k->cuda)); /* the driver's name: letters, digits, spaces */
    item_u64(k, "W", PLAN_GPU_WARP);
    item_u64(k, "block", k->prog.desc.block_size);
    item_u64(k, "dispatch", k->prog.desc.dispatch_size);
    return finish_work(k);
}

/* A kernel of the XIR interpreter: its lowering's geometry and packs. */
static bool describe_xir(tilec_kernel *k) {
    item_text(k, "target", "xir");
    item_u64(k, "W", k->xir->packet_width);
    item_u64(k, "workers", k->workers);
    item_u64(k, "block", k->prog.desc.block_size);
    item_u64(k, "dispatch", k->prog.desc.dispatch_size);
    item_packs(k, k);
    return finish_work(k);
}

/* A kernel of the reference interpreter: the TileIR as written. */
static bool describe_reference(tilec_kernel *k) {
    item_text(k, "target", "reference");
    return finish_work(k);
}

/* A bucketed kernel: its own kernel, plan (every bucket's), dims and
 * variant count (its compiles), then the items of its largest bucket's
 * variant from its target on. */
static bool describe_buckets(tilec_kernel *k) {
    const tilec_kernel *main = kernel_main(k);
    item_u64(k, "variants", k->variant_count);
    const char *items = strstr(strbuf_cstr(&main->realization), "target="), *json = strstr(strbuf_cstr(&main->json), "\"target\"");
    strbuf_append(&k->realization, items ? items : "");
    strbuf_printf(&k->json, ", %s", json ? json : "}");
    return !k->realization.failed && !k->json.failed;
}

/* A split kernel reports its partial kernel's width, geometry and counters
 * (the work), its own plan (both kernels') and the split. */
bool tilec_kernel_describe(tilec_kernel *k) {
    const tilec_kernel *main = k->split_partial ? k->split_partial : k;
    strbuf_append(&k->json, "{");
    item_text(k, "kernel", strbuf_cstr(&k->name)); /* TileIR names are identifiers: no escaping needed */
    item_text(k, "plan", strbuf_cstr(&k->plan));
    item_dims(k);
    if (k->chosen_params.len) item_text(k, "chosen_params", strbuf_cstr(&k->chosen_params)); /* digits and names */
    if (k->bucket_count) return describe_buckets(k);
    if (k->gpu) return describe_gpu(k);
    if (k->xir) return describe_xir(k);
    if (k->reference) return describe_reference(k);
    item_text(k, "target", "cpu");
    item_u64(k, "W", simd_kernel_width(tilec_kernel_native(k)));
    item_u64(k, "workers", k->workers);
    item_u64(k, "block", main->prog.desc.block_size);
    item_u64(k, "dispatch", main->prog.desc.dispatch_size);
    item_u64(k, "blocks_per_task", main->prog.desc.blocks_per_task);
    const simd_counters *c = simd_kernel_counters(tilec_kernel_native(k));
#define X(name) item_u64(k, #name, c->name);
    SIMD_COUNTERS(X)
#undef X
    item_packs(k, main);
    item_u64(k, "packed_bytes", main->prog.packs ? main->prog.scratch_bytes : 0);
    item_text(k, "split", k->split_partial ? strbuf_cstr(&k->split) : "none"); /* no '"' in the words */
    item_u64(k, "split_workspace_bytes", k->split_partial ? k->prog.scratch_bytes : 0);
    item_text(k, "unfused_twin", main->unfused     ? strbuf_cstr(&main->unfused->plan)
                                 : main->disjoint ? "none (overlapping arguments refused)"
                                                  : "none");
    item_u64(k, "mma_flops", k->flops);
    item_u64(k, "argument_bytes", k->arg_bytes);
    item_text(k, "cache", main->cache ? main->cache : "off");
    item_times(k);
    return finish_items(k);
}
