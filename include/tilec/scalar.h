/* tilec/scalar.h — the element vocabulary TileIR, XIR and the runtime share:
 * the scalar element types (tir_scalar), the elementwise opcodes (tir_ew_op)
 * with their name, size and class tables, and a kernel argument's bytes
 * (tir_buffer).  tilec/tir.h includes it; the runtime library libtilec_rt
 * implements these tables too (docs/aot.md "The runtime library"). */
#ifndef TILEC_SCALAR_H
#define TILEC_SCALAR_H

#include "tilec/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scalar element types: X(enum suffix, text name, size in bytes) ---- */
#define TIR_SCALARS(X) \
    X(BOOL, "bool", 1) \
    X(I8, "i8", 1) X(U8, "u8", 1) X(I16, "i16", 2) X(U16, "u16", 2) \
    X(I32, "i32", 4) X(U32, "u32", 4) X(I64, "i64", 8) X(U64, "u64", 8) \
    X(F32, "f32", 4) X(F64, "f64", 8) X(F16, "f16", 2) X(BF16, "bf16", 2)

typedef enum {
    TIR_SCALAR_INVALID = 0,
#define X(e, name, size) TIR_##e,
    TIR_SCALARS(X)
#undef X
    TIR_SCALAR_COUNT
} tir_scalar;

/* ---- elementwise opcodes: X(enum suffix, text name, arity, class) ----
 * Classes: NUMERIC (any non-bool type), INTEGER, FLOAT, COMPARE (bool result),
 * LOGICAL (bool only), CAST, SELECT (cond, true, false). */
#define TIR_EW_OPCODES(X) \
    X(ADD, "add", 2, NUMERIC) X(SUB, "sub", 2, NUMERIC) X(MUL, "mul", 2, NUMERIC) \
    X(DIV, "div", 2, NUMERIC) X(MOD, "mod", 2, INTEGER) X(NEG, "neg", 1, NUMERIC) \
    X(MIN, "min", 2, NUMERIC) X(MAX, "max", 2, NUMERIC) X(CAST, "cast", 1, CAST) \
    X(SELECT, "select", 3, SELECT) \
    X(EQ, "eq", 2, COMPARE) X(NE, "ne", 2, COMPARE) X(LT, "lt", 2, COMPARE) \
    X(LE, "le", 2, COMPARE) X(GT, "gt", 2, COMPARE) X(GE, "ge", 2, COMPARE) \
    X(AND, "and", 2, LOGICAL) X(OR, "or", 2, LOGICAL) X(NOT, "not", 1, LOGICAL) \
    X(EXP, "exp", 1, FLOAT) X(LOG, "log", 1, FLOAT) X(SQRT, "sqrt", 1, FLOAT) \
    X(TANH, "tanh", 1, FLOAT) X(ABS, "abs", 1, NUMERIC) \
    X(ERF, "erf", 1, FLOAT) X(SIGMOID, "sigmoid", 1, FLOAT) X(RSQRT, "rsqrt", 1, FLOAT) \
    X(SIN, "sin", 1, FLOAT) X(COS, "cos", 1, FLOAT) X(TAN, "tan", 1, FLOAT) \
    X(ASIN, "asin", 1, FLOAT) X(ACOS, "acos", 1, FLOAT) X(ATAN, "atan", 1, FLOAT) \
    X(SINH, "sinh", 1, FLOAT) X(COSH, "cosh", 1, FLOAT) X(EXPM1, "expm1", 1, FLOAT) \
    X(LOG1P, "log1p", 1, FLOAT) X(EXP2, "exp2", 1, FLOAT) X(LOG2, "log2", 1, FLOAT) \
    X(LOG10, "log10", 1, FLOAT) X(CBRT, "cbrt", 1, FLOAT) X(POW, "pow", 2, FLOAT) \
    X(ATAN2, "atan2", 2, FLOAT) X(FLOOR, "floor", 1, FLOAT) X(CEIL, "ceil", 1, FLOAT) \
    X(ROUND, "round", 1, FLOAT) X(TRUNC, "trunc", 1, FLOAT)

typedef enum {
    TIR_EW_INVALID = 0,
#define X(e, name, arity, cls) TIR_EW_##e,
    TIR_EW_OPCODES(X)
#undef X
    TIR_EW_COUNT
} tir_ew_op;

typedef enum {
    TIR_EWC_NUMERIC, TIR_EWC_INTEGER, TIR_EWC_FLOAT, TIR_EWC_COMPARE,
    TIR_EWC_LOGICAL, TIR_EWC_CAST, TIR_EWC_SELECT
} tir_ew_class;

/* ---- scalar and opcode tables ---- */
TILEC_API const char *tir_scalar_name(tir_scalar s);
TILEC_API size_t tir_scalar_size(tir_scalar s);
TILEC_API bool tir_scalar_is_float(tir_scalar s);  /* f16, bf16, f32, f64 */
/* f16 and bf16: storage types (docs/tir.md "Half-precision types"): cast,
 * select, load and store only; compute after a cast to f32. */
TILEC_API bool tir_scalar_is_half(tir_scalar s);
TILEC_API bool tir_scalar_is_integer(tir_scalar s); /* excludes bool */
TILEC_API bool tir_scalar_is_signed(tir_scalar s);
TILEC_API tir_scalar tir_scalar_from_name(const char *name, size_t len); /* INVALID if unknown */
TILEC_API const char *tir_ew_name(tir_ew_op op);
TILEC_API unsigned tir_ew_arity(tir_ew_op op);
TILEC_API tir_ew_class tir_ew_class_of(tir_ew_op op);
TILEC_API tir_ew_op tir_ew_from_name(const char *name, size_t len);

/* A kernel argument: the bytes of one view (C order).  size_bytes must be at
 * least the view's volume × element size.  Two arguments may share memory. */
typedef struct {
    void *data;
    size_t size_bytes;
} tir_buffer;

#ifdef __cplusplus
}
#endif
#endif
