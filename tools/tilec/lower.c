/* lower.c — `tilec lower FILE.tir`: plan one kernel and print its XIR under the
 * plan, preceded by its ABI and realization metadata as comments: the
 * pipeline's print after its lower stage (tilec/pipeline.h) for the modeled
 * target. */
#include "flags.h"

enum { OPT_DEFINE = 1, OPT_KERNEL };

static const cli_option options[] = {
    {"-D", true, OPT_DEFINE}, {"--kernel", true, OPT_KERNEL}, {NULL, false, 0},
};

static int scan(int argc, char **argv, cli_defines *defines, cli_options *c, const char **path,
                const char **kernel) {
    cli_scanner s = cli_scanner_start("lower", argc, argv);
    s.more = c->flags;
    const char *value;
    int id;
    while ((id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        switch (id) {
        case CLI_SCAN_HELP: cli_print_help(&cli_lower_command); return CLI_EXIT_OK;
        case CLI_SCAN_ERROR: return CLI_EXIT_USAGE;
        case CLI_SCAN_POSITIONAL:
            if (*path) return cli_usage_error("lower", "unexpected argument '%s'", value);
            *path = value;
            break;
        case OPT_DEFINE:
            if (!cli_defines_add(defines, "lower", value)) return CLI_EXIT_USAGE;
            break;
        case OPT_KERNEL: *kernel = value[0] == '@' ? value + 1 : value; break;
        default:
            if (!cli_options_take(c, "lower", id, value)) return CLI_EXIT_USAGE;
        }
    }
    return *path ? CLI_CONTINUE : cli_usage_error("lower", "missing FILE.tir");
}

static int lower_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_defines defines;
    cli_defines_init(&defines, ctx);
    cli_options c;
    cli_options_init(&c, ctx, CLI_FLAGS_MODELED | CLI_FLAGS_STAGES);
    const char *path = NULL, *kernel = NULL;
    int code = scan(argc, argv, &defines, &c, &path, &kernel);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, path, &defines);
        const tir_func *f = m ? cli_pick_kernel(m, "lower", kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f) {
            tilec_pipeline_config pc = cli_options_pipeline(&c, TILEC_STAGE_LOWER, true);
            pc.print_after |= 1u << TILEC_STAGE_LOWER;
            code = tilec_pipeline_run(ctx, f, &c.o, &pc, NULL) ? cli_fail_diags(ctx) : CLI_EXIT_OK;
        }
        tir_module_destroy(m);
    }
    cli_defines_free(&defines);
    return code;
}

const cli_command cli_lower_command = {
    "lower",
    "plan a kernel and print its XIR",
    "usage: tilec lower FILE.tir [--kernel NAME] [--block B] [--width W] [--order I,J,...]\n"
    "                   [--partitions P] [--max-unrolled N] [planning options] [-D NAME=VALUE]...\n"
    "\n"
    "Parses and verifies FILE.tir, plans one kernel (tilec plan; the options below\n"
    "are exact constraints), lowers the chosen plan to XIR (one program per lane,\n"
    "or per packet with --local-lanes W),\n"
    "runs the XIR cleanup passes and the XIR verifier,\n"
    "and prints the module, preceded by its dispatch size, argument ABI and\n"
    "realization counters as // comments (the output parses as XIR).\n"
    "\n"
    "Options:\n"
    "  --kernel NAME     the kernel to lower (needed when the file has several)\n" CLI_LOWERING_HELP CLI_STAGES_HELP
    "  -D NAME=VALUE     override shape parameter NAME (repeatable)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the file has errors or cannot be lowered, 2 usage error.\n",
    lower_main,
    NULL,
};
