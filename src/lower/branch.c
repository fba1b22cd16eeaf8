/* branch.c — if regions: one diamond (lower/cfg.c) on the condition.
 * Carries as loops' (lw_carry, loops.c), for a body that runs at most once:
 * scalars and SSA Tiles are merge PHIs per element joining the yielded
 * element (from the end of the body) with the initial one (read before the
 * branch, where the body reads it too); a bounded Tile is its `current`
 * array, holding the initial value, into which the body's end copies the
 * yield staged through `next`.  A varying condition (programs on the lanes
 * disagree) is a varying branch the SIMD backend predicates. */
#include "lower/internal.h"

static lv *carry_value(lowerer *lw, const lw_carry *c, xir_value *const *elems) {
    const plan_value *p = c->plan;
    if (p->form == PLAN_FORM_ARRAY) return lw_array_over(lw, p->elem, p->count, c->current);
    if (p->form == PLAN_FORM_SCALAR) return lw_scalar(lw, p->elem, elems[0]);
    lv *rec = lw_ssa(lw, p->elem, p->count);
    for (uint64_t k = 0; rec && k < p->count; k++) rec->elems[k] = elems[k];
    return rec;
}

void lower_if(lowerer *lw, const tir_op *op) {
    uint32_t n = op->result_count;
    lv *cond = lw_lookup(lw, op->operands[n]->value);
    lw_carry *carries = lw_alloc(lw, sizeof *carries * (n ? n : 1));
    xir_value ***init = lw_alloc(lw, sizeof *init * (n ? n : 1)); /* the initial elements, kept for the PHIs */
    if (!cond || !carries || !init) return;
    for (uint32_t j = 0; j < n; j++) {
        lw_carry *c = &carries[j];
        if (!lw_carry_begin(lw, c, op->body->args[j], op->operands[j]->value)) return;
        if (c->elems && !(init[j] = lw_alloc(lw, sizeof **init * c->plan->count))) return;
        for (uint64_t k = 0; c->elems && k < c->plan->count; k++) init[j][k] = c->elems[k];
        lw_bind(lw, op->body->args[j], carry_value(lw, c, c->elems));
    }
    lw_if d;
    lw_if_begin(lw, &d, cond->value);
    lower_block(lw, op->body, NULL);
    for (uint32_t j = 0; j < n; j++)
        if (!lw_carry_yield(lw, &carries[j], lw_yielded(lw, op, j))) return;
    for (uint32_t j = 0; j < n; j++) lw_carry_commit(lw, &carries[j]);
    lw_if_end(lw, &d);
    for (uint32_t j = 0; j < n; j++) {
        lw_carry *c = &carries[j];
        for (uint64_t k = 0; c->elems && k < c->plan->count; k++)
            c->elems[k] = lw_if_phi(lw, &d, c->elems[k], init[j][k]);
        lw_bind(lw, op->results[j], carry_value(lw, c, c->elems));
    }
    lw->counters.branches++;
}
