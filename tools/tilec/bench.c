/* bench.c — `tilec bench FILE.tir`: warm timing of a natively compiled kernel.
 *
 * Method: compile once, fill the arguments from the `tilec run` generator
 * (seed 0), dispatch once to warm up (pool threads, workspaces, caches), then
 * calibrate the repetitions per round by doubling until a round takes at least
 * ROUND_MS, and time ROUNDS rounds.  Reported per dispatch: the median, min
 * and max over the rounds.  Throughput from the median: GFLOP/s when the
 * kernel has mma ops (2·M·N·K summed over their domains), else GB/s over the
 * arguments' bytes (each view's extent read or written once).  Then the
 * compile-time breakdown. */
#include "native.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = CLI_TIME_ROUNDS, MAX_REPS = 1 << 20 };
static const double ROUND_MS = 20.0;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* Microseconds for `reps` dispatches; negative after a failed dispatch.  A
 * CUDA kernel's are its launches on the device (the copies in and out of
 * device memory are not timed: docs/gpu.md). */
static double time_reps(tilec_context *ctx, tilec_kernel *k, const cli_args *a, uint64_t reps) {
    if (tilec_kernel_target(k) == TILEC_TARGET_CUDA) return cli_native_time_gpu(ctx, k, a, reps);
    double t0 = now_us();
    for (uint64_t i = 0; i < reps; i++)
        if (!cli_native_dispatch(ctx, k, a)) return -1;
    return now_us() - t0;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool cli_time_kernel(tilec_context *ctx, tilec_kernel *k, const cli_args *a, double per[CLI_TIME_ROUNDS],
                     uint64_t *reps_out) {
    uint64_t reps = 1;
    double t = time_reps(ctx, k, a, 1); /* warm-up */
    while (t >= 0 && (t = time_reps(ctx, k, a, reps)) >= 0 && t < ROUND_MS * 1e3 && reps < MAX_REPS) reps *= 2;
    for (int r = 0; t >= 0 && r < CLI_TIME_ROUNDS; r++) {
        t = time_reps(ctx, k, a, reps);
        per[r] = t / (double)reps;
    }
    if (t < 0) return false;
    qsort(per, CLI_TIME_ROUNDS, sizeof *per, compare_doubles);
    *reps_out = reps;
    return true;
}

/* f's arguments at the run's sizes (sized: f at them, else f). */
static int bench_kernel(tilec_context *ctx, const tir_func *f, tilec_kernel *k, const int64_t *dims, size_t n_dims) {
    cli_args a;
    if (cli_args_create(ctx, f, &a) != TILEC_OK) return cli_fail_diags(ctx);
    a.n_dims = n_dims;
    memcpy(a.dims, dims, n_dims * sizeof *dims);
    for (size_t i = 0; i < a.count; i++) cli_args_fill_random(&a, i, 0);
    int code = CLI_EXIT_FAIL;
    uint64_t reps;
    double per[CLI_TIME_ROUNDS];
    if (cli_time_kernel(ctx, k, &a, per, &reps)) {
        double median = per[ROUNDS / 2];
        tilec_compile_times c = tilec_kernel_compile_times(k);
        if (tilec_kernel_target(k) == TILEC_TARGET_CUDA)
            printf("@%s: cuda W=%u (device time per launch)\n", tir_func_name(f), tilec_kernel_width(k));
        else
            printf("@%s: native W=%u, %u workers\n", tir_func_name(f), tilec_kernel_width(k), tilec_kernel_workers(k));
        printf("  %s\n", tilec_kernel_realization(k));
        printf("  run: median %.2f us, min %.2f us, max %.2f us (%d rounds of %llu dispatches)\n", median, per[0],
               per[ROUNDS - 1], ROUNDS, (unsigned long long)reps);
        uint64_t flops = tilec_kernel_flops(k), bytes = 0;
        for (size_t i = 0; i < tilec_kernel_arg_count(k); i++) bytes += tilec_kernel_arg_bytes(k, i, dims);
        if (flops)
            printf("  throughput: %.2f GFLOP/s (%llu flops from mma)\n", (double)flops / median * 1e-3,
                   (unsigned long long)flops);
        else
            printf("  throughput: %.2f GB/s (%llu argument bytes)\n", (double)bytes / median * 1e-3,
                   (unsigned long long)bytes);
        printf("  compile: verify %.3f ms, plan %.3f ms, lower %.3f ms, llvm %.3f ms, jit %.3f ms (optimize %.3f, "
               "codegen %.3f), total %.3f ms\n",
               c.verify, c.plan, c.lower, c.llvm, c.jit, c.optimize, c.codegen, c.total);
        code = CLI_EXIT_OK;
    }
    cli_args_destroy(&a);
    return code;
}

/* f's runtime sizes from --dim (all needed), and f at them in *sized. */
static int bench_sizes(tilec_context *ctx, const cli_native_request *r, const tir_func *f, int64_t *dims,
                       tir_module **sized) {
    bool set[CLI_MAX_DIMS] = {false};
    int code = CLI_CONTINUE;
    for (size_t i = 0; code == CLI_CONTINUE && i < r->dim_count; i++) code = cli_dim_take("bench", f, r->dims[i], dims, set);
    if (code == CLI_CONTINUE) code = cli_dims_complete("bench", f, set, "");
    if (code == CLI_CONTINUE && tir_func_symbol_count(f) &&
        !(*sized = tir_func_specialize(f, tir_func_symbol_count(f), dims)))
        code = cli_fail_diags(ctx);
    return code;
}

static int bench_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_native_request r;
    int code = cli_bench_request_scan(ctx, &cli_bench_command, argc, argv, &r);
    if (code == CLI_CONTINUE && !parse_only) {
        tilec_compile_options o = cli_options_native(&r.options);
        tir_module *m = cli_load_chosen(ctx, "bench", r.path, r.kernel, &r.defines, &o), *sized = NULL;
        const tir_func *f = m ? cli_pick_kernel(m, "bench", r.kernel) : NULL;
        int64_t dims[CLI_MAX_DIMS];
        code = f ? bench_sizes(ctx, &r, f, dims, &sized) : CLI_EXIT_FAIL;
        const tir_func *at = sized ? tir_module_func(sized, 0) : f; /* the arguments' shapes */
        if (code != CLI_CONTINUE) {
            /* said */
        } else if (cli_args_check_memory(ctx, at, 1) != TILEC_OK) {
            code = cli_fail_diags(ctx); /* before the compile: it would be in vain */
        } else {
            tilec_kernel *k = cli_native_compile(ctx, &o, f, NULL);
            code = k ? bench_kernel(ctx, at, k, dims, tir_func_symbol_count(f)) : CLI_EXIT_FAIL;
            tilec_kernel_destroy(k);
        }
        tir_module_destroy(sized);
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

const cli_command cli_bench_command = {
    "bench",
    "time a kernel's native code (warm, adaptive repetitions)",
    "usage: tilec bench FILE.tir [--kernel NAME] [-D NAME=VALUE]... [--dim NAME=N]... [native options]\n"
    "\n"
    "Compiles one kernel of FILE.tir natively, fills its arguments as `tilec run`\n"
    "does (seed 0), dispatches once to warm up, calibrates the repetitions so a\n"
    "round takes at least 20 ms, and times 7 rounds.  Prints the realization\n"
    "items, the median/min/max microseconds per dispatch over the rounds, the\n"
    "throughput at the median (GFLOP/s from 2*M*N*K of the mma ops when the\n"
    "kernel has any, else GB/s over the arguments' bytes) and the compile-time\n"
    "breakdown (verify, plan, lower, LLVM IR emission, optimization + JIT).  A\n"
    "kernel with runtime sizes is compiled once for their ranges and timed at\n"
    "the sizes --dim NAME=N gives (every size; docs/tir.md \"Runtime sizes\").\n"
    "\n"
    "Options:\n" CLI_NATIVE_COMMAND_HELP
    "\n"
    "Exit status: 0 ok, 1 error in the file, the compilation or a run, 2 usage error.\n",
    bench_main,
    NULL,
};
