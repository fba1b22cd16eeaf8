/* target.c — the default schedule and the CPU thread-pool target info (see
 * target.h).  The thread pool's schedule is the closed form of the runtime's
 * static round-robin home chunks, including the one-worker collapse: when
 * only one worker would be active the runtime calls the kernel once on the
 * caller with the whole range, whatever grain was requested. */
#include "plan/target.h"


static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

void plan_schedule_single_wave(plan_work *work) {
    work->task_count = 0;
    work->active_workers = 1;
    work->blocks_per_task = 0;
    work->critical_packets = work->packet_count;
    work->critical_blocks = work->block_count;
    work->critical_tasks = 0;
}

void plan_schedule_thread_pool(const plan_target *target, const plan_candidate *candidate, plan_work *work) {
    uint64_t L = work->block_count, Q = work->packet_count, H = target->worker_count;
    uint64_t G = candidate->blocks_per_task ? candidate->blocks_per_task
                                            : ceil_div(L, H * (uint64_t)target->task_chunks_per_worker);
    if (G > L) G = L;
    if (G == 0) G = 1; /* L = 0 cannot happen (non-empty domains), but keep the division safe */
    uint64_t C = ceil_div(L, G), h = C < H ? C : H;
    work->blocks_per_task = G;
    if (h <= 1) {
        work->task_count = 1;
        work->active_workers = 1;
        work->critical_packets = Q;
        work->critical_blocks = L;
        work->critical_tasks = 1;
        return;
    }
    uint64_t F = C - 1, R = G * candidate->block_size / candidate->packet_width;
    uint64_t most = ceil_div(F, h), fewest = F / h;
    uint64_t packets_full = most * R, packets_last = fewest * R + (Q - F * R);
    uint64_t blocks_full = most * G, blocks_last = fewest * G + (L - F * G);
    work->task_count = C;
    work->active_workers = h;
    work->critical_packets = packets_full > packets_last ? packets_full : packets_last;
    work->critical_blocks = blocks_full > blocks_last ? blocks_full : blocks_last;
    work->critical_tasks = ceil_div(C, h);
}

/* ---- the thread-pool target info ---- */

static plan_target tp_target(const plan_target_info *self) {
    const plan_thread_pool *tp = self->user;
    return (plan_target){tp->packet_width, tp->worker_count, tp->task_chunks_per_worker,
                         tp->l1d_bytes,    tp->l2_bytes,     tp->l3_bytes,
                         tp->vector_registers, tp->dots};
}

static const uint32_t *tp_block_sizes(const plan_target_info *self, size_t *count) {
    const plan_thread_pool *tp = self->user;
    *count = sizeof tp->block_sizes / sizeof tp->block_sizes[0];
    return tp->block_sizes;
}

static bool tp_supports_task_grain(const plan_target_info *self) {
    (void)self;
    return true;
}

/* The SIMD backend's per-thread private workspace is 16 MiB for a whole
 * packet, so one lane (one physical worker) gets 16 MiB / W. */
static plan_resource_limits tp_resource_limits(const plan_target_info *self, const plan_candidate *candidate,
                                               const plan_resources *resources) {
    (void)self;
    (void)resources;
    return (plan_resource_limits){PLAN_THREAD_POOL_WORKSPACE / candidate->packet_width};
}

static void tp_schedule(const plan_target_info *self, const plan_target *target, const plan_candidate *candidate,
                        plan_work *work) {
    (void)self;
    plan_schedule_thread_pool(target, candidate, work);
}

void plan_thread_pool_init(plan_thread_pool *tp, uint32_t packet_width, uint32_t worker_count) {
    tp->packet_width = packet_width;
    tp->worker_count = worker_count;
    tp->task_chunks_per_worker = 32;
    /* one packet per block lets a launch of a few packets (packet-local
     * programs: one per packet) spread over the workers; then 32..1024 */
    static const uint32_t sizes[] = {32, 64, 128, 256, 512, 1024};
    tp->block_sizes[0] = packet_width;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) tp->block_sizes[i + 1] = sizes[i];
    tp->l1d_bytes = PLAN_DEFAULT_L1D;
    tp->l2_bytes = PLAN_DEFAULT_L2;
    tp->l3_bytes = PLAN_DEFAULT_L3;
    tp->vector_registers = PLAN_DEFAULT_VECTOR_REGISTERS;
    tp->dots = 0;
    tp->info = (plan_target_info){
        .name = "cpu-thread-pool",
        .user = tp,
        .target = tp_target,
        .block_sizes = tp_block_sizes,
        .supports_local_distribution = NULL, /* default: true */
        .supports_task_grain = tp_supports_task_grain,
        .accepts = NULL,
        .resource_limits = tp_resource_limits,
        .schedule = tp_schedule,
        .cost_policy = NULL, /* the analytic formula */
    };
}
