/* Round trip of the text form: print(parse(print(m))) == print(m) byte for
 * byte, for every kernel file in tests/kernels/ and examples/ (found at run
 * time) and for modules built through the C builder, capture and library APIs,
 * including names and labels the printer must rewrite (collisions, shadowing,
 * invalid characters) and float literals that must read back bit-exactly. */
#include "examples_util.h"
#include "tir/ir.h"
#include "tir/text.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static tilec_context *ctx;

/* print(m) as a malloc'd string, or NULL. */
static char *print_module(const tir_module *m) {
    strbuf s;
    strbuf_init(&s, ctx);
    bool ok = tir_print_to_strbuf(m, &s);
    char *copy = ok ? strdup(strbuf_cstr(&s)) : NULL;
    strbuf_free(&s);
    return copy;
}

static void dump_diags(void) { tilec_diag_print(ctx, stderr); }

/* Checks that `text` reparses and prints identically; returns the reparsed
 * module (NULL on failure). */
static tir_module *check_fixed_point(const char *what, const char *text) {
    tir_module *m2 = NULL;
    tilec_status st = tir_parse(ctx, text, strlen(text), what, NULL, 0, &m2);
    CHECK_MSG(st == TILEC_OK && m2, "%s: printed text does not parse:\n%s", what, text);
    if (!m2) {
        dump_diags();
        return NULL;
    }
    CHECK_MSG(tir_verify(ctx, m2) == TILEC_OK, "%s: the reparsed module does not verify", what);
    char *again = print_module(m2);
    CHECK_MSG(again && !strcmp(again, text), "%s: not a fixed point\n--- first\n%s--- second\n%s", what, text,
              again ? again : "(null)");
    free(again);
    return m2;
}

/* print(m) must be a fixed point of parse+print; returns the printed text. */
static char *check_roundtrip(const char *what, const tir_module *m) {
    CHECK_MSG(tir_verify(ctx, m) == TILEC_OK, "%s: the module does not verify", what);
    char *text = print_module(m);
    CHECK_MSG(text != NULL, "%s: printing failed", what);
    if (!text) return NULL;
    tir_module_destroy(check_fixed_point(what, text));
    return text;
}

/* ---- kernel files ---- */

/* Round-trips one *.tir file (every file counts). */
static bool roundtrip_file(const char *path, const char *name, const char *src, size_t len, void *env) {
    (void)name, (void)env;
    tir_module *m = NULL;
    tilec_status st = tir_parse(ctx, src, len, path, NULL, 0, &m);
    CHECK_MSG(st == TILEC_OK, "%s does not parse", path);
    if (st != TILEC_OK) dump_diags();
    if (m) {
        CHECK_MSG(tir_module_func_count(m) > 0, "%s has no kernel", path);
        free(check_roundtrip(path, m));
    }
    tir_module_destroy(m);
    return true;
}

static void test_kernel_files(void) {
    int kernels = for_each_source(TILEC_SOURCE_DIR "/tests/kernels", ".tir", roundtrip_file, NULL);
    CHECK_MSG(kernels >= 8, "expected the test kernels in tests/kernels, found %d", kernels);
    for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", roundtrip_file, NULL); /* whatever examples exist */
}

/* ---- the canonical form, pinned ---- */

static void test_canonical_form(void) {
    const char *src =
        "kernel @k<N=4>(%X: const view<f32>[X.0=N], %Y: view<f32>[Y.0=N]) {\n"
        "  parallel (%i: i=N) {   // comment\n"
        "    %z = const index 0\n"
        "    %t = load %X[%z] tile [e=N] stride [1]\n" /* all-1 strides: the contiguous form */
        "    %s = reduce.add %t over (e)\n"
        "    %r = serial (%k: k=2) iter(%a = %s) -> (tile<f32>[]) { yield %a }\n"
        "    %v = extract %r[]\n"
        "    store %Y[%i], %v\n"
        "    yield\n"
        "  }\n"
        "}\n";
    const char *expected =
        "kernel @k(%X: const view<f32>[X.0=4], %Y: view<f32>[Y.0=4]) {\n"
        "  parallel (%i: i=4) {\n"
        "    %z = const index 0\n"
        "    %t = load %X[%z] tile [e=4] bounds=zero\n"
        "    %s = map () -> f32 {\n"
        "      %0 = const f32 0.0\n"
        "      %1 = reduce (%2: e=4) policy=unordered_tree iter(%3 = %0) -> (f32) {\n"
        "        %4 = extract %t[%2]\n"
        "        %5 = add %3, %4\n"
        "        yield %5\n"
        "      }\n"
        "      yield %1\n"
        "    }\n"
        "    %r = serial (%k: k=2) iter(%a = %s) -> (tile<f32>[]) {\n"
        "      yield %a\n"
        "    }\n"
        "    %v = extract %r[]\n"
        "    store %Y[%i], %v\n"
        "  }\n"
        "}\n";
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, src, strlen(src), "canon", NULL, 0, &m) == TILEC_OK);
    if (!m) {
        dump_diags();
        return;
    }
    char *text = print_module(m);
    CHECK_MSG(text && !strcmp(text, expected), "canonical form differs:\n%s", text ? text : "(null)");
    free(text);
    tir_module_destroy(m);
}

/* ---- modules built through the C API ---- */

static tir_space *space1(tir_module *m, tir_dim *d, uint64_t e) { return tir_space_make(m, 1, &d, &e); }
static tir_space *space2(tir_module *m, tir_dim *a, uint64_t ea, tir_dim *b, uint64_t eb) {
    tir_dim *d[2] = {a, b};
    uint64_t e[2] = {ea, eb};
    return tir_space_make(m, 2, d, e);
}

static void test_builder_softmax(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "softmax");
    uint64_t ext[2] = {17, 65};
    tir_value *x = tir_func_add_view(f, "X", TIR_F32, 2, ext, true);
    tir_value *y = tir_func_add_view(f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(f);
    tir_dim *rows = tir_dim_new(m, "rows"), *one = tir_dim_new(m, "one"), *cols = tir_dim_new(m, "cols");
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, rows, 17), NULL, 0, NULL);
    tir_value *origin[2] = {tir_region_coord(par, 0), tir_const_index(b, 0)};
    tir_value *t = tir_load_tile(b, x, origin, space2(m, one, 1, cols, 65), TIR_BOUNDS_ZERO, NULL);
    tir_value *mx = tir_lib_reduce(b, t, 1, &cols, TIR_REDUCER_MAX, TIR_REDUCE_UNORDERED_TREE);
    tir_value *e = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, t, mx));
    tir_value *sum = tir_lib_reduce(b, e, 1, &cols, TIR_REDUCER_ADD, TIR_REDUCE_FOLD_LEFT);
    tir_store_tile(b, y, origin, tir_ew2(b, TIR_EW_DIV, e, sum), TIR_BOUNDS_ZERO);
    tir_region_end(b, par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = check_roundtrip("builder softmax", m);
    CHECK_STR_CONTAINS(text, "policy=fold_left");
    CHECK_STR_CONTAINS(text, "%X: const view<f32>[X.0=17, X.1=65]");
    free(text);
    tir_module_destroy(m);
}

static void test_builder_gemm(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "gemm");
    uint64_t ea[2] = {16, 8}, eb[2] = {8, 12}, ec[2] = {16, 12};
    tir_value *A = tir_func_add_view(f, "A", TIR_F32, 2, ea, true);
    tir_value *B = tir_func_add_view(f, "B", TIR_F32, 2, eb, true);
    tir_value *C = tir_func_add_view(f, "C", TIR_F32, 2, ec, false);
    tir_builder *b = tir_builder_create(f);
    tir_dim *gm = tir_dim_new(m, "gm"), *gn = tir_dim_new(m, "gn"), *kt = tir_dim_new(m, "kt");
    tir_dim *dm = tir_dim_new(m, "m"), *dn = tir_dim_new(m, "n"), *dk = tir_dim_new(m, "k");
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space2(m, gm, 4, gn, 3), NULL, 0, NULL);
    tir_value *four = tir_const_index(b, 4);
    tir_value *m0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(par, 0), four);
    tir_value *n0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(par, 1), four);
    tir_value *zero = tir_lib_zeros(b, TIR_F32, space2(m, dm, 4, dn, 4));
    tir_region_opts opts = {.stages = 2, .initiation_interval = 1};
    tir_op *pipe = tir_region_begin(b, TIR_OP_PIPELINE, space1(m, kt, 2), &opts, 1, &zero);
    tir_stage(b, "load");
    tir_value *k0 = tir_ew2(b, TIR_EW_MUL, tir_region_coord(pipe, 0), four);
    tir_value *oa[2] = {m0, k0}, *ob[2] = {k0, n0};
    tir_value *a = tir_load_tile(b, A, oa, space2(m, dm, 4, dk, 4), TIR_BOUNDS_ZERO, NULL);
    tir_value *bt = tir_load_tile(b, B, ob, space2(m, dk, 4, dn, 4), TIR_BOUNDS_ASSUME, NULL);
    tir_stage(b, "compute");
    tir_value *next = tir_mma(b, a, bt, tir_region_carry(pipe, 0), false);
    tir_region_end(b, pipe, 1, &next);
    tir_value *oc[2] = {m0, n0};
    tir_store_tile(b, C, oc, tir_op_result(pipe, 0), TIR_BOUNDS_ZERO);
    tir_region_end(b, par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = check_roundtrip("builder gemm", m);
    CHECK_STR_CONTAINS(text, "%6 = pipeline (%7: kt=2) stages=2 ii=1 iter(%8 = %5) -> (tile<f32>[m=4, n=4]) {");
    CHECK_STR_CONTAINS(text, "stage \"load\"");
    CHECK_STR_CONTAINS(text, "%12 = mma %10, %11, %8 ordered");
    CHECK_STR_CONTAINS(text, "bounds=assume");
    free(text);
    tir_module_destroy(m);
}

/* old = a; a = a + b; b = old, through the capture builder. */
static void test_capture_swap(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "swap");
    uint64_t two = 2;
    tir_value *y = tir_func_add_view(f, "Y", TIR_F64, 1, &two, false);
    tir_builder *b = tir_builder_create(f);
    tir_var *a = tir_var_new(b, tir_const_float(b, TIR_F64, 1));
    tir_var *bv = tir_var_new(b, tir_const_float(b, TIR_F64, 10));
    tir_dim *t = tir_dim_new(m, "t");
    tir_op *loop = tir_capture_begin(b, TIR_OP_SERIAL, space1(m, t, 5), NULL);
    tir_value *old = tir_var_get(b, a);
    tir_var_set(b, a, tir_ew2(b, TIR_EW_ADD, tir_var_get(b, a), tir_var_get(b, bv)));
    tir_var_set(b, bv, old);
    CHECK(tir_capture_end(b, loop) == TILEC_OK);
    tir_value *i0 = tir_const_index(b, 0), *i1 = tir_const_index(b, 1);
    tir_store_elem(b, y, &i0, tir_var_get(b, a));
    tir_store_elem(b, y, &i1, tir_var_get(b, bv));
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = check_roundtrip("capture swap", m);
    CHECK_STR_CONTAINS(text, "%2, %3 = serial (%4: t=5) iter(%5 = %0, %6 = %1) -> (f64, f64) {");
    CHECK_STR_CONTAINS(text, "yield %7, %5");
    free(text);
    tir_module_destroy(m);
}

/* Labels and names the printer must rewrite, and still reach a fixed point. */
static void test_names_and_labels(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "my kernel");
    tir_func *f2 = tir_func_new(m, "my_kernel");
    uint64_t e4 = 4;
    tir_value *x = tir_func_add_view(f, "0bad name", TIR_F32, 1, &e4, false);
    tir_builder *b = tir_builder_create(f);
    /* Three dims labeled k, k, k#2 and one with an invalid label. */
    tir_dim *k1 = tir_dim_new(m, "k"), *k2 = tir_dim_new(m, "k"), *k3 = tir_dim_new(m, "k#2");
    tir_dim *odd = tir_dim_new(m, "9-odd");
    tir_value *c1 = tir_const(b, tir_type_tile(m, TIR_F32, space1(m, k3, 4)), (tir_literal){TIR_LIT_FLOAT, {.f = 1}});
    tir_value *c2 = tir_const(b, tir_type_tile(m, TIR_F32, space1(m, k1, 4)), (tir_literal){TIR_LIT_FLOAT, {.f = 2}});
    tir_value *c3 = tir_const(b, tir_type_tile(m, TIR_F32, space1(m, k2, 4)), (tir_literal){TIR_LIT_FLOAT, {.f = 3}});
    tir_value *c4 = tir_const(b, tir_type_tile(m, TIR_F32, space1(m, odd, 4)), (tir_literal){TIR_LIT_FLOAT, {.f = 4}});
    tir_value_set_name(m, c1, "x");
    tir_value_set_name(m, c2, "0"); /* fresh names must skip it */
    tir_value *u = tir_const_index(b, 7); /* unnamed: gets a fresh name that is not %0 */
    tir_value_set_name(m, c3, "");
    tir_value_set_name(m, c4, "has space");
    tir_value *sum = tir_ew2(b, TIR_EW_ADD, c2, c3);
    tir_value_set_name(m, sum, "x"); /* same name as c1, visible: renamed */
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, k1, 4), NULL, 0, NULL);
    tir_value *coord = tir_region_coord(par, 0);
    tir_value_set_name(m, coord, "x"); /* would shadow: renamed */
    tir_value *e = tir_extract(b, c1, 1, &coord);
    tir_store_elem(b, x, &u, e);
    tir_region_end(b, par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    b = tir_builder_create(f2);
    tir_const_bool(b, true);
    tir_builder_destroy(b);
    char *text = check_roundtrip("names and labels", m);
    CHECK_STR_CONTAINS(text, "kernel @my_kernel(%0bad_name: view<f32>[_0bad_name.0=4]) {");
    CHECK_STR_CONTAINS(text, "kernel @my_kernel_2() {");
    CHECK_STR_CONTAINS(text, "%x = const tile<f32>[k#2=4] 1.0");
    CHECK_STR_CONTAINS(text, "%0 = const tile<f32>[k=4] 2.0");
    CHECK_STR_CONTAINS(text, "%1 = const tile<f32>[k#3=4] 3.0"); /* fresh, skipping the taken %0 */
    CHECK_STR_CONTAINS(text, "%2 = const index 7");
    CHECK_STR_CONTAINS(text, "%has_space = const tile<f32>[_9_odd=4] 4.0");
    CHECK_STR_CONTAINS(text, "%3 = add %0, %1"); /* %x is visible: renamed */
    CHECK_STR_CONTAINS(text, "parallel (%4: k=4) {");
    CHECK_STR_CONTAINS(text, "store %0bad_name[%2], %5");
    free(text);
    tir_module_destroy(m);
}

/* An online-softmax state (row max: a scalar carry; rescaled row of
 * exponentials: a tile carry) with a combine block.  The block is named
 * against its own names only: an argument may keep an outer name (%row), a
 * clash among its own arguments is renamed, unnamed values get fresh numbers. */
static void test_builder_combine(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "online");
    uint64_t ext[2] = {4, 64};
    tir_value *X = tir_func_add_view(f, "X", TIR_F32, 2, ext, true);
    tir_value *Y = tir_func_add_view(f, "Y", TIR_F32, 2, ext, false);
    tir_builder *b = tir_builder_create(f);
    tir_dim *rows = tir_dim_new(m, "rows"), *n = tir_dim_new(m, "n"), *d = tir_dim_new(m, "d");
    tir_op *par = tir_region_begin(b, TIR_OP_PARALLEL, space1(m, rows, 4), NULL, 0, NULL);
    tir_value *row = tir_region_coord(par, 0);
    tir_value_set_name(m, row, "row");
    tir_value *c16 = tir_const_index(b, 16);
    tir_value *init[2];
    init[0] = tir_const_float(b, TIR_F32, -1e30); /* one statement each: the numbering follows program order */
    init[1] = tir_lib_zeros(b, TIR_F32, space2(m, rows, 1, d, 16));
    tir_op *r = tir_region_begin(b, TIR_OP_REDUCE, space1(m, n, 4), NULL, 2, init);
    tir_value_set_name(m, tir_region_carry(r, 0), "m");
    tir_value *origin[2] = {row, tir_ew2(b, TIR_EW_MUL, tir_region_coord(r, 0), c16)};
    tir_value *t = tir_load_tile(b, X, origin, space2(m, rows, 1, d, 16), TIR_BOUNDS_ZERO, NULL);
    tir_value *tmax = tir_extract(b, tir_lib_reduce(b, t, 2, (tir_dim *[]){rows, d}, TIR_REDUCER_MAX,
                                                    TIR_REDUCE_UNORDERED_TREE), 0, NULL);
    tir_value *mnew = tir_ew2(b, TIR_EW_MAX, tir_region_carry(r, 0), tmax);
    tir_value *scale = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, tir_region_carry(r, 0), mnew));
    tir_value *e = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, t, mnew));
    tir_value *next[2] = {mnew, tir_ew2(b, TIR_EW_ADD, tir_ew2(b, TIR_EW_MUL, tir_region_carry(r, 1), scale), e)};
    CHECK(tir_region_end(b, r, 2, next) == TILEC_OK);
    CHECK(tir_combine_begin(b, r) == r);
    tir_value *lm = tir_combine_arg(r, 0), *la = tir_combine_arg(r, 1);
    tir_value *rm = tir_combine_arg(r, 2), *ra = tir_combine_arg(r, 3);
    tir_value_set_name(m, lm, "m");
    tir_value_set_name(m, rm, "m"); /* clashes with the left one: renamed */
    tir_value_set_name(m, la, "row"); /* an outer name, not visible here: kept */
    tir_value *mm = tir_ew2(b, TIR_EW_MAX, lm, rm);
    tir_value_set_name(m, mm, "m3");
    tir_value *ls = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, lm, mm));
    tir_value *rs = tir_ew1(b, TIR_EW_EXP, tir_ew2(b, TIR_EW_SUB, rm, mm));
    tir_value *lw = tir_ew2(b, TIR_EW_MUL, la, ls);
    tir_value *rw = tir_ew2(b, TIR_EW_MUL, ra, rs);
    tir_value *merged[2] = {mm, tir_ew2(b, TIR_EW_ADD, lw, rw)};
    CHECK(tir_combine_end(b, r, 2, merged) == TILEC_OK);
    tir_store_tile(b, Y, (tir_value *[]){row, tir_const_index(b, 0)}, tir_op_result(r, 1), TIR_BOUNDS_ZERO);
    tir_region_end(b, par, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    if (tir_builder_status(b) != TILEC_OK) dump_diags();
    tir_builder_destroy(b);
    char *text = check_roundtrip("builder combine", m);
    CHECK_STR_CONTAINS(text, "      yield %18, %24\n"
                             "    } combine (%m, %row) (%25, %26) {\n"
                             "      %m3 = max %m, %25\n"
                             "      %27 = sub %m, %m3\n");
    CHECK_STR_CONTAINS(text, "      %31 = mul %row, %28\n"
                             "      %32 = mul %26, %30\n"
                             "      %33 = add %31, %32\n"
                             "      yield %m3, %33\n"
                             "    }\n"
                             "    %34 = const index 0\n");
    free(text);
    tir_module_destroy(m);
}

/* The positional mma fallback relabels its operands through maps. */
static void test_positional_mma(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "pos");
    tir_builder *b = tir_builder_create(f);
    tir_dim *p = tir_dim_new(m, "p"), *q = tir_dim_new(m, "q"), *r = tir_dim_new(m, "r"), *s = tir_dim_new(m, "s");
    tir_value *a = tir_lib_zeros(b, TIR_F32, space2(m, p, 2, q, 3));
    tir_value *bm = tir_lib_zeros(b, TIR_F32, space2(m, r, 3, s, 5));
    tir_value *c = tir_lib_zeros(b, TIR_F32, space2(m, p, 2, s, 5));
    CHECK(tir_mma(b, a, bm, c, true) != NULL);
    tir_value *wide = tir_lib_matmul(b, a, tir_lib_zeros(b, TIR_F32, space2(m, q, 3, s, 5)));
    CHECK(wide != NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = check_roundtrip("positional mma", m);
    CHECK_STR_CONTAINS(text, "%3 = map (%4: p=2, %5: k=3) -> f32 {");
    free(text);
    tir_module_destroy(m);
}

/* Stage names print as STRING tokens: characters a STRING cannot hold become
 * '_', and an empty name (which the verifier rejects) prints as no name. */
static void test_stage_names(void) {
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "stages");
    tir_builder *b = tir_builder_create(f);
    tir_dim *d = tir_dim_new(m, "s");
    tir_op *pipe = tir_region_begin(b, TIR_OP_PIPELINE, space1(m, d, 2), NULL, 0, NULL);
    tir_stage(b, "");
    tir_stage(b, "a\"b\nc\\d");
    tir_region_end(b, pipe, 0, NULL);
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = print_module(m);
    CHECK_STR_CONTAINS(text, "    stage\n    stage \"a_b_c\\d\"\n");
    if (text) tir_module_destroy(check_fixed_point("stage names", text));
    free(text);
    tir_module_destroy(m);
}

static tilec_status failing_write(void *user, const char *bytes, size_t n) {
    (void)bytes;
    *(size_t *)user += n;
    return TILEC_E_IO;
}

/* tir_print passes the whole text to the writer and returns its status;
 * tir_print_file writes the same bytes. */
static void test_print_api(void) {
    const char *src = "kernel @a() {\n  %x = const f32 2.0\n}\n\nkernel @b() {\n}\n";
    tir_module *m = NULL;
    CHECK(tir_parse(ctx, src, strlen(src), "api", NULL, 0, &m) == TILEC_OK);
    if (!m) return;
    size_t seen = 0;
    CHECK(tir_print(m, failing_write, &seen) == TILEC_E_IO && seen == strlen(src));
    CHECK(tir_print(NULL, failing_write, NULL) == TILEC_E_ARG && tir_print(m, NULL, NULL) == TILEC_E_ARG);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK(tir_print_file(m, f) == TILEC_OK);
        rewind(f);
        char buf[256] = {0};
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        CHECK(got == strlen(src) && !strcmp(buf, src));
        fclose(f);
    }
    tir_module_destroy(m);
}

static bool same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* Float literals print short and read back bit-exactly. */
static void test_float_literals(void) {
    static const double values[] = {0.1, 1.0 / 3.0, -0.0, 0.0, 100.0, 1e22, 1e-310, 5e-324, DBL_MAX, DBL_MIN,
                                    -123456.789, 2.5e-7, 1e16, 12345678901234567e3, 0.000123, 3.0e-5};
    const size_t n = sizeof values / sizeof values[0];
    tir_module *m = tir_module_create(ctx);
    tir_func *f = tir_func_new(m, "floats");
    tir_builder *b = tir_builder_create(f);
    for (size_t i = 0; i < n; i++) tir_const_float(b, i % 2 ? TIR_F32 : TIR_F64, values[i]);
    tir_const_float(b, TIR_F64, INFINITY);
    tir_const_float(b, TIR_F64, -INFINITY);
    tir_const_float(b, TIR_F32, NAN);
    tir_const(b, tir_type_scalar(m, TIR_F32), (tir_literal){TIR_LIT_INT, {.i = -3}});
    tir_const(b, tir_type_scalar(m, TIR_F64), (tir_literal){TIR_LIT_UINT, {.u = UINT64_MAX}});
    tir_const(b, tir_type_scalar(m, TIR_U64), (tir_literal){TIR_LIT_UINT, {.u = UINT64_MAX}});
    tir_const(b, tir_type_scalar(m, TIR_I64), (tir_literal){TIR_LIT_INT, {.i = INT64_MIN}});
    CHECK(tir_builder_status(b) == TILEC_OK);
    tir_builder_destroy(b);
    char *text = print_module(m);
    CHECK_STR_CONTAINS(text, "const f64 0.1\n");
    CHECK_STR_CONTAINS(text, "const f64 100.0\n");
    CHECK_STR_CONTAINS(text, "const f64 -0.0\n");
    CHECK_STR_CONTAINS(text, "const f32 1e+22\n");
    CHECK_STR_CONTAINS(text, "const f64 inf\n");
    CHECK_STR_CONTAINS(text, "const f64 -inf\n");
    CHECK_STR_CONTAINS(text, "const f32 nan\n");
    CHECK_STR_CONTAINS(text, "const f32 -3.0\n");
    CHECK_STR_CONTAINS(text, "const u64 18446744073709551615\n");
    CHECK_STR_CONTAINS(text, "const i64 -9223372036854775808\n");
    tir_module *m2 = text ? check_fixed_point("floats", text) : NULL;
    if (m2) {
        tir_op *op = tir_block_first(tir_func_body(tir_module_func(m2, 0)));
        for (size_t i = 0; i < n && op; i++, op = tir_op_next(op))
            CHECK_MSG(op->literal.kind == TIR_LIT_FLOAT && same_bits(op->literal.as.f, values[i]),
                      "literal %zu (%.17g) read back as %.17g", i, values[i], op->literal.as.f);
    }
    free(text);
    tir_module_destroy(m2);
    tir_module_destroy(m);
}

int main(void) {
    tilec_context_create(NULL, &ctx);
    test_kernel_files();
    test_canonical_form();
    test_builder_softmax();
    test_builder_gemm();
    test_capture_swap();
    test_builder_combine();
    test_names_and_labels();
    test_positional_mma();
    test_stage_names();
    test_float_literals();
    test_print_api();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
