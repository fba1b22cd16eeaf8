/* The GPU route without a GPU (docs/gpu.md):
 *
 * - Every example at its default shape is planned by the GPU target info
 *   (plan/gpu_target.h: W = 32, CTAs of whole warps), lowered, and the
 *   lowering run on the W = 32 XIR interpreter (the GPU's semantics: one
 *   lane per thread, warp_read_lane a shuffle) against the TileIR reference
 *   (lower_fixture.h: sentinels, offset views); then compiled to PTX, whose
 *   ABI is checked (the .entry, its parameters: one per buffer, the
 *   dispatch size and the fault record; .maxntid = the block; .target) and
 *   which `ptxas -arch=sm_90` must accept when ptxas is on PATH (skipped
 *   with a printed reason otherwise).
 * - Every example planned for the GPU with one program per lane (no warp
 *   instructions) has its GPU code — what the NVPTX backend emits, with
 *   the thread and block ids as parameters — JIT-compiled for the host and
 *   run thread by thread against the reference (host_run.h).
 * - Every kernel of every tests/kernels file the GPU plan admits compiles to
 *   PTX that ptxas accepts (held-out-style classes: typed GEMMs, rows,
 *   folds, strided and scalar accesses, bounds checks with fault sites).
 * - The GPU target: proposals are whole warps, a forced block of 48 is
 *   refused (PLAN-O06: not a multiple of the warp), the "gpu" cost policy
 *   prices a warp's gathered lanes at one sector each and keeps a caller's
 *   own coefficient.
 * - A loop under a lane-varying `if`, one program per lane: the CPU target
 *   refuses it, the GPU target (supports_divergent_loops) plans it, and its
 *   lowering runs right at W = 32.
 * - Refusals: an unknown architecture (GPU-O01), math without libdevice
 *   (GPU-L01), and tilec_compile for the CUDA target without a driver
 *   (GPU-D01 "no CUDA driver"), the context usable after each. */
#include "driver/pipeline.h"
#include "lower/lower_fixture.h"

#include "gpu/gpu.h"
#include "gpu/host_run.h"
#include "scalar/math_ops.h"
#include "plan/gpu_target.h"
#include "plan/solve.h"
#include "tilec/tilec.h"

#include <stdio.h>
#include <unistd.h>

enum { WARP = 32 };

static bool have_ptxas;
static unsigned ptx_checked, ptxas_accepted, examples_run;

/* ptxas accepts the PTX (nothing to do without ptxas). */
static bool ptxas_ok(const char *label, const char *ptx) {
    if (!have_ptxas) return true;
    char path[] = "/tmp/tilec-test-ptx-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return false;
    FILE *f = fdopen(fd, "w");
    bool ok = f && fputs(ptx, f) >= 0;
    if (f) fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ptxas -arch=sm_90 %s -o /dev/null", path);
    ok = ok && system(cmd) == 0;
    CHECK_MSG(ok, "%s: ptxas rejected the PTX (%s)", label, path);
    if (ok) unlink(path), ptxas_accepted++;
    return ok;
}

/* The entry's ABI: `.visible .entry NAME(` with one .param per buffer plus
 * dispatch size and fault record, .maxntid B, 1, 1, and the target. */
static void check_abi(const char *label, const gpu_kernel *k, const xir_func *f) {
    const char *ptx = gpu_kernel_ptx(k);
    char head[160];
    snprintf(head, sizeof head, ".visible .entry %s(", gpu_kernel_entry(k));
    const char *entry = strstr(ptx, head);
    CHECK_MSG(entry != NULL, "%s: no '%s'", label, head);
    if (!entry) return;
    const char *close = strchr(entry, ')');
    unsigned params = 0;
    for (const char *p = entry; close && (p = strstr(p, ".param")) && p < close; p++) params++;
    CHECK_MSG(params == f->args.len + 2, "%s: %u entry parameters for %zu buffers", label, params, f->args.len);
    char maxntid[48];
    snprintf(maxntid, sizeof maxntid, ".maxntid %u, 1, 1", f->block_size);
    CHECK_MSG(strstr(ptx, maxntid) != NULL, "%s: no '%s'", label, maxntid);
    CHECK(strstr(ptx, ".target sm_90") != NULL);
    CHECK(gpu_kernel_block_size(k) == f->block_size && gpu_kernel_arg_count(k) == f->args.len);
    ptx_checked++;
}

/* f planned by the GPU target (local_lanes: 0 searches, 1 is one program
 * per lane) and lowered; false (nothing to free, the diagnostics dropped)
 * when the planner or lowering refuses. */
static bool gpu_lower(const tir_func *f, uint32_t local_lanes, plan_result *plan, lower_result *r) {
    tilec_compile_options po = tilec_compile_options_default();
    po.local_lanes = local_lanes;
    pipeline p;
    pipeline_init(&p, ctx, f, &po, &PIPELINE_MODELED_CUDA, TILEC_STAGE_LOWER);
    tilec_status st = pipeline_run(&p);
    if (!st) { /* the caller's now */
        *plan = p.plan;
        *r = p.lowered;
        p.planned = false;
        memset(&p.lowered, 0, sizeof p.lowered);
    }
    pipeline_free(&p);
    if (st) {
        tilec_diag_clear(ctx);
        return false;
    }
    CHECK(r->packet_width == WARP && r->block_size % WARP == 0);
    CHECK_MSG(!strcmp(plan->target_name, "cuda-gpu") && !strcmp(plan->policy, "gpu"), "target %s policy %s",
              plan->target_name, plan->policy);
    return true;
}

static gpu_kernel *compile_ok(const char *label, const xir_func *f) {
    gpu_kernel *k = NULL;
    tilec_status st = gpu_compile(ctx, f, NULL, &k);
    CHECK_MSG(st == TILEC_OK, "%s: gpu_compile failed (%s)", label, tilec_status_name(st));
    if (st) {
        tilec_diag_print(ctx, stderr);
        tilec_diag_clear(ctx);
    }
    return k;
}

static const char *const exact_examples[] = {"gemm", "gemm_bt", "bmm", "gemm_bf16", "transpose"};

static bool libdevice_found;

/* Whether f calls a math function (compiles only with libdevice). */
static bool calls_math(const xir_func *f) {
    for (const xir_block *b = f->first; b; b = b->next)
        for (const xir_inst *i = b->first; i; i = i->next) {
            if (i->kind != XIR_INST_ARITH) continue;
#define MATH(op_, dbl, flt, stem) if (i->op == XIR_OP_##op_) return true;
            TIR_SLEEF_MATH1(MATH) TIR_SLEEF_MATH2(MATH)
#undef MATH
        }
    return false;
}

static unsigned host_runs;

/* The kernel's GPU code run on the host, thread by thread (host_run.h). */
static bool run_gpu_host(void *env, const char *label, tilec_status reference, size_t n, const tir_buffer *args,
                         const run_buffers *b) {
    (void)reference, (void)b;
    const lower_result *r = env;
    fault_record faults = {0};
    tilec_status st = gpu_host_run(ctx, r->kernel, r->dispatch_size, n, args, &faults);
    CHECK_MSG(st == TILEC_OK && faults.count == 0, "%s: the GPU code on the host failed (%s, %llu faults)", label,
              tilec_status_name(st), (unsigned long long)faults.count);
    host_runs += st == TILEC_OK;
    return st == TILEC_OK && faults.count == 0;
}

/* f planned for the GPU with one program per lane (no warp instructions),
 * its GPU code run on the host against the reference. */
static void check_on_host(const char *name, const tir_func *f, bool exact) {
    plan_result plan;
    lower_result r;
    if (!gpu_lower(f, 1, &plan, &r)) {
        CHECK_MSG(false, "%s: no GPU plan with one program per lane", name);
        return;
    }
    run_config c = run_config_default(WARP, exact);
    c.tolerance = strcmp(name, "rmsnorm_bf16") ? 5e-5 : 1e-2;
    char label[96];
    snprintf(label, sizeof label, "%s (GPU code on the host)", name);
    CHECK(compare_with_reference(label, "GPU host", f, r.args, &c, run_gpu_host, &r));
    lower_result_free(&r);
    plan_result_free(&plan);
}

static bool visit_example(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)size, (void)env;
    tir_module *m = parse_kernel(text, NULL, 0);
    if (!m) return false;
    const tir_func *f = tir_module_func(m, 0);
    plan_result plan;
    lower_result r;
    bool ok = gpu_lower(f, 0, &plan, &r);
    CHECK_MSG(ok, "%s: the GPU plan refused it", name);
    if (ok) {
        bool exact = false;
        for (size_t i = 0; i < sizeof exact_examples / sizeof *exact_examples; i++)
            exact = exact || !strcmp(name, exact_examples[i]);
        run_config c = run_config_default(WARP, exact);
        c.tolerance = strcmp(name, "rmsnorm_bf16") ? 5e-5 : 1e-2; /* bf16 output: one bf16 step */
        CHECK_MSG(run_xir_and_compare(name, f, &r, &c), "%s: W=32 GPU plan differs from the reference", name);
        examples_run++;
        check_on_host(name, f, exact);
        gpu_kernel *k = libdevice_found || !calls_math(r.kernel) ? compile_ok(name, r.kernel) : NULL;
        if (k) {
            check_abi(name, k, r.kernel);
            ptxas_ok(name, gpu_kernel_ptx(k));
        }
        gpu_kernel_destroy(k);
        lower_result_free(&r);
        plan_result_free(&plan);
    }
    tir_module_destroy(m);
    return true;
}

static unsigned held_out_compiled, held_out_refused;

static bool visit_test_kernel(const char *path, const char *name, const char *text, size_t size, void *env) {
    (void)path, (void)size, (void)env;
    tir_module *m = NULL;
    if (tir_parse(ctx, text, strlen(text), name, NULL, 0, &m) || tir_verify(ctx, m)) { /* the refusal tests' own inputs */
        tilec_diag_clear(ctx);
        tir_module_destroy(m);
        return true;
    }
    for (size_t i = 0; i < tir_module_func_count(m); i++) {
        const tir_func *f = tir_module_func(m, i);
        char label[160];
        snprintf(label, sizeof label, "%s/@%s", name, tir_func_name(f));
        plan_result plan;
        lower_result r;
        if (!gpu_lower(f, 0, &plan, &r)) {
            held_out_refused++;
            continue;
        }
        gpu_kernel *k = libdevice_found || !calls_math(r.kernel) ? compile_ok(label, r.kernel) : NULL;
        if (k) {
            check_abi(label, k, r.kernel);
            ptxas_ok(label, gpu_kernel_ptx(k));
            held_out_compiled++;
        }
        gpu_kernel_destroy(k);
        lower_result_free(&r);
        plan_result_free(&plan);
    }
    tir_module_destroy(m);
    return true;
}

static tir_module *example(const char *name) {
    char *text = read_example(name);
    tir_module *m = text ? parse_kernel(text, NULL, 0) : NULL;
    free(text);
    return m;
}

static void test_target(void) {
    plan_gpu g;
    plan_gpu_init(&g, 0);
    size_t n;
    const uint32_t *sizes = g.info.block_sizes(&g.info, &n);
    CHECK(n == 6);
    for (size_t i = 0; i < n; i++) CHECK(sizes[i] % WARP == 0 && sizes[i] <= 1024);
    CHECK(g.info.target(&g.info).packet_width == WARP);
    plan_cost_coefficients prior = plan_cost_coefficients_default(), out;
    g.policy.coefficients(&g.policy, NULL, &prior, &out);
    CHECK(out.contiguous_memory == 4 && out.gathered_lane == 1 && out.worker_activation == 0);
    prior.gathered_lane = 3; /* a caller's coefficient stays */
    g.policy.coefficients(&g.policy, NULL, &prior, &out);
    CHECK(out.gathered_lane == 3);

    tir_module *m = example("softmax");
    tilec_compile_options po = tilec_compile_options_default();
    po.block_size = 48;
    pipeline p;
    pipeline_init(&p, ctx, tir_module_func(m, 0), &po, &PIPELINE_MODELED_CUDA, TILEC_STAGE_PLAN);
    CHECK(pipeline_run(&p) == TILEC_E_ARG);
    CHECK(has_diag("PLAN-O06", "multiple of the packet width 32"));
    pipeline_free(&p);
    tilec_diag_clear(ctx);
    tir_module_destroy(m);
}

/* tests/kernels/conditional.tir's @guarded_sum loops under an `if` whose
 * condition differs between lanes: the CPU target refuses one program per
 * lane for it (its SIMD backend predicates only loop-free branches), the
 * GPU target takes it (supports_divergent_loops), and the lowering runs
 * right at W = 32. */
static void test_divergent_loops(void) {
    tir_module *m = parse_test_kernel(ctx, "conditional");
    const tir_func *f = NULL;
    for (size_t i = 0; m && i < tir_module_func_count(m); i++)
        if (!strcmp(tir_func_name(tir_module_func(m, i)), "guarded_sum")) f = tir_module_func(m, i);
    CHECK(f != NULL);
    if (!f) return;
    tilec_compile_options po = tilec_compile_options_default();
    po.local_lanes = 1;
    po.width = 16;
    pipeline cpu; /* a modeled thread pool of one worker, W = 16 */
    pipeline_init(&cpu, ctx, f, &po, &PIPELINE_MODELED_CPU, TILEC_STAGE_PLAN);
    cpu.modeled_workers = 1;
    CHECK(pipeline_run(&cpu) == TILEC_E_UNSUPPORTED);
    CHECK(has_diag("PLAN-S01", "predicates only loop-free branches"));
    pipeline_free(&cpu);
    tilec_diag_clear(ctx);
    plan_result plan;
    lower_result r;
    if (gpu_lower(f, 1, &plan, &r)) {
        CHECK(r.local_lanes == 1 && r.packet_width == WARP);
        run_config c = run_config_default(WARP, false);
        CHECK(run_xir_and_compare("guarded_sum (GPU, one program per lane)", f, &r, &c));
        gpu_kernel *k = compile_ok("guarded_sum", r.kernel);
        if (k) ptxas_ok("guarded_sum", gpu_kernel_ptx(k));
        gpu_kernel_destroy(k);
        lower_result_free(&r);
        plan_result_free(&plan);
    } else {
        CHECK_MSG(false, "guarded_sum: the GPU target refuses or cannot lower one program per lane");
    }
    tir_module_destroy(m);
}

static tilec_status discard(void *user, const char *data, size_t len) {
    (void)data;
    *(size_t *)user += len;
    return TILEC_OK;
}

static void test_refusals(void) {
    tir_module *m = example("softmax");
    const tir_func *f = tir_module_func(m, 0);
    tilec_compile_options o = tilec_compile_options_default();
    size_t bytes = 0;

    CHECK(tilec_compile_options_set(ctx, &o, "gpu_arch", "sm_99") == TILEC_E_ARG);
    CHECK(has_diag("TILEC-O01", "sm_60"));
    tilec_diag_clear(ctx);
    o.gpu_arch = "sm_5";
    CHECK(tilec_emit_ptx(ctx, f, &o, discard, &bytes) == TILEC_E_ARG);
    CHECK(has_diag("GPU-O01", "sm_5") && bytes == 0);
    tilec_diag_clear(ctx);
    o.gpu_arch = NULL;

    /* softmax calls exp: without libdevice it is refused, by name */
    const char *saved = getenv("TILEC_LIBDEVICE");
    char *keep = saved ? strdup(saved) : NULL;
    setenv("TILEC_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
    CHECK(tilec_emit_ptx(ctx, f, &o, discard, &bytes) == TILEC_E_UNSUPPORTED);
    CHECK(has_diag("GPU-L01", "libdevice") && bytes == 0);
    tilec_diag_clear(ctx);
    if (keep) setenv("TILEC_LIBDEVICE", keep, 1);
    else unsetenv("TILEC_LIBDEVICE");
    free(keep);

    /* with libdevice where it was, the same call works (when it exists) */
    char libdevice[1024];
    if (gpu_find_libdevice(libdevice, sizeof libdevice)) {
        CHECK(tilec_emit_ptx(ctx, f, &o, discard, &bytes) == TILEC_OK && bytes > 0);
    } else {
        printf("libdevice not found: the PTX of math kernels is not generated here\n");
    }

    /* no driver: a diagnostic, no kernel, the context usable */
    setenv("TILEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    o.target = TILEC_TARGET_CUDA;
    tilec_kernel *k = (tilec_kernel *)1;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_E_UNSUPPORTED && k == NULL);
    CHECK(has_diag("GPU-D01", "no CUDA driver"));
    tilec_diag_clear(ctx);
    unsetenv("TILEC_CUDA_DRIVER");
    o.target = TILEC_TARGET_CPU;
    CHECK(tilec_compile(ctx, f, &o, &k) == TILEC_OK && k && tilec_kernel_target(k) == TILEC_TARGET_CPU);
    tilec_kernel_destroy(k);
    tir_module_destroy(m);
}

int main(void) {
    if (tilec_context_create(NULL, &ctx) != TILEC_OK) return 1;
    have_ptxas = system("command -v ptxas >/dev/null 2>&1") == 0;
    if (!have_ptxas) printf("ptxas is not on PATH: PTX is generated and its ABI checked, not assembled\n");
    char libdevice[1024];
    libdevice_found = gpu_find_libdevice(libdevice, sizeof libdevice);
    if (!libdevice_found)
        printf("libdevice not found (TILEC_LIBDEVICE, CUDA_HOME): the PTX of kernels with math is not generated\n");
    test_target();
    test_refusals();
    test_divergent_loops();
    CHECK(for_each_source(TILEC_SOURCE_DIR "/examples", ".tir", visit_example, NULL) >= 18);
    CHECK(for_each_source(TILEC_SOURCE_DIR "/tests/kernels", ".tir", visit_test_kernel, NULL) > 0);
    printf("PTX checked: %u kernels (%u examples' plans run on the W=32 XIR interpreter, %u examples' GPU code "
           "run on the host); ptxas accepted %u; tests/kernels: %u compiled, %u refused by the GPU plan\n",
           ptx_checked, examples_run, host_runs, ptxas_accepted, held_out_compiled, held_out_refused);
    tilec_context_destroy(ctx);
    TEST_MAIN_END();
}
