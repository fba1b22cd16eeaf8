/* gemm.c — bench_gemm: fp32 C = A·B (examples/gemm.tir), C = A·Bᵀ
 * (gemm_bt.tir) and batched C[b] = A[b]·B[b] (bmm.tir), tilec against
 * OpenBLAS cblas_sgemm (once per batch for bmm) and oneDNN matmul (3-D for
 * bmm, transposed weights for gemm_bt), at 1 and 2 threads.
 *
 * Inputs are the upstream dyadic fixture ((i·s + 17) % 127 − 63) / 64 (s = 5
 * for A, 11 for B) and C starts as NaN.  Every product is a multiple of 2^-12
 * of magnitude < 1 and every partial sum stays below 2^12 in magnitude for
 * K <= 4096, so it needs at most 24 significant bits: any correct fp32
 * summation order gives the exact result.  The FP64 reference (cblas_dgemm on
 * double copies, an independent computation) is therefore exact too, and the
 * tolerance atol = rtol = 2e-5 only has to absorb nothing — max_abs_err is
 * expected to be 0, and any real bug (a missed tile, a wrong index) is off by
 * far more. */
#include "harness.h"
#include "peers.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *kernel; /* gemm, gemm_bt (B is N × K) or bmm */
    int batch, M, N, K;
} gemm_shape;

static const gemm_shape shapes[] = {
    {"gemm", 1, 256, 256, 256},       {"gemm", 1, 512, 512, 512},   {"gemm", 1, 1024, 1024, 1024},
    {"gemm", 1, 2048, 2048, 2048},    {"gemm", 1, 4096, 4096, 4096}, {"gemm", 1, 1000, 1000, 1000},
    {"gemm", 1, 17, 19, 13},          {"gemm", 1, 1, 4096, 4096},   {"gemm_bt", 1, 1024, 1024, 1024},
    {"bmm", 32, 256, 256, 256},
};

/* tilec's block tile BM×BN×BK, one configuration per shape family.  The
 * planner realizes gemm packet-local (docs/lowering.md "Matrix programs"):
 * the block's n axis is split over the 16 lanes of an AVX-512 packet, so
 * 8×32×8 is an 8 × 2-vector register tile of fma accumulators carried over K
 * with 8 broadcast A elements and 2 B vectors per step.  Measured `tilec bench
 * examples/gemm.tir --threads 1` at W = 16 (default options, so every tile
 * stays within the 64 unrolled slot elements):
 * - large: 8×32×8 best of 4..14 × 32..64 × 4..64 at 1000³ (94 GFLOP/s) and
 *   1024³ (70); 14×32 and larger A tiles spill (8–25 GFLOP/s);
 * - small: 4×32×16 (17×19×13 in 0.28 µs; 4×8×16 0.50, 8×8×16 2.7: its A tile
 *   is past the unroll limit);
 * - decode (M = 1): 1×256×4, 16 programs each streaming a 1 KiB-wide B
 *   panel (7.0 ms at 1×4096×4096; 1×64×16 11.6, 1×512×8 8.2);
 * - bmm and gemm_bt: as large gemm (gemm_bt's B block [n, k] is packed
 *   transposed, k-major with n innermost, so its rows are vectors too:
 *   docs/lowering.md "Packed panels"). */
static void tile_for(const gemm_shape *s, int *bm, int *bn, int *bk) {
    bool small = s->M < 128 || s->N < 16 || s->K < 32;
    *bm = s->M == 1 ? 1 : small ? 4 : 8;
    *bn = s->M == 1 ? 256 : 32;
    *bk = s->M == 1 ? 4 : small ? 16 : 8;
}

typedef struct {
    const float *A, *B;
    float *C;
    int batch, M, N, K;
    bool bt;
    onednn_op *op;
} gemm_state;

static bool openblas_run(void *state, char *err, size_t errlen) {
    gemm_state *g = state;
    size_t a = (size_t)g->M * g->K, b = (size_t)g->K * g->N, c = (size_t)g->M * g->N;
    for (int i = 0; i < g->batch; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, g->bt ? CblasTrans : CblasNoTrans, g->M, g->N, g->K, 1.0f,
                    g->A + i * a, g->K, g->B + i * b, g->bt ? g->K : g->N, 0.0f, g->C + i * c, g->N);
    return true;
}

static bool onednn_matmul_run(void *state, char *err, size_t errlen) {
    gemm_state *g = state;
    void *args[3] = {(void *)g->A, (void *)g->B, g->C};
    return onednn_run(g->op, args, err, errlen);
}

static void fixture(float *x, double *xd, size_t n, size_t s) {
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((double)((i * s + 17) % 127) - 63.0) / 64.0f;
        xd[i] = x[i];
    }
}

static void run_shape(bench_doc *doc, const bench_options *o, tilec_context *ctx, const gemm_shape *s) {
    char shape[64];
    if (s->batch > 1) snprintf(shape, sizeof shape, "%dx%dx%dx%d", s->batch, s->M, s->N, s->K);
    else snprintf(shape, sizeof shape, "%dx%dx%d", s->M, s->N, s->K);
    if (!bench_selected(o, s->kernel, shape)) return;
    bool bt = !strcmp(s->kernel, "gemm_bt");
    int bm, bn, bk;
    tile_for(s, &bm, &bn, &bk);
    if (o->list) {
        for (size_t t = 0; t < o->n_threads; t++) printf("%s %s threads=%d\n", s->kernel, shape, o->threads[t]);
        return;
    }
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K, nb = (size_t)s->batch;
    float *A = bench_alloc_floats(nb * M * K), *B = bench_alloc_floats(nb * K * N), *C = bench_alloc_floats(nb * M * N);
    double *Ad = malloc(nb * M * K * sizeof *Ad), *Bd = malloc(nb * K * N * sizeof *Bd), *Cd = malloc(nb * M * N * sizeof *Cd);
    if (!Ad || !Bd || !Cd) {
        fprintf(stderr, "bench_gemm: out of memory\n");
        exit(1);
    }
    fixture(A, Ad, nb * M * K, 5);
    fixture(B, Bd, nb * K * N, 11);
    /* The FP64 reference, on every core (it is not timed). */
    openblas_set_num_threads((int)sysconf(_SC_NPROCESSORS_ONLN));
    for (size_t i = 0; i < nb; i++)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, bt ? CblasTrans : CblasNoTrans, s->M, s->N, s->K, 1.0, Ad + i * M * K,
                    s->K, Bd + i * K * N, bt ? s->K : s->N, 0.0, Cd + i * M * N, s->N);

    char err[512];
    tir_define defines[] = {{"M", s->M}, {"N", s->N}, {"K", s->K}, {"BM", bm}, {"BN", bn}, {"BK", bk}, {"BATCH", s->batch}};
    const tir_func *f = NULL;
    tir_module *m = bench_parse_example(ctx, s->kernel, defines, s->batch > 1 ? 7 : 6, &f, err, sizeof err);
    for (size_t t = 0; t < o->n_threads; t++) {
        int threads = o->threads[t];
        char extra[8192];
        snprintf(extra, sizeof extra, "\"tile\": \"%dx%dx%d\"", bm, bn, bk);
        bench_peer peers[3];
        bench_tilec tc;
        memset(&tc, 0, sizeof tc);
        if (m) {
            tilec_buffer args[3] = {{A, nb * M * K * sizeof *A, TIR_F32}, {B, nb * K * N * sizeof *B, TIR_F32},
                                    {C, nb * M * N * sizeof *C, TIR_F32}};
            bench_tilec_setup(&tc, &peers[0], ctx, f, threads, args, 3, extra, sizeof extra);
        } else {
            bench_peer_preset(&peers[0], "tilec", BENCH_ERROR, "%s", err);
        }
        /* Every library runs `threads` threads for this row. */
        openblas_set_num_threads(threads);
        peers_set_threads(threads);
        gemm_state g = {A, B, C, s->batch, s->M, s->N, s->K, bt, NULL};
        memset(&peers[1], 0, sizeof peers[1]);
        peers[1].name = "openblas";
        peers[1].state = &g;
        peers[1].run = openblas_run;
        g.op = onednn_matmul_create_ex(s->batch, s->M, s->N, s->K, bt, err, sizeof err);
        if (g.op) {
            memset(&peers[2], 0, sizeof peers[2]);
            peers[2].name = "onednn";
            peers[2].state = &g;
            peers[2].run = onednn_matmul_run;
        } else {
            bench_peer_preset(&peers[2], "onednn", BENCH_ERROR, "%s", err);
        }
        bench_row row = {
            .kernel = s->kernel,
            .shape = shape,
            .threads = threads,
            .unit = "GFLOP/s",
            .work = 2.0 * (double)nb * (double)M * (double)N * (double)K,
            .work_note = s->batch > 1 ? "2*BATCH*M*N*K" : "2*M*N*K",
            .extra_json = extra,
            .out = C,
            .out_len = nb * M * N,
            .expected = Cd,
            .atol = 2e-5,
            .rtol = 2e-5,
            .compile = tc.kernel ? &tc.times : NULL,
            .peers = peers,
            .n_peers = 3,
        };
        bench_run_row(doc, o, &row);
        onednn_destroy(g.op);
        bench_tilec_release(&tc);
    }
    tir_module_destroy(m);
    free(A), free(B), free(C), free(Ad), free(Bd), free(Cd);
}

int main(int argc, char **argv) {
    bench_options o;
    bench_parse_options(argc, argv, "gemm", &o);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    char openblas[512];
    snprintf(openblas, sizeof openblas, "%s; core %s", openblas_get_config(), openblas_get_corename());
    if (!o.list) fprintf(stderr, "[gemm] OpenBLAS: %s\n[gemm] oneDNN: %s\n", openblas, onednn_version());
    bench_doc doc;
    if (!o.list) bench_doc_begin(&doc, "gemm", &o);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) run_shape(&doc, &o, ctx, &shapes[i]);
    if (!o.list) {
        const char *names[] = {"openblas", "onednn"};
        const char *versions[] = {openblas, onednn_version()};
        bench_doc_end(&doc, 2, names, versions);
    }
    bench_runtimes_destroy();
    tilec_context_destroy(ctx);
    return 0;
}
