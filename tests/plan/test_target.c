/* Target info hooks (upstream §1.5 test_tile_xir_target_info, without the
 * packet-local ABI cases, which need packet-local lowering).
 *
 * Block proposals {128, 0, 32, 16, 64, 32, UINT32_MAX} on a W32 target are
 * sorted, deduplicated and filtered to {32, 64, 128}; accepts() then rejects
 * 64 with its reason; a target without CPU tasks leaves the task fields 0.
 * A policy cannot legalize: with every candidate rejected, a pinned illegal
 * block, or no legal proposal, planning fails and the policy is never
 * evaluated.  Disabled local distribution: search falls back to one local
 * width, forcing W fails ("local-axis distribution"); task-grain options fail
 * on a target without tasks ("task-grain"); packets 0 and 3 are an "invalid
 * XIR target".  Invalid root orders fail before any hook or policy call.
 * Snapshot budget: the boundary at 129×4 bytes (−1 / = / +1), rejection
 * records carry the facts; a block-dependent budget moves the winner from
 * block 128 to 64; a fixed block is never relaxed.  Host caches are read
 * from a sysfs-shaped directory. */
#include "plan_fixture.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    unsigned evaluations;
} eval_counter;

static plan_cost zero_cost(const plan_cost_policy *self, const plan_target *t, const plan_candidate *c,
                           const plan_work *w, const plan_cost_coefficients *model) {
    ((eval_counter *)self->user)->evaluations++;
    return (plan_cost){0, 0, 0, 0, 0, 0, 0, 0};
}

static void test_block_proposals(void) {
    tir_module *m = fill_kernel(257);
    if (!m) return;
    static const uint32_t proposals[] = {128, 0, 32, 16, 64, 32, UINT32_MAX};
    mock_target t;
    mock_init(&t, 32, 8);
    t.task_grain = false;
    t.proposals = proposals;
    t.proposal_count = 7;
    t.reject_block = 64;
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), NULL, &t.info, &r)) {
        CHECK(r.block_widths == 3 && r.candidate_count == 3);
        CHECK(r.candidates.len == 2 && r.rejected.len == 1);
        CHECK(r.candidates.data[0].candidate.block_size == 32 && r.candidates.data[1].candidate.block_size == 128);
        CHECK(r.rejected.data[0].candidate.block_size == 64 && r.rejected.data[0].stage == PLAN_REJECT_ACCEPTS);
        CHECK(r.rejected.data[0].candidate.index == 1 && !r.rejected.data[0].analyzed);
        CHECK_STR_CONTAINS(r.rejected.data[0].reason, "block 64 is not supported");
        CHECK(t.accepts_calls == 3 && t.limits_calls == 2 && t.schedule_calls == 2);
        for (size_t i = 0; i < r.candidates.len; i++) {
            const plan_work *w = &r.candidates.data[i].work;
            CHECK(w->task_count == 0 && w->blocks_per_task == 0 && w->critical_tasks == 0);
            CHECK(r.candidates.data[i].candidate.packet_width == 32);
        }
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

static void test_policy_cannot_legalize(void) {
    tir_module *m = fill_kernel(257);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    eval_counter n = {0};
    plan_cost_policy free_lunch = {"free-lunch", &n, NULL, zero_cost};
    static const uint32_t only64[] = {64}, illegal[] = {0, 33, 2048};
    mock_target t;
    mock_init(&t, 8, 8);
    t.policy = &free_lunch; /* the target's own policy */
    t.proposals = only64;
    t.proposal_count = 1;
    t.reject_block = 64;
    plan_fails("accepts rejects all", f, NULL, &t.info, "rejected every");
    tilec_compile_options o = options_whole();
    t.info.policy = &free_lunch; /* a caller's policy in place of the target's */
    o.block_size = 33;
    plan_fails("pinned 33", f, &o, &t.info, "block width");
    t.info.policy = NULL;
    t.proposals = illegal;
    t.proposal_count = 3;
    plan_fails("no proposals", f, NULL, &t.info, "no legal block widths");
    CHECK(n.evaluations == 0);
    /* With legal candidates the target's policy is used. */
    t.proposals = NULL;
    t.reject_block = 0;
    plan_result r;
    if (plan_ok(f, NULL, &t.info, &r)) {
        CHECK(n.evaluations == 6 && r.custom_policy && !strcmp(r.policy, "free-lunch"));
        CHECK(plan_selected(&r)->cost.score == 0 && r.selected == 0);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

static void test_disabled_local_distribution(void) {
    tir_module *m = fill_kernel(65);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    mock_target t;
    mock_init(&t, 32, 8);
    t.task_grain = false;
    t.local_distribution = false;
    tilec_compile_options o = options_whole();
    o.local_lanes = 0;
    plan_result r;
    if (plan_ok(f, &o, &t.info, &r)) {
        CHECK(r.local_widths == 1 && r.candidate_count == 6 && r.rejected.len == 0);
        CHECK(plan_selected(&r)->candidate.local_lanes == 1);
    }
    plan_result_free(&r);
    o.local_lanes = 32;
    plan_fails("forced local 32", f, &o, &t.info, "local-axis distribution");
    o = options_whole();
    o.search_task_grain = true;
    plan_fails("search grain", f, &o, &t.info, "task-grain");
    o = options_whole();
    o.blocks_per_task = 2;
    plan_fails("fixed grain", f, &o, &t.info, "task-grain");
    mock_init(&t, 0, 8);
    plan_fails("packet 0", f, NULL, &t.info, "invalid XIR target");
    mock_init(&t, 3, 8);
    plan_fails("packet 3", f, NULL, &t.info, "invalid XIR target");
    mock_init(&t, 2048, 8);
    plan_fails("packet 2048", f, NULL, &t.info, "invalid XIR target");
    tir_module_destroy(m);
}

static void test_invalid_root_order_first(void) {
    tir_module *m = parse_example(ctx, "gemm", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    eval_counter n = {0};
    plan_cost_policy counter = {"counter", &n, NULL, zero_cost};
    mock_target t;
    mock_init(&t, 8, 8);
    static const uint32_t one[] = {0}, gap[] = {0, 2}, twice[] = {1, 1}, three[] = {0, 1, 2};
    const uint32_t *orders[] = {one, gap, twice, three};
    const size_t lens[] = {1, 2, 2, 3};
    for (size_t i = 0; i < 4; i++) {
        tilec_compile_options o = options_whole();
        o.root_axis_order = orders[i];
        o.root_axis_order_len = lens[i];
        t.info.policy = &counter;
        plan_result r;
        CHECK(plan_kernel(ctx, f, &o, &t.info, &r) == TILEC_E_ARG && !r.ok && r.candidate_count == 0);
        CHECK(has_diag("LOWER-O03", "XIR root axis order must be a complete permutation"));
        tilec_diag_clear(ctx);
        plan_result_free(&r);
    }
    CHECK(t.accepts_calls == 0 && t.limits_calls == 0 && t.schedule_calls == 0 && n.evaluations == 0);
    tir_module_destroy(m);
}

/* Sum of squares of a row of 129 f32 (examples_util.h): one 516-byte load
 * snapshot per row. */
static void test_snapshot_budget(void) {
    tir_define d = {"R", 1024};
    tir_module *m = parse_kernel(sumsq_text(), &d, 1);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    mock_target t;
    mock_init(&t, 8, 8);
    /* The boundary: demand 129 × 4 bytes. */
    for (int delta = -1; delta <= 1; delta++) {
        t.budget = 129 * 4 + delta;
        plan_result r;
        tilec_compile_options whole = options_whole();
        tilec_status st = plan_kernel(ctx, f, &whole, &t.info, &r);
        if (delta < 0) {
            CHECK(st != TILEC_OK && has_diag("PLAN-S01", "rejected every"));
            CHECK(r.candidates.len == 0 && r.rejected.len == 6);
            for (size_t i = 0; i < r.rejected.len; i++) {
                const plan_rejection *x = &r.rejected.data[i];
                CHECK(x->stage == PLAN_REJECT_BUDGET && x->analyzed && !x->scored);
                CHECK(x->resources.snapshot_bytes_per_worker == 516 && x->resources.snapshot_allocations == 1);
                CHECK(x->limits.max_snapshot_bytes_per_worker == 515);
                CHECK_STR_CONTAINS(x->reason, "snapshot storage budget");
            }
            CHECK(t.schedule_calls == 0);
            tilec_diag_clear(ctx);
        } else {
            CHECK(st == TILEC_OK && r.ok && r.candidates.len == 6);
            if (r.ok) CHECK(plan_selected(&r)->resources.snapshot_bytes_per_worker == 516);
            if (r.ok) CHECK(plan_selected(&r)->limits.max_snapshot_bytes_per_worker == 129 * 4 + (uint64_t)delta);
            flush_diags();
        }
        plan_result_free(&r);
    }
    /* A block-dependent budget changes the winner: 128 wins without it. */
    t.budget = UINT64_MAX;
    plan_result r;
    if (plan_ok(f, NULL, &t.info, &r)) CHECK(plan_selected(&r)->candidate.block_size == 128);
    plan_result_free(&r);
    t.budget_block = 128;
    t.budget_for_block = 515;
    if (plan_ok(f, NULL, &t.info, &r)) {
        CHECK(plan_selected(&r)->candidate.block_size == 64);
        CHECK(r.rejected.len == 1 && r.rejected.data[0].candidate.block_size == 128);
    }
    plan_result_free(&r);
    /* A fixed block is never relaxed. */
    tilec_compile_options o = options_whole();
    o.block_size = 128;
    plan_fails("fixed block over budget", f, &o, &t.info, "snapshot storage budget");
    /* The CPU pool's budget is 16 MiB / W. */
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 16, 8);
    if (plan_ok(f, NULL, &pool.info, &r))
        CHECK(plan_selected(&r)->limits.max_snapshot_bytes_per_worker == (16u << 20) / 16);
    plan_result_free(&r);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_block_proposals();
    test_policy_cannot_legalize();
    test_disabled_local_distribution();
    test_invalid_root_order_first();
    test_snapshot_budget();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
