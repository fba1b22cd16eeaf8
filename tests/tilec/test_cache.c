/* The in-memory kernel cache (docs/simd.md "Kernel cache"): compiling the
 * same kernel again in one context is a hit (no LLVM: optimize and codegen
 * 0) whose kernel computes bitwise the same as the first, and keeps working
 * after the first is destroyed; another width or store policy, another row
 * length or another context misses (more rows hit:
 * the row count is the dispatch size, not in the code); kernels capturing
 * their assembly and TILEC_CACHE=0 bypass it; the 65th distinct kernel
 * evicts the first. */
#include "examples_util.h"
#include "harness.h"
#include "tilec/tilec.h"

#include <stdlib.h>
#include <string.h>

enum { R = 9, W = 70 };

static float x[R * W];

static const char *outcome(const tilec_kernel *k) {
    const char *c = k ? strstr(tilec_kernel_realization(k), "; cache=") : NULL;
    return !c ? "?" : !strncmp(c + 8, "hit;", 4) ? "hit" : !strncmp(c + 8, "miss;", 5) ? "miss" : "off";
}

static tilec_kernel *compile(tilec_context *ctx, const tir_func *f, uint32_t width, tilec_fuse fuse,
                             tilec_stores stores, bool capture_asm) {
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    o.width = width;
    o.fuse = fuse;
    o.stores = stores;
    o.capture_asm = capture_asm;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK && k);
    return k;
}

static void run(tilec_context *ctx, tilec_kernel *k, float *y) {
    memset(y, 0xff, sizeof(float) * R * W);
    tilec_buffer args[2] = {{x, sizeof x, TIR_F32}, {y, sizeof(float) * R * W, TIR_F32}};
    CHECK(k && tilec_dispatch(ctx, k, 2, args) == TILEC_OK);
}

static tir_module *softmax_shape(tilec_context *ctx, int64_t rows, int64_t cols) {
    tir_define d[] = {{"R", rows}, {"W", cols}};
    return parse_example(ctx, "softmax", d, 2);
}

static tir_module *softmax(tilec_context *ctx, int64_t rows) { return softmax_shape(ctx, rows, W); }

int main(void) {
    setenv("TILEC_CACHE", "memory", 1);
    for (int i = 0; i < R * W; i++) x[i] = (float)((i * 7919) % 201 - 100) / 37.0f;
    tilec_context *ctx, *other;
    if (tilec_context_create(NULL, &ctx) || tilec_context_create(NULL, &other)) return 1;
    tir_module *m = softmax(ctx, R), *m2 = softmax(other, R);
    if (!m || !m2) TEST_MAIN_END();
    const tir_func *f = tir_module_func(m, 0);
    static float y1[R * W], y2[R * W];

    tilec_kernel *a = compile(ctx, f, 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false);
    tilec_kernel *b = compile(ctx, f, 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false);
    CHECK_MSG(!strcmp(outcome(a), "miss") && !strcmp(outcome(b), "hit"), "%s then %s", outcome(a), outcome(b));
    tilec_compile_times ta = tilec_kernel_compile_times(a), tb = tilec_kernel_compile_times(b);
    CHECK(ta.optimize > 0 && ta.codegen > 0 && tb.optimize == 0 && tb.codegen == 0 && tb.jit == 0);
    run(ctx, a, y1);
    run(ctx, b, y2);
    CHECK(!memcmp(y1, y2, sizeof y1));
    tilec_kernel_destroy(a); /* the shared code stays for b (and the cache) */
    run(ctx, b, y2);
    CHECK(!memcmp(y1, y2, sizeof y1));
    tilec_kernel_destroy(b);

    /* what changes the code misses */
    static const struct {
        uint32_t width;
        tilec_fuse fuse;
        tilec_stores stores;
        bool capture;
        const char *want;
    } cases[] = {
        {8, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false, "miss"},       {8, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false, "hit"},
        {16, TILEC_FUSE_AUTO, TILEC_STORES_STREAMING, false, "miss"},
        {16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, true, "off"},        {16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false, "hit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tilec_kernel *k = compile(ctx, f, cases[i].width, cases[i].fuse, cases[i].stores, cases[i].capture);
        CHECK_MSG(!strcmp(outcome(k), cases[i].want), "case %zu: %s, want %s", i, outcome(k), cases[i].want);
        run(ctx, k, y2);
        CHECK_MSG(!memcmp(y1, y2, sizeof y1) || cases[i].width != 16, "case %zu: results differ", i);
        tilec_kernel_destroy(k);
    }
    /* more rows: the same code (the row count is the dispatch size, not in
     * the code), so a hit; more columns: another kernel */
    tir_module *m3 = softmax(ctx, R + 1), *m4 = softmax_shape(ctx, R, W + 1);
    tilec_kernel *k = m3 ? compile(ctx, tir_module_func(m3, 0), 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false) : NULL;
    CHECK_MSG(!strcmp(outcome(k), "hit"), "more rows: %s", outcome(k));
    tilec_kernel_destroy(k);
    k = m4 ? compile(ctx, tir_module_func(m4, 0), 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false) : NULL;
    CHECK_MSG(!strcmp(outcome(k), "miss"), "more columns: %s", outcome(k));
    tilec_kernel_destroy(k);
    tir_module_destroy(m3);
    tir_module_destroy(m4);
    k = compile(other, tir_module_func(m2, 0), 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false);
    CHECK_MSG(!strcmp(outcome(k), "miss"), "another context: %s", outcome(k));
    tilec_kernel_destroy(k);

    /* TILEC_CACHE=0; then back to memory only (this test never uses the
     * disk cache: tests/cli/cache.sh does) */
    setenv("TILEC_CACHE", "0", 1);
    k = compile(ctx, f, 16, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false);
    CHECK_MSG(!strcmp(outcome(k), "off"), "TILEC_CACHE=0: %s", outcome(k));
    tilec_kernel_destroy(k);
    setenv("TILEC_CACHE", "memory", 1);

    /* eviction: 65 distinct kernels (2..66 columns at W = 1, cheap to
     * compile) push the first one out */
    for (int64_t cols = 2; cols <= 66; cols++) {
        tir_module *mc = softmax_shape(ctx, 2, cols);
        k = mc ? compile(ctx, tir_module_func(mc, 0), 1, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false) : NULL;
        CHECK_MSG(!strcmp(outcome(k), "miss"), "%lld columns: %s", (long long)cols, outcome(k));
        tilec_kernel_destroy(k);
        tir_module_destroy(mc);
    }
    tir_module *m1 = softmax_shape(ctx, 2, 2);
    k = m1 ? compile(ctx, tir_module_func(m1, 0), 1, TILEC_FUSE_AUTO, TILEC_STORES_AUTO, false) : NULL;
    CHECK_MSG(!strcmp(outcome(k), "miss"), "the oldest should be evicted: %s", outcome(k));
    tilec_kernel_destroy(k);
    tir_module_destroy(m1);

    tir_module_destroy(m);
    tir_module_destroy(m2);
    tilec_context_destroy(ctx); /* frees what the cache holds */
    tilec_context_destroy(other);
    TEST_MAIN_END();
}
