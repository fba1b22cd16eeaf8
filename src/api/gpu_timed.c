/* gpu_timed.c — tilec_dispatch_gpu_timed: a CUDA kernel's dispatch with its
 * launches repeated and timed on the device (CUDA events), through the
 * driver's dispatch (gpu.c). */
#include "driver/kernel.h"

tilec_status tilec_dispatch_gpu_timed(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                      uint32_t warmup, uint32_t reps, double *ms) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_dispatch_gpu_timed: no kernel");
    if (!k->gpu || !ms)
        return tilec_error(ctx, TILEC_E_ARG, "TILEC-D02", tilec_no_loc(), "tilec_dispatch_gpu_timed: %s",
                           !ms             ? "no place for the time (ms is NULL)"
                           : k->dim_count ? "the kernel has runtime sizes, which this call does not take"
                                          : "the kernel runs on the CPU, not on a GPU");
    *ms = 0;
    tilec_gpu_timing timing = {warmup, reps};
    return tilec_dispatch_gpu(ctx, k, n, args, NULL, &timing, ms);
}
