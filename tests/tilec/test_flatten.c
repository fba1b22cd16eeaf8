/* Nested parallels (rewrite/flatten.h, docs/lowering.md "Nested parallel"):
 * perfectly nested root parallels — two and three levels, a rank-2 inner
 * domain, work before the inner parallel (constants, elementwise ops, loads
 * of read-only parameters, a scalar parameter), ragged extents — compile
 * natively and agree with the reference interpreter at W ∈ {1, 4, 8, 16} on
 * 1 and 2 workers (one program per lane and packet-local); the plan
 * tilec_explain reports has the flat root domain's rank.  What the rewrite cannot take stays
 * refused with LOWER-A06 and its reason: work after the inner parallel, a
 * store or a load of a written view before it, a dim reused; an empty inner
 * domain is an empty kernel. */
#include "facade_fixture.h"

static const char *two_levels =
    "kernel @two<M=5, N=37>(%a: f32, %X: const view<f32>[X.0=M, X.1=N], %S: const view<f32>[S.0=M],\n"
    "                       %Y: view<f32>[Y.0=M, Y.1=N]) {\n"
    "  parallel (%i: i=M) {\n"
    "    %s = load %S[%i]\n"
    "    %t = mul %s, %a\n"
    "    parallel (%j: j=N) {\n"
    "      %x = load %X[%i, %j]\n"
    "      %y = add %x, %t\n"
    "      store %Y[%i, %j], %y\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *three_levels =
    "kernel @three<B=3, M=4, N=19, K=6>(%X: const view<f32>[X.0=B, X.1=M, X.2=N, X.3=K],\n"
    "                                   %Y: view<f32>[Y.0=B, Y.1=M, Y.2=N]) {\n"
    "  parallel (%b: b=B) {\n"
    "    %two = const f32 2.0\n"
    "    parallel (%m: m=M) {\n"
    "      parallel (%n: n=N) {\n"
    "        %c0 = const index 0\n"
    "        %x = load %X[%b, %m, %n, %c0] tile [p=1, q=1, r=1, k=K]\n"
    "        %s = reduce.add %x over (k)\n"
    "        %y = mul %s, %two\n"
    "        store %Y[%b, %m, %n] tile [p=1, q=1, r=1], %y\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *rank2_inner =
    "kernel @inner2<M=3, N=9, P=11>(%X: const view<f32>[X.0=M, X.1=N, X.2=P], %Y: view<f32>[Y.0=M, Y.1=N, Y.2=P]) {\n"
    "  parallel (%i: i=M) {\n"
    "    parallel (%j: j=N, %k: k=P) {\n"
    "      %x = load %X[%i, %j, %k]\n"
    "      %y = exp %x\n"
    "      store %Y[%i, %j, %k], %y\n"
    "    }\n"
    "  }\n"
    "}\n";

static tilec_status collect(void *user, const char *bytes, size_t n) {
    return fwrite(bytes, 1, n, user) == n ? TILEC_OK : TILEC_E_IO;
}

/* The rank of the chosen plan's root order in a tilec_explain report. */
static int chosen_rank(const char *report) {
    const char *at = report ? strstr(report, "chosen: ") : NULL;
    at = at ? strstr(at, "root order [") : NULL;
    if (!at) return -1;
    int rank = 1;
    for (at += 12; *at && *at != ']'; at++) rank += *at == ',';
    return rank;
}

static void check_runs(const char *text, int want_rank) {
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_runtime *rt[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &rt[t]) == TILEC_OK);
    for (uint32_t w = 1; w <= 16; w *= 2)
        for (uint32_t t = 0; t < 2; t++)
            for (uint32_t lanes = 1; lanes <= w; lanes = lanes == 1 && w > 1 ? w : w + 1) {
                tilec_kernel *k = compile_at_lanes(f, tilec_compile_options_default(), w, rt[t], lanes);
                if (!k) continue;
                char label[96];
                snprintf(label, sizeof label, "@%s W=%u threads=%u lanes=%u", tir_func_name(f), w, t + 1, lanes);
                run_config c = run_config_default(w, false);
                run_facade(label, f, k, &c);
                CHECK_MSG(item_value(tilec_kernel_realization(k), "dispatch") >= 0, "%s: no dispatch item", label);
                tilec_kernel_destroy(k);
            }
    /* the plan is the flat kernel's: its root domain has every level's axes */
    char *report = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&report, &len);
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt[1];
    CHECK(out && tilec_explain(ctx, f, &o, collect, out) == TILEC_OK);
    if (out) fclose(out);
    CHECK_MSG(chosen_rank(report) == want_rank, "@%s: the plan's root order has rank %d, not %d", tir_func_name(f),
              chosen_rank(report), want_rank);
    free(report);
    for (uint32_t t = 0; t < 2; t++) tilec_runtime_destroy(rt[t]);
    tir_module_destroy(m);
}

static void check_refused(const char *text, const char *reason) {
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), NULL, &k) != TILEC_OK && !k);
    CHECK_MSG(has_diag("LOWER-A06", reason), "no LOWER-A06 with '%s'", reason);
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

static void test_refusals(void) {
    check_refused("kernel @after<M=4, N=5>(%X: const view<f32>[X.0=M, X.1=N], %Y: view<f32>[Y.0=M, Y.1=N],\n"
                  "                        %Z: view<f32>[Z.0=M]) {\n"
                  "  parallel (%i: i=M) {\n"
                  "    parallel (%j: j=N) {\n"
                  "      %x = load %X[%i, %j]\n"
                  "      store %Y[%i, %j], %x\n"
                  "    }\n"
                  "    %c0 = const index 0\n"
                  "    %x0 = load %X[%i, %c0]\n"
                  "    store %Z[%i], %x0\n"
                  "  }\n"
                  "}\n",
                  "work follows the nested parallel");
    check_refused("kernel @before<M=4, N=5>(%X: const view<f32>[X.0=M, X.1=N], %Y: view<f32>[Y.0=M, Y.1=N],\n"
                  "                         %Z: view<f32>[Z.0=M]) {\n"
                  "  parallel (%i: i=M) {\n"
                  "    %c0 = const index 0\n"
                  "    %x0 = load %X[%i, %c0]\n"
                  "    store %Z[%i], %x0\n"
                  "    parallel (%j: j=N) {\n"
                  "      %x = load %X[%i, %j]\n"
                  "      store %Y[%i, %j], %x\n"
                  "    }\n"
                  "  }\n"
                  "}\n",
                  "each flat instance would repeat it");
    check_refused("kernel @written<M=4, N=5>(%Y: view<f32>[Y.0=M, Y.1=N]) {\n"
                  "  parallel (%i: i=M) {\n"
                  "    %c0 = const index 0\n"
                  "    %y0 = load %Y[%i, %c0]\n"
                  "    parallel (%j: j=N) {\n"
                  "      store %Y[%i, %j], %y0\n"
                  "    }\n"
                  "  }\n"
                  "}\n",
                  "loads of read-only parameters");
}

static void test_empty_inner(void) {
    tir_define d = {"N", 0};
    tir_module *m = parse_kernel(two_levels, &d, 1);
    if (!m) return;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), NULL, &k) == TILEC_OK && k);
    if (k) CHECK(has_item(tilec_kernel_realization(k), "plan=empty;"));
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

int main(void) {
    CHECK(tilec_context_create(NULL, &ctx) == TILEC_OK);
    check_runs(two_levels, 2);
    check_runs(three_levels, 3);
    check_runs(rank2_inner, 3);
    test_refusals();
    test_empty_inner();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
