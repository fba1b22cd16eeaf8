/* Hand-written float32 causal GQA attention: the straightforward C peer of
 * examples/attention.tir.  One output row per (batch, head, query), split over
 * OpenMP threads (schedule static); per row, pass 1 computes the scaled scores
 * of the valid keys and their max into a per-thread buffer, pass 2
 * exponentiates, sums and accumulates p·V, then divides.  This is the exact
 * softmax the online recurrence of the kernel computes, without its blocking.
 *
 * Masking is bottom-right causal: key k is valid for query q when
 * k <= q + Lk − Lq (and k < Lk), so only the valid prefix is visited.  KV head
 * kh = h / (Hq/Hkv).  Scale is 1/sqrt(D) in float, as the kernel computes it.
 * Dot products and the p·V update are `omp simd` loops (vectorised over D and
 * Dv); expf is scalar libm (no libmvec without -ffast-math, see c_rows.c). */
#include "peers.h"

#include <math.h>
#include <stdlib.h>

static float dot(const float *a, const float *b, int n)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void c_attention(const float *q, const float *k, const float *v, float *o,
                 int B, int Hq, int Hkv, int Lq, int Lk, int D, int Dv)
{
    const int group = Hq / Hkv;
    const float scale = 1.0f / sqrtf((float)D);
    const long nrows = (long)B * Hq * Lq;
#pragma omp parallel
    {
        /* Per-thread scratch: scores of one row and its output accumulator. */
        float *s = malloc(sizeof(float) * ((size_t)Lk + (size_t)Dv));
        float *acc = s ? s + Lk : NULL;
#pragma omp for schedule(static)
        for (long row = 0; row < nrows; row++) {
            if (!s)
                continue; /* out of memory: leave the row; the check reports it */
            const int qi = (int)(row % Lq);
            const long bh = row / Lq;            /* b * Hq + h */
            const int h = (int)(bh % Hq), b = (int)(bh / Hq);
            const long kvh = (long)b * Hkv + h / group;
            const float *qr = q + (size_t)row * D;
            const float *kb = k + (size_t)kvh * Lk * D;
            const float *vb = v + (size_t)kvh * Lk * Dv;
            float *orow = o + (size_t)row * Dv;
            int nk = qi + Lk - Lq + 1; /* valid keys 0..nk-1 */
            if (nk > Lk)
                nk = Lk;

            float mx = -1.0e30f;
            for (int j = 0; j < nk; j++) {
                s[j] = dot(qr, kb + (size_t)j * D, D) * scale;
                mx = s[j] > mx ? s[j] : mx;
            }
            for (int d = 0; d < Dv; d++)
                acc[d] = 0.0f;
            float sum = 0.0f;
            for (int j = 0; j < nk; j++) {
                const float p = expf(s[j] - mx);
                const float *vr = vb + (size_t)j * Dv;
                sum += p;
#pragma omp simd
                for (int d = 0; d < Dv; d++)
                    acc[d] += p * vr[d];
            }
#pragma omp simd
            for (int d = 0; d < Dv; d++)
                orow[d] = acc[d] / sum;
        }
        free(s);
    }
}
