/* vec.h — typed growable arrays backed by a tilec_context.
 *   VEC(int) v = {0};  if (!VEC_PUSH(ctx, &v, 3)) ...;  VEC_FREE(ctx, &v);
 * VEC_PUSH evaluates to false when the allocation fails (the array is unchanged). */
#ifndef TILEC_BASE_VEC_H
#define TILEC_BASE_VEC_H

#include "base/context.h"
#include <stdbool.h>

#define VEC(type) struct { type *data; size_t len, cap; }

bool vec_reserve_bytes(tilec_context *ctx, void **data, size_t *cap, size_t want, size_t elem);

#define VEC_RESERVE(ctx, v, n) \
    vec_reserve_bytes((ctx), (void **)&(v)->data, &(v)->cap, (n), sizeof *(v)->data)
#define VEC_PUSH(ctx, v, x) \
    (VEC_RESERVE(ctx, v, (v)->len + 1) ? ((v)->data[(v)->len++] = (x), true) : false)
#define VEC_POP(v) ((v)->data[--(v)->len])
#define VEC_LAST(v) ((v)->data[(v)->len - 1])
#define VEC_FREE(ctx, v) (tilec_free((ctx), (v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

#endif
