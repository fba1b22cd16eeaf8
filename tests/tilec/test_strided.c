/* Strided tiles natively (docs/tir.md "Strided tiles"): every kernel of
 * tests/kernels/strided.tir — a stride on the fast axis (loads and
 * stores), on both axes over ragged edges, on the slow axis only, a shared
 * strided table, origins below zero with a fill, and a GEMM over every
 * other column of B — agrees bit for bit with the reference interpreter at
 * W ∈ {1, 4, 8, 16} on 1 and 2 workers, with the packet spread over one
 * program's row (local lanes = W) and over programs (1 local lane), packing
 * on and off.  The realization counters say how each access was realized:
 * a stride of 2 across the lanes is pairs (two vector accesses and a
 * shuffle), another stride across them gathers, a stride on another axis
 * leaves the rows contiguous, a table every lane reads the same is one
 * broadcast load, and a packed strided operand is read contiguously. */
#include "facade_fixture.h"

static tilec_runtime *rt[2];

/* Compiles f at width w on `threads` workers (lanes: local lanes, 0 = the
 * planner's pick), compares with the reference and returns the kernel
 * (NULL after a failed CHECK). */
static tilec_kernel *run(const tir_func *f, uint32_t w, uint32_t threads, uint32_t lanes, tilec_pack pack) {
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = pack;
    tilec_kernel *k = compile_at_lanes(f, o, w, rt[threads - 1], lanes);
    char label[96];
    snprintf(label, sizeof label, "@%s W=%u threads=%u lanes=%u pack=%d", tir_func_name(f), w, threads, lanes, pack);
    run_config c = run_config_default(w, true);
    if (k) run_facade(label, f, k, &c);
    return k;
}

static void test_every_width(const tir_module *m) {
    for (size_t i = 0; i < tir_module_func_count(m); i++)
        for (uint32_t w = 1; w <= 16; w *= 2)
            for (uint32_t t = 1; t <= 2; t++)
                for (uint32_t lanes = 0; lanes <= 1; lanes++)
                    tilec_kernel_destroy(run(tir_module_func(m, i), w, t, lanes ? 1 : w, TILEC_PACK_AUTO));
}

/* Counter `key` of f's realization at W=16 (lanes, pack) after a correct
 * run, or -1. */
static long counter(const tir_func *f, uint32_t lanes, tilec_pack pack, const char *key) {
    tilec_kernel *k = f ? run(f, 16, 2, lanes, pack) : NULL;
    long v = k ? item_value(tilec_kernel_realization(k), key) : -1;
    tilec_kernel_destroy(k);
    return v;
}

static void test_realization(const tir_module *m) {
    const tir_func *swap = kernel_named(m, "swap_pairs"), *pool = kernel_named(m, "avg_pool"), *rows = kernel_named(m, "even_rows"),
                   *table = kernel_named(m, "table_scale"), *gemm = kernel_named(m, "gemm_even_cols");
    /* stride 2 across the lanes: pairs (two vector accesses and a shuffle) */
    CHECK(counter(swap, 16, TILEC_PACK_AUTO, "pair_loads") == 2 && counter(swap, 16, TILEC_PACK_AUTO, "pair_stores") == 2);
    CHECK(counter(swap, 16, TILEC_PACK_AUTO, "gathers") == 0 && counter(swap, 16, TILEC_PACK_AUTO, "scatters") == 0);
    CHECK(counter(pool, 16, TILEC_PACK_AUTO, "pair_loads") >= 4 && counter(pool, 16, TILEC_PACK_AUTO, "gathers") == 0);
    /* stride 3 across the lanes gathers */
    CHECK(counter(kernel_named(m, "edges"), 16, TILEC_PACK_AUTO, "gathers") >= 1);
    /* stride 2 on the rows, contiguous along the lanes */
    CHECK(counter(rows, 16, TILEC_PACK_AUTO, "contiguous_loads") > 0 && counter(rows, 16, TILEC_PACK_AUTO, "gathers") == 0);
    /* one program per lane: the table's elements are the same on every lane */
    CHECK(counter(table, 1, TILEC_PACK_AUTO, "broadcast_loads") == 7);
    /* the strided B operand: pairs in place, contiguous once packed */
    CHECK(counter(gemm, 16, TILEC_PACK_OFF, "pair_loads") > 0);
    tilec_kernel *k = gemm ? run(gemm, 16, 2, 16, TILEC_PACK_ON) : NULL;
    const char *r = k ? tilec_kernel_realization(k) : "";
    CHECK_MSG(has_item(r, "packed=gemm_even_cols_pack_B;") && item_value(r, "gathers") == 0 &&
                  item_value(r, "pair_loads") == 0,
              "%s", r);
    tilec_kernel_destroy(k);
}

/* Pairs in whole packets (rows of a multiple of 2W: plain vector loads, the
 * two stores joined into contiguous ones) and in partial ones (masked), at
 * every width. */
static void test_pair_shapes(void) {
    static const int64_t widths[] = {64, 18, 6};
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
        tir_define d[2] = {{"R", 3}, {"W", widths[i]}};
        tir_module *m = parse_test_kernel_with(ctx, "strided", d, 2);
        for (uint32_t w = 2; m && w <= 16; w *= 2)
            for (uint32_t t = 1; t <= 2; t++) {
                tilec_kernel *k = run(kernel_named(m, "swap_pairs"), w, t, w, TILEC_PACK_AUTO);
                /* whole rows: the even and odd stores interleave into contiguous ones */
                if (k && widths[i] == 64)
                    CHECK_MSG(item_value(tilec_kernel_realization(k), "joined_pair_stores") > 0, "W=%u: %s", w,
                              tilec_kernel_realization(k));
                tilec_kernel_destroy(k);
            }
        tir_module_destroy(m);
    }
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    tir_module *m = parse_test_kernel(ctx, "strided");
    if (m && rt[1]) {
        test_every_width(m);
        test_realization(m);
        test_pair_shapes();
    }
    tir_module_destroy(m);
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
