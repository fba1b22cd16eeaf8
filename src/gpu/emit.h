/* emit.h — XIR → LLVM IR for nvptx64-nvidia-cuda, one lane per thread
 * (docs/gpu.md "Code generation"). */
#ifndef TILEC_GPU_EMIT_H
#define TILEC_GPU_EMIT_H

#include "xir/xir.h"

#include <llvm-c/Core.h>

typedef struct {
    uint32_t math_calls;      /* libdevice calls emitted */
    uint32_t shuffles;        /* warp_read_lane → shfl.sync.idx */
    uint32_t syncs;           /* warp_sync → bar.warp.sync */
    uint32_t private_arrays;  /* allocas */
    uint32_t fault_sites;     /* fault instructions */
} gpu_emit_info;

/* Emits the kernel `entry` for f into m (whose triple and data layout are
 * the NVPTX target's).  On failure appends a GPU-U.. diagnostic. */
tilec_status gpu_emit(tilec_context *ctx, const xir_func *f, LLVMModuleRef m, const char *entry, gpu_emit_info *info);

#endif
