/* rope.c — references for rope.tir (split-half rotary embedding with the
 * cosines U and sines V given as [R, W/2] inputs), rope_table.tir (the
 * same with θ = r · 10000^(−j/h) computed, here in FP64) and
 * rope_interleaved.tir (pairs (2j, 2j+1) rotated by U, V). */
#include "kernels.h"

#include <math.h>

/* Rotates pair j of row r by U[r, j], V[r, j]: (X[r, j], X[r, h + j]), or
 * (X[r, 2j], X[r, 2j + 1]) when interleaved. */
static bool rotate_pairs(const tir_func *f, const void *const *args, double *const *expected, bool interleaved) {
    int64_t R = example_shape(f, "R", 17), W = example_shape(f, "W", 66), h = W / 2;
    int64_t step = interleaved ? 2 : 1, partner = interleaved ? 1 : h;
    const float *X = example_f32_input(f, args, 0), *U = example_f32_input(f, args, 1),
                *V = example_f32_input(f, args, 2);
    double *Y = expected[3];
    if (R < 0 || W < 0 || W % 2 || !X || !U || !V || !Y) return false;
    for (int64_t r = 0; r < R; r++)
        for (int64_t j = 0; j < h; j++) {
            int64_t a = r * W + step * j, b = a + partner;
            double xa = X[a], xb = X[b], c = U[r * h + j], s = V[r * h + j];
            Y[a] = xa * c - xb * s;
            Y[b] = xa * s + xb * c;
        }
    return true;
}

bool example_rope(const tir_func *f, const void *const *args, double *const *expected) {
    return rotate_pairs(f, args, expected, false);
}

bool example_rope_table(const tir_func *f, const void *const *args, double *const *expected) {
    int64_t R = example_shape(f, "R", 17), W = example_shape(f, "W", 66), h = W / 2;
    const float *X = example_f32_input(f, args, 0);
    double *Y = expected[1];
    if (R < 0 || W < 0 || W % 2 || !X || !Y) return false;
    for (int64_t r = 0; r < R; r++)
        for (int64_t j = 0; j < h; j++) {
            double theta = (double)r * pow(10000.0, -(double)j / (double)h);
            double xl = X[r * W + j], xr = X[r * W + h + j], c = cos(theta), s = sin(theta);
            Y[r * W + j] = xl * c - xr * s;
            Y[r * W + h + j] = xl * s + xr * c;
        }
    return true;
}

bool example_rope_interleaved(const tir_func *f, const void *const *args, double *const *expected) {
    return rotate_pairs(f, args, expected, true);
}
