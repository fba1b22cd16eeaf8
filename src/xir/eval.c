/* eval.c — see eval.h.  The rules are written once, on cells; the payload
 * functions convert f32 between its two forms at the boundary (every other
 * type has the same bits in both).  f32 values are widened to double only for
 * operations whose result is one of the operands or a bool (min, max,
 * comparisons) and for casts, where widening is exact and a single rounding
 * happens afterwards. */
#include "xir/eval.h"
#include "base/half.h"
#include "scalar/math_ops.h"

#include <math.h>
#include <string.h>

static float f32_of(scalar_cell c) {
    uint32_t bits = (uint32_t)c.u;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static scalar_cell cell_f32(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (scalar_cell){.u = bits};
}

/* The double-valued cell of the TileIR interpreter for an f32 cell. */
static scalar_cell widen(tir_scalar t, scalar_cell c) {
    return t == TIR_F32 ? (scalar_cell){.f = (double)f32_of(c)} : c;
}

/* The TileIR opcode with the same meaning, for the opcodes XIR shares. */
static const tir_ew_op shared_op[XIR_OP_COUNT] = {
    [XIR_OP_ADD] = TIR_EW_ADD, [XIR_OP_SUB] = TIR_EW_SUB, [XIR_OP_MUL] = TIR_EW_MUL,
    [XIR_OP_DIV] = TIR_EW_DIV, [XIR_OP_MOD] = TIR_EW_MOD, [XIR_OP_NEG] = TIR_EW_NEG,
    [XIR_OP_MIN] = TIR_EW_MIN, [XIR_OP_MAX] = TIR_EW_MAX, [XIR_OP_ABS] = TIR_EW_ABS,
    [XIR_OP_SQRT] = TIR_EW_SQRT,
#define SHARED(e, dbl, flt, stem) [XIR_OP_##e] = TIR_EW_##e,
    TIR_SLEEF_MATH1(SHARED) TIR_SLEEF_MATH2(SHARED) TIR_ROUNDING_MATH(SHARED)
#undef SHARED
    [XIR_OP_EQ] = TIR_EW_EQ, [XIR_OP_NE] = TIR_EW_NE, [XIR_OP_LT] = TIR_EW_LT,
    [XIR_OP_LE] = TIR_EW_LE, [XIR_OP_GT] = TIR_EW_GT, [XIR_OP_GE] = TIR_EW_GE,
};

/* f32 operations that produce a new float, computed in float.  neg and abs
 * only touch the sign bit (C Annex F), so NaN payloads survive them. */
static bool f32_arith(xir_arith_op op, const scalar_cell *x, scalar_cell *out) {
    float a = f32_of(x[0]), b = xir_arith_arity(op) > 1 ? f32_of(x[1]) : 0.0f, r;
    switch (op) {
    case XIR_OP_FMA: r = fmaf(a, b, f32_of(x[2])); break;
    case XIR_OP_ADD: r = a + b; break;
    case XIR_OP_SUB: r = a - b; break;
    case XIR_OP_MUL: r = a * b; break;
    case XIR_OP_DIV: r = a / b; break;
    case XIR_OP_NEG: r = -a; break;
    case XIR_OP_ABS: r = fabsf(a); break;
    case XIR_OP_SQRT: r = sqrtf(a); break;
#define UNARY(e, dbl, flt, stem) \
    case XIR_OP_##e: r = flt(a); break;
#define BINARY(e, dbl, flt, stem) \
    case XIR_OP_##e: r = flt(a, b); break;
        TIR_SLEEF_MATH1(UNARY) TIR_ROUNDING_MATH(UNARY) TIR_SLEEF_MATH2(BINARY)
#undef UNARY
#undef BINARY
    default: return false;
    }
    *out = cell_f32(r);
    return true;
}

/* and/or/xor/not: bitwise on integers, logical on bool (cells are 0/1). */
static scalar_cell bitwise(xir_arith_op op, tir_scalar t, scalar_cell a, scalar_cell b) {
    switch (op) {
    case XIR_OP_AND: return scalar_wrap(t, a.u & b.u);
    case XIR_OP_OR: return scalar_wrap(t, a.u | b.u);
    case XIR_OP_XOR: return scalar_wrap(t, a.u ^ b.u);
    default: return t == TIR_BOOL ? (scalar_cell){.u = !a.u} : scalar_wrap(t, ~a.u);
    }
}

/* The shift amount is taken modulo the bit width (its two's-complement bits,
 * so -1 shifts by width - 1); shr is arithmetic on signed types, logical on
 * unsigned ones. */
static scalar_cell shift(xir_arith_op op, tir_scalar t, scalar_cell a, scalar_cell b) {
    unsigned s = (unsigned)(b.u & (8 * tir_scalar_size(t) - 1));
    if (op == XIR_OP_SHL) return scalar_wrap(t, a.u << s);
    if (tir_scalar_is_signed(t) && a.i < 0) return scalar_wrap(t, ~(~a.u >> s)); /* no implementation-defined >> */
    return scalar_wrap(t, a.u >> s);
}

/* A subnormal f32 as the zero of its sign (vdpbf16ps's DAZ and FTZ). */
static float flush(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

float xir_dot_bf16x2(float acc, uint32_t x, uint32_t y) {
    float xh, yh, xl, yl;
    uint32_t hx = x & 0xffff0000u, hy = y & 0xffff0000u, lx = x << 16, ly = y << 16;
    memcpy(&xh, &hx, 4), memcpy(&yh, &hy, 4), memcpy(&xl, &lx, 4), memcpy(&yl, &ly, 4);
    float r = flush(fmaf(flush(xh), flush(yh), flush(acc)));
    return flush(fmaf(flush(xl), flush(yl), r));
}

int32_t xir_dot_u8i8x4(int32_t acc, uint32_t x, uint32_t y) {
    uint32_t sum = (uint32_t)acc;
    for (int j = 0; j < 4; j++) sum += (uint32_t)((int32_t)(uint8_t)(x >> 8 * j) * (int32_t)(int8_t)(y >> 8 * j));
    return (int32_t)sum;
}

int32_t xir_dot_i16x2(int32_t acc, uint32_t x, uint32_t y) {
    uint32_t sum = (uint32_t)acc;
    for (int j = 0; j < 2; j++) sum += (uint32_t)((int32_t)(int16_t)(x >> 16 * j) * (int32_t)(int16_t)(y >> 16 * j));
    return (int32_t)sum;
}

bool xir_cell_arith(xir_arith_op op, tir_scalar t, const scalar_cell *x, scalar_cell *out) {
    switch (op) {
    case XIR_OP_DOT_BF16X2: *out = cell_f32(xir_dot_bf16x2(f32_of(x[0]), (uint32_t)x[1].u, (uint32_t)x[2].u)); return true;
    case XIR_OP_DOT_U8I8X4: *out = scalar_wrap(TIR_I32, (uint64_t)(int64_t)xir_dot_u8i8x4((int32_t)x[0].i, (uint32_t)x[1].u, (uint32_t)x[2].u)); return true;
    case XIR_OP_DOT_I16X2: *out = scalar_wrap(TIR_I32, (uint64_t)(int64_t)xir_dot_i16x2((int32_t)x[0].i, (uint32_t)x[1].u, (uint32_t)x[2].u)); return true;
    case XIR_OP_SELECT: *out = x[0].u ? x[1] : x[2]; return true;
    case XIR_OP_AND:
    case XIR_OP_OR:
    case XIR_OP_XOR:
    case XIR_OP_NOT: *out = bitwise(op, t, x[0], xir_arith_arity(op) > 1 ? x[1] : x[0]); return true;
    case XIR_OP_SHL:
    case XIR_OP_SHR: *out = shift(op, t, x[0], x[1]); return true;
    default: break;
    }
    if (t == TIR_F32 && f32_arith(op, x, out)) return true;
    if (op == XIR_OP_FMA) { /* f64 (the class admits floats only) */
        *out = (scalar_cell){.f = fma(x[0].f, x[1].f, x[2].f)};
        return true;
    }
    scalar_cell wide[2] = {widen(t, x[0]), xir_arith_arity(op) > 1 ? widen(t, x[1]) : widen(t, x[0])}, r;
    if ((unsigned)op >= XIR_OP_COUNT || !scalar_apply(shared_op[op], t, wide, &r)) return false;
    /* min/max of f32 operands is one of them: narrowing is exact. */
    *out = t == TIR_F32 && xir_arith_class(op) != XIR_OPC_COMPARE ? cell_f32((float)r.f) : r;
    return true;
}

scalar_cell xir_cell_cast(tir_scalar from, tir_scalar to, scalar_cell x) {
    /* scalar_cast rounds once to f32 and returns that float as a double. */
    scalar_cell r = scalar_cast(from, to, widen(from, x));
    return to == TIR_F32 ? cell_f32((float)r.f) : r;
}

scalar_cell xir_cell_bitcast(tir_scalar from, tir_scalar to, scalar_cell x) {
    uint64_t bits = x.u; /* integers: the low bits are the pattern; f32: already bits */
    if (from == TIR_F64) memcpy(&bits, &x.f, sizeof bits);
    if (from == TIR_F16) bits = half_from_double(x.f); /* f16/bf16 cells hold their exact value */
    if (from == TIR_BF16) bits = bf16_from_double(x.f);
    scalar_cell r;
    if (to == TIR_F64) memcpy(&r.f, &bits, sizeof r.f);
    else if (to == TIR_F16) r.f = half_to_double((uint16_t)bits);
    else if (to == TIR_BF16) r.f = bf16_to_double((uint16_t)bits);
    else if (to == TIR_F32) r.u = (uint32_t)bits;
    else r = scalar_wrap(to, bits);
    return r;
}

/* ---- constant payloads ---- */

scalar_cell xir_cell_of_bits(tir_scalar type, xir_bits x) {
    /* An f32 payload is the exact double of a float: narrowing is exact. */
    if (type == TIR_F32) return cell_f32((float)x.f);
    return (scalar_cell){.u = x.u}; /* f64: the union holds its bits */
}

/* The payload of a cell (an f32 signalling NaN would come back quiet). */
static xir_bits bits_of_cell(tir_scalar type, scalar_cell c) {
    if (type == TIR_F32) return (xir_bits){.f = (double)f32_of(c)};
    return (xir_bits){.u = c.u};
}

bool xir_eval_arith(xir_arith_op op, tir_scalar type, const xir_bits *args, xir_bits *out) {
    scalar_cell x[3] = {{0}, {0}, {0}}, r;
    for (unsigned i = 0; i < xir_arith_arity(op); i++)
        x[i] = xir_cell_of_bits(op == XIR_OP_SELECT && i == 0 ? TIR_BOOL : xir_arith_operand_type(op, i, type), args[i]);
    if (!xir_cell_arith(op, type, x, &r)) return false;
    tir_scalar result = xir_arith_class(op) == XIR_OPC_COMPARE ? TIR_BOOL : type;
    *out = bits_of_cell(result, r);
    return true;
}

xir_bits xir_eval_cast(tir_scalar from, tir_scalar to, xir_bits x) {
    return bits_of_cell(to, xir_cell_cast(from, to, xir_cell_of_bits(from, x)));
}

bool xir_eval_bitcast(tir_scalar from, tir_scalar to, xir_bits x, xir_bits *out) {
    scalar_cell c = xir_cell_bitcast(from, to, xir_cell_of_bits(from, x));
    uint32_t u = (uint32_t)c.u;
    bool signaling = (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) && !(u & 0x00400000u);
    if (to == TIR_F32 && signaling) return false;
    *out = bits_of_cell(to, c);
    return true;
}

uint64_t xir_bits_raw(tir_scalar type, xir_bits x) {
    if (type == TIR_F16) return half_from_double(x.f);
    if (type == TIR_BF16) return bf16_from_double(x.f);
    uint64_t bits = xir_cell_of_bits(type, x).u; /* f32 and f64: their IEEE bits */
    unsigned width = 8u * (unsigned)tir_scalar_size(type);
    return width == 64 ? bits : bits & ((UINT64_C(1) << width) - 1);
}
