/* scalar.h — XIR's value semantics (xir/eval.h) as LLVM IR, shared by the
 * backends that generate code through LLVM: the SIMD backend (src/simd),
 * whose values are scalars (uniform) or <W x T> packets, and the GPU
 * backend (src/gpu), whose values are one thread's scalars.  Every function
 * takes values of either shape and returns the same shape.
 *
 * Types: bool is i1 in registers and i8 in memory; f16/bf16 values are their
 * 16 bits (only moved and converted, computed on as f32).  Arithmetic
 * follows src/xir/eval.c bit for bit: integer div/mod by zero give 0 and
 * MIN / -1 wraps (divisors sanitized on every lane, so no lane traps);
 * float→int casts saturate with NaN → 0; min/max prefer the number to a NaN
 * and order -0 below +0.  The math functions of scalar/math_ops.h are the
 * backend's (cg_builder.math: SLEEF on the CPU, libdevice on the GPU). */
#ifndef TILEC_CODEGEN_SCALAR_H
#define TILEC_CODEGEN_SCALAR_H

#include "xir/xir.h"

#include <llvm-c/Core.h>

typedef struct cg_builder cg_builder;

/* A math function (the SLEEF stem of scalar/math_ops.h: "exp", "pow", ...) of
 * argc (1 or 2) operands x of type t, in the shape of x[0]. */
typedef LLVMValueRef (*cg_math_fn)(cg_builder *g, const char *stem, tir_scalar t, LLVMValueRef *x, unsigned argc);

struct cg_builder {
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64;
    uint32_t W;       /* lanes of the vector shape (1 for a backend of scalars) */
    bool hw_half;     /* LLVM's fpext/fptrunc between half and float are exact instructions (F16C, PTX cvt) */
    bool dot_bf16;    /* vdpbf16ps at this width (AVX512-BF16, and VL below 16 lanes): dot_bf16x2's vectors */
    bool dot_int8;    /* vpdpbusd and vpdpwssd at this width (AVX512-VNNI, and VL below 16 lanes) */
    cg_math_fn math;
};

/* The types and constants of c in m, positioned nowhere (b is created;
 * LLVMDisposeBuilder(g->b) when done). */
void cg_builder_init(cg_builder *g, LLVMModuleRef m, uint32_t width, bool hw_half, cg_math_fn math);

LLVMTypeRef cg_scalar_type(cg_builder *e, tir_scalar s);
LLVMTypeRef cg_mem_type(cg_builder *e, tir_scalar s); /* bool: i8 */
LLVMTypeRef cg_vec_of(cg_builder *e, LLVMTypeRef t);  /* <W x t> */
bool cg_is_vec(LLVMValueRef v);
unsigned cg_align_of(tir_scalar s);
LLVMValueRef cg_splat(cg_builder *e, LLVMValueRef v); /* a vector stays as it is */
LLVMValueRef cg_intrinsic(cg_builder *e, const char *name, LLVMTypeRef *types, size_t n_types, LLVMValueRef *args,
                          unsigned n_args);
LLVMValueRef cg_const_i32(cg_builder *e, uint64_t v);
LLVMValueRef cg_const_i64(cg_builder *e, uint64_t v);
LLVMValueRef cg_constant(cg_builder *e, const xir_value *v); /* an XIR constant, exactly */
LLVMValueRef cg_sel(cg_builder *e, LLVMValueRef c, LLVMValueRef t, LLVMValueRef f);
/* Whether any lane of an i1 vector is set (an i1). */
LLVMValueRef cg_any_lane(cg_builder *e, LLVMValueRef mask);
/* A value conversion (XIR cast semantics). */
LLVMValueRef cg_convert(cg_builder *e, tir_scalar from, tir_scalar to, LLVMValueRef v);
/* Registers ↔ memory (bool i1 ↔ i8; others unchanged). */
LLVMValueRef cg_to_mem(cg_builder *e, tir_scalar s, LLVMValueRef v);
LLVMValueRef cg_from_mem(cg_builder *e, tir_scalar s, LLVMValueRef v);
/* An arith op on operands of type t (select: a the condition, b and c the
 * values; fma: a·b + c; unused operands NULL). */
LLVMValueRef cg_arith(cg_builder *e, xir_arith_op op, tir_scalar t, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);

#endif
