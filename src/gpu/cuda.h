/* cuda.h — the CUDA driver API adapter: the driver (libcuda) is loaded with
 * dlopen at run time, so tilec builds, links and runs its tests on machines
 * with neither a GPU nor the CUDA toolkit; only the GPU route needs it, and
 * there a missing driver or device is a diagnostic, never a crash.
 *
 * A gpu_cuda is the loaded driver plus device 0's primary context.  Every
 * call makes that context current on the calling thread first, so any
 * thread may use a gpu_cuda (the driver is thread-safe; the tilec_context
 * passed to a call must be the calling thread's, as everywhere).  Memory is
 * plain device memory, copies and launches are synchronous (the default
 * stream, then a synchronize), which is what checking and timing need.
 *
 * Diagnostic codes:
 *   GPU-D01  UNSUPPORTED  the driver library could not be loaded
 *   GPU-D02  UNSUPPORTED  the driver lacks an entry point this adapter uses
 *   GPU-D03  UNSUPPORTED  cuInit, no device, device query or context failure
 *   GPU-D04  UNSUPPORTED  the driver rejected a PTX module (with its JIT log)
 *   GPU-D05  ARG          the module has no kernel of the requested name
 *   GPU-D06  NOMEM        device allocation failed (RUNTIME for other device
 *                         memory failures: copies, memset)
 *   GPU-D07  RUNTIME      a launch, its execution, or its timing failed
 *   GPU-D08  UNSUPPORTED  a launch shape the device cannot run (grid or block
 *                         over its limits), refused before launching; ARG for
 *                         an empty grid or block, or no timed repetition
 * Driver failures name the driver's error (cuGetErrorName/String). */
#ifndef TILEC_GPU_CUDA_H
#define TILEC_GPU_CUDA_H

#include "base/context.h"

#include <stdint.h>

typedef struct gpu_cuda gpu_cuda;
typedef uint64_t gpu_device_ptr; /* CUdeviceptr; 0 is no allocation */
typedef struct gpu_cuda_module gpu_cuda_module;

/* Loads $TILEC_CUDA_DRIVER when set (a path or a library name), else
 * "libcuda.so.1", resolves every entry point, initializes the driver and
 * retains device 0's primary context.  GPU-D01/D02/D03 on failure, with
 * *out NULL; the context stays usable.  The gpu_cuda is allocated in ctx,
 * which must outlive it. */
tilec_status gpu_cuda_open(tilec_context *ctx, gpu_cuda **out);
/* Releases the primary context.  NULL is a no-op.  Modules and device
 * memory still held are the caller's to release first.  The driver library
 * itself stays loaded once cuInit ran (see cuda.c). */
void gpu_cuda_close(gpu_cuda *g);

const char *gpu_cuda_device_name(const gpu_cuda *g);
uint32_t gpu_cuda_compute_capability(const gpu_cuda *g); /* major*10+minor, e.g. 90 */
uint32_t gpu_cuda_multiprocessors(const gpu_cuda *g);
uint64_t gpu_cuda_total_memory(const gpu_cuda *g);       /* bytes */
uint32_t gpu_cuda_max_block(const gpu_cuda *g);          /* threads per block */
uint32_t gpu_cuda_max_grid(const gpu_cuda *g);           /* blocks in x */

/* Loads PTX text (NUL-terminated) and looks up its kernel `entry`: GPU-D04
 * with the driver's JIT error log when the PTX is rejected, GPU-D05 when it
 * has no such entry.  The module is allocated in ctx, which must outlive
 * it. */
tilec_status gpu_cuda_load(gpu_cuda *g, tilec_context *ctx, const char *ptx, const char *entry,
                           gpu_cuda_module **out);
/* NULL is a no-op.  Releasing (unload, free) reports nothing: there is no
 * context to report to, and it fails only on a faulted CUDA context, whose
 * memory and modules go with it when the gpu_cuda is closed. */
void gpu_cuda_unload(gpu_cuda *g, gpu_cuda_module *m);

/* Device memory.  A 0-byte allocation is the pointer 0 (no driver call);
 * freeing 0 is a no-op, and copies or zeroing of 0 bytes do nothing. */
tilec_status gpu_cuda_alloc(gpu_cuda *g, tilec_context *ctx, uint64_t bytes, gpu_device_ptr *out);
void gpu_cuda_free(gpu_cuda *g, gpu_device_ptr p);
tilec_status gpu_cuda_upload(gpu_cuda *g, tilec_context *ctx, gpu_device_ptr dst, const void *src,
                             uint64_t bytes);
tilec_status gpu_cuda_download(gpu_cuda *g, tilec_context *ctx, void *dst, gpu_device_ptr src,
                               uint64_t bytes);
tilec_status gpu_cuda_zero(gpu_cuda *g, tilec_context *ctx, gpu_device_ptr dst, uint64_t bytes);

/* One launch of the module's kernel on a 1-D grid of grid_x blocks of
 * block_x threads, no dynamic shared memory; params are the kernel's
 * argument pointers (cuLaunchKernel's kernelParams).  Waits for it:
 * GPU-D07 when the launch or the kernel fails, GPU-D08 for a shape refused
 * before launching. */
tilec_status gpu_cuda_launch(gpu_cuda *g, tilec_context *ctx, const gpu_cuda_module *m, uint32_t grid_x,
                             uint32_t block_x, void **params);
/* `warmup` untimed launches, then `reps` (at least 1) between two events;
 * *ms is the mean milliseconds per timed launch. */
tilec_status gpu_cuda_time(gpu_cuda *g, tilec_context *ctx, const gpu_cuda_module *m, uint32_t grid_x,
                           uint32_t block_x, void **params, uint32_t warmup, uint32_t reps, double *ms);

#endif
