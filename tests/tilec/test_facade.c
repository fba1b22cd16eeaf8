/* The public facade (include/tilec/tilec.h): every example compiled with
 * tilec_compile and run with tilec_dispatch at W ∈ {1, 2, 4, 8, 16} on a
 * runtime of 1 and 2 workers, against the FP64 reference interpreter, with
 * sentinel-padded offset buffers, NaN-initialized outputs and an aliased
 * (in-place) binding (tests/lower/lower_fixture.h); the realization items and
 * JSON; argument errors (count, element type, short buffer, NULL data) as
 * diagnostics that leave the context and the kernel usable; a kernel owning
 * its runtime; destroying a kernel and compiling again; option errors;
 * packet-local programs (local_lanes) forced, searched and refused. */
#include "facade_fixture.h"

#include <math.h>

static const example_case cases[] = {
    {"gemm", {{0}}, 0, -1, -1},
    {"gemm", {{"M", 17}, {"N", 19}, {"K", 13}, {"BM", 2}, {"BN", 3}, {"BK", 4}}, 6, -1, -1},
    {"gemm_bt", {{0}}, 0, -1, -1},
    {"softmax", {{0}}, 0, -1, -1},
    {"softmax", {{0}}, 0, 1, 0},
    {"masked_softmax", {{"R", 9}, {"W", 7}}, 2, -1, -1},
    {"layernorm", {{0}}, 0, -1, -1},
    {"rmsnorm", {{"R", 6}, {"W", 130}}, 2, 2, 0},
    {"rope", {{"R", 5}, {"W", 6}}, 2, -1, -1},
    {"gelu", {{0}}, 0, -1, -1},
    {"swiglu", {{0}}, 0, -1, -1},
    {"attention", {{0}}, 0, -1, -1},
};

static void test_examples(void) {
    tilec_runtime *runtimes[2] = {NULL, NULL};
    for (uint32_t t = 0; t < 2; t++) CHECK(tilec_runtime_create(ctx, t + 1, &runtimes[t]) == TILEC_OK);
    if (!runtimes[0] || !runtimes[1]) return;
    CHECK(tilec_runtime_workers(runtimes[1]) == 2);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const example_case *e = &cases[i];
        tir_module *m = parse_example(ctx, e->name, e->defines, e->n_defines);
        if (!m) continue;
        const tir_func *f = tir_module_func(m, 0);
        for (uint32_t w = 1; w <= 16; w *= 2)
            for (uint32_t t = 0; t < 2; t++) {
                tilec_compile_options o = tilec_compile_options_default();
                o.width = w;
                o.runtime = runtimes[t];
                tilec_kernel *k = NULL;
                tilec_status st = tilec_compile(ctx, f, &o, &k);
                CHECK_MSG(st == TILEC_OK, "%s case %zu: compile failed at W=%u", e->name, i, w);
                flush_diags_in(ctx);
                if (!k) continue;
                CHECK(tilec_kernel_width(k) == w && tilec_kernel_workers(k) == t + 1);
                run_config c = example_config(e, w, false);
                c.tolerance = 5e-5;
                char label[96];
                snprintf(label, sizeof label, "%s case %zu W=%u threads=%u", e->name, i, w, t + 1);
                run_facade(label, f, k, &c);
                tilec_kernel_destroy(k);
            }
        tir_module_destroy(m);
    }
    tilec_runtime_destroy(runtimes[0]);
    tilec_runtime_destroy(runtimes[1]);
}

static void test_metadata(void) {
    tir_module *m = parse_example(ctx, "gemm", NULL, 0);
    if (!m) return;
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 8;
    o.threads = 2;
    o.capture_asm = true;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK);
    flush_diags_in(ctx);
    if (k) {
        const char *r = tilec_kernel_realization(k), *j = tilec_kernel_json(k);
        CHECK_MSG(has_item(r, "kernel=gemm;") && has_item(r, "W=8;") && has_item(r, "workers=2;") &&
                      has_item(r, "plan=order[") && has_item(r, "contiguous_loads=") && has_item(r, "gathers=") &&
                      has_item(r, "broadcast_loads=") && has_item(r, "predicated_regions=") &&
                      has_item(r, "private_bytes=") && has_item(r, "workspace_bytes=") && has_item(r, "plan_ms=") &&
                      has_item(r, "lower_ms=") && has_item(r, "llvm_ms=") && has_item(r, "jit_ms=") &&
                      has_item(r, "optimize_ms=") && has_item(r, "codegen_ms="),
                  "realization: %s", r);
        CHECK_MSG(has_item(r, "mma_flops=491520;"), "2*64*80*48 flops: %s", r); /* the default shape */
        CHECK(tilec_kernel_flops(k) == 2ull * 64 * 80 * 48);
        CHECK(j[0] == '{' && j[strlen(j) - 1] == '}' && strstr(j, "\"kernel\": \"gemm\"") && strstr(j, "\"W\": 8"));
        CHECK(tilec_kernel_asm(k) && strlen(tilec_kernel_asm(k)) > 0 && !tilec_kernel_ir(k));
        CHECK(tilec_kernel_arg_count(k) == 3 && tilec_kernel_arg_elem(k, 2) == TIR_F32 &&
              tilec_kernel_arg_min_bytes(k, 2) == 64 * 80 * 4);
        CHECK(strstr(tilec_kernel_plan_realization(k), "planner=exact") != NULL);
        tilec_compile_times t = tilec_kernel_compile_times(k);
        CHECK(t.plan >= 0 && t.jit > 0 && t.total >= t.plan + t.lower);
        CHECK(t.optimize > 0 && t.codegen > 0 && fabs(t.optimize + t.codegen - t.jit) < 1e-6 * t.jit + 1e-9);
        tilec_kernel_destroy(k);
    }
    /* softmax has no mma */
    tir_module *s = parse_example(ctx, "softmax", NULL, 0);
    if (s) {
        o.capture_asm = false;
        CHECK(tilec_compile(ctx, tir_module_func(s, 0), &o, &k) == TILEC_OK);
        if (k) CHECK(tilec_kernel_flops(k) == 0 && has_item(tilec_kernel_realization(k), "mma_flops=0;"));
        tilec_kernel_destroy(k);
        tir_module_destroy(s);
    }
    tir_module_destroy(m);
}

static bool dispatch_fails(tilec_kernel *k, size_t n, const tilec_buffer *args, const char *code) {
    tilec_status st = tilec_dispatch(ctx, k, n, args);
    bool ok = st != TILEC_OK && has_diag(code, NULL);
    if (!ok) flush_diags_in(ctx);
    tilec_diag_clear(ctx);
    return ok;
}

static void test_argument_errors(void) {
    tir_module *m = parse_example(ctx, "gelu", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 4;
    o.threads = 2;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK);
    flush_diags_in(ctx);
    if (!k) {
        tir_module_destroy(m);
        return;
    }
    size_t n = tilec_kernel_arg_count(k);
    CHECK(n == 3);
    float *mem[3];
    tilec_buffer args[3];
    for (size_t i = 0; i < n; i++) {
        size_t bytes = tilec_kernel_arg_min_bytes(k, i);
        mem[i] = calloc(1, bytes);
        args[i] = (tilec_buffer){mem[i], bytes, tilec_kernel_arg_elem(k, i)};
    }
    CHECK_MSG(dispatch_fails(k, 2, args, "RT-D02"), "wrong count");
    CHECK_MSG(dispatch_fails(k, 1, NULL, "RT-D02"), "NULL array");
    tilec_buffer bad[3];
    memcpy(bad, args, sizeof bad);
    bad[1].elem = TIR_I32; /* same size as f32: only the type tells */
    CHECK_MSG(dispatch_fails(k, 3, bad, "RT-D03"), "wrong type");
    memcpy(bad, args, sizeof bad);
    bad[2].size_bytes -= 4;
    CHECK_MSG(dispatch_fails(k, 3, bad, "RT-D04"), "short buffer");
    memcpy(bad, args, sizeof bad);
    bad[0].data = NULL;
    CHECK_MSG(dispatch_fails(k, 3, bad, "RT-D05"), "NULL data");
    CHECK(tilec_dispatch(ctx, NULL, 3, args) != TILEC_OK && has_diag("TILEC-D01", NULL));
    tilec_diag_clear(ctx);
    /* Nothing ran: the output is still zero.  Then the same kernel and
     * context still work. */
    CHECK(mem[2][0] == 0.0f && mem[2][5] == 0.0f);
    CHECK(tilec_dispatch(ctx, k, 3, args) == TILEC_OK && tilec_diag_count(ctx) == 0);
    flush_diags_in(ctx);
    for (size_t i = 0; i < n; i++) free(mem[i]);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

/* Two kernels on one runtime; the first destroyed, the second still runs;
 * compiling again after destruction works; a kernel owning its runtime. */
static void test_lifetimes(void) {
    tir_module *m = parse_example(ctx, "softmax", (const tir_define[]){{"R", 6}, {"W", 7}}, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_runtime *rt = NULL;
    CHECK(tilec_runtime_create(ctx, 2, &rt) == TILEC_OK);
    tilec_compile_options o = tilec_compile_options_default();
    o.runtime = rt;
    o.width = 8;
    tilec_kernel *a = NULL, *b = NULL;
    CHECK(tilec_compile(ctx, f, &o, &a) == TILEC_OK);
    CHECK(tilec_compile(ctx, f, &o, &b) == TILEC_OK);
    flush_diags_in(ctx);
    run_config c = run_config_default(8, false);
    c.tolerance = 5e-5;
    tilec_kernel_destroy(a);
    if (b) run_facade("softmax after destroying a sibling", f, b, &c);
    tilec_kernel_destroy(b);
    b = NULL;
    CHECK(tilec_compile(ctx, f, &o, &b) == TILEC_OK);
    if (b) run_facade("softmax compiled again", f, b, &c);
    tilec_kernel_destroy(b);
    tilec_runtime_destroy(rt);
    /* no runtime: the kernel owns one */
    o.runtime = NULL;
    o.threads = 2;
    o.full_packet_specialization = false;
    tilec_kernel *own = NULL;
    CHECK(tilec_compile(ctx, f, &o, &own) == TILEC_OK);
    flush_diags_in(ctx);
    if (own) {
        CHECK(tilec_kernel_workers(own) == 2);
        run_facade("softmax on its own runtime", f, own, &c);
    }
    tilec_kernel_destroy(own);
    tir_module_destroy(m);
}

static void test_option_errors(void) {
    tir_module *m = parse_example(ctx, "gelu", NULL, 0);
    if (!m) return;
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 3;
    tilec_kernel *k = (tilec_kernel *)&o; /* must be reset to NULL */
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_E_ARG && !k && has_diag("TILEC-O01", NULL));
    tilec_diag_clear(ctx);
    o.width = 4;
    o.max_candidates = 0; /* the planner's budget must be >= 1 */
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) != TILEC_OK && !k && tilec_diag_count(ctx) > 0);
    tilec_diag_clear(ctx);
    o = tilec_compile_options_default();
    o.width = 4;
    o.threads = 1;
    CHECK(tilec_compile(ctx, tir_module_func(m, 0), &o, &k) == TILEC_OK && k);
    flush_diags_in(ctx);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

/* Cost coefficients and representation settings reach the planner and the
 * lowering (their realization items), and bad ones are diagnostics. */
static void test_planner_settings(void) {
    tir_module *m = parse_example(ctx, "softmax", NULL, 0);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = tilec_compile_options_default();
    o.threads = 1;
    o.cost.block_dispatch = 5;
    o.reduction_partitions = 2;
    o.max_unrolled_tile_elements = 0;
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK && k);
    flush_diags_in(ctx);
    if (k) {
        const char *r = tilec_kernel_plan_realization(k);
        CHECK_MSG(has_item(r, "cost_dispatch=5;") && has_item(r, "unordered_reduction_partitions=2;") &&
                      has_item(r, "max_unrolled_tile_elements=0;"),
                  "plan realization: %s", r);
        run_config c = run_config_default(tilec_kernel_width(k), false);
        run_facade("softmax with planner settings", f, k, &c);
    }
    tilec_kernel_destroy(k);
    o.cost.gathered_lane = -1;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_E_ARG && !k && has_diag("PLAN-C01", NULL));
    tilec_diag_clear(ctx);
    o.cost.gathered_lane = 2;
    o.reduction_partitions = 17;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_E_ARG && !k && tilec_diag_count(ctx) > 0);
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

/* local_lanes reaches the planner: a forced or searched packet-local row
 * kernel runs one program per packet with contiguous rows, and a forced W on
 * gemm is the planner's diagnostic. */
static void test_local_lanes(void) {
    tir_define d[] = {{"R", 9}, {"W", 100}};
    tir_module *m = parse_example(ctx, "softmax", d, 2);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    const uint32_t requests[] = {8, 0};
    for (size_t i = 0; i < 2; i++) {
        tilec_compile_options o = tilec_compile_options_default();
        o.width = 8;
        o.threads = 2;
        o.local_lanes = requests[i];
        tilec_kernel *k = NULL;
        CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK && k);
        flush_diags_in(ctx);
        if (!k) continue;
        const char *r = tilec_kernel_realization(k);
        CHECK_MSG(strstr(r, "/local8/") && has_item(r, "dispatch=72;") && has_item(r, "gathers=0;"), "realization: %s", r);
        run_config c = run_config_default(8, false);
        run_facade("packet-local softmax", f, k, &c);
        tilec_kernel_destroy(k);
    }
    tir_module_destroy(m);
    /* An ordered row dot product folds the stored row n itself in order:
     * packet-local, each element is read from its lane in order; a row
     * longer than the unrolled bound makes a forced local width name the
     * mma. */
    static const tir_define long_row[] = {{"R", 2}, {"N", 5000}};
    tir_module *g = parse_test_kernel(ctx, "row_dot_ordered"), *h = parse_test_kernel_with(ctx, "row_dot_ordered", long_row, 2);
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 8;
    o.local_lanes = 8;
    tilec_kernel *k = NULL;
    if (g && tilec_compile(ctx, tir_module_func(g, 0), &o, &k) == TILEC_OK) {
        const char *r = tilec_kernel_realization(k);
        CHECK_MSG(strstr(r, "/local8/") != NULL, "realization: %s", r);
        run_config c = run_config_default(8, true);
        run_facade("packet-local ordered row dot", tir_module_func(g, 0), k, &c);
        tilec_kernel_destroy(k);
    } else {
        CHECK_MSG(false, "ordered row dot: packet-local compile failed");
    }
    k = NULL;
    CHECK(h && tilec_compile(ctx, tir_module_func(h, 0), &o, &k) == TILEC_E_UNSUPPORTED && !k &&
          has_diag("PLAN-O04", "folds 'n' in order over 5000 steps"));
    tilec_diag_clear(ctx);
    tir_module_destroy(g);
    tir_module_destroy(h);
}

/* Options by name (for bindings): every kind of option lands in its field;
 * bad names and values are TILEC-O01 and change nothing. */
static void test_options_by_name(void) {
    CHECK(tilec_compile_options_size() == sizeof(tilec_compile_options));
    tilec_compile_options o, d = tilec_compile_options_default();
    memset(&o, 0xa5, sizeof o);
    tilec_compile_options_init(&o);
    CHECK(o.max_candidates == d.max_candidates && o.local_lanes == d.local_lanes && o.fused_mma &&
          o.full_packet_specialization && !o.runtime && !o.threads && !o.width && o.fuse == TILEC_FUSE_AUTO);
    static const struct {
        const char *name, *value;
    } good[] = {{"threads", "3"},      {"width", "8"},        {"local_lanes", "1"},  {"block_size", "64"},
                {"max_candidates", "17179869184"}, {"max_unrolled", "0"}, {"reduction_partitions", "2"},
                {"split_chunks", "5"}, {"fuse", "off"},        {"pack", "on"},        {"split", "auto"},
                {"stores", "streaming"}, {"check_bounds", "1"}, {"fused_mma", "0"},   {"blocks_per_task", "4"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK_MSG(tilec_compile_options_set(ctx, &o, good[i].name, good[i].value) == TILEC_OK, "%s=%s",
                  good[i].name, good[i].value);
    CHECK(o.threads == 3 && o.width == 8 && o.local_lanes == 1 && o.block_size == 64);
    CHECK(o.max_candidates == 17179869184ull && o.max_unrolled_tile_elements == 0 && o.reduction_partitions == 2);
    CHECK(o.split_chunks == 5 && o.fuse == TILEC_FUSE_OFF && o.pack == TILEC_PACK_ON && o.split == TILEC_SPLIT_AUTO);
    CHECK(o.stores == TILEC_STORES_STREAMING && o.check_bounds && !o.fused_mma && o.blocks_per_task == 4);
    tilec_compile_options before = o;
    static const struct {
        const char *name, *value, *why;
    } bad[] = {{"threads", "-1", "unsigned integer"}, {"width", "4294967296", "unsigned integer"},
               {"width", "8x", "unsigned integer"},   {"threads", "", "unsigned integer"},
               {"fuse", "sometimes", "auto, on or off"}, {"stores", "on", "auto, cached or streaming"},
               {"check_bounds", "yes", "0 or 1"},     {"speed", "11", "unknown compile option 'speed'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tilec_diag_clear(ctx);
        CHECK(tilec_compile_options_set(ctx, &o, bad[i].name, bad[i].value) == TILEC_E_ARG);
        const tilec_diag *dg = tilec_diag_at(ctx, 0);
        CHECK_MSG(dg && !strcmp(dg->code, "TILEC-O01") && strstr(dg->message, bad[i].why), "%s=%s: %s", bad[i].name,
                  bad[i].value, dg ? dg->message : "(no diagnostic)");
    }
    CHECK(o.threads == before.threads && o.width == before.width && o.fuse == before.fuse &&
          o.stores == before.stores && o.check_bounds == before.check_bounds);
    tilec_diag_clear(ctx);
}

static tilec_status collect(void *user, const char *bytes, size_t n) {
    char *buf = user;
    size_t used = strlen(buf);
    if (used + n >= 65536) return TILEC_E_IO;
    memcpy(buf + used, bytes, n);
    buf[used + n] = 0;
    return TILEC_OK;
}

/* tilec_explain: the plan --explain report for the real width and workers,
 * whose chosen block is the one the compiled kernel runs; a write error is
 * returned; NULL arguments are TILEC-A01. */
static void test_explain(void) {
    tir_define d[] = {{"R", 256}, {"W", 512}};
    tir_module *m = parse_example(ctx, "softmax", d, 2);
    CHECK(m != NULL);
    if (!m) return;
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = tilec_compile_options_default();
    o.width = 8;
    o.threads = 2;
    char *text = calloc(1, 65536);
    CHECK(text && tilec_explain(ctx, f, &o, collect, text) == TILEC_OK);
    CHECK_MSG(text && !strncmp(text, "@softmax: plan for target cpu-thread-pool (W=8, 2 workers,", 57), "%s", text);
    CHECK(text && strstr(text, "ranked candidates (") && strstr(text, "<- chosen") && strstr(text, "rejected candidates ("));
    tilec_kernel *k = NULL;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK);
    const char *block = k ? strstr(tilec_kernel_realization(k), "; block=") : NULL;
    char want[64] = "?";
    if (block) snprintf(want, sizeof want, ", block %u,", (unsigned)strtoul(block + 8, NULL, 10));
    const char *chosen = text ? strstr(text, "\nchosen: ") : NULL;
    CHECK_MSG(chosen && strstr(chosen, want) && strstr(chosen, want) < strchr(chosen + 1, '\n'),
              "the compiled kernel's block (%s) is not the explained choice", want);
    tilec_kernel_destroy(k);
    memset(text, 'x', 65535); /* a full buffer: the write fails, and so does the call */
    text[65535] = 0;
    CHECK(tilec_explain(ctx, f, &o, collect, text) == TILEC_E_IO);
    CHECK(tilec_explain(ctx, f, &o, NULL, NULL) == TILEC_E_ARG && !strcmp(tilec_diag_at(ctx, 0)->code, "TILEC-A01"));
    tilec_diag_clear(ctx);
    free(text);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    test_options_by_name();
    test_explain();
    test_option_errors();
    test_planner_settings();
    test_local_lanes();
    test_metadata();
    test_argument_errors();
    test_lifetimes();
    test_examples();
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
