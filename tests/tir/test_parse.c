/* The text-form parser: what it builds (shape parameters and defines,
 * constants, implicit yields, dim identity, sugar, locations), every kind of
 * error with its code and line:col, and a deterministic mutation test: no input
 * crashes it, each result is either a module that round-trips through the
 * printer or a failure with a located diagnostic and no module. */
#include "examples_util.h"
#include "tir/ir.h"
#include "tir/text.h"

#include <math.h>
#include <stdlib.h>

static tilec_context *ctx;

static tir_module *parse_ok_defines(int at, const char *src, const tir_define *defines, size_t n) {
    tilec_diag_clear(ctx);
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, src, strlen(src), "test.tir", defines, n, &m);
    CHECK_MSG(st == TILEC_OK && m, "line %d: parse failed", at);
    if (st != TILEC_OK) tilec_diag_print(ctx, stderr);
    return m;
}
#define PARSE_OK(src) parse_ok_defines(__LINE__, (src), NULL, 0)

/* The first diagnostic with a location (or the first one, when line is 0)
 * must have `code` at line:col, and no module may come back. */
static void expect_error(int at, const char *src, const tir_define *defines, size_t n, const char *code,
                         unsigned line, unsigned col) {
    tilec_diag_clear(ctx);
    tir_module *m = (tir_module *)&m; /* must be reset to NULL */
    tilec_status st = tir_parse(ctx, src, strlen(src), "test.tir", defines, n, &m);
    CHECK_MSG(st != TILEC_OK && m == NULL, "line %d: expected %s, parse returned %d", at, code, (int)st);
    const tilec_diag *d = NULL;
    for (size_t i = 0; i < tilec_diag_count(ctx) && !d; i++)
        if (!line || tilec_diag_at(ctx, i)->loc.line) d = tilec_diag_at(ctx, i);
    CHECK_MSG(d != NULL, "line %d: expected %s, got no diagnostic", at, code);
    if (!d) return;
    CHECK_MSG(!strcmp(d->code, code) && d->loc.line == line && d->loc.column == col,
              "line %d: expected %s at %u:%u, got %s at %u:%u: %s", at, code, line, col, d->code, d->loc.line,
              d->loc.column, d->message);
    CHECK_MSG(!line || (d->loc.file && !strcmp(d->loc.file, "test.tir")), "line %d: diagnostic without file", at);
    if (m) tir_module_destroy(m);
}
#define EXPECT_ERROR(src, code, line, col) expect_error(__LINE__, (src), NULL, 0, (code), (line), (col))


/* ---- what the parser builds ---- */

static int64_t shape(const tir_func *f, const char *name) {
    for (size_t i = 0; i < tir_func_shape_param_count(f); i++) {
        int64_t v;
        if (!strcmp(tir_func_shape_param(f, i, &v), name)) return v;
    }
    return INT64_MIN;
}

static void test_shape_params(void) {
    const char *src =
        "kernel @k<M=64, BM=8, GM=ceil_div(M, BM), R=M%BM, R2=(M+4) % BM, Q=-(M/3)*2, S=max(M, 100) - min(3, BM),\n"
        "          T=-9223372036854775808, U=ceil_div(-7, 2), V=-7 / 2, W=-7%2>(%X: view<f32>[x=M, y=GM]) {\n"
        "}\n"
        "kernel @other<M=1>() {\n"
        "}\n";
    tir_module *m = PARSE_OK(src);
    if (m) {
        tir_func *f = tir_module_func(m, 0);
        CHECK(tir_func_shape_param_count(f) == 11);
        CHECK(shape(f, "M") == 64 && shape(f, "BM") == 8 && shape(f, "GM") == 8 && shape(f, "R") == 0);
        CHECK(shape(f, "R2") == 4 && shape(f, "Q") == -42 && shape(f, "S") == 97 && shape(f, "T") == INT64_MIN);
        CHECK(shape(f, "U") == -3 && shape(f, "V") == -3 && shape(f, "W") == -1);
        tir_space *s = tir_type_space(tir_value_type(tir_func_param(f, 0)));
        CHECK(tir_space_extent(s, 0) == 64 && tir_space_extent(s, 1) == 8);
        CHECK(shape(tir_module_func(m, 1), "M") == 1);
        int64_t v = 0;
        CHECK(tir_func_shape_param(f, 11, &v) == NULL);
        tir_module_destroy(m);
    }
    /* Defines override defaults, later defaults see them, every kernel with
     * the name takes the value. */
    tir_define defines[2] = {{"M", 100}, {"BM", 16}};
    m = parse_ok_defines(__LINE__, src, defines, 2);
    if (m) {
        tir_func *f = tir_module_func(m, 0);
        CHECK(shape(f, "M") == 100 && shape(f, "GM") == 7 && shape(f, "R") == 4 && shape(f, "Q") == -66);
        CHECK(shape(tir_module_func(m, 1), "M") == 100);
        CHECK(tir_space_extent(tir_type_space(tir_value_type(tir_func_param(f, 0))), 1) == 7);
        tir_module_destroy(m);
    }
    tir_define gm = {"GM", 3};
    m = parse_ok_defines(__LINE__, src, &gm, 1);
    if (m) {
        CHECK(shape(tir_module_func(m, 0), "GM") == 3);
        tir_module_destroy(m);
    }
}

static tir_op *nth_op(const tir_block *b, size_t n) {
    tir_op *op = tir_block_first(b);
    while (op && n--) op = tir_op_next(op);
    return op;
}

static void test_constants(void) {
    const char *src = "kernel @k<N=6>() {\n"
                      "  %a = const u64 18446744073709551615\n"
                      "  %b = const i64 -9223372036854775808\n"
                      "  %c = const f32 1.5e-3\n"
                      "  %d = const f32 -inf\n"
                      "  %e = const f64 nan\n"
                      "  %f = const bool true\n"
                      "  %g = const tile<f32>[m=4] 0.0\n"
                      "  %h = const f64 N * 2 + 1\n"
                      "  %i = const index N - 10\n"
                      "  %j = const i32 -5\n"
                      "  %k = const f64 -0.0\n"
                      "}\n";
    tir_module *m = PARSE_OK(src);
    if (!m) return;
    tir_block *body = tir_func_body(tir_module_func(m, 0));
    tir_literal l[11];
    for (size_t i = 0; i < 11; i++) l[i] = nth_op(body, i)->literal;
    CHECK(l[0].kind == TIR_LIT_UINT && l[0].as.u == UINT64_MAX);
    CHECK(l[1].kind == TIR_LIT_INT && l[1].as.i == INT64_MIN);
    CHECK(l[2].kind == TIR_LIT_FLOAT && l[2].as.f == 1.5e-3);
    CHECK(l[3].kind == TIR_LIT_FLOAT && isinf(l[3].as.f) && l[3].as.f < 0);
    CHECK(l[4].kind == TIR_LIT_FLOAT && isnan(l[4].as.f));
    CHECK(l[5].kind == TIR_LIT_BOOL && l[5].as.b);
    CHECK(l[6].kind == TIR_LIT_FLOAT && l[6].as.f == 0.0);
    CHECK(tir_type_kind_of(tir_value_type(tir_op_result(nth_op(body, 6), 0))) == TIR_TYPE_TILE);
    CHECK(l[7].kind == TIR_LIT_FLOAT && l[7].as.f == 13.0); /* an iexpr for a float type */
    CHECK(l[8].kind == TIR_LIT_INT && l[8].as.i == -4);
    CHECK(l[9].kind == TIR_LIT_INT && l[9].as.i == -5);
    CHECK(l[10].kind == TIR_LIT_FLOAT && l[10].as.f == 0.0 && signbit(l[10].as.f));
    tir_module_destroy(m);
}

static void test_structure(void) {
    const char *src = "// leading comment\n"
                      "kernel @k(%A: const view<f32>[A.0=4, A.1=8], %B: view<f32>[A.0=4, k#2=8]) {\n"
                      "  parallel (%i: k=4) {\n"
                      "    %z = const index 0\n"
                      "    %t = load %A[%i, %z] tile [k=1, k#2=8]   // no bounds: zero\n"
                      "    %u = relabel %t to [k=1, k#2=8]\n"
                      "    store %B[%i, %z] tile [k=1, k#2=8] bounds=zero, %u\n"
                      "  }\n"
                      "  %r = serial (%j: j=3) iter(%a = %r0) -> (f32) { yield %a }\n"
                      "}\n";
    /* %r0 does not exist: unknown value at 9:37 */
    EXPECT_ERROR(src, "TIR-P03", 9, 35);
    const char *good = "kernel @k(%A: const view<f32>[A.0=4, A.1=8], %B: view<f32>[A.0=4, k#2=8]) {\n"
                       "  parallel (%i: k=4) {\n"
                       "    %z = const index 0\n"
                       "    %t = load %A[%i, %z] tile [k=1, k#2=8]\n"
                       "    %u = relabel %t to [k=1, k#2=8]\n"
                       "    store %B[%i, %z] tile [k=1, k#2=8] bounds=zero, %u\n"
                       "  }\n"
                       "  %r = serial (%j: j=3) { }\n"
                       "  %z = const f32 0.0\n"
                       "  %s = serial (%j: j=3) iter(%s = %z) -> (f32) { %s2 = add %s, %s\n yield %s2 }\n"
                       "  parallel (%i: k=2) { %z2 = const index 0 }\n"
                       "  parallel (%i: k=2) { %z2 = const index 1 }\n"
                       "}\n";
    EXPECT_ERROR(good, "TIR-P18", 8, 3); /* a carry-less serial has no result */
    char *fixed = strdup(good);
    memcpy(strstr(fixed, "%r = serial"), "     serial", 11);
    tir_module *m = PARSE_OK(fixed);
    free(fixed);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    tir_value *A = tir_func_param(f, 0), *B = tir_func_param(f, 1);
    CHECK(tir_value_read_only(A) && !tir_value_read_only(B));
    tir_space *sa = tir_type_space(tir_value_type(A)), *sb = tir_type_space(tir_value_type(B));
    CHECK(tir_space_dim(sa, 0) == tir_space_dim(sb, 0)); /* one label, one dim */
    CHECK(tir_space_dim(sa, 1) != tir_space_dim(sb, 1));
    CHECK(!strcmp(tir_dim_label(tir_space_dim(sb, 1)), "k#2")); /* k#2 is just a label */
    tir_op *par = tir_block_first(tir_func_body(f));
    CHECK(tir_op_kind_of(par) == TIR_OP_PARALLEL);
    tilec_loc loc = tir_op_loc(par);
    CHECK(loc.line == 2 && loc.column == 3 && loc.file && !strcmp(loc.file, "test.tir"));
    tir_op *load = nth_op(tir_op_body(par), 1);
    CHECK(tir_op_kind_of(load) == TIR_OP_VIEW_LOAD && load->bounds == TIR_BOUNDS_ZERO);
    CHECK(tir_op_loc(load).line == 4 && tir_op_loc(load).column == 5);
    tir_space *ls = tir_op_domain(load);
    CHECK(tir_space_dim(ls, 0) == tir_space_dim(tir_op_domain(par), 0)); /* `k` everywhere */
    /* relabel to the same space is the tile itself: no op */
    tir_op *store = nth_op(tir_op_body(par), 2);
    CHECK(tir_op_kind_of(store) == TIR_OP_VIEW_STORE && tir_op_operand(store, 3) == tir_op_result(load, 0));
    /* the parser closes parallel and carry-less bodies with an empty yield */
    tir_op *y = tir_block_last(tir_op_body(par));
    CHECK(tir_op_kind_of(y) == TIR_OP_YIELD && tir_op_operand_count(y) == 0);
    tir_op *serial = tir_op_next(par);
    CHECK(tir_op_kind_of(serial) == TIR_OP_SERIAL && tir_op_kind_of(tir_block_first(tir_op_body(serial))) == TIR_OP_YIELD);
    tir_module_destroy(m);
    /* Empty input and comments only are empty modules. */
    m = PARSE_OK("");
    CHECK(m && tir_module_func_count(m) == 0);
    tir_module_destroy(m);
    m = PARSE_OK("// nothing\n   \n");
    CHECK(m && tir_module_func_count(m) == 0);
    tir_module_destroy(m);
}

static void test_map_and_sugar(void) {
    const char *src = "kernel @k(%Y: view<f32>[y=4]) {\n"
                      "  %io = iota [n=4]\n"
                      "  %f = cast %io to f32\n"
                      "  %m = map (%i: n=4) -> f32 {\n"
                      "    %r = reduce.add %f over (n)\n"
                      "    %e = extract %r[]\n"
                      "    %x = extract %f[%i]\n"
                      "    %s = add %e, %x\n"
                      "    yield %s\n"
                      "  }\n"
                      "  %one = const f32 1.0\n"
                      "  %full = full [n=4] %one\n"
                      "  %p = matmul %m, %full : tile<f32>[]\n"
                      "  %b = broadcast %p to [n=4]\n"
                      "  %z = const index 0\n"
                      "  store %Y[%z] tile [n=4] bounds=assume, %b\n"
                      "}\n";
    tir_module *m = PARSE_OK(src);
    if (!m) return;
    tir_block *body = tir_func_body(tir_module_func(m, 0));
    tir_op *map = nth_op(body, 2);
    CHECK(tir_op_kind_of(map) == TIR_OP_MAP);
    /* inside the map: the reduction expands to a map around a reduce loop */
    tir_op *inner = tir_block_first(tir_op_body(map));
    CHECK(tir_op_kind_of(inner) == TIR_OP_MAP &&
          tir_op_kind_of(nth_op(tir_op_body(inner), 1)) == TIR_OP_REDUCE);
    tir_module_destroy(m);
}

/* A reduce's combine block: its state names are its arguments, typed as the
 * carries; it may reuse outer names (even the reduce's coordinate) because it
 * sees none of them. */
static void test_combine(void) {
    const char *src = "kernel @k(%X: const view<f32>[x=64]) {\n"
                      "  %z = const f32 0.0\n"
                      "  %t0 = const tile<f32>[d=2] 0.0\n"
                      "  %s, %t = reduce (%i: n=64) policy=ordered_tree iter(%a = %z, %b = %t0) -> (f32, tile<f32>[d=2]) {\n"
                      "    %v = load %X[%i]\n"
                      "    %n = add %a, %v\n"
                      "    %m = add %b, %v\n"
                      "    yield %n, %m\n"
                      "  } combine (%z, %i) (%a, %r) {\n"
                      "    %n = add %z, %a\n"
                      "    %m = map (%j: d=2) -> f32 {\n"
                      "      %x = extract %i[%j]\n"
                      "      %y = extract %r[%j]\n"
                      "      %w = max %x, %y\n"
                      "      yield %w\n"
                      "    }\n"
                      "    yield %n, %m\n"
                      "  } : f32\n"
                      "  %u = add %s, %z\n"
                      "}\n";
    tir_module *m = PARSE_OK(src);
    if (!m) return;
    CHECK(tir_verify(ctx, m) == TILEC_OK);
    tir_op *r = nth_op(tir_func_body(tir_module_func(m, 0)), 2);
    tir_block *c = tir_op_combine(r);
    CHECK(tir_op_kind_of(r) == TIR_OP_REDUCE && c && tir_block_parent(c) == r);
    CHECK(tir_block_arg_count(c) == 4);
    for (size_t i = 0; i < 4; i++) CHECK(tir_value_type(tir_block_arg(c, i)) == tir_value_type(tir_op_result(r, i % 2)));
    CHECK(!strcmp(tir_value_name(tir_block_arg(c, 0)), "z") && !strcmp(tir_value_name(tir_block_arg(c, 3)), "r"));
    tir_op *add = tir_block_first(c);
    CHECK(tir_op_operand(add, 0) == tir_block_arg(c, 0) && tir_op_operand(add, 1) == tir_block_arg(c, 2));
    CHECK(tir_op_kind_of(tir_block_last(c)) == TIR_OP_YIELD && tir_op_operand_count(tir_block_last(c)) == 2);
    CHECK(tir_op_loc(add).line == 10 && tir_op_loc(add).column == 5);
    /* after the statement, the outer names are back: %z is the constant */
    tir_op *after = tir_op_next(r);
    CHECK(tir_op_operand(after, 1) == tir_op_result(tir_block_first(tir_func_body(tir_module_func(m, 0))), 0));
    tir_module_destroy(m);
}

/* Combine errors: on another region kind, twice, wrong state counts, outer
 * values (a parameter, the reduce's coordinate, an outer constant), a missing
 * yield, a fold policy, a loop inside. */
#define COMBINE_HEAD(region)                                                                                           \
    "kernel @k(%X: const view<f32>[x=4]) {\n"                                                                          \
    "  %z = const f32 0.0\n"                                                                                           \
    "  %s = " region " (%i: n=4) iter(%a = %z) -> (f32) {\n"                                                           \
    "    yield %a\n"
#define COMBINE_TAIL "    yield %l\n  }\n}\n"
/* Stride clauses: one iexpr per tile axis (TIR-P24 otherwise), each >= 0
 * as a count (TIR-P10) and >= 1 for the builder (TIR-B51), the span inside
 * 2^63 (TIR-B51).  (test_roundtrip: all-1 strides print as no clause.) */
#define STRIDED(clause)                                                                                                \
    "kernel @k(%X: const view<f32>[x=8]) {\n  parallel (%i: i=1) {\n    %c0 = const index 0\n"                         \
    "    %t = load %X[%c0] tile [x=4] " clause "\n  }\n}\n"
static void test_stride_clause(void) {
    EXPECT_ERROR(STRIDED("stride [2, 1]"), "TIR-P24", 4, 34);
    EXPECT_ERROR(STRIDED("stride []"), "TIR-P01", 4, 42);
    EXPECT_ERROR(STRIDED("stride [-1]"), "TIR-P10", 4, 42);
    EXPECT_ERROR(STRIDED("stride [0]"), "TIR-B51", 4, 5);
    EXPECT_ERROR(STRIDED("stride [3074457345618258603]"), "TIR-B51", 4, 5);
}
#undef STRIDED

static void test_combine_errors(void) {
    EXPECT_ERROR(COMBINE_HEAD("serial") "  } combine (%l) (%r) {\n" COMBINE_TAIL, "TIR-P20", 5, 5);
    EXPECT_ERROR(COMBINE_HEAD("pipeline") "  } combine (%l) (%r) {\n" COMBINE_TAIL, "TIR-P20", 5, 5);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %t = map (%j: j=4) -> f32 {\n    yield %z\n"
                 "  } combine (%l) (%r) {\n" COMBINE_TAIL,
                 "TIR-P20", 5, 5);
    EXPECT_ERROR("kernel @k() {\n  parallel (%j: j=4) {\n  } combine () () {\n  }\n}\n", "TIR-P20", 3, 5);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    yield %l\n  } combine (%l) (%r) {\n" COMBINE_TAIL,
                 "TIR-P20", 7, 5);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r, %q) {\n" COMBINE_TAIL, "TIR-P18", 5, 23);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) () {\n" COMBINE_TAIL, "TIR-P18", 5, 19);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%l) {\n" COMBINE_TAIL, "TIR-P04", 5, 19);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    %q = add %l, %z\n" COMBINE_TAIL, "TIR-P03", 6, 18);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    %q = add %l, %i\n" COMBINE_TAIL, "TIR-P03", 6, 18);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    %q = load %X[%i]\n" COMBINE_TAIL, "TIR-P03", 6, 15);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    %q = add %l, %r\n  }\n}\n", "TIR-P19", 7, 3);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %s = reduce (%i: n=4) policy=fold_left iter(%a = %z) -> (f32) {\n"
                 "    yield %a\n  } combine (%l) (%r) {\n" COMBINE_TAIL,
                 "TIR-B46", 5, 5);
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n"
                                        "    %q = reduce (%j: n=2) iter(%b = %l) -> (f32) {\n      yield %b\n    }\n"
                                        COMBINE_TAIL,
                 "TIR-B50", 6, 5);
    /* the combine's names end with it */
    EXPECT_ERROR(COMBINE_HEAD("reduce") "  } combine (%l) (%r) {\n    yield %l\n  }\n  %q = add %l, %z\n}\n", "TIR-P03",
                 8, 12);
    /* not an operation on its own */
    EXPECT_ERROR("kernel @k() {\n  combine (%l) (%r) {\n  }\n}\n", "TIR-P02", 2, 3);
}

/* ---- errors, each with its code and location ---- */

static void test_syntax_errors(void) {
    /* truncated input */
    EXPECT_ERROR("kernel @k(%X: view<f32>[x=4]) {\n  parallel (%i: i=4) {\n    %v = load %X[%i]\n", "TIR-P12", 4, 1);
    EXPECT_ERROR("kernel @k(%X: view<f32>[x=", "TIR-P01", 1, 27);
    EXPECT_ERROR("kernel k() {}", "TIR-P01", 1, 8);
    EXPECT_ERROR("kernel @k() {\n  %a = frobnicate %b\n}\n", "TIR-P02", 2, 8);
    EXPECT_ERROR("kernel @k() {\n  %a = stage\n}\n", "TIR-P02", 2, 8);
    EXPECT_ERROR("kernel @k() {\n  %a = neg %nope\n}\n", "TIR-P03", 2, 12);
    EXPECT_ERROR("kernel @k() {\n  %a = const f32 1.0\n  %a = const f32 2.0\n}\n", "TIR-P04", 3, 3);
    EXPECT_ERROR("kernel @k(%X: view<f32>[x=4]) {\n  parallel (%i: i=4) {\n    %X = const f32 1.0\n  }\n}\n",
                 "TIR-P04", 3, 5);
    EXPECT_ERROR("kernel @k(%X: view<f32>[x=4]) {\n  parallel (%X: i=4) {\n  }\n}\n", "TIR-P04", 2, 13);
    EXPECT_ERROR("kernel @k(%X: view<f32>[x=4], %X: view<f32>[x=4]) {\n}\n", "TIR-P04", 1, 31);
    EXPECT_ERROR("kernel @k() {\n}\nkernel @k() {\n}\n", "TIR-P04", 3, 8);
    EXPECT_ERROR("kernel @k<N=1, N=2>() {\n}\n", "TIR-P04", 1, 16);
    EXPECT_ERROR("kernel @k() {\n  %a = const f32 1.0 : i32\n}\n", "TIR-P05", 2, 24);
    EXPECT_ERROR("kernel @k() {\n  %a = const tile<f32>[m=2] 1.0 : tile<f32>[n=2]\n}\n", "TIR-P05", 2, 35);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %r = serial (%i: i=2) iter(%a = %z) -> (i32) {\n"
                 "    yield %a\n  }\n}\n",
                 "TIR-P05", 3, 43);
    EXPECT_ERROR("kernel @k(%Y: view<f32>[y=1]) {\n  %z = const index 0\n  %v = const f32 0.0\n"
                 "  store %Y[%z], %v : f32\n}\n",
                 "TIR-P05", 4, 20);
    EXPECT_ERROR("kernel @k() {\n  %t = const tile<f32>[m=4] 0.0\n  %r = reduce.add %t over (zz)\n}\n", "TIR-P06", 3,
                 28);
    EXPECT_ERROR("kernel @k() {\n  pipeline (%i: i=1) {\n    stage \"oops\n  }\n}\n", "TIR-P13", 3, 11);
    EXPECT_ERROR("kernel @k() {\n  pipeline (%i: i=1) {\n    stage \"\"\n  }\n}\n", "TIR-P01", 3, 11);
    EXPECT_ERROR("kernel @k() {\n  %a = const f32 1.0 $\n}\n", "TIR-P14", 2, 22);
    EXPECT_ERROR("kernel @k() {\n  %a = const f32 1.0\n  \x01\n}\n", "TIR-P14", 3, 3);
    /* the first error wins, even over a lexer error further on */
    EXPECT_ERROR("kernel @k() {\n  %a = bogus\n  $\n}\n", "TIR-P02", 2, 8);
    EXPECT_ERROR("kernel @k(%X: view<f32>[a=4, b=4]) {\n  %z = const index 0\n  %v = load %X[%z]\n}\n", "TIR-P18", 3,
                 13);
    EXPECT_ERROR("kernel @k() {\n  %a, %b = const f32 1.0\n}\n", "TIR-P18", 2, 3);
    EXPECT_ERROR("kernel @k() {\n  %a = iota [m=2, n=3]\n}\n", "TIR-P18", 2, 8);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %r = serial (%i: i=2) iter(%a = %z) -> (f32, f32) {\n"
                 "    yield %a\n  }\n}\n",
                 "TIR-P18", 3, 48);
    EXPECT_ERROR("kernel @k() {\n  parallel (%i: i=2) {\n    yield\n    %a = const f32 1.0\n  }\n}\n", "TIR-P19", 4, 5);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %r = serial (%i: i=2) iter(%a = %z) -> (f32) {\n  }\n}\n",
                 "TIR-P19", 4, 3);
    EXPECT_ERROR("kernel @k() {\n  yield\n}\n", "TIR-P19", 2, 3);
    EXPECT_ERROR("kernel @k() {\n  %m = map (%i: i=2) -> f32 {\n  }\n}\n", "TIR-P19", 3, 3);
    EXPECT_ERROR("kernel @k() {\n  %m = map (%i: i=2) -> f32 {\n    yield %i, %i\n  }\n}\n", "TIR-P19", 3, 5);
    EXPECT_ERROR("kernel @k() {\n  serial (%i: i=2) stages=2 {\n  }\n}\n", "TIR-P20", 2, 20);
    EXPECT_ERROR("kernel @k() {\n  pipeline (%i: i=2) ii=1 ii=2 {\n  }\n}\n", "TIR-P20", 2, 27);
    EXPECT_ERROR("kernel @k() {\n  parallel (%i: i=2) policy=fold_left {\n  }\n}\n", "TIR-P20", 2, 22);
    EXPECT_ERROR("kernel @k() {\n  reduce (%i: i=2) policy=sideways {\n  }\n}\n", "TIR-P01", 2, 27);
    EXPECT_ERROR("kernel @k(%Y: view<f32>[y=4]) {\n  %z = const index 0\n  %t = const tile<f32>[m=4] 0.0\n"
                 "  store %Y[%z] tile [n=4] bounds=zero, %t\n}\n",
                 "TIR-P21", 4, 21);
}

static void test_shape_errors(void) {
    EXPECT_ERROR("kernel @k() {\n  %t = const tile<f32>[m=2, n=3, m=2] 0.0\n}\n", "TIR-P17", 2, 34);
    EXPECT_ERROR("kernel @k<N=4>(%X: view<f32>[x=M]) {\n}\n", "TIR-P07", 1, 32);
    EXPECT_ERROR("kernel @k<N=M, M=1>() {\n}\n", "TIR-P07", 1, 13);
    EXPECT_ERROR("kernel @k<N=0>() {\n  %t = const tile<f32>[m=8/N] 0.0\n}\n", "TIR-P09", 2, 27);
    EXPECT_ERROR("kernel @k<N=0>() {\n  %t = const index 8 % N\n}\n", "TIR-P09", 2, 22);
    EXPECT_ERROR("kernel @k<N=0>() {\n  %t = const index ceil_div(8, N)\n}\n", "TIR-P09", 2, 20);
    EXPECT_ERROR("kernel @k<N=9223372036854775807>() {\n  %t = const index N + 1\n}\n", "TIR-P08", 2, 22);
    EXPECT_ERROR("kernel @k<N=-9223372036854775808>() {\n  %t = const index N / -1\n}\n", "TIR-P08", 2, 22);
    EXPECT_ERROR("kernel @k<N=-9223372036854775808>() {\n  %t = const index -N\n}\n", "TIR-P08", 2, 20);
    EXPECT_ERROR("kernel @k<N=4294967296>() {\n  %t = const index N * N\n}\n", "TIR-P08", 2, 22);
    EXPECT_ERROR("kernel @k<N=2>() {\n  %t = const tile<f32>[m=N-3] 0.0\n}\n", "TIR-P10", 2, 26);
    EXPECT_ERROR("kernel @k() {\n  pipeline (%i: i=2) stages=-1 {\n  }\n}\n", "TIR-P10", 2, 29);
    EXPECT_ERROR("kernel @k() {\n  %a = const i64 99999999999999999999\n}\n", "TIR-P15", 2, 18);
    EXPECT_ERROR("kernel @k() {\n  %a = const i64 9223372036854775808 + 1\n}\n", "TIR-P15", 2, 18);
    EXPECT_ERROR("kernel @k() {\n  %a = const f64 1e999\n}\n", "TIR-P15", 2, 18);
    EXPECT_ERROR("kernel @k() {\n  %t = const tile<f32>[m=1.5] 0.0\n}\n", "TIR-P01", 2, 26);
    /* rank above the limit: 65 axes */
    char src[2048];
    int n = snprintf(src, sizeof src, "kernel @k() {\n  %%t = const tile<f32>[");
    for (int i = 0; i < 65; i++) n += snprintf(src + n, sizeof src - (size_t)n, "%sd%d=1", i ? ", " : "", i);
    snprintf(src + n, sizeof src - (size_t)n, "] 0.0\n}\n");
    unsigned col_65 = (unsigned)(strstr(src, "d64=") - strchr(src, '\n')); /* 1-based on line 2 */
    EXPECT_ERROR(src, "TIR-P22", 2, col_65);
    /* builder errors are located at the statement */
    EXPECT_ERROR("kernel @k() {\n  %a = const f32 1.0\n  %b = const i32 1\n  %c = add %a, %b\n}\n", "TIR-B13", 4, 3);
    EXPECT_ERROR("kernel @k() {\n  %a = const tile<f32>[m=2] 0.0\n  %b = const tile<f32>[m=3] 0.0\n"
                 "  %c = add %a, %b\n}\n",
                 "TIR-B10", 4, 3);
    EXPECT_ERROR("kernel @k(%X: const view<f32>[x=4]) {\n  %z = const index 0\n  %v = const f32 1.0\n"
                 "  store %X[%z], %v\n}\n",
                 "TIR-B23", 4, 3);
    EXPECT_ERROR("kernel @k() {\n  stage \"x\"\n}\n", "TIR-B40", 2, 3);
    EXPECT_ERROR("kernel @k() {\n  parallel () {\n  }\n}\n", "TIR-B30", 2, 3);
    EXPECT_ERROR("kernel @k() {\n  %z = const f32 0.0\n  %r = serial (%i: i=2) iter(%a = %z) -> (f32) {\n"
                 "    yield %i\n  }\n}\n",
                 "TIR-B37", 4, 5);
    EXPECT_ERROR("kernel @k() {\n  %b = const bool 1\n}\n", "TIR-B08", 2, 3);
}

static void test_nesting_and_defines(void) {
    /* nesting beyond the cap */
    size_t cap = 64 * 1024;
    char *src = malloc(cap);
    size_t n = (size_t)snprintf(src, cap, "kernel @k() {\n");
    unsigned fail_col = 0;
    for (int i = 0; i < 200; i++) {
        int w = snprintf(src + n, cap - n, "serial (%%i%d: d%d=1) {\n", i, i);
        if (i == 127) fail_col = (unsigned)w - 1; /* the '{' that opens block 129 */
        n += (size_t)w;
    }
    EXPECT_ERROR(src, "TIR-P16", 129, fail_col);
    n = (size_t)snprintf(src, cap, "kernel @k() {\n  %%a = const index ");
    for (int i = 0; i < 300; i++) src[n++] = '(';
    src[n++] = '1';
    for (int i = 0; i < 300; i++) src[n++] = ')';
    snprintf(src + n, cap - n, "\n}\n");
    EXPECT_ERROR(src, "TIR-P16", 2, 20 + 127); /* the kernel body is level 1: the 128th '(' is too deep */
    n = (size_t)snprintf(src, cap, "kernel @k() {\n  %%a = const index ");
    for (int i = 0; i < 300; i++) src[n++] = '-';
    snprintf(src + n, cap - n, "1\n}\n");
    EXPECT_ERROR(src, "TIR-P16", 2, 20 + 127);
    free(src);
    /* -D naming no parameter, or given twice: not located in the text */
    const char *k = "kernel @k<N=4>() {\n}\n";
    tir_define bad = {"Q", 1};
    expect_error(__LINE__, k, &bad, 1, "TIR-P11", 0, 0);
    tir_define twice[2] = {{"N", 1}, {"N", 2}};
    expect_error(__LINE__, k, twice, 2, "TIR-P11", 0, 0);
    /* API misuse */
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, NULL, 3, "x", NULL, 0, &m) == TILEC_E_ARG && !m);
    tir_define unnamed = {NULL, 1};
    CHECK(tir_parse(ctx, "", 0, "x", &unnamed, 1, &m) == TILEC_E_ARG && !m);
    CHECK(tir_parse(ctx, "", 0, NULL, NULL, 0, NULL) == TILEC_E_ARG);
    /* without a file name, locations still have line:col */
    tilec_diag_clear(ctx);
    CHECK(tir_parse(ctx, "kernel", 6, NULL, NULL, 0, &m) == TILEC_E_PARSE && !m);
    CHECK(tilec_diag_count(ctx) == 1 && tilec_diag_at(ctx, 0)->loc.line == 1 && tilec_diag_at(ctx, 0)->loc.column == 7);
}

/* A shape parameter declared with a range: -D pins it inside the range
 * (later parameters see the value); a bound may be an earlier parameter,
 * written against '..' (names stop before '..'); an unpinned range is
 * refused until kernels are compiled for a range of sizes. */
static void test_ranged_shape_params(void) {
    const char *k = "kernel @k<N=64, L: 1..N, H: 2..3, B=L*2>(%X: view<f32>[X.0=L, X.1=B]) {\n}\n";
    tir_define pins[2] = {{"L", 17}, {"H", 3}};
    tir_module *m = parse_ok_defines(__LINE__, k, pins, 2);
    if (m) {
        const tir_func *f = tir_module_func(m, 0);
        CHECK(shape(f, "L") == 17 && shape(f, "H") == 3 && shape(f, "B") == 34 && shape(f, "N") == 64);
        tir_module_destroy(m);
    }
    tir_define edge[2] = {{"L", 64}, {"H", 2}};
    m = parse_ok_defines(__LINE__, k, edge, 2);
    tir_module_destroy(m);
    tir_define high[2] = {{"L", 65}, {"H", 2}};
    expect_error(__LINE__, k, high, 2, "TIR-P25", 1, 17);
    tir_define low[2] = {{"L", 1}, {"H", 1}};
    expect_error(__LINE__, k, low, 2, "TIR-P25", 1, 26);
    CHECK(has_diag_in(ctx, "TIR-P25", "-D H=1 is outside its range 2..3"));
    /* Unpinned, L is a runtime size (tests/tir/test_runtime_sizes.c): B = 2·L with it. */
    tir_define one[1] = {{"H", 2}};
    m = parse_ok_defines(__LINE__, k, one, 1);
    if (m) {
        const tir_func *f = tir_module_func(m, 0);
        int64_t lo = 0, hi = 0;
        CHECK(tir_func_symbol_count(f) == 1 && !strcmp(tir_func_symbol(f, 0, &lo, &hi), "L") && lo == 1 && hi == 64);
        const tir_space *x = tir_type_space(tir_value_type(tir_func_param(f, 0)));
        CHECK(tir_func_extent_symbol(f, tir_space_extent(x, 0)) == 0);
        CHECK(tir_extent_is_symbolic(tir_space_extent(x, 1)) && tir_func_extent_symbol(f, tir_space_extent(x, 1)) == -1);
        tir_module_destroy(m);
    }
    tir_define n_too[2] = {{"L", 3}, {"N", 2}}; /* N=2 shrinks L's range under it */
    expect_error(__LINE__, "kernel @k<N=64, L: 1..N>() {\n}\n", n_too, 2, "TIR-P25", 1, 17);
    expect_error(__LINE__, "kernel @k<L: 9..4>() {\n}\n", pins, 1, "TIR-P25", 1, 14);
    EXPECT_ERROR("kernel @k<L: 1 4>() {\n}\n", "TIR-P01", 1, 16);
    EXPECT_ERROR("kernel @k<L 4>() {\n}\n", "TIR-P01", 1, 13);
}

/* The remainder operator written against its left operand is not a value. */
static void test_percent_lexing(void) {
    tir_module *m = PARSE_OK("kernel @k<M=17, B=5, R1=M%B, R2=(M)%B, R3=M % B, R4=M%5>() {\n"
                             "  %x = const index M%B\n"
                             "  %y = add %x,%x\n"
                             "}\n");
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    CHECK(shape(f, "R1") == 2 && shape(f, "R2") == 2 && shape(f, "R3") == 2 && shape(f, "R4") == 2);
    CHECK(tir_func_body(f)->first->literal.as.i == 2);
    tir_module_destroy(m);
}

/* ---- robustness: truncations and mutations of every kernel file ---- */

typedef struct {
    int parsed, accepted, rejected;
} fuzz_stats;

static char *print_text(const tir_module *m) {
    strbuf s;
    strbuf_init(&s, ctx);
    char *copy = tir_print_to_strbuf(m, &s) ? strdup(strbuf_cstr(&s)) : NULL;
    strbuf_free(&s);
    return copy;
}

static void check_one(const char *text, size_t len, fuzz_stats *stats) {
    tilec_diag_clear(ctx);
    tir_module *m = (tir_module *)&m;
    tilec_status st = tir_parse(ctx, text, len, "mutant.tir", NULL, 0, &m);
    stats->parsed++;
    if (st == TILEC_OK) {
        stats->accepted++;
        CHECK(m != NULL);
        if (!m) return;
        tilec_status verified = tir_verify(ctx, m);
        CHECK_MSG(verified == TILEC_OK, "accepted mutant does not verify:\n%.*s", (int)len, text);
        if (verified != TILEC_OK) tilec_diag_print(ctx, stderr);
        char *first = print_text(m);
        tir_module *m2 = NULL;
        CHECK(first && tir_parse(ctx, first, strlen(first), "printed", NULL, 0, &m2) == TILEC_OK);
        char *second = m2 ? print_text(m2) : NULL;
        CHECK_MSG(first && second && !strcmp(first, second), "accepted mutant does not round-trip:\n%.*s",
                  (int)len, text);
        free(first);
        free(second);
        tir_module_destroy(m2);
        tir_module_destroy(m);
        return;
    }
    stats->rejected++;
    CHECK(m == NULL);
    bool located = false;
    for (size_t i = 0; i < tilec_diag_count(ctx); i++) {
        const tilec_diag *d = tilec_diag_at(ctx, i);
        located |= d->loc.line > 0 && d->loc.file && !strcmp(d->loc.file, "mutant.tir");
    }
    CHECK_MSG(located, "rejected without a located diagnostic:\n%.*s", (int)len, text);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint32_t next_random(void) { /* xorshift64*: deterministic */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

/* Every truncation and 600 random edits of one file (every file counts). */
static bool mutate_file(const char *path, const char *name, const char *src, size_t len, void *env) {
    (void)path, (void)name;
    fuzz_stats *stats = env;
    for (size_t cut = 0; cut < len; cut++) check_one(src, cut, stats); /* every truncation */
    static const char alphabet[] = "{}[]()<>,:=%@#-+*/\"\n 019ax._";
    char *copy = malloc(len + 64);
    for (int round = 0; round < 600; round++) {
        memcpy(copy, src, len);
        size_t n = len, at = next_random() % len;
        switch (next_random() % 4) {
        case 0: copy[at] = alphabet[next_random() % (sizeof alphabet - 1)]; break;
        case 1: copy[at] = (char)(next_random() & 0xff); break;
        case 2: { /* delete a short span */
            size_t span = 1 + next_random() % 12;
            if (at + span > n) span = n - at;
            memmove(copy + at, copy + at + span, n - at - span);
            n -= span;
            break;
        }
        default: { /* duplicate a short span */
            size_t span = 1 + next_random() % 32;
            if (at + span > n) span = n - at;
            memmove(copy + at + span, copy + at, n - at);
            n += span;
            break;
        }
        }
        check_one(copy, n, stats);
    }
    free(copy);
    return true;
}

/* Random sequences of the language's own tokens inside a kernel, so the
 * parser gets past the first few tokens far more often than with bytes. */
static void token_soup(fuzz_stats *stats) {
    static const char *const words[] = {
        "%a", "%b", "%c", "%X", "=", ",", ":", "(", ")", "{", "}", "[", "]", "<", ">", "->", "-", "+", "*", "/",
        "%", "0", "1", "4", "1.5", "inf", "const", "index", "f32", "i32", "bool", "tile<f32>", "view<f32>", "add",
        "select", "cast", "to", "extract", "mma", "ordered", "load", "store", "tile", "bounds=zero", "fill", "mask",
        "else", "map", "parallel", "serial", "pipeline", "reduce", "iter", "stages=2", "ii=1", "policy=fold_left",
        "scope=group", "stage", "\"s\"", "yield", "reduce.add", "over", "iota", "full", "broadcast", "relabel",
        "matmul", "m=4", "n=2", "N", "true", "kernel", "@k", "\n"};
    const size_t n_words = sizeof words / sizeof words[0];
    char text[4096];
    for (int round = 0; round < 3000; round++) {
        size_t n = (size_t)snprintf(text, sizeof text, "kernel @k<N=3>(%%X: view<f32>[x=4]) {\n  %%a = const f32 1.0\n");
        size_t count = 1 + next_random() % 40;
        for (size_t i = 0; i < count && n + 64 < sizeof text; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s ", words[next_random() % n_words]);
        if (next_random() % 2) n += (size_t)snprintf(text + n, sizeof text - n, "\n}\n");
        check_one(text, n, stats);
    }
}

static void test_mutations(void) {
    fuzz_stats stats = {0, 0, 0};
    for_each_source(TILEC_SOURCE_DIR "/tests/kernels", ".tir", mutate_file, &stats);
    for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", mutate_file, &stats);
    token_soup(&stats);
    fprintf(stderr, "mutations: %d parsed, %d accepted, %d rejected\n", stats.parsed, stats.accepted, stats.rejected);
    CHECK(stats.parsed > 5000 && stats.accepted > 0 && stats.rejected > 0);
}

/* Every allocation of a parse (and of a print) may fail: the result is then
 * an error with no module, never a crash or a leak (run under ASan). */
static void test_allocation_failures(void) {
    size_t len;
    char *src = read_file(TILEC_SOURCE_DIR "/tests/kernels/sugar.tir", &len);
    CHECK(src != NULL);
    if (!src) return;
    int failures = 0, other = 0;
    tir_module *m = NULL;
    for (long n = 0; n < 1000000; n++) {
        tilec_diag_clear(ctx);
        tilec_context_fail_allocation_after(ctx, n);
        m = (tir_module *)&m;
        tilec_status st = tir_parse(ctx, src, len, "sugar.tir", NULL, 0, &m);
        tilec_context_fail_allocation_after(ctx, -1);
        if (st == TILEC_OK) break;
        failures++;
        other += st != TILEC_E_NOMEM;
        CHECK(m == NULL && tilec_diag_count(ctx) > 0);
    }
    CHECK(failures > 50 && m != NULL);
    CHECK_MSG(other == 0, "%d allocation failures reported another status than out-of-memory", other);
    strbuf whole;
    strbuf_init(&whole, ctx);
    CHECK(m && tir_print_to_strbuf(m, &whole));
    for (long n = 0; m; n++) {
        strbuf s;
        strbuf_init(&s, ctx);
        tilec_context_fail_allocation_after(ctx, n);
        bool ok = tir_print_to_strbuf(m, &s);
        tilec_context_fail_allocation_after(ctx, -1);
        if (ok) CHECK(!strcmp(strbuf_cstr(&s), strbuf_cstr(&whole)));
        strbuf_free(&s);
        if (ok) break;
    }
    strbuf_free(&whole);
    tir_module_destroy(m);
    free(src);
}

int main(void) {
    tilec_context_create(NULL, &ctx);
    test_shape_params();
    test_constants();
    test_structure();
    test_map_and_sugar();
    test_combine();
    test_combine_errors();
    test_stride_clause();
    test_syntax_errors();
    test_shape_errors();
    test_nesting_and_defines();
    test_percent_lexing();
    test_ranged_shape_params();
    test_allocation_failures();
    test_mutations();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
