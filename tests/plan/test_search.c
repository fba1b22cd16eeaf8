/* The declared search space, its budget and the exact minimum (upstream
 * §1.1 cases 10, 12 (planning part), 18, 20).
 *
 * Candidate counts: orders (rank! unless fixed) × block widths × local
 * widths × task grains, enumerated before any work; more than max_candidates
 * is an error (with a saturated count for huge ranks), never a partial
 * search.  A 16×32 store ({W8, 8 workers}): 2 orders × 6 blocks = 12
 * candidates, the chosen order makes the contiguous axis innermost (also
 * transposed), its score is the minimum, ties go to the earliest candidate.
 * Task grains for 257 programs (block 32, W8, 8 workers): [1,2,4,8,9]; a
 * policy's coefficients (activation 1e12, task 17) make the whole launch win;
 * a policy's score is used as returned; invalid coefficients and scores are
 * rejected.  Local lanes: search enumerates {1, W} and rejects W (not realized
 * yet); forcing W fails; 3 fails.  Block widths 0, 1, 33, 2048. */
#include "plan_fixture.h"

#include "lower/lower.h"

static const char store2d_text[] =
    "kernel @store2d(%Y: view<f32>[Y.0=16, Y.1=32]) {\n"
    "  parallel (%i: i=16, %j: j=32) {\n"
    "    %one = const f32 1.0\n"
    "    store %Y[%i, %j], %one\n"
    "  }\n"
    "}\n"
    "kernel @store2d_t(%Y: view<f32>[Y.0=32, Y.1=16]) {\n"
    "  parallel (%i: i=16, %j: j=32) {\n"
    "    %one = const f32 1.0\n"
    "    store %Y[%j, %i], %one\n"
    "  }\n"
    "}\n";

static bool is_minimum(const plan_result *r) {
    const plan_choice *s = plan_selected(r);
    for (size_t i = 0; i < r->candidates.len; i++) {
        const plan_choice *c = &r->candidates.data[i];
        if (c->cost.score < s->cost.score) return false;
        if (c != s && plan_choice_before(c, s)) return false;
    }
    return true;
}

static void test_contiguous_axis_innermost(void) {
    tir_module *m = parse_kernel(store2d_text, NULL, 0);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    for (size_t k = 0; k < 2; k++) {
        const tir_func *f = tir_module_func(m, k);
        plan_result r;
        if (plan_ok(f, NULL, &pool.info, &r)) {
            const plan_choice *s = plan_selected(&r);
            CHECK(r.candidate_count == 14 && r.candidates.len == 14 && r.rejected.len == 0);
            CHECK(r.root_orders == 2 && r.block_widths == 7 && r.local_widths == 1); /* W, 32..1024 */
            /* Y[i,j]: j (axis 1) innermost; transposed Y[j,i]: i (axis 0). */
            CHECK(s->candidate.rank == 2 && s->candidate.order[1] == (k == 0 ? 1u : 0u));
            CHECK(s->work.contiguous_accesses == 1 && s->work.gathered_accesses == 0);
            CHECK(is_minimum(&r));
            /* Candidates come in enumeration order: identity first. */
            for (size_t i = 0; i < r.candidates.len; i++) CHECK(r.candidates.data[i].candidate.index == i);
            CHECK(r.candidates.data[0].candidate.order[0] == 0 && r.candidates.data[7].candidate.order[0] == 1);
            /* The other order gathers. */
            const plan_choice *other = &r.candidates.data[k == 0 ? 7 : 0];
            CHECK(other->work.gathered_accesses == 1 && other->work.memory_per_packet == 2 * 8);
        }
        plan_result_free(&r);
        /* A fixed block and order: one candidate, exactly as given. */
        tilec_compile_options o = options_whole();
        uint32_t order[2] = {1, 0};
        o.block_size = 64;
        o.root_axis_order = order;
        o.root_axis_order_len = 2;
        if (plan_ok(f, &o, &pool.info, &r)) {
            CHECK(r.candidate_count == 1 && plan_selected(&r)->candidate.block_size == 64);
            CHECK(plan_selected(&r)->candidate.order[0] == 1 && plan_selected(&r)->candidate.order[1] == 0);
        }
        plan_result_free(&r);
    }
    /* Failures. */
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = options_whole();
    uint32_t twice[2] = {0, 0};
    o.root_axis_order = twice;
    o.root_axis_order_len = 2;
    plan_fails("order {0,0}", f, &o, &pool.info, "XIR root axis order must be a complete permutation");
    o = options_whole();
    o.max_candidates = 11;
    plan_fails("max_candidates 11", f, &o, &pool.info, "candidate budget");
    o = options_whole();
    o.block_size = 33;
    plan_fails("block 33", f, &o, &pool.info, "block width");
    o = options_whole();
    o.cost.contiguous_memory = -1;
    plan_fails("negative coefficient", f, &o, &pool.info, "invalid cost coefficient");
    plan_thread_pool w3;
    plan_thread_pool_init(&w3, 3, 8);
    plan_fails("W3", f, NULL, &w3.info, "invalid XIR target");
    tir_module_destroy(m);
}

/* Equal scores: the earliest candidate wins. */
static void test_deterministic_ties(void) {
    tir_module *m = fill_kernel(7);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 1);
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), NULL, &pool.info, &r)) {
        CHECK(r.candidates.len == 7);
        for (size_t i = 1; i < r.candidates.len; i++)
            CHECK(r.candidates.data[i].cost.score == r.candidates.data[0].cost.score);
        CHECK(r.selected == 0 && plan_selected(&r)->candidate.block_size == 8);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

/* Equal scores break toward adjacent panel reuse: packet-local gemm prices
 * both root orders alike, but with gm innermost (order [1,0]) the next
 * program reads the same K × 32 B panel (K·32·4 bytes per packet), with gn
 * innermost only the same 8 × K A block (8·K·4): [1,0] is chosen, unless
 * the L2 cannot hold the B panel. */
static void test_reuse_ties(void) {
    tir_define d[] = {{"M", 256}, {"N", 256}, {"K", 256}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    tir_module *m = parse_example(ctx, "gemm", d, 6);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 16, 1);
    tilec_compile_options o = options_whole();
    o.local_lanes = 16;
    o.block_size = 1024;
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
        CHECK(r.candidates.len == 2);
        const plan_choice *a = &r.candidates.data[0], *b = &r.candidates.data[1];
        CHECK(a->cost.score == b->cost.score);
        CHECK(a->candidate.order[0] == 0 && a->work.reused_load_bytes == 8.0 * 256 * 4);
        CHECK(b->candidate.order[0] == 1 && b->work.reused_load_bytes == 256.0 * 32 * 4);
        CHECK(plan_selected(&r) == b && is_minimum(&r));
    }
    plan_result_free(&r);
    /* An L2 of 16 KiB holds the 8 KiB A block but not the 32 KiB B panel:
     * only [0,1] earns reuse; an unknown L2 (0) admits none. */
    pool.l2_bytes = 16 << 10;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
        CHECK(r.candidates.data[0].work.reused_load_bytes == 8.0 * 256 * 4);
        CHECK(r.candidates.data[1].work.reused_load_bytes == 0);
        CHECK(plan_selected(&r) == &r.candidates.data[0]);
    }
    plan_result_free(&r);
    pool.l2_bytes = 0;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) {
        CHECK(r.candidates.data[0].work.reused_load_bytes == 0 && r.candidates.data[1].work.reused_load_bytes == 0);
        CHECK(plan_selected(&r) == &r.candidates.data[0]);
    }
    plan_result_free(&r);
    tir_module_destroy(m);
}

/* A huge rank saturates the count instead of wrapping. */
static void test_budget_saturates(void) {
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "kernel @wide(%%Y: view<f32>[Y.0=2]) {\n  parallel (");
    for (int a = 0; a < 21; a++) n += (size_t)snprintf(text + n, sizeof text - n, "%s%%a%d: a%d=2", a ? ", " : "", a, a);
    snprintf(text + n, sizeof text - n, ") {\n    %%one = const f32 1.0\n    store %%Y[%%a0], %%one\n  }\n}\n");
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    plan_fails("rank 21", tir_module_func(m, 0), NULL, &pool.info, "more than 18446744073709551615 candidates");
    /* Fixing the order makes it tractable. */
    tilec_compile_options o = options_whole();
    uint32_t order[21];
    for (uint32_t a = 0; a < 21; a++) order[a] = 20 - a;
    o.root_axis_order = order;
    o.root_axis_order_len = 21;
    plan_result r;
    if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r)) CHECK(r.candidate_count == 7);
    plan_result_free(&r);
    tir_module_destroy(m);
}

/* ---- task grains and policies (case 10) ---- */

typedef struct {
    unsigned evaluations;
    double score; /* returned as the score; the terms are 1 each */
    plan_cost_coefficients coefficients;
    bool replace;
} counting_policy;

static plan_cost counting_evaluate(const plan_cost_policy *self, const plan_target *t, const plan_candidate *c,
                                   const plan_work *w, const plan_cost_coefficients *model) {
    counting_policy *p = self->user;
    p->evaluations++;
    return (plan_cost){1, 1, 1, 1, 1, 1, 1, p->score};
}

static void counting_coefficients(const plan_cost_policy *self, const plan_target *t,
                                  const plan_cost_coefficients *prior, plan_cost_coefficients *out) {
    counting_policy *p = self->user;
    *out = p->replace ? p->coefficients : *prior;
}

static void test_task_grains(void) {
    tir_module *m = fill_kernel(257);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    tilec_compile_options o = options_whole();
    o.block_size = 32;
    o.search_task_grain = true;
    o.cost.worker_activation = 0; /* free workers: a split launch wins this small kernel */
    plan_result r;
    if (plan_ok(f, &o, &pool.info, &r)) {
        static const uint64_t want[] = {1, 2, 4, 8, 9};
        CHECK(r.candidates.len == 5);
        for (size_t i = 0; i < r.candidates.len && i < 5; i++) {
            CHECK(r.candidates.data[i].candidate.blocks_per_task == want[i]);
            CHECK(r.candidates.data[i].work.blocks_per_task == want[i]);
        }
        CHECK(plan_selected(&r)->candidate.blocks_per_task < 9);
        CHECK(is_minimum(&r));
    }
    plan_result_free(&r);

    /* Policy coefficients: activation 1e12 and task 17 make the whole launch
     * (one task, one active worker) win. */
    counting_policy cp = {0};
    cp.replace = true;
    cp.coefficients = plan_cost_coefficients_default();
    cp.coefficients.worker_activation = 1e12;
    cp.coefficients.task_dispatch = 17;
    plan_cost_policy coefficients_only = {"heavy-activation", &cp, counting_coefficients, NULL};
    pool.info.policy = &coefficients_only;
    if (plan_ok(f, &o, &pool.info, &r)) {
        const plan_choice *s = plan_selected(&r);
        CHECK(s->candidate.blocks_per_task == 9 && s->work.task_count == 1 && s->work.active_workers == 1);
        CHECK(s->cost.activation == 0 && s->cost.task == 17);
        CHECK(r.custom_policy && !strcmp(r.policy, "heavy-activation") && r.coefficients.task_dispatch == 17);
        CHECK(r.candidates.data[0].cost.activation == 1e12);
    }
    plan_result_free(&r);
    pool.info.policy = NULL;

    o.max_candidates = 4;
    plan_fails("5 grains, budget 4", f, &o, &pool.info, "candidate budget");
    o.max_candidates = 1024;

    /* A fixed grain is one candidate, even with the search on. */
    o.blocks_per_task = 3;
    if (plan_ok(f, &o, &pool.info, &r)) {
        CHECK(r.candidates.len == 1 && plan_selected(&r)->candidate.blocks_per_task == 3);
        CHECK(plan_selected(&r)->work.task_count == 3);
    }
    plan_result_free(&r);

    /* An override policy's score is used as returned, once per candidate. */
    cp = (counting_policy){.score = 42};
    plan_cost_policy scorer = {"scorer", &cp, NULL, counting_evaluate};
    pool.info.policy = &scorer;
    if (plan_ok(f, &o, &pool.info, &r)) {
        CHECK(cp.evaluations == 1 && plan_selected(&r)->cost.score == 42 && plan_selected(&r)->cost.memory == 1);
    }
    plan_result_free(&r);

    /* Invalid scores reject every candidate; invalid coefficients fail. */
    const double bad[] = {-1, INFINITY, NAN};
    for (int i = 0; i < 3; i++) {
        cp = (counting_policy){.score = bad[i]};
        pool.info.policy = &scorer;
        plan_fails("bad score", f, &o, &pool.info, "rejected every");
        CHECK(cp.evaluations == 1);
        if (plan_kernel(ctx, f, &o, &pool.info, &r) != TILEC_OK) {
            CHECK(r.rejected.len == 1 && r.rejected.data[0].stage == PLAN_REJECT_COST && r.rejected.data[0].scored);
            CHECK_STR_CONTAINS(r.rejected.data[0].reason, "returned score");
        }
        tilec_diag_clear(ctx);
        plan_result_free(&r);

        cp = (counting_policy){.coefficients = plan_cost_coefficients_default(), .replace = true};
        cp.coefficients.gathered_lane = bad[i];
        pool.info.policy = &coefficients_only;
        plan_fails("bad policy coefficient", f, &o, &pool.info, "invalid cost coefficient from cost policy");
        pool.info.policy = NULL;
        o.cost.block_dispatch = bad[i];
        plan_fails("bad option coefficient", f, &o, &pool.info, "invalid cost coefficient from the options");
        o.cost = plan_cost_coefficients_default();
    }

    /* Block 33 fails before any evaluation. */
    cp = (counting_policy){.score = 1};
    pool.info.policy = &scorer;
    o.block_size = 33;
    plan_fails("block 33", f, &o, &pool.info, "block width");
    CHECK(cp.evaluations == 0);

    /* A target with zero task chunks is invalid. */
    o = options_whole();
    pool.info.policy = NULL;
    pool.task_chunks_per_worker = 0;
    plan_fails("zero chunks", f, &o, &pool.info, "invalid XIR target");
    plan_thread_pool_init(&pool, 8, 0);
    plan_fails("zero workers", f, &o, &pool.info, "invalid XIR target");
    tir_module_destroy(m);
}

/* ---- local lanes (case 12, planning part) ---- */

static const char row_text[] =
    "kernel @xr<R=17, N=65>(%X: const view<f32>[X.0=R, X.1=N], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    %s = reduce.add %x over (n)\n"
    "    %y = add %x, %s\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %y\n"
    "  }\n"
    "}\n";


static void test_local_lanes(void) {
    static const uint32_t lanes[] = {2, 4, 8, 16};
    for (size_t li = 0; li < 4; li++) {
        uint32_t L = lanes[li];
        const int64_t widths[] = {L, L + 1, 65, 4096};
        for (size_t wi = 0; wi < 4; wi++) {
            tir_define d = {"N", widths[wi]};
            tir_module *m = parse_kernel(row_text, &d, 1);
            if (!m) continue;
            const tir_func *f = tir_module_func(m, 0);
            plan_thread_pool pool;
            plan_thread_pool_init(&pool, L, 8);
            CHECK(tilec_compile_options_default().local_lanes == 0); /* the default searches both mappings */
            tilec_compile_options o = options_whole();
            plan_result r;
            /* One program per lane. */
            if (plan_ok(f, &o, &pool.info, &r)) {
                CHECK(r.candidate_count == 7 && r.local_widths == 1 && plan_selected(&r)->candidate.local_lanes == 1);
                CHECK(plan_selected(&r)->candidate.dispatch_size == 17);
            }
            plan_result_free(&r);
            /* Search: {1, W} enumerated and both realized; the prior
             * prefers contiguous rows (W) over row-strided gathers. */
            o.local_lanes = 0;
            if (plan_ok(f, &o, &pool.info, &r)) {
                CHECK(r.candidate_count == 14 && r.candidates.len == 14 && r.rejected.len == 0);
                for (size_t i = 0; i < r.candidates.len; i++) {
                    const plan_candidate *c = &r.candidates.data[i].candidate;
                    CHECK(c->dispatch_size == 17 * c->local_lanes);
                    if (c->local_lanes == L) CHECK(r.candidates.data[i].work.gathered_accesses == 0);
                }
                CHECK(plan_selected(&r)->candidate.local_lanes == L);
            }
            plan_result_free(&r);
            o.max_candidates = 11;
            plan_fails("local 0, 11 candidates", f, &o, &pool.info, "candidate budget");
            o = options_whole();
            o.local_lanes = 1;
            if (plan_ok(f, &o, &pool.info, &r)) CHECK(plan_selected(&r)->candidate.local_lanes == 1);
            plan_result_free(&r);
            o.local_lanes = L;
            if (plan_ok(f, &o, &pool.info, &r)) {
                CHECK(r.candidate_count == 7 && r.local_widths == 1);
                CHECK(plan_selected(&r)->candidate.local_lanes == L && plan_selected(&r)->candidate.dispatch_size == 17 * L);
            }
            plan_result_free(&r);
            o.local_lanes = 3;
            plan_fails("local 3", f, &o, &pool.info, "local_lanes 3");
            tir_module_destroy(m);
        }
    }
    /* A running sum along the row walks D in order: a forced W fails with
     * the reason, the search rejects its W candidates with it and keeps one
     * program per lane. */
    tir_module *g = parse_test_kernel(ctx, "row_prefix");
    if (!g) return;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    tilec_compile_options o = options_whole();
    o.local_lanes = 8;
    plan_fails("ordered row forced local", tir_module_func(g, 0), &o, &pool.info, "walks the distributed axis 'n'");
    o.local_lanes = 0;
    plan_result r;
    if (plan_ok(tir_module_func(g, 0), &o, &pool.info, &r)) {
        CHECK(r.rejected.len > 0 && plan_selected(&r)->candidate.local_lanes == 1);
        for (size_t i = 0; i < r.rejected.len; i++) {
            CHECK(r.rejected.data[i].stage == PLAN_REJECT_LOCAL && r.rejected.data[i].candidate.local_lanes == 8);
            CHECK_STR_CONTAINS(r.rejected.data[i].reason, "local-axis distribution");
            CHECK_STR_CONTAINS(r.rejected.data[i].reason, "ordered loop or reduction");
        }
    }
    plan_result_free(&r);
    tir_module_destroy(g);
}

/* ---- block widths (case 18) ---- */

static void test_block_widths(void) {
    tir_module *m = parse_example(ctx, "gemm", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    static const uint32_t bad[] = {0, 1, 33, 2048};
    for (size_t i = 0; i < 4; i++) {
        tilec_compile_options o = options_whole();
        o.block_size = bad[i];
        if (bad[i] == 0) { /* 0 means: search the proposals */
            plan_result r;
            if (plan_ok(f, &o, &pool.info, &r)) CHECK(r.block_widths == 7); /* W, 32..1024 */
            plan_result_free(&r);
        } else {
            plan_fails("pinned block", f, &o, &pool.info, "block width");
        }
    }
    mock_target t;
    mock_init(&t, 8, 8);
    t.proposals = bad;
    t.proposal_count = 4;
    plan_fails("no legal proposals", f, NULL, &t.info, "no legal block widths");
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_contiguous_axis_innermost();
    test_deterministic_ties();
    test_reuse_ties();
    test_budget_saturates();
    test_task_grains();
    test_local_lanes();
    test_block_widths();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
