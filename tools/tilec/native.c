/* native.c — see native.h. */
#include "native.h"
#include "compare.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

bool cli_native_check(const cli_options *c, const char *command) {
    if (!cli_options_given(c, "--workers")) return true;
    cli_usage_error(command, "this option models a target (--workers: use --threads)");
    return false;
}

tilec_kernel *cli_native_compile(tilec_context *ctx, const tilec_compile_options *o, const tir_func *f,
                                 const tilec_pipeline_config *stages) {
    tilec_kernel *k = NULL;
    if (tilec_pipeline_run(ctx, f, o, stages, &k) != TILEC_OK) {
        cli_fail_diags(ctx);
        return NULL;
    }
    return k;
}

/* One dispatch; with `ms` (a CUDA kernel), reps launches timed on the
 * device into *ms. */
static bool dispatch(tilec_context *ctx, tilec_kernel *k, const cli_args *args, uint32_t reps, double *ms) {
    tilec_buffer b[CLI_MAX_ARGS];
    if (!cli_args_bind(args, b)) return false;
    tilec_status st =
        ms ? tilec_dispatch_gpu_timed(ctx, k, args->count, b, 0, reps, ms)
           : tilec_dispatch_dims(ctx, k, args->count, b, args->n_dims, args->dims);
    if (st != TILEC_OK) {
        cli_fail_diags(ctx);
        return false;
    }
    return true;
}

bool cli_native_dispatch(tilec_context *ctx, tilec_kernel *k, const cli_args *args) {
    return dispatch(ctx, k, args, 0, NULL);
}

double cli_native_time_gpu(tilec_context *ctx, tilec_kernel *k, const cli_args *args, uint64_t reps) {
    uint32_t timed = reps > UINT32_MAX ? UINT32_MAX : (uint32_t)reps;
    double ms = 0;
    return dispatch(ctx, k, args, timed, &ms) ? ms * 1e3 * (double)timed : -1;
}

static double elapsed_us(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e6 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-3;
}

int cli_run_native(tilec_context *ctx, const cli_options *c, const tir_func *f, cli_args *args, bool check) {
    cli_args ref;
    double ref_ms = 0;
    tilec_compile_options o = cli_options_native(c);
    tilec_pipeline_config stages = cli_options_pipeline(c, TILEC_STAGE_EMIT, false);
    if (stages.stop_after < TILEC_STAGE_EMIT) /* --stop-after: what the stages print, nothing runs */
        return tilec_pipeline_run(ctx, f, &o, &stages, NULL) ? cli_fail_diags(ctx) : CLI_EXIT_OK;
    if (check && cli_reference_run(ctx, f, args, &ref, &ref_ms) != TILEC_OK) return cli_fail_diags(ctx);
    tilec_kernel *k = cli_native_compile(ctx, &o, f, &stages);
    int code = CLI_EXIT_FAIL;
    if (k) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (cli_native_dispatch(ctx, k, args)) {
            double us = elapsed_us(&t0);
            const char *r = tilec_kernel_realization(k);
            if (tilec_kernel_target(k) == TILEC_TARGET_CUDA) /* the run includes the copies to and from the device */
                printf("@%s: cuda (W=%u) compile %.1f ms, run %.1f us", tir_func_name(f), tilec_kernel_width(k),
                       tilec_kernel_compile_times(k).total, us);
            else
                printf("@%s: native (W=%u, %u workers) compile %.1f ms, run %.1f us", tir_func_name(f),
                       tilec_kernel_width(k), tilec_kernel_workers(k), tilec_kernel_compile_times(k).total, us);
            if (check) printf("; reference %.3f ms", ref_ms);
            printf("\n  %s\n", r);
            if (check) {
                code = cli_compare_step(args, &ref, "native");
            } else {
                for (size_t i = 0; i < args->count; i++)
                    if (!args->params[i].read_only) cli_print_summary(stdout, args, i);
                code = CLI_CONTINUE;
            }
        }
        tilec_kernel_destroy(k);
    }
    if (check) cli_args_destroy(&ref);
    return code;
}

enum { OPT_REQ_DEFINE = 1, OPT_REQ_KERNEL, OPT_REQ_OUTPUT, OPT_REQ_HEADER, OPT_REQ_CPU, OPT_REQ_NAME, OPT_REQ_PARAM,
       OPT_REQ_FIT, OPT_REQ_DIM };
enum { REQUEST_NATIVE, REQUEST_AOT, REQUEST_TUNE, REQUEST_BENCH };

#define REQUEST_OPTIONS {"-D", true, OPT_REQ_DEFINE}, {"--kernel", true, OPT_REQ_KERNEL}
static const cli_option request_options[] = {REQUEST_OPTIONS, {NULL, false, 0}};
static const cli_option aot_request_options[] = {
    REQUEST_OPTIONS,          {"-o", true, OPT_REQ_OUTPUT}, {"--header", true, OPT_REQ_HEADER},
    {"--cpu", true, OPT_REQ_CPU}, {"--name", true, OPT_REQ_NAME}, {NULL, false, 0},
};
static const cli_option tune_request_options[] = {
    REQUEST_OPTIONS, {"--param", true, OPT_REQ_PARAM}, {"--fit", true, OPT_REQ_FIT}, {NULL, false, 0}};
static const cli_option bench_request_options[] = {REQUEST_OPTIONS, {"--dim", true, OPT_REQ_DIM}, {NULL, false, 0}};

static int scan_request(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r,
                        int kind) {
    static const cli_option *const tables[] = {request_options, aot_request_options, tune_request_options,
                                               bench_request_options};
    bool aot = kind == REQUEST_AOT;
    memset(r, 0, sizeof *r);
    cli_defines_init(&r->defines, ctx);
    cli_options_init(&r->options, ctx, CLI_FLAGS_MODELED | CLI_FLAGS_NATIVE);
    cli_scanner s = cli_scanner_start(cmd->name, argc, argv);
    s.more = r->options.flags;
    const char *value;
    int id;
    while ((id = cli_scan(&s, tables[kind], &value)) != CLI_SCAN_END) {
        switch (id) {
        case CLI_SCAN_HELP: cli_print_help(cmd); return CLI_EXIT_OK;
        case CLI_SCAN_ERROR: return CLI_EXIT_USAGE;
        case CLI_SCAN_POSITIONAL:
            if (r->path) return cli_usage_error(cmd->name, "unexpected argument '%s'", value);
            r->path = value;
            break;
        case OPT_REQ_DEFINE:
            if (!cli_defines_add(&r->defines, cmd->name, value)) return CLI_EXIT_USAGE;
            break;
        case OPT_REQ_KERNEL: r->kernel = value[0] == '@' ? value + 1 : value; break;
        case OPT_REQ_OUTPUT: r->output = value; break;
        case OPT_REQ_HEADER: r->header = value; break;
        case OPT_REQ_CPU: r->cpu = value; break;
        case OPT_REQ_NAME: r->symbol = value; break;
        case OPT_REQ_PARAM:
            if (r->param_count == CLI_MAX_TUNE_PARAMS)
                return cli_usage_error(cmd->name, "at most %d --param options", CLI_MAX_TUNE_PARAMS);
            if (!strchr(value, '=') || value[0] == '=' || !strchr(value, '=')[1])
                return cli_usage_error(cmd->name, "--param needs NAME=V1,V2,..., not '%s'", value);
            r->params[r->param_count++] = value;
            break;
        case OPT_REQ_FIT: r->fit = value; break;
        case OPT_REQ_DIM:
            if (r->dim_count == CLI_MAX_DIMS) return cli_usage_error(cmd->name, "at most %d --dim options", CLI_MAX_DIMS);
            r->dims[r->dim_count++] = value;
            break;
        default:
            if (!cli_options_take(&r->options, cmd->name, id, value)) return CLI_EXIT_USAGE;
        }
    }
    if (!r->path) return cli_usage_error(cmd->name, "missing FILE.tir");
    if (aot && !r->output) return cli_usage_error(cmd->name, "missing -o FILE.o");
    return cli_native_check(&r->options, cmd->name) ? CLI_CONTINUE : CLI_EXIT_USAGE;
}

int cli_native_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r) {
    return scan_request(ctx, cmd, argc, argv, r, REQUEST_NATIVE);
}

int cli_bench_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r) {
    return scan_request(ctx, cmd, argc, argv, r, REQUEST_BENCH);
}

int cli_tune_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r) {
    return scan_request(ctx, cmd, argc, argv, r, REQUEST_TUNE);
}

int cli_aot_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r) {
    return scan_request(ctx, cmd, argc, argv, r, REQUEST_AOT);
}

void cli_native_request_free(cli_native_request *r) { cli_defines_free(&r->defines); }
