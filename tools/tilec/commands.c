/* commands.c — the table of tilec subcommands (check.c, print.c, plan.c,
 * lower.c, run.c, object.c, bench.c, emit.c, demo.c, cache.c, host.c,
 * generate.c), the help requests, and the
 * dispatch of a whole command line (cli_main, see cli.h).  Every subcommand
 * gets a fresh context; exit codes are those of cli.h.  It lives apart from
 * main.c so fuzz_cli can link the dispatch without the program's `main`. */
#include "cli.h"

#include "tilec/tilec.h"

#include <string.h>

static const cli_command *const commands[] = {
    &cli_check_command,
    &cli_print_command,
    &cli_plan_command,
    &cli_lower_command,
    &cli_run_command,
    &cli_compile_command,
    &cli_bench_command,
    &cli_tune_command,
    &cli_emit_llvm_command,
    &cli_emit_asm_command,
    &cli_emit_ptx_command,
    &cli_demo_command,
    &cli_cache_command,
    &cli_host_command,
    &cli_generate_command,
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static const cli_command *find_command(const char *name) {
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(commands[i]->name, name)) return commands[i];
    return NULL;
}

static void print_usage(FILE *out) {
    fprintf(out, "usage: tilec COMMAND [OPTIONS]\n\n"
                 "tilec compiles and runs tile kernels written in TileIR (.tir).\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++) fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "  %-10s %s\n", "help", "show help for tilec or a command (tilec help run)");
    fprintf(out, "\nRun 'tilec COMMAND --help' for a command's options; 'tilec --version' for the version.\n"
                 "Exit status: 0 success, 1 error in the input or the run, 2 usage error.\n");
}

static int help(int argc, char **argv) {
    if (argc < 3 || !strcmp(argv[2], "help")) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 3) return cli_usage_error("help", "unexpected argument '%s'", argv[3]);
    const cli_command *c = find_command(argv[2]);
    if (!c) return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    cli_print_help(c);
    return CLI_EXIT_OK;
}

int cli_main(int argc, char **argv, bool parse_only) {
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) return help(argc, argv);
    if (!strcmp(name, "--version")) {
        printf("tilec %s (LLVM %s)\n", tilec_version(), tilec_llvm_version());
        return CLI_EXIT_OK;
    }
    const cli_command *c = find_command(name);
    if (!c) return cli_usage_error(NULL, "unknown command '%s'", name);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return cli_fail(NULL, "cannot create a context");
    int code = c->main(ctx, argc - 1, argv + 1, parse_only);
    tilec_context_destroy(ctx);
    if (!parse_only && fflush(stdout) != 0 && code == CLI_EXIT_OK) code = cli_fail(NULL, "cannot write the output");
    return code;
}
