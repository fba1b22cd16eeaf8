/* gpu.c — the facade's CUDA target (docs/gpu.md):
 *
 *   verify → plan (the GPU target info, plan/gpu_target.h: W = 32, CTAs)
 *   → lower (W = 32) → PTX (src/gpu) → the CUDA driver (gpu/cuda.h):
 *   module load, then per dispatch device buffers, launch, copies back
 *
 * for tilec_compile with target cuda, tilec_emit_ptx (the same pipeline up
 * to PTX: no driver needed) and the dispatch of a GPU kernel.  Packing and
 * split reductions are CPU realizations (the panel copy kernels, the
 * combine kernel) and stay off; a root domain with no instances is refused
 * (GPU-U02) rather than launched empty.
 *
 * Arguments: each gets a device buffer of the bytes the kernel may touch
 * (the parameter's view extent), copied in before the launch and, when the
 * kernel writes it, back after; arguments whose bytes overlap are refused
 * (GPU-D09: separate device copies could not keep their aliasing).  Bounds
 * faults are counted in a device fault record and reported as on the CPU. */
#include "tilec/kernel.h"

#include "base/clock.h"
#include "gpu/cuda.h"
#include "plan/admit.h"
#include "plan/flatten.h"
#include "plan/gpu_target.h"
#include "plan/solve.h"
#include "tir/ir.h"

#include <stdio.h>
#include <string.h>

/* What the pipeline produced up to PTX. */
typedef struct {
    plan_result plan;
    lower_result lowered;
    gpu_kernel *code;
    bool planned;
    double verify_ms, plan_ms, lower_ms;
} gpu_build;

static void build_free(gpu_build *b) {
    if (b->lowered.module) lower_result_free(&b->lowered);
    if (b->planned) plan_result_free(&b->plan);
    gpu_kernel_destroy(b->code);
}

/* f verified, planned for a GPU of `multiprocessors` SMs (0: the target
 * info's default), lowered at W = 32 and compiled to PTX for `sm`. */
static tilec_status build(tilec_context *ctx, const tir_func *f, const tilec_compile_options *o,
                          uint32_t multiprocessors, const char *sm, gpu_build *b) {
    memset(b, 0, sizeof *b);
    double t0 = now_ms();
    tilec_status st = tir_verify(ctx, f->module);
    double t1 = now_ms();
    b->verify_ms = t1 - t0;
    if (st) return st;
    if (plan_root_empty(f))
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-U02", tilec_no_loc(),
                           "'%s': its root domain has no instances; the CUDA target launches no empty grid",
                           tir_func_name(f));
    plan_gpu target;
    plan_gpu_init(&target, multiprocessors);
    plan_options po = tilec_planner_options(o);
    st = plan_gpu_options(ctx, &po);
    if (st) return st;
    st = plan_kernel(ctx, f, &po, &target.info, &b->plan);
    b->planned = true;
    double t2 = now_ms();
    b->plan_ms = t2 - t1;
    lower_options lo = lower_options_default();
    lo.check_bounds = o->check_bounds;
    lo.fused_mma = o->fused_mma;
    if (!st) st = plan_lower(ctx, f, &b->plan, &lo, &b->lowered);
    b->lower_ms = now_ms() - t2;
    gpu_options go = {.sm = sm, .capture_ir = o->capture_ir};
    if (!st) st = gpu_compile(ctx, b->lowered.kernel, &go, &b->code);
    return st;
}

/* PTX comments that say how to launch the entry (docs/gpu.md "Launch
 * ABI"), so the file stands alone: a runner needs nothing else. */
static void launch_header(strbuf *s, const gpu_build *b) {
    const lower_result *lr = &b->lowered;
    uint32_t grid = lr->dispatch_size / lr->block_size + (lr->dispatch_size % lr->block_size != 0);
    strbuf_printf(s, "// tilec-launch: entry=%s sm=%s block=%u dispatch=%u grid=%u args=%zu\n",
                  gpu_kernel_entry(b->code), gpu_kernel_sm(b->code), lr->block_size, lr->dispatch_size, grid,
                  lr->arg_count);
    for (size_t i = 0; i < lr->arg_count; i++)
        strbuf_printf(s, "// tilec-arg: %zu %s %s bytes=%llu%s%s\n", i, lr->args[i].name,
                      tir_scalar_name(lr->args[i].elem), (unsigned long long)lr->args[i].min_bytes,
                      lr->args[i].usage & LOWER_USAGE_READ ? " read" : "",
                      lr->args[i].usage & LOWER_USAGE_WRITE ? " write" : "");
    strbuf_printf(s, "// tilec-plan: %s\n", lr->realization ? lr->realization : "");
}

tilec_status tilec_emit_ptx(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                            tir_write_fn write, void *user) {
    if (!ctx || !f || !write)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_emit_ptx: NULL argument");
    if (plan_flatten_applies(f)) {
        tir_module *flat;
        tilec_status st = tilec_flatten(ctx, f, &flat);
        if (!st) st = tilec_emit_ptx(ctx, tir_module_func(flat, 0), options, write, user);
        tir_module_destroy(flat);
        return st;
    }
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    gpu_build b;
    tilec_status st = build(ctx, f, &o, 0, o.gpu_arch, &b);
    strbuf text;
    strbuf_init(&text, ctx);
    if (!st) {
        launch_header(&text, &b);
        strbuf_append(&text, gpu_kernel_ptx(b.code));
        st = text.failed ? tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory writing PTX")
                         : write(user, strbuf_cstr(&text), text.len);
    }
    strbuf_free(&text);
    build_free(&b);
    return st;
}

/* The argument table and launch geometry the dispatch needs, and the
 * parameters it copies back. */
static bool take_launch(tilec_kernel *k, const gpu_build *b) {
    const lower_result *lr = &b->lowered;
    k->params = tilec_alloc(k->ctx, (lr->arg_count ? lr->arg_count : 1) * sizeof *k->params);
    k->gpu_written = tilec_alloc(k->ctx, lr->arg_count ? lr->arg_count : 1);
    if (!k->params || !k->gpu_written) return false;
    k->prog.user_args = (uint32_t)lr->arg_count;
    for (size_t i = 0; i < lr->arg_count; i++) {
        k->params[i] = (rt_param){lr->args[i].elem, lr->args[i].min_bytes};
        k->gpu_written[i] = (lr->args[i].usage & LOWER_USAGE_WRITE) != 0;
        k->arg_bytes += lr->args[i].min_bytes;
    }
    k->prog.desc = (rt_kernel){.name = strbuf_cstr(&k->name),
                               .arg_count = (uint32_t)lr->arg_count,
                               .params = k->params,
                               .dispatch_size = lr->dispatch_size,
                               .block_size = lr->block_size};
    tilec_plan_label(&b->plan, &k->plan);
    strbuf_append(&k->plan_realization, lr->realization ? lr->realization : "");
    return !k->plan.failed && !k->plan_realization.failed && tilec_kernel_take_fault_sites(k, lr);
}

/* The architecture PTX is generated for on a device of compute capability
 * cc: its own when LLVM's NVPTX target knows it, else the newest it knows
 * below (PTX runs on later architectures: the driver compiles it). */
static const char *device_arch(uint32_t cc) {
    for (uint32_t c = cc; c >= 60; c--) {
        char name[16];
        snprintf(name, sizeof name, "sm_%u", c);
        if (gpu_sm_name(name)) return gpu_sm_name(name);
    }
    return NULL;
}

tilec_status tilec_compile_gpu(tilec_context *ctx, tilec_kernel *k, const tir_func *f, const tilec_compile_options *o) {
    double t0 = now_ms();
    /* the driver first: no compile is wasted without one, and the plan and
     * the PTX are for the device that will run them */
    tilec_status st = gpu_cuda_open(ctx, &k->cuda);
    if (st) return st;
    uint32_t cc = gpu_cuda_compute_capability(k->cuda);
    const char *sm = o->gpu_arch ? o->gpu_arch : device_arch(cc);
    if (!sm)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-O02", tilec_no_loc(),
                           "the device '%s' has compute capability %u.%u; the NVPTX target starts at sm_60",
                           gpu_cuda_device_name(k->cuda), cc / 10, cc % 10);
    gpu_build b;
    st = build(ctx, f, o, gpu_cuda_multiprocessors(k->cuda), sm, &b);
    if (!st && !take_launch(k, &b))
        st = tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory describing a kernel");
    if (!st) {
        k->gpu = b.code;
        b.code = NULL;
        k->flops = tilec_count_mma_flops(f);
        k->times = (tilec_compile_times){.verify = b.verify_ms,
                                         .plan = b.plan_ms,
                                         .lower = b.lower_ms,
                                         .llvm = gpu_kernel_emit_ms(k->gpu),
                                         .jit = gpu_kernel_llvm_ms(k->gpu)};
    }
    build_free(&b);
    if (!st) st = gpu_cuda_load(k->cuda, ctx, gpu_kernel_ptx(k->gpu), gpu_kernel_entry(k->gpu), &k->module);
    k->times.total = now_ms() - t0;
    return st;
}

void tilec_kernel_release_gpu(tilec_kernel *k) {
    if (k->module) gpu_cuda_unload(k->cuda, k->module);
    gpu_cuda_close(k->cuda);
    gpu_kernel_destroy(k->gpu);
    tilec_free(k->ctx, k->gpu_written);
}

/* ---- dispatch ---- */

typedef struct {
    gpu_device_ptr *buf; /* [n] */
    gpu_device_ptr faults;
    void **params;       /* [n + 2]: the kernel's argument pointers */
    uint32_t dsize;
} gpu_args;

static tilec_status check(tilec_context *ctx, const tilec_kernel *k, size_t n, const tilec_buffer *args) {
    enum { STACK_ARGS = 32 };
    rt_arg local[STACK_ARGS];
    rt_arg *a = n <= STACK_ARGS || !args ? local : tilec_alloc(ctx, n * sizeof *a);
    if (!a) return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    for (size_t i = 0; args && i < n; i++) a[i] = (rt_arg){args[i].data, args[i].size_bytes, args[i].elem};
    tilec_status st = rt_check_bound_args(ctx, k->prog.desc.name, k->params, k->prog.user_args, args ? a : NULL,
                                          (uint32_t)n);
    if (a != local) tilec_free(ctx, a);
    for (size_t i = 0; !st && i < n; i++)
        for (size_t j = i + 1; !st && j < n; j++) {
            uintptr_t ai = (uintptr_t)args[i].data, aj = (uintptr_t)args[j].data;
            uint64_t bi = k->params[i].min_bytes, bj = k->params[j].min_bytes;
            if (bi && bj && ai < aj + bj && aj < ai + bi)
                st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D09", tilec_no_loc(),
                                 "%s arguments %zu and %zu overlap; the CUDA target copies each argument to a device "
                                 "buffer of its own, which cannot keep them aliased",
                                 k->prog.desc.name, i, j);
        }
    return st;
}

static void release_args(tilec_kernel *k, gpu_args *d, size_t n) {
    for (size_t i = 0; d->buf && i < n; i++) gpu_cuda_free(k->cuda, d->buf[i]);
    gpu_cuda_free(k->cuda, d->faults);
    tilec_free(k->ctx, d->buf);
    tilec_free(k->ctx, d->params);
}

/* Device copies of the arguments and a zeroed fault record. */
static tilec_status upload(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args, gpu_args *d) {
    memset(d, 0, sizeof *d);
    d->buf = tilec_alloc(k->ctx, (n ? n : 1) * sizeof *d->buf);
    d->params = tilec_alloc(k->ctx, (n + 2) * sizeof *d->params);
    if (!d->buf || !d->params)
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    memset(d->buf, 0, (n ? n : 1) * sizeof *d->buf);
    tilec_status st = TILEC_OK;
    for (size_t i = 0; !st && i < n; i++) {
        uint64_t bytes = k->params[i].min_bytes;
        st = gpu_cuda_alloc(k->cuda, ctx, bytes, &d->buf[i]);
        if (!st) st = gpu_cuda_upload(k->cuda, ctx, d->buf[i], args[i].data, bytes);
        d->params[i] = &d->buf[i];
    }
    if (!st) st = gpu_cuda_alloc(k->cuda, ctx, sizeof(fault_record), &d->faults);
    if (!st) st = gpu_cuda_zero(k->cuda, ctx, d->faults, sizeof(fault_record));
    d->dsize = k->prog.desc.dispatch_size;
    d->params[n] = &d->dsize;
    d->params[n + 1] = &d->faults;
    return st;
}

/* The written arguments back, then the fault record's verdict. */
static tilec_status download(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args, gpu_args *d) {
    tilec_status st = TILEC_OK;
    for (size_t i = 0; !st && i < n; i++)
        if (k->gpu_written[i]) st = gpu_cuda_download(k->cuda, ctx, args[i].data, d->buf[i], k->params[i].min_bytes);
    fault_record faults = {0};
    if (!st) st = gpu_cuda_download(k->cuda, ctx, &faults, d->faults, sizeof faults);
    if (!st && faults.count) st = k->prog.desc.report_fault(k->prog.desc.fault_user, ctx, &faults);
    return st;
}

static uint32_t grid(const tilec_kernel *k) {
    uint32_t b = k->prog.desc.block_size;
    return k->prog.desc.dispatch_size / b + (k->prog.desc.dispatch_size % b != 0);
}

tilec_status tilec_dispatch_gpu(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                const tilec_gpu_timing *timing, double *ms) {
    tilec_status st = check(ctx, k, n, args);
    if (st) return st;
    gpu_args d;
    st = upload(ctx, k, n, args, &d);
    if (!st && timing)
        st = gpu_cuda_time(k->cuda, ctx, k->module, grid(k), k->prog.desc.block_size, d.params, timing->warmup,
                           timing->reps, ms);
    else if (!st)
        st = gpu_cuda_launch(k->cuda, ctx, k->module, grid(k), k->prog.desc.block_size, d.params);
    if (!st) st = download(ctx, k, n, args, &d);
    release_args(k, &d, n);
    return st;
}

tilec_target tilec_kernel_target(const tilec_kernel *k) { return k->gpu ? TILEC_TARGET_CUDA : TILEC_TARGET_CPU; }
