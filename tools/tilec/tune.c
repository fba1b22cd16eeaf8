/* tune.c — `tilec tune FILE.tir`: the planner's pick against the mappings
 * it passed over, measured on this machine (issue 18: top-1 regret).
 *
 * The kernel is compiled with the given options (the planner's pick), then
 * once per alternative mapping: every root order (up to 24) with one
 * program per lane and packet-local (the other settings planned), each
 * timed as `tilec bench` times (warm, 7 rounds, median).  Mappings whose
 * plan token repeats an earlier one are timed once.  Prints one line per
 * mapping and the pick's regret: its time over the fastest's (1 = the
 * planner chose the best it could have). */
#include "native.h"
#include "plan/root_map.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_MAPPINGS = 64 };

typedef struct {
    char plan[256];
    double median_us;
    uint32_t width;
} mapping;

/* The `plan=` item of a realization line. */
static void plan_token(const char *realization, char *out, size_t size) {
    const char *at = strstr(realization, "plan=");
    size_t n = at ? strcspn(at + 5, ";") : 0;
    snprintf(out, size, "%.*s", (int)n, at ? at + 5 : "?");
}

/* Compiles f with o and times it; false (diagnostics printed) on failure. */
static bool measure(tilec_context *ctx, const tir_func *f, const tilec_compile_options *o, const cli_args *a,
                    mapping *m) {
    tilec_kernel *k = cli_native_compile(ctx, o, f);
    double per[CLI_TIME_ROUNDS];
    uint64_t reps;
    bool ok = k && cli_time_kernel(ctx, k, a, per, &reps);
    if (ok) {
        plan_token(tilec_kernel_realization(k), m->plan, sizeof m->plan);
        m->median_us = per[CLI_TIME_ROUNDS / 2];
        m->width = tilec_kernel_width(k);
    }
    tilec_kernel_destroy(k);
    return ok;
}

/* The rank of f's root parallel (0: none). */
static uint32_t root_rank(const tir_func *f) {
    for (const tir_op *op = tir_block_first(tir_func_body(f)); op; op = tir_op_next(op))
        if (tir_op_kind_of(op) == TIR_OP_PARALLEL) return (uint32_t)tir_space_rank(tir_op_domain(op));
    return 0;
}

static int tune_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *pick_options) {
    cli_args a;
    if (cli_args_create(ctx, f, &a) != TILEC_OK) return cli_fail_diags(ctx);
    for (size_t i = 0; i < a.count; i++) cli_args_fill_random(&a, i, 0);
    mapping *maps = calloc(MAX_MAPPINGS, sizeof *maps);
    size_t n = 0;
    int code = CLI_EXIT_FAIL;
    if (maps && measure(ctx, f, pick_options, &a, &maps[n])) {
        n++;
        uint32_t rank = root_rank(f), order[8];
        for (uint32_t i = 0; i < rank && i < 8; i++) order[i] = i;
        uint32_t orders = 0;
        do {
            for (uint32_t lanes = 1; lanes <= 2 && n < MAX_MAPPINGS; lanes++) {
                tilec_compile_options o = *pick_options;
                o.root_axis_order = rank <= 8 ? order : NULL;
                o.root_axis_order_len = rank <= 8 ? rank : 0;
                o.local_lanes = lanes == 1 ? 1 : maps[0].width; /* one program per lane, or packet-local */
                mapping m;
                if (!measure(ctx, f, &o, &a, &m)) {
                    tilec_diag_clear(ctx); /* a mapping the kernel cannot take: not a candidate */
                    continue;
                }
                bool seen = false;
                for (size_t i = 0; i < n && !seen; i++) seen = !strcmp(maps[i].plan, m.plan);
                if (!seen) maps[n++] = m;
            }
        } while (rank <= 8 && ++orders < 24 && plan_next_order(order, rank));
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (maps[i].median_us < maps[best].median_us) best = i;
        printf("@%s: %zu mappings measured (median of %d rounds each)\n", tir_func_name(f), n, CLI_TIME_ROUNDS);
        for (size_t i = 0; i < n; i++)
            printf("  %-64s %12.2f us  %5.2fx the fastest%s\n", maps[i].plan, maps[i].median_us,
                   maps[i].median_us / maps[best].median_us, i == 0 ? "  <- the planner's pick" : "");
        printf("regret: %.3f (the pick's time over the fastest mapping's)\n", maps[0].median_us / maps[best].median_us);
        code = CLI_EXIT_OK;
    }
    free(maps);
    cli_args_destroy(&a);
    return code;
}

static int tune_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_native_request r;
    int code = cli_native_request_scan(ctx, &cli_tune_command, argc, argv, &r);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, "tune", r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f && cli_args_check_memory(ctx, f, 1) != TILEC_OK) {
            cli_fail_diags(ctx);
        } else if (f) {
            tilec_compile_options o = cli_native_options(&r.native);
            code = tune_kernel(ctx, f, &o);
        }
        tir_module_destroy(m);
    }
    cli_native_request_free(&r);
    return code;
}

const cli_command cli_tune_command = {
    "tune",
    "measure the planner's pick against the other mappings (top-1 regret)",
    "usage: tilec tune FILE.tir [--kernel NAME] [-D NAME=VALUE]... [native options]\n"
    "\n"
    "Compiles one kernel of FILE.tir with the given options (the planner's pick),\n"
    "then with every root order (up to 24) one program per lane and packet-local,\n"
    "the other settings planned, and times each as `tilec bench` does (warm, 7\n"
    "rounds, median).  Prints each distinct mapping's time and the pick's regret:\n"
    "its time over the fastest mapping's.  Mappings the kernel cannot take are\n"
    "left out.  (Fitting the cost coefficients to these times is not done yet.)\n"
    "\n"
    "Options:\n" CLI_NATIVE_COMMAND_HELP
    "\n"
    "Exit status: 0 ok, 1 error in the file, the compilation or a run, 2 usage error.\n",
    tune_main,
};
