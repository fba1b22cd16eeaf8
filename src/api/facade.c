/* facade.c — the facade's compile entry points (include/tilec/tilec.h),
 * each one run of the pipeline (src/driver/pipeline.h): tilec_compile makes
 * a kernel, tilec_explain stops after planning and writes the plan's
 * report; and a kernel's end. */
#include "driver/pipeline.h"

tilec_status tilec_explain(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tir_write_fn write, void *user) {
    if (!ctx || !f || !write)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_explain: NULL argument");
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.stop_after = TILEC_STAGE_PLAN;
    c.print_after = 1u << TILEC_STAGE_PLAN;
    c.explain = true;
    c.write = write;
    c.user = user;
    return tilec_pipeline_run(ctx, f, options, &c, NULL);
}

tilec_status tilec_compile(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                           tilec_kernel **out) {
    tilec_status st = pipeline_compile(ctx, f, options, NULL, out);
    if (!st && !tilec_kernel_keep_recipe(*out, f, options)) {
        tilec_kernel_destroy(*out);
        *out = NULL;
        return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory keeping a kernel's source");
    }
    return st;
}

void tilec_kernel_destroy(tilec_kernel *k) { pipeline_kernel_free(k); }
