/* affine.c — index values as affine forms over region coordinates (affine.h). */
#include "plan/affine.h"

static bool const_index(const tir_value *v, int64_t *out) {
    const tir_op *d = v->def_op;
    if (!d || d->kind != TIR_OP_CONSTANT || d->form || v->type->kind != TIR_TYPE_INDEX) return false;
    if (d->literal.kind == TIR_LIT_INT) *out = d->literal.as.i;
    else if (d->literal.kind == TIR_LIT_UINT && d->literal.as.u <= INT64_MAX) *out = (int64_t)d->literal.as.u;
    else return false;
    return true;
}

/* out = a·x + b·y (a, b ∈ {1, −1}, or a constant factor with y empty). */
static bool combine(const plan_affine *x, int64_t a, const plan_affine *y, int64_t b, plan_affine *out) {
    plan_affine r = {0};
    int64_t o1, o2;
    if (__builtin_mul_overflow(x->offset, a, &o1) || __builtin_mul_overflow(y->offset, b, &o2) ||
        __builtin_add_overflow(o1, o2, &r.offset))
        return false;
    const plan_affine *side[2] = {x, y};
    int64_t factor[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < side[s]->count; i++) {
            int64_t term;
            if (__builtin_mul_overflow(side[s]->scale[i], factor[s], &term)) return false;
            uint32_t j = 0;
            while (j < r.count && r.coord[j] != side[s]->coord[i]) j++;
            if (j == r.count) {
                if (r.count == PLAN_AFFINE_TERMS) return false;
                r.coord[r.count] = side[s]->coord[i];
                r.scale[r.count++] = 0;
            }
            if (__builtin_add_overflow(r.scale[j], term, &r.scale[j])) return false;
        }
    /* drop cancelled terms */
    out->count = 0;
    for (uint32_t i = 0; i < r.count; i++)
        if (r.scale[i]) out->coord[out->count] = r.coord[i], out->scale[out->count++] = r.scale[i];
    out->offset = r.offset;
    return true;
}

static bool affine_at(const tir_value *v, plan_affine *out, int depth) {
    int64_t c;
    if (depth > 32 || v->type->kind != TIR_TYPE_INDEX) return false;
    if (const_index(v, &c)) {
        *out = (plan_affine){.offset = c};
        return true;
    }
    if (!v->def_op) {
        *out = (plan_affine){.count = 1, .coord = {v}, .scale = {1}};
        return true;
    }
    const tir_op *op = v->def_op;
    if (op->kind != TIR_OP_ELEMENTWISE || op->operand_count != 2) return false;
    plan_affine x, y, none = {0};
    if (!affine_at(op->operands[0]->value, &x, depth + 1) || !affine_at(op->operands[1]->value, &y, depth + 1))
        return false;
    switch (op->ew) {
    case TIR_EW_ADD: return combine(&x, 1, &y, 1, out);
    case TIR_EW_SUB: return combine(&x, 1, &y, -1, out);
    case TIR_EW_MUL:
        if (x.count && y.count) return false;
        return x.count ? combine(&x, y.offset, &none, 0, out) : combine(&y, x.offset, &none, 0, out);
    default: return false;
    }
}

bool plan_affine_of(const tir_value *v, plan_affine *out) { return affine_at(v, out, 0); }
