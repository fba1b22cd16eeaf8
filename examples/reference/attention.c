/* attention.c — reference for attention.tir and attention_gqa.tir (whose Q
 * and O are the same memory as [B, Hq, L, D]): causal grouped-query attention
 * computed the textbook way, independent of the kernel's online recurrence:
 * for each query row, every score S[k] = q·k / sqrt(D) over the valid keys
 * (k < Lk, and k <= q + Lk − Lq unless causal=0), one full FP64 softmax (global row max, no
 * running rescale), then P·V.  The block sizes bq/bk do not change the
 * result, so they are not read. */
#include "kernels.h"

#include <math.h>

static double attention_score(const float *q, const float *k, int64_t D, double scale) {
    double dot = 0.0;
    for (int64_t d = 0; d < D; d++) dot += (double)q[d] * k[d];
    return dot * scale;
}

bool example_attention(const tir_func *f, const void *const *args, double *const *expected) {
    int64_t B = example_shape(f, "B", 2), Hq = example_shape(f, "Hq", 4), Hkv = example_shape(f, "Hkv", 2),
            Lq = example_shape(f, "Lq", 7), Lk = example_shape(f, "Lk", 11), D = example_shape(f, "D", 8),
            Dv = example_shape(f, "Dv", 7), causal = example_shape(f, "causal", 1);
    const float *Q = example_f32_input(f, args, 0), *K = example_f32_input(f, args, 1),
                *V = example_f32_input(f, args, 2);
    double *O = expected[3];
    /* Every query needs a valid key (Lq <= Lk) and heads must group evenly. */
    if (B < 0 || Hq < 0 || Hkv < 1 || Hq % Hkv || Lq < 0 || Lk < 1 || (causal && Lk < Lq) || D < 1 || Dv < 0 || !Q ||
        !K || !V || !O)
        return false;
    double scale = 1.0 / sqrt((double)D);
    int64_t group = Hq / Hkv;
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < Hq; h++) {
            int64_t kh = h / group;
            const float *Kh = K + (b * Hkv + kh) * Lk * D, *Vh = V + (b * Hkv + kh) * Lk * Dv;
            for (int64_t q = 0; q < Lq; q++) {
                const float *qr = Q + ((b * Hq + h) * Lq + q) * D;
                double *out = O + ((b * Hq + h) * Lq + q) * Dv;
                int64_t last = causal ? q + Lk - Lq : Lk - 1; /* keys 0..last are valid */
                /* Two passes over the scores: the global row max first, then
                 * the softmax weights with the sum and P·V accumulated. */
                double max = -INFINITY, sum = 0.0;
                for (int64_t k = 0; k <= last; k++) max = fmax(max, attention_score(qr, Kh + k * D, D, scale));
                for (int64_t e = 0; e < Dv; e++) out[e] = 0.0;
                for (int64_t k = 0; k <= last; k++) {
                    double p = exp(attention_score(qr, Kh + k * D, D, scale) - max);
                    sum += p;
                    for (int64_t e = 0; e < Dv; e++) out[e] += p * Vh[k * Dv + e];
                }
                for (int64_t e = 0; e < Dv; e++) out[e] /= sum;
            }
        }
    return true;
}
