/* The TileIR verifier: well-formed kernels built with the builder verify clean;
 * then, for every rule TIR-V01..V25, valid IR is corrupted through the object
 * fields of src/tir/ir.h and the exact code must appear with a message naming
 * the op.  The capture diagnostics TIR-C01..C04 are exercised through the
 * capture API.  After each negative case the context must stay usable. */
#include "harness.h"
#include "tir/ir.h"

static tilec_context *ctx;

static const tilec_loc no_loc = {0};

/* ---- diagnostics helpers ---- */

static void dump_diags(void) { tilec_diag_print(ctx, stderr); }

static size_t count_code(const char *code) {
    size_t n = 0;
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) n += !strcmp(tilec_diag_at(ctx, i)->code, code);
    return n;
}

/* The first diagnostic with `code` whose message contains every needle. */
static const tilec_diag *find_diag(const char *code, const char *needle, const char *needle2) {
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        if (!strcmp(d->code, code) && strstr(d->message, needle) && (!needle2 || strstr(d->message, needle2))) return d;
    }
    return NULL;
}

static char op_ref_buf[64];
/* "'<name>' op #<id>": how messages name an op. */
static const char *op_ref(const char *name, const tir_op *op) {
    snprintf(op_ref_buf, sizeof op_ref_buf, "'%s' op #%u", name, op->id);
    return op_ref_buf;
}

/* ---- shapes ---- */

static tir_space *space1(tir_module *m, tir_dim *d, uint64_t e) { return tir_space_make(m, 1, &d, &e); }

static tir_space *space2(tir_module *m, tir_dim *d0, uint64_t e0, tir_dim *d1, uint64_t e1) {
    tir_dim *dims[2] = {d0, d1};
    uint64_t ext[2] = {e0, e1};
    return tir_space_make(m, 2, dims, ext);
}

static void name(tir_module *m, tir_value *v, const char *n) { CHECK(tir_value_set_name(m, v, n)); }

/* ---- well-formed kernels ---- */

typedef struct {
    tir_module *m;
    tir_func *f;
    tir_value *A, *B, *C, *m0, *c8, *one, *a, *nx, *acc;
    tir_op *par, *pipe, *stage, *load_a, *load_b, *mma, *store, *mul_m0, *mul_n0, *mul_k0;
} gemm_kernel;

/* C[64,80] = A[64,48] · B[48,80] in 8×8×8 blocks with a 2-stage pipeline.  The
 * mma is located at gemm.tir:12:7 as if parsed. */
static gemm_kernel build_gemm(void) {
    gemm_kernel g;
    g.m = tir_module_create(ctx);
    tir_module *m = g.m;
    g.f = tir_func_new(m, "gemm");
    uint64_t ea[2] = {64, 48}, eb[2] = {48, 80}, ec[2] = {64, 80};
    g.A = tir_func_add_view(g.f, "A", TIR_F32, 2, ea, true);
    g.B = tir_func_add_view(g.f, "B", TIR_F32, 2, eb, true);
    g.C = tir_func_add_view(g.f, "C", TIR_F32, 2, ec, false);
    tir_builder *b = tir_builder_create(g.f);
    tir_dim *gm = tir_dim_new(m, "gm"), *gn = tir_dim_new(m, "gn"), *kt = tir_dim_new(m, "kt");
    tir_dim *dm = tir_dim_new(m, "m"), *dn = tir_dim_new(m, "n"), *dk = tir_dim_new(m, "k");
    g.par = tir_region_begin(b, TIR_OP_PARALLEL, space2(m, gm, 8, gn, 10), NULL, 0, NULL);
    g.c8 = tir_const_index(b, 8);
    g.one = tir_const_float(b, TIR_F32, 1.0);
    g.m0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(g.par, 0), g.c8);
    name(m, g.m0, "m0");
    tir_value *n0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(g.par, 1), g.c8);
    tir_value *z = tir_lib_zeros(b, TIR_F32, space2(m, dm, 8, dn, 8));
    tir_region_opts opts = {.stages = 2, .initiation_interval = 1};
    g.pipe = tir_region_begin(b, TIR_OP_PIPELINE, space1(m, kt, 6), &opts, 1, &z);
    tir_stage(b, "load");
    tir_value *k0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(g.pipe, 0), g.c8);
    tir_value *oa[2] = {g.m0, k0}, *ob[2] = {k0, n0};
    g.a = tir_load_tile(b, g.A, oa, space2(m, dm, 8, dk, 8), TIR_BOUNDS_ZERO, NULL);
    tir_value *bt = tir_load_tile(b, g.B, ob, space2(m, dk, 8, dn, 8), TIR_BOUNDS_ZERO, NULL);
    tir_stage(b, "compute");
    tir_builder_set_loc(b, (tilec_loc){"gemm.tir", 12, 7});
    g.nx = tir_mma(b, g.a, bt, tir_region_carry(g.pipe, 0), true);
    tir_builder_set_loc(b, no_loc);
    name(m, g.nx, "nx");
    tir_region_end(b, g.pipe, 1, &g.nx);
    g.acc = tir_op_result(g.pipe, 0);
    name(m, g.acc, "acc");
    tir_value *oc[2] = {g.m0, n0};
    tir_store_tile(b, g.C, oc, g.acc, TIR_BOUNDS_ZERO);
    tir_region_end(b, g.par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    g.stage = tir_block_first(tir_op_body(g.pipe));
    g.load_a = tir_value_def(g.a);
    g.load_b = tir_value_def(bt);
    g.mma = tir_value_def(g.nx);
    g.store = tir_op_prev(tir_block_last(tir_op_body(g.par)));
    g.mul_m0 = tir_value_def(g.m0);
    g.mul_n0 = tir_value_def(n0);
    g.mul_k0 = tir_value_def(k0);
    return g;
}

typedef struct {
    tir_module *m;
    tir_func *f;
    tir_value *X, *Y, *row, *c0, *zero, *x, *d;
    tir_op *par, *probe, *map, *reduce, *extract, *sub;
} softmax_kernel;

/* Row softmax over a [17, 65] view: load a row, subtract its max, exponentiate,
 * divide by the sum.  `probe` is an unused scalar load before the maps. */
static softmax_kernel build_softmax(void) {
    softmax_kernel s;
    s.m = tir_module_create(ctx);
    tir_module *m = s.m;
    s.f = tir_func_new(m, "softmax");
    uint64_t ext[2] = {17, 65};
    s.X = tir_func_add_view(s.f, "X", TIR_F32, 2, ext, true);
    s.Y = tir_func_add_view(s.f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(s.f);
    tir_dim *rows = tir_dim_new(m, "rows"), *one = tir_dim_new(m, "one"), *cols = tir_dim_new(m, "cols");
    s.par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, rows, 17), NULL, 0, NULL);
    s.row = tir_region_coord(s.par, 0);
    s.c0 = tir_const_index(b, 0);
    s.zero = tir_const_float(b, TIR_F32, 0.0);
    tir_value *origin[2] = {s.row, s.c0};
    s.probe = tir_value_def(tir_load_elem(b, s.X, origin, NULL, NULL));
    s.x = tir_load_tile(b, s.X, origin, space2(m, one, 1, cols, 65), TIR_BOUNDS_ZERO, s.zero);
    tir_value *mx = tir_lib_reduce(b, s.x, 1, &cols, TIR_REDUCER_MAX, TIR_REDUCE_UNORDERED_TREE);
    s.d = tir_ew2(b, TIR_EW_SUB, s.x, mx);
    name(m, s.d, "d");
    tir_value *e = tir_ew1(b, TIR_EW_EXP, s.d);
    tir_value *sum = tir_lib_reduce(b, e, 1, &cols, TIR_REDUCER_ADD, TIR_REDUCE_FOLD_LEFT);
    tir_value *y = tir_ew2(b, TIR_EW_DIV, e, sum);
    tir_store_tile(b, s.Y, origin, y, TIR_BOUNDS_ZERO);
    tir_region_end(b, s.par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    s.map = tir_value_def(mx);
    s.reduce = tir_op_next(tir_block_first(tir_op_body(s.map))); /* after the seed constant */
    s.extract = tir_block_first(tir_op_body(s.reduce));
    s.sub = tir_value_def(s.d);
    CHECK(s.map->kind == TIR_OP_MAP && s.reduce->kind == TIR_OP_REDUCE && s.extract->kind == TIR_OP_EXTRACT);
    return s;
}

typedef struct {
    tir_module *m;
    tir_func *f;
    tir_value *m0, *lm, *rm, *lacc, *racc;
    tir_op *par, *reduce, *load, *max, *add, *yield, *store;
} combine_kernel;

/* Online (max, sum) state over the rows of a [4, 64] view: a reduce with a
 * scalar and a tile carry, and a combine block merging two states. */
static combine_kernel build_combine(void) {
    combine_kernel k;
    k.m = tir_module_create(ctx);
    tir_module *m = k.m;
    k.f = tir_func_new(m, "online");
    uint64_t ext[2] = {4, 64};
    tir_value *X = tir_func_add_view(k.f, "X", TIR_F32, 2, ext, true);
    tir_value *Y = tir_func_add_view(k.f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(k.f);
    tir_dim *rows = tir_dim_new(m, "rows"), *n = tir_dim_new(m, "n"), *d = tir_dim_new(m, "d");
    k.par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, rows, 4), NULL, 0, NULL);
    tir_value *row = tir_region_coord(k.par, 0);
    k.m0 = tir_const_float(b, TIR_F32, -1e30);
    tir_value *init[2] = {k.m0, tir_lib_zeros(b, TIR_F32, space1(m, d, 4))};
    k.reduce = tir_region_begin(b, TIR_OP_REDUCE, space1(m, n, 64), NULL, 2, init);
    tir_value *at[2] = {row, tir_region_coord(k.reduce, 0)};
    tir_value *x = tir_load_elem(b, X, at, NULL, NULL);
    tir_value *next[2] = {tir_ew2(b, TIR_EW_MAX, tir_region_carry(k.reduce, 0), x),
                          tir_ew2(b, TIR_EW_ADD, tir_region_carry(k.reduce, 1), x)};
    tir_region_end(b, k.reduce, 2, next);
    tir_combine_begin(b, k.reduce);
    k.lm = tir_combine_arg(k.reduce, 0);
    k.lacc = tir_combine_arg(k.reduce, 1);
    k.rm = tir_combine_arg(k.reduce, 2);
    k.racc = tir_combine_arg(k.reduce, 3);
    name(m, k.lm, "lm");
    name(m, k.racc, "racc");
    tir_value *merged[2] = {tir_ew2(b, TIR_EW_MAX, k.lm, k.rm), tir_ew2(b, TIR_EW_ADD, k.lacc, k.racc)};
    tir_combine_end(b, k.reduce, 2, merged);
    tir_value *z = tir_const_index(b, 0);
    tir_value *out[2] = {row, z};
    tir_store_elem(b, Y, out, tir_op_result(k.reduce, 0));
    tir_region_end(b, k.par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    if (tir_builder_status(b) != TILEC_OK) dump_diags();
    tir_builder_destroy(b);
    k.load = tir_value_def(x);
    k.max = tir_value_def(merged[0]);
    k.add = tir_value_def(merged[1]);
    k.yield = tir_block_last(tir_op_combine(k.reduce));
    k.store = tir_op_prev(tir_block_last(tir_op_body(k.par)));
    CHECK(k.store->kind == TIR_OP_VIEW_STORE && k.yield->kind == TIR_OP_YIELD);
    return k;
}

/* Scalar element loads, one masked: Y[i, 0] = (i < 3 ? X[i, 0] : -1) + X[i, 0]. */
static tir_module *build_masked(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "masked");
    uint64_t ext[2] = {5, 4};
    tir_value *X = tir_func_add_view(f, "X", TIR_F32, 2, ext, true);
    tir_value *Y = tir_func_add_view(f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(f);
    tir_dim *i = tir_dim_new(m, "i");
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, i, 5), NULL, 0, NULL);
    tir_value *row = tir_region_coord(par, 0);
    tir_value *idx[2] = {row, tir_const_index(b, 0)};
    tir_value *pred = tir_ew2(b, TIR_EW_LT, row, tir_const_index(b, 3));
    tir_value *masked = tir_load_elem(b, X, idx, pred, tir_const_float(b, TIR_F32, -1.0));
    tir_value *plain = tir_load_elem(b, X, idx, NULL, NULL);
    tir_store_elem(b, Y, idx, tir_ew2(b, TIR_EW_ADD, masked, plain));
    tir_region_end(b, par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    return m;
}

/* Library sugar, capture loops, casts, selects, scopes and policies: every
 * expansion the builder produces must verify. */
static tir_module *build_library(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "library");
    uint64_t ext[2] = {4, 4};
    tir_value *X = tir_func_add_view(f, "X", TIR_F32, 2, ext, true);
    tir_value *Y = tir_func_add_view(f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(f);
    tir_dim *p = tir_dim_new(m, "p"), *w = tir_dim_new(m, "w"), *r = tir_dim_new(m, "r"), *c = tir_dim_new(m, "c");
    tir_dim *q = tir_dim_new(m, "q"), *t = tir_dim_new(m, "t");
    tir_region_opts outer = {.scope = TIR_SCOPE_GROUP}, inner = {.scope = TIR_SCOPE_WORKER};
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, p, 1), &outer, 0, NULL);
    tir_op *wk = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, w, 1), &inner, 0, NULL);
    tir_value *c0 = tir_const_index(b, 0);
    tir_value *origin[2] = {c0, c0};
    tir_value *x = tir_load_tile(b, X, origin, space2(m, r, 4, c, 4), TIR_BOUNDS_ASSUME, NULL);
    tir_value *iota = tir_lib_iota(b, c, 4);                                     /* tile<i64>[c=4] */
    tir_value *mask = tir_ew2(b, TIR_EW_LE, iota, tir_const_int(b, TIR_I64, 2)); /* tile<bool>[c=4] */
    tir_value *sel = tir_select(b, mask, x, tir_lib_full(b, space2(m, r, 4, c, 4), tir_const_float(b, TIR_F32, 0)));
    tir_value *xt = tir_lib_relabel(b, x, space2(m, q, 4, t, 4));
    tir_value *mm = tir_lib_matmul(b, sel, xt); /* (r,c)·(q,t): the positional fallback */
    tir_value *rl = tir_lib_relabel(b, mm, space2(m, q, 4, t, 4));
    tir_value *back = tir_lib_relabel(b, rl, space2(m, r, 4, c, 4));
    tir_value *col = tir_lib_reduce(b, back, 1, &c, TIR_REDUCER_MIN, TIR_REDUCE_FOLD_RIGHT); /* [r=4] */
    tir_value *bc = tir_lib_broadcast_to(b, col, space2(m, r, 4, c, 4));
    tir_value *as_f64 = tir_cast(b, bc, TIR_F64);
    tir_value *again = tir_cast(b, as_f64, TIR_F32);
    /* a capture loop with a swap: old = a; a = a + s; s = old */
    tir_var *acc = tir_var_new(b, again), *other = tir_var_new(b, x);
    tir_op *loop = tir_capture_begin(b, TIR_OP_SERIAL, space1(m, t, 3), NULL);
    tir_value *old = tir_var_get(b, acc);
    tir_var_set(b, acc, tir_ew2(b, TIR_EW_ADD, tir_var_get(b, acc), tir_var_get(b, other)));
    tir_var_set(b, other, old);
    CHECK(tir_capture_end(b, loop) == TILEC_OK);
    tir_value *i32 = tir_cast(b, tir_ew2(b, TIR_EW_ADD, c0, tir_const_index(b, 1)), TIR_I32);
    tir_value *scalar = tir_ew2(b, TIR_EW_MOD, i32, tir_const_int(b, TIR_I32, 3));
    tir_value *neg = tir_ew1(b, TIR_EW_NEG, scalar);
    tir_value *e = tir_extract(b, tir_var_get(b, acc), 2, (tir_value *[]){c0, neg});
    tir_value *fin = tir_ew2(b, TIR_EW_ADD, tir_var_get(b, acc), e);
    tir_store_tile(b, Y, origin, fin, TIR_BOUNDS_ZERO);
    tir_region_end(b, wk, 0, NULL);
    tir_region_end(b, par, 0, NULL);
    CHECK_MSG(tir_builder_status(b) == TILEC_OK, "library kernel failed to build");
    if (tir_builder_status(b) != TILEC_OK) dump_diags();
    tir_builder_destroy(b);
    return m;
}

static void expect_clean(tir_module *m, const char *what) {
    tilec_diag_clear(ctx);
    tilec_status st = tir_verify(ctx, m);
    CHECK_MSG(st == TILEC_OK && tilec_diag_count(ctx) == 0, "%s: expected to verify clean, got %s", what,
              tilec_status_name(st));
    if (tilec_diag_count(ctx)) dump_diags();
}

/* After a negative case: the context still works and a fresh module is clean. */
static void context_still_usable(void) {
    tilec_diag_clear(ctx);
    CHECK(tilec_diag_count(ctx) == 0);
    tir_module *m = build_masked();
    expect_clean(m, "fresh module after a negative case");
    tir_module_destroy(m);
}

/* Verifies `m`, requires TILEC_E_VERIFY and a diagnostic `code` containing both
 * needles, destroys `m` and checks the context is still usable.  Returns the
 * number of diagnostics for further checks by the caller (taken before clearing). */
static size_t expect_violation(tir_module *m, const char *code, const char *needle, const char *needle2) {
    tilec_diag_clear(ctx);
    CHECK(tir_verify(ctx, m) == TILEC_E_VERIFY);
    const tilec_diag *d = find_diag(code, needle, needle2);
    CHECK_MSG(d != NULL, "no %s diagnostic containing '%s'%s%s", code, needle, needle2 ? " and " : "",
              needle2 ? needle2 : "");
    if (!d) dump_diags();
    if (d) CHECK(d->status == TILEC_E_VERIFY);
    size_t n = tilec_diag_count(ctx);
    tir_module_destroy(m);
    context_still_usable();
    return n;
}

static void test_well_formed(void) {
    gemm_kernel g = build_gemm();
    expect_clean(g.m, "gemm");
    tir_module_destroy(g.m);
    softmax_kernel s = build_softmax();
    expect_clean(s.m, "softmax");
    tir_module_destroy(s.m);
    tir_module *m = build_masked();
    expect_clean(m, "masked loads");
    tir_module_destroy(m);
    m = build_library();
    expect_clean(m, "library expansions");
    tir_module_destroy(m);
    combine_kernel k = build_combine();
    expect_clean(k.m, "combine block");
    tir_module_destroy(k.m);
    /* Two kernels in one module and an empty module. */
    m = tir_module_create(ctx);
    tir_func_new(m, "empty");
    tir_func_new(m, "other");
    expect_clean(m, "empty kernels");
    tir_module_destroy(m);
}

/* A kernel with no parameters and an open parallel, for capture and scopes. */
typedef struct {
    tir_module *m;
    tir_builder *b;
    tir_op *par;
} capture_fixture;

static capture_fixture open_capture(void) {
    capture_fixture c;
    c.m = tir_module_create(ctx);
    tir_func *f = tir_func_new(c.m, "capture");
    c.b = tir_builder_create(f);
    tir_dim *p = tir_dim_new(c.m, "p");
    c.par = tir_region_begin(c.b, TIR_OP_PARALLEL, space1(c.m, p, 2), NULL, 0, NULL);
    return c;
}

/* ---- one negative test per rule ---- */

static void test_v01_kernels(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *a = tir_func_new(m, "a");
    tir_func *b = tir_func_new(m, "b");
    (void)a;
    b->name = "a";
    expect_violation(m, "TIR-V01", "kernel '@a': the name is also used by kernel #0", NULL);
    /* Kernel parameters are exactly the views. */
    m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "k");
    tir_block_add_arg(f->body, tir_type_index(m));
    expect_violation(m, "TIR-V01", "kernel '@k': parameter 0", "must be views, not index");
}

static void test_v02_parents(void) {
    gemm_kernel g = build_gemm();
    g.mma->parent = tir_op_body(g.par); /* listed in the pipeline body */
    expect_violation(g.m, "TIR-V02", op_ref("mma", g.mma), "parent pointer does not name the block");
    /* A cyclic op list: the mma's next link points back to the stage. */
    g = build_gemm();
    g.mma->next = g.stage;
    size_t n = expect_violation(g.m, "TIR-V02", op_ref("stage", g.stage), "is listed twice");
    CHECK(n == 1);
}

static void test_v03_ids(void) {
    gemm_kernel g = build_gemm();
    g.load_b->id = g.load_a->id;
    expect_violation(g.m, "TIR-V03", op_ref("load", g.load_b), "is also the id of another op, 'load'");
    /* An out-of-range id on an op whose list loops back to it: one V03, one V02. */
    g = build_gemm();
    g.mma->id = 1000;
    g.mma->next = g.mma;
    size_t n = expect_violation(g.m, "TIR-V03", "'mma' op #1000", "op id 1000 is out of range");
    CHECK(n == 2);
}

static void test_v04_results(void) {
    gemm_kernel g = build_gemm();
    tir_module *other = tir_module_create(ctx);
    tir_dim *d = tir_dim_new(other, "m");
    g.nx->type = tir_type_tile(other, TIR_F32, space2(other, d, 8, tir_dim_new(other, "n"), 8));
    /* One fault, one diagnostic: the yield using %nx skips its typing rule. */
    size_t n = expect_violation(g.m, "TIR-V04", "'%nx' (result 0 of 'mma' op #", "belongs to another module");
    CHECK(n == 1);
    tir_module_destroy(other);
}

static void test_v05_block_args(void) {
    gemm_kernel g = build_gemm();
    tir_op_body(g.pipe)->args[0]->index = 5;
    size_t n = expect_violation(g.m, "TIR-V05", "argument 5 of the body of 'pipeline' op #", "block argument 0");
    CHECK(n == 1);
}

static void test_v06_attributes(void) {
    gemm_kernel g = build_gemm();
    g.stage->stage_name = "";
    expect_violation(g.m, "TIR-V06", op_ref("stage", g.stage), "stage name is empty");
}

static void test_v07_operand_records(void) {
    gemm_kernel g = build_gemm();
    tir_op_set_operand(g.mma, 1, NULL);
    expect_violation(g.m, "TIR-V07", op_ref("mma", g.mma), "operand 1 is missing");
    /* An operand whose use is not in its value's use list. */
    g = build_gemm();
    tir_use *u = g.mma->operands[0];
    CHECK(g.a->uses == u && u->next == NULL); /* %a's only use is the mma */
    g.a->uses = NULL;
    g.a->use_count = 0;
    size_t n = expect_violation(g.m, "TIR-V07", op_ref("mma", g.mma), "operand 0 (value #");
    CHECK(n == 1);
}

static void test_v08_visibility(void) {
    /* Move an op after its users. */
    gemm_kernel g = build_gemm();
    tir_op_move_before(g.mul_m0, tir_block_last(tir_op_body(g.par)));
    size_t n = expect_violation(g.m, "TIR-V08", op_ref("load", g.load_a),
                                "operand 1 ('%m0') is used before its definition by 'mul' op #");
    /* The load and the store both use %m0; nothing else is reported. */
    CHECK(n == 2);
    /* A value from inside a region used after it. */
    g = build_gemm();
    tir_op_set_operand(g.store, 3, g.nx);
    expect_violation(g.m, "TIR-V08", op_ref("store", g.store), "('%nx') is defined in the body of 'pipeline' op #");
    /* A region's own result used inside its body. */
    g = build_gemm();
    tir_op *yield = tir_block_last(tir_op_body(g.pipe));
    tir_op_set_operand(yield, 0, g.acc);
    expect_violation(g.m, "TIR-V08", op_ref("yield", yield),
                     "('%acc') is a result of this op or of an op enclosing it");
}

static void test_v09_use_lists(void) {
    gemm_kernel g = build_gemm();
    g.nx->use_count++;
    expect_violation(g.m, "TIR-V09", "'%nx' (result 0 of 'mma' op #", "use count says 2 but its use list holds 1");
    /* An operand naming a value of another kernel. */
    g = build_gemm();
    tir_func *other = tir_func_new(g.m, "other");
    uint64_t e[2] = {64, 48};
    tir_value *foreign = tir_func_add_view(other, "A2", TIR_F32, 2, e, true);
    tir_op_set_operand(g.load_a, 0, foreign);
    size_t n =
        expect_violation(g.m, "TIR-V09", op_ref("load", g.load_a), "operand 0 ('%A2') belongs to kernel '@other'");
    CHECK(n == 1); /* not reported again from @other's use list */
    /* A stale use: the list of %nx also holds a use by a detached op. */
    g = build_gemm();
    tir_op *copy = tir_op_new(g.f, TIR_OP_YIELD, no_loc);
    tir_op_add_operand(copy, g.nx);
    tir_use *stale = copy->operands[0];
    stale->next = g.nx->uses;
    g.nx->uses->prev = stale;
    g.nx->uses = stale;
    stale->linked = true;
    g.nx->use_count++;
    expect_violation(g.m, "TIR-V09", "'%nx' (result 0 of 'mma' op #", "a stale or corrupted use by op #");
}

static void test_v10_kinds(void) {
    gemm_kernel g = build_gemm();
    g.mma->kind = (tir_op_kind)99;
    expect_violation(g.m, "TIR-V10", op_ref("invalid", g.mma), "unknown op kind 99");
}

static void test_v11_constants(void) {
    gemm_kernel g = build_gemm();
    tir_op *c8 = tir_value_def(g.c8);
    c8->literal = (tir_literal){TIR_LIT_FLOAT, {.f = 8.5}};
    expect_violation(g.m, "TIR-V11", op_ref("const", c8), "cannot take a fractional literal");
}

static void test_v12_elementwise(void) {
    /* Swap an operand for a wrong-typed value. */
    gemm_kernel g = build_gemm();
    tir_op_set_operand(g.mul_m0, 1, g.one);
    expect_violation(g.m, "TIR-V12", op_ref("mul", g.mul_m0), "operand element types differ (i64 and f32");
    /* A stored result type that is not the identity join (axes reordered). */
    softmax_kernel s = build_softmax();
    tir_space *sp = s.x->type->space;
    s.d->type = tir_type_tile(s.m, TIR_F32, space2(s.m, sp->axes[1].dim, 65, sp->axes[0].dim, 1));
    expect_violation(s.m, "TIR-V12", op_ref("sub", s.sub), "is not what its operands");
    /* Index arithmetic gives index, not i64. */
    g = build_gemm();
    g.mul_n0->results[0]->type = tir_type_scalar(g.m, TIR_I64);
    expect_violation(g.m, "TIR-V12", op_ref("mul", g.mul_n0),
                     "its result type i64 is not what its operands (index, index)");
}

static void test_v13_extract(void) {
    softmax_kernel s = build_softmax();
    tir_op_set_operand(s.extract, 2, s.zero);
    expect_violation(s.m, "TIR-V13", op_ref("extract", s.extract),
                     "operand 2 must be an index or integer scalar, not f32");
}

static void test_v14_map(void) {
    softmax_kernel s = build_softmax();
    tir_dim *other = tir_dim_new(s.m, "other");
    s.map->domain = space1(s.m, other, 1);
    expect_violation(s.m, "TIR-V14", op_ref("map", s.map), "domain differs from the space of its result");
}

static void test_v15_mma(void) {
    gemm_kernel g = build_gemm();
    tir_op_set_operand(g.mma, 0, tir_op_result(g.load_b, 0)); /* b·b: 'm' of c is contracted with nothing */
    const tilec_diag *d;
    tilec_diag_clear(ctx);
    CHECK(tir_verify(ctx, g.m) == TILEC_E_VERIFY);
    d = find_diag("TIR-V15", op_ref("mma", g.mma), "dimension 'm' of c appears in neither");
    CHECK(d != NULL);
    /* The parsed location of the op is the diagnostic's. */
    CHECK(d && d->loc.file && !strcmp(d->loc.file, "gemm.tir") && d->loc.line == 12 && d->loc.column == 7);
    tir_module_destroy(g.m);
    context_still_usable();
}

static void test_v16_access(void) {
    gemm_kernel g = build_gemm();
    g.C->read_only = true;
    expect_violation(g.m, "TIR-V16", op_ref("store", g.store), "stores through '%C', a read-only (const) view");
    /* A load whose result type is not tile(view elem, tile space). */
    g = build_gemm();
    g.load_a->domain = tir_type_space(g.load_b->results[0]->type);
    expect_violation(g.m, "TIR-V16", op_ref("load", g.load_a), "its result must be a tile<f32> over its tile space");
}

static void test_v17_unknown_types(void) {
    gemm_kernel g = build_gemm();
    static tir_type memory_like = {.kind = (tir_type_kind)9};
    tir_value *k0 = tir_op_result(g.mul_k0, 0);
    k0->type = &memory_like;
    size_t n = expect_violation(g.m, "TIR-V17", "(result 0 of 'mul' op #", "type of unknown kind");
    CHECK(n == 1); /* the loads using it are skipped */
}

static void test_v18_regions(void) {
    gemm_kernel g = build_gemm();
    tir_dim *x = tir_dim_new(g.m, "x"), *y = tir_dim_new(g.m, "y");
    g.pipe->domain = space2(g.m, x, 3, y, 2);
    expect_violation(g.m, "TIR-V18", op_ref("pipeline", g.pipe), "its body has 2 arguments, but a domain of rank 2");
    /* A parallel carrying a value. */
    g = build_gemm();
    tir_op_add_operand(g.par, g.A);
    expect_violation(g.m, "TIR-V18", op_ref("parallel", g.par), "carries no values");
}

static void test_v19_yield(void) {
    gemm_kernel g = build_gemm();
    tir_op_detach(tir_block_last(tir_op_body(g.pipe)));
    expect_violation(g.m, "TIR-V19", op_ref("pipeline", g.pipe), "its body does not end with a yield");
    /* A yield that is not last. */
    g = build_gemm();
    tir_op *yield = tir_block_last(tir_op_body(g.par));
    tir_op_move_before(yield, g.store);
    expect_violation(g.m, "TIR-V19", op_ref("yield", yield), "not the last op of its block");
    /* The kernel body has no terminator. */
    g = build_gemm();
    tir_op *extra = tir_op_new(g.f, TIR_OP_YIELD, no_loc);
    tir_op_insert_end(extra, tir_func_body(g.f));
    expect_violation(g.m, "TIR-V19", op_ref("yield", extra), "in the kernel body, which has no terminator");
}

static void test_v20_stage(void) {
    gemm_kernel g = build_gemm();
    /* A serial loop in the parallel body, then the pipeline's stage moved into it. */
    tir_builder *b = tir_builder_create(g.f);
    tir_dim *t = tir_dim_new(g.m, "t");
    tir_op *ser = tir_region_begin(b, TIR_OP_SERIAL, space1(g.m, t, 2), NULL, 0, NULL);
    tir_region_end(b, ser, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    tir_op_move_before(ser, tir_block_last(tir_op_body(g.par)));
    tir_op_move_before(g.stage, tir_block_last(tir_op_body(ser)));
    expect_violation(g.m, "TIR-V20", op_ref("stage", g.stage), "not in the body of 'serial' op #");
}

static void test_v21_placement(void) {
    softmax_kernel s = build_softmax();
    s.reduce->scope = TIR_SCOPE_WORKER;
    expect_violation(s.m, "TIR-V21", op_ref("reduce", s.reduce), "has execution scope 'worker', but only parallel");
    gemm_kernel g = build_gemm();
    g.mul_m0->domain = g.par->domain;
    expect_violation(g.m, "TIR-V21", op_ref("mul", g.mul_m0), "has a domain");
    g = build_gemm();
    g.load_a->masked = true;
    expect_violation(g.m, "TIR-V21", op_ref("load", g.load_a), "only scalar loads take a mask");
    /* Concrete parallel scopes do not nest outward: group inside worker. */
    capture_fixture c = open_capture();
    tir_region_opts group = {.scope = TIR_SCOPE_GROUP};
    tir_op *inner = tir_region_begin(c.b, TIR_OP_PARALLEL, space1(c.m, tir_dim_new(c.m, "q"), 2), &group, 0, NULL);
    tir_region_end(c.b, inner, 0, NULL);
    tir_region_end(c.b, c.par, 0, NULL);
    CHECK(tir_builder_status(c.b) == TILEC_OK);
    tir_builder_destroy(c.b);
    c.par->scope = TIR_SCOPE_WORKER;
    expect_violation(c.m, "TIR-V21", op_ref("parallel", inner), "scope 'group' cannot nest inside scope 'worker'");
}

static void test_v22_purity(void) {
    softmax_kernel s = build_softmax();
    /* Insert a load into a map body (its operands are visible there). */
    tir_op_move_before(s.probe, tir_block_last(tir_op_body(s.map)));
    expect_violation(s.m, "TIR-V22", op_ref("load", s.probe), "not allowed inside a map");
    /* At any depth: inside the reduce inside the map. */
    s = build_softmax();
    tir_op_move_before(s.probe, s.extract);
    expect_violation(s.m, "TIR-V22", op_ref("load", s.probe), "nested in 'map' op #");
}

static void test_v23_attributes(void) {
    gemm_kernel g = build_gemm();
    g.pipe->stages = UINT64_C(1) << 33;
    expect_violation(g.m, "TIR-V23", op_ref("pipeline", g.pipe), "stages=8589934592 does not fit in 32 bits");
    g = build_gemm();
    g.pipe->initiation_interval = 0;
    expect_violation(g.m, "TIR-V23", op_ref("pipeline", g.pipe), "ii=0 is outside [1, 4294967295]");
    softmax_kernel s = build_softmax();
    s.reduce->policy = (tir_reduction_policy)7;
    expect_violation(s.m, "TIR-V23", op_ref("reduce", s.reduce), "reduction policy 7");
}

static void test_v24_combine_placement(void) {
    /* A fold pins one order. */
    combine_kernel k = build_combine();
    k.reduce->policy = TIR_REDUCE_FOLD_LEFT;
    expect_violation(k.m, "TIR-V24", op_ref("reduce", k.reduce), "policy 'fold_left' pins one evaluation order");
    /* An argument typed unlike its carry. */
    k = build_combine();
    k.rm->type = k.lacc->type;
    expect_violation(k.m, "TIR-V24", op_ref("reduce", k.reduce), "combine argument 2 (right state, carry 0)");
    /* Too few arguments (the last one dropped). */
    k = build_combine();
    tir_op_combine(k.reduce)->arg_count = 3;
    expect_violation(k.m, "TIR-V24", op_ref("reduce", k.reduce), "its combine block has 3 arguments, but 2 carries");
    /* The merged state is yielded with the carry types (the yield rule). */
    k = build_combine();
    tir_op_set_operand(k.yield, 1, k.lm);
    expect_violation(k.m, "TIR-V19", op_ref("yield", k.yield), "yielded value 1 has type f32");
    k = build_combine();
    tir_op_detach(k.yield);
    expect_violation(k.m, "TIR-V19", op_ref("reduce", k.reduce), "its combine block does not end with a yield");
    /* Only reduces take one (rule 21). */
    k = build_combine();
    k.par->combine = tir_op_combine(k.reduce);
    k.reduce->combine = NULL;
    expect_violation(k.m, "TIR-V21", op_ref("parallel", k.par), "owns a combine block, but only reduce ops");
    /* Ops inside get every normal rule: ids, and values used outside it. */
    k = build_combine();
    k.add->id = k.max->id;
    expect_violation(k.m, "TIR-V03", op_ref("add", k.add), "is also the id of another op, 'max'");
    k = build_combine();
    tir_op_set_operand(k.store, 3, tir_op_result(k.max, 0));
    expect_violation(k.m, "TIR-V08", op_ref("store", k.store), "is defined in the combine block of 'reduce' op #");
}

static void test_v25_combine_closure(void) {
    /* An outer value (visible to the reduce) used inside the combine block. */
    combine_kernel k = build_combine();
    tir_op_set_operand(k.max, 1, k.m0);
    size_t n = expect_violation(k.m, "TIR-V25", "is defined in the body of 'parallel' op #",
                                "outside the combine block of 'reduce' op #");
    CHECK(n == 1);
    /* A load moved inside: a memory effect, and its operands come from outside. */
    k = build_combine();
    tir_op *load = k.load;
    tir_value *x = tir_op_result(load, 0);
    /* keep the body valid: its users now read the carry instead */
    tir_value_replace_all_uses(x, tir_region_carry(k.reduce, 0));
    tir_op_move_before(load, k.yield);
    n = expect_violation(k.m, "TIR-V25", op_ref("load", load), "memory effects are not allowed inside a combine block");
    CHECK(n == 4); /* the effect and its three operands (X, the row, the reduce's coordinate) */
    /* A loop inside, at any depth. */
    k = build_combine();
    tir_dim *t = tir_dim_new(k.m, "t");
    tir_op *loop = tir_op_new(k.f, TIR_OP_SERIAL, no_loc);
    loop->domain = space1(k.m, t, 2);
    loop->body = tir_block_new(k.f, loop);
    tir_block_add_arg(loop->body, tir_type_index(k.m));
    tir_op_insert_end(tir_op_new(k.f, TIR_OP_YIELD, no_loc), loop->body);
    tir_op_insert_before(loop, k.yield);
    expect_violation(k.m, "TIR-V25", op_ref("serial", loop), "loops, parallel and if regions are not allowed");
}

/* Every violation is reported, not just the first. */
static void test_reports_all(void) {
    gemm_kernel g = build_gemm();
    g.pipe->stages = UINT64_C(1) << 40;
    g.stage->stage_name = "";
    g.C->read_only = true;
    tilec_diag_clear(ctx);
    CHECK(tir_verify(ctx, g.m) == TILEC_E_VERIFY);
    CHECK(count_code("TIR-V23") == 1 && count_code("TIR-V06") == 1 && count_code("TIR-V16") == 1);
    CHECK(tilec_diag_count(ctx) == 3);
    tir_module_destroy(g.m);
    context_still_usable();
}

/* ---- capture diagnostics (raised by the builder) ---- */

static void expect_capture_error(capture_fixture *c, const char *code, const char *needle) {
    CHECK(tir_builder_status(c->b) != TILEC_OK);
    const tilec_diag *d = find_diag(code, needle, NULL);
    CHECK_MSG(d != NULL, "no %s diagnostic containing '%s'", code, needle);
    if (!d) dump_diags();
    tir_builder_destroy(c->b);
    tir_module_destroy(c->m);
    context_still_usable();
}

static void test_capture_codes(void) {
    tilec_diag_clear(ctx);
    /* C01: mutating an outer variable inside a parallel. */
    capture_fixture c = open_capture();
    tir_var *a = tir_var_new(c.b, tir_const_float(c.b, TIR_F32, 1));
    tir_dim *q = tir_dim_new(c.m, "q");
    tir_op *inner = tir_capture_begin(c.b, TIR_OP_PARALLEL, space1(c.m, q, 3), NULL);
    tir_var_set(c.b, a, tir_const_float(c.b, TIR_F32, 2));
    CHECK(tir_capture_end(c.b, inner) != TILEC_OK);
    expect_capture_error(&c, "TIR-C01", "cannot mutate an outer variable inside a parallel");

    /* C02: a variable used after the region that declared it closed. */
    c = open_capture();
    tir_dim *t = tir_dim_new(c.m, "t");
    tir_op *loop = tir_capture_begin(c.b, TIR_OP_SERIAL, space1(c.m, t, 3), NULL);
    tir_var *local = tir_var_new(c.b, tir_const_index(c.b, 1));
    CHECK(tir_capture_end(c.b, loop) == TILEC_OK);
    CHECK(tir_var_get(c.b, local) == NULL);
    expect_capture_error(&c, "TIR-C02", "after the region that declared it closed");

    /* C03: an initial value that is not visible (defined in a closed region). */
    c = open_capture();
    loop = tir_capture_begin(c.b, TIR_OP_SERIAL, space1(c.m, t = tir_dim_new(c.m, "t"), 3), NULL);
    tir_value *inside = tir_const_index(c.b, 1);
    CHECK(tir_capture_end(c.b, loop) == TILEC_OK);
    CHECK(tir_var_new(c.b, inside) == NULL);
    expect_capture_error(&c, "TIR-C03", "visible initial value");

    /* C04: an assignment that changes the variable's type. */
    c = open_capture();
    a = tir_var_new(c.b, tir_const_float(c.b, TIR_F32, 1));
    CHECK(tir_var_set(c.b, a, tir_const_int(c.b, TIR_I32, 1)) != TILEC_OK);
    expect_capture_error(&c, "TIR-C04", "changes a variable's type");

    /* A completed capture verifies clean. */
    c = open_capture();
    a = tir_var_new(c.b, tir_const_float(c.b, TIR_F32, 1));
    loop = tir_capture_begin(c.b, TIR_OP_REDUCE, space1(c.m, tir_dim_new(c.m, "r"), 4), NULL);
    tir_var_set(c.b, a, tir_ew2(c.b, TIR_EW_ADD, tir_var_get(c.b, a), tir_var_get(c.b, a)));
    CHECK(tir_capture_end(c.b, loop) == TILEC_OK);
    CHECK(tir_region_end(c.b, c.par, 0, NULL) == TILEC_OK);
    expect_clean(c.m, "capture");
    tir_builder_destroy(c.b);
    tir_module_destroy(c.m);
}

static void test_bad_arguments(void) {
    CHECK(tir_verify(ctx, NULL) == TILEC_E_ARG);
    tir_module *m = tir_module_create(ctx);
    CHECK(tir_verify(NULL, m) == TILEC_E_ARG);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_well_formed();
    test_v01_kernels();
    test_v02_parents();
    test_v03_ids();
    test_v04_results();
    test_v05_block_args();
    test_v06_attributes();
    test_v07_operand_records();
    test_v08_visibility();
    test_v09_use_lists();
    test_v10_kinds();
    test_v11_constants();
    test_v12_elementwise();
    test_v13_extract();
    test_v14_map();
    test_v15_mma();
    test_v16_access();
    test_v17_unknown_types();
    test_v18_regions();
    test_v19_yield();
    test_v20_stage();
    test_v21_placement();
    test_v22_purity();
    test_v23_attributes();
    test_v24_combine_placement();
    test_v25_combine_closure();
    test_reports_all();
    test_capture_codes();
    test_bad_arguments();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
