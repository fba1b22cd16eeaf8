/* runtime.c — the facade's runtime (a thread pool) and tilec_dispatch:
 * buffers become the runtime's checked arguments (rt_dispatch checks count,
 * element type, byte size and null data before anything runs).  A packing
 * kernel appends its panels to the arguments and, once they are checked,
 * runs its copy kernel on (source parameter, panels) first; a split kernel
 * checks the arguments against its own table, then runs its partial and
 * combine kernels on (arguments, workspace views); each under the kernel's
 * scratch_lock. */
#include "tilec/kernel.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

/* The backend's packet entry and the runtime's entry share one ABI: the
 * buffer records have the same layout (checked here), so the entry is
 * handed to the runtime as is. */
_Static_assert(sizeof(rt_buffer) == sizeof(simd_buffer_arg), "buffer record size");
_Static_assert(offsetof(rt_buffer, data) == offsetof(simd_buffer_arg, data), "buffer record data");
_Static_assert(offsetof(rt_buffer, size_bytes) == offsetof(simd_buffer_arg, size_bytes), "buffer record size_bytes");

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

enum { STACK_ARGS = 32 };

static tilec_status dispatch_split(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args,
                                   rt_arg *a) {
    tilec_buffer local[STACK_ARGS];
    size_t count = n + k->split_carries;
    tilec_buffer *b = count <= STACK_ARGS ? local : tilec_alloc(ctx, count * sizeof *b);
    if (!b) return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    if (n) memcpy(b, args, n * sizeof *b);
    for (uint32_t i = 0; i < k->split_carries; i++)
        b[n + i] = (tilec_buffer){(char *)k->scratch + k->split_offset[i], k->split_bytes[i], k->split_elem[i]};
    pthread_mutex_lock(&k->scratch_lock);
    tilec_status st = rt_check_args(ctx, &k->desc, a, (uint32_t)n);
    if (!st) st = tilec_dispatch(ctx, k->split_partial, count, b);
    if (!st) st = tilec_dispatch(ctx, k->split_combine, count, b);
    pthread_mutex_unlock(&k->scratch_lock);
    if (b != local) tilec_free(ctx, b);
    return st;
}

/* Whether arguments i and j share a byte the kernel may touch. */
static bool overlap(const tilec_kernel *k, const tilec_buffer *args, size_t i, size_t j) {
    uintptr_t a = (uintptr_t)args[i].data, b = (uintptr_t)args[j].data;
    uint64_t na = k->params[i].min_bytes, nb = k->params[j].min_bytes;
    return na && nb && (a >= b ? a - b < nb : b - a < na);
}

/* Whether the arguments break what the streamed loads need (lower_arg). */
static bool streams_unsafe(const tilec_kernel *k, size_t n, const tilec_buffer *args) {
    for (size_t i = 0; i < n && i < 64; i++)
        for (size_t j = 0; j < n && j < 64; j++) {
            if ((k->disjoint[i] >> j & 1) && overlap(k, args, i, j)) return true;
            if ((k->disjoint_or_equal[i] >> j & 1) && overlap(k, args, i, j) && args[i].data != args[j].data)
                return true;
        }
    return false;
}

void tilec_kernel_dispatch_counts(const tilec_kernel *k, uint64_t *fused, uint64_t *unfused) {
    *fused = k->fused_dispatches;
    *unfused = k->unfused_dispatches;
}

tilec_status tilec_dispatch(tilec_context *ctx, tilec_kernel *k, size_t n, const tilec_buffer *args) {
    if (!k) return tilec_error(ctx, TILEC_E_ARG, "TILEC-D01", tilec_no_loc(), "tilec_dispatch: no kernel");
    if (n != k->user_args || (n && !args))
        return tilec_error(ctx, TILEC_E_ARG, "RT-D02", tilec_no_loc(),
                           "kernel '@%s' takes %u arguments, got %zu%s", strbuf_cstr(&k->name), k->user_args, n,
                           n && !args ? " (NULL array)" : "");
    if (k->unfused) {
        bool unsafe = streams_unsafe(k, n, args);
        ++*(unsafe ? &k->unfused_dispatches : &k->fused_dispatches);
        if (unsafe) return tilec_dispatch(ctx, k->unfused, n, args);
    }
    size_t count = n + (k->pack != NULL);
    rt_arg local[STACK_ARGS] = {0};
    rt_arg *a = count <= STACK_ARGS ? local : tilec_alloc(ctx, count * sizeof *a);
    if (!a) return tilec_error(ctx, TILEC_E_NOMEM, "RT-D07", tilec_no_loc(), "out of memory binding arguments");
    for (size_t i = 0; i < n; i++) a[i] = (rt_arg){args[i].data, args[i].size_bytes, args[i].elem};
    tilec_status st;
    if (k->split_partial) {
        st = dispatch_split(ctx, k, n, args, a);
    } else if (k->pack) {
        a[n] = (rt_arg){k->scratch, k->scratch_bytes, k->params[n].elem};
        rt_arg copy[2] = {a[k->packed_param], a[n]};
        pthread_mutex_lock(&k->scratch_lock);
        st = rt_check_args(ctx, &k->desc, a, (uint32_t)count);
        if (!st) st = rt_dispatch(k->runtime->pool, ctx, &k->pack->desc, copy, 2, NULL);
        if (!st) st = rt_dispatch(k->runtime->pool, ctx, &k->desc, a, (uint32_t)count, NULL);
        pthread_mutex_unlock(&k->scratch_lock);
    } else {
        st = rt_dispatch(k->runtime->pool, ctx, &k->desc, a, (uint32_t)count, NULL);
    }
    if (a != local) tilec_free(ctx, a);
    return st;
}
