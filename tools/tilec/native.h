/* native.h — the native engine shared by `tilec run` (the default engine),
 * `tilec bench`, `tilec emit-llvm`/`emit-asm` and `tilec demo`: compiling
 * and dispatching through the public facade (include/tilec/tilec.h) with
 * the command line's compile options (flags.h), which native commands take
 * all of but --workers (that models a target: use --threads). */
#ifndef TILEC_CLI_NATIVE_H
#define TILEC_CLI_NATIVE_H

#include "args.h"
#include "flags.h"
#include "tilec/pipeline.h"

/* Prints a usage error (and returns false) when an option native execution
 * does not take was given (--workers models a target). */
bool cli_native_check(const cli_options *c, const char *command);

/* Compiles f through the pipeline run `stages` (NULL: the whole compile,
 * nothing printed); prints the diagnostics and returns NULL on failure. */
tilec_kernel *cli_native_compile(tilec_context *ctx, const tilec_compile_options *o, const tir_func *f,
                                 const tilec_pipeline_config *stages);
/* Dispatches on the argument buffers; prints the diagnostics on failure. */
bool cli_native_dispatch(tilec_context *ctx, tilec_kernel *k, const cli_args *args);
/* A CUDA kernel's microseconds for `reps` launches on the device (CUDA
 * events; the argument copies are not timed); negative after a failure
 * (diagnostics printed). */
double cli_native_time_gpu(tilec_context *ctx, tilec_kernel *k, const cli_args *args, uint64_t reps);

enum { CLI_TIME_ROUNDS = 7 };
/* Warm timing (bench.c): one warm-up dispatch, repetitions doubled until a
 * round takes 20 ms, then CLI_TIME_ROUNDS rounds; per[] the µs per dispatch
 * of each round, sorted (the median is per[CLI_TIME_ROUNDS / 2]).  False
 * after a failed dispatch (diagnostics printed). */
bool cli_time_kernel(tilec_context *ctx, tilec_kernel *k, const cli_args *a, double per[CLI_TIME_ROUNDS],
                     uint64_t *reps);

/* `tilec run` with the native engine: compile, run, print the realization
 * line and the summaries; with `check`, also compare with the reference
 * interpreter (compare.h).  CLI_CONTINUE on success, CLI_MISMATCH when the
 * results differ from the reference, else the exit code. */
int cli_run_native(tilec_context *ctx, const cli_options *c, const tir_func *f, cli_args *args, bool check);


/* ---- commands that take FILE.tir, -D, --kernel and native options ---- */

enum { CLI_MAX_TUNE_PARAMS = 8 };

typedef struct {
    cli_defines defines;
    const char *path, *kernel;
    cli_options options;
    const char *output, *header, *cpu, *symbol; /* `tilec compile`: -o, --header, --cpu, --name */
    const char *params[CLI_MAX_TUNE_PARAMS];    /* `tilec tune`: --param NAME=V1,V2,... */
    size_t param_count;
    const char *fit;                            /* `tilec tune`: --fit FILE */
    const char *dims[CLI_MAX_DIMS];             /* `tilec bench`: --dim NAME=N */
    size_t dim_count;
} cli_native_request;

#define CLI_NATIVE_COMMAND_HELP \
    "  --kernel NAME     the kernel (needed when the file has several)\n" \
    "  -D NAME=VALUE     override shape parameter NAME (repeatable)\n" CLI_NATIVE_HELP \
    "  -h, --help        show this help\n"

/* Scans the command line into r (initialized here; free with
 * cli_native_request_free).  CLI_CONTINUE, or the exit code to return now. */
int cli_native_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r);
/* The same with `tilec compile`'s -o FILE.o (required), --header FILE.h,
 * --cpu NAME and --name SYMBOL. */
int cli_aot_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r);
/* The same with `tilec bench`'s --dim NAME=N (repeatable). */
int cli_bench_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r);
/* The same with `tilec tune`'s --param NAME=V1,V2,... (repeatable) and
 * --fit FILE. */
int cli_tune_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r);
void cli_native_request_free(cli_native_request *r);

#endif
