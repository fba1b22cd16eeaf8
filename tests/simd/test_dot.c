/* The dots (xir.h) at every packet width, natively and on the XIR
 * interpreter, bitwise against their one definition (xir_dot_*), with the
 * accumulator and the words varying over the lanes or uniform:
 * - dot_bf16x2: the order of the two steps, subnormal inputs read as zero
 *   (either half, the accumulator), a subnormal sum flushed after either
 *   step, ±0, infinities, NaN, overflow;
 * - dot_u8i8x4 and dot_i16x2: bytes and halves at their extremes (0x80,
 *   0xff, 0x7f, 0x8000, 0x7fff), sums that wrap.
 * Twice: under the pinned profile (vdpbf16ps, vpdpbusd and vpdpwssd where
 * this machine has AVX512-BF16 and AVX512-VNNI) and with "-avx512bf16" and
 * "-avx512vnni" (the fallbacks' masks, shifts and fmas or multiplies on any
 * machine). */
#include "simd_fixture.h"

#include "xir/eval.h"

enum { N = 512 };

/* acc, x, y per lane, then the result (per kernel variant). */
static float acc_in[N];
static int32_t iacc_in[N];
static uint32_t x_in[N], y_in[N], ix_in[N], iy_in[N];

static uint32_t f32_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint32_t pair(float hi, float lo) { return (f32_bits(hi) & 0xffff0000u) | f32_bits(lo) >> 16; }

/* Hand-made cases first (each found to tell the two step orders, or
 * flushing from not flushing, apart on hardware), then bf16 values drawn
 * from a table of specials and a random spread. */
static void fill(void) {
    static const float cases[][5] = {
        /* acc, x.hi, y.hi, x.lo, y.lo */
        {0x1p24f, 1.0f, 1.0f, -0x1p24f, 1.0f},             /* high step first: 0 (low first: 1) */
        {1.0f, 1e30f, 1e30f, -1e30f, 1e30f},               /* inf, not -inf */
        {0.0f, 0x1p-126f, 0x1p-2f, 0.0f, 0.0f},            /* a subnormal product: flushed */
        {0.0f, 0x1p-130f, 1.0f, 0.0f, 0.0f},               /* a subnormal half: read as 0 */
        {0x1p-130f, 0.0f, 0.0f, 0.0f, 0.0f},               /* a subnormal accumulator: read as 0 */
        {0x1p-124f, -0x1.cp-125f, 1.0f, 0x1p-126f, 1.0f},  /* the first sum subnormal: flushed */
        {-0.0f, 0.0f, 0.0f, 0.0f, 0.0f},                   /* -0 + 0·0 = +0 */
        {-0.0f, -0.0f, 0.0f, 0.0f, -0.0f},                 /* -0 + -0 + -0 = -0 */
        {1.0f, INFINITY, 0.0f, 1.0f, 1.0f},                /* inf·0: NaN */
        {1.0f, NAN, 1.0f, 1.0f, 1.0f},
        {-0x1p-126f, 0x1p-127f, 1.0f, 0.0f, 0.0f},         /* a subnormal half against a normal acc */
    };
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++) {
        acc_in[i] = cases[i][0];
        x_in[i] = pair(cases[i][1], cases[i][3]);
        y_in[i] = pair(cases[i][2], cases[i][4]);
    }
    static const uint16_t special[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x807f, 0x0080, 0x8080,
                                       0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x1f80, 0x2000, 0x5f80};
    uint32_t h = 12345;
    for (size_t i = n; i < N; i++) {
        uint16_t half[4];
        for (int k = 0; k < 4; k++) {
            h = h * 1103515245u + 12345u;
            uint32_t r = h >> 8;
            half[k] = r % 4 == 0 ? special[(r >> 2) % 16] : (uint16_t)(0x3c00 + (r >> 4) % 0x0600 + (r % 2 ? 0x8000 : 0));
        }
        h = h * 1103515245u + 12345u;
        uint32_t a = h >> 8;
        acc_in[i] = a % 5 == 0 ? (a % 3 == 0 ? 0x1p-128f : 0.0f) : (float)((int)(a % 2001) - 1000) / 64.0f;
        x_in[i] = (uint32_t)half[0] << 16 | half[1];
        y_in[i] = (uint32_t)half[2] << 16 | half[3];
    }
    static const uint32_t words[] = {0x80808080u, 0xffffffffu, 0x7f7f7f7fu, 0x80007fffu, 0x7fff8000u, 0, 1, 0x01ff80u};
    for (size_t i = 0; i < N; i++) {
        h = h * 1103515245u + 12345u;
        ix_in[i] = i < 64 ? words[i % 8] : h;
        h = h * 1103515245u + 12345u;
        iy_in[i] = i < 64 ? words[i / 8 % 8] : h;
        h = h * 1103515245u + 12345u;
        iacc_in[i] = i % 7 == 0 ? (i % 2 ? INT32_MAX : INT32_MIN) : (int32_t)h;
    }
}

/* A kernel computing one `op` per lane of accumulator type `acc`; `x_at`
 * and `acc_at` index X and A (the lane's id, or u64 0: a uniform word or
 * accumulator). */
static xir_module *kernel(const char *op, const char *acc, const char *x_at, const char *acc_at) {
    char text[1024];
    snprintf(text, sizeof text,
             "kernel @dot(%%A: buffer<%s>, %%X: buffer<u32>, %%Y: buffer<u32>, %%O: buffer<%s>) block_size=16 {\n"
             "^entry:\n"
             "  %%id = cast dispatch_id to u64\n"
             "  %%a = buffer_read %%A, %s : %s\n"
             "  %%x = buffer_read %%X, %s : u32\n"
             "  %%y = buffer_read %%Y, %%id : u32\n"
             "  %%r = %s %%a, %%x, %%y : %s\n"
             "  buffer_write %%O, %%id, %%r\n"
             "  ret\n"
             "}\n",
             acc, acc, acc_at, acc, x_at, op, acc);
    return parse_xir(text);
}

/* Whether got is the definition's value (NaN: any NaN). */
static bool same(float got, float want) {
    return isnan(want) ? isnan(got) : f32_bits(got) == f32_bits(want);
}

/* The definition of `op` on lane i's inputs, as the result's bits. */
static uint32_t defined(xir_arith_op op, size_t a, size_t x, size_t i) {
    if (op == XIR_OP_DOT_BF16X2) return f32_bits(xir_dot_bf16x2(acc_in[a], x_in[x], y_in[i]));
    int32_t r = op == XIR_OP_DOT_U8I8X4 ? xir_dot_u8i8x4(iacc_in[a], ix_in[x], iy_in[i])
                                        : xir_dot_i16x2(iacc_in[a], ix_in[x], iy_in[i]);
    return (uint32_t)r;
}

static void check_variant(const char *label, xir_arith_op op, bool uniform_x, bool uniform_acc) {
    bool bf16 = op == XIR_OP_DOT_BF16X2;
    xir_module *m = kernel(xir_arith_name(op), bf16 ? "f32" : "i32", uniform_x ? "u64 0" : "%id",
                           uniform_acc ? "u64 0" : "%id");
    if (!m) return;
    const xir_func *f = m->funcs.data[0];
    void *acc = bf16 ? (void *)acc_in : (void *)iacc_in, *xs = bf16 ? x_in : ix_in, *ys = bf16 ? y_in : iy_in;
    for (uint32_t w = 1; w <= 16; w *= 2) {
        simd_kernel *k = compile_at(f, w);
        if (!k) continue;
        uint32_t out_native[N], out_interp[N];
        memset(out_native, 0xA5, sizeof out_native);
        memset(out_interp, 0xA5, sizeof out_interp);
        simd_buffer_arg nargs[4] = {{acc, 4 * N}, {xs, 4 * N}, {ys, 4 * N}, {out_native, sizeof out_native}};
        tir_buffer rargs[4] = {{acc, 4 * N}, {xs, 4 * N}, {ys, 4 * N}, {out_interp, sizeof out_interp}};
        fault_record faults = {0};
        simd_kernel_run_all(k, nargs, N, &faults);
        CHECK(faults.count == 0);
        CHECK(xir_interpret(ctx, f, N, w, 4, rargs) == TILEC_OK);
        flush_diags();
        size_t bad = 0;
        for (size_t i = 0; i < N; i++) {
            size_t a = uniform_acc ? 0 : i, x = uniform_x ? 0 : i;
            uint32_t want = defined(op, a, x, i);
            float fn, fi, fw;
            memcpy(&fn, &out_native[i], 4), memcpy(&fi, &out_interp[i], 4), memcpy(&fw, &want, 4);
            bool ok = bf16 ? same(fn, fw) && same(fi, fw) : out_native[i] == want && out_interp[i] == want;
            if (!ok && bad++ < 4)
                fprintf(stderr, "%s W=%u lane %zu: native %08x interpreter %08x, defined %08x\n", label, w, i,
                        out_native[i], out_interp[i], want);
        }
        CHECK_MSG(bad == 0, "%s: %zu lanes differ from the definition at W=%u", label, bad, w);
        simd_kernel_destroy(k);
    }
    xir_module_destroy(m);
}

/* The definition itself on the hand-made cases (what the hardware gave). */
static void test_definition(void) {
    CHECK(f32_bits(xir_dot_bf16x2(0x1p24f, pair(1.0f, -0x1p24f), pair(1.0f, 1.0f))) == 0);
    CHECK(isinf(xir_dot_bf16x2(1.0f, pair(1e30f, -1e30f), pair(1e30f, 1e30f))) &&
          xir_dot_bf16x2(1.0f, pair(1e30f, -1e30f), pair(1e30f, 1e30f)) > 0);
    CHECK(f32_bits(xir_dot_bf16x2(0.0f, pair(0x1p-126f, 0), pair(0x1p-2f, 0))) == 0);
    CHECK(f32_bits(xir_dot_bf16x2(0x1p-124f, pair(-0x1.cp-125f, 0x1p-126f), pair(1.0f, 1.0f))) ==
          f32_bits(0x1p-126f));
    CHECK(f32_bits(xir_dot_bf16x2(-0.0f, pair(-0.0f, 0.0f), pair(0.0f, -0.0f))) == f32_bits(-0.0f));
    CHECK(f32_bits(xir_dot_bf16x2(1.0f, pair(2.0f, 3.0f), pair(5.0f, 7.0f))) == f32_bits(32.0f));
    /* u8 × i8: 255·-128 four times; i16: -32768·-32768 twice wraps */
    CHECK(xir_dot_u8i8x4(0, 0xffffffffu, 0x80808080u) == 4 * 255 * -128);
    CHECK(xir_dot_u8i8x4(INT32_MAX, 0x01u, 0x01u) == INT32_MIN);
    CHECK(xir_dot_i16x2(0, 0x80008000u, 0x80008000u) == INT32_MIN);
    CHECK(xir_dot_i16x2(5, 0x0003fffeu, 0x00070002u) == 5 + 3 * 7 + -2 * 2);
}

static void run_all(const char *host) {
    setenv("TILEC_HOST", host, 1);
    static const xir_arith_op ops[] = {XIR_OP_DOT_BF16X2, XIR_OP_DOT_U8I8X4, XIR_OP_DOT_I16X2};
    char label[160];
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (int v = 0; v < 4; v++) {
            snprintf(label, sizeof label, "%s %s, %s words, %s accumulator", xir_arith_name(ops[o]), host,
                     v & 1 ? "uniform" : "varying", v & 2 ? "uniform" : "varying");
            check_variant(label, ops[o], v & 1, v & 2);
        }
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    fill();
    test_definition();
    const char *pinned = getenv("TILEC_HOST") ? getenv("TILEC_HOST") : "native";
    char base[64], off[96];
    snprintf(base, sizeof base, "%s", pinned);
    snprintf(off, sizeof off, "%s,-avx512bf16,-avx512vnni", base);
    run_all(base);
    run_all(off);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
