/* attention.c — bench_attention: causal grouped-query attention
 * (examples/attention.tir) at prefill and decode shapes against the
 * hand-written C peer (c_attention) and PyTorch eager (coprocess), at 1 and 2
 * threads.
 *
 * Q, K, V are pseudo-random in [-1, 1) from fixed seeds; O starts as NaN.  The
 * FP64 reference is the example's own, tolerance atol = rtol = 5e-5 as
 * upstream.  Throughput is GFLOP/s of the causal-valid work: 2·(D + Dv) flops
 * per (query, key) pair the mask keeps (QKᵀ and PV), masked pairs not
 * counted. */
#include "harness.h"
#include "peers.h"
#include "reference.h"
#include "py_peer.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *mode;
    int B, Hq, Hkv, Lq, Lk, D, Dv;
} attention_shape;

static const attention_shape shapes[] = {
    {"prefill", 1, 4, 2, 64, 128, 64, 64},
    {"prefill", 1, 8, 2, 256, 1024, 64, 64},
    {"decode", 1, 8, 2, 1, 2048, 64, 64},
    {"decode", 1, 16, 4, 1, 4096, 128, 128},
    /* multi-query: one KV head, one program; two workers split the KV walk */
    {"decode", 1, 8, 1, 1, 4096, 128, 128},
};

/* Blocks of attention.tir: bq query rows per program (the Q load has no
 * bounds=zero, so bq divides Lq: 16 for prefill, fewer for short ones, 1 for
 * decode), bk = 32 keys
 * per pipeline step for prefill (two W=16 packets of scores per query row).
 * Decode (one query row) runs attention_gqa.tir, one program per KV head
 * over its group of query heads, so K and V are read once per group
 * (measured at 1,16,4,1,4096,128,128, one thread, bk = 32: 2.75 against
 * 4.67 ms; the same buffers bind, Q and O being the same memory), with
 * bk = 8: its K and V blocks (bk × D/W slots per lane, d and dv split) stay
 * within the 64 unrolled elements (1.69 ms at bk = 8, 2.32 at 16, 2.70 at
 * 32; at D = 64: 0.21, 0.24, 0.27 ms). */
static const char *kernel_for(const attention_shape *s) { return s->Lq == 1 ? "attention_gqa" : "attention"; }

static void blocks_for(const attention_shape *s, int *bq, int *bk) {
    *bq = s->Lq < 16 ? s->Lq : 16;
    /* fewer query rows per program (down to 4) until the programs fill four
     * packets of 16 lanes: 1,4,2,64,128 at bq = 4 runs 0.19 against 0.36 ms
     * at 16 (one thread), 1,8,2,256,1024 keeps 16 (9.2 against 11.9 ms) */
    while (*bq > 4 && (long)s->B * s->Hq * (s->Lq / *bq) < 64) *bq /= 2;
    while (s->Lq % *bq) (*bq)--;
    *bk = s->Lq == 1 ? 8 : 32;
}

typedef struct {
    const attention_shape *s;
    float *q, *k, *v, *o;
} attention_state;

static bool c_run(void *state, char *err, size_t errlen) {
    attention_state *a = state;
    const attention_shape *s = a->s;
    c_attention(a->q, a->k, a->v, a->o, s->B, s->Hq, s->Hkv, s->Lq, s->Lk, s->D, s->Dv);
    return true;
}

/* Flops of the causal-valid pairs: query q sees keys k <= q + Lk − Lq. */
static double attention_flops(const attention_shape *s) {
    double pairs = 0;
    for (int q = 0; q < s->Lq; q++) {
        int valid = q + s->Lk - s->Lq + 1;
        pairs += valid < s->Lk ? valid : s->Lk;
    }
    return 2.0 * (s->D + s->Dv) * pairs * s->B * s->Hq;
}

static void run_shape(bench_doc *doc, const bench_options *o, tilec_context *ctx, py_peers *py,
                      const attention_shape *s) {
    char shape[96];
    /* B,Hq,Hkv,Lq,Lk,D,Dv as upstream writes attention shapes. */
    snprintf(shape, sizeof shape, "%d,%d,%d,%d,%d,%d,%d", s->B, s->Hq, s->Hkv, s->Lq, s->Lk, s->D, s->Dv);
    if (!bench_selected(o, "attention", shape)) return;
    if (o->list) {
        for (size_t t = 0; t < o->n_threads; t++) printf("attention %s threads=%d\n", shape, o->threads[t]);
        return;
    }
    int bq, bk;
    blocks_for(s, &bq, &bk);
    size_t nq = (size_t)s->B * s->Hq * s->Lq * s->D, nk = (size_t)s->B * s->Hkv * s->Lk * s->D,
           nv = (size_t)s->B * s->Hkv * s->Lk * s->Dv, no = (size_t)s->B * s->Hq * s->Lq * s->Dv;
    attention_state a = {s, bench_alloc_floats(nq), bench_alloc_floats(nk), bench_alloc_floats(nv),
                         bench_alloc_floats(no)};
    bench_fill_uniform(a.q, nq, 0xa77e0001);
    bench_fill_uniform(a.k, nk, 0xa77e0002);
    bench_fill_uniform(a.v, nv, 0xa77e0003);
    bench_fill_nan(a.o, no);

    /* The FP64 reference: the example's own, on the parsed kernel's shape. */
    char err[512];
    tir_define defines[] = {{"B", s->B},   {"Hq", s->Hq}, {"Hkv", s->Hkv}, {"Lq", s->Lq}, {"Lk", s->Lk},
                            {"D", s->D},   {"Dv", s->Dv}, {"bq", bq},      {"bk", bk}};
    const tir_func *f = NULL;
    tir_module *m = bench_parse_example(ctx, kernel_for(s), defines, 9, 0, NULL, 0, &f, err, sizeof err);
    double *ref = malloc(no * sizeof *ref);
    if (!ref) exit(1);
    for (size_t i = 0; i < no; i++) ref[i] = a.o[i];
    const void *args[4] = {a.q, a.k, a.v, a.o};
    double *expected[4] = {NULL, NULL, NULL, ref};
    const example_entry *e = example_find(kernel_for(s));
    bool have_ref = m && e && e->reference(f, args, expected);
    if (m && !have_ref) snprintf(err, sizeof err, "no FP64 reference for attention");

    const float *inputs[3] = {a.q, a.k, a.v};
    size_t lens[3] = {nq, nk, nv};
    py_peers_inputs(py, inputs, lens, 3);
    for (size_t t = 0; t < o->n_threads; t++) {
        int threads = o->threads[t];
        char extra[8192];
        snprintf(extra, sizeof extra, "\"mode\": \"%s\", \"tir_kernel\": \"%s\", \"blocks\": \"bq=%d bk=%d\"", s->mode,
                 kernel_for(s), bq, bk);
        bench_peer peers[2 + PY_PEERS + BENCH_CONTROLS + 1];
        bench_tilec tc, ctl[BENCH_CONTROLS], dyn;
        memset(&tc, 0, sizeof tc);
        peers_set_threads(threads);
        tilec_buffer bufs[4] = {{a.q, nq * sizeof(float), TIR_F32},
                                {a.k, nk * sizeof(float), TIR_F32},
                                {a.v, nv * sizeof(float), TIR_F32},
                                {a.o, no * sizeof(float), TIR_F32}};
        if (have_ref)
            bench_tilec_setup(&tc, &peers[0], ctx, f, threads, bufs, 4, extra, sizeof extra);
        else
            bench_peer_preset(&peers[0], "tilec", BENCH_ERROR, "%s", err);
        memset(&peers[1], 0, sizeof peers[1]);
        peers[1].name = "c";
        peers[1].state = &a;
        peers[1].run = c_run;
        int dims[7] = {s->B, s->Hq, s->Hkv, s->Lq, s->Lk, s->D, s->Dv};
        for (size_t p = 0; p < PY_PEERS; p++) py_peer_setup(&peers[2 + p], py, p, "attention", threads, dims, 7);
        bench_tilec_controls(ctl, &peers[2 + PY_PEERS], ctx, have_ref ? f : NULL, threads, bufs, 4);
        bench_tilec_dynamic(&dyn, &peers[2 + PY_PEERS + BENCH_CONTROLS], ctx, kernel_for(s), defines, 9, 4, 1 << 17,
                            threads, bufs, 4); /* Lk a runtime size */
        bench_row row = {
            .kernel = "attention",
            .shape = shape,
            .threads = threads,
            .unit = "GFLOP/s",
            .work = attention_flops(s),
            .work_note = "2*(D+Dv) flops per causal-valid (query, key) pair; masked pairs not counted",
            .extra_json = extra,
            .out = a.o,
            .out_len = no,
            .expected = ref,
            .no_reference = have_ref ? NULL : err,
            .atol = 5e-5,
            .rtol = 5e-5,
            .compile = tc.kernel ? &tc.times : NULL,
            .peers = peers,
            .n_peers = 2 + PY_PEERS + BENCH_CONTROLS + 1,
        };
        bench_run_row(doc, o, &row);
        bench_tilec_release(&tc);
        bench_tilec_controls_release(ctl);
        bench_tilec_release(&dyn);
    }
    tir_module_destroy(m);
    free(a.q), free(a.k), free(a.v), free(a.o), free(ref);
}

/* The decode sweep (docs/performance.md "Runtime sizes"): multi-query
 * decode (1,8,1,1,Lk,128,128) compiled once with Lk a runtime size in
 * 1..4096 and dispatched at every Lk from 1 to 4096 in turn, as a decoder's
 * growing KV cache asks: the kernel's buckets and compiles (one per distinct
 * bucket plan), its compile time and the sweep's (the faster of two
 * passes).  At a few sizes the static kernel compiled for that size is timed
 * against it in alternating rounds (per-dispatch µs, the best round of
 * each), with that static compile's time: what a recompile per size costs.
 * Inputs as the rows' (uniform in [-1, 1)); the results are the rows' to
 * check (the tests check every Lk in 1..600). */
enum { SWEEP_LK = 4096, SWEEP_ROUNDS = 5 };

/* µs per dispatch over reps dispatches (-1 when one fails). */
static double dispatch_us(tilec_context *ctx, tilec_kernel *k, const tilec_buffer *b, const int64_t *lk, uint64_t reps) {
    double t = bench_now_us();
    for (uint64_t i = 0; i < reps; i++)
        if (tilec_dispatch_dims(ctx, k, 4, b, lk ? 1 : 0, lk) != TILEC_OK) return -1;
    return (bench_now_us() - t) / (double)reps;
}

/* One sampled size: the static kernel for it against the dynamic one. */
static void sweep_point(char *json, size_t size, tilec_context *ctx, tilec_kernel *dyn, const tir_define *defines,
                        int threads, const tilec_buffer *b, int64_t lk) {
    tir_define pinned[9];
    memcpy(pinned, defines, sizeof pinned);
    pinned[4].value = lk;
    char err[512] = "";
    const tir_func *f = NULL;
    tir_module *m = bench_parse_example(ctx, "attention_gqa", pinned, 9, 0, NULL, 0, &f, err, sizeof err);
    tilec_compile_options co = tilec_compile_options_default();
    co.runtime = bench_runtime(ctx, threads);
    tilec_kernel *k = NULL;
    if (m && co.runtime && tilec_compile(ctx, f, &co, &k) != TILEC_OK) bench_diag_message(ctx, err, sizeof err);
    double best[2] = {1e300, 1e300}, first = k ? dispatch_us(ctx, k, b, NULL, 1) : -1;
    uint64_t reps = first > 0 ? (uint64_t)(2000 / first) + 1 : 0; /* about 2 ms a visit */
    for (int r = 0; r < SWEEP_ROUNDS && reps; r++)
        for (int v = 0; v < 2; v++) {
            int which = r % 2 ? 1 - v : v; /* ABBA */
            double us = dispatch_us(ctx, which ? dyn : k, b, which ? &lk : NULL, reps);
            if (us < 0) reps = 0;
            else if (us < best[which]) best[which] = us;
        }
    if (!reps) {
        if (!err[0]) bench_diag_message(ctx, err, sizeof err);
        bench_appendf(json, size, "{\"Lk\": %lld, \"status\": \"error\", \"message\": ", (long long)lk);
        bench_json_quote(json, size, err);
        bench_appendf(json, size, "}");
    } else {
        bench_appendf(json, size,
                      "{\"Lk\": %lld, \"static_us\": %.4f, \"dynamic_us\": %.4f, \"static_compile_ms\": %.2f}",
                      (long long)lk, best[0], best[1], tilec_kernel_compile_times(k).total);
    }
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

static void decode_sweep(bench_doc *doc, const bench_options *o, tilec_context *ctx, int threads) {
    static const char shape[] = "decode-sweep 1,8,1,1,1..4096,128,128";
    static const int64_t points[] = {1, 2, 17, 255, 256, 1000, SWEEP_LK};
    if (!bench_selected(o, "attention", shape) || !bench_peer_wanted(o, "tilec-dynamic")) return;
    if (o->list) {
        printf("attention %s threads=%d\n", shape, threads);
        return;
    }
    fprintf(stderr, "attention %s threads=%d\n", shape, threads);
    attention_shape s = {"decode", 1, 8, 1, 1, SWEEP_LK, 128, 128};
    int bq, bk;
    blocks_for(&s, &bq, &bk);
    size_t nq = (size_t)s.Hq * s.D, nk = (size_t)s.Hkv * s.Lk * s.D, nv = (size_t)s.Hkv * s.Lk * s.Dv,
           no = (size_t)s.Hq * s.Dv;
    float *q = bench_alloc_floats(nq), *k = bench_alloc_floats(nk), *v = bench_alloc_floats(nv),
          *out = bench_alloc_floats(no);
    bench_fill_uniform(q, nq, 0xa77e0001);
    bench_fill_uniform(k, nk, 0xa77e0002);
    bench_fill_uniform(v, nv, 0xa77e0003);
    bench_fill_nan(out, no);
    tilec_buffer b[4] = {{q, nq * sizeof(float), TIR_F32},
                         {k, nk * sizeof(float), TIR_F32},
                         {v, nv * sizeof(float), TIR_F32},
                         {out, no * sizeof(float), TIR_F32}};
    tir_define defines[9] = {{"B", s.B},   {"Hq", s.Hq}, {"Hkv", s.Hkv}, {"Lq", s.Lq}, {"Lk", s.Lk},
                             {"D", s.D},   {"Dv", s.Dv}, {"bq", bq},      {"bk", bk}};
    bench_tilec dyn;
    bench_peer p;
    bench_tilec_dynamic(&dyn, &p, ctx, "attention_gqa", defines, 9, 4, SWEEP_LK, threads, b, 4);
    char json[8192] = "";
    bench_appendf(json, sizeof json, "{\"kernel\": \"attention\", \"shape\": \"%s\", \"threads\": %d, ", shape,
                  threads);
    double sweep = 1e300;
    for (int pass = 0; dyn.kernel && pass < 2 && sweep > 0; pass++) {
        double t = bench_now_us();
        bool ok = true;
        for (int64_t lk = 1; lk <= SWEEP_LK && ok; lk++) ok = tilec_dispatch_dims(ctx, dyn.kernel, 4, b, 1, &lk) == TILEC_OK;
        t = bench_now_us() - t;
        if (!ok) bench_diag_message(ctx, p.message, sizeof p.message);
        sweep = !ok ? -1 : t < sweep ? t : sweep;
    }
    if (!dyn.kernel || sweep < 0) {
        bench_appendf(json, sizeof json, "\"status\": \"error\", \"message\": ");
        bench_json_quote(json, sizeof json, p.message);
    } else {
        const char *r = tilec_kernel_realization(dyn.kernel), *plan = strstr(r, "plan="), *end = strstr(r, "; dims=");
        const char *var = strstr(r, "variants=");
        int buckets = plan ? 1 : 0;
        for (const char *c = plan; c && end && (c = strstr(c, " | ")) && c < end; c += 3) buckets++;
        bench_appendf(json, sizeof json,
                      "\"status\": \"ok\", \"sizes\": %d, \"buckets\": %d, \"compiles\": %d, "
                      "\"compile_ms\": %.2f, \"sweep_ms\": %.3f, \"points\": [",
                      SWEEP_LK, buckets, var ? atoi(var + 9) : 1, dyn.times.total, sweep / 1000);
        for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
            bench_appendf(json, sizeof json, "%s", i ? ", " : "");
            sweep_point(json, sizeof json, ctx, dyn.kernel, defines, threads, b, points[i]);
        }
        bench_appendf(json, sizeof json, "]");
    }
    bench_appendf(json, sizeof json, "}");
    bench_doc_sweep(doc, json);
    bench_tilec_release(&dyn);
    free(q), free(k), free(v), free(out);
}

int main(int argc, char **argv) {
    bench_options o;
    bench_parse_options(argc, argv, "attention", &o);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    py_peers *py = py_peers_start(&o);
    bench_doc doc;
    if (!o.list) bench_doc_begin(&doc, "attention", &o);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) run_shape(&doc, &o, ctx, py, &shapes[i]);
    for (size_t t = 0; t < o.n_threads; t++) decode_sweep(&doc, &o, ctx, o.threads[t]);
    if (!o.list) {
        const char *names[] = {"c"};
        const char *versions[] = {"gcc " __VERSION__ " -O3 -march=native -fopenmp"};
        py_peers_doc_end(&doc, py, 1, names, versions);
    }
    py_peers_stop(py);
    bench_runtimes_destroy();
    tilec_context_destroy(ctx);
    return 0;
}
