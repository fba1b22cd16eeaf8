/* run.c — `tilec run FILE.tir`: execute one kernel on given or generated data.
 *
 * Engines: native execution (the default: the facade compiles the kernel to
 * vector code and runs it on the thread pool, native.c; --check compares
 * with the reference), the FP64 reference interpreter (--reference) and
 * --xir: planning and lowering to XIR, run on the W-lane XIR interpreter
 * and checked against the reference (xir_engine.c).  Order: scan the command line (all usage errors
 * first), load and verify, pick the kernel, bind --in/--out names to
 * parameters, fill buffers, run, print summaries, write --out files. */
#include "args.h"
#include "cli.h"
#include "native.h"
#include "xir_engine.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_DEFINE = 1, OPT_KERNEL, OPT_IN, OPT_OUT, OPT_ARG, OPT_SEED, OPT_REFERENCE, OPT_XIR, OPT_NATIVE, OPT_CHECK, OPT_DIM };

static const cli_option options[] = {
    {"-D", true, OPT_DEFINE},       {"--kernel", true, OPT_KERNEL}, {"--in", true, OPT_IN},
    {"--out", true, OPT_OUT},       {"--arg", true, OPT_ARG},       {"--seed", true, OPT_SEED},     {"--reference", false, OPT_REFERENCE},
    {"--xir", false, OPT_XIR},      {"--native", false, OPT_NATIVE}, {"--check", false, OPT_CHECK},
    {"--dim", true, OPT_DIM},       {NULL, false, 0},
};

typedef struct {
    const char *name; /* points into argv; name_len bytes */
    size_t name_len;
    const char *path;
    int param; /* resolved parameter index */
} file_arg;

typedef VEC(file_arg) file_args;

typedef struct {
    tilec_context *ctx;
    cli_defines defines;
    const char *path, *kernel;
    uint64_t seed;
    file_args ins, outs, values; /* --in, --out; --arg (path holds the value's text) */
    VEC(const char *) dims;       /* --dim NAME=N, as given */
    enum { ENGINE_NATIVE, ENGINE_REFERENCE, ENGINE_XIR } engine;
    bool check;                   /* --check */
    cli_options options;          /* native and modeled (--xir) alike */
} run_request;

static int add_file_arg(run_request *r, file_args *list, const char *option, const char *text) {
    file_arg a = {0};
    if (!cli_split_assignment(text, &a.name, &a.name_len, &a.path))
        return cli_usage_error("run", "malformed %s '%s' (expected NAME=%s)", option, text,
                               strcmp(option, "--arg") ? "FILE.npy" : "VALUE");
    if (a.name[0] == '%') { /* %X and X name the same parameter */
        a.name++;
        a.name_len--;
    }
    if (a.name_len == 0) return cli_usage_error("run", "malformed %s '%s': no parameter name", option, text);
    return VEC_PUSH(r->ctx, list, a) ? CLI_CONTINUE : cli_fail("run", "out of memory");
}

static int scan(run_request *r, int argc, char **argv) {
    cli_scanner s = cli_scanner_start("run", argc, argv);
    s.more = r->options.flags;
    const char *value;
    int id, code = CLI_CONTINUE;
    while (code == CLI_CONTINUE && (id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        switch (id) {
        case CLI_SCAN_HELP: cli_print_help(&cli_run_command); return CLI_EXIT_OK;
        case CLI_SCAN_ERROR: return CLI_EXIT_USAGE;
        case CLI_SCAN_POSITIONAL:
            if (r->path) return cli_usage_error("run", "unexpected argument '%s'", value);
            r->path = value;
            break;
        case OPT_DEFINE:
            if (!cli_defines_add(&r->defines, "run", value)) return CLI_EXIT_USAGE;
            break;
        case OPT_KERNEL: r->kernel = value[0] == '@' ? value + 1 : value; break;
        case OPT_IN: code = add_file_arg(r, &r->ins, "--in", value); break;
        case OPT_OUT: code = add_file_arg(r, &r->outs, "--out", value); break;
        case OPT_ARG: code = add_file_arg(r, &r->values, "--arg", value); break;
        case OPT_DIM:
            if (!VEC_PUSH(r->ctx, &r->dims, value)) code = cli_fail("run", "out of memory");
            break;
        case OPT_SEED:
            if (!cli_parse_u64(value, &r->seed))
                return cli_usage_error("run", "--seed needs a non-negative integer, not '%s'", value);
            break;
        case OPT_REFERENCE: r->engine = ENGINE_REFERENCE; break;
        case OPT_XIR: r->engine = ENGINE_XIR; break;
        case OPT_NATIVE: r->engine = ENGINE_NATIVE; break;
        case OPT_CHECK: r->check = true; break;
        default:
            if (!cli_options_take(&r->options, "run", id, value)) return CLI_EXIT_USAGE;
        }
    }
    if (code != CLI_CONTINUE) return code;
    if (!r->path) return cli_usage_error("run", "missing FILE.tir");
    if (r->options.any_given && r->engine == ENGINE_REFERENCE)
        return cli_usage_error("run", "lowering, planning and native options (--block, --width, --threads, ...) do not "
                                      "apply to --reference");
    if (r->check && r->engine != ENGINE_NATIVE)
        return cli_usage_error("run", "--check is for native execution (--xir always checks)");
    if (r->engine == ENGINE_XIR && cli_options_given(&r->options, "--threads"))
        return cli_usage_error("run", "--threads is for native execution (--xir models workers with --workers)");
    if (r->engine == ENGINE_XIR && cli_options_given(&r->options, "--host"))
        return cli_usage_error("run", "--host is for native execution (--xir plans for a modeled target)");
    if (r->engine == ENGINE_XIR && cli_options_given(&r->options, "--no-full-packets"))
        return cli_usage_error("run", "--no-full-packets is for native execution");
    if (r->engine == ENGINE_XIR && cli_options_given(&r->options, "--stores"))
        return cli_usage_error("run", "--stores is for native execution");
    if (r->engine == ENGINE_NATIVE && !cli_native_check(&r->options, "run")) return CLI_EXIT_USAGE;
    /* one source per parameter: --in or --arg, once */
    size_t n = r->ins.len + r->values.len;
    for (size_t i = 0; i < n; i++) {
        const file_arg *a = i < r->ins.len ? &r->ins.data[i] : &r->values.data[i - r->ins.len];
        for (size_t j = 0; j < i; j++) {
            const file_arg *b = j < r->ins.len ? &r->ins.data[j] : &r->values.data[j - r->ins.len];
            if (a->name_len == b->name_len && !memcmp(a->name, b->name, a->name_len))
                return cli_usage_error("run", "parameter '%.*s' is given twice with --in/--arg", (int)a->name_len,
                                       a->name);
        }
    }
    return CLI_CONTINUE;
}

static void list_params(const cli_args *a) {
    fprintf(stderr, "  parameters:");
    for (size_t i = 0; i < a->count; i++) fprintf(stderr, " %%%s", a->params[i].name);
    fprintf(stderr, "%s\n", a->count ? "" : " (none)");
}

static int resolve(const cli_args *a, file_args *list, const char *option) {
    for (size_t i = 0; i < list->len; i++) {
        file_arg *f = &list->data[i];
        f->param = cli_args_find(a, f->name, f->name_len);
        if (f->param < 0) {
            cli_fail("run", "%s %.*s=...: the kernel has no parameter '%.*s'", option, (int)f->name_len, f->name,
                     (int)f->name_len, f->name);
            list_params(a);
            return CLI_EXIT_FAIL;
        }
    }
    return CLI_CONTINUE;
}

static double elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* ---- runtime sizes ---- */

/* The runtime sizes of f: each from --dim, else from the shape of an --in
 * array whose axis is exactly that size; the ranges are checked when the
 * kernel is sized (tir_func_specialize). */
static int runtime_sizes(tilec_context *ctx, const run_request *r, const tir_func *f, int64_t *dims) {
    bool set[CLI_MAX_DIMS] = {false};
    int code = CLI_CONTINUE;
    for (size_t i = 0; code == CLI_CONTINUE && i < r->dims.len; i++)
        code = cli_dim_take("run", f, r->dims.data[i], dims, set);
    for (size_t i = 0; code == CLI_CONTINUE && i < r->ins.len; i++) {
        const file_arg *in = &r->ins.data[i];
        const tir_value *param = NULL;
        for (size_t p = 0; p < tir_func_param_count(f); p++) {
            const char *name = tir_value_name(tir_func_param(f, p));
            if (name && strlen(name) == in->name_len && !memcmp(name, in->name, in->name_len)) param = tir_func_param(f, p);
        }
        uint64_t shape[64];
        size_t rank;
        if (!param || cli_npy_shape(ctx, in->path, shape, &rank) != TILEC_OK) continue; /* reported when loading */
        const tir_space *space = tir_type_space(tir_value_type(param));
        if (rank != tir_space_rank(space)) continue;
        for (size_t a = 0; code == CLI_CONTINUE && a < rank; a++) {
            int k = tir_func_extent_symbol(f, tir_space_extent(space, a));
            char source[300];
            snprintf(source, sizeof source, "the shape of %s", in->path);
            if (k >= 0)
                code = cli_dim_set("run", f, dims, set, (size_t)k, shape[a] > INT64_MAX ? INT64_MAX : (int64_t)shape[a],
                                   source);
        }
    }
    tilec_diag_clear(ctx); /* an unreadable --in is reported when it is loaded */
    return code == CLI_CONTINUE ? cli_dims_complete("run", f, set, " or an --in array it shapes") : code;
}

static int execute(tilec_context *ctx, run_request *r, const tir_func *dynamic) {
    cli_args args;
    int64_t dims[CLI_MAX_DIMS];
    size_t n_dims = tir_func_symbol_count(dynamic);
    tir_module *sized = NULL;
    const tir_func *f = dynamic; /* the kernel at this run's sizes */
    if (n_dims || r->dims.len) { /* (a --dim of a static kernel names no size: refused there) */
        int code = runtime_sizes(ctx, r, dynamic, dims);
        if (code != CLI_CONTINUE) return code;
        if (!(sized = tir_func_specialize(dynamic, n_dims, dims))) return cli_fail_diags(ctx);
        f = tir_module_func(sized, 0);
    }
    unsigned copies = r->check || r->engine == ENGINE_XIR ? 2 : 1; /* the reference's copy */
    if (cli_args_check_memory(ctx, f, copies) != TILEC_OK || cli_args_create(ctx, f, &args) != TILEC_OK) {
        tir_module_destroy(sized);
        return cli_fail_diags(ctx);
    }
    args.n_dims = n_dims;
    memcpy(args.dims, dims, n_dims * sizeof *dims);
    f = dynamic; /* what the engines compile */
    int code = resolve(&args, &r->ins, "--in");
    if (code == CLI_CONTINUE) code = resolve(&args, &r->outs, "--out");
    if (code == CLI_CONTINUE) code = resolve(&args, &r->values, "--arg");
    for (size_t i = 0; code == CLI_CONTINUE && i < args.count; i++) {
        const char *in = NULL, *value = NULL;
        for (size_t k = 0; k < r->ins.len; k++)
            if (r->ins.data[k].param == (int)i) in = r->ins.data[k].path;
        for (size_t k = 0; k < r->values.len; k++)
            if (r->values.data[k].param == (int)i) value = r->values.data[k].path;
        if (value) {
            if (cli_args_fill_value(&args, i, value) != TILEC_OK) code = cli_fail_diags(ctx);
        } else if (!in) {
            cli_args_fill_random(&args, i, r->seed);
        } else if (cli_args_load_npy(&args, i, in) != TILEC_OK) {
            code = cli_fail_diags(ctx);
        }
    }
    if (code == CLI_CONTINUE && r->engine == ENGINE_XIR) {
        code = cli_run_xir(ctx, &r->options, f, &args);
    } else if (code == CLI_CONTINUE && r->engine == ENGINE_NATIVE) {
        code = cli_run_native(ctx, &r->options, f, &args, r->check);
    } else if (code == CLI_CONTINUE) {
        tilec_pipeline_config reference = tilec_pipeline_config_default();
        reference.engine = TILEC_ENGINE_REFERENCE;
        tilec_kernel *k = NULL;
        struct timespec t0;
        if (tilec_pipeline_run(ctx, f, NULL, &reference, &k) != TILEC_OK) code = cli_fail_diags(ctx);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (k && !cli_native_dispatch(ctx, k, &args)) {
            code = CLI_EXIT_FAIL;
        } else if (k) {
            printf("@%s: reference interpreter, %.3f ms\n", tir_func_name(f), elapsed_ms(&t0));
            for (size_t i = 0; i < args.count; i++)
                if (!args.params[i].read_only) cli_print_summary(stdout, &args, i);
        }
        tilec_kernel_destroy(k);
    }
    /* Results that differ from the reference are written too: they are what
     * one wants to look at.  Every --out is attempted; a failed one is an error. */
    bool ran = code == CLI_CONTINUE || code == CLI_MISMATCH;
    for (size_t k = 0; ran && k < r->outs.len; k++)
        if (cli_args_save_npy(&args, (size_t)r->outs.data[k].param, r->outs.data[k].path) != TILEC_OK)
            code = cli_fail_diags(ctx);
    cli_args_destroy(&args);
    tir_module_destroy(sized);
    return code == CLI_CONTINUE ? CLI_EXIT_OK : code == CLI_MISMATCH ? CLI_EXIT_FAIL : code;
}

static int run_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    run_request request = {.ctx = ctx}, *r = &request;
    cli_defines_init(&r->defines, ctx);
    cli_options_init(&r->options, ctx, CLI_FLAGS_MODELED | CLI_FLAGS_NATIVE | CLI_FLAGS_STAGES);
    int code = scan(r, argc, argv);
    if (code == CLI_CONTINUE && !parse_only) {
        tilec_compile_options o = cli_options_native(&r->options); /* the other engines take the first values */
        tir_module *m = cli_load_chosen(ctx, "run", r->path, r->kernel, &r->defines,
                                        r->engine == ENGINE_NATIVE ? &o : NULL);
        const tir_func *f = m ? cli_pick_kernel(m, "run", r->kernel) : NULL;
        code = f ? execute(ctx, r, f) : CLI_EXIT_FAIL;
        tir_module_destroy(m);
    }
    cli_defines_free(&r->defines);
    VEC_FREE(ctx, &r->ins);
    VEC_FREE(ctx, &r->outs);
    VEC_FREE(ctx, &r->values);
    VEC_FREE(ctx, &r->dims);
    return code;
}

const cli_command cli_run_command = {
    "run",
    "run a kernel natively, on the reference or on the XIR interpreter",
    "usage: tilec run FILE.tir [--native [--check] [native options] | --reference |\n"
    "                 --xir [lowering options]] [--kernel NAME]\n"
    "                 [--in NAME=FILE.npy]... [--out NAME=FILE.npy]... [--arg NAME=VALUE]...\n"
    "                 [--seed N] [--dim NAME=N]...\n"
    "                 [-D NAME=VALUE]...\n"
    "\n"
    "Parses and verifies FILE.tir, allocates one buffer per view parameter of the\n"
    "kernel, fills it, runs the kernel and prints, for every writable parameter,\n"
    "its type, min/max/mean and an FNV-1a checksum of its bytes.\n"
    "\n"
    "Parameters not given with --in get deterministic data from --seed: floats\n"
    "uniform in [-1, 1), signed integers in [-8, 8], unsigned in [0, 8], bools\n"
    "random; each parameter has its own stream, so the same seed gives the same\n"
    "data whatever other parameters are supplied.\n"
    "\n"
    "Options:\n"
    "  --native          compile to native vector code and run it on the thread pool\n"
    "                    (the default); prints the kernel's realization items\n"
    "  --check           with --native: also run the reference interpreter on a copy\n"
    "                    of the inputs and compare every writable parameter\n"
    "                    (|x-r| <= 5e-5 + 5e-5|r|, inf = inf, NaN = NaN; exit 1)\n"
    "  --reference       run on the FP64 reference interpreter\n"
    "  --xir             lower to XIR (the planned mapping), run on the W-lane XIR\n"
    "                    interpreter and compare every writable parameter with the\n"
    "                    reference interpreter as --check does\n"
    "  --kernel NAME     the kernel to run (needed when the file has several)\n"
    "  --in NAME=FILE    fill parameter NAME from a .npy file; its dtype and shape\n"
    "                    must match the parameter exactly (repeatable)\n"
    "  --arg NAME=VALUE  set every element of parameter NAME to VALUE: the value of\n"
    "                    a scalar parameter (%a: f32), or a constant view (repeatable)\n"
    "  --out NAME=FILE   write parameter NAME to a .npy file after the run, also\n"
    "                    after a mismatch (repeatable; any parameter)\n"
    "  --seed N          seed of the generated inputs (default 0)\n"
    "  --dim NAME=N      runtime size NAME of a kernel compiled for a range of sizes\n"
    "                    (a shape parameter declared NAME: LO..HI and not pinned by\n"
    "                    -D); without it, a size an --in array's shape gives\n"
    "                    (repeatable)\n"
    "  -D NAME=VALUE     override shape parameter NAME (repeatable)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Native options (the default engine):\n" CLI_NATIVE_HELP,
    run_main,
    "\n"
    "Runtime sizes (a shape parameter declared NAME: LO..HI and not pinned by -D;\n"
    "docs/tir.md \"Runtime sizes\"):\n"
    "  --dim NAME=N      the size NAME of this run (repeatable); without it, the size\n"
    "                    an --in array's shape gives where an axis is exactly NAME\n"
    "\n"
    "Stages of the compile (native and --xir; docs/cli.md \"Stages\"):\n" CLI_STAGES_HELP
    "\n"
    "Lowering options (with --xir): --block, --width, --order, --tiles, --partitions,\n"
    "  --max-unrolled, --check-bounds and the planner options --workers, --grain,\n"
    "  --search-grain, --local-lanes, --max-candidates, --cost, --fuse, as described by\n"
    "  `tilec lower --help`\n"
    "\n"
    "Exit status: 0 ok, 1 error in the file, the data or the run, 2 usage error.\n",
};
