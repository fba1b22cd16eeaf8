/* demo.c — `tilec demo [NAME]...`: every bundled example with a C reference
 * (examples/reference/reference.h) is compiled to native code through the
 * facade, run on one shared thread pool, and compared with its independent
 * FP64 C reference.
 *
 * Per example: parse and verify examples/NAME.tir, fill every parameter from
 * the `tilec run` generator with seed 0, keep a copy of the initial contents,
 * compile and dispatch natively (that result is compared; then the best of
 * DEMO_REPS more dispatches is the run time, and the throughput is derived from
 * it: GFLOP/s for kernels with mma, else GB/s over the arguments' bytes),
 * run the reference on the initial contents (expected[i]
 * pre-filled with them for writable parameters, NULL for const ones), and
 * compare every writable parameter: an element passes when
 * |actual - expected| <= 5e-5 + 5e-5 * |expected|, a NaN only a NaN and an
 * infinity only the same infinity (compare.h). */
#include "args.h"
#include "compare.h"
#include "cli.h"
#include "native.h"
#include "reference.h"

#include <math.h>
#include <string.h>
#include <time.h>

#ifndef TILEC_EXAMPLES_DIR
#define TILEC_EXAMPLES_DIR "examples"
#endif

enum { DEMO_SEED = 0, DEMO_REPS = 5 };

typedef enum { ROW_OK, ROW_MISMATCH, ROW_ERROR } row_status;

typedef struct {
    const char *name;
    char shape[256], plan[128];
    uint32_t width;
    double compile_ms, run_us, throughput, max_abs, max_rel;
    bool gflops; /* throughput unit: GFLOP/s, else GB/s */
    row_status status;
} demo_row;

typedef struct {
    tilec_context *ctx;
    tilec_runtime *runtime; /* shared by every example */
    const char *dir;
    cli_args args;
    void **initial;     /* copies of the buffers before the run */
    double **expected;  /* per writable parameter, NULL for const */
} demo_run;

static void format_shape_params(const tir_func *f, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < tir_func_shape_param_count(f) && used < size; i++) {
        int64_t value;
        const char *name = tir_func_shape_param(f, i, &value);
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%lld", i ? " " : "", name, (long long)value);
    }
    if (!buf[0]) snprintf(buf, size, "-");
}

/* Prints "%C[3, 5]" for flat element index i of parameter p. */
static void print_element(FILE *out, const cli_param *p, uint64_t i) {
    size_t rank = tir_space_rank(p->space);
    uint64_t coords[64];
    for (size_t k = rank; k-- > 0;) {
        uint64_t extent = tir_space_extent(p->space, k);
        coords[k] = extent ? i % extent : 0;
        i = extent ? i / extent : 0;
    }
    fprintf(out, "%%%s[", p->name);
    for (size_t k = 0; k < rank; k++) fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)coords[k]);
    fprintf(out, "]");
}

/* Compares every writable parameter with the reference; fills the row's errors. */
static void compare(demo_run *d, demo_row *row) {
    for (size_t i = 0; i < d->args.count; i++) {
        const cli_param *p = &d->args.params[i];
        if (p->read_only) continue;
        bool reported = false;
        for (uint64_t k = 0; k < p->volume; k++) {
            double actual = cli_elem_value(d->args.buffers[i].data, p->elem, k), want = d->expected[i][k];
            double err = fabs(actual - want);
            bool ok = cli_float_matches(actual, want, p->elem);
            if (isnan(err)) err = ok ? 0 : INFINITY; /* NaN vs NaN, inf vs the same inf */
            if (err > row->max_abs) row->max_abs = err;
            if (want != 0 && err / fabs(want) > row->max_rel) row->max_rel = err / fabs(want);
            if (!ok) {
                row->status = ROW_MISMATCH;
                if (!reported) {
                    fprintf(stderr, "tilec demo: %s: ", row->name);
                    print_element(stderr, p, k);
                    fprintf(stderr, " = %.9g, reference %.9g\n", actual, want);
                    reported = true;
                }
            }
        }
    }
}

/* Snapshots the inputs and pre-fills the expected arrays. */
static bool prepare_reference(demo_run *d) {
    size_t n = d->args.count;
    d->initial = tilec_alloc(d->ctx, n * sizeof *d->initial);
    d->expected = tilec_alloc(d->ctx, n * sizeof *d->expected);
    if (!d->initial || !d->expected) return false;
    for (size_t i = 0; i < n; i++) {
        const cli_param *p = &d->args.params[i];
        const tir_buffer *b = &d->args.buffers[i];
        if (!(d->initial[i] = tilec_alloc(d->ctx, b->size_bytes))) return false;
        memcpy(d->initial[i], b->data, b->size_bytes);
        if (p->read_only) continue;
        if (!(d->expected[i] = tilec_alloc(d->ctx, p->volume * sizeof(double)))) return false;
        for (uint64_t k = 0; k < p->volume; k++) d->expected[i][k] = cli_elem_value(b->data, p->elem, k);
    }
    return true;
}

static void release(demo_run *d) {
    for (size_t i = 0; i < d->args.count; i++) {
        if (d->initial) tilec_free(d->ctx, d->initial[i]);
        if (d->expected) tilec_free(d->ctx, d->expected[i]);
    }
    tilec_free(d->ctx, d->initial);
    tilec_free(d->ctx, d->expected);
    cli_args_destroy(&d->args);
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* Compiles and dispatches f natively on d->args; fills the row's plan,
 * compile time, run time and throughput. */
static bool run_native(demo_run *d, const tir_func *f, demo_row *row) {
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = d->runtime;
    tilec_kernel *k = cli_native_compile(d->ctx, &o, f, NULL);
    if (!k) return false;
    bool ok = cli_native_dispatch(d->ctx, k, &d->args);
    row->run_us = INFINITY;
    for (int r = 0; ok && r < DEMO_REPS; r++) {
        double t0 = now_us();
        ok = cli_native_dispatch(d->ctx, k, &d->args);
        if (now_us() - t0 < row->run_us) row->run_us = now_us() - t0;
    }
    if (ok) {
        const char *plan = strstr(tilec_kernel_realization(k), "plan=");
        snprintf(row->plan, sizeof row->plan, "%.*s", plan ? (int)strcspn(plan + 5, ";") : 1, plan ? plan + 5 : "-");
        row->width = tilec_kernel_width(k);
        row->compile_ms = tilec_kernel_compile_times(k).total;
        uint64_t bytes = 0;
        for (size_t i = 0; i < tilec_kernel_arg_count(k); i++) bytes += tilec_kernel_arg_min_bytes(k, i);
        row->gflops = tilec_kernel_flops(k) > 0;
        row->throughput = (double)(row->gflops ? tilec_kernel_flops(k) : bytes) / row->run_us * 1e-3;
    }
    tilec_kernel_destroy(k);
    return ok;
}

static row_status run_example(demo_run *d, const example_entry *e, demo_row *row) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tir", d->dir, e->name);
    cli_defines none;
    cli_defines_init(&none, d->ctx);
    tir_module *m = cli_load_module(d->ctx, path, &none);
    if (!m) return ROW_ERROR;
    const tir_func *f = tir_module_find_func(m, e->name);
    if (!f && tir_module_func_count(m) == 1) f = tir_module_func(m, 0);
    if (!f) {
        cli_fail("demo", "%s: no kernel named @%s", path, e->name);
        tir_module_destroy(m);
        return ROW_ERROR;
    }
    format_shape_params(f, row->shape, sizeof row->shape);
    row_status status = ROW_ERROR;
    if (cli_args_create(d->ctx, f, &d->args) != TILEC_OK) {
        cli_fail_diags(d->ctx);
    } else {
        for (size_t i = 0; i < d->args.count; i++) cli_args_fill_random(&d->args, i, DEMO_SEED);
        if (!prepare_reference(d)) {
            cli_fail("demo", "%s: out of memory", e->name);
        } else {
            if (!run_native(d, f, row)) {
                /* diagnostics printed */
            } else if (!e->reference(f, (const void *const *)d->initial, d->expected)) {
                cli_fail("demo", "%s: the C reference does not support this kernel's shape", e->name);
            } else {
                row->status = ROW_OK;
                compare(d, row);
                status = row->status;
            }
        }
    }
    release(d);
    tir_module_destroy(m);
    return status;
}

static void print_table(const demo_row *rows, size_t n) {
    int name_w = 6, shape_w = 5, plan_w = 4;
    for (size_t i = 0; i < n; i++) {
        if ((int)strlen(rows[i].name) > name_w) name_w = (int)strlen(rows[i].name);
        if ((int)strlen(rows[i].shape) > shape_w) shape_w = (int)strlen(rows[i].shape);
        if ((int)strlen(rows[i].plan) > plan_w) plan_w = (int)strlen(rows[i].plan);
    }
    printf("%-*s  %-*s  %-*s  %2s  %10s  %10s  %14s  %11s  %11s  %s\n", name_w, "kernel", shape_w, "shape", plan_w,
           "plan", "W", "compile ms", "run us", "throughput", "max abs err", "max rel err", "status");
    for (size_t i = 0; i < n; i++) {
        const demo_row *r = &rows[i];
        printf("%-*s  %-*s  %-*s  ", name_w, r->name, shape_w, r->shape[0] ? r->shape : "-", plan_w,
               r->plan[0] ? r->plan : "-");
        if (r->status == ROW_ERROR)
            printf("%2s  %10s  %10s  %14s  %11s  %11s  ERROR\n", "-", "-", "-", "-", "-", "-");
        else
            printf("%2u  %10.1f  %10.1f  %8.2f %-5s  %11.3g  %11.3g  %s\n", r->width, r->compile_ms, r->run_us,
                   r->throughput, r->gflops ? "GF/s" : "GB/s", r->max_abs, r->max_rel,
                   r->status == ROW_OK ? "ok" : "FAIL");
    }
}

enum { OPT_EXAMPLES_DIR = 1 };

static const cli_option options[] = {
    {"--examples-dir", true, OPT_EXAMPLES_DIR},
    {NULL, false, 0},
};

static int demo_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    demo_run d = {.ctx = ctx, .dir = TILEC_EXAMPLES_DIR};
    cli_scanner s = cli_scanner_start("demo", argc, argv);
    const char *value;
    int id;
    /* selected[i]: example_table[i] was named (all run when none is). */
    bool *selected = tilec_alloc(ctx, (example_count + 1) * sizeof *selected), any_selected = false;
    demo_row *rows = tilec_alloc(ctx, (example_count + 1) * sizeof *rows);
    int code = selected && rows ? CLI_CONTINUE : cli_fail("demo", "out of memory");
    while (code == CLI_CONTINUE && (id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        const example_entry *e = id == CLI_SCAN_POSITIONAL ? example_find(value) : NULL;
        if (id == CLI_SCAN_HELP) {
            cli_print_help(&cli_demo_command);
            code = CLI_EXIT_OK;
        } else if (id == CLI_SCAN_ERROR) {
            code = CLI_EXIT_USAGE;
        } else if (id == OPT_EXAMPLES_DIR) {
            d.dir = value;
        } else if (!e) {
            code = cli_fail("demo", "no example named '%s' has a reference", value);
        } else {
            selected[e - example_table] = any_selected = true;
        }
    }
    if (code == CLI_CONTINUE && example_count == 0) {
        printf("no examples with references are registered (examples/reference/table.c)\n");
        code = CLI_EXIT_OK;
    }
    if (code != CLI_CONTINUE || parse_only) {
        tilec_free(ctx, selected);
        tilec_free(ctx, rows);
        return code;
    }
    if (tilec_runtime_create(ctx, 0, &d.runtime) != TILEC_OK) {
        tilec_free(ctx, selected);
        tilec_free(ctx, rows);
        return cli_fail_diags(ctx);
    }
    size_t n = 0, failed = 0;
    for (size_t i = 0; i < example_count; i++) {
        const example_entry *e = &example_table[i];
        if (any_selected && !selected[i]) continue;
        demo_row *row = &rows[n++];
        row->name = e->name;
        row->status = run_example(&d, e, row);
        if (row->status != ROW_OK) failed++;
    }
    tilec_runtime_destroy(d.runtime);
    print_table(rows, n);
    printf("demo: %zu passed, %zu failed (native, %s)\n", n - failed, failed, "checked against the C references");
    tilec_free(ctx, selected);
    tilec_free(ctx, rows);
    return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const cli_command cli_demo_command = {
    "demo",
    "run the bundled examples natively and compare them with C references",
    "usage: tilec demo [NAME]... [--examples-dir DIR]\n"
    "\n"
    "For every example kernel with an independent C reference (or only the NAMEs\n"
    "given), parses and verifies DIR/NAME.tir, fills the parameters like\n"
    "`tilec run --seed 0`, compiles the kernel to native vector code (host packet\n"
    "width, TILEC_SIMD_WIDTH) and runs it on a thread pool (TILEC_THREADS, else the\n"
    "cores), runs the C reference on the same inputs and compares every writable\n"
    "parameter.  An element passes when |actual - expected| <= 5e-5 + 5e-5 *\n"
    "|expected| (NaN matches NaN, inf the same inf).  Prints one row per kernel:\n"
    "name, shape parameters, the selected plan, W, compile ms, run us (best of 5\n"
    "warm dispatches), throughput (GF/s for kernels with mma, else GB/s over the\n"
    "arguments' bytes), max absolute and relative error, and ok / FAIL / ERROR.\n"
    "\n"
    "Options:\n"
    "  --examples-dir DIR  where the .tir files are (default: the source tree's\n"
    "                      examples/ directory)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 all passed, 1 any example failed, 2 usage error.\n",
    demo_main,
    NULL,
};
