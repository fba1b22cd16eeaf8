/* vec.c — growth policy for vec.h (doubling, minimum 8). */
#include "base/vec.h"

bool vec_reserve_bytes(tilec_context *ctx, void **data, size_t *cap, size_t want, size_t elem) {
    if (want <= *cap) return true;
    size_t next = *cap ? *cap : 8;
    while (next < want) next *= 2;
    void *p = tilec_grow(ctx, *data, *cap * elem, next * elem);
    if (!p) return false;
    *data = p;
    *cap = next;
    return true;
}
