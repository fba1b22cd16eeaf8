/* Reference interpreter, memory side: load snapshots under aliasing, bounds=zero
 * guards with negative origins and ragged edges, bounds=assume and scalar
 * out-of-range errors, masked loads, argument checking, budgets, allocation
 * failure, malformed IR, and a blocked GEMM on sentinel-padded buffers. */
#include "interp_fixture.h"

#include <stdint.h>

enum { PAD = 8 };
static const float SENTINEL = -12345.5f;

/* A float buffer of n elements with PAD sentinels on each side. */
typedef struct {
    float all[PAD + 64 + PAD];
    size_t n;
} padded;

static float *padded_init(padded *p, size_t n, float fill) {
    p->n = n;
    for (size_t i = 0; i < PAD + n + PAD; i++) p->all[i] = i < PAD || i >= PAD + n ? SENTINEL : fill;
    return p->all + PAD;
}

static bool pads_intact(const padded *p) {
    for (size_t i = 0; i < PAD; i++)
        if (p->all[i] != SENTINEL || p->all[PAD + p->n + i] != SENTINEL) return false;
    return true;
}

/* ---- aliasing ---- */

/* X (const) and Y are bound to the same memory.  Loads are snapshots taken at
 * their program point; later stores never change them. */
static void test_alias_snapshot(void) {
    kernel k = kernel_open("alias");
    tir_value *X = view1(&k, "X", TIR_F64, 4, true), *Y = view1(&k, "Y", TIR_F64, 4, false);
    tir_builder *b = kernel_body(&k);
    tir_space *s4 = sp1(&k, "i", 4);
    tir_value *t = load_all(&k, X, s4);
    tir_value *one = ci(&k, 1);
    tir_value *s = tir_load_elem(b, X, &one, NULL, NULL);
    store_all(&k, Y, tir_const(b, tir_type_tile(k.m, TIR_F64, s4), (tir_literal){TIR_LIT_FLOAT, {.f = 9.0}}));
    put(&k, Y, 1, tir_const_float(b, TIR_F64, 9.0));
    store_all(&k, Y, tir_ew2(b, TIR_EW_ADD, t, tir_const_float(b, TIR_F64, 1))); /* the snapshot, not 9s */
    put(&k, Y, 0, tir_ew2(b, TIR_EW_MUL, s, tir_const_float(b, TIR_F64, 2)));
    /* a load after the stores sees them */
    tir_value *three = ci(&k, 3);
    put(&k, Y, 3, tir_ew2(b, TIR_EW_MUL, tir_load_elem(b, X, &three, NULL, NULL), tir_const_float(b, TIR_F64, 10)));
    double mem[4] = {1, 2, 3, 4};
    tir_buffer args[2] = {buf(mem, sizeof mem), buf(mem, sizeof mem)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    CHECK(mem[0] == 4 && mem[1] == 3 && mem[2] == 4 && mem[3] == 50);
    kernel_close(&k);
}

/* ---- bounds ---- */

static void test_bounds_zero(void) {
    kernel k = kernel_open("zero");
    tir_value *V = view2(&k, "V", TIR_F32, 5, 7, true), *O = view2(&k, "O", TIR_F32, 4, 4, false),
              *P = view2(&k, "P", TIR_F32, 4, 4, false), *W = view2(&k, "W", TIR_F32, 5, 7, false);
    tir_builder *b = kernel_body(&k);
    tir_space *t44 = sp2(&k, tir_dim_new(k.m, "r"), 4, tir_dim_new(k.m, "c"), 4);
    /* origin (-2, 4) given as i32: rows -2..1, columns 4..7 */
    tir_value *org[2] = {tir_const_int(b, TIR_I32, -2), tir_const_int(b, TIR_I32, 4)};
    store_all(&k, O, tir_load_tile(b, V, org, t44, TIR_BOUNDS_ZERO, tir_const_float(b, TIR_F32, -1)));
    /* no fill: zeros; an origin entirely outside */
    tir_value *far[2] = {ci(&k, 5), ci(&k, -100)};
    tir_value *zeros = tir_load_tile(b, V, far, t44, TIR_BOUNDS_ZERO, NULL);
    store_all(&k, P, tir_ew2(b, TIR_EW_ADD, zeros, tir_load_tile(b, V, org, t44, TIR_BOUNDS_ZERO, NULL)));
    /* ragged stores: only in-bounds elements are written */
    tir_value *three = tir_const(b, tir_type_tile(k.m, TIR_F32, t44), (tir_literal){TIR_LIT_FLOAT, {.f = 3.0}});
    tir_value *at1[2] = {ci(&k, 3), ci(&k, 5)}, *at2[2] = {ci(&k, -2), ci(&k, -3)};
    tir_store_tile(b, W, at1, three, TIR_BOUNDS_ZERO);
    tir_store_tile(b, W, at2, three, TIR_BOUNDS_ZERO);
    padded pv, po, pp, pw;
    float *v = padded_init(&pv, 35, 0), *o = padded_init(&po, 16, NAN), *p = padded_init(&pp, 16, NAN),
          *w = padded_init(&pw, 35, 0);
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 7; c++) v[r * 7 + c] = (float)(r * 10 + c);
    tir_buffer args[4] = {buf(v, 35 * 4), buf(o, 16 * 4), buf(p, 16 * 4), buf(w, 35 * 4)};
    CHECK(run(&k, 4, args) == TILEC_OK);
    for (int e0 = 0; e0 < 4; e0++)
        for (int e1 = 0; e1 < 4; e1++) {
            int r = e0 - 2, c = e1 + 4;
            bool in = r >= 0 && r < 5 && c < 7;
            CHECK_MSG(o[e0 * 4 + e1] == (in ? (float)(r * 10 + c) : -1.0f), "fill at (%d,%d)", e0, e1);
            CHECK_MSG(same_bits(p[e0 * 4 + e1], in ? (double)(r * 10 + c) : 0.0), "zero at (%d,%d)", e0, e1);
        }
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 7; c++) {
            bool written = (r >= 3 && c >= 5) || (r <= 1 && c == 0);
            CHECK_MSG(w[r * 7 + c] == (written ? 3.0f : 0.0f), "store at (%d,%d)", r, c);
        }
    CHECK(pads_intact(&pv) && pads_intact(&po) && pads_intact(&pp) && pads_intact(&pw));
    kernel_close(&k);
}

/* bounds=assume: in-bounds works; out of bounds is a runtime error raised
 * before any element is touched. */
static void test_bounds_assume(void) {
    for (int c = 0; c < 3; c++) {
        kernel k = kernel_open("assume");
        tir_value *V = view1(&k, "V", TIR_F32, 6, true), *W = view1(&k, "W", TIR_F32, 6, false);
        tir_builder *b = kernel_body(&k);
        tir_space *t4 = sp1(&k, "i", 4);
        tir_value *in_org = ci(&k, 2), *out_org = ci(&k, c == 0 ? 2 : 3);
        tir_value *t = tir_load_tile(b, V, c == 1 ? &out_org : &in_org, t4, TIR_BOUNDS_ASSUME, NULL);
        tir_store_tile(b, W, c == 2 ? &out_org : &in_org, t, TIR_BOUNDS_ASSUME);
        padded pv, pw;
        float *v = padded_init(&pv, 6, 1.25f), *w = padded_init(&pw, 6, 0);
        tir_buffer args[2] = {buf(v, 6 * 4), buf(w, 6 * 4)};
        CHECK(tir_builder_status(b) == TILEC_OK);
        tilec_status st = tir_interpret(ctx, k.f, 2, args);
        if (c == 0) {
            CHECK(st == TILEC_OK && w[1] == 0 && w[2] == 1.25f && w[5] == 1.25f);
        } else {
            expect_error(st, TILEC_E_RUNTIME, "TIR-I07");
            for (int i = 0; i < 6; i++) CHECK(w[i] == 0);
        }
        CHECK(pads_intact(&pv) && pads_intact(&pw));
        kernel_close(&k);
    }
}

/* Scalar loads: a masked load reads only when the predicate holds (so an
 * out-of-range index under a false mask is fine); unguarded out-of-range
 * scalar loads and stores are runtime errors. */
static void test_scalar_access(void) {
    kernel k = kernel_open("scalar");
    tir_value *V = view1(&k, "V", TIR_I32, 4, true), *O = view1(&k, "O", TIR_I32, 3, false);
    tir_builder *b = kernel_body(&k);
    tir_value *two = ci(&k, 2), *far = ci(&k, 100);
    tir_value *fallback = tir_const_int(b, TIR_I32, -7);
    put(&k, O, 0, tir_load_elem(b, V, &two, tir_const_bool(b, true), fallback));
    put(&k, O, 1, tir_load_elem(b, V, &far, tir_const_bool(b, false), fallback));
    tir_value *pred = tir_ew2(b, TIR_EW_LT, far, ci(&k, 4)); /* index computed guard: false */
    put(&k, O, 2, tir_load_elem(b, V, &far, pred, fallback));
    int32_t v[4] = {10, 11, 12, 13}, o[3] = {0};
    tir_buffer args[2] = {buf(v, sizeof v), buf(o, sizeof o)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    CHECK(o[0] == 12 && o[1] == -7 && o[2] == -7);
    kernel_close(&k);
    for (int c = 0; c < 3; c++) {
        k = kernel_open("scalar_oob");
        V = view1(&k, "V", TIR_I32, 4, true);
        O = view1(&k, "O", TIR_I32, 3, false);
        b = kernel_body(&k);
        tir_value *bad = ci(&k, c == 0 ? 4 : -1), *zero = ci(&k, 0);
        if (c < 2) put(&k, O, 0, tir_load_elem(b, V, &bad, NULL, NULL));
        else tir_store_elem(b, O, &bad, tir_load_elem(b, V, &zero, NULL, NULL));
        o[0] = 99;
        CHECK(tir_builder_status(b) == TILEC_OK);
        expect_error(tir_interpret(ctx, k.f, 2, args), TILEC_E_RUNTIME, "TIR-I08");
        CHECK(o[0] == 99);
        kernel_close(&k);
    }
}

/* Narrow and bool element types round-trip through memory. */
static void test_element_types(void) {
    kernel k = kernel_open("types");
    tir_value *B = view1(&k, "B", TIR_BOOL, 3, false), *U = view1(&k, "U", TIR_U16, 3, false),
              *I = view1(&k, "I", TIR_I8, 3, false);
    tir_builder *b = kernel_body(&k);
    tir_space *s3 = sp1(&k, "i", 3);
    store_all(&k, B, tir_ew1(b, TIR_EW_NOT, load_all(&k, B, s3)));
    store_all(&k, U, tir_ew2(b, TIR_EW_ADD, load_all(&k, U, s3), tir_const_int(b, TIR_U16, 65535)));
    store_all(&k, I, tir_ew1(b, TIR_EW_NEG, load_all(&k, I, s3)));
    uint8_t bv[3] = {0, 1, 2}; /* any nonzero byte is true */
    uint16_t uv[3] = {0, 1, 65535};
    int8_t iv[3] = {-128, 5, 127};
    tir_buffer args[3] = {buf(bv, sizeof bv), buf(uv, sizeof uv), buf(iv, sizeof iv)};
    CHECK(run(&k, 3, args) == TILEC_OK);
    CHECK(bv[0] == 1 && bv[1] == 0 && bv[2] == 0);
    CHECK(uv[0] == 65535 && uv[1] == 0 && uv[2] == 65534);
    CHECK(iv[0] == -128 && iv[1] == -5 && iv[2] == -127);
    kernel_close(&k);
}

/* ---- arguments, budgets, failures ---- */

static void test_arguments(void) {
    kernel k = kernel_open("args");
    tir_value *X = view1(&k, "X", TIR_F32, 4, true), *Y = view1(&k, "Y", TIR_F32, 4, false);
    tir_builder *b = kernel_body(&k);
    store_all(&k, Y, tir_ew2(b, TIR_EW_MUL, load_all(&k, X, sp1(&k, "i", 4)), tir_const_float(b, TIR_F32, 2)));
    float x[4] = {1, 2, 3, 4}, y[4] = {0};
    tir_buffer good[2] = {buf(x, sizeof x), buf(y, sizeof y)};
    CHECK(tir_builder_status(b) == TILEC_OK);
    expect_error(tir_interpret(ctx, k.f, 1, good), TILEC_E_ARG, "TIR-I01");
    expect_error(tir_interpret(ctx, k.f, 3, good), TILEC_E_ARG, "TIR-I01");
    expect_error(tir_interpret(ctx, k.f, 2, NULL), TILEC_E_RUNTIME, "TIR-I02");
    expect_error(tir_interpret(ctx, NULL, 2, good), TILEC_E_ARG, "TIR-I01");
    CHECK(tir_interpret(NULL, k.f, 2, good) == TILEC_E_ARG);
    tir_buffer null_data[2] = {buf(x, sizeof x), buf(NULL, sizeof y)};
    expect_error(tir_interpret(ctx, k.f, 2, null_data), TILEC_E_RUNTIME, "TIR-I02");
    tir_buffer short_buf[2] = {buf(x, sizeof x - 1), buf(y, sizeof y)};
    tilec_status st = tir_interpret(ctx, k.f, 2, short_buf);
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, "%X");
    expect_error(st, TILEC_E_RUNTIME, "TIR-I03");
    CHECK(y[0] == 0); /* nothing ran */
    /* the context stays usable */
    CHECK(tir_interpret(ctx, k.f, 2, good) == TILEC_OK && tilec_diag_count(ctx) == 0);
    CHECK(y[0] == 2 && y[3] == 8);
    kernel_close(&k);
}

static void test_budgets(void) {
    /* one tile above the per-tile limit */
    kernel k = kernel_open("big_tile");
    view1(&k, "O", TIR_F32, 1, false);
    tir_builder *b = kernel_body(&k);
    tir_lib_zeros(b, TIR_F32, sp2(&k, tir_dim_new(k.m, "a"), 1 << 13, tir_dim_new(k.m, "b"), 1 << 12));
    float o = 0;
    tir_buffer arg = buf(&o, sizeof o);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tilec_status st = tir_interpret(ctx, k.f, 1, &arg);
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, 0)->message, "16777216");
    expect_error(st, TILEC_E_BUDGET, "TIR-I04");
    kernel_close(&k);
    /* many tiles at the limit: the total is refused before anything is allocated */
    k = kernel_open("many_tiles");
    view1(&k, "O", TIR_F32, 1, false);
    b = kernel_body(&k);
    tir_space *big = sp2(&k, tir_dim_new(k.m, "a"), 1 << 12, tir_dim_new(k.m, "b"), 1 << 12);
    for (int i = 0; i < 5; i++) tir_lib_zeros(b, TIR_F32, big);
    CHECK(tir_builder_status(b) == TILEC_OK);
    expect_error(tir_interpret(ctx, k.f, 1, &arg), TILEC_E_BUDGET, "TIR-I04");
    kernel_close(&k);
}

/* Every allocation failure is reported as TIR-I05 and leaks nothing (ASan);
 * the run eventually succeeds once enough allocations are allowed. */
static void test_allocation_failure(void) {
    kernel k = kernel_open("oom");
    tir_value *X = view1(&k, "X", TIR_F32, 4, true), *Y = view1(&k, "Y", TIR_F32, 4, false);
    tir_builder *b = kernel_body(&k);
    tir_value *t = load_all(&k, X, sp1(&k, "i", 4));
    tir_op *loop = tir_region_begin(b, TIR_OP_SERIAL, sp1(&k, "t", 2), NULL, 1, &t);
    tir_value *next = tir_ew2(b, TIR_EW_ADD, tir_region_carry(loop, 0), tir_region_carry(loop, 0));
    tir_region_end(b, loop, 1, &next);
    store_all(&k, Y, tir_op_result(loop, 0));
    float x[4] = {1, 2, 3, 4}, y[4] = {0};
    tir_buffer args[2] = {buf(x, sizeof x), buf(y, sizeof y)};
    CHECK(tir_builder_status(b) == TILEC_OK);
    bool succeeded = false;
    for (long n = 0; n < 64 && !succeeded; n++) {
        tilec_context_fail_allocation_after(ctx, n);
        tilec_status st = tir_interpret(ctx, k.f, 2, args);
        tilec_context_fail_allocation_after(ctx, -1);
        if (st == TILEC_OK) succeeded = true;
        else expect_error(st, TILEC_E_NOMEM, "TIR-I05");
    }
    CHECK(succeeded && y[0] == 4 && y[3] == 16);
    kernel_close(&k);
}

/* IR broken through the mutation API is refused, not executed. */
static void test_malformed(void) {
    kernel k = kernel_open("broken");
    tir_value *Y = view1(&k, "Y", TIR_F32, 1, false);
    tir_builder *b = kernel_body(&k);
    tir_value *c = tir_const_float(b, TIR_F32, 1);
    put(&k, Y, 0, c);
    tir_op_detach(tir_value_def(c)); /* the store now reads an undefined value */
    float y = 0;
    tir_buffer arg = buf(&y, sizeof y);
    expect_error(tir_interpret(ctx, k.f, 1, &arg), TILEC_E_VERIFY, "TIR-I06");
    CHECK(y == 0);
    kernel_close(&k);

    /* A literal of unknown kind (the builder refuses one, TIR-B08): refused
     * while preparing, where it once reached an assert. */
    k = kernel_open("bad_literal");
    Y = view1(&k, "Y", TIR_F32, 1, false);
    b = kernel_body(&k);
    c = tir_const_float(b, TIR_F32, 1);
    put(&k, Y, 0, c);
    tir_value_def(c)->literal.kind = (tir_literal_kind)7;
    expect_error(tir_interpret(ctx, k.f, 1, &arg), TILEC_E_VERIFY, "TIR-I06");
    CHECK(y == 0);
    kernel_close(&k);
}

/* ---- a blocked GEMM ---- */

/* C[M,N] = A[M,K]·B[K,N] with BMxBN tiles, a pipeline over K in BK steps and
 * ragged edges on every axis; compared bitwise with the sequential FP64 sum
 * rounded to f32 (the order the interpreter promises). */
static void test_gemm(void) {
    enum { M = 7, N = 9, K = 5, BM = 4, BN = 4, BK = 2 };
    kernel k = kernel_open("gemm");
    tir_value *A = view2(&k, "A", TIR_F32, M, K, true), *B = view2(&k, "B", TIR_F32, K, N, true),
              *C = view2(&k, "C", TIR_F32, M, N, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *gm = tir_dim_new(k.m, "gm"), *gn = tir_dim_new(k.m, "gn"), *m = tir_dim_new(k.m, "m"),
            *n = tir_dim_new(k.m, "n"), *kd = tir_dim_new(k.m, "k");
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, sp2(&k, gm, (M + BM - 1) / BM, gn, (N + BN - 1) / BN), NULL, 0,
                                   NULL);
    tir_value *m0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(par, 0), ci(&k, BM));
    tir_value *n0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(par, 1), ci(&k, BN));
    tir_value *z = tir_lib_zeros(b, TIR_F32, sp2(&k, m, BM, n, BN));
    tir_region_opts opts = {.stages = 2};
    tir_op *pipe = tir_region_begin(b, TIR_OP_PIPELINE, sp1(&k, "kt", (K + BK - 1) / BK), &opts, 1, &z);
    tir_stage(b, "load");
    tir_value *k0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(pipe, 0), ci(&k, BK));
    tir_value *ao[2] = {m0, k0}, *bo[2] = {k0, n0};
    tir_value *a = tir_load_tile(b, A, ao, sp2(&k, m, BM, kd, BK), TIR_BOUNDS_ZERO, NULL);
    tir_value *bt = tir_load_tile(b, B, bo, sp2(&k, kd, BK, n, BN), TIR_BOUNDS_ZERO, NULL);
    tir_stage(b, "compute");
    tir_value *acc = tir_mma(b, a, bt, tir_region_carry(pipe, 0), true);
    tir_region_end(b, pipe, 1, &acc);
    tir_value *co[2] = {m0, n0};
    tir_store_tile(b, C, co, tir_op_result(pipe, 0), TIR_BOUNDS_ZERO);
    tir_region_end(b, par, 0, NULL);
    padded pa, pb, pc;
    float *av = padded_init(&pa, M * K, 0), *bv = padded_init(&pb, K * N, 0), *cv = padded_init(&pc, M * N, NAN);
    for (int i = 0; i < M * K; i++) av[i] = (float)((i * 37) % 11) * 0.1f - 0.45f;
    for (int i = 0; i < K * N; i++) bv[i] = (float)((i * 53) % 13) * 0.3f - 1.7f;
    tir_buffer args[3] = {buf(av, M * K * 4), buf(bv, K * N * 4), buf(cv, M * N * 4)};
    CHECK(run(&k, 3, args) == TILEC_OK);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int kk = 0; kk < K; kk++) {
                double prod = (double)av[i * K + kk] * (double)bv[kk * N + j];
                s = s + prod;
            }
            CHECK_MSG(cv[i * N + j] == (float)s, "C[%d][%d] = %.9g, want %.9g", i, j, cv[i * N + j], (float)s);
        }
    CHECK(pads_intact(&pa) && pads_intact(&pb) && pads_intact(&pc));
    kernel_close(&k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_alias_snapshot();
    test_bounds_zero();
    test_bounds_assume();
    test_scalar_access();
    test_element_types();
    test_arguments();
    test_budgets();
    test_allocation_failure();
    test_malformed();
    test_gemm();
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
