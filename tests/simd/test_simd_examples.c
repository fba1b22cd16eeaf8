/* Every example (default and ragged shapes, aliased bindings) planned and
 * lowered with pipeline_plan_and_lower at W ∈ {1, 2, 4, 8, 16}, compiled by the SIMD
 * backend at that W and run natively (all blocks on the calling thread)
 * against the FP64 reference interpreter, with sentinel-padded offset
 * buffers and NaN-initialized outputs (tests/lower/lower_fixture.h); GEMM on
 * dyadic inputs bitwise; RMSNorm and masked softmax at 64 × 16384 (private
 * arrays in the workspace).  Also: an example's row-contiguous loads become
 * vector loads, never gathers. */
#include "driver/pipeline.h"
#include "lower/lower_fixture.h"
#include "plan/solve.h"
#include "simd/simd.h"

/* Plans, lowers and compiles example case `e` at every width; compares each. */
static void check_example(const char *label, const example_case *e, run_config c) {
    tir_module *m = parse_example(ctx, e->name, e->defines, e->n_defines);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    for (uint32_t w = 1; w <= 16; w *= 2) {
        plan_thread_pool pool;
        plan_thread_pool_init(&pool, w, 8);
        plan_result p;
        lower_result lr;
        tilec_compile_options po = tilec_compile_options_default();
        po.pack = PLAN_PACK_OFF; /* panels need their copy kernels: tests/tilec/test_pack.c runs them */
        tilec_status st = pipeline_plan_and_lower(ctx, f, &po, &pool.info, &p, &lr);
        CHECK_MSG(st == TILEC_OK, "%s W%u: pipeline_plan_and_lower failed", label, w);
        if (!st) {
            tilec_compile_options o_record = tilec_compile_options_default();
            simd_facts o = {0};
            o.width = w;
            simd_kernel *k = NULL;
            st = simd_compile(ctx, lr.kernel, &o_record, &o, &k);
            CHECK_MSG(st == TILEC_OK, "%s W%u: simd_compile failed", label, w);
            if (!st) {
                c.width = w;
                run_simd_kernel(label, f, &lr, k, &c);
                simd_kernel_destroy(k);
            }
            lower_result_free(&lr);
        }
        flush_diags_in(ctx);
        plan_result_free(&p);
    }
    tir_module_destroy(m);
}

/* An example case, and whether its inputs are exact (bitwise comparison). */
typedef struct {
    example_case e;
    bool exact;
} simd_case;

static void test_examples(void) {
    static const simd_case cases[] = {
        {{"gemm", {{0}}, 0, -1, -1}, false},
        {{"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 6, -1, -1}, true},
        {{"gemm", {{"M", 7}, {"N", 11}, {"K", 129}, {"BM", 3}, {"BN", 5}, {"BK", 65}}, 6, -1, -1}, true},
        {{"gemm_bt", {{0}}, 0, -1, -1}, false},
        {{"gemm_bt", {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, -1, -1}, true},
        {{"bmm", {{"BATCH", 2}, {"M", 9}, {"N", 37}, {"K", 5}}, 4, -1, -1}, true},
        {{"gemm_bf16", {{0}}, 0, -1, -1}, false},
        {{"gemm_bf16", {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, -1, -1}, true},
        {{"softmax", {{0}}, 0, -1, -1}, false},
        {{"softmax", {{"R", 6}, {"W", 7}}, 2, -1, -1}, false},
        {{"softmax", {{0}}, 0, 1, 0}, false},
        {{"masked_softmax", {{0}}, 0, -1, -1}, false},
        {{"masked_softmax", {{"R", 9}, {"W", 7}}, 2, 1, 0}, false},
        {{"layernorm", {{0}}, 0, 3, 0}, false},
        {{"layernorm", {{"R", 6}, {"W", 7}}, 2, -1, -1}, false},
        {{"rmsnorm", {{0}}, 0, -1, -1}, false},
        {{"rmsnorm", {{"R", 6}, {"W", 130}}, 2, 2, 0}, false},
        {{"rmsnorm", {{"R", 64}, {"W", 16384}}, 2, -1, -1}, false},
        {{"masked_softmax", {{"R", 64}, {"W", 16384}}, 2, -1, -1}, false},
        {{"rope", {{0}}, 0, 3, 0}, false},
        {{"rope", {{"R", 5}, {"W", 6}}, 2, -1, -1}, false},
        {{"rope_interleaved", {{0}}, 0, 3, 0}, false},
        {{"rope_interleaved", {{"R", 5}, {"W", 38}}, 2, -1, -1}, false},
        {{"transpose", {{0}}, 0, -1, -1}, true},
        {{"transpose", {{"M", 3}, {"N", 65}, {"B", 8}}, 3, -1, -1}, true},
        {{"gelu", {{0}}, 0, 2, 1}, false},
        {{"gelu", {{"R", 6}, {"W", 7}}, 2, -1, -1}, false},
        {{"swiglu", {{0}}, 0, -1, -1}, false},
        {{"swiglu", {{"R", 6}, {"W", 200}}, 2, 2, 0}, false},
        {{"attention", {{0}}, 0, -1, -1}, false},
        {{"attention", {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"Lq", 3}, {"Lk", 35}, {"D", 7}, {"Dv", 3}, {"bk", 33}}, 8, -1, -1}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const example_case *e = &cases[i].e;
        run_config c = example_config(e, 1, cases[i].exact);
        c.tolerance = 5e-5;
        char label[64];
        snprintf(label, sizeof label, "%s case %zu", e->name, i);
        check_example(label, e, c);
    }
}

/* A row-contiguous elementwise kernel: its loads and store are vector
 * accesses at every W > 1 (counted by the backend), never gathers. */
static const char scale_text[] =
    "kernel @scale<R=8, N=64>(%X: const view<f32>[X.0=R, X.1=N], %S: const view<f32>[S.0=1], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R, %c: c=N) {\n"
    "    %z = const index 0\n"
    "    %x = load %X[%r, %c]\n"
    "    %s = load %S[%z]\n"
    "    %y = mul %x, %s\n"
    "    store %Y[%r, %c], %y\n"
    "  }\n"
    "}\n";

static void test_contiguous_example(void) {
    tir_module *m = parse_kernel(scale_text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    for (uint32_t w = 2; w <= 16; w *= 2) {
        lowering lo = lowering_default();
        lo.choice.packet_width = w;
        lower_result lr;
        if (!lower_ok(f, &lo, &lr)) continue;
        tilec_compile_options o_record = tilec_compile_options_default();
        simd_facts o = {0};
        o.width = w;
        simd_kernel *k = NULL;
        CHECK(simd_compile(ctx, lr.kernel, &o_record, &o, &k) == TILEC_OK);
        if (k) {
            const simd_counters *sc = simd_kernel_counters(k);
            CHECK_MSG(sc->gathers == 0 && sc->scatters == 0, "W=%u: %llu gathers, %llu scatters", w,
                      (unsigned long long)sc->gathers, (unsigned long long)sc->scatters);
            CHECK_MSG(sc->contiguous_loads == 1 && sc->contiguous_stores == 1, "W=%u: %s", w, simd_kernel_realization(k));
            CHECK_MSG(sc->broadcast_loads == 1, "W=%u: the scale is not a broadcast: %s", w, simd_kernel_realization(k));
            run_config c = run_config_default(w, true);
            run_simd_kernel("scale", f, &lr, k, &c);
            simd_kernel_destroy(k);
        }
        lower_result_free(&lr);
    }
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_contiguous_example();
    test_examples();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
