/* Self-test of the bench peers: every c_* kernel and every oneDNN op is held
 * against a double-precision loop written here from the example kernels'
 * formulas (examples/NAME.tir), at small ragged shapes, at 1 and 2 threads,
 * and row operators also in place (Y bound to X, which the examples allow).
 * Pass: |got − ref| <= 5e-5 + 5e-5·|ref| everywhere (5e-5 + 2^-7·|ref| for
 * a bf16 output: it is rounded to 8 significant bits).  Exit 0 when all pass,
 * 1 on any mismatch or oneDNN error.  Needs no tilec. */
#include "peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 5e-5

static int failures;
static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static float uniform(float lo, float hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)((rng >> 40) * (1.0 / 16777216.0));
}

static float *rand_buf(size_t n, float lo, float hi)
{
    float *p = malloc(sizeof(float) * (n ? n : 1));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = uniform(lo, hi);
    return p;
}

static void check_within(const char *what, const float *got, const double *ref, size_t n, double rtol)
{
    double worst = 0.0;
    size_t at = 0;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]);
        if (!(e <= TOL + rtol * fabs(ref[i]))) { /* NaN fails too */
            if (ok || e > worst)
                at = i;
            ok = false;
        }
        if (e > worst || e != e)
            worst = e;
    }
    printf("%-4s %-48s max_abs_err %.3g\n", ok ? "ok" : "FAIL", what, worst);
    if (!ok) {
        printf("     first/worst bad element %zu: got %.9g want %.9g\n", at, (double)got[at], ref[at]);
        failures++;
    }
}

static void check(const char *what, const float *got, const double *ref, size_t n)
{
    check_within(what, got, ref, n, TOL);
}

/* ---- FP64 references ---------------------------------------------------- */

static void ref_softmax(const float *const *in, double *y, int R, int W, bool masked)
{
    for (int r = 0; r < R; r++) {
        const float *x = in[0] + (size_t)r * W;
        double *yr = y + (size_t)r * W, mx = -INFINITY, s = 0;
        for (int c = 0; c < W; c++) {
            bool valid = !masked || c <= r % W;
            yr[c] = valid ? x[c] : -1e30;
            mx = fmax(mx, yr[c]);
        }
        for (int c = 0; c < W; c++) {
            bool valid = !masked || c <= r % W;
            yr[c] = valid ? exp(yr[c] - mx) : 0.0;
            s += yr[c];
        }
        for (int c = 0; c < W; c++)
            yr[c] /= s;
    }
}
static void ref_plain_softmax(const float *const *in, double *y, int R, int W) { ref_softmax(in, y, R, W, false); }
static void ref_masked_softmax(const float *const *in, double *y, int R, int W) { ref_softmax(in, y, R, W, true); }

static void ref_layernorm(const float *const *in, double *y, int R, int W)
{
    for (int r = 0; r < R; r++) {
        const float *x = in[0] + (size_t)r * W;
        double mean = 0, var = 0;
        for (int c = 0; c < W; c++)
            mean += x[c];
        mean /= W;
        for (int c = 0; c < W; c++)
            var += (x[c] - mean) * (x[c] - mean);
        var /= W;
        for (int c = 0; c < W; c++)
            y[(size_t)r * W + c] = (x[c] - mean) / sqrt(var + 1e-5) * in[1][c] + in[2][c];
    }
}

static void ref_rmsnorm(const float *const *in, double *y, int R, int W)
{
    for (int r = 0; r < R; r++) {
        const float *x = in[0] + (size_t)r * W;
        double ss = 0;
        for (int c = 0; c < W; c++)
            ss += (double)x[c] * x[c];
        double rms = sqrt(ss / W + 1e-5);
        for (int c = 0; c < W; c++)
            y[(size_t)r * W + c] = x[c] / rms * in[1][c];
    }
}

static void ref_gelu(const float *const *in, double *y, int R, int W)
{
    for (size_t i = 0; i < (size_t)R * W; i++) {
        double x = in[0][i];
        y[i] = 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x))) + in[1][i];
    }
}

static void ref_swiglu(const float *const *in, double *y, int R, int W)
{
    for (size_t i = 0; i < (size_t)R * W; i++) {
        double x = in[0][i];
        y[i] = x / (1 + exp(-x)) * in[1][i];
    }
}

static void ref_rope(const float *const *in, double *y, int R, int W)
{
    int h = W / 2;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < h; c++) {
            double a = in[0][(size_t)r * W + c], b = in[0][(size_t)r * W + h + c];
            double cs = in[1][(size_t)r * h + c], sn = in[2][(size_t)r * h + c];
            y[(size_t)r * W + c] = a * cs - b * sn;
            y[(size_t)r * W + h + c] = a * sn + b * cs;
        }
}

/* ---- row operators ------------------------------------------------------ */

static void run_softmax(const float *const *in, float *y, int R, int W) { c_softmax(in[0], y, R, W); }
static void run_masked(const float *const *in, float *y, int R, int W) { c_masked_softmax(in[0], y, R, W); }
static void run_layernorm(const float *const *in, float *y, int R, int W) { c_layernorm(in[0], in[1], in[2], y, R, W); }
static void run_rmsnorm(const float *const *in, float *y, int R, int W) { c_rmsnorm(in[0], in[1], y, R, W); }
static void run_gelu(const float *const *in, float *y, int R, int W) { c_gelu_residual(in[0], in[1], y, R, W); }
static void run_swiglu(const float *const *in, float *y, int R, int W) { c_swiglu(in[0], in[1], y, R, W); }
static void run_rope(const float *const *in, float *y, int R, int W) { c_rope(in[0], in[1], in[2], y, R, W); }

enum shape_kind { FULL, ROW, HALF }; /* [R,W], [1,W], [R,W/2] */

static const struct row_op {
    const char *name;
    int nin;
    enum shape_kind kind[3];
    void (*run)(const float *const *, float *, int, int);
    void (*ref)(const float *const *, double *, int, int);
} row_ops[] = {
    {"c_softmax", 1, {FULL}, run_softmax, ref_plain_softmax},
    {"c_masked_softmax", 1, {FULL}, run_masked, ref_masked_softmax},
    {"c_layernorm", 3, {FULL, ROW, ROW}, run_layernorm, ref_layernorm},
    {"c_rmsnorm", 2, {FULL, ROW}, run_rmsnorm, ref_rmsnorm},
    {"c_gelu_residual", 2, {FULL, FULL}, run_gelu, ref_gelu},
    {"c_swiglu", 2, {FULL, FULL}, run_swiglu, ref_swiglu},
    {"c_rope", 3, {FULL, HALF, HALF}, run_rope, ref_rope},
};

static size_t elems(enum shape_kind k, int R, int W)
{
    return k == FULL ? (size_t)R * W : k == ROW ? (size_t)W : (size_t)R * (W / 2);
}

static void test_row_op(const struct row_op *op, int R, int W, int threads)
{
    float *in[3] = {0};
    size_t n = (size_t)R * W;
    for (int i = 0; i < op->nin; i++)
        in[i] = rand_buf(elems(op->kind[i], R, W), -3.0f, 3.0f);
    float *y = rand_buf(n, -9.0f, 9.0f); /* garbage: every element must be written */
    double *ref = malloc(sizeof(double) * n);
    char what[96];
    op->ref((const float *const *)in, ref, R, W);
    peers_set_threads(threads);
    op->run((const float *const *)in, y, R, W);
    snprintf(what, sizeof what, "%s %dx%d threads %d", op->name, R, W, threads);
    check(what, y, ref, n);
    /* in place: Y bound to X */
    memcpy(y, in[0], sizeof(float) * n);
    float *alias[3] = {y, in[1], in[2]};
    op->run((const float *const *)alias, y, R, W);
    snprintf(what, sizeof what, "%s %dx%d threads %d in place", op->name, R, W, threads);
    check(what, y, ref, n);
    for (int i = 0; i < op->nin; i++)
        free(in[i]);
    free(y);
    free(ref);
}

/* ---- bf16 RMSNorm -------------------------------------------------------- */

static float bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A random bf16 buffer (values in [lo, hi) truncated to 8 significant bits)
 * and its values as floats. */
static uint16_t *rand_bf16(size_t n, float lo, float hi, float **values)
{
    float *v = rand_buf(n, lo, hi);
    uint16_t *h = malloc(sizeof(uint16_t) * (n ? n : 1));
    if (!h) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        h[i] = (uint16_t)(u >> 16);
        v[i] = bf16_value(h[i]);
    }
    *values = v;
    return h;
}

/* c_rmsnorm_bf16 against ref_rmsnorm on the same (exactly widened) values,
 * out of place and in place. */
static void test_rmsnorm_bf16(int R, int W, int threads)
{
    size_t n = (size_t)R * W;
    float *in[2], *got = malloc(sizeof(float) * n);
    uint16_t *x = rand_bf16(n, -3.0f, 3.0f, &in[0]), *g = rand_bf16(W, -3.0f, 3.0f, &in[1]);
    uint16_t *y = malloc(sizeof(uint16_t) * n);
    double *ref = malloc(sizeof(double) * n);
    if (!got || !y || !ref) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    ref_rmsnorm((const float *const *)in, ref, R, W);
    peers_set_threads(threads);
    for (int in_place = 0; in_place < 2; in_place++) {
        char what[96];
        memset(y, 0xff, sizeof(uint16_t) * n); /* NaN: every element must be written */
        if (in_place)
            memcpy(y, x, sizeof(uint16_t) * n);
        c_rmsnorm_bf16(in_place ? y : x, g, y, R, W);
        for (size_t i = 0; i < n; i++)
            got[i] = bf16_value(y[i]);
        snprintf(what, sizeof what, "c_rmsnorm_bf16 %dx%d threads %d%s", R, W, threads, in_place ? " in place" : "");
        check_within(what, got, ref, n, 0x1p-7);
    }
    free(in[0]), free(in[1]), free(x), free(g), free(y), free(got), free(ref);
}

/* ---- attention ---------------------------------------------------------- */

static void ref_attention(const float *q, const float *k, const float *v, double *o,
                          int B, int Hq, int Hkv, int Lq, int Lk, int D, int Dv)
{
    double *s = malloc(sizeof(double) * Lk);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < Hq; h++)
            for (int i = 0; i < Lq; i++) {
                int kh = h / (Hq / Hkv);
                const float *qr = q + (((size_t)b * Hq + h) * Lq + i) * D;
                double mx = -INFINITY, sum = 0;
                for (int j = 0; j < Lk; j++) {
                    const float *kr = k + (((size_t)b * Hkv + kh) * Lk + j) * D;
                    double dot = 0;
                    for (int d = 0; d < D; d++)
                        dot += (double)qr[d] * kr[d];
                    s[j] = j <= i + Lk - Lq ? dot / sqrt(D) : -INFINITY;
                    mx = fmax(mx, s[j]);
                }
                double *orow = o + (((size_t)b * Hq + h) * Lq + i) * Dv;
                for (int d = 0; d < Dv; d++)
                    orow[d] = 0;
                for (int j = 0; j < Lk; j++) {
                    double p = exp(s[j] - mx);
                    sum += p;
                    for (int d = 0; d < Dv; d++)
                        orow[d] += p * v[(((size_t)b * Hkv + kh) * Lk + j) * Dv + d];
                }
                for (int d = 0; d < Dv; d++)
                    orow[d] /= sum;
            }
    free(s);
}

static void test_attention(int B, int Hq, int Hkv, int Lq, int Lk, int D, int Dv, int threads)
{
    float *q = rand_buf((size_t)B * Hq * Lq * D, -1.5f, 1.5f);
    float *k = rand_buf((size_t)B * Hkv * Lk * D, -1.5f, 1.5f);
    float *v = rand_buf((size_t)B * Hkv * Lk * Dv, -2.0f, 2.0f);
    size_t n = (size_t)B * Hq * Lq * Dv;
    float *o = rand_buf(n, -9.0f, 9.0f);
    double *ref = malloc(sizeof(double) * n);
    char what[96];
    ref_attention(q, k, v, ref, B, Hq, Hkv, Lq, Lk, D, Dv);
    peers_set_threads(threads);
    c_attention(q, k, v, o, B, Hq, Hkv, Lq, Lk, D, Dv);
    snprintf(what, sizeof what, "c_attention %d,%d,%d,%d,%d,%d,%d threads %d", B, Hq, Hkv, Lq, Lk, D, Dv, threads);
    check(what, o, ref, n);
    free(q), free(k), free(v), free(o), free(ref);
}

/* ---- oneDNN ------------------------------------------------------------- */

static void run_onednn(const char *what, onednn_op *op, void *const *args, const char *err,
                       const float *y, const double *ref, size_t n)
{
    char e2[256];
    if (!op) {
        printf("FAIL %-48s create: %s\n", what, err);
        failures++;
        return;
    }
    if (!onednn_run(op, args, e2, sizeof e2)) {
        printf("FAIL %-48s run: %s\n", what, e2);
        failures++;
    } else {
        check(what, y, ref, n);
    }
    onednn_destroy(op);
}

static void test_onednn_matmul(int M, int N, int K, int threads)
{
    float *a = rand_buf((size_t)M * K, -1, 1), *b = rand_buf((size_t)K * N, -1, 1);
    float *c = rand_buf((size_t)M * N, -9, 9);
    double *ref = calloc((size_t)M * N, sizeof(double));
    for (int i = 0; i < M; i++)
        for (int kk = 0; kk < K; kk++)
            for (int j = 0; j < N; j++)
                ref[(size_t)i * N + j] += (double)a[(size_t)i * K + kk] * b[(size_t)kk * N + j];
    char err[256] = "", what[96];
    peers_set_threads(threads);
    onednn_op *op = onednn_matmul_create(M, N, K, err, sizeof err);
    void *args[] = {a, b, c};
    snprintf(what, sizeof what, "onednn matmul %dx%dx%d threads %d", M, N, K, threads);
    run_onednn(what, op, args, err, c, ref, (size_t)M * N);
    free(a), free(b), free(c), free(ref);
}

static void test_onednn_rows(bool layernorm, int R, int W, int threads)
{
    float *in[3] = {rand_buf((size_t)R * W, -3, 3), rand_buf(W, -2, 2), rand_buf(W, -2, 2)};
    float *y = rand_buf((size_t)R * W, -9, 9);
    double *ref = malloc(sizeof(double) * R * W);
    char err[256] = "", what[96];
    peers_set_threads(threads);
    onednn_op *op;
    if (layernorm) {
        ref_layernorm((const float *const *)in, ref, R, W);
        op = onednn_layernorm_create(R, W, err, sizeof err);
    } else {
        ref_plain_softmax((const float *const *)in, ref, R, W);
        op = onednn_softmax_create(R, W, err, sizeof err);
    }
    void *ln_args[] = {in[0], in[1], in[2], y}, *sm_args[] = {in[0], y};
    snprintf(what, sizeof what, "onednn %s %dx%d threads %d", layernorm ? "layernorm" : "softmax", R, W, threads);
    run_onednn(what, op, layernorm ? ln_args : sm_args, err, y, ref, (size_t)R * W);
    for (int i = 0; i < 3; i++)
        free(in[i]);
    free(y), free(ref);
}

int main(void)
{
    static const int row_shapes[][2] = {{17, 66}, {5, 8}, {1, 2}, {17, 6}, {33, 1030}, {3, 130}};
    static const int att_shapes[][7] = {
        {1, 4, 2, 7, 11, 8, 7},     /* the example's ragged GQA shape, B=1 */
        {2, 4, 2, 7, 11, 8, 7},     /* the example's default shape */
        {2, 8, 2, 1, 37, 64, 64},   /* decode: one query sees every key */
        {1, 3, 3, 20, 20, 33, 17},  /* MHA, Lq == Lk, odd head dims */
        {1, 2, 1, 5, 130, 128, 96}, /* long KV */
    };
    static const int mm_shapes[][3] = {{17, 66, 5}, {5, 7, 33}, {64, 48, 100}, {1, 130, 77}};
    printf("%s\n", onednn_version());
    for (int t = 1; t <= 2; t++) {
        for (size_t o = 0; o < sizeof row_ops / sizeof row_ops[0]; o++)
            for (size_t s = 0; s < sizeof row_shapes / sizeof row_shapes[0]; s++)
                test_row_op(&row_ops[o], row_shapes[s][0], row_shapes[s][1], t);
        for (size_t s = 0; s < sizeof row_shapes / sizeof row_shapes[0]; s++)
            test_rmsnorm_bf16(row_shapes[s][0], row_shapes[s][1], t);
        for (size_t s = 0; s < sizeof att_shapes / sizeof att_shapes[0]; s++) {
            const int *a = att_shapes[s];
            test_attention(a[0], a[1], a[2], a[3], a[4], a[5], a[6], t);
        }
        for (size_t s = 0; s < sizeof mm_shapes / sizeof mm_shapes[0]; s++)
            test_onednn_matmul(mm_shapes[s][0], mm_shapes[s][1], mm_shapes[s][2], t);
        for (size_t s = 0; s < sizeof row_shapes / sizeof row_shapes[0]; s++) {
            test_onednn_rows(false, row_shapes[s][0], row_shapes[s][1], t);
            test_onednn_rows(true, row_shapes[s][0], row_shapes[s][1], t);
        }
    }
    printf(failures ? "selftest: %d FAILED\n" : "selftest: all passed\n", failures);
    return failures ? 1 : 0;
}
