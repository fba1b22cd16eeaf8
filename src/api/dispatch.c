/* dispatch.c — tilec_dispatch: the kernel's program (rt/program.h) on its
 * runtime (rt_runtime_dispatch, rt/runtime.h), or a CUDA kernel on
 * its GPU (gpu.c). */
#include "driver/pipeline.h"

#include <stddef.h>

/* The backend's packet entry and the runtime's entry share one ABI: the
 * buffer records have the same layout (checked here), so the entry is
 * handed to the runtime as is. */
_Static_assert(sizeof(rt_buffer) == sizeof(simd_buffer_arg), "buffer record size");
_Static_assert(offsetof(rt_buffer, data) == offsetof(simd_buffer_arg, data), "buffer record data");
_Static_assert(offsetof(rt_buffer, size_bytes) == offsetof(simd_buffer_arg, size_bytes), "buffer record size_bytes");

tilec_status tilec_dispatch_dims(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args, size_t n_dims,
                                 const int64_t *dims) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_dispatch: no kernel");
    /* its bucket's plan: the buckets cover the sizes' ranges, so dims a
     * bucket holds need no other check (the check says why none does) */
    tilec_kernel *v = k->bucket_count && n_dims == k->dim_count && dims
                          ? (tilec_kernel *)pipeline_bucket_variant(k, dims)
                          : NULL;
    if (v) k = v;
    else {
        tilec_status st = rt_check_dims(ctx, k->prog.desc.name ? k->prog.desc.name : "kernel", k->dims, k->dim_count,
                                        n_dims, dims, "dispatch it with tilec_dispatch_dims");
        if (st) return st;
    }
    if (k->reference) return pipeline_dispatch_reference(ctx, k, n, args, dims);
    if (k->gpu) return tilec_dispatch_gpu(ctx, k, n, args, dims, NULL, NULL);
    if (k->xir) return pipeline_dispatch_xir(ctx, k, n, args, dims);
    return rt_runtime_dispatch(ctx, k->runtime, &k->prog, n, args, dims);
}

tilec_status tilec_dispatch(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args) {
    return tilec_dispatch_dims(ctx, k, n, args, 0, NULL);
}

size_t tilec_kernel_dim_count(const tilec_kernel *k) { return k ? k->dim_count : 0; }

const char *tilec_kernel_dim(const tilec_kernel *k, size_t index, int64_t *lo, int64_t *hi) {
    return k ? rt_dim_at(k->dims, k->dim_count, index, lo, hi) : NULL;
}

/* A kernel of several variants (runtime sizes) counts theirs. */
void tilec_kernel_dispatch_counts(const tilec_kernel *k, uint64_t *fused, uint64_t *unfused) {
    *fused = k->prog.fused_dispatches;
    *unfused = k->prog.unfused_dispatches;
    for (uint32_t v = 0; v < k->variant_count; v++) {
        *fused += k->variants[v]->prog.fused_dispatches;
        *unfused += k->variants[v]->prog.unfused_dispatches;
    }
}
