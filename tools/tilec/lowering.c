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
