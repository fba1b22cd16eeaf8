/* half.h — the 16-bit float storage formats, exactly: IEEE binary16 (f16:
 * 1 sign, 5 exponent, 10 fraction bits) and bfloat16 (bf16: 1, 8, 7 — the
 * upper half of an f32).  Conversions to them round to nearest, ties to
 * even, directly from the double (no double rounding through f32);
 * overflow gives ±inf, tiny values subnormals or ±0; a NaN stays a quiet
 * NaN with its sign and the top fraction bits of its payload.  Widening is
 * exact.  Shared by the interpreters, .npy I/O and the CLI; the SIMD
 * backend emits the same rounding (docs/tir.md "Half-precision types"). */
#ifndef TILEC_BASE_HALF_H
#define TILEC_BASE_HALF_H

#include <stdint.h>

uint16_t half_from_double(double x);
double half_to_double(uint16_t h);
uint16_t bf16_from_double(double x);
double bf16_to_double(uint16_t h);

#endif
