/* loops.c — serial, pipeline and (ordered) reduce: one top-tested counted
 * loop over the flattened domain, visited in row-major order (fold_right:
 * ordinal N-1-i; operands stay as written).  `stage` emits nothing.
 *
 * Carries: a scalar or small Tile carry is one header PHI per element, so all
 * carries update simultaneously by construction.  A bounded Tile carry has a
 * `current` and a `next` array: the initial value is copied into current
 * before the loop; at the latch every yielded value is first copied into its
 * next array, then every next into its current (a staged parallel copy:
 * swaps work); the body and the loop result read current.  A zero-trip loop
 * never enters the body, so its results are the initial values. */
#include "lower/internal.h"
#include "tir/form.h"

/* Packet-local, a coordinate on D arrives as its slot q: it is bound to the
 * element W·q + lane and keeps q as its split (extracts read slot q). */
void lw_bind_coord_values(lowerer *lw, const tir_op *op, xir_value *const *coords) {
    for (uint32_t a = 0; a < op->domain->rank; a++) {
        bool split = plan_local_is_axis(lw->local, &op->domain->axes[a]);
        lv *rec = lw_scalar(lw, TIR_I64, split ? lw_element(lw, coords[a]) : coords[a]);
        if (rec && split) rec->split = coords[a];
        lw_bind(lw, op->body->args[a], rec);
    }
}

void lw_bind_coords(lowerer *lw, const tir_op *op, xir_value *ordinal) {
    xir_value *coords[PLAN_MAX_RANK];
    lw_decode(lw, op->domain, ordinal, coords);
    lw_bind_coord_values(lw, op, coords);
}

lv *lw_yielded(lowerer *lw, const tir_op *op, uint32_t index) {
    const tir_op *yield = op->body->last;
    if (!yield || yield->kind != TIR_OP_YIELD || index >= yield->operand_count) {
        lw_internal(lw, "the body of '%s' op #%u has no yield operand %u", tir_op_kind_name(op->kind), op->id, index);
        return NULL;
    }
    return lw_lookup(lw, yield->operands[index]->value);
}

bool lw_carry_begin(lowerer *lw, lw_carry *c, const tir_value *arg, const tir_value *init_value) {
    *c = (lw_carry){plan_value_of(lw->plan, arg), arg->type->kind == TIR_TYPE_TILE ? arg->type->space : NULL, NULL, NULL,
                    NULL};
    lv *init = lw_lookup(lw, init_value);
    if (!init) return false;
    if (c->plan->form == PLAN_FORM_ARRAY) {
        c->current = lw_alloca(lw, c->plan->elem, c->plan->count);
        c->next = lw_alloca(lw, c->plan->elem, c->plan->count);
        lw_copy(lw, c->space, true, c->current, init);
        lw->counters.buffered_carries++;
        return lw_ok(lw);
    }
    /* read here: reading an array or a recipe emits instructions, which
     * must dominate whatever joins the initial elements */
    if (!(c->elems = lw_alloc(lw, sizeof *c->elems * c->plan->count))) return false;
    for (uint64_t k = 0; k < c->plan->count; k++) c->elems[k] = lw_read(lw, init, lw_i64(lw, (int64_t)k));
    return lw_ok(lw);
}

bool lw_carry_yield(lowerer *lw, lw_carry *c, const lv *y) {
    if (!y) return false;
    if (c->plan->form == PLAN_FORM_ARRAY) lw_copy(lw, c->space, true, c->next, y);
    else
        for (uint64_t k = 0; k < c->plan->count; k++) c->elems[k] = lw_read(lw, y, lw_i64(lw, (int64_t)k));
    return lw_ok(lw);
}

void lw_carry_commit(lowerer *lw, lw_carry *c) {
    if (c->plan->form == PLAN_FORM_ARRAY)
        lw_copy(lw, c->space, true, c->current, lw_array_over(lw, c->plan->elem, c->plan->count, c->next));
}

typedef struct {
    lw_carry state;  /* elems: the PHI values at the back edge */
    xir_inst **phis; /* not buffered: one per element */
} carry;

/* A record reading the carry's state: current, or the PHIs. */
static lv *carry_record(lowerer *lw, const carry *c) {
    const plan_value *p = c->state.plan;
    if (p->form == PLAN_FORM_ARRAY) return lw_array_over(lw, p->elem, p->count, c->state.current);
    if (p->form == PLAN_FORM_SCALAR) return lw_scalar(lw, p->elem, c->phis[0] ? &c->phis[0]->value : NULL);
    lv *rec = lw_ssa(lw, p->elem, p->count);
    for (uint64_t k = 0; rec && k < p->count; k++) rec->elems[k] = c->phis[k] ? &c->phis[k]->value : NULL;
    return rec;
}

/* One counted loop over op's flattened domain from `from` to `to` (i64
 * values, at most `max` trips; static: from 0 to trips), its carries'
 * PHIs starting from their current values; `full`, when given, bounds the
 * index: i <= floor(full->form / full->div) - 1 (a peeled loop's guard-free
 * part).  Leaves the carries at the loop's exit. */
typedef struct {
    const tir_form *form;
    int64_t div;
} loop_bound;

static bool loop_range(lowerer *lw, const tir_op *op, carry *carries, xir_value *from, xir_value *to, uint64_t max,
                       int64_t trips, const loop_bound *full) {
    uint32_t rank = op->domain->rank, n = op->result_count;
    lw_loop L;
    if (to) lw_loop_begin_to(lw, &L, from, to, max);
    else lw_loop_begin(lw, &L, 0, trips, 1);
    for (uint32_t j = 0; j < n; j++) {
        carry *c = &carries[j];
        if (c->state.plan->form == PLAN_FORM_ARRAY) continue;
        xir_type *type = xir_type_scalar(lw->m, c->state.plan->elem);
        for (uint64_t k = 0; k < c->state.plan->count; k++) c->phis[k] = lw_loop_phi(lw, &L, type, c->state.elems[k]);
        lw->counters.phi_carries++;
    }
    if (!lw_ok(lw)) return false;
    xir_value *i = &L.index->value;
    bool reverse = op->kind == TIR_OP_REDUCE && op->policy == TIR_REDUCE_FOLD_RIGHT;
    xir_value *last = to ? lw_arith(lw, XIR_OP_SUB, to, lw_i64(lw, 1), NULL) : lw_i64(lw, trips - 1);
    lw_bind_coords(lw, op, reverse ? lw_arith(lw, XIR_OP_SUB, last, i, NULL) : i);
    /* after the coordinates' own bound (i <= E - 1), the peel's tighter one */
    if (full) lw_set_sym_bound(lw, i, full->form, full->div, -1);
    for (uint32_t j = 0; j < n; j++) lw_bind(lw, op->body->args[rank + j], carry_record(lw, &carries[j]));
    lower_block(lw, op->body, NULL);
    /* The back edge: PHI values first, then the staged copy of large carries. */
    for (uint32_t j = 0; j < n; j++)
        if (!lw_carry_yield(lw, &carries[j].state, lw_yielded(lw, op, j))) return false;
    for (uint32_t j = 0; j < n; j++) lw_carry_commit(lw, &carries[j].state);
    lw_loop_end(lw, &L, 1);
    for (uint32_t j = 0; j < n; j++) {
        carry *c = &carries[j];
        if (c->state.plan->form == PLAN_FORM_ARRAY) continue;
        for (uint64_t k = 0; k < c->state.plan->count; k++) {
            lw_phi_add(lw, c->phis[k], c->state.elems[k], L.latch);
            c->state.elems[k] = &c->phis[k]->value; /* at the exit: what a next loop starts from */
        }
    }
    return lw_ok(lw);
}

/* A loop over runtime sizes of ceil_div(A, k) trips is peeled (represent.c):
 * floor(A / k) trips whose index proves a k-element block inside A, then
 * the rest (at most one trip) with its guards. */
void lower_loop(lowerer *lw, const tir_op *op) {
    const plan_op *po = plan_op_of(lw->plan, op);
    if (po->partitioned) {
        lower_partitioned_reduce(lw, op);
        return;
    }
    uint32_t rank = op->domain->rank, n = op->result_count;
    xir_value *sized = po->sized ? lw_volume_value(lw, op->domain) : NULL; /* the trips of a loop over runtime sizes */
    carry *carries = lw_alloc(lw, sizeof *carries * (n ? n : 1));
    if (!carries) return;
    lw->counters.ordered_loops++;
    for (uint32_t j = 0; j < n; j++) { /* in the preheader: the PHIs' entry edge */
        carry *c = &carries[j];
        if (!lw_carry_begin(lw, &c->state, op->body->args[rank + j], op->operands[j]->value)) return;
        if (c->state.plan->form != PLAN_FORM_ARRAY &&
            !(c->phis = lw_alloc(lw, sizeof *c->phis * c->state.plan->count)))
            return;
    }
    xir_value *from = lw_i64(lw, 0);
    if (po->peeled) {
        const tir_form *trips = tir_extent_form(lw->tf->module, op->domain->axes[0].extent);
        loop_bound full = {trips->a.form, trips->c};
        xir_value *blocks = lw_whole_blocks(lw, trips);
        if (!loop_range(lw, op, carries, from, blocks, po->max_count, 0, &full)) return;
        from = blocks;
        lw->counters.peeled_loops++;
    }
    if (!loop_range(lw, op, carries, from, sized, po->max_count, (int64_t)po->count, NULL)) return;
    for (uint32_t j = 0; j < n; j++) lw_bind(lw, op->results[j], carry_record(lw, &carries[j]));
}
