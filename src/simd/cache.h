/* cache.h — compiled kernels kept in memory per context (docs/simd.md
 * "Kernel cache"): compiling the same XIR with the same backend options
 * again in the same context returns the kernel already compiled, without
 * LLVM.  The key is the canonical XIR text of the function's module and the
 * options that change the code (width, full-packet bodies, streaming stores,
 * required width); the host is the process's, so it is not in the key.
 * The last SIMD_CACHE_ENTRIES kernels are kept; TILEC_CACHE=0 turns the
 * cache off; kernels that capture their IR or assembly are not cached. */
#ifndef TILEC_SIMD_CACHE_H
#define TILEC_SIMD_CACHE_H

#include "simd/simd.h"

enum { SIMD_CACHE_ENTRIES = 64 };

/* off: not cached; miss: compiled (and stored); hit: this context's kernel;
 * disk: linked from the disk cache; rebuilt: a damaged or stale disk entry
 * was removed and the kernel compiled again. */
typedef enum { SIMD_CACHE_OFF = 0, SIMD_CACHE_MISS, SIMD_CACHE_HIT, SIMD_CACHE_DISK, SIMD_CACHE_REBUILT } simd_cache_outcome;
const char *simd_cache_outcome_name(simd_cache_outcome o);

/* simd_compile through ctx's cache.  A hit hands out the cached kernel
 * itself, one more use of it (simd_kernel_destroy releases a use; the cache
 * holds one until the kernel is evicted or the context destroyed).
 * *outcome says which it was. */
tilec_status simd_compile_cached(tilec_context *ctx, const xir_func *f, const tilec_compile_options *options,
                                 const simd_facts *facts, simd_kernel **out, simd_cache_outcome *outcome);

#endif
