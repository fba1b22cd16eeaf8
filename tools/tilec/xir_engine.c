/* xir_engine.c — `tilec run --xir`: lower the kernel under a fixed plan, run
 * it on the W-lane XIR interpreter, run the reference interpreter on a copy of
 * the same inputs, and compare every writable parameter.
 *
 * Tolerance: XIR computes f32 in f32 while the reference computes in FP64, so
 * an element matches when |xir − ref| <= 5e-5 + 5e-5·|ref| (DESIGN.md §6, the
 * LLM-fixture tolerance); integers and bools must be equal; NaN matches NaN. */
#include "xir_engine.h"
#include "xir/interp.h"

#include <math.h>
#include <string.h>
#include <time.h>

static const double tolerance = 5e-5;

static double elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* Compares parameter i; prints one line and returns whether it matches. */
static bool compare(const cli_args *xir, const cli_args *ref, size_t i) {
    const cli_param *p = &xir->params[i];
    double max_abs = 0;
    uint64_t bad = 0, first_bad = 0;
    bool exact = !tir_scalar_is_float(p->elem);
    for (uint64_t k = 0; k < p->volume; k++) {
        double a = cli_elem_value(xir->buffers[i].data, p->elem, k);
        double e = cli_elem_value(ref->buffers[i].data, p->elem, k);
        if (isnan(a) && isnan(e)) continue;
        double err = fabs(a - e);
        bool ok = exact ? a == e : err <= tolerance + tolerance * fabs(e);
        if (!isnan(err) && err > max_abs) max_abs = err;
        if (!ok && bad++ == 0) first_bad = k;
    }
    printf("  %%%s vs reference: max abs err %.3g, %s", p->name, max_abs, bad ? "MISMATCH" : "ok");
    if (bad)
        printf(" (%llu of %llu elements; first at flat index %llu)", (unsigned long long)bad,
               (unsigned long long)p->volume, (unsigned long long)first_bad);
    printf("\n");
    return bad == 0;
}

int cli_run_xir(tilec_context *ctx, const cli_lowering *l, const tir_func *f, cli_args *args) {
    cli_args ref;
    if (cli_args_create(ctx, f, &ref) != TILEC_OK) return cli_fail_diags(ctx);
    for (size_t i = 0; i < args->count; i++)
        memcpy(ref.buffers[i].data, args->buffers[i].data, args->buffers[i].size_bytes);
    int code = CLI_EXIT_FAIL;
    lower_result r;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (tir_interpret(ctx, f, ref.count, ref.buffers) != TILEC_OK) {
        code = cli_fail_diags(ctx);
    } else if (cli_lower(ctx, l, f, &r)) {
        double ref_ms = elapsed_ms(&t0);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (xir_interpret(ctx, r.kernel, r.dispatch_size, r.packet_width, args->count, args->buffers) != TILEC_OK) {
            code = cli_fail_diags(ctx);
        } else {
            printf("@%s: XIR interpreter (W=%u, block %u, %u workers) %.3f ms; reference %.3f ms\n",
                   tir_func_name(f), r.packet_width, r.block_size, r.dispatch_size, elapsed_ms(&t0), ref_ms);
            bool all = true;
            for (size_t i = 0; i < args->count; i++)
                if (!args->params[i].read_only) {
                    cli_print_summary(stdout, args, i);
                    all &= compare(args, &ref, i);
                }
            code = all ? CLI_CONTINUE : cli_fail("run", "the XIR results differ from the reference interpreter");
        }
        lower_result_free(&r);
    }
    cli_args_destroy(&ref);
    return code;
}
