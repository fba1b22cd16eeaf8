/* lib.c — library sugar.  Each helper expands to core TileIR ops only (constants,
 * maps, extracts, reduce regions, mma, select); nothing here is a new op kind,
 * so the verifier, printer and interpreter need no knowledge of it. */
#include "tir/builder.h"

#include <math.h>

static tir_value *fail(tir_builder *b, tilec_status status, const char *code, const char *message) {
    tir_builder_fail(b, status, code, "%s", message);
    return NULL;
}

static tir_literal zero_literal(tir_scalar s) {
    if (s == TIR_BOOL) return (tir_literal){TIR_LIT_BOOL, {.b = false}};
    if (tir_scalar_is_float(s)) return (tir_literal){TIR_LIT_FLOAT, {.f = 0.0}};
    return (tir_literal){TIR_LIT_INT, {.i = 0}};
}

tir_value *tir_lib_zeros(tir_builder *b, tir_scalar s, tir_space *space) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!space) return fail(b, TILEC_E_ARG, "TIR-L01", "zeros: missing space");
    return tir_const(b, tir_type_tile(b->module, s, space), zero_literal(s));
}

tir_value *tir_lib_full(tir_builder *b, tir_space *space, tir_value *scalar) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!space || !scalar || scalar->type->kind != TIR_TYPE_SCALAR)
        return fail(b, TILEC_E_TYPE, "TIR-L02", "full: needs a space and a scalar value");
    tir_op *map = tir_map_begin(b, space, scalar->type->elem);
    return map ? tir_map_end(b, map, scalar) : NULL;
}

tir_value *tir_lib_iota(tir_builder *b, tir_dim *d, uint64_t extent) {
    if (!b || b->status != TILEC_OK) return NULL;
    tir_space *space = d ? tir_space_make(b->module, 1, &d, &extent) : NULL;
    if (!space) return fail(b, TILEC_E_ARG, "TIR-L03", "iota: needs a dimension");
    tir_op *map = tir_map_begin(b, space, TIR_I64);
    return map ? tir_map_end(b, map, tir_region_coord(map, 0)) : NULL;
}

/* The coordinates of `tile` at the insertion point: each tile axis takes the
 * coordinate of its dim from the innermost open region that binds it. */
static bool tile_coords(tir_builder *b, tir_value *tile, tir_value **coords) {
    tir_space *s = tile->type->space;
    for (uint32_t i = 0; i < s->rank; i++)
        if (!(coords[i] = tir_index(b, s->axes[i].dim))) return false;
    return true;
}

enum { LIB_MAX_RANK = 64 };

/* The helpers below keep per-axis arrays of LIB_MAX_RANK entries. */
static bool rank_fits(tir_builder *b, const char *what, size_t rank) {
    if (rank <= LIB_MAX_RANK) return true;
    tir_builder_fail(b, TILEC_E_UNSUPPORTED, "TIR-L14", "%s: rank %zu exceeds the library limit %d", what, rank,
                     LIB_MAX_RANK);
    return false;
}

static tir_literal reducer_identity(tir_reducer r, tir_scalar s) {
    if (r == TIR_REDUCER_ADD) return zero_literal(s);
    bool max = r == TIR_REDUCER_MAX; /* max starts from the lowest value */
    if (tir_scalar_is_float(s)) return (tir_literal){TIR_LIT_FLOAT, {.f = max ? -INFINITY : INFINITY}};
    if (s == TIR_BOOL) return (tir_literal){TIR_LIT_BOOL, {.b = !max}};
    if (!tir_scalar_is_signed(s)) {
        uint64_t top = tir_scalar_size(s) == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * tir_scalar_size(s))) - 1;
        return max ? (tir_literal){TIR_LIT_UINT, {.u = 0}} : (tir_literal){TIR_LIT_UINT, {.u = top}};
    }
    int64_t hi = tir_scalar_size(s) == 8 ? INT64_MAX : (INT64_C(1) << (8 * tir_scalar_size(s) - 1)) - 1;
    return (tir_literal){TIR_LIT_INT, {.i = max ? -hi - 1 : hi}};
}

tir_value *tir_lib_reduce(tir_builder *b, tir_value *tile, size_t n_dims, tir_dim *const *dims, tir_reducer r,
                          tir_reduction_policy policy) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!tile || tile->type->kind != TIR_TYPE_TILE) return fail(b, TILEC_E_TYPE, "TIR-L04", "reduce: needs a tile");
    tir_space *s = tile->type->space;
    if (!rank_fits(b, "reduce", s->rank)) return NULL;
    if (n_dims == 0 || n_dims > s->rank) return fail(b, TILEC_E_SHAPE, "TIR-L05", "reduce: needs 1..rank dimensions");
    tir_dim *keep[LIB_MAX_RANK], *red[LIB_MAX_RANK];
    uint64_t keep_e[LIB_MAX_RANK], red_e[LIB_MAX_RANK];
    size_t n_keep = 0;
    for (size_t i = 0; i < n_dims; i++) {
        int axis = dims[i] ? tir_space_find(s, dims[i]) : -1;
        if (axis < 0) {
            tir_builder_fail(b, TILEC_E_SHAPE, "TIR-L06", "reduce: dimension '%s' is not an axis of the tile",
                             dims[i] ? dims[i]->label : "?");
            return NULL;
        }
        red[i] = dims[i];
        red_e[i] = s->axes[axis].extent;
    }
    for (uint32_t i = 0; i < s->rank; i++) {
        bool reduced = false;
        for (size_t j = 0; j < n_dims; j++) reduced |= dims[j] == s->axes[i].dim;
        if (!reduced) keep[n_keep] = s->axes[i].dim, keep_e[n_keep++] = s->axes[i].extent;
    }
    tir_space *keep_space = tir_space_make(b->module, n_keep, keep, keep_e);
    tir_space *red_space = tir_space_make(b->module, n_dims, red, red_e);
    if (!keep_space || !red_space) return fail(b, TILEC_E_SHAPE, "TIR-L05", "reduce: invalid dimensions");
    tir_scalar elem = tile->type->elem;
    if (elem == TIR_BOOL && r == TIR_REDUCER_ADD)
        return fail(b, TILEC_E_TYPE, "TIR-L07", "reduce: add is not defined for bool");
    tir_op *map = tir_map_begin(b, keep_space, elem);
    tir_value *seed = map ? tir_const(b, tir_type_scalar(b->module, elem), reducer_identity(r, elem)) : NULL;
    tir_region_opts opts = {.policy = policy};
    tir_op *loop = seed ? tir_region_begin(b, TIR_OP_REDUCE, red_space, &opts, 1, &seed) : NULL;
    tir_value *coords[LIB_MAX_RANK];
    if (!loop || !tile_coords(b, tile, coords)) return NULL;
    tir_value *e = tir_extract(b, tile, s->rank, coords);
    tir_value *state = tir_region_carry(loop, 0);
    tir_ew_op op = r == TIR_REDUCER_ADD ? TIR_EW_ADD : r == TIR_REDUCER_MAX ? TIR_EW_MAX : TIR_EW_MIN;
    if (elem == TIR_BOOL) op = r == TIR_REDUCER_MAX ? TIR_EW_OR : TIR_EW_AND;
    tir_value *next = policy == TIR_REDUCE_FOLD_RIGHT ? tir_ew2(b, op, e, state) : tir_ew2(b, op, state, e);
    if (!next || tir_region_end(b, loop, 1, &next) != TILEC_OK) return NULL;
    return tir_map_end(b, map, tir_op_result(loop, 0));
}

tir_value *tir_lib_relabel(tir_builder *b, tir_value *tile, tir_space *space) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!tile || tile->type->kind != TIR_TYPE_TILE || !space)
        return fail(b, TILEC_E_TYPE, "TIR-L08", "relabel: needs a tile and a space");
    tir_space *s = tile->type->space;
    if (!rank_fits(b, "relabel", s->rank)) return NULL;
    bool same = s->rank == space->rank;
    for (uint32_t i = 0; same && i < s->rank; i++) same = s->axes[i].extent == space->axes[i].extent;
    if (!same) return fail(b, TILEC_E_SHAPE, "TIR-L09", "relabel: the target space must have the same rank and extents");
    if (s == space) return tile;
    tir_op *map = tir_map_begin(b, space, tile->type->elem);
    if (!map) return NULL;
    tir_value *coords[LIB_MAX_RANK];
    for (uint32_t i = 0; i < s->rank; i++) coords[i] = tir_region_coord(map, i);
    return tir_map_end(b, map, tir_extract(b, tile, s->rank, coords));
}

tir_value *tir_lib_broadcast_to(tir_builder *b, tir_value *tile, tir_space *space) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!tile || tile->type->kind != TIR_TYPE_TILE || !space)
        return fail(b, TILEC_E_TYPE, "TIR-L10", "broadcast_to: needs a tile and a space");
    if (!tir_space_broadcasts_to(tile->type->space, space))
        return fail(b, TILEC_E_SHAPE, "TIR-L11",
                    "broadcast_to: every source dimension must be in the target with an equal or unit extent");
    if (tile->type->space == space) return tile;
    if (!rank_fits(b, "broadcast_to", tile->type->space->rank)) return NULL;
    tir_op *map = tir_map_begin(b, space, tile->type->elem);
    tir_value *coords[LIB_MAX_RANK];
    tir_space *s = tile->type->space;
    for (uint32_t i = 0; map && i < s->rank; i++) {
        int j = tir_space_find(space, s->axes[i].dim);
        coords[i] = s->axes[i].extent == 1 && space->axes[j].extent != 1 ? tir_const_index(b, 0)
                                                                        : tir_region_coord(map, (size_t)j);
    }
    return map ? tir_map_end(b, map, tir_extract(b, tile, s->rank, coords)) : NULL;
}

tir_value *tir_lib_permute(tir_builder *b, tir_value *tile, size_t n_dims, tir_dim *const *order) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!tile || tile->type->kind != TIR_TYPE_TILE || (n_dims && !order))
        return fail(b, TILEC_E_TYPE, "TIR-L15", "permute: needs a tile and its dims in the new order");
    tir_space *s = tile->type->space;
    if (!rank_fits(b, "permute", s->rank)) return NULL;
    bool perm = n_dims == s->rank;
    uint64_t ext[LIB_MAX_RANK];
    for (size_t i = 0; perm && i < n_dims; i++) {
        int j = tir_space_find(s, order[i]);
        for (size_t k = 0; perm && k < i; k++) perm = order[k] != order[i];
        perm = perm && j >= 0;
        if (perm) ext[i] = s->axes[j].extent;
    }
    if (!perm) return fail(b, TILEC_E_SHAPE, "TIR-L16", "permute: the order must name every dim of the tile exactly once");
    tir_space *to = tir_space_make(b->module, s->rank, order, ext);
    return to ? tir_lib_broadcast_to(b, tile, to) : fail(b, TILEC_E_NOMEM, "TIR-M01", "permute: out of memory");
}

tir_value *tir_lib_matmul(tir_builder *b, tir_value *a, tir_value *bm) {
    if (!b || b->status != TILEC_OK) return NULL;
    if (!a || !bm || a->type->kind != TIR_TYPE_TILE || bm->type->kind != TIR_TYPE_TILE)
        return fail(b, TILEC_E_TYPE, "TIR-L12", "matmul: needs two tiles");
    tir_space *sa = a->type->space, *sb = bm->type->space;
    if (!rank_fits(b, "matmul", (size_t)sa->rank + sb->rank)) return NULL;
    tir_dim *dims[LIB_MAX_RANK];
    uint64_t extents[LIB_MAX_RANK];
    size_t n = 0;
    bool shared = false;
    for (uint32_t i = 0; i < sa->rank; i++)
        if (tir_space_find(sb, sa->axes[i].dim) < 0) dims[n] = sa->axes[i].dim, extents[n++] = sa->axes[i].extent;
        else shared = true;
    for (uint32_t i = 0; i < sb->rank; i++)
        if (tir_space_find(sa, sb->axes[i].dim) < 0) dims[n] = sb->axes[i].dim, extents[n++] = sb->axes[i].extent;
    if (!shared && sa->rank == 2 && sb->rank == 2) {
        /* Positional (M,K)x(K,N): the result keeps a's rows and b's columns. */
        n = 0;
        dims[n] = sa->axes[0].dim, extents[n++] = sa->axes[0].extent;
        dims[n] = sb->axes[1].dim, extents[n++] = sb->axes[1].extent;
    }
    tir_space *result = tir_space_make(b->module, n, dims, extents);
    if (!result) return fail(b, TILEC_E_SHAPE, "TIR-L13", "matmul: operands have no valid result space");
    tir_value *c = tir_lib_zeros(b, a->type->elem, result);
    return c ? tir_mma(b, a, bm, c, true) : NULL;
}

tir_value *tir_lib_ite(tir_builder *b, tir_value *cond, tir_value *t, tir_value *f) {
    return tir_select(b, cond, t, f);
}
