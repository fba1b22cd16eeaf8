/* Panel packing (plan/pack.h, docs/lowering.md "Packed panels").
 *
 * - Every mma shape class compiled with pack=on through the facade at
 *   W ∈ {4, 8, 16} on 1 and 2 workers, bitwise against the reference
 *   interpreter on dyadic inputs with sentinel-padded buffers: square,
 *   ragged in M, N and K, K below one step, blocks larger than the matrix,
 *   batched, transposed B (packed transposed), a bias + ReLU epilogue,
 *   i8 → i32 and f32 → f64.  Each one packs (realization `packed=`), and the
 *   W = 16 gemm reads B as vectors (no gathers).
 * - Widening: bf16 → f32 (square, ragged) and f16 → f64 gemms pack both
 *   operands widened (two copy kernels, two packed loads), bitwise too; a
 *   bf16 operand also read by another op keeps its own type (not widened),
 *   and auto widens a bf16 gemm whose tiles are read by 2 programs or more. 
 * - The lowering alone: the kernel and its copy (plan_pack_build, planned
 *   and lowered on their own) on the W-lane XIR interpreter, bitwise, at
 *   W ∈ {1, 4, 16}; the packed load is unguarded (packed_loads = 1).
 * - The decision: auto packs a large gemm and not a small one, off never;
 *   each refusal names its reason (writable view, store before the load,
 *   contiguous tiles, bounds=assume, a non-affine origin, a load in an
 *   empty loop), and a root order
 *   that makes B depend on the innermost axis packs A instead.
 * - Dispatch: argument errors are reported before the copy runs and leave
 *   the kernel usable; two threads dispatching one packing kernel on their
 *   own inputs each get their own result. */
#include "driver/pipeline.h"
#include "facade_fixture.h"
#include "plan/pack.h"
#include "rewrite/pack.h"
#include "plan/solve.h"
#include "xir/interp.h"

static tilec_kernel *compile_packed(const tir_func *f, uint32_t w, tilec_runtime *rt, tilec_pack pack) {
    tilec_compile_options o = tilec_compile_options_default();
    o.width = w;
    o.runtime = rt;
    o.pack = pack;
    tilec_kernel *k = NULL;
    CHECK_MSG(tilec_compile(ctx, f, &o, &k) == TILEC_OK, "@%s: compile failed at W=%u", tir_func_name(f), w);
    flush_diags_in(ctx);
    return k;
}

typedef struct {
    const char *label;
    tir_module *m;
} shape_case;

static void test_shapes(void) {
    static const tir_define square[] = {{"M", 24}, {"N", 64}, {"K", 16}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define ragged[] = {{"M", 17}, {"N", 37}, {"K", 13}, {"BM", 4}, {"BN", 16}, {"BK", 4}};
    static const tir_define short_k[] = {{"M", 16}, {"N", 35}, {"K", 3}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define big_blocks[] = {{"M", 5}, {"N", 7}, {"K", 9}, {"BM", 8}, {"BN", 32}, {"BK", 16}};
    static const tir_define bt[] = {{"M", 9}, {"N", 21}, {"K", 10}, {"BM", 4}, {"BN", 8}, {"BK", 4}};
    static const tir_define bmm[] = {{"BATCH", 2}, {"M", 9}, {"N", 37}, {"K", 5}, {"BN", 32}};
    shape_case cases[] = {
        {"gemm square", parse_example(ctx, "gemm", square, 6)},
        {"gemm ragged M/N/K", parse_example(ctx, "gemm", ragged, 6)},
        {"gemm K below one step", parse_example(ctx, "gemm", short_k, 6)},
        {"gemm blocks larger than the matrix", parse_example(ctx, "gemm", big_blocks, 6)},
        {"gemm_bt", parse_example(ctx, "gemm_bt", bt, 6)},
        {"bmm", parse_example(ctx, "bmm", bmm, 5)},
        {"matmul+bias+relu", parse_test_kernel(ctx, "gemm_epilogue")},
        {"gemm i8->i32", typed_gemm_module(ctx, "i8", "i32", NULL, 0)},
        {"gemm f32->f64", typed_gemm_module(ctx, "f32", "f64", NULL, 0)},
        {"gemm_bf16 widened", parse_example(ctx, "gemm_bf16", square, 6)},
        {"gemm_bf16 widened ragged", parse_example(ctx, "gemm_bf16", ragged, 6)},
        {"gemm f16->f64 widened", typed_gemm_module(ctx, "f16", "f64", NULL, 0)},
    };
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!cases[i].m || !runtimes[0] || !runtimes[1]) continue;
        const tir_func *f = tir_module_func(cases[i].m, 0);
        for (uint32_t w = 4; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++) {
                tilec_kernel *k = compile_packed(f, w, runtimes[t], TILEC_PACK_ON);
                if (!k) continue;
                const char *r = tilec_kernel_realization(k);
                CHECK_MSG(!has_item(r, "packed=none;") && !has_item(r, "packed_bytes=0;"), "%s W=%u: %s",
                          cases[i].label, w, r);
                if (w == 16 && !strcmp(cases[i].label, "gemm square"))
                    CHECK_MSG(has_item(r, "gathers=0;") && !has_item(r, "contiguous_loads=0;"), "%s", r);
                if (strstr(cases[i].label, "widened"))
                    CHECK_MSG(strstr(r, "_pack_A,") && strstr(r, "_pack_B;") &&
                                  item_value(tilec_kernel_plan_realization(k), "packed_loads") == 2,
                              "%s W=%u: %s", cases[i].label, w, r);
                char label[96];
                snprintf(label, sizeof label, "%s packed W=%u threads=%u", cases[i].label, w, t + 1);
                run_config c = run_config_default(w, true);
                run_facade(label, f, k, &c);
                tilec_kernel_destroy(k);
            }
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) tir_module_destroy(cases[i].m);
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
}

/* ---- the lowering on the XIR interpreter ---- */

typedef struct {
    const lower_result *kernel, *copy;
    const plan_pack *pack;
} packed_xir;

/* The copy into fresh panels, then the kernel on the arguments + panels. */
static bool run_packed_xir(void *env, const char *label, tilec_status reference, size_t n, const tir_buffer *args,
                           const run_buffers *b) {
    (void)reference, (void)b;
    const packed_xir *x = env;
    tir_buffer all[MAX_ARGS + 1];
    memcpy(all, args, n * sizeof *args);
    all[n] = (tir_buffer){calloc(1, x->pack->bytes), x->pack->bytes};
    tir_buffer copy_args[2] = {args[x->pack->param], all[n]};
    tilec_status st = xir_interpret(ctx, x->copy->kernel, x->copy->dispatch_size, x->copy->packet_width, 2, copy_args);
    if (!st) st = xir_interpret(ctx, x->kernel->kernel, x->kernel->dispatch_size, x->kernel->packet_width, n + 1, all);
    free(all[n].data);
    CHECK_MSG(st == TILEC_OK, "%s: XIR run failed", label);
    return st == TILEC_OK;
}

/* Plans f for W lanes (pack=on) and lowers it and its copy. */
static bool plan_both(const tir_func *f, uint32_t w, plan_result *plan, lower_result *kernel, tir_module **copy_module,
                      lower_result *copy) {
    plan_thread_pool target;
    plan_thread_pool_init(&target, w, 2);
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = PLAN_PACK_ON;
    bool ok = pipeline_plan_and_lower(ctx, f, &o, &target.info, plan, kernel) == TILEC_OK && kernel->packed;
    CHECK_MSG(ok, "@%s: planned and lowered at W=%u with packing", tir_func_name(f), w);
    if (!ok) return false;
    *copy_module = plan_pack_build(ctx, f, &plan->packing.packs[0]);
    plan_result copy_plan;
    o.pack = PLAN_PACK_OFF;
    ok = *copy_module && pipeline_plan_and_lower(ctx, tir_module_func(*copy_module, 0), &o, &target.info, &copy_plan,
                                      copy) == TILEC_OK;
    plan_result_free(&copy_plan);
    CHECK_MSG(ok, "@%s: its copy kernel lowered", tir_func_name(f));
    return ok;
}

static void test_xir(void) {
    static const tir_define ragged[] = {{"M", 17}, {"N", 37}, {"K", 13}, {"BM", 4}, {"BN", 16}, {"BK", 4}};
    static const tir_define bt[] = {{"M", 9}, {"N", 21}, {"K", 10}, {"BM", 4}, {"BN", 8}, {"BK", 4}};
    tir_module *mods[] = {parse_example(ctx, "gemm", ragged, 6), parse_example(ctx, "gemm_bt", bt, 6),
                          parse_example(ctx, "bmm", NULL, 0)};
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
        if (!mods[i]) continue;
        const tir_func *f = tir_module_func(mods[i], 0);
        for (uint32_t w = 1; w <= 16; w *= 4) {
            plan_result plan;
            lower_result kernel, copy;
            tir_module *cm = NULL;
            memset(&copy, 0, sizeof copy);
            memset(&kernel, 0, sizeof kernel);
            if (plan_both(f, w, &plan, &kernel, &cm, &copy)) {
                CHECK(kernel.counters.packed_loads == 1 && kernel.arg_count == tir_func_param_count(f) + 1);
                check_module(kernel.module);
                packed_xir x = {&kernel, &copy, &plan.packing.packs[0]};
                char label[64];
                snprintf(label, sizeof label, "@%s packed XIR W=%u", tir_func_name(f), w);
                run_config c = run_config_default(w, true);
                compare_with_reference(label, "XIR", f, NULL, &c, run_packed_xir, &x);
            }
            flush_diags_in(ctx);
            if (copy.module) lower_result_free(&copy);
            if (kernel.module) lower_result_free(&kernel);
            tir_module_destroy(cm);
            plan_result_free(&plan);
        }
        tir_module_destroy(mods[i]);
    }
}

/* ---- the decision ---- */

/* examples/<name>.tir with `from` replaced by `to` (NULL: unchanged). */
/* Decides packing of m's kernel for root order `order` (one program per
 * lane); true when `name` is the packed view (NULL: none) and the reason
 * contains `why`. */
static bool decision(const char *label, tir_module *m, const uint32_t *order, plan_pack_mode mode, uint64_t l2,
                     const char *name, const char *why) {
    if (!m) return false;
    const tir_func *f = tir_module_func(m, 0);
    plan_admission a;
    CHECK(plan_admit(ctx, f, &a) == TILEC_OK);
    plan_packing p;
    bool packed = plan_pack_decide(f, &a, NULL, order, mode, l2, 0, NULL, &p);
    const char *got = p.count ? p.packs[0].load->operands[0]->value->name : NULL;
    bool ok = packed == (name != NULL) && (name ? got && !strcmp(got, name) : !got) && strstr(p.why, why);
    CHECK_MSG(ok, "%s: packed %s (%s), expected %s with '%s'", label, got ? got : "nothing", p.why,
              name ? name : "nothing", why);
    tir_module_destroy(m);
    return ok;
}

static tir_module *gemm_variant(const char *from, const char *to, const tir_define *d, size_t n) {
    return example_variant(ctx, "gemm", from, to, d, n);
}

/* Plans m's kernel (W = 16, 2 workers, `mode`) and checks the packs: their
 * operands in order ("A,B"; "" none) and element types ("f32,f32"). */
static void widening(const char *label, tir_module *m, plan_pack_mode mode, const char *operands, const char *elems) {
    if (!m) return;
    tilec_compile_options o = tilec_compile_options_default();
    o.pack = mode;
    o.width = 16;
    pipeline run; /* planned for a modeled pool of 2 workers */
    pipeline_init(&run, ctx, tir_module_func(m, 0), &o, &PIPELINE_MODELED_CPU, TILEC_STAGE_PLAN);
    run.modeled_workers = 2;
    if (pipeline_run(&run) == TILEC_OK) {
        const plan_result *r = &run.plan;
        char got_ops[64] = "", got_elems[64] = "";
        for (uint32_t i = 0; i < r->packing.count; i++) {
            const plan_pack *p = &r->packing.packs[i];
            size_t n = strlen(got_ops), e = strlen(got_elems);
            snprintf(got_ops + n, sizeof got_ops - n, "%s%s", i ? "," : "", p->load->operands[0]->value->name);
            snprintf(got_elems + e, sizeof got_elems - e, "%s%s", i ? "," : "", tir_scalar_name(p->elem));
        }
        CHECK_MSG(!strcmp(got_ops, operands) && !strcmp(got_elems, elems), "%s: packed '%s' as '%s' (%s)", label,
                  got_ops, got_elems, r->packing.why);
    } else {
        CHECK_MSG(false, "%s: planning failed", label);
    }
    flush_diags_in(ctx);
    pipeline_free(&run);
    tir_module_destroy(m);
}

static void test_widening(void) {
    static const tir_define big[] = {{"M", 256}, {"N", 256}, {"K", 256}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    widening("bf16, auto", example_variant(ctx, "gemm_bf16", NULL, NULL, big, 6), PLAN_PACK_AUTO, "A,B", "f32,f32");
    widening("bf16, off", example_variant(ctx, "gemm_bf16", NULL, NULL, big, 6), PLAN_PACK_OFF, "", "");
    /* one program per tile (one block of each): auto does not widen, on does */
    static const tir_define one[] = {{"M", 8}, {"N", 32}, {"K", 64}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    widening("bf16, one reader", example_variant(ctx, "gemm_bf16", NULL, NULL, one, 6), PLAN_PACK_AUTO, "", "");
    widening("bf16, one reader, on", example_variant(ctx, "gemm_bf16", NULL, NULL, one, 6), PLAN_PACK_ON, "A,B",
             "f32,f32");
    /* A also read by a cast: A keeps bf16 and is not packed (it depends on the
     * innermost root axis), B is widened */
    widening("bf16, A cast", example_variant(ctx, "gemm_bf16", "%nx = mma %a, %b, %acc_in", "%af = cast %a to f32\n      %nx = mma %af, %b, %acc_in", big, 6),
             PLAN_PACK_AUTO, "B", "f32");
}

static void test_decision(void) {
    static const uint32_t n_inner[] = {1, 0}, m_inner[] = {0, 1};
    static const tir_define big[] = {{"M", 256}, {"N", 1024}, {"K", 512}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    static const tir_define narrow[] = {{"M", 64}, {"N", 32}, {"K", 48}, {"BM", 8}, {"BN", 32}, {"BK", 8}};
    decision("auto, large", gemm_variant(NULL, NULL, big, 6), n_inner, PLAN_PACK_AUTO, 1 << 20, "B",
             "each read by 32 programs");
    decision("auto, fits the L2", gemm_variant(NULL, NULL, NULL, 0), n_inner, PLAN_PACK_AUTO, 1 << 20, NULL,
             "fit the L2");
    static const tir_define two_rows[] = {{"M", 16}};
    decision("auto, few readers", gemm_variant(NULL, NULL, two_rows, 1), n_inner, PLAN_PACK_AUTO, 1, NULL,
             "read by 2 programs (auto packs from 4)");
    decision("off", gemm_variant(NULL, NULL, big, 6), n_inner, PLAN_PACK_OFF, 1 << 20, NULL, "off");
    decision("on, small", gemm_variant(NULL, NULL, NULL, 0), n_inner, PLAN_PACK_ON, 1 << 20, "B", "");
    /* A depends on gm, the innermost axis of order [1,0], so B is packed
     * there; with gn innermost, B is refused and A packed. */
    decision("gn innermost", gemm_variant(NULL, NULL, NULL, 0), m_inner, PLAN_PACK_ON, 0, "A", "");
    decision("writable", gemm_variant("%B: const view", "%B: view", NULL, 0), n_inner, PLAN_PACK_ON, 0, NULL,
             "'%B' is writable");
    decision("assume", gemm_variant("tile [k=BK, n=BN] bounds=zero", "tile [k=BK, n=BN] bounds=assume", NULL, 0),
             n_inner, PLAN_PACK_ON, 0, NULL, "the load of '%B' is bounds=assume");
    decision("contiguous", gemm_variant(NULL, NULL, narrow, 6), n_inner, PLAN_PACK_ON, 0, NULL,
             "the tiles of '%B' are already contiguous");
    decision("store first",
             gemm_variant("    %acc = pipeline", "    store %C[%m0, %n0] tile [m=BM, n=BN] bounds=zero, %z\n    %acc = pipeline",
                          NULL, 0),
             n_inner, PLAN_PACK_ON, 0, NULL, "a store precedes the load of '%B'");
    static const tir_define no_k[] = {{"K", 0}};
    decision("empty loop", gemm_variant(NULL, NULL, no_k, 1), n_inner, PLAN_PACK_ON, 0, NULL,
             "the load of '%B' never runs (an empty loop)");
    decision("not affine", gemm_variant("%k0 = mul %kt, %bk", "%k0 = mul %kt, %kt", NULL, 0), n_inner, PLAN_PACK_ON,
             0, NULL, "origin 0 of '%B' is not c*s+o over one coordinate");
}

/* ---- dispatch ---- */

enum { DM = 24, DN = 64, DK = 16 };
static const tir_define dispatch_shape[] = {{"M", DM}, {"N", DN}, {"K", DK}, {"BM", 8}, {"BN", 32}, {"BK", 8}};

static void fill(float *x, size_t n, int seed) {
    for (size_t i = 0; i < n; i++) x[i] = (float)((int)((i * 7 + (size_t)seed * 13) % 17) - 8) * 0.25f;
}

typedef struct {
    float A[DM * DK], B[DK * DN], C[DM * DN], expected[DM * DN];
} dispatcher;

static void bind(dispatcher *d, tilec_buffer *b) {
    b[0] = (tilec_buffer){d->A, sizeof d->A, TIR_F32};
    b[1] = (tilec_buffer){d->B, sizeof d->B, TIR_F32};
    b[2] = (tilec_buffer){d->C, sizeof d->C, TIR_F32};
}

static void test_dispatch(void) {
    tir_module *m = parse_example(ctx, "gemm", dispatch_shape, 6);
    if (!m) return;
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 16;
    o.threads = 2;
    o.pack = TILEC_PACK_ON;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK && k);
    flush_diags_in(ctx);
    tir_module_destroy(m);
    if (!k) return;
    CHECK(tilec_kernel_arg_count(k) == 3);
    static dispatcher d[2];
    tilec_buffer b[3];
    for (int t = 0; t < 2; t++) {
        fill(d[t].A, DM * DK, t + 1);
        fill(d[t].B, DK * DN, 5 * t + 2);
        bind(&d[t], b);
        CHECK(tilec_dispatch(ctx, k, 3, b) == TILEC_OK);
        memcpy(d[t].expected, d[t].C, sizeof d[t].C);
    }
    CHECK_MSG(memcmp(d[0].expected, d[1].expected, sizeof d[0].expected), "different inputs, equal results");
    /* errors come before the copy: the panels still hold d[1]'s B */
    bind(&d[0], b);
    CHECK(tilec_dispatch(ctx, k, 2, b) == TILEC_E_ARG && has_diag("RT-D02", "takes 3 arguments, got 2"));
    tilec_diag_clear(ctx);
    b[1].size_bytes -= 4;
    CHECK(tilec_dispatch(ctx, k, 3, b) == TILEC_E_RUNTIME && has_diag("RT-D04", "argument 1"));
    tilec_diag_clear(ctx);
    b[1].size_bytes += 4;
    memset(d[0].C, 0, sizeof d[0].C);
    CHECK(tilec_dispatch(ctx, k, 3, b) == TILEC_OK && !memcmp(d[0].C, d[0].expected, sizeof d[0].C));
    tilec_buffer args[2][3];
    dispatch_rounds two[2];
    for (int t = 0; t < 2; t++) {
        bind(&d[t], args[t]);
        two[t] = (dispatch_rounds){k, args[t], 3, d[t].C, d[t].expected, sizeof d[t].C, false};
    }
    CHECK_MSG(dispatch_concurrently(two), "concurrent dispatches of one packing kernel: %d %d", two[0].ok, two[1].ok);
    tilec_kernel_destroy(k);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_decision();
    test_widening();
    test_xir();
    test_dispatch();
    /* the bf16 gemms widen where the host has no bf16 dot product
     * (tests/tilec/test_dot.c pairs them) */
    char host[96];
    snprintf(host, sizeof host, "%s,-avx512bf16", getenv("TILEC_HOST") ? getenv("TILEC_HOST") : "native");
    setenv("TILEC_HOST", host, 1);
    test_shapes();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
