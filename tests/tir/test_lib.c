/* Library sugar, checked by running its expansions on the reference interpreter:
 * zeros, full, iota, relabel, broadcast_to, matmul (named and positional),
 * reduce (add/max/min, every policy) and ite.  Inputs are small integers so
 * every result is exact and compared bitwise. */
#include "interp_fixture.h"

/* out[i*cols + j] = f(i, j) for a 2-D f32 output of shape rows x cols. */
static void test_zeros_full_iota(void) {
    kernel k = kernel_open("zfi");
    tir_value *out = view2(&k, "O", TIR_F32, 3, 4, false);
    tir_value *iout = view1(&k, "I", TIR_I64, 5, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *r = tir_dim_new(k.m, "r"), *c = tir_dim_new(k.m, "c");
    tir_space *s = sp2(&k, r, 3, c, 4);
    tir_value *z = tir_lib_zeros(b, TIR_F32, s);
    tir_value *seven = tir_lib_full(b, s, tir_const_float(b, TIR_F32, 7));
    store_all(&k, out, tir_ew2(b, TIR_EW_ADD, z, seven));
    tir_dim *n = tir_dim_new(k.m, "n");
    tir_value *io = tir_lib_iota(b, n, 5);
    CHECK(io && io->type->elem == TIR_I64);
    tir_value *zero = ci(&k, 0);
    tir_store_tile(b, iout, &zero, io, TIR_BOUNDS_ZERO);
    float o[12];
    int64_t iv[5];
    tir_buffer args[2] = {buf(o, sizeof o), buf(iv, sizeof iv)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    for (int i = 0; i < 12; i++) CHECK(o[i] == 7.0f);
    for (int i = 0; i < 5; i++) CHECK(iv[i] == i);
    kernel_close(&k);
}

static void test_relabel_broadcast(void) {
    kernel k = kernel_open("rb");
    tir_value *x = view2(&k, "X", TIR_F32, 2, 3, true);
    tir_value *row = view2(&k, "R", TIR_F32, 1, 3, true);
    tir_value *out = view2(&k, "O", TIR_F32, 2, 3, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *p = tir_dim_new(k.m, "p"), *q = tir_dim_new(k.m, "q"), *one = tir_dim_new(k.m, "one");
    tir_dim *u = tir_dim_new(k.m, "u"), *v = tir_dim_new(k.m, "v");
    tir_value *xt = load_all(&k, x, sp2(&k, p, 2, q, 3));
    tir_value *rt = load_all(&k, row, sp2(&k, one, 1, q, 3));
    /* broadcast the [one=1, q=3] row over [one=2, q=3]: rows repeat */
    tir_value *bc = tir_lib_broadcast_to(b, rt, sp2(&k, one, 2, q, 3));
    tir_value *rl = tir_lib_relabel(b, xt, sp2(&k, u, 2, v, 3));
    tir_value *bcr = tir_lib_relabel(b, bc, sp2(&k, u, 2, v, 3));
    store_all(&k, out, tir_ew2(b, TIR_EW_ADD, rl, bcr));
    float xs[6] = {1, 2, 3, 4, 5, 6}, rs[3] = {10, 20, 30}, o[6];
    tir_buffer args[3] = {buf(xs, sizeof xs), buf(rs, sizeof rs), buf(o, sizeof o)};
    CHECK(run(&k, 3, args) == TILEC_OK);
    for (int i = 0; i < 6; i++) CHECK(o[i] == xs[i] + rs[i % 3]);
    kernel_close(&k);

    /* preconditions are diagnosed */
    k = kernel_open("bad");
    view2(&k, "X", TIR_F32, 2, 3, true);
    b = kernel_body(&k);
    tir_dim *a = tir_dim_new(k.m, "a"), *d = tir_dim_new(k.m, "d");
    tir_value *t = tir_lib_zeros(b, TIR_F32, sp2(&k, a, 2, d, 3));
    CHECK(tir_lib_broadcast_to(b, t, sp2(&k, a, 4, d, 3)) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-L11"));
    kernel_close(&k);
    tilec_diag_clear(ctx);
    k = kernel_open("bad2");
    view2(&k, "X", TIR_F32, 2, 3, true);
    b = kernel_body(&k);
    a = tir_dim_new(k.m, "a"), d = tir_dim_new(k.m, "d");
    t = tir_lib_zeros(b, TIR_F32, sp2(&k, a, 2, d, 3));
    CHECK(tir_lib_relabel(b, t, sp2(&k, a, 3, d, 2)) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-L09"));
    kernel_close(&k);
    tilec_diag_clear(ctx);
}

/* matmul of A[2,3] and B[3,2]: named (shared dim) and positional (fresh k). */
static void test_matmul(bool positional) {
    kernel k = kernel_open("mm");
    tir_value *av = view2(&k, "A", TIR_F32, 2, 3, true);
    tir_value *bv = view2(&k, "B", TIR_F32, 3, 2, true);
    tir_value *cv = view2(&k, "C", TIR_F32, 2, 2, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *m = tir_dim_new(k.m, "m"), *kk = tir_dim_new(k.m, "k"), *n = tir_dim_new(k.m, "n");
    tir_dim *k2 = positional ? tir_dim_new(k.m, "k2") : kk;
    tir_value *a = load_all(&k, av, sp2(&k, m, 2, kk, 3));
    tir_value *bt = load_all(&k, bv, sp2(&k, k2, 3, n, 2));
    tir_value *c = tir_lib_matmul(b, a, bt);
    CHECK(c && c->type->space->rank == 2);
    store_all(&k, cv, c);
    float as[6] = {1, 2, 3, 4, 5, 6}, bs[6] = {7, 8, 9, 10, 11, 12}, cs[4];
    tir_buffer args[3] = {buf(as, sizeof as), buf(bs, sizeof bs), buf(cs, sizeof cs)};
    CHECK(run(&k, 3, args) == TILEC_OK);
    float want[4] = {58, 64, 139, 154};
    for (int i = 0; i < 4; i++) CHECK_MSG(cs[i] == want[i], "C[%d] = %g", i, cs[i]);
    kernel_close(&k);
}

/* reduce over the columns of X[2,3] with each reducer and policy. */
static void test_reduce(tir_reducer r, tir_reduction_policy policy) {
    kernel k = kernel_open("red");
    tir_value *x = view2(&k, "X", TIR_F32, 2, 3, true);
    tir_value *out = view1(&k, "O", TIR_F32, 2, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *rows = tir_dim_new(k.m, "rows"), *cols = tir_dim_new(k.m, "cols");
    tir_value *t = load_all(&k, x, sp2(&k, rows, 2, cols, 3));
    tir_value *red = tir_lib_reduce(b, t, 1, &cols, r, policy);
    CHECK(red && red->type->space->rank == 1 && red->type->space->axes[0].dim == rows);
    tir_value *zero = ci(&k, 0);
    tir_store_tile(b, out, &zero, red, TIR_BOUNDS_ZERO);
    float xs[6] = {3, -1, 2, -5, 4, 0}, o[2];
    tir_buffer args[2] = {buf(xs, sizeof xs), buf(o, sizeof o)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    for (int row = 0; row < 2; row++) {
        const float *v = xs + 3 * row;
        float want = r == TIR_REDUCER_ADD ? v[0] + v[1] + v[2]
                   : r == TIR_REDUCER_MAX ? fmaxf(fmaxf(v[0], v[1]), v[2])
                                          : fminf(fminf(v[0], v[1]), v[2]);
        CHECK_MSG(o[row] == want, "reducer %d policy %d row %d: %g != %g", (int)r, (int)policy, row, o[row], want);
    }
    kernel_close(&k);
}

static void test_ite(void) {
    kernel k = kernel_open("ite");
    tir_value *x = view1(&k, "X", TIR_F32, 4, true);
    tir_value *out = view1(&k, "O", TIR_F32, 4, false);
    tir_builder *b = kernel_body(&k);
    tir_dim *n = tir_dim_new(k.m, "n");
    uint64_t four = 4;
    tir_value *zero = ci(&k, 0);
    tir_value *t = tir_load_tile(b, x, &zero, tir_space_make(k.m, 1, &n, &four), TIR_BOUNDS_ZERO, NULL);
    tir_value *pos = tir_ew2(b, TIR_EW_GT, t, tir_const_float(b, TIR_F32, 0));
    tir_value *y = tir_lib_ite(b, pos, t, tir_const_float(b, TIR_F32, -1));
    tir_store_tile(b, out, &zero, y, TIR_BOUNDS_ZERO);
    float xs[4] = {2, -3, 0, 5}, o[4];
    tir_buffer args[2] = {buf(xs, sizeof xs), buf(o, sizeof o)};
    CHECK(run(&k, 2, args) == TILEC_OK);
    CHECK(o[0] == 2 && o[1] == -1 && o[2] == -1 && o[3] == 5);
    kernel_close(&k);
}

int main(void) {
    tilec_context_create(NULL, &ctx);
    test_zeros_full_iota();
    test_relabel_broadcast();
    test_matmul(false);
    test_matmul(true);
    for (int r = 0; r < 3; r++)
        for (int p = 0; p < TIR_REDUCE_POLICY_COUNT; p++) test_reduce((tir_reducer)r, (tir_reduction_policy)p);
    test_ite();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
