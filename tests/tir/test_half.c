/* f16 and bf16 (docs/tir.md "Half-precision types"):
 * - base/half.h against hand-checked bit patterns — ties to even both
 *   ways, the largest finite values and the first overflow, subnormals and
 *   the smallest one, underflow to ±0, ±inf, NaN keeping its sign and
 *   quietness — and against the RNE of every 2^16th f32 bit pattern (bf16:
 *   the upper half rounded; f16: the round trip through double is exact);
 * - the reference interpreter: cast f32/f64/i32 → f16/bf16 → store, load →
 *   cast → f32, bit for bit what half.h says;
 * - arithmetic on them is refused with the hint (TIR-B15 through the
 *   parser).  Natively: tests/tilec/test_half_native.c. */
#include "base/half.h"
#include "diag_util.h"
#include "harness.h"
#include "tilec/tilec.h"

#include <math.h>
#include <string.h>

static tilec_context *ctx;

static void test_bits(void) {
    static const struct {
        double x;
        uint16_t f16, bf16;
    } cases[] = {
        {0.0, 0x0000, 0x0000},
        {-0.0, 0x8000, 0x8000},
        {1.0, 0x3c00, 0x3f80},
        {-2.5, 0xc100, 0xc020},
        {1.0 + 0x1p-11, 0x3c00, 0x3f80},               /* f16 tie: to even (1.0) */
        {1.0 + 3 * 0x1p-11, 0x3c02, 0x3f80},           /* f16 tie: to even (up) */
        {1.0 + 0x1p-11 + 0x1p-40, 0x3c01, 0x3f80},     /* just above the tie: up (no double rounding) */
        {1.0 + 0x1p-8, 0x3c04, 0x3f80},                /* bf16 tie: to even (1.0) */
        {1.0 + 3 * 0x1p-8, 0x3c0c, 0x3f82},            /* bf16 tie: to even (up) */
        {65504.0, 0x7bff, 0x4780},                     /* f16 max */
        {65519.99, 0x7bff, 0x4780},                    /* below the f16 overflow threshold */
        {65520.0, 0x7c00, 0x4780},                     /* f16 overflow (the tie rounds up to inf) */
        {0x1p-24, 0x0001, 0x3380},                     /* smallest f16 subnormal */
        {0x1p-25, 0x0000, 0x3300},                     /* half of it: tie to even, 0 */
        {0x1.8p-25, 0x0001, 0x3340},                   /* above the half: up */
        {0x1p-14 - 0x1p-24, 0x03ff, 0x3880},           /* largest f16 subnormal */
        {0x1p-133, 0x0000, 0x0001},                    /* smallest bf16 subnormal */
        {3.4e38, 0x7c00, 0x7f80},                      /* bf16: rounds to inf (above max 3.3895e38) */
        {INFINITY, 0x7c00, 0x7f80},
        {-INFINITY, 0xfc00, 0xff80},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_MSG(half_from_double(cases[i].x) == cases[i].f16, "f16(%a) = %04x, want %04x", cases[i].x,
                  half_from_double(cases[i].x), cases[i].f16);
        CHECK_MSG(bf16_from_double(cases[i].x) == cases[i].bf16, "bf16(%a) = %04x, want %04x", cases[i].x,
                  bf16_from_double(cases[i].x), cases[i].bf16);
    }
    /* NaN: quiet, sign and top payload bits kept */
    CHECK((half_from_double(NAN) & 0x7e00) == 0x7e00 && (half_from_double(-NAN) & 0x8000));
    CHECK((bf16_from_double(NAN) & 0x7fc0) == 0x7fc0 && isnan(bf16_to_double(bf16_from_double(NAN))));
    CHECK(isnan(half_to_double(0x7c01)) && signbit(half_to_double(0xfe00)) && half_to_double(0x7c00) == INFINITY);
    /* exact widening, and narrowing what widened is the identity */
    for (uint32_t h = 0; h < 0x10000; h++) {
        double a = half_to_double((uint16_t)h), b = bf16_to_double((uint16_t)h);
        if (!isnan(a)) CHECK_MSG(half_from_double(a) == h, "f16 %04x does not round-trip", h);
        if (!isnan(b)) CHECK_MSG(bf16_from_double(b) == h, "bf16 %04x does not round-trip", h);
    }
    /* bf16 is the f32's upper half rounded to nearest even */
    for (uint64_t u = 0; u < (1ull << 32); u += 65537) {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f)) continue;
        uint16_t want = (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
        CHECK_MSG(bf16_from_double(f) == want, "bf16(%a) = %04x, want %04x", (double)f, bf16_from_double(f), want);
    }
}

static const char *text =
    "kernel @h<N=8>(%X: const view<f32>[X.0=N], %D: const view<f64>[D.0=N], %I: const view<i32>[I.0=N],\n"
    "               %H: view<f16>[H.0=N, H.1=3], %B: view<bf16>[B.0=N, B.1=3], %Y: view<f32>[Y.0=N, Y.1=2]) {\n"
    "  parallel (%i: i=N) {\n"
    "    %c0 = const index 0\n"
    "    %c1 = const index 1\n"
    "    %c2 = const index 2\n"
    "    %x = load %X[%i]\n"
    "    %d = load %D[%i]\n"
    "    %n = load %I[%i]\n"
    "    %hx = cast %x to f16\n"
    "    %hd = cast %d to f16\n"
    "    %hn = cast %n to f16\n"
    "    %bx = cast %x to bf16\n"
    "    %bd = cast %d to bf16\n"
    "    %bn = cast %n to bf16\n"
    "    store %H[%i, %c0], %hx\n"
    "    store %H[%i, %c1], %hd\n"
    "    store %H[%i, %c2], %hn\n"
    "    store %B[%i, %c0], %bx\n"
    "    store %B[%i, %c1], %bd\n"
    "    store %B[%i, %c2], %bn\n"
    "    %h = load %H[%i, %c1]\n"
    "    %b = load %B[%i, %c1]\n"
    "    %hf = cast %h to f32\n"
    "    %bf = cast %b to f32\n"
    "    store %Y[%i, %c0], %hf\n"
    "    store %Y[%i, %c1], %bf\n"
    "  }\n"
    "}\n";

static void test_interpreter(void) {
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, text, strlen(text), "h.tir", NULL, 0, &m) == TILEC_OK && tir_verify(ctx, m) == TILEC_OK);
    if (!m) return;
    float x[8] = {1.0f, -2.5f, 65504.0f, 70000.0f, 1e-8f, NAN, 1.0f + 0x1p-11f, -0.0f};
    double d[8] = {1.0 + 0x1p-11 + 0x1p-40, 3.4e38, 0x1p-24, -0.0, 65519.99, 1.0 + 3 * 0x1p-8, INFINITY, 1e-300};
    int32_t n[8] = {0, 1, -7, 2049, 65504, 65536, 16777217, -100000};
    uint16_t h[24], b[24];
    float y[16];
    tir_buffer args[6] = {{x, sizeof x}, {d, sizeof d}, {n, sizeof n}, {h, sizeof h}, {b, sizeof b}, {y, sizeof y}};
    CHECK(tir_interpret(ctx, tir_module_func(m, 0), 6, args) == TILEC_OK);
    for (int i = 0; i < 8; i++) {
        double src[3] = {x[i], d[i], (double)n[i]};
        for (int k = 0; k < 3; k++) {
            uint16_t wh = half_from_double(src[k]), wb = bf16_from_double(src[k]);
            CHECK_MSG(h[3 * i + k] == wh || (isnan(src[k]) && (h[3 * i + k] & 0x7e00) == 0x7e00),
                      "f16 of %a: %04x, want %04x", src[k], h[3 * i + k], wh);
            CHECK_MSG(b[3 * i + k] == wb || (isnan(src[k]) && (b[3 * i + k] & 0x7fc0) == 0x7fc0),
                      "bf16 of %a: %04x, want %04x", src[k], b[3 * i + k], wb);
        }
        CHECK((double)y[2 * i] == half_to_double(h[3 * i + 1]) && (double)y[2 * i + 1] == bf16_to_double(b[3 * i + 1]));
    }
    tir_module_destroy(m);
}

static void test_refusal(void) {
    const char *bad = "kernel @b<N=4>(%H: view<f16>[H.0=N]) {\n  parallel (%i: i=N) {\n    %h = load %H[%i]\n"
                      "    %s = add %h, %h\n    store %H[%i], %s\n  }\n}\n";
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, bad, strlen(bad), "b.tir", NULL, 0, &m) != TILEC_OK);
    CHECK(has_diag_in(ctx, "TIR-B15", "cast to f32 to compute"));
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_bits();
    test_interpreter();
    test_refusal();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
