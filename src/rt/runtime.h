/* runtime.h — the public runtime object (tilec_runtime, include/tilec/
 * runtime.h): a thread pool and the context it allocates through, made by
 * tilec_runtime_create (runtime.c).  The JIT kernels' pipeline
 * (src/driver), their dispatch and the ahead-of-time runtime (src/api) all
 * use it from below, so it lives with the pool, apart from the compiled
 * kernel's layout (driver/kernel.h). */
#ifndef TILEC_RT_RUNTIME_H
#define TILEC_RT_RUNTIME_H

#include "rt/program.h"
#include "tilec/runtime.h"

struct tilec_runtime {
    tilec_context *ctx; /* the pool's allocation context */
    rt_pool *pool;
};

/* Runs program p on rt's pool with the user's buffers args[0..n) (they
 * become the runtime's checked arguments) and its runtime sizes (NULL for
 * a static program). */
tilec_status rt_runtime_dispatch(tilec_context *ctx, tilec_runtime *rt, rt_program *p, size_t n,
                                 const tilec_buffer *args, const int64_t *dims);

#endif
