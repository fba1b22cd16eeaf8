/* Dot products in matrix products (docs/lowering.md "Dot products").
 *
 * - gemm_bf16 at square, ragged (M, N and an odd K), K below one step, a
 *   K block larger than K, and 4 K steps, at W ∈ {4, 8, 16} on 1 and 2 workers,
 *   bitwise against the reference interpreter on dyadic inputs: under the
 *   pinned profile (which multiplies bf16 pairs: both operands packed in
 *   pairs, one dot mma, panels of bf16) and with "-avx512bf16" (the widening
 *   path: f32 panels, no dot).  On a machine without AVX512-BF16 the first
 *   run takes dot_bf16x2's fallback code (tests/simd/test_dot.c).
 * - What keeps the widening path: an ordered mma, separate mma steps, an
 *   operand read by another op, a tile read by one program.
 * - Integer gemms into i32 (tests/kernels/typed_gemm.tir, ragged, odd K):
 *   u8 × u8 (i16 pairs, vpdpwssd), u8 × i8 and i8 × u8 (byte quads,
 *   vpdpbusd, the u8 word first), i8 × i8 (quads, A biased by 128 and B's
 *   sums subtracted), bitwise, under the profile and with
 *   "-avx512vnni" (not grouped).
 * - u8 × i8 operands read in place in words (models/llama/gemv_q8q.tir). */
#include "facade_fixture.h"
#include "simd/simd.h"

/* Compiles m's kernel at every width and worker count, checks whether it
 * runs dot products (`dot`, where the described host has them) and its panels' bytes per element, and runs it
 * against the reference. */
static void check(const char *label, tir_module *m, bool dot, bool fused, tilec_runtime *const *runtimes) {
    if (!m) return;
    bool bf16 = tir_value_elem(tir_func_param(tir_module_func(m, 0), 0)) == TIR_BF16;
    const tir_func *f = tir_module_func(m, 0);
    for (uint32_t w = 4; w <= 16; w *= 2)
        for (uint32_t t = 0; t < 2; t++) {
            tilec_compile_options o = tilec_compile_options_default();
            o.fused_mma = fused;
            tilec_kernel *k = compile_at_lanes(f, o, w, runtimes[t], 0);
            if (!k) continue;
            const char *plan = tilec_kernel_plan_realization(k), *r = tilec_kernel_realization(k);
            bool dots = dot && (bf16 ? simd_host_dot_bf16(w) : simd_host_dot_int8(w)); /* the profile's (zen4: every W) */
            CHECK_MSG(item_value(plan, "dot_mmas") == (dots ? 1 : 0), "%s W=%u: %s", label, w, plan);
            char text[160];
            snprintf(text, sizeof text, "%s W=%u threads=%u", label, w, t + 1);
            if (dots) /* both operands packed */
                CHECK_MSG(strstr(r, "_pack_A,") && strstr(r, "_pack_B;") && item_value(plan, "packed_loads") == 2,
                          "%s: %s", text, r);
            run_config c = run_config_default(w, true);
            run_facade(text, f, k, &c);
            tilec_kernel_destroy(k);
        }
    tir_module_destroy(m);
}

static void test_shapes(const char *host, bool dot, tilec_runtime *const *runtimes) {
    static const tir_define square[] = {{"M", 24}, {"N", 64}, {"K", 16}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define ragged[] = {{"M", 17}, {"N", 37}, {"K", 13}, {"BM", 4}, {"BN", 16}, {"BK", 4}};
    static const tir_define short_k[] = {{"M", 16}, {"N", 35}, {"K", 3}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define big_blocks[] = {{"M", 9}, {"N", 40}, {"K", 9}, {"BM", 8}, {"BN", 32}, {"BK", 16}};
    static const tir_define long_k[] = {{"M", 16}, {"N", 48}, {"K", 200}, {"BM", 8}, {"BN", 16}, {"BK", 64}};
    setenv("TILEC_HOST", host, 1);
    char label[160];
    const struct {
        const char *name;
        const tir_define *d;
    } shapes[] = {{"square", square}, {"ragged M/N/K, K odd", ragged}, {"K below one step", short_k},
                  {"a K block larger than K", big_blocks}, {"K of 4 steps", long_k}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        snprintf(label, sizeof label, "gemm_bf16 %s (%s)", shapes[i].name, host);
        check(label, parse_example(ctx, "gemm_bf16", shapes[i].d, 6), dot, true, runtimes);
    }
}

/* The mmas a dot product does not run, under a profile that has one. */
static void test_kept_widening(const char *host, tilec_runtime *const *runtimes) {
    static const tir_define square[] = {{"M", 24}, {"N", 64}, {"K", 16}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define one[] = {{"M", 8}, {"N", 32}, {"K", 64}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    setenv("TILEC_HOST", host, 1);
    check("ordered", example_variant(ctx, "gemm_bf16", "mma %a, %b, %acc_in", "mma %a, %b, %acc_in ordered", square, 6),
          false, true, runtimes);
    check("separate steps", parse_example(ctx, "gemm_bf16", square, 6), false, false, runtimes);
    check("A also cast",
          example_variant(ctx, "gemm_bf16", "%nx = mma %a, %b, %acc_in",
                          "%af = cast %a to f32\n      %nx = mma %af, %b, %acc_in", square, 6),
          false, true, runtimes);
    check("one program", parse_example(ctx, "gemm_bf16", one, 6), false, true, runtimes);
}

/* tests/kernels/typed_gemm.tir with A of type `a`, B of `b` (i8 or u8) into
 * i32: its first view<i8> is A's, its second B's. */
static tir_module *int_gemm(const char *a, const char *b) {
    char *text = read_tir("tests/kernels", "typed_gemm");
    if (!text) return NULL;
    char out[4096];
    char *first = strstr(text, "view<i8>"), *second = first ? strstr(first + 8, "view<i8>") : NULL;
    CHECK(first && second);
    if (!first || !second) return free(text), NULL;
    snprintf(out, sizeof out, "%.*sview<%s>%.*sview<%s>%s", (int)(first - text), text, a, (int)(second - first - 8),
             first + 8, b, second + 8);
    free(text);
    return parse_verified(ctx, out, NULL, 0);
}

static void test_integers(const char *host, bool dot, tilec_runtime *const *runtimes) {
    setenv("TILEC_HOST", host, 1);
    static const char *const types[][2] = {{"i8", "i8"}, {"u8", "u8"}, {"u8", "i8"}, {"i8", "u8"}};
    char label[160];
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        snprintf(label, sizeof label, "%s x %s -> i32 (%s)", types[i][0], types[i][1], host);
        check(label, int_gemm(types[i][0], types[i][1]), dot, true, runtimes);
    }
}

/* models/llama/gemv_q8q.tir: u8 × i8 operands whose words lie in memory
 * (a view axis of 4 bytes the mma contracts) are read in place, one word
 * per lane, with no pack (plan/pack.h); D is the axis of words.  Ragged N,
 * a group tail (K/G = 3 over BG = 2) and G = 64 (16 words: a whole packet at
 * W = 16), packet-local at W 8 and 16 on 1 and 2 workers, against the
 * reference (the integer sums exact; the f32 scaling at tolerance). */
static void test_in_place(const char *host, bool dot, tilec_runtime *const *runtimes) {
    static const tir_define ragged[] = {{"N", 37}, {"K", 96}, {"G", 32}, {"BN", 4}, {"BG", 2}};
    static const tir_define wide[] = {{"N", 24}, {"K", 256}, {"G", 64}, {"BN", 2}, {"BG", 1}};
    const tir_define *shapes[] = {ragged, wide};
    setenv("TILEC_HOST", host, 1);
    char *text = read_tir("models/llama", "gemv_q8q");
    for (size_t i = 0; text && i < 2; i++) {
        tir_module *m = parse_verified(ctx, text, shapes[i], 5);
        const tir_func *f = m ? tir_module_func(m, 0) : NULL;
        for (uint32_t w = 8; f && w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++) {
                tilec_kernel *k = compile_at_lanes(f, tilec_compile_options_default(), w, runtimes[t], w);
                if (!k) continue;
                const char *plan = tilec_kernel_plan_realization(k);
                char label[160];
                snprintf(label, sizeof label, "gemv_q8q G=%llu W=%u threads=%u (%s)", (unsigned long long)shapes[i][2].value,
                         w, t + 1, host);
                bool dots = dot && simd_host_dot_int8(w);
                CHECK_MSG(item_value(plan, "dot_mmas") == (dots ? 1 : 0) && item_value(plan, "word_loads") == (dots ? 2 : 0) &&
                              item_value(plan, "packed_loads") == 0 && strstr(plan, "local_axis=w;"),
                          "%s: %s", label, plan);
                run_config c = run_config_default(w, false);
                run_facade(label, f, k, &c);
                tilec_kernel_destroy(k);
            }
        tir_module_destroy(m);
    }
    free(text);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    char pinned[64], off[96];
    snprintf(pinned, sizeof pinned, "%s", getenv("TILEC_HOST") ? getenv("TILEC_HOST") : "zen4");
    snprintf(off, sizeof off, "%s,-avx512bf16", pinned);
    if (runtimes[0] && runtimes[1]) {
        test_shapes(pinned, true, runtimes);
        test_shapes(off, false, runtimes);
        test_kept_widening(pinned, runtimes);
        snprintf(off, sizeof off, "%s,-avx512vnni", pinned);
        test_integers(pinned, true, runtimes);
        test_integers(off, false, runtimes);
        test_in_place(pinned, true, runtimes);
        test_in_place(off, false, runtimes);
    }
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(runtimes[t]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
