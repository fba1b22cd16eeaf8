/* rows.c — references for the row-wise examples (softmax, masked_softmax,
 * layernorm, rmsnorm, gelu, gelu_erf, swiglu).  Every kernel takes R×W f32 inputs (or
 * shared 1×W ones, such as gamma and beta) followed by one R×W output, and
 * computes each output row from the same row of its inputs.  A driver walks
 * the rows; each operator is a plain FP64 loop over one row. */
#include "kernels.h"

#include <math.h>

enum { ROWS_MAX_INPUTS = 4 };

/* in[i] points at row r of input i (row 0 of a shared 1×W input). */
typedef void (*row_fn)(int64_t r, int64_t W, const float *const *in, double *out);

static bool rows_reference(const tir_func *f, const void *const *args, double *const *expected, size_t n_inputs,
                           row_fn row) {
    int64_t R = example_shape(f, "R", 17), W = example_shape(f, "W", 65);
    if (R < 0 || W < 1 || n_inputs > ROWS_MAX_INPUTS || !expected[n_inputs]) return false;
    const float *base[ROWS_MAX_INPUTS];
    int64_t stride[ROWS_MAX_INPUTS];
    for (size_t i = 0; i < n_inputs; i++) {
        if (!(base[i] = example_f32_input(f, args, i))) return false;
        /* A view with a single row is shared by every output row. */
        tir_space *s = tir_type_space(tir_value_type(tir_func_param(f, i)));
        stride[i] = tir_space_extent(s, 0) == 1 ? 0 : W;
    }
    for (int64_t r = 0; r < R; r++) {
        const float *in[ROWS_MAX_INPUTS];
        for (size_t i = 0; i < n_inputs; i++) in[i] = base[i] + r * stride[i];
        row(r, W, in, expected[n_inputs] + r * W);
    }
    return true;
}

/* exp(s − max) / Σ exp(s − max) over the columns c with c <= last. */
static void softmax_prefix(int64_t W, int64_t last, const float *x, double *out) {
    double max = -INFINITY, sum = 0.0;
    for (int64_t c = 0; c <= last; c++) max = fmax(max, x[c]);
    for (int64_t c = 0; c <= last; c++) sum += exp(x[c] - max);
    for (int64_t c = 0; c < W; c++) out[c] = c <= last ? exp(x[c] - max) / sum : 0.0;
}

static void softmax_row(int64_t r, int64_t W, const float *const *in, double *out) {
    softmax_prefix(W, W - 1, in[0], out);
}

static void masked_softmax_row(int64_t r, int64_t W, const float *const *in, double *out) {
    softmax_prefix(W, r % W, in[0], out);
}

/* x / sqrt(mean(x²) + 1e-5), with x centred first when `centre`. */
static void normalize_row(int64_t W, const float *x, bool centre, double *out) {
    double mean = 0.0, sq = 0.0;
    if (centre) {
        for (int64_t c = 0; c < W; c++) mean += x[c];
        mean /= (double)W;
    }
    for (int64_t c = 0; c < W; c++) sq += (x[c] - mean) * (x[c] - mean);
    double inv = 1.0 / sqrt(sq / (double)W + 1e-5);
    for (int64_t c = 0; c < W; c++) out[c] = (x[c] - mean) * inv;
}

static void layernorm_row(int64_t r, int64_t W, const float *const *in, double *out) {
    normalize_row(W, in[0], true, out);
    for (int64_t c = 0; c < W; c++) out[c] = out[c] * in[1][c] + in[2][c];
}

static void rmsnorm_row(int64_t r, int64_t W, const float *const *in, double *out) {
    normalize_row(W, in[0], false, out);
    for (int64_t c = 0; c < W; c++) out[c] *= in[1][c];
}

static void gelu_row(int64_t r, int64_t W, const float *const *in, double *out) {
    for (int64_t c = 0; c < W; c++) {
        double x = in[0][c];
        out[c] = 0.5 * x * (1.0 + tanh(0.7978845608 * (x + 0.044715 * x * x * x))) + in[1][c];
    }
}

static void gelu_erf_row(int64_t r, int64_t W, const float *const *in, double *out) {
    for (int64_t c = 0; c < W; c++) {
        double x = in[0][c];
        out[c] = 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    }
}

static void swiglu_row(int64_t r, int64_t W, const float *const *in, double *out) {
    for (int64_t c = 0; c < W; c++) {
        double x = in[0][c];
        out[c] = x / (1.0 + exp(-x)) * in[1][c];
    }
}

bool example_softmax(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 1, softmax_row);
}

bool example_masked_softmax(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 1, masked_softmax_row);
}

bool example_layernorm(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 3, layernorm_row);
}

bool example_rmsnorm(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 2, rmsnorm_row);
}

bool example_gelu(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 2, gelu_row);
}

bool example_gelu_erf(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 1, gelu_erf_row);
}

/* rmsnorm_bf16: the bf16 inputs widened exactly, the result in FP64 (the
 * comparison allows bf16's last place: the kernel rounds its output). */
bool example_rmsnorm_bf16(const tir_func *f, const void *const *args, double *const *expected) {
    int64_t R = example_shape(f, "R", 17), W = example_shape(f, "W", 65);
    const void *X = example_input(f, args, 0, TIR_BF16), *G = example_input(f, args, 1, TIR_BF16);
    if (R < 0 || W < 1 || !X || !G || !expected[2]) return false;
    for (int64_t r = 0; r < R; r++) {
        double sq = 0.0;
        for (int64_t c = 0; c < W; c++) sq += example_bf16_at(X, r * W + c) * example_bf16_at(X, r * W + c);
        double inv = 1.0 / sqrt(sq / (double)W + 1e-5);
        for (int64_t c = 0; c < W; c++) expected[2][r * W + c] = example_bf16_at(X, r * W + c) * inv * example_bf16_at(G, c);
    }
    return true;
}

bool example_swiglu(const tir_func *f, const void *const *args, double *const *expected) {
    return rows_reference(f, args, expected, 2, swiglu_row);
}
