/* Packet-local lowering (local_lanes = W, realize/local.h): one root program per
 * packet, its row axis split over the lanes.
 *
 * - Every row example at W = 1, 2, 4, 8, 16 on the W-lane XIR interpreter
 *   and natively (1 and 2 threads) against the reference, at ragged row
 *   widths N in {1, 7, W-1, W, W+1, 65, 1000, 1027} and 1 or 17 rows (1027:
 *   more than 64 slots with a partly valid last one, the peeled runtime loop).
 * - Reductions invent no identity: a sum of -0.0 seeded with -0.0 stays
 *   -0.0, a max over NaN seeded with NaN stays NaN, seeds other than the
 *   identity enter once, carries on either side; bitwise on dyadic inputs,
 *   including N < W (lanes without a contribution) and the leader-only
 *   scalar stores.
 * - In-place rows; a two-axis root in both orders and with root tiles.
 * - An mma over D (a row dot product), bitwise at every W and row width.
 * - Contractions with their own distributed axis (attention's d beside dv;
 *   decode and prefill shapes), and the fallback to D alone.
 * - Matrix programs (gemm, gemm_bt, bmm, attention) with the stored row split
 *   over the lanes and every other axis whole, at every W, bitwise; mma
 *   steps fused (fma) and separate; integer and mixed-precision mma; a
 *   bias + ReLU epilogue; the atom's realization (contiguous B loads,
 *   broadcast A, no gathers).
 * - Admission refusals with their codes and reasons; the realization's
 *   metadata; softmax at W = 16 compiles to contiguous loads and stores
 *   with no gathers. */
#include "lower_fixture.h"

#include "realize/local.h"

static lowering local_options(uint32_t w) {
    lowering o = lowering_default();
    o.choice.packet_width = w;
    o.choice.lanes = w;
    return o;
}

/* Lowers f packet-local at W and compares it (XIR and native) with the
 * reference. */
static bool check_local(const char *label, const tir_func *f, uint32_t w, run_config c) {
    lowering o = local_options(w);
    lower_result r;
    if (!lower_ok(f, &o, &r)) return false;
    CHECK(r.local_lanes == w && r.required_packet_width == (w > 1 ? w : 0));
    CHECK(r.dispatch_size % w == 0);
    c.width = w;
    bool ok = run_and_compare(label, f, &r, &c);
    lower_result_free(&r);
    return ok;
}

static void test_examples(void) {
    static const char *const names[] = {"softmax", "masked_softmax", "layernorm", "rmsnorm", "gelu", "swiglu", "rope"};
    static const int64_t rows[] = {1, 17};
    for (size_t e = 0; e < sizeof names / sizeof *names; e++) {
        char *text = read_example(names[e]);
        if (!text) continue;
        bool half = !strcmp(names[e], "rope"); /* its tiles are W/2 wide */
        for (uint32_t w = 1; w <= 16; w *= 2) {
            const int64_t widths[] = {1, 7, (int64_t)w - 1, w, (int64_t)w + 1, 65, 1000, 1027};
            for (size_t n = 0; n < sizeof widths / sizeof *widths; n++) {
                bool seen = widths[n] < 1;
                for (size_t k = 0; k < n; k++) seen = seen || widths[k] == widths[n];
                for (size_t ri = 0; !seen && ri < 2; ri++) {
                    tir_define d[2] = {{"R", rows[ri]}, {"W", half ? 2 * widths[n] : widths[n]}};
                    tir_module *m = parse_kernel(text, d, 2);
                    if (!m) continue;
                    char label[96];
                    snprintf(label, sizeof label, "%s local W=%u N=%lld R=%lld", names[e], w, (long long)widths[n],
                             (long long)rows[ri]);
                    check_local(label, tir_module_func(m, 0), w, run_config_default(w, false));
                    tir_module_destroy(m);
                }
            }
        }
        free(text);
    }
}

/* tests/kernels/packet_reductions.tir: reductions of -0.0 and NaN seeded
 * with -0.0 and NaN, a seed other than the identity with the carry on the
 * right, a min with a -0.0 seed; bitwise on dyadic inputs. */
static void test_reductions(void) {
    static const int64_t widths[] = {1, 2, 3, 7, 8, 9, 16, 17, 33, 100, 300};
    for (uint32_t w = 2; w <= 16; w *= 2)
        for (size_t n = 0; n < sizeof widths / sizeof *widths; n++)
            for (uint32_t p = 1; p <= 4; p += 3) {
                tir_define d = {"N", widths[n]};
                tir_module *m = parse_test_kernel_with(ctx, "packet_reductions", &d, 1);
                if (!m) continue;
                lowering o = local_options(w);
                o.record.reduction_partitions = p;
                lower_result r;
                char label[64];
                snprintf(label, sizeof label, "reductions W=%u N=%lld P=%u", w, (long long)widths[n], p);
                if (lower_ok(tir_module_func(m, 0), &o, &r)) {
                    CHECK(r.counters.packet_reductions == (widths[n] > 1 ? 4 : 0)); /* N = 1: replicated */
                    run_config c = run_config_default(w, true);
                    run_and_compare(label, tir_module_func(m, 0), &r, &c);
                    lower_result_free(&r);
                }
                tir_module_destroy(m);
            }
}

static void expect_refusal(const char *label, tir_module *m, plan_local_refusal reason, const char *message) {
    if (!m) return;
    lowering o = local_options(8);
    lower_result r;
    tilec_status st = lower_kernel(ctx, tir_module_func(m, 0), &o.record, &o.choice, &r);
    CHECK_MSG(st == TILEC_E_UNSUPPORTED, "%s: status %s", label, tilec_status_name(st));
    CHECK_MSG(has_diag(plan_local_refusal_code(reason), message), "%s: no %s diagnostic containing '%s'", label,
              plan_local_refusal_code(reason), message);
    CHECK_MSG(has_diag(NULL, "not admitted to packet-local lowering (local_lanes=8)"), "%s: no packet-local refusal",
              label);
    CHECK(r.module == NULL);
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

static const char two_axis_reduce_text[] =
    "kernel @k<R=4, N=8>(%X: const view<f32>[X.0=R, X.1=2, X.2=N], %Y: view<f32>[Y.0=R, Y.1=2, Y.2=N],\n"
    "                    %Z: view<f32>[Z.0=R]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0, %c0] tile [l=1, m=2, n=N]\n"
    "    store %Y[%r, %c0, %c0] tile [l=1, m=2, n=N], %x\n"
    "    %s = reduce.max %x over (m, n)\n"
    "    store %Z[%r] tile [l=1], %s\n"
    "  }\n"
    "}\n";

static const char two_extents_text[] =
    "kernel @k<R=4, N=8>(%X: const view<f32>[X.0=R, X.1=N], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    %h = load %X[%r, %c0] tile [m=1, n=4]\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %x\n"
    "    store %Y[%r, %c0] tile [m=1, n=4], %h\n"
    "  }\n"
    "}\n";

static const char shifted_text[] =
    "kernel @k<R=4, N=8>(%X: const view<f32>[X.0=R, X.1=N], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %one = const index 1\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    %y = map (%u: m=1, %i: n=N) -> f32 {\n"
    "      %j = add %i, %one\n"
    "      %v = extract %x[%c0, %j]\n"
    "      yield %v\n"
    "    }\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %y\n"
    "  }\n"
    "}\n";

static const char nested_text[] =
    "kernel @k<R=4, N=8>(%X: const view<f32>[X.0=R, X.1=N], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    %y = map (%u: m=1, %i: n=N) -> f32 {\n"
    "      %s = reduce.add %x over (n)\n"
    "      %v = extract %x[%c0, %i]\n"
    "      %w = extract %s[%c0]\n"
    "      %q = add %v, %w\n"
    "      yield %q\n"
    "    }\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %y\n"
    "  }\n"
    "}\n";

static const char root_on_row_text[] =
    "kernel @k<N=8>(%X: const view<f32>[X.0=N, X.1=N], %Y: view<f32>[Y.0=N, Y.1=N]) {\n"
    "  parallel (%r: n=N) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %x\n"
    "  }\n"
    "}\n";

static void test_refusals(void) {
    static const tir_define long_row[] = {{"R", 1}, {"N", 4097}};
    expect_refusal("long ordered contraction of the row", parse_test_kernel_with(ctx, "row_dot_ordered", long_row, 2),
                   PLAN_LOCAL_REFUSE_MMA, "mma op #6 folds 'n' in order over 4097 steps (at most 4096");
    expect_refusal("reduce over two axes", parse_kernel(two_axis_reduce_text, NULL, 0), PLAN_LOCAL_REFUSE_REDUCE_AXES,
                   "reduce op #6 over 'n' and 'm'");
    expect_refusal("two row extents", parse_kernel(two_extents_text, NULL, 0), PLAN_LOCAL_REFUSE_AXES,
                   "'load' op #3 has axis 'n'=4 besides 'n'=8");
    expect_refusal("long ordered fold of the row", parse_test_kernel_with(ctx, "row_fold", long_row, 2),
                   PLAN_LOCAL_REFUSE_ORDERED, "folds 'n' in order over 4097 steps (at most 4096)");
    expect_refusal("serial over n", parse_test_kernel(ctx, "row_prefix"), PLAN_LOCAL_REFUSE_ORDERED,
                   "'serial' op #4 walks the distributed axis 'n' in order");
    expect_refusal("shifted extract", parse_kernel(shifted_text, NULL, 0), PLAN_LOCAL_REFUSE_EXTRACT,
                   "not the coordinate of the enclosing map or reduce");
    expect_refusal("nested", parse_kernel(nested_text, NULL, 0), PLAN_LOCAL_REFUSE_NESTED, "region inside a region");
    expect_refusal("root on the row axis", parse_kernel(root_on_row_text, NULL, 0), PLAN_LOCAL_REFUSE_ROOT,
                   "the root parallel is over 'n'");
    tir_define huge[] = {{"R", 1 << 29}, {"W", 2}};
    expect_refusal("dispatch", parse_example(ctx, "softmax", huge, 2), PLAN_LOCAL_REFUSE_DISPATCH,
                   "536870912 programs × 8 lanes");
    tir_define empty[] = {{"W", 0}};
    expect_refusal("empty row", parse_example(ctx, "softmax", empty, 1), PLAN_LOCAL_REFUSE_EMPTY, "extent 0");
    /* local_lanes must be 1 or W. */
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    lowering o = local_options(8);
    o.choice.lanes = 4;
    lower_result r;
    CHECK(lower_kernel(ctx, tir_module_func(m, 0), &o.record, &o.choice, &r) == TILEC_E_ARG);
    CHECK(has_diag("LOWER-O08", "local_lanes 4 is neither 1"));
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

/* The metadata, the backend's width contract and the realization of row
 * accesses: contiguous vector loads and stores, no gathers or scatters. */
static void test_realization(void) {
    tir_define d[] = {{"R", 33}, {"W", 1000}};
    tir_module *m = parse_example(ctx, "softmax", d, 2);
    if (!m) return;
    lowering o = local_options(16);
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        CHECK(r.dispatch_size == 33 * 16 && r.required_packet_width == 16 && r.counters.packet_reductions == 2);
        CHECK_STR_CONTAINS(r.realization, "local_lanes=16;");
        CHECK_STR_CONTAINS(r.realization, "local_axis=n; local_extent=1000; local_slots=63;");
        CHECK_STR_CONTAINS(r.realization, "required_packet_width=16;");
        CHECK(count_insts(r.kernel, XIR_INST_WARP_READ_LANE, XIR_OP_INVALID) == 2 * 5);
        tilec_compile_options so = tilec_compile_options_default();
        so.width = 16;
        simd_kernel *k = NULL;
        if (pipeline_native_lowered(ctx, &r, &so, &k) == TILEC_OK) {
            const simd_counters *n = simd_kernel_counters(k);
            CHECK(n->contiguous_loads > 0 && n->contiguous_stores > 0);
            CHECK(n->gathers == 0 && n->scatters == 0 && n->private_gather_scatters == 0);
            simd_kernel_destroy(k);
        }
        so.width = 8;
        CHECK(pipeline_native_lowered(ctx, &r, &so, &k) == TILEC_E_ARG && !k);
        CHECK(has_diag("SIMD-O04", "exactly 16 lanes"));
        tilec_diag_clear(ctx);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* The matrix atom's realization at W = 16: the B rows are contiguous vector
 * loads, the A elements broadcasts, the output rows contiguous stores, and
 * nothing is gathered or scattered. */
static void test_matrix_realization(void) {
    tir_define d[] = {{"M", 64}, {"N", 64}, {"K", 64}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    tir_module *m = parse_example(ctx, "gemm", d, 6);
    if (!m) return;
    lowering o = local_options(16);
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        CHECK_STR_CONTAINS(r.realization, "local_axis=n; local_extent=32; local_slots=2;");
        tilec_compile_options so = tilec_compile_options_default();
        so.width = 16;
        so.capture_ir = true;
        simd_kernel *k = NULL;
        if (pipeline_native_lowered(ctx, &r, &so, &k) == TILEC_OK) {
            const simd_counters *n = simd_kernel_counters(k);
            /* every packet is one whole program: no masked tail body */
            CHECK(n->full_packet_bodies == 1 && simd_kernel_ir(k) && !strstr(simd_kernel_ir(k), "tail_packet"));
            CHECK_MSG(n->contiguous_loads > 0 && n->broadcast_loads > 0 && n->contiguous_stores > 0,
                      "gemm atom: %llu contiguous loads, %llu broadcasts, %llu contiguous stores",
                      (unsigned long long)n->contiguous_loads, (unsigned long long)n->broadcast_loads,
                      (unsigned long long)n->contiguous_stores);
            CHECK(n->gathers == 0 && n->scatters == 0 && n->private_gather_scatters == 0);
            simd_kernel_destroy(k);
        }
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* In place (Y bound to X's memory: a program loads its row before storing
 * it), and a two-axis root in both orders and with root tiles: the program
 * ordinal dispatch_id / W goes through the ordinary root map.  The row
 * maximum, a unit tile, is stored by lane 0 alone. */
static const char rows2_text[] =
    "kernel @k2<B=4, R=5, N=37>(%X: const view<f32>[X.0=B, X.1=R, X.2=N], %Y: view<f32>[Y.0=B, Y.1=R, Y.2=N],\n"
    "                           %M: view<f32>[M.0=B, M.1=R]) {\n"
    "  parallel (%b: b=B, %r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%b, %r, %c0] tile [l=1, m=1, n=N]\n"
    "    %s = reduce.max %x over (n)\n"
    "    %y = sub %x, %s\n"
    "    store %Y[%b, %r, %c0] tile [l=1, m=1, n=N], %y\n"
    "    store %M[%b, %r] tile [l=1, m=1], %s\n"
    "  }\n"
    "}\n";

static void test_mappings(void) {
    static const example_case in_place[] = {
        {"softmax", {{"W", 65}}, 1, 1, 0},
        {"layernorm", {{"W", 100}}, 1, 3, 0},
        {"rope", {{"W", 34}}, 1, 3, 0},
    };
    for (size_t i = 0; i < sizeof in_place / sizeof *in_place; i++) {
        tir_module *m = parse_example(ctx, in_place[i].name, in_place[i].defines, in_place[i].n_defines);
        if (!m) continue;
        char label[64];
        snprintf(label, sizeof label, "%s local in place", in_place[i].name);
        check_local(label, tir_module_func(m, 0), 8, example_config(&in_place[i], 8, false));
        tir_module_destroy(m);
    }
    tir_module *m = parse_kernel(rows2_text, NULL, 0);
    if (!m) return;
    static const uint32_t orders[2][2] = {{0, 1}, {1, 0}}, tiles[2] = {2, 5};
    for (int k = 0; k < 3; k++) {
        lowering o = local_options(8);
        o.choice.order = orders[k == 1];
        o.choice.order_len = 2;
        if (k == 2) o.choice.tiles = tiles, o.choice.tiles_len = 2;
        lower_result r;
        if (!lower_ok(tir_module_func(m, 0), &o, &r)) continue;
        run_config c = run_config_default(8, true);
        CHECK(count_insts(r.kernel, XIR_INST_BUFFER_WRITE, XIR_OP_INVALID) == 5 + 1); /* 5 slots, 1 leader store */
        run_and_compare(k == 2 ? "two-axis root, tiles" : "two-axis root", tir_module_func(m, 0), &r, &c);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* An mma over D (the row dot product): each lane folds its slots, the
 * lanes meet in a butterfly; bitwise on dyadic inputs at every W and row
 * width, N < W (lanes without an element), a partly valid tail slot and
 * several slots; both contraction contracts; the butterfly is there. */
static void test_contraction_over_row(void) {
    static const int64_t widths[] = {1, 3, 8, 16, 17, 37, 64};
    for (size_t n = 0; n < sizeof widths / sizeof *widths; n++) {
        tir_define d[] = {{"R", 3}, {"N", widths[n]}};
        tir_module *m = parse_test_kernel_with(ctx, "row_dot", d, 2);
        if (!m) continue;
        for (uint32_t w = 1; w <= 16; w *= 2) {
            char label[64];
            snprintf(label, sizeof label, "row dot N=%lld local W=%u", (long long)widths[n], w);
            check_local(label, tir_module_func(m, 0), w, run_config_default(w, true));
        }
        for (int fused = 0; fused < 2; fused++) {
            lowering o = local_options(8);
            o.record.fused_mma = fused;
            lower_result r;
            if (!lower_ok(tir_module_func(m, 0), &o, &r)) continue;
            CHECK_MSG(widths[n] == 1 || count_insts(r.kernel, XIR_INST_WARP_READ_LANE, XIR_OP_INVALID) >= 3,
                      "row dot N=%lld: no butterfly", (long long)widths[n]); /* N = 1: no D */
            char label[64];
            snprintf(label, sizeof label, "row dot N=%lld fused_mma=%d", (long long)widths[n], fused);
            run_config c = run_config_default(8, true);
            run_and_compare(label, tir_module_func(m, 0), &r, &c);
            lower_result_free(&r);
        }
        tir_module_destroy(m);
    }
}

/* Runs a lowering of a row kernel (X [R, N] in, Y [R, N], Z [R, zc] out:
 * row_dot_ordered, row_fold) on the XIR interpreter with inexact inputs;
 * Z's floats in z. */
static bool run_row_kernel(const lower_result *r, int64_t R, int64_t N, float *z, size_t zc) {
    size_t n = (size_t)(R * N);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; x && i < n; i++) x[i] = (float)sin(0.37 * (double)i + 0.1) * 1.3f;
    tir_buffer args[3] = {{x, n * sizeof *x}, {y, n * sizeof *y}, {z, (size_t)R * zc * sizeof *z}};
    bool ok = x && y &&
              xir_interpret(ctx, r->kernel, r->dispatch_size, r->packet_width, 3, args) == TILEC_OK;
    free(x);
    free(y);
    return ok;
}

/* Strict folds over D keep the reference's steps: an ordered mma
 * (row_dot_ordered) and fold_left/fold_right reductions (row_fold) read each
 * element from its lane in order, so every W gives the whole program's bits
 * on inexact inputs (and the reference's on dyadic ones) — no regrouping. */
static void test_ordered_folds_over_row(void) {
    static const int64_t widths[] = {1, 3, 8, 16, 17, 37, 64};
    static const struct {
        const char *kernel;
        size_t zc;
    } kernels[] = {{"row_dot_ordered", 1}, {"row_fold", 2}};
    for (size_t k = 0; k < 2; k++)
        for (size_t n = 0; n < sizeof widths / sizeof *widths; n++) {
            tir_define d[] = {{"R", 3}, {"N", widths[n]}};
            tir_module *m = parse_test_kernel_with(ctx, kernels[k].kernel, d, 2);
            if (!m) continue;
            const tir_func *f = tir_module_func(m, 0);
            lowering whole = lowering_default();
            whole.choice.packet_width = 8;
            lower_result base;
            float zb[6] = {0}, zl[6] = {0};
            size_t bytes = 3 * kernels[k].zc * sizeof *zb;
            bool have = lower_ok(f, &whole, &base) && run_row_kernel(&base, 3, widths[n], zb, kernels[k].zc);
            for (uint32_t w = 1; w <= 16; w *= 2) {
                char label[80];
                snprintf(label, sizeof label, "%s N=%lld local W=%u", kernels[k].kernel, (long long)widths[n], w);
                check_local(label, f, w, run_config_default(w, true));
                lowering o = local_options(w);
                lower_result r;
                if (!have || !lower_ok(f, &o, &r)) continue;
                CHECK_MSG(run_row_kernel(&r, 3, widths[n], zl, kernels[k].zc) && !memcmp(zb, zl, bytes),
                          "%s: %.9g %.9g %.9g, whole program %.9g %.9g %.9g", label, zl[0], zl[1], zl[2], zb[0],
                          zb[1], zb[2]);
                lower_result_free(&r);
            }
            if (have) lower_result_free(&base);
            tir_module_destroy(m);
        }
}

/* A contraction's own distributed axis: attention's QKᵀ folds d while its
 * output is split over dv, so d is split too (realize/local.h
 * pick_contractions): decode (one query row) and prefill shapes with ragged
 * key blocks, D above and below W, against the reference at 5e-5.  A
 * kernel where d would share a value with D falls back to D alone. */
static const char shared_axes_text[] =
    "kernel @k<N=8, K=16>(%X: const view<f32>[X.0=N, X.1=K], %A: const view<f32>[A.0=1, A.1=K],\n"
    "    %B: const view<f32>[B.0=K, B.1=1], %Y: view<f32>[Y.0=N, Y.1=K], %Z: view<f32>[Z.0=1, Z.1=1]) {\n"
    "  parallel (%r: r=1) {\n"
    "    %c0 = const index 0\n"
    "    %y = load %X[%c0, %c0] tile [n=N, j=1]\n"
    "    store %Y[%c0, %c0] tile [n=N, j=1], %y\n"
    "    %x = load %X[%c0, %c0] tile [n=N, k=K]\n"
    "    %x2 = add %x, %x\n"
    "    store %Y[%c0, %c0] tile [n=N, k=K], %x2\n"
    "    %a = load %A[%c0, %c0] tile [m=1, k=K]\n"
    "    %b = load %B[%c0, %c0] tile [k=K, j=1]\n"
    "    %z = const tile<f32>[m=1, j=1] 0.0\n"
    "    %d = mma %a, %b, %z\n"
    "    store %Z[%c0, %c0] tile [m=1, j=1], %d\n"
    "  }\n"
    "}\n";

static void test_contraction_axes(void) {
    static const tir_define shapes[][9] = {
        {{"B", 1}, {"Hq", 4}, {"Hkv", 2}, {"Lq", 1}, {"Lk", 37}, {"D", 64}, {"Dv", 16}, {"bq", 1}, {"bk", 8}},
        {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"Lq", 1}, {"Lk", 19}, {"D", 5}, {"Dv", 33}, {"bq", 1}, {"bk", 4}},
        {{"B", 1}, {"Hq", 2}, {"Hkv", 2}, {"Lq", 6}, {"Lk", 21}, {"D", 24}, {"Dv", 8}, {"bq", 3}, {"bk", 8}},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        tir_module *m = parse_example(ctx, "attention", shapes[i], 9);
        if (!m) continue;
        for (uint32_t w = 4; w <= 16; w *= 2) {
            lowering o = local_options(w);
            lower_result r;
            if (!lower_ok(tir_module_func(m, 0), &o, &r)) continue;
            CHECK_STR_CONTAINS(r.realization, "local_axis=dv;");
            CHECK_STR_CONTAINS(r.realization, "local_contraction_axes=d=");
            lower_result_free(&r);
            char label[64];
            snprintf(label, sizeof label, "attention shape %zu local W=%u", i, w);
            run_config c = run_config_default(w, false);
            c.tolerance = 5e-5;
            check_local(label, tir_module_func(m, 0), w, c);
        }
        tir_module_destroy(m);
    }
    tir_module *m = parse_kernel(shared_axes_text, NULL, 0);
    if (!m) return;
    plan_admission a;
    plan_local l;
    CHECK(plan_admit(ctx, tir_module_func(m, 0), &a) == TILEC_OK);
    CHECK_MSG(plan_local_admit(tir_module_func(m, 0), &a, 8, &l) && l.dim_count == 1 && !strcmp(l.dims[0].dim->label, "n"),
              "shared axes: admitted %d with %u dims (%s)", l.refusal == PLAN_LOCAL_ADMITTED, l.dim_count, l.why);
    check_local("shared axes local W=8", tir_module_func(m, 0), 8, run_config_default(8, true));
    tir_module_destroy(m);
}

static void test_epilogue(void) {
    tir_module *m = parse_test_kernel(ctx, "gemm_epilogue");
    if (!m) return;
    for (uint32_t w = 1; w <= 16; w *= 2) {
        char label[64];
        snprintf(label, sizeof label, "matmul+bias+relu local W=%u", w);
        check_local(label, tir_module_func(m, 0), w, run_config_default(w, true));
    }
    tir_module_destroy(m);
}

/* Integer (i8 → i32, u16 → i64) and mixed-precision (f32 → f64) mma,
 * packet-local at every W, bitwise (integers wrap alike; dyadic floats). */
static void test_typed_matrix(void) {
    static const char *const types[][2] = {{"i8", "i32"}, {"u16", "i64"}, {"f32", "f64"}, {"i32", "f32"}};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        tir_module *m = typed_gemm_module(ctx, types[t][0], types[t][1], NULL, 0);
        if (!m) continue;
        for (uint32_t w = 1; w <= 16; w *= 2) {
            char label[64];
            snprintf(label, sizeof label, "gemm %s -> %s local W=%u", types[t][0], types[t][1], w);
            check_local(label, tir_module_func(m, 0), w, run_config_default(w, true));
        }
        tir_module_destroy(m);
    }
}

/* Matrix programs: D is the stored row's inner axis (n for gemm, dv for
 * attention); A, the scores and every tile without D are replicated, B and
 * the accumulator are split over the lanes, and each lane folds its own
 * outputs (no gathers: A elements are broadcasts).  Square, ragged in each
 * of M/N/K, K below one step, blocks larger than the matrix, a row block
 * wider than the packet with a partly valid last slot, one row (GEMV),
 * transposed B and attention; bitwise on dyadic inputs. */
static void test_matrix(void) {
    static const example_case cases[] = {
        {"gemm", {{0}}, 0, -1, -1},
        {"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 4}, {"BN", 16}, {"BK", 4}}, 6, -1, -1},
        {"gemm", {{"M", 16}, {"N", 35}, {"K", 3}, {"BM", 8}, {"BN", 37}, {"BK", 8}}, 6, -1, -1},
        {"gemm", {{"M", 5}, {"N", 7}, {"K", 9}, {"BM", 8}, {"BN", 32}, {"BK", 16}}, 6, -1, -1},
        {"gemm", {{"M", 1}, {"N", 70}, {"K", 33}, {"BM", 1}, {"BN", 32}, {"BK", 8}}, 6, -1, -1},
        {"gemm_bt", {{"M", 9}, {"N", 21}, {"K", 10}, {"BM", 4}, {"BN", 8}, {"BK", 4}}, 6, -1, -1},
        {"bmm", {{"BATCH", 2}, {"M", 9}, {"N", 37}, {"K", 5}, {"BN", 32}}, 5, -1, -1},
        {"attention", {{0}}, 0, -1, -1},
        {"attention", {{"Lq", 5}, {"Lk", 20}, {"Dv", 16}, {"bk", 8}}, 4, -1, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_module *m = parse_example(ctx, cases[i].name, cases[i].defines, cases[i].n_defines);
        if (!m) continue;
        bool exact = strcmp(cases[i].name, "attention") != 0; /* exp: tolerance */
        for (uint32_t w = 1; w <= 16; w *= 2) {
            char label[64];
            snprintf(label, sizeof label, "%s #%zu local W=%u", cases[i].name, i, w);
            run_config c = example_config(&cases[i], w, exact);
            if (!exact) c.tolerance = 5e-5;
            check_local(label, tir_module_func(m, 0), w, c);
        }
        /* Both contraction contracts: one fma per step (default) or a
         * separate multiply and add; bitwise either way on dyadic inputs. */
        for (int fused = 0; fused < 2 && exact; fused++) {
            lowering o = local_options(8);
            o.record.fused_mma = fused;
            lower_result r;
            if (!lower_ok(tir_module_func(m, 0), &o, &r)) continue;
            size_t fmas = count_insts(r.kernel, XIR_INST_ARITH, XIR_OP_FMA);
            CHECK_MSG(fused ? fmas > 0 : fmas == 0, "%s #%zu: %zu fma with fused_mma=%d", cases[i].name, i, fmas, fused);
            CHECK_STR_CONTAINS(r.realization, fused ? "mma_steps=fused;" : "mma_steps=separate;");
            char label[64];
            snprintf(label, sizeof label, "%s #%zu local W=8 fused_mma=%d", cases[i].name, i, fused);
            run_config c = example_config(&cases[i], 8, true);
            run_and_compare(label, tir_module_func(m, 0), &r, &c);
            lower_result_free(&r);
        }
        tir_module_destroy(m);
    }
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_refusals();
    test_realization();
    test_matrix_realization();
    test_reductions();
    test_mappings();
    test_matrix();
    test_contraction_over_row();
    test_ordered_folds_over_row();
    test_contraction_axes();
    test_typed_matrix();
    test_epilogue();
    test_examples();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
