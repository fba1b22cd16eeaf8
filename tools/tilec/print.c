/* print.c — `tilec print FILE.tir [-D NAME=VALUE]... [--split N]`: the
 * specialized IR, or with --split the partial and combine kernels a split
 * of each kernel's mergeable reduce into N chunks makes (the pipeline's
 * split stage).  The file is verified first, so what is printed is a valid
 * module. */
#include "cli.h"

#include "base/strbuf.h"
#include "tilec/pipeline.h"

#include <string.h>

enum { MAX_CHUNKS = 256 }; /* the planner's bound on split chunks (PLAN-O12) */

static tilec_status collect(void *user, const char *bytes, size_t n) {
    strbuf_append_n(user, bytes, n);
    return TILEC_OK;
}

/* Prints the split kernels of every kernel of m — the pipeline's print
 * after its split stage, for one modeled worker, the split kernels
 * verified — or fails naming why one cannot be split. */
static int print_split(tilec_context *ctx, const tir_module *m, uint32_t chunks) {
    tilec_compile_options o = tilec_compile_options_default();
    o.split_chunks = chunks;
    tilec_pipeline_config pc = tilec_pipeline_config_default();
    pc.stop_after = TILEC_STAGE_SPLIT;
    pc.print_after = pc.verify_after = 1u << TILEC_STAGE_SPLIT;
    pc.modeled = true;
    pc.modeled_workers = 1;
    pc.write = collect;
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        strbuf text, unsplit;
        strbuf_init(&text, ctx);
        strbuf_init(&unsplit, ctx);
        strbuf_printf(&unsplit, "// @%s: not split: ", tir_func_name(f));
        pc.user = &text;
        tilec_status st = tilec_pipeline_run(ctx, f, &o, &pc, NULL);
        bool split = !st && !text.failed && strncmp(strbuf_cstr(&text), strbuf_cstr(&unsplit), unsplit.len);
        if (split) fputs(strbuf_cstr(&text), stdout);
        else if (!st) /* the split stage's words: why not, on one line */
            cli_fail("print", "@%s cannot be split into %u chunks: %.*s", tir_func_name(f), chunks,
                     (int)(text.len > unsplit.len ? text.len - unsplit.len - 1 : 0),
                     strbuf_cstr(&text) + unsplit.len);
        strbuf_free(&text);
        strbuf_free(&unsplit);
        if (st) {
            cli_fail_diags(ctx);
            return cli_fail("print", "cannot build the split kernels of @%s", tir_func_name(f));
        }
        if (!split) return CLI_EXIT_FAIL;
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
            cli_print_help(&cli_print_command);
            code = CLI_EXIT_OK;
        } else if (id == CLI_SCAN_ERROR) {
            code = CLI_EXIT_USAGE;
        } else if (id == CLI_SCAN_POSITIONAL) {
            if (path) code = cli_usage_error("print", "unexpected argument '%s'", value);
            path = value;
        } else if (id == 2) {
            if (!cli_parse_u64(value, &chunks) || chunks < 2 || chunks > MAX_CHUNKS)
                code = cli_usage_error("print", "--split needs a chunk count 2..%d, not '%s'", MAX_CHUNKS,
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
    NULL,
};
