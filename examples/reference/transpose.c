/* transpose.c — reference for transpose.tir: Y[j, i] = X[i, j] for an M×N
 * matrix X (the block size B does not change the result). */
#include "kernels.h"

bool example_transpose(const tir_func *f, const void *const *args, double *const *expected) {
    int64_t M = example_shape(f, "M", 37), N = example_shape(f, "N", 70);
    const float *X = example_f32_input(f, args, 0);
    double *Y = expected[1];
    if (M < 0 || N < 0 || !X || !Y) return false;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) Y[j * M + i] = X[i * N + j];
    return true;
}
