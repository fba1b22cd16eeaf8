/* Modules (include/tilec/module.h, docs/modules.md): two kernels over a
 * runtime size T run as one module — an input, a constant, a temporary in
 * the module's arena and an output — give y = x·w + x exactly at several T
 * and at 1 and 2 workers; each build error is diagnosed with the step
 * named (a missing argument, an element type, a write to an input, a size
 * outside a kernel's range, a temporary read before it is written or
 * read further than it was written, an unbound constant), as are the run's
 * errors (unfinished, argument count, sizes, a failing step), and the
 * module stays usable after a failed run; timing adds up each step's time;
 * constants packed once give the results of packing at each run; compiled
 * ahead of time, a module gives an object and a header declaring its
 * create function (an unfinished module is MOD-A01, a symbol of the C
 * library's TILEC-AOT01, nothing written; tests/cli/aot_module.sh runs
 * such objects). */
#include "examples_util.h"
#include "harness.h"
#include "write_sink.h"
#include "tilec/module.h"

#include <string.h>

enum { TMAX = 64, N = 8 };

/* Y = A op B over T rows of `n` values. */
static tilec_kernel *elementwise(tilec_context *ctx, tilec_runtime *rt, const char *op, int n) {
    char text[1024];
    snprintf(text, sizeof text,
             "kernel @%s%d<T: 1..%d, N=%d>(%%A: const view<f32>[A.0=T, A.1=N],\n"
             "    %%B: const view<f32>[B.0=T, B.1=N], %%Y: view<f32>[Y.0=T, Y.1=N]) {\n"
             "  parallel (%%t: t=T) {\n"
             "    %%c0 = const index 0\n"
             "    %%a = load %%A[%%t, %%c0] tile [m=1, n=N]\n"
             "    %%b = load %%B[%%t, %%c0] tile [m=1, n=N]\n"
             "    %%y = %s %%a, %%b\n"
             "    store %%Y[%%t, %%c0] tile [m=1, n=N], %%y\n"
             "  }\n"
             "}\n",
             op, n, TMAX, n, op);
    tir_module *m = parse_verified(ctx, text, NULL, 0);
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt;
    if (m) CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK);
    tir_module_destroy(m);
    return k;
}

static bool first_diag(tilec_context *ctx, tilec_status got, tilec_status want, const char *code,
                       const char *mentions) {
    bool ok = got == want && tilec_diag_count(ctx) && !strcmp(tilec_diag_at(ctx, 0)->code, code) &&
              strstr(tilec_diag_at(ctx, 0)->message, mentions);
    if (!ok) tilec_diag_print(ctx, stderr);
    tilec_diag_clear(ctx);
    return ok;
}

typedef struct {
    tilec_module *m;
    uint32_t T, x, w, t, y;
} fixture;

static fixture start(tilec_context *ctx) {
    fixture f = {0};
    CHECK(tilec_module_create(ctx, "axpx", &f.m) == TILEC_OK);
    CHECK(tilec_module_add_dim(ctx, f.m, "T", 1, TMAX, &f.T) == TILEC_OK);
    CHECK(tilec_module_add_value(ctx, f.m, "x", TILEC_VALUE_INPUT, TIR_F32, &f.x) == TILEC_OK);
    CHECK(tilec_module_add_value(ctx, f.m, "w", TILEC_VALUE_CONSTANT, TIR_F32, &f.w) == TILEC_OK);
    CHECK(tilec_module_add_value(ctx, f.m, "t", TILEC_VALUE_TEMPORARY, TIR_F32, &f.t) == TILEC_OK);
    CHECK(tilec_module_add_value(ctx, f.m, "y", TILEC_VALUE_OUTPUT, TIR_F32, &f.y) == TILEC_OK);
    return f;
}

static void check_runs(tilec_context *ctx, tilec_runtime *rt) {
    tilec_kernel *mul = elementwise(ctx, rt, "mul", N), *add = elementwise(ctx, rt, "add", N);
    if (!mul || !add) goto done;
    static float w[TMAX * N], x[TMAX * N], y[TMAX * N];
    for (int i = 0; i < TMAX * N; i++) w[i] = (float)(i % 7) - 3, x[i] = (float)(i % 5) + 1;
    fixture f = start(ctx);
    tilec_buffer wb = {w, sizeof w, TIR_F32};
    CHECK(tilec_module_bind(ctx, f.m, f.w, &wb) == TILEC_OK);
    tilec_step_size T = {f.T, 0};
    CHECK(tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.t}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, add, 3, (uint32_t[]){f.t, f.x, f.y}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_run(ctx, f.m, 2, (tilec_buffer[]){{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}}, 1,
                           (int64_t[]){3}) == TILEC_E_ARG && !strcmp(tilec_diag_at(ctx, 0)->code, "MOD-R01"));
    tilec_diag_clear(ctx);
    CHECK(tilec_module_finish(ctx, f.m) == TILEC_OK);
    CHECK(tilec_module_arena_bytes(f.m) == TMAX * N * 4);
    CHECK(tilec_module_step_count(f.m) == 2 && tilec_module_arg_count(f.m) == 2);
    tilec_value_kind kind;
    tir_scalar elem;
    CHECK(!strcmp(tilec_module_arg(f.m, 1, &kind, &elem), "y") && kind == TILEC_VALUE_OUTPUT && elem == TIR_F32);
    CHECK(!strcmp(tilec_value_kind_name(kind), "output") && !strcmp(tilec_value_kind_name((tilec_value_kind)9), "?"));
    CHECK(tilec_module_arg_bytes(f.m, 0, (int64_t[]){5}) == 5 * N * 4);
    for (int64_t rows = 1; rows <= TMAX; rows += 21) {
        memset(y, 0, sizeof y);
        tilec_buffer args[2] = {{x, (size_t)rows * N * 4, TIR_F32}, {y, (size_t)rows * N * 4, TIR_F32}};
        CHECK(tilec_module_run(ctx, f.m, 2, args, 1, &rows) == TILEC_OK);
        bool exact = true;
        for (int i = 0; i < rows * N; i++) exact &= y[i] == x[i] * w[i] + x[i];
        CHECK_MSG(exact, "y = x*w + x at T=%lld", (long long)rows);
    }
    /* timing: each step's total grows with the runs, and restarts at 0 */
    tilec_module_time(f.m, true);
    double ms[2] = {-1, -1};
    CHECK(!strcmp(tilec_module_step(f.m, 0, &ms[0]), "mul8") && ms[0] == 0);
    int64_t four = 4;
    for (int r = 0; r < 3; r++)
        CHECK(tilec_module_run(ctx, f.m, 2, (tilec_buffer[]){{x, sizeof x, TIR_F32}, {y, sizeof y, TIR_F32}}, 1,
                               &four) == TILEC_OK);
    CHECK(!strcmp(tilec_module_step(f.m, 1, &ms[1]), "add8") && ms[1] > 0 && tilec_module_step(f.m, 2, NULL) == NULL);
    tilec_module_time(f.m, false);
    CHECK(tilec_module_step(f.m, 1, &ms[1]) && ms[1] == 0);
    /* run errors; the module stays usable */
    tilec_buffer args[2] = {{x, 4 * N * 4, TIR_F32}, {y, 3 * N * 4, TIR_F32}};
    CHECK(first_diag(ctx, tilec_module_run(ctx, f.m, 1, args, 1, (int64_t[]){4}), TILEC_E_ARG, "RT-D02", "axpx"));
    CHECK(first_diag(ctx, tilec_module_run(ctx, f.m, 2, args, 1, (int64_t[]){TMAX + 1}), TILEC_E_ARG, "RT-D10", "T"));
    CHECK(tilec_module_run(ctx, f.m, 2, args, 1, (int64_t[]){4}) == TILEC_E_RUNTIME);
    CHECK(tilec_diag_count(ctx) >= 2 && !strcmp(tilec_diag_at(ctx, tilec_diag_count(ctx) - 1)->code, "MOD-R05"));
    CHECK_STR_CONTAINS(tilec_diag_at(ctx, tilec_diag_count(ctx) - 1)->message, "step 2 (add8)");
    tilec_diag_clear(ctx);
    args[1].size_bytes = 4 * N * 4;
    CHECK(tilec_module_run(ctx, f.m, 2, args, 1, (int64_t[]){4}) == TILEC_OK && y[31] == x[31] * w[31] + x[31]);
    CHECK(first_diag(ctx, tilec_module_add_value(ctx, f.m, "z", TILEC_VALUE_TEMPORARY, TIR_F32, NULL), TILEC_E_ARG,
                     "MOD-B01", "finished"));
    tilec_module_destroy(f.m);
done:
    tilec_kernel_destroy(mul);
    tilec_kernel_destroy(add);
}

/* Each build error, with the step named. */
static void check_errors(tilec_context *ctx) {
    tilec_kernel *mul = elementwise(ctx, NULL, "mul", N), *add = elementwise(ctx, NULL, "add", N),
                 *narrow = elementwise(ctx, NULL, "mul", N / 2);
    if (!mul || !add || !narrow) goto done;
    static float w[TMAX * N];
    tilec_buffer wb = {w, sizeof w, TIR_F32};
    tilec_step_size T = {0, 0};
    fixture f = start(ctx);
    CHECK(first_diag(ctx, tilec_module_add_dim(ctx, f.m, "x", 1, 2, NULL), TILEC_E_ARG, "MOD-B02", "'x'"));
    CHECK(first_diag(ctx, tilec_module_add_dim(ctx, f.m, "U", 0, 2, NULL), TILEC_E_ARG, "MOD-B03", "0..2"));
    /* a missing argument */
    CHECK(first_diag(ctx, tilec_module_add_step(ctx, f.m, mul, 2, (uint32_t[]){f.x, f.w}, 1, &T), TILEC_E_ARG,
                     "MOD-B08", "step 1 (mul8): the kernel takes 3 arguments, 2 given"));
    /* a write to an input */
    CHECK(first_diag(ctx, tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.x}, 1, &T), TILEC_E_ARG,
                     "MOD-B06", "step 1 (mul8): the kernel writes argument 2 (%Y), and value x is an input"));
    uint32_t ints;
    CHECK(tilec_module_add_value(ctx, f.m, "ints", TILEC_VALUE_TEMPORARY, TIR_I32, &ints) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, ints}, 1, &T), TILEC_E_TYPE,
                     "MOD-B05", "argument 2 (%Y) takes f32, value ints is i32"));
    CHECK(first_diag(ctx, tilec_module_bind(ctx, f.m, f.w, &(tilec_buffer){w, sizeof w, TIR_I32}), TILEC_E_TYPE,
                     "MOD-B05", "constant w is f32"));
    /* read before written: the list's order is the run's */
    CHECK(tilec_module_add_step(ctx, f.m, add, 3, (uint32_t[]){f.t, f.x, f.y}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.t}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_bind(ctx, f.m, f.w, &wb) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_finish(ctx, f.m), TILEC_E_ARG, "MOD-B10",
                     "step 1 (add8): argument 0 (%A) reads temporary t before any step writes it"));
    tilec_module_destroy(f.m);

    /* read further than written: a step writes 4 values a row, the next reads 8 */
    f = start(ctx);
    CHECK(tilec_module_bind(ctx, f.m, f.w, &wb) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, narrow, 3, (uint32_t[]){f.x, f.w, f.t}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, add, 3, (uint32_t[]){f.t, f.x, f.y}, 1, &T) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_finish(ctx, f.m), TILEC_E_SHAPE, "MOD-B11",
                     "step 2 (add8): argument 0 (%A) reads 32 bytes of temporary t at the module's smallest sizes, "
                     "step 1 (mul4) writes 16"));
    tilec_module_destroy(f.m);

    /* a size outside the kernel's range, an unbound constant */
    f = start(ctx);
    CHECK(tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.y}, 1,
                                &(tilec_step_size){f.T, 1}) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_finish(ctx, f.m), TILEC_E_SHAPE, "MOD-B09",
                     "step 1 (mul8): its size T spans 2..65 over the module's sizes, outside the kernel's range 1..64"));
    tilec_module_destroy(f.m);
    f = start(ctx);
    CHECK(tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.y}, 1, &T) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_finish(ctx, f.m), TILEC_E_ARG, "MOD-B12", "constant w has no data"));
    CHECK(tilec_module_bind(ctx, f.m, f.w, &(tilec_buffer){w, 16, TIR_F32}) == TILEC_OK);
    CHECK(first_diag(ctx, tilec_module_finish(ctx, f.m), TILEC_E_SHAPE, "MOD-B12",
                     "constant w holds 16 bytes, its steps read 2048"));
    tilec_module_destroy(f.m);
done:
    tilec_kernel_destroy(mul);
    tilec_kernel_destroy(add);
    tilec_kernel_destroy(narrow);
}

/* Constants packed once: a prompt GEMM (models/llama/linear.tir, its
 * weights packed into panels before each dispatch) over a runtime T of
 * several buckets, its weights a module constant: with packing at finish
 * the panels are made once per bucket variant, and the results are those
 * of the module that packs at each run, and exact. */
static void check_packed(tilec_context *ctx, tilec_runtime *rt) {
    enum { ROWS = 300, OUT = 32, IN = 64 };
    tir_define d[] = {{"N", OUT}, {"K", IN}};
    size_t length;
    char *text = read_file(TILEC_SOURCE_DIR "/models/llama/linear.tir", &length);
    tir_module *tm = text ? parse_verified(ctx, text, d, 2) : NULL;
    free(text);
    tilec_kernel *k = NULL;
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt;
    o.pack = TILEC_PACK_ON;
    if (tm) CHECK(tilec_compile(ctx, tir_module_func(tm, 0), &o, &k) == TILEC_OK);
    tir_module_destroy(tm);
    if (!k) return;
    static float x[ROWS * IN], w[OUT * IN], y[2][ROWS * OUT];
    for (int i = 0; i < ROWS * IN; i++) x[i] = (float)(i % 7) - 3;
    for (int i = 0; i < OUT * IN; i++) w[i] = (float)(i % 5) - 2;
    tilec_module *m[2];
    for (int packed = 0; packed < 2; packed++) {
        uint32_t T, xv, wv, yv;
        CHECK(tilec_module_create(ctx, packed ? "packed" : "unpacked", &m[packed]) == TILEC_OK);
        CHECK(tilec_module_add_dim(ctx, m[packed], "T", 1, ROWS, &T) == TILEC_OK);
        CHECK(tilec_module_add_value(ctx, m[packed], "x", TILEC_VALUE_INPUT, TIR_F32, &xv) == TILEC_OK);
        CHECK(tilec_module_add_value(ctx, m[packed], "w", TILEC_VALUE_CONSTANT, TIR_F32, &wv) == TILEC_OK);
        CHECK(tilec_module_add_value(ctx, m[packed], "y", TILEC_VALUE_OUTPUT, TIR_F32, &yv) == TILEC_OK);
        CHECK(tilec_module_bind(ctx, m[packed], wv, &(tilec_buffer){w, sizeof w, TIR_F32}) == TILEC_OK);
        CHECK(tilec_module_add_step(ctx, m[packed], k, 3, (uint32_t[]){xv, wv, yv}, 1, &(tilec_step_size){T, 0}) ==
              TILEC_OK);
        CHECK(tilec_module_pack_constants(ctx, m[packed], packed) == TILEC_OK);
        CHECK(tilec_module_finish(ctx, m[packed]) == TILEC_OK);
    }
    /* every variant packs W (one panel copy each), the unpacked module none */
    CHECK(tilec_module_packed_bytes(m[1]) >= OUT * IN * 4 && tilec_module_packed_bytes(m[0]) == 0);
    for (int64_t rows = 1; rows <= ROWS; rows += 149) {
        for (int packed = 0; packed < 2; packed++) {
            memset(y[packed], 0, sizeof y[packed]);
            tilec_buffer args[2] = {{x, (size_t)rows * IN * 4, TIR_F32}, {y[packed], (size_t)rows * OUT * 4, TIR_F32}};
            CHECK(tilec_module_run(ctx, m[packed], 2, args, 1, &rows) == TILEC_OK);
        }
        bool exact = true;
        for (int t = 0; t < rows; t++)
            for (int n = 0; n < OUT; n++) {
                float want = 0;
                for (int i = 0; i < IN; i++) want += x[t * IN + i] * w[n * IN + i];
                exact &= y[1][t * OUT + n] == want && y[0][t * OUT + n] == want;
            }
        CHECK_MSG(exact, "packed once and at each run agree, exactly, at T=%lld", (long long)rows);
    }
    tilec_module_destroy(m[0]);
    tilec_module_destroy(m[1]);
    tilec_kernel_destroy(k);
}

static void check_aot(tilec_context *ctx) {
    tilec_kernel *mul = elementwise(ctx, NULL, "mul", N), *add = elementwise(ctx, NULL, "add", N);
    if (!mul || !add) goto done;
    static float w[TMAX * N];
    fixture f = start(ctx);
    tilec_step_size T = {f.T, 0};
    CHECK(tilec_module_bind(ctx, f.m, f.w, &(tilec_buffer){w, sizeof w, TIR_F32}) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, mul, 3, (uint32_t[]){f.x, f.w, f.t}, 1, &T) == TILEC_OK);
    CHECK(tilec_module_add_step(ctx, f.m, add, 3, (uint32_t[]){f.t, f.x, f.y}, 1, &T) == TILEC_OK);
    write_sink object = {0}, header = {0};
    CHECK(first_diag(ctx, tilec_module_compile_aot(ctx, f.m, NULL, write_sink_append, &object, write_sink_append, &header), TILEC_E_ARG,
                     "MOD-A01", "not finished"));
    CHECK(tilec_module_finish(ctx, f.m) == TILEC_OK);
    tilec_aot_options named = {.symbol = "free"};
    CHECK(first_diag(ctx, tilec_module_compile_aot(ctx, f.m, &named, write_sink_append, &object, write_sink_append, &header), TILEC_E_ARG,
                     "TILEC-AOT01", "a library already"));
    CHECK(object.calls == 0 && header.calls == 0);
    CHECK(tilec_module_compile_aot(ctx, f.m, NULL, write_sink_append, &object, write_sink_append, &header) == TILEC_OK);
    CHECK(object.calls == 1 && object.len > 64 && !memcmp(object.data, "\x7f" "ELF", 4));
    CHECK(header.calls == 1);
    if (header.data) {
        CHECK_STR_CONTAINS(header.data, "tilec_status axpx_create(tilec_context *ctx, tilec_aot_module **out);");
        CHECK_STR_CONTAINS(header.data, "T in 1..64");
        CHECK_STR_CONTAINS(header.data, "constant  w f32 (float), 2048 bytes");
        CHECK_STR_CONTAINS(header.data, "Steps: mul8, add8.");
    }
    free(object.data);
    free(header.data);
    tilec_module_destroy(f.m);
done:
    tilec_kernel_destroy(mul);
    tilec_kernel_destroy(add);
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    for (uint32_t workers = 1; workers <= 2; workers++) {
        tilec_runtime *rt = NULL;
        CHECK(tilec_runtime_create(ctx, workers, &rt) == TILEC_OK);
        check_runs(ctx, rt);
        check_packed(ctx, rt);
        tilec_runtime_destroy(rt);
    }
    check_errors(ctx);
    check_aot(ctx);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
