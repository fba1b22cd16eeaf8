/* gpu_target.c — the GPU target info and its cost policy (see gpu_target.h). */
#include "plan/gpu_target.h"

#include <stdio.h>

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static plan_target gpu_target(const plan_target_info *self) {
    (void)self;
    return (plan_target){.packet_width = PLAN_GPU_WARP};
}

static const uint32_t *gpu_block_sizes(const plan_target_info *self, size_t *count) {
    const plan_gpu *g = self->user;
    *count = sizeof g->block_sizes / sizeof g->block_sizes[0];
    return g->block_sizes;
}

/* A thread branches on its own: an `if` whose condition differs between
 * the lanes of a warp may loop in its body. */
static bool gpu_divergent_loops(const plan_target_info *self) {
    (void)self;
    return true;
}

static plan_resource_limits gpu_resource_limits(const plan_target_info *self, const plan_candidate *c,
                                                const plan_resources *resources) {
    (void)c;
    (void)resources;
    const plan_gpu *g = self->user;
    return (plan_resource_limits){g->local_bytes_per_thread};
}

/* The block scheduler hands blocks to multiprocessors as they free up; with
 * equal blocks that is round-robin, so the busiest SM runs ceil(L / SMs)
 * blocks of B / 32 warps.  One SM is one worker of the objective. */
static void gpu_schedule(const plan_target_info *self, const plan_target *target, const plan_candidate *c,
                         plan_work *work) {
    (void)target;
    const plan_gpu *g = self->user;
    uint64_t L = work->block_count, sms = g->multiprocessors;
    uint64_t busiest = ceil_div(L, sms);
    work->task_count = 0;
    work->blocks_per_task = 0;
    work->critical_tasks = 0;
    work->active_workers = L < sms ? L : sms;
    work->critical_blocks = busiest;
    work->critical_packets = busiest * (c->block_size / PLAN_GPU_WARP);
}

/* Coalescing: the CPU prior's contiguous (2) and gathered-lane (2) prices
 * become a warp's: a contiguous access of 32 lanes moves four 32-byte
 * sectors (4), a gathered lane a sector of its own (1, so 32 per access,
 * 8× a contiguous one).  Starting a block is cheap next to a CPU task
 * (block_dispatch 32); no worker is woken (activation 0); the cache-line
 * terms stay as given (the reuse model describes CPU caches).  A
 * coefficient the caller changed from the CPU prior is kept. */
static void gpu_coefficients(const plan_cost_policy *self, const plan_target *target,
                             const plan_cost_coefficients *prior, plan_cost_coefficients *out) {
    (void)self;
    (void)target;
    const plan_cost_coefficients cpu = plan_cost_coefficients_default();
    *out = *prior;
#define GPU_PRIOR(field, value) \
    if (prior->field == cpu.field) out->field = value;
    GPU_PRIOR(contiguous_memory, 4)
    GPU_PRIOR(gathered_lane, 1)
    GPU_PRIOR(block_dispatch, 32)
    GPU_PRIOR(worker_activation, 0)
#undef GPU_PRIOR
}

/* Occupancy: the analytic objective, with the memory term stretched by
 * latency_warps / resident warps when the busiest SM holds fewer warps than
 * it needs to hide memory latency (a launch of a few warps pays the full
 * latency of each access). */
static plan_cost gpu_evaluate(const plan_cost_policy *self, const plan_target *target, const plan_candidate *c,
                              const plan_work *work, const plan_cost_coefficients *model) {
    (void)target;
    const plan_gpu *g = self->user;
    plan_cost cost = plan_cost_analytic(work, model);
    uint64_t warps_per_block = c->block_size / PLAN_GPU_WARP;
    uint64_t by_threads = g->threads_per_sm / c->block_size;
    uint64_t resident_blocks = by_threads < g->blocks_per_sm ? by_threads : g->blocks_per_sm;
    if (resident_blocks > work->critical_blocks) resident_blocks = work->critical_blocks;
    uint64_t resident = resident_blocks * warps_per_block;
    if (resident && resident < g->latency_warps) {
        double stretch = (double)g->latency_warps / (double)resident;
        cost.score += cost.memory * (stretch - 1);
        cost.memory *= stretch;
    }
    return cost;
}

static const plan_cost_policy *gpu_cost_policy(const plan_target_info *self) {
    const plan_gpu *g = self->user;
    return &g->policy;
}

tilec_status plan_gpu_options(tilec_context *ctx, tilec_compile_options *o) {
    const char *asked = o->pack == PLAN_PACK_ON              ? "panel packing (pack on)"
                        : o->split == TILEC_SPLIT_ON || o->split_chunks ? "split reductions (split on, split chunks)"
                        : o->blocks_per_task || o->search_task_grain ? "CPU task grains"
                                                                     : NULL;
    if (asked)
        return tilec_error(ctx, TILEC_E_ARG, "GPU-O03", tilec_no_loc(),
                           "the CUDA target has no %s: it is a CPU realization (docs/gpu.md)", asked);
    o->pack = PLAN_PACK_OFF;
    o->split = TILEC_SPLIT_OFF;
    o->split_chunks = 0;
    return TILEC_OK;
}

void plan_gpu_init(plan_gpu *g, uint32_t multiprocessors) {
    g->multiprocessors = multiprocessors ? multiprocessors : PLAN_GPU_DEFAULT_MULTIPROCESSORS;
    g->threads_per_sm = PLAN_GPU_THREADS_PER_SM;
    g->blocks_per_sm = PLAN_GPU_BLOCKS_PER_SM;
    g->latency_warps = PLAN_GPU_LATENCY_WARPS;
    g->local_bytes_per_thread = PLAN_GPU_LOCAL_BYTES;
    for (uint32_t i = 0; i < 6; i++) g->block_sizes[i] = PLAN_GPU_WARP << i;
    g->policy = (plan_cost_policy){.name = "gpu", .user = g, .coefficients = gpu_coefficients,
                                   .evaluate = gpu_evaluate};
    g->info = (plan_target_info){
        .name = "cuda-gpu",
        .user = g,
        .target = gpu_target,
        .block_sizes = gpu_block_sizes,
        .supports_local_distribution = NULL, /* true: a packet-local program is one warp */
        .supports_task_grain = NULL,         /* false */
        .supports_divergent_loops = gpu_divergent_loops,
        .accepts = NULL, /* whole warps up to 1024 threads: the solver's own block check at W = 32 */
        .resource_limits = gpu_resource_limits,
        .schedule = gpu_schedule,
        .cost_policy = gpu_cost_policy,
    };
}
