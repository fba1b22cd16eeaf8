/* Admission refusals (LOWER-A..) with their messages, option validation
 * (LOWER-O..: block width, packet width, partitions, root order — exact
 * text), the expansion budget (LOWER-B01), and the borrowing contract: the
 * TileIR is unchanged by lowering and lowers again to the same XIR. */
#include "lower_fixture.h"
#include "write_sink.h"

#include "realize/admit.h"

static void expect_refusal(const char *label, const char *text, plan_refusal reason, const char *message) {
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return;
    lower_result r;
    tilec_status st = lower_kernel(ctx, tir_module_func(m, 0), NULL, NULL, &r);
    CHECK_MSG(st == TILEC_E_UNSUPPORTED, "%s: status %s", label, tilec_status_name(st));
    CHECK_MSG(has_diag(plan_refusal_code(reason), message), "%s: no %s diagnostic containing '%s'", label,
              plan_refusal_code(reason), message);
    CHECK(r.module == NULL && r.kernel == NULL && r.args == NULL);
    plan_admission a;
    CHECK(plan_admit(ctx, tir_module_func(m, 0), &a) == TILEC_E_UNSUPPORTED && a.refusal == reason && !a.root);
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

static void test_refusals(void) {
    expect_refusal("no parallel",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  %c = const f32 1.0\n}\n", PLAN_REFUSE_ROOT_PARALLEL_COUNT,
                   "exactly one root parallel, found 0");
    expect_refusal("two parallels",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n"
                   "  parallel (%i: i=4) {\n    %c = const f32 1.0\n    store %X[%i], %c\n  }\n"
                   "  parallel (%j: j=4) {\n    %c = const f32 2.0\n    store %X[%j], %c\n  }\n}\n",
                   PLAN_REFUSE_ROOT_PARALLEL_COUNT, "found 2");
    expect_refusal("root load",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  %z = const index 0\n  %v = load %X[%z]\n"
                   "  parallel (%i: i=4) {\n    store %X[%i], %v\n  }\n}\n",
                   PLAN_REFUSE_ROOT_OP, "found 'load' op");
    expect_refusal("root loop",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  serial (%s: s=2) {\n  }\n"
                   "  parallel (%i: i=4) {\n    %c = const f32 1.0\n    store %X[%i], %c\n  }\n}\n",
                   PLAN_REFUSE_ROOT_OP, "found 'serial' op");
    expect_refusal("empty domain",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=0) {\n    %c = const f32 1.0\n"
                   "    store %X[%i], %c\n  }\n}\n",
                   PLAN_REFUSE_EMPTY_DOMAIN, "domain is empty");
    expect_refusal("tile extent",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=4) {\n"
                   "    %t = const tile<f32>[n=4294967296] 1.0\n  }\n}\n",
                   PLAN_REFUSE_EXTENT, "static extent 4294967296 of axis 'n' exceeds 4294967295");
    expect_refusal("view extent",
                   "kernel @k(%X: view<f32>[X.0=4294967296]) {\n  parallel (%i: i=4) {\n    %c = const f32 1.0\n"
                   "    store %X[%i], %c\n  }\n}\n",
                   PLAN_REFUSE_EXTENT, "a view parameter: static extent 4294967296");
    expect_refusal("root volume",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: a=65536, %j: b=65536) {\n  }\n}\n",
                   PLAN_REFUSE_VOLUME, "the root domain: volume");
    expect_refusal("tile volume",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=4) {\n"
                   "    %t = const tile<f32>[m=65536, n=65537] 1.0\n  }\n}\n",
                   PLAN_REFUSE_VOLUME, "a tile: volume");
    expect_refusal("group binding",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=4) scope=group {\n    %c = const f32 1.0\n"
                   "    store %X[%i], %c\n  }\n}\n",
                   PLAN_REFUSE_BINDING, "execution binding scope=group");
    expect_refusal("nested parallel",
                   "kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=2) {\n    parallel (%j: j=2) scope=vector {\n"
                   "      %c = const f32 1.0\n      store %X[%j], %c\n    }\n  }\n}\n",
                   PLAN_REFUSE_BINDING, "execution binding: nested parallel");
    expect_refusal("view bytes",
                   "kernel @k(%X: view<f64>[X.0=4294967295, X.1=4294967295, X.2=4294967295]) {\n"
                   "  parallel (%i: i=4) {\n  }\n}\n",
                   PLAN_REFUSE_VIEW_SIZE, "more bytes than 64 bits address");
    /* worker scope is admitted */
    tir_module *m = parse_kernel("kernel @k(%X: view<f32>[X.0=4]) {\n  parallel (%i: i=4) scope=worker {\n"
                                 "    %c = const f32 1.0\n    store %X[%i], %c\n  }\n}\n",
                                 NULL, 0);
    lower_result r;
    if (m && lower_ok(tir_module_func(m, 0), NULL, &r)) {
        CHECK(r.dispatch_size == 4);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
    CHECK(lower_kernel(ctx, NULL, NULL, NULL, &r) == TILEC_E_ARG && has_diag("LOWER-A00", "no kernel"));
    tilec_diag_clear(ctx);
    CHECK(lower_kernel(NULL, NULL, NULL, NULL, &r) == TILEC_E_ARG);
}

static const char store_2d[] =
    "kernel @grid(%O: view<f32>[O.0=4, O.1=6]) {\n"
    "  parallel (%a: a=4, %b: b=6) {\n    %c = const f32 1.0\n    store %O[%a, %b], %c\n  }\n}\n";

static void expect_option_error(tir_func *f, const lowering *o, const char *code, const char *message) {
    lower_result r;
    tilec_status st = lower_kernel(ctx, f, &o->record, &o->choice, &r);
    CHECK_MSG(st == TILEC_E_ARG && has_diag(code, message), "expected %s '%s', got %s", code, message,
              tilec_status_name(st));
    CHECK(r.module == NULL);
    tilec_diag_clear(ctx);
}

static void test_options(void) {
    tir_module *m = parse_kernel(store_2d, NULL, 0);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    static const uint32_t bad_blocks[] = {0, 33, 2048, 4};
    for (size_t i = 0; i < 4; i++) {
        lowering o = lowering_default(); /* W = 8 */
        o.choice.block = bad_blocks[i];
        expect_option_error(f, &o, "LOWER-O01", "block width");
    }
    /* the lowering refuses the block widths the planner's search rejects
     * (W = 8, the default choice), on a kernel of the planner's too */
    tir_module *g = parse_example(ctx, "gemm", NULL, 0);
    static const uint32_t bad_plan_blocks[] = {0, 1, 33, 2048};
    for (size_t i = 0; g && i < 4; i++) {
        realize_choice c = realize_choice_default();
        c.block = bad_plan_blocks[i];
        lower_result lr;
        CHECK(lower_kernel(ctx, tir_module_func(g, 0), NULL, &c, &lr) == TILEC_E_ARG && lr.module == NULL);
        CHECK(has_diag("LOWER-O01", "block width"));
        tilec_diag_clear(ctx);
    }
    tir_module_destroy(g);
    lowering o = lowering_default();
    o.choice.packet_width = 3;
    expect_option_error(f, &o, "LOWER-O02", "packet width 3");
    static const uint32_t bad_parts[] = {0, 17};
    for (size_t i = 0; i < 2; i++) {
        o = lowering_default();
        o.record.reduction_partitions = bad_parts[i];
        expect_option_error(f, &o, "LOWER-O04", "reduction_partitions");
    }
    static const uint32_t orders[][3] = {{0}, {0, 0}, {0, 2}, {1, 0, 2}, {2, 0}};
    static const size_t lens[] = {1, 2, 2, 3, 2};
    for (size_t i = 0; i < 5; i++) {
        o = lowering_default();
        o.choice.order = orders[i];
        o.choice.order_len = lens[i];
        lower_result r;
        CHECK(lower_kernel(ctx, f, &o.record, &o.choice, &r) == TILEC_E_ARG && r.module == NULL);
        CHECK(tilec_diag_count(ctx) == 1 &&
              !strcmp(tilec_diag_at(ctx, 0)->message, "XIR root axis order must be a complete permutation"));
        tilec_diag_clear(ctx);
    }
    /* Legal corner settings. */
    static const uint32_t widths[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < 5; i++) {
        o = lowering_default();
        o.choice.packet_width = widths[i];
        o.choice.block = widths[i] == 1 ? 1 : 1024;
        o.record.reduction_partitions = widths[i];
        lower_result r;
        if (lower_ok(f, &o, &r)) {
            CHECK(r.block_size == o.choice.block && r.kernel->block_size == o.choice.block);
            CHECK(r.packet_width == widths[i] && r.required_packet_width == 0);
            lower_result_free(&r);
        }
    }
    tir_module_destroy(m);
}

/* The expansion budget counts emitted XIR instructions: the exact count
 * passes, one less fails with "expansion budget" and no module. */
static void test_expansion_budget(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/gemm.tir", TILEC_SOURCE_DIR);
    size_t n;
    char *text = read_file(path, &n);
    if (!text) return;
    tir_define d[6] = {{"M", 8}, {"N", 8}, {"K", 8}, {"BM", 4}, {"BN", 4}, {"BK", 8}};
    tir_module *m = parse_kernel(text, d, 6);
    free(text);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    lowering o = lowering_default();
    o.choice.max_expanded_values = 8;
    lower_result r;
    CHECK(lower_kernel(ctx, f, &o.record, &o.choice, &r) == TILEC_E_BUDGET && r.module == NULL);
    CHECK(has_diag("LOWER-B01", "expansion budget") && has_diag("LOWER-B01", "max_expanded_values 8"));
    tilec_diag_clear(ctx);
    o = lowering_default();
    if (lower_ok(f, &o, &r)) {
        uint64_t needed = r.counters.xir_instructions;
        lower_result_free(&r);
        o.choice.max_expanded_values = needed;
        if (lower_ok(f, &o, &r)) lower_result_free(&r);
        o.choice.max_expanded_values = needed - 1;
        CHECK(lower_kernel(ctx, f, &o.record, &o.choice, &r) == TILEC_E_BUDGET && r.module == NULL && has_diag("LOWER-B01", NULL));
        tilec_diag_clear(ctx);
    }
    tir_module_destroy(m);
}

/* Lowering borrows the TileIR: same printed text and a clean verify after,
 * and a second lowering gives the same instructions and metadata. */
static void test_borrowed(void) {
    static const char *names[] = {"attention", "gemm", "layernorm", "masked_softmax"};
    for (size_t i = 0; i < 4; i++) {
        tir_module *m = parse_example(ctx, names[i], NULL, 0);
        if (!m) continue;
        write_sink before = {0}, after = {0};
        tir_print(m, write_sink_append, &before);
        lower_result r1, r2;
        bool ok = lower_ok(tir_module_func(m, 0), NULL, &r1);
        tir_print(m, write_sink_append, &after);
        CHECK(before.data && after.data && !strcmp(before.data, after.data));
        CHECK(tir_verify(ctx, m) == TILEC_OK);
        if (ok && lower_ok(tir_module_func(m, 0), NULL, &r2)) {
            CHECK(count_all_insts(r1.kernel) == count_all_insts(r2.kernel));
            CHECK(!strcmp(r1.realization, r2.realization));
            lower_result_free(&r2);
        }
        if (ok) lower_result_free(&r1);
        free(before.data);
        free(after.data);
        tir_module_destroy(m);
    }
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_refusals();
    test_options();
    test_expansion_budget();
    test_borrowed();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
