/* The math library (docs/tir.md "Math functions") natively, in ulps: every
 * float function of one or two operands as `Y = f(X[, Z])` over a sweep of
 * its domain and over its range edges (math_edges.h: ±0, ±inf, NaN,
 * subnormals, the largest finite values, every overflow, underflow and
 * saturation threshold), at W ∈ {1, 2, 4, 8, 16} on 1 and 2 workers, f32
 * and f64.  A sweep result is compared with libm's long double result
 * rounded to the element type, an edge result with the correctly rounded
 * one (mpmath, tests/tilec/gen_math_edges.py): the distance in
 * representable values must be within the function's documented bound;
 * NaN where the reference is NaN, the same infinity, and at the edges the
 * same sign of zero (C's, which docs/tir.md promises).  The reference
 * interpreter's result must be within an ulp of it in f32 and 3 in f64
 * (glibc's double functions: cbrt is the worst), exact for the exact
 * functions. */
#include "examples_util.h"
#include "harness.h"
#include "math_edges.h"
#include "tilec/tilec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 3000 };

typedef struct {
    const char *name;
    int arity;
    double (*ref)(double, double);
    double lo, hi;    /* the sweep of X (log-spaced when lo > 0 and hi/lo > 1e3) */
    double zlo, zhi;  /* the sweep of Z (binary) */
    unsigned bound;   /* ulps (f32); f64 the same */
} fn;

/* References in long double (x87's 64-bit significand), so that rounding
 * them to f64 is (nearly always) the correctly rounded result. */
#define WRAP1(f) \
    static double r_##f(double a, double b) { \
        (void)b; \
        return (double)f##l(a); \
    }
#define WRAP2(f) \
    static double r_##f(double a, double b) { return (double)f##l(a, b); }
WRAP1(exp) WRAP1(log) WRAP1(tanh) WRAP1(sqrt) WRAP1(erf) WRAP1(sin) WRAP1(cos) WRAP1(tan) WRAP1(asin) WRAP1(acos)
WRAP1(atan) WRAP1(sinh) WRAP1(cosh) WRAP1(expm1) WRAP1(log1p) WRAP1(exp2) WRAP1(log2) WRAP1(log10) WRAP1(cbrt)
WRAP1(floor) WRAP1(ceil) WRAP1(round) WRAP1(trunc) WRAP2(pow) WRAP2(atan2)
static double r_sigmoid(double a, double b) {
    (void)b;
    return (double)(1.0L / (1.0L + expl(-(long double)a)));
}
static double r_rsqrt(double a, double b) {
    (void)b;
    return (double)(1.0L / sqrtl(a));
}

/* Documented in docs/tir.md "Math functions". */
static const fn fns[] = {
    {"exp", 1, r_exp, -100, 100, 0, 0, 1},         {"log", 1, r_log, 1e-30, 1e30, 0, 0, 1},
    {"tanh", 1, r_tanh, -20, 20, 0, 0, 1},         {"sqrt", 1, r_sqrt, 0, 1e6, 0, 0, 0},
    {"erf", 1, r_erf, -6, 6, 0, 0, 1},             {"sigmoid", 1, r_sigmoid, -100, 100, 0, 0, 2},
    {"rsqrt", 1, r_rsqrt, 1e-20, 1e20, 0, 0, 1},   {"sin", 1, r_sin, -1000, 1000, 0, 0, 1},
    {"cos", 1, r_cos, -1000, 1000, 0, 0, 1},       {"tan", 1, r_tan, -100, 100, 0, 0, 1},
    {"asin", 1, r_asin, -1, 1, 0, 0, 1},           {"acos", 1, r_acos, -1, 1, 0, 0, 1},
    {"atan", 1, r_atan, -1e6, 1e6, 0, 0, 1},       {"sinh", 1, r_sinh, -80, 80, 0, 0, 1},
    {"cosh", 1, r_cosh, -80, 80, 0, 0, 1},         {"expm1", 1, r_expm1, -20, 80, 0, 0, 1},
    {"log1p", 1, r_log1p, -0.999, 1e6, 0, 0, 1},   {"exp2", 1, r_exp2, -140, 120, 0, 0, 1},
    {"log2", 1, r_log2, 1e-30, 1e30, 0, 0, 1},     {"log10", 1, r_log10, 1e-30, 1e30, 0, 0, 1},
    {"cbrt", 1, r_cbrt, -1e9, 1e9, 0, 0, 1},       {"floor", 1, r_floor, -1e3, 1e3, 0, 0, 0},
    {"ceil", 1, r_ceil, -1e3, 1e3, 0, 0, 0},       {"round", 1, r_round, -1e3, 1e3, 0, 0, 0},
    {"trunc", 1, r_trunc, -1e3, 1e3, 0, 0, 0},     {"pow", 2, r_pow, 1e-3, 1e3, -8, 8, 1},
    {"atan2", 2, r_atan2, -1e3, 1e3, -1e3, 1e3, 1},
};

static double sweep(double lo, double hi, int i, int n) {
    double t = (double)i / (n - 1);
    if (lo > 0 && hi / lo > 1e3) return lo * pow(hi / lo, t);
    return lo + (hi - lo) * t;
}

/* The edge rows of f in one type (every function has them in both). */
static const math_edge_group *edges(const fn *f, bool f32) {
    for (size_t g = 0; g < sizeof math_edge_groups / sizeof math_edge_groups[0]; g++)
        if (!strcmp(math_edge_groups[g].name, f->name) && math_edge_groups[g].f32 == f32) return &math_edge_groups[g];
    return NULL;
}

/* The distance between two values of one type in representable steps. */
static int64_t ordered(double v, bool f32) {
    if (f32) {
        float f = (float)v;
        int32_t i;
        memcpy(&i, &f, 4);
        return i < 0 ? (int64_t)INT32_MIN - i : i;
    }
    int64_t i;
    memcpy(&i, &v, 8);
    return i < 0 ? INT64_MIN - i : i;
}

static double rounded(double v, bool f32) { return f32 ? (double)(float)v : v; }

/* Within `bound` representable steps of `want` (NaN for NaN, the same
 * infinity, and where `zero_sign`, a zero of the same sign for a zero). */
static bool close_ulps(double got, double want, bool f32, unsigned bound, bool zero_sign, uint64_t *worst) {
    if (isnan(want)) return isnan(got);
    if (isinf(want) || isnan(got) || isinf(got)) return got == want;
    if (zero_sign && want == 0 && (got != 0 || signbit(got) != signbit(want))) return false;
    int64_t a = ordered(got, f32), b = ordered(want, f32);
    uint64_t d = a > b ? (uint64_t)(a - b) : (uint64_t)(b - a);
    if (d > *worst) *worst = d;
    return d <= bound;
}

static char text[512];

static const char *kernel_text(const fn *f, bool f32) {
    const char *t = f32 ? "f32" : "f64";
    if (f->arity == 1)
        snprintf(text, sizeof text,
                 "kernel @m<N=1>(%%X: const view<%s>[X.0=N], %%Y: view<%s>[Y.0=N]) {\n"
                 "  parallel (%%i: i=N) {\n    %%x = load %%X[%%i]\n    %%y = %s %%x\n    store %%Y[%%i], %%y\n  }\n}\n",
                 t, t, f->name);
    else
        snprintf(text, sizeof text,
                 "kernel @m<N=1>(%%X: const view<%s>[X.0=N], %%Z: const view<%s>[Z.0=N], %%Y: view<%s>[Y.0=N]) {\n"
                 "  parallel (%%i: i=N) {\n    %%x = load %%X[%%i]\n    %%z = load %%Z[%%i]\n    %%y = %s %%x, %%z\n"
                 "    store %%Y[%%i], %%y\n  }\n}\n",
                 t, t, t, f->name);
    return text;
}

/* Prints and counts the rows of `got` off `want` beyond `bound` (edge rows,
 * from `first_edge` on, with the sign of zero); the first few are named. */
static int count_off(const char *who, const fn *f, bool f32, const double *x, const double *z, const double *want,
                     const char *got, int n, int first_edge, unsigned bound, uint64_t *worst) {
    int off = 0;
    for (int i = 0; i < n; i++) {
        double g = f32 ? ((const float *)got)[i] : ((const double *)got)[i];
        if (close_ulps(g, want[i], f32, bound, i >= first_edge, worst)) continue;
        if (off++ < 4)
            fprintf(stderr, "  %s %s %s: %s(%.9g%s%.9g) = %.17g, want %.17g (bound %u ulps)\n", who, f->name,
                    f32 ? "f32" : "f64", f->name, x[i], f->arity == 2 ? ", " : "", f->arity == 2 ? z[i] : 0.0, g,
                    want[i], bound);
    }
    return off;
}

static void test_function(tilec_context *ctx, tilec_runtime *const *rt, const fn *f, bool f32) {
    const math_edge_group *e = edges(f, f32);
    CHECK_MSG(e, "%s %s: no edges in math_edges.h", f->name, f32 ? "f32" : "f64");
    if (!e) return;
    int n = N + (int)e->n;
    tir_define d = {"N", n};
    tir_module *m = parse_verified(ctx, kernel_text(f, f32), &d, 1);
    if (!m) return;
    const tir_func *k = tir_module_func(m, 0);
    size_t es = f32 ? 4 : 8;
    double *x = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n), *want = malloc(sizeof(double) * n);
    char *bx = malloc(es * n), *bz = malloc(es * n), *by = malloc(es * n), *ref = malloc(es * n);
    for (int i = 0; i < n; i++) {
        const double *row = i >= N ? e->rows[i - N] : NULL;
        x[i] = row ? row[0] : rounded(sweep(f->lo, f->hi, i, N), f32);
        z[i] = row ? row[1] : f->arity == 1 ? 0 : rounded(sweep(f->zlo, f->zhi, (i * 7919) % N, N), f32);
        want[i] = row ? row[2] : rounded(f->ref(x[i], z[i]), f32);
        if (f32) ((float *)bx)[i] = (float)x[i], ((float *)bz)[i] = (float)z[i];
        else ((double *)bx)[i] = x[i], ((double *)bz)[i] = z[i];
    }
    /* the reference interpreter: glibc's double functions rounded to the type */
    tir_buffer args[3] = {{bx, es * n}, {bz, es * n}, {ref, es * n}};
    if (f->arity == 1) args[1] = args[2];
    CHECK(tir_interpret(ctx, k, f->arity + 1, args) == TILEC_OK);
    uint64_t unused = 0;
    int off = count_off("reference", f, f32, x, z, want, ref, n, N, !f->bound ? 0 : f32 ? 1 : 3, &unused);
    CHECK_MSG(!off, "%s %s: the reference interpreter is off at %d of %d", f->name, f32 ? "f32" : "f64", off, n);
    uint64_t worst = 0;
    for (uint32_t w = 1; w <= 16; w *= 2)
        for (int t = 0; t < 2; t++) {
            tilec_compile_options o = tilec_compile_options_default();
            o.width = w;
            o.runtime = rt[t];
            tilec_kernel *kn = NULL;
            CHECK(tilec_compile(ctx, k, &o, &kn) == TILEC_OK);
            if (!kn) continue;
            memset(by, 0xee, es * n);
            tilec_buffer b[3] = {{bx, es * n, f32 ? TIR_F32 : TIR_F64}, {bz, es * n, f32 ? TIR_F32 : TIR_F64},
                                 {by, es * n, f32 ? TIR_F32 : TIR_F64}};
            if (f->arity == 1) b[1] = b[2];
            CHECK(tilec_dispatch(ctx, kn, f->arity + 1, b) == TILEC_OK);
            off = count_off("native", f, f32, x, z, want, by, n, N, f->bound, &worst);
            CHECK_MSG(!off, "%s %s W=%u threads=%d: %d of %d off", f->name, f32 ? "f32" : "f64", w, t + 1, off, n);
            tilec_kernel_destroy(kn);
        }
    printf("%-8s %s: worst %llu ulps (bound %u)\n", f->name, f32 ? "f32" : "f64", (unsigned long long)worst, f->bound);
    free(x), free(z), free(want), free(bx), free(bz), free(by), free(ref);
    tir_module_destroy(m);
}

int main(void) {
    tilec_context *ctx;
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    tilec_runtime *rt[2] = {NULL, NULL};
    CHECK(tilec_runtime_create(ctx, 1, &rt[0]) == TILEC_OK && tilec_runtime_create(ctx, 2, &rt[1]) == TILEC_OK);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        for (int f32 = 1; f32 >= 0; f32--) test_function(ctx, rt, &fns[i], f32);
    tilec_runtime_destroy(rt[0]);
    tilec_runtime_destroy(rt[1]);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
