/* aot.h — ahead-of-time objects from the SIMD backend (docs/aot.md): the
 * packet entries of several XIR kernels emitted into one LLVM module for a
 * named CPU, then the data and C entry points the caller describes, then
 * one optimization and one position-independent ELF object a C program
 * links (against the runtime library: no LLVM at run time).
 *
 * The object defines, with `sym` the caller's symbol:
 *   tilec.aot.entry.N the packet entries, internal (the ABI of simd.h);
 *   a private descriptor {magic, blob, blob bytes, entries, entry count,
 *                         a zeroed pointer slot} (six 8-byte fields);
 *   int sym(P0, P1, …)  calls tilec_aot_call(&descriptor, n, buffers), the
 *                       buffers built from the parameters (a pointer each,
 *                       or a value for a scalar parameter, stored on the
 *                       stack) with their byte sizes and element types;
 *   int sym_dispatch(ctx, rt, n, args) calls
 *                       tilec_aot_dispatch(ctx, rt, &descriptor, n, args).
 * With runtime sizes, sym takes them (int64_t each) after the parameters
 * and calls tilec_aot_call_dims; sym_dispatch takes (n_dims, dims) after
 * args and calls tilec_aot_dispatch_dims.
 * A module's object (tilec_module_compile_aot) defines instead
 *   int sym_create(ctx, out) calls tilec_aot_module_create(ctx, &descriptor, out).
 * The runtime library defines tilec_aot_call and tilec_aot_dispatch (and
 * their _dims forms) and
 * reads the blob; this backend only carries it. */
#ifndef TILEC_SIMD_AOT_H
#define TILEC_SIMD_AOT_H

#include "simd/simd.h"

typedef struct simd_aot simd_aot;

/* Starts an object for `cpu`: NULL or "native" (this host, its features),
 * or "x86-64-v2", "x86-64-v3", "x86-64-v4".  SIMD-O05 for another name,
 * SIMD-J01 when LLVM cannot target it. */
tilec_status simd_aot_begin(tilec_context *ctx, const char *cpu, simd_aot **out);
void simd_aot_destroy(simd_aot *a);
/* The target's natural packet width (16 with AVX-512F, 8 with AVX2, else 4). */
uint32_t simd_aot_width(const simd_aot *a);
/* The target's CPU name, and every CPU feature its code may use as LLVM
 * names them ("+64bit,…,+avx2,+fma,-avx512f,…"): the feature string code is
 * generated with and what the CPU name implies beyond it. */
const char *simd_aot_cpu(const simd_aot *a);
const char *simd_aot_features(const simd_aot *a);

/* Emits f's packet entry into the object (facts->width must be set); *out
 * is a kernel without code (simd_kernel_entry NULL) carrying its counters,
 * *entry its index in the entry table. */
tilec_status simd_aot_add(simd_aot *a, const xir_func *f, const tilec_compile_options *options,
                          const simd_facts *facts, simd_kernel **out, uint32_t *entry);

/* One parameter of the typed entry point. */
typedef struct {
    tir_scalar elem;
    bool by_value;      /* a scalar parameter passed as a value */
    uint64_t bytes;     /* the buffer's byte size the entry passes */
} simd_aot_param;

typedef struct {
    const char *symbol;
    uint64_t magic;
    const void *blob;
    size_t blob_bytes;
    const simd_aot_param *params;
    size_t param_count;
    size_t dim_count; /* runtime sizes: the typed entry takes them after the parameters */
    bool module;      /* a module's object: only sym_create (above), no params */
} simd_aot_entry_points;

/* Adds the descriptor and the entry points, optimizes the module
 * (default<O3> for the target) and appends the object code to `object`.
 * The module is consumed: only simd_aot_destroy may follow. */
tilec_status simd_aot_finish(simd_aot *a, const simd_aot_entry_points *ep, strbuf *object);

#endif
