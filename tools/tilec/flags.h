/* flags.h — the command line's compile options: one record (a
 * tilec_compile_options and the few settings only the command line has),
 * filled flag by flag through the library's option table
 * (tilec_compile_option_info: each option's flag; tilec_compile_options_set:
 * the one reader of its value).  Planning commands (`plan`, `lower`, `run
 * --xir`) model their target: W from --width (default 8), workers from
 * --workers (default 8), never the host, so their output is reproducible.
 * Native commands (`run`, `bench`, `emit-*`, `compile`, `tune`) compile for
 * the described host (--host) with --threads workers.
 *
 * Flags beyond the table: --workers N (the modeled pool), --cost NAME=X (sets
 * cost.NAME), --profile FILE (NAME=VALUE lines, # comments), --host SPEC;
 * and for the commands that run the pipeline stage by stage (`plan`,
 * `lower`, `run`): --print-after STAGE[,STAGE...], --stop-after STAGE,
 * --verify-each (tilec/pipeline.h). */
#ifndef TILEC_CLI_FLAGS_H
#define TILEC_CLI_FLAGS_H

#include "cli.h"
#include "tilec/pipeline.h"

/* Which commands take a flag. */
enum { CLI_FLAGS_MODELED = 1, CLI_FLAGS_NATIVE = 2, CLI_FLAGS_STAGES = 4 };
enum { CLI_FLAG_ID = 200, CLI_MAX_FLAGS = 64 };

typedef struct {
    tilec_context *ctx;        /* lists set by name live in it */
    tilec_compile_options o;   /* every option the table names */
    uint32_t workers;          /* --workers: the modeled pool (default 8) */
    const char *host;          /* --host (checked); NULL: TILEC_HOST as it is */
    uint64_t given;            /* bit i: option i of the table was given */
    bool workers_given, any_given;
    unsigned print_after;      /* --print-after STAGE,...: 1u << stage */
    tilec_stage stop_after;    /* --stop-after STAGE (default: emit) */
    bool verify_each;          /* --verify-each */
    cli_option flags[CLI_MAX_FLAGS]; /* the flags this command takes, for cli_scan (NULL-terminated) */
} cli_options;

/* The defaults, and the flags of `groups` (CLI_FLAGS_MODELED, _NATIVE or
 * both) ready for cli_scanner.more. */
void cli_options_init(cli_options *c, tilec_context *ctx, unsigned groups);
/* Takes one flag whose id came from c->flags; prints a usage error for
 * `command` and returns false when its value is malformed. */
bool cli_options_take(cli_options *c, const char *command, int id, const char *value);
/* True when `flag` ("--threads", "--workers", "--host", ...) was given. */
bool cli_options_given(const cli_options *c, const char *flag);
/* The modeled target's packet width: --width, else 8. */
uint32_t cli_options_modeled_width(const cli_options *c);
/* The pipeline run of a command that runs it up to `last` (less with
 * --stop-after), printing to stdout the stages --print-after names and
 * checking each with --verify-each; `modeled`: the planning commands'
 * modeled target with --workers. */
tilec_pipeline_config cli_options_pipeline(const cli_options *c, tilec_stage last, bool modeled);
/* The compile options of a native command; sets TILEC_HOST to --host's
 * description first (parsing alone changes nothing). */
tilec_compile_options cli_options_native(const cli_options *c);

#define CLI_LOWERING_HELP \
    "  --block B         logical workers per runtime block (default 0: planned)\n" \
    "  --width W         packet width: 1, 2, 4, 8 or 16 (default 8)\n" \
    "  --order I,J,...   exact root axis order, outer to inner (default: planned)\n" \
    "  --tiles A,B,...   root axis tiles, one factor per root axis as written, each\n" \
    "                    dividing its extent: visit A x B x ... blocks (default: none)\n" \
    "  --partitions P    partial accumulators of closed reductions, 1..16 (default 4)\n" \
    "  --max-unrolled N  largest tile kept as unrolled SSA values (default 64)\n" \
    "  --check-bounds    check every scalar access, extract and bounds=assume subtile at\n" \
    "                    run time, also those proven in range (default: unproven ones)\n" \
    "  --separate-mma    round each float mma step's product and sum separately\n" \
    "                    instead of once (one fma per step, the default)\n" CLI_PLANNING_HELP
#define CLI_PLANNING_HELP \
    "  --target T        cpu (default) or cuda: the GPU target (W = 32, CTAs of 32..1024\n" \
    "                    threads, its own cost policy; docs/gpu.md); --width and --workers\n" \
    "                    then do not apply\n" \
    "  --workers N       CPU workers of the modeled thread pool (default 8)\n" \
    "  --grain G         fixed blocks per CPU task (default 0: the pool's heuristic)\n" \
    "  --search-grain    also search task grains (powers of two, heuristic, whole launch)\n" \
    "  --search-tiles    also try root axis tilings of the best order, priced by the\n" \
    "                    reuse-distance cache term (docs/planner.md)\n" \
    "  --local-lanes L   0 search {1, W} (default), 1 one program per lane, W packet-local\n" \
    "                    (one program per packet, the stored row axis split over lanes)\n" \
    "  --max-candidates N  candidate budget (default 1024; exceeding it is an error)\n" \
    "  --cost NAME=X     cost coefficient: arithmetic, broadcast_load, contiguous_memory,\n" \
    "                    gathered_lane, block_dispatch, task_dispatch, worker_activation,\n" \
    "                    l1_line, l2_line, l3_line\n" \
    "  --profile FILE    cost coefficients from FILE (NAME=VALUE lines, # comments), as\n" \
    "                    `tilec tune --fit FILE` writes them\n" \
    "  --fuse MODE       auto (default), on or off: read large loads from their views where\n" \
    "                    they are used, recompute cheap values (docs/lowering.md)\n" \
    "  --pack MODE       auto (default), on or off: copy a reused strided operand into\n" \
    "                    contiguous panels before each dispatch (docs/lowering.md)\n" \
    "  --split MODE      auto (default), on or off: fold a mergeable reduce (one with a\n" \
    "                    combine block) in chunks over several programs, then merge\n" \
    "  --split-chunks N  exactly N chunks (2..trips; implies --split on)\n" \
    "  --bucket-cuts C,...  a kernel with runtime sizes: cut each size's range before\n" \
    "                    these rising sizes, one plan per bucket (default 2,256,4096;\n" \
    "                    0: one bucket; docs/planner.md \"Runtime sizes\")\n"
#define CLI_STAGES_HELP \
    "  --print-after S   print what stage S made; S is flatten, verify, plan, split,\n" \
    "                    lower or emit, or several comma-separated (docs/cli.md \"Stages\")\n" \
    "  --stop-after S    run the pipeline up to stage S only\n" \
    "  --verify-each     check what each stage made with its verifier\n"
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
    "  --search-tiles, --max-candidates N, --cost NAME=X, --profile FILE, --partitions P,\n" \
    "  --max-unrolled N, --local-lanes L, --fuse MODE, --pack MODE, --split MODE,\n" \
    "  --split-chunks N, --bucket-cuts C,...\n" \
    "                    planner constraints and settings, as for `tilec plan`\n" \
    "  --check-bounds    check every scalar access, extract and bounds=assume subtile at\n" \
    "                    run time, also those proven in range (default: unproven ones)\n" \
    "  --separate-mma    round each float mma step's product and sum separately\n" \
    "                    instead of once (one fma per step, the default)\n"

#endif
