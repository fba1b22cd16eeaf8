/* aot.h — running kernels compiled ahead of time (`tilec compile`,
 * tilec_compile_aot; docs/aot.md).  The object a kernel was compiled to
 * defines its entry points (its generated header declares them); they call
 * these functions of the runtime library (libtilec_rt, or libtilec, which
 * contains it).
 *
 * The first dispatch of an object checks that this CPU has every feature
 * the object's code may use and that the object was made for this
 * runtime (TILEC-AOT10..12), then sets up its programs once for the
 * process; later dispatches only check the arguments (runtime.h) and run.
 * Bounds faults are reported as by tilec_dispatch (TIR-I07..I09 at the
 * TileIR source location).
 *
 * The typed entry points (`int softmax(const float *X, float *Y)`) run on
 * the default runtime with the calling thread's own context: any number of
 * threads may call them at once (the runtime runs one dispatch at a time).
 * Their diagnostics stay until the thread's next call. */
#ifndef TILEC_AOT_H
#define TILEC_AOT_H

#include "tilec/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An object's kernel (what its entry points pass here). */
typedef struct tilec_aot_kernel tilec_aot_kernel;

/* Runs k with args[0..n) (TileIR parameter order) on rt (NULL: the default
 * runtime), diagnostics into ctx (NULL: the calling thread's context,
 * cleared first as by tilec_aot_call). */
TILEC_API tilec_status tilec_aot_dispatch(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k, size_t n,
                                          const tilec_buffer *args);
/* tilec_aot_dispatch of a kernel with runtime sizes (docs/tir.md "Runtime
 * sizes"): dims[0..n_dims), one value per size in declaration order, each
 * in its range (RT-D10 otherwise); its bucket's program runs. */
TILEC_API tilec_status tilec_aot_dispatch_dims(tilec_context *ctx, tilec_runtime *rt, const tilec_aot_kernel *k,
                                               size_t n, const tilec_buffer *args, size_t n_dims, const int64_t *dims);
/* tilec_aot_dispatch on the default runtime with the calling thread's
 * context, cleared first: what the typed entry points call. */
TILEC_API tilec_status tilec_aot_call(const tilec_aot_kernel *k, size_t n, const tilec_buffer *args);
/* tilec_aot_call with runtime sizes, trusting its buffers as the typed entry
 * points do: a buffer of 0 bytes for a parameter whose extents depend on
 * the sizes is taken to have the bytes the kernel reads at dims. */
TILEC_API tilec_status tilec_aot_call_dims(const tilec_aot_kernel *k, size_t n, const tilec_buffer *args, size_t n_dims,
                                           const int64_t *dims);
/* The calling thread's diagnostics of its last call on its own context
 * (tilec_aot_call, or tilec_aot_dispatch with ctx NULL) and of that call
 * only, rendered as tilec_diag_render does ("" when it succeeded). */
TILEC_API const char *tilec_aot_last_error(void);
/* The default runtime, created at the first use with TILEC_THREADS workers
 * (else the online cores) and kept for the life of the process; NULL when
 * it cannot be created (the reason: tilec_aot_last_error). */
TILEC_API tilec_runtime *tilec_aot_default_runtime(void);

#ifdef __cplusplus
}
#endif

#endif
