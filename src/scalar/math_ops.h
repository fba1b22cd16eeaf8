/* math_ops.h — the math library's elementwise functions, one list every
 * layer expands (docs/tir.md "Math functions"), so the opcode tables, the
 * interpreters, lowering, the SIMD backend and the planner never disagree:
 *
 *   TIR_SLEEF_MATH1/2(X)  X(OPCODE, libm double, libm float, SLEEF stem):
 *                         unary / binary float functions the SIMD backend
 *                         calls SLEEF's 1-ulp (u10) vector entry for; both
 *                         interpreters use libm (double for the TileIR
 *                         reference, float for the XIR interpreter); XIR
 *                         never folds them (their results are specified
 *                         only within the backend's ulp bound);
 *   TIR_ROUNDING_MATH(X)  X(OPCODE, libm double, libm float, LLVM intrinsic):
 *                         exact unary functions (an LLVM intrinsic natively),
 *                         folded like any exact op.
 * sigmoid and rsqrt are TileIR opcodes lowered to exp/div and sqrt/div
 * (lower/values.c); they are not in these lists. */
#ifndef TILEC_SCALAR_MATH_OPS_H
#define TILEC_SCALAR_MATH_OPS_H

#define TIR_SLEEF_MATH1(X) \
    X(EXP, exp, expf, exp) X(LOG, log, logf, log) X(TANH, tanh, tanhf, tanh) X(ERF, erf, erff, erf) \
    X(SIN, sin, sinf, sin) X(COS, cos, cosf, cos) X(TAN, tan, tanf, tan) X(ASIN, asin, asinf, asin) \
    X(ACOS, acos, acosf, acos) X(ATAN, atan, atanf, atan) X(SINH, sinh, sinhf, sinh) X(COSH, cosh, coshf, cosh) \
    X(EXPM1, expm1, expm1f, expm1) X(LOG1P, log1p, log1pf, log1p) X(EXP2, exp2, exp2f, exp2) \
    X(LOG2, log2, log2f, log2) X(LOG10, log10, log10f, log10) X(CBRT, cbrt, cbrtf, cbrt)

#define TIR_SLEEF_MATH2(X) X(POW, pow, powf, pow) X(ATAN2, atan2, atan2f, atan2)

#define TIR_ROUNDING_MATH(X) \
    X(FLOOR, floor, floorf, "llvm.floor") X(CEIL, ceil, ceilf, "llvm.ceil") X(ROUND, round, roundf, "llvm.round") \
    X(TRUNC, trunc, truncf, "llvm.trunc")

#endif
