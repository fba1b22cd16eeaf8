/* root_map.h — the root mapping (docs/lowering.md "Root mapping"): a bijection
 * σ from the dispatch ordinal j ∈ [0, volume) to a root coordinate.  It only
 * reorders the independent root programs; it never changes buffer strides.
 * Shared by the lowerer (which emits the decode), the planner (which
 * validates candidates, prices the decode and deduplicates equal mappings)
 * and the tests (`plan_root_map_decode` is the host-side reference of the
 * emitted code).
 *
 * A mapping is fixed by
 *   - the root order π (outer → inner; none = 0, 1, ..., rank-1), and
 *   - optional root axis tiles: one factor per ORIGINAL axis (in original
 *     axis order), each a positive divisor of that axis's extent.
 * It is a mixed-radix number: first every outer digit (extent/factor, scale
 * factor) in π order, then every inner digit (factor, scale 1) in π order;
 *   coordinate[axis] = Σ over the axis's digits of digit value · scale.
 * Without tiles every axis has one digit (extent, scale 1): the plain
 * row-major decode in π order.
 *
 * The stored digits are canonical: unit digits are dropped, and adjacent
 * digits of one axis merge when their scales chain (outer scale == inner
 * extent · inner scale).  Two (order, tiles) choices that enumerate the same
 * sequence therefore have equal digit lists (`plan_root_map_same`), and a
 * trivial tiling has exactly the digits of its plain π decode, so it lowers
 * to byte-identical XIR. */
#ifndef TILEC_REALIZE_ROOT_MAP_H
#define TILEC_REALIZE_ROOT_MAP_H

#include "realize/admit.h"

/* One canonical digit, outermost first:
 *   value = (j / divisor) mod extent        (no mod when !needs_mod)
 *   coordinate[axis] += value · scale
 * divisor is the product of the extents of the digits inside this one;
 * needs_mod is false only for the first digit (j < volume bounds it).  A
 * digit of a runtime size (tir/form.h) has that symbolic extent (its axis
 * untiled), and the digits outside it divisor 0: the dispatch's sizes give
 * them (the lowering computes them). */
typedef struct {
    uint32_t axis;
    uint64_t extent; /* >= 2, or symbolic */
    uint64_t scale;
    uint64_t divisor; /* 0: a product of runtime sizes */
    bool needs_mod;
} plan_root_digit;

enum { PLAN_MAX_ROOT_DIGITS = 2 * PLAN_MAX_RANK };

typedef struct {
    uint32_t rank;
    uint32_t order[PLAN_MAX_RANK]; /* π: outer → inner */
    uint32_t digit_count;
    plan_root_digit digits[PLAN_MAX_ROOT_DIGITS];
    uint64_t volume; /* 0 when a digit is a runtime size's */
    bool plain;    /* σ equals the untiled decode in π order (no tiles, or a trivial tiling) */
    bool identity; /* σ equals the row-major decode in axis order 0, 1, ..., rank-1 */
} plan_root_map;

/* Validates a root order and root axis tiles against a root domain.  Needs
 * only the domain's extents, so callers run it before admission or any cost
 * evaluation.  order_len 0 means π = identity; tiles_len 0 means no tiles.
 * Every refusal is TILEC_E_ARG with one diagnostic, these exact messages:
 *   LOWER-O03 "XIR root axis order must be a complete permutation"
 *             (also for a rank above PLAN_MAX_RANK)
 *   LOWER-O05 "XIR root axis tiles must specify every original axis"
 *             (tiles_len != rank)
 *   LOWER-O06 "XIR root axis tiles must be positive divisors of the original extents"
 *   LOWER-O07 "XIR root domain volume must be between 1 and 4294967295"
 *             (the dispatch ordinal is u32) */
tilec_status plan_root_map_check(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                 const uint32_t *tiles, size_t tiles_len);

/* Validates (plan_root_map_check) and builds the canonical map. */
tilec_status plan_root_map_make(tilec_context *ctx, const tir_space *domain, const uint32_t *order, size_t order_len,
                                const uint32_t *tiles, size_t tiles_len, plan_root_map *out);

/* coords[axis] (rank entries) for dispatch ordinal j < volume. */
void plan_root_map_decode(const plan_root_map *map, uint64_t j, uint64_t *coords);

/* True when both maps enumerate the same coordinate sequence (equal rank and
 * canonical digits); the planner prices such candidates once. */
bool plan_root_map_same(const plan_root_map *a, const plan_root_map *b);

/* The integer operations the emitted decode performs per program (the
 * decode's cost prior): a division per digit with divisor > 1, a remainder
 * per digit that needs one, a multiplication per digit with scale > 1 and an
 * addition per digit after an axis's first. */
typedef struct {
    uint32_t div, mod, mul, add;
} plan_root_arithmetic;

plan_root_arithmetic plan_root_map_decode_arithmetic(const plan_root_map *map);

#endif
