/* lowering.c — see lowering.h.  Values are range-checked by the planner and
 * lower_kernel themselves (block widths, partitions, orders, tiles). */
#include "lowering.h"
#include "rewrite/flatten.h"

#include <stdlib.h>
#include <string.h>

const tir_func *cli_flatten(tilec_context *ctx, const tir_func *f, tir_module **flat) {
    *flat = plan_flatten_applies(f) ? plan_flatten_build(ctx, f) : NULL;
    return *flat ? tir_module_func(*flat, 0) : f;
}

/* A pipeline on the modeled target of c, run up to `last`. */
static tilec_status run_modeled(tilec_context *ctx, const cli_options *c, const tir_func *f, pipeline_stage_id last,
                                pipeline *p) {
    pipeline_init(p, ctx, f, &c->o, c->o.target == TILEC_TARGET_CUDA ? &PIPELINE_MODELED_CUDA : &PIPELINE_MODELED_CPU,
                  last);
    p->modeled_workers = c->workers;
    return pipeline_run(p);
}

tilec_status cli_plan(tilec_context *ctx, const cli_options *c, const tir_func *f, plan_result *out) {
    pipeline p;
    tilec_status st = run_modeled(ctx, c, f, PIPELINE_PLAN, &p);
    if (p.planned) *out = p.plan; /* the caller frees it */
    else memset(out, 0, sizeof *out);
    p.planned = false;
    pipeline_free(&p);
    return st;
}

bool cli_lower(tilec_context *ctx, const cli_options *c, const tir_func *f, lower_result *out, plan_packing *packing) {
    pipeline p;
    bool ok = run_modeled(ctx, c, f, PIPELINE_LOWER, &p) == TILEC_OK;
    if (ok) {
        *out = p.lowered; /* the caller frees it */
        memset(&p.lowered, 0, sizeof p.lowered);
        if (packing) *packing = p.plan.packing;
    }
    pipeline_free(&p);
    if (!ok) cli_fail_diags(ctx);
    return ok;
}
