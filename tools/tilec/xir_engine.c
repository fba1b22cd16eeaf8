/* xir_engine.c — `tilec run --xir`: plan and lower the kernel, run
 * it on the W-lane XIR interpreter, run the reference interpreter on a copy of
 * the same inputs, and compare every writable parameter (compare.h).  A
 * bounds fault of the XIR run is reported as the reference would.  The XIR
 * run never packs panels (--pack is for native runs and `tilec plan`): the
 * interpreter runs one kernel. */
#include "xir_engine.h"
#include "compare.h"
#include "base/invariant.h"
#include "xir/interp.h"

#include <time.h>

static double elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

int cli_run_xir(tilec_context *ctx, const cli_lowering *l, const tir_func *f, cli_args *args) {
    cli_args ref;
    double ref_ms;
    if (cli_reference_run(ctx, f, args, &ref, &ref_ms) != TILEC_OK) return cli_fail_diags(ctx);
    int code = CLI_EXIT_FAIL;
    lower_result r;
    struct timespec t0;
    cli_lowering unpacked = *l;
    unpacked.planning.options.pack = PLAN_PACK_OFF;
    if (cli_lower(ctx, &unpacked, f, &r)) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        fault_record faults = {0};
        xir_interp_options o = xir_interp_default_options();
        o.faults = &faults;
        tilec_status st = xir_interpret_with(ctx, r.kernel, r.dispatch_size, r.packet_width, args->count,
                                             args->buffers, &o);
        if (!st && faults.count)
            st = TILEC_INVARIANT(ctx, faults.site < r.fault_site_count)
                     ? tir_fault_report(ctx, &r.fault_sites[faults.site], faults.value)
                     : TILEC_E_INTERNAL;
        if (st != TILEC_OK) {
            code = cli_fail_diags(ctx);
        } else {
            printf("@%s: XIR interpreter (W=%u, block %u, %u workers) %.3f ms; reference %.3f ms\n",
                   tir_func_name(f), r.packet_width, r.block_size, r.dispatch_size, elapsed_ms(&t0), ref_ms);
            code = cli_compare_step(args, &ref, "XIR");
        }
        lower_result_free(&r);
    }
    cli_args_destroy(&ref);
    return code;
}
