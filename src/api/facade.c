/* facade.c — the facade's compile entry points (include/tilec/tilec.h),
 * each one run of the pipeline (src/driver/pipeline.h): tilec_compile makes
 * a kernel, tilec_explain stops after planning and writes the plan's
 * report; and a kernel's end. */
#include "driver/pipeline.h"
#include "plan/report.h"
#include "tir/ir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void tilec_kernel_destroy(tilec_kernel *k) { pipeline_kernel_free(k); }
