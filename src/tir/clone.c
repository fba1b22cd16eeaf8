/* clone.c — copying TileIR ops with their regions into a function of
 * another module (clone.h), and tir_func_specialize, the copy of a kernel
 * with its runtime sizes set.  Values keep their names (the printer renames
 * clashes); ops get fresh ids in the target function. */
#include "tir/clone.h"
#include "tir/form.h"

#include <string.h>

bool tir_clone_map_init(tilec_context *ctx, const tir_func *src, tir_module *target, tir_clone_map *map) {
    memset(map, 0, sizeof *map);
    map->ctx = ctx;
    map->target = target;
    map->source = src->module;
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

/* TIR-M10 for a form the map cannot set: no sizes, or a value that
 * overflows (or, for an extent, is negative) at them. */
static bool unsized(tir_clone_map *map, const tir_form *f, const char *what) {
    strbuf text;
    strbuf_init(&text, map->ctx);
    tir_form_print(&text, f);
    const char *t = text.data ? text.data : "?";
    if (map->sizes)
        tilec_error(map->ctx, TILEC_E_SHAPE, "TIR-M10", tilec_no_loc(), "the %s %s is %s at these runtime sizes", what,
                    t, strcmp(what, "extent") ? "out of range" : "negative or out of range");
    else
        tilec_error(map->ctx, TILEC_E_UNSUPPORTED, "TIR-M10", tilec_no_loc(),
                    "the %s %s depends on a runtime size, and this copy sets none", what, t);
    strbuf_free(&text);
    return false;
}

/* f over the target function's symbols (map->forms_to); false on NOMEM
 * or overflow, which the source's own bounds rule out. */
static bool translated(tir_clone_map *map, const tir_form *f, tir_ival *out) {
    tir_form_status st = tir_form_translate(map->forms_to, f, out);
    if (st == TIR_FORM_NOMEM)
        tilec_error(map->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory copying a runtime size's form");
    return st == TIR_FORM_OK;
}

/* A symbolic extent at the map's sizes, or as the same form over the
 * target's symbols (a static one as is). */
static bool clone_extent(tir_clone_map *map, uint64_t extent, uint64_t *out) {
    const tir_form *f = tir_extent_form(map->source, extent);
    if (!f) return *out = extent, true;
    if (map->sizes && tir_extent_eval(map->source, extent, map->sizes, out) && *out < TIR_EXTENT_SYMBOLIC) return true;
    tir_ival v;
    if (!map->sizes && map->forms_to)
        return translated(map, f, &v) && (*out = v.form ? tir_form_extent(v.form) : (uint64_t)v.c, true);
    return unsized(map, f, "extent");
}

tir_space *tir_clone_space(tir_clone_map *map, const tir_space *s) {
    tir_dim *dims[64];
    uint64_t extents[64];
    if (s->rank > 64) return NULL; /* the verifier's limit */
    for (uint32_t i = 0; i < s->rank; i++) {
        if (!(dims[i] = tir_clone_dim(map, s->axes[i].dim)) || !clone_extent(map, s->axes[i].extent, &extents[i]))
            return NULL;
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
    if (op->form && !map->sizes && map->forms_to) {
        tir_ival v;
        if (!translated(map, op->form, &v)) return NULL;
        c->form = v.form;
        c->literal.as.i = v.c;
    } else if (op->form) {
        if (!map->sizes || !tir_form_eval(op->form, map->sizes, &c->literal.as.i)) {
            unsized(map, op->form, "index constant");
            return NULL;
        }
        c->literal.kind = TIR_LIT_INT;
    }
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

/* ---- specialization ---- */

static tir_module *specialize_fail(tir_module *m) {
    tir_module_destroy(m);
    return NULL;
}

tir_module *tir_func_specialize(const tir_func *f, size_t n, const int64_t *dims) {
    tilec_context *ctx = f->module->ctx;
    if (n != f->sym_count || (n && !dims)) {
        tilec_error(ctx, TILEC_E_ARG, "TIR-M09", f->loc, "kernel '@%s' has %u runtime sizes; %zu were given", f->name,
                    f->sym_count, n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (dims[i] < f->syms[i]->lo || dims[i] > f->syms[i]->hi) {
            tilec_error(ctx, TILEC_E_ARG, "TIR-M09", f->loc, "runtime size %s=%lld of '@%s' is outside its range %lld..%lld",
                        f->syms[i]->name, (long long)dims[i], f->name, (long long)f->syms[i]->lo,
                        (long long)f->syms[i]->hi);
            return NULL;
        }
    size_t diags = tilec_diag_count(ctx);
    tir_module *m = tir_module_create(ctx);
    tir_func *g = m ? tir_func_new(m, f->name) : NULL;
    if (!g) return specialize_fail(m);
    g->loc = f->loc;
    tir_clone_map map;
    if (!tir_clone_map_init(ctx, f, m, &map)) return specialize_fail(m);
    map.sizes = dims;
    bool ok = true;
    if (f->shape_param_count) {
        ok = (g->shape_params = ARENA_ARRAY(&m->arena, tir_shape_param, f->shape_param_count)) != NULL;
        for (uint32_t i = 0; ok && i < f->shape_param_count; i++) {
            const tir_shape_param *p = &f->shape_params[i];
            int64_t v = p->value;
            ok = (!p->form || tir_form_eval(p->form, dims, &v)) &&
                 (g->shape_params[i].name = arena_strdup(&m->arena, p->name)) != NULL;
            g->shape_params[i].value = v;
            g->shape_params[i].choices = NULL; /* specialized: chosen already */
            g->shape_params[i].choice_count = 0;
        }
        g->shape_param_count = f->shape_param_count;
    }
    for (uint32_t i = 0; ok && i < f->body->arg_count; i++) {
        const tir_value *p = f->body->args[i];
        tir_type *t = tir_clone_type(&map, p->type);
        tir_value *q = t ? tir_func_add_param(g, p->name, t, p->read_only) : NULL;
        ok = q != NULL;
        if (ok) tir_clone_map_set(&map, p, q);
    }
    for (const tir_op *o = f->body->first; ok && o; o = o->next) {
        tir_op *c = tir_clone_op(g, o, &map);
        if ((ok = c != NULL)) tir_op_insert_end(c, g->body);
    }
    tir_clone_map_free(&map);
    if (!ok && tilec_diag_count(ctx) == diags)
        tilec_error(ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory specializing '@%s'", f->name);
    return ok ? m : specialize_fail(m);
}
