/* XIR interpreter, scalar semantics: every arithmetic opcode in each type class
 * with its edge cases (wrap-around, division by zero, MIN / -1, mod sign,
 * shifts, bitwise ops on integers and bool, signed/unsigned comparisons, NaN,
 * -0 in min/max, f32 computed in float), select's operand order, casts
 * (truncation, saturation, NaN, rounding, bool) and bitcasts.  Every case runs
 * twice: operands read from a buffer, and operands as interned constants; both
 * must give the same bytes. */
#include "xir_interp_fixture.h"

#include <math.h>
#include <stdint.h>

/* The constant of type t holding the element at p (native encoding). */
static xir_value *const_of(xir_module *m, tir_scalar t, const unsigned char *p) {
    xir_bits bits = {.u = 0};
    switch (t) {
    case TIR_F32: { float f; memcpy(&f, p, 4); bits.f = f; break; }
    case TIR_F64: memcpy(&bits.f, p, 8); break;
    case TIR_BOOL: bits.u = p[0] != 0; break;
    default: {
        uint64_t u = 0;
        size_t n = tir_scalar_size(t);
        if (n == 1) u = p[0];
        else if (n == 2) { uint16_t v; memcpy(&v, p, 2); u = v; }
        else if (n == 4) { uint32_t v; memcpy(&v, p, 4); u = v; }
        else memcpy(&u, p, 8);
        bits.u = u; /* xir_const_bits sign-extends it for signed types */
        break;
    }
    }
    return xir_const_bits(m, t, bits);
}

/* Builds out[0] = op(operands) and runs it for one worker.  The operands
 * (types in types[], encodings at in[]) come from one buffer per operand, or
 * are constants. */
static bool run_op(bool constants, xir_inst_kind kind, xir_arith_op op, unsigned n, const tir_scalar *types,
                   const void *const *in, tir_scalar result, void *out) {
    xkernel k = xk_open("op", 1);
    xir_value *bufs[3], *x[3] = {NULL, NULL, NULL};
    tir_buffer args[4];
    for (unsigned i = 0; i < n; i++) {
        bufs[i] = xir_func_add_buffer(k.f, "in", types[i]);
        args[i] = xbuf((void *)in[i], tir_scalar_size(types[i]));
    }
    xir_value *ob = xir_func_add_buffer(k.f, "out", result);
    args[n] = xbuf(out, tir_scalar_size(result));
    for (unsigned i = 0; i < n; i++)
        x[i] = constants ? const_of(k.m, types[i], in[i]) : xir_build_buffer_read(&k.b, bufs[i], xk_u64(&k, 0));
    xir_value *r = kind == XIR_INST_CAST      ? xir_build_cast(&k.b, x[0], result)
                 : kind == XIR_INST_BITCAST   ? xir_build_bitcast(&k.b, x[0], result)
                                              : xir_build_arith(&k.b, op, x[0], x[1], x[2]);
    xir_build_buffer_write(&k.b, ob, xk_u64(&k, 0), r);
    xir_build_ret(&k.b);
    bool ok = xk_run_ok(&k, 1, 1, n + 1, args);
    xk_close(&k);
    return ok;
}

/* Runs both variants; they must agree bit for bit. */
static void eval(xir_inst_kind kind, xir_arith_op op, unsigned n, const tir_scalar *types, const void *const *in,
                 tir_scalar result, void *out) {
    unsigned char from_consts[8] = {0}, from_buffers[8] = {0};
    size_t size = tir_scalar_size(result);
    bool ok = run_op(true, kind, op, n, types, in, result, from_consts) &&
              run_op(false, kind, op, n, types, in, result, from_buffers);
    CHECK_MSG(ok && !memcmp(from_consts, from_buffers, size), "%s %s: constant and buffer operands disagree",
              xir_inst_kind_name(kind), xir_arith_name(op));
    memcpy(out, from_buffers, size);
}

/* Typed wrappers: T op(T, T), bool cmp(T, T). */
#define TYPED_OPS(name, ctype, scalar) \
    static ctype name(xir_arith_op op, ctype a, ctype b) { \
        ctype out = 0; \
        tir_scalar types[2] = {scalar, scalar}; \
        const void *in[2] = {&a, &b}; \
        eval(XIR_INST_ARITH, op, xir_arith_arity(op), types, in, scalar, &out); \
        return out; \
    } \
    static bool name##_cmp(xir_arith_op op, ctype a, ctype b) { \
        unsigned char out = 0xaa; \
        tir_scalar types[2] = {scalar, scalar}; \
        const void *in[2] = {&a, &b}; \
        eval(XIR_INST_ARITH, op, 2, types, in, TIR_BOOL, &out); \
        CHECK_MSG(out <= 1, "%s: bool result byte %u", xir_arith_name(op), out); \
        return out == 1; \
    }

TYPED_OPS(i8, int8_t, TIR_I8)
TYPED_OPS(u8, uint8_t, TIR_U8)
TYPED_OPS(i16, int16_t, TIR_I16)
TYPED_OPS(u16, uint16_t, TIR_U16)
TYPED_OPS(i32, int32_t, TIR_I32)
TYPED_OPS(u32, uint32_t, TIR_U32)
TYPED_OPS(i64, int64_t, TIR_I64)
TYPED_OPS(u64, uint64_t, TIR_U64)
TYPED_OPS(f32, float, TIR_F32)
TYPED_OPS(f64, double, TIR_F64)
TYPED_OPS(bl, unsigned char, TIR_BOOL)

static bool same_f32(float a, float b) { return !memcmp(&a, &b, sizeof a); }
static bool same_f64(double a, double b) { return !memcmp(&a, &b, sizeof a); }

static void test_signed_integers(void) {
    CHECK(i8(XIR_OP_ADD, 127, 1) == -128);
    CHECK(i8(XIR_OP_SUB, -128, 1) == 127);
    CHECK(i8(XIR_OP_MUL, 16, 16) == 0);
    CHECK(i8(XIR_OP_MUL, -3, 5) == -15);
    CHECK(i8(XIR_OP_DIV, -7, 2) == -3);
    CHECK(i8(XIR_OP_DIV, 7, 0) == 0);
    CHECK(i8(XIR_OP_DIV, -128, -1) == -128);
    CHECK(i8(XIR_OP_MOD, -7, 2) == -1);
    CHECK(i8(XIR_OP_MOD, 7, -3) == 1);
    CHECK(i8(XIR_OP_MOD, 7, 0) == 0);
    CHECK(i8(XIR_OP_MOD, -128, -1) == 0);
    CHECK(i8(XIR_OP_NEG, -128, 0) == -128);
    CHECK(i8(XIR_OP_NEG, 5, 0) == -5);
    CHECK(i8(XIR_OP_ABS, -128, 0) == -128);
    CHECK(i8(XIR_OP_ABS, -7, 0) == 7);
    CHECK(i8(XIR_OP_MIN, -56, 100) == -56);
    CHECK(i8(XIR_OP_MAX, -56, 100) == 100);
    CHECK(i16(XIR_OP_ADD, 32767, 1) == -32768);
    CHECK(i16(XIR_OP_MUL, 300, 300) == (int16_t)(uint16_t)(90000 & 0xffff));
    CHECK(i16(XIR_OP_DIV, -32768, -1) == -32768);
    CHECK(i32(XIR_OP_ADD, INT32_MAX, 1) == INT32_MIN);
    CHECK(i32(XIR_OP_MUL, 65536, 65536) == 0);
    CHECK(i32(XIR_OP_DIV, INT32_MIN, -1) == INT32_MIN);
    CHECK(i32(XIR_OP_DIV, -9, 4) == -2);
    CHECK(i32(XIR_OP_MOD, -9, 4) == -1);
    CHECK(i32(XIR_OP_MOD, INT32_MIN, -1) == 0);
    CHECK(i64(XIR_OP_ADD, INT64_MAX, 1) == INT64_MIN);
    CHECK(i64(XIR_OP_SUB, INT64_MIN, 1) == INT64_MAX);
    CHECK(i64(XIR_OP_DIV, INT64_MIN, -1) == INT64_MIN);
    CHECK(i64(XIR_OP_DIV, 5, 0) == 0);
    CHECK(i64(XIR_OP_MOD, INT64_MIN, -1) == 0);
    CHECK(i64(XIR_OP_NEG, INT64_MIN, 0) == INT64_MIN);
    CHECK(i64(XIR_OP_MIN, -1, 1) == -1);
}

static void test_unsigned_integers(void) {
    CHECK(u8(XIR_OP_ADD, 200, 100) == 44);
    CHECK(u8(XIR_OP_SUB, 0, 1) == 255);
    CHECK(u8(XIR_OP_MUL, 16, 17) == 16);
    CHECK(u8(XIR_OP_DIV, 255, 2) == 127);
    CHECK(u8(XIR_OP_DIV, 9, 0) == 0);
    CHECK(u8(XIR_OP_MOD, 255, 7) == 3);
    CHECK(u8(XIR_OP_MOD, 9, 0) == 0);
    CHECK(u8(XIR_OP_NEG, 1, 0) == 255);
    CHECK(u8(XIR_OP_ABS, 200, 0) == 200);
    CHECK(u8(XIR_OP_MAX, 200, 100) == 200);
    CHECK(u8(XIR_OP_MIN, 200, 100) == 100);
    CHECK(u16(XIR_OP_ADD, 65535, 2) == 1);
    CHECK(u32(XIR_OP_SUB, 0, 1) == UINT32_MAX);
    CHECK(u32(XIR_OP_DIV, UINT32_MAX, 0) == 0);
    CHECK(u32(XIR_OP_MUL, 0x10000u, 0x10001u) == 0x10000u);
    CHECK(u64(XIR_OP_ADD, UINT64_MAX, 2) == 1);
    CHECK(u64(XIR_OP_DIV, UINT64_MAX, 2) == UINT64_MAX / 2);
    CHECK(u64(XIR_OP_MOD, UINT64_MAX, 10) == UINT64_MAX % 10);
    CHECK(u64(XIR_OP_MAX, UINT64_MAX, 1) == UINT64_MAX);
}

static void test_bitwise_and_shifts(void) {
    CHECK(u8(XIR_OP_NOT, 5, 0) == 250);
    CHECK(u8(XIR_OP_AND, 0xf0, 0x3c) == 0x30);
    CHECK(u8(XIR_OP_OR, 0xf0, 0x0c) == 0xfc);
    CHECK(u8(XIR_OP_XOR, 0xff, 0x0f) == 0xf0);
    CHECK(i8(XIR_OP_NOT, 0, 0) == -1);
    CHECK(i8(XIR_OP_AND, -1, 0x55) == 0x55);
    CHECK(i32(XIR_OP_NOT, 0x0f0f0f0f, 0) == (int32_t)0xf0f0f0f0u);
    CHECK(i32(XIR_OP_XOR, -1, 1) == -2);
    CHECK(u64(XIR_OP_NOT, 0, 0) == UINT64_MAX);
    CHECK(u64(XIR_OP_OR, UINT64_C(1) << 63, 1) == (UINT64_C(1) << 63 | 1));
    /* bool: logical */
    CHECK(bl(XIR_OP_NOT, 1, 0) == 0 && bl(XIR_OP_NOT, 0, 0) == 1);
    CHECK(bl(XIR_OP_AND, 1, 1) == 1 && bl(XIR_OP_AND, 1, 0) == 0);
    CHECK(bl(XIR_OP_OR, 0, 0) == 0 && bl(XIR_OP_OR, 0, 1) == 1);
    CHECK(bl(XIR_OP_XOR, 1, 1) == 0 && bl(XIR_OP_XOR, 1, 0) == 1);
    /* shifts: amount modulo the width; shr arithmetic on signed, logical on unsigned */
    CHECK(i32(XIR_OP_SHL, 1, 31) == INT32_MIN);
    CHECK(i32(XIR_OP_SHL, 1, 33) == 2);
    CHECK(i32(XIR_OP_SHR, -8, 1) == -4);
    CHECK(i32(XIR_OP_SHR, -8, -1) == -1); /* -1 mod 32 = 31 */
    CHECK(i32(XIR_OP_SHR, INT32_MIN, 31) == -1);
    CHECK(u32(XIR_OP_SHR, 0x80000000u, 31) == 1);
    CHECK(u32(XIR_OP_SHL, 7, 32) == 7);
    CHECK(u8(XIR_OP_SHL, 0x81, 1) == 0x02);
    CHECK(u8(XIR_OP_SHR, 0x80, 9) == 0x40);
    CHECK(i8(XIR_OP_SHR, -128, 1) == -64);
    CHECK(i8(XIR_OP_SHL, 0x41, 1) == -126);
    CHECK(u16(XIR_OP_SHL, 0xffff, 15) == 0x8000);
    CHECK(i64(XIR_OP_SHR, INT64_MIN, 63) == -1);
    CHECK(u64(XIR_OP_SHR, UINT64_MAX, 63) == 1);
    CHECK(u64(XIR_OP_SHL, 1, 64 + 63) == UINT64_C(1) << 63);
}

static void test_comparisons(void) {
    CHECK(i8_cmp(XIR_OP_LT, -56, 100));
    CHECK(u8_cmp(XIR_OP_GT, 200, 100)); /* the same bits unsigned */
    CHECK(i32_cmp(XIR_OP_LE, 5, 5) && !i32_cmp(XIR_OP_LT, 5, 5));
    CHECK(i32_cmp(XIR_OP_GE, 6, 5) && !i32_cmp(XIR_OP_GE, 4, 5));
    CHECK(i32_cmp(XIR_OP_EQ, -1, -1) && i32_cmp(XIR_OP_NE, -1, 1));
    CHECK(i16_cmp(XIR_OP_LT, -1, 0) && u16_cmp(XIR_OP_GT, 0xffff, 0)); /* the same bits, both signednesses */
    CHECK(i32_cmp(XIR_OP_LT, -1, 0) && u32_cmp(XIR_OP_GT, 0xffffffffu, 0));
    CHECK(u64_cmp(XIR_OP_GT, UINT64_MAX, 0));
    CHECK(i64_cmp(XIR_OP_LT, INT64_MIN, 0));
    CHECK(bl_cmp(XIR_OP_LT, 0, 1) && bl_cmp(XIR_OP_EQ, 1, 1));
    float nanf_ = NAN;
    CHECK(!f32_cmp(XIR_OP_EQ, nanf_, nanf_) && f32_cmp(XIR_OP_NE, nanf_, nanf_));
    CHECK(!f32_cmp(XIR_OP_LT, nanf_, 1) && !f32_cmp(XIR_OP_GE, nanf_, 1) && !f32_cmp(XIR_OP_GT, 1, nanf_));
    CHECK(f32_cmp(XIR_OP_EQ, -0.0f, 0.0f) && !f32_cmp(XIR_OP_LT, -0.0f, 0.0f));
    CHECK(f32_cmp(XIR_OP_LT, -INFINITY, -1e38f));
    CHECK(!f64_cmp(XIR_OP_LE, NAN, NAN) && f64_cmp(XIR_OP_NE, NAN, 0));
    CHECK(f64_cmp(XIR_OP_GE, 0.0, -0.0));
}

static void test_f32(void) {
    /* each result rounds to f32: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to
     * 1 + 2^-11 (a tie, to even), so the difference is 0, not 2^-24 */
    float a = 1.0f + 0x1p-12f;
    float sq = f32(XIR_OP_MUL, a, a);
    CHECK(same_f32(sq, 1.0f + 0x1p-11f));
    CHECK(same_f32(f32(XIR_OP_SUB, sq, 1.0f + 0x1p-11f), 0.0f));
    CHECK(same_f32(f32(XIR_OP_ADD, 16777216.0f, 1.0f), 16777216.0f));
    CHECK(same_f32(f32(XIR_OP_ADD, 0.1f, 0.2f), 0.1f + 0.2f));
    CHECK(same_f32(f32(XIR_OP_DIV, 1.0f, 3.0f), 1.0f / 3.0f));
    CHECK(same_f32(f32(XIR_OP_DIV, 1.0f, 0.0f), INFINITY));
    CHECK(same_f32(f32(XIR_OP_DIV, -1.0f, 0.0f), -INFINITY));
    CHECK(isnan(f32(XIR_OP_DIV, 0.0f, 0.0f)));
    CHECK(same_f32(f32(XIR_OP_MUL, 3e38f, 10.0f), INFINITY));
    static const float xs[] = {0.5f, 1.0f, 2.75f, 10.0f, -3.25f, 1e-3f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float x = xs[i];
        CHECK_MSG(same_f32(f32(XIR_OP_EXP, x, 0), expf(x)), "expf(%g)", (double)x);
        CHECK_MSG(same_f32(f32(XIR_OP_TANH, x, 0), tanhf(x)), "tanhf(%g)", (double)x);
        float ax = fabsf(x);
        CHECK_MSG(same_f32(f32(XIR_OP_LOG, ax, 0), logf(ax)), "logf(%g)", (double)ax);
        CHECK_MSG(same_f32(f32(XIR_OP_SQRT, ax, 0), sqrtf(ax)), "sqrtf(%g)", (double)ax);
    }
    CHECK(isnan(f32(XIR_OP_SQRT, -1.0f, 0)) && same_f32(f32(XIR_OP_LOG, 0.0f, 0), -INFINITY));
    CHECK(same_f32(f32(XIR_OP_NEG, 0.0f, 0), -0.0f));
    CHECK(same_f32(f32(XIR_OP_ABS, -0.0f, 0), 0.0f));
    CHECK(same_f32(f32(XIR_OP_ABS, -INFINITY, 0), INFINITY));
    /* min/max: a NaN loses to a number, -0 < +0, independent of order */
    CHECK(same_f32(f32(XIR_OP_MIN, NAN, 3.0f), 3.0f) && same_f32(f32(XIR_OP_MIN, 3.0f, NAN), 3.0f));
    CHECK(same_f32(f32(XIR_OP_MAX, NAN, -3.0f), -3.0f) && same_f32(f32(XIR_OP_MAX, -3.0f, NAN), -3.0f));
    CHECK(isnan(f32(XIR_OP_MIN, NAN, NAN)));
    CHECK(same_f32(f32(XIR_OP_MIN, 0.0f, -0.0f), -0.0f) && same_f32(f32(XIR_OP_MIN, -0.0f, 0.0f), -0.0f));
    CHECK(same_f32(f32(XIR_OP_MAX, -0.0f, 0.0f), 0.0f) && same_f32(f32(XIR_OP_MAX, 0.0f, -0.0f), 0.0f));
    CHECK(same_f32(f32(XIR_OP_MIN, -INFINITY, 1e30f), -INFINITY));
    CHECK(same_f32(f32(XIR_OP_MAX, 1.5f, 1.25f), 1.5f));
    /* neg and abs only touch the sign: a NaN payload survives */
    uint32_t payload = 0x7fc01234u, negated = 0xffc01234u;
    float pn, nn;
    memcpy(&pn, &payload, 4);
    memcpy(&nn, &negated, 4);
    CHECK(same_f32(f32(XIR_OP_NEG, pn, 0), nn) && same_f32(f32(XIR_OP_ABS, nn, 0), pn));
}

static void test_f64(void) {
    CHECK(same_f64(f64(XIR_OP_ADD, 0.1, 0.2), 0.1 + 0.2));
    double a = 1.0 + 0x1p-26;
    CHECK(same_f64(f64(XIR_OP_SUB, f64(XIR_OP_MUL, a, a), 1.0 + 0x1p-25), 0x1p-52)); /* exact in f64 */
    CHECK(same_f64(f64(XIR_OP_DIV, 1.0, -0.0), -INFINITY));
    CHECK(same_f64(f64(XIR_OP_EXP, 1.0, 0), exp(1.0)) && same_f64(f64(XIR_OP_LOG, 10.0, 0), log(10.0)));
    CHECK(same_f64(f64(XIR_OP_SQRT, 2.0, 0), sqrt(2.0)) && same_f64(f64(XIR_OP_TANH, 0.5, 0), tanh(0.5)));
    CHECK(same_f64(f64(XIR_OP_MIN, NAN, -2.0), -2.0) && same_f64(f64(XIR_OP_MAX, 7.0, NAN), 7.0));
    CHECK(same_f64(f64(XIR_OP_MIN, 0.0, -0.0), -0.0) && same_f64(f64(XIR_OP_MAX, -0.0, 0.0), 0.0));
    CHECK(same_f64(f64(XIR_OP_NEG, -0.0, 0), 0.0) && same_f64(f64(XIR_OP_ABS, -2.5, 0), 2.5));
}

/* select is (cond, if_true, if_false) */
static void test_select(void) {
    tir_scalar types[3] = {TIR_BOOL, TIR_I32, TIR_I32};
    unsigned char t = 1, f = 0;
    int32_t x = 11, y = 22, out = 0;
    const void *in_t[3] = {&t, &x, &y}, *in_f[3] = {&f, &x, &y};
    eval(XIR_INST_ARITH, XIR_OP_SELECT, 3, types, in_t, TIR_I32, &out);
    CHECK(out == 11);
    eval(XIR_INST_ARITH, XIR_OP_SELECT, 3, types, in_f, TIR_I32, &out);
    CHECK(out == 22);
    /* a bool byte of 2 read from a buffer is true */
    unsigned char two = 2;
    const void *in_2[3] = {&two, &x, &y};
    CHECK(run_op(false, XIR_INST_ARITH, XIR_OP_SELECT, 3, types, in_2, TIR_I32, &out) && out == 11);
    /* float select moves bits: a NaN payload and -0 survive */
    tir_scalar ftypes[3] = {TIR_BOOL, TIR_F32, TIR_F32};
    uint32_t payload = 0x7f812345u, got = 0; /* a signalling NaN pattern */
    float z = -0.0f;
    const void *in_nan[3] = {&t, &payload, &z};
    CHECK(run_op(false, XIR_INST_ARITH, XIR_OP_SELECT, 3, ftypes, in_nan, TIR_F32, &got) && got == payload);
    float fz = 1.0f;
    const void *in_z[3] = {&f, &payload, &z};
    CHECK(run_op(false, XIR_INST_ARITH, XIR_OP_SELECT, 3, ftypes, in_z, TIR_F32, &fz) && same_f32(fz, -0.0f));
}

/* ---- casts ---- */

/* Generic single cast: in (type from) → out (type to). */
static void cast_bytes(tir_scalar from, const void *in, tir_scalar to, void *out) {
    tir_scalar types[1] = {from};
    const void *ins[1] = {in};
    eval(XIR_INST_CAST, XIR_OP_INVALID, 1, types, ins, to, out);
}

/* Integer/bool → integer/bool: v truncated to `from`'s width; returns the
 * result's bytes zero-extended. */
static uint64_t cast_ii(tir_scalar from, int64_t v, tir_scalar to) {
    unsigned char in[8], out[8] = {0};
    uint64_t u = (uint64_t)v, r = 0;
    uint8_t b1 = (uint8_t)u;
    uint16_t b2 = (uint16_t)u;
    uint32_t b4 = (uint32_t)u;
    size_t n = tir_scalar_size(from);
    memcpy(in, n == 1 ? (void *)&b1 : n == 2 ? (void *)&b2 : n == 4 ? (void *)&b4 : (void *)&u, n);
    cast_bytes(from, in, to, out);
    n = tir_scalar_size(to);
    if (n == 1) r = out[0];
    else if (n == 2) { memcpy(&b2, out, 2); r = b2; }
    else if (n == 4) { memcpy(&b4, out, 4); r = b4; }
    else memcpy(&r, out, 8);
    return r;
}

/* f32/f64 → bool. */
static unsigned char float_truth(tir_scalar from, double x) {
    float f = (float)x;
    unsigned char out = 0xaa;
    cast_bytes(from, from == TIR_F32 ? (const void *)&f : (const void *)&x, TIR_BOOL, &out);
    return out;
}

static void cast_f32_to_int(float x, int32_t want_i32, uint8_t want_u8, int64_t want_i64, uint16_t want_u16) {
    tir_scalar from[1] = {TIR_F32};
    const void *in[1] = {&x};
    int32_t i32v = 123;
    uint8_t u8v = 123;
    int64_t i64v = 123;
    uint16_t u16v = 123;
    eval(XIR_INST_CAST, XIR_OP_INVALID, 1, from, in, TIR_I32, &i32v);
    eval(XIR_INST_CAST, XIR_OP_INVALID, 1, from, in, TIR_U8, &u8v);
    eval(XIR_INST_CAST, XIR_OP_INVALID, 1, from, in, TIR_I64, &i64v);
    eval(XIR_INST_CAST, XIR_OP_INVALID, 1, from, in, TIR_U16, &u16v);
    CHECK_MSG(i32v == want_i32 && u8v == want_u8 && i64v == want_i64 && u16v == want_u16,
              "cast %g: i32 %d u8 %u i64 %lld u16 %u", (double)x, i32v, u8v, (long long)i64v, u16v);
}


static void test_casts(void) {
    /* float → int: truncate toward zero, saturate, NaN → 0 */
    cast_f32_to_int(3.9f, 3, 3, 3, 3);
    cast_f32_to_int(-3.9f, -3, 0, -3, 0);
    cast_f32_to_int(NAN, 0, 0, 0, 0);
    cast_f32_to_int(1e10f, INT32_MAX, 255, 10000000000LL, 65535);
    cast_f32_to_int(-1e30f, INT32_MIN, 0, INT64_MIN, 0);
    cast_f32_to_int(INFINITY, INT32_MAX, 255, INT64_MAX, 65535);
    cast_f32_to_int(255.99f, 255, 255, 255, 255);
    cast_f32_to_int(-0.5f, 0, 0, 0, 0);
    double big = 1e300, d = 0;
    uint64_t u64v = 0;
    cast_bytes(TIR_F64, &big, TIR_U64, &u64v);
    CHECK(u64v == UINT64_MAX);
    d = 18446744073709549568.0; /* the largest double below 2^64 */
    cast_bytes(TIR_F64, &d, TIR_U64, &u64v);
    CHECK(u64v == UINT64_C(18446744073709549568));
    /* int → float: one correct rounding (no detour through f64 for f32) */
    int64_t i = (INT64_C(1) << 24) + 1;
    float fv = 0;
    cast_bytes(TIR_I64, &i, TIR_F32, &fv);
    CHECK(same_f32(fv, 16777216.0f));
    uint64_t umax = UINT64_MAX;
    cast_bytes(TIR_U64, &umax, TIR_F32, &fv);
    CHECK(same_f32(fv, 18446744073709551616.0f));
    i = (INT64_C(1) << 62) + (INT64_C(1) << 38) + 1; /* just above a halfway point of f32 */
    cast_bytes(TIR_I64, &i, TIR_F32, &fv);
    CHECK(same_f32(fv, (float)i));
    int32_t m = -7;
    double dv = 0;
    cast_bytes(TIR_I32, &m, TIR_F64, &dv);
    CHECK(same_f64(dv, -7.0));
    /* float ↔ float */
    double tenth = 0.1;
    cast_bytes(TIR_F64, &tenth, TIR_F32, &fv);
    CHECK(same_f32(fv, 0.1f));
    cast_bytes(TIR_F64, &big, TIR_F32, &fv);
    CHECK(same_f32(fv, INFINITY));
    float third = 1.0f / 3.0f;
    cast_bytes(TIR_F32, &third, TIR_F64, &dv);
    CHECK(same_f64(dv, (double)third));
    /* int → int: low bits */
    CHECK(cast_ii(TIR_I32, 257, TIR_U8) == 1);
    CHECK(cast_ii(TIR_I32, -1, TIR_U8) == 255);
    CHECK(cast_ii(TIR_I8, -2, TIR_U64) == UINT64_MAX - 1);
    CHECK(cast_ii(TIR_U8, 200, TIR_I8) == (uint8_t)-56);
    CHECK(cast_ii(TIR_U8, 200, TIR_I32) == 200);
    CHECK(cast_ii(TIR_I8, -56, TIR_I32) == (uint32_t)-56);
    CHECK(cast_ii(TIR_U32, 0xffffffff, TIR_I64) == 4294967295u);
    CHECK(cast_ii(TIR_I64, -1, TIR_U32) == UINT32_MAX);
    CHECK(cast_ii(TIR_I16, -1, TIR_U16) == 0xffff);
    /* → bool: nonzero (NaN is true, -0 false); bool → 0/1 */
    CHECK(float_truth(TIR_F32, NAN) == 1);
    CHECK(float_truth(TIR_F32, -0.0) == 0);
    CHECK(float_truth(TIR_F64, 1e-300) == 1);
    CHECK(float_truth(TIR_F64, 0.0) == 0);
    CHECK(cast_ii(TIR_I32, 256, TIR_BOOL) == 1);
    CHECK(cast_ii(TIR_U8, 0, TIR_BOOL) == 0);
    CHECK(cast_ii(TIR_BOOL, 1, TIR_I64) == 1);
    unsigned char one = 1;
    cast_bytes(TIR_BOOL, &one, TIR_F32, &fv);
    CHECK(same_f32(fv, 1.0f));
}

static void test_bitcasts(void) {
    tir_scalar f32t[1] = {TIR_F32}, u32t[1] = {TIR_U32}, i64t[1] = {TIR_I64}, f64t[1] = {TIR_F64};
    float one = 1.0f;
    uint32_t bits = 0;
    const void *in1[1] = {&one};
    eval(XIR_INST_BITCAST, XIR_OP_INVALID, 1, f32t, in1, TIR_U32, &bits);
    CHECK(bits == 0x3f800000u);
    /* a signalling NaN pattern survives u32 → f32 → (buffer) */
    uint32_t snan = 0x7f800001u, back = 0;
    const void *in2[1] = {&snan};
    eval(XIR_INST_BITCAST, XIR_OP_INVALID, 1, u32t, in2, TIR_F32, &back);
    CHECK(back == snan);
    int64_t minus1 = -1;
    double dv = 0;
    const void *in3[1] = {&minus1};
    eval(XIR_INST_BITCAST, XIR_OP_INVALID, 1, i64t, in3, TIR_F64, &dv);
    uint64_t dbits;
    memcpy(&dbits, &dv, 8);
    CHECK(dbits == UINT64_MAX);
    double mz = -0.0;
    int64_t ib = 0;
    const void *in4[1] = {&mz};
    eval(XIR_INST_BITCAST, XIR_OP_INVALID, 1, f64t, in4, TIR_I64, &ib);
    CHECK(ib == INT64_MIN);
    int16_t s = -2;
    uint16_t us = 0;
    tir_scalar i16t[1] = {TIR_I16};
    const void *in5[1] = {&s};
    eval(XIR_INST_BITCAST, XIR_OP_INVALID, 1, i16t, in5, TIR_U16, &us);
    CHECK(us == 0xfffe);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_signed_integers();
    test_unsigned_integers();
    test_bitwise_and_shifts();
    test_comparisons();
    test_f32();
    test_f64();
    test_select();
    test_casts();
    test_bitcasts();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
