/* root_map.c — validation and host-side decoding of the root permutation
 * (see root_map.h).  The decode rules here are exactly the ones the lowerer
 * emits: a digit divides by the product of the inner extents and takes the
 * remainder by its own extent, except the first non-unit digit (no mod) and
 * unit digits (constant 0). */
#include "plan/root_map.h"

#include "base/context.h"

#include <string.h>

tilec_status plan_root_map_make(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                plan_root_map *out) {
    memset(out, 0, sizeof *out);
    uint32_t rank = domain->rank;
    bool seen[PLAN_MAX_RANK] = {false};
    bool complete = order_len == 0 || (order && order_len == rank);
    for (size_t t = 0; complete && order_len && t < order_len; t++) {
        complete = order[t] < rank && !seen[order[t]];
        if (complete) seen[order[t]] = true;
    }
    if (!complete || rank > PLAN_MAX_RANK)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O03", tilec_no_loc(), "XIR root axis order must be a complete permutation");
    out->rank = rank;
    out->identity = true;
    for (uint32_t t = 0; t < rank; t++) {
        out->order[t] = order_len ? order[t] : t;
        out->identity = out->identity && out->order[t] == t;
    }
    uint64_t divisor = 1;
    for (uint32_t t = rank; t-- > 0;) {
        uint32_t axis = out->order[t];
        out->digits[t] = (plan_root_digit){axis, domain->axes[axis].extent, divisor, true};
        divisor *= domain->axes[axis].extent; /* admitted: the volume fits in uint32 */
    }
    out->volume = divisor;
    for (uint32_t t = 0; t < rank; t++)
        if (out->digits[t].extent != 1) {
            out->digits[t].needs_mod = false;
            break;
        }
    return TILEC_OK;
}

void plan_root_map_decode(const plan_root_map *map, uint64_t j, uint64_t *coords) {
    for (uint32_t t = 0; t < map->rank; t++) {
        const plan_root_digit *d = &map->digits[t];
        uint64_t c = 0;
        if (d->extent != 1) {
            c = j / d->divisor;
            if (d->needs_mod) c %= d->extent;
        }
        coords[d->axis] = c;
    }
}
