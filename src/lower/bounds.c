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

/* A symbolic upper bound of an Index value: v <= m·floor(F / d) + c
 * (m >= 0; the division truncates, as the forms' does).  Known for recorded coordinates, loop
 * indices and the forms' own values (sizes.c, loops.c); carried through
 * adding a value of known interval or another bound over the same
 * floor(F/d) (the m's add), subtracting a value of known interval, and a
 * product by a positive constant or by a nonnegative value of known
 * interval (the bounded side nonnegative too).  floor(floor(F/a)/b) is
 * floor(F/(a·b)), m·floor(F/d) <= (m/d)·F when d divides m and F >= 0
 * (F's lower bound says so) and m·ceil(A/d) <= (m/d)·(A + d − 1) (so the
 * first row of a block of d rows at gm·d, gm < ceil(A/d), is inside A),
 * which is
 * how a chunk of a split loop (i + s·⌊n/S⌋, times its block) is proven
 * inside F.  Anything else has none, which keeps the guard. */
typedef struct {
    const tir_form *form;
    int64_t div, m, c;
} sym_bound;

/* The bound with nested floors merged and a multiple of the divisor taken
 * out of the floor or ceiling; false on overflow. */
static bool normalize(sym_bound *b) {
    while (b->form->kind == TIR_FORM_DIV && b->form->a.form && b->form->a.c == 0) {
        if (!checked_mul_i64(b->div, b->form->c, &b->div)) return false;
        b->form = b->form->a.form;
    }
    if (b->div > 1 && b->m % b->div == 0 && b->form->lo >= 0) b->m /= b->div, b->div = 1;
    const tir_form *f = b->form;
    if (b->div == 1 && tir_form_is_blocks(f) && b->m > 0 && b->m % f->c == 0) {
        int64_t q = b->m / f->c, extra; /* d·ceil(A/d) <= A + d − 1, for any sign of A */
        if (!checked_mul_i64(q, f->c - 1, &extra) || !checked_add_i64(b->c, extra, &b->c)) return false;
        b->form = f->a.form, b->m = q;
    }
    return true;
}

static bool bound_of(lowerer *lw, xir_value *v, sym_bound *out, int depth);

/* a·b <= bound(a)·hi for a >= 0 and b in [0, hi]. */
static bool bound_times_range(lowerer *lw, xir_value *a, xir_value *b, sym_bound *out, int depth) {
    int64_t alo, ahi, blo, bhi;
    if (!bound_of(lw, a, out, depth + 1) || !range_of(lw, a, &alo, &ahi, depth + 1) || alo < 0 ||
        !range_of(lw, b, &blo, &bhi, depth + 1) || blo < 0)
        return false;
    return checked_mul_i64(out->m, bhi, &out->m) && checked_mul_i64(out->c, bhi, &out->c) && normalize(out);
}

static bool bound_of(lowerer *lw, xir_value *v, sym_bound *out, int depth) {
    if (!v || depth > RANGE_MAX_DEPTH || v->kind != XIR_VALUE_INST) return false;
    if (v->id < lw->ranges.len && lw->ranges.data[v->id].known && lw->ranges.data[v->id].sym) {
        const lw_range *r = &lw->ranges.data[v->id];
        *out = (sym_bound){r->sym, r->sym_div, 1, r->sym_c};
        return normalize(out);
    }
    xir_inst *inst = xir_value_inst(v);
    if (!inst || inst->kind != XIR_INST_ARITH) return false;
    if (inst->op != XIR_OP_ADD && inst->op != XIR_OP_SUB && inst->op != XIR_OP_MUL) return false;
    xir_value *a = xir_operand(inst, 0), *b = xir_operand(inst, 1);
    int64_t lo, hi;
    sym_bound other;
    switch (inst->op) {
    case XIR_OP_ADD:
        if (!bound_of(lw, a, out, depth + 1)) { /* the bounded side first */
            xir_value *t = a;
            a = b, b = t;
            if (!bound_of(lw, a, out, depth + 1)) return false;
        }
        if (bound_of(lw, b, &other, depth + 1) && other.form == out->form && other.div == out->div)
            return checked_add_i64(out->m, other.m, &out->m) && checked_add_i64(out->c, other.c, &out->c) &&
                   normalize(out);
        return range_of(lw, b, &lo, &hi, depth + 1) && checked_add_i64(out->c, hi, &out->c);
    case XIR_OP_SUB:
        return bound_of(lw, a, out, depth + 1) && range_of(lw, b, &lo, &hi, depth + 1) &&
               checked_sub_i64(out->c, lo, &out->c);
    default: /* MUL */
        if (b->kind == XIR_VALUE_CONST || a->kind == XIR_VALUE_CONST) { /* by a positive constant */
            xir_value *k = b->kind == XIR_VALUE_CONST ? b : a;
            return k->constant.i > 0 && bound_of(lw, k == b ? a : b, out, depth + 1) &&
                   checked_mul_i64(out->m, k->constant.i, &out->m) && checked_mul_i64(out->c, k->constant.i, &out->c) &&
                   normalize(out);
        }
        return bound_times_range(lw, a, b, out, depth) || bound_times_range(lw, b, a, out, depth);
    }
}

/* v + slack < extent, extent a runtime size's, from v's symbolic bound. */
static bool below(lowerer *lw, xir_value *v, uint64_t extent, int64_t slack) {
    const tir_form *e = tir_extent_form(lw->tf->module, extent);
    sym_bound b;
    int64_t top;
    return e && bound_of(lw, v, &b, 0) && b.form == e && b.div == 1 && b.m <= 1 && checked_add_i64(b.c, slack, &top) &&
           top <= -1;
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
