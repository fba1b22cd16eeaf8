/* kernels.h — the reference function of every bundled example (one per
 * examples/NAME.tir), listed in table.c, and the input accessor they share. */
#ifndef TILEC_EXAMPLES_KERNELS_H
#define TILEC_EXAMPLES_KERNELS_H

#include "reference.h"

/* Parameter i of f as an array of `elem` when it is a view of that element
 * type, else NULL (a reference reads only the types its kernel declares). */
const void *example_input(const tir_func *f, const void *const *args, size_t i, tir_scalar elem);
/* Parameter i of f as a float array when it is an f32 view, else NULL. */
const float *example_f32_input(const tir_func *f, const void *const *args, size_t i);
/* Element i of a bf16 array (its bits), widened exactly to double. */
double example_bf16_at(const void *data, int64_t i);

bool example_gemm(const tir_func *f, const void *const *args, double *const *expected);
bool example_gemm_bt(const tir_func *f, const void *const *args, double *const *expected);
bool example_gemm_bf16(const tir_func *f, const void *const *args, double *const *expected);
bool example_bmm(const tir_func *f, const void *const *args, double *const *expected);
bool example_softmax(const tir_func *f, const void *const *args, double *const *expected);
bool example_masked_softmax(const tir_func *f, const void *const *args, double *const *expected);
bool example_layernorm(const tir_func *f, const void *const *args, double *const *expected);
bool example_rmsnorm(const tir_func *f, const void *const *args, double *const *expected);
bool example_gelu(const tir_func *f, const void *const *args, double *const *expected);
bool example_gelu_erf(const tir_func *f, const void *const *args, double *const *expected);
bool example_swiglu(const tir_func *f, const void *const *args, double *const *expected);
bool example_rope(const tir_func *f, const void *const *args, double *const *expected);
bool example_rmsnorm_bf16(const tir_func *f, const void *const *args, double *const *expected);
bool example_rope_table(const tir_func *f, const void *const *args, double *const *expected);
bool example_rope_interleaved(const tir_func *f, const void *const *args, double *const *expected);
bool example_transpose(const tir_func *f, const void *const *args, double *const *expected);
bool example_attention(const tir_func *f, const void *const *args, double *const *expected);

#endif
