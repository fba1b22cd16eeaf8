/* gpu.h — the GPU backend (docs/gpu.md): compiles one verified XIR kernel
 * (lowering + xir_cleanup output, packet width 32) to PTX for an NVIDIA GPU
 * through LLVM 19's NVPTX target.  A sibling of src/simd: the same XIR, run
 * one lane per CUDA thread — packets are warps, XIR blocks are CTAs.
 *
 * Kernel ABI (one .entry per kernel, named by gpu_kernel_entry):
 *   entry(ptr addrspace(1) arg0, ..., ptr addrspace(1) argN-1,
 *         u32 dispatch_size, ptr addrspace(1) faults)
 * launched on ceil(dispatch_size / B) blocks of B = f->block_size threads
 * (a multiple of 32).  The buffers must not overlap one another (each
 * pointer is noalias; one the kernel never writes is read through the
 * read-only data cache).  Thread t of block b is dispatch id b·B + t; those ≥
 * dispatch_size return at once (their memory effects do not happen).
 * warp_read_lane is a warp shuffle of the whole warp (shfl.sync.idx, all 32
 * lanes): as on the XIR interpreter, every lane of the warp must reach it,
 * which a packet-local kernel (whole warps, packet-uniform control flow)
 * guarantees.  `faults` is a device fault_record (base/fault.h), zeroed
 * before the launch: bounds faults count there atomically.  Buffer sizes
 * are never checked here: the caller checks them before the launch.
 *
 * Values are one thread's scalars (codegen/scalar.h: the SIMD backend's
 * semantics bit for bit); private arrays are allocas (registers or local
 * memory); the math functions call CUDA's libdevice (__nv_expf, ...), linked
 * in when the kernel uses one (gpu_find_libdevice).
 *
 * Errors are values: GPU-O.. options (an unknown sm), GPU-U.. what the
 * backend cannot compile, GPU-L.. libdevice, GPU-J.. LLVM failures. */
#ifndef TILEC_GPU_GPU_H
#define TILEC_GPU_GPU_H

#include "xir/xir.h"

typedef struct {
    const char *sm;  /* the GPU architecture: "sm_90" (NULL: GPU_DEFAULT_SM); one of OPTIONS_GPU_ARCHS */
    bool capture_ir; /* keep the optimized LLVM IR text (gpu_kernel_ir) */
} gpu_options;

#define GPU_DEFAULT_SM "sm_90"


typedef struct gpu_kernel gpu_kernel;

tilec_status gpu_compile(tilec_context *ctx, const xir_func *f, const gpu_options *options, gpu_kernel **out);
const char *gpu_kernel_ptx(const gpu_kernel *k);
const char *gpu_kernel_entry(const gpu_kernel *k);
const char *gpu_kernel_sm(const gpu_kernel *k);
const char *gpu_kernel_ir(const gpu_kernel *k); /* NULL unless captured */
uint32_t gpu_kernel_block_size(const gpu_kernel *k);
uint32_t gpu_kernel_arg_count(const gpu_kernel *k);
/* Milliseconds: IR emission, then LLVM (libdevice link, optimization, PTX). */
double gpu_kernel_emit_ms(const gpu_kernel *k);
double gpu_kernel_llvm_ms(const gpu_kernel *k);
/* "key=value; " items: target, sm, block, math calls, libdevice, times. */
const char *gpu_kernel_realization(const gpu_kernel *k);
void gpu_kernel_destroy(gpu_kernel *k);

/* The path of CUDA's libdevice.10.bc into out[size]: $TILEC_LIBDEVICE, else
 * $CUDA_HOME's, else the usual install locations; false when none is
 * readable. */
bool gpu_find_libdevice(char *out, size_t size);

#endif
