/* clone.h — copying TileIR ops, with their regions, into a function of
 * another module.
 *
 * A rewrite that builds new kernels from parts of an existing one (the
 * split reductions of rewrite/split.h) copies ops into a fresh module, leaving
 * the user's module untouched.  Dims, spaces and types are interned per
 * module, so the map sends each source dim (by id) to a target dim of the
 * same label, made on first use, and each source value (by id, within its
 * source function) to its counterpart in the target.  The caller seeds the
 * value map with what the copied ops read from outside (kernel parameters,
 * coordinates, values it computed itself).  Copies keep their locations, so
 * diagnostics about them point into the user's source. */
#ifndef TILEC_TIR_CLONE_H
#define TILEC_TIR_CLONE_H

#include "tir/ir.h"

typedef struct {
    tilec_context *ctx;
    tir_module *target;
    tir_value **values; /* [value_count], by source value id; NULL: unmapped */
    uint32_t value_count;
    tir_dim **dims;     /* [dim_count], by source dim id; NULL: not made yet */
    uint32_t dim_count;
    /* The source's runtime sizes, one value per symbol (tir/form.h): set,
     * every symbolic extent and index constant is copied as its value.
     * Else, with `forms_to` set (a target function declaring the source's
     * symbols in the same order), each is copied as the same form over
     * that function's symbols; with neither, copying one is refused
     * (TIR-M10). */
    const tir_module *source;
    const int64_t *sizes;
    const tir_func *forms_to;
} tir_clone_map;

/* An empty map from the values of `src` (and the dims of its module) into
 * `target`; false on NOMEM. */
bool tir_clone_map_init(tilec_context *ctx, const tir_func *src, tir_module *target, tir_clone_map *map);
void tir_clone_map_free(tir_clone_map *map);
static inline void tir_clone_map_set(tir_clone_map *map, const tir_value *from, tir_value *to) {
    map->values[from->id] = to;
}
static inline tir_value *tir_clone_map_get(const tir_clone_map *map, const tir_value *from) {
    return from->id < map->value_count ? map->values[from->id] : NULL;
}

/* The target's counterparts of a source dim, space and type (NULL on NOMEM). */
tir_dim *tir_clone_dim(tir_clone_map *map, const tir_dim *d);
tir_space *tir_clone_space(tir_clone_map *map, const tir_space *s);
tir_type *tir_clone_type(tir_clone_map *map, const tir_type *t);

/* A detached copy of `op` in `f` (a function of the map's target), with its
 * body and combine block; every operand read (at any depth) from outside
 * `op` must be mapped.  Records every value op defines in the map.  NULL on
 * NOMEM or an unmapped operand (a caller bug). */
tir_op *tir_clone_op(tir_func *f, const tir_op *op, tir_clone_map *map);

#endif
