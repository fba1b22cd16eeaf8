/* cell.c — the scalar semantics TileIR's reference interpreter and XIR share
 * (cell.h): integer wrap-around, casts, memory encoding and every elementwise
 * opcode (docs/interpreter.md "Scalars").
 *
 * Invariant: every cell handled here is canonical for its element type (see
 * cell.h): results are re-canonicalized with scalar_wrap, so comparisons and
 * divisions may read `i` or `u` directly.  Conversions of out-of-range unsigned
 * bit patterns to signed types rely on two's complement (guaranteed by C23 and by
 * every compiler tilec supports). */
#include "scalar/cell.h"
#include "base/half.h"
#include "scalar/math_ops.h"

#include <math.h>
#include <string.h>

typedef enum { CAT_BOOL, CAT_SIGNED, CAT_UNSIGNED, CAT_FLOAT } category;

static category category_of(tir_scalar t) {
    if (t == TIR_BOOL) return CAT_BOOL;
    if (tir_scalar_is_float(t)) return CAT_FLOAT;
    return tir_scalar_is_signed(t) ? CAT_SIGNED : CAT_UNSIGNED;
}

static unsigned width_of(tir_scalar t) { return 8u * (unsigned)tir_scalar_size(t); }

/* Decided by width and signedness, so every type has an answer (callers pass
 * integer and bool types only; a float "wraps" like the unsigned type of its
 * width, which no caller asks for). */
scalar_cell scalar_wrap(tir_scalar t, uint64_t bits) {
    scalar_cell c;
    bool is_signed = category_of(t) == CAT_SIGNED;
    if (t == TIR_BOOL) {
        c.u = bits != 0;
        return c;
    }
    switch (width_of(t)) {
    case 8: if (is_signed) c.i = (int8_t)(uint8_t)bits; else c.u = (uint8_t)bits; break;
    case 16: if (is_signed) c.i = (int16_t)(uint16_t)bits; else c.u = (uint16_t)bits; break;
    case 32: if (is_signed) c.i = (int32_t)(uint32_t)bits; else c.u = (uint32_t)bits; break;
    default: c.u = bits; break; /* 64 bits: the cell is the bit pattern */
    }
    return c;
}

/* Truncation toward zero, NaN -> 0, saturation at the range of `to`. */
static scalar_cell float_to_integer(tir_scalar to, double x) {
    scalar_cell c;
    unsigned w = width_of(to);
    if (isnan(x)) return scalar_wrap(to, 0);
    if (category_of(to) == CAT_SIGNED) {
        double limit = ldexp(1.0, (int)w - 1); /* 2^(w-1), exact */
        if (x <= -limit) c.i = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
        else if (x >= limit) c.i = w == 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1;
        else c.i = (int64_t)x;
        return c;
    }
    if (x < 1.0) c.u = 0; /* negative values saturate, fractions truncate */
    else if (x >= ldexp(1.0, (int)w)) c.u = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    else c.u = (uint64_t)x;
    return c;
}

scalar_cell scalar_cast(tir_scalar from, tir_scalar to, scalar_cell x) {
    category src = category_of(from);
    scalar_cell c;
    switch (category_of(to)) {
    case CAT_FLOAT:
        /* Integer sources convert directly (one rounding, also to f32;
         * to f16/bf16 through double, exact up to 2^53). */
        if (tir_scalar_is_half(to)) {
            c.f = src == CAT_FLOAT ? x.f : src == CAT_SIGNED ? (double)x.i : (double)x.u;
            c.f = to == TIR_F16 ? half_to_double(half_from_double(c.f)) : bf16_to_double(bf16_from_double(c.f));
        } else if (to == TIR_F32)
            c.f = src == CAT_FLOAT ? (double)(float)x.f : src == CAT_SIGNED ? (double)(float)x.i : (double)(float)x.u;
        else
            c.f = src == CAT_FLOAT ? x.f : src == CAT_SIGNED ? (double)x.i : (double)x.u;
        return c;
    case CAT_BOOL:
        c.u = src == CAT_FLOAT ? x.f != 0.0 : x.u != 0;
        return c;
    case CAT_SIGNED:
    case CAT_UNSIGNED: break;
    }
    return src == CAT_FLOAT ? float_to_integer(to, x.f) : scalar_wrap(to, x.u);
}

scalar_cell scalar_read(tir_scalar t, const unsigned char *p) {
    scalar_cell c;
    switch (t) {
    case TIR_F32: {
        float v;
        memcpy(&v, p, sizeof v);
        c.f = v;
        return c;
    }
    case TIR_F64: memcpy(&c.f, p, sizeof c.f); return c;
    case TIR_F16:
    case TIR_BF16: {
        uint16_t h;
        memcpy(&h, p, sizeof h);
        c.f = t == TIR_F16 ? half_to_double(h) : bf16_to_double(h);
        return c;
    }
    default: {
        /* Little- or big-endian alike: read the integer at its own width. */
        uint64_t bits = 0;
        switch (tir_scalar_size(t)) {
        case 1: bits = p[0]; break;
        case 2: { uint16_t v; memcpy(&v, p, 2); bits = v; break; }
        case 4: { uint32_t v; memcpy(&v, p, 4); bits = v; break; }
        default: memcpy(&bits, p, 8); break;
        }
        return scalar_wrap(t, bits);
    }
    }
}

void scalar_write(tir_scalar t, unsigned char *p, scalar_cell x) {
    switch (t) {
    case TIR_F32: {
        float v = (float)x.f;
        memcpy(p, &v, sizeof v);
        return;
    }
    case TIR_F64: memcpy(p, &x.f, sizeof x.f); return;
    case TIR_F16:
    case TIR_BF16: {
        uint16_t h = t == TIR_F16 ? half_from_double(x.f) : bf16_from_double(x.f);
        memcpy(p, &h, sizeof h);
        return;
    }
    default:
        switch (tir_scalar_size(t)) {
        case 1: p[0] = (unsigned char)(t == TIR_BOOL ? x.u != 0 : x.u); return;
        case 2: { uint16_t v = (uint16_t)x.u; memcpy(p, &v, 2); return; }
        case 4: { uint32_t v = (uint32_t)x.u; memcpy(p, &v, 4); return; }
        default: memcpy(p, &x.u, 8); return;
        }
    }
}

bool scalar_ew_defined(tir_ew_op op, tir_scalar elem) {
    if (elem <= TIR_SCALAR_INVALID || elem >= TIR_SCALAR_COUNT || op <= TIR_EW_INVALID || op >= TIR_EW_COUNT)
        return false;
    switch (tir_ew_class_of(op)) {
    case TIR_EWC_NUMERIC: return elem != TIR_BOOL && (op != TIR_EW_NEG || tir_scalar_is_signed(elem));
    case TIR_EWC_INTEGER: return tir_scalar_is_integer(elem);
    case TIR_EWC_FLOAT: return tir_scalar_is_float(elem);
    case TIR_EWC_LOGICAL: return elem == TIR_BOOL;
    case TIR_EWC_COMPARE:
    case TIR_EWC_CAST:
    case TIR_EWC_SELECT: return true;
    }
    return false;
}

/* min/max: a NaN operand loses to a number (IEEE minimumNumber/maximumNumber);
 * -0 orders below +0. */
static double float_min(double a, double b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

static double float_max(double a, double b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static scalar_cell boolean(bool v) { return (scalar_cell){.u = v}; }

/* `*defined` turns false for an opcode without float semantics. */
static scalar_cell apply_float(tir_ew_op op, const scalar_cell *x, bool *defined) {
    double a = x[0].f, b = tir_ew_arity(op) > 1 ? x[1].f : 0.0;
    scalar_cell c;
    switch (op) {
    case TIR_EW_ADD: c.f = a + b; break;
    case TIR_EW_SUB: c.f = a - b; break;
    case TIR_EW_MUL: c.f = a * b; break;
    case TIR_EW_DIV: c.f = a / b; break;
    case TIR_EW_NEG: c.f = -a; break;
    case TIR_EW_ABS: c.f = fabs(a); break;
    case TIR_EW_MIN: c.f = float_min(a, b); break;
    case TIR_EW_MAX: c.f = float_max(a, b); break;
    case TIR_EW_SQRT: c.f = sqrt(a); break;
    case TIR_EW_RSQRT: c.f = 1.0 / sqrt(a); break;
    case TIR_EW_SIGMOID: { /* lowering's formula (lower/values.c): 1/(1 + e^-a) is 0 once e^-a overflows */
        double e = exp(-fabs(a)), s = 1.0 / (1.0 + e);
        c.f = a >= 0 ? s : e * s;
        break;
    }
#define UNARY(e, dbl, flt, stem) \
    case TIR_EW_##e: c.f = dbl(a); break;
#define BINARY(e, dbl, flt, stem) \
    case TIR_EW_##e: c.f = dbl(a, b); break;
        TIR_SLEEF_MATH1(UNARY) TIR_ROUNDING_MATH(UNARY) TIR_SLEEF_MATH2(BINARY)
#undef UNARY
#undef BINARY
    case TIR_EW_EQ: return boolean(a == b);
    case TIR_EW_NE: return boolean(a != b);
    case TIR_EW_LT: return boolean(a < b);
    case TIR_EW_LE: return boolean(a <= b);
    case TIR_EW_GT: return boolean(a > b);
    case TIR_EW_GE: return boolean(a >= b);
    default: *defined = false; c.f = 0.0; break;
    }
    return c;
}

/* -1, 0 or 1 comparing two canonical integer (or bool) cells. */
static int compare_integers(category cat, scalar_cell a, scalar_cell b) {
    if (cat == CAT_SIGNED) return (a.i > b.i) - (a.i < b.i);
    return (a.u > b.u) - (a.u < b.u);
}

/* `*defined` turns false for an opcode without integer semantics. */
static scalar_cell apply_integer(tir_ew_op op, tir_scalar elem, const scalar_cell *x, bool *defined) {
    category cat = category_of(elem);
    scalar_cell a = x[0], b = tir_ew_arity(op) > 1 ? x[1] : x[0];
    bool is_signed = cat == CAT_SIGNED;
    switch (op) {
    /* Two's complement wrap-around: compute on the bits, re-canonicalize. */
    case TIR_EW_ADD: return scalar_wrap(elem, a.u + b.u);
    case TIR_EW_SUB: return scalar_wrap(elem, a.u - b.u);
    case TIR_EW_MUL: return scalar_wrap(elem, a.u * b.u);
    case TIR_EW_NEG: return scalar_wrap(elem, 0 - a.u);
    case TIR_EW_ABS: return is_signed && a.i < 0 ? scalar_wrap(elem, 0 - a.u) : a;
    /* Truncating division; x / 0 = x % 0 = 0; MIN / -1 wraps to MIN. */
    case TIR_EW_DIV:
        if (b.u == 0) return scalar_wrap(elem, 0);
        if (!is_signed) return scalar_wrap(elem, a.u / b.u);
        if (b.i == -1) return scalar_wrap(elem, 0 - a.u);
        return scalar_wrap(elem, (uint64_t)(a.i / b.i));
    case TIR_EW_MOD:
        if (b.u == 0 || (is_signed && b.i == -1)) return scalar_wrap(elem, 0);
        return is_signed ? scalar_wrap(elem, (uint64_t)(a.i % b.i)) : scalar_wrap(elem, a.u % b.u);
    case TIR_EW_MIN: return compare_integers(cat, a, b) <= 0 ? a : b;
    case TIR_EW_MAX: return compare_integers(cat, a, b) >= 0 ? a : b;
    case TIR_EW_EQ: return boolean(compare_integers(cat, a, b) == 0);
    case TIR_EW_NE: return boolean(compare_integers(cat, a, b) != 0);
    case TIR_EW_LT: return boolean(compare_integers(cat, a, b) < 0);
    case TIR_EW_LE: return boolean(compare_integers(cat, a, b) <= 0);
    case TIR_EW_GT: return boolean(compare_integers(cat, a, b) > 0);
    case TIR_EW_GE: return boolean(compare_integers(cat, a, b) >= 0);
    case TIR_EW_AND: return boolean(a.u && b.u);
    case TIR_EW_OR: return boolean(a.u || b.u);
    case TIR_EW_NOT: return boolean(!a.u);
    default: *defined = false; return a;
    }
}

bool scalar_apply(tir_ew_op op, tir_scalar elem, const scalar_cell *args, scalar_cell *out) {
    if (op == TIR_EW_SELECT) {
        *out = args[0].u ? args[1] : args[2];
        return true;
    }
    bool defined = true;
    *out = category_of(elem) == CAT_FLOAT ? apply_float(op, args, &defined) : apply_integer(op, elem, args, &defined);
    return defined;
}

int64_t scalar_coord(tir_scalar t, scalar_cell x) {
    if (category_of(t) == CAT_SIGNED) return x.i;
    return x.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x.u;
}
