/* emit.h — XIR → LLVM vector IR for packets of W lanes (docs/simd.md). */
#ifndef TILEC_SIMD_EMIT_H
#define TILEC_SIMD_EMIT_H

#include "simd/analysis.h"
#include "simd/jit.h"
#include "simd/simd.h"

enum { SIMD_MAX_SLEEF = 32, SIMD_STACK_LIMIT = 64 * 1024, SIMD_WORKSPACE_LIMIT = 16 * 1024 * 1024 };

typedef struct {
    simd_counters counters;
    const char *sleef[SIMD_MAX_SLEEF]; /* SLEEF symbols the module calls */
    size_t n_sleef;
} simd_emit_info;

/* Which packet bodies the entry calls: one with the dynamic tail mask for
 * every packet; that one for a ragged tail and an all-active one for
 * complete packets (full-packet specialization); or only the all-active one
 * (whole packets: a packet-local kernel, whose every packet is one whole
 * program). */
typedef enum { SIMD_BODIES_MASKED, SIMD_BODIES_MASKED_AND_FULL, SIMD_BODIES_FULL } simd_bodies;

/* Emits the packet entry `entry_name` and its internal packet bodies for `f`
 * into `m`; `streaming_args` and `apart_args` as in simd_facts.  On failure
 * appends a SIMD-.. diagnostic and returns its status. */
tilec_status simd_emit(tilec_context *ctx, const xir_func *f, const simd_analysis *an, const jit_host *host,
                       uint32_t width, simd_bodies bodies, uint64_t streaming_args, uint64_t apart_args, LLVMModuleRef m,
                       const char *entry_name, simd_emit_info *info);

/* A kernel without code of its own: f's packet entry `entry_name` emitted
 * into m for `host` (ahead-of-time objects, aot.c), with the counters and
 * width of a compiled kernel; its entry is NULL.  facts->width must be
 * set (the environment is not consulted). */
tilec_status simd_kernel_emit_into(tilec_context *ctx, const xir_func *f, const tilec_compile_options *options,
                                   const simd_facts *facts, const jit_host *host, LLVMModuleRef m,
                                   const char *entry_name, simd_kernel **out);

#endif
