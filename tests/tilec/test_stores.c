/* Streaming stores (tilec_stores, docs/simd.md "Streaming stores") through
 * the facade, against the reference interpreter.
 *
 * - Row examples with a write-only output, forced to stream
 *   (TILEC_STORES_STREAMING), at W ∈ {1, 2, 4, 8, 16} on 1 and 2 workers,
 *   one program per lane and packet-local, at ragged bounded rows: the
 *   packet-local store of a 16-, 32- or 64-byte packet streams (counter
 *   streaming_stores), a narrower packet or a scattered store (one program
 *   per lane) does not.
 * - Each run three ways: the output 64-byte aligned (16-byte non-temporal
 *   stores; with 1030-element rows every other row starts 8 bytes off),
 *   misaligned by 4 bytes (plain stores; rows 8 bytes off stream in 8-byte
 *   pieces on an SSE4A host), and in place over the input (aligned): every
 *   element and every sentinel around the
 *   interiors equals the reference's, so no store was lost, torn or
 *   misplaced, and the fence made them visible to the dispatching thread.
 * - cached never streams; auto streams only when the arguments span at
 *   least 3/4 of the last-level cache, which a small shape does not. */
#include "facade_fixture.h"

typedef struct {
    const char *name;
    int64_t width; /* ragged: > 64 slots of 16 lanes */
} row_case;

static const row_case cases[] = {{"rmsnorm", 1030}, {"layernorm", 1100}, {"softmax", 1090}, {"rope", 2 * 1030}};

static tilec_kernel *compile(const tir_func *f, uint32_t w, tilec_runtime *rt, uint32_t lanes, tilec_stores stores) {
    tilec_compile_options o = tilec_compile_options_default();
    o.stores = stores;
    return compile_at_lanes(f, o, w, rt, lanes);
}

static void run_three_ways(const tir_func *f, tilec_kernel *k, const char *label, uint32_t w) {
    size_t out = tir_func_param_count(f) - 1;
    char l[160];
    run_config c = run_config_default(w, false);
    c.aligned = true;
    snprintf(l, sizeof l, "%s aligned", label);
    run_facade(l, f, k, &c);
    c.aligned = false;
    snprintf(l, sizeof l, "%s misaligned", label);
    run_facade(l, f, k, &c);
    c.aligned = true;
    c.alias[out] = 0;
    snprintf(l, sizeof l, "%s in place", label);
    run_facade(l, f, k, &c);
}

static void test_streaming(void) {
    tilec_runtime *rt[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_define d[2] = {{"R", 3}, {"W", cases[i].width}};
        tir_module *m = parse_example(ctx, cases[i].name, d, 2);
        if (!m || !rt[1]) continue;
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t w = 1; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++)
                for (uint32_t lanes = 1; lanes <= w; lanes = lanes == 1 && w > 1 ? w : w + 1) {
                    tilec_kernel *k = compile(f, w, rt[t], lanes, TILEC_STORES_STREAMING);
                    if (!k) continue;
                    char label[96];
                    snprintf(label, sizeof label, "@%s W=%u threads=%u lanes=%u", cases[i].name, w, t + 1, lanes);
                    bool streams = lanes == w && w >= 4;
                    long n = item_value(tilec_kernel_realization(k), "streaming_stores");
                    CHECK_MSG((n > 0) == streams, "%s: %s", label, tilec_kernel_realization(k));
                    run_three_ways(f, k, label, w);
                    tilec_kernel_destroy(k);
                }
        tir_module_destroy(m);
    }
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
}

static void test_policies(void) {
    tir_define d[2] = {{"R", 3}, {"W", 1030}};
    tir_module *m = parse_example(ctx, "rmsnorm", d, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *cached = compile(f, 8, NULL, 8, TILEC_STORES_CACHED), *autok = compile(f, 8, NULL, 8, TILEC_STORES_AUTO);
    if (cached) CHECK(item_value(tilec_kernel_realization(cached), "streaming_stores") == 0);
    if (autok) CHECK(item_value(tilec_kernel_realization(autok), "streaming_stores") == 0);
    tilec_kernel_destroy(cached);
    tilec_kernel_destroy(autok);
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_streaming();
    test_policies();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
