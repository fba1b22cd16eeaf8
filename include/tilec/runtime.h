/* runtime.h — what running kernels needs, whether they were compiled in
 * this process (tilec.h) or ahead of time (aot.h): the library's version,
 * the runtime (a thread pool) and the argument record.  Everything declared
 * here and in diag.h is also in the runtime library libtilec_rt, which has
 * no LLVM (docs/aot.md).
 *
 * Threads: a tilec_runtime owns a thread pool (worker count: the argument
 * if nonzero, else TILEC_THREADS, else the online cores).
 *
 * Arguments: tilec_buffer is {data, size_bytes, elem}; data points at the
 * first element the kernel sees (so an offset view of a larger allocation
 * is just data + offset), size_bytes is what may be touched from there.
 * A dispatch checks, before anything runs, the argument count (RT-D02),
 * each element type (RT-D03), each byte size against the kernel's view
 * extent (RT-D04) and non-null data (RT-D05), and fails with a diagnostic
 * leaving the context, the runtime and the kernel usable. */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include "tilec/diag.h"
#include "tilec/tir.h" /* tir_scalar: the element types */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (TILEC_VERSION_STRING of the
 * headers it was built with, tilec/api.h). */
TILEC_API const char *tilec_version(void);

typedef struct tilec_runtime tilec_runtime;

/* The kinds of a module's values (module.h; aot.h for a module compiled
 * ahead of time). */
typedef enum {
    TILEC_VALUE_INPUT = 0,
    TILEC_VALUE_OUTPUT,
    TILEC_VALUE_TEMPORARY,
    TILEC_VALUE_CONSTANT
} tilec_value_kind;
/* "input", "output", "temporary" or "constant" ("?" for another number). */
TILEC_API const char *tilec_value_kind_name(tilec_value_kind kind);

/* workers 0: TILEC_THREADS, else the online cores.  RT-P.. diagnostics. */
TILEC_API tilec_status tilec_runtime_create(tilec_context *ctx, uint32_t workers, tilec_runtime **out);
/* NULL is a no-op; no kernel may still dispatch on it. */
TILEC_API void tilec_runtime_destroy(tilec_runtime *rt);
TILEC_API uint32_t tilec_runtime_workers(const tilec_runtime *rt);

/* One argument: see "Arguments" above. */
typedef struct {
    void *data;
    size_t size_bytes;
    tir_scalar elem;
} tilec_buffer;

#ifdef __cplusplus
}
#endif

#endif
