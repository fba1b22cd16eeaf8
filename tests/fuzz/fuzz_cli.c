/* fuzz_cli.c — libFuzzer target for the tilec command line: the subcommand
 * dispatch, help requests, the option scanner (cli_scan) and every
 * subcommand's option parsing (-D, --in/--out, --seed, --width, --order,
 * --cost, ... of tools/tilec), through cli_main in parse-only mode: each
 * subcommand's `parse` scans into its request and stops where `main` would
 * read FILE.tir, so no file is read or written and no kernel runs.
 *
 * The input is the argument list after "tilec": split at NUL bytes when it has
 * any (an argument may then hold a newline), else at newlines (readable seeds:
 * one argument per line, a final newline ends the last).  Checked: no crash,
 * no leak, and the result is CLI_CONTINUE or one of the exit codes 0, 1, 2.
 * Run with `make fuzz FUZZ_TARGET=fuzz_cli` (its usage errors are silenced
 * there with -close_fd_mask); `make test` replays tests/fuzz/corpus/cli. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void fail(const char *why) {
    fprintf(stderr, "fuzz_cli: %s\n", why);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char separator = memchr(data, 0, size) ? '\0' : '\n';
    size_t end = size > 0 && data[size - 1] == (uint8_t)separator ? size - 1 : size;
    /* Every argument is a NUL-terminated piece of one copy of the input. */
    char *text = malloc(size + 1);
    size_t argc = 1 + (size > 0);
    for (size_t i = 0; i < end; i++) argc += data[i] == (uint8_t)separator;
    char **argv = malloc((argc + 1) * sizeof *argv);
    if (!text || !argv) fail("out of memory");
    memcpy(text, data, size);
    text[size] = 0;
    argv[0] = "tilec";
    argc = 1;
    if (size > 0) argv[argc++] = text;
    for (size_t i = 0; i < end; i++)
        if (text[i] == separator) {
            text[i] = 0;
            argv[argc++] = text + i + 1;
        }
    if (end < size) text[end] = 0;
    argv[argc] = NULL;
    int code = cli_main((int)argc, argv, true);
    if (code != CLI_CONTINUE && code != CLI_EXIT_OK && code != CLI_EXIT_FAIL && code != CLI_EXIT_USAGE)
        fail("an exit code outside cli.h's");
    free(argv);
    free(text);
    return 0;
}
