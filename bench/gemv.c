/* gemv.c — bench_gemv: an LLM decode step's projections y = W·x with W
 * row-major N × K (models/llama/gemv.tir, gemv_bf16.tir, gemv_q8.tir: f32,
 * bf16, and int8 weights with an f32 scale per row; gemv_q8q.tir: llama.cpp's
 * Q8_0 × Q8_0, int8 weights with a scale per group of 32 times x quantized
 * the same way, on int8 dot products), tilec against the
 * hand-written C kernels (bench/peers/c_gemv.c, llama.cpp's way: a row's dot
 * product per task) and OpenBLAS cblas_sgemv (f32 weights), at 1 and 2
 * threads, at the shapes of a Llama 7B-class layer (4096 × 4096, the
 * up-projection 11008 × 4096 and the down-projection 4096 × 11008).
 *
 * A decode projection reads every weight once: it is memory-bound, and each
 * row also times the memory bound at its bytes (a STREAM triad over three
 * arrays of a third of them each, OpenMP with the row's threads: peer
 * "stream", harness.h `bound`), so the report gives tilec / bound.  The
 * bytes are the weights (and scales), x and y, once.
 *
 * Inputs are pseudo-random in [-1, 1) (x, and W before its rounding to bf16;
 * int8 weights are integers in [-127, 127] and scales in [0, 1/64)); y
 * starts as NaN.  The FP64 reference sums the same values exactly enough
 * (double products and sums); f32 sums over K = 4096..11008 terms in any
 * order stay within atol 5e-3 + rtol 1e-4 of it, and a missed block is off
 * by far more. */
#include "harness.h"
#include "peers.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { W_F32, W_BF16, W_Q8, W_Q8Q } weight_kind;

static const struct {
    const char *kernel; /* models/llama/NAME.tir */
    weight_kind kind;
} kernels[] = {{"gemv", W_F32}, {"gemv_bf16", W_BF16}, {"gemv_q8", W_Q8}, {"gemv_q8q", W_Q8Q}};

enum { Q8Q_GROUP = 32 }; /* gemv_q8q: llama.cpp's Q8_0 */

static const struct {
    int N, K;
} shapes[] = {{4096, 4096}, {11008, 4096}, {4096, 11008}};

typedef struct {
    weight_kind kind;
    const float *W, *x, *S;
    const uint16_t *W16;
    const int8_t *Q;
    const uint8_t *U;       /* gemv_q8q: Q + 128, with S per group */
    const int8_t *xq;       /* gemv_q8q: x quantized per group, with D its scales */
    const float *D;
    float *y;
    int N, K;
} gemv_state;

static bool c_run(void *state, char *err, size_t errlen) {
    (void)err, (void)errlen;
    gemv_state *g = state;
    if (g->kind == W_F32) c_gemv(g->W, g->x, g->y, g->N, g->K);
    else if (g->kind == W_BF16) c_gemv_bf16(g->W16, g->x, g->y, g->N, g->K);
    else if (g->kind == W_Q8) c_gemv_q8(g->Q, g->S, g->x, g->y, g->N, g->K);
    else c_gemv_q8q(g->U, g->S, g->xq, g->D, g->y, g->N, g->K, Q8Q_GROUP);
    return true;
}

/* Q8_0 of `n` groups of G floats as models/llama/quantize_q8.tir computes
 * it: d = max|v| / 127, codes round(v · (1/d)) (0 where all are 0); xn, when
 * given, −128 · each 4 codes' sum. */
static void quantize_groups(const float *v, size_t n, int8_t *q, float *d, int32_t *xn) {
    for (size_t g = 0; g < n; g++) {
        const float *r = v + g * Q8Q_GROUP;
        float amax = 0.0f;
        for (int i = 0; i < Q8Q_GROUP; i++) amax = fmaxf(amax, fabsf(r[i]));
        d[g] = amax / 127.0f;
        float inv = 1.0f / (amax > 0.0f ? d[g] : 1.0f);
        for (int i = 0; i < Q8Q_GROUP; i++) q[g * Q8Q_GROUP + (size_t)i] = (int8_t)roundf(r[i] * inv);
        for (int w = 0; xn && w < Q8Q_GROUP / 4; w++) {
            const int8_t *c = q + g * Q8Q_GROUP + 4 * (size_t)w;
            xn[g * Q8Q_GROUP / 4 + (size_t)w] = -128 * (c[0] + c[1] + c[2] + c[3]);
        }
    }
}

static bool openblas_run(void *state, char *err, size_t errlen) {
    (void)err, (void)errlen;
    gemv_state *g = state;
    cblas_sgemv(CblasRowMajor, CblasNoTrans, g->N, g->K, 1.0f, g->W, g->K, g->x, 1, 0.0f, g->y, 1);
    return true;
}

static void run_shape(bench_doc *doc, const bench_options *o, tilec_context *ctx, size_t ki, int N, int K) {
    const char *name = kernels[ki].kernel;
    weight_kind kind = kernels[ki].kind;
    char shape[64];
    snprintf(shape, sizeof shape, "%dx%d", N, K);
    if (!bench_selected(o, name, shape)) return;
    if (o->list) {
        for (size_t t = 0; t < o->n_threads; t++) printf("%s %s threads=%d\n", name, shape, o->threads[t]);
        return;
    }
    size_t n = (size_t)N, k = (size_t)K;
    float *W = bench_alloc_floats(n * k), *x = bench_alloc_floats(k), *y = bench_alloc_floats(n);
    float *S = bench_alloc_floats(n);
    uint16_t *W16 = kind == W_BF16 ? bench_alloc(n * k * sizeof *W16) : NULL;
    int8_t *Q = kind == W_Q8 || kind == W_Q8Q ? bench_alloc(n * k) : NULL;
    size_t groups = k / Q8Q_GROUP; /* gemv_q8q: K is a multiple of 32 at every shape */
    bool q8q = kind == W_Q8Q;
    uint8_t *U = q8q ? bench_alloc(n * k) : NULL;
    int8_t *xq = q8q ? bench_alloc(k) : NULL;
    int32_t *xn = q8q ? bench_alloc(k) : NULL;
    float *D = q8q ? bench_alloc_floats(groups) : NULL, *SG = q8q ? bench_alloc_floats(n * groups) : NULL;
    double *expected = malloc(n * sizeof *expected);
    if (!expected) {
        fprintf(stderr, "bench_gemv: out of memory\n");
        exit(1);
    }
    bench_fill_uniform(W, n * k, 31);
    bench_fill_uniform(x, k, 37);
    bench_fill_uniform(S, n, 41);
    if (W16) bench_round_bf16(W, W16, n * k); /* W holds the exact bf16 values */
    for (size_t i = 0; kind == W_Q8 && i < n * k; i++) W[i] = Q[i] = (int8_t)(127.0f * W[i]);
    for (size_t i = 0; i < n; i++) S[i] = kind == W_Q8 ? (S[i] + 1.0f) / 128.0f : 1.0f;
    if (q8q) { /* W's groups quantized (scales spread by a row factor), x's too; W and x then hold the codes */
        for (size_t r = 0; r < n; r++)
            for (size_t c = 0; c < k; c++) W[r * k + c] *= 1.0f + (float)(r % 7);
        quantize_groups(W, n * groups, Q, SG, NULL);
        quantize_groups(x, groups, xq, D, xn);
        for (size_t i = 0; i < n * k; i++) U[i] = (uint8_t)(Q[i] + 128), W[i] = Q[i];
        for (size_t c = 0; c < k; c++) x[c] = xq[c];
    }
    for (size_t r = 0; r < n; r++) { /* the FP64 reference (gemv_q8q: each group's sum scaled) */
        double sum = 0, group = 0;
        for (size_t c = 0; c < k; c++) {
            group += (double)W[r * k + c] * (double)x[c];
            if (q8q && (c + 1) % Q8Q_GROUP == 0)
                sum += group * (double)SG[r * groups + c / Q8Q_GROUP] * (double)D[c / Q8Q_GROUP], group = 0;
        }
        expected[r] = (sum + group) * (double)S[r];
    }
    size_t weight_bytes = n * k * (kind == W_F32 ? 4 : kind == W_BF16 ? 2 : 1);
    double bytes = (double)weight_bytes + 4.0 * (double)(k + n + (kind == W_Q8 ? n : 0));
    if (q8q) bytes = (double)(n * k) + 4.0 * (double)(n * groups + groups + n) + 2.0 * (double)k; /* x: codes and XN */
    long third = (long)(bytes / 12.0) + 1; /* floats per triad array */
    c_stream st = {bench_alloc_floats((size_t)third), bench_alloc_floats((size_t)third),
                       bench_alloc_floats((size_t)third), third};
    bench_fill_uniform(st.b, (size_t)third, 43);
    bench_fill_uniform(st.c, (size_t)third, 47);
    char err[512];
    tir_define defines[] = {{"N", N}, {"K", K}};
    for (size_t t = 0; t < o->n_threads; t++) {
        int threads = o->threads[t];
        const tir_func *f = NULL;
        char extra[8192], chosen[128];
        tir_module *m = bench_parse_example(ctx, name, defines, 2, threads, chosen, sizeof chosen, &f, err, sizeof err);
        snprintf(extra, sizeof extra, "\"chosen\": \"%s\"", chosen);
        bench_peer peers[4];
        bench_tilec tc;
        memset(&tc, 0, sizeof tc);
        tilec_buffer args[6] = {{x, k * sizeof *x, TIR_F32}, {W, n * k * sizeof *W, TIR_F32}, {y, n * sizeof *y, TIR_F32}};
        size_t n_args = 3;
        if (W16) args[1] = (tilec_buffer){W16, n * k * sizeof *W16, TIR_BF16};
        if (kind == W_Q8) {
            args[1] = (tilec_buffer){Q, n * k, TIR_I8};
            args[2] = (tilec_buffer){S, n * sizeof *S, TIR_F32};
            args[3] = (tilec_buffer){y, n * sizeof *y, TIR_F32};
            n_args = 4;
        }
        if (q8q) {
            tilec_buffer q[6] = {{xq, k, TIR_I8},       {xn, k, TIR_I32}, {D, groups * sizeof *D, TIR_F32},
                                 {U, n * k, TIR_U8}, {SG, n * groups * sizeof *SG, TIR_F32}, {y, n * sizeof *y, TIR_F32}};
            memcpy(args, q, sizeof q);
            n_args = 6;
        }
        if (m) bench_tilec_setup(&tc, &peers[0], ctx, f, threads, args, n_args, extra, sizeof extra);
        else bench_peer_preset(&peers[0], "tilec", BENCH_ERROR, "%s", err);
        openblas_set_num_threads(threads);
        peers_set_threads(threads);
        gemv_state g = {kind, W, x, q8q ? SG : S, W16, Q, U, xq, D, y, N, K};
        memset(&peers[1], 0, sizeof peers[1]);
        peers[1] = (bench_peer){.name = "c", .state = &g, .run = c_run};
        if (kind == W_F32) peers[2] = (bench_peer){.name = "openblas", .state = &g, .run = openblas_run};
        else bench_peer_preset(&peers[2], "openblas", BENCH_SKIPPED, "OpenBLAS has no %s matrix-vector product",
                               kind == W_BF16 ? "bf16" : "int8");
        if (q8q) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", \"note\": \"x quantized per group of %d beforehand (models/llama/quantize_q8.tir), not timed\"", Q8Q_GROUP);
        peers[3] = (bench_peer){.name = "stream", .state = &st, .run = c_stream_run, .bound = true};
        bench_row row = {
            .kernel = name,
            .shape = shape,
            .threads = threads,
            .unit = "GB/s",
            .work = bytes,
            .work_note = q8q ? "N*K + 4*(N*K/32 + K/32 + N) + 2*K bytes"
                         : kind == W_Q8 ? "N*K + 4*(K + 2N) bytes" : "N*K*sizeof(weight) + 4*(K + N) bytes",
            .extra_json = extra,
            .out = y,
            .out_len = n,
            .expected = expected,
            .atol = 5e-3,
            .rtol = 1e-4,
            .compile = tc.kernel ? &tc.times : NULL,
            .peers = peers,
            .n_peers = 4,
        };
        bench_run_row(doc, o, &row);
        bench_tilec_release(&tc);
        tir_module_destroy(m);
    }
    free(W), free(x), free(y), free(S), free(W16), free(Q), free(expected);
    free(U), free(xq), free(xn), free(D), free(SG);
    free(st.a), free(st.b), free(st.c);
}

int main(int argc, char **argv) {
    bench_options o;
    bench_parse_options(argc, argv, "gemv", &o);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    char openblas[512];
    snprintf(openblas, sizeof openblas, "%s; core %s", openblas_get_config(), openblas_get_corename());
    bench_doc doc;
    if (!o.list) bench_doc_begin(&doc, "gemv", &o);
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) run_shape(&doc, &o, ctx, i, shapes[s].N, shapes[s].K);
    if (!o.list) {
        const char *names[] = {"openblas"};
        const char *versions[] = {openblas};
        bench_doc_end(&doc, 1, names, versions);
    }
    tilec_context_destroy(ctx);
    return 0;
}
