/* view.c — loads and stores through kernel parameters.
 *
 * Address of tile element e at origin o: the row-major flat index over the
 * view's extents (runtime values where they are runtime sizes) of o + e·t (t the tile's strides, 1 unless strided),
 * as u64 (base Σ o_i·stride_i once, plus Σ e_i·t_i·stride_i per element;
 * wrapping arithmetic is exact for every in-bounds element).  bounds=zero
 * guards each axis (0 <= o_i + e_i·t_i < E_i,
 * signed i64, see bounds.c) unless proven; the buffer read happens only in
 * the valid branch of a diamond whose PHI joins it with the fill, a store
 * sits in a guarded triangle.  bounds=assume promises the whole subtile is
 * inside the view: unless proven, one check per access (check.c) reports a
 * fault and guards every element with it.  Scalar accesses are checked the
 * same way per index.  A masked scalar load is a diamond on its predicate.  Packet-local (lw->local), tile
 * coordinates on D are slots (see element) and stores that do not vary along
 * D are done by lane 0 alone. */
#include "lower/internal.h"

struct lw_access {
    const tir_op *op;
    xir_value *buffer;
    const tir_space *view;
    xir_value *origin[PLAN_MAX_RANK];
    xir_value *stride[PLAN_MAX_RANK]; /* element stride of each axis in the buffer (i64) */
    uint64_t step[PLAN_MAX_RANK];   /* the tile's stride: view index o + e·step */
    bool guard_axis[PLAN_MAX_RANK]; /* the axis needs a guard */
    xir_value **cache[PLAN_MAX_RANK]; /* unrolled: per (axis, coordinate) guard */
    xir_value *base;                /* u64 Σ origin·stride */
    xir_value *fill;                /* loads */
    xir_value *leader;              /* packet-local store without D: lane == 0, else NULL */
    xir_value *in_range;            /* bounds=assume, unproven: the whole subtile is inside the view */
    lv *tile;                       /* load: the result; store: the stored value */
    uint64_t word;                  /* read in place in words of this many elements (realize/packing.h), else 0:
                                     * `word_axis`'s coordinate counts words, base and strides are in words */
    uint32_t word_axis;
};
typedef struct lw_access access;

/* The product of the extents inside `axis`: a number, or the runtime
 * product where a runtime size is among them. */
static xir_value *view_stride(lowerer *lw, const tir_space *v, uint32_t axis) {
    uint64_t s = 1;
    xir_value *sized = NULL;
    for (uint32_t i = axis + 1; i < v->rank; i++)
        if (tir_extent_is_symbolic(v->axes[i].extent)) {
            xir_value *e = lw_extent_value(lw, v->axes[i].extent);
            sized = sized ? lw_arith(lw, XIR_OP_MUL, sized, e, NULL) : e;
        } else {
            s *= v->axes[i].extent;
        }
    return sized ? (s == 1 ? sized : lw_arith(lw, XIR_OP_MUL, sized, lw_i64(lw, (int64_t)s), NULL))
                 : lw_i64(lw, (int64_t)s);
}

static xir_value *buffer_of(lowerer *lw, const tir_value *view) { return lw->buffers[view->index]; }

/* Packet-local, an access without the distributed axis is the same on
 * every lane: a store then happens on lane 0 only (NULL: not packet-local). */
static xir_value *leader(lowerer *lw) {
    return lw->local ? lw_arith(lw, XIR_OP_EQ, lw->lane, lw_i64(lw, 0), NULL) : NULL;
}

static xir_value *both(lowerer *lw, xir_value *x, xir_value *y) {
    return x && y ? lw_arith(lw, XIR_OP_AND, x, y, NULL) : x ? x : y;
}

/* The pack of a tile load, or NULL. */
static const plan_pack *pack_of(lowerer *lw, const tir_op *op) {
    return op->kind == TIR_OP_VIEW_LOAD ? plan_packing_find(lw->choice->packing, op) : NULL;
}

/* The in-place word read of a tile load, or NULL. */
static const plan_pack *words_of(lowerer *lw, const tir_op *op) {
    return op->kind == TIR_OP_VIEW_LOAD ? plan_packing_find_words(lw->choice->packing, op) : NULL;
}

/* The packed load (rewrite/pack.h): tile `inst` of the pack's panels, inst
 * the linear index of the region coordinates its origin uses, its axes at
 * the storage order's strides, its elements of the panels' type (widened:
 * the mma's; grouped: u32 words of a group of elements, at the strides of
 * groups).
 * In bounds by construction (each coordinate is inside its region's
 * extent), so nothing is guarded or checked. */
static bool prepare_packed(lowerer *lw, access *acc, const tir_op *op, const plan_pack *p) {
    acc->op = op;
    acc->view = op->operands[0]->value->type->space;
    acc->buffer = lw->packed[p - lw->choice->packing->packs];
    xir_value *inst = lw_i64(lw, 0);
    for (uint32_t i = 0; i < p->coord_count; i++) { /* (the first extent, maybe a runtime size's, multiplies nothing) */
        lv *rec = lw_lookup(lw, p->coords[i]);
        if (!rec) return false;
        xir_value *c = lw_to_i64(lw, rec->value, tir_value_elem(p->coords[i]));
        inst = i ? lw_arith(lw, XIR_OP_ADD, lw_arith(lw, XIR_OP_MUL, inst, lw_i64(lw, (int64_t)p->extents[i]), NULL), c, NULL)
                 : c;
    }
    uint64_t per_word = p->group ? p->group : 1;
    for (uint32_t a = 0; a < acc->view->rank; a++) {
        acc->stride[a] = lw_i64(lw, (int64_t)(p->stride[a] / per_word));
        acc->step[a] = 1;
        acc->guard_axis[a] = false;
        acc->cache[a] = NULL;
    }
    uint64_t tile_words = p->tile_elements / per_word + p->sums; /* (the sums' row after each tile: pack.h) */
    acc->base = lw_cast(lw, lw_arith(lw, XIR_OP_MUL, inst, lw_i64(lw, (int64_t)tile_words), NULL), TIR_U64);
    acc->in_range = acc->leader = NULL;
    lw->counters.packed_loads++;
    return lw_ok(lw);
}

/* Origins, base address and which axes keep a guard. */
static bool prepare(lowerer *lw, access *acc, const tir_op *op, bool runtime) {
    const plan_pack *p = pack_of(lw, op);
    if (p) return prepare_packed(lw, acc, op, p);
    acc->op = op;
    acc->view = op->operands[0]->value->type->space;
    acc->buffer = buffer_of(lw, op->operands[0]->value);
    xir_value *base = lw_i64(lw, 0);
    for (uint32_t a = 0; a < acc->view->rank; a++) {
        const tir_value *o = op->operands[1 + a]->value;
        lv *rec = lw_lookup(lw, o);
        if (!rec) return false;
        acc->origin[a] = lw_to_i64(lw, rec->value, tir_value_elem(o));
        acc->stride[a] = view_stride(lw, acc->view, a);
        base = lw_arith(lw, XIR_OP_ADD, base, lw_arith(lw, XIR_OP_MUL, acc->origin[a], acc->stride[a], NULL), NULL);
        uint64_t n = op->domain->axes[a].extent;
        acc->step[a] = tir_op_stride(op, a);
        acc->guard_axis[a] = op->bounds == TIR_BOUNDS_ZERO &&
                             !lw_axis_proven(lw, acc->origin[a], tir_op_span(op, a), acc->view->axes[a].extent);
        if (op->bounds == TIR_BOUNDS_ZERO) {
            if (acc->guard_axis[a]) lw->counters.guards_kept++;
            else lw->counters.guards_removed++;
        }
        acc->cache[a] = NULL;
        if (acc->guard_axis[a] && !runtime && !(acc->cache[a] = lw_alloc(lw, sizeof(xir_value *) * n))) return false;
    }
    const plan_pack *words = words_of(lw, op);
    acc->word = words ? words->group : 0;
    if (words) { /* the planner proved base and outer strides multiples of G: exact in words */
        acc->word_axis = words->group_axis;
        xir_value *g = lw_i64(lw, (int64_t)words->group);
        base = lw_arith(lw, XIR_OP_DIV, base, g, NULL);
        for (uint32_t a = 0; a < acc->view->rank; a++)
            acc->stride[a] = a == acc->word_axis ? lw_i64(lw, 1) : lw_arith(lw, XIR_OP_DIV, acc->stride[a], g, NULL);
        lw->counters.word_loads++;
    }
    acc->base = lw_cast(lw, base, TIR_U64);
    acc->in_range = op->bounds == TIR_BOUNDS_ASSUME ? lw_check_access(lw, op, acc->view->rank, acc->origin, NULL) : NULL;
    acc->leader = op->kind == TIR_OP_VIEW_STORE && !plan_local_has_axis(lw->local, op->domain) ? leader(lw) : NULL;
    return lw_ok(lw);
}

/* The guard of one element (NULL: always in bounds) and its u64 address.
 * Packet-local, the coordinate on D is a slot q: the element is W·q + lane,
 * which exists only when it is < N; a store without D is the leader's. */
static xir_value *element(lowerer *lw, access *acc, xir_value *const *slots, xir_value **address) {
    xir_value *cond = both(lw, acc->leader, acc->in_range), *offset = lw_i64(lw, 0), *coords[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < acc->view->rank; a++) {
        coords[a] = slots[a];
        const plan_local_dim *d = plan_local_dim_of(lw->local, &acc->op->domain->axes[a]);
        if (d) {
            coords[a] = lw_element(lw, slots[a]);
            cond = both(lw, cond, lw_element_valid(lw, d, coords[a]));
        }
    }
    for (uint32_t a = 0; a < acc->view->rank; a++) {
        /* the view index moves by step per tile element */
        xir_value *along = acc->step[a] == 1 ? coords[a]
                                             : lw_arith(lw, XIR_OP_MUL, coords[a], lw_i64(lw, (int64_t)acc->step[a]), NULL);
        offset = lw_arith(lw, XIR_OP_ADD, offset, lw_arith(lw, XIR_OP_MUL, along, acc->stride[a], NULL), NULL);
        if (!acc->guard_axis[a]) continue;
        if (acc->word && a == acc->word_axis) /* a word's first element: all of its group are in bounds or none */
            along = lw_arith(lw, XIR_OP_MUL, along, lw_i64(lw, (int64_t)acc->word), NULL);
        xir_value *g;
        int64_t e;
        if (acc->cache[a] && lw_const_int(coords[a], &e)) {
            if (!acc->cache[a][e]) acc->cache[a][e] = lw_axis_guard(lw, acc->origin[a], along, acc->view->axes[a].extent);
            g = acc->cache[a][e];
        } else {
            g = lw_axis_guard(lw, acc->origin[a], along, acc->view->axes[a].extent);
        }
        cond = both(lw, cond, g);
    }
    *address = lw_arith(lw, XIR_OP_ADD, acc->base, lw_cast(lw, offset, TIR_U64), NULL);
    return cond;
}

/* The element at `address`, or the word there (acc->word). */
static xir_value *buffer_read(lowerer *lw, const access *acc, xir_value *address) {
    return acc->word ? xir_build_buffer_read_word(&lw->b, acc->buffer, address)
                     : xir_build_buffer_read(&lw->b, acc->buffer, address);
}

/* The element at coords (slots), read under its guard, else the fill. */
static xir_value *read_element(lowerer *lw, access *acc, xir_value *const *coords) {
    xir_value *address;
    xir_value *cond = element(lw, acc, coords, &address);
    if (!cond) return lw_ok(lw) ? buffer_read(lw, acc, address) : NULL;
    lw_if d;
    lw_if_begin(lw, &d, cond);
    xir_value *read = lw_ok(lw) ? buffer_read(lw, acc, address) : NULL;
    lw_if_end(lw, &d);
    return lw_if_phi(lw, &d, read, acc->fill);
}

xir_value *lw_read_stream(lowerer *lw, const lv *rec, xir_value *flat) {
    xir_value *coords[PLAN_MAX_RANK];
    lw_decode(lw, rec->access->op->domain, flat, coords);
    return read_element(lw, rec->access, coords);
}

const plan_pack *lw_grouped_pack(lowerer *lw, const lv *rec) {
    if (!rec || rec->form != LV_STREAM) return NULL;
    const plan_pack *p = pack_of(lw, rec->access->op);
    return p && p->group ? p : words_of(lw, rec->access->op);
}

xir_value *lw_read_word(lowerer *lw, const lv *rec, xir_value *const *coords) {
    return lw_ok(lw) ? read_element(lw, rec->access, coords) : NULL;
}

static void visit_load(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    access *acc = user;
    xir_value *v = read_element(lw, acc, coords);
    int64_t k;
    if (acc->tile->form == LV_ARRAY) lw_array_write(lw, acc->tile->array, flat, v);
    else if (lw_const_int(flat, &k)) acc->tile->elems[k] = v;
}

static void visit_store(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    access *acc = user;
    xir_value *address, *v = lw_read(lw, acc->tile, flat);
    xir_value *cond = element(lw, acc, coords, &address);
    if (!lw_ok(lw)) return;
    if (cond) {
        lw_if d;
        lw_if_begin(lw, &d, cond);
        if (lw_ok(lw)) xir_build_buffer_write(&lw->b, acc->buffer, address, v);
        lw_if_end(lw, &d);
    } else {
        xir_build_buffer_write(&lw->b, acc->buffer, address, v);
    }
}

/* The u64 address of a scalar access and, in *ok, the condition under
 * which its indices are in range (NULL: proven; check.c reports a fault
 * otherwise). */
static xir_value *scalar_address(lowerer *lw, const tir_op *op, xir_value **ok) {
    const tir_space *view = op->operands[0]->value->type->space;
    xir_value *flat = lw_i64(lw, 0), *index[PLAN_MAX_RANK];
    for (uint32_t a = 0; a < view->rank; a++) {
        const tir_value *idx = op->operands[1 + a]->value;
        lv *rec = lw_lookup(lw, idx);
        if (!rec) return NULL;
        index[a] = lw_to_i64(lw, rec->value, tir_value_elem(idx));
        flat = lw_arith(lw, XIR_OP_ADD, flat, lw_arith(lw, XIR_OP_MUL, index[a], view_stride(lw, view, a), NULL), NULL);
    }
    *ok = lw_check_access(lw, op, view->rank, index, NULL);
    return lw_cast(lw, flat, TIR_U64);
}

/* A buffer read that happens only when `ok` holds (NULL: always); zero
 * otherwise. */
static xir_value *checked_read(lowerer *lw, xir_value *buffer, xir_value *address, xir_value *ok, tir_scalar elem) {
    if (!ok) return lw_ok(lw) ? xir_build_buffer_read(&lw->b, buffer, address) : NULL;
    lw_if d;
    lw_if_begin(lw, &d, ok);
    xir_value *read = lw_ok(lw) ? xir_build_buffer_read(&lw->b, buffer, address) : NULL;
    lw_if_end(lw, &d);
    return lw_if_phi(lw, &d, read, xir_const_zero(lw->m, elem));
}

static void lower_scalar_load(lowerer *lw, const tir_op *op) {
    const tir_value *view = op->operands[0]->value, *res = op->results[0];
    uint32_t rank = view->type->space->rank;
    xir_value *buffer = buffer_of(lw, view), *v, *ok;
    tir_scalar elem = tir_value_elem(res);
    if (op->masked) {
        lv *pred = lw_lookup(lw, op->operands[1 + rank]->value), *fallback = lw_lookup(lw, op->operands[2 + rank]->value);
        if (!pred || !fallback) return;
        lw_if d;
        lw_if_begin(lw, &d, pred->value);
        xir_value *address = scalar_address(lw, op, &ok);
        xir_value *read = checked_read(lw, buffer, address, ok, elem);
        lw_if_end(lw, &d);
        v = lw_if_phi(lw, &d, read, fallback->value);
    } else {
        xir_value *address = scalar_address(lw, op, &ok);
        v = checked_read(lw, buffer, address, ok, elem);
    }
    lw_bind(lw, res, lw_scalar(lw, elem, v));
}

void lower_load(lowerer *lw, const tir_op *op) {
    if (!op->domain) {
        lower_scalar_load(lw, op);
        return;
    }
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(lw->plan, res);
    bool runtime = pv->form == PLAN_FORM_ARRAY, stream = pv->form == PLAN_FORM_STREAM;
    access *acc = lw_alloc(lw, sizeof *acc);
    if (!acc || !prepare(lw, acc, op, runtime || stream)) return;
    uint32_t rank = op->domain->rank;
    const plan_pack *pack = pack_of(lw, op);
    tir_scalar elem = pack ? pack->elem : pv->elem; /* widened panels hold the mma's type */
    if (op->has_fill) {
        lv *fill = lw_lookup(lw, op->operands[1 + rank]->value);
        if (!fill) return;
        acc->fill = fill->value;
    } else {
        acc->fill = xir_const_zero(lw->m, pv->elem);
    }
    acc->fill = lw_cast(lw, acc->fill, elem); /* exact: a half value widened */
    if ((pack && pack->group) || acc->word) /* words: only a slot's lane past the distributed extent (or a word
                                               * out of bounds) reads it, never stored */
        acc->fill = xir_const_uint(lw->m, TIR_U32, 0);
    if (stream) { /* read where it is used (realize/stream.h) */
        lv *rec = lw_alloc(lw, sizeof *rec);
        if (!rec) return;
        *rec = (lv){.form = LV_STREAM, .elem = elem, .count = pv->count, .access = acc};
        lw->counters.streamed_loads++;
        lw_bind(lw, res, rec);
        return;
    }
    acc->tile = runtime ? lw_array(lw, elem, pv->count) : lw_ssa(lw, elem, pv->count);
    if (!acc->tile) return;
    lw_traverse(lw, op->domain, runtime, visit_load, acc);
    lw_bind(lw, res, acc->tile);
}

/* Stores traversed together (plan_op.joins_next): each element of each. */
typedef struct {
    access acc[PLAN_MAX_JOINED_STORES];
    uint32_t count;
} store_group;

static void visit_group(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    store_group *g = user;
    for (uint32_t i = 0; i < g->count; i++) visit_store(lw, &g->acc[i], flat, coords);
}

/* The stores from `first` on that the plan joins, in one traversal. */
static void lower_store_group(lowerer *lw, const tir_op *first) {
    store_group *g = lw_alloc(lw, sizeof *g);
    if (!g) return;
    for (const tir_op *op = first; op && g->count < PLAN_MAX_JOINED_STORES; op = op->next) {
        lv *v = lw_lookup(lw, op->operands[op->operand_count - 1]->value);
        if (!v || !prepare(lw, &g->acc[g->count], op, true)) return;
        g->acc[g->count++].tile = v;
        if (!plan_op_of(lw->plan, op)->joins_next) break;
    }
    lw->counters.joined_stores += g->count - 1;
    lw_traverse(lw, first->domain, true, visit_group, g);
}

void lower_store(lowerer *lw, const tir_op *op) {
    if (plan_store_joined(lw->plan, op)) return; /* emitted with the store before it */
    if (plan_op_of(lw->plan, op)->joins_next) {
        lower_store_group(lw, op);
        return;
    }
    const tir_value *value = op->operands[op->operand_count - 1]->value;
    lv *v = lw_lookup(lw, value);
    if (!v) return;
    if (!op->domain) {
        xir_value *cond = leader(lw), *ok;
        lw_if d = {NULL, NULL, NULL, NULL}, in_range = {NULL, NULL, NULL, NULL};
        if (cond) lw_if_begin(lw, &d, cond);
        xir_value *address = scalar_address(lw, op, &ok);
        if (ok) lw_if_begin(lw, &in_range, ok);
        if (lw_ok(lw)) xir_build_buffer_write(&lw->b, buffer_of(lw, op->operands[0]->value), address, v->value);
        if (ok) lw_if_end(lw, &in_range);
        if (cond) lw_if_end(lw, &d);
        return;
    }
    bool runtime = plan_op_of(lw->plan, op)->runtime;
    access acc;
    if (!prepare(lw, &acc, op, runtime)) return;
    acc.tile = v;
    lw_traverse(lw, op->domain, runtime, visit_store, &acc);
}
