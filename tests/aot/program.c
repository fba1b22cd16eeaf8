/* program.c — a C program linking kernels compiled ahead of time
 * (tests/cli/aot.sh builds it against the runtime library, without LLVM).
 * Each case reads its inputs and the reference interpreter's outputs from
 * the .npy files the script wrote (`tilec run --reference --out`), calls
 * the kernel's typed entry point and compares (|x-r| <= 5e-5 + 5e-5|r|, as
 * `tilec run --check`).  `program CASE…` runs those cases (default: all);
 * it prints "CASE ok" or why not, and exits 1 on any failure.
 *
 * Cases: softmax (plain), gemm_v3 (a packing program for x86-64-v3),
 * gemm_bf16 (two packs, both operands widened to f32),
 * attention_gqa (a split program: partial + combine), rmsnorm (a fused
 * kernel with an unfused twin: disjoint, then the output overlapping the
 * input shifted by 7 elements, where the twin runs), axpb (scalar
 * parameters passed by value), fault (a bounds fault: TIR-I08 through
 * tilec_aot_last_error), checked (the _dispatch form: a short buffer is
 * RT-D04 and nothing runs), last_error (the calling thread's diagnostics
 * are its last call's only, however many failed before: 20,000 failing
 * calls through the _dispatch form leave one message of constant length,
 * another error replaces it, a call that succeeds empties it — through
 * either form), threads (softmax from 4 threads at once),
 * half (tests/kernels/half_conv.tir for x86-64-v2, whose CPU has no F16C so
 * the backend rounds to f16/bf16 by integer steps, against the same kernel
 * for this CPU — bit for bit, over a sweep of f32 bit patterns, ties,
 * subnormals, infinities and NaNs), decode (a kernel with runtime sizes:
 * one object for a range of KV lengths, see decode_case), gemm_rows (runtime
 * sizes and packing: see gemm_rows_case). */
#include "attention_gqa.h"
#include "axpb.h"
#include "conv_native.h"
#include "conv_v2.h"
#include "decode.h"
#include "gemm_bf16.h"
#include "gemm_rows.h"
#include "gemm_v3.h"
#include "rmsnorm.h"
#include "scalar_ops.h"
#include "softmax.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* The data of a .npy file (version 1 header) of exactly `bytes` bytes. */
static void *load(const char *name, size_t bytes) {
    char path[256];
    snprintf(path, sizeof path, "%s.npy", name);
    FILE *f = fopen(path, "rb");
    unsigned char head[10];
    void *data = malloc(bytes ? bytes : 1);
    bool ok = f && data && fread(head, 1, 10, f) == 10 && !memcmp(head, "\x93NUMPY", 6) &&
              fseek(f, 10 + (long)(head[8] | head[9] << 8), SEEK_SET) == 0 && fread(data, 1, bytes, f) == bytes &&
              fgetc(f) == EOF;
    if (f) fclose(f);
    if (!ok) {
        printf("cannot read %zu bytes of data from %s\n", bytes, path);
        exit(2);
    }
    return data;
}

static bool close_to(const char *what, const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= 5e-5f + 5e-5f * fabsf(want[i]))) {
            printf("%s: element %zu is %.9g, the reference's %.9g\n", what, i, got[i], want[i]);
            failures++;
            return false;
        }
    return true;
}

static bool called(const char *what, int status) {
    if (status) {
        printf("%s: status %d: %s", what, status, tilec_aot_last_error());
        failures++;
    }
    return status == 0;
}

static void softmax_case(void) {
    enum { N = 17 * 65 };
    float *x = load("softmax.X", 4 * N), *want = load("softmax.Y", 4 * N), y[N];
    if (called("softmax", softmax(x, y)) && close_to("softmax", y, want, N)) puts("softmax ok");
    free(x);
    free(want);
}

static void gemm_case(void) {
    float *a = load("gemm.A", 4 * 64 * 48), *b = load("gemm.B", 4 * 48 * 80), *want = load("gemm.C", 4 * 64 * 80);
    float c[64 * 80];
    if (called("gemm_v3", gemm_v3(a, b, c)) && close_to("gemm_v3", c, want, 64 * 80)) puts("gemm_v3 ok");
    free(a), free(b), free(want);
}

static void gemm_bf16_case(void) {
    uint16_t *a = load("gemm_bf16.A", 2 * 64 * 48), *b = load("gemm_bf16.B", 2 * 48 * 80);
    float *want = load("gemm_bf16.C", 4 * 64 * 80), c[64 * 80];
    if (called("gemm_bf16", gemm_bf16(a, b, c)) && close_to("gemm_bf16", c, want, 64 * 80)) puts("gemm_bf16 ok");
    free(a), free(b), free(want);
}

static void attention_case(void) {
    float *q = load("attention_gqa.Q", 1792), *k = load("attention_gqa.K", 1408), *v = load("attention_gqa.V", 1232);
    float *want = load("attention_gqa.O", 1568), o[1568 / 4];
    if (called("attention_gqa", attention_gqa(q, k, v, o)) && close_to("attention_gqa", o, want, 1568 / 4))
        puts("attention_gqa ok");
    free(q), free(k), free(v), free(want);
}

/* A kernel with runtime sizes (examples/dynamic/decode_attention.tir, one
 * KV head, 2 workers): one object for Lk in 1..32768, its buckets' plans
 * (Lk = 1 specialized, unsplit below 256, split above), run at four
 * lengths through the typed entry; the checked form refuses a length
 * outside the range (RT-D10) and a K too short for its length (RT-D04). */
static void decode_case(void) {
    static const int64_t lengths[] = {1, 17, 300, 5000}; /* 1: a bucket of one point, a static program */
    bool ok = true;
    for (size_t i = 0; i < 4; i++) {
        int64_t lk = lengths[i];
        char name[4][32];
        const char *param = "QKVO";
        for (int p = 0; p < 4; p++) snprintf(name[p], sizeof name[p], "decode%lld.%c", (long long)lk, param[p]);
        size_t kv = (size_t)lk * 64 * 4;
        float *q = load(name[0], 2048), *k = load(name[1], kv), *v = load(name[2], kv), *want = load(name[3], 2048);
        float o[512];
        ok = ok && called("decode", decode(q, k, v, o, lk)) && close_to("decode", o, want, 512);
        if (ok && lk == 300) {
            tilec_context *ctx;
            if (tilec_context_create(NULL, &ctx)) return;
            tilec_buffer args[4] = {{q, 2048, TIR_F32}, {k, kv, TIR_F32}, {v, kv, TIR_F32}, {o, 2048, TIR_F32}};
            int64_t far = 40000, longer = 301;
            char text[2][512];
            int out_of_range = decode_dispatch(ctx, NULL, 4, args, 1, &far);
            tilec_diag_render(ctx, text[0], sizeof text[0]);
            tilec_diag_clear(ctx);
            int short_k = decode_dispatch(ctx, NULL, 4, args, 1, &longer);
            tilec_diag_render(ctx, text[1], sizeof text[1]);
            if (out_of_range != TILEC_E_ARG || !strstr(text[0], "RT-D10") || short_k != TILEC_E_RUNTIME ||
                !strstr(text[1], "RT-D04") || decode_dispatch(ctx, NULL, 4, args, 1, &lk) != TILEC_OK) {
                printf("decode: checked: %d %s / %d %s\n", out_of_range, text[0], short_k, text[1]);
                failures++;
                ok = false;
            }
            tilec_context_destroy(ctx);
        }
        free(q), free(k), free(v), free(want);
    }
    if (ok) puts("decode ok");
}

/* Runtime sizes and packing (examples/dynamic/gemm_rows.tir, --pack on):
 * one object for M in 1..4096 whose copy of A runs at each call's M into
 * panels laid out at it (the scratch growing past the sizes a bucket was
 * planned at), at four row counts, increasing. */
static void gemm_rows_case(void) {
    static const int64_t rows[] = {1, 9, 300, 1000};
    bool ok = true;
    for (size_t i = 0; ok && i < 4; i++) {
        int64_t m = rows[i];
        char name[3][32];
        for (int p = 0; p < 3; p++) snprintf(name[p], sizeof name[p], "gemm_rows%lld.%c", (long long)m, "ABC"[p]);
        size_t na = (size_t)m * 48, nc = (size_t)m * 80;
        float *a = load(name[0], 4 * na), *b = load(name[1], 4 * 48 * 80), *want = load(name[2], 4 * nc);
        float *c = malloc(4 * nc);
        ok = c && called("gemm_rows", gemm_rows(a, b, c, m)) && close_to("gemm_rows", c, want, nc);
        free(a), free(b), free(want), free(c);
    }
    if (ok) puts("gemm_rows ok");
}

static void rmsnorm_case(void) {
    enum { N = 1030 };
    float *x = load("rmsnorm.X", 4 * N), *g = load("rmsnorm.G", 4 * N), *want = load("rmsnorm.Y", 4 * N);
    float y[N], shared[N + 7];
    bool ok = called("rmsnorm", rmsnorm(x, g, y)) && close_to("rmsnorm", y, want, N);
    /* Y over X's memory 7 elements on: the row is loaded whole before the
     * store, so the result is the reference's */
    memcpy(shared, x, sizeof *x * N);
    ok = ok && called("rmsnorm shifted", rmsnorm(shared, g, shared + 7)) &&
         close_to("rmsnorm shifted", shared + 7, want, N);
    if (ok) puts("rmsnorm ok");
    free(x), free(g), free(want);
}

static void axpb_case(void) {
    float *x = load("axpb.X", 4 * 1000), *want = load("axpb.Y", 4 * 1000), y[1000];
    if (called("axpb", axpb(2.0f, x, 0.5f, -4, y)) && close_to("axpb", y, want, 1000)) puts("axpb ok");
    free(x), free(want);
}

static void fault_case(void) {
    float x[16] = {0}, y[16];
    int32_t i[16];
    int st = scalar_ops(x, i, y);
    const char *e = tilec_aot_last_error();
    if (st == TILEC_E_RUNTIME && strstr(e, "error[TIR-I08]: scalar store to %Y in '@scalar_ops': index 17") &&
        strstr(e, "elementwise.tir:48:5"))
        puts("fault ok");
    else
        printf("fault: status %d, message: %s\n", st, e), failures++;
}

static void checked_case(void) {
    float x[17 * 65] = {0}, y[17 * 65];
    tilec_buffer args[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y - 4, TIR_F32}};
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) return;
    int st = softmax_dispatch(ctx, NULL, 2, args);
    char text[512];
    tilec_diag_render(ctx, text, sizeof text);
    tilec_buffer ok_args[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}};
    if (st == TILEC_E_RUNTIME && strstr(text, "RT-D04") && softmax_dispatch(ctx, NULL, 2, ok_args) == TILEC_OK)
        puts("checked ok");
    else
        printf("checked: status %d: %s\n", st, text), failures++;
    tilec_context_destroy(ctx);
}

/* How many times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle) {
    int n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle)) n++;
    return n;
}

static void last_error_case(void) {
    enum { N = 17 * 65, CALLS = 20000 };
    static float x[N], y[N];
    tilec_buffer short_y[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y - 4, TIR_F32}};
    tilec_buffer good[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}};
    size_t first = 0;
    bool ok = true;
    for (int i = 0; i < CALLS && ok; i++) {
        ok = softmax_dispatch(NULL, NULL, 2, short_y) == TILEC_E_RUNTIME;
        size_t len = strlen(tilec_aot_last_error());
        if (!i) first = len;
        if (len != first) printf("last_error: call %d's message is %zu bytes, the first's %zu\n", i, len, first);
        ok = ok && len == first;
    }
    const char *e = tilec_aot_last_error();
    ok = ok && occurrences(e, "error[") == 1 && strstr(e, "RT-D04");
    /* another error replaces it: the wrong count alone */
    ok = ok && softmax_dispatch(NULL, NULL, 1, good) != TILEC_OK && (e = tilec_aot_last_error()) &&
         occurrences(e, "error[") == 1 && strstr(e, "RT-D02");
    /* a call that succeeds empties it, through either form */
    ok = ok && softmax_dispatch(NULL, NULL, 2, good) == TILEC_OK && !strcmp(tilec_aot_last_error(), "");
    float in[16] = {0}, out[16];
    int32_t i32[16];
    ok = ok && scalar_ops(in, i32, out) == TILEC_E_RUNTIME && softmax(x, y) == 0 && !strcmp(tilec_aot_last_error(), "");
    if (ok) puts("last_error ok");
    else printf("last_error: the message: %s\n", tilec_aot_last_error()), failures++;
}

static void *softmax_thread(void *p) {
    enum { N = 17 * 65 };
    const float *x = p;
    float y[N];
    for (int r = 0; r < 50; r++)
        if (softmax(x, y)) return "a call failed";
    return NULL;
}

static void threads_case(void) {
    float *x = load("softmax.X", 4 * 17 * 65);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, softmax_thread, x);
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += r != NULL;
    }
    if (!bad) printf("threads ok (%u workers)\n", tilec_runtime_workers(tilec_aot_default_runtime()));
    else printf("threads: %d threads failed\n", bad), failures++;
    free(x);
}

static void half_case(void) {
    enum { M = 4099 };
    static float x[M], y[2][2 * M];
    static double d[M], z[2][2 * M];
    static int32_t n[M];
    static uint16_t h[2][3 * M], b[2][3 * M];
    for (int i = 0; i < M; i++) {
        uint32_t bits = (uint32_t)((uint64_t)i * 1048573u * 1021u);
        memcpy(&x[i], &bits, 4);
        d[i] = ldexp(1.0 + (double)(i % 4096) / 4096.0, i % 330 - 165) * (i % 2 ? -1 : 1);
        n[i] = (int32_t)((uint32_t)i * 2654435761u) >> (i % 24);
    }
    const double special[] = {0x1p-24, 0x1p-25, 0x1.8p-25, 65519.99, 65520.0, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11,
                              1.0 + 0x1p-8, INFINITY, -INFINITY, NAN, -0.0, 0x1p-133, 3.4e38};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) d[i] = special[i], x[i] = (float)special[i];
    bool ok = called("conv_v2", conv_v2(x, d, n, h[0], b[0], y[0], z[0])) &&
              called("conv_native", conv_native(x, d, n, h[1], b[1], y[1], z[1]));
    if (ok && (memcmp(h[0], h[1], sizeof h[0]) || memcmp(b[0], b[1], sizeof b[0]) || memcmp(y[0], y[1], sizeof y[0]) ||
               memcmp(z[0], z[1], sizeof z[0]))) {
        printf("half: the x86-64-v2 object differs from the native one\n");
        failures++;
        ok = false;
    }
    if (ok) puts("half ok");
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"softmax", softmax_case}, {"gemm_v3", gemm_case}, {"gemm_bf16", gemm_bf16_case}, {"attention_gqa", attention_case},
    {"rmsnorm", rmsnorm_case}, {"axpb", axpb_case},    {"fault", fault_case},
    {"checked", checked_case}, {"last_error", last_error_case}, {"threads", threads_case},  {"half", half_case},
    {"decode", decode_case},
    {"gemm_rows", gemm_rows_case},
};

int main(int argc, char **argv) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted = wanted || !strcmp(argv[a], cases[i].name);
        if (wanted) cases[i].run();
    }
    return failures ? 1 : 0;
}
