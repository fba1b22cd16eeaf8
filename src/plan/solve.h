/* solve.h — the execution planner: an exact finite solver over root axis
 * permutations × block widths × local widths × task grains (docs/planner.md
 * "The search"), and the entry that plans and then lowers.
 *
 * plan_kernel is the one planner entry point.  It validates the options and
 * the target, admits the kernel (which must be verified), counts the whole
 * declared space up front (more than max_candidates is an error, never a
 * partial search), then visits every candidate in a fixed order —
 * permutations in lexicographic order (identity first), then local widths,
 * block widths (ascending) and task grains (ascending) — through
 *
 *   local distribution realized? → target accepts() → shared static resource
 *   analysis → target resource_limits() budget → work extraction (once per
 *   root order) → target schedule() → cost (policy or analytic) → finite and
 *   non-negative?
 *
 * A candidate that fails a step is recorded with its reason and never
 * reaches the later steps.  The selected plan is the exact minimum score;
 * ties go to the earliest candidate.  If every candidate is rejected the
 * planner fails with "rejected every" and keeps the rejections.
 *
 * Diagnostics: PLAN-O.. options, PLAN-T01 target, PLAN-B01 candidate budget,
 * PLAN-S01 every candidate rejected, PLAN-I01 lowering disagrees with the
 * plan, PLAN-M01 out of memory; admission refusals keep their LOWER-A.. codes
 * and the root order its LOWER-O03 message (validation shared with lowering). */
#ifndef TILEC_PLAN_SOLVE_H
#define TILEC_PLAN_SOLVE_H

#include "base/arena.h"
#include "base/vec.h"
#include "plan/access.h"
#include "plan/reuse.h"
#include "plan/pack.h"
#include "plan/split.h"
#include "plan/target.h"

/* An admitted, scored candidate ("ExecutionPlan"). */
typedef struct {
    plan_candidate candidate;
    plan_work work;
    plan_cost cost;
    plan_resources resources;    /* the shared static facts */
    plan_resource_limits limits; /* the target's budget for this candidate */
} plan_choice;

/* X(enum suffix, name) in admission order. */
#define PLAN_REJECT_STAGES(X) \
    X(LOCAL, "local-distribution") X(ACCEPTS, "accepts") X(ANALYSIS, "resource-analysis") X(BUDGET, "resource-budget") \
    X(COST, "cost") X(BRANCH, "varying-branch")

typedef enum {
#define X(e, name) PLAN_REJECT_##e,
    PLAN_REJECT_STAGES(X)
#undef X
} plan_reject_stage;

const char *plan_reject_stage_name(plan_reject_stage stage);

typedef struct {
    plan_candidate candidate;
    plan_reject_stage stage;
    bool analyzed;               /* resources and limits are populated (BUDGET, COST) */
    plan_resources resources;
    plan_resource_limits limits;
    bool scored;                 /* work and cost are populated (COST) */
    plan_work work;
    plan_cost cost;
    const char *reason;          /* owned by the result */
} plan_rejection;

typedef struct {
    tilec_context *ctx;
    arena arena;                 /* strings and copied option arrays */
    const char *kernel;          /* the TileIR kernel's name */
    const char *target_name;
    plan_target target;
    bool task_grain;             /* the target supports CPU task grains */
    tilec_compile_options options; /* as given; arrays copied, the runtime and gpu_arch cleared */
    const char *policy;          /* "analytic" or the cost policy's name */
    bool custom_policy;          /* a caller's or the target's policy was used */
    plan_cost_coefficients coefficients; /* in effect (after the policy's replacement) */
    uint64_t root_orders, block_widths, local_widths; /* the declared space's factors */
    uint64_t duplicate_orders;   /* root orders and tilings skipped: their canonical map repeats an earlier one */
    uint64_t tilings;            /* candidates the tiling search added (options.search_tiles) */
    /* The packet-local admission of width W when it was enumerated and
     * admitted: D's label (NULL: none, or no nonunit axis), N and the slots
     * per lane (realize/local.h). */
    const char *local_axis;
    uint64_t local_extent, local_slots;
    uint64_t local_widest; /* the largest extent of the distributed dims (D's and the contractions') */
    /* the contractions' distributed axes, "d=64,k=8" (NULL: none) */
    const char *local_contraction_axes;
    const char *local_passed_over; /* the first choice of D refused before this one ("'m': why"), or NULL */
    uint64_t candidate_count;    /* enumerated: candidates.len + rejected.len */
    VEC(plan_choice) candidates; /* admitted and scored, in enumeration order */
    VEC(plan_rejection) rejected;
    size_t selected;             /* index into candidates when ok */
    plan_accesses accesses;      /* every view access of the root program (plan/access.h), once admitted */
    plan_footprints footprints;  /* each accessed view's footprint per program (plan/reuse.h) */
    plan_packing packing;        /* the packing decision for the selected plan (options.pack) */
    plan_split split;            /* the split decision (options.split): when it splits, the driver
                                    compiles its partial and combine kernels instead of this plan */
    bool ok;
} plan_result;

/* Plans f (verified) for `info` under the planner's part of `options`
 * (NULL: tilec_compile_options_default(); the rest is not read).  On success out->ok and out->selected are
 * set; on failure a status and diagnostics, with whatever was enumerated kept
 * in `out`.  Always call plan_result_free afterwards. */
tilec_status plan_kernel(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                         const plan_target_info *info, plan_result *out);
void plan_result_free(plan_result *r);

/* The planner's order of candidates: lower score first; equal scores by
 * more adjacent panel reuse (plan_work.reused_load_bytes), then by
 * enumeration order.  The selected candidate is the first in this order. */
static inline bool plan_choice_before(const plan_choice *x, const plan_choice *y) {
    if (x->cost.score != y->cost.score) return x->cost.score < y->cost.score;
    if (x->work.reused_load_bytes != y->work.reused_load_bytes)
        return x->work.reused_load_bytes > y->work.reused_load_bytes;
    return x->candidate.index < y->candidate.index;
}

static inline const plan_choice *plan_selected(const plan_result *r) {
    return r->ok ? &r->candidates.data[r->selected] : NULL;
}

#endif
