/* cli.h — what the tilec subcommands share: exit codes, the option scanner,
 * -D defines, loading a verified module, and the subcommand entry points.
 *
 * Conventions: results go to stdout, diagnostics and usage errors to stderr.
 * Exit 0 on success, 1 when the input (a file, a kernel, data) is at fault,
 * 2 when the command line is. */
#ifndef TILEC_CLI_H
#define TILEC_CLI_H

#include "base/context.h"
#include "base/vec.h"
#include "tilec/tilec.h"
#include "tilec/tir.h"

#include <stdbool.h>
#include <stdio.h>

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* ---- option scanning ---- */

typedef struct {
    const char *name; /* "--kernel", or a one-letter "-D" (value may be attached: -DN=4) */
    bool takes_value; /* long options take "--name VALUE" or "--name=VALUE" */
    int id;           /* > 0 */
} cli_option;

enum { CLI_SCAN_END = 0, CLI_SCAN_POSITIONAL = -1, CLI_SCAN_HELP = -2, CLI_SCAN_ERROR = -3 };

typedef struct {
    const char *command; /* "run", for messages */
    int argc;
    char **argv;
    int next;
    bool options_done; /* after "--" everything is positional */
    const cli_option *more; /* NULL, or options matched after the command's own (flags.h) */
} cli_scanner;

/* argv[0] is the command name; scanning starts after it. */
cli_scanner cli_scanner_start(const char *command, int argc, char **argv);
/* The next option's id (its value in *value), CLI_SCAN_POSITIONAL (the argument
 * in *value), CLI_SCAN_HELP for -h/--help, CLI_SCAN_END, or CLI_SCAN_ERROR
 * after printing a usage error. */
int cli_scan(cli_scanner *s, const cli_option *options, const char **value);

/* Prints "tilec COMMAND: error: ..." and a --help hint; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "tilec COMMAND: error: ..." (an input problem); returns CLI_EXIT_FAIL. */
int cli_fail(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints and clears the context's diagnostics; returns CLI_EXIT_FAIL. */
int cli_fail_diags(tilec_context *ctx);

/* Splits "NAME=VALUE" at the first '='; false when either side is empty. */
bool cli_split_assignment(const char *text, const char **name, size_t *name_len, const char **value);
/* A whole decimal number (no sign, no junk, fits 64 bits). */
bool cli_parse_u64(const char *text, uint64_t *out);
/* --width W, one rule for every subcommand that takes it: W is a packet width
 * lowering and the native backend realize (1, 2, 4, 8 or 16).  Anything else
 * (0, 3, 32, junk) prints a usage error for `command` and returns false. */
bool cli_parse_width(const char *command, const char *text, uint32_t *out);

/* ---- -D NAME=VALUE ---- */

typedef struct {
    tilec_context *ctx;
    VEC(tir_define) items; /* names are owned copies */
} cli_defines;

void cli_defines_init(cli_defines *d, tilec_context *ctx);
void cli_defines_free(cli_defines *d);
/* Adds one -D argument; prints a usage error and returns false when malformed. */
bool cli_defines_add(cli_defines *d, const char *command, const char *text);

/* ---- subcommands: argv[0] is the subcommand's name ---- */

typedef struct {
    const char *name;
    const char *summary;
    const char *help; /* the full --help text */
    /* With parse_only the command stops after scanning its command line, before
     * reading FILE.tir: CLI_CONTINUE where it would go on, else the exit code
     * (after the same help text or usage error); nothing read, written or
     * compiled.  For fuzz_cli. */
    int (*main)(tilec_context *ctx, int argc, char **argv, bool parse_only);
    const char *help_more; /* NULL, or the rest of the help (one string literal holds at most 4095 bytes) */
} cli_command;

/* Prints the command's --help text. */
void cli_print_help(const cli_command *c);
/* A tir_write_fn that writes to stdout (user unused): what the library
 * hands over as text is printed as is. */
tilec_status cli_write_stdout(void *user, const char *bytes, size_t n);

extern const cli_command cli_check_command, cli_print_command, cli_plan_command, cli_lower_command, cli_run_command,
    cli_bench_command, cli_emit_llvm_command, cli_emit_asm_command, cli_emit_ptx_command, cli_demo_command, cli_cache_command,
    cli_compile_command, cli_tune_command, cli_host_command,
    cli_generate_command;

/* What a step returns besides an exit code: CLI_CONTINUE, go on; CLI_MISMATCH,
 * the run finished but its results differ from the reference interpreter (the
 * message is printed; the --out files are still written, then exit 1). */
enum { CLI_CONTINUE = -1, CLI_MISMATCH = -2 };

/* The command line of commands that take FILE.tir and -D options only: returns
 * CLI_CONTINUE with *path and *defines set, or the exit code to return now
 * (after printing the help or a usage error). */
int cli_scan_file_command(const cli_command *cmd, int argc, char **argv, cli_defines *defines, const char **path);

/* ---- the whole command line ---- */

/* `tilec ARGS...` (argv[0] is the program): answers a help request or runs
 * the subcommand, in a fresh context, with parse_only passed on (see
 * cli_command; its CLI_CONTINUE is then returned as is). */
int cli_main(int argc, char **argv, bool parse_only);

/* ---- modules ---- */

/* Reads, parses (with the defines) and verifies `path`.  On failure prints the
 * diagnostics and returns NULL. */
tir_module *cli_load_module(tilec_context *ctx, const char *path, const cli_defines *defines);
/* cli_load_module for a command that compiles natively with the options o
 * (NULL: as cli_load_module): the open chosen parameters (docs/tir.md
 * "Chosen parameters") of `kernel` (NULL: the first) chosen first
 * (tilec_choose_params: measured on this host unless recorded, or
 * TILEC_CHOOSE=first) and added to defines; progress and the choice on
 * stderr. */
tir_module *cli_load_chosen(tilec_context *ctx, const char *command, const char *path, const char *kernel,
                            cli_defines *defines, const tilec_compile_options *o);
/* The kernel called `name`, or the only kernel when name is NULL; prints why
 * not (listing the kernels) and returns NULL otherwise. */
const tir_func *cli_pick_kernel(const tir_module *m, const char *command, const char *name);

#endif
