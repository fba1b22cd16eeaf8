/* if regions natively (docs/tir.md "Conditional regions"): every kernel of
 * tests/kernels/conditional.tir — if/else with stores and a carry, idle
 * programs skipping loads and stores that would fault, a reduction inside an
 * if, an if inside a loop, a tile carry — agrees with the reference
 * interpreter at W ∈ {1, 4, 8, 16} on 1 and 2 workers, with the planner's
 * mapping and with one program per lane (a condition that differs between
 * the lanes: a predicated branch; at W = 1 the lane's own branch).  Refused
 * by name: one program per lane (W > 1) for an if whose body has a loop, as
 * its condition may differ between the lanes (the planner rejects every
 * such candidate, PLAN-S01 "varying-branch"; by default it picks
 * packet-local lanes, where the condition is the program's).  Tile carries
 * in both representations: SSA (PHIs per element) and buffered arrays. */
#include "facade_fixture.h"

static tilec_runtime *rt[2];

/* Compiling f at width w with `lanes` local lanes fails with `code`. */
static void expect_refusal(const tir_func *f, uint32_t w, uint32_t lanes, const char *code) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = rt[0];
    o.local_lanes = lanes;
    tilec_kernel *k = NULL;
    CHECK_MSG(f && tilec_compile(ctx, f, &o, &k) != TILEC_OK && has_diag(code, ""),
              "@%s W=%u lanes=%u: expected %s, got %s", f ? tir_func_name(f) : "?", w, lanes, code,
              last_diag_code(ctx));
    tilec_kernel_destroy(k);
    tilec_diag_clear(ctx);
}

static void test_native(const tir_module *m) {
    static const char *const names[] = {"cond_rows", "idle", "guarded_sum", "odd_sum", "tile_carry"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const tir_func *f = kernel_named(m, names[i]);
        for (uint32_t w = 1; f && w <= 16; w *= 2)
            for (uint32_t t = 1; t <= 2; t++)
                for (uint32_t lanes = 0; lanes <= 1; lanes++) {
                    if (!strcmp(names[i], "guarded_sum") && lanes == 1 && w > 1) {
                        expect_refusal(f, w, lanes, "PLAN-S01"); /* every candidate: varying-branch */
                        continue;
                    }
                    tilec_kernel *k = compile_at_lanes(f, tilec_compile_options_default(), w, rt[t - 1], lanes);
                    char label[96];
                    snprintf(label, sizeof label, "@%s W=%u threads=%u lanes=%u", names[i], w, t, lanes);
                    run_config c = run_config_default(w, true);
                    if (k) run_facade(label, f, k, &c);
                    tilec_kernel_destroy(k);
                }
    }
}

/* A carry of 300 elements (a buffered array) and of 4 (SSA PHIs). */
static void test_carry_forms(void) {
    static const char text[] =
        "kernel @big<R=6, W=300>(%X: const view<f32>[x.0=R, x.1=W], %Y: view<f32>[y.0=R, y.1=W]) {\n"
        "  parallel (%r: r=R) {\n"
        "    %z = const index 0\n"
        "    %t = load %X[%r, %z] tile [o=1, w=W]\n"
        "    %two = const index 2\n"
        "    %m = mod %r, %two\n"
        "    %even = eq %m, %z\n"
        "    %u = if %even iter(%c = %t) -> (tile<f32>[o=1, w=W]) {\n"
        "      %h = const f32 0.5\n"
        "      %s = mul %c, %h\n"
        "      %e = reduce.max %c over (w)\n"
        "      %d = sub %s, %e\n"
        "      yield %d\n"
        "    }\n"
        "    store %Y[%r, %z] tile [o=1, w=W], %u\n"
        "  }\n"
        "}\n";
    for (int64_t width = 300; width >= 4; width -= 296) {
        tir_define d = {"W", width};
        tir_module *m = parse_kernel(text, &d, 1);
        for (uint32_t w = 1; m && w <= 16; w *= 4)
            for (uint32_t t = 1; t <= 2; t++) {
                tilec_kernel *k = compile_at_lanes(tir_module_func(m, 0), tilec_compile_options_default(), w, rt[t - 1], 0);
                char label[64];
                snprintf(label, sizeof label, "carry of %lld W=%u threads=%u", (long long)width, w, t);
                run_config c = run_config_default(w, true);
                if (k) run_facade(label, tir_module_func(m, 0), k, &c);
                tilec_kernel_destroy(k);
            }
        tir_module_destroy(m);
    }
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    tir_module *m = parse_test_kernel(ctx, "conditional");
    if (m && rt[1]) {
        test_native(m);
        test_carry_forms();
    }
    tir_module_destroy(m);
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
