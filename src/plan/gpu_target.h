/* gpu_target.h — the GPU target info (the GPU route has its own
 * target info beside the CPU thread pool's; docs/gpu.md "Planning").  An
 * NVIDIA GPU through the existing hooks of plan/target.h:
 *
 *   target            W = 32 (a packet is a warp), no CPU workers, no caches
 *                     the reuse model knows, register file unknown (0)
 *   block_sizes       CTAs of 32, 64, 128, 256, 512, 1024 threads
 *   supports_task_grain   false (the hardware schedules the blocks)
 *   supports_divergent_loops  true: threads branch on their own, so one
 *                     program per lane may loop under a varying `if`
 *   accepts           none: a block of whole warps up to 1024 threads is the
 *                     solver's own rule at W = 32 (PLAN-O06 names it), and a
 *                     u32 dispatch always fits one grid
 *   resource_limits   local memory per thread for snapshots
 *   schedule          blocks spread round-robin over the multiprocessors:
 *                     the busiest one runs ceil(L / SMs) blocks
 *   cost_policy       "gpu": coalescing per warp in the coefficients (a
 *                     contiguous warp access is four 32-byte sectors, a
 *                     gathered lane one sector of its own) and occupancy in
 *                     the objective (memory time stretched when too few
 *                     warps are resident to hide latency)
 *
 * The struct must stay where it is while its info is in use (info.user and
 * the policy point to it). */
#ifndef TILEC_PLAN_GPU_TARGET_H
#define TILEC_PLAN_GPU_TARGET_H

#include "plan/target.h"

enum {
    PLAN_GPU_WARP = 32,
    /* an H100 / H200 SXM: 132 multiprocessors of 2048 threads and 32 blocks */
    PLAN_GPU_DEFAULT_MULTIPROCESSORS = 132,
    PLAN_GPU_THREADS_PER_SM = 2048,
    PLAN_GPU_BLOCKS_PER_SM = 32,
    /* resident warps per multiprocessor that keep its memory pipe busy */
    PLAN_GPU_LATENCY_WARPS = 16,
    /* snapshot storage per thread (local memory; a snapshot larger than
     * this belongs in a packet-local plan, whose rows are split over the
     * warp) */
    PLAN_GPU_LOCAL_BYTES = 64 * 1024,
};

typedef struct {
    uint32_t multiprocessors;
    uint32_t threads_per_sm, blocks_per_sm, latency_warps;
    uint64_t local_bytes_per_thread;
    uint32_t block_sizes[6];
    plan_cost_policy policy;
    plan_target_info info;
} plan_gpu;

/* A GPU of `multiprocessors` SMs (0: the default), the other limits the
 * defaults above. */
void plan_gpu_init(plan_gpu *g, uint32_t multiprocessors);

/* What of the planner options the GPU takes: panel packing and split
 * reductions are CPU realizations (copy and combine kernels of their own)
 * and CPU task grains do not exist, so their auto modes become off; asking
 * for one (pack or split on, split chunks, a task grain or its search) is
 * GPU-O03 (TILEC_E_ARG), nothing dropped in silence. */
tilec_status plan_gpu_options(tilec_context *ctx, tilec_compile_options *o);

#endif
