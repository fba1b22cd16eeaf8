/* Multi-phase (non-attention) kernels realized as a team: one root program
 * whose phases have different shapes — a row phase over k (softmax or
 * layernorm of [m, k]) then a matmul phase [m, k]·[k, n] → [m, n] — spread
 * over a SIMD packet (local_lanes = W, docs/lowering.md "Packet-local
 * realization") or run one program per lane (local_lanes = 1).
 *
 * - tests/kernels/softmax_linear.tir and layernorm_linear.tir at W ∈ {4, 8,
 *   16}, on 1 and 2 workers, with local_lanes 1 and W (and the planner's own
 *   choice, local_lanes 0) at a small ragged shape (K = 13, N = 9: no
 *   multiple of any W, N < 16; M no multiple of BM), and with local_lanes W
 *   at the default shape (K = 24, N = 20) and a wider one (K = 37, N = 35:
 *   3..9 slots per lane with a partial tail slot); every run against the
 *   reference interpreter (sentinel pads, within 5e-5: exp, div and sqrt
 *   make a bitwise comparison impossible against the FP64 reference).
 * - The realization: local_lanes = W runs one program per packet
 *   (`plan=.../localW/...`, dispatch = programs × W, the lowering's
 *   local_lanes=W; local_axis=n; local_extent=N; local_slots=ceil(N/W)) with
 *   every row access contiguous (no gathers or scatters): n, the stored
 *   row's axis, is distributed, so the Wt rows, the accumulator and Y are
 *   split over the lanes while the row phase over k is replicated (every
 *   lane computes the same softmax/layernorm row and folds all of k for its
 *   own output slots).  local_lanes = 1: no `/local`, dispatch = programs.
 * - softmax_linear_probs.tir (the same kernel storing the softmax rows P
 *   first): k is distributed instead, so the softmax phase is split over the
 *   lanes and the matmul contracts over the distributed axis (lanes'
 *   partials meet in butterflies; Y replicated, stored by lane 0).
 * - The choice of D falls back: softmax_linear with N = 1 and BM > 1 stores
 *   [m=BM, n=1], whose axis m the softmax refuses (its reduce.max/reduce.add
 *   maps over m hold a reduce over k: LOWER-L06), so D is the loads' row
 *   axis k (realize/local.c pick_dims); with BM = 1 too. */
#include "facade_fixture.h"
#include "realize/local.h"
#include "tir/ir.h"

static tilec_runtime *runtimes[2];

static tilec_kernel *compile_team(const tir_func *f, uint32_t w, uint32_t threads, uint32_t lanes) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = runtimes[threads - 1];
    o.local_lanes = lanes;
    tilec_kernel *k = NULL;
    CHECK_MSG(tilec_compile(ctx, f, &o, &k) == TILEC_OK, "@%s: compile failed at W=%u threads=%u lanes=%u",
              tir_func_name(f), w, threads, lanes);
    flush_diags_in(ctx);
    return k;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

typedef struct {
    const char *kernel;
    tir_define defines[4];
    size_t n_defines;
    uint64_t programs; /* root parallel volume */
    const char *axis;  /* the distributed axis at local_lanes = W */
    uint64_t extent;   /* its extent */
    bool contiguous;   /* packet-local: no gathers or scatters */
} team_case;

/* The realization of a compiled case: one program per packet at lanes = W,
 * one per lane at lanes = 1. */
static void check_realization(const char *label, const team_case *c, const tilec_kernel *k, uint32_t w,
                              uint32_t lanes) {
    const char *r = tilec_kernel_realization(k), *pr = tilec_kernel_plan_realization(k);
    char item[128];
    snprintf(item, sizeof item, "/local%u/", w);
    if (lanes == w) {
        CHECK_MSG(strstr(r, item) != NULL, "%s: not one program per packet: %s", label, r);
        snprintf(item, sizeof item, "dispatch=%llu;", (unsigned long long)(c->programs * w));
        CHECK_MSG(has_item(r, item), "%s: expected %s in %s", label, item, r);
        snprintf(item, sizeof item, "local_lanes=%u;", w);
        CHECK_MSG(strstr(pr, item) != NULL, "%s: %s", label, pr);
        snprintf(item, sizeof item, "local_axis=%s; local_extent=%llu; local_slots=%llu;", c->axis,
                 (unsigned long long)c->extent, (unsigned long long)ceil_div(c->extent, w));
        CHECK_MSG(strstr(pr, item) != NULL, "%s: expected '%s' in %s", label, item, pr);
        if (c->contiguous)
            CHECK_MSG(has_item(r, "gathers=0;") && has_item(r, "scatters=0;"), "%s: row accesses gathered: %s",
                      label, r);
    } else {
        CHECK_MSG(strstr(r, "/local") == NULL, "%s: packet-local at local_lanes=1: %s", label, r);
        snprintf(item, sizeof item, "dispatch=%llu;", (unsigned long long)c->programs);
        CHECK_MSG(has_item(r, item), "%s: expected %s in %s", label, item, r);
        CHECK_MSG(strstr(pr, "local_lanes=1;") != NULL, "%s: %s", label, pr);
    }
}

/* Every W × threads 1, 2 × local_lanes W (and, when `full`, local_lanes 1
 * and the planner's own choice at W = 16 on 2 workers). */
static void run_case(const team_case *c, bool full) {
    tir_module *m = parse_test_kernel_with(ctx, c->kernel, c->defines, c->n_defines);
    CHECK_MSG(m != NULL, "%s parses", c->kernel);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    for (uint32_t w = 4; w <= 16; w *= 2)
        for (uint32_t t = 1; t <= 2; t++)
            for (uint32_t lanes = full ? 1 : w; lanes <= w; lanes *= w) {
                char label[160];
                int n = snprintf(label, sizeof label, "@%s", c->kernel);
                for (size_t d = 0; d < c->n_defines; d++)
                    n += snprintf(label + n, sizeof label - (size_t)n, " %s=%lld", c->defines[d].name,
                                  (long long)c->defines[d].value);
                snprintf(label + n, sizeof label - (size_t)n, " W=%u threads=%u lanes=%u", w, t, lanes);
                tilec_kernel *k = compile_team(f, w, t, lanes);
                if (!k) continue;
                CHECK(tilec_kernel_width(k) == w && tilec_kernel_workers(k) == t);
                check_realization(label, c, k, w, lanes);
                run_config cfg = run_config_default(w, false);
                cfg.tolerance = 5e-5;
                run_facade(label, f, k, &cfg);
                tilec_kernel_destroy(k);
            }
    /* The planner's own choice (local_lanes = 0) at W = 16 on 2 workers is
     * correct too, whichever realization it picks. */
    tilec_kernel *k = full ? compile_team(f, 16, 2, 0) : NULL;
    if (k) {
        char label[96];
        snprintf(label, sizeof label, "@%s W=16 threads=2 lanes=auto", c->kernel);
        run_config cfg = run_config_default(16, false);
        cfg.tolerance = 5e-5;
        run_facade(label, f, k, &cfg);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

static void test_teams(void) {
    /* Ragged everywhere: K and N are no multiple of any W, N < W at 16, M no
     * multiple of BM.  One program per lane unrolls whole rows, so its
     * compilation grows fast with K and N (1.2 s at K=37, N=35, against
     * 0.1-0.2 s packet-local): the wider shapes run packet-local only. */
    static const struct {
        team_case c;
        bool full;
    } cases[] = {
        /* softmax over k then · Wt: n distributed, the softmax phase replicated. */
        {{"softmax_linear", {{"M", 5}, {"K", 13}, {"N", 9}, {"BM", 2}}, 4, 3, "n", 9, true}, true},
        {{"softmax_linear", {{"M", 5}, {"K", 24}, {"N", 20}, {"BM", 2}}, 4, 3, "n", 20, true}, false},
        {{"softmax_linear", {{"M", 3}, {"K", 37}, {"N", 35}, {"BM", 1}}, 4, 3, "n", 35, true}, false},
        /* layernorm over k then · Wt + bias. */
        {{"layernorm_linear", {{"M", 4}, {"K", 13}, {"N", 9}}, 3, 4, "n", 9, true}, true},
        {{"layernorm_linear", {{"M", 5}, {"K", 24}, {"N", 20}}, 3, 5, "n", 20, true}, false},
        {{"layernorm_linear", {{"M", 4}, {"K", 37}, {"N", 35}}, 3, 4, "n", 35, true}, false},
        /* Storing the softmax rows first distributes k: the softmax phase is
         * split over the lanes, the matmul contracts over D (Wt is read down
         * its columns: gathers). */
        {{"softmax_linear_probs", {{"M", 7}, {"K", 13}, {"N", 9}, {"BM", 3}}, 4, 3, "k", 13, false}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i].c, cases[i].full);
}

/* softmax_linear with N = 1: the store [m=BM, n=1] offers D = m when
 * BM > 1, which the softmax's reduce.max/reduce.add refuse (a map over m
 * around a reduce over k: a region inside a region over D, LOWER-L06); the
 * next choice, the loads' row axis k, admits (realize/local.c pick_dims): a
 * split softmax and a contraction over D. */
static void test_fallback_axis(void) {
    team_case bm2 = {"softmax_linear", {{"M", 5}, {"K", 24}, {"N", 1}, {"BM", 2}}, 4, 3, "k", 24, false};
    run_case(&bm2, false);
    /* BM = 1: the store has no nonunit axis, D is the first one (k) and the
     * kernel is admitted: a split softmax and a contraction over D. */
    team_case one = {"softmax_linear", {{"M", 5}, {"K", 24}, {"N", 1}, {"BM", 1}}, 4, 5, "k", 24, false};
    run_case(&one, false);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    if (runtimes[0] && runtimes[1]) {
        test_teams();
        test_fallback_axis();
    }
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
