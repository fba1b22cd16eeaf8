/* eval.c — see eval.h.  Conversions of out-of-range unsigned bit patterns to
 * signed types rely on two's complement (every compiler tilec supports). */
#include "xir/eval.h"

#include <math.h>
#include <string.h>

static unsigned width_of(tir_scalar t) { return 8u * (unsigned)tir_scalar_size(t); }

/* The canonical payload of the low bits of `bits` in integer or bool type t. */
static xir_bits wrap(tir_scalar t, uint64_t bits) {
    xir_bits r;
    switch (t) {
    case TIR_BOOL: r.u = bits != 0; break;
    case TIR_I8: r.i = (int8_t)(uint8_t)bits; break;
    case TIR_I16: r.i = (int16_t)(uint16_t)bits; break;
    case TIR_I32: r.i = (int32_t)(uint32_t)bits; break;
    case TIR_U8: r.u = (uint8_t)bits; break;
    case TIR_U16: r.u = (uint16_t)bits; break;
    case TIR_U32: r.u = (uint32_t)bits; break;
    default: r.u = bits; break; /* i64, u64 */
    }
    return r;
}

static xir_bits real(tir_scalar t, double d) {
    xir_bits r;
    r.f = t == TIR_F32 ? (double)(float)d : d;
    return r;
}

static xir_bits boolean(bool b) { return (xir_bits){.u = b}; }

/* IEEE minimumNumber / maximumNumber: a NaN loses to a number; -0 < +0. */
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

static xir_bits eval_float(xir_arith_op op, tir_scalar t, const xir_bits *x) {
    double a = x[0].f, b = xir_arith_arity(op) > 1 ? x[1].f : 0.0;
    switch (op) {
    case XIR_OP_ADD: return real(t, a + b);
    case XIR_OP_SUB: return real(t, a - b);
    case XIR_OP_MUL: return real(t, a * b);
    case XIR_OP_DIV: return real(t, a / b);
    case XIR_OP_NEG: return real(t, -a);
    case XIR_OP_ABS: return real(t, fabs(a));
    case XIR_OP_MIN: return real(t, float_min(a, b));
    case XIR_OP_MAX: return real(t, float_max(a, b));
    case XIR_OP_EXP: return real(t, exp(a));
    case XIR_OP_LOG: return real(t, log(a));
    case XIR_OP_SQRT: return real(t, sqrt(a));
    case XIR_OP_TANH: return real(t, tanh(a));
    case XIR_OP_EQ: return boolean(a == b);
    case XIR_OP_NE: return boolean(a != b);
    case XIR_OP_LT: return boolean(a < b);
    case XIR_OP_LE: return boolean(a <= b);
    case XIR_OP_GT: return boolean(a > b);
    case XIR_OP_GE: return boolean(a >= b);
    default: return real(t, 0.0); /* not defined on floats: the verifier rejects it */
    }
}

static int compare(bool is_signed, xir_bits a, xir_bits b) {
    if (is_signed) return (a.i > b.i) - (a.i < b.i);
    return (a.u > b.u) - (a.u < b.u);
}

static xir_bits eval_integer(xir_arith_op op, tir_scalar t, const xir_bits *x) {
    bool is_signed = tir_scalar_is_signed(t);
    xir_bits a = x[0], b = xir_arith_arity(op) > 1 ? x[1] : x[0];
    unsigned shift = (unsigned)(b.u & (width_of(t) - 1));
    switch (op) {
    case XIR_OP_ADD: return wrap(t, a.u + b.u);
    case XIR_OP_SUB: return wrap(t, a.u - b.u);
    case XIR_OP_MUL: return wrap(t, a.u * b.u);
    case XIR_OP_NEG: return wrap(t, 0 - a.u);
    case XIR_OP_ABS: return is_signed && a.i < 0 ? wrap(t, 0 - a.u) : a;
    case XIR_OP_DIV:
        if (b.u == 0) return wrap(t, 0);
        if (!is_signed) return wrap(t, a.u / b.u);
        if (b.i == -1) return wrap(t, 0 - a.u); /* MIN / -1 wraps to MIN */
        return wrap(t, (uint64_t)(a.i / b.i));
    case XIR_OP_MOD:
        if (b.u == 0 || (is_signed && b.i == -1)) return wrap(t, 0);
        return is_signed ? wrap(t, (uint64_t)(a.i % b.i)) : wrap(t, a.u % b.u);
    case XIR_OP_MIN: return compare(is_signed, a, b) <= 0 ? a : b;
    case XIR_OP_MAX: return compare(is_signed, a, b) >= 0 ? a : b;
    case XIR_OP_EQ: return boolean(compare(is_signed, a, b) == 0);
    case XIR_OP_NE: return boolean(compare(is_signed, a, b) != 0);
    case XIR_OP_LT: return boolean(compare(is_signed, a, b) < 0);
    case XIR_OP_LE: return boolean(compare(is_signed, a, b) <= 0);
    case XIR_OP_GT: return boolean(compare(is_signed, a, b) > 0);
    case XIR_OP_GE: return boolean(compare(is_signed, a, b) >= 0);
    /* bool payloads are 0/1, so the bitwise forms are the logical ones there */
    case XIR_OP_AND: return wrap(t, a.u & b.u);
    case XIR_OP_OR: return wrap(t, a.u | b.u);
    case XIR_OP_XOR: return wrap(t, a.u ^ b.u);
    case XIR_OP_NOT: return t == TIR_BOOL ? boolean(!a.u) : wrap(t, ~a.u);
    case XIR_OP_SHL: return wrap(t, a.u << shift);
    case XIR_OP_SHR: return is_signed ? wrap(t, (uint64_t)(a.i >> shift)) : wrap(t, a.u >> shift);
    default: return wrap(t, 0); /* not defined on integers: the verifier rejects it */
    }
}

xir_bits xir_eval_arith(xir_arith_op op, tir_scalar type, const xir_bits *args) {
    if (op == XIR_OP_SELECT) return args[0].u ? args[1] : args[2];
    return tir_scalar_is_float(type) ? eval_float(op, type, args) : eval_integer(op, type, args);
}

/* Truncation toward zero, NaN -> 0, saturation at the range of integer type t. */
static xir_bits float_to_integer(tir_scalar t, double x) {
    xir_bits r;
    unsigned w = width_of(t);
    if (isnan(x)) return wrap(t, 0);
    if (tir_scalar_is_signed(t)) {
        double limit = ldexp(1.0, (int)w - 1); /* 2^(w-1), exact */
        if (x <= -limit) r.i = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
        else if (x >= limit) r.i = w == 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1;
        else r.i = (int64_t)x;
        return r;
    }
    if (x < 1.0) r.u = 0; /* negative values saturate, fractions truncate */
    else if (x >= ldexp(1.0, (int)w)) r.u = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    else r.u = (uint64_t)x;
    return r;
}

xir_bits xir_eval_cast(tir_scalar from, tir_scalar to, xir_bits x) {
    bool from_float = tir_scalar_is_float(from);
    if (to == TIR_BOOL) return boolean(from_float ? x.f != 0.0 : x.u != 0);
    if (tir_scalar_is_float(to)) {
        xir_bits r;
        /* one rounding, straight from the integer (never through f64) */
        if (to == TIR_F32)
            r.f = from_float                   ? (double)(float)x.f
                  : tir_scalar_is_signed(from) ? (double)(float)x.i
                                               : (double)(float)x.u;
        else
            r.f = from_float ? x.f : tir_scalar_is_signed(from) ? (double)x.i : (double)x.u;
        return r;
    }
    return from_float ? float_to_integer(to, x.f) : wrap(to, x.u);
}

uint64_t xir_bits_raw(tir_scalar type, xir_bits x) {
    if (type == TIR_F32) {
        float f = (float)x.f;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    if (type == TIR_F64) return x.u;
    unsigned w = width_of(type);
    return w == 64 ? x.u : x.u & ((UINT64_C(1) << w) - 1);
}

bool xir_eval_bitcast(tir_scalar from, tir_scalar to, xir_bits x, xir_bits *out) {
    uint64_t raw = xir_bits_raw(from, x);
    if (to == TIR_F32) {
        uint32_t u = (uint32_t)raw;
        bool signaling = (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) && !(u & 0x00400000u);
        if (signaling) return false;
        float f;
        memcpy(&f, &u, sizeof f);
        out->f = f;
        return true;
    }
    if (to == TIR_F64) {
        out->u = raw;
        return true;
    }
    *out = wrap(to, raw);
    return true;
}
