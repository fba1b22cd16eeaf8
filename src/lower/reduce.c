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
 * A contribution is the body evaluated at one ordinal without its update.
 *
 * Packet-local over D (po->local): the ordinals are the lane's slots, the
 * partitions cover its full slots only, and packet_total adds the partly
 * valid tail slot and combines the lanes before the seed. */
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

/* The partials over the op's `count` contributions, combined into one
 * value; NULL when there are none. */
static xir_value *partials(lowerer *lw, const reduction *r, const plan_op *po) {
    uint32_t parts = po->partitions;
    uint64_t count = po->count, P = lw->opt->reduction_partitions;
    xir_value **acc = lw_alloc(lw, sizeof *acc * (parts ? parts : 1));
    if (!acc || !parts) return NULL;
    for (uint32_t p = 0; p < parts; p++) acc[p] = contribution(lw, r, lw_i64(lw, p));
    if (count > P) {
        uint64_t bulk = count - count % P;
        if (po->bulk_loop) {
            lw_loop L;
            lw_loop_begin(lw, &L, (int64_t)P, (int64_t)bulk, (int64_t)P);
            xir_inst *phis[16];
            xir_value *next[16];
            xir_type *type = xir_type_scalar(lw->m, r->elem);
            for (uint32_t p = 0; p < parts; p++) phis[p] = lw_loop_phi(lw, &L, type, acc[p]);
            if (!lw_ok(lw)) return NULL;
            for (uint32_t p = 0; p < parts; p++) {
                xir_value *ordinal = lw_arith(lw, XIR_OP_ADD, &L.index->value, lw_i64(lw, p), NULL);
                next[p] = combine(lw, r, &phis[p]->value, contribution(lw, r, ordinal));
            }
            lw_loop_end(lw, &L, (int64_t)P);
            for (uint32_t p = 0; p < parts; p++) {
                lw_phi_add(lw, phis[p], next[p], L.latch);
                acc[p] = phis[p] ? &phis[p]->value : NULL;
            }
        }
        for (uint64_t t = bulk; t < count; t++)
            acc[t - bulk] = combine(lw, r, acc[t - bulk], contribution(lw, r, lw_i64(lw, (int64_t)t)));
    }
    xir_value *total = acc[0];
    for (uint32_t p = 1; p < parts; p++) total = combine(lw, r, total, acc[p]);
    return total;
}

static xir_value *select(lowerer *lw, xir_value *cond, xir_value *if_true, xir_value *if_false) {
    return lw_arith(lw, XIR_OP_SELECT, cond, if_true, if_false);
}

static xir_value *read_lane(lowerer *lw, xir_value *value, xir_value *lane) {
    return value && lane && lw_ok(lw) ? xir_build_warp_read_lane(&lw->b, value, lane) : NULL;
}

/* A lane without a valid contribution has no partial (validity travels
 * with it; no identity is invented), so the butterfly merges (partial,
 * valid) pairs; lane 0's root is broadcast so that every lane holds the same
 * value.  Lane 0 combines (own, higher lane) at each step: its root is one
 * fixed tree over the lanes.  A short row (N < W) stops once lane 0 has
 * merged every lane that can hold an element. */
xir_value *lw_packet_combine(lowerer *lw, const plan_local_dim *d, xir_value *p, xir_value *valid, tir_ew_op op,
                             bool own_left, tir_scalar elem) {
    uint32_t steps = plan_local_butterfly_steps(lw->local, d);
    for (uint32_t k = 1; k < 1u << steps; k <<= 1) {
        xir_value *from = lw_arith(lw, XIR_OP_XOR, lw->lane_id, xir_const_uint(lw->m, TIR_U32, k), NULL);
        xir_value *other = read_lane(lw, p, from), *args[2] = {own_left ? p : other, own_left ? other : p};
        xir_value *both = lw_apply(lw, op, elem, args);
        if (!valid) {
            p = both;
            continue;
        }
        xir_value *other_valid = read_lane(lw, valid, from);
        p = select(lw, valid, select(lw, other_valid, both, p), other);
        valid = lw_arith(lw, XIR_OP_OR, valid, other_valid, NULL);
    }
    return read_lane(lw, p, xir_const_uint(lw->m, TIR_U32, 0));
}

/* Packet-local: the lane's partial p over its full slots (NULL when it has
 * none) takes the tail slot when that element exists, then the packet
 * combines the lanes' partials, each update with the source's operand order
 * (the lane's own partial in the carry's place). */
static xir_value *packet_total(lowerer *lw, const reduction *r, const plan_op *po, xir_value *p) {
    xir_value *valid = NULL; /* NULL: every lane holds a partial */
    const plan_local_dim *d = plan_local_dim_in(lw->local, r->op->domain);
    if (po->local_tail) {
        xir_value *q = lw_i64(lw, (int64_t)po->count), *x = contribution(lw, r, q);
        xir_value *in = lw_element_valid(lw, d, lw_element(lw, q));
        if (!p) p = x, valid = in;
        else p = in ? select(lw, in, combine(lw, r, p, x), p) : combine(lw, r, p, x);
    }
    return lw_packet_combine(lw, d, p, valid, r->update->ew, r->carry_left, r->elem);
}

/* An ordered fold over D: each slot's contributions once (a vector over the
 * lanes), then element e = W·q + l read from lane l in the policy's order
 * (fold_right: last to first), every lane folding the same values. */
static xir_value *lane_ordered(lowerer *lw, const reduction *r, const plan_op *po, xir_value *acc) {
    const plan_local_dim *d = plan_local_dim_in(lw->local, r->op->domain);
    uint32_t W = lw->local->lanes;
    bool reverse = r->op->policy == TIR_REDUCE_FOLD_RIGHT;
    for (uint64_t i = 0; i < po->count && lw_ok(lw); i++) {
        uint64_t q = reverse ? po->count - 1 - i : i;
        xir_value *x = contribution(lw, r, lw_i64(lw, (int64_t)q));
        for (uint32_t j = 0; j < W && lw_ok(lw); j++) {
            uint32_t l = reverse ? W - 1 - j : j;
            if (q * W + l >= d->extent) continue;
            acc = combine(lw, r, acc, read_lane(lw, x, xir_const_uint(lw->m, TIR_U32, l)));
        }
    }
    return acc;
}

void lower_partitioned_reduce(lowerer *lw, const tir_op *op) {
    const plan_op *po = plan_op_of(lw->plan, op);
    reduction r = {op, po->update, po->carry_left, po->update->operands[po->carry_left ? 1 : 0]->value,
                   tir_value_elem(op->results[0])};
    lv *seed = lw_lookup(lw, op->operands[0]->value);
    if (!seed) return;
    if (po->lane_order) {
        lw->counters.packet_reductions++;
        lw_bind(lw, op->results[0], lw_scalar(lw, r.elem, lane_ordered(lw, &r, po, seed->value)));
        return;
    }
    lw->counters.partial_reductions++;
    xir_value *total = partials(lw, &r, po);
    if (po->local) {
        total = packet_total(lw, &r, po, total);
        lw->counters.packet_reductions++;
    }
    lw_bind(lw, op->results[0], lw_scalar(lw, r.elem, total ? combine(lw, &r, seed->value, total) : seed->value));
}
