/* Builder, spaces/join, capture, library expansions and combine blocks,
 * inspected structurally. */
#include "diag_util.h"
#include "harness.h"
#include "tir/ir.h"

static tilec_context *ctx;

static void test_spaces(void) {
    tir_module *m = tir_module_create(ctx);
    tir_dim *i = tir_dim_new(m, "i"), *j = tir_dim_new(m, "j"), *i2 = tir_dim_new(m, "i");
    CHECK(i != i2); /* identities, not labels */
    uint64_t e34[2] = {3, 4}, e14[2] = {1, 4}, e35[2] = {3, 5};
    tir_dim *ij[2] = {i, j}, *ji[2] = {j, i};
    tir_space *a = tir_space_make(m, 2, ij, e34);
    CHECK(a == tir_space_make(m, 2, ij, e34)); /* interned */
    CHECK(a != tir_space_make(m, 2, ji, e34)); /* ordered */
    tir_dim *dup[2] = {i, i};
    CHECK(tir_space_make(m, 2, dup, e34) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B02"));
    /* join: broadcast of a unit extent, widening, appending, conflict */
    tir_space *b1 = tir_space_make(m, 2, ij, e14);
    tir_space *pair[2] = {b1, a};
    CHECK(tir_space_join(m, 2, pair) == a);
    uint64_t e5 = 5;
    tir_dim *k = tir_dim_new(m, "k");
    tir_space *ks = tir_space_make(m, 1, &k, &e5);
    tir_space *pair2[2] = {a, ks};
    tir_space *joined = tir_space_join(m, 2, pair2);
    CHECK(joined && joined->rank == 3 && joined->axes[2].dim == k);
    tir_space *bad[2] = {a, tir_space_make(m, 2, ij, e35)};
    CHECK(tir_space_join(m, 2, bad) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B03"));
    /* positional spaces share dims counted from the right */
    tir_space *p34 = tir_space_positional(m, 2, e34), *p4 = tir_space_positional(m, 1, e34 + 1);
    CHECK(p34->axes[1].dim == p4->axes[0].dim);
    uint64_t v;
    CHECK(tir_space_volume(a, &v) && v == 12);
    uint64_t huge[2] = {UINT64_C(1) << 62, 4};
    CHECK(!tir_space_volume(tir_space_make(m, 2, ij, huge), &v));
    /* at or above 2^63 an extent is a runtime size's handle (docs/tir.md), and this module has none */
    uint64_t forged[2] = {UINT64_MAX, 2};
    CHECK(tir_space_make(m, 2, ij, forged) == NULL && !strcmp(last_diag_code(ctx), "TIR-B55"));
    tir_module_destroy(m);
}

/* A kernel with one view and a parallel over its rows. */
typedef struct {
    tir_module *m;
    tir_func *f;
    tir_builder *b;
    tir_value *x, *y;
    tir_op *par;
} fixture;

static fixture open_fixture(uint64_t rows, uint64_t cols) {
    fixture fx;
    fx.m = tir_module_create(ctx);
    fx.f = tir_func_new(fx.m, "k");
    uint64_t ext[2] = {rows, cols};
    fx.x = tir_func_add_view(fx.f, "X", TIR_F32, 2, ext, true);
    fx.y = tir_func_add_view(fx.f, "Y", TIR_F32, 2, ext, false);
    fx.b = tir_builder_create(fx.f);
    tir_dim *r = tir_dim_new(fx.m, "r");
    fx.par = tir_region_begin(fx.b, TIR_OP_PARALLEL, tir_space_make(fx.m, 1, &r, &rows), NULL, 0, NULL);
    return fx;
}

static void close_fixture(fixture *fx) {
    tir_builder_destroy(fx->b);
    tir_module_destroy(fx->m);
}

static void test_explicit_builder(void) {
    fixture fx = open_fixture(4, 8);
    tir_builder *b = fx.b;
    tir_value *row = tir_region_coord(fx.par, 0);
    tir_value *c2 = tir_const_index(b, 2);
    tir_value *sum = tir_ew2(b, TIR_EW_ADD, row, c2);
    CHECK(sum && sum->type->kind == TIR_TYPE_INDEX);
    tir_value *i64c = tir_const_int(b, TIR_I64, 3);
    CHECK(tir_ew2(b, TIR_EW_MUL, row, i64c)->type->kind == TIR_TYPE_INDEX);
    CHECK(tir_ew2(b, TIR_EW_LT, row, i64c)->type->elem == TIR_BOOL);
    tir_dim *one = tir_dim_new(fx.m, "one"), *cols = tir_dim_new(fx.m, "cols");
    tir_dim *dd[2] = {one, cols};
    uint64_t ee[2] = {1, 8};
    tir_space *rowspace = tir_space_make(fx.m, 2, dd, ee);
    tir_value *origin[2] = {row, tir_const_index(b, 0)};
    tir_value *x = tir_load_tile(b, fx.x, origin, rowspace, TIR_BOUNDS_ZERO, NULL);
    CHECK(x && x->type->space == rowspace && x->type->elem == TIR_F32);
    tir_value *mx = tir_lib_reduce(b, x, 1, &cols, TIR_REDUCER_MAX, TIR_REDUCE_UNORDERED_TREE);
    CHECK(mx && mx->type->space->rank == 1 && mx->type->space->axes[0].dim == one);
    tir_value *d = tir_ew2(b, TIR_EW_SUB, x, mx); /* broadcast back over cols */
    CHECK(d && d->type->space == rowspace);
    CHECK(tir_store_tile(b, fx.y, origin, tir_ew1(b, TIR_EW_EXP, d), TIR_BOUNDS_ZERO) == TILEC_OK);
    CHECK(tir_region_end(b, fx.par, 0, NULL) == TILEC_OK);
    CHECK(tir_builder_status(b) == TILEC_OK);
    CHECK(tir_block_last(tir_op_body(fx.par))->kind == TIR_OP_YIELD);
    /* use lists: row is used by add, mul, lt and the load origin */
    CHECK(row->use_count == 5);
    close_fixture(&fx);
}

static void test_builder_errors(void) {
    fixture fx = open_fixture(4, 8);
    tir_value *f = tir_const_float(fx.b, TIR_F32, 1.0);
    tir_value *i = tir_const_int(fx.b, TIR_I32, 1);
    CHECK(tir_ew2(fx.b, TIR_EW_ADD, f, i) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B13"));
    CHECK(tir_builder_status(fx.b) == TILEC_E_TYPE);
    /* sticky: later calls do nothing */
    CHECK(tir_const_index(fx.b, 1) == NULL);
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    tir_value *idx[2] = {tir_region_coord(fx.par, 0), tir_const_index(fx.b, 0)};
    CHECK(tir_store_elem(fx.b, fx.x, idx, tir_const_float(fx.b, TIR_F32, 0)) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B23")); /* const view */
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    tir_value *fl = tir_const_float(fx.b, TIR_F32, 2.0);
    CHECK(tir_ew2(fx.b, TIR_EW_MOD, fl, fl) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B15"));
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    tir_region_opts opts = {.scope = TIR_SCOPE_WORKER};
    uint64_t two = 2;
    tir_dim *t = tir_dim_new(fx.m, "t");
    CHECK(tir_region_begin(fx.b, TIR_OP_SERIAL, tir_space_make(fx.m, 1, &t, &two), &opts, 0, NULL) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B42")); /* scope belongs to parallel only */
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    CHECK(tir_const(fx.b, tir_type_scalar(fx.m, TIR_F32), (tir_literal){(tir_literal_kind)7, {.u = 0}}) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B08")); /* unknown literal kind */
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    CHECK(tir_if_begin(fx.b, tir_const_int(fx.b, TIR_I32, 1), 0, NULL) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B52")); /* an if needs a bool condition */
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    tir_value *init = tir_const_float(fx.b, TIR_F32, 1.0);
    tir_op *branch = tir_if_begin(fx.b, tir_const_bool(fx.b, true), 1, &init);
    CHECK(branch && tir_region_carry(branch, 0) && !tir_region_coord(branch, 0));
    CHECK(tir_region_end(fx.b, branch, 0, NULL) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B36")); /* one yield per carry */
    close_fixture(&fx);

    fx = open_fixture(4, 8);
    CHECK(tir_stage(fx.b, "load") != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B40"));
    close_fixture(&fx);
}

/* Strided tiles through the API: a strided load and store keep their
 * strides (the verifier accepts them); all-1 strides are the contiguous
 * form; a zero stride, or one whose span passes 2^63, is TIR-B51. */
static void test_strided(void) {
    fixture fx = open_fixture(4, 8);
    tir_builder *b = fx.b;
    tir_dim *dd[2] = {tir_dim_new(fx.m, "one"), tir_dim_new(fx.m, "half")};
    uint64_t ee[2] = {1, 4}, two[2] = {1, 2}, ones[2] = {1, 1}, zero[2] = {1, 0}, huge[2] = {1, UINT64_MAX / 2};
    tir_space *half = tir_space_make(fx.m, 2, dd, ee);
    tir_value *origin[2] = {tir_region_coord(fx.par, 0), tir_const_index(b, 1)};
    tir_value *odd = tir_load_tile_strided(b, fx.x, origin, half, two, TIR_BOUNDS_ZERO, NULL);
    CHECK(odd && odd->def_op->strides && odd->def_op->strides[1] == 2 && tir_op_span(odd->def_op, 1) == 7);
    tir_value *same = tir_load_tile_strided(b, fx.x, origin, half, ones, TIR_BOUNDS_ZERO, NULL);
    CHECK(same && !same->def_op->strides);
    CHECK(tir_store_tile_strided(b, fx.y, origin, odd, two, TIR_BOUNDS_ASSUME) == TILEC_OK);
    CHECK(tir_region_end(b, fx.par, 0, NULL) == TILEC_OK && tir_verify(ctx, fx.m) == TILEC_OK);
    close_fixture(&fx);
    const uint64_t *bad[2] = {zero, huge};
    for (int i = 0; i < 2; i++) {
        fx = open_fixture(4, 8);
        tir_space *s = tir_space_make(fx.m, 2, (tir_dim *[]){tir_dim_new(fx.m, "one"), tir_dim_new(fx.m, "h")}, ee);
        tir_value *o[2] = {tir_region_coord(fx.par, 0), tir_const_index(fx.b, 0)};
        CHECK(tir_load_tile_strided(fx.b, fx.x, o, s, bad[i], TIR_BOUNDS_ZERO, NULL) == NULL);
        CHECK(!strcmp(last_diag_code(ctx), "TIR-B51"));
        close_fixture(&fx);
    }
}

static void test_capture(void) {
    /* old = a; a = a + b; b = old: b reads the previous iteration's a. */
    fixture fx = open_fixture(4, 8);
    tir_builder *b = fx.b;
    tir_var *a = tir_var_new(b, tir_const_float(b, TIR_F32, 1));
    tir_var *bv = tir_var_new(b, tir_const_float(b, TIR_F32, 10));
    tir_var *copy = tir_var_copy(b, a); /* copy before the loop keeps the initial value */
    tir_value *a_init = tir_var_get(b, a);
    uint64_t five = 5;
    tir_dim *t = tir_dim_new(fx.m, "t");
    tir_op *loop = tir_capture_begin(b, TIR_OP_SERIAL, tir_space_make(fx.m, 1, &t, &five), NULL);
    tir_value *old = tir_var_get(b, a);
    tir_var_set(b, a, tir_ew2(b, TIR_EW_ADD, tir_var_get(b, a), tir_var_get(b, bv)));
    tir_var_set(b, bv, old);
    CHECK(tir_capture_end(b, loop) == TILEC_OK);
    CHECK(loop->result_count == 2 && loop->operand_count == 2);
    CHECK(tir_var_get(b, a) == loop->results[0] && tir_var_get(b, bv) == loop->results[1]);
    CHECK(tir_var_get(b, copy) == a_init);
    tir_op *y = loop->body->last;
    CHECK(y->kind == TIR_OP_YIELD && y->operand_count == 2);
    /* bv's final is a's block argument (the swap), not a's new value */
    CHECK(y->operands[1]->value == loop->body->args[1]);
    /* no forwarder survives */
    for (tir_op *op = loop->body->first; op; op = op->next) CHECK(op->kind != TIR_OP_ELEMENTWISE || op->ew != TIR_EW_CAST);
    /* a region that assigns nothing carries nothing */
    tir_op *quiet = tir_capture_begin(b, TIR_OP_SERIAL, tir_space_make(fx.m, 1, &t, &five), NULL);
    tir_ew2(b, TIR_EW_ADD, tir_var_get(b, a), tir_var_get(b, a));
    CHECK(tir_capture_end(b, quiet) == TILEC_OK && quiet->result_count == 0);
    CHECK(tir_var_get(b, a) == loop->results[0]);
    /* mutating an outer variable inside a parallel is an error and rolls back */
    tir_op *inner = tir_capture_begin(b, TIR_OP_PARALLEL, tir_space_make(fx.m, 1, &t, &five), NULL);
    tir_var_set(b, a, tir_const_float(b, TIR_F32, 3));
    CHECK(tir_capture_end(b, inner) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-C01"));
    close_fixture(&fx);
}

static void test_map_mutation(void) {
    fixture fx = open_fixture(4, 8);
    tir_builder *b = fx.b;
    tir_var *a = tir_var_new(b, tir_const_float(b, TIR_F32, 1));
    uint64_t three = 3;
    tir_dim *d = tir_dim_new(fx.m, "d");
    tir_op *map = tir_map_begin(b, tir_space_make(fx.m, 1, &d, &three), TIR_F32);
    tir_value *two = tir_const_float(b, TIR_F32, 2);
    tir_var_set(b, a, two);
    CHECK(tir_map_end(b, map, two) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-C01"));
    close_fixture(&fx);
}

/* ---- mergeable reductions: combine blocks ---- */

/* A closed reduce over c=8 inside the fixture's parallel, carrying n f32
 * scalars (initially 0..n-1) that its body yields unchanged. */
static tir_op *closed_reduce(fixture *fx, tir_reduction_policy policy, size_t n) {
    tir_value *init[4];
    for (size_t i = 0; i < n; i++) init[i] = tir_const_float(fx->b, TIR_F32, (double)i);
    uint64_t eight = 8;
    tir_dim *c = tir_dim_new(fx->m, "c");
    tir_region_opts opts = {.policy = policy};
    tir_op *r = tir_region_begin(fx->b, TIR_OP_REDUCE, tir_space_make(fx->m, 1, &c, &eight), &opts, n, init);
    tir_value *carries[4];
    for (size_t i = 0; i < n; i++) carries[i] = tir_region_carry(r, i);
    CHECK(tir_region_end(fx->b, r, n, carries) == TILEC_OK);
    return r;
}

static void test_combine(void) {
    /* (max, tile sum) state: the combine uses a map over the tile, and the
     * builder goes back to the parallel afterwards. */
    fixture fx = open_fixture(4, 8);
    tir_builder *b = fx.b;
    tir_value *row = tir_region_coord(fx.par, 0);
    uint64_t four = 4, eight = 8;
    tir_dim *d = tir_dim_new(fx.m, "d"), *c = tir_dim_new(fx.m, "c");
    tir_space *dspace = tir_space_make(fx.m, 1, &d, &four), *cols = tir_space_make(fx.m, 1, &c, &eight);
    tir_value *init[2] = {tir_const_float(b, TIR_F32, -1e30),
                          tir_const(b, tir_type_tile(fx.m, TIR_F32, dspace), (tir_literal){TIR_LIT_FLOAT, {.f = 0}})};
    tir_op *r = tir_region_begin(b, TIR_OP_REDUCE, cols, NULL, 2, init);
    tir_value *at[2] = {row, tir_region_coord(r, 0)};
    tir_value *x = tir_load_elem(b, fx.x, at, NULL, NULL);
    tir_value *next[2] = {tir_ew2(b, TIR_EW_MAX, tir_region_carry(r, 0), x),
                          tir_ew2(b, TIR_EW_ADD, tir_region_carry(r, 1), x)};
    CHECK(tir_region_end(b, r, 2, next) == TILEC_OK);
    CHECK(tir_op_combine(r) == NULL && tir_combine_arg(r, 0) == NULL);
    CHECK(tir_combine_begin(b, r) == r);
    tir_block *cb = tir_op_combine(r);
    CHECK(cb && tir_block_parent(cb) == r && tir_block_arg_count(cb) == 4);
    for (size_t i = 0; i < 4; i++) CHECK(tir_combine_arg(r, i)->type == r->results[i % 2]->type);
    CHECK(tir_combine_arg(r, 4) == NULL);
    tir_value *lm = tir_combine_arg(r, 0), *lacc = tir_combine_arg(r, 1);
    tir_value *rm = tir_combine_arg(r, 2), *racc = tir_combine_arg(r, 3);
    tir_value *mm = tir_ew2(b, TIR_EW_MAX, lm, rm);
    tir_op *map = tir_map_begin(b, dspace, TIR_F32);
    tir_value *k = tir_region_coord(map, 0);
    tir_value *sum = tir_ew2(b, TIR_EW_ADD, tir_extract(b, lacc, 1, &k), tir_extract(b, racc, 1, &k));
    tir_value *merged[2] = {mm, tir_map_end(b, map, sum)};
    CHECK(tir_combine_end(b, r, 2, merged) == TILEC_OK);
    CHECK(tir_block_last(cb)->kind == TIR_OP_YIELD && tir_block_last(cb)->operand_count == 2);
    CHECK(tir_block_first(tir_op_body(r))->kind == TIR_OP_VIEW_LOAD); /* the body is untouched */
    tir_value *z = tir_const_index(b, 0);
    tir_value *out[2] = {row, z};
    CHECK(tir_store_elem(b, fx.y, out, r->results[0]) == TILEC_OK); /* row is visible again */
    CHECK(tir_region_end(b, fx.par, 0, NULL) == TILEC_OK);
    CHECK(tir_builder_status(b) == TILEC_OK);
    CHECK(tir_verify(ctx, fx.m) == TILEC_OK);
    close_fixture(&fx);
    /* ordered_tree may combine too; combine values are not visible afterwards */
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_ORDERED_TREE, 1);
    CHECK(tir_combine_begin(fx.b, r) == r);
    tir_value *l = tir_combine_arg(r, 0);
    tir_value *merged1 = tir_ew2(fx.b, TIR_EW_ADD, l, tir_combine_arg(r, 1));
    CHECK(tir_combine_end(fx.b, r, 1, &merged1) == TILEC_OK);
    CHECK(tir_ew2(fx.b, TIR_EW_ADD, l, l) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B06"));
    close_fixture(&fx);
}

static void test_combine_errors(void) {
    /* Not a reduce. */
    fixture fx = open_fixture(4, 8);
    CHECK(tir_combine_begin(fx.b, fx.par) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B44"));
    close_fixture(&fx);
    /* Still open. */
    fx = open_fixture(4, 8);
    uint64_t eight = 8;
    tir_dim *c = tir_dim_new(fx.m, "c");
    tir_value *zero = tir_const_float(fx.b, TIR_F32, 0);
    tir_op *open = tir_region_begin(fx.b, TIR_OP_REDUCE, tir_space_make(fx.m, 1, &c, &eight), NULL, 1, &zero);
    CHECK(tir_combine_begin(fx.b, open) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B45"));
    close_fixture(&fx);
    /* A fold pins one order; no carries; a second combine. */
    fx = open_fixture(4, 8);
    CHECK(tir_combine_begin(fx.b, closed_reduce(&fx, TIR_REDUCE_FOLD_LEFT, 1)) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B46"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    CHECK(tir_combine_begin(fx.b, closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 0)) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B47"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    tir_op *r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    tir_value *l = tir_combine_arg(r, 0);
    CHECK(tir_combine_end(fx.b, r, 1, &l) == TILEC_OK);
    CHECK(tir_combine_begin(fx.b, r) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B48"));
    close_fixture(&fx);
    /* Inside: no outer value (not even the parallel's coordinate), no
     * coordinate lookup, no memory effect, no loop. */
    fx = open_fixture(4, 8);
    tir_value *row = tir_region_coord(fx.par, 0);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    CHECK(tir_ew2(fx.b, TIR_EW_ADD, row, row) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B06"));
    CHECK(has_diag_in(ctx, "TIR-B06", "a combine block sees only its own values"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    CHECK(tir_index(fx.b, tir_space_dim(fx.par->domain, 0)) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B41"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    tir_value *idx[2] = {tir_const_index(fx.b, 0), tir_const_index(fx.b, 0)};
    CHECK(tir_load_elem(fx.b, fx.x, idx, NULL, NULL) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B49"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    tir_dim *t = tir_dim_new(fx.m, "t");
    CHECK(tir_capture_begin(fx.b, TIR_OP_SERIAL, tir_space_make(fx.m, 1, &t, &eight), NULL) == NULL);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B50"));
    close_fixture(&fx);
    /* The yield: count, type, and closing out of order (a map still open). */
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 2);
    tir_combine_begin(fx.b, r);
    CHECK(tir_combine_end(fx.b, r, 1, &zero) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B36"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    tir_value *wrong = tir_const_int(fx.b, TIR_I32, 0);
    CHECK(tir_combine_end(fx.b, r, 1, &wrong) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B37"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    l = tir_combine_arg(r, 0);
    CHECK(tir_map_begin(fx.b, tir_space_make(fx.m, 1, &t, &eight), TIR_F32) != NULL);
    CHECK(tir_combine_end(fx.b, r, 1, &l) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B35"));
    close_fixture(&fx);
    /* region_end cannot close a combine block, nor capture_end. */
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    l = tir_combine_arg(r, 0);
    CHECK(tir_region_end(fx.b, r, 1, &l) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B35"));
    close_fixture(&fx);
    fx = open_fixture(4, 8);
    r = closed_reduce(&fx, TIR_REDUCE_UNORDERED_TREE, 1);
    tir_combine_begin(fx.b, r);
    CHECK(tir_capture_end(fx.b, r) != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B35"));
    close_fixture(&fx);
}

/* tir_func_add_scalar: a const view of one element over the dim "<name>.0",
 * which the text form's `%a: f32` also gives (and prints). */
static void test_scalar_param(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = m ? tir_func_new(m, "k") : NULL;
    tir_value *a = f ? tir_func_add_scalar(f, "alpha", TIR_I32) : NULL;
    CHECK(a && tir_func_param_count(f) == 1 && tir_func_param(f, 0) == a && tir_value_read_only(a));
    const tir_type *t = a ? tir_value_type(a) : NULL;
    CHECK(t && tir_type_kind_of(t) == TIR_TYPE_VIEW && tir_type_elem(t) == TIR_I32);
    const tir_space *s = t ? tir_type_space(t) : NULL;
    CHECK(s && tir_space_rank(s) == 1 && tir_space_extent(s, 0) == 1 && !strcmp(tir_dim_label(tir_space_dim(s, 0)), "alpha.0"));
    tir_module_destroy(m);
}

int main(void) {
    tilec_context_create(NULL, &ctx);
    test_scalar_param();
    test_spaces();
    test_explicit_builder();
    test_builder_errors();
    test_strided();
    test_capture();
    test_map_mutation();
    test_combine();
    test_combine_errors();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
