/* xir_engine.c — `tilec run --xir`: the pipeline with the XIR interpreter
 * as its engine (tilec/pipeline.h: planned and lowered for the modeled
 * target, panel copies included), run on the arguments, and the reference
 * interpreter on a copy of the same inputs; every writable parameter is
 * compared (compare.h).  A bounds fault of the XIR run is reported as the
 * reference would. */
#include "xir_engine.h"
#include "compare.h"
#include "native.h"

#include <time.h>

static double elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

int cli_run_xir(tilec_context *ctx, const cli_options *c, const tir_func *f, cli_args *args) {
    tilec_pipeline_config stages = cli_options_pipeline(c, TILEC_STAGE_EMIT, true);
    stages.engine = TILEC_ENGINE_XIR;
    if (stages.stop_after < TILEC_STAGE_EMIT) /* --stop-after: what the stages print, nothing runs */
        return tilec_pipeline_run(ctx, f, &c->o, &stages, NULL) ? cli_fail_diags(ctx) : CLI_EXIT_OK;
    cli_args ref;
    double ref_ms;
    if (cli_reference_run(ctx, f, args, &ref, &ref_ms) != TILEC_OK) return cli_fail_diags(ctx);
    int code = CLI_EXIT_FAIL;
    tilec_kernel *k = NULL;
    if (tilec_pipeline_run(ctx, f, &c->o, &stages, &k) != TILEC_OK) {
        code = cli_fail_diags(ctx);
    } else {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (!cli_native_dispatch(ctx, k, args)) {
            code = CLI_EXIT_FAIL;
        } else if (!tilec_kernel_dispatch_size(k)) { /* no program instance: nothing was lowered or run */
            printf("@%s: XIR interpreter: the root domain is empty, nothing runs; reference %.3f ms\n",
                   tir_func_name(f), ref_ms);
            code = cli_compare_step(args, &ref, "XIR");
        } else {
            printf("@%s: XIR interpreter (W=%u, block %u, %u workers%s) %.3f ms; reference %.3f ms\n",
                   tir_func_name(f), tilec_kernel_width(k), tilec_kernel_block_size(k),
                   tilec_kernel_dispatch_size(k), tilec_kernel_pack_count(k) ? ", packed panels" : "",
                   elapsed_ms(&t0), ref_ms);
            code = cli_compare_step(args, &ref, "XIR");
        }
    }
    tilec_kernel_destroy(k);
    cli_args_destroy(&ref);
    return code;
}
