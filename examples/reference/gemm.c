/* gemm.c — references for gemm.tir (C = A·B, B is [K,N]), gemm_bt.tir
 * (C = A·Bᵀ, B is [N,K]) and bmm.tir (C[b] = A[b]·B[b] for every batch b): a
 * triple loop with an FP64 accumulator.  The block sizes BM/BN/BK do not
 * change the result, so they are not read. */
#include "kernels.h"

static bool gemm_reference(const tir_func *f, const void *const *args, double *const *expected, bool b_transposed,
                           int64_t batches) {
    int64_t M = example_shape(f, "M", 64), N = example_shape(f, "N", 80), K = example_shape(f, "K", 48);
    const float *A = example_f32_input(f, args, 0), *B = example_f32_input(f, args, 1);
    double *C = expected[2];
    if (M < 0 || N < 0 || K < 0 || batches < 0 || !A || !B || !C) return false;
    for (int64_t b = 0; b < batches; b++, A += M * K, B += K * N, C += M * N)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sum = 0.0;
                for (int64_t k = 0; k < K; k++)
                    sum += (double)A[i * K + k] * (double)(b_transposed ? B[j * K + k] : B[k * N + j]);
                C[i * N + j] = sum;
            }
    return true;
}

bool example_gemm(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, false, 1);
}

bool example_gemm_bt(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, true, 1);
}

bool example_bmm(const tir_func *f, const void *const *args, double *const *expected) {
    return gemm_reference(f, args, expected, false, example_shape(f, "BATCH", 3));
}
