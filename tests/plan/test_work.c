/* Work extraction and the plan → lowering handoff.
 *
 * Exact per-packet work for small kernels, counted by hand from the
 * representation plan: a tile copy (unrolled SSA tiles: one address add per
 * element, gathered view accesses, ragged doubling), a runtime-indexed
 * extract (the definition snapshot the plan asks for: 8 private stores and 1
 * private read, (4 + 3·rank) index arithmetic), a 1-D store (contiguous; the
 * ragged fast axis doubles exactly the view memory).  Work follows the
 * representation settings the lowering uses (bounded tiles become arrays and
 * private traffic; fully expanded ones do not) and is the same for every
 * block width and grain of one root order.  For every example, pipeline_plan_and_lower
 * lowers the selected plan (block, order, W, budget) with resource facts
 * equal to the plan's, and its realization carries the planner's items;
 * fusion is priced both ways.  Root axis tiles
 * (upstream case 3): the cost follows the physical fast digit of the
 * canonical mapping, identity tilings plan and lower exactly like none.
 * Packet-local work counts slots and classifies accesses along D.  Register
 * spills of an unrolled mma: exact counts against 0, 7, 8, 24, 32 and 48
 * registers, one program per lane (with and without a broadcast operand)
 * and packet-local. */
#include "driver/pipeline.h"
#include "plan_fixture.h"

#include "base/strbuf.h"
#include "xir/text.h"
#include "xir/verify.h"

static const char copy_text[] =
    "kernel @copy<M=4, N=6, BM=2>(%X: const view<f32>[X.0=M, X.1=N], %Y: view<f32>[Y.0=M, Y.1=N]) {\n"
    "  parallel (%g: g=ceil_div(M, BM)) {\n"
    "    %bm = const index BM\n"
    "    %m0 = mul %g, %bm\n"
    "    %z  = const index 0\n"
    "    %t  = load %X[%m0, %z] tile [m=BM, n=N] bounds=zero\n"
    "    store %Y[%m0, %z] tile [m=BM, n=N] bounds=zero, %t\n"
    "  }\n"
    "}\n";

static const char pick_text[] =
    "kernel @pick(%X: const view<f32>[X.0=4, X.1=8], %I: const view<i32>[I.0=4], %Y: view<f32>[Y.0=4]) {\n"
    "  parallel (%r: r=4) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=8]\n"
    "    %i = load %I[%r]\n"
    "    %v = extract %x[%c0, %i]\n"
    "    store %Y[%r], %v\n"
    "  }\n"
    "}\n";

static const char mm_text[] =
    "kernel @mm(%A: const view<f32>[A.0=16, A.1=4], %B: const view<f32>[B.0=4, B.1=16],\n"
    "           %C: view<f32>[C.0=16, C.1=16]) {\n"
    "  parallel (%gm: gm=4, %gn: gn=4) {\n"
    "    %c4 = const index 4\n"
    "    %m0 = mul %gm, %c4\n"
    "    %n0 = mul %gn, %c4\n"
    "    %c0 = const index 0\n"
    "    %a = load %A[%m0, %c0] tile [m=4, k=4]\n"
    "    %b = load %B[%c0, %n0] tile [k=4, n=4]\n"
    "    %z = const tile<f32>[m=4, n=4] 0.0\n"
    "    %c = mma %a, %b, %z\n"
    "    store %C[%m0, %n0] tile [m=4, n=4], %c\n"
    "  }\n"
    "}\n";

/* Plans `text` on a pool of 8 workers with packets of `width` and
 * `registers` vector registers. */
static bool plan_text_registers(const char *text, const tir_define *d, const tilec_compile_options *o, uint32_t width,
                                uint32_t registers, plan_result *r) {
    tir_module *m = parse_kernel(text, d, d ? 1 : 0);
    if (!m) return false;
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, width, 8);
    pool.vector_registers = registers;
    bool ok = plan_ok(tir_module_func(m, 0), o, &pool.info, r);
    tir_module_destroy(m);
    return ok;
}

static bool plan_text(const char *text, const tir_define *d, const tilec_compile_options *o, uint32_t width, plan_result *r) {
    return plan_text_registers(text, d, o, width, PLAN_DEFAULT_VECTOR_REGISTERS, r);
}

static void test_exact_work(void) {
    plan_result r;
    /* copy: decode 1 (a cast), m0 = g·bm 1, 12 + 12 address adds; the load
     * and store addresses move by BM·N = 12 per program: 24 gathered. */
    if (plan_text(copy_text, NULL, NULL, 8, &r)) {
        const plan_work *w = &plan_selected(&r)->work;
        CHECK(w->arithmetic_ops == 26 && w->decode_ops == 1 && w->arithmetic_per_packet == 26);
        CHECK(w->gathered_accesses == 24 && w->contiguous_accesses == 0 && w->broadcast_loads == 0);
        CHECK(w->private_accesses == 0 && w->ragged_packets);
        CHECK(w->memory_per_packet == 24 * 2 * 8 * 2);
    }
    plan_result_free(&r);
    /* pick: 8 address adds, 10 for the runtime extract, decode 1; X gathered
     * (slope 8), I and Y contiguous; x's snapshot: 8 stores (every lane at
     * one slot: vector accesses) + 1 read at the loaded index (a gather). */
    if (plan_text(pick_text, NULL, NULL, 8, &r)) {
        const plan_choice *c = plan_selected(&r);
        const plan_work *w = &c->work;
        CHECK(w->arithmetic_ops == 19);
        CHECK(w->gathered_accesses == 8 && w->contiguous_accesses == 2 && w->private_accesses == 9);
        CHECK(w->memory_per_packet == (8 * 16 + 2 * 2) * 2 + 8 * 2 + 1 * 16);
        CHECK(c->resources.snapshot_bytes_per_worker == 32 && c->resources.snapshot_allocations == 1);
    }
    plan_result_free(&r);
    /* Coefficients weight the counts. */
    tilec_compile_options o = options_whole();
    o.cost.arithmetic = 3;
    o.cost.gathered_lane = 0.5;
    o.cost.contiguous_memory = 0;
    if (plan_text(pick_text, NULL, &o, 4, &r)) {
        const plan_work *w = &plan_selected(&r)->work;
        CHECK(w->arithmetic_per_packet == 57);
        CHECK(!w->ragged_packets && w->memory_per_packet == 8 * 0.5 * 4 + 1 * 0.5 * 4); /* 4 rows: W4 fits */
    }
    plan_result_free(&r);
}

/* Packet-local work (local_lanes = W = 8, N = 20: S = 3 slots): root
 * decode 1 + program ordinal and lane 2; per slot an address add for the
 * load and the store and the neg: 3 + 9.  Along D the rows move by one
 * element per lane (contiguous); a column tile (D on the view's strided
 * axis) is gathered.  Packets are one program each: never ragged. */
static const char neg_rows_text[] =
    "kernel @neg<R=4, N=20>(%X: const view<f32>[X.0=R, X.1=N], %Y: view<f32>[Y.0=R, Y.1=N]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%r, %c0] tile [m=1, n=N]\n"
    "    %y = neg %x\n"
    "    store %Y[%r, %c0] tile [m=1, n=N], %y\n"
    "  }\n"
    "}\n";

static const char neg_columns_text[] =
    "kernel @negc<R=4, N=20>(%X: const view<f32>[X.0=N, X.1=R], %Y: view<f32>[Y.0=N, Y.1=R]) {\n"
    "  parallel (%r: r=R) {\n"
    "    %c0 = const index 0\n"
    "    %x = load %X[%c0, %r] tile [n=N, m=1]\n"
    "    %y = neg %x\n"
    "    store %Y[%c0, %r] tile [n=N, m=1], %y\n"
    "  }\n"
    "}\n";

static void test_local_work(void) {
    tilec_compile_options o = options_whole();
    o.local_lanes = 8;
    plan_result r;
    if (plan_text(neg_rows_text, NULL, &o, 8, &r)) {
        const plan_choice *c = plan_selected(&r);
        const plan_work *w = &c->work;
        CHECK(c->candidate.local_lanes == 8 && c->candidate.dispatch_size == 32 && w->packet_count == 4);
        CHECK(w->arithmetic_ops == 12 && w->decode_ops == 3);
        CHECK(w->contiguous_accesses == 6 && w->gathered_accesses == 0 && w->broadcast_loads == 0);
        CHECK(!w->ragged_packets && w->memory_per_packet == 6 * 2);
    }
    plan_result_free(&r);
    if (plan_text(neg_columns_text, NULL, &o, 8, &r)) {
        const plan_work *w = &plan_selected(&r)->work;
        CHECK(w->gathered_accesses == 6 && w->contiguous_accesses == 0);
    }
    plan_result_free(&r);
}

/* Register pressure: one program per lane, mm's unrolled mma keeps its 16
 * accumulators and both 16-element operands live (each feeds 4 outputs):
 * 48 vectors.  Against 32 registers a third of 2 · 64 terms' accesses are
 * spills; against 48 or more, or an unknown count (0), none.  Packet-local
 * over n, a lane holds 4 accumulator slots and B's 4 slots (A's elements
 * feed one output slot each): 8 live vectors, no spills. */
static void test_register_spills(void) {
    tilec_compile_options o = options_whole();
    const uint32_t registers[] = {32, 48, 0};
    const double spills[] = {2.0 * 64 * 16 / 48, 0, 0};
    for (int i = 0; i < 3; i++) {
        plan_result r;
        if (plan_text_registers(mm_text, NULL, &o, 8, registers[i], &r)) {
            const plan_work *w = &plan_selected(&r)->work;
            CHECK(plan_selected(&r)->candidate.local_lanes == 1);
            CHECK(fabs(w->spill_accesses - spills[i]) < 1e-9);
            CHECK(w->private_accesses >= w->spill_accesses);
        }
        plan_result_free(&r);
    }
    plan_result r0, r32;
    if (plan_text_registers(mm_text, NULL, &o, 8, 0, &r0) && plan_text_registers(mm_text, NULL, &o, 8, 32, &r32)) {
        const plan_work *w0 = &plan_selected(&r0)->work, *w32 = &plan_selected(&r32)->work;
        CHECK(w32->memory_per_packet == w0->memory_per_packet + w32->spill_accesses * 2);
    }
    plan_result_free(&r0);
    plan_result_free(&r32);
    /* W = 4 in order [0,1]: a packet's lanes share gm, so A's elements are
     * broadcast loads (memory operands of the fma, no register): 32 live
     * vectors, a quarter of the accesses spills against 24 registers */
    const uint32_t order[] = {0, 1};
    o.root_axis_order = order;
    o.root_axis_order_len = 2;
    if (plan_text_registers(mm_text, NULL, &o, 4, 24, &r32)) {
        const plan_work *w = &plan_selected(&r32)->work;
        CHECK(w->broadcast_loads == 16 && fabs(w->spill_accesses - 2.0 * 64 * 8 / 32) < 1e-9);
    }
    plan_result_free(&r32);
    o.root_axis_order = NULL;
    o.root_axis_order_len = 0;
    o.local_lanes = 4;
    if (plan_text_registers(mm_text, NULL, &o, 4, 8, &r32)) {
        CHECK(plan_selected(&r32)->work.spill_accesses == 0);
    }
    plan_result_free(&r32);
    if (plan_text_registers(mm_text, NULL, &o, 4, 7, &r32)) { /* 8 live vectors against 7 */
        CHECK(fabs(plan_selected(&r32)->work.spill_accesses - 2.0 * 16 * 1 / 8) < 1e-9);
    }
    plan_result_free(&r32);
}

static void test_ragged_doubles_view_memory(void) {
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    plan_work w[2];
    for (int k = 0; k < 2; k++) {
        tir_module *m = fill_kernel(k ? 257 : 256);
        plan_result r;
        memset(&w[k], 0, sizeof w[k]);
        if (m && plan_ok(tir_module_func(m, 0), NULL, &pool.info, &r)) w[k] = plan_selected(&r)->work;
        plan_result_free(&r);
        tir_module_destroy(m);
    }
    CHECK(!w[0].ragged_packets && w[1].ragged_packets);
    CHECK(w[0].contiguous_accesses == 1 && w[0].memory_per_packet == 2 && w[1].memory_per_packet == 4);
    CHECK(w[0].arithmetic_ops == 1 && w[1].arithmetic_ops == 1);
}

/* The representation settings decide private traffic, as they decide
 * storage; work does not depend on block width or grain. */
static void test_work_follows_representation(void) {
    tilec_compile_options o = options_whole();
    o.search_task_grain = true;
    plan_result r;
    double bounded_private = 0, expanded_private = 0;
    tir_define rows = {"R", 1024};
    if (plan_text(sumsq_text(), &rows, &o, 8, &r)) {
        const plan_choice *s = plan_selected(&r);
        bounded_private = s->work.private_accesses;
        CHECK(s->resources.snapshot_bytes_per_worker == 129 * 4);
        /* 129 load stores + 2 reads per contribution of the x·x recipe. */
        CHECK(bounded_private == 129 + 2 * 129);
        for (size_t i = 0; i < r.candidates.len; i++) {
            const plan_work *w = &r.candidates.data[i].work;
            CHECK(w->arithmetic_per_packet == s->work.arithmetic_per_packet &&
                  w->memory_per_packet == s->work.memory_per_packet);
        }
        /* powers of two up to L = 128 (block W = 8), 32, 16, 8, 4, 2, 1 */
        CHECK(r.candidates.len == 8 + 6 + 5 + 4 + 3 + 2 + 1);
    }
    plan_result_free(&r);
    o = options_whole();
    o.max_unrolled_tile_elements = 0; /* fully expanded: x and x·x are SSA */
    if (plan_text(sumsq_text(), NULL, &o, 8, &r)) {
        const plan_choice *s = plan_selected(&r);
        expanded_private = s->work.private_accesses;
        /* x·x is read at the reduction's runtime index: its definition
         * snapshot (129 stores) and one read per contribution. */
        CHECK(s->resources.snapshot_bytes_per_worker == 129 * 4 && s->resources.snapshot_allocations == 1);
        CHECK(expanded_private == 129 + 129);
    }
    plan_result_free(&r);
    CHECK(bounded_private != expanded_private);
}

/* Every example: plan, lower the selected plan, compare. */
static void test_compile_examples(void) {
    static const char *examples[] = {"attention", "bmm", "gelu", "gemm", "gemm_bt", "layernorm", "masked_softmax",
                                     "rmsnorm", "rope", "softmax", "swiglu"};
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        tir_module *m = parse_example(ctx, examples[i], NULL, 0);
        if (!m) continue;
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t width = 1; width <= 16; width *= 4) {
            plan_thread_pool pool;
            plan_thread_pool_init(&pool, width, 8);
            plan_result p;
            lower_result lr;
            tilec_status st = pipeline_plan_and_lower(ctx, f, NULL, &pool.info, &p, &lr);
            CHECK_MSG(st == TILEC_OK, "%s W%u: pipeline_plan_and_lower failed", examples[i], width);
            flush_diags();
            if (!st) {
                const plan_choice *c = plan_selected(&p);
                CHECK(lr.block_size == c->candidate.block_size && lr.kernel->block_size == c->candidate.block_size);
                CHECK(lr.packet_width == width && lr.dispatch_size == c->candidate.dispatch_size);
                CHECK(lr.resources.snapshot_bytes_per_worker == c->resources.snapshot_bytes_per_worker);
                CHECK(lr.resources.snapshot_allocations == c->resources.snapshot_allocations);
                CHECK(xir_verify(ctx, lr.module) == TILEC_OK);
                CHECK(!strncmp(lr.realization, "planner=exact; target=cpu-thread-pool; ", 39));
                char order[256] = "root_order=[";
                for (uint32_t t = 0; t < c->candidate.rank; t++)
                    snprintf(order + strlen(order), sizeof order - strlen(order), "%s%u", t ? "," : "",
                             c->candidate.order[t]);
                strcat(order, "]");
                CHECK_STR_CONTAINS(lr.realization, order);
                char budget[64];
                snprintf(budget, sizeof budget, "snapshot_budget=%u;", (16u << 20) / width);
                CHECK_STR_CONTAINS(lr.realization, budget);
                lower_result_free(&lr);
            }
            plan_result_free(&p);
        }
        tir_module_destroy(m);
    }
}

/* Fusion is priced: on streams the softmax row (a bounded load), off
 * snapshots it, auto keeps the cheaper of the two per candidate. */
static void test_fusion_priced(void) {
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    plan_result r[3];
    lower_result l[3];
    const tilec_fuse modes[3] = {TILEC_FUSE_OFF, TILEC_FUSE_ON, TILEC_FUSE_AUTO};
    tilec_compile_options o = options_whole();
    for (int i = 0; i < 3; i++) {
        o.fuse = modes[i];
        CHECK(pipeline_plan_and_lower(ctx, f, &o, &pool.info, &r[i], &l[i]) == TILEC_OK);
    }
    flush_diags();
    if (r[0].ok && r[1].ok && r[2].ok && l[0].module && l[1].module && l[2].module) {
        CHECK(!plan_selected(&r[0])->candidate.fused && plan_selected(&r[1])->candidate.fused);
        CHECK(l[0].counters.streamed_loads == 0 && l[1].counters.streamed_loads == 1);
        CHECK_STR_CONTAINS(l[0].realization, "fuse=off; fused=0;");
        CHECK_STR_CONTAINS(l[1].realization, "fuse=on; fused=1;");
        double off = plan_selected(&r[0])->cost.score, on = plan_selected(&r[1])->cost.score;
        CHECK(plan_selected(&r[2])->cost.score == (on < off ? on : off));
        CHECK(plan_selected(&r[2])->candidate.fused == (on < off));
        CHECK(l[1].resources.snapshot_bytes_per_worker < l[0].resources.snapshot_bytes_per_worker);
    }
    for (int i = 0; i < 3; i++) {
        lower_result_free(&l[i]);
        plan_result_free(&r[i]);
    }
    tir_module_destroy(m);
}

/* Fusion level 2 (costly values recomputed) replaces a refusal and nothing
 * else: masked softmax's 8M-wide rows at W = 16 keep their exponentials in
 * an array at level 1 (over the 1 MiB budget), recompute them at level 2
 * (no array, more arithmetic); off, every candidate is refused; 4096-wide
 * rows never take level 2. */
static void test_fusion_beyond_budget(void) {
    static const struct {
        int64_t width;
        tilec_fuse fuse;
        uint32_t level; /* UINT32_MAX: refused */
    } cases[] = {{(8 << 20) + 3, TILEC_FUSE_AUTO, 2}, {(8 << 20) + 3, TILEC_FUSE_ON, 2},
                 {(8 << 20) + 3, TILEC_FUSE_OFF, UINT32_MAX}, {4096, TILEC_FUSE_ON, 1}};
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 2, 16);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_define d[2] = {{"R", 2}, {"W", cases[i].width}};
        tir_module *m = parse_example(ctx, "masked_softmax", d, 2);
        if (!m) continue;
        tilec_compile_options o = options_whole();
        o.fuse = cases[i].fuse;
        plan_result r;
        lower_result l;
        tilec_status st = pipeline_plan_and_lower(ctx, tir_module_func(m, 0), &o, &pool.info, &r, &l);
        if (cases[i].level == UINT32_MAX) {
            CHECK_MSG(st == TILEC_E_UNSUPPORTED && tilec_diag_count(ctx) == 1 &&
                          !strcmp(tilec_diag_at(ctx, 0)->code, "PLAN-S01"),
                      "case %zu: %s", i, tilec_status_name(st));
            tilec_diag_clear(ctx);
        } else if (st == TILEC_OK && r.ok && l.module) {
            const plan_choice *c = plan_selected(&r);
            CHECK_MSG(c->candidate.fused == cases[i].level, "case %zu: level %u", i, c->candidate.fused);
            CHECK(cases[i].level != 2 || (c->resources.snapshot_bytes_per_worker == 0 &&
                                          l.resources.snapshot_bytes_per_worker == 0));
            char item[32];
            snprintf(item, sizeof item, "fused=%u;", cases[i].level);
            CHECK_STR_CONTAINS(l.realization, item);
        } else {
            CHECK_MSG(false, "case %zu: %s", i, tilec_status_name(st));
        }
        flush_diags();
        lower_result_free(&l);
        plan_result_free(&r);
        tir_module_destroy(m);
    }
}

/* Short rows (docs/planner.md "Short rows"): at W = 16 on one worker,
 * softmax's 65536 rows of 4, 8 and 12 run faster one program per lane
 * (measured 1.3–2.4×) and its rows of 16 and 4096 packet-local; the search
 * (local_lanes = 0) picks each. */
static void test_short_rows(void) {
    static const struct {
        int64_t rows, n;
        uint32_t lanes;
    } cases[] = {{65536, 4, 1}, {65536, 8, 1}, {65536, 12, 1}, {65536, 16, 16}, {1024, 4096, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_define d[2] = {{"R", cases[i].rows}, {"W", cases[i].n}};
        tir_module *m = parse_example(ctx, "softmax", d, 2);
        if (!m) continue;
        plan_thread_pool pool;
        plan_thread_pool_init(&pool, 16, 1);
        plan_result r;
        tilec_compile_options o = tilec_compile_options_default(); /* the search over {1, W}, fusion auto */
        if (plan_ok(tir_module_func(m, 0), &o, &pool.info, &r))
            CHECK_MSG(plan_selected(&r)->candidate.local_lanes == cases[i].lanes, "softmax %lldx%lld: local lanes %u",
                      (long long)cases[i].rows, (long long)cases[i].n, plan_selected(&r)->candidate.local_lanes);
        plan_result_free(&r);
        tir_module_destroy(m);
    }
}

/* Upstream case 3: a 32×24 root whose stores are column-major relative to
 * the root order (address b·32 + a).  The flat order's fast digit is b
 * (gathered); identity tiles {1,8} are the same mapping (same score);
 * coherent tiles {8,1} make a the fast digit (contiguous: less memory, more
 * decode arithmetic); crossing tiles {2,1} span 2 a × 4 b per packet
 * (gathered: the same memory as flat). */
static const char colmajor_text[] =
    "kernel @colmajor(%Y: view<f32>[Y.0=24, Y.1=32]) {\n"
    "  parallel (%a: a=32, %b: b=24) {\n"
    "    %one = const f32 1.0\n"
    "    store %Y[%b, %a], %one\n"
    "  }\n"
    "}\n";

static bool plan_tiled(const tir_func *f, const uint32_t *tiles, bool fixed, plan_result *r) {
    static const uint32_t order[] = {0, 1};
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    tilec_compile_options o = options_whole();
    o.block_size = fixed ? 64 : 0;
    o.root_axis_order = fixed ? order : NULL;
    o.root_axis_order_len = fixed ? 2 : 0;
    o.root_axis_tiles = tiles;
    o.root_axis_tiles_len = tiles ? 2 : 0;
    return plan_ok(f, &o, &pool.info, r);
}

static void test_physical_fast_digit(void) {
    tir_module *m = parse_kernel(colmajor_text, NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    static const uint32_t identity[] = {1, 8}, coherent[] = {8, 1}, crossing[] = {2, 1};
    plan_result flat, id, co, cr;
    bool ok = plan_tiled(f, NULL, true, &flat) & plan_tiled(f, identity, true, &id) &
              plan_tiled(f, coherent, true, &co) & plan_tiled(f, crossing, true, &cr);
    if (ok) {
        const plan_work *wf = &plan_selected(&flat)->work, *wc = &plan_selected(&co)->work;
        const plan_work *wx = &plan_selected(&cr)->work;
        CHECK(plan_selected(&flat)->cost.score == plan_selected(&id)->cost.score);
        CHECK(wf->gathered_accesses == 1 && !wf->ragged_packets);
        CHECK(wc->contiguous_accesses == 1 && !wc->ragged_packets);
        CHECK(wc->memory_per_packet < wf->memory_per_packet && wc->decode_ops > wf->decode_ops);
        CHECK(wc->arithmetic_per_packet > wf->arithmetic_per_packet);
        CHECK(wx->gathered_accesses == 1 && !wx->ragged_packets && wx->memory_per_packet == wf->memory_per_packet);
        CHECK(co.options.root_axis_tiles_len == 2 && co.options.root_axis_tiles[0] == 8);
    }
    plan_result_free(&flat);
    plan_result_free(&id);
    plan_result_free(&co);
    plan_result_free(&cr);
    /* Searched: the identity tiling plans and lowers exactly like no tiling
     * (byte-identical XIR); the tiles hold for every order. */
    plan_thread_pool pool;
    plan_thread_pool_init(&pool, 8, 8);
    plan_result p[2];
    lower_result l[2];
    static const uint32_t full[] = {32, 24};
    for (int k = 0; k < 2; k++) {
        tilec_compile_options o = options_whole();
        o.root_axis_tiles = k ? full : NULL;
        o.root_axis_tiles_len = k ? 2 : 0;
        CHECK(pipeline_plan_and_lower(ctx, f, &o, &pool.info, &p[k], &l[k]) == TILEC_OK);
        flush_diags();
    }
    if (p[0].ok && p[1].ok && l[0].module && l[1].module) {
        CHECK(p[0].candidate_count == 14 && p[1].candidate_count == 14);
        CHECK(plan_selected(&p[0])->candidate.index == plan_selected(&p[1])->candidate.index);
        CHECK(plan_selected(&p[0])->cost.score == plan_selected(&p[1])->cost.score);
        strbuf a, b;
        strbuf_init(&a, ctx);
        strbuf_init(&b, ctx);
        CHECK(xir_print_to_strbuf(l[0].module, &a) && xir_print_to_strbuf(l[1].module, &b));
        CHECK(a.len > 0 && !strcmp(strbuf_cstr(&a), strbuf_cstr(&b)));
        strbuf_free(&a);
        strbuf_free(&b);
    }
    for (int k = 0; k < 2; k++) {
        lower_result_free(&l[k]);
        plan_result_free(&p[k]);
    }
    plan_result r;
    if (plan_tiled(f, coherent, false, &r)) {
        CHECK(r.candidate_count == 14);
        const plan_choice *s = plan_selected(&r);
        /* Both orders are contiguous; under [1,0] the a-digits merge back
         * into the plain decode, which is cheaper. */
        CHECK(s->candidate.order[0] == 1 && s->candidate.order[1] == 0 && s->work.contiguous_accesses == 1);
        CHECK(r.candidates.data[0].work.contiguous_accesses == 1);
        CHECK(r.candidates.data[0].work.decode_ops > s->work.decode_ops);
    }
    plan_result_free(&r);
    /* Invalid tiles fail with the shared messages. */
    static const uint32_t bad[] = {3, 8};
    plan_thread_pool_init(&pool, 8, 8);
    tilec_compile_options o = options_whole();
    o.root_axis_tiles = bad;
    o.root_axis_tiles_len = 2;
    plan_fails("tiles 3,8", f, &o, &pool.info, "XIR root axis tiles must be positive divisors of the original extents");
    o.root_axis_tiles_len = 1;
    plan_fails("one tile", f, &o, &pool.info, "XIR root axis tiles must specify every original axis");
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_exact_work();
    test_local_work();
    test_register_spills();
    test_ragged_doubles_view_memory();
    test_work_follows_representation();
    test_compile_examples();
    test_fusion_priced();
    test_fusion_beyond_budget();
    test_short_rows();
    test_physical_fast_digit();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
