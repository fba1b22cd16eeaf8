/* Hand-written decode projections y = W·x (W row-major N × K): the "C
 * compiled by gcc -O3 -march=native -fopenmp" peer of bench/gemv.c, written
 * as llama.cpp's CPU kernels are (one row's dot product per task, rows split
 * over the OpenMP team): f32 weights; bf16 weights widened by a shift (bf16
 * is the upper half of an f32: exact); int8 weights with an f32 scale per
 * row, converted in registers and scaled once per row; Q8_0 × Q8_0 (weights
 * stored q + 128 as u8, x quantized, a scale per group of each), one integer
 * sum per group.  `omp simd`
 * reductions let gcc vectorize each dot product (AVX-512 with 16 partial
 * sums) without -ffast-math. */
#include "peers.h"

#include <string.h>

void c_gemv(const float *W, const float *x, float *y, int N, int K)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *w = W + (size_t)n * (size_t)K;
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < K; k++) s += w[k] * x[k];
        y[n] = s;
    }
}

void c_gemv_bf16(const uint16_t *W, const float *x, float *y, int N, int K)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const uint16_t *w = W + (size_t)n * (size_t)K;
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < K; k++) {
            uint32_t bits = (uint32_t)w[k] << 16;
            float v;
            memcpy(&v, &bits, sizeof v);
            s += v * x[k];
        }
        y[n] = s;
    }
}

void c_gemv_q8(const int8_t *Q, const float *S, const float *x, float *y, int N, int K)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const int8_t *q = Q + (size_t)n * (size_t)K;
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < K; k++) s += (float)q[k] * x[k];
        y[n] = s * S[n];
    }
}

void c_gemv_q8q(const uint8_t *U, const float *S, const int8_t *xq, const float *D, float *y, int N, int K, int G)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const uint8_t *u = U + (size_t)n * (size_t)K;
        const float *s = S + (size_t)n * (size_t)(K / G);
        float acc = 0.0f;
        for (int g = 0; g < K / G; g++) {
            int32_t sum = 0;
#pragma omp simd reduction(+ : sum)
            for (int k = g * G; k < g * G + G; k++) sum += ((int32_t)u[k] - 128) * (int32_t)xq[k];
            acc += (float)sum * s[g] * D[g];
        }
        y[n] = acc;
    }
}
