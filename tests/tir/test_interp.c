/* Reference interpreter: value semantics (integers, casts, floats), broadcasting,
 * extract, mma, maps, loops with carries and the reduction orders, checked
 * bitwise against hand-computed results.  Memory-side behaviour (bounds,
 * aliasing, arguments, budgets) is in test_interp_memory.c. */
#include "interp_fixture.h"

#include <float.h>
#include <stdint.h>

/* ---- reductions ---- */

typedef enum { STATE_MINUS_X, X_MINUS_STATE, DIGITS } reduce_body;

static tir_value *combine(tir_builder *b, reduce_body body, tir_value *state, tir_value *e) {
    if (body == STATE_MINUS_X) return tir_ew2(b, TIR_EW_SUB, state, e);
    if (body == X_MINUS_STATE) return tir_ew2(b, TIR_EW_SUB, e, state);
    return tir_ew2(b, TIR_EW_ADD, tir_ew2(b, TIR_EW_MUL, state, tir_const_float(b, TIR_F64, 10)), e);
}

/* Reduces x (rows × cols, f64) over a reduce domain of the same shape with seed
 * 0 and the given body and policy; rows == 0 means a 1-D x of `cols`. */
static double reduce_run(const double *x, uint64_t rows, uint64_t cols, tir_reduction_policy policy, reduce_body body) {
    kernel k = kernel_open("r");
    bool two_d = rows != 0;
    tir_value *X = two_d ? view2(&k, "X", TIR_F64, rows, cols, true) : view1(&k, "X", TIR_F64, cols, true);
    tir_value *O = view1(&k, "O", TIR_F64, 1, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *i = tir_dim_new(k.m, "i"), *j = tir_dim_new(k.m, "j"), *ri = tir_dim_new(k.m, "ri"),
            *rj = tir_dim_new(k.m, "rj");
    tir_value *t = load_all(&k, X, two_d ? sp2(&k, i, rows, j, cols) : tir_space_make(k.m, 1, &j, &cols));
    tir_value *seed = tir_const_float(b, TIR_F64, 0);
    tir_region_opts opts = {.policy = policy};
    tir_op *r = tir_region_begin(b, TIR_OP_REDUCE, two_d ? sp2(&k, ri, rows, rj, cols) : tir_space_make(k.m, 1, &rj, &cols),
                                 &opts, 1, &seed);
    tir_value *coords[2] = {tir_region_coord(r, 0), tir_region_coord(r, 1)};
    tir_value *e = tir_extract(b, t, two_d ? 2 : 1, coords);
    tir_value *next = combine(b, body, tir_region_carry(r, 0), e);
    tir_region_end(b, r, 1, &next);
    put(&k, O, 0, tir_op_result(r, 0));
    double in[16], out = NAN;
    uint64_t n = (two_d ? rows : 1) * cols;
    memcpy(in, x, n * sizeof *x);
    tir_buffer args[2] = {buf(in, n * sizeof *in), buf(&out, sizeof out)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    kernel_close(&k);
    return out;
}

static void test_fold_policies(void) {
    const double x[3] = {1, 2, 3};
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_FOLD_LEFT, STATE_MINUS_X) == -6.0);
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_FOLD_RIGHT, X_MINUS_STATE) == 2.0);
    /* The policy never swaps operands: fold_right of state - x is (0-3-2-1). */
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_FOLD_RIGHT, STATE_MINUS_X) == -6.0);
    /* Source order for the other policies, reverse order for fold_right. */
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_FOLD_LEFT, DIGITS) == 123.0);
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_ORDERED_TREE, DIGITS) == 123.0);
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_UNORDERED_TREE, DIGITS) == 123.0);
    CHECK(reduce_run(x, 0, 3, TIR_REDUCE_FOLD_RIGHT, DIGITS) == 321.0);
    /* A 2-D domain is visited lexicographically (last axis fastest). */
    const double y[6] = {1, 2, 3, 4, 5, 6};
    CHECK(reduce_run(y, 2, 3, TIR_REDUCE_FOLD_LEFT, DIGITS) == 123456.0);
    CHECK(reduce_run(y, 2, 3, TIR_REDUCE_UNORDERED_TREE, DIGITS) == 123456.0);
    CHECK(reduce_run(y, 2, 3, TIR_REDUCE_FOLD_RIGHT, DIGITS) == 654321.0);
    /* Zero trips: the seed. */
    CHECK(same_bits(reduce_run(x, 0, 0, TIR_REDUCE_FOLD_RIGHT, DIGITS), 0.0));
}

/* ---- loops and carries ---- */

/* acc = 7; serial t in [0, trips): acc += t + 1; plus a tile carry doubled each
 * trip from 1.5.  Returns acc and stores the tile to *tile_out. */
static int64_t loop_run(uint64_t trips, double *tile_out) {
    kernel k = kernel_open("loop");
    tir_value *O = view1(&k, "O", TIR_I64, 1, false), *T = view1(&k, "T", TIR_F64, 3, false);
    tir_builder *b = kernel_body(&k);
    tir_space *tile_space = sp1(&k, "n", 3);
    tir_value *init[2] = {tir_const_int(b, TIR_I64, 7),
                          tir_const(b, tir_type_tile(k.m, TIR_F64, tile_space), (tir_literal){TIR_LIT_FLOAT, {.f = 1.5}})};
    tir_op *loop = tir_region_begin(b, TIR_OP_SERIAL, sp1(&k, "t", trips), NULL, 2, init);
    tir_value *t = tir_cast(b, tir_region_coord(loop, 0), TIR_I64);
    tir_value *next[2] = {
        tir_ew2(b, TIR_EW_ADD, tir_region_carry(loop, 0), tir_ew2(b, TIR_EW_ADD, t, tir_const_int(b, TIR_I64, 1))),
        tir_ew2(b, TIR_EW_MUL, tir_region_carry(loop, 1), tir_const_float(b, TIR_F64, 2))};
    tir_region_end(b, loop, 2, next);
    put(&k, O, 0, tir_op_result(loop, 0));
    store_all(&k, T, tir_op_result(loop, 1));
    int64_t acc = -1;
    tir_buffer args[2] = {buf(&acc, sizeof acc), buf(tile_out, 3 * sizeof *tile_out)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    kernel_close(&k);
    return acc;
}

static void test_loop_trips(void) {
    double t[3];
    CHECK(loop_run(0, t) == 7 && t[0] == 1.5 && t[2] == 1.5);
    CHECK(loop_run(1, t) == 8 && t[1] == 3.0);
    CHECK(loop_run(5, t) == 22 && t[0] == 48.0 && t[2] == 48.0);
}

/* Carries are assigned simultaneously: (a, b) <- (b, a + b), explicitly, and
 * the capture form old = a; a = a + b; b = old. */
static void test_swap_carries(void) {
    kernel k = kernel_open("swap");
    tir_value *O = view1(&k, "O", TIR_I32, 6, false);
    tir_builder *b = kernel_body(&k);
    tir_value *init[2] = {tir_const_int(b, TIR_I32, 1), tir_const_int(b, TIR_I32, 2)};
    tir_op *fib = tir_region_begin(b, TIR_OP_PIPELINE, sp1(&k, "t", 5), NULL, 2, init);
    tir_stage(b, "only"); /* a no-op */
    tir_value *next[2] = {tir_region_carry(fib, 1), tir_ew2(b, TIR_EW_ADD, tir_region_carry(fib, 0), tir_region_carry(fib, 1))};
    tir_region_end(b, fib, 2, next);
    put(&k, O, 0, tir_op_result(fib, 0));
    put(&k, O, 1, tir_op_result(fib, 1));
    /* pure swap, three trips */
    tir_op *sw = tir_region_begin(b, TIR_OP_SERIAL, sp1(&k, "u", 3), NULL, 2, init);
    tir_value *swapped[2] = {tir_region_carry(sw, 1), tir_region_carry(sw, 0)};
    tir_region_end(b, sw, 2, swapped);
    put(&k, O, 2, tir_op_result(sw, 0));
    put(&k, O, 3, tir_op_result(sw, 1));
    /* capture */
    tir_var *a = tir_var_new(b, init[0]), *bv = tir_var_new(b, init[1]);
    tir_op *cap = tir_capture_begin(b, TIR_OP_SERIAL, sp1(&k, "v", 5), NULL);
    tir_value *old = tir_var_get(b, a);
    tir_var_set(b, a, tir_ew2(b, TIR_EW_ADD, tir_var_get(b, a), tir_var_get(b, bv)));
    tir_var_set(b, bv, old);
    tir_capture_end(b, cap);
    put(&k, O, 4, tir_var_get(b, a));
    put(&k, O, 5, tir_var_get(b, bv));
    int32_t out[6] = {0};
    tir_buffer arg = buf(out, sizeof out);
    CHECK(run(&k, 1, &arg) == TILEC_OK);
    CHECK(out[0] == 13 && out[1] == 21);
    CHECK(out[2] == 2 && out[3] == 1);
    CHECK(out[4] == 18 && out[5] == 11);
    kernel_close(&k);
}

/* ---- integers ---- */

static void test_integer_semantics(void) {
    kernel k = kernel_open("ints");
    tir_value *O32 = view1(&k, "O32", TIR_I32, 13, false), *O64 = view1(&k, "O64", TIR_I64, 5, false),
              *O8 = view1(&k, "O8", TIR_U8, 5, false), *OU = view1(&k, "OU", TIR_U32, 3, false),
              *OB = view1(&k, "OB", TIR_BOOL, 3, false);
    tir_builder *b = kernel_body(&k);
#define I32(v) tir_const_int(b, TIR_I32, (v))
    int64_t cases[13][3] = {
        {TIR_EW_DIV, 7, 0},          {TIR_EW_MOD, 7, 0},  {TIR_EW_DIV, INT32_MIN, -1}, {TIR_EW_MOD, INT32_MIN, -1},
        {TIR_EW_ADD, INT32_MAX, 1},  {TIR_EW_DIV, -7, 2}, {TIR_EW_MOD, -7, 2},         {TIR_EW_MUL, 65536, 65536},
        {TIR_EW_NEG, INT32_MIN, 0},  {TIR_EW_ABS, INT32_MIN, 0}, {TIR_EW_MIN, -1, 1},  {TIR_EW_MAX, -1, 1},
        {TIR_EW_MOD, 7, -3}};
    for (int c = 0; c < 13; c++) {
        tir_ew_op op = (tir_ew_op)cases[c][0];
        tir_value *v = tir_ew_arity(op) == 1 ? tir_ew1(b, op, I32(cases[c][1]))
                                             : tir_ew2(b, op, I32(cases[c][1]), I32(cases[c][2]));
        put(&k, O32, c, v);
    }
#undef I32
#define I64(v) tir_const_int(b, TIR_I64, (v))
    put(&k, O64, 0, tir_ew2(b, TIR_EW_DIV, I64(INT64_MIN), I64(-1)));
    put(&k, O64, 1, tir_ew2(b, TIR_EW_MOD, I64(INT64_MIN), I64(-1)));
    put(&k, O64, 2, tir_ew2(b, TIR_EW_ADD, I64(INT64_MAX), I64(1)));
    put(&k, O64, 3, tir_ew2(b, TIR_EW_MUL, I64(INT64_C(1) << 62), I64(4)));
    /* Index arithmetic is i64 arithmetic. */
    put(&k, O64, 4, tir_cast(b, tir_ew2(b, TIR_EW_ADD, ci(&k, INT64_MAX), ci(&k, 2)), TIR_I64));
#undef I64
#define U8(v) tir_const_int(b, TIR_U8, (v))
    put(&k, O8, 0, tir_ew2(b, TIR_EW_ADD, U8(200), U8(100)));
    put(&k, O8, 1, tir_ew2(b, TIR_EW_SUB, U8(0), U8(1)));
    put(&k, O8, 2, tir_ew2(b, TIR_EW_DIV, U8(200), U8(0)));
    put(&k, O8, 3, tir_ew2(b, TIR_EW_MAX, U8(200), U8(100))); /* unsigned order */
    put(&k, O8, 4, tir_ew2(b, TIR_EW_MOD, U8(200), U8(7)));
#undef U8
#define U32(v) tir_const_int(b, TIR_U32, (v))
    put(&k, OU, 0, tir_ew2(b, TIR_EW_SUB, U32(0), U32(1)));
    put(&k, OU, 1, tir_ew2(b, TIR_EW_DIV, U32(UINT32_MAX), U32(2)));
    put(&k, OU, 2, tir_ew2(b, TIR_EW_MUL, U32(65536), U32(65537)));
    put(&k, OB, 0, tir_ew2(b, TIR_EW_LT, U32(UINT32_MAX), U32(1)));
    put(&k, OB, 1, tir_ew2(b, TIR_EW_LT, tir_const_int(b, TIR_I32, -1), tir_const_int(b, TIR_I32, 1)));
    put(&k, OB, 2, tir_ew2(b, TIR_EW_AND, tir_const_bool(b, true), tir_ew1(b, TIR_EW_NOT, tir_const_bool(b, false))));
#undef U32
    int32_t o32[13];
    int64_t o64[5];
    uint8_t o8[5], ob[3] = {7, 7, 7};
    uint32_t ou[3];
    tir_buffer args[5] = {buf(o32, sizeof o32), buf(o64, sizeof o64), buf(o8, sizeof o8), buf(ou, sizeof ou),
                          buf(ob, sizeof ob)};
    CHECK(run(&k, 5, args) == TILEC_OK);
    int32_t want32[13] = {0, 0, INT32_MIN, 0, INT32_MIN, -3, -1, 0, INT32_MIN, INT32_MIN, -1, 1, 1};
    for (int c = 0; c < 13; c++) CHECK_MSG(o32[c] == want32[c], "i32 case %d: got %d, want %d", c, o32[c], want32[c]);
    CHECK(o64[0] == INT64_MIN && o64[1] == 0 && o64[2] == INT64_MIN && o64[3] == 0 && o64[4] == INT64_MIN + 1);
    CHECK(o8[0] == 44 && o8[1] == 255 && o8[2] == 0 && o8[3] == 200 && o8[4] == 4);
    CHECK(ou[0] == UINT32_MAX && ou[1] == 2147483647u && ou[2] == 65536u);
    CHECK(ob[0] == 0 && ob[1] == 1 && ob[2] == 1);
    kernel_close(&k);
}

/* ---- casts and floating point ---- */

static void test_casts(void) {
    kernel k = kernel_open("casts");
    tir_value *OI = view1(&k, "OI", TIR_I32, 6, false), *O8 = view1(&k, "O8", TIR_U8, 4, false),
              *OF = view1(&k, "OF", TIR_F64, 5, false), *OS = view1(&k, "OS", TIR_F32, 2, false),
              *OB = view1(&k, "OB", TIR_BOOL, 4, false), *OL = view1(&k, "OL", TIR_U64, 2, false);
    tir_builder *b = kernel_body(&k);
#define F64(v) tir_const_float(b, TIR_F64, (v))
    double to_i32[6] = {2.7, -2.7, NAN, 1e10, -1e10, -0.5};
    for (int c = 0; c < 6; c++) put(&k, OI, c, tir_cast(b, F64(to_i32[c]), TIR_I32));
    put(&k, O8, 0, tir_cast(b, F64(-5), TIR_U8));
    put(&k, O8, 1, tir_cast(b, F64(300), TIR_U8));
    put(&k, O8, 2, tir_cast(b, tir_const_int(b, TIR_I32, 257), TIR_U8));
    put(&k, O8, 3, tir_cast(b, tir_const_int(b, TIR_I32, -1), TIR_U8));
    /* f32: explicit casts and f32 constants round; the value stays FP64 otherwise. */
    put(&k, OF, 0, tir_cast(b, tir_cast(b, F64(0.1), TIR_F32), TIR_F64));
    put(&k, OF, 1, tir_cast(b, tir_const_float(b, TIR_F32, 0.1), TIR_F64));
    put(&k, OF, 2, tir_cast(b, tir_const_int(b, TIR_I64, INT64_C(9007199254740993)), TIR_F64));
    put(&k, OF, 3, tir_cast(b, tir_const_bool(b, true), TIR_F64));
    put(&k, OF, 4, tir_cast(b, tir_const_int(b, TIR_U64, -1), TIR_F64)); /* UINT64_MAX */
    /* int -> f32 rounds once: 2^54 + 2^30 + 1 -> 2^54 + 2^31 (via f64 it would be 2^54) */
    put(&k, OS, 0, tir_cast(b, tir_const_int(b, TIR_I64, (INT64_C(1) << 54) + (INT64_C(1) << 30) + 1), TIR_F32));
    put(&k, OS, 1, tir_cast(b, F64(1e300), TIR_F32));
    put(&k, OB, 0, tir_cast(b, tir_const_int(b, TIR_I32, 256), TIR_BOOL));
    put(&k, OB, 1, tir_cast(b, F64(NAN), TIR_BOOL));
    put(&k, OB, 2, tir_cast(b, F64(-0.0), TIR_BOOL));
    put(&k, OB, 3, tir_cast(b, F64(0.25), TIR_BOOL));
    put(&k, OL, 0, tir_cast(b, F64(1e30), TIR_U64));
    put(&k, OL, 1, tir_cast(b, tir_const_int(b, TIR_I8, -2), TIR_U64));
#undef F64
    int32_t oi[6];
    uint8_t o8[4], ob[4];
    double of[5];
    float os[2];
    uint64_t ol[2];
    tir_buffer args[6] = {buf(oi, sizeof oi), buf(o8, sizeof o8), buf(of, sizeof of),
                          buf(os, sizeof os), buf(ob, sizeof ob), buf(ol, sizeof ol)};
    CHECK(run(&k, 6, args) == TILEC_OK);
    CHECK(oi[0] == 2 && oi[1] == -2 && oi[2] == 0 && oi[3] == INT32_MAX && oi[4] == INT32_MIN && oi[5] == 0);
    CHECK(o8[0] == 0 && o8[1] == 255 && o8[2] == 1 && o8[3] == 255);
    CHECK(same_bits(of[0], (double)0.1f) && same_bits(of[1], (double)0.1f));
    CHECK(of[2] == 9007199254740992.0 && of[3] == 1.0 && of[4] == 18446744073709551616.0);
    CHECK(os[0] == 0x1.000002p54f && isinf(os[1]));
    CHECK(ob[0] == 1 && ob[1] == 1 && ob[2] == 0 && ob[3] == 1);
    CHECK(ol[0] == UINT64_MAX && ol[1] == UINT64_MAX - 1);
    kernel_close(&k);
}

static void test_float_rules(void) {
    kernel k = kernel_open("floats");
    tir_value *X = view1(&k, "X", TIR_F32, 1, true), *OS = view1(&k, "OS", TIR_F32, 1, false),
              *OF = view1(&k, "OF", TIR_F64, 9, false), *OB = view1(&k, "OB", TIR_BOOL, 4, false);
    tir_builder *b = kernel_body(&k);
    /* f32 values are computed in FP64: (x + 1) - x with x = 1e8 is 1, not 0. */
    tir_value *zero = ci(&k, 0);
    tir_value *x = tir_load_elem(b, X, &zero, NULL, NULL);
    put(&k, OS, 0, tir_ew2(b, TIR_EW_SUB, tir_ew2(b, TIR_EW_ADD, x, tir_const_float(b, TIR_F32, 1)), x));
#define F64(v) tir_const_float(b, TIR_F64, (v))
    tir_value *nan = F64(NAN);
    put(&k, OF, 0, tir_ew2(b, TIR_EW_MIN, nan, F64(3)));
    put(&k, OF, 1, tir_ew2(b, TIR_EW_MAX, F64(3), nan));
    put(&k, OF, 2, tir_ew2(b, TIR_EW_MIN, F64(0.0), F64(-0.0)));
    put(&k, OF, 3, tir_ew2(b, TIR_EW_MAX, F64(-0.0), F64(0.0)));
    put(&k, OF, 4, tir_ew2(b, TIR_EW_MIN, nan, nan));
    put(&k, OF, 5, tir_ew1(b, TIR_EW_EXP, F64(0.3)));
    put(&k, OF, 6, tir_ew1(b, TIR_EW_TANH, F64(0.7)));
    put(&k, OF, 7, tir_ew2(b, TIR_EW_DIV, F64(1), F64(-0.0)));
    put(&k, OF, 8, tir_ew1(b, TIR_EW_ABS, F64(-0.0)));
    put(&k, OB, 0, tir_ew2(b, TIR_EW_LT, nan, F64(1)));
    put(&k, OB, 1, tir_ew2(b, TIR_EW_EQ, nan, nan));
    put(&k, OB, 2, tir_ew2(b, TIR_EW_NE, nan, nan));
    put(&k, OB, 3, tir_ew2(b, TIR_EW_GE, F64(1), nan));
#undef F64
    float xin = 1e8f, os = 0;
    double of[9];
    uint8_t ob[4];
    tir_buffer args[4] = {buf(&xin, sizeof xin), buf(&os, sizeof os), buf(of, sizeof of), buf(ob, sizeof ob)};
    CHECK(run(&k, 4, args) == TILEC_OK);
    CHECK(os == 1.0f);
    CHECK(of[0] == 3.0 && of[1] == 3.0 && isnan(of[4]));
    CHECK(same_bits(of[2], -0.0) && same_bits(of[3], 0.0));
    volatile double e_in = 0.3, t_in = 0.7; /* libm at run time, not folded at compile time */
    CHECK(same_bits(of[5], exp(e_in)) && same_bits(of[6], tanh(t_in)));
    CHECK(of[7] == -INFINITY && same_bits(of[8], 0.0));
    CHECK(ob[0] == 0 && ob[1] == 0 && ob[2] == 1 && ob[3] == 0);
    kernel_close(&k);
}

/* ---- broadcasting, select, extract ---- */

static void test_broadcast(void) {
    kernel k = kernel_open("bcast");
    tir_value *A = view2(&k, "A", TIR_F64, 3, 1, true), *B = view1(&k, "B", TIR_F64, 4, true),
              *T = view2(&k, "T", TIR_F64, 4, 3, true), *O1 = view2(&k, "O1", TIR_F64, 3, 4, false),
              *O2 = view2(&k, "O2", TIR_F64, 4, 3, false), *O3 = view2(&k, "O3", TIR_F64, 3, 4, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *m = tir_dim_new(k.m, "m"), *n = tir_dim_new(k.m, "n");
    uint64_t four = 4;
    tir_value *col = load_all(&k, A, sp2(&k, m, 3, n, 1));             /* [m=3, n=1] */
    tir_value *row = load_all(&k, B, tir_space_make(k.m, 1, &n, &four)); /* [n=4] */
    tir_value *sum = tir_ew2(b, TIR_EW_ADD, col, row);                   /* [m=3, n=4] */
    CHECK(sum && sum->type->space == sp2(&k, m, 3, n, 4));
    store_all(&k, O1, sum);
    /* Transposed operands join by dim identity: t[n, m] + sum[m, n] -> [n, m]. */
    tir_value *t = load_all(&k, T, sp2(&k, n, 4, m, 3));
    tir_value *tsum = tir_ew2(b, TIR_EW_ADD, t, tir_ew2(b, TIR_EW_MUL, sum, tir_const_float(b, TIR_F64, 100)));
    store_all(&k, O2, tsum);
    /* select with a broadcast bool condition [m=3, n=1]. */
    tir_value *cond = tir_ew2(b, TIR_EW_GT, col, tir_const_float(b, TIR_F64, 1.5));
    store_all(&k, O3, tir_select(b, cond, sum, tir_ew1(b, TIR_EW_NEG, sum)));
    double a[3] = {1, 2, 3}, bv[4] = {10, 20, 30, 40}, tv[12], o1[12], o2[12], o3[12];
    for (int i = 0; i < 12; i++) tv[i] = 0.5 * i;
    tir_buffer args[6] = {buf(a, sizeof a),   buf(bv, sizeof bv), buf(tv, sizeof tv),
                          buf(o1, sizeof o1), buf(o2, sizeof o2), buf(o3, sizeof o3)};
    CHECK(run(&k, 6, args) == TILEC_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double s = a[i] + bv[j];
            CHECK(o1[i * 4 + j] == s);
            CHECK(o2[j * 3 + i] == tv[j * 3 + i] + 100 * s);
            CHECK(o3[i * 4 + j] == (a[i] > 1.5 ? s : -s));
        }
    kernel_close(&k);
}

static void test_extract(void) {
    kernel k = kernel_open("extract");
    tir_value *A = view2(&k, "A", TIR_I32, 2, 3, true), *O = view1(&k, "O", TIR_I32, 1, false);
    tir_builder *b = kernel_body(&k);
    tir_value *t = load_all(&k, A, sp2(&k, tir_dim_new(k.m, "i"), 2, tir_dim_new(k.m, "j"), 3));
    tir_value *at[2] = {tir_const_int(b, TIR_U8, 1), ci(&k, 2)}; /* any integer type indexes */
    put(&k, O, 0, tir_extract(b, t, 2, at));
    int32_t a[6] = {1, 2, 3, 4, 5, 6}, o = 0;
    tir_buffer args[2] = {buf(a, sizeof a), buf(&o, sizeof o)};
    CHECK(run(&k, 2, args) == TILEC_OK && o == 6);
    kernel_close(&k);
    /* out of range (past the end, negative): a runtime error, nothing stored */
    int64_t bad[2][2] = {{0, 3}, {-1, 0}};
    for (int c = 0; c < 2; c++) {
        k = kernel_open("extract_oob");
        A = view2(&k, "A", TIR_I32, 2, 3, true);
        O = view1(&k, "O", TIR_I32, 1, false);
        b = kernel_body(&k);
        t = load_all(&k, A, sp2(&k, tir_dim_new(k.m, "i"), 2, tir_dim_new(k.m, "j"), 3));
        tir_value *where[2] = {ci(&k, bad[c][0]), ci(&k, bad[c][1])};
        put(&k, O, 0, tir_extract(b, t, 2, where));
        o = -5;
        CHECK(tir_builder_status(b) == TILEC_OK);
        expect_error(tir_interpret(ctx, k.f, 2, args), TILEC_E_RUNTIME, "TIR-I09");
        CHECK(o == -5);
        kernel_close(&k);
    }
}

/* ---- mma ---- */

static void test_mma(void) {
    kernel k = kernel_open("mma");
    tir_value *A = view2(&k, "A", TIR_I32, 2, 3, true), *B = view2(&k, "B", TIR_I32, 3, 2, true),
              *C = view2(&k, "C", TIR_F64, 2, 2, true), *O = view2(&k, "O", TIR_F64, 2, 2, false),
              *P = view1(&k, "P", TIR_F64, 3, true), *Q = view1(&k, "Q", TIR_F64, 1, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *m = tir_dim_new(k.m, "m"), *n = tir_dim_new(k.m, "n"), *kd = tir_dim_new(k.m, "k");
    /* i32 inputs are converted to the f64 accumulator first: 2^30 · 2^30 does not wrap. */
    tir_value *a = load_all(&k, A, sp2(&k, m, 2, kd, 3)), *bt = load_all(&k, B, sp2(&k, kd, 3, n, 2));
    tir_value *c = load_all(&k, C, sp2(&k, m, 2, n, 2));
    store_all(&k, O, tir_mma(b, a, bt, c, false));
    /* The contraction runs from c in order: ((0 + 1) + 1e16) - 1e16 = 0, not 1. */
    tir_dim *one = tir_dim_new(k.m, "one"), *k2 = tir_dim_new(k.m, "k2"), *unit = tir_dim_new(k.m, "u");
    uint64_t three = 3;
    tir_value *p = load_all(&k, P, tir_space_make(k.m, 1, &k2, &three));
    tir_value *ones = tir_const(b, tir_type_tile(k.m, TIR_F64, sp2(&k, k2, 3, unit, 1)),
                                (tir_literal){TIR_LIT_FLOAT, {.f = 1.0}});
    tir_value *acc = tir_lib_zeros(b, TIR_F64, sp2(&k, one, 1, unit, 1));
    tir_value *pm = tir_lib_broadcast_to(b, p, sp2(&k, one, 1, k2, 3));
    tir_value *r = tir_mma(b, pm, ones, acc, true);
    tir_value *zero2[2] = {ci(&k, 0), ci(&k, 0)};
    put(&k, Q, 0, tir_extract(b, r, 2, zero2));
    int32_t av[6] = {1 << 30, 2, 3, -4, 5, -6}, bv[6] = {1 << 30, 1, 7, 8, -9, 10};
    double cv[4] = {0.5, -0.5, 100, 200}, ov[4], pv[3] = {1, 1e16, -1e16}, qv = NAN;
    tir_buffer args[6] = {buf(av, sizeof av), buf(bv, sizeof bv), buf(cv, sizeof cv),
                          buf(ov, sizeof ov), buf(pv, sizeof pv), buf(&qv, sizeof qv)};
    CHECK(run(&k, 6, args) == TILEC_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double want = cv[i * 2 + j];
            for (int kk = 0; kk < 3; kk++) {
                double prod = (double)av[i * 3 + kk] * (double)bv[kk * 2 + j];
                want = want + prod;
            }
            CHECK_MSG(same_bits(ov[i * 2 + j], want), "mma[%d][%d] = %g, want %g", i, j, ov[i * 2 + j], want);
        }
    CHECK(same_bits(qv, 0.0));
    kernel_close(&k);
}

/* Batch dim in all three operands and two contracted dims visited in a's axis
 * order, lexicographically. */
static void test_mma_batched(void) {
    kernel k = kernel_open("bmma");
    uint64_t ea[3] = {2, 2, 2};
    tir_value *A = tir_func_add_view(k.f, "A", TIR_F64, 3, ea, true), *O = view1(&k, "O", TIR_F64, 2, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *bt = tir_dim_new(k.m, "bt"), *k1 = tir_dim_new(k.m, "k1"), *k2 = tir_dim_new(k.m, "k2"),
            *n = tir_dim_new(k.m, "n");
    tir_dim *da[3] = {bt, k1, k2}, *db[4] = {k2, k1, bt, n};
    uint64_t eb[4] = {2, 2, 2, 1};
    tir_value *zero3[3] = {ci(&k, 0), ci(&k, 0), ci(&k, 0)};
    tir_value *a = tir_load_tile(b, A, zero3, tir_space_make(k.m, 3, da, ea), TIR_BOUNDS_ZERO, NULL);
    tir_value *ones = tir_const(b, tir_type_tile(k.m, TIR_F64, tir_space_make(k.m, 4, db, eb)),
                                (tir_literal){TIR_LIT_FLOAT, {.f = 1.0}});
    tir_value *c = tir_lib_zeros(b, TIR_F64, sp2(&k, bt, 2, n, 1));
    tir_value *r = tir_mma(b, a, ones, c, false);
    for (int i = 0; i < 2; i++) {
        tir_value *at[2] = {ci(&k, i), ci(&k, 0)};
        put(&k, O, i, tir_extract(b, r, 2, at));
    }
    /* batch 0 in (k1, k2) order: 1e16, 1, -1e16, 1 -> 1 ((k2, k1) order would give 2);
     * batch 1: 2 + 3 + 4 + 5 = 14 */
    double av[8] = {1e16, 1, -1e16, 1, 2, 3, 4, 5}, ov[2];
    tir_buffer args[2] = {buf(av, sizeof av), buf(ov, sizeof ov)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    CHECK(ov[0] == 1.0 && ov[1] == 14.0);
    kernel_close(&k);
}

/* ---- maps and library sugar ---- */

static void test_maps(void) {
    kernel k = kernel_open("maps");
    tir_value *A = view2(&k, "A", TIR_F32, 3, 4, true), *S = view1(&k, "S", TIR_F32, 3, false),
              *I = view1(&k, "I", TIR_I64, 5, false), *M = view1(&k, "M", TIR_F32, 4, false),
              *R = view2(&k, "R", TIR_F32, 4, 3, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *m = tir_dim_new(k.m, "m"), *n = tir_dim_new(k.m, "n"), *p = tir_dim_new(k.m, "p"),
            *q = tir_dim_new(k.m, "q");
    tir_value *a = load_all(&k, A, sp2(&k, m, 3, n, 4));
    store_all(&k, S, tir_lib_reduce(b, a, 1, &n, TIR_REDUCER_ADD, TIR_REDUCE_FOLD_LEFT)); /* row sums */
    store_all(&k, I, tir_lib_iota(b, p, 5));
    store_all(&k, M, tir_lib_reduce(b, a, 1, &m, TIR_REDUCER_MAX, TIR_REDUCE_UNORDERED_TREE)); /* column max */
    /* a map whose body reads outer tiles and runs a loop: r[q, p] = a[p, q] * (q + 1) */
    tir_op *map = tir_map_begin(b, sp2(&k, q, 4, p, 3), TIR_F32);
    tir_value *at[2] = {tir_region_coord(map, 1), tir_region_coord(map, 0)};
    tir_value *e = tir_extract(b, a, 2, at);
    tir_value *qf = tir_cast(b, tir_region_coord(map, 0), TIR_F32);
    tir_op *loop = tir_region_begin(b, TIR_OP_SERIAL, sp1(&k, "rep", 1), NULL, 1, &e);
    tir_value *scaled = tir_ew2(b, TIR_EW_MUL, tir_region_carry(loop, 0),
                                tir_ew2(b, TIR_EW_ADD, qf, tir_const_float(b, TIR_F32, 1)));
    tir_region_end(b, loop, 1, &scaled);
    store_all(&k, R, tir_map_end(b, map, tir_op_result(loop, 0)));
    float av[12], sv[3], mv[4], rv[12];
    int64_t iv[5];
    for (int i = 0; i < 12; i++) av[i] = (float)((i * 7) % 5) - 1.5f;
    tir_buffer args[5] = {buf(av, sizeof av), buf(sv, sizeof sv), buf(iv, sizeof iv), buf(mv, sizeof mv),
                          buf(rv, sizeof rv)};
    CHECK(run(&k, 5, args) == TILEC_OK);
    for (int i = 0; i < 3; i++) {
        double s = 0;
        for (int j = 0; j < 4; j++) s += av[i * 4 + j];
        CHECK(sv[i] == (float)s);
    }
    for (int j = 0; j < 4; j++) CHECK(mv[j] == fmaxf(fmaxf(av[j], av[4 + j]), av[8 + j]));
    for (int i = 0; i < 5; i++) CHECK(iv[i] == i);
    for (int qq = 0; qq < 4; qq++)
        for (int pp = 0; pp < 3; pp++) CHECK(rv[qq * 3 + pp] == av[pp * 4 + qq] * (float)(qq + 1));
    kernel_close(&k);
}

/* A small attention, softmax(Q·Kᵀ)·V, composed from mma, library reductions,
 * broadcasting and exp; compared bitwise with the same order of FP64 steps. */
static void test_attention(void) {
    enum { S = 4, T = 5, D = 3, E = 2 };
    kernel k = kernel_open("attention");
    tir_value *Q = view2(&k, "Q", TIR_F64, S, D, true), *Kv = view2(&k, "K", TIR_F64, T, D, true),
              *V = view2(&k, "V", TIR_F64, T, E, true), *O = view2(&k, "O", TIR_F64, S, E, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *s = tir_dim_new(k.m, "s"), *t = tir_dim_new(k.m, "t"), *d = tir_dim_new(k.m, "d"),
            *e = tir_dim_new(k.m, "e");
    tir_value *q = load_all(&k, Q, sp2(&k, s, S, d, D)), *kt = load_all(&k, Kv, sp2(&k, t, T, d, D)),
              *v = load_all(&k, V, sp2(&k, t, T, e, E));
    tir_value *scores = tir_mma(b, q, kt, tir_lib_zeros(b, TIR_F64, sp2(&k, s, S, t, T)), false);
    tir_value *mx = tir_lib_reduce(b, scores, 1, &t, TIR_REDUCER_MAX, TIR_REDUCE_FOLD_LEFT);
    tir_value *p = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, scores, mx));
    tir_value *l = tir_lib_reduce(b, p, 1, &t, TIR_REDUCER_ADD, TIR_REDUCE_FOLD_LEFT);
    tir_value *o = tir_mma(b, p, v, tir_lib_zeros(b, TIR_F64, sp2(&k, s, S, e, E)), false);
    store_all(&k, O, tir_ew2(b, TIR_EW_DIV, o, l));
    double qv[S * D], kv[T * D], vv[T * E], ov[S * E];
    for (int i = 0; i < S * D; i++) qv[i] = 0.25 * ((i * 5) % 7) - 0.6;
    for (int i = 0; i < T * D; i++) kv[i] = 0.3 * ((i * 3) % 8) - 1.1;
    for (int i = 0; i < T * E; i++) vv[i] = 0.7 * ((i * 7) % 9) - 2.0;
    tir_buffer args[4] = {buf(qv, sizeof qv), buf(kv, sizeof kv), buf(vv, sizeof vv), buf(ov, sizeof ov)};
    CHECK(run(&k, 4, args) == TILEC_OK);
    for (int i = 0; i < S; i++) {
        double sc[T], pr[T], m = -INFINITY, sum = 0;
        for (int j = 0; j < T; j++) {
            sc[j] = 0;
            for (int x = 0; x < D; x++) {
                double prod = qv[i * D + x] * kv[j * D + x];
                sc[j] = sc[j] + prod;
            }
            m = fmax(m, sc[j]);
        }
        for (int j = 0; j < T; j++) {
            volatile double arg = sc[j] - m;
            pr[j] = exp(arg);
            sum = sum + pr[j];
        }
        for (int c = 0; c < E; c++) {
            double acc = 0;
            for (int j = 0; j < T; j++) {
                double prod = pr[j] * vv[j * E + c];
                acc = acc + prod;
            }
            CHECK_MSG(same_bits(ov[i * E + c], acc / sum), "O[%d][%d] = %.17g, want %.17g", i, c, ov[i * E + c],
                      acc / sum);
        }
    }
    kernel_close(&k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_fold_policies();
    test_loop_trips();
    test_swap_carries();
    test_integer_semantics();
    test_casts();
    test_float_rules();
    test_broadcast();
    test_extract();
    test_mma();
    test_mma_batched();
    test_maps();
    test_attention();
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
