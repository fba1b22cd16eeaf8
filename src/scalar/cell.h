/* cell.h — one scalar value as the interpreters hold it, and the element
 * semantics TileIR and XIR share (docs/interpreter.md "Scalars"): integer
 * wrap-around, casts, memory encoding and every elementwise opcode.  The
 * TileIR reference interpreter computes with these rules and XIR's scalar
 * semantics (xir/eval.h) call them, so the oracle and XIR agree by
 * construction.
 *
 * A cell's meaning is fixed by its element type: floats (f32 and f64 alike)
 * in `f` as FP64, signed integers and Index sign-extended in `i`, unsigned
 * integers zero-extended in `u`, bool as u=0/1.  Every function here takes
 * and returns canonical cells.  (XIR's cells hold f32 as its bit pattern
 * instead; xir/eval.h converts at that boundary.) */
#ifndef TILEC_SCALAR_CELL_H
#define TILEC_SCALAR_CELL_H

#include "tilec/scalar.h"

typedef union {
    double f;
    int64_t i;
    uint64_t u;
} scalar_cell;

/* The canonical cell of integer/bool type `t` whose low bits are `bits`. */
scalar_cell scalar_wrap(tir_scalar t, uint64_t bits);
scalar_cell scalar_cast(tir_scalar from, tir_scalar to, scalar_cell x);
scalar_cell scalar_read(tir_scalar t, const unsigned char *p);
void scalar_write(tir_scalar t, unsigned char *p, scalar_cell x);
/* Whether `op` is defined on operands of element type `elem` (SELECT: the
 * value operands); the interpreter refuses anything else before running. */
bool scalar_ew_defined(tir_ew_op op, tir_scalar elem);
/* Applies a non-CAST opcode; `elem` is the operands' element type (SELECT: the
 * value operands'), args[] has the opcode's arity.  False when the opcode has
 * no semantics on `elem`: never for what scalar_ew_defined accepts, so the
 * caller treats false as an internal error. */
bool scalar_apply(tir_ew_op op, tir_scalar elem, const scalar_cell *args, scalar_cell *out);
/* An integer or Index cell as a signed coordinate; unsigned values above
 * INT64_MAX saturate to INT64_MAX (out of range of every view and tile). */
int64_t scalar_coord(tir_scalar t, scalar_cell x);

#endif
