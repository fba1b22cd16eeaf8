/* eval.h — the scalar semantics of XIR (docs/xir.md "Semantics"): the one
 * definition of what arithmetic, casts and bitcasts compute.  The W-lane
 * interpreter evaluates with it on cells, constant folding on constant
 * payloads, so folded and executed results agree by construction.
 *
 * A scalar has two forms, which differ only for f32:
 * - a cell (scalar_cell, scalar/cell.h): signed integers sign-extended in
 *   `i`, unsigned ones zero-extended in `u`, bool 0/1, f64 in `f`, and f32
 *   (unlike in scalar/cell.h's own cells) as its IEEE bit pattern
 *   zero-extended in `u`, so that moving a cell keeps every bit (signalling
 *   NaNs included).  The rules are written on cells;
 * - a constant payload (xir_bits in the canonical form of xir.h): the same,
 *   but f32 is the exact double of the f32 value.  It cannot hold an f32
 *   signalling NaN (widening to double quiets it).
 *
 * Integer arithmetic, comparisons, min/max and casts are the rules the TileIR
 * interpreter uses too (scalar_apply / scalar_cast, src/scalar/cell.c),
 * called here so that the TileIR oracle and XIR agree by construction.  What
 * XIR adds: f32 arithmetic computed in `float` (each result rounded to f32,
 * exp/log/sqrt/tanh through expf & co.), bitwise operations, shifts and
 * bitcasts.
 *
 * Inputs must be canonical for their types and the operand types must satisfy
 * the verifier's rules for the opcode; results are canonical. */
#ifndef TILEC_XIR_EVAL_H
#define TILEC_XIR_EVAL_H

#include "scalar/cell.h" /* scalar_cell and the shared integer/cast rules */
#include "xir/xir.h"

/* ---- cells ---- */

/* `op` on `args` (xir_arith_arity(op) of them).  `type` is the type of the
 * operands: for SELECT the type of the two values (args[0] is the bool
 * condition), for comparisons the compared type (the result is bool).
 * Integers wrap; x / 0 = x % 0 = 0; MIN / -1 = MIN and MIN % -1 = 0; shift
 * amounts are taken modulo the bit width, `shr` is arithmetic on signed types;
 * f32 results are the f32 rounding of the exact result (one rounding for
 * + - * / sqrt); neg/abs only touch the sign bit; min/max prefer a number to
 * a NaN and order -0 below +0; select moves bits.  False (and *out
 * unspecified) when `op` has no semantics on `type`, which the verifier's
 * typing rules exclude: callers treat it as an internal error. */
bool xir_cell_arith(xir_arith_op op, tir_scalar type, const scalar_cell *args, scalar_cell *out);

/* dot_bf16x2, dot_u8i8x4 and dot_i16x2 (xir.h) on one lane: the one definition the interpreter, the
 * constant folder and the fallback code generation agree with. */
float xir_dot_bf16x2(float acc, uint32_t x, uint32_t y);
int32_t xir_dot_u8i8x4(int32_t acc, uint32_t x, uint32_t y);
int32_t xir_dot_i16x2(int32_t acc, uint32_t x, uint32_t y);

/* A value cast: int→int wraps, int→float rounds once, float→int truncates
 * toward zero and saturates (NaN → 0), to bool is `!= 0` (NaN → true), bool
 * is 0 or 1, f64→f32 rounds to nearest even. */
scalar_cell xir_cell_cast(tir_scalar from, tir_scalar to, scalar_cell x);

/* Reinterprets the bits of `x` (types of equal size, no bool). */
scalar_cell xir_cell_bitcast(tir_scalar from, tir_scalar to, scalar_cell x);

/* The cell of a constant payload of `type`. */
scalar_cell xir_cell_of_bits(tir_scalar type, xir_bits x);

/* ---- constant payloads: the cell rules, converted at the boundary ---- */

/* As xir_cell_arith.  From canonical payloads no f32 signalling NaN can
 * arise, so every result is representable. */
bool xir_eval_arith(xir_arith_op op, tir_scalar type, const xir_bits *args, xir_bits *out);

/* As xir_cell_cast. */
xir_bits xir_eval_cast(tir_scalar from, tir_scalar to, xir_bits x);

/* As xir_cell_bitcast.  False when the result is an f32 signalling NaN, which
 * the canonical f32 form cannot hold. */
bool xir_eval_bitcast(tir_scalar from, tir_scalar to, xir_bits x, xir_bits *out);

/* The raw bits of a canonical payload at the type's width (f32: its IEEE
 * single bits; ints: truncated to the width; bool: 0 or 1). */
uint64_t xir_bits_raw(tir_scalar type, xir_bits x);

#endif
