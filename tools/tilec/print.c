/* print.c — `tilec print FILE.tir [-D NAME=VALUE]...`: the specialized IR.
 * The file is verified first, so what is printed is a valid module. */
#include "cli.h"

static int print_main(tilec_context *ctx, int argc, char **argv, bool parse_only) {
    cli_defines defines;
    cli_defines_init(&defines, ctx);
    const char *path;
    int code = cli_scan_file_command(&cli_print_command, argc, argv, &defines, &path);
    if (code == CLI_CONTINUE && !parse_only) {
        tir_module *m = cli_load_module(ctx, path, &defines);
        code = m ? CLI_EXIT_OK : CLI_EXIT_FAIL;
        if (m && tir_print_file(m, stdout) != TILEC_OK) {
            cli_fail_diags(ctx);
            code = cli_fail("print", "cannot print the module");
        }
        tir_module_destroy(m);
    }
    cli_defines_free(&defines);
    return code;
}

const cli_command cli_print_command = {
    "print",
    "print the specialized IR of a kernel file",
    "usage: tilec print FILE.tir [-D NAME=VALUE]...\n"
    "\n"
    "Parses and verifies FILE.tir and prints its kernels in the text form with\n"
    "every shape parameter substituted (the output parses back to the same IR).\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE   override shape parameter NAME (repeatable; -DNAME=VALUE too)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Exit status: 0 ok, 1 the file has errors, 2 usage error.\n",
    print_main,
};
