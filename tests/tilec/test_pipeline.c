/* The public pipeline (include/tilec/pipeline.h): stage names parsed and
 * named; a run stopped after each stage prints what the stages asked, in
 * order, each once, and makes a kernel only at emit; what a stage prints is
 * what the facade says of the same run (tilec_explain's report, a kernel's
 * captured IR); the checks after each stage pass on the examples; the XIR
 * interpreter's kernels (packed panels and an empty root domain included)
 * agree with the reference interpreter (bitwise on exact inputs), and so
 * does the reference engine's; bad configurations are diagnostics. */
#include "facade_fixture.h"
#include "tilec/pipeline.h"

typedef struct {
    strbuf text;
    int calls;
} sink;

static tilec_status collect(void *user, const char *bytes, size_t n) {
    sink *s = user;
    strbuf_append_n(&s->text, bytes, n);
    s->calls++;
    return TILEC_OK;
}

static tilec_status refuse(void *user, const char *bytes, size_t n) {
    (void)user, (void)bytes, (void)n;
    return TILEC_E_IO;
}

static void test_stage_names(void) {
    for (int s = 0; s < TILEC_STAGE_COUNT; s++) {
        tilec_stage back = TILEC_STAGE_COUNT;
        CHECK(tilec_stage_name((tilec_stage)s) && tilec_stage_parse(ctx, tilec_stage_name((tilec_stage)s), &back) == 0);
        CHECK(back == (tilec_stage)s);
    }
    CHECK(!strcmp(tilec_stage_name(TILEC_STAGE_LOWER), "lower") && !tilec_stage_name(TILEC_STAGE_COUNT));
    tilec_stage out;
    CHECK(tilec_stage_parse(ctx, "codegen", &out) == TILEC_E_ARG && has_diag("TILEC-A02", "'codegen' is not a stage"));
    flush_diags_in(ctx);
    CHECK(tilec_stage_parse(ctx, NULL, &out) == TILEC_E_ARG && has_diag("TILEC-A02", NULL));
    flush_diags_in(ctx);
}

/* Stopped after each stage in turn, printing all: one write per stage run,
 * a kernel only at emit. */
static void test_stop_and_print(const tir_func *f) {
    static const char *const opens[TILEC_STAGE_COUNT] = {"kernel @gemm", "kernel @gemm", "@gemm: plan for target",
                                                         "// @gemm: not split: ", "// dispatch_size=", "; ModuleID"};
    for (int stop = 0; stop < TILEC_STAGE_COUNT; stop++) {
        sink s = {.calls = 0};
        strbuf_init(&s.text, ctx);
        tilec_pipeline_config c = tilec_pipeline_config_default();
        c.stop_after = (tilec_stage)stop;
        c.print_after = (1u << TILEC_STAGE_COUNT) - 1;
        c.write = collect;
        c.user = &s;
        tilec_compile_options o = tilec_compile_options_default();
        o.threads = 1;
        tilec_kernel *k = NULL;
        CHECK_MSG(tilec_pipeline_run(ctx, f, &o, &c, &k) == TILEC_OK, "stop after %s", tilec_stage_name(stop));
        flush_diags_in(ctx);
        CHECK_MSG(s.calls == stop + 1, "stop after %s: %d prints", tilec_stage_name(stop), s.calls);
        CHECK((k != NULL) == (stop == TILEC_STAGE_EMIT));
        /* each stage's text, in order */
        const char *at = strbuf_cstr(&s.text);
        for (int i = 0; i <= stop && at; i++) {
            at = strstr(at, opens[i]);
            CHECK_MSG(at, "stop after %s: no '%s' in order", tilec_stage_name(stop), opens[i]);
            if (at) at++;
        }
        if (k) CHECK(strstr(strbuf_cstr(&s.text), tilec_kernel_ir(k)) != NULL); /* the JIT's IR, kept */
        tilec_kernel_destroy(k);
        strbuf_free(&s.text);
    }
}

/* The plan printed with explain is tilec_explain's report, byte for byte;
 * a write that fails fails the run. */
static void test_plan_print_is_explain(const tir_func *f) {
    sink a = {.calls = 0}, b = {.calls = 0};
    strbuf_init(&a.text, ctx);
    strbuf_init(&b.text, ctx);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 2;
    CHECK(tilec_explain(ctx, f, &o, collect, &a) == TILEC_OK);
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.stop_after = TILEC_STAGE_PLAN;
    c.print_after = 1u << TILEC_STAGE_PLAN;
    c.explain = true;
    c.write = collect;
    c.user = &b;
    CHECK(tilec_pipeline_run(ctx, f, &o, &c, NULL) == TILEC_OK);
    CHECK(a.calls == 1 && b.calls == 1 && a.text.len > 100 && !strcmp(strbuf_cstr(&a.text), strbuf_cstr(&b.text)));
    c.json = true;
    strbuf_free(&b.text);
    strbuf_init(&b.text, ctx);
    CHECK(tilec_pipeline_run(ctx, f, &o, &c, NULL) == TILEC_OK);
    CHECK(strbuf_cstr(&b.text)[0] == '{' && strstr(strbuf_cstr(&b.text), "\"ranking\"") != NULL);
    c.write = refuse;
    CHECK(tilec_pipeline_run(ctx, f, &o, &c, NULL) == TILEC_E_IO);
    flush_diags_in(ctx);
    strbuf_free(&a.text);
    strbuf_free(&b.text);
}

/* Every stage's check passes on the examples, on the host and on the
 * modeled target; a modeled run stops before emit (no kernel). */
static void test_verify_each(void) {
    static const char *const names[] = {"gemm", "softmax", "attention", "layernorm", "rope", "swiglu", "bmm"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        tir_module *m = parse_example(ctx, names[i], NULL, 0);
        if (!m) continue;
        for (int modeled = 0; modeled < 2; modeled++) {
            tilec_pipeline_config c = tilec_pipeline_config_default();
            c.verify_after = (1u << TILEC_STAGE_COUNT) - 1;
            c.modeled = modeled;
            tilec_compile_options o = tilec_compile_options_default();
            o.threads = 1;
            tilec_kernel *k = NULL;
            CHECK_MSG(tilec_pipeline_run(ctx, tir_module_func(m, 0), &o, &c, &k) == TILEC_OK, "%s modeled=%d",
                      names[i], modeled);
            flush_diags_in(ctx);
            CHECK((k != NULL) == !modeled);
            tilec_kernel_destroy(k);
        }
        tir_module_destroy(m);
    }
}

/* A kernel of the XIR interpreter: `pack` on forces panel copies. */
static tilec_kernel *xir_kernel(const tir_func *f, uint32_t width, tilec_pack pack) {
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.engine = TILEC_ENGINE_XIR;
    tilec_compile_options o = tilec_compile_options_default();
    o.width = width;
    o.pack = pack;
    tilec_kernel *k = NULL;
    CHECK(tilec_pipeline_run(ctx, f, &o, &c, &k) == TILEC_OK && k);
    flush_diags_in(ctx);
    return k;
}

static void test_xir_engine(void) {
    static const example_case cases[] = {
        {"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 6, -1, -1},
        {"softmax", {{0}}, 0, 1, 0},
        {"attention", {{0}}, 0, -1, -1},
        {"rmsnorm", {{"R", 6}, {"W", 130}}, 2, -1, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const example_case *e = &cases[i];
        tir_module *m = parse_example(ctx, e->name, e->defines, e->n_defines);
        if (!m) continue;
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t w = 4; w <= 16; w *= 4) {
            tilec_kernel *k = xir_kernel(f, w, TILEC_PACK_AUTO);
            if (!k) continue;
            CHECK(tilec_kernel_width(k) == w && tilec_kernel_dispatch_size(k) > 0 && !tilec_kernel_ir(k));
            CHECK(has_item(tilec_kernel_realization(k), "target=xir;"));
            run_config c = example_config(e, w, false);
            char label[96];
            snprintf(label, sizeof label, "xir %s W=%u", e->name, w);
            run_facade(label, f, k, &c);
            tilec_kernel_destroy(k);
        }
        tir_module_destroy(m);
    }
}

/* Packed panels on the interpreter: the copy kernels run first; exact
 * inputs give the reference's bits. */
static void test_xir_packed(void) {
    tir_define d[] = {{"M", 32}, {"N", 32}, {"K", 64}, {"BM", 8}, {"BN", 16}, {"BK", 8}};
    tir_module *m = parse_example(ctx, "gemm", d, 6);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_kernel *k = xir_kernel(f, 8, TILEC_PACK_ON);
    if (k) {
        CHECK_MSG(tilec_kernel_pack_count(k) > 0, "gemm with pack=on packs: %s", tilec_kernel_realization(k));
        run_config c = run_config_default(8, true);
        run_facade("xir gemm packed", f, k, &c);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

/* An empty root domain: dispatch size 0, the arguments still checked. */
static void test_xir_empty(void) {
    tir_define d[] = {{"R", 0}};
    tir_module *m = parse_example(ctx, "softmax", d, 1);
    if (!m) return;
    tilec_kernel *k = xir_kernel(tir_module_func(m, 0), 8, TILEC_PACK_AUTO);
    if (k) {
        CHECK(tilec_kernel_dispatch_size(k) == 0 && tilec_kernel_arg_count(k) == 2);
        float x = 1;
        tilec_buffer args[2] = {{&x, 0, TIR_F32}, {&x, 0, TIR_F32}};
        CHECK(tilec_dispatch(ctx, k, 2, args) == TILEC_OK);
        CHECK(tilec_dispatch(ctx, k, 1, args) != TILEC_OK && has_diag("RT-D02", NULL));
        flush_diags_in(ctx);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

/* The reference engine: the TileIR as written, no plan, no lowering; its
 * dispatch is tir_interpret's, bit for bit. */
static void test_reference_engine(void) {
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.engine = TILEC_ENGINE_REFERENCE;
    c.print_after = (1u << TILEC_STAGE_COUNT) - 1;
    sink s = {.calls = 0};
    strbuf_init(&s.text, ctx);
    c.write = collect;
    c.user = &s;
    tilec_kernel *k = NULL;
    CHECK(tilec_pipeline_run(ctx, f, NULL, &c, &k) == TILEC_OK && k);
    /* flatten, verify and emit print the kernel; plan, split, lower print nothing */
    CHECK_MSG(s.calls == 3 && !strstr(strbuf_cstr(&s.text), "plan for target"), "%d prints", s.calls);
    strbuf_free(&s.text);
    if (k) {
        CHECK(has_item(tilec_kernel_realization(k), "target=reference;") && tilec_kernel_arg_count(k) == 2);
        run_config rc = run_config_default(1, true);
        run_facade("reference softmax", f, k, &rc);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
}

static void test_bad_configs(const tir_func *f) {
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.print_after = 1u << TILEC_STAGE_PLAN; /* no write */
    CHECK(tilec_pipeline_run(ctx, f, NULL, &c, NULL) == TILEC_E_ARG && has_diag("TILEC-A01", NULL));
    flush_diags_in(ctx);
    c = tilec_pipeline_config_default();
    c.stop_after = TILEC_STAGE_COUNT;
    CHECK(tilec_pipeline_run(ctx, f, NULL, &c, NULL) == TILEC_E_ARG && has_diag("TILEC-A02", NULL));
    flush_diags_in(ctx);
    c = tilec_pipeline_config_default();
    c.engine = (tilec_engine)7;
    CHECK(tilec_pipeline_run(ctx, f, NULL, &c, NULL) == TILEC_E_ARG && has_diag("TILEC-A02", "engine 7"));
    flush_diags_in(ctx);
    c = tilec_pipeline_config_default();
    c.verify_after = 1u << TILEC_STAGE_COUNT;
    CHECK(tilec_pipeline_run(ctx, f, NULL, &c, NULL) == TILEC_E_ARG && has_diag("TILEC-A02", NULL));
    flush_diags_in(ctx);
    CHECK(tilec_pipeline_run(ctx, NULL, NULL, NULL, NULL) == TILEC_E_ARG && has_diag("TILEC-A01", NULL));
    flush_diags_in(ctx);
    /* the context stays usable: a whole run still compiles */
    tilec_kernel *k = NULL;
    CHECK(tilec_pipeline_run(ctx, f, NULL, NULL, &k) == TILEC_OK && k);
    tilec_kernel_destroy(k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_stage_names();
    tir_module *m = parse_example(ctx, "gemm", NULL, 0);
    if (m) {
        test_stop_and_print(tir_module_func(m, 0));
        test_plan_print_is_explain(tir_module_func(m, 0));
        test_bad_configs(tir_module_func(m, 0));
    }
    tir_module_destroy(m);
    test_verify_each();
    test_xir_engine();
    test_xir_packed();
    test_xir_empty();
    test_reference_engine();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
