/* consumer.c — a program using an installed tilec, as a user's would: it
 * includes only <tilec/tilec.h>, reads a kernel file (argv[1], a softmax over
 * rows like examples/softmax.tir), compiles it for R=3 rows of W=37, runs it
 * natively and checks every row against softmax computed here in double.
 * Written in the common subset of C and C++: tests/cli/install.sh builds it
 * as C through pkg-config, as C++ with g++, and through find_package(tilec).
 * Exit 0 when the output matches and the version agrees with the headers. */
#include <tilec/tilec.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { R = 3, W = 37 };

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = (char *)malloc(1 << 20);
    *len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (text) text[*len] = 0;
    return text;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    if (strcmp(tilec_version(), TILEC_VERSION_STRING)) {
        fprintf(stderr, "library %s, headers %s\n", tilec_version(), TILEC_VERSION_STRING);
        return 1;
    }
    size_t len = 0;
    char *text = read_all(argv[1], &len);
    tilec_context *ctx = NULL;
    if (!text || tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    tir_define defines[2] = {{"R", R}, {"W", W}};
    tir_module *m = NULL;
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    if (tir_parse(ctx, text, len, argv[1], defines, 2, &m) != TILEC_OK ||
        tilec_compile(ctx, tir_module_func(m, 0), &o, &k) != TILEC_OK) {
        tilec_diag_print(ctx, stderr);
        return 1;
    }
    float x[R * W], y[R * W];
    for (int i = 0; i < R * W; i++) x[i] = (float)((i * 37 % 101) - 50) / 25.0f, y[i] = NAN;
    tilec_buffer args[2] = {{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}};
    if (tilec_dispatch(ctx, k, 2, args) != TILEC_OK) {
        tilec_diag_print(ctx, stderr);
        return 1;
    }
    int bad = 0;
    for (int r = 0; r < R; r++) {
        double mx = -INFINITY, sum = 0;
        for (int c = 0; c < W; c++) mx = fmax(mx, x[r * W + c]);
        for (int c = 0; c < W; c++) sum += exp(x[r * W + c] - mx);
        for (int c = 0; c < W; c++) {
            double want = exp(x[r * W + c] - mx) / sum;
            if (!(fabs(y[r * W + c] - want) <= 1e-6 + 1e-5 * want)) bad++;
        }
    }
    printf("tilec %s: softmax %dx%d %s (%s)\n", tilec_version(), R, W, bad ? "MISMATCH" : "ok",
           tilec_kernel_realization(k));
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
    tilec_context_destroy(ctx);
    free(text);
    return bad ? 1 : 0;
}
