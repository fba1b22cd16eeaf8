/* target.h — backend target info and cost policy (docs/planner.md "Target
 * info", "Cost"), and the CPU thread-pool implementation.
 *
 * A target info is a struct of hooks plus user data; the solver calls them
 * in the admission order geometry → shared resource analysis → backend budget
 * → scheduling → cost:
 *
 *   target                      packet width W (an ABI fact), CPU pool data
 *   block_sizes                 a finite list of block-width proposals
 *   supports_local_distribution NULL: true
 *   supports_task_grain         NULL: false
 *   supports_divergent_loops    NULL: false — one program per lane with an
 *                               `if` whose condition varies between lanes
 *                               and whose body loops is refused (the SIMD
 *                               backend predicates only loop-free branches;
 *                               a GPU's threads branch on their own)
 *   accepts(candidate)          extra geometry limits, before resources; it
 *                               can only narrow legality.  NULL: accept
 *   resource_limits(candidate)  the snapshot budget, after the shared static
 *                               resource facts are known.  NULL: 256 KiB
 *   schedule(candidate, work)   fills the scheduling fields of the work from
 *                               packet/block counts.  NULL: one wave, no CPU
 *                               tasks (task fields stay 0)
 *   cost_policy                 the backend's objective.  NULL: analytic
 *   policy (data, not a hook)   a caller's policy in place of cost_policy's
 *
 * A cost policy replaces coefficients (before work extraction) and/or the
 * objective; it never changes legality: rejected candidates never reach
 * schedule() or evaluate().  Hooks and user data are borrowed during one
 * synchronous planning call. */
#ifndef TILEC_PLAN_TARGET_H
#define TILEC_PLAN_TARGET_H

#include "realize/admit.h"
#include "plan/options.h"

typedef struct plan_cost_policy plan_cost_policy;
#include "realize/resources.h"

/* What target() reports. */
typedef struct {
    uint32_t packet_width;           /* W: a power of two, 1..1024 */
    uint32_t worker_count;           /* CPU workers (task-grain targets: >= 1; others 0) */
    uint32_t task_chunks_per_worker; /* the legacy grain heuristic (task-grain targets: >= 1) */
    /* Data cache capacities in bytes as one core sees them (L1d, L2, and the
     * L3 it shares); 0: unknown.  The cost prior admits a reused panel only
     * when it fits the L2 (plan_work.reused_load_bytes). */
    uint64_t l1d_bytes, l2_bytes, l3_bytes;
    /* How many packets of W 32-bit lanes the vector register file holds
     * (AVX-512: 32 at W <= 16; AVX2: 16 at W <= 8, 8 at W = 16); 0: unknown.
     * The work model charges spills to an unrolled mma whose live operand and
     * accumulator vectors exceed it (docs/planner.md "Register pressure"). */
    uint32_t vector_registers;
    /* The dot products a packet of W lanes has in hardware (PLAN_DOT_*, xir.h's
     * dots): mma operands they can multiply are packed in groups for them
     * (plan/pack.h). */
    uint32_t dots;
} plan_target;

enum {
    PLAN_DOT_BF16 = 1, /* bf16 pairs into f32 (AVX512-BF16's vdpbf16ps) */
    PLAN_DOT_INT8 = 2  /* u8 × i8 quads and i16 pairs into i32 (AVX512-VNNI's vpdpbusd, vpdpwssd) */
};

enum { PLAN_FUSION_LEVELS = 3, PLAN_CACHE_LEVELS = 3 /* L1d, L2, L3 */ };

/* One point of the search space. */
typedef struct {
    uint32_t index;                /* enumeration ordinal */
    uint32_t rank;
    uint32_t order[PLAN_MAX_RANK]; /* root axis order, outer → inner */
    uint32_t block_size;
    uint32_t local_lanes;
    uint64_t blocks_per_task;      /* requested grain; 0 = the target's heuristic */
    uint32_t packet_width;
    uint64_t programs;             /* root parallel instances */
    uint64_t dispatch_size;        /* physical workers = programs × local_lanes */
    /* fusion level (the options' fuse): 0 none; 1 streamed loads and cheap
     * recomputed values; 2 also costly recomputed values (math functions,
     * div), priced only when no lower level fits */
    uint32_t fused;
    /* root axis tiles (the options' root_axis_tiles, or the planner's own
     * from the tiling search), one factor per root axis; tiled false: none */
    bool tiled;
    uint32_t tiles[PLAN_MAX_RANK];
} plan_candidate;

/* Extracted work and its schedule (the inputs of plan_cost_analytic: a, m,
 * Q, L and the critical worker's counts).  Work fields are per packet and
 * coefficient-weighted; the access counts are dynamic per packet, before
 * weighting. */
typedef struct {
    double arithmetic_per_packet; /* a */
    double memory_per_packet;     /* m */
    double arithmetic_ops;        /* a before the arithmetic weight */
    double decode_ops;            /* root coordinate decode, part of arithmetic_ops */
    double broadcast_loads;       /* view accesses by slope class */
    double contiguous_accesses;
    double gathered_accesses;
    double private_accesses;      /* private array element reads and writes (gathered prior) */
    double spill_accesses;        /* of those, register spills of unrolled mmas */
    bool ragged_packets;          /* packets straddle the innermost root digits: view memory doubled */
    /* Bytes of view loads per packet whose origin does not depend on the
     * innermost root digit's axis, so the next program reads the same panel
     * (reuse distance one program), counting only panels that
     * fit the target's L2.  Not in the score: only the tie-break between
     * equal scores (plan_choice_before). */
    double reused_load_bytes;
    /* Cache lines the programs fetch into each level (L1d, L2, L3) in this
     * candidate's root order and tiling, from the access summaries
     * (plan/reuse.h); 0 where the level's size is unknown.  Priced by the
     * `cache` cost term (l1_line, l2_line, l3_line). */
    double cache_lines[PLAN_CACHE_LEVELS];
    /* filled by the planner */
    uint64_t packet_count; /* Q = ceil(P / W) */
    uint64_t block_count;  /* L = ceil(P / B) */
    /* filled by the target's schedule() */
    uint64_t task_count, active_workers, blocks_per_task;
    uint64_t critical_packets, critical_blocks, critical_tasks;
} plan_work;

/* Every term is kept; score is what the solver minimizes. */
typedef struct {
    double arithmetic, memory, dispatch, imbalance, task, activation, cache, score;
} plan_cost;

#define PLAN_COST_TERMS(X) X(arithmetic) X(memory) X(dispatch) X(imbalance) X(task) X(activation) X(cache) X(score)

typedef struct {
    uint64_t max_snapshot_bytes_per_worker;
} plan_resource_limits;

struct plan_cost_policy {
    const char *name;
    void *user;
    /* Replaces the coefficients before work extraction (NULL: keep). */
    void (*coefficients)(const plan_cost_policy *self, const plan_target *target,
                         const plan_cost_coefficients *prior, plan_cost_coefficients *out);
    /* The whole objective, used as returned (NULL: plan_cost_analytic).
     * Non-finite or negative terms or score reject the candidate. */
    plan_cost (*evaluate)(const plan_cost_policy *self, const plan_target *target, const plan_candidate *candidate,
                          const plan_work *work, const plan_cost_coefficients *model);
};

/* The analytic objective, with P̄ = packet_count / active_workers:
 *   arithmetic = a·P̄, memory = m·P̄, dispatch = block_dispatch·critical_blocks,
 *   imbalance = max(0, critical_packets − P̄)·(a+m),
 *   task = task_dispatch·critical_tasks,
 *   activation = active_workers > 1 ? worker_activation : 0,
 *   cache = (l1_line·lines_L1d + l2_line·lines_L2 + l3_line·lines_L3) / active_workers
 *           (plan_work.cache_lines, plan/reuse.h), score = Σ. */
plan_cost plan_cost_analytic(const plan_work *work, const plan_cost_coefficients *model);

typedef struct plan_target_info plan_target_info;
struct plan_target_info {
    const char *name;
    void *user;
    plan_target (*target)(const plan_target_info *self);
    /* Proposals (any order, duplicates allowed); *count receives their number. */
    const uint32_t *(*block_sizes)(const plan_target_info *self, size_t *count);
    bool (*supports_local_distribution)(const plan_target_info *self);
    bool (*supports_task_grain)(const plan_target_info *self);
    /* false rejects; `reason` (reason_size bytes) may receive why. */
    bool (*accepts)(const plan_target_info *self, const plan_candidate *candidate, char *reason, size_t reason_size);
    plan_resource_limits (*resource_limits)(const plan_target_info *self, const plan_candidate *candidate,
                                            const plan_resources *resources);
    void (*schedule)(const plan_target_info *self, const plan_target *target, const plan_candidate *candidate,
                     plan_work *work);
    const plan_cost_policy *(*cost_policy)(const plan_target_info *self);
    bool (*supports_divergent_loops)(const plan_target_info *self);
    /* A caller's policy in place of the target's (NULL: cost_policy's);
     * borrowed during the planning call.  No compile option names one: the
     * cost prior is the record's `cost`, a policy is a fact of the target. */
    const plan_cost_policy *policy;
};

enum { PLAN_DEFAULT_SNAPSHOT_BUDGET = 256 * 1024 };

/* The default schedule of targets without CPU tasks: every packet and block
 * on one critical path, active_workers 1, task fields 0. */
void plan_schedule_single_wave(plan_work *work);

/* The thread pool's static home-chunk schedule (rt/schedule.h):
 * grain G = requested (clamped to L) or ceil(L / (workers·chunks)); C =
 * ceil(L/G) chunks; h = min(workers, C) active workers; worker w owns chunks
 * w, w+h, …  With h = 1 the runtime runs the whole range in one callback
 * (tasks 1, critical = totals).  Otherwise, with F = C−1 full chunks:
 *   critical(n, cap) = max(ceil(F/h)·cap, floor(F/h)·cap + (n − F·cap))
 * for packets (cap = G·B/W) and blocks (cap = G); critical tasks ceil(C/h). */
void plan_schedule_thread_pool(const plan_target *target, const plan_candidate *candidate, plan_work *work);

/* The CPU thread-pool target: proposals {W, 32, 64, 128, 256, 512, 1024}, task
 * grains, a snapshot budget of 16 MiB / W per worker, the analytic policy.
 * The struct must stay where it is while its info is in use (info.user
 * points to it). */
typedef struct {
    uint32_t packet_width;
    uint32_t worker_count;
    uint32_t task_chunks_per_worker; /* 32 */
    uint32_t block_sizes[7];         /* the proposals: W, then 32..1024 */
    uint64_t l1d_bytes, l2_bytes, l3_bytes; /* PLAN_DEFAULT_L1D/L2/L3 until set */
    uint32_t vector_registers;              /* PLAN_DEFAULT_VECTOR_REGISTERS until set */
    uint32_t dots;                          /* PLAN_DOT_*; none until set */
    plan_target_info info;
} plan_thread_pool;

/* The caches of a modeled thread pool (`tilec plan`, tests): the development
 * host's, so plans do not depend on the machine that prints them. */
enum { PLAN_DEFAULT_L1D = 32 << 10, PLAN_DEFAULT_L2 = 1 << 20, PLAN_DEFAULT_L3 = 32 << 20 };
/* Its vector registers: the development host's (AVX2, 16 ymm at W = 8). */
enum { PLAN_DEFAULT_VECTOR_REGISTERS = 16 };

void plan_thread_pool_init(plan_thread_pool *tp, uint32_t packet_width, uint32_t worker_count);

enum { PLAN_THREAD_POOL_WORKSPACE = 16u << 20 };

#endif
