/* gemm.c — references for gemm.tir (C = A·B, B is [K,N]), gemm_bt.tir
 * (C = A·Bᵀ, B is [N,K]), gemm_bf16.tir (C = A·B on bf16 A and B, C f32) and
 * bmm.tir (C[b] = A[b]·B[b] for every batch b): a triple loop with an FP64
 * accumulator over the inputs widened exactly.  The block sizes BM/BN/BK do
 * not change the result, so they are not read. */
#include "kernels.h"

/* Element i of an input of type elem (f32 or bf16), exactly. */
static double input_at(const void *x, tir_scalar elem, int64_t i) {
    return elem == TIR_BF16 ? example_bf16_at(x, i) : (double)((const float *)x)[i];
}

static bool gemm_reference(const tir_func *f, const void *const *args, double *const *expected, bool b_transposed,
                           int64_t batches, tir_scalar elem) {
    int64_t M = example_shape(f, "M", 64), N = example_shape(f, "N", 80), K = example_shape(f, "K", 48);
    const void *A = example_input(f, args, 0, elem), *B = example_input(f, args, 1, elem);
    double *C = expected[2];
    if (M < 0 || N < 0 || K < 0 || batches < 0 || !A || !B || !C) return false;
    for (int64_t b = 0; b < batches; b++, C += M * N)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sum = 0.0;
                for (int64_t k = 0; k < K; k++)
                    sum += input_at(A, elem, b * M * K + i * K + k) *
                           input_at(B, elem, b * K * N + (b_transposed ? j * K + k : k * N + j));
                C[i * N + j] = sum;
            }
    return true;
}

bool example_gemm(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, false, 1, TIR_F32);
}

bool example_gemm_bt(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, true, 1, TIR_F32);
}

bool example_bmm(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, false, example_shape(f, "BATCH", 3), TIR_F32);
}

bool example_gemm_bf16(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, false, 1, TIR_BF16);
}
