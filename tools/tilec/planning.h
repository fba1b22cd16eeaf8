/* planning.h — the command-line face of the execution planner, shared by
 * `tilec plan`, `tilec lower` and `tilec run --xir`: the planner-only options
 * (--workers, --grain, --search-grain, --local-lanes, --max-candidates,
 * --cost, --fuse, --pack, --target) and cli_plan, which plans a kernel for the
 * modeled CPU thread-pool target, or the GPU's with --target cuda.  The fixed-plan options of lowering.h (--block,
 * --width, --order, --partitions, --max-unrolled) are the planner's
 * constraints: a given block or order is exact, not a hint.
 *
 * The modeled target is fixed by the command line (W from --width, default
 * 8; workers from --workers, default 8), never by the host, so plans and
 * their golden files are reproducible. */
#ifndef TILEC_CLI_PLANNING_H
#define TILEC_CLI_PLANNING_H

#include "cli.h"
#include "lower/lower.h"
#include "plan/solve.h"

typedef struct {
    uint32_t workers;
    bool gpu;             /* --target cuda: the GPU target info (plan/gpu_target.h) */
    plan_options options; /* planner-only fields; the rest comes from lower_options */
} cli_planning;

enum {
    OPT_PLAN_WORKERS = 120,
    OPT_PLAN_GRAIN,
    OPT_PLAN_SEARCH_GRAIN,
    OPT_PLAN_SEARCH_TILES,
    OPT_PLAN_LOCAL_LANES,
    OPT_PLAN_MAX_CANDIDATES,
    OPT_PLAN_COST,
    OPT_PLAN_PROFILE,
    OPT_PLAN_FUSE,
    OPT_PLAN_PACK,
    OPT_PLAN_SPLIT,
    OPT_PLAN_SPLIT_CHUNKS,
    OPT_PLAN_TARGET
};
#define CLI_PLANNING_OPTIONS \
    {"--workers", true, OPT_PLAN_WORKERS}, {"--grain", true, OPT_PLAN_GRAIN}, \
        {"--search-grain", false, OPT_PLAN_SEARCH_GRAIN}, {"--search-tiles", false, OPT_PLAN_SEARCH_TILES}, \
        {"--local-lanes", true, OPT_PLAN_LOCAL_LANES}, \
        {"--max-candidates", true, OPT_PLAN_MAX_CANDIDATES}, {"--cost", true, OPT_PLAN_COST}, \
        {"--profile", true, OPT_PLAN_PROFILE}, \
        {"--fuse", true, OPT_PLAN_FUSE}, {"--pack", true, OPT_PLAN_PACK}, {"--split", true, OPT_PLAN_SPLIT}, \
        {"--split-chunks", true, OPT_PLAN_SPLIT_CHUNKS}, {"--target", true, OPT_PLAN_TARGET}
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
    "  --split-chunks N  exactly N chunks (2..trips; implies --split on)\n"

void cli_planning_init(cli_planning *p);
/* Handles one option from CLI_PLANNING_OPTIONS; prints a usage error for
 * `command` and returns false when the value is malformed. */
bool cli_planning_option(cli_planning *p, const char *command, int id, const char *value);
/* Plans f under the planner options plus the lowering constraints `lo`
 * (block_size 0 = search, order, W, representation settings).  The result
 * must be freed with plan_result_free whatever the status. */
tilec_status cli_plan(tilec_context *ctx, const cli_planning *p, const lower_options *lo, const tir_func *f,
                      plan_result *out);

#endif
