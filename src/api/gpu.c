/* gpu.c — the facade's CUDA entry points (docs/gpu.md): tilec_emit_ptx (the
 * pipeline's CUDA target up to PTX, src/driver/targets.c: no driver
 * needed) and the dispatch of a GPU kernel — per dispatch device buffers,
 * launch, copies back (gpu/cuda.h).  Packing and
 * split reductions are CPU realizations (the panel copy kernels, the
 * combine kernel) and stay off; a root domain with no instances is refused
 * (GPU-U02) rather than launched empty.
 *
 * Arguments: each gets a device buffer of the bytes the kernel may touch
 * (the parameter's view extent), copied in before the launch and, when the
 * kernel writes it, back after; arguments whose bytes overlap are refused
 * (GPU-D09: separate device copies could not keep their aliasing).  Bounds
 * faults are counted in a device fault record and reported as on the CPU. */
#include "driver/pipeline.h"
#include "gpu/cuda.h"
#include "tir/ir.h"

#include <stdio.h>
#include <string.h>

tilec_status tilec_emit_ptx(tilec_context *ctx, const tir_func *f, const tilec_compile_options *options,
                            tir_write_fn write, void *user) {
    if (!ctx || !f || !write)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-A01", tilec_no_loc(), "tilec_emit_ptx: NULL argument");
    tilec_compile_options o = options ? *options : tilec_compile_options_default();
    o.target = TILEC_TARGET_CUDA;
    tilec_pipeline_config c = tilec_pipeline_config_default();
    c.print_after = 1u << TILEC_STAGE_EMIT; /* the launch comments and the PTX (driver/print.c) */
    c.write = write;
    c.user = user;
    return tilec_pipeline_run(ctx, f, &o, &c, NULL);
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
