/* runtime.c — the public runtime: a thread pool, and dispatching a
 * program on it (runtime.h). */
#include "rt/runtime.h"

tilec_status tilec_runtime_create(tilec_context *ctx, uint32_t workers, tilec_runtime **out) {
    *out = NULL;
    tilec_runtime *rt = tilec_alloc(ctx, sizeof *rt);
    if (!rt) return tilec_error(ctx, TILEC_E_NOMEM, "TILEC-M01", tilec_no_loc(), "out of memory creating a runtime");
    rt->ctx = ctx;
    rt_pool_options o = {.worker_count = workers};
    tilec_status st = rt_pool_create(ctx, &o, &rt->pool);
    if (st) {
        tilec_free(ctx, rt);
        return st;
    }
    *out = rt;
    return TILEC_OK;
}

void tilec_runtime_destroy(tilec_runtime *rt) {
    if (!rt) return;
    rt_pool_destroy(rt->pool);
    tilec_free(rt->ctx, rt);
}

uint32_t tilec_runtime_workers(const tilec_runtime *rt) { return rt_pool_worker_count(rt->pool); }

const char *tilec_value_kind_name(tilec_value_kind kind) {
    static const char *const names[] = {"input", "output", "temporary", "constant"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

tilec_status rt_runtime_dispatch(tilec_context *ctx, tilec_runtime *rt, rt_program *p, size_t n,
                                 const tilec_buffer *args, const int64_t *dims) {
    enum { STACK_ARGS = 32 };
    rt_arg local[STACK_ARGS];
    rt_arg *a = n <= STACK_ARGS || !args ? local : tilec_alloc(ctx, n * sizeof *a);
    if (!a) return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    for (size_t i = 0; args && i < n; i++) a[i] = (rt_arg){args[i].data, args[i].size_bytes, args[i].elem};
    tilec_status st = rt_program_dispatch(rt->pool, ctx, p, n, args ? a : NULL, dims);
    if (a != local) tilec_free(ctx, a);
    return st;
}
