/* bounds.c — checked i64 interval arithmetic over the Index expressions the
 * lowerer emitted, and the per-axis guards it removes.
 *
 * An interval is known for: i64 constants; values with a recorded interval
 * (root coordinates [0, extent-1], loop indices); and i64 add/sub/mul of
 * known intervals when no corner overflows; div/mod by a positive constant of
 * a nonnegative dividend.  Everything else (narrow types, casts, selects,
 * possible overflow, depth over 32) is unknown, which keeps the guard.  A
 * guard is removed only when the interval proves it always true; against a
 * runtime extent, by its smallest value or by a symbolic bound (below). */
#include "lower/internal.h"
#include "tir/form.h"

#include "base/checked.h"

enum { RANGE_MAX_DEPTH = 32 };

void lw_set_range(lowerer *lw, xir_value *v, int64_t lo, int64_t hi) {
    if (!v || v->kind != XIR_VALUE_INST || !lw_ok(lw)) return; /* ids are per kind */
    if (!VEC_RESERVE(lw->ctx, &lw->ranges, (size_t)v->id + 1)) {
        lw_fail(lw, TILEC_E_NOMEM, "LOWER-M01", "out of memory recording intervals");
        return;
    }
    while (lw->ranges.len <= v->id) lw->ranges.data[lw->ranges.len++] = (lw_range){false, 0, 0, NULL, 1, 0};
    lw->ranges.data[v->id] = (lw_range){true, lo, hi, NULL, 1, 0};
}

void lw_set_sym_bound(lowerer *lw, xir_value *v, const tir_form *form, int64_t div, int64_t c) {
    if (!v || v->kind != XIR_VALUE_INST || v->id >= lw->ranges.len || !lw->ranges.data[v->id].known) return;
    lw_range *r = &lw->ranges.data[v->id];
    r->sym = form, r->sym_div = div, r->sym_c = c;
}

static bool corners(xir_arith_op op, int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t *lo, int64_t *hi) {
    int64_t c[4];
    if (op == XIR_OP_ADD) {
        if (!checked_add_i64(alo, blo, &c[0]) || !checked_add_i64(ahi, bhi, &c[1])) return false;
        *lo = c[0], *hi = c[1];
        return true;
    }
    if (op == XIR_OP_SUB) {
        if (!checked_sub_i64(alo, bhi, &c[0]) || !checked_sub_i64(ahi, blo, &c[1])) return false;
        *lo = c[0], *hi = c[1];
        return true;
    }
    if (!checked_mul_i64(alo, blo, &c[0]) || !checked_mul_i64(alo, bhi, &c[1]) || !checked_mul_i64(ahi, blo, &c[2]) ||
        !checked_mul_i64(ahi, bhi, &c[3]))
        return false;
    *lo = *hi = c[0];
    for (int i = 1; i < 4; i++) {
        if (c[i] < *lo) *lo = c[i];
        if (c[i] > *hi) *hi = c[i];
    }
    return true;
}

static bool range_of(lowerer *lw, xir_value *v, int64_t *lo, int64_t *hi, int depth) {
    if (!v || depth > RANGE_MAX_DEPTH || !xir_type_is_scalar(v->type, TIR_I64)) return false;
    if (v->kind == XIR_VALUE_CONST) {
        *lo = *hi = v->constant.i;
        return true;
    }
    if (v->id < lw->ranges.len && lw->ranges.data[v->id].known && v->kind == XIR_VALUE_INST) {
        *lo = lw->ranges.data[v->id].lo;
        *hi = lw->ranges.data[v->id].hi;
        return true;
    }
    xir_inst *inst = xir_value_inst(v);
    if (!inst || inst->kind != XIR_INST_ARITH) return false;
    int64_t alo, ahi, blo, bhi;
    switch (inst->op) {
    case XIR_OP_ADD:
    case XIR_OP_SUB:
    case XIR_OP_MUL:
        return range_of(lw, xir_operand(inst, 0), &alo, &ahi, depth + 1) &&
               range_of(lw, xir_operand(inst, 1), &blo, &bhi, depth + 1) && corners(inst->op, alo, ahi, blo, bhi, lo, hi);
    case XIR_OP_DIV:
    case XIR_OP_MOD: {
        xir_value *d = xir_operand(inst, 1);
        if (d->kind != XIR_VALUE_CONST || d->constant.i <= 0) return false;
        if (!range_of(lw, xir_operand(inst, 0), &alo, &ahi, depth + 1) || alo < 0) return false;
        int64_t k = d->constant.i;
        if (inst->op == XIR_OP_DIV) *lo = alo / k, *hi = ahi / k;
        else if (ahi < k) *lo = alo, *hi = ahi;
        else *lo = 0, *hi = k - 1;
        return true;
    }
    default: return false;
    }
}

/* A symbolic upper bound of an Index value: v <= floor(F / d) + c.  Known
 * for recorded coordinates and loop indices (sizes.c, loops.c); carried
 * through adding or subtracting a value of known interval, and through a
 * product by d itself (d·floor(F/d) <= F for F >= 0, as extents are).
 * Anything else has none, which keeps the guard. */
typedef struct {
    const tir_form *form;
    int64_t div, c;
} sym_bound;

static bool bound_of(lowerer *lw, xir_value *v, sym_bound *out, int depth) {
    if (!v || depth > RANGE_MAX_DEPTH || v->kind != XIR_VALUE_INST) return false;
    if (v->id < lw->ranges.len && lw->ranges.data[v->id].known && lw->ranges.data[v->id].sym) {
        const lw_range *r = &lw->ranges.data[v->id];
        *out = (sym_bound){r->sym, r->sym_div, r->sym_c};
        return true;
    }
    xir_inst *inst = xir_value_inst(v);
    if (!inst || inst->kind != XIR_INST_ARITH) return false;
    xir_value *a = xir_operand(inst, 0), *b = inst->op == XIR_OP_ADD || inst->op == XIR_OP_SUB || inst->op == XIR_OP_MUL
                                                   ? xir_operand(inst, 1)
                                                   : NULL;
    int64_t lo, hi;
    if (inst->op == XIR_OP_ADD && !bound_of(lw, a, out, depth + 1)) { /* the bounded side first */
        xir_value *t = a;
        a = b, b = t;
        if (!bound_of(lw, a, out, depth + 1)) return false;
    } else if (inst->op != XIR_OP_ADD && (!b || !bound_of(lw, a, out, depth + 1))) {
        if (inst->op != XIR_OP_MUL || !b || !bound_of(lw, b, out, depth + 1)) return false;
        b = a; /* a constant times the bounded value */
    }
    if (inst->op == XIR_OP_MUL) { /* by its own divisor: d·floor(F/d) + d·c <= F + d·c */
        if (b->kind != XIR_VALUE_CONST || b->constant.i != out->div || out->div <= 0) return false;
        int64_t c;
        if (!checked_mul_i64(out->c, out->div, &c)) return false;
        *out = (sym_bound){out->form, 1, c};
        return true;
    }
    if (!range_of(lw, b, &lo, &hi, depth + 1)) return false;
    return inst->op == XIR_OP_ADD ? checked_add_i64(out->c, hi, &out->c) : checked_sub_i64(out->c, lo, &out->c);
}

/* v + slack < extent, extent a runtime size's, from v's symbolic bound. */
static bool below(lowerer *lw, xir_value *v, uint64_t extent, int64_t slack) {
    const tir_form *e = tir_extent_form(lw->tf->module, extent);
    sym_bound b;
    int64_t top;
    return e && bound_of(lw, v, &b, 0) && b.form == e && b.div == 1 && checked_add_i64(b.c, slack, &top) && top <= -1;
}

bool lw_range_of(lowerer *lw, xir_value *v, int64_t *lo, int64_t *hi) { return range_of(lw, v, lo, hi, 0); }

/* A runtime extent is proven above an interval only by its smallest value,
 * or, for one element, by a coordinate of that very extent. */
bool lw_proven_index(lowerer *lw, xir_value *v, uint64_t count) {
    int64_t lo, hi;
    if (!lw_range_of(lw, v, &lo, &hi) || lo < 0) return false;
    return (uint64_t)hi < lw_extent_min(lw, count) || below(lw, v, count, 0);
}

bool lw_axis_proven(lowerer *lw, xir_value *origin, uint64_t n, uint64_t extent) {
    int64_t lo, hi, top;
    if (n == 0) return true;
    if (!lw_range_of(lw, origin, &lo, &hi) || lo < 0) return false;
    return (checked_add_i64(hi, (int64_t)(n - 1), &top) && (uint64_t)top < lw_extent_min(lw, extent)) ||
           below(lw, origin, extent, (int64_t)(n - 1));
}

xir_value *lw_axis_guard(lowerer *lw, xir_value *origin, xir_value *e, uint64_t extent) {
    int64_t olo, ohi, elo, ehi, sum;
    bool o_known = lw_range_of(lw, origin, &olo, &ohi), e_known = lw_range_of(lw, e, &elo, &ehi);
    bool lower_ok = o_known && e_known && checked_add_i64(olo, elo, &sum) && sum >= 0;
    bool upper_ok = o_known && e_known && checked_add_i64(ohi, ehi, &sum) && sum >= 0 &&
                    ((uint64_t)sum < lw_extent_min(lw, extent) || below(lw, origin, extent, ehi));
    /* 0 <= o + e < E  ⇔  o >= -e  and  o < E - e: no sum that could overflow. */
    xir_value *cond = NULL;
    if (!lower_ok) cond = lw_arith(lw, XIR_OP_GE, origin, lw_arith(lw, XIR_OP_SUB, lw_i64(lw, 0), e, NULL), NULL);
    if (!upper_ok) {
        xir_value *below = lw_arith(lw, XIR_OP_LT, origin, lw_arith(lw, XIR_OP_SUB, lw_extent_value(lw, extent), e, NULL), NULL);
        cond = cond ? lw_arith(lw, XIR_OP_AND, cond, below, NULL) : below;
    }
    return cond;
}
