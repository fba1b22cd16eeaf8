/* Packet width W = 32 (a GPU warp: the NVPTX backend runs the same XIR, one
 * lane per thread, warp_read_lane as a warp shuffle), checked on the W-lane
 * XIR interpreter — the GPU's oracle — against the TileIR reference
 * interpreter (lower_fixture.h: padded buffers with sentinels, offset views,
 * NaN-initialized outputs, aliasing).  The SIMD backend refuses W = 32, so
 * nothing here runs natively.
 *
 * - Every example of examples/ (the table below must name each one) at its
 *   default shape and at a ragged one whose dispatch is not a multiple of 32
 *   (inactive lanes in the last warp), in both realizations: one program per
 *   lane (local_lanes = 1) and packet-local (local_lanes = 32, one program
 *   per warp, the row axis split over the lanes) wherever realize/local.h
 *   admits it; where it refuses, the lowering must refuse with realize/local.h's
 *   code and reason.  Every example is admitted today (must_local), the row
 *   examples, gemm, gemm_bt, bmm and attention among them.
 * - The packet-local row examples at row widths straddling the warp, N in
 *   {1, 31, 32, 33, 65, 1027} (lanes without an element, a partly valid last
 *   slot, the peeled runtime loop), 1 and 3 rows.
 * - Packet reductions invent no identity (-0.0 and NaN seeds), rows shorter
 *   than, equal to and longer than the warp; a 5-step butterfly.
 * - Held-out-style kernels (tests/kernels): a row dot product (mma over the
 *   split axis: a 5-step butterfly), ordered folds of the row read lane by
 *   lane, a GEMM with a bias + ReLU epilogue and integer / mixed-precision
 *   mma, packet-local, bitwise on dyadic inputs at row widths around 32; and
 *   every kernel of every tests/kernels file in both realizations.
 * - Packet-local refusals at 32 lanes with realize/local.h's reasons: an ordered
 *   walk of the row, and a dispatch of 2^27 programs × 32 lanes.
 * - Block sizes 32 and 1024 (several blocks, a partial last one) in both
 *   realizations; 48 and 16 (not multiples of 32) and 1056 are refused
 *   (LOWER-O01), W = 64 too (LOWER-O02), and the interpreter refuses to run
 *   a block of 48 at W = 32 (XIR-I01).
 * - The SIMD backend refuses W = 32 (SIMD-O01) and a warp-local kernel at
 *   W = 16 (SIMD-O04). */
#include "lower_fixture.h"

#include "realize/admit.h"
#include "realize/local.h"

enum { WARP = 32 };

static lowering warp_options(uint32_t local_lanes) {
    lowering o = lowering_default();
    o.choice.packet_width = WARP;
    o.choice.lanes = local_lanes;
    return o;
}

/* How each example runs: its ragged shape (and an aliased binding there),
 * exact inputs (bitwise) or a tolerance, the define of its row width when it
 * is a row example (`half`: the row's tiles are W/2 wide), and whether the
 * packet-local realization must be admitted. */
typedef struct {
    const char *name;
    tir_define ragged[9];
    size_t n_ragged;
    int alias_out, alias_in; /* the ragged case's binding (-1: none) */
    bool exact;
    double tolerance;
    const char *row_define; /* NULL: not a row example */
    bool half;
    bool must_local;
} warp_example;

static const warp_example examples[] = {
    {"attention", {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"Lq", 3}, {"Lk", 35}, {"D", 7}, {"Dv", 33}, {"bk", 33}}, 8, -1, -1,
     false, 5e-5, NULL, false, true},
    {"attention_gqa", {{"B", 1}, {"Hq", 4}, {"Hkv", 2}, {"Lq", 5}, {"Lk", 35}, {"D", 7}, {"Dv", 33}, {"bk", 33}}, 8, -1,
     -1, false, 5e-5, NULL, false, true},
    {"bmm", {{"BATCH", 2}, {"M", 9}, {"N", 37}, {"K", 5}, {"BN", 32}}, 5, -1, -1, true, 0, NULL, false, true},
    {"gelu", {{"R", 37}, {"W", 33}}, 2, 2, 1, false, 5e-5, "W", false, true},
    {"gelu_erf", {{"R", 37}, {"W", 33}}, 2, 1, 0, false, 5e-5, "W", false, true},
    {"gemm", {{"M", 19}, {"N", 37}, {"K", 13}, {"BM", 2}, {"BN", 33}, {"BK", 4}}, 6, -1, -1, true, 0, NULL, false, true},
    {"gemm_bf16", {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 4}}, 4, -1, -1, true, 0, NULL, false, true},
    {"gemm_int8", {{"M", 19}, {"N", 21}, {"K", 13}, {"BK", 16}}, 4, -1, -1, true, 0, NULL, false, true},
    {"gemm_bt", {{"M", 19}, {"N", 37}, {"K", 13}, {"BM", 2}, {"BN", 33}, {"BK", 4}}, 6, -1, -1, true, 0, NULL, false,
     true},
    {"layernorm", {{"R", 37}, {"W", 33}}, 2, 3, 0, false, 5e-5, "W", false, true},
    {"masked_softmax", {{"R", 37}, {"W", 33}}, 2, 1, 0, false, 5e-5, "W", false, true},
    {"rmsnorm", {{"R", 37}, {"W", 33}}, 2, 2, 0, false, 5e-5, "W", false, true},
    /* bf16 output: the reference rounds its FP64 result, XIR its f32 one,
     * once each: they may differ by one bf16 step (2^-7 relative) */
    {"rmsnorm_bf16", {{"R", 37}, {"W", 33}}, 2, 2, 0, false, 1e-2, "W", false, true},
    {"rope", {{"R", 37}, {"W", 66}}, 2, 3, 0, false, 5e-5, "W", true, true},
    {"rope_interleaved", {{"R", 37}, {"W", 66}}, 2, 3, 0, false, 5e-5, "W", true, true},
    {"rope_table", {{"R", 37}, {"W", 66}}, 2, 1, 0, false, 5e-5, "W", true, true},
    {"softmax", {{"R", 37}, {"W", 33}}, 2, 1, 0, false, 5e-5, "W", false, true},
    {"swiglu", {{"R", 37}, {"W", 33}}, 2, 2, 0, false, 5e-5, "W", false, true},
    {"transpose", {{"M", 37}, {"N", 70}, {"B", 8}}, 3, -1, -1, true, 0, NULL, false, true},
};

static const warp_example *find_example(const char *name) {
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
        if (!strcmp(examples[i].name, name)) return &examples[i];
    return NULL;
}

/* Runs so far, for the summary line. */
static struct {
    unsigned whole, local, refused;
} counts;

/* Lowers f one program per lane at W = 32 and compares it with the
 * reference; `ragged` asserts a partly active last warp. */
static bool check_whole(const char *label, const tir_func *f, run_config c, bool ragged) {
    lowering o = warp_options(1);
    lower_result r;
    if (!lower_ok(f, &o, &r)) return false;
    CHECK_MSG(r.local_lanes == 1 && r.required_packet_width == 0 && r.packet_width == WARP, "%s: %s", label,
              r.realization);
    CHECK_MSG(!ragged || r.dispatch_size % WARP != 0, "%s: dispatch %u fills every warp", label, r.dispatch_size);
    c.width = WARP;
    bool ok = run_xir_and_compare(label, f, &r, &c);
    lower_result_free(&r);
    counts.whole++;
    return ok;
}

/* Lowers f packet-local at W = 32 and compares it with the reference. */
static bool check_local(const char *label, const tir_func *f, run_config c) {
    lowering o = warp_options(WARP);
    lower_result r;
    if (!lower_ok(f, &o, &r)) return false;
    CHECK_MSG(r.local_lanes == WARP && r.required_packet_width == WARP && r.dispatch_size % WARP == 0, "%s: %s", label,
              r.realization);
    CHECK_STR_CONTAINS(r.realization, "local_lanes=32;");
    c.width = WARP;
    bool ok = run_xir_and_compare(label, f, &r, &c);
    lower_result_free(&r);
    counts.local++;
    return ok;
}

/* Packet-local where realize/local.h admits f at 32 lanes; otherwise the
 * lowering must refuse with that decision's code and reason.  Returns
 * whether it was admitted. */
static bool check_local_or_refused(const char *label, const tir_func *f, const run_config *c) {
    plan_admission a;
    plan_local l;
    if (plan_admit(ctx, f, &a) != TILEC_OK) {
        CHECK_MSG(false, "%s: not admitted by the planner", label);
        flush_diags_in(ctx);
        return false;
    }
    if (plan_local_admit(f, &a, WARP, &l)) {
        check_local(label, f, *c);
        return true;
    }
    lowering o = warp_options(WARP);
    lower_result r;
    tilec_status st = lower_kernel(ctx, f, &o.record, &o.choice, &r);
    CHECK_MSG(st == TILEC_E_UNSUPPORTED && r.module == NULL, "%s: refused by realize/local.h (%s) but lowered (%s)", label,
              l.why, tilec_status_name(st));
    CHECK_MSG(has_diag(plan_local_refusal_code(l.refusal), l.why), "%s: no %s diagnostic with '%s'", label,
              plan_local_refusal_code(l.refusal), l.why);
    CHECK_MSG(has_diag(NULL, "not admitted to packet-local lowering (local_lanes=32)"), "%s: no packet-local refusal",
              label);
    tilec_diag_clear(ctx);
    if (st == TILEC_OK) lower_result_free(&r);
    printf("  %s: packet-local refused (%s: %s)\n", label, plan_local_refusal_code(l.refusal), l.why);
    counts.refused++;
    return false;
}

/* examples/NAME.tir at its default shape (no alias) and its ragged one
 * (aliased where the table says), in both realizations. */
static bool visit_example(const char *path, const char *file, const char *text, size_t size, void *env) {
    (void)path, (void)size;
    unsigned *local_admitted = env;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - 4), file);
    const warp_example *e = find_example(name);
    CHECK_MSG(e != NULL, "examples/%s has no entry in test_warp.c's table: add its ragged shape", file);
    if (!e) return false;
    bool all_local = true;
    for (int ragged = 0; ragged < 2; ragged++) {
        tir_module *m = parse_kernel(text, e->ragged, ragged ? e->n_ragged : 0);
        if (!m) return false;
        const tir_func *f = tir_module_func(m, 0);
        run_config c = run_config_default(WARP, e->exact);
        if (!e->exact) c.tolerance = e->tolerance;
        if (ragged && e->alias_out >= 0) c.alias[e->alias_out] = e->alias_in;
        char label[96];
        snprintf(label, sizeof label, "%s %s W=32", name, ragged ? "ragged" : "default");
        check_whole(label, f, c, ragged);
        snprintf(label, sizeof label, "%s %s W=32 local", name, ragged ? "ragged" : "default");
        bool local = check_local_or_refused(label, f, &c);
        CHECK_MSG(local || !e->must_local, "%s: must run packet-local", label);
        all_local = all_local && local;
        tir_module_destroy(m);
    }
    if (all_local) ++*local_admitted;
    return true;
}

static void test_examples(void) {
    unsigned local_admitted = 0;
    int visited = for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", visit_example, &local_admitted);
    CHECK_MSG(visited >= 18, "only %d examples", visited);
    /* every table entry names an example that exists */
    CHECK_MSG((size_t)visited == sizeof examples / sizeof *examples, "%d examples, %zu table entries", visited,
              sizeof examples / sizeof *examples);
    printf("examples: %d, packet-local at W=32 in both shapes: %u\n", visited, local_admitted);
}

/* The packet-local row examples at row widths around the warp. */
static void test_row_widths(void) {
    static const int64_t widths[] = {1, 31, 32, 33, 65, 1027}, rows[] = {1, 3};
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        const warp_example *e = &examples[i];
        if (!e->row_define) continue;
        char *text = read_example(e->name);
        if (!text) continue;
        for (size_t n = 0; n < sizeof widths / sizeof *widths; n++)
            for (size_t ri = 0; ri < 2; ri++) {
                tir_define d[2] = {{"R", rows[ri]}, {e->row_define, e->half ? 2 * widths[n] : widths[n]}};
                tir_module *m = parse_kernel(text, d, 2);
                if (!m) continue;
                char label[96];
                snprintf(label, sizeof label, "%s local W=32 N=%lld R=%lld", e->name, (long long)widths[n],
                         (long long)rows[ri]);
                run_config c = run_config_default(WARP, false);
                c.tolerance = e->tolerance;
                bool local = check_local_or_refused(label, tir_module_func(m, 0), &c);
                CHECK_MSG(local || !e->must_local, "%s: must run packet-local", label);
                tir_module_destroy(m);
            }
        free(text);
    }
}

/* Refused packet-local at 32 lanes with realize/local.h's reasons (and run
 * one program per lane instead): a prefix walked in order over the row, and
 * a dispatch of 2^27 programs × 32 lanes beyond uint32 (fine at 16). */
static void test_refusals(void) {
    const run_config exact = run_config_default(WARP, true);
    tir_module *m = parse_test_kernel(ctx, "row_prefix");
    if (m) {
        CHECK(!check_local_or_refused("row_prefix W=32 local", tir_module_func(m, 0), &exact));
        check_whole("row_prefix W=32", tir_module_func(m, 0), run_config_default(WARP, true), false);
        tir_module_destroy(m);
    }
    tir_define huge[] = {{"R", 1 << 27}, {"W", 2}};
    m = parse_example(ctx, "softmax", huge, 2);
    if (!m) return;
    plan_admission a;
    plan_local l;
    CHECK(plan_admit(ctx, tir_module_func(m, 0), &a) == TILEC_OK);
    CHECK(plan_local_admit(tir_module_func(m, 0), &a, 16, &l));
    CHECK(!check_local_or_refused("softmax 2^27 rows W=32 local", tir_module_func(m, 0), &exact));
    CHECK(!plan_local_admit(tir_module_func(m, 0), &a, WARP, &l) && l.refusal == PLAN_LOCAL_REFUSE_DISPATCH &&
          strstr(l.why, "134217728 programs × 32 lanes"));
    tir_module_destroy(m);
}

/* Packet reductions invent no identity at W = 32 either
 * (tests/kernels/packet_reductions.tir: -0.0 and NaN seeds, a seed on the
 * carry's right): rows shorter than the warp (lanes without an element: the
 * lanes' validity travels through the butterfly), one warp wide, a partly
 * valid last slot, several slots; 1 and 4 partitions; bitwise.  A full
 * butterfly has log2 32 = 5 steps, then lane 0's root is broadcast. */
static void test_reductions(void) {
    static const int64_t widths[] = {1, 2, 3, 17, 31, 32, 33, 65, 100};
    for (size_t n = 0; n < sizeof widths / sizeof *widths; n++)
        for (uint32_t p = 1; p <= 4; p += 3) {
            tir_define d = {"N", widths[n]};
            tir_module *m = parse_test_kernel_with(ctx, "packet_reductions", &d, 1);
            if (!m) continue;
            lowering o = warp_options(WARP);
            o.record.reduction_partitions = p;
            lower_result r;
            char label[64];
            snprintf(label, sizeof label, "packet reductions W=32 N=%lld P=%u", (long long)widths[n], p);
            if (lower_ok(tir_module_func(m, 0), &o, &r)) {
                CHECK(r.counters.packet_reductions == (widths[n] > 1 ? 4 : 0)); /* N = 1: replicated */
                uint64_t reads = count_insts(r.kernel, XIR_INST_WARP_READ_LANE, XIR_OP_INVALID);
                /* per reduction: 5 steps of one read (two with the validity
                 * when no slot is full), and the broadcast */
                CHECK_MSG(widths[n] < 31 || reads == 4 * (widths[n] >= 32 ? 5 + 1 : 2 * 5 + 1),
                          "%s: %llu warp_read_lane", label, (unsigned long long)reads);
                run_config c = run_config_default(WARP, true);
                run_xir_and_compare(label, tir_module_func(m, 0), &r, &c);
                counts.local++;
                lower_result_free(&r);
            }
            tir_module_destroy(m);
        }
}

/* Kernels of tests/kernels whose indices come from their input data: the
 * harness's inputs send them out of bounds (the reference and XIR both
 * fault there), so they are not compared. */
static const char *const data_indexed[] = {"scalar_ops"};

typedef struct {
    unsigned run, not_lowered, unbound;
} kernel_file_counts;

/* Every kernel of every .tir file of tests/kernels at its default shape, in
 * both realizations (packet-local where admitted), on inexact inputs.  A
 * kernel outside the lowering's admission (LOWER-A..: no single root
 * parallel, ops outside it, a device scope) must be refused at W = 32 too;
 * kernels the buffer harness cannot bind (scalar parameters, more than
 * MAX_ARGS, runtime sizes) and data_indexed ones are counted and named. */
static bool visit_kernel_file(const char *path, const char *file, const char *text, size_t size, void *env) {
    (void)path, (void)size;
    kernel_file_counts *n = env;
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return false;
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        char label[96];
        snprintf(label, sizeof label, "%s @%s W=32", file, tir_func_name(f));
        if (tir_func_symbol_count(f)) { /* no default shape to bind buffers at */
            printf("  %s: not run (runtime sizes)\n", label);
            n->unbound++;
            continue;
        }
        plan_admission a;
        if (plan_admit(ctx, f, &a) != TILEC_OK) {
            tilec_diag_clear(ctx);
            lowering o = warp_options(1);
            lower_result r;
            tilec_status st = lower_kernel(ctx, f, &o.record, &o.choice, &r);
            CHECK_MSG(st == TILEC_E_UNSUPPORTED && tilec_diag_count(ctx) > 0 &&
                          !strncmp(last_diag_code(ctx), "LOWER-A", 7),
                      "%s: not admitted, but the lowering says %s (%s)", label, tilec_status_name(st),
                      last_diag_code(ctx));
            if (st == TILEC_OK) lower_result_free(&r);
            printf("  %s: not lowered (%s)\n", label, last_diag_code(ctx));
            tilec_diag_clear(ctx);
            n->not_lowered++;
            continue;
        }
        size_t params = tir_func_param_count(f);
        bool bound = params <= MAX_ARGS;
        for (size_t p = 0; bound && p < params; p++)
            bound = tir_type_kind_of(tir_value_type(tir_func_param(f, p))) == TIR_TYPE_VIEW;
        for (size_t k = 0; k < sizeof data_indexed / sizeof *data_indexed; k++)
            bound = bound && strcmp(tir_func_name(f), data_indexed[k]) != 0;
        if (!bound) {
            printf("  %s: not run (scalar parameters, more than %d, or data-dependent indices)\n", label, MAX_ARGS);
            n->unbound++;
            continue;
        }
        run_config c = run_config_default(WARP, false);
        c.tolerance = 5e-5;
        check_whole(label, f, c, false);
        snprintf(label, sizeof label, "%s @%s W=32 local", file, tir_func_name(f));
        check_local_or_refused(label, f, &c);
        n->run++;
    }
    tir_module_destroy(m);
    return true;
}

static void test_kernel_files(void) {
    kernel_file_counts n = {0};
    int files = for_each_source(TILEC_SOURCE_DIR "/tests/kernels", ".tir", visit_kernel_file, &n);
    CHECK_MSG(files >= 20, "only %d kernel files", files);
    CHECK_MSG(n.run >= 30 && n.unbound <= 3, "%u kernels run, %u not bound", n.run, n.unbound);
    printf("tests/kernels: %d files, %u kernels run, %u not lowerable, %u not bound\n", files, n.run, n.not_lowered,
           n.unbound);
}

/* tests/kernels: the row dot product (mma over the split axis), its ordered
 * form and ordered folds (each element read from its lane in order), at
 * row widths around the warp; GEMM with a bias + ReLU epilogue; integer and
 * mixed-precision mma.  Dyadic inputs: bitwise. */
static void test_kernels(void) {
    static const int64_t widths[] = {1, 31, 32, 33, 65};
    static const char *const rows[] = {"row_dot", "row_dot_ordered", "row_fold"};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        for (size_t n = 0; n < sizeof widths / sizeof *widths; n++) {
            tir_define d[] = {{"R", 3}, {"N", widths[n]}};
            tir_module *m = parse_test_kernel_with(ctx, rows[k], d, 2);
            if (!m) continue;
            char label[80];
            snprintf(label, sizeof label, "%s N=%lld W=32", rows[k], (long long)widths[n]);
            check_whole(label, tir_module_func(m, 0), run_config_default(WARP, true), false);
            snprintf(label, sizeof label, "%s N=%lld W=32 local", rows[k], (long long)widths[n]);
            check_local(label, tir_module_func(m, 0), run_config_default(WARP, true));
            tir_module_destroy(m);
        }
    tir_module *m = parse_test_kernel(ctx, "gemm_epilogue");
    if (m) {
        check_whole("matmul+bias+relu W=32", tir_module_func(m, 0), run_config_default(WARP, true), false);
        check_local("matmul+bias+relu W=32 local", tir_module_func(m, 0), run_config_default(WARP, true));
        tir_module_destroy(m);
    }
    static const char *const types[][2] = {{"i8", "i32"}, {"u16", "i64"}, {"f32", "f64"}, {"i32", "f32"}};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        m = typed_gemm_module(ctx, types[t][0], types[t][1], NULL, 0);
        if (!m) continue;
        char label[64];
        snprintf(label, sizeof label, "gemm %s -> %s W=32 local", types[t][0], types[t][1]);
        check_local(label, tir_module_func(m, 0), run_config_default(WARP, true));
        tir_module_destroy(m);
    }
}

static void expect_option_error(const tir_func *f, const lowering *o, const char *code, const char *text) {
    lower_result r;
    tilec_status st = lower_kernel(ctx, f, &o->record, &o->choice, &r);
    CHECK_MSG(st == TILEC_E_ARG && r.module == NULL, "B=%u W=%u: status %s", o->choice.block, o->choice.packet_width,
              tilec_status_name(st));
    CHECK_MSG(has_diag(code, text), "B=%u W=%u: no %s diagnostic with '%s'", o->choice.block, o->choice.packet_width, code, text);
    tilec_diag_clear(ctx);
    if (st == TILEC_OK) lower_result_free(&r);
}

/* Blocks of one warp and of 1024 lanes: the softmax rows span several
 * blocks of 32 and one partial block of 1024, a GEMM too; both
 * realizations.  Blocks that are not multiples of 32 are refused. */
static void test_block_sizes(void) {
    static const example_case cases[] = {
        {"softmax", {{"R", 37}, {"W", 33}}, 2, -1, -1},
        {"gemm", {{"M", 37}, {"N", 37}, {"K", 13}, {"BM", 2}, {"BN", 33}, {"BK", 4}}, 6, -1, -1},
    };
    static const uint32_t blocks[] = {32, 1024};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tir_module *m = parse_example(ctx, cases[i].name, cases[i].defines, cases[i].n_defines);
        if (!m) continue;
        const tir_func *f = tir_module_func(m, 0);
        bool exact = !strcmp(cases[i].name, "gemm");
        for (size_t b = 0; b < 2; b++)
            for (uint32_t lanes = 1; lanes <= WARP; lanes += WARP - 1) {
                lowering o = warp_options(lanes);
                o.choice.block = blocks[b];
                lower_result r;
                if (!lower_ok(f, &o, &r)) continue;
                CHECK(r.block_size == blocks[b] && r.kernel->block_size == blocks[b]);
                CHECK_MSG(r.dispatch_size > blocks[b] || blocks[b] == 1024, "%s: one block of %u holds all %u",
                          cases[i].name, blocks[b], r.dispatch_size);
                /* a partial last block (warps are whole blocks of 32 packet-local) */
                CHECK(r.dispatch_size % blocks[b] != 0 || (lanes == WARP && blocks[b] == WARP));
                char label[80];
                snprintf(label, sizeof label, "%s W=32 B=%u local_lanes=%u", cases[i].name, blocks[b], lanes);
                run_config c = run_config_default(WARP, exact);
                c.tolerance = 5e-5;
                run_xir_and_compare(label, f, &r, &c);
                lower_result_free(&r);
            }
        tir_module_destroy(m);
    }
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    static const uint32_t bad_blocks[] = {48, 16, 1056};
    for (size_t b = 0; b < sizeof bad_blocks / sizeof *bad_blocks; b++)
        for (uint32_t lanes = 1; lanes <= WARP; lanes += WARP - 1) {
            lowering o = warp_options(lanes);
            o.choice.block = bad_blocks[b];
            char text[96];
            snprintf(text, sizeof text, "block width %u is invalid: it must be in 1..1024 and a multiple of the packet "
                     "width 32", bad_blocks[b]);
            expect_option_error(f, &o, "LOWER-O01", text);
        }
    lowering o = lowering_default();
    o.choice.packet_width = 64;
    o.choice.block = 64;
    expect_option_error(f, &o, "LOWER-O02", "packet width 64 is not one of 1, 2, 4, 8, 16, 32");
    /* a block of 48 (lowered at W = 16) cannot run in warps of 32 */
    o.choice.packet_width = 16;
    o.choice.block = 48;
    lower_result r;
    if (lower_ok(f, &o, &r)) {
        tir_buffer args[2] = {{NULL, 0}, {NULL, 0}};
        CHECK(xir_interpret(ctx, r.kernel, 0, WARP, 2, args) == TILEC_E_ARG);
        CHECK(has_diag("XIR-I01", "block size 48 of 'softmax' is not a positive multiple of the packet width 32"));
        tilec_diag_clear(ctx);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

/* The SIMD backend takes at most 16 lanes: W = 32 is the GPU's. */
static void test_simd_refuses_warp(void) {
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    lowering o = warp_options(WARP);
    lower_result r;
    if (lower_ok(tir_module_func(m, 0), &o, &r)) {
        tilec_compile_options so = tilec_compile_options_default();
        so.width = WARP;
        simd_kernel *k = NULL;
        CHECK(pipeline_native_lowered(ctx, &r, &so, &k) == TILEC_E_ARG && !k);
        CHECK(has_diag("SIMD-O01", "is not 1, 2, 4, 8 or 16"));
        tilec_diag_clear(ctx);
        so.width = 16;
        CHECK(pipeline_native_lowered(ctx, &r, &so, &k) == TILEC_E_ARG && !k);
        CHECK(has_diag("SIMD-O04", "exactly 32 lanes"));
        tilec_diag_clear(ctx);
        simd_kernel_destroy(k);
        lower_result_free(&r);
    }
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_simd_refuses_warp();
    test_block_sizes();
    test_examples();
    test_refusals();
    test_reductions();
    test_row_widths();
    test_kernels();
    test_kernel_files();
    printf("W=32 runs against the reference: %u one program per lane, %u packet-local, %u packet-local refusals\n",
           counts.whole, counts.local, counts.refused);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
