/* Kernel size: compile-time tables scale linearly.  A TileIR kernel of a
 * chain of 50 000 `max` with distinct integral f32 constants (generated
 * text; integral floats once all fell into one intern bucket) parses,
 * verifies, plans and lowers; every constant is interned once in the XIR
 * module, which verifies and round-trips through its text; the XIR
 * interpreter agrees bitwise with the reference interpreter (max is exact).
 * And 100 000 distinct TileIR spaces and types intern once each.  Nothing
 * is timed (a test's verdict must not depend on the machine's speed);
 * before the tables grew, the chain took ~30 s. */
#include "lower_fixture.h"

enum { CHAIN = 50000 };

/* %a0 = load X[i]; %aK = max %a(K-1), %cK with %cK = const f32 K; store. */
static char *chain_text(void) {
    strbuf s;
    strbuf_init(&s, ctx);
    strbuf_append(&s, "kernel @chain(%X: const view<f32>[x=4], %Y: view<f32>[y=4]) {\n"
                      "  parallel (%i: w=4) {\n    %a0 = load %X[%i]\n");
    for (int k = 1; k <= CHAIN; k++) strbuf_printf(&s, "    %%c%d = const f32 %d.0\n    %%a%d = max %%a%d, %%c%d\n", k, k, k, k - 1, k);
    strbuf_printf(&s, "    store %%Y[%%i], %%a%d\n  }\n}\n", CHAIN);
    char *text = s.failed ? NULL : strdup(strbuf_cstr(&s));
    strbuf_free(&s);
    return text;
}

static void test_constant_chain(void) {
    char *text = chain_text();
    CHECK(text != NULL);
    tir_module *m = text ? parse_kernel(text, NULL, 0) : NULL;
    free(text);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    lowering o = lowering_default();
    lower_result r;
    if (lower_ok(f, &o, &r)) {
        /* Every K in 1..CHAIN is already a constant of the module: looking
         * them up again adds none. */
        size_t before = r.module->constants.count, found = 0;
        for (int64_t k = 1; k <= CHAIN; k++) {
            xir_value *c = xir_const_float(r.module, TIR_F32, (double)k);
            found += c && c->constant.f == (double)k;
        }
        CHECK(before >= CHAIN && found == CHAIN && r.module->constants.count == before);
        CHECK(count_insts(r.module->funcs.data[0], XIR_INST_ARITH, XIR_OP_MAX) >= CHAIN);
        run_config c = run_config_default(4, true);
        xir_run x = {&r, c.width};
        CHECK(compare_with_reference("chain", "XIR", f, r.args, &c, run_xir, &x));
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

static void test_many_spaces(void) {
    enum { N = 100000 };
    tir_module *m = tir_module_create(ctx);
    tir_dim *rows = tir_dim_new(m, "r"), *cols = tir_dim_new(m, "c");
    tir_dim *dims[2] = {rows, cols};
    size_t distinct = 0, again = 0;
    tir_type *first = NULL;
    for (uint64_t n = 1; n <= N; n++) {
        uint64_t extents[2] = {n, 3};
        tir_space *s = tir_space_make(m, 2, dims, extents);
        tir_type *t = s ? tir_type_tile(m, TIR_F32, s) : NULL;
        if (!first) first = t;
        distinct += s && tir_space_extent(s, 0) == n && t && t != first;
        again += s == tir_space_make(m, 2, dims, extents) && t == tir_type_tile(m, TIR_F32, s);
    }
    CHECK(distinct == N - 1 && again == N);
    CHECK(m->spaces.count == N && m->types.count == N);
    /* Rank 0 and a rank above the 16 axes kept on the stack intern too. */
    tir_dim *many[20];
    uint64_t ones[20];
    for (size_t i = 0; i < 20; i++) {
        many[i] = tir_dim_new(m, "d");
        ones[i] = i + 1;
    }
    tir_space *scalar = tir_space_make(m, 0, NULL, NULL), *wide = tir_space_make(m, 20, many, ones);
    CHECK(scalar && scalar == tir_space_make(m, 0, NULL, NULL) && tir_space_rank(scalar) == 0);
    CHECK(wide && wide == tir_space_make(m, 20, many, ones) && tir_space_extent(wide, 19) == 20);
    CHECK(wide != tir_space_make(m, 19, many, ones));
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    test_constant_chain();
    test_many_spaces();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
