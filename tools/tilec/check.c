/* check.c — `tilec check FILE.tir [-D NAME=VALUE]...`: parse and verify. */
#include "cli.h"

static int check_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_defines defines;
    cli_defines_init(&defines, ctx);
    const char *path;
    int code = cli_scan_file_command(&cli_check_command, argc, argv, &defines, &path);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, path, &defines);
        if (m) printf("ok: %zu kernel(s)\n", tir_module_func_count(m));
        code = m ? CLI_EXIT_OK : CLI_EXIT_FAIL;
        tir_module_destroy(m);
    }
    cli_defines_free(&defines);
    return code;
}

const cli_command cli_check_command = {
    "check",
    "parse and verify a kernel file",
    "usage: tilec check FILE.tir [-D NAME=VALUE]...\n"
    "\n"
    "Parses FILE.tir, specializes its kernels' shape parameters and runs the\n"
    "verifier.  Prints \"ok: N kernel(s)\" or the diagnostics (file:line:col).\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE   override shape parameter NAME (repeatable; -DNAME=VALUE too)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the file has errors, 2 usage error.\n",
    check_main,
    NULL,
};
