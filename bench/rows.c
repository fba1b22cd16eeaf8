/* rows.c — bench_rows: the LLM row operators (examples/NAME.tir with R, W
 * overrides) against the hand-written C peers, oneDNN (softmax, layer norm)
 * and PyTorch eager (coprocess), at 1 and 2 threads.
 *
 * Inputs are pseudo-random in [-1, 1) from fixed seeds (gamma, beta, cos and
 * sin too); the output starts as NaN.  The FP64 reference is the example's
 * own (examples/reference), tolerance atol = rtol = 5e-5 as upstream.  A bf16
 * kernel (rmsnorm_bf16) reads and writes bf16: its inputs are the same
 * numbers rounded to bf16 (the Python peers get them as the f32 values they
 * are and convert them to bf16 at setup), and its output, rounded to bf16 by
 * every peer, may be one bf16 unit in the last place off: rtol = 2^-7.
 * Throughput is GB/s over the bytes of every input and the output, once.
 * Each row also times the memory bound at those bytes: a STREAM triad
 * (a = b + s·c, OpenMP with the row's threads) over three arrays of a third
 * of them each, in the same ABBA rounds (peer "stream", harness.h `bound`),
 * so the report shows tilec / bound beside tilec / best peer. */
#include "harness.h"
#include "peers.h"
#include "reference.h"
#include "py_peer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shapes of the inputs, in the kernel's parameter order; the output is R×W. */
typedef enum { IN_FULL, IN_ROW, IN_HALF } input_shape; /* R×W, 1×W, R×W/2 */

typedef struct {
    const char *name; /* examples/NAME.tir, kernel name, torch op */
    int n_inputs;
    input_shape inputs[3];
    onednn_op *(*onednn_create)(int rows, int cols, char *err, size_t errlen); /* NULL: no oneDNN op */
    const char *onednn_skipped; /* no oneDNN op but a oneDNN peer is expected: why it is skipped */
    bool bf16;                  /* inputs and output are bf16 */
} row_kernel;

static const row_kernel kernels[] = {
    {"softmax", 1, {IN_FULL}, onednn_softmax_create, NULL, false},
    {"masked_softmax", 1, {IN_FULL}, NULL, NULL, false},
    {"layernorm", 3, {IN_FULL, IN_ROW, IN_ROW}, onednn_layernorm_create, NULL, false},
    {"rmsnorm", 2, {IN_FULL, IN_ROW}, NULL, NULL, false},
    {"rmsnorm_bf16", 2, {IN_FULL, IN_ROW}, NULL,
     "oneDNN 2.6 has no RMS normalization (its layer normalization always subtracts the mean; the rms_norm flag "
     "came with oneDNN 3.x), and its bf16 layer normalization is unimplemented without AVX-512",
     true},
    {"gelu", 2, {IN_FULL, IN_FULL}, NULL, NULL, false}, /* gelu + residual */
    {"swiglu", 2, {IN_FULL, IN_FULL}, NULL, NULL, false},
    {"rope", 3, {IN_FULL, IN_HALF, IN_HALF}, NULL, NULL, false},
};

static const struct {
    int R, W;
} shapes[] = {{17, 66}, {1024, 4096}, {1024, 4098}, {4096, 4096}};

typedef struct {
    const row_kernel *k;
    float *in[3];     /* the input values (exactly bf16 ones for a bf16 kernel) */
    uint16_t *in16[3]; /* a bf16 kernel's inputs as bf16 */
    void *out;        /* floats, or bf16 for a bf16 kernel */
    int R, W;
    onednn_op *op;
} row_state;

static bool c_run(void *state, char *err, size_t errlen) {
    row_state *s = state;
    float *const *x = s->in;
    const char *n = s->k->name;
    if (!strcmp(n, "softmax"))
        c_softmax(x[0], s->out, s->R, s->W);
    else if (!strcmp(n, "masked_softmax"))
        c_masked_softmax(x[0], s->out, s->R, s->W);
    else if (!strcmp(n, "layernorm"))
        c_layernorm(x[0], x[1], x[2], s->out, s->R, s->W);
    else if (!strcmp(n, "rmsnorm"))
        c_rmsnorm(x[0], x[1], s->out, s->R, s->W);
    else if (!strcmp(n, "rmsnorm_bf16"))
        c_rmsnorm_bf16(s->in16[0], s->in16[1], s->out, s->R, s->W);
    else if (!strcmp(n, "gelu"))
        c_gelu_residual(x[0], x[1], s->out, s->R, s->W);
    else if (!strcmp(n, "swiglu"))
        c_swiglu(x[0], x[1], s->out, s->R, s->W);
    else if (!strcmp(n, "rope"))
        c_rope(x[0], x[1], x[2], s->out, s->R, s->W);
    else {
        snprintf(err, errlen, "no C peer for %s", n);
        return false;
    }
    return true;
}

static bool onednn_row_run(void *state, char *err, size_t errlen) {
    row_state *s = state;
    void *args[4];
    int n = 0;
    for (int i = 0; i < s->k->n_inputs; i++) args[n++] = s->in[i];
    args[n] = s->out;
    return onednn_run(s->op, args, err, errlen);
}

static size_t input_len(input_shape s, int R, int W) {
    return s == IN_FULL ? (size_t)R * (size_t)W : s == IN_ROW ? (size_t)W : (size_t)R * (size_t)(W / 2);
}

static void run_shape(bench_doc *doc, const bench_options *o, tilec_context *ctx, py_peers *py,
                      const row_kernel *k, int R, int W) {
    char shape[64];
    snprintf(shape, sizeof shape, "%dx%d", R, W);
    if (!bench_selected(o, k->name, shape)) return;
    if (o->list) {
        for (size_t t = 0; t < o->n_threads; t++) printf("%s %s threads=%d\n", k->name, shape, o->threads[t]);
        return;
    }
    row_state s = {k, {NULL, NULL, NULL}, {NULL, NULL, NULL}, NULL, R, W, NULL};
    size_t lens[3], out_len = (size_t)R * (size_t)W, elem = k->bf16 ? sizeof(uint16_t) : sizeof(float);
    tir_scalar type = k->bf16 ? TIR_BF16 : TIR_F32;
    double bytes = (double)(out_len * elem);
    void *args[4];
    double *expected[4] = {NULL, NULL, NULL, NULL};
    tilec_buffer bufs[4];
    for (int i = 0; i < k->n_inputs; i++) {
        lens[i] = input_len(k->inputs[i], R, W);
        s.in[i] = bench_alloc_floats(lens[i]);
        bench_fill_uniform(s.in[i], lens[i], 0x7113c0de + 7919u * (uint64_t)i + 104729u * (uint64_t)(k - kernels));
        args[i] = s.in[i];
        if (k->bf16) {
            args[i] = s.in16[i] = bench_alloc(lens[i] * elem);
            bench_round_bf16(s.in[i], s.in16[i], lens[i]);
        }
        bufs[i] = (tilec_buffer){args[i], lens[i] * elem, type};
        bytes += (double)(lens[i] * elem);
    }
    s.out = bench_alloc(out_len * elem);
    c_stream st = {.n = (long)(bytes / (3 * sizeof(float))) + 1};
    st.a = bench_alloc_floats((size_t)st.n);
    st.b = bench_alloc_floats((size_t)st.n);
    st.c = bench_alloc_floats((size_t)st.n);
    bench_fill_uniform(st.b, (size_t)st.n, 0x57ea3001);
    bench_fill_uniform(st.c, (size_t)st.n, 0x57ea3002);
    bench_fill_nan(st.a, (size_t)st.n);
    args[k->n_inputs] = s.out;
    bufs[k->n_inputs] = (tilec_buffer){s.out, out_len * elem, type};

    /* The FP64 reference: the example's own, on the parsed kernel's shape. */
    char err[512];
    tir_define defines[] = {{"R", R}, {"W", W}};
    const tir_func *f = NULL;
    tir_module *m = bench_parse_example(ctx, k->name, defines, 2, 0, NULL, 0, &f, err, sizeof err);
    double *ref = malloc(out_len * sizeof *ref);
    const example_entry *e = example_find(k->name);
    if (!ref) exit(1);
    for (size_t i = 0; i < out_len; i++) ref[i] = NAN; /* the reference overwrites every element */
    expected[k->n_inputs] = ref;
    bool have_ref = m && e && e->reference(f, (const void *const *)args, expected);
    if (m && !have_ref) snprintf(err, sizeof err, "no FP64 reference for %s", k->name);

    py_peers_inputs(py, (const float *const *)s.in, lens, (size_t)k->n_inputs);
    for (size_t t = 0; t < o->n_threads; t++) {
        int threads = o->threads[t];
        char extra[8192] = "";
        bench_peer peers[4 + PY_PEERS + BENCH_CONTROLS + 1];
        bench_tilec tc, ctl[BENCH_CONTROLS], dyn;
        memset(&tc, 0, sizeof tc);
        peers_set_threads(threads);
        if (have_ref)
            bench_tilec_setup(&tc, &peers[0], ctx, f, threads, bufs, (size_t)k->n_inputs + 1, extra, sizeof extra);
        else
            bench_peer_preset(&peers[0], "tilec", BENCH_ERROR, "%s", err);
        memset(&peers[1], 0, sizeof peers[1]);
        peers[1].name = "c";
        peers[1].state = &s;
        peers[1].run = c_run;
        size_t n = 2;
        if (k->onednn_create) {
            s.op = k->onednn_create(R, W, err, sizeof err);
            if (s.op) {
                memset(&peers[n], 0, sizeof peers[n]);
                peers[n].name = "onednn";
                peers[n].state = &s;
                peers[n].run = onednn_row_run;
            } else {
                bench_peer_preset(&peers[n], "onednn", BENCH_ERROR, "%s", err);
            }
            n++;
        } else if (k->onednn_skipped) {
            bench_peer_preset(&peers[n++], "onednn", BENCH_SKIPPED, "%s", k->onednn_skipped);
        }
        int dims[2] = {R, W};
        for (size_t p = 0; p < PY_PEERS; p++) py_peer_setup(&peers[n++], py, p, k->name, threads, dims, 2);
        memset(&peers[n], 0, sizeof peers[n]);
        peers[n].name = "stream";
        peers[n].state = &st;
        peers[n].run = c_stream_run;
        peers[n++].bound = true;
        bench_tilec_controls(ctl, &peers[n], ctx, have_ref ? f : NULL, threads, bufs, (size_t)k->n_inputs + 1);
        n += BENCH_CONTROLS;
        bench_tilec_dynamic(&dyn, &peers[n++], ctx, k->name, defines, 2, 0, 1 << 20, threads, bufs,
                            (size_t)k->n_inputs + 1); /* R a runtime size */
        bench_row row = {
            .kernel = k->name,
            .shape = shape,
            .threads = threads,
            .unit = "GB/s",
            .work = bytes,
            .work_note = "bytes of every input and the output, once",
            .extra_json = extra,
            .out = s.out,
            .out_bf16 = k->bf16,
            .out_len = out_len,
            .expected = ref,
            .no_reference = have_ref ? NULL : err,
            .atol = 5e-5,
            .rtol = k->bf16 ? 0x1p-7 : 5e-5,
            .compile = tc.kernel ? &tc.times : NULL,
            .peers = peers,
            .n_peers = n,
        };
        bench_run_row(doc, o, &row);
        onednn_destroy(s.op);
        s.op = NULL;
        bench_tilec_release(&tc);
        bench_tilec_controls_release(ctl);
        bench_tilec_release(&dyn);
    }
    tir_module_destroy(m);
    for (int i = 0; i < k->n_inputs; i++) free(s.in[i]), free(s.in16[i]);
    free(s.out);
    free(st.a);
    free(st.b);
    free(st.c);
    free(ref);
}

int main(int argc, char **argv) {
    bench_options o;
    bench_parse_options(argc, argv, "rows", &o);
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    py_peers *py = py_peers_start(&o);
    bench_doc doc;
    if (!o.list) bench_doc_begin(&doc, "rows", &o);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            run_shape(&doc, &o, ctx, py, &kernels[k], shapes[i].R, shapes[i].W);
    if (!o.list) {
        const char *names[] = {"c", "onednn"};
        const char *versions[] = {"gcc " __VERSION__ " -O3 -march=native -fopenmp", onednn_version()};
        py_peers_doc_end(&doc, py, 2, names, versions);
    }
    py_peers_stop(py);
    bench_runtimes_destroy();
    tilec_context_destroy(ctx);
    return 0;
}
