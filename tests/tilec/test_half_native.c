/* f16/bf16 natively (docs/tir.md "Half-precision types"): casts from f32,
 * f64 and i32 to f16 and bf16, their stores and loads, and the widening
 * back to f32 and f64, bit for bit the reference interpreter's, at
 * W ∈ {1, 4, 8, 16} on 1 and 2 workers — over a sweep of f32 bit patterns
 * (tests/kernels/half_conv.tir; every sign, exponent and rounding case), doubles at the f16/bf16 ties
 * and overflow thresholds, subnormals, ±0, ±inf and NaNs, and integers
 * beyond 2^24.  (Without F16C the backend narrows by integer steps:
 * tests/cli/aot.sh runs an x86-64-v2 object.)  A half-precision rmsnorm
 * (load bf16, compute in f32, store bf16) and GEMMs on bf16 and f16 inputs
 * with f32 accumulation agree with the reference too. */
#include "examples_util.h"
#include "facade_fixture.h"

#include "base/half.h"

enum { N = 4099 };

static float x[N];
static double d[N];
static int32_t n[N];

static void fill(void) {
    static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 65504.0, 65519.99, 65520.0, -65520.0,
                                      0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-14, 0x1p-14 - 0x1p-24, 0x1p-133, 0x1p-134,
                                      3.4e38, 3.3895e38, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40,
                                      1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, 1e-300, -1e300};
    size_t ns = sizeof specials / sizeof specials[0];
    for (int i = 0; i < N; i++) {
        uint32_t bits = (uint32_t)((uint64_t)i * 1048573u * 1021u);
        memcpy(&x[i], &bits, 4);
        d[i] = i < (int)ns ? specials[i] : ldexp(1.0 + (double)((i * 2654435761u) % 4096) / 4096.0, i % 300 - 150) *
                                               (i % 2 ? -1 : 1);
        n[i] = (int32_t)((uint32_t)i * 2654435761u) >> (i % 24);
        if (i < (int)ns) x[i] = (float)specials[i];
    }
}

static void run_all(const tir_func *f, tilec_kernel *k, const char *label) {
    static uint16_t h[2][N * 3], b[2][N * 3];
    static float y[2][N * 2];
    static double z[2][N * 2];
    for (int r = 0; r < 2; r++) {
        memset(h[r], 0x5a, sizeof h[r]), memset(b[r], 0x5a, sizeof b[r]);
        memset(y[r], 0x5a, sizeof y[r]), memset(z[r], 0x5a, sizeof z[r]);
    }
    tir_buffer ref[7] = {{x, sizeof x}, {d, sizeof d}, {n, sizeof n}, {h[0], sizeof h[0]}, {b[0], sizeof b[0]},
                         {y[0], sizeof y[0]}, {z[0], sizeof z[0]}};
    CHECK(tir_interpret(ctx, f, 7, ref) == TILEC_OK);
    tilec_buffer nat[7] = {{x, sizeof x, TIR_F32},      {d, sizeof d, TIR_F64},       {n, sizeof n, TIR_I32},
                           {h[1], sizeof h[1], TIR_F16}, {b[1], sizeof b[1], TIR_BF16}, {y[1], sizeof y[1], TIR_F32},
                           {z[1], sizeof z[1], TIR_F64}};
    CHECK(tilec_dispatch(ctx, k, 7, nat) == TILEC_OK);
    const void *p[4][2] = {{h[0], h[1]}, {b[0], b[1]}, {y[0], y[1]}, {z[0], z[1]}};
    const size_t bytes[4] = {sizeof h[0], sizeof b[0], sizeof y[0], sizeof z[0]};
    const char *names[4] = {"%H", "%B", "%Y", "%Z"};
    for (int a = 0; a < 4; a++)
        if (memcmp(p[a][0], p[a][1], bytes[a])) {
            size_t at = 0;
            while (((const unsigned char *)p[a][0])[at] == ((const unsigned char *)p[a][1])[at]) at++;
            CHECK_MSG(false, "%s: %s differs from the reference at byte %zu", label, names[a], at);
        }
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    fill();
    tir_define def = {"N", N};
    tir_module *m = parse_test_kernel_with(ctx, "half_conv", &def, 1);
    tilec_runtime *rt[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    if (m && rt[1]) {
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t w = 1; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++) {
                tilec_kernel *k = compile_at_lanes(f, tilec_compile_options_default(), w, rt[t], 0);
                char label[64];
                snprintf(label, sizeof label, "W=%u threads=%u", w, t + 1);
                if (k) run_all(f, k, label);
                tilec_kernel_destroy(k);
            }
    }
    tir_module_destroy(m);
    /* a bf16 rmsnorm, as an LLM runs it */
    tir_module *r = parse_example(ctx, "rmsnorm_bf16", (tir_define[]){{"R", 5}, {"W", 1030}}, 2);
    if (r && rt[1])
        for (uint32_t w = 4; w <= 16; w *= 4) {
            tilec_kernel *k = compile_at_lanes(tir_module_func(r, 0), tilec_compile_options_default(), w, rt[1], 0);
            run_config c = run_config_default(w, false);
            if (k) run_facade("rmsnorm_bf16", tir_module_func(r, 0), k, &c);
            tilec_kernel_destroy(k);
        }
    tir_module_destroy(r);
    /* mma on bf16 and f16 inputs, accumulated in f32 (each product exact) */
    for (int half = 0; half < 2; half++) {
        tir_module *g = typed_gemm_module(ctx, half ? "f16" : "bf16", "f32", NULL, 0);
        for (uint32_t w = 1; g && w <= 16; w *= 4) {
            tilec_kernel *k = compile_at_lanes(tir_module_func(g, 0), tilec_compile_options_default(), w, rt[1], 0);
            run_config c = run_config_default(w, false);
            if (k) run_facade(half ? "gemm f16 inputs" : "gemm bf16 inputs", tir_module_func(g, 0), k, &c);
            tilec_kernel_destroy(k);
        }
        tir_module_destroy(g);
    }
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
