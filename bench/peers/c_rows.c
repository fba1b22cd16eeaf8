/* Hand-written float32 row operators (and a bfloat16 RMSNorm): the "C
 * compiled by gcc -O3 -march=native -fopenmp" peer.  One OpenMP thread team splits the rows (schedule static);
 * within a row, plain loops with `omp simd` so gcc vectorises the reductions
 * without -ffast-math (IEEE semantics are kept: no reassociation outside the
 * annotated reductions, divisions stay divisions, libm expf/tanhf).
 *
 * Vector math, as found with `objdump -d` on gcc 12.2 / glibc 2.36: glibc only
 * declares its libmvec variants (_ZGVeN16v_expf, ...) when __FAST_MATH__ is
 * defined (bits/math-vector.h), so without -ffast-math the expf / tanhf loops
 * call scalar `expf` / `tanhf` once per element and those loops are not
 * vectorised; the max/sum/scale loops around them are (zmm, AVX-512).
 *
 * Each function computes exactly what the example kernel of the same name in
 * examples/ does (same operation order), so the selftest can hold every peer
 * to FP64 at 5e-5. */
#include "peers.h"

#include <math.h>
#include <omp.h>
#include <string.h>

void peers_set_threads(int threads)
{
    omp_set_num_threads(threads > 0 ? threads : 1);
}

static float row_max(const float *x, int n, float init)
{
    float m = init;
#pragma omp simd reduction(max : m)
    for (int c = 0; c < n; c++)
        m = x[c] > m ? x[c] : m; /* vmaxps; fmaxf's NaN rule would keep it scalar */
    return m;
}

/* y[c] = exp(x[c] - mx), returns the sum: scalar libm expf (see header). */
static float exp_shift_sum(const float *x, float *y, int n, float mx)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int c = 0; c < n; c++) {
        float e = expf(x[c] - mx);
        y[c] = e;
        s += e;
    }
    return s;
}

static void div_by(float *y, int n, float s)
{
#pragma omp simd
    for (int c = 0; c < n; c++)
        y[c] = y[c] / s;
}

void c_softmax(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float mx = row_max(xr, cols, -INFINITY);
        float s = exp_shift_sum(xr, yr, cols, mx);
        div_by(yr, cols, s);
    }
}

/* Valid columns are 0..r % cols.  Invalid scores are −1e30 in the kernel, so
 * they only enter the max (as −1e30, when any column is invalid) and their
 * exponentials are zeroed: work on the valid prefix, zero-fill the rest. */
void c_masked_softmax(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        int nv = r % cols + 1;
        float mx = row_max(xr, nv, nv < cols ? -1.0e30f : -INFINITY);
        float s = exp_shift_sum(xr, yr, nv, mx);
        div_by(yr, nv, s);
#pragma omp simd
        for (int c = nv; c < cols; c++)
            yr[c] = 0.0f;
    }
}

/* Centre first: var = mean((x - mean)²), as layernorm.tir. */
void c_layernorm(const float *x, const float *g, const float *b, float *y, int rows, int cols)
{
    const float wf = (float)cols;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
        for (int c = 0; c < cols; c++)
            sum += xr[c];
        float mean = sum / wf;
        float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
        for (int c = 0; c < cols; c++) {
            float d = xr[c] - mean;
            ss += d * d;
        }
        float sd = sqrtf(ss / wf + 1.0e-5f);
#pragma omp simd
        for (int c = 0; c < cols; c++)
            yr[c] = (xr[c] - mean) / sd * g[c] + b[c];
    }
}

void c_rmsnorm(const float *x, const float *g, float *y, int rows, int cols)
{
    const float wf = (float)cols;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
        for (int c = 0; c < cols; c++)
            ss += xr[c] * xr[c];
        float rms = sqrtf(ss / wf + 1.0e-5f);
#pragma omp simd
        for (int c = 0; c < cols; c++)
            yr[c] = xr[c] / rms * g[c];
    }
}

/* bf16 is the upper half of an f32: widening is a shift. */
static inline float bf16_widen(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* f32 → bf16, round to nearest even on the dropped half (integer steps, so
 * gcc vectorises them: AVX2 has no bf16 conversion); a NaN stays a quiet NaN. */
static inline uint16_t bf16_round(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)(f != f ? (u >> 16) | 0x40u : rounded);
}

/* rmsnorm_bf16.tir: the row widened to f32 for the statistics and the
 * scaling, one reciprocal per row, the result rounded to bf16 once. */
void c_rmsnorm_bf16(const uint16_t *x, const uint16_t *g, uint16_t *y, int rows, int cols)
{
    const float wf = (float)cols;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const uint16_t *xr = x + (size_t)r * cols;
        uint16_t *yr = y + (size_t)r * cols;
        float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
        for (int c = 0; c < cols; c++)
            ss += bf16_widen(xr[c]) * bf16_widen(xr[c]);
        float inv = 1.0f / sqrtf(ss / wf + 1.0e-5f);
#pragma omp simd
        for (int c = 0; c < cols; c++)
            yr[c] = bf16_round(bf16_widen(xr[c]) * inv * bf16_widen(g[c]));
    }
}

/* 0.5·x·(1 + tanh(0.7978845608·(x + 0.044715·x³))) + u; scalar libm tanhf. */
void c_gelu_residual(const float *x, const float *u, float *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        const float *ur = u + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
#pragma omp simd
        for (int c = 0; c < cols; c++) {
            float v = xr[c];
            float t = tanhf(0.7978845608f * (v + 0.044715f * (v * v * v)));
            yr[c] = 0.5f * v * (1.0f + t) + ur[c];
        }
    }
}

/* x / (1 + e^−x) · u; scalar libm expf. */
void c_swiglu(const float *x, const float *u, float *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        const float *ur = u + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
#pragma omp simd
        for (int c = 0; c < cols; c++)
            yr[c] = xr[c] / (1.0f + expf(-xr[c])) * ur[c];
    }
}

/* Split-half rotation; cos/sin rows have cols/2 entries (rope.tir). */
void c_rope(const float *x, const float *cosv, const float *sinv, float *y, int rows, int cols)
{
    const int h = cols / 2;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *xl = x + (size_t)r * cols, *xr = xl + h;
        const float *cr = cosv + (size_t)r * h, *sr = sinv + (size_t)r * h;
        float *yl = y + (size_t)r * cols, *yh = yl + h;
#pragma omp simd
        for (int c = 0; c < h; c++) {
            float a = xl[c], b = xr[c];
            yl[c] = a * cr[c] - b * sr[c];
            yh[c] = a * sr[c] + b * cr[c];
        }
    }
}

void c_stream_triad(float *a, const float *b, const float *c, float s, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

bool c_stream_run(void *state, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c_stream *s = state;
    c_stream_triad(s->a, s->b, s->c, 3.0f, s->n);
    return true;
}
