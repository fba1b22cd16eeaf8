/* print.c — `tilec print FILE.tir [-D NAME=VALUE]... [--split N]`: the
 * specialized IR, or with --split the partial and combine kernels a split
 * of each kernel's mergeable reduce into N chunks makes (plan/split.h
 * decides, rewrite/split.h builds).  The file is verified first, so what is
 * printed is a valid module. */
#include "cli.h"

#include "plan/split.h"
#include "rewrite/split.h"

/* Prints the split kernels of every kernel of m, or fails naming why one
 * cannot be split. */
static int print_split(tilec_context *ctx, const tir_module *m, uint32_t chunks) {
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        plan_split s;
        if (!plan_split_decide(f, TILEC_SPLIT_ON, chunks, 1, &s))
            return cli_fail("print", "@%s cannot be split into %u chunks: %s", tir_func_name(f), chunks, s.why);
        tir_module *split = plan_split_build(ctx, f, &s);
        printf("// @%s: %s\n", tir_func_name(f), s.why);
        bool ok = split && tir_verify(ctx, split) == TILEC_OK && tir_print_file(split, stdout) == TILEC_OK;
        tir_module_destroy(split);
        if (!ok) {
            cli_fail_diags(ctx);
            return cli_fail("print", "cannot build the split kernels of @%s", tir_func_name(f));
        }
    }
    return CLI_EXIT_OK;
}

static int print_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    static const cli_option options[] = {{"-D", true, 1}, {"--split", true, 2}, {NULL, false, 0}};
    cli_defines defines;
    cli_defines_init(&defines, ctx);
    const char *path = NULL, *value;
    uint64_t chunks = 0;
    int code = CLI_CONTINUE, id;
    cli_scanner s = cli_scanner_start("print", argc, argv);
    while (code == CLI_CONTINUE && (id = cli_scan(&s, options, &value)) != CLI_SCAN_END) {
        if (id == CLI_SCAN_HELP) {
            fputs(cli_print_command.help, stdout);
            code = CLI_EXIT_OK;
        } else if (id == CLI_SCAN_ERROR) {
            code = CLI_EXIT_USAGE;
        } else if (id == CLI_SCAN_POSITIONAL) {
            if (path) code = cli_usage_error("print", "unexpected argument '%s'", value);
            path = value;
        } else if (id == 2) {
            if (!cli_parse_u64(value, &chunks) || chunks < 2 || chunks > PLAN_SPLIT_MAX_CHUNKS)
                code = cli_usage_error("print", "--split needs a chunk count 2..%d, not '%s'", PLAN_SPLIT_MAX_CHUNKS,
                                       value);
        } else if (!cli_defines_add(&defines, "print", value)) {
            code = CLI_EXIT_USAGE;
        }
    }
    if (code == CLI_CONTINUE && !path) code = cli_usage_error("print", "missing FILE.tir");
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, path, &defines);
        code = m ? CLI_EXIT_OK : CLI_EXIT_FAIL;
        if (m && chunks) {
            code = print_split(ctx, m, (uint32_t)chunks);
        } else if (m && tir_print_file(m, stdout) != TILEC_OK) {
            cli_fail_diags(ctx);
            code = cli_fail("print", "cannot print the module");
        }
        tir_module_destroy(m);
    }
    cli_defines_free(&defines);
    return code == CLI_CONTINUE ? CLI_EXIT_OK : code;
}

const cli_command cli_print_command = {
    "print",
    "print the specialized IR of a kernel file",
    "usage: tilec print FILE.tir [-D NAME=VALUE]... [--split N]\n"
    "\n"
    "Parses and verifies FILE.tir and prints its kernels in the text form with\n"
    "every shape parameter substituted (the output parses back to the same IR).\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE   override shape parameter NAME (repeatable; -DNAME=VALUE too)\n"
    "  --split N       print instead the partial and combine kernels that split each\n"
    "                  kernel's mergeable reduce (a reduce with a combine block) into\n"
    "                  N chunks (docs/lowering.md \"Split reductions\")\n"
    "  -h, --help      show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the file has errors or cannot be split, 2 usage error.\n",
    print_main,
};
