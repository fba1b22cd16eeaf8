/* root_map.h — the root mapping of seed §3: a permutation π of the root
 * domain's axes, ordered from outermost to innermost, maps a dispatch ordinal
 * j ∈ [0, volume) to the root coordinate c = unflatten_π(j) (row-major in π
 * order).  The mapping is a bijection of the existing parallel instances; it
 * never changes buffer strides.  Shared by the lowerer (which emits the
 * decode) and the planner (which prices it); `plan_root_map_decode` is the
 * host-side reference the tests compare emitted code against. */
#ifndef TILEC_PLAN_ROOT_MAP_H
#define TILEC_PLAN_ROOT_MAP_H

#include "plan/admit.h"

/* One digit of the mixed-radix decode, outermost first:
 *   coordinate[axis] = (j / divisor) mod extent
 * `needs_mod` is false for the first non-unit digit (j < volume bounds it);
 * unit digits are 0 and emit nothing. */
typedef struct {
    uint32_t axis;
    uint64_t extent;
    uint64_t divisor; /* product of the extents of the digits inside this one */
    bool needs_mod;
} plan_root_digit;

typedef struct {
    uint32_t rank;
    uint32_t order[PLAN_MAX_RANK]; /* π: outer → inner */
    plan_root_digit digits[PLAN_MAX_RANK];
    uint64_t volume;
    bool identity; /* π is 0, 1, ..., rank-1 */
} plan_root_map;

/* Builds the map for `domain` (admitted: rank <= 64, volume <= uint32).
 * order_len 0 means the identity; otherwise `order` must be a complete
 * permutation of 0..rank-1, else TILEC_E_ARG with the exact message
 * "XIR root axis order must be a complete permutation" (code LOWER-O03). */
tilec_status plan_root_map_make(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                plan_root_map *out);

/* coords[axis] for dispatch ordinal j < volume. */
void plan_root_map_decode(const plan_root_map *map, uint64_t j, uint64_t *coords);

#endif
