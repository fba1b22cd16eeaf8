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

/* A launch: the parameters' bytes (at the runtime sizes, for a kernel
 * with them), the dispatch size, the device buffers. */
enum { GPU_MAX_ARGS = 64 };
typedef struct {
    rt_param params[GPU_MAX_ARGS + 1]; /* the user's arguments' bytes (then the dims', unused here) */
    uint32_t dsize;
    gpu_device_ptr *buf;               /* [n], then the dims when sized */
    gpu_device_ptr faults;
    void **args;                       /* the kernel's argument pointers: buffers (the dims), dsize, faults */
} gpu_launch;

/* The bytes and dispatch size of k's launch at dims (RT-D10 when they do
 * not fit), or its own (static). */
static tilec_status launch_sizes(tilec_context *ctx, const tilec_kernel *k, size_t n, const int64_t *dims,
                                 gpu_launch *d) {
    if (n > GPU_MAX_ARGS)
        return tilec_error(ctx, TILEC_E_UNSUPPORTED, "RT-D02", tilec_no_loc(), "%s: the CUDA target takes at most %d arguments",
                           k->prog.desc.name, GPU_MAX_ARGS);
    if (!k->prog.dim_count) {
        memcpy(d->params, k->params, n * sizeof *d->params);
        d->dsize = k->prog.desc.dispatch_size;
        return TILEC_OK;
    }
    return rt_program_launch_sizes(ctx, &k->prog, dims, d->params, &d->dsize);
}

static tilec_status check(tilec_context *ctx, const tilec_kernel *k, size_t n, const tilec_buffer *args,
                          const rt_param *params) {
    rt_arg a[GPU_MAX_ARGS];
    for (size_t i = 0; args && i < n; i++) a[i] = (rt_arg){args[i].data, args[i].size_bytes, args[i].elem};
    tilec_status st = rt_check_bound_args(ctx, k->prog.desc.name, params, k->prog.user_args, args ? a : NULL,
                                          (uint32_t)n);
    for (size_t i = 0; !st && i < n; i++)
        for (size_t j = i + 1; !st && j < n; j++) {
            uintptr_t ai = (uintptr_t)args[i].data, aj = (uintptr_t)args[j].data;
            uint64_t bi = params[i].min_bytes, bj = params[j].min_bytes;
            if (bi && bj && ai < aj + bj && aj < ai + bi)
                st = tilec_error(ctx, TILEC_E_UNSUPPORTED, "GPU-D09", tilec_no_loc(),
                                 "%s arguments %zu and %zu overlap; the CUDA target copies each argument to a device "
                                 "buffer of its own, which cannot keep them aliased",
                                 k->prog.desc.name, i, j);
        }
    return st;
}

static void release_args(tilec_kernel *k, gpu_launch *d, size_t n) {
    for (size_t i = 0; d->buf && i < n + (k->prog.dim_count != 0); i++) gpu_cuda_free(k->cuda, d->buf[i]);
    gpu_cuda_free(k->cuda, d->faults);
    tilec_free(k->ctx, d->buf);
    tilec_free(k->ctx, d->args);
}

/* Device copies of the arguments (and of the dims, after them) and a
 * zeroed fault record. */
static tilec_status upload(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                           const int64_t *dims, gpu_launch *d) {
    size_t bufs = n + (k->prog.dim_count != 0);
    d->buf = tilec_alloc(k->ctx, (bufs ? bufs : 1) * sizeof *d->buf);
    d->args = tilec_alloc(k->ctx, (bufs + 2) * sizeof *d->args);
    if (!d->buf || !d->args)
        return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    memset(d->buf, 0, (bufs ? bufs : 1) * sizeof *d->buf);
    tilec_status st = TILEC_OK;
    for (size_t i = 0; !st && i < bufs; i++) {
        const void *data = i < n ? args[i].data : dims;
        uint64_t bytes = i < n ? d->params[i].min_bytes : k->prog.dim_count * sizeof *dims;
        st = gpu_cuda_alloc(k->cuda, ctx, bytes, &d->buf[i]);
        if (!st) st = gpu_cuda_upload(k->cuda, ctx, d->buf[i], data, bytes);
        d->args[i] = &d->buf[i];
    }
    if (!st) st = gpu_cuda_alloc(k->cuda, ctx, sizeof(fault_record), &d->faults);
    if (!st) st = gpu_cuda_zero(k->cuda, ctx, d->faults, sizeof(fault_record));
    d->args[bufs] = &d->dsize;
    d->args[bufs + 1] = &d->faults;
    return st;
}

/* The written arguments back, then the fault record's verdict. */
static tilec_status download(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args, gpu_launch *d) {
    tilec_status st = TILEC_OK;
    for (size_t i = 0; !st && i < n; i++)
        if (k->gpu_written[i]) st = gpu_cuda_download(k->cuda, ctx, args[i].data, d->buf[i], d->params[i].min_bytes);
    fault_record faults = {0};
    if (!st) st = gpu_cuda_download(k->cuda, ctx, &faults, d->faults, sizeof faults);
    if (!st && faults.count) st = k->prog.desc.report_fault(k->prog.desc.fault_user, ctx, &faults);
    return st;
}

tilec_status tilec_dispatch_gpu(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                const int64_t *dims, const tilec_gpu_timing *timing, double *ms) {
    gpu_launch d;
    memset(&d, 0, sizeof d);
    tilec_status st = launch_sizes(ctx, k, n, dims, &d);
    if (!st) st = check(ctx, k, n, args, d.params);
    if (st) return st;
    uint32_t b = k->prog.desc.block_size, grid = d.dsize / b + (d.dsize % b != 0);
    if (!grid) return TILEC_OK; /* no programs at these sizes: nothing to launch */
    st = upload(ctx, k, n, args, dims, &d);
    if (!st && timing)
        st = gpu_cuda_time(k->cuda, ctx, k->module, grid, b, d.args, timing->warmup, timing->reps, ms);
    else if (!st)
        st = gpu_cuda_launch(k->cuda, ctx, k->module, grid, b, d.args);
    if (!st) st = download(ctx, k, n, args, &d);
    release_args(k, &d, n);
    return st;
}

tilec_target tilec_kernel_target(const tilec_kernel *k) {
    return kernel_main(k)->gpu ? TILEC_TARGET_CUDA : TILEC_TARGET_CPU;
}
