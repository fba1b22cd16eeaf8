/* values.c — value representations: errors and the expansion budget, scalar
 * emission with integer constant folding, records (SCALAR / SPLAT / SSA /
 * ARRAY, see internal.h), element reads and writes, index-space arithmetic
 * (flatten, decode, identity projection), traversal, and the Tile ops whose
 * lowering is pure representation: constants, elementwise, extract.
 *
 * Folding covers exactly the integer/bool operations the plan calls constant
 * (plan_ew_foldable), so a value the plan says is constant is an XIR
 * constant here; float arithmetic is never folded. */
#include "lower/internal.h"
#include "tir/form.h"
#include "scalar/math_ops.h"

#include "base/invariant.h"
#include "tir/interp.h"

#include <stdarg.h>
#include <stdio.h>

/* ---- errors and budgets ---- */

tilec_status lw_fail(lowerer *lw, tilec_status status, const char *code, const char *fmt, ...) {
    if (lw->status) return lw->status;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    lw->status = status;
    return tilec_error(lw->ctx, status, code, tilec_no_loc(), "lowering kernel '@%s': %s", lw->tf->name, message);
}

bool lw_ok(lowerer *lw) {
    if (lw->status) return false;
    if (xir_module_failed(lw->m)) {
        lw->status = xir_module_status(lw->m); /* reported once by the module (XIR-M01) */
        return false;
    }
    uint64_t emitted = lw->f->next_value_id - lw->f->args.len;
    if (emitted > lw->choice->max_expanded_values) {
        lw_fail(lw, TILEC_E_BUDGET, "LOWER-B01",
                "expansion budget: emission reached %llu XIR instructions, which exceeds max_expanded_values %llu",
                (unsigned long long)emitted, (unsigned long long)lw->choice->max_expanded_values);
        return false;
    }
    return true;
}

void *lw_alloc(lowerer *lw, size_t size) {
    void *p = arena_alloc(&lw->arena, size ? size : 1);
    if (!p && !lw->status) {
        lw->status = TILEC_E_NOMEM;
        tilec_error(lw->ctx, TILEC_E_NOMEM, "LOWER-M01", tilec_no_loc(), "out of memory lowering kernel '@%s'",
                    lw->tf->name);
    }
    return p;
}

/* ---- scalars ---- */

xir_value *lw_i64(lowerer *lw, int64_t v) { return xir_const_int(lw->m, TIR_I64, v); }

static bool is_const(const xir_value *v) { return v && v->kind == XIR_VALUE_CONST; }

bool lw_const_int(const xir_value *v, int64_t *out) {
    if (!is_const(v) || v->type->kind != XIR_TYPE_SCALAR || tir_scalar_is_float(v->type->scalar)) return false;
    if (!tir_scalar_is_signed(v->type->scalar) && v->constant.u > (uint64_t)INT64_MAX) return false;
    *out = v->constant.i;
    return true;
}

/* Folds an integer/bool operation on constants, as XIR defines it: wrapping
 * arithmetic, division and modulo by zero give 0, MIN / -1 wraps. */
static xir_value *fold(lowerer *lw, xir_arith_op op, xir_value *x, xir_value *y, xir_value *z) {
    unsigned n = xir_arith_arity(op);
    xir_value *ops[3] = {x, y, z};
    for (unsigned i = 0; i < n; i++)
        if (!is_const(ops[i])) return NULL;
    tir_scalar s = (op == XIR_OP_SELECT ? y : x)->type->scalar;
    if (tir_scalar_is_float(s)) return NULL;
    if (op == XIR_OP_SELECT) return x->constant.u ? y : z;
    bool sg = tir_scalar_is_signed(s);
    uint64_t a = x->constant.u, b = n > 1 ? y->constant.u : 0;
    int64_t ai = x->constant.i, bi = n > 1 ? y->constant.i : 0;
    bool less = sg ? ai < bi : a < b, equal = a == b;
    xir_bits r = {.u = 0};
    tir_scalar rt = s;
    switch (op) {
    case XIR_OP_ADD: r.u = a + b; break;
    case XIR_OP_SUB: r.u = a - b; break;
    case XIR_OP_MUL: r.u = a * b; break;
    case XIR_OP_DIV:
        if (b == 0) r.u = 0;
        else if (sg) r.i = bi == -1 ? (int64_t)(0 - a) : ai / bi;
        else r.u = a / b;
        break;
    case XIR_OP_MOD:
        if (b == 0) r.u = 0;
        else if (sg) r.i = bi == -1 ? 0 : ai % bi;
        else r.u = a % b;
        break;
    case XIR_OP_NEG: r.u = 0 - a; break;
    case XIR_OP_MIN: r.u = less ? a : b; break;
    case XIR_OP_MAX: r.u = less ? b : a; break;
    case XIR_OP_ABS: r.u = sg && ai < 0 ? 0 - a : a; break;
    case XIR_OP_AND: r.u = a & b; break;
    case XIR_OP_OR: r.u = a | b; break;
    case XIR_OP_XOR: r.u = a ^ b; break;
    case XIR_OP_NOT: r.u = s == TIR_BOOL ? !a : ~a; break;
    case XIR_OP_EQ: r.u = equal, rt = TIR_BOOL; break;
    case XIR_OP_NE: r.u = !equal, rt = TIR_BOOL; break;
    case XIR_OP_LT: r.u = less, rt = TIR_BOOL; break;
    case XIR_OP_LE: r.u = less || equal, rt = TIR_BOOL; break;
    case XIR_OP_GT: r.u = !less && !equal, rt = TIR_BOOL; break;
    case XIR_OP_GE: r.u = !less, rt = TIR_BOOL; break;
    default: return NULL;
    }
    return xir_const_bits(lw->m, rt, r);
}

/* Integer identities that need no instruction (x+0, x-0, x*1, x*0, x/1). */
static xir_value *simplify(xir_arith_op op, xir_value *x, xir_value *y) {
    if (!x || !y || x->type->kind != XIR_TYPE_SCALAR || tir_scalar_is_float(x->type->scalar)) return NULL;
    int64_t c;
    bool yc = lw_const_int(y, &c);
    if (yc && c == 0 && (op == XIR_OP_ADD || op == XIR_OP_SUB)) return x;
    if (yc && c == 1 && (op == XIR_OP_MUL || op == XIR_OP_DIV)) return x;
    if (yc && c == 0 && op == XIR_OP_MUL) return y;
    if (lw_const_int(x, &c) && op == XIR_OP_ADD && c == 0) return y;
    if (lw_const_int(x, &c) && op == XIR_OP_MUL && (c == 0 || c == 1)) return c ? y : x;
    return NULL;
}

xir_value *lw_arith(lowerer *lw, xir_arith_op op, xir_value *x, xir_value *y, xir_value *z) {
    if (!lw_ok(lw)) return NULL;
    xir_value *v = fold(lw, op, x, y, z);
    if (!v && xir_arith_arity(op) == 2) v = simplify(op, x, y);
    return v ? v : xir_build_arith(&lw->b, op, x, y, z);
}

xir_value *lw_cast(lowerer *lw, xir_value *x, tir_scalar to) {
    if (!x || !lw_ok(lw)) return NULL;
    if (xir_type_is_scalar(x->type, to)) return x;
    if (is_const(x) && !tir_scalar_is_float(x->type->scalar) && !tir_scalar_is_float(to))
        return xir_const_bits(lw->m, to, x->constant); /* keeps the low bits; nonzero → true */
    return xir_build_cast(&lw->b, x, to);
}

xir_value *lw_to_i64(lowerer *lw, xir_value *x, tir_scalar from) {
    if (from != TIR_U64) return lw_cast(lw, x, TIR_I64);
    /* u64 above INT64_MAX is out of range of every view and tile: saturate. */
    xir_value *big = lw_arith(lw, XIR_OP_GT, x, xir_const_uint(lw->m, TIR_U64, (uint64_t)INT64_MAX), NULL);
    return lw_arith(lw, XIR_OP_SELECT, big, lw_i64(lw, INT64_MAX), lw_cast(lw, x, TIR_I64));
}

static const xir_arith_op ew_to_xir[TIR_EW_COUNT] = {
    [TIR_EW_ADD] = XIR_OP_ADD, [TIR_EW_SUB] = XIR_OP_SUB, [TIR_EW_MUL] = XIR_OP_MUL, [TIR_EW_DIV] = XIR_OP_DIV,
    [TIR_EW_MOD] = XIR_OP_MOD, [TIR_EW_NEG] = XIR_OP_NEG, [TIR_EW_MIN] = XIR_OP_MIN, [TIR_EW_MAX] = XIR_OP_MAX,
    [TIR_EW_SELECT] = XIR_OP_SELECT, [TIR_EW_EQ] = XIR_OP_EQ, [TIR_EW_NE] = XIR_OP_NE, [TIR_EW_LT] = XIR_OP_LT,
    [TIR_EW_LE] = XIR_OP_LE, [TIR_EW_GT] = XIR_OP_GT, [TIR_EW_GE] = XIR_OP_GE, [TIR_EW_AND] = XIR_OP_AND,
    [TIR_EW_OR] = XIR_OP_OR, [TIR_EW_NOT] = XIR_OP_NOT, [TIR_EW_SQRT] = XIR_OP_SQRT, [TIR_EW_ABS] = XIR_OP_ABS,
#define SAME(e, dbl, flt, stem) [TIR_EW_##e] = XIR_OP_##e,
    TIR_SLEEF_MATH1(SAME) TIR_SLEEF_MATH2(SAME) TIR_ROUNDING_MATH(SAME)
#undef SAME
};

/* rsqrt x = 1 / sqrt x; sigmoid x = s or e·s, as x >= 0 or not, with
 * e = exp(-|x|) and s = 1 / (1 + e), so that exp never overflows (e ≤ 1)
 * and tiny results keep their precision (docs/tir.md "Math functions":
 * the native error is the composition's). */
static xir_value *lw_composite(lowerer *lw, tir_ew_op op, tir_scalar elem, xir_value *x) {
    xir_value *one = xir_const_float(lw->m, elem, 1.0);
    if (op == TIR_EW_RSQRT) return lw_arith(lw, XIR_OP_DIV, one, lw_arith(lw, XIR_OP_SQRT, x, NULL, NULL), NULL);
    xir_value *ax = lw_arith(lw, XIR_OP_ABS, x, NULL, NULL);
    xir_value *e = lw_arith(lw, XIR_OP_EXP, lw_arith(lw, XIR_OP_NEG, ax, NULL, NULL), NULL, NULL);
    xir_value *s = lw_arith(lw, XIR_OP_DIV, one, lw_arith(lw, XIR_OP_ADD, one, e, NULL), NULL);
    xir_value *nonneg = lw_arith(lw, XIR_OP_GE, x, xir_const_float(lw->m, elem, 0.0), NULL);
    return lw_arith(lw, XIR_OP_SELECT, nonneg, s, lw_arith(lw, XIR_OP_MUL, e, s, NULL));
}

xir_value *lw_apply(lowerer *lw, tir_ew_op op, tir_scalar elem, xir_value *const *args) {
    if (op == TIR_EW_CAST) return lw_cast(lw, args[0], elem);
    if (op == TIR_EW_SIGMOID || op == TIR_EW_RSQRT) return lw_composite(lw, op, elem, args[0]);
    unsigned n = tir_ew_arity(op);
    return lw_arith(lw, ew_to_xir[op], args[0], n > 1 ? args[1] : NULL, n > 2 ? args[2] : NULL);
}

/* ---- records ---- */

lv *lw_lookup(lowerer *lw, const tir_value *v) {
    lv *rec = lw->vals[v->id];
    if (!rec && !lw->status) lw_internal(lw, "value #%u is used before it was lowered", v->id);
    return rec;
}

static lv *new_record(lowerer *lw, lv_form form, tir_scalar elem, uint64_t count) {
    lv *rec = lw_alloc(lw, sizeof *rec);
    if (rec) {
        rec->form = form;
        rec->elem = elem;
        rec->count = count;
    }
    return rec;
}

lv *lw_scalar(lowerer *lw, tir_scalar elem, xir_value *value) {
    lv *rec = new_record(lw, LV_SCALAR, elem, 1);
    if (rec) rec->value = value;
    return rec;
}

lv *lw_splat(lowerer *lw, tir_scalar elem, uint64_t count, xir_value *value) {
    lv *rec = new_record(lw, LV_SPLAT, elem, count);
    if (rec) rec->value = value;
    return rec;
}

lv *lw_ssa(lowerer *lw, tir_scalar elem, uint64_t count) {
    lv *rec = new_record(lw, LV_SSA, elem, count);
    if (rec && !(rec->elems = lw_alloc(lw, sizeof *rec->elems * count))) return NULL;
    return rec;
}

lv *lw_array_over(lowerer *lw, tir_scalar elem, uint64_t count, xir_value *array) {
    lv *rec = new_record(lw, LV_ARRAY, elem, count);
    if (rec) rec->array = array;
    return rec;
}

lv *lw_array(lowerer *lw, tir_scalar elem, uint64_t count) { return lw_array_over(lw, elem, count, lw_alloca(lw, elem, count)); }

xir_value *lw_alloca(lowerer *lw, tir_scalar elem, uint64_t count) {
    if (!lw_ok(lw)) return NULL;
    xir_block *at = lw->b.block;
    lw->b.block = lw->entry;
    xir_value *array = xir_build_alloca(&lw->b, elem, count);
    lw->b.block = at;
    if (array) {
        array->name = "tile_snapshot";
        lw->alloca_count++;
        lw->alloca_bytes += count * tir_scalar_size(elem);
    }
    return array;
}

static const plan_form form_of_record[] = {[LV_SCALAR] = PLAN_FORM_SCALAR, [LV_SPLAT] = PLAN_FORM_SPLAT,
                                           [LV_SSA] = PLAN_FORM_SSA, [LV_ARRAY] = PLAN_FORM_ARRAY,
                                           [LV_RECIPE] = PLAN_FORM_RECIPE, [LV_STREAM] = PLAN_FORM_STREAM};

static xir_value *read_recipe(lowerer *lw, const lv *rec, xir_value *flat);

void lw_bind(lowerer *lw, const tir_value *v, lv *rec) {
    if (!rec || !lw_ok(lw)) return;
    const plan_value *pv = plan_value_of(lw->plan, v);
    if (form_of_record[rec->form] != pv->form) {
        lw_internal(lw, "value #%u was emitted in form %d but planned in form %d", v->id, rec->form, pv->form);
        return;
    }
    lw->vals[v->id] = rec;
    if (!pv->snapshot) return;
    /* The indexable snapshot: written once at the definition. */
    rec->array = lw_alloca(lw, rec->elem, rec->count);
    for (uint64_t k = 0; k < rec->count; k++) lw_array_write(lw, rec->array, lw_i64(lw, (int64_t)k), rec->elems[k]);
    lw->counters.indexable_snapshots++;
}

xir_value *lw_read(lowerer *lw, const lv *rec, xir_value *flat) {
    if (!rec || !flat || !lw_ok(lw)) return NULL;
    int64_t k;
    switch (rec->form) {
    case LV_SCALAR:
    case LV_SPLAT: return rec->value;
    case LV_SSA:
        if (lw_const_int(flat, &k) && k >= 0 && (uint64_t)k < rec->count) return rec->elems[k];
        if (rec->count == 1) return rec->elems[0];
        if (!rec->array) {
            lw_internal(lw, "a small tile is read at a runtime index but was planned without a snapshot");
            return NULL;
        }
        break;
    case LV_ARRAY: break;
    case LV_RECIPE: return read_recipe(lw, rec, flat);
    case LV_STREAM: return lw_read_stream(lw, rec, flat);
    }
    return xir_build_load(&lw->b, xir_build_gep(&lw->b, rec->array, flat));
}

void lw_array_write(lowerer *lw, xir_value *array, xir_value *flat, xir_value *value) {
    if (!array || !flat || !value || !lw_ok(lw)) return;
    xir_build_store(&lw->b, xir_build_gep(&lw->b, array, flat), value);
}

void lw_warp_sync(lowerer *lw) {
    const xir_inst *last = lw->b.block ? lw->b.block->last : NULL;
    if (!lw->local || !lw_ok(lw) || (last && last->kind == XIR_INST_WARP_SYNC)) return;
    xir_build_warp_sync(&lw->b);
}

typedef struct {
    xir_value *dst;
    const lv *src;
} copy_job;

static void visit_copy(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    (void)coords;
    copy_job *j = user;
    lw_array_write(lw, j->dst, flat, lw_read(lw, j->src, flat));
}

void lw_copy(lowerer *lw, const tir_space *space, bool runtime, xir_value *dst, const lv *src) {
    copy_job job = {dst, src};
    lw_traverse(lw, space, runtime, visit_copy, &job);
}

/* ---- index spaces ---- */

uint64_t lw_extent(const lowerer *lw, const tir_axis *axis) { return plan_local_extent(lw->local, axis); }

uint64_t lw_volume(const lowerer *lw, const tir_space *s) { return plan_local_volume(lw->local, s); }

xir_value *lw_element(lowerer *lw, xir_value *q) {
    return lw_arith(lw, XIR_OP_ADD, lw_arith(lw, XIR_OP_MUL, q, lw_i64(lw, lw->local->lanes), NULL), lw->lane, NULL);
}

xir_value *lw_element_valid(lowerer *lw, const plan_local_dim *d, xir_value *e) {
    int64_t lo, hi;
    if (lw_range_of(lw, e, &lo, &hi) && hi < (int64_t)d->extent) return NULL;
    return lw_arith(lw, XIR_OP_LT, e, lw_i64(lw, (int64_t)d->extent), NULL);
}

xir_value *lw_flat(lowerer *lw, const tir_space *s, xir_value *const *coords) {
    xir_value *flat = lw_i64(lw, 0);
    uint64_t stride = 1;
    for (uint32_t i = s->rank; i-- > 0;) {
        flat = lw_arith(lw, XIR_OP_ADD, flat, lw_arith(lw, XIR_OP_MUL, coords[i], lw_i64(lw, (int64_t)stride), NULL), NULL);
        stride *= lw_extent(lw, &s->axes[i]);
    }
    return flat;
}

void lw_decode_extents(lowerer *lw, uint32_t rank, const uint64_t *extents, xir_value *flat, xir_value **coords) {
    uint64_t stride = 1;
    uint32_t first = rank;
    for (uint32_t i = 0; i < rank && first == rank; i++)
        if (extents[i] != 1) first = i;
    for (uint32_t i = rank; i-- > 0;) {
        uint64_t e = extents[i];
        if (e == 1) {
            coords[i] = lw_i64(lw, 0);
            continue;
        }
        xir_value *q = lw_arith(lw, XIR_OP_DIV, flat, lw_i64(lw, (int64_t)stride), NULL);
        coords[i] = i == first ? q : lw_arith(lw, XIR_OP_MOD, q, lw_i64(lw, (int64_t)e), NULL);
        stride *= e;
    }
}

void lw_decode(lowerer *lw, const tir_space *s, xir_value *flat, xir_value **coords) {
    if (!tir_space_is_static(s)) { /* a loop over runtime sizes */
        lw_decode_sized(lw, s, flat, coords);
        return;
    }
    uint64_t extents[PLAN_MAX_RANK];
    for (uint32_t i = 0; i < s->rank; i++) extents[i] = lw_extent(lw, &s->axes[i]);
    lw_decode_extents(lw, s->rank, extents, flat, coords);
}

xir_value *lw_project(lowerer *lw, const tir_space *from, const tir_space *to, xir_value *const *coords,
                      xir_value *to_flat) {
    if (from == to) return to_flat;
    xir_value *flat = lw_i64(lw, 0);
    uint64_t stride = 1;
    for (uint32_t i = from->rank; i-- > 0;) {
        uint64_t e = lw_extent(lw, &from->axes[i]);
        if (e != 1) {
            int axis = tir_space_find(to, from->axes[i].dim);
            if (axis < 0) {
                lw_internal(lw, "dimension '%s' of an operand is missing from the result", from->axes[i].dim->label);
                return NULL;
            }
            flat = lw_arith(lw, XIR_OP_ADD, flat,
                            lw_arith(lw, XIR_OP_MUL, coords[axis], lw_i64(lw, (int64_t)stride), NULL), NULL);
        }
        stride *= e;
    }
    return flat;
}

void lw_traverse(lowerer *lw, const tir_space *s, bool runtime, lw_visit visit, void *user) {
    uint64_t n = lw_volume(lw, s);
    xir_value *coords[PLAN_MAX_RANK];
    if (!runtime) {
        uint64_t idx[PLAN_MAX_RANK] = {0};
        for (uint64_t k = 0; k < n && lw_ok(lw); k++) {
            for (uint32_t a = 0; a < s->rank; a++) coords[a] = lw_i64(lw, (int64_t)idx[a]);
            visit(lw, user, lw_i64(lw, (int64_t)k), coords);
            for (uint32_t a = s->rank; a-- > 0;) {
                if (++idx[a] < lw_extent(lw, &s->axes[a])) break;
                idx[a] = 0;
            }
        }
        return;
    }
    /* Packet-local rows whose last slot is partly invalid (N mod W != 0):
     * the loop covers the full slots, where W·q + lane < N is proven from
     * the index interval (no guard, plain vector accesses), and the tail
     * slot is visited once after it with its guard. */
    bool peel = plan_local_peels(lw->local, s);
    uint64_t loop_end = peel ? n - 1 : n;
    lw_loop L;
    lw_loop_begin(lw, &L, 0, (int64_t)loop_end, 1);
    if (!lw_ok(lw)) return;
    lw_decode(lw, s, &L.index->value, coords);
    visit(lw, user, &L.index->value, coords);
    lw_loop_end(lw, &L, 1);
    lw->counters.runtime_traversals++;
    if (!peel || !lw_ok(lw)) return;
    xir_value *tail = lw_i64(lw, (int64_t)(n - 1));
    lw_decode(lw, s, tail, coords);
    visit(lw, user, tail, coords);
}

/* ---- constants, elementwise, extract ---- */

void lower_constant(lowerer *lw, const tir_op *op) {
    const tir_value *res = op->results[0];
    tir_scalar elem = tir_value_elem(res);
    if (op->form) { /* an index constant over runtime sizes */
        lw_bind(lw, res, lw_scalar(lw, elem, lw_form_value(lw, op->form)));
        return;
    }
    scalar_cell c = {0};
    /* A verified kernel's literals have a known kind (TIR-V rule 6). */
    if (!TILEC_INVARIANT(lw->ctx, interp_literal(elem, op->literal, &c))) {
        lw->status = TILEC_E_INTERNAL;
        return;
    }
    xir_value *v = tir_scalar_is_float(elem) ? xir_const_float(lw->m, elem, c.f)
                                             : xir_const_bits(lw->m, elem, (xir_bits){.u = c.u});
    if (res->type->kind == TIR_TYPE_TILE) lw_bind(lw, res, lw_splat(lw, elem, lw_volume(lw, res->type->space), v));
    else lw_bind(lw, res, lw_scalar(lw, elem, v));
}

typedef struct {
    const tir_op *op;
    lv *out;
    lv *in[3];
    const tir_space *space;
} ew_job;

/* Operand i of an elementwise op over `space` at element `flat`; the
 * coordinates are decoded once, on the first projection that needs them. */
static xir_value *operand_at(lowerer *lw, const tir_op *op, uint32_t i, const tir_space *space, lv *const *in,
                             xir_value *flat, xir_value *const **coords, xir_value **decoded) {
    const tir_value *v = op->operands[i]->value;
    if (v->type->kind != TIR_TYPE_TILE) return in[i]->value;
    if (!*coords && v->type->space != space) {
        lw_decode(lw, space, flat, decoded);
        *coords = decoded;
    }
    return lw_read(lw, in[i], lw_project(lw, v->type->space, space, *coords, flat));
}

/* Is an element of `rec` worth a branch around its evaluation when no lane
 * needs it: a streamed view read, or a recipe with an expensive op or such
 * a read below it. */
static bool costly(const lv *rec) {
    if (!rec || rec->form == LV_STREAM) return rec != NULL;
    if (rec->form != LV_RECIPE || rec->op->kind == TIR_OP_MAP) return false; /* a coordinate map is cheap */
    if (plan_ew_expensive(rec->op->ew)) return true;
    for (uint32_t i = 0; i < rec->op->operand_count; i++)
        if (costly(rec->in[i])) return true;
    return false;
}

/* Element `flat` (coordinates `coords`, decoded on demand when NULL) of an
 * elementwise op over `space` whose operands are the records `in`.  A
 * select evaluates a costly arm only under its condition (lw_if; zero
 * elsewhere, then discarded by the select): a packet none of whose lanes
 * takes the arm skips it (docs/lowering.md "Guarded select arms"). */
static xir_value *apply_at(lowerer *lw, const tir_op *op, const tir_space *space, lv *const *in, tir_scalar elem,
                           xir_value *flat, xir_value *const *coords) {
    xir_value *args[3] = {NULL, NULL, NULL}, *decoded[PLAN_MAX_RANK];
    bool select = op->ew == TIR_EW_SELECT;
    bool guarded[3] = {false, select && costly(in[1]), select && costly(in[2])};
    if ((guarded[1] || guarded[2]) && !coords) { /* decoded before the branch: every arm's reads use them */
        lw_decode(lw, space, flat, decoded);
        coords = decoded;
    }
    for (uint32_t i = 0; i < op->operand_count; i++) {
        if (!guarded[i]) {
            args[i] = operand_at(lw, op, i, space, in, flat, &coords, decoded);
            continue;
        }
        xir_value *when = i == 1 ? args[0] : lw_arith(lw, XIR_OP_NOT, args[0], NULL, NULL);
        lw_if d;
        lw_if_begin(lw, &d, when);
        xir_value *arm = operand_at(lw, op, i, space, in, flat, &coords, decoded);
        lw_if_end(lw, &d);
        args[i] = lw_if_phi(lw, &d, arm, xir_const_zero(lw->m, elem));
        lw->counters.guarded_arms++;
    }
    return lw_apply(lw, op->ew, elem, args);
}

/* A recipe is evaluated where it is read. */
static xir_value *read_recipe(lowerer *lw, const lv *rec, xir_value *flat) {
    if (rec->op->kind == TIR_OP_MAP) return lw_read_map_recipe(lw, rec, flat);
    return apply_at(lw, rec->op, rec->space, rec->in, rec->elem, flat, NULL);
}

static void visit_elementwise(lowerer *lw, void *user, xir_value *flat, xir_value *const *coords) {
    ew_job *j = user;
    xir_value *r = apply_at(lw, j->op, j->space, j->in, j->out->elem, flat, coords);
    int64_t k;
    if (j->out->form == LV_ARRAY) lw_array_write(lw, j->out->array, flat, r);
    else if (lw_const_int(flat, &k)) j->out->elems[k] = r;
}

void lower_elementwise(lowerer *lw, const tir_op *op) {
    const tir_value *res = op->results[0];
    const plan_value *pv = plan_value_of(lw->plan, res);
    tir_scalar elem = tir_value_elem(res);
    ew_job job = {op, NULL, {NULL, NULL, NULL}, NULL};
    for (uint32_t i = 0; i < op->operand_count; i++)
        if (!(job.in[i] = lw_lookup(lw, op->operands[i]->value))) return;
    if (pv->form == PLAN_FORM_SCALAR || pv->form == PLAN_FORM_SPLAT) {
        xir_value *args[3] = {job.in[0]->value, job.in[1] ? job.in[1]->value : NULL, job.in[2] ? job.in[2]->value : NULL};
        xir_value *v = lw_apply(lw, op->ew, elem, args);
        lw_bind(lw, res, pv->form == PLAN_FORM_SCALAR ? lw_scalar(lw, elem, v) : lw_splat(lw, elem, pv->count, v));
        return;
    }
    job.space = res->type->space;
    if (pv->form == PLAN_FORM_RECIPE) {
        lv *rec = lw_alloc(lw, sizeof *rec);
        if (!rec) return;
        *rec = (lv){.form = LV_RECIPE, .elem = elem, .count = pv->count, .op = op, .space = job.space,
                    .in = {job.in[0], job.in[1], job.in[2]}};
        lw->counters.deferred_expressions++;
        lw_bind(lw, res, rec);
        return;
    }
    job.out = pv->form == PLAN_FORM_ARRAY ? lw_array(lw, elem, pv->count) : lw_ssa(lw, elem, pv->count);
    if (!job.out) return;
    lw_traverse(lw, job.space, pv->form == PLAN_FORM_ARRAY, visit_elementwise, &job);
    lw_bind(lw, res, job.out);
}

/* extract t[i...]: (packet-local: the index on D is the split coordinate,
 * read at its slot) coordinates not proven inside the tile are checked
 * (check.c: an out-of-range one reports a fault, TIR-I09, and reads zero);
 * a constant flat index reads the element directly. */
void lower_extract(lowerer *lw, const tir_op *op) {
    const tir_value *t = op->operands[0]->value, *res = op->results[0];
    lv *tile = lw_lookup(lw, t);
    if (!tile) return;
    const tir_space *s = t->type->space;
    xir_value *coords[PLAN_MAX_RANK], *values[PLAN_MAX_RANK];
    bool split[PLAN_MAX_RANK];
    for (uint32_t i = 0; i < s->rank; i++) {
        const tir_value *idx = op->operands[1 + i]->value;
        lv *rec = lw_lookup(lw, idx);
        if (!rec) return;
        /* On the distributed axis the coordinate names the lane's own slot. */
        split[i] = plan_local_is_axis(lw->local, &s->axes[i]);
        if (split[i] && !rec->split) { /* the admission forbids it */
            lw_internal(lw, "extract op #%u is not at the split coordinate its admission requires", op->id);
            return;
        }
        values[i] = lw_to_i64(lw, rec->value, tir_value_elem(idx));
        coords[i] = split[i] ? rec->split : values[i];
    }
    xir_value *ok = lw_check_access(lw, op, s->rank, values, split);
    xir_value *flat = lw_flat(lw, s, coords), *zero = xir_const_zero(lw->m, tile->elem), *v;
    int64_t k;
    if (tile->count == 0) {
        v = zero; /* an empty tile has no element to read (and every coordinate faults) */
    } else if (!ok) {
        v = lw_read(lw, tile, flat);
    } else if (lw_const_int(ok, &k)) {
        v = k ? lw_read(lw, tile, flat) : zero;
    } else {
        lw_if d;
        lw_if_begin(lw, &d, ok);
        xir_value *read = lw_read(lw, tile, flat);
        lw_if_end(lw, &d);
        v = lw_if_phi(lw, &d, read, zero);
    }
    lw_bind(lw, res, lw_scalar(lw, tile->elem, v));
}
