/* root_map.c — validation, canonical construction and host-side decoding of
 * the root mapping (see root_map.h).  The decode rules here are exactly the
 * ones the lowerer emits for the same digits, so the host decode is the
 * reference the tests compare emitted code against. */
#include "realize/root_map.h"

#include "base/checked.h"
#include "base/context.h"

#include <string.h>

tilec_status plan_root_map_check(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                 const uint32_t *tiles, size_t tiles_len) {
    uint32_t rank = domain->rank;
    bool seen[PLAN_MAX_RANK] = {false};
    bool complete = rank <= PLAN_MAX_RANK && (order_len == 0 || (order && order_len == rank));
    for (size_t t = 0; complete && t < order_len; t++) {
        complete = order[t] < rank && !seen[order[t]];
        if (complete) seen[order[t]] = true;
    }
    if (!complete)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O03", tilec_no_loc(), "XIR root axis order must be a complete permutation");
    if (tiles_len && (!tiles || tiles_len != rank))
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O05", tilec_no_loc(), "XIR root axis tiles must specify every original axis");
    for (size_t a = 0; a < tiles_len; a++) /* an axis of a runtime size divides only by 1 */
        if (tir_extent_is_symbolic(domain->axes[a].extent) ? tiles[a] != 1
                                                           : tiles[a] == 0 || domain->axes[a].extent % tiles[a])
            return tilec_error(ctx, TILEC_E_ARG, "LOWER-O06", tilec_no_loc(),
                               "XIR root axis tiles must be positive divisors of the original extents");
    /* A runtime size counts as 1 here: admission (realize/admit.h) checks
     * the volume with every size at its largest. */
    uint64_t volume = 1;
    bool fits = true;
    for (uint32_t a = 0; a < rank; a++)
        fits = fits && (tir_extent_is_symbolic(domain->axes[a].extent) ||
                        checked_mul_u64(volume, domain->axes[a].extent, &volume));
    if (!fits || volume == 0 || volume > UINT32_MAX)
        return tilec_error(ctx, TILEC_E_ARG, "LOWER-O07", tilec_no_loc(),
                           "XIR root domain volume must be between 1 and 4294967295");
    return TILEC_OK;
}

/* The canonical digits of (order, tiles); tiles NULL = untiled.  Returns the
 * digit count.  Raw digits are every outer digit, then every inner digit,
 * both in π order; unit digits vanish and an inner digit whose scale chains
 * onto the previous digit of the same axis merges into it. */
static uint32_t canonical_digits(const tir_space *domain, const uint32_t *order, const uint32_t *tiles,
                                 plan_root_digit *digits) {
    uint32_t rank = domain->rank, n = 0;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < rank; t++) {
            uint32_t axis = order[t];
            uint64_t factor = tiles ? tiles[axis] : 1;
            uint64_t extent = pass == 0 ? domain->axes[axis].extent / factor : factor;
            uint64_t scale = pass == 0 ? factor : 1;
            if (extent == 1) continue;
            plan_root_digit *last = n ? &digits[n - 1] : NULL;
            if (last && last->axis == axis && last->scale == extent * scale) {
                last->extent *= extent;
                last->scale = scale;
            } else {
                digits[n++] = (plan_root_digit){axis, extent, scale, 0, false};
            }
        }
    return n;
}

static bool same_digits(const plan_root_digit *a, uint32_t na, const plan_root_digit *b, uint32_t nb) {
    if (na != nb) return false;
    for (uint32_t t = 0; t < na; t++)
        if (a[t].axis != b[t].axis || a[t].extent != b[t].extent || a[t].scale != b[t].scale) return false;
    return true;
}

tilec_status plan_root_map_make(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                const uint32_t *tiles, size_t tiles_len, plan_root_map *out) {
    memset(out, 0, sizeof *out);
    tilec_status st = plan_root_map_check(ctx, domain, order, order_len, tiles, tiles_len);
    if (st) return st;
    uint32_t rank = domain->rank, identity_order[PLAN_MAX_RANK];
    out->rank = rank;
    for (uint32_t t = 0; t < rank; t++) {
        identity_order[t] = t;
        out->order[t] = order_len ? order[t] : t;
    }
    out->digit_count = canonical_digits(domain, out->order, tiles_len ? tiles : NULL, out->digits);
    /* Divisors inside out; the first digit needs no remainder.  Inside a
     * digit of a runtime size, divisors are the dispatch's (0 here). */
    uint64_t divisor = 1;
    for (uint32_t t = out->digit_count; t-- > 0;) {
        out->digits[t].divisor = divisor;
        out->digits[t].needs_mod = t > 0;
        if (tir_extent_is_symbolic(out->digits[t].extent)) divisor = 0;
        else divisor *= out->digits[t].extent; /* checked: the volume fits in uint32 */
    }
    out->volume = divisor;

    plan_root_digit reference[PLAN_MAX_ROOT_DIGITS];
    uint32_t n = canonical_digits(domain, out->order, NULL, reference);
    out->plain = same_digits(out->digits, out->digit_count, reference, n);
    n = canonical_digits(domain, identity_order, NULL, reference);
    out->identity = same_digits(out->digits, out->digit_count, reference, n);
    return TILEC_OK;
}

void plan_root_map_decode(const plan_root_map *map, uint64_t j, uint64_t *coords) {
    for (uint32_t a = 0; a < map->rank; a++) coords[a] = 0;
    for (uint32_t t = 0; t < map->digit_count; t++) {
        const plan_root_digit *d = &map->digits[t];
        uint64_t value = j / d->divisor;
        if (d->needs_mod) value %= d->extent;
        coords[d->axis] += value * d->scale;
    }
}

bool plan_root_map_same(const plan_root_map *a, const plan_root_map *b) {
    return a->rank == b->rank && same_digits(a->digits, a->digit_count, b->digits, b->digit_count);
}

plan_root_arithmetic plan_root_map_decode_arithmetic(const plan_root_map *map) {
    plan_root_arithmetic n = {0, 0, 0, 0};
    bool started[PLAN_MAX_RANK] = {false};
    for (uint32_t t = 0; t < map->digit_count; t++) {
        const plan_root_digit *d = &map->digits[t];
        n.div += d->divisor != 1;
        n.mod += d->needs_mod;
        n.mul += d->scale > 1;
        n.add += started[d->axis];
        started[d->axis] = true;
    }
    return n;
}
