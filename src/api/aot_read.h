/* aot_read.h — the runtime library's side of ahead-of-time objects shared
 * by a kernel's (aot_run.c) and a module's (aot_module_run.c): reading a
 * blob (aot_format.h) and loading what a descriptor describes once for the
 * process. */
#ifndef TILEC_API_AOT_READ_H
#define TILEC_API_AOT_READ_H

#include "api/aot_format.h"
#include "base/context.h"
#include "rt/program.h"

#include <string.h>

/* A blob being read: past its end, or on a failed allocation, `bad` is set
 * and every read gives zeros (NULL strings). */
typedef struct {
    const unsigned char *at, *end;
    bool bad;
    tilec_context *ctx; /* load_ctx: where strings and tables go */
} aot_reader;

static inline bool aot_take(aot_reader *r, void *out, size_t n) {
    if (r->bad || (size_t)(r->end - r->at) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->at, n);
    r->at += n;
    return true;
}

static inline uint32_t aot_get_u32(aot_reader *r) {
    uint32_t v;
    aot_take(r, &v, sizeof v);
    return v;
}

static inline uint64_t aot_get_u64(aot_reader *r) {
    uint64_t v;
    aot_take(r, &v, sizeof v);
    return v;
}

static inline int64_t aot_get_i64(aot_reader *r) { return (int64_t)aot_get_u64(r); }

static inline char *aot_get_str(aot_reader *r) {
    uint32_t n = aot_get_u32(r);
    if (n == AOT_NONE || r->bad) return NULL;
    if ((size_t)(r->end - r->at) < n) {
        r->bad = true;
        return NULL;
    }
    char *s = tilec_alloc(r->ctx, (size_t)n + 1);
    if (!s) {
        r->bad = true;
        return NULL;
    }
    memcpy(s, r->at, n);
    s[n] = '\0';
    r->at += n;
    return s;
}

/* Runtime sizes as aot_put_dims writes them, into dims[RT_MAX_DIMS]
 * (names in r->ctx): `bad` past RT_MAX_DIMS, for a size without a name or
 * one whose range is empty. */
static inline void aot_get_dims(aot_reader *r, rt_dim *dims, uint32_t *count) {
    *count = aot_get_u32(r);
    if (*count > RT_MAX_DIMS) r->bad = true;
    for (uint32_t i = 0; !r->bad && i < *count; i++) {
        dims[i].name = aot_get_str(r);
        dims[i].lo = aot_get_i64(r);
        dims[i].hi = aot_get_i64(r);
        if (!dims[i].name || dims[i].lo > dims[i].hi) r->bad = true;
    }
}

/* What d describes, read by load(ctx, into, d, out) into the context
 * `into` (kept for the life of the process) at the first call for d,
 * under one process-wide lock; later calls return it (d's pointer slot). */
typedef tilec_status (*aot_load_fn)(tilec_context *ctx, tilec_context *into, const aot_descriptor *d, void **out);
tilec_status aot_load_once(tilec_context *ctx, const aot_descriptor *d, aot_load_fn load, void **out);
/* A kernel's descriptor loaded (aot_run.c), as its first dispatch would:
 * the CPU's features, the runtime's version and the blob checked. */
tilec_status aot_kernel_load(tilec_context *ctx, const aot_descriptor *d);

#endif
