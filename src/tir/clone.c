/* clone.c — copying TileIR ops with their regions into a function of
 * another module (clone.h).  Values keep their names (the printer renames
 * clashes); ops get fresh ids in the target function. */
#include "tir/clone.h"

#include <string.h>

bool tir_clone_map_init(tilec_context *ctx, const tir_func *src, tir_module *target, tir_clone_map *map) {
    memset(map, 0, sizeof *map);
    map->ctx = ctx;
    map->target = target;
    map->value_count = src->next_value_id;
    map->dim_count = src->module->dim_count;
    map->values = tilec_alloc(ctx, (map->value_count + 1) * sizeof *map->values);
    map->dims = tilec_alloc(ctx, (map->dim_count + 1) * sizeof *map->dims);
    if (!map->values || !map->dims) {
        tir_clone_map_free(map);
        return false;
    }
    memset(map->values, 0, (map->value_count + 1) * sizeof *map->values);
    memset(map->dims, 0, (map->dim_count + 1) * sizeof *map->dims);
    return true;
}

void tir_clone_map_free(tir_clone_map *map) {
    tilec_free(map->ctx, map->values);
    tilec_free(map->ctx, map->dims);
    map->values = NULL;
    map->dims = NULL;
}

tir_dim *tir_clone_dim(tir_clone_map *map, const tir_dim *d) {
    if (d->id > map->dim_count) return NULL; /* ids count from 1 */
    if (!map->dims[d->id]) map->dims[d->id] = tir_dim_new(map->target, d->label);
    return map->dims[d->id];
}

tir_space *tir_clone_space(tir_clone_map *map, const tir_space *s) {
    tir_dim *dims[64];
    uint64_t extents[64];
    if (s->rank > 64) return NULL; /* the verifier's limit */
    for (uint32_t i = 0; i < s->rank; i++) {
        if (!(dims[i] = tir_clone_dim(map, s->axes[i].dim))) return NULL;
        extents[i] = s->axes[i].extent;
    }
    return tir_space_make(map->target, s->rank, dims, extents);
}

tir_type *tir_clone_type(tir_clone_map *map, const tir_type *t) {
    tir_space *s = NULL;
    if (t->space && !(s = tir_clone_space(map, t->space))) return NULL;
    switch (t->kind) {
    case TIR_TYPE_INDEX: return tir_type_index(map->target);
    case TIR_TYPE_SCALAR: return tir_type_scalar(map->target, t->elem);
    case TIR_TYPE_TILE: return tir_type_tile(map->target, t->elem, s);
    case TIR_TYPE_VIEW: return tir_type_view(map->target, t->elem, s);
    default: return NULL;
    }
}

static bool copy_name(tir_module *m, tir_value *to, const tir_value *from) {
    return tir_value_set_name(m, to, from->name);
}

static tir_block *clone_block(tir_func *f, tir_op *owner, const tir_block *src, tir_clone_map *map) {
    tir_block *b = tir_block_new(f, owner);
    if (!b) return NULL;
    for (uint32_t i = 0; i < src->arg_count; i++) {
        tir_type *t = tir_clone_type(map, src->args[i]->type);
        tir_value *a = t ? tir_block_add_arg(b, t) : NULL;
        if (!a || !copy_name(f->module, a, src->args[i])) return NULL;
        tir_clone_map_set(map, src->args[i], a);
    }
    for (const tir_op *o = src->first; o; o = o->next) {
        tir_op *c = tir_clone_op(f, o, map);
        if (!c) return NULL;
        tir_op_insert_end(c, b);
    }
    return b;
}

tir_op *tir_clone_op(tir_func *f, const tir_op *op, tir_clone_map *map) {
    tir_op *c = tir_op_new(f, op->kind, op->loc);
    if (!c) return NULL;
    c->ew = op->ew;
    c->bounds = op->bounds;
    c->has_fill = op->has_fill;
    c->masked = op->masked;
    c->policy = op->policy;
    c->allow_reassociation = op->allow_reassociation;
    c->stages = op->stages;
    c->initiation_interval = op->initiation_interval;
    c->scope = op->scope;
    c->literal = op->literal;
    if (op->domain && !(c->domain = tir_clone_space(map, op->domain))) return NULL;
    if (op->strides) {
        if (!(c->strides = ARENA_ARRAY(&f->module->arena, uint64_t, op->domain->rank))) return NULL;
        memcpy(c->strides, op->strides, sizeof *c->strides * op->domain->rank);
    }
    if (op->stage_name && !(c->stage_name = arena_strdup(&f->module->arena, op->stage_name))) return NULL;
    for (uint32_t i = 0; i < op->operand_count; i++) {
        tir_value *v = tir_clone_map_get(map, op->operands[i]->value);
        if (!v || !tir_op_add_operand(c, v)) return NULL;
    }
    if (op->body && !(c->body = clone_block(f, c, op->body, map))) return NULL;
    if (op->combine && !(c->combine = clone_block(f, c, op->combine, map))) return NULL;
    for (uint32_t i = 0; i < op->result_count; i++) {
        tir_type *t = tir_clone_type(map, op->results[i]->type);
        tir_value *r = t ? tir_op_add_result(c, t) : NULL;
        if (!r || !copy_name(f->module, r, op->results[i])) return NULL;
        tir_clone_map_set(map, op->results[i], r);
    }
    return c;
}
