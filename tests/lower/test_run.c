/* Lowered kernels run on the W-lane XIR interpreter and natively (SIMD
 * backend, all blocks on the calling thread) and match the TileIR
 * reference interpreter at W = 1, 2, 4, 8, 16 (lower_fixture.h: padded
 * buffers with sentinels, offset views, NaN-initialized outputs, aliasing):
 * every example at its default and a ragged shape, GEMM bitwise on exact
 * inputs (ragged, transposed, long contractions), strict fold policies
 * bitwise, partitioned reductions bitwise against a partition model,
 * indexable snapshots with simultaneous and large carries under aliasing,
 * in-place transpose, bounds with negative and overflowing origins, scalar
 * and masked accesses on integer types. */
#include "lower_fixture.h"

static void test_examples(void) {
    static const example_case cases[] = {
        {"gemm", {{0}}, 0, -1, -1},
        {"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 6, -1, -1},
        {"gemm_bt", {{0}}, 0, -1, -1},
        {"gemm_bt", {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, -1, -1},
        {"bmm", {{0}}, 0, -1, -1},
        {"softmax", {{0}}, 0, -1, -1},
        {"softmax", {{"R", 6}, {"W", 7}}, 2, -1, -1},
        {"softmax", {{0}}, 0, 1, 0},
        {"masked_softmax", {{0}}, 0, -1, -1},
        {"masked_softmax", {{"R", 9}, {"W", 7}}, 2, 1, 0},
        {"layernorm", {{0}}, 0, 3, 0},
        {"layernorm", {{"R", 6}, {"W", 7}}, 2, -1, -1},
        {"rmsnorm", {{0}}, 0, -1, -1},
        {"rmsnorm", {{"R", 6}, {"W", 130}}, 2, 2, 0},
        {"rope", {{0}}, 0, 3, 0},
        {"rope", {{"R", 5}, {"W", 6}}, 2, -1, -1},
        {"gelu", {{0}}, 0, 2, 1},
        {"gelu", {{"R", 6}, {"W", 7}}, 2, -1, -1},
        {"swiglu", {{0}}, 0, -1, -1},
        {"swiglu", {{"R", 6}, {"W", 200}}, 2, 2, 0},
        {"attention", {{0}}, 0, -1, -1},
        {"attention", {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"Lq", 3}, {"Lk", 35}, {"D", 7}, {"Dv", 3}, {"bk", 33}}, 8, -1, -1},
    };
    lowering o = lowering_default();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const example_case *e = &cases[i];
        char *text = read_example(e->name);
        if (!text) continue;
        run_config c = example_config(e, 1, false);
        if (!strcmp(e->name, "attention")) c.tolerance = 5e-5;
        char label[64];
        snprintf(label, sizeof label, "%s case %zu", e->name, i);
        check_kernel_all_widths(label, text, e->defines, e->n_defines, &o, c);
        free(text);
    }
}

/* GEMM on dyadic inputs is exact in f32 and FP64 alike: bitwise, for ragged
 * blocks, transposed B, a contraction longer than the unroll limit (a runtime
 * mma loop), and bounded output blocks (register-blocked 1×1, 4×2, 4×4). */
static void test_gemm_bitwise(void) {
    static const struct {
        const char *name;
        tir_define d[6];
        uint32_t limit;
    } cases[] = {
        {"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 64},
        {"gemm", {{"M", 7}, {"N", 11}, {"K", 9}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 64},
        {"gemm_bt", {{"M", 7}, {"N", 11}, {"K", 9}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 64},
        {"gemm", {{"M", 7}, {"N", 11}, {"K", 129}, {"BM", 3}, {"BN", 5}, {"BK", 65}}, 64},
        {"gemm_bt", {{"M", 7}, {"N", 11}, {"K", 129}, {"BM", 3}, {"BN", 5}, {"BK", 65}}, 64},
        {"gemm", {{"M", 11}, {"N", 13}, {"K", 17}, {"BM", 9}, {"BN", 9}, {"BK", 5}}, 64},
        {"gemm", {{"M", 11}, {"N", 13}, {"K", 17}, {"BM", 9}, {"BN", 9}, {"BK", 5}}, 4},
        /* register-blocked bounded outputs: 4×2 and 4×4 blocks, ragged edges */
        {"gemm", {{"M", 13}, {"N", 14}, {"K", 9}, {"BM", 12}, {"BN", 6}, {"BK", 5}}, 4},
        {"gemm_bt", {{"M", 17}, {"N", 9}, {"K", 7}, {"BM", 8}, {"BN", 4}, {"BK", 3}}, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = read_example(cases[i].name);
        if (!text) continue;
        lowering o = lowering_default();
        o.record.max_unrolled_tile_elements = cases[i].limit;
        char label[64];
        snprintf(label, sizeof label, "%s bitwise case %zu", cases[i].name, i);
        check_kernel_all_widths(label, text, cases[i].d, 6, &o, run_config_default(1, true));
        free(text);
    }
}

/* Strict folds over f64 (exact in both interpreters): L/R subtract, the
 * non-closed 2s + x recurrence, and closed ADD/MUL/MIN/MAX (carry on either
 * side) with seeds -0 and 3, at widths around the partition boundary. */
static const char folds_text[] =
    "kernel @folds<R=3, W=5>(%X: const view<f64>[X.0=R, X.1=W], %Y: view<f64>[Y.0=R, Y.1=8]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %nz = const f64 -0.0\n"
    "    %three = const f64 3.0\n"
    "    %two = const f64 2.0\n"
    "    %l = reduce (%k: n=W) policy=fold_left iter(%s = %nz) -> (f64) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = sub %s, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %rr = reduce (%k: n=W) policy=fold_right iter(%s = %three) -> (f64) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = sub %e, %s\n"
    "      yield %n\n"
    "    }\n"
    "    %d = reduce (%k: n=W) iter(%s = %nz) -> (f64) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %m = mul %s, %two\n"
    "      %n = add %m, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %sl = reduce (%k: n=W) iter(%s = %nz) -> (f64) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = add %s, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %sr = reduce (%k: n=W) iter(%s = %three) -> (f64) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = add %e, %s\n"
    "      yield %n\n"
    "    }\n"
    "    %mx = reduce.max %x over (n)\n"
    "    %mn = reduce.min %x over (n) policy=fold_right\n"
    "    %y = mul %x, %nz\n"
    "    %z = reduce.add %y over (n)\n"
    "    %vmx = extract %mx[%c0]\n"
    "    %vmn = extract %mn[%c0]\n"
    "    %vz = extract %z[%c0]\n"
    "    %i1 = const index 1\n"
    "    %i2 = const index 2\n"
    "    %i3 = const index 3\n"
    "    %i4 = const index 4\n"
    "    %i5 = const index 5\n"
    "    %i6 = const index 6\n"
    "    %i7 = const index 7\n"
    "    store %Y[%r, %c0], %l\n"
    "    store %Y[%r, %i1], %rr\n"
    "    store %Y[%r, %i2], %d\n"
    "    store %Y[%r, %i3], %sl\n"
    "    store %Y[%r, %i4], %sr\n"
    "    store %Y[%r, %i5], %vmx\n"
    "    store %Y[%r, %i6], %vmn\n"
    "    store %Y[%r, %i7], %vz\n"
    "  }\n"
    "}\n";

static void test_fold_policies(void) {
    static const int64_t widths[] = {0, 1, 3, 5, 13, 64, 65, 66, 67, 128};
    static const uint32_t partitions[] = {1, 3, 4, 16};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (size_t p = 0; p < sizeof partitions / sizeof *partitions; p++) {
            lowering o = lowering_default();
            o.record.reduction_partitions = partitions[p];
            tir_define d = {"W", widths[w]};
            char label[64];
            snprintf(label, sizeof label, "folds W=%lld P=%u", (long long)widths[w], partitions[p]);
            check_kernel_all_widths(label, folds_text, &d, 1, &o, run_config_default(1, true));
        }
}

/* Closed f32 reductions on inexact inputs, bitwise against the partition
 * model: partial p takes contributions p, p+P, …; partials combine left to
 * right; the seed enters once, on the update's side.  Row 0 holds the
 * cancellation data {2^24, 1, -2^24, 3, -2, …}, whose sum depends on order. */
static const char partial_text[] =
    "kernel @partial<R=4, W=65>(%X: const view<f32>[X.0=R, X.1=W], %Y: view<f32>[Y.0=R, Y.1=4]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %nz = const f32 -0.0\n"
    "    %two = const f32 2.0\n"
    "    %s = reduce (%k: n=W) iter(%c = %nz) -> (f32) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = add %c, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %p = reduce (%k: n=W) iter(%c = %two) -> (f32) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = mul %e, %c\n"
    "      yield %n\n"
    "    }\n"
    "    %lo = reduce (%k: n=W) iter(%c = %two) -> (f32) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %n = min %c, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %half = const f32 0.5\n"
    "    %d = reduce (%k: n=W) iter(%c = %nz) -> (f32) {\n"
    "      %e = extract %x[%c0, %k]\n"
    "      %m = mul %c, %half\n"
    "      %n = add %m, %e\n"
    "      yield %n\n"
    "    }\n"
    "    %i1 = const index 1\n"
    "    %i2 = const index 2\n"
    "    %i3 = const index 3\n"
    "    store %Y[%r, %c0], %s\n"
    "    store %Y[%r, %i1], %p\n"
    "    store %Y[%r, %i2], %lo\n"
    "    store %Y[%r, %i3], %d\n"
    "  }\n"
    "}\n";

static float partial_input(size_t row, size_t k) {
    static const float cancel[] = {16777216.0f, 1.0f, -16777216.0f, 3.0f, -2.0f};
    if (row == 0) return cancel[k % 5];
    return (float)(1.0 + 0.01 * sin(0.37 * (double)(row * 131 + k)));
}

typedef enum { MODEL_ADD, MODEL_MUL, MODEL_MIN } model_op;

static float model_apply(model_op op, float a, float b) {
    switch (op) {
    case MODEL_ADD: return a + b;
    case MODEL_MUL: return a * b;
    case MODEL_MIN: return a < b ? a : b; /* no NaN in the inputs */
    }
    return 0;
}

/* `carry_left`: update(carry, x) = carry op x, else x op carry. */
static float model_reduce(model_op op, bool carry_left, float seed, const float *x, size_t n, size_t P, bool partitioned) {
#define UPD(c, v) (carry_left ? model_apply(op, (c), (v)) : model_apply(op, (v), (c)))
    if (!partitioned) {
        float s = seed;
        for (size_t t = 0; t < n; t++) s = UPD(s, x[t]);
        return s;
    }
    float part[16];
    size_t parts = n < P ? n : P;
    for (size_t p = 0; p < parts; p++) part[p] = x[p];
    for (size_t t = parts; t < n; t++) part[t % P] = UPD(part[t % P], x[t]);
    float total = part[0];
    for (size_t p = 1; p < parts; p++) total = UPD(total, part[p]);
    return parts ? UPD(seed, total) : seed;
#undef UPD
}

static void test_partitioned_reductions(void) {
    static const int64_t widths[] = {0, 1, 64, 65, 66, 67, 128, 1000};
    static const uint32_t partitions[] = {1, 3, 4, 16};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
        size_t w = (size_t)widths[wi];
        tir_define d = {"W", widths[wi]};
        tir_module *m = parse_kernel(partial_text, &d, 1);
        if (!m) return;
        float *in = malloc(sizeof *in * (4 * w + 1)), out[16];
        for (size_t r = 0; r < 4; r++)
            for (size_t k = 0; k < w; k++) in[r * w + k] = partial_input(r, k);
        for (size_t pi = 0; pi < sizeof partitions / sizeof *partitions; pi++) {
            lowering o = lowering_default();
            o.record.reduction_partitions = partitions[pi];
            lower_result res;
            if (!lower_ok(tir_module_func(m, 0), &o, &res)) continue;
            bool partitioned = w > o.record.max_unrolled_tile_elements && partitions[pi] > 1;
            CHECK(res.counters.partial_reductions == (partitioned ? 3u : 0u));
            for (uint32_t W = 1; W <= 16; W *= 2) {
                for (int i = 0; i < 16; i++) out[i] = NAN;
                tir_buffer args[2] = {{in, 4 * w * sizeof(float)}, {out, sizeof out}};
                tilec_status st = xir_interpret(ctx, res.kernel, res.dispatch_size, W, 2, args);
                CHECK(st == TILEC_OK);
                if (st) {
                    tilec_diag_print(ctx, stderr);
                    tilec_diag_clear(ctx);
                    continue;
                }
                for (size_t r = 0; r < 4; r++) {
                    const float *x = in + r * w;
                    float expect[4] = {
                        model_reduce(MODEL_ADD, true, -0.0f, x, w, partitions[pi], partitioned),
                        model_reduce(MODEL_MUL, false, 2.0f, x, w, partitions[pi], partitioned),
                        model_reduce(MODEL_MIN, true, 2.0f, x, w, partitions[pi], partitioned),
                        0.0f,
                    };
                    float dd = -0.0f; /* not closed: always the ordered recurrence */
                    for (size_t t = 0; t < w; t++) dd = dd * 0.5f + x[t];
                    expect[3] = dd;
                    for (int q = 0; q < 4; q++)
                        CHECK_MSG(!memcmp(&out[r * 4 + q], &expect[q], sizeof(float)),
                                  "partial reduction %d row %zu W=%zu P=%u lanes=%u: %.9g, model %.9g", q, r, w,
                                  partitions[pi], W, out[r * 4 + q], expect[q]);
                }
                if (w == 0) CHECK(signbit(out[0])); /* the -0 seed, no invented +0 identity */
            }
            lower_result_free(&res);
        }
        free(in);
        tir_module_destroy(m);
    }
}

/* Indexable snapshots and simultaneous carries (upstream runtime case 31):
 * `a` and its snapshot are loaded, then the aliased output overwrites the
 * input with 17; the loop swaps two Tile carries (a' = b + 3, b' = a - 2)
 * and traces a[i] + 2 b[i] + snap[i] at the runtime index i = step mod w.
 * Two more Tile carries swap each step (p, q = q, p).  Small widths carry
 * PHIs, large ones current/next arrays. */
static const char carry_text[] =
    "kernel @carry<R=19, W=7, S=5>(%X: const view<f32>[X.0=R, X.1=W], %Y: view<f32>[Y.0=R, Y.1=W],\n"
    "                              %Z: view<f32>[Z.0=R, Z.1=W], %T: view<f32>[T.0=R]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %a = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %snap = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %over = const tile<f32>[m=1, n=W] 17.0\n"
    "    store %Y[%r, %c0] tile [m=1, n=W], %over\n"
    "    %late0 = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %z = const f32 0.0\n"
    "    %three = const f32 3.0\n"
    "    %two = const f32 2.0\n"
    "    %w = const index W\n"
    "    %fa, %fb, %ft, %fp, %fq = LOOP (%s: s=S) iter(%ca = %a, %cb = %snap, %t = %z, %p = %a, %q = %late0)\n"
    "        -> (tile<f32>[m=1, n=W], tile<f32>[m=1, n=W], f32, tile<f32>[m=1, n=W], tile<f32>[m=1, n=W]) {\n"
    "      STAGE\n"
    "      %i = mod %s, %w\n"
    "      %ea = extract %ca[%c0, %i]\n"
    "      %eb = extract %cb[%c0, %i]\n"
    "      %es = extract %snap[%c0, %i]\n"
    "      %b2 = mul %two, %eb\n"
    "      %u = add %ea, %b2\n"
    "      %u2 = add %u, %es\n"
    "      %nt = add %t, %u2\n"
    "      %na = add %cb, %three\n"
    "      %nb = sub %ca, %two\n"
    "      yield %na, %nb, %nt, %q, %p\n"
    "    }\n"
    "    store %Z[%r, %c0] tile [m=1, n=W], %fa\n"
    "    %back = add %fb, %snap\n"
    "    %late = load %X[%r, %c0] tile [m=1, n=W]\n"
    "    %mix0 = add %back, %late\n"
    "    %swapped = sub %fp, %fq\n"
    "    %mix = add %mix0, %swapped\n"
    "    store %Y[%r, %c0] tile [m=1, n=W], %mix\n"
    "    store %T[%r], %ft\n"
    "  }\n"
    "}\n";

/* carry_text with LOOP and STAGE replaced. */
static char *carry_variant(bool staged) {
    size_t n = strlen(carry_text) + 64;
    char *out = malloc(n), *o = out;
    for (const char *p = carry_text; *p;) {
        if (!strncmp(p, "LOOP", 4)) o += sprintf(o, "%s", staged ? "pipeline" : "serial"), p += 4;
        else if (!strncmp(p, "STAGE", 5)) o += sprintf(o, "%s", staged ? "stage \"body\"" : ""), p += 5;
        else *o++ = *p++;
    }
    *o = 0;
    return out;
}

static void test_carries_and_snapshots(void) {
    static const int64_t widths[] = {1, 7, 65, 127}, steps[] = {0, 1, 5};
    lowering o = lowering_default();
    for (int staged = 0; staged < 2; staged++) {
        char *text = carry_variant(staged);
        for (size_t w = 0; w < 4; w++)
            for (size_t s = 0; s < 3; s++) {
                tir_define d[2] = {{"W", widths[w]}, {"S", steps[s]}};
                run_config c = run_config_default(1, true);
                c.alias[1] = 0; /* Y is X's memory */
                char label[64];
                snprintf(label, sizeof label, "carries %s W=%lld S=%lld", staged ? "pipeline" : "serial",
                         (long long)widths[w], (long long)steps[s]);
                check_kernel_all_widths(label, text, d, 2, &o, c);
            }
        free(text);
    }
}

/* In-place transpose: each program loads its A×B slab, then stores the
 * scaled transpose into the same memory (Y aliases X). */
static const char transpose_text[] =
    "kernel @transpose<P=67, A=7, B=11>(%X: const view<f32>[X.0=P, X.1=A, X.2=B], %Y: view<f32>[Y.0=P, Y.1=B, Y.2=A]) {\n"
    "  parallel (%p: p=P) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%p, %c0, %c0] tile [o=1, a=A, b=B]\n"
    "    %t = map (%o: o=1, %j: bb=B, %i: aa=A) -> f32 {\n"
    "      %e = extract %x[%o, %i, %j]\n"
    "      %k = const f32 1.25\n"
    "      %m = mul %e, %k\n"
    "      %pf = cast %p to f32\n"
    "      %v = add %m, %pf\n"
    "      yield %v\n"
    "    }\n"
    "    store %Y[%p, %c0, %c0] tile [o=1, bb=B, aa=A], %t\n"
    "  }\n"
    "}\n";

static void test_transpose_in_place(void) {
    lowering o = lowering_default();
    run_config c = run_config_default(1, true);
    c.alias[1] = 0;
    check_kernel_all_widths("transpose 67x7x11", transpose_text, NULL, 0, &o, c);
    tir_define big[3] = {{"P", 3}, {"A", 129}, {"B", 65}};
    check_kernel_all_widths("transpose 3x129x65", transpose_text, big, 3, &o, c);
    tir_define small[3] = {{"P", 5}, {"A", 3}, {"B", 4}};
    check_kernel_all_widths("transpose 5x3x4", transpose_text, small, 3, &o, c);
}

/* A zero-filled load from a 2-element input at origin i-1 (negative for
 * program 0) and at i·INT64_MAX (wrapping), stored at shifted origins: Z at
 * i·(L+1) − 1, negative for program 0 and past the end for the last one.
 * The programs' stores stay disjoint, as `parallel` requires (overlapping
 * stores would make the result depend on the order instances run in). */
static const char bounds_text[] =
    "kernel @bounds<N=5, L=65>(%X: const view<f32>[X.0=2], %Y: view<f32>[Y.0=N*L], %Z: view<f32>[Z.0=N*L]) {\n"
    "  parallel (%i: i=N) {\n"
    "    %one = const index 1\n"
    "    %o = sub %i, %one\n"
    "    %fill = const f32 -4.0\n"
    "    %t = load %X[%o] tile [n=L] bounds=zero fill %fill\n"
    "    %big = const index 9223372036854775807\n"
    "    %o2 = mul %i, %big\n"
    "    %t2 = load %X[%o2] tile [n=L] bounds=zero\n"
    "    %t3 = add %t, %t2\n"
    "    %l = const index L\n"
    "    %base = mul %i, %l\n"
    "    store %Y[%base] tile [n=L] bounds=zero, %t3\n"
    "    %b2 = add %base, %o\n"
    "    store %Z[%b2] tile [n=L] bounds=zero, %t3\n"
    "  }\n"
    "}\n";

/* Origins of other integer types: a u64 origin above 2^63-1 saturates (out
 * of bounds: the fill), an i32 origin is sign-extended; neither has a known
 * interval, so both keep their guards.  N = 24 makes worker 23 read the u64
 * origin 2^64 - 3, which a plain cast would turn into -3 (partly in bounds). */
static const char origin_types_text[] =
    "kernel @origins<N=24>(%O: const view<u64>[O.0=N], %P: const view<i32>[P.0=N], %X: const view<f32>[X.0=40],\n"
    "                     %Y: view<f32>[Y.0=N*8]) {\n"
    "  parallel (%i: i=N) {\n"
    "    %u = load %O[%i]\n"
    "    %p = load %P[%i]\n"
    "    %fill = const f32 9.5\n"
    "    %t = load %X[%u] tile [n=4] bounds=zero fill %fill\n"
    "    %q = load %X[%p] tile [n=4] bounds=zero\n"
    "    %eight = const index 8\n"
    "    %four = const index 4\n"
    "    %b = mul %i, %eight\n"
    "    %b4 = add %b, %four\n"
    "    store %Y[%b] tile [n=4], %t\n"
    "    store %Y[%b4] tile [n=4], %q\n"
    "  }\n"
    "}\n";

static void test_bounds_origins(void) {
    {
        lowering o = lowering_default();
        check_kernel_all_widths("origin types", origin_types_text, NULL, 0, &o, run_config_default(1, true));
    }
    lowering o = lowering_default();
    check_kernel_all_widths("bounds L=65", bounds_text, NULL, 0, &o, run_config_default(1, true));
    tir_define d = {"L", 7};
    check_kernel_all_widths("bounds L=7", bounds_text, &d, 1, &o, run_config_default(1, true));
    /* The guards of the overflowing origins survive; in-range ones go. */
    tir_module *m = parse_kernel(bounds_text, &d, 1);
    lower_result r;
    if (m && lower_ok(tir_module_func(m, 0), &o, &r)) {
        CHECK(r.counters.guards_kept == 3);    /* origins i-1, i·INT64_MAX, and i·L - (i-1) */
        CHECK(r.counters.guards_removed == 1); /* the store at i·L */
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* Scalar and masked accesses, integer arithmetic and casts. */
static const char scalar_text[] =
    "kernel @scalars<N=9>(%X: const view<i32>[X.0=N], %U: const view<u64>[U.0=N], %Y: view<i32>[Y.0=N],\n"
    "                     %F: view<f64>[F.0=N], %B: view<u8>[B.0=N]) {\n"
    "  parallel (%i: i=N) {\n"
    "    %two = const index 2\n"
    "    %m = mod %i, %two\n"
    "    %z = const index 0\n"
    "    %p = eq %m, %z\n"
    "    %fb = const i32 -7\n"
    "    %v = load %X[%i] mask %p else %fb\n"
    "    %u = load %U[%i]\n"
    "    %ui = cast %u to i32\n"
    "    %s = add %v, %ui\n"
    "    %k = const i32 3\n"
    "    %d = div %s, %k\n"
    "    %r = mod %s, %k\n"
    "    %q = mul %d, %r\n"
    "    store %Y[%i], %q\n"
    "    %f = cast %q to f64\n"
    "    %h = const f64 0.5\n"
    "    %g = mul %f, %h\n"
    "    %t = tanh %g\n"
    "    store %F[%i], %t\n"
    "    %c = cast %s to u8\n"
    "    %w = const u8 200\n"
    "    %cw = add %c, %w\n"
    "    %mx = max %cw, %w\n"
    "    store %B[%i], %mx\n"
    "  }\n"
    "}\n";

static void test_scalars(void) {
    lowering o = lowering_default();
    run_config c = run_config_default(1, false);
    c.tolerance = 1e-12;
    check_kernel_all_widths("scalars", scalar_text, NULL, 0, &o, c);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_examples();
    test_gemm_bitwise();
    test_fold_policies();
    test_partitioned_reductions();
    test_carries_and_snapshots();
    test_transpose_in_place();
    test_bounds_origins();
    test_scalars();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
