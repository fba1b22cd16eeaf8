/* builder.c — the explicit SSA builder.  Every constructor checks its typing
 * rule (the same rules tir_verify checks afterwards) and records a sticky,
 * located diagnostic on failure; a failed call returns NULL / an error. */
#include "tir/builder.h"
#include "tir/typing.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CHECK_LIVE(b, ret) \
    do { \
        if (!(b) || (b)->status != TILEC_OK) return ret; \
    } while (0)

void tir_builder_fail(tir_builder *b, tilec_status status, const char *code, const char *fmt, ...) {
    if (b->status != TILEC_OK) return;
    b->status = status;
    va_list ap;
    va_start(ap, fmt);
    tilec_verror(b->module->ctx, status, code, b->loc, fmt, ap);
    va_end(ap);
}

static void *fail_oom(tir_builder *b) {
    tir_builder_fail(b, TILEC_E_NOMEM, "TIR-M01", "out of memory building TileIR");
    return NULL;
}


tir_builder *tir_builder_create(tir_func *f) {
    tir_module *m = f->module;
    tir_builder *b = tilec_alloc(m->ctx, sizeof *b);
    if (!b) {
        tilec_error(m->ctx, TILEC_E_NOMEM, "TIR-M01", tilec_no_loc(), "out of memory creating a builder");
        return NULL;
    }
    b->module = m;
    b->func = f;
    b->loc = f->loc;
    if (!tir_builder_push_frame(b, NULL, false)) {
        tir_builder_destroy(b);
        return NULL;
    }
    return b;
}

void tir_builder_destroy(tir_builder *b) {
    if (!b) return;
    tilec_context *ctx = b->module->ctx;
    for (size_t i = 0; i < b->vars.len; i++) tilec_free(ctx, b->vars.data[i]);
    VEC_FREE(ctx, &b->vars);
    VEC_FREE(ctx, &b->slots);
    VEC_FREE(ctx, &b->frames);
    tilec_free(ctx, b);
}

tilec_status tir_builder_status(const tir_builder *b) { return b ? b->status : TILEC_E_ARG; }
tir_module *tir_builder_module(const tir_builder *b) { return b->module; }
void tir_builder_set_loc(tir_builder *b, tilec_loc loc) { b->loc = loc; }
tir_frame *tir_builder_top(tir_builder *b) { return &VEC_LAST(&b->frames); }

void tir_builder_emit(tir_builder *b, tir_op *op) { tir_op_insert_end(op, tir_builder_top(b)->block); }

bool tir_builder_visible(tir_builder *b, const tir_value *v) {
    const tir_block *home = v->def_op ? v->def_op->parent : v->def_block;
    if (!home || home->func != b->func) return false;
    for (size_t i = b->frames.len; i-- > 0;) {
        if (b->frames.data[i].block == home) return true;
        if (tir_frame_is_combine(&b->frames.data[i])) return false; /* the wall */
    }
    return false;
}

tir_op *tir_builder_combine(const tir_builder *b) {
    for (size_t i = b->frames.len; i-- > 1;)
        if (tir_frame_is_combine(&b->frames.data[i])) return b->frames.data[i].op;
    return NULL;
}

static const char *value_label(const tir_value *v) { return v->name ? v->name : "value"; }

/* Checks that every operand exists and is visible at the insertion point. */
static bool check_operands(tir_builder *b, const char *what, size_t n, tir_value *const *vs) {
    for (size_t i = 0; i < n; i++) {
        if (!vs[i]) {
            tir_builder_fail(b, TILEC_E_ARG, "TIR-B05", "%s: operand %zu is missing", what, i);
            return false;
        }
        if (!tir_builder_visible(b, vs[i])) {
            tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B06", "%s: operand %zu ('%%%s') is not visible here (%s)", what, i,
                             value_label(vs[i]),
                             tir_builder_combine(b) ? "a combine block sees only its own values"
                                                    : "defined in a closed region or another kernel");
            return false;
        }
    }
    return true;
}

static tir_op *new_op(tir_builder *b, tir_op_kind kind, size_t n, tir_value *const *operands) {
    tir_op *op = tir_op_new(b->func, kind, b->loc);
    if (!op) return fail_oom(b);
    for (size_t i = 0; i < n; i++)
        if (!tir_op_add_operand(op, operands[i])) return fail_oom(b);
    return op;
}

static tir_value *add_result(tir_builder *b, tir_op *op, tir_type *type) {
    tir_value *v = type ? tir_op_add_result(op, type) : NULL;
    if (!v) return fail_oom(b);
    return v;
}

/* ---- constants ---- */

tir_value *tir_const(tir_builder *b, tir_type *type, tir_literal lit) {
    CHECK_LIVE(b, NULL);
    if (!type || type->kind == TIR_TYPE_VIEW) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B07", "a constant must be an index, scalar or tile");
        return NULL;
    }
    tir_scalar s = tir_type_elem(type);
    if ((unsigned)lit.kind > TIR_LIT_FLOAT) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B08", "constant of type %s has a literal of unknown kind %d",
                         tir_scalar_name(s), (int)lit.kind);
        return NULL;
    }
    bool is_bool = lit.kind == TIR_LIT_BOOL;
    if (is_bool != (s == TIR_BOOL)) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B08", "constant of type %s needs a %s literal", tir_scalar_name(s),
                         s == TIR_BOOL ? "boolean" : "numeric");
        return NULL;
    }
    if (lit.kind == TIR_LIT_FLOAT && !tir_scalar_is_float(s)) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B08", "integer constant of type %s cannot take a fractional literal",
                         tir_scalar_name(s));
        return NULL;
    }
    tir_op *op = new_op(b, TIR_OP_CONSTANT, 0, NULL);
    if (!op) return NULL;
    op->literal = lit;
    if (type->kind == TIR_TYPE_TILE) op->domain = type->space;
    tir_value *v = add_result(b, op, type);
    if (v) tir_builder_emit(b, op);
    return v;
}

tir_value *tir_const_index(tir_builder *b, int64_t v) {
    CHECK_LIVE(b, NULL);
    return tir_const(b, tir_type_index(b->module), (tir_literal){TIR_LIT_INT, {.i = v}});
}

tir_value *tir_const_index_ival(tir_builder *b, const tir_form *form, int64_t c) {
    tir_value *v = tir_const_index(b, c);
    if (v) v->def_op->form = form;
    return v;
}

tir_value *tir_const_int(tir_builder *b, tir_scalar s, int64_t v) {
    CHECK_LIVE(b, NULL);
    return tir_const(b, tir_type_scalar(b->module, s), (tir_literal){TIR_LIT_INT, {.i = v}});
}

tir_value *tir_const_float(tir_builder *b, tir_scalar s, double v) {
    CHECK_LIVE(b, NULL);
    return tir_const(b, tir_type_scalar(b->module, s), (tir_literal){TIR_LIT_FLOAT, {.f = v}});
}

tir_value *tir_const_bool(tir_builder *b, bool v) {
    CHECK_LIVE(b, NULL);
    return tir_const(b, tir_type_scalar(b->module, TIR_BOOL), (tir_literal){TIR_LIT_BOOL, {.b = v}});
}

/* ---- elementwise ---- */

static bool operand_kind_ok(tir_builder *b, tir_ew_op op, size_t i, const tir_value *v) {
    if (tir_type_is_ew_operand(v->type)) return true;
    tir_builder_fail(b, TILEC_E_TYPE, "TIR-B09", "'%s': operand %zu must be an index, scalar or tile, not a view",
                     tir_ew_name(op), i);
    return false;
}

/* The result type of a lifted op typed by `t` (see tir_ew_result_kind). */
static tir_type *lifted_type(tir_builder *b, tir_ew_op op, const tir_ew_typing *t) {
    switch (tir_ew_result_kind(t)) {
    case TIR_TYPE_TILE: {
        tir_space *joined = tir_space_join(b->module, t->n_spaces, t->spaces);
        if (!joined) {
            /* tir_space_join already reported the conflict or the allocation failure. */
            const tilec_diag *cause = tilec_diag_at(b->module->ctx, tilec_diag_count(b->module->ctx) - 1);
            b->status = cause ? cause->status : TILEC_E_SHAPE;
            if (b->status != TILEC_E_SHAPE) return NULL;
            tilec_error(b->module->ctx, TILEC_E_SHAPE, "TIR-B10", b->loc, "'%s': operand shapes do not join",
                        tir_ew_name(op));
            return NULL;
        }
        return tir_type_tile(b->module, t->result, joined);
    }
    case TIR_TYPE_INDEX: return tir_type_index(b->module);
    default: return tir_type_scalar(b->module, t->result);
    }
}

tir_value *tir_ew(tir_builder *b, tir_ew_op op, size_t n, tir_value *const *operands) {
    CHECK_LIVE(b, NULL);
    if (op <= TIR_EW_INVALID || op >= TIR_EW_COUNT) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B11", "invalid elementwise opcode %d", (int)op);
        return NULL;
    }
    if (op == TIR_EW_CAST) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B11", "'cast' needs a target type: use tir_cast");
        return NULL;
    }
    const char *name = tir_ew_name(op);
    if (n != tir_ew_arity(op)) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B12", "'%s' takes %u operands, got %zu", name, tir_ew_arity(op), n);
        return NULL;
    }
    if (!check_operands(b, name, n, operands)) return NULL;
    tir_ew_typing t;
    tir_ew_type(op, operands, &t);
    switch (t.status) {
    case TIR_EW_TYPING_OK: break;
    case TIR_EW_TYPING_OPERAND_KIND: operand_kind_ok(b, op, t.operand, operands[t.operand]); return NULL;
    case TIR_EW_TYPING_ELEM_DIFFER:
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B13", "'%s': operand element types differ (%s and %s)", name,
                         tir_scalar_name(t.elem), tir_scalar_name(tir_value_elem(operands[t.operand])));
        return NULL;
    case TIR_EW_TYPING_CONDITION:
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B14", "'select': the condition must be bool, not %s",
                         tir_scalar_name(t.elem));
        return NULL;
    case TIR_EW_TYPING_ELEM_CLASS:
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B15", "'%s' is not defined for element type %s%s", name,
                         tir_scalar_name(t.elem), tir_scalar_is_half(t.elem) ? HALF_HINT : "");
        return NULL;
    }
    tir_type *type = lifted_type(b, op, &t);
    if (!type) return NULL;
    tir_op *o = new_op(b, TIR_OP_ELEMENTWISE, n, operands);
    if (!o) return NULL;
    o->ew = op;
    tir_value *v = add_result(b, o, type);
    if (v) tir_builder_emit(b, o);
    return v;
}

tir_value *tir_ew1(tir_builder *b, tir_ew_op op, tir_value *x) { return tir_ew(b, op, 1, &x); }

tir_value *tir_ew2(tir_builder *b, tir_ew_op op, tir_value *x, tir_value *y) {
    tir_value *operands[2] = {x, y};
    return tir_ew(b, op, 2, operands);
}

tir_value *tir_cast(tir_builder *b, tir_value *v, tir_scalar to) {
    CHECK_LIVE(b, NULL);
    if (!check_operands(b, "cast", 1, &v) || !operand_kind_ok(b, TIR_EW_CAST, 0, v)) return NULL;
    tir_type *type = v->type->kind == TIR_TYPE_TILE ? tir_type_tile(b->module, to, v->type->space)
                                                     : tir_type_scalar(b->module, to);
    if (!type) {
        b->status = TILEC_E_TYPE;
        return NULL;
    }
    tir_op *o = new_op(b, TIR_OP_ELEMENTWISE, 1, &v);
    if (!o) return NULL;
    o->ew = TIR_EW_CAST;
    tir_value *r = add_result(b, o, type);
    if (r) tir_builder_emit(b, o);
    return r;
}

tir_value *tir_select(tir_builder *b, tir_value *cond, tir_value *t, tir_value *f) {
    tir_value *operands[3] = {cond, t, f};
    return tir_ew(b, TIR_EW_SELECT, 3, operands);
}

/* ---- extract, mma ---- */

static bool check_indices(tir_builder *b, const char *what, size_t n, tir_value *const *idx) {
    if (!check_operands(b, what, n, idx)) return false;
    for (size_t i = 0; i < n; i++)
        if (!tir_type_is_integer_scalar(idx[i]->type)) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B16", "%s: index %zu must be an index or integer scalar", what, i);
            return false;
        }
    return true;
}

tir_value *tir_extract(tir_builder *b, tir_value *tile, size_t n, tir_value *const *indices) {
    CHECK_LIVE(b, NULL);
    if (!check_operands(b, "extract", 1, &tile)) return NULL;
    if (tile->type->kind != TIR_TYPE_TILE) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B17", "extract: '%%%s' is not a tile", value_label(tile));
        return NULL;
    }
    if (n != tile->type->space->rank) {
        tir_builder_fail(b, TILEC_E_SHAPE, "TIR-B18", "extract: tile '%%%s' has rank %u but %zu indices were given",
                         value_label(tile), tile->type->space->rank, n);
        return NULL;
    }
    if (!check_indices(b, "extract", n, indices)) return NULL;
    tir_op *o = new_op(b, TIR_OP_EXTRACT, 1, &tile);
    if (!o) return NULL;
    for (size_t i = 0; i < n; i++)
        if (!tir_op_add_operand(o, indices[i])) return fail_oom(b);
    tir_value *v = add_result(b, o, tir_type_scalar(b->module, tile->type->elem));
    if (v) tir_builder_emit(b, o);
    return v;
}

tir_value *tir_mma(tir_builder *b, tir_value *a, tir_value *bm, tir_value *c, bool allow_reassociation) {
    CHECK_LIVE(b, NULL);
    tir_value *operands[3] = {a, bm, c};
    if (!check_operands(b, "mma", 3, operands)) return NULL;
    for (int i = 0; i < 3; i++)
        if (!tir_type_is_mma_operand(operands[i]->type)) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B19", "mma: operand %d must be a numeric tile", i);
            return NULL;
        }
    if (tir_scalar_is_half(c->type->elem)) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B19", "mma: the accumulator is %s%s", tir_scalar_name(c->type->elem),
                         HALF_HINT);
        return NULL;
    }
    char why[256];
    tir_space *sa = a->type->space, *sb = bm->type->space, *sc = c->type->space;
    const char *error = tir_mma_dims_error(sa, sb, sc, why, sizeof why);
    if (error && sa->rank == 2 && sb->rank == 2 && sc->rank == 2 && sa->axes[0].extent == sc->axes[0].extent &&
        sa->axes[1].extent == sb->axes[0].extent && sb->axes[1].extent == sc->axes[1].extent) {
        /* Positional fallback: relabel a -> (c0, k'), b -> (k', c1). */
        tir_dim *k = tir_dim_new(b->module, "k");
        if (!k) return fail_oom(b);
        tir_dim *da[2] = {sc->axes[0].dim, k}, *db[2] = {k, sc->axes[1].dim};
        uint64_t ea[2] = {sa->axes[0].extent, sa->axes[1].extent}, eb[2] = {sb->axes[0].extent, sb->axes[1].extent};
        tir_space *ra = tir_space_make(b->module, 2, da, ea), *rb = tir_space_make(b->module, 2, db, eb);
        if (!ra || !rb) return fail_oom(b);
        a = tir_lib_relabel(b, a, ra);
        bm = tir_lib_relabel(b, bm, rb);
        if (!a || !bm) return NULL;
        error = NULL;
    }
    if (error) {
        tir_builder_fail(b, TILEC_E_SHAPE, "TIR-B20", "mma: %s", error);
        return NULL;
    }
    operands[0] = a;
    operands[1] = bm;
    tir_op *o = new_op(b, TIR_OP_MMA, 3, operands);
    if (!o) return NULL;
    o->allow_reassociation = allow_reassociation;
    tir_value *v = add_result(b, o, c->type);
    if (v) tir_builder_emit(b, o);
    return v;
}

/* ---- memory access ---- */

static bool inside_map(tir_builder *b) {
    for (size_t i = b->frames.len; i-- > 1;)
        if (b->frames.data[i].op->kind == TIR_OP_MAP) return true;
    return false;
}

static bool check_view_access(tir_builder *b, const char *what, tir_value *view, size_t n_idx,
                              tir_value *const *idx, bool store) {
    /* Before the operands: the view is never visible there, and this says why. */
    if (tir_builder_combine(b)) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B49", "%s: memory effects are not allowed inside a combine block",
                         what);
        return false;
    }
    if (!check_operands(b, what, 1, &view)) return false;
    if (view->type->kind != TIR_TYPE_VIEW) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B21", "%s: '%%%s' is not a view", what, value_label(view));
        return false;
    }
    if (inside_map(b)) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B22", "%s: memory effects are not allowed inside a map", what);
        return false;
    }
    if (store && view->read_only) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B23", "%s: view '%%%s' is const", what, value_label(view));
        return false;
    }
    (void)n_idx;
    return check_indices(b, what, view->type->space->rank, idx);
}

static tir_op *view_op(tir_builder *b, tir_op_kind kind, tir_value *view, tir_value *const *idx) {
    tir_op *o = new_op(b, kind, 1, &view);
    if (!o) return NULL;
    for (uint32_t i = 0; i < view->type->space->rank; i++)
        if (!tir_op_add_operand(o, idx[i])) return fail_oom(b);
    return o;
}

static bool check_subtile(tir_builder *b, const char *what, tir_value *view, tir_space *space) {
    if (!space) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B24", "%s: missing tile space", what);
        return false;
    }
    if (space->rank != view->type->space->rank) {
        tir_builder_fail(b, TILEC_E_SHAPE, "TIR-B25", "%s: tile rank %u differs from view '%%%s' rank %u", what,
                         space->rank, value_label(view), view->type->space->rank);
        return false;
    }
    return true;
}

/* Sets a subtile op's strides: NULL or all 1 stays contiguous (NULL); each
 * must be valid (tir_stride_valid). */
static bool set_strides(tir_builder *b, const char *what, tir_op *o, const uint64_t *strides) {
    bool contiguous = true;
    for (uint32_t a = 0; strides && a < o->domain->rank; a++) {
        if (!tir_stride_valid(o->domain->axes[a].extent, strides[a])) {
            tir_builder_fail(b, TILEC_E_SHAPE, "TIR-B51",
                             "%s: stride %llu along tile axis %u %s", what, (unsigned long long)strides[a], a,
                             strides[a] == 0 ? "must be at least 1" : "makes the tile span past 2^63 elements");
            return false;
        }
        contiguous = contiguous && strides[a] == 1;
    }
    if (contiguous) return true;
    if (!(o->strides = arena_alloc(&b->module->arena, sizeof *o->strides * o->domain->rank))) return fail_oom(b), false;
    memcpy(o->strides, strides, sizeof *o->strides * o->domain->rank);
    return true;
}

tir_value *tir_load_tile_strided(tir_builder *b, tir_value *view, tir_value *const *origin, tir_space *space,
                                 const uint64_t *strides, tir_bounds bounds, tir_value *fill) {
    CHECK_LIVE(b, NULL);
    if (!check_view_access(b, "load", view, 0, origin, false) || !check_subtile(b, "load", view, space)) return NULL;
    if (fill) {
        if (!check_operands(b, "load fill", 1, &fill)) return NULL;
        if (fill->type->kind != TIR_TYPE_SCALAR || fill->type->elem != view->type->elem) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B26", "load: the fill must be a %s scalar",
                             tir_scalar_name(view->type->elem));
            return NULL;
        }
    }
    tir_op *o = view_op(b, TIR_OP_VIEW_LOAD, view, origin);
    if (!o || (fill && !tir_op_add_operand(o, fill))) return o ? fail_oom(b) : NULL;
    o->domain = space;
    o->bounds = bounds;
    o->has_fill = fill != NULL;
    if (!set_strides(b, "load", o, strides)) return NULL;
    tir_value *v = add_result(b, o, tir_type_tile(b->module, view->type->elem, space));
    if (v) tir_builder_emit(b, o);
    return v;
}

tir_value *tir_load_tile(tir_builder *b, tir_value *view, tir_value *const *origin, tir_space *space,
                         tir_bounds bounds, tir_value *fill) {
    return tir_load_tile_strided(b, view, origin, space, NULL, bounds, fill);
}

tilec_status tir_store_tile_strided(tir_builder *b, tir_value *view, tir_value *const *origin, tir_value *tile,
                                    const uint64_t *strides, tir_bounds bounds) {
    CHECK_LIVE(b, b ? b->status : TILEC_E_ARG);
    if (!check_view_access(b, "store", view, 0, origin, true) || !check_operands(b, "store", 1, &tile))
        return b->status;
    if (tile->type->kind != TIR_TYPE_TILE || tile->type->elem != view->type->elem) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B27", "store: the value must be a tile of %s",
                         tir_scalar_name(view->type->elem));
        return b->status;
    }
    if (!check_subtile(b, "store", view, tile->type->space)) return b->status;
    tir_op *o = view_op(b, TIR_OP_VIEW_STORE, view, origin);
    if (!o || !tir_op_add_operand(o, tile)) return o ? (fail_oom(b), b->status) : b->status;
    o->domain = tile->type->space;
    o->bounds = bounds;
    if (!set_strides(b, "store", o, strides)) return b->status;
    tir_builder_emit(b, o);
    return TILEC_OK;
}

tilec_status tir_store_tile(tir_builder *b, tir_value *view, tir_value *const *origin, tir_value *tile,
                            tir_bounds bounds) {
    return tir_store_tile_strided(b, view, origin, tile, NULL, bounds);
}

tir_value *tir_load_elem(tir_builder *b, tir_value *view, tir_value *const *indices, tir_value *pred,
                         tir_value *fallback) {
    CHECK_LIVE(b, NULL);
    if (!check_view_access(b, "load", view, 0, indices, false)) return NULL;
    if ((pred == NULL) != (fallback == NULL)) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B28", "load: a masked load needs both a predicate and a fallback");
        return NULL;
    }
    if (pred) {
        tir_value *pf[2] = {pred, fallback};
        if (!check_operands(b, "masked load", 2, pf)) return NULL;
        if (pred->type->kind != TIR_TYPE_SCALAR || pred->type->elem != TIR_BOOL ||
            fallback->type->kind != TIR_TYPE_SCALAR || fallback->type->elem != view->type->elem) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B29",
                             "load: the mask must be a bool scalar and the fallback a %s scalar",
                             tir_scalar_name(view->type->elem));
            return NULL;
        }
    }
    tir_op *o = view_op(b, TIR_OP_VIEW_LOAD, view, indices);
    if (!o) return NULL;
    if (pred && (!tir_op_add_operand(o, pred) || !tir_op_add_operand(o, fallback))) return fail_oom(b);
    o->masked = pred != NULL;
    tir_value *v = add_result(b, o, tir_type_scalar(b->module, view->type->elem));
    if (v) tir_builder_emit(b, o);
    return v;
}

tilec_status tir_store_elem(tir_builder *b, tir_value *view, tir_value *const *indices, tir_value *v) {
    CHECK_LIVE(b, b ? b->status : TILEC_E_ARG);
    if (!check_view_access(b, "store", view, 0, indices, true) || !check_operands(b, "store", 1, &v))
        return b->status;
    if (v->type->kind != TIR_TYPE_SCALAR || v->type->elem != view->type->elem) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B27", "store: the value must be a %s scalar",
                         tir_scalar_name(view->type->elem));
        return b->status;
    }
    tir_op *o = view_op(b, TIR_OP_VIEW_STORE, view, indices);
    if (!o || !tir_op_add_operand(o, v)) return o ? (fail_oom(b), b->status) : b->status;
    tir_builder_emit(b, o);
    return TILEC_OK;
}

/* ---- regions ---- */

static bool check_domain(tir_builder *b, const char *what, tir_space *domain) {
    if (!domain || domain->rank == 0) {
        tir_builder_fail(b, TILEC_E_SHAPE, "TIR-B30", "%s: the domain must have rank >= 1", what);
        return false;
    }
    return true;
}

/* A region's initial carries: valid operands, none a view. */
static bool check_carries(tir_builder *b, const char *what, size_t n_carry, tir_value *const *init) {
    if (n_carry && !check_operands(b, what, n_carry, init)) return false;
    for (size_t i = 0; i < n_carry; i++)
        if (init[i]->type->kind == TIR_TYPE_VIEW) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B34", "%s: views cannot be carried", what);
            return false;
        }
    return true;
}

/* Region o's carries (a body argument and a result each, after its
 * coordinates), then o emitted and its body the insertion point. */
static tir_op *open_region(tir_builder *b, tir_op *o, size_t n_carry, tir_value *const *init) {
    for (size_t i = 0; i < n_carry; i++)
        if (!tir_block_add_arg(o->body, init[i]->type) || !add_result(b, o, init[i]->type)) return NULL;
    tir_builder_emit(b, o);
    return tir_builder_push_frame(b, o, false) ? o : NULL;
}

tir_op *tir_region_begin(tir_builder *b, tir_op_kind kind, tir_space *domain, const tir_region_opts *opts,
                         size_t n_carry, tir_value *const *init) {
    CHECK_LIVE(b, NULL);
    tir_region_opts defaults = {0};
    if (!opts) opts = &defaults;
    if (kind != TIR_OP_PARALLEL && kind != TIR_OP_SERIAL && kind != TIR_OP_PIPELINE && kind != TIR_OP_REDUCE) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B31", "'%s' is not a region kind", tir_op_kind_name(kind));
        return NULL;
    }
    const char *what = tir_op_kind_name(kind);
    tir_op *combining = tir_builder_combine(b);
    if (combining) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B50",
                         "%s: loops and parallel regions are not allowed inside a combine block (of 'reduce' op #%u)",
                         what, combining->id);
        return NULL;
    }
    if (!check_domain(b, what, domain)) return NULL;
    /* Each option belongs to one region kind; a value elsewhere is a caller bug. */
    if ((opts->scope != TIR_SCOPE_AUTO && kind != TIR_OP_PARALLEL) ||
        ((opts->stages || opts->initiation_interval > 1) && kind != TIR_OP_PIPELINE) ||
        (opts->policy != TIR_REDUCE_UNORDERED_TREE && kind != TIR_OP_REDUCE)) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B42",
                         "%s: option not valid for this region kind (scope is for parallel, stages/ii for "
                         "pipeline, policy for reduce)", what);
        return NULL;
    }
    if ((unsigned)opts->scope >= TIR_SCOPE_COUNT || (unsigned)opts->policy >= TIR_REDUCE_POLICY_COUNT ||
        opts->stages > UINT32_MAX || opts->initiation_interval > UINT32_MAX) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B43", "%s: scope, policy, stages or ii out of range", what);
        return NULL;
    }
    if (kind == TIR_OP_PARALLEL && n_carry) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B32", "parallel regions carry no values");
        return NULL;
    }
    if (kind == TIR_OP_PARALLEL && opts->scope != TIR_SCOPE_AUTO)
        for (size_t i = b->frames.len; i-- > 1;) {
            tir_op *outer = b->frames.data[i].op;
            if (outer->kind == TIR_OP_PARALLEL && outer->scope != TIR_SCOPE_AUTO && opts->scope < outer->scope) {
                tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B33", "parallel scope '%s' cannot nest inside scope '%s'",
                                 tir_exec_scope_name(opts->scope), tir_exec_scope_name(outer->scope));
                return NULL;
            }
        }
    if (!check_carries(b, what, n_carry, init)) return NULL;
    tir_op *o = new_op(b, kind, n_carry, init);
    if (!o || !(o->body = tir_block_new(b->func, o))) return fail_oom(b);
    o->domain = domain;
    o->scope = opts->scope;
    o->stages = opts->stages;
    o->initiation_interval = opts->initiation_interval ? opts->initiation_interval : 1;
    o->policy = opts->policy;
    tir_type *index = tir_type_index(b->module);
    for (uint32_t i = 0; i < domain->rank; i++)
        if (!tir_block_add_arg(o->body, index)) return fail_oom(b);
    return open_region(b, o, n_carry, init);
}

tir_op *tir_if_begin(tir_builder *b, tir_value *cond, size_t n_carry, tir_value *const *init) {
    CHECK_LIVE(b, NULL);
    tir_op *combining = tir_builder_combine(b);
    if (combining) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B50",
                         "if: regions are not allowed inside a combine block (of 'reduce' op #%u)", combining->id);
        return NULL;
    }
    if (!check_operands(b, "if", 1, &cond) || !check_carries(b, "if", n_carry, init)) return NULL;
    if (cond->type->kind != TIR_TYPE_SCALAR || cond->type->elem != TIR_BOOL) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B52", "if: the condition must be a bool scalar");
        return NULL;
    }
    tir_space *none = tir_space_make(b->module, 0, NULL, NULL);
    tir_op *o = none ? new_op(b, TIR_OP_IF, n_carry, init) : NULL;
    if (!o || !tir_op_add_operand(o, cond) || !(o->body = tir_block_new(b->func, o))) return fail_oom(b);
    o->domain = none; /* rank 0: the body runs at most once, with no coordinates */
    return open_region(b, o, n_carry, init);
}

tir_value *tir_region_coord(const tir_op *region, size_t axis) {
    if (!region || !region->body || !region->domain || axis >= region->domain->rank) return NULL;
    return region->body->args[axis];
}

tir_value *tir_region_carry(const tir_op *region, size_t index) {
    if (!region || !region->body || !region->domain) return NULL;
    size_t i = region->domain->rank + index;
    return i < region->body->arg_count ? region->body->args[i] : NULL;
}

/* True when the top frame is `block` of `region` (its body or its combine
 * block); checked before anything is appended, so a refused close leaves the
 * IR as it was. */
static bool check_top(tir_builder *b, tir_op *region, const tir_block *block) {
    if (b->frames.len > 1 && tir_builder_top(b)->op == region && tir_builder_top(b)->block == block) return true;
    tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B35", "'%s' %s closed out of order (it is not the innermost open block)",
                     region ? tir_op_kind_name(region->kind) : "?",
                     region && block == region->combine ? "combine block" : "region");
    return false;
}

/* Pops the top frame after checking it is `block` of `region`. */
static bool close_frame(tir_builder *b, tir_op *region, const tir_block *block) {
    if (!check_top(b, region, block)) return false;
    bool ok = tir_builder_top(b)->capture || tir_capture_check_unmutated(b, tir_builder_top(b));
    b->slots.len = tir_builder_top(b)->slot_begin;
    b->frames.len--;
    tir_capture_retire_vars(b, b->frames.len);
    return ok;
}

static bool emit_yield(tir_builder *b, tir_block *block, size_t n, tir_value *const *yields) {
    tir_op *y = new_op(b, TIR_OP_YIELD, n, yields);
    if (!y) return false;
    tir_op_insert_end(y, block);
    return true;
}

tilec_status tir_region_end(tir_builder *b, tir_op *region, size_t n_yield, tir_value *const *yields) {
    CHECK_LIVE(b, b ? b->status : TILEC_E_ARG);
    if (!region || !tir_op_is_region(region) || region->kind == TIR_OP_MAP) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B31", "region_end needs a parallel/serial/pipeline/reduce/if op");
        return b->status;
    }
    const char *what = tir_op_kind_name(region->kind);
    if (!check_top(b, region, region->body)) return b->status;
    if (n_yield != region->result_count) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B36", "%s yields %zu values but carries %u", what, n_yield,
                         region->result_count);
        return b->status;
    }
    if (n_yield && !check_operands(b, what, n_yield, yields)) return b->status;
    for (size_t i = 0; i < n_yield; i++)
        if (yields[i]->type != region->results[i]->type) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B37", "%s: yielded value %zu has a different type than its carry",
                             what, i);
            return b->status;
        }
    if (!emit_yield(b, region->body, n_yield, yields)) return b->status;
    close_frame(b, region, region->body);
    return b->status;
}

tir_op *tir_map_begin(tir_builder *b, tir_space *space, tir_scalar elem) {
    CHECK_LIVE(b, NULL);
    tir_type *type = space ? tir_type_tile(b->module, elem, space) : NULL;
    if (!type) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B38", "map: needs a space and a valid element type");
        return NULL;
    }
    tir_op *o = new_op(b, TIR_OP_MAP, 0, NULL);
    if (!o || !(o->body = tir_block_new(b->func, o))) return fail_oom(b);
    o->domain = space;
    tir_type *index = tir_type_index(b->module);
    for (uint32_t i = 0; i < space->rank; i++)
        if (!tir_block_add_arg(o->body, index)) return fail_oom(b);
    if (!add_result(b, o, type)) return NULL;
    tir_builder_emit(b, o);
    if (!tir_builder_push_frame(b, o, false)) return NULL;
    return o;
}

tir_value *tir_map_end(tir_builder *b, tir_op *map, tir_value *element) {
    CHECK_LIVE(b, NULL);
    if (!map || map->kind != TIR_OP_MAP) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B31", "map_end needs a map op");
        return NULL;
    }
    if (!check_top(b, map, map->body)) return NULL;
    if (!check_operands(b, "map", 1, &element)) return NULL;
    tir_scalar elem = map->results[0]->type->elem;
    if (element->type->kind == TIR_TYPE_INDEX) element = tir_cast(b, element, elem);
    if (!element) return NULL;
    if (element->type->kind != TIR_TYPE_SCALAR || element->type->elem != elem) {
        tir_builder_fail(b, TILEC_E_TYPE, "TIR-B39", "map: the element must be a %s scalar", tir_scalar_name(elem));
        return NULL;
    }
    if (!emit_yield(b, map->body, 1, &element) || !close_frame(b, map, map->body)) return NULL;
    return map->results[0];
}

tilec_status tir_stage(tir_builder *b, const char *name) {
    CHECK_LIVE(b, b ? b->status : TILEC_E_ARG);
    tir_op *top = tir_builder_top(b)->op;
    if (!top || top->kind != TIR_OP_PIPELINE) {
        tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B40", "stage%s%s%s must be directly inside a pipeline body",
                         name ? " '" : "", name ? name : "", name ? "'" : "");
        return b->status;
    }
    tir_op *o = new_op(b, TIR_OP_STAGE, 0, NULL);
    if (!o) return b->status;
    if (name && !(o->stage_name = arena_strdup(&b->module->arena, name))) return fail_oom(b), b->status;
    tir_builder_emit(b, o);
    return TILEC_OK;
}

tir_value *tir_index(tir_builder *b, tir_dim *d) {
    CHECK_LIVE(b, NULL);
    for (size_t i = b->frames.len; i-- > 1;) {
        tir_op *op = b->frames.data[i].op;
        if (tir_frame_is_combine(&b->frames.data[i])) break; /* the reduce's coordinates are not visible */
        int axis = d ? tir_space_find(op->domain, d) : -1;
        if (axis >= 0) return op->body->args[axis];
    }
    tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B41", "no open region binds dimension '%s'", d ? d->label : "?");
    return NULL;
}

/* ---- mergeable reductions ---- */

/* The combine block is built after its reduce is complete: its arguments are
 * typed by the reduce's results, and it must not see anything of the loop
 * (tir_builder_visible stops at its frame), so the insertion point around it
 * does not matter. */
tir_op *tir_combine_begin(tir_builder *b, tir_op *r) {
    CHECK_LIVE(b, NULL);
    if (!r || r->kind != TIR_OP_REDUCE || r->func != b->func || !r->body) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B44", "combine_begin needs a reduce op of this kernel");
        return NULL;
    }
    for (size_t i = 1; i < b->frames.len; i++)
        if (b->frames.data[i].op == r) {
            tir_builder_fail(b, TILEC_E_SCOPE, "TIR-B45",
                             "reduce op #%u is still open: close it with region_end before its combine block", r->id);
            return NULL;
        }
    if (r->policy != TIR_REDUCE_UNORDERED_TREE && r->policy != TIR_REDUCE_ORDERED_TREE) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B46",
                         "reduce op #%u: policy '%s' pins one evaluation order, so it cannot take a combine block "
                         "(only unordered_tree and ordered_tree can)",
                         r->id, tir_reduction_policy_name(r->policy));
        return NULL;
    }
    if (!r->result_count) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B47", "reduce op #%u carries nothing, so there is no state to combine",
                         r->id);
        return NULL;
    }
    if (r->combine) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B48", "reduce op #%u already has a combine block", r->id);
        return NULL;
    }
    tir_block *block = tir_block_new(b->func, r);
    if (!block) return fail_oom(b);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < r->result_count; i++)
            if (!tir_block_add_arg(block, r->results[i]->type)) return fail_oom(b);
    r->combine = block;
    if (!tir_builder_push_frame(b, r, false)) return NULL;
    tir_builder_top(b)->block = block;
    return r;
}

tir_value *tir_combine_arg(const tir_op *r, size_t index) {
    if (!r || !r->combine || index >= r->combine->arg_count) return NULL;
    return r->combine->args[index];
}

tilec_status tir_combine_end(tir_builder *b, tir_op *r, size_t n_yield, tir_value *const *yields) {
    CHECK_LIVE(b, b ? b->status : TILEC_E_ARG);
    if (!r || r->kind != TIR_OP_REDUCE || !r->combine) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B44", "combine_end needs a reduce op with an open combine block");
        return b->status;
    }
    if (!check_top(b, r, r->combine)) return b->status;
    if (n_yield != r->result_count) {
        tir_builder_fail(b, TILEC_E_ARG, "TIR-B36", "combine yields %zu values but the reduce carries %u", n_yield,
                         r->result_count);
        return b->status;
    }
    if (!check_operands(b, "combine", n_yield, yields)) return b->status;
    for (size_t i = 0; i < n_yield; i++)
        if (yields[i]->type != r->results[i]->type) {
            tir_builder_fail(b, TILEC_E_TYPE, "TIR-B37", "combine: yielded value %zu has a different type than its carry",
                             i);
            return b->status;
        }
    if (!emit_yield(b, r->combine, n_yield, yields)) return b->status;
    close_frame(b, r, r->combine);
    return b->status;
}
