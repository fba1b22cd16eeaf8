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

tilec_status tilec_dispatch(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_dispatch: no kernel");
    if (k->gpu) return tilec_dispatch_gpu(ctx, k, n, args, NULL, NULL);
    if (k->xir) return pipeline_dispatch_xir(ctx, k, n, args);
    if (k->reference) return pipeline_dispatch_reference(ctx, k, n, args);
    return rt_runtime_dispatch(ctx, k->runtime, &k->prog, n, args);
}

void tilec_kernel_dispatch_counts(const tilec_kernel *k, uint64_t *fused, uint64_t *unfused) {
    *fused = k->prog.fused_dispatches;
    *unfused = k->prog.unfused_dispatches;
}
