/* branch.c — if regions: one diamond (lower/cfg.c) on the condition.  The
 * body sees each carry as its initial value; the results are merge PHIs of
 * the yielded values (from the end of the body) and the initial values (from
 * before the branch).  Carries are scalars (admission refuses tile ones,
 * LOWER-A10).  A varying condition — programs on the lanes disagree — is a
 * varying branch the SIMD backend predicates. */
#include "lower/internal.h"

void lower_if(lowerer *lw, const tir_op *op) {
    uint32_t n = op->result_count;
    lv *cond = lw_lookup(lw, op->operands[n]->value);
    xir_value **init = lw_alloc(lw, sizeof *init * (n ? n : 1)), **then = lw_alloc(lw, sizeof *then * (n ? n : 1));
    if (!cond || !init || !then) return;
    for (uint32_t j = 0; j < n; j++) {
        lv *v = lw_lookup(lw, op->operands[j]->value);
        if (!v) return;
        init[j] = v->value;
        lw_bind(lw, op->body->args[j], lw_scalar(lw, tir_value_elem(op->results[j]), init[j]));
    }
    lw_if d;
    lw_if_begin(lw, &d, cond->value);
    lower_block(lw, op->body, NULL);
    for (uint32_t j = 0; j < n; j++) {
        lv *y = lw_yielded(lw, op, j);
        if (!y) return;
        then[j] = y->value;
    }
    lw_if_end(lw, &d);
    for (uint32_t j = 0; j < n; j++)
        lw_bind(lw, op->results[j], lw_scalar(lw, tir_value_elem(op->results[j]), lw_if_phi(lw, &d, then[j], init[j])));
    lw->counters.branches++;
}
