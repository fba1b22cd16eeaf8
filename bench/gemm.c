/* gemm.c — bench_gemm: fp32 C = A·B (examples/gemm.tir), C = A·Bᵀ
 * (gemm_bt.tir) and batched C[b] = A[b]·B[b] (bmm.tir), tilec against
 * OpenBLAS cblas_sgemm (once per batch for bmm) and oneDNN matmul (3-D for
 * bmm, transposed weights for gemm_bt), at 1 and 2 threads; and C = A·B on
 * bf16 A and B with an f32 C (gemm_bf16.tir) against OpenBLAS cblas_sbgemm
 * (looked up at run time: an OpenBLAS built without BUILD_BFLOAT16, such as
 * Debian's, does not export it, and the peer is skipped), oneDNN's bf16
 * matmul (skipped where oneDNN says unimplemented: 2.6 needs AVX-512 for
 * bf16) and the Python peers (PyTorch eager and Inductor, JAX; coprocesses,
 * bench/py_peer.h); and C = A·B on u8 A and i8 B with an i32 C
 * (gemm_int8.tir) against oneDNN's u8 × s8 → s32 matmul (OpenBLAS has no
 * integer GEMM), and the same with an i8 A (row gemm_s8s8: gemm_int8.tir
 * retyped, against oneDNN's s8 × s8 → s32).
 *
 * Inputs are the upstream dyadic fixture ((i·s + 17) % 127 − 63) / 64 (s = 5
 * for A, 11 for B) and C starts as NaN.  Every product is a multiple of 2^-12
 * of magnitude < 1 and every partial sum stays below 2^12 in magnitude for
 * K <= 4096, so it needs at most 24 significant bits: any correct fp32
 * summation order gives the exact result.  The FP64 reference (cblas_dgemm on
 * double copies, an independent computation) is therefore exact too, and the
 * tolerance atol = rtol = 2e-5 only has to absorb nothing — max_abs_err is
 * expected to be 0, and any real bug (a missed tile, a wrong index) is off by
 * far more.  Every fixture value k/64 (|k| <= 63) has at most 6 significant
 * bits, so it is a bf16 number too: gemm_bf16's inputs are the same values
 * and its result is exact as well.  gemm_int8's inputs are the fixture's
 * integers k + 63 (A, u8; k for gemm_s8s8's i8 A) and k (B, i8): its sums
 * are exact in i32 and in the FP64 reference, and the check compares them
 * exactly. */
#include "harness.h"
#include "peers.h"
#include "py_peer.h"

#include <cblas.h>
#include <dlfcn.h>
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
    {"bmm", 32, 256, 256, 256},       {"gemm_bf16", 1, 1024, 1024, 1024}, {"gemm_bf16", 1, 4096, 4096, 4096},
    {"gemm_bf16", 1, 1000, 1000, 1000},      {"gemm_int8", 1, 1024, 1024, 1024}, {"gemm_int8", 1, 1000, 1000, 1000},
    {"gemm_s8s8", 1, 1024, 1024, 1024},
};

/* tilec's block tile BM×BN, one configuration per shape family; BK (the K
 * step) is tilec's own choice per host and thread count (the examples
 * declare `BK in {8, 16, 32, 64, 128, 256}`, docs/tir.md "Chosen
 * parameters": measured once, then recorded).  The planner realizes gemm
 * packet-local (docs/lowering.md "Matrix programs"): the block's n axis is
 * split over the 16 lanes of an AVX-512 packet, so 8×32 is an 8 × 2-vector
 * register tile of fma accumulators carried over K with 8 broadcast A
 * elements and 2 B vectors per step.  Measured `tilec bench
 * examples/gemm.tir --threads 1` at W = 16 (default options, so every tile
 * stays within the 64 unrolled slot elements):
 * - large: 8×32 best of 4..14 × 32..64 at 1000³ (94 GFLOP/s) and 1024³ (70,
 *   BK 8); 14×32 and larger A tiles spill (8–25 GFLOP/s);
 * - small: 4×32 (17×19×13 in 0.28 µs at BK 16; 4×8 0.50, 8×8 2.7: its A tile
 *   is past the unroll limit);
 * - decode (M = 1): 1×256, 16 programs each streaming a 1 KiB-wide B
 *   panel (7.0 ms at 1×4096×4096 with BK 4; 1×64 11.6, 1×512 8.2);
 * - bmm, gemm_bf16 and gemm_bt: as large gemm (gemm_bt's B block [n, k] is packed
 *   transposed, k-major with n innermost, so its rows are vectors too:
 *   docs/lowering.md "Packed panels");
 * - on an AVX2 host (W = 8) the large block is 4×16, measured below. */
static void tile_for(const gemm_shape *s, int *bm, int *bn) {
    bool small = s->M < 128 || s->N < 16 || s->K < 32;
    /* an AVX2 host (W = 8) runs the large block as 4 × 2-vector registers:
     * 4×16×8 (2 threads: gemm 2048³ 62 against 36 GFLOP/s with 8×32×8, 1000³
     * 51 / 36, bmm 51 / 35, gemm_bf16 1024³ 37 / 34); gemm_bt keeps 8×32×8
     * (39 against 13: with 4×16 blocks the planner maps it per lane) */
    bool narrow = !__builtin_cpu_supports("avx512f") && strcmp(s->kernel, "gemm_bt") != 0;
    *bm = s->M == 1 ? 1 : small || narrow ? 4 : 8;
    *bn = s->M == 1 ? 256 : narrow && !small ? 16 : 32;
}

/* The BK the static kernel was parsed with (chosen; 8 when it failed to parse). */
static int64_t chosen_bk(const tir_func *f) {
    for (size_t i = 0; f && i < tir_func_shape_param_count(f); i++) {
        int64_t value;
        if (!strcmp(tir_func_shape_param(f, i, &value), "BK")) return value;
    }
    return 8;
}

typedef struct {
    const float *A, *B;
    const uint16_t *A16, *B16; /* gemm_bf16's inputs */
    const uint8_t *A8;         /* gemm_int8's inputs and output */
    const int8_t *B8;
    float *C;
    int32_t *C32;
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

/* cblas_sbgemm as this OpenBLAS exports it, or NULL (the header declares it
 * whether or not the library was built with it). */
static __typeof__(&cblas_sbgemm) sbgemm_entry(void) {
    static void *self;
    if (!self) self = dlopen(NULL, RTLD_NOW);
    void *symbol = self ? dlsym(self, "cblas_sbgemm") : NULL;
    __typeof__(&cblas_sbgemm) entry;
    memcpy(&entry, &symbol, sizeof entry); /* POSIX: dlsym's result holds the function's address */
    return entry;
}

static bool openblas_sbgemm_run(void *state, char *err, size_t errlen) {
    (void)err, (void)errlen;
    gemm_state *g = state;
    sbgemm_entry()(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->M, g->N, g->K, 1.0f, g->A16, g->K, g->B16, g->N, 0.0f,
                   g->C, g->N);
    return true;
}

static bool onednn_matmul_run(void *state, char *err, size_t errlen) {
    gemm_state *g = state;
    void *args[3] = {g->A16 ? (void *)g->A16 : (void *)g->A, g->B16 ? (void *)g->B16 : (void *)g->B, g->C};
    if (g->A8) args[0] = (void *)g->A8, args[1] = (void *)g->B8, args[2] = g->C32;
    return onednn_run(g->op, args, err, errlen);
}

static void fixture(float *x, double *xd, size_t n, size_t s) {
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((double)((i * s + 17) % 127) - 63.0) / 64.0f;
        xd[i] = x[i];
    }
}

/* Runs the shape's rows (when selected); whether the Python peers ran. */
static bool run_shape(bench_doc *doc, const bench_options *o, tilec_context *ctx, py_peers *py,
                      const gemm_shape *s) {
    char shape[64];
    if (s->batch > 1) snprintf(shape, sizeof shape, "%dx%dx%dx%d", s->batch, s->M, s->N, s->K);
    else snprintf(shape, sizeof shape, "%dx%dx%d", s->M, s->N, s->K);
    if (!bench_selected(o, s->kernel, shape)) return false;
    bool bt = !strcmp(s->kernel, "gemm_bt"), bf16 = !strcmp(s->kernel, "gemm_bf16");
    bool s8 = !strcmp(s->kernel, "gemm_s8s8"), int8 = s8 || !strcmp(s->kernel, "gemm_int8");
    int bm, bn;
    tile_for(s, &bm, &bn);
    if (o->list) {
        for (size_t t = 0; t < o->n_threads; t++) printf("%s %s threads=%d\n", s->kernel, shape, o->threads[t]);
        return false;
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
    uint16_t *A16 = NULL, *B16 = NULL;
    if (bf16) { /* the same values (bench_round_bf16 leaves them as they are) */
        bench_round_bf16(A, A16 = bench_alloc(M * K * sizeof *A16), M * K);
        bench_round_bf16(B, B16 = bench_alloc(K * N * sizeof *B16), K * N);
        const float *ins[2] = {A, B};
        size_t lens[2] = {M * K, K * N};
        py_peers_inputs(py, ins, lens, 2);
    }
    uint8_t *A8 = NULL;
    int8_t *B8 = NULL;
    int32_t *C32 = NULL;
    if (int8) { /* the fixture's integers 64·x: A shifted to 0..126 (u8) or not (i8), B as they are (i8) */
        A8 = bench_alloc(M * K), B8 = bench_alloc(K * N), C32 = bench_alloc(M * N * sizeof *C32);
        for (size_t i = 0; i < M * K; i++) {
            if (s8) Ad[i] = ((int8_t *)A8)[i] = (int8_t)(64.0 * A[i]);
            else Ad[i] = A8[i] = (uint8_t)(64.0 * A[i] + 63.0);
        }
        for (size_t i = 0; i < K * N; i++) Bd[i] = B8[i] = (int8_t)(64.0 * B[i]);
    }
    /* The FP64 reference, on every core (it is not timed). */
    openblas_set_num_threads((int)sysconf(_SC_NPROCESSORS_ONLN));
    for (size_t i = 0; i < nb; i++)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, bt ? CblasTrans : CblasNoTrans, s->M, s->N, s->K, 1.0, Ad + i * M * K,
                    s->K, Bd + i * K * N, bt ? s->K : s->N, 0.0, Cd + i * M * N, s->N);

    char err[512];
    tir_define defines[] = {{"M", s->M}, {"N", s->N}, {"K", s->K}, {"BM", bm}, {"BN", bn}, {"BATCH", s->batch}};
    for (size_t t = 0; t < o->n_threads; t++) {
        int threads = o->threads[t];
        /* BK is tilec's choice for these workers (examples: `BK in {8, …, 256}`) */
        const tir_func *f = NULL;
        char extra[8192], chosen[128];
        tir_module *m = bench_parse_example_as(ctx, s8 ? "gemm_int8" : s->kernel, s8 ? "%A: const view<u8>" : NULL,
                                               "%A: const view<i8>", defines, s->batch > 1 ? 6 : 5, threads, chosen,
                                               sizeof chosen, &f, err, sizeof err);
        snprintf(extra, sizeof extra, "\"tile\": \"%dx%d\", \"chosen\": \"%s\"", bm, bn, chosen);
        bench_peer peers[3 + PY_PEERS + BENCH_CONTROLS + 1];
        bench_tilec tc, ctl[BENCH_CONTROLS], dyn;
        memset(&tc, 0, sizeof tc);
        tilec_buffer args[3] = {{A, nb * M * K * sizeof *A, TIR_F32}, {B, nb * K * N * sizeof *B, TIR_F32},
                                {C, nb * M * N * sizeof *C, TIR_F32}};
        if (bf16) {
            args[0] = (tilec_buffer){A16, M * K * sizeof *A16, TIR_BF16};
            args[1] = (tilec_buffer){B16, K * N * sizeof *B16, TIR_BF16};
        }
        if (int8) {
            args[0] = (tilec_buffer){A8, M * K, s8 ? TIR_I8 : TIR_U8};
            args[1] = (tilec_buffer){B8, K * N, TIR_I8};
            args[2] = (tilec_buffer){C32, M * N * sizeof *C32, TIR_I32};
        }
        if (m) {
            bench_tilec_setup(&tc, &peers[0], ctx, f, threads, args, 3, extra, sizeof extra);
        } else {
            bench_peer_preset(&peers[0], "tilec", BENCH_ERROR, "%s", err);
        }
        /* Every library runs `threads` threads for this row. */
        openblas_set_num_threads(threads);
        peers_set_threads(threads);
        gemm_state g = {A, B, A16, B16, A8, B8, C, C32, s->batch, s->M, s->N, s->K, bt, NULL};
        memset(&peers[1], 0, sizeof peers[1]);
        peers[1].name = "openblas";
        peers[1].state = &g;
        peers[1].run = bf16 ? openblas_sbgemm_run : openblas_run;
        if (bf16 && !sbgemm_entry())
            bench_peer_preset(&peers[1], "openblas", BENCH_SKIPPED,
                              "this OpenBLAS does not export cblas_sbgemm (built without BUILD_BFLOAT16)");
        if (int8) bench_peer_preset(&peers[1], "openblas", BENCH_SKIPPED, "OpenBLAS has no integer GEMM");
        g.op = int8 ? onednn_matmul_create_typed(1, s->M, s->N, s->K, false, s8 ? ONEDNN_S8 : ONEDNN_U8, ONEDNN_S8,
                                                 ONEDNN_S32, err, sizeof err)
                    : onednn_matmul_create_ex(s->batch, s->M, s->N, s->K, bt, bf16, err, sizeof err);
        if (g.op) {
            memset(&peers[2], 0, sizeof peers[2]);
            peers[2].name = "onednn";
            peers[2].state = &g;
            peers[2].run = onednn_matmul_run;
        } else {
            bool unimplemented = onednn_last_unimplemented();
            bench_peer_preset(&peers[2], "onednn", unimplemented ? BENCH_SKIPPED : BENCH_ERROR, "%s%s", err,
                              unimplemented ? " (no kernel for these types on this CPU)" : "");
        }
        size_t n = 3;
        int dims[3] = {s->M, s->N, s->K};
        for (size_t p = 0; bf16 && p < PY_PEERS; p++) py_peer_setup(&peers[n++], py, p, s->kernel, threads, dims, 3);
        bench_tilec_controls(ctl, &peers[n], ctx, m ? f : NULL, threads, args, 3);
        n += BENCH_CONTROLS;
        /* M a runtime size, at the BK chosen for the static kernel (a kernel with runtime sizes is not measured) */
        tir_define ranged[7] = {defines[0], defines[1], defines[2], defines[3], defines[4], {"BK", chosen_bk(f)},
                                defines[5]};
        memset(&dyn, 0, sizeof dyn);
        if (s8) /* a retyped example has no file of its own to declare M in */
            bench_peer_preset(&peers[n++], "tilec-dynamic", BENCH_SKIPPED, "gemm_s8s8 is gemm_int8.tir retyped");
        else
            bench_tilec_dynamic(&dyn, &peers[n++], ctx, s->kernel, ranged, s->batch > 1 ? 7 : 6, 0, 1 << 16, threads,
                                args, 3);
        bench_row row = {
            .kernel = s->kernel,
            .shape = shape,
            .threads = threads,
            .unit = "GFLOP/s",
            .work = 2.0 * (double)nb * (double)M * (double)N * (double)K,
            .work_note = s->batch > 1 ? "2*BATCH*M*N*K" : "2*M*N*K",
            .extra_json = extra,
            .out = int8 ? (void *)C32 : (void *)C,
            .out_i32 = int8,
            .out_len = nb * M * N,
            .expected = Cd,
            .atol = 2e-5,
            .rtol = 2e-5,
            .compile = tc.kernel ? &tc.times : NULL,
            .peers = peers,
            .n_peers = n,
        };
        bench_run_row(doc, o, &row);
        onednn_destroy(g.op);
        bench_tilec_release(&tc);
        bench_tilec_controls_release(ctl);
        bench_tilec_release(&dyn);
        tir_module_destroy(m);
    }
    free(A), free(B), free(C), free(Ad), free(Bd), free(Cd), free(A16), free(B16), free(A8), free(B8), free(C32);
    return bf16;
}

int main(int argc, char **argv) {
    bench_options o;
    bench_parse_options(argc, argv, "gemm", &o);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    char openblas[512];
    snprintf(openblas, sizeof openblas, "%s; core %s", openblas_get_config(), openblas_get_corename());
    if (!o.list) fprintf(stderr, "[gemm] OpenBLAS: %s\n[gemm] oneDNN: %s\n", openblas, onednn_version());
    py_peers *py = py_peers_start(&o);
    bench_doc doc;
    if (!o.list) bench_doc_begin(&doc, "gemm", &o);
    bool python = false;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) python |= run_shape(&doc, &o, ctx, py, &shapes[i]);
    if (!o.list) {
        const char *names[] = {"openblas", "onednn"};
        const char *versions[] = {openblas, onednn_version()};
        /* the Python peers run gemm_bf16 only: their versions (a worker
         * started for each) when it ran */
        if (python)
            py_peers_doc_end(&doc, py, 2, names, versions);
        else
            bench_doc_end(&doc, 2, names, versions);
    }
    py_peers_stop(py);
    bench_runtimes_destroy();
    tilec_context_destroy(ctx);
    return 0;
}
