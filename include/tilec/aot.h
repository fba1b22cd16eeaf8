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

/* ---- modules compiled ahead of time (tilec_module_compile_aot,
 * docs/modules.md "Ahead of time") ----
 * The object of a module defines `tilec_status SYMBOL_create(ctx, out)`,
 * which calls tilec_aot_module_create with the object's module.  A module
 * made from it holds its arena (the temporaries) and the constants bound
 * to it; the program binds every constant by name, then runs it as often
 * as it likes.  One run at a time per module (MOD-R02); several modules of
 * one object may run at once. */
typedef struct tilec_aot_module tilec_aot_module;

/* A module of `object`'s description, allocating through ctx (which must
 * outlive it).  The object's kernels are loaded here (TILEC-AOT10..12 as
 * at a kernel's first dispatch). */
TILEC_API tilec_status tilec_aot_module_create(tilec_context *ctx, const tilec_aot_kernel *object,
                                               tilec_aot_module **out);
/* NULL is a no-op; not while a run is in flight. */
TILEC_API void tilec_aot_module_destroy(tilec_aot_module *m);
/* Binds constant `name` to data (borrowed: it must outlive the module's
 * runs): its element type (MOD-B05) and at least the bytes its steps read
 * (MOD-B12); MOD-B04 when the module has no constant of that name. */
TILEC_API tilec_status tilec_aot_module_bind(tilec_context *ctx, tilec_aot_module *m, const char *name,
                                             const tilec_buffer *data);
/* As tilec_module_run, on rt (NULL: the default runtime): args[0..n) the
 * inputs and outputs in the module's order, dims[0..n_dims) its sizes;
 * MOD-B12 naming a constant still unbound. */
TILEC_API tilec_status tilec_aot_module_run(tilec_context *ctx, tilec_runtime *rt, tilec_aot_module *m, size_t n,
                                            const tilec_buffer *args, size_t n_dims, const int64_t *dims);
/* What the module is: its name, its sizes, and its values in the order
 * they were added (inputs and outputs among them in the run's order):
 * name (NULL past the last), kind, element type and the most bytes its
 * steps touch at the module's largest sizes. */
TILEC_API const char *tilec_aot_module_name(const tilec_aot_module *m);
TILEC_API size_t tilec_aot_module_dim_count(const tilec_aot_module *m);
TILEC_API const char *tilec_aot_module_dim(const tilec_aot_module *m, size_t index, int64_t *lo, int64_t *hi);
TILEC_API size_t tilec_aot_module_value_count(const tilec_aot_module *m);
TILEC_API const char *tilec_aot_module_value(const tilec_aot_module *m, size_t index, tilec_value_kind *kind,
                                             tir_scalar *elem, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
