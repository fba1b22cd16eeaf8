/* reduce.c — closed unordered reductions split over partial accumulators
 * (tileir-spec §2.9; the plan decides which reductions qualify, represent.h).
 *
 * With P = min(reduction_partitions, count) partitions, contribution t goes
 * to partial t mod P:
 *   partial p   = contribution(p)                      (a real contribution:
 *                                                       no identity invented)
 *   bulk loop   for i = P; i < bulk; i += P:  partial p = update(partial p,
 *               contribution(i + p)), one PHI per partial, bulk = count -
 *               count mod P (emitted only when bulk > P)
 *   tail        partial (t - bulk) = update(partial, contribution(t))
 *   total       update(…update(partial 0, partial 1)…, partial P-1)
 *   result      update(seed, total): the seed enters exactly once.
 * `update(carry, x)` keeps the source's operand order (carry left or right).
 * A contribution is the body evaluated at one ordinal without its update. */
#include "lower/internal.h"

typedef struct {
    const tir_op *op, *update;
    bool carry_left;
    const tir_value *contribution; /* the update's non-carry operand */
    tir_scalar elem;
} reduction;

static xir_value *contribution(lowerer *lw, const reduction *r, xir_value *ordinal) {
    lw_bind_coords(lw, r->op, ordinal);
    lower_block(lw, r->op->body, r->update);
    lv *x = lw_lookup(lw, r->contribution);
    return x ? x->value : NULL;
}

static xir_value *combine(lowerer *lw, const reduction *r, xir_value *carry, xir_value *x) {
    xir_value *args[2] = {r->carry_left ? carry : x, r->carry_left ? x : carry};
    return lw_apply(lw, r->update->ew, r->elem, args);
}

void lower_partitioned_reduce(lowerer *lw, const tir_op *op) {
    const plan_op *po = plan_op_of(lw->plan, op);
    reduction r = {op, po->update, po->carry_left, po->update->operands[po->carry_left ? 1 : 0]->value,
                   tir_value_elem(op->results[0])};
    lv *seed = lw_lookup(lw, op->operands[0]->value);
    uint32_t parts = po->partitions;
    uint64_t count = po->count, P = lw->opt->reduction_partitions;
    xir_value **acc = lw_alloc(lw, sizeof *acc * (parts ? parts : 1));
    if (!seed || !acc) return;
    lw->counters.partial_reductions++;
    for (uint32_t p = 0; p < parts; p++) acc[p] = contribution(lw, &r, lw_i64(lw, p));
    if (count > P) {
        uint64_t bulk = count - count % P;
        if (po->bulk_loop) {
            lw_loop L;
            lw_loop_begin(lw, &L, (int64_t)P, (int64_t)bulk, (int64_t)P);
            xir_inst *phis[16];
            xir_value *next[16];
            xir_type *type = xir_type_scalar(lw->m, r.elem);
            for (uint32_t p = 0; p < parts; p++) phis[p] = lw_loop_phi(lw, &L, type, acc[p]);
            if (!lw_ok(lw)) return;
            for (uint32_t p = 0; p < parts; p++) {
                xir_value *ordinal = lw_arith(lw, XIR_OP_ADD, &L.index->value, lw_i64(lw, p), NULL);
                next[p] = combine(lw, &r, &phis[p]->value, contribution(lw, &r, ordinal));
            }
            lw_loop_end(lw, &L, (int64_t)P);
            for (uint32_t p = 0; p < parts; p++) {
                lw_phi_add(lw, phis[p], next[p], L.latch);
                acc[p] = phis[p] ? &phis[p]->value : NULL;
            }
        }
        for (uint64_t t = bulk; t < count; t++)
            acc[t - bulk] = combine(lw, &r, acc[t - bulk], contribution(lw, &r, lw_i64(lw, (int64_t)t)));
    }
    xir_value *result = seed->value;
    if (parts) {
        xir_value *total = acc[0];
        for (uint32_t p = 1; p < parts; p++) total = combine(lw, &r, total, acc[p]);
        result = combine(lw, &r, seed->value, total);
    }
    lw_bind(lw, op->results[0], lw_scalar(lw, r.elem, result));
}
