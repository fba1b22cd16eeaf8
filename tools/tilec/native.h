/* native.h — the native engine shared by `tilec run` (the default engine),
 * `tilec bench`, `tilec emit-llvm`/`emit-asm` and `tilec demo`: the
 * command-line options of native execution and compiling/dispatching
 * through the public facade (include/tilec/tilec.h).
 *
 * Native options: --host SPEC (the host description, base/host.h: sets
 * TILEC_HOST), --threads N (runtime workers; default TILEC_THREADS, else
 * the described host's cores), --no-full-packets (turns full-packet specialization off),
 * --stores auto|cached|streaming (tilec_stores), --target cpu|cuda and --sm
 * ARCH (tilec_target, gpu_arch) and --width W (packet width; default TILEC_SIMD_WIDTH, else the
 * host's), plus the planner constraints and settings of lowering.h (--block,
 * --order, --tiles, --grain, --search-grain, --max-candidates, --cost,
 * --partitions, --max-unrolled, --local-lanes, --fuse, --pack, --split).
 * --workers models a target (native uses --threads); native commands
 * refuse it. */
#ifndef TILEC_CLI_NATIVE_H
#define TILEC_CLI_NATIVE_H

#include "args.h"
#include "lowering.h"
#include "tilec/tilec.h"

enum { OPT_NATIVE_THREADS = 140, OPT_NATIVE_NO_FULL_PACKETS, OPT_NATIVE_STORES, OPT_NATIVE_SM, OPT_NATIVE_HOST };
#define CLI_NATIVE_OPTIONS \
    {"--threads", true, OPT_NATIVE_THREADS}, {"--no-full-packets", false, OPT_NATIVE_NO_FULL_PACKETS}, \
    {"--stores", true, OPT_NATIVE_STORES}, {"--sm", true, OPT_NATIVE_SM}, {"--host", true, OPT_NATIVE_HOST}
#define CLI_NATIVE_HELP \
    "  --target T        cpu (default: this host's cores) or cuda (an NVIDIA GPU through the\n" \
    "                    CUDA driver, loaded at run time: docs/gpu.md)\n" \
    "  --sm ARCH         with --target cuda: the GPU architecture, sm_60 .. sm_90a (default sm_90)\n" \
    "  --host SPEC       the host planned for: native, zen4, zen5, xeon-spr, avx2-laptop\n" \
    "  --threads N       runtime worker threads (default: TILEC_THREADS, else the cores)\n" \
    "  --no-full-packets emit one masked body for every packet instead of adding an\n" \
    "                    all-active body for complete packets (full-packet specialization)\n" \
    "  --stores MODE     auto (default), cached or streaming: non-temporal whole-packet\n" \
    "                    stores to write-only parameters (auto: when the parameters span\n" \
    "                    at least 3/4 of the last-level cache)\n" \
    "  --width W         packet width 1, 2, 4, 8 or 16 (default: TILEC_SIMD_WIDTH, else\n" \
    "                    the host's: 16 with AVX-512F, 8 with AVX2, else 4)\n" \
    "  --block B, --order I,J,..., --tiles A,B,..., --grain G, --search-grain,\n" \
    "  --max-candidates N, --cost NAME=X, --partitions P, --max-unrolled N, --local-lanes L\n" \
    "                    planner constraints and settings, as for `tilec plan`\n" \
    "  --check-bounds    check every scalar access, extract and bounds=assume subtile at\n" \
    "                    run time, also those proven in range (default: unproven ones)\n" \
    "  --separate-mma    round each float mma step's product and sum separately\n" \
    "                    instead of once (one fma per step, the default)\n"

typedef struct {
    cli_lowering lowering; /* --width and the planner constraints and settings */
    bool width_given;
    uint32_t threads;
    bool no_full_packets;
    tilec_stores stores;
    bool stores_given;
    const char *sm; /* --sm (with --target cuda, a planning option); NULL: the default */
    const char *host; /* --host (checked; cli_native_options sets TILEC_HOST); NULL: TILEC_HOST as it is */
    int refused; /* the first option id native execution does not take, 0: none */
} cli_native;

void cli_native_init(cli_native *n);
/* true when `id` is one of CLI_NATIVE_OPTIONS or one of CLI_LOWERING_OPTIONS (recorded);
 * false when the id is not one of these (the caller handles it).  *ok is
 * false after printing a usage error for a malformed value. */
bool cli_native_option(cli_native *n, const char *command, int id, const char *value, bool *ok);
/* Prints a usage error (and returns false) when an option native execution
 * does not take was given. */
bool cli_native_check(const cli_native *n, const char *command);
/* The compile options of n; sets TILEC_HOST to --host's description first. */
tilec_compile_options cli_native_options(const cli_native *n);

/* Compiles f; prints the diagnostics and returns NULL on failure. */
tilec_kernel *cli_native_compile(tilec_context *ctx, const tilec_compile_options *o, const tir_func *f);
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
int cli_run_native(tilec_context *ctx, const cli_native *n, const tir_func *f, cli_args *args, bool check);


/* ---- commands that take FILE.tir, -D, --kernel and native options ---- */

enum { CLI_MAX_TUNE_PARAMS = 8 };

typedef struct {
    cli_defines defines;
    const char *path, *kernel;
    cli_native native;
    const char *output, *header, *cpu, *symbol; /* `tilec compile`: -o, --header, --cpu, --name */
    const char *params[CLI_MAX_TUNE_PARAMS];    /* `tilec tune`: --param NAME=V1,V2,... */
    size_t param_count;
    const char *fit;                            /* `tilec tune`: --fit FILE */
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
/* The same with `tilec tune`'s --param NAME=V1,V2,... (repeatable) and
 * --fit FILE. */
int cli_tune_request_scan(tilec_context *ctx, const cli_command *cmd, int argc, char **argv, cli_native_request *r);
void cli_native_request_free(cli_native_request *r);

#endif
