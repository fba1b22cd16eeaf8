/* math_edges.h — the math functions' range edges, where SLEEF 3.5's u10
 * routines are off (overflowing to ±inf short of the real thresholds, or 2
 * ulps off for tiny arguments): the lanes there recomputed from other calls
 * of the same provider, in the value's shape (a scalar or a <W x T>
 * packet).  Shared by the backends whose math is SLEEF's (the SIMD backend;
 * the GPU backend's code when it runs on the host) or may be (libdevice).
 * The cases and the error of each repair are in math_edges.c. */
#ifndef TILEC_CODEGEN_MATH_EDGES_H
#define TILEC_CODEGEN_MATH_EDGES_H

#include "codegen/scalar.h"

/* r = raw(fn, x) (already computed) with the lanes of fn's edge regions
 * recomputed through `raw`; r itself for functions without such edges.
 * May add basic blocks after the current one (a repair runs only when some
 * lane needs it): the builder is left at the end of the block r's users
 * are in. */
LLVMValueRef cg_math_edges(cg_builder *g, cg_math_fn raw, const char *fn, tir_scalar t, LLVMValueRef *x,
                           LLVMValueRef r);

#endif
