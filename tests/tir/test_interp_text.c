/* Reference interpreter on parsed kernels: the text form of the rules in
 * docs/interpreter.md (reduction orders, snapshots under aliasing, guards with
 * fills, masked loads, literals, shape parameters, combine blocks that are
 * never run) and runtime diagnostics that point at the offending line. */
#include "examples_util.h"
#include "interp_fixture.h"

/* Parses and verifies `text`; NULL (after a failed CHECK) on error. */
static tir_module *parse_text(const char *file, const char *text, const tir_define *defines, size_t n_defines) {
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, text, strlen(text), file, defines, n_defines, &m);
    CHECK_MSG(st == TILEC_OK, "%s does not parse", file);
    if (st == TILEC_OK) {
        st = tir_verify(ctx, m);
        CHECK_MSG(st == TILEC_OK, "%s does not verify", file);
    }
    if (st != TILEC_OK) {
        tilec_diag_print(ctx, stderr);
        tilec_diag_clear(ctx);
        tir_module_destroy(m);
        return NULL;
    }
    return m;
}

static tilec_status run_text(tir_module *m, size_t n, const tir_buffer *args) {
    tilec_status st = tir_interpret(ctx, tir_module_func(m, 0), n, args);
    if (st != TILEC_OK) tilec_diag_print(ctx, stderr);
    return st;
}

static const char folds_text[] =
    "kernel @folds(%X: const view<f64>[X.0=1, X.1=3], %O: view<f64>[O.0=4]) {\n"
    "  %z = const index 0\n"
    "  %x = load %X[%z, %z] tile [one=1, c=3]\n"
    "  %seed = const f64 0.0\n"
    "  %ten = const f64 10.0\n"
    "  %l = reduce (%k: c=3) policy=fold_left iter(%s = %seed) -> (f64) {\n"
    "    %e = extract %x[%z, %k]\n"
    "    %n = sub %s, %e\n"
    "    yield %n\n"
    "  }\n"
    "  %r = reduce (%k: c=3) policy=fold_right iter(%s = %seed) -> (f64) {\n"
    "    %e = extract %x[%z, %k]\n"
    "    %n = sub %e, %s\n"
    "    yield %n\n"
    "  }\n"
    "  %d = reduce (%k: c=3) policy=fold_right iter(%s = %seed) -> (f64) {\n"
    "    %e = extract %x[%z, %k]\n"
    "    %m = mul %s, %ten\n"
    "    %n = add %m, %e\n"
    "    yield %n\n"
    "  }\n"
    "  %sum = reduce.add %x over (c) policy=fold_right\n"
    "  %total = extract %sum[%z]\n"
    "  %i1 = const index 1\n"
    "  %i2 = const index 2\n"
    "  %i3 = const index 3\n"
    "  store %O[%z], %l\n"
    "  store %O[%i1], %r\n"
    "  store %O[%i2], %d\n"
    "  store %O[%i3], %total\n"
    "}\n";

static void test_text_folds(void) {
    tir_module *m = parse_text("folds.tir", folds_text, NULL, 0);
    if (!m) return;
    double x[3] = {1, 2, 3}, o[4] = {0};
    tir_buffer args[2] = {buf(x, sizeof x), buf(o, sizeof o)};
    CHECK(run_text(m, 2, args) == TILEC_OK);
    CHECK(o[0] == -6.0 && o[1] == 2.0 && o[2] == 321.0 && o[3] == 6.0);
    tir_module_destroy(m);
}

static const char memory_text[] =
    "kernel @mem(%X: const view<f32>[X.0=4], %Y: view<f32>[Y.0=4], %Z: view<f32>[Z.0=7]) {\n"
    "  %z = const index 0\n"
    "  %t = load %X[%z] tile [i=4]\n"
    "  %nine = const tile<f32>[i=4] 9.0\n"
    "  store %Y[%z] tile [i=4], %nine\n"
    "  %one = const f32 1.0\n"
    "  %u = add %t, %one\n"                       /* the snapshot, not the 9s */
    "  store %Y[%z] tile [i=4], %u\n"
    "  %m2 = const index -2\n"
    "  %fill = const f32 -1.0\n"
    "  %w = load %X[%m2] tile [j=6] bounds=zero fill %fill\n" /* sees the stores */
    "  store %Z[%z] tile [j=6], %w\n"
    "  %big = const index 100\n"
    "  %lim = const index 4\n"
    "  %ok = lt %big, %lim\n"
    "  %fb = const f32 0.1\n"
    "  %s = load %X[%big] mask %ok else %fb\n"
    "  %i6 = const index 6\n"
    "  store %Z[%i6], %s\n"
    "}\n";

static void test_text_memory(void) {
    tir_module *m = parse_text("mem.tir", memory_text, NULL, 0);
    if (!m) return;
    float xy[4] = {1, 2, 3, 4}, z[7] = {0};
    tir_buffer args[3] = {buf(xy, sizeof xy), buf(xy, sizeof xy), buf(z, sizeof z)};
    CHECK(run_text(m, 3, args) == TILEC_OK);
    CHECK(xy[0] == 2 && xy[1] == 3 && xy[2] == 4 && xy[3] == 5);
    float want[7] = {-1, -1, 2, 3, 4, 5, 0.1f};
    for (int i = 0; i < 7; i++) CHECK_MSG(z[i] == want[i], "Z[%d] = %g, want %g", i, z[i], want[i]);
    tir_module_destroy(m);
}

static const char literals_text[] =
    "kernel @lits(%O: view<f64>[O.0=5]) {\n"
    "  %a = const f32 0.1\n"
    "  %a64 = cast %a to f64\n"
    "  %n = const f64 nan\n"
    "  %three = const f64 3.0\n"
    "  %mn = min %n, %three\n"
    "  %inf = const f64 -inf\n"
    "  %q = const i32 -7\n"
    "  %two = const i32 2\n"
    "  %r = mod %q, %two\n"
    "  %rf = cast %r to f64\n"
    "  %zero = const i32 0\n"
    "  %dz = div %q, %zero\n"
    "  %dzf = cast %dz to f64\n"
    "  %i0 = const index 0\n"
    "  %i1 = const index 1\n"
    "  %i2 = const index 2\n"
    "  %i3 = const index 3\n"
    "  %i4 = const index 4\n"
    "  store %O[%i0], %a64\n"
    "  store %O[%i1], %mn\n"
    "  store %O[%i2], %inf\n"
    "  store %O[%i3], %rf\n"
    "  store %O[%i4], %dzf\n"
    "}\n";

static void test_text_literals(void) {
    tir_module *m = parse_text("lits.tir", literals_text, NULL, 0);
    if (!m) return;
    double o[5];
    tir_buffer arg = buf(o, sizeof o);
    CHECK(run_text(m, 1, &arg) == TILEC_OK);
    CHECK(same_bits(o[0], (double)0.1f) && o[1] == 3.0 && o[2] == -INFINITY && o[3] == -1.0 && same_bits(o[4], 0.0));
    tir_module_destroy(m);
}

static const char trips_text[] =
    "kernel @trips<N=5>(%O: view<i64>[O.0=1]) {\n"
    "  %seven = const i64 7\n"
    "  %acc = serial (%t: t=N) iter(%a = %seven) -> (i64) {\n"
    "    %ti = cast %t to i64\n"
    "    %n = add %a, %ti\n"
    "    yield %n\n"
    "  }\n"
    "  %z = const index 0\n"
    "  store %O[%z], %acc\n"
    "}\n";

static void test_text_shape_parameters(void) {
    int64_t trips[3] = {0, 1, 5}, want[3] = {7, 7, 17};
    for (int c = 0; c < 3; c++) {
        tir_define n = {"N", trips[c]};
        tir_module *m = parse_text("trips.tir", trips_text, &n, 1);
        if (!m) return;
        int64_t o = -1;
        tir_buffer arg = buf(&o, sizeof o);
        CHECK(run_text(m, 1, &arg) == TILEC_OK);
        CHECK_MSG(o == want[c], "N=%lld: got %lld", (long long)trips[c], (long long)o);
        tir_module_destroy(m);
    }
}

/* Online softmax statistics per row (max; sum of exp(x - max), as a scalar
 * and as a 4-wide tile carry).  The interpreter evaluates the whole domain as
 * one chunk, so a combine block changes nothing, and it is never run: the
 * second one would fault (an extract out of range) if it were. */
#define ONLINE_HEAD                                                                                                  \
    "kernel @online(%X: const view<f32>[X.0=2, X.1=37], %O: view<f32>[O.0=2, O.1=6]) {\n"                          \
    "  parallel (%r: row=2) {\n"                                                                                     \
    "    %m0 = const f32 -inf\n"                                                                                     \
    "    %s0 = const f32 0.0\n"                                                                                      \
    "    %t0 = const tile<f32>[d=4] 0.0\n"                                                                           \
    "    %m, %s, %t = reduce (%i: n=37) policy=unordered_tree iter(%mi = %m0, %si = %s0, %ti = %t0)\n"             \
    "        -> (f32, f32, tile<f32>[d=4]) {\n"                                                                      \
    "      %x = load %X[%r, %i]\n"                                                                                   \
    "      %m1 = max %mi, %x\n"                                                                                      \
    "      %dm = sub %mi, %m1\n"                                                                                     \
    "      %c = exp %dm\n"                                                                                           \
    "      %dx = sub %x, %m1\n"                                                                                      \
    "      %e = exp %dx\n"                                                                                           \
    "      %sc = mul %si, %c\n"                                                                                      \
    "      %s1 = add %sc, %e\n"                                                                                      \
    "      %tc = mul %ti, %c\n"                                                                                      \
    "      %t1 = add %tc, %e\n"                                                                                      \
    "      yield %m1, %s1, %t1\n"                                                                                    \
    "    }"
#define ONLINE_COMBINE                                                                                               \
    " combine (%lm, %ls, %lt) (%rm, %rs, %rt) {\n"                                                                   \
    "      %mm = max %lm, %rm\n"                                                                                     \
    "      %dl = sub %lm, %mm\n"                                                                                     \
    "      %el = exp %dl\n"                                                                                          \
    "      %dr = sub %rm, %mm\n"                                                                                     \
    "      %er = exp %dr\n"                                                                                          \
    "      %a = mul %ls, %el\n"                                                                                      \
    "      %b = mul %rs, %er\n"                                                                                      \
    "      %ss = add %a, %b\n"                                                                                       \
    "      %ta = mul %lt, %el\n"                                                                                     \
    "      %tb = mul %rt, %er\n"                                                                                     \
    "      %tt = add %ta, %tb\n"                                                                                     \
    "      yield %mm, %ss, %tt\n"                                                                                    \
    "    }"
#define ONLINE_FAULTY_COMBINE                                                                                        \
    " combine (%lm, %ls, %lt) (%rm, %rs, %rt) {\n"                                                                   \
    "      %nine = const index 9\n"                                                                                  \
    "      %bad = extract %lt[%nine]\n"                                                                              \
    "      %ss = add %ls, %bad\n"                                                                                    \
    "      yield %lm, %ss, %lt\n"                                                                                    \
    "    }"
#define ONLINE_TAIL                                                                                                  \
    "\n"                                                                                                             \
    "    %c0 = const index 0\n"                                                                                      \
    "    %c1 = const index 1\n"                                                                                      \
    "    %c2 = const index 2\n"                                                                                      \
    "    store %O[%r, %c0], %m\n"                                                                                    \
    "    store %O[%r, %c1], %s\n"                                                                                    \
    "    %tr = broadcast %t to [one=1, d=4]\n"                                                                      \
    "    store %O[%r, %c2] tile [one=1, d=4], %tr\n"                                                                 \
    "  }\n"                                                                                                          \
    "}\n"

/* The reduce directly in the kernel's first parallel. */
static const tir_op *parallel_reduce(const tir_module *m) {
    const tir_op *op = tir_block_first(tir_op_body(tir_block_first(tir_func_body(tir_module_func(m, 0)))));
    while (op && tir_op_kind_of(op) != TIR_OP_REDUCE) op = tir_op_next(op);
    return op;
}

static void test_text_combine_not_run(void) {
    static const char *const texts[3] = {
        ONLINE_HEAD ONLINE_TAIL, ONLINE_HEAD ONLINE_COMBINE ONLINE_TAIL, ONLINE_HEAD ONLINE_FAULTY_COMBINE ONLINE_TAIL};
    float x[2 * 37], out[3][12];
    for (int i = 0; i < 2 * 37; i++) x[i] = (float)((i * 7919) % 23) * 0.25f - 2.0f;
    for (int v = 0; v < 3; v++) {
        tir_module *m = parse_text("online.tir", texts[v], NULL, 0);
        if (!m) return;
        const tir_op *r = parallel_reduce(m);
        CHECK(r && (tir_op_combine(r) != NULL) == (v > 0));
        memset(out[v], 0xff, sizeof out[v]);
        tir_buffer args[2] = {buf(x, sizeof x), buf(out[v], sizeof out[v])};
        CHECK(run_text(m, 2, args) == TILEC_OK);
        tir_module_destroy(m);
    }
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0 && memcmp(out[0], out[2], sizeof out[0]) == 0);
    CHECK(out[0][0] == 3.5f && out[0][1] > 1.0f && out[0][1] == out[0][2]);
}

/* Runtime errors carry the location of the op that failed. */
static const char oob_text[] =
    "kernel @oob(%X: const view<i32>[X.0=4], %O: view<i32>[O.0=1]) {\n"
    "  %i = const index 4\n"
    "  %v = load %X[%i]\n"
    "  %z = const index 0\n"
    "  store %O[%z], %v\n"
    "}\n";

static void test_text_error_location(void) {
    tir_module *m = parse_text("oob.tir", oob_text, NULL, 0);
    if (!m) return;
    int32_t x[4] = {0}, o = 5;
    tir_buffer args[2] = {buf(x, sizeof x), buf(&o, sizeof o)};
    tilec_status st = tir_interpret(ctx, tir_module_func(m, 0), 2, args);
    const tilec_diag *d = tilec_diag_at(ctx, 0);
    CHECK(d && d->loc.file && !strcmp(d->loc.file, "oob.tir") && d->loc.line == 3);
    expect_error(st, TILEC_E_RUNTIME, "TIR-I08");
    CHECK(o == 5);
    tir_module_destroy(m);
}

/* if regions (tests/kernels/conditional.tir): the arm whose condition holds
 * runs, its stores happen and its yields are the results; otherwise the
 * carries keep their initial values and nothing in the body happens (a
 * store that would fault is skipped). */
static void test_text_if(void) {
    tir_module *m = parse_test_kernel(ctx, "conditional");
    if (!m) return;
    enum { R = 7, W = 9, N = 10, P = 16 };
    float x[R * W], y[R * W], s[R], xs[N], ys[N], t[P], tt[P * 4];
    for (int i = 0; i < R * W; i++) x[i] = (float)((i * 37) % 17 - 8) / 4.0f;
    for (int i = 0; i < N; i++) xs[i] = (float)i - 3.0f;
    memset(y, 0x7f, sizeof y), memset(s, 0x7f, sizeof s), memset(ys, 0x7f, sizeof ys), memset(t, 0x7f, sizeof t);
    memset(tt, 0x7f, sizeof tt);
    tir_buffer rows[3] = {{x, sizeof x}, {y, sizeof y}, {s, sizeof s}};
    CHECK(tir_interpret(ctx, tir_module_func(m, 0), 3, rows) == TILEC_OK);
    int positive = 0;
    for (int r = 0; r < R; r++) {
        float sum = 0;
        for (int c = 0; c < W; c++) sum += x[r * W + c]; /* quarters: every order is exact */
        positive += sum > 0;
        CHECK_MSG(s[r] == (sum > 0 ? 2 * sum : sum), "row %d: S = %g, sum %g", r, s[r], sum);
        for (int c = 0; c < W; c++) CHECK(y[r * W + c] == (sum > 0 ? 2 * x[r * W + c] : 0.0f));
    }
    CHECK_MSG(positive > 0 && positive < R, "the data should take both arms (%d of %d rows positive)", positive, R);
    tir_buffer idle[3] = {{xs, sizeof xs}, {ys, sizeof ys}, {t, sizeof t}};
    CHECK(tir_interpret(ctx, tir_module_func(m, 1), 3, idle) == TILEC_OK);
    for (int p = 0; p < P; p++) {
        if (p < N) CHECK(ys[p] == xs[p] + 0.5f);
        CHECK(t[p] == (p < N ? xs[p] : 1.0f));
    }
    tir_buffer tiles[2] = {{xs, sizeof xs}, {tt, sizeof tt}}; /* @tile_carry */
    CHECK(tir_interpret(ctx, tir_module_func(m, 4), 2, tiles) == TILEC_OK);
    for (int p = 0; p < P; p++)
        for (int k = 0; k < 4; k++) CHECK(tt[p * 4 + k] == (p < N ? xs[p] : 1.0f));
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_text_folds();
    test_text_memory();
    test_text_literals();
    test_text_shape_parameters();
    test_text_combine_not_run();
    test_text_error_location();
    test_text_if();
    CHECK(tilec_diag_count(ctx) == 0);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
