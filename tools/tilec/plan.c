/* plan.c — `tilec plan FILE.tir`: run the execution planner on one kernel and
 * print the chosen plan with every cost term; --explain adds every admitted
 * candidate ranked in the planner's order (score; ties by reused load bytes, then enumeration) and every rejection
 * with its reason; --json prints the same as one JSON object.  Both reports
 * are the planner's, printed by the pipeline after its plan stage
 * (tilec/pipeline.h) for the modeled target. */
#include "flags.h"

enum { OPT_DEFINE = 1, OPT_KERNEL, OPT_EXPLAIN, OPT_JSON };

static const cli_option options[] = {
    {"-D", true, OPT_DEFINE},          {"--kernel", true, OPT_KERNEL}, {"--explain", false, OPT_EXPLAIN},
    {"--json", false, OPT_JSON},       {NULL, false, 0},
};

typedef struct {
    cli_defines defines;
    cli_options options;
    const char *path, *kernel;
    bool explain, json;
} plan_request;

static int scan(plan_request *r, int argc, char **argv) {
    cli_scanner s = cli_scanner_start("plan", argc, argv);
    s.more = r->options.flags;
    const char *value;
    int id;
    while ((id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        switch (id) {
        case CLI_SCAN_HELP: cli_print_help(&cli_plan_command); return CLI_EXIT_OK;
        case CLI_SCAN_ERROR: return CLI_EXIT_USAGE;
        case CLI_SCAN_POSITIONAL:
            if (r->path) return cli_usage_error("plan", "unexpected argument '%s'", value);
            r->path = value;
            break;
        case OPT_DEFINE:
            if (!cli_defines_add(&r->defines, "plan", value)) return CLI_EXIT_USAGE;
            break;
        case OPT_KERNEL: r->kernel = value[0] == '@' ? value + 1 : value; break;
        case OPT_EXPLAIN: r->explain = true; break;
        case OPT_JSON: r->json = true; break;
        default:
            if (!cli_options_take(&r->options, "plan", id, value)) return CLI_EXIT_USAGE;
        }
    }
    return r->path ? CLI_CONTINUE : cli_usage_error("plan", "missing FILE.tir");
}

static int plan_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    plan_request r = {0};
    cli_defines_init(&r.defines, ctx);
    cli_options_init(&r.options, ctx, CLI_FLAGS_MODELED | CLI_FLAGS_STAGES);
    int code = scan(&r, argc, argv);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, r.path, &r.defines);
        const tir_func *f = m ? cli_pick_kernel(m, "plan", r.kernel) : NULL;
        code = CLI_EXIT_FAIL;
        if (f) {
            tilec_pipeline_config pc = cli_options_pipeline(&r.options, TILEC_STAGE_PLAN, true);
            pc.print_after |= 1u << TILEC_STAGE_PLAN; /* a plan, or with --explain why there is none */
            pc.explain = r.explain;
            pc.json = r.json;
            code = tilec_pipeline_run(ctx, f, &r.options.o, &pc, NULL) ? cli_fail_diags(ctx) : CLI_EXIT_OK;
        }
        tir_module_destroy(m);
    }
    cli_defines_free(&r.defines);
    return code;
}

const cli_command cli_plan_command = {
    "plan",
    "plan how a kernel's programs map onto packets, blocks and CPU tasks",
    "usage: tilec plan FILE.tir [--explain] [--json] [--kernel NAME] [options] [-D NAME=VALUE]...\n"
    "\n"
    "Parses and verifies FILE.tir and runs the execution planner on one kernel\n"
    "for the modeled CPU thread-pool target: an exact search over root axis\n"
    "orders, block widths, local widths and task grains under the uncalibrated\n"
    "cost prior (docs/planner.md). Prints the chosen plan (order, block, W, local\n"
    "lanes, grain, dispatch size, schedule, resources) with every cost term.\n"
    "\n"
    "Options:\n"
    "  --explain         also rank every admitted candidate with its cost terms and\n"
    "                    list every rejected candidate with its reason\n"
    "  --json            print the same as one JSON object (stable keys and numbers)\n"
    "  --kernel NAME     the kernel to plan (needed when the file has several)\n" CLI_LOWERING_HELP,
    plan_main,
    CLI_STAGES_HELP
    "  -D NAME=VALUE     override shape parameter NAME (repeatable)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Constraints (--block, --order, --grain, --local-lanes) are exact, not hints.\n"
    "Exit status: 0 planned, 1 the file has errors or no candidate is admitted\n"
    "(with --explain the rejections are still printed), 2 usage error.\n",
};
