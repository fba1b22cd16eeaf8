/* Split reductions across programs (plan/split.h, docs/lowering.md "Split
 * reductions").
 *
 * - Exact kernels, bitwise against the reference interpreter with
 *   sentinel-padded buffers, at W ∈ {4, 8, 16} on 1 and 2 workers and
 *   several chunk counts (2, one with a tail, one trip per chunk):
 *   split_stats.tir (integer: a tile carry and a scalar carry) and
 *   split_dot.tir (an ordered_tree float fold on dyadic inputs: the chunks
 *   merge left to right, so the result is the reference's).
 * - Attention (the examples attention.tir and attention_gqa.tir): prefill,
 *   decode (Lq = 1), GQA, causal and not, ragged Lq/Lk, D = 64 and 128, at
 *   W ∈ {4, 8, 16} on 1 and 2 workers, split into 2 or 3 chunks and unsplit
 *   (one program per lane and packet-local), within 5e-5 of the reference.
 * - The decision: off never splits, auto splits when programs alone leave
 *   workers idle and not on one worker; each refusal names its reason.
 * - Dispatch: argument errors are reported before the partial kernel runs
 *   and leave the kernel usable; two threads dispatching one split kernel on
 *   their own inputs each get their own result (the workspace is the
 *   kernel's, so dispatches serialize on its lock). */
#include "facade_fixture.h"
#include "plan/split.h"
#include "tir/ir.h"

static tilec_kernel *compile_split(const tir_func *f, uint32_t w, tilec_runtime *rt, tilec_split mode,
                                   uint32_t chunks, uint32_t lanes) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = rt;
    o.split = mode;
    o.split_chunks = chunks;
    o.local_lanes = lanes;
    tilec_kernel *k = NULL;
    CHECK_MSG(tilec_compile(ctx, f, &o, &k) == TILEC_OK, "@%s: compile failed at W=%u chunks=%u", tir_func_name(f),
              w, chunks);
    flush_diags_in(ctx);
    return k;
}

static bool is_split(const tilec_kernel *k) { return !has_item(tilec_kernel_realization(k), "split=none;"); }

static void test_exact(void) {
    static const tir_define stats[] = {{"R", 3}, {"N", 1000}, {"BN", 16}}; /* 63 blocks */
    static const tir_define dot[] = {{"R", 2}, {"N", 300}, {"BN", 8}};     /* 38 blocks */
    tir_module *mods[] = {parse_test_kernel_with(ctx, "split_stats", stats, 3),
                          parse_test_kernel_with(ctx, "split_dot", dot, 3)};
    static const uint32_t chunks[] = {2, 5, 38};
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
        if (!mods[i] || !runtimes[1]) continue;
        const tir_func *f = tir_module_func(mods[i], 0);
        for (uint32_t w = 4; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++)
                for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                    tilec_kernel *k = compile_split(f, w, runtimes[t], TILEC_SPLIT_ON, chunks[c], 0);
                    if (!k) continue;
                    CHECK_MSG(is_split(k), "@%s: %s", tir_func_name(f), tilec_kernel_realization(k));
                    char label[96];
                    snprintf(label, sizeof label, "@%s W=%u threads=%u chunks=%u", tir_func_name(f), w, t + 1,
                             chunks[c]);
                    run_config cfg = run_config_default(w, true);
                    run_facade(label, f, k, &cfg);
                    tilec_kernel_destroy(k);
                }
    }
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) tir_module_destroy(mods[i]);
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
}

typedef struct {
    const char *label, *example;
    tir_define defines[11];
} attention_case;

static void test_attention(void) {
#define SHAPE(b, hq, hkv, lq, lk, d, dv, bq, bk, causal) \
    {{"B", b}, {"Hq", hq}, {"Hkv", hkv}, {"Lq", lq}, {"Lk", lk}, {"D", d}, {"Dv", dv}, {"bq", bq}, {"bk", bk}, {"causal", causal}}
    static const attention_case cases[] = {
        {"prefill causal ragged", "attention", SHAPE(1, 2, 2, 7, 13, 8, 7, 4, 4, 1)},
        {"prefill GQA non-causal ragged", "attention", SHAPE(1, 4, 2, 5, 19, 8, 8, 2, 4, 0)},
        {"decode GQA D=64", "attention_gqa", SHAPE(1, 4, 1, 1, 37, 64, 64, 1, 8, 1)},
        {"decode GQA D=128", "attention_gqa", SHAPE(1, 2, 1, 1, 29, 128, 128, 1, 4, 1)},
        {"GQA prefill causal", "attention_gqa", SHAPE(1, 4, 2, 6, 10, 8, 8, 2, 3, 1)},
    };
#undef SHAPE
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    static const uint32_t chunks[] = {0, 2, 3}; /* a case runs unsplit and with 2 + (case mod 2) chunks */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_module *m = parse_example(ctx, cases[i].example, cases[i].defines, 10);
        CHECK_MSG(m != NULL, "%s parses", cases[i].label);
        if (!m || !runtimes[1]) continue;
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t w = 4; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++)
                for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
                    for (uint32_t lanes = 1; lanes <= w; lanes *= w) {
                        if (chunks[c] && (lanes != 1 || chunks[c] != 2 + i % 2)) continue; /* split kernels plan their own lanes */
                        tilec_split mode = chunks[c] ? TILEC_SPLIT_ON : TILEC_SPLIT_OFF;
                        tilec_kernel *k = compile_split(f, w, runtimes[t], mode, chunks[c], chunks[c] ? 0 : lanes);
                        if (!k) continue;
                        CHECK_MSG(is_split(k) == (chunks[c] != 0), "%s: %s", cases[i].label,
                                  tilec_kernel_realization(k));
                        char label[128];
                        snprintf(label, sizeof label, "%s W=%u threads=%u chunks=%u lanes=%u", cases[i].label, w,
                                 t + 1, chunks[c], lanes);
                        run_config cfg = run_config_default(w, false);
                        cfg.tolerance = 5e-5;
                        run_facade(label, f, k, &cfg);
                        tilec_kernel_destroy(k);
                    }
        tir_module_destroy(m);
    }
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
}

/* ---- the decision ---- */

static bool decide(const char *text, tilec_split mode, uint32_t chunks, uint32_t workers, plan_split *s) {
    tir_module *m = NULL;
    bool split = false;
    CHECK_MSG(tir_parse(ctx, text, strlen(text), "split.tir", NULL, 0, &m) == TILEC_OK && tir_verify(ctx, m) == TILEC_OK,
              "decision kernel parses");
    flush_diags_in(ctx);
    if (m) split = plan_split_decide(tir_module_func(m, 0), mode, chunks, workers, s);
    tir_module_destroy(m);
    return split;
}

/* A mergeable sum over `blk` blocks per program; `before` and `inside` are
 * spliced before the reduce and into its body. */
static void kernel_text(char *out, size_t n, int programs, int blocks, const char *before, const char *inside,
                        const char *carry) {
    snprintf(out, n,
             "kernel @k(%%X: const view<f32>[X.0=%d, X.1=%d], %%Y: view<f32>[Y.0=%d, Y.1=1]) {\n"
             "  parallel (%%p: p=%d) {\n"
             "    %%c0 = const index 0\n"
             "    %%z = const %s 0.0\n%s"
             "    %%s = reduce (%%b: blk=%d) iter(%%a = %%z) -> (%s) {\n"
             "      %%x = load %%X[%%p, %%b]\n%s"
             "      %%n = add %%a, %%x\n"
             "      yield %%n\n"
             "    } combine (%%l) (%%r) {\n"
             "      %%c = add %%l, %%r\n"
             "      yield %%c\n"
             "    }\n"
             "    store %%Y[%%p, %%c0], %%s\n"
             "  }\n"
             "}\n",
             programs, blocks, programs, programs, carry, before, blocks, carry, inside);
}

static void test_decision(void) {
    char text[2048];
    plan_split s;
    kernel_text(text, sizeof text, 1, 64, "", "", "f32");
    CHECK(!decide(text, TILEC_SPLIT_OFF, 0, 2, &s) && !strcmp(s.why, "off"));
    CHECK_MSG(!decide(text, TILEC_SPLIT_AUTO, 0, 1, &s) && strstr(s.why, "auto splits from"), "%s", s.why);
    CHECK_MSG(decide(text, TILEC_SPLIT_AUTO, 0, 2, &s) && s.chunks == 2 && s.chunk_trips == 32 && !s.tail_trips,
              "%s", s.why);
    CHECK_MSG(decide(text, TILEC_SPLIT_AUTO, 0, 8, &s) && s.chunks >= 8, "%s", s.why);
    CHECK_MSG(decide(text, TILEC_SPLIT_ON, 0, 1, &s) && s.chunks >= 2, "%s", s.why); /* on: the best S >= 2 */
    CHECK_MSG(decide(text, TILEC_SPLIT_AUTO, 5, 1, &s) && s.chunks == 5 && s.chunk_trips == 12 && s.tail_trips == 4,
              "%s", s.why);
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 65, 2, &s) && s.bad_chunks && strstr(s.why, "chunks must be in 2..min(trips"),
              "%s", s.why);
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 1, 2, &s) && s.bad_chunks && strstr(s.why, "chunks must be"), "%s", s.why);
    CHECK(decide(text, TILEC_SPLIT_ON, 64, 2, &s) && !s.bad_chunks && s.chunks == 64);
    kernel_text(text, sizeof text, 4, 64, "", "", "f32");
    CHECK_MSG(!decide(text, TILEC_SPLIT_AUTO, 0, 2, &s) && strstr(s.why, "4 programs on 2 workers"), "%s", s.why);
    kernel_text(text, sizeof text, 1, 64, "    store %Y[%c0, %c0], %z\n", "", "f32");
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 0, 2, &s) && strstr(s.why, "a store (op #"), "%s", s.why);
    kernel_text(text, sizeof text, 1, 64, "", "      store %Y[%c0, %c0], %x\n", "f32");
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 0, 2, &s) && strstr(s.why, "stores (op #"), "%s", s.why);
    kernel_text(text, sizeof text, 1, 1, "", "", "f32");
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 0, 2, &s) && !s.bad_chunks && strstr(s.why, "nothing to split"), "%s", s.why);
    /* a count for a reduce of one trip is out of range, not "nothing to split" */
    CHECK_MSG(!decide(text, TILEC_SPLIT_ON, 2, 2, &s) && s.bad_chunks && strstr(s.why, "has 1 trip (chunks must"), "%s",
              s.why);
    const char *plain = "kernel @k(%X: const view<f32>[X.0=4], %Y: view<f32>[Y.0=1]) {\n"
                        "  parallel (%p: p=1) {\n"
                        "    %c0 = const index 0\n"
                        "    %z = const f32 0.0\n"
                        "    %s = reduce (%b: blk=4) iter(%a = %z) -> (f32) {\n"
                        "      %x = load %X[%b]\n"
                        "      %n = add %a, %x\n"
                        "      yield %n\n"
                        "    }\n"
                        "    store %Y[%c0], %s\n"
                        "  }\n"
                        "}\n";
    CHECK_MSG(!decide(plain, TILEC_SPLIT_ON, 0, 2, &s) && strstr(s.why, "no reduce with a combine block"), "%s", s.why);
}

/* ---- dispatch ---- */

static void test_dispatch(void) {
    static const tir_define stats[] = {{"R", 1}, {"N", 100}, {"BN", 4}};
    tir_module *m = parse_test_kernel_with(ctx, "split_stats", stats, 3);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *k = compile_split(f, 8, NULL, TILEC_SPLIT_ON, 4, 0);
    if (k) {
        int32_t x[100], s[2] = {0, 0};
        int64_t sum = 0;
        for (int i = 0; i < 100; i++) sum += x[i] = i * 7 - 300;
        tilec_buffer good[2] = {{x, sizeof x, TIR_I32}, {s, sizeof s, TIR_I32}};
        tilec_buffer short_out[2] = {{x, sizeof x, TIR_I32}, {s, 4, TIR_I32}};
        CHECK(tilec_dispatch(ctx, k, 1, good) == TILEC_E_ARG && has_diag("RT-D02", NULL));
        CHECK(tilec_dispatch(ctx, k, 2, short_out) != TILEC_OK && has_diag("RT-D04", NULL));
        CHECK(s[0] == 0 && s[1] == 0); /* nothing ran */
        tilec_diag_clear(ctx);
        CHECK(tilec_dispatch(ctx, k, 2, good) == TILEC_OK && s[0] == sum);
        CHECK(tilec_kernel_arg_count(k) == 2 && tilec_kernel_arg_min_bytes(k, 1) == sizeof s);
        CHECK_MSG(strstr(tilec_kernel_realization(k), "plan=split4(") != NULL, "%s", tilec_kernel_realization(k));
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

/* One thread's rows and expected S[r] = (sum, largest block sum). */
typedef struct {
    int32_t x[2 * 100], s[4], expected[4];
    tilec_buffer args[2];
} rows;

static void test_concurrent(void) {
    static const tir_define stats[] = {{"R", 2}, {"N", 100}, {"BN", 4}};
    tir_module *m = parse_test_kernel_with(ctx, "split_stats", stats, 3);
    tilec_kernel *k = m ? compile_split(tir_module_func(m, 0), 8, NULL, TILEC_SPLIT_ON, 5, 0) : NULL;
    tir_module_destroy(m);
    if (!k) return;
    static rows d[2];
    dispatch_rounds two[2];
    for (int t = 0; t < 2; t++) {
        for (int r = 0; r < 2; r++) {
            int32_t sum = 0, top = INT32_MIN;
            for (int b = 0; b < 25; b++) {
                int32_t block = 0;
                for (int i = 0; i < 4; i++) block += d[t].x[r * 100 + b * 4 + i] = (b * 4 + i) * (t + 2) - 37 * r - 50;
                sum += block;
                top = block > top ? block : top;
            }
            d[t].expected[2 * r] = sum;
            d[t].expected[2 * r + 1] = top;
        }
        d[t].args[0] = (tilec_buffer){d[t].x, sizeof d[t].x, TIR_I32};
        d[t].args[1] = (tilec_buffer){d[t].s, sizeof d[t].s, TIR_I32};
        two[t] = (dispatch_rounds){k, d[t].args, 2, d[t].s, d[t].expected, sizeof d[t].s, false};
    }
    CHECK_MSG(dispatch_concurrently(two), "concurrent dispatches of one split kernel: %d %d", two[0].ok, two[1].ok);
    tilec_kernel_destroy(k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_decision();
    test_dispatch();
    test_concurrent();
    test_exact();
    test_attention();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
