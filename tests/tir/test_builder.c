/* Builder, spaces/join, capture and library expansions, inspected structurally. */
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
    uint64_t huge[2] = {UINT64_MAX, 2};
    CHECK(!tir_space_volume(tir_space_make(m, 2, ij, huge), &v));
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
    CHECK(tir_stage(fx.b, "load") != TILEC_OK);
    CHECK(!strcmp(last_diag_code(ctx), "TIR-B40"));
    close_fixture(&fx);
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

int main(void) {
    tilec_context_create(NULL, &ctx);
    test_spaces();
    test_explicit_builder();
    test_builder_errors();
    test_capture();
    test_map_mutation();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
