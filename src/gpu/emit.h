/* emit.h — XIR → LLVM IR for nvptx64-nvidia-cuda, one lane per thread
 * (docs/gpu.md "Code generation"). */
#ifndef TILEC_GPU_EMIT_H
#define TILEC_GPU_EMIT_H

#include "xir/xir.h"

#include <llvm-c/Core.h>

/* DEVICE: the kernel of gpu.h's launch ABI.  HOST (tests: tests/gpu/
 * host_run.h): the same code as a host function running one thread,
 *   void entry(void *const *buffers, uint32_t dispatch_size, fault_record *faults,
 *              uint32_t thread, uint32_t block)
 * the thread and block ids as parameters, the math functions SLEEF's scalar
 * u10 entries; warp_read_lane and warp_sync have no meaning there (GPU-U03),
 * so only kernels without them run this way. */
typedef enum { GPU_EMIT_DEVICE, GPU_EMIT_HOST } gpu_emit_mode;

enum { GPU_EMIT_MAX_SLEEF = 32 };

typedef struct {
    gpu_emit_mode mode;
    uint32_t math_calls;      /* libdevice calls emitted (HOST: SLEEF calls) */
    char sleef[GPU_EMIT_MAX_SLEEF][48]; /* HOST: the SLEEF symbols called */
    uint32_t n_sleef;
    uint32_t shuffles;        /* warp_read_lane → shfl.sync.idx */
    uint32_t syncs;           /* warp_sync → bar.warp.sync */
    uint32_t private_arrays;  /* allocas */
    uint32_t fault_sites;     /* fault instructions */
} gpu_emit_info;

/* Emits the kernel `entry` for f into m (whose triple and data layout are
 * the NVPTX target's, for DEVICE) in info->mode.  On failure appends a
 * GPU-U.. diagnostic. */
tilec_status gpu_emit(tilec_context *ctx, const xir_func *f, LLVMModuleRef m, const char *entry, gpu_emit_info *info);

#endif
