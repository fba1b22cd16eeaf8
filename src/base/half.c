/* half.c — exact 16-bit float conversions (half.h), one routine for both
 * formats: the magnitude scaled to an integer count of the format's
 * quantum at its exponent, rounded to nearest even by nearbyint (the
 * default rounding mode), which also carries a rounded-up significand into
 * the next binade or to infinity through the encoding. */
#include "base/half.h"

#include <math.h>
#include <string.h>

typedef struct {
    int exponent_bits, fraction_bits;
} format;

static const format F16 = {5, 10}, BF16 = {8, 7};

static uint16_t narrow(double x, format f) {
    uint16_t sign = signbit(x) ? (uint16_t)(1u << 15) : 0;
    uint16_t exp_all = (uint16_t)(((1u << f.exponent_bits) - 1) << f.fraction_bits);
    if (isnan(x)) {
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        uint16_t payload = (uint16_t)((bits >> (52 - f.fraction_bits)) & ((1u << f.fraction_bits) - 1));
        return sign | exp_all | (uint16_t)(1u << (f.fraction_bits - 1)) | payload;
    }
    double a = fabs(x);
    if (isinf(a)) return sign | exp_all;
    int bias = (1 << (f.exponent_bits - 1)) - 1, e;
    frexp(a, &e); /* a = m·2^e, m in [0.5, 1): the exponent of a is e − 1 */
    int exponent = e - 1 < 1 - bias ? 1 - bias : e - 1; /* subnormals share the smallest normal's quantum */
    double q = nearbyint(ldexp(a, f.fraction_bits - exponent)); /* a in quanta of 2^(exponent − fraction_bits) */
    /* q < 2^fraction_bits: a subnormal (its bits are q); otherwise q in
     * [2^f, 2^(f+1)]: the biased exponent field then the fraction, and
     * q = 2^(f+1) rolls over into the next binade by the addition */
    uint32_t field = exponent + bias - 1 + (q >= ldexp(1, f.fraction_bits) ? 1 : 0);
    uint32_t bits = q < ldexp(1, f.fraction_bits) ? (uint32_t)q
                                                  : (field << f.fraction_bits) + ((uint32_t)q - (1u << f.fraction_bits));
    if (bits >= exp_all) return sign | exp_all; /* overflow: ±inf */
    return sign | (uint16_t)bits;
}

static double widen(uint16_t h, format f) {
    int bias = (1 << (f.exponent_bits - 1)) - 1;
    uint32_t field = (h >> f.fraction_bits) & ((1u << f.exponent_bits) - 1), fraction = h & ((1u << f.fraction_bits) - 1);
    double sign = h >> 15 ? -1.0 : 1.0;
    if (field == (1u << f.exponent_bits) - 1) {
        if (!fraction) return sign * INFINITY;
        uint64_t bits = (uint64_t)(h >> 15) << 63 | (uint64_t)0x7ff << 52 | (uint64_t)fraction << (52 - f.fraction_bits);
        double nan;
        memcpy(&nan, &bits, sizeof nan);
        return nan;
    }
    if (!field) return sign * ldexp(fraction, 1 - bias - f.fraction_bits);
    return sign * ldexp(fraction + (1u << f.fraction_bits), (int)field - bias - f.fraction_bits);
}

uint16_t half_from_double(double x) { return narrow(x, F16); }
double half_to_double(uint16_t h) { return widen(h, F16); }
uint16_t bf16_from_double(double x) { return narrow(x, BF16); }
double bf16_to_double(uint16_t h) { return widen(h, BF16); }
