/* module_program.c — a C program running modules compiled ahead of time
 * (tests/cli/aot_module.sh links it with the objects tests/aot/make_module.py
 * wrote, against the runtime library, without LLVM).
 *
 *   module_program DIR
 *
 * Replays DIR/manifest.txt (make_module.py says what its lines mean): binds
 * each module's constants by name, runs each run with the arguments'
 * contents before it, and compares every output with what the same module
 * produced compiled in the process that wrote it — bit for bit (the same
 * kernels, the same plans).  It also checks the module's own refusals: a
 * run with a constant unbound (MOD-B12), a wrong argument count (RT-D02),
 * a size out of range (RT-D10), an argument too short (RT-D04, through
 * MOD-R05 naming the step), a constant of the wrong type (MOD-B05) or name
 * (MOD-B04).  Prints "NAME ok" per module, or why not; exits 1 on any
 * failure. */
#include "decode_m.h"
#include "prefill_m.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const char *dir;

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), failures++)

/* A .npy file (version 1): its data, byte count and element type. */
typedef struct {
    void *data;
    size_t bytes;
    tir_scalar elem;
} array;

static array load(const char *name) {
    array a = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    unsigned char head[10];
    if (!f || fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY\x01", 7)) {
        FAIL("cannot read %s", path);
        if (f) fclose(f);
        return a;
    }
    size_t hlen = head[8] | (size_t)head[9] << 8;
    char *dict = calloc(1, hlen + 1);
    if (!dict || fread(dict, 1, hlen, f) != hlen) FAIL("cannot read %s's header", path);
    static const struct {
        const char *descr;
        tir_scalar elem;
    } types[] = {{"'<f4'", TIR_F32}, {"'<i4'", TIR_I32}, {"'<u2'", TIR_BF16}, {"'|i1'", TIR_I8}};
    for (size_t i = 0; dict && i < sizeof types / sizeof types[0]; i++)
        if (strstr(dict, types[i].descr)) a.elem = types[i].elem;
    free(dict);
    long at = ftell(f);
    fseek(f, 0, SEEK_END);
    a.bytes = (size_t)(ftell(f) - at);
    fseek(f, at, SEEK_SET);
    a.data = malloc(a.bytes ? a.bytes : 1);
    if (!a.elem || !a.data || fread(a.data, 1, a.bytes, f) != a.bytes) FAIL("cannot read %s's data", path);
    fclose(f);
    return a;
}

enum { MAX_ARGS = 64, MAX_ARRAYS = 256 };

typedef struct {
    const char *name;
    tilec_status (*create)(tilec_context *, tilec_aot_module **);
    tilec_aot_module *m;
    size_t runs;
} module_state;

static void expect_error(tilec_context *ctx, tilec_status st, const char *code, const char *what) {
    char text[2048];
    tilec_diag_render(ctx, text, sizeof text);
    if (!st || !strstr(text, code)) FAIL("%s: want %s, got status %d: %s", what, code, (int)st, text);
    tilec_diag_clear(ctx);
}

/* The refusals, on a module whose constants are bound, with the arguments
 * of a run that succeeds (restored after). */
static void refusals(tilec_context *ctx, module_state *s, size_t n, tilec_buffer *args, size_t n_dims, int64_t *dims) {
    tilec_aot_module *fresh = NULL; /* another module of the same object: nothing bound to it */
    if (s->create(ctx, &fresh)) FAIL("%s: a second module", s->name);
    expect_error(ctx, tilec_aot_module_run(ctx, NULL, fresh, n, args, n_dims, dims), "MOD-B12",
                 "a constant unbound");
    tilec_aot_module_destroy(fresh);
    tilec_status st = tilec_aot_module_run(ctx, NULL, s->m, n - 1, args, n_dims, dims);
    expect_error(ctx, st, "RT-D02", "one argument short");
    int64_t saved = dims[n_dims - 1];
    dims[n_dims - 1] = 1 << 20;
    expect_error(ctx, tilec_aot_module_run(ctx, NULL, s->m, n, args, n_dims, dims), "RT-D10", "a size out of range");
    dims[n_dims - 1] = saved;
    size_t bytes = args[n - 1].size_bytes;
    args[n - 1].size_bytes = 4;
    st = tilec_aot_module_run(ctx, NULL, s->m, n, args, n_dims, dims);
    char text[2048];
    tilec_diag_render(ctx, text, sizeof text);
    if (!st || !strstr(text, "RT-D04") || !strstr(text, "MOD-R05") || !strstr(text, ", step "))
        FAIL("%s: a short cache: want RT-D04 and MOD-R05 naming the step, got %s", s->name, text);
    tilec_diag_clear(ctx);
    args[n - 1].size_bytes = bytes;
    float one = 1;
    tilec_buffer wrong = {&one, sizeof one, TIR_F32};
    expect_error(ctx, tilec_aot_module_bind(ctx, s->m, "no such weight", &wrong), "MOD-B04", "an unknown constant");
    int32_t eps = 0;
    tilec_buffer typed = {&eps, sizeof eps, TIR_I32};
    expect_error(ctx, tilec_aot_module_bind(ctx, s->m, "eps", &typed), "MOD-B05", "a constant of the wrong type");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: module_program DIR\n", stderr);
        return 2;
    }
    dir = argv[1];
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) return 1;
    module_state modules[2] = {{"prefill", prefill_m_create, NULL, 0}, {"decode", decode_m_create, NULL, 0}};
    for (int i = 0; i < 2; i++)
        if (modules[i].create(ctx, &modules[i].m)) {
            char text[2048];
            tilec_diag_render(ctx, text, sizeof text);
            FAIL("%s_m_create: %s", modules[i].name, text);
            return 1;
        }
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        FAIL("cannot read %s", path);
        return 1;
    }
    array arrays[MAX_ARRAYS];
    size_t n_arrays = 0;
    module_state *s = NULL;
    char line[1024];
    bool pending = false; /* line holds the next line already (read past a run's arguments) */
    while ((pending || fgets(line, sizeof line, f)) && n_arrays + 2 < MAX_ARRAYS) {
        pending = false;
        char word[64], a[256], b[256];
        if (sscanf(line, "module %63s", word) == 1) {
            s = !strcmp(word, "prefill") ? &modules[0] : &modules[1];
            if (strcmp(tilec_aot_module_name(s->m), word)) FAIL("module %s is named %s", word, tilec_aot_module_name(s->m));
        } else if (s && sscanf(line, "const %255s %255s", a, b) == 2) {
            arrays[n_arrays] = load(b);
            tilec_buffer buf = {arrays[n_arrays].data, arrays[n_arrays].bytes, arrays[n_arrays].elem};
            n_arrays++;
            if (tilec_aot_module_bind(ctx, s->m, a, &buf)) {
                char text[2048];
                tilec_diag_render(ctx, text, sizeof text);
                FAIL("binding %s: %s", a, text);
                tilec_diag_clear(ctx);
            }
        } else if (s && !strncmp(line, "run", 3)) {
            int64_t dims[8];
            size_t n_dims = 0;
            for (char *t = strtok(line + 3, " \n"); t && n_dims < 8; t = strtok(NULL, " \n")) dims[n_dims++] = atoll(t);
            tilec_buffer args[MAX_ARGS];
            array expect[MAX_ARGS];
            size_t n = 0;
            while (n < MAX_ARGS && (pending = fgets(line, sizeof line, f) != NULL) &&
                   sscanf(line, "arg %255s %255s", a, b) == 2) {
                pending = false;
                array in = load(a);
                args[n] = (tilec_buffer){in.data, in.bytes, in.elem};
                expect[n++] = strcmp(b, "-") ? load(b) : (array){0};
                if (n_arrays + 2 < MAX_ARRAYS) arrays[n_arrays++] = in;
            }
            if (!s->runs++) refusals(ctx, s, n, args, n_dims, dims);
            if (tilec_aot_module_run(ctx, NULL, s->m, n, args, n_dims, dims)) {
                char text[2048];
                tilec_diag_render(ctx, text, sizeof text);
                FAIL("%s run %zu: %s", s->name, s->runs, text);
                tilec_diag_clear(ctx);
            }
            for (size_t i = 0; i < n; i++) {
                if (!expect[i].data) continue;
                if (expect[i].bytes != args[i].size_bytes || memcmp(expect[i].data, args[i].data, expect[i].bytes))
                    FAIL("%s run %zu: argument %zu differs from the JIT module's", s->name, s->runs, i);
                free(expect[i].data);
            }
        }
    }
    fclose(f);
    for (int i = 0; i < 2; i++) {
        if (!modules[i].runs) FAIL("%s: no run in the manifest", modules[i].name);
        else if (!failures) printf("%s ok\n", modules[i].name);
        tilec_aot_module_destroy(modules[i].m);
    }
    for (size_t i = 0; i < n_arrays; i++) free(arrays[i].data);
    tilec_context_destroy(ctx);
    return failures != 0;
}
