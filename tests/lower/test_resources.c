/* The representation plan and its static resource analysis: the analysis
 * (before emission) equals what the emitted XIR allocates; max_local_bytes
 * boundaries (the exact demand passes, one byte less fails with "snapshot
 * storage budget" and no module); bounded tiles give the same instruction
 * count for every row width; runtime-indexed reads get a linear snapshot
 * (one store per element, no SELECT); constant extracts of an unrolled map
 * need no storage; multiply-emitted snapshot sites count per emission; the
 * region-work bound turns a small map with heavy nested work into a loop;
 * deferred recipes up to max_recipe_depth, "depth budget" beyond. */
#include "lower_fixture.h"

#include "realize/resources.h"

/* examples_util.h's sum of squares at row width `width`. */
static tir_module *sumsq(int64_t width) {
    tir_define d = {"W", width};
    return parse_kernel(sumsq_text(), &d, 1);
}

static plan_repr_options repr_options(const lowering *o) {
    plan_repr_options r = {.record = &o->record,
                           .max_unrolled_region_work = o->choice.max_unrolled_region_work,
                           .max_recipe_depth = o->choice.max_recipe_depth};
    plan_repr_set_fusion(&r, o->choice.fused);
    return r;
}

/* Lowering with max_local_bytes = demand passes, demand - 1 fails. */
static void check_budget_boundary(const char *label, tir_func *f, lowering o, uint64_t demand) {
    lower_result r;
    o.choice.snapshot_budget = demand;
    if (lower_ok(f, &o, &r)) {
        CHECK_MSG(r.resources.snapshot_bytes_per_worker == demand, "%s: demand %llu", label,
                  (unsigned long long)r.resources.snapshot_bytes_per_worker);
        lower_result_free(&r);
    }
    if (demand == 0) return;
    o.choice.snapshot_budget = demand - 1;
    tilec_status st = lower_kernel(ctx, f, &o.record, &o.choice, &r);
    CHECK_MSG(st == TILEC_E_BUDGET && r.module == NULL, "%s: one byte less must fail", label);
    CHECK(has_diag("LOWER-B02", "snapshot storage budget"));
    char limit[64];
    snprintf(limit, sizeof limit, "which exceeds max_local_bytes %llu", (unsigned long long)(demand - 1));
    CHECK(has_diag("LOWER-B02", limit));
    tilec_diag_clear(ctx);
}

/* Every example: the analysis equals the lowering's resources, which the
 * lowering itself checked against its emitted allocas; recount them here. */
static void test_analysis_matches_emission(void) {
    static const char *names[] = {"attention", "bmm", "gelu", "gemm", "gemm_bt", "layernorm", "masked_softmax",
                                  "rmsnorm", "rope", "softmax", "swiglu"};
    static const uint32_t limits[] = {64, 0, 4};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        tir_module *m = parse_example(ctx, names[i], NULL, 0);
        if (!m) continue;
        tir_func *f = tir_module_func(m, 0);
        for (size_t l = 0; l < 3; l++) {
            lowering o = lowering_default();
            o.record.max_unrolled_tile_elements = limits[l];
            plan_repr_options ro = repr_options(&o);
            plan_resources planned;
            CHECK(plan_analyze_resources(ctx, f, &ro, &planned) == TILEC_OK);
            lower_result r;
            if (!lower_ok(f, &o, &r)) continue;
            CHECK_MSG(r.resources.snapshot_bytes_per_worker == planned.snapshot_bytes_per_worker &&
                          r.resources.snapshot_allocations == planned.snapshot_allocations,
                      "%s limit %u: analysis differs from the lowering", names[i], limits[l]);
            uint64_t allocas = count_insts(r.kernel, XIR_INST_ALLOCA, XIR_OP_INVALID);
            CHECK(allocas == planned.snapshot_allocations);
            char fragment[128];
            snprintf(fragment, sizeof fragment, "static_snapshot_bytes_per_worker=%llu; static_snapshot_allocations=%llu;",
                     (unsigned long long)planned.snapshot_bytes_per_worker, (unsigned long long)allocas);
            CHECK_STR_CONTAINS(r.realization, fragment);
            lower_result_free(&r);
            check_budget_boundary(names[i], f, o, planned.snapshot_bytes_per_worker);
        }
        tir_module_destroy(m);
    }
}

/* Bounded tiles are loops: with one partition the instruction count is the
 * same for every width; with four, for widths of equal residue mod 4.  With
 * recipes off (max_recipe_depth 0) x·x gets its own array. */
static void test_constant_instruction_count(void) {
    static const int64_t widths[] = {65, 256, 1537, 4096, 16384};
    uint64_t first = 0, first_p4 = 0;
    for (size_t i = 0; i < 5; i++) {
        tir_module *m = sumsq(widths[i]);
        if (!m) continue;
        lowering o = lowering_default();
        o.record.reduction_partitions = 1;
        o.choice.max_expanded_values = 256;
        lower_result r;
        if (lower_ok(tir_module_func(m, 0), &o, &r)) {
            uint64_t n = count_all_insts(r.kernel);
            if (!i) first = n;
            CHECK_MSG(n == first && n < 256, "width %lld: %llu instructions, width 65: %llu", (long long)widths[i],
                      (unsigned long long)n, (unsigned long long)first);
            /* x's snapshot; x·x is a recipe read twice per contribution */
            CHECK(count_insts(r.kernel, XIR_INST_ALLOCA, XIR_OP_INVALID) == 1);
            CHECK(count_insts(r.kernel, XIR_INST_STORE, XIR_OP_INVALID) == 1);
            CHECK(count_insts(r.kernel, XIR_INST_LOAD, XIR_OP_INVALID) == 2);
            CHECK(count_insts(r.kernel, XIR_INST_ARITH, XIR_OP_SELECT) == 0);
            CHECK(r.counters.deferred_expressions == 1);
            CHECK(r.resources.snapshot_bytes_per_worker == 4 * (uint64_t)widths[i]);
            check_budget_boundary("sumsq", tir_module_func(m, 0), o, r.resources.snapshot_bytes_per_worker);
            lower_result_free(&r);
        }
        o.choice.max_recipe_depth = 0;
        if (lower_ok(tir_module_func(m, 0), &o, &r)) {
            CHECK(count_insts(r.kernel, XIR_INST_ALLOCA, XIR_OP_INVALID) == 2 && r.counters.deferred_expressions == 0);
            CHECK(r.resources.snapshot_bytes_per_worker == 8 * (uint64_t)widths[i]);
            lower_result_free(&r);
        }
        /* Full expansion of the same kernel exceeds the expansion budget. */
        o.record.max_unrolled_tile_elements = 0;
        CHECK(lower_kernel(ctx, tir_module_func(m, 0), &o.record, &o.choice, &r) == TILEC_E_BUDGET && has_diag("LOWER-B01", NULL));
        tilec_diag_clear(ctx);
        tir_module_destroy(m);
    }
    static const int64_t residue1[] = {65, 257, 1537, 16385};
    for (size_t i = 0; i < 4; i++) {
        tir_module *m = sumsq(residue1[i]);
        lower_result r;
        if (m && lower_ok(tir_module_func(m, 0), NULL, &r)) {
            uint64_t n = count_all_insts(r.kernel);
            if (!i) first_p4 = n;
            CHECK(n == first_p4 && r.counters.partial_reductions == 1);
            lower_result_free(&r);
        }
        tir_module_destroy(m);
    }
}

/* Fully expanded (max_unrolled_tile_elements = 0) the reduction's runtime
 * index reads x·x from one snapshot written once per element: one alloca,
 * `width` stores, one load, no SELECT.  Budget: 4w passes, 4w - 1 fails. */
static void test_linear_snapshot(void) {
    static const int64_t widths[] = {16, 256};
    for (size_t i = 0; i < 2; i++) {
        tir_module *m = sumsq(widths[i]);
        if (!m) continue;
        lowering o = lowering_default();
        o.record.max_unrolled_tile_elements = 0;
        lower_result r;
        if (lower_ok(tir_module_func(m, 0), &o, &r)) {
            const xir_func *k = r.kernel;
            CHECK(count_insts(k, XIR_INST_ALLOCA, XIR_OP_INVALID) == 1);
            CHECK(count_insts(k, XIR_INST_STORE, XIR_OP_INVALID) == (uint64_t)widths[i]);
            CHECK(count_insts(k, XIR_INST_LOAD, XIR_OP_INVALID) == 1);
            CHECK(count_insts(k, XIR_INST_ARITH, XIR_OP_SELECT) == 0);
            CHECK(r.counters.indexable_snapshots == 1);
            check_budget_boundary("linear snapshot", tir_module_func(m, 0), o, 4 * (uint64_t)widths[i]);
            run_config c = run_config_default(4, true);
            run_and_compare("linear snapshot", tir_module_func(m, 0), &r, &c);
            lower_result_free(&r);
        }
        tir_module_destroy(m);
    }
}

/* A reversed 17-element map is unrolled: every extract index folds to a
 * constant, so nothing is stored (max_local_bytes = 0) and no SELECT. */
static const char reverse_text[] =
    "kernel @reverse(%X: const view<f32>[X.0=5, X.1=17], %Y: view<f32>[Y.0=5, Y.1=17]) {\n"
    "  parallel (%r: r=5) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=17]\n"
    "    %y = map (%i: m=1, %j: n=17) -> f32 {\n"
    "      %last = const index 16\n"
    "      %k = sub %last, %j\n"
    "      %e = extract %x[%i, %k]\n"
    "      yield %e\n"
    "    }\n"
    "    store %Y[%r, %c0] tile [m=1, n=17], %y\n"
    "  }\n"
    "}\n";

static void test_expanded_map_extracts(void) {
    tir_module *m = parse_kernel(reverse_text, NULL, 0);
    if (!m) return;
    lowering o = lowering_default();
    o.choice.snapshot_budget = 0;
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        CHECK(count_insts(r.kernel, XIR_INST_ALLOCA, XIR_OP_INVALID) == 0);
        CHECK(count_insts(r.kernel, XIR_INST_ARITH, XIR_OP_SELECT) == 0);
        CHECK(r.counters.unrolled_maps == 1 && r.counters.runtime_maps == 0);
        CHECK(r.counters.guards_removed == 4 && r.counters.guards_kept == 0);
        run_config c = run_config_default(8, true);
        run_and_compare("reverse", tir_module_func(m, 0), &r, &c);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* An unrolled map whose body defines a small Tile read at a runtime index:
 * the snapshot site is emitted (and counted) once per map element.  With a
 * region-work bound below the body's potential work the map becomes one
 * runtime loop, and the site is counted once. */
static const char nested_text[] =
    "kernel @nested<E=3, N=5, S=4>(%X: const view<f32>[X.0=N], %Y: view<f32>[Y.0=E]) {\n"
    "  parallel (%p: p=1) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%c0] tile [n=N]\n"
    "    %y = map (%e: e=E) -> f32 {\n"
    "      %ef = cast %e to f32\n"
    "      %t = add %x, %ef\n"
    "      %z = const f32 0.0\n"
    "      %n = const index N\n"
    "      %acc = serial (%s: s=S) iter(%a = %z) -> (f32) {\n"
    "        %i = mod %s, %n\n"
    "        %v = extract %t[%i]\n"
    "        %b = add %a, %v\n"
    "        yield %b\n"
    "      }\n"
    "      yield %acc\n"
    "    }\n"
    "    store %Y[%c0] tile [e=E], %y\n"
    "  }\n"
    "}\n";

static void test_multiplicity_and_region_work(void) {
    tir_module *m = parse_kernel(nested_text, NULL, 0);
    if (!m) return;
    tir_func *f = tir_module_func(m, 0);
    lowering o = lowering_default();
    lower_result r;
    if (lower_ok(f, &o, &r)) {
        CHECK(r.counters.unrolled_maps == 1 && r.counters.runtime_maps == 0);
        CHECK(r.resources.snapshot_allocations == 3 && r.resources.snapshot_bytes_per_worker == 3 * 5 * 4);
        CHECK(r.counters.indexable_snapshots == 3 && r.counters.ordered_loops == 3);
        run_config c = run_config_default(1, true);
        run_and_compare("nested unrolled", f, &r, &c);
        lower_result_free(&r);
    }
    o.choice.max_unrolled_region_work = 8; /* 3 elements × a body of a 5-element add and a loop exceed it */
    if (lower_ok(f, &o, &r)) {
        CHECK(r.counters.unrolled_maps == 0 && r.counters.runtime_maps == 1);
        /* t is snapshotted once; the map result is one 3-element array */
        CHECK(r.resources.snapshot_allocations == 2 && r.resources.snapshot_bytes_per_worker == 5 * 4 + 3 * 4);
        run_config c = run_config_default(2, true);
        run_and_compare("nested runtime", f, &r, &c);
        lower_result_free(&r);
    }
    o.choice.max_unrolled_region_work = 0; /* no region bound: unrolled again */
    if (lower_ok(f, &o, &r)) {
        CHECK(r.counters.unrolled_maps == 1);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* A chain of `depth` single-use elementwise ops on a bounded row: recipes up
 * to max_recipe_depth, then "depth budget" from both the analysis and the
 * lowering, with no module. */
static tir_module *chain(int depth) {
    size_t size = 512 + 48 * (size_t)depth;
    char *text = malloc(size), *p = text;
    p += sprintf(p, "kernel @chain(%%X: const view<f32>[X.0=3, X.1=65], %%Y: view<f32>[Y.0=3, Y.1=65]) {\n"
                    "  parallel (%%r: r=3) {\n    %%c0 = const index 0\n    %%one = const f32 1.0\n"
                    "    %%v0 = load %%X[%%r, %%c0] tile [m=1, n=65]\n");
    for (int i = 1; i <= depth; i++) p += sprintf(p, "    %%v%d = add %%v%d, %%one\n", i, i - 1);
    sprintf(p, "    store %%Y[%%r, %%c0] tile [m=1, n=65], %%v%d\n  }\n}\n", depth);
    tir_module *m = parse_kernel(text, NULL, 0);
    free(text);
    return m;
}

static void test_recipe_depth(void) {
    static const int depths[] = {63, 64, 65, 70};
    for (size_t i = 0; i < 4; i++) {
        tir_module *m = chain(depths[i]);
        if (!m) continue;
        tir_func *f = tir_module_func(m, 0);
        lowering o = lowering_default();
        plan_repr_options ro = repr_options(&o);
        plan_resources res;
        lower_result r;
        if (depths[i] <= 64) {
            CHECK(plan_analyze_resources(ctx, f, &ro, &res) == TILEC_OK && res.snapshot_allocations == 1);
            if (lower_ok(f, &o, &r)) {
                CHECK(r.counters.deferred_expressions == (uint64_t)depths[i]);
                CHECK(count_insts(r.kernel, XIR_INST_ALLOCA, XIR_OP_INVALID) == 1);
                run_config c = run_config_default(4, true);
                run_and_compare("recipe chain", f, &r, &c);
                lower_result_free(&r);
            }
        } else {
            CHECK(plan_analyze_resources(ctx, f, &ro, &res) == TILEC_E_BUDGET);
            CHECK(has_diag("LOWER-B03", "depth budget") && has_diag("LOWER-B03", "which exceeds max_recipe_depth 64"));
            tilec_diag_clear(ctx);
            CHECK(lower_kernel(ctx, f, &o.record, &o.choice, &r) == TILEC_E_BUDGET && r.module == NULL);
            char reach[64];
            snprintf(reach, sizeof reach, "reaches depth 65");
            CHECK(has_diag("LOWER-B03", reach));
            tilec_diag_clear(ctx);
            o.choice.max_recipe_depth = 0; /* materialized instead */
            if (lower_ok(f, &o, &r)) {
                CHECK(r.resources.snapshot_allocations == (uint64_t)depths[i] + 1);
                lower_result_free(&r);
            }
        }
        tir_module_destroy(m);
    }
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_analysis_matches_emission();
    test_constant_instruction_count();
    test_linear_snapshot();
    test_expanded_map_extracts();
    test_multiplicity_and_region_work();
    test_recipe_depth();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
