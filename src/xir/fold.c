/* fold.c — constant folding (passes.h).  Every folded result comes from
 * xir/eval.h, the one definition of XIR's scalar semantics, so folding never
 * changes what a program computes.  A folded instruction's uses move to the
 * replacement and the instruction is erased; sweeps repeat until nothing
 * folds (a PHI may become foldable once its back-edge value folded). */
#include "xir/eval.h"
#include "scalar/math_ops.h"
#include "xir/passes.h"

#include "base/invariant.h"

static bool is_const(const xir_value *v) { return v->kind == XIR_VALUE_CONST; }

/* Not folded: their results are only specified within a backend's ulp
 * bound (the SLEEF-backed math functions, scalar/math_ops.h). */
static bool is_transcendental(xir_arith_op op) {
    switch (op) {
#define CASE(e, dbl, flt, stem) case XIR_OP_##e:
        TIR_SLEEF_MATH1(CASE) TIR_SLEEF_MATH2(CASE) return true;
#undef CASE
    default: return false;
    }
}

static xir_value *fold_arith(xir_module *m, xir_inst *inst) {
    if (inst->op == XIR_OP_SELECT) {
        xir_value *cond = xir_operand(inst, 0), *if_true = xir_operand(inst, 1), *if_false = xir_operand(inst, 2);
        if (is_const(cond)) return cond->constant.u ? if_true : if_false;
        if (if_true == if_false) return if_true;
        return NULL;
    }
    if (is_transcendental(inst->op)) return NULL;
    xir_bits args[3];
    for (uint32_t i = 0; i < inst->operand_count; i++) {
        if (!is_const(xir_operand(inst, i))) return NULL;
        args[i] = xir_operand(inst, i)->constant;
    }
    tir_scalar operand_type = xir_operand(inst, 0)->type->scalar;
    xir_bits result;
    /* The module verified, so its typing rules hold and every opcode has a
     * meaning on its operand type. */
    if (!TILEC_INVARIANT(m->ctx, xir_eval_arith(inst->op, operand_type, args, &result))) {
        if (!m->failed) m->failed = TILEC_E_INTERNAL;
        return NULL;
    }
    return xir_const_bits(m, inst->value.type->scalar, result);
}

/* The one value a PHI's incoming values agree on (ignoring the PHI itself). */
static xir_value *fold_phi(xir_inst *phi) {
    xir_value *only = NULL;
    for (uint32_t i = 0; i < phi->operand_count; i++) {
        xir_value *v = xir_operand(phi, i);
        if (v == &phi->value || v == only) continue;
        if (only) return NULL;
        only = v;
    }
    return only;
}

static xir_value *fold(xir_module *m, xir_inst *inst) {
    switch (inst->kind) {
    case XIR_INST_ARITH: return fold_arith(m, inst);
    case XIR_INST_CAST:
    case XIR_INST_BITCAST: {
        xir_value *x = xir_operand(inst, 0);
        tir_scalar from = x->type->scalar, to = inst->value.type->scalar;
        if (from == to) return x;
        if (!is_const(x)) return NULL;
        if (inst->kind == XIR_INST_CAST) return xir_const_bits(m, to, xir_eval_cast(from, to, x->constant));
        xir_bits bits;
        return xir_eval_bitcast(from, to, x->constant, &bits) ? xir_const_bits(m, to, bits) : NULL;
    }
    case XIR_INST_PHI: return fold_phi(inst);
    default: return NULL;
    }
}

static bool fold_function(xir_func *f) {
    bool changed = false;
    for (bool again = true; again && !f->module->failed;) {
        again = false;
        for (xir_block *b = f->first; b; b = b->next)
            for (xir_inst *inst = b->first, *next; inst; inst = next) {
                next = inst->next;
                xir_value *replacement = fold(f->module, inst);
                if (!replacement) continue; /* nothing to fold (or a failure: the module is marked failed) */
                xir_value_replace_all_uses(&inst->value, replacement);
                xir_inst_erase(inst);
                again = changed = true;
            }
    }
    return changed;
}

bool xir_fold_constants(xir_module *m) {
    bool changed = false;
    for (size_t i = 0; i < m->funcs.len && !m->failed; i++) changed |= fold_function(m->funcs.data[i]);
    return changed;
}
