/* eval.h — the scalar semantics of XIR instructions on constant payloads
 * (docs/xir.md "Semantics"): arithmetic, casts and bitcasts on xir_bits in the
 * canonical form of xir.h (ints sign/zero-extended to 64 bits, f32 as the
 * exact double of the f32 value, bool 0/1).  Constant folding uses it; any
 * evaluator of XIR can, so that folded and executed results agree bitwise.
 *
 * Inputs must be canonical for their types and the operand types must satisfy
 * the verifier's rules for the opcode; results are canonical. */
#ifndef TILEC_XIR_EVAL_H
#define TILEC_XIR_EVAL_H

#include "xir/xir.h"

/* `op` on `args` (xir_arith_arity(op) of them).  `type` is the type of the
 * operands: for SELECT the type of the two values (args[0] is the bool
 * condition), for comparisons the compared type (the result is bool).
 * Integers wrap; x / 0 = x % 0 = 0; MIN / -1 = MIN and MIN % -1 = 0; shift
 * amounts are taken modulo the bit width, `shr` is arithmetic on signed types;
 * f32 results are the f32 rounding of the exact result (one rounding for
 * + - * / sqrt); min/max prefer a number to a NaN and order -0 below +0. */
xir_bits xir_eval_arith(xir_arith_op op, tir_scalar type, const xir_bits *args);

/* A value cast: int→int wraps, int→float rounds once, float→int truncates
 * toward zero and saturates (NaN → 0), to bool is `!= 0` (NaN → true), bool
 * is 0 or 1, f64→f32 rounds to nearest even. */
xir_bits xir_eval_cast(tir_scalar from, tir_scalar to, xir_bits x);

/* Reinterprets the bits of `x` (types of equal size, no bool).  False when the
 * result is an f32 signaling NaN, which the canonical f32 form (a double)
 * cannot hold without quieting it. */
bool xir_eval_bitcast(tir_scalar from, tir_scalar to, xir_bits x, xir_bits *out);

/* The raw bits of a canonical payload at the type's width (f32: its IEEE
 * single bits; ints: truncated to the width; bool: 0 or 1). */
uint64_t xir_bits_raw(tir_scalar type, xir_bits x);

#endif
