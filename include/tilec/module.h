/* tilec/module.h — modules: compiled kernels run together as one
 * (docs/modules.md).
 *
 * A module is a list of steps, each a compiled kernel (tilec_compile) whose
 * arguments are module values:
 *   input      given at each run, read by the steps;
 *   output     given at each run, written by some step; a step may also
 *              read what it holds (state carried between runs: a KV cache);
 *   temporary  an intermediate in the module's own arena, laid out once at
 *              the module's largest sizes, each disjoint from the others;
 *              a step writes it before any step reads it;
 *   constant   bound once (weights), read only; borrowed, so its bytes
 *              must outlive the module.
 * A module has runtime sizes of its own; each step's kernel sizes are one
 * of them plus a constant, or a constant.
 *
 * Building: create, add sizes, values and steps, then finish.  Each call
 * checks what it can at once (an argument count, an element type, a write
 * to an input); finish checks the whole list, naming the step: every
 * step's sizes inside its kernel's ranges, every temporary written before
 * it is read and written as far as its readers read it (at the module's
 * smallest and largest sizes), every constant bound and large enough.
 * Steps run in the order they were added: a step that reads a temporary
 * a later step writes is "read before written" (the list's form of a
 * cycle).
 *
 * Running: tilec_module_run takes the inputs and outputs in the order
 * they were added, and the module's sizes; it runs the steps back to back
 * (the thread pool's workers stay awake between them).  A failing step
 * stops the run; its diagnostic is followed by MOD-R05 naming the step.
 * One run at a time per module (its arena is one): a run while another is
 * in flight fails with MOD-R02.  Kernels are borrowed: they, and the
 * context the module was created in, must outlive it. */
#ifndef TILEC_MODULE_H
#define TILEC_MODULE_H

#include "tilec/tilec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilec_module tilec_module;

/* tilec_value_kind: runtime.h (modules compiled ahead of time have them too). */

/* A step's runtime size: module size `dim` plus `offset`, or `offset`
 * alone when dim is TILEC_MODULE_NO_DIM. */
#define TILEC_MODULE_NO_DIM UINT32_MAX
typedef struct {
    uint32_t dim;
    int64_t offset;
} tilec_step_size;

TILEC_API tilec_status tilec_module_create(tilec_context *ctx, const char *name, tilec_module **out);
/* NULL is a no-op; not while a run is in flight. */
TILEC_API void tilec_module_destroy(tilec_module *m);

/* A runtime size lo..hi (1 <= lo <= hi); *index its number in the dims
 * tilec_module_run takes. */
TILEC_API tilec_status tilec_module_add_dim(tilec_context *ctx, tilec_module *m, const char *name, int64_t lo,
                                            int64_t hi, uint32_t *index);
/* A value; *index its number for tilec_module_add_step.  Inputs and
 * outputs are also numbered among the run's arguments in this order. */
TILEC_API tilec_status tilec_module_add_value(tilec_context *ctx, tilec_module *m, const char *name,
                                              tilec_value_kind kind, tir_scalar elem, uint32_t *index);
/* A constant's bytes (borrowed; data->elem must be its element type). */
TILEC_API tilec_status tilec_module_bind(tilec_context *ctx, tilec_module *m, uint32_t value,
                                         const tilec_buffer *data);
/* Kernel k on values[0..n_args) (its parameters in order) with its
 * runtime sizes sizes[0..n_sizes) (in its declaration order). */
TILEC_API tilec_status tilec_module_add_step(tilec_context *ctx, tilec_module *m, tilec_kernel *k, size_t n_args,
                                             const uint32_t *values, size_t n_sizes, const tilec_step_size *sizes);
/* Constant operands packed once (off by default): a step whose kernel
 * copies a constant into panels before each dispatch (compile option pack;
 * a prompt's GEMM over its weights) gets those panels made once, at
 * finish, for each of the kernel's bucket variants that packs it with
 * static sizes; its runs then skip the copy.  The panels are a second copy
 * of those constants (tilec_module_packed_bytes), whose bytes must not
 * change afterwards.  Before finish. */
TILEC_API tilec_status tilec_module_pack_constants(tilec_context *ctx, tilec_module *m, bool on);
/* Checks the whole module and lays out its arena; after it only runs. */
TILEC_API tilec_status tilec_module_finish(tilec_context *ctx, tilec_module *m);

/* Runs the steps with args[0..n) (the inputs and outputs in the order they
 * were added) and dims[0..n_dims) (one per module size, in range). */
TILEC_API tilec_status tilec_module_run(tilec_context *ctx, tilec_module *m, size_t n, const tilec_buffer *args,
                                        size_t n_dims, const int64_t *dims);

/* ---- what a module is ---- */
TILEC_API const char *tilec_module_name(const tilec_module *m);
TILEC_API size_t tilec_module_step_count(const tilec_module *m);
TILEC_API size_t tilec_module_dim_count(const tilec_module *m);
TILEC_API const char *tilec_module_dim(const tilec_module *m, size_t index, int64_t *lo, int64_t *hi);
/* The run's arguments: name, kind and element type of the i-th (NULL past
 * the last), and the bytes it must hold at dims (the most any step's
 * kernel touches there; 0 before finish or when a size overflows). */
TILEC_API size_t tilec_module_arg_count(const tilec_module *m);
TILEC_API const char *tilec_module_arg(const tilec_module *m, size_t index, tilec_value_kind *kind, tir_scalar *elem);
TILEC_API uint64_t tilec_module_arg_bytes(const tilec_module *m, size_t index, const int64_t *dims);
/* The arena's bytes: every temporary at the module's largest sizes. */
TILEC_API uint64_t tilec_module_arena_bytes(const tilec_module *m);
/* The bytes of the panels constants were packed into at finish (0: none). */
TILEC_API uint64_t tilec_module_packed_bytes(const tilec_module *m);
/* Where the time goes: with timing on, each run adds each step's wall time
 * (its dispatch, checks included) to the step's total; turning it on or
 * off zeroes the totals.  Not while a run is in flight.  Off by default: a
 * clock read around each step is the cost. */
TILEC_API void tilec_module_time(tilec_module *m, bool on);
/* The index-th step's kernel name and, in *ms, its total milliseconds
 * (NULL past the last step). */
TILEC_API const char *tilec_module_step(const tilec_module *m, size_t index, double *ms);

/* ---- ahead of time (docs/modules.md "Ahead of time") ----
 * A finished module compiled into one object a C program links against
 * the runtime library (tilec/aot.h): every step's kernel compiled again
 * from the TileIR and options tilec_compile was given, for aot->cpu and
 * the worker count the kernel was planned for, each kernel once however
 * many steps run it; with the module's values, sizes and steps.  The
 * object defines one entry point, `tilec_status SYMBOL_create(tilec_context
 * *ctx, tilec_aot_module **out)` (SYMBOL: aot->symbol, else the module's
 * name), which the header written to write_header (NULL: none) declares
 * and documents: the sizes, each value's kind, type and bytes.  Constants
 * are bound by the program (tilec_aot_module_bind), not carried in the
 * object.  Diagnostics as tilec_compile_aot's, plus MOD-A01 (not finished)
 * and MOD-A02 (a step's kernel was not made by tilec_compile in this
 * process). */
TILEC_API tilec_status tilec_module_compile_aot(tilec_context *ctx, const tilec_module *m,
                                                const tilec_aot_options *aot, tir_write_fn write_object,
                                                void *object_user, tir_write_fn write_header, void *header_user);

#ifdef __cplusplus
}
#endif

#endif
