/* runtime_object.h — the facade's runtime object (tilec_runtime, include/tilec/
 * tilec.h): a thread pool and the context it allocates through.  Shared by
 * the JIT facade (dispatch.c) and the ahead-of-time runtime (aot_run.c),
 * so it lives apart from the compiled kernel's layout (kernel.h). */
#ifndef TILEC_DRIVER_RUNTIME_OBJECT_H
#define TILEC_DRIVER_RUNTIME_OBJECT_H

#include "rt/program.h"
#include "tilec/tilec.h"

struct tilec_runtime {
    tilec_context *ctx; /* the pool's allocation context */
    rt_pool *pool;
};

/* Runs program p on rt's pool with the user's buffers args[0..n) (they
 * become the runtime's checked arguments). */
tilec_status tilec_dispatch_program(tilec_context *ctx, tilec_runtime *rt, rt_program *p, size_t n,
                                    const tilec_buffer *args);

#endif
