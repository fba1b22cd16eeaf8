/* The math library (docs/tir.md "Math functions") natively, in ulps: every
 * float function of one or two operands as `Y = f(X[, Z])` over a sweep of
 * its domain and over its range edges (math_edges.h: ±0, ±inf, NaN,
 * subnormals, the largest finite values, every overflow, underflow and
 * saturation threshold), at W ∈ {1, 2, 4, 8, 16} on 1 and 2 workers and
 * on uniform values (a serial loop: the scalar SLEEF entries), f32 and
 * f64.  A sweep result is compared with libm's long double result
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

static char text[640];

/* Y = f(X[, Z]) elementwise: one element per lane (`parallel`), or, when
 * `uniform`, in a serial loop of one instance, whose values are uniform
 * (the backend's scalar SLEEF entries). */
static const char *kernel_text(const fn *f, bool f32, bool uniform) {
    const char *t = f32 ? "f32" : "f64";
    char z_param[64] = "", z_load[32] = "", call[48];
    if (f->arity == 2) {
        snprintf(z_param, sizeof z_param, "%%Z: const view<%s>[Z.0=N], ", t);
        snprintf(z_load, sizeof z_load, "%%z = load %%Z[%%i]\n");
        snprintf(call, sizeof call, "%%y = %s %%x, %%z", f->name);
    } else {
        snprintf(call, sizeof call, "%%y = %s %%x", f->name);
    }
    snprintf(text, sizeof text,
             "kernel @m<N=1>(%%X: const view<%s>[X.0=N], %s%%Y: view<%s>[Y.0=N]) {\n%s"
             "  %s (%%i: i=N) {\n    %%x = load %%X[%%i]\n    %s    %s\n    store %%Y[%%i], %%y\n  }\n%s}\n",
             t, z_param, t, uniform ? "parallel (%j: j=1) {\n" : "", uniform ? "serial" : "parallel", z_load, call,
             uniform ? "}\n" : "");
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

/* One function's inputs, expected results and buffers in its type. */
typedef struct {
    const fn *f;
    bool f32;
    int n;
    double *x, *z, *want;
    char *bx, *bz, *by;
} cases;

/* Runs k natively at width w on rt; true when every result is within f's
 * bound.  `how` names the run in messages. */
static bool run_native(tilec_context *ctx, const tir_func *k, uint32_t w, tilec_runtime *rt, const cases *c,
                       const char *how, uint64_t *worst) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = rt;
    tilec_kernel *kn = NULL;
    CHECK(tilec_compile(ctx, k, &o, &kn) == TILEC_OK);
    if (!kn) return false;
    size_t bytes = (size_t)c->n * (c->f32 ? 4 : 8);
    tir_scalar t = c->f32 ? TIR_F32 : TIR_F64;
    memset(c->by, 0xee, bytes);
    tilec_buffer b[3] = {{c->bx, bytes, t}, {c->bz, bytes, t}, {c->by, bytes, t}};
    if (c->f->arity == 1) b[1] = b[2];
    CHECK(tilec_dispatch(ctx, kn, c->f->arity + 1, b) == TILEC_OK);
    tilec_kernel_destroy(kn);
    int off = count_off("native", c->f, c->f32, c->x, c->z, c->want, c->by, c->n, N, c->f->bound, worst);
    CHECK_MSG(!off, "%s %s %s W=%u: %d of %d off", c->f->name, c->f32 ? "f32" : "f64", how, w, off, c->n);
    return !off;
}

static void test_function(tilec_context *ctx, tilec_runtime *const *rt, const fn *f, bool f32) {
    const math_edge_group *e = edges(f, f32);
    CHECK_MSG(e, "%s %s: no edges in math_edges.h", f->name, f32 ? "f32" : "f64");
    if (!e) return;
    int n = N + (int)e->n;
    tir_define d = {"N", n};
    tir_module *m = parse_verified(ctx, kernel_text(f, f32, false), &d, 1);
    tir_module *mu = parse_verified(ctx, kernel_text(f, f32, true), &d, 1);
    if (!m || !mu) return;
    const tir_func *k = tir_module_func(m, 0);
    size_t es = f32 ? 4 : 8;
    cases c = {f, f32, n, malloc(sizeof(double) * n), malloc(sizeof(double) * n), malloc(sizeof(double) * n),
               malloc(es * n), malloc(es * n), malloc(es * n)};
    char *ref = malloc(es * n);
    for (int i = 0; i < n; i++) {
        const double *row = i >= N ? e->rows[i - N] : NULL;
        c.x[i] = row ? row[0] : rounded(sweep(f->lo, f->hi, i, N), f32);
        c.z[i] = row ? row[1] : f->arity == 1 ? 0 : rounded(sweep(f->zlo, f->zhi, (i * 7919) % N, N), f32);
        c.want[i] = row ? row[2] : rounded(f->ref(c.x[i], c.z[i]), f32);
        if (f32) ((float *)c.bx)[i] = (float)c.x[i], ((float *)c.bz)[i] = (float)c.z[i];
        else ((double *)c.bx)[i] = c.x[i], ((double *)c.bz)[i] = c.z[i];
    }
    /* the reference interpreter: glibc's double functions rounded to the type */
    tir_buffer args[3] = {{c.bx, es * n}, {c.bz, es * n}, {ref, es * n}};
    if (f->arity == 1) args[1] = args[2];
    CHECK(tir_interpret(ctx, k, f->arity + 1, args) == TILEC_OK);
    uint64_t unused = 0;
    int off = count_off("reference", f, f32, c.x, c.z, c.want, ref, n, N, !f->bound ? 0 : f32 ? 1 : 3, &unused);
    CHECK_MSG(!off, "%s %s: the reference interpreter is off at %d of %d", f->name, f32 ? "f32" : "f64", off, n);
    uint64_t worst = 0;
    for (uint32_t w = 1; w <= 16; w *= 2) {
        run_native(ctx, k, w, rt[0], &c, "1 worker", &worst);
        run_native(ctx, k, w, rt[1], &c, "2 workers", &worst);
    }
    run_native(ctx, tir_module_func(mu, 0), 16, rt[0], &c, "uniform", &worst);
    printf("%-8s %s: worst %llu ulps (bound %u)\n", f->name, f32 ? "f32" : "f64", (unsigned long long)worst, f->bound);
    free(c.x), free(c.z), free(c.want), free(c.bx), free(c.bz), free(c.by), free(ref);
    tir_module_destroy(m);
    tir_module_destroy(mu);
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
