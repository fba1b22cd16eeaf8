/* Fusion (realize/stream.h, docs/lowering.md "Streamed loads and recomputed
 * values") through the facade, against the reference interpreter.
 *
 * - The row examples (rmsnorm, layernorm, softmax, masked_softmax, rope,
 *   swiglu) at ragged bounded rows, fused (`fuse=on`), at W ∈ {1, 4, 8, 16}
 *   on 1 and 2 workers, one program per lane and packet-local: the fused
 *   plan streams its row loads and keeps no private snapshot of them;
 *   masked softmax reads and exponentiates its row only under the mask
 *   (guarded select arms: at R = 3 almost every packet of the row skips; at
 *   R = 1 one program per lane, the mask is uniform and the branch plain).
 * - Each with the output bound three ways: to its own memory (the streamed
 *   code runs), to the input's memory exactly (in place: streamed where the
 *   streams allow it, i.e. the output's only reader of the input is the
 *   aligned store), and, with one row (instances must not write what
 *   another reads), into the input's memory shifted by 7 elements
 *   (overlapping, unequal: the unfused twin runs).  The dispatch counters
 *   say which ran; every result equals the reference's (the snapshot
 *   contract, also with the shifted views).
 * - off never fuses and has no twin; a kernel whose streams need nothing of
 *   its arguments has no twin either.
 * - Rows beyond the budget: softmax's 8M-wide row at
 *   W = 16 fits neither unfused (the row) nor at fusion level 1 (its
 *   exponentials), so level 2 recomputes them (no array); its twin cannot
 *   fit, so a shifted output is refused (RT-D09) and the context stays
 *   usable; disjoint and in place it equals the reference. */
#include "facade_fixture.h"

typedef struct {
    const char *name;
    int64_t width;         /* the row: > 64 slots of 16 lanes, ragged */
    bool in_place_streams; /* in place, the fused code may run */
    bool guarded;          /* a select's costly arm runs only where its condition holds */
} row_case;

static const row_case cases[] = {
    {"rmsnorm", 1030, true, false},
    {"layernorm", 1100, true, false},
    {"softmax", 1090, true, false},
    {"masked_softmax", 1027, true, true},
    {"swiglu", 1057, true, false},
    /* the first half's store precedes the second half's reads of both halves */
    {"rope", 2 * 1030, false, false},
};

static tilec_kernel *compile(const tir_func *f, uint32_t w, tilec_runtime *rt, uint32_t lanes, tilec_fuse fuse) {
    tilec_compile_options o = tilec_compile_options_default();
    o.fuse = fuse;
    return compile_at_lanes(f, o, w, rt, lanes);
}

enum { DISJOINT, IN_PLACE, SHIFTED };

/* Binding `how` of the output (the last parameter; the first is the input). */
static void run_binding(const row_case *rc, const tir_func *f, tilec_kernel *k, const char *label, uint32_t w, int how) {
    size_t out = tir_func_param_count(f) - 1;
    run_config c = run_config_default(w, false);
    if (how != DISJOINT) c.alias[out] = 0, c.alias_offset[out] = how == SHIFTED ? 7 : 0;
    uint64_t fused0, unfused0, fused1, unfused1;
    tilec_kernel_dispatch_counts(k, &fused0, &unfused0);
    char l[160];
    snprintf(l, sizeof l, "%s %s", label, how == DISJOINT ? "disjoint" : how == IN_PLACE ? "in place" : "shifted");
    run_facade(l, f, k, &c);
    tilec_kernel_dispatch_counts(k, &fused1, &unfused1);
    bool streamed = how == DISJOINT || (how == IN_PLACE && rc->in_place_streams);
    CHECK_MSG(fused1 - fused0 == streamed && unfused1 - unfused0 == !streamed, "%s: fused +%llu, unfused +%llu", l,
              (unsigned long long)(fused1 - fused0), (unsigned long long)(unfused1 - unfused0));
}

static void test_rows(void) {
    tilec_runtime *rt[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const row_case *rc = &cases[i];
        for (int rows = 3; rows >= 1; rows -= 2) {
            tir_define d[2] = {{"R", rows}, {"W", rc->width}};
            tir_module *m = parse_example(ctx, rc->name, d, 2);
            if (!m || !rt[1]) continue;
            const tir_func *f = tir_module_func(m, 0);
            for (uint32_t w = 1; w <= 16; w *= 2)
                for (uint32_t t = 0; t < 2; t++)
                    for (uint32_t lanes = 1; lanes <= w; lanes = lanes == 1 && w > 1 ? w : w + 1) {
                        tilec_kernel *k = compile(f, w, rt[t], lanes, TILEC_FUSE_ON);
                        if (!k) continue;
                        char label[96];
                        snprintf(label, sizeof label, "@%s R=%d W=%u threads=%u lanes=%u", rc->name, rows, w, t + 1,
                                 lanes);
                        const char *r = tilec_kernel_plan_realization(k);
                        CHECK_MSG(item_value(r, "streamed_loads") >= 1 && item_value(r, "fused") == 1, "%s: %s", label, r);
                        CHECK_MSG(!strstr(tilec_kernel_realization(k), "unfused_twin=none;"), "%s: no twin", label);
                        CHECK_MSG((item_value(r, "guarded_arms") > 0) == rc->guarded &&
                                      (!rc->guarded || rows == 1 || w == 1 || /* W = 1: the lane's own branch */
                                       item_value(tilec_kernel_realization(k), "skippable_blocks") > 0),
                                  "%s: guarded arms: %s", label, tilec_kernel_realization(k));
                        if (rows > 1) {
                            run_binding(rc, f, k, label, w, DISJOINT);
                            run_binding(rc, f, k, label, w, IN_PLACE);
                        } else {
                            run_binding(rc, f, k, label, w, SHIFTED);
                        }
                        tilec_kernel_destroy(k);
                    }
            tir_module_destroy(m);
        }
    }
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
}

/* Streaming removes the row's private copy: rmsnorm's 4096-element row
 * keeps no snapshot fused, one (plus gamma's) unfused. */
static void test_no_snapshot(void) {
    static const tir_define big[] = {{"R", 2}, {"W", 4096}};
    tir_module *m = parse_example(ctx, "rmsnorm", big, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *on = compile(f, 8, NULL, 8, TILEC_FUSE_ON), *off = compile(f, 8, NULL, 8, TILEC_FUSE_OFF);
    if (on && off) {
        const char *a = tilec_kernel_plan_realization(on), *b = tilec_kernel_plan_realization(off);
        CHECK_MSG(item_value(a, "static_snapshot_bytes_per_worker") == 0 && item_value(a, "streamed_loads") == 2, "%s", a);
        CHECK_MSG(item_value(b, "static_snapshot_bytes_per_worker") == 2 * 4096 / 8 * 4 && item_value(b, "streamed_loads") == 0,
                  "%s", b);
        CHECK(strstr(tilec_kernel_realization(off), "unfused_twin=none;") != NULL);
        uint64_t fused, unfused;
        tilec_kernel_dispatch_counts(off, &fused, &unfused);
        CHECK(fused == 0 && unfused == 0);
    }
    tilec_kernel_destroy(on);
    tilec_kernel_destroy(off);
    tir_module_destroy(m);
}

/* A coordinate map is recomputed where it is read: fused, masked softmax's
 * column iota (i64) keeps no array, only the exponentials (f32) stay;
 * unfused the row, the iota, the mask (bool), the scores and the
 * exponentials are arrays. */
static void test_coordinate_map(void) {
    static const tir_define big[] = {{"R", 2}, {"W", 4096}};
    tir_module *m = parse_example(ctx, "masked_softmax", big, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *on = compile(f, 8, NULL, 8, TILEC_FUSE_ON), *off = compile(f, 8, NULL, 8, TILEC_FUSE_OFF);
    if (on && off) {
        const char *a = tilec_kernel_plan_realization(on), *b = tilec_kernel_plan_realization(off);
        uint64_t slots = 4096 / 8;
        CHECK_MSG(item_value(a, "static_snapshot_bytes_per_worker") == (long)(slots * 4), "%s", a);
        CHECK_MSG(item_value(b, "static_snapshot_bytes_per_worker") == (long)(slots * (4 + 8 + 1 + 4 + 4)), "%s", b);
        run_config c = run_config_default(8, false);
        run_facade("@masked_softmax fused", f, on, &c);
    }
    tilec_kernel_destroy(on);
    tilec_kernel_destroy(off);
    tir_module_destroy(m);
}

/* A stream whose only later store is to another argument it never reads
 * through needs nothing when it is read before every store: softmax's
 * row is read by its reductions and its store; with the store gone (a
 * kernel that only reduces) no twin is compiled. */
static const char *row_sum_text =
    "kernel @row_sum<R=3, W=300>(%X: const view<f32>[X.0=R, X.1=W], %S: view<f32>[S.0=R, S.1=1]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %s = reduce.add %x over (n)\n"
    "    %v = extract %s[%c0]\n"
    "    store %S[%r, %c0], %v\n"
    "  }\n"
    "}\n";

static void test_no_twin(void) {
    tir_module *m = parse_kernel(row_sum_text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *k = compile(f, 8, NULL, 1, TILEC_FUSE_ON);
    if (k) {
        CHECK_MSG(item_value(tilec_kernel_plan_realization(k), "streamed_loads") == 1, "%s", tilec_kernel_plan_realization(k));
        CHECK(strstr(tilec_kernel_realization(k), "unfused_twin=none;") != NULL);
        run_config c = run_config_default(8, false);
        run_facade("@row_sum", f, k, &c);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

static void test_beyond_budget(void) {
    static const tir_define big[] = {{"R", 1}, {"W", (8 << 20) - 7}};
    tir_module *m = parse_example(ctx, "softmax", big, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = tilec_compile_options_default();
    o.fuse = TILEC_FUSE_OFF;
    o.width = 16;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_E_UNSUPPORTED && !k);
    CHECK(tilec_diag_count(ctx) == 1 && !strcmp(tilec_diag_at(ctx, 0)->code, "PLAN-S01"));
    tilec_diag_clear(ctx);
    k = compile(f, 16, NULL, 0, TILEC_FUSE_AUTO);
    if (k) {
        const char *r = tilec_kernel_plan_realization(k);
        CHECK_MSG(item_value(r, "fused") == 2 && item_value(r, "static_snapshot_bytes_per_worker") == 0, "%s", r);
        CHECK_MSG(strstr(tilec_kernel_realization(k), "unfused_twin=none (overlapping arguments refused);") != NULL,
                  "%s", tilec_kernel_realization(k));
        run_binding(&cases[2], f, k, "@softmax 8M", 16, DISJOINT);
        run_binding(&cases[2], f, k, "@softmax 8M", 16, IN_PLACE);
        /* shifted into X: refused, with both arguments named */
        size_t n = (size_t)big[1].value + 7;
        float *x = calloc(n, sizeof *x);
        if (x) {
            tilec_buffer args[2] = {{x, (n - 7) * sizeof *x, TIR_F32}, {x + 7, (n - 7) * sizeof *x, TIR_F32}};
            CHECK(tilec_dispatch(ctx, k, 2, args) == TILEC_E_ARG);
            CHECK(tilec_diag_count(ctx) == 1 && !strcmp(tilec_diag_at(ctx, 0)->code, "RT-D09") &&
                  strstr(tilec_diag_at(ctx, 0)->message, "arguments 0 and 1 overlap") != NULL);
            tilec_diag_clear(ctx);
            args[1].data = x; /* in place again: the context and kernel are still usable */
            CHECK(tilec_dispatch(ctx, k, 2, args) == TILEC_OK);
            free(x);
        }
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_rows();
    test_no_snapshot();
    test_coordinate_map();
    test_no_twin();
    test_beyond_budget();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
