/* lowering.c — see lowering.h.  Values are range-checked by the planner and
 * lower_kernel themselves (block widths, partitions, orders, tiles). */
#include "lowering.h"
#include "plan/flatten.h"
#include "plan/gpu_target.h"
#include "tilec/kernel.h"

#include <stdlib.h>
#include <string.h>

const tir_func *cli_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat) {
    *flat = plan_flatten_applies(f) ? plan_flatten_build(ctx, f) : NULL;
    return *flat ? tir_module_func(*flat, 0) : f;
}

tilec_status cli_plan(tilec_context *ctx, const cli_options *c, const tir_func *f, plan_result *out) {
    plan_options o = tilec_planner_options(&c->o);
    if (c->o.target == TILEC_TARGET_CUDA) {
        tilec_status st = plan_gpu_options(ctx, &o);
        if (st) {
            memset(out, 0, sizeof *out); /* an empty result: the caller frees it */
            return st;
        }
        plan_gpu gpu;
        plan_gpu_init(&gpu, 0);
        return plan_kernel(ctx, f, &o, &gpu.info, out);
    }
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, cli_options_modeled_width(c), c->workers);
    return plan_kernel(ctx, f, &o, &pool.info, out);
}

bool cli_lower(tilec_context *ctx, const cli_options *c, const tir_func *f, lower_result *out, plan_packing *packing) {
    lower_options lo = lower_options_default();
    lo.check_bounds = c->o.check_bounds;
    lo.fused_mma = c->o.fused_mma;
    plan_result plan;
    bool ok = cli_plan(ctx, c, f, &plan) == TILEC_OK && plan_lower(ctx, f, &plan, &lo, out) == TILEC_OK;
    if (ok && packing) *packing = plan.packing;
    plan_result_free(&plan);
    if (!ok) cli_fail_diags(ctx);
    return ok;
}

void cli_print_lowering_metadata(FILE *out, const lower_result *r) {
    fprintf(out, "// dispatch_size=%u block_size=%u packet_width=%u required_packet_width=%u\n", r->dispatch_size,
            r->block_size, r->packet_width, r->required_packet_width);
    for (size_t i = 0; i < r->arg_count; i++) {
        const lower_arg *a = &r->args[i];
        fprintf(out, "// arg %zu %%%s: %s, at least %llu bytes, %s%s\n", i, a->name, tir_scalar_name(a->elem),
                (unsigned long long)a->min_bytes, a->usage & LOWER_USAGE_READ ? "read" : "",
                a->usage == (LOWER_USAGE_READ | LOWER_USAGE_WRITE) ? "+write"
                : a->usage & LOWER_USAGE_WRITE                     ? "write"
                : a->usage ? "" : "unused");
        for (size_t j = 0; j < r->arg_count && j < 64; j++)
            if ((a->disjoint | a->disjoint_or_equal) >> j & 1)
                fprintf(out, "//   streamed: %%%s must not overlap %%%s%s (else the unfused kernel runs)\n", a->name,
                        r->args[j].name, a->disjoint_or_equal >> j & 1 ? " unless they start together" : "");
    }
    fprintf(out, "// realization: %s\n", r->realization ? r->realization : "");
}
